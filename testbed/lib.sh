# Shared shell glue for the testbed scripts: paths, messages, checks.
# Sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
TREE=$BUILD/linux
SERIES=$TOP/series
# Debian's linux-source-7.3 (trixie-backports; make deps pins it).
SRC_SERIES=7.3
SRC_PACKAGE=linux-source-$SRC_SERIES
SRC_TARBALL=${SRC_TARBALL:-/usr/src/$SRC_PACKAGE.tar.xz}

say() { printf '%s\n' "$*"; }
step() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The Debian version of the installed kernel source package, empty if absent.
src_package_version() {
	dpkg-query -W -f='${Version}' "$SRC_PACKAGE" 2>/dev/null || true
}

# Commits in the tree on top of base, or nothing when there is no tree.
tree_has_git() { [ -d "$TREE/.git" ] && git -C "$TREE" rev-parse -q --verify base >/dev/null 2>&1; }

# series/ holds one directory per submission (1-bpf, 2-bpf-next-dispatcher,
# ...), each a 0000-cover-letter.patch and its patches; make tree applies
# them in the directories' order, after testbed/patches (what only the test
# bed needs: never part of a submission). In build/linux the branch
# sub/<name> marks each submission's last commit (sub/testbed the test
# bed's), which 'make export' splits HEAD's history by.
TESTBED_PATCHES=$TOP/testbed/patches
submissions() {
	local d
	for d in "$SERIES"/*/; do
		[ -d "$d" ] && basename "$d"
	done
}
# A submission's patches (or testbed's), in order, without the cover letter.
submission_patches() {
	local dir=$SERIES/$1 p
	[ "$1" = testbed ] && dir=$TESTBED_PATCHES
	for p in "$dir"/[0-9][0-9][0-9][0-9]-*.patch; do
		[ -e "$p" ] && [ "${p##*/}" != 0000-cover-letter.patch ] && echo "$p"
	done
	# a new submission's directory may hold its cover letter only
	return 0
}
all_patches() {
	local s
	for s in testbed $(submissions); do
		submission_patches "$s"
	done
}

# Sorted patch ids of base..HEAD and of every patch make tree applies.
tree_patch_ids() { git -C "$TREE" log -p --reverse base..HEAD | git patch-id --stable | cut -d' ' -f1 | sort; }
series_patch_ids() {
	local p
	for p in $(all_patches); do
		git patch-id --stable <"$p" | cut -d' ' -f1
	done | sort
}

# Give each submission without a sub/<name> branch in build/linux one, at
# the commit whose diff is its last patch (a tree made before the branches).
mark_submissions() {
	local sub last id commit
	for sub in testbed $(submissions); do
		git -C "$TREE" rev-parse -q --verify "refs/heads/sub/$sub" >/dev/null && continue
		last=$(submission_patches "$sub" | tail -n 1)
		[ -n "$last" ] || continue
		id=$(git patch-id --stable <"$last" | cut -d' ' -f1)
		commit=$(git -C "$TREE" log -p base..HEAD | git patch-id --stable |
			 awk -v id="$id" '$1 == id { print $2; exit }')
		if [ -n "$commit" ]; then
			git -C "$TREE" branch -f "sub/$sub" "$commit"
		fi
	done
}

# Refuse to go on when build/linux holds work that series/ does not: uncommitted
# changes to tracked files, or commits whose diffs are not in series/.
guard_tree_work() {
	local what=$1 dirty missing
	tree_has_git || return 0
	dirty=$(git -C "$TREE" status --porcelain --untracked-files=no | head -5)
	if [ -n "$dirty" ]; then
		die "$TREE has uncommitted changes; refusing to $what.
$dirty
Commit them and run 'make export', or discard them yourself (git -C $TREE stash)."
	fi
	missing=$(comm -23 <(tree_patch_ids) <(series_patch_ids))
	if [ -n "$missing" ]; then
		die "$TREE has commits on top of base that are not in series/; refusing to $what.
Run 'make export' to write them to series/, or drop them yourself (git -C $TREE log base..HEAD)."
	fi
}
