// SPDX-License-Identifier: GPL-2.0
/*
 * Dispatcher benchmarks, run in the guest once per kernel: prints one
 * "name value" line per figure (medians), for bench/run.sh to tabulate.
 *
 * Every ns-per-run figure is taken after 1.5 s of warm-up runs of its
 * program (steady state: past the profile a new program gets).
 *
 *   xdp_perf_ns.N       ns per run of a trivial XDP program under
 *                       BPF_PROG_TEST_RUN, with N other programs attached
 *   tc_perf_ns.N        the same for a trivial SCHED_CLS program, with N
 *                       other tc programs attached (tcx egress)
 *   attach_detach_us    one native XDP attach + detach on a veth, the
 *                       same program each time
 *   attach_detach_new_us  the same, a program new to the dispatcher each
 *                       time (every attach needs a new image)
 *   test_run_us.R       one BPF_PROG_TEST_RUN call with repeat R (1, 2),
 *                       for a program attached nowhere
 *   test_run_new_us.2   the same with repeat 2, a new program each call
 *   parallel_calls_per_s.P  repeat=2 test runs per second, P processes
 *   alternating_images_per_s.K  static call updates (a kprobe on
 *                       __static_call_update, so both kernels count alike)
 *                       per second while repeat=2 test runs alternate
 *                       between K programs (2, 8, 64) for 3 s
 *   alternating_runs_per_s.K  those test runs per second
 *   devmap_redirect_ns.M  ns per frame of BPF_PROG_TEST_RUN in live-frames
 *                       mode redirecting through a devmap M (array, hash:
 *                       to one veth; broadcast: an array, to two), the
 *                       frames leaving through ndo_xdp_xmit; run.sh boots
 *                       with VM_ICOUNT=1 for them, so a ns is an instruction
 *
 *   xsk_redirect_ns     the same through an XSKMAP to an AF_XDP socket bound
 *                       to the frames' queue in copy mode (1,024 frames a
 *                       call, the socket's ring emptied between calls)
 *   xsk_rx_per_s        frames per second that socket takes of pktgen's
 *                       traffic into a veth, this process emptying its ring
 *                       when poll() says (with VM_ICOUNT=1: guest
 *                       instructions set the pace)
 *   igb_devmap_per_s    frames per second of pktgen's traffic from the
 *                       first igb NIC that the second redirects through a
 *                       devmap and the third's driver takes (native XDP in
 *                       igb's NAPI path; where the guest has igb)
 *   igb_xsk_zc_per_s.Q  frames per second zero-copy AF_XDP sockets on Q
 *                       queues of the second igb NIC take of that traffic,
 *                       from 256 source addresses (rxdrop)
 *
 *   flow_dissector_perf_ns  ns per run of a flow dissector program (it
 *                       counts, and hands the packet back to the kernel's
 *                       dissector) under BPF_PROG_TEST_RUN
 *   sk_lookup_perf_ns   the same for an sk_lookup program on a UDP lookup
 *   sk_lookup_udp_per_s  UDP datagrams per second sent to 127.0.0.1 and
 *                       steered to a socket on another port by an attached
 *                       sk_lookup program (one process, send then receive)
 *   netkit_frames_per_s  64-byte frames per second through a netkit pair
 *                       whose primary runs a program that counts them
 *
 *   dispatcher_bench [xdp-perf|redirect]   only the xdp_perf lines, or
 *                                          only the devmap_redirect lines
 *                                          (not in the default run)
 *
 *   dispatcher_bench chains  (not in the default run)
 *   xdp_chain_pps.HOW.N frames per second that N XDP programs on one veth
 *                       (native XDP) run, pktgen sending 64-byte frames
 *                       from its peer: N - 1 programs return XDP_PASS and
 *                       the last drops; the veth's ethtool xdp_packets
 *                       counts them. HOW is how the N share the device:
 *                       libxdp  Debian's xdp-loader (libxdp's dispatcher
 *                               program, freplace'd slots: N <= 10)
 *                       tail    a root program tail-calling the first,
 *                               each the next (Katran, l3af: the kernel
 *                               stops a chain at 33 tail calls, N <= 32)
 *                       mprog   the series' attach (BPF_XDP_NATIVE):
 *                               one program, the program itself; more, a
 *                               chain; nothing on a kernel without it,
 *                               nor where built on a uapi without it
 *                               (HAVE_XDP_MPROG 0: 7.3, until series/7's
 *                               redesign)
 *                       run.sh boots with VM_ICOUNT=1 for them: 1e9 / rate
 *                       is the guest's instructions per frame
 *
 *   dispatcher_bench scale [N...]   (not in the default run; minutes
 *                       under TCG) the set's cost at N XDP programs (1000
 *                       and 10000 unless named, rising, up to 50000), each
 *                       attached by a link in generic mode to a dummy device
 *                       of its own; boot with VM_ICOUNT=1, so that a ns is
 *                       an instruction, and VM_MEM=6G (8G for 50000, whose
 *                       setup alone takes over an hour under TCG):
 *   scale_fill_ns.N     one attach of a program new to the set, averaged
 *                       over the attaches that brought the set to N
 *   scale_attach_ns.N   one attach of a program new to the set of N (the
 *                       link's syscall, RTNL held throughout), median and
 *                       largest of SCALE_SAMPLES; an attach publishes an
 *                       image itself when the update rate allows
 *   scale_detach_ns.N   closing that link, median
 *   scale_change_ns.N   bpf_dispatcher_change_prog() (it takes d->mutex)
 *                       in those attaches and detaches: mean and largest
 *   scale_publish_ns.N  bpf_dispatcher_update(), from those attaches (on
 *                       a kernel whose attaches publish) and the work items
 *                       they start: mean and largest (an image emitted and
 *                       published; the others find nothing to do or the
 *                       update rate's gap)
 *   scale_rtnl_ns.N     each hold of RTNL (mutex_lock() to mutex_unlock(),
 *                       lock_hold.bpf.c) by any task from the first of
 *                       those attaches until 10 s after the last detach:
 *                       median, largest, how many
 *   scale_mutex_ns.N    the same for the XDP dispatcher's mutex (d->mutex:
 *                       the set changes and the work items)
 *   scale_image_bytes.N the image in force with N programs (debugfs)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <linux/if_link.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "dispatcher.h"
#include "kprobe.h"
#include "testlib.h"
#include "flow_dissector_count.skel.h"
#include "netkit_count.skel.h"
#include "sk_lookup_steer.skel.h"
#include "../progs/dispatcher_time.h"
#include "dispatcher_time.skel.h"
#include "../progs/lock_hold.h"
#include "lock_hold.skel.h"
#include "tc_pass.skel.h"
#include "xdp_count.skel.h"
#include "xdp_drop.skel.h"
#include "xdp_pass.skel.h"
#include "xdp_redirect.skel.h"
#include "xdp_tail_chain.skel.h"
#include "xsk_redirect.skel.h"

#define SAMPLES 7
#define RATE_SAMPLES 3	/* one-second counts of a rate */
static const int others[] = { 0, 1, 47, 48, 49, 1024 };
#define MAX_OTHERS 1024
#define FRESH 202	/* two sets of 101 */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Steady state: a program new to a dispatcher is profiled within a second
 * of its first run (a counting image for 100 ms, then the shape chosen),
 * so every ns/run figure is taken after WARMUP_NS of such runs; the
 * transient is what the attach and update rows measure.
 */
