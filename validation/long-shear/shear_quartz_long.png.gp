set terminal pngcairo size 900,600 noenhanced
set output 'shear_quartz_long.png.part'
set title "Direct shear, quartz, true history: speed and length"
set xlabel "shear displacement (mm)"
set ylabel "tau / sigma_n"
set grid
set key outside right

plot 'shear_quartz-true.dat' u 1:4 w l lw 2 t '10 mm/s', 'shear_quartz-true-1mm-s.dat' u 1:4 w l lw 2 t '1 mm/s (paper)', 'shear_quartz-true-18mm.dat' u 1:4 w l lw 1 t '10 mm/s, 18 mm'
