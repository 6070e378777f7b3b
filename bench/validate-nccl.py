#!/usr/bin/env python3
"""validate-nccl.py - dtsim's all-reduce times under --collective nccl (and
the two-channel --collective ring beside them) against measured NCCL all-reduces:
Vidur's profiles (../shared/data/kernels/llm/vidur_collectives_median_ms.csv)
and vTrain's nccl-tests tables (vtrain_nccl_allreduce_lut.csv).

    bench/validate-nccl.py BUILD_DIR [--set=vidur|vtrain] [--all-sizes] [--quick]
                           [--one-nic] [--nccl-nvlink] [--call-cost=US]
                           [--fit-call-cost]

For every configuration of the set (a cluster and its num_workers x
devices_per_node for Vidur, a GPU and its count for vTrain) it writes a
platform with `dtsim platform` (or takes a shipped one), runs one `dtsim
allreduce --sizes ...` per collective and compares each measured row with the
simulated time (time_s) of its size. By default the sizes are a sample of the
measured ones, two per octave (the measured size nearest to each
2^(k/2) x the smallest, every row measured at it); --all-sizes takes every
measured size (256 per dtsim call); --quick takes four sizes of a few
configurations (a smoke run). Prints Markdown: per configuration and size
band (< 1 MiB, 1-64 MiB, >= 64 MiB) the rows, the mean absolute percentage
error and the signed bias (positive: dtsim too slow) of nccl's simulated
time, of nccl's own tuning-model prediction (predicted_s, which prices the
protocol; the simulation does not) and of the 2-channel ring; then the
bands over the whole set, the worst rows of 1 MiB and more, and per
configuration a line t = a + 2(N-1)/N x S / busbw fitted to the measured
rows of 1 MiB and more and one to nccl's simulated times (where dtsim's
fixed cost and bandwidth differ from the measured ones).

What is assumed (none of it is stated by the data except where said):
- Vidur's size column is bytes (its header says so; 64 MiB on 8 A100 of one
  DGX measures 174 GB/s bus bandwidth, which bytes make plausible), and
  num_workers is the number of GPUs, devices_per_node how many of them share
  a node (max_devices_per_node 8: DGX nodes of 8 GPUs).
- a100_dgx: DGX A100, A100-SXM4-80GB on NVSwitch, 300 GB/s per GPU and
  direction, PCIe 4.0 (31.5 GB/s) switches; the GPUs of a row are the first
  of one node, or devices_per_node on each of two nodes. The inter-node
  network is not known: Vidur's 2 x 1 rows reach only ~5.9 GB/s bus
  bandwidth, far from a DGX's 8 x 200 Gb/s. Each node gets one NIC per GPU
  it uses (a DGX's one compute NIC per GPU), and ONE NIC bandwidth is fitted
  (least MAPE of nccl's simulated time) on the 2 x 1 rows of 1 MiB and more
  only. Those rows are reported apart, as calibration rows; the 4 x 2, 8 x 4
  and 16 x 8 rows are reported with that value and were not used to fit it.
  --one-nic gives each node one NIC instead (the 2 x 1 rows, one GPU per
  node, are the same either way, and so is the fitted bandwidth).
- h100_dgx: DGX H100, H100-SXM5-80GB on NVSwitch, 450 GB/s per GPU and
  direction.
- a100_pairwise_nvlink, h100_pairwise_nvlink: PCIe cards joined in pairs by
  NVLink bridges (600 GB/s both directions: 12 links of 25 GB/s per
  direction), A100-PCIE-80GB and, the catalogue having no H100 PCIe/NVL card,
  H100-SXM5-80GB (LL128 and NVLink hop latencies then apply, as on a bridged
  pair). Only the 2 x 2 rows run: `dtsim platform` cannot write a node whose
  GPUs are not all joined by NVLink (the 4 x 4 rows, two bridged pairs over
  PCIe), so those are listed as not run.
- vTrain: nccl-tests' out-of-place time. The A100 rows run on one DGX A100
  as above, the first n GPUs of it; the V100 rows on the shipped dgx1-v100
  (DGX-1, hybrid cube mesh), its first n GPUs: their bus bandwidths (22.5
  GB/s on 2 GPUs, one NVLink; 85 on 4; 134 on 8) are a DGX-1's, not a
  DGX-2's or PCIe server's. vTrain does not state its node types.
Nothing else is fitted: NVLink, PCIe and NIC latencies are the generator's
defaults (1 us per link).

Two what-ifs that are not dtsim's defaults (doc/VALIDATION.md part 16, "What
NCCL's NVLink figure and a cost per call would give"):
- --nccl-nvlink runs every NVLink link (a link whose name holds "nvlink") at
  the bandwidth NCCL's topology model gives an NVLink over the link's own
  (NCCL's src/graph/topo.h: SM70_NVLINK_BW and SM80_NVLINK_BW 20.0,
  SM90_NVLINK_BW 20.6 GB/s per link of 25 GB/s per direction: 0.80 on V100
  and A100, 0.824 on H100), through `--scale link:*nvlink*.bandwidth=F`;
- --call-cost=US gives every call a fixed cost (`--coll-overhead USus`);
- --fit-call-cost (with --set=vtrain) prints, for costs of 0 to 60 us in 5 us
  steps, the nccl MAPE of the A100 rows of 1 MiB and more (the FIT rows of
  this what-if) and of the V100 rows (held out), from one run: a call's
  cost adds to its simulated time. Not a test (tests/cli/validate-nccl.sh runs
--set=vtrain and compares its table with doc/VALIDATION.md part 16).
"""
import csv
import math
import os
import subprocess
import sys
import tempfile

