// SPDX-License-Identifier: GPL-2.0
/*
 * The sk_lookup dispatcher (bpf_dispatcher_sk_lookup): a program is in its
 * set exactly while a netns link holds it (attach, update, release, detach,
 * the netns going away) or a test run with repeat > 1 runs it. Real TCP
 * connects and UDP datagrams are steered by the program the dispatcher
 * calls; at 1, 2 and 1024 programs (1024 in 16 netns, 64 a netns, the
 * kernel's limit; the in-tree selftest's sk_lookup subtests go to 65)
 * every program of a netns sees its traffic and test runs reach the
 * right one, and a netns of two programs or more is run through the
 * image of its run array (bpf_mprog_sk_lookup), listed with a direct
 * jump, one of one program through none (where the kernel makes such
 * images: series/6, not carried to 7.3, is being redesigned; elsewhere
 * none must be listed); and the set follows seeded churn while datagrams
 * flow.
 *
 * Without the series' debugfs directory (an upstream kernel) the listing
 * checks are skipped and the rest still runs: the test then reports SKIP
 * if all else passed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <bpf/bpf.h>
/* the tree's instruction macros (tools/include/linux/filter.h) */
#include TOOLS_FILTER_H

#include "tests.h"
#include "dispatcher.h"
#include "sk_lookup_steer.skel.h"

#define SERVE_PORT	7000	/* where the test's sockets are bound */
#define STEER_LO	7100	/* ports the steering program hands to them */
#define STEER_HI	7199
#define OUTSIDE_PORT	7300	/* a port nothing binds or steers */

static bool listing;

/*
 * Whether to check the listing; then, the set empty before the test
 * starts (an earlier test's netns may still be on its way out): -1 if not.
 */
static int listing_init(void)
{
	listing = dispatcher_present();
	if (!listing) {
		diag("no %s: a kernel without this series' dispatcher; the listing checks are skipped, traffic and test runs still checked",
		     DISPATCHER_DEBUGFS);
		return 0;
	}
	if (!dispatcher_has_mprog_images())
		diag("%s: its image checks want none", MPROG_IMAGES_MISSING);
	if (dispatcher_expect("sk_lookup", NULL, 0, false, 30000)) {
		diag("programs of an earlier test are still listed");
		return -1;
	}
	return 0;
}

static int verdict(int ret)
{
	if (ret != KSFT_PASS)
		return ret;
	return listing ? KSFT_PASS : KSFT_SKIP;
}

/* The set is exactly @ids (within @ms; see dispatcher_expect()). */
static int expect_set(const uint32_t *ids, int n, bool jumps, int ms)
{
	return listing ? dispatcher_expect("sk_lookup", ids, n, jumps, ms) : 0;
}

/*
 * @n netns with two programs or more: each has the image of its run array,
 * listed with a direct jump (none booted off).
 */
static int expect_images(int n)
{
	return listing ? dispatcher_expect_mprogs("sk_lookup", "bpf_mprog_sk_lookup", n, 10000) : 0;
}

static int sk_link(int prog_fd, int ns_fd)
{
	int fd = bpf_link_create(prog_fd, ns_fd, BPF_SK_LOOKUP, NULL);

	if (fd < 0)
		diag("sk_lookup link: %s", strerror(-fd));
	return fd < 0 ? -1 : fd;
}

/* The netns a link is attached to (0: none, auto-detached), or -1. */
static long link_netns(int link)
{
	struct bpf_link_info info = {};
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(link, &info, &len))
		return -1;
	return info.netns.netns_ino;
}

/*
 * Wait up to @ms for @link's netns to be dying (netns exit is asynchronous:
 * a link names no netns once the netns is dying, maybe before its pre_exit
 * has detached the link).
 */
static int wait_detached(int link, int ms)
{
	uint64_t deadline = now_ns() + ms * 1000000ull;
	long ino;

	while ((ino = link_netns(link)) != 0 && now_ns() < deadline)
		usleep(20000);
	if (ino) {
		diag("a link of the netns closed %d ms ago still names netns %ld", ms, ino);
		return -1;
	}
	return 0;
}

static uint64_t sock_cookie(int fd)
{
	uint64_t cookie = 0;
	socklen_t len = sizeof(cookie);

	if (getsockopt(fd, SOL_SOCKET, SO_COOKIE, &cookie, &len))
		return 0;
	return cookie;
}

static struct sockaddr_in loopback(uint16_t port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};

	return a;
}

/* A socket of @type with a 2 s receive timeout, bound to 127.0.0.1:@port
 * (0: unbound), listening if a stream one; -1 on failure.
 */
