#!/usr/bin/env bash
# make check: what a maintainer runs on a posting, on every submission of
# series/ (and testbed/patches/):
#  1. each submission applies, in order on base and those before it (as
#     make tree applies them), and on base alone when its cover letter says
#     "Applies to the tree alone";
#  2. scripts/checkpatch.pl --strict on every patch: errors fail, warnings
#     must be justified in the commit message by a line "checkpatch: ...";
#     every patch has a Signed-off-by, every submission a cover letter;
#  3. every commit builds on its predecessors: the kernel objects it
#     touches (for a header, every object its submission touches), in the
#     test bed's config plus testbed/kconfig/check.config; the userspace
#     harness (built, and fuzzed for a second) where the commit touches it
#     or what it builds; perf where it touches tools/perf; a syntax check
#     of the selftests' C files it touches. Links are not checked here:
#     make matrix's bisect line builds a whole kernel at every commit.
#  4. reStructuredText the series adds is valid (docutils);
#  5. every make target and KERNEL= flavour README.md names: make -n of it.
# CHECK=quick does 1, 2, 4 and 5 only. Build output: build/check/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

checkpatch=$TREE/scripts/checkpatch.pl
[ -x "$checkpatch" ] || die "no $checkpatch: run 'make tree'"
bad=0
fail() { say "FAIL $*"; bad=$((bad + 1)); }

