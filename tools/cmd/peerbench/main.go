// Command peerbench holds the small programs of the gateway's peer
// comparison (scripts/gateway-peers.sh), which puts the gateway beside the
// proxies a city would pick instead:
//
//	peerbench upstream ADDR          the trivial service every proxy forwards to
//	peerbench bareproxy ADDR URL     httputil.ReverseProxy and nothing else, the floor of a Go proxy
//	peerbench fastproxy ADDR HOST    fasthttp's Server and HostClient and nothing else: the gateway's
//	                                 proxy core without the gateway's work, the ceiling of its design
//	peerbench fastheaders ADDR HOST  fastproxy sending upstream the seven headers the gateway adds, and
//	                                 returning an X-Request-ID: what those headers cost by themselves
//	peerbench jwk2pem < jwks.json    the first RSA key of a JWKS as PEM, for HAProxy's jwt_verify
//	peerbench paced URL RATE CONNS DUR
//	                                 GETs of URL at RATE a second over CONNS connections for DUR, paced
//	                                 as wrk2 paces them, after a second of warm-up at that rate; the
//	                                 latencies of the measured part on one line (PACED_AUTHORIZATION is
//	                                 the requests' Authorization header)
package main

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "peerbench:", err)
		os.Exit(1)
	}
}

func run(args []string, in io.Reader, out io.Writer) error {
	switch {
	case len(args) == 2 && args[0] == "upstream":
		return serve(args[1], upstream())
	case len(args) == 3 && args[0] == "bareproxy":
		up, err := url.Parse(args[2])
		if err != nil {
			return err
		}
		return serve(args[1], bareProxy(up))
	case len(args) == 3 && (args[0] == "fastproxy" || args[0] == "fastheaders"):
		return fastProxy(args[2], args[0] == "fastheaders").ListenAndServe(args[1])
	case len(args) == 1 && args[0] == "jwk2pem":
		return jwk2pem(in, out)
	case len(args) == 5 && args[0] == "paced":
		rate, err1 := strconv.Atoi(args[2])
		conns, err2 := strconv.Atoi(args[3])
		d, err3 := time.ParseDuration(args[4])
		if err := errors.Join(err1, err2, err3); err != nil || rate <= 0 || conns <= 0 || d < time.Second {
			return fmt.Errorf("paced: want a positive rate and number of connections and a duration of a second or more: %v", args[2:])
		}
		return paced(args[1], rate, conns, d, os.Getenv("PACED_AUTHORIZATION"), out)
	}
	return errors.New("usage: peerbench upstream ADDR | bareproxy ADDR URL | fastproxy ADDR HOST:PORT | fastheaders ADDR HOST:PORT | jwk2pem | paced URL RATE CONNS DUR")
}

func serve(addr string, h http.Handler) error {
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	return srv.ListenAndServe()
}

// upstream answers every request with a small JSON page, as a list endpoint would.
func upstream() http.Handler {
	body := []byte(`{"data":[],"meta":{"page":1,"per_page":20,"total":0}}`)
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
}

// bareProxy forwards /go/v1/... to up without the prefix: no checks, no logs.
func bareProxy(up *url.URL) http.Handler {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 256
	return &httputil.ReverseProxy{Transport: t, Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(up)
		r.Out.URL.Path = strings.TrimPrefix(r.In.URL.Path, "/go/v1")
		r.Out.URL.RawPath = ""
	}}
}

// fastProxy forwards /go/v1/... to the upstream at hostport without the
// prefix through one fasthttp.HostClient, the request and response passed
// through as they are: no token, limits, log, metrics, deadlines or
// streaming. With gatewayHeaders it adds what the gateway sends upstream
// beside the client's headers (a request id, X-Forwarded-For, -Host,
// -Proto and -Prefix, the caller's client and department, the bench
// token's, with values of the lengths the gateway sends) and the request id
// it returns: the part of the gateway's cost, to itself, the upstream and
// the client, that is those headers and no work at all.
func fastProxy(hostport string, gatewayHeaders bool) *fasthttp.Server {
	c := &fasthttp.HostClient{Addr: hostport, MaxConns: 1024}
	return &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		uri := ctx.Request.URI()
		uri.SetPathBytes(bytes.TrimPrefix(uri.Path(), []byte("/go/v1")))
		if gatewayHeaders {
			h := &ctx.Request.Header
			h.Set("X-Request-Id", benchRequestID)
			h.Add("X-Forwarded-For", "127.0.0.1")
			h.AddBytesV("X-Forwarded-Host", ctx.Host())
			h.Add("X-Forwarded-Proto", "http")
			h.Add("X-Forwarded-Prefix", "/go/v1")
			h.Add("X-Client-Id", "jobs-admin")
			h.Add("X-Department", "trabalho")
		}
		if err := c.Do(&ctx.Request, &ctx.Response); err != nil {
			ctx.Error(err.Error(), fasthttp.StatusBadGateway)
		}
		if gatewayHeaders {
			ctx.Response.Header.Set("X-Request-Id", benchRequestID)
		}
	}}
}

