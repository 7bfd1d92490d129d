// SPDX-License-Identifier: GPL-2.0
/*
 * workload - the machine shapes and workloads a reviewer of a reclaim
 * change asks about, with the instruments of measure.c.
 *
 *   workload [--lru classic|mglru] [--scale N] SCENARIO
 *
 * Runs in the test guest on cgroup v1 (512 MiB unless said; /data holds
 * the sparse files big0, big1 of 400 MiB and small0..7 of 200 MiB, read
 * back as ordinary clean page cache). "A" is always the group with the
 * soft limit, the violator; "B" is the group that did nothing wrong.
 *
 *   latency-file  A (soft limit 64M) streams big0 over and over while B
 *                 faults in 300 MiB of anonymous memory page by page
 *   latency-anon  zram swap; A (soft limit 64M) holds 300 MiB of anonymous
 *                 memory while B faults in 300 MiB
 *   thp           as latency-anon, THP enabled "always" (through sysfs:
 *                 the kernel turns THP off in a guest this small)
 *   slab          A (soft limit 64M) streams big0 while B looks up
 *                 1,500,000 names that do not exist (negative dentries);
 *                 first, without pressure, B's first 15,000 lookups
 *                 check that dentry-state sees them
 *   numa          2 nodes: A (soft limit 32M) reads big0, B reads big1,
 *                 both bound to node 0, then A to node 0 and B to node 1
 *   knobflip      one CPU writes A's soft limit between -1 and 64M for 5 s,
 *                 then between 64M and 128M, while CPU 1 runs a fixed loop
 *   scale         --scale N memcgs (10,000); 4 of them read 1.2 GiB: once
 *                 with no soft limit, once with one (on an idle memcg)
 *   deep          G > P > M (soft limit 32M) > M1, M2 readers, P > O
 *                 reader: machine pressure, then G's hard limit 256M
 *   lxd           three containers, hard limits 224M, soft limits 90% of
 *                 them (LXD on cgroup v1), read 400/400/200 MiB
 *   android       (1 GiB) 20 apps, lmkd's per-app soft limits: 16
 *                 background (0) and 4 foreground (64M) apps touch 48 MiB
 *                 working sets of file pages in turns
 *
 * Output: "scenario", "lru", "usage GROUP MIB", the instruments' "metric",
 * "cdf" and "slab" lines (measure.h), then TAP checks that the instruments
 * themselves work (the trace accounts for the reclaim counters, every page
 * was timed, ...): this program reports the truth, it asserts no kernel's
 * placement. Exit: 0 pass, 1 a check failed or an error, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup.h"
#include "measure.h"

#define MIB		(1UL << 20)
#define MPOL_BIND	2

static long scale_groups = 10000;
static const char *const files[] = { "/data/big0", "/data/big1",
				     "/data/small0", "/data/small1" };


static void print_usage(const char *group)
{
	printf("usage %s %llu\n", group, cg_usage(group) / MIB);
}

static void make_group(const char *group, unsigned long soft_mib,
		       unsigned long limit_mib)
{
	cg_create(group);
	if (limit_mib)
		cg_write_u64(group, "memory.limit_in_bytes", limit_mib * MIB);
	if (soft_mib)
		cg_write_u64(group, "memory.soft_limit_in_bytes",
			     soft_mib * MIB);
}

/* Children until SIGTERM: streaming readers, hot anonymous holders. */
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* Returns false when stopped in the middle. */
static bool read_file(const char *file)
{
	static char buf[MIB];
	ssize_t n;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("open %s: %s", file, strerror(errno));
	while (!stop && (n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return !stop;
}

static void stream(long file)
{
	signal(SIGTERM, on_term);
	while (read_file(files[file]))
		;
}

static void read_passes(long arg)
{
	int pass;

	for (pass = 0; pass < 3; pass++)
		read_file(files[arg]);
}

static void end_child(pid_t pid)
{
	kill(pid, SIGTERM);
	if (reap(pid))
		die("a child ended with a failure");
}

static char *map_anon(unsigned long mib, bool huge)
{
	size_t size = mib * MIB;
	char *mem = mmap(NULL, size + 2 * MIB, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		die("mmap %lu MiB: %s", mib, strerror(errno));
	/* 2 MiB aligned, so that every huge page can be a huge page */
	mem = (char *)(((unsigned long)mem + 2 * MIB - 1) & ~(2 * MIB - 1));
	if (huge && madvise(mem, size, MADV_HUGEPAGE))
		die("madvise MADV_HUGEPAGE: %s (CONFIG_TRANSPARENT_HUGEPAGE?)",
		    strerror(errno));
	return mem;
}

static void touch(volatile char *mem, unsigned long mib)
{
	size_t off;

	for (off = 0; off < mib * MIB && !stop; off += 4096)
		mem[off] = 1;	/* a write: a read would map the (huge) zero page */
}

/*
 * A holder faults in @mib of anonymous memory, says so on holder_ready,
 * and holds it until SIGTERM: a large idle footprint, which swap can
 * take. (Kept hot, 300 MiB beside B's 300 MiB in 512 MiB thrash: B made
 * no progress in minutes, on the shipped kernel too.) Negative @mib: the
 * same in huge pages.
 */
static int holder_ready = -1;

static void hold(long arg)
{
	unsigned long mib = labs(arg);
	char *mem = map_anon(mib, arg < 0);

	signal(SIGTERM, on_term);
	touch(mem, mib);
	if (write(holder_ready, "", 1) != 1)
		die("holder: ready: %s", strerror(errno));
	while (!stop)
		pause();
}

/* spawn(), then wait until the child writes to holder_ready. */
static pid_t spawn_ready(const char *group, void (*fn)(long), long arg)
{
	int fds[2];
	char c;
	pid_t pid;

	if (pipe(fds))
		die("pipe: %s", strerror(errno));
	holder_ready = fds[1];
	pid = spawn(group, fn, arg);
	close(fds[1]);
	if (read(fds[0], &c, 1) != 1)
		die("the task in %s died before it was ready", group);
	close(fds[0]);
	return pid;
}

/*
 * The task that did nothing wrong: faults in @mib page by page as fast
 * as it can, timing each fault in guest time, and reports the
 * distribution and its own major faults.
 */
static void fault_timed(long mib)
{
	volatile char *mem = map_anon(mib, false);
	struct samples lat = { 0 };
	struct rusage ru;
	long long t0, t1;
	size_t off;

	for (off = 0; off < mib * MIB; off += 4096) {
		t0 = now_ns();
		mem[off] = 1;
		t1 = now_ns();
		samples_add(&lat, (t1 - t0) / 1e3);
	}
	if (lat.n != mib * MIB / 4096)
		die("B timed %zu faults of %lu", lat.n, mib * MIB / 4096);
	samples_report("B", "fault_us", &lat);
	getrusage(RUSAGE_SELF, &ru);
	printf("metric B.majflt %ld\n", ru.ru_majflt);
	/* B holds its memory until told, so that usage is read with it in */
	signal(SIGTERM, on_term);
	if (write(holder_ready, "", 1) != 1)
		die("B: ready: %s", strerror(errno));
	while (!stop)
		pause();
}

/* zram as swap: a swap header (mm/swapfile.c's union swap_header). */
static void zram_swap_on(unsigned long mib)
{
	static char page[4096];
	unsigned int *info = (unsigned int *)(page + 1024);
	int fd;

	if (access("/sys/block/zram0", F_OK))
		die("no /sys/block/zram0 (CONFIG_ZRAM)");
	write_u64("/sys/block/zram0/disksize", mib * MIB);
	info[0] = 1;				/* version */
	info[1] = mib * MIB / 4096 - 1;		/* last_page */
	memcpy(page + 4096 - 10, "SWAPSPACE2", 10);
	fd = open("/dev/zram0", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, page, sizeof(page)) != sizeof(page))
		die("writing the swap header to /dev/zram0: %s",
		    strerror(errno));
	close(fd);
	if (swapon("/dev/zram0", 0))
		die("swapon /dev/zram0: %s", strerror(errno));
}

/* The instruments around one phase: counters, trace, the checks on them. */
struct phase {
	const char *name;
	struct snapshot before, after;
	struct reclaim_calls calls;
};

static void phase_start(struct phase *ph, const char *name)
{
	ph->name = name;
	snapshot_take(&ph->before);
	trace_reclaim_start();
}

static void phase_end(struct phase *ph)
{
	unsigned long long steal;

	snapshot_take(&ph->after);
	ph->calls = trace_reclaim_report(ph->name);
	snapshot_report(ph->name, &ph->before, &ph->after);
	steal = ph->after.pgsteal_direct - ph->before.pgsteal_direct;
	/*
	 * pgsteal_direct counts the LRU pages of global direct reclaim (limit
	 * reclaim counts only in memory.stat); a call's nr_reclaimed also
	 * counts slab pages, so it may only be larger. A call that began
	 * before the trace did is not in it: 5% slack.
	 */
	tap_check(ph->calls.lost == 0 &&
		  ph->calls.direct_pages + 32 >= steal * 0.95,
		  "%s: the trace saw %llu reclaim calls, direct ones for %llu pages; pgsteal_direct %llu (%llu events lost)",
		  ph->name, ph->calls.calls, ph->calls.direct_pages, steal,
		  ph->calls.lost);
}

/* A's memory in transparent huge pages, and the machine's THP faults */
static void print_rss_huge(const char *when)
{
	unsigned long long rss_huge = 0;

	cg_stat("A", "rss_huge", &rss_huge);
	printf("metric A.rss_huge_mib_%s %llu\n", when, rss_huge / MIB);
	printf("metric A.thp_fault_alloc_%s %llu\n", when,
	       vmstat("thp_fault_alloc"));
	printf("metric A.thp_fault_fallback_%s %llu\n", when,
	       vmstat("thp_fault_fallback"));
}

static void run_latency(bool anon, bool huge)
{
	unsigned long long thp_split, thp_swpout;
	struct phase ph;
	pid_t a, b;

	if (anon)
		zram_swap_on(512);
	/*
	 * Below 512 MiB of RAM hugepage_init() turns THP off whatever the
	 * command line says (the guest has 485 MiB); an admin turns it on.
	 */
	if (huge)
		write_str("/sys/kernel/mm/transparent_hugepage/enabled", "always");
	make_group("A", 64, 0);
	make_group("B", 0, 0);
	if (anon) {
		a = spawn_ready("A", hold, huge ? -300 : 300);
	} else {
		reap(spawn("A", read_passes, 0));	/* 400 MiB in first */
		a = spawn("A", stream, 0);
	}
	print_usage("A");
	if (huge)
		print_rss_huge("before");
	thp_split = vmstat("thp_split_page");
	thp_swpout = vmstat("thp_swpout");
	phase_start(&ph, "run");
	/* B dies, and with it this program, unless it timed every fault */
	b = spawn_ready("B", fault_timed, 300);
	print_usage("A");
	print_usage("B");
	phase_end(&ph);
	tap_check(ph.calls.calls == 0 ||
		  ph.after.psi_some_us > ph.before.psi_some_us,
		  "PSI saw the memory stalls of %llu reclaim calls",
		  ph.calls.calls);
	if (huge) {
		print_rss_huge("after");
		printf("metric run.thp_split_page %llu\n",
		       vmstat("thp_split_page") - thp_split);
		printf("metric run.thp_swpout %llu\n",
		       vmstat("thp_swpout") - thp_swpout);
	}
	end_child(b);
	end_child(a);
}

static void lookups(long n)
{
	char name[64];
	struct stat st;
	long i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "/data/missing-%07ld", i);
		if (!stat(name, &st))
			die("%s exists", name);
	}
}

