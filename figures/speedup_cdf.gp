# speedup_cdf.gp - distribution of reported speedups per model
# configuration (correct sample-0 evaluations, speedup vs eager as the
# archive reports it).  Data: speedup_cdf.dat, one block per configuration,
# titled "CONFIGURATION (n = N)" (N: the problems its curve is drawn from),
# columns: speedup, fraction of the configuration's timed correct problems
# with a speedup <= it.  The legend sits above the plot, off the curves.
name = "speedup_cdf"
load "style.gp"
set title "Reported speedup distribution per model configuration"
set xlabel "speedup over PyTorch eager (x, log scale)"
set ylabel "fraction of correct problems (cumulative)"
set logscale x
set yrange [0:1.05]
set arrow 1 from 1, graph 0 to 1, graph 1 nohead linecolor rgb "#555555" dashtype 3
set label 1 " 1x: as fast as eager" at 1, graph 0.03 left textcolor rgb "#555555"
set key outside top center vertical maxrows 3 Left reverse noenhanced nobox
if (rows == 0) {
	set label 2 "no timed correct evaluations in the store" at graph 0.5, graph 0.5 center
	unset key
	set xrange [0.1:10]
	plot 1/0 notitle
} else {
	plot for [i=0:blocks-1] name.".dat" index i using 1:2 with steps title columnheader(1), \
	     for [i=0:blocks-1] name.".dat" index i using 1:2 with points linetype (i+1) notitle
}
load "render.gp"
