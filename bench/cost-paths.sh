#!/bin/bash
# What reclaim costs with no soft limit set, over several paths.
#   bench/cost-paths.sh [LRU] [SEEDS] [KERNEL...]   (default: mglru 11 vanilla patched)
# Boots each kernel on scenario-cost-LRU under --icount on 1 vCPU with
# --seed 0..SEEDS-1. A boot repeats exactly, but one seed is one path of a
# chaotic system: the MGLRU cost figures of the same kernel move by a third
# from seed to seed. So this prints every seed's figures and, per kernel,
# mean, min and max, and the ratio of the means to the first kernel.
# Each boot's output is kept in build/cost-paths/LRU/KERNEL-sSEED.out and
# reused when it holds a passing run.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

lru=${1:-mglru}
seeds=${2:-11}
shift $(( $# < 2 ? $# : 2 ))
kernels=(vanilla patched)
[ $# -eq 0 ] || kernels=("$@")
dir=build/cost-paths/$lru
mkdir -p "$dir"

for s in $(seq 0 $(( seeds - 1 ))); do
	for k in "${kernels[@]}"; do
		out=$dir/$k-s$s.out
		grep -q "^@@@ END scenario-cost-$lru rc=0" "$out" 2>/dev/null && continue
		log "cost-paths: $k seed $s"
		bash scripts/run-guest.sh --cpus 1 --icount --seed "$s" --timeout 900 \
			"$k" "scenario-cost-$lru" >"$out" 2>&1 ||
			die "$k seed $s failed, see $out"
	done
done

for k in "${kernels[@]}"; do
	for s in $(seq 0 $(( seeds - 1 ))); do
		awk -v k="$k" -v s="$s" '$1 == "cost" { v[$2] = $3 }
			END { print k, s, v["pgscan_kswapd"], v["pgsteal_kswapd"],
			      v["pgscan_direct"], v["kswapd_ms"], v["elapsed_ms"] }' \
			"$dir/$k-s$s.out"
	done
done | awk -v first="${kernels[0]}" '
	BEGIN {
		split("pgscan_kswapd pgsteal_kswapd pgscan_direct kswapd_ms elapsed_ms", name)
		printf "%-8s %4s", "kernel", "seed"
		for (i = 1; i <= 5; i++)
			printf " %14s", name[i]
		print ""
	}
	{
		printf "%-8s %4s", $1, $2
		for (i = 1; i <= 5; i++) {
			printf " %14s", $(i + 2)
			sum[$1, i] += $(i + 2)
			if (!(($1, i) in min) || $(i + 2) < min[$1, i]) min[$1, i] = $(i + 2)
			if (!(($1, i) in max) || $(i + 2) > max[$1, i]) max[$1, i] = $(i + 2)
		}
		print ""
		if (!($1 in n)) order[++nk] = $1
		n[$1]++
	}
	END {
		print ""
		for (j = 1; j <= nk; j++) {
			k = order[j]
			printf "%-8s %4s", k, "mean"
			for (i = 1; i <= 5; i++) printf " %14.1f", sum[k, i] / n[k]
			print ""
			printf "%-8s %4s", k, "min"
			for (i = 1; i <= 5; i++) printf " %14s", min[k, i]
			print ""
			printf "%-8s %4s", k, "max"
			for (i = 1; i <= 5; i++) printf " %14s", max[k, i]
			print ""
			if (k == first) continue
			printf "%-8s %4s", k, "/" first
			for (i = 1; i <= 5; i++)
				printf " %14.3f", (sum[k, i] / n[k]) / (sum[first, i] / n[first])
			print ""
		}
	}'
