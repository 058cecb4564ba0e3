// Package load sends mixed, realistic traffic through the gateway with
// vegeta at a fixed rate for a fixed time and reports latency percentiles
// and statuses, overall and per operation.
//
// The operations are creates (Servico, Emprego, Escolaridade, Categoria),
// full-replace updates (PUT of a Servico or an Escolaridade created by the
// same run), lists and search; Mix sets their weights. Every row a run
// creates or updates carries a name with the run's marker (Report.Marker),
// and the Report keeps every 201 the run saw, so that a test can check
// afterwards that each exists exactly once with the data sent.
//
// Run refuses to send anything to production or, unless told otherwise for
// staging, anywhere but loopback (CheckTargets): the API document §1 forbids
// load tests against production (docs/decisions.md#environments).
package load
