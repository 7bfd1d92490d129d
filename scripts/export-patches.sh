#!/bin/bash
# make patches: write the commits vanilla..HEAD of build/linux into
# patches/ as a git format-patch series, and rewrite patches/series.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
[ -d build/linux/.git ] || die "no build/linux: run 'make tree'"
if [ -n "$(git -C build/linux status --porcelain)" ]; then
	log "warning: build/linux has uncommitted changes; they are not exported"
fi
rm -f patches/*.patch
git -C build/linux format-patch -q --no-signature -o "$PWD/patches" vanilla..HEAD
(cd patches && ls *.patch 2>/dev/null || true) > patches/series
log "exported $(wc -l < patches/series) patches to patches/"
