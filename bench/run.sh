#!/usr/bin/env bash
# make bench: run bench/dispatcher_bench in the guest on the upstream
# kernel, the patched kernel, and the patched kernel booted with
# bpf_dispatcher=off; tabulate into build/results/dispatcher.txt.
set -euo pipefail
. "$(dirname "$0")/../testbed/lib.sh"

results=$BUILD/results
mkdir -p "$results"
bench=$BUILD/bench/dispatcher_bench

runs=${BENCH_RUNS:-1}
case $runs in ''|*[!0-9]*|0) die "BENCH_RUNS=$runs: give a number of runs, 1 or more" ;; esac

run() {	# run NAME KERNEL APPEND I: the I-th run on a kernel, into bench-NAME.I.txt
	local out=$results/bench-$1.$4.txt
	step "benchmark on the $1 kernel (run $4 of $runs)"
	KERNEL=$2 VM_APPEND=$3 CMD="$bench >$out.tmp" VM_TIMEOUT=1800 \
		"$TOP/testbed/vm.sh" >/dev/null || die "the benchmark failed on the $1 kernel"
	# The redirect and chain rows count instructions (QEMU -icount):
	# wall-clock TCG time moved by 25% with where the linker put devmap.c,
	# not with the code, and TCG makes a return (a lookup of the code to go
	# back to) far dearer than a jump, which no CPU does: it ranked tail
	# calls above direct calls.
	KERNEL=$2 VM_APPEND=$3 VM_ICOUNT=1 \
		CMD="$bench redirect >>$out.tmp && $bench chains >>$out.tmp &&
			$bench xdp-perf | sed 's/_perf_ns\./_perf_insns./' >>$out.tmp" \
		VM_TIMEOUT=1800 "$TOP/testbed/vm.sh" >/dev/null ||
		die "the redirect or chains benchmark failed on the $1 kernel"
	mv "$out.tmp" "$out"
}
rm -f "$results"/bench-*.txt
# Runs interleave the kernels, so a drift of the host touches them alike.
for i in $(seq "$runs"); do
	run upstream upstream "" "$i"
	run patched patched "" "$i"
	run off patched bpf_dispatcher=off "$i"
done

# A figure: the median of its runs (the lower middle one of an even count).
val() {
	cat "$results"/bench-"$1".*.txt | awk -v k="$2" '$1 == k { print $2 }' | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
# How many times better patched is: cost upstream/patched, rate patched/upstream.
gain() {
	case $1 in
	*images_per_s*) awk -v a="$2" -v b="$3" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }' ;;
	*per_s*) awk -v a="$3" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }' ;;
	*) awk -v a="$2" -v b="$3" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }' ;;
	esac
}
# A over B, to two places, or - where either is missing.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2fx", a / b; else print "-" }'; }

