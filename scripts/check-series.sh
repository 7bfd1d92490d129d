#!/bin/bash
# make check-series: what linux-mm's bots would check, on every commit
# vanilla..HEAD of build/linux:
#   am          patches/ applies with git am to a clean vanilla tree and
#               gives build/linux HEAD's tree (so patches/ is what was built)
#   checkpatch  checkpatch --strict: 0 errors, 0 warnings
#   CONFIG      bzImage, no compiler warning, with the guest config (full)
#               and with CONFIG_MEMCG=n, CONFIG_MEMCG_V1=n, CONFIG_LRU_GEN=n,
#               CONFIG_JUMP_LABEL=n
#   boot        the full bzImage boots with an initramfs of the commit's own
#               tree (its selftests) and runs scenario-global on both LRUs
#               (--expect none: reclaim with a soft limit set, no assertion
#               of placement) with no kernel splat
#   w1          W=1 on the .c files the commit touches: no warning that its
#               parent did not have
#   htmldocs    Sphinx (make SPHINXDIRS=admin-guide htmldocs) on the last
#               commit: no warning or error in an .rst file the series
#               changes (python3-sphinx, installed by install-deps.sh docs)
#
# Builds run in a worktree of their own (build/src/bisect), one output
# directory per config, so build/linux is left alone. A result is kept in
# bench/results/check-series.txt, keyed by the commit's tree (for
# checkpatch, with its changelog) and, for builds and boots, by the tree
# without tools/ and Documentation/ and by config/guest.config: a rerun
# skips what already passed for the same code (FORCE=1 redoes it), so
# the matrix (about 55 builds, most of them long after a header change)
# can be completed over several runs.
# bench/results/CHECK-SERIES.md is the table of the series as it stands.
#
#   CONFIGS   the configs, in order (default: full nomemcg nomemcgv1 nolrugen nojumplabel)
#   STEPS     the steps (default: am checkpatch build boot w1 htmldocs)
#   BUDGET    minutes after which no new build is started (default: none)
#   FROM, TO  the commits FROM..TO (default vanilla..HEAD)
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
. scripts/lib.sh
[ -d build/linux/.git ] || die "no build/linux: run 'make tree'"
# one run at a time: they share the worktree
exec 9>build/check-series.lock
flock -n 9 || die "another check-series.sh is running (build/check-series.lock)"

export CCACHE_DIR=$TOP/build/ccache CCACHE_MAXSIZE=4G
results=bench/results/check-series.txt
configs=${CONFIGS:-full nomemcg nomemcgv1 nolrugen nojumplabel}
steps=" ${STEPS:-am checkpatch build boot w1 htmldocs} "
deadline=$((SECONDS + ${BUDGET:-100000} * 60))
cfghash=$(sha1sum config/guest.config | cut -c1-12)
commits=$(git -C build/linux rev-list --reverse "${FROM:-vanilla}..${TO:-HEAD}")
[ -n "$commits" ] || die "empty series"
touch "$results"
declare -A extra=(
	[full]=""
	[nomemcg]="CONFIG_MEMCG=n"
	[nomemcgv1]="CONFIG_MEMCG_V1=n"
	[nolrugen]="CONFIG_LRU_GEN=n"
	[nojumplabel]="CONFIG_JUMP_LABEL=n"
)
wt=build/src/bisect
if [ ! -d "$wt" ]; then
	git -C build/linux worktree prune
	git -C build/linux worktree add -q --detach "$TOP/$wt" vanilla
fi

tree() { git -C build/linux rev-parse "$1^{tree}" | cut -c1-12; }
# ktree COMMIT: what a kernel build depends on, the tree without tools/, MAINTAINERS and
# Documentation/ (so a selftests patch builds what its parent built)
ktree() {
	git -C build/linux ls-tree "$1" | grep -Pv '\t(tools|Documentation|MAINTAINERS)$' | sha1sum | cut -c1-12
}
subject() { git -C build/linux log -1 --format=%s "$1"; }
# ptree COMMIT: what checkpatch reads, the tree and the changelog
ptree() {
	echo "$(tree "$1")-$(git -C build/linux log -1 --format=%B "$1" | sha1sum | cut -c1-8)"
}

