set terminal pngcairo size 900,600 noenhanced
set output 'kharaz_softening.png.part'
set title "Kharaz softening (M1, original step): e_t against c"
set xlabel "c"
set ylabel "e_t"
set grid
set key outside right
set logscale x
plot 'kharaz_softening.dat' u 1:3 w lp t '10 deg', '' u 1:7 w lp t '20 deg', '' u 1:11 w lp t '30 deg', '' u 1:15 w lp t '40 deg', '' u 1:19 w lp t '50 deg'
