# render.gp - after a figure was drawn as SVG (style.gp), draw it again as
# PNG and, when available, PDF.  headroom strips the PDF's CreationDate.
unset output
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
	set terminal pngcairo size 900,540 enhanced font "DejaVu Sans,11" background rgb "white"
} else {
	set terminal png size 900,540 enhanced font "DejaVu Sans,11" background rgb "white"
}
set output name.".png"
replot
unset output
if (strstrt(GPVAL_TERMINALS, "pdfcairo") > 0) {
	set terminal pdfcairo size 6.25in,3.75in enhanced font "DejaVu Sans,9" background rgb "white"
	set output name.".pdf"
	replot
	unset output
}
