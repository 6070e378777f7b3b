#!/bin/sh
# llm3d.sh - Llama-3-70B on 64 H100: tokens/s per GPU, MFU and memory per GPU
# for tensor x pipeline x data-parallel splits, with and without sequence
# parallelism, the distributed optimizer and selective recomputation.
#
#   examples/llm-3d-parallel/llm3d.sh [-o DIR] [--quick] [--no-plot] [DTSIM]
#
# DTSIM is the dtsim binary (default ./dtsim: run it from the build
# directory). The cluster is 8 DGX H100-like nodes that `dtsim platform`
# writes to DIR/h100-x8.xml: 8 H100 SXM5 80 GB on NVSwitch (450 GB/s per GPU
# and direction), one 400 Gb/s NIC per GPU to a switch. Every run trains a
# global batch of 128 sequences of 8,192 tokens (1M tokens) in bf16,
# micro-batches of one sequence, Megatron's interleaved 1F1B where the
# pipeline has stages (5 chunks per stage for 4 stages, 2 for 8). The
# reference setting is --sequence-parallel --zero 1 --recompute selective;
# each variant drops one of them. Writes DIR/llm3d.csv (one row per run: the
# split, the options, the iteration time, tokens/s per GPU, MFU, memory per
# GPU and whether it fits in 80 GB) and, with gnuplot, DIR/llm3d.png: tokens/s
# per GPU and memory per GPU of each run. --quick runs two splits.
set -e

here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../common.sh
. "$here/common.sh"
example_parse_args "$@"

# split TPxPPxDP:virtual stages
if [ "$quick" = yes ]; then
  splits="8x4x2:5 4x8x2:2"
  variants="ref"
else
  splits="8x8x1:2 8x4x2:5 4x8x2:2 8x2x4:5 2x8x4:2"
  variants="ref no-sp no-zero no-recompute full-recompute"
fi

example_csv_begin llm3d
platform=$out/h100-x8.xml
"$dtsim" platform --nodes 8 --gpus-per-node 8 --gpu H100-SXM5-80GB --intra nvswitch \
    --intra-bandwidth 450GB/s --nics-per-node 8 --nic-bandwidth 400Gbps -o "$platform" > /dev/null
echo "split,options,iteration_s,tokens_per_s_per_gpu,mfu,memory_gib,fits" > "$tmp"
printf '%-8s %-15s %10s %14s %6s %11s %5s\n' split options "iter s" "tokens/s/GPU" MFU "memory GiB" fits
for split in $splits; do
  tp=${split%%x*}
  rest=${split#*x}
  pp=${rest%%x*}
  rest=${rest#*x}
  dp=${rest%%:*}
  vs=${rest##*:}
  for variant in $variants; do
    [ "$variant" = ref ] || [ "$split" = 8x4x2:5 ] || continue
    sp=--sequence-parallel; zero="--zero 1"; rc=selective
    case $variant in
      no-sp) sp= ;;
      no-zero) zero= ;;
      no-recompute) rc=none ;;
      full-recompute) rc=full ;;
    esac
    # One JSON object per run; --allow-oversubscribe-memory simulates the
    # splits that do not fit, which the fits column says.
    # shellcheck disable=SC2086
    "$dtsim" run --workload llama3-70b --platform "$platform" --strategy hybrid \
        --tensor-parallel "$tp" --stages "$pp" --dp "$dp" --virtual-stages "$vs" \
        --batch-size $((128 / dp)) --micro-batches $((128 / dp)) --precision bf16 \
        $sp $zero --recompute "$rc" --allow-oversubscribe-memory --iterations 2 \
        --format json --quiet |
      python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d["tokens"]
mem = d["memory_peak_bytes_per_gpu"]
row = [sys.argv[1], sys.argv[2], "%.3f" % d["iteration_time_s"],
       "%.1f" % t["tokens_per_s_per_gpu"], "%.3f" % t["mfu"], "%.2f" % (mem / 2**30),
       "yes" if d["memory"]["fits"] else "no"]
print(",".join(row))
' "${tp}x${pp}x${dp}" "$variant" >> "$tmp"
    tail -1 "$tmp" | awk -F, '{ printf "%-8s %-15s %10s %14s %5.1f%% %11s %5s\n", $1, $2, $3, $4, 100 * $5, $6, $7 }'
  done
done
mv "$tmp" "$csv"
echo "wrote $csv ($(($(wc -l < "$csv") - 1)) runs)"

example_plot_setup
example_gnuplot 1100 520 "$out/llm3d.png" <<GP
set multiplot layout 1,2 title "Llama-3-70B on 64 H100, global batch of 1M tokens"
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.7
set xtics rotate by -40
set key off
set yrange [0:*]
set title "tokens/s per GPU"
plot "$csv" using 4:xtic(sprintf("%s %s", strcol(1), strcol(2))) linecolor rgb "#4477aa"
set title "memory per GPU, GiB (dashed: the 80 GB of an H100)"
set arrow from graph 0, first 74.5 to graph 1, first 74.5 nohead dashtype 2
plot "$csv" using 6:xtic(sprintf("%s %s", strcol(1), strcol(2))) linecolor rgb "#cc6677"
unset multiplot
GP
echo "wrote $out/llm3d.png"
