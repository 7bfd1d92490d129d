// SPDX-License-Identifier: GPL-2.0
/*
 * bench-scale - the cost of reclaim with 1, 100 and 1000 memcgs under
 * global pressure, with none, some or all of them soft-limited.
 *
 *   bench-scale [--lru classic|mglru] [--groups N,N,...] [--set MIB]
 *               [--passes P] [--workers W]
 *
 * Runs in the test guest (cgroup v1 memory controller at
 * /sys/fs/cgroup/memory, the data disk at /data; see tests.list). For each
 * N it creates N memcgs at the root, g0..g(N-1), and gives each an equal
 * slice of a SET MiB range of the data files (big0, big1, small0..small7
 * taken end to end: holes, read back as clean zero page cache, no I/O).
 * W workers walk the groups: a worker moves itself into a group (its
 * cgroup.procs) and reads its share of the group's slice, then goes on to
 * the next group; P passes over the whole set.
 *
 * First, per N, a calibration: one pass with the cache dropped and room
 * for the whole set, so nothing is reclaimed; the workers' CPU time per
 * page read there is the cost of the reads themselves. Then a warm-up
 * (see warm_up()) and, per N and soft limit level, the pressure phase: a ballast process in the root group pins
 * anonymous memory (no swap: unreclaimable) so that only SET/2 MiB is left
 * for the cache, and the workers make P passes.
 *
 *   none  no group has a soft limit
 *   some  every tenth group (g0, g10, ...) has one (skipped for N < 10)
 *   all   every group has one
 * The soft limit is a quarter of the group's slice: each limited group
 * exceeds it.
 *
 * Output: "lru classic|mglru", per N "calib groups N pages P cpu_ms C
 * elapsed_ms E", a "warmup ..." line (see warm_up()), then per N and level
 * one line of "key value" pairs:
 *   scale groups N limited L pages_read R ballast_mib B elapsed_ms E
 *         pgscan_kswapd .. pgsteal_kswapd .. pgscan_direct ..
 *         pgsteal_direct .. kswapd_ms K cpu_ms C base_cpu_ms BC
 *         kswapd_us_per_page X direct_us_per_page Y
 * kswapd_us_per_page = kswapd CPU time / pgsteal_kswapd; direct_us_per_page
 * = (workers' CPU time - BC) / pgsteal_direct, BC being the calibrated
 * cost of the same reads without reclaim: the time the pressure added,
 * which is mostly direct reclaim's. "-" where pgsteal_direct is below 1000
 * or the added time below 5% of BC (see run_level()). CPU time is
 * utime + stime, whose sum the kernel keeps exact (the scheduler's
 * runtime; only the split between the two is sampled at ticks). Meant for
 * a 1-vCPU guest under -icount, where a task's runtime is the guest time
 * of the instructions it ran.
 * Exit: 0 done, 1 error, 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"

#define PAGE		4096UL
#define MAX_GROUPS	4096
#define MAX_SIZES	8
#define MAX_WORKERS	8
#define BUF_SIZE	(256 << 10)

static const char *const data_files[] = {
	"/data/big0", "/data/big1",
	"/data/small0", "/data/small1", "/data/small2", "/data/small3",
	"/data/small4", "/data/small5", "/data/small6", "/data/small7",
};

static unsigned long file_pages[ARRAY_SIZE(data_files)];
static int file_fds[ARRAY_SIZE(data_files)];

static unsigned long set_mib = 128;
static int passes = 2, nr_workers = 2;

/* Group @g's name, as the cg_*() functions take it. */
static const char *group_name(char *buf, int g)
{
	snprintf(buf, PATH_MAX, "g%d", g);
	return buf;
}

static void create_groups(int n)
{
	char name[PATH_MAX];
	int g;

	for (g = 0; g < n; g++)
		cg_create(group_name(name, g));
}

