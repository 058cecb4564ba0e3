# Shared by the gateway's load scripts (gateway-peers.sh, gateway-ab.sh): source it, do not run it.
# The functions add the pids of what they start to the caller's PIDS array.

# bench_devidp PORT LOG: starts the development identity provider ($DEVIDP_BIN, else bin/devidp) on
# 127.0.0.1:PORT, waits for it, and sets ISS (its issuer) and TOK (a jobs-admin access token).
bench_devidp() {
  DEVIDP_ADDR=127.0.0.1:$1 DEVIDP_ISSUER_BASE=http://127.0.0.1:$1 "${DEVIDP_BIN:-bin/devidp}" >"$2" 2>&1 &
  PIDS+=($!)
  ISS=http://127.0.0.1:$1/auth/realms/municipal
  local _
  for _ in $(seq 50); do curl -sf -o /dev/null "$ISS/.well-known/openid-configuration" && break; sleep 0.2; done
  bench_token
}

# bench_token: sets TOK to a fresh jobs-admin access token from ISS (devidp's last five minutes).
bench_token() {
  TOK=$(curl -s -d grant_type=client_credentials -d client_id=jobs-admin -d client_secret=jobs-admin-secret \
    "$ISS/protocol/openid-connect/token" | sed -E 's/.*"access_token":"([^"]+)".*/\1/')
}

# bench_gateway PORT UPSTREAM_PORT LIMITS BINARY LOG [NAME=VALUE...]: starts the gateway BINARY on
# 127.0.0.1:PORT routing /go/v1 to the upstream, RATE_LIMIT_ENABLED=LIMITS with limits far above any
# load (Redis db 5), ISS as its issuer and the extra environment given; its pid is in $!.
bench_gateway() {
  local port=$1 up=$2 limits=$3 bin=$4 log=$5
  shift 5
  env HTTP_ADDR=127.0.0.1:$port ROUTES=/go/v1=http://127.0.0.1:$up OIDC_ISSUER_URL="$ISS" \
    REDIS_URL=redis://127.0.0.1:6379/5 RATE_LIMIT_ENABLED="$limits" \
    RATE_LIMIT_PER_CLIENT=1000000000-M RATE_LIMIT_PER_DEPARTMENT=1000000000-M "$@" "$bin" >"$log" 2>&1 &
  PIDS+=($!)
}

# cputicks PID...: the user and system time those processes have spent, in clock ticks.
cputicks() {
  local t=0 p
  for p in "$@"; do t=$((t + $(sed 's/.*) //' "/proc/$p/stat" | awk '{print $12 + $13}'))); done
  echo "$t"
}
