// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures on the paths of several XDP programs on a device
 * (BPF_XDP_NATIVE): fail-nth fails the 1st, 2nd, ... allocation of an
 * attach in turn, and of a link's release. An attach that fails changes
 * nothing: the hook lists the programs it had, at its revision, and
 * frames count in them and in no other. One that succeeds runs the new
 * program too. A release never fails, and leaves the others running.
 * Built on a uapi without BPF_XDP_NATIVE (HAVE_XDP_MPROG 0: 7.3, until
 * series/7's redesign), the test only skips.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tests.h"
#include "dispatcher.h"
#include "knob.h"
#include "xdp_count.skel.h"

#if HAVE_XDP_MPROG
#define MAX_NTH		200
#define FRAMES		20

static struct xdp_count *progs[3];
static const char *const names[3] = { "p0", "p1", "p2" };

static int fd_of(int p)
{
	return bpf_program__fd(progs[p]->progs.xdp_count);
}

/* The hook holds exactly the programs @order names (of @n), at @revision. */
static int hook_is(int ifindex, const int *order, __u32 n, __u64 revision, const char *what)
{
	LIBBPF_OPTS(bpf_prog_query_opts, optq);
	__u32 ids[4] = {}, want[4], i;

	for (i = 0; i < n; i++)
		want[i] = prog_id(fd_of(order[i]));
	optq.prog_ids = ids;
	optq.count = 4;
	if (bpf_prog_query_opts(ifindex, BPF_XDP_NATIVE, &optq)) {
		diag("%s: query: %m", what);
		return -1;
	}
	if (optq.count != n || optq.revision != revision ||
	    memcmp(ids, want, n * sizeof(*ids))) {
		diag("%s: %u programs at revision %llu, want %u at %llu, in order", what, optq.count,
		     (unsigned long long)optq.revision, n, (unsigned long long)revision);
		return -1;
	}
	return 0;
}

static int counted(const char *what, unsigned int mask)
{
	volatile __u64 *counters[3];
	int p;

	for (p = 0; p < 3; p++)
		counters[p] = &progs[p]->bss->frames;
	return frames_counted(what, "tx0", FRAMES, 100000, counters, names, 3, mask);
}

static int scenario(int ifindex)
{
	static const int two[] = { 0, 1 }, three[] = { 0, 2, 1 };
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	int nth, fd, untouched, link[3], failed = 0;
	char what[64];
	__u64 rev;

	link[0] = bpf_link_create(fd_of(0), ifindex, BPF_XDP_NATIVE, &opts);
	link[1] = bpf_link_create(fd_of(1), ifindex, BPF_XDP_NATIVE, &opts);
	if (link[0] < 0 || link[1] < 0) {
		diag("BPF_XDP_NATIVE links: %m");
		return errno == EINVAL ? -EINVAL : -1;
	}
	rev = 3;
	if (hook_is(ifindex, two, 2, rev, "p0 p1") || counted("p0 p1", 3))
		return -1;
	for (nth = 1; nth <= MAX_NTH; nth++) {
		/* p2 between them */
		opts.flags = BPF_F_AFTER;
		opts.xdp.relative_fd = fd_of(0);
		fd = fail_nth_arm(nth);
		if (fd < 0)
			return -1;
		link[2] = bpf_link_create(fd_of(2), ifindex, BPF_XDP_NATIVE, &opts);
		untouched = fail_nth_disarm(fd);
		if (untouched < 0)
			return -1;
		snprintf(what, sizeof(what), "fail-nth %d: attach %s", nth,
			 link[2] < 0 ? "failed" : "succeeded");
		if (link[2] < 0) {
			int err = errno;

			failed++;
			if (err != ENOMEM) {
				diag("%s: %s, want ENOMEM", what, strerror(err));
				return -1;
			}
			if (hook_is(ifindex, two, 2, rev, what) || counted(what, 3))
				return -1;
			continue;
		}
		if (hook_is(ifindex, three, 3, ++rev, what) || counted(what, 7))
			return -1;
		/* its release under the same failures: never fails */
		fd = fail_nth_arm(nth);
		if (fd < 0)
			return -1;
		/* the release runs as close() returns, under the count */
		close(link[2]);
		if (fail_nth_disarm(fd) < 0)
			return -1;
		snprintf(what, sizeof(what), "fail-nth %d: released", nth);
		if (hook_is(ifindex, two, 2, ++rev, what) || counted(what, 3))
			return -1;
		if (untouched) {
			diag("%d allocations in an attach: %d attaches failed with ENOMEM, changing nothing",
			     nth - 1, failed);
			break;
		}
	}
	close(link[0]);
	close(link[1]);
	if (nth > MAX_NTH) {
		diag("more than %d allocations in one attach", MAX_NTH);
		return -1;
	}
	return failed ? 0 : -1;
}

TEST_CASE(xdp_mprog_fault_injection, 300)
{
	int p, err, ret = KSFT_FAIL;

	err = fault_setup();
	if (err)
		return err > 0 ? KSFT_SKIP : KSFT_FAIL;
	if (enter_netns() || veth_pair("tx0", "rx0"))
		return KSFT_FAIL;
	for (p = 0; p < 3; p++) {
		progs[p] = xdp_count__open();
		TEST_ASSERT(progs[p], "opening xdp_count failed");
		progs[p]->rodata->pass = 1;
		TEST_ASSERT(!xdp_count__load(progs[p]), "loading xdp_count failed");
	}
	err = scenario(ifindex_of("rx0"));
	if (err == -EINVAL) {
		diag("no BPF_XDP_NATIVE in this kernel (XDP on bpf_mprog): skipped");
		ret = KSFT_SKIP;
	} else if (!err) {
		ret = KSFT_PASS;
	}
	for (p = 0; p < 3; p++)
		xdp_count__destroy(progs[p]);
	return ret;
}
#else
TEST_CASE_SKIP(xdp_mprog_fault_injection, XDP_MPROG_MISSING)
#endif
