set terminal pngcairo size 900,600 noenhanced
set output 'brazil_energy.png.part'
set title "Brazil nut: mean kinetic energy per body, seed 1"
set xlabel "t (s)"
set ylabel "J"
set grid
set key outside right
set logscale y
plot 'brazil_M1_seed1.dat' u 1:5 w l t 'M1', 'brazil_M4_seed1.dat' u 1:5 w l t 'M4'
