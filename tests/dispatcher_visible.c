// SPDX-License-Identifier: GPL-2.0
/*
 * The dispatcher image is visible to the tools: its symbol is in
 * /proc/kallsyms while a program is attached, and perf attributes samples
 * to it while test runs go through it; its bytes only to those allowed
 * raw kernel addresses; perf annotate names it and lists its bytes, and
 * names an image of several tcx programs too (where the kernel makes one:
 * series/6, not carried to 7.3, is being redesigned; else that test skips).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dispatcher.h"
#include "tests.h"
#include "knob.h"
#include "kprobe.h"
#include "marked.h"
#include "xdp_count.skel.h"
#include "xdp_mark.skel.h"

#define IMAGE_SYM "bpf_dispatcher_xdp"

/*
 * xdp_count attached natively to rx0 of a new veth pair, in a namespace of
 * its own: the link's fd, or -1 with *@skel NULL if anything failed.
 */
static int count_on_veth(struct xdp_count **skel)
{
	uint32_t id;
	int link;

	*skel = NULL;
	if (enter_netns() || veth_pair("tx0", "rx0"))
		return -1;
	*skel = xdp_count__open_and_load();
	if (!*skel) {
		diag("loading xdp_count failed");
		return -1;
	}
	link = xdp_link(bpf_program__fd((*skel)->progs.xdp_count), ifindex_of("rx0"),
			XDP_FLAGS_DRV_MODE);
	if (link < 0) {
		diag("attach failed");
		xdp_count__destroy(*skel);
		*skel = NULL;
		return link;
	}
	/* A work item publishes the image, after the attach: wait for it. */
	id = prog_id(bpf_program__fd((*skel)->progs.xdp_count));
	if (dispatcher_present() && dispatcher_expect("xdp", &id, 1, true, 10000)) {
		close(link);
		xdp_count__destroy(*skel);
		*skel = NULL;
		return -1;
	}
	return link;
}

TEST_CASE(dispatcher_visible_kallsyms, 0)
{
	struct xdp_count *skel;
	int link;
	bool seen;

	link = count_on_veth(&skel);
	if (link < 0)
		return KSFT_FAIL;
	seen = kallsyms_has(IMAGE_SYM);
	close(link);
	xdp_count__destroy(skel);
	TEST_ASSERT(seen, "%s is not in /proc/kallsyms while a program is attached", IMAGE_SYM);
	return KSFT_PASS;
}

static int wait_file_size(const char *path, off_t size, int timeout_ms)
{
	uint64_t deadline = now_ns() + timeout_ms * 1000000ull;
	struct stat st;

	while (stat(path, &st) || st.st_size < size) {
		if (now_ns() > deadline)
			return -1;
		usleep(20000);
	}
	return 0;
}

/* Count perf samples whose symbol is exactly @sym in @data. */
static long perf_samples_in(const char *data, const char *sym)
{
	char cmd[256], line[512], name[256];
	long n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "perf script -i %s -F ip,sym 2>/dev/null", data);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%*s %255s", name) == 1 && !strcmp(name, sym))
			n++;
	pclose(p);
	return n;
}

TEST_CASE(dispatcher_visible_perf_samples, 300)
{
	const char *data = "/tmp/dispatcher-perf.data";
	unsigned char frame[TEST_FRAME_LEN];
	struct xdp_mark *skel;
	long runs = 0, samples;
	int status, prog_fd;
	pid_t perf;

	skel = xdp_mark__open_and_load();
	TEST_ASSERT(skel, "loading xdp_mark failed");
	prog_fd = bpf_program__fd(skel->progs.xdp_mark);
	test_frame(frame, 0x7e57, 0);
	unlink(data);

	perf = fork();
	TEST_ASSERT(perf >= 0, "fork: %m");
	if (!perf) {
		execlp("perf", "perf", "record", "-q", "-e", "cpu-clock", "-a",
		       "-o", data, "--", "sleep", "4", NULL);
		_exit(127);
	}
	/* The image is made by the first test run: perf must be recording by
	 * then, or it learns of the image only from /proc/kallsyms.
	 */
	TEST_ASSERT(!wait_file_size(data, 1, 20000), "perf record did not start");
	usleep(500000);
	/* Test runs with repeat > 1 go through the dispatcher. */
	while (waitpid(perf, &status, WNOHANG) == 0) {
		TEST_ASSERT(!xdp_test_run(prog_fd, frame, sizeof(frame), NULL, 100000, NULL, NULL),
		            "test run failed");
		runs++;
	}
	TEST_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	            "perf record failed (status %#x)", status);
	samples = perf_samples_in(data, IMAGE_SYM);
	diag("%ld test runs of 100000 repeats; perf samples in %s: %ld", runs,
	     IMAGE_SYM, samples);
	xdp_mark__destroy(skel);
	TEST_ASSERT(samples > 0, "perf recorded no sample in %s (the recording: %s)", IMAGE_SYM, data);
	unlink(data);
	return KSFT_PASS;
}

