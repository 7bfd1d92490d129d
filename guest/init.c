// SPDX-License-Identifier: GPL-2.0
/*
 * init - PID 1 of the test guest: set up, run one test, reboot.
 *
 * The host picks the test on the kernel command line:
 *
 *   run=NAME      a test named in /etc/tests.list (a copy of guest/tests.list)
 *   expect=WORD   replaces every argument that is exactly "$EXPECT"
 *                 (default "none")
 *   lru=...       ignored here (the scenarios take --lru from tests.list)
 *
 * tests.list lines are "NAME CGROUP SWAP COMMAND [ARGS...]", blank lines and
 * lines starting with '#' ignored. CGROUP v1 mounts the memory controller at
 * /sys/fs/cgroup/memory, v1all every controller of the kernel as its own v1
 * hierarchy there as a Debian v1 host does (container runtimes), v2 mounts
 * cgroup2 at /sys/fs/cgroup and enables +memory for the children; SWAP 1
 * turns on swap on /dev/vdb. Tests run in
 * /data: /dev/vda, or /data.img when no disk is attached (mount_data()).
 *
 * Console protocol, each marker alone on its line:
 *
 *   @@@ BEGIN NAME          once NAME is known to be valid, before its setup
 *   @@@ END NAME rc=N       N = exit status, or 128 + signal number
 *   @@@ END NAME rc=125 setup: <what failed>
 *
 * An unknown or missing run= gives only the END line (NAME "-" if missing),
 * after the list of valid names. Either way the guest then syncs and
 * reboots, which ends QEMU (-no-reboot). PID 1 never exits: that would
 * panic the kernel and hide the result.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/loop.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>

#include "cgroup.h"

#define TESTS_LIST	"/etc/tests.list"
#define MAX_TESTS	128
#define MAX_ARGS	32
#define RC_SETUP	125

struct test {
	const char *name;
	const char *cgroup;		/* "v1", "v1all" or "v2" */
	int swap;
	char *argv[MAX_ARGS + 1];	/* argv[0] is the absolute command */
};

static char list_buf[64 * 1024];
static struct test tests[MAX_TESTS];
static int nr_tests;
static char cmdline[4096];
static const char *run_name = "-";
static const char *expect_word = "none";

/* Fixed environment: the command line's leftovers must not leak into tests. */
static char *child_env[] = {
	"PATH=/bin:/sbin:/selftests",
	"HOME=/",
	"TERM=dumb",
	NULL,
};

static void __noreturn shutdown_guest(void)
{
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);
	/* Still here: exiting would panic PID 1, so say why and wait. */
	printf("init: reboot failed: %s\n", strerror(errno));
	fflush(stdout);
	for (;;)
		pause();
}

static void __noreturn __printf(1, 2)
setup_failed(const char *fmt, ...)
{
	va_list ap;

	printf("@@@ END %s rc=%d setup: ", run_name, RC_SETUP);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	shutdown_guest();
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		setup_failed("mkdir %s: %s", path, strerror(errno));
}

static void mount_fs(const char *src, const char *dir, const char *type,
		     unsigned long flags, const char *data)
{
	make_dir(dir);
	if (mount(src, dir, type, flags, data))
		setup_failed("mount %s (%s) on %s: %s", src, type, dir,
			     strerror(errno));
}

/*
 * Not write_str(): it would die(), and PID 1 must not exit. Not try_write()
 * either: the END line says which of open and write failed.
 */
static void setup_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t len = strlen(s);

	if (fd < 0)
		setup_failed("open %s: %s", path, strerror(errno));
	if (write(fd, s, len) != len)
		setup_failed("write '%s' to %s: %s", s, path, strerror(errno));
	close(fd);
}

/* Reads a whole small file into buf, NUL-terminated; returns its length. */
static size_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		setup_failed("open %s: %s", path, strerror(errno));
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	if (n < 0)
		setup_failed("read %s: %s", path, strerror(errno));
	if (len == size - 1)
		setup_failed("%s is larger than %zu bytes", path, size - 1);
	buf[len] = '\0';
	close(fd);
	return len;
}

/*
 * The kernel opens /dev/console for us only if the initramfs has the node;
 * otherwise take it from devtmpfs so that every message can be seen.
 */
static void setup_console(void)
{
	int fd;

	make_dir("/dev");
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) && errno != EBUSY)
		setup_failed("mount devtmpfs on /dev: %s", strerror(errno));
	if (fcntl(1, F_GETFD) >= 0)
		return;
	fd = open("/dev/console", O_RDWR);
	if (fd < 0)
		shutdown_guest();	/* nowhere to report it */
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

