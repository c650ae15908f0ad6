# make run's chart: on this machine's CPU, ns per call through base's call,
# the kernel's choice and a direct call (real time); in the TCG guests,
# xdp-bench rx/s per action and xdp_perf ns/run per kernel and number of
# other programs (emulated: ratios only).
# gnuplot -e "dir='build/results'; kernels='patched off upstream'; cpu='...'" run-chart.gp
set terminal pngcairo size 1800,560 font ",10" noenhanced
set output dir."/run-chart.png"
set multiplot layout 1,3 title "make run: the BPF dispatcher at work"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid y
set yrange [0:*]
set key below
set xtics rotate by -30

set title "this CPU, real time: ns per call (lower is better)\n".cpu
set ylabel "ns per call"
set xlabel "programs/pattern"
plot dir."/run-cpu.dat" using 2:xtic(1) every ::1 title "base's call", \
     "" using 3 every ::1 title "the kernel's choice", \
     "" using 4 every ::1 title "direct call"

set title "QEMU TCG (emulated, ratios only)\nxdp-bench on veth, pktgen 64 B (rx/s, higher is better)"
set ylabel "packets per second"
set xlabel "xdp-bench action"
plot for [i=2:words(kernels)+1] dir."/run-pps.dat" using i:xtic(1) every ::1 title word(kernels, i-1)

set title "QEMU TCG (emulated, ratios only)\nxdp_perf: one XDP program (ns/run, lower is better)"
set ylabel "ns per run"
set xlabel "other programs attached"
plot for [i=2:words(kernels)+1] dir."/run-xdp-perf.dat" using i:xtic(1) every ::1 title word(kernels, i-1)
unset multiplot