#define WARMUP_NS 1500000000ull

static int warm_up(int prog_fd, struct bpf_test_run_opts *opts)
{
	uint64_t end = now_ns() + WARMUP_NS;

	while (now_ns() < end)
		if (bpf_prog_test_run_opts(prog_fd, opts))
			return -1;
	return 0;
}

/* The kernel's own ns/run for @repeat runs, median of SAMPLES calls. */
static double test_run_ns(int prog_fd, uint32_t repeat)
{
	unsigned char frame[TEST_FRAME_LEN];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
		    .data_size_in = sizeof(frame), .repeat = 1000);
	double v[SAMPLES];
	uint32_t ns;
	int i;

	test_frame(frame, 0, 0);
	if (warm_up(prog_fd, &opts))
		return -1;
	for (i = 0; i < SAMPLES; i++) {
		if (xdp_test_run(prog_fd, frame, sizeof(frame), NULL, repeat, NULL, &ns))
			return -1;
		v[i] = ns;
	}
	return median(v, SAMPLES);
}

/*
 * Live frames redirected through a devmap to rdt0 (and rdt1), whose veth
 * peers drop them in XDP: the kernel's ns per frame, median of SAMPLES
 * calls of 10,000 frames. -1 if a frame went missing.
 */
static double devmap_redirect_ns(bool hash, bool broadcast)
{
	static const char *const targets[2] = { "rdt0", "rdt1" };
	static const char *const peers[2] = { "rdp0", "rdp1" };
	const uint32_t repeat = 10000;
	unsigned char frame[TEST_FRAME_LEN];
	struct xdp_count *sink[2] = {};
	struct xdp_redirect *rd;
	double v[SAMPLES], ret = -1;
	int i, map_fd, links[2] = { -1, -1 };
	__u64 want = 0;
	uint32_t ns;

	rd = xdp_redirect__open();
	if (!rd)
		return -1;
	rd->rodata->use_hash = hash;
	rd->rodata->redirect_flags = broadcast ? BPF_F_BROADCAST : 0;
	if (xdp_redirect__load(rd))
		goto out;
	map_fd = bpf_map__fd(hash ? rd->maps.tx_hash : rd->maps.tx_array);
	for (i = 0; i < (broadcast ? 2 : 1); i++) {
		__u32 ifindex = ifindex_of(targets[i]);
		__u32 key = hash ? ifindex : (__u32)i;

		if (bpf_map_update_elem(map_fd, &key, &ifindex, BPF_ANY))
			goto out;
		rd->bss->key = key;
		sink[i] = xdp_count__open_and_load();
		if (!sink[i])
			goto out;
		links[i] = xdp_link(bpf_program__fd(sink[i]->progs.xdp_count),
				    ifindex_of(peers[i]), XDP_FLAGS_DRV_MODE);
		if (links[i] < 0)
			goto out;
	}
	test_frame(frame, 0, 0);
	for (i = 0; i < SAMPLES; i++) {
		if (xdp_test_run_live(bpf_program__fd(rd->progs.xdp_redirect), frame,
				      sizeof(frame), repeat, &ns))
			goto out;
		v[i] = ns;
	}
	/* Every frame must have arrived, or the figure measures drops. */
	want = (uint64_t)SAMPLES * repeat;
	if (wait_counter(&sink[0]->bss->frames, want, 5000) != want ||
	    (broadcast && wait_counter(&sink[1]->bss->frames, want, 5000) != want)) {
		fprintf(stderr, "devmap redirect: %llu of %llu frames arrived\n",
			(unsigned long long)sink[0]->bss->frames, (unsigned long long)want);
		goto out;
	}
	ret = median(v, SAMPLES);
out:
	for (i = 0; i < 2; i++) {
		if (links[i] >= 0)
			close(links[i]);
		xdp_count__destroy(sink[i]);
	}
	xdp_redirect__destroy(rd);
	return ret;
}

/* Wall-clock microseconds of one test-run call, median of @n; the
 * programs in @fds in turn if @each, else always @fds[0].
 */
static double test_run_us(const int *fds, bool each, uint32_t repeat, int n)
{
	unsigned char frame[TEST_FRAME_LEN];
	double v[256];
	uint64_t t;
	int i;

	test_frame(frame, 0, 0);
	for (i = 0; i < n; i++) {
		t = now_ns();
		if (xdp_test_run(fds[each ? i : 0], frame, sizeof(frame), NULL, repeat,
				 NULL, NULL))
			return -1;
		v[i] = (now_ns() - t) / 1e3;
	}
	return median(v, n);
}

/* With @fds of n programs, or one program @fds[0] every time if !@each. */
static double attach_detach_us(const int *fds, bool each, int ifindex, int n)
{
	double v[256];
	uint64_t t;
	int i, link;

	for (i = 0; i < n; i++) {
		t = now_ns();
		link = xdp_link(fds[each ? i : 0], ifindex, XDP_FLAGS_DRV_MODE);
		if (link < 0)
			return -1;
		close(link);
		v[i] = (now_ns() - t) / 1e3;
	}
	return median(v, n);
}

