// Package clientip finds the address a request really came from: the TCP
// peer, or, only when the peer is a trusted proxy, the nearest untrusted
// address of its X-Forwarded-For chain.
package clientip

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// Trusted is a set of networks whose X-Forwarded-For is believed.
type Trusted []netip.Prefix

// ParseTrusted reads a comma-separated list of CIDRs or single addresses.
func ParseTrusted(s string) (Trusted, error) {
	var t Trusted
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		p, err := parsePrefix(item)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: want a CIDR or an address", item)
		}
		t = append(t, p)
	}
	return t, nil
}

func parsePrefix(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		return p.Masked(), err
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
}

// EnvDecode lets go-envconfig read Trusted from TRUSTED_PROXIES.
func (t *Trusted) EnvDecode(val string) error {
	parsed, err := ParseTrusted(val)
	if err != nil {
		return err
	}
	*t = parsed
	return nil
}

// contains reports whether a lies in one of the trusted networks.
func (t Trusted) contains(a netip.Addr) bool {
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Source is where a request came from.
type Source struct {
	// Addr is the client address used for the per-IP limit.
	Addr netip.Addr
	// ForwardedFor is the X-Forwarded-For chain to send upstream: the
	// incoming chain only when the peer is trusted, then the peer.
	ForwardedFor string
}

// Of returns the source of r. A forged X-Forwarded-For from an untrusted
// peer changes nothing; from a trusted one, the chain is read right to left
// and the first untrusted, well-formed address is the client.
func (t Trusted) Of(r *http.Request) Source {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return Source{ForwardedFor: r.RemoteAddr}
	}
	src := Source{Addr: peer.Addr().Unmap(), ForwardedFor: peer.Addr().Unmap().String()}
	if !t.contains(src.Addr) {
		return src
	}
	chain := r.Header.Values("X-Forwarded-For")
	hops := strings.Split(strings.Join(chain, ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		src.Addr = a.Unmap()
		if !t.contains(src.Addr) {
			break
		}
	}
	if len(chain) > 0 {
		src.ForwardedFor = strings.Join(chain, ", ") + ", " + src.ForwardedFor
	}
	return src
}

// Key names the per-IP bucket of a: the address itself for IPv4, its /64
// network for IPv6, where one host usually holds a whole /64.
func Key(a netip.Addr) string {
	if !a.IsValid() {
		return "unknown"
	}
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}
