#!/usr/bin/env bash
# make kernel-alone SUBMISSION=<name>: the patched flavour's kernel from
# base, testbed/patches and one submission of series/ only, as a
# maintainer who takes that submission alone builds it, into
# build/kernel-alone (boot it with VM_KDIR=build/kernel-alone). Only for
# a submission whose cover letter says it applies to the tree alone.
# The checkout is build/alone/linux, a worktree of build/linux at base,
# remade on each run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

sub=${SUBMISSION:-}
[ -n "$sub" ] || die "name a submission: SUBMISSION=<one of: $(submissions | tr '\n' ' ')>"
[ -f "$SERIES/$sub/0000-cover-letter.patch" ] || die "series/$sub is not a submission"
grep -q '^Applies to the tree alone' "$SERIES/$sub/0000-cover-letter.patch" ||
	die "series/$sub does not apply to the tree alone (its cover letter would say so)"
tree_has_git || die "no kernel tree in $TREE: run 'make tree'"

src=$BUILD/alone/linux
if [ -e "$src/.git" ]; then
	git -C "$src" am --abort >/dev/null 2>&1 || true
	git -C "$src" checkout -q --force --detach base
else
	mkdir -p "$BUILD/alone"
	git -C "$TREE" worktree add -q --detach "$src" base ||
		die "cannot make the checkout $src"
fi
step "applying testbed/patches and series/$sub alone to base in ${src#$TOP/}"
for p in $(submission_patches testbed) $(submission_patches "$sub"); do
	git -C "$src" am -q --3way "$p" >/dev/null 2>&1 || {
		git -C "$src" am --abort >/dev/null 2>&1 || true
		die "${p#$TOP/} does not apply to base alone"
	}
done
SRC=$src OUT=$BUILD/kernel-alone exec "$TOP/testbed/kernel.sh" patched
