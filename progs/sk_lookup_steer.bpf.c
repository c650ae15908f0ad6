// SPDX-License-Identifier: GPL-2.0
/*
 * An sk_lookup program that hands TCP and UDP lookups for the local ports
 * port_lo..port_hi to the sockets in socks (0: TCP, 1: UDP), and lets every
 * other lookup go on to the socket tables. It counts every lookup it sees
 * and every one it steered, so a loaded copy with an empty range (port_lo
 * above port_hi) is a counter that changes nothing.
 */
#include <linux/bpf.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>

const volatile __u16 port_lo;
const volatile __u16 port_hi;
__u64 lookups;
__u64 steered;

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} socks SEC(".maps");

SEC("sk_lookup")
int sk_steer(struct bpf_sk_lookup *ctx)
{
	struct bpf_sock *sk;
	__u32 key;
	long err;

	__sync_fetch_and_add(&lookups, 1);
	if (ctx->local_port < port_lo || ctx->local_port > port_hi)
		return SK_PASS;
	if (ctx->protocol == IPPROTO_TCP)
		key = 0;
	else if (ctx->protocol == IPPROTO_UDP)
		key = 1;
	else
		return SK_PASS;
	/* A steered port without its socket is refused, not left to the
	 * tables: a test sees the difference.
	 */
	sk = bpf_map_lookup_elem(&socks, &key);
	if (!sk)
		return SK_DROP;
	err = bpf_sk_assign(ctx, sk, 0);
	bpf_sk_release(sk);
	if (err)
		return SK_DROP;
	__sync_fetch_and_add(&steered, 1);
	return SK_PASS;
}

char _license[] SEC("license") = "GPL";
