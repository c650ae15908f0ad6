// SPDX-License-Identifier: GPL-2.0
/*
 * dispatcher_steady_state: with the same programs attached, whatever the
 * traffic, the kernel patches no text. 64 XDP programs and test runs in
 * runs, at random, skewed to one and to two programs, a pattern a
 * second; once the set change's profiles are over, kprobes on the
 * functions every live text patch goes through (7.3's
 * smp_text_poke_batch_add(), which smp_text_poke_single() and the static
 * keys' queue call; text_poke_bp and text_poke_queue before 6.16) and on
 * __static_call_update count nothing for DISPATCHER_STEADY_SECONDS (20 s;
 * 600 for the long run). Then a program new to the set must be patched in
 * within 3 s.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests.h"
#include "dispatcher.h"
#include "kprobe.h"
#include "marked.h"

#define STEADY_PROGS 64
/* The set change's profiles: at 1, 3 and 7 s, 100 ms each, then none. */
#define SETTLE_S 12

/*
 * Each probe's function, by its name in 7.3 and before 6.16: then
 * text_poke_bp patched at once what smp_text_poke_single() now queues
 * through smp_text_poke_batch_add().
 */
static const char *const pokes[][2] = {
	{ "smp_text_poke_batch_add", "text_poke_queue" },
	{ NULL, "text_poke_bp" },
	{ "__static_call_update", "__static_call_update" },
};
#define NPOKES (sizeof(pokes) / sizeof(pokes[0]))

/* Which name of each probe this kernel has: 0, 1, or -1 for neither. */
static int probed[NPOKES];

static int poke_probe(size_t i)
{
	char name[64];
	int k;

	snprintf(name, sizeof(name), "steady_%zu", i);
	for (k = 0; k < 2; k++)
		if (pokes[i][k] && !kprobe_add(name, pokes[i][k]))
			return k;
	return -1;
}

static long pokes_read(void)
{
	char name[64];
	long n, total = 0;
	size_t i;

	for (i = 0; i < NPOKES; i++) {
		if (probed[i] < 0)
			continue;
		snprintf(name, sizeof(name), "steady_%zu", i);
		n = kprobe_hits(name);
		if (n < 0)
			return -1;
		total += n;
	}
	return total;
}

/* Test runs for @secs, the pattern changing every second; -1 on a wrong result. */
static int traffic(struct marked *m, int secs)
{
	uint64_t end = now_ns() + secs * 1000000000ull;
	unsigned int seed = 1;
	int k, i, pattern;

	while (now_ns() < end) {
		pattern = (now_ns() / 1000000000ull) % 4;
		for (k = 0; k < 100; k++) {
			switch (pattern) {
			case 0:
				i = (k / 25) % STEADY_PROGS;
				break;
			case 1:
				i = rand_r(&seed) % STEADY_PROGS;
				break;
			case 2:
				i = rand_r(&seed) % 5 ? 0 : rand_r(&seed) % STEADY_PROGS;
				break;
			default:
				i = rand_r(&seed) % 10;
				i = i < 5 ? 1 : i < 9 ? 0 : rand_r(&seed) % STEADY_PROGS;
			}
			/* repeat > 1 enters and leaves a program already in the set */
			if (marked_run(&m[i], i, k % 2 ? 1 : 16))
				return -1;
		}
	}
	return 0;
}

TEST_CASE(dispatcher_steady_state, 900)
{
	const char *env = getenv("DISPATCHER_STEADY_SECONDS");
	int secs = env ? atoi(env) : 20, ret = KSFT_FAIL;
	struct marked m[STEADY_PROGS + 1] = {};
	long before, after;
	char name[64];
	size_t i;

	for (i = 0; i < NPOKES; i++)
		probed[i] = -1;
	if (!dispatcher_present() || dispatcher_images_off()) {
		diag("no dispatcher images in this kernel: nothing that could patch text");
		return KSFT_SKIP;
	}
	if (enter_netns() || dummy_devs("sd", STEADY_PROGS + 1) ||
	    marked_attach(m, 0, STEADY_PROGS, "sd"))
		goto out;
	if (traffic(m, SETTLE_S))
		goto out;
	/* The optimizer patches text itself once a probe is registered. */
	if (kprobes_optimize(false))
		goto out;
	for (i = 0; i < NPOKES; i++) {
		probed[i] = poke_probe(i);
		/* text_poke_bp is the one a kernel with the new names lacks */
		if (probed[i] < 0 && !(i == 1 && probed[0] == 0))
			goto out;
	}
	before = pokes_read();
	if (traffic(m, secs))
		goto out;
	after = pokes_read();
	diag("%d programs, %d s of changing traffic after %d s: %ld text patches", STEADY_PROGS,
	     secs, SETTLE_S, after - before);
	if (before < 0 || after != before)
		goto out;
	/* A program new to the set is a change: it gets its jump, by text patching. */
	if (marked_attach(m, STEADY_PROGS, STEADY_PROGS + 1, "sd"))
		goto out;
	before = after;
	if (traffic(m, 3))
		goto out;
	after = pokes_read();
	diag("a program attached: %ld text patches within 3 s", after - before);
	if (after <= before)
		goto out;
	ret = KSFT_PASS;
out:
	for (i = 0; i < NPOKES; i++) {
		snprintf(name, sizeof(name), "steady_%zu", i);
		if (probed[i] >= 0)
			kprobe_remove(name);
	}
	kprobes_optimize(true);
	marked_free(m, STEADY_PROGS + 1);
	return ret;
}
