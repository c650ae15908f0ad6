#!/usr/bin/env bash
# make kernel / make kernel-upstream / make kernel-debug / make kernel-cfi:
# configure (tinyconfig + our fragments via merge_config.sh) and build
# bzImage with ccache.
#   kernel.sh patched|upstream|debug|cfi|selftests|upstream-selftests|check|matrix/NAME
# The selftests flavours add the tree's tools/testing/selftests/bpf/config
# (=m made =y) and testbed/kconfig/selftests.config. A config with
# CONFIG_MODULES=y builds modules too (the selftests' bpf_testmod.ko is
# built against their Module.symvers; matrix/modules checks the exports).
# matrix/NAME adds testbed/kconfig/matrix/NAME.config and builds into
# build/matrix/NAME (make matrix). SRC=DIR builds another checkout of the
# series (the matrix's bisect build) with the same config. check is the
# test bed's config plus the drivers the series touches but does not run,
# for make check's builds of single objects: TARGETS="a.o b.o" builds
# those instead of bzImage.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:-patched}
kconfig=$TOP/testbed/kconfig
fragments=("$kconfig/testbed.config")
src=${SRC:-$TREE}
case $flavour in
patched)  out=$BUILD/kernel ;;
debug)    out=$BUILD/kernel-debug; fragments+=("$kconfig/debug.config") ;;
cfi)      out=$BUILD/kernel-cfi; fragments+=("$kconfig/cfi.config") ;;
check)    out=$BUILD/check/kernel; fragments+=("$kconfig/check.config") ;;
upstream) src=$BUILD/linux-upstream; out=$BUILD/kernel-upstream ;;
selftests|upstream-selftests)
	out=$BUILD/kernel-$flavour
	[ "$flavour" = selftests ] || src=$BUILD/linux-upstream
	fragments+=(@tree "$kconfig/selftests.config") ;;
