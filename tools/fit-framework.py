#!/usr/bin/env python3
"""Fit the efficiencies of a framework profile on the FIT rows only.

usage: tools/fit-framework.py BUILD_DIR BASE_PROFILE [--table v1] [KEY ...]
       tools/fit-framework.py BUILD_DIR BASE_PROFILE [--table v1] --scaling [KEY]
       tools/fit-framework.py BUILD_DIR BASE_PROFILE --tf2017 [--scaling [KEY]]
       tools/fit-framework.py BUILD_DIR BASE_PROFILE --convnet
       tools/fit-framework.py BUILD_DIR BASE_PROFILE --vtrain-single [--tp-overlap MODE]
       tools/fit-framework.py BUILD_DIR BASE_PROFILE --deepbench-1x1 [DEVICE=GPU]

Minimises the mean absolute percentage error of `dtsim run` images/s on the
1-GPU rows of the FIT set of tools/validate-compute.py (Lambda's 2022 table,
ResNet-50, V100 SXM2 and A100 SXM4) over the profile keys named (default:
compute-efficiency-fp32, -tf32, -fp16 and memory-efficiency), starting from
BASE_PROFILE (a file), by coordinate search on a grid of 0.01.  The REPORT
rows are never read.  Prints the fitted keys and the FIT MAPE; exits 77
without the shared data.

--scaling fits KEY (default gpu-speed-spread) alone, on a grid of 0.0025
over [0, 0.2], minimising the MAPE of the speed-up from 1 to n GPUs
(throughput at n over throughput at 1 of the same GPU, precision and batch,
against the measured ratio) over the multi-GPU FIT rows; 1-GPU rows are the
bases only.

--table v1 fits on the FIT rows of the newer table instead (lambda-v1: the
A100 PCIe 40 and 80 GB rows, 1 and 2 GPUs; frameworks/pytorch-ngc22.conf);
its REPORT rows (V100 SXM2, A100 SXM4) are never read.

--gpus ID,... fits on the FIT rows of the PCIe cards of that table instead
(lambda-v0-other: RTX A6000, GA102; Quadro RTX 8000, TU102), those of the
GPUs named; frameworks/pytorch.conf's -ga102 and -tu102 keys.
Without it, those rows are never read.

--grid starts the coordinate search from the best point of a 0.1 grid over
(0, 1] of every key named (10^k evaluations: for k <= 3 keys).

--workloads resnet50,ssd300 fits on the SSD300 rows of the same GPUs too
(with --table v1: the A100 PCIe rows of lambda-v1-ssd; the 2022 table has
no usable SSD rows): two workloads of different compute and memory mix,
which tell a compute efficiency from a memory one (default: ResNet-50 only,
as the fits before it were made).

--tf2017 --scaling fits gpu-speed-spread as --scaling does, on the
multi-GPU FIT rows of the TensorFlow 2017 set (the p2.8xlarge ResNet-50
rows at 2, 4 and 8 GPUs over their 1-GPU rows).

--tf2017 fits frameworks/tensorflow1.conf on the FIT rows of the TensorFlow
2017 set only, in two stages: (1) compute-efficiency-fp32,
memory-efficiency and winograd-3x3 (not when BASE_PROFILE says
winograd-convolution = yes: Winograd is then priced per layer), for each
tile of 64, 128 and 256 (with wave-quantisation), on the 9 1-GPU DGX-1
(P100) rows, by coordinate search;
(2) memory-efficiency-kepler alone on the 1-GPU p2.8xlarge ResNet-50 rows,
with compute-efficiency-fp32-kepler tied to compute-efficiency-fp32 x
562/875 (the K80's base over its boost clock, from NVIDIA's board
specification; not fitted).  The REPORT rows are never read.

--deepbench-1x1 measures compute-efficiency-1x1 and -1x1-wgrad on the
DeepBench kernel data (kernels/deepbench_conv.csv, training rows, fp32):
the 1x1 convolutions of DEVICE (default 'Nvidia TitanX', priced against the
catalogue GPU TitanX-Maxwell) whose output has at least 25,000 pixels over
the batch (N x OH x OW; smaller ones lose their last wave, which the
profile's wave-quantisation prices apart), FLOP/s over the catalogue's fp32
peak per pass, the median per pass: forward and backward-data together
(their mean), weight gradient alone.  No whole-network row is read.

--vtrain-single fits frameworks/megatron.conf on the FIT rows of vTrain's
single-node set only (bench/validate-llm.py --set=vtrain-single --part=fit:
the 720 Megatron-DeepSpeed rows of 12- and 20-layer GPTs on 2-8 A100):
compute-efficiency-fp16 (with compute-efficiency-bf16 tied to it) and
host-overhead, from the generic 0.70 and the best of 0-150 us by 30, by
coordinate search (0.08 down to 0.01; 16 us down to 1 us) on the MAPE of
the iteration time.  The 16- and 24-layer REPORT rows are never read.
Each row runs as bench/validate-llm.py runs it (vTrain's model of the
runs: unfused attention, the gradients all-reduced after the backward
pass).  Each evaluation runs 720 simulations (about a minute on two
cores).
--tp-overlap MODE runs the rows with TP > 1 under `dtsim run --tp-overlap`
as bench/validate-llm.py's option of that name does (none, the default:
every tensor-parallel collective blocking; backward or as-run: a column
layer's backward collectives beside its GEMMs, as Megatron-DeepSpeed ran
them).

--convnet fits frameworks/torch7-cudnn4.conf on the FIT rows of the
convnet-benchmarks set only, the VGG-A pair (cuDNN R4 fp32 and fp16 under
Torch7 on the Maxwell Titan X, all 3x3 convolutions): compute-efficiency-fp32
and memory-efficiency by coordinate search on the MAPE of forward+backward
time, with compute-efficiency-fp16-maxwell tied to compute-efficiency-fp32
(cuDNN's fp16 on GM200 stores fp16 and computes in fp32: the same
arithmetic, half the bytes).  AlexNet OWT, OverFeat fast and GoogLeNet V1
(REPORT rows) are never read.
"""
import atexit
import json
import importlib.util
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("vc", os.path.join(HERE, "validate-compute.py"))
vc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vc)


