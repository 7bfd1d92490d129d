#!/bin/bash
# make bench: the shipped kernel (vanilla), the old rb-tree soft limit
# (legacy: vanilla + bench/legacy-soft-limit.patch) and the series
# (patched, whatever build/linux holds), side by side, each booted under
# QEMU -icount so that guest time follows executed instructions.
#
# Per kernel and LRU mode two boots run guest/bench-seq.c: one with 2 vCPUs
# for the charge path (bench-charge) and the soft limit scenarios with usage
# sampled every 250 ms of guest time (softlimit-scenario --sample); one with
# 1 vCPU for what is measured in CPU time: the unreclaimable violator, the
# no-soft-limit workload (scenario cost) and reclaim at scale (bench-scale).
# With 2 vCPUs under -icount, QEMU runs the vCPUs in turn on one thread and
# a task's CPU time counts the other vCPU's turns too; with 1 vCPU it is
# the guest time of the task's own instructions. Every pair of boots is
# done BENCH_REPEATS times (default 2) to show that the figures repeat; a
# figure whose runs differ by more than 5% is reported as "does not repeat".
#
#   bench/run.sh            (make bench)
#   bench/run.sh --report   only remake REPORT.md and the plots from the
#                           raw outputs and logs of the last run
#   BENCH_JOBS=1|2          guests at a time (default 2: one per host core;
#                           -icount runs a guest on one host thread)
#   BENCH_REPEATS=N         runs of each boot (default 2)
#   BENCH_KERNELS="..."     default "vanilla legacy patched"
#
# Writes bench/results/REPORT.md, bench/results/*.png (gnuplot) and the raw
# guest output in bench/results/raw/; prints progress on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

jobs=${BENCH_JOBS:-2}
repeats=${BENCH_REPEATS:-2}
read -r -a kernels <<<"${BENCH_KERNELS:-vanilla legacy patched}"
[ "${kernels[0]}" = vanilla ] || die "BENCH_KERNELS must start with vanilla (ratios are to vanilla)"
lrus=(classic mglru)
timeout=3600
res=bench/results
raw=$res/raw
work=build/bench
bench_start=$(date +%s)
report_only=
case "${1:-}" in
--report) report_only=1 ;;
"") ;;
*) die "usage: bench/run.sh [--report]" ;;
esac

# What the guests ran, for comparing runs: the same bytes here and the
# same QEMU give the same paths, so the same figures.
record_inputs() {
	local k
	for k in "${kernels[@]}"; do
		echo "$k $(sha256sum <"build/out/$k/arch/x86/boot/bzImage" | cut -c1-16)" \
			"$(sha256sum <"build/out/$k/initramfs.cpio.gz" | cut -c1-16)"
	done >"$work/inputs"
}

if [ -z "$report_only" ]; then
log "bench: preparing ${kernels[*]} (kernels, initramfs, disks; the legacy kernel takes about 4 min to build the first time)"
prep_start=$(date +%s)
bash scripts/prepare.sh "${kernels[@]}"
prep_secs=$(( $(date +%s) - prep_start ))
log "bench: prepared in ${prep_secs}s"
need gnuplot gnuplot-nox

rm -rf "$work"
mkdir -p "$work/logs" "$work/plot" "$raw"
record_inputs
# its own outputs only: raw/wl-* and wl-*.png are bench/workload.sh's
find "$raw" "$res" -maxdepth 1 \( -name "*.out" -o -name "*.png" \) ! -name "wl-*" -delete

# One guest: KERNEL TEST CPUS NAME, output appended to raw/NAME.out. The
# serial log goes to build/runs/KERNEL/TEST.log (run-guest's place for it),
# so two guests of the same kernel and test never run at once: each lane
# below owns one LRU mode.
guest() {
	local k=$1 t=$2 cpus=$3 name=$4 rc=0 t0
	t0=$(date +%s)
	log "bench: start $k $t ($cpus vCPU) run ${name##*-r}"
	bash scripts/run-guest.sh --icount --cpus "$cpus" --timeout "$timeout" "$k" "$t" \
		>>"$raw/$name.out" 2>"$work/logs/$name.$t.err" || rc=$?
	cp "build/runs/$k/$t.log" "$work/logs/$name.$t.log" 2>/dev/null || true
	echo "$rc" >"$work/logs/$name.$t.rc"
	echo x >>"$work/done"
	log "bench: done  $k $t run ${name##*-r} in $(( $(date +%s) - t0 ))s, rc=$rc" \
		"($(wc -l <"$work/done")/$(( ${#kernels[@]} * ${#lrus[@]} * repeats * 2 )) guests," \
		"$(( ($(date +%s) - bench_start) / 60 )) min so far)"
}

