/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test frame, for the BPF programs and the tests alike: an Ethernet
 * header of its own Ethertype (IEEE 802 local experimental 1: programs
 * count only these, so the kernel's own traffic, IPv6 ND..., never skews
 * a count), then 32-bit payload words: a tag, a sequence number, and the
 * word the marking programs write their mark into.
 */
#ifndef TEST_FRAME_H
#define TEST_FRAME_H

#define TEST_ETH_P	0x88b5

enum { TEST_WORD_TAG, TEST_WORD_SEQ, TEST_WORD_MARK };

#endif
