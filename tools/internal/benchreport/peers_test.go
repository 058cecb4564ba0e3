package benchreport

import (
	"errors"
	"strings"
	"testing"
)

// peerOutput is what scripts/gateway-peers.sh prints, progress lines included.
const peerOutput = `check direct: with token 200, without 200
check gateway: with token 200, without 401
load average at the end: 3.10 2.50 1.90
| target | req/s | x direct | p50 ms | p99 ms | non-2xx | range req/s | CPU us/req | upstream CPU us/req |
|---|---|---|---|---|---|---|---|---|
| direct | 20000 | 1.00 | 2.00 | 9.00 | 0 | 19000-21000 | 22.0 | 22.0 |
| haproxy-jwt-limits | 8000 | 0.40 | 5.00 | 20.00 | 0 | 7900-8100 | 41.5 | 23.1 |
| gateway | 8400 | 0.42 | 5.10 | 18.00 | 0 | 8000-8600 | 38.2 | 28.4 |
gateway/haproxy-jwt-limits=1.05 gateway/go-httputil-bare=1.90 gateway/nginx-bare=0.60 gateway/direct=0.42
goal: gateway >= 1.0x haproxy-jwt-limits with no non-2xx: 1.05x, 0 non-2xx, met
goal: gateway-limits-off >= 0.9x nginx-bare: 0.62x, not met
goal: gateway p99 <= haproxy-jwt-limits p99 under wrk (each at the load it takes): 18.00 ms vs 20.00 ms, met
paced: 4000 req/s to each target over 64 connections, open loop
| target at the same load | req/s answered | p50 ms | p99 ms | p99.9 ms | failed |
|---|---|---|---|---|---|
| haproxy-jwt-limits | 4000 | 1.20 | 6.00 | 9.00 | 0 |
| gateway | 4000 | 1.10 | 5.00 | 8.00 | 0 |
goal: gateway p99 <= haproxy-jwt-limits p99 at the same load (4000 req/s, paced): 5.00 ms vs 6.00 ms, met
`

func TestPeersInTheReport(t *testing.T) {
	t.Parallel()
	res, err := parsePeerReport(peerOutput)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Table) != 5 || len(res.PacedTable) != 4 || len(res.Goals) != 4 || res.Load != "3.10 2.50 1.90" ||
		res.Paced != "4000 req/s to each target over 64 connections, open loop" {
		t.Fatalf("parsed %+v", res)
	}
	if _, err := parsePeerReport("check direct: with token 000\ndirect does not answer 200\n"); err == nil {
		t.Fatal("an output without a table parsed")
	}
	p := PeerBench{Rounds: 3, Duration: "8s"}
	r := &Report{PeersCommand: p.Command(), Peers: res, GatewayErr: errors.New("not run"), LoadErr: errors.New("not run")}
	var sb strings.Builder
	if err := r.WriteMarkdown(&sb); err != nil {
		t.Fatal(err)
	}
	md := sb.String()
	for _, want := range []string{
		"### Beside nginx and HAProxy, with wrk (`scripts/gateway-peers.sh`)",
		"| gateway | 8400 | 0.42 | 5.10 | 18.00 | 0 | 8000-8600 | 38.2 |",
		"Ratios: `gateway/haproxy-jwt-limits=1.05",
		"- gateway-limits-off >= 0.9x nginx-bare: 0.62x, not met",
		"ROUNDS=3 DUR=8s scripts/gateway-peers.sh",
		"half of `haproxy-jwt-limits`' throughput: 4000 req/s to each target over 64 connections, open loop.\n\n" +
			"| target at the same load | req/s answered | p50 ms | p99 ms | p99.9 ms | failed |",
		"| gateway | 4000 | 1.10 | 5.00 | 8.00 | 0 |\n\n- gateway >= 1.0x",
		"- gateway p99 <= haproxy-jwt-limits p99 at the same load (4000 req/s, paced): 5.00 ms vs 6.00 ms, met",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("report:\n%s", md)
	}
}
