// SPDX-License-Identifier: GPL-2.0
/*
 * The dispatcher's set follows the attached set under churn (a seeded
 * random sequence of attach, detach and replace, one program on many
 * devices too), and stays correct while threads attach and detach, others
 * run test runs and real traffic crosses a veth pair.
 */
#include <linux/if_link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "tests.h"
#include "dispatcher.h"
#include "xdp_count.skel.h"
#include "xdp_mark.skel.h"

#define POOL 8		/* programs */
#define DEVS 16		/* dummy devices they attach to */

struct pool {
	struct xdp_mark *skel[POOL];
	int fd[POOL];
	uint32_t id[POOL];
};

static int pool_load(struct pool *p)
{
	int i;

	for (i = 0; i < POOL; i++) {
		p->skel[i] = xdp_mark__open();
		if (!p->skel[i])
			return -1;
		p->skel[i]->rodata->mark = 0x100 + i;
		if (xdp_mark__load(p->skel[i]))
			return -1;
		p->fd[i] = bpf_program__fd(p->skel[i]->progs.xdp_mark);
		p->id[i] = prog_id(p->fd[i]);
	}
	return 0;
}

static void pool_free(struct pool *p)
{
	int i;

	for (i = 0; i < POOL; i++)
		xdp_mark__destroy(p->skel[i]);
}

/* The dispatcher lists exactly the programs in use by @links. */
static int same_set_now(const struct pool *p, const int *links, const int *prog_of, int ndevs,
			bool quiet)
{
	struct dispatcher_state st;
	bool used[POOL] = {};
	int i, nused = 0, ret = 0;

	for (i = 0; i < ndevs; i++)
		if (links[i] >= 0 && !used[prog_of[i]]) {
			used[prog_of[i]] = true;
			nused++;
		}
	if (dispatcher_read("xdp", &st))
		return -1;
	if (st.nr != (unsigned long)nused)
		ret = -1;
	for (i = 0; i < POOL; i++)
		if (used[i] != dispatcher_lists(&st, p->id[i], NULL))
			ret = -1;
	if (ret && !quiet)
		diag("debugfs lists %lu programs, %d attached", st.nr, nused);
	dispatcher_state_free(&st);
	return ret;
}

/* The same, allowing a second for a detach still in flight. */
static int same_set(const struct pool *p, const int *links, const int *prog_of, int ndevs)
{
	int tries;

	for (tries = 0; tries < 50; tries++) {
		if (!same_set_now(p, links, prog_of, ndevs, true))
			return 0;
		usleep(20000);
	}
	return same_set_now(p, links, prog_of, ndevs, false);
}

TEST_CASE(dispatcher_churn, 600)
{
	int links[DEVS], prog_of[DEVS], i, op, ret = KSFT_FAIL;
	int ops = getenv("CHURN_OPS") ? atoi(getenv("CHURN_OPS")) : 10000;
	unsigned int seed = getenv("SEED") ? strtoul(getenv("SEED"), NULL, 0) : (unsigned int)now_ns();
	int nattach = 0, ndetach = 0, nreplace = 0;
	uint64_t t0 = now_ns();
	struct pool p = {};
	char dev[16];

	if (!dispatcher_present()) {
		diag("no %s: a kernel without this series' dispatcher", DISPATCHER_DEBUGFS);
		return KSFT_SKIP;
	}
	diag("seed %u (SEED=%u reproduces), %d operations", seed, seed, ops);
	srand(seed);
	if (enter_netns() || dummy_devs("cd", DEVS) || pool_load(&p))
		goto out;
	for (i = 0; i < DEVS; i++)
		links[i] = -1;

	for (op = 1; op <= ops; op++) {
		int d = rand() % DEVS, prog = rand() % POOL;

		if (links[d] < 0) {
			snprintf(dev, sizeof(dev), "cd%d", d);
			links[d] = xdp_link(p.fd[prog], ifindex_of(dev), XDP_FLAGS_SKB_MODE);
			if (links[d] < 0)
				goto out;
			prog_of[d] = prog;
			nattach++;
		} else if (rand() % 2) {
			close(links[d]);
			links[d] = -1;
			ndetach++;
		} else {
			if (bpf_link_update(links[d], p.fd[prog], NULL)) {
				diag("op %d: link update: %m", op);
				goto out;
			}
			prog_of[d] = prog;
			nreplace++;
		}
		if ((op % 500 == 0 || op == ops) && same_set(&p, links, prog_of, DEVS)) {
			diag("op %d: the dispatcher's set is not the attached set", op);
			goto out;
		}
	}
	diag("%d attach, %d detach, %d replace in %.1f s; sets equal at every check",
	     nattach, ndetach, nreplace, (now_ns() - t0) / 1e9);
	ret = KSFT_PASS;
out:
	for (i = 0; i < DEVS; i++)
		if (links[i] >= 0)
			close(links[i]);
	pool_free(&p);
	return ret;
}

