// SPDX-License-Identifier: GPL-2.0
/*
 * The flow dissector dispatcher (bpf_dispatcher_flow_dissector): a flow
 * dissector program is in its set exactly while a network namespace holds
 * it, attached directly or by a link: replaced, detached, the link updated
 * or released, or the namespace gone, it leaves. Frames received on a veth
 * with receive packet steering on are hashed, so dissected, by the program
 * in force (it counts them), and test runs return its verdict. Without the
 * series' debugfs directory (an upstream kernel) the listing is not
 * checked, and the test reports SKIP if all else passed.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tests.h"
#include "dispatcher.h"
#include "flow_dissector_count.skel.h"

#define FRAMES 100
#define WINDOW 32
#define SOON_MS 2000

/* The set holds exactly @ids, with direct jumps as booted. Kernels without
 * the series' dispatcher check traffic and test runs only.
 */
static int expect(const uint32_t *ids, int n)
{
	if (!dispatcher_present())
		return 0;
	return dispatcher_expect("flow_dissector", ids, n, true, SOON_MS);
}

/*
 * RPS on fd1, so that every frame it receives is hashed. This netns's
 * devices are in a sysfs mounted from inside it, in a mount namespace of
 * the test's own; debugfs, which that sysfs covers, is mounted again on
 * it where the kernel has one.
 */
static int rps_on(const char *dev)
{
	bool debugfs = dispatcher_present();
	char path[96];
	FILE *f;

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("sysfs", "/sys", "sysfs", 0, NULL) ||
	    (debugfs && mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL))) {
		diag("a sysfs (and debugfs) for the test's netns: %m");
		return -1;
	}
	if (debugfs != dispatcher_present()) {
		diag("%s lost with the test's sysfs", DISPATCHER_DEBUGFS);
		return -1;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-0/rps_cpus", dev);
	f = fopen(path, "w");
	if (!f || fputs("1\n", f) < 0 || fclose(f)) {
		diag("%s: %m", path);
		return -1;
	}
	return 0;
}

/*
 * FRAMES test frames from fd0 to fd1, each dissected by @skel's program
 * (at least once: the path may hash a frame more than once).
 */
static int dissects(struct flow_dissector_count *skel)
{
	__u64 before = skel->bss->frames, got;
	long sent;

	sent = send_frames("fd0", FRAMES, 0xf10, &skel->bss->frames, WINDOW);
	got = wait_counter(&skel->bss->frames, before + FRAMES, 5000) - before;
	if (sent != FRAMES || got < FRAMES) {
		diag("%ld frames sent, the program dissected %llu", sent,
		     (unsigned long long)got);
		return -1;
	}
	return 0;
}

/* With no program attached, frames reach fd1 undissected by @skel's. */
static int dissects_none(struct flow_dissector_count *skel)
{
	__u64 before = skel->bss->frames;

	if (send_frames("fd0", FRAMES, 0xf10, NULL, 0) != FRAMES)
		return -1;
	usleep(200000);
	if (skel->bss->frames != before) {
		diag("a detached program dissected %llu frames",
		     (unsigned long long)(skel->bss->frames - before));
		return -1;
	}
	return 0;
}

/* A test run: the program hands the packet back to the kernel's dissector. */
static int runs(int prog_fd, uint32_t repeat)
{
	unsigned char frame[TEST_FRAME_LEN];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
		    .data_size_in = sizeof(frame), .repeat = repeat);
	int err;

	test_frame(frame, 0xf10, 0);
	err = bpf_prog_test_run_opts(prog_fd, &opts);
	if (err || opts.retval != BPF_FLOW_DISSECTOR_CONTINUE) {
		diag("test run (repeat %u): error %d, retval %u", repeat, err, opts.retval);
		return -1;
	}
	return 0;
}

TEST_CASE(flow_dissector_dispatcher, 300)
{
	struct flow_dissector_count *a = NULL, *b = NULL;
	int fa, fb, link = -1, netns = -1, other = -1, ret = KSFT_FAIL;
	uint32_t ia, ib;

	if (enter_netns() || veth_pair("fd0", "fd1") || rps_on("fd1"))
		return KSFT_FAIL;
	a = flow_dissector_count__open_and_load();
	b = flow_dissector_count__open_and_load();
	if (!a || !b) {
		diag("loading flow_dissector_count failed");
		goto out;
	}
	fa = bpf_program__fd(a->progs.fd_count);
	fb = bpf_program__fd(b->progs.fd_count);
	ia = prog_id(fa);
	ib = prog_id(fb);

	/* Attached directly, then replaced by another, then detached. */
	if (bpf_prog_attach(fa, 0, BPF_FLOW_DISSECTOR, 0)) {
		diag("BPF_PROG_ATTACH of a flow dissector: %m");
		goto out;
	}
	if (expect(&ia, 1) || dissects(a) || runs(fa, 100) || runs(fa, 1))
		goto out;
	if (bpf_prog_attach(fb, 0, BPF_FLOW_DISSECTOR, 0)) {
		diag("replacing the flow dissector: %m");
		goto out;
	}
	if (expect(&ib, 1) || dissects(b))
		goto out;
	if (bpf_prog_detach2(fb, 0, BPF_FLOW_DISSECTOR)) {
		diag("BPF_PROG_DETACH of the flow dissector: %m");
		goto out;
	}
	if (expect(NULL, 0) || dissects_none(b))
		goto out;

	/* By a link: created, updated, released. */
	netns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	link = bpf_link_create(fa, netns, BPF_FLOW_DISSECTOR, NULL);
	if (link < 0) {
		diag("a flow dissector link: %m");
		goto out;
	}
	if (expect(&ia, 1) || dissects(a))
		goto out;
	if (bpf_link_update(link, fb, NULL)) {
		diag("updating the flow dissector link: %m");
		goto out;
	}
	if (expect(&ib, 1) || dissects(b))
		goto out;
	close(link);
	link = -1;
	if (expect(NULL, 0))
		goto out;

	/*
	 * A link whose namespace goes away leaves the set with it (the link
	 * is detached then), and its release later changes nothing.
	 */
	other = netns_new();
	if (other < 0)
		goto out;
	link = bpf_link_create(fa, other, BPF_FLOW_DISSECTOR, NULL);
	if (netns_enter(netns) || link < 0) {
		diag("a flow dissector link in another netns: %m");
		goto out;
	}
	if (expect(&ia, 1))
		goto out;
	close(other);
	other = -1;
	/* The namespace is torn down by a work item: give it a few seconds. */
	if (dispatcher_present() &&
	    dispatcher_expect("flow_dissector", NULL, 0, false, 10000)) {
		diag("the link of a namespace gone is still listed");
		goto out;
	}
	close(link);
	link = -1;
	if (expect(NULL, 0) || dissects_none(a))
		goto out;
	ret = KSFT_PASS;
	if (!dispatcher_present()) {
		diag("no %s: traffic and test runs checked, the listing not", DISPATCHER_DEBUGFS);
		ret = KSFT_SKIP;
	}
out:
	if (link >= 0)
		close(link);
	if (netns >= 0)
		close(netns);
	if (other >= 0)
		close(other);
	flow_dissector_count__destroy(a);
	flow_dissector_count__destroy(b);
	return ret;
}
