set terminal pngcairo size 900,600 noenhanced
set output 'kharaz_alpha_v.png.part'
set title "Kharaz: rebound angle of the centre"
set xlabel "anvil angle theta (deg)"
set ylabel "alpha_v (deg)"
set grid
set key outside right

plot 'kharaz_sweep.dat' u 1:5 w lp pt 7 ps 0.5 t 'M1', '' u 1:12 w lp pt 5 ps 0.5 t 'M2', '' u 1:19 w l lw 2 dt 2 t 'M3', '' u 1:26 w l lw 2 t 'M4'
