// SPDX-License-Identifier: GPL-2.0
/*
 * How long each of two mutexes is held, by any task: from mutex_lock()'s
 * return to mutex_unlock(). The locks are named by address, set before
 * load (rtnl_mutex, and the XDP dispatcher's mutex, the first member of
 * bpf_dispatcher_xdp, both from /proc/kallsyms); every hold is kept, up
 * to MAX_HOLDS a lock, for the reader's median and largest. A hold that
 * mutex_trylock() or a killable lock took is not seen.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "lock_hold.h"

const volatile __u64 locks[NR_LOCKS];
__u64 holds[NR_LOCKS][MAX_HOLDS];
__u32 nr_holds[NR_LOCKS];

/* A task's lock it is in mutex_lock() for, or that it holds since when. */
struct task_lock {
	__u64 tid;
	__u64 lock;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u64);
} locking SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct task_lock);
	__type(value, __u64);
} held SEC(".maps");

static int lock_index(__u64 lock)
{
	int i;

	for (i = 0; i < NR_LOCKS; i++) {
		if (locks[i] && locks[i] == lock)
			return i;
	}
	return -1;
}

SEC("kprobe/mutex_lock")
int BPF_KPROBE(lock_enter, void *lock)
{
	__u64 tid = bpf_get_current_pid_tgid(), l = (__u64)lock;

	if (lock_index(l) >= 0)
		bpf_map_update_elem(&locking, &tid, &l, BPF_ANY);
	return 0;
}

SEC("kretprobe/mutex_lock")
int BPF_KRETPROBE(lock_exit)
{
	__u64 tid = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns(), *l;
	struct task_lock key = { .tid = tid };

	l = bpf_map_lookup_elem(&locking, &tid);
	if (!l)
		return 0;
	key.lock = *l;
	bpf_map_delete_elem(&locking, &tid);
	bpf_map_update_elem(&held, &key, &now, BPF_ANY);
	return 0;
}

SEC("kprobe/mutex_unlock")
int BPF_KPROBE(unlock_enter, void *lock)
{
	struct task_lock key = { .tid = bpf_get_current_pid_tgid(), .lock = (__u64)lock };
	int i = lock_index(key.lock);
	__u64 *since, ns;
	__u32 n;

	if (i < 0 || i >= NR_LOCKS)
		return 0;
	since = bpf_map_lookup_elem(&held, &key);
	if (!since)
		return 0;
	ns = bpf_ktime_get_ns() - *since;
	bpf_map_delete_elem(&held, &key);
	/* Only the holder unlocks, one at a time: no atomic needed. */
	n = nr_holds[i]++;
	if (n < MAX_HOLDS)
		holds[i][n] = ns;
	return 0;
}

char _license[] SEC("license") = "GPL";
