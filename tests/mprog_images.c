// SPDX-License-Identifier: GPL-2.0
/*
 * Several programs at one tcx or netkit hook run as one image: with images
 * on, a hook of two programs or more has one (bpf_mprog_tcx_ingress or
 * _egress, bpf_mprog_netkit_primary or _peer, in /proc/kallsyms and in the
 * tc dispatcher's set, with a direct jump), which calls each program
 * directly, in order, on to the next while one returns TCX_NEXT
 * (NETKIT_NEXT); one program has none. Frames into a veth, or out of a
 * netkit pair, count in exactly the programs the hook's order says should
 * see them, after each attach, replace, link update, detach and link
 * release, and while a program is attached and detached again and again
 * under traffic. With images off (or on a kernel without the series) the
 * same traffic counts the same, and no image is made. A kernel with the
 * dispatcher but without images of several programs (series/6, not
 * carried to 7.3: being redesigned) has its traffic checked the same,
 * then the test skips.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tests.h"
#include "dispatcher.h"
#include "marked.h"

#define FRAMES		40
#define CHURN		100

/* Every program of the test, by role; @verdicts what each returns. */
enum { P0, P1, P2, P3, P4, P5, P6, P7, E0, E1, NPROGS };
static const char *const names[NPROGS] = {
	"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "e0", "e1",
};
static const int verdicts[NPROGS] = {
	[P0] = TCX_NEXT, [P1] = TCX_NEXT, [P2] = TCX_NEXT, [P3] = TCX_PASS,
	[P4] = TCX_NEXT, [P5] = TCX_NEXT, [P6] = TCX_PASS, [P7] = TCX_NEXT,
	[E0] = TCX_NEXT, [E1] = TCX_PASS,
};
static struct netkit_count *progs[NPROGS];
static bool images;
static int in_ifindex, out_ifindex;

#define BIT(p) (1u << (p))

static int fd_of(int p)
{
	return bpf_program__fd(progs[p]->progs.nk_count);
}

static const char *out_dev = "v0";

/* FRAMES frames out of out_dev: counted by exactly the programs of @mask. */
static int traffic(const char *what, unsigned int mask)
{
	volatile __u64 *counters[NPROGS];
	int p;

	for (p = 0; p < NPROGS; p++)
		counters[p] = &progs[p]->bss->frames;
	/* veth hands them to v1's backlog: let it drain */
	return frames_counted(what, out_dev, FRAMES, 100000, counters, names, NPROGS, mask);
}

/*
 * The tc dispatcher lists @n images named @sym (each with a direct jump),
 * and /proc/kallsyms has @sym iff @n; with images off, none and none.
 */
static int expect_images(const char *sym, int n)
{
	if (!images)
		n = 0;
	if (dispatcher_expect_mprogs("tc", sym, n, 5000))
		return -1;
	if (kallsyms_has(sym) != (n > 0)) {
		diag("%s is%s in /proc/kallsyms, with %d image(s) listed", sym,
		     n ? " not" : "", n);
		return -1;
	}
	return 0;
}

static int step(const char *what, unsigned int counted, int ingress_images)
{
	if (traffic(what, counted) ||
	    expect_images("bpf_mprog_tcx_ingress", ingress_images)) {
		diag("at: %s", what);
		return -1;
	}
	return 0;
}

static atomic_bool stop;
static atomic_long churn_sent;

static void *send_loop(void *arg)
{
	while (!atomic_load(&stop))
		atomic_fetch_add(&churn_sent, send_frames("v0", 10, 0x7e57, NULL, 0));
	return NULL;
}

/*
 * P7 attached after P0 and detached again, CHURN times, frames flowing:
 * every frame still reaches P0, and P0 still returns TCX_NEXT into the
 * rest, so P2 sees every frame too.
 */
