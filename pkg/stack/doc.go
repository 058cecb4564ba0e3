// Package stack is the one starter of the whole platform: it runs the
// development identity provider (devidp), search-admin, jobs and the
// gateway as real processes on loopback, each built from this
// repository's working tree (the main packages of programs.txt) and
// started as its own process. `make run` (tools/cmd/stack), the end-to-end
// and load tests, benchreport and the gateway's overhead benchmark all
// start programs through it.
//
// Start builds the programs once per process (one go build of the
// go.work workspace into a temporary directory), then:
//
//   - starts devidp on a free loopback port (DEVIDP_ADDR, DEVIDP_ISSUER_BASE);
//   - for each service, runs "<svc> migrate -create-database" against a new,
//     uniquely named database on the local Postgres (pgtest.AdminURL) and
//     serves it on a free port, its admin listener (ADMIN_ADDR) on another;
//   - starts the gateway with ROUTES pointing at both services, REDIS_URL at
//     the local Redis with a RATE_LIMIT_KEY_PREFIX unique to the stack, and
//     the RATE_LIMIT_* values of Options (DefaultRateLimit when unset), and
//     its admin listener on a free port;
//
// and returns once every program is ready: devidp answers GET /livez, the
// others GET /readyz on their admin listeners, and (when the program logs
// at INFO) its log says it listens on the address probed, so that another
// process that took a chosen port is not mistaken for it. It fails, never
// skips, when Postgres or Redis cannot be reached. Each program gets only
// the variables the stack sets (plus PATH, HOME, TMPDIR and Options.Env), so
// the caller's environment cannot change it; its output is kept in memory
// (Logs, Mark, LogsSince). Close stops the programs with SIGTERM, the
// gateway first, and drops the databases WITH (FORCE); on Linux the
// programs also get SIGTERM if the process that started them dies.
//
// Fault tests end a program on purpose with Kill (SIGKILL, a crash) or Stop
// (SIGTERM) and start it again with Restart (same binary, address,
// environment and arguments, without migrating again); Close does not count
// a program ended that way as a failure.
//
// In tests, one stack per test:
//
//	func TestMain(m *testing.M) { os.Exit(stack.Main(m)) }
//
//	func TestX(t *testing.T) {
//		s := stack.StartT(t, stack.Options{RateLimitPerClient: "3-S"})
//		c := s.MustClient(t, stack.JobsAdmin) // pkg/client through the gateway
//		...
//	}
//
// or one stack shared by every test of the binary, started on first use:
//
//	var shared = stack.NewShared(stack.Options{})
//
//	func TestMain(m *testing.M) { os.Exit(stack.Main(m, shared)) }
//
//	func TestY(t *testing.T) { s := shared.Get(t); ... }
//
// Outside tests (a load tool), Start and Close do the same, and
// RemoveBinaries deletes the built programs before the process exits.
//
// A local run (make run) fixes what tests leave free: Options.Addrs and
// Options.AdminAddrs set the listen addresses, Options.DatabaseURLs names databases that are
// created when missing and kept, Options.GatewayLimits keeps the gateway's
// own rate limits, Options.Binaries uses make build's bin/, Options.Output
// shows every program's output as it comes, and Wait returns when a program
// exits. Options.Programs starts a part of the stack, such as the identity
// provider alone for the gateway's benchmark.
//
// The addresses a caller needs are fields and methods of Stack:
// SearchBaseURL and JobsBaseURL (the API document's {search_base_url} and
// {go_base_url}, through the gateway), GatewayURL, SearchAdminURL and
// JobsURL (direct), AdminURLs (the admin listeners: /readyz, /metrics),
// AuthURL ({auth_url}), Issuer, TokenURL, SearchDatabaseURL and
// JobsDatabaseURL (to check what was stored), RedisURL and
// RateLimitKeyPrefix. ClientConfig and MustClient give a pkg/client
// configured for a realm client (CatalogAdmin, JobsAdmin, Reader,
// OtherDept).
package stack
