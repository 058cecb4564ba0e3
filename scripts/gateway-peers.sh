#!/bin/bash
# The gateway beside the proxies a city would pick instead, on this machine, in one run
# (tools/cmd/benchreport runs it for docs/benchmarks.md; gateway/BENCHMARKS.md keeps its notes).
#
# Every target forwards GET /go/v1/api/v1/empregos to the same trivial upstream, under the same
# wrk load (2 threads, CONN connections) carrying the same bearer token:
#   direct               the upstream itself (the physical limit here)
#   nginx-bare           nginx (Debian), proxy only
#   haproxy-bare         HAProxy (Debian), proxy only
#   go-httputil-bare     net/http/httputil.ReverseProxy with nothing else
#   fasthttp-bare        fasthttp's Server forwarding through a HostClient with nothing else: the
#                        gateway's proxy core without the gateway's work, the ceiling of its design
#   fasthttp-headers     fasthttp-bare sending upstream the seven headers the gateway adds (request
#                        id, X-Forwarded-*, client and department) and returning the request id: the
#                        cost of what the gateway promises to send, with none of its work
#   haproxy-jwt-limits   HAProxy verifying the RS256 token on every request (signature, alg,
#                        iss, exp) and counting it in stick tables per azp and per department
#   gateway-limits-off   the gateway, RATE_LIMIT_ENABLED=false
#   gateway              the gateway: token check + Redis limits per client and department
# Rounds alternate between targets; the table shows each target's median of ROUNDS rounds and its
# ratio to direct, with the CPU time the target's own processes spent per request served (from
# /proc, summed over nginx's workers; for direct, the upstream's): steadier than req/s on a shared
# machine, where wrk and the upstream take their share of the same cores. Beside it, the upstream's
# CPU time per request behind each target: what a proxy sends upstream (the gateway's seven headers)
# costs the upstream too, and so the throughput of the cores they share. Then the gateway's goals
# (issue 14): gateway >= 1.0x haproxy-jwt-limits with no non-2xx, gateway-limits-off >= 0.9x
# nginx-bare, gateway p99 no worse than haproxy-jwt-limits'.
#
# wrk's closed loop gives each target the load it can take, so its p99 column compares targets at
# different loads (the faster one is sent more). A second phase sends haproxy-jwt-limits, the
# gateway and gateway-limits-off the same load: PACED_SHARE (0.5) of haproxy-jwt-limits' median wrk
# throughput, CONN connections, paced as wrk2 paces them (`peerbench paced`: each request due at its
# time, its latency counted from then, so a target that falls behind shows it), ROUNDS alternating
# rounds of DUR; its table gives each target's median p50, p99 and p99.9, and the goal line the p99
# of the gateway against HAProxy's at that same load.
#
# Usage, from the repository root: scripts/gateway-peers.sh
# It runs `make build` and uses bin/gateway and bin/devidp (GATEWAY_BIN, DEVIDP_BIN override them),
# installs wrk, nginx and haproxy from Debian (apt-get) when missing and downloads nothing else,
# uses ports 19001-19090 and Redis db 5 (flushed).
# Env: ROUNDS (3), DUR (8s), CONN (64), PACED_SHARE (0.5), OUT_DIR (/tmp/gateway-peers).
set -u
ROOT=$(pwd)
# shellcheck source=scripts/lib/bench.sh
. "$ROOT/scripts/lib/bench.sh"
D=${OUT_DIR:-/tmp/gateway-peers}; DUR=${DUR:-8s}; CONN=${CONN:-64}; ROUNDS=${ROUNDS:-3}
PACED_SHARE=${PACED_SHARE:-0.5}
mkdir -p "$D/bin" "$D/out" "$D/paced"; rm -f "$D"/out/* "$D"/paced/*
for tool in wrk nginx haproxy; do
  command -v "$tool" >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx-light haproxy >/dev/null; break; }
done
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT
go build -o "$D/bin/peerbench" ./tools/cmd/peerbench || exit 1
if [[ -z ${GATEWAY_BIN:-} || -z ${DEVIDP_BIN:-} ]]; then make -s build >/dev/null || exit 1; fi
GATEWAY_BIN=${GATEWAY_BIN:-$ROOT/bin/gateway}; DEVIDP_BIN=${DEVIDP_BIN:-$ROOT/bin/devidp}
"$D/bin/peerbench" upstream 127.0.0.1:19001 & PIDS+=($!); declare -A PROCS=([direct]=$!)
bench_devidp 19090 "$D/devidp.log"
curl -s "$ISS/protocol/openid-connect/certs" | "$D/bin/peerbench" jwk2pem >"$D/pub.pem" || exit 1
redis-cli -n 5 flushdb >/dev/null
bench_gateway 19080 19001 true "$GATEWAY_BIN" "$D/gw19080.log"; PROCS[gateway]=$!
bench_gateway 19081 19001 false "$GATEWAY_BIN" "$D/gw19081.log"; PROCS[gateway-limits-off]=$!
"$D/bin/peerbench" bareproxy 127.0.0.1:19086 http://127.0.0.1:19001 2>/dev/null & PIDS+=($!); PROCS[go-httputil-bare]=$!
"$D/bin/peerbench" fastproxy 127.0.0.1:19087 127.0.0.1:19001 2>/dev/null & PIDS+=($!); PROCS[fasthttp-bare]=$!
"$D/bin/peerbench" fastheaders 127.0.0.1:19088 127.0.0.1:19001 2>/dev/null & PIDS+=($!); PROCS[fasthttp-headers]=$!
cat >"$D/nginx.conf" <<NG
worker_processes auto; pid $D/nginx.pid; error_log $D/nginx.err; daemon off;
events { worker_connections 4096; }
http { access_log /dev/null; upstream up { server 127.0.0.1:19001; keepalive 256; }
  server { listen 127.0.0.1:19082; location /go/v1/ { proxy_pass http://up/; proxy_http_version 1.1; proxy_set_header Connection ""; } } }
NG
nginx -c "$D/nginx.conf" & PIDS+=($!); NGINX=$!
cat >"$D/haproxy.cfg" <<HA
global
  nbthread 2
  log stdout format raw local0
defaults
  mode http
  log global
  option httplog
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  http-reuse always
backend per_client
  stick-table type string len 64 size 100k expire 60s store http_req_rate(60s)
backend per_dept
  stick-table type string len 64 size 10k expire 60s store http_req_rate(60s)
backend up
  http-request replace-path /go/v1(/.*) \1
  server s1 127.0.0.1:19001
frontend bare
  bind 127.0.0.1:19083
  default_backend up
frontend jwt
  bind 127.0.0.1:19084
  http-request deny deny_status 401 unless { req.hdr(authorization) -m beg "Bearer " }
  http-request set-var(txn.bearer) http_auth_bearer
  http-request set-var(txn.alg) var(txn.bearer),jwt_header_query('\$.alg')
  http-request deny deny_status 401 unless { var(txn.alg) -m str RS256 }
  http-request deny deny_status 401 unless { var(txn.bearer),jwt_verify(txn.alg,"$D/pub.pem") -m int 1 }
  http-request set-var(txn.iss) var(txn.bearer),jwt_payload_query('\$.iss')
  http-request deny deny_status 401 unless { var(txn.iss) -m str $ISS }
  http-request set-var(txn.exp) var(txn.bearer),jwt_payload_query('\$.exp','int')
  http-request set-var(txn.now) date()
  http-request deny deny_status 401 if { var(txn.exp),sub(txn.now) -m int lt 0 }
  http-request set-var(txn.azp) var(txn.bearer),jwt_payload_query('\$.azp')
  http-request set-var(txn.dept) var(txn.bearer),jwt_payload_query('\$.department')
  http-request track-sc0 var(txn.azp) table per_client
  http-request track-sc1 var(txn.dept) table per_dept
  http-request deny deny_status 429 if { sc_http_req_rate(0) gt 1000000000 }
  http-request deny deny_status 429 if { sc_http_req_rate(1) gt 1000000000 }
  default_backend up
HA
haproxy -f "$D/haproxy.cfg" >/dev/null 2>&1 & PIDS+=($!); PROCS[haproxy-bare]=$!; PROCS[haproxy-jwt-limits]=$!
sleep 2
PROCS[nginx-bare]=$(pgrep -P "$NGINX" | tr '\n' ' ') # the workers
P=/go/v1/api/v1/empregos
declare -A URL=(
  [direct]=http://127.0.0.1:19001/api/v1/empregos [nginx-bare]=http://127.0.0.1:19082$P
  [haproxy-bare]=http://127.0.0.1:19083$P [go-httputil-bare]=http://127.0.0.1:19086$P
  [fasthttp-bare]=http://127.0.0.1:19087$P [fasthttp-headers]=http://127.0.0.1:19088$P
  [haproxy-jwt-limits]=http://127.0.0.1:19084$P [gateway-limits-off]=http://127.0.0.1:19081$P
  [gateway]=http://127.0.0.1:19080$P
)
ORDER=(direct nginx-bare haproxy-bare go-httputil-bare fasthttp-bare fasthttp-headers haproxy-jwt-limits gateway-limits-off gateway)
for t in "${ORDER[@]}"; do
  c=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOK" "${URL[$t]}")
  n=$(curl -s -o /dev/null -w '%{http_code}' "${URL[$t]}")
  echo "check $t: with token $c, without $n"
  [[ $c == 200 ]] || { echo "$t does not answer 200 with a valid token; logs in $D"; exit 1; }
done
for r in $(seq "$ROUNDS"); do for t in "${ORDER[@]}"; do
  # shellcheck disable=SC2086 # PROCS holds several pids for nginx
  before=$(cputicks ${PROCS[$t]}); up=$(cputicks "${PROCS[direct]}")
  wrk -t2 -c"$CONN" -d"$DUR" --latency -H "Authorization: Bearer $TOK" "${URL[$t]}" >"$D/out/$t.$r" 2>&1
  echo "cpu ticks: $(($(cputicks ${PROCS[$t]}) - before)) of $(getconf CLK_TCK) per second" >>"$D/out/$t.$r"
  echo "upstream cpu ticks: $(($(cputicks "${PROCS[direct]}") - up))" >>"$D/out/$t.$r"
done; done
RATE=$(python3 - "$D/out" "$PACED_SHARE" <<'PY'
import sys, os, re, statistics as st
d = sys.argv[1]
rps = [float(re.search(r"Requests/sec:\s+([\d.]+)", open(os.path.join(d, f)).read()).group(1))
       for f in os.listdir(d) if f.rsplit(".", 1)[0] == "haproxy-jwt-limits"]
print(max(int(float(sys.argv[2]) * st.median(rps)), 100))
PY
)
bench_token # the first one may have expired during the wrk rounds
PACED=(haproxy-jwt-limits gateway-limits-off gateway)
for r in $(seq "$ROUNDS"); do for t in "${PACED[@]}"; do
  PACED_AUTHORIZATION="Bearer $TOK" "$D/bin/peerbench" paced "${URL[$t]}" "$RATE" "$CONN" "$DUR" >"$D/paced/$t.$r" 2>&1
done; done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
CONN=$CONN python3 - "$D/out" "$D/paced" "$RATE" "${ORDER[@]}" <<'PY'
import sys, re, os, statistics as st
d, pd, rate, order = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
def ms(s):
    v, u = re.match(r"([\d.]+)(us|ms|s)", s).groups(); return float(v) * {"us": .001, "ms": 1, "s": 1000}[u]
res, stalled = {}, {}
for t in order:
    rps, p50, p99, cpu, upcpu, bad, stalled[t] = [], [], [], [], [], 0, []
    for f in sorted(os.listdir(d)):
        if f.rsplit(".", 1)[0] != t: continue
        x = open(os.path.join(d, f)).read()
        rps.append(float(re.search(r"Requests/sec:\s+([\d.]+)", x).group(1)))
        n = int(re.search(r"(\d+) requests in", x).group(1))
        if n == 0:  # no answer in the whole run: its latencies and CPU per request mean nothing
            stalled[t].append(f.rsplit(".", 1)[1])
            continue
        p50.append(ms(re.search(r"^\s+50%\s+(\S+)", x, re.M).group(1)))
        p99.append(ms(re.search(r"^\s+99%\s+(\S+)", x, re.M).group(1)))
        m = re.search(r"Non-2xx or 3xx responses: (\d+)", x); bad += int(m.group(1)) if m else 0
        ticks, hz = map(int, re.search(r"cpu ticks: (-?\d+) of (\d+)", x).groups())
        cpu.append(ticks / hz * 1e6 / n)
        upcpu.append(int(re.search(r"upstream cpu ticks: (-?\d+)", x).group(1)) / hz * 1e6 / n)
    med = lambda v: st.median(v) if v else float("nan")
    res[t] = (st.median(rps), med(p50), med(p99), bad, min(rps), max(rps), med(cpu), med(upcpu))
base = res["direct"][0]
print(f"| target | req/s | x direct | p50 ms | p99 ms | non-2xx | range req/s | CPU us/req | upstream CPU us/req |")
print("|---|---|---|---|---|---|---|---|---|")
for t in order:
    r = res[t]; print(f"| {t} | {r[0]:.0f} | {r[0]/base:.2f} | {r[1]:.2f} | {r[2]:.2f} | {r[3]} | {r[4]:.0f}-{r[5]:.0f} | {r[6]:.1f} | {r[7]:.1f} |")
g = res["gateway"][0]
print(f"gateway/haproxy-jwt-limits={g/res['haproxy-jwt-limits'][0]:.2f} gateway/go-httputil-bare={g/res['go-httputil-bare'][0]:.2f} gateway/nginx-bare={g/res['nginx-bare'][0]:.2f} gateway/direct={g/base:.2f} gateway-limits-off/fasthttp-bare={res['gateway-limits-off'][0]/res['fasthttp-bare'][0]:.2f}")
for t in order:
    if stalled[t]:
        print(f"stalled: {t} answered no request in round(s) {', '.join(stalled[t])}; its log is in the output directory")
ok = lambda *ts: not any(stalled[t] for t in ts)
said = lambda *ts: "" if ok(*ts) else " (" + "; ".join(f"{t} answered nothing in round(s) {', '.join(stalled[t])}" for t in ts if stalled[t]) + ")"
h, off, ng = res["haproxy-jwt-limits"], res["gateway-limits-off"][0], res["nginx-bare"][0]
print(f"goal: gateway >= 1.0x haproxy-jwt-limits with no non-2xx: {g/h[0]:.2f}x, {res['gateway'][3]} non-2xx, {'met' if g >= h[0] and res['gateway'][3] == 0 and ok('gateway') else 'not met'}{said('gateway')}")
print(f"goal: gateway-limits-off >= 0.9x nginx-bare: {off/ng:.2f}x, {'met' if off >= 0.9*ng and ok('gateway-limits-off') else 'not met'}"
      f" (fasthttp-headers, the same headers without the work: {res['fasthttp-headers'][0]/ng:.2f}x){said('gateway-limits-off')}")
print(f"goal: gateway p99 <= haproxy-jwt-limits p99 under wrk (each at the load it takes): {res['gateway'][2]:.2f} ms vs {h[2]:.2f} ms, {'met' if res['gateway'][2] <= h[2] and ok('gateway') else 'not met'}{said('gateway')}")
paced = {}
for t in ("haproxy-jwt-limits", "gateway-limits-off", "gateway"):
    runs = []
    for f in sorted(os.listdir(pd)):
        if f.rsplit(".", 1)[0] != t: continue
        x = open(os.path.join(pd, f)).read()
        m = dict(re.findall(r"(\w+)=([\d.]+)", x))
        if "p99" not in m:
            sys.exit(f"paced {f}: {x.strip()}")
        runs.append(m)
    med = lambda k: st.median(float(m[k]) for m in runs)
    paced[t] = (med("throughput"), med("p50"), med("p99"), med("p999"), sum(int(m["failed"]) for m in runs))
print(f"paced: {rate} req/s to each target over {os.environ.get('CONN', '64')} connections, open loop")
print("| target at the same load | req/s answered | p50 ms | p99 ms | p99.9 ms | failed |")
print("|---|---|---|---|---|---|")
for t, r in paced.items():
    print(f"| {t} | {r[0]:.0f} | {r[1]:.2f} | {r[2]:.2f} | {r[3]:.2f} | {r[4]} |")
g, hp = paced["gateway"], paced["haproxy-jwt-limits"]
print(f"goal: gateway p99 <= haproxy-jwt-limits p99 at the same load ({rate} req/s, paced): {g[2]:.2f} ms vs {hp[2]:.2f} ms, {'met' if g[2] <= hp[2] and g[4] == 0 else 'not met'}")
PY
