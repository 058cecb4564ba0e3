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
// of the gateway's own.
func TestCopyResponseHeaderKeepsRepeatsAndDropsWhatTheGatewayOwns(t *testing.T) {
	t.Parallel()
	var src fasthttp.ResponseHeader
	src.DisableNormalizing()
	src.Add("Set-Cookie", "a=1")
	src.Add("set-cookie", "b=2")
	src.Add("x-custom-thing", "x")
	src.Add("Vary", "Accept")
	src.Add("Connection", "close")
	src.Add("Keep-Alive", "timeout=5")
	src.Add("X-Request-Id", "upstream-id")
	src.Add("X-RateLimit-Remaining", "99")
	src.SetContentType("application/json")
	dst := http.Header{"X-Request-Id": {"gateway-id"}, "Vary": {"Origin"}}
	copyResponseHeader(dst, &src)
	want := http.Header{
		"X-Request-Id":   {"gateway-id"},
		"Vary":           {"Origin", "Accept"},
		"Set-Cookie":     {"a=1", "b=2"},
		"X-Custom-Thing": {"x"},
		"Content-Type":   {"application/json"},
	}
	if !reflect.DeepEqual(dst, want) {
		t.Fatalf("copied headers = %v, want %v", dst, want)
	}
	// The copies share one backing array: appending to one header must not
	// overwrite another.
	dst["Set-Cookie"] = append(dst["Set-Cookie"], "c=3")
	dst["X-Custom-Thing"] = append(dst["X-Custom-Thing"], "y")
	if got := dst["Content-Type"]; !reflect.DeepEqual(got, []string{"application/json"}) {
		t.Fatalf("Content-Type = %v after appending to other headers", got)
	}
}
