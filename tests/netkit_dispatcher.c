// SPDX-License-Identifier: GPL-2.0
/*
 * netkit programs run through the tc dispatcher (bpf_dispatcher_tc): a
 * program at BPF_NETKIT_PRIMARY or BPF_NETKIT_PEER is in its set exactly
 * while attached, by a link (create, update, release) or without one
 * (attach, BPF_F_REPLACE, detach by program or by position), and leaves
 * when the device goes (deleted, or with the netns of its peer), once,
 * however its links are closed after. Frames sent out of the primary run
 * the primary's programs, frames out of the peer the peer's: each program
 * counts exactly the frames it should, NETKIT_NEXT passing them on.
 *
 * The in-tree bpf_dispatcher selftest's netkit subtests check a link of
 * each side, an attach, a link update, a detach and the pair deleted,
 * with traffic counted at least once; this test adds BPF_F_REPLACE,
 * detach by position, a link released on a live device, the peer's netns
 * going, a program attached by netkit and tcx listed once, and exact
 * counts, where test_progs does not run: CI, the off boot, the debug
 * kernel.
 *
 * Without the series' debugfs directory (an upstream kernel) the listing
 * checks are skipped and the traffic still checked: the test then reports
 * SKIP if all else passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tests.h"
#include "dispatcher.h"
#include "marked.h"

#define FRAMES		50

static bool listing;

/* Every program of the test, by role; @verdict is what it returns. */
enum { P1, P2, P3, P4, P5, Q1, Q2, Q3, R1, R2, NPROGS };
static const char *const names[NPROGS] = {
	"p1", "p2", "p3", "p4", "p5", "q1", "q2", "q3", "r1", "r2",
};
static const int verdicts[NPROGS] = {
	[P1] = NETKIT_NEXT, [P2] = NETKIT_PASS, [P3] = NETKIT_PASS, [P4] = NETKIT_NEXT, [P5] = NETKIT_PASS,
	[Q1] = NETKIT_NEXT, [Q2] = NETKIT_PASS, [Q3] = NETKIT_PASS, [R1] = NETKIT_PASS, [R2] = NETKIT_PASS,
};
static struct netkit_count *progs[NPROGS];
static uint32_t ids[NPROGS];

static int fd_of(int p)
{
	return bpf_program__fd(progs[p]->progs.nk_count);
}

#define BIT(p) (1u << (p))

/* The tc dispatcher lists exactly the programs of @mask. */
static int expect_set(unsigned int mask, bool jumps)
{
	uint32_t want[NPROGS];
	int p, n = 0;

	if (!listing)
		return 0;
	for (p = 0; p < NPROGS; p++)
		if (mask & BIT(p))
			want[n++] = ids[p];
	return dispatcher_expect("tc", want, n, jumps, 5000);
}

/* FRAMES frames out of @dev: counted by exactly the programs of @mask. */
static int traffic(const char *what, const char *dev, unsigned int mask)
{
	volatile __u64 *counters[NPROGS];
	int p;

	for (p = 0; p < NPROGS; p++)
		counters[p] = &progs[p]->bss->frames;
	/* netkit runs them in the sender's transmit: late ones are a bug */
	return frames_counted(what, dev, FRAMES, 50000, counters, names, NPROGS, mask);
}

/* One step: traffic out of @dev counted by @counted, and the set is @set. */
static int step(const char *what, const char *dev, unsigned int counted, unsigned int set)
{
	if (traffic(what, dev, counted) || expect_set(set, true)) {
		diag("at: %s", what);
		return -1;
	}
	return 0;
}

/* Run @cmd in the netns of @ns_fd, and come back to @home. */
static int run_in(int ns_fd, int home, const char *cmd)
{
	int err;

	if (netns_enter(ns_fd))
		return -1;
	err = run_cmd("%s", cmd);
	return netns_enter(home) || err ? -1 : 0;
}

/* The netkit link's device (0: none, the device went), or -1. */
static long link_ifindex(int link)
{
	struct bpf_link_info info = {};
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(link, &info, &len))
		return -1;
	return info.netkit.ifindex;
}

