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
	"sync"
	"sync/atomic"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// acceptedAlgs are the only signature algorithms a token may use.
var acceptedAlgs = []jose.SignatureAlgorithm{jose.RS256, jose.ES256}

var (
	errUnknownKey   = errors.New("no signing key matches the token's key id and algorithm")
	errBadSignature = errors.New("signature does not verify")
)

// keyring is one fetched key set; it is never changed once published.
type keyring struct {
	keys []heldKey
}

// any reports whether r holds a key match accepts; a nil keyring holds
// nothing.
func (r *keyring) any(match func(k *heldKey) bool) bool {
	if r == nil {
		return false
	}
	for i := range r.keys {
		if match(&r.keys[i]) {
			return true
		}
	}
	return false
}

// has reports whether r holds a key of the kid id.
func (r *keyring) has(id string) bool {
	return r.any(func(k *heldKey) bool { return k.id == id })
}

// holds reports whether r holds the key kid with the thumbprint thumb.
func (r *keyring) holds(kid, thumb string) bool {
	return r.any(func(k *heldKey) bool { return k.id == kid && k.thumb == thumb })
}

// fits reports whether r holds the key kid and it may verify alg.
func (r *keyring) fits(kid, alg string) bool {
	return r.any(func(k *heldKey) bool { return k.id == kid && keyFits(k.jwk, alg) })
}

// keyState is what the verifier knows of the identity provider's keys.
type keyState int

const (
	stateNone        keyState = iota // nothing fetched yet
	stateUnavailable                 // no key set was ever fetched, and the last fetch failed
	stateFresh                       // the last fetch succeeded
	stateStale                       // keys are held, but the last fetch failed
)

// keySet is an oidc.KeySet backed by a remote JWKS. It holds the last good
// key set; Run refetches it on a schedule, and a token naming a key it does
// not hold makes it refetch at most once per cooldown; concurrent fetches
// are joined. A refetch that no longer lists a key drops it, a failed one
// keeps the keys held.
type keySet struct {
	url      string
	issuer   string // the configured issuer, whose discovery document is read beside the keys
	client   *http.Client
	cooldown time.Duration
	interval time.Duration
	now      func() time.Time
	logger   *slog.Logger

	held atomic.Pointer[keyring] // nil until a fetch succeeds

	mu        sync.Mutex
	fetched   time.Time // end of the last fetch, successful or not
	lastErr   error     // outcome of the last fetch
	lastOK    time.Time // end of the last successful fetch
	maxAge    time.Duration
	hasMaxAge bool
	failures  int // consecutive failed fetches
	// named is the issuer the provider's discovery document names when
	// it is not the configured one: every token will be refused.
	named    string
	state    keyState
	fetchOK  uint64
	fetchBad uint64
	inflight *fetchCall
	// fetchedOne wakes run after every fetch, its own or one for an
	// unknown kid, whose max-age or failure changes the schedule.
	fetchedOne chan struct{}
}

// fetchCall is one JWKS fetch that several goroutines may wait for.
type fetchCall struct {
	done chan struct{}
	ring *keyring
	err  error
}

func newKeySet(c Config) *keySet {
	return &keySet{url: c.JWKSURL, issuer: c.IssuerURL, client: c.HTTPClient, cooldown: c.RefetchCooldown, interval: c.RefreshInterval, now: c.Now, logger: c.Logger,
		fetchedOne: make(chan struct{}, 1)}
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

	payload, by, known := verifyWith(jws, s.held.Load(), hdr.KeyID, hdr.Algorithm)
	if payload == nil && !known {
		ring, ferr := s.refresh(ctx)
		payload, by, known = verifyWith(jws, ring, hdr.KeyID, hdr.Algorithm)
		if payload == nil && !known && ferr != nil {
			n.fetchErr = ferr
			return nil, fmt.Errorf("fetch signing keys: %w", ferr)
		}
	}
	switch {
	case payload != nil:
		n.payload, n.key = payload, by
		return payload, nil
	case known:
		return nil, errBadSignature
	default:
		n.unknownKey = true
		return nil, errUnknownKey
	}
}

