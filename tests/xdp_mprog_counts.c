// SPDX-License-Identifier: GPL-2.0
/*
 * Several XDP programs on one device (BPF_XDP_NATIVE, the driver's hook):
 * frames sent through a veth pair and between the guest's two virtio-net
 * NICs count in every one of 1, 2, 8 and 64 programs; a program that drops
 * them, or sends them back (XDP_TX), ends the chain, none after it sees
 * them, and the device does what it said; a program attached and
 * detached again and again, frames flowing, loses none for the others.
 * With images on, two programs or more run as one image
 * (bpf_mprog_xdp_native), listed in the XDP dispatcher with a direct jump
 * and in /proc/kallsyms; one program is itself. A kernel without XDP on
 * bpf_mprog refuses the attach type: skipped. Built on a uapi without it
 * (HAVE_XDP_MPROG 0: 7.3, until series/7's redesign), the tests only skip.
 */
#include <errno.h>
#include <linux/if_link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tests.h"
#include "dispatcher.h"
#include "xdp_count.skel.h"

#if HAVE_XDP_MPROG
#define NPROGS		64
#define FRAMES		200
#define WINDOW		64	/* below the smallest rx ring on the path */
#define CHURN		50
#define CHURN_FRAMES	2000
#define IMAGE		"bpf_mprog_xdp_native"

/* programs 0 to NPROGS - 1 pass; then these */
#define DROPPER		NPROGS
#define TXER		(NPROGS + 1)
#define ECHO		(NPROGS + 2)	/* on the sender: counts frames sent back */
#define NLOADED		(NPROGS + 3)

static struct xdp_count *progs[NLOADED];
static int links[NLOADED];
static bool images;

static int attach(int p, int ifindex)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);

	links[p] = bpf_link_create(bpf_program__fd(progs[p]->progs.xdp_count), ifindex,
				   BPF_XDP_NATIVE, &opts);
	if (links[p] < 0) {
		links[p] = -errno;
		if (links[p] != -EINVAL)
			diag("BPF_XDP_NATIVE link %d on ifindex %d: %s", p, ifindex,
			     strerror(errno));
		return links[p];
	}
	return 0;
}

static void detach(int p)
{
	if (links[p] >= 0)
		close(links[p]);
	links[p] = -1;
}

/* FRAMES frames from @tx: each program of @ps (of @n) counts them all. */
static int counted(const char *what, const char *tx, const int *ps, int n, int dropped_after)
{
	__u64 before[NLOADED];
	long sent;
	int i, bad = 0;

	for (i = 0; i < NLOADED; i++)
		before[i] = progs[i]->bss->frames;
	sent = send_frames(tx, FRAMES, 0x7e57, &progs[ps[0]]->bss->frames, WINDOW);
	wait_counter(&progs[ps[n - 1]]->bss->frames, before[ps[n - 1]] +
		     (dropped_after < 0 || dropped_after >= n - 1 ? FRAMES : 0), 5000);
	usleep(200000);
	for (i = 0; i < n; i++) {
		__u64 want = dropped_after < 0 || i <= dropped_after ? FRAMES : 0;
		__u64 got = progs[ps[i]]->bss->frames - before[ps[i]];

		if (got != want && bad++ < 4)
			diag("%s: program %d (%d of %d) counted %llu of %ld frames, want %llu",
			     what, ps[i], i + 1, n, (unsigned long long)got, sent,
			     (unsigned long long)want);
	}
	if (sent != FRAMES) {
		diag("%s: sent %ld of %d frames", what, sent, FRAMES);
		bad++;
	}
	return bad ? -1 : 0;
}

/* With images on, exactly @n images of the hook; and nothing when off. */
static int expect_image(int n)
{
	if (dispatcher_expect_mprogs("xdp", IMAGE, images ? n : 0, 5000))
		return -1;
	if (kallsyms_has(IMAGE) != (images && n)) {
		diag("%s is%s in /proc/kallsyms", IMAGE, images && n ? " not" : "");
		return -1;
	}
	return 0;
}

static atomic_bool stop;
static atomic_long churn_sent;
static const char *churn_tx;

static void *send_loop(void *arg)
{
	while (!atomic_load(&stop))
		atomic_fetch_add(&churn_sent, send_frames(churn_tx, 10, 0x7e57, NULL, 0));
	return NULL;
}

/* p0 p1 p2 attached; p3 after p0 and released, again and again, under traffic. */
static int churn(const char *tx, int ifindex)
{
	__u64 p0 = progs[0]->bss->frames, p2 = progs[2]->bss->frames;
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = BPF_F_AFTER);
	pthread_t sender;
	int i, fd, err = 0;

	opts.xdp.relative_fd = bpf_program__fd(progs[0]->progs.xdp_count);
	churn_tx = tx;
	atomic_store(&stop, false);
	atomic_store(&churn_sent, 0);
	if (pthread_create(&sender, NULL, send_loop, NULL))
		return -1;
	/* no grace period to wait for: go on until the frames overlap many */
	for (i = 0; (i < CHURN || atomic_load(&churn_sent) < CHURN_FRAMES) && !err; i++) {
		fd = bpf_link_create(bpf_program__fd(progs[3]->progs.xdp_count), ifindex,
				     BPF_XDP_NATIVE, &opts);
		err = fd < 0;
		if (fd >= 0)
			close(fd);
	}
	atomic_store(&stop, true);
	pthread_join(sender, NULL);
	usleep(300000);
	p0 = progs[0]->bss->frames - p0;
	p2 = progs[2]->bss->frames - p2;
	if (err || p0 != (__u64)atomic_load(&churn_sent) || p2 != p0) {
		diag("churn: %d attach/release pairs%s, %ld frames sent, p0 counted %llu, p2 %llu",
		     i, err ? " (failed)" : "", atomic_load(&churn_sent),
		     (unsigned long long)p0, (unsigned long long)p2);
		return -1;
	}
	diag("churn: %d attach/release pairs under %ld frames, every one counted by p0 and p2",
	     i, atomic_load(&churn_sent));
	return 0;
}

