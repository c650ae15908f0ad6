// SPDX-License-Identifier: GPL-2.0
/* XDP attach and BPF_PROG_TEST_RUN wrappers on libbpf. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "testlib.h"

int xdp_link(int prog_fd, int ifindex, uint32_t flags)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = flags);
	int fd;

	fd = bpf_link_create(prog_fd, ifindex, BPF_XDP, &opts);
	if (fd < 0)
		diag("XDP link on ifindex %d (flags %#x): %s", ifindex, flags,
		     strerror(-fd));
	return fd < 0 ? -1 : fd;
}

int xdp_mode(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, opts);

	if (bpf_xdp_query(ifindex, 0, &opts))
		return -1;
	return opts.attach_mode;
}

void test_frame(void *buf, uint32_t tag, uint32_t seq)
{
	struct ethhdr *eth = buf;
	uint32_t *payload = (void *)(eth + 1);

	memset(buf, 0, TEST_FRAME_LEN);
	memset(eth->h_dest, 0xff, ETH_ALEN);
	memcpy(eth->h_source, "\x02\x00\x00\x00\x00\x01", ETH_ALEN);
	eth->h_proto = htons(TEST_ETH_P);
	payload[TEST_WORD_TAG] = tag;
	payload[TEST_WORD_SEQ] = seq;
}

uint32_t test_frame_mark(const void *buf)
{
	const uint32_t *payload = (const void *)((const struct ethhdr *)buf + 1);

	return payload[TEST_WORD_MARK];
}

int xdp_test_run(int prog_fd, const void *in, uint32_t len, void *out,
		 uint32_t repeat, uint32_t *retval, uint32_t *duration_ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = in,
		.data_size_in = len,
		.data_out = out,
		.data_size_out = out ? len : 0,
		.repeat = repeat,
	);
	int err;

	err = bpf_prog_test_run_opts(prog_fd, &opts);
	if (err)
		return -errno;
	if (retval)
		*retval = opts.retval;
	if (duration_ns)
		*duration_ns = opts.duration;
	return 0;
}

int xdp_test_run_live(int prog_fd, const void *in, uint32_t len,
		      uint32_t repeat, uint32_t *duration_ns)
{
	return xdp_test_run_live_rxq(prog_fd, in, len, repeat, 0, 0, duration_ns);
}

int xdp_test_run_live_rxq(int prog_fd, const void *in, uint32_t len, uint32_t repeat,
			  int ifindex, uint32_t queue, uint32_t *duration_ns)
{
	struct xdp_md ctx = {
		.data_end = len,
		.ingress_ifindex = ifindex,
		.rx_queue_index = queue,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = in,
		.data_size_in = len,
		.ctx_in = ifindex ? &ctx : NULL,
		.ctx_size_in = ifindex ? sizeof(ctx) : 0,
		.repeat = repeat,
		.flags = BPF_F_TEST_XDP_LIVE_FRAMES,
	);

	if (bpf_prog_test_run_opts(prog_fd, &opts))
		return -errno;
	if (duration_ns)
		*duration_ns = opts.duration;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

int driver_devs(const char *driver, char names[][16], int max)
{
	char path[PATH_MAX], target[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d;
	ssize_t len;

	d = opendir("/sys/class/net");
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/device/driver", de->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (!strcmp(strrchr(target, '/') + 1, driver))
			snprintf(names[n++], 16, "%.15s", de->d_name);
	}
	closedir(d);
	qsort(names, n, 16, cmp_names);
	return n;
}

/* The first two of @driver's NICs, up; 1 with @why where there are not two. */
static int driver_pair(const char *driver, char nics[2][16], const char *why)
{
	char all[8][16];

	if (driver_devs(driver, all, 8) < 2) {
		diag("%s", why);
		return 1;
	}
	memcpy(nics, all, 2 * sizeof(all[0]));
	return link_up(nics[0]) || link_up(nics[1]) ? -1 : 0;
}

int virtio_net_pair(char nics[2][16])
{
	return driver_pair("virtio_net", nics,
			   "needs two virtio-net NICs joined to each other (the testbed guest has them)");
}

int igb_pair(char nics[2][16])
{
	return driver_pair("igb", nics,
			   "needs two igb NICs joined to each other: QEMU 8.0 or later emulates them (make deps installs QEMU 10; QEMU_BACKPORTS=0 keeps 7.2, which has none)");
}
