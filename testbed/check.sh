#!/usr/bin/env bash
# make check: scripts/checkpatch.pl --strict on every patch in series/.
# Errors fail; a patch with warnings must justify them in its commit
# message, in a line that starts with "checkpatch:".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

checkpatch=$TREE/scripts/checkpatch.pl
[ -x "$checkpatch" ] || die "no $checkpatch: run 'make tree'"
n=0; bad=0
for p in "$SERIES"/*.patch; do
	[ -e "$p" ] || continue
	n=$((n + 1))
	out=$("$checkpatch" --strict --no-tree --no-signoff -q "$p" 2>&1 || true)
	signoff=$(grep -c '^Signed-off-by: ' "$p" || true)
	errors=$(printf '%s\n' "$out" | grep -c '^ERROR:' || true)
	warnings=$(printf '%s\n' "$out" | grep -cE '^(WARNING|CHECK):' || true)
	justified=$(sed -n '1,/^---$/p' "$p" | grep -c '^checkpatch:' || true)
	if [ "$signoff" -eq 0 ] || [ "$errors" -gt 0 ] || { [ "$warnings" -gt 0 ] && [ "$justified" -eq 0 ]; }; then
		say "FAIL $(basename "$p"): $errors errors, $warnings warnings/checks$([ "$signoff" -gt 0 ] || echo ', no Signed-off-by')"
		[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/    /'
		bad=$((bad + 1))
	elif [ "$warnings" -gt 0 ]; then
		say "ok   $(basename "$p"): $warnings warnings/checks, justified in its commit message"
	else
		say "ok   $(basename "$p")"
	fi
done
[ "$n" -gt 0 ] || say "series/ holds no patches"

# Documentation the series adds must be valid reStructuredText (docutils;
# files it only touches may use Sphinx's own directives).
for rst in $(cat "$SERIES"/*.patch 2>/dev/null |
	     awk '/^diff --git/ { f = $4 } /^new file mode/ && f ~ /\.rst$/ { sub("^b/", "", f); print f }'); do
	if rst2pseudoxml --halt=warning --report=warning "$TREE/$rst" /dev/null; then
		say "ok   $rst: valid reStructuredText (docutils)"
	else
		say "FAIL $rst: docutils reports the problems above"
		bad=$((bad + 1))
	fi
done
[ "$bad" -eq 0 ] || die "$bad of $n patches fail checkpatch --strict"
say "checkpatch --strict: $n patches clean"
