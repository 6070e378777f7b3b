#!/bin/sh
# scaling.sh - weak-scaling study: data-parallel ResNet-50 (batch 64 per GPU)
# from 1 to 64 GPUs on DGX-1-like nodes made by `dtsim platform`, with the
# gradient all-reduces overlapped with backprop and without (--no-overlap).
#
#   examples/scaling.sh [-o DIR] [--quick] [--no-plot] [DTSIM]
#
# DTSIM is the dtsim binary (default ./dtsim: run it from the build
# directory). Writes the platforms to DIR/platforms/ (default DIR
# ./whatif-out), DIR/scaling.csv (the header of `dtsim run --format csv` once,
# then one row per run) and, with gnuplot, DIR/scaling.png: throughput and
# weak-scaling efficiency against GPUs. --quick runs 1, 8 and 16 GPUs.
#
# Nodes: 8 x V100 SXM2 16 GB in the DGX-1 hybrid cube-mesh, 4 x 100 Gb/s
# InfiniBand NICs per node on one switch: the parameters of the shipped
# dgx1-v100-x4 (platforms/generate-shipped.sh). 1, 2 and 4 GPUs are the first
# ranks of one node (--gpus). Weak scaling keeps the batch per GPU, so ideal
# throughput is N times that of one GPU; the efficiency plotted is
# throughput(N) / (N x throughput(1)).
set -e

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh source-path=SCRIPTDIR
. "$here/common.sh"
example_parse_args "$@"

if [ "$quick" = yes ]; then
  gpus="1 8 16"
else
  gpus="1 2 4 8 16 32 64"
fi

mkdir -p "$out/platforms"
example_csv_begin scaling
# Rows grouped by overlap setting (gnuplot draws a line through consecutive
# rows), GPUs ascending within each.
for overlap in on off; do
  flag=
  [ "$overlap" = on ] || flag=--no-overlap
  for n in $gpus; do
    nodes=$(( (n + 7) / 8 ))
    platform=$out/platforms/dgx1-v100-x$nodes.xml
    [ "$overlap" = off ] || "$dtsim" platform -o "$platform" --nodes "$nodes" \
      --gpus-per-node 8 --gpu V100-SXM2-16GB --intra nvlink-mesh --nvlink-pairs dgx1-v100 \
      --intra-bandwidth 25GB/s --sockets 2 --pcie-switches 2 --nics-per-node 4 \
      --nic-bandwidth 100Gbps \
      --title "$nodes x DGX-1 with V100 for examples/scaling.sh (as dgx1-v100-x4)"
    res=$("$dtsim" run --quiet --platform "$platform" --gpus "$n" $flag --format csv)
    [ -s "$tmp" ] || echo "$res" | sed -n 1p >> "$tmp"
    echo "$res" | sed -n 2p >> "$tmp"
  done
done
mv "$tmp" "$csv"

# A table of the columns the plot uses, found by name in the header; the
# efficiency divides by the 1-GPU throughput of the same overlap setting.
awk -F, '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
            printf "%5s %8s %14s %12s %11s %12s\n", "GPUs", "overlap", "iteration ms",
                   "samples/s", "exposed ms", "efficiency"; next }
  { ov = $col["overlap"]; t = $col["throughput_samples_per_s"]; n = $col["n_gpus"]
    if (n == 1) one[ov] = t
    printf "%5d %8s %14.3f %12.1f %11.3f %11.1f%%\n", n, ov == "true" ? "on" : "off",
           1e3 * $col["iteration_time_s"], t, 1e3 * $col["comm_exposed_s"],
           100 * t / (n * one[ov]) }' "$csv"
echo "wrote $csv ($(($(wc -l < "$csv") - 1)) runs)"

example_plot_setup
one=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  $col["n_gpus"] == 1 && $col["overlap"] == "true" { print $col["throughput_samples_per_s"] }' "$csv")
png=$out/scaling.png
example_gnuplot 1200 500 "$png" <<EOF
one = $one
set logscale x 2
set xrange [0.8:80]
set xtics (1, 2, 4, 8, 16, 32, 64)
set xlabel "GPUs (8 per node; batch 64 per GPU)"
set grid
set key top left
sel(ov, c) = strcol("overlap") eq ov ? column(c) : NaN
set multiplot layout 1,2 title "Weak scaling of data-parallel ResNet-50 on DGX-1 (V100) nodes, 4 x 100 Gb/s InfiniBand each"
set title "throughput"
set logscale y 2
set ylabel "throughput (samples/s)"
plot "$csv" using "n_gpus":(sel("true", "throughput_samples_per_s")) with linespoints lw 2 pt 7 lc 1 title "overlap on", \
     "" using "n_gpus":(sel("false", "throughput_samples_per_s")) with linespoints lw 2 pt 5 lc 2 title "--no-overlap", \
     "" using "n_gpus":(one * column("n_gpus")) with lines dt 2 lc rgb "gray30" title "ideal (N x 1 GPU)"
unset logscale y
set title "weak-scaling efficiency: throughput(N) / (N x throughput(1))"
set ylabel "efficiency (%)"
set yrange [*:100.5]
set key bottom left
plot "$csv" using "n_gpus":(100 * sel("true", "throughput_samples_per_s") / (one * column("n_gpus"))) with linespoints lw 2 pt 7 lc 1 title "overlap on", \
     "" using "n_gpus":(100 * sel("false", "throughput_samples_per_s") / (one * column("n_gpus"))) with linespoints lw 2 pt 5 lc 2 title "--no-overlap"
unset multiplot
EOF
echo "plot: $png"
