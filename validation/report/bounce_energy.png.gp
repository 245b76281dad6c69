set terminal pngcairo size 900,600 noenhanced
set output 'bounce_energy.png.part'
set title "Wang et al. 2025, 3.6: bouncing ball, energy above rest"
set xlabel "t (s)"
set ylabel "E (J)"
set grid
set key outside right
set logscale y
plot 'bounce_elastic.dat' u 1:4 w l t 'elastic', 'bounce_plastic.dat' u 1:4 w l t 'plastic'
