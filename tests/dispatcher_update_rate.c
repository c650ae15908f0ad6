// SPDX-License-Identifier: GPL-2.0
/*
 * The dispatcher publishes images at a bounded rate whatever userspace
 * does, and still gives a program that needs a jump one soon:
 *  - test runs (repeat=2, so each program enters the dispatcher) that
 *    alternate between 2, 8 and 64 programs publish at most 20 images a
 *    second from program changes, plus the profile's (a counting image and
 *    its answer, at most once a second), and every result is right;
 *  - a program attached while a chain shape has held long enough for the
 *    profile interval to grow gets its direct jump within two seconds of
 *    traffic that calls it: a change of the set profiles again within a
 *    second, whatever interval was pending.
 */
#include <linux/if_link.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "dispatcher.h"
#include "marked.h"

/* BPF_DISPATCHER_UPDATE_GAP: 20 a second; the profile adds 2 at most. */
#define UPDATES_PER_S	22

static struct marked m[64];

static long updates(void)
{
	struct dispatcher_state st = {};
	long n;

	if (dispatcher_read("xdp", &st))
		return -1;
	n = st.updates;
	dispatcher_state_free(&st);
	return n;
}

/* Alternate repeat=2 test runs over @n programs for @secs: 0 if within the bound. */
static int alternate(int n, double secs)
{
	uint64_t start = now_ns(), end = start + secs * 1e9;
	long before = updates(), after, runs = 0, bound;
	double took;

	if (before < 0)
		return -1;
	while (now_ns() < end) {
		if (marked_run(&m[runs % n], runs % n, 2))
			return -1;
		runs++;
	}
	took = (now_ns() - start) / 1e9;
	after = updates();
	/* one slot of slack for the update at the start */
	bound = (long)(UPDATES_PER_S * took) + 1;
	diag("%d programs alternating: %ld test runs in %.1f s, every result right; %ld images (%.1f/s, bound %ld)",
	     n, runs, took, after - before, (after - before) / took, bound);
	return after - before <= bound ? 0 : -1;
}

TEST_CASE(dispatcher_update_rate, 120)
{
	int ret = KSFT_FAIL;

	if (!dispatcher_present() || dispatcher_images_off()) {
		diag("no dispatcher images on this kernel or boot");
		return KSFT_SKIP;
	}
	if (marked_load(m, 0, 64))
		goto out;
	if (alternate(2, 3.4) || alternate(8, 3.3) || alternate(64, 3.3))
		goto out;
	ret = KSFT_PASS;
out:
	marked_free(m, 64);
	return ret;
}

#define NPROGS 48

/* 200 test runs over programs 0..@n-1, 80% to program @hot: a chain of @hot. */
static int skewed(int hot, int n, unsigned int *seed)
{
	int k, i;

	for (k = 0; k < 200; k++) {
		i = rand_r(seed) % 5 ? hot : rand_r(seed) % n;
		if (marked_run(&m[i], i, 1))
			return -1;
	}
	return 0;
}

static int policy_is(const char *policy, int i, bool *direct)
{
	struct dispatcher_state st = {};
	int same;

	if (dispatcher_read("xdp", &st))
		return -1;
	same = !strcmp(st.policy, policy);
	*direct = false;
	dispatcher_lists(&st, m[i].id, direct);
	dispatcher_state_free(&st);
	return same;
}

TEST_CASE(dispatcher_update_rate_delay, 180)
{
	unsigned int seed = 1;
	uint64_t deadline, attached;
	int ret = KSFT_FAIL;
	bool direct;
	int i;

	if (!dispatcher_present() || dispatcher_images_off()) {
		diag("no dispatcher images on this kernel or boot");
		return KSFT_SKIP;
	}
	for (i = 0; i < NPROGS; i++)
		m[i].link = -1;
	if (enter_netns() || dummy_devs("jd", NPROGS + 1) ||
	    marked_attach(m, 0, NPROGS - 1, "jd"))
		goto out;

	/* A chain of program 0, then 8 s more of the same answer. */
	deadline = now_ns() + 30e9;
	while (policy_is("chain 1", 0, &direct) != 1 || !direct) {
		if (now_ns() > deadline || skewed(0, NPROGS - 1, &seed)) {
			diag("no chain of program 0 within 30 s");
			goto out;
		}
	}
	deadline = now_ns() + 8e9;
	while (now_ns() < deadline)
		if (skewed(0, NPROGS - 1, &seed))
			goto out;

	/* A new program, then traffic that wants it: its jump within 2 s. */
	if (marked_attach(m, NPROGS - 1, NPROGS, "jd"))
		goto out;
	attached = now_ns();
	while (policy_is("chain 1", NPROGS - 1, &direct) >= 0 && !direct) {
		if (now_ns() - attached > 2e9) {
			diag("program %d attached under a chain has no jump after 2 s", NPROGS - 1);
			goto out;
		}
		if (skewed(NPROGS - 1, NPROGS, &seed))
			goto out;
	}
	diag("program %d attached under a chain: its jump after %.2f s", NPROGS - 1,
	     (now_ns() - attached) / 1e9);
	ret = KSFT_PASS;
out:
	marked_free(m, NPROGS);
	return ret;
}
