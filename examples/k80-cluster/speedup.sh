#!/bin/sh
# speedup.sh - the K80 cluster study of Campos et al. (CCGrid 2017): TensorFlow
# training on BSC's MinoTauro, nodes of two K80 boards (four GK210 dies), 1 to 16
# nodes, parameter servers on the nodes' CPUs; the paper reports near-linear
# scaling over the GPUs of a node and a distributed speed-up of 10.3 on 16 nodes
# over one node.
#
#   examples/k80-cluster/speedup.sh [-o DIR] [--quick] [--no-plot] [DTSIM]
#
# DTSIM is the dtsim binary (default ./dtsim: run it from the build
# directory). On platforms/minotauro-k80-x16.xml, ResNet-50 at batch 64 per
# GPU die (dtsim's workload default), every die a worker: sync-ps and
# async-ps (--ps-update each) with one server shard per node on its socket 0
# (--ps-placement cpus, the update priced at the socket's 59 GB/s), and the
# ring all-reduce (--strategy dp) for comparison, compute under the plain
# roofline (--framework generic; README.md says why). Prints the speed-up over
# one node of the same strategy for 1, 2, 4, 8 and 16 nodes, and over one
# die for 1, 2 and 4 dies of one node (sync-ps); writes DIR/speedup.csv
# (default DIR ./whatif-out) and, with gnuplot, DIR/speedup.png: speed-up
# against nodes, with the paper's 10.3 at 16. --quick runs 1, 4 and 16 nodes
# and no intra-node rows. README.md says what to read in the numbers.
set -e

# common.sh reads here as the directory of the studies (examples/).
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../common.sh
. "$here/common.sh"
example_parse_args "$@"

if [ "$quick" = yes ]; then nodes="1 4 16"; iters=4; else nodes="1 2 4 8 16"; iters=6; fi
platform=minotauro-k80-x16

# One run: prints "strategy,nodes,gpus,iteration_time_s,throughput" (CSV).
run() {
  name=$1 n=$2 g=$3
  shift 3
  json=$(example_dtsim run -q --framework generic -p "$platform" -w resnet50 -i "$iters" --gpus "$g" "$@" -f json) ||
    exit 1
  printf '%s\n' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("%s,%s,%d,%.9g,%.9g" % (sys.argv[1], sys.argv[2], d["n_gpus"], d["iteration_time_s"],
                             d["throughput_samples_per_s"]))' "$name" "$n"
}

example_csv_begin speedup
echo "strategy,nodes,gpus,iteration_time_s,throughput_samples_per_s" >> "$tmp"
# Rows grouped by strategy (gnuplot draws a line through consecutive rows).
for strategy in sync-ps async-ps ring; do
  for n in $nodes; do
    g=$((4 * n))
    case $strategy in
      ring) run ring "$n" "$g" --strategy dp >> "$tmp" ;;
      *) run "$strategy" "$n" "$g" --strategy "$strategy" --ps-placement cpus >> "$tmp" ;;
    esac
  done
done
if [ "$quick" = no ]; then
  for g in 1 2 4; do
    run sync-ps-in-node 1 "$g" --strategy sync-ps --ps-placement cpus >> "$tmp"
  done
fi
mv "$tmp" "$csv"

awk -F, '
  NR == 1 { next }
  { key = $1; if (!(key in one)) one[key] = $5
    unit = key == "sync-ps-in-node" ? $3 : $2
    if (key != last) {
      if (key == "sync-ps-in-node")
        printf "inside one node (sync-ps, its server on socket 0), over one GPU die:\n"
      else if (last == "")
        printf "%-8s %5s %5s %14s %11s %9s %11s\n", "strategy", "nodes", "GPUs", "iteration ms",
               "samples/s", "speed-up", "efficiency"
      last = key }
    printf "%-8s %5d %5d %14.3f %11.1f %9.2f %10.1f%%\n", key == "sync-ps-in-node" ? "sync-ps" : key,
           $2, $3, 1e3 * $4, $5, $5 / one[key], 100 * $5 / one[key] / unit
    if (key != "sync-ps-in-node" && $2 == 16) at16[key] = $5 / one[key] }
  END { if (length(at16))
          printf "at 16 nodes: sync-ps %.2f, async-ps %.2f, ring %.2f; the paper: 10.3\n",
                 at16["sync-ps"], at16["async-ps"], at16["ring"] }' "$csv"
echo "wrote $csv ($(($(wc -l < "$csv") - 1)) runs)"

example_plot_setup
png=$out/speedup.png
example_gnuplot 800 560 "$png" <<GNUPLOT
set title "ResNet-50 on MinoTauro K80 nodes (4 GK210 dies each), speed-up over one node"
set xlabel "nodes (4 K80 dies each; batch 64 per die)"
set ylabel "speed-up over one node"
set logscale xy 2
set xrange [0.8:20]
set yrange [0.8:20]
set xtics (1, 2, 4, 8, 16)
set ytics (1, 2, 4, 8, 10.3, 16)
set grid
set key bottom right
\$paper << EOD
nodes,speedup
16,10.3
EOD
s(name) = strcol("strategy") eq name ? column("throughput_samples_per_s") : NaN
one(name) = system(sprintf("awk -F, '\$1 == \"%s\" && \$2 == 1 { print \$5; exit }' $csv", name)) + 0
o1 = one("sync-ps"); o2 = one("async-ps"); o3 = one("ring")
plot x with lines dt 2 lc rgb "gray30" title "ideal", \
     "$csv" using "nodes":(s("sync-ps") / o1) with linespoints lw 2 pt 7 lc 1 title "sync-ps, servers on the CPUs", \
     "" using "nodes":(s("async-ps") / o2) with linespoints lw 2 pt 5 lc 2 title "async-ps, servers on the CPUs", \
     "" using "nodes":(s("ring") / o3) with linespoints lw 2 pt 9 lc 3 title "ring all-reduce (dp)", \
     \$paper using "nodes":"speedup" with points pt 3 ps 2 lw 2 lc rgb "black" title "Campos et al. (CCGrid 2017): 10.3"
GNUPLOT
echo "plot: $png"
