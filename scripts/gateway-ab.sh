#!/bin/bash
# Two builds of the gateway side by side, under two wrk loads that run at the same time, so that
# whatever else the machine does falls on both alike: the CPU time each gateway spends per request
# served, and the ratio B/A, round by round. On a shared machine req/s swings 15% between
# sequential runs while this ratio holds to about 1%; a build against itself gives 0.99-1.00.
#
# Usage, from the repository root: scripts/gateway-ab.sh GATEWAY_A GATEWAY_B
#   e.g. git stash; make build; cp bin/gateway /tmp/gw-a; git stash pop; make build
#        scripts/gateway-ab.sh /tmp/gw-a bin/gateway
# It uses bin/devidp (make build), a trivial upstream (tools/cmd/peerbench), wrk (installed from
# Debian when missing), ports 19201-19290 and Redis db 5.
# Env: ROUNDS (6), DUR (5, seconds), CONN (32 per gateway), LIMITS (false: RATE_LIMIT_ENABLED).
set -u
[[ $# == 2 ]] || { echo "usage: $0 GATEWAY_A GATEWAY_B" >&2; exit 2; }
A_BIN=$1; B_BIN=$2; ROUNDS=${ROUNDS:-6}; DUR=${DUR:-5}; CONN=${CONN:-32}
D=$(mktemp -d)
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$D"; }
trap cleanup EXIT
go build -o "$D/peerbench" ./tools/cmd/peerbench || exit 1
[[ -x bin/devidp ]] || make -s build >/dev/null || exit 1
"$D/peerbench" upstream 127.0.0.1:19201 & PIDS+=($!)
DEVIDP_ADDR=127.0.0.1:19290 DEVIDP_ISSUER_BASE=http://127.0.0.1:19290 bin/devidp >"$D/devidp.log" 2>&1 & PIDS+=($!)
ISS=http://127.0.0.1:19290/auth/realms/municipal
for _ in $(seq 50); do curl -sf -o /dev/null "$ISS/.well-known/openid-configuration" && break; sleep 0.2; done
TOK=$(curl -s -d grant_type=client_credentials -d client_id=jobs-admin -d client_secret=jobs-admin-secret "$ISS/protocol/openid-connect/token" | sed -E 's/.*"access_token":"([^"]+)".*/\1/')
gw() { # port binary
  HTTP_ADDR=127.0.0.1:$1 ADMIN_ADDR=127.0.0.1:$(($1 + 50)) ROUTES=/go/v1=http://127.0.0.1:19201 OIDC_ISSUER_URL=$ISS \
  REDIS_URL=redis://127.0.0.1:6379/5 RATE_LIMIT_ENABLED=${LIMITS:-false} \
  RATE_LIMIT_PER_CLIENT=1000000000-M RATE_LIMIT_PER_DEPARTMENT=1000000000-M "$2" >"$D/gw$1.log" 2>&1 &
}
gw 19210 "$A_BIN"; A=$!; PIDS+=($A); gw 19211 "$B_BIN"; B=$!; PIDS+=($B)
for port in 19210 19211; do
  for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$((port + 50))/livez" && break; sleep 0.2; done
  c=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOK" "http://127.0.0.1:$port/go/v1/api/v1/empregos")
  [[ $c == 200 ]] || { echo "the gateway on $port answers $c; log:"; cat "$D/gw$port.log"; exit 1; }
done
# ticks PID: the user and system time the process has spent, in clock ticks.
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
load() { wrk -t1 -c"$CONN" -d"${DUR}s" -H "Authorization: Bearer $TOK" "http://127.0.0.1:$1/go/v1/api/v1/empregos" | awk '/requests in/{print $1}'; }
echo "A: $A_BIN"; echo "B: $B_BIN"
for r in $(seq "$ROUNDS"); do
  a0=$(ticks $A); b0=$(ticks $B)
  load 19210 >"$D/na" & L=$!
  nb=$(load 19211); wait $L; na=$(cat "$D/na")
  a1=$(ticks $A); b1=$(ticks $B)
  echo "$r $na $((a1 - a0)) $nb $((b1 - b0))"
done | python3 -c '
import sys, statistics as st
hz, dur, rows = int(sys.argv[1]), int(sys.argv[2]), []
print("| round | A req/s | A CPU us/req | B req/s | B CPU us/req | B/A CPU per request |")
print("|---|---|---|---|---|---|")
for line in sys.stdin:
    r, na, ta, nb, tb = map(int, line.split())
    a, b = ta / hz * 1e6 / na, tb / hz * 1e6 / nb
    rows.append(b / a)
    print(f"| {r} | {na/dur:.0f} | {a:.1f} | {nb/dur:.0f} | {b:.1f} | {b/a:.3f} |")
print(f"B/A CPU per request: median {st.median(rows):.3f}, range {min(rows):.3f}-{max(rows):.3f}")
' "$(getconf CLK_TCK)" "$DUR"
