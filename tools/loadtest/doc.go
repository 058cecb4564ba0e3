// Package loadtest holds the load tests with no data loss: mixed writes
// through the gateway of a real stack, then a check in both databases that
// every 201 the client saw is stored exactly once with the data sent; and
// the fault suite, the same check after a mixed load through Redis, Postgres,
// service and identity-provider faults.
package loadtest
