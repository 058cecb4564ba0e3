package proxy

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/gateway/internal/route"
	"github.com/municipal-apis/platform/pkg/server"
)

// Forward is what the gateway decided about one request before proxying it.
type Forward struct {
	Path         string // path below the route's prefix, decoded
	RawPath      string // the same path as the client escaped it
	ClientID     string // verified azp
	Department   string // verified department claim, possibly empty
	ForwardedFor string // X-Forwarded-For chain to send
}

type forwardKey struct{}

// Upstream proxies the requests of one route.
type Upstream struct {
	route   route.Route
	proxy   *httputil.ReverseProxy
	metrics *Metrics
}

// New builds the proxy of r with its own Transport tuned by cfg; logger
// receives the proxy's own complaints, such as a body copy cut short. tp,
// when set, gives every upstream call a client span and sends its context
// upstream; nil adds nothing to the call.
func New(r route.Route, cfg Config, m *Metrics, logger *slog.Logger, tp trace.TracerProvider) *Upstream {
	u := &Upstream{route: r, metrics: m}
	var transport http.RoundTripper = newTransport(cfg)
	if tp != nil {
		transport = newTracingTransport(transport, tp, r.Prefix, r.Upstream.Scheme, r.Upstream.Host)
	}
	u.proxy = &httputil.ReverseProxy{
		Rewrite:        u.rewrite,
		Transport:      transport,
		ModifyResponse: u.modifyResponse,
		ErrorHandler:   u.fail,
		ErrorLog:       slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	return u
}

// ServeHTTP forwards r as decided by f and streams the answer back; the
// headers already set on w are on the final response whatever interim
// responses the upstream sends first.
func (u *Upstream) ServeHTTP(w http.ResponseWriter, r *http.Request, f Forward) {
	fw := &forwarding{Forward: f, in: r, start: time.Now()}
	fw.w.keep(w)
	ctx := context.WithValue(r.Context(), forwardKey{}, fw)
	u.proxy.ServeHTTP(&fw.w, r.WithContext(ctx))
}

// forwarding is a Forward with the client's request, the moment the
// upstream call began and the writer of the answer (in the same
// allocation).
type forwarding struct {
	Forward
	in    *http.Request
	start time.Time
	w     finalWriter
}

func forwardOf(r *http.Request) *forwarding {
	f, _ := r.Context().Value(forwardKey{}).(*forwarding)
	return f
}

// rewrite builds the outgoing request: the stripped path on the upstream's
// URL, X-Forwarded-* (with X-Forwarded-Prefix naming the stripped prefix, so
// services can build Location headers clients can follow), no client-sent
// identity, the verified identity.
func (u *Upstream) rewrite(pr *httputil.ProxyRequest) {
	f := forwardOf(pr.In)
	pr.Out.URL.Path, pr.Out.URL.RawPath = f.Path, f.RawPath
	pr.SetURL(u.route.Upstream)
	pr.SetXForwarded()
	h := pr.Out.Header
	h.Set("X-Forwarded-For", f.ForwardedFor)
	h.Set(server.ForwardedPrefixHeader, u.route.Prefix)
	stripIdentity(h)
	h.Set(HeaderClientID, f.ClientID)
	if f.Department != "" {
		h.Set(HeaderDepartment, f.Department)
	}
}

// modifyResponse records the upstream latency and drops the upstream's
// copies of headers the gateway owns.
func (u *Upstream) modifyResponse(resp *http.Response) error {
	u.metrics.observe(u.route.Prefix, resp.StatusCode, forwardOf(resp.Request).start)
	dropGatewayOwned(resp.Header)
	return nil
}
