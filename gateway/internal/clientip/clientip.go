// Package clientip finds the address a request really came from: the TCP
// peer, or, only when the peer is a trusted proxy, the first untrusted hop
// of its X-Forwarded-For chain counted from the right (or the hop a fixed
// number of proxies in front names), never an address the client chose.
package clientip

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// Trusted is a set of networks of proxies whose X-Forwarded-For is believed.
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

// Policy says whose X-Forwarded-For the gateway believes, and how far.
type Policy struct {
	// Proxies are the networks of the proxies in front of the gateway
	// (TRUSTED_PROXIES). Only a peer among them is believed; walking the
	// chain from the right, hops among them are skipped.
	Proxies Trusted
	// Hops, when positive, is how many proxies append to X-Forwarded-For in
	// front of the gateway (TRUSTED_PROXY_HOPS, as Envoy's
	// xff_num_trusted_hops and Traefik's depth): the client is the Hops-th
	// address from the right. Without Proxies, every peer is believed, so
	// only set it when nothing but those proxies can reach the gateway.
	Hops int
}

// Of returns the source of r. A forged X-Forwarded-For from a peer that is
// not believed changes nothing. From a believed peer the chain is read from
// the right: with Hops, the Hops-th address; otherwise the first address
// outside Proxies. When that address is not a well-formed IP, the chain is
// shorter than Hops, or every hop is trusted, the client is the peer: the
// leftmost address, which the client may have written itself, is never
// taken for lack of a better one.
func (p Policy) Of(r *http.Request) Source {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return Source{ForwardedFor: r.RemoteAddr}
	}
	return OfPeer(p, peer.Addr(), r.Header.Values("X-Forwarded-For"))
}

// OfPeer is Of for a request from the TCP peer peer whose X-Forwarded-For
// header values are chain (strings, or a server's raw header bytes).
func OfPeer[S ~string | ~[]byte](p Policy, peer netip.Addr, chain []S) Source {
	src := Source{Addr: peer.Unmap(), ForwardedFor: peer.Unmap().String()}
	if !p.believes(src.Addr) || len(chain) == 0 {
		return src
	}
	lines := make([]string, len(chain))
	for i, line := range chain {
		lines[i] = string(line)
	}
	if client, ok := p.client(lines); ok {
		src.Addr = client
	}
	src.ForwardedFor = strings.Join(lines, ", ") + ", " + src.ForwardedFor
	return src
}

// believes reports whether the X-Forwarded-For of peer is read at all.
func (p Policy) believes(peer netip.Addr) bool {
	if len(p.Proxies) == 0 {
		return p.Hops > 0
	}
	return p.Proxies.contains(peer)
}

// client walks chain from the right and returns the client it names, or
// false when it names none that can be trusted.
func (p Policy) client(chain []string) (netip.Addr, bool) {
	n := 0
	for i := len(chain) - 1; i >= 0; i-- {
		line := chain[i]
		for {
			cut := strings.LastIndexByte(line, ',')
			hop := line[cut+1:]
			n++
			a, err := netip.ParseAddr(strings.TrimSpace(hop))
			if err != nil {
				return netip.Addr{}, false
			}
			a = a.Unmap()
			switch {
			case p.Hops > 0 && n == p.Hops:
				return a, true
			case p.Hops == 0 && !p.Proxies.contains(a):
				return a, true
			}
			if cut < 0 {
				break
			}
			line = line[:cut]
		}
	}
	return netip.Addr{}, false
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
