#!/usr/bin/env bash
# make selftests: the kernel's own BPF selftests (test_progs, then
# test_xsk.sh: xskxceiver on a veth pair, and xskxceiver in zero-copy mode
# between two igb NICs where QEMU has them) on the upstream kernel, on the
# patched kernel, and on the patched kernel booted bpf_dispatcher=off, in
# one table: build/results/selftests.txt. Fails if
# a test that passes on upstream fails or does not finish on a patched
# kernel, or if a console shows a splat.
#   SELFTESTS=named   the tests in testbed/selftests/ALLOWLIST (default)
#   SELFTESTS=all     the whole of test_progs
#   SELFTESTS_KERNELS="upstream patched patched-off"   which boots, in order
# Every run leaves out testbed/selftests/DENYLIST and the tree's DENYLIST.
#   selftests.sh build   only build test_progs (and the patched selftests
#                        kernel whose BTF it is built against): make run
#                        runs its xdp_perf on the test bed's kernels
#   selftests.sh table   only make the table from the logs of earlier runs
#                        (one run per kernel, side by side: the whole suite
#                        takes about 40 minutes a kernel under TCG)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

selection=${SELFTESTS:-named}
kernels=${SELFTESTS_KERNELS:-upstream patched patched-off}
lists=$TOP/testbed/selftests
out=$BUILD/selftests
results=$BUILD/results
case $selection in named|all) ;; *) die "SELFTESTS=$selection: choose named or all" ;; esac
mkdir -p "$out/build" "$results"

# Each kernel is a selftests flavour build (testbed/kernel.sh).
kdir_of() {
	case $1 in
	upstream) echo "$BUILD/kernel-upstream-selftests" ;;
	patched|patched-off) echo "$BUILD/kernel-selftests" ;;
	*) die "SELFTESTS_KERNELS: unknown kernel '$1' (upstream, patched, patched-off)" ;;
	esac
}
for k in $kernels; do kdir_of "$k" >/dev/null; done

mode=${1:-run}
case $mode in build|run|table) ;; *) die "usage: selftests.sh [build|run|table]" ;; esac

# 6. The table: one row per test and subtest, a column per kernel.
table() {
	awk -f "$TOP/testbed/selftests-table.awk" -v selection="$selection" -v kernels="$kernels" \
		-v skips="$lists/SKIPS" "$@" >"$results/selftests.txt"
}
if [ "$mode" = table ]; then
	logs=()
	for k in $kernels; do logs+=("$results/selftests-$k.log"); done
	for k in $kernels; do logs+=("$results/test_xsk-$k.log"); done
	for f in "${logs[@]}"; do [ -f "$f" ] || die "no log $f: run make selftests first"; done
	status=0
	table "${logs[@]}" || status=1
	cat "$results/selftests.txt"
	exit "$status"
fi

# 1. The kernels: the selftests' own config on top of the test bed's.
if [ "$mode" = build ]; then
	"$TOP/testbed/kernel.sh" selftests
else
	case " $kernels " in *" patched"*) "$TOP/testbed/kernel.sh" selftests ;; esac
	case " $kernels " in *" upstream "*) "$TOP/testbed/kernel.sh" upstream-selftests ;; esac
fi

# 2. test_progs, once, from the patched tree (it holds the series' own
# tests) against the patched kernel's BTF. CO-RE relocates its programs
# on the upstream kernel.
selftests_src=$TREE/tools/testing/selftests/bpf
# -mcpu=v4 with the BPF target: 7.3's libarena needs what LLVM 20 emits
# by default (32-bit atomics) and signed division; clang-19 defaults to v1.
# The runners' own rules name their -mcpu after it, which wins.
# O= names the kernel build test_kmods/ builds its modules against (7.3
# takes it where it holds a Module.symvers; a KDIR= given on the command
# line would reach kbuild's own make and send it to the source tree).
st_make=(make -C "$selftests_src" OUTPUT="$out/build" VMLINUX_BTF="$BUILD/kernel-selftests/vmlinux"
	O="$BUILD/kernel-selftests" CLANG=clang-19 LLC=llc-19 LLVM_STRIP=llvm-strip-19
	CC="ccache gcc" HOSTCC="ccache gcc" BPF_TARGET_ENDIAN="--target=bpfel -mcpu=v4")
