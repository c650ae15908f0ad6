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
 * with a Tx ring alone refuses them. Allocation failures on a socket's
 * setup and bind leave the queue to the next socket; and a seeded storm
 * of binds, closes, map updates, device down/up, MTU and queue-count
 * changes under another device's pktgen traffic never gets a socket a
 * frame of another queue or device. A Tx-only socket used to take a
 * redirected frame onto its NULL Rx ring and crash the kernel; 7.3's
 * XSKMAP refuses such a socket (-ENOBUFS), and the test takes either
 * that refusal or a kernel that refuses the frames.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tests.h"
#include "knob.h"
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

/*
 * @rx's program (@other) sends every frame out of @tx to entry 0, where
 * @x, a socket bound to another device, is put: the socket takes none,
 * and @rx counts each dropped. @owner names the socket.
 */
static int foreign_dropped(struct xsk_redirect *other, struct xsk_rx *x, const char *tx,
			   const char *rx, const char *owner)
{
	long long dropped;
	long wrong = 0;

	TEST_ASSERT(!bpf_map_update_elem(bpf_map__fd(other->maps.xsks), &(__u32){ 0 },
					 &(int){ xsk_rx_fd(x) }, BPF_ANY),
		    "putting %s socket into %s's map failed", owner, rx);
	other->data->to = 0;
	dropped = rx_dropped(rx);
	TEST_ASSERT(dropped >= 0, "no statistics for %s", rx);
	TEST_ASSERT(send_frames(tx, FRAMES / 5, TAG, &other->bss->seen[0], WINDOW) == FRAMES / 5,
		    "sending out of %s failed", tx);
	usleep(200000);
	TEST_ASSERT(other->bss->seen[0] == FRAMES / 5, "%s's program saw %llu frames, want %d", rx,
		    (unsigned long long)other->bss->seen[0], FRAMES / 5);
	TEST_ASSERT(xsk_rx_take(x, TAG, &wrong) == 0,
		    "%s socket took frames %s's program redirected to it", owner, rx);
	TEST_ASSERT(rx_dropped(rx) - dropped == FRAMES / 5,
		    "%s counted %lld dropped frames, want %d", rx, rx_dropped(rx) - dropped,
		    FRAMES / 5);
	diag("%s: %d of %d frames redirected to %s socket dropped and counted", rx, FRAMES / 5,
	     FRAMES / 5, owner);
	return KSFT_PASS;
}