/* Not cg_remove(): one rmdir, no retry on EBUSY; the workers are reaped. */
static void remove_groups(int n)
{
	char name[PATH_MAX], path[PATH_MAX];
	int g;

	for (g = n - 1; g >= 0; g--) {
		cg_path(path, sizeof(path), group_name(name, g), NULL);
		if (rmdir(path))
			die("rmdir %s: %s", path, strerror(errno));
	}
}

static bool is_limited(const char *level, int g)
{
	if (!strcmp(level, "all"))
		return true;
	if (!strcmp(level, "some"))
		return g % 10 == 0;
	return false;
}

/* Soft limit of a quarter of the slice for the level's groups, none else. */
static void set_soft_limits(int n, const char *level, unsigned long slice)
{
	char name[PATH_MAX], val[32];
	int g;

	for (g = 0; g < n; g++) {
		if (is_limited(level, g))
			snprintf(val, sizeof(val), "%lu", slice / 4 * PAGE);
		else
			snprintf(val, sizeof(val), "-1");
		cg_write(group_name(name, g), "memory.soft_limit_in_bytes", val);
	}
}

/* Reads pages [first, first + nr) of the data files taken end to end. */
static void read_range(unsigned long first, unsigned long nr)
{
	static char buf[BUF_SIZE];
	unsigned long pg, len;
	size_t i = 0;
	ssize_t n;

	while (nr) {
		while (i < ARRAY_SIZE(data_files) && first >= file_pages[i])
			first -= file_pages[i++];
		if (i == ARRAY_SIZE(data_files))
			die("the set is larger than the data files");
		pg = file_pages[i] - first;
		if (pg > nr)
			pg = nr;
		if (pg > BUF_SIZE / PAGE)
			pg = BUF_SIZE / PAGE;
		len = pg * PAGE;
		n = pread(file_fds[i], buf, len, first * PAGE);
		if (n != (ssize_t)len)
			die("pread %s: %s", data_files[i],
			    n < 0 ? strerror(errno) : "short read");
		first += pg;
		nr -= pg;
	}
}

static void join_group(int g)
{
	char name[PATH_MAX];

	cg_enter(group_name(name, g));
}

/*
 * Worker @w: for every pass and group, join the group and read stripe w
 * of W of its slice. Back to the root at the end, so that the groups can
 * go.
 */
static void __noreturn worker(int w, int n, unsigned long slice, int npass)
{
	unsigned long lo = slice * w / nr_workers;
	unsigned long hi = slice * (w + 1) / nr_workers;
	int p, g;

	for (p = 0; p < npass; p++)
		for (g = 0; g < n; g++) {
			join_group(g);
			read_range((unsigned long)g * slice + lo, hi - lo);
		}
	write_str(MEMCG_ROOT "/cgroup.procs", "0");
	_exit(0);
}

struct walk {
	long elapsed_ms;
	long cpu_ms;		/* the workers' CPU time, user + system */
	unsigned long pages;	/* pages read */
};

static struct walk run_workers(int n, unsigned long slice, int npass)
{
	struct walk r = { 0 };
	struct rusage ru;
	pid_t pids[MAX_WORKERS];
	int w, status;
	long start = now_ms();

	for (w = 0; w < nr_workers; w++) {
		pids[w] = fork_child();
		if (!pids[w])
			worker(w, n, slice, npass);
	}
	for (w = 0; w < nr_workers; w++) {
		if (wait4(pids[w], &status, 0, &ru) < 0)
			die("wait4: %s", strerror(errno));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			die("worker %d failed (wait status 0x%x)", w, status);
		r.cpu_ms += ru.ru_utime.tv_sec * 1000 + ru.ru_utime.tv_usec / 1000 +
			    ru.ru_stime.tv_sec * 1000 + ru.ru_stime.tv_usec / 1000;
	}
	r.elapsed_ms = now_ms() - start;
	r.pages = slice * n * npass;
	return r;
}