step "checkpatch --strict"
n=0
for sub in testbed $(submissions); do
	if [ "$sub" != testbed ] && [ ! -f "$SERIES/$sub/0000-cover-letter.patch" ]; then
		fail "series/$sub: no 0000-cover-letter.patch"
	fi
	for p in $(submission_patches "$sub"); do
		n=$((n + 1))
		name=${p#$TOP/}
		# UNKNOWN_COMMIT_ID: Debian's tree has no upstream history for
		# checkpatch to look Fixes: ids up in.
		out=$("$checkpatch" --strict --no-tree --no-signoff --ignore UNKNOWN_COMMIT_ID -q "$p" 2>&1 || true)
		signoff=$(grep -c '^Signed-off-by: ' "$p" || true)
		errors=$(printf '%s\n' "$out" | grep -c '^ERROR:' || true)
		warnings=$(printf '%s\n' "$out" | grep -cE '^(WARNING|CHECK):' || true)
		justified=$(sed -n '1,/^---$/p' "$p" | grep -c '^checkpatch:' || true)
		if [ "$signoff" -eq 0 ] || [ "$errors" -gt 0 ] || { [ "$warnings" -gt 0 ] && [ "$justified" -eq 0 ]; }; then
			fail "$name: $errors errors, $warnings warnings/checks$([ "$signoff" -gt 0 ] || echo ', no Signed-off-by')"
			[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/    /'
		elif [ "$warnings" -gt 0 ]; then
			say "ok   $name: $warnings warnings/checks, justified in its commit message"
		else
			say "ok   $name"
		fi
	done
done
[ "$n" -gt 0 ] || fail "series/ holds no patches"

# Every command the README names is a target, and every KERNEL= flavour
# it names is one the Makefile boots: make -n of each (nothing is run).
step "the README's commands"
targets=$(grep -ohE '\bmake [a-z][a-z-]*[a-z]' "$TOP/README.md" | sed 's/^make //' | sort -u)
flavours=$(grep -oE 'KERNEL=[a-z]+(\|[a-z-]+)+' "$TOP/README.md" | head -n 1 | sed 's/^KERNEL=//; s/|/ /g')
[ -n "$targets" ] && [ -n "$flavours" ] || fail "README.md: no make targets or no KERNEL= flavours found"
readme_make() {	# readme_make ARGS...: make -n ARGS, its output checked
	local out
	if ! out=$(env -u MAKEFLAGS -u MAKELEVEL make -n -C "$TOP" "$@" 2>&1) ||
	   printf '%s\n' "$out" | grep -qE 'error: KERNEL=|No rule to make target'; then
		fail "README.md names 'make $*', which make -n refuses:"
		printf '%s\n' "$out" | grep -E 'error|rule' | head -n 3 | sed 's/^/    /'
		return
	fi
	say "ok   make $*"
}
for t in $targets; do
	readme_make "$t"
done
for f in $flavours; do
	readme_make test KERNEL="$f"
	readme_make vm KERNEL="$f"
done

# Documentation the series adds must be valid reStructuredText (docutils;
# files it only touches may use Sphinx's own directives).
for rst in $(cat $(all_patches) 2>/dev/null |
	     awk '/^diff --git/ { f = $4 } /^new file mode/ && f ~ /\.rst$/ { sub("^b/", "", f); print f }'); do
	if rst2pseudoxml --halt=warning --report=warning "$TREE/$rst" /dev/null; then
		say "ok   $rst: valid reStructuredText (docutils)"
	else
		fail "$rst: docutils reports the problems above"
	fi
done

# A checkout of build/linux's own, so that build/linux is never touched.
wt=$BUILD/check/linux
if [ ! -e "$wt/.git" ]; then
	mkdir -p "$BUILD/check"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$wt" base || die "cannot make the checkout $wt"
fi
# Each checkout starts clean: the harness builds in place.
checkout() { git -C "$wt" checkout -q -f --detach "$1" && git -C "$wt" clean -q -fdx; }

step "each submission applies"
checkout base
for sub in testbed $(submissions); do
	for p in $(submission_patches "$sub"); do
		if ! git -C "$wt" am -q --whitespace=nowarn "$p" >/dev/null 2>&1; then
			git -C "$wt" am --abort >/dev/null 2>&1 || true
			fail "${p#$TOP/} does not apply on the patches before it: run make tree for the hunk"
			break 2
		fi
	done
	say "ok   ${sub}: applies on base and those before it"
done
for sub in $(submissions); do
	grep -q 'Applies to the tree alone' "$SERIES/$sub/0000-cover-letter.patch" || continue
	checkout base
	for p in $(submission_patches "$sub"); do
		if ! why=$(git -C "$wt" am -q --whitespace=nowarn "$p" 2>&1); then
			git -C "$wt" am --abort >/dev/null 2>&1 || true
			fail "series/$sub says it applies to the tree alone, but ${p##*/} does not:"
			printf '%s\n' "$why" | grep -E '^(error|Patch failed)' | sed 's/^/    /'
			continue 2
		fi
	done
	say "ok   ${sub}: applies to base alone"
done

if [ "${CHECK:-}" = quick ]; then
	[ "$bad" -eq 0 ] || die "make check: $bad problem(s) above"
	say "make check (quick): $n patches clean"
	exit 0
fi

step "every commit builds on its predecessors (kernel objects, harness, perf, selftests)"
# Which submission each commit belongs to, and the kernel C files each
# submission touches (what a header it changes is used by, as likely as not).
declare -A sub_of sub_files
prev=base
for sub in testbed $(submissions); do
	end=$(git -C "$TREE" rev-parse -q --verify "refs/heads/sub/$sub" || true)
	[ "$sub" = "$(submissions | tail -n 1)" ] && end=$(git -C "$TREE" rev-parse HEAD)
	[ -n "$end" ] || die "build/linux has no branch sub/$sub: run make tree"
	for c in $(git -C "$TREE" rev-list "$prev..$end"); do
		sub_of[$c]=$sub
	done
	sub_files[$sub]=$(git -C "$TREE" diff --name-only --diff-filter=AM "$prev" "$end" |
			  grep -E '\.c$' | grep -vE '^(tools|scripts|samples|Documentation)/' | tr '\n' ' ' || true)
	prev=$end
done

selftests_cflags=(-fsyntax-only -Wall -Werror -D_GNU_SOURCE -I. -I.. -I../../../include
		  -I../../../include/uapi -I../../../lib)
i=0
total=$(git -C "$TREE" rev-list --count base..HEAD)
for c in $(git -C "$TREE" rev-list --reverse base..HEAD); do
	i=$((i + 1))
	subject=$(git -C "$TREE" log -1 --format=%s "$c")
	label="[$i/$total] ${sub_of[$c]:-?}: $subject"
	files=$(git -C "$TREE" diff-tree --no-commit-id --name-only --diff-filter=AM -r "$c")
	checkout "$c"
	objs=$(printf '%s\n' $files | grep -E '\.c$' | grep -vE '^(tools|scripts|samples|Documentation)/' || true)
	if printf '%s\n' $files | grep -vE '^tools/' | grep -qE '\.h$'; then
		objs="$objs ${sub_files[${sub_of[$c]}]}"
	fi
	# The dispatcher's headers reach every XDP and tc call site: a few of
	# them, the generic, driver and classifier ones, stand for the rest.
	if printf '%s\n' $files | grep -qE '^include/linux/(bpf|filter|bpf_dispatcher)\.h$'; then
		objs="$objs net/core/dev.c drivers/net/veth.c drivers/net/virtio_net.c net/sched/cls_bpf.c kernel/bpf/core.c"
	fi
	objs=$(printf '%s\n' $objs | sort -u | while read -r f; do
		if [ -n "$f" ] && [ -f "$wt/$f" ]; then echo "${f%.c}.o"; fi; done | tr '\n' ' ')
	did=()
	if [ -n "${objs// }" ]; then
		if TARGETS="$objs" SRC=$wt OUT=$BUILD/check/kernel "$TOP/testbed/kernel.sh" check \
			>"$BUILD/check/kernel.log" 2>&1; then
			did+=("$(wc -w <<<"$objs") objects")
		else
			fail "$label: the kernel objects do not build:"
			grep -a -m 20 -E 'error:|Error [0-9]' "$BUILD/check/kernel.log" | sed 's/^/    /'
			continue
		fi
	fi
	harness=$wt/tools/testing/bpf_dispatcher
	if [ -f "$harness/Makefile" ] && printf '%s\n' $files |
	   grep -qE '^tools/testing/bpf_dispatcher/|^arch/x86/net/bpf_dispatcher\.c$|^kernel/bpf/dispatcher_policy\.c$|^include/linux/bpf_dispatcher\.h$'; then
		if make -s -C "$harness" >"$BUILD/check/harness.log" 2>&1 &&
		   "$harness/dispatcher_fuzz" fuzz -t 1 >>"$BUILD/check/harness.log" 2>&1; then
			did+=("harness")
		else
			fail "$label: the harness does not build or its fuzzer fails:"
			tail -n 20 "$BUILD/check/harness.log" | sed 's/^/    /'
		fi
	fi
	if printf '%s\n' $files | grep -q '^tools/perf/'; then
		if SRC=$wt OUT=$BUILD/check/perf "$TOP/testbed/perf.sh" >"$BUILD/check/perf.log" 2>&1; then
			did+=("perf")
		else
			fail "$label: perf does not build:"
			tail -n 20 "$BUILD/check/perf.log" | sed 's/^/    /'
		fi
	fi
	for f in $(printf '%s\n' $files | grep -E '^tools/testing/selftests/bpf/[^/]*(/[^/]*)?\.c$' | grep -v '/progs/' || true); do
		# A test on a skeleton needs the BPF objects built first.
		skel=$(sed -n 's/^#include "\(.*\.skel\.h\)"$/\1/p' "$wt/$f" | head -n 1)
		if [ -n "$skel" ]; then
			did+=("${f##*/} not compiled here (it includes $skel: make selftests)")
			continue
		fi
		if (cd "$wt/tools/testing/selftests/bpf" &&
		    gcc "${selftests_cflags[@]}" "${f#tools/testing/selftests/bpf/}") >"$BUILD/check/selftests.log" 2>&1; then
			did+=("${f##*/}")
		else
			fail "$label: $f does not compile:"
			head -n 20 "$BUILD/check/selftests.log" | sed 's/^/    /'
		fi
	done
	if printf '%s\n' $files | grep -q '^tools/testing/selftests/bpf/progs/'; then
		did+=("BPF programs not built here (they need the kernel's BTF: make selftests)")
	fi
	say "ok   $label${did:+: $(IFS=,; echo "${did[*]}" | sed 's/,/, /g')}"
done

[ "$bad" -eq 0 ] || die "make check: $bad problem(s) above"
say "make check: $n patches clean, apply, and build one by one"
