#!/usr/bin/env python3
"""gen-shapes.py - the distinct conv and GEMM shapes of dtsim's model zoo.

Writes shapes-conv.csv and shapes-gemm.csv (DeepBench column names) for the
training kernels of ResNet-50, ResNet-152, VGG-16, AlexNet, Inception-v3,
GoogLeNet, MobileNet-v2 and DenseNet-121 at the given batch sizes.

Model: the layer geometry of the torchvision definitions (ImageNet, 1000
classes; 224x224 input, 299x299 for Inception-v3), written out here by hand so
the tool needs no PyTorch. Where torchvision departs from the paper it is
followed: GoogLeNet's "5x5" branch is a 3x3 conv (torchvision keeps it for
weight compatibility); ResNets are v1.5 (stride on the 3x3 conv); the
auxiliary classifiers of GoogLeNet and Inception-v3 are included (they train).
Dilation is 1 everywhere. Only conv and fc layers are listed: pooling, batch
norm and element-wise layers are memory-bound and priced by bytes.

A fully-connected layer with I inputs and O outputs at batch B is three GEMMs
in cuBLAS's column-major terms (C[M,N] = op(A)[M,K] op(B)[K,N]), as DeepBench
lists training GEMMs:
  forward            M=O N=B K=I  N,N   (Y = W X)
  backward data      M=I N=B K=O  T,N   (dX = W^T dY)
  backward weights   M=O N=I K=B  N,T   (dW = dY X^T)

Rows are ordered by batch (in the order given, most useful first), then by
first appearance, so a run cut short by its time limit still covers whole
batch sizes.

usage: gen-shapes.py [--batches 32,64,16] [--outdir DIR]
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET


def out_size(size, kernel, stride, pad, ceil=False):
    num = size + 2 * pad - kernel
    if ceil:
        return -(-num // stride) + 1
    return num // stride + 1


class Net:
    """Tracks the activation shape (c, h, w) and records conv/fc layers."""

    def __init__(self, name, c, h, w):
        self.name = name
        self.c, self.h, self.w = c, h, w
        self.convs = []   # (W, H, C, K, filter_w, filter_h, pad_w, pad_h, stride_w, stride_h, groups)
        self.fcs = []     # (in_features, out_features)
        self.aux_convs = []   # auxiliary classifiers: trained, not in dtsim's zoo
        self.aux_fcs = []

    def conv(self, k, kernel, stride=1, pad=0, groups=1, src=None, aux=False):
        """Conv with k output channels; kernel/stride/pad are int or (h, w)."""
        c, h, w = src if src else (self.c, self.h, self.w)
        kh, kw = kernel if isinstance(kernel, tuple) else (kernel, kernel)
        sh, sw = stride if isinstance(stride, tuple) else (stride, stride)
        ph, pw = pad if isinstance(pad, tuple) else (pad, pad)
        (self.aux_convs if aux else self.convs).append((w, h, c, k, kw, kh, pw, ph, sw, sh, groups))
        out = (k, out_size(h, kh, sh, ph), out_size(w, kw, sw, pw))
        if src is None:
            self.c, self.h, self.w = out
        return out

    def pool(self, kernel, stride, pad=0, ceil=False):
        self.h = out_size(self.h, kernel, stride, pad, ceil)
        self.w = out_size(self.w, kernel, stride, pad, ceil)

    def fc(self, i, o, aux=False):
        (self.aux_fcs if aux else self.fcs).append((i, o))

    def shape(self):
        return (self.c, self.h, self.w)


def resnet(name, blocks):
    n = Net(name, 3, 224, 224)
    n.conv(64, 7, 2, 3)
    n.pool(3, 2, 1)
    inplanes = 64
    for stage, count in enumerate(blocks):
        planes = 64 << stage
        for b in range(count):
            stride = 2 if (b == 0 and stage > 0) else 1
            src = n.shape()
            n.conv(planes, 1)
            n.conv(planes, 3, stride, 1)
            n.conv(planes * 4, 1)
            if b == 0:
                n.conv(planes * 4, 1, stride, 0, src=src)
            inplanes = planes * 4
    n.fc(inplanes, 1000)
    return n


def vgg16():
    n = Net("vgg16", 3, 224, 224)
    cfg = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M",
           512, 512, 512, "M", 512, 512, 512, "M"]
    for v in cfg:
        if v == "M":
            n.pool(2, 2)
        else:
            n.conv(v, 3, 1, 1)
    n.fc(512 * 7 * 7, 4096)
    n.fc(4096, 4096)
    n.fc(4096, 1000)
    return n


def alexnet():
    n = Net("alexnet", 3, 224, 224)
    n.conv(64, 11, 4, 2)
    n.pool(3, 2)
    n.conv(192, 5, 1, 2)
    n.pool(3, 2)
    n.conv(384, 3, 1, 1)
    n.conv(256, 3, 1, 1)
    n.conv(256, 3, 1, 1)
    n.pool(3, 2)
    # torchvision pools adaptively to 6x6: at 224 the map is already 6x6.
    n.fc(256 * 6 * 6, 4096)
    n.fc(4096, 4096)
    n.fc(4096, 1000)
    return n


def googlenet():
    n = Net("googlenet", 3, 224, 224)
    n.conv(64, 7, 2, 3)
    n.pool(3, 2, ceil=True)
    n.conv(64, 1)
    n.conv(192, 3, 1, 1)
    n.pool(3, 2, ceil=True)

    def inception(c1, c3r, c3, c5r, c5, pp):
        src = n.shape()
        n.conv(c1, 1, src=src)
        r = n.conv(c3r, 1, src=src)
        n.conv(c3, 3, 1, 1, src=r)
        r = n.conv(c5r, 1, src=src)
        n.conv(c5, 3, 1, 1, src=r)   # torchvision: 3x3, not the paper's 5x5
        n.conv(pp, 1, src=src)       # after a 3x3/1 max pool: same size
        n.c = c1 + c3 + c5 + pp

    def aux():
        c = n.c
        n.conv(128, 1, src=(c, 4, 4), aux=True)  # adaptive average pool to 4x4 first
        n.fc(128 * 4 * 4, 1024, aux=True)
        n.fc(1024, 1000, aux=True)

    inception(64, 96, 128, 16, 32, 32)
    inception(128, 128, 192, 32, 96, 64)
    n.pool(3, 2, ceil=True)
    inception(192, 96, 208, 16, 48, 64)
    aux()
    inception(160, 112, 224, 24, 64, 64)
    inception(128, 128, 256, 24, 64, 64)
    inception(112, 144, 288, 32, 64, 64)
    aux()
    inception(256, 160, 320, 32, 128, 128)
    n.pool(2, 2, ceil=True)
    inception(256, 160, 320, 32, 128, 128)
    inception(384, 192, 384, 48, 128, 128)
    n.fc(1024, 1000)
    return n


def inception_v3():
    n = Net("inception3", 3, 299, 299)
    n.conv(32, 3, 2)
    n.conv(32, 3)
    n.conv(64, 3, 1, 1)
    n.pool(3, 2)
    n.conv(80, 1)
    n.conv(192, 3)
    n.pool(3, 2)

    def block_a(pool_features):
        src = n.shape()
        n.conv(64, 1, src=src)
        r = n.conv(48, 1, src=src)
        n.conv(64, 5, 1, 2, src=r)
        r = n.conv(64, 1, src=src)
        r = n.conv(96, 3, 1, 1, src=r)
        n.conv(96, 3, 1, 1, src=r)
        n.conv(pool_features, 1, src=src)
        n.c = 64 + 64 + 96 + pool_features

    def block_b():
        src = n.shape()
        a = n.conv(384, 3, 2, src=src)
        r = n.conv(64, 1, src=src)
        r = n.conv(96, 3, 1, 1, src=r)
        n.conv(96, 3, 2, src=r)
        n.c, n.h, n.w = 384 + 96 + src[0], a[1], a[2]

    def block_c(c7):
        src = n.shape()
        n.conv(192, 1, src=src)
        r = n.conv(c7, 1, src=src)
        r = n.conv(c7, (1, 7), 1, (0, 3), src=r)
        n.conv(192, (7, 1), 1, (3, 0), src=r)
        r = n.conv(c7, 1, src=src)
        r = n.conv(c7, (7, 1), 1, (3, 0), src=r)
        r = n.conv(c7, (1, 7), 1, (0, 3), src=r)
        r = n.conv(c7, (7, 1), 1, (3, 0), src=r)
        n.conv(192, (1, 7), 1, (0, 3), src=r)
        n.conv(192, 1, src=src)
        n.c = 768

    def aux():
        h = out_size(n.h, 5, 3, 0)
        r = n.conv(128, 1, src=(n.c, h, h), aux=True)
        n.conv(768, 5, src=r, aux=True)
        n.fc(768, 1000, aux=True)

    def block_d():
        src = n.shape()
        r = n.conv(192, 1, src=src)
        a = n.conv(320, 3, 2, src=r)
        r = n.conv(192, 1, src=src)
        r = n.conv(192, (1, 7), 1, (0, 3), src=r)
        r = n.conv(192, (7, 1), 1, (3, 0), src=r)
        n.conv(192, 3, 2, src=r)
        n.c, n.h, n.w = 320 + 192 + src[0], a[1], a[2]

    def block_e():
        src = n.shape()
        n.conv(320, 1, src=src)
        r = n.conv(384, 1, src=src)
        n.conv(384, (1, 3), 1, (0, 1), src=r)
        n.conv(384, (3, 1), 1, (1, 0), src=r)
        r = n.conv(448, 1, src=src)
        r = n.conv(384, 3, 1, 1, src=r)
        n.conv(384, (1, 3), 1, (0, 1), src=r)
        n.conv(384, (3, 1), 1, (1, 0), src=r)
        n.conv(192, 1, src=src)
        n.c = 320 + 768 + 768 + 192

    block_a(32)
    block_a(64)
    block_a(64)
    block_b()
    block_c(128)
    block_c(160)
    block_c(160)
    block_c(192)
    aux()
    block_d()
    block_e()
    block_e()
    n.fc(2048, 1000)
    return n


def mobilenet_v2():
    n = Net("mobilenet2", 3, 224, 224)
    n.conv(32, 3, 2, 1)
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    for t, c, count, s in settings:
        for i in range(count):
            stride = s if i == 0 else 1
            hidden = n.c * t
            if t != 1:
                n.conv(hidden, 1)
            n.conv(hidden, 3, stride, 1, groups=hidden)
            n.conv(c, 1)
    n.conv(1280, 1)
    n.fc(1280, 1000)
    return n


def densenet121():
    n = Net("densenet121", 3, 224, 224)
    growth, bn_size = 32, 4
    n.conv(64, 7, 2, 3)
    n.pool(3, 2, 1)
    blocks = (6, 12, 24, 16)
    for bi, count in enumerate(blocks):
        c = n.c
        for i in range(count):
            r = n.conv(bn_size * growth, 1, src=(c, n.h, n.w))
            n.conv(growth, 3, 1, 1, src=r)
            c += growth
        n.c = c
        if bi != len(blocks) - 1:
            n.conv(c // 2, 1)
            n.pool(2, 2)
    n.fc(n.c, 1000)
    return n


MODELS = [
    lambda: resnet("resnet50", (3, 4, 6, 3)),
    lambda: resnet("resnet101", (3, 4, 23, 3)),
    lambda: resnet("resnet152", (3, 8, 36, 3)),
    vgg16, alexnet, inception_v3, googlenet, mobilenet_v2, densenet121,
]

CONV_COLUMNS = ["W", "H", "C", "N", "K", "filter_w", "filter_h", "pad_w", "pad_h",
                "stride_w", "stride_h", "groups", "out_w", "out_h", "app"]
GEMM_COLUMNS = ["M", "N", "K", "transA", "transB", "pass", "app"]


def distinct(items):
    """Maps each distinct key to the models using it, in first-seen order."""
    seen = {}
    for model, key in items:
        users = seen.setdefault(key, [])
        if model not in users:
            users.append(model)
    return seen


def pair(text, default):
    """'3' -> (3, 3); '1x7' -> (1, 7) as (h, w), the zoo's notation."""
    if text is None:
        return (default, default)
    parts = [int(p) for p in text.split("x")]
    return (parts[0], parts[0]) if len(parts) == 1 else (parts[0], parts[1])


