// SPDX-License-Identifier: GPL-2.0
/*
 * Nothing where images do not pay (and dispatcher_steady_state.c: no text
 * patched in steady state where they do).
 *
 * dispatcher_calls_in_place: where a dispatcher has no image its hooks
 * make the indirect call in place, as a kernel without the series does,
 * and nothing reaches the dispatcher's functions. Kprobes count the calls
 * that would: the static call's default target (every copy of
 * bpf_dispatcher_nop_func) and each dispatcher's miss function. With
 * images off, XDP and tcx frames, and XDP, tc, sk_lookup and flow
 * dissector test runs reach none of them while every program counts its
 * calls. With images on, every attached program has its direct jump
 * (none of the probes either), and ten test runs of an XDP program
 * outside the set reach the XDP dispatcher's own miss function ten times
 * and no other probe: the probes count what they should. The test does
 * both, as booted (images off with bpf_dispatcher=off, or where auto
 * comes to off) and with kernel.bpf_dispatcher flipped, then puts the
 * mode back.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tests.h"
#include "dispatcher.h"
#include "kprobe.h"
#include "marked.h"
#include "flow_dissector_count.skel.h"
#include "sk_lookup_steer.skel.h"
#include "tc_mark.skel.h"
#include "xdp_count.skel.h"
#include "xdp_pass.skel.h"

#define FRAMES 200
#define REPEAT 100
#define STRANGER_RUNS 10
#define MAX_NOPS 8

static const char *const hooks[] = { "xdp", "tc", "sk_lookup", "flow_dissector" };
#define NHOOKS (sizeof(hooks) / sizeof(hooks[0]))

struct probes {
	int nops;		/* copies of bpf_dispatcher_nop_func probed */
	int misses;		/* miss functions probed */
};

static struct probes probes;

static void probe_name(char *buf, size_t len, int i)
{
	if (i < probes.nops)
		snprintf(buf, len, "disp_nop%d", i);
	else
		snprintf(buf, len, "disp_miss_%s", hooks[i - probes.nops]);
}

static void probes_remove(void)
{
	char name[64];
	int i;

	for (i = 0; i < probes.nops + probes.misses; i++) {
		probe_name(name, sizeof(name), i);
		kprobe_remove(name);
	}
}

static int probes_add(void)
{
	unsigned long addrs[MAX_NOPS];
	char name[64], target[80];
	int n, i;

	n = kallsyms_addrs("bpf_dispatcher_nop_func", addrs, MAX_NOPS);
	if (n <= 0) {
		diag("no bpf_dispatcher_nop_func in /proc/kallsyms");
		return -1;
	}
	for (i = 0; i < n; i++) {
		probes.nops = i;
		snprintf(name, sizeof(name), "disp_nop%d", i);
		snprintf(target, sizeof(target), "0x%lx", addrs[i]);
		if (kprobe_add(name, target))
			return -1;
	}
	probes.nops = n;
	for (i = 0; i < (int)NHOOKS; i++) {
		probe_name(name, sizeof(name), n + i);
		snprintf(target, sizeof(target), "bpf_dispatcher_%s_miss", hooks[i]);
		if (kprobe_add(name, target))
			return -1;
		probes.misses = i + 1;
	}
	return 0;
}

static void probes_read(long *hits)
{
	char name[64];
	int i;

	for (i = 0; i < probes.nops + probes.misses; i++) {
		probe_name(name, sizeof(name), i);
		hits[i] = kprobe_hits(name);
	}
}

struct hooked {
	struct xdp_count *xdp;
	struct xdp_pass *stranger;	/* never attached */
	struct tc_mark *tc;
	struct sk_lookup_steer *skl;
	struct flow_dissector_count *fd;
	int netns, links[4];
};

static void detach_all(struct hooked *h)
{
	int i;

	for (i = 0; i < 4; i++) {
		if (h->links[i] >= 0)
			close(h->links[i]);
		h->links[i] = -1;
	}
}

