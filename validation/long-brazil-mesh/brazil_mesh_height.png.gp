set terminal pngcairo size 900,600 noenhanced
set output 'brazil_mesh_height.png.part'
set title "Brazil nut: the nut's height (solid meshes, dashed ellipsoids)"
set xlabel "t (s)"
set ylabel "z (m)"
set grid
set key outside right

plot 'brazil_M1_seed1_mesh.dat' u 1:2 w l lc 1 t 'M1 meshes', 'brazil_M4_seed1_mesh.dat' u 1:2 w l lc 2 t 'M4 meshes', 'brazil_M1_seed1.dat' u 1:2 w l dt 2 lc 1 t 'M1 ellipsoids', 'brazil_M4_seed1.dat' u 1:2 w l dt 2 lc 2 t 'M4 ellipsoids'
