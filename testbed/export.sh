#!/usr/bin/env bash
# make export: write the commits of build/linux back to where make tree took
# them from: base..sub/testbed to testbed/patches/, and each submission's
# range (sub/<previous>..sub/<name>; the last one's ends at HEAD) to
# series/<name>/, with git format-patch, numbered in the submission, and
# its cover letter regenerated (shortlog, diffstat) around the subject and
# text of the one there. The output does not change unless the commits do.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree_has_git || die "no kernel tree in $TREE: run 'make tree'"
if [ -n "$(git -C "$TREE" status --porcelain --untracked-files=no | head -1)" ]; then
	say "warning: $TREE has uncommitted changes; only commits are exported"
fi
mapfile -t subs < <(echo testbed; submissions)
[ "${#subs[@]}" -gt 1 ] || die "series/ has no submission directories (series/1-bpf/ and so on)"
mark_submissions
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A cover letter's parts: its subject after the "[PATCH ...]", its Date
# header, and its text (up to the shortlog's "Author (n):" line).
cover_subject() { sed -n 's/^Subject: \[[^]]*\] //p' "$1" | head -n 1; }
cover_prefix() { sed -n 's/^Subject: \[\(.*\) 0*0\/[0-9]*\] .*/\1/p' "$1" | head -n 1; }
cover_text() {
	awk 'body && /^[^ ].* \([0-9]+\):$/ { exit }
	     body { print }
	     !body && /^$/ { body = 1 }' "$1" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

prev=$(git -C "$TREE" rev-parse base)
head=$(git -C "$TREE" rev-parse HEAD)
last=${subs[${#subs[@]}-1]}
total=0
for sub in "${subs[@]}"; do
	if [ "$sub" = "$last" ]; then
		end=$head
	else
		end=$(git -C "$TREE" rev-parse -q --verify "refs/heads/sub/$sub") ||
			die "build/linux has no branch sub/$sub, which marks where submission $sub ends.
Set it (git -C $TREE branch -f sub/$sub <its last commit>), or remake the tree."
	fi
	if ! git -C "$TREE" merge-base --is-ancestor "$prev" "$end" ||
	   ! git -C "$TREE" merge-base --is-ancestor "$end" "$head"; then
		die "sub/$sub is not on HEAD's history after the submission before it:
rebase with 'git rebase -i --update-refs base' so that the sub/* branches follow,
or set it (git -C $TREE branch -f sub/$sub <its last commit>)."
	fi
	n=$(git -C "$TREE" rev-list --count "$prev..$end")
	out=$tmp/$sub
	if [ "$sub" = testbed ]; then
		git -C "$TREE" format-patch -q -N --zero-commit --no-signature -o "$out" "$prev..$end"
	else
		[ "$n" -gt 0 ] || die "submission $sub has no commits (sub/$sub is where the one before it ends)"
		old=$SERIES/$sub/0000-cover-letter.patch
		[ -f "$old" ] || die "$old is missing: a submission needs its cover letter"
		prefix=$(cover_prefix "$old")
		[ -n "$prefix" ] || die "$old: no 'Subject: [PATCH ... 0/N]' line"
		git -C "$TREE" format-patch -q --cover-letter --subject-prefix="$prefix" \
			--zero-commit --no-signature -o "$out" "$prev..$end"
		new=$out/0000-cover-letter.patch
		cover_text "$old" >"$tmp/text"
		awk -v subject="$(cover_subject "$old")" -v date="$(grep -m1 '^Date: ' "$old")" -v text="$tmp/text" '
			/^Date: / && date != "" { print date; next }
			/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
			/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline l < text) > 0) print l; next }
			{ print }' "$new" >"$tmp/cover" && mv "$tmp/cover" "$new"
	fi
	total=$((total + n))
	prev=$end
done

# Only now that every range is written: replace what was there.
for sub in "${subs[@]}"; do
	dir=$SERIES/$sub
	[ "$sub" = testbed ] && dir=$TESTBED_PATCHES
	mkdir -p "$dir"
	rm -f "$dir"/*.patch
	[ -d "$tmp/$sub" ] && mv "$tmp/$sub"/*.patch "$dir/" 2>/dev/null || true
	[ "$sub" = "$last" ] && git -C "$TREE" branch -f "sub/$sub" HEAD
done
src_package_version >"$SERIES/BASE"
say "exported $total patches: $(for s in "${subs[@]}"; do
	d=$SERIES/$s; [ "$s" = testbed ] && d=$TESTBED_PATCHES
	printf '%s %s, ' "${d#$TOP/}" "$(submission_patches "$s" | wc -l)"; done | sed 's/, $//') (base: $SRC_PACKAGE $(cat "$SERIES/BASE"))"
