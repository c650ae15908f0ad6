// SPDX-License-Identifier: GPL-2.0
/*
 * The tc dispatcher (bpf_dispatcher_tc): programs at tcx, cls_bpf and
 * act_bpf hooks, ingress and egress, on veth and dummy devices, are in its
 * set exactly while attached; real traffic and test runs reach the right
 * program (it marks the frame) at 1, 48, 49 and 1024 programs; an XDP and
 * a tc program on one device each count every frame, each in its own
 * dispatcher; and the set stays right under churn and concurrency.
 */
#include <linux/if_link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tests.h"
#include "dispatcher.h"
#include "tc_mark.skel.h"
#include "xdp_count.skel.h"

#define FRAMES 200
#define WINDOW 64
#define RUNS 100

static struct tc_mark *tc_mark_load(uint32_t mark, bool with_action)
{
	struct tc_mark *skel = tc_mark__open();

	if (!skel)
		return NULL;
	skel->rodata->mark = mark;
	bpf_program__set_autoload(skel->progs.act_mark, with_action);
	bpf_program__set_autoload(skel->progs.cls_match, with_action);
	if (tc_mark__load(skel)) {
		tc_mark__destroy(skel);
		return NULL;
	}
	return skel;
}

/* A test run with repeat @repeat marks the frame with @mark. */
static int mark_run(int prog_fd, uint32_t mark, uint32_t repeat)
{
	unsigned char in[TEST_FRAME_LEN], out[TEST_FRAME_LEN];
	uint32_t retval = ~0u;
	int err;

	test_frame(in, 0x7e57, 0);
	err = xdp_test_run(prog_fd, in, sizeof(in), out, repeat, &retval, NULL);
	if (err || retval != 0 || test_frame_mark(out) != mark) {
		diag("test run (repeat %u): error %d, retval %u, mark %#x, want %#x", repeat,
		     err, retval, err ? 0 : test_frame_mark(out), mark);
		return -1;
	}
	return 0;
}

/* The tc dispatcher lists exactly @n programs, those of @ids; none with images off. */
static int lists_exactly(const uint32_t *ids, int n)
{
	struct dispatcher_state st;
	int i, missing = 0;
	bool same;

	if (dispatcher_images_off())
		n = 0;
	if (dispatcher_read("tc", &st))
		return -1;
	for (i = 0; i < n; i++)
		if (!dispatcher_lists(&st, ids[i], NULL))
			missing++;
	same = !missing && st.nr == (unsigned long)n;
	if (!same) {
		diag("bpf_dispatcher_tc lists %lu programs; want %d, %d of them missing",
		     st.nr, n, missing);
		run_cmd("sed 's/^/# /' " DISPATCHER_DEBUGFS "/tc");
	}
	dispatcher_state_free(&st);
	return same ? 0 : -1;
}

/* Waits out a detach in flight (a link's release may be deferred). */
static int lists_exactly_soon(const uint32_t *ids, int n)
{
	int tries;

	if (dispatcher_images_off())
		n = 0;
	for (tries = 0; tries < 50; tries++) {
		struct dispatcher_state st;
		bool same;

		if (dispatcher_read("tc", &st))
			return -1;
		same = st.nr == (unsigned long)n;
		dispatcher_state_free(&st);
		if (same)
			break;
		usleep(20000);
	}
	return lists_exactly(ids, n);
}

/* A direct jump to @id from an image perf can name (bpf_dispatcher_tc in
 * /proc/kallsyms), within 2 s (images are at least 50 ms apart: a program
 * attached soon after another gets its jump at the update rate's next
 * slot), or with images off no image, and @id not listed.
 */
