// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures on the dispatcher's update path never fail an
 * attach: fail-nth fails the 1st, 2nd, ... allocation of an XDP attach in
 * turn. An attach that fails is one whose failure came before the
 * dispatcher (the link, the driver); an attach that succeeds must run its
 * program correctly, through the old image or the indirect call, and at
 * least one must have succeeded past a failure inside the dispatcher (its
 * "failed" counter rises).
 */
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "tests.h"
#include "knob.h"
#include "dispatcher.h"
#include "xdp_mark.skel.h"

#define MAX_NTH 200
#define FRAMES 50

/* The program, attached natively on rx0: test run and real frames. */
static int runs_right(struct xdp_mark *skel, uint32_t mark)
{
	unsigned char in[TEST_FRAME_LEN], out[TEST_FRAME_LEN];
	uint64_t before = skel->bss->runs;
	uint32_t retval = 0;

	test_frame(in, 0x7e57, 0);
	if (xdp_test_run(bpf_program__fd(skel->progs.xdp_mark), in, sizeof(in), out, 2,
			 &retval, NULL) || retval != XDP_TX ||
	    test_frame_mark(out) != mark)
		return -1;
	before += 2;
	if (send_frames("tx0", FRAMES, 0x7e57, NULL, 0) != FRAMES)
		return -1;
	return wait_counter(&skel->bss->runs, before + FRAMES, 5000) == before + FRAMES ? 0 : -1;
}

TEST_CASE(dispatcher_fault_injection, 300)
{
	int nth, fd, link, untouched, err, failed_attach = 0, survived = 0, ret = KSFT_FAIL;
	struct dispatcher_state st;
	unsigned long failed_before, failed_after;
	char mode[16];

	if (!dispatcher_present()) {
		diag("no %s: a kernel without this series' dispatcher", DISPATCHER_DEBUGFS);
		return KSFT_SKIP;
	}
	err = fault_setup();
	if (err)
		return err > 0 ? KSFT_SKIP : KSFT_FAIL;
	/*
	 * Images off and back: the sets start empty and the shape a tree,
	 * whatever earlier tests' traffic made the XDP dispatcher choose (a
	 * shape of no image would leave the attaches nothing to allocate).
	 */
	if (dispatcher_mode_get(mode, sizeof(mode)) || dispatcher_set_mode("off") ||
	    dispatcher_set_mode(mode))
		return KSFT_FAIL;
	if (enter_netns() || veth_pair("tx0", "rx0"))
		return KSFT_FAIL;

	for (nth = 1; nth <= MAX_NTH; nth++) {
		/* A program new to the dispatcher: its attach needs a new image. */
		struct xdp_mark *skel = xdp_mark__open();

		if (!skel)
			return KSFT_FAIL;
		skel->rodata->mark = nth;
		if (xdp_mark__load(skel)) {
			xdp_mark__destroy(skel);
			return KSFT_FAIL;
		}
		if (dispatcher_read("xdp", &st))
			return KSFT_FAIL;
		failed_before = st.failed;
		dispatcher_state_free(&st);

		/*
		 * Past the update rate's gap (50 ms) since the last image, so
		 * that this attach makes its image itself, in this thread,
		 * where fail-nth reaches its allocations.
		 */
		usleep(60000);
		fd = fail_nth_arm(nth);
		if (fd < 0)
			return KSFT_FAIL;
		link = bpf_link_create(bpf_program__fd(skel->progs.xdp_mark), ifindex_of("rx0"),
				       BPF_XDP, &(struct bpf_link_create_opts){
						.sz = sizeof(struct bpf_link_create_opts),
						.flags = XDP_FLAGS_DRV_MODE });
		untouched = fail_nth_disarm(fd);
		if (untouched < 0)
			return KSFT_FAIL;

		if (dispatcher_read("xdp", &st))
			return KSFT_FAIL;
		failed_after = st.failed;
		dispatcher_state_free(&st);

		if (link < 0) {
			failed_attach++;
		} else {
			if (runs_right(skel, nth)) {
				diag("fail-nth %d: attached, but the program did not run right", nth);
				close(link);
				xdp_mark__destroy(skel);
				return KSFT_FAIL;
			}
			if (failed_after > failed_before)
				survived++;
			close(link);
		}
		xdp_mark__destroy(skel);
		if (untouched) {
			/* No allocation left to fail: every one was tried. */
			diag("%d allocations in an attach: %d attaches failed before the dispatcher, %d succeeded past a dispatcher failure",
			     nth - 1, failed_attach, survived);
			ret = survived > 0 ? KSFT_PASS : KSFT_FAIL;
			break;
		}
	}
	if (nth > MAX_NTH)
		diag("more than %d allocations in one attach", MAX_NTH);
	return ret;
}