/* Pins @mib of anonymous memory in the root group until killed. */
static pid_t spawn_ballast(unsigned long mib)
{
	int ready[2];
	char c;
	pid_t pid;

	if (pipe(ready))
		die("pipe: %s", strerror(errno));
	pid = fork_child();
	if (!pid) {
		size_t size = mib << 20, off;
		volatile char *mem = malloc(size);

		close(ready[0]);
		if (!mem)
			die("ballast: malloc %lu MiB", mib);
		for (off = 0; off < size; off += PAGE)
			mem[off] = 1;
		if (write(ready[1], "", 1) != 1)
			die("ballast: ready: %s", strerror(errno));
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		die("ballast of %lu MiB died before pinning it", mib);
	close(ready[0]);
	return pid;
}

static void end_ballast(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid: %s", strerror(errno));
}

static const char *const vm_keys[] = {
	"pgscan_kswapd", "pgsteal_kswapd", "pgscan_direct", "pgsteal_direct",
};

static void print_per_page(const char *key, double ms, unsigned long long pages)
{
	if (pages)
		printf(" %s %.3f", key, ms * 1000.0 / pages);
	else
		printf(" %s -", key);
}

static void run_level(const char *tag, int n, const char *level,
		      unsigned long slice, double base_cpu_per_page, pid_t kswapd)
{
	unsigned long long before[ARRAY_SIZE(vm_keys)], delta[ARRAY_SIZE(vm_keys)];
	unsigned long free_mib, ballast_mib;
	double ks, base;
	struct walk r;
	pid_t ballast;
	size_t i;

	set_soft_limits(n, level, slice);
	drop_caches();
	free_mib = meminfo_kib("MemFree") >> 10;
	if (free_mib < set_mib / 2 + 32)
		die("only %lu MiB free", free_mib);
	ballast_mib = free_mib - set_mib / 2;
	ballast = spawn_ballast(ballast_mib);
	for (i = 0; i < ARRAY_SIZE(vm_keys); i++)
		before[i] = vmstat(vm_keys[i]);
	ks = cpu_ms(kswapd);
	r = run_workers(n, slice, passes);
	ks = cpu_ms(kswapd) - ks;
	for (i = 0; i < ARRAY_SIZE(vm_keys); i++)
		delta[i] = vmstat(vm_keys[i]) - before[i];
	end_ballast(ballast);
	base = base_cpu_per_page * r.pages;

	printf("%s groups %d limited %s pages_read %lu ballast_mib %lu elapsed_ms %ld",
	       tag, n, level, r.pages, ballast_mib, r.elapsed_ms);
	for (i = 0; i < ARRAY_SIZE(vm_keys); i++)
		printf(" %s %llu", vm_keys[i], delta[i]);
	printf(" kswapd_ms %.1f cpu_ms %ld base_cpu_ms %.0f", ks, r.cpu_ms, base);
	print_per_page("kswapd_us_per_page", ks, delta[1]);
	/*
	 * Pressure also changes how many reads hit the cache, so the added
	 * time holds more than direct reclaim: with little of it, the ratio
	 * says nothing (and can go below zero). Below 1000 pages or 5% of
	 * the calibrated cost, print "-".
	 */
	if (delta[3] < 1000 || r.cpu_ms - base < base / 20)
		printf(" direct_us_per_page -");
	else
		print_per_page("direct_us_per_page", r.cpu_ms - base, delta[3]);
	printf("\n");
	fflush(stdout);
}

static unsigned long slice_pages(int n)
{
	unsigned long slice = (set_mib << 20) / PAGE / n;

	if (!slice)
		die("--set %lu MiB is too small for %d groups", set_mib, n);
	return slice;
}

/* The no-pressure cost of N's walk: CPU ms per page read. */
static double calibrate(int n)
{
	unsigned long slice = slice_pages(n);
	struct walk cal;

	create_groups(n);
	drop_caches();
	cal = run_workers(n, slice, 1);
	printf("calib groups %d pages %lu cpu_ms %ld elapsed_ms %ld\n", n,
	       cal.pages, cal.cpu_ms, cal.elapsed_ms);
	drop_caches();
	remove_groups(n);
	return (double)cal.cpu_ms / cal.pages;
}

static void run_size(int n, double base_per_page, pid_t kswapd)
{
	static const char *const levels[] = { "none", "some", "all" };
	unsigned long slice = slice_pages(n);
	size_t i;

	create_groups(n);
	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		if (!strcmp(levels[i], "some") && n < 10)
			continue;
		run_level("scale", n, levels[i], slice, base_per_page, kswapd);
	}
	drop_caches();	/* no cache left to pin the groups as zombies */
	remove_groups(n);
}

