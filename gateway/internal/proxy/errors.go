package proxy

import (
	"context"
	"errors"
	"net"
	"net/http"

	"github.com/municipal-apis/platform/pkg/problem"
)

// statusClientClosed is recorded when the client went away before the
// upstream answered; nobody reads the response.
const statusClientClosed = 499

// fail answers a request the upstream could not serve: 413 when the client's
// body ran over the limit, 504 when the upstream timed out, 502 otherwise.
// out is the outgoing request; the problem names the client's own path.
func (u *Upstream) fail(w http.ResponseWriter, out *http.Request, err error) {
	f := forwardOf(out)
	r := f.in
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		u.metrics.observeOutcome(u.route.Prefix, "too_large", f.start)
		problem.Write(w, r, problem.BodyTooLarge(mbe.Limit))
	case r.Context().Err() != nil && errors.Is(err, context.Canceled):
		u.metrics.observeOutcome(u.route.Prefix, "client_closed", f.start)
		w.WriteHeader(statusClientClosed)
	case isTimeout(err):
		u.metrics.observeOutcome(u.route.Prefix, "timeout", f.start)
		problem.Write(w, r, problem.Wrap(problem.ETIMEOUT, err, "the upstream service did not answer in time"))
	default:
		u.metrics.observeOutcome(u.route.Prefix, "unreachable", f.start)
		problem.Write(w, r, problem.Wrap(problem.EBADGATEWAY, err, "the upstream service is unavailable"))
	}
}

// isTimeout reports whether err is a dial, response-header or deadline timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
