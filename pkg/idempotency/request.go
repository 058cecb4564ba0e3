package idempotency

import (
	"crypto/sha256"
	"encoding/binary"
	"io"
	"net/http"
)

// fingerprint identifies a request: its method, route, path, query and
// exact body, each part length-prefixed so no two requests share one.
func fingerprint(r *http.Request, route string, body []byte) []byte {
	h := sha256.New()
	for _, part := range []string{r.Method, route, r.URL.EscapedPath(), r.URL.RawQuery} {
		_ = binary.Write(h, binary.BigEndian, uint64(len(part)))
		_, _ = io.WriteString(h, part)
	}
	_, _ = h.Write(body)
	return h.Sum(nil)
}
