// SPDX-License-Identifier: GPL-2.0
/* measure.c - the guest's instruments; see measure.h. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "cgroup.h"
#include "measure.h"

#define TRACEFS		"/sys/kernel/tracing"
/* Per CPU: room for some 40,000 events, a little of the guest's RAM. */
#define TRACE_BUF_KB	"2048"

static void read_psi(struct snapshot *s)
{
	char kind[8];
	unsigned long long total;
	FILE *f = fopen("/proc/pressure/memory", "re");

	if (!f)
		die("open /proc/pressure/memory: %s (CONFIG_PSI?)",
		    strerror(errno));
	while (fscanf(f, "%7s avg10=%*f avg60=%*f avg300=%*f total=%llu",
		      kind, &total) == 2) {
		if (!strcmp(kind, "some"))
			s->psi_some_us = total;
		else if (!strcmp(kind, "full"))
			s->psi_full_us = total;
	}
	fclose(f);
}

/* The per-CPU counts of one /proc/interrupts row ("CAL:", "TLB:"). */
static void read_irq_row(const char *buf, const char *row, int nr_cpus,
			 unsigned long long *out)
{
	const char *p = strstr(buf, row);
	char *end;
	int cpu;

	if (!p)
		die("/proc/interrupts has no %s row", row);
	p += strlen(row);
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		out[cpu] = strtoull(p, &end, 10);
		p = end;
	}
}

static void read_ipis(struct snapshot *s)
{
	static char buf[16384];
	char *nl;
	const char *p;

	read_text("/proc/interrupts", buf, sizeof(buf));
	nl = strchr(buf, '\n');
	s->nr_cpus = 0;
	for (p = buf; (p = strstr(p, "CPU")) && (!nl || p < nl); p += 3)
		s->nr_cpus++;
	if (s->nr_cpus > MAX_CPUS)
		die("%d CPUs, more than MAX_CPUS", s->nr_cpus);
	read_irq_row(buf, "CAL:", s->nr_cpus, s->cal);
	read_irq_row(buf, "TLB:", s->nr_cpus, s->tlb);
}

static double kswapd_ms(void)
{
	char comm[16];
	double ms = 0;
	pid_t pid;
	int node;

	for (node = 0; node < 64; node++) {
		snprintf(comm, sizeof(comm), "kswapd%d", node);
		pid = find_task(comm);
		if (!pid)
			break;
		ms += cpu_ms(pid);
	}
	return ms;
}

void snapshot_take(struct snapshot *s)
{
	s->t_ns = now_ns();
	s->pgscan_kswapd = vmstat("pgscan_kswapd");
	s->pgscan_direct = vmstat("pgscan_direct");
	s->pgsteal_kswapd = vmstat("pgsteal_kswapd");
	s->pgsteal_direct = vmstat("pgsteal_direct");
	s->refault_anon = vmstat("workingset_refault_anon");
	s->refault_file = vmstat("workingset_refault_file");
	s->pgmajfault = vmstat("pgmajfault");
	s->slabs_scanned = vmstat("slabs_scanned");
	s->kswapd_ms = kswapd_ms();
	read_psi(s);
	read_ipis(s);
}

unsigned long long snapshot_ipis(const struct snapshot *a,
				 const struct snapshot *b, int cpu)
{
	return b->cal[cpu] - a->cal[cpu] + b->tlb[cpu] - a->tlb[cpu];
}

void snapshot_report(const char *prefix, const struct snapshot *a,
		     const struct snapshot *b)
{
	int cpu;

#define DELTA(key) printf("metric %s.%s %llu\n", prefix, #key, b->key - a->key)
	printf("metric %s.elapsed_ms %.1f\n", prefix, (b->t_ns - a->t_ns) / 1e6);
	DELTA(pgscan_kswapd);
	DELTA(pgscan_direct);
	DELTA(pgsteal_kswapd);
	DELTA(pgsteal_direct);
	DELTA(refault_anon);
	DELTA(refault_file);
	DELTA(pgmajfault);
	DELTA(slabs_scanned);
#undef DELTA
	printf("metric %s.psi_some_ms %.1f\n", prefix,
	       (b->psi_some_us - a->psi_some_us) / 1e3);
	printf("metric %s.psi_full_ms %.1f\n", prefix,
	       (b->psi_full_us - a->psi_full_us) / 1e3);
	printf("metric %s.kswapd_cpu_ms %.1f\n", prefix,
	       b->kswapd_ms - a->kswapd_ms);
	for (cpu = 0; cpu < b->nr_cpus; cpu++) {
		printf("metric %s.ipi_cal_cpu%d %llu\n", prefix, cpu,
		       b->cal[cpu] - a->cal[cpu]);
		printf("metric %s.ipi_tlb_cpu%d %llu\n", prefix, cpu,
		       b->tlb[cpu] - a->tlb[cpu]);
	}
}