static int scenario(const char *tx, const char *rx)
{
	static const int sizes[] = { 1, 2, 8, NPROGS };
	int ifindex = ifindex_of(rx), ps[NPROGS + 1];
	__u64 echoed;
	int s, i, err;
	char what[64];

	for (i = 0; i <= NPROGS; i++)
		ps[i] = i;
	for (s = 0; s < (int)(sizeof(sizes) / sizeof(sizes[0])); s++) {
		int n = sizes[s];

		for (i = 0; i < n; i++) {
			err = attach(i, ifindex);
			if (err)
				return err == -EINVAL && !i ? -EINVAL : -1;
		}
		if (xdp_mode(ifindex) != XDP_ATTACHED_DRV) {
			diag("%s: netlink reports XDP mode %d, want native", rx, xdp_mode(ifindex));
			return -1;
		}
		snprintf(what, sizeof(what), "%s: %d program(s)", rx, n);
		if (counted(what, tx, ps, n, -1) || expect_image(n > 1))
			return -1;
		diag("%s: each counted all %d frames", what, FRAMES);
		for (i = 0; i < n; i++)
			detach(i);
	}
	if (expect_image(0))
		return -1;

	/* p0 p1 p2, the dropper, p4 p5 p6: the chain ends at the drop */
	ps[3] = DROPPER;
	for (i = 0; i < 7; i++)
		if (attach(ps[i], ifindex))
			return -1;
	snprintf(what, sizeof(what), "%s: 7 programs, the 4th drops", rx);
	if (counted(what, tx, ps, 7, 3))
		return -1;
	for (i = 0; i < 7; i++)
		detach(ps[i]);

	/* the same with XDP_TX: the frames come back to the sender, once each */
	ps[3] = TXER;
	if (attach(ECHO, ifindex_of(tx)))
		return -1;
	for (i = 0; i < 7; i++)
		if (attach(ps[i], ifindex))
			return -1;
	snprintf(what, sizeof(what), "%s: 7 programs, the 4th sends back", rx);
	echoed = progs[ECHO]->bss->frames;
	if (counted(what, tx, ps, 7, 3))
		return -1;
	wait_counter(&progs[ECHO]->bss->frames, echoed + FRAMES, 5000);
	usleep(200000);
	echoed = progs[ECHO]->bss->frames - echoed;
	if (echoed != FRAMES) {
		diag("%s: %llu frames came back to %s, want %d", what,
		     (unsigned long long)echoed, tx, FRAMES);
		return -1;
	}
	for (i = 0; i < 7; i++)
		detach(ps[i]);
	detach(ECHO);
	ps[3] = 3;

	for (i = 0; i < 3; i++)
		if (attach(i, ifindex))
			return -1;
	err = churn(tx, ifindex) || expect_image(1);
	for (i = 0; i < 3; i++)
		detach(i);
	return err ? -1 : expect_image(0);
}

static int load(void)
{
	int i;

	for (i = 0; i < NLOADED; i++) {
		links[i] = -1;
		progs[i] = xdp_count__open();
		TEST_ASSERT(progs[i], "opening xdp_count %d failed", i);
		progs[i]->rodata->pass = i != DROPPER;
		progs[i]->rodata->tx = i == TXER;
		TEST_ASSERT(!xdp_count__load(progs[i]), "loading xdp_count %d failed", i);
	}
	return 0;
}

static void unload(void)
{
	int i;

	for (i = 0; i < NLOADED; i++) {
		detach(i);
		xdp_count__destroy(progs[i]);
		progs[i] = NULL;
	}
}

static int run(const char *tx, const char *rx)
{
	int err;

	images = dispatcher_present() && !dispatcher_images_off();
	if (load()) {
		unload();
		return KSFT_FAIL;
	}
	err = scenario(tx, rx);
	unload();
	if (err == -EINVAL) {
		diag("no BPF_XDP_NATIVE in this kernel (XDP on bpf_mprog): skipped");
		return KSFT_SKIP;
	}
	return err ? KSFT_FAIL : KSFT_PASS;
}

TEST_CASE(xdp_mprog_counts_veth, 300)
{
	if (enter_netns() || veth_pair("tx0", "rx0"))
		return KSFT_FAIL;
	return run("tx0", "rx0");
}

TEST_CASE(xdp_mprog_counts_virtio, 300)
{
	char nics[2][16];
	int err = virtio_net_pair(nics);

	if (err)
		return err > 0 ? KSFT_SKIP : KSFT_FAIL;
	return run(nics[0], nics[1]);
}
#else
TEST_CASE_SKIP(xdp_mprog_counts_veth, XDP_MPROG_MISSING)
TEST_CASE_SKIP(xdp_mprog_counts_virtio, XDP_MPROG_MISSING)
#endif
