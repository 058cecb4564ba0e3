package stack

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// readyPoll is the pause between two readiness probes.
const readyPoll = 50 * time.Millisecond

// waitReady polls url until it answers 200, the program exits or ctx ends.
func waitReady(ctx context.Context, p *process, url string) error {
	hc := &http.Client{Timeout: 2 * time.Second}
	var last string
	for {
		if gone, err := p.exited(); gone {
			return fmt.Errorf("%s exited before it was ready (%v)", p.name, err)
		}
		status, err := probe(ctx, hc, url)
		if err == nil && status == http.StatusOK {
			return nil
		}
		last = fmt.Sprintf("status %d, %v", status, err)
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s was not ready at %s: %w (last probe: %s)", p.name, url, ctx.Err(), last)
		case <-time.After(readyPoll):
		}
	}
}

// probe GETs url once and returns its status.
func probe(ctx context.Context, hc *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}
