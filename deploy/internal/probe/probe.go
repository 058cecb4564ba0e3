// Package probe checks that an HTTP endpoint answers with a 2xx status. It is
// the health check of images that have no shell or curl.
package probe

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// maxDrain bounds how much of a response body is read before the connection is closed.
const maxDrain = 64 << 10

// Check sends GET rawURL with client and returns nil when the answer is 2xx.
func Check(ctx context.Context, client *http.Client, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("parse url: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("url %q must be an absolute http(s) URL", rawURL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("get %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("get %s: status %d", u.Redacted(), resp.StatusCode)
	}
	return nil
}
