set terminal pngcairo size 900,600 noenhanced
set output 'drum_large_spheres_section.png.part'
set title "drum R 0.1 m, 10 rpm, 2500 spheres, mu 0.5: the section at the end"
set xlabel "x (m)"
set ylabel "z (m)"
set grid
set key outside right
set size ratio -1; set parametric
plot 'drum_large_spheres_section.dat' u 1:2:3 w p pt 7 ps 0.7 lc palette t 'particles (colour: speed, m/s)', 'drum_large_spheres_surface.dat' u 1:2 w l lw 3 lc rgb 'red' t 'fitted free surface', [t=0:2*pi] 0.1*cos(t), 0.1*sin(t) w l lc rgb 'black' t 'liner'
