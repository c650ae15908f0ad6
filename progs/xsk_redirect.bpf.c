// SPDX-License-Identifier: GPL-2.0
/*
 * Redirects test frames to AF_XDP sockets the way libxdp's default program
 * does, bpf_redirect_map(&xsks, rx_queue_index, XDP_PASS), or all of them
 * to one entry of the map, and counts them by receive queue.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "test_frame.h"

#define QUEUES 4

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

__s32 to = -1;		/* the entry every frame goes to; -1: its queue's */
__u8 any_frame;		/* every frame, not only test frames (pktgen's) */
__u64 seen[QUEUES];	/* test frames, by receive queue */

SEC("xdp")
int xsk_redirect(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = (void *)(long)ctx->data;
	__u32 q = ctx->rx_queue_index;

	if (!any_frame &&
	    ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(TEST_ETH_P)))
		return XDP_PASS;
	if (q < QUEUES)
		__sync_fetch_and_add(&seen[q], 1);
	return bpf_redirect_map(&xsks, to < 0 ? q : (__u32)to, XDP_PASS);
}

char _license[] SEC("license") = "GPL";
