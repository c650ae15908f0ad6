# Sourced by the guest's scripts: the igb NICs QEMU gives the guest
# (testbed/vm.sh).
# igb_nics N: the names of the first N, sorted, on one line.
igb_nics() {
	for d in /sys/class/net/*; do
		[ "$(basename "$(readlink "$d/device/driver" 2>/dev/null)")" = igb ] && basename "$d"
	done | sort | head -n "$1" | tr '\n' ' '
}
# wait_carrier DEV...: up to 10 s each for the link, which comes up a
# moment after the NIC is set up (and again after an XDP attach resets it).
wait_carrier() {
	for d in "$@"; do
		i=0
		until grep -q 1 "/sys/class/net/$d/carrier" 2>/dev/null || [ $i -ge 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	done
}