static void trace_write(const char *file, const char *s)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	write_str(path, s);
}

static const char *const reclaim_events[] = {
	"vmscan/mm_vmscan_direct_reclaim_begin",
	"vmscan/mm_vmscan_direct_reclaim_end",
	"vmscan/mm_vmscan_memcg_reclaim_begin",
	"vmscan/mm_vmscan_memcg_reclaim_end",
};

void trace_reclaim_start(void)
{
	char file[128];
	size_t i;

	if (access(TRACEFS "/trace", F_OK) &&
	    mount("tracefs", TRACEFS, "tracefs", 0, NULL))
		die("mount tracefs: %s (CONFIG_FTRACE?)", strerror(errno));
	trace_write("tracing_on", "0");
	trace_write("buffer_size_kb", TRACE_BUF_KB);
	/* CLOCK_MONOTONIC, the clock of now_ns(): guest time under -icount */
	trace_write("trace_clock", "mono");
	trace_write("events/enable", "0");
	for (i = 0; i < ARRAY_SIZE(reclaim_events); i++) {
		snprintf(file, sizeof(file), "events/%s/enable",
			 reclaim_events[i]);
		trace_write(file, "1");
	}
	trace_write("trace", "");
	trace_write("tracing_on", "1");
}

/* One kind of reclaim call: direct or memcg limit reclaim. */
struct call_kind {
	const char *name;
	const char *begin, *end;
	struct samples pages, ms;
	double first_s, last_s;
};

#define MAX_OPEN	256	/* tasks inside a reclaim call at one time */

struct open_call {
	int pid;
	struct call_kind *kind;
	double t;
};

static struct open_call open_calls[MAX_OPEN];
static int nr_open;

static struct open_call *find_open(int pid)
{
	int i;

	for (i = 0; i < nr_open; i++)
		if (open_calls[i].pid == pid)
			return &open_calls[i];
	return NULL;
}

/*
 * "  comm-PID  [CPU] flags  SECONDS: EVENT: fields": the pid ends the
 * token before " [", the time ends before ": EVENT:".
 */
static void parse_trace_line(char *line, struct call_kind *kinds, int nr)
{
	char *bracket = strstr(line, " ["), *dash, *colon;
	struct open_call *oc;
	unsigned long nr_reclaimed;
	double t;
	int pid, k;

	if (line[0] == '#' || !bracket)
		return;
	*bracket = '\0';
	dash = strrchr(line, '-');
	if (!dash)
		return;
	pid = atoi(dash + 1);
	colon = strstr(bracket + 2, ": mm_vmscan_");
	if (!colon)
		return;
	*colon = '\0';
	t = atof(strrchr(bracket + 2, ' ') + 1);
	for (k = 0; k < nr; k++) {
		if (!strncmp(colon + 2, kinds[k].begin, strlen(kinds[k].begin))) {
			oc = find_open(pid);
			if (!oc) {
				if (nr_open == MAX_OPEN)
					die("more than %d open reclaim calls", MAX_OPEN);
				oc = &open_calls[nr_open++];
			}
			*oc = (struct open_call){ pid, &kinds[k], t };
			return;
		}
		if (!strncmp(colon + 2, kinds[k].end, strlen(kinds[k].end))) {
			oc = find_open(pid);
			if (!oc || oc->kind != &kinds[k])
				return;	/* began before tracing started */
			if (sscanf(strstr(colon + 2, "nr_reclaimed="),
				   "nr_reclaimed=%lu", &nr_reclaimed) != 1)
				die("trace: no nr_reclaimed in %s", colon + 2);
			samples_add(&kinds[k].pages, nr_reclaimed);
			samples_add(&kinds[k].ms, (t - oc->t) * 1e3);
			if (kinds[k].pages.n == 1)
				kinds[k].first_s = oc->t;
			kinds[k].last_s = t;
			*oc = open_calls[--nr_open];
			return;
		}
	}
}

static unsigned long long trace_lost(void)
{
	char path[128], buf[1024], *p;
	unsigned long long lost = 0;
	int cpu;

	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		snprintf(path, sizeof(path), TRACEFS "/per_cpu/cpu%d/stats", cpu);
		if (access(path, F_OK))
			break;
		read_text(path, buf, sizeof(buf));
		p = strstr(buf, "overrun:");
		if (p)
			lost += strtoull(p + 8, NULL, 10);
	}
	return lost;
}

struct reclaim_calls trace_reclaim_report(const char *prefix)
{
	struct reclaim_calls r = { 0 };
	struct call_kind kinds[] = {	/* direct first: see direct_pages */
		{ .name = "direct", .begin = "mm_vmscan_direct_reclaim_begin:",
		  .end = "mm_vmscan_direct_reclaim_end:" },
		{ .name = "memcg", .begin = "mm_vmscan_memcg_reclaim_begin:",
		  .end = "mm_vmscan_memcg_reclaim_end:" },
	};
	char line[512], key[64];
	double span;
	size_t k;
	FILE *f;

