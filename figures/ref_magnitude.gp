# ref_magnitude.gp - the largest |reference output| of each problem against
# the original check's atol: at or below a line, an all-zero output passes.
# Data: ref_magnitude.dat, columns: index, max|ref|, problem label.
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
	plot name.".dat" using 1:2:xtic(3) with boxes linetype 4 title "max |ref|", \
	     1e-2 linetype 5 title "atol 1e-2 (v0, bf16, fp16)", \
	     1e-4 linetype 2 title "atol 1e-4 (fp32 now)"
}
load "render.gp"