static int churn(void)
{
	__u64 p0 = progs[P0]->bss->frames, p2 = progs[P2]->bss->frames;
	pthread_t sender;
	int i, err = 0;

	atomic_store(&stop, false);
	atomic_store(&churn_sent, 0);
	if (pthread_create(&sender, NULL, send_loop, NULL))
		return -1;
	for (i = 0; i < CHURN && !err; i++)
		err = tcx_attach(fd_of(P7), in_ifindex, true, -1) ||
		      tcx_detach(fd_of(P7), in_ifindex, true);
	atomic_store(&stop, true);
	pthread_join(sender, NULL);
	usleep(200000);
	p0 = progs[P0]->bss->frames - p0;
	p2 = progs[P2]->bss->frames - p2;
	if (err || p0 != (__u64)atomic_load(&churn_sent) || p2 != p0) {
		diag("churn: %d attach/detach pairs%s, %ld frames sent, p0 counted %llu, p2 %llu",
		     i, err ? " (failed)" : "", atomic_load(&churn_sent),
		     (unsigned long long)p0, (unsigned long long)p2);
		return -1;
	}
	diag("churn: %d attach/detach pairs under %ld frames, every one counted", CHURN,
	     atomic_load(&churn_sent));
	return 0;
}

static int scenario(void)
{
	int link6 = -1, ret = -1;

	if (step("no program", 0, 0))
		return -1;
	if (tcx_attach(fd_of(P0), in_ifindex, true, -1) || step("p0", BIT(P0), 0))
		return -1;
	/* Two programs: an image. p3 says TCX_PASS: p4 after it sees nothing. */
	if (tcx_attach(fd_of(P1), in_ifindex, true, -1) || step("p0 p1", BIT(P0) | BIT(P1), 1) ||
	    tcx_attach(fd_of(P2), in_ifindex, true, -1) ||
	    tcx_attach(fd_of(P3), in_ifindex, true, -1) ||
	    tcx_attach(fd_of(P4), in_ifindex, true, -1) ||
	    step("p0 p1 p2 p3 p4", BIT(P0) | BIT(P1) | BIT(P2) | BIT(P3), 1))
		return -1;
	/* In place: the image must call p5, never p1 again. */
	if (tcx_attach(fd_of(P5), in_ifindex, true, fd_of(P1)) ||
	    step("p5 replaces p1", BIT(P0) | BIT(P5) | BIT(P2) | BIT(P3), 1))
		return -1;
	if (tcx_detach(fd_of(P3), in_ifindex, true) ||
	    step("p3 detached", BIT(P0) | BIT(P5) | BIT(P2) | BIT(P4), 1))
		return -1;
	link6 = tcx_link(fd_of(P6), in_ifindex, true);
	if (link6 < 0 || step("link p6", BIT(P0) | BIT(P5) | BIT(P2) | BIT(P4) | BIT(P6), 1))
		goto out;
	if (bpf_link_update(link6, fd_of(P3), NULL)) {
		diag("tcx link update p6 -> p3: %m");
		goto out;
	}
	if (step("link update p6 -> p3", BIT(P0) | BIT(P5) | BIT(P2) | BIT(P4) | BIT(P3), 1))
		goto out;
	if (churn() || step("after the churn", BIT(P0) | BIT(P5) | BIT(P2) | BIT(P4) | BIT(P3), 1))
		goto out;

	/* Egress has an image of its own. */
	if (tcx_attach(fd_of(E0), out_ifindex, false, -1) ||
	    tcx_attach(fd_of(E1), out_ifindex, false, -1) ||
	    step("egress e0 e1 on v0", BIT(P0) | BIT(P5) | BIT(P2) | BIT(P4) | BIT(P3) |
		 BIT(E0) | BIT(E1), 1) || expect_images("bpf_mprog_tcx_egress", 1))
		goto out;
	if (tcx_detach(fd_of(E1), out_ifindex, false) ||
	    step("egress e0 alone", BIT(P0) | BIT(P5) | BIT(P2) | BIT(P4) | BIT(P3) | BIT(E0), 1) ||
	    expect_images("bpf_mprog_tcx_egress", 0))
		goto out;

	close(link6);
	link6 = -1;
	if (step("link p3 released", BIT(P0) | BIT(P5) | BIT(P2) | BIT(P4) | BIT(E0), 1) ||
	    tcx_detach(fd_of(P5), in_ifindex, true) || tcx_detach(fd_of(P2), in_ifindex, true) ||
	    step("p0 p4", BIT(P0) | BIT(P4) | BIT(E0), 1))
		goto out;
	/* One program left: the program itself, no image. */
	if (tcx_detach(fd_of(P4), in_ifindex, true) || step("p0 alone", BIT(P0) | BIT(E0), 0) ||
	    tcx_detach(fd_of(P0), in_ifindex, true) || tcx_detach(fd_of(E0), out_ifindex, false) ||
	    step("none", 0, 0))
		goto out;
	ret = 0;
out:
	if (link6 >= 0)
		close(link6);
	return ret;
}

