# render.gp - after a figure was drawn as SVG (style.gp), draw it again as
# PNG and, when available, PDF, each at its own font size (fsize) and
# footer geometry (style.gp's layout), with the script's `retouch` run
# again.  headroom strips the PDF's CreationDate.
unset output
fsize = 11
footer_font = 7.5
footer_line = 12
eval layout
if (retouch ne "") { eval retouch }
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
	set terminal pngcairo size 900,fig_h enhanced font "DejaVu Sans,11" background rgb "white"
} else {
	set terminal png size 900,fig_h enhanced font "DejaVu Sans,11" background rgb "white"
}
set output name.".png"
replot
unset output
if (strstrt(GPVAL_TERMINALS, "pdfcairo") > 0) {
	# 5.5 pt: 110 hex digits (0.64 em each) fill 390 of the 450 pt
	fsize = 9
	footer_font = 5.5
	footer_line = 14
	eval layout
	if (retouch ne "") { eval retouch }
	set terminal pdfcairo size 6.25in,(3.75 * fig_h / 540.0)in enhanced font "DejaVu Sans,9" background rgb "white"
	set output name.".pdf"
	replot
	unset output
}
