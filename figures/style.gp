# style.gp - shared look of every headroom figure; loaded by each
# <name>.gp after it sets `name`.  Okabe-Ito colour-blind-safe palette,
# darkest first and its yellow (#F0E442, unreadable as a line on white)
# replaced by grey, white background, one font.  The first output is SVG; render.gp replots
# the same figure as PNG (pngcairo, else libgd png) and PDF (pdfcairo,
# when this gnuplot has it).
set encoding utf8
okabe_ito = "#0072B2 #D55E00 #009E73 #CC79A7 #000000 #E69F00 #56B4E9 #777777"
do for [i=1:8] {
	set linetype i linecolor rgb word(okabe_ito, i) linewidth 2 pointtype (i+5) pointsize 1
}
set style line 100 linecolor rgb "#999999" dashtype 2 linewidth 1
set grid linestyle 100
set border linewidth 1
set key inside left top vertical Left reverse noenhanced box opaque
set terminal svg size 900,540 dynamic enhanced font "DejaVu Sans,12" background rgb "white"
set output name.".svg"
load name.".cfg"
