set terminal pngcairo size 900,600 noenhanced
set output 'drum_angles.png.part'
set title "angle of repose: free surface (lines), centroid (points)"
set xlabel "t (s)"
set ylabel "angle (deg)"
set grid
set key outside right

plot 'drum_small_spheres_angle.dat' u 1:2 w l t 'R 40 mm, spheres, mu 0.5', 'drum_small_spheres_angle.dat' u 1:3 w p pt 7 ps 0.4 t '', 'drum_small_spheres_mu01_angle.dat' u 1:2 w l t 'R 40 mm, spheres, mu 0.1', 'drum_small_spheres_mu01_angle.dat' u 1:3 w p pt 7 ps 0.4 t '', 'drum_small_ellipsoids_angle.dat' u 1:2 w l t 'R 40 mm, ellipsoids, mu 0.5', 'drum_small_ellipsoids_angle.dat' u 1:3 w p pt 7 ps 0.4 t '', 'drum_large_spheres_angle.dat' u 1:2 w l t 'R 0.1 m, spheres, mu 0.5', 'drum_large_spheres_angle.dat' u 1:3 w p pt 7 ps 0.4 t ''
