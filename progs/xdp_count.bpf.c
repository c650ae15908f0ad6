// SPDX-License-Identifier: GPL-2.0
/* Counts test frames and drops them (or passes them, or sends them back
 * out of the device they came in by, if told to); every other frame
 * passes untouched.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "test_frame.h"

const volatile __u8 pass;	/* let test frames through after counting */
const volatile __u8 tx;		/* or send them back (XDP_TX) */
__u64 frames;

static __always_inline int count(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = (void *)(long)ctx->data;

	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(TEST_ETH_P))
		return XDP_PASS;
	__sync_fetch_and_add(&frames, 1);
	if (tx)
		return XDP_TX;
	return pass ? XDP_PASS : XDP_DROP;
}

SEC("xdp")
int xdp_count(struct xdp_md *ctx)
{
	return count(ctx);
}

/* The same for multi-buffer frames; loaded only when asked for. */
SEC("?xdp.frags")
int xdp_count_frags(struct xdp_md *ctx)
{
	return count(ctx);
}

char _license[] SEC("license") = "GPL";
