// SPDX-License-Identifier: GPL-2.0
/* Reading the dispatcher's debugfs file, and making many devices at once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "dispatcher.h"
#include "testlib.h"

bool dispatcher_present(void)
{
	struct stat st;

	return !stat(DISPATCHER_DEBUGFS, &st) && S_ISDIR(st.st_mode);
}

void dispatcher_state_free(struct dispatcher_state *st)
{
	free(st->entries);
	memset(st, 0, sizeof(*st));
}

int dispatcher_read(const char *name, struct dispatcher_state *st)
{
	char path[256], line[512], direct[8];
	unsigned long cap = 0;
	uint32_t id;
	FILE *f;

	memset(st, 0, sizeof(*st));
	snprintf(path, sizeof(path), "%s/%s", DISPATCHER_DEBUGFS, name);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT && dispatcher_present() ? 0 : -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "mode %7s images %7s", st->mode, st->images) == 2 ||
		    sscanf(line, "image %lx size %lu", &st->image_addr, &st->image_size) == 2 ||
		    sscanf(line, "image %*s size %lu", &st->image_size) == 1 ||
		    sscanf(line, "progs %lu", &st->progs) == 1 ||
		    sscanf(line, "mprogs %lu", &st->mprogs) == 1 ||
		    sscanf(line, "updates %lu", &st->updates) == 1 ||
		    sscanf(line, "failed %lu", &st->failed) == 1)
			continue;
		if (!strncmp(line, "policy ", 7)) {
			const char *counts = strstr(line, " calls ");
			int k;

			if (counts)
				sscanf(counts, " calls %llu switches %llu", &st->profile_calls,
				       &st->profile_switches);

			/* "policy tree ..." or "policy chain K ..." */
			if (sscanf(line, "policy chain %d", &k) == 1)
				snprintf(st->policy, sizeof(st->policy), "chain %d", k);
			else
				sscanf(line, "policy %31s", st->policy);
			continue;
		}
		/* dispatcher_expect_mprogs() reads these */
		if (!strncmp(line, "mprog ", 6))
			continue;
		if (sscanf(line, "prog id %u tag %*s name %*s addr %*s direct %7s",
			   &id, direct) != 2) {
			diag("%s: unexpected line: %s", path, line);
			continue;
		}
		if (st->nr == cap) {
			cap = cap ? 2 * cap : 64;
			st->entries = realloc(st->entries, cap * sizeof(*st->entries));
			if (!st->entries) {
				fclose(f);
				return -1;
			}
		}
		st->entries[st->nr].id = id;
		st->entries[st->nr].direct = !strcmp(direct, "yes");
		st->nr++;
	}
	fclose(f);
	return 0;
}

bool dispatcher_lists(const struct dispatcher_state *st, uint32_t id, bool *direct)
{
	unsigned long i;

	for (i = 0; i < st->nr; i++) {
		if (st->entries[i].id == id) {
			if (direct)
				*direct = st->entries[i].direct;
			return true;
		}
	}
	return false;
}

int dummy_devs(const char *prefix, int n)
{
	const char *path = "/tmp/dummy-devs.batch";
	FILE *f = fopen(path, "w");
	int i, err;

	if (!f)
		return -1;
	for (i = 0; i < n; i++)
		fprintf(f, "link add %s%d type dummy\nlink set dev %s%d up\n",
			prefix, i, prefix, i);
	fclose(f);
	err = run_cmd("ip -batch %s", path);
	unlink(path);
	return err;
}

int want_fds(long n)
{
	struct rlimit rl = { .rlim_cur = n, .rlim_max = n };

	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		diag("setrlimit(RLIMIT_NOFILE, %ld): %m", n);
		return -1;
	}
	return 0;
}

uint32_t prog_id(int prog_fd)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return 0;
	return info.id;
}

/* kernel.bpf_dispatcher: "auto", "on" or "off"; "" on a kernel without it. */
static void dispatcher_mode(char *mode, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_dispatcher", "r");

	mode[0] = '\0';
	if (!f)
		return;
	if (fgets(mode, len, f))
		mode[strcspn(mode, "\n")] = '\0';
	fclose(f);
}

/*
 * What the kernel last said images came to: its log line "BPF dispatcher
 * images on|off (...)", at boot and at each kernel.bpf_dispatcher write.
 * "" if it said nothing (a kernel without the series).
 */
static void dispatcher_logged(char images[8])
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *p, *last = NULL;
	int n;

	images[0] = '\0';
	if (size <= 0)
		return;
	buf = malloc(size + 1);
	if (!buf)
		return;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n > 0) {
		buf[n] = '\0';
		for (p = buf; (p = strstr(p, "BPF dispatcher images ")); p++)
			last = p;
		if (last)
			sscanf(last, "BPF dispatcher images %7s", images);
	}
	free(buf);
}

