#!/usr/bin/env python3
"""fit-attention.py - fit and check the fused-attention kernel model of
src/cost/attention.c on measured forward attention rates (H100, fp16/bf16).

    bench/fit-attention.py [--rows]

Reads ../shared/data/kernels/llm/attention_kernel_tflops.csv (DTSIM_SHARED,
default ../shared beside the source tree; exit 77 without it) and the GPU
catalogue platforms/gpus.xml. The model (attention.c's header states it)
gives a fused attention kernel of implementation I (flash2, flash3, cudnn)
with head dimension d over sequences of s tokens the rate

    R(s) = P x a(I, d) x s / (s + s0(I, d))

P being the GPU's dense fp16/bf16 peak; a and s0 are fitted for each
implementation and head dimension the data has (64, 128, 256) by a
coordinate search minimising the MAPE of the rate.

FIT rows: the FlashAttention-3 paper's forward figures (H100 SXM5), panel
"a" of each head dimension (fig_d64_a, fig_d128_a, fig_d256_a): standard
PyTorch attention, Triton, FlashAttention-2, FlashAttention-3 and cuDNN,
sequences 512-16K; the three last are fitted. HELD-OUT rows, reported and
never fitted: pytorch/benchmark PR 2391's FlashAttention-3 forward rates
(head dimension 128, 512-16K tokens, batch x sequence 16K), the other
panels of head dimension 256 (fig_d256_b; fig_d256_c, on a 1,200 TFLOP/s
scale, is FP8 and is left out), whose causal masking the source does not
state.

Prints the constants, rounded to 4 significant digits as attention.c
compiles them in, and a Markdown table of MAPE and signed bias (positive:
the model is too slow) computed with the rounded constants, and for
reference that of pricing attention as a GEMM at the megatron profile's
efficiency (0.66 of the peak, what dtsim did before). --rows prints a few
rows' predicted rates, which tests/unit/test-attention.c checks the C code
against. Not a test.
"""
import csv
import os
import sys
import xml.etree.ElementTree as ET

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The data's implementation names -> attention.c's
IMPLS = {"flashattention2": "flash2", "flashattention3": "flash3", "cudnn": "cudnn"}
HEAD_DIMS = (64, 128, 256)
FIT_FIGURES = {64: "fig_d64_a", 128: "fig_d128_a", 256: "fig_d256_a"}
GPU = "H100-SXM5-80GB"
GEMM_SHARE = 0.66  # frameworks/megatron.conf's compute efficiency, the old pricing


def shared_dir():
    return os.environ.get("DTSIM_SHARED", os.path.join(SRC, "..", "shared"))


def read_csv(path):
    if not os.path.exists(path):
        print("fit-attention.py: no %s (set DTSIM_SHARED)" % path, file=sys.stderr)
        sys.exit(77)
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def peak_bf16(gpu_id):
    for g in ET.parse(os.path.join(SRC, "platforms", "gpus.xml")).getroot().iter("gpu"):
        if g.get("id") == gpu_id:
            v = g.get("bf16")
            assert v.endswith("TFLOPS")
            return float(v[:-len("TFLOPS")]) * 1e12
    raise KeyError(gpu_id)


def rate(s, a, s0, peak):
    return peak * a * s / (s + s0)


def mape(pts, c, peak):
    return sum(abs(rate(p["s"], c[0], c[1], peak) / p["r"] - 1) for p in pts) / len(pts)


def round4(x):
    return float("%.4g" % x)


def fit(pts, peak):
    """Coordinate search from (0.6, 500 tokens), halving the steps."""
    c = [0.6, 500.0]
    steps = [0.05, 100.0]
    best = mape(pts, c, peak)
    while steps[0] > 1e-6:
        moved = False
        for i in range(2):
            for sign in (-1, 1):
                t = list(c)
                t[i] += sign * steps[i]
                if t[i] <= 0 or (i == 0 and t[i] > 1):
                    continue
                v = mape(pts, t, peak)
                if v < best:
                    best, c, moved = v, t, True
        if not moved:
            steps = [s / 2 for s in steps]
    return (round4(c[0]), round4(c[1]))


def line(label, pts, model):
    if not pts:
        return
    e = [p["r"] / model(p) - 1 for p in pts]  # measured rate over model's: time error
    print("| %s | %d | %.1f%% | %+.1f%% |"
          % (label, len(e), 100 * sum(abs(x) for x in e) / len(e), 100 * sum(e) / len(e)))


def main():
    rows = read_csv(os.path.join(shared_dir(), "data", "kernels", "llm",
                                 "attention_kernel_tflops.csv"))
    peak = peak_bf16(GPU)
    fit_pts, held = {}, []
    for r in rows:
        if r["tflops"] in ("", "OOM"):
            continue
        d, s = int(r["head_dim"]), int(r["seq_len"])
        p = {"d": d, "s": s, "r": float(r["tflops"]) * 1e12, "fig": r["figure"]}
        impl = IMPLS.get(r["implementation"])
        if r["figure"].split(" ")[0] == FIT_FIGURES.get(d) and impl is not None:
            fit_pts.setdefault((impl, d), []).append(p)
        elif r["implementation"] == "flash_v3":
            held.append(dict(p, impl="flash3", label="pytorch/benchmark PR 2391, flash3"))
        elif r["figure"].split(" ")[0] == "fig_d256_b" and impl is not None:
            held.append(dict(p, impl=impl, label="fig_d256_b, %s" % impl))
    consts = {k: fit(v, peak) for k, v in sorted(fit_pts.items())}

    print("peak: %s %.1f TFLOP/s (bf16, platforms/gpus.xml)" % (GPU, peak / 1e12))
    for impl in ("flash2", "flash3", "cudnn"):
        for d in HEAD_DIMS:
            a, s0 = consts[(impl, d)]
            print("constants %s d%d: share %.4g, half-rate sequence %.4g" % (impl, d, a, s0))

    def model(p):
        a, s0 = consts[(p["impl"], p["d"])]
        return rate(p["s"], a, s0, peak)

    if "--rows" in sys.argv[1:]:
        for impl in ("flash2", "flash3", "cudnn"):
            for d, s in ((64, 512), (128, 4096), (256, 16384)):
                print("row %s d=%d s=%d rate %.9g" % (impl, d, s, model({"impl": impl, "d": d,
                                                                          "s": s})))
        return

    print()
    print("| rows | kernels | MAPE | bias |")
    print("|---|---:|---:|---:|")
    for impl in ("flash2", "flash3", "cudnn"):
        pts = [dict(p, impl=impl) for d in HEAD_DIMS for p in fit_pts[(impl, d)]]
        line("FIT, %s" % impl, pts, model)
    for label in sorted({p["label"] for p in held}):
        line("HELD-OUT, %s" % label, [p for p in held if p["label"] == label], model)
    gemm = lambda p: peak * GEMM_SHARE
    allfit = [dict(p, impl=k[0]) for k, v in sorted(fit_pts.items()) for p in v]
    line("FIT rows, as a GEMM at %.2f of peak" % GEMM_SHARE, allfit, gemm)
    line("HELD-OUT rows, as a GEMM at %.2f of peak" % GEMM_SHARE, held, gemm)


if __name__ == "__main__":
    main()
