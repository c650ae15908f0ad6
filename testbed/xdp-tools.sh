#!/usr/bin/env bash
# make xdp-tools: libxdp, xdp-loader and xdp-bench from xdp-tools' git
# repository (../shared/vendor/xdp-tools.bundle, or XDP_TOOLS_SRC: a path
# or URL) at XDP_TOOLS_REF, built against the tree's libbpf (build/libbpf,
# linked statically) and installed into build/xdp-tools/install, which the
# guests see at the same path. Debian 12's xdp-bench (1.3.1) cannot load
# on 7.3: it attaches to the tracepoint xdp_redirect_map_err, which 7.3 no
# longer has (xdp-tools dropped it in v1.5.6).
#
# lib/libbpf, a submodule the bundle does not hold, is not used: configure
# finds build/libbpf through a pkg-config file of our own. libxdp is
# static with its BPF objects (the dispatcher, the AF_XDP default
# program) embedded; they are also installed in install/lib/bpf, the path
# compiled in (LIBXDP_OBJECT_PATH overrides it). xdp-dump (it needs
# libpcap's headers) and the other tools are not built.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ref=${XDP_TOOLS_REF:-v1.6.3}
origin=${XDP_TOOLS_SRC:-$TOP/../shared/vendor/xdp-tools.bundle}
dir=$BUILD/xdp-tools
src=$dir/src
inst=$dir/install
log=$dir/build.log
stamp=$inst/.testbed-build
libbpf=$BUILD/libbpf

[ -f "$libbpf/lib/libbpf.a" ] && [ -f "$libbpf/include/bpf/libbpf_version.h" ] ||
	die "no $libbpf/lib/libbpf.a: run 'make libbpf'"
libbpf_sum=$(sha256sum "$libbpf/lib/libbpf.a" | cut -d' ' -f1)

# The commit REF names in the clone: a tag, a branch of the source, a commit.
resolve() {
	local r
	for r in "refs/tags/$ref" "refs/remotes/origin/$ref" "$ref"; do
		git -C "$src" rev-parse -q --verify "$r^{commit}" 2>/dev/null && return 0
	done
	return 1
}
want() { printf 'ref=%s commit=%s libbpf=%s\n' "$ref" "$1" "$libbpf_sum"; }
up_to_date() {
	[ -x "$inst/sbin/xdp-bench" ] && [ -x "$inst/sbin/xdp-loader" ] &&
		[ "$(cat "$stamp" 2>/dev/null)" = "$(want "$1")" ]
}

# A tag already in the clone does not move: its install needs no source.
if [ -d "$src/.git" ] && commit=$(git -C "$src" rev-parse -q --verify "refs/tags/$ref^{commit}" 2>/dev/null) &&
   up_to_date "$commit"; then
	say "xdp-tools $ref (${commit:0:12}) is up to date in ${inst#$TOP/}"
	exit 0
fi

# Otherwise fetch from the source: a bundle or repository path, or a URL.
if [[ "$origin" != *://* && "$origin" != *:* ]]; then
	[ -e "$origin" ] || die "no xdp-tools source at $origin (the bundle is ../shared/vendor/xdp-tools.bundle beside the repository; XDP_TOOLS_SRC names another path or URL)"
	origin=$(cd "$(dirname "$origin")" && pwd)/$(basename "$origin")
fi
mkdir -p "$dir"
[ -d "$src/.git" ] || git init -q "$src"
git -C "$src" fetch -q --force --tags "$origin" '+refs/heads/*:refs/remotes/origin/*' ||
	die "cannot fetch xdp-tools from $origin"
if ! commit=$(resolve); then
	die "xdp-tools has no ref '$ref' in $origin (XDP_TOOLS_REF); its newest tags: $(git -C "$src" tag --sort=-v:refname | head -n 5 | tr '\n' ' ')"
fi
if up_to_date "$commit"; then
	say "xdp-tools $ref (${commit:0:12}) is up to date in ${inst#$TOP/}"
	exit 0
fi

step "building xdp-tools $ref (${commit:0:12}) against build/libbpf into ${inst#$TOP/} (log: ${log#$TOP/})"
start=$(date +%s)
git -C "$src" checkout -q -f --detach "$commit"
git -C "$src" clean -q -fdx
rm -rf "$inst"

# build/libbpf as pkg-config describes a system libbpf, but static: the
# archive itself and what it needs (libelf and zlib of the root file
# system, which the guests share). Its version as the tree's libbpf.map
# names it (major.minor.0).
pc=$dir/pkgconfig
mkdir -p "$pc"
major=$(sed -n 's/^#define LIBBPF_MAJOR_VERSION \([0-9]*\)$/\1/p' "$libbpf/include/bpf/libbpf_version.h")
minor=$(sed -n 's/^#define LIBBPF_MINOR_VERSION \([0-9]*\)$/\1/p' "$libbpf/include/bpf/libbpf_version.h")
cat >"$pc/libbpf.pc" <<EOF
Name: libbpf
Description: the test bed's libbpf (build/libbpf, from the kernel tree), static
Version: $major.$minor.0
Cflags: -I$libbpf/include
Libs: $libbpf/lib/libbpf.a -lelf -lz
EOF

# PREFIX is compiled in (libxdp's BPF object path): the same on the host
# and in the guests. BUILD_STATIC_ONLY: no libxdp.so (which would need a
# PIC libbpf.a). SYSTEM_LIBBPF=n: configure took the pkg-config file for a
# shared system libbpf, whose version the tools then look for in their
# mappings and warn not to find; the one linked in is the one compiled
# against. clang is Debian's default (configure's choice).
mk=(make -j"$(nproc)" PREFIX="$inst" BUILD_STATIC_ONLY=1 SYSTEM_LIBBPF=n)
build() {
	(cd "$src" && PKG_CONFIG_PATH="$pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
		FORCE_SYSTEM_LIBBPF=1 sh configure) &&
	"${mk[@]}" -C "$src/lib/libxdp" &&
	"${mk[@]}" -C "$src/xdp-loader" &&
	"${mk[@]}" -C "$src/xdp-bench" &&
	"${mk[@]}" -C "$src/lib/libxdp" install &&
	"${mk[@]}" -C "$src/xdp-loader" install &&
	"${mk[@]}" -C "$src/xdp-bench" install
}
if ! build >"$log" 2>&1; then
	tail -n 25 "$log" >&2
	die "xdp-tools $ref did not build (log: ${log#$TOP/})"
fi
# The version is an option of each command; it, --help and help exit non-zero.
version=$("$inst/sbin/xdp-loader" status --version 2>&1 || true)
usage=$("$inst/sbin/xdp-bench" help 2>&1 || true)
[[ "$version" == "xdp-loader version "* && "$usage" == *"Usage: xdp-bench "* ]] ||
	die "the xdp-tools built do not run ('xdp-loader status --version' says: ${version:-nothing}; log: ${log#$TOP/})"
want "$commit" >"$stamp"
say "    $version, in $(($(date +%s) - start)) s: ${inst#$TOP/}/sbin/xdp-bench, xdp-loader"
