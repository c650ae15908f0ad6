/* SPDX-License-Identifier: GPL-2.0 */
/* What dispatcher_time.bpf.c counts, shared with its reader. */
#ifndef DISPATCHER_TIME_H
#define DISPATCHER_TIME_H

/* The functions timed: a set change, a publish, a profile's work item. */
enum { CHANGE, UPDATE, PROFILE, NR_FUNCS };

struct func_time {
	__u64 calls;
	__u64 total_ns;
	__u64 max_ns;
};

#endif
