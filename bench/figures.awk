# bench/figures.awk: the figures in bench-seq outputs (bench/results/raw/
# KERNEL-LRU-rRUN.out), one line each, tab-separated:
#   PART KERNEL LRU RUN FIGURE VALUE
# Usage samples of run 1 go to PLOTDIR/PART.KERNEL.LRU.GROUP.dat as
# "seconds MiB" lines (awk -v plotdir=DIR).
# Lines that do not parse (a kernel message cutting into a line) are skipped.

function emit(fig, val) {
	if (val == "" || val == "-")
		return
	printf "%s\t%s\t%s\t%s\t%s\t%s\n", part, kernel, lru, run, fig, val
}

function num(s) {
	return s ~ /^-?[0-9]+(\.[0-9]+)?$/
}

FNR == 1 {
	name = FILENAME
	sub(/.*\//, "", name)
	sub(/\.out$/, "", name)
	# KERNEL-LRU-rN; KERNEL itself may hold dashes
	n = split(name, f, "-")
	run = substr(f[n], 2)
	lru = f[n - 1]
	kernel = f[1]
	for (i = 2; i <= n - 2; i++)
		kernel = kernel "-" f[i]
	part = ""
}

{ sub(/\r$/, "") }

/^@@@ PART-END / {
	if (part == "unreclaimable" && nphase)
		emit("OOM kills (all phases)", oom)
	rc = $4
	sub(/^rc=/, "", rc)
	if (rc != 0)
		emit("exit status (not 0: failed)", rc)
	part = ""
	next
}
/^@@@ PART / { part = $3; oom = 0; nphase = 0; next }
part == "" { next }

$1 == "sample" && NF == 4 && num($2) && num($4) {
	if (run == 1)
		printf "%.3f %s\n", $2 / 1000, $4 > (plotdir "/" part "." kernel "." lru "." $3 ".dat")
	next
}

part == "charge" && $1 == "charge" && $3 == "ns_per_page" && num($4) {
	emit("fault+charge ns/page, " $2, $4)
	next
}

part ~ /^(global|parent|nocontention|siblings)$/ {
	if ($1 == "usage" && NF == 3 && num($3))
		emit("final usage " $2 " (MiB)", $3)
	else if ($1 == "elapsed_ms" && NF == 2 && num($2))
		emit("elapsed (ms)", $2)
	next
}

part == "unreclaimable" {
	if ($1 == "ratio" && $2 == "b_mibps" && num($3))
		emit("B read rate, soft limit / none", $3)
	else if ($1 == "ratio" && $2 == "kswapd_ms" && num($3))
		emit("kswapd CPU, soft limit / none", $3)
	else if ($1 == "phase" && $7 == "oom_kills" && num($8)) {
		oom += $8
		nphase++
	}
	next
}

part == "cost" && $1 == "cost" && NF == 3 && num($3) {
	if ($2 ~ /^(pgscan|pgsteal)_(kswapd|direct)$/ || $2 == "kswapd_ms" || $2 == "elapsed_ms")
		emit($2, $3)
	next
}

part == "scale" && $1 == "scale" {
	delete v
	for (i = 2; i < NF; i += 2)
		v[$i] = $(i + 1)
	if (!("groups" in v) || !("direct_us_per_page" in v))
		next
	c = sprintf("%d memcgs, %s limited: ", v["groups"], v["limited"])
	emit(c "kswapd us/page", v["kswapd_us_per_page"])
	emit(c "direct us/page", v["direct_us_per_page"])
	emit(c "pgsteal_kswapd", v["pgsteal_kswapd"])
	emit(c "pgsteal_direct", v["pgsteal_direct"])
	next
}
