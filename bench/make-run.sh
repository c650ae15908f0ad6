#!/usr/bin/env bash
# make run: the dispatcher at work, in one go. The guest of the patched
# kernel runs bench/main-job.sh (xdp-bench with pktgen, perf, the image
# annotated, xdp_perf and tc_perf); guests booted with bpf_dispatcher=off and, when it
# is built, of the upstream kernel run those two alone. Then a report and a
# chart in build/results/.
set -euo pipefail
. "$(dirname "$0")/../testbed/lib.sh"

results=$BUILD/results
mkdir -p "$results"
rm -f "$results"/run-*.txt

step "the patched kernel: xdp-bench drop, pass, tx, redirect-map; perf; xdp_perf, tc_perf"
CMD="$TOP/bench/main-job.sh" VM_TIMEOUT=900 "$TOP/testbed/vm.sh"

step "the patched kernel with bpf_dispatcher=off: xdp_perf, tc_perf"
KERNEL=patched VM_APPEND=bpf_dispatcher=off VM_TIMEOUT=600 \
	CMD="$BUILD/bench/dispatcher_bench xdp-perf >$results/run-xdp-perf-off.txt" \
	"$TOP/testbed/vm.sh" >/dev/null
kernels="patched off"
if [ -f "$BUILD/kernel-upstream/arch/x86/boot/bzImage" ]; then
	step "the upstream kernel: xdp_perf, tc_perf"
	KERNEL=upstream VM_TIMEOUT=600 \
		CMD="$BUILD/bench/dispatcher_bench xdp-perf >$results/run-xdp-perf-upstream.txt" \
		"$TOP/testbed/vm.sh" >/dev/null
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
	echo "Where the CPU went while xdp-bench dropped (perf):"
	sed 's/^/  /' "$results/run-perf-top.txt"
	echo
	echo "The dispatcher image (debugfs bpf_dispatcher/xdp.image), with its perf samples:"
	sed 's/^/  /' "$results/run-annotate.txt"
} >"$results/run-report.txt"

gnuplot -e "dir='$results'; kernels='$kernels'" "$TOP/bench/run-chart.gp"
echo
cat "$results/run-report.txt"
say ""
say "written: $results/run-report.txt, run-chart.png"
