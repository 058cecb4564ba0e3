package clientip_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/gateway/internal/clientip"
)

func TestOf(t *testing.T) {
	t.Parallel()
	trusted, err := clientip.ParseTrusted("10.0.0.0/8, 192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	edge, err := clientip.ParseTrusted("10.244.250.0/24")
	if err != nil {
		t.Fatal(err)
	}
	direct := clientip.Policy{}
	walk := clientip.Policy{Proxies: trusted}
	oneHop := clientip.Policy{Hops: 1}
	twoHops := clientip.Policy{Hops: 2}
	edgeOneHop := clientip.Policy{Proxies: edge, Hops: 1}
	long := make([]string, 1000)
	for i := range long {
		long[i] = "10.0." + strconv.Itoa(i/250) + "." + strconv.Itoa(i%250)
	}
	tests := []struct {
		name      string
		policy    clientip.Policy
		remote    string
		xff       []string
		wantAddr  string
		wantChain string
	}{
		{"a direct client is its peer address", direct, "203.0.113.5:4000", nil, "203.0.113.5", "203.0.113.5"},
		{"a forged header from an untrusted peer is ignored", direct, "203.0.113.5:4000", []string{"1.2.3.4"}, "203.0.113.5", "203.0.113.5"},
		{"a forged header is ignored when the peer is not among the trusted", walk, "203.0.113.5:4000", []string{"1.2.3.4"}, "203.0.113.5", "203.0.113.5"},
		{"a trusted proxy's client is believed", walk, "10.1.2.3:4000", []string{"198.51.100.7"}, "198.51.100.7", "198.51.100.7, 10.1.2.3"},
		{"the nearest untrusted hop wins over a forged first hop", walk, "10.1.2.3:4000", []string{"1.2.3.4, 198.51.100.7", "10.9.9.9"}, "198.51.100.7", "1.2.3.4, 198.51.100.7, 10.9.9.9, 10.1.2.3"},
		{"garbage in the chain stops the walk at the peer", walk, "10.1.2.3:4000", []string{"198.51.100.7, <script>"}, "10.1.2.3", "198.51.100.7, <script>, 10.1.2.3"},
		{"garbage behind trusted hops keys on the peer", walk, "10.1.2.3:4000", []string{"<script>, 10.9.9.9"}, "10.1.2.3", "<script>, 10.9.9.9, 10.1.2.3"},
		{"a chain of trusted hops keys on the peer, never on its leftmost address", walk, "192.0.2.1:4000", []string{"10.0.0.9"}, "192.0.2.1", "10.0.0.9, 192.0.2.1"},
		{"a client inside the trusted range cannot name the leftmost address", walk, "10.1.2.3:4000", []string{"203.0.113.66, 10.5.5.5"}, "203.0.113.66", "203.0.113.66, 10.5.5.5, 10.1.2.3"},
		{"narrow trust: a pod outside the edge range is the client", clientip.Policy{Proxies: edge}, "10.244.250.7:4000", []string{"1.1.1.1, 10.5.5.5"}, "10.5.5.5", "1.1.1.1, 10.5.5.5, 10.244.250.7"},
		{"one hop: the address the only proxy saw", oneHop, "10.1.2.3:4000", []string{"1.1.1.1, 198.51.100.7"}, "198.51.100.7", "1.1.1.1, 198.51.100.7, 10.1.2.3"},
		{"two hops: the address the outer proxy saw", twoHops, "10.1.2.3:4000", []string{"1.1.1.1, 198.51.100.7", "10.9.9.9"}, "198.51.100.7", "1.1.1.1, 198.51.100.7, 10.9.9.9, 10.1.2.3"},
		{"two hops over a one-address chain key on the peer", twoHops, "10.1.2.3:4000", []string{"198.51.100.7"}, "10.1.2.3", "198.51.100.7, 10.1.2.3"},
		{"hops with trusted networks still need a trusted peer", edgeOneHop, "203.0.113.5:4000", []string{"1.2.3.4"}, "203.0.113.5", "203.0.113.5"},
		{"hops with trusted networks count from a trusted peer", edgeOneHop, "10.244.250.9:4000", []string{"1.2.3.4, 198.51.100.7"}, "198.51.100.7", "1.2.3.4, 198.51.100.7, 10.244.250.9"},
		{"an IPv4-mapped peer is unmapped", direct, "[::ffff:203.0.113.5]:4000", nil, "203.0.113.5", "203.0.113.5"},
		{"an IPv4-mapped hop is unmapped", oneHop, "10.1.2.3:4000", []string{"::ffff:198.51.100.7"}, "198.51.100.7", "::ffff:198.51.100.7, 10.1.2.3"},
		{"a 1,000-hop chain of trusted addresses keys on the peer", walk, "10.1.2.3:4000", []string{strings.Join(long, ", ")}, "10.1.2.3", strings.Join(long, ", ") + ", 10.1.2.3"},

		// The forwarded-header cases written from the API document alone:
		// with no trusted proxy configured, every one is keyed on the peer.
		{"hostile: a spoofed leftmost entry in front of the real address", direct, "203.0.113.5:4000", []string{"1.1.1.1, 203.0.113.5"}, "203.0.113.5", "203.0.113.5"},
		{"hostile: a 1,000-hop chain from a direct client", direct, "203.0.113.5:4000", []string{strings.Join(long, ", ")}, "203.0.113.5", "203.0.113.5"},
		{"hostile: invalid, empty and unknown entries", direct, "203.0.113.5:4000", []string{"not-an-ip, 999.1.1.1, , unknown, 1.2.3"}, "203.0.113.5", "203.0.113.5"},
		{"hostile: bracketed, zoned and mapped IPv6 and ports", direct, "203.0.113.5:4000", []string{"[2001:db8::1]:443, 2001:db8::1%eth0, ::ffff:127.0.0.1, 1.2.3.4:5678"}, "203.0.113.5", "203.0.113.5"},
		{"hostile: X-Forwarded-For claiming loopback", direct, "203.0.113.5:4000", []string{"127.0.0.1"}, "203.0.113.5", "203.0.113.5"},
		{"hostile: a spoofed leftmost entry behind a trusted proxy", walk, "10.1.2.3:4000", []string{"1.1.1.1, 203.0.113.5"}, "203.0.113.5", "1.1.1.1, 203.0.113.5, 10.1.2.3"},
		{"hostile: invalid entries behind a trusted proxy key on the peer", walk, "10.1.2.3:4000", []string{"not-an-ip, 999.1.1.1, , unknown, 1.2.3"}, "10.1.2.3", "not-an-ip, 999.1.1.1, , unknown, 1.2.3, 10.1.2.3"},
		{"hostile: IPv6 forms with ports behind a trusted proxy key on the peer", walk, "10.1.2.3:4000", []string{"[2001:db8::1]:443, 2001:db8::1%eth0, ::ffff:127.0.0.1, 1.2.3.4:5678"}, "10.1.2.3", "[2001:db8::1]:443, 2001:db8::1%eth0, ::ffff:127.0.0.1, 1.2.3.4:5678, 10.1.2.3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			for _, h := range []string{"X-Real-IP", "X-Client-IP", "True-Client-IP", "CF-Connecting-IP", "Forwarded"} {
				r.Header.Set(h, "127.0.0.1")
			}
			src := tt.policy.Of(r)
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