/* @procs processes doing repeat=2 test runs for @secs; calls per second. */
static double parallel_calls(int prog_fd, int procs, int secs)
{
	unsigned char frame[TEST_FRAME_LEN];
	int fds[2], i, status;
	long total = 0, calls;

	if (pipe(fds))
		return -1;
	test_frame(frame, 0, 0);
	for (i = 0; i < procs; i++) {
		if (fork() == 0) {
			uint64_t end = now_ns() + secs * 1000000000ull;

			calls = 0;
			while (now_ns() < end) {
				if (xdp_test_run(prog_fd, frame, sizeof(frame), NULL, 2, NULL, NULL))
					_exit(1);
				calls++;
			}
			if (write(fds[1], &calls, sizeof(calls)) != sizeof(calls))
				_exit(1);
			_exit(0);
		}
	}
	close(fds[1]);
	while (read(fds[0], &calls, sizeof(calls)) == sizeof(calls))
		total += calls;
	close(fds[0]);
	while (wait(&status) > 0)
		;
	return (double)total / secs;
}

#define KPROBE "dispatcher_bench_update"

/*
 * Repeat=2 test runs alternating between @k programs for @secs: runs per
 * second into *@runs, static call updates per second returned (-1 if the
 * kprobe cannot be set).
 */
static double alternating(int k, int secs, double *runs)
{
	unsigned char frame[TEST_FRAME_LEN];
	struct xdp_pass *p[64];
	long before, after, n = 0;
	uint64_t start, end;
	int i;

	*runs = -1;
	if (k > 64)
		return -1;
	for (i = 0; i < k; i++) {
		p[i] = xdp_pass__open_and_load();
		if (!p[i])
			return -1;
	}
	test_frame(frame, 0, 0);
	kprobe_add(KPROBE, "__static_call_update");
	before = kprobe_hits(KPROBE);
	start = now_ns();
	end = start + secs * 1000000000ull;
	while (now_ns() < end) {
		if (xdp_test_run(bpf_program__fd(p[n % k]->progs.xdp_pass), frame,
				 sizeof(frame), NULL, 2, NULL, NULL))
			break;
		n++;
	}
	after = kprobe_hits(KPROBE);
	*runs = n / ((now_ns() - start) / 1e9);
	kprobe_remove(KPROBE);
	for (i = 0; i < k; i++)
		xdp_pass__destroy(p[i]);
	if (before < 0 || after < 0)
		return -1;
	return (after - before) / ((now_ns() - start) / 1e9);
}

/* Update costs, with nothing else attached. */
static int updates(void)
{
	static struct xdp_pass *fresh[FRESH];
	static int fresh_fd[FRESH];
	struct xdp_pass *tested;
	int i, prog_fd, lat1;

	if (veth_pair("lat0", "lat1"))
		return 1;
	lat1 = ifindex_of("lat1");
	tested = xdp_pass__open_and_load();
	if (!tested)
		return 1;
	prog_fd = bpf_program__fd(tested->progs.xdp_pass);
	/* Programs the dispatcher has never seen, one per measured call. */
	for (i = 0; i < FRESH; i++) {
		fresh[i] = xdp_pass__open_and_load();
		if (!fresh[i])
			return 1;
		fresh_fd[i] = bpf_program__fd(fresh[i]->progs.xdp_pass);
	}
	printf("attach_detach_us %.1f\n", attach_detach_us(&prog_fd, false, lat1, 101));
	printf("attach_detach_new_us %.1f\n", attach_detach_us(fresh_fd, true, lat1, FRESH / 2));
	printf("test_run_us.1 %.1f\n", test_run_us(&prog_fd, false, 1, 101));
	printf("test_run_us.2 %.1f\n", test_run_us(&prog_fd, false, 2, 101));
	printf("test_run_new_us.2 %.1f\n", test_run_us(fresh_fd + FRESH / 2, true, 2, FRESH / 2));
	printf("parallel_calls_per_s.1 %.0f\n", parallel_calls(prog_fd, 1, 3));
	printf("parallel_calls_per_s.4 %.0f\n", parallel_calls(prog_fd, 4, 3));
	for (i = 0; i < 3; i++) {
		static const int k[] = { 2, 8, 64 };
		double runs, images = alternating(k[i], 3, &runs);

		printf("alternating_images_per_s.%d %.1f\n", k[i], images);
		printf("alternating_runs_per_s.%d %.0f\n", k[i], runs);
	}
	return 0;
}

/*
 * Live frames of rdt0's queue 0 redirected through an XSKMAP to an AF_XDP
 * socket bound there in copy mode: the kernel's ns per frame, median of
 * SAMPLES calls of XSK_REPEAT frames, the socket's ring emptied between
 * calls. -1 if a frame went missing.
 */
#define XSK_REPEAT 1024
static double xsk_redirect_ns(void)
{
	unsigned char frame[TEST_FRAME_LEN];
	struct xsk_redirect *skel = xsk_redirect__open_and_load();
	int ifindex = ifindex_of("rdt0"), fd, i, err;
	double v[SAMPLES], ret = -1;
	struct xsk_rx *x = NULL;
	long got, wrong = 0;
	uint32_t ns;

	if (!skel)
		return -1;
	x = xsk_rx_open("rdt0", 0, false, &err);
	if (!x)
		goto out;
	fd = xsk_rx_fd(x);
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.xsks), &(__u32){ 0 }, &fd, BPF_ANY))
		goto out;
	test_frame(frame, 0, 0);
	for (i = 0; i < SAMPLES; i++) {
		if (xdp_test_run_live_rxq(bpf_program__fd(skel->progs.xsk_redirect), frame,
					  sizeof(frame), XSK_REPEAT, ifindex, 0, &ns))
			goto out;
		got = xsk_rx_wait(x, 0, XSK_REPEAT, 5000, &wrong);
		if (got != XSK_REPEAT || wrong) {
			fprintf(stderr, "xsk redirect: %ld of %d frames arrived\n", got, XSK_REPEAT);
			goto out;
		}
		v[i] = ns;
	}
	ret = median(v, SAMPLES);
out:
	xsk_rx_close(x);
	xsk_redirect__destroy(skel);
	return ret;
}

