package idempotency

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/problem"
)

// claimAttempts bounds the claim, find-expired, delete, claim-again loop
// when other requests race for the same key.
const claimAttempts = 3

// storeTimeout bounds the writes that end a claim; they run even when the
// client has gone, so a retry finds the response.
const storeTimeout = 5 * time.Second

// errNoClaims is a wiring mistake: the middleware needs the caller's client id.
var errNoClaims = errors.New("idempotency middleware mounted before authentication")

// busy is the 409 answer while the first request with the key still runs.
func busy() error {
	return problem.Errorf(problem.ECONFLICT, "a request with this %s is still being processed; retry later", Header).
		WithHeader("Retry-After", "1")
}

// reused is the 422 answer to a key sent before with a different request.
func reused() error {
	return &problem.Error{Code: problem.EINVALID, Detail: "this " + Header + " was already used for a different request",
		Fields: []problem.FieldError{{Field: Header, Code: "reused",
			Message: "was sent before with another method, path or body; use a new key for a new request"}}}
}

// Middleware makes the POST or PATCH routes it guards safe to retry: mount it
// after auth.Middleware and the scope check. A request without Idempotency-Key
// passes through untouched; with one, the first request runs and its answer
// (below 500) is stored for its client, and a repeat gets that answer again.
func (k *Keys) Middleware() gin.HandlerFunc {
	return func(c *gin.Context) {
		if isSafe(c.Request.Method) {
			c.Next()
			return
		}
		key, present, err := keyOf(c.Request.Header)
		if !present {
			c.Next()
			return
		}
		if err == nil {
			err = k.serve(c, key)
		}
		if err != nil {
			problem.Abort(c, err)
		}
	}
}

// serve answers a request that carries key: runs it once, or answers from
// the stored record.
func (k *Keys) serve(c *gin.Context, key string) error {
	claims, ok := auth.ClaimsFrom(c.Request.Context())
	if !ok {
		return problem.Wrap(problem.EINTERNAL, errNoClaims, "")
	}
	body, err := problem.ReadBody(c.Request)
	if err != nil {
		return err
	}
	i := id{client: claims.ClientID, key: key, fingerprint: fingerprint(c.Request, c.FullPath(), body)}
	rec, claimed, err := k.acquire(c.Request.Context(), &i)
	switch {
	case err != nil:
		return err
	case claimed:
		k.run(c, i)
		return nil
	case !rec.matches(i):
		return reused()
	case rec.State != stateDone:
		return busy()
	}
	replay(c, rec)
	return nil
}

// acquire claims i, or returns the live record that holds its key. An expired
// record is deleted and the claim tried again.
func (k *Keys) acquire(ctx context.Context, i *id) (record, bool, error) {
	for range claimAttempts {
		claimed, err := k.store.claim(ctx, i, k.cfg.LockTimeout)
		if err != nil || claimed {
			return record{}, claimed, pg.MapError(err, nil)
		}
		rec, found, err := k.store.lookup(ctx, *i)
		switch {
		case err != nil:
			return record{}, false, pg.MapError(err, nil)
		case found && !rec.Expired:
			return rec, false, nil
		case found:
			if err := k.store.deleteExpired(ctx, *i); err != nil {
				return record{}, false, pg.MapError(err, nil)
			}
		}
	}
	return record{}, false, busy()
}

// run serves the claimed request and stores its answer, or releases the
// claim when the handler failed (5xx) or panicked, so a retry runs again.
func (k *Keys) run(c *gin.Context, i id) {
	rec := &recorder{ResponseWriter: c.Writer}
	c.Writer = rec
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request.Context()), storeTimeout)
	defer cancel()
	stored := false
	defer func() {
		c.Writer = rec.ResponseWriter
		if !stored {
			if err := k.store.release(ctx, i); err != nil {
				k.log.ErrorContext(ctx, "idempotency key not released", "client_id", i.client, "err", err)
			}
		}
	}()
	c.Next()
	res := rec.response()
	if res.status >= http.StatusInternalServerError {
		return
	}
	if err := k.store.complete(ctx, i, res, k.cfg.TTL); err != nil {
		k.log.ErrorContext(ctx, "idempotent response not stored", "client_id", i.client, "err", err)
	}
	stored = true
}

// replay writes a stored answer, marked as a replay, and ends the chain.
func replay(c *gin.Context, rec record) {
	h := c.Writer.Header()
	for name, value := range rec.headers() {
		h.Set(name, value)
	}
	h.Set(ReplayedHeader, "true")
	c.Writer.WriteHeader(rec.Status)
	_, _ = c.Writer.Write(rec.Body)
	c.Abort()
}

// isSafe reports methods that change nothing, which need no key.
func isSafe(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}
