// Package e2e holds the end-to-end tests of the platform: they start
// devidp, search-admin, jobs and the gateway as real processes
// (pkg/stack) and run the API document's six operations, their
// error paths and the rate limits through the gateway with pkg/client, as
// a client of the platform would. The package has no code besides its tests.
package e2e
