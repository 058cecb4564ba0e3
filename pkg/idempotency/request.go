package idempotency

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"net/http"

	"github.com/municipal-apis/platform/pkg/problem"
)

// readBody reads r's body, bounded by the limit server.Handler sets, and
// puts the same bytes back for the handler.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, problem.Errorf(problem.ETOOLARGE, "the request body exceeds %d bytes", mbe.Limit)
		}
		return nil, problem.Wrap(problem.EMALFORMED, err, "the request body could not be read")
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}

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