# passed KEY STEP: STEP already passed for KEY
passed() { [ -z "${FORCE:-}" ] && grep -q "^$1 $2 ok " "$results"; }

# record KEY STEP ok|FAILED SUBJECT
record() {
	local f
	f=$(mktemp)
	grep -v "^$1 $2 " "$results" >"$f" || true
	echo "$1 $2 $3 $(date -u +%Y-%m-%d_%H:%M) $4" >>"$f"
	mv "$f" "$results"
	if [ "$3" = ok ]; then log "$2 ok: $4"; else log "$2 FAILED: $4"; fi
}

checkout() { git -C "$wt" checkout -q --detach "$1"; }

step_am() {
	local d=build/src/am key
	key=$(tree HEAD)
	rm -rf "$d"
	git -C build/linux worktree prune
	git -C build/linux worktree add -q --detach "$TOP/$d" vanilla
	if (cd "$d" && sed 's|^|../../../patches/|' ../../../patches/series |
		xargs git -c user.name=check -c user.email=check@localhost am -q) &&
	   [ "$(git -C "$d" rev-parse 'HEAD^{tree}' | cut -c1-12)" = "$key" ]; then
		record "$key" am ok "patches/ on vanilla = build/linux HEAD"
	else
		record "$key" am FAILED "patches/ does not apply to vanilla or differs from build/linux HEAD"
	fi
	git -C build/linux worktree remove --force "$TOP/$d"
}

step_checkpatch() {	# COMMIT
	local out
	# --strict exits non-zero on CHECKs too; the bar is 0 errors, 0 warnings.
	# UNKNOWN_COMMIT_ID: the tree is the Debian tarball in one commit, so
	# every upstream commit a changelog cites is unknown to it.
	out=$(cd build/linux && ./scripts/checkpatch.pl --strict --ignore UNKNOWN_COMMIT_ID -g "$1" 2>&1 || true)
	if grep -q '^total: 0 errors, 0 warnings' <<<"$out"; then
		record "$(ptree "$1")" checkpatch ok "$(subject "$1")"
	else
		record "$(ptree "$1")" checkpatch FAILED "$(subject "$1")"
	fi
}

configure() {	# CONFIG OUTDIR
	local out=$2
	[ "$(cat "$out/.cfghash" 2>/dev/null)" = "$cfghash" ] && return 0
	mkdir -p "$out"
	printf '%s\n' ${extra[$1]} >"$out/extra.config"
	make -s -C "$wt" O="$TOP/$out" CC="ccache gcc" tinyconfig >/dev/null
	(cd "$wt" && KCONFIG_CONFIG="$TOP/$out/.config" scripts/kconfig/merge_config.sh \
		-m -O "$TOP/$out" "$TOP/$out/.config" "$TOP/config/guest.config" "$TOP/$out/extra.config") >/dev/null
	make -s -C "$wt" O="$TOP/$out" CC="ccache gcc" olddefconfig >/dev/null
	check_config "$out/.config" "$out/extra.config"
	echo "$cfghash" >"$out/.cfghash"
}

step_build() {	# CONFIG COMMIT
	local out=build/out/bisect-$1 key t0=$SECONDS
	key=$(ktree "$2")-$cfghash
	passed "$key" "$1" && return 0
	if [ $SECONDS -ge $deadline ]; then
		log "budget spent: $1 not built for $(subject "$2")"; return 0
	fi
	checkout "$2"
	configure "$1" "$out"
	log "building bzImage ($1): $(subject "$2")"
	if make -s -C "$wt" O="$TOP/$out" CC="ccache gcc" -j"$(nproc)" bzImage >"$out/build.log" 2>&1 &&
	   ! grep -q 'warning:' "$out/build.log"; then
		record "$key" "$1" ok "$(subject "$2") ($((SECONDS - t0)) s)"
	else
		cp "$out/build.log" "$out/build-$key.log"
		record "$key" "$1" FAILED "$(subject "$2") (log $out/build-$key.log)"
	fi
}

