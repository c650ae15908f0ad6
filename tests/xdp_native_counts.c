// SPDX-License-Identifier: GPL-2.0
/*
 * Native XDP sees real traffic: frames sent through a veth pair, through
 * the guest's two virtio-net NICs and through its two igb NICs (each pair
 * joined by QEMU) reach the receiver's XDP program in the driver's NAPI
 * path, and every one counts.
 */
#include <linux/if_link.h>
#include <unistd.h>

#include "tests.h"
#include "xdp_count.skel.h"

#define NFRAMES 1000
#define WINDOW 64	/* below the smallest rx ring on the path */

/* Attach xdp_count natively on @rx, send NFRAMES from @tx, count exactly. */
static int count_native(const char *tx, const char *rx)
{
	struct xdp_count *skel;
	int link, mode, ret = KSFT_FAIL;
	long sent;
	__u64 got;

	skel = xdp_count__open_and_load();
	TEST_ASSERT(skel, "loading xdp_count failed");
	link = xdp_link(bpf_program__fd(skel->progs.xdp_count), ifindex_of(rx),
			XDP_FLAGS_DRV_MODE);
	if (link < 0)
		goto out;
	mode = xdp_mode(ifindex_of(rx));
	if (mode != XDP_ATTACHED_DRV) {
		diag("%s: XDP attach mode %d, want native (%d)", rx, mode, XDP_ATTACHED_DRV);
		goto out_link;
	}
	/* igb resets itself for XDP: its link comes back a moment later */
	if (wait_running(tx, 10000) || wait_running(rx, 10000))
		goto out_link;
	sent = send_frames(tx, NFRAMES, 0x7e57, &skel->bss->frames, WINDOW);
	/* Exact: wait for the last frames, then make sure none come late. */
	got = wait_counter(&skel->bss->frames, NFRAMES, 5000);
	usleep(200000);
	got = skel->bss->frames;
	diag("%s -> %s: sent %ld, counted %llu by native XDP", tx, rx, sent,
	     (unsigned long long)got);
	if (sent == NFRAMES && got == NFRAMES)
		ret = KSFT_PASS;
out_link:
	close(link);
out:
	xdp_count__destroy(skel);
	return ret;
}

TEST_CASE(xdp_native_counts_veth, 0)
{
	if (enter_netns() || veth_pair("tx0", "rx0"))
		return KSFT_FAIL;
	return count_native("tx0", "rx0");
}

TEST_CASE(xdp_native_counts_virtio, 0)
{
	char nics[2][16];
	int err = virtio_net_pair(nics);

	if (err)
		return err > 0 ? KSFT_SKIP : KSFT_FAIL;
	return count_native(nics[0], nics[1]);
}

TEST_CASE(xdp_native_counts_igb, 0)
{
	char nics[2][16];
	int err = igb_pair(nics);

	if (err)
		return err > 0 ? KSFT_SKIP : KSFT_FAIL;
	return count_native(nics[0], nics[1]);
}
