// Package benchreport runs the project's benchmark set (go test benchmarks
// of every module, the gateway's vegeta comparison and a loadgen run against
// a real stack) and writes the results as one Markdown report with a PNG
// latency plot.
package benchreport