/*
 * Frames per second an AF_XDP socket bound to xk1's queue 0 in copy mode
 * takes from pktgen's traffic into xk1, redirected as libxdp's default
 * program does, this process emptying its ring when poll() wakes it:
 * after a second of warm-up, the median of RATE_SAMPLES one-second counts.
 */
static double xsk_rx_per_s(void)
{
	struct xsk_redirect *skel = xsk_redirect__open_and_load();
	double v[RATE_SAMPLES], ret = -1;
	int link = -1, pg = -1, fd, err, i;
	struct xsk_rx *x = NULL;
	long wrong = 0, n;
	struct pollfd pfd;
	uint64_t t0, end;

	if (!skel || veth_pair("xk0", "xk1"))
		goto out;
	skel->bss->any_frame = 1;
	link = xdp_link(bpf_program__fd(skel->progs.xsk_redirect), ifindex_of("xk1"),
			XDP_FLAGS_DRV_MODE);
	x = xsk_rx_open("xk1", 0, false, &err);
	if (link < 0 || !x)
		goto out;
	fd = xsk_rx_fd(x);
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.xsks), &(__u32){ 0 }, &fd, BPF_ANY))
		goto out;
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	pg = pktgen_start("xk0", "xk1");
	if (pg < 0)
		goto out;
	for (i = -1; i < RATE_SAMPLES; i++) {
		t0 = now_ns();
		end = t0 + 1000000000ull;
		n = 0;
		/* woken by the socket, as xdpsock without busy polling: a loop
		 * that spins starves pktgen in the guest, pinned or not
		 */
		while (now_ns() < end) {
			if (poll(&pfd, 1, 10) < 0)
				goto out;
			n += xsk_rx_take(x, 0, &wrong);
		}
		if (i >= 0)
			v[i] = n * 1e9 / (now_ns() - t0);
	}
	ret = median(v, RATE_SAMPLES);
out:
	if (pg >= 0)
		pktgen_stop(pg);
	if (link >= 0)
		close(link);
	xsk_rx_close(x);
	xsk_redirect__destroy(skel);
	return ret;
}

/*
 * igb, where the guest has three ports (testbed/vm.sh): the first two
 * joined by a QEMU hub, the third alone. Up, their links running: 0.
 */
static int igb_ports(char nics[3][16])
{
	int i;

	if (driver_devs("igb", nics, 3) < 3)
		return -1;
	for (i = 0; i < 3; i++)
		if (link_up(nics[i]) || wait_running(nics[i], 10000))
			return -1;
	return 0;
}

#define IGB_QUEUES	2	/* the guest's vCPUs: igb's queue pairs */

/*
 * Frames a second while pktgen sends from @tx (from @flows source
 * addresses) to @rx: how fast *@counter rises or, with @n AF_XDP
 * sockets, how many they take, emptied as poll() wakes this process.
 * After a second of warm-up, the median of RATE_SAMPLES one-second counts.
 */
static double pktgen_rate(const char *tx, const char *rx, int flows, volatile __u64 *counter,
			  struct xsk_rx **sockets, int n)
{
	struct pollfd pfd[IGB_QUEUES];
	double v[RATE_SAMPLES];
	long wrong = 0, taken = 0, t;
	uint64_t t0, end;
	long c0;
	int pg, i, q;

	for (q = 0; q < n; q++)
		pfd[q] = (struct pollfd){ .fd = xsk_rx_fd(sockets[q]), .events = POLLIN };
	pg = pktgen_start_flows(tx, rx, flows);
	if (pg < 0)
		return -1;
	for (i = -1; i < RATE_SAMPLES; i++) {
		t0 = now_ns();
		end = t0 + 1000000000ull;
		c0 = n ? taken : (long)*counter;
		while (now_ns() < end) {
			if (!n) {
				usleep(10000);
				continue;
			}
			if (poll(pfd, n, 10) < 0) {
				pktgen_stop(pg);
				return -1;
			}
			for (q = 0; q < n; q++) {
				t = xsk_rx_take(sockets[q], 0, &wrong);
				if (t < 0) {
					pktgen_stop(pg);
					return -1;
				}
				taken += t;
			}
		}
		if (i >= 0)
			v[i] = ((n ? taken : (long)*counter) - c0) * 1e9 / (now_ns() - t0);
	}
	pktgen_stop(pg);
	return median(v, RATE_SAMPLES);
}

/*
 * Frames a second that igb's second port redirects through a devmap and
 * its third port's driver takes (xdp_devmap_xmit's sent count; xdp_pass
 * on that port: igb transmits redirected frames only while it runs XDP),
 * pktgen's traffic from the first port. -1 if a redirect failed or the
 * flush dropped a frame.
 */
static double igb_devmap_per_s(char nics[3][16])
{
	struct xdp_redirect *rd = xdp_redirect__open();
	struct xdp_pass *pass = xdp_pass__open_and_load();
	int link = -1, pass_link = -1, e;
	__u64 errors = 0;
	double ret = -1;

	if (!rd || !pass || xdp_redirect__load(rd) || xdp_redirect__attach(rd))
		goto out;
	rd->bss->any_frame = 1;
	if (bpf_map_update_elem(bpf_map__fd(rd->maps.tx_array), &(__u32){ 0 },
				&(__u32){ ifindex_of(nics[2]) }, BPF_ANY))
		goto out;
	pass_link = xdp_link(bpf_program__fd(pass->progs.xdp_pass), ifindex_of(nics[2]),
			     XDP_FLAGS_DRV_MODE);
	link = xdp_link(bpf_program__fd(rd->progs.xdp_redirect), ifindex_of(nics[1]),
			XDP_FLAGS_DRV_MODE);
	if (link < 0 || pass_link < 0 || wait_running(nics[1], 10000) ||
	    wait_running(nics[2], 10000))
		goto out;
	ret = pktgen_rate(nics[0], nics[1], 0, &rd->bss->xmit_sent, NULL, 0);
	for (e = 0; e < (int)(sizeof(rd->bss->errors) / sizeof(rd->bss->errors[0])); e++)
		errors += rd->bss->errors[e];
	if (errors || rd->bss->xmit_drops) {
		fprintf(stderr, "igb devmap: %llu redirects failed, the flush dropped %llu frames\n",
			(unsigned long long)errors, (unsigned long long)rd->bss->xmit_drops);
		ret = -1;
	}
out:
	if (link >= 0)
		close(link);
	if (pass_link >= 0)
		close(pass_link);
	xdp_pass__destroy(pass);
	xdp_redirect__destroy(rd);
	return ret;
}

