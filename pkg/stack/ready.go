package stack

import (
	"context"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"strings"
	"time"
)

// readyPoll is the pause between two readiness probes.
const readyPoll = 50 * time.Millisecond

// waitReady polls p.ready until it answers 200 and, when the program logs
// at INFO (p.logsInfo), its log since from says it listens on the address
// polled; or until the program exits or ctx ends. A 200 alone could come
// from another process that took the port between its choice and the
// program's bind, while the program itself exits for "address already in
// use" (CI saw a stack up whose search-admin had exited so, a moment
// after).
func waitReady(ctx context.Context, p *process, from int64) error {
	url := p.ready
	u, err := neturl.Parse(url)
	if err != nil {
		return fmt.Errorf("%s: probe address %q: %w", p.name, url, err)
	}
	hc := &http.Client{Timeout: 2 * time.Second}
	var last string
	for {
		if gone, err := p.exited(); gone {
			return fmt.Errorf("%s exited before it was ready (%v)", p.name, err)
		}
		status, err := probe(ctx, hc, url)
		if err == nil && status == http.StatusOK {
			if !p.logsInfo || listensOn(p.log.since(from), u.Host) {
				return nil
			}
			err = fmt.Errorf("answered, but %s has not said it listens on %s", p.name, u.Host)
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

// listensOn reports whether log holds the line a program writes once it
// listens on addr (server.Listeners: msg "listening", addr), in text or
// JSON.
func listensOn(log, addr string) bool {
	for line := range strings.Lines(log) {
		if strings.Contains(line, "listening") && (strings.Contains(line, "addr="+addr) || strings.Contains(line, `"addr":"`+addr+`"`)) {
			return true
		}
	}
	return false
}
