// SPDX-License-Identifier: GPL-2.0
/* cgroup.c - the guest programs' shared helpers; see cgroup.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"

void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	if (prog_name)
		fprintf(stderr, "%s: ", prog_name);
	fprintf(stderr, "error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

int try_write(const char *path, const char *s)
{
	ssize_t len = strlen(s);
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, len) != len)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

void write_str(const char *path, const char *s)
{
	int err = try_write(path, s);

	if (err)
		die("write '%s' to %s: %s", s, path, strerror(err));
}

void write_u64(const char *path, unsigned long long val)
{
	char s[32];

	snprintf(s, sizeof(s), "%llu", val);
	write_str(path, s);
}

int try_read_u64(const char *path, unsigned long long *val)
{
	char s[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	n = read(fd, s, sizeof(s) - 1);
	close(fd);
	if (n <= 0)
		return n ? errno : EIO;
	s[n] = '\0';
	*val = strtoull(s, NULL, 0);
	return 0;
}

unsigned long long read_u64(const char *path)
{
	unsigned long long val = 0;
	int err = try_read_u64(path, &val);

	if (err)
		die("read %s: %s", path, strerror(err));
	return val;
}

size_t read_text(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	if (n < 0)
		die("read %s: %s", path, strerror(errno));
	close(fd);
	buf[len] = '\0';
	return len;
}

bool stat_lookup(const char *path, const char *key, unsigned long long *val)
{
	char name[64];
	unsigned long long v;
	bool found = false;
	FILE *f = fopen(path, "re");

	if (!f)
		die("open %s: %s", path, strerror(errno));
	while (!found && fscanf(f, "%63s %llu", name, &v) == 2) {
		if (!strcmp(name, key)) {
			*val = v;
			found = true;
		}
	}
	fclose(f);
	return found;
}

unsigned long long vmstat(const char *key)
{
	unsigned long long val;

	if (!stat_lookup("/proc/vmstat", key, &val))
		die("/proc/vmstat has no %s (CONFIG_VM_EVENT_COUNTERS?)", key);
	return val;
}

unsigned long meminfo_kib(const char *field)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128], name[64];
	unsigned long kib = 0, v;

	if (!f)
		die("open /proc/meminfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[^:]: %lu", name, &v) == 2 &&
		    !strcmp(name, field)) {
			kib = v;
			break;
		}
	fclose(f);
	return kib;
}

long now_ms(void)
{
	return now_ns() / 1000000;
}

long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * The task's CPU-time clock counts the scheduler's runtime in ns;
 * /proc/PID/stat rounds the same to ticks, too coarse for short phases.
 */
