// SPDX-License-Identifier: GPL-2.0
/*
 * Eight XDP programs on one veth device, each with its own set of the
 * actions after which the next one runs (progs/xdp_verdict.h): frames of
 * four kinds, each kind stopped by a different program with a different
 * verdict, or by none. Each program must count exactly the frames that
 * reach it, and the device must do what the hook's verdict says (pass
 * them to the stack, send them back, or drop them), as libxdp's rule
 * has it: the first action outside its program's set is the verdict,
 * XDP_PASS where the last program's action is in its set.
 *
 * Once loaded by Debian's xdp-loader, through libxdp's dispatcher (each
 * program's set read from its object's run config); once attached by the
 * kernel's own multi-program XDP (BPF_XDP_NATIVE) with the same sets as
 * next_actions, where the kernel has it. The same objects, the same
 * frames, the same counts. libxdp refuses an 11th program (its
 * dispatcher has 10 slots) and leaves the eight as they were. Built on
 * a uapi without BPF_XDP_NATIVE (HAVE_XDP_MPROG 0: 7.3, until series/7's
 * redesign), the kernel's half only skips; libxdp's runs all the same.
 */
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tests.h"
#include "test_frame.h"
#include "xdp_verdict.h"
#include "xdp_count.skel.h"

#define TX		"cv0"
#define RX		"cv1"
#define FRAMES		32	/* of each kind: below veth's ring */

static const unsigned int sets[VERDICT_SLOTS] = {
	VERDICT_NEXT_0, VERDICT_NEXT_1, VERDICT_NEXT_2, VERDICT_NEXT_3,
	VERDICT_NEXT_4, VERDICT_NEXT_5, VERDICT_NEXT_6, VERDICT_NEXT_7,
};
static const __u8 actions[VERDICT_SLOTS][VERDICT_KINDS] = VERDICT_ACTIONS;

/* Each slot's .bss (its frames[] per kind), however it was loaded. */
static int bss_fd[VERDICT_SLOTS];

/* libxdp's rule: which slots see a frame of @kind; returns the verdict. */
static int model(int kind, bool seen[VERDICT_SLOTS])
{
	int s, act = XDP_PASS;

	memset(seen, 0, VERDICT_SLOTS * sizeof(seen[0]));
	for (s = 0; s < VERDICT_SLOTS; s++) {
		seen[s] = true;
		act = actions[s][kind];
		if (!(sets[s] & (1U << act)))
			return act;
	}
	return XDP_PASS;
}

static int read_frames(int slot, __u64 frames[VERDICT_KINDS])
{
	__u32 key = 0;

	if (bpf_map_lookup_elem(bss_fd[slot], &key, frames)) {
		diag("slot %d: reading its counts: %m", slot);
		return -1;
	}
	return 0;
}

/* Test frames of @kind taken off @fd (non-blocking): how many. */
static long drain(int fd, uint32_t kind)
{
	unsigned char buf[2048];
	struct sockaddr_ll sll;
	socklen_t len = sizeof(sll);
	long got = 0;
	ssize_t n;

	while ((n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (void *)&sll, &len)) > 0) {
		uint32_t *words = (void *)(buf + ETH_HLEN);

		if (sll.sll_pkttype != PACKET_OUTGOING &&
		    n >= ETH_HLEN + 4 * (TEST_WORD_TAG + 1) && words[TEST_WORD_TAG] == kind)
			got++;
		len = sizeof(sll);
	}
	return got;
}

