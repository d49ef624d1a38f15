# speedup_cdf.gp - distribution of reported speedups per model
# configuration (correct sample-0 evaluations, speedup vs eager as the
# archive reports it).  Data: speedup_cdf.dat, one block per configuration,
# titled "CONFIGURATION (n = N)" (N: the problems its curve is drawn from),
# columns: speedup, fraction of the configuration's timed correct problems
# with a speedup <= it; speedup_cdf.cfg's configs: how many configurations
# the store holds.  The legend sits above the plot, off the curves.
name = "speedup_cdf"
load "style.gp"
set title "Reported speedup distribution per model configuration"
set xlabel "speedup over PyTorch eager (x, log scale)"
set ylabel "fraction of correct problems (cumulative)"
set logscale x
set yrange [0:1.05]
set arrow 1 from 1, graph 0 to 1, graph 1 nohead linecolor rgb "#555555" dashtype 3
set label 1 " 1x: as fast as eager" at 1, graph 0.03 left textcolor rgb "#555555"
# The key above the plot at 5/6 of the font, in as many columns as fit
# (two for the sample's titles), so that every configuration is listed;
# its title says how many of all configurations draw a curve.
set key outside top center horizontal Left reverse noenhanced nobox samplen 2
if (blocks < configs) {
	set key title sprintf("%d of %d configurations (the others: no timed correct problem)", blocks, configs)
}
retouch = 'eval sprintf("set key font \",%g\"", fsize * 5 / 6.0)'
eval retouch
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
