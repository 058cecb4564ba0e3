package idempotency

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/problem"
)

// errNoClaims is a wiring mistake: the handler needs the caller's client id.
var errNoClaims = errors.New("idempotency handler mounted before authentication")

// errSettled ends a transaction that wrote nothing because the request was
// answered without running (a replay, a key in use or reused).
var errSettled = errors.New("answered without running the handler")

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

// handlerSavepoint marks where the handler's statements begin.
const handlerSavepoint = "idempotency_handler"

// handlerFailed rolls back the transaction of a handler that answered 5xx;
// it carries the handler's error, so that pg.Atomic runs the handler again
// when that error left nothing behind (a lost connection, a deadlock).
type handlerFailed struct{ err error }

func (e *handlerFailed) Error() string { return "the handler failed: " + e.err.Error() }
func (e *handlerFailed) Unwrap() error { return e.err }

// Wrap returns h made safe to retry with an Idempotency-Key. Mount it after
// auth.Middleware and the scope check. A request without the header runs h
// untouched; with one, h runs in one transaction of the Keys' database (see
// pg.Atomic: h must reach the database through pg.Tx and pg.Conn with the
// request's context) that also stores h's answer (below 500) for the
// caller's client, and the answer goes out once that transaction has
// committed. A repeat gets the stored answer. h may run more than once
// inside, when Postgres aborted its transaction without keeping anything;
// only the answer of the run that committed is sent.
func (k *Keys) Wrap(h gin.HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		if isSafe(c.Request.Method) {
			h(c)
			return
		}
		key, present, err := keyOf(c.Request.Header)
		if !present {
			h(c)
			return
		}
		if err == nil {
			err = k.serve(c, key, h)
		}
		if err != nil {
			problem.Abort(c, err)
		}
	}
}

// serve answers a request that carries key: runs it once, or answers from
// the stored record.
func (k *Keys) serve(c *gin.Context, key string, h gin.HandlerFunc) error {
	claims, ok := auth.ClaimsFrom(c.Request.Context())
	if !ok {
		return problem.Wrap(problem.EINTERNAL, errNoClaims, "")
	}
	body, err := problem.ReadBody(c.Request)
	if err != nil {
		return err
	}
	i := id{client: claims.ClientID, key: key, fingerprint: fingerprint(c.Request, c.FullPath(), body)}
	o, ok, err := k.answered(c.Request.Context(), i)
	if err != nil {
		return pg.MapError(err, nil)
	}
	if ok {
		return o.send(c)
	}
	o, err = k.attempt(c, i, body, h, false)
	if errors.Is(err, pg.ErrCommitUnknown) {
		// The connection broke during COMMIT: the stored key says whether
		// the transaction went through. Wait for it to end, then replay
		// its answer, or run the request again if nothing was kept.
		o, err = k.attempt(c, i, body, h, true)
	}
	if err != nil {
		return pg.MapError(err, nil)
	}
	return o.send(c)
}

// outcome is how a request with a key was answered.
type outcome struct {
	err    error     // a 409 or 422 about the key itself
	replay *record   // the stored answer of an earlier run
	fresh  *recorder // the answer of this run
	// resolved replays the answer of this very request, whose commit
	// looked lost, so it is not marked as a replay.
	resolved bool
}

// send writes the outcome and ends the handler chain.
func (o outcome) send(c *gin.Context) error {
	switch {
	case o.err != nil:
		return o.err
	case o.replay != nil:
		replay(c, *o.replay, !o.resolved)
	default:
		o.fresh.sendTo(c.Writer)
		c.Abort()
	}
	return nil
}

// answered returns the outcome of a key already answered, read without a
// transaction or a lock: a stored answer never changes until it expires.
// Anything else (no row, an expired one, a read that failed in a way a
// retry may fix, as a connection lost) is left to attempt. A read that
// failed otherwise is the request's error: a server that did not answer
// the lookup in time would keep attempt's transaction waiting as long
// again.
func (k *Keys) answered(ctx context.Context, i id) (outcome, bool, error) {
	rec, found, err := lookup(pg.Conn(ctx, k.db), i)
	switch {
	case err != nil && !pg.Retryable(err):
		return outcome{}, false, err
	case err != nil, !found, rec.Expired, rec.State != stateDone:
		return outcome{}, false, nil
	case !rec.matches(i):
		return outcome{err: reused()}, true, nil
	}
	return outcome{replay: &rec}, true, nil
}

