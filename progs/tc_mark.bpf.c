// SPDX-License-Identifier: GPL-2.0
/*
 * tc programs that mark a test frame with this copy's mark (set before
 * load, so many loaded copies are told apart) and count it, then let it
 * go on: tc_mark for tcx and cls_bpf (direct action), act_mark for
 * act_bpf, and cls_match, a classifier that matches every packet so the
 * action runs.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "test_frame.h"

const volatile __u32 mark;
__u64 runs;

static __always_inline void mark_frame(struct __sk_buff *skb)
{
	void *data_end = (void *)(long)skb->data_end;
	struct ethhdr *eth = (void *)(long)skb->data;
	__u32 *payload = (void *)(eth + 1);

	if ((void *)(payload + TEST_WORD_MARK + 1) > data_end ||
	    eth->h_proto != bpf_htons(TEST_ETH_P))
		return;
	__sync_fetch_and_add(&runs, 1);
	payload[TEST_WORD_MARK] = mark;
}

SEC("tc")
int tc_mark(struct __sk_buff *skb)
{
	mark_frame(skb);
	return TC_ACT_OK;
}

SEC("action")
int act_mark(struct __sk_buff *skb)
{
	mark_frame(skb);
	return TC_ACT_OK;
}

SEC("tc")
int cls_match(struct __sk_buff *skb)
{
	return -1;	/* the filter's default class: its actions run */
}

char _license[] SEC("license") = "GPL";
