package idempotency

import (
	"bytes"

	"github.com/gin-gonic/gin"
)

// replayedHeaders are the response headers stored and replayed: the only
// ones that describe the response itself rather than this one exchange.
var replayedHeaders = []string{"Content-Type", "Location"}

// recorder passes a handler's response through to the client while keeping
// a copy of its body, so it can be stored once the handler returns.
type recorder struct {
	gin.ResponseWriter
	body bytes.Buffer
}

// Write sends b and keeps a copy.
func (r *recorder) Write(b []byte) (int, error) {
	n, err := r.ResponseWriter.Write(b)
	r.body.Write(b[:n])
	return n, err
}

// WriteString sends s and keeps a copy.
func (r *recorder) WriteString(s string) (int, error) {
	n, err := r.ResponseWriter.WriteString(s)
	r.body.WriteString(s[:n])
	return n, err
}

// response returns what the handler answered.
func (r *recorder) response() response {
	header := map[string]string{}
	for _, name := range replayedHeaders {
		if v := r.Header().Get(name); v != "" {
			header[name] = v
		}
	}
	return response{status: r.Status(), header: header, body: r.body.Bytes()}
}
