// SPDX-License-Identifier: GPL-2.0
/* Counting calls of kernel functions with kprobes (tracefs kprobe_events). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "knob.h"
#include "kprobe.h"
#include "testlib.h"

int kprobe_add(const char *event, const char *target)
{
	char line[256], path[256];

	snprintf(line, sizeof(line), "p:kprobes/%s %s\n", event, target);
	if (write_file(TRACING "/kprobe_events", line)) {
		diag("kprobe %s at %s refused: %m", event, target);
		return -1;
	}
	snprintf(path, sizeof(path), TRACING "/events/kprobes/%s/enable", event);
	if (write_file(path, "1")) {
		diag("kprobe %s at %s: enabling it failed: %m", event, target);
		kprobe_remove(event);
		return -1;
	}
	return 0;
}

long kprobe_hits(const char *event)
{
	char line[256], name[128];
	long hits = -1, n;
	FILE *f = fopen(TRACING "/kprobe_profile", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %ld", name, &n) == 2 && !strcmp(name, event))
			hits = n;
	if (f)
		fclose(f);
	return hits;
}

void kprobe_remove(const char *event)
{
	char line[256], path[256];

	snprintf(path, sizeof(path), TRACING "/events/kprobes/%s/enable", event);
	write_file(path, "0");
	snprintf(line, sizeof(line), "-:kprobes/%s\n", event);
	write_file(TRACING "/kprobe_events", line);
}

int kallsyms_addrs(const char *name, unsigned long *addrs, int max)
{
	char line[512], sym[256], type;
	unsigned long addr;
	int n = 0;
	FILE *f;

	if (knob_set("/proc/sys/kernel/kptr_restrict", "0"))
		return -1;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < max) {
		if (sscanf(line, "%lx %c %255s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name) && addr)
			addrs[n++] = addr;
	}
	fclose(f);
	return n;
}

int kprobes_optimize(bool on)
{
	return knob_set("/proc/sys/debug/kprobes-optimization", on ? "1" : "0");
}
