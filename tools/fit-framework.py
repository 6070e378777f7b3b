#!/usr/bin/env python3
"""Fit the efficiencies of a framework profile on the FIT rows only.

usage: tools/fit-framework.py BUILD_DIR BASE_PROFILE [KEY ...]
       tools/fit-framework.py BUILD_DIR BASE_PROFILE --scaling [KEY]

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
"""
import atexit
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


def fit_scaling(build, base, key):
    rows = [r for r in vc.lambda_rows(vc.shared_dir(), False) if r["split"] == "fit"]
    keys, order = read_profile(base)
    if key not in keys:
        order.append(key)
    tmpdir = tempfile.mkdtemp(prefix="dtsim-fit-")
    atexit.register(shutil.rmtree, tmpdir, True)
    tmp = os.path.join(tmpdir, "fit.conf")
    d = vc.Dtsim(build, [])
    fws = {"lambda": tmp}
    bases = {}
    for r in rows:
        if r["n"] == 1:
            bases[(r["gpu"], r["precision"], r["batch"])] = r
    pairs = [(r, bases[(r["gpu"], r["precision"], r["batch"])]) for r in rows
             if r["n"] > 1 and (r["gpu"], r["precision"], r["batch"]) in bases]

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
    print("# FIT scaling MAPE (lambda-v0, %d multi-GPU rows): %.2f%% (bias %+.2f%%), "
          "%.2f%% (bias %+.2f%%) at 0" % (len(pairs), best, bias, m0, b0))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build, base = sys.argv[1], sys.argv[2]
    if "--scaling" in sys.argv[3:]:
        rest = [a for a in sys.argv[3:] if a != "--scaling"]
        return fit_scaling(build, base, rest[0] if rest else "gpu-speed-spread")
    names = sys.argv[3:] or ["compute-efficiency-fp32", "compute-efficiency-tf32",
                             "compute-efficiency-fp16-volta", "compute-efficiency-fp16-ampere"]
    rows = [r for r in vc.lambda_rows(vc.shared_dir(), False) if r["split"] == "fit"
            and r["n"] == 1]
    keys, order = read_profile(base)
    for n in names:
        if n not in keys:
            keys[n] = "0.70"
            order.append(n)
    tmpdir = tempfile.mkdtemp(prefix="dtsim-fit-")
    atexit.register(shutil.rmtree, tmpdir, True)
    tmp = os.path.join(tmpdir, "fit.conf")
    d = vc.Dtsim(build, [])
    fws = {"lambda": tmp}

    def loss():
        write_profile(tmp, keys, order)
        errs = []
        for r in rows:
            p, _ = vc.predict(d, r, fws)
            errs.append(abs(p / r["measured"] - 1))
        return 100 * sum(errs) / len(errs)

    best = loss()
    for step in (0.08, 0.04, 0.02, 0.01):
        improved = True
        while improved:
            improved = False
            for n in names:
                for sgn in (1, -1):
                    old = keys[n]
                    x = round(float(old) + sgn * step, 2)
                    if not (0 < x <= 1):
                        continue
                    keys[n] = "%.2f" % x
                    l = loss()
                    if l < best - 1e-9:
                        best, improved = l, True
                    else:
                        keys[n] = old
    for n in names:
        print("%s = %s" % (n, keys[n]))
    print("# FIT MAPE (1-GPU rows of lambda-v0, %d rows): %.2f%%" % (len(rows), best))


if __name__ == "__main__":
    main()
