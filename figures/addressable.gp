# addressable.gp - where each profiled workload's GPU time goes, by kernel
# class (stacked bars, % of the summed GPU-activity time); the label
# gives the addressable fraction (classes a KernelBench-style kernel may
# replace: dataset/maps/kernel-classes.rules).  Data: addressable.dat,
# a header row, then: index, "workload/stack (f %)", one column per
# class, addressable %; a placeholder until profiles are ingested.
name = "addressable"
load "style.gp"
set title "GPU time by kernel class per workload"
set ylabel "share of summed GPU time (%)"
set yrange [0:100]
if (rows == 0) {
	set xrange [0:1]
	unset key
	unset xtics
	set label 2 "no profiles ingested" at graph 0.5, graph 0.5 center
	plot 1/0 notitle
} else {
	set style data histograms
	set style histogram rowstacked
	set style fill solid 0.85 border -1
	set boxwidth 0.7
	set key outside right top noenhanced
	set xtics rotate by -30 noenhanced
	# One colour per class (the shared palette has fewer than eleven).
	colors = "#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #bcbd22 #17becf #7f7f7f #000000"
	plot for [i=3:13] name.".dat" using i:xtic(2) title columnheader(i) lc rgb word(colors, i-2)
}
load "render.gp"
