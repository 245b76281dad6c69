set terminal pngcairo size 900,600 noenhanced
set output 'brazil_shaken_height.png.part'
set title "The nut shaken: its height above the floor (dotted: the paper's rocked nut on top, M1 6 s, M4 10 s)"
set xlabel "t (s)"
set ylabel "height above the floor (m)"
set grid
set key outside right
set arrow from 6, graph 0 to 6, graph 1 nohead dt 3 lc 1; set arrow from 10, graph 0 to 10, graph 1 nohead dt 3 lc 2
plot 'brazil_M1_gamma2.dat' u 1:($2 - 0.0050000000000000001*sin(62.831853071795862*$1)) w l lc 1 t 'M1, Gamma 2', 'brazil_M4_gamma2.dat' u 1:($2 - 0.0050000000000000001*sin(62.831853071795862*$1)) w l lc 2 t 'M4, Gamma 2', 'brazil_M1_gamma1.6.dat' u 1:($2 - 0.0040000000000000001*sin(62.831853071795862*$1)) w l lc 3 t 'M1, Gamma 1.6', 'brazil_M1_gamma1.2.dat' u 1:($2 - 0.0030000000000000001*sin(62.831853071795862*$1)) w l lc 4 t 'M1, Gamma 1.2', 'brazil_M1_gamma0.4.dat' u 1:($2 - 0.001*sin(62.831853071795862*$1)) w l lc 7 t 'M1, Gamma 0.4'
