#!/usr/bin/env python3
"""Check a dtsim Chrome trace against the run's JSON summary, and that runs
are deterministic.

  check-trace.py TRACE.json SUMMARY.json
      The trace must be valid trace-event JSON whose slices agree with the
      summary: per rank, compute slices (tid 0) and all-reduce slices (tid 1)
      do not overlap on their track; one all-reduce slice per bucket and
      iteration with the summary's bytes; phase times, all-reduce time and
      iteration time recomputed from the slices equal the summary's
      breakdown (relative 1e-6). Tensor-parallel collectives (tid 2) do
      not overlap each other; without --tp-overlap they block compute, so
      their time over the measured iterations is the summary's
      pipeline.tensor_s. Parameter-server runs (async-ps,
      sync-ps) have no all-reduce slices but "pull" slices (a worker
      waiting for a shard's weights), one per shard and iteration (per
      shard, bucket and iteration where sync-ps pushes bucket by bucket
      during the backward pass: otherData's ps_buckets; its pulls from
      different shards may overlap); their
      iteration time is the mean over the workers of each worker's own
      (doc/SIMULATION.md), recomputed from the slices' ends. They are then
      checked on their own terms as well (check_ps): every gradient applied
      once per shard, each update starting as soon as its gradients and its
      shard allow (without a staleness bound: no worker waits for another),
      a worker's next iteration after its gradient's updates (`each`,
      sync-ps) or arrivals (`merge`), and the staleness of every gradient
      recounted from the order of the updates.

  check-trace.py --run DTSIM [ARGS...]
      Run `DTSIM run ARGS --format json --quiet --trace T` twice: the two
      JSON outputs must be byte-identical apart from simulation.wall_time_s,
      and the trace is then checked as above.

Prints one "ok: ..." line per check; exits 1 with a message on the first
failure."""
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

REL = 1e-6


def fail(msg):
    print("check-trace: FAIL: " + msg)
    sys.exit(1)


def close(a, b, what):
    if abs(a - b) > REL * max(abs(a), abs(b)) + 1e-12:
        fail("%s: trace gives %.12g, summary %.12g" % (what, a, b))


CONTRACT = {
    None: ["n_gpus", "batch_size_per_gpu", "global_batch_size", "iterations",
           "iteration_time_s", "throughput_samples_per_s", "breakdown",
           "memory_peak_bytes_per_gpu", "simulation"],
    "breakdown": ["forward_s", "backward_s", "optimizer_s", "comm_s", "comm_exposed_s"],
    "simulation": ["wall_time_s", "events"],
}


def check_contract(summary):
    for part, keys in CONTRACT.items():
        obj = summary if part is None else summary[part]
        for k in keys:
            if k not in obj:
                fail("summary lacks %s%s (doc/DESIGN.md output contract)" %
                     ("" if part is None else part + ".", k))
    # dp: every GPU runs a batch; pipelines: every replica of the widest stage.
    replicas = summary["n_gpus"]
    if "pipeline" in summary:
        replicas = max(st["replicas"] for st in summary["pipeline"]["stages"])
    if summary["global_batch_size"] != replicas * summary["batch_size_per_gpu"]:
        fail("global_batch_size is not %d replicas x batch_size_per_gpu" % replicas)
    # Parameter-server workers: the sum of batch / their own iteration times.
    if "parameter_servers" not in summary:
        close(summary["throughput_samples_per_s"],
              summary["global_batch_size"] / summary["iteration_time_s"], "throughput")
    print("ok: summary has the output contract's fields")


