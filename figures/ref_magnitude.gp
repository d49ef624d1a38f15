# ref_magnitude.gp - the largest |reference output| of each problem against
# the original check's atol: at or below a line, an all-zero output passes.
# Data: ref_magnitude.dat, columns: index, max|ref|, problem label, the
# height drawn (max|ref|, or the bottom of the range for 0: no place on a
# log axis, labelled "0"); ref_magnitude.cfg's ymin and ymax: whole
# decades around every bar and both lines, one above the largest bar.
name = "ref_magnitude"
load "style.gp"
set title "Largest |reference output| per problem vs the check's atol\n(a bar at or below a line: an all-zero output passes that check)"
set xlabel "problem (level-id)"
set ylabel "max |reference| (log scale)"
set logscale y
set format y "10^{%L}"
set xtics rotate by -45 noenhanced
set style fill solid 0.8
set boxwidth 0.6
set key outside top center horizontal nobox
if (rows == 0) {
	set label 2 "no problem audit: run 'headroom audit problems'" at graph 0.5, graph 0.5 center
	set xrange [0:1]
	unset xtics
	set yrange [1e-6:1e3]
	plot 1e-2 linetype 5 title "atol 1e-2 (v0, bf16, fp16)", 1e-4 linetype 2 title "atol 1e-4 (fp32 now)"
} else {
	set xrange [0:rows+1]
	set yrange [ymin:ymax]
	plot name.".dat" using 1:4:xtic(3) with boxes linetype 4 title "max |ref|", \
	     name.".dat" using 1:4:($2 > 0 ? "" : "0") with labels offset 0, 0.7 notitle, \
	     1e-2 linetype 5 title "atol 1e-2 (v0, bf16, fp16)", \
	     1e-4 linetype 2 title "atol 1e-4 (fp32 now)"
}
load "render.gp"
