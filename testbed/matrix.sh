#!/usr/bin/env bash
# make matrix: the patched kernel in the configs the test bed's own does not
# cover, each in its own build directory (ccache shared), one line each:
#   - the matrix fragments in testbed/kconfig/matrix/ (IBT off, UP, no
#     mitigations, PREEMPT_RT, the hooks' users as modules, no modules, no
#     BPF JIT),
#     built;
#   - clang-19 with kCFI (make kernel-cfi), built, booted under TCG and run
#     through make test's tests;
#   - the CONFIG_CPU_MITIGATIONS=n kernel booted: auto comes to images off,
#     and dispatcher_calls_in_place counts no call into a dispatcher;
#   - every commit (testbed/patches/ and every submission) built on its
#     predecessors in the test bed's config, a whole kernel each
#     (bisectability; make check builds the tools patch by patch).
# MATRIX="no-ibt up" runs only those lines (names as printed: no-ibt, up,
# no-mitigations, no-mitigations-tests, preempt-rt, modules, no-modules,
# no-bpf-jit, cfi, cfi-tests, bisect). BISECT_FROM=N starts the bisect
# line at the N-th commit (after a run stopped part way).
# Results: build/results/matrix.txt; logs: build/matrix/*.log.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

tree_has_git || die "no kernel tree in $TREE: run 'make tree'"
mkdir -p "$BUILD/matrix" "$BUILD/results"
results=$BUILD/results/matrix.txt
logs=$BUILD/matrix
failed=0
: >"$results"

wanted() { [ -z "${MATRIX:-}" ] || [[ " $MATRIX " == *" $1 "* ]]; }

# row NAME RESULT SECONDS WHAT
row() {
	printf '%-16s %-4s %6s s  %s\n' "$1" "$2" "$3" "$4" | tee -a "$results"
	[ "$2" = ok ] || failed=$((failed + 1))
}

# A failed step's log: its errors, else its last lines.
show_failure() {
	local log=$1
	{ grep -a -m 20 -E 'error:|Error [0-9]|undefined reference|^make.*Error' "$log" ||
	  tail -n 20 "$log"; } | sed 's/^/    /'
}

# build NAME FLAVOUR WHAT [env...]: one kernel build, one line.
build() {
	local name=$1 flavour=$2 what=$3 log=$logs/$1.log start rc
	shift 3
	start=$(date +%s)
	env "$@" "$TOP/testbed/kernel.sh" "$flavour" >"$log" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then
		row "$name" ok $(($(date +%s) - start)) "$what"
	else
		row "$name" FAIL $(($(date +%s) - start)) "$what (log: ${log#$TOP/})"
		show_failure "$log"
	fi
	return "$rc"
}

step "the patched kernel in other configs ($(git -C "$TREE" rev-list --count base..HEAD) patches)"
cfi_built=0
if wanted cfi; then
	build cfi cfi "clang-19 LLVM=-19, CONFIG_CFI_CLANG (kCFI): build/kernel-cfi"
	cfi_built=$?
fi

# kCFI's checks are software: TCG runs them. A failed check panics.
if wanted cfi-tests; then
	start=$(date +%s)
	log=$logs/cfi-tests.log
	if [ ! -f "$BUILD/kernel-cfi/arch/x86/boot/bzImage" ] || [ "$cfi_built" -ne 0 ]; then
		row cfi-tests FAIL 0 "no kCFI kernel to boot (make kernel-cfi)"
	elif make -C "$TOP" -s tests >"$log" 2>&1 &&
		KERNEL=cfi CMD="$BUILD/tests/runner" VM_TIMEOUT=1800 \
			"$TOP/testbed/vm.sh" >>"$log" 2>&1; then
		row cfi-tests ok $(($(date +%s) - start)) "kCFI kernel booted, make test's tests: $(grep -a -E '^[0-9]+ passed' "$log" | tail -n 1)"
	else
		row cfi-tests FAIL $(($(date +%s) - start)) "kCFI kernel, make test's tests (log: ${log#$TOP/})"
		grep -a -E '^not ok|CFI failure|Kernel panic|BUG|Oops' "$log" | head -n 20 | sed 's/^/    /'
	fi