MiB = 1 << 20
BANDS = (("< 1 MiB", 0, MiB), ("1-64 MiB", MiB, 64 * MiB), (">= 64 MiB", 64 * MiB, 1 << 62))
COLLECTIVES = (("nccl", ["--collective", "nccl"]), ("ring", ["--collective", "ring"]))


def dtsim(build, env, args):
    return subprocess.run([os.path.join(build, "dtsim")] + args, check=True, env=env,
                          capture_output=True, text=True).stdout


def generated(build, env, tmp, name, args):
    """A platform written by `dtsim platform ARGS` (once per name)."""
    path = os.path.join(tmp, name + ".xml")
    if not os.path.exists(path):
        dtsim(build, env, ["platform"] + args + ["-o", path])
    return path


def dgx_node(build, env, tmp, gpu, nvswitch_bw):
    """One node of 8 GPUs on NVSwitch, PCIe 4.0 switches, no NIC."""
    return generated(build, env, tmp, "dgx-%s" % gpu,
                     ["--nodes", "1", "--gpus-per-node", "8", "--gpu", gpu,
                      "--intra", "nvswitch", "--intra-bandwidth", nvswitch_bw,
                      "--pcie-switches", "2", "--pcie-bandwidth", "31.5GB/s"])


def dgx_pair(build, env, tmp, per_node, nics, nic_gbps):
    """Two DGX A100 nodes, PER_NODE GPUs and NICS NICs of NIC_GBPS each."""
    return generated(build, env, tmp, "dgx2x%d-%d-%.1f" % (per_node, nics, nic_gbps),
                     ["--nodes", "2", "--gpus-per-node", str(per_node),
                      "--gpu", "A100-SXM4-80GB", "--intra", "nvswitch",
                      "--intra-bandwidth", "300GB/s", "--pcie-switches", "2",
                      "--pcie-bandwidth", "31.5GB/s", "--nics-per-node", str(nics),
                      "--nic-bandwidth", "%.1fGbps" % nic_gbps])


def nvlink_pair(build, env, tmp, gpu):
    """Two PCIe cards joined by an NVLink bridge of 12 links."""
    return generated(build, env, tmp, "pair-%s" % gpu,
                     ["--nodes", "1", "--gpus-per-node", "2", "--gpu", gpu,
                      "--intra", "nvlink-mesh", "--nvlink-pairs", "0-1:12",
                      "--intra-bandwidth", "25GB/s", "--sockets", "1",
                      "--pcie-bandwidth", "31.5GB/s"])


def read_csv(shared, name):
    path = os.path.join(shared, "data", "kernels", "llm", name)
    if not os.path.exists(path):
        print("validate-nccl.py: no %s (set DTSIM_SHARED)" % path, file=sys.stderr)
        sys.exit(77)
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def sample(sizes, every, quick):
    """The measured sizes to run: all, four (quick), or the nearest to each
    half octave from the smallest."""
    sizes = sorted(set(sizes))
    if every:
        return sizes
    lo, hi = sizes[0], sizes[-1]
    steps = int(math.floor(2 * math.log2(hi / lo) + 1e-9))
    targets = [lo * 2 ** (k / 2) for k in range(steps + 1)] + [hi]
    if quick:
        targets = [lo, lo * 2 ** 5, hi / 16, hi]
    picked = set()
    for t in targets:
        picked.add(min(sizes, key=lambda s: (abs(math.log(s / t)), s)))
    return sorted(picked)