def read_profile(path):
    keys, order = {}, []
    for line in open(path):
        body = line.split("#", 1)[0].strip()
        if "=" in body:
            k, v = (x.strip() for x in body.split("=", 1))
            keys[k] = v
            order.append(k)
    return keys, order


def write_profile(path, keys, order):
    with open(path, "w") as f:
        for k in order:
            f.write("%s = %s\n" % (k, keys[k]))


LAMBDA_SET = ["lambda-v0"]


def descend_grid(point, schedule, loss, allowed):
    """Coordinate descent on a grid: for each STEPS in SCHEDULE (a dict from
    name to step, in the order the names are tried), move each POINT[name]
    (an integer) by +-STEPS[name], keeping a move while loss() (which reads
    POINT) falls and allowed(name, value) holds, until no move helps;
    returns the last loss."""
    best = loss()
    for steps in schedule:
        improved = True
        while improved:
            improved = False
            for n, step in steps.items():
                for sgn in (1, -1):
                    old = point[n]
                    if not allowed(n, old + sgn * step):
                        continue
                    point[n] = old + sgn * step
                    l = loss()
                    if l < best - 1e-9:
                        best, improved = l, True
                    else:
                        point[n] = old
    return best


def descend(keys, names, loss, allowed=lambda name, x: 0 < x <= 1):
    """descend_grid over KEYS[NAMES] (strings with two decimals), by +-0.08,
    then 0.04, 0.02 and 0.01; allowed(name, value) sees the value itself."""
    point = {n: round(float(keys[n]) * 100) for n in names}

    def put():
        for n in names:
            keys[n] = "%.2f" % (point[n] / 100)
    best = descend_grid(point, [dict.fromkeys(names, s) for s in (8, 4, 2, 1)],
                        lambda: (put(), loss())[1], lambda n, x: allowed(n, x / 100))
    put()  # KEYS hold the best point again
    return best


