set terminal pngcairo size 900,600 noenhanced
set output 'kharaz_softening_omega.png.part'
set title "Kharaz softening (M1, original step): omega_out against c"
set xlabel "c"
set ylabel "omega_out (rad/s)"
set grid
set key outside right
set logscale x
plot 'kharaz_softening.dat' u 1:4 w lp t '10 deg', '' u 1:8 w lp t '20 deg', '' u 1:12 w lp t '30 deg', '' u 1:16 w lp t '40 deg', '' u 1:20 w lp t '50 deg'
