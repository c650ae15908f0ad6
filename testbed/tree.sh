#!/usr/bin/env bash
# make tree: build/linux = Debian's linux-source-7.3, one commit tagged
# 'base', with testbed/patches/ and then each submission of series/ (in
# the order of their directories) applied on top by git am; the branch
# sub/<name> marks where each ends.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -r "$SRC_TARBALL" ] || die "$SRC_TARBALL not found: run 'make deps' (package $SRC_PACKAGE)"
version=$(src_package_version)
want=$(cat "$SERIES/BASE" 2>/dev/null || true)
if [ -n "$want" ] && [ "$version" != "$want" ]; then
	say "warning: series/BASE says the series was tested on $SRC_PACKAGE $want; installed is $version"
fi

# A tree that already holds every patch of series/ (and testbed/patches/)
# on the installed source is used as it is: exactly the series, or the series plus a developer's
# work in progress (said, so it gets exported).
if tree_has_git && [ "$(git -C "$TREE" config testbed.source-version || true)" = "$version" ] &&
   [ -z "$(comm -13 <(tree_patch_ids) <(series_patch_ids))" ]; then
	n=$(git -C "$TREE" rev-list --count base..HEAD)
	extra=$(comm -23 <(tree_patch_ids) <(series_patch_ids) | wc -l)
	dirty=$(git -C "$TREE" status --porcelain --untracked-files=no | wc -l)
	mark_submissions
	if [ "$extra" -eq 0 ] && [ "$dirty" -eq 0 ]; then
		say "build/linux is up to date: $SRC_PACKAGE $version + $n patches"
	else
		say "warning: build/linux holds work not in series/ ($extra commits, $dirty changed files): building it as it is; 'make export' saves it"
	fi
	exit 0
fi
# Otherwise the tree must be remade from series/: never over unexported work.
guard_tree_work "rebuild it from series/"

if [ "$(git -C "$TREE" config testbed.source-version 2>/dev/null || true)" != "$version" ]; then
	step "extracting $SRC_TARBALL ($SRC_PACKAGE $version) into build/linux"
	rm -rf "$TREE" "$BUILD/$SRC_PACKAGE"
	mkdir -p "$BUILD"
	tar -xJf "$SRC_TARBALL" -C "$BUILD"
	mv "$BUILD/$SRC_PACKAGE" "$TREE"
	step "committing the pristine tree as 'base'"
	git -C "$TREE" init -q -b work
	git -C "$TREE" config testbed.source-version "$version"
	# git am needs a committer; keep a developer's own identity when set.
	git -C "$TREE" config user.name >/dev/null || git -C "$TREE" config user.name "testbed"
	git -C "$TREE" config user.email >/dev/null || git -C "$TREE" config user.email "testbed@localhost"
	# Debian's top-level .gitignore ends with "/*": it would hide the tree
	# from git and every new file a developer adds. Commit the pristine
	# tree with -f, then drop that block from the working copy only.
	git -C "$TREE" add -A -f
	git -C "$TREE" commit -q -m "Debian $SRC_PACKAGE $version"
	git -C "$TREE" tag base
	sed -i '/^# Debian packaging/,$d' "$TREE/.gitignore"
	git -C "$TREE" update-index --skip-worktree .gitignore
else
	step "resetting build/linux to base (all its commits are in series/)"
	git -C "$TREE" checkout -q -f work 2>/dev/null || git -C "$TREE" checkout -q -f -B work
	git -C "$TREE" reset -q --hard base
fi

n=0
for sub in testbed $(submissions); do
	for p in $(submission_patches "$sub"); do
		n=$((n + 1))
		if ! git -C "$TREE" am -q --whitespace=nowarn "$p" >/dev/null 2>&1; then
			# Name the hunk: git apply -v reports the file and line it failed at.
			why=$(git -C "$TREE" apply --check -v "$p" 2>&1 | grep -E '^error:' || true)
			git -C "$TREE" am --abort >/dev/null 2>&1 || true
			die "patch ${p#$TOP/} does not apply to $SRC_PACKAGE $version and the patches before it:
${why:-(git am failed; see git -C $TREE am $p)}
build/linux holds base plus the $((n - 1)) patches before it."
		fi
	done
	git -C "$TREE" branch -f "sub/$sub" HEAD
done
say "build/linux: $SRC_PACKAGE $version + $n patches ($(submissions | wc -l) submissions of series/, and testbed/patches/)"
