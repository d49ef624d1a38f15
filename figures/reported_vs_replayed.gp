# reported_vs_replayed.gp - reported speedup (archive) against this
# machine's robust replayed speedup, log-log, with the bootstrap interval
# and y = x.  Data: reported_vs_replayed.dat, columns: reported, robust,
# ci_low, ci_high; a placeholder when there are no replay results.
name = "reported_vs_replayed"
load "style.gp"
set title "Reported vs replayed speedup"
set xlabel "reported speedup (x, log scale)"
set ylabel "replayed speedup, robust (x, log scale)"
set logscale xy
set key inside left top
if (rows == 0) {
	set xrange [0.01:100]
	set yrange [0.01:100]
	set label 2 "no replay data: run 'headroom replay' on a GPU" at graph 0.5, graph 0.55 center font ",14"
	plot x with lines linetype 8 dashtype 2 title "y = x"
} else {
	# One square range for both axes, so y = x is the diagonal.
	stats name.".dat" using 1:2 nooutput
	lo = (STATS_min_x < STATS_min_y ? STATS_min_x : STATS_min_y) / 2
	hi = (STATS_max_x > STATS_max_y ? STATS_max_x : STATS_max_y) * 2
	set xrange [lo:hi]
	set yrange [lo:hi]
	plot name.".dat" using 1:2:3:4 with yerrorbars linetype 4 title "robust median, 95 % interval", \
	     x with lines linetype 8 dashtype 2 title "y = x"
}
load "render.gp"
