# Several runs' emitter CSVs (concatenated, each with its header) -> one CSV
# of per-cell medians: for each N, pattern and shape, the median of each
# timing column over the runs; "chose" is the policy's most frequent answer.
BEGIN { FS = OFS = "," }
/^n,/ { if (!header) header = $0; next }
{
	k = $1 FS $2 FS $7
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	c = ++cnt[k]
	for (f = 3; f <= 11; f++) if (f != 7 && f != 9) v[k, f, c] = $f
	votes[k, $9]++
	if (votes[k, $9] > best[k]) { best[k] = votes[k, $9]; chose[k] = $9 }
}
function median(k, f,    n, i, j, t, a) {
	n = cnt[k]
	for (i = 1; i <= n; i++) a[i] = v[k, f, i] + 0
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	print header
	for (i = 1; i <= nk; i++) {
		k = order[i]
		split(k, p, FS)
		printf "%s,%s,%.3f,%.3f,%.3f,%.3f,%s,%.3f,%s,%.3f,%.3f\n", p[1], p[2], median(k, 3),
		       median(k, 4), median(k, 5), median(k, 6), p[3], median(k, 8), chose[k],
		       median(k, 10), median(k, 11)
	}
}
