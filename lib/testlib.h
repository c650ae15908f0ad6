/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the tests and the benchmarks that run in the guest:
 * devices, real traffic through them, and messages.
 */
#ifndef TESTLIB_H
#define TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include <linux/bpf.h>

#include "test_frame.h"	/* progs/: TEST_ETH_P, the payload words */

/*
 * Several XDP programs on a device through bpf_mprog (series/7: the attach
 * types BPF_XDP_NATIVE and BPF_XDP_GENERIC, next_actions, several programs
 * replaced in one step; libbpf's bpf_program__attach_xdp_mprog() and its
 * opts' .xdp): HAVE_XDP_MPROG is 1 where the tree the test bed builds on
 * has it. Its uapi and its libbpf come from one tree (make libbpf), so
 * the uapi says for both, by XDP_NEXT_ACTIONS: the one macro series/7
 * adds to it (the rest are enum constants and fields, which the
 * preprocessor cannot see). Not carried to 7.3: it is being redesigned
 * with a new uapi, and this #ifdef is the one place to name that uapi
 * then. Without it, the code that uses it is compiled out, and its tests
 * and benchmark rows skip saying XDP_MPROG_MISSING.
 */
#ifdef XDP_NEXT_ACTIONS
#define HAVE_XDP_MPROG	1
#else
#define HAVE_XDP_MPROG	0
#endif
#define XDP_MPROG_MISSING "the kernel's uapi has no multi-program XDP (series/7, being redesigned)"

#define TEST_FRAME_LEN	64
#define TEST_FRAME_MAX	9014

