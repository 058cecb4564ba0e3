// Package portal is the gateway's API portal at /docs: the OpenAPI
// documents of the routed services, fetched from each service's
// /openapi.json and rewritten for callers of the gateway (the route prefix
// as the server, the client-credentials flow described), shown side by side
// by Swagger UI, whose files are embedded in the binary (never a CDN). The
// page and its documents need no token; "try it" sends the caller's pasted
// token to the gateway's own origin.
package portal

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/municipal-apis/platform/gateway/internal/route"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/server"
)

// Prefix is where the portal is served; no route may use it.
const Prefix = "/docs"

// TokenPath is the token endpoint below the issuer (Keycloak's, and the
// development identity provider's).
const TokenPath = "/protocol/openid-connect/token"

// maxDocumentBytes bounds a fetched document.
const maxDocumentBytes = 8 << 20

//go:embed assets
var assets embed.FS

// Options configure the portal.
type Options struct {
	Routes    route.Table
	IssuerURL string
	// Client fetches the documents; nil means a client with a 5 s timeout.
	Client *http.Client
	// Refresh is how long a fetched document is served before it is
	// fetched again (5 minutes, the services' Cache-Control, when zero);
	// RetryAfter how long after a failed fetch the next is tried (10 s
	// when zero), so a service down is not asked on every page view.
	Refresh, RetryAfter time.Duration
	Logger              *slog.Logger
}

// Portal is the handler of /docs and everything below it.
type Portal struct {
	apis     []*api
	tokenURL string
	csp      string
	assets   fs.FS        // the embedded files below assets/
	files    http.Handler // serves assets
	routed   http.Handler // what ServeHTTP serves once the method is checked
	opts     Options
}

// api is one routed service and the last document fetched from it.
type api struct {
	prefix, source string

	mu        sync.Mutex
	doc       rewritten
	fetchedAt time.Time
	err       error
	failedAt  time.Time
}

// New builds the portal of o.Routes; it fetches nothing until asked.
func New(o Options) (*Portal, error) {
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 5 * time.Second}
	}
	if o.Refresh <= 0 {
		o.Refresh = 5 * time.Minute
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = 10 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	issuer, err := url.Parse(o.IssuerURL)
	if err != nil || issuer.Host == "" {
		return nil, fmt.Errorf("portal: issuer URL %q", o.IssuerURL)
	}
	p := &Portal{tokenURL: strings.TrimSuffix(o.IssuerURL, "/") + TokenPath, opts: o}
	for _, rt := range o.Routes {
		if Owns(rt.Prefix) {
			return nil, fmt.Errorf("ROUTES: prefix %s is the API portal's (%s)", rt.Prefix, Prefix)
		}
		p.apis = append(p.apis, &api{prefix: rt.Prefix, source: rt.Upstream.JoinPath("openapi.json").String()})
	}
	// Scripts and styles only from the gateway itself; "try it" calls the
	// gateway (same origin); the identity provider may be called for a
	// client-credentials token from the Authorize dialog.
	p.csp = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; " +
		"connect-src 'self' " + issuer.Scheme + "://" + issuer.Host + "; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		return nil, err
	}
	p.assets, p.files = sub, http.StripPrefix(Prefix+"/assets/", http.FileServerFS(sub))
	p.routed = server.PreconditionsHTTP(http.HandlerFunc(p.route))
	return p, nil
}

// fileSize is the size of the regular file fsys holds at name, if any.
func fileSize(fsys fs.FS, name string) (int64, bool) {
	fi, err := fs.Stat(fsys, name)
	if err != nil || !fi.Mode().IsRegular() {
		return 0, false
	}
	return fi.Size(), true
}

