#!/bin/sh
# histograms.sh - the staleness and mini-batch-size distributions of
# asynchronous SGD against the number of workers W: ResNet-50 (batch 64 per
# worker) on the shipped cluster-4x4-v100, one server shard on a GPU of its own
# (--ps-placement own), every kernel's time drawn from a lognormal of sigma 0.1
# (--compute-jitter lognormal:0.1 --seed 1), 20 iterations per worker.
#
#   examples/async-sgd/histograms.sh [-o DIR] [--quick] [--no-plot] [DTSIM]
#
# The staleness comes from --ps-update each (one update per gradient), the
# mini-batch size from --ps-update merge with the server's GPU at 10 GB/s of
# memory bandwidth, so that an update (51 ms for ResNet-50's 102 MB) is slow
# enough for gradients to queue and merge. Prints each distribution's bins,
# writes DIR/histograms.csv (W, policy, quantity, bin start, count, fraction; default
# DIR ./whatif-out) and, with gnuplot, DIR/histograms.png: the fraction of
# gradients per staleness and of updates per mini-batch, one line per W.
# --quick runs W = 2 and 8. DTSIM is the dtsim binary (default ./dtsim).
set -e

# common.sh reads here as the directory of the studies (examples/).
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../common.sh
. "$here/common.sh"
example_parse_args "$@"

if [ "$quick" = yes ]; then workers="2 8"; else workers="2 4 8"; fi

example_csv_begin histograms
echo "workers,policy,quantity,from,count,fraction" >> "$tmp"
for w in $workers; do
  # With --ps-placement own the server is rank W: node W/4, GPU W mod 4.
  server=node$((w / 4))-gpu$((w % 4))
  for policy in each merge; do
    slow=
    [ "$policy" = each ] || slow="--set gpu:$server.mem_bw=10GB/s"
    # shellcheck disable=SC2086
    json=$(example_dtsim run -q --framework generic -p cluster-4x4-v100 -w resnet50 -b 64 -i 20 --gpus "$w" \
      --strategy async-ps --ps-placement own --ps-update "$policy" $slow \
      --compute-jitter lognormal:0.1 --seed 1 -f json) || exit 1
    printf '%s\n' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
quantity = "staleness" if sys.argv[2] == "each" else "minibatch"
bins = d["parameter_servers"][quantity]["histogram"]
n = sum(b["count"] for b in bins)
for b in bins:
    print("%s,%s,%s,%.9g,%d,%.6f" % (sys.argv[1], sys.argv[2], quantity, b["from"], b["count"],
                                     b["count"] / n))' \
      "$w" "$policy" >> "$tmp"
  done
done
mv "$tmp" "$csv"

# One line per distribution: its bins as value:count.
awk -F, 'NR == 1 { next }
  { key = sprintf("%-9s W = %d (%s)", $3, $1, $2)
    if (key != last) { if (last != "") printf "\n"; printf "%-28s", key; last = key }
    printf " %g:%d", $4, $5 }
  END { printf "\n" }' "$csv"
echo "wrote $csv"

example_plot_setup
png=$out/histograms.png
example_gnuplot 1200 480 "$png" <<GNUPLOT
set grid
set key top right
set multiplot layout 1,2 title "Asynchronous SGD, ResNet-50 on cluster-4x4-v100, kernel times lognormal (sigma 0.1)"
is(w, q) = column("workers") == w && strcol("quantity") eq q
x(w, q) = is(w, q) ? column("from") : NaN
y(w, q) = is(w, q) ? column("fraction") : NaN
set yrange [0:1.05]
set title "staleness per gradient (--ps-update each)"
set xlabel "staleness (updates between pull and apply)"
set ylabel "fraction of gradients"
plot for [w in "$workers"] "$csv" using (x(w + 0, "staleness")):(y(w + 0, "staleness")) with linespoints lw 2 pt 7 title sprintf("W = %s", w)
set title "mini-batch per update (--ps-update merge, server at 10 GB/s)"
set xlabel "effective mini-batch (samples)"
set ylabel "fraction of updates"
plot for [w in "$workers"] "$csv" using (x(w + 0, "minibatch")):(y(w + 0, "minibatch")) with linespoints lw 2 pt 7 title sprintf("W = %s", w)
unset multiplot
GNUPLOT
echo "plot: $png"
