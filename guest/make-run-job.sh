#!/bin/sh
# make run, inside a guest: real packets through native XDP on a veth pair,
# measured with the field's own tools, then xdp_perf and tc_perf.
#   make-run-job.sh KERNEL [annotate]
# KERNEL (patched, off, upstream) names the results: run-pps-KERNEL.txt,
# run-xdp-perf-KERNEL.txt. pktgen sends 64-byte frames; xdp-bench
# (xdp-tools, the successor of samples/bpf xdp_rxq_info) drops, passes,
# bounces and redirects them through a devmap to a second veth pair, and
# counts rx/s. With "annotate", perf (built from the series' tree) then
# records while the XDP and tc dispatchers' images are made and used, and
# annotates them (run-annotate-{xdp,tc}.txt, run-perf-top.txt).
set -eu
KERNEL=$1
ANNOTATE=${2:-}
RESULTS=$BUILD/results
mkdir -p "$RESULTS"
PG=/proc/net/pktgen
SECONDS_EACH=${SECONDS_EACH:-6}
PPS=$RESULTS/run-pps-$KERNEL.txt
# xdp-bench and xdp-loader of make xdp-tools: Debian 12's 1.3.1 cannot load
# on 7.3 (it attaches to a tracepoint 7.3 no longer has).
PATH=$BUILD/xdp-tools/install/sbin:$PATH
[ -x "$BUILD/xdp-tools/install/sbin/xdp-bench" ] ||
	echo "== no build/xdp-tools (make xdp-tools): Debian's xdp-bench, which cannot load on 7.3"

echo "== $KERNEL: kernel $(uname -r); spectre_v2: $(cut -d';' -f1 /sys/devices/system/cpu/vulnerabilities/spectre_v2)"
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

# pktgen: 64-byte UDP frames from TX to RX's MAC, until pktgen_stop.
pktgen_start() {	# pktgen_start TX RX
	echo "rem_device_all" >$PG/kpktgend_0
	echo "add_device $1" >$PG/kpktgend_0
	for c in "count 0" "pkt_size 64" "dst 198.18.0.2" \
		"dst_mac $(cat /sys/class/net/"$2"/address)"; do
		echo "$c" >$PG/"$1"
	done
	echo start >$PG/pgctrl &
	pktgen=$!
}
pktgen_stop() {
	kill "$pktgen" 2>/dev/null || true
	echo stop >$PG/pgctrl 2>/dev/null || true
	wait "$pktgen" 2>/dev/null || true
}

# One xdp-bench run on DEV; its average rx/s into run-pps-KERNEL.txt as
# the row NAME.
bench() {	# bench NAME DEV ACTION [TARGET]
	out=$RESULTS/xdp-bench-$KERNEL-$1.txt
	# shellcheck disable=SC2086 # no target: no argument
	timeout -s INT "$SECONDS_EACH" xdp-bench "$3" "$2" ${4:-} -m native -i 2 >"$out" 2>&1 || true
	rx=$(sed -n 's/^ *Average packets\/s *: *\([0-9,]*\).*/\1/p' "$out" | tr -d ,)
	printf '%-16s %12s rx/s\n' "$1" "${rx:-?}" | tee -a "$PPS"
}

: >"$PPS"
echo "== xdp-bench on pg1 (native XDP, veth), pktgen sending from pg0, ${SECONDS_EACH} s each"
pktgen_start pg0 pg1
bench drop pg1 drop
bench pass pg1 pass
bench tx pg1 tx
bench redirect-map pg1 redirect-map rd0

# perf record -a (cpu-clock at 10 kHz, RECORD_SECONDS or 5 s, 16 MiB buffers so that no
# event is lost while perf reads kallsyms first) into /tmp/$1.perf while
# ATTACH, 2 s in, makes the dispatcher's image, so the recording holds
# the image's ksymbol event and with it the image's size (should perf
# still be reading kallsyms then, the kernel's event wins); then perf annotate
# of bpf_dispatcher_$1, its bytes from /proc/kcore while the image still
# runs, into run-annotate-$1.txt.
record_annotate() {	# record_annotate NAME xdp|tc ATTACH...
	name=$1
	hook=$2
	shift 2
	perf record -q -F 10000 -m 16M -e cpu-clock -a -o "/tmp/$name.perf" -- sleep "${RECORD_SECONDS:-5}" &
	rec=$!
	sleep 2
	"$@"
	wait "$rec"
	perf annotate -i "/tmp/$name.perf" --stdio -s "bpf_dispatcher_$hook" 2>&1 |
		head -n 60 >"$RESULTS/run-annotate-$name.txt"
}

