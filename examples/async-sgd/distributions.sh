#!/bin/sh
# distributions.sh - the mini-batch and staleness distributions of an
# asynchronous-SGD sweep (dtsim sweep over --strategy async-ps runs), read
# from its results.jsonl:
#
#   examples/async-sgd/distributions.sh [DIR]
#
# DIR is the sweep's output folder (default ./sprint-out). Prints one row per
# point (workers W, server shards, epoch time, the mean, p50 and p90 of the
# mini-batch per update and of the staleness per gradient, and the sweep's
# verdict when it chose with --where/--best), then the histograms
# (value:count) of the points that met the constraints: mini-batch in samples
# per update, staleness in updates between a gradient's pull and its apply.
# Without python3, or without a sweep of async-ps runs in DIR, it says so and
# exits 1.
set -e
dir=${1:-./sprint-out}
name=$(basename "$0")
case $dir in
  -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
command -v python3 >/dev/null 2>&1 || {
  echo "$name: error: python3 is needed to read $dir/results.jsonl" >&2
  exit 1
}
[ -f "$dir/results.jsonl" ] || {
  echo "$name: error: no sweep results at '$dir/results.jsonl'" >&2
  exit 1
}
python3 - "$dir/results.jsonl" "$name" <<'PYTHON'
import json
import sys

path, name = sys.argv[1], sys.argv[2]
points = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
rows = []
for p in points:
    run = p.get("run")
    ps = run.get("parameter_servers") if run else None
    if run and not (ps and "minibatch" in ps):
        sys.exit("%s: error: point %d is not an async-ps run (no mini-batch statistics)"
                 % (name, p["point"]))
    rows.append((p, run, ps))

print("%5s %4s %6s %9s  %-16s %-16s %s" % ("point", "W", "shards", "epoch s",
                                           "mini-batch", "staleness", "verdict"))
print(("%5s %4s %6s %9s  %-16s %-16s" % ("", "", "", "", "mean  p50  p90", "mean  p50  p90")).rstrip())
for p, run, ps in rows:
    verdict = p.get("verdict", "")
    if run is None:
        print("%5d  did not run (%s)" % (p["point"], p.get("status", "?")))
        continue
    mb, st = ps["minibatch"], ps["staleness"]
    print(("%5d %4d %6d %9.1f  %5.0f %4g %4g  %5.1f %4g %4g  %s" % (
        p["point"], ps["workers"], ps["shards"], run["epoch_time_s"],
        mb["mean"], mb["p50"], mb["p90"], st["mean"], st["p50"], st["p90"], verdict)).rstrip())

def bins(dist):
    return " ".join("%g:%d" % (b["from"], b["count"]) for b in dist["histogram"] if b["count"])

chosen = [r for r in rows if r[1] is not None and r[0].get("meets_constraints", True)]
for p, run, ps in chosen:
    label = "point %d, W = %d, %d shard%s" % (p["point"], ps["workers"], ps["shards"],
                                              "" if ps["shards"] == 1 else "s")
    print("%s: mini-batch (samples:updates) %s" % (label, bins(ps["minibatch"])))
    print("%s: staleness (updates:gradients) %s" % (label, bins(ps["staleness"])))
PYTHON
