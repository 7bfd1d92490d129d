# bench/report.awk: REPORT.md's tables from bench/figures.awk's lines
# (PART KERNEL LRU RUN FIGURE VALUE, tab-separated).
#   awk -v kernels="vanilla legacy patched" -v repeats=2 -v plots="global ..."
# A cell is the mean of the runs if they agree within 5% (max - min <=
# 5% of the larger magnitude), else "does not repeat (run 1, run 2)".
# Ratios are to vanilla (the first kernel), only between repeating cells.

BEGIN {
	FS = "\t"
	nk = split(kernels, K, " ")
	nparts = split("charge global parent nocontention siblings unreclaimable cost scale", P, " ")
	nl = split("classic mglru", L, " ")
	np = split(plots, plotted, " ")
	for (i = 1; i <= np; i++)
		has_plot[plotted[i]] = 1

	title["charge"] = "Charge path"
	text["charge"] = "bench-charge: one byte written per page of a fresh 32 MiB anonymous mapping, 5 times, median guest time per page (fault, zeroing, charge, LRU add). root: the root group (no page counter); memcg: a group at the root; memcg_soft: the same with a 1 MiB soft limit, far exceeded; nested_soft: three levels deep, every level soft-limited. No memory pressure."
	title["global"] = "global: A (soft limit 64M) and B (none) at the root, 400 MiB each"
	text["global"] = "Two readers read their 400 MiB file three times in a 512 MiB guest. Target for the series: A <= 80 MiB, B >= 340 MiB."
	title["parent"] = "parent: P (limit 256M) with A (soft limit 32M) and B"
	text["parent"] = "The pressure is P's hard limit. Target: A <= 48 MiB."
	title["nocontention"] = "nocontention: A (soft limit 64M) alone reads 400 MiB"
	text["nocontention"] = "No competitor: a soft limit must not cost A its cache (target A >= 380 MiB)."
	title["siblings"] = "siblings: S0..S3 (soft limits 16, 24, 32, 48M) and S4..S7 (none), 200 MiB each"
	text["siblings"] = "Target: limited groups near their soft limits, every unlimited group above every limited one."
	title["unreclaimable"] = "unreclaimable: A pins 200 MiB anon (no swap) with soft limit 32M, B streams 400 MiB"
	text["unreclaimable"] = "1 vCPU. After a warm-up, phases limited, unlimited, unlimited, limited in one boot; the ratios are limited over unlimited (the same boot's phases without any soft limit). Target: B's rate within 10%, no OOM kill. The plot shows all five phases one after another."
	title["cost"] = "No soft limit set: the global workload without any soft limit (scenario cost)"
	text["cost"] = "1 vCPU. A and B at the root read 400 MiB three times each, no soft limit anywhere: what reclaim itself costs. pgscan/pgsteal are /proc/vmstat deltas, kswapd_ms kswapd's CPU time, elapsed_ms the readers' guest time."
	title["scale"] = "Scale: 1, 100 and 1000 memcgs under global pressure"
	text["scale"] = "bench-scale, 1 vCPU: N groups at the root share a 128 MiB set of file pages; two workers walk the groups (join, read the group's slice) twice while a ballast in the root pins all but 64 MiB of free memory. none/some/all: no group, every tenth group, every group has a soft limit of a quarter of its slice (some is not run for 1 group). kswapd us/page = kswapd CPU time / pgsteal_kswapd. direct us/page = (workers' CPU time - the same reads' CPU time without pressure, calibrated in the same boot) / pgsteal_direct: the time the pressure added to the allocating tasks, per page they reclaimed. That time holds more than direct reclaim (pressure also changes how many reads hit the cache), so where direct reclaim took few pages the figure overstates its cost per page, and can go below zero: it is given as \"-\" where pgsteal_direct is below 1000 or the added time below 5% of the calibrated cost. CPU time = utime + stime (exact scheduler runtime; with 1 vCPU under -icount, the guest time of the task's own instructions). kswapd us/page is \"-\" where kswapd reclaimed nothing."
}

{
	key = $1 SUBSEP $5
	if (!(key in seen)) {
		seen[key] = 1
		nf[$1]++
		figs[$1, nf[$1]] = $5
	}
	v[$1, $5, $3, $2, $4] = $6
	have[$1, $5, $3, $2, $4] = 1
}

function abs(x) { return x < 0 ? -x : x }

function fmt(x,   a) {
	a = abs(x)
	if (x == int(x))
		return sprintf("%d", x)
	if (a >= 100)
		return sprintf("%.0f", x)
	if (a >= 10)
		return sprintf("%.1f", x)
	return sprintf("%.3f", x)
}

