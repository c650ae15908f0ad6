// SPDX-License-Identifier: GPL-2.0
/*
 * An AF_XDP socket that receives, on the tree's own socket helpers
 * (tools/testing/selftests/bpf/xsk.c, as xskxceiver uses them): its UMEM,
 * fill ring stocked, bound to one queue of a device in copy or zero-copy
 * mode, and its receive ring read back frame by frame.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/if_xdp.h>
#include <bpf/libbpf.h>

/* xsk.h is written on the tree's tools headers, which name __u32 u32 */
typedef __u32 u32;
#include "xsk.h"
#include "testlib.h"

#define XSK_RX_FRAMES	4096
#define XSK_RX_RING	2048
#define XSK_RX_FRAME	XSK_UMEM__DEFAULT_FRAME_SIZE

struct xsk_rx {
	struct xsk_socket *xsk;
	struct xsk_umem *umem;
	struct xsk_ring_prod fill;
	struct xsk_ring_cons comp;
	struct xsk_ring_cons rx;
	struct xsk_ring_prod tx;
	void *area;
};

/* Hand @n frames back to the kernel, the first of them at @addr[]. */
static int xsk_rx_refill(struct xsk_rx *x, const __u64 *addr, __u32 n)
{
	__u32 idx, i;

	if (xsk_ring_prod__reserve(&x->fill, n, &idx) != n)
		return -1;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&x->fill, idx + i) = addr[i];
	xsk_ring_prod__submit(&x->fill, n);
	return 0;
}

/* A socket with its rings (an Rx ring unless @tx_only), bound. */
static struct xsk_rx *xsk_open(const char *ifname, __u32 queue, bool zero_copy, bool tx_only,
			       int *err)
{
	struct xsk_socket_config cfg = {
		.rx_size = tx_only ? 0 : XSK_RX_RING,
		.tx_size = XSK_RX_RING,
		.bind_flags = zero_copy ? XDP_ZEROCOPY : XDP_COPY,
	};
	struct xsk_rx *x = calloc(1, sizeof(*x));
	__u64 addr[XSK_RX_RING];
	__u32 i;

	*err = -ENOMEM;
	if (!x)
		return NULL;
	x->area = mmap(NULL, (size_t)XSK_RX_FRAMES * XSK_RX_FRAME, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (x->area == MAP_FAILED) {
		free(x);
		return NULL;
	}
	*err = xsk_umem__create(&x->umem, x->area, (__u64)XSK_RX_FRAMES * XSK_RX_FRAME,
				&x->fill, &x->comp, NULL);
	if (*err)
		goto fail;
	/*
	 * The fill ring is stocked before bind(): in zero-copy mode the
	 * driver fills its Rx ring from it as bind() enables the queue.
	 */
	for (i = 0; i < XSK_RX_RING; i++)
		addr[i] = (__u64)i * XSK_RX_FRAME;
	if (xsk_rx_refill(x, addr, XSK_RX_RING)) {
		*err = -ENOSPC;
		goto fail;
	}
	*err = xsk_socket__create(&x->xsk, ifindex_of(ifname), queue, x->umem,
				  tx_only ? NULL : &x->rx, &x->tx, &cfg);
	if (*err)
		goto fail;
	return x;
fail:
	xsk_rx_close(x);
	return NULL;
}

struct xsk_rx *xsk_rx_open(const char *ifname, __u32 queue, bool zero_copy, int *err)
{
	return xsk_open(ifname, queue, zero_copy, false, err);
}

struct xsk_rx *xsk_tx_only_open(const char *ifname, __u32 queue, int *err)
{
	return xsk_open(ifname, queue, false, true, err);
}

long xsk_rx_take(struct xsk_rx *x, uint32_t tag, long *wrong)
{
	__u64 addr[64];
	long taken = 0;
	__u32 idx, n, i;

	while ((n = xsk_ring_cons__peek(&x->rx, 64, &idx))) {
		for (i = 0; i < n; i++) {
			const struct xdp_desc *d = xsk_ring_cons__rx_desc(&x->rx, idx + i);
			const __u8 *frame = xsk_umem__get_data(x->area, d->addr);
			const uint32_t *payload = (const void *)(frame + 14);

			if (d->len != TEST_FRAME_LEN || payload[TEST_WORD_TAG] != tag)
				(*wrong)++;
			addr[i] = xsk_umem__extract_addr(d->addr);
		}
		xsk_ring_cons__release(&x->rx, n);
		if (xsk_rx_refill(x, addr, n))
			return -1;
		taken += n;
	}
	return taken;
}

long xsk_rx_wait(struct xsk_rx *x, uint32_t tag, long want, int ms, long *wrong)
{
	uint64_t deadline = now_ns() + ms * 1000000ull;
	long got = 0, n;

	do {
		n = xsk_rx_take(x, tag, wrong);
		if (n < 0)
			return -1;
		got += n;
		if (got >= want)
			break;
		usleep(1000);
	} while (now_ns() < deadline);
	return got;
}

int xsk_rx_fd(const struct xsk_rx *x)
{
	return xsk_socket__fd(x->xsk);
}

void xsk_rx_close(struct xsk_rx *x)
{
	if (!x)
		return;
	if (x->xsk)
		xsk_socket__delete(x->xsk);
	if (x->umem)
		xsk_umem__delete(x->umem);
	munmap(x->area, (size_t)XSK_RX_FRAMES * XSK_RX_FRAME);
	free(x);
}
