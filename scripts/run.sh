#!/usr/bin/env bash
# Runs the whole stack in the foreground against the local Postgres and Redis:
# devidp :8090, search-admin :8081, jobs :8082 and the gateway :8080. Creates
# the databases and applies migrations first. Ctrl-C stops everything.
# Any variable below can be overridden from the environment, e.g.
#   RATE_LIMIT_PER_CLIENT=5-M make run
set -euo pipefail
cd "$(dirname "$0")/.."

PGHOST_ADDR="${PGHOST_ADDR:-127.0.0.1:5432}"
REDIS_ADDR="${REDIS_ADDR:-127.0.0.1:6379}"
export LOG_FORMAT="${LOG_FORMAT:-text}"
export DEVIDP_ADDR="${DEVIDP_ADDR:-127.0.0.1:8090}"
export DEVIDP_ISSUER_BASE="${DEVIDP_ISSUER_BASE:-http://${DEVIDP_ADDR}}"
export OIDC_ISSUER_URL="${OIDC_ISSUER_URL:-${DEVIDP_ISSUER_BASE}/auth/realms/municipal}"
export REDIS_URL="${REDIS_URL:-redis://${REDIS_ADDR}/0}"
SEARCH_ADMIN_ADDR="${SEARCH_ADMIN_ADDR:-127.0.0.1:8081}"
JOBS_ADDR="${JOBS_ADDR:-127.0.0.1:8082}"
GATEWAY_ADDR="${GATEWAY_ADDR:-127.0.0.1:8080}"
SEARCH_ADMIN_DATABASE_URL="${SEARCH_ADMIN_DATABASE_URL:-postgres://postgres@${PGHOST_ADDR}/search_admin?sslmode=disable}"
JOBS_DATABASE_URL="${JOBS_DATABASE_URL:-postgres://postgres@${PGHOST_ADDR}/jobs?sslmode=disable}"
export ROUTES="${ROUTES:-/search=http://${SEARCH_ADMIN_ADDR},/go/v1=http://${JOBS_ADDR}}"

# Start, install or run in containers whatever of Postgres and Redis is missing.
PGHOST_ADDR="$PGHOST_ADDR" REDIS_ADDR="$REDIS_ADDR" ./scripts/deps.sh

pids=()
stop() {
  trap - INT TERM EXIT
  echo; echo "stopping..."
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop INT TERM EXIT

start() { # name, then the command
  local name=$1; shift
  "$@" > >(sed -u "s/^/[$name] /") 2>&1 &
  pids+=($!)
}

wait_ready() { # name, url
  for _ in $(seq 1 100); do
    if curl -fsS -o /dev/null "$2" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "$1 did not become ready at $2" >&2
  return 1
}

start devidp ./bin/devidp
wait_ready devidp "${DEVIDP_ISSUER_BASE}/auth/realms/municipal/.well-known/openid-configuration"

if [ -x bin/search-admin ]; then
  DATABASE_URL="$SEARCH_ADMIN_DATABASE_URL" ./bin/search-admin migrate -create-database
  start search-admin env HTTP_ADDR="$SEARCH_ADMIN_ADDR" DATABASE_URL="$SEARCH_ADMIN_DATABASE_URL" ./bin/search-admin serve
  wait_ready search-admin "http://${SEARCH_ADMIN_ADDR}/readyz"
fi
if [ -x bin/jobs ]; then
  DATABASE_URL="$JOBS_DATABASE_URL" ./bin/jobs migrate -create-database
  start jobs env HTTP_ADDR="$JOBS_ADDR" DATABASE_URL="$JOBS_DATABASE_URL" ./bin/jobs serve
  wait_ready jobs "http://${JOBS_ADDR}/readyz"
fi
if [ -x bin/gateway ]; then
  start gateway env HTTP_ADDR="$GATEWAY_ADDR" ./bin/gateway
  wait_ready gateway "http://${GATEWAY_ADDR}/readyz"
fi

cat <<MSG

The stack is up (Ctrl-C stops it):
  gateway       http://${GATEWAY_ADDR}   (/search -> search-admin, /go/v1 -> jobs)
  search-admin  http://${SEARCH_ADMIN_ADDR}
  jobs          http://${JOBS_ADDR}
  devidp        ${DEVIDP_ISSUER_BASE}   (development identity provider, not for production)

Get a token and call the API:
  TOKEN=\$(curl -s -d grant_type=client_credentials -d client_id=jobs-admin -d client_secret=jobs-admin-secret \\
    ${OIDC_ISSUER_URL}/protocol/openid-connect/token | jq -r .access_token)
  curl -H "Authorization: Bearer \$TOKEN" http://${GATEWAY_ADDR}/go/v1/api/v1/escolaridades

MSG
wait -n "${pids[@]}"
echo "a program exited; stopping the stack" >&2
exit 1
