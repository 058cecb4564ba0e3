package load

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/municipal-apis/platform/pkg/client"
	vegeta "github.com/tsenart/vegeta/v12/lib"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// Report is what a run measured and what it wrote.
type Report struct {
	// Marker is in the name of every row the run wrote.
	Marker string `json:"marker"`
	// Mix, Rate and Duration are what was asked.
	Mix      string  `json:"mix"`
	Rate     int     `json:"rate"`
	Duration float64 `json:"duration_s"`
	// Overall and Operations are what was measured; Errors lists the
	// failed requests (no answer, 4xx, 5xx) by status.
	Overall    Stats          `json:"overall"`
	Operations []Stats        `json:"operations"`
	Errors     []StatusErrors `json:"errors"`
	// Seeded counts the rows created before the load (in Created too).
	Seeded int `json:"seeded"`
	// Unmatched explains each 201 that did not describe a row the run sent.
	Unmatched []string `json:"unmatched_201s"`
	// Created lists every row the run saw created; Updates the names sent
	// by PUT to each row, by UpdateKey.
	Created []Created           `json:"-"`
	Updates map[string][]string `json:"-"`
}

// Run checks where cfg points (CheckTargets), gets a token per area,
// creates the rows updates need, then sends the mix at cfg.Rate for
// cfg.Duration, or until ctx ends, and reports.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := CheckTargets(cfg.target()); err != nil {
		return nil, err
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	hc := httpClient(cfg)
	tokens, err := tokenSources(ctx, cfg, hc)
	if err != nil {
		return nil, err
	}
	g := newGenerator(cfg.Marker, cfg.Mix, map[Area]string{SearchArea: strings.TrimSuffix(cfg.SearchURL, "/"), JobsArea: strings.TrimSuffix(cfg.JobsURL, "/")}, tokens)
	seeded, err := g.seed(ctx, hc)
	if err != nil {
		return nil, err
	}
	c := attack(ctx, cfg, hc, g)
	rep := &Report{Marker: cfg.Marker, Mix: cfg.Mix.String(), Rate: cfg.Rate, Duration: cfg.Duration.Seconds(), Seeded: seeded}
	rep.Overall, rep.Operations, rep.Errors = c.stats()
	g.rec.mu.Lock()
	defer g.rec.mu.Unlock()
	rep.Created, rep.Updates, rep.Unmatched = g.rec.created, g.rec.updates, g.rec.unmatched
	return rep, nil
}

// attack sends the mix with vegeta and collects every result.
func attack(ctx context.Context, cfg Config, hc *http.Client, g *generator) *collector {
	attacker := vegeta.NewAttacker(vegeta.Client(hc), vegeta.Workers(uint64(min(10, cfg.MaxWorkers))),
		vegeta.MaxWorkers(uint64(cfg.MaxWorkers)), vegeta.MaxBody(maxBody))
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			attacker.Stop()
		case <-done:
		}
	}()
	c := newCollector()
	pacer := vegeta.ConstantPacer{Freq: cfg.Rate, Per: time.Second}
	for res := range attacker.Attack(g.target, pacer, cfg.Duration, "loadgen") {
		c.add(g.observe(res), res)
	}
	return c
}

// httpClient sends every request of the run: no proxy and no redirects, so
// requests go only to the hosts CheckTargets approved.
func httpClient(cfg Config) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{
		Timeout: cfg.Timeout,
		Transport: &http.Transport{
			DialContext:         dialer.DialContext,
			MaxIdleConnsPerHost: cfg.MaxWorkers,
			IdleConnTimeout:     90 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// tokenSources returns a cached client-credentials token source for each
// area the mix uses, having fetched a first token to fail early.
func tokenSources(ctx context.Context, cfg Config, hc *http.Client) (map[Area]oauth2.TokenSource, error) {
	tokens := map[Area]oauth2.TokenSource{}
	for area := range cfg.areas() {
		cred := cfg.credentials(area)
		conf := clientcredentials.Config{
			ClientID: cred.ID, ClientSecret: cred.Secret,
			TokenURL:  client.TokenURL(cfg.AuthURL, cfg.Realm),
			AuthStyle: oauth2.AuthStyleInParams, // as the API document sends them
		}
		ts := conf.TokenSource(context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, hc))
		if _, err := ts.Token(); err != nil {
			return nil, fmt.Errorf("get a token for %s: %w", cred.ID, err)
		}
		tokens[area] = ts
	}
	return tokens, nil
}
