// SPDX-License-Identifier: GPL-2.0
/*
 * bench-charge - the price of the charge path: time per page to fault in
 * anonymous memory, in and out of memcgs, with and without soft limits.
 *
 *   bench-charge [--lru classic|mglru] [--mib M] [--reps R]
 *
 * Runs in the test guest with cgroup v1 (see tests.list), without memory
 * pressure: every case fits. Each case runs in a fresh child that joins
 * the case's group, then R times maps M MiB of anonymous memory, writes
 * one byte per page (a write fault: page allocation, zeroing, charge,
 * LRU add) and unmaps it. Time is CLOCK_MONOTONIC around the touching
 * loop; under QEMU -icount it counts executed instructions.
 *
 *   root         the root group (charged to no page counter)
 *   memcg        a group at the root, no soft limit
 *   memcg_soft   the same with a soft limit of 1 MiB, far exceeded (the
 *                old rb-tree updates its tree on such charges)
 *   nested_soft  a group three levels deep, every level soft-limited
 *
 * Output: "lru classic|mglru" (the mode in use, set first if --lru is
 * given), then "charge CASE ns_per_page MEDIAN min MIN reps R pages N", MEDIAN
 * and MIN over the R repetitions.
 * Exit: 0 done, 1 error, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"

#define MAX_REPS	64

struct charge_case {
	const char *name;
	const char *path;	/* under MEMCG_ROOT, "" for the root */
	int depth;		/* groups to create along path */
	int soft;		/* soft limit of 1 MiB on every level */
};

static const struct charge_case cases[] = {
	{ "root", "", 0, 0 },
	{ "memcg", "c1", 1, 0 },
	{ "memcg_soft", "c2", 1, 1 },
	{ "nested_soft", "c3/d/e", 3, 1 },
};

static unsigned long mib = 32;
static int reps = 5;

/*
 * Not setup_lru(): --lru is written before anything is checked (without
 * lru_gen even classic is an error), and the mode in use is reported, not
 * checked against the one asked for.
 */
static void report_lru(const char *lru)
{
	if (lru)
		write_str(LRU_GEN_FILE, strcmp(lru, "mglru") ? "n" : "y");
	if (!has_lru_gen()) {
		if (lru && !strcmp(lru, "mglru"))
			die("%s missing: no CONFIG_LRU_GEN", LRU_GEN_FILE);
		printf("lru classic\n");
		return;
	}
	/* Bit 0 is LRU_GEN_CORE: MGLRU is in charge of the LRU lists. */
	printf("lru %s\n", read_u64(LRU_GEN_FILE) & 1 ? "mglru" : "classic");
}

/* Creates every level of c->path, soft-limited if asked. */
static void make_case_groups(const struct charge_case *c)
{
	char group[PATH_MAX], *p;

	snprintf(group, sizeof(group), "%s", c->path);
	for (p = group; c->depth; p++) {
		if (*p && *p != '/')
			continue;
		char save = *p;

		*p = '\0';
		cg_create(group);
		if (c->soft)
			cg_write(group, "memory.soft_limit_in_bytes", "1048576");
		*p = save;
		if (!save)
			break;
	}
}

static void remove_case_groups(const struct charge_case *c)
{
	char path[PATH_MAX], *slash;

	if (!c->depth)
		return;
	snprintf(path, sizeof(path), "%s/%s", MEMCG_ROOT, c->path);
	for (;;) {
		if (rmdir(path))
			die("rmdir %s: %s", path, strerror(errno));
		slash = strrchr(path, '/');
		*slash = '\0';
		if (!strcmp(path, MEMCG_ROOT))
			break;
	}
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* In a child: join, fault R times, report. */
static void __noreturn run_case_child(const struct charge_case *c, int out)
{
	size_t size = mib << 20, page = sysconf(_SC_PAGESIZE), off;
	long long ns[MAX_REPS], t;
	int r;

	cg_write(c->path, "cgroup.procs", "0");
	for (r = 0; r < reps; r++) {
		volatile char *mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (mem == MAP_FAILED)
			die("mmap %lu MiB: %s", mib, strerror(errno));
		t = now_ns();
		for (off = 0; off < size; off += page)
			mem[off] = 1;
		ns[r] = now_ns() - t;
		munmap((void *)mem, size);
	}
	if (write(out, ns, sizeof(ns[0]) * reps) != (ssize_t)(sizeof(ns[0]) * reps))
		die("write results: %s", strerror(errno));
	_exit(0);
}

static void run_case(const struct charge_case *c)
{
	unsigned long pages = (mib << 20) / sysconf(_SC_PAGESIZE);
	long long ns[MAX_REPS];
	int fds[2], status;
	pid_t pid;

	make_case_groups(c);
	if (pipe(fds))
		die("pipe: %s", strerror(errno));
	pid = fork_child();
	if (!pid) {
		close(fds[0]);
		run_case_child(c, fds[1]);
	}
	close(fds[1]);
	if (read(fds[0], ns, sizeof(ns[0]) * reps) != (ssize_t)(sizeof(ns[0]) * reps))
		die("case %s: no results", c->name);
	close(fds[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		die("case %s: child failed", c->name);
	remove_case_groups(c);
	qsort(ns, reps, sizeof(ns[0]), cmp_ll);
	printf("charge %s ns_per_page %.1f min %.1f reps %d pages %lu\n", c->name,
	       (double)ns[reps / 2] / pages, (double)ns[0] / pages, reps, pages);
}

static void __noreturn usage(int rc)
{
	fprintf(rc ? stderr : stdout, "usage: bench-charge [--lru classic|mglru] [--mib M] [--reps R]\n");
	exit(rc);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "lru", required_argument, NULL, 'l' },
		{ "mib", required_argument, NULL, 'm' },
		{ "reps", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *lru = NULL;
	size_t i;
	int c;

	prog_name = "bench-charge";
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (strcmp(optarg, "classic") && strcmp(optarg, "mglru"))
				usage(2);
			lru = optarg;
			break;
		case 'm':
			mib = strtoul(optarg, NULL, 10);
			if (mib < 1 || mib > 256)
				usage(2);
			break;
		case 'r':
			reps = atoi(optarg);
			if (reps < 1 || reps > MAX_REPS)
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
	report_lru(lru);
	printf("mib %lu reps %d\n", mib, reps);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(&cases[i]);
	return 0;
}