/* Diagnostics go to stdout as TAP comment lines. */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Run a shell command line (glue: ip, tc); 0 on success, else diag()s it. */
int run_cmd(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Create a veth pair (both ends up) or a dummy device; 0 on success. */
int veth_pair(const char *a, const char *b);
int dummy_dev(const char *name);
int link_up(const char *name);
/*
 * Wait up to @ms for @name's carrier (IFF_LOWER_UP and IFF_RUNNING): 0, or
 * -1 with a diag(). A NIC's link comes up some time after it is set up,
 * and again after an XDP attach resets it (igb).
 */
int wait_running(const char *name, int ms);
int ifindex_of(const char *name);

/*
 * Send @count test frames out of @ifname through an AF_PACKET socket,
 * each carrying @tag and its sequence number. When @counter is given, keep
 * at most @window frames in flight beyond *@counter (a counter the
 * receiving XDP program bumps), so no ring overflows and counts stay
 * exact. Returns the number of frames sent, or -1.
 */
long send_frames(const char *ifname, long count, uint32_t tag,
		 volatile __u64 *counter, long window);
/* The same with @len-byte frames (TEST_FRAME_LEN to TEST_FRAME_MAX). */
long send_frames_len(const char *ifname, long count, uint32_t tag, size_t len,
		     volatile __u64 *counter, long window);

/*
 * Send @frames test frames out of @dev, wait @settle_us, and check that
 * each of the @n counters (*counters[i], named names[i]) rose by exactly
 * the frames sent if bit i of @mask is set, else not at all. 0 if so;
 * else -1, with a diag() per wrong counter, prefixed with @what.
 */
int frames_counted(const char *what, const char *dev, long frames, unsigned int settle_us,
		   volatile __u64 *const *counters, const char *const *names, int n,
		   unsigned int mask);

/*
 * pktgen (its thread kpktgend_0) sending 64-byte UDP frames out of @dev
 * to the MAC address of device @dst, as fast as it can, until
 * pktgen_stop(): returns the pid of the process that runs it, or -1.
 */
int pktgen_start(const char *dev, const char *dst);
/* The same from @flows source addresses at random (0: one), for RSS. */
int pktgen_start_flows(const char *dev, const char *dst, int flows);
void pktgen_stop(int pid);

/* Frames the XDP programs of @dev have run on (ethtool's *xdp_packets), or -1. */
long long xdp_packets(const char *dev);

/* Wait up to @ms for *@counter to reach @want; returns its final value. */
__u64 wait_counter(volatile __u64 *counter, uint64_t want, int ms);

uint64_t now_ns(void);

/* Attach an XDP program with a BPF link in @flags' mode (XDP_FLAGS_DRV_MODE,
 * XDP_FLAGS_SKB_MODE); returns the link fd (closing it detaches), or -1.
 */
int xdp_link(int prog_fd, int ifindex, uint32_t flags);

/* The XDP_ATTACHED_* mode of @ifindex's program, or -1. */
int xdp_mode(int ifindex);

/* A test frame: broadcast destination, source 02:00:00:00:00:01,
 * TEST_ETH_P, payload words tag and sequence.
 */
void test_frame(void *buf, uint32_t tag, uint32_t seq);
/* The mark a marking program (xdp_mark, tc_mark) wrote into test frame @buf. */
uint32_t test_frame_mark(const void *buf);

/*
 * BPF_PROG_TEST_RUN of an XDP program on a @len-byte packet: returns 0 and
 * fills *@retval, *@duration_ns (per run, the kernel's figure) and @out
 * (at least @len bytes) when given; -errno on failure.
 */
int xdp_test_run(int prog_fd, const void *in, uint32_t len, void *out,
		 uint32_t repeat, uint32_t *retval, uint32_t *duration_ns);

/*
 * BPF_PROG_TEST_RUN in live-frames mode (BPF_F_TEST_XDP_LIVE_FRAMES): the
 * packet is run @repeat times and what the program redirects or transmits
 * really leaves. Returns 0 and fills *@duration_ns (per run) when given;
 * -errno on failure.
 */
int xdp_test_run_live(int prog_fd, const void *in, uint32_t len,
		      uint32_t repeat, uint32_t *duration_ns);
/* The same as if received on queue @queue of device @ifindex. */
int xdp_test_run_live_rxq(int prog_fd, const void *in, uint32_t len, uint32_t repeat,
			  int ifindex, uint32_t queue, uint32_t *duration_ns);

/* tcx: a link on @ifindex's ingress or egress; its fd, or -1. */
int tcx_link(int prog_fd, int ifindex, bool ingress);

/* tcx without a link (BPF_PROG_ATTACH), replacing @replace_fd's program if
 * it is not -1; detach names the program, or with -1 takes the last one.
 */
int tcx_attach(int prog_fd, int ifindex, bool ingress, int replace_fd);
int tcx_detach(int prog_fd, int ifindex, bool ingress);

/* cls_bpf in direct-action mode (the clsact qdisc is made once): filter
 * @handle at priority 1, replacing the program @handle runs if @replace.
 */
int cls_bpf_attach(int prog_fd, int ifindex, bool ingress, uint32_t handle,
		   bool replace);
int cls_bpf_detach(int ifindex, bool ingress, uint32_t handle);

/* act_bpf: a cls_bpf filter (preference 2) running classifier @cls_fd,
 * with action program @act_fd, made by tc(8) on pinned programs.
 */
int act_bpf_attach(int cls_fd, int act_fd, const char *dev, bool ingress);
int act_bpf_detach(const char *dev, bool ingress);

/*
 * A netkit pair in L2 mode, both ends with the pass policy, down: @primary
 * here, @peer in the netns of @peer_ns_fd (-1: here). 0, -EOPNOTSUPP on a
 * kernel without netkit, or -1.
 */
int netkit_pair(const char *primary, const char *peer, int peer_ns_fd);

/*
 * netkit programs, named by the primary device's @ifindex: at the primary
 * (the primary's transmit runs them) or, with @peer, at the peer (the
 * peer's transmit). As for tcx: a link (its fd, or -1); an attach without
 * a link, replacing @replace_fd's program if it is not -1; a detach of
 * @prog_fd's program, or with -1 the last one's.
 */
int netkit_link(int prog_fd, int ifindex, bool peer);
int netkit_attach(int prog_fd, int ifindex, bool peer, int replace_fd);
int netkit_detach(int prog_fd, int ifindex, bool peer);

/*
 * A new network namespace with lo up, which the calling thread enters:
 * returns its fd (which keeps it alive), or -1. netns_enter() goes back
 * to one (0 or -1).
 */
int netns_new(void);
int netns_enter(int fd);

/* Names of @driver's network devices, sorted; returns how many (at most @max). */
int driver_devs(const char *driver, char names[][16], int max);
/*
 * The first two virtio-net (or igb) NICs, joined to each other by QEMU,
 * up: 0; 1 (with a diag()) where the guest has no two; -1 on error.
 */
int virtio_net_pair(char nics[2][16]);
int igb_pair(char nics[2][16]);

/*
 * An AF_XDP socket bound to queue @queue of @ifname, in copy mode or
 * zero-copy, its fill ring stocked; NULL with -errno in *@err (-EOPNOTSUPP:
 * the driver has no zero-copy). xsk_rx_take() takes what it received
 * (counting in *@wrong the frames that are not @tag's test frames) and
 * gives the buffers back; xsk_rx_wait() does so until @want arrived or
 * @ms passed. Both return the frames taken, or -1.
 */
struct xsk_rx;
struct xsk_rx *xsk_rx_open(const char *ifname, __u32 queue, bool zero_copy, int *err);
/* The same in copy mode with a Tx ring and no Rx ring (its fill ring stocked). */
struct xsk_rx *xsk_tx_only_open(const char *ifname, __u32 queue, int *err);
long xsk_rx_take(struct xsk_rx *x, uint32_t tag, long *wrong);
long xsk_rx_wait(struct xsk_rx *x, uint32_t tag, long want, int ms, long *wrong);
int xsk_rx_fd(const struct xsk_rx *x);
void xsk_rx_close(struct xsk_rx *x);

/* Does /proc/kallsyms hold @sym (exact name)? */
bool kallsyms_has(const char *sym);

#endif
