// SPDX-License-Identifier: GPL-2.0
/*
 * stress - robustness runs for the soft limit in the hierarchical walk
 *
 *   stress [--seconds N] RUN
 *
 * Runs in the test guest (cgroup v1 memory controller at
 * /sys/fs/cgroup/memory, the data disk at /data with sparse files big0,
 * big1 of 400 MiB and small0..small7 of 200 MiB). Every run works below
 * /sys/fs/cgroup/memory/stress, is bounded by --seconds of pressure (30 by
 * default) plus set-up, and ends by checking that nothing was lost:
 *
 *   - no dying memcg left: cgroup v1 has no nr_dying_descendants, so the
 *     "memory" line of /proc/cgroups is used instead. Its num_cgroups
 *     counts a cgroup until its last css is freed, dying memcgs included;
 *     it must come back to its starting value within 60 s. Caches are
 *     dropped meanwhile, so page cache no longer pins the dead. After
 *     5 s a probe group charges a page on every CPU: a CPU's charge cache
 *     (memcg_stock) holds a reference to the memcg it last charged, and
 *     a cache that was used up is not drained when that memcg goes
 *     offline. After 10 s swap is turned off and on once: a freed swap
 *     entry waits in a per-CPU swap slot cache, still charged to its
 *     memcg, until the cache fills, and swapoff drains it;
 *   - the root's memory.usage_in_bytes back within 2 MiB of the start,
 *     read after a swap cycle, so that what the run pushed out of the
 *     root's own tasks to swap counts again;
 *   - no event counter (pg*, total_pg*) in the root's memory.stat went
 *     backwards, sampled every 200 ms for the whole run.
 *
 * vm.min_free_kbytes is raised for the run, see MIN_FREE_KIB.
 *
 * RUN is one of:
 *   churn     300 memcgs made and removed under global reclaim while
 *             another task rewrites their soft limits (time limit: three
 *             times --seconds, for slow debug kernels)
 *   rmdir     a soft-limited group killed and removed while reclaim walks
 *             it, over and over
 *   oom       an OOM kill in a soft-limited group under its parent's limit
 *   scale     1000 soft-limited memcgs under global pressure: classic LRU,
 *             MGLRU, then MGLRU switched on and off under pressure
 *   swapmix   anonymous memory with swap and page cache, across violators
 *             and conformers; anonymous data is verified after swap-in
 *             (the fill gets up to three times --seconds, then --seconds
 *             of checking)
 *   badinput  random and malformed writes to memory.soft_limit_in_bytes
 *             and memory.limit_in_bytes from several writers at once
 *
 * Output: "count KEY N" lines saying how much was tried, then TAP
 * ("ok N - ..." / "not ok N - ...", the plan last). Exit: 0 pass, 1 fail,
 * 2 usage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"

#define TOP_GROUP	"stress"	/* below MEMCG_ROOT, as cg_*() name it */
#define TOP		MEMCG_ROOT "/" TOP_GROUP
#define MIB		(1UL << 20)
#define PAGE		4096UL
#define MAX_STATS	128
#define DYING_WAIT_MS	60000
#define PROBE_AFTER_MS	5000
#define SWAP_CYCLE_AFTER_MS	10000
#define PROBE		MEMCG_ROOT "/stress-probe"

static int seconds = 30;


static void count(const char *key, unsigned long long n)
{
	printf("count %s %llu\n", key, n);
}

/*
 * sleep_ms(), but cut short by SIGTERM, which sleep_ms() sleeps through:
 * a task that stops on it (stop_on_term()) does not nap on.
 */
static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* xorshift64: each process seeds its own, so runs differ but stay cheap. */
static uint64_t rnd_state;

static void rnd_seed(void)
{
	rnd_state = ((uint64_t)getpid() << 32) ^ (uint64_t)now_ms() ^ 0x9e3779b97f4a7c15ULL;
}

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/*
 * read_u64(), but base 10, as this program has always read: what the kernel
 * prints there is decimal anyway.
 */
static unsigned long long read_dec(const char *path)
{
	char s[64];

	if (!read_text(path, s, sizeof(s)))
		die("read %s: %s", path, strerror(EIO));
	return strtoull(s, NULL, 10);
}

/* @group below TOP as the cg_*() functions name it, below MEMCG_ROOT. */
static const char *top_group(char *buf, const char *group)
{
	snprintf(buf, PATH_MAX, "%s/%s", TOP_GROUP, group);
	return buf;
}

static void group_file(char *buf, const char *group, const char *file)
{
	snprintf(buf, PATH_MAX, "%s/%s/%s", TOP, group, file);
}

static void make_group(const char *group, unsigned long soft, unsigned long limit)
{
	char name[PATH_MAX];

	top_group(name, group);
	cg_create(name);
	if (soft)
		cg_write_u64(name, "memory.soft_limit_in_bytes", soft);
	if (limit)
		cg_write_u64(name, "memory.limit_in_bytes", limit);
}

static void join_group(const char *group)
{
	char name[PATH_MAX];

	cg_enter(top_group(name, group));
}

static unsigned long group_usage(const char *group)
{
	char path[PATH_MAX];

	group_file(path, group, "memory.usage_in_bytes");
	return read_dec(path);
}