bool dispatcher_images_off(void)
{
	char mode[16], images[8];

	dispatcher_mode(mode, sizeof(mode));
	if (!strcmp(mode, "off"))
		return true;
	/* "auto" comes to off where the architecture says images do not pay. */
	dispatcher_logged(images);
	return !strcmp(images, "off");
}

int dispatcher_mode_get(char *mode, size_t len)
{
	dispatcher_mode(mode, len);
	return mode[0] ? 0 : -1;
}

int dispatcher_set_mode(const char *mode)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_dispatcher", "w");
	int err;

	if (!f) {
		diag("/proc/sys/kernel/bpf_dispatcher: %m");
		return -1;
	}
	err = fputs(mode, f) < 0;
	err |= fclose(f) != 0;
	if (err)
		diag("kernel.bpf_dispatcher=%s refused: %m", mode);
	return err ? -1 : 0;
}

/* Does @st list exactly @ids[0..n), with @jumps, or nothing with images @off? */
static bool dispatcher_matches(const struct dispatcher_state *st, const uint32_t *ids, int n,
			       bool jumps, bool off, int *missing, int *indirect)
{
	int k;

	*missing = *indirect = 0;
	for (k = 0; k < n; k++) {
		bool direct = false;

		if (!dispatcher_lists(st, ids[k], &direct))
			(*missing)++;
		else if (!direct)
			(*indirect)++;
	}
	/* Images off: the kernel keeps no set, and makes no image. */
	if (off)
		return !st->nr && !st->image_size;
	if (*missing || st->nr != (unsigned long)n)
		return false;
	if (!jumps)
		return true;
	return !*indirect && (!n || st->image_size);
}

int dispatcher_expect(const char *name, const uint32_t *ids, int n, bool jumps, int ms)
{
	uint64_t deadline = now_ns() + ms * 1000000ull;
	bool off = dispatcher_images_off(), ok;
	struct dispatcher_state st;
	int missing, indirect;
	char sym[64];

	for (;;) {
		if (dispatcher_read(name, &st))
			return -1;
		ok = dispatcher_matches(&st, ids, n, jumps, off, &missing, &indirect);
		if (ok || now_ns() > deadline)
			break;
		dispatcher_state_free(&st);
		usleep(20000);
	}
	if (!ok) {
		diag("bpf_dispatcher_%s lists %lu programs, want %d: %d of them missing, %d without a direct jump; image %lu bytes (images %s)",
		     name, st.nr, off ? 0 : n, missing, indirect, st.image_size, off ? "off" : "on");
		run_cmd("f=%s/%s; if [ -e $f ]; then head -n 30 $f; else echo \"no $f (never used)\"; fi | sed 's/^/# /'",
			DISPATCHER_DEBUGFS, name);
	}
	dispatcher_state_free(&st);
	snprintf(sym, sizeof(sym), "bpf_dispatcher_%s", name);
	if (ok && jumps && !off && n && !kallsyms_has(sym)) {
		diag("%s is not in /proc/kallsyms while its image is in force", sym);
		ok = false;
	}
	return ok ? 0 : -1;
}

/* Images named @sym that @name lists, and how many with a direct jump; -1 if unreadable. */
static int mprogs_named(const char *name, const char *sym, int *direct)
{
	char path[256], line[512], got[64], jump[8];
	int n = 0;
	FILE *f;

	*direct = 0;
	snprintf(path, sizeof(path), "%s/%s", DISPATCHER_DEBUGFS, name);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "mprog %63s addr %*s direct %7s", got, jump) != 2 ||
		    strcmp(got, sym))
			continue;
		n++;
		*direct += !strcmp(jump, "yes");
	}
	fclose(f);
	return n;
}

bool dispatcher_has_mprog_images(void)
{
	/* the kernel's text does not change: read /proc/kallsyms once */
	static int has = -1;

	if (has < 0)
		has = kallsyms_has("bpf_mprog_image_update");
	return has;
}

int dispatcher_expect_mprogs(const char *name, const char *sym, int n, int ms)
{
	uint64_t deadline = now_ns() + ms * 1000000ull;
	int got, direct;

	if (!dispatcher_present())
		return 0;
	if (dispatcher_images_off() || !dispatcher_has_mprog_images())
		n = 0;
	for (;;) {
		got = mprogs_named(name, sym, &direct);
		if (got < 0)
			return -1;
		if ((got == n && direct == n) || now_ns() > deadline)
			break;
		usleep(20000);
	}
	if (got != n || direct != n) {
		diag("bpf_dispatcher_%s lists %d multi-program images %s, %d with a direct jump; want %d",
		     name, got, sym, direct, n);
		run_cmd("head -n 30 %s/%s | sed 's/^/# /'", DISPATCHER_DEBUGFS, name);
		return -1;
	}
	return 0;
}
