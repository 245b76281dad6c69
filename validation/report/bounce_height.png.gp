set terminal pngcairo size 900,600 noenhanced
set output 'bounce_height.png.part'
set title "Wang et al. 2025, 3.6: bouncing ball, centre height"
set xlabel "t (s)"
set ylabel "y (m)"
set grid
set key outside right

plot 'bounce_elastic.dat' u 1:2 w l t 'elastic (e = 0.85)', 'bounce_plastic.dat' u 1:2 w l t 'plastic (wang-kv, e = 0.9, e_p = 0.85)'
