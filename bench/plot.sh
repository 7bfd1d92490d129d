#!/bin/bash
# bench/plot.sh DIR PART OUT.png KERNEL...: one PNG for a scenario, memory
# usage over guest time, LRU modes in rows and kernels in columns, from
# DIR/PART.KERNEL.LRU.GROUP.dat ("seconds MiB" lines, bench/figures.awk).
set -euo pipefail
dir=$1 part=$2 png=$3
shift 3
kernels=("$@")
lrus=(classic mglru)

# Groups in a stable order (A B P, S0..S7), and the y range shared by all.
groups=$(ls "$dir" | sed -n "s/^$part\.[^.]*\.[^.]*\.\(.*\)\.dat$/\1/p" | sort -u)
ymax=$(cat "$dir/$part".*.dat | awk '$2 > m { m = $2 } END { print int(m / 50 + 1) * 50 }')
xmax=$(cat "$dir/$part".*.dat | awk '$1 > m { m = $1 } END { print m }')

{
	echo "set terminal pngcairo size $(( 420 * ${#kernels[@]} )),760 font 'sans,9'"
	echo "set output '$png'"
	echo "set multiplot layout 2,${#kernels[@]} title 'scenario $part: memory.usage\\_in\\_bytes per group (MiB) over guest time (s), run 1'"
	echo "set yrange [0:$ymax]"
	echo "set xrange [0:$xmax]"
	echo "set grid"
	echo "set key top right"
	for lru in "${lrus[@]}"; do
		for k in "${kernels[@]}"; do
			echo "set title '$k, $lru'"
			plot=""
			i=0
			for g in $groups; do
				i=$((i + 1))
				f=$dir/$part.$k.$lru.$g.dat
				[ -s "$f" ] || continue
				plot="$plot${plot:+, }'$f' using 1:2 with lines lw 2 lc $i title '$g'"
			done
			if [ -n "$plot" ]; then
				echo "plot $plot"
			else
				echo "set label 1 'no samples' at graph 0.4, graph 0.5"
				echo "plot NaN notitle"
				echo "unset label 1"
			fi
		done
	done
	echo "unset multiplot"
} | gnuplot
