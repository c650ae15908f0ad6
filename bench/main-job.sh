#!/bin/sh
# make run, inside the guest: real packets through native XDP on a veth
# pair, measured with the field's tools: pktgen sends, xdp-bench drops and
# counts, perf shows where the CPU went (the dispatcher image among it).
set -eu
RESULTS=$BUILD/results
mkdir -p "$RESULTS"
PG=/proc/net/pktgen
SECONDS_RUN=${SECONDS_RUN:-8}

echo "== kernel $(uname -r); spectre_v2: $(cat /sys/devices/system/cpu/vulnerabilities/spectre_v2)"
echo "== figures below are emulated (QEMU TCG): compare them only as ratios"

ip link add pg0 type veth peer name pg1
ip link set pg0 up
ip link set pg1 up

# pktgen: 64-byte UDP frames from pg0, received by pg1's native XDP.
echo "rem_device_all" >$PG/kpktgend_0
echo "add_device pg0" >$PG/kpktgend_0
for c in "count 0" "pkt_size 64" "dst 198.18.0.2" \
	"dst_mac $(cat /sys/class/net/pg1/address)"; do
	echo "$c" >$PG/pg0
done

echo "== xdp-bench drop pg1 (native XDP), pktgen sending from pg0 for ${SECONDS_RUN}s"
timeout -s INT "$SECONDS_RUN" xdp-bench drop pg1 -m native -i 2 >"$RESULTS/xdp-bench-drop.txt" 2>&1 &
bench=$!
sleep 1
echo start >$PG/pgctrl &
sleep 1
grep -w 'bpf_dispatcher_xdp' /proc/kallsyms | sed 's/^/   kallsyms: /'
perf record -q -e cpu-clock -a -o /tmp/main-job.perf -- sleep 3
wait "$bench" || true
echo stop >$PG/pgctrl
cat "$RESULTS/xdp-bench-drop.txt"

echo "== perf: top kernel symbols while XDP ran (bpf_dispatcher_xdp is the dispatcher image)"
perf report -i /tmp/main-job.perf --stdio --sort sym 2>/dev/null |
	grep -v '^#' | grep -v '^$' | head -n 15 | tee "$RESULTS/perf-top.txt"
grep -q 'bpf_dispatcher_xdp' "$RESULTS/perf-top.txt" ||
	perf report -i /tmp/main-job.perf --stdio --sort sym 2>/dev/null | grep 'bpf_dispatcher_xdp' || true
echo "== results in $RESULTS"
