#!/bin/bash
# The reviewer's scenarios (guest/workload.c), side by side: the shipped
# kernel (vanilla), the old rb-tree soft limit (legacy) and the series
# (patched), both LRUs, each boot under QEMU -icount (guest time follows
# executed instructions) and done BENCH_REPEATS times (default 2). Part of
# make bench (bench/run.sh runs it after its own boots).
#
#   bench/workload.sh [--report] [SCENARIO...]   (default: all of them)
#   BENCH_JOBS, BENCH_REPEATS, BENCH_KERNELS     as bench/run.sh
#
# Writes bench/results/WORKLOAD.md (a table per scenario, ratios to
# vanilla, "does not repeat" where two runs differ by more than 5%), the
# CDF plots bench/results/wl-SCENARIO-cdf.png and the slab plot
# bench/results/wl-slab.png; raw guest output in bench/results/raw/wl-*.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

jobs=${BENCH_JOBS:-2}
repeats=${BENCH_REPEATS:-2}
read -r -a kernels <<<"${BENCH_KERNELS:-vanilla legacy patched}"
all=(latency-file latency-anon thp slab numa knobflip scale deep lxd android)
res=bench/results
raw=$res/raw
work=build/bench-wl
report_only=
if [ "${1:-}" = --report ]; then
	report_only=1
	shift
fi
scenarios=("${@:-${all[@]}}")
for s in "${scenarios[@]}"; do
	[[ " ${all[*]} " == *" $s "* ]] || { echo "workload.sh: unknown scenario '$s'; valid: ${all[*]}" >&2; exit 2; }
done

# The machine each scenario needs (run-guest.sh options).
shape() {
	case "$1" in
	numa) echo "--numa 2" ;;
	# exact CPU times need 1 vCPU under -icount (bench/run.sh says why)
	scale) echo "--mem 1024 --cpus 1" ;;
	android) echo "--mem 1024" ;;
	*) echo "" ;;
	esac
}

# knobflip measures the other CPU's loop, which needs the vCPUs to run at
# once: --mttcg and no -icount (by default they take turns on one host thread).
clock() {
	if [ "$1" = knobflip ]; then echo --mttcg; else echo --icount; fi
}

guest() {	# KERNEL LRU SCENARIO RUN
	local name=wl-$1-$2-$3-r$4 t=workload-$3-$2 rc=0 t0=$SECONDS
	# shellcheck disable=SC2046
	bash scripts/run-guest.sh $(clock "$3") --timeout 3600 $(shape "$3") "$1" "$t" \
		>"$raw/$name.out" 2>"$work/$name.err" || rc=$?
	cp "build/runs/$1/$t.log" "$work/$name.log" 2>/dev/null || true
	echo "$rc" >"$work/$name.rc"
	log "workload: $1 $2 $3 run $4: rc=$rc in $((SECONDS - t0)) s"
}

lane() {	# LRU: every scenario, kernel and run of one LRU, in turn
	local r k s
	for r in $(seq 1 "$repeats"); do
		for s in "${scenarios[@]}"; do
			for k in "${kernels[@]}"; do
				guest "$k" "$1" "$s" "$r"
			done
		done
	done
}

if [ -z "$report_only" ]; then
	bash scripts/prepare.sh "${kernels[@]}"
	need gnuplot gnuplot-nox
	rm -rf "$work"
	mkdir -p "$work" "$raw"
	log "workload: ${#scenarios[@]} scenarios x ${#kernels[@]} kernels x 2 LRUs x $repeats runs, $jobs at a time"
	start=$SECONDS
	if [ "$jobs" -ge 2 ]; then
		lane classic & lane mglru & wait
	else
		lane classic
		lane mglru
	fi
	echo "$((SECONDS - start))" >"$work/secs"
	# when each scenario was last run, and on which series
	{
		for s in "${scenarios[@]}"; do
			echo "$s $(date -u '+%Y-%m-%d_%H:%M') $(git -C build/linux log -1 --format=%h) $(IFS=+; echo "${kernels[*]}")"
		done
		cat "$raw/wl-runs" 2>/dev/null || true
	} | awk '!seen[$1]++' | sort >"$work/wl-runs"
	mv "$work/wl-runs" "$raw/wl-runs"
fi

