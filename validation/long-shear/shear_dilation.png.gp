set terminal pngcairo size 900,600 noenhanced
set output 'shear_dilation.png.part'
set title "Direct shear: lid rise (dilation)"
set xlabel "shear displacement (mm)"
set ylabel "lid rise (mm)"
set grid
set key outside right

plot 'shear_quartz-true.dat' u 1:5 w l lw 2 t 'true history', 'shear_quartz-pseudo.dat' u 1:5 w l lw 2 t 'pseudo history', 'shear_quartz-none.dat' u 1:5 w l lw 2 t 'no history'