/*
 * Frames a second that zero-copy AF_XDP sockets, one on each of @queues
 * queues of igb's second port, take of pktgen's traffic from the first
 * (random source addresses, so RSS spreads them), redirected as libxdp's
 * default program does: xdpsock's rxdrop.
 */
static double igb_xsk_zc_per_s(char nics[3][16], int queues)
{
	struct xsk_redirect *skel = xsk_redirect__open_and_load();
	struct xsk_rx *x[IGB_QUEUES] = {};
	int link = -1, fd, err, q;
	double ret = -1;
	__u64 all = 0;

	if (!skel || run_cmd("ethtool -L %s combined %d", nics[1], queues))
		goto out;
	skel->bss->any_frame = 1;
	link = xdp_link(bpf_program__fd(skel->progs.xsk_redirect), ifindex_of(nics[1]),
			XDP_FLAGS_DRV_MODE);
	if (link < 0)
		goto out;
	for (q = 0; q < queues; q++) {
		x[q] = xsk_rx_open(nics[1], q, true, &err);
		if (!x[q]) {
			fprintf(stderr, "igb zero-copy socket on queue %d: %s\n", q, strerror(-err));
			goto out;
		}
		fd = xsk_rx_fd(x[q]);
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.xsks), &(__u32){ q }, &fd, BPF_ANY))
			goto out;
	}
	if (wait_running(nics[1], 10000))
		goto out;
	ret = pktgen_rate(nics[0], nics[1], 256, NULL, x, queues);
	for (q = 0; q < queues; q++)
		all += skel->bss->seen[q];
	for (q = 0; q < queues; q++)
		fprintf(stderr, "igb zero-copy, %d queues: queue %d saw %.0f%% of the frames\n",
			queues, q, all ? 100.0 * skel->bss->seen[q] / all : 0);
out:
	for (q = 0; q < IGB_QUEUES; q++)
		xsk_rx_close(x[q]);
	if (link >= 0)
		close(link);
	xsk_redirect__destroy(skel);
	run_cmd("ethtool -L %s combined %d 2>/dev/null", nics[1], IGB_QUEUES);
	return ret;
}

static int redirect(void)
{
	char igb[3][16];

	if (veth_pair("rdt0", "rdp0") || veth_pair("rdt1", "rdp1"))
		return 1;
	printf("devmap_redirect_ns.array %.1f\n", devmap_redirect_ns(false, false));
	printf("devmap_redirect_ns.hash %.1f\n", devmap_redirect_ns(true, false));
	printf("devmap_redirect_ns.broadcast %.1f\n", devmap_redirect_ns(false, true));
	printf("xsk_redirect_ns %.1f\n", xsk_redirect_ns());
	printf("xsk_rx_per_s %.0f\n", xsk_rx_per_s());
	if (igb_ports(igb)) {
		fprintf(stderr, "no igb rows: the guest has no three igb NICs up\n");
		return 0;
	}
	printf("igb_devmap_per_s %.0f\n", igb_devmap_per_s(igb));
	printf("igb_xsk_zc_per_s.1 %.0f\n", igb_xsk_zc_per_s(igb, 1));
	printf("igb_xsk_zc_per_s.2 %.0f\n", igb_xsk_zc_per_s(igb, 2));
	return 0;
}

/* xdp_perf and tc_perf with more and more other programs attached. */
static int perf(void)
{
	static struct xdp_count *other[MAX_OTHERS];
	static struct tc_pass *other_tc[MAX_OTHERS];
	struct tc_pass *tested_tc;
	struct xdp_pass *tested;
	int n = 0, i, link;
	char dev[16];

	if (want_fds(16 * MAX_OTHERS) || dummy_devs("bd", MAX_OTHERS))
		return 1;
	tested = xdp_pass__open_and_load();
	tested_tc = tc_pass__open_and_load();
	if (!tested || !tested_tc)
		return 1;
	for (i = 0; i < (int)(sizeof(others) / sizeof(others[0])); i++) {
		for (; n < others[i]; n++) {
			/* the links stay, and keep the programs, until exit */
			other[n] = xdp_count__open_and_load();
			other_tc[n] = tc_pass__open_and_load();
			if (!other[n] || !other_tc[n])
				return 1;
			snprintf(dev, sizeof(dev), "bd%d", n);
			link = xdp_link(bpf_program__fd(other[n]->progs.xdp_count),
					ifindex_of(dev), XDP_FLAGS_SKB_MODE);
			if (link < 0 || tcx_link(bpf_program__fd(other_tc[n]->progs.tc_pass),
						 ifindex_of(dev), false) < 0)
				return 1;
		}
		printf("xdp_perf_ns.%d %.1f\n", n,
		       test_run_ns(bpf_program__fd(tested->progs.xdp_pass), 100000));
		printf("tc_perf_ns.%d %.1f\n", n,
		       test_run_ns(bpf_program__fd(tested_tc->progs.tc_pass), 100000));
	}
	return 0;
}

/* The kernel's ns/run of @prog_fd on @ctx (no packet), median of SAMPLES. */
static double test_run_ctx_ns(int prog_fd, void *ctx, size_t ctx_size, uint32_t repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = ctx, .ctx_size_in = ctx_size,
		    .repeat = repeat);
	double v[SAMPLES];
	int i;

	if (warm_up(prog_fd, &opts))
		return -1;
	for (i = 0; i < SAMPLES; i++) {
		if (bpf_prog_test_run_opts(prog_fd, &opts))
			return -1;
		v[i] = opts.duration;
	}
	return median(v, SAMPLES);
}

