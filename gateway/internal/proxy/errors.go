package proxy

import (
	"net/http"

	"github.com/municipal-apis/platform/pkg/problem"
)

// statusClientClosed is recorded when the client went away before the
// upstream answered; nobody reads the response.
const statusClientClosed = 499

func writeProblem(w http.ResponseWriter, r *http.Request, err error) { problem.Write(w, r, err) }

func tooLarge(limit int64) error { return problem.BodyTooLarge(limit) }

func timedOut(err error) error {
	return problem.Wrap(problem.ETIMEOUT, err, "the upstream service did not answer in time")
}

func unreachable(err error) error {
	return problem.Wrap(problem.EBADGATEWAY, err, "the upstream service is unavailable")
}