def check(trace_path, summary):
    check_contract(summary)
    try:
        with open(trace_path) as f:
            trace = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s is not valid JSON: %s" % (trace_path, e))
    events = trace.get("traceEvents")
    if not isinstance(events, list):
        fail("no traceEvents list")
    n = summary["n_gpus"]
    iters = summary["iterations"]
    warm = summary["warmup_iterations"]
    buckets = summary["buckets"]
    names = defaultdict(dict)
    tracks = defaultdict(list)
    for e in events:
        if e.get("ph") == "M":
            if e["name"] == "thread_name":
                names[e["pid"]][e["tid"]] = e["args"]["name"]
            continue
        if e.get("ph") != "X":
            fail("unexpected event phase %r" % e.get("ph"))
        for k in ("name", "cat", "pid", "tid", "ts", "dur", "args"):
            if k not in e:
                fail("slice without %r: %r" % (k, e))
        if e["dur"] < 0:
            fail("negative duration: %r" % e)
        tracks[(e["pid"], e["tid"])].append(e)
    for r in range(n):
        if names[r].get(0) != "compute" or names[r].get(1) != "communication":
            fail("rank %d lacks compute/communication thread names" % r)
    print("ok: %d slices on %d tracks, valid trace-event JSON" %
          (sum(len(v) for v in tracks.values()), len(tracks)))

    parts = trace.get("otherData", {}).get("ps_buckets", 1)
    for key, slices in tracks.items():
        slices.sort(key=lambda e: (e["ts"], e["dur"]))
        if parts > 1 and key[1] == 1:
            continue  # the pulls of every shard at once
        for a, b in zip(slices, slices[1:]):
            if b["ts"] < a["ts"] + a["dur"] - 1e-6 * max(1.0, a["ts"]):
                fail("overlapping slices on rank %d tid %d: %s and %s" %
                     (key[0], key[1], a["name"], b["name"]))
    print("ok: no overlapping slices on a track")

    ps = summary.get("parameter_servers")
    phase = defaultdict(float)
    comm = 0.0
    tensor = 0.0
    ends = defaultdict(float)
    pulls = defaultdict(int)
    for (pid, tid), slices in tracks.items():
        per_iter = defaultdict(list)
        for e in slices:
            if e["cat"] == "ps-update":
                continue  # the shards' updates: check_ps
            it = e["args"]["iteration"]
            ends[(pid, it)] = max(ends[(pid, it)], (e["ts"] + e["dur"]) / 1e6)
            if tid == 1 and e["cat"] == "pull":
                if not ps:
                    fail("pull slice in a run without parameter servers: %r" % e)
                pulls[(pid, it)] += 1
                continue
            if it < warm:
                continue
            if tid == 0:
                phase[e["cat"]] += e["dur"] / 1e6
            elif tid == 2:
                if e["cat"] != "tensor":
                    fail("a %r slice on the tensor-parallel thread" % e["cat"])
                tensor += e["dur"] / 1e6
            else:
                comm += e["dur"] / 1e6
                per_iter[it].append(e)
        if tid == 1 and ps:
            if per_iter:
                fail("rank %d: all-reduce slices in a parameter-server run" % pid)
        elif tid == 1:
            # dp: every bucket; pipelines: the consecutive buckets of the
            # rank's stage.
            expected = list(range(len(buckets)))
            for it, sl in per_iter.items():
                got = [s["args"]["bucket"] for s in sl]
                if "pipeline" in summary:
                    expected = list(range(got[0], got[0] + len(got))) if got else []
                if got != expected:
                    fail("rank %d iteration %d: all-reduces %r, expected buckets %r" %
                         (pid, it, got, expected))
                for s in sl:
                    close(s["args"]["bytes"], buckets[s["args"]["bucket"]]["bytes"],
                          "bytes of bucket %d" % s["args"]["bucket"])
    k = n * (iters - warm)
    b = summary["breakdown"]
    close(phase["forward"] / k, b["forward_s"], "forward_s")
    close((phase["backward-data"] + phase["backward-weight"]) / k, b["backward_s"], "backward_s")
    close(phase["update"] / k, b["optimizer_s"], "optimizer_s")
    # --zero 1: the slices are the gradients' reduce-scatters; the
    # parameter all-gathers have none and are comm_s's other part.
    if "grad_sync_s" in b:
        close(comm / k, b["grad_sync_s"], "grad_sync_s")
        close(b["grad_sync_s"] + b["param_gather_s"], b["comm_s"], "comm_s")
    else:
        close(comm / k, b["comm_s"], "comm_s")
    p = summary.get("pipeline")
    if tensor > 0 and (p is None or p.get("tensor_parallel", 1) < 2):
        fail("tensor-parallel slices in a run without tensor parallelism")
    if p is not None and "tp_overlap" not in p:
        close(tensor / k, p["tensor_s"], "pipeline.tensor_s")
    print("ok: phase and all-reduce times match the summary")

    if ps:
        for r in range(ps["workers"]):
            for it in range(iters):
                if pulls[(r, it)] != ps["shards"] * parts:
                    fail("worker %d iteration %d: %d pull slices, expected %d (one per shard%s)" %
                         (r, it, pulls[(r, it)], ps["shards"] * parts,
                          " and bucket" if parts > 1 else ""))
        print("ok: every worker pulls every shard once per iteration")

        def own(r, it):
            return 0.0 if it < 0 else ends[(r, it)]
        mean = sum((own(r, iters - 1) - own(r, warm - 1)) / (iters - warm)
                   for r in range(ps["workers"])) / ps["workers"]
        close(mean, summary["iteration_time_s"], "iteration_time_s (mean over the workers)")
        print("ok: iteration time matches the summary")
        check_ps(trace, tracks, summary)
        return

    def end(it):
        return 0.0 if it < 0 else max(ends[(r, it)] for r in range(n))
    close((end(iters - 1) - end(warm - 1)) / (iters - warm), summary["iteration_time_s"],
          "iteration_time_s")
    print("ok: iteration time matches the summary")


