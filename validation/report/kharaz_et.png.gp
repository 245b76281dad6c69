set terminal pngcairo size 900,600 noenhanced
set output 'kharaz_et.png.part'
set title "Kharaz: tangential restitution"
set xlabel "anvil angle theta (deg)"
set ylabel "e_t"
set grid
set key outside right

plot 'kharaz_sweep.dat' u 1:3 w lp pt 7 ps 0.5 t 'M1', '' u 1:10 w lp pt 5 ps 0.5 t 'M2', '' u 1:17 w l lw 2 dt 2 t 'M3', '' u 1:24 w l lw 2 t 'M4'