TEST_CASE(xsk_redirect_veth, 120)
{
	struct xsk_redirect *skel, *other;
	struct xsk_rx *x;
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
	if (foreign_dropped(other, x, "xo0", "xo1", "xr1's"))
		return KSFT_FAIL;

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

/* A two-queue veth pair @a - @b, @b up with @skel's program, in a netns. */
static int two_queue_veth(struct xsk_redirect *skel, const char *a, const char *b)
{
	int link;

	TEST_ASSERT(!run_cmd("ip link add %s numtxqueues 2 numrxqueues 2 type veth peer name %s "
			     "numtxqueues 2 numrxqueues 2", a, b) && !link_up(a) && !link_up(b),
		    "no veth pair of two queues");
	link = xdp_link(bpf_program__fd(skel->progs.xsk_redirect), ifindex_of(b),
			XDP_FLAGS_DRV_MODE);
	TEST_ASSERT(link >= 0, "attaching xsk_redirect to %s failed", b);
	return KSFT_PASS;
}

/*
 * @n live frames tagged @tag into @dev through @skel's program. A live
 * test run's frames come in on queue 0 whatever the context says (its
 * rxq is registered with index 0).
 */
static int live_frames(struct xsk_redirect *skel, const char *dev, uint32_t tag, int n)
{
	unsigned char frame[TEST_FRAME_LEN];

	test_frame(frame, tag, 0);
	return xdp_test_run_live_rxq(bpf_program__fd(skel->progs.xsk_redirect), frame,
				     sizeof(frame), n, ifindex_of(dev), 0, NULL);
}

/* A socket on @dev's queue @q at entry @q, waiting out a closed one's pool. */
static struct xsk_rx *bind_queue(struct xsk_redirect *skel, const char *dev, __u32 q, int *err)
{
	struct xsk_rx *x;
	int i;

	for (i = 0; i < 100; i++) {
		x = bind_socket(skel, dev, q, q, false, err);
		if (x || *err != -EBUSY)
			return x;
		usleep(20000);
	}
	return NULL;
}

/* @x takes @n frames tagged @tag, and nothing else. */
static int takes(struct xsk_rx *x, uint32_t tag, long n, const char *what)
{
	long wrong = 0, got = xsk_rx_wait(x, tag, n, 5000, &wrong);

	TEST_ASSERT(got == n && !wrong, "%s took %ld of %ld frames (%ld not its own)", what, got,
		    n, wrong);
	return KSFT_PASS;
}

#define MAX_NTH	300

/*
 * fail-nth fails the 1st, 2nd, ... kernel allocation of a socket's setup
 * (the socket, its UMEM's registration, rings, bind) in turn: each such
 * setup fails with ENOMEM (socket()'s file: ENFILE, its sock: ENOBUFS),
 * a socket on another device keeps taking its frames, and the next
 * socket binds to the queue and takes all of its.
 */
TEST_CASE(xsk_redirect_fault_injection, 600)
{
	struct xsk_redirect *skel, *other;
	struct xsk_rx *x, *kept;
	int err, nth, fd, untouched = 0, failed = 0, busy = 0;

	TEST_ASSERT(!enter_netns(), "no netns");
	err = fault_setup();
	if (err)
		return err > 0 ? KSFT_SKIP : KSFT_FAIL;
	skel = xsk_redirect__open_and_load();
	other = xsk_redirect__open_and_load();
	TEST_ASSERT(skel && other, "loading xsk_redirect failed");
	if (two_queue_veth(skel, "xf0", "xf1") || two_queue_veth(other, "xg0", "xg1"))
		return KSFT_FAIL;
	kept = bind_queue(other, "xg1", 0, &err);
	TEST_ASSERT(kept, "an AF_XDP socket on xg1 queue 0: %s", strerror(-err));

	for (nth = 1; nth <= MAX_NTH && !untouched; nth++) {
		fd = fail_nth_arm(nth);
		TEST_ASSERT(fd >= 0, "fail-nth");
		x = xsk_rx_open("xf1", 0, false, &err);
		untouched = fail_nth_disarm(fd);
		TEST_ASSERT(untouched >= 0, "fail-nth");
		if (!x && err == -EBUSY && busy < 100) {
			/* the last socket's pool still holds the queue: again */
			busy++;
			nth--;
			untouched = 0;
			usleep(20000);
			continue;
		}
		busy = 0;
		if (!x) {
			failed++;
			/* socket() says ENFILE for its file, xsk_create() ENOBUFS for its sock */
			TEST_ASSERT(err == -ENOMEM || err == -ENFILE || err == -ENOBUFS,
				    "fail-nth %d: the setup failed with %s, want ENOMEM, ENFILE or "
				    "ENOBUFS", nth, strerror(-err));
			x = bind_queue(skel, "xf1", 0, &err);
			TEST_ASSERT(x, "fail-nth %d: no socket on queue 0 after the failure: %s", nth,
				    strerror(-err));
		} else {
			TEST_ASSERT(!bpf_map_update_elem(bpf_map__fd(skel->maps.xsks), &(__u32){ 0 },
							 &(int){ xsk_rx_fd(x) }, BPF_ANY),
				    "fail-nth %d: map update failed", nth);
		}
		TEST_ASSERT(!live_frames(skel, "xf1", TAG, LIVE) &&
			    !live_frames(other, "xg1", TAG + 1, LIVE), "live test runs failed");
		if (takes(x, TAG, LIVE, "xf1's new socket") ||
		    takes(kept, TAG + 1, LIVE, "xg1's socket"))
			return KSFT_FAIL;
		xsk_rx_close(x);
	}
	TEST_ASSERT(untouched, "a socket's setup still failed at fail-nth %d", MAX_NTH);
	TEST_ASSERT(failed > 0, "no allocation failed");
	diag("%d allocations in a socket's setup and bind: each failing it cleanly, the queue "
	     "bound again after it, both devices' frames delivered", failed);
	xsk_rx_close(kept);
	xsk_redirect__destroy(other);
	xsk_redirect__destroy(skel);
	return KSFT_PASS;
}

#define STORM_OPS	300
/*
 * A slow guest (the debug kernel on a busy host, about 500 s for 300
 * steps when alone) stops stepping once STORM_BUDGET_S have passed, after
 * STORM_MIN_OPS at least, so the test's timeout bounds setup, storm and
 * the checks after it; it says how many steps it made.
 */
#define STORM_MIN_OPS	50
#define STORM_BUDGET_S	540

/*
 * xs1's queues (rx and tx) and xs0's tx queues to @n. With XDP on xs1, veth
 * wants xs0's tx queues no more than xs1's rx queues: fewer on xs0 first,
 * more on xs1 first. Refused while a socket's pool holds queue 1, and
 * then undone. Quiet: a refusal is expected. 0: changed; 1: refused, the
 * queues as they were; -1: an undo failed, the queues unknown.
 */
static int set_queues(int n)
{
	char xs0[64], xs1[64];

	snprintf(xs0, sizeof(xs0), "ethtool -L xs0 tx %d 2>/dev/null", n);
	snprintf(xs1, sizeof(xs1), "ethtool -L xs1 rx %d tx %d 2>/dev/null", n, n);
	if (n < 2) {
		if (system(xs0))
			return 1;
		if (!system(xs1))
			return 0;
		return system("ethtool -L xs0 tx 2 2>/dev/null") ? -1 : 1;
	}
	if (system(xs1))
		return 1;
	if (!system(xs0))
		return 0;
	return system("ethtool -L xs1 rx 1 tx 1 2>/dev/null") ? -1 : 1;
}

/*
 * A seeded storm on a two-queue veth while pktgen sends into another veth
 * whose program redirects every frame to the first one's queue 0 socket:
 * sockets on either queue closed and bound again, map entries deleted
 * and crossed (queue 1's socket at entry 0), the device down and up, its
 * MTU and its queue count changed. After each step live frames (queue 0)
 * go in: queue 0's socket takes only those, never pktgen's, and queue
 * 1's takes nothing. Once the storm is over queue 0's socket takes all
 * of them, and queue 1's, at their entry, none.
 */
struct storm {
	struct xsk_redirect *skel, *other;
	struct xsk_rx *x[2];
	int queues, refused, done[5], ops;
	long taken;
	uint64_t start;
};

/* The storm's steps; pktgen runs meanwhile, stopped by the caller. */
static int storm(struct storm *st)
{
	int err, op, q;
	long wrong = 0, got;
	bool up = true;

	for (op = 0; op < STORM_OPS; op++, st->ops = op) {
		int what = rand() % 5;

		if (op >= STORM_MIN_OPS && now_ns() - st->start > STORM_BUDGET_S * 1000000000ull) {
			diag("%d of %d steps in %d s: the budget is spent", op, STORM_OPS,
			     STORM_BUDGET_S);
			break;
		}

		q = rand() % 2;
		switch (what) {
		case 0:		/* close queue q's socket, or bind one */
			if (st->x[q]) {
				xsk_rx_close(st->x[q]);
				st->x[q] = NULL;
			} else if (q < st->queues) {
				st->x[q] = bind_socket(st->skel, "xs1", q, q, false, &err);
				TEST_ASSERT(st->x[q] || err == -EBUSY, "binding to xs1 queue %d: %s", q,
					    strerror(-err));
			}
			break;
		case 1:		/* delete entry 0, or put queue q's socket there */
			if (!st->x[q])
				bpf_map_delete_elem(bpf_map__fd(st->skel->maps.xsks), &(__u32){ 0 });
			else
				bpf_map_update_elem(bpf_map__fd(st->skel->maps.xsks), &(__u32){ 0 },
						    &(int){ xsk_rx_fd(st->x[q]) }, BPF_ANY);
			break;
		case 2:
			up = !up;
			TEST_ASSERT(!run_cmd("ip link set xs1 %s", up ? "up" : "down"),
				    "xs1 %s failed", up ? "up" : "down");
			break;
		case 3:
			TEST_ASSERT(!run_cmd("ip link set xs1 mtu %d", 1280 + rand() % 221),
				    "setting xs1's MTU failed");
			break;
		case 4:
			err = set_queues(3 - st->queues);
			TEST_ASSERT(err >= 0, "step %d: a refused queue-count change was not undone",
				    op);
			if (err)
				st->refused++;
			else
				st->queues = 3 - st->queues;
			break;
		}
		st->done[what]++;
		/* pktgen's frames go to queue 0's socket, when there is one */
		if (st->x[0])
			bpf_map_update_elem(bpf_map__fd(st->other->maps.xsks), &(__u32){ 0 },
					    &(int){ xsk_rx_fd(st->x[0]) }, BPF_ANY);
		TEST_ASSERT(!live_frames(st->skel, "xs1", TAG, 8), "step %d: live frames failed", op);
		for (q = 0; q < 2; q++) {
			if (!st->x[q])
				continue;
			/* queue 1's socket has no frame of its own: TAG + 1 is never sent */
			got = xsk_rx_take(st->x[q], TAG + q, &wrong);
			TEST_ASSERT(got >= 0 && !wrong, "step %d: queue %d's socket took %ld frames "
				    "of another queue or device", op, q, wrong);
			st->taken += got;
		}
	}
	return KSFT_PASS;
}

TEST_CASE(xsk_redirect_stress, 900)
{
	unsigned int seed = getenv("SEED") ? strtoul(getenv("SEED"), NULL, 0) : (unsigned int)now_ns();
	struct storm st = { .queues = 2 };
	long wrong = 0, got;
	int err, q, pktgen;

	diag("seed %u (SEED=%u reproduces), %d steps", seed, seed, STORM_OPS);
	srand(seed);
	TEST_ASSERT(!enter_netns(), "no netns");
	st.skel = xsk_redirect__open_and_load();
	st.other = xsk_redirect__open_and_load();
	TEST_ASSERT(st.skel && st.other, "loading xsk_redirect failed");
	if (two_queue_veth(st.skel, "xs0", "xs1") || two_queue_veth(st.other, "xo0", "xo1"))
		return KSFT_FAIL;
	st.other->data->to = 0;
	st.other->bss->any_frame = 1;
	st.start = now_ns();
	pktgen = pktgen_start("xo0", "xo1");
	TEST_ASSERT(pktgen > 0, "pktgen on xo0 did not start");
	err = storm(&st);
	pktgen_stop(pktgen);
	if (err)
		return KSFT_FAIL;
	TEST_ASSERT(st.other->bss->seen[0] > 0, "pktgen's frames never reached xo1's program");
	TEST_ASSERT(st.taken > 0, "no live frame reached queue 0's socket in %d steps", st.ops);

	/* the storm over: up, two queues, each socket at its own entry */
	TEST_ASSERT(!run_cmd("ip link set xs1 up") && (st.queues == 2 || !set_queues(2)),
		    "restoring xs1 failed");
	for (q = 0; q < 2; q++) {
		if (!st.x[q])
			st.x[q] = bind_queue(st.skel, "xs1", q, &err);
		TEST_ASSERT(st.x[q], "binding to xs1 queue %d after the storm: %s", q,
			    strerror(-err));
		TEST_ASSERT(!bpf_map_update_elem(bpf_map__fd(st.skel->maps.xsks), &(__u32){ q },
						 &(int){ xsk_rx_fd(st.x[q]) }, BPF_ANY),
			    "map update after the storm failed");
		/* what came in before pktgen stopped: still none of another's */
		xsk_rx_take(st.x[q], TAG + q, &wrong);
		TEST_ASSERT(!wrong, "queue %d's socket took %ld frames of another queue or device",
			    q, wrong);
	}
	TEST_ASSERT(!live_frames(st.skel, "xs1", TAG, LIVE), "live frames failed");
	if (takes(st.x[0], TAG, LIVE, "queue 0's socket after the storm"))
		return KSFT_FAIL;
	/* queue 0's frames sent to queue 1's socket: dropped */
	st.skel->data->to = 1;
	TEST_ASSERT(!live_frames(st.skel, "xs1", TAG, LIVE), "live frames failed");
	usleep(100000);
	got = xsk_rx_take(st.x[1], TAG, &wrong);
	TEST_ASSERT(got == 0, "queue 1's socket took %ld of queue 0's frames", got);
	diag("%d steps (%d binds or closes, %d map changes, %d down/up, %d MTU, %d queue-count "
	     "changes, %d of them refused) under %llu pktgen frames at queue 0's socket: %ld "
	     "frames taken, none of another queue or device", st.ops, st.done[0], st.done[1],
	     st.done[2], st.done[3], st.done[4], st.refused,
	     (unsigned long long)st.other->bss->seen[0], st.taken);
	TEST_ASSERT(st.refused < st.done[4], "no queue-count change went through");
	xsk_rx_close(st.x[0]);
	xsk_rx_close(st.x[1]);
	xsk_redirect__destroy(st.other);
	xsk_redirect__destroy(st.skel);
	return KSFT_PASS;
}

/*
 * A socket bound with a Tx ring alone, its fill ring stocked: the XSKMAP
 * refuses it (-ENOBUFS, as 7.3 does), or, where it takes it, live frames
 * redirected to it are refused, where the kernel used to write their
 * descriptors to its NULL Rx ring and crash; a socket with an Rx ring
 * bound there afterwards takes them, so they were redirected.
 */
TEST_CASE(xsk_redirect_tx_only, 120)
{
	unsigned char frame[TEST_FRAME_LEN];
	struct xsk_redirect *skel;
	struct xsk_rx *x;
	bool refused_by_map;
	long wrong = 0, got;
	int err, prog;

	TEST_ASSERT(!enter_netns(), "no netns");
	TEST_ASSERT(!veth_pair("xt0", "xt1"), "no veth pair");
	skel = xsk_redirect__open_and_load();
	TEST_ASSERT(skel, "loading xsk_redirect failed");
	prog = bpf_program__fd(skel->progs.xsk_redirect);
	test_frame(frame, TAG, 0);

	x = xsk_tx_only_open("xt1", 0, &err);
	TEST_ASSERT(x, "a Tx-only AF_XDP socket on xt1 queue 0: %s", strerror(-err));
	err = bpf_map_update_elem(bpf_map__fd(skel->maps.xsks), &(__u32){ 0 },
				  &(int){ xsk_rx_fd(x) }, BPF_ANY) ? -errno : 0;
	TEST_ASSERT(!err || err == -ENOBUFS,
		    "putting the Tx-only socket into the map: %s, not 0 or ENOBUFS",
		    strerror(-err));
	refused_by_map = err == -ENOBUFS;
	TEST_ASSERT(!xdp_test_run_live_rxq(prog, frame, sizeof(frame), LIVE, ifindex_of("xt1"),
					   0, NULL), "live test run failed");
	TEST_ASSERT(skel->bss->seen[0] == LIVE, "the program saw %llu of %d live frames",
		    (unsigned long long)skel->bss->seen[0], LIVE);
	xsk_rx_close(x);

	/* the queue is free once the closed socket's pool is released, later */
	x = bind_queue(skel, "xt1", 0, &err);
	TEST_ASSERT(x, "an AF_XDP socket on xt1 queue 0: %s", strerror(-err));
	TEST_ASSERT(!xdp_test_run_live_rxq(prog, frame, sizeof(frame), LIVE, ifindex_of("xt1"),
					   0, NULL), "live test run failed");
	got = xsk_rx_wait(x, TAG, LIVE, 5000, &wrong);
	TEST_ASSERT(got == LIVE && !wrong, "the Rx socket took %ld of %d live frames", got, LIVE);
	diag("%d live frames refused %s, the kernel alive; %d taken by an Rx one", LIVE,
	     refused_by_map ? "(the map refused the Tx-only socket)" : "by a Tx-only socket",
	     LIVE);
	xsk_rx_close(x);
	xsk_redirect__destroy(skel);
	return KSFT_PASS;
}

/* @dev's receive queues, from sysfs (the initial netns's devices only). */
static int rx_queues(const char *dev)
{
	char path[128];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", dev);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, "rx-", 3);
	closedir(d);
	return n;
}

#define IGB_QUEUES	2	/* the guest's vCPUs: igb's queue pairs */

/*
 * @frames test frames out of @tx, WINDOW at a time, each window taken
 * before the next goes: @x[q], zero-copy on queue q of the receiving NIC,
 * takes exactly the frames @skel's program saw on queue q, and all of
 * them come. Says how many queue 0 took.
 */
static int zc_delivered(struct xsk_redirect *skel, struct xsk_rx **x, int queues,
			const char *tx, const char *rx, long frames, long *queue0)
{
	long got[IGB_QUEUES] = {}, wrong = 0, total = 0, sent, n = 0, t;
	__u64 before[IGB_QUEUES], seen = 0;
	uint64_t deadline;
	int q;

	for (q = 0; q < queues; q++)
		before[q] = skel->bss->seen[q];
	for (sent = 0; sent < frames && total == sent; sent += n) {
		n = frames - sent < WINDOW ? frames - sent : WINDOW;
		TEST_ASSERT(send_frames(tx, n, TAG, NULL, 0) == n, "sending out of %s failed", tx);
		deadline = now_ns() + 5000000000ull;
		do {
			for (q = 0; q < queues; q++) {
				t = xsk_rx_take(x[q], TAG, &wrong);
				TEST_ASSERT(t >= 0, "refilling queue %d's fill ring failed", q);
				got[q] += t;
				total += t;
			}
		} while (total < sent + n && now_ns() < deadline && !usleep(1000));
	}
	usleep(200000);
	for (q = 0; q < queues; q++) {
		t = xsk_rx_take(x[q], TAG, &wrong);
		got[q] += t;
		total += t;
		seen += skel->bss->seen[q] - before[q];
	}
	if (total != sent) {
		/* where they went: the links, the NICs' own counters, igb's words */
		diag("the window of frames %ld to %ld came short: %ld taken, the program saw %llu",
		     sent - n, sent - 1, total, (unsigned long long)seen);
		run_cmd("ip -br link show dev %s; ip -br link show dev %s", tx, rx);
		run_cmd("ethtool -S %s | grep -E ' (tx_packets|tx_dropped|tx_restart_queue):'", tx);
		run_cmd("ethtool -S %s | grep -E ' (rx_packets|rx_no_buffer_count|rx_missed_errors|"
			"rx_queue_._(drops|alloc_failed)|rx_fifo_errors):'", rx);
		run_cmd("dmesg | grep -E 'igb|%s|%s' | tail -n 8", tx, rx);
	}
	for (q = 0; q < queues; q++)
		TEST_ASSERT(got[q] == (long)(skel->bss->seen[q] - before[q]),
			    "queue %d's socket took %ld frames, the program saw %llu there", q,
			    got[q], (unsigned long long)(skel->bss->seen[q] - before[q]));
	TEST_ASSERT(total == frames && !wrong,
		    "the zero-copy sockets took %ld of %ld frames (%ld not the test's)", total,
		    frames, wrong);
	*queue0 = got[0];
	return KSFT_PASS;
}

/*
 * Zero-copy AF_XDP on a real Ethernet driver: igb, whose receive path
 * fills its ring from the socket's UMEM. A socket on each queue of the
 * second igb NIC, bound zero-copy, takes every test frame the first one
 * sends, with its content, on the queue the program saw it on (the test
 * frames are not IP: RSS puts them all on queue 0, and queue 1's socket
 * must take none). A program
 * on a veth sending every frame to one of these sockets has them all
 * dropped and counted (the socket is bound to another device), and the
 * socket then still takes its own.
 */
TEST_CASE(xsk_redirect_zero_copy_igb, 120)
{
	struct xsk_rx *x[IGB_QUEUES] = {};
	struct xsk_redirect *skel, *other;
	int err, link, other_link, queues, q, home, ns;
	char nics[2][16], owner[48];
	long queue0;

	err = igb_pair(nics);
	if (err)
		return err > 0 ? KSFT_SKIP : KSFT_FAIL;
	queues = rx_queues(nics[1]);
	TEST_ASSERT(queues >= 1 && queues <= IGB_QUEUES, "%s has %d receive queues, want 1 to %d",
		    nics[1], queues, IGB_QUEUES);
	skel = xsk_redirect__open_and_load();
	TEST_ASSERT(skel, "loading xsk_redirect failed");
	link = xdp_link(bpf_program__fd(skel->progs.xsk_redirect), ifindex_of(nics[1]),
			XDP_FLAGS_DRV_MODE);
	TEST_ASSERT(link >= 0, "attaching xsk_redirect to %s natively failed", nics[1]);
	for (q = 0; q < queues; q++) {
		x[q] = bind_socket(skel, nics[1], q, q, true, &err);
		TEST_ASSERT(x[q], "a zero-copy AF_XDP socket on %s queue %d: %s", nics[1], q,
			    strerror(-err));
	}
	if (wait_running(nics[0], 10000) || wait_running(nics[1], 10000))
		return KSFT_FAIL;
	if (zc_delivered(skel, x, queues, nics[0], nics[1], FRAMES, &queue0))
		return KSFT_FAIL;
	diag("%s -> %s: %d of %d frames to the zero-copy socket of their queue (%d queues, "
	     "%ld on queue 0)", nics[0], nics[1], FRAMES, FRAMES, queues, queue0);

	/* a veth's program, in a netns of its own, sends all to queue 0's socket */
	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	TEST_ASSERT(home >= 0, "/proc/self/ns/net: %s", strerror(errno));
	ns = netns_new();
	TEST_ASSERT(ns >= 0 && !veth_pair("xz0", "xz1"), "no veth pair in a netns");
	other = xsk_redirect__open_and_load();
	TEST_ASSERT(other, "loading xsk_redirect failed");
	other_link = xdp_link(bpf_program__fd(other->progs.xsk_redirect), ifindex_of("xz1"),
			      XDP_FLAGS_DRV_MODE);
	TEST_ASSERT(other_link >= 0, "attaching xsk_redirect to xz1 failed");
	snprintf(owner, sizeof(owner), "%s's zero-copy", nics[1]);
	if (foreign_dropped(other, x[0], "xz0", "xz1", owner))
		return KSFT_FAIL;
	close(other_link);
	xsk_redirect__destroy(other);
	close(ns);

	TEST_ASSERT(!netns_enter(home), "back to the first netns failed");
	close(home);
	if (zc_delivered(skel, x, queues, nics[0], nics[1], FRAMES / 5, &queue0))
		return KSFT_FAIL;
	for (q = 0; q < queues; q++)
		xsk_rx_close(x[q]);
	close(link);
	xsk_redirect__destroy(skel);
	return KSFT_PASS;
}
