// SPDX-License-Identifier: GPL-2.0
/*
 * The dispatcher has no program cap, at the scale the in-tree selftest
 * (test_progs -t bpf_dispatcher: 1, 48, 49 and 65 programs) leaves to this
 * test bed: at 100 and 1024 attached XDP programs, each program's test run
 * returns its own mark, the newest one also sees real traffic through a
 * veth's native XDP, and the debugfs file lists exactly the attached set,
 * every program with a direct jump, also after seconds of churn at 1024
 * (programs detached and attached again while the work items read the
 * set in batches). With every program detached, the image is trimmed away.
 */
#include <linux/if_link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests.h"
#include "dispatcher.h"
#include "marked.h"

#define MAX_PROGS 1024
#define TRAFFIC 100
/*
 * each churn round takes every CHURN_STRIDE-th program out and back, from
 * one of CHURN_STRIDE - 1 groups in turn; the last group stays
 */
#define CHURN_STRIDE 5
#define CHURN_MS 4000

static const int checkpoints[] = { 100, MAX_PROGS };

/* Wait until the file lists exactly @m[0..n) (each directly); 0 if so. */
static int expect_set(const struct marked *m, int n, int timeout_ms)
{
	struct dispatcher_state st;
	uint64_t deadline = now_ns() + timeout_ms * 1000000ull;
	int i, missing, indirect;

	for (;;) {
		if (dispatcher_read("xdp", &st))
			return -1;
		missing = indirect = 0;
		for (i = 0; i < n; i++) {
			bool direct = false;

			if (!dispatcher_lists(&st, m[i].id, &direct))
				missing++;
			else if (!direct)
				indirect++;
		}
		if (!missing && !indirect && st.nr == (unsigned long)n && st.progs == (unsigned long)n) {
			dispatcher_state_free(&st);
			return 0;
		}
		if (now_ns() > deadline) {
			diag("debugfs: %lu listed (progs %lu), want %d: %d missing, %d without a direct jump",
			     st.nr, st.progs, n, missing, indirect);
			dispatcher_state_free(&st);
			return -1;
		}
		dispatcher_state_free(&st);
		usleep(20000);
	}
}

/*
 * Churn leaves every CHURN_STRIDE-th program attached throughout: each of
 * those must be listed with its direct jump at any time, whatever image
 * the work items make meanwhile. 0 if so.
 */
static int steady_direct(const struct marked *m, int n)
{
	struct dispatcher_state st;
	int i, lost = 0;

	if (dispatcher_read("xdp", &st))
		return -1;
	for (i = CHURN_STRIDE - 1; i < n; i += CHURN_STRIDE) {
		bool direct = false;

		if (!dispatcher_lists(&st, m[i].id, &direct) || !direct)
			lost++;
	}
	dispatcher_state_free(&st);
	if (lost)
		diag("%d programs attached throughout the churn lost their direct jump", lost);
	return lost ? -1 : 0;
}

static int image_gone(int timeout_ms)
{
	uint64_t deadline = now_ns() + timeout_ms * 1000000ull;
	struct dispatcher_state st;
	unsigned long size;

	do {
		if (dispatcher_read("xdp", &st))
			return -1;
		size = st.image_size;
		dispatcher_state_free(&st);
		if (!size)
			return 0;
		usleep(50000);
	} while (now_ns() < deadline);
	diag("an image of %lu bytes is still in force with no program", size);
	return -1;
}

/* Real frames through rx0's native XDP reach program @skel, all of them. */
static int check_traffic(struct xdp_mark *skel)
{
	uint64_t before = skel->bss->runs;
	int link;
	long sent;

	link = xdp_link(bpf_program__fd(skel->progs.xdp_mark), ifindex_of("rx0"),
			XDP_FLAGS_DRV_MODE);
	if (link < 0)
		return -1;
	sent = send_frames("tx0", TRAFFIC, 0x7e57, NULL, 0);
	wait_counter(&skel->bss->runs, before + TRAFFIC, 5000);
	usleep(100000);
	close(link);
	if (sent != TRAFFIC || skel->bss->runs != before + TRAFFIC) {
		diag("traffic: sent %ld, program %u ran %llu times", sent, skel->rodata->mark,
		     (unsigned long long)(skel->bss->runs - before));
		return -1;
	}
	return 0;
}

TEST_CASE(dispatcher_no_cap, 600)
{
	static struct marked m[MAX_PROGS];
	int n = 0, c, i, round, ret = KSFT_FAIL;
	uint64_t t0 = now_ns();

	if (!dispatcher_present()) {
		diag("no %s: a kernel without this series' dispatcher", DISPATCHER_DEBUGFS);
		return KSFT_SKIP;
	}
	if (enter_netns() || want_fds(8 * MAX_PROGS) || dummy_devs("nd", MAX_PROGS) ||
	    veth_pair("tx0", "rx0"))
		return KSFT_FAIL;
	diag("%d dummy devices in %.1f s", MAX_PROGS, (now_ns() - t0) / 1e9);

	for (c = 0; c < (int)(sizeof(checkpoints) / sizeof(checkpoints[0])); c++) {
		t0 = now_ns();
		if (marked_attach(m, n, checkpoints[c], "nd")) {
			n = checkpoints[c];
			goto out;
		}
		n = checkpoints[c];
		diag("%d programs attached (%.1f s)", n, (now_ns() - t0) / 1e9);
		if (expect_set(m, n, 20000))
			goto out;
		/*
		 * Each program's test run, many repeats of it alone: the
		 * predictable traffic that keeps the tree.
		 */
		for (i = 0; i < n; i++)
			if (marked_run(&m[i], i, 101))
				goto out;
		if (check_traffic(m[n - 1].skel))
			goto out;
		diag("%d programs: debugfs lists all with direct jumps; %d test runs and %d frames reached the right program",
		     n, n, TRAFFIC);
	}

	/*
	 * Churn at MAX_PROGS: programs leave (the set's last entry moves into
	 * each one's place) and come back (appended) while the work items the
	 * changes wake read the set in batches, its mutex dropped between
	 * them. The programs that stay keep their direct jumps throughout;
	 * every program ends listed, with its direct jump.
	 */
	t0 = now_ns();
	for (round = 0; now_ns() - t0 < CHURN_MS * 1000000ull; round++) {
		int group = round % (CHURN_STRIDE - 1);

		for (i = group; i < n; i += CHURN_STRIDE) {
			close(m[i].link);
			m[i].link = -1;
		}
		usleep(50000);
		if (steady_direct(m, n))
			goto out;
		for (i = group; i < n; i += CHURN_STRIDE) {
			char dev[16];

			snprintf(dev, sizeof(dev), "nd%d", i);
			m[i].link = xdp_link(bpf_program__fd(m[i].skel->progs.xdp_mark),
					     ifindex_of(dev), XDP_FLAGS_SKB_MODE);
			if (m[i].link < 0)
				goto out;
		}
	}
	if (steady_direct(m, n) || expect_set(m, n, 20000))
		goto out;
	diag("%d rounds of churn, %d programs out and back in each: those that stayed kept their direct jumps, all listed with direct jumps",
	     round, (n + CHURN_STRIDE - 1) / CHURN_STRIDE);

	/* All detached: nothing listed at once; the image trimmed away soon. */
	for (i = n - 1; i >= 0; i--) {
		close(m[i].link);
		m[i].link = -1;
	}
	ret = expect_set(NULL, 0, 20000) || image_gone(10000) ? KSFT_FAIL : KSFT_PASS;
out:
	marked_free(m, n);
	return ret;
}
