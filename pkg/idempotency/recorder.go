package idempotency

import (
	"bufio"
	"bytes"
	"errors"
	"maps"
	"net"
	"net/http"

	"github.com/gin-gonic/gin"
)

// replayedHeaders are the response headers stored and replayed: the only
// ones that describe the response itself rather than this one exchange.
var replayedHeaders = []string{"Content-Type", "Location"}

// errNoHijack refuses a connection takeover by a handler whose answer is held back.
var errNoHijack = errors.New("idempotency: a handler guarded by an Idempotency-Key cannot hijack the connection")

// recorder holds a handler's whole answer back instead of sending it: the
// answer may go out only once it is committed with the handler's write, and
// a run that is retried must leave nothing behind. It starts from the
// headers set before the handler ran.
type recorder struct {
	gin.ResponseWriter // the real writer, for CloseNotify only
	header             http.Header
	status             int
	body               bytes.Buffer
	written            bool
}

// newRecorder returns an empty recorder in front of w.
func newRecorder(w gin.ResponseWriter) *recorder {
	return &recorder{ResponseWriter: w, header: w.Header().Clone(), status: http.StatusOK}
}

// Header implements http.ResponseWriter.
func (r *recorder) Header() http.Header { return r.header }

// WriteHeader records the status unless the answer has begun.
func (r *recorder) WriteHeader(code int) {
	if code > 0 && !r.written {
		r.status = code
	}
}

// WriteHeaderNow marks the status as final.
func (r *recorder) WriteHeaderNow() { r.written = true }

// Write keeps b.
func (r *recorder) Write(b []byte) (int, error) {
	r.written = true
	return r.body.Write(b)
}

// WriteString keeps s.
func (r *recorder) WriteString(s string) (int, error) {
	r.written = true
	return r.body.WriteString(s)
}

// Status returns the recorded status.
func (r *recorder) Status() int { return r.status }

// Size returns how many body bytes were written, -1 before any.
func (r *recorder) Size() int {
	if !r.written {
		return -1
	}
	return r.body.Len()
}

// Written reports whether the answer has begun.
func (r *recorder) Written() bool { return r.written }

// Flush does nothing: the answer is held back until it is sent.
func (r *recorder) Flush() {}

// Hijack is refused.
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) { return nil, nil, errNoHijack }

// Pusher offers no server push.
func (r *recorder) Pusher() http.Pusher { return nil }

// response returns the parts of the answer that are stored.
func (r *recorder) response() response {
	header := map[string]string{}
	for _, name := range replayedHeaders {
		if v := r.header.Get(name); v != "" {
			header[name] = v
		}
	}
	return response{status: r.status, header: header, body: r.body.Bytes()}
}

// sendTo writes the whole recorded answer to w.
func (r *recorder) sendTo(w http.ResponseWriter) {
	h := w.Header()
	clear(h)
	maps.Copy(h, r.header)
	w.WriteHeader(r.status)
	_, _ = w.Write(r.body.Bytes())
}
