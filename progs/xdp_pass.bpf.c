// SPDX-License-Identifier: GPL-2.0
/* The smallest XDP program: what xdp_perf times, the call and nothing else. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
