#!/usr/bin/env bash
# make run: the dispatcher at work, in one go. First the real-CPU part: the
# series' harness times, on this machine's CPU, base's indirect call, the
# image the kernel would choose and a direct call (testbed/emitter.sh
# report). Then three guests, QEMU TCG: the patched kernel, the same booted
# with bpf_dispatcher=off, and upstream, each running guest/make-run-job.sh
# (xdp-bench with pktgen, xdp_perf and tc_perf; perf annotate of the
# images on the patched one) and the kernel's own test_progs -t xdp_perf
# (built by testbed/selftests.sh). Then a report and a chart in
# build/results/.
set -euo pipefail
. "$(dirname "$0")/../testbed/lib.sh"

results=$BUILD/results
mkdir -p "$results"
rm -f "$results"/run-*.txt "$results"/run-*.dat

"$TOP/testbed/emitter.sh" report

# test_progs, built against the selftests kernel's BTF; its xdp_perf runs
# on the test bed's kernels.
"$TOP/testbed/selftests.sh" build
guest_job() {	# guest_job KERNEL [annotate]: the guest's command
	echo "$TOP/guest/make-run-job.sh $* && $TOP/guest/test-progs-xdp-perf.sh" \
		"$BUILD/selftests/run-testbed $results/run-test-progs-$1.txt"
}

kernels="patched off upstream"
step "the patched kernel: xdp-bench drop, pass, tx, redirect-map; perf annotate; xdp_perf, tc_perf; test_progs -t xdp_perf"
KERNEL=patched CMD="$(guest_job patched annotate)" VM_TIMEOUT=900 "$TOP/testbed/vm.sh"
step "the patched kernel with bpf_dispatcher=off: the same without perf"
KERNEL=patched VM_APPEND=bpf_dispatcher=off VM_TIMEOUT=900 CMD="$(guest_job off)" \
	"$TOP/testbed/vm.sh"
step "the upstream kernel: the same without perf"
KERNEL=upstream VM_TIMEOUT=900 CMD="$(guest_job upstream)" "$TOP/testbed/vm.sh"

# One row per key (an action, a number of other programs), one column per
# kernel: the .dat for gnuplot, the .txt for people.
columns() {	# columns FILE-PREFIX KEY-PREFIX TITLE ROW-SUFFIX OUT
	{
		echo "key $kernels"
		for key in $(awk -v p="$2" 'p == "" || index($1, p) == 1 { print $1 }' "$results/$1-patched.txt"); do
			printf '%s' "${key#"$2"}"
			for k in $kernels; do
				printf ' %s' "$(awk -v k="$key" '$1 == k { print $2 }' "$results/$1-$k.txt")"
			done
			echo
		done
	} >"$results/$5.dat"
	awk -v t="$3" -v s="$4" 'NR == 1 { printf "%-26s", t }
	     NR > 1 { printf "%-26s", $1 s }
	     { for (i = 2; i <= NF; i++) printf "%12s", $i; print "" }' \
		"$results/$5.dat" >"$results/$5.txt"
}
columns run-pps "" "xdp-bench rx/s (TCG)" "" run-pps
columns run-xdp-perf xdp_perf_ns. "xdp_perf ns/run (TCG)" " other programs" run-xdp-perf
columns run-xdp-perf tc_perf_ns. "tc_perf ns/run (TCG)" " other programs" run-tc-perf

{
	echo "make run, $(date -u '+%F %H:%M') UTC: the BPF dispatcher at work"
	echo
	echo "1. On this machine's CPU (real time, the series' harness: ns per call)"
	echo
	cat "$results/run-cpu.txt"
	echo
	echo "2. In QEMU TCG guests (emulated: correctness, counts and ratios between"
	echo "   kernels; TCG does not model speculation, so it cannot show what a"
	echo "   dispatcher saves: part 1 does). patched: the series; off: the same"
	echo "   kernel booted with bpf_dispatcher=off; upstream: Debian's 7.3 unpatched."
	echo
	echo "Packets per second, xdp-bench (native XDP), pktgen 64-byte frames: on a veth"
	echo "pair (redirect-map: through a devmap to a second veth pair); igb: between two"
	echo "igb NICs joined by QEMU, in igb's NAPI path (redirect-map: to a third igb NIC):"
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
	echo "Where the CPU went in 5 s of pktgen's frames, xdp_pass attached 2 s in (perf, patched):"
	sed 's/^/  /' "$results/run-perf-top.txt"
	for name in xdp xdp-igb tc; do
		[ -f "$results/run-annotate-$name.txt" ] || continue
		echo
		case $name in
		xdp-igb) echo "perf annotate of bpf_dispatcher_xdp in igb's NAPI path (pktgen from igb):" ;;
		*) echo "perf annotate of bpf_dispatcher_$name (pktgen into a veth):" ;;
		esac
		echo "(the tree's perf; perf record ran while the image was made, so its ksymbol"
		echo "event gives its size)"
		sed 's/^/  /' "$results/run-annotate-$name.txt"
	done
} >"$results/run-report.txt"

cpu="$(sed -n 's/^  CPU: //p' "$results/run-cpu.txt"), $(sed -n 's/^  spectre_v2: //p' "$results/run-cpu.txt" | cut -d';' -f1)"
gnuplot -e "dir='$results'; kernels='$kernels'; cpu='${cpu//\'/}'" "$TOP/bench/run-chart.gp"
echo
cat "$results/run-report.txt"
say ""
say "written: $results/run-report.txt, run-chart.png"