static void run_slab(void)
{
	const long n = 1500000;
	struct slab_counts before, after;
	struct phase ph;
	pid_t a, smp;

	make_group("A", 64, 0);
	make_group("B", 0, 0);
	/* the instrument, checked without pressure: B's lookups show */
	before = read_slab();
	reap(spawn("B", lookups, n / 100));
	after = read_slab();
	tap_check(after.negative - before.negative >= n / 100 * 9 / 10,
		  "dentry-state counts B's negative dentries (%llu new of %ld lookups, no pressure)",
		  after.negative - before.negative, n / 100);
	before = after;
	smp = slab_sampler_start(500);
	phase_start(&ph, "run");
	a = spawn("A", stream, 0);
	reap(spawn("B", lookups, n));
	after = read_slab();
	sleep_ms(2000);		/* A goes on streaming: shrinkers at work */
	end_child(a);
	phase_end(&ph);
	sampler_stop(smp);
	slab_report("end");
	printf("metric run.new_negative_dentries %llu\n",
	       after.negative - before.negative);
	print_usage("A");
	print_usage("B");
}

/* Binds the calling task's memory and CPUs to @node. */
static void bind_node(int node)
{
	unsigned long mask = 1UL << node;
	char path[64], list[64];
	cpu_set_t cpus;
	int first, last, cpu;

	if (syscall(SYS_set_mempolicy, MPOL_BIND, &mask, sizeof(mask) * 8))
		die("set_mempolicy node %d: %s", node, strerror(errno));
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
		 node);
	read_text(path, list, sizeof(list));
	if (sscanf(list, "%d-%d", &first, &last) != 2)
		last = first = atoi(list);
	CPU_ZERO(&cpus);
	for (cpu = first; cpu <= last; cpu++)
		CPU_SET(cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		die("sched_setaffinity node %d: %s", node, strerror(errno));
}

