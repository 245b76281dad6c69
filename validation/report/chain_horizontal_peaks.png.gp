set terminal pngcairo size 900,600 noenhanced
set output 'chain_horizontal_peaks.png.part'
set title "002 4.2: peak force along the chain"
set xlabel "bead"
set ylabel "peak force (N)"
set grid
set key outside right
set key top right
plot 'chain_horizontal_peaks.dat' u 1:2 w lp t 'wang-kv', '' u 1:4 w lp t 'EDEM', '' u 1:6 w lp t 'Hertz, elastic'
