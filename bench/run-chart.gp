# make run's chart: xdp-bench rx/s per action, and xdp_perf ns/run per
# kernel and number of other programs (TCG: ratios only).
# gnuplot -e "dir='build/results'; kernels='patched off upstream'" run-chart.gp
set terminal pngcairo size 1200,500 font ",10"
set output dir."/run-chart.png"
set multiplot layout 1,2 title "make run: the BPF dispatcher at work (QEMU TCG, emulated: compare ratios)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid y
set yrange [0:*]
set key below

set title "xdp-bench on veth, pktgen 64 B (rx/s, higher is better)"
set ylabel "packets per second"
plot dir."/run-pps.txt" using 2:xtic(1) title "patched kernel"

set title "xdp\\_perf: one XDP program (ns/run, lower is better)"
set ylabel "ns per run"
set xlabel "other programs attached"
plot for [i=2:words(kernels)+1] dir."/run-xdp-perf.dat" using i:xtic(1) every ::1 title word(kernels, i-1)
unset multiplot
