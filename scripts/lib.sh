# Shared helpers for the host-side scripts (sourced, not run).
VARIANTS="vanilla patched debug legacy"
# cgroup selftests run in the guest, when the tree has them.
CGROUP_SELFTESTS="test_core test_kmem test_memcontrol test_softlimit test_memcg_reclaim_stat"

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
die() { echo "error: $*" >&2; exit 1; }

# variant_src NAME: the source tree a variant builds from; exit 2 on a bad name.
variant_src() {
	case "$1" in
	vanilla) echo build/src/vanilla ;;
	legacy) echo build/src/legacy ;;
	patched|debug) echo build/linux ;;
	wip-*) echo "build/src/$1" ;;	# a scratch worktree of build/linux
	bisect-full) echo build/src/bisect ;;	# make check-series' worktree (boot step)
	*)
		echo "unknown kernel variant '$1'; valid: $VARIANTS (or wip-NAME for build/src/wip-NAME)" >&2
		return 2 ;;
	esac
}

# prepare_legacy_src: build/src/legacy = vanilla + the knob-revival patch.
prepare_legacy_src() {
	local p=bench/legacy-soft-limit.patch
	local stamp=build/src/legacy/.legacy-patch
	local want
	want=$(sha1sum "$p" | cut -d' ' -f1)
	[ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && return 0
	log "preparing legacy source (vanilla + $p)"
	rm -rf build/src/legacy
	git -C build/linux worktree prune
	git -C build/linux worktree add -q --detach "$PWD/build/src/legacy" vanilla
	git -C build/src/legacy apply "$PWD/$p"
	echo "$want" > "$stamp"
}

# check_config CONFIG FRAGMENT...: every =y/=n the fragments ask for stuck
# (a later fragment overrides an earlier one, as merge_config.sh does).
check_config() {
	local cfg=$1 bad=0 sym val
	shift
	while read -r sym val; do
		if [ "$val" = n ]; then
			grep -q "^$sym=" "$cfg" && { echo "config: $sym should be off" >&2; bad=1; }
		else
			grep -qx "$sym=$val" "$cfg" || { echo "config: $sym=$val did not stick" >&2; bad=1; }
		fi
	done < <(cat "$@" | awk -F= '/^CONFIG_[A-Za-z0-9_]+=/ { if (!($1 in v)) o[n++] = $1; v[$1] = substr($0, length($1) + 2) }
		END { for (i = 0; i < n; i++) print o[i], v[o[i]] }')
	[ $bad = 0 ] || die "kconfig fragment did not apply"
}

# need TOOL PACKAGE: fail with the package that provides a missing tool.
need() {
	command -v "$1" >/dev/null || die "$1 not found: install package $2 (scripts/install-deps.sh)"
}
