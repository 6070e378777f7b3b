#!/usr/bin/env python3
"""Training throughput predicted by `dtsim run` against measured throughput.

usage: tools/validate-compute.py BUILD_DIR [--rows] [--set fit|report|all]
          [--quick] [--framework SET=ID ...] [-- EXTRA dtsim run OPTIONS...]

--framework SET=ID runs the rows of SET (lambda, lambda-v1, tf2017, convnet)
under the framework profile ID (a shipped name or a file; lambda= sets both
Lambda tables); by default lambda-v0 rows run under `pytorch`, lambda-v1
under `pytorch-ngc22`, tf2017 under `tensorflow1` and convnet under
`torch7-cudnn4` (tf2017-cluster as tf2017).  --quick keeps the 1- and 8-GPU
Lambda rows, the 1-GPU TF rows and the 1- and 64-GPU cluster ones.

Reads $DTSIM_SHARED/data/validation (else ../shared/data/validation beside the
source tree); exits 77 when it is absent.  Rows:

  lambda-v0   lambda_pytorch_throughput_2022.csv, ResNet-50 (PyTorch
              DeepLearningExamples, NGC 20.x containers, table of 2022-07):
              V100 SXM2 16/32 GB, A100 SXM4 40/80 GB, 1..8 GPUs.   FIT set.
  lambda-v1   lambda_pytorch_throughput.csv table v1, ResNet-50 (NGC 22.09+):
              V100 SXM2 16 GB, A100 SXM4 80 GB, 1..8 GPUs:         REPORT set;
              A100 PCIe 40/80 GB, 1 and 2 GPUs:                    FIT set.
  lambda-v0-other  the 2022 table's RTX A6000 and RTX 3090 (GA102) and
              Quadro RTX 8000 (TU102), 1..8 GPUs:                  FIT set
              (the GA102 and TU102 keys of frameworks/pytorch.conf).
  lambda-v1-other  table v1's PCIe cards: RTX 3090, RTX 4090, RTX A6000,
              RTX 6000 Ada, A10, Quadro RTX 8000, 1..8 GPUs:       REPORT set.
  lambda-v1-ssd  table v1's SSD300 rows (workloads/ssd300.xml) on the GPUs
              above, 1..8 GPUs: A100 PCIe rows FIT set (pytorch-ngc22's
              GA100 keys), the others REPORT set.  Slices "lambda-v1 all GPUs"
              (ResNet-50 of lambda-v1 and lambda-v1-other) and "lambda-v1 all
              GPUs, ResNet-50 + SSD" (and lambda-v1-ssd).
  tf2017      tf_benchmarks_2017_images_per_sec.csv, synthetic rows, DGX-1
              (P100 SXM2) and AWS p2.8xlarge (K80), 1..8 GPUs: the 1-GPU
              DGX-1 rows and the p2.8xlarge ResNet-50 rows FIT set, the
              others REPORT set.
  tf2017-cluster  the same file's AWS p2.8xlarge cluster rows, 1..64 K80
              dies on aws-p2-8xlarge-x8 with --collective ps
              --ps-aggregation node (TensorFlow's distributed_replicated),
              under tensorflow1:                                   REPORT set;
              with "scaling 8->n" over the 8-GPU (one instance) row.
  convnet     convnet_benchmarks_titanx.csv, cuDNN R4 fp32 and fp16 (Torch)
              whole networks on the Titan X (taken as Maxwell), the
              benchmark's own models (workloads/convnet-benchmarks/),
              forward+backward ms: VGG-A (fp32, fp16)              FIT set;
              AlexNet OWT, OverFeat fast, GoogLeNet V1             REPORT set.

The FIT set is what any constant of the cost models or framework profiles
may be fitted on; the REPORT set is never looked at while fitting.  fp32 on
a GPU with a TF32 rate in the catalogue is run as tf32 (PyTorch >= 1.7 runs
convolutions in TF32 by default).
Lambda's throughput is the whole system's (summed over its GPUs), as is
`dtsim run`'s.  Error = predicted / measured - 1 (positive: dtsim too fast).
"""
import atexit
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)

