// SPDX-License-Identifier: GPL-2.0
/*
 * XDP_REDIRECT through array and hash devmaps: real traffic on veth pairs
 * and BPF_PROG_TEST_RUN live frames reach the target devices, one or all
 * (broadcast), every frame counted; and the redirect path follows the
 * target's state the moment it changes (XDP features, MTU, up/down),
 * dropping with the errors it always had, also while traffic flows.
 *
 * The topology: frames sent out of in1 arrive at in0, whose native XDP
 * program redirects them to out0 (and out1), whose veth peers peer0 and
 * peer1 count them with XDP. A veth takes redirected frames only while its
 * peer has an XDP program: detaching peer0's clears out0's NDO_XMIT.
 */
#include <errno.h>
#include <linux/if_link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tests.h"
#include "xdp_count.skel.h"
#include "xdp_redirect.skel.h"

#define NFRAMES 1000
#define PHASE_FRAMES 200
#define WINDOW 32	/* frames in flight: below the veth ring (256) */
#define MAX_ERRNO 128	/* as in xdp_redirect.bpf.c */

struct topo {
	struct xdp_redirect *rd;
	struct xdp_count *rx[2];
	struct bpf_link *tp[2];
	int rd_link, rx_link[2];
	bool hash, broadcast;
	bool frags;	/* the xdp.frags programs: multi-buffer frames */
};

static int make_devices(void)
{
	if (enter_netns())
		return -1;
	return veth_pair("in0", "in1") || veth_pair("out0", "peer0") ||
	       veth_pair("out1", "peer1") ? -1 : 0;
}

static const char *const outs[2] = { "out0", "out1" };
static const char *const peers[2] = { "peer0", "peer1" };

static int attach_counter(struct topo *t, int i)
{
	struct bpf_program *p = t->frags ? t->rx[i]->progs.xdp_count_frags :
					   t->rx[i]->progs.xdp_count;

	t->rx_link[i] = xdp_link(bpf_program__fd(p), ifindex_of(peers[i]), XDP_FLAGS_DRV_MODE);
	return t->rx_link[i] < 0 ? -1 : 0;
}

static void detach_counter(struct topo *t, int i)
{
	close(t->rx_link[i]);
	t->rx_link[i] = -1;
}

static void topo_free(struct topo *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (t->rx_link[i] >= 0)
			close(t->rx_link[i]);
		xdp_count__destroy(t->rx[i]);
		bpf_link__destroy(t->tp[i]);
	}
	if (t->rd_link >= 0)
		close(t->rd_link);
	xdp_redirect__destroy(t->rd);
}

/* Load and attach everything; out0 (and out1) are the map's entries. */
static int topo_init_frags(struct topo *t, bool hash, bool broadcast, bool frags)
{
	struct bpf_program *rd_prog;
	int map_fd, i;

	memset(t, 0, sizeof(*t));
	t->rd_link = t->rx_link[0] = t->rx_link[1] = -1;
	t->hash = hash;
	t->broadcast = broadcast;
	t->frags = frags;

	t->rd = xdp_redirect__open();
	if (!t->rd)
		return -1;
	rd_prog = frags ? t->rd->progs.xdp_redirect_frags : t->rd->progs.xdp_redirect;
	/* One or the other: a devmap takes programs of one frags kind. */
	bpf_program__set_autoload(t->rd->progs.xdp_redirect, !frags);
	bpf_program__set_autoload(t->rd->progs.xdp_redirect_frags, frags);
	t->rd->rodata->use_hash = hash;
	t->rd->rodata->redirect_flags = broadcast ? BPF_F_BROADCAST : 0;
	if (xdp_redirect__load(t->rd))
		return -1;
	map_fd = bpf_map__fd(hash ? t->rd->maps.tx_hash : t->rd->maps.tx_array);
	for (i = 0; i < 2; i++) {
		__u32 ifindex = ifindex_of(outs[i]);
		__u32 key = hash ? ifindex : (__u32)i;

		if (bpf_map_update_elem(map_fd, &key, &ifindex, BPF_ANY)) {
			diag("devmap update %s: %m", outs[i]);
			return -1;
		}
		if (i == 0)
			t->rd->bss->key = key;
		t->rx[i] = xdp_count__open();
		if (!t->rx[i])
			return -1;
		bpf_program__set_autoload(t->rx[i]->progs.xdp_count_frags, frags);
		if (xdp_count__load(t->rx[i]) || attach_counter(t, i))
			return -1;
	}
	t->tp[0] = bpf_program__attach(t->rd->progs.count_redirect_err);
	t->tp[1] = bpf_program__attach(t->rd->progs.count_devmap_xmit);
	if (!t->tp[0] || !t->tp[1]) {
		diag("attaching the xdp tracepoint counters failed");
		return -1;
	}
	t->rd_link = xdp_link(bpf_program__fd(rd_prog), ifindex_of("in0"), XDP_FLAGS_DRV_MODE);
	return t->rd_link < 0 ? -1 : 0;
}