def setup(build, base, defaults, sets):
    """BASE's keys and their order, with DEFAULTS ((name, value) pairs) added
    where the profile lacks them; the temporary profile file each loss
    evaluation rewrites; the dtsim runner; and the data sets SETS mapped to
    that file."""
    keys, order = read_profile(base)
    for k, v in defaults:
        if k not in keys:
            keys[k] = v
            order.append(k)
    tmpdir = tempfile.mkdtemp(prefix="dtsim-fit-")
    atexit.register(shutil.rmtree, tmpdir, True)
    tmp = os.path.join(tmpdir, "fit.conf")
    return keys, order, tmp, vc.Dtsim(build, []), dict((name, tmp) for name in sets)


def fit_rows():
    """The FIT rows of LAMBDA_SET[0]'s table of the workloads WORKLOADS
    (default ResNet-50): of the V100/A100 GPUs, or of those in GPUS (the
    PCIe cards, --gpus)."""
    table = LAMBDA_SET[0]
    others = set(g for t in vc.LAMBDA_OTHER_GPUS.values() for g in t.values())
    return [r for r in vc.lambda_rows(vc.shared_dir(), False) if r["split"] == "fit"
            and r["set"].startswith(table) and r["workload"] in WORKLOADS
            and (r["gpu"] in GPUS if GPUS else r["gpu"] not in others)]


GPUS = []
WORKLOADS = ["resnet50"]
GRID = [False]


def fit_scaling(build, base, key, tf2017=False):
    if tf2017:
        rows = [r for r in vc.tf_rows(vc.shared_dir(), False) if r["split"] == "fit"]
        label = "tf2017"
        keys, order, tmp, d, fws = setup(build, base, [(key, "0")], ["tf2017"])
    else:
        rows = fit_rows()
        label = LAMBDA_SET[0]
        keys, order, tmp, d, fws = setup(build, base, [(key, "0")], ["lambda", "lambda-v1"])
    def base_key(r):
        return (r["gpu"], r["workload"], r["precision"], r["batch"])

    bases = dict((base_key(r), r) for r in rows if r["n"] == 1)
    pairs = [(r, bases[base_key(r)]) for r in rows if r["n"] > 1 and base_key(r) in bases]

    def loss(x):
        keys[key] = "%.4f" % x
        write_profile(tmp, keys, order)
        errs = []
        for r, b in pairs:
            pr, _ = vc.predict(d, r, fws)
            pb, _ = vc.predict(d, b, fws)
            errs.append((pr / pb) / (r["measured"] / b["measured"]) - 1)
        return 100 * sum(abs(e) for e in errs) / len(errs), 100 * sum(errs) / len(errs)

    grid = [i * 0.0025 for i in range(81)]
    results = [(loss(x), x) for x in grid]
    (best, bias), x = min(results)
    (m0, b0), _ = results[0]
    print("%s = %.4f" % (key, x))
    print("# FIT scaling MAPE (%s, %d multi-GPU rows): %.2f%% (bias %+.2f%%), "
          "%.2f%% (bias %+.2f%%) at 0" % (label, len(pairs), best, bias, m0, b0))


KEPLER_CLOCK = 562.0 / 875.0  # K80 base / boost clock (BD-07317-001)