def check_ps(trace, tracks, summary):
    """The parameter-server properties (see the top)."""
    od = trace["otherData"]
    workers, shards = od["ps_workers"], od["ps_shards"]
    policy, bound = od["ps_update"], od["staleness_bound"]
    iters = summary["iterations"]
    # A shard's updates, or with ps_buckets those of each bucket's part of
    # it (sync-ps pushing during the backward pass): each part its own.
    parts = od.get("ps_buckets", 1)
    updates = defaultdict(list)
    for (p, tid), slices in tracks.items():
        for e in slices:
            if e["cat"] == "ps-update":
                updates[(tid, e["args"].get("bucket", 0))].append(e)
    keys = [(k, b) for k in range(shards) for b in range(parts)]

    def name(key):
        return "shard %d" % key[0] + (" bucket %d" % key[1] if parts > 1 else "")
    if sorted(updates) != keys:
        fail("updates on shards and buckets %r, expected %r" % (sorted(updates), keys))
    # Each shard: every (worker, iteration) once; update index per gradient.
    applied = {}
    for k in keys:
        ups = sorted(updates[k], key=lambda e: e["ts"])
        seen = {}
        prev_end = 0.0
        for i, u in enumerate(ups):
            grads = u["args"]["gradients"]
            if not grads:
                fail("%s: an update without gradients" % name(k))
            if u["args"]["samples"] != summary["batch_size_per_gpu"] * len(grads):
                fail("%s: update of %d gradients carries %d samples" %
                     (k, len(grads), u["args"]["samples"]))
            for g in grads:
                key = (g["worker"], g["iteration"])
                if key in seen:
                    fail("%s applies worker %d's gradient of iteration %d twice" %
                         (name(k), key[0], key[1]))
                seen[key] = i
                if g["arrived"] > u["ts"] + 1e-6 * max(1.0, u["ts"]):
                    fail("%s applies a gradient before it arrived" % name(k))
            if policy == "all":
                if sorted(g["worker"] for g in grads) != list(range(workers)) or \
                        len(set(g["iteration"] for g in grads)) != 1:
                    fail("sync-ps %s: an update without one gradient of every worker of "
                         "one iteration" % name(k))
                ready = max(g["arrived"] for g in grads)
            else:
                ready = min(g["arrived"] for g in grads)
            # Work-conserving: without a bound the update starts as soon as
            # its shard is free and its gradients are there.
            if bound < 0:
                want = max(ready, prev_end)
                if abs(u["ts"] - want) > 1e-6 * max(1.0, want):
                    fail("%s update %d starts at %.3f us, not at %.3f us (its gradients "
                         "and the shard were ready): a worker waited for another" %
                         (name(k), i, u["ts"], want))
            prev_end = u["ts"] + u["dur"]
        want = {(w, c) for w in range(workers) for c in range(iters)}
        if set(seen) != want:
            fail("%s applied %d gradients, expected every worker's of every iteration "
                 "(%d)" % (name(k), len(seen), len(want)))
        applied[k] = (ups, seen)
    print("ok: every gradient applied once per shard; updates start when their gradients "
          "and shard are ready" + ("" if bound < 0 else " (bound %d: not checked)" % bound))

    # A worker's next iteration starts after its gradients' updates (each,
    # sync-ps) or their arrival (merge: a waiting gradient's sender gets the
    # weights of the update in progress).
    first = {}
    for (p, tid), slices in tracks.items():
        if tid != 0 or p >= workers:
            continue
        for e in slices:
            it = e["args"]["iteration"]
            first[(p, it)] = min(first.get((p, it), float("inf")), e["ts"])
    for w in range(workers):
        for c in range(iters - 1):
            start = first[(w, c + 1)]
            for k in keys:
                ups, seen = applied[k]
                u = ups[seen[(w, c)]]
                g = [x for x in u["args"]["gradients"] if (x["worker"], x["iteration"]) == (w, c)]
                need = g[0]["arrived"] if policy == "merge" else u["ts"] + u["dur"]
                if start < need - 1e-6 * max(1.0, need):
                    fail("worker %d starts iteration %d at %.3f us, before %s %s its "
                         "gradient (%.3f us)" % (w, c + 1, start, name(k),
                                                 "received" if policy == "merge" else "applied",
                                                 need))
    print("ok: every worker's next iteration follows its gradients' %s" %
          ("arrivals" if policy == "merge" else "updates"))

    # Staleness recounted: updates of the shard between the worker's pull
    # (the update that applied its previous gradient; the initial weights
    # for its first) and the update of this one. Under merge the sender of a
    # gradient still waiting gets the weights of the update in progress, one
    # before the update that applies it: one more then.
    for k in keys:
        ups, seen = applied[k]
        for u_i, u in enumerate(ups):
            for g in u["args"]["gradients"]:
                w, c = g["worker"], g["iteration"]
                pulled = 0 if c == 0 else seen[(w, c - 1)] + 1
                count = u_i - pulled
                ok = g["staleness"] == count if policy != "merge" or c == 0 \
                    else count <= g["staleness"] <= count + 1
                if not ok:
                    fail("%s: worker %d's gradient of iteration %d has staleness %d, "
                         "recounted %d" % (name(k), w, c, g["staleness"], count))
    print("ok: staleness of every gradient recounted from the order of updates")


def run(dtsim, args):
    tmp = tempfile.mkdtemp(prefix="dtsim-check-")
    outs = []
    try:
        for i in range(2):
            trace = os.path.join(tmp, "trace%d.json" % i)
            cmd = [dtsim, "run"] + args + ["--format", "json", "--quiet", "--trace", trace]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                fail("%s exited with %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
            outs.append(p.stdout)
        strip = [[l for l in o.splitlines() if '"wall_time_s"' not in l] for o in outs]
        if strip[0] != strip[1]:
            fail("two identical runs differ")
        print("ok: two runs give identical JSON (apart from wall time)")
        check(os.path.join(tmp, "trace1.json"), json.loads(outs[1]))
    finally:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--run":
        run(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 3:
        with open(sys.argv[2]) as f:
            check(sys.argv[1], json.load(f))
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