static int jumps_as_booted(uint32_t id)
{
	bool off = dispatcher_images_off(), direct = false, listed;
	uint64_t deadline = now_ns() + 2000000000ull;
	struct dispatcher_state st = {};
	int ret = 0;

	do {
		dispatcher_state_free(&st);
		if (dispatcher_read("tc", &st))
			return -1;
		listed = dispatcher_lists(&st, id, &direct);
		if (off || (listed && direct && st.image_size))
			break;
		usleep(20000);
	} while (now_ns() < deadline);
	if (listed == off || direct == off ||
	    (off ? st.image_size != 0 : st.image_size == 0)) {
		diag("images %s: image %lu bytes, program %u %s, %s",
		     off ? "off" : "on", st.image_size, id, listed ? "listed" : "not listed",
		     direct ? "jumped to directly" : "without a direct jump");
		ret = -1;
	}
	if (!off && !kallsyms_has("bpf_dispatcher_tc")) {
		diag("bpf_dispatcher_tc is not in /proc/kallsyms while its image is in force");
		ret = -1;
	}
	dispatcher_state_free(&st);
	return ret;
}

enum hook { TCX_INGRESS, TCX_EGRESS, CLS_INGRESS, CLS_EGRESS, ACT_INGRESS, NHOOKS };
static const char *const hook_names[NHOOKS] = {
	"tcx ingress", "tcx egress", "cls_bpf ingress", "cls_bpf egress", "act_bpf ingress",
};

static bool is_ingress(enum hook h)
{
	return h == TCX_INGRESS || h == CLS_INGRESS || h == ACT_INGRESS;
}

/* Attach @skel at @h of @dev; returns a link fd, 0 (no link), or -1. */
static int hook_attach(struct tc_mark *skel, enum hook h, const char *dev)
{
	int fd = bpf_program__fd(skel->progs.tc_mark);

	switch (h) {
	case TCX_INGRESS:
	case TCX_EGRESS:
		return tcx_link(fd, ifindex_of(dev), is_ingress(h));
	case CLS_INGRESS:
	case CLS_EGRESS:
		return cls_bpf_attach(fd, ifindex_of(dev), is_ingress(h), 1, false);
	default:
		return act_bpf_attach(bpf_program__fd(skel->progs.cls_match),
				      bpf_program__fd(skel->progs.act_mark), dev, true);
	}
}

static int hook_detach(enum hook h, const char *dev, int link)
{
	switch (h) {
	case TCX_INGRESS:
	case TCX_EGRESS:
		return close(link);
	case CLS_INGRESS:
	case CLS_EGRESS:
		return cls_bpf_detach(ifindex_of(dev), is_ingress(h), 1);
	default:
		return act_bpf_detach(dev, true);
	}
}

/* One hook on the veth pair tx0 -> rx0: traffic, test runs, the set. */
static int hook_case(enum hook h)
{
	const char *dev = is_ingress(h) ? "rx0" : "tx0";
	uint32_t mark = 0x500 + h, ids[2];
	struct tc_mark *skel;
	int link, nids, ret = KSFT_FAIL, prog_fd;
	long sent;
	__u64 runs;

	skel = tc_mark_load(mark, h == ACT_INGRESS);
	TEST_ASSERT(skel, "loading tc_mark failed");
	prog_fd = bpf_program__fd(h == ACT_INGRESS ? skel->progs.act_mark : skel->progs.tc_mark);
	ids[0] = prog_id(prog_fd);
	nids = 1;
	if (h == ACT_INGRESS)
		ids[nids++] = prog_id(bpf_program__fd(skel->progs.cls_match));
	link = hook_attach(skel, h, dev);
	if (link < 0 || lists_exactly(ids, nids) || jumps_as_booted(ids[0]))
		goto out;

	sent = send_frames("tx0", FRAMES, 0x7e57, &skel->bss->runs, WINDOW);
	runs = wait_counter(&skel->bss->runs, FRAMES, 5000);
	usleep(100000);
	runs = skel->bss->runs;
	diag("%s: %ld frames sent, program marked %llu", hook_names[h], sent,
	     (unsigned long long)runs);
	if (sent != FRAMES || runs != FRAMES)
		goto out_detach;
	if (mark_run(prog_fd, mark, RUNS) || mark_run(prog_fd, mark, 1))
		goto out_detach;
	ret = KSFT_PASS;
out_detach:
	if (hook_detach(h, dev, link) || lists_exactly_soon(NULL, 0))
		ret = KSFT_FAIL;
out:
	tc_mark__destroy(skel);
	return ret;
}

