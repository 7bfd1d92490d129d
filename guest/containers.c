// SPDX-License-Identifier: GPL-2.0
/*
 * containers - the soft limit as its real clients set it: Debian 12's runc
 * and crun from OCI linux.resources.memory.reservation (Docker's and
 * Podman's --memory-reservation), and libcgroup's cgcreate/cgset/cgget.
 *
 *   containers [--expect inert|effective|none] readback runc|crun
 *   containers [--expect inert|effective|none] cgset
 *   containers [--expect inert|effective|none] badinput
 *   containers [--expect inert|effective|none] [--lru classic|mglru]
 *              effect runc|crun
 *
 * Runs in the test guest with every cgroup v1 controller mounted under
 * /sys/fs/cgroup (tests.list layout v1all), the runtimes and tools at their
 * Debian paths with their shared libraries, and a busybox root filesystem
 * at /containers/rootfs (scripts/make-initramfs.sh). Each container's
 * bundle is /tmp/bundles/ID with a config.json written here; containers
 * run with --no-pivot (an initramfs root cannot pivot_root) in fresh pid,
 * network, ipc, uts and mount namespaces; the cgroup is /ID in each
 * hierarchy. Every command is printed ("$ ..."), then its output ("  | ").
 *
 *   readback  a container with reservation 41943040 (Podman's e2e value)
 *             and a 256 MiB hard limit: the soft limit inside the container
 *             (as Podman's test reads it) and in its cgroup; then
 *             "update --memory-reservation 33554432" changes it live (as
 *             runc's "runc update memory" test reads it back)
 *   cgset     cgcreate a group, cgset the soft limit in bytes and with a
 *             suffix, cgget it back; cgexec runs a task in the group
 *   badinput  per runtime: a reservation of -2 in config.json (the kernel
 *             refuses "-2"), one that is not a number ("40m"), one above
 *             the hard limit (accepted, memory.rst); update to -2 and to
 *             "abc"; cgset -2 and abc. A refused create must print an
 *             error and leave no container state, cgroup or process; an
 *             accepted one must be whole (its task in the cgroup, the hard
 *             limit set); a refused update must print an error and leave
 *             the soft limit as it was. What each did: "badinput" lines
 *   effect    two containers under global pressure (512 MiB guest): A with
 *             reservation 64M, B without, each reading its own 400 MiB file
 *             (/data/big0, big1) three times with dd, started together; the
 *             usage of each container's cgroup once both are done (the
 *             targets of softlimit-scenario's global: A <= 80, B >= 340)
 *
 * --expect effective: the soft limit reads back what was written and
 * effect meets its targets; inert (the shipped kernel): every soft limit
 * write succeeds and reads back unlimited, effect's placement is only
 * printed; none: only printed. Output ends with TAP (tap_check/tap_end).
 * Exit: 0 pass, 1 a check failed or an error, 2 usage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"

#define MIB		(1ULL << 20)
#define CG_ROOT		"/sys/fs/cgroup"
#define ROOTFS		"/containers/rootfs"
#define BUNDLES		"/tmp/bundles"
#define GATE		"/tmp/gate"
#define CMD_TIMEOUT_MS	120000
#define OUT_SIZE	16384

#define RESERVATION	41943040ULL	/* Podman's e2e test, on v1 */
#define UPDATED		33554432ULL
#define HARD_LIMIT	(256 * MIB)
#define BIG_MIB		400		/* /data/big0, /data/big1 */
#define EFFECT_SOFT_MIB	64

enum expect { EXPECT_NONE, EXPECT_INERT, EXPECT_EFFECTIVE };
static const char *const expect_names[] = { "none", "inert", "effective" };
static enum expect expect = EXPECT_NONE;
static const char *lru;		/* --lru; NULL: the kernel's default */

struct runtime {
	const char *name;
	const char *bin;
	const char *root;	/* --root: its state directory */
};

static const struct runtime runtimes[] = {
	{ "runc", "/usr/sbin/runc", "/tmp/runc" },
	{ "crun", "/usr/bin/crun", "/tmp/crun" },
};

#define CGCREATE	"/usr/bin/cgcreate"
#define CGSET		"/usr/bin/cgset"
#define CGGET		"/usr/bin/cgget"
#define CGEXEC		"/usr/bin/cgexec"
#define CGDELETE	"/usr/bin/cgdelete"

