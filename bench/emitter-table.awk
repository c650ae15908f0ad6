# emitter.csv -> a table for commit messages and the README: per N, the
# dispatcher under its policy ("disp") and the call it replaces ("off": the
# kernel's path with images off, through this CPU's thunk) in ns for each
# call pattern, a direct call, and the worst disp/off ratio of the row
# over every pattern (MORE=1 shows the patterns past the first four), and
# the worst ratio of disp to the better of a tree and the call it replaces
# ("disp/best": what a policy that knew the answer would have taken).
# SHAPE=tree shows the tree alone instead of the policy. CALLS=1 shows,
# per N and pattern, every indirect call a kernel can make beside the
# policy's cost and choice.
BEGIN { FS = "," }
CALLS && NR == 1 {
	printf "  %4s %-11s %9s %7s %7s %7s %7s %7s %7s  %s\n", "N", "pattern", "retpoline",
		"lfence", "its", "plain", "direct", "off", "policy", "chose"
}
CALLS && NR > 1 && $7 == "policy" {
	printf "  %4s %-11s %9.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f  %s\n", $1, $2, $4, $10,
		$11, $5, $6, $8, $3, $9
	next
}
CALLS { next }
NR > 1 && $7 == "tree" { tree[$1, $2] = $3 }
NR > 1 && $7 == (SHAPE ? SHAPE : "policy") {
	if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
	d[$1, $2] = $3; off[$1, $2] = ($8 != "" ? $8 : $4); direct[$1] = $6
	r = d[$1, $2] / off[$1, $2]
	if (r > worst[$1]) worst[$1] = r
	pats[$1, ++npats[$1]] = $2
}
END {
	# MORE=1: the patterns past the first four (NAPI runs, bursts, a mix).
	if (MORE) { p1 = "napi"; p2 = "bursts"; p3 = "mix"; p4 = "" }
	else { p1 = "same"; p2 = "round-robin"; p3 = "random"; p4 = "zipf" }
	printf "  %4s | %-10s | %-10s | %-10s", "", p1 == "round-robin" ? "r-robin" : p1, p2 == "round-robin" ? "r-robin" : p2, p3
	if (p4 != "") printf " | %-10s", p4
	printf " | %6s | %-8s | %s\n", "direct", "worst", "worst"
	printf "  %4s | %4s %5s | %4s %5s | %4s %5s", "N", "disp", "off", "disp", "off", "disp", "off"
	if (p4 != "") printf " | %4s %5s", "disp", "off"
	printf " | %6s | %-8s | %s\n", "", "disp/off", "disp/best"
	for (i = 1; i <= n; i++) {
		k = order[i]
		printf "  %4s | %4.1f %5.1f | %4.1f %5.1f | %4.1f %5.1f", k,
			d[k, p1], off[k, p1], d[k, p2], off[k, p2], d[k, p3], off[k, p3]
		if (p4 != "") printf " | %4.1f %5.1f", d[k, p4], off[k, p4]
		wb = 0
		for (j = 1; j <= npats[k]; j++) {
			pt = pats[k, j]
			if (!((k, pt) in tree)) continue
			b = tree[k, pt] < off[k, pt] ? tree[k, pt] : off[k, pt]
			if (d[k, pt] / b > wb) wb = d[k, pt] / b
		}
		printf " | %6.1f | %-8.2f | %.2f\n", direct[k], worst[k], wb
	}
}