/* arg: file index * 16 + node */
static void read_on_node(long arg)
{
	bind_node(arg % 16);
	read_passes(arg / 16);
}

/* memory.numa_stat's "total=P N0=P N1=P" line, in MiB per node. */
static void print_numa_usage(const char *phase, const char *group)
{
	char path[256], buf[4096];
	unsigned long long pages;
	char *p;
	int node;

	cg_path(path, sizeof(path), group, "memory.numa_stat");
	read_text(path, buf, sizeof(buf));
	buf[strcspn(buf, "\n")] = '\0';	/* the first line, total= */
	for (p = strstr(buf, " N"); p && sscanf(p, " N%d=%llu", &node, &pages) == 2;
	     p = strchr(p + 1, ' '))
		printf("metric %s.%s_node%d_mib %llu\n", phase, group, node,
		       pages * 4096 / MIB);
	if (!strstr(buf, " N1="))
		die("%s: no node 1 in memory.numa_stat: boot with --numa 2",
		    group);
}

static void run_numa(void)
{
	static const struct { const char *name; int a_node, b_node; } ph[] = {
		{ "same", 0, 0 }, { "cross", 0, 1 },
	};
	struct phase m;
	pid_t a, b;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ph); i++) {
		drop_caches();
		make_group("A", 32, 0);
		make_group("B", 0, 0);
		phase_start(&m, ph[i].name);
		a = spawn("A", read_on_node, 0 * 16 + ph[i].a_node);
		b = spawn("B", read_on_node, 1 * 16 + ph[i].b_node);
		reap(a);
		reap(b);
		phase_end(&m);
		printf("usage %s.A %llu\nusage %s.B %llu\n", ph[i].name,
		       cg_usage("A") / MIB, ph[i].name, cg_usage("B") / MIB);
		print_numa_usage(ph[i].name, "A");
		print_numa_usage(ph[i].name, "B");
		cg_remove("A");
		cg_remove("B");
	}
}

