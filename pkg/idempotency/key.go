package idempotency

import (
	"net/http"
	"strings"

	"github.com/municipal-apis/platform/pkg/problem"
)

// Header is the request header that carries the key (IETF
// draft-ietf-httpapi-idempotency-key-header).
const Header = "Idempotency-Key"

// ReplayedHeader marks a response that is the stored answer to an earlier
// request with the same key.
const ReplayedHeader = "Idempotent-Replayed"

// MaxKeyLength is the longest key accepted, in characters.
const MaxKeyLength = 255

// keyOf reads the Idempotency-Key of h. The draft sends it as a structured
// string ("abc"); the bare form (abc) many clients send is accepted too and
// means the same key. present is false when the header is absent.
func keyOf(h http.Header) (key string, present bool, err error) {
	values := h.Values(Header)
	switch len(values) {
	case 0:
		return "", false, nil
	case 1:
	default:
		return "", true, invalidKey("is sent more than once")
	}
	key = strings.TrimSpace(values[0])
	if len(key) >= 2 && key[0] == '"' && key[len(key)-1] == '"' {
		var ok bool
		if key, ok = unquote(key[1 : len(key)-1]); !ok {
			return "", true, invalidKey("is a quoted string with a stray quote or backslash")
		}
	}
	switch {
	case key == "":
		return "", true, invalidKey("is empty")
	case len(key) > MaxKeyLength:
		return "", true, invalidKey("is longer than 255 characters")
	case !printableASCII(key):
		return "", true, invalidKey("holds characters other than printable ASCII")
	}
	return key, true, nil
}

// unquote undoes the escapes of a structured-field string body: only \" and
// \\ are allowed, and a bare quote is not.
func unquote(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			i++
			b.WriteByte(s[i])
		case c == '\\' || c == '"':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// printableASCII reports whether every byte of s is in 0x20–0x7E.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// invalidKey is the 400 answer to an unusable key.
func invalidKey(why string) error {
	return &problem.Error{Code: problem.EMALFORMED, Detail: "the " + Header + " header " + why,
		Fields: []problem.FieldError{{Field: Header, Code: "invalid", Message: why + "; send 1 to 255 printable ASCII characters"}}}
}