// benchRequestID has the length of the gateway's request ids (UUIDv7).
const benchRequestID = "01a21af0-0526-73dc-a34c-855a157d62b4"

// paced sends GET url at rate requests a second for d over conns
// connections, as wrk2 does: request i is due at start + i/rate and goes out
// on connection i mod conns at its time, or as soon as that connection's
// previous answer is in, and its latency is counted from its due time. So a
// target that falls behind shows it in its latencies instead of being sent
// less: wrk's closed loop gives each target the load it can take, and its
// percentiles compare targets at different loads. A second of warm-up at the
// same rate opens the connections first. The client is a fasthttp
// HostClient, which leaves the cores to the target. It prints one line of
// name=value pairs, latencies in milliseconds.
func paced(rawURL string, rate, conns int, d time.Duration, authorization string, out io.Writer) error {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return fmt.Errorf("paced: %q is not an http URL", rawURL)
	}
	c := &fasthttp.HostClient{Addr: u.Host, MaxConns: conns, ReadTimeout: 10 * time.Second}
	// run sends n requests, keeping each one's latency and outcome.
	run := func(n int) (lat []time.Duration, failed int) {
		lat = make([]time.Duration, n)
		fail := make([]bool, n)
		start := time.Now()
		var wg sync.WaitGroup
		for k := range conns {
			wg.Go(func() {
				req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
				defer fasthttp.ReleaseRequest(req)
				defer fasthttp.ReleaseResponse(resp)
				for i := k; i < n; i += conns {
					due := start.Add(time.Duration(i) * time.Second / time.Duration(rate))
					if wait := time.Until(due); wait > 0 {
						time.Sleep(wait)
					}
					req.Reset()
					req.SetRequestURI(rawURL)
					req.Header.Set("Authorization", authorization)
					err := c.Do(req, resp)
					lat[i], fail[i] = time.Since(due), err != nil || resp.StatusCode()/100 != 2
				}
			})
		}
		wg.Wait()
		for _, f := range fail {
			if f {
				failed++
			}
		}
		return lat, failed
	}
	run(rate)
	n := int(d.Seconds() * float64(rate))
	began := time.Now()
	lat, failed := run(n)
	took := time.Since(began)
	slices.Sort(lat)
	q := func(f float64) float64 {
		return float64(lat[min(int(f*float64(n)), n-1)]) / float64(time.Millisecond)
	}
	_, err = fmt.Fprintf(out, "requests=%d rate=%d throughput=%.0f failed=%d p50=%.3f p90=%.3f p99=%.3f p999=%.3f max=%.3f\n",
		n, rate, float64(n-failed)/took.Seconds(), failed, q(0.5), q(0.9), q(0.99), q(0.999), q(1))
	return err
}

// jwk2pem writes the first RSA key of the JWKS read from in as a PEM public key.
func jwk2pem(in io.Reader, out io.Writer) error {
	var set struct {
		Keys []struct{ Kty, N, E string } `json:"keys"`
	}
	if err := json.NewDecoder(in).Decode(&set); err != nil {
		return fmt.Errorf("read the JWKS: %w", err)
	}
	for _, k := range set.Keys {
		if k.Kty != "RSA" {
			continue
		}
		n, err := base64.RawURLEncoding.DecodeString(k.N)
		if err != nil {
			return fmt.Errorf("modulus: %w", err)
		}
		e, err := base64.RawURLEncoding.DecodeString(k.E)
		if err != nil {
			return fmt.Errorf("exponent: %w", err)
		}
		der, err := x509.MarshalPKIXPublicKey(&rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())})
		if err != nil {
			return err
		}
		return pem.Encode(out, &pem.Block{Type: "PUBLIC KEY", Bytes: der})
	}
	return errors.New("no RSA key in the JWKS")
}
