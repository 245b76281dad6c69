set terminal pngcairo size 900,600 noenhanced
set output 'chain_hopkinson_v40.png.part'
set title "002 4.3: velocity of bead 40 (50 beads, 13 m/s)"
set xlabel "time (us)"
set ylabel "velocity (m/s)"
set grid
set key outside right

plot 'chain_hopkinson_v40.dat' index 0 u 1:2 w l lw 2 t 'wang-kv', '' index 1 u 1:2 w l dt 2 t 'EDEM'
