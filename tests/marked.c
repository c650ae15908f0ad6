// SPDX-License-Identifier: GPL-2.0
/* Many xdp_mark programs, each marking packets with its own number. */
#include <linux/if_link.h>
#include <stdio.h>
#include <unistd.h>

#include "tests.h"
#include "dispatcher.h"
#include "marked.h"

int marked_load(struct marked *m, int from, int to)
{
	int i;

	for (i = from; i < to; i++) {
		m[i].link = -1;
		m[i].skel = xdp_mark__open();
		if (!m[i].skel)
			return -1;
		m[i].skel->rodata->mark = i;
		if (xdp_mark__load(m[i].skel))
			return -1;
		m[i].id = prog_id(bpf_program__fd(m[i].skel->progs.xdp_mark));
	}
	return 0;
}

int marked_attach(struct marked *m, int from, int to, const char *prefix)
{
	char dev[16];
	int i;

	if (marked_load(m, from, to))
		return -1;
	for (i = from; i < to; i++) {
		snprintf(dev, sizeof(dev), "%s%d", prefix, i);
		m[i].link = xdp_link(bpf_program__fd(m[i].skel->progs.xdp_mark),
				     ifindex_of(dev), XDP_FLAGS_SKB_MODE);
		if (m[i].link < 0)
			return -1;
	}
	return 0;
}

void marked_free(struct marked *m, int n)
{
	while (n-- > 0) {
		if (m[n].link >= 0)
			close(m[n].link);
		xdp_mark__destroy(m[n].skel);
		m[n].skel = NULL;
		m[n].link = -1;
	}
}

int marked_run(const struct marked *m, uint32_t mark, uint32_t repeat)
{
	unsigned char in[TEST_FRAME_LEN], out[TEST_FRAME_LEN];
	uint32_t retval = 0;

	test_frame(in, 0x7e57, 0);
	if (xdp_test_run(bpf_program__fd(m->skel->progs.xdp_mark), in, sizeof(in), out,
			 repeat, &retval, NULL) ||
	    retval != XDP_TX || test_frame_mark(out) != mark) {
		diag("program %u: retval %u, mark %#x", mark, retval, test_frame_mark(out));
		return -1;
	}
	return 0;
}

struct netkit_count *netkit_count_load(int verdict)
{
	struct netkit_count *skel = netkit_count__open();

	if (!skel)
		return NULL;
	skel->rodata->verdict = verdict;
	if (netkit_count__load(skel)) {
		diag("loading netkit_count failed");
		netkit_count__destroy(skel);
		return NULL;
	}
	return skel;
}

int netkit_counts_load(struct netkit_count **progs, const int *verdicts, int n)
{
	int i;

	for (i = 0; i < n; i++)
		progs[i] = NULL;
	for (i = 0; i < n; i++) {
		progs[i] = netkit_count_load(verdicts[i]);
		if (!progs[i])
			return -1;
	}
	return 0;
}

void netkit_counts_free(struct netkit_count **progs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		netkit_count__destroy(progs[i]);
		progs[i] = NULL;
	}
}
