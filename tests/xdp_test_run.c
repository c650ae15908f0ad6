// SPDX-License-Identifier: GPL-2.0
/*
 * BPF_PROG_TEST_RUN of an XDP program: the verdict and the program's
 * change to the packet come back, with repeat 1 (no dispatcher update
 * upstream) and repeat 1000 (the program runs through the dispatcher).
 * The repeats share one buffer: each run swaps the MACs of the last one's
 * output, so they come back swapped only after an odd number of runs.
 */
#include <linux/if_ether.h>
#include <string.h>

#include "tests.h"
#include "xdp_mark.skel.h"

#define MARK 0x5a5a0001

static int test_run_marks(uint32_t repeat)
{
	unsigned char in[TEST_FRAME_LEN], out[TEST_FRAME_LEN], want[TEST_FRAME_LEN];
	struct ethhdr *w = (void *)want;
	uint32_t retval = ~0u, duration = 0;
	struct xdp_mark *skel;
	int err;

	skel = xdp_mark__open();
	TEST_ASSERT(skel, "opening xdp_mark failed");
	skel->rodata->mark = MARK;
	TEST_ASSERT(!xdp_mark__load(skel), "loading xdp_mark failed");

	test_frame(in, 0x7e57, 1);
	/* What the program must make of it: word 2 marked, MACs swapped. */
	memcpy(want, in, sizeof(want));
	if (repeat % 2) {
		memcpy(w->h_dest, in + ETH_ALEN, ETH_ALEN);
		memcpy(w->h_source, in, ETH_ALEN);
	}
	((uint32_t *)(w + 1))[2] = MARK;

	err = xdp_test_run(bpf_program__fd(skel->progs.xdp_mark), in, sizeof(in),
			   out, repeat, &retval, &duration);
	TEST_ASSERT(!err, "BPF_PROG_TEST_RUN repeat %u: %s", repeat, strerror(-err));
	diag("repeat %u: retval %u, %u ns/run (emulated under TCG), %llu runs counted",
	     repeat, retval, duration, (unsigned long long)skel->bss->runs);
	TEST_ASSERT(retval == XDP_TX, "retval %u, want XDP_TX (%d)", retval, XDP_TX);
	TEST_ASSERT(!memcmp(out, want, sizeof(want)), "the packet out is not the marked packet");
	TEST_ASSERT(skel->bss->runs == repeat, "the program ran %llu times, want %u",
	            (unsigned long long)skel->bss->runs, repeat);
	xdp_mark__destroy(skel);
	return KSFT_PASS;
}

TEST_CASE(xdp_test_run_repeat_1, 0)
{
	return test_run_marks(1);
}

TEST_CASE(xdp_test_run_repeat_1000, 0)
{
	return test_run_marks(1000);
}
