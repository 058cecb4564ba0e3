package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/municipal-apis/platform/gateway/internal/ratelimit"
	platform "github.com/municipal-apis/platform/pkg/stack"
)

// Accuracy is how closely two gateways sharing one Redis hold a client to
// its limit: Sent requests of one client within one window, spread evenly
// over both, of which Admitted passed.
type Accuracy struct {
	Rate     string
	Limit    int64
	Lease    int64
	Sent     int64
	Admitted int64
	Refused  int64 // 429s; Sent - Admitted - Refused answered otherwise
	Elapsed  time.Duration
}

// MeasureAccuracy sends, for each rate, 20% more requests than its limit
// (at least 20 more) through two gateways that share one Redis and key
// prefix, as fast as workers connections go, and counts what passed.
func MeasureAccuracy(ctx context.Context, redisURL string, rates []ratelimit.Rate, workers int) ([]Accuracy, error) {
	s := &stack{}
	var err error
	if s.upstream, err = s.serve(http.HandlerFunc(trivial)); err != nil {
		return nil, err
	}
	defer func() { _ = s.close() }()
	idp, err := platform.Start(ctx, platform.Options{Programs: []string{platform.IdP}, LogLevel: "warn"})
	if err != nil {
		return nil, err
	}
	s.stops = append(s.stops, func() error { return errors.Join(idp.Close(), platform.RemoveBinaries()) })
	if s.token, err = idp.Token(ctx, benchClient); err != nil {
		return nil, err
	}
	var out []Accuracy
	for _, r := range rates {
		env := map[string]string{
			"RATE_LIMIT_KEY_PREFIX": fmt.Sprintf("accuracy-%d", time.Now().UnixNano()),
			"RATE_LIMIT_PER_CLIENT": r.String(),
		}
		var gws [2]string
		for i := range gws {
			if gws[i], err = s.startGatewayWith(ctx, idp.Issuer, redisURL, env); err != nil {
				return nil, err
			}
		}
		a, err := s.flood(ctx, gws, r, workers)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// flood sends one rate's requests through both gateways.
func (s *stack) flood(ctx context.Context, gws [2]string, r ratelimit.Rate, workers int) (Accuracy, error) {
	a := Accuracy{Rate: r.String(), Limit: r.Limit, Lease: ratelimit.LeaseSize(r.Limit)}
	total := max(r.Limit*6/5, r.Limit+20)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	var sent, admitted, refused atomic.Int64
	var failure error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			for n := sent.Add(1); n <= total && ctx.Err() == nil; n = sent.Add(1) {
				status, err := send(ctx, client, gws[w%2]+"/go/v1"+path, s.token)
				switch {
				case err != nil:
					once.Do(func() { failure = err })
					return
				case status == http.StatusOK:
					admitted.Add(1)
				case status == http.StatusTooManyRequests:
					refused.Add(1)
				}
			}
		})
	}
	wg.Wait()
	a.Elapsed = time.Since(start)
	a.Sent, a.Admitted, a.Refused = min(sent.Load(), total), admitted.Load(), refused.Load()
	if failure != nil {
		return a, failure
	}
	if a.Elapsed >= r.Period {
		return a, fmt.Errorf("%s: %d requests took %v, longer than the window", r, total, a.Elapsed.Round(time.Second))
	}
	return a, nil
}

func send(ctx context.Context, client *http.Client, url, token string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Body.Close()
}

// WriteAccuracy writes the table of as in Markdown.
func WriteAccuracy(w io.Writer, as []Accuracy) error {
	var err error
	p := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	p("| client limit | lease | sent (one window) | admitted | refused (429) | admitted − limit | time |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, a := range as {
		p("| %s | %d | %d | %d | %d | %+d (%+.2f%%) | %v |\n", a.Rate, a.Lease, a.Sent, a.Admitted, a.Refused,
			a.Admitted-a.Limit, 100*float64(a.Admitted-a.Limit)/float64(a.Limit), a.Elapsed.Round(100*time.Millisecond))
	}
	return err
}
