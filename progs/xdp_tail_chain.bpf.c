// SPDX-License-Identifier: GPL-2.0
/*
 * Several XDP programs on one device the way Katran and l3af chain them
 * on a kernel that runs one: a root program, the one attached, tail-calls
 * the first member of a program array, and each member, done, tail-calls
 * the next. A member with no successor drops the frame. One copy is
 * loaded per member, each with its own index; all share the array.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 64);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} chain SEC(".maps");

const volatile __u32 next;	/* this member's index + 1 */

SEC("xdp")
int xdp_tail_root(struct xdp_md *ctx)
{
	bpf_tail_call(ctx, &chain, 0);
	return XDP_DROP;
}

SEC("xdp")
int xdp_tail_member(struct xdp_md *ctx)
{
	bpf_tail_call(ctx, &chain, next);
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";
