// SPDX-License-Identifier: GPL-2.0
/*
 * Time spent in the dispatcher's functions that run under d->mutex: a
 * change of the program set (called by the hooks under RTNL where they
 * hold it; it takes the mutex), the publishing of an image
 * (bpf_dispatcher_update(), the mutex held, called by a change or by the
 * work items; upstream's has the same name), and the profile's work item. Per
 * function: calls, total and largest ns, kprobe to kretprobe (the test
 * bed's kernels have no function tracer for fentry). Functions a kernel
 * lacks are not loaded (bench/dispatcher_bench.c).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "dispatcher_time.h"

struct func_time times[NR_FUNCS];

/*
 * Entry times by thread and function: a mutex may sleep and wake on
 * another CPU, and a set change calls the publish inside it.
 */
struct started_key {
	__u64 tid;
	__u64 func;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct started_key);
	__type(value, __u64);
} started SEC(".maps");

static void enter(int func)
{
	struct started_key key = { bpf_get_current_pid_tgid(), func };
	__u64 t = bpf_ktime_get_ns();

	bpf_map_update_elem(&started, &key, &t, BPF_ANY);
}

static void leave(int func)
{
	struct started_key key = { bpf_get_current_pid_tgid(), func };
	struct func_time *ft = &times[func];
	__u64 *t, ns;

	t = bpf_map_lookup_elem(&started, &key);
	if (!t)
		return;
	ns = bpf_ktime_get_ns() - *t;
	bpf_map_delete_elem(&started, &key);
	__sync_fetch_and_add(&ft->calls, 1);
	__sync_fetch_and_add(&ft->total_ns, ns);
	if (ns > ft->max_ns)
		ft->max_ns = ns;
}

/* A kprobe and a kretprobe on @sym, timing it as @func. */
#define TIMED(name, sym, func)				\
SEC("kprobe/" #sym)					\
int name##_enter(void *ctx)				\
{							\
	enter(func);					\
	return 0;					\
}							\
SEC("kretprobe/" #sym)					\
int name##_exit(void *ctx)				\
{							\
	leave(func);					\
	return 0;					\
}

TIMED(change, bpf_dispatcher_change_prog, CHANGE)
TIMED(update, bpf_dispatcher_update, UPDATE)
TIMED(profile, bpf_dispatcher_profile_work, PROFILE)

char _license[] SEC("license") = "GPL";
