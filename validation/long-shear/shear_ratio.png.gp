set terminal pngcairo size 900,600 noenhanced
set output 'shear_ratio.png.part'
set title "Direct shear (004 section 3): tau / sigma"
set xlabel "shear displacement (mm)"
set ylabel "tau / sigma_n"
set grid
set key outside right

plot 'shear_quartz-true.dat' u 1:4 w l lw 2 t 'true history', 'shear_quartz-pseudo.dat' u 1:4 w l lw 2 t 'pseudo history', 'shear_quartz-none.dat' u 1:4 w l lw 2 t 'no history'