// serveFile serves the file of r, of size bytes, with the file server,
// after reading its Range as RFC 9110 (section 14) has it where the file
// server does not:
//   - a HEAD is answered as its GET, without the body, and without
//     Range, which only GET has (14.2): the body goes through the
//     compressor as the GET's does, so the answers' header fields are the
//     same (Content-Encoding, Accept-Ranges, Content-Length);
//   - a Range in a unit other than bytes is ignored (14.2); the unit is
//     read without regard to case (14.1);
//   - a suffix of zero bytes is unsatisfiable (14.1.3): dropped from the
//     set, and a set of nothing else is a 416.
func (p *Portal) serveFile(w http.ResponseWriter, r *http.Request, size int64) {
	rng, ranged := r.Header["Range"]
	if r.Method == http.MethodHead || ranged {
		r = r.Clone(r.Context())
		r.Header.Del("Range")
		if r.Method == http.MethodHead {
			r.Method, ranged = http.MethodGet, false
		}
	}
	if ranged && len(rng) == 1 {
		unit, set, _ := strings.Cut(rng[0], "=")
		if strings.EqualFold(strings.TrimSpace(unit), "bytes") {
			var kept []string
			for _, spec := range strings.Split(set, ",") {
				if strings.TrimSpace(spec) != "-0" {
					kept = append(kept, spec)
				}
			}
			if len(kept) == 0 { // refused as the file server's 416 is
				(&fileRefusal{ResponseWriter: w, r: r, size: size}).WriteHeader(http.StatusRequestedRangeNotSatisfiable)
				return
			}
			r.Header.Set("Range", "bytes="+strings.Join(kept, ","))
		}
	}
	p.files.ServeHTTP(&fileRefusal{ResponseWriter: w, r: r, size: size}, r)
}

// Owns reports whether the portal serves path (before any route).
func Owns(p string) bool { return p == Prefix || strings.HasPrefix(p, Prefix+"/") }

