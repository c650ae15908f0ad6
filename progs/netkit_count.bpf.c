// SPDX-License-Identifier: GPL-2.0
/*
 * A netkit or tcx program (SCHED_CLS, at BPF_NETKIT_PRIMARY or _PEER, or
 * BPF_TCX_INGRESS or _EGRESS) that counts test frames and returns this
 * copy's verdict (set before load): NETKIT_PASS and TCX_PASS (0) end the
 * hook's program list, NETKIT_NEXT and TCX_NEXT (-1) run the next program
 * too.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "test_frame.h"

const volatile int verdict;
__u64 frames;

SEC("tc")
int nk_count(struct __sk_buff *skb)
{
	void *data_end = (void *)(long)skb->data_end;
	struct ethhdr *eth = (void *)(long)skb->data;

	if ((void *)(eth + 1) <= data_end && eth->h_proto == bpf_htons(TEST_ETH_P))
		__sync_fetch_and_add(&frames, 1);
	return verdict;
}

char _license[] SEC("license") = "GPL";
