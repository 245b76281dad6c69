set terminal pngcairo size 900,600 noenhanced
set output 'brazil_height.png.part'
set title "Brazil nut: the nut's height (solid M1, dashed M4)"
set xlabel "t (s)"
set ylabel "z (m)"
set grid
set key outside right

plot 'brazil_M1_seed1.dat' u 1:2 w l lc 1 t 'M1 seed 1', 'brazil_M1_seed2.dat' u 1:2 w l lc 2 t 'M1 seed 2', 'brazil_M1_seed3.dat' u 1:2 w l lc 3 t 'M1 seed 3', 'brazil_M4_seed1.dat' u 1:2 w l dt 2 lc 1 t 'M4 seed 1', 'brazil_M4_seed2.dat' u 1:2 w l dt 2 lc 2 t 'M4 seed 2', 'brazil_M4_seed3.dat' u 1:2 w l dt 2 lc 3 t 'M4 seed 3'
