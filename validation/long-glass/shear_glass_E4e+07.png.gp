set terminal pngcairo size 900,600 noenhanced
set output 'shear_glass_E4e+07.png.part'
set title "Direct shear, 5,000 glass beads, E = 4e+07 Pa (004 Fig. 3)"
set xlabel "shear displacement (mm)"
set ylabel "shear stress tau (Pa)"
set grid
set key outside right

plot 'shear_glass-E4e+07-3.1kPa.dat' u 1:2 w l lw 2 t '3.1 kPa', 'shear_glass-E4e+07-6.4kPa.dat' u 1:2 w l lw 2 t '6.4 kPa', 'shear_glass-E4e+07-12.5kPa.dat' u 1:2 w l lw 2 t '12.5 kPa', 'shear_glass-E4e+07-24.2kPa.dat' u 1:2 w l lw 2 t '24.2 kPa'