static int test_socket(int type, uint16_t port)
{
	struct timeval tv = { .tv_sec = 2 };
	struct sockaddr_in a = loopback(port);
	int fd, one = 1;

	fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    (type == SOCK_DGRAM && setsockopt(fd, SOL_IP, IP_RECVORIGDSTADDR, &one, sizeof(one))) ||
	    (port && bind(fd, (void *)&a, sizeof(a))) ||
	    (port && type == SOCK_STREAM && listen(fd, 64))) {
		diag("%s socket on port %u: %m", type == SOCK_STREAM ? "TCP" : "UDP", port);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* connect() to 127.0.0.1:@port: the socket, or -errno. */
static int tcp_connect(uint16_t port)
{
	struct sockaddr_in a = loopback(port);
	int fd = test_socket(SOCK_STREAM, 0), err;

	if (fd < 0)
		return -EIO;
	if (connect(fd, (void *)&a, sizeof(a))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* A connect to @port is accepted on @listener, as a connection to @port,
 * and a byte crosses it.
 */
static int steered_connect(int listener, uint16_t port)
{
	struct sockaddr_in local;
	socklen_t len = sizeof(local);
	int c, s = -1, ret = -1;
	char byte = 0;

	c = tcp_connect(port);
	if (c < 0) {
		diag("connect to port %u: %s", port, strerror(-c));
		return -1;
	}
	s = accept(listener, NULL, NULL);
	if (s < 0) {
		diag("connect to port %u: nothing accepted on the listener (%m)", port);
		goto out;
	}
	if (getsockname(s, (void *)&local, &len) || ntohs(local.sin_port) != port) {
		diag("connect to port %u: accepted as a connection to port %u", port,
		     ntohs(local.sin_port));
		goto out;
	}
	if (write(c, "s", 1) != 1 || read(s, &byte, 1) != 1 || byte != 's') {
		diag("connect to port %u: the byte did not cross", port);
		goto out;
	}
	ret = 0;
out:
	if (s >= 0)
		close(s);
	close(c);
	return ret;
}

/* Datagram @seq from @tx to 127.0.0.1:@port arrives on @rx, as sent to
 * @port, with its payload.
 */
static int datagram(int tx, int rx, uint16_t port, uint32_t seq)
{
	struct sockaddr_in to = loopback(port), *orig = NULL;
	char cbuf[CMSG_SPACE(sizeof(struct sockaddr_in))];
	uint32_t payload[2] = { 0x5c100c, seq }, got[2] = {};
	struct iovec iov = { got, sizeof(got) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	ssize_t n;

	if (sendto(tx, payload, sizeof(payload), 0, (void *)&to, sizeof(to)) != sizeof(payload)) {
		diag("datagram %u to port %u: sendto: %m", seq, port);
		return -1;
	}
	n = recvmsg(rx, &msg, 0);
	for (cm = CMSG_FIRSTHDR(&msg); n > 0 && cm; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_ORIGDSTADDR)
			orig = (void *)CMSG_DATA(cm);
	if (n != sizeof(got) || memcmp(got, payload, sizeof(got)) || !orig ||
	    ntohs(orig->sin_port) != port) {
		diag("datagram %u to port %u: received %zd bytes (%s), seq %u, sent to port %d", seq,
		     port, n, n < 0 ? strerror(errno) : "", got[1],
		     orig ? ntohs(orig->sin_port) : -1);
		return -1;
	}
	return 0;
}

/* Nothing takes @port: a connect and a connected datagram are refused. */
static int refused(uint16_t port)
{
	struct sockaddr_in a = loopback(port);
	int c = tcp_connect(port), u, err = 0;
	char byte;

	if (c != -ECONNREFUSED) {
		diag("connect to port %u: %s, want it refused", port,
		     c >= 0 ? "connected" : strerror(-c));
		if (c >= 0)
			close(c);
		return -1;
	}
	/* The ICMP port unreachable comes back as the next call's error. */
	u = test_socket(SOCK_DGRAM, 0);
	if (u < 0 || connect(u, (void *)&a, sizeof(a)) || send(u, "u", 1, 0) != 1 ||
	    recv(u, &byte, 1, 0) >= 0 || (err = errno) != ECONNREFUSED) {
		diag("a datagram to port %u: %s, want it refused", port,
		     err ? strerror(err) : "no refusal");
		if (u >= 0)
			close(u);
		return -1;
	}
	close(u);
	return 0;
}

/* A test run of an sk_lookup program on a lookup of 127.0.0.1:@port. */
static int lookup_run(int prog_fd, int proto, uint16_t port, uint32_t repeat,
		      uint32_t *retval, uint64_t *cookie)
{
	struct bpf_sk_lookup ctx = {
		.family = AF_INET,
		.protocol = proto,
		.remote_ip4 = htonl(INADDR_LOOPBACK),
		.remote_port = htons(40000),
		.local_ip4 = htonl(INADDR_LOOPBACK),
		.local_port = port,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.ctx_in = &ctx, .ctx_size_in = sizeof(ctx),
		.ctx_out = &ctx, .ctx_size_out = sizeof(ctx),
		.repeat = repeat,
	);
	int err;

	err = bpf_prog_test_run_opts(prog_fd, &opts);
	if (err) {
		diag("sk_lookup test run (repeat %u): %s", repeat, strerror(errno));
		return -1;
	}
	*retval = opts.retval;
	*cookie = ctx.cookie;
	return 0;
}

/* A test run returns @want_ret and selects the socket of @want_cookie. */
static int run_expect(int prog_fd, int proto, uint16_t port, uint32_t repeat,
		      uint32_t want_ret, uint64_t want_cookie)
{
	uint64_t cookie;
	uint32_t ret;

	if (lookup_run(prog_fd, proto, port, repeat, &ret, &cookie))
		return -1;
	if (ret != want_ret || cookie != want_cookie) {
		diag("test run of a %s lookup of port %u (repeat %u): verdict %u cookie %llu, want %u cookie %llu",
		     proto == IPPROTO_TCP ? "TCP" : "UDP", port, repeat, ret,
		     (unsigned long long)cookie, want_ret, (unsigned long long)want_cookie);
		return -1;
	}
	return 0;
}

/* The steering program for @lo..@hi, @tcp and @udp in its map (-1: none). */
static struct sk_lookup_steer *steer_load(uint16_t lo, uint16_t hi, int tcp, int udp)
{
	struct sk_lookup_steer *skel = sk_lookup_steer__open();
	uint32_t key;
	uint64_t val;

	if (!skel)
		return NULL;
	skel->rodata->port_lo = lo;
	skel->rodata->port_hi = hi;
	if (sk_lookup_steer__load(skel))
		goto err;
	key = 0;
	val = tcp;
	if (tcp >= 0 && bpf_map_update_elem(bpf_map__fd(skel->maps.socks), &key, &val, BPF_ANY))
		goto err;
	key = 1;
	val = udp;
	if (udp >= 0 && bpf_map_update_elem(bpf_map__fd(skel->maps.socks), &key, &val, BPF_ANY))
		goto err;
	return skel;
err:
	diag("loading sk_lookup_steer (ports %u-%u): %m", lo, hi);
	sk_lookup_steer__destroy(skel);
	return NULL;
}

static int steer_fd(struct sk_lookup_steer *skel)
{
	return bpf_program__fd(skel->progs.sk_steer);
}

#define NCONN	12
#define NDGRAM	40
#define RUNS	100

/* The test runs of the steering program @fd: TCP and UDP lookups of a
 * steered port select the listener and the UDP socket, a lookup of
 * another port selects nothing.
 */
static int steer_runs(int fd, uint32_t repeat, int tcp, int udp)
{
	if (run_expect(fd, IPPROTO_TCP, STEER_LO + 5, repeat, SK_PASS, sock_cookie(tcp)) ||
	    run_expect(fd, IPPROTO_UDP, STEER_HI, repeat, SK_PASS, sock_cookie(udp)) ||
	    run_expect(fd, IPPROTO_TCP, OUTSIDE_PORT, repeat, SK_PASS, 0))
		return -1;
	return 0;
}

static int drop_prog(void);

TEST_CASE(sk_lookup_dispatcher_steer, 180)
{
	struct sk_lookup_steer *a = NULL, *b = NULL, *c = NULL;
	int ns = -1, tcp = -1, udp = -1, tx = -1, la = -1, lb = -1, i, ret = KSFT_FAIL;
	int drop = -1, ld = -1;
	uint64_t a0, b0, steered0, runs0;
	uint32_t ids[2];
	int s;

	if (listing_init() || enter_netns())
		return KSFT_FAIL;
	ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	tcp = test_socket(SOCK_STREAM, SERVE_PORT);
	udp = test_socket(SOCK_DGRAM, SERVE_PORT);
	tx = test_socket(SOCK_DGRAM, 0);
	if (ns < 0 || tcp < 0 || udp < 0 || tx < 0)
		goto out;
	/* a steers; b only counts (an empty range); c is never attached. */
	a = steer_load(STEER_LO, STEER_HI, tcp, udp);
	b = steer_load(1, 0, -1, -1);
	c = steer_load(STEER_LO, STEER_HI, tcp, udp);
	if (!a || !b || !c)
		goto out;
	ids[0] = prog_id(steer_fd(a));
	ids[1] = prog_id(steer_fd(b));

	/* Before any link nothing takes the steered ports. */
	if (refused(STEER_LO))
		goto out;
	la = sk_link(steer_fd(a), ns);
	lb = sk_link(steer_fd(b), ns);
	if (la < 0 || lb < 0 || expect_set(ids, 2, true, 5000) || expect_images(1))
		goto out;

	a0 = a->bss->lookups;
	b0 = b->bss->lookups;
	steered0 = a->bss->steered;
	for (i = 0; i < NCONN; i++)
		if (steered_connect(tcp, STEER_LO + i * 9 % 100))
			goto out;
	for (i = 0; i < NDGRAM; i++)
		if (datagram(tx, udp, STEER_LO + i * 7 % 100, i))
			goto out;
	/* The bound port is not steered, and still served; others refused. */
	if (steered_connect(tcp, SERVE_PORT) || datagram(tx, udp, SERVE_PORT, NDGRAM) ||
	    refused(OUTSIDE_PORT))
		goto out;
	diag("%d connects and %d datagrams to steered ports arrived: steered %llu, lookups seen by the steering program %llu, by the counter %llu",
	     NCONN, NDGRAM, (unsigned long long)(a->bss->steered - steered0),
	     (unsigned long long)(a->bss->lookups - a0), (unsigned long long)(b->bss->lookups - b0));
	TEST_ASSERT(a->bss->steered - steered0 >= NCONN + NDGRAM,
	            "the steering program steered %llu lookups, want at least %d",
	            (unsigned long long)(a->bss->steered - steered0), NCONN + NDGRAM);
	/* Every lookup runs both programs of the netns. */
	TEST_ASSERT(a->bss->lookups - a0 == b->bss->lookups - b0 && b->bss->steered == 0,
	            "the programs of one netns saw %llu and %llu lookups",
	            (unsigned long long)(a->bss->lookups - a0), (unsigned long long)(b->bss->lookups - b0));

	/* Test runs: the attached program, and one that is not (repeat > 1
	 * enters it for the run only).
	 */
	for (s = 0; s < 2; s++) {
		uint32_t repeat = s ? 1 : RUNS;

		runs0 = a->bss->lookups;
		if (steer_runs(steer_fd(a), repeat, tcp, udp) ||
		    steer_runs(steer_fd(c), repeat, tcp, udp))
			goto out;
		TEST_ASSERT(a->bss->lookups - runs0 == 3 * repeat,
		            "test runs with repeat %u ran the program %llu times, want %u", repeat,
		            (unsigned long long)(a->bss->lookups - runs0), 3 * repeat);
	}
	diag("test runs with repeat %d and 1: verdicts and sockets right", RUNS);
	if (expect_set(ids, 2, true, 5000))
		goto out;

	/*
	 * A third program drops every lookup: one the steering program
	 * selected a socket for still goes to it, any other is refused, as
	 * BPF_PROG_SK_LOOKUP_RUN_ARRAY() rules, through the image or not.
	 */
	drop = drop_prog();
	ld = drop < 0 ? -1 : sk_link(drop, ns);
	if (ld < 0 || expect_images(1) || steered_connect(tcp, STEER_LO + 3) ||
	    datagram(tx, udp, STEER_HI, NDGRAM + 1) || refused(SERVE_PORT))
		goto out;
	close(ld);
	ld = -1;
	if (steered_connect(tcp, SERVE_PORT))
		goto out;
	diag("with a third program dropping: steered lookups still steered, the bound port refused; served again once it left");

	/* Links go: the set follows; then the steered ports are refused. */
	close(lb);
	lb = -1;
	if (expect_set(ids, 1, true, 2000) || expect_images(0))
		goto out;
	close(la);
	la = -1;
	if (expect_set(NULL, 0, false, 2000) || refused(STEER_LO) || refused(STEER_HI))
		goto out;
	ret = KSFT_PASS;
out:
	if (la >= 0)
		close(la);
	if (lb >= 0)
		close(lb);
	if (ld >= 0)
		close(ld);
	if (drop >= 0)
		close(drop);
	sk_lookup_steer__destroy(a);
	sk_lookup_steer__destroy(b);
	sk_lookup_steer__destroy(c);
	return verdict(ret);
}

/*
 * Many programs: each one counts the lookups it sees in its own slot of
 * a shared array and lets them go on (SK_PASS without a socket), built
 * from instructions, as 1024 skeletons would take minutes to load under
 * TCG.
 */
static int count_prog(int map_fd, uint32_t slot, const char *name)
{
	struct bpf_insn insns[] = {
		/* key = slot; r0 = &counts[key] */
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, slot),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_LD_MAP_FD(BPF_REG_1, map_fd),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
		/* counts[slot] += 1, atomically */
		BPF_MOV64_IMM(BPF_REG_1, 1),
		BPF_ATOMIC_OP(BPF_DW, BPF_ADD, BPF_REG_0, BPF_REG_1, 0),
		BPF_MOV64_IMM(BPF_REG_0, SK_PASS),
		BPF_EXIT_INSN(),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_SK_LOOKUP);
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_SK_LOOKUP, name, "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), &opts);
	if (fd < 0)
		diag("loading sk_lookup program %s: %s", name, strerror(errno));
	return fd;
}

/* A program that drops every lookup: SK_DROP. */
static int drop_prog(void)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_0, SK_DROP),
		BPF_EXIT_INSN(),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_SK_LOOKUP);
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_SK_LOOKUP, "skl_drop", "GPL", insns, 2, &opts);
	if (fd < 0)
		diag("loading sk_lookup program skl_drop: %s", strerror(errno));
	return fd;
}

