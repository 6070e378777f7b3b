#!/usr/bin/env python3
"""fit-gemm.py - fit and check the GEMM kernel model of src/cost/gemm.c on
Vidur's measured forward GEMM times (A100, A40, H100, fp16).

    bench/fit-gemm.py [--rows]

Reads ../shared/data/kernels/llm/vidur_op_times_median_ms.csv and
ml_engineering_mamf.csv (DTSIM_SHARED, default ../shared beside the source
tree; exit 77 without them) and the GPU catalogue platforms/gpus.xml. Each
row of Vidur's table gives four GEMMs of one tensor-parallel shard, M =
num_tokens rows, with d = n_embd / n_head, T = num_tensor_parallel_workers:

    attn_pre_proj   (fused QKV)  N = (n_head + 2 n_kv_head) d / T   K = n_embd
    attn_post_proj               N = n_embd                         K = n_head d / T
    mlp_up_proj                  N = n_expanded_embd (x2 gated) / T K = n_embd
    mlp_down_proj                N = n_embd                         K = n_expanded_embd / T

The model (gemm.c's header states it) has three free constants per
architecture family, fitted by a coordinate search minimising the MAPE of
the FIT models' rows of one GPU of the family: the share of the GPU's
matmul ceiling that full waves reach, the share of peak bandwidth, and a
fixed time per kernel. Ampere is fitted on the A100 alone; the A40 (GA102,
not in the MAMF table: its ceiling is a stated share of its peak) is
predicted with the Ampere constants, nothing fitted on it, as a GPU without
measurements would be. Hopper is fitted on the H100. The split is by model, so that no model is both fitted on and
reported: FIT are the models of FIT_MODELS below, every other model is
HELD-OUT. Models share some shapes (every 8192-wide model has the same
attention output projection), so the table also reports the held-out rows
whose (M, N, K) is in no FIT row of the same GPU. The cross-generation check
predicts the H100's rows with the Ampere constants (no Hopper data).

Prints the constants, rounded to 4 significant digits as gemm.c compiles
them in, and a Markdown table of MAPE and signed bias (positive: the model
is too slow) computed with the rounded constants, and for reference that of
--cost-model roofline's time for the same GEMMs. --rows prints a few rows'
shapes and predicted times, which tests/unit/test-gemm.c checks the C code
against. Not a test.
"""
import csv
import math
import os
import sys
import xml.etree.ElementTree as ET

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Vidur's GPU names -> catalogue ids (Vidur documents the 80 GB A100 and H100).
VIDUR_GPUS = {"a100": "A100-SXM4-80GB", "a40": "A40", "h100": "H100-SXM5-80GB"}
FAMILY = {"Ampere": ["a100"], "Hopper": ["h100"]}
FIT_MODELS = {"meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-70b-hf",
              "meta-llama/Meta-Llama-3-70B", "internlm/internlm-20b"}

# Catalogue ids -> the accelerator of ml_engineering_mamf.csv measured for
# them (gemm.c's table; the CSV notes that the H200 measures as the H100).
MAMF_NAMES = {"A100-SXM4-40GB": "NVIDIA A100 SXM", "A100-SXM4-80GB": "NVIDIA A100 SXM",
              "A100-PCIE-40GB": "NVIDIA A100 PCIe", "A100-PCIE-80GB": "NVIDIA A100 PCIe",
              "H100-SXM5-80GB": "NVIDIA H100 SXM", "H200-SXM-141GB": "NVIDIA H100 SXM"}

# The model's fixed constants (gemm.c).
TILE = 128            # thread-block tile edge, rows and columns
SPLIT_K_MIN = 256     # least K a split-K slice keeps
UNLISTED_SHARE = 0.80 # ceiling of a GPU not in the MAMF table, share of peak
ELEM_BYTES = 2        # fp16


def shared_dir():
    return os.environ.get("DTSIM_SHARED", os.path.join(SRC, "..", "shared"))


def read_csv(path):
    if not os.path.exists(path):
        print("fit-gemm.py: no %s (set DTSIM_SHARED)" % path, file=sys.stderr)
        sys.exit(77)
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def parse_unit(text):
    if text == "0":
        return 0.0
    scale = {"TFLOPS": 1e12, "TB/s": 1e12, "GB/s": 1e9}
    for suffix, s in scale.items():
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * s
    raise ValueError("unknown unit in %r" % text)


