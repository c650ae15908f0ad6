/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Eight XDP programs, slots 0 to 7 of one device's chain, each with its
 * own set of the actions after which the next program runs (libxdp's
 * chain_call_actions, the kernel's next_actions), and the action each
 * returns for a test frame of each kind (the frame's tag, 0 to 3). For
 * xdp_verdict.bpf.c, built once per slot, and the test that drives them
 * through libxdp's dispatcher and through the kernel's chain alike.
 */
#ifndef XDP_VERDICT_H
#define XDP_VERDICT_H

#define VERDICT_SLOTS	8
#define VERDICT_KINDS	4

#define VERDICT_A	(1 << XDP_ABORTED)
#define VERDICT_D	(1 << XDP_DROP)
#define VERDICT_P	(1 << XDP_PASS)
#define VERDICT_T	(1 << XDP_TX)

/* Each slot's set: constants, for the BPF side's run config. */
#define VERDICT_NEXT_0	VERDICT_P		/* libxdp's default */
#define VERDICT_NEXT_1	(VERDICT_P | VERDICT_D)
#define VERDICT_NEXT_2	VERDICT_D
#define VERDICT_NEXT_3	(VERDICT_P | VERDICT_T)
#define VERDICT_NEXT_4	(VERDICT_P | VERDICT_A)
#define VERDICT_NEXT_5	(VERDICT_T | VERDICT_D)
#define VERDICT_NEXT_6	(VERDICT_P | VERDICT_D | VERDICT_T | VERDICT_A)
#define VERDICT_NEXT_7	(VERDICT_P | VERDICT_D | VERDICT_T | VERDICT_A)

#define VERDICT_PASTE(a, b)	a ## b
/* a ## b after a and b are expanded: VERDICT_CAT(xdp_verdict_, SLOT) */
#define VERDICT_CAT(a, b)	VERDICT_PASTE(a, b)
#define VERDICT_NEXT(slot)	VERDICT_CAT(VERDICT_NEXT_, slot)

/*
 * The action of slot s for a frame of kind k. Kind 0 goes through all
 * eight, the last program's XDP_DROP in its set: the hook's verdict is
 * XDP_PASS. Kind 1 stops at slot 2 (XDP_PASS outside its set), kind 2 at
 * slot 0 (XDP_DROP), kind 3 at slot 4, whose XDP_TX sends it back.
 */
#define VERDICT_ACTIONS {						\
	/* kind 0        kind 1        kind 2        kind 3 */		\
	{ XDP_PASS,     XDP_PASS,     XDP_DROP,     XDP_PASS },		\
	{ XDP_DROP,     XDP_PASS,     XDP_DROP,     XDP_DROP },		\
	{ XDP_DROP,     XDP_PASS,     XDP_DROP,     XDP_DROP },		\
	{ XDP_TX,       XDP_PASS,     XDP_DROP,     XDP_PASS },		\
	{ XDP_ABORTED,  XDP_PASS,     XDP_DROP,     XDP_TX },		\
	{ XDP_DROP,     XDP_PASS,     XDP_DROP,     XDP_PASS },		\
	{ XDP_TX,       XDP_PASS,     XDP_DROP,     XDP_PASS },		\
	{ XDP_DROP,     XDP_PASS,     XDP_DROP,     XDP_PASS },		\
}

#endif