fi

wanted no-ibt && build no-ibt matrix/no-ibt "IBT off: no ENDBR, gen_endbr() undefined"
wanted up && build up matrix/up "CONFIG_SMP=n: no this_cpu_off, no per-CPU offset"
nomit_built=1
if wanted no-mitigations; then
	build no-mitigations matrix/no-mitigations "CONFIG_CPU_MITIGATIONS=n: no retpoline or ITS thunks"
	nomit_built=$?
fi
# Where no indirect call is thunked, auto comes to images off: the hooks
# must run base's code (kprobes count every call into a dispatcher).
if wanted no-mitigations-tests; then
	start=$(date +%s)
	log=$logs/no-mitigations-tests.log
	kdir=$BUILD/matrix/no-mitigations
	if [ ! -f "$kdir/arch/x86/boot/bzImage" ] || { wanted no-mitigations && [ "$nomit_built" -ne 0 ]; }; then
		row no-mitigations-tests FAIL 0 "no CONFIG_CPU_MITIGATIONS=n kernel to boot (MATRIX=no-mitigations)"
	elif make -C "$TOP" -s tests >"$log" 2>&1 &&
		VM_KDIR=$kdir CMD="$BUILD/tests/runner -t dispatcher_mode -t dispatcher_calls_in_place -t xdp_native_counts_veth -t xdp_native_counts_virtio -t xdp_test_run_repeat_1 -t xdp_test_run_repeat_1000" \
			VM_TIMEOUT=900 "$TOP/testbed/vm.sh" >>"$log" 2>&1; then
		row no-mitigations-tests ok $(($(date +%s) - start)) "that kernel booted (auto: images off), the hooks' calls in place: $(grep -a -E '^[0-9]+ passed' "$log" | tail -n 1)"
	else
		row no-mitigations-tests FAIL $(($(date +%s) - start)) "CONFIG_CPU_MITIGATIONS=n kernel, dispatcher_calls_in_place and others (log: ${log#$TOP/})"
		grep -a -E '^not ok|^# .*want|Kernel panic|BUG|Oops' "$log" | head -n 20 | sed 's/^/    /'
	fi
fi
wanted preempt-rt &&
	build preempt-rt matrix/preempt-rt "PREEMPT_RT: preemptible RCU readers, sleeping locks"
wanted modules &&
	build modules matrix/modules "cls_bpf, act_bpf, veth, virtio_net, IPv6 as modules: modpost checks the exports"
wanted no-modules &&
	build no-modules matrix/no-modules "CONFIG_MODULES=n: BPF JIT memory from execmem without the module loader"
wanted no-bpf-jit &&
	build no-bpf-jit matrix/no-bpf-jit "CONFIG_BPF_JIT=n: no dispatcher, no key, nothing exported"

# Bisectability: each commit of base..HEAD on its own, in a checkout of its
# own at build/matrix/bisect/linux, built into build/matrix/bisect/kernel:
# the same relative paths as build/linux and build/kernel, so ccache serves
# every object a patch does not touch.
if wanted bisect; then
	bisect=$BUILD/matrix/bisect
	if [ ! -e "$bisect/linux/.git" ]; then
		mkdir -p "$bisect"
		git -C "$TREE" worktree add -q --detach "$bisect/linux" base ||
			die "cannot make the bisect checkout $bisect/linux"
	fi
	n=0
	for commit in $(git -C "$TREE" rev-list --reverse base..HEAD); do
		n=$((n + 1))
		[ "$n" -ge "${BISECT_FROM:-1}" ] || continue
		subject=$(git -C "$TREE" log -1 --format=%s "$commit")
		git -C "$bisect/linux" checkout -q --detach "$commit" ||
			die "cannot check out $commit in $bisect/linux"
		build "bisect-$(printf %04d $n)" patched "$subject" \
			SRC="$bisect/linux" OUT="$bisect/kernel" || true
	done
fi

if [ "$failed" -ne 0 ]; then
	say "matrix: $failed line(s) failed (build/results/matrix.txt)"
	exit 1
fi
say "matrix: every line ok (build/results/matrix.txt)"
