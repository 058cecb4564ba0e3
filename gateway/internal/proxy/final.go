package proxy

import "net/http"

// finalWriter passes a response through and puts the gateway's own headers
// (gatewayOwned, set before proxying) back on the final response after an
// interim one. httputil.ReverseProxy relays a 1xx (100 Continue, 103 Early
// Hints) with the headers set so far and then clears them, so without it the
// final 201 or 422 of an Expect: 100-continue request would lose its
// X-Request-ID and rate-limit headers.
type finalWriter struct {
	http.ResponseWriter
	saved   [len(gatewayOwned)][]string
	interim bool // a 1xx went out, so the header map was cleared
	final   bool // the final status went out
}

// keep wraps w and remembers the gateway's headers it already carries.
func (f *finalWriter) keep(w http.ResponseWriter) {
	f.ResponseWriter = w
	h := w.Header()
	for i, name := range gatewayOwned {
		f.saved[i] = h[name]
	}
}

func (f *finalWriter) WriteHeader(code int) {
	switch {
	case code >= 100 && code < 200 && code != http.StatusSwitchingProtocols:
		f.interim = true
	case f.interim && !f.final:
		h := f.Header()
		for i, name := range gatewayOwned {
			if f.saved[i] != nil {
				h[name] = f.saved[i]
			}
		}
		f.final = true
	default:
		f.final = true
	}
	f.ResponseWriter.WriteHeader(code)
}

func (f *finalWriter) Write(b []byte) (int, error) {
	if !f.final {
		f.WriteHeader(http.StatusOK)
	}
	return f.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the server's writer (flushes, upgrades).
func (f *finalWriter) Unwrap() http.ResponseWriter { return f.ResponseWriter }
