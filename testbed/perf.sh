#!/usr/bin/env bash
# make perf: perf from the series' tree (tools/perf), into build/perf. The
# guests run it in place of Debian's perf 6.1: only the tree's perf
# annotates the dispatcher images (the series' tools/perf patch).
# Python, Perl and LLVM support are left out (not used here, and slow to
# build); capstone and objdump disassemble. SRC=DIR OUT=DIR build another
# checkout (make check's per-patch builds) elsewhere.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree_has_git || die "no kernel tree in $TREE: run 'make tree'"
src=${SRC:-$TREE}
out=${OUT:-$BUILD/perf}
mkdir -p "$out"
step "building perf from ${src#$TOP/}/tools/perf into ${out#$TOP/} (log: ${out#$TOP/}/build.log)"
start=$(date +%s)
export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1
# AR=gcc-ar: plain ar tries every plugin of /usr/lib/bfd-plugins on each
# object, and Debian 12's LLVMgold-14.so (llvm-14-linker-tools) aborts on
# 7.3's perf-test-in.o ("LLVM ERROR: Invalid encoding"); gcc-ar names
# GCC's LTO plugin, the only one these objects could need.
if ! make -C "$src/tools/perf" O="$out" CC="ccache gcc" AR=gcc-ar -j"$(nproc)" \
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBLLVM=1 NO_JEVENTS=1 >"$out/build.log" 2>&1; then
	grep -E 'error|Error' "$out/build.log" | head -n 20 >&2 || tail -n 20 "$out/build.log" >&2
	die "perf build failed (log: ${out#$TOP/}/build.log)"
fi
"$out/perf" version >/dev/null || die "the perf built does not run"
say "    perf $("$out/perf" version | cut -d' ' -f3) in $(($(date +%s) - start)) s"
