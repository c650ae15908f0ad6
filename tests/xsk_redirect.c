// SPDX-License-Identifier: GPL-2.0
/*
 * XDP_REDIRECT to AF_XDP sockets through an XSKMAP, as libxdp's default
 * program does it (bpf_redirect_map(&xsks, rx_queue_index, XDP_PASS)):
 * every test frame sent into a veth reaches the socket bound to its queue,
 * in copy mode, with its content; and a socket never takes a frame of
 * another device or another queue redirected to it: a program on a second
 * veth sending all its frames to that socket has them dropped and counted
 * in the device's rx_dropped, and BPF_PROG_TEST_RUN live frames (queue 0)
 * reach the socket of queue 0, not the one of queue 1; a socket bound
 * with a Tx ring alone refuses them. The tree without series/1's fix
 * crashes on that last one (a NULL Rx ring), the runner's last test.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tests.h"
#include "xsk_redirect.skel.h"

#define FRAMES	1000
#define LIVE	64
#define TAG	0x75c
#define WINDOW	64	/* frames in flight: within the socket's rings */

/* @dev's rx_dropped, from netlink: sysfs shows the namespace it was mounted in. */
static long long rx_dropped(const char *dev)
{
	struct ifaddrs *ifa, *i;
	long long v = -1;

	if (getifaddrs(&ifa))
		return -1;
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_PACKET && i->ifa_data &&
		    !strcmp(i->ifa_name, dev))
			v = ((struct rtnl_link_stats *)i->ifa_data)->rx_dropped;
	freeifaddrs(ifa);
	return v;
}

/* A socket on @dev's queue @q at entry @key of @skel's map. */
static struct xsk_rx *bind_socket(struct xsk_redirect *skel, const char *dev, __u32 q,
				  __u32 key, bool zero_copy, int *err)
{
	struct xsk_rx *x = xsk_rx_open(dev, q, zero_copy, err);
	int fd;

	if (!x)
		return NULL;
	fd = xsk_rx_fd(x);
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.xsks), &key, &fd, BPF_ANY)) {
		*err = -errno;
		xsk_rx_close(x);
		return NULL;
	}
	return x;
}

/* @frames test frames out of @tx; @x, on the other end, gets each once. */
static int delivered(struct xsk_redirect *skel, struct xsk_rx *x, const char *tx, long frames)
{
	long sent, got, wrong = 0;

	sent = send_frames(tx, frames, TAG, &skel->bss->seen[0], WINDOW);
	TEST_ASSERT(sent == frames, "%ld of %ld frames sent out of %s", sent, frames, tx);
	got = xsk_rx_wait(x, TAG, frames, 5000, &wrong);
	usleep(100000);
	got += xsk_rx_take(x, TAG, &wrong);
	TEST_ASSERT(got == frames && !wrong,
		    "the socket took %ld frames (%ld not the test's), want %ld", got, wrong, frames);
	return KSFT_PASS;
}