/* UDP datagrams per second to 127.0.0.1:8000, steered to a socket on 7000. */
static double sk_lookup_udp_per_s(struct sk_lookup_steer *skel)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(8000),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in at = to;
	int rx, tx, key = 1, link, netns;
	uint64_t n = 0, start, end;
	char buf[64] = "steered";
	__u64 fd;

	at.sin_port = htons(7000);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	netns = open("/proc/self/ns/net", O_RDONLY);
	if (rx < 0 || tx < 0 || netns < 0 || bind(rx, (void *)&at, sizeof(at)))
		return -1;
	fd = rx;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.socks), &key, &fd, BPF_ANY))
		return -1;
	link = bpf_link_create(bpf_program__fd(skel->progs.sk_steer), netns, BPF_SK_LOOKUP, NULL);
	if (link < 0)
		return -1;
	start = now_ns();
	end = start + 2000000000ull;
	do {
		if (sendto(tx, buf, sizeof(buf), 0, (void *)&to, sizeof(to)) != sizeof(buf) ||
		    recv(rx, buf, sizeof(buf), 0) != sizeof(buf))
			return -1;
		n++;
	} while (n % 64 || now_ns() < end);
	end = now_ns();
	close(link);
	close(netns);
	close(rx);
	close(tx);
	return n * 1e9 / (end - start);
}

/* Frames per second out of nk0 (primary), counted by its program. */
static double netkit_frames_per_s(void)
{
	struct netkit_count *skel = netkit_count__open_and_load();
	const long frames = 20000;
	uint64_t start;
	long sent;
	int link;

	if (!skel || netkit_pair("nkb0", "nkb1", -1) || link_up("nkb0") || link_up("nkb1"))
		return -1;
	link = netkit_link(bpf_program__fd(skel->progs.nk_count), ifindex_of("nkb0"), false);
	if (link < 0)
		return -1;
	start = now_ns();
	sent = send_frames("nkb0", frames, 0, &skel->bss->frames, 256);
	if (sent != frames || wait_counter(&skel->bss->frames, frames, 5000) != (__u64)frames)
		return -1;
	return frames * 1e9 / (now_ns() - start);
}

/* The other hooks with a dispatcher: flow dissector, sk_lookup, netkit. */
static int hooks(void)
{
	struct flow_dissector_count *fd = flow_dissector_count__open_and_load();
	struct sk_lookup_steer *sl = sk_lookup_steer__open();
	struct bpf_sk_lookup ctx = { .family = AF_INET, .protocol = IPPROTO_UDP,
				     .remote_ip4 = htonl(INADDR_LOOPBACK),
				     .local_ip4 = htonl(INADDR_LOOPBACK),
				     .remote_port = htons(40000), .local_port = 9 };
	unsigned char frame[TEST_FRAME_LEN];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
		    .data_size_in = sizeof(frame), .repeat = 100000);
	double v[SAMPLES];
	int i;

	if (!fd || !sl)
		return 1;
	sl->rodata->port_lo = 8000;
	sl->rodata->port_hi = 8999;
	if (sk_lookup_steer__load(sl))
		return 1;
	test_frame(frame, 0, 0);
	if (warm_up(bpf_program__fd(fd->progs.fd_count), &opts))
		return 1;
	for (i = 0; i < SAMPLES; i++) {
		if (bpf_prog_test_run_opts(bpf_program__fd(fd->progs.fd_count), &opts))
			return 1;
		v[i] = opts.duration;
	}
	printf("flow_dissector_perf_ns %.1f\n", median(v, SAMPLES));
	printf("sk_lookup_perf_ns %.1f\n",
	       test_run_ctx_ns(bpf_program__fd(sl->progs.sk_steer), &ctx, sizeof(ctx), 100000));
	printf("sk_lookup_udp_per_s %.0f\n", sk_lookup_udp_per_s(sl));
	printf("netkit_frames_per_s %.0f\n", netkit_frames_per_s());
	return 0;
}

#define SCALE_MAX	50000
#define SCALE_SAMPLES	21
/* After the samples: the work items they armed (gap, trim, profiles). */
#define SCALE_WORK_MS	10000
/* How long a set takes to settle: the update gap, a profile, under TCG. */
#define SCALE_SETTLE_MS	60000

/* XDP_PASS, loaded from instructions: no ELF, no maps, a program a time. */
static int load_pass(void)
{
	static const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "scale_pass", "GPL", insns, 2, NULL);

	if (fd < 0)
		diag("loading an XDP program: %s", strerror(-fd));
	return fd;
}

/* The kprobes of dispatcher_time on the functions this kernel has. */
static struct dispatcher_time *time_probes(void)
{
	struct dispatcher_time *dt = dispatcher_time__open();
	struct bpf_program *prog;

	if (!dt)
		return NULL;
	bpf_object__for_each_program(prog, dt->obj) {
		const char *sec = bpf_program__section_name(prog);

		if (!kallsyms_has(strchr(sec, '/') + 1))
			bpf_program__set_autoload(prog, false);
	}
	if (dispatcher_time__load(dt) || dispatcher_time__attach(dt)) {
		diag("cannot load or attach the kprobes of dispatcher_time");
		dispatcher_time__destroy(dt);
		return NULL;
	}
	return dt;
}

/* Until the xdp dispatcher's update count stays put for 3 s: its image bytes. */
static long settle(void)
{
	uint64_t deadline = now_ns() + SCALE_SETTLE_MS * 1000000ull, still = 0;
	struct dispatcher_state st;
	unsigned long updates = ~0ul;
	long bytes = -1;

	if (!dispatcher_present())
		return sleep(3), -1;
	while (now_ns() < deadline && still < 3000000000ull) {
		if (dispatcher_read("xdp", &st))
			return -1;
		still = st.updates == updates ? still + 500000000ull : 0;
		updates = st.updates;
		bytes = st.image_size;
		dispatcher_state_free(&st);
		usleep(500000);
	}
	return bytes;
}

static void print_time(const char *name, int n, const struct func_time *before,
		       const struct func_time *after)
{
	__u64 calls = after->calls - before->calls;

	if (calls)
		printf("%s.%d %.0f max %llu calls %llu\n", name, n,
		       (double)(after->total_ns - before->total_ns) / calls,
		       (unsigned long long)after->max_ns, (unsigned long long)calls);
}

/*
 * The mutexes' holds (lock_hold.bpf.c): RTNL and the XDP dispatcher's,
 * whose struct begins with its mutex. Where the kernel has no such
 * dispatcher (upstream keeps it too: bpf_dispatcher_xdp), RTNL only.
 */
static struct lock_hold *lock_probes(void)
{
	unsigned long rtnl, disp;
	struct lock_hold *lh;

