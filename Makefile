# The pipeline: series/ --(make tree)--> build/linux --(make kernel)-->
# build/kernel --(make vm)--> a QEMU guest that runs tests/ and bench/.
#
#   make run     build, boot the patched kernel, show the dispatcher at work
#   make test    build, boot the patched kernel, run the tests (TAP)
#
# KERNEL=upstream runs the same on the unpatched base. README.md has the rest.

SHELL := /bin/bash
BUILD := $(CURDIR)/build
KERNEL ?= patched
export KERNEL

# The kernel build a guest of $(KERNEL) needs.
kernel_for_patched := kernel
kernel_for_upstream := kernel-upstream
guest_kernel := $(or $(kernel_for_$(KERNEL)),$(error KERNEL=$(KERNEL): use patched or upstream))

.PHONY: help run test deps tree export kernel kernel-upstream tests vm check clean

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

tests: deps
	@$(MAKE) -s -C tests OUT=$(BUILD)/tests

vm:
	@testbed/vm.sh

check: tree
	@testbed/check.sh

test: $(guest_kernel) tests
	@echo "==> running the tests in the guest ($(KERNEL) kernel)"
	@CMD="$(BUILD)/tests/runner" VM_TIMEOUT=$${VM_TIMEOUT:-1800} testbed/vm.sh

run: $(guest_kernel) tests
	@echo "==> the dispatcher at work ($(KERNEL) kernel)"
	@CMD="$(CURDIR)/bench/main-job.sh" VM_TIMEOUT=$${VM_TIMEOUT:-900} testbed/vm.sh

clean:
	@testbed/clean.sh
