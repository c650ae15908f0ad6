// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures never make an XDP attach run its program wrong,
 * and those of the dispatcher's work item never fail one:
 * - fail-nth fails the 1st, 2nd, ... allocation of an attach in turn; an
 *   attach that succeeds runs its program right (test runs, frames);
 * - the work items make the images, so failslab, filtered by stack to
 *   bpf_dispatcher_update(), fails their allocations for a while: an
 *   attach then succeeds, runs its program through the indirect call,
 *   the dispatcher's "failed" counter rises, and once allocations
 *   succeed again the program gets its direct jump.
 */
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "tests.h"
#include "knob.h"
#include "dispatcher.h"
#include "kprobe.h"
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

#define FAILSLAB "/sys/kernel/debug/failslab/"

/*
 * failslab fails every allocation made under bpf_dispatcher_update(),
 * which only the dispatchers' work items call: the stack filter keeps
 * any other allocation, the attach's own among them, from failing.
 * The range is written before the probability, and knobs_restore()
 * puts them back in the reverse order.
 */
static int fail_work_items(void)
{
	unsigned long start, end;
	char buf[32];

	if (access(FAILSLAB "require-start", F_OK)) {
		diag("no failslab/require-start (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)");
		return -1;
	}
	if (kallsyms_range("bpf_dispatcher_update", &start, &end))
		return -1;
	snprintf(buf, sizeof(buf), "%lu", start);
	if (knob_set(FAILSLAB "require-start", buf))
		return -1;
	snprintf(buf, sizeof(buf), "%lu", end);
	return knob_set(FAILSLAB "require-end", buf) ||
	       knob_set(FAILSLAB "stacktrace-depth", "32") ||
	       knob_set(FAILSLAB "task-filter", "N") ||
	       knob_set(FAILSLAB "interval", "1") ||
	       knob_set(FAILSLAB "times", "-1") ||
	       knob_set(FAILSLAB "probability", "100") ? -1 : 0;
}

/*
 * With the work item's allocations failing, an attach of a program new to
 * the set succeeds and runs it right; its jump comes once they succeed.
 */
static int work_item_faults(void)
{
	struct xdp_mark *skel = xdp_mark__open();
	unsigned long failed_before = 0, failed_after = 0;
	struct dispatcher_state st;
	int link = -1, i, ret = -1;
	bool direct = false;

	if (!skel)
		return -1;
	skel->rodata->mark = MAX_NTH + 1;
	if (xdp_mark__load(skel) || dispatcher_read("xdp", &st))
		goto out;
	failed_before = st.failed;
	dispatcher_state_free(&st);
	if (fail_work_items())
		goto out;
	link = bpf_link_create(bpf_program__fd(skel->progs.xdp_mark), ifindex_of("rx0"), BPF_XDP,
			       &(struct bpf_link_create_opts){
					.sz = sizeof(struct bpf_link_create_opts),
					.flags = XDP_FLAGS_DRV_MODE });
	if (link < 0) {
		diag("an attach failed while the work item's allocations did: %s", strerror(-link));
		goto out;
	}
	if (runs_right(skel, MAX_NTH + 1)) {
		diag("the work item's allocations failing, the program did not run right");
		goto out;
	}
	/* The work item runs at once, and again a second after a failure. */
	for (i = 0; i < 50 && failed_after <= failed_before; i++) {
		usleep(100000);
		if (dispatcher_read("xdp", &st))
			goto out;
		failed_after = st.failed;
		dispatcher_state_free(&st);
	}
	if (knob_set(FAILSLAB "probability", "0"))
		goto out;
	/* The trim's retry, a second after a failed image, brings the jump. */
	for (i = 0; i < 50 && !direct; i++) {
		usleep(100000);
		if (dispatcher_read("xdp", &st))
			goto out;
		dispatcher_lists(&st, prog_id(bpf_program__fd(skel->progs.xdp_mark)), &direct);
		dispatcher_state_free(&st);
	}
	diag("the work item's allocations failing: \"failed\" %lu -> %lu; then %s",
	     failed_before, failed_after, direct ? "a direct jump" : "no direct jump in 5 s");
	ret = failed_after > failed_before && direct && !runs_right(skel, MAX_NTH + 1) ? 0 : -1;
out:
	if (link >= 0)
		close(link);
	xdp_mark__destroy(skel);
	return ret;
}

TEST_CASE(dispatcher_fault_injection, 300)
{
	int nth, fd, link, untouched, err, failed_attach = 0, ret = KSFT_FAIL;
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

		if (link < 0) {
			failed_attach++;
		} else {
			if (runs_right(skel, nth)) {
				diag("fail-nth %d: attached, but the program did not run right", nth);
				close(link);
				xdp_mark__destroy(skel);
				return KSFT_FAIL;
			}
			close(link);
		}
		xdp_mark__destroy(skel);
		if (untouched) {
			/* No allocation left to fail: every one was tried. */
			diag("%d allocations in an attach: %d attaches failed, the others ran right",
			     nth - 1, failed_attach);
			ret = work_item_faults() ? KSFT_FAIL : KSFT_PASS;
			break;
		}
	}
	if (nth > MAX_NTH)
		diag("more than %d allocations in one attach", MAX_NTH);
	return ret;
}