if [ "$ANNOTATE" = annotate ]; then
	echo "== perf: the XDP dispatcher's image, made while perf records"
	record_annotate xdp xdp ip link set dev pg1 xdpdrv obj "$BUILD/progs/xdp_pass.bpf.o" sec xdp
	perf report -i /tmp/xdp.perf --stdio --sort sym 2>/dev/null |
		grep -v '^#' | grep -v '^$' | head -n 12 >"$RESULTS/run-perf-top.txt"
	ip link set dev pg1 xdp off
	# tc: cls_bpf on pg1's ingress and no XDP program, so pktgen's frames
	# reach the tc hook, through bpf_dispatcher_tc.
	echo "== perf: the tc dispatcher's image (tc_pass, cls_bpf direct-action on pg1's ingress)"
	tc qdisc add dev pg1 clsact
	record_annotate tc tc tc filter add dev pg1 ingress bpf direct-action \
		obj "$BUILD/progs/tc_pass.bpf.o" sec tc
	tc qdisc del dev pg1 clsact
fi
pktgen_stop

# igb, where QEMU emulates it (testbed/vm.sh): pktgen out of the first
# port, xdp-bench on the second (joined to it by a QEMU hub) in igb's NAPI
# path, redirect-map to the third port, whose frames go nowhere (xdp-bench
# gives it the XDP program igb needs to transmit redirected frames). Each
# attach resets igb, whose link is down for a second or two of the run:
# the runs are longer here, and perf records longer.
. "$(dirname "$0")/igb.sh"
igb=$(igb_nics 3)
# shellcheck disable=SC2086 # the names, one argument each
set -- $igb
if [ $# -eq 3 ]; then
	for d in "$@"; do ip link set "$d" up; done
	wait_carrier "$@"
	SECONDS_EACH=$((SECONDS_EACH * 2))
	echo "== xdp-bench on $2 (native XDP, igb), pktgen sending from $1, ${SECONDS_EACH} s each"
	pktgen_start "$1" "$2"
	bench igb:drop "$2" drop
	bench igb:pass "$2" pass
	bench igb:tx "$2" tx
	bench igb:redirect-map "$2" redirect-map "$3"
	if [ "$ANNOTATE" = annotate ]; then
		echo "== perf: the XDP dispatcher's image in igb's path (xdp_pass on $2)"
		RECORD_SECONDS=10 record_annotate xdp-igb xdp ip link set dev "$2" xdpdrv \
			obj "$BUILD/progs/xdp_pass.bpf.o" sec xdp
		ip link set dev "$2" xdp off
	fi
	pktgen_stop
else
	echo "== no igb rows: the guest has no three igb NICs (QEMU 8.0 or later emulates them)"
fi

if [ "$ANNOTATE" = annotate ]; then
	echo "== perf, 5 s of pktgen's frames, xdp_pass attached 2 s in: top kernel symbols"
	cat "$RESULTS/run-perf-top.txt"
	for name in xdp xdp-igb tc; do
		[ -f "$RESULTS/run-annotate-$name.txt" ] || continue
		case $name in
		xdp-igb) echo "== perf annotate of bpf_dispatcher_xdp in igb's path" ;;
		*) echo "== perf annotate of bpf_dispatcher_$name" ;;
		esac
		echo "   (under TCG samples land on the first instruction of each translated block)"
		cat "$RESULTS/run-annotate-$name.txt"
	done
	echo "== the XDP dispatcher as debugfs shows it"
	sed 's/^/   /' /sys/kernel/debug/bpf_dispatcher/xdp 2>/dev/null ||
		echo "   (no dispatcher file: not the patched kernel)"
fi

ip link del pg0
ip link del rd0
# xdp_perf: one trivial program's ns/run through BPF_PROG_TEST_RUN.
"$BUILD/bench/dispatcher_bench" xdp-perf >"$RESULTS/run-xdp-perf-$KERNEL.txt"