TEST_CASE(xsk_redirect_veth, 120)
{
	struct xsk_redirect *skel, *other;
	struct xsk_rx *x;
	long long dropped;
	long wrong = 0;
	int err, link, other_link;

	TEST_ASSERT(!enter_netns(), "no netns");
	TEST_ASSERT(!veth_pair("xr0", "xr1") && !veth_pair("xo0", "xo1"), "no veth pairs");
	skel = xsk_redirect__open_and_load();
	other = xsk_redirect__open_and_load();
	TEST_ASSERT(skel && other, "loading xsk_redirect failed");
	link = xdp_link(bpf_program__fd(skel->progs.xsk_redirect), ifindex_of("xr1"),
			XDP_FLAGS_DRV_MODE);
	other_link = xdp_link(bpf_program__fd(other->progs.xsk_redirect), ifindex_of("xo1"),
			      XDP_FLAGS_DRV_MODE);
	TEST_ASSERT(link >= 0 && other_link >= 0, "attaching xsk_redirect failed");
	x = bind_socket(skel, "xr1", 0, 0, false, &err);
	TEST_ASSERT(x, "an AF_XDP socket on xr1 queue 0 (copy mode): %s", strerror(-err));

	if (delivered(skel, x, "xr0", FRAMES))
		return KSFT_FAIL;
	diag("xr1: %d of %d frames reached the socket of its queue", FRAMES, FRAMES);

	/* xo1's program sends every frame to the same socket: xr1's */
	TEST_ASSERT(!bpf_map_update_elem(bpf_map__fd(other->maps.xsks), &(__u32){ 0 },
					 &(int){ xsk_rx_fd(x) }, BPF_ANY),
		    "putting xr1's socket into xo1's map failed");
	other->data->to = 0;
	dropped = rx_dropped("xo1");
	TEST_ASSERT(dropped >= 0, "no statistics for xo1");
	TEST_ASSERT(send_frames("xo0", FRAMES / 5, TAG, &other->bss->seen[0], WINDOW) == FRAMES / 5,
		    "sending out of xo0 failed");
	usleep(200000);
	TEST_ASSERT(other->bss->seen[0] == FRAMES / 5, "xo1's program saw %llu frames, want %d",
		    (unsigned long long)other->bss->seen[0], FRAMES / 5);
	TEST_ASSERT(xsk_rx_take(x, TAG, &wrong) == 0,
		    "xr1's socket took frames xo1's program redirected to it");
	TEST_ASSERT(rx_dropped("xo1") - dropped == FRAMES / 5,
		    "xo1 counted %lld dropped frames, want %d", rx_dropped("xo1") - dropped,
		    FRAMES / 5);
	diag("xo1: %d of %d frames redirected to xr1's socket dropped and counted",
	     FRAMES / 5, FRAMES / 5);

	/* and the socket still takes its own */
	if (delivered(skel, x, "xr0", FRAMES / 5))
		return KSFT_FAIL;
	close(other_link);
	close(link);
	xsk_rx_close(x);
	xsk_redirect__destroy(other);
	xsk_redirect__destroy(skel);
	return KSFT_PASS;
}

/* Live frames come in on queue 0: only the socket bound there takes them. */
TEST_CASE(xsk_redirect_queue, 120)
{
	unsigned char frame[TEST_FRAME_LEN];
	struct xsk_redirect *skel;
	struct xsk_rx *q0, *q1;
	long wrong = 0, got;
	int err, link;

	TEST_ASSERT(!enter_netns(), "no netns");
	TEST_ASSERT(!run_cmd("ip link add xq0 numtxqueues 2 numrxqueues 2 type veth peer name xq1 "
			     "numtxqueues 2 numrxqueues 2") && !link_up("xq0") && !link_up("xq1"),
		    "no veth pair of two queues");
	skel = xsk_redirect__open_and_load();
	TEST_ASSERT(skel, "loading xsk_redirect failed");
	link = xdp_link(bpf_program__fd(skel->progs.xsk_redirect), ifindex_of("xq1"),
			XDP_FLAGS_DRV_MODE);
	TEST_ASSERT(link >= 0, "attaching xsk_redirect failed");
	q1 = bind_socket(skel, "xq1", 1, 0, false, &err);
	TEST_ASSERT(q1, "an AF_XDP socket on xq1 queue 1: %s", strerror(-err));
	q0 = bind_socket(skel, "xq1", 0, 1, false, &err);
	TEST_ASSERT(q0, "an AF_XDP socket on xq1 queue 0: %s", strerror(-err));
	test_frame(frame, TAG, 0);

	/* entry 0: queue 1's socket, which must take none of queue 0's */
	skel->data->to = 0;
	TEST_ASSERT(!xdp_test_run_live_rxq(bpf_program__fd(skel->progs.xsk_redirect), frame,
					   sizeof(frame), LIVE, ifindex_of("xq1"), 0, NULL),
		    "live test run failed");
	TEST_ASSERT(skel->bss->seen[0] == LIVE, "the program saw %llu live frames on queue 0",
		    (unsigned long long)skel->bss->seen[0]);
	usleep(100000);
	got = xsk_rx_take(q1, TAG, &wrong);
	TEST_ASSERT(got == 0, "queue 1's socket took %ld of queue 0's frames", got);

	/* entry 1: queue 0's socket takes them all */
	skel->data->to = 1;
	TEST_ASSERT(!xdp_test_run_live_rxq(bpf_program__fd(skel->progs.xsk_redirect), frame,
					   sizeof(frame), LIVE, ifindex_of("xq1"), 0, NULL),
		    "live test run failed");
	got = xsk_rx_wait(q0, TAG, LIVE, 5000, &wrong);
	TEST_ASSERT(got == LIVE && !wrong, "queue 0's socket took %ld of %d live frames (%ld wrong)",
		    got, LIVE, wrong);
	diag("live frames of queue 0: none to queue 1's socket, %d of %d to queue 0's", LIVE, LIVE);
	close(link);
	xsk_rx_close(q0);
	xsk_rx_close(q1);
	xsk_redirect__destroy(skel);
	return KSFT_PASS;
}

