set terminal pngcairo size 900,600 noenhanced
set output 'chain_horizontal_force.png.part'
set title "002 4.2: sensor force at beads 9, 16, 24, 31, 40, 50, 56, 63 (70 beads, 1.77 m/s)"
set xlabel "time (us)"
set ylabel "force (N)"
set grid
set key outside right

plot 'chain_horizontal_force.dat' index 0 u 1:2 w l lc 1 t 'wang-kv (solid), EDEM (dashed)', '' index 1 u 1:2 w l dt 2 lc 1 notitle, 'chain_horizontal_force.dat' index 0 u 1:3 w l lc 2 notitle, '' index 1 u 1:3 w l dt 2 lc 2 notitle, 'chain_horizontal_force.dat' index 0 u 1:4 w l lc 3 notitle, '' index 1 u 1:4 w l dt 2 lc 3 notitle, 'chain_horizontal_force.dat' index 0 u 1:5 w l lc 4 notitle, '' index 1 u 1:5 w l dt 2 lc 4 notitle, 'chain_horizontal_force.dat' index 0 u 1:6 w l lc 5 notitle, '' index 1 u 1:6 w l dt 2 lc 5 notitle, 'chain_horizontal_force.dat' index 0 u 1:7 w l lc 6 notitle, '' index 1 u 1:7 w l dt 2 lc 6 notitle, 'chain_horizontal_force.dat' index 0 u 1:8 w l lc 7 notitle, '' index 1 u 1:8 w l dt 2 lc 7 notitle, 'chain_horizontal_force.dat' index 0 u 1:9 w l lc 8 notitle, '' index 1 u 1:9 w l dt 2 lc 8 notitle
