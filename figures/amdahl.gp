# amdahl.gp - end-to-end time saved f (1 - 1/s) when every addressable
# kernel of a workload runs s times faster, one curve per profiled
# workload (f: its addressable fraction; the curve tends to f, a speedup
# bound of 1/(1 - f)); points: the projection from verified speedups,
# placed at the speedup of the addressable time that saves as much.
# Data: amdahl.dat, one block per curve (s, time saved %);
# amdahl_point.dat (s, time saved %); amdahl.cfg says how many of each.
name = "amdahl"
load "style.gp"
set title "Amdahl projection: end-to-end time saved"
set xlabel "speedup of the addressable kernels s (x)"
set ylabel "end-to-end time saved (%)"
set xrange [1:4]
set yrange [0:*]
set key inside left top noenhanced
if (blocks == 0) {
	unset key
	set yrange [0:100]
	set label 2 "no profiles ingested" at graph 0.5, graph 0.5 center
	plot 1/0 notitle
} else {
	if (points > 0) {
		plot for [i=0:blocks-1] name.".dat" index i using 1:2 with lines title columnheader(1), \
		     "amdahl_point.dat" using 1:2 with points linetype 8 pointtype 7 pointsize 1.5 title "projected from verified speedups"
	} else {
		plot for [i=0:blocks-1] name.".dat" index i using 1:2 with lines title columnheader(1)
	}
}
load "render.gp"
