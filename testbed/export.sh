#!/usr/bin/env bash
# make export: write the commits base..HEAD of build/linux to series/ with
# git format-patch, in a form that does not change unless the commits do.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree_has_git || die "no kernel tree in $TREE: run 'make tree'"
if [ -n "$(git -C "$TREE" status --porcelain --untracked-files=no | head -1)" ]; then
	say "warning: $TREE has uncommitted changes; only commits are exported"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# --zero-commit, --no-signature, -N: no hashes, git version or "n/m" that
# would change every patch when one changes.
git -C "$TREE" format-patch -q -N --zero-commit --no-signature -o "$tmp" base..HEAD
rm -f "$SERIES"/*.patch
n=0
for p in "$tmp"/*.patch; do
	[ -e "$p" ] || continue
	mv "$p" "$SERIES/"
	n=$((n + 1))
done
src_package_version >"$SERIES/BASE"
say "exported $n patches to series/ (base: $SRC_PACKAGE $(cat "$SERIES/BASE"))"
