#!/usr/bin/env bash
# make kernel / make kernel-upstream / make kernel-debug: configure (tinyconfig
# + our fragments via merge_config.sh) and build bzImage with ccache.
#   kernel.sh patched|upstream|debug
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:-patched}
fragments=("$TOP/testbed/kconfig/testbed.config")
case $flavour in
patched)  src=$TREE; out=$BUILD/kernel ;;
debug)    src=$TREE; out=$BUILD/kernel-debug
          fragments+=("$TOP/testbed/kconfig/debug.config") ;;
upstream) src=$BUILD/linux-upstream; out=$BUILD/kernel-upstream ;;
*) die "unknown kernel flavour '$flavour' (patched, upstream, debug)" ;;
esac
tree_has_git || die "no kernel tree in $TREE: run 'make tree'"

# The upstream build uses a second checkout of 'base', so the patched tree
# is never touched.
if [ "$flavour" = upstream ]; then
	if [ ! -d "$src/.git" ] && [ ! -f "$src/.git" ]; then
		git -C "$TREE" worktree add -q --detach "$src" base
	else
		git -C "$src" checkout -q --detach base
	fi
fi

export ARCH=x86_64
# ccache: hash paths relative to build/ so a clone elsewhere (CI) still hits.
export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G}
kmake() { make -C "$src" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }
mkdir -p "$out"

# (Re)configure when a fragment changed.
stamp=$(cat "${fragments[@]}" | sha256sum | cut -d' ' -f1)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.testbed-config" 2>/dev/null)" != "$stamp" ]; then
	step "configuring $flavour kernel: tinyconfig + ${fragments[*]##*/}"
	kmake -s tinyconfig >/dev/null
	KCONFIG_CONFIG=$out/.config "$src/scripts/kconfig/merge_config.sh" -m -O "$out" \
		"$out/.config" "${fragments[@]}" >"$out/merge_config.log"
	kmake -s olddefconfig >/dev/null
	# merge_config.sh only warns when Kconfig overrides a request: fail.
	bad=$(cat "${fragments[@]}" | sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=\(.*\)$/\1 \2/p' |
	while read -r sym val; do
		if [ "$val" = n ]; then
			grep -q "^$sym=" "$out/.config" && echo "$sym=n requested, got $(grep "^$sym=" "$out/.config")"
		else
			grep -qx "$sym=$val" "$out/.config" || echo "$sym=$val requested, got: $(grep -E "^(# )?$sym[= ]" "$out/.config" || echo absent)"
		fi
	done || true)
	[ -z "$bad" ] || die "the $flavour kernel config does not hold what the fragments ask:
$bad"
	echo "$stamp" >"$out/.testbed-config"
fi

step "building $flavour kernel in ${out#$TOP/} (log: ${out#$TOP/}/build.log)"
start=$(date +%s)
# Progress: one line per 250 objects; errors and warnings as they come.
build() {
	kmake -j"$(($(nproc) + 1))" bzImage 2>&1 | tee "$out/build.log" | awk '
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
say "built ${out#$TOP/}/arch/x86/boot/bzImage in $(($(date +%s) - start)) s"
