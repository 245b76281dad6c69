set terminal pngcairo size 900,600 noenhanced
set output 'kharaz_omega.png.part'
set title "Kharaz: outgoing angular velocity"
set xlabel "anvil angle theta (deg)"
set ylabel "omega_out (rad/s)"
set grid
set key outside right

plot 'kharaz_sweep.dat' u 1:4 w lp pt 7 ps 0.5 t 'M1', '' u 1:11 w lp pt 5 ps 0.5 t 'M2', '' u 1:18 w l lw 2 dt 2 t 'M3', '' u 1:25 w l lw 2 t 'M4'
