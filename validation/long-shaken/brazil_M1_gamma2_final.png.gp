set terminal pngcairo size 900,600 noenhanced
set output 'brazil_M1_gamma2_final.png.part'
set title "Brazil nut: M1 shaken at Gamma 2, after 12 s (x-z, the nut in red)"
set xlabel "x (m)"
set ylabel "z (m)"
set grid
set key outside right
set size ratio -1; set xrange [-0.12:0.12]
plot 'brazil_M1_gamma2_final.dat' u ($3 == 0 ? $1 : 1/0):2 w p pt 7 ps 1.2 lc rgb 'grey40' t 'peanuts', 'brazil_M1_gamma2_final.dat' u ($3 == 1 ? $1 : 1/0):2 w p pt 7 ps 3 lc rgb 'red' t 'nut'
