// SPDX-License-Identifier: GPL-2.0
/*
 * The dispatcher in the mode the kernel was booted in: by default three
 * attached programs get an image with a direct jump each; booted with
 * bpf_dispatcher=off (make test boots once that way), or where auto comes
 * to off (a kernel whose indirect calls are not thunked), the dispatcher
 * keeps no set, the image never exists, and every test run's result is
 * the same.
 */
#include <string.h>
#include <unistd.h>

#include "tests.h"
#include "dispatcher.h"
#include "marked.h"

#define NPROGS 3

TEST_CASE(dispatcher_mode, 0)
{
	struct marked m[NPROGS] = {};
	struct dispatcher_state st = {};
	bool off = dispatcher_images_off(), direct;
	int i, ret = KSFT_FAIL;
	uint64_t deadline;
	char mode[16];

	if (!dispatcher_present() || dispatcher_mode_get(mode, sizeof(mode))) {
		diag("no %s or kernel.bpf_dispatcher: a kernel without this series' dispatcher",
		     DISPATCHER_DEBUGFS);
		return KSFT_SKIP;
	}
	if (enter_netns() || dummy_devs("md", NPROGS) || marked_attach(m, 0, NPROGS, "md"))
		goto out;
	for (i = 0; i < NPROGS; i++)
		if (marked_run(&m[i], i, 101))
			goto out;
	/*
	 * Images are at least 50 ms apart (the update rate's gap): programs
	 * attached together get their jumps within it, not at once.
	 */
	deadline = now_ns() + 2000000000ull;
	do {
		dispatcher_state_free(&st);
		if (dispatcher_read("xdp", &st))
			goto out;
		for (i = 0; i < NPROGS; i++)
			if (!dispatcher_lists(&st, m[i].id, &direct) || !direct)
				break;
		if (off || i == NPROGS)
			break;
		usleep(20000);
	} while (now_ns() < deadline);
	diag("booted with bpf_dispatcher=%s, images %s: the file says mode %s images %s; image %lu bytes, %lu programs listed",
	     mode, off ? "off" : "on", st.mode, st.images, st.image_size, st.nr);
	if (strcmp(st.mode, mode) || strcmp(st.images, off ? "off" : "on"))
		goto out;
	if (st.progs != (off ? 0 : NPROGS) || (off ? st.image_size != 0 : st.image_size == 0))
		goto out;
	for (i = 0; i < NPROGS && !off; i++) {
		if (!dispatcher_lists(&st, m[i].id, &direct) || !direct) {
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