static int rx_socket(const char *dev)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(TEST_ETH_P),
		.sll_ifindex = if_nametoindex(dev),
	};
	int fd = socket(AF_PACKET, SOCK_RAW, htons(TEST_ETH_P));

	if (fd < 0 || bind(fd, (void *)&sll, sizeof(sll))) {
		diag("AF_PACKET socket on %s: %m", dev);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static const char *action_name(int act)
{
	static const char *const names[] = { "XDP_ABORTED", "XDP_DROP", "XDP_PASS",
					     "XDP_TX", "XDP_REDIRECT" };

	return act >= 0 && act <= XDP_REDIRECT ? names[act] : "?";
}

/*
 * FRAMES frames of each kind from TX: each slot counts them if the model
 * says they reach it, and RX passes them to the stack or sends them back
 * (counted by @echo on TX) as the verdict says.
 */
static int check(const char *how, struct xdp_count *echo)
{
	__u64 before[VERDICT_SLOTS][VERDICT_KINDS], after[VERDICT_KINDS];
	bool seen[VERDICT_SLOTS];
	int kind, s, last, act, fd, bad = 0;
	long passed, echoed;
	__u64 echo0;

	fd = rx_socket(RX);
	if (fd < 0)
		return -1;
	for (kind = 0; kind < VERDICT_KINDS; kind++) {
		act = model(kind, seen);
		for (s = 0; s < VERDICT_SLOTS; s++)
			if (read_frames(s, before[s]))
				goto out;
		drain(fd, kind);
		echo0 = echo->bss->frames;
		if (send_frames(TX, FRAMES, kind, NULL, 0) != FRAMES) {
			diag("%s: sending kind %d failed", how, kind);
			goto out;
		}
		/* until the last slot the frames reach has counted them all */
		for (last = VERDICT_SLOTS - 1; !seen[last]; last--)
			;
		for (s = 0; s < 250; s++) {
			if (read_frames(last, after))
				goto out;
			if (after[kind] >= before[last][kind] + FRAMES)
				break;
			usleep(20000);
		}
		usleep(200000);
		for (s = 0; s < VERDICT_SLOTS; s++) {
			__u64 want = seen[s] ? FRAMES : 0, got;

			if (read_frames(s, after))
				goto out;
			got = after[kind] - before[s][kind];
			if (got != want) {
				diag("%s: kind %d: slot %d counted %llu frames, want %llu",
				     how, kind, s, (unsigned long long)got,
				     (unsigned long long)want);
				bad++;
			}
		}
		passed = drain(fd, kind);
		echoed = echo->bss->frames - echo0;
		if (passed != (act == XDP_PASS ? FRAMES : 0) ||
		    echoed != (act == XDP_TX ? FRAMES : 0)) {
			diag("%s: kind %d, verdict %s: %ld frames to %s's stack, %ld sent back",
			     how, kind, action_name(act), passed, RX, echoed);
			bad++;
		}
	}
	close(fd);
	if (!bad)
		diag("%s: every program counted the frames that reach it; verdicts as libxdp's rule",
		     how);
	return bad ? -1 : 0;
out:
	close(fd);
	return -1;
}

static const char *progs_dir(char *buf, size_t len)
{
	const char *build = getenv("BUILD");

	if (build)
		snprintf(buf, len, "%s/progs", build);
	else
		snprintf(buf, len, "build/progs");
	return buf;
}

/* TX's own XDP program: counts what RX sends back, passes it on. */
static struct xdp_count *echo_attach(int *link)
{
	struct xdp_count *echo = xdp_count__open();

	if (!echo)
		return NULL;
	echo->rodata->pass = 1;
	if (xdp_count__load(echo)) {
		xdp_count__destroy(echo);
		return NULL;
	}
	*link = xdp_link(bpf_program__fd(echo->progs.xdp_count), ifindex_of(TX),
			 XDP_FLAGS_DRV_MODE);
	if (*link < 0) {
		xdp_count__destroy(echo);
		return NULL;
	}
	return echo;
}

static int setup(struct xdp_count **echo, int *echo_link)
{
	if (enter_netns() || veth_pair(TX, RX))
		return -1;
	*echo = echo_attach(echo_link);
	return *echo ? 0 : -1;
}

static void teardown(struct xdp_count *echo, int echo_link)
{
	if (echo_link >= 0)
		close(echo_link);
	xdp_count__destroy(echo);
}

/* The .bss of the program named xdp_verdict_<slot> that xdp-loader loaded. */
static int find_loaded(void)
{
	__u32 id = 0, map_ids[4];
	int found = 0, s;

	for (s = 0; s < VERDICT_SLOTS; s++)
		bss_fd[s] = -1;
	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info), i;
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		info.nr_map_ids = 4;
		info.map_ids = (__u64)(unsigned long)map_ids;
		if (bpf_prog_get_info_by_fd(fd, &info, &len) ||
		    sscanf(info.name, "xdp_verdict_%d", &s) != 1 || s < 0 ||
		    s >= VERDICT_SLOTS || bss_fd[s] >= 0) {
			close(fd);
			continue;
		}
		close(fd);
		for (i = 0; i < info.nr_map_ids && i < 4; i++) {
			struct bpf_map_info minfo = {};
			__u32 mlen = sizeof(minfo);
			int mfd = bpf_map_get_fd_by_id(map_ids[i]);

			if (mfd < 0)
				continue;
			if (!bpf_map_get_info_by_fd(mfd, &minfo, &mlen) &&
			    strstr(minfo.name, ".bss")) {
				bss_fd[s] = mfd;
				found++;
				break;
			}
			close(mfd);
		}
	}
	return found;
}

