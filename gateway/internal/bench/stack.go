// Package bench measures the gateway's overhead on loopback: the same
// trivial upstream reached directly, through the gateway with token checks
// and Redis limits, through the gateway with limits off, and, as a control,
// through a bare httputil.ReverseProxy that does nothing else.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/gateway/internal/app"
	platform "github.com/municipal-apis/platform/pkg/stack"
)

// benchClient is the realm client whose token the load carries.
const benchClient = "jobs-admin"

// stack is every server of one benchmark run, all on loopback.
type stack struct {
	upstream string // base URL of the trivial upstream
	limited  string // gateway with Redis limits
	open     string // gateway with limits off
	bare     string // httputil.ReverseProxy alone: the floor of any proxy
	token    string
	stops    []func() error
}

// serve runs h on a fresh loopback listener until stop is called.
func (s *stack) serve(h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	s.stops = append(s.stops, srv.Close)
	return "http://" + ln.Addr().String(), nil
}

// startStack starts the upstream, the identity provider (through
// pkg/stack, as every stack of the repository) and both gateways.
func startStack(ctx context.Context, redisURL string) (*stack, error) {
	s := &stack{}
	var err error
	if s.upstream, err = s.serve(http.HandlerFunc(trivial)); err != nil {
		return nil, err
	}
	idp, err := platform.Start(ctx, platform.Options{Programs: []string{platform.IdP}, LogLevel: "warn"})
	if err != nil {
		return nil, errors.Join(err, s.close())
	}
	s.stops = append(s.stops, func() error { return errors.Join(idp.Close(), platform.RemoveBinaries()) })
	if s.token, err = idp.Token(ctx, benchClient); err != nil {
		return nil, errors.Join(err, s.close())
	}
	if s.limited, err = s.startGateway(ctx, idp.Issuer, redisURL, "true"); err != nil {
		return nil, errors.Join(err, s.close())
	}
	if s.open, err = s.startGateway(ctx, idp.Issuer, redisURL, "false"); err != nil {
		return nil, errors.Join(err, s.close())
	}
	if s.bare, err = s.serve(bareProxy(s.upstream)); err != nil {
		return nil, errors.Join(err, s.close())
	}
	return s, nil
}

// bareProxy forwards every request to upstream with nothing around it: no
// token, no limits, no logging or metrics, a Transport that keeps enough
// idle connections for the load. What the gateway costs beyond it is the
// gateway's own; what it costs itself, any proxy pays.
func bareProxy(upstream string) http.Handler {
	target, _ := url.Parse(upstream)
	return &httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport: &http.Transport{MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute},
	}
}

// trivial is the upstream: a small JSON answer, no work.
func trivial(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"ok":true}`)
}

// startGateway runs a gateway in front of the upstream with limits on or off.
// Limits are set far above what the run can send, so every request is counted
// in Redis and none is refused.
func (s *stack) startGateway(ctx context.Context, issuer, redisURL, limits string) (string, error) {
	return s.startGatewayWith(ctx, issuer, redisURL, map[string]string{
		"RATE_LIMIT_ENABLED":    limits,
		"RATE_LIMIT_KEY_PREFIX": fmt.Sprintf("bench-%d", time.Now().UnixNano()),
	})
}

// startGatewayWith runs a gateway in front of the upstream with limits far
// above the load unless env says otherwise.
func (s *stack) startGatewayWith(ctx context.Context, issuer, redisURL string, env map[string]string) (string, error) {
	vars := map[string]string{
		"HTTP_ADDR":                 "127.0.0.1:0",
		"OIDC_ISSUER_URL":           issuer,
		"ADMIN_ADDR":                "127.0.0.1:0",
		"ROUTES":                    "/go/v1=" + s.upstream,
		"REDIS_URL":                 redisURL,
		"RATE_LIMIT_PER_CLIENT":     "1000000000-M",
		"RATE_LIMIT_PER_DEPARTMENT": "1000000000-M",
	}
	maps.Copy(vars, env)
	cfg, err := app.LoadConfig(ctx, envconfig.MapLookuper(vars))
	if err != nil {
		return "", err
	}
	cfg.Logger = quiet()
	gw, err := app.New(ctx, cfg)
	if err != nil {
		return "", err
	}
	gctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- gw.Run(gctx) }()
	s.stops = append(s.stops, func() error { cancel(); return errors.Join(<-done, gw.Close()) })
	return "http://" + gw.Addr(), nil
}

// close stops every server of the stack.
func (s *stack) close() error {
	var errs []error
	for i := len(s.stops) - 1; i >= 0; i-- {
		errs = append(errs, s.stops[i]())
	}
	return errors.Join(errs...)
}

// quiet is the logger of the servers under load: warnings only, on stderr.
func quiet() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