/* XDP and tc on one device: each program counts every frame, each is in
 * its own dispatcher and not in the other's.
 */
static int xdp_and_tc(void)
{
	struct xdp_count *xdp = xdp_count__open();
	struct tc_mark *tc = tc_mark_load(0x600, false);
	int xlink = -1, tlink = -1, ret = KSFT_FAIL;
	struct dispatcher_state st;
	uint32_t xid, tid;
	bool in_xdp, in_tc;

	if (!xdp || !tc)
		goto out;
	xdp->rodata->pass = 1;
	if (xdp_count__load(xdp))
		goto out;
	xid = prog_id(bpf_program__fd(xdp->progs.xdp_count));
	tid = prog_id(bpf_program__fd(tc->progs.tc_mark));
	xlink = xdp_link(bpf_program__fd(xdp->progs.xdp_count), ifindex_of("rx0"),
			 XDP_FLAGS_DRV_MODE);
	tlink = tcx_link(bpf_program__fd(tc->progs.tc_mark), ifindex_of("rx0"), true);
	if (xlink < 0 || tlink < 0)
		goto out;
	send_frames("tx0", FRAMES, 0x7e57, &tc->bss->runs, WINDOW);
	wait_counter(&tc->bss->runs, FRAMES, 5000);
	usleep(100000);
	diag("XDP and tcx ingress on rx0: XDP counted %llu, tc marked %llu of %d",
	     (unsigned long long)xdp->bss->frames, (unsigned long long)tc->bss->runs, FRAMES);
	if (xdp->bss->frames != FRAMES || tc->bss->runs != FRAMES)
		goto out;
	if (dispatcher_read("xdp", &st))
		goto out;
	in_xdp = dispatcher_lists(&st, xid, NULL) && !dispatcher_lists(&st, tid, NULL);
	dispatcher_state_free(&st);
	if (dispatcher_read("tc", &st))
		goto out;
	in_tc = dispatcher_lists(&st, tid, NULL) && !dispatcher_lists(&st, xid, NULL);
	dispatcher_state_free(&st);
	/* Images off: no set kept, neither is listed. */
	if (dispatcher_images_off())
		in_xdp = in_tc = !in_xdp && !in_tc;
	TEST_ASSERT(in_xdp && in_tc, "want the XDP program in bpf_dispatcher_xdp only (%d), the tc one in bpf_dispatcher_tc only (%d)",
	            in_xdp, in_tc);
	ret = KSFT_PASS;
out:
	if (xlink >= 0)
		close(xlink);
	if (tlink >= 0)
		close(tlink);
	xdp_count__destroy(xdp);
	tc_mark__destroy(tc);
	return ret;
}

static int need_dispatcher(void)
{
	if (dispatcher_present())
		return 0;
	diag("no %s: a kernel without this series' dispatcher", DISPATCHER_DEBUGFS);
	return -1;
}

TEST_CASE(tc_dispatcher_hooks, 300)
{
	int h, ret = KSFT_PASS;

	if (need_dispatcher())
		return KSFT_SKIP;
	if (enter_netns() || veth_pair("tx0", "rx0"))
		return KSFT_FAIL;
	for (h = 0; h < NHOOKS; h++)
		if (hook_case(h) != KSFT_PASS)
			ret = KSFT_FAIL;
	if (xdp_and_tc() != KSFT_PASS)
		ret = KSFT_FAIL;
	return ret;
}

#define MAX_PROGS 1024
static const int steps[] = { 1, 48, 49, 1024 };

/* Program i sits on dummy tcd<i>, at the hook i % 4 names. */
static const enum hook scale_hooks[4] = { TCX_EGRESS, CLS_EGRESS, TCX_INGRESS, CLS_INGRESS };

/* Egress programs see frames sent out of their dummy; ingress ones, which
 * a dummy never feeds, their test runs.
 */