/* Three more make 11: libxdp's dispatcher has 10 slots and refuses them all. */
static int libxdp_refuses_11th(const char *dir)
{
	if (!run_cmd("xdp-loader load -m native %s %s/xdp_pass.bpf.o %s/xdp_pass.bpf.o %s/xdp_pass.bpf.o 2>&1",
		     RX, dir, dir, dir)) {
		diag("xdp-loader loaded an 11th program");
		return -1;
	}
	diag("libxdp refused an 11th program");
	return 0;
}

TEST_CASE(xdp_chain_actions_libxdp, 300)
{
	struct xdp_count *echo = NULL;
	int echo_link = -1, s, len, ret = KSFT_FAIL;
	char dir[512], cmd[4096];

	if (system("command -v xdp-loader >/dev/null")) {
		diag("no xdp-loader (xdp-tools): skipped");
		return KSFT_SKIP;
	}
	if (setup(&echo, &echo_link))
		goto out;
	progs_dir(dir, sizeof(dir));
	len = snprintf(cmd, sizeof(cmd), "xdp-loader load -m native %s", RX);
	for (s = 0; s < VERDICT_SLOTS; s++)
		len += snprintf(cmd + len, sizeof(cmd) - len, " %s/xdp_verdict_%d.bpf.o", dir, s);
	if (run_cmd("%s", cmd))
		goto out;
	if (find_loaded() != VERDICT_SLOTS)
		diag("xdp-loader's programs: found the counts of fewer than %d", VERDICT_SLOTS);
	else if (!check("libxdp's dispatcher", echo) &&
		 !libxdp_refuses_11th(dir) &&
		 !check("libxdp's dispatcher, after the refused load", echo))
		ret = KSFT_PASS;
	/* what libxdp made of the objects' run configs */
	if (ret != KSFT_PASS)
		run_cmd("xdp-loader status %s", RX);
	for (s = 0; s < VERDICT_SLOTS; s++)
		if (bss_fd[s] >= 0)
			close(bss_fd[s]);
	run_cmd("xdp-loader unload --all %s", RX);
out:
	teardown(echo, echo_link);
	return ret;
}

#if HAVE_XDP_MPROG
TEST_CASE(xdp_chain_actions_native, 300)
{
	struct bpf_object *objs[VERDICT_SLOTS] = {};
	int links[VERDICT_SLOTS], echo_link = -1, s, ret = KSFT_FAIL;
	struct xdp_count *echo = NULL;
	char dir[512], path[600];

	for (s = 0; s < VERDICT_SLOTS; s++)
		links[s] = -1;
	if (setup(&echo, &echo_link))
		goto out;
	progs_dir(dir, sizeof(dir));
	for (s = 0; s < VERDICT_SLOTS; s++) {
		LIBBPF_OPTS(bpf_link_create_opts, opts,
			    .xdp.next_actions = XDP_NEXT_ACTIONS | sets[s]);
		struct bpf_program *prog;

		snprintf(path, sizeof(path), "%s/xdp_verdict_%d.bpf.o", dir, s);
		objs[s] = bpf_object__open_file(path, NULL);
		if (!objs[s] || bpf_object__load(objs[s])) {
			diag("loading %s failed", path);
			goto out;
		}
		prog = bpf_object__next_program(objs[s], NULL);
		bss_fd[s] = bpf_map__fd(bpf_object__find_map_by_name(objs[s], ".bss"));
		links[s] = bpf_link_create(bpf_program__fd(prog), ifindex_of(RX),
					   BPF_XDP_NATIVE, &opts);
		if (links[s] < 0) {
			if (!s && errno == EINVAL) {
				diag("no BPF_XDP_NATIVE with next_actions in this kernel: skipped");
				ret = KSFT_SKIP;
			} else {
				diag("slot %d: BPF_XDP_NATIVE link: %m", s);
			}
			goto out;
		}
	}
	if (!check("the kernel's chain", echo))
		ret = KSFT_PASS;
out:
	for (s = 0; s < VERDICT_SLOTS; s++) {
		if (links[s] >= 0)
			close(links[s]);
		bpf_object__close(objs[s]);
	}
	teardown(echo, echo_link);
	return ret;
}
#else
TEST_CASE_SKIP(xdp_chain_actions_native, XDP_MPROG_MISSING)
#endif