def fit_tf2017(build, base):
    rows = [r for r in vc.tf_rows(vc.shared_dir(), True) if r["split"] == "fit"]
    p100 = [r for r in rows if r["gpu"] != "K80"]
    k80 = [r for r in rows if r["gpu"] == "K80"]
    # With winograd-convolution = yes in BASE, Winograd is priced per layer
    # and its flat factor winograd-3x3 is neither set nor fitted.
    per_layer = read_profile(base)[0].get("winograd-convolution") == "yes"
    defaults = (("compute-efficiency-fp32", "0.90"), ("memory-efficiency", "0.50"),
                ("winograd-3x3", "2.25"), ("wave-quantisation", "yes"), ("tile", "128"),
                ("compute-efficiency-fp32-kepler", "0.578"), ("memory-efficiency-kepler", "0.30"))
    if per_layer:
        defaults = tuple(kv for kv in defaults if kv[0] != "winograd-3x3")
    keys, order, tmp, d, fws = setup(build, base, defaults, ["tf2017"])

    def loss(rs):
        keys["compute-efficiency-fp32-kepler"] = "%.3f" % (
            float(keys["compute-efficiency-fp32"]) * KEPLER_CLOCK)
        write_profile(tmp, keys, order)
        errs = [vc.predict(d, r, fws)[0] / r["measured"] - 1 for r in rs]
        return 100 * sum(abs(e) for e in errs) / len(errs), 100 * sum(errs) / len(errs)

    ranges = {"compute-efficiency-fp32": (0.01, 1.0), "memory-efficiency": (0.01, 1.0),
              "winograd-3x3": (1.0, 4.0), "memory-efficiency-kepler": (0.01, 1.0)}

    def search(names, rs):
        return descend(keys, names, lambda: loss(rs)[0],
                       lambda n, x: ranges[n][0] <= x <= ranges[n][1])

    stage1 = ["compute-efficiency-fp32", "memory-efficiency"] + ([] if per_layer else
                                                                 ["winograd-3x3"])
    start = dict(keys)
    results = []
    for tile in ("64", "128", "256"):
        keys.update(start)
        keys["tile"] = tile
        results.append((search(stage1, p100), tile, dict(keys)))
    best, tile, fitted = min(results)
    keys.update(fitted)
    m1 = search(["memory-efficiency-kepler"], k80)
    for l, t, _ in results:
        print("# tile %s: FIT MAPE %.2f%% over the 1-GPU DGX-1 rows" % (t, l))
    for n in stage1 + ["tile", "compute-efficiency-fp32-kepler", "memory-efficiency-kepler"]:
        print("%s = %s" % (n, keys[n]))
    mp, bp = loss(p100)
    mk, bk = loss(k80)
    print("# FIT MAPE: %.2f%% (bias %+.2f%%) over the %d 1-GPU DGX-1 rows, %.2f%% (bias %+.2f%%) "
          "over the %d 1-GPU p2.8xlarge ResNet-50 rows" % (mp, bp, len(p100), mk, bk, len(k80)))
    assert abs(m1 - mk) < 1e-9


def fit_convnet(build, base):
    rows = [r for r in vc.convnet_rows(vc.shared_dir()) if r["split"] == "fit"]
    defaults = (("compute-efficiency-fp32", "0.70"), ("compute-efficiency-fp16-maxwell", "0.70"),
                ("memory-efficiency", "0.80"))
    keys, order, tmp, d, fws = setup(build, base, defaults, ["convnet"])

    def loss():
        keys["compute-efficiency-fp16-maxwell"] = keys["compute-efficiency-fp32"]
        write_profile(tmp, keys, order)
        errs = [r["measured"] / vc.predict(d, r, fws)[0] - 1 for r in rows]
        return 100 * sum(abs(e) for e in errs) / len(errs), 100 * sum(errs) / len(errs), errs

    names = ["compute-efficiency-fp32", "memory-efficiency"]
    descend(keys, names, lambda: loss()[0])
    m, b, errs = loss()
    for n in names + ["compute-efficiency-fp16-maxwell"]:
        print("%s = %s" % (n, keys[n]))
    print("# FIT MAPE (convnet VGG-A, %d rows): %.2f%% (bias %+.2f%%; %s)" % (
        len(rows), m, b, ", ".join("%s %+.1f%%" % (r["precision"], 100 * e)
                                   for r, e in zip(rows, errs))))