static int scale_check(struct tc_mark **skel, int n, int i)
{
	char dev[16];
	long sent;

	if (mark_run(bpf_program__fd(skel[i]->progs.tc_mark), 0x1000 + i, RUNS))
		return -1;
	if (is_ingress(scale_hooks[i % 4]))
		return 0;
	snprintf(dev, sizeof(dev), "tcd%d", i);
	skel[i]->bss->runs = 0;
	sent = send_frames(dev, 50, 0x7e57, NULL, 0);
	usleep(50000);
	if (sent != 50 || skel[i]->bss->runs != 50) {
		diag("%d programs: %s (%s) marked %llu of %ld frames", n, dev,
		     hook_names[scale_hooks[i % 4]], (unsigned long long)skel[i]->bss->runs, sent);
		return -1;
	}
	return 0;
}

TEST_CASE(tc_dispatcher_scale, 900)
{
	static struct tc_mark *skel[MAX_PROGS];
	static uint32_t ids[MAX_PROGS];
	int n = 0, s, ret = KSFT_FAIL;
	char dev[16];

	if (need_dispatcher())
		return KSFT_SKIP;
	if (enter_netns() || want_fds(8 * MAX_PROGS) || dummy_devs("tcd", MAX_PROGS))
		return KSFT_FAIL;
	for (s = 0; s < (int)(sizeof(steps) / sizeof(steps[0])); s++) {
		uint64_t t0 = now_ns();

		for (; n < steps[s]; n++) {
			skel[n] = tc_mark_load(0x1000 + n, false);
			snprintf(dev, sizeof(dev), "tcd%d", n);
			if (!skel[n] || hook_attach(skel[n], scale_hooks[n % 4], dev) < 0)
				goto out;
			ids[n] = prog_id(bpf_program__fd(skel[n]->progs.tc_mark));
		}
		if (lists_exactly(ids, n) || scale_check(skel, n, 0) ||
		    scale_check(skel, n, n / 2) || scale_check(skel, n, n - 1) ||
		    (n > 3 && scale_check(skel, n, n - 2)))
			goto out;
		diag("%d programs (tcx and cls_bpf, ingress and egress): all listed, traffic and test runs marked by the right one (%.1f s)",
		     n, (now_ns() - t0) / 1e9);
	}
	ret = KSFT_PASS;
out:
	/* Tearing the namespace down detaches the rest. */
	return ret;
}

/* Churn: a seeded sequence of attach, replace and detach over a pool of
 * programs and dummies, through three kinds of slot: tcx ingress links
 * (attach, update, release), tcx egress without a link (attach, replace,
 * detach by program or by position) and cls_bpf egress filters (add,
 * replace, delete).
 */
#define POOL 8
#define DEVS 16
enum kind { TCX_LINK, TCX_PROG, CLS, NKINDS };

struct slot {
	int link;	/* TCX_LINK: link fd; else 0; -1: empty */
	int prog;
};

static int churn_same_set(struct tc_mark **pool, const struct slot *slots, int nslots)
{
	uint32_t ids[POOL];
	bool used[POOL] = {};
	int i, n = 0;

	for (i = 0; i < nslots; i++)
		if (slots[i].link >= 0)
			used[slots[i].prog] = true;
	for (i = 0; i < POOL; i++)
		if (used[i])
			ids[n++] = prog_id(bpf_program__fd(pool[i]->progs.tc_mark));
	return lists_exactly_soon(ids, n);
}

static int pool_fd(struct tc_mark **pool, int i)
{
	return bpf_program__fd(pool[i]->progs.tc_mark);
}

static int slot_attach(struct tc_mark **pool, struct slot *sl, enum kind k, int ifindex, int prog)
{
	switch (k) {
	case TCX_LINK:
		sl->link = tcx_link(pool_fd(pool, prog), ifindex, true);
		break;
	case TCX_PROG:
		sl->link = tcx_attach(pool_fd(pool, prog), ifindex, false, -1);
		break;
	default:
		sl->link = cls_bpf_attach(pool_fd(pool, prog), ifindex, false, 1, false);
	}
	return sl->link < 0 ? -1 : 0;
}

static int slot_replace(struct tc_mark **pool, struct slot *sl, enum kind k, int ifindex, int prog)
{
	switch (k) {
	case TCX_LINK:
		return bpf_link_update(sl->link, pool_fd(pool, prog), NULL);
	case TCX_PROG:
		return tcx_attach(pool_fd(pool, prog), ifindex, false, pool_fd(pool, sl->prog));
	default:
		return cls_bpf_attach(pool_fd(pool, prog), ifindex, false, 1, true);
	}
}