// verifyWith verifies the token with the key of ring named kid, when it
// exists and fits alg. known reports whether it does, so that a bad
// signature is not mistaken for a key the set has not seen yet; by is the
// key that verified.
func verifyWith(jws *jose.JSONWebSignature, ring *keyring, kid, alg string) (payload []byte, by *heldKey, known bool) {
	if ring == nil || kid == "" {
		return nil, nil, false
	}
	for i := range ring.keys {
		k := &ring.keys[i]
		if k.id != kid || !keyFits(k.jwk, alg) {
			continue
		}
		if p, err := jws.Verify(k.jwk.Key); err == nil {
			return p, k, true
		}
		return nil, nil, true
	}
	return nil, nil, false
}

// minRSABits is the smallest RSA key RS256 may use (RFC 7518 3.3).
const minRSABits = 2048

// keyFits reports whether k may verify a signature made with alg: an RSA
// key of minRSABits or more for RS256, a P-256 key for ES256.
func keyFits(k jose.JSONWebKey, alg string) bool {
	if key, ok := k.Key.(*rsa.PublicKey); ok && key.N.BitLen() < minRSABits {
		return false
	}
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

// refresh fetches the JWKS unless a fetch ended less than a cooldown ago, in
// which case it returns the keys held and that fetch's error. A fetch in
// flight is joined rather than repeated.
func (s *keySet) refresh(ctx context.Context) (*keyring, error) {
	s.mu.Lock()
	c := s.inflight
	if c == nil {
		if !s.fetched.IsZero() && s.now().Sub(s.fetched) < s.cooldown {
			err := s.lastErr
			s.mu.Unlock()
			return s.held.Load(), err
		}
		c = &fetchCall{done: make(chan struct{})}
		s.inflight = c
		go s.fetch(context.WithoutCancel(ctx), c)
	}
	s.mu.Unlock()

	select {
	case <-c.done:
		return c.ring, c.err
	case <-ctx.Done():
		return s.held.Load(), fmt.Errorf("wait for JWKS fetch: %w", ctx.Err())
	}
}

// fetch performs the fetch of c, detached from any one caller's
// cancellation, and publishes its outcome.
func (s *keySet) fetch(ctx context.Context, c *fetchCall) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	doc, err := fetchJWKS(ctx, s.client, s.url)

	s.mu.Lock()
	old := s.held.Load()
	s.fetched, s.lastErr, s.inflight = s.now(), err, nil
	if err == nil {
		s.held.Store(&keyring{keys: doc.keys})
		s.lastOK, s.maxAge, s.hasMaxAge, s.failures = s.fetched, doc.maxAge, doc.hasMaxAge, 0
		s.fetchOK++
	} else {
		s.failures++
		s.fetchBad++
	}
	c.ring, c.err = s.held.Load(), err
	s.logOutcome(ctx, old, c.ring, err)
	s.mu.Unlock()
	close(c.done)
	select {
	case s.fetchedOne <- struct{}{}:
	default: // run has a wake-up pending already
	}
	if err == nil {
		s.checkIssuer(ctx)
	}
}

// checkIssuer reads the provider's discovery document, after the keys are
// published so that no verification waits for it, and records whether it
// names another issuer than the configured one. A document that cannot be
// read changes nothing.
func (s *keySet) checkIssuer(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, discoveryTimeout)
	defer cancel()
	got := discoveredIssuer(ctx, s.client, s.issuer)
	if got == "" {
		return
	}
	named := ""
	if got != s.issuer {
		named = got
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if named != "" && named != s.named {
		s.logger.ErrorContext(ctx, "the identity provider names another issuer than OIDC_ISSUER_URL: every token will be refused, and /readyz says so",
			"configured", s.issuer, "provider", named)
	}
	s.named = named
}

// discoveryTimeout bounds the read of the discovery document.
const discoveryTimeout = 2 * time.Second

