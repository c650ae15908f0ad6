# make selftests: test_progs' logs, one per kernel, and test_xsk.sh's,
# into one table.
#   awk -f selftests-table.awk -v kernels="upstream patched ..." -v skips=SKIPS LOG... XSKLOG...
# (each kind of log in the order of kernels). A row per test and subtest,
# and per xskxceiver test (named by its run, softirq or busy-poll on
# veth, or zero-copy on igb (guest/xsk-igb-zc.sh), and its number, which
# is the same on every kernel: a skipped one prints no name): OK,
# SKIP, FAIL, or "-" where the kernel's run never reported it. Exits 1
# when a test fails on a patched kernel and did not fail on upstream (the
# igb zero-copy rows are listed apart instead: they time out now and then
# on every kernel under TCG), or
# is missing on it where upstream reported it and did not fail (a test of
# the series that skips on upstream counts too), or when a run did not
# finish.
BEGIN {
	nk = split(kernels, kname, " ")
	for (i = 1; i <= nk; i++)
		if (kname[i] == "upstream")
			up = i
	# SKIPS: a name's regex, a tab, why it skips
	while (skips && (getline line < skips) > 0) {
		if (line ~ /^#/ || line !~ /\t/)
			continue
		nskip++
		skip_re[nskip] = "^(" substr(line, 1, index(line, "\t") - 1) ")$"
		skip_why[nskip] = substr(line, index(line, "\t") + 1)
	}
}
function skip_reason(name,    i) {
	for (i = 1; i <= nskip; i++)
		if (name ~ skip_re[i])
			return skip_why[i]
	return ""
}
# The column is the file's place on the command line: an empty log (a
# run that never started) still takes its own.
FNR == 1 {
	for (k = 1; k < ARGC; k++)
		if (ARGV[k] == FILENAME)
			break
	xsk = k > nk
	if (xsk)
		k -= nk
	in_summary = 0
	xsk_run = 0
}
# test_xsk.sh: xskxceiver's TAP output, a "1..N" plan per run
xsk && /^1\.\.[0-9]+$/ {
	xsk_run++
	xsk_runs[k]++
	xsk_planned[k] += substr($0, 4)
}
xsk && match($0, /^(not )?ok [0-9]+ /) {
	num = $0
	sub(/^(not )?ok /, "", num)
	sub(/ .*/, "", num)
	res = /^not ok/ ? "FAIL" : / # SKIP / ? "SKIP" : "OK"
	name = sprintf("test_xsk.sh %s #%02d", xsk_run == 1 ? "softirq" : xsk_run == 2 ? "busy-poll" : "igb zero-copy", num)
	rest = $0
	sub(/^(not )?ok [0-9]+ ((PASS|FAIL): )?/, "", rest)
	if (!(name in label) || res != "SKIP")
		label[name] = rest
	add(name, res)
	xsk_seen[k] = 1
	xsk_reported[k]++
	next
}
xsk { next }
/^All error logs:/ { in_summary = 1 }
/^guest-failed/ { guest_failed[k] = 1 }
/^Summary:/ { summary[k] = $0 }
!in_summary && match($0, /^#[0-9]+(\/[0-9]+)?[ \t]+/) {
	rest = substr($0, RLENGTH + 1)
	# "OK (SKIP: 5/14)": a test some of whose subtests skipped
	sub(/ \(SKIP: [0-9]+\/[0-9]+\)$/, "", rest)
	if (!match(rest, /:(OK|SKIP|FAIL)$/))
		next
	add(substr(rest, 1, RSTART - 1), substr(rest, RSTART + 1))
}
function add(name, res) {
	if (!(name in seen)) {
		seen[name] = 1
		order[n++] = name
	}
	result[name, k] = res
}
END {
	w = 40
	for (i = 0; i < n; i++)
		if (length(order[i]) > w)
			w = length(order[i])
	printf "# test_progs (SELFTESTS=%s) and test_xsk.sh: OK, SKIP, FAIL, or - (not reported)\n", selection
	printf "%-*s", w, "test/subtest"
	for (j = 1; j <= nk; j++)
		printf "  %-11s", kname[j]
	printf "\n"
	for (i = 0; i < n; i++) {
		name = order[i]
		printf "%-*s", w, name
		# (an awk array reference creates the element: test with "in" first)
		ur = (up && (name, up) in result) ? result[name, up] : "-"
		for (j = 1; j <= nk; j++) {
			r = ((name, j) in result) ? result[name, j] : "-"
			printf "  %-11s", r
			if (j == up)
				continue
			# a failure upstream has not, or a test it reports and this one not
			if ((r == "FAIL" && ur != "FAIL") || (r == "-" && ur != "-" && ur != "FAIL")) {
				u = ""
				if (up)
					u = ur == "-" ? ", not reported on upstream" : ", " ur " on upstream"
				if (r == "-")
					r = "not reported"
				# igb zero-copy under TCG: a varying few time out on every
				# kernel (RESULTS.md), so these are shown, not counted
				if (name ~ /^test_xsk\.sh igb zero-copy /)
					noted[++nnoted] = sprintf("%s: %s on %s%s", name, r, kname[j], u)
				else
					bad[++nbad] = sprintf("%s: %s on %s%s", name, r, kname[j], u)
			}
		}
		skipped = 0
		for (j = 1; j <= nk; j++)
			skipped += ((name, j) in result) && result[name, j] == "SKIP"
		why = skipped ? skip_reason(name) : ""
		if (skipped && why == "")
			unexplained[++nun] = name
		printf "%s%s\n", name in label ? "  " label[name] : "", why != "" ? "  (skip: " why ")" : ""
	}
	printf "\n"
	for (j = 1; j <= nk; j++) {
		printf "%-11s %s%s\n", kname[j], summary[j] ? summary[j] : "no summary (the run did not finish)",
			guest_failed[j] ? "; the guest did not end cleanly" : ""
		if (guest_failed[j] || !summary[j])
			bad[++nbad] = sprintf("the %s run did not finish cleanly", kname[j])
		if (ARGC - 1 > nk) {
			# coverage, printed: a run that stops early loses its later tests
			printf "%-11s test_xsk.sh: %d runs, %d of %d planned tests reported\n", "",
				xsk_runs[j], xsk_reported[j], xsk_planned[j]
			# the igb run is there where QEMU emulates igb: on every kernel alike
			if (!xsk_seen[j] || xsk_runs[j] < 2 || xsk_runs[j] > 3)
				bad[++nbad] = sprintf("test_xsk.sh made %d runs on %s, want 2 (softirq, busy-poll) or 3 (and igb zero-copy)",
					xsk_runs[j], kname[j])
			else if (up && xsk_runs[j] != xsk_runs[up])
				bad[++nbad] = sprintf("test_xsk.sh made %d runs on %s and %d on upstream: logs of different test beds (one with igb, one without)?",
					xsk_runs[j], kname[j], xsk_runs[up])
		}
	}
	if (nun) {
		printf "\nskips without a reason in testbed/selftests/SKIPS: %d\n", nun
		for (i = 1; i <= nun; i++)
			printf "  %s\n", unexplained[i]
	}
	if (nnoted) {
		printf "\nigb zero-copy rows that differ from upstream (not counted: these time out now and then on every kernel under TCG): %d\n", nnoted
		for (i = 1; i <= nnoted; i++)
			printf "  %s\n", noted[i]
	}
	if (nbad) {
		printf "\nFAILED: %d\n", nbad
		for (i = 1; i <= nbad; i++)
			printf "  %s\n", bad[i]
		exit 1
	}
	printf "\nno test that passes %s fails on another kernel%s\n", up ? "on upstream" : "anywhere",
		nnoted ? " (the igb zero-copy rows above apart)" : ""
}
