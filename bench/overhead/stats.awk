# SPDX-License-Identifier: GPL-2.0
# Helpers of the bench-overhead reports (report.sh, unwind-report.sh),
# put before each one's awk program: lists are space-separated numbers.

# median LIST: the median of the numbers in LIST.
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	if (n % 2) return a[(n + 1) / 2]
	return (a[n / 2] + a[n / 2 + 1]) / 2
}

# minmax LIST WANT: their smallest ("min") or largest ("max").
function minmax(list, want,   n, a, i, m) {
	n = split(list, a, " ")
	m = a[1] + 0
	for (i = 2; i <= n; i++)
		if ((want == "min" && a[i] + 0 < m) || (want == "max" && a[i] + 0 > m)) m = a[i] + 0
	return m
}

# add ARR K V: V appended to the list ARR[K]; human B: bytes, as KiB or MiB.
function add(arr, k, v) { arr[k] = (k in arr) ? arr[k] " " v : v }
function human(b) {
	if (b >= 1048576) return sprintf("%.1f MiB", b / 1048576)
	if (b >= 1024) return sprintf("%.1f KiB", b / 1024)
	return sprintf("%d B", b)
}
