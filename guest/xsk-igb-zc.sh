#!/bin/sh
# In a guest: xskxceiver (from the current directory, a make selftests run
# directory) in zero-copy mode between the first two igb NICs, which a
# QEMU hub joins (testbed/vm.sh): xskxceiver's Tx side on one, its Rx
# side on the other, as on one NIC in loopback (which igb does not offer).
# Each NIC gets one queue, so that every frame comes in where the socket
# is bound; promiscuous, as xskxceiver's frames carry its own MACs; and
# no IPv6, whose router and listener messages would reach the sockets.
# Prints xskxceiver's TAP, or one comment line where the guest has no igb.
. "$(dirname "$0")/igb.sh"
igb=$(igb_nics 2)
# shellcheck disable=SC2086 # the names, one argument each
set -- $igb
if [ $# -lt 2 ]; then
	echo "# no igb zero-copy run: the guest has no two igb NICs (QEMU 8.0 or later emulates them)"
	exit 0
fi
for d in "$@"; do
	echo 1 >"/proc/sys/net/ipv6/conf/$d/disable_ipv6"
	ethtool -L "$d" combined 1
	ip link set dev "$d" promisc on up
done
wait_carrier "$@"
./xskxceiver -i "$1" -i "$2" -m zc
