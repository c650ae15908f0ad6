// SPDX-License-Identifier: GPL-2.0
/*
 * A flow dissector program that counts the test frames it is given and
 * hands every packet back to the kernel's own dissector, so that a
 * namespace with it attached hashes and steers packets as without it.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "test_frame.h"

__u64 frames;

SEC("flow_dissector")
int fd_count(struct __sk_buff *skb)
{
	struct bpf_flow_keys *keys = skb->flow_keys;

	if (keys->n_proto == bpf_htons(TEST_ETH_P))
		__sync_fetch_and_add(&frames, 1);
	return BPF_FLOW_DISSECTOR_CONTINUE;
}

char _license[] SEC("license") = "GPL";