/*
 * A socket bound with a Tx ring alone, in the map, its fill ring stocked:
 * live frames redirected to it are refused, where the kernel used to
 * write their descriptors to its NULL Rx ring and crash; a socket with an
 * Rx ring bound there afterwards takes them, so they were redirected.
 */
TEST_CASE(xsk_redirect_tx_only, 120)
{
	unsigned char frame[TEST_FRAME_LEN];
	struct xsk_redirect *skel;
	struct xsk_rx *x;
	long wrong = 0, got;
	int err, prog, i;

	TEST_ASSERT(!enter_netns(), "no netns");
	TEST_ASSERT(!veth_pair("xt0", "xt1"), "no veth pair");
	skel = xsk_redirect__open_and_load();
	TEST_ASSERT(skel, "loading xsk_redirect failed");
	prog = bpf_program__fd(skel->progs.xsk_redirect);
	test_frame(frame, TAG, 0);

	x = xsk_tx_only_open("xt1", 0, &err);
	TEST_ASSERT(x, "a Tx-only AF_XDP socket on xt1 queue 0: %s", strerror(-err));
	TEST_ASSERT(!bpf_map_update_elem(bpf_map__fd(skel->maps.xsks), &(__u32){ 0 },
					 &(int){ xsk_rx_fd(x) }, BPF_ANY),
		    "putting the Tx-only socket into the map failed");
	TEST_ASSERT(!xdp_test_run_live_rxq(prog, frame, sizeof(frame), LIVE, ifindex_of("xt1"),
					   0, NULL), "live test run failed");
	TEST_ASSERT(skel->bss->seen[0] == LIVE, "the program saw %llu of %d live frames",
		    (unsigned long long)skel->bss->seen[0], LIVE);
	xsk_rx_close(x);

	/* the queue is free once the closed socket's pool is released, later */
	for (i = 0; i < 100; i++) {
		x = bind_socket(skel, "xt1", 0, 0, false, &err);
		if (x || err != -EBUSY)
			break;
		usleep(20000);
	}
	TEST_ASSERT(x, "an AF_XDP socket on xt1 queue 0: %s", strerror(-err));
	TEST_ASSERT(!xdp_test_run_live_rxq(prog, frame, sizeof(frame), LIVE, ifindex_of("xt1"),
					   0, NULL), "live test run failed");
	got = xsk_rx_wait(x, TAG, LIVE, 5000, &wrong);
	TEST_ASSERT(got == LIVE && !wrong, "the Rx socket took %ld of %d live frames", got, LIVE);
	diag("%d live frames refused by a Tx-only socket, the kernel alive; %d taken by an Rx one",
	     LIVE, LIVE);
	xsk_rx_close(x);
	xsk_redirect__destroy(skel);
	return KSFT_PASS;
}
