#!/bin/sh
# The dispatcher image in force, disassembled at its address, each
# instruction with the perf samples it took: what "perf annotate" shows,
# for an image Debian's perf cannot annotate (it prints "to be
# implemented" for BPF images, and /proc/kcore has no module area in a
# kernel without modules). The image's bytes come from debugfs.
#   annotate-image.sh PERF_DATA [DISPATCHER]
set -eu
data=$1
name=${2:-xdp}
dir=/sys/kernel/debug/bpf_dispatcher
sym=bpf_dispatcher_$name
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "image <addr> size <bytes>" (after the "mode ..." line)
addr=$(sed -n 's/^image \([0-9a-f]*\) size [0-9]*$/\1/p' "$dir/$name")
size=$(sed -n 's/^image [0-9a-f]* size \([0-9]*\)$/\1/p' "$dir/$name")
[ -n "$addr" ] && [ -n "$size" ] || { echo "no image line in $dir/$name"; exit 1; }
if [ "$size" = 0 ]; then
	echo "no image in force (policy: $(sed -n 's/^policy //p' "$dir/$name"))"
	exit 0
fi
cat "$dir/$name.image" >"$tmp/image.bin"
perf script -i "$data" -F ip,sym 2>/dev/null |
	awk -v sym="$sym" '$2 == sym { n[$1]++ } END { for (ip in n) print ip, n[ip] }' >"$tmp/counts"
objdump -D -b binary -mi386:x86-64 --adjust-vma="0x$addr" "$tmp/image.bin" |
	grep -E '^ *[0-9a-f]+:'"$(printf '\t')" >"$tmp/disasm"
# Samples at the image's own instructions only: for an image made before
# the recording, perf sizes the symbol from /proc/kallsyms (no sizes) and
# gives it its neighbours' samples too.
awk -v counts="$tmp/counts" -v addr="$addr" -v size="$size" -v sym="$sym" '
	BEGIN { while ((getline line < counts) > 0) { split(line, f, " "); n[f[1]] = f[2]; all += f[2] } }
	{
		ip = $1; sub(":", "", ip)
		key = sprintf("%16s", ip); gsub(" ", "0", key)
		c[NR] = (key in n) ? n[key] : 0; total += c[NR]
		text = $0; sub(/^ *[0-9a-f]+:\t/, "", text)
		lines[NR] = ip "  " text
	}
	END {
		printf "%s at 0x%s, %d bytes: %d perf samples on its instructions", sym, addr, size, total
		printf " (%d more perf gave the symbol, outside them)\n", all - total
		for (i = 1; i <= NR; i++) {
			if (c[i])
				printf "  %6d %5.1f%%  %s\n", c[i], 100 * c[i] / total, lines[i]
			else
				printf "  %6s %6s  %s\n", "", "", lines[i]
		}
	}' "$tmp/disasm"
