# Shared shell glue for the testbed scripts: paths, messages, checks.
# Sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
TREE=$BUILD/linux
SERIES=$TOP/series
SRC_TARBALL=${SRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
SRC_PACKAGE=linux-source-6.12

say() { printf '%s\n' "$*"; }
step() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The Debian version of the installed kernel source package, empty if absent.
src_package_version() {
	dpkg-query -W -f='${Version}' "$SRC_PACKAGE" 2>/dev/null || true
}

# Commits in the tree on top of base, or nothing when there is no tree.
tree_has_git() { [ -d "$TREE/.git" ] && git -C "$TREE" rev-parse -q --verify base >/dev/null 2>&1; }

# Sorted patch ids of base..HEAD and of series/*.patch.
tree_patch_ids() { git -C "$TREE" log -p --reverse base..HEAD | git patch-id --stable | cut -d' ' -f1 | sort; }
series_patch_ids() {
	local p
	for p in "$SERIES"/*.patch; do
		[ -e "$p" ] || continue
		git patch-id --stable <"$p" | cut -d' ' -f1
	done | sort
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
