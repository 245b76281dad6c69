set terminal pngcairo size 900,600 noenhanced
set output 'drum_small_spheres_bo20_section.png.part'
set title "drum R 40 mm, 30 rpm, 420 cohesive spheres, Bo 20 (DMT, w = 2.616 J/m2), mu 0.5: the section at the end"
set xlabel "x (m)"
set ylabel "z (m)"
set grid
set key outside right
set size ratio -1; set parametric
plot 'drum_small_spheres_bo20_section.dat' u 1:2:3 w p pt 7 ps 0.7 lc palette t 'particles (colour: speed, m/s)', 'drum_small_spheres_bo20_surface.dat' u 1:2 w l lw 3 lc rgb 'red' t 'fitted free surface', [t=0:2*pi] 0.04*cos(t), 0.04*sin(t) w l lc rgb 'black' t 'liner'