double cpu_ms(pid_t pid)
{
	struct timespec ts;
	clockid_t clock;
	int err;

	err = clock_getcpuclockid(pid, &clock);
	if (err || clock_gettime(clock, &ts))
		die("CPU clock of %d: %s", pid, strerror(err ? err : errno));
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

pid_t find_task(const char *comm)
{
	char path[PATH_MAX], name[32];
	struct dirent *de;
	pid_t pid = 0;
	DIR *dir = opendir("/proc");
	FILE *f;

	if (!dir)
		die("opendir /proc: %s", strerror(errno));
	while (!pid && (de = readdir(dir))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;	/* the process has just exited */
		if (fgets(name, sizeof(name), f)) {
			name[strcspn(name, "\n")] = '\0';
			if (!strcmp(name, comm))
				pid = atoi(de->d_name);
		}
		fclose(f);
	}
	closedir(dir);
	return pid;
}

pid_t find_kswapd(void)
{
	pid_t pid = find_task("kswapd0");

	if (!pid)
		die("no kswapd0 in /proc");
	return pid;
}

void drop_caches(void)
{
	sync();
	write_str("/proc/sys/vm/drop_caches", "3");
}

bool has_lru_gen(void)
{
	return !access(LRU_GEN_FILE, F_OK);
}

void setup_lru(const char *lru)
{
	bool mglru;

	if (!has_lru_gen()) {
		if (lru && !strcmp(lru, "mglru"))
			die("%s missing: kernel without CONFIG_LRU_GEN, no mglru",
			    LRU_GEN_FILE);
		printf("lru classic\n");
		return;
	}
	if (lru)
		write_str(LRU_GEN_FILE, strcmp(lru, "mglru") ? "n" : "y");
	/* Bit 0 is LRU_GEN_CORE: MGLRU is in charge of the LRU lists. */
	mglru = read_u64(LRU_GEN_FILE) & 1;
	if (lru && mglru != !strcmp(lru, "mglru"))
		die("%s did not switch to %s", LRU_GEN_FILE, lru);
	printf("lru %s\n", mglru ? "mglru" : "classic");
}

void cg_path(char *buf, size_t size, const char *group, const char *file)
{
	snprintf(buf, size, "%s%s%s%s%s", MEMCG_ROOT, *group ? "/" : "", group,
		 file ? "/" : "", file ? file : "");
}

void cg_create(const char *group)
{
	char path[PATH_MAX];

	cg_path(path, sizeof(path), group, NULL);
	if (mkdir(path, 0755))
		die("mkdir %s: %s", path, strerror(errno));
}

int cg_try_remove(const char *group)
{
	char path[PATH_MAX];
	long deadline = now_ms() + 10000;

	cg_path(path, sizeof(path), group, NULL);
	while (rmdir(path)) {
		if (errno != EBUSY || now_ms() > deadline)
			return errno;
		sleep_ms(10);
	}
	return 0;
}

void cg_remove(const char *group)
{
	int err = cg_try_remove(group);

	if (err)
		die("rmdir %s/%s: %s", MEMCG_ROOT, group, strerror(err));
}

void cg_write(const char *group, const char *file, const char *s)
{
	char path[PATH_MAX];

	cg_path(path, sizeof(path), group, file);
	write_str(path, s);
}

void cg_write_u64(const char *group, const char *file, unsigned long long val)
{
	char path[PATH_MAX];

	cg_path(path, sizeof(path), group, file);
	write_u64(path, val);
}

unsigned long long cg_read_u64(const char *group, const char *file)
{
	char path[PATH_MAX];

	cg_path(path, sizeof(path), group, file);
	return read_u64(path);
}

bool cg_stat(const char *group, const char *key, unsigned long long *val)
{
	char path[PATH_MAX];

	cg_path(path, sizeof(path), group, "memory.stat");
	return stat_lookup(path, key, val);
}

void cg_enter(const char *group)
{
	cg_write_u64(group, "cgroup.procs", getpid());
}

unsigned long long cg_usage(const char *group)
{
	return cg_read_u64(group, "memory.usage_in_bytes");
}

bool cg_soft_limit_unlimited(unsigned long long bytes)
{
	unsigned long long page = sysconf(_SC_PAGESIZE);

	return bytes == LLONG_MAX / page * page;
}

pid_t spawn(const char *group, void (*fn)(long arg), long arg)
{
	pid_t pid = fork_child();

	if (pid)
		return pid;
	if (group)
		cg_enter(group);
	fn(arg);
	exit(0);
}

int reap(pid_t pid)
{
	int rc, err = try_reap(pid, &rc);

	if (err)
		die("waitpid %d: %s", pid, strerror(err));
	return rc;
}

const char *prog_name;

pid_t fork_child(void)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	return pid;
}

/* EINTR is retried: PID 1 and a task with a signal handler get it. */
int try_reap(pid_t pid, int *rc)
{
	int status;

	while (waitpid(pid, &status, 0) != pid)
		if (errno != EINTR)
			return errno;
	*rc = WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
				    WEXITSTATUS(status);
	return 0;
}

static int nr_checks, nr_failed;

void tap_check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++nr_checks);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	nr_failed += !ok;
}

int tap_end(void)
{
	printf("1..%d\n", nr_checks);
	return nr_failed != 0;
}
