/* SPDX-License-Identifier: GPL-2.0 */
/*
 * measure.h - what a reviewer of a reclaim change looks at, taken inside
 * the guest in guest time (so that it repeats under run-guest.sh
 * --icount): reclaim calls from the vmscan tracepoints, latencies, PSI,
 * kswapd CPU, reclaim counters, refaults, slab caches, IPIs.
 *
 * Everything is printed as lines the host parses (bench/, check.sh):
 *   metric KEY VALUE      one figure
 *   cdf KEY P VALUE       the P-th percentile (P = 1..100) of a distribution
 *   slab T_MS DENTRIES NEGATIVE INODES SRECLAIMABLE_KIB   (a sampler)
 */
#ifndef GUEST_MEASURE_H
#define GUEST_MEASURE_H

#include <stddef.h>
#include <sys/types.h>

#define MAX_CPUS	8

/* The machine's counters at one moment; deltas of two are reported. */
struct snapshot {
	long long t_ns;
	unsigned long long pgscan_kswapd, pgscan_direct;
	unsigned long long pgsteal_kswapd, pgsteal_direct;
	unsigned long long refault_anon, refault_file, pgmajfault;
	unsigned long long slabs_scanned;	/* objects the shrinkers scanned */
	unsigned long long psi_some_us, psi_full_us;
	double kswapd_ms;			/* all nodes' kswapds */
	int nr_cpus;
	unsigned long long cal[MAX_CPUS], tlb[MAX_CPUS];	/* IPIs */
};

void snapshot_take(struct snapshot *s);
/* "metric PREFIX.KEY VALUE" for every delta from @a to @b. */
void snapshot_report(const char *prefix, const struct snapshot *a,
		     const struct snapshot *b);
/* IPIs (function call + TLB shootdown) one CPU received from @a to @b. */
unsigned long long snapshot_ipis(const struct snapshot *a,
				 const struct snapshot *b, int cpu);

/*
 * Reclaim calls from the vmscan tracepoints: direct reclaim
 * (mm_vmscan_direct_reclaim_begin/end) and memcg limit reclaim
 * (mm_vmscan_memcg_reclaim_begin/end), paired per task.
 * trace_reclaim_report() stops tracing and prints, per kind, calls,
 * calls per second of guest time, pages per call and ms per call (p50,
 * p99, max), total ms, the cdf of ms per call, and events the ring
 * buffer lost (which would make the figures partial).
 */
struct reclaim_calls {
	unsigned long long calls, lost;		/* both kinds */
	unsigned long long direct_pages;	/* global direct reclaim's */
	double ms;				/* both kinds */
};

void trace_reclaim_start(void);
struct reclaim_calls trace_reclaim_report(const char *prefix);

/* A growing set of samples, for percentiles. */
struct samples {
	double *v;
	size_t n, cap;
};

void samples_add(struct samples *s, double x);
/* metric PREFIX.KEY_{n,p50,p99,max,sum} and its cdf; empties @s. */
void samples_report(const char *prefix, const char *key, struct samples *s);

/*
 * A child that prints a "slab" line every @ms of guest time until
 * sampler_stop(): dentries (and negative ones), inodes, SReclaimable.
 */
pid_t slab_sampler_start(long ms);
void sampler_stop(pid_t pid);
struct slab_counts {
	unsigned long long dentries, negative, inodes;
	unsigned long sreclaimable_kib;
};

struct slab_counts read_slab(void);
/* The same figures once, as metric PREFIX.slab_* lines. */
void slab_report(const char *prefix);

#endif