static int slot_detach(struct tc_mark **pool, struct slot *sl, enum kind k, int ifindex,
		       bool by_position)
{
	int err;

	switch (k) {
	case TCX_LINK:
		err = close(sl->link);
		break;
	case TCX_PROG:
		err = tcx_detach(by_position ? -1 : pool_fd(pool, sl->prog), ifindex, false);
		break;
	default:
		err = cls_bpf_detach(ifindex, false, 1);
	}
	sl->link = -1;
	return err;
}

TEST_CASE(tc_dispatcher_churn, 600)
{
	int ops = getenv("CHURN_OPS") ? atoi(getenv("CHURN_OPS")) : 3000;
	unsigned int seed = getenv("SEED") ? strtoul(getenv("SEED"), NULL, 0) : (unsigned int)now_ns();
	struct slot slots[NKINDS * DEVS];	/* kind s / DEVS on dummy s % DEVS */
	struct tc_mark *pool[POOL] = {};
	int i, op, ret = KSFT_FAIL, counts[3][NKINDS] = {};
	char dev[16];

	if (need_dispatcher())
		return KSFT_SKIP;
	diag("seed %u (SEED=%u reproduces), %d operations", seed, seed, ops);
	srand(seed);
	if (enter_netns() || dummy_devs("ccd", DEVS))
		return KSFT_FAIL;
	for (i = 0; i < POOL; i++)
		if (!(pool[i] = tc_mark_load(0x100 + i, false)))
			goto out;
	for (i = 0; i < NKINDS * DEVS; i++)
		slots[i].link = -1;

	for (op = 1; op <= ops; op++) {
		int s = rand() % (NKINDS * DEVS), prog = rand() % POOL;
		enum kind k = s / DEVS;
		struct slot *sl = &slots[s];
		int ifindex;

		snprintf(dev, sizeof(dev), "ccd%d", s % DEVS);
		ifindex = ifindex_of(dev);
		if (sl->link < 0) {
			if (slot_attach(pool, sl, k, ifindex, prog))
				goto out;
			counts[0][k]++;
		} else if (rand() % 2) {
			if (slot_detach(pool, sl, k, ifindex, rand() % 2))
				goto out;
			counts[1][k]++;
			continue;
		} else {
			if (prog == sl->prog)
				prog = (prog + 1) % POOL;
			if (slot_replace(pool, sl, k, ifindex, prog)) {
				diag("replace on %s: %m", dev);
				goto out;
			}
			counts[2][k]++;
		}
		sl->prog = prog;
		if (op % 500 == 0 && churn_same_set(pool, slots, NKINDS * DEVS)) {
			diag("after operation %d", op);
			goto out;
		}
	}
	if (churn_same_set(pool, slots, NKINDS * DEVS))
		goto out;
	for (i = 0; i < NKINDS * DEVS; i++) {
		if (slots[i].link < 0)
			continue;
		snprintf(dev, sizeof(dev), "ccd%d", i % DEVS);
		if (slot_detach(pool, &slots[i], i / DEVS, ifindex_of(dev), false))
			goto out;
	}
	if (churn_same_set(pool, slots, NKINDS * DEVS))
		goto out;
	diag("attach/replace/detach: tcx links %d/%d/%d, tcx without a link %d/%d/%d, cls_bpf %d/%d/%d; the set followed, empty at the end",
	     counts[0][TCX_LINK], counts[2][TCX_LINK], counts[1][TCX_LINK],
	     counts[0][TCX_PROG], counts[2][TCX_PROG], counts[1][TCX_PROG],
	     counts[0][CLS], counts[2][CLS], counts[1][CLS]);
	ret = KSFT_PASS;
out:
	for (i = 0; i < POOL; i++)
		tc_mark__destroy(pool[i]);
	return ret;
}

/* Concurrency: threads attach and detach tcx links and cls_bpf filters
 * and run test runs while frames cross a veth through a tcx program that
 * must see every one.
 */
