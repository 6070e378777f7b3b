#!/usr/bin/env python3
"""validate-llm.py - a first look at dtsim's transformer predictions against
Korthikanti et al. 2022's measured Selene iteration times (Table 5, as
../shared/data/validation/llm/korthikanti2022_selene_iteration_times.csv
has them), and the wall time and memory each simulation takes.

    bench/validate-llm.py BUILD_DIR [--set=korthikanti|vtrain|vtrain-single|nemo|foundry]
                          [--max-gpus=N] [--all] [--timeout=S] [--precision=P]
                          [--part=fit|report|all] [--rows]
                          [--tp-overlap=none|backward|all|as-run]
                          [-- DTSIM-RUN-OPTIONS...]

Nothing was fitted on these rows: the compute model is the plain roofline
(`--framework generic`, given to every run; `-- --framework ID` runs
another, doc/VALIDATION.md part 19). Each row runs as Megatron-LM ran it: hybrid
tensor x pipeline parallelism, NCCL's collectives (--collective nccl, dtsim
run's default, given to every run; `-- --collective ID` runs another, as in
dtsim validate), 1F1B, global batch of the row split into
micro-batches of the row's size, fp16, full recomputation for the "full"
rows and selective recomputation with sequence parallelism for the
"seqsel" ones, vocabulary 51,200 (Megatron's padded GPT-2 vocabulary),
and Megatron-LM's attention of 2022, before FlashAttention: two batched
GEMMs around a fused scale-mask-softmax, the scores written to memory
(attention="unfused"; the paper's 5 a s / h activation term is theirs).
Selene's DGX A100 nodes are made by `dtsim platform`: 8 A100-SXM4-80GB on
NVSwitch, 8 NICs of 200 Gb/s; the rows on 280 and 512 GPUs are skipped unless --all
(they take minutes to simulate). The rows that ran Megatron's interleaved
schedule (pipeline_interleaving > 1: the 175B and 530B rows ran 3 virtual
stages) run it too (--virtual-stages). Prints a Markdown table, and the mean absolute
percentage error and the signed bias (positive: dtsim too slow) of the
rows run. Not a test.

--set=vtrain runs vTrain's multi-node rows instead
(vtrain_ground_truth_multi.csv: Megatron-DeepSpeed GPT 3.6B-39.1B on 64-512
A100, measured iteration times), those on at most --max-gpus GPUs (64
unless --all). As vTrain's configurations state: full recomputation, 1F1B,
fp16, 8 GPUs per node; the nodes are A100-SXM4-80GB on NVSwitch (300 GB/s
per GPU and direction) with 4 x 200 Gb/s NICs (800 Gb/s per node, vTrain's
inter-node bandwidth); the vocabulary is GPT-2's 50,257 padded as Megatron
pads it (a multiple of 128 x TP). As vTrain's model of the runs
(src/model/gpt_modeling.py at f8dda847: baddbmm, FusedScaleMaskSoftmax,
dropout, bmm) and its predictor (src/predictor.py: every validation
configuration sets use_gradient_bucket false, and the data-parallel
all-reduce follows the last backward): unfused attention
(attention="unfused") and the gradients all-reduced after the backward pass
(--no-overlap). The GPU's memory size and the exact network are not known;
nothing was fitted on these rows either.

--set=vtrain-single runs vTrain's single-node rows
(vtrain_ground_truth_single.csv: 1,440 Megatron-DeepSpeed GPT runs of
hidden 1,024 and 2,048, 12-24 layers, sequence 1,024, on 2, 4 and 8 A100
of one node, every TP x PP x DP split), each as --set=vtrain runs its rows
(full recomputation, fp16, 1F1B, unfused attention, gradients all-reduced
after the backward pass, A100-SXM4-80GB on NVSwitch), on as many
processes as there are CPUs, and prints the MAPE and bias by width, TP, PP
and DP (--rows: every row too). --part=fit runs the 12- and 20-layer
models only, --part=report the 16- and 24-layer ones (default: all):
frameworks/megatron.conf was fitted on the FIT part (`-- --framework
megatron` runs it; doc/VALIDATION.md part 20).

--set=nemo runs NeMo 24.07's DGX H100 pretraining rows (FP8,
nemo_24.07_perf_summary.csv, its last revision 8e3d65dc), with --precision
fp8 (Transformer Engine: FP8 GEMMs of linear layers, bf16 elsewhere) and
compares tokens/s/GPU. Each row runs as its TP, PP, context parallelism
(--context-parallel), virtual stages, micro-batch, global batch (the row's
DP = GPUs / (TP x PP x CP)) and sequence length say, with
--sequence-parallel when TP > 1 (NeMo's default with tensor parallelism),
Megatron's distributed optimizer (--zero 1: NeMo's recipes use
distributed_fused_adam) with the parameter gather overlapped with the next
forward pass (--param-gather overlap: every recipe sets
overlap_param_sync, NeMo-Framework-Launcher's training configs at
24c3d6bb; doc/VALIDATION.md part 22) and no recomputation (assumed: with fused
attention nothing of the attention core is stored, which is what
selective recomputation saves). `dtsim validate --sets nemo` runs the
same rows on up to 128 GPUs.
The nodes are DGX H100: 8 H100-SXM5-80GB on NVSwitch (450 GB/s per GPU
and direction), 8 x 400 Gb/s NICs, one non-blocking switch between nodes.
Model dimensions are model_dims.csv's (NeMo's config classes); the
vocabulary is padded to a multiple of 128 x TP as Megatron pads it;
Nemotron's squared-ReLU MLP runs as a GELU MLP of the same shape (the
same GEMMs). Rows whose model has no dimensions there are skipped, as is
every row that takes longer than --timeout seconds (120) to simulate.
--precision=bf16 runs the same rows in bf16, to see what FP8 changes.
Nothing was fitted on these rows.

--tp-overlap=MODE runs the rows with TP > 1 under `--tp-overlap MODE`
(none by default: every tensor-parallel collective blocks; `all` falls back
to `backward` on rows without sequence parallelism; `dtsim validate` runs
its rows as-run, doc/VALIDATION.md part 21). as-run gives each
row what its framework did: backward (Megatron's and Transformer
Engine's linear layers overlap a column layer's backward collectives with
its GEMMs), and all for the NeMo rows whose recipe turns on
ub_tp_comm_overlap (NeMo-Framework-Launcher's
launcher_scripts/conf/training at 24c3d6bb, the last commit before the
table's revision: gpt3/20b, llama/llama2_70b, llama/llama3_70b,
nemotron/nemotron_8b and nemotron_22b; gpt3/175b leaves it off).

--set=foundry runs llm-foundry's MPT rows (llm_foundry_mpt_benchmarks.csv:
Composer + PyTorch FSDP, flash attention, A100 40/80 GB and H100 80 GB,
8-512 GPUs), those on at most --max-gpus GPUs (64 unless --all), and
compares tokens/s/GPU. A FULL_SHARD row runs as --zero 3 on one stage over
its GPUs (`--strategy hybrid --stages 1 --dp N`, the same as `--strategy dp`
for one micro-batch), its GradAccum micro-batches of its micro-batch per
iteration (FSDP gathers and reduce-scatters every micro-batch, Composer's
no_sync being DDP's only; one optimizer step); a SHARD_GRAD_OP row as
`--strategy dp --zero 2 --param-gather overlap` with its micro-batch as the
batch (one micro-batch per dtsim iteration, the sharded optimizer step, a
few ms, counted per micro-batch). Activation
checkpointing as --recompute full, amp_fp8 as --precision fp8, else bf16.
MPT's dimensions are the CSV header's (vocabulary 50,368, MLP 4 x hidden,
no biases, tied embedding, learned positions of the row's sequence length:
the rows' NumParams grow by hidden x sequence, so the benchmarks ran
without ALiBi); the parameter count dtsim builds is printed against the
row's NumParams. Nodes of 8 GPUs on NVSwitch as `dtsim
platform` makes them for the GPU's system class; between nodes 8 NICs of
200 Gb/s for A100 (the rows' 1,600 Gb/s per node) and of 400 Gb/s for H100
(not stated in the source: assumed, as a DGX H100 has). Nothing was fitted
on these rows.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
import time


EXTRA = []


def extra_sets(name, words=None):
    """Whether the options after -- (WORDS, else EXTRA) give --NAME: they
    replace what a row would give it."""
    return any(e == "--" + name or e.startswith("--" + name + "=")
               for e in (EXTRA if words is None else words))


TP_OVERLAP = ["none"]
# NeMo 24.07's recipes with ub_tp_comm_overlap on (see --tp-overlap above)
NEMO_UB = {"GPT3-20B", "LLAMA2-70B", "LLAMA3-70B", "Nemotron-8B", "Nemotron-22B"}


def tp_overlap_args(tp, sequence_parallel, ub=False):
    """--tp-overlap for a row of TP tensor-parallel GPUs (UB: its recipe
    overlaps every sequence-parallel collective, as-run)."""
    mode = TP_OVERLAP[0]
    if mode == "as-run":
        mode = "all" if ub else "backward"
    if mode == "all" and not sequence_parallel:
        mode = "backward"
    return [] if tp <= 1 or mode == "none" else ["--tp-overlap", mode]


def dtsim_run(build, env, tmp, workload_xml, name, platform, args, timeout=None):
    """One simulation: (JSON result, wall s, RSS MB); EXTRA options appended."""
    wl = os.path.join(tmp, "%s.xml" % name)
    with open(wl, "w") as f:
        f.write(workload_xml)
    cmd = [os.path.join(build, "dtsim"), "run", "-w", wl, "-p", platform,
           "--allow-oversubscribe-memory", "--format", "json", "--quiet"] + args + EXTRA
    t0 = time.time()
    out = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", os.path.join(tmp, "rss")] + cmd,
                         check=True, env=env, capture_output=True, text=True,
                         timeout=timeout).stdout
    wall = time.time() - t0
    with open(os.path.join(tmp, "rss")) as f:
        rss = int(f.read().split()[-1]) / 1024
    return json.loads(out), wall, rss


def a100_platform(build, env, tmp, n, nics):
    """N A100-SXM4-80GB in nodes of 8 on NVSwitch (300 GB/s per GPU and
    direction), NICS NICs of 200 Gb/s per node to one switch."""
    path = os.path.join(tmp, "a100-%d-%d.xml" % (n, nics))
    if not os.path.exists(path):
        subprocess.run([os.path.join(build, "dtsim"), "platform", "--nodes", str(max(1, n // 8)),
                        "--gpus-per-node", str(min(n, 8)), "--gpu", "A100-SXM4-80GB",
                        "--intra", "nvswitch", "--intra-bandwidth", "300GB/s",
                        # PCIe 3.0 on root ports, as doc/VALIDATION.md's parts
                        # 14 and 15 were run (not the HGX A100 class's PCIe 4.0
                        # switches)
                        "--pcie-switches", "0", "--pcie-bandwidth", "15.75GB/s",
                        "--nics-per-node", str(nics), "--nic-bandwidth", "200Gbps", "-o", path],
                       check=True, env=env, stdout=subprocess.DEVNULL)
    return path


def h100_platform(build, env, tmp, n):
    """N H100-SXM5-80GB in DGX H100 nodes of 8: NVSwitch of 450 GB/s per GPU
    and direction, 8 x 400 Gb/s NICs per node to one switch."""
    path = os.path.join(tmp, "h100-%d.xml" % n)
    if not os.path.exists(path):
        subprocess.run([os.path.join(build, "dtsim"), "platform", "--nodes", str(max(1, n // 8)),
                        "--gpus-per-node", str(min(n, 8)), "--gpu", "H100-SXM5-80GB",
                        "--intra", "nvswitch", "--intra-bandwidth", "450GB/s",
                        "--nics-per-node", "8" if n > 8 else "0",
                        "--nic-bandwidth", "400Gbps", "-o", path],
                       check=True, env=env, stdout=subprocess.DEVNULL)
    return path


def read_rows(shared, name):
    path = os.path.join(shared, "data", "validation", "llm", name)
    if not os.path.exists(path):
        print("validate-llm.py: no %s (set DTSIM_SHARED)" % path, file=sys.stderr)
        sys.exit(77)
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def report(errors):
    if errors:
        mape = sum(abs(e) for e in errors) / len(errors)
        bias = sum(errors) / len(errors)
        print("\n%d rows: MAPE %.1f%%, bias %+.1f%% (positive: dtsim too slow)"
              % (len(errors), 100 * mape, 100 * bias))


def report_slices(groups, keys):
    """One line per slice of GROUPS (slice name -> errors), in KEYS' order."""
    for key in keys:
        e = groups[key]
        print("%s: %d rows, MAPE %.1f%%, bias %+.1f%%"
              % (key, len(e), 100 * sum(abs(x) for x in e) / len(e), 100 * sum(e) / len(e)))