# --nccl-nvlink: NCCL's NVLink bandwidth per link over the link's (topo.h)
NCCL_NVLINK = {"V100": 20.0 / 25, "A100": 20.0 / 25, "H100": 20.6 / 25}
WHAT_IF = {"nvlink": False, "call_us": 0.0}


def what_if_args(env, platform):
    """The dtsim options of the what-ifs asked for, on PLATFORM."""
    args = []
    if WHAT_IF["call_us"] > 0:
        args += ["--coll-overhead", "%gus" % WHAT_IF["call_us"]]
    if WHAT_IF["nvlink"]:
        path = platform if platform.endswith(".xml") else os.path.join(
            env["DTSIM_DATADIR"], "platforms", platform + ".xml")
        with open(path) as f:
            text = f.read()
        gpu = text.split('<prop id="gpu" value="', 1)[1].split("-", 1)[0]
        if "nvlink" in text and gpu in NCCL_NVLINK:
            args += ["--scale", "link:*nvlink*.bandwidth=%.4g" % NCCL_NVLINK[gpu]]
    return args


def simulate(build, env, platform, n, sizes, coll_args):
    """{size: (time_s, predicted_s or None, choice)} of one collective."""
    out = {}
    for i in range(0, len(sizes), 256):
        args = ["allreduce", "-p", platform, "--sizes",
                ",".join(str(s) for s in sizes[i:i + 256]), "-f", "csv"] + coll_args
        args += what_if_args(env, platform)
        if n:
            args += ["-n", str(n)]
        for r in csv.DictReader(dtsim(build, env, args).splitlines()):
            pred = float(r["predicted_s"]) if "predicted_s" in r else None
            choice = ("%s %s %s" % (r["algorithm"], r["protocol"], r["channels"])
                      if "nccl_algorithm" in r else "ring %s" % r["channels"])
            out[int(r["bytes"])] = (float(r["time_s"]), pred, choice)
    return out


class Config:
    """One measured configuration and how it runs: ROWS are (size, measured s)."""

    def __init__(self, label, rows, platform_of, gpus, n=0, role="report"):
        self.label, self.rows, self.platform_of, self.gpus, self.n, self.role = (
            label, rows, platform_of, gpus, n, role)


def vidur_configs(build, env, tmp, shared, quick, one_nic):
    rows = {}
    for r in read_csv(shared, "vidur_collectives_median_ms.csv"):
        if r["collective"] != "all_reduce":
            continue
        key = (r["cluster"], int(r["num_workers"]), int(r["devices_per_node"]))
        rows.setdefault(key, []).append((int(r["size"]), float(r["median_ms"]) / 1e3))
    configs, skipped = [], []
    for key in sorted(rows):
        cluster, n, per_node = key
        label = "%s %d x %d" % key
        if quick and key not in (("a100_dgx", 2, 1), ("a100_dgx", 8, 4), ("h100_dgx", 8, 8)):
            continue
        if cluster in ("a100_dgx", "h100_dgx") and n == per_node:
            gpu, bw = (("A100-SXM4-80GB", "300GB/s") if cluster == "a100_dgx"
                       else ("H100-SXM5-80GB", "450GB/s"))
            configs.append(Config(label, rows[key],
                                  lambda nic, g=gpu, b=bw: dgx_node(build, env, tmp, g, b), n, n))
        elif cluster == "a100_dgx" and n == 2 * per_node:
            configs.append(Config(label, rows[key],
                                  lambda nic, d=per_node: dgx_pair(build, env, tmp, d,
                                                                   1 if one_nic else d, nic), n,
                                  role="calibrate" if per_node == 1 else "report"))
        elif cluster.endswith("_pairwise_nvlink") and n == 2:
            gpu = "A100-PCIE-80GB" if cluster.startswith("a100") else "H100-SXM5-80GB"
            configs.append(Config(label, rows[key],
                                  lambda nic, g=gpu: nvlink_pair(build, env, tmp, g), n, n))
        else:
            skipped.append((label, len(rows[key])))
    return configs, skipped


def vtrain_configs(build, env, tmp, shared, quick, one_nic):
    rows = {}
    for r in read_csv(shared, "vtrain_nccl_allreduce_lut.csv"):
        key = (r["gpu"], int(r["n_gpus"]))
        rows.setdefault(key, []).append((int(r["size_bytes"]), float(r["oop_time_ns"]) / 1e9))
    configs = []
    for key in sorted(rows):
        gpu, n = key
        if quick and n not in (2, 8):
            continue
        if gpu == "A100":
            platform_of = lambda nic: dgx_node(build, env, tmp, "A100-SXM4-80GB", "300GB/s")
            label = "A100 x %d (DGX A100)" % n
        else:
            platform_of = lambda nic: "dgx1-v100"
            label = "V100 x %d (dgx1-v100)" % n
        configs.append(Config(label, rows[key], platform_of, n, n))
    return configs, []


