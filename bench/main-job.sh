#!/bin/sh
# make run, inside the guest of the patched kernel: real packets through
# native XDP on a veth pair, measured with the field's own tools. pktgen
# sends 64-byte frames; xdp-bench (xdp-tools, the successor of samples/bpf
# xdp_rxq_info) drops, passes, bounces and redirects them through a devmap
# to a second veth pair, and counts rx/s; perf (built from the series'
# tree) records where the CPU goes while it drops, and perf annotate shows
# the dispatcher image with its samples. Results land in build/results/.
set -eu
RESULTS=$BUILD/results
mkdir -p "$RESULTS"
PG=/proc/net/pktgen
SECONDS_EACH=${SECONDS_EACH:-6}

echo "== kernel $(uname -r); spectre_v2: $(cut -d';' -f1 /sys/devices/system/cpu/vulnerabilities/spectre_v2)"
echo "== figures are emulated (QEMU TCG): compare them only as ratios"

ip link add pg0 type veth peer name pg1
ip link set pg0 up
ip link set pg1 up
# The redirect target: a veth takes redirected frames only while its peer
# has an XDP program (xdp_count passes pktgen's UDP frames on).
ip link add rd0 type veth peer name rd1
ip link set rd0 up
ip link set rd1 up
ip link set dev rd1 xdpdrv obj "$BUILD/progs/xdp_count.bpf.o" sec xdp

# pktgen: 64-byte UDP frames from pg0, to pg1's native XDP program.
echo "rem_device_all" >$PG/kpktgend_0
echo "add_device pg0" >$PG/kpktgend_0
for c in "count 0" "pkt_size 64" "dst 198.18.0.2" \
	"dst_mac $(cat /sys/class/net/pg1/address)"; do
	echo "$c" >$PG/pg0
done
echo start >$PG/pgctrl &
pktgen=$!

# perf record --kcore -a for 2 s into /tmp/$1.perf, then perf annotate of
# bpf_dispatcher_$1 into run-annotate-$1.txt: perf takes the image's bytes
# from its kcore copy, and shows them up to the next symbol (kallsyms has
# no sizes: bpf_prog_pack's int3 fill follows the image).
record_annotate() {	# record_annotate xdp|tc
	perf record -q --kcore -e cpu-clock -a -o "/tmp/$1.perf" -- sleep 2
	perf annotate -i "/tmp/$1.perf" --stdio -s "bpf_dispatcher_$1" 2>&1 |
		head -n 30 >"$RESULTS/run-annotate-$1.txt"
}

# One xdp-bench run; its last Summary line into run-pps.txt.
bench() {	# bench ACTION [perf | TARGET]
	out=$RESULTS/xdp-bench-$1.txt
	target=
	[ "${2:-perf}" = perf ] || target=$2
	# shellcheck disable=SC2086 # no target: no argument
	timeout -s INT "$SECONDS_EACH" xdp-bench "$1" pg1 $target -m native -i 2 >"$out" 2>&1 &
	b=$!
	if [ "${2:-}" = perf ]; then
		sleep 2
		record_annotate xdp
		perf report -i /tmp/xdp.perf --stdio --sort sym 2>/dev/null |
			grep -v '^#' | grep -v '^$' | head -n 12 >"$RESULTS/run-perf-top.txt"
	fi
	wait "$b" || true
	rx=$(sed -n 's/^ *Average packets\/s *: *\([0-9,]*\).*/\1/p' "$out" | tr -d ,)
	printf '%-12s %12s rx/s\n' "$1" "${rx:-?}" | tee -a "$RESULTS/run-pps.txt"
}

: >"$RESULTS/run-pps.txt"
echo "== xdp-bench on pg1 (native XDP, veth), pktgen sending from pg0, ${SECONDS_EACH} s each"
bench drop perf
bench pass
bench tx
bench redirect-map rd0
# tc: cls_bpf on pg1's ingress and no XDP program, so pktgen's frames
# reach the tc hook, through bpf_dispatcher_tc.
echo "== tc: tc_pass (cls_bpf, direct-action) on pg1's ingress, pktgen sending"
tc qdisc add dev pg1 clsact
tc filter add dev pg1 ingress bpf direct-action obj "$BUILD/progs/tc_pass.bpf.o" sec tc
sleep 2
record_annotate tc
tc qdisc del dev pg1 clsact
kill "$pktgen" 2>/dev/null || true
echo stop >$PG/pgctrl 2>/dev/null || true
wait "$pktgen" 2>/dev/null || true

echo "== perf, while xdp-bench drop ran: top kernel symbols"
cat "$RESULTS/run-perf-top.txt"
for hook in xdp tc; do
	echo "== perf annotate of bpf_dispatcher_$hook, from perf record --kcore"
	echo "   (under TCG samples land on the first instruction of each translated block)"
	cat "$RESULTS/run-annotate-$hook.txt"
done
echo "== the XDP dispatcher as debugfs shows it"
sed 's/^/   /' /sys/kernel/debug/bpf_dispatcher/xdp 2>/dev/null || echo "   (no dispatcher file: not the patched kernel)"

ip link del pg0
ip link del rd0
# xdp_perf: one trivial program's ns/run through BPF_PROG_TEST_RUN.
"$BUILD/bench/dispatcher_bench" xdp-perf >"$RESULTS/run-xdp-perf-patched.txt"