/*
 * Removes a group once its tasks are gone. A v1 rmdir fails with EBUSY
 * only while tasks remain, and ours are reaped before this is called, so
 * cg_remove()'s retries cover exit's last steps and nothing else.
 */
static void remove_group(const char *group)
{
	char name[PATH_MAX];

	cg_remove(top_group(name, group));
}

/* spawn() below TOP, the child seeded for an rnd() of its own. */
static void (*task_fn)(long);

static void seeded_task(long arg)
{
	rnd_seed();
	task_fn(arg);
}

static pid_t spawn_task(const char *group, void (*fn)(long), long arg)
{
	char name[PATH_MAX];

	task_fn = fn;
	return spawn(group ? top_group(name, group) : NULL, seeded_task, arg);
}

/* --- workloads run by the spawned tasks ---------------------------------- */

static const char *const big_files[] = { "/data/big0", "/data/big1" };
static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

static void stop_on_term(void)
{
	struct sigaction sa = { .sa_handler = on_term };

	sigaction(SIGTERM, &sa, NULL);
}

/* Reads @len bytes of @file from @off, in 256 KiB reads. */
static void read_range(const char *file, off_t off, size_t len)
{
	static char buf[256 << 10];
	int fd = open(file, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		die("open %s: %s", file, strerror(errno));
	while (len) {
		n = pread(fd, buf, len < sizeof(buf) ? len : sizeof(buf), off);
		if (n <= 0)
			die("read %s: %s", file, n ? strerror(errno) : "short");
		off += n;
		len -= n;
	}
	close(fd);
}

/* Global pressure: reads big file @which from start to end until SIGTERM. */
static void stream_big(long which)
{
	stop_on_term();
	while (!stopping)
		read_range(big_files[which % 2], 0, 400 * MIB);
}

/* Page cache in the caller's group: @kib KiB of a small file. */
static void read_small(long kib)
{
	char file[32];

	snprintf(file, sizeof(file), "/data/small%d", (int)(rnd() % 8));
	read_range(file, (rnd() % (200 * 1024 / kib)) * kib * 1024, kib * 1024);
}

/* Rereads a small file until SIGTERM. */
static void stream_small(long which)
{
	char file[32];

	stop_on_term();
	snprintf(file, sizeof(file), "/data/small%ld", which % 8);
	while (!stopping)
		read_range(file, 0, 200 * MIB);
}

/*
 * What an anonymous holder tells the runner, in memory both share: a
 * holder only sees swap-ins as its own major faults (getrusage).
 */
struct holder_report {
	long filled;		/* every page written once */
	long checked;		/* pages checked since the fill */
	long swapins;		/* major faults since the fill: pages read from swap */
};

/* Where the next hold_anon() reports; the runner sets it around spawn_task(). */
static struct holder_report *holder_report;

static long major_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_majflt;
}

/*
 * Anonymous memory with a pattern only this page can have; rewalked until
 * SIGTERM so that swapped pages come back and are checked. Exits 3 on a
 * corrupted page.
 */
static void hold_anon(long mib)
{
	struct holder_report dummy = { 0 }, *r = holder_report ?: &dummy;
	unsigned long pages = mib * MIB / PAGE, i;
	uint64_t seed = rnd();
	long majflt0;
	char *p;

	stop_on_term();
	p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap %ld MiB: %s", mib, strerror(errno));
	for (i = 0; i < pages; i++)
		*(uint64_t *)(p + i * PAGE) = seed ^ i;
	majflt0 = major_faults();
	r->filled = 1;
	while (!stopping) {
		for (i = 0; i < pages && !stopping; i++) {
			if (*(uint64_t *)(p + i * PAGE) != (seed ^ i)) {
				fprintf(stderr, "page %lu of %ld MiB corrupted\n", i, mib);
				exit(3);
			}
			r->checked++;
			if (!(i % 256))
				r->swapins = major_faults() - majflt0;
		}
		nap_ms(100);
	}
	r->swapins = major_faults() - majflt0;
	exit(0);
}

/*
 * Touches @mib MiB of anonymous memory once and exits. mmap, not malloc:
 * gcc may drop a malloc whose memory is only written and freed.
 */