def fit_deepbench_1x1(build, base, device):
    """Medians of the 1x1 convolutions' share of peak on DEVICE=GPU."""
    import statistics
    name, _, gpu = device.partition("=")
    vdir = vc.shared_dir()
    path = os.path.join(os.path.dirname(vdir), "kernels", "deepbench_conv.csv")
    d = vc.Dtsim(build, [])
    info = json.loads(d.call("info", "--format", "json", d.platform(gpu)))
    peak = info["gpus"][0]["peak_fp32_flop_per_s"]
    shares = {"fwd_ms": [], "bwd_data_ms": [], "bwd_filter_ms": []}
    for r in vc.read_csv(path):
        if (r["device"] != name or r["mode"] != "train" or r["precision"] != "Float"
                or (r["filter_w"], r["filter_h"]) != ("1", "1")):
            continue
        n, c, k = int(r["N"]), int(r["C"]), int(r["K"])
        pixels = n * int(r["out_w"]) * int(r["out_h"])
        if pixels < 25000:
            continue
        flops = 2.0 * n * k * c * int(r["out_w"]) * int(r["out_h"])
        for col in shares:
            if r[col]:
                shares[col].append(flops / (float(r[col]) * 1e-3) / peak)
    med = dict((c, statistics.median(v)) for c, v in shares.items())
    print("compute-efficiency-1x1 = %.2f" % ((med["fwd_ms"] + med["bwd_data_ms"]) / 2))
    print("compute-efficiency-1x1-wgrad = %.2f" % med["bwd_filter_ms"])
    print("# %s (%s, %.3g FLOP/s fp32): %d 1x1 shapes; medians forward %.3f, backward-data %.3f, "
          "weight gradient %.3f" % (name, gpu, peak, len(shares["fwd_ms"]), med["fwd_ms"],
                                    med["bwd_data_ms"], med["bwd_filter_ms"]))