static int topo_init(struct topo *t, bool hash, bool broadcast)
{
	return topo_init_frags(t, hash, broadcast, false);
}

static const char *topo_name(const struct topo *t)
{
	if (t->frags)
		return t->hash ? "hash, xdp.frags" : "array, xdp.frags";
	return t->hash ? (t->broadcast ? "hash broadcast" : "hash") :
			 (t->broadcast ? "array broadcast" : "array");
}

/* Every target counted @want more frames than @base (the last one has
 * time to arrive late), and out1 only on broadcast.
 */
static int check_delivery(const struct topo *t, const __u64 *base, __u64 want,
			  const char *how)
{
	__u64 got[2];
	int i;

	wait_counter(&t->rx[0]->bss->frames, base[0] + want, 5000);
	if (t->broadcast)
		wait_counter(&t->rx[1]->bss->frames, base[1] + want, 5000);
	usleep(200000);
	for (i = 0; i < 2; i++)
		got[i] = t->rx[i]->bss->frames - base[i];
	diag("%s, %s: %llu frames redirected, peer0 counted %llu, peer1 %llu",
	     topo_name(t), how, (unsigned long long)want,
	     (unsigned long long)got[0], (unsigned long long)got[1]);
	TEST_ASSERT(got[0] == want && got[1] == (t->broadcast ? want : 0),
	            "want %llu and %llu", (unsigned long long)want,
	            (unsigned long long)(t->broadcast ? want : 0));
	return KSFT_PASS;
}

static int traffic_case(bool hash, bool broadcast)
{
	struct topo t;
	__u64 base[2] = {};
	int ret = KSFT_FAIL;
	long sent;

	if (topo_init(&t, hash, broadcast))
		goto out;
	sent = send_frames("in1", NFRAMES, 0x7e57, &t.rd->bss->seen, WINDOW);
	if (sent != NFRAMES || wait_counter(&t.rd->bss->seen, NFRAMES, 5000) != NFRAMES) {
		diag("sent %ld frames, in0 redirected %llu", sent,
		     (unsigned long long)t.rd->bss->seen);
		goto out;
	}
	ret = check_delivery(&t, base, NFRAMES, "veth traffic");
out:
	topo_free(&t);
	return ret;
}

static int live_frames_case(bool hash, bool broadcast)
{
	unsigned char frame[TEST_FRAME_LEN];
	struct topo t;
	__u64 base[2] = {};
	int ret = KSFT_FAIL, err;

	if (topo_init(&t, hash, broadcast))
		goto out;
	test_frame(frame, 0x7e57, 0);
	err = xdp_test_run_live(bpf_program__fd(t.rd->progs.xdp_redirect), frame,
				sizeof(frame), NFRAMES, NULL);
	if (err) {
		diag("live-frames test run: %s", strerror(-err));
		goto out;
	}
	ret = check_delivery(&t, base, NFRAMES, "live frames");
out:
	topo_free(&t);
	return ret;
}

#define FOR_EACH_MAP(ret, fn)						\
	do {								\
		int h, b;						\
		for (h = 0; h < 2; h++)					\
			for (b = 0; b < 2; b++)				\
				if (fn(h, b) != KSFT_PASS)		\
					ret = KSFT_FAIL;		\
	} while (0)

TEST_CASE(devmap_redirect_traffic, 0)
{
	int ret = KSFT_PASS;

	if (make_devices())
		return KSFT_FAIL;
	FOR_EACH_MAP(ret, traffic_case);
	return ret;
}

TEST_CASE(devmap_redirect_live_frames, 0)
{
	int ret = KSFT_PASS;

	if (make_devices())
		return KSFT_FAIL;
	FOR_EACH_MAP(ret, live_frames_case);
	return ret;
}

