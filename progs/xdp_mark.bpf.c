// SPDX-License-Identifier: GPL-2.0
/*
 * Marks a test frame with this program's mark (set before load, so many
 * loaded copies are told apart), swaps the MAC addresses and sends it back.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "test_frame.h"

const volatile __u32 mark;
__u64 runs;

SEC("xdp")
int xdp_mark(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = (void *)(long)ctx->data;
	__u32 *payload = (void *)(eth + 1);
	unsigned char mac[ETH_ALEN];

	if ((void *)(payload + TEST_WORD_MARK + 1) > data_end ||
	    eth->h_proto != bpf_htons(TEST_ETH_P))
		return XDP_PASS;
	__sync_fetch_and_add(&runs, 1);
	payload[TEST_WORD_MARK] = mark;
	__builtin_memcpy(mac, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, mac, ETH_ALEN);
	return XDP_TX;
}

char _license[] SEC("license") = "GPL";
