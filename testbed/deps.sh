#!/usr/bin/env bash
# make deps: install the Debian packages the project needs (root, Debian).
#   deps.sh [--check]   with --check: only say what is missing (exit 1)
#   QEMU_BACKPORTS=0    keep Debian 12's QEMU 7.2 (no igb: its tests skip)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

packages=(
	# the kernel source, and what building it needs
	$SRC_PACKAGE build-essential bc bison flex libelf-dev libssl-dev
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
# QEMU 10 from bookworm-backports emulates the igb NIC (82576), whose 7.3
# driver has native XDP and AF_XDP zero-copy; Debian 12's QEMU 7.2 has none.
qemu_min=1:10.0
qemu_pkgs=(qemu-system-x86 qemu-system-common qemu-system-data seabios)
qemu_installed=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || true)
qemu_backports=0
if [ "${QEMU_BACKPORTS:-1}" != 0 ] &&
   ! dpkg --compare-versions "${qemu_installed:-0}" ge "$qemu_min"; then
	qemu_backports=1
fi
qemu_note="QEMU ${qemu_installed:-(none)} emulates no igb NIC, so the igb tests skip: 'make deps' as root installs QEMU 10 from bookworm-backports (QEMU_BACKPORTS=0 keeps the one there is)"
[ ${#missing[@]} -eq 0 ] && [ $qemu_backports = 0 ] && exit 0

if [ "${1:-}" = --check ]; then
	[ ${#missing[@]} -eq 0 ] || say "missing packages: ${missing[*]}"
	[ $qemu_backports = 0 ] || say "$qemu_note"
	exit 1
fi
if [ ! -r /etc/debian_version ] || ! command -v apt-get >/dev/null; then
	die "this is not a Debian system; install the equivalents of: ${missing[*]}"
fi
if [ "$(id -u)" -ne 0 ]; then
	# An older QEMU still runs every test but igb's: a note, not a stop.
	if [ ${#missing[@]} -eq 0 ]; then
		say "note: $qemu_note"
		exit 0
	fi
	die "missing packages and not root: run 'sudo make deps', or: sudo apt-get install ${missing[*]}"
fi
# linux-source-7.3 comes from trixie-backports, an arch-independent package
# that needs only binutils and xz-utils. Add that suite on the mirror this
# machine already uses for Debian, pinned so that nothing else comes from it.
backports_sources=/etc/apt/sources.list.d/testbed-trixie-backports.sources
backports_pin=/etc/apt/preferences.d/testbed-trixie-backports
debian_mirror() {
	apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
		awk '$2 ~ /^bookworm(-updates)?$/ && $1 ~ /\/debian\/$/ { print $1; exit }'
}
# A deb822 sources file FILE for SUITE on that mirror (WHY: for the error).
add_suite() {	# add_suite SUITE FILE WHY
	local mirror
	mirror=$(debian_mirror)
	[ -n "$mirror" ] || die "no Debian bookworm mirror in this machine's apt sources to take $1 from ($3)"
	step "adding $1 ($mirror) for $3 alone"
	cat >"$2" <<-EOF
	Types: deb
	URIs: $mirror
	Suites: $1
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
}
add_trixie_backports() {
	add_suite trixie-backports "$backports_sources" "$SRC_PACKAGE"
	cat >"$backports_pin" <<-EOF
	Package: *
	Pin: release n=trixie-backports
	Pin-Priority: 1

	Package: $SRC_PACKAGE
	Pin: release n=trixie-backports
	Pin-Priority: 500
	EOF
}

# QEMU 10 and what it needs at its version, from bookworm-backports on the
# same mirror, pinned so that nothing else comes from there.
qemu_sources=/etc/apt/sources.list.d/testbed-bookworm-backports.sources
qemu_pin=/etc/apt/preferences.d/testbed-bookworm-backports
add_bookworm_backports() {
	add_suite bookworm-backports "$qemu_sources" "${qemu_pkgs[*]}"
	cat >"$qemu_pin" <<-EOF
	Package: ${qemu_pkgs[*]}
	Pin: release n=bookworm-backports
	Pin-Priority: 500
	EOF
	if ! apt-get update -q >/dev/null; then
		rm -f "$qemu_sources" "$qemu_pin"
		die "apt-get update failed with bookworm-backports added (taken out again); QEMU_BACKPORTS=0 keeps QEMU ${qemu_installed:-7.2}"
	fi
}

step "installing ${missing[*]}${missing[*]:+ }$([ $qemu_backports = 0 ] || echo "QEMU 10 (bookworm-backports)")"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
if [[ " ${missing[*]} " == *" $SRC_PACKAGE "* ]] && [ -z "$(apt-cache policy "$SRC_PACKAGE" | awk '/Candidate:/ && $2 != "(none)"')" ]; then
	add_trixie_backports
	apt-get update -q >/dev/null
fi
if [ $qemu_backports = 1 ]; then
	[ -f "$qemu_pin" ] && [ -f "$qemu_sources" ] || add_bookworm_backports
	others=()
	for p in "${missing[@]}"; do
		[[ " ${qemu_pkgs[*]} " == *" $p "* ]] || others+=("$p")
	done
	missing=("${others[@]}" "${qemu_pkgs[@]}")
fi
# --no-remove: QEMU 10 must not take away what the machine has.
apt-get install -y -q --no-install-recommends --no-remove "${missing[@]}" >"$BUILD.apt.log" 2>&1 ||
	{ tail -n 20 "$BUILD.apt.log"; die "apt-get install failed (log: $BUILD.apt.log)"; }
rm -f "$BUILD.apt.log"
if [ $qemu_backports = 1 ]; then
	qemu_installed=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || true)
	dpkg --compare-versions "${qemu_installed:-0}" ge "$qemu_min" ||
		die "qemu-system-x86 is ${qemu_installed:-missing} after the install, not $qemu_min or later: see 'apt-cache policy qemu-system-x86' ($qemu_pin, $qemu_sources)"
fi