/* The counters, mapped: the array is BPF_F_MMAPABLE. */
static volatile __u64 *counts_map(int nslots, int *map_fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	void *p;

	*map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "skl_counts", 4, 8, nslots, &opts);
	if (*map_fd < 0) {
		diag("counter array: %s", strerror(errno));
		return NULL;
	}
	p = mmap(NULL, nslots * 8, PROT_READ | PROT_WRITE, MAP_SHARED, *map_fd, 0);
	if (p == MAP_FAILED) {
		diag("mmap of the counter array: %m");
		return NULL;
	}
	return p;
}

#define PER_NS		64	/* the kernel's limit of sk_lookup links per netns */
#define MAX_PROGS	1024
#define NNS		(MAX_PROGS / PER_NS)
#define SCALE_DGRAMS	3

static const int scale_steps[] = { 1, 2, MAX_PROGS };

struct scale {
	volatile __u64 *counts;
	__u64 before[MAX_PROGS];
	int map;
	int prog[MAX_PROGS];
	int link[MAX_PROGS];
	int where[MAX_PROGS];	/* the netns whose lookups it sees; -1: none */
	uint32_t id[MAX_PROGS];
	int ns[NNS], rx[NNS], tx[NNS];
};

/* Datagrams in netns @k reach each of its programs, and no other. */
static int scale_traffic(struct scale *sc, int n, int k)
{
	int i, wrong = 0, first = -1;
	uint32_t seq;

	for (i = 0; i < n; i++)
		sc->before[i] = sc->counts[i];
	for (seq = 0; seq < SCALE_DGRAMS; seq++)
		if (datagram(sc->tx[k], sc->rx[k], SERVE_PORT, seq))
			return -1;
	for (i = 0; i < n; i++) {
		__u64 want = sc->where[i] == k ? SCALE_DGRAMS : 0;

		if (sc->counts[i] - sc->before[i] != want) {
			if (first < 0)
				first = i;
			wrong++;
		}
	}
	if (wrong) {
		diag("%d programs, %d datagrams in netns %d: %d programs counted wrong, the first program %d: %llu",
		     n, SCALE_DGRAMS, k, wrong, first,
		     (unsigned long long)(sc->counts[first] - sc->before[first]));
		return -1;
	}
	return 0;
}

