set encoding utf8
set terminal pngcairo size 1200,930 font 'sans,10'
set output '/tmp/w/re.png'
set datafile missing '?'
set key outside right top
set logscale y
set grid ytics
set ylabel 'GFLOP/s (log scale)'
set multiplot layout 2,1 title 'teil bench'
set title 'GFLOP/s per kernel (best checked row of each implementation family), FMA peak 243'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics nomirror
set yrange [*:*]
set yrange [*:486.48]
set arrow 1 from graph 0, first 243.24 to graph 1, first 243.24 nohead dt 2 lc rgb 'red'
plot '/work/main/bench/plot_main.dat' using 2:xtic(1) title columnhead, '/work/main/bench/plot_main.dat' using 3:xtic(1) title columnhead, '/work/main/bench/plot_main.dat' using 4:xtic(1) title columnhead, '/work/main/bench/plot_main.dat' using 5:xtic(1) title columnhead, '/work/main/bench/plot_main.dat' using 6:xtic(1) title columnhead
unset arrow 1
unset style
set style data linespoints
set title 'CFD operator (A⊗A⊗A)u, E·n³ ≈ 2^{23} doubles per tensor: GFLOP/s against n'
set xlabel 'n'
set autoscale
set logscale y
set xtics 1
plot '/work/main/bench/plot_cfd.dat' using 1:2 with linespoints lw 2 title columnhead, '/work/main/bench/plot_cfd.dat' using 1:3 with linespoints lw 2 title columnhead, '/work/main/bench/plot_cfd.dat' using 1:4 with linespoints lw 2 title columnhead, '/work/main/bench/plot_cfd.dat' using 1:5 with linespoints lw 2 title columnhead, '/work/main/bench/plot_cfd.dat' using 1:6 with linespoints lw 2 title columnhead
unset multiplot