/* What the redirect side has seen so far. */
struct tally {
	__u64 delivered, errors, by_errno, handed;
};

static void tally(const struct topo *t, int err, struct tally *c)
{
	int i;

	c->delivered = t->rx[0]->bss->frames;
	c->errors = 0;
	for (i = 0; i < MAX_ERRNO; i++)
		c->errors += t->rd->bss->errors[i];
	c->by_errno = err ? t->rd->bss->errors[err] : 0;
	c->handed = t->rd->bss->xmit_sent + t->rd->bss->xmit_drops;
}

/*
 * Send PHASE_FRAMES @len-byte frames: with @err 0 they all reach peer0
 * through out0's ndo_xdp_xmit; else each is dropped at the redirect with
 * -@err and none reaches out0's driver.
 */
static int phase(const struct topo *t, const char *what, size_t len, int err)
{
	struct tally a, b;
	long sent;

	tally(t, err, &a);
	sent = send_frames_len("in1", PHASE_FRAMES, 0x7e57, len, &t->rd->bss->seen,
			       WINDOW);
	if (err)
		wait_counter(&t->rd->bss->errors[err], a.by_errno + PHASE_FRAMES, 5000);
	else
		wait_counter(&t->rx[0]->bss->frames, a.delivered + PHASE_FRAMES, 5000);
	usleep(200000);
	tally(t, err, &b);
	diag("%s, %s (%zu-byte frames): sent %ld, peer0 counted %llu, redirect errors %llu (%s %llu), out0's driver handed %llu",
	     topo_name(t), what, len, sent,
	     (unsigned long long)(b.delivered - a.delivered),
	     (unsigned long long)(b.errors - a.errors), err ? strerror(err) : "-",
	     (unsigned long long)(b.by_errno - a.by_errno),
	     (unsigned long long)(b.handed - a.handed));
	TEST_ASSERT(sent == PHASE_FRAMES, "could not send");
	if (err)
		TEST_ASSERT(b.by_errno - a.by_errno == PHASE_FRAMES &&
		            b.errors - a.errors == PHASE_FRAMES &&
		            b.delivered == a.delivered && b.handed == a.handed,
		            "want every frame dropped with %s, none handed to out0", strerror(err));
	else
		TEST_ASSERT(b.delivered - a.delivered == PHASE_FRAMES &&
		            b.handed - a.handed == PHASE_FRAMES && b.errors == a.errors,
		            "want every frame delivered, no error");
	return KSFT_PASS;
}

static int follow_steps(struct topo *t)
{
	if (phase(t, "peer0 has XDP", TEST_FRAME_LEN, 0))
		return KSFT_FAIL;
	detach_counter(t, 0);
	if (phase(t, "peer0's XDP detached, out0 without NDO_XMIT", TEST_FRAME_LEN, EOPNOTSUPP))
		return KSFT_FAIL;
	if (attach_counter(t, 0) ||
	    phase(t, "peer0's XDP back", TEST_FRAME_LEN, 0))
		return KSFT_FAIL;
	if (run_cmd("ip link set dev out0 mtu 100") ||
	    phase(t, "out0 MTU 100", 200, EMSGSIZE) ||
	    phase(t, "out0 MTU 100", TEST_FRAME_LEN, 0))
		return KSFT_FAIL;
	if (run_cmd("ip link set dev out0 mtu 1500") ||
	    phase(t, "out0 MTU 1500", 200, 0))
		return KSFT_FAIL;
	if (run_cmd("ip link set dev out0 down") ||
	    phase(t, "out0 down", TEST_FRAME_LEN, ENETDOWN))
		return KSFT_FAIL;
	if (run_cmd("ip link set dev out0 up") ||
	    phase(t, "out0 up", TEST_FRAME_LEN, 0))
		return KSFT_FAIL;
	return KSFT_PASS;
}

struct flow {
	const struct topo *t;
	atomic_bool stop;
	atomic_long sent;
};

static void *sender(void *arg)
{
	struct flow *f = arg;

	while (!atomic_load(&f->stop)) {
		long n = send_frames("in1", 64, 0x7e57, &f->t->rd->bss->seen, WINDOW);

		if (n <= 0)
			break;
		atomic_fetch_add(&f->sent, n);
	}
	return NULL;
}

