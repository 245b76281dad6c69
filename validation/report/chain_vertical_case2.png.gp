set terminal pngcairo size 900,600 noenhanced
set output 'chain_vertical_case2.png.part'
set title "002 4.1 case 2: force at bead 13 (+25 N), bead 17, base (-30 N); wang-kv solid, EDEM dashed"
set xlabel "time (us)"
set ylabel "force (N)"
set grid
set key outside right

plot 'chain_vertical_case2.dat' index 0 u 1:($2+25) w l lc 1 t 'bead 13', '' index 0 u 1:3 w l lc 2 t 'bead 17', '' index 0 u 1:($4-30) w l lc 3 t 'base', '' index 1 u 1:($2+25) w l dt 2 lc 1 notitle, '' index 1 u 1:3 w l dt 2 lc 2 notitle, '' index 1 u 1:($4-30) w l dt 2 lc 3 notitle