static int attach_all(struct hooked *h)
{
	h->links[0] = xdp_link(bpf_program__fd(h->xdp->progs.xdp_count), ifindex_of("rx0"),
			       XDP_FLAGS_DRV_MODE);
	h->links[1] = tcx_link(bpf_program__fd(h->tc->progs.tc_mark), ifindex_of("rx0"), true);
	h->links[2] = bpf_link_create(bpf_program__fd(h->skl->progs.sk_steer), h->netns,
				      BPF_SK_LOOKUP, NULL);
	h->links[3] = bpf_link_create(bpf_program__fd(h->fd->progs.fd_count), h->netns,
				      BPF_FLOW_DISSECTOR, NULL);
	if (h->links[0] < 0 || h->links[1] < 0 || h->links[2] < 0 || h->links[3] < 0) {
		diag("attaching the four hooks' programs failed: %d %d %d %d", h->links[0],
		     h->links[1], h->links[2], h->links[3]);
		return -1;
	}
	return 0;
}

static int prog_id_of(const struct bpf_program *p)
{
	return prog_id(bpf_program__fd(p));
}

/* A test run with @repeat of @prog_fd on a test frame, or of @ctx. */
static int run(int prog_fd, uint32_t repeat, void *ctx, uint32_t ctx_size)
{
	unsigned char frame[TEST_FRAME_LEN];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .repeat = repeat);

	test_frame(frame, 0x7e57, 0);
	if (ctx) {
		opts.ctx_in = ctx;
		opts.ctx_size_in = ctx_size;
	} else {
		opts.data_in = frame;
		opts.data_size_in = sizeof(frame);
	}
	if (bpf_prog_test_run_opts(prog_fd, &opts)) {
		diag("test run (repeat %u): %m", repeat);
		return -1;
	}
	return 0;
}

/*
 * Attach the four programs, drive each hook, and check the probes: none
 * reached, but with @images the XDP miss by each run of the stranger.
 */
static int drive(struct hooked *h, bool images)
{
	struct bpf_sk_lookup skl = {
		.family = AF_INET, .protocol = IPPROTO_UDP,
		.remote_ip4 = htonl(INADDR_LOOPBACK), .remote_port = htons(40000),
		.local_ip4 = htonl(INADDR_LOOPBACK), .local_port = 9,
	};
	long before[MAX_NOPS + 4], after[MAX_NOPS + 4];
	uint64_t xdp0 = h->xdp->bss->frames, tc0 = h->tc->bss->runs;
	uint64_t skl0 = h->skl->bss->lookups, fd0 = h->fd->bss->frames;
	uint32_t ids[4];
	char name[64];
	int i, bad = 0;

	if (attach_all(h))
		return -1;
	ids[0] = prog_id_of(h->xdp->progs.xdp_count);
	ids[1] = prog_id_of(h->tc->progs.tc_mark);
	ids[2] = prog_id_of(h->skl->progs.sk_steer);
	ids[3] = prog_id_of(h->fd->progs.fd_count);
	/* Images on: each program has its direct jump first (2 s: the update rate). */
	for (i = 0; i < (int)NHOOKS; i++)
		if (dispatcher_expect(hooks[i], &ids[i], 1, true, 2000))
			return -1;

	probes_read(before);
	send_frames("tx0", FRAMES, 0x7e57, &h->xdp->bss->frames, 32);
	wait_counter(&h->tc->bss->runs, tc0 + FRAMES, 5000);
	if (run(bpf_program__fd(h->xdp->progs.xdp_count), REPEAT, NULL, 0) ||
	    run(bpf_program__fd(h->tc->progs.tc_mark), REPEAT, NULL, 0) ||
	    run(bpf_program__fd(h->skl->progs.sk_steer), REPEAT, &skl, sizeof(skl)) ||
	    run(bpf_program__fd(h->fd->progs.fd_count), REPEAT, NULL, 0))
		return -1;
	for (i = 0; i < STRANGER_RUNS; i++)
		if (run(bpf_program__fd(h->stranger->progs.xdp_pass), 1, NULL, 0))
			return -1;
	probes_read(after);

	diag("images %s: XDP counted %llu, tc %llu of %d frames (+%d test runs each); sk_lookup %llu of %d test runs, flow dissector %llu (test runs and frames)",
	     images ? "on" : "off", (unsigned long long)(h->xdp->bss->frames - xdp0),
	     (unsigned long long)(h->tc->bss->runs - tc0), FRAMES, REPEAT,
	     (unsigned long long)(h->skl->bss->lookups - skl0), REPEAT,
	     (unsigned long long)(h->fd->bss->frames - fd0));
	if (h->xdp->bss->frames - xdp0 != FRAMES + REPEAT ||
	    h->tc->bss->runs - tc0 != FRAMES + REPEAT ||
	    h->skl->bss->lookups - skl0 != REPEAT ||
	    /* the frames may be dissected on receive too */
	    h->fd->bss->frames - fd0 < REPEAT)
		bad++;
	for (i = 0; i < probes.nops + probes.misses; i++) {
		bool xdp_miss = i == probes.nops;
		long want = images && xdp_miss ? STRANGER_RUNS : 0;

		probe_name(name, sizeof(name), i);
		if (before[i] < 0 || after[i] - before[i] != want) {
			diag("%s: %ld calls, want %ld", name, after[i] - before[i], want);
			bad++;
		}
	}
	detach_all(h);
	return bad ? -1 : 0;
}