	trace_write("tracing_on", "0");
	r.lost = trace_lost();
	printf("metric %s.trace_lost_events %llu\n", prefix, r.lost);
	f = fopen(TRACEFS "/trace", "re");
	if (!f)
		die("open " TRACEFS "/trace: %s", strerror(errno));
	nr_open = 0;
	while (fgets(line, sizeof(line), f))
		parse_trace_line(line, kinds, ARRAY_SIZE(kinds));
	fclose(f);
	trace_write("events/enable", "0");
	trace_write("trace", "");
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct call_kind *c = &kinds[k];

		span = c->last_s - c->first_s;
		r.calls += c->pages.n;
		for (size_t i = 0; i < c->pages.n && k == 0; i++)
			r.direct_pages += c->pages.v[i];
		for (size_t i = 0; i < c->ms.n; i++)
			r.ms += c->ms.v[i];
		printf("metric %s.%s_calls %zu\n", prefix, c->name, c->pages.n);
		printf("metric %s.%s_calls_per_s %.1f\n", prefix, c->name,
		       span > 0 ? c->pages.n / span : 0);
		snprintf(key, sizeof(key), "%s_pages", c->name);
		samples_report(prefix, key, &c->pages);
		snprintf(key, sizeof(key), "%s_ms", c->name);
		samples_report(prefix, key, &c->ms);
	}
	return r;
}

void samples_add(struct samples *s, double x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			die("out of memory for %zu samples", s->cap);
	}
	s->v[s->n++] = x;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest sample with at least p% at or below it. */
static double percentile(const struct samples *s, double p)
{
	size_t rank = (size_t)ceil(p / 100 * s->n);

	return s->v[rank ? rank - 1 : 0];
}

void samples_report(const char *prefix, const char *key, struct samples *s)
{
	double sum = 0;
	size_t i;
	int p;

	printf("metric %s.%s_n %zu\n", prefix, key, s->n);
	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_double);
	for (i = 0; i < s->n; i++)
		sum += s->v[i];
	printf("metric %s.%s_p50 %.3f\n", prefix, key, percentile(s, 50));
	printf("metric %s.%s_p99 %.3f\n", prefix, key, percentile(s, 99));
	printf("metric %s.%s_max %.3f\n", prefix, key, s->v[s->n - 1]);
	printf("metric %s.%s_sum %.3f\n", prefix, key, sum);
	for (p = 1; p <= 100; p++)
		printf("cdf %s.%s %d %.4f\n", prefix, key, p, percentile(s, p));
	free(s->v);
	*s = (struct samples){ 0 };
}

struct slab_counts read_slab(void)
{
	struct slab_counts c = { 0 };
	char buf[256];

	/* nr_dentry nr_unused age_limit want_pages nr_negative dummy */
	read_text("/proc/sys/fs/dentry-state", buf, sizeof(buf));
	if (sscanf(buf, "%llu %*u %*u %*u %llu", &c.dentries, &c.negative) != 2)
		die("dentry-state: %s", buf);
	read_text("/proc/sys/fs/inode-state", buf, sizeof(buf));
	if (sscanf(buf, "%llu", &c.inodes) != 1)
		die("inode-state: %s", buf);
	c.sreclaimable_kib = meminfo_kib("SReclaimable");
	return c;
}

void slab_report(const char *prefix)
{
	struct slab_counts c = read_slab();

	printf("metric %s.slab_dentries %llu\n", prefix, c.dentries);
	printf("metric %s.slab_negative_dentries %llu\n", prefix, c.negative);
	printf("metric %s.slab_inodes %llu\n", prefix, c.inodes);
	printf("metric %s.slab_sreclaimable_kib %lu\n", prefix,
	       c.sreclaimable_kib);
}

static volatile sig_atomic_t sampler_done;

static void on_term(int sig)
{
	(void)sig;
	sampler_done = 1;
}

static void slab_sample_loop(long ms)
{
	long long t0 = now_ns(), next = t0;
	struct slab_counts c;

	signal(SIGTERM, on_term);
	while (!sampler_done) {
		c = read_slab();
		printf("slab %lld %llu %llu %llu %lu\n", (next - t0) / 1000000,
		       c.dentries, c.negative, c.inodes, c.sreclaimable_kib);
		fflush(stdout);
		next += ms * 1000000LL;
		if (next > now_ns())
			sleep_ms((next - now_ns()) / 1000000);
	}
}

pid_t slab_sampler_start(long ms)
{
	return spawn(NULL, slab_sample_loop, ms);
}

void sampler_stop(pid_t pid)
{
	kill(pid, SIGTERM);
	if (reap(pid))
		die("sampler %d failed", pid);
}
