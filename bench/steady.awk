# bench/steady.awk: how near its soft limit a group stays while the
# contention lasts, not only where it ends. For each part of a bench-seq
# guest log (guest/bench-seq.c; the scenarios sample every group's usage
# every 250 ms), each group's mean usage in MiB over the last two thirds
# of the part's samples (the first third is the approach), one line per
# part:
#   PART: GROUP=MEAN ... (N samples)
#
#   scripts/run-guest.sh KERNEL bench-classic
#   awk -f bench/steady.awk build/runs/KERNEL/bench-classic.log

$1 == "sample" && NF == 4 {
	t[n] = $2 + 0
	g[n] = $3
	v[n] = $4 + 0
	n++
	next
}

/^@@@ PART-END / {
	if (!n)
		next
	cut = t[0] + (t[n - 1] - t[0]) / 3
	delete sum
	delete cnt
	for (i = 0; i < n; i++) {
		if (t[i] < cut)
			continue
		if (!(g[i] in sum))
			order[++ng] = g[i]
		sum[g[i]] += v[i]
		cnt[g[i]]++
	}
	printf "%s:", $3
	for (i = 1; i <= ng; i++)
		printf " %s=%.1f", order[i], sum[order[i]] / cnt[order[i]]
	printf " (%d samples)\n", cnt[order[1]]
	n = ng = 0
}