def errors_of(rows, sims):
    """[(size, measured, {coll: (time, pred, choice)})] for ROWS at simulated sizes."""
    out = []
    for size, meas in rows:
        if size in sims["nccl"]:
            out.append((size, meas, {c: sims[c][size] for c in sims}))
    return out


def mape_bias(errs):
    if not errs:
        return "", ""
    return ("%.1f%%" % (100 * sum(abs(e) for e in errs) / len(errs)),
            "%+.1f%%" % (100 * sum(errs) / len(errs)))


def band_cells(points):
    """Cells of one table line: rows, then MAPE and bias of nccl, its model, ring."""
    cells = [str(len(points))]
    for pick in (lambda p: p[2]["nccl"][0], lambda p: p[2]["nccl"][1],
                 lambda p: p[2]["ring"][0]):
        cells += mape_bias([pick(p) / p[1] - 1 for p in points])
    return cells


def run_configs(build, env, configs, every, quick, nic_gbps):
    results = []
    for c in configs:
        platform = c.platform_of(nic_gbps)
        sizes = sample([s for s, _ in c.rows], every, quick)
        sims = {name: simulate(build, env, platform, c.n, sizes, args)
                for name, args in COLLECTIVES}
        results.append((c, errors_of(c.rows, sims)))
    return results


def calibrate(build, env, configs, every, quick):
    """The NIC bandwidth (Gb/s, 0.1 steps) of least nccl MAPE on the
    calibration rows of 1 MiB and more: golden-section search on its log."""
    cal = [c for c in configs if c.role == "calibrate"]
    if not cal:
        return None

    def mape(gbps):
        errs = []
        for c, points in run_configs(build, env, cal, every, quick, gbps):
            errs += [abs(p[2]["nccl"][0] / p[1] - 1) for p in points if p[0] >= MiB]
        return sum(errs) / len(errs)

    lo, hi = math.log(1.0), math.log(400.0)
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = mape(round(math.exp(a), 1)), mape(round(math.exp(b), 1))
    while hi - lo > 0.002:
        if fa <= fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = mape(round(math.exp(a), 1))
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = mape(round(math.exp(b), 1))
    return round(math.exp(a if fa <= fb else b), 1)


HEAD = ("| configuration | band | rows | nccl MAPE | nccl bias | nccl model MAPE "
        "| nccl model bias | ring MAPE | ring bias |\n"
        "|---|---|---:|---:|---:|---:|---:|---:|---:|")


def line_fit(points, time_of):
    """(a, b) of the line t = a + b S closest to the points in relative
    error (least squares weighted by 1 / measured^2)."""
    sw = sx = sy = sxx = sxy = 0.0
    for size, meas, sim in points:
        w, y = 1 / meas ** 2, time_of(meas, sim)
        sw, sx, sy, sxx, sxy = sw + w, sx + w * size, sy + w * y, sxx + w * size ** 2, sxy + w * size * y
    b = (sw * sxy - sx * sy) / (sw * sxx - sx * sx)
    return (sy - b * sx) / sw, b


