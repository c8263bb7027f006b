# Charge sampled instruction addresses to BPF source lines
# (tests/bench/profile.sh). Input, in order: the line table of
# build/tests/jit_lines (ADDRESS PROG_ID FILE:LINE TEXT), a line "--",
# then one sampled address (hex, as perf script -F ip prints it) a line.
# -v names="ID=LABEL ID=LABEL ...": the programs to report, by id.
# -v top=N: lines per program. Prints, per program, its samples and its N
# hottest source lines with their share of the program's samples.
#
# Kernel text addresses exceed awk's 53-bit numbers; the BPF JIT region
# lies within one 4 GiB span, so the low 32 bits order them.
function lo32(h,    v, i) {
	h = tolower(substr(h, length(h) - 7))
	v = 0
	for (i = 1; i <= length(h); i++)
		v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v
}
BEGIN {
	n = split(names, kv, " ")
	for (i = 1; i <= n; i++) {
		split(kv[i], p, "=")
		label[p[1]] = p[2]
		order[i] = p[1]
	}
	top = top ? top : 12
}
sep == 0 && $0 == "--" { sep = 1; next }
sep == 0 {
	if (!($2 in label))
		next
	nl++
	addr[nl] = lo32($1)
	prog[nl] = $2
	where = $3
	$1 = $2 = $3 = ""
	sub(/^ +/, "")
	line[nl] = where " " substr($0, 1, 60)
	next
}
{
	a = lo32($1)
	# The last record at or below a: a binary search over the sorted table.
	lo = 1; hi = nl; k = 0
	while (lo <= hi) {
		mid = int((lo + hi) / 2)
		if (addr[mid] <= a) { k = mid; lo = mid + 1 } else hi = mid - 1
	}
	# Past a program's last record by more than a page: not in it.
	if (!k || a - addr[k] > 4096)
		next
	total[prog[k]]++
	hits[prog[k], line[k]]++
}
END {
	for (i = 1; i <= n; i++) {
		id = order[i]
		printf "  %s (program %s): %d samples\n", label[id], id, total[id] + 0
		if (!total[id])
			continue
		m = 0
		for (key in hits) {
			split(key, q, SUBSEP)
			if (q[1] != id)
				continue
			m++
			cnt[m] = hits[key]
			txt[m] = q[2]
		}
		# Selection of the top lines by count.
		for (j = 1; j <= top && j <= m; j++) {
			b = j
			for (x = j + 1; x <= m; x++)
				if (cnt[x] > cnt[b]) b = x
			t = cnt[j]; cnt[j] = cnt[b]; cnt[b] = t
			t = txt[j]; txt[j] = txt[b]; txt[b] = t
			printf "    %5.1f%%  %s\n", 100 * cnt[j] / total[id], txt[j]
		}
		delete cnt
		delete txt
	}
}