# Fills cell_ok, cell_mean, cell_text for (part, fig, lru, kernel).
function cell(p, f, l, k,   r, n, mn, mx, sum, x, list, m) {
	n = 0; sum = 0; list = ""
	for (r = 1; r <= repeats; r++) {
		if (!have[p, f, l, k, r])
			continue
		x = v[p, f, l, k, r] + 0
		if (!n || x < mn) mn = x
		if (!n || x > mx) mx = x
		sum += x
		list = list (n ? ", " : "") fmt(x)
		n++
	}
	cell_ok = 0
	if (!n) {
		cell_text = "-"
		return
	}
	m = sum / n
	cell_mean = m
	m = abs(mx) > abs(mn) ? abs(mx) : abs(mn)
	if (mx - mn <= 0.05 * m) {
		cell_ok = 1
		cell_text = fmt(cell_mean) (n < repeats ? " (" n " run)" : "")
	} else {
		cell_text = "**does not repeat** (" list ")"
		nonrep[++nnonrep] = p " | " f " | " l " | " k " | " list
	}
}

function ratio(p, f, l, k,   okv, mv) {
	cell(p, f, l, K[1])
	okv = cell_ok; mv = cell_mean
	cell(p, f, l, k)
	if (!okv || !cell_ok || mv == 0)
		return "-"
	return sprintf("%.3f", cell_mean / mv)
}

function header(with_all,   i, s, d) {
	s = "| figure | LRU |"
	d = "|---|---|"
	for (i = 1; i <= nk; i++) { s = s " " K[i] " |"; d = d "---|" }
	for (i = 2; i <= nk; i++)
		if (with_all || K[i] == "patched") { s = s " " K[i] " / " K[1] " |"; d = d "---|" }
	print s
	print d
}

function row(p, f, l, with_all, label,   i, s) {
	s = "| " (label != "" ? label : f) " | " l " |"
	for (i = 1; i <= nk; i++) {
		cell(p, f, l, K[i])
		s = s " " cell_text " |"
	}
	for (i = 2; i <= nk; i++)
		if (with_all || K[i] == "patched")
			s = s " " ratio(p, f, l, K[i]) " |"
	print s
}

function headline(p, f,   j) {
	if (!((p SUBSEP f) in seen))
		return
	for (j = 1; j <= nl; j++)
		row(p, f, L[j], 0, p ": " f)
}

END {
	print "## Headline"
	print ""
	print "Means of the runs; the last column is patched over vanilla, same LRU mode."
	print ""
	header(0)
	headline("global", "final usage A (MiB)")
	headline("global", "final usage B (MiB)")
	headline("parent", "final usage A (MiB)")
	split("pgscan_kswapd pgscan_direct pgsteal_kswapd pgsteal_direct kswapd_ms elapsed_ms", c, " ")
	for (i = 1; i <= 6; i++)
		headline("cost", c[i])
	headline("charge", "fault+charge ns/page, memcg")
	headline("charge", "fault+charge ns/page, memcg_soft")
	headline("scale", "1000 memcgs, none limited: kswapd us/page")
	headline("scale", "1000 memcgs, all limited: kswapd us/page")
	headline("unreclaimable", "B read rate, soft limit / none")
	print ""
	print "cost: the workload with no soft limit set anywhere, so patched / vanilla there is what the series costs when nobody uses soft limits."
	print ""

	nnonrep = 0
	for (pi = 1; pi <= nparts; pi++) {
		p = P[pi]
		if (!nf[p])
			continue
		print "## " title[p]
		print ""
		print text[p]
		print ""
		if (has_plot[p]) {
			print "![" p "](" p ".png)"
			print ""
			print "memory.usage_in_bytes of every group every 250 ms of guest time, run 1; LRU modes in rows, kernels in columns."
			print ""
		}
		header(1)
		for (j = 1; j <= nl; j++)
			for (i = 1; i <= nf[p]; i++)
				row(p, figs[p, i], L[j], 1)
		print ""
	}

	print "## Repeatability"
	print ""
	if (repeats < 2) {
		print "One run of each boot (BENCH_REPEATS=1): nothing to compare."
		exit
	}
	nu = 0
	for (i = 1; i <= nnonrep; i++)
		if (!(nonrep[i] in listed)) {
			listed[nonrep[i]] = 1
			uniq[++nu] = nonrep[i]
		}
	print "Each boot ran " repeats " times. Of the cells above (figure x LRU x kernel), " nu " differ by more than 5% between runs; the others agree within 5%."
	print ""
	if (nu) {
		print "| part | figure | LRU | kernel | runs |"
		print "|---|---|---|---|---|"
		for (i = 1; i <= nu; i++)
			print "| " uniq[i] " |"
	}
}