/* The other CPU's fixed loop: iterations, in memory the parent reads. */
static volatile unsigned long long *loop_count;

static void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity cpu %d: %s", cpu, strerror(errno));
}

static void spin_loop(long cpu)
{
	volatile unsigned long x = 0;
	int i;

	pin_cpu(cpu);
	for (;;) {
		for (i = 0; i < 1000; i++)
			x += i;
		(*loop_count)++;
	}
}

static void knob_phase(const char *name, const char *v1, const char *v2)
{
	const long ms = 5000;
	struct snapshot a, b;
	unsigned long long loops, writes = 0;
	char path[256];
	long long end;

	cg_path(path, sizeof(path), "A", "memory.soft_limit_in_bytes");
	snapshot_take(&a);
	loops = *loop_count;
	end = a.t_ns + ms * 1000000LL;
	if (v1)
		while (now_ns() < end) {
			write_str(path, writes++ & 1 ? v2 : v1);
		}
	else
		sleep_ms(ms);
	snapshot_take(&b);
	loops = *loop_count - loops;
	printf("metric %s.writes_per_s %.0f\n", name,
	       writes * 1e9 / (b.t_ns - a.t_ns));
	printf("metric %s.loop_per_s %.0f\n", name,
	       loops * 1e9 / (b.t_ns - a.t_ns));
	printf("metric %s.ipi_cpu1 %llu\n", name, snapshot_ipis(&a, &b, 1));
	printf("metric %s.ipi_cpu0 %llu\n", name, snapshot_ipis(&a, &b, 0));
	tap_check(loops > 0 && (!v1 || writes > 0),
	      "%s: %llu loops and %llu writes counted", name, loops, writes);
}

