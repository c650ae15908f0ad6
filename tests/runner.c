// SPDX-License-Identifier: GPL-2.0
/*
 * Test runner: runs each test in a child process with a timeout and
 * reports in kselftest TAP form, closing with "N passed, N failed".
 *   runner [-l] [-T seconds] [-t substring]...
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests.h"

static const struct test tests[] = {
	{ .name = "xdp_veth_native_counts", .fn = test_xdp_veth_native_counts },
	{ .name = "xdp_virtio_native_counts", .fn = test_xdp_virtio_native_counts },
	{ .name = "xdp_test_run_repeat_1", .fn = test_xdp_test_run_repeat_1 },
	{ .name = "xdp_test_run_repeat_1000", .fn = test_xdp_test_run_repeat_1000 },
	{ .name = "dispatcher_in_kallsyms", .fn = test_dispatcher_in_kallsyms },
	{ .name = "perf_samples_in_dispatcher", .fn = test_perf_samples_in_dispatcher,
	  .timeout_s = 300 },
	{ .name = "dispatcher_image_needs_raw", .fn = test_dispatcher_image_needs_raw },
	{ .name = "perf_annotate_dispatcher", .fn = test_perf_annotate_dispatcher,
	  .timeout_s = 120 },
	{ .name = "dispatcher_no_cap", .fn = test_dispatcher_no_cap, .timeout_s = 600 },
	{ .name = "dispatcher_churn", .fn = test_dispatcher_churn, .timeout_s = 600 },
	{ .name = "dispatcher_concurrency", .fn = test_dispatcher_concurrency, .timeout_s = 300 },
	{ .name = "dispatcher_fault_injection", .fn = test_dispatcher_fault_injection,
	  .timeout_s = 300 },
	{ .name = "dispatcher_policy", .fn = test_dispatcher_policy, .timeout_s = 300 },
	{ .name = "dispatcher_update_rate", .fn = test_dispatcher_update_rate, .timeout_s = 120 },
	{ .name = "dispatcher_jump_within_delay", .fn = test_dispatcher_jump_within_delay,
	  .timeout_s = 180 },
	{ .name = "dispatcher_mode", .fn = test_dispatcher_mode },
	{ .name = "dispatcher_calls_in_place", .fn = test_dispatcher_calls_in_place,
	  .timeout_s = 120 },
	{ .name = "dispatcher_steady_state", .fn = test_dispatcher_steady_state,
	  .timeout_s = 900 },
	{ .name = "tc_dispatcher_hooks", .fn = test_tc_dispatcher_hooks, .timeout_s = 300 },
	{ .name = "tc_dispatcher_scale", .fn = test_tc_dispatcher_scale, .timeout_s = 900 },
	{ .name = "tc_dispatcher_churn", .fn = test_tc_dispatcher_churn, .timeout_s = 600 },
	{ .name = "tc_dispatcher_concurrency", .fn = test_tc_dispatcher_concurrency,
	  .timeout_s = 300 },
	{ .name = "sk_lookup_dispatcher_steer", .fn = test_sk_lookup_dispatcher_steer,
	  .timeout_s = 180 },
	{ .name = "sk_lookup_dispatcher_scale", .fn = test_sk_lookup_dispatcher_scale,
	  .timeout_s = 300 },
	{ .name = "sk_lookup_dispatcher_churn", .fn = test_sk_lookup_dispatcher_churn,
	  .timeout_s = 300 },
	{ .name = "netkit_dispatcher", .fn = test_netkit_dispatcher, .timeout_s = 180 },
	{ .name = "mprog_images", .fn = test_mprog_images, .timeout_s = 180 },
	{ .name = "flow_dissector_dispatcher", .fn = test_flow_dissector_dispatcher,
	  .timeout_s = 300 },
	{ .name = "devmap_redirect_traffic", .fn = test_devmap_redirect_traffic },
	{ .name = "devmap_redirect_live_frames", .fn = test_devmap_redirect_live_frames },
	{ .name = "devmap_redirect_follows_device", .fn = test_devmap_redirect_follows_device,
	  .timeout_s = 300 },
	{ .name = "devmap_redirect_frags", .fn = test_devmap_redirect_frags, .timeout_s = 300 },
};

#define NTESTS (sizeof(tests) / sizeof(tests[0]))

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
		if (strstr(t->name, filters[i]))
			return true;
	return false;
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
	size_t i, n = 0;
	bool list = false;
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
			fprintf(stderr, "usage: %s [-l] [-T seconds] [-t substring]...\n", argv[0]);
			return 2;
		}
	}
	for (i = 0; i < NTESTS; i++)
		if (selected(&tests[i], filters, nfilters)) {
			if (list)
				printf("%s\n", tests[i].name);
			n++;
		}
	if (list)
		return 0;
	if (!n) {
		fprintf(stderr, "%s: no test matches the filters\n", argv[0]);
		return 2;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%zu\n", n);
	n = 0;
	for (i = 0; i < NTESTS; i++) {
		const struct test *t = &tests[i];
		uint64_t start;
		int rc;

		if (!selected(t, filters, nfilters))
			continue;
		n++;
		start = now_ns();
		rc = run_one(t, t->timeout_s ?: timeout_s);
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