	if (kallsyms_addrs("rtnl_mutex", &rtnl, 1) != 1) {
		diag("no rtnl_mutex in /proc/kallsyms");
		return NULL;
	}
	if (kallsyms_addrs("bpf_dispatcher_xdp", &disp, 1) != 1)
		disp = 0;
	lh = lock_hold__open();
	if (!lh)
		return NULL;
	lh->rodata->locks[LOCK_RTNL] = rtnl;
	lh->rodata->locks[LOCK_DISPATCHER] = disp;
	if (lock_hold__load(lh) || lock_hold__attach(lh)) {
		diag("cannot load or attach the kprobes of lock_hold");
		lock_hold__destroy(lh);
		return NULL;
	}
	return lh;
}

static void print_holds(const char *name, int n, struct lock_hold *lh, int lock)
{
	__u32 nr = lh->bss->nr_holds[lock], kept = nr < MAX_HOLDS ? nr : MAX_HOLDS, i;
	static double v[MAX_HOLDS];
	double max = 0;

	for (i = 0; i < kept; i++) {
		v[i] = lh->bss->holds[lock][i];
		max = v[i] > max ? v[i] : max;
	}
	if (kept)
		printf("%s.%d %.0f max %.0f holds %u\n", name, n, median(v, kept), max, nr);
}

static int scale(int argc, char **argv)
{
	static int sizes[8] = { 1000, 10000 };
	static int fds[SCALE_MAX + SCALE_SAMPLES], links[SCALE_MAX];
	double att[SCALE_SAMPLES], det[SCALE_SAMPLES], att_max;
	int n = 0, s, i, probe_dev, nsizes = 2, max;
	struct func_time before[NR_FUNCS];
	struct dispatcher_time *dt;
	struct lock_hold *lh;
	char dev[16];
	uint64_t t;

	if (argc > 0) {
		for (nsizes = 0; nsizes < argc && nsizes < 8; nsizes++) {
			sizes[nsizes] = atoi(argv[nsizes]);
			if (sizes[nsizes] < 1 || sizes[nsizes] > SCALE_MAX ||
			    (nsizes && sizes[nsizes] <= sizes[nsizes - 1])) {
				fprintf(stderr, "scale: sizes rise, from 1 to %d\n", SCALE_MAX);
				return 2;
			}
		}
	}
	max = sizes[nsizes - 1];
	/* kallsyms_addrs() sets kptr_restrict through knob_set(). */
	if (knobs_init())
		return 1;
	if (want_fds(2 * (max + SCALE_SAMPLES) + 64) || dummy_devs("sc", max + 1))
		return 1;
	snprintf(dev, sizeof(dev), "sc%d", max);
	probe_dev = ifindex_of(dev);
	dt = time_probes();
	lh = lock_probes();
	if (!dt || !lh)
		return 1;
	for (i = 0; i < max + SCALE_SAMPLES; i++) {
		fds[i] = load_pass();
		if (fds[i] < 0)
			return 1;
	}
	for (s = 0; s < nsizes; s++) {
		int from = n;

		t = now_ns();
		for (; n < sizes[s]; n++) {
			snprintf(dev, sizeof(dev), "sc%d", n);
			links[n] = xdp_link(fds[n], ifindex_of(dev), XDP_FLAGS_SKB_MODE);
			if (links[n] < 0)
				return 1;
		}
		printf("scale_fill_ns.%d %.0f\n", n, (double)(now_ns() - t) / (n - from));
		printf("scale_image_bytes.%d %ld\n", n, settle());
		memcpy(before, dt->bss->times, sizeof(before));
		dt->bss->times[CHANGE].max_ns = dt->bss->times[UPDATE].max_ns = 0;
		memset(lh->bss->nr_holds, 0, sizeof(lh->bss->nr_holds));
		att_max = 0;
		for (i = 0; i < SCALE_SAMPLES; i++) {
			int link;

			t = now_ns();
			link = xdp_link(fds[max + i], probe_dev, XDP_FLAGS_SKB_MODE);
			if (link < 0)
				return 1;
			att[i] = now_ns() - t;
			att_max = att[i] > att_max ? att[i] : att_max;
			t = now_ns();
			close(link);
			det[i] = now_ns() - t;
		}
		/* The work items' holds too, but no debugfs reader's. */
		usleep(SCALE_WORK_MS * 1000);
		print_holds("scale_rtnl_ns", n, lh, LOCK_RTNL);
		print_holds("scale_mutex_ns", n, lh, LOCK_DISPATCHER);
		settle();
		printf("scale_attach_ns.%d %.0f max %.0f\n", n, median(att, SCALE_SAMPLES), att_max);
		printf("scale_detach_ns.%d %.0f\n", n, median(det, SCALE_SAMPLES));
		print_time("scale_change_ns", n, &before[CHANGE], &dt->bss->times[CHANGE]);
		print_time("scale_publish_ns", n, &before[UPDATE], &dt->bss->times[UPDATE]);
	}
	for (i = 0; i < n; i++)
		close(links[i]);
	dispatcher_time__destroy(dt);
	lock_hold__destroy(lh);
	knobs_restore();
	return 0;
}

#define CHAIN_TX	"cb0"
#define CHAIN_RX	"cb1"
#define CHAIN_MAX	64
#define CHAIN_LIBXDP_MAX 10	/* libxdp's dispatcher has 10 slots */
#define CHAIN_TAIL_MAX	32	/* MAX_TAIL_CALL_CNT is 33, the root's included */
static const int chain_sizes[] = { 1, 2, 8, 32, 64 };

/*
 * Frames per second the XDP programs of CHAIN_RX run: after a second of
 * warm-up, the median of RATE_SAMPLES one-second counts. 0 if none ran.
 */
static double chain_pps(void)
{
	double v[RATE_SAMPLES];
	long long a, b;
	uint64_t t0, t1;
	int i;

	usleep(1000000);
	for (i = 0; i < RATE_SAMPLES; i++) {
		t0 = now_ns();
		a = xdp_packets(CHAIN_RX);
		usleep(1000000);
		b = xdp_packets(CHAIN_RX);
		t1 = now_ns();
		if (a < 0 || b < 0)
			return -1;
		v[i] = (b - a) * 1e9 / (t1 - t0);
	}
	return median(v, RATE_SAMPLES);
}

