/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup.h - the helpers every guest program shares: reading and writing
 * kernel files, the cgroup v1 memory controller, the machine's counters
 * and clocks. In the spirit of the kernel's
 * tools/testing/selftests/cgroup/cgroup_util.c; built into each static
 * program by guest/Makefile.
 *
 * Errors: the plain functions die() with the path and errno; the try_
 * variants return 0 or the errno, for groups that may vanish under us.
 */
#ifndef GUEST_CGROUP_H
#define GUEST_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define MEMCG_ROOT	"/sys/fs/cgroup/memory"
#define LRU_GEN_FILE	"/sys/kernel/mm/lru_gen/enabled"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __noreturn	__attribute__((noreturn))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

/*
 * "error: MESSAGE" on stderr (stdout flushed first), exit 1; "NAME: error:
 * MESSAGE" once prog_name is set (see below).
 */
void __noreturn __printf(1, 2) die(const char *fmt, ...);

/* Files. */
int try_write(const char *path, const char *s);
void write_str(const char *path, const char *s);
void write_u64(const char *path, unsigned long long val);
int try_read_u64(const char *path, unsigned long long *val);
unsigned long long read_u64(const char *path);
/* The whole file (at most size - 1 bytes) NUL-terminated; its length. */
size_t read_text(const char *path, char *buf, size_t size);
/* A "key value" line of @path (/proc/vmstat, memory.stat); false if none. */
bool stat_lookup(const char *path, const char *key, unsigned long long *val);

/* The machine. */
unsigned long long vmstat(const char *key);	/* dies if @key is missing */
unsigned long meminfo_kib(const char *field);	/* 0 if missing */
long now_ms(void);				/* CLOCK_MONOTONIC */
long long now_ns(void);
void sleep_ms(long ms);
double cpu_ms(pid_t pid);			/* the task's CPU time so far */
pid_t find_task(const char *comm);		/* by /proc/PID/comm; 0 if none */
pid_t find_kswapd(void);			/* kswapd0; dies if none */
void drop_caches(void);				/* sync, then drop_caches=3 */
bool has_lru_gen(void);
/* Switches to classic or mglru when @lru is set; prints "lru NAME". */
void setup_lru(const char *lru);

/*
 * cgroup v1 memory controller at MEMCG_ROOT. GROUP is a path below it
 * ("a" or "p/a"); "" is the root. Sizes are in bytes.
 */
void cg_path(char *buf, size_t size, const char *group, const char *file);
void cg_create(const char *group);
/* rmdir, retried for 10 s while EBUSY: the last tasks may still exit. */
int cg_try_remove(const char *group);
void cg_remove(const char *group);
void cg_write(const char *group, const char *file, const char *s);
void cg_write_u64(const char *group, const char *file, unsigned long long val);
unsigned long long cg_read_u64(const char *group, const char *file);
/* A memory.stat key of @group; false if it has no such line. */
bool cg_stat(const char *group, const char *key, unsigned long long *val);
void cg_enter(const char *group);		/* moves the calling task */
unsigned long long cg_usage(const char *group);
/* The soft limit knob's "unlimited": PAGE_COUNTER_MAX in bytes. */
bool cg_soft_limit_unlimited(unsigned long long bytes);

/*
 * fork(): the child joins @group (unless NULL), runs fn(arg) and exits 0;
 * stdout is flushed first so that nothing is printed twice.
 */
pid_t spawn(const char *group, void (*fn)(long arg), long arg);
/* Waits for @pid: its exit code, or 128 + the signal that killed it. */
int reap(pid_t pid);

/* Set to name the program in die()'s messages: "NAME: error: MESSAGE". */
extern const char *prog_name;
/* fork() with stdout flushed first, as spawn() does; dies if it fails. */
pid_t fork_child(void);
/* reap(), but 0 or the errno of waitpid(), and the code in @rc. */
int try_reap(pid_t pid, int *rc);

/*
 * TAP as the guest programs print it: tap_check() prints "ok N - ..." or
 * "not ok N - ..." at once; tap_end() prints the plan "1..N" after them
 * and returns the exit code, 1 if any check failed.
 */
void __printf(2, 3) tap_check(bool ok, const char *fmt, ...);
int tap_end(void);

#endif
