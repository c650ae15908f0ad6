/* SPDX-License-Identifier: GPL-2.0 */
/* The test registry: each test is a function run in a child process. */
#ifndef TESTS_H
#define TESTS_H

#include "testlib.h"

/* Exit codes, as kselftest's. */
#define KSFT_PASS 0
#define KSFT_FAIL 1
#define KSFT_SKIP 4

struct test {
	const char *name;
	int (*fn)(void);
	int timeout_s;		/* 0: the runner's default */
	struct test *next;
};

void test_register(struct test *t);

/*
 * TEST_CASE(name, timeout_s) { ... return KSFT_PASS; }: a test, named as
 * in TAP output and -t, run in a child process of its own and killed
 * after @timeout_s (0: the runner's default). Its file registers it: the
 * runner runs tests in link order (the files', alphabetical) and, within
 * a file, in the order they are written.
 */
#define TEST_CASE(tname, timeout)					\
	static int test_##tname(void);					\
	static struct test test_case_##tname = {			\
		.name = #tname, .fn = test_##tname, .timeout_s = timeout, \
	};								\
	static void __attribute__((constructor)) test_register_##tname(void) \
	{								\
		test_register(&test_case_##tname);			\
	}								\
	static int test_##tname(void)

/* End the test as skipped, saying why: "# SKIP why" before the runner's
 * "ok N name # SKIP".
 */
#define TEST_SKIP(fmt, ...) do {					\
	diag("SKIP " fmt, ##__VA_ARGS__);				\
	return KSFT_SKIP;						\
} while (0)

/*
 * A test whose code is compiled out (what it needs is missing from the
 * uapi the test bed builds on): still registered under its name, so that
 * -t and the lists of make test and test-debug find it, it skips saying
 * @why.
 */
#define TEST_CASE_SKIP(tname, why)					\
	TEST_CASE(tname, 0)						\
	{								\
		TEST_SKIP("%s", why);					\
	}

/* Run the rest of the test in a network namespace of its own, so devices
 * it makes vanish with it.
 */
int enter_netns(void);

/* Fail the test unless @cond holds, saying where (file:line) and why.
 * Knobs set with knob_set() are put back all the same: as the test's
 * process exits.
 */
#define TEST_ASSERT(cond, fmt, ...) do {				\
	if (!(cond)) {							\
		diag("%s:%d: " fmt, __FILE__, __LINE__, ##__VA_ARGS__); \
		return KSFT_FAIL;					\
	}								\
} while (0)

#endif
