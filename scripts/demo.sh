#!/bin/bash
# make demo: set up, build, boot, and show the soft limit at work: the
# "global" and "parent" scenarios of DESIGN.md, in both LRU modes, on the
# shipped kernel and (once the series is not empty) on the patched one.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

kernels=(vanilla)
[ "$(grep -cv '^#' patches/series 2>/dev/null || true)" -gt 0 ] && kernels+=(patched)

log "demo: preparing ${kernels[*]} (first time: packages, unpack, builds; about 25 min: two kernel builds of 11-12 min)"
bash scripts/prepare.sh "${kernels[@]}"

declare -A cell
for s in global parent; do
	for lru in classic mglru; do
		for k in "${kernels[@]}"; do
			out=$(bash scripts/run-guest.sh "$k" "scenario-$s-$lru" 2>/dev/null) ||
				die "scenario-$s-$lru failed on $k: see build/runs/$k/scenario-$s-$lru.log"
			a=$(awk '$1 == "usage" && $2 == "A" { print $3 }' <<<"$out")
			b=$(awk '$1 == "usage" && $2 == "B" { print $3 }' <<<"$out")
			cell[$s,$lru,$k]="$a / $b"
			log "demo: $k $s $lru: A $a MiB, B $b MiB"
		done
	done
done

echo
echo "Final memory.usage_in_bytes, MiB, A / B (512 MiB guest, 2 vCPUs, TCG)."
echo "global: A (soft limit 64M) and B (none) each read a 400 MiB file 3x."
echo "parent: P (limit 256M) holds A (soft limit 32M) and B (none), same reads."
echo
printf '%-8s %-8s' scenario LRU
for k in "${kernels[@]}"; do printf ' %-12s' "$k"; done
printf ' %s\n' "target (patched)"
for s in global parent; do
	for lru in classic mglru; do
		printf '%-8s %-8s' "$s" "$lru"
		for k in "${kernels[@]}"; do printf ' %-12s' "${cell[$s,$lru,$k]}"; done
		if [ $s = global ]; then printf ' %s\n' "A <= 80, B >= 340"
		else printf ' %s\n' "A <= 48"; fi
	done
done
echo
echo "vanilla: the knob is inert (writes dropped, reads return max)."
[ ${#kernels[@]} = 2 ] && echo "patched: soft limit violators are reclaimed first, inside the walk."

# One container example: Debian's runc sets the soft limit from the OCI
# config (guest/containers.c, test containers-effect-runc-classic).
t=containers-effect-runc-classic
echo
echo "A container example ($t, classic LRU): runc starts two containers,"
echo "each reading a 400 MiB file 3x; A's config.json has"
echo "linux.resources.memory.reservation 67108864 (docker/podman --memory-reservation 64m)."
printf '%-8s %-34s %-8s %-8s\n' kernel "A's memory.soft_limit_in_bytes" "A MiB" "B MiB"
for k in "${kernels[@]}"; do
	out=$(bash scripts/run-guest.sh "$k" "$t" 2>/dev/null) ||
		die "$t failed on $k: see build/runs/$k/$t.log"
	cmd=$(grep -m1 '^\$ .* run ' <<<"$out")
	printf '%-8s %-34s %-8s %-8s\n' "$k" \
		"$(awk '$1 == "softlimit" && $2 == "A" { print $3 }' <<<"$out")" \
		"$(awk '$1 == "usage" && $2 == "A" { print $3 }' <<<"$out")" \
		"$(awk '$1 == "usage" && $2 == "B" { print $3 }' <<<"$out")"
done
echo "The command line (the same on both): ${cmd#\$ }"
echo "Logs: build/runs/<kernel>/scenario-*.log, build/runs/<kernel>/$t.log"
