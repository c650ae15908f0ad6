# make run's real-CPU table: the emitter harness's median CSV (emitter-
# median.awk) -> per N and pattern, base's call (the kernel without images,
# through this CPU's thunk), the kernel's choice and what it costs, a tree
# image, a direct call, and a verdict. DAT=1 writes the chart's rows instead.
BEGIN { FS = "," }
NR > 1 && $7 == "tree" { tree[$1, $2] = $3 }
NR > 1 && $7 == "policy" {
	k = $1 SUBSEP $2
	order[++n] = k; base[k] = $8; choice[k] = $3; chose[k] = $9; direct[k] = $6
}
END {
	if (DAT) {
		print "row base choice direct"
		for (i = 1; i <= n; i++) {
			k = order[i]; split(k, p, SUBSEP)
			printf "%s/%s %.2f %.2f %.2f\n", p[1], p[2], base[k], choice[k], direct[k]
		}
		exit
	}
	printf "  %4s %-11s %7s %15s %7s %7s  %s\n", "N", "pattern", "base", "kernel's choice",
		"tree", "direct", "verdict"
	for (i = 1; i <= n; i++) {
		k = order[i]; split(k, p, SUBSEP)
		t = tree[k]
		printf "  %4s %-11s %7.2f %7.2f %-7s %7.2f %7.2f  ", p[1], p[2], base[k], choice[k],
			chose[k], t, direct[k]
		if (chose[k] == "off")
			printf "images off here (auto): base's call; a tree image (bpf_dispatcher=on) would %s %.2f ns%s\n",
				t < base[k] ? "save" : "cost", t < base[k] ? base[k] - t : t - base[k],
				t < base[k] ? "" : " more"
		else if (chose[k] == "none")
			printf "no image for this traffic: base's call behind the key's NOP (a tree would %s %.2f ns)\n",
				t < base[k] ? "save" : "cost", t < base[k] ? base[k] - t : t - base[k]
		else if (choice[k] < base[k])
			printf "the image saves %.2f ns a call (%.0f%%)\n", base[k] - choice[k],
				100 * (base[k] - choice[k]) / base[k]
		else
			printf "the image costs %.2f ns a call more than base's call\n",
				choice[k] - base[k]
	}
}
