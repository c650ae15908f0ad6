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

#endif
