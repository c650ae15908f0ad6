#!/usr/bin/env bash
# make vm: boot a built kernel under QEMU with the host's root shared
# read-only over 9p and build/ shared read-write, run CMD as root in the
# guest and exit with its status. Without CMD: an interactive shell.
#   KERNEL=patched|upstream|debug|cfi|selftests|upstream-selftests  VM_TIMEOUT=seconds  VM_MEM=size  CMD=...
#   VM_KDIR=build dir   boot that build instead of the flavour's own
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${KERNEL:-patched}
case $flavour in
patched|upstream|debug|cfi|selftests|upstream-selftests) ;;
*) die "KERNEL=$flavour: choose patched, upstream, debug, cfi, selftests or upstream-selftests" ;;
esac
kdir=$BUILD/kernel; [ "$flavour" = patched ] || kdir=$BUILD/kernel-$flavour
# VM_KDIR: boot another build of that flavour (a kernel built with OUT=).
kdir=${VM_KDIR:-$kdir}
image=$kdir/arch/x86/boot/bzImage
build_cmd="make kernel"; [ "$flavour" = patched ] || build_cmd="make kernel-$flavour"
[ -f "$image" ] || die "no $flavour kernel at $image: run '$build_cmd'"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found: run 'make deps'"

cmd=${CMD:-}
timeout=${VM_TIMEOUT:-1800}
mem=${VM_MEM:-2G}
[ "$flavour" = debug ] && mem=${VM_MEM:-4G}

# The guest reads its command from a directory of its own under build/vm/
# (guests may run side by side: make test beside make test-debug); the
# console log is written there for the splat scan, and kept afterwards as
# build/vm/console-<kernel>.log.
vmdir=$BUILD/vm
rundir=$vmdir/run-$$
mkdir -p "$rundir"
log=$rundir/console.log
kept_log=$vmdir/console-$flavour.log
: >"$log"
trap 'mv -f "$log" "$kept_log" 2>/dev/null; rm -rf "$rundir"' EXIT
if [ -n "$cmd" ]; then
	printf '%s\n' "$cmd" >"$rundir/cmd"
fi

# KVM where it works: /dev/kvm can exist and still fail (nested hosts that
# refuse MSRs, or never start the guest), so a short boot decides, once.
kvm_works() {
	local probe=$vmdir/kvm-probe
	[ -w /dev/kvm ] || return 1
	if [ ! -f "$probe" ]; then
		if timeout 20 qemu-system-x86_64 -machine accel=kvm -cpu host -m 256M \
			-nographic -no-reboot -kernel "$image" \
			-append "console=ttyS0 panic=-1 init=/bin/false" </dev/null 2>&1 |
			grep -q 'Linux version'; then
			echo yes >"$probe"
		else
			echo no >"$probe"
		fi
	fi
	[ "$(cat "$probe")" = yes ]
}
accel=tcg; cpu=max
case ${VM_ACCEL:-auto} in
auto) if kvm_works; then accel=kvm; cpu=host; fi ;;
kvm) accel=kvm; cpu=host ;;
tcg) ;;
*) die "VM_ACCEL=$VM_ACCEL: choose auto, kvm or tcg" ;;
esac

# loglevel=5: boot chatter off, warnings and every splat still on the console.
append="console=ttyS0 loglevel=5 root=/dev/root rootfstype=9p ro"
append+=" rootflags=trans=virtio,version=9p2000.L,cache=loose,msize=524288"
append+=" init=$TOP/guest/init panic=-1 testbed.top=$TOP testbed.build=$BUILD"
[ -z "$cmd" ] || append+=" testbed.mode=cmd testbed.run=${rundir#$vmdir/}"
append+=" ${VM_APPEND:-}"

# Single-threaded TCG: with one host thread per vCPU (thread=multi), QEMU
# 7.2 can keep a translation of kernel text that another vCPU is patching
# with text_poke_bp(), and the guest later traps on a stale int3 ("Oops:
# int3" at a static call site); the dispatcher tests hit it within a second.
# One thread interleaves the vCPUs and never does.
accel_opts=$accel
[ "$accel" = tcg ] && accel_opts+=",thread=${VM_TCG_THREAD:-single}"

