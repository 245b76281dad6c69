set terminal pngcairo size 900,600 noenhanced
set output 'brazil_mesh_speed.png.part'
set title "Brazil nut with meshes: the nut's speed"
set xlabel "t (s)"
set ylabel "speed (m/s)"
set grid
set key outside right

plot 'brazil_M1_seed1_mesh.dat' u 1:3 w l t 'M1', 'brazil_M4_seed1_mesh.dat' u 1:3 w l t 'M4'
