/* SPDX-License-Identifier: GPL-2.0 */
/* Many xdp_mark programs, each marking packets with its own number. */
#ifndef MARKED_H
#define MARKED_H

#include <stdint.h>

#include "xdp_mark.skel.h"
#include "netkit_count.skel.h"

struct marked {
	struct xdp_mark *skel;
	int link;		/* -1: not attached */
	uint32_t id;		/* the program's id */
};

/* Load programs @from .. @to - 1 into @m[], program i marking with i. */
int marked_load(struct marked *m, int from, int to);

/*
 * Load programs @from .. @to - 1 into @m[], program i marking with i,
 * and attach each in generic mode to the dummy device <prefix><i>
 * (made beforehand). 0, or -1 with the ones loaded still in @m[].
 */
int marked_attach(struct marked *m, int from, int to, const char *prefix);
void marked_free(struct marked *m, int n);

/* A test run of @m with @repeat: 0 if XDP_TX with @mark in the packet. */
int marked_run(const struct marked *m, uint32_t mark, uint32_t repeat);

/* A netkit_count program (tcx or netkit) returning @verdict, loaded; or NULL. */
struct netkit_count *netkit_count_load(int verdict);

/* @n of them into @progs[], program i returning @verdicts[i]: 0, or -1
 * with those loaded in @progs[] (the rest NULL); netkit_counts_free()
 * frees them either way.
 */
int netkit_counts_load(struct netkit_count **progs, const int *verdicts, int n);
void netkit_counts_free(struct netkit_count **progs, int n);

#endif
