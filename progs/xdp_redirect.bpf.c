// SPDX-License-Identifier: GPL-2.0
/*
 * Redirects test frames through an array or a hash devmap, to one entry or
 * to all (broadcast), and counts the redirect errors the kernel reports by
 * errno, and what the devmap flush hands the drivers.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "test_frame.h"

#define MAX_ERRNO 128

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 8);
} tx_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 8);
} tx_hash SEC(".maps");

const volatile __u8 use_hash;
const volatile __u64 redirect_flags;	/* BPF_F_BROADCAST... */

__u32 key;		/* the unicast target */
__u8 any_frame;		/* every frame, not only test frames (pktgen's) */
__u64 seen;		/* test frames redirected */
__u64 multi_buffer;	/* of which with frags */
__u64 errors[MAX_ERRNO];	/* xdp_redirect_err events, by -err */
__u64 xmit_sent, xmit_drops;	/* xdp_devmap_xmit: what the flush handed */

static __always_inline int redirect(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = (void *)(long)ctx->data;

	if (!any_frame &&
	    ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(TEST_ETH_P)))
		return XDP_PASS;
	__sync_fetch_and_add(&seen, 1);
	if (bpf_xdp_get_buff_len(ctx) > (__u64)(data_end - (void *)eth))
		__sync_fetch_and_add(&multi_buffer, 1);
	if (use_hash)
		return bpf_redirect_map(&tx_hash, key, redirect_flags);
	return bpf_redirect_map(&tx_array, key, redirect_flags);
}

SEC("xdp")
int xdp_redirect(struct xdp_md *ctx)
{
	return redirect(ctx);
}

/* The same for multi-buffer frames; loaded only when asked for. */
SEC("?xdp.frags")
int xdp_redirect_frags(struct xdp_md *ctx)
{
	return redirect(ctx);
}

/* xdp_redirect_err(dev, xdp, tgt, err, map_type, map_id, index) */
SEC("raw_tp/xdp_redirect_err")
int count_redirect_err(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 err = -(int)ctx->args[3];

	if (err >= MAX_ERRNO)
		err = 0;	/* not an errno: counted apart */
	/* Hide the test from clang, so the mask the verifier needs stays. */
	asm volatile("" : "+r"(err));
	__sync_fetch_and_add(&errors[err & (MAX_ERRNO - 1)], 1);
	return 0;
}

/* xdp_devmap_xmit(from_dev, to_dev, sent, drops, err) */
SEC("raw_tp/xdp_devmap_xmit")
int count_devmap_xmit(struct bpf_raw_tracepoint_args *ctx)
{
	__sync_fetch_and_add(&xmit_sent, (int)ctx->args[2]);
	__sync_fetch_and_add(&xmit_drops, (int)ctx->args[3]);
	return 0;
}

char _license[] SEC("license") = "GPL";