// logOutcome writes one line when what the verifier knows of the provider
// changes (and when keys come or go), and debug lines otherwise. Called
// with s.mu held.
func (s *keySet) logOutcome(ctx context.Context, old, ring *keyring, err error) {
	next := stateFresh
	switch {
	case err != nil && ring == nil:
		next = stateUnavailable
	case err != nil:
		next = stateStale
	}
	prev := s.state
	s.state = next
	log := s.logger.With("url", s.url)
	switch {
	case next == prev && err != nil:
		log.DebugContext(ctx, "fetching the JWKS failed again", "cause", causeOf(err), "err", err)
	case next == stateUnavailable:
		log.WarnContext(ctx, "the identity provider's signing keys cannot be fetched; tokens cannot be verified",
			"cause", causeOf(err), "err", err)
	case next == stateStale:
		log.WarnContext(ctx, "the identity provider cannot be reached; tokens are verified with the signing keys held",
			"keys", len(ring.keys), "cause", causeOf(err), "err", err)
	case prev == stateStale:
		log.InfoContext(ctx, "the identity provider answers again", "keys", len(ring.keys))
	case prev != stateFresh:
		log.InfoContext(ctx, "fetched the identity provider's signing keys", "keys", len(ring.keys))
	default:
		log.DebugContext(ctx, "refreshed the JWKS", "keys", len(ring.keys))
	}
	if err == nil && old != nil {
		added, removed := diff(old, ring), diff(ring, old)
		if len(added)+len(removed) > 0 {
			log.InfoContext(ctx, "the identity provider's signing keys changed", "added", added, "removed", removed)
		}
	}
}

// diff returns the key ids of b's keys that a does not hold (a key
// replaced under the same kid is one of them).
func diff(a, b *keyring) []string {
	var out []string
	for _, k := range b.keys {
		if !a.holds(k.id, k.thumb) {
			out = append(out, k.id)
		}
	}
	return out
}

// run refreshes the key set on schedule until ctx is done: at once, then
// every interval (or the provider's shorter max-age, never more often than
// the cooldown); after a failure, sooner, backing off from the cooldown.
// The schedule counts from the last fetch, whoever asked for it.
func (s *keySet) run(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_, _ = s.refresh(ctx)
		case <-s.fetchedOne:
		}
		t.Reset(s.untilNext())
	}
}

// untilNext returns the wait until the next scheduled fetch.
func (s *keySet) untilNext() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	delay := s.interval
	switch {
	case s.lastErr != nil:
		delay = min(s.interval, s.cooldown<<min(s.failures-1, 16))
	case s.hasMaxAge && s.maxAge < delay:
		delay = s.maxAge
	}
	delay = max(delay, s.cooldown)
	return max(s.fetched.Add(delay).Sub(s.now()), time.Millisecond)
}

// status reports whether tokens can be verified: nil with fresh keys, a
// stale *KeysError while the keys held outlive a failed fetch, and a
// *KeysError when no key set was ever fetched (it tries once more, within
// the cooldown).
func (s *keySet) status(ctx context.Context) error {
	if s.held.Load() == nil {
		if _, err := s.refresh(ctx); s.held.Load() == nil {
			if err == nil {
				err = errors.New("no JWKS fetched yet")
			}
			return &KeysError{Cause: causeOf(err), Err: err}
		}
	}
	s.mu.Lock()
	err, named := s.lastErr, s.named
	s.mu.Unlock()
	if named != "" {
		return &KeysError{Cause: CauseIssuerMismatch, Err: fmt.Errorf(
			"the identity provider's discovery document names the issuer %q, not OIDC_ISSUER_URL %q: its tokens are refused", named, s.issuer)}
	}
	if err != nil {
		return &KeysError{Cause: causeOf(err), Stale: true, Err: err}
	}
	return nil
}

// KeysError says why a Verifier's signing keys are missing or could not be
// confirmed. Its Cause is a short code (CauseUnreachable, ...) safe to show
// in a probe body; the error text, which may name internal addresses, is
// for logs.
type KeysError struct {
	Cause string
	// Stale is true while keys fetched earlier are held: tokens are still
	// verified, so the program is degraded, not down.
	Stale bool
	Err   error
}

func (e *KeysError) Error() string {
	if e.Stale {
		return "identity provider keys are stale: " + e.Err.Error()
	}
	return "identity provider keys unavailable: " + e.Err.Error()
}

func (e *KeysError) Unwrap() error { return e.Err }

// ProbeCause returns the cause code readiness probes show.
func (e *KeysError) ProbeCause() string { return e.Cause }

// Degraded reports whether the program still works, on the keys held.
func (e *KeysError) Degraded() bool { return e.Stale }