def fit_vtrain_single(build, base, overlap="none"):
    """--vtrain-single: compute-efficiency-fp16 (bf16 tied to it) and
    host-overhead on the FIT rows of vTrain's single-node set."""
    spec = importlib.util.spec_from_file_location(
        "vl", os.path.join(HERE, "..", "bench", "validate-llm.py"))
    vl = importlib.util.module_from_spec(spec)
    sys.modules["vl"] = vl  # its workers' job is pickled by module name
    spec.loader.exec_module(vl)
    shared = os.environ.get("DTSIM_SHARED", os.path.join(HERE, "..", "..", "shared"))
    rows = vl.vtrain_single_rows(shared, "fit")  # exits 77 without the data
    measured = [float(r["iteration time (ms)"]) / 1e3 for r in rows]
    keys, order, tmp, _, _ = setup(build, base, [("compute-efficiency-fp16", "0.70"),
                                                 ("compute-efficiency-bf16", "0.70"),
                                                 ("host-overhead", "0us")], [])
    vl.EXTRA[:] = ["--collective", "nccl", "--framework", tmp]
    vl.TP_OVERLAP[0] = overlap
    env = dict(os.environ, DTSIM_DATADIR=os.environ.get("DTSIM_DATADIR",
                                                        os.path.join(HERE, "..")))
    # the two fitted values: efficiency in hundredths, host time in us
    point = {"compute-efficiency-fp16": 70, "host-overhead": 0}
    cache = {}

    def loss():
        at = (point["compute-efficiency-fp16"], point["host-overhead"])
        if at not in cache:
            for k in ("compute-efficiency-fp16", "compute-efficiency-bf16"):
                keys[k] = "%.2f" % (at[0] / 100)
            keys["host-overhead"] = "%dus" % at[1]
            write_profile(tmp, keys, order)
            pred = vl.vtrain_single_run(build, env, os.path.dirname(tmp), rows)
            cache[at] = 100 * sum(abs(p / m - 1) for (p, _), m in zip(pred, measured)) / len(rows)
            print("# efficiency %.2f, host %d us: FIT MAPE %.2f%%"
                  % (at[0] / 100, at[1], cache[at]), file=sys.stderr)
        return cache[at]

    # a coarse start for the host time (with none the loss is flat in it),
    # then coordinate descent over both
    best_host = min(range(0, 151, 30),
                    key=lambda h: (point.update({"host-overhead": h}), loss())[1])
    point["host-overhead"] = best_host
    bounds = {"compute-efficiency-fp16": (1, 100), "host-overhead": (0, 1000)}
    best = descend_grid(point, [{"compute-efficiency-fp16": e, "host-overhead": h}
                                for e, h in ((8, 16), (4, 8), (2, 4), (1, 2), (1, 1))],
                        loss, lambda n, x: bounds[n][0] <= x <= bounds[n][1])
    eff = "%.2f" % (point["compute-efficiency-fp16"] / 100)
    print("compute-efficiency-fp16 = %s" % eff)
    print("compute-efficiency-bf16 = %s" % eff)
    print("host-overhead = %dus" % point["host-overhead"])
    print("# FIT MAPE (vTrain's single-node FIT rows, %d): %.2f%%" % (len(rows), best))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build, base = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    if "--table" in args:
        i = args.index("--table")
        if args[i + 1:i + 2] != ["v1"]:
            sys.exit("--table: expected v1")
        LAMBDA_SET[0] = "lambda-v1"
        del args[i:i + 2]
    if "--gpus" in args:
        i = args.index("--gpus")
        GPUS.extend(g for g in ",".join(args[i + 1:i + 2]).split(",") if g)
        if not GPUS:
            sys.exit("--gpus: expected a comma-separated list of catalogue ids")
        del args[i:i + 2]
    if "--grid" in args:
        args.remove("--grid")
        GRID[0] = True
    if "--workloads" in args:
        i = args.index("--workloads")
        WORKLOADS[:] = [w for w in ",".join(args[i + 1:i + 2]).split(",") if w]
        if not WORKLOADS or any(w not in ("resnet50", "ssd300") for w in WORKLOADS):
            sys.exit("--workloads: expected a comma-separated list of resnet50, ssd300")
        del args[i:i + 2]
    if "--tf2017" in args and "--scaling" in args:
        rest = [a for a in args if a not in ("--scaling", "--tf2017")]
        return fit_scaling(build, base, rest[0] if rest else "gpu-speed-spread", tf2017=True)
    if "--tf2017" in args:
        return fit_tf2017(build, base)
    if "--convnet" in args:
        return fit_convnet(build, base)
    if "--vtrain-single" in args:
        overlap = "none"
        if "--tp-overlap" in args:
            i = args.index("--tp-overlap")
            overlap = (args[i + 1:i + 2] or [""])[0]
            if overlap not in ("none", "backward", "all", "as-run"):
                sys.exit("--tp-overlap: expected none, backward, all or as-run")
        return fit_vtrain_single(build, base, overlap)
    if "--deepbench-1x1" in args:
        i = args.index("--deepbench-1x1")
        dev = args[i + 1] if i + 1 < len(args) else "Nvidia TitanX=TitanX-Maxwell"
        if "=" not in dev:
            sys.exit("--deepbench-1x1: expected DEVICE=GPU (a DeepBench device, a catalogue id)")
        return fit_deepbench_1x1(build, base, dev)
    if "--scaling" in args:
        rest = [a for a in args if a != "--scaling"]
        return fit_scaling(build, base, rest[0] if rest else "gpu-speed-spread")
    names = args or ["compute-efficiency-fp32", "compute-efficiency-tf32",
                             "compute-efficiency-fp16-volta", "compute-efficiency-fp16-ampere"]
    rows = [r for r in fit_rows() if r["n"] == 1]
    keys, order, tmp, d, fws = setup(build, base, [(n, "0.70") for n in names],
                                     ["lambda", "lambda-v1"])

    def loss():
        write_profile(tmp, keys, order)
        errs = []
        for r in rows:
            p, _ = vc.predict(d, r, fws)
            errs.append(abs(p / r["measured"] - 1))
        return 100 * sum(errs) / len(errs)

    if GRID[0]:
        # start the descent from the best point of a 0.1 grid over (0, 1]
        # of every key named (descent alone stops in the first valley)
        import itertools
        start, low = None, None
        for point in itertools.product(*[[i / 10 for i in range(1, 11)]] * len(names)):
            for n, x in zip(names, point):
                keys[n] = "%.2f" % x
            l = loss()
            if low is None or l < low:
                start, low = point, l
        for n, x in zip(names, start):
            keys[n] = "%.2f" % x
        print("# grid start: %s (FIT MAPE %.2f%%)" % (
            ", ".join("%s %.1f" % nx for nx in zip(names, start)), low))
    best = descend(keys, names, loss)
    for n in names:
        print("%s = %s" % (n, keys[n]))
    print("# FIT MAPE (1-GPU rows of %s, %s, %d rows): %.2f%%" % (
        LAMBDA_SET[0] + (" -other " + ",".join(GPUS) if GPUS else ""), "+".join(WORKLOADS),
        len(rows), best))


if __name__ == "__main__":
    main()