/* A test run of program @i runs it, and it alone, @repeat times. */
static int scale_run(struct scale *sc, int n, int i, uint32_t repeat)
{
	int j, others = 0;

	for (j = 0; j < n; j++)
		sc->before[j] = sc->counts[j];
	if (run_expect(sc->prog[i], IPPROTO_UDP, SERVE_PORT, repeat, SK_PASS, 0))
		return -1;
	for (j = 0; j < n; j++)
		if (j != i && sc->counts[j] != sc->before[j])
			others++;
	if (sc->counts[i] - sc->before[i] != repeat || others) {
		diag("%d programs: a test run of program %d (repeat %u) counted %llu runs, and %d other programs counted",
		     n, i, repeat, (unsigned long long)(sc->counts[i] - sc->before[i]), others);
		return -1;
	}
	return 0;
}

static int scale_check(struct scale *sc, int n)
{
	int used = (n + PER_NS - 1) / PER_NS, k[3] = { 0, (used - 1) / 2, used - 1 }, j;

	for (j = 0; j < 3; j++)
		if ((j == 0 || k[j] != k[j - 1]) && scale_traffic(sc, n, k[j]))
			return -1;
	if (scale_run(sc, n, 0, RUNS) || scale_run(sc, n, n / 2, RUNS) ||
	    scale_run(sc, n, n - 1, RUNS) || scale_run(sc, n, n - 1, 1))
		return -1;
	return 0;
}