static int set_images(bool on)
{
	int i;

	/* "on", not "auto": auto may come to off (no thunked calls here). */
	if (dispatcher_set_mode(on ? "on" : "off"))
		return -1;
	/* Off: every set emptied, no image. */
	for (i = 0; i < (int)NHOOKS && !on; i++)
		if (dispatcher_expect(hooks[i], NULL, 0, true, 2000))
			return -1;
	return 0;
}

TEST_CASE(dispatcher_calls_in_place, 120)
{
	struct hooked h = { .links = { -1, -1, -1, -1 }, .netns = -1 };
	bool booted_off = dispatcher_images_off();
	int ret = KSFT_FAIL;
	char mode[16];

	if (!dispatcher_present() || dispatcher_mode_get(mode, sizeof(mode))) {
		diag("no %s or kernel.bpf_dispatcher: a kernel without this series' dispatcher",
		     DISPATCHER_DEBUGFS);
		return KSFT_SKIP;
	}
	diag("as booted: kernel.bpf_dispatcher=%s, images %s", mode, booted_off ? "off" : "on");
	if (enter_netns() || veth_pair("tx0", "rx0"))
		return KSFT_FAIL;
	h.netns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	h.xdp = xdp_count__open();
	h.stranger = xdp_pass__open_and_load();
	h.tc = tc_mark__open_and_load();
	h.skl = sk_lookup_steer__open();
	h.fd = flow_dissector_count__open_and_load();
	if (h.netns < 0 || !h.xdp || !h.stranger || !h.tc || !h.skl || !h.fd)
		goto out;
	h.xdp->rodata->pass = 1;	/* on to tcx ingress */
	h.skl->rodata->port_lo = 1;	/* an empty range: it only counts */
	if (xdp_count__load(h.xdp) || sk_lookup_steer__load(h.skl))
		goto out;
	if (probes_add())
		goto out;

	if (drive(&h, !booted_off) || set_images(booted_off) || drive(&h, booted_off))
		goto restore;
	ret = KSFT_PASS;
restore:
	if (dispatcher_set_mode(mode))
		ret = KSFT_FAIL;
out:
	probes_remove();
	detach_all(&h);
	if (h.netns >= 0)
		close(h.netns);
	xdp_count__destroy(h.xdp);
	xdp_pass__destroy(h.stranger);
	tc_mark__destroy(h.tc);
	sk_lookup_steer__destroy(h.skl);
	flow_dissector_count__destroy(h.fd);
	return ret;
}
