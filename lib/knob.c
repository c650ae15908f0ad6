// SPDX-License-Identifier: GPL-2.0
/* Kernel knobs written by the tests, and put back after each test. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "knob.h"
#include "testlib.h"

#define KNOBS_MAX 32

struct knob_note {
	char path[128];
	char value[64];
};

struct knob_notes {
	int n;
	struct knob_note note[KNOBS_MAX];
};

static struct knob_notes *notes;

int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_APPEND), err;

	if (fd < 0)
		return -1;
	err = write(fd, s, strlen(s)) != (ssize_t)strlen(s);
	return close(fd) || err ? -1 : 0;
}

int knobs_init(void)
{
	if (notes)
		return 0;
	notes = mmap(NULL, sizeof(*notes), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (notes == MAP_FAILED) {
		notes = NULL;
		return -1;
	}
	return 0;
}

/* Has @path been noted since the last knobs_restore()? */
static bool knob_noted(const char *path)
{
	int i;

	for (i = 0; i < notes->n; i++)
		if (!strcmp(notes->note[i].path, path))
			return true;
	return false;
}

int knob_set(const char *path, const char *value)
{
	struct knob_note *note;
	ssize_t len;
	int fd;

	/* The first note of a path holds the value the test found. */
	if (notes && knob_noted(path))
		goto write;
	if (!notes || notes->n == KNOBS_MAX ||
	    strlen(path) >= sizeof(note->path)) {
		diag("knob_set(%s): no room to note its value (knobs_init?)", path);
		return -1;
	}
	note = &notes->note[notes->n];
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		diag("%s: %m", path);
		return -1;
	}
	len = read(fd, note->value, sizeof(note->value) - 1);
	close(fd);
	if (len < 0) {
		diag("%s: %m", path);
		return -1;
	}
	note->value[len] = '\0';
	note->value[strcspn(note->value, "\n")] = '\0';
	strcpy(note->path, path);
	notes->n++;
write:
	if (write_file(path, value)) {
		diag("%s: writing %s: %m", path, value);
		return -1;
	}
	return 0;
}

void knobs_restore(void)
{
	struct knob_note *note;

	while (notes && notes->n > 0) {
		note = &notes->note[--notes->n];
		if (write_file(note->path, note->value))
			diag("%s: putting back %s: %m", note->path, note->value);
	}
}

int fault_setup(void)
{
	static const char *const knobs[][2] = {
		{ "/sys/kernel/debug/failslab/ignore-gfp-wait", "N" },
		{ "/sys/kernel/debug/failslab/verbose", "0" },
		{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N" },
		{ "/sys/kernel/debug/fail_page_alloc/min-order", "0" },
		{ "/sys/kernel/debug/fail_page_alloc/verbose", "0" },
	};
	unsigned int i;

	if (access("/proc/thread-self/fail-nth", F_OK) ||
	    access(knobs[0][0], F_OK) || access(knobs[2][0], F_OK)) {
		diag("no fail-nth, failslab or fail_page_alloc (CONFIG_FAULT_INJECTION_DEBUG_FS)");
		return 1;
	}
	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (knob_set(knobs[i][0], knobs[i][1]))
			return -1;
	return 0;
}

int fail_nth_arm(int nth)
{
	char buf[16];
	int fd;

	fd = open("/proc/thread-self/fail-nth", O_RDWR);
	snprintf(buf, sizeof(buf), "%d", nth);
	if (fd < 0 || write(fd, buf, strlen(buf)) < 0) {
		diag("fail-nth: %m");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int fail_nth_disarm(int fd)
{
	char buf[16] = {};
	int ret;

	/* what is left of the count says whether a failure was injected */
	ret = pread(fd, buf, sizeof(buf) - 1, 0) < 0 || write(fd, "0", 1) != 1 ? -1 :
	      atoi(buf) > 0;
	if (ret < 0)
		diag("fail-nth: %m");
	close(fd);
	return ret;
}
