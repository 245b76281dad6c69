set terminal pngcairo size 900,600 noenhanced
set output 'ray_tau_lambda.png.part'
set title "Ray et al. 2015: collision time against lambda"
set xlabel "lambda"
set ylabel "tau_c"
set grid
set key outside right

plot 'ray_lambda.dat' u 1:5 w l lw 2 t 'exact (eq. 6)', '' u 1:7 w l dt 2 t 'approximation (eq. 44)', '' u 1:3 w p pt 7 t 'Talus engine'