/* Bytes read from @path, or -errno. */
static long read_all(const char *path)
{
	char buf[4096];
	long total = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	if (n < 0)
		total = -errno;
	close(fd);
	return total;
}

/*
 * The image's bytes hold the programs' addresses: xdp.image is readable
 * only where raw kernel addresses are (kptr_restrict below 2 for root),
 * as the debugfs listing shows addresses only there.
 */
TEST_CASE(dispatcher_visible_image_raw, 0)
{
	const char *image = DISPATCHER_DEBUGFS "/xdp.image";
	const char *sysctl = "/proc/sys/kernel/kptr_restrict";
	struct xdp_count *skel;
	long open_len, restricted_len;
	int link;

	if (!dispatcher_present() || dispatcher_images_off()) {
		diag("no dispatcher image on this kernel or boot");
		return KSFT_SKIP;
	}
	link = count_on_veth(&skel);
	if (link < 0)
		return KSFT_FAIL;

	/* knob_set(): kptr_restrict is put back however the test ends. */
	TEST_ASSERT(!knob_set(sysctl, "0"), "cannot write %s", sysctl);
	open_len = read_all(image);
	TEST_ASSERT(!knob_set(sysctl, "2"), "cannot write %s", sysctl);
	restricted_len = read_all(image);
	close(link);
	xdp_count__destroy(skel);

	diag("%s: %ld bytes with kptr_restrict=0, %ld (%s) with 2", image, open_len,
	     restricted_len, restricted_len < 0 ? strerror(-restricted_len) : "read");
	TEST_ASSERT(open_len > 0, "the image is not readable with kptr_restrict=0");
	TEST_ASSERT(restricted_len == -EPERM, "the image is readable with kptr_restrict=2");
	return KSFT_PASS;
}

/* Is @line perf annotate's header, naming @sym ("... Disassembly of @sym for ...")? */
static bool header_names(const char *line, const char *sym)
{
	const char *header = strstr(line, "Disassembly of ");
	size_t len = strlen(sym);

	return header && !strncmp(header + strlen("Disassembly of "), sym, len) &&
	       header[strlen("Disassembly of ") + len] == ' ';
}

/* xdp_mark's test runs through the XDP dispatcher for about @ms. */
static int test_runs_for(int prog_fd, int ms)
{
	unsigned char frame[TEST_FRAME_LEN];
	uint64_t end = now_ns() + ms * 1000000ull;

	test_frame(frame, 0x7e57, 0);
	do {
		if (xdp_test_run(prog_fd, frame, sizeof(frame), NULL, 10000, NULL, NULL))
			return -1;
	} while (now_ns() < end);
	return 0;
}

/*
 * The image in force, its bytes (debugfs xdp.image) and how many images
 * the dispatcher has published so far (@updates, when given): 0 or -1.
 */
static int image_now(unsigned long *addr, unsigned char *bytes, size_t cap, size_t *len,
		     unsigned long *updates)
{
	struct dispatcher_state st;
	ssize_t n;
	int fd;

	if (dispatcher_read("xdp", &st))
		return -1;
	*addr = st.image_addr;
	*len = st.image_size;
	if (updates)
		*updates = st.updates;
	dispatcher_state_free(&st);
	if (!*addr || !*len || *len > cap)
		return -1;
	fd = open(DISPATCHER_DEBUGFS "/xdp.image", O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, bytes, cap);
	close(fd);
	return n == (ssize_t)*len ? 0 : -1;
}

/*
 * perf annotate of the dispatcher image, by the perf of the series' tree
 * (make perf), from what perf record --kcore copied: the instructions it
 * prints at the image's addresses are the image's bytes, as debugfs
 * xdp.image gives them, and the samples perf took in the image fall on
 * them, and its header names the image. objdump disassembles (--objdump)
 * so the bytes are printed (--asm-raw).
 */
