package searchload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/municipal-apis/platform/pkg/stack"
)

// Options describe a run.
type Options struct {
	// Root is the repository root; Binaries, when set, holds the programs
	// built already (else the stack builds them from the working tree).
	Root, Binaries string
	// Catalogs and Modes to measure; default all.
	Catalogs, Modes []string
	// Size is the number of published Servicos of each catalog.
	Size int
	// Clients send searches back to back; each mode is measured for
	// Duration after Warmup.
	Clients          int
	Warmup, Duration time.Duration
	// Database, when set, is the search-admin database URL of a single
	// catalog's stack: created and kept afterwards, to study its plans.
	Database string
	// Log receives progress; nil discards it.
	Log io.Writer
}

// Defaults of Options.
const (
	DefaultSize     = 10000
	DefaultClients  = 8
	DefaultWarmup   = 3 * time.Second
	DefaultDuration = 10 * time.Second
)

func (o Options) withDefaults() Options {
	if len(o.Catalogs) == 0 {
		o.Catalogs = Catalogs
	}
	if len(o.Modes) == 0 {
		o.Modes = Modes
	}
	if o.Size <= 0 {
		o.Size = DefaultSize
	}
	if o.Clients <= 0 {
		o.Clients = DefaultClients
	}
	if o.Warmup < 0 {
		o.Warmup = DefaultWarmup
	}
	if o.Duration <= 0 {
		o.Duration = DefaultDuration
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Root == "" {
		o.Root = "."
	}
	return o
}

// Run measures every catalog of o, each on a stack of its own (devidp,
// search-admin, jobs and the gateway as processes on loopback, fresh
// databases): it seeds the catalog, indexes it by a re-index through the
// gateway, and sends each mode's searches through the gateway with a token
// of the realm's reader client, by client credentials.
func Run(ctx context.Context, o Options) ([]Result, error) {
	o = o.withDefaults()
	if o.Database != "" && len(o.Catalogs) != 1 {
		return nil, errors.New("a kept database holds one catalog: measure one")
	}
	var out []Result
	for _, name := range o.Catalogs {
		c, err := Build(name, o.Root, o.Size)
		if err != nil {
			return out, err
		}
		res, err := runCatalog(ctx, o, c)
		out = append(out, res...)
		if err != nil {
			return out, fmt.Errorf("%s catalog: %w", name, err)
		}
	}
	return out, nil
}

func runCatalog(ctx context.Context, o Options, c Catalog) (out []Result, err error) {
	fmt.Fprintf(o.Log, "searchload: %s catalog, %d servicos: starting a stack\n", c.Name, len(c.Servicos))
	so := stack.Options{Binaries: o.Binaries}
	if o.Database != "" {
		so.DatabaseURLs = map[string]string{stack.SearchAdmin: o.Database}
	}
	s, err := stack.Start(ctx, so)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, s.Close()) }()
	hc := &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConnsPerHost: 2 * o.Clients,
		},
	}
	admin, err := s.Token(ctx, stack.CatalogAdmin)
	if err != nil {
		return nil, err
	}
	started := time.Now()
	if err := seedServicos(ctx, s.SearchDatabaseURL, c); err != nil {
		return nil, err
	}
	if err := reindex(ctx, hc, s.SearchBaseURL(), admin); err != nil {
		return nil, err
	}
	if err := settle(ctx, s.SearchDatabaseURL); err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Log, "searchload: %s catalog seeded and indexed in %v\n", c.Name, time.Since(started).Round(time.Millisecond))
	tokens, err := readerTokens(ctx, s, hc)
	if err != nil {
		return nil, err
	}
	l := load{hc: hc, searchURL: s.SearchBaseURL() + "/api/v1/search", tokens: tokens, queries: c.Queries,
		clients: o.Clients, warmup: o.Warmup, duration: o.Duration}
	for _, mode := range o.Modes {
		r, err := l.run(ctx, c.Name, mode)
		if err != nil {
			return out, err
		}
		fmt.Fprintf(o.Log, "searchload: %s %s: %.0f req/s, p50 %.2f ms, p99 %.2f ms, %d errors; slowest queries by p50:", c.Name, mode, r.Rate, r.P50, r.P99, r.Errors)
		for _, q := range r.Slowest {
			fmt.Fprintf(o.Log, " %q %.2f ms;", q.Query, q.P50)
		}
		fmt.Fprintln(o.Log)
		out = append(out, r)
	}
	return out, nil
}

// readerTokens is a cached client-credentials token source of the reader
// client (scope search:read), having fetched a first token.
func readerTokens(ctx context.Context, s *stack.Stack, hc *http.Client) (oauth2.TokenSource, error) {
	secret, err := stack.Secret(stack.Reader)
	if err != nil {
		return nil, err
	}
	conf := clientcredentials.Config{ClientID: stack.Reader, ClientSecret: secret, TokenURL: s.TokenURL(), AuthStyle: oauth2.AuthStyleInParams}
	ts := conf.TokenSource(context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, hc))
	if _, err := ts.Token(); err != nil {
		return nil, fmt.Errorf("get a token for %s: %w", stack.Reader, err)
	}
	return ts, nil
}
