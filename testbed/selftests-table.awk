# make selftests: test_progs' logs, one per kernel, into one table.
#   awk -f selftests-table.awk -v kernels="upstream patched ..." LOG...
# (the logs in the order of kernels). A row per test and subtest: OK,
# SKIP, FAIL, or "-" where the kernel's run never reported it. Exits 1
# when a test that passes on upstream fails or is missing on a patched
# kernel (or, without an upstream column, when any test fails).
BEGIN {
	nk = split(kernels, kname, " ")
	for (i = 1; i <= nk; i++)
		if (kname[i] == "upstream")
			up = i
}
FNR == 1 { k++; in_summary = 0 }
/^All error logs:/ { in_summary = 1 }
/^guest-failed/ { guest_failed[k] = 1 }
/^Summary:/ { summary[k] = $0 }
!in_summary && match($0, /^#[0-9]+(\/[0-9]+)?[ \t]+/) {
	rest = substr($0, RLENGTH + 1)
	if (!match(rest, /:(OK|SKIP|FAIL)$/))
		next
	name = substr(rest, 1, RSTART - 1)
	res = substr(rest, RSTART + 1)
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
	printf "# test_progs (SELFTESTS=%s): OK, SKIP, FAIL, or - (not reported)\n", selection
	printf "%-*s", w, "test/subtest"
	for (j = 1; j <= nk; j++)
		printf "  %-11s", kname[j]
	printf "\n"
	for (i = 0; i < n; i++) {
		name = order[i]
		printf "%-*s", w, name
		for (j = 1; j <= nk; j++) {
			r = ((name, j) in result) ? result[name, j] : "-"
			printf "  %-11s", r
			if (j == up)
				continue
			if (up ? result[name, up] == "OK" && r != "OK" && r != "SKIP" : r == "FAIL")
				bad[++nbad] = sprintf("%s: %s on %s%s", name, r == "-" ? "not reported" : r,
					kname[j], up ? ", OK on upstream" : "")
		}
		printf "\n"
	}
	printf "\n"
	for (j = 1; j <= nk; j++) {
		printf "%-11s %s%s\n", kname[j], summary[j] ? summary[j] : "no summary (the run did not finish)",
			guest_failed[j] ? "; the guest did not end cleanly" : ""
		if (guest_failed[j] || !summary[j])
			bad[++nbad] = sprintf("the %s run did not finish cleanly", kname[j])
	}
	if (nbad) {
		printf "\nFAILED: %d\n", nbad
		for (i = 1; i <= nbad; i++)
			printf "  %s\n", bad[i]
		exit 1
	}
	printf "\nno test that passes %s fails on another kernel\n", up ? "on upstream" : "anywhere"
}