/*
 * A netkit pair's primary: p0 p1 (NETKIT_NEXT), p3 (pass), p4: one image,
 * p4 never reached; down to one program, none.
 */
static int netkit_scenario(void)
{
	int nk0, err;

	err = netkit_pair("nk0", "nk1", -1);
	if (err == -EOPNOTSUPP) {
		diag("no netkit in this kernel (CONFIG_NETKIT): its part skipped");
		return 0;
	}
	nk0 = ifindex_of("nk0");
	if (err || !nk0 || link_up("nk0") || link_up("nk1"))
		return -1;
	out_dev = "nk0";
	if (netkit_attach(fd_of(P0), nk0, false, -1) ||
	    netkit_attach(fd_of(P1), nk0, false, -1) ||
	    netkit_attach(fd_of(P3), nk0, false, -1) ||
	    netkit_attach(fd_of(P4), nk0, false, -1) ||
	    traffic("netkit p0 p1 p3 p4", BIT(P0) | BIT(P1) | BIT(P3)) ||
	    expect_images("bpf_mprog_netkit_primary", 1) ||
	    expect_images("bpf_mprog_netkit_peer", 0))
		return -1;
	if (netkit_detach(fd_of(P3), nk0, false) || netkit_detach(fd_of(P4), nk0, false) ||
	    netkit_detach(fd_of(P1), nk0, false) || traffic("netkit p0", BIT(P0)) ||
	    expect_images("bpf_mprog_netkit_primary", 0))
		return -1;
	return netkit_detach(fd_of(P0), nk0, false) || run_cmd("ip link del dev nk0") ? -1 : 0;
}

TEST_CASE(mprog_images, 180)
{
	bool listing = dispatcher_present(), mprogs = dispatcher_has_mprog_images();
	int ret = KSFT_FAIL;

	images = listing && mprogs && !dispatcher_images_off();
	if (!listing)
		diag("no %s: a kernel without this series' dispatcher; the traffic is still checked",
		     DISPATCHER_DEBUGFS);
	else if (!mprogs)
		diag("%s: the traffic is still checked", MPROG_IMAGES_MISSING);
	else if (!images)
		diag("images off: every hook runs its programs one by one; the traffic is checked");
	if (enter_netns() || veth_pair("v0", "v1") || link_up("v0") || link_up("v1"))
		return KSFT_FAIL;
	in_ifindex = ifindex_of("v1");
	out_ifindex = ifindex_of("v0");
	if (netkit_counts_load(progs, verdicts, NPROGS) || scenario() || netkit_scenario())
		goto out;
	ret = listing ? KSFT_PASS : KSFT_SKIP;
	if (listing && !mprogs) {
		diag("SKIP %s", MPROG_IMAGES_MISSING);
		ret = KSFT_SKIP;
	}
out:
	netkit_counts_free(progs, NPROGS);
	return ret;
}