matrix/*)
	name=${flavour#matrix/}
	[ -f "$kconfig/matrix/$name.config" ] || die "no config fragment $kconfig/matrix/$name.config"
	out=$BUILD/matrix/$name; fragments+=("$kconfig/matrix/$name.config") ;;
*) die "unknown kernel flavour '$flavour' (patched, upstream, debug, cfi, selftests, upstream-selftests, check, matrix/NAME)" ;;
esac
out=${OUT:-$out}
tree_has_git || die "no kernel tree in $TREE: run 'make tree'"

# The upstream build uses a second checkout, of 'base' and the test bed's
# own patches (sub/testbed: selftests fixes and one stable backport the
# tests need, testbed/patches/), so the patched tree is never touched.
case $flavour in upstream|upstream-selftests)
	if [ ! -d "$src/.git" ] && [ ! -f "$src/.git" ]; then
		git -C "$TREE" worktree add -q --detach "$src" sub/testbed
	else
		git -C "$src" checkout -q --detach sub/testbed
	fi
esac

mkdir -p "$out"
read -r -a targets <<<"${TARGETS:-bzImage}"
case $flavour in *selftests)
	# The selftests' own fragment, as the tree of this build has it. Kconfig
	# may not honour every line of it on this base (other architectures'
	# symbols, choices): those are logged, not fatal.
	tree_config=$src/tools/testing/selftests/bpf/config
	[ -f "$tree_config" ] || die "no $tree_config in the tree"
	sed 's/=m$/=y/' "$tree_config" >"$out/selftests-tree.config"
esac
# @tree: the tree's fragment, written into this build's directory above.
for i in "${!fragments[@]}"; do
	[ "${fragments[$i]}" != @tree ] || fragments[$i]=$out/selftests-tree.config
done
# A config with modules builds them too: modpost checks what they import.
if [ -z "${TARGETS:-}" ] && grep -qx 'CONFIG_MODULES=y' "${fragments[@]}"; then
	targets+=(modules)
fi

# A fragment that starts with "# toolchain: clang" is built with Debian's
# clang-19 and LLVM's binutils (LLVM=-19), the only way to get kCFI.
toolchain=(CC="ccache gcc" HOSTCC="ccache gcc")
if grep -qx '# toolchain: clang' "${fragments[@]}"; then
	command -v clang-19 >/dev/null || die "clang-19 not found: run 'make deps'"
	toolchain=(LLVM=-19 CC="ccache clang-19" HOSTCC="ccache clang-19")
fi

export ARCH=x86_64
# ccache: hash paths relative to build/ so a clone elsewhere (CI) still hits.
export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G}
kmake() { make -C "$src" O="$out" "${toolchain[@]}" "$@"; }

# (Re)configure when a fragment changed.
stamp=$(cat "${fragments[@]}" | sha256sum | cut -d' ' -f1)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.testbed-config" 2>/dev/null)" != "$stamp" ]; then
	step "configuring $flavour kernel: tinyconfig + ${fragments[*]##*/}"
	kmake -s tinyconfig >/dev/null
	KCONFIG_CONFIG=$out/.config "$src/scripts/kconfig/merge_config.sh" -m -O "$out" \
		"$out/.config" "${fragments[@]}" >"$out/merge_config.log"
	kmake -s olddefconfig >/dev/null
	# merge_config.sh only warns when Kconfig overrides a request: fail.
	# A later fragment's value for a symbol is the one requested.
	strict=()
	for f in "${fragments[@]}"; do
		[ "$f" = "$out/selftests-tree.config" ] || strict+=("$f")
	done
	bad=$(cat "${strict[@]}" | sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=\(.*\)$/\1 \2/p' |
	awk '{ val[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
	     END { for (i = 0; i < n; i++) print order[i], val[order[i]] }' |
	while read -r sym val; do
		if [ "$val" = n ]; then
			grep -q "^$sym=" "$out/.config" && echo "$sym=n requested, got $(grep "^$sym=" "$out/.config")"
		else
			grep -qx "$sym=$val" "$out/.config" || echo "$sym=$val requested, got: $(grep -E "^(# )?$sym[= ]" "$out/.config" || echo absent)"
		fi
	done || true)
	[ -z "$bad" ] || die "the $flavour kernel config does not hold what the fragments ask:
$bad"
	if [ -f "$out/selftests-tree.config" ]; then
		sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=\(.*\)$/\1=\2/p' "$out/selftests-tree.config" |
		while read -r line; do
			grep -qx "$line" "$out/.config" || echo "$line"
		done >"$out/selftests-not-held.txt"
		say "  $(wc -l <"$out/selftests-not-held.txt") lines of the selftests' config not held here: ${out#$TOP/}/selftests-not-held.txt"
	fi
	echo "$stamp" >"$out/.testbed-config"
fi

step "building $flavour kernel in ${out#$TOP/} (log: ${out#$TOP/}/build.log)"
start=$(date +%s)
# Progress: one line per 250 objects; errors and warnings as they come.
build() {
	kmake -j"$(($(nproc) + 1))" "${targets[@]}" 2>&1 | tee "$out/build.log" | awk '
		/ CC | AS | LD /{ n++; if (n % 250 == 0) printf "  %6d objects  %s\n", n, $0 }
		/error:|warning:|Error [0-9]/{ print }
		{ fflush() }'
	return "${PIPESTATUS[0]}"
}
set +e
build
rc=$?
# Seen once here: an object restored from ccache without its .d file
# ("fixdep: error opening file"). The object is deleted by make; once more.
if [ "$rc" -ne 0 ] && grep -aq 'fixdep: error opening file' "$out/build.log"; then
	say "retrying once: fixdep found no dependency file for a cached object"
	build
	rc=$?
fi
set -e
if [ "$rc" -ne 0 ]; then
	tail -n 30 "$out/build.log"
	die "the $flavour kernel build failed (full log: $out/build.log)"
fi
say "built ${targets[*]/#bzImage/${out#$TOP/}/arch/x86/boot/bzImage} in $(($(date +%s) - start)) s"