static void touch_anon(long mib)
{
	char *p = mmap(NULL, mib * MIB, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long i;

	if (p == MAP_FAILED)
		die("mmap %ld MiB: %s", mib, strerror(errno));
	for (i = 0; i < mib * MIB; i += PAGE)
		p[i] = 1;
	munmap(p, mib * MIB);
}

/* Stops and reaps tasks that run until SIGTERM; returns how many failed. */
static int stop_all(pid_t *pids, int n)
{
	int i, bad = 0;

	for (i = 0; i < n; i++)
		kill(pids[i], SIGTERM);
	for (i = 0; i < n; i++)
		bad += reap(pids[i]) != 0;
	return bad;
}

static int start_pressure(pid_t *pids, const char *group)
{
	int i;

	for (i = 0; i < 2; i++)
		pids[i] = spawn_task(group, stream_big, i);
	return 2;
}

/* --- nothing lost ---------------------------------------------------------- */

struct stat_snapshot {
	int n;
	char name[MAX_STATS][48];
	unsigned long long val[MAX_STATS];
};

static void read_root_stat(struct stat_snapshot *s)
{
	FILE *f = fopen(MEMCG_ROOT "/memory.stat", "r");

	if (!f)
		die("open root memory.stat: %s", strerror(errno));
	s->n = 0;
	while (s->n < MAX_STATS &&
	       fscanf(f, "%47s %llu", s->name[s->n], &s->val[s->n]) == 2)
		s->n++;
	fclose(f);
}

/* Event counters only count up; state (cache, rss, ...) may fall. */
static bool is_event(const char *name)
{
	return !strncmp(name, "pg", 2) || !strncmp(name, "total_pg", 8);
}

/* Samples the root's memory.stat until SIGTERM; exits 1 if a counter fell. */
static void watch_counters(long unused)
{
	static struct stat_snapshot prev, cur;
	unsigned long samples = 0, fell = 0;
	int i, j;

	(void)unused;
	stop_on_term();
	read_root_stat(&prev);
	while (!stopping) {
		nap_ms(200);
		read_root_stat(&cur);
		samples++;
		for (i = 0; i < cur.n; i++) {
			if (!is_event(cur.name[i]))
				continue;
			for (j = 0; j < prev.n; j++) {
				if (strcmp(prev.name[j], cur.name[i]))
					continue;
				if (cur.val[i] < prev.val[j]) {
					printf("backwards %s %llu -> %llu\n",
					       cur.name[i], prev.val[j], cur.val[i]);
					fell++;
				}
				break;
			}
		}
		prev = cur;
	}
	count("stat_samples", samples);
	exit(fell != 0);
}

/* num_cgroups of the memory hierarchy, dying cgroups included. */
static unsigned long memcg_cgroups(void)
{
	FILE *f = fopen("/proc/cgroups", "r");
	char line[256], name[64];
	unsigned long hier, num, enabled;

	if (!f)
		die("open /proc/cgroups: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lu %lu %lu", name, &hier, &num, &enabled) == 4 &&
		    !strcmp(name, "memory")) {
			fclose(f);
			return num;
		}
	}
	die("/proc/cgroups has no memory line");
}

/* vmstat(), but 0 for a key the kernel lacks, where vmstat() dies. */
static unsigned long long vmstat_or_0(const char *key)
{
	unsigned long long val;

	return stat_lookup("/proc/vmstat", key, &val) ? val : 0;
}

static unsigned long long reclaimed_pages(void)
{
	return vmstat_or_0("pgsteal_kswapd") + vmstat_or_0("pgsteal_direct");
}

/*
 * Swap off and on again, when swap is on: it drains the per-CPU swap slot
 * caches, whose freed entries still pin their memcg (mm/swap_slots.c).
 */
static void cycle_swap(void)
{
	char dev[128] = "";
	FILE *f = fopen("/proc/swaps", "r");

	if (!f)
		die("open /proc/swaps: %s", strerror(errno));
	if (fscanf(f, "%*[^\n]\n%127s", dev) != 1)
		dev[0] = '\0';
	fclose(f);
	if (!dev[0])
		return;
	if (swapoff(dev) || swapon(dev, 0))
		die("cycling swap on %s: %s", dev, strerror(errno));
	count("swap_cycled", 1);
}

/* Charges a page from PROBE on @cpu. */
static void charge_on_cpu(long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity %ld: %s", cpu, strerror(errno));
	write_u64(PROBE "/cgroup.procs", getpid());
	touch_anon(1);
}

/*
 * Charges a page from PROBE on every CPU, so that no CPU's charge cache
 * keeps a removed memcg alive; PROBE itself stays for the next run.
 */
static void flush_charge_caches(void)
{
	long cpu, cpus = sysconf(_SC_NPROCESSORS_ONLN);

	for (cpu = 0; cpu < cpus; cpu++)
		if (reap(spawn_task(NULL, charge_on_cpu, cpu)))
			die("charge probe on CPU %ld failed", cpu);
	count("charge_caches_flushed", 1);
}

/*
 * Every run raises vm.min_free_kbytes from the 512 MiB guest's 2816 to
 * MIN_FREE_KIB. Under TCG kswapd falls behind these runs' allocation rates,
 * and GFP_ATOMIC allocations then fail with a warning in the kernel log:
 * virtio-blk's, for swapmix's swap I/O (vanilla with a hard limit in
 * place of the soft limit fails the same), and a signal's in scale, whose
 * MGLRU phases reclaim far slower than vanilla's (see the README's known
 * misses). The larger reserve keeps the log to real faults.
 */
#define MIN_FREE_KIB	16384
#define MIN_FREE_FILE	"/proc/sys/vm/min_free_kbytes"

struct baseline {
	unsigned long long min_free_kib;
	unsigned long cgroups;
	unsigned long long usage;
	unsigned long long reclaimed;
	pid_t watcher;
};

static void start_run(struct baseline *b)
{
	b->min_free_kib = read_dec(MIN_FREE_FILE);
	write_u64(MIN_FREE_FILE, MIN_FREE_KIB);
	drop_caches();
	if (mkdir(PROBE, 0755) && errno != EEXIST)
		die("mkdir %s: %s", PROBE, strerror(errno));
	b->cgroups = memcg_cgroups();
	b->usage = read_dec(MEMCG_ROOT "/memory.usage_in_bytes");
	b->reclaimed = reclaimed_pages();
	b->watcher = spawn_task(NULL, watch_counters, 0);
	cg_create(TOP_GROUP);
}

