/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel knobs (sysctl, debugfs, tracefs files) written by the tests. */
#ifndef KNOB_H
#define KNOB_H

/* write(2) of @s to @path: stdio's append mode seeks, which tracefs refuses. */
int write_file(const char *path, const char *s);

/*
 * Write @value to the knob @path and, the first time, note the value it
 * had, so that knobs_restore() puts it back. The notes are in memory shared with the
 * process that called knobs_init() before forking the test: a test that
 * fails, crashes or is killed for its time still gets its knobs back.
 * 0, or -1 with a diag().
 */
int knob_set(const char *path, const char *value);

/* The runner's side: make the shared notes (once), and put back every
 * knob noted since the last call, the last noted first.
 */
int knobs_init(void);
void knobs_restore(void);

/*
 * Fault injection: let failslab and fail_page_alloc fail GFP_KERNEL and
 * order-0 requests, only where fail-nth says, quietly (knob_set(): until
 * the test ends). 0; 1 (with a diag()) if this kernel has no fail-nth;
 * -1 on error.
 */
int fault_setup(void);
/* Fail this thread's @nth allocation from now: the fd of its fail-nth. */
int fail_nth_arm(int nth);
/* Disarm @fd's count: 1 if it was never reached (no failure injected),
 * 0 if a failure was, -1 on error (with a diag()).
 */
int fail_nth_disarm(int fd);

#endif
