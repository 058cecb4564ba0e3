package embedding

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
)

// StatusError is a non-2xx answer of an embedding API.
type StatusError struct {
	Provider string
	Status   int
}

// Error implements error.
func (e *StatusError) Error() string {
	return fmt.Sprintf("%s embeddings answered HTTP %d", e.Provider, e.Status)
}

// retryable reports whether another attempt may succeed: timeouts, network
// errors, 429 and 5xx answers. Other 4xx answers (a bad key or model) will not.
func retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status == 429 || se.Status >= 500
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded)
}

// retrying wraps a Provider with a per-attempt timeout and bounded retries.
type retrying struct {
	next    Provider
	timeout time.Duration
	retries int
	delay   time.Duration
}

// WithRetry bounds each attempt of p by timeout and retries retryable
// failures up to retries times, doubling delay between attempts.
func WithRetry(p Provider, timeout time.Duration, retries int, delay time.Duration) Provider {
	return &retrying{next: p, timeout: timeout, retries: retries, delay: delay}
}

// Model implements Provider.
func (r *retrying) Model() string { return r.next.Model() }

// Embed implements Provider.
func (r *retrying) Embed(ctx context.Context, text string, dims int) ([]float32, error) {
	wait := r.delay
	for attempt := 0; ; attempt++ {
		v, err := r.attempt(ctx, text, dims)
		if err == nil || attempt >= r.retries || !retryable(err) || ctx.Err() != nil {
			return v, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (after %v)", ctx.Err(), err)
		case <-time.After(wait):
		}
		wait *= 2
	}
}

func (r *retrying) attempt(ctx context.Context, text string, dims int) ([]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	return r.next.Embed(ctx, text, dims)
}
