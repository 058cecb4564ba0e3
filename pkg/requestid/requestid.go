// Package requestid carries the per-request correlation id through contexts,
// logs and error bodies.
package requestid

import (
	"context"

	"github.com/google/uuid"
)

// Header is the HTTP header that carries the request id in both directions.
const Header = "X-Request-ID"

// maxLen bounds an incoming id so a client cannot bloat every log line.
const maxLen = 128

type ctxKey struct{}

// With returns a copy of ctx that carries id.
func With(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, ctxKey{}, id)
}

// ContextKey is the key under which With stores the id. A context type that
// carries the request's state in one value (pkg/server's) answers
// Value(ContextKey()) with the id as a string or a *string, which saves
// boxing the id in an allocation of its own.
func ContextKey() any { return ctxKey{} }

// From returns the request id stored in ctx, or "" when there is none.
func From(ctx context.Context) string {
	switch id := ctx.Value(ctxKey{}).(type) {
	case string:
		return id
	case *string:
		return *id
	}
	return ""
}

// Random bytes of new ids come from uuid's pool, filled from crypto/rand
// in batches, instead of one read of the system's generator per id (a
// system call on every request the gateway numbers). A request id is a
// correlation handle, not a secret.
func init() { uuid.EnableRandPool() }

// New returns a fresh, time-ordered request id.
func New() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

// Valid reports whether an incoming id is sane enough to honour: 1 to 128
// characters of letters, digits and ". _ : -". Anything else (spaces, control
// characters, unicode, log-injection attempts) is replaced by a fresh id.
func Valid(id string) bool {
	if id == "" || len(id) > maxLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.', c == '_', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}
