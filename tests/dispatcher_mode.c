// SPDX-License-Identifier: GPL-2.0
/*
 * The dispatcher in the mode the kernel was booted in: by default three
 * attached programs get an image with a direct jump each; booted with
 * bpf_dispatcher=off (make test boots once that way) the image never
 * exists, the programs are listed without direct jumps, and every test
 * run's result is the same.
 */
#include "tests.h"
#include "dispatcher.h"
#include "marked.h"

#define NPROGS 3

int test_dispatcher_mode(void)
{
	struct marked m[NPROGS] = {};
	struct dispatcher_state st = {};
	bool off = dispatcher_booted_off(), direct;
	int i, ret = KSFT_FAIL;

	if (!dispatcher_present()) {
		diag("no %s: a kernel without this series' dispatcher", DISPATCHER_DEBUGFS);
		return KSFT_SKIP;
	}
	if (enter_netns() || dummy_devs("md", NPROGS) || marked_attach(m, 0, NPROGS, "md"))
		goto out;
	for (i = 0; i < NPROGS; i++)
		if (marked_run(&m[i], i, 101))
			goto out;
	if (dispatcher_read("xdp", &st))
		goto out;
	diag("booted with bpf_dispatcher=%s: image %lu bytes, %lu programs listed",
	     off ? "off" : "on", st.image_size, st.nr);
	if (st.progs != NPROGS || (off ? st.image_size != 0 : st.image_size == 0))
		goto out;
	for (i = 0; i < NPROGS; i++) {
		if (!dispatcher_lists(&st, m[i].id, &direct) || direct == off) {
			diag("program %d: %s", i, direct ? "a direct jump" : "no direct jump");
			goto out;
		}
	}
	ret = KSFT_PASS;
out:
	dispatcher_state_free(&st);
	marked_free(m, NPROGS);
	return ret;
}
