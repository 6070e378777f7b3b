#!/usr/bin/env python3
"""Compare dtsim with published measurements nobody tuned it on.

usage: bench/validate-data.py BUILD_DIR [deepbench|tf|ps|all] [--cost-models=roofline,mlp]
                              [--framework=ID] [--ps-push=ID]

Reads the shared data directory ($DTSIM_SHARED, else ../shared next to the
source tree) and prints the Markdown tables of doc/VALIDATION.md:

deepbench  validation/deepbench_allreduce.csv: every GPU row (P100, M40,
           TitanX, TitanX Pascal, 1080 Ti) against `dtsim allreduce` on the
           shipped deepbench-p100-x4 platform (8 GPUs per node under PLX
           switches, InfiniBand FDR), step granularity, fp32 buffers.
tf         validation/tf_benchmarks_2017_images_per_sec.csv: synthetic-data
           rows of the DGX-1 (platforms/dgx1-p100.xml) and of one AWS
           p2.8xlarge (platforms/aws-p2-8xlarge.xml) against `dtsim run`;
           the multi-node p2.8xlarge rows (parameter servers) on
           aws-p2-8xlarge-x8 are listed apart, outside the error figures.
ps         only those multi-node rows: `dtsim run --collective ps` (one
           parameter server per instance, co-located, as TensorFlow ran
           them), with --ps-aggregation none (sync-ps) and node, next to the ring,
           images/s and speed-ups over 1 and 8 GPUs.

--ps-push=ID runs the `ps` column (sync-ps) with `--ps-push ID` (default: none,
i.e. after-backward; buckets: each bucket pushed during the backward pass).

--framework=ID runs `dtsim run` under that framework profile (default:
`generic`, `dtsim run`'s default and the profile parts 1-3 of
doc/VALIDATION.md ran under, explicit so that those parts stay reproducible).

Error = (simulated - measured) / measured; MAPE = mean of |error| over the
set of points stated with each figure. Nothing here is fitted.
"""
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def shared_dir():
    d = os.environ.get("DTSIM_SHARED") or os.path.join(SRC, "..", "shared")
    if not os.path.isdir(os.path.join(d, "data", "validation")):
        sys.exit("validate-data.py: no data/validation under '%s' (set DTSIM_SHARED)" % d)
    return os.path.join(d, "data", "validation")


def read_csv(path):
    with open(path, newline="") as f:
        lines = [l for l in f if not l.startswith("#")]
    return list(csv.DictReader(lines))


def dtsim(build, *args):
    env = dict(os.environ, DTSIM_DATADIR=os.environ.get("DTSIM_DATADIR", SRC))
    p = subprocess.run([os.path.join(build, "dtsim"), *args], env=env, capture_output=True,
                       text=True)
    if p.returncode != 0:
        sys.exit("dtsim %s failed: %s" % (" ".join(args), p.stderr.strip()))
    return p.stdout


def mape(errs):
    return 100 * sum(abs(e) for e in errs) / len(errs) if errs else float("nan")


def pct(e):
    return "%+.1f%%" % (100 * e)


# --- DeepBench all-reduce ------------------------------------------------------

SIZE_CLASS = [(1e6, "small (0.1M floats, 0.4 MB)"), (1e7, "medium (3.1M-6.6M floats, 12-26 MB)"),
              (1e12, "large (16.8M-64.5M floats, 67-258 MB)")]


def size_class(floats):
    for limit, name in SIZE_CLASS:
        if floats < limit:
            return name


