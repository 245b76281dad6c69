set terminal pngcairo size 900,600 noenhanced
set output 'drum_cohesion.png.part'
set title "cohesive beads: the angle by the centroid"
set xlabel "t (s)"
set ylabel "angle (deg)"
set grid
set key outside right

plot 'drum_small_spheres_angle.dat' u 1:3 w l t 'Bo 0', 'drum_small_spheres_bo5_angle.dat' u 1:3 w l t 'Bo 5', 'drum_small_spheres_bo20_angle.dat' u 1:3 w l t 'Bo 20'
