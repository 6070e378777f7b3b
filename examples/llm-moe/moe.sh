#!/bin/sh
# moe.sh - Mixtral 8x7B on 64 H100: expert parallelism against tensor,
# pipeline and data parallelism, and what routing imbalance costs.
#
#   examples/llm-moe/moe.sh [-o DIR] [--quick] [--no-plot] [DTSIM]
#
# DTSIM is the dtsim binary (default ./dtsim: run it from the build
# directory). The cluster is 8 DGX H100-like nodes that `dtsim platform`
# writes to DIR/h100-x8.xml: 8 H100 SXM5 80 GB on NVSwitch (450 GB/s per GPU
# and direction), one 400 Gb/s NIC per GPU to a switch. Every run trains a
# global batch of 256 sequences of 4,096 tokens (1M tokens) in bf16,
# micro-batches of one sequence, 1F1B, with --zero 1 and, where TP > 1,
# --sequence-parallel (Megatron needs it for a mixture of experts).
# Each split is TP x PP x DP with expert parallelism EP over EP consecutive
# DP replicas of a stage (EP 1: every GPU holds all 8 experts; EP below DP:
# the DP / EP replicas that hold the same experts synchronise their
# gradients, expert data parallelism); --moe-imbalance X prices
# every GPU's experts at the busiest one's load, X times the mean. Writes
# DIR/moe.csv (one row per run: split, EP, imbalance, iteration time, tokens/s
# per GPU, MFU, the all-to-all and tensor-parallel time per iteration, memory
# per GPU, whether it fits in 80 GB) and, with gnuplot, DIR/moe.png. --quick
# runs three: 2x4x8 without and with EP 8, and EP 8 at imbalance 1.5.
set -e

here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../common.sh
. "$here/common.sh"
example_parse_args "$@"

# TPxPPxDP:EP:imbalance
if [ "$quick" = yes ]; then
  runs="2x4x8:1:1 2x4x8:8:1 2x4x8:8:1.5"
else
  runs="2x4x8:1:1 2x4x8:8:1 2x4x8:4:1 2x4x8:2:1 1x8x8:8:1 4x2x8:8:1 8x1x8:8:1
        2x8x4:4:1 2x8x4:1:1 2x4x8:8:1.25 2x4x8:8:1.5 2x4x8:8:2"
fi

example_csv_begin moe
platform=$out/h100-x8.xml
"$dtsim" platform --nodes 8 --gpus-per-node 8 --gpu H100-SXM5-80GB --intra nvswitch \
    --intra-bandwidth 450GB/s --nics-per-node 8 --nic-bandwidth 400Gbps -o "$platform" > /dev/null
echo "split,ep,imbalance,iteration_s,tokens_per_s_per_gpu,mfu,expert_s,tensor_s,memory_gib,fits" > "$tmp"
printf '%-7s %3s %9s %8s %13s %6s %9s %9s %11s %5s\n' split EP imbalance "iter s" \
  "tokens/s/GPU" MFU "a2a s" "TP s" "memory GiB" fits
for r in $runs; do
  split=${r%%:*}
  rest=${r#*:}
  ep=${rest%%:*}
  x=${rest#*:}
  tp=${split%%x*}
  rest=${split#*x}
  pp=${rest%%x*}
  dp=${rest#*x}
  sp=
  [ "$tp" -gt 1 ] && sp=--sequence-parallel
  # One JSON object per run; --allow-oversubscribe-memory simulates the
  # splits that do not fit, which the fits column says.
  # shellcheck disable=SC2086
  json=$(example_dtsim run --workload mixtral-8x7b --platform "$platform" --strategy hybrid \
      --tensor-parallel "$tp" --stages "$pp" --dp "$dp" --expert-parallel "$ep" \
      --moe-imbalance "$x" --batch-size $((256 / dp)) --micro-batches $((256 / dp)) \
      --precision bf16 $sp --zero 1 --allow-oversubscribe-memory \
      --iterations 2 --format json --quiet) || exit 1
  printf '%s\n' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d["tokens"]
p = d["pipeline"]
row = [sys.argv[1], sys.argv[2], sys.argv[3], "%.3f" % d["iteration_time_s"],
       "%.1f" % t["tokens_per_s_per_gpu"], "%.3f" % t["mfu"],
       "%.3f" % p.get("expert_s", 0.0), "%.3f" % p.get("tensor_s", 0.0),
       "%.2f" % (d["memory_peak_bytes_per_gpu"] / 2**30),
       "yes" if d["memory"]["fits"] else "no"]
print(",".join(row))
' "$split" "$ep" "$x" >> "$tmp"
  tail -1 "$tmp" | awk -F, '{ printf "%-7s %3s %9s %8s %13s %5.1f%% %9s %9s %11s %5s\n", $1, $2, $3, $4, $5, 100 * $6, $7, $8, $9, $10 }'
done
mv "$tmp" "$csv"
echo "wrote $csv ($(($(wc -l < "$csv") - 1)) runs)"

example_plot_setup
example_gnuplot 1100 520 "$out/moe.png" <<GP
set multiplot layout 1,2 title "Mixtral 8x7B on 64 H100, global batch of 1M tokens"
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.7
set xtics rotate by -40
set key off
set yrange [0:*]
set title "tokens/s per GPU (split TPxPPxDP, EP, imbalance)"
plot "$csv" using 5:xtic(sprintf("%s ep%s x%s", strcol(1), strcol(2), strcol(3))) linecolor rgb "#4477aa"
set title "expert all-to-all, s per iteration"
plot "$csv" using 7:xtic(sprintf("%s ep%s x%s", strcol(1), strcol(2), strcol(3))) linecolor rgb "#cc6677"
unset multiplot
GP
echo "wrote $out/moe.png"
