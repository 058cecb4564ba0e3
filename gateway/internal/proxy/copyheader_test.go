package proxy

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/valyala/fasthttp"
)

// The upstream's response headers reach the client whatever case the
// upstream wrote them in, repeated ones in order and beside what the
// gateway already set, without hop-by-hop headers or the upstream's copies
// of the gateway's own, and without the headers its Connection header names.
func TestCopyResponseHeaderKeepsRepeatsAndDropsWhatTheGatewayOwns(t *testing.T) {
	t.Parallel()
	var src fasthttp.ResponseHeader
	src.DisableNormalizing()
	src.Add("Set-Cookie", "a=1")
	src.Add("set-cookie", "b=2")
	src.Add("x-custom-thing", "x")
	src.Add("Vary", "Accept")
	src.Add("Connection", "close")
	src.Add("Connection", "X-Hop, keep-alive")
	src.Add("x-hop", "this connection's only")
	src.Add("Keep-Alive", "timeout=5")
	src.Add("X-Request-Id", "upstream-id")
	src.Add("X-RateLimit-Remaining", "99")
	src.SetContentType("application/json")
	var dst fasthttp.ResponseHeader
	dst.Set("X-Request-Id", "gateway-id")
	dst.Set("Vary", "Origin")
	copyResponseHeader(&dst, &src)
	want := http.Header{
		"X-Request-Id":   {"gateway-id"},
		"Vary":           {"Origin", "Accept"},
		"Set-Cookie":     {"a=1", "b=2"},
		"X-Custom-Thing": {"x"},
		"Content-Type":   {"application/json"},
	}
	got := http.Header{}
	for k, v := range dst.All() {
		if string(k) != "Date" {
			got.Add(string(k), string(v))
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("copied headers = %v, want %v", got, want)
	}
}
