#!/bin/bash
# Two builds of the gateway side by side, under two wrk loads that run at the same time, so that
# whatever else the machine does falls on both alike: the CPU time each gateway spends per request
# served, and the ratio B/A, round by round. On a shared machine req/s swings 15% between
# sequential runs while this ratio holds to about 1%; a build against itself gives 0.99-1.00.
# Each gateway has an upstream of its own, whose CPU per request is shown too: what a gateway
# sends upstream (its headers, how it uses its connections) costs the upstream, and so the
# throughput of a machine they share.
#
# Usage, from the repository root: scripts/gateway-ab.sh GATEWAY_A GATEWAY_B
#   e.g. git stash; make build; cp bin/gateway /tmp/gw-a; git stash pop; make build
#        scripts/gateway-ab.sh /tmp/gw-a bin/gateway
# It uses bin/devidp (make build), two trivial upstreams (tools/cmd/peerbench), wrk (installed from
# Debian when missing), ports 19201-19290 and Redis db 5.
# Env: ROUNDS (6), DUR (5, seconds), CONN (32 per gateway), LIMITS (false: RATE_LIMIT_ENABLED).
set -u
# shellcheck source=scripts/lib/bench.sh
. "$(dirname "$0")/lib/bench.sh"
[[ $# == 2 ]] || { echo "usage: $0 GATEWAY_A GATEWAY_B" >&2; exit 2; }
A_BIN=$1; B_BIN=$2; ROUNDS=${ROUNDS:-6}; DUR=${DUR:-5}; CONN=${CONN:-32}
D=$(mktemp -d)
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$D"; }
trap cleanup EXIT
go build -o "$D/peerbench" ./tools/cmd/peerbench || exit 1
[[ -x bin/devidp ]] || make -s build >/dev/null || exit 1
"$D/peerbench" upstream 127.0.0.1:19201 & PIDS+=($!); UA=$!
"$D/peerbench" upstream 127.0.0.1:19202 & PIDS+=($!); UB=$!
bench_devidp 19290 "$D/devidp.log"
for port in 19210 19211; do
  bin=$A_BIN up=19201; [[ $port == 19211 ]] && bin=$B_BIN up=19202
  bench_gateway $port $up "${LIMITS:-false}" "$bin" "$D/gw$port.log" ADMIN_ADDR=127.0.0.1:$((port + 50))
  if [[ $port == 19210 ]]; then A=$!; else B=$!; fi
done
for port in 19210 19211; do
  for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$((port + 50))/livez" && break; sleep 0.2; done
  c=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOK" "http://127.0.0.1:$port/go/v1/api/v1/empregos")
  [[ $c == 200 ]] || { echo "the gateway on $port answers $c; log:"; cat "$D/gw$port.log"; exit 1; }
done
load() { wrk -t1 -c"$CONN" -d"${DUR}s" -H "Authorization: Bearer $TOK" "http://127.0.0.1:$1/go/v1/api/v1/empregos" | awk '/requests in/{print $1}'; }
echo "A: $A_BIN"; echo "B: $B_BIN"
for r in $(seq "$ROUNDS"); do
  a0=$(cputicks $A); b0=$(cputicks $B); ua0=$(cputicks $UA); ub0=$(cputicks $UB)
  load 19210 >"$D/na" & L=$!
  nb=$(load 19211); wait $L; na=$(cat "$D/na")
  a1=$(cputicks $A); b1=$(cputicks $B); ua1=$(cputicks $UA); ub1=$(cputicks $UB)
  echo "$r $na $((a1 - a0)) $((ua1 - ua0)) $nb $((b1 - b0)) $((ub1 - ub0))"
done | python3 -c '
import sys, statistics as st
hz, dur, rows, ups = int(sys.argv[1]), int(sys.argv[2]), [], []
print("| round | A req/s | A CPU us/req | A upstream us/req | B req/s | B CPU us/req | B upstream us/req | B/A CPU per request |")
print("|---|---|---|---|---|---|---|---|")
for line in sys.stdin:
    r, na, ta, ua, nb, tb, ub = map(int, line.split())
    us = lambda ticks, n: ticks / hz * 1e6 / n
    a, b = us(ta, na), us(tb, nb)
    rows.append(b / a)
    ups.append(us(ub, nb) / us(ua, na))
    print(f"| {r} | {na/dur:.0f} | {a:.1f} | {us(ua, na):.1f} | {nb/dur:.0f} | {b:.1f} | {us(ub, nb):.1f} | {b/a:.3f} |")
print(f"B/A CPU per request: median {st.median(rows):.3f}, range {min(rows):.3f}-{max(rows):.3f}")
print(f"B/A upstream CPU per request: median {st.median(ups):.3f}, range {min(ups):.3f}-{max(ups):.3f}")
' "$(getconf CLK_TCK)" "$DUR"