# The full bzImage of COMMIT boots and reclaims on both LRUs, in the
# guest of run-guest.sh (variant bisect-full: build/out/bisect-full,
# whose initramfs make-initramfs.sh builds from this worktree).
step_boot() {	# COMMIT
	local out=build/out/bisect-full key lru t0=$SECONDS ok=1
	key=$(ktree "$1")-$cfghash
	passed "$key" boot && return 0
	if [ $SECONDS -ge $deadline ]; then
		log "budget spent: not booted: $(subject "$1")"; return 0
	fi
	checkout "$1"
	configure full "$out"
	log "booting the full bzImage: $(subject "$1")"
	make -s -C "$wt" O="$TOP/$out" CC="ccache gcc" -j"$(nproc)" bzImage >"$out/build.log" 2>&1 &&
		bash scripts/make-initramfs.sh bisect-full >"$out/boot.log" 2>&1 || ok=0
	for lru in classic mglru; do
		[ $ok = 1 ] && bash scripts/run-guest.sh --expect none bisect-full \
			"scenario-global-$lru" >>"$out/boot.log" 2>&1 || ok=0
	done
	if [ $ok = 1 ]; then
		record "$key" boot ok "$(subject "$1") ($((SECONDS - t0)) s)"
	else
		cp "$out/boot.log" "$out/boot-$key.log"
		record "$key" boot FAILED "$(subject "$1") (log $out/boot-$key.log, build/runs/bisect-full/)"
	fi
}

# w1_warnings COMMIT FILE.o...: the W=1 warnings of those objects at COMMIT,
# without line numbers, so that moved code does not count as new.
w1_warnings() {
	local c=$1 out=build/out/bisect-full
	shift
	checkout "$c"
	touch "${@/#/$wt/}" 2>/dev/null || true
	# a build that fails is no clean bill: the caller sees the failure
	make -C "$wt" O="$TOP/$out" CC="ccache gcc" -j"$(nproc)" W=1 "${@/%.c/.o}" \
		>"$out/w1.log" 2>&1 || { echo "BUILD FAILED: $c (see $out/w1.log)"; return 1; }
	grep 'warning:' "$out/w1.log" | sed -E 's/:[0-9]+:[0-9]+:/:/' | sort -u || true
}