step "building test_progs and xskxceiver in ${out#$TOP/}/build (log: ${out#$TOP/}/build.log)"
# The tree's Makefile compiles each test from inside OUTPUT ("cd $(@D)"),
# so its .test.d files name the generated skeletons relative to OUTPUT,
# and a second make finds no rule for them ("No rule to make target
# 'atomics.lskel.h'"). Make those names absolute.
for d in "$out/build"/*.test.d; do
	[ -e "$d" ] || break
	perl -pi -e "s#(?<=\\s)([^/\\s][^\\s]*\\.h)(?=\\s)#$out/build/\\1#g" "$d"
done
start=$(date +%s)
if ! "${st_make[@]}" -j"$(($(nproc) + 1))" test_progs "$out/build/xskxceiver" \
	>"$out/build.log" 2>&1; then
	grep -E 'error|Error' "$out/build.log" | head -n 20
	die "test_progs or xskxceiver did not build (full log: $out/build.log)"
fi
say "built test_progs and xskxceiver in $(($(date +%s) - start)) s"

# A directory to run test_progs in (it loads its BPF objects and modules
# from the current directory): the build's files, its modules left out,
# and test_xsk.sh with the script it sources (they run ./xskxceiver).
run_dir() {	# run_dir NAME
	local dir=$out/run-$1 f
	rm -rf "$dir"
	mkdir -p "$dir"
	for f in "$out/build"/*; do
		case $f in *.ko) ;; *) ln -s "$f" "$dir/" ;; esac
	done
	ln -s "$selftests_src/test_xsk.sh" "$selftests_src/xsk_prereqs.sh" "$dir/"
}
if [ "$mode" = build ]; then
	# make run's guests boot kernels without modules: no .ko to add.
	run_dir testbed
	exit 0
fi

# 3. The test modules, once per kernel: a module is built against its
# kernel's Module.symvers and BTF. 7.3 keeps them all in test_kmods/;
# built from a copy of it per kernel, so neither build touches the
# other's objects (nor the tree's own test_kmods/, which test_progs'
# build fills for the patched selftests kernel).
for k in $kernels; do
	kdir=$(kdir_of "$k")
	moddir=$out/modules-${kdir##*/kernel-}
	[ -d "$moddir" ] && [ "$moddir/.built" -nt "$kdir/vmlinux" ] && continue
	rm -rf "$moddir"
	mkdir -p "$moddir/test_kmods"
	cp "$selftests_src/test_kmods"/*.[ch] "$selftests_src/test_kmods/Makefile" "$moddir/test_kmods/"
	make -C "$kdir" M="$moddir/test_kmods" CC="ccache gcc" modules >"$moddir/build.log" 2>&1 ||
		{ tail -n 20 "$moddir/build.log"; die "test_kmods/ did not build against ${kdir#$TOP/}"; }
	touch "$moddir/.built"
done

# 4. One directory per kernel to run in, with that kernel's modules.
rundir_for() {
	local kdir
	kdir=$(kdir_of "$1")
	run_dir "$1"
	ln -s "$out/modules-${kdir##*/kernel-}"/test_kmods/*.ko "$out/run-$1/"
	echo "$out/run-$1"
}

# 5. The guests. test_progs' own exit status is written to a file: the
# guest's status is then that of the boot itself (a splat, a crash or
# the timeout). test_xsk.sh after it, with huge pages for xskxceiver's
# unaligned-mode UMEMs, then xskxceiver's zero-copy run on igb into the
# same log; the table reads their TAP lines.
args=(-d "@$lists/DENYLIST" -d "@$selftests_src/DENYLIST")
[ "$selection" = all ] || args+=(-a "@$lists/ALLOWLIST")
status=0
logs=()
xsk_logs=()
for k in $kernels; do
	rundir=$(rundir_for "$k")
	log=$results/selftests-$k.log
	xsk_log=$results/test_xsk-$k.log
	flavour=selftests; [ "$k" = upstream ] && flavour=upstream-selftests
	append=; [ "$k" = patched-off ] && append=bpf_dispatcher=off
	kargs=("${args[@]}")
	step "test_progs on the $k kernel (SELFTESTS=$selection; log: ${log#$TOP/})"
	rm -f "$rundir/status" "$log" "$xsk_log"
	start=$(date +%s)
	set +e
	KERNEL=$flavour VM_APPEND=$append VM_MEM=${VM_MEM:-4G} VM_TIMEOUT=${VM_TIMEOUT:-5400} \
	CMD="cd $rundir && ./test_progs ${kargs[*]} >$log 2>&1; echo \$? >$rundir/status; tail -n 3 $log;
		echo 64 >/proc/sys/vm/nr_hugepages; stdbuf -oL ./test_xsk.sh >$xsk_log 2>&1;
		stdbuf -oL $TOP/guest/xsk-igb-zc.sh >>$xsk_log 2>&1; tail -n 2 $xsk_log" \
		"$TOP/testbed/vm.sh"
	rc=$?
	set -e
	say "  $k: $(($(date +%s) - start)) s in the guest, test_progs exit $(cat "$rundir/status" 2>/dev/null || echo none)"
	if [ "$rc" -ne 0 ]; then
		say "error: the $k guest did not end cleanly (status $rc): see build/vm/console-$flavour.log" >&2
		echo "guest-failed $rc" >>"$log"
		status=1
	fi
	logs+=("$log")
	xsk_logs+=("$xsk_log")
done

table "${logs[@]}" "${xsk_logs[@]}" || status=1
cat "$results/selftests.txt"
exit "$status"
