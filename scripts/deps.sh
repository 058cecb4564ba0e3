#!/usr/bin/env bash
# Makes sure PostgreSQL and Redis answer where `make run` and `make test`
# expect them: PostgreSQL on PGHOST_ADDR (default 127.0.0.1:5432) accepting
# user postgres without a password, Redis on REDIS_ADDR (default
# 127.0.0.1:6379). For each, the first step that applies:
#   1. it already answers: nothing to do;
#   2. it is installed but stopped: start it;
#   3. it is missing and apt-get may be used (root, or sudo without a
#      password): install it with apt-get, then start it;
#   4. a Docker engine answers: docker compose up -d postgres redis, with
#      deploy/compose/deps.yml publishing them on loopback;
#   5. otherwise: say what to do, and exit 1.
# Only loopback addresses are set up; any other address is only checked.
# PGTEST_ADMIN_URL and REDISTEST_URL, the tests' own variables, give the
# addresses when PGHOST_ADDR and REDIS_ADDR are not set.
#
# With --browser (make test) it also makes sure a Chromium answers for the
# API portal's browser test (tools/e2e): chromium on PATH, or $CHROMIUM, or
# else it installs Debian's chromium with apt-get.
#
# Usage: scripts/deps.sh [--dry-run] [--browser]
#   --dry-run  print the commands it would run instead of running them.
#   --browser  also a headless Chromium for the browser test.
# Used by `make run`, `make test`, `make test-short` and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

# addr_of prints host:port of a postgres:// or redis:// URL, with the default port.
addr_of() {
  local rest=${1#*://}
  rest=${rest##*@}
  rest=${rest%%[/?]*}
  case "$rest" in *:*) echo "$rest" ;; *) echo "$rest:$2" ;; esac
}
# The tests' own variables name the servers when only they are set.
if [ -z "${PGHOST_ADDR:-}" ] && [ -n "${PGTEST_ADMIN_URL:-}" ]; then PGHOST_ADDR="$(addr_of "$PGTEST_ADMIN_URL" 5432)"; fi
if [ -z "${REDIS_ADDR:-}" ] && [ -n "${REDISTEST_URL:-}" ]; then REDIS_ADDR="$(addr_of "$REDISTEST_URL" 6379)"; fi
PGHOST_ADDR="${PGHOST_ADDR:-127.0.0.1:5432}"
REDIS_ADDR="${REDIS_ADDR:-127.0.0.1:6379}"
DEPS_WAIT="${DEPS_WAIT:-60}" # seconds to wait for a server it started
DRY_RUN=""
BROWSER=""
for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY_RUN=1 ;;
    --browser) BROWSER=1 ;;
    *) echo "usage: $0 [--dry-run] [--browser]" >&2; exit 2 ;;
  esac
done
COMPOSE=(docker compose -f docker-compose.yml -f deploy/compose/deps.yml)

say() { printf 'deps: %s\n' "$*"; }

# run runs its arguments, or prints them under --dry-run.
run() {
  if [ -n "$DRY_RUN" ]; then say "would run: $*"; return 0; fi
  say "running: $*"
  "$@"
}

have() { command -v "$1" >/dev/null 2>&1; }
host_of() { echo "${1%:*}"; }
port_of() { echo "${1##*:}"; }
loopback() { case "$(host_of "$1")" in 127.0.0.1 | localhost) return 0 ;; *) return 1 ;; esac; }

# reachable reports whether something accepts TCP connections at host:port.
reachable() { timeout 2 bash -c "exec 3<>/dev/tcp/$(host_of "$1")/$(port_of "$1")" 2>/dev/null; }

# as_root runs its arguments as root: directly when root, else by sudo
# without a password. It fails (running nothing) when neither is possible.
as_root() {
  if [ "$(id -u)" = 0 ]; then run "$@"
  elif have sudo && sudo -n true 2>/dev/null; then run sudo "$@"
  else return 1; fi
}
can_root() { [ "$(id -u)" = 0 ] || { have sudo && sudo -n true 2>/dev/null; }; }

