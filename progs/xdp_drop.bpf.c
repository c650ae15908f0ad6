// SPDX-License-Identifier: GPL-2.0
/* Drops every frame: the last program of a chain the benchmark times. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_drop(struct xdp_md *ctx)
{
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";