TEST_CASE(dispatcher_visible_perf_annotate, 120)
{
	const char *data = "/tmp/dispatcher-annotate.data";
	unsigned char image[4096], seen[4096];
	unsigned long addr = 0, again, updates = 0, updates_again = 0;
	size_t len = 0, len_again, nseen = 0;
	double in_image = 0, outside = 0;
	char cmd[256], line[1024];
	int status, prog_fd, link, i, stable = 0;
	struct xdp_mark *skel;
	bool first_ok = false, named = false;
	pid_t perf;
	FILE *p;

	if (!dispatcher_present() || dispatcher_images_off()) {
		diag("no dispatcher image on this kernel or boot");
		return KSFT_SKIP;
	}
	skel = xdp_mark__open_and_load();
	TEST_ASSERT(skel, "loading xdp_mark failed");
	prog_fd = bpf_program__fd(skel->progs.xdp_mark);
	/*
	 * Attached, the program stays in the set between test runs: a test
	 * run enters it and leaves, and a trim that comes between two would
	 * publish an image without it, and the next run one with it again.
	 */
	TEST_ASSERT(!enter_netns() && !dummy_dev("pa0"), "no dummy device");
	link = xdp_link(prog_fd, ifindex_of("pa0"), XDP_FLAGS_SKB_MODE);
	TEST_ASSERT(link >= 0, "attaching xdp_mark to pa0 failed");

	/* perf's kcore copy must hold the image: let the policy settle on
	 * one (nothing published for 2 s, 30 s at most) before recording.
	 * Earlier tests' netns may still be going away, their programs with
	 * them, each a change of the dispatcher's set.
	 */
	for (i = 0; i < 120 && stable < 8; i++) {
		TEST_ASSERT(!test_runs_for(prog_fd, 250), "test run failed");
		if (image_now(&again, image, sizeof(image), &len_again, &updates_again))
			continue;
		stable = i && updates_again == updates ? stable + 1 : 0;
		updates = updates_again;
		addr = again;
		len = len_again;
	}
	TEST_ASSERT(stable >= 8, "the dispatcher image did not settle (last at %#lx, %zu bytes)",
		    addr, len);

	/*
	 * The policy may still move to another image, or make a counting one
	 * and come back to this one, perhaps at its address: perf then has
	 * two images of that name. Record again if any image was published.
	 */
	for (i = 0; i < 3; i++) {
		TEST_ASSERT(!image_now(&addr, image, sizeof(image), &len, &updates),
			    "reading the dispatcher's debugfs file failed");
		snprintf(cmd, sizeof(cmd), "rm -rf %s", data);
		TEST_ASSERT(!system(cmd), "%s failed", cmd);
		perf = fork();
		TEST_ASSERT(perf >= 0, "fork: %m");
		if (!perf) {
			execlp("perf", "perf", "record", "-q", "--kcore", "-e", "cpu-clock", "-a",
			       "-o", data, "--", "sleep", "3", NULL);
			_exit(127);
		}
		while (waitpid(perf, &status, WNOHANG) == 0)
			TEST_ASSERT(!test_runs_for(prog_fd, 100), "test run failed");
		/* Its kcore copy can meet a pack freed under it: record again. */
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			diag("perf record --kcore failed (status %#x)", status);
			continue;
		}
		if (!image_now(&again, seen, sizeof(seen), &len_again, &updates_again) &&
		    updates_again == updates)
			break;
		diag("%lu images published while perf recorded (%#lx, %zu bytes, now %#lx, %zu)",
		     updates_again - updates, addr, len, again, len_again);
	}
	TEST_ASSERT(i < 3, "the image changed, or perf record failed, in each of 3 recordings");

	snprintf(cmd, sizeof(cmd),
		 "perf annotate -i %s --stdio --objdump=objdump --asm-raw -s " IMAGE_SYM " 2>&1",
		 data);
	p = popen(cmd, "r");
	TEST_ASSERT(p, "popen: %m");
	/* "  12.50 :   ffffffffa0000640:       48 81 fa a4 06 00 a0    cmp ..." */
	while (fgets(line, sizeof(line), p)) {
		unsigned long ip;
		unsigned int byte;
		double pct;
		char *s;
		int n;

		named |= header_names(line, IMAGE_SYM);
		if (sscanf(line, " %lf : %lx:%n", &pct, &ip, &n) != 2)
			continue;
		if (ip < addr || ip >= addr + len) {
			outside += pct;
			continue;
		}
		in_image += pct;
		first_ok |= ip == addr && !nseen;
		/* the raw bytes: two hex digits each, then the mnemonic */
		for (s = line + n;; s += 2) {
			s += strspn(s, " \t");
			if (!isxdigit(s[0]) || !isxdigit(s[1]) || !isspace(s[2]) ||
			    sscanf(s, "%2x", &byte) != 1)
				break;
			if (nseen < sizeof(seen))
				seen[nseen++] = byte;
		}
	}
	status = pclose(p);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", data);
	if (system(cmd))
		diag("%s failed", cmd);
	close(link);
	xdp_mark__destroy(skel);

	diag("%s at %#lx, %zu bytes: perf annotate printed %zu of them; %.2f%% of its samples on them, %.2f%% on what kallsyms sizes after them",
	     IMAGE_SYM, addr, len, nseen, in_image, outside);
	TEST_ASSERT(!WEXITSTATUS(status), "perf annotate failed");
	TEST_ASSERT(named, "perf annotate's header does not name " IMAGE_SYM);
	TEST_ASSERT(first_ok, "perf annotate's first instruction is not at the image's address");
	TEST_ASSERT(nseen == len && !memcmp(seen, image, len),
	            "the bytes perf annotate disassembled are not the image's");
	TEST_ASSERT(in_image > 99.0, "the samples are not on the image's instructions");
	return KSFT_PASS;
}