static void run_knobflip(void)
{
	pid_t spin;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		die("knobflip needs 2 CPUs");
	loop_count = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (loop_count == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	make_group("A", 0, 0);
	pin_cpu(0);
	spin = spawn(NULL, spin_loop, 1);
	sleep_ms(200);
	knob_phase("idle", NULL, NULL);
	knob_phase("unlimited_limit", "-1", "67108864");
	knob_phase("limit_limit", "67108864", "134217728");
	kill(spin, SIGKILL);
	reap(spin);
}

static void scale_name(char *buf, size_t size, long i)
{
	snprintf(buf, size, "s/g%05ld", i);
}

/* Four readers in the first four groups read 1.2 GiB in all. */
static void scale_phase(const char *name)
{
	char group[32];
	struct phase ph;
	pid_t pids[4];
	double cpu_ms;
	unsigned long long pages;
	long i;

	drop_caches();
	phase_start(&ph, name);
	for (i = 0; i < 4; i++) {
		scale_name(group, sizeof(group), i);
		pids[i] = spawn(group, read_passes, i);
	}
	for (i = 0; i < 4; i++)
		reap(pids[i]);
	phase_end(&ph);
	pages = ph.after.pgsteal_kswapd - ph.before.pgsteal_kswapd +
		ph.after.pgsteal_direct - ph.before.pgsteal_direct;
	cpu_ms = ph.after.kswapd_ms - ph.before.kswapd_ms + ph.calls.ms;
	printf("metric %s.reclaim_cpu_us_per_page %.3f\n", name,
	       pages ? cpu_ms * 1e3 / pages : 0);
}

static void run_scale(void)
{
	char group[32];
	long i;
	long long t0 = now_ns();

	make_group("s", 0, 0);
	for (i = 0; i < scale_groups; i++) {
		scale_name(group, sizeof(group), i);
		make_group(group, 0, 0);
	}
	printf("metric setup.memcgs %ld\n", scale_groups);
	printf("metric setup.mkdir_ms %.0f\n", (now_ns() - t0) / 1e6);
	scale_phase("none");
	/* one soft limit, on an idle memcg: the cost of the knob alone */
	scale_name(group, sizeof(group), scale_groups - 1);
	cg_write_u64(group, "memory.soft_limit_in_bytes", 1 * MIB);
	scale_phase("one");
	cg_write(group, "memory.soft_limit_in_bytes", "-1");
	scale_phase("none2");
	for (i = scale_groups - 1; i >= 0; i--) {
		scale_name(group, sizeof(group), i);
		cg_remove(group);
	}
	cg_remove("s");
}

static void run_deep(void)
{
	static const char *const groups[] = { "G", "G/P", "G/P/M",
		"G/P/M/M1", "G/P/M/M2", "G/P/O" };
	static const struct { const char *name; unsigned long g_limit; } ph[] = {
		{ "machine", 0 }, { "grandparent", 256 },
	};
	struct phase m;
	pid_t pids[3];
	size_t i, k;

	for (i = 0; i < ARRAY_SIZE(ph); i++) {
		drop_caches();
		make_group("G", 0, ph[i].g_limit);
		make_group("G/P", 0, 0);
		make_group("G/P/M", 32, 0);
		make_group("G/P/M/M1", 0, 0);
		make_group("G/P/M/M2", 0, 0);
		make_group("G/P/O", 0, 0);
		phase_start(&m, ph[i].name);
		pids[0] = spawn("G/P/M/M1", read_passes, 2);
		pids[1] = spawn("G/P/M/M2", read_passes, 3);
		pids[2] = spawn("G/P/O", read_passes, 0);
		for (k = 0; k < 3; k++)
			reap(pids[k]);
		phase_end(&m);
		for (k = 0; k < ARRAY_SIZE(groups); k++)
			printf("usage %s.%s %llu\n", ph[i].name, groups[k],
			       cg_usage(groups[k]) / MIB);
		for (k = ARRAY_SIZE(groups); k-- > 0;)
			cg_remove(groups[k]);
	}
}

/*
 * lxd: three containers as LXD sets them up on a cgroup v1 host, a hard
 * limit each and the soft limit at 90% of it, together over the machine:
 * C0, C1 and C2, 224 MiB hard limits (201M soft), read big0, big1 and
 * small0 three times each.
 */
static void run_lxd(void)
{
	static const char *const names[] = { "C0", "C1", "C2" };
	struct phase ph;
	pid_t pids[ARRAY_SIZE(names)];
	unsigned long long failcnt;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		make_group(names[i], 224 * 9 / 10, 224);
	phase_start(&ph, "run");
	for (i = 0; i < ARRAY_SIZE(names); i++)
		pids[i] = spawn(names[i], read_passes, i);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		tap_check(!reap(pids[i]), "%s read its file to the end (no OOM kill)",
			  names[i]);
	phase_end(&ph);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		print_usage(names[i]);
		failcnt = cg_read_u64(names[i], "memory.failcnt");
		printf("metric %s.failcnt %llu\n", names[i], failcnt);
	}
}

