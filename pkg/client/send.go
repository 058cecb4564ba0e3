package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/municipal-apis/platform/pkg/requestid"
)

// send makes the attempts of r until one succeeds, one fails in a way that
// retrying cannot fix, or the retry policy or ctx says stop. On success it
// returns the body; on failure the last *Error or transport error.
func (c *Client) send(ctx context.Context, r *request) (*Response, []byte, error) {
	renewed := false
	for attempt := 1; ; attempt++ {
		resp, body, tok, err := c.attempt(ctx, r)
		if resp != nil {
			resp.Attempts = attempt
		}
		if err == nil {
			return resp, body, nil
		}
		var apiErr *Error
		if errors.As(err, &apiErr) {
			apiErr.Attempts = attempt
		}
		if statusOf(resp) == http.StatusUnauthorized {
			c.tokens.invalidate(tok)
		}
		d, ok := c.nextDelay(ctx, r, attempt, resp, err, renewed)
		if !ok {
			return resp, nil, err
		}
		renewed = renewed || statusOf(resp) == http.StatusUnauthorized
		if c.cfg.OnRetry != nil {
			c.cfg.OnRetry(Retry{Method: r.method, URL: r.url, Attempt: attempt, Status: statusOf(resp), Err: err, Delay: d})
		}
		if serr := c.cfg.Sleep(ctx, d); serr != nil {
			return resp, nil, fmt.Errorf("%s %s: gave up waiting to retry: %w", r.method, r.path, errors.Join(err, serr))
		}
	}
}

// nextDelay returns the wait before retrying r after its attempt-th attempt
// failed with resp and err, or false when r must not be retried: it is not
// safe to repeat, the failure is not transient, attempts are used up, or the
// wait would outlast ctx or Retry.MaxWait. A 401 is retried at once, with a
// fresh token, unless a token was renewed for r already.
func (c *Client) nextDelay(ctx context.Context, r *request, attempt int, resp *Response, err error, renewed bool) (time.Duration, bool) {
	if attempt >= c.cfg.Retry.MaxAttempts || !r.retryable() || ctx.Err() != nil {
		return 0, false
	}
	status := statusOf(resp)
	if status == http.StatusUnauthorized {
		return 0, !renewed
	}
	if !transient(r, resp, err) {
		return 0, false
	}
	now := c.cfg.Now()
	d, ok := c.cfg.Retry.delay(attempt, status, resp.header(), now, c.cfg.Jitter)
	if !ok {
		return 0, false
	}
	if deadline, has := ctx.Deadline(); has && now.Add(d).After(deadline) {
		return 0, false
	}
	return d, true
}

// attempt sends r once with the cached token, which it returns. An answer
// of 400 or above comes back as *Error with its Response; a failure to
// reach the server as a wrapped error and no Response.
func (c *Client) attempt(ctx context.Context, r *request) (*Response, []byte, *oauth2.Token, error) {
	tok, err := c.tokens.token(ctx)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	resp, body, err := c.exchange(ctx, r, tok)
	return resp, body, tok, err
}

// exchange sends r with tok and reads the answer.
func (c *Client) exchange(ctx context.Context, r *request, tok *oauth2.Token) (*Response, []byte, error) {
	hreq, err := c.httpRequest(ctx, r)
	if err != nil {
		return nil, nil, err
	}
	tok.SetAuthHeader(hreq)
	hresp, err := c.cfg.HTTPClient.Do(hreq)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	defer hresp.Body.Close()
	body, readErr := io.ReadAll(io.LimitReader(hresp.Body, c.cfg.MaxResponseBytes+1))
	resp := c.newResponse(hresp, r)
	if hresp.StatusCode >= http.StatusBadRequest {
		return resp, nil, newError(r.method, r.path, resp, body)
	}
	if readErr != nil {
		return resp, nil, fmt.Errorf("%s %s: read the answer: %w", r.method, r.path, readErr)
	}
	if int64(len(body)) > c.cfg.MaxResponseBytes {
		return resp, nil, fmt.Errorf("%s %s: the answer exceeds %d bytes", r.method, r.path, c.cfg.MaxResponseBytes)
	}
	return resp, body, nil
}

// httpRequest builds the *http.Request of one attempt of r.
func (c *Client) httpRequest(ctx context.Context, r *request) (*http.Request, error) {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	hreq, err := http.NewRequestWithContext(ctx, r.method, r.url, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	hreq.Header = r.header.Clone()
	hreq.Header.Set("Accept", "application/json, application/problem+json")
	hreq.Header.Set("User-Agent", c.cfg.UserAgent)
	if r.body != nil {
		hreq.Header.Set("Content-Type", "application/json")
	}
	return hreq, nil
}

func (c *Client) newResponse(hresp *http.Response, r *request) *Response {
	return &Response{
		StatusCode:     hresp.StatusCode,
		Header:         hresp.Header,
		RateLimit:      parseRateLimit(hresp.Header, c.cfg.Now()),
		RequestID:      hresp.Header.Get(requestid.Header),
		IdempotencyKey: r.header.Get(IdempotencyKeyHeader),
		Replayed:       strings.EqualFold(hresp.Header.Get(ReplayedHeader), "true"),
	}
}

// transient reports whether a failure of r may pass: a 429, a 503, a 409
// with Retry-After to a request with an Idempotency-Key (the first request
// with that key is still running), a failure to reach the API, or a failure
// to reach the identity provider (not its refusal of the client, nor an
// answer that is no token: see tokenError).
func transient(r *request, resp *Response, err error) bool {
	switch status := statusOf(resp); {
	case status == http.StatusTooManyRequests, status == http.StatusServiceUnavailable:
		return true
	case status == http.StatusConflict:
		return r.header.Get(IdempotencyKeyHeader) != "" && resp.Header.Get("Retry-After") != ""
	case status == 0:
		var redirect *RedirectError
		var tokErr *tokenError
		switch {
		case errors.As(err, &redirect):
			return false
		case errors.As(err, &tokErr):
			return tokErr.transient()
		}
		return true
	}
	return false
}

func statusOf(resp *Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}

// header returns the answer's header, nil when there was no answer.
func (resp *Response) header() http.Header {
	if resp == nil {
		return nil
	}
	return resp.Header
}
