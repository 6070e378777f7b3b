#!/usr/bin/env python3
"""measure-torch.py - the PyTorch stand-in for measure-kernels.cu.

Used only where the CUDA C program can neither be loaded nor built. It reads
the same shape lists and writes the same columns, with source
`measure-kernels-torch`, so the two are told apart.

Method, as close to measure-kernels.cu as PyTorch allows:
- cudnn.benchmark = True: PyTorch times the candidate cuDNN engines of each
  new shape once (cuDNN's find) and keeps the fastest; the algorithm chosen is
  not exposed, so the algo columns read `torch-benchmark`.
- Forward is F.conv2d; backward data and backward filter are each timed alone
  through aten.convolution_backward with an output mask.
- fp32 disables TF32 in cuDNN and cuBLAS; tf32 enables it; fp16/bf16 use
  channels_last tensors, and reduced-precision GEMM reductions are disabled
  (fp32 accumulation, as in measure-kernels.cu).
- Timing: warm-ups, then --runs calls queued behind torch.cuda._sleep with a
  CUDA event between consecutive calls; median of the intervals. Python's
  launch cost is hidden by the queue as long as the sleep outlasts it, which
  is checked and reported in `queued`.
- --device cpu runs the same code with wall-clock timing on tiny shapes: a
  smoke test of the script, not a measurement.
"""

import argparse
import datetime
import statistics
import sys
import time

import torch
import torch.nn.functional as F

CONV_HEADER = ("mode,device,cuda,dnnlib,precision,app,W,H,C,N,K,filter_w,filter_h,pad_w,"
               "pad_h,stride_w,stride_h,groups,out_w,out_h,fwd_ms,bwd_data_ms,bwd_filter_ms,"
               "fwd_algo,bwd_data_algo,bwd_filter_algo,layout,queued,source")
GEMM_HEADER = ("mode,device,cuda,dnnlib,precision,app,M,N,K,transA,transB,pass,time_ms,"
               "queued,source")

PRECISIONS = {
    # name: (dtype, tf32 allowed, channels_last)
    "fp32": (torch.float32, False, False),
    "tf32": (torch.float32, True, False),
    "fp16": (torch.float16, False, True),
    "bf16": (torch.bfloat16, False, True),
}


def read_table(path):
    rows = []
    header = None
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line or line.startswith("#"):
                continue
            cells = line.split(",")
            if header is None:
                header = cells
                continue
            if len(cells) != len(header):
                sys.exit(f"measure-torch: error: '{path}': line {lineno}: {len(cells)} "
                         f"columns (the header has {len(header)})")
            rows.append((lineno, dict(zip(header, cells))))
    if header is None:
        sys.exit(f"measure-torch: error: '{path}': no header line")
    return rows


def ints(path, lineno, row, names, minimum=0):
    out = []
    for n in names:
        try:
            v = int(row[n])
        except (KeyError, ValueError):
            sys.exit(f"measure-torch: error: '{path}': line {lineno}: column {n}: "
                     f"'{row.get(n, '')}' is not an integer")
        if v < minimum:
            sys.exit(f"measure-torch: error: '{path}': line {lineno}: column {n}: "
                     f"{v} < {minimum}")
        out.append(v)
    return out


class Timer:
    def __init__(self, device, warmup, runs):
        self.device, self.warmup, self.runs = device, warmup, runs
        self.not_queued = 0
        self.cycles_per_s = None
        if device == "cuda":
            # calibrate torch.cuda._sleep, which counts clock cycles
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(1000000)
            s.record()
            torch.cuda._sleep(10000000)
            e.record()
            torch.cuda.synchronize()
            self.cycles_per_s = 10000000 / (s.elapsed_time(e) * 1e-3)

    def time(self, fn):
        """Median time of one call of FN in ms, and whether the calls were queued."""
        for _ in range(self.warmup):
            fn()
        if self.device != "cuda":
            times = []
            for _ in range(self.runs):
                t0 = time.perf_counter()
                fn()
                times.append((time.perf_counter() - t0) * 1e3)
            return statistics.median(times), 0
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(3):
            fn()
        host_s = (time.perf_counter() - t0) / 3
        torch.cuda.synchronize()
        spin_s = 2.0 * host_s * self.runs + 50e-6
        events = [torch.cuda.Event(enable_timing=True) for _ in range(self.runs + 1)]
        queued = False
        for _ in range(3):
            torch.cuda._sleep(int(min(spin_s, 0.1) * self.cycles_per_s))
            for i in range(self.runs):
                events[i].record()
                fn()
            events[self.runs].record()
            queued = not events[0].query()
            torch.cuda.synchronize()
            if queued:
                break
            spin_s *= 4
        if not queued:
            self.not_queued += 1
        times = [events[i].elapsed_time(events[i + 1]) for i in range(self.runs)]
        return statistics.median(times), int(queued)


