#!/bin/sh
# bucket-size.sh - the DDP bucket trade-off: data-parallel ResNet-50 on the
# shipped default platform (4 nodes x 4 V100, 100 Gb/s InfiniBand) with the
# gradient bucket cap (--bucket-size, DDP's bucket_cap_mb) from 1 MB to 200 MB.
#
#   examples/bucket-size.sh [-o DIR] [--quick] [--no-plot] [DTSIM]
#
# DTSIM is the dtsim binary (default ./dtsim: run it from the build
# directory). Writes DIR/bucket-size.csv (default DIR ./whatif-out): the
# header of `dtsim run --format csv` once, then one row per run (the cap is
# the column bucket_bytes). With gnuplot, also DIR/bucket-size.png: iteration
# time, all-reduce time and exposed communication against the cap. --quick
# runs 1 MB, 25 MB and 200 MB.
#
# What it shows: gradients are bucketed in backward order and a bucket's
# all-reduce starts when its last gradient is ready, so it overlaps with the
# rest of backprop. Small buckets start early but pay the per-bucket ring
# latency many times (more all-reduce time); large buckets start late. The
# last bucket (the first layers' gradients, ready only when backward ends) is
# never hidden, so exposed time follows its size: it jumps when the cap makes
# the last bucket large, and a cap above the 102 MB of gradients leaves one
# bucket whose all-reduce is wholly exposed.
set -e

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh source-path=SCRIPTDIR
. "$here/common.sh"
example_parse_args "$@"

if [ "$quick" = yes ]; then
  caps_MB="1 25 200"
else
  caps_MB="1 2 3 5 7 10 15 20 25 30 40 50 60 75 100 125 150 200"
fi

example_csv_begin bucket-size
for cap in $caps_MB; do
  res=$("$dtsim" run --quiet --bucket-size "${cap}MB" --format csv)
  [ -s "$tmp" ] || echo "$res" | sed -n 1p >> "$tmp"
  echo "$res" | sed -n 2p >> "$tmp"
done
mv "$tmp" "$csv"

# A table of the columns the plot uses, found by name in the header.
awk -F, '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
            printf "%9s %14s %11s %14s %12s\n", "bucket MB", "iteration ms", "samples/s",
                   "all-reduce ms", "exposed ms"; next }
  { printf "%9g %14.3f %11.1f %14.3f %12.3f\n", $col["bucket_bytes"] / 1e6,
           1e3 * $col["iteration_time_s"], $col["throughput_samples_per_s"],
           1e3 * $col["comm_s"], 1e3 * $col["comm_exposed_s"] }' "$csv"
echo "wrote $csv ($(($(wc -l < "$csv") - 1)) runs)"

example_plot_setup
# The gradient bytes of one iteration, to mark the cap above which one bucket
# holds them all (the JSON output has one key per line).
grad_MB=$("$dtsim" run --quiet --iterations 1 --format json |
  sed -n 's/^ *"allreduce_bytes_per_iteration": *\([0-9.e+]*\),*$/\1/p' |
  awk '{ print $1 / 1e6 }')
png=$out/bucket-size.png
example_gnuplot 1200 500 "$png" <<EOF
set logscale x 10
set xrange [0.8:250]
set xtics (1, 2, 5, 10, 25, 50, 100, 200)
set xlabel "bucket cap (MB, --bucket-size)"
set grid
grad_MB = "$grad_MB"
if (grad_MB ne "") {
  set arrow 1 from grad_MB + 0, graph 0 to grad_MB + 0, graph 1 nohead dt 3 lc rgb "gray40"
  set label 1 sprintf("one bucket: all %.0f MB ", grad_MB + 0) at grad_MB + 0, graph 0.5 right textcolor rgb "gray40"
}
set multiplot layout 1,2 title "ResNet-50 on 4 nodes x 4 V100 (100 Gb/s InfiniBand): the DDP bucket trade-off"
set title "iteration time"
set ylabel "ms per iteration"
set key top left
plot "$csv" using (column("bucket_bytes") / 1e6):(1e3 * column("iteration_time_s")) with linespoints lw 2 pt 7 lc 1 title "iteration", \
     "" using (column("bucket_bytes") / 1e6):(1e3 * (column("forward_s") + column("backward_s") + column("optimizer_s"))) with lines dt 2 lc rgb "gray30" title "compute (forward + backward + optimizer)"
set title "all-reduce time and the part backprop does not hide"
set yrange [0:*]
set key top right
plot "$csv" using (column("bucket_bytes") / 1e6):(1e3 * column("comm_s")) with linespoints lw 1 dt 2 pt 6 lc 2 title "all-reduce", \
     "" using (column("bucket_bytes") / 1e6):(1e3 * column("comm_exposed_s")) with linespoints lw 2 pt 7 lc 2 title "exposed"
unset multiplot
EOF
echo "plot: $png"
