package proxy

import (
	"math/rand/v2"
	"net/url"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/municipal-apis/platform/gateway/internal/route"
)

// escapedPath takes a shortcut for plain paths: it must answer as
// url.URL.EscapedPath does for any path and raw path.
func TestEscapedPathIsURLs(t *testing.T) {
	t.Parallel()
	cases := [][2]string{
		{"", ""}, {"/", "/"}, {"/a/b", "/a/b"}, {"/a b", "/a%20b"}, {"/a b", "/a b"}, {"/a+b", "/a+b"},
		{"/é", "/%C3%A9"}, {"/é", "/é"}, {"/a;b,c", "/a;b,c"}, {"/a?b", "/a%3Fb"}, {"/a%b", "/a%25b"},
		{"/~user/._-", "/~user/._-"}, {"/a\"b", "/a%22b"}, {"/x", "/y"}, {"/a/b", ""},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const alphabet = "aZ09/-._~ %+;,?#:@!$&'()*=[]\"\x00\x7f\xc3\xa9"
	for range 20000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		raw := "/" + string(b)
		dec, err := url.PathUnescape(raw)
		if err != nil {
			dec = raw
		}
		cases = append(cases, [2]string{dec, raw}, [2]string{raw, raw}, [2]string{dec, ""})
	}
	for _, c := range cases {
		want := (&url.URL{Path: c[0], RawPath: c[1]}).EscapedPath()
		if got := escapedPath(c[0], c[1]); got != want {
			t.Fatalf("escapedPath(%q, %q) = %q, want %q", c[0], c[1], got, want)
		}
	}
}

// BenchmarkBuild measures the upstream request the gateway builds from a
// typical client request: a GET with a token, a request id and a query.
func BenchmarkBuild(b *testing.B) {
	up, _ := url.Parse("http://127.0.0.1:19101")
	u := New(route.Route{Prefix: "/go/v1", Upstream: up}, Config{}, nil, nil, nil)
	var c fasthttp.RequestCtx
	c.Request.SetRequestURI("/go/v1/api/v1/empregos/search?q=engenheiro&page=2")
	c.Request.Header.SetHost("gateway.example.gov")
	c.Request.Header.Set("User-Agent", "wrk")
	c.Request.Header.Set("Accept", "application/json")
	c.Request.Header.Set("Authorization", "Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln")
	c.Request.Header.Set("X-Request-Id", "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
	f := Forward{Path: "/api/v1/empregos/search", RawPath: "/api/v1/empregos/search", ClientID: "jobs-admin", Department: "emprego", ForwardedFor: "127.0.0.1"}
	var req fasthttp.Request
	b.ReportAllocs()
	for b.Loop() {
		req.Reset()
		u.build(&req, &c, f, nil)
	}
}
