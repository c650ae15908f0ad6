// SPDX-License-Identifier: GPL-2.0
/*
 * Slot SLOT of xdp_verdict.h's chain: counts each test frame by its kind
 * (its tag), then returns the slot's action for that kind. Its set is in
 * the run config libxdp reads from the object (xdp-tools' XDP_RUN_CONFIG
 * layout: a member per action, 1 where the next program runs after it),
 * and its priority orders the slots; the test gives the kernel the same
 * set at attach. Every other frame passes untouched.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "test_frame.h"
#include "xdp_verdict.h"

#ifndef SLOT
#error "build once per slot, with -DSLOT=0 to 7"
#endif

#define NEXT		VERDICT_NEXT(SLOT)
#define IN_SET(act)	((NEXT >> (act)) & 1)
#define PROG		VERDICT_CAT(xdp_verdict_, SLOT)

struct {
	__uint(priority, 10 + SLOT);
	__uint(XDP_ABORTED, IN_SET(XDP_ABORTED));
	__uint(XDP_DROP, IN_SET(XDP_DROP));
	__uint(XDP_PASS, IN_SET(XDP_PASS));
	__uint(XDP_TX, IN_SET(XDP_TX));
	__uint(XDP_REDIRECT, IN_SET(XDP_REDIRECT));
} VERDICT_CAT(_, PROG) SEC(".xdp_run_config");

/* read-only data, not folded away: clang leaves an empty .rodata otherwise */
const volatile __u8 actions[VERDICT_SLOTS][VERDICT_KINDS] = VERDICT_ACTIONS;

__u64 frames[VERDICT_KINDS];

SEC("xdp")
int PROG(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = (void *)(long)ctx->data;
	__u32 *words = (void *)(eth + 1), kind;

	if ((void *)(words + TEST_WORD_TAG + 1) > data_end ||
	    eth->h_proto != bpf_htons(TEST_ETH_P))
		return XDP_PASS;
	kind = words[TEST_WORD_TAG];
	if (kind >= VERDICT_KINDS)
		return XDP_PASS;
	__sync_fetch_and_add(&frames[kind], 1);
	return actions[SLOT][kind];
}

char _license[] SEC("license") = "GPL";
