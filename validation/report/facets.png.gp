set terminal pngcairo size 900,600 noenhanced
set output 'facets.png.part'
set title "Faceted sphere against the analytic one, PCM reading (Kharaz, 10-50 deg)"
set xlabel "vertices"
set ylabel "largest deviation of the mean"
set grid
set key outside right
set logscale xy; set key bottom left
plot 'facets.dat' i 0 u 2:3 w lp pt 7 t 'M1 e_n', '' i 0 u 2:4 w lp pt 5 t 'M1 e_t', '' i 0 u 2:5 w lp pt 9 t 'M1 omega (rel.)', '' i 1 u 2:3 w lp pt 6 dt 2 t 'M4 e_n', '' i 1 u 2:4 w lp pt 4 dt 2 t 'M4 e_t', '' i 1 u 2:5 w lp pt 8 dt 2 t 'M4 omega (rel.)'