def print_lines(results):
    print("\nLines t = a + 2(N-1)/N x S / busbw fitted to the rows of 1 MiB and more "
          "(least relative squares), measured against nccl's simulated times:\n")
    print("| configuration | rows | measured a us | measured busbw GB/s | nccl a us "
          "| nccl busbw GB/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for c, points in results:
        pts = [p for p in points if p[0] >= MiB]
        if len(set(p[0] for p in pts)) < 2:
            continue
        f = 2 * (c.gpus - 1) / c.gpus
        ma, mb = line_fit(pts, lambda meas, sim: meas)
        sa, sb = line_fit(pts, lambda meas, sim: sim["nccl"][0])
        label = c.label + (" (calibration)" if c.role == "calibrate" else "")
        print("| %s | %d | %.1f | %.1f | %.1f | %.1f |"
              % (label, len(pts), 1e6 * ma, f / mb / 1e9, 1e6 * sa, f / sb / 1e9))


def print_tables(results, skipped):
    print(HEAD)
    for c, points in results:
        for band, lo, hi in BANDS:
            pts = [p for p in points if lo <= p[0] < hi]
            if pts:
                label = c.label + (" (calibration)" if c.role == "calibrate" else "")
                print("| %s | %s | %s |" % (label, band, " | ".join(band_cells(pts))))
    for label, n in skipped:
        print("| %s | not run (%d rows): no platform | | | | | | | |" % (label, n))
    reported = [p for c, points in results if c.role == "report" for p in points]
    print("\nAll reported rows (calibration rows excluded):\n")
    print(HEAD)
    for band, lo, hi in BANDS + (("all >= 1 MiB", MiB, 1 << 62), ("all", 0, 1 << 62)):
        pts = [p for p in reported if lo <= p[0] < hi]
        if pts:
            print("| all | %s | %s |" % (band, " | ".join(band_cells(pts))))
    worst = sorted(((c.label, p) for c, points in results if c.role == "report"
                    for p in points if p[0] >= MiB),
                   key=lambda x: (-abs(x[1][2]["nccl"][0] / x[1][1] - 1), x[0], x[1][0]))
    print("\nWorst reported rows of 1 MiB and more (nccl):\n")
    print("| configuration | bytes | measured us | nccl us | error | nccl picks | ring us | ring error |")
    print("|---|---:|---:|---:|---:|---|---:|---:|")
    for label, (size, meas, sim) in worst[:10]:
        print("| %s | %d | %.1f | %.1f | %+.1f%% | %s | %.1f | %+.1f%% |"
              % (label, size, 1e6 * meas, 1e6 * sim["nccl"][0],
                 100 * (sim["nccl"][0] / meas - 1), sim["nccl"][2], 1e6 * sim["ring"][0],
                 100 * (sim["ring"][0] / meas - 1)))


def fit_call_cost(results):
    """--fit-call-cost: the A100 rows' (FIT) and V100 rows' nccl MAPE at
    each cost of 0 to 60 us, from times run at WHAT_IF's cost."""
    print("\nA cost per call fitted on the A100 rows of 1 MiB and more (nccl's "
          "simulated time; V100 rows held out):\n")
    print("| cost per call us | A100 rows (FIT) | MAPE | bias | V100 rows | MAPE | bias |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    best = None
    for c_us in range(0, 61, 5):
        cells = []
        for gpu in ("A100", "V100"):
            errs = [(p[2]["nccl"][0] + (c_us - WHAT_IF["call_us"]) * 1e-6) / p[1] - 1
                    for c, points in results if c.label.startswith(gpu)
                    for p in points if p[0] >= MiB]
            m, b = mape_bias(errs)
            cells += [str(len(errs)), m, b]
            if gpu == "A100" and (best is None or float(m[:-1]) < best[1]):
                best = (c_us, float(m[:-1]))
        print("| %d | %s |" % (c_us, " | ".join(cells)))
    print("\nLeast A100 MAPE at %d us per call (%.1f%%)." % best)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build = sys.argv[1]
    which, every, quick, one_nic, fit = "vidur", False, False, False, False
    for o in sys.argv[2:]:
        if o.startswith("--set="):
            which = o[len("--set="):]
        elif o == "--all-sizes":
            every = True
        elif o == "--quick":
            quick = True
        elif o == "--one-nic":
            one_nic = True
        elif o == "--nccl-nvlink":
            WHAT_IF["nvlink"] = True
        elif o.startswith("--call-cost="):
            WHAT_IF["call_us"] = float(o[len("--call-cost="):])
        elif o == "--fit-call-cost":
            fit = True
        else:
            sys.exit("validate-nccl.py: unknown option %s\n%s" % (o, __doc__))
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.dirname(here)
    shared = os.environ.get("DTSIM_SHARED", os.path.join(src, "..", "shared"))
    env = dict(os.environ, DTSIM_DATADIR=os.environ.get("DTSIM_DATADIR", src))
    sets = {"vidur": vidur_configs, "vtrain": vtrain_configs}
    if which not in sets:
        sys.exit("validate-nccl.py: unknown --set=%s (vidur, vtrain)" % which)
    with tempfile.TemporaryDirectory() as tmp:
        configs, skipped = sets[which](build, env, tmp, shared, quick, one_nic)
        nic = calibrate(build, env, configs, every, quick)
        if nic is not None:
            print("Inter-node NIC bandwidth fitted on the calibration rows (>= 1 MiB): "
                  "%.1f Gb/s per NIC, %s\n" % (nic, "one NIC per node" if one_nic
                                                 else "one NIC per GPU"))
        results = run_configs(build, env, configs, every, quick, nic)
        print_tables(results, skipped)
        print_lines(results)
        if fit:
            fit_call_cost(results)


if __name__ == "__main__":
    main()
