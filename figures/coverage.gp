# coverage.gp - output coverage of kernels flagged by the audit: the share
# of output elements a kernel actually wrote (NaN-filled buffer before the
# call).  Data: coverage.dat, columns: index, coverage %, kernel label.
# Not drawn yet: `headroom figures` writes no rows, with or without
# replays, as it does not read the unwritten fraction that replay stores
# in its partial-write findings (replay_job.findings_json); the figure is
# always the placeholder below.
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
	set label 2 "not drawn: replay's partial-write findings are not read yet" at graph 0.5, graph 0.5 center
	plot 1/0 notitle
} else {
	set xtics rotate by -45 noenhanced
	set xrange [0:rows+1]
	plot name.".dat" using 1:2:xtic(3) with boxes linetype 5 title "coverage"
}
load "render.gp"
