#!/bin/sh
# fold-hybrid.sh - benchmark two dtsim builds side by side on pipeline and
# hybrid runs at --comm-granularity analytic, where the replicas of a mesh
# fold along its data axis (doc/SIMULATION.md, "Folded pipelines and
# tensor-parallel groups"): one iteration of
#   llama3-70b-256   Llama-3-70B on 256 H100 (32 nodes, a 400 Gb/s NIC per
#                    GPU): TP 8 x PP 4 x DP 8, sequence parallel, ZeRO 1,
#                    selective recomputation, 16 micro-batches
#   gpt3-175b-1024   GPT-3 175B on 1,024 A100 (128 nodes, a 200 Gb/s NIC per
#                    GPU): TP 8 x PP 16 x DP 8, 1F1B, global batch 1,536 of
#                    micro-batch 1 (192 micro-batches per replica), sequence
#                    parallel, selective recomputation
# (CASES="llama3-70b-256" runs one). Prints a Markdown table: wall and CPU
# seconds and peak RSS of each build, old/new, the ranks the new build runs
# (DTSIM_FOLD=count), and whether both report the same simulated results (the
# JSON without simulation.wall_time_s). Not a test.
#
#   bench/fold-hybrid.sh OLD_BUILD NEW_BUILD   (directories holding a dtsim binary)
set -e
here=$(cd "$(dirname "$0")" && pwd)
name=fold-hybrid.sh
# shellcheck source=two-builds.sh
. "$here/two-builds.sh"
cases=${CASES:-llama3-70b-256 gpt3-175b-1024}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "| case | GPUs | ranks run (new) | old wall s | new wall s | old/new | old CPU s | new CPU s | old RSS MB | new RSS MB | same results |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for c in $cases; do
  case $c in
    llama3-70b-256)
      "$2/dtsim" platform --nodes 32 --gpus-per-node 8 --gpu H100-SXM5-80GB --intra nvswitch \
        --intra-bandwidth 450GB/s --nics-per-node 8 --nic-bandwidth 400Gbps -o "$tmp/p.xml" \
        > /dev/null
      set -- "$1" "$2" -w llama3-70b --strategy hybrid --stages 4 --tensor-parallel 8 --dp 8 \
        --sequence-parallel --zero 1 --batch-size 16 --micro-batches 16 --precision bf16 \
        --recompute selective ;;
    gpt3-175b-1024)
      "$2/dtsim" platform --nodes 128 --gpus-per-node 8 --gpu A100-SXM4-80GB --intra nvswitch \
        --intra-bandwidth 300GB/s --nics-per-node 8 --nic-bandwidth 200Gbps -o "$tmp/p.xml" \
        > /dev/null
      set -- "$1" "$2" -w gpt3-175b --strategy hybrid --stages 16 --tensor-parallel 8 --dp 8 \
        --sequence-parallel --batch-size 192 --micro-batches 192 --precision bf16 \
        --recompute selective ;;
    *) echo "$name: unknown case '$c' (llama3-70b-256 or gpt3-175b-1024)" >&2; exit 2 ;;
  esac
  old=$1
  new=$2
  shift 2
  for side in old new; do
    if [ $side = old ]; then build=$old; else build=$new; fi
    DTSIM_FOLD=count /usr/bin/time -f "%U %S %e %M" -o "$tmp/time-$side" "$build/dtsim" run \
      -p "$tmp/p.xml" "$@" --iterations 1 --comm-granularity analytic --format json --quiet \
      > "$tmp/$side.json" 2> "$tmp/err-$side"
  done
  set -- "$old" "$new"
  python3 - "$here" "$tmp" "$c" <<'PY'
import re, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from importlib import import_module
load = import_module("two-builds").load
tmp, case = sys.argv[2:4]
old, old_wall, old_rss = load(tmp, "old")
new, new_wall, new_rss = load(tmp, "new")
cpu = lambda side: sum(float(x) for x in open("%s/time-%s" % (tmp, side)).read().split()[-4:-2])
m = re.search(r"ranks run as (\d+)", open("%s/err-new" % tmp).read())
print("| %s | %d | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f | %s |" % (
    case, new["n_gpus"], m.group(1) if m else "?", old_wall, new_wall,
    old_wall / max(new_wall, 1e-3), cpu("old"), cpu("new"), old_rss, new_rss,
    "yes" if old == new else "**no**"))
PY
done