static void print_memtotal(void)
{
	static char buf[8192];
	char *line;

	read_file("/proc/meminfo", buf, sizeof(buf));
	line = strstr(buf, "MemTotal:");
	if (!line)
		setup_failed("no MemTotal in /proc/meminfo");
	line[strcspn(line, "\n")] = '\0';
	printf("init: %s\n", line);
}

static void parse_cmdline(void)
{
	char *tok;

	read_file("/proc/cmdline", cmdline, sizeof(cmdline));
	for (tok = strtok(cmdline, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
		/* Later occurrences win, as for kernel parameters. */
		if (!strncmp(tok, "run=", 4))
			run_name = tok + 4;
		else if (!strncmp(tok, "expect=", 7))
			expect_word = tok + 7;
	}
}

static void parse_test_line(char *line, int lineno)
{
	struct test *t = &tests[nr_tests];
	char *f[4 + MAX_ARGS];
	int n = 0, i;

	for (f[n] = strtok(line, " \t"); f[n]; f[n] = strtok(NULL, " \t"))
		if (++n == 4 + MAX_ARGS)
			setup_failed("%s:%d: too many arguments", TESTS_LIST,
				     lineno);
	if (n < 4)
		setup_failed("%s:%d: want NAME CGROUP SWAP COMMAND [ARGS...]",
			     TESTS_LIST, lineno);
	if (strcmp(f[1], "v1") && strcmp(f[1], "v1all") && strcmp(f[1], "v2"))
		setup_failed("%s:%d: CGROUP must be v1, v1all or v2, not '%s'",
			     TESTS_LIST, lineno, f[1]);
	if (strcmp(f[2], "0") && strcmp(f[2], "1"))
		setup_failed("%s:%d: SWAP must be 0 or 1, not '%s'",
			     TESTS_LIST, lineno, f[2]);
	if (f[3][0] != '/')
		setup_failed("%s:%d: COMMAND must be an absolute path, not '%s'",
			     TESTS_LIST, lineno, f[3]);
	if (nr_tests == MAX_TESTS)
		setup_failed("%s: more than %d tests", TESTS_LIST, MAX_TESTS);
	for (i = 0; i < nr_tests; i++)
		if (!strcmp(tests[i].name, f[0]))
			setup_failed("%s:%d: test %s listed twice", TESTS_LIST,
				     lineno, f[0]);

	t->name = f[0];
	t->cgroup = f[1];
	t->swap = f[2][0] == '1';
	for (i = 3; i < n; i++)
		t->argv[i - 3] = strcmp(f[i], "$EXPECT") ? f[i] : (char *)expect_word;
	t->argv[n - 3] = NULL;
	nr_tests++;
}

static void load_tests(void)
{
	char *line, *next;
	int lineno = 0;

	read_file(TESTS_LIST, list_buf, sizeof(list_buf));
	for (line = list_buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		line += strspn(line, " \t");
		if (*line && *line != '#')
			parse_test_line(line, lineno);
	}
}

static struct test *find_test(void)
{
	int i;

	for (i = 0; i < nr_tests; i++)
		if (!strcmp(tests[i].name, run_name))
			return &tests[i];

	printf("init: valid tests:");
	for (i = 0; i < nr_tests; i++)
		printf(" %s", tests[i].name);
	printf("\n");
	if (!strcmp(run_name, "-"))
		setup_failed("no run=NAME on the kernel command line");
	setup_failed("unknown test '%s'", run_name);
}

/*
 * v1all: the hierarchies of a Debian 12 host booted with cgroup v1
 * (systemd.unified_cgroup_hierarchy=0), those of them this kernel has
 * (cpuset needs CONFIG_CPUSETS_V1 as well); cpu,cpuacct is one hierarchy
 * with the single names as symlinks. runc and crun find them in
 * /proc/self/mountinfo.
 */
static bool have_controllers(const char *cgroups, const char *names)
{
	char want[32];
	size_t len;

	for (; *names; names += len + !!names[len]) {
		len = strcspn(names, ",");
		snprintf(want, sizeof(want), "\n%.*s\t", (int)len, names);
		if (!strstr(cgroups, want))
			return false;
	}
	return true;
}

static void mount_v1_controllers(void)
{
	static const char *const hier[] = {
		"blkio", "cpu,cpuacct", "cpuset", "devices", "freezer",
		"hugetlb", "memory", "net_cls,net_prio", "perf_event", "pids",
		"rdma", "misc",
	};
	static char cgroups[4096];
	char dir[64], opts[64], *o;
	size_t i;

	read_file("/proc/cgroups", cgroups, sizeof(cgroups));
	for (i = 0; i < ARRAY_SIZE(hier); i++) {
		if (!have_controllers(cgroups, hier[i]))
			continue;
		snprintf(dir, sizeof(dir), "/sys/fs/cgroup/%s", hier[i]);
		make_dir(dir);
		/* EINVAL: a controller without its v1 files (CPUSETS_V1=n) */
		if (mount("cgroup", dir, "cgroup", MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  hier[i])) {
			if (errno != EINVAL)
				setup_failed("mount cgroup %s on %s: %s", hier[i],
					     dir, strerror(errno));
			printf("init: %s has no cgroup v1 hierarchy here\n",
			       hier[i]);
			rmdir(dir);
			continue;
		}
		if (!strchr(hier[i], ','))
			continue;
		snprintf(opts, sizeof(opts), "%s", hier[i]);
		for (o = strtok(opts, ","); o; o = strtok(NULL, ",")) {
			snprintf(dir, sizeof(dir), "/sys/fs/cgroup/%s", o);
			if (symlink(hier[i], dir))
				setup_failed("symlink %s: %s", dir, strerror(errno));
		}
	}
}

/*
 * v1 needs a directory per controller under /sys/fs/cgroup, and sysfs does
 * not allow mkdir there, hence the tmpfs underneath.
 */
static void setup_cgroup(const struct test *t)
{
	make_dir("/sys/fs");
	if (!strcmp(t->cgroup, "v1")) {
		mount_fs("cgroup_root", "/sys/fs/cgroup", "tmpfs", 0, "mode=0755");
		mount_fs("memory", MEMCG_ROOT, "cgroup", 0, "memory");
	} else if (!strcmp(t->cgroup, "v1all")) {
		mount_fs("tmpfs", "/sys/fs/cgroup", "tmpfs",
			 MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755");
		mount_v1_controllers();
	} else {
		/* as systemd mounts it; test_core's lesser_ns_open needs it */
		mount_fs("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, "nsdelegate");
		setup_write("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	}
}

/* test_memcontrol's memcg_sock talks TCP to itself over localhost */
static void setup_loopback(void)
{
	struct ifreq ifr = { .ifr_name = "lo", .ifr_flags = IFF_UP };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || ioctl(fd, SIOCSIFFLAGS, &ifr))
		setup_failed("bringing up lo: %s", strerror(errno));
	close(fd);
}

/*
 * /data is the host's disk when it attached one. Without (run-guest.sh
 * --icount) it is the same files from /data.img in the initramfs, through
 * a loop device: its I/O is done by the guest's own CPU, so it takes the
 * same guest time in every boot, where a virtio disk completes in host
 * time. Read-only: nothing is written back either.
 */
static void mount_data(void)
{
	int ctl, img, dev, nr;
	char path[32];

	if (!access("/dev/vda", F_OK)) {
		mount_fs("/dev/vda", "/data", "ext2", MS_NOATIME, NULL);
		return;
	}
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	nr = ctl < 0 ? -1 : ioctl(ctl, LOOP_CTL_GET_FREE);
	if (nr < 0)
		setup_failed("no /dev/vda and no free loop device: %s",
			     strerror(errno));
	close(ctl);
	snprintf(path, sizeof(path), "/dev/loop%d", nr);
	/* the loop device holds its own reference: keep neither fd in tests */
	img = open("/data.img", O_RDONLY | O_CLOEXEC);
	dev = open(path, O_RDONLY | O_CLOEXEC);
	if (img < 0 || dev < 0 || ioctl(dev, LOOP_SET_FD, img))
		setup_failed("%s on /data.img: %s", path, strerror(errno));
	mount_fs(path, "/data", "ext2", MS_RDONLY | MS_NOATIME, NULL);
}

static void setup_test(const struct test *t)
{
	setup_loopback();
	mount_data();
	setup_cgroup(t);
	if (t->swap && swapon("/dev/vdb", 0))
		setup_failed("swapon /dev/vdb: %s", strerror(errno));
	if (chdir("/data"))
		setup_failed("chdir /data: %s", strerror(errno));
}

static int run_test(const struct test *t)
{
	int rc, err;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		setup_failed("fork: %s", strerror(errno));
	if (!pid) {
		execve(t->argv[0], t->argv, child_env);
		fprintf(stderr, "init: exec %s: %s\n", t->argv[0],
			strerror(errno));
		_exit(127);
	}
	err = try_reap(pid, &rc);
	if (err)
		setup_failed("waitpid: %s", strerror(err));
	return rc;
}

int main(void)
{
	const struct test *t;
	int rc;

	setup_console();
	/* Line buffered, so our lines and the child's do not interleave. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	mount_fs("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mount_fs("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mount_fs("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
	print_memtotal();
	parse_cmdline();
	load_tests();
	t = find_test();

	printf("@@@ BEGIN %s\n", t->name);
	setup_test(t);
	rc = run_test(t);
	printf("@@@ END %s rc=%d\n", t->name, rc);
	shutdown_guest();
}