/* Both ends in this netns, and the primary deleted: all its programs go. */
static int same_netns_pair(void)
{
	int l_p1 = -1, l_q1 = -1, l_q3 = -1, l_tcx = -1, nk0, ret = -1;

	nk0 = ifindex_of("nk0");
	if (!nk0 || link_up("nk0") || link_up("nk1"))
		return -1;
	if (step("no program", "nk0", 0, 0))
		return -1;

	l_p1 = netkit_link(fd_of(P1), nk0, false);
	if (l_p1 < 0 || step("primary link p1: frames out of nk0", "nk0", BIT(P1), BIT(P1)) ||
	    traffic("primary link p1: frames out of nk1", "nk1", 0))
		goto out;
	l_q1 = netkit_link(fd_of(Q1), nk0, true);
	if (l_q1 < 0 || step("peer link q1", "nk1", BIT(Q1), BIT(P1) | BIT(Q1)))
		goto out;
	/* p1 says NETKIT_NEXT: p2, after it, sees the frames too. */
	if (netkit_attach(fd_of(P2), nk0, false, -1) ||
	    step("primary attach p2", "nk0", BIT(P1) | BIT(P2), BIT(P1) | BIT(Q1) | BIT(P2)))
		goto out;
	if (netkit_attach(fd_of(P3), nk0, false, fd_of(P2)) ||
	    step("p3 replaces p2 (BPF_F_REPLACE)", "nk0", BIT(P1) | BIT(P3),
		 BIT(P1) | BIT(Q1) | BIT(P3)))
		goto out;
	if (bpf_link_update(l_p1, fd_of(P4), NULL)) {
		diag("netkit link update p1 -> p4: %m");
		goto out;
	}
	if (step("link update p1 -> p4", "nk0", BIT(P4) | BIT(P3), BIT(P4) | BIT(Q1) | BIT(P3)))
		goto out;
	if (netkit_detach(fd_of(P3), nk0, false) ||
	    step("primary detach p3", "nk0", BIT(P4), BIT(P4) | BIT(Q1)))
		goto out;
	if (netkit_attach(fd_of(Q2), nk0, true, -1) ||
	    step("peer attach q2", "nk1", BIT(Q1) | BIT(Q2), BIT(P4) | BIT(Q1) | BIT(Q2)))
		goto out;
	/* Detach by position: the kernel names the program itself. */
	if (netkit_detach(-1, nk0, true) ||
	    step("peer detach of the last (q2)", "nk1", BIT(Q1), BIT(P4) | BIT(Q1)))
		goto out;
	close(l_q1);
	l_q1 = -1;
	if (step("peer link q1 closed", "nk1", 0, BIT(P4)))
		goto out;

	/*
	 * The device goes with a link at each end and a program without a
	 * link. p4 is also at a tcx hook: it must stay listed, when the
	 * device goes and when its dead netkit link is closed after.
	 */
	if (dummy_dev("nkd0"))
		goto out;
	l_tcx = tcx_link(fd_of(P4), ifindex_of("nkd0"), true);
	l_q3 = netkit_link(fd_of(Q3), nk0, true);
	if (l_tcx < 0 || l_q3 < 0 || netkit_attach(fd_of(P5), nk0, false, -1) ||
	    step("before the delete", "nk0", BIT(P4) | BIT(P5), BIT(P4) | BIT(Q3) | BIT(P5)))
		goto out;
	if (run_cmd("ip link del dev nk0") || expect_set(BIT(P4), false))
		goto out;
	if (link_ifindex(l_p1) != 0 || link_ifindex(l_q3) != 0) {
		diag("the links of the deleted pair still name ifindex %ld and %ld",
		     link_ifindex(l_p1), link_ifindex(l_q3));
		goto out;
	}
	close(l_p1);
	close(l_q3);
	l_p1 = l_q3 = -1;
	if (expect_set(BIT(P4), false))
		goto out;
	close(l_tcx);
	l_tcx = -1;
	ret = expect_set(0, false);
out:
	if (l_p1 >= 0)
		close(l_p1);
	if (l_q1 >= 0)
		close(l_q1);
	if (l_q3 >= 0)
		close(l_q3);
	if (l_tcx >= 0)
		close(l_tcx);
	return ret;
}

/* The peer in a netns of its own, which goes: the pair goes with it. */
static int peer_netns_pair(int home)
{
	int ns, nk2, l_r1 = -1, ret = -1;
	uint64_t t0;

	ns = netns_new();
	if (ns < 0 || netns_enter(home))
		return -1;
	if (netkit_pair("nk2", "nk3", ns) || !(nk2 = ifindex_of("nk2")) || link_up("nk2") ||
	    run_in(ns, home, "ip link set dev nk3 up"))
		goto out;
	l_r1 = netkit_link(fd_of(R1), nk2, false);
	if (l_r1 < 0 || netkit_attach(fd_of(R2), nk2, true, -1) ||
	    step("primary link r1, peer in another netns", "nk2", BIT(R1), BIT(R1) | BIT(R2)))
		goto out;
	/* The peer's frames are sent from its netns. */
	if (netns_enter(ns))
		goto out;
	ret = traffic("peer attach r2: frames out of nk3", "nk3", BIT(R2));
	if (netns_enter(home) || ret)
		goto out;
	ret = -1;

	/* netns exit is asynchronous: wait for the link to lose its device. */
	t0 = now_ns();
	close(ns);
	ns = -1;
	while (link_ifindex(l_r1) != 0 && now_ns() - t0 < 30000000000ull)
		usleep(20000);
	if (link_ifindex(l_r1) != 0 || if_nametoindex("nk2")) {
		diag("nk2 outlived the netns of its peer by 30 s");
		goto out;
	}
	if (expect_set(0, false))
		goto out;
	diag("the peer's netns gone: the pair and its programs gone within %.1f s",
	     (now_ns() - t0) / 1e9);
	close(l_r1);
	l_r1 = -1;
	ret = expect_set(0, false);
out:
	if (ns >= 0)
		close(ns);
	if (l_r1 >= 0)
		close(l_r1);
	return ret;
}

TEST_CASE(netkit_dispatcher, 180)
{
	int p, home, err, ret = KSFT_FAIL;

	listing = dispatcher_present();
	if (!listing)
		diag("no %s: a kernel without this series' dispatcher; the listing checks are skipped, the traffic still checked",
		     DISPATCHER_DEBUGFS);
	/* An earlier test's tc programs may still be on their way out. */
	if (listing && dispatcher_expect("tc", NULL, 0, false, 30000)) {
		diag("programs of an earlier test are still listed");
		return KSFT_FAIL;
	}
	if (enter_netns())
		return KSFT_FAIL;
	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0)
		return KSFT_FAIL;
	err = netkit_pair("nk0", "nk1", -1);
	if (err == -EOPNOTSUPP) {
		diag("no netkit in this kernel (CONFIG_NETKIT)");
		return KSFT_SKIP;
	}
	if (err)
		return KSFT_FAIL;
	if (netkit_counts_load(progs, verdicts, NPROGS))
		goto out;
	for (p = 0; p < NPROGS; p++)
		ids[p] = prog_id(fd_of(p));
	if (same_netns_pair() || peer_netns_pair(home))
		goto out;
	ret = listing ? KSFT_PASS : KSFT_SKIP;
out:
	netkit_counts_free(progs, NPROGS);
	return ret;
}
