package clientip_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/municipal-apis/platform/gateway/internal/clientip"
)

func TestOf(t *testing.T) {
	t.Parallel()
	trusted, err := clientip.ParseTrusted("10.0.0.0/8, 192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		trusted   clientip.Trusted
		remote    string
		xff       []string
		wantAddr  string
		wantChain string
	}{
		{"a direct client is its peer address", nil, "203.0.113.5:4000", nil, "203.0.113.5", "203.0.113.5"},
		{"a forged header from an untrusted peer is ignored", nil, "203.0.113.5:4000", []string{"1.2.3.4"}, "203.0.113.5", "203.0.113.5"},
		{"a forged header is ignored when the peer is not among the trusted", trusted, "203.0.113.5:4000", []string{"1.2.3.4"}, "203.0.113.5", "203.0.113.5"},
		{"a trusted proxy's client is believed", trusted, "10.1.2.3:4000", []string{"198.51.100.7"}, "198.51.100.7", "198.51.100.7, 10.1.2.3"},
		{"the nearest untrusted hop wins over a forged first hop", trusted, "10.1.2.3:4000", []string{"1.2.3.4, 198.51.100.7", "10.9.9.9"}, "198.51.100.7", "1.2.3.4, 198.51.100.7, 10.9.9.9, 10.1.2.3"},
		{"garbage in the chain stops the walk", trusted, "10.1.2.3:4000", []string{"198.51.100.7, <script>"}, "10.1.2.3", "198.51.100.7, <script>, 10.1.2.3"},
		{"a chain of trusted hops ends at its first", trusted, "192.0.2.1:4000", []string{"10.0.0.9"}, "10.0.0.9", "10.0.0.9, 192.0.2.1"},
		{"an IPv4-mapped peer is unmapped", nil, "[::ffff:203.0.113.5]:4000", nil, "203.0.113.5", "203.0.113.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			src := tt.trusted.Of(r)
			if src.Addr.String() != tt.wantAddr || src.ForwardedFor != tt.wantChain {
				t.Fatalf("Of = %s %q, want %s %q", src.Addr, src.ForwardedFor, tt.wantAddr, tt.wantChain)
			}
		})
	}
}

func TestKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		addr string
		want string
	}{
		{"an IPv4 address is its own bucket", "203.0.113.5", "203.0.113.5"},
		{"an IPv6 address shares its /64", "2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := clientip.Key(netip.MustParseAddr(tt.addr)); got != tt.want {
				t.Fatalf("Key(%s) = %s, want %s", tt.addr, got, tt.want)
			}
		})
	}
}

func TestParseTrustedRejectsGarbage(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"10.0.0.0/33", "not-an-ip", "10.0.0.0/8,,x"} {
		t.Run("the list "+in+" is refused", func(t *testing.T) {
			t.Parallel()
			if _, err := clientip.ParseTrusted(in); err == nil {
				t.Fatalf("ParseTrusted(%q) succeeded", in)
			}
		})
	}
}