/* --- concurrency --- */

#define ATTACHERS 4
#define RUNNERS 2
#define DEVS_PER_ATTACHER 4

static struct pool cpool;
static atomic_bool stop;
static atomic_long errors, test_runs, attach_ops;

static void *attacher(void *arg)
{
	int base = (long)arg * DEVS_PER_ATTACHER, links[DEVS_PER_ATTACHER], i;
	unsigned int seed = base + 1;
	char dev[16];

	for (i = 0; i < DEVS_PER_ATTACHER; i++)
		links[i] = -1;
	while (!atomic_load(&stop)) {
		i = rand_r(&seed) % DEVS_PER_ATTACHER;
		if (links[i] >= 0) {
			close(links[i]);
			links[i] = -1;
		} else {
			snprintf(dev, sizeof(dev), "pd%d", base + i);
			links[i] = xdp_link(cpool.fd[rand_r(&seed) % POOL], ifindex_of(dev),
					    XDP_FLAGS_SKB_MODE);
			if (links[i] < 0)
				atomic_fetch_add(&errors, 1);
		}
		atomic_fetch_add(&attach_ops, 1);
	}
	for (i = 0; i < DEVS_PER_ATTACHER; i++)
		if (links[i] >= 0)
			close(links[i]);
	return NULL;
}

static void *runner(void *arg)
{
	unsigned char in[TEST_FRAME_LEN], out[TEST_FRAME_LEN];
	unsigned int seed = (long)arg + 100;
	uint32_t retval;

	test_frame(in, 0x7e57, 0);
	while (!atomic_load(&stop)) {
		int i = rand_r(&seed) % POOL;

		if (xdp_test_run(cpool.fd[i], in, sizeof(in), out, 2 + rand_r(&seed) % 8,
				 &retval, NULL) ||
		    retval != XDP_TX || test_frame_mark(out) != 0x100u + i) {
			diag("test run of program %d: wrong result", i);
			atomic_fetch_add(&errors, 1);
		}
		atomic_fetch_add(&test_runs, 1);
	}
	return NULL;
}

TEST_CASE(dispatcher_churn_concurrent, 300)
{
	pthread_t attachers[ATTACHERS], runners[RUNNERS];
	int secs = getenv("CONCURRENCY_SECONDS") ? atoi(getenv("CONCURRENCY_SECONDS")) : 10;
	struct xdp_count *counter = NULL;
	int link = -1, ret = KSFT_FAIL;
	uint64_t deadline;
	long frames = 0, i;

	if (!dispatcher_present()) {
		diag("no %s: a kernel without this series' dispatcher", DISPATCHER_DEBUGFS);
		return KSFT_SKIP;
	}
	if (enter_netns() || dummy_devs("pd", ATTACHERS * DEVS_PER_ATTACHER) ||
	    veth_pair("tx0", "rx0") || pool_load(&cpool))
		goto out;
	counter = xdp_count__open_and_load();
	if (!counter)
		goto out;
	link = xdp_link(bpf_program__fd(counter->progs.xdp_count), ifindex_of("rx0"),
			XDP_FLAGS_DRV_MODE);
	if (link < 0)
		goto out;

	for (i = 0; i < ATTACHERS; i++)
		pthread_create(&attachers[i], NULL, attacher, (void *)i);
	for (i = 0; i < RUNNERS; i++)
		pthread_create(&runners[i], NULL, runner, (void *)i);
	/* This thread sends real traffic meanwhile, paced on the receiver. */
	deadline = now_ns() + secs * 1000000000ull;
	while (now_ns() < deadline) {
		long sent = send_frames("tx0", 256, 0x7e57, &counter->bss->frames, 64);

		if (sent != 256)
			break;
		frames += sent;
	}
	atomic_store(&stop, true);
	for (i = 0; i < ATTACHERS; i++)
		pthread_join(attachers[i], NULL);
	for (i = 0; i < RUNNERS; i++)
		pthread_join(runners[i], NULL);
	wait_counter(&counter->bss->frames, frames, 5000);
	usleep(200000);

	diag("%d s: %ld attach/detach, %ld test runs, %ld errors; %ld frames sent, %llu counted",
	     secs, atomic_load(&attach_ops), atomic_load(&test_runs), atomic_load(&errors),
	     frames, (unsigned long long)counter->bss->frames);
	if (!atomic_load(&errors) && frames > 0 && counter->bss->frames == (uint64_t)frames)
		ret = KSFT_PASS;
	close(link);
	link = -1;
	/* Only the counter was left in; now nothing is. */
	if (ret == KSFT_PASS && same_set(&cpool, (int []){ -1 }, (int []){ 0 }, 1))
		ret = KSFT_FAIL;
out:
	if (link >= 0)
		close(link);
	xdp_count__destroy(counter);
	pool_free(&cpool);
	return ret;
}
