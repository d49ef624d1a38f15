# correctness.gp - per model configuration, the share of problems correct
# under the original check (torch.allclose, as the archive reports) and
# under the scale-invariant checks (replay/verify results; missing bars
# when there are none).  Data: correctness.dat, columns: configuration,
# original %, scale-invariant % (NaN when not available).
name = "correctness"
load "style.gp"
set title "Correct problems: original check vs scale-invariant checks"
set ylabel "problems correct (%)"
set yrange [0:115]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -30 noenhanced
set key inside right top
if (rows == 0) {
	set label 2 "no evaluations in the store" at graph 0.5, graph 0.5 center
	unset key
	plot 1/0 notitle
} else {
	if (have_scale_invariant == 0) {
		set title "Correct problems: original check vs scale-invariant checks\n(scale-invariant checks: not available, no replay results)"
		plot name.".dat" using 2:xtic(1) linetype 1 title "original check (archive)"
	} else {
		plot name.".dat" using 2:xtic(1) linetype 1 title "original check (archive)", \
		     "" using 3 linetype 4 title "scale-invariant checks (robust replay; no bar: not replayed)"
	}
}
load "render.gp"
