#!/bin/bash
# Bisectability and style of the series: every commit vanilla..HEAD of
# build/linux must pass checkpatch --strict and build with the guest config
# and with CONFIG_MEMCG=n, CONFIG_MEMCG_V1=n, CONFIG_LRU_GEN=n and
# CONFIG_JUMP_LABEL=n. Builds in
# a separate worktree (build/src/bisect) so build/linux is left alone.
# CONFIGS narrows the configs. Long: about 2 min per commit and config after the first build.
# TARGETS (default bzImage) narrows what is built, e.g. TARGETS="mm/".
# FROM (default vanilla) checks only the commits after it, e.g. FROM=HEAD~2;
# TO (default HEAD) the last one, e.g. TO=v4split for a branch not checked out.
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
. scripts/lib.sh

# ccache (as build-kernel.sh): the guest config's builds hit what the
# patched kernel compiled; the other configs differ in every object.
export CCACHE_DIR=$TOP/build/ccache CCACHE_MAXSIZE=4G
wt=build/src/bisect
[ -d "$wt" ] || git -C build/linux worktree add -q --detach "$TOP/$wt" vanilla
commits=$(git -C build/linux rev-list --reverse "${FROM:-vanilla}..${TO:-HEAD}")
[ -n "$commits" ] || die "empty series"

declare -A extra=(
	[full]=""
	[nomemcg]="CONFIG_MEMCG=n"
	[nomemcgv1]="CONFIG_MEMCG_V1=n"
	[nolrugen]="CONFIG_LRU_GEN=n"
	[nojumplabel]="CONFIG_JUMP_LABEL=n"
)
bad=0
for c in $commits; do
	subj=$(git -C build/linux log -1 --format=%s "$c")
	# --strict exits non-zero on CHECKs too; the bar is 0 errors, 0 warnings.
	# The output is kept whole first: grep -q closing the pipe early would
	# kill checkpatch with SIGPIPE and fail the pipeline under pipefail.
	# UNKNOWN_COMMIT_ID: the tree is the Debian tarball in one commit, so
	# every upstream commit a changelog cites is unknown to it.
	cp_out=$(cd build/linux && ./scripts/checkpatch.pl --strict --ignore UNKNOWN_COMMIT_ID -g "$c" 2>&1 || true)
	if grep -q '^total: 0 errors, 0 warnings' <<<"$cp_out"; then
		log "checkpatch ok: $subj"
	else
		log "CHECKPATCH FAILED: $subj"; bad=1
	fi
	git -C "$wt" checkout -q --detach "$c"
	for cfg in ${CONFIGS:-full nomemcg nomemcgv1 nolrugen nojumplabel}; do
		out=build/out/bisect-$cfg
		mkdir -p "$out"
		frag=$out/extra.config
		printf '%s\n' ${extra[$cfg]} > "$frag"
		if [ ! -f "$out/.config" ]; then
			make -s -C "$wt" O="$TOP/$out" CC="ccache gcc" tinyconfig >/dev/null
			(cd "$wt" && KCONFIG_CONFIG="$TOP/$out/.config" scripts/kconfig/merge_config.sh \
				-m -O "$TOP/$out" "$TOP/$out/.config" "$TOP/config/guest.config" "$TOP/$frag") >/dev/null
			make -s -C "$wt" O="$TOP/$out" CC="ccache gcc" olddefconfig >/dev/null
		fi
		if make -s -C "$wt" O="$TOP/$out" CC="ccache gcc" -j"$(nproc)" ${TARGETS:-bzImage} >"$out/build.log" 2>&1 &&
		   ! grep -q 'warning:' "$out/build.log"; then
			log "builds ($cfg): $subj"
		else
			log "BUILD FAILED or warned ($cfg): $subj (log $out/build.log)"; bad=1
		fi
	done
done
[ $bad = 0 ] && log "series: every commit is checkpatch-clean and builds in every config"
exit $bad
