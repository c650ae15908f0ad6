#!/usr/bin/env bash
# The real-CPU harness of the series (tools/testing/bpf_dispatcher), on the
# host: builds it from build/linux, then
#   emitter.sh fuzz SECONDS    fuzz the emitter (ASan, UBSan), as an SMP kernel
#                              builds it and, where the series builds one, as
#                              a UP kernel does (SECONDS each)
#   emitter.sh bench           ns per call -> build/results/emitter.{csv,png}
#   emitter.sh report          make run's part: 1, 48, 1024 programs, same
#                              target, round-robin, random -> results/run-cpu.txt
set -euo pipefail
. "$(dirname "$0")/lib.sh"

harness=$TREE/tools/testing/bpf_dispatcher
if [ ! -f "$harness/Makefile" ]; then
	say "skip: the series has no tools/testing/bpf_dispatcher in build/linux"
	exit 0
fi
make -s -C "$harness" >/dev/null || die "building the emitter harness failed"

# timed_runs NAME RUNS ARGS...: RUNS runs of "dispatcher_bench bench ARGS",
# each into results/NAME-runR.{csv,txt}, and results/NAME.csv the median
# of each figure over them.
timed_runs() {
	local name=$1 runs=$2 r
	shift 2
	rm -f "$results/$name"-run*.csv
	for r in $(seq "$runs"); do
		"$harness/dispatcher_bench" bench "$@" -o "$results/$name-run$r.csv" \
			>"$results/$name-run$r.txt" || die "the harness benchmark failed (run $r)"
		say "run $r of $runs done"
	done
	cat "$results/$name"-run*.csv | awk -f "$TOP/bench/emitter-median.awk" >"$results/$name.csv"
}

results=$BUILD/results
case ${1:-} in
fuzz)
	for fuzzer in dispatcher_fuzz dispatcher_fuzz_up; do
		[ -x "$harness/$fuzzer" ] || continue
		step "fuzzing the dispatcher emitter on the host CPU for ${2:-5} s ($fuzzer)"
		"$harness/$fuzzer" fuzz -t "${2:-5}" ${SEED:+-s "$SEED"} || exit 1
	done
	;;
bench)
	mkdir -p "$results"
	runs=${BENCH_CPU_RUNS:-3}
	step "timing dispatcher images on the host CPU: $runs runs, medians (about a minute each)"
	timed_runs emitter "$runs"
	head -n 4 "$results/emitter-run1.txt"
	sed -n '1,/^ *N pattern/p' "$results/emitter-run1.txt" | sed '$d' >"$results/emitter.txt"
	say "each figure the median of $runs runs, each run's the median of its repetitions" >>"$results/emitter.txt"
	say "the policy against the call it replaces (disp: the policy's choice; off: images off):" >>"$results/emitter.txt"
	awk -f "$TOP/bench/emitter-table.awk" "$results/emitter.csv" >>"$results/emitter.txt"
	say "the same for NAPI runs of 64, bursts of 1 to 32, a mix (half the calls to one):" >>"$results/emitter.txt"
	awk -v MORE=1 -f "$TOP/bench/emitter-table.awk" "$results/emitter.csv" >>"$results/emitter.txt"
	say "every indirect call a kernel can make (ns per call):" >>"$results/emitter.txt"
	awk -v CALLS=1 -f "$TOP/bench/emitter-table.awk" "$results/emitter.csv" >>"$results/emitter.txt"
	cat "$results/emitter.txt"
	awk -f "$TOP/bench/emitter-table.awk" "$results/emitter.csv" >"$results/emitter-table.txt"
	awk -v SHAPE=tree -f "$TOP/bench/emitter-table.awk" "$results/emitter.csv" >"$results/emitter-tree.txt"
	gnuplot -e "csv='$results/emitter.csv'; out='$results/emitter.png'" "$TOP/bench/emitter.gp"
	say "written: $results/emitter.csv, emitter.txt, emitter.png"
	;;
report)
	# make run's real-CPU part: the rows that matter, in a minute or two.
	mkdir -p "$results"
	runs=${BENCH_CPU_RUNS:-5}
	step "timing base's call, the kernel's choice and a direct call on this CPU: $runs runs of 1, 48, 1024 programs"
	timed_runs run-cpu "$runs" -n 1,48,1024 -p same,round-robin,random
	{
		head -n 4 "$results/run-cpu-run1.txt" | sed 's/^/  /'
		say "  base: the call without images (upstream's); kernel's choice: the hook as this"
		say "  kernel runs it (the image the policy chose, or base's call when it chose off or"
		say "  none); tree: a tree image; ns per call, medians of $runs runs. same: every call"
		say "  to one program; round-robin: the N programs in turn; random: at random."
		awk -f "$TOP/bench/run-cpu-table.awk" "$results/run-cpu.csv"
	} >"$results/run-cpu.txt"
	awk -v DAT=1 -f "$TOP/bench/run-cpu-table.awk" "$results/run-cpu.csv" >"$results/run-cpu.dat"
	cat "$results/run-cpu.txt"
	;;
*)
	die "usage: emitter.sh fuzz [SECONDS] | bench | report"
	;;
esac
