# addressable.gp - addressable fraction per workload (share of GPU time in
# kernels a KernelBench-style problem could replace), from ingested
# profiles.  Data: addressable.dat, columns: index, fraction %, workload;
# a placeholder until profiles are ingested.
name = "addressable"
load "style.gp"
set title "Addressable fraction per workload"
set xlabel "workload"
set ylabel "addressable fraction of GPU time (%)"
set yrange [0:100]
set style fill solid 0.8
set boxwidth 0.6
if (rows == 0) {
	set xrange [0:1]
	unset key
	unset xtics
	set label 2 "no profiles ingested" at graph 0.5, graph 0.5 center
	plot 1/0 notitle
} else {
	set xtics rotate by -45 noenhanced
	set xrange [0:rows+1]
	plot name.".dat" using 1:2:xtic(3) with boxes linetype 3 title "addressable"
}
load "render.gp"
