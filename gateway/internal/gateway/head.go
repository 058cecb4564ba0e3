package gateway

import (
	"bytes"

	"github.com/valyala/fasthttp"
	"golang.org/x/net/http/httpguts"

	"github.com/municipal-apis/platform/pkg/problem"
)

// checkHead refuses, with a 400, what fasthttp's parser lets through of a
// request head that RFC 9110 and 9112 call invalid, and that would reach an
// upstream as the gateway read it:
//
//   - a header name that is not a token (a space inside it: "X Client-Id"
//     is no X-Client-Id to the gateway, but a server that reads odd
//     characters as "_", as CGI and WSGI do, reads it as one);
//   - a Transfer-Encoding other than chunked (fasthttp drops "identity"
//     and frames the body by its Content-Length; RFC 9112 6.1 has no such
//     coding);
//   - a Host that is no host and port (RFC 9112 3.2: a quote, for one,
//     which would reach the upstream in X-Forwarded-Host).
//
// It reads the head as it came (RawHeaders), once per request, with the
// checks net/http makes of the same fields (httpguts).
func checkHead(h *fasthttp.RequestHeader) error {
	raw := h.RawHeaders()
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 || line[0] == ' ' || line[0] == '\t' { // the end, or a folded line's rest
			continue
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		if !httpguts.ValidHeaderFieldName(b2s(name)) {
			return problem.Errorf(problem.EMALFORMED, "a header name must be a token (RFC 9110 5.1): %q is not", clip(name))
		}
		if bytes.EqualFold(name, []byte("Transfer-Encoding")) && !bytes.EqualFold(bytes.TrimSpace(value), []byte("chunked")) {
			return problem.Errorf(problem.EMALFORMED, "the only transfer coding accepted is chunked")
		}
	}
	if !httpguts.ValidHostHeader(b2s(h.Host())) { // none is valid here: fasthttp's own 400 for HTTP/1.1
		return problem.Errorf(problem.EMALFORMED, "the Host header must be a host and an optional port")
	}
	return nil
}

// clip shortens a client's bytes quoted in an error to at most 64.
func clip(b []byte) []byte { return b[:min(len(b), 64)] }
