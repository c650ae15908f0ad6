#!/bin/sh
# In a make run guest: the kernel's own "test_progs -t xdp_perf" (1,000,000
# BPF_PROG_TEST_RUN repeats of xdp_dummy), printed as test_progs prints it,
# and its wall time (TCG: to compare between kernels as a ratio only).
#   test-progs-xdp-perf.sh RUNDIR OUT
rundir=$1
out=$2
cd "$rundir" || exit 1
start=$(date +%s%N)
./test_progs -t xdp_perf >"$out.log" 2>&1
rc=$?
end=$(date +%s%N)
# test_progs warns that bpf_testmod.ko cannot load (these kernels have no
# modules) and that it cannot sync RCU through membarrier() (not in the
# test bed's config); xdp_perf needs neither.
grep -v -e 'bpf_testmod' -e 'Failed to load' -e 'kernel-side RCU sync' "$out.log" >"$out"
echo "wall_ms $(((end - start) / 1000000))" >>"$out"
rm -f "$out.log"
cat "$out"
exit $rc
