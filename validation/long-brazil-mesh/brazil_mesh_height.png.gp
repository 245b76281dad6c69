set terminal pngcairo size 900,600 noenhanced
set output 'brazil_mesh_height.png.part'
set title "Brazil nut: the nut's height (solid meshes, dashed ellipsoids)"
set xlabel "t (s)"
set ylabel "z (m)"
set grid
set key outside right

plot 'brazil_M1_seed1_mesh.dat' u 1:2 w l lc 1 t 'M1 meshes', 'brazil_M4_seed1_mesh.dat' u 1:2 w l lc 2 t 'M4 meshes', 'brazil_M1_seed1.dat' u 1:2 w l dt 2 lc 1 t 'M1 ellipsoids', 'brazil_M4_seed1.dat' u 1:2 w l dt 2 lc 2 t 'M4 ellipsoids', 'brazil_M1_seed2_mesh.dat' u 1:2 w l lc 3 t 'M1 meshes, seed 2', 'brazil_M4_seed2_mesh.dat' u 1:2 w l lc 4 t 'M4 meshes, seed 2', 'brazil_M1_seed3_mesh.dat' u 1:2 w l lc 5 t 'M1 meshes, seed 3', 'brazil_M4_seed3_mesh.dat' u 1:2 w l lc 6 t 'M4 meshes, seed 3'
