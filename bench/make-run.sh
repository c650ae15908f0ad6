#!/usr/bin/env bash
# make run: the dispatcher at work, in one go. The guest of the patched
# kernel runs bench/main-job.sh (xdp-bench with pktgen, perf, the image
# annotated, xdp_perf and tc_perf); guests booted with bpf_dispatcher=off and, when it
# is built, of the upstream kernel run those two alone. Each guest also runs
# the kernel's own test_progs -t xdp_perf (built by testbed/selftests.sh).
# Then a report and a chart in build/results/.
set -euo pipefail
. "$(dirname "$0")/../testbed/lib.sh"

results=$BUILD/results
mkdir -p "$results"
rm -f "$results"/run-*.txt

# test_progs, built against the selftests kernel's BTF; its xdp_perf runs
# on the test bed's kernels.
"$TOP/testbed/selftests.sh" build
test_progs() {	# test_progs KERNEL: the guest command's tail
	echo "$TOP/bench/test-progs-xdp-perf.sh $BUILD/selftests/run-testbed $results/run-test-progs-$1.txt"
}

step "the patched kernel: xdp-bench drop, pass, tx, redirect-map; perf; xdp_perf, tc_perf; test_progs -t xdp_perf"
KERNEL=patched CMD="$TOP/bench/main-job.sh && $(test_progs patched)" VM_TIMEOUT=900 \
	"$TOP/testbed/vm.sh"

step "the patched kernel with bpf_dispatcher=off: xdp_perf, tc_perf; test_progs -t xdp_perf"
KERNEL=patched VM_APPEND=bpf_dispatcher=off VM_TIMEOUT=600 \
	CMD="$BUILD/bench/dispatcher_bench xdp-perf >$results/run-xdp-perf-off.txt && $(test_progs off)" \
	"$TOP/testbed/vm.sh"
kernels="patched off"
if [ -f "$BUILD/kernel-upstream/arch/x86/boot/bzImage" ]; then
	step "the upstream kernel: xdp_perf, tc_perf; test_progs -t xdp_perf"
	KERNEL=upstream VM_TIMEOUT=600 \
		CMD="$BUILD/bench/dispatcher_bench xdp-perf >$results/run-xdp-perf-upstream.txt && $(test_progs upstream)" \
		"$TOP/testbed/vm.sh"
	kernels="patched off upstream"
fi

# xdp_perf and tc_perf: one row per number of other programs, one column
# per kernel; the .dat for gnuplot, the .txt for people.
table() {	# table PREFIX TITLE
	{
		echo "N $kernels"
		for key in $(awk -v p="$1_ns." 'index($1, p) == 1 { print $1 }' \
				"$results/run-xdp-perf-patched.txt"); do
			printf '%s' "${key#"$1"_ns.}"
			for k in $kernels; do
				printf ' %s' "$(awk -v k="$key" '$1 == k { print $2 }' \
					"$results/run-xdp-perf-$k.txt")"
			done
			echo
		done
	} >"$results/run-${1/_/-}.dat"
	awk -v t="$2" 'NR == 1 { printf "%-26s", t }
	     NR > 1 { printf "%-26s", $1 " other programs" }
	     { for (i = 2; i <= NF; i++) printf "%12s", $i; print "" }' \
		"$results/run-${1/_/-}.dat" >"$results/run-${1/_/-}.txt"
}
table xdp_perf "xdp_perf ns/run (TCG)"
table tc_perf "tc_perf ns/run (TCG)"

{
	echo "make run, $(date -u '+%F %H:%M') UTC: the BPF dispatcher at work"
	echo "QEMU TCG: emulated figures, to compare as ratios only"
	echo
	echo "Packets per second, xdp-bench on a veth pair (native XDP), pktgen 64-byte frames"
	echo "(redirect-map: through a devmap to a second veth pair):"
	sed 's/^/  /' "$results/run-pps.txt"
	echo
	echo "One XDP program's cost under BPF_PROG_TEST_RUN, with N other programs attached:"
	sed 's/^/  /' "$results/run-xdp-perf.txt"
	echo
	echo "One tc (SCHED_CLS) program's cost, with N other tc programs attached (tcx):"
	sed 's/^/  /' "$results/run-tc-perf.txt"
	echo
	echo "The kernel's own selftest, test_progs -t xdp_perf (1,000,000 test runs of"
	echo "xdp_dummy), as test_progs printed it on each kernel; wall_ms is TCG time:"
	for k in $kernels; do
		echo "  $k:"
		sed 's/^/    /' "$results/run-test-progs-$k.txt"
	done
	base=$(awk '$1 == "wall_ms" { print $2 }' "$results/run-test-progs-patched.txt")
	printf '  wall time against the patched kernel:'
	for k in $kernels; do
		awk -v k="$k" -v base="$base" '$1 == "wall_ms" { printf "  %s %.2fx", k, $2 / base }' \
			"$results/run-test-progs-$k.txt"
	done
	echo
	echo
	echo "Where the CPU went while xdp-bench dropped (perf):"
	sed 's/^/  /' "$results/run-perf-top.txt"
	echo
	for hook in xdp tc; do
		echo
		echo "perf annotate of bpf_dispatcher_$hook (the tree's perf, perf record --kcore):"
		sed 's/^/  /' "$results/run-annotate-$hook.txt"
	done
} >"$results/run-report.txt"

gnuplot -e "dir='$results'; kernels='$kernels'" "$TOP/bench/run-chart.gp"
echo
cat "$results/run-report.txt"
say ""
say "written: $results/run-report.txt, run-chart.png"
