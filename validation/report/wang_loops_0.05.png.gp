set terminal pngcairo size 900,600 noenhanced
set output 'wang_loops_0.05.png.part'
set title "Wang et al. 2025: force against overlap at 0.05 m/s (clamped)"
set xlabel "overlap (um)"
set ylabel "normal force (kN)"
set grid
set key outside right

plot 'wang_loops_0.05.dat' index 0 w l lw 2 t 'wang-kv', '' index 1 w l dt 2 t 'wang-kv-printed', '' index 2 w l t 'EDEM (hertz + tsuji)', '' index 3 w l t 'Hunt-Crossley', '' index 4 w l lw 2 t 'Ma-Liu'