{
	echo "Dispatcher benchmarks, $(date -u +%F), QEMU TCG (emulated: compare ratios only)"
	echo "each figure the median of $runs run(s) (BENCH_RUNS), each run's the median of its samples"
	echo
	printf '%-34s %12s %12s %12s %10s\n' "figure" "upstream" "patched" "disp=off" "gain"
	for k in attach_detach_us attach_detach_new_us test_run_us.1 test_run_us.2 \
		 test_run_new_us.2 parallel_calls_per_s.1 \
		 parallel_calls_per_s.4 alternating_images_per_s.2 alternating_images_per_s.8 \
		 alternating_images_per_s.64 alternating_runs_per_s.2 alternating_runs_per_s.8 \
		 alternating_runs_per_s.64 devmap_redirect_ns.array \
		 devmap_redirect_ns.hash devmap_redirect_ns.broadcast xsk_redirect_ns xsk_rx_per_s \
		 igb_devmap_per_s igb_xsk_zc_per_s.1 igb_xsk_zc_per_s.2 xdp_perf_ns.0 xdp_perf_ns.1 xdp_perf_ns.47 \
		 xdp_perf_ns.48 xdp_perf_ns.49 xdp_perf_ns.1024 \
		 tc_perf_ns.0 tc_perf_ns.1 tc_perf_ns.48 tc_perf_ns.49 tc_perf_ns.1024 \
		 xdp_perf_insns.0 xdp_perf_insns.1 xdp_perf_insns.48 xdp_perf_insns.1024 \
		 tc_perf_insns.0 tc_perf_insns.1 tc_perf_insns.48 tc_perf_insns.1024 \
		 flow_dissector_perf_ns sk_lookup_perf_ns sk_lookup_udp_per_s netkit_frames_per_s; do
		u=$(val upstream "$k"); p=$(val patched "$k"); o=$(val off "$k")
		printf '%-34s %12s %12s %12s %10s\n' "$k" "$u" "$p" "$o" "$(gain "$k" "$u" "$p")"
	done
	echo
	echo "gain: how many times better patched is than upstream (cost ratio, or rate ratio)"
	echo "xdp_perf_ns.N: ns/run of a trivial XDP program with N other programs attached"
	echo "tc_perf_ns.N: ns/run of a trivial SCHED_CLS program with N other tc programs attached"
	echo "xdp_perf_insns.N, tc_perf_insns.N: the same runs booted with QEMU -icount shift=0:"
	echo "  guest instructions per run"
	echo "attach_detach_new_us, test_run_new_us.2: a program new to the dispatcher each time"
	echo "test_run_us.R: one BPF_PROG_TEST_RUN call, repeat R, program attached nowhere"
	echo "parallel_calls_per_s.P: repeat=2 test runs per second from P processes"
	echo "alternating_images_per_s.K, alternating_runs_per_s.K: static call updates (kprobe on"
	echo "  __static_call_update) and test runs per second while repeat=2 test runs alternate"
	echo "  between K programs; gain for images: upstream/patched (fewer is better)"
	echo "flow_dissector_perf_ns, sk_lookup_perf_ns: ns/run of a trivial program of that type"
	echo "sk_lookup_udp_per_s: UDP datagrams a second steered by an attached sk_lookup program"
	echo "netkit_frames_per_s: frames a second through a netkit pair, its primary's program counting"
	echo "devmap_redirect_ns.M: per frame, live-frames test run redirecting through devmap M to veths,"
	echo "  booted with QEMU -icount shift=0: one ns is one guest instruction"
	echo "xsk_redirect_ns: the same through an XSKMAP to an AF_XDP socket of the frames' queue (copy mode)"
	echo "xsk_rx_per_s: frames a second that socket takes of pktgen's traffic into a veth (-icount too)"
	echo "igb_*: pktgen's frames between two igb NICs joined by QEMU, in igb's NAPI path (-icount:"
	echo "  1e9 / rate is the guest's instructions a frame, pktgen's sending included);"
	echo "  igb_devmap_per_s: redirected through a devmap and taken by a third igb NIC's driver;"
	echo "  igb_xsk_zc_per_s.Q: taken by zero-copy AF_XDP sockets on Q queues (rxdrop; RSS spreads"
	echo "  256 source addresses); none where QEMU emulates no igb (QEMU 7.2)"
	echo
	echo "XDP frames per second through N programs on one veth (native XDP), pktgen sending"
	echo "64-byte frames from its peer; N - 1 programs pass, the last drops (dispatcher_bench"
	echo "chains); booted with QEMU -icount shift=0: 1e9 / rate is the guest's instructions a frame"
	printf '%4s %11s %11s %11s %11s %11s %11s %9s %9s\n' "" "upstream" "upstream" \
		"patched" "patched" "patched" "disp=off" "mprog/" "mprog/"
	printf '%4s %11s %11s %11s %11s %11s %11s %9s %9s\n' N libxdp tail libxdp tail \
		mprog mprog "libxdp" "tail"
	for n in 1 2 8 32 64; do
		ul=$(val upstream "xdp_chain_pps.libxdp.$n"); ut=$(val upstream "xdp_chain_pps.tail.$n")
		pl=$(val patched "xdp_chain_pps.libxdp.$n"); pt=$(val patched "xdp_chain_pps.tail.$n")
		pm=$(val patched "xdp_chain_pps.mprog.$n"); om=$(val off "xdp_chain_pps.mprog.$n")
		printf '%4s %11s %11s %11s %11s %11s %11s %9s %9s\n' "$n" "${ul:--}" "${ut:--}" \
			"${pl:--}" "${pt:--}" "${pm:--}" "${om:--}" \
			"$(ratio "$pm" "$ul")" "$(ratio "$pm" "$ut")"
	done
	echo "libxdp: Debian's xdp-loader, libxdp's dispatcher program and its freplace'd slots"
	echo "  (10 at most); tail: a root program tail-calling the first, each the next (Katran,"
	echo "  l3af; the kernel stops a chain at 33 tail calls); mprog: the series' BPF_XDP_NATIVE"
	echo "  attach, one program or a chain (an image with images on, a loop with them off);"
	echo "  mprog/X: patched mprog's rate over upstream X's"
} | tee "$results/dispatcher.txt"