TEST_CASE(sk_lookup_dispatcher_scale, 300)
{
	static struct scale sc;
	int home, n = 0, s, i, k, extra = -1, ret = KSFT_FAIL;
	const int last = NNS - 1;
	uint64_t t0;
	char name[24];

	if (listing_init() || enter_netns() || want_fds(4 * MAX_PROGS + 256))
		return KSFT_FAIL;
	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	sc.counts = counts_map(MAX_PROGS, &sc.map);
	if (home < 0 || !sc.counts)
		return KSFT_FAIL;
	memset(sc.link, -1, sizeof(sc.link));
	t0 = now_ns();
	/* Each netns: lo up, a UDP socket bound in it and one to send. */
	for (k = 0; k < NNS; k++) {
		sc.ns[k] = netns_new();
		sc.rx[k] = test_socket(SOCK_DGRAM, SERVE_PORT);
		sc.tx[k] = test_socket(SOCK_DGRAM, 0);
		if (sc.ns[k] < 0 || sc.rx[k] < 0 || sc.tx[k] < 0 || netns_enter(home))
			return KSFT_FAIL;
	}
	diag("%d netns in %.1f s", NNS, (now_ns() - t0) / 1e9);

	for (s = 0; s < (int)(sizeof(scale_steps) / sizeof(scale_steps[0])); s++) {
		t0 = now_ns();
		for (; n < scale_steps[s]; n++) {
			snprintf(name, sizeof(name), "skl_scale_%d", n);
			sc.prog[n] = count_prog(sc.map, n, name);
			if (sc.prog[n] < 0)
				goto out;
			sc.id[n] = prog_id(sc.prog[n]);
			sc.link[n] = sk_link(sc.prog[n], sc.ns[n / PER_NS]);
			if (sc.link[n] < 0)
				goto out;
			sc.where[n] = n / PER_NS;
		}
		/* a netns of two programs or more is run through its image */
		if (expect_set(sc.id, n, true, 10000) ||
		    expect_images(n / PER_NS + (n % PER_NS >= 2)) || scale_check(&sc, n))
			goto out;
		diag("%d programs in %d netns: all listed%s; datagrams reach every program of their netns, test runs the right one (%.1f s)",
		     n, (n + PER_NS - 1) / PER_NS,
		     !listing ? " (not checked)" : dispatcher_images_off() ? ", no image (booted off)" :
		     !dispatcher_has_mprog_images() ? " with direct jumps" :
		     " with direct jumps, each netns of several through its image",
		     (now_ns() - t0) / 1e9);
	}

	/* The first netns's links closed: its programs leave, its datagrams
	 * are delivered by the tables alone.
	 */
	for (i = 0; i < PER_NS; i++) {
		close(sc.link[i]);
		sc.link[i] = -1;
		sc.where[i] = -1;
	}
	if (expect_set(sc.id + PER_NS, n - PER_NS, false, 2000) || expect_images(NNS - 1) ||
	    scale_traffic(&sc, n, 0))
		goto out;

	/*
	 * The last netns goes with its links still open: its programs leave
	 * with it, but for the first, which a link in the first netns holds
	 * too and which must stay when its dead link is closed.
	 */
	extra = sk_link(sc.prog[last * PER_NS], sc.ns[0]);
	if (extra < 0)
		goto out;
	t0 = now_ns();
	close(sc.ns[last]);
	close(sc.rx[last]);
	close(sc.tx[last]);
	if (wait_detached(sc.link[last * PER_NS + 1], 30000) ||
	    expect_set(sc.id + PER_NS, n - 2 * PER_NS + 1, false, 30000))
		goto out;
	diag("the last netns gone with its links open, within %.1f s: its links detached%s",
	     (now_ns() - t0) / 1e9, listing ? ", its programs left the set" : "");
	for (i = last * PER_NS; i < n; i++) {
		close(sc.link[i]);
		sc.link[i] = -1;
		sc.where[i] = -1;
	}
	sc.where[last * PER_NS] = 0;
	if (expect_set(sc.id + PER_NS, n - 2 * PER_NS + 1, false, 1000) ||
	    scale_traffic(&sc, n, 0) || scale_traffic(&sc, n, 1))
		goto out;

	/* Every link closed: nothing left. */
	close(extra);
	for (i = 0; i < n; i++)
		if (sc.link[i] >= 0) {
			close(sc.link[i]);
			sc.link[i] = -1;
		}
	if (expect_set(NULL, 0, false, 2000) || expect_images(0))
		goto out;
	ret = KSFT_PASS;
out:
	/* Tearing the namespaces down detaches the rest. */
	return verdict(ret);
}