LAMBDA_GPUS = {  # name in the source, without the count prefix -> catalogue id
    "V100 16GB": "V100-SXM2-16GB", "V100 32GB": "V100-SXM2-32GB",
    "A100 40GB SXM4": "A100-SXM4-40GB", "A100 80GB SXM4": "A100-SXM4-80GB",
    # table v1 only: its FIT rows (frameworks/pytorch-ngc22.conf)
    "A100 40GB PCIe": "A100-PCIE-40GB", "A100 80GB PCIe": "A100-PCIE-80GB",
}
LAMBDA_OTHER_GPUS = {  # PCIe cards: sets lambda-v0-other (FIT) and lambda-v1-other (REPORT)
    "v0": {"RTX A6000": "RTXA6000", "Quadro RTX 8000": "RTX8000", "RTX Quadro 8000": "RTX8000",
           "RTX 3090": "RTX3090"},
    "v1": {"RTX 3090": "RTX3090", "RTX 4090": "RTX4090", "RTX A6000": "RTXA6000",
           "RTX 6000 Ada": "RTX6000-Ada", "A10": "A10", "Quadro RTX 8000": "RTX8000"},
}


def tf32_gpus():
    """The catalogue's GPUs with a TF32 rate (platforms/gpus.xml)."""
    import xml.etree.ElementTree as ET
    path = os.path.join(os.environ.get("DTSIM_DATADIR", SRC), "platforms", "gpus.xml")
    return set(g.get("id") for g in ET.parse(path).getroot().iter("gpu")
               if g.get("tf32") not in (None, "0"))
TF_MODELS = {"InceptionV3": "inception3", "ResNet-50": "resnet50", "ResNet-152": "resnet152",
             "AlexNet": "alexnet", "VGG16": "vgg16"}
CONVNET_MODELS = {"AlexNet (One Weird Trick paper)": "alexnet-owt", "Overfeat [fast]": "overfeat-fast",
                  "OxfordNet [Model-A]": "vgg-a", "GoogleNet V1": "googlenet-v1"}
# cuDNN R4 "fp16" on the Maxwell Titan X: fp16 storage, fp32 arithmetic (the
# catalogue's fp16 peak of 0 falls back to fp32; the bytes halve)
CONVNET_LIBRARIES = {"CuDNN[R4]-fp32 (Torch)": "fp32", "CuDNN[R4]-fp16 (Torch)": "fp16"}


def shared_dir():
    d = os.environ.get("DTSIM_SHARED") or os.path.join(SRC, "..", "shared")
    v = os.path.join(d, "data", "validation")
    if not os.path.isdir(v):
        print("validate-compute.py: no data/validation under '%s' (set DTSIM_SHARED); skipped" % d,
              file=sys.stderr)
        sys.exit(77)
    return v


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


