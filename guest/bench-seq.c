// SPDX-License-Identifier: GPL-2.0
/*
 * bench-seq - run the benchmark's guest programs one after another in one
 * boot, so that a kernel boots once per LRU mode instead of once per part.
 *
 *   bench-seq classic|mglru [PART...]
 *
 * The parts, in this order when none is named (else the ones named, in
 * the order given):
 *   charge                     bench-charge --lru MODE
 *   global parent nocontention siblings unreclaimable cost
 *                              softlimit-scenario --lru MODE --sample 250 NAME
 *   scale                      bench-scale --lru MODE
 * Every program sets the LRU mode it is given.
 *
 * Output: each part between "@@@ PART NAME" and "@@@ PART-END NAME rc=N"
 * lines (N: exit status, 128 + signal). Exit: 0 if every part exited 0,
 * 1 otherwise, 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"

#define SAMPLE_MS	"250"

static const char *const scenarios[] = {
	"global", "parent", "nocontention", "siblings", "unreclaimable", "cost",
};

#define NR_SCENARIOS	ARRAY_SIZE(scenarios)

static const char *lru;

static int run(const char *part, char *const argv[])
{
	int status, err;
	pid_t pid;

	printf("@@@ PART %s\n", part);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("bench-seq: fork");
		exit(1);
	}
	if (!pid) {
		execv(argv[0], argv);
		fprintf(stderr, "bench-seq: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	err = try_reap(pid, &status);
	if (err) {
		fprintf(stderr, "bench-seq: waitpid: %s\n", strerror(err));
		exit(1);
	}
	printf("@@@ PART-END %s rc=%d\n", part, status);
	fflush(stdout);
	return status;
}

static int run_part(const char *part)
{
	size_t i;

	if (!strcmp(part, "charge")) {
		char *argv[] = { "/bin/bench-charge", "--lru", (char *)lru, NULL };

		return run(part, argv);
	}
	if (!strcmp(part, "scale")) {
		char *argv[] = { "/bin/bench-scale", "--lru", (char *)lru, NULL };

		return run(part, argv);
	}
	for (i = 0; i < NR_SCENARIOS; i++) {
		if (strcmp(part, scenarios[i]))
			continue;
		char *argv[] = { "/bin/softlimit-scenario", "--lru", (char *)lru,
				 "--sample", SAMPLE_MS, (char *)part, NULL };

		return run(part, argv);
	}
	fprintf(stderr, "bench-seq: unknown part '%s'\n", part);
	exit(2);
}

int main(int argc, char **argv)
{
	int failed = 0, i;
	size_t j;

	if (argc < 2 || (strcmp(argv[1], "classic") && strcmp(argv[1], "mglru"))) {
		fprintf(stderr, "usage: bench-seq classic|mglru [PART...]\n");
		return 2;
	}
	lru = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2) {
		for (i = 2; i < argc; i++)
			failed |= run_part(argv[i]) != 0;
		return failed;
	}
	failed |= run_part("charge") != 0;
	for (j = 0; j < NR_SCENARIOS; j++)
		failed |= run_part(scenarios[j]) != 0;
	failed |= run_part("scale") != 0;
	return failed;
}
