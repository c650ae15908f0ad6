// SPDX-License-Identifier: GPL-2.0
/*
 * Test runner: runs each test in a child process with a timeout and
 * reports in kselftest TAP form, closing with "N passed, N failed".
 *   runner [-l] [-T seconds] [-t name]...
 * -t takes a test's exact name or a shell pattern (tc_dispatcher_*);
 * one that names no test is an error.
 */
#include <errno.h>
#include <fnmatch.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests.h"
#include "knob.h"

static struct test *tests, **tests_tail = &tests;

void test_register(struct test *t)
{
	*tests_tail = t;
	tests_tail = &t->next;
}

int enter_netns(void)
{
	if (unshare(CLONE_NEWNET)) {
		diag("unshare(CLONE_NEWNET): %m");
		return -1;
	}
	return run_cmd("ip link set lo up");
}

static bool selected(const struct test *t, char **filters, int nfilters)
{
	int i;

	if (!nfilters)
		return true;
	for (i = 0; i < nfilters; i++)
		if (!fnmatch(filters[i], t->name, 0))
			return true;
	return false;
}

/* Each -t must name a test: a typo or a renamed test is not "0 tests". */
static bool filters_match(char **filters, int nfilters)
{
	const struct test *t;
	bool ok = true;
	int i;

	for (i = 0; i < nfilters; i++) {
		for (t = tests; t; t = t->next)
			if (!fnmatch(filters[i], t->name, 0))
				break;
		if (!t) {
			fprintf(stderr, "runner: -t %s: no such test (runner -l lists them)\n",
				filters[i]);
			ok = false;
		}
	}
	return ok;
}

/* Returns a KSFT_* code; a test that overruns its time is killed: fail. */
static int run_one(const struct test *t, int timeout_s)
{
	uint64_t deadline;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		diag("fork: %m");
		return KSFT_FAIL;
	}
	if (!pid) {
		/* Own process group, so a timeout also ends what it started. */
		setpgid(0, 0);
		_exit(t->fn());
	}
	deadline = now_ns() + (uint64_t)timeout_s * 1000000000ull;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			diag("waitpid: %m");
			return KSFT_FAIL;
		}
		if (now_ns() > deadline) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			diag("%s: timed out after %d s", t->name, timeout_s);
			return KSFT_FAIL;
		}
		usleep(20000);
	}
	if (WIFSIGNALED(status)) {
		diag("%s: killed by signal %d", t->name, WTERMSIG(status));
		return KSFT_FAIL;
	}
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	int timeout_s = 120, nfilters = 0, pass = 0, fail = 0, skip = 0;
	char *filters[64];
	const struct test *t;
	bool list = false;
	size_t n = 0;
	int opt;

	while ((opt = getopt(argc, argv, "lt:T:")) != -1) {
		switch (opt) {
		case 'l':
			list = true;
			break;
		case 't':
			if (nfilters < 64)
				filters[nfilters++] = optarg;
			break;
		case 'T':
			timeout_s = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-l] [-T seconds] [-t name]...\n", argv[0]);
			return 2;
		}
	}
	if (!filters_match(filters, nfilters))
		return 2;
	if (knobs_init()) {
		fprintf(stderr, "runner: no memory for the knobs' notes: %m\n");
		return 2;
	}
	for (t = tests; t; t = t->next)
		if (selected(t, filters, nfilters)) {
			if (list)
				printf("%s\n", t->name);
			n++;
		}
	if (list)
		return 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%zu\n", n);
	n = 0;
	for (t = tests; t; t = t->next) {
		uint64_t start;
		int rc;

		if (!selected(t, filters, nfilters))
			continue;
		n++;
		start = now_ns();
		rc = run_one(t, t->timeout_s ?: timeout_s);
		knobs_restore();
		diag("%s: %.1f s", t->name, (now_ns() - start) / 1e9);
		if (rc == KSFT_PASS) {
			printf("ok %zu %s\n", n, t->name);
			pass++;
		} else if (rc == KSFT_SKIP) {
			printf("ok %zu %s # SKIP\n", n, t->name);
			skip++;
		} else {
			printf("not ok %zu %s\n", n, t->name);
			fail++;
		}
	}
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n", pass, fail, skip);
	if (skip)
		printf("%d passed, %d failed, %d skipped\n", pass, fail, skip);
	else
		printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
