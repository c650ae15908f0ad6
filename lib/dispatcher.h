/* SPDX-License-Identifier: GPL-2.0 */
/* The dispatcher as userspace sees it: its debugfs file, and many programs. */
#ifndef DISPATCHER_H
#define DISPATCHER_H

#include <stdbool.h>
#include <stdint.h>

#define DISPATCHER_DEBUGFS "/sys/kernel/debug/bpf_dispatcher"

struct dispatcher_prog {
	uint32_t id;
	bool direct;
};

struct dispatcher_state {
	char mode[8];			/* bpf_dispatcher=: "auto", "on", "off" */
	char images[8];			/* what it came to: "on" or "off" */
	unsigned long image_addr;	/* 0 where addresses are hidden */
	unsigned long image_size;
	unsigned long progs;
	unsigned long updates;
	unsigned long failed;
	char policy[32];		/* "tree" or "chain N" */
	/* what the last profile counted: calls, and switches between programs */
	unsigned long long profile_calls, profile_switches;
	unsigned long nr;		/* entries parsed */
	struct dispatcher_prog *entries;
	/* images of several programs of one hook (bpf_mprog) in the set */
	unsigned long mprogs;
};

/* Does this kernel have the series' dispatcher (its debugfs directory)? */
bool dispatcher_present(void);

/*
 * Are images off: by the mode (bpf_dispatcher=off at boot, or
 * kernel.bpf_dispatcher=off since), or because "auto" came to off (the
 * kernel's log says so: a CPU or a build whose indirect calls are not
 * thunked)? The kernel then keeps no program set.
 */
bool dispatcher_images_off(void);

/* Read kernel.bpf_dispatcher into @mode; 0, or -1 on a kernel without it. */
int dispatcher_mode_get(char *mode, size_t len);

/* Write kernel.bpf_dispatcher ("auto", "on", "off"); 0 or -1. */
int dispatcher_set_mode(const char *mode);

/* Parse /sys/kernel/debug/bpf_dispatcher/@name; 0 or -1. An absent file
 * (the dispatcher never used yet) reads as empty.
 */
int dispatcher_read(const char *name, struct dispatcher_state *st);
void dispatcher_state_free(struct dispatcher_state *st);

/* Is program @id listed, and with a direct jump? */
bool dispatcher_lists(const struct dispatcher_state *st, uint32_t id, bool *direct);

/*
 * Wait up to @ms for /sys/kernel/debug/bpf_dispatcher/@name to list exactly
 * the @n distinct programs of @ids. With @jumps, each also has a direct
 * jump from an image perf can name (bpf_dispatcher_@name in /proc/kallsyms).
 * With images off, it must list none and have no image. 0 if so; else -1,
 * with a diag() and the file's head.
 */
int dispatcher_expect(const char *name, const uint32_t *ids, int n, bool jumps, int ms);

/*
 * Does this kernel run a hook of several programs (tcx, netkit, sk_lookup,
 * XDP on bpf_mprog) through one image of them (series/6: its
 * bpf_mprog_image_update(), in /proc/kallsyms)? Not carried to 7.3: it
 * is being redesigned. Where it has not, the tests of those images skip
 * saying MPROG_IMAGES_MISSING, or leave their checks of them out.
 */
bool dispatcher_has_mprog_images(void);
#define MPROG_IMAGES_MISSING \
	"the kernel makes no image of a hook's several programs (series/6, being redesigned)"

/*
 * Wait up to @ms for the file of dispatcher @name to list exactly @n
 * multi-program images, each named @sym and each with a direct jump (with
 * images off, or on a kernel that makes none, none). 0 if so, or if this
 * kernel has no dispatcher; else -1, with a diag() and the file's head.
 */
int dispatcher_expect_mprogs(const char *name, const char *sym, int n, int ms);

/* Make @n dummy devices @prefix0..@prefix(n-1), up, with one ip -batch. */
int dummy_devs(const char *prefix, int n);

/* Raise RLIMIT_NOFILE so a test can hold @n descriptors. */
int want_fds(long n);

uint32_t prog_id(int prog_fd);

#endif