#define THREADS 2
#define CONC_SECONDS 5

static struct tc_mark *conc_pool[POOL];
static atomic_bool conc_stop;
static atomic_int conc_errors;
static atomic_long conc_ops, conc_runs;

static void *attacher(void *arg)
{
	long t = (long)arg;
	unsigned int seed = t;
	char dev[16];

	snprintf(dev, sizeof(dev), "cc%ld", t);
	while (!atomic_load(&conc_stop)) {
		int p = rand_r(&seed) % POOL;
		int fd = bpf_program__fd(conc_pool[p]->progs.tc_mark);
		int link = tcx_link(fd, ifindex_of(dev), rand_r(&seed) % 2);

		if (link < 0 || cls_bpf_attach(fd, ifindex_of(dev), false, 1, false) ||
		    cls_bpf_detach(ifindex_of(dev), false, 1) || close(link)) {
			atomic_fetch_add(&conc_errors, 1);
			break;
		}
		atomic_fetch_add(&conc_ops, 1);
	}
	return NULL;
}

static void *runner(void *arg)
{
	unsigned int seed = (long)arg + 100;

	while (!atomic_load(&conc_stop)) {
		int p = rand_r(&seed) % POOL;

		if (mark_run(bpf_program__fd(conc_pool[p]->progs.tc_mark), 0x100 + p, 2)) {
			atomic_fetch_add(&conc_errors, 1);
			break;
		}
		atomic_fetch_add(&conc_runs, 1);
	}
	return NULL;
}

TEST_CASE(tc_dispatcher_concurrency, 300)
{
	pthread_t th[2 * THREADS];
	struct tc_mark *fixed = NULL;
	int i, link = -1, ret = KSFT_FAIL;
	uint64_t end;
	long sent = 0;
	char dev[16];

	if (need_dispatcher())
		return KSFT_SKIP;
	if (enter_netns() || veth_pair("tx0", "rx0"))
		return KSFT_FAIL;
	for (i = 0; i < THREADS; i++) {
		snprintf(dev, sizeof(dev), "cc%d", i);
		if (dummy_dev(dev))
			return KSFT_FAIL;
	}
	for (i = 0; i < POOL; i++)
		if (!(conc_pool[i] = tc_mark_load(0x100 + i, false)))
			goto out;
	fixed = tc_mark_load(0x700, false);
	if (!fixed)
		goto out;
	link = tcx_link(bpf_program__fd(fixed->progs.tc_mark), ifindex_of("rx0"), true);
	if (link < 0)
		goto out;
	for (i = 0; i < THREADS; i++) {
		pthread_create(&th[i], NULL, attacher, (void *)(long)i);
		pthread_create(&th[THREADS + i], NULL, runner, (void *)(long)i);
	}
	end = now_ns() + CONC_SECONDS * 1000000000ull;
	while (now_ns() < end && !atomic_load(&conc_errors)) {
		long n = send_frames("tx0", 100, 0x7e57, &fixed->bss->runs, WINDOW);

		if (n < 0)
			break;
		sent += n;
	}
	atomic_store(&conc_stop, true);
	for (i = 0; i < 2 * THREADS; i++)
		pthread_join(th[i], NULL);
	wait_counter(&fixed->bss->runs, sent, 5000);
	usleep(100000);
	diag("%ld attach+detach rounds, %ld test runs, %ld frames sent, %llu marked by the tcx program",
	     atomic_load(&conc_ops), atomic_load(&conc_runs), sent,
	     (unsigned long long)fixed->bss->runs);
	if (atomic_load(&conc_errors) || fixed->bss->runs != (__u64)sent || !conc_ops || !conc_runs)
		goto out;
	{
		uint32_t id = prog_id(bpf_program__fd(fixed->progs.tc_mark));

		if (lists_exactly_soon(&id, 1))
			goto out;
	}
	ret = KSFT_PASS;
out:
	if (link >= 0)
		close(link);
	tc_mark__destroy(fixed);
	for (i = 0; i < POOL; i++)
		tc_mark__destroy(conc_pool[i]);
	return ret;
}
