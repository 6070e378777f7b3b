#!/usr/bin/env python3
"""analytic-contention.py - `--comm-granularity analytic` against `step` (and
`flow` against `step`) where flows share links, for two dtsim builds: the
matrix of doc/SIMULATION.md ("Granularities"). Not a test: prints a
Markdown table of relative differences to `step` (iteration time, mean
all-reduce time comm_s, exposed communication), `flow` and `step` from
NEW_BUILD, `analytic` from both.

  bench/analytic-contention.py OLD_BUILD NEW_BUILD   (directories holding dtsim)

Every run is `dtsim run -p P -w W -i 3 --format json --quiet` plus the case's
options; generated platforms are made with NEW_BUILD's `dtsim platform`
(commands in PLATFORMS below). CASES (environment, comma-separated
indices) runs a subset."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)

A100 = ["--gpus-per-node", "8", "--gpu", "A100-SXM4-40GB", "--intra", "nvswitch",
        "--intra-bandwidth", "300GB/s", "--pcie-switches", "2", "--pcie-bandwidth", "31.5GB/s",
        "--nic-bandwidth", "200Gbps"]
PLATFORMS = {
    "fat-tree-8x8-oversub4": ["--nodes", "8", *A100, "--nics-per-node", "8",
                              "--topology", "fat-tree", "--switch-radix", "16",
                              "--oversubscription", "4"],
    "nvswitch-4x8-1nic": ["--nodes", "4", *A100, "--nics-per-node", "1"],
    "nvswitch-4x8-8nic": ["--nodes", "4", *A100, "--nics-per-node", "8"],
}

CASES = [
    ("resnet50", "cluster-4x4-v100", []),
    ("vgg16", "cluster-4x4-v100", []),
    ("resnet50", "dgxa100-x8", []),
    ("vgg16", "dgxa100-x8", []),
    ("vgg16", "dgx1-v100-x4", []),
    ("resnet50", "aws-p2-8xlarge-x8", []),
    ("resnet50", "deepbench-p100-x4", []),
    ("vgg16", "cluster-4x4-v100", ["--scale", "network.bandwidth=0.1"]),
    ("vgg16", "dgxa100-x8", ["--scale", "network.bandwidth=0.1"]),
    ("vgg16", "cluster-4x4-v100", ["--comm-streams", "2"]),
    ("vgg16", "dgxa100-x8", ["--comm-streams", "2"]),
    ("vgg16", "cluster-4x4-v100", ["--strategy", "hybrid", "--stages", "2"]),
    ("fc-allreduce", "tests/data/two-nodes-interleaved.xml", []),
    ("vgg16", "fat-tree-8x8-oversub4", []),
    ("vgg16", "nvswitch-4x8-1nic", []),
    ("vgg16", "nvswitch-4x8-8nic", []),
    ("vgg16", "fat-tree-8x8-oversub4", ["--collective", "multi-rail"]),
    ("vgg16", "fat-tree-8x8-oversub4", ["--collective", "hier"]),
    ("vgg16", "fat-tree-8x8-oversub4", ["--collective", "tree"]),
    ("vgg16", "nvswitch-4x8-1nic", ["--collective", "multi-rail"]),
    ("vgg16", "nvswitch-4x8-1nic", ["--collective", "hier"]),
    ("vgg16", "nvswitch-4x8-1nic", ["--collective", "tree"]),
    ("vgg16", "nvswitch-4x8-8nic", ["--collective", "multi-rail"]),
    ("vgg16", "nvswitch-4x8-8nic", ["--collective", "hier"]),
    ("vgg16", "nvswitch-4x8-8nic", ["--collective", "auto"]),
    ("vgg16", "nvswitch-4x8-1nic", ["--collective", "auto"]),
    ("resnet50", "cluster-4x4-v100", ["--collective", "rhd"]),
    ("vgg16", "cluster-4x4-v100", ["--collective", "auto", "--comm-streams", "2"]),
]


def run(build, platform, workload, opts, granularity):
    wl = workload
    if workload == "fc-allreduce":
        wl = os.path.join(SRC, "tests/data/fc-allreduce.xml")
    cmd = [os.path.join(build, "dtsim"), "run", "-p", platform, "-w", wl, "-i", "3", *opts,
           "--comm-granularity", granularity, "--format", "json", "--quiet"]
    out = subprocess.run(cmd, capture_output=True, text=True,
                         env=dict(os.environ, DTSIM_DATADIR=SRC))
    if out.returncode != 0:
        sys.exit("%s: %s" % (" ".join(cmd), out.stderr.strip()))
    d = json.loads(out.stdout)
    b = d["breakdown"]
    return d["iteration_time_s"], b["comm_s"], b["comm_exposed_s"]


def rel(x, ref):
    if ref == 0:
        return "0.0%" if x == 0 else "+%.2g s" % x
    return "%+.2f%%" % (100 * (x / ref - 1))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    old, new = sys.argv[1], sys.argv[2]
    only = os.environ.get("CASES")
    pick = [int(i) for i in only.split(",")] if only else range(len(CASES))
    tmp = tempfile.mkdtemp()
    print("| case | flow: iteration / comm_s / exposed | analytic before | analytic after |")
    print("|---|---|---|---|")
    for i in pick:
        workload, platform, opts = CASES[i]
        path = platform
        if platform in PLATFORMS:
            path = os.path.join(tmp, platform + ".xml")
            subprocess.run([os.path.join(new, "dtsim"), "platform", *PLATFORMS[platform],
                            "-o", path], check=True, env=dict(os.environ, DTSIM_DATADIR=SRC))
        elif platform.startswith("tests/"):
            path = os.path.join(SRC, platform)
        step = run(new, path, workload, opts, "step")
        cols = [run(new, path, workload, opts, "flow"),
                run(old, path, workload, opts, "analytic"),
                run(new, path, workload, opts, "analytic")]
        cells = [" / ".join(rel(c[j], step[j]) for j in range(3)) for c in cols]
        print("| %d: %s on %s %s | %s |" % (i, workload, platform, " ".join(opts),
                                             " | ".join(cells)), flush=True)


if __name__ == "__main__":
    main()
