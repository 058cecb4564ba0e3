#!/bin/sh
# Regenerates pt_br.txt.gz from Debian's Brazilian Portuguese word list
# (package wbrazilian, from br.ispell, GPL-2), fetched with apt-get download
# so nothing is installed. Run from anywhere; needs apt-get, dpkg-deb and go.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download wbrazilian
dpkg-deb -x wbrazilian_*.deb root
cd "$here"
go run ./generate -in "$work/root/usr/share/dict/brazilian" -out pt_br.txt.gz
dpkg-deb -f "$work"/wbrazilian_*.deb Package Version > SOURCE