/*
 * android: (run with --mem 1024) 20 apps as Android's lmkd with
 * per_app_memcg sets them up, a memcg each with a soft limit from the
 * app's importance: 0 for the 16 background apps, 64M for the 4
 * foreground ones. An app's working set is 48 MiB of file pages, its own
 * region of a small file, mapped and touched page by page; the apps take
 * turns, the foreground ones after every 4 background ones, 6 rounds.
 */
#define APPS		20
#define FG_APPS		4
#define APP_MIB		48
#define APP_ROUNDS	6

struct turns {				/* shared with the apps' turns */
	unsigned long long majflt;
	size_t n;
	double us[];			/* a foreground turn's page touches */
};

static struct turns *fg_turns;

static void app_name(char *buf, size_t size, long app)
{
	snprintf(buf, size, "%s%ld", app < FG_APPS ? "fg" : "bg", app);
}

/* One turn of @app: map its region, touch every page, time foreground ones. */
static void app_turn(long app)
{
	char path[32];
	size_t off, size = APP_MIB * MIB;
	volatile char *mem;
	struct rusage ru;
	long long t0;
	int fd;

	snprintf(path, sizeof(path), "/data/small%ld", app % 8);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	mem = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, app / 8 * size);
	if (mem == MAP_FAILED)
		die("mmap %s: %s", path, strerror(errno));
	for (off = 0; off < size; off += 4096) {
		t0 = now_ns();
		(void)mem[off];
		if (app < FG_APPS)
			fg_turns->us[fg_turns->n++] = (now_ns() - t0) / 1e3;
	}
	getrusage(RUSAGE_SELF, &ru);
	if (app < FG_APPS)
		fg_turns->majflt += ru.ru_majflt;
}

static void take_turn(long app, unsigned long long *refault)
{
	char group[8];
	unsigned long long before = vmstat("workingset_refault_file");

	app_name(group, sizeof(group), app);
	if (reap(spawn(group, app_turn, app)))
		die("%s's turn failed", group);
	*refault += vmstat("workingset_refault_file") - before;
}