apt_updated=""
apt_install() {
  have apt-get && can_root || return 1
  if [ -z "$apt_updated" ]; then as_root apt-get update -qq; apt_updated=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

docker_engine() { have docker && docker info >/dev/null 2>&1 && docker compose version >/dev/null 2>&1; }

# wait_for waits until addr answers (not under --dry-run).
wait_for() {
  [ -n "$DRY_RUN" ] && return 0
  for _ in $(seq 1 "$((DEPS_WAIT * 2))"); do reachable "$1" && return 0; sleep 0.5; done
  say "$2 did not answer at $1 within ${DEPS_WAIT}s"
  return 1
}

# pg_cluster prints "<version> <name>" of the Debian cluster on port $1.
pg_cluster() {
  have pg_lsclusters || return 1
  pg_lsclusters -h 2>/dev/null | awk -v port="$1" '$3 == port { print $1, $2; found = 1; exit } END { exit !found }'
}

# pg_start starts the installed Debian cluster on the port of PGHOST_ADDR.
pg_start() {
  local cluster
  cluster="$(pg_cluster "$(port_of "$PGHOST_ADDR")")" || return 1
  have pg_ctlcluster || return 1
  # shellcheck disable=SC2086 # "<version> <name>" are two arguments
  as_root pg_ctlcluster --skip-systemctl-redirect $cluster start || run pg_ctlcluster --skip-systemctl-redirect $cluster start
}

# pg_trust makes the local cluster accept user postgres without a password on
# loopback, as a fresh Debian cluster asks for one over TCP.
pg_trust() {
  [ -n "$DRY_RUN" ] && return 0
  have psql || return 0 # nothing to check with; the compose server trusts loopback
  local check=(psql -h "$(host_of "$PGHOST_ADDR")" -p "$(port_of "$PGHOST_ADDR")" -U postgres -d postgres -w -tAc 'select 1')
  local out cluster hba
  out="$(PGCONNECT_TIMEOUT=3 "${check[@]}" 2>&1)" && return 0
  case "$out" in
    *password*) ;;
    *)
      # Not a question of passwords (too many clients, still starting...):
      # leave the server alone and let the tests report it.
      say "psql could not check PostgreSQL at $PGHOST_ADDR: ${out%%$'\n'*}"
      return 0
      ;;
  esac
  cluster="$(pg_cluster "$(port_of "$PGHOST_ADDR")")" || return 1
  hba="/etc/postgresql/${cluster% *}/${cluster#* }/pg_hba.conf"
  say "PostgreSQL asks for a password on loopback; setting trust for it in $hba"
  # shellcheck disable=SC2086
  as_root sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$hba" &&
    as_root pg_ctlcluster --skip-systemctl-redirect $cluster reload || return 1
  sleep 1
  PGCONNECT_TIMEOUT=3 "${check[@]}" >/dev/null 2>&1
}

# ensure name addr start install compose_service: the steps of the header.
ensure() {
  local name=$1 addr=$2 start=$3 install=$4 service=$5
  if reachable "$addr"; then say "$name answers at $addr"; return 0; fi
  if ! loopback "$addr"; then say "$name does not answer at $addr, which is not on this machine"; return 1; fi
  say "$name does not answer at $addr"
  if $start; then wait_for "$addr" "$name"; return; fi
  if $install; then
    if [ -n "$DRY_RUN" ]; then say "would start $name once installed"; return 0; fi
    if $start; then wait_for "$addr" "$name"; return; fi
  fi
  if docker_engine; then
    run "${COMPOSE[@]}" up -d "$service"
    wait_for "$addr" "$name"
    return
  fi
  return 1
}

redis_start() {
  have redis-server || return 1
  run redis-server --daemonize yes --bind "$(host_of "$REDIS_ADDR")" --port "$(port_of "$REDIS_ADDR")" --save "" --appendonly no
}

failed=""
if ensure PostgreSQL "$PGHOST_ADDR" pg_start "apt_install postgresql postgresql-contrib" postgres; then
  if ! pg_trust; then
    say "PostgreSQL at $PGHOST_ADDR does not accept user postgres without a password"
    failed=1
  fi
else
  failed=1
  cat >&2 <<MSG
PostgreSQL does not answer at $PGHOST_ADDR, and it could not be set up here
(not installed, no apt-get as root or with sudo without a password, no Docker engine).
Do one of:
  sudo apt-get install postgresql postgresql-contrib   # then run this again
  ${COMPOSE[*]} up -d postgres
or set PGHOST_ADDR to a server where user postgres connects without a password
(and PGTEST_ADMIN_URL for the tests).
MSG
fi
if ! ensure Redis "$REDIS_ADDR" redis_start "apt_install redis-server" redis; then
  failed=1
  cat >&2 <<MSG
Redis does not answer at $REDIS_ADDR, and it could not be set up here
(not installed, no apt-get as root or with sudo without a password, no Docker engine).
Do one of:
  sudo apt-get install redis-server   # then run this again
  ${COMPOSE[*]} up -d redis
or set REDIS_ADDR to a running Redis (and REDISTEST_URL for the tests).
MSG
fi
if [ -n "$BROWSER" ]; then
  if [ -n "${CHROMIUM:-}" ] || have chromium || have chromium-browser; then
    say "Chromium: ${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}"
  # Without recommends (udev, upower, avahi, a printer dialog: a desktop's),
  # but with the two a page's rendering uses.
  elif apt_install chromium fonts-liberation libgl1-mesa-dri; then
    say "Chromium ${DRY_RUN:+would be }installed"
  else
    failed=1
    cat >&2 <<MSG
No Chromium for the API portal's browser test, and it could not be installed
here (no apt-get as root or with sudo without a password). Do one of:
  sudo apt-get install chromium   # then run this again
or set CHROMIUM to a Chromium or Chrome binary.
MSG
  fi
fi
[ -z "$failed" ]
