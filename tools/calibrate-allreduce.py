#!/usr/bin/env python3
"""DeepBench all-reduce: calibrate each machine on its 2-GPU rows, report the rest.

usage: tools/calibrate-allreduce.py BUILD_DIR [--rows] [--coarse] [--nic]

DeepBench's all-reduce rows (validation/deepbench_allreduce.csv) come from
five machines, named by their GPU (GTX 1080 Ti, P100, M40, Titan X, Titan X
Pascal), with the same layout (8 GPUs per node under PLX switches, FDR
InfiniBand between nodes; doc/VALIDATION.md part 1), all simulated on the
shipped `deepbench-p100-x4`. Measured on one node, their bus bandwidths
differ by 2x, so no one platform predicts all five: each machine is
calibrated on its own 2-GPU rows (7 buffer sizes, 0.4 MB to 258 MB) and
predicted at 4 to 32 GPUs (1 to 4 nodes), rows never used to fit anything.

Two constants per machine, SMPI's way of calibrating a network and not a
shape fitted per point:
  bandwidth factor B  SimGrid's network/bandwidth-factor: every flow reaches
                      B times its route's bandwidth (PCIe peer-to-peer and
                      InfiniBand efficiency of the library's copies);
  call overhead T     dtsim's --coll-overhead: a call's fixed cost before its
                      first transfer (kernel launch, synchronisation).
Both are picked by grid search (B in 0.30..1.00 by 0.02, T in 0..100 us by
5 us; --coarse: B by 0.1, T by 20 us) minimising the MAPE of the time on
the 2-GPU rows. The REPORT rows are then simulated with
`dtsim allreduce --cfg network/bandwidth-factor:B --coll-overhead T`.
The outliers the data README names (16.8M floats at 16 and 32 ranks) are
left out, as in part 1.

Prints Markdown: per machine B, T, the FIT MAPE and the REPORT MAPE and
signed bias (positive: dtsim too slow), by size class and by one node or
several; the same rows uncalibrated (B = 1, T = 0) for comparison. --rows
adds every REPORT row. Reads $DTSIM_SHARED/data/validation, else
../shared/data/validation beside the source tree; exits 77 when absent.

--nic adds a third constant per machine, for the links between nodes:
  NIC factor F        `--scale 'link:*-nic0.bandwidth=F'`: the InfiniBand
                      links (and only they) carry F times what B gives them,
                      B x F of their rate, at most all of it (F <= 1/B;
                      from 0.50 by 0.1, then by 0.02 around the best)
fitted on the machine's 16-GPU (2-node) rows with B and T held at their
2-GPU values. The split moves: FIT is the 2-GPU rows (B, T) and the 16-GPU
rows (F); REPORT is the 4-, 8- and 32-GPU rows (the P100 machine has no
32-GPU rows, so no several-node REPORT rows).
"""
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def usage():
    sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
    sys.exit(2)


def data_dir():
    shared = os.environ.get("DTSIM_SHARED")
    d = os.path.join(shared, "data", "validation") if shared else \
        os.path.join(HERE, "..", "..", "shared", "data", "validation")
    if not os.path.isfile(os.path.join(d, "deepbench_allreduce.csv")):
        print("no deepbench_allreduce.csv under %s: skipped" % d)
        sys.exit(77)
    return d


def load_rows(d):
    with open(os.path.join(d, "deepbench_allreduce.csv")) as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    out = []
    for r in rows:
        if r["mode"] != "train" or "Xeon" in r["device"]:
            continue
        floats, n = int(r["size_floats"]), int(r["n_ranks"])
        if floats == 16777216 and n in (16, 32):
            continue  # the README's outliers
        out.append({"device": r["device"], "n": n, "nodes": int(r["n_nodes"]),
                    "bytes": 4 * floats, "ms": float(r["mean_ms"])})
    return out


class Sim:
    def __init__(self, build):
        self.dtsim = os.path.join(build, "dtsim")
        if not os.access(self.dtsim, os.X_OK):
            sys.stderr.write("calibrate-allreduce.py: no dtsim in '%s'\n" % build)
            sys.exit(2)
        self.env = dict(os.environ)
        self.env.setdefault("DTSIM_DATADIR", os.path.join(HERE, ".."))
        self.cache = {}

    def times_ms(self, n, sizes, bf, overhead_us, nic=1.0):
        """{bytes: simulated ms} of n GPUs at bandwidth factor bf, call
        overhead, and the NIC links' bandwidth times nic."""
        key = (n, tuple(sizes), bf, overhead_us, nic)
        if key not in self.cache:
            cmd = [self.dtsim, "allreduce", "-p", "deepbench-p100-x4", "--gpus", str(n),
                   "--collective", "ring", "--comm-granularity", "step", "--format", "csv",
                   "--sizes", ",".join("%dB" % b for b in sizes),
                   "--cfg", "network/bandwidth-factor:%g" % bf,
                   "--coll-overhead", "%gus" % overhead_us]
            if nic != 1.0:
                cmd += ["--scale", "link:*-nic0.bandwidth=%g" % nic]
            out = subprocess.run(cmd, capture_output=True, text=True, env=self.env, check=True)
            self.cache[key] = {float(x["bytes"]): 1e3 * float(x["time_s"])
                               for x in csv.DictReader(out.stdout.splitlines())}
        return self.cache[key]


