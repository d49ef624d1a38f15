# amdahl.gp - end-to-end time saved f x w x (1 - 1/s) against the speedup s
# of the winning kernels, for addressable fractions f and win rates w the
# paper states; the marked point is its DLRM-Bench projection.  Data:
# amdahl.dat, one block per (f, w) curve, columns: s, time saved %;
# amdahl_point.dat: s, time saved %.
name = "amdahl"
load "style.gp"
set title "Amdahl projection: end-to-end time saved"
set xlabel "speedup of winning kernels s (x)"
set ylabel "end-to-end time saved (%)"
set xrange [1:4]
set yrange [0:*]
set key inside left top
plot for [i=0:blocks-1] name.".dat" index i using 1:2 with lines title columnheader(1), \
     "amdahl_point.dat" using 1:2 with points linetype 8 pointtype 7 pointsize 1.5 title "paper: 8.63 % at f 58.2 %, w 41.7 %, s 1.552"
load "render.gp"
