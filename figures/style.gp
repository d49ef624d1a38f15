# style.gp - shared look of every headroom figure; loaded by each
# <name>.gp after it sets `name`.  Okabe-Ito colour-blind-safe palette,
# darkest first and its yellow (#F0E442, unreadable as a line on white)
# replaced by grey, white background, one font.  The first output is SVG; render.gp replots
# the same figure as PNG (pngcairo, else libgd png) and PDF (pdfcairo,
# when this gnuplot has it).
#
# Every figure carries the store's provenance line (provenance.cfg:
# footer, footer_lines) as a footer below the plot.  fsize is the current
# terminal's font size; a script puts the commands that depend on it in
# `retouch`, which render.gp runs again for each terminal.
set encoding utf8
okabe_ito = "#0072B2 #D55E00 #009E73 #CC79A7 #000000 #E69F00 #56B4E9 #777777"
do for [i=1:8] {
	set linetype i linecolor rgb word(okabe_ito, i) linewidth 2 pointtype (i+5) pointsize 1
}
set style line 100 linecolor rgb "#999999" dashtype 2 linewidth 1
set grid linestyle 100
set border linewidth 1
set key inside left top vertical Left reverse noenhanced box opaque
load name.".cfg"
load "provenance.cfg"
# layout: the plot keeps 900 x 540 (SVG and PNG pixels, PDF half points)
# and the canvas grows by the footer's lines (footer_line high, at
# footer_font; render.gp sets both again for each terminal).
layout = 'fig_h = 540 + (footer_lines > 0 ? footer_line * footer_lines + 6 : 0); foot = (fig_h - 540.0) / fig_h; set origin 0, foot; set size 1, 1 - foot; set label 100 footer at screen 0.008, screen (foot * fig_h - 0.5 * footer_line - 3) / fig_h left front noenhanced textcolor rgb "#555555"; eval sprintf("set label 100 font \",%g\"", footer_font)'
retouch = ""
fsize = 12
footer_font = 8
footer_line = 10
eval layout
set terminal svg size 900,fig_h dynamic enhanced font "DejaVu Sans,12" background rgb "white"
set output name.".svg"
