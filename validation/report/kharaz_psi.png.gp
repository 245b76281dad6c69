set terminal pngcairo size 900,600 noenhanced
set output 'kharaz_psi.png.part'
set title "Kharaz: Maw's angles, psi2 against psi1"
set xlabel "psi1"
set ylabel "psi2"
set grid
set key outside right

plot 'kharaz_sweep.dat' u 7:8 w lp pt 7 ps 0.5 t 'M1', '' u 14:15 w lp pt 5 ps 0.5 t 'M2', '' u 21:22 w l lw 2 dt 2 t 'M3', '' u 28:29 w l lw 2 t 'M4'