/*
 * Churn: a seeded sequence of link create, update (to another program or
 * the same), release and BPF_LINK_DETACH over a pool of counting programs
 * and CHURN_NS netns, while a thread sends datagrams to steered ports of
 * each netns: a steering program attached there throughout must deliver
 * every one (the programs churned around it only count and pass). The
 * set is the attached set at every check; at the end a netns goes with
 * its links open, then every link is closed.
 */
#define CHURN_NS	3
#define CHURN_SLOTS	6	/* links per netns */
#define CHURN_POOL	5

struct churn_slot {
	int link;	/* -1: none */
	int prog;	/* pool index */
	bool detached;	/* BPF_LINK_DETACH'ed: the fd stays, the program left */
};

static struct {
	int rx[CHURN_NS], tx[CHURN_NS];
	atomic_bool stop;
	atomic_int errors;
	long sent[CHURN_NS];
} churn_io;

static void *churn_sender(void *arg)
{
	uint32_t seq;

	for (seq = 0; !atomic_load(&churn_io.stop); seq++) {
		int k = seq % CHURN_NS;

		if (datagram(churn_io.tx[k], churn_io.rx[k], STEER_LO + seq % 100, seq)) {
			atomic_fetch_add(&churn_io.errors, 1);
			break;
		}
		churn_io.sent[k]++;
	}
	return NULL;
}

