// Package loadtest holds the load test with no data loss: mixed writes
// through the gateway of a real stack, then a check in both databases that
// every 201 the client saw is stored exactly once with the data sent.
package loadtest
