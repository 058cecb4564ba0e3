package searchload

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// Modes are the search modes measured, in order.
var Modes = []string{"keyword", "semantic", "hybrid"}

// Result is one catalog and mode under load.
type Result struct {
	Catalog string  `json:"catalog"`
	Mode    string  `json:"mode"`
	Clients int     `json:"clients"`
	Seconds float64 `json:"seconds"`
	// Requests counts the answers within the measured time; Errors those
	// that were no 200 (or no answer at all), with one example.
	Requests int     `json:"requests"`
	Errors   int     `json:"errors"`
	Example  string  `json:"error_example,omitempty"`
	Rate     float64 `json:"req_per_s"`
	P50      float64 `json:"p50_ms"`
	P99      float64 `json:"p99_ms"`
	Max      float64 `json:"max_ms"`
	// Slowest are the queries of the highest median latency, slowest
	// first, to tell which ones a tail comes from.
	Slowest []QueryLatency `json:"slowest,omitempty"`
}

// QueryLatency is the median latency of one query of a measurement.
type QueryLatency struct {
	Query string  `json:"query"`
	P50   float64 `json:"p50_ms"`
}

// slowestShown is how many queries Result.Slowest names.
const slowestShown = 5

// load is one closed-loop measurement: clients send searches back to back,
// each cycling through queries from its own starting point, for warmup
// (not counted) and then duration.
type load struct {
	hc        *http.Client
	searchURL string // {search_base_url}/api/v1/search
	tokens    oauth2.TokenSource
	queries   []string
	clients   int
	warmup    time.Duration
	duration  time.Duration
}

// run measures mode.
func (l load) run(ctx context.Context, catalog, mode string) (Result, error) {
	tok, err := l.tokens.Token()
	if err != nil {
		return Result{}, fmt.Errorf("get a token: %w", err)
	}
	start := time.Now()
	measureFrom, end := start.Add(l.warmup), start.Add(l.warmup+l.duration)
	type clientResult struct {
		latencies []time.Duration
		byQuery   map[string][]time.Duration
		errors    int
		example   string
	}
	results := make([]clientResult, l.clients)
	var wg sync.WaitGroup
	for c := range l.clients {
		wg.Go(func() {
			r := &results[c]
			r.byQuery = map[string][]time.Duration{}
			for i := c * len(l.queries) / l.clients; ; i++ {
				sent := time.Now()
				if sent.After(end) || ctx.Err() != nil {
					return
				}
				text := l.queries[i%len(l.queries)]
				q := url.Values{"q": {text}, "mode": {mode}, "per_page": {"10"}}
				status, err := l.search(ctx, q.Encode(), tok.AccessToken)
				took := time.Since(sent)
				if sent.Before(measureFrom) {
					continue
				}
				r.latencies = append(r.latencies, took)
				r.byQuery[text] = append(r.byQuery[text], took)
				if err != nil || status != http.StatusOK {
					r.errors++
					if r.example == "" {
						r.example = fmt.Sprintf("status %d %v", status, err)
					}
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	res := Result{Catalog: catalog, Mode: mode, Clients: l.clients, Seconds: l.duration.Seconds()}
	var all []time.Duration
	byQuery := map[string][]time.Duration{}
	for _, r := range results {
		all = append(all, r.latencies...)
		for q, d := range r.byQuery {
			byQuery[q] = append(byQuery[q], d...)
		}
		res.Errors += r.errors
		if res.Example == "" {
			res.Example = r.example
		}
	}
	res.Requests = len(all)
	if len(all) == 0 {
		return res, fmt.Errorf("%s %s: no search answered within %v", catalog, mode, l.duration)
	}
	slices.Sort(all)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	res.Rate = float64(len(all)) / l.duration.Seconds()
	res.P50, res.P99, res.Max = ms(all[len(all)*50/100]), ms(all[min(len(all)-1, len(all)*99/100)]), ms(all[len(all)-1])
	for q, d := range byQuery {
		slices.Sort(d)
		res.Slowest = append(res.Slowest, QueryLatency{Query: q, P50: ms(d[len(d)/2])})
	}
	slices.SortFunc(res.Slowest, func(a, b QueryLatency) int {
		return cmp.Or(cmp.Compare(b.P50, a.P50), strings.Compare(a.Query, b.Query))
	})
	res.Slowest = res.Slowest[:min(len(res.Slowest), slowestShown)]
	return res, nil
}

// search sends one search and reads its answer whole.
func (l load) search(ctx context.Context, query, token string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.searchURL+"?"+query, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := l.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}
