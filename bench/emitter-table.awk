# emitter.csv -> a table for commit messages and the README: per N, the
# dispatcher under its policy ("disp") and the retpoline call ("retp") in
# ns for each call pattern, and a direct call. SHAPE=tree shows the tree.
BEGIN { FS = "," }
NR > 1 && $7 == (SHAPE ? SHAPE : "policy") {
	if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
	d[$1, $2] = $3; r[$1, $2] = $4; direct[$1] = $6
}
END {
	printf "  %4s | %-10s | %-10s | %-10s | %-10s | %s\n", "", "same", "r-robin", "random", "zipf", "direct"
	printf "  %4s | %4s %5s | %4s %5s | %4s %5s | %4s %5s |\n", "N", "disp", "retp", "disp", "retp", "disp", "retp", "disp", "retp"
	for (i = 1; i <= n; i++) {
		k = order[i]
		printf "  %4s | %4.1f %5.1f | %4.1f %5.1f | %4.1f %5.1f | %4.1f %5.1f | %4.1f\n", k,
			d[k, "same"], r[k, "same"], d[k, "round-robin"], r[k, "round-robin"],
			d[k, "random"], r[k, "random"], d[k, "zipf"], r[k, "zipf"], direct[k]
	}
}