#define MPROG_SYM "bpf_mprog_tcx_ingress"

/*
 * perf knows an image of several programs (bpf_mprog_*) for an image, as
 * it knows the dispatchers': two tcx programs on rx0's ingress, frames
 * through them while perf record -a runs, then perf annotate of the image
 * from /proc/kcore names it and starts at its address.
 */
TEST_CASE(dispatcher_visible_perf_mprog, 180)
{
	const char *data = "/tmp/dispatcher-mprog.data";
	struct netkit_count *next = NULL, *pass = NULL;
	int links[2] = { -1, -1 }, status, n = 0, nhead = 0, i, ret = KSFT_FAIL;
	char head[4][160];
	bool named = false, first_ok = false;
	unsigned long addr;
	char cmd[256], line[1024];
	pid_t perf;
	FILE *p;

	if (!dispatcher_present() || dispatcher_images_off()) {
		diag("no dispatcher images on this kernel or boot");
		return KSFT_SKIP;
	}
	if (!dispatcher_has_mprog_images())
		TEST_SKIP("%s", MPROG_IMAGES_MISSING);
	if (enter_netns() || veth_pair("tx0", "rx0"))
		return KSFT_FAIL;
	next = netkit_count_load(TCX_NEXT);
	pass = netkit_count_load(TCX_PASS);
	if (!next || !pass)
		goto out;
	links[0] = tcx_link(bpf_program__fd(next->progs.nk_count), ifindex_of("rx0"), true);
	links[1] = tcx_link(bpf_program__fd(pass->progs.nk_count), ifindex_of("rx0"), true);
	if (links[0] < 0 || links[1] < 0)
		goto out;
	if (kallsyms_addrs(MPROG_SYM, &addr, 1) != 1) {
		diag("%s is not in /proc/kallsyms with two tcx programs attached", MPROG_SYM);
		goto out;
	}

	unlink(data);
	perf = fork();
	if (perf < 0)
		goto out;
	if (!perf) {
		execlp("perf", "perf", "record", "-q", "-F", "10000", "-e", "cpu-clock", "-a",
		       "-o", data, "--", "sleep", "3", NULL);
		_exit(127);
	}
	while (waitpid(perf, &status, WNOHANG) == 0)
		if (send_frames("tx0", 200, 0x7e57, NULL, 0) != 200)
			break;
	waitpid(perf, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		diag("perf record failed (status %#x)", status);
		goto out;
	}

	snprintf(cmd, sizeof(cmd), "perf annotate -i %s --stdio -s " MPROG_SYM " 2>&1", data);
	p = popen(cmd, "r");
	if (!p)
		goto out;
	while (fgets(line, sizeof(line), p)) {
		unsigned long ip;
		double pct;

		if (nhead < 4)
			snprintf(head[nhead++], sizeof(head[0]), "%.*s",
				 (int)strcspn(line, "\n"), line);

		named |= header_names(line, MPROG_SYM);
		/* "    0.00 :   ffffffffa0000748:       endbr64" */
		if (sscanf(line, " %lf : %lx:", &pct, &ip) == 2)
			first_ok |= !n++ && ip == addr;
	}
	status = pclose(p);
	diag("perf annotate of %s at %#lx: %d instructions, header %s", MPROG_SYM, addr, n,
	     named ? "names it" : "does not name it");
	if (status || !named || !first_ok) {
		diag("perf annotate failed, or its listing is not the image's (the recording: %s):",
		     data);
		for (i = 0; i < nhead; i++)
			diag("  %s", head[i]);
	} else {
		ret = KSFT_PASS;
	}
out:
	if (ret == KSFT_PASS)
		unlink(data);
	if (links[0] >= 0)
		close(links[0]);
	if (links[1] >= 0)
		close(links[1]);
	netkit_count__destroy(next);
	netkit_count__destroy(pass);
	return ret;
}