# --- the report ---------------------------------------------------------
# raw/wl-KERNEL-LRU-SCENARIO-rN.out -> "SCENARIO KERNEL LRU RUN KEY VALUE"
for f in "$raw"/wl-*.out; do
	n=${f##*/wl-}
	n=${n%.out}
	tr -d '\r' <"$f" | awk -v id="$n" '
		BEGIN { split(id, p, "-"); k = p[1]; l = p[2]; r = substr(p[length(p)], 2)
			s = p[3]; for (i = 4; i < length(p); i++) s = s "-" p[i] }
		$1 == "metric" && NF == 3 { print s, k, l, r, $2, $3 }
		$1 == "usage" && NF == 3 { print s, k, l, r, "usage." $2, $3 }'
done >"$work/figures" 2>/dev/null || true

# CDF plots: per scenario with latencies, one panel per LRU and
# distribution, every kernel on it (run 1).
cdf_plot() {	# SCENARIO KEY...
	local s=$1 k lru key png=$res/wl-$1-cdf.png plots
	shift
	{
		echo "set terminal pngcairo size $((460 * $#)),760 font 'sans,9'"
		echo "set output '$png'"
		echo "set multiplot layout 2,$# title '$s: cumulative distribution, all kernels (run 1, guest time)'"
		echo "set grid; set key bottom right; set logscale x; set yrange [0:100]"
		for lru in classic mglru; do
			for key in "$@"; do
				echo "set title '$key, $lru'; set ylabel 'percent'; set xlabel '${key##*_}'"
				plots=
				for k in "${kernels[@]}"; do
					f=$raw/wl-$k-$lru-$s-r1.out
					[ -f "$f" ] || continue
					tr -d '\r' <"$f" | awk -v key="$key" '$1 == "cdf" && $2 == key && $4 > 0 { print $4, $3 }' \
						>"$work/cdf.$s.$k.$lru.$key"
					[ -s "$work/cdf.$s.$k.$lru.$key" ] &&
						plots="$plots${plots:+, }'$work/cdf.$s.$k.$lru.$key' using 1:2 with steps lw 2 title '$k'"
				done
				if [ -n "$plots" ]; then echo "plot $plots"; else echo "plot NaN title 'no samples'"; fi
			done
		done
		echo "unset multiplot"
	} | gnuplot 2>>"$work/gnuplot.err" || log "workload: plot $png failed"
}

slab_plot() {
	local k lru plots png=$res/wl-slab.png
	{
		echo "set terminal pngcairo size 920,760 font 'sans,9'"
		echo "set output '$png'"
		echo "set multiplot layout 2,1 title 'slab: dentries (thousands) over guest time (s), all kernels (run 1)'"
		echo "set grid; set key top left"
		for lru in classic mglru; do
			echo "set title '$lru'"
			plots=
			for k in "${kernels[@]}"; do
				f=$raw/wl-$k-$lru-slab-r1.out
				[ -f "$f" ] || continue
				tr -d '\r' <"$f" | awk '$1 == "slab" && NF == 6 { print $2 / 1000, $3 / 1000 }' >"$work/slab.$k.$lru"
				[ -s "$work/slab.$k.$lru" ] &&
					plots="$plots${plots:+, }'$work/slab.$k.$lru' using 1:2 with lines lw 2 title '$k'"
			done
			if [ -n "$plots" ]; then echo "plot $plots"; else echo "plot NaN title 'no samples'"; fi
		done
		echo "unset multiplot"
	} | gnuplot 2>>"$work/gnuplot.err" || log "workload: plot $png failed"
}

for s in latency-file latency-anon thp; do
	ls "$raw"/wl-*-"$s"-r1.out >/dev/null 2>&1 && cdf_plot "$s" B.fault_us run.direct_ms
done
ls "$raw"/wl-*-android-r1.out >/dev/null 2>&1 && cdf_plot android fg.touch_us run.direct_ms
ls "$raw"/wl-*-slab-r1.out >/dev/null 2>&1 && slab_plot

splats=$(grep -l '^3$' "$work"/*.rc 2>/dev/null | sed 's|.*/||; s|\.rc$||' | tr '\n' ' ' || true)
failed=$(grep -Lx '[03]' "$work"/*.rc 2>/dev/null | sed 's|.*/||; s|\.rc$||' | tr '\n' ' ' || true)
{
	cat <<-EOF
	# The reviewer's scenarios: shipped 6.12, old rb-tree soft limit, this series

	Command: \`bench/workload.sh\` (part of \`make bench\`; BENCH_JOBS=$jobs,
	BENCH_REPEATS=$repeats), report made $(date -u '+%Y-%m-%d %H:%M UTC'); guests: $(if [ -n "$report_only" ]; then echo "not timed (--report: the figures of the runs below)"; elif [ -f "$work/secs" ]; then echo "$(($(cat "$work/secs") / 60)) min"; else echo "not timed (the run was stopped before its end; cells with one value had one run)"; fi).
	Workbench $(git log -1 --format=%h); patched = the series in patches/
	as it was when each scenario ran (its HEAD below; build/linux HEAD now:
	\`$(git -C build/linux log -1 --format='%h %s')\`).
	Guests: QEMU TCG, \`-icount shift=0,align=off,sleep=off\` (guest time
	= executed instructions), 512 MiB and 2 vCPUs unless the scenario says
	(numa: 2 nodes of 256 MiB, one vCPU each; thp: THP always, set by the scenario;
	android: 1024 MiB;
	scale: 1024 MiB and 1 vCPU, for exact CPU times; knobflip: without
	-icount and with a host thread per vCPU (--mttcg), so that they run at
	once, and its figures move with the host's load), the guest kernel of
	config/guest.config. Swap, where a
	scenario has it, is zram (no disk under -icount). What each scenario does:
	guest/workload.c's header. A cell is the mean of the runs when they
	agree within 5%, else **does not repeat** with each run's value; the
	figure in brackets is the ratio to vanilla, same LRU.

	Keys: run.* are deltas over the measured phase: direct_*/memcg_* from
	the vmscan tracepoints (per call: pages reclaimed, ms; calls per second
	of guest time), pgscan/pgsteal/refault/pgmajfault/slabs_scanned (objects
	the shrinkers scanned) from /proc/vmstat,
	psi_*_ms from /proc/pressure/memory (total stall time), kswapd_cpu_ms,
	ipi_cal/tlb per CPU from /proc/interrupts. B.fault_us_*: time per page
	fault of the group that did nothing wrong. usage.*: memory.usage_in_bytes
	in MiB at the end.
	EOF
	echo
	# The report covers every scenario with raw outputs; a run of a few
	# scenarios replaces only theirs.
	if [ -f "$raw/wl-runs" ]; then
		echo "When each scenario was last run (UTC), the series' HEAD then and"
		echo "the kernels run (the others' figures are of an earlier run):"
		echo
		awk '{ printf "%s%s %s (%s, %s)", (NR > 1 ? "; " : ""), $1, $2, $3, $4 } END { print "." }' "$raw/wl-runs" | tr _ ' '
		echo
	fi
	if ! ls "$work"/*.rc >/dev/null 2>&1; then
		echo "The kernel logs were not checked by this report (written by"
		echo "--report from raw/ without the runs' logs in $work/)."
	elif [ -z "$splats$failed" ]; then
		echo "Every boot of the last run ended normally, no kernel splat."
	else
		[ -z "$splats" ] || echo "**Kernel splat** in: $splats (logs in $work/)."
		[ -z "$failed" ] || echo "**Boots that failed or hung**: $failed (see $work/*.err)."
	fi
	awk -v kernels="${kernels[*]}" -v scenarios="${all[*]}" -v res="$res" '
	function fmt(v) { return (v == int(v) && v < 1e15) ? sprintf("%d", v) : sprintf("%.3g", v) }
	function cell(s, k, l, key,   r, n, lo, hi, sum, v, out) {
		n = 0; sum = 0
		for (r = 1; r <= 9; r++) {
			if (!((s, k, l, r, key) in val)) continue
			v = val[s, k, l, r, key]; n++; sum += v
			if (n == 1 || v < lo) lo = v
			if (n == 1 || v > hi) hi = v
			out = out (out == "" ? "" : ", ") fmt(v)
		}
		if (!n) return "-"
		m = (hi < 0 ? -hi : hi); if ((lo < 0 ? -lo : lo) > m) m = (lo < 0 ? -lo : lo)
		if (hi - lo > 0.05 * m && hi - lo > 1) { mean[s, k, l, key] = ""; return "**does not repeat** (" out ")" }
		mean[s, k, l, key] = sum / n
		return fmt(sum / n)
	}
	{ val[$1, $2, $3, $4, $5] = $6; if (!(($1, $5) in seen)) { seen[$1, $5] = 1; keys[$1, ++nkeys[$1]] = $5 } }
	END {
		nk = split(kernels, K, " "); ns = split(scenarios, S, " ")
		for (i = 1; i <= ns; i++) {
			s = S[i]
			printf "\n## %s\n\n", s
			if (s ~ /^(latency|thp)/) printf "![%s CDF](wl-%s-cdf.png)\n\n", s, s
			if (s == "slab") printf "![slab over time](wl-slab.png)\n\n"
			if (!nkeys[s]) { print "No results."; continue }
			hdr = "| key |"; sep = "|---|"
			for (l = 1; l <= 2; l++) for (j = 1; j <= nk; j++) { hdr = hdr " " K[j] " " (l == 1 ? "classic" : "mglru") " |"; sep = sep "---|" }
			print hdr; print sep
			for (q = 1; q <= nkeys[s]; q++) {
				key = keys[s, q]; line = "| " key " |"
				for (l = 1; l <= 2; l++) {
					lru = (l == 1 ? "classic" : "mglru")
					for (j = 1; j <= nk; j++) {
						c = cell(s, K[j], lru, key)
						base = mean[s, K[1], lru, key]
						if (j > 1 && c !~ /repeat|^-$/ && base != "" && base != 0)
							c = c sprintf(" (%.2f)", mean[s, K[j], lru, key] / base)
						line = line " " c " |"
					}
				}
				print line
			}
		}
	}' "$work/figures"
} >"$res/WORKLOAD.md"
log "workload: report in $res/WORKLOAD.md"
[ -z "$splats$failed" ]
