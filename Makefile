# The pipeline: series/ --(make tree)--> build/linux --(make kernel)-->
# build/kernel --(make vm)--> a QEMU guest that runs tests/ and bench/.
#
#   make run     build, boot the patched kernel, show the dispatcher at work
#   make test    build, boot the patched kernel, run the tests (TAP)
#   make selftests  the kernel's test_progs on upstream and patched (long)
#
# KERNEL=upstream runs the same on the unpatched base. README.md has the rest.

SHELL := /bin/bash
BUILD := $(CURDIR)/build
KERNEL ?= patched
export KERNEL

# The kernel build a guest of $(KERNEL) needs.
kernel_for_patched := kernel
kernel_for_upstream := kernel-upstream
kernel_for_cfi := kernel-cfi
kernel_for_debug := kernel-debug
kernel_for_selftests := kernel-selftests
kernel_for_upstream-selftests := kernel-upstream-selftests
# An unknown KERNEL fails only the targets that boot it (make vm checks its own).
guest_kernel := $(or $(kernel_for_$(KERNEL)),unknown-kernel)

.DEFAULT_GOAL := help
unknown-kernel:
	@echo "error: KERNEL=$(KERNEL): use patched, upstream, cfi, debug, selftests or upstream-selftests" >&2; exit 2

.PHONY: unknown-kernel help run test test-debug kernel-debug kernel-cfi kernel-alone kernel-selftests kernel-upstream-selftests selftests matrix deps tree export kernel kernel-upstream libbpf xdp-tools progs tests bench-bin bench fuzz bench-cpu vm check clean perf

help:
	@sed -n '3,8s/^# \?//p' Makefile

deps:
	@testbed/deps.sh

tree: deps
	@testbed/tree.sh

export:
	@testbed/export.sh

kernel: tree
	@testbed/kernel.sh patched

kernel-upstream: tree
	@testbed/kernel.sh upstream

kernel-debug: tree
	@testbed/kernel.sh debug

# clang-19 with kCFI: make test KERNEL=cfi boots it.
kernel-cfi: tree
	@testbed/kernel.sh cfi

# One submission on base alone (SUBMISSION=4-bpf-next-devmap), for its figures.
kernel-alone: tree
	@testbed/alone.sh

# The selftests' config on top of ours, for make selftests.
kernel-selftests: tree
	@testbed/kernel.sh selftests

kernel-upstream-selftests: tree
	@testbed/kernel.sh upstream-selftests

# test_progs on upstream, patched and bpf_dispatcher=off, in one table:
# build/results/selftests.txt (SELFTESTS=all for the whole of test_progs).
selftests: tree
	@testbed/selftests.sh

# The series in other configs, and patch by patch: build/results/matrix.txt.
matrix: tree
	@testbed/matrix.sh

# perf from the series' tree: the guests' perf (it annotates BPF images).
perf: tree
	@testbed/perf.sh

# The tree's uapi headers and libbpf, which progs/, tests/ and bench/ build on.
libbpf: tree
	@testbed/libbpf.sh

# xdp-tools (xdp-bench, xdp-loader, libxdp) from ../shared/vendor/xdp-tools.bundle
# on that libbpf, into build/xdp-tools/install: Debian 12's xdp-bench cannot load on 7.3.
xdp-tools: libbpf
	@testbed/xdp-tools.sh

userspace := UAPI=$(BUILD)/uapi/usr/include LIBBPF=$(BUILD)/libbpf TREE=$(BUILD)/linux
progs: libbpf
	@$(MAKE) -s -C progs OUT=$(BUILD)/progs $(userspace)

tests: progs
	@$(MAKE) -s -C tests OUT=$(BUILD)/tests SKEL=$(BUILD)/progs $(userspace)

bench-bin: progs
	@$(MAKE) -s -C bench OUT=$(BUILD)/bench SKEL=$(BUILD)/progs $(userspace)

# Both kernels (and bpf_dispatcher=off) in one run: build/results/dispatcher.txt
bench: kernel kernel-upstream bench-bin
	@bench/run.sh

# The emitter harness alone: a long fuzz, and real-CPU timings.
fuzz: tree
	@testbed/emitter.sh fuzz $${FUZZ_SECONDS:-600}

bench-cpu: tree
	@testbed/emitter.sh bench

vm:
	@testbed/vm.sh

# Every submission of series/: applies, checkpatch --strict, and each
# commit builds on its predecessors (CHECK=quick: without the builds).
check: tree
	@testbed/check.sh

# Host first: a short fuzz of the emitter on the real CPU; then a short
# boot with bpf_dispatcher=off (the escape hatch still runs programs
# right); then every test on the kernel as it boots by default.
test: $(guest_kernel) tests perf
	@if [ "$(KERNEL)" = patched ]; then \
		testbed/emitter.sh fuzz $${FUZZ_SECONDS:-5} && \
		echo "==> the patched kernel booted with bpf_dispatcher=off" && \
		VM_APPEND=bpf_dispatcher=off VM_TIMEOUT=600 \
			CMD="$(BUILD)/tests/runner -t dispatcher_mode -t dispatcher_calls_in_place \
				-t xdp_native_counts_veth -t xdp_native_counts_virtio -t xdp_native_counts_igb \
				-t xdp_test_run_repeat_1 -t xdp_test_run_repeat_1000 -t tc_dispatcher_hooks \
				-t sk_lookup_dispatcher_steer -t netkit_dispatcher -t mprog_images \
				-t xdp_mprog_counts_veth -t xdp_chain_actions_native \
				-t flow_dissector_dispatcher -t xsk_redirect_zero_copy_igb" testbed/vm.sh; \
	fi
	@echo "==> running the tests in the guest ($(KERNEL) kernel)"
	@CMD="$(BUILD)/tests/runner" VM_TIMEOUT=$${VM_TIMEOUT:-1800} testbed/vm.sh

# The reliability tests on the debug kernel (KASAN, lockdep, kmemleak...).
test-debug: kernel-debug tests perf
	@echo "==> running the reliability tests in the guest (debug kernel)"
	@KERNEL=debug CMD="$(CURDIR)/guest/debug-run.sh" VM_TIMEOUT=$${VM_TIMEOUT:-3600} testbed/vm.sh

# The harness on this CPU, then xdp-bench, xdp_perf and the annotated
# images on the patched kernel, it booted with bpf_dispatcher=off, upstream.
run: kernel kernel-upstream tests bench-bin perf xdp-tools
	@bench/make-run.sh

clean:
	@testbed/clean.sh
