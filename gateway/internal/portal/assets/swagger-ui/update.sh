#!/bin/sh
# Replaces the committed Swagger UI files with those of swagger-ui-dist
# VERSION from npm, checking the tarball against the registry's integrity
# hash. Run from anywhere; commit the result with the new VERSION below and
# in SOURCE. Only the files the portal serves (and the licence) are kept.
set -eu
VERSION=${1:-5.35.0}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
npm pack --silent "swagger-ui-dist@$VERSION" >/dev/null
want=$(npm view "swagger-ui-dist@$VERSION" dist.integrity)
got="sha512-$(openssl dgst -sha512 -binary "swagger-ui-dist-$VERSION.tgz" | base64 -w0)"
[ "$want" = "$got" ] || { echo "integrity mismatch: registry $want, tarball $got" >&2; exit 1; }
tar xzf "swagger-ui-dist-$VERSION.tgz"
for f in LICENSE NOTICE package.json swagger-ui-bundle.js swagger-ui-bundle.js.LICENSE.txt swagger-ui.css favicon-32x32.png; do
	cp "package/$f" "$here/$f"
done
echo "swagger-ui-dist $VERSION ($want)"
