set terminal pngcairo size 900,600 noenhanced
set output 'sediment_e095.png.part'
set title "Sedimentation, e = 0.95: fractions of E_tot(0)"
set xlabel "t (s)"
set ylabel "fraction of E_tot(0)"
set grid
set key outside right
set yrange [0:1.05]
plot 'sediment_e095.dat' u 1:2 w l lw 2 lc 1 t 'potential, exact', 'sediment_e095.dat' u 1:3 w l lw 2 lc 2 t 'kinetic, exact', 'sediment_e095.dat' u 1:4 w l lw 2 lc 3 t 'spring, exact', 'sediment_e095.dat' u 1:5 w l dt 2 lc 1 t 'potential, direct', 'sediment_e095.dat' u 1:6 w l dt 2 lc 2 t 'kinetic, direct', 'sediment_e095.dat' u 1:7 w l dt 2 lc 3 t 'spring, direct'
