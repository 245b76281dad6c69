set terminal pngcairo size 900,600 noenhanced
set output 'ray_e_lambda.png.part'
set title "Ray et al. 2015: restitution against lambda"
set xlabel "lambda"
set ylabel "e"
set grid
set key outside right

plot 'ray_lambda.dat' u 1:4 w l lw 2 t 'exact (eq. 6)', '' u 1:6 w l dt 2 t 'approximation (eq. 43)', '' u 1:2 w p pt 7 t 'Talus engine'
