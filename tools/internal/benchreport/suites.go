package benchreport

// DefaultSuites are the go test benchmarks of every module, with iteration
// counts that keep the whole set within a few minutes on two cores.
var DefaultSuites = []Suite{
	{Area: "gateway", Packages: "./gateway/...", Bench: ".", Benchtime: "20000x"},
	{Area: "jobs", Packages: "./services/jobs/...", Bench: ".", Benchtime: "1000x"},
	{Area: "search-admin", Packages: "./services/search-admin/...", Bench: "CreateServico|Search", Benchtime: "300x"},
	{Area: "search-admin", Packages: "./services/search-admin/...", Bench: "Reindex", Benchtime: "2x"},
	{Area: "client and tools", Packages: "./pkg/...", Bench: ".", Benchtime: "2000x"},
	{Area: "client and tools", Packages: "./tools/...", Bench: ".", Benchtime: "3x"},
}
