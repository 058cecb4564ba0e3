package server

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/problem"
)

// Preconditions evaluates the conditional headers of RFC 9110, section 13,
// on an API that sends no validators (no ETag, no Last-Modified), so that a
// client that makes a request conditional is not answered as if it had not:
//
//   - If-Match naming entity tags matches none, since none is ever sent: the
//     request is a 412 and nothing is done (13.1.1). A client that sends it
//     means "only if nobody changed it since"; a write that went ahead would
//     overwrite what it meant to protect. If-Match: * passes (the handler
//     answers 404 when there is nothing).
//   - If-None-Match: * asks that there be no current representation: a PUT,
//     PATCH or DELETE, which act on one that exists, are a 412; a GET or HEAD
//     of one that exists is a 304 (13.1.2). If-None-Match naming tags matches
//     none and passes.
//   - If-Modified-Since and If-Unmodified-Since are ignored: no modification
//     date is published (13.1.3, 13.1.4).
//
// Put it after authentication and before the handlers: a 401 comes first.
func Preconditions(c *gin.Context) {
	r := c.Request
	if values := r.Header.Values("If-Match"); len(values) > 0 && !onlyAny(values) {
		problem.Abort(c, problem.Errorf(problem.EPRECONDITION,
			"If-Match names entity tags, and this API sends none: none can match, so nothing was done; send the request without If-Match"))
		return
	}
	if values := r.Header.Values("If-None-Match"); len(values) > 0 && onlyAny(values) {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			c.Writer = &notModified{ResponseWriter: c.Writer}
		case http.MethodPut, http.MethodPatch, http.MethodDelete:
			problem.Abort(c, problem.Errorf(problem.EPRECONDITION,
				"If-None-Match: * asks that the resource not exist, and a %s acts on one that does: nothing was done", r.Method))
			return
		}
	}
	c.Next()
}

// onlyAny reports whether a conditional header's values are the one "*".
func onlyAny(values []string) bool {
	return len(values) == 1 && strings.TrimSpace(values[0]) == "*"
}

// notModified turns a 200 into a 304 without its body.
type notModified struct {
	gin.ResponseWriter
	quiet bool
}

func (w *notModified) WriteHeader(code int) {
	if code == http.StatusOK {
		code, w.quiet = http.StatusNotModified, true
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write drops the body of a 200 (a handler that writes without a status
// first gets one, as gin would give it).
func (w *notModified) Write(b []byte) (int, error) {
	if !w.Written() && w.Status() == http.StatusOK {
		w.WriteHeader(http.StatusOK)
	}
	if w.quiet {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *notModified) WriteString(s string) (int, error) { return w.Write([]byte(s)) }
