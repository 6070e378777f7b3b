#!/bin/sh
# hybrid.sh - hybrid data x pipeline parallel VGG-16 on the shipped default
# cluster (4 nodes x 4 V100, NVLink inside a node, 100 Gb/s InfiniBand
# between nodes): where the time goes, what an uneven data-parallel degree
# across the two stages costs or saves, and what the communication knobs
# change (one communication stream for sends and all-reduces, and overlap).
#
#   examples/hybrid-parallel/hybrid.sh [-o DIR] [--quick] [--no-plot] [DTSIM]
#
# DTSIM is the dtsim binary (default ./dtsim: run it from the build
# directory). Every run trains a global mini-batch of 768 samples in 8
# micro-batches (1F1B) on 16 GPUs in 2 stages balanced by the cost model:
# stage-dp 8,8 (batch 96 per replica), 12,4 and 4,12 (batch 64 per replica
# of the wider stage), each with --p2p-stream own and shared, with and
# without --no-overlap. Writes DIR/hybrid.tsv (one row per run: the
# configuration, the iteration time, the throughput and the mean time per
# GPU and iteration in compute, exposed all-reduce, exposed transfers and
# bubble) and, with gnuplot, DIR/hybrid.png: that breakdown as stacked bars.
# --quick runs 8,8 and 12,4 with overlap, own and shared.
set -e

# common.sh lives one directory up, with the other studies.
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../common.sh
. "$here/common.sh"
example_parse_args "$@"

if [ "$quick" = yes ]; then
  configs="8,8:96 12,4:64"
  overlaps="on"
else
  configs="8,8:96 12,4:64 4,12:64"
  overlaps="on off"
fi

mkdir -p "$out"
tsv=$out/hybrid.tsv
tmp=$tsv.tmp
trap 'rm -f "$tmp"' EXIT
printf 'stage_dp\tp2p_stream\toverlap\titeration_ms\tsamples_per_s\tcompute_ms\tallreduce_ms\ttransfer_ms\tbubble_ms\n' > "$tmp"
printf '%-8s %-7s %-7s %12s %10s %10s %10s %10s %10s\n' stage-dp p2p overlap "iteration ms" samples/s \
  "compute" "allreduce" "transfer" "bubble"
for overlap in $overlaps; do
  flag=
  [ "$overlap" = on ] || flag=--no-overlap
  for cfg in $configs; do
    dp=${cfg%%:*}
    batch=${cfg##*:}
    for p2p in own shared; do
      # One JSON object per run; the fields are in doc/SIMULATION.md.
      "$dtsim" run --framework generic --strategy hybrid --stage-dp "$dp" --batch-size "$batch" --micro-batches 8 \
          --workload vgg16 --p2p-stream "$p2p" $flag --format json --quiet |
        python3 -c '
import json, sys
d = json.load(sys.stdin)
p, b = d["pipeline"], d["breakdown"]
n = d["n_gpus"]
# Means per GPU: the stages weighted by their GPUs.
def mean(key):
    return sum(s[key] * s["replicas"] * s["tensor_parallel"] for s in p["stages"]) / n
row = [sys.argv[1], sys.argv[2], sys.argv[3], d["iteration_time_s"] * 1e3,
       d["throughput_samples_per_s"], mean("compute_s") * 1e3,
       mean("allreduce_exposed_s") * 1e3, mean("transfer_exposed_s") * 1e3,
       mean("bubble_s") * 1e3]
print("\t".join(x if isinstance(x, str) else "%.3f" % x for x in row))
' "$dp" "$p2p" "$overlap" >> "$tmp"
      tail -1 "$tmp" | awk -F'\t' '{ printf "%-8s %-7s %-7s %12.3f %10.1f %10.3f %10.3f %10.3f %10.3f\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
    done
  done
done
mv "$tmp" "$tsv"
echo "wrote $tsv ($(($(wc -l < "$tsv") - 1)) runs)"

example_plot_setup
gnuplot <<GP
set terminal $term size 1000,520
set output "$out/hybrid.png"
set title "VGG-16, 2 pipeline stages on 16 V100 (4 nodes): mean time per GPU and iteration"
set datafile separator "\t"
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set ylabel "ms"
set xtics rotate by -30
set key outside right
plot "$tsv" using 6:xtic(sprintf("%s %s %s", strcol(1), strcol(2), strcol(3))) title "compute", \
     "" using 7 title "exposed all-reduce", \
     "" using 8 title "exposed transfers", \
     "" using 9 title "bubble"
GP
echo "wrote $out/hybrid.png"
