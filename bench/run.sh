#!/bin/bash
# make bench: the soft limit scenarios on the shipped kernel (vanilla), the
# old rb-tree soft limit (legacy: vanilla + bench/legacy-soft-limit.patch)
# and the series (patched), side by side, under QEMU -icount so that guest
# time follows executed instructions. Writes bench/results/REPORT.md.
# A first cut of the benchmark: no plots, scale or charge-path runs yet.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

kernels=(vanilla legacy patched)
report=bench/results/REPORT.md
raw=bench/results/raw
mkdir -p "$raw"

bash scripts/prepare.sh "${kernels[@]}"

# run KERNEL TEST: the guest's output, kept in bench/results/raw.
run() {
	bash scripts/run-guest.sh --icount --timeout 900 "$1" "$2" >"$raw/$1-$2.out" 2>/dev/null ||
		log "bench: $1/$2 exited non-zero (see $raw/$1-$2.out)"
}
# field KERNEL TEST AWK-PROGRAM: one value from a run's output.
field() { awk "$3" "$raw/$1-$2.out"; }

for s in global parent nocontention siblings cost unreclaimable; do
	for lru in classic mglru; do
		for k in "${kernels[@]}"; do
			log "bench: $k scenario-$s-$lru"
			run "$k" "scenario-$s-$lru"
		done
	done
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%.3f", a / b }'; }

{
	echo "# Benchmark: shipped, old rb-tree, naturalized"
	echo
	echo "Command: \`make bench\` ($(date -u +%Y-%m-%d), tree $(make -s -C build/linux kernelversion)"
	echo "from linux-source-6.12 $(dpkg-query -W -f='\${Version}' linux-source-6.12)). QEMU TCG with"
	echo "-icount shift=0, 512 MiB, 2 vCPUs. Raw guest output: bench/results/raw/."
	echo
	echo "## Final usage, MiB (memory.usage_in_bytes)"
	echo
	echo "| scenario | LRU | vanilla | legacy | patched |"
	echo "|---|---|---|---|---|"
	for s in global parent nocontention siblings; do
		for lru in classic mglru; do
			row="| $s | $lru |"
			for k in "${kernels[@]}"; do
				row="$row $(field "$k" "scenario-$s-$lru" '$1 == "usage" && $2 != "P" { printf "%s%s=%s", sep, $2, $3; sep=" " }') |"
			done
			echo "$row"
		done
	done
	echo
	echo "## No soft limit set: reclaim cost, patched / vanilla"
	echo
	echo "The global workload with no soft limit anywhere (scenario cost)."
	echo
	echo "| LRU | figure | vanilla | patched | ratio |"
	echo "|---|---|---|---|---|"
	for lru in classic mglru; do
		for key in pgscan_kswapd pgscan_direct pgsteal_kswapd pgsteal_direct kswapd_ms elapsed_ms; do
			v=$(field vanilla "scenario-cost-$lru" "\$1 == \"cost\" && \$2 == \"$key\" { print \$3 }")
			p=$(field patched "scenario-cost-$lru" "\$1 == \"cost\" && \$2 == \"$key\" { print \$3 }")
			echo "| $lru | $key | $v | $p | $(ratio "${p:-0}" "${v:-0}") |"
		done
	done
	echo
	echo "## Unreclaimable violator: with soft limit over without, same boot"
	echo
	echo "| LRU | kernel | B read MiB/s ratio | kswapd CPU ratio | OOM kills |"
	echo "|---|---|---|---|---|"
	for lru in classic mglru; do
		for k in "${kernels[@]}"; do
			f=scenario-unreclaimable-$lru
			echo "| $lru | $k | $(field "$k" $f '$1 == "ratio" && $2 == "b_mibps" { print $3 }') |" \
			     "$(field "$k" $f '$1 == "ratio" && $2 == "kswapd_ms" { print $3 }') |" \
			     "$(field "$k" $f '$1 == "phase" { n += $8 } END { print n + 0 }') |"
		done
	done
} > "$report"
log "bench: report in $report"
cat "$report"
