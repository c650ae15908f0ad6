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
};

/* Run the rest of the test in a network namespace of its own, so devices
 * it makes vanish with it.
 */
int enter_netns(void);

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		diag(__VA_ARGS__);					\
		return KSFT_FAIL;					\
	}								\
} while (0)

int test_xdp_veth_native_counts(void);
int test_xdp_virtio_native_counts(void);
int test_xdp_test_run_repeat_1(void);
int test_xdp_test_run_repeat_1000(void);
int test_dispatcher_in_kallsyms(void);
int test_perf_samples_in_dispatcher(void);
int test_dispatcher_image_needs_raw(void);
int test_perf_annotate_dispatcher(void);
int test_dispatcher_no_cap(void);
int test_dispatcher_churn(void);
int test_dispatcher_concurrency(void);
int test_dispatcher_fault_injection(void);
int test_dispatcher_policy(void);
int test_dispatcher_update_rate(void);
int test_dispatcher_jump_within_delay(void);
int test_dispatcher_mode(void);
int test_dispatcher_calls_in_place(void);
int test_dispatcher_steady_state(void);
int test_tc_dispatcher_hooks(void);
int test_tc_dispatcher_scale(void);
int test_tc_dispatcher_churn(void);
int test_tc_dispatcher_concurrency(void);
int test_flow_dissector_dispatcher(void);
int test_devmap_redirect_traffic(void);
int test_devmap_redirect_live_frames(void);
int test_devmap_redirect_follows_device(void);
int test_devmap_redirect_frags(void);
int test_sk_lookup_dispatcher_steer(void);
int test_sk_lookup_dispatcher_scale(void);
int test_sk_lookup_dispatcher_churn(void);
int test_netkit_dispatcher(void);
int test_mprog_images(void);

#endif