def set_precision(name):
    dtype, tf32, channels_last = PRECISIONS[name]
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    try:  # absent before torch 1.14; older versions raise AssertionError on it
        torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    except (AssertionError, AttributeError):
        pass
    return dtype, channels_last


def rand(shape, dtype, device, gen):
    return (torch.rand(shape, generator=gen, device=device, dtype=torch.float32) * 2 - 1).to(dtype)


def measure_conv(timer, row, dtype, channels_last, device, gen):
    (W, H, C, N, K, fw, fh, pw, ph, sw, sh, g) = row
    mf = torch.channels_last if channels_last else torch.contiguous_format
    x = rand((N, C, H, W), dtype, device, gen).contiguous(memory_format=mf)
    w = rand((K, C // g, fh, fw), dtype, device, gen).contiguous(memory_format=mf)
    y = F.conv2d(x, w, None, (sh, sw), (ph, pw), 1, g)
    dy = rand(tuple(y.shape), dtype, device, gen).contiguous(memory_format=mf)
    del y
    stride, pad = [sh, sw], [ph, pw]

    def fwd():
        F.conv2d(x, w, None, (sh, sw), (ph, pw), 1, g)

    def bwd(mask):
        return lambda: torch.ops.aten.convolution_backward(
            dy, x, w, None, stride, pad, [1, 1], False, [0, 0], g, mask)

    with torch.no_grad():
        f = timer.time(fwd)
        d = timer.time(bwd([True, False, False]))
        b = timer.time(bwd([False, True, False]))
    out_h, out_w = dy.shape[2], dy.shape[3]
    return out_w, out_h, f, d, b


def measure_gemm(timer, M, N, K, ta, tb, dtype, device, gen):
    # Column-major C[M,N] = op(A) op(B) is row-major C^T[N,M] = op(B)^T op(A)^T;
    # a column-major X is the row-major tensor of the transposed shape.
    a = rand((M, K) if ta else (K, M), dtype, device, gen)
    b = rand((K, N) if tb else (N, K), dtype, device, gen)
    lhs = b.t() if tb else b          # op(B)^T, N x K
    rhs = a.t() if ta else a          # op(A)^T, K x M
    c = torch.empty((N, M), dtype=dtype, device=device)
    with torch.no_grad():
        return timer.time(lambda: torch.mm(lhs, rhs, out=c))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--conv", required=True)
    ap.add_argument("--gemm", required=True)
    ap.add_argument("--out-conv", required=True)
    ap.add_argument("--out-gemm", required=True)
    ap.add_argument("--precisions", default="fp32,fp16")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--runs", type=int, default=25)
    ap.add_argument("--deadline-s", type=float, default=300)
    ap.add_argument("--limit", type=int, default=-1)
    ap.add_argument("--driver", default="unknown")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    args = ap.parse_args()
    precs = args.precisions.split(",")
    for p in precs:
        if p not in PRECISIONS:
            sys.exit(f"measure-torch: --precisions: '{p}' (expected fp32, tf32, fp16, bf16)")
    if args.runs < 1 or args.warmup < 0:
        sys.exit("measure-torch: --runs must be >= 1 and --warmup >= 0")

    conv_rows = read_table(args.conv)
    gemm_rows = read_table(args.gemm)
    if args.limit >= 0:
        conv_rows, gemm_rows = conv_rows[:args.limit], gemm_rows[:args.limit]
    convs = []
    for lineno, r in conv_rows:
        v = ints(args.conv, lineno, r, ["W", "H", "C", "N", "K", "filter_w", "filter_h",
                                        "pad_w", "pad_h", "stride_w", "stride_h"])
        g = ints(args.conv, lineno, r, ["groups"], 1)[0] if "groups" in r else 1
        convs.append((tuple(v + [g]), r.get("app", "")))
    gemms = []
    for lineno, r in gemm_rows:
        M, N, K = ints(args.gemm, lineno, r, ["M", "N", "K"], 1)
        if r.get("transA") not in ("N", "T") or r.get("transB") not in ("N", "T"):
            sys.exit(f"measure-torch: error: '{args.gemm}': line {lineno}: transA/transB "
                     "must be N or T")
        gemms.append((M, N, K, r["transA"], r["transB"], r.get("pass", ""), r.get("app", "")))

    device = args.device
    if device == "cuda":
        if not torch.cuda.is_available():
            sys.exit("measure-torch: error: no CUDA device")
        torch.backends.cudnn.benchmark = True
        torch.backends.cudnn.deterministic = False
        name = torch.cuda.get_device_name(0)
        cuda = torch.version.cuda or "unknown"
        v = torch.backends.cudnn.version() or 0
        cudnn = f"{v // 10000}.{v % 10000 // 100}.{v % 100}" if v >= 10000 else str(v)
    else:
        name, cuda, cudnn = "cpu", "none", "none"
    blas = f"cuBLAS via torch {torch.__version__}"
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    gen = torch.Generator(device=device)
    gen.manual_seed(1)
    timer = Timer(device, args.warmup, args.runs)
    src = (f"# source: measured with dtsim tools/measure-kernels/measure-torch.py (%s) on {name}, "
           f"driver {args.driver}, CUDA runtime {cuda}, cuDNN {cudnn}, torch {torch.__version__}, "
           f"{date}; median of {args.runs} cudaEvent-timed back-to-back calls after "
           f"{args.warmup} warm-ups; random uniform[-1,1] data\n")
    fc = open(args.out_conv, "w")
    fg = open(args.out_gemm, "w")
    fc.write(src % "cudnn.benchmark fastest engine per direction")
    fc.write(CONV_HEADER + "\n")
    fg.write(src % "torch.mm")
    fg.write(GEMM_HEADER + "\n")
    fc.flush()
    fg.flush()

    t_start = time.monotonic()
    done = failed = 0
    total = len(precs) * (len(convs) + len(gemms))
    stopped = False
    for p in precs:
        if stopped:
            break
        dtype, channels_last = set_precision(p)
        layout = "NHWC" if channels_last else "NCHW"
        for (M, N, K, ta, tb, pas, app) in gemms:
            if time.monotonic() - t_start > args.deadline_s:
                stopped = True
                break
            try:
                ms, q = measure_gemm(timer, M, N, K, ta == "T", tb == "T", dtype, device, gen)
            except RuntimeError as e:
                print(f"measure-torch: {p} GEMM {M},{N},{K},{ta},{tb}: {e}", file=sys.stderr)
                failed += 1
                continue
            fg.write(f"train,{name},{cuda},{blas},{p},{app},{M},{N},{K},{ta},{tb},{pas},"
                     f"{ms:.5f},{q},measure-kernels-torch\n")
            fg.flush()
            done += 1
        for (shape, app) in convs:
            if stopped or time.monotonic() - t_start > args.deadline_s:
                stopped = True
                break
            try:
                ow, oh, f, d, b = measure_conv(timer, shape, dtype, channels_last, device, gen)
            except RuntimeError as e:
                print(f"measure-torch: {p} conv {shape}: {e}", file=sys.stderr)
                failed += 1
                continue
            W, H, C, N, K, fw, fh, pw, ph, sw, sh, g = shape
            fc.write(f"train,{name},{cuda},{cudnn},{p},{app},{W},{H},{C},{N},{K},{fw},{fh},"
                     f"{pw},{ph},{sw},{sh},{g},{ow},{oh},{f[0]:.5f},{d[0]:.5f},{b[0]:.5f},"
                     f"torch-benchmark,torch-benchmark,torch-benchmark,{layout},"
                     f"{int(f[1] and d[1] and b[1])},measure-kernels-torch\n")
            fc.flush()
            done += 1
            if done % 50 == 0:
                print(f"measure-torch: {done}/{total} points, "
                      f"{time.monotonic() - t_start:.0f} s", file=sys.stderr)
    print(f"measure-torch: {done} of {total} points measured, {failed} failed, "
          f"{timer.not_queued} timings not fully queued, {time.monotonic() - t_start:.1f} s"
          f"{'; stopped at the deadline' if stopped else ''}", file=sys.stderr)
    fc.close()
    fg.close()


if __name__ == "__main__":
    main()