// Mount returns a handler that serves the portal's paths with p and
// everything else with next: the portal is neither authenticated nor
// counted against a client's rate limit.
func Mount(p *Portal, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if Owns(r.URL.Path) {
			p.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (p *Portal) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	server.SetRoute(r, Prefix)
	h := w.Header()
	h.Set("Content-Security-Policy", p.csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		problem.Write(w, r, problem.Errorf(problem.EMETHOD, "the API portal answers GET and HEAD only").WithHeader("Allow", "GET, HEAD"))
		return
	}
	// The conditional headers are honoured as the APIs honour them: the
	// portal sends no entity tags either.
	p.routed.ServeHTTP(w, r)
}

// route serves a GET or HEAD of the portal.
func (p *Portal) route(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	switch rest := strings.TrimPrefix(r.URL.Path, Prefix); {
	case rest == "":
		http.Redirect(w, r, Prefix+"/", http.StatusMovedPermanently)
	case rest == "/":
		p.page(w, r)
	case strings.HasPrefix(rest, "/assets/") && !strings.HasSuffix(rest, "/"):
		// A file the portal does not hold is the problem 404 of every
		// other path, not the file server's text/plain one.
		name := strings.TrimPrefix(rest, "/assets/")
		size, ok := fileSize(p.assets, name)
		if ext := path.Ext(rest); ext == ".sh" || ext == "" || mime.TypeByExtension(ext) == "" || !ok {
			problem.Write(w, r, problem.Errorf(problem.ENOTFOUND, "no such file"))
			return
		}
		h.Set("Cache-Control", "public, max-age=3600")
		p.serveFile(w, r, size)
	case strings.HasPrefix(rest, "/api/") && strings.HasSuffix(rest, "/openapi.json"):
		p.document(w, r, strings.TrimSuffix(strings.TrimPrefix(rest, "/api"), "/openapi.json"))
	default:
		problem.Write(w, r, problem.Errorf(problem.ENOTFOUND, "the API portal has no page %s", r.URL.Path))
	}
}

// document serves the rewritten document of the route at prefix.
func (p *Portal) document(w http.ResponseWriter, r *http.Request, prefix string) {
	for _, a := range p.apis {
		if a.prefix != prefix {
			continue
		}
		doc, err := p.fetch(r.Context(), a)
		if doc.doc == nil {
			problem.Write(w, r, problem.Errorf(problem.EUNAVAILABLE, "the API description of %s is unavailable: %v", prefix, err).
				WithHeader("Retry-After", fmt.Sprint(int(p.opts.RetryAfter.Seconds()))))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(doc.doc)
		return
	}
	problem.Write(w, r, problem.Errorf(problem.ENOTFOUND, "no service is routed at %s", prefix))
}

// fetch returns the document of a, fetching it when it is older than
// Refresh (and the last failure older than RetryAfter). A failed fetch
// keeps the document held, if any, and returns the failure beside it.
func (p *Portal) fetch(ctx context.Context, a *api) (rewritten, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	if a.doc.doc != nil && now.Sub(a.fetchedAt) < p.opts.Refresh {
		return a.doc, nil
	}
	if a.err != nil && now.Sub(a.failedAt) < p.opts.RetryAfter {
		return a.doc, a.err
	}
	doc, err := p.get(ctx, a)
	if err != nil {
		if a.err == nil {
			p.opts.Logger.WarnContext(ctx, "API portal: fetching a service's OpenAPI document failed", "route", a.prefix, "err", err)
		}
		a.err, a.failedAt = err, now
		return a.doc, err
	}
	if a.err != nil {
		p.opts.Logger.InfoContext(ctx, "API portal: a service's OpenAPI document is back", "route", a.prefix)
	}
	a.doc, a.fetchedAt, a.err = doc, now, nil
	return doc, nil
}

// errUnreachable hides transport details from the page.
var errUnreachable = errors.New("the service did not answer")

// get fetches and rewrites the document of a.
func (p *Portal) get(ctx context.Context, a *api) (rewritten, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.source, nil)
	if err != nil {
		return rewritten{}, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.opts.Client.Do(req)
	if err != nil {
		p.opts.Logger.DebugContext(ctx, "API portal: fetch", "route", a.prefix, "err", err)
		return rewritten{}, errUnreachable
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return rewritten{}, fmt.Errorf("the service answered %s", resp.Status)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentBytes+1))
	switch {
	case err != nil:
		return rewritten{}, errUnreachable
	case len(raw) > maxDocumentBytes:
		return rewritten{}, fmt.Errorf("the document is over %d bytes", maxDocumentBytes)
	}
	return rewrite(raw, a.prefix, p.tokenURL)
}

// pageAPI is one service's section of the page.
type pageAPI struct {
	ID, Prefix, Title, SpecURL string
	Operations                 int
	// Down says why no document can be shown; Stale why the one shown may
	// be out of date.
	Down, Stale string
}

var pageTemplate = template.Must(template.ParseFS(assets, "assets/index.html"))

// page serves the portal: one section per route, each Swagger UI on its
// document, or the reason it is unavailable.
func (p *Portal) page(w http.ResponseWriter, r *http.Request) {
	var apis []pageAPI
	for i, a := range p.apis {
		doc, err := p.fetch(r.Context(), a)
		s := pageAPI{ID: fmt.Sprintf("api-%d", i), Prefix: a.prefix, Title: doc.title, Operations: doc.operations,
			SpecURL: "api" + a.prefix + "/openapi.json"}
		switch {
		case doc.doc == nil:
			s.Title, s.Down = a.prefix, err.Error()
		case err != nil:
			s.Stale = fmt.Sprintf("%v; showing the description fetched at %s", err, a.fetchedAt.UTC().Format(time.RFC3339))
		}
		apis = append(apis, s)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	err := pageTemplate.Execute(w, map[string]any{"APIs": apis, "TokenURL": p.tokenURL})
	if err != nil {
		p.opts.Logger.ErrorContext(r.Context(), "API portal: render", "err", err)
	}
}

// fileRefusal answers the file server's refusals as problems, the shape of
// every other answer of the gateway, not as its text/plain lines: a Range
// no part of which is within the file (416, with the file server's
// Content-Range: bytes */size) and a false If-Match (412; the files have no
// entity tags). Other answers pass through untouched.
type fileRefusal struct {
	http.ResponseWriter
	r       *http.Request
	size    int64
	refused bool
}

func (w *fileRefusal) WriteHeader(status int) {
	var err error
	switch {
	case w.refused:
		return
	case status == http.StatusRequestedRangeNotSatisfiable:
		// The file server leaves Content-Range out for a Range that does
		// not parse; a 416 should say the file's size either way (15.5.17).
		w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", w.size))
		err = problem.Errorf(problem.ERANGE, "no range of the Range header is within the file of %d bytes (a suffix of zero bytes is none), or it does not parse", w.size)
	case status == http.StatusPreconditionFailed:
		err = problem.Errorf(problem.EPRECONDITION, "If-Match names no entity tag of this file: the portal's files have none")
	case status == http.StatusNotFound:
		err = problem.Errorf(problem.ENOTFOUND, "no such file")
	case status >= 400:
		err = problem.Errorf(problem.EINTERNAL, "the file could not be served (%d)", status)
	default:
		w.ResponseWriter.WriteHeader(status)
		return
	}
	w.refused = true
	w.Header().Del("Cache-Control") // the file's, not the refusal's
	problem.Write(w.ResponseWriter, w.r, err)
}

func (w *fileRefusal) Write(b []byte) (int, error) {
	if w.refused { // the file server's text/plain line
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *fileRefusal) Unwrap() http.ResponseWriter { return w.ResponseWriter }