def deepbench(build):
    rows = [r for r in read_csv(os.path.join(shared_dir(), "deepbench_allreduce.csv"))
            if "Xeon Phi" not in r["device"] and r["mean_ms"]]
    sizes = sorted({int(r["size_floats"]) for r in rows})
    sim = {}  # (n, floats) -> ms
    for n in sorted({int(r["n_ranks"]) for r in rows}):
        out = dtsim(build, "allreduce", "-p", "deepbench-p100-x4", "--gpus", str(n),
                    "--collective", "ring", "--comm-granularity", "step", "--format", "csv",
                    "--sizes", ",".join("%dB" % (4 * s) for s in sizes))
        for line in out.splitlines()[1:]:
            f = line.split(",")
            sim[(n, int(float(f[7])) // 4)] = float(f[8]) * 1e3
    points = []
    for r in rows:
        n, floats = int(r["n_ranks"]), int(r["size_floats"])
        meas, s = float(r["mean_ms"]), sim[(n, floats)]
        outlier = floats == 16777216 and n in (16, 32)
        points.append(dict(device=r["device"], n=n, nodes=int(r["n_nodes"]), floats=floats,
                           algo=r["algorithm"], meas=meas, sim=s, err=(s - meas) / meas,
                           outlier=outlier))

    print("### DeepBench all-reduce, P100 rows, per point\n")
    print("`dtsim allreduce -p deepbench-p100-x4 --gpus N --collective ring --comm-granularity step "
          "--sizes <7 sizes x 4 bytes>`\n")
    print("| GPUs | nodes | floats | measured ms | algorithm | simulated ms | error | measured busbw GB/s | simulated busbw GB/s |")
    print("|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    for p in sorted((p for p in points if "P100" in p["device"]),
                    key=lambda p: (p["floats"], p["n"])):
        bus = lambda ms: 4 * p["floats"] / (ms * 1e-3) * 2 * (p["n"] - 1) / p["n"] / 1e9
        print("| %d | %d | %d | %.3f | %s | %.3f | %s%s | %.2f | %.2f |" % (
            p["n"], p["nodes"], p["floats"], p["meas"], p["algo"], p["sim"], pct(p["err"]),
            " (outlier)" if p["outlier"] else "", bus(p["meas"]), bus(p["sim"])))

    print("\n### DeepBench all-reduce, MAPE\n")
    print("Outliers (16.8M floats at 16 and 32 ranks, named in the data README) excluded "
          "unless said. Signed mean error in brackets (negative: dtsim too fast).\n")
    devices = sorted({p["device"] for p in points})
    classes = [name for _, name in SIZE_CLASS]
    print("| device | points | " + " | ".join(classes) + " | one node | several nodes | all | all, with outliers |")
    print("|---|---:|" + "---:|" * (len(classes) + 4))

    def cell(ps):
        if not ps:
            return "-"
        return "%.1f%% [%s] (%d)" % (mape([p["err"] for p in ps]),
                                     pct(sum(p["err"] for p in ps) / len(ps)), len(ps))

    for d in devices + ["all GPUs"]:
        ps_all = [p for p in points if d == "all GPUs" or p["device"] == d]
        ps = [p for p in ps_all if not p["outlier"]]
        print("| %s | %d | %s | %s | %s | %s | %s |" % (
            d, len(ps), " | ".join(cell([p for p in ps if size_class(p["floats"]) == c])
                                   for c in classes),
            cell([p for p in ps if p["nodes"] == 1]), cell([p for p in ps if p["nodes"] > 1]),
            cell(ps), cell(ps_all)))
    print()


# --- TensorFlow benchmarks -----------------------------------------------------

MODELS = {"InceptionV3": "inception3", "ResNet-50": "resnet50", "ResNet-152": "resnet152",
          "AlexNet": "alexnet", "VGG16": "vgg16"}


FRAMEWORK = ["--framework", "generic"]
PS_PUSH = []


def run_tput(build, platform, model, batch, n, cost, *extra):
    out = dtsim(build, "run", "-p", platform, "-w", MODELS[model], "-b", str(batch), "-n", str(n),
                "--cost-model", cost, "--format", "json", "--quiet",
                # measured runs: predict them whatever dtsim's memory estimate says
                "--allow-oversubscribe-memory", *FRAMEWORK,
                # the ring these parts were measured with (the default until
                # 2026-12-06, part 23); a --collective in EXTRA replaces it
                "--collective", "ring", *extra)
    d = json.loads(out)
    return d["throughput_samples_per_s"], d


def tf(build, cost_models):
    rows = [r for r in read_csv(os.path.join(shared_dir(), "tf_benchmarks_2017_images_per_sec.csv"))
            if r["data"] == "synthetic" and r["images_per_sec"] not in ("", "N/A")]
    systems = [("NVIDIA DGX-1", "dgx1-p100"), ("AWS p2.8xlarge", "aws-p2-8xlarge")]
    summary = []
    for system, platform in systems:
        sel = [r for r in rows if r["platform"] == system]
        for cost in cost_models:
            print("### %s (synthetic data) on `%s`, cost model `%s`\n" % (system, platform, cost))
            print("`dtsim run -p %s -w MODEL -b BATCH -n N --cost-model %s --collective ring` "
                  "(fp32, defaults otherwise: 25 MB buckets, overlap)\n" % (platform, cost))
            print("| model | batch/GPU | TF variable update | GPUs | measured img/s | simulated img/s | error | measured speed-up | simulated speed-up |")
            print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
            errs, scale_errs = [], []
            base = {}
            for r in sorted(sel, key=lambda r: (r["model"], -int(r["batch_per_gpu"]),
                                                 int(r["n_gpus"]))):
                n, b = int(r["n_gpus"]), int(r["batch_per_gpu"])
                meas = float(r["images_per_sec"])
                s, _ = run_tput(build, platform, r["model"], b, n, cost)
                key = (r["model"], b)
                if n == 1:
                    base[key] = (meas, s)
                e = (s - meas) / meas
                errs.append(e)
                su = ""
                if key in base:
                    ms, ss = meas / base[key][0], s / base[key][1]
                    su = "| %.2f | %.2f" % (ms, ss)
                    if n > 1:
                        scale_errs.append((ss - ms) / ms)
                else:
                    su = "| - | -"
                print("| %s | %d | %s | %d | %g | %.1f | %s %s |" % (
                    r["model"], b, r["variable_update"], n, meas, s, pct(e), su))
            print("\nMAPE of images/s: %.1f%% over %d points; MAPE of the speed-up over 1 GPU: "
                  "%.1f%% over %d points (n > 1).\n" % (mape(errs), len(errs), mape(scale_errs),
                                                        len(scale_errs)))
            summary.append((system, cost, mape(errs), len(errs), mape(scale_errs),
                            len(scale_errs)))

    tf_ps(build, cost_models[0], rows)
    print("### Summary\n")
    print("| system | cost model | MAPE img/s | points | MAPE speed-up | points |")
    print("|---|---|---:|---:|---:|---:|")
    for s in summary:
        print("| %s | %s | %.1f%% | %d | %.1f%% | %d |" % s)
    print()


def tf_ps(build, cost, rows=None):
    """The AWS p2.8xlarge cluster rows: parameter servers (without and with
    per-node aggregation) against the ring."""
    if rows is None:
        rows = [r for r in read_csv(os.path.join(shared_dir(),
                                                 "tf_benchmarks_2017_images_per_sec.csv"))
                if r["data"] == "synthetic" and r["images_per_sec"] not in ("", "N/A")]
    cluster = [r for r in rows if r["platform"].startswith("AWS p2.8xlarge cluster")]
    if not cluster:
        return
    print("### AWS p2.8xlarge cluster, 8-64 K80: parameter servers\n")
    print("TensorFlow ran `%s`. `dtsim run -p aws-p2-8xlarge-x8 -w MODEL -b BATCH -n N "
          "--cost-model %s --collective ps --ps-aggregation none|node` (one server per "
          "instance, on its first GPU; 10 Gb/s per instance assumed; `none` runs "
          "`--strategy sync-ps`, whose former spelling it is: every GPU pushes its whole "
          "gradient after the backward pass, the servers update; `node`: the GPUs of an "
          "instance sum by a local ring, its first GPU pushes and pulls, then sends the sum to "
          "the others), next to the plain ring (`--collective ring`). "
          "Speed-ups are over the same configuration at 1 GPU and at 8 GPUs (one instance).\n"
          % (cluster[0]["variable_update"], cost))
    print("| model | batch/GPU | GPUs | measured img/s | ps img/s | ps error | ps node img/s | "
          "ps node error | ring img/s | measured speed-up /1 | ps /1 | ps node /1 | ring /1 | "
          "measured /8 | ps /8 | ps node /8 | ring /8 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    variants = ("ps", "node", "ring")
    errs = {v: [] for v in variants}
    su = {(lo, v): [] for lo in (1, 8) for v in variants}
    base = {1: {}, 8: {}}
    for r in sorted(cluster, key=lambda r: (r["model"], -int(r["batch_per_gpu"]),
                                             int(r["n_gpus"]))):
        n, b = int(r["n_gpus"]), int(r["batch_per_gpu"])
        meas = float(r["images_per_sec"])
        sim = {
            "ps": run_tput(build, "aws-p2-8xlarge-x8", r["model"], b, n, cost, "--collective",
                           "ps", "--ps-aggregation", "none", *PS_PUSH)[0],
            "node": run_tput(build, "aws-p2-8xlarge-x8", r["model"], b, n, cost,
                             "--collective", "ps", "--ps-aggregation", "node")[0],
            "ring": run_tput(build, "aws-p2-8xlarge-x8", r["model"], b, n, cost)[0],
        }
        key = (r["model"], b)
        for lo in (1, 8):
            if n == lo:
                base[lo][key] = dict(sim, meas=meas)
        for v in variants:
            errs[v].append((sim[v] - meas) / meas)
        cells = []
        for lo in (1, 8):
            if key not in base[lo]:
                cells.append("- | - | - | -")
                continue
            m = meas / base[lo][key]["meas"]
            ratio = {v: sim[v] / base[lo][key][v] for v in variants}
            if n > lo:
                for v in variants:
                    su[(lo, v)].append((ratio[v] - m) / m)
            cells.append("%.2f | %.2f | %.2f | %.2f" % (m, ratio["ps"], ratio["node"],
                                                        ratio["ring"]))
        print("| %s | %d | %d | %g | %.1f | %s | %.1f | %s | %.1f | %s |" % (
            r["model"], b, n, meas, sim["ps"], pct(errs["ps"][-1]), sim["node"],
            pct(errs["node"][-1]), sim["ring"], " | ".join(cells)))
    print("\nMAPE of images/s: ps %.1f%%, ps node %.1f%%, ring %.1f%% over %d points. "
          "MAPE of the speed-up over 1 GPU: ps %.1f%%, ps node %.1f%%, ring %.1f%% over %d "
          "points; over 8 GPUs: ps %.1f%%, ps node %.1f%%, ring %.1f%% over %d points.\n" % (
              mape(errs["ps"]), mape(errs["node"]), mape(errs["ring"]), len(errs["ps"]),
              mape(su[(1, "ps")]), mape(su[(1, "node")]), mape(su[(1, "ring")]),
              len(su[(1, "ps")]),
              mape(su[(8, "ps")]), mape(su[(8, "node")]), mape(su[(8, "ring")]),
              len(su[(8, "ps")])))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    cost_models = ["roofline", "mlp"]
    for a in sys.argv[1:]:
        if a.startswith("--cost-models="):
            cost_models = a.split("=", 1)[1].split(",")
        elif a.startswith("--framework="):
            FRAMEWORK[:] = ["--framework", a.split("=", 1)[1]]
        elif a.startswith("--ps-push="):
            PS_PUSH[:] = ["--ps-push", a.split("=", 1)[1]]
    if not args:
        sys.exit(__doc__.strip().splitlines()[2])
    build, what = args[0], (args[1] if len(args) > 1 else "all")
    if what in ("deepbench", "all"):
        deepbench(build)
    if what in ("tf", "all"):
        tf(build, cost_models)
    if what == "ps":
        for cost in cost_models:
            tf_ps(build, cost)


if __name__ == "__main__":
    main()
