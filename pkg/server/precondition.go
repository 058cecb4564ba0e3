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
	if preconditions(c) {
		c.Next()
	}
}

// preconditions applies Preconditions to c, and reports whether the
// request goes on (it was not refused).
func preconditions(c *gin.Context) bool {
	unmodified, err := evaluatePreconditions(c.Request)
	if err != nil {
		problem.Abort(c, err)
		return false
	}
	if unmodified {
		c.Writer = &notModified{ResponseWriter: c.Writer}
	}
	return true
}

// PreconditionsHTTP is Preconditions for a net/http handler, such as a
// page or document served without a token.
func PreconditionsHTTP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		unmodified, err := evaluatePreconditions(r)
		if err != nil {
			problem.Write(w, r, err)
			return
		}
		if unmodified {
			w = &notModifiedHTTP{ResponseWriter: w}
		}
		h.ServeHTTP(w, r)
	})
}

// evaluatePreconditions is the outcome of r's conditional headers: a GET
// or HEAD whose 200 is to be a 304, or a 412 to answer.
func evaluatePreconditions(r *http.Request) (unmodified bool, refusal error) {
	if values := r.Header.Values("If-Match"); len(values) > 0 && !onlyAny(values) {
		return false, problem.Errorf(problem.EPRECONDITION,
			"If-Match names entity tags, and this API sends none: none can match, so nothing was done; send the request without If-Match")
	}
	if values := r.Header.Values("If-None-Match"); len(values) > 0 && onlyAny(values) {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			return true, nil
		case http.MethodPut, http.MethodPatch, http.MethodDelete:
			return false, problem.Errorf(problem.EPRECONDITION,
				"If-None-Match: * asks that the resource not exist, and a %s acts only on one that exists: nothing was done", r.Method)
		}
	}
	return false, nil
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

// notModifiedHTTP is notModified for a net/http handler.
type notModifiedHTTP struct {
	http.ResponseWriter
	status int
}

func (w *notModifiedHTTP) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	if code == http.StatusOK {
		code = http.StatusNotModified
		// A 304 has no content: the headers about it go (RFC 9110, 15.4.5).
		w.Header().Del("Content-Length")
		w.Header().Del("Content-Type")
	}
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *notModifiedHTTP) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.status == http.StatusNotModified {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *notModifiedHTTP) Unwrap() http.ResponseWriter { return w.ResponseWriter }