// attempt runs the request of i in one transaction with its key: the key is
// locked (or waited for, when resolving a commit whose outcome is unknown),
// looked up, and either answered from the stored record or run with its
// answer stored. The transaction is retried as pg.Atomic says.
func (k *Keys) attempt(c *gin.Context, i id, body []byte, h gin.HandlerFunc, resolving bool) (outcome, error) {
	var o outcome
	runs := 0
	err := pg.Atomic(c.Request.Context(), k.db, func(ctx context.Context, tx *gorm.DB) error {
		o = outcome{}
		runs++
		// Run again, the transaction Postgres lost may still hold the key
		// from the session that is ending: wait for it, not answer busy.
		settled, err := k.settle(tx, i, &o, resolving || runs > 1, resolving)
		switch {
		case err != nil:
			return err
		case settled:
			return errSettled
		}
		if err := tx.SavePoint(handlerSavepoint).Error; err != nil {
			return err
		}
		o.fresh = run(ctx, c, body, h)
		res := o.fresh.response()
		if res.status >= http.StatusInternalServerError {
			return &handlerFailed{err: handlerError(c, res.status)}
		}
		err = insert(tx, i, res, k.cfg.TTL)
		if pg.IsCode(err, pg.InFailedTransaction) && res.status >= http.StatusBadRequest {
			// A statement of the handler failed outside a pg.Tx (a
			// savepoint) and took the transaction down with it; the
			// handler answered that failure, whose writes are void.
			if err := tx.RollbackTo(handlerSavepoint).Error; err != nil {
				return err
			}
			err = insert(tx, i, res, k.cfg.TTL)
		}
		return err
	})
	var failed *handlerFailed
	if err == nil || errors.Is(err, errSettled) || errors.As(err, &failed) {
		return o, nil
	}
	return o, err
}

// settle locks i's key, waiting for a transaction holding it to end when
// wait is set, and answers from what is stored: a replay (of this very
// request when resolving), a key in use (409) or one used for another
// request (422). It reports whether the request is answered; an expired
// record is deleted and the request runs.
func (k *Keys) settle(tx *gorm.DB, i id, o *outcome, wait, resolving bool) (bool, error) {
	if wait {
		if err := waitLock(tx, i); err != nil {
			return false, err
		}
	} else if locked, err := tryLock(tx, i); err != nil || !locked {
		if err == nil {
			o.err = busy()
		}
		return !locked, err
	}
	rec, found, err := lookup(tx, i)
	switch {
	case err != nil:
		return false, err
	case !found:
		return false, nil
	case rec.Expired:
		return false, deleteExpired(tx, i)
	case !rec.matches(i):
		o.err = reused()
	case rec.State != stateDone:
		o.err = busy()
	default:
		o.replay, o.resolved = &rec, resolving
	}
	return true, nil
}

// run runs h on the request as if it came fresh, under ctx (which carries
// the transaction) and with its answer held back in the recorder it returns.
func run(ctx context.Context, c *gin.Context, body []byte, h gin.HandlerFunc) *recorder {
	req, writer := c.Request, c.Writer
	rec := newRecorder(writer)
	defer func() { c.Request, c.Writer = req, writer }()
	c.Request = req.WithContext(ctx)
	c.Request.Body = io.NopCloser(bytes.NewReader(body))
	c.Writer = rec
	c.Errors = c.Errors[:0]
	h(c)
	return rec
}

// handlerError is the error a handler answered with status: the errors it
// recorded on c (problem.Abort records them), or the status alone.
func handlerError(c *gin.Context, status int) error {
	errs := []error{errors.New(http.StatusText(status))}
	for _, e := range c.Errors {
		errs = append(errs, e.Err)
	}
	return errors.Join(errs...)
}

// replay writes a stored answer, marked as a replay when it answers an
// earlier request, and ends the chain.
func replay(c *gin.Context, rec record, marked bool) {
	h := c.Writer.Header()
	for name, value := range rec.headers() {
		h.Set(name, value)
	}
	if marked {
		h.Set(ReplayedHeader, "true")
	}
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