class Dtsim:
    def __init__(self, build, extra):
        self.exe = os.path.join(build, "dtsim")
        self.extra = extra
        self.env = dict(os.environ, DTSIM_DATADIR=os.environ.get("DTSIM_DATADIR", SRC))
        self.tmp = tempfile.mkdtemp(prefix="dtsim-validate-")
        atexit.register(shutil.rmtree, self.tmp, True)
        self.platforms = {}

    def call(self, *args):
        p = subprocess.run([self.exe, *args], env=self.env, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("dtsim %s failed: %s" % (" ".join(args), p.stderr.strip()))
        return p.stdout

    def platform(self, gpu):
        """One node of 8 GPUs: NVSwitch for A100 (DGX A100 / HGX), the DGX-1 hybrid
        cube-mesh for V100 (Lambda's V100 servers are SXM2 NVLink machines)."""
        if gpu not in self.platforms:
            path = os.path.join(self.tmp, gpu + ".xml")
            # PCIe 3.0 x16 on root ports, as the rows were fitted and reported
            # with (dtsim validate does the same), not the GPU's system class
            pcie3 = ["--pcie-switches", "0", "--pcie-bandwidth", "15.75GB/s"]
            if gpu.startswith("A100-SXM"):  # A100 PCIe cards: PCIe only
                fabric = ["--intra", "nvswitch", "--intra-bandwidth", "300GB/s", *pcie3]
            elif gpu.startswith("V100"):
                fabric = ["--intra", "nvlink-mesh", "--nvlink-pairs", "dgx1-v100",
                          "--intra-bandwidth", "25GB/s", "--pcie-switches", "2"]
            else:
                fabric = ["--intra", "pcie", *pcie3]
            self.call("platform", "-o", path, "--nodes", "1", "--gpus-per-node", "8", "--gpu",
                      gpu, *fabric)
            self.platforms[gpu] = path
        return self.platforms[gpu]

    def run(self, platform, workload, batch, n, precision, framework=None, iterations=3,
            args=()):
        fw = ["--framework", framework] if framework else []
        out = self.call("run", "-p", platform, "-w", workload, "-b", str(batch), "-n", str(n),
                        "--precision", precision, "-i", str(iterations), "--format", "json",
                        "--quiet", "--allow-oversubscribe-memory", *fw, *args, *self.extra)
        return json.loads(out)


def lambda_rows(vdir, quick):
    rows = []
    tf32 = tf32_gpus()
    for fname, table, split in (("lambda_pytorch_throughput_2022.csv", "v0", "fit"),
                                ("lambda_pytorch_throughput.csv", "v1", "report")):
        seen = set()
        for r in read_csv(os.path.join(vdir, fname)):
            # SSD300 from table v1 only: the 2022 table's SSD "fp32" rows run
            # faster than the fp32 peak allows (V100: 16.4 of 15.7 TFLOP/s)
            ssd = r["task"] == "ssd" and table == "v1"
            if (r["task"] != "resnet50" and not ssd) or r["table"] != table:
                continue
            name = r["gpu_name_as_in_source"].replace("LambdaCloud", "").replace(
                "Lambda Cloud \u2014", "").strip()
            n = int(float(r["gpu_count"]))
            if name.startswith("%dx" % n):
                name = name[len("%dx" % n):].strip()
            gpu = LAMBDA_GPUS.get(name)
            other = gpu is None and name in LAMBDA_OTHER_GPUS[table]
            if other:
                gpu = LAMBDA_OTHER_GPUS[table][name]
            pcie = gpu is not None and "PCIE" in gpu
            if gpu is None or float(r["throughput"]) <= 0 or (pcie and split == "fit"):
                continue
            if quick and n not in (1, 8):
                continue
            key = (r["task"], gpu, n, r["precision"])
            if key in seen:
                continue
            seen.add(key)
            prec = r["precision"]
            if prec == "fp32" and gpu in tf32:  # PyTorch runs fp32 convolutions in TF32
                prec = "tf32"
            name = "lambda-v1-ssd" if ssd else "lambda-%s%s" % (table, "-other" if other else "")
            rows.append(dict(set=name, split="fit" if pcie else split, gpu=gpu, n=n,
                             workload="ssd300" if ssd else "resnet50",
                             batch=int(r["batch_size_per_gpu"]),
                             precision=prec, measured=float(r["throughput"]), unit="img/s"))
    return rows


# The p2.8xlarge cluster ran TensorFlow's distributed_replicated mode: the
# dies of an instance sum their gradients, parameter servers on the workers
PS_NODE = ["--collective", "ps", "--ps-aggregation", "node"]


def tf_rows(vdir, quick):
    rows = []
    plat = {"NVIDIA DGX-1": ("dgx1-p100", "P100-SXM2-16GB", "tf2017", []),
            "AWS p2.8xlarge": ("aws-p2-8xlarge", "K80", "tf2017", []),
            "AWS p2.8xlarge cluster (multi-node)": ("aws-p2-8xlarge-x8", "K80", "tf2017-cluster",
                                                    PS_NODE)}
    for r in read_csv(os.path.join(vdir, "tf_benchmarks_2017_images_per_sec.csv")):
        if r["data"] != "synthetic" or r["platform"] not in plat or r["images_per_sec"] in (
                "", "N/A"):
            continue
        n = int(r["n_gpus"])
        p, gpu, name, args = plat[r["platform"]]
        cluster = name == "tf2017-cluster"
        if quick and n != 1 and not (cluster and n == 64):
            continue
        w = TF_MODELS[r["model"]]
        # FIT (frameworks/tensorflow1.conf): the 1-GPU DGX-1 rows and every
        # p2.8xlarge ResNet-50 row; REPORT: the rest, and the cluster's rows
        fit = not cluster and ((gpu == "K80" and w == "resnet50") or (gpu != "K80" and n == 1))
        rows.append(dict(set=name, split="fit" if fit else "report", gpu=gpu, platform=p,
                         n=n, workload=w, batch=int(r["batch_per_gpu"]), precision="fp32",
                         measured=float(r["images_per_sec"]), unit="img/s", args=args))
    return rows


def convnet_rows(vdir):
    rows = []
    for r in read_csv(os.path.join(vdir, "convnet_benchmarks_titanx.csv")):
        prec = CONVNET_LIBRARIES.get(r["library"])
        w = CONVNET_MODELS.get(r["model_or_layer"])
        if r["table"] != "imagenet_winners" or prec is None or w is None or not r["total_ms"]:
            continue
        path = os.path.join(os.environ.get("DTSIM_DATADIR", SRC), "workloads",
                            "convnet-benchmarks", w + ".xml")
        # FIT (frameworks/torch7-cudnn4.conf): the VGG-A pair; REPORT: the rest
        rows.append(dict(set="convnet", split="fit" if w == "vgg-a" else "report",
                         gpu="TitanX-Maxwell", n=1, workload=w, path=path,
                         batch=int(r["batch_size"]), precision=prec,
                         measured=float(r["total_ms"]), unit="ms fwd+bwd"))
    return rows


DEFAULT_FRAMEWORKS = {"lambda": "pytorch", "lambda-v1": "pytorch-ngc22", "tf2017": "tensorflow1",
                      "convnet": "torch7-cudnn4"}


def predict(d, row, frameworks=None):
    plat = row.get("platform") or d.platform(row["gpu"])
    fws = frameworks or DEFAULT_FRAMEWORKS
    fw = fws["lambda-v1"] if row["set"].startswith("lambda-v1") else fws.get(
        row["set"], fws.get(row["set"].split("-")[0]))
    j = d.run(plat, row.get("path", row["workload"]), row["batch"], row["n"], row["precision"], fw,
              args=row.get("args", ()))
    if row["unit"] == "img/s":
        return j["throughput_samples_per_s"], j
    b = j["breakdown"]
    return 1e3 * (b["forward_s"] + b["backward_s"]), j


def slices(row):
    s = [row["set"]]
    if row["set"].startswith("lambda"):
        g = row["gpu"].split("-")[0]
        s += ["%s %s" % (row["set"], g), "%s %s %s" % (row["set"], g, row["precision"]),
              "%s %d-GPU" % (row["set"], row["n"])]
        if row["set"].startswith("lambda-v1"):
            s.append("lambda-v1 all GPUs, ResNet-50 + SSD")
            if row["workload"] == "resnet50":
                s.append("lambda-v1 all GPUs")
    elif row["set"] == "tf2017":
        s += ["tf2017 " + row["gpu"]]
    elif row["set"] == "tf2017-cluster":
        s += ["tf2017-cluster " + row["workload"]]
    elif row["set"] == "convnet":
        s += ["convnet " + row["precision"]]
    return s


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        i = args.index("--")
        args, extra = args[:i], args[i + 1:]
    if not args:
        sys.exit(__doc__)
    build = args[0]
    show_rows = "--rows" in args
    quick = "--quick" in args
    which = "all"
    if "--set" in args:
        which = args[args.index("--set") + 1]
    frameworks = dict(DEFAULT_FRAMEWORKS)
    for i, a in enumerate(args):
        if a == "--framework":
            k, _, v = args[i + 1].partition("=")
            if k not in frameworks or not v:
                sys.exit("--framework %s: expected SET=ID with SET one of %s" % (
                    args[i + 1], ", ".join(sorted(frameworks))))
            frameworks[k] = v
            if k == "lambda" and not any(
                    b.startswith("lambda-v1=") for a, b in zip(args, args[1:]) if a == "--framework"):
                frameworks["lambda-v1"] = v  # both Lambda tables, unless lambda-v1= is given
    vdir = shared_dir()
    d = Dtsim(build, extra)
    rows = lambda_rows(vdir, quick) + tf_rows(vdir, quick) + convnet_rows(vdir)
    if which != "all":
        rows = [r for r in rows if r["split"] == which]
    acc = {}
    base = {}
    for r in rows:
        p, j = predict(d, r, frameworks)
        r["predicted"] = p
        r["fits"] = j["memory"]["fits"]
        e = p / r["measured"] - 1 if r["unit"] == "img/s" else r["measured"] / p - 1
        r["error"] = e
        for s in slices(r):
            acc.setdefault((r["split"], s), []).append(e)
        if r["n"] in (1, 8):
            base[(r["set"], r["gpu"], r["precision"], r["workload"], r["batch"], r["n"])] = r
    # weak-scaling factor (throughput at n / throughput at 1) against the measured one
    # and over one 8-GPU node ("8->n") where a set goes beyond one
    for r in rows:
        key = (r["set"], r["gpu"], r["precision"], r["workload"], r["batch"])
        b = base.get(key + (1,))
        if r["n"] > 1 and b is not None:
            ms = r["measured"] / b["measured"]
            ps = r["predicted"] / b["predicted"]
            acc.setdefault((r["split"], r["set"] + " scaling 1->n"), []).append(ps / ms - 1)
            if r["n"] == 8:
                acc.setdefault((r["split"], r["set"] + " scaling 1->8"), []).append(ps / ms - 1)
        b8 = base.get(key + (8,))
        if r["n"] > 8 and b8 is not None:
            ms = r["measured"] / b8["measured"]
            ps = r["predicted"] / b8["predicted"]
            acc.setdefault((r["split"], r["set"] + " scaling 8->n"), []).append(ps / ms - 1)
    if show_rows:
        print("| split | set | GPU | GPUs | workload | batch | precision | measured | predicted "
              "| error | fits |")
        print("|---|---|---|---:|---|---:|---|---:|---:|---:|---|")
        for r in rows:
            print("| %s | %s | %s | %d | %s | %d | %s | %g %s | %.1f | %+.1f%% | %s |" % (
                r["split"], r["set"], r["gpu"], r["n"], r["workload"], r["batch"],
                r["precision"], r["measured"], r["unit"], r["predicted"], 100 * r["error"],
                "yes" if r["fits"] else "NO"))
        print()
    print("Framework profiles: %s\n" % ", ".join("%s %s" % kv for kv in sorted(frameworks.items())))
    print("| split | slice | rows | MAPE | signed bias |")
    print("|---|---|---:|---:|---:|")
    for (split, s), errs in sorted(acc.items()):
        m = 100 * sum(abs(e) for e in errs) / len(errs)
        b = 100 * sum(errs) / len(errs)
        print("| %s | %s | %d | %.1f%% | %+.1f%% |" % (split, s, len(errs), m, b))


if __name__ == "__main__":
    main()