static void run_android(void)
{
	const size_t max = (size_t)FG_APPS * APP_ROUNDS * (APPS - FG_APPS) /
			   FG_APPS * APP_MIB * MIB / 4096;
	unsigned long long fg_refault = 0, bg_refault = 0, usage[2] = { 0 };
	struct samples lat = { 0 };
	struct phase ph;
	char group[8];
	long app, round, bg;
	size_t i;

	fg_turns = mmap(NULL, sizeof(*fg_turns) + max * sizeof(double),
			PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fg_turns == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	for (app = 0; app < APPS; app++) {
		app_name(group, sizeof(group), app);
		make_group(group, app < FG_APPS ? 64 : 0, 0);
		if (app >= FG_APPS)	/* lmkd's 0: make_group() writes none */
			cg_write(group, "memory.soft_limit_in_bytes", "0");
	}
	phase_start(&ph, "run");
	for (round = 0; round < APP_ROUNDS; round++) {
		for (bg = FG_APPS; bg < APPS; bg++) {
			take_turn(bg, &bg_refault);
			if ((bg - FG_APPS) % FG_APPS != FG_APPS - 1)
				continue;
			for (app = 0; app < FG_APPS; app++)
				take_turn(app, &fg_refault);
		}
	}
	phase_end(&ph);
	tap_check(fg_turns->n == max, "every foreground page touch was timed (%zu of %zu)",
		  fg_turns->n, max);
	for (i = 0; i < fg_turns->n; i++)
		samples_add(&lat, fg_turns->us[i]);
	samples_report("fg", "touch_us", &lat);
	printf("metric fg.majflt %llu\n", fg_turns->majflt);
	printf("metric fg.refault_file %llu\n", fg_refault);
	printf("metric bg.refault_file %llu\n", bg_refault);
	for (app = 0; app < APPS; app++) {
		app_name(group, sizeof(group), app);
		usage[app >= FG_APPS] += cg_usage(group);
	}
	printf("usage fg %llu\nusage bg %llu\n", usage[0] / MIB, usage[1] / MIB);
}

static void run_latency_file(void)
{
	run_latency(false, false);
}

static void run_latency_anon(void)
{
	run_latency(true, false);
}

static void run_thp(void)
{
	run_latency(true, true);
}

static const struct {
	const char *name;
	void (*run)(void);
} scenarios[] = {
	{ "latency-file", run_latency_file },
	{ "latency-anon", run_latency_anon }, { "thp", run_thp },
	{ "slab", run_slab }, { "numa", run_numa },
	{ "knobflip", run_knobflip }, { "scale", run_scale },
	{ "deep", run_deep }, { "lxd", run_lxd }, { "android", run_android },
};

static void __noreturn usage(int rc)
{
	size_t i;

	fprintf(rc ? stderr : stdout,
		"usage: workload [--lru classic|mglru] [--scale N] SCENARIO\nscenarios:");
	for (i = 0; i < ARRAY_SIZE(scenarios); i++)
		fprintf(rc ? stderr : stdout, " %s", scenarios[i].name);
	fprintf(rc ? stderr : stdout, "\n");
	exit(rc);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "lru", required_argument, NULL, 'l' },
		{ "scale", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *lru = NULL, *name;
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (strcmp(optarg, "classic") && strcmp(optarg, "mglru"))
				usage(2);
			lru = optarg;
			break;
		case 's':
			scale_groups = atol(optarg);
			if (scale_groups < 2 || scale_groups > 100000)
				usage(2);
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind != argc - 1)
		usage(2);
	name = argv[optind];
	for (i = 0; i < ARRAY_SIZE(scenarios); i++)
		if (!strcmp(name, scenarios[i].name))
			break;
	if (i == ARRAY_SIZE(scenarios))
		usage(2);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("scenario %s\n", name);
	setup_lru(lru);
	drop_caches();
	scenarios[i].run();
	return tap_end();
}