def zoo_layers(dtsim, path):
    """Conv and fc geometry of one zoo workload: attributes from its XML, input
    shapes as dtsim infers them (`dtsim info --format json`)."""
    info = json.loads(subprocess.run([dtsim, "info", path, "--format", "json"], check=True,
                                     capture_output=True, text=True).stdout)
    shapes = {l["name"]: l["output_shape"] for l in info["layers"]}
    inputs = {l["name"]: l["inputs"] for l in info["layers"]}
    convs, fcs = [], []
    for el in ET.parse(path).getroot().iter("layer"):
        kind, name = el.get("type"), el.get("name")
        if kind not in ("conv", "fc"):
            continue
        c, h, w = shapes[inputs[name][0]]
        k = int(el.get("out"))
        if kind == "fc":
            fcs.append((c * h * w, k))
            continue
        kh, kw = pair(el.get("kernel"), 1)
        sh, sw = pair(el.get("stride"), 1)
        ph, pw = pair(el.get("pad"), 0)
        convs.append((w, h, c, k, kw, kh, pw, ph, sw, sh, int(el.get("groups", "1"))))
    return convs, fcs


def check_zoo(nets, dtsim):
    """0 when every model's conv and fc layers equal the shipped zoo's, in order."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "workloads")
    bad = 0
    for n in nets:
        convs, fcs = zoo_layers(dtsim, os.path.join(root, n.name + ".xml"))
        for what, mine, zoo in (("conv", n.convs, convs), ("fc", n.fcs, fcs)):
            if mine == zoo:
                continue
            bad += 1
            diff = next((i for i, (a, b) in enumerate(zip(mine, zoo)) if a != b),
                        min(len(mine), len(zoo)))
            print(f"gen-shapes: {n.name}: {what} layers differ from the zoo at #{diff} "
                  f"({len(mine)} here, {len(zoo)} in the zoo): "
                  f"here {mine[diff] if diff < len(mine) else None}, "
                  f"zoo {zoo[diff] if diff < len(zoo) else None}", file=sys.stderr)
    if bad:
        print(f"gen-shapes: {bad} layer lists differ from the zoo", file=sys.stderr)
    else:
        print(f"gen-shapes: all {len(nets)} models match the zoo layer by layer",
              file=sys.stderr)
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batches", default="32,64,16")
    ap.add_argument("--outdir", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--check-zoo", metavar="DTSIM",
                    help="compare with workloads/*.xml as DTSIM loads them; write nothing")
    args = ap.parse_args()
    try:
        batches = [int(b) for b in args.batches.split(",")]
    except ValueError:
        sys.exit("gen-shapes: --batches wants integers, like 32,64,16")
    if not batches or min(batches) < 1:
        sys.exit("gen-shapes: --batches wants positive integers")

    nets = [m() for m in MODELS]
    if args.check_zoo:
        sys.exit(check_zoo(nets, args.check_zoo))
    convs = distinct([(n.name, c) for n in nets for c in n.convs]
                     + [(n.name + "-aux", c) for n in nets for c in n.aux_convs])
    fcs = distinct([(n.name, f) for n in nets for f in n.fcs]
                   + [(n.name + "-aux", f) for n in nets for f in n.aux_fcs])

    with open(os.path.join(args.outdir, "shapes-conv.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(CONV_COLUMNS)
        for b in batches:
            for (W, H, C, K, fw, fh, pw, ph, sw, sh, g), users in convs.items():
                ow = out_size(W, fw, sw, pw)
                oh = out_size(H, fh, sh, ph)
                w.writerow([W, H, C, b, K, fw, fh, pw, ph, sw, sh, g, ow, oh,
                            ";".join(users)])
    gemms = 0
    with open(os.path.join(args.outdir, "shapes-gemm.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(GEMM_COLUMNS)
        for b in batches:
            for (i, o), users in fcs.items():
                app = ";".join(users)
                w.writerow([o, b, i, "N", "N", "fwd", app])
                w.writerow([i, b, o, "T", "N", "bwd_data", app])
                w.writerow([o, i, b, "N", "T", "bwd_filter", app])
                gemms += 3
    for n in nets:
        print(f"{n.name}: {len(n.convs)} conv, {len(n.fcs)} fc layers"
              f" (+{len(n.aux_convs)} conv, {len(n.aux_fcs)} fc in auxiliary heads)",
              file=sys.stderr)
    print(f"gen-shapes: {len(convs)} distinct conv shapes, {len(fcs)} distinct fc shapes; "
          f"{len(convs) * len(batches)} conv rows, {gemms} GEMM rows "
          f"for batches {args.batches}", file=sys.stderr)


if __name__ == "__main__":
    main()