/* The set: the steering programs of the live netns, and each pool
 * program some live, undetached link holds.
 */
static int churn_same_set(struct churn_slot (*slots)[CHURN_SLOTS], const uint32_t *pool_ids,
			  const uint32_t *steer_ids, const bool *live, int ms)
{
	uint32_t ids[CHURN_POOL + CHURN_NS];
	bool used[CHURN_POOL] = {};
	int k, i, n = 0;

	for (k = 0; k < CHURN_NS; k++) {
		if (!live[k])
			continue;
		ids[n++] = steer_ids[k];
		for (i = 0; i < CHURN_SLOTS; i++)
			if (slots[k][i].link >= 0 && !slots[k][i].detached)
				used[slots[k][i].prog] = true;
	}
	for (i = 0; i < CHURN_POOL; i++)
		if (used[i])
			ids[n++] = pool_ids[i];
	return expect_set(ids, n, false, ms);
}

/* Close a netns's steering link and every link of its slots. */
static void close_links(struct churn_slot *slot, int *steer_link)
{
	int i;

	if (*steer_link >= 0)
		close(*steer_link);
	*steer_link = -1;
	for (i = 0; i < CHURN_SLOTS; i++)
		if (slot[i].link >= 0) {
			close(slot[i].link);
			slot[i].link = -1;
		}
}

