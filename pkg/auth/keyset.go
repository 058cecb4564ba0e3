package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// acceptedAlgs are the only signature algorithms a token may use.
var acceptedAlgs = []jose.SignatureAlgorithm{jose.RS256, jose.ES256}

var (
	errUnknownKey   = errors.New("no signing key matches the token's key id and algorithm")
	errBadSignature = errors.New("signature does not verify")
)

// keySet is an oidc.KeySet backed by a remote JWKS. It caches the keys and,
// when a token names a key it does not hold, refetches at most once per
// cooldown; concurrent misses wait for the same fetch.
type keySet struct {
	url      string
	client   *http.Client
	cooldown time.Duration
	now      func() time.Time
	logger   *slog.Logger

	mu       sync.Mutex
	keys     []jose.JSONWebKey
	fetched  time.Time // end of the last fetch, successful or not
	lastErr  error     // outcome of the last fetch
	inflight *fetchCall
}

// fetchCall is one JWKS fetch that several goroutines may wait for.
type fetchCall struct {
	done chan struct{}
	keys []jose.JSONWebKey
	err  error
}

func newKeySet(c Config) *keySet {
	return &keySet{url: c.JWKSURL, client: c.HTTPClient, cooldown: c.RefetchCooldown, now: c.Now, logger: c.Logger}
}

// VerifySignature implements oidc.KeySet: it parses the compact JWS, checks
// its algorithm, and returns the payload once a key of the set verifies it.
func (s *keySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	jws, err := jose.ParseSignedCompact(jwt, acceptedAlgs)
	if err != nil {
		return nil, fmt.Errorf("parse jws: %w", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, errors.New("the token must carry exactly one signature")
	}
	hdr := jws.Signatures[0].Header
	n := noteFrom(ctx)

	payload, known := verifyWith(jws, s.cached(), hdr.KeyID, hdr.Algorithm)
	if payload == nil && !known {
		keys, ferr := s.refresh(ctx)
		payload, known = verifyWith(jws, keys, hdr.KeyID, hdr.Algorithm)
		if payload == nil && !known && ferr != nil {
			n.fetchErr = ferr
			return nil, fmt.Errorf("fetch signing keys: %w", ferr)
		}
	}
	switch {
	case payload != nil:
		n.payload = payload
		return payload, nil
	case known:
		return nil, errBadSignature
	default:
		n.unknownKey = true
		return nil, errUnknownKey
	}
}

// verifyWith tries every key that may have signed the token: the key with its
// kid, or, for a token without kid, every key of its algorithm. known reports
// whether any such key exists, so that a bad signature is not mistaken for a
// key the set has not seen yet.
func verifyWith(jws *jose.JSONWebSignature, keys []jose.JSONWebKey, kid, alg string) (payload []byte, known bool) {
	for _, k := range keys {
		if (kid != "" && k.KeyID != kid) || !keyFits(k, alg) {
			continue
		}
		known = true
		if p, err := jws.Verify(k.Key); err == nil {
			return p, true
		}
	}
	return nil, known
}

// keyFits reports whether k may verify a signature made with alg.
func keyFits(k jose.JSONWebKey, alg string) bool {
	if k.Algorithm != "" {
		return k.Algorithm == alg
	}
	switch key := k.Key.(type) {
	case *rsa.PublicKey:
		return alg == string(jose.RS256)
	case *ecdsa.PublicKey:
		return alg == string(jose.ES256) && key.Curve == elliptic.P256()
	}
	return false
}

func (s *keySet) cached() []jose.JSONWebKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys
}

// refresh fetches the JWKS unless a fetch ended less than a cooldown ago, in
// which case it returns the cached keys and that fetch's error. A fetch in
// flight is joined rather than repeated.
func (s *keySet) refresh(ctx context.Context) ([]jose.JSONWebKey, error) {
	s.mu.Lock()
	c := s.inflight
	if c == nil {
		if !s.fetched.IsZero() && s.now().Sub(s.fetched) < s.cooldown {
			keys, err := s.keys, s.lastErr
			s.mu.Unlock()
			return keys, err
		}
		c = &fetchCall{done: make(chan struct{})}
		s.inflight = c
		go s.run(context.WithoutCancel(ctx), c)
	}
	s.mu.Unlock()

	select {
	case <-c.done:
		return c.keys, c.err
	case <-ctx.Done():
		return s.cached(), fmt.Errorf("wait for JWKS fetch: %w", ctx.Err())
	}
}

// run performs the fetch of c, detached from any one caller's cancellation.
func (s *keySet) run(ctx context.Context, c *fetchCall) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	keys, err := fetchJWKS(ctx, s.client, s.url)
	if err != nil {
		s.logger.WarnContext(ctx, "fetching the JWKS failed", "url", s.url, "err", err)
	} else {
		s.logger.InfoContext(ctx, "fetched the JWKS", "url", s.url, "keys", len(keys))
	}

	s.mu.Lock()
	if err == nil {
		s.keys = keys
	}
	s.fetched, s.lastErr, s.inflight = s.now(), err, nil
	c.keys, c.err = s.keys, err
	s.mu.Unlock()
	close(c.done)
}

// ping reports whether the JWKS can be fetched and holds a usable key; it
// respects the cooldown, so frequent readiness probes stay cheap.
func (s *keySet) ping(ctx context.Context) error {
	keys, err := s.refresh(ctx)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(keys, func(k jose.JSONWebKey) bool { return keyFits(k, string(jose.RS256)) || keyFits(k, string(jose.ES256)) }) {
		return fmt.Errorf("the JWKS at %s has no RS256 or ES256 signing key", s.url)
	}
	return nil
}