def catalogue():
    gpus = {}
    for g in ET.parse(os.path.join(SRC, "platforms", "gpus.xml")).getroot().iter("gpu"):
        gpus[g.get("id")] = {"arch": g.get("arch"), "fp16": parse_unit(g.get("fp16")),
                             "bf16": parse_unit(g.get("bf16")),
                             "bw": parse_unit(g.get("mem-bw")), "sm": int(g.get("sm"))}
    return gpus


def ceiling(gpu_id, spec, mamf):
    name = MAMF_NAMES.get(gpu_id)
    if name is not None:
        return spec["fp16"] * (mamf[name] * 1e12 / spec["bf16"])
    return UNLISTED_SHARE * spec["fp16"]


def pow2_tile(x):
    return min(TILE, max(16, 2 ** math.ceil(math.log2(x))))


def wave_eff(m, n, k, sms):
    """gemm.c's dts_gemm_wave_efficiency."""
    tm, tn = pow2_tile(m), pow2_tile(n)
    tiles = math.ceil(m / tm) * math.ceil(n / tn)
    split = 1
    if tiles < sms:
        split = max(1, min(sms // tiles, k // SPLIT_K_MIN))
    waves = math.ceil(tiles * split / sms)
    return (m * n * split) / (waves * sms * tm * tn)


def gemm_time(m, n, k, gpu, consts):
    share, mem_share, fixed_s = consts
    tc = 2.0 * m * n * k / (gpu["ceil"] * share * wave_eff(m, n, k, gpu["sm"]))
    tm = (m * k + k * n + m * n) * ELEM_BYTES / (gpu["bw"] * mem_share)
    return max(tc, tm) + fixed_s


def roofline_time(m, n, k, gpu):
    """--cost-model roofline's forward time of a linear layer of this shape
    (generic profile: 70% of the catalogue peak, 80% of the bandwidth, 5 us
    per kernel; weights read as fp32 masters, roofline.c)."""
    tc = 2.0 * m * n * k / (gpu["fp16"] * 0.70)
    tm = ((m * k + m * n) * ELEM_BYTES + k * n * 4.0) / (gpu["bw"] * 0.80)
    return max(tc, tm) + 5e-6


def points(rows):
    out = []
    for r in rows:
        h, nh, nkv = int(r["n_embd"]), int(r["n_head"]), int(r["n_kv_head"])
        f, tp, m = int(r["n_expanded_embd"]), int(r["num_tensor_parallel_workers"]), int(r["num_tokens"])
        gated = r["use_gated_mlp"] == "True"
        d = h // nh
        shapes = {"attn_pre_proj_ms": ((nh + 2 * nkv) * d // tp, h),
                  "attn_post_proj_ms": (h, nh * d // tp),
                  "mlp_up_proj_ms": (f * (2 if gated else 1) // tp, h),
                  "mlp_down_proj_ms": (h, f // tp)}
        for op, (n, k) in shapes.items():
            out.append({"gpu": r["gpu"], "model": r["model"], "op": op[:-3], "m": m, "n": n,
                        "k": k, "s": float(r[op]) * 1e-3})
    return out


def errors(pts, gpus, consts):
    if consts is None:
        return [roofline_time(p["m"], p["n"], p["k"], gpus[p["gpu"]]) / p["s"] - 1 for p in pts]
    return [gemm_time(p["m"], p["n"], p["k"], gpus[p["gpu"]], consts) / p["s"] - 1 for p in pts]


def mape(pts, gpus, consts):
    e = errors(pts, gpus, consts)
    return sum(abs(x) for x in e) / len(e)


def round4(x):
    return float("%.4g" % x)


def fit(pts, gpus):
    """Coordinate search from (0.9, 0.8, 4 us), halving the steps."""
    c = [0.9, 0.8, 4e-6]
    steps = [0.05, 0.05, 1e-6]
    best = mape(pts, gpus, c)
    while steps[0] > 1e-5:
        moved = False
        for i in range(3):
            for sign in (-1, 1):
                t = list(c)
                t[i] += sign * steps[i]
                if t[i] <= 0 or (i < 2 and t[i] > 1):
                    continue
                v = mape(pts, gpus, t)
                if v < best:
                    best, c, moved = v, t, True
        if not moved:
            steps = [s / 2 for s in steps]
    return tuple(round4(x) for x in c)


def line(label, gpu, split, pts, gpus, consts):
    if not pts:
        return
    e = errors(pts, gpus, consts)
    print("| %s | %s | %s | %d | %.1f%% | %+.1f%% |"
          % (label, gpu, split, len(e), 100 * sum(abs(x) for x in e) / len(e),
             100 * sum(e) / len(e)))


def main():
    shared = shared_dir()
    llm = os.path.join(shared, "data", "kernels", "llm")
    rows = read_csv(os.path.join(llm, "vidur_op_times_median_ms.csv"))
    mamf = {r["accelerator"]: float(r["mamf_tflops"])
            for r in read_csv(os.path.join(llm, "ml_engineering_mamf.csv")) if r["dtype"] == "bf16"}
    cat = catalogue()
    gpus = {}
    for v, cid in VIDUR_GPUS.items():
        spec = dict(cat[cid])
        spec["ceil"] = ceiling(cid, spec, mamf)
        gpus[v] = spec
    pts = points(rows)
    fit_pts = [p for p in pts if p["model"] in FIT_MODELS]
    held_pts = [p for p in pts if p["model"] not in FIT_MODELS]

    consts = {fam: fit([p for p in fit_pts if p["gpu"] in members], gpus)
              for fam, members in FAMILY.items()}

    print("ceilings: " + ", ".join("%s %.1f TFLOP/s (%s)" % (VIDUR_GPUS[g], gpus[g]["ceil"] / 1e12,
                                                            "MAMF" if VIDUR_GPUS[g] in MAMF_NAMES
                                                            else "%.2f x peak" % UNLISTED_SHARE)
                                   for g in VIDUR_GPUS))
    print("FIT models: " + ", ".join(sorted(FIT_MODELS)))
    print("HELD-OUT models: " + ", ".join(sorted({p["model"] for p in held_pts})))
    for fam, c in consts.items():
        print("constants %s (fitted on %s): share %.4g, memory share %.4g, fixed %.4g us"
              % (fam, ", ".join(FAMILY[fam]), c[0], c[1], c[2] * 1e6))

    if "--rows" in sys.argv[1:]:
        # one GEMM of a FIT model per GPU and operator, at 4096, 200, 64 and 1 tokens
        want = {"attn_pre_proj": 4096, "attn_post_proj": 200, "mlp_up_proj": 64,
                "mlp_down_proj": 1}
        seen = set()
        for p in fit_pts:
            key = (p["gpu"], p["op"])
            if p["m"] != want[p["op"]] or key in seen:
                continue
            seen.add(key)
            fam = "Hopper" if p["gpu"] == "h100" else "Ampere"
            print("row %s %s %s M=%d N=%d K=%d measured %.6g s model %.9g s"
                  % (VIDUR_GPUS[p["gpu"]], p["model"], p["op"], p["m"], p["n"], p["k"], p["s"],
                     gemm_time(p["m"], p["n"], p["k"], gpus[p["gpu"]], consts[fam])))
        return

    print()
    print("| constants | GPU | rows | GEMMs | MAPE | bias |")
    print("|---|---|---|---:|---:|---:|")
    for g, fam in (("a100", "Ampere"), ("a40", "Ampere"), ("h100", "Hopper"), ("h100", "Ampere")):
        fitted = g in FAMILY[fam]
        fit_shapes = {(p["m"], p["n"], p["k"]) for p in fit_pts if p["gpu"] == g}
        held = [p for p in held_pts if p["gpu"] == g]
        line(fam, g, "FIT models" + ("" if fitted else " (not fitted on)"),
             [p for p in fit_pts if p["gpu"] == g], gpus, consts[fam])
        line(fam, g, "HELD-OUT models", held, gpus, consts[fam])
        if fitted:
            line(fam, g, "HELD-OUT, shapes in no FIT row",
                 [p for p in held if (p["m"], p["n"], p["k"]) not in fit_shapes], gpus, consts[fam])

    for g in ("a100", "a40", "h100"):
        line("roofline (generic)", g, "HELD-OUT models", [p for p in held_pts if p["gpu"] == g],
             gpus, None)

    print()
    print("| constants | GPU | tokens (M) | GEMMs | MAPE | bias |")
    print("|---|---|---|---:|---:|---:|")
    bands = [(1, 32), (32, 256), (256, 1024), (1024, 32769)]
    for g, fam in (("a100", "Ampere"), ("a40", "Ampere"), ("h100", "Hopper"), ("h100", "Ampere"),
                   ("a100", None), ("h100", None)):
        for lo, hi in bands:
            line(fam or "roofline (generic)", g, "%d-%d" % (lo, hi - 1),
                 [p for p in held_pts if p["gpu"] == g and lo <= p["m"] < hi], gpus,
                 consts[fam] if fam else None)


if __name__ == "__main__":
    main()
