#!/usr/bin/env bash
# make deps: install the Debian packages the project needs (root, Debian).
#   deps.sh [--check]   with --check: only say what is missing (exit 1)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

packages=(
	# the kernel source, and what building it needs
	linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
	dwarves ccache cpio kmod xz-utils git perl python3
	# the guest
	qemu-system-x86 iproute2 procps util-linux
	# BPF programs, skeletons and the tools run in the guest; clang-19 and
	# LLVM's binutils also build the kCFI kernel (make kernel-cfi)
	clang llvm clang-19 lld-19 llvm-19 libbpf-dev zlib1g-dev bpftool linux-perf xdp-tools
	# make selftests: headers_install needs rsync; the tc and XDP tests of
	# test_progs run ping, ethtool, iptables and nft in the guest
	rsync iputils-ping ethtool iptables nftables
	# perf from the tree (make perf): the libraries it finds at build time
	libdw-dev libtraceevent-dev libcapstone-dev libzstd-dev libcap-dev libnuma-dev
	# reports and documentation checks
	gnuplot-nox python3-docutils
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "${1:-}" = --check ]; then
	say "missing packages: ${missing[*]}"
	exit 1
fi
if [ ! -r /etc/debian_version ] || ! command -v apt-get >/dev/null; then
	die "this is not a Debian system; install the equivalents of: ${missing[*]}"
fi
if [ "$(id -u)" -ne 0 ]; then
	die "missing packages and not root; run as root, or: sudo apt-get install ${missing[*]}"
fi
step "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >"$BUILD.apt.log" 2>&1 ||
	{ tail -n 20 "$BUILD.apt.log"; die "apt-get install failed (log: $BUILD.apt.log)"; }
rm -f "$BUILD.apt.log"
