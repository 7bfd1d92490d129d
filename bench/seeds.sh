#!/bin/bash
# bench/seeds.sh: one guest run per seed, for the figures that move from
# path to path. Under -icount a run is one path; another --seed, or any
# byte of the kernel or initramfs changed (a rebuild, a comment that moves
# a line), is another. LXD's direct reclaim time, for one, spans 2-5 x
# between paths of the same kernel: only a figure over seeds compares two
# kernels.
#
#   bench/seeds.sh [--seeds "0 1 ... 9"] [--metric NAME[,NAME...]] [--expect WORD]
#                  [run-guest options] KERNEL TEST
#
# Prints, per seed, the run's exit status, the metrics ("metric run.NAME"
# of the guest log, for each NAME of --metric NAME[,NAME...]; a NAME with
# a dot is the whole key, e.g. end.slab_dentries) and the
# scenario's "usage" lines; then how many runs failed, and each metric's
# mean and median over the seeds.
# Each run's guest log is kept as build/runs/KERNEL/TEST.seedN.log; one
# sweep per KERNEL and TEST at a time (run-guest writes TEST.log).
#
#   bench/seeds.sh --metric direct_ms_sum,elapsed_ms patched workload-lxd-mglru
#   bench/seeds.sh --seeds "$(seq -s' ' 0 19)" --expect effective \
#       patched scenario-siblings-mglru
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

seeds="0 1 2 3 4 5 6 7 8 9" metric= opts=()
while [ $# -gt 2 ]; do
	case "$1" in
	--seeds) seeds=$2; shift 2 ;;
	--metric) metric=$2; shift 2 ;;
	--expect|--mem|--cpus|--numa|--thp|--timeout) opts+=("$1" "$2"); shift 2 ;;
	*) die "usage: bench/seeds.sh [--seeds LIST] [--metric NAME[,NAME...]] [--expect WORD] [run-guest options] KERNEL TEST" ;;
	esac
done
[ $# = 2 ] || die "usage: bench/seeds.sh [--seeds LIST] [--metric NAME[,NAME...]] [--expect WORD] [run-guest options] KERNEL TEST"
k=$1 t=$2
log "seeds.sh: $k $t, seeds $seeds"

failed=0
IFS=, read -r -a metrics <<<"$metric"
values=$(mktemp)
trap 'rm -f "$values"' EXIT
for s in $seeds; do
	rc=0
	bash scripts/run-guest.sh "${opts[@]}" --icount --seed "$s" "$k" "$t" \
		>/dev/null 2>&1 || rc=$?
	cp "build/runs/$k/$t.log" "build/runs/$k/$t.seed$s.log" 2>/dev/null || true
	line="seed $s: rc=$rc"
	[ $rc = 0 ] || failed=$((failed + 1))
	for m in "${metrics[@]}"; do
		key=run.$m
		[[ $m != *.* ]] || key=$m
		v=$(tr -d '\r' <"build/runs/$k/$t.log" |
			awk -v m="$key" '$1 == "metric" && $2 == m { print $3 }')
		line+=" $m=${v:--}"
		[ -z "$v" ] || echo "$m $v" >>"$values"
	done
	line+=" $(tr -d '\r' <"build/runs/$k/$t.log" |
		awk '$1 == "usage" { printf "%s=%s ", $2, $3 }')"
	echo "$line"
done

echo "$k $t: $failed of $(wc -w <<<"$seeds") runs failed"
for m in "${metrics[@]}"; do
	awk -v m="$m" '$1 == m { print $2 }' "$values" | sort -g | awk -v m="$m" '
		{ v[NR] = $1; sum += $1 }
		END {
			if (!NR) { print m ": no values"; exit }
			med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%s over %d seeds: mean %.1f, median %.1f, min %.1f, max %.1f\n",
			       m, NR, sum / NR, med, v[1], v[NR]
		}'
done
[ $failed = 0 ]