def mape(errs):
    return 100 * sum(abs(e) for e in errs) / len(errs) if errs else float("nan")


def bias(errs):
    return 100 * sum(errs) / len(errs) if errs else float("nan")


def size_class(b):
    return "small" if b < 1e6 else "medium" if b < 5e7 else "large"


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    flags = [a for a in argv if a.startswith("--")]
    if len(args) != 1 or any(f not in ("--rows", "--coarse", "--nic") for f in flags):
        usage()
    coarse = "--coarse" in flags
    per_nic = "--nic" in flags
    rows = load_rows(data_dir())
    sim = Sim(args[0])
    bfs = [round(0.3 + 0.1 * i, 2) for i in range(8)] if coarse else \
        [round(0.3 + 0.02 * i, 2) for i in range(36)]
    overheads = list(range(0, 101, 20 if coarse else 5))
    print("| machine (DeepBench GPU) | B | T us |%s FIT rows | FIT MAPE | REPORT rows | "
          "MAPE | bias | small | medium | large | one node | several nodes | "
          "uncalibrated MAPE | bias |" % (" F |" if per_nic else ""))
    print("|---|---:|---:|%s---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
          % ("---:|" if per_nic else ""))
    every, every_raw, listed = [], [], []
    for dev in sorted({r["device"] for r in rows}):
        fit = [r for r in rows if r["device"] == dev and r["n"] == 2]
        fit_nic = [r for r in rows if r["device"] == dev and r["n"] == 16] if per_nic else []
        rep = [r for r in rows if r["device"] == dev and r["n"] > 2 and r not in fit_nic]
        sizes = sorted({r["bytes"] for r in fit})
        best = None
        for bf in bfs:
            base = sim.times_ms(2, sizes, bf, 0)
            for t in overheads:
                e = mape([(base[r["bytes"]] + t * 1e-3) / r["ms"] - 1 for r in fit])
                if best is None or e < best[0]:
                    best = (e, bf, t)
        _, bf, t = best
        # The FIT error as simulated with the call overhead (the search adds
        # T to the times without it: the same, since T only delays the call).
        simulated = sim.times_ms(2, sizes, bf, t)
        fit_errs = [simulated[r["bytes"]] / r["ms"] - 1 for r in fit]
        nic = 1.0
        if fit_nic:
            sz = sorted({r["bytes"] for r in fit_nic})
            def nic_err(f):
                got = sim.times_ms(16, sz, bf, t, f)
                return mape([got[r["bytes"]] / r["ms"] - 1 for r in fit_nic])
            # by 0.1 from 0.5 up to 1/B, then by 0.02 around the best
            top = 1.0 / bf + 1e-9
            coarse_f = [round(0.5 + 0.1 * i, 2) for i in range(60) if 0.5 + 0.1 * i <= top]
            c = min(coarse_f, key=lambda f: (nic_err(f), f))
            fine = [round(c + 0.02 * i, 2) for i in range(-5, 6)]
            nic = min((f for f in fine if 0.5 <= f <= top), key=lambda f: (nic_err(f), f))
            got = sim.times_ms(16, sz, bf, t, nic)
            fit_errs += [got[r["bytes"]] / r["ms"] - 1 for r in fit_nic]
        fit_mape = mape(fit_errs)
        errs, raw = [], []
        for n in sorted({r["n"] for r in rep}):
            these = [r for r in rep if r["n"] == n]
            sz = sorted({r["bytes"] for r in these})
            cal, unc = sim.times_ms(n, sz, bf, t, nic), sim.times_ms(n, sz, 1.0, 0)
            for r in these:
                e, u = cal[r["bytes"]] / r["ms"] - 1, unc[r["bytes"]] / r["ms"] - 1
                errs.append((r, e))
                raw.append(u)
                listed.append((dev, r, cal[r["bytes"]], e))
        pick = lambda f: [e for r, e in errs if f(r)]
        several = pick(lambda r: r["nodes"] > 1)
        print("| %s | %.2f | %d |%s %d | %.1f%% | %d | %.1f%% | %+.1f%% | %.1f%% | %.1f%% | %.1f%% "
              "| %.1f%% | %s | %.1f%% | %+.1f%% |"
              % (dev, bf, t, " %.2f |" % nic if per_nic else "", len(fit) + len(fit_nic),
                 fit_mape, len(errs), mape(pick(lambda r: True)),
                 bias(pick(lambda r: True)), mape(pick(lambda r: size_class(r["bytes"]) == "small")),
                 mape(pick(lambda r: size_class(r["bytes"]) == "medium")),
                 mape(pick(lambda r: size_class(r["bytes"]) == "large")),
                 mape(pick(lambda r: r["nodes"] == 1)),
                 "%.1f%%" % mape(several) if several else "-", mape(raw), bias(raw)))
        every += [e for _, e in errs]
        every_raw += raw
    print("| all | | |%s | | %d | %.1f%% | %+.1f%% | | | | | | %.1f%% | %+.1f%% |"
          % (" |" if per_nic else "", len(every), mape(every), bias(every), mape(every_raw),
             bias(every_raw)))
    if "--rows" in flags:
        print("\n| machine | GPUs | nodes | bytes | measured ms | simulated ms | error |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for dev, r, p, e in listed:
            print("| %s | %d | %d | %d | %g | %.4g | %+.1f%% |"
                  % (dev, r["n"], r["nodes"], r["bytes"], r["ms"], p, 100 * e))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