/* Called with every group below TOP removed. */
static void end_run(const struct baseline *b)
{
	long start = now_ms(), waited;
	unsigned long n;
	long long usage;
	int probed = 0, cycled = 0;

	if (rmdir(TOP))
		die("rmdir %s: %s", TOP, strerror(errno));
	count("pages_reclaimed", reclaimed_pages() - b->reclaimed);
	do {
		drop_caches();
		if (now_ms() - start > PROBE_AFTER_MS && !probed++)
			flush_charge_caches();
		if (now_ms() - start > SWAP_CYCLE_AFTER_MS && !cycled++)
			cycle_swap();
		n = memcg_cgroups();
		waited = now_ms() - start;
		if (n == b->cgroups)
			break;
		sleep_ms(250);
	} while (waited < DYING_WAIT_MS);
	tap_check(n == b->cgroups,
	      "no dying memcg left: /proc/cgroups memory num_cgroups %lu, %lu before (%ld ms)",
	      n, b->cgroups, waited);

	/*
	 * Pressure may have swapped out pages of the tasks in the root (init,
	 * this runner): swapoff brings them back, so that the usage compares
	 * with the start, when nothing was in swap.
	 */
	if (!cycled)
		cycle_swap();
	usage = read_dec(MEMCG_ROOT "/memory.usage_in_bytes");
	tap_check(llabs(usage - (long long)b->usage) <= (long long)(2 * MIB),
	      "root usage back to its start: %lld KiB, %llu KiB before",
	      usage >> 10, b->usage >> 10);

	write_u64(MIN_FREE_FILE, b->min_free_kib);
	kill(b->watcher, SIGTERM);
	tap_check(reap(b->watcher) == 0,
	      "no event counter in the root's memory.stat went backwards");
}

/* --- churn ------------------------------------------------------------------- */

#define CHURN_WINDOW	16
#define CHURN_GROUPS	300	/* made and removed in all */

struct shared_counts {
	unsigned long made, soft_writes, soft_gone, soft_errors, bad_tasks;
};

static struct shared_counts *shared;