TEST_CASE(sk_lookup_dispatcher_churn, 300)
{
	int ops = getenv("CHURN_OPS") ? atoi(getenv("CHURN_OPS")) : 2000;
	unsigned int seed = getenv("SEED") ? strtoul(getenv("SEED"), NULL, 0) : (unsigned int)now_ns();
	struct churn_slot slots[CHURN_NS][CHURN_SLOTS];
	struct sk_lookup_steer *steer[CHURN_NS] = {};
	int pool[CHURN_POOL], ns[CHURN_NS], steer_link[CHURN_NS], home, map;
	uint32_t pool_ids[CHURN_POOL], steer_ids[CHURN_NS];
	int counts_op[5] = {}, k, i, op, ret = KSFT_FAIL;
	bool live[CHURN_NS] = { true, true, true }, started = false;
	volatile __u64 *counts;
	__u64 total;
	const int dying = CHURN_NS - 1;
	pthread_t th;
	char name[24];
	uint64_t t0;

	diag("seed %u (SEED=%u reproduces), %d operations", seed, seed, ops);
	srand(seed);
	if (listing_init() || enter_netns())
		return KSFT_FAIL;
	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	counts = counts_map(CHURN_POOL, &map);
	if (home < 0 || !counts)
		return KSFT_FAIL;
	for (i = 0; i < CHURN_POOL; i++) {
		snprintf(name, sizeof(name), "skl_churn_%d", i);
		pool[i] = count_prog(map, i, name);
		if (pool[i] < 0)
			return KSFT_FAIL;
		pool_ids[i] = prog_id(pool[i]);
	}
	memset(slots, -1, sizeof(slots));
	for (k = 0; k < CHURN_NS; k++) {
		for (i = 0; i < CHURN_SLOTS; i++)
			slots[k][i].detached = false;
		ns[k] = netns_new();
		churn_io.rx[k] = test_socket(SOCK_DGRAM, SERVE_PORT);
		churn_io.tx[k] = test_socket(SOCK_DGRAM, 0);
		if (ns[k] < 0 || churn_io.rx[k] < 0 || churn_io.tx[k] < 0 || netns_enter(home))
			goto out;
		steer[k] = steer_load(STEER_LO, STEER_HI, -1, churn_io.rx[k]);
		if (!steer[k])
			goto out;
		steer_ids[k] = prog_id(steer_fd(steer[k]));
		steer_link[k] = sk_link(steer_fd(steer[k]), ns[k]);
		if (steer_link[k] < 0)
			goto out;
	}
	if (churn_same_set(slots, pool_ids, steer_ids, live, 5000))
		goto out;
	if (pthread_create(&th, NULL, churn_sender, NULL)) {
		diag("pthread_create failed");
		goto out;
	}
	started = true;
	t0 = now_ns();

	for (op = 1; op <= ops && !atomic_load(&churn_io.errors); op++) {
		struct churn_slot *sl;
		int prog = rand() % CHURN_POOL, r = rand() % 100, err;

		k = rand() % CHURN_NS;
		sl = &slots[k][rand() % CHURN_SLOTS];
		if (sl->link < 0) {
			sl->link = sk_link(pool[prog], ns[k]);
			if (sl->link < 0)
				goto out;
			sl->prog = prog;
			counts_op[0]++;
		} else if (sl->detached) {
			/* A detached link cannot take a program; then it goes. */
			err = bpf_link_update(sl->link, pool[prog], NULL);
			if (err != -ENOLINK) {
				diag("update of a detached link: %s, want ENOLINK", strerror(-err));
				goto out;
			}
			close(sl->link);
			sl->link = -1;
			sl->detached = false;
			counts_op[4]++;
		} else if (r < 40) {
			if (r < 5)
				prog = sl->prog;	/* the same program again */
			err = bpf_link_update(sl->link, pool[prog], NULL);
			if (err) {
				diag("link update: %s", strerror(-err));
				goto out;
			}
			sl->prog = prog;
			counts_op[1]++;
		} else if (r < 80) {
			close(sl->link);
			sl->link = -1;
			counts_op[2]++;
		} else {
			err = bpf_link_detach(sl->link);
			if (err) {
				diag("link detach: %s", strerror(errno));
				goto out;
			}
			sl->detached = true;
			counts_op[3]++;
		}
		if (op % 25 == 0 && churn_same_set(slots, pool_ids, steer_ids, live, 1000)) {
			diag("after operation %d", op);
			goto out;
		}
	}
	atomic_store(&churn_io.stop, true);
	pthread_join(th, NULL);
	started = false;
	if (atomic_load(&churn_io.errors) || churn_same_set(slots, pool_ids, steer_ids, live, 1000))
		goto out;
	for (k = 0; k < CHURN_NS; k++)
		TEST_ASSERT(steer[k]->bss->steered == (__u64)churn_io.sent[k],
		            "netns %d: %ld datagrams delivered, the steering program steered %llu", k,
		            churn_io.sent[k], (unsigned long long)steer[k]->bss->steered);
	for (i = 0, total = 0; i < CHURN_POOL; i++)
		total += counts[i];
	diag("links created %d, updated %d, closed %d, detached %d, detached ones closed %d; datagrams delivered %ld, %ld, %ld, each steered once, and seen %llu times by the churned programs (%.1f s); the set followed",
	     counts_op[0], counts_op[1], counts_op[2], counts_op[3], counts_op[4],
	     churn_io.sent[0], churn_io.sent[1], churn_io.sent[2], (unsigned long long)total,
	     (now_ns() - t0) / 1e9);

	/*
	 * The last netns goes with its links open (its socket out of the
	 * steering map first: the map would keep the netns alive). Its
	 * programs leave with it, but for pool programs linked elsewhere too,
	 * which stay when its dead links are closed.
	 */
	k = dying;
	i = 1;
	bpf_map_delete_elem(bpf_map__fd(steer[k]->maps.socks), &i);
	close(churn_io.rx[k]);
	close(churn_io.tx[k]);
	close(ns[k]);
	live[k] = false;
	t0 = now_ns();
	if (wait_detached(steer_link[k], 30000) ||
	    churn_same_set(slots, pool_ids, steer_ids, live, 30000))
		goto out;
	diag("a netns gone with its links open, within %.1f s: its links detached%s",
	     (now_ns() - t0) / 1e9, listing ? ", its programs left the set" : "");
	close_links(slots[k], &steer_link[k]);
	if (churn_same_set(slots, pool_ids, steer_ids, live, 1000))
		goto out;

	/* Every link closed: nothing left. */
	for (k = 0; k < CHURN_NS; k++)
		close_links(slots[k], &steer_link[k]);
	if (expect_set(NULL, 0, false, 2000))
		goto out;
	ret = KSFT_PASS;
out:
	if (started) {
		atomic_store(&churn_io.stop, true);
		pthread_join(th, NULL);
	}
	/* Tearing the namespaces down detaches the rest. */
	return verdict(ret);
}
