# Draws build/results/emitter.csv: ns per call against N, one panel per
# call pattern: the dispatcher under its policy, the tree it would be
# without one, the call it replaces (images off, through this CPU's thunk)
# and a direct call.
# gnuplot -e "csv='...'; out='...'" emitter.gp
set datafile separator ","
set terminal pngcairo size 1400,900 font ",10"
set output out
set multiplot layout 2,2 title "BPF dispatcher image on the host CPU (ns per call, lower is better)"
set logscale x 2
set xlabel "programs in the dispatcher (N)"
set ylabel "ns per call"
set key top left
set grid
do for [p in "same round-robin random zipf"] {
	set title p
	rows(shape) = sprintf("< grep -E '^[0-9]+,%s,([^,]*,){4}%s,' '%s'", p, shape, csv)
	plot rows("policy") using 1:3 with linespoints lw 2 title "dispatcher (policy)", \
	     rows("tree") using 1:3 with linespoints lw 1 dt 2 title "tree always", \
	     rows("tree") using 1:8 with linespoints lw 2 title "images off (the call it replaces)", \
	     rows("tree") using 1:6 with linespoints lw 2 title "direct call"
}
unset multiplot