# Both guests of KERNEL LRU RUN.
boot() {
	local name=$1-$2-r$3
	: >"$raw/$name.out"
	guest "$1" "bench-$2" 2 "$name"
	guest "$1" "bench-cpu-$2" 1 "$name"
}

# A lane: the boots of the given LRU modes, one after another, run 1 of
# every kernel first.
lane() {
	local r k lru
	for r in $(seq 1 "$repeats"); do
		for k in "${kernels[@]}"; do
			for lru in "$@"; do
				boot "$k" "$lru" "$r"
			done
		done
	done
}

: >"$work/done"
log "bench: $(( ${#kernels[@]} * ${#lrus[@]} * repeats * 2 )) guests, $jobs at a time (each about 1.5-2.5 min of one host core)"
if [ "$jobs" -ge 2 ]; then
	lane classic &
	lane mglru &
	wait
else
	lane "${lrus[@]}"
fi
runs_secs=$(( $(date +%s) - bench_start - prep_secs ))
echo "prep_secs=$prep_secs runs_secs=$runs_secs jobs=$jobs repeats=$repeats" >"$work/times"
else
	# shellcheck disable=SC1091
	. "$work/times" || die "no $work/times: run bench/run.sh first"
	# A run from before the inputs were recorded: build/out's, which are
	# the run's only if no kernel was built since; the report says so.
	[ -f "$work/inputs" ] || { record_inputs; echo "(taken at report time)" >>"$work/inputs"; }
	need gnuplot gnuplot-nox
	rm -rf "$work/plot"
	mkdir -p "$work/plot"
	rm -f "$res"/*.png
fi

# --- figures: one line per (part, kernel, LRU, run, figure): value --------
files=()
for r in $(seq 1 "$repeats"); do
	for k in "${kernels[@]}"; do
		for lru in "${lrus[@]}"; do
			files+=("$raw/$k-$lru-r$r.out")
		done
	done
done
awk -v plotdir="$work/plot" -f bench/figures.awk "${files[@]}" >"$work/figures.tsv"

# --- plots: one PNG per scenario, LRU modes in rows, kernels in columns ---
plots=()
for part in global parent nocontention siblings unreclaimable cost; do
	ls "$work/plot/$part".*.dat >/dev/null 2>&1 || continue
	bash bench/plot.sh "$work/plot" "$part" "$res/$part.png" "${kernels[@]}" ||
		{ log "bench: plot for $part failed"; continue; }
	plots+=("$part")
done

# --- the report ------------------------------------------------------------
splats=()
failed=()
for r in $(seq 1 "$repeats"); do
	for k in "${kernels[@]}"; do
		for lru in "${lrus[@]}"; do
			for t in "bench-$lru" "bench-cpu-$lru"; do
				rc=$(cat "$work/logs/$k-$lru-r$r.$t.rc" 2>/dev/null || echo missing)
				case "$rc" in
				0) ;;
				3) splats+=("$k/$t run $r") ;;
				*) failed+=("$k/$t run $r (rc=$rc)") ;;
				esac
			done
		done
	done
done
if [ -z "$report_only" ]; then
	total_secs=$(( $(date +%s) - bench_start ))
	echo "total_secs=$total_secs" >>"$work/times"
fi
tree=$(make -s -C build/linux kernelversion 2>/dev/null || echo "?")
{
	cat <<-EOF
	# Benchmark: shipped 6.12, old rb-tree soft limit, this series

	Command: \`make bench\` (bench/run.sh; BENCH_JOBS=$jobs, BENCH_REPEATS=$repeats),
	$(date -u '+%Y-%m-%d %H:%M UTC'). Kernels: **vanilla** = linux-source-6.12
	$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) as shipped (soft limit knob inert);
	**legacy** = vanilla + bench/legacy-soft-limit.patch (the old rb-tree soft
	limit revived); **patched** = build/linux, $tree, $(git -C build/linux log --oneline vanilla..HEAD | wc -l) commits on vanilla,
	HEAD \`$(git -C build/linux log -1 --format='%h %s' HEAD)\`$(git -C build/linux diff --quiet HEAD -- 2>/dev/null || echo ' plus uncommitted edits').
	Workbench: $(git log -1 --format='%h' HEAD)$(git diff --quiet HEAD -- guest bench scripts ':!bench/results' 2>/dev/null || echo ' (with uncommitted edits)').

	Every guest: QEMU TCG with \`-icount shift=0,align=off,sleep=off\` and
	\`-rtc base=2026-01-01T00:00:00,clock=vm\` (guest
	time = executed instructions, 1 ns each), 512 MiB, cgroup v1. Per kernel
	and LRU mode two boots run the parts in sequence (guest/bench-seq.c):
	2 vCPUs for the charge path and the placement scenarios (global, parent,
	nocontention, siblings); 1 vCPU for the parts measured in CPU time
	(unreclaimable, cost, scale), because with 2 vCPUs QEMU runs them in
	turn and a task's CPU time also counts the other vCPU's turns. Each boot
	was done $repeats times. A value is the mean of the runs; where two runs of
	the same kernel differ by more than 5% the cell says **does not repeat**
	and gives both. Ratios are to vanilla, same LRU mode, and only between
	figures that repeat.

	Under -icount the two vCPUs take turns on one host thread, so which of
	two competing readers gets ahead is decided by that turn-taking, not by
	the kernel alone: the shipped kernel, whose soft limit does nothing,
	can end with either group far ahead, and its placement figures here
	differ from \`make check\`'s (no -icount, real parallel vCPUs).

	Inputs (sha256, first 16 hex digits; bzImage, initramfs), QEMU
	$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null):

	$(sed 's/^/    /' "$work/inputs" 2>/dev/null || echo "    not recorded")

	Why the runs repeat. Under -icount guest time follows executed
	instructions, so a guest whose every input is its own does the same
	thing in every boot. Two inputs followed the host's clock, and
	run-guest.sh --icount removes both: the RTC (QEMU set it from the
	host's clock; the kernel mixes the time of day into its random pool,
	and MGLRU, for one, picks memcg bins at random), and the disks (a
	virtio disk's I/O completes in host time): the guest gets no disk,
	and /data is the same sparse files in a 2 MiB ext2 image in the
	initramfs, on a loop device (guest/init.c). Measured 2026-12-04: two
	boots of vanilla with the disks logged identical printk times up to
	the disk probe and differed from there; without disks, two boots each
	of scenario-cost-mglru (1 vCPU) and scenario-global-mglru (2 vCPUs)
	had byte-identical kernel logs and results. With the disks, the last
	make bench (2026-12-03 21:55) had 218 cells that did not repeat. The
	kernels and the initramfs are built to the same bytes every time
	(fixed mtimes, version string and ext2 UUID; scripts/build-kernel.sh,
	make-initramfs.sh, make-disks.sh), so the inputs above name the
	paths: another make bench with the same inputs repeats these figures.
	Identical runs show that a figure is measured exactly, not that it is
	robust: each is one path of a system where a small change of start
	(which reader gets ahead, kswapd against direct reclaim) can end
	elsewhere (see the shipped kernel's placement, above).

	Wall time: $(( total_secs / 60 )) min $(( total_secs % 60 )) s in all; preparing (builds, initramfs)
	${prep_secs} s, the $(( ${#kernels[@]} * ${#lrus[@]} * repeats * 2 )) guests ${runs_secs} s, $jobs at a time. Host load average at the end:
	$(cut -d' ' -f1-3 /proc/loadavg).
	EOF
	echo
	if [ ${#splats[@]} -eq 0 ] && [ ${#failed[@]} -eq 0 ]; then
		echo "All boots ended normally; no kernel log had a BUG, WARNING, KASAN,"
		echo "lockdep, Oops or Call Trace line (scripts/run-guest.sh's check)."
	else
		[ ${#splats[@]} -eq 0 ] || echo "**Kernel splat** (BUG/WARNING/...) in: ${splats[*]} (logs in build/bench/logs/)."
		[ ${#failed[@]} -eq 0 ] || echo "**Boots that did not end normally**: ${failed[*]} (a part failed or the guest hung; see build/bench/logs/)."
	fi
	echo
	awk -v kernels="${kernels[*]}" -v repeats="$repeats" -v plots="${plots[*]}" \
		-f bench/report.awk "$work/figures.tsv"
} >"$res/REPORT.md"

log "bench: report in $res/REPORT.md; $(( total_secs / 60 )) min $(( total_secs % 60 )) s in all"
sed -n '/^## Headline/,/^## /p' "$res/REPORT.md" | sed '$d'
[ ${#splats[@]} -eq 0 ] && [ ${#failed[@]} -eq 0 ]
