// SPDX-License-Identifier: GPL-2.0
/*
 * The dispatcher in the mode the kernel was booted in: by default three
 * attached programs get an image with a direct jump each; booted with
 * bpf_dispatcher=off (make test boots once that way) the image never
 * exists, the programs are listed without direct jumps, and every test
 * run's result is the same.
 */
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests.h"
#include "dispatcher.h"
#include "xdp_mark.skel.h"

#define NPROGS 3

static bool booted_off(void)
{
	char cmdline[4096] = "";
	FILE *f = fopen("/proc/cmdline", "r");

	if (f) {
		if (!fgets(cmdline, sizeof(cmdline), f))
			cmdline[0] = '\0';
		fclose(f);
	}
	return strstr(cmdline, "bpf_dispatcher=off");
}

int test_dispatcher_mode(void)
{
	unsigned char in[TEST_FRAME_LEN], out[TEST_FRAME_LEN];
	struct xdp_mark *skels[NPROGS] = {};
	int links[NPROGS], n, i, ret = KSFT_FAIL;
	bool off = booted_off(), direct;
	struct dispatcher_state st = {};
	uint32_t retval;
	char dev[16];

	if (!dispatcher_present()) {
		diag("no %s: a kernel without this series' dispatcher", DISPATCHER_DEBUGFS);
		return KSFT_SKIP;
	}
	if (enter_netns() || dummy_devs("md", NPROGS))
		return KSFT_FAIL;
	for (n = 0; n < NPROGS; n++) {
		skels[n] = xdp_mark__open();
		if (!skels[n])
			goto out;
		skels[n]->rodata->mark = n;
		snprintf(dev, sizeof(dev), "md%d", n);
		if (xdp_mark__load(skels[n]))
			goto out;
		links[n] = xdp_link(bpf_program__fd(skels[n]->progs.xdp_mark), ifindex_of(dev),
				    XDP_FLAGS_SKB_MODE);
		if (links[n] < 0)
			goto out;
	}
	test_frame(in, 0x7e57, 0);
	for (i = 0; i < NPROGS; i++) {
		if (xdp_test_run(bpf_program__fd(skels[i]->progs.xdp_mark), in, sizeof(in), out,
				 101, &retval, NULL) ||
		    retval != XDP_TX || ((uint32_t *)(out + 14))[2] != (uint32_t)i) {
			diag("program %d: wrong result", i);
			goto out;
		}
	}
	if (dispatcher_read("xdp", &st))
		goto out;
	diag("booted with bpf_dispatcher=%s: image %lu bytes, %lu programs listed",
	     off ? "off" : "on", st.image_size, st.nr);
	if (st.progs != NPROGS || (off ? st.image_size != 0 : st.image_size == 0))
		goto out;
	for (i = 0; i < NPROGS; i++) {
		if (!dispatcher_lists(&st, prog_id(bpf_program__fd(skels[i]->progs.xdp_mark)),
				      &direct) || direct == off) {
			diag("program %d: %s", i, direct ? "a direct jump" : "no direct jump");
			goto out;
		}
	}
	ret = KSFT_PASS;
out:
	dispatcher_state_free(&st);
	while (n-- > 0) {
		if (skels[n] && links[n] >= 0)
			close(links[n]);
		xdp_mark__destroy(skels[n]);
	}
	return ret;
}
