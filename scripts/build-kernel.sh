#!/bin/bash
# Build one kernel variant into build/out/VARIANT (incremental: the kernel's
# own make rebuilds only what changed). Prints the bzImage path.
# The objects go to SRC/out-VARIANT, a direct subdirectory of the variant's
# source tree, and build/out/VARIANT links there: kbuild then names the
# source tree "..", so every variant compiles with the same command lines
# and ccache (build/ccache) reuses what an earlier variant compiled.
#   vanilla  the tree as shipped (build/src/vanilla, tag 'vanilla')
#   patched  build/linux, the work tree with the series (and your edits)
#   debug    patched plus config/debug.config
#   legacy   vanilla plus bench/legacy-soft-limit.patch (old rb-tree revived)
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
. scripts/lib.sh

variant=${1:-}
src=$(variant_src "$variant") || exit 2
out=build/out/$variant
# legacy's source is made here, from the vanilla tag, on first use.
if [ "$variant" = legacy ]; then
	[ -d build/linux/.git ] || die "no build/linux: run 'make tree'"
	prepare_legacy_src
fi
[ -d "$src" ] || die "source for $variant missing: run 'make tree'"
mkdir -p "$src/out-$variant" build/out
[ -L "$out" ] || rm -rf "$out"
ln -sfn "$TOP/$src/out-$variant" "$out"
need ccache ccache
export CCACHE_DIR=$TOP/build/ccache CCACHE_MAXSIZE=4G
# Depend mode: on a miss ccache runs only the compiler, not the
# preprocessor too, and a build from clean takes 22% less (mm/ kernel/
# fs/ of the patched config from an empty cache: 219 s against 280, and
# 206 s without ccache, 2026-12-07). It finds a file again only with the
# same headers and config, which is how the variants share it (patched
# and vanilla, legacy and vanilla); check-series.sh, which builds each
# commit in five configs, keeps the preprocessor mode's hits across them.
export CCACHE_DEPEND=1
kmake() { make -s -C "$src" O="$TOP/$src/out-$variant" CC="ccache gcc" "$@"; }

frags=(config/guest.config)
[ "$variant" = debug ] && frags+=(config/debug.config)

# Regenerate .config only when a fragment changed.
stamp=$out/.config-inputs
want=$(cat "${frags[@]}" | sha1sum | cut -d' ' -f1)
if [ ! -f "$out/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	log "configuring $variant (tinyconfig + ${frags[*]})"
	kmake tinyconfig >/dev/null
	(cd "$src" && KCONFIG_CONFIG="$TOP/$out/.config" \
		scripts/kconfig/merge_config.sh -m -O "$TOP/$out" "$TOP/$out/.config" \
		$(printf "$TOP/%s " "${frags[@]}")) >/dev/null
	kmake olddefconfig >/dev/null
	check_config "$out/.config" "${frags[@]}"
	echo "$want" > "$stamp"
fi

# A kernel built twice from the same tree is the same bytes (the version
# string carries these), so make bench's paths do not change when a
# kernel is relinked or built in a fresh clone.
export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 2026"
export KBUILD_BUILD_USER=memcg KBUILD_BUILD_HOST=qemu KBUILD_BUILD_VERSION=1
log "building $variant kernel in $out (about 11-12 min from clean on 2 cores, 668-742 s in a fresh clone on 2026-12-07; about 2 min for legacy once vanilla is built (ccache); seconds when up to date)"
start=$(date +%s)
ccache -z >/dev/null
kmake -j"$(nproc)" bzImage >"$out/build.log" 2>&1 || {
	tail -30 "$out/build.log" >&2
	die "$variant kernel build failed (log: $out/build.log)"
}
hits=$(ccache --print-stats | awk -F'\t' '$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 } $1 ~ /^cache_miss$/ { m += $2 } END { printf "%d of %d", h, h + m }')
log "$variant kernel ready in $(( $(date +%s) - start )) s (ccache hits: $hits compiles): $out/arch/x86/boot/bzImage"