/* Over @ms after a change has settled: did deliveries and errors move? */
static void window_of(const struct topo *t, int ms, struct tally *d)
{
	struct tally a, b;

	tally(t, 0, &a);
	usleep(ms * 1000);
	tally(t, 0, &b);
	d->delivered = b.delivered - a.delivered;
	d->errors = b.errors - a.errors;
	d->handed = b.handed - a.handed;
}

/* Traffic flows while peer0's XDP program comes and goes: each time, the
 * redirect path switches between delivering and refusing at once.
 */
static int follow_under_traffic(struct topo *t)
{
	struct flow f = { .t = t };
	struct tally on, off;
	int ret = KSFT_PASS, round;
	pthread_t th;

	pthread_create(&th, NULL, sender, &f);
	for (round = 0; round < 4 && ret == KSFT_PASS; round++) {
		detach_counter(t, 0);
		usleep(50000);
		window_of(t, 200, &off);
		if (attach_counter(t, 0)) {
			ret = KSFT_FAIL;
			break;
		}
		usleep(50000);
		window_of(t, 200, &on);
		diag("%s, round %d under traffic: detached: %llu errors, %llu handed to out0; attached: %llu delivered, %llu errors",
		     topo_name(t), round, (unsigned long long)off.errors,
		     (unsigned long long)off.handed, (unsigned long long)on.delivered,
		     (unsigned long long)on.errors);
		if (!off.errors || off.handed || !on.delivered || on.errors) {
			diag("want errors and nothing handed while detached, deliveries and no errors while attached");
			ret = KSFT_FAIL;
		}
	}
	atomic_store(&f.stop, true);
	pthread_join(th, NULL);
	diag("%s: %ld frames sent under traffic", topo_name(t), atomic_load(&f.sent));
	return ret;
}

static int follow_case(bool hash)
{
	struct topo t;
	int ret = KSFT_FAIL;

	if (!topo_init(&t, hash, false) && follow_steps(&t) == KSFT_PASS)
		ret = follow_under_traffic(&t);
	topo_free(&t);
	return ret;
}

/*
 * Multi-buffer frames (5,000 bytes at MTU 9,000, so veth builds them with
 * frags) take the frags limit: delivered while out0 takes them, dropped
 * with -EMSGSIZE when out0's MTU falls under their length.
 */
static int frags_case(bool hash)
{
	struct topo t;
	int ret = KSFT_FAIL;
	__u64 mb;

	if (topo_init_frags(&t, hash, false, true))
		goto out;
	if (phase(&t, "MTU 9000", 5000, 0) || phase(&t, "MTU 9000", TEST_FRAME_LEN, 0))
		goto out;
	mb = t.rd->bss->multi_buffer;
	diag("%s: %llu frames redirected with frags", topo_name(&t), (unsigned long long)mb);
	if (mb < PHASE_FRAMES) {
		diag("only %llu of the 5000-byte frames had frags", (unsigned long long)mb);
		goto out;
	}
	if (run_cmd("ip link set dev out0 mtu 4000") || phase(&t, "out0 MTU 4000", 5000, EMSGSIZE) ||
	    run_cmd("ip link set dev out0 mtu 9000") || phase(&t, "out0 MTU 9000 again", 5000, 0))
		goto out;
	ret = KSFT_PASS;
out:
	topo_free(&t);
	return ret;
}

TEST_CASE(devmap_redirect_frags, 300)
{
	const char *devs[] = { "in0", "in1", "out0", "peer0", "out1", "peer1" };
	int i, ret = KSFT_PASS;

	if (make_devices())
		return KSFT_FAIL;
	for (i = 0; i < 6; i++)
		if (run_cmd("ip link set dev %s mtu 9000", devs[i]))
			return KSFT_FAIL;
	if (frags_case(false) != KSFT_PASS)
		ret = KSFT_FAIL;
	if (frags_case(true) != KSFT_PASS)
		ret = KSFT_FAIL;
	return ret;
}

TEST_CASE(devmap_redirect_follows_device, 300)
{
	int ret = KSFT_PASS;

	if (make_devices())
		return KSFT_FAIL;
	if (follow_case(false) != KSFT_PASS)
		ret = KSFT_FAIL;
	if (follow_case(true) != KSFT_PASS)
		ret = KSFT_FAIL;
	return ret;
}
