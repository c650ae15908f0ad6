#!/usr/bin/env bash
# make libbpf: the tree's uapi headers (make headers) into build/uapi and
# its libbpf (tools/lib/bpf, static) into build/libbpf, for the test bed's
# programs, tests and benchmarks: they build against the kernel they test,
# not Debian 12's 6.1 headers and libbpf 1.1, so no kernel constant is
# copied by hand.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree_has_git || die "no kernel tree in $TREE: run 'make tree'"
uapi=$BUILD/uapi
lib=$BUILD/libbpf
mkdir -p "$uapi" "$lib/obj"
log=$lib/build.log
export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1
# make headers (not headers_install, whose rsync rewrites every file)
# updates only the headers that changed, into build/uapi/usr/include;
# libbpf's make rebuilds only what did: both are quick when nothing did.
if ! make -C "$TREE" O="$uapi" headers >"$log" 2>&1 ||
   ! make -C "$TREE/tools/lib/bpf" OUTPUT="$lib/obj/" CC="ccache gcc" -j"$(nproc)" \
	BUILD_STATIC_ONLY=1 DESTDIR="$lib" prefix= libdir_relative=lib \
	install_headers install_lib >>"$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -n 20 >&2 || tail -n 20 "$log" >&2
	die "the tree's headers or libbpf did not build (log: ${log#$TOP/})"
fi
[ -f "$lib/lib/libbpf.a" ] && [ -f "$uapi/usr/include/linux/bpf.h" ] ||
	die "no $lib/lib/libbpf.a or $uapi/usr/include/linux/bpf.h after the build (log: ${log#$TOP/})"