/* What a container is made of; NULL JSON values are left out. */
struct ctr {
	const char *id;
	const char *reservation;	/* JSON value text: "41943040", "-2" */
	const char *limit;		/* JSON value text */
	const char *script;		/* for /bin/sh -c */
	bool data;			/* bind /data and the gate */
};

/* ----------------------------------------------------------------------
 * Commands: each runs with stdin /dev/null and stdout and stderr in a file
 * of its own (a detached container keeps that file as its stdio), printed
 * once the command is done.
 */
static char out_buf[OUT_SIZE];
static int nr_cmds;

/* Orphans come to us (PR_SET_CHILD_SUBREAPER): a container's init. */
static void reap_orphans(void)
{
	int status;

	while (waitpid(-1, &status, WNOHANG) > 0)
		;
}

static void print_indented(const char *text)
{
	const char *p = text, *nl;

	while (*p) {
		nl = strchrnul(p, '\n');
		printf("  | %.*s\n", (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
}

/*
 * Runs argv (NULL-terminated), prints it and its output; the output also
 * stays in out_buf. Returns the exit code, 128 + signal, or 124 when it
 * was killed after CMD_TIMEOUT_MS. @outfile, when set, names the file of
 * its stdout and stderr, to be read later for a detached container's.
 */
static int run_cmd_to(const char *outfile, char *const argv[])
{
	char path[64];
	long deadline = now_ms() + CMD_TIMEOUT_MS;
	int fd, status, i;
	pid_t pid, ret;

	if (!outfile) {
		snprintf(path, sizeof(path), "/tmp/cmd.%d", ++nr_cmds);
		outfile = path;
	}
	printf("$");
	for (i = 0; argv[i]; i++)
		printf(" %s", argv[i]);
	printf("\n");

	pid = fork_child();
	if (!pid) {
		fd = open(outfile, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
		if (fd < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
		fd = open("/dev/null", O_RDONLY);
		dup2(fd, 0);
		if (fd > 0)
			close(fd);
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	for (;;) {
		ret = waitpid(pid, &status, WNOHANG);
		if (ret < 0)
			die("waitpid %d: %s", pid, strerror(errno));
		if (ret)
			break;
		if (now_ms() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			read_text(outfile, out_buf, sizeof(out_buf));
			print_indented(out_buf);
			printf("  (killed after %d s)\n", CMD_TIMEOUT_MS / 1000);
			return 124;
		}
		sleep_ms(20);
	}
	read_text(outfile, out_buf, sizeof(out_buf));
	print_indented(out_buf);
	reap_orphans();
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
				     WEXITSTATUS(status);
}

#define run_cmd(...)	run_cmd_to(NULL, (char *const[]){ __VA_ARGS__, NULL })

/* runtime->bin --root runtime->root ARGS... */
#define rt_cmd(rt, ...)	\
	run_cmd((char *)(rt)->bin, "--root", (char *)(rt)->root, __VA_ARGS__)
#define rt_cmd_to(out, rt, ...)	\
	run_cmd_to(out, (char *const[]){ (char *)(rt)->bin, "--root", \
		   (char *)(rt)->root, __VA_ARGS__, NULL })

/* The first line of the last command's output, for a TAP line. */
static const char *first_line(void)
{
	static char line[200];

	snprintf(line, sizeof(line), "%.*s", (int)strcspn(out_buf, "\n"),
		 out_buf);
	return line;
}

/* ----------------------------------------------------------------------
 * Bundles.
 */
static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	if (!f || fputs(text, f) < 0 || fclose(f))
		die("write %s: %s", path, strerror(errno));
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
}

static const char *bundle_dir(const char *id)
{
	static char dir[256];

	snprintf(dir, sizeof(dir), "%s/%s", BUNDLES, id);
	return dir;
}

/*
 * What runc spec and crun spec write, less the capabilities, rlimits,
 * masked paths and seccomp that play no part here; the mounts Podman
 * gives a container on a v1 host, so that /sys/fs/cgroup/memory inside is
 * the container's own memory cgroup.
 */
static void write_bundle(const struct ctr *c)
{
	char path[PATH_MAX], mem[256] = "", json[4096];
	int n = 0;

	if (strchr(c->script, '"') || strchr(c->script, '\\'))
		die("script of %s needs JSON escapes", c->id);
	if (c->limit)
		n += snprintf(mem + n, sizeof(mem) - n, "\"limit\": %s",
			      c->limit);
	if (c->reservation)
		n += snprintf(mem + n, sizeof(mem) - n, "%s\"reservation\": %s",
			      n ? ", " : "", c->reservation);
	snprintf(json, sizeof(json),
		"{\n"
		"  \"ociVersion\": \"1.0.2\",\n"
		"  \"process\": {\n"
		"    \"terminal\": false,\n"
		"    \"user\": { \"uid\": 0, \"gid\": 0 },\n"
		"    \"args\": [ \"/bin/sh\", \"-c\", \"%s\" ],\n"
		"    \"env\": [ \"PATH=/bin\", \"HOME=/\" ],\n"
		"    \"cwd\": \"/\",\n"
		"    \"noNewPrivileges\": true\n"
		"  },\n"
		"  \"root\": { \"path\": \"%s\", \"readonly\": true },\n"
		"  \"hostname\": \"%s\",\n"
		"  \"mounts\": [\n"
		"    { \"destination\": \"/proc\", \"type\": \"proc\", \"source\": \"proc\" },\n"
		"    { \"destination\": \"/dev\", \"type\": \"tmpfs\", \"source\": \"tmpfs\",\n"
		"      \"options\": [ \"nosuid\", \"strictatime\", \"mode=755\", \"size=65536k\" ] },\n"
		"    { \"destination\": \"/tmp\", \"type\": \"tmpfs\", \"source\": \"tmpfs\",\n"
		"      \"options\": [ \"nosuid\", \"nodev\", \"mode=1777\" ] },\n"
		"    { \"destination\": \"/sys\", \"type\": \"sysfs\", \"source\": \"sysfs\",\n"
		"      \"options\": [ \"nosuid\", \"noexec\", \"nodev\", \"ro\" ] },\n"
		"    { \"destination\": \"/sys/fs/cgroup\", \"type\": \"cgroup\", \"source\": \"cgroup\",\n"
		"      \"options\": [ \"nosuid\", \"noexec\", \"nodev\", \"relatime\", \"ro\" ] }%s\n"
		"  ],\n"
		"  \"linux\": {\n"
		"    \"cgroupsPath\": \"/%s\",\n"
		"    \"resources\": { \"memory\": { %s } },\n"
		"    \"namespaces\": [ { \"type\": \"pid\" }, { \"type\": \"network\" },\n"
		"      { \"type\": \"ipc\" }, { \"type\": \"uts\" }, { \"type\": \"mount\" } ]\n"
		"  }\n"
		"}\n",
		c->script, ROOTFS, c->id,
		c->data ?
		",\n    { \"destination\": \"/data\", \"type\": \"bind\", \"source\": \"/data\",\n"
		"      \"options\": [ \"rbind\", \"ro\" ] },\n"
		"    { \"destination\": \"/gate\", \"type\": \"bind\", \"source\": \"" GATE "\",\n"
		"      \"options\": [ \"rbind\", \"ro\" ] }" : "",
		c->id, mem);
	make_dir(BUNDLES);
	make_dir(bundle_dir(c->id));
	snprintf(path, sizeof(path), "%s/config.json", bundle_dir(c->id));
	write_file(path, json);
}

/* ----------------------------------------------------------------------
 * What a container left behind.
 */

/* Each hierarchy under /sys/fs/cgroup (symlinks skipped) that has @id. */
static int cgroups_left(const char *id, bool print)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int n = 0;
	DIR *dir = opendir(CG_ROOT);

	if (!dir)
		die("opendir %s: %s", CG_ROOT, strerror(errno));
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", CG_ROOT, de->d_name, id);
		if (!stat(path, &st)) {
			n++;
			if (print)
				printf("left: cgroup %s\n", path);
		}
	}
	closedir(dir);
	return n;
}

/* Processes other than init, us and kernel threads (children of kthreadd). */
static int processes_left(bool print)
{
	char path[64], stat[512], comm[64], *p;
	struct dirent *de;
	int n = 0, pid, ppid;
	DIR *dir;

	reap_orphans();
	dir = opendir("/proc");
	if (!dir)
		die("opendir /proc: %s", strerror(errno));
	while ((de = readdir(dir))) {
		pid = atoi(de->d_name);
		if (pid <= 2 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		FILE *f = fopen(path, "re");

		if (!f)
			continue;
		if (!fgets(stat, sizeof(stat), f))
			stat[0] = '\0';
		fclose(f);
		/* "PID (COMM) S PPID ..."; COMM may hold blanks */
		p = strrchr(stat, ')');
		if (!p || sscanf(p + 2, "%*c %d", &ppid) != 1 || ppid == 2)
			continue;
		n++;
		if (print) {
			snprintf(comm, sizeof(comm), "%.*s",
				 (int)(p - strchr(stat, '(') - 1),
				 strchr(stat, '(') + 1);
			printf("left: process %d (%s), parent %d\n", pid, comm,
			       ppid);
		}
	}
	closedir(dir);
	return n;
}

static bool state_left(const struct runtime *rt, const char *id)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", rt->root, id);
	return !stat(path, &st);
}

/* Checks that nothing of @id remains: no state, no cgroup, no process. */
static void check_nothing_left(const struct runtime *rt, const char *id,
			       const char *what)
{
	bool state = state_left(rt, id);
	int cgroups = cgroups_left(id, true), procs = processes_left(true);

	if (state)
		printf("left: state directory %s/%s\n", rt->root, id);
	tap_check(!state && !cgroups && !procs,
		  "%s %s: nothing left (state %d, cgroups %d, processes %d)",
		  rt->name, what, state, cgroups, procs);
}

/* ----------------------------------------------------------------------
 * Soft limit expectations.
 */
static unsigned long long soft_limit(const char *group)
{
	return cg_read_u64(group, "memory.soft_limit_in_bytes");
}

static void print_bytes(const char *label, unsigned long long val)
{
	if (cg_soft_limit_unlimited(val))
		printf("%s max (%llu)\n", label, val);
	else
		printf("%s %llu\n", label, val);
}

/*
 * effective: @got is exactly @want; inert: unlimited, the write dropped;
 * none: nothing checked.
 */
static void check_soft(unsigned long long got, unsigned long long want,
		       const char *fmt, ...) __printf(3, 4);
static void check_soft(unsigned long long got, unsigned long long want,
		       const char *fmt, ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	switch (expect) {
	case EXPECT_EFFECTIVE:
		tap_check(got == want, "%s: reads %llu, wrote %llu", what, got,
			  want);
		break;
	case EXPECT_INERT:
		tap_check(cg_soft_limit_unlimited(got),
			  "%s: reads %llu, unlimited (wrote %llu, dropped)",
			  what, got, want);
		break;
	case EXPECT_NONE:
		break;
	}
}

/* ----------------------------------------------------------------------
 * readback
 */

/* Waits up to @ms for @file to hold a line; returns it as a number. */
static bool wait_output(const char *file, long ms, unsigned long long *val)
{
	long deadline = now_ms() + ms;
	char buf[256], *end;

	do {
		reap_orphans();
		if (!access(file, F_OK) && read_text(file, buf, sizeof(buf)) &&
		    strchr(buf, '\n')) {
			*val = strtoull(buf, &end, 10);
			return end != buf && *end == '\n';
		}
		sleep_ms(50);
	} while (now_ms() < deadline);
	return false;
}

static char *u64_str(unsigned long long val)
{
	static char bufs[4][32];
	static int i;

	i = (i + 1) % 4;
	snprintf(bufs[i], sizeof(bufs[i]), "%llu", val);
	return bufs[i];
}

static const struct runtime *find_runtime(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(runtimes); i++)
		if (!strcmp(runtimes[i].name, name))
			return &runtimes[i];
	return NULL;
}

static int cmd_readback(const struct runtime *rt)
{
	char id[32], outfile[64];
	struct ctr c = {
		.id = id,
		.reservation = u64_str(RESERVATION),
		.limit = u64_str(HARD_LIMIT),
		.script = "cat /sys/fs/cgroup/memory/memory.soft_limit_in_bytes; exec sleep 100000",
	};
	unsigned long long inside = 0;
	bool got;
	int rc;

	snprintf(id, sizeof(id), "readback-%s", rt->name);
	snprintf(outfile, sizeof(outfile), "/tmp/%s.out", id);
	write_bundle(&c);
	rc = rt_cmd(rt, "--version");
	tap_check(rc == 0, "%s --version: %s", rt->name, first_line());

	rc = rt_cmd_to(outfile, rt, "run", "-d", "--no-pivot", "-b",
		       (char *)bundle_dir(id), id);
	tap_check(rc == 0, "%s run -d: container %s started (exit %d)",
		  rt->name, id, rc);
	if (rc)
		return tap_end();
	/* Podman's e2e test: cat the knob inside the container. */
	got = wait_output(outfile, 30000, &inside);
	tap_check(got, "the container printed its soft limit");
	if (got) {
		print_bytes("inside", inside);
		check_soft(inside, RESERVATION,
			   "%s: soft limit inside the container", rt->name);
	}
	tap_check(cg_read_u64(id, "memory.limit_in_bytes") == HARD_LIMIT,
		  "%s: memory.limit_in_bytes %llu", rt->name, HARD_LIMIT);
	print_bytes("cgroup", soft_limit(id));
	check_soft(soft_limit(id), RESERVATION,
		   "%s: memory.soft_limit_in_bytes of /%s", rt->name, id);

	/* runc's integration test "runc update memory". */
	rc = rt_cmd(rt, "update", "--memory-reservation", u64_str(UPDATED), id);
	tap_check(rc == 0, "%s update --memory-reservation %llu (exit %d)",
		  rt->name, UPDATED, rc);
	print_bytes("updated", soft_limit(id));
	check_soft(soft_limit(id), UPDATED, "%s: after update", rt->name);
	tap_check(cg_read_u64(id, "memory.limit_in_bytes") == HARD_LIMIT,
		  "%s: update kept the hard limit", rt->name);

	rc = rt_cmd(rt, "delete", "-f", id);
	tap_check(rc == 0, "%s delete -f (exit %d)", rt->name, rc);
	check_nothing_left(rt, id, "delete");
	return tap_end();
}

/* ----------------------------------------------------------------------
 * cgset
 */

/* cgget -n -v prints the bare value. */
static bool cgget_value(const char *group, unsigned long long *val)
{
	char *end;

	if (run_cmd(CGGET, "-n", "-v", "-r", "memory.soft_limit_in_bytes",
		    (char *)group))
		return false;
	*val = strtoull(out_buf, &end, 10);
	return end != out_buf;
}

static int cmd_cgset(void)
{
	const char *g = "cgset-test";
	char line[256], path[PATH_MAX], arg[64];
	unsigned long long val = 0;
	bool found = false;
	FILE *f;
	int rc;

	rc = run_cmd(CGCREATE, "-g", "memory:/cgset-test");
	cg_path(path, sizeof(path), g, NULL);
	tap_check(rc == 0 && !access(path, F_OK), "cgcreate made %s (exit %d)",
		  path, rc);
	if (rc)
		return tap_end();

	snprintf(arg, sizeof(arg), "memory.soft_limit_in_bytes=%llu",
		 RESERVATION);
	rc = run_cmd(CGSET, "-r", arg, (char *)g);
	tap_check(rc == 0, "cgset -r %s (exit %d)", arg, rc);
	rc = cgget_value(g, &val);
	print_bytes("cgget", val);
	tap_check(rc, "cgget printed a number: %llu", val);
	check_soft(val, RESERVATION, "cgget");
	check_soft(soft_limit(g), RESERVATION, "the file");

	/* memparse suffixes pass through libcgroup to the kernel */
	rc = run_cmd(CGSET, "-r", "memory.soft_limit_in_bytes=64M", (char *)g);
	tap_check(rc == 0, "cgset -r memory.soft_limit_in_bytes=64M (exit %d)",
		  rc);
	rc = cgget_value(g, &val);
	print_bytes("cgget", val);
	tap_check(rc, "cgget printed a number: %llu", val);
	check_soft(val, 64 * MIB, "cgget after 64M");

	/* cgexec: a task started in the group is charged there */
	rc = run_cmd(CGEXEC, "-g", "memory:cgset-test", "/bin/cat",
		     "/proc/self/cgroup");
	f = fmemopen(out_buf, strlen(out_buf), "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, ":memory:/cgset-test\n"))
			found = true;
	if (f)
		fclose(f);
	tap_check(rc == 0 && found, "cgexec ran a task in memory:/cgset-test");

	rc = run_cmd(CGDELETE, "memory:/cgset-test");
	tap_check(rc == 0 && access(path, F_OK), "cgdelete removed it (exit %d)",
		  rc);
	return tap_end();
}

/* ----------------------------------------------------------------------
 * badinput
 */

/* @id's task count in its memory cgroup; -1 without the cgroup. */
static int cgroup_tasks(const char *id)
{
	char path[PATH_MAX], buf[1024], *p;
	int n = 0;

	cg_path(path, sizeof(path), id, "cgroup.procs");
	if (access(path, F_OK))
		return -1;
	read_text(path, buf, sizeof(buf));
	for (p = buf; (p = strchr(p, '\n')); p++)
		n++;
	return n;
}

/*
 * A reservation in config.json that is no valid soft limit. Either the
 * runtime refuses it with an error and leaves nothing behind, or it
 * starts the container whole: its task in the cgroup, the hard limit set;
 * which soft limit it then has is printed (not asserted).
 */
static void bad_create(const struct runtime *rt, const char *what,
		       const char *reservation)
{
	char id[48];
	struct ctr c = {
		.id = id,
		.reservation = reservation,
		.limit = u64_str(HARD_LIMIT),
		.script = "exec sleep 100000",
	};
	unsigned long long soft;
	int rc, tasks;

	snprintf(id, sizeof(id), "bad-%s-%s", rt->name, what);
	write_bundle(&c);
	printf("# %s: reservation %s in config.json\n", rt->name, reservation);
	rc = rt_cmd(rt, "run", "-d", "--no-pivot", "-b", (char *)bundle_dir(id),
		    id);
	if (rc) {
		printf("badinput %s create-%s refused, exit %d: %s\n", rt->name,
		       what, rc, first_line());
		tap_check(rc < 124 && out_buf[0],
			  "%s refuses reservation %s with an error (exit %d)",
			  rt->name, reservation, rc);
		/* what a refused run -d left is the runtime's, not delete's */
		check_nothing_left(rt, id, "refused create");
		if (state_left(rt, id) || cgroups_left(id, false))
			rt_cmd(rt, "delete", "-f", id);
		return;
	}
	tasks = cgroup_tasks(id);
	soft = tasks < 0 ? 0 : soft_limit(id);
	printf("badinput %s create-%s accepted, exit 0, soft limit %llu%s\n",
	       rt->name, what, soft,
	       cg_soft_limit_unlimited(soft) ? " (max)" : "");
	tap_check(tasks > 0 &&
		  cg_read_u64(id, "memory.limit_in_bytes") == HARD_LIMIT,
		  "%s accepts reservation %s: container whole (tasks %d, hard limit set)",
		  rt->name, reservation, tasks);
	rt_cmd(rt, "delete", "-f", id);
	check_nothing_left(rt, id, "delete");
}

/*
 * update to @val on a running container: refused with an error and the
 * soft limit unchanged, or accepted (what it set is printed). Returns the
 * soft limit after.
 */
static unsigned long long bad_update(const struct runtime *rt, const char *id,
				     const char *val, unsigned long long before)
{
	unsigned long long after;
	int rc;

	rc = rt_cmd(rt, "update", "--memory-reservation", (char *)val,
		    (char *)id);
	after = soft_limit(id);
	printf("badinput %s update-%s %s, exit %d, soft limit %llu -> %llu%s: %s\n",
	       rt->name, val, rc ? "refused" : "accepted", rc, before, after,
	       cg_soft_limit_unlimited(after) ? " (max)" : "", first_line());
	if (rc)
		tap_check(out_buf[0] && after == before,
			  "%s update %s: refused with an error, soft limit unchanged",
			  rt->name, val);
	else
		tap_check(cgroup_tasks(id) > 0,
			  "%s update %s: accepted, container still running",
			  rt->name, val);
	return after;
}

static void badinput_runtime(const struct runtime *rt)
{
	char id[48];
	struct ctr c = {
		.id = id,
		.limit = u64_str(128 * MIB),
		.script = "exec sleep 100000",
	};
	unsigned long long before, after;
	int rc;

	bad_create(rt, "negative", "-2");
	bad_create(rt, "string", "\"40m\"");

	/* Above the hard limit: accepted (memory.rst), the limit rules. */
	snprintf(id, sizeof(id), "big-%s", rt->name);
	c.reservation = u64_str(512 * MIB);
	write_bundle(&c);
	printf("# %s: reservation 512 MiB above the hard limit 128 MiB\n",
	       rt->name);
	rc = rt_cmd(rt, "run", "-d", "--no-pivot", "-b", (char *)bundle_dir(id),
		    id);
	before = rc ? 0 : soft_limit(id);
	printf("badinput %s above-limit %s, exit %d, soft limit %llu%s\n",
	       rt->name, rc ? "refused" : "accepted", rc, before,
	       cg_soft_limit_unlimited(before) ? " (max)" : "");
	tap_check(rc == 0, "%s accepts reservation 512M above limit 128M (exit %d)",
		  rt->name, rc);
	if (rc)
		return;
	check_soft(before, 512 * MIB, "%s: reservation above the limit",
		   rt->name);
	tap_check(cg_read_u64(id, "memory.limit_in_bytes") == 128 * MIB,
		  "%s: hard limit 128M set beside it", rt->name);

	/* update: a value the kernel refuses, then one that is no number */
	after = bad_update(rt, id, "-2", before);
	bad_update(rt, id, "abc", after);

	rc = rt_cmd(rt, "delete", "-f", id);
	check_nothing_left(rt, id, "delete");
}

static int cmd_badinput(void)
{
	const char *g = "cgset-bad";
	unsigned long long before, after;
	size_t i;
	int rc;

	for (i = 0; i < ARRAY_SIZE(runtimes); i++)
		badinput_runtime(&runtimes[i]);

	/* libcgroup passes the string through: the kernel's EINVAL */
	cg_create(g);
	cg_write_u64(g, "memory.soft_limit_in_bytes", RESERVATION);
	before = soft_limit(g);
	rc = run_cmd(CGSET, "-r", "memory.soft_limit_in_bytes=-2", (char *)g);
	after = soft_limit(g);
	printf("badinput cgset set--2 exit %d, soft limit %llu -> %llu: %s\n",
	       rc, before, after, first_line());
	tap_check(rc != 0 && out_buf[0] && after == before,
		  "cgset refuses -2 with an error, soft limit unchanged (exit %d)",
		  rc);
	rc = run_cmd(CGSET, "-r", "memory.soft_limit_in_bytes=abc", (char *)g);
	after = soft_limit(g);
	printf("badinput cgset set-abc exit %d, soft limit %llu -> %llu: %s\n",
	       rc, before, after, first_line());
	tap_check(rc != 0 && out_buf[0] && after == before,
		  "cgset refuses abc with an error, soft limit unchanged (exit %d)",
		  rc);
	cg_remove(g);
	return tap_end();
}

/* ----------------------------------------------------------------------
 * effect
 */

/* The container's tasks are gone (its init exited, the cgroup stays). */
static bool cgroup_empty(const char *id)
{
	char buf[256];
	char path[PATH_MAX];

	cg_path(path, sizeof(path), id, "cgroup.procs");
	read_text(path, buf, sizeof(buf));
	return !buf[0];
}

static int cmd_effect(const struct runtime *rt)
{
	static const char script[] =
		"while [ ! -e /gate/go ]; do sleep 0.02; done; "
		"for i in 1 2 3; do dd if=/data/%s of=/dev/null bs=1M || exit 1; done; "
		"echo reads-done";
	char ids[2][32], scripts[2][256], outs[2][64], buf[OUT_SIZE];
	unsigned long long usage[2];
	struct ctr c[2];
	bool done[2] = { false, false }, ok = true;
	long start, elapsed = 0, deadline;
	int i, rc;

	for (i = 0; i < 2; i++) {
		snprintf(ids[i], sizeof(ids[i]), "effect-%s-%c", rt->name, 'a' + i);
		snprintf(scripts[i], sizeof(scripts[i]), script,
			 i ? "big1" : "big0");
		snprintf(outs[i], sizeof(outs[i]), "/tmp/%s.out", ids[i]);
		c[i] = (struct ctr){
			.id = ids[i],
			.reservation = i ? NULL : u64_str(EFFECT_SOFT_MIB * MIB),
			.script = scripts[i],
			.data = true,
		};
		write_bundle(&c[i]);
	}
	setup_lru(lru);
	make_dir(GATE);
	drop_caches();
	for (i = 0; i < 2; i++) {
		rc = rt_cmd_to(outs[i], rt, "run", "-d", "--no-pivot", "-b",
			       (char *)bundle_dir(ids[i]), ids[i]);
		tap_check(rc == 0, "%s run -d %s (exit %d)", rt->name, ids[i], rc);
		if (rc)
			return tap_end();
	}
	print_bytes("softlimit A", soft_limit(ids[0]));
	print_bytes("softlimit B", soft_limit(ids[1]));
	check_soft(soft_limit(ids[0]), EFFECT_SOFT_MIB * MIB,
		   "%s: A's reservation", rt->name);

	/* Both wait at the gate: let them go together. */
	write_file(GATE "/go", "");
	start = now_ms();
	deadline = start + 600000;
	while (!(done[0] && done[1]) && now_ms() < deadline) {
		sleep_ms(100);
		reap_orphans();
		for (i = 0; i < 2; i++) {
			if (!done[i] && cgroup_empty(ids[i])) {
				done[i] = true;
				printf("reader %c done after %ld ms\n", 'A' + i,
				       now_ms() - start);
			}
		}
	}
	elapsed = now_ms() - start;
	printf("elapsed_ms %ld\n", elapsed);
	for (i = 0; i < 2; i++) {
		usage[i] = cg_usage(ids[i]) >> 20;
		printf("usage %c %llu\n", 'A' + i, usage[i]);
		read_text(outs[i], buf, sizeof(buf));
		printf("container %c output:\n", 'A' + i);
		print_indented(buf);
		ok = done[i] && strstr(buf, "reads-done");
		tap_check(ok, "container %c read its file three times", 'A' + i);
	}
	if (expect == EXPECT_EFFECTIVE) {
		tap_check(4 * usage[0] <= 5 * EFFECT_SOFT_MIB,
			  "A %llu MiB <= 1.25 x reservation %d MiB", usage[0],
			  EFFECT_SOFT_MIB);
		tap_check(20 * usage[1] >= 17 * BIG_MIB,
			  "B %llu MiB >= 85%% of its %d MiB file", usage[1],
			  BIG_MIB);
	} else {
		printf("measured A %llu MiB, B %llu MiB (not asserted)\n",
		       usage[0], usage[1]);
	}
	for (i = 0; i < 2; i++) {
		rc = rt_cmd(rt, "delete", "-f", ids[i]);
		tap_check(rc == 0, "%s delete %s (exit %d)", rt->name, ids[i], rc);
	}
	tap_check(!cgroups_left(ids[0], true) && !cgroups_left(ids[1], true) &&
		  !processes_left(true), "nothing left");
	return tap_end();
}

/* ---------------------------------------------------------------------- */

static void __noreturn usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: containers [--expect inert|effective|none] [--lru classic|mglru] COMMAND\n"
		"  readback runc|crun   reservation set at create, then update\n"
		"  cgset                cgcreate, cgset, cgget, cgexec, cgdelete\n"
		"  badinput             refused and odd reservations, each runtime\n"
		"  effect runc|crun     two containers under global pressure (--lru)\n");
	exit(rc);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "expect", required_argument, NULL, 'e' },
		{ "lru", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const struct runtime *rt = NULL;
	const char *cmd;
	size_t i;
	int c;

	prog_name = "containers";
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			for (i = 0; i < ARRAY_SIZE(expect_names); i++)
				if (!strcmp(optarg, expect_names[i]))
					break;
			if (i == ARRAY_SIZE(expect_names)) {
				fprintf(stderr, "containers: --expect takes inert, effective or none, not '%s'\n",
					optarg);
				usage(2);
			}
			expect = i;
			break;
		case 'l':
			if (strcmp(optarg, "classic") && strcmp(optarg, "mglru")) {
				fprintf(stderr, "containers: --lru takes classic or mglru, not '%s'\n",
					optarg);
				usage(2);
			}
			lru = optarg;
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind >= argc)
		usage(2);
	cmd = argv[optind++];
	if (!strcmp(cmd, "readback") || !strcmp(cmd, "effect")) {
		if (optind >= argc || !(rt = find_runtime(argv[optind++]))) {
			fprintf(stderr, "containers: %s takes runc or crun\n", cmd);
			usage(2);
		}
	}
	if (optind != argc)
		usage(2);

	/* A container's init is reparented to us when its runtime exits. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		die("PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
	if (access(MEMCG_ROOT "/memory.soft_limit_in_bytes", F_OK))
		die("no cgroup v1 memory controller at %s", MEMCG_ROOT);
	printf("command %s%s%s\nexpect %s\n", cmd, rt ? " " : "",
	       rt ? rt->name : "", expect_names[expect]);

	if (!strcmp(cmd, "readback"))
		return cmd_readback(rt);
	if (!strcmp(cmd, "cgset"))
		return cmd_cgset();
	if (!strcmp(cmd, "badinput"))
		return cmd_badinput();
	if (!strcmp(cmd, "effect"))
		return cmd_effect(rt);
	fprintf(stderr, "containers: unknown command '%s'\n", cmd);
	usage(2);
}
