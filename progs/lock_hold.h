/* SPDX-License-Identifier: GPL-2.0 */
/* What lock_hold.bpf.c records, shared with its reader. */
#ifndef LOCK_HOLD_H
#define LOCK_HOLD_H

/* The mutexes timed: RTNL, and the XDP dispatcher's set. */
enum { LOCK_RTNL, LOCK_DISPATCHER, NR_LOCKS };

/* Holds kept per lock, in order; the count goes on past it. */
#define MAX_HOLDS 4096

#endif
