/* SPDX-License-Identifier: GPL-2.0 */
/* Counting calls of kernel functions with kprobes (tracefs kprobe_events). */
#ifndef KPROBE_H
#define KPROBE_H

#include <stdbool.h>

#include "knob.h"

#define TRACING "/sys/kernel/tracing"

/*
 * An enabled kprobe named @event at @target ("symbol" or "0xaddress"),
 * counting hits; 0, or -1 with a diag(). kprobe_hits() reads its count
 * (kprobe_profile), -1 if it is not there; kprobe_remove() disables and
 * deletes it.
 */
int kprobe_add(const char *event, const char *target);
long kprobe_hits(const char *event);
void kprobe_remove(const char *event);

/*
 * The addresses of every symbol @name in /proc/kallsyms (a static inline
 * function has a copy in each object that takes its address), at most
 * @max; how many, or -1. Needs kptr_restrict 0, which it sets (knob_set()).
 */
int kallsyms_addrs(const char *name, unsigned long *addrs, int max);

/*
 * [@start, @end) of function @name, or of its one compiler-made copy
 * (@name.isra.0, @name.constprop.0...): up to the next symbol above it;
 * a .cold part is not counted.
 * 0, or -1 with a diag() if there is no such function or more than one.
 * Sets kptr_restrict as kallsyms_addrs() does.
 */
int kallsyms_range(const char *name, unsigned long *start, unsigned long *end);

/*
 * Turn the kprobe optimizer off (it patches text itself, with
 * text_poke_bp, soon after a probe is registered) or on (knob_set()).
 */
int kprobes_optimize(bool on);

#endif