/*
 * The first pressure phase of a boot reclaims differently from the ones
 * after it (memory the boot left behind goes first): one unreported phase
 * with one group, printed as "warmup ...", takes that.
 */
static void warm_up(pid_t kswapd)
{
	create_groups(1);
	run_level("warmup", 1, "none", (set_mib << 20) / PAGE, 0, kswapd);
	drop_caches();
	remove_groups(1);
}

static void open_files(void)
{
	unsigned long total = 0;
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(data_files); i++) {
		file_fds[i] = open(data_files[i], O_RDONLY);
		if (file_fds[i] < 0 || fstat(file_fds[i], &st))
			die("%s: %s (the host's data disk)", data_files[i],
			    strerror(errno));
		file_pages[i] = st.st_size / PAGE;
		total += file_pages[i];
	}
	if (total < (set_mib << 20) / PAGE)
		die("--set %lu MiB: the data files have only %lu MiB", set_mib,
		    total * PAGE >> 20);
}

static void __noreturn usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: bench-scale [--lru classic|mglru] [--groups N,N,...] "
		"[--set MIB] [--passes P] [--workers W]\n");
	exit(rc);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "lru", required_argument, NULL, 'l' },
		{ "groups", required_argument, NULL, 'g' },
		{ "set", required_argument, NULL, 's' },
		{ "passes", required_argument, NULL, 'p' },
		{ "workers", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int sizes[MAX_SIZES] = { 1, 100, 1000 }, nr_sizes = 3, c, i;
	const char *lru = NULL;
	double base[MAX_SIZES];
	char *tok, *end;
	pid_t kswapd;

	prog_name = "bench-scale";
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (strcmp(optarg, "classic") && strcmp(optarg, "mglru"))
				usage(2);
			lru = optarg;
			break;
		case 'g':
			nr_sizes = 0;
			for (tok = strtok(optarg, ","); tok; tok = strtok(NULL, ",")) {
				if (nr_sizes == MAX_SIZES)
					usage(2);
				sizes[nr_sizes] = strtol(tok, &end, 10);
				if (*end || sizes[nr_sizes] < 1 ||
				    sizes[nr_sizes] > MAX_GROUPS)
					usage(2);
				nr_sizes++;
			}
			break;
		case 's':
			set_mib = strtoul(optarg, &end, 10);
			if (*end || set_mib < 16)
				usage(2);
			break;
		case 'p':
			passes = atoi(optarg);
			if (passes < 1)
				usage(2);
			break;
		case 'w':
			nr_workers = atoi(optarg);
			if (nr_workers < 1 || nr_workers > MAX_WORKERS)
				usage(2);
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	if (access(MEMCG_ROOT "/memory.usage_in_bytes", F_OK))
		die("no cgroup v1 memory controller at %s", MEMCG_ROOT);

	setvbuf(stdout, NULL, _IOLBF, 0);
	setup_lru(lru);
	open_files();
	kswapd = find_kswapd();
	printf("set_mib %lu passes %d workers %d\n", set_mib, passes, nr_workers);
	/*
	 * Calibrations first, then the pressure phases, so that every
	 * pressure phase follows another one: each phase's start depends on
	 * what the one before left behind.
	 */
	for (i = 0; i < nr_sizes; i++)
		base[i] = calibrate(sizes[i]);
	warm_up(kswapd);
	for (i = 0; i < nr_sizes; i++)
		run_size(sizes[i], base[i], kswapd);
	return 0;
}
