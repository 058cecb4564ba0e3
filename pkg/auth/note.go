package auth

import "context"

// note records, during one Verify call, what the key set found out, because
// go-oidc flattens the key set's errors into text. Verify reads it to tell an
// unreachable identity provider or an unknown key from a bad signature, and to
// explain claim failures from the verified payload.
type note struct {
	payload    []byte   // set once the signature verified
	key        *heldKey // the key that verified it
	unknownKey bool     // no key of the set could have signed the token
	fetchErr   error    // the JWKS could not be fetched
}

type noteKey struct{}

func withNote(ctx context.Context, n *note) context.Context {
	return context.WithValue(ctx, noteKey{}, n)
}

// noteFrom returns the note of ctx, or a throwaway one when the key set is
// used outside Verify.
func noteFrom(ctx context.Context) *note {
	if n, ok := ctx.Value(noteKey{}).(*note); ok {
		return n
	}
	return &note{}
}
