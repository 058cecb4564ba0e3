#!/usr/bin/env bash
# Runs every Go fuzz target of the platform for FUZZTIME each (default 5s;
# `make test` runs them this short way, `make fuzz` for longer). Each target
# starts from its seed corpus: the hostile cases of testdata/hostile and the
# crashers kept in the package's testdata/fuzz. A failure (a 5xx, a panic, a
# broken invariant) leaves the input that caused it in testdata/fuzz/<target>
# of the package: commit it, it then runs in every `go test` as a seed.
set -uo pipefail
cd "$(dirname "$0")/.."

FUZZTIME="${FUZZTIME:-5s}"
targets=(
  "./pkg/problem FuzzDecodeJSON"
  "./pkg/auth FuzzAuthenticate"
  "./gateway/internal/route FuzzCanonicalPathsStayInTheirRoute"
  "./services/jobs/internal/jobs FuzzUniqueName"
  "./services/jobs/internal/http FuzzBodies"
  "./services/search-admin/internal/http FuzzServicoBodies"
  "./services/search-admin/internal/http FuzzSearch"
)

failed=()
start=$SECONDS
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  echo "fuzz $name ($pkg) for $FUZZTIME"
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "$pkg"; then
    failed+=("$name")
  fi
done
echo "fuzzing took $((SECONDS - start))s for ${#targets[@]} targets"
if ((${#failed[@]} > 0)); then
  echo "fuzz targets failed: ${failed[*]} (the inputs are in the packages' testdata/fuzz)" >&2
  exit 1
fi