# VM_ICOUNT=1: guest time counts instructions (1 ns each), not host time,
# so a TCG timing compares the instructions two kernels execute and not
# how QEMU happened to translate them (a benchmark's choice; TCG only).
icount=()
if [ -n "${VM_ICOUNT:-}" ]; then
	[ "$accel" = tcg ] || die "VM_ICOUNT needs TCG, this guest runs under $accel"
	icount=(-icount shift=0,sleep=on)
fi

qemu=(qemu-system-x86_64 -accel "$accel_opts" -cpu $cpu -smp 2 -m "$mem" "${icount[@]}"
	-nographic -no-reboot -kernel "$image" -append "$append"
	# No SeaBIOS or iPXE chatter on the serial console.
	-fw_cfg name=etc/sercon-port,string=0
	-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root
	-fsdev local,id=build,path="$BUILD",security_model=none,multidevs=remap
	-device virtio-9p-pci,fsdev=build,mount_tag=build
	# Two virtio-net NICs joined by a QEMU hub: eth0 <-> eth1 through a
	# real driver's NAPI path.
	-netdev hubport,id=n0,hubid=0 -device virtio-net-pci,netdev=n0,romfile=
	-netdev hubport,id=n1,hubid=0 -device virtio-net-pci,netdev=n1,romfile=)
# igb NICs (82576), where QEMU emulates them (8.0 and later; make deps
# installs 10): a real Ethernet driver's NAPI path with native XDP and
# AF_XDP zero-copy. The first two are joined by a hub; the third, alone
# on its own, is where frames redirected out of igb go and end. Tests
# that need them skip without. Each igb brings its SR-IOV VFs' functions,
# 16 slots above it, two slots' worth: the NICs sit two slots apart.
if "${qemu[0]}" -device help 2>/dev/null | grep -q '^name "igb"'; then
	qemu+=(-netdev hubport,id=n2,hubid=1 -device igb,netdev=n2,romfile=,addr=0x08
	       -netdev hubport,id=n3,hubid=1 -device igb,netdev=n3,romfile=,addr=0x0a
	       -netdev hubport,id=n4,hubid=2 -device igb,netdev=n4,romfile=,addr=0x0c)
fi

if [ -z "$cmd" ]; then
	trap - EXIT
	rm -rf "$rundir"
	exec "${qemu[@]}"
fi

# Splats that fail a run even when CMD succeeded.
splats='Kernel panic|Oops:|BUG:|WARNING: CPU|------------\[ cut here \]|general protection fault'
splats+='|possible circular locking|possible recursive locking|inconsistent lock state'
splats+='|suspicious RCU usage|KASAN:|UBSAN:|kmemleak: [0-9]+ new suspected|hung_task|soft lockup|hard LOCKUP'
splats+='|Call Trace:'

set +e
# The whole console goes to the log (the splat scan reads it); the
# stream stops at the guest's exit marker, so CMD's last line is ours too.
# sed -u passes each line on as it comes (mawk would hold them back).
timeout -k 10 "$timeout" "${qemu[@]}" </dev/null 2>&1 | tee "$log" |
	sed -u -e '/^@@testbed-exit/,$d' \
		-e '/hub [0-9]* is not connected to host network\|externally provided fw_cfg/d'
qrc=${PIPESTATUS[0]}
set -e

tail_log() { say "--- last console lines ($kept_log) ---"; tail -n "${1:-25}" "$log" | tr -d '\r'; say "---"; }

if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	tail_log 40
	die "guest ($flavour kernel) did not finish within ${timeout}s and was killed"
fi
status=$(tr -d '\r' <"$log" | sed -n 's/^@@testbed-exit \([0-9]*\)$/\1/p' | tail -n 1)
# An allocation failure's report (warn_alloc(): its header, a stack trace
# to </TASK>) is what fault injection asks for, not a splat; anything else
# in the log is still scanned.
found=$(tr -d '\r' <"$log" |
	awk '/(page allocation failure|vmalloc error): / { skip = 1 } !skip; /<\/TASK>/ { skip = 0 }' |
	grep -E -m 5 "$splats" || true)
if [ -z "$status" ]; then
	tail_log 40
	[ -z "$found" ] || say "error: the $flavour kernel crashed: $(head -n 1 <<<"$found")" >&2
	say "error: guest ($flavour kernel) ended without reporting an exit status (qemu exit $qrc)" >&2
	exit 255
fi
if [ -n "$found" ]; then
	say "error: the $flavour kernel reported a problem on the console:" >&2
	say "$found" >&2
	tail_log 40
	[ "$status" -ne 0 ] || status=254
fi
exit "$status"
