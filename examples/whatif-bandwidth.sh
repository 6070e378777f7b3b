#!/bin/sh
# whatif-bandwidth.sh - what-if study: data-parallel ResNet-50 and VGG-16 on
# the shipped default platform (4 nodes x 4 V100, NVLink inside a node, one
# 100 Gb/s InfiniBand link per node) with the InfiniBand bandwidth scaled from
# 0.125x to 4x.
#
#   examples/whatif-bandwidth.sh [-o DIR] [--quick] [--no-plot] [DTSIM]
#
# DTSIM is the dtsim binary (default ./dtsim: run it from the build
# directory). Writes DIR/whatif-bandwidth.csv (default DIR ./whatif-out): the
# header of `dtsim run --format csv` once, then one row per run, each led by
# the column ib_bandwidth_scale (the factor given to --scale). With gnuplot,
# also DIR/whatif-bandwidth.png: throughput and exposed communication against
# the InfiniBand bandwidth. --quick runs 3 scales (0.5, 1, 2) for the tests.
#
# What it shows: ResNet-50 carries 102 MB of gradients for 200 ms of compute,
# VGG-16 553 MB for 580 ms; the all-reduce time falls as 1/bandwidth until
# another link is slower than InfiniBand. Only the IB links are scaled (the
# glob link:*-ib), so above ~1.26x the 126 Gb/s PCIe link between each GPU and
# its node's NIC becomes the bottleneck and nothing more is gained. Exposed
# communication is the part of the all-reduce that backprop does not hide.
set -e

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh source-path=SCRIPTDIR
. "$here/common.sh"
example_parse_args "$@"

if [ "$quick" = yes ]; then
  scales="0.5 1 2"
else
  scales="0.125 0.25 0.5 0.75 1 1.25 1.5 2 3 4"
fi
workloads="resnet50 vgg16"

example_csv_begin whatif-bandwidth
for w in $workloads; do
  for s in $scales; do
    res=$("$dtsim" run --quiet --workload "$w" --scale "link:*-ib.bandwidth=$s" --format csv)
    [ -s "$tmp" ] || echo "$res" | sed -n '1s/^/ib_bandwidth_scale,/p' >> "$tmp"
    echo "$res" | sed -n "2s/^/$s,/p" >> "$tmp"
  done
done
mv "$tmp" "$csv"

# A table of the columns the plot uses, found by name in the header.
awk -F, '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
            printf "%-9s %6s %14s %11s %14s %12s\n", "workload", "IB x", "iteration ms",
                   "samples/s", "all-reduce ms", "exposed ms"; next }
  { printf "%-9s %6s %14.3f %11.1f %14.3f %12.3f\n", $col["workload"], $col["ib_bandwidth_scale"],
           1e3 * $col["iteration_time_s"], $col["throughput_samples_per_s"],
           1e3 * $col["comm_s"], 1e3 * $col["comm_exposed_s"] }' "$csv"
echo "wrote $csv ($(($(wc -l < "$csv") - 1)) runs)"

example_plot_setup
png=$out/whatif-bandwidth.png
example_gnuplot 1200 500 "$png" <<EOF
set logscale x 2
set xrange [0.1:5]
set xtics ("1/8" 0.125, "1/4" 0.25, "1/2" 0.5, "1" 1, "2" 2, "4" 4)
set xlabel "InfiniBand bandwidth (x 100 Gb/s per node)"
set grid
set key top left
sel(w, c) = strcol("workload") eq w ? column(c) : NaN
set multiplot layout 1,2 title "Data-parallel training on 4 nodes x 4 V100: what if the network were slower or faster?"
set ylabel "throughput (samples/s)"
set yrange [0:*]
set title "throughput"
plot "$csv" using "ib_bandwidth_scale":(sel("resnet50", "throughput_samples_per_s")) with linespoints lw 2 pt 7 title "ResNet-50", \
     "" using "ib_bandwidth_scale":(sel("vgg16", "throughput_samples_per_s")) with linespoints lw 2 pt 5 title "VGG-16"
set ylabel "time per iteration (ms)"
set logscale y 10
set yrange [*:*]
set key top right
set title "all-reduce time and the part backprop does not hide"
# 126 Gb/s PCIe between each GPU and the NIC: the IB links stop being the bottleneck.
set arrow 1 from 1.26, graph 0 to 1.26, graph 1 nohead dt 3 lc rgb "gray40"
set label 1 "IB faster than PCIe from 1.26x " at 1.26, graph 0.05 right textcolor rgb "gray40"
plot "$csv" using "ib_bandwidth_scale":(1e3 * sel("resnet50", "comm_s")) with linespoints lw 1 dt 2 pt 6 lc 1 title "ResNet-50 all-reduce", \
     "" using "ib_bandwidth_scale":(1e3 * sel("resnet50", "comm_exposed_s")) with linespoints lw 2 pt 7 lc 1 title "ResNet-50 exposed", \
     "" using "ib_bandwidth_scale":(1e3 * sel("vgg16", "comm_s")) with linespoints lw 1 dt 2 pt 4 lc 2 title "VGG-16 all-reduce", \
     "" using "ib_bandwidth_scale":(1e3 * sel("vgg16", "comm_exposed_s")) with linespoints lw 2 pt 5 lc 2 title "VGG-16 exposed"
unset multiplot
EOF
echo "plot: $png"
