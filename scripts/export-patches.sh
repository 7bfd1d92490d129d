#!/bin/bash
# make patches: write the commits vanilla..HEAD of build/linux into
# patches/ as a git format-patch series with a cover letter, and rewrite
# patches/series (the patches make tree applies, the cover letter not).
#
# The cover letter's subject and text are edited in
# patches/0000-cover-letter.patch itself: an export keeps them and renews
# the rest (shortlog, diffstat, base commit).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
[ -d build/linux/.git ] || die "no build/linux: run 'make tree'"
if [ -n "$(git -C build/linux status --porcelain)" ]; then
	log "warning: build/linux has uncommitted changes; they are not exported"
fi
cover=patches/0000-cover-letter.patch
subject="*** SUBJECT HERE ***"
blurb=$(mktemp)
trap 'rm -f "$blurb"' EXIT
echo "*** BLURB HERE ***" >"$blurb"
if [ -f "$cover" ]; then
	# Subject: the header line (unfolded); text: from the blank line after
	# the headers to the shortlog ("Author Name (N):").
	subject=$(awk '/^Subject: / { sub(/^Subject: \[PATCH [0-9]+\/[0-9]+\] /, ""); s = $0; f = 1; next }
		f && /^ / { sub(/^ /, ""); s = s " " $0; next } { f = 0 } END { print s }' "$cover")
	author=$(git -C build/linux log -1 --format=%an HEAD)
	awk -v a="$author" 'h && index($0, a " (") == 1 { exit } h { print } !h && /^$/ { h = 1 }' \
		"$cover" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$blurb"
fi
rm -f patches/*.patch
git -C build/linux format-patch -q --no-signature --cover-letter --base=vanilla \
	-o "$PWD/patches" vanilla..HEAD
SUBJECT=$subject perl -0pi -e 's/\*\*\* SUBJECT HERE \*\*\*/$ENV{SUBJECT}/' "$cover"
perl -0pi -e 'BEGIN { local $/; open(F, "<", shift) or die; $b = <F>; close F }
	s/\*\*\* BLURB HERE \*\*\*\n/$b\n/' "$blurb" "$cover"
(cd patches && ls [0-9]*.patch | grep -v '^0000-cover-letter' || true) > patches/series
log "exported $(wc -l < patches/series) patches and the cover letter to patches/"