def korthikanti(build, env, tmp, shared, run_all):
    rows = read_rows(shared, "korthikanti2022_selene_iteration_times.csv")
    print("| model | mode | GPUs | TP x PP x V | micro-batches | measured s | dtsim s | error "
          "| memory GiB | wall s | RSS MB |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    errors = []
    for r in rows:
        n, tp, pp = int(r["num_gpus"]), int(r["tp"]), int(r["pp"])
        if n not in (8, 64) and not run_all:
            continue
        platform = a100_platform(build, env, tmp, n, 8)
        xml = ('<model name="%s"><transformer layers="%s" hidden="%s" ffn="%s" '
               'heads="%s" head-dim="%s" vocab="51200" seq-len="%s" '
               'attention="unfused"/></model>\n'
               % (r["model"], r["layers"], r["hidden"], r["ffn"], r["heads"],
                  r["head_dim"], r["seq_len"]))
        gb, mb = int(r["global_batch"]), int(r["micro_batch"])
        args = ["--strategy", "hybrid", "--stages", str(pp), "--tensor-parallel", str(tp),
                "--dp", "1", "--batch-size", str(gb), "--micro-batches", str(gb // mb),
                "--precision", "fp16"]
        if int(r["pipeline_interleaving"]) > 1:
            args += ["--virtual-stages", r["pipeline_interleaving"]]
        if r["mode"] == "full":
            args += ["--recompute", "full"]
        else:
            args += ["--recompute", "selective", "--sequence-parallel"]
        args += tp_overlap_args(tp, r["mode"] != "full")
        res, wall, rss = dtsim_run(build, env, tmp, xml, r["model"], platform, args)
        pred = res["iteration_time_s"]
        meas = float(r["measured_iter_time_s"])
        err = pred / meas - 1
        errors.append(err)
        print("| %s | %s | %d | %d x %d x %s | %d | %.2f | %.2f | %+.1f%% | %.1f | %.1f | %.0f |"
              % (r["model"], r["mode"], n, tp, pp, r["pipeline_interleaving"], gb // mb, meas,
                 pred, 100 * err,
                 res["memory_peak_bytes_per_gpu"] / 2**30, wall, rss))
    report(errors)


def vtrain_case(r):
    """A vTrain row (either table) as dtsim runs it: GPUs, TP, PP, DP,
    micro-batch, samples per replica, the workload's name and XML and the
    run's options (full recomputation, fp16, 1F1B)."""
    n = int(r["n_gpus"])
    tp, pp, dp = (int(r["tensor parallelism"]), int(r["pipeline parallelism"]),
                  int(r["data parallelism"]))
    gb, mb = int(r["global batch"]), int(r["micro batch"])
    per_replica = gb // dp
    h, heads, layers, seq = (int(r["hidden size"]), int(r["attention heads"]),
                             int(r["n_layers"]), int(r["sequence length"]))
    # Megatron pads GPT-2's 50,257 tokens to a multiple of 128 x TP
    vocab = -(-50257 // (128 * tp)) * 128 * tp
    xml = ('<model name="gpt"><transformer layers="%d" hidden="%d" heads="%d" '
           'vocab="%d" seq-len="%d" attention="unfused"/></model>\n'
           % (layers, h, heads, vocab, seq))
    args = ["--strategy", "hybrid", "--stages", str(pp), "--tensor-parallel", str(tp),
            "--dp", str(dp), "--batch-size", str(per_replica),
            "--micro-batches", str(per_replica // mb), "--precision", "fp16",
            "--recompute", "full", "--no-overlap"] + tp_overlap_args(tp, False)
    return n, tp, pp, dp, mb, per_replica, "gpt-%d-%d" % (h, layers), xml, args


def vtrain(build, env, tmp, shared, max_gpus):
    rows = read_rows(shared, "vtrain_ground_truth_multi.csv")
    print("| params B | GPUs | TP x PP x DP | micro-batch | micro-batches | measured s "
          "| dtsim s | error | wall s |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    errors = []
    for r in rows:
        n, tp, pp, dp, mb, per_replica, name, xml, args = vtrain_case(r)
        if n > max_gpus:
            continue
        res, wall, rss = dtsim_run(build, env, tmp, xml, name,
                                   a100_platform(build, env, tmp, n, 4), args)
        pred = res["iteration_time_s"]
        meas = float(r["iteration time (ms)"]) / 1e3
        err = pred / meas - 1
        errors.append(err)
        print("| %s | %d | %d x %d x %d | %d | %d | %.2f | %.2f | %+.1f%% | %.1f |"
              % (r["Parameters (billion)"], n, tp, pp, dp, mb, per_replica // mb, meas, pred,
                 100 * err, wall))
    report(errors)


def vtrain_single_job(job):
    build, env, tmp, r = job
    n, _, _, _, _, _, name, xml, args = vtrain_case(r)
    # each worker its own directory: the workload file is written per row
    wtmp = os.path.join(tmp, "w%d" % os.getpid())
    os.makedirs(wtmp, exist_ok=True)
    res, wall, _ = dtsim_run(build, env, wtmp, xml, name,
                             a100_platform(build, env, wtmp, n, 4), args)
    return res["iteration_time_s"], wall


# vTrain's single-node models: FIT rows (a profile may be fitted on them)
# are those of 12 and 20 layers, REPORT rows those of 16 and 24, so that a
# split by model keeps both widths on each side.
VTRAIN_SINGLE_FIT_LAYERS = (12, 20)


def vtrain_single_rows(shared, part):
    """vTrain's single-node rows of PART: fit, report or all."""
    rows = read_rows(shared, "vtrain_ground_truth_single.csv")
    if part != "all":
        fit = part == "fit"
        rows = [r for r in rows if (int(r["n_layers"]) in VTRAIN_SINGLE_FIT_LAYERS) == fit]
    return rows


def vtrain_single_run(build, env, tmp, rows):
    """(predicted iteration s, wall s) of each of ROWS, on as many
    processes as there are CPUs, in the rows' order."""
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as ex:
        return list(ex.map(vtrain_single_job, [(build, env, tmp, r) for r in rows]))


def vtrain_single(build, env, tmp, shared, part, show_rows):
    rows = vtrain_single_rows(shared, part)
    results = vtrain_single_run(build, env, tmp, rows)
    if show_rows:
        print("| GPUs | hidden | layers | TP x PP x DP | global batch | micro-batch "
              "| measured ms | dtsim ms | error |")
        print("|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    errors, groups = [], {}
    for r, (pred, _) in zip(rows, results):
        meas = float(r["iteration time (ms)"]) / 1e3
        err = pred / meas - 1
        errors.append(err)
        tp, pp, dp = (r["tensor parallelism"], r["pipeline parallelism"],
                      r["data parallelism"])
        for key in ("hidden %s" % r["hidden size"], "TP %s" % tp, "PP %s" % pp, "DP %s" % dp):
            groups.setdefault(key, []).append(err)
        if show_rows:
            print("| %s | %s | %s | %s x %s x %s | %s | %s | %.1f | %.1f | %+.1f%% |"
                  % (r["n_gpus"], r["hidden size"], r["n_layers"], tp, pp, dp,
                     r["global batch"], r["micro batch"], 1e3 * meas, 1e3 * pred, 100 * err))
    report(errors)
    report_slices(groups, sorted(groups, key=lambda k: (k.split()[0], int(k.split()[1]))))
    print("simulation: %.0f s of wall time over %d rows" % (sum(w for _, w in results), len(rows)))


# NeMo's model names -> (model_dims.csv row, <transformer> attributes beyond
# the dimensions): GPT-3 has learned positions, LayerNorm, GELU, biases and a
# tied head; Llama 2 and 3 rotary positions, RMSNorm, SwiGLU, no biases; Nemotron 3
# rotary positions, LayerNorm, squared ReLU (run as GELU), no biases.
NEMO_MODELS = {
    "GPT3-5B": ("GPT3-5B", 'tied-embedding="true"'),
    "GPT3-20B": ("GPT3-20B", 'tied-embedding="true"'),
    "GPT3-175B": ("GPT3-175B", 'tied-embedding="true"'),
    "LLAMA2-7B": ("Llama2-7B", 'mlp="swiglu" norm="rmsnorm" positions="rotary" bias="false"'),
    "LLAMA2-13B": ("Llama2-13B", 'mlp="swiglu" norm="rmsnorm" positions="rotary" bias="false"'),
    "LLAMA2-70B": ("Llama2-70B", 'mlp="swiglu" norm="rmsnorm" positions="rotary" bias="false"'),
    "LLAMA3-8B": ("Llama3-8B", 'mlp="swiglu" norm="rmsnorm" positions="rotary" bias="false"'),
    "LLAMA3-70B": ("Llama3-70B", 'mlp="swiglu" norm="rmsnorm" positions="rotary" bias="false"'),
    "Nemotron-8B": ("Nemotron-8B (Nemotron3 8B)", 'positions="rotary" bias="false"'),
    "Nemotron-22B": ("Nemotron-22B (Nemotron3 22B)", 'positions="rotary" bias="false"'),
}
NEMO_REVISION = "8e3d65dcfe3504689bfc5b6e67d502780aacad41"


def nemo(build, env, tmp, shared, timeout, precision):
    rows = [r for r in read_rows(shared, "nemo_24.07_perf_summary.csv")
            if r["revision_commit"] == NEMO_REVISION and r["phase"] == "pretrain"]
    dims = {r["model"]: r for r in read_rows(shared, "model_dims.csv")}
    print("| model | GPUs | TP x PP x DP | VP | micro-batch | micro-batches | measured tok/s/GPU "
          "| dtsim tok/s/GPU | error | wall s |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    errors, skipped = [], []
    for r in rows:
        name, n = r["model"], int(r["n_gpus"])
        tp, pp, cp = int(r["tp"]), int(r["pp"]), int(r["cp"])
        vp = int(r["vp"] or 1)
        if name not in NEMO_MODELS:
            skipped.append("%s on %d GPUs: no dimensions in model_dims.csv" % (name, n))
            continue
        d = dims[NEMO_MODELS[name][0]]
        seq, gb, mb = int(r["seq_len"]), int(r["gbs"]), int(r["mbs"])
        dp = n // (tp * pp * cp)
        per_replica = gb // dp
        vocab = int(d["vocab"].split()[0])
        kv = d["kv_heads"].split()[0]
        xml = ('<model name="%s"><transformer layers="%s" hidden="%s" ffn="%s" heads="%s" '
               'kv-heads="%s" head-dim="%s" vocab="%d" pad-vocab-to="%d" seq-len="%d" %s/>'
               '</model>\n' % (name.lower(), d["layers"], d["hidden"], d["ffn_hidden"],
                                d["heads"], kv, d["head_dim"], vocab, 128 * tp, seq,
                                NEMO_MODELS[name][1]))
        args = ["--strategy", "hybrid", "--stages", str(pp), "--tensor-parallel", str(tp),
                "--dp", str(dp), "--batch-size", str(per_replica),
                "--micro-batches", str(per_replica // mb), "--precision", precision,
                "--recompute", "none", "--zero", "1"]
        # as the recipes ran it; a --param-gather after -- replaces it
        if not extra_sets("param-gather"):
            args += ["--param-gather", "overlap"]
        if vp > 1:
            args += ["--virtual-stages", str(vp)]
        if tp > 1:
            args += ["--sequence-parallel"]
        if cp > 1:
            args += ["--context-parallel", str(cp)]
        args += tp_overlap_args(tp, tp > 1, name in NEMO_UB)
        try:
            res, wall, _ = dtsim_run(build, env, tmp, xml, name.lower(),
                                     h100_platform(build, env, tmp, n), args, timeout)
        except subprocess.TimeoutExpired:
            skipped.append("%s on %d GPUs: over %d s to simulate" % (name, n, timeout))
            continue
        except subprocess.CalledProcessError as e:
            skipped.append("%s on %d GPUs: %s" % (name, n, e.stderr.strip()))
            continue
        pred = gb * seq / (res["iteration_time_s"] * n)
        meas = float(r["tokens_per_s_per_gpu"])
        # error as in the other sets: positive when dtsim is too slow
        err = meas / pred - 1
        errors.append(err)
        print("| %s | %d | %d x %d x %d%s | %d | %d | %d | %.0f | %.0f | %+.1f%% | %.1f |"
              % (name, n, tp, pp, dp, " x CP %d" % cp if cp > 1 else "", vp, mb,
                 per_replica // mb, meas, pred, 100 * err, wall))
    report(errors)
    for s in skipped:
        print("skipped: %s" % s)


MPT = {  # hidden, layers, heads: llm_foundry_mpt_benchmarks.csv's header
    "125m": (768, 12, 12), "350m": (1024, 24, 16), "760m": (1536, 24, 12),
    "1b": (2048, 24, 16), "3b": (2560, 32, 20), "7b": (4096, 32, 32),
    "13b": (5120, 40, 40), "30b": (7168, 48, 56), "70b": (8192, 80, 64),
}
FOUNDRY_GPU = {"a100_40gb": ("A100-SXM4-40GB", "200Gbps"),
               "a100_80gb": ("A100-SXM4-80GB", "200Gbps"),
               "h100_80gb": ("H100-SXM5-80GB", "400Gbps")}


def foundry_platform(build, env, tmp, gpu, n):
    """N GPUs of catalogue entry GPU[0] in nodes of 8 on NVSwitch, the
    system class's defaults, 8 NICs of GPU[1] per node to one switch."""
    path = os.path.join(tmp, "%s-%d.xml" % (gpu[0], n))
    if not os.path.exists(path):
        subprocess.run([os.path.join(build, "dtsim"), "platform", "--nodes", str(max(1, n // 8)),
                        "--gpus-per-node", str(min(n, 8)), "--gpu", gpu[0],
                        "--intra", "nvswitch", "--nics-per-node", "8" if n > 8 else "0",
                        "--nic-bandwidth", gpu[1], "-o", path],
                       check=True, env=env, stdout=subprocess.DEVNULL)
    return path


def foundry(build, env, tmp, shared, max_gpus, timeout):
    rows = read_rows(shared, "llm_foundry_mpt_benchmarks.csv")
    print("| GPU | model | seq | GPUs | micro-batch | sharding | ckpt | params (dtsim / row) "
          "| measured tok/s/GPU | dtsim tok/s/GPU | error | wall s |")
    print("|---|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|")
    errors, by_gpu, skipped = [], {}, []
    for r in rows:
        n, gpu, model = int(r["# GPUs"]), r["GPU"], r["Model"]
        if n > max_gpus:
            skipped.append("%s %s on %d GPUs: over --max-gpus" % (gpu, model, n))
            continue
        hidden, layers, heads = MPT[model]
        seq, mb = int(r["SeqLen (T)"]), int(r["MicroBatchSize"])
        xml = ('<model name="mpt-%s"><transformer layers="%d" hidden="%d" heads="%d" '
               'vocab="50368" seq-len="%d" tied-embedding="true" '
               'bias="false"/></model>\n' % (model, layers, hidden, heads, seq))
        shard = r["Sharding Strategy"]
        # FULL_SHARD: the row's gradient accumulation in one iteration
        ga = int(r["GradAccum"]) if shard == "FULL_SHARD" else 1
        args = (["--strategy", "hybrid", "--stages", "1", "--dp", str(n),
                 "--micro-batches", str(ga)] if shard == "FULL_SHARD"
                else ["--strategy", "dp", "--gpus", str(n)])
        args += ["--batch-size", str(mb * ga),
                 "--precision", "fp8" if r["Precision"] == "amp_fp8" else "bf16",
                 "--recompute", "full" if r["Activation Checkpointing"] == "True" else "none"]
        args += ["--zero", "3" if shard == "FULL_SHARD" else "2"]
        # SHARD_GRAD_OP gathers during the forward pass; a --param-gather
        # after -- replaces it (dtsim run refuses an option given twice)
        if shard != "FULL_SHARD" and not extra_sets("param-gather"):
            args += ["--param-gather", "overlap"]
        try:
            res, wall, _ = dtsim_run(build, env, tmp, xml, "mpt-" + model,
                                     foundry_platform(build, env, tmp, FOUNDRY_GPU[gpu], n),
                                     args, timeout)
        except subprocess.TimeoutExpired:
            skipped.append("%s %s on %d GPUs: over %d s to simulate" % (gpu, model, n, timeout))
            continue
        except subprocess.CalledProcessError as e:
            skipped.append("%s %s on %d GPUs: %s" % (gpu, model, n, e.stderr.strip()))
            continue
        pred = mb * ga * seq / res["iteration_time_s"]
        meas = float(r["Throughput (T/s/GPU)"])
        err = meas / pred - 1  # positive when dtsim is too slow
        errors.append(err)
        by_gpu.setdefault(gpu, []).append(err)
        print("| %s | %s | %d | %d | %d | %s | %s | %.3g / %.3g | %.0f | %.0f | %+.1f%% | %.1f |"
              % (gpu, model, seq, n, mb, shard, r["Activation Checkpointing"], res["params"],
                 float(r["NumParams"]), meas, pred, 100 * err, wall))
    report(errors)
    report_slices(by_gpu, sorted(by_gpu))
    for s in skipped:
        print("skipped: %s" % s)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build = sys.argv[1]
    opts = sys.argv[2:]
    run_all = "--all" in opts
    which = "korthikanti"
    max_gpus = 64
    timeout = 120
    precision = "fp8"
    part = "all"
    extra = opts[opts.index("--") + 1:] if "--" in opts else []
    opts = opts[:opts.index("--")] if "--" in opts else opts
    for o in opts:
        if o.startswith("--set="):
            which = o[len("--set="):]
        elif o.startswith("--max-gpus="):
            max_gpus = int(o[len("--max-gpus="):])
        elif o.startswith("--precision="):
            precision = o[len("--precision="):]
        elif o.startswith("--part="):
            part = o[len("--part="):]
            if part not in ("fit", "report", "all"):
                sys.exit("validate-llm.py: --part=%s: fit, report or all" % part)
        elif o.startswith("--timeout="):
            timeout = int(o[len("--timeout="):])
        elif o.startswith("--tp-overlap="):
            TP_OVERLAP[0] = o[len("--tp-overlap="):]
            if TP_OVERLAP[0] not in ("none", "backward", "all", "as-run"):
                sys.exit("validate-llm.py: --tp-overlap=%s: none, backward, all or as-run"
                         % TP_OVERLAP[0])
    # Megatron-LM and NeMo ran NCCL (doc/VALIDATION.md part 15); a
    # --collective after -- replaces it, as in dtsim validate
    if not extra_sets("collective", extra):
        EXTRA.extend(["--collective", "nccl"])
    # the plain roofline, which the records of doc/VALIDATION.md without a
    # profile ran under; a --framework after -- replaces it
    if not extra_sets("framework", extra):
        EXTRA.extend(["--framework", "generic"])
    EXTRA.extend(extra)
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.dirname(here)
    shared = os.environ.get("DTSIM_SHARED", os.path.join(src, "..", "shared"))
    env = dict(os.environ, DTSIM_DATADIR=os.environ.get("DTSIM_DATADIR", src))
    with tempfile.TemporaryDirectory() as tmp:
        if which == "korthikanti":
            korthikanti(build, env, tmp, shared, run_all)
        elif which == "vtrain":
            vtrain(build, env, tmp, shared, 1 << 30 if run_all else max_gpus)
        elif which == "vtrain-single":
            vtrain_single(build, env, tmp, shared, part, "--rows" in opts)
        elif which == "nemo":
            nemo(build, env, tmp, shared, timeout, precision)
        elif which == "foundry":
            foundry(build, env, tmp, shared, 1 << 30 if run_all else max_gpus, timeout)
        else:
            sys.exit("validate-llm.py: unknown --set=%s (korthikanti, vtrain, vtrain-single, "
                     "nemo, foundry)" % which)


if __name__ == "__main__":
    main()