static int chain_print(const char *how, int n, double pps)
{
	if (pps <= 0) {
		diag("%s, %d programs: no frames ran through them", how, n);
		return -1;
	}
	printf("xdp_chain_pps.%s.%d %.0f\n", how, n, pps);
	return 0;
}

#if HAVE_XDP_MPROG
/*
 * BPF_XDP_NATIVE links: N - 1 xdp_pass and xdp_drop, in that order. 1
 * where the kernel refuses the first (a kernel without the attach).
 */
static int chain_mprog(int n)
{
	struct bpf_link *links[CHAIN_MAX] = {};
	struct bpf_program *progs[CHAIN_MAX];
	struct xdp_pass *pass[CHAIN_MAX] = {};
	struct xdp_drop *drop = xdp_drop__open_and_load();
	int ifindex = ifindex_of(CHAIN_RX), i, err = -1;

	for (i = 0; drop && i < n - 1; i++) {
		pass[i] = xdp_pass__open_and_load();
		if (!pass[i])
			goto out;
		progs[i] = pass[i]->progs.xdp_pass;
	}
	if (!drop)
		goto out;
	progs[n - 1] = drop->progs.xdp_drop;
	for (i = 0; i < n; i++) {
		links[i] = bpf_program__attach_xdp_mprog(progs[i], ifindex, NULL);
		if (!links[i]) {
			if (!i) {
				diag("mprog: the kernel refuses BPF_XDP_NATIVE (%m): no mprog rows");
				err = 1;
			}
			goto out;
		}
	}
	err = chain_print("mprog", n, chain_pps());
out:
	if (err < 0)
		diag("mprog, %d programs: loading or attaching failed: %m", n);
	for (i = 0; i < n; i++) {
		bpf_link__destroy(links[i]);
		xdp_pass__destroy(pass[i]);
	}
	xdp_drop__destroy(drop);
	return err;
}
#else
/* Built on a uapi without the attach: no mprog rows, as a kernel without it. */
static int chain_mprog(int n)
{
	diag("mprog: SKIP %s: no mprog rows", XDP_MPROG_MISSING);
	return 1;
}
#endif

/* xdp-loader, as an operator runs it: the passers, then the dropper after them. */
static int chain_libxdp(int n)
{
	const char *build = getenv("BUILD");
	char cmd[4096];
	int i, len, err;

	if (!build)
		return -1;
	len = snprintf(cmd, sizeof(cmd), "xdp-loader load -m native -P 10 %s", CHAIN_RX);
	for (i = 0; i < n - 1; i++)
		len += snprintf(cmd + len, sizeof(cmd) - len, " %s/progs/xdp_pass.bpf.o", build);
	if ((n > 1 && run_cmd("%s >/dev/null", cmd)) ||
	    run_cmd("xdp-loader load -m native -P 20 %s %s/progs/xdp_drop.bpf.o >/dev/null",
		    CHAIN_RX, build))
		err = -1;
	else
		err = 0;
	if (!err)
		err = chain_print("libxdp", n, chain_pps());
	run_cmd("xdp-loader unload --all %s >/dev/null", CHAIN_RX);
	return err;
}

/* Load a root tail-calling the first of n members, each the next; the last drops. */
static int chain_tail_load(struct xdp_tail_chain *root, struct xdp_tail_chain **m, int n)
{
	int chain, i, fd;

	bpf_program__set_autoload(root->progs.xdp_tail_member, false);
	if (xdp_tail_chain__load(root))
		return -1;
	chain = bpf_map__fd(root->maps.chain);
	for (i = 0; i < n; i++) {
		m[i] = xdp_tail_chain__open();
		if (!m[i])
			return -1;
		m[i]->rodata->next = i + 1;
		bpf_program__set_autoload(m[i]->progs.xdp_tail_root, false);
		if (bpf_map__reuse_fd(m[i]->maps.chain, chain) || xdp_tail_chain__load(m[i]))
			return -1;
		fd = bpf_program__fd(m[i]->progs.xdp_tail_member);
		if (bpf_map_update_elem(chain, &i, &fd, BPF_ANY))
			return -1;
	}
	return 0;
}

static int chain_tail(int n)
{
	struct xdp_tail_chain *root = xdp_tail_chain__open(), *m[CHAIN_MAX] = {};
	int link = -1, i, err = -1;

	if (root && !chain_tail_load(root, m, n))
		link = xdp_link(bpf_program__fd(root->progs.xdp_tail_root), ifindex_of(CHAIN_RX),
				XDP_FLAGS_DRV_MODE);
	if (link >= 0) {
		err = chain_print("tail", n, chain_pps());
		close(link);
	} else {
		diag("tail, %d programs: loading or attaching failed: %m", n);
	}
	for (i = 0; i < n; i++)
		xdp_tail_chain__destroy(m[i]);
	xdp_tail_chain__destroy(root);
	return err;
}

/* N XDP programs on one device, each way the kernel allows. */
static int chains(void)
{
	unsigned int s;
	bool mprog = true;
	int pg, err = 0;

	if (veth_pair(CHAIN_TX, CHAIN_RX))
		return 1;
	pg = pktgen_start(CHAIN_TX, CHAIN_RX);
	if (pg < 0)
		return 1;
	for (s = 0; s < sizeof(chain_sizes) / sizeof(chain_sizes[0]) && !err; s++) {
		int n = chain_sizes[s], r;

		if (n <= CHAIN_LIBXDP_MAX)
			err |= chain_libxdp(n);
		if (n <= CHAIN_TAIL_MAX)
			err |= chain_tail(n);
		if (mprog) {
			r = chain_mprog(n);
			mprog = r == 0;
			err |= r < 0;
		}
	}
	pktgen_stop(pg);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "redirect"))
		return redirect();
	if (!strcmp(mode, "xdp-perf"))
		return perf();
	if (!strcmp(mode, "scale"))
		return scale(argc - 2, argv + 2);
	if (!strcmp(mode, "chains"))
		return chains();
	if (*mode) {
		fprintf(stderr, "usage: dispatcher_bench [xdp-perf|redirect|scale [N...]|chains]\n");
		return 2;
	}
	return updates() || perf() || hooks();
}