step_w1() {	# COMMIT
	local key files before after new
	key=$(ktree "$1")-$cfghash
	passed "$key" w1 && return 0
	mapfile -t files < <(git -C build/linux diff --name-only "$1^" "$1" -- '*.c' ':!tools/')
	if [ ${#files[@]} -eq 0 ]; then
		record "$key" w1 ok "$(subject "$1") (no kernel .c file)"
		return 0
	fi
	configure full build/out/bisect-full
	# a file the commit adds has no warnings before it
	if ! before=$(w1_warnings "$1^" $(for f in "${files[@]}"; do
			git -C build/linux cat-file -e "$1^:$f" 2>/dev/null && echo "$f"; done)) ||
	   ! after=$(w1_warnings "$1" "${files[@]}"); then
		record "$key" w1 FAILED "$(subject "$1") (W=1 build failed, build/out/bisect-full/w1.log)"
		return 0
	fi
	new=$(comm -13 <(echo "$before") <(echo "$after") | sed '/^$/d')
	if [ -z "$new" ]; then
		record "$key" w1 ok "$(subject "$1") (${files[*]})"
	else
		echo "$new" >"build/out/bisect-full/w1-$(tree "$1").log"
		record "$key" w1 FAILED "$(subject "$1") ($(wc -l <<<"$new") new, build/out/bisect-full/w1-$(tree "$1").log)"
	fi
}

# Sphinx on admin-guide/ (where the changed .rst files are) at vanilla and
# at the last commit; a warning naming a changed file that vanilla did not
# have fails.
step_htmldocs() {
	local last key rst out=build/out/htmldocs before after new
	last=$(echo "$commits" | tail -1)
	key=$(tree "$last")
	passed "$key" htmldocs && return 0
	need sphinx-build "python3-sphinx (bash scripts/install-deps.sh docs)"
	mapfile -t rst < <(git -C build/linux diff --name-only vanilla "$last" -- '*.rst')
	[ ${#rst[@]} -gt 0 ] || { record "$key" htmldocs ok "no .rst file changed"; return 0; }
	docs() {
		checkout "$1"
		rm -rf "$out"
		make -C "$wt" O="$TOP/$out" SPHINXDIRS=admin-guide htmldocs 2>&1 |
			grep -E 'WARNING|ERROR' | grep -F "$(printf '%s\n' "${rst[@]##*/}")" |
			sed -E 's|.*/Documentation/|Documentation/|; s/:[0-9]+:/:/' | sort -u || true
	}
	log "htmldocs: Sphinx on admin-guide/ at vanilla and at the last commit (a few minutes each)"
	before=$(docs vanilla)
	after=$(docs "$last")
	# no warning because Sphinx built nothing is no pass
	for r in "${rst[@]}"; do
		r=${r#Documentation/}
		[ -f "$out/Documentation/output/${r%.rst}.html" ] ||
			after="$after${after:+$'\n'}Documentation/$r: no HTML built"
	done
	new=$(comm -13 <(echo "$before") <(echo "$after" | sort) | sed '/^$/d')
	if [ -z "$new" ]; then
		record "$key" htmldocs ok "${rst[*]}"
	else
		echo "$new" >build/out/htmldocs.log
		record "$key" htmldocs FAILED "$(wc -l <<<"$new") new (build/out/htmldocs.log)"
	fi
}

[[ $steps == *" am "* ]] && step_am
for c in $commits; do
	[[ $steps == *" checkpatch "* ]] && step_checkpatch "$c"
done
if [[ $steps == *" build "* ]]; then
	for cfg in $configs; do
		[ -n "${extra[$cfg]+x}" ] || die "unknown config '$cfg'; valid: ${!extra[*]}"
		for c in $commits; do step_build "$cfg" "$c"; done
	done
fi
if [[ $steps == *" boot "* ]]; then
	for c in $commits; do step_boot "$c"; done
fi
if [[ $steps == *" w1 "* ]]; then
	for c in $commits; do step_w1 "$c"; done
fi
[[ $steps == *" htmldocs "* ]] && step_htmldocs

# The table of the series as it stands: every check of every commit.
bad=0 missing=0
{
	echo "# check-series: the series as linux-mm's bots would check it"
	echo
	echo "Command: \`make check-series\` (scripts/check-series.sh); table written"
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), build/linux HEAD \`$(git -C build/linux log -1 --format='%h %s')\`,"
	echo "config/guest.config $cfghash. A cell: the result and when (UTC) it was"
	echo "last checked for this very code, or a dash where it has not been."
	echo
	am=$(grep "^$(tree HEAD) am " "$results" | awk '{ sub(/_/, " ", $4); print $3, $4 }' || true)
	echo "git am of patches/ on vanilla: ${am:-not run}"
	echo
	hdr="| commit | checkpatch |"; sep="|---|---|"
	for cfg in full nomemcg nomemcgv1 nolrugen nojumplabel boot w1; do hdr="$hdr $cfg |"; sep="$sep---|"; done
	echo "$hdr"; echo "$sep"
	for c in $commits; do
		line="| $(subject "$c") |"
		for s in checkpatch full nomemcg nomemcgv1 nolrugen nojumplabel boot w1; do
			k=$(ktree "$c")-$cfghash
			[ "$s" = checkpatch ] && k=$(ptree "$c")
			r=$(grep "^$k $s " "$results" | awk '{ sub(/_/, " ", $4); print $3, $4 }' || true)
			line="$line ${r:--} |"
		done
		echo "$line"
	done
	echo
	h=$(grep "^$(tree "$(echo "$commits" | tail -1)") htmldocs " "$results" | awk '{ sub(/_/, " ", $4); print $3, $4 }' || true)
	echo "htmldocs (Sphinx, admin-guide/, changed .rst files): ${h:-not run}"
} >bench/results/CHECK-SERIES.md
grep -q FAILED bench/results/CHECK-SERIES.md && bad=1
grep -Eq 'not run|\| - \|' bench/results/CHECK-SERIES.md && missing=1
log "table in bench/results/CHECK-SERIES.md"
if [ $bad = 1 ]; then
	log "series: some checks FAILED"; exit 1
elif [ $missing = 1 ]; then
	log "series: every check run passed, some not run yet (BUDGET, CONFIGS or STEPS)"; exit 1
fi
log "series: every commit passes every check"
