# coverage.gp - output coverage of kernels flagged by the audit: the share
# of output elements a kernel actually wrote (a NaN payload fills the
# output's memory before the call; docs/replay.md, partial-write).  Data:
# coverage.dat, one row per evaluation whose replay (the robust mode's
# latest job, else the faithful mode's) holds a partial-write finding,
# columns: index, coverage % = 100 (1 - fraction_unwritten), kernel label
# (configuration, level-problem, sample), mode; coverage.cfg's `why` says
# what the placeholder shows: no replay results, or no flagged job.
name = "coverage"
load "style.gp"
set title "Output coverage of flagged kernels"
set xlabel "kernel"
set ylabel "output elements written (%)"
set yrange [0:105]
set style fill solid 0.8
set boxwidth 0.6
if (rows == 0) {
	set xrange [0:1]
	unset key
	unset xtics
	set label 2 why at graph 0.5, graph 0.5 center noenhanced
	plot 1/0 notitle
} else {
	# Each bar carries its value: a kernel that wrote 0.3 % is no visible bar.
	unset key
	set xtics rotate by -30 noenhanced font ",9"
	set xrange [0:rows+1]
	set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead dashtype 2 linecolor rgb "#999999"
	plot name.".dat" using 1:2:xtic(3) with boxes linetype 5 notitle, \
	     name.".dat" using 1:2:(sprintf("%.3g %%", $2)) with labels offset 0, 0.8 notitle
}
load "render.gp"