static void map_shared(size_t size)
{
	shared = mmap(NULL, size, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		die("mmap shared: %s", strerror(errno));
}

/*
 * One churner: keeps a window of groups, each given a random soft limit
 * and up to 1 MiB of page cache by a short task, and replaces the oldest
 * until CHURN_GROUPS were made or the time is up. The page cache makes the
 * removed ones dying memcgs that reclaim still walks.
 */
static void churner(long id)
{
	char names[CHURN_WINDOW][32];
	/* a bound against hangs: the debug kernel on one TCG thread needs 100 s */
	long deadline = now_ms() + seconds * 5000L;
	unsigned long n = 0;
	int i;

	for (i = 0; i < CHURN_WINDOW; i++)
		names[i][0] = '\0';
	while (now_ms() < deadline &&
	       __atomic_load_n(&shared->made, __ATOMIC_RELAXED) < CHURN_GROUPS) {
		char *name = names[n % CHURN_WINDOW];

		if (name[0])
			remove_group(name);
		snprintf(name, 32, "churn/c%ld-%lu", id, n);
		make_group(name, (1 + rnd() % 16) * MIB, 0);
		if (reap(spawn_task(name, read_small, 64 << (rnd() % 5))))
			__atomic_add_fetch(&shared->bad_tasks, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&shared->made, 1, __ATOMIC_RELAXED);
		n++;
	}
	for (i = 0; i < CHURN_WINDOW; i++)
		if (names[i][0])
			remove_group(names[i]);
}

/* Rewrites the soft limits of whatever churn groups exist right now. */
static void soft_limit_writer(long unused)
{
	char path[PATH_MAX], val[32];
	struct dirent *de;
	DIR *d;
	int err;

	(void)unused;
	stop_on_term();
	while (!stopping) {
		d = opendir(TOP "/churn");
		if (!d)
			die("opendir %s/churn: %s", TOP, strerror(errno));
		while (!stopping && (de = readdir(d))) {
			if (de->d_type != DT_DIR || de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/churn/%s/memory.soft_limit_in_bytes",
				 TOP, de->d_name);
			snprintf(val, sizeof(val), "%llu",
				 (unsigned long long)(rnd() % 32) * MIB);
			err = try_write(path, val);
			__atomic_add_fetch(&shared->soft_writes, 1, __ATOMIC_RELAXED);
			/* a group removed since readdir() is no error */
			if (err == ENOENT || err == ENODEV)
				__atomic_add_fetch(&shared->soft_gone, 1, __ATOMIC_RELAXED);
			else if (err && !__atomic_fetch_add(&shared->soft_errors, 1,
							       __ATOMIC_RELAXED))
				printf("soft limit write to %s: %s\n", path, strerror(err));
		}
		closedir(d);
	}
}

static void run_churn(void)
{
	pid_t pressure[2], churners[2], writer;
	int i, bad;

	map_shared(sizeof(*shared));
	make_group("pressure", 0, 0);
	make_group("churn", 0, 0);
	start_pressure(pressure, "pressure");
	writer = spawn_task(NULL, soft_limit_writer, 0);
	for (i = 0; i < 2; i++)
		churners[i] = spawn_task(NULL, churner, i);
	bad = 0;
	for (i = 0; i < 2; i++)
		bad += reap(churners[i]) != 0;
	bad += stop_all(&writer, 1);
	bad += stop_all(pressure, 2);
	remove_group("churn");
	remove_group("pressure");

	count("groups_made", shared->made);
	count("soft_limit_writes", shared->soft_writes);
	count("soft_limit_writes_to_removed_groups", shared->soft_gone);
	count("soft_limit_write_errors", shared->soft_errors);
	tap_check(!bad && !shared->bad_tasks, "every task finished cleanly");
	tap_check(shared->made >= CHURN_GROUPS, "%d memcgs made and removed: %lu",
	      CHURN_GROUPS, shared->made);
	tap_check(!shared->soft_errors,
	      "soft limit writes failed only on removed groups: %lu other errors",
	      shared->soft_errors);
}

/* --- rmdir ------------------------------------------------------------------- */

/*
 * A violator is the first thing reclaim walks, so killing its tasks and
 * removing it at a random moment under pressure removes it while reclaim
 * is walking it, or about to.
 */
static void run_rmdir(void)
{
	long deadline = now_ms() + seconds * 1000L;
	unsigned long long reclaimed = reclaimed_pages();
	unsigned long rounds = 0, was_over = 0;
	pid_t pressure[2], tasks[2];
	int bad;

	make_group("pressure", 0, 0);
	start_pressure(pressure, "pressure");
	bad = 0;
	while (now_ms() < deadline) {
		make_group("victim", 8 * MIB, 0);
		tasks[0] = spawn_task("victim", stream_small, rounds);
		tasks[1] = spawn_task("victim", hold_anon, 16);
		sleep_ms(200 + rnd() % 800);
		was_over += group_usage("victim") > 8 * MIB;
		kill(tasks[0], SIGKILL);
		kill(tasks[1], SIGKILL);
		bad += reap(tasks[0]) != 128 + SIGKILL;
		bad += reap(tasks[1]) != 128 + SIGKILL;
		remove_group("victim");
		rounds++;
	}
	reclaimed = reclaimed_pages() - reclaimed;
	bad += stop_all(pressure, 2);
	remove_group("pressure");

	count("groups_removed_under_reclaim", rounds);
	count("removed_while_over_soft_limit", was_over);
	tap_check(!bad, "every victim task died by SIGKILL and pressure kept going");
	tap_check(rounds >= 10, "a soft-limited group removed under reclaim %lu times", rounds);
	tap_check(was_over > 0 && reclaimed > 0,
	      "reclaim ran meanwhile (%llu pages) with the victim over its soft limit",
	      reclaimed);
}

/* --- oom ----------------------------------------------------------------------- */

static unsigned long long oom_kills(const char *group)
{
	char path[PATH_MAX], name[64];
	unsigned long long val, kills = 0;
	FILE *f;

	group_file(path, group, "memory.oom_control");
	f = fopen(path, "r");
	if (!f)
		die("open %s: %s", path, strerror(errno));
	while (fscanf(f, "%63s %llu", name, &val) == 2)
		if (!strcmp(name, "oom_kill"))
			kills = val;
	fclose(f);
	return kills;
}

/*
 * P has a hard limit of 96 MiB. A (soft limit 16 MiB) runs a task that
 * wants 200 MiB without swap; B holds 24 MiB and checks it. The OOM kill
 * must take A's task, leave B's alone and leave P able to run the next
 * task. Three rounds, so a broken state after the first kill shows.
 */
static void run_oom(void)
{
	unsigned long long kills_a, kills_b;
	pid_t holder, hog;
	int round, hog_rc, next_rc, bad_rounds = 0;
	bool holder_alive = true;

	make_group("P", 0, 96 * MIB);
	make_group("P/A", 16 * MIB, 0);
	make_group("P/B", 0, 0);
	holder = spawn_task("P/B", hold_anon, 24);
	kills_a = oom_kills("P/A");
	kills_b = oom_kills("P/B");
	for (round = 0; round < 3; round++) {
		hog = spawn_task("P/A", touch_anon, 200);
		hog_rc = reap(hog);
		holder_alive &= !kill(holder, 0) && waitpid(holder, NULL, WNOHANG) == 0;
		next_rc = reap(spawn_task("P/A", touch_anon, 32));
		printf("round %d: hog rc %d, next task rc %d, P usage %lu KiB\n",
		       round, hog_rc, next_rc, group_usage("P") >> 10);
		bad_rounds += hog_rc != 128 + SIGKILL || next_rc != 0;
	}
	count("oom_rounds", round);
	kills_a = oom_kills("P/A") - kills_a;
	kills_b = oom_kills("P/B") - kills_b;
	count("oom_kills_in_A", kills_a);
	count("oom_kills_in_B", kills_b);
	tap_check(!bad_rounds, "each round: A's hog OOM-killed, the next task in A ran to the end");
	/* v1 counts an OOM kill in the victim's memcg only, not up the tree */
	tap_check(kills_a == 3 && kills_b == 0, "A counted one OOM kill a round, B none");
	tap_check(holder_alive, "B's task lived through the kills");
	kill(holder, SIGTERM);
	tap_check(reap(holder) == 0, "B's 24 MiB came back intact");
	tap_check(group_usage("P") <= 96 * MIB, "P within its hard limit");
	remove_group("P/A");
	remove_group("P/B");
	remove_group("P");
}

/* --- scale -------------------------------------------------------------------- */

#define SCALE_GROUPS	1000

static void set_mglru(bool on)
{
	write_str(LRU_GEN_FILE, on ? "y" : "n");
}

/* Turns MGLRU on and off every 500 ms until SIGTERM; exits with how often. */
static void toggle_mglru(long unused)
{
	unsigned long flips = 0;

	(void)unused;
	stop_on_term();
	while (!stopping) {
		set_mglru(flips % 2);
		flips++;
		nap_ms(500);
	}
	count("mglru_switches", flips);
	exit(0);
}

/*
 * One task walks through the 1000 groups and reads @kib KiB in each: a
 * move is far cheaper than a fork, which counts on debug kernels.
 */
static void fill_scale_groups(long kib)
{
	char name[32];
	int i;

	for (i = 0; i < SCALE_GROUPS; i++) {
		snprintf(name, sizeof(name), "scale/g%d", i);
		join_group(name);
		read_small(kib);
	}
}

/* One phase of pressure on the 1000 groups, each given 128 KiB anew. */
static int scale_phase(const char *mode, long ms)
{
	unsigned long long before, after, stolen;
	pid_t pressure[2], toggler = 0;
	long deadline, start = now_ms(), filled;
	int bad = 0;

	drop_caches();
	bad += reap(spawn_task(NULL, fill_scale_groups, 128)) != 0;
	filled = now_ms();
	before = group_usage("scale");
	stolen = reclaimed_pages();
	if (!strcmp(mode, "switching"))
		toggler = spawn_task(NULL, toggle_mglru, 0);
	start_pressure(pressure, "pressure");
	deadline = now_ms() + ms;
	while (now_ms() < deadline)
		sleep_ms(100);
	bad += stop_all(pressure, 2);
	if (toggler)
		bad += stop_all(&toggler, 1);
	after = group_usage("scale");
	printf("phase %s: 1000 groups %llu -> %llu KiB, %llu pages reclaimed; fill %ld ms, pressure and stop %ld ms\n",
	       mode, before >> 10, after >> 10, reclaimed_pages() - stolen,
	       filled - start, now_ms() - filled);
	tap_check(after < before, "%s: the 1000 soft-limited groups gave memory back", mode);
	return bad;
}

static void run_scale(void)
{
	char name[32];
	long phase_ms = seconds * 1000L / 3;
	int i, bad = 0;

	if (!has_lru_gen())
		die("%s missing: scale needs CONFIG_LRU_GEN", LRU_GEN_FILE);
	make_group("pressure", 0, 0);
	make_group("scale", 0, 0);
	for (i = 0; i < SCALE_GROUPS; i++) {
		snprintf(name, sizeof(name), "scale/g%d", i);
		make_group(name, (32 + rnd() % 32) * 1024, 0);
	}
	count("groups_made", SCALE_GROUPS);
	set_mglru(false);
	bad += scale_phase("classic", phase_ms);
	set_mglru(true);
	bad += scale_phase("mglru", phase_ms);
	bad += scale_phase("switching", phase_ms);
	set_mglru(false);
	tap_check(!bad, "every task finished cleanly");
	for (i = 0; i < SCALE_GROUPS; i++) {
		snprintf(name, sizeof(name), "scale/g%d", i);
		remove_group(name);
	}
	remove_group("scale");
	remove_group("pressure");
}

/* --- swapmix ----------------------------------------------------------------- */

struct mix_group {
	const char *name;
	unsigned long soft_mib;
	void (*fn)(long);
	long arg;		/* for hold_anon: percent of MemTotal */
};

/*
 * The anonymous holders together want MemTotal plus 10%: swap must work.
 * The violator's holder comes first: its report is the one that must
 * show pages read back from swap.
 */
static const struct mix_group mix_groups[] = {
	{ "viol-anon", 32, hold_anon, 60 },
	{ "conf-anon", 0, hold_anon, 50 },
	{ "viol-file", 32, stream_small, 0 },
	{ "conf-file", 0, stream_small, 1 },
};

#define MIX_HOLDERS	2


/* Waits up to @ms for every holder to fill its memory; true if they did. */
static bool wait_filled(struct holder_report *reports, long ms)
{
	long deadline = now_ms() + ms;
	int i, filled;

	do {
		for (i = 0, filled = 0; i < MIX_HOLDERS; i++)
			filled += reports[i].filled;
		if (filled == MIX_HOLDERS)
			return true;
		sleep_ms(100);
	} while (now_ms() < deadline);
	return false;
}

/*
 * More anonymous memory than the guest has, and two file streams: pages
 * must go to swap and come back, and each holder checks the pages it
 * gets back. The fill alone takes most of a minute on a debug kernel,
 * so it gets up to three times --seconds, and --seconds of checking
 * follow it: a full pass over pages that mostly live in swap does not
 * fit in a debug guest's five minutes, the pages read back from swap and
 * checked are counted instead.
 */
static void run_swapmix(void)
{
	unsigned long long out0 = vmstat_or_0("pswpout");
	unsigned long long in0 = vmstat_or_0("pswpin");
	unsigned long long oom0 = vmstat_or_0("oom_kill");
	pid_t pids[ARRAY_SIZE(mix_groups)];
	long mem_mib = meminfo_kib("MemTotal") >> 10, start = now_ms();
	struct holder_report *reports;
	unsigned int i;
	bool filled;
	int bad;

	if (!meminfo_kib("SwapTotal"))
		die("no swap: swapmix runs with SWAP 1 in tests.list");
	reports = mmap(NULL, MIX_HOLDERS * sizeof(*reports), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (reports == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	for (i = 0; i < ARRAY_SIZE(mix_groups); i++) {
		const struct mix_group *g = &mix_groups[i];

		make_group(g->name, g->soft_mib * MIB, 0);
		holder_report = i < MIX_HOLDERS ? &reports[i] : NULL;
		pids[i] = spawn_task(g->name, g->fn,
				     g->fn == hold_anon ? g->arg * mem_mib / 100 : g->arg);
	}
	holder_report = NULL;
	filled = wait_filled(reports, seconds * 3000L);
	count("fill_ms", now_ms() - start);
	sleep_ms(seconds * 1000L);
	for (i = 0; i < ARRAY_SIZE(mix_groups); i++)
		printf("usage %s %lu MiB (soft limit %lu MiB)\n", mix_groups[i].name,
		       group_usage(mix_groups[i].name) / MIB, mix_groups[i].soft_mib);
	bad = stop_all(pids, ARRAY_SIZE(mix_groups));
	for (i = 0; i < ARRAY_SIZE(mix_groups); i++)
		remove_group(mix_groups[i].name);

	for (i = 0; i < MIX_HOLDERS; i++)
		printf("holder %s: %ld pages checked after the fill, %ld read from swap\n",
		       mix_groups[i].name, reports[i].checked, reports[i].swapins);
	count("seconds", (now_ms() - start) / 1000);
	count("pages_swapped_out", vmstat_or_0("pswpout") - out0);
	count("pages_swapped_in", vmstat_or_0("pswpin") - in0);
	tap_check(filled, "both anonymous holders filled their memory");
	tap_check(reports[0].checked && reports[1].checked,
	      "both holders checked their pages after the fill");
	tap_check(reports[0].swapins > 0,
	      "the violator's holder read pages back from swap and checked them");
	tap_check(!bad, "every task ended cleanly: anonymous data intact after swap-in");
	tap_check(vmstat_or_0("pswpout") > out0 && vmstat_or_0("pswpin") > in0,
	      "anonymous memory went to swap and came back");
	tap_check(vmstat_or_0("oom_kill") == oom0, "nothing OOM-killed");
	munmap(reports, MIX_HOLDERS * sizeof(*reports));
}

/* --- badinput --------------------------------------------------------------- */

#define CORPUS		64
#define WRITERS		4
#define READERS		2

enum { SOFT, LIMIT, NR_KNOBS };

static const char *const knob_files[NR_KNOBS] = {
	"memory.soft_limit_in_bytes", "memory.limit_in_bytes",
};

static const char *const fixed_inputs[] = {
	"-1", "0", "1", "4096", "4097", "12345678", "64M", "64m", "1G", "2k",
	"0x100000", "010", " 8M ", "8M\n", "100000000000000000",
	"18446744073709551615", "18446744073709551616", "-2", "", "\n", "abc",
	"1x", "max", "1 2", "--1", "-1 ", "+5", "1e6", "9999999999999999999999",
};

struct corpus {
	int n;
	char s[CORPUS][24];	/* the longest fixed input is 22 bytes */
	size_t len[CORPUS];
	int err[NR_KNOBS][CORPUS];			/* errno on the quiet group */
	unsigned long long val[NR_KNOBS][CORPUS];	/* read back there */
};

struct badinput_shared {
	struct corpus c;
	unsigned long writes, refused, wrong_errno, bad_reads, reads;
	bool set[NR_KNOBS][CORPUS];	/* some writer's write succeeded */
};

static struct badinput_shared *bis;

/* Fixed inputs, then random bytes from an alphabet the parser cares about. */
static void make_corpus(struct corpus *c)
{
	static const char alphabet[] = "0123456789kKmMgGxX- \n\t+.";
	unsigned int i;
	size_t j;

	for (i = 0; i < ARRAY_SIZE(fixed_inputs); i++) {
		c->len[i] = strlen(fixed_inputs[i]);
		memcpy(c->s[i], fixed_inputs[i], c->len[i]);
	}
	for (; i < CORPUS; i++) {
		c->len[i] = 1 + rnd() % 12;
		for (j = 0; j < c->len[i]; j++)
			c->s[i][j] = rnd() % 4 ? alphabet[rnd() % (sizeof(alphabet) - 1)]
					       : (char)(1 + rnd() % 255);
	}
	c->n = CORPUS;
}

/*
 * try_write() of input @i. Its slot holds its bytes without a NUL (random
 * ones may hold any byte but NUL): c->len[i] says where it ends.
 */
static int write_input(const char *path, const struct corpus *c, int i)
{
	char s[sizeof(c->s[0]) + 1];

	memcpy(s, c->s[i], c->len[i]);
	s[c->len[i]] = '\0';
	return try_write(path, s);
}

/* What each input does on a quiet group: the parser's answer. */
static void learn_corpus(struct corpus *c)
{
	char path[PATH_MAX];
	int k, i;

	make_group("quiet", 0, 0);
	for (k = 0; k < NR_KNOBS; k++) {
		group_file(path, "quiet", knob_files[k]);
		for (i = 0; i < c->n; i++) {
			c->err[k][i] = write_input(path, c, i);
			c->val[k][i] = c->err[k][i] ? 0 : read_dec(path);
		}
	}
	remove_group("quiet");
}

static bool is_written_value(int k, unsigned long long v, bool only_set)
{
	int i;

	for (i = 0; i < bis->c.n; i++)
		if (!bis->c.err[k][i] && bis->c.val[k][i] == v &&
		    (!only_set || bis->set[k][i]))
			return true;
	return false;
}

static void bad_writer(long deadline)
{
	char path[PATH_MAX];
	int i, k, err;

	while (now_ms() < deadline) {
		i = rnd() % bis->c.n;
		k = rnd() % NR_KNOBS;
		group_file(path, "target", knob_files[k]);
		err = write_input(path, &bis->c, i);
		__atomic_add_fetch(&bis->writes, 1, __ATOMIC_RELAXED);
		if (err)
			__atomic_add_fetch(&bis->refused, 1, __ATOMIC_RELAXED);
		else
			bis->set[k][i] = true;
		if (err != bis->c.err[k][i]) {
			__atomic_add_fetch(&bis->wrong_errno, 1, __ATOMIC_RELAXED);
			printf("input %d to %s: errno %d, the parser gives %d\n",
			       i, knob_files[k], err, bis->c.err[k][i]);
		}
	}
}

/* Any value read while writers run is one an input can set. */
static void knob_reader(long deadline)
{
	char path[PATH_MAX];
	unsigned long long v;
	int k;

	while (now_ms() < deadline) {
		for (k = 0; k < NR_KNOBS; k++) {
			group_file(path, "target", knob_files[k]);
			v = read_dec(path);
			__atomic_add_fetch(&bis->reads, 1, __ATOMIC_RELAXED);
			if (!is_written_value(k, v, false)) {
				__atomic_add_fetch(&bis->bad_reads, 1, __ATOMIC_RELAXED);
				printf("%s read %llu, no input sets it\n", knob_files[k], v);
			}
		}
	}
}

static void run_badinput(void)
{
	long deadline = now_ms() + seconds * 1000L;
	pid_t pids[WRITERS + READERS];
	unsigned long same = 0;
	char path[PATH_MAX];
	int i, k, bad = 0;

	bis = mmap(NULL, sizeof(*bis), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (bis == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	make_corpus(&bis->c);
	learn_corpus(&bis->c);
	for (i = 0; i < bis->c.n; i++)
		same += bis->c.err[SOFT][i] == bis->c.err[LIMIT][i] &&
			bis->c.val[SOFT][i] == bis->c.val[LIMIT][i];
	tap_check(same == (unsigned long)bis->c.n,
	      "each of %d inputs: soft limit parses like limit_in_bytes (%lu agree)",
	      bis->c.n, same);

	make_group("target", 0, 0);
	for (i = 0; i < WRITERS; i++)
		pids[i] = spawn_task(NULL, bad_writer, deadline);
	for (; i < WRITERS + READERS; i++)
		pids[i] = spawn_task(NULL, knob_reader, deadline);
	for (i = 0; i < WRITERS + READERS; i++)
		bad += reap(pids[i]) != 0;

	count("writes", bis->writes);
	count("writes_refused", bis->refused);
	count("reads", bis->reads);
	tap_check(!bad, "writers and readers ended cleanly");
	tap_check(!bis->wrong_errno, "every write got the parser's answer: %lu did not",
	      bis->wrong_errno);
	tap_check(!bis->bad_reads, "every read under fire is a value an input sets: %lu were not",
	      bis->bad_reads);
	for (k = 0; k < NR_KNOBS; k++) {
		group_file(path, "target", knob_files[k]);
		tap_check(is_written_value(k, read_dec(path), true),
		      "%s afterwards is a value some writer set", knob_files[k]);
	}
	tap_check(bis->refused > 0 && bis->refused < bis->writes,
	      "the corpus had inputs both refused and taken");
	remove_group("target");
}

/* --- main ---------------------------------------------------------------------- */

static const struct {
	const char *name;
	void (*run)(void);
} runs[] = {
	{ "churn", run_churn },
	{ "rmdir", run_rmdir },
	{ "oom", run_oom },
	{ "scale", run_scale },
	{ "swapmix", run_swapmix },
	{ "badinput", run_badinput },
};

static void __noreturn usage(void)
{
	unsigned int i;

	fprintf(stderr, "usage: stress [--seconds N] RUN\nruns:");
	for (i = 0; i < ARRAY_SIZE(runs); i++)
		fprintf(stderr, " %s", runs[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ }
	};
	struct baseline base;
	unsigned int i;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 's')
			usage();
		seconds = atoi(optarg);
		if (seconds <= 0)
			usage();
	}
	if (optind != argc - 1)
		usage();
	for (i = 0; i < ARRAY_SIZE(runs); i++)
		if (!strcmp(argv[optind], runs[i].name))
			break;
	if (i == ARRAY_SIZE(runs))
		usage();
	if (access(MEMCG_ROOT "/memory.soft_limit_in_bytes", F_OK))
		die("no cgroup v1 memory controller at %s", MEMCG_ROOT);

	setvbuf(stdout, NULL, _IOLBF, 0);
	rnd_seed();
	printf("run %s, %d s of activity\n", runs[i].name, seconds);
	start_run(&base);
	runs[i].run();
	end_run(&base);
	return tap_end();
}
