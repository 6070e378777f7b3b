#!/usr/bin/env python3
"""validate-llm.py - a first look at dtsim's transformer predictions against
Korthikanti et al. 2022's measured Selene iteration times (Table 5, as
../shared/data/validation/llm/korthikanti2022_selene_iteration_times.csv
has them), and the wall time and memory each simulation takes.

    bench/validate-llm.py BUILD_DIR [--all]

Nothing was fitted on these rows: the compute model is the plain roofline
(generic framework profile). Each row runs as Megatron-LM ran it: hybrid
tensor x pipeline parallelism, 1F1B, global batch of the row split into
micro-batches of the row's size, fp16, full recomputation for the "full"
rows and selective recomputation with sequence parallelism for the
"seqsel" ones, vocabulary 51,200 (Megatron's padded GPT-2 vocabulary).
Selene's DGX A100 nodes are the shipped dgxa100 (8 GPUs) and dgxa100-x8
(64 GPUs) platforms; the rows on 280 and 512 GPUs are skipped unless --all
(they take minutes to simulate). What dtsim does not model yet, and the
rows need: interleaved 1F1B (the 175B and 530B rows ran 3 virtual stages:
dtsim's bubble is larger). Prints a Markdown table, and the mean absolute
percentage error and the signed bias (positive: dtsim too slow) of the
rows run. Not a test.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
import time


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build = sys.argv[1]
    run_all = "--all" in sys.argv[2:]
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.dirname(here)
    shared = os.environ.get("DTSIM_SHARED", os.path.join(src, "..", "shared"))
    path = os.path.join(shared, "data", "validation", "llm",
                        "korthikanti2022_selene_iteration_times.csv")
    if not os.path.exists(path):
        print("validate-llm.py: no %s (set DTSIM_SHARED)" % path, file=sys.stderr)
        sys.exit(77)
    env = dict(os.environ, DTSIM_DATADIR=os.environ.get("DTSIM_DATADIR", src))
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    print("| model | mode | GPUs | TP x PP | micro-batches | measured s | dtsim s | error "
          "| memory GiB | wall s | RSS MB |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in rows:
            n, tp, pp = int(r["num_gpus"]), int(r["tp"]), int(r["pp"])
            platform = {8: "dgxa100", 64: "dgxa100-x8"}.get(n)
            if platform is None and not run_all:
                continue
            if platform is None:
                platform = os.path.join(tmp, "selene-%d.xml" % n)
                subprocess.run([os.path.join(build, "dtsim"), "platform", "--nodes",
                                str(n // 8), "--gpus-per-node", "8", "--gpu",
                                "A100-SXM4-80GB", "--intra", "nvswitch",
                                "--intra-bandwidth", "300GB/s", "-o", platform],
                               check=True, env=env, stdout=subprocess.DEVNULL)
            wl = os.path.join(tmp, "%s.xml" % r["model"])
            with open(wl, "w") as f:
                f.write('<model name="%s"><transformer layers="%s" hidden="%s" ffn="%s" '
                        'heads="%s" head-dim="%s" vocab="51200" seq-len="%s"/></model>\n'
                        % (r["model"], r["layers"], r["hidden"], r["ffn"], r["heads"],
                           r["head_dim"], r["seq_len"]))
            gb, mb = int(r["global_batch"]), int(r["micro_batch"])
            args = [os.path.join(build, "dtsim"), "run", "-w", wl, "-p", platform,
                    "--strategy", "hybrid", "--stages", str(pp), "--tensor-parallel", str(tp),
                    "--dp", "1", "--batch-size", str(gb), "--micro-batches", str(gb // mb),
                    "--precision", "fp16", "--allow-oversubscribe-memory", "--format", "json",
                    "--quiet"]
            if r["mode"] == "full":
                args += ["--recompute", "full"]
            else:
                args += ["--recompute", "selective", "--sequence-parallel"]
            t0 = time.time()
            out = subprocess.run(["/usr/bin/time", "-f", "%M", "-o",
                                  os.path.join(tmp, "rss")] + args,
                                 check=True, env=env, capture_output=True, text=True).stdout
            wall = time.time() - t0
            with open(os.path.join(tmp, "rss")) as f:
                rss = int(f.read().split()[-1]) / 1024
            res = json.loads(out)
            pred = res["iteration_time_s"]
            meas = float(r["measured_iter_time_s"])
            err = pred / meas - 1
            errors.append(err)
            print("| %s | %s | %d | %d x %d | %d | %.2f | %.2f | %+.1f%% | %.1f | %.1f | %.0f |"
                  % (r["model"], r["mode"], n, tp, pp, gb // mb, meas, pred, 100 * err,
                     res["memory_peak_bytes_per_gpu"] / 2**30, wall, rss))
    if errors:
        mape = sum(abs(e) for e in errors) / len(errors)
        bias = sum(errors) / len(errors)
        print("\n%d rows: MAPE %.1f%%, bias %+.1f%% (positive: dtsim too slow)"
              % (len(errors), 100 * mape, 100 * bias))


if __name__ == "__main__":
    main()
