package server

import (
	"net/http"
	"strings"
)

// ForwardedPrefixHeader carries the path prefix a gateway stripped before
// forwarding (e.g. "/go/v1"), so services can build URLs clients can follow.
const ForwardedPrefixHeader = "X-Forwarded-Prefix"

// maxPrefixLen bounds the prefix a service will put into its URLs.
const maxPrefixLen = 256

// PublicPath returns path as the client addressed it: prefixed with the
// X-Forwarded-Prefix of the request when that header holds a clean path
// ("/seg/seg" of unreserved characters, no dot segments), else path itself.
// Use it for Location headers and links.
func PublicPath(r *http.Request, path string) string {
	prefix := r.Header.Get(ForwardedPrefixHeader)
	if !cleanPrefix(prefix) {
		return path
	}
	return prefix + path
}

func cleanPrefix(p string) bool {
	if len(p) < 2 || len(p) > maxPrefixLen || p[0] != '/' || strings.HasSuffix(p, "/") {
		return false
	}
	for _, seg := range strings.Split(p[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
			if !ok {
				return false
			}
		}
	}
	return true
}
