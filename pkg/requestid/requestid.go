// Package requestid carries the per-request correlation id through contexts,
// logs and error bodies.
package requestid

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"time"

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

// New returns a fresh, time-ordered request id: a UUID version 7 (RFC 9562
// 5.7), the milliseconds of the Unix clock followed by 74 random bits.
//
// The random bits come from the runtime's generator (math/rand/v2), which
// each thread seeds from the system's and reads without a lock: a request
// id is a correlation handle, not a secret, and the gateway numbers every
// request. uuid.NewV7, its first maker, took a process-wide lock for its
// pool of random bytes and for ordering ids within a millisecond, which no
// reader of an id needs. The text is still written by uuid.UUID.String.
func New() string {
	var id uuid.UUID
	ms := uint64(time.Now().UnixMilli())
	binary.BigEndian.PutUint64(id[:8], ms<<16|0x7000|rand.Uint64()&0x0fff)                  // 48 bits of time, version 7, 12 random bits
	binary.BigEndian.PutUint64(id[8:], rand.Uint64()&0x3fffffffffffffff|0x8000000000000000) // variant 10, 62 random bits
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
