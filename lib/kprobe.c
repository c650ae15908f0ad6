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

/* /proc/kallsyms with its addresses shown (kptr_restrict 0); NULL on error. */
static FILE *kallsyms_open(void)
{
	if (knob_set("/proc/sys/kernel/kptr_restrict", "0"))
		return NULL;
	return fopen("/proc/kallsyms", "r");
}

/* The next symbol of @f with an address: 1, or 0 at the end. */
static int kallsyms_next(FILE *f, unsigned long *addr, char *type, char sym[256])
{
	char line[512];

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %255s", addr, type, sym) == 3 && *addr)
			return 1;
	}
	return 0;
}

int kallsyms_addrs(const char *name, unsigned long *addrs, int max)
{
	char sym[256], type;
	unsigned long addr;
	int n = 0;
	FILE *f = kallsyms_open();

	if (!f)
		return -1;
	while (n < max && kallsyms_next(f, &addr, &type, sym)) {
		if (!strcmp(sym, name))
			addrs[n++] = addr;
	}
	fclose(f);
	return n;
}

int kallsyms_range(const char *name, unsigned long *start, unsigned long *end)
{
	size_t len = strlen(name);
	char sym[256], type;
	unsigned long addr;
	int found = 0;
	FILE *f = kallsyms_open();

	if (!f)
		return -1;
	*start = 0;
	*end = ~0UL;
	while (kallsyms_next(f, &addr, &type, sym)) {
		if (!strncmp(sym, name, len) && (!sym[len] || sym[len] == '.') &&
		    !strstr(sym + len, ".cold") && (type == 't' || type == 'T')) {
			found++;
			*start = addr;
		}
	}
	/* Not sorted past the core kernel's text: take the least above. */
	if (found == 1) {
		rewind(f);
		while (kallsyms_next(f, &addr, &type, sym)) {
			if (addr > *start && addr < *end)
				*end = addr;
		}
	}
	fclose(f);
	if (found != 1 || *end == ~0UL) {
		diag("%s: %d functions of that name in /proc/kallsyms, want one", name, found);
		return -1;
	}
	return 0;
}

int kprobes_optimize(bool on)
{
	return knob_set("/proc/sys/debug/kprobes-optimization", on ? "1" : "0");
}
