// SPDX-License-Identifier: GPL-2.0
/*
 * The dispatcher chooses its shape from the traffic it sees: with 48
 * programs attached, predictable calls (long runs of one program) keep the
 * tree with a direct jump to every program; calls interleaved at random
 * over all of them get the plain indirect call (a chain of none, no
 * image); calls of which 80% go to one program get a chain of that one,
 * 50% and 40% to two a chain of those two.
 * The dispatcher looks at its traffic only after its program set changes,
 * so each pattern starts with one: the last program replaced by a fresh
 * copy. Every call's result stays right whatever the shape.
 *
 * A profile window (HZ / 10) counts at least 256 calls or says nothing,
 * so the interleaved patterns run each program they pick twice in a test
 * run, twice the calls for a syscall: a slow guest (the debug kernel
 * under TCG) still fills its windows. Halving the switches keeps each
 * pattern on the same side of the policy's bounds (48 programs, a tree
 * of 6 levels; kernel/bpf/dispatcher_policy.c): switches * 24 against
 * calls * 5 to leave the tree and * 3 to take it back, where random picks
 * switch 0.49 a call, the 80% program's traffic 0.18 and the two hot
 * programs' 0.30.
 */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "dispatcher.h"
#include "marked.h"

#define NPROGS 48

static struct marked m[NPROGS];

/* One test run of program @i with @repeat; -1 if its result is wrong. */
static int run(int i, uint32_t repeat)
{
	return marked_run(&m[i], i, repeat);
}

enum traffic { PREDICTABLE, RANDOM, SKEWED, TWO_HOT };

/* Calls of each pick in the interleaved patterns (see above). */
#define PICK_RUNS	2
/* Calls a second below which no profile window counts enough of them. */
#define PROFILE_RATE	(256 * 10)

/* drive()'s verdict where the guest ran too few calls a second to profile. */
#define TOO_SLOW	1

/*
 * Drive @traffic until the debugfs file says @policy, @direct_ok holds
 * for every program, and a profile has counted some calls; 0 if so
 * within @secs, TOO_SLOW if not and the calls were too slow for a
 * profile window to count, -1 otherwise.
 */
static int drive(enum traffic traffic, const char *policy,
		 bool (*direct_ok)(int i, bool direct), int secs)
{
	uint64_t start = now_ns(), deadline = start + secs * 1000000000ull;
	struct dispatcher_state st = {};
	unsigned long rounds = 0, calls = 0, rate;
	unsigned int seed = 1;
	int i, k;

	while (now_ns() < deadline) {
		rounds++;
		for (k = 0; k < 200; k++) {
			switch (traffic) {
			case PREDICTABLE:
				i = (k / 50) % NPROGS;	/* runs of 50 calls */
				if (run(i, 64))
					return -1;
				calls += 64;
				continue;
			case RANDOM:
				i = rand_r(&seed) % NPROGS;
				break;
			case SKEWED:
				i = rand_r(&seed) % 5 ? 0 : 1 + rand_r(&seed) % (NPROGS - 1);
				break;
			case TWO_HOT:
				/*
				 * 50% program 1, 40% program 0, 10% others: the
				 * chain, hottest first, is [1, 0], against the
				 * order of their addresses (loaded 0 first).
				 */
				i = rand_r(&seed) % 10;
				i = i < 5 ? 1 : i < 9 ? 0 : 2 + rand_r(&seed) % (NPROGS - 2);
				break;
			}
			if (run(i, PICK_RUNS))
				return -1;
			calls += PICK_RUNS;
		}
		dispatcher_state_free(&st);
		if (dispatcher_read("xdp", &st))
			return -1;
		if (strcmp(st.policy, policy))
			continue;
		for (i = 0; i < NPROGS; i++) {
			bool direct = false;

			if (!dispatcher_lists(&st, m[i].id, &direct) || !direct_ok(i, direct))
				break;
		}
		if (i == NPROGS) {
			diag("policy %s, image %lu bytes", st.policy, st.image_size);
			dispatcher_state_free(&st);
			return 0;
		}
	}
	/*
	 * A profile window (HZ / 10) that counts fewer calls than the policy
	 * needs is quiet and changes nothing: say how fast the traffic went.
	 */
	rate = calls * 1000000000ull / (now_ns() - start);
	diag("want policy %s; the file says policy %s, image %lu bytes; its last profile counted %llu calls, %llu switches; %lu calls a second here (%lu test runs)",
	     policy, st.policy, st.image_size, st.profile_calls, st.profile_switches,
	     rate, rounds * 200);
	dispatcher_state_free(&st);
	return rate < PROFILE_RATE ? TOO_SLOW : -1;
}

/* A program new to the image: the dispatcher profiles the traffic again. */
static int change_set(void)
{
	marked_free(&m[NPROGS - 1], 1);
	return marked_attach(m, NPROGS - 1, NPROGS, "qd");
}

static bool all_direct(int i, bool direct)
{
	return direct;
}

static bool none_direct(int i, bool direct)
{
	return !direct;
}

static bool first_direct(int i, bool direct)
{
	return direct == (i == 0);
}

static bool first_two_direct(int i, bool direct)
{
	return direct == (i < 2);
}

TEST_CASE(dispatcher_policy, 300)
{
	int ret = KSFT_FAIL, err;

	if (!dispatcher_present()) {
		diag("no %s: a kernel without this series' dispatcher", DISPATCHER_DEBUGFS);
		return KSFT_SKIP;
	}
	if (enter_netns() || dummy_devs("qd", NPROGS) || marked_attach(m, 0, NPROGS, "qd"))
		goto out;
	err = drive(PREDICTABLE, "tree", all_direct, 30) ?:
	      change_set() ?: drive(RANDOM, "chain 0", none_direct, 30) ?:
	      change_set() ?: drive(SKEWED, "chain 1", first_direct, 30) ?:
	      change_set() ?: drive(TWO_HOT, "chain 2", first_two_direct, 30) ?:
	      change_set() ?: drive(PREDICTABLE, "tree", all_direct, 30);
	if (err == TOO_SLOW) {
		diag("fewer than %d calls a second: every profile window is quiet here",
		     PROFILE_RATE);
		ret = KSFT_SKIP;
	} else if (!err) {
		ret = KSFT_PASS;
	}
out:
	marked_free(m, NPROGS);
	return ret;
}
