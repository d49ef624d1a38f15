# dlrm.gp - DLRM-Bench: per problem, the speedup that counts in the
# projection R = sum w_i (1 - 1/s_i') (s_i': the robust replay's speedup
# where the audit verdict is verified-faster, else 1x), one bar series per
# model configuration, and each problem's weight w_i, its share of the
# DLRM workload's profiled GPU time (second axis).  The key gives each
# configuration's R.  Data: dlrm.dat, one block per configuration
# (index, problem, weight %, s_i', reported speedup); dlrm.cfg (rows,
# blocks, have_weights, why, the workload that weighs, and a note the plot
# shows when the bars are defaults or unweighted).
name = "dlrm"
load "style.gp"
set title "DLRM-Bench: verified speedups and the projected end-to-end time saved"
set ylabel "speedup counted in R (x)"
if (note ne "") {
	set tmargin 4
	set title offset 0, 1
	# a line above the plot and the title a line higher (offsets in
	# lines of text): apart at every terminal's font size
	set label 3 note at graph 0.5, graph 1 offset 0, 1 center front noenhanced textcolor rgb "#D55E00"
}
if (blocks == 0) {
	unset key
	set xrange [0:1]
	set yrange [0:2]
	unset xtics
	set label 2 why at graph 0.5, graph 0.5 center noenhanced
	plot 1/0 notitle
} else {
	set key outside bottom center vertical noenhanced
	set yrange [0:*]
	# room above the tallest bar (all at 1x without a verified win)
	set offsets 0, 0, graph 0.08, 0
	set xrange [0.4:rows/blocks + 0.6]
	set xtics rotate by -35 noenhanced font ",9"
	set style fill solid 0.8 border -1
	bw = 0.8 / blocks
	set boxwidth bw
	set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dashtype 2 linecolor rgb "#999999"
	if (have_weights) {
		# the second axis only where it has data (weights)
		set y2range [0:*]
		set ytics nomirror
		set y2tics
		set y2label sprintf("weight w_i (%% of %s's GPU time)", workload) noenhanced
		plot for [i=0:blocks-1] name.".dat" index i using ($1 - 0.4 + bw * (i + 0.5)):4:xtic(2) with boxes title columnheader(1), \
		     name.".dat" index 0 using 1:3 axes x1y2 with points linetype 8 pointtype 7 pointsize 1.3 title sprintf("weight w_i (%% of %s's GPU time)", workload)
	} else {
		plot for [i=0:blocks-1] name.".dat" index i using ($1 - 0.4 + bw * (i + 0.5)):4:xtic(2) with boxes title columnheader(1)
	}
}
load "render.gp"
