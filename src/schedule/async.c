/* async.c - parameter-server training: asynchronous SGD (async-ps) and
 * synchronous replicas (sync-ps, TensorFlow's SyncReplicasOptimizer).
 * sync-ps is the one synchronous parameter-server model: `dtsim run
 * --collective ps` is its former spelling and --ps-count the former name
 * of --ps-shards (cli/cmd-run.c), but with --ps-aggregation node.
 *
 * W workers (the first W GPUs) and P server shards. The model's fp32
 * parameters are split evenly over the shards (TensorFlow's greedy
 * placement by size approaches an even split for models with many
 * tensors; a model of few large tensors is less even than this). Shards run
 * on GPU hosts: with --ps-placement workers (the default), placed as
 * `--collective ps` places its servers (dts_schedule_ps_placement:
 * round-robin over the nodes, then the nodes' next GPU), sharing the GPU
 * with the worker there; with --ps-placement own, on the P GPUs after the
 * workers' (ranks W..W+P-1), which run no worker (dedicated server
 * machines). With --ps-placement cpus, shards run on the platform's CPU
 * hosts (hosts without a GPU with property role=ps, then role=cpu, spread
 * round-robin over the nodes: dts_platform_server_hosts), one shard per
 * host, as ranks W..W+P-1 whose host is that CPU (DtsSchedule.rank_cpu):
 * TensorFlow's parameter-server tasks on the machines' CPUs. P defaults to
 * one per node taking part, at most the CPU hosts.
 *
 * A worker loops, with no barrier with the others: forward and backward
 * pass of its batch; push its gradient shard to every server (all at once,
 * not waited for: an RPC), worker w starting with shard w mod P (at most
 * MAX_SEND_ORDERS orders, spread over the shards); wait for the updated
 * weights of every shard
 * (the reply of the server to its push is its next pull). A worker starts
 * with the initial weights (version 0 of every shard), so its first pull is
 * free. The optimizer runs on the servers: workers run no update kernels.
 *
 * sync-ps --ps-push buckets (unless --no-overlap) pushes during the
 * backward pass instead, as TensorFlow sends each gradient once computed:
 * data parallelism's buckets (--bucket-size, backward order), each as soon
 * as its last gradient is computed, its 1/P to every shard. Every (shard,
 * bucket) pair is a server of its own (tag GRAD_TAG + b x P + k, its update
 * priced on its part), updating once every worker's part is in and
 * answering at once; a worker receives on one stream per shard (pull_tag)
 * and waits for all of them before its next iteration. The servers of
 * shard k take waiting gradients from worker k W / P on, turning, not in
 * the order sent (DtsOp.turn), so that the shards draw on different nodes'
 * links at once when identical workers send at the same instant.
 *
 * A server applies gradients as they arrive (schedule.h, DTS_OP_APPLY):
 * `each` one update per gradient (Hogwild-style on its shard), `merge` one
 * update with every gradient that has arrived since the previous update
 * (SPRINT's model: the effective mini-batch is the sum of their batches);
 * sync-ps waits for one gradient of every worker, and so runs at the pace
 * of the slowest: the profile's gpu-speed-spread multiplies every worker's
 * compute by the expected slowest of N (dts_framework_sync_slowdown, as
 * dp.c does), also under a staleness bound of 0. A staleness bound K
 * (async-ps) holds a gradient while its worker is more than K iterations
 * ahead of the slowest worker (stale-synchronous parallel), so the worker
 * waits for its reply; K = 0 is synchronous training, and with `merge`
 * runs exactly as sync-ps (tested).
 *
 * The update of a shard is memory-bound: per parameter it reads the fp32
 * weight and gradient, reads and writes the optimizer state, and writes
 * the weight: (4 + 4 + 4 + 2 x state) bytes at the memory bandwidth of
 * the host (the GPU's, or the CPU host's mem_bw property: a CPU's update
 * is a streaming loop over its DRAM, as TensorFlow's ApplyMomentum kernel
 * on a CPU device is; the GPU catalogue's bandwidth is a peak, and so is a
 * CPU's as the shipped platforms give it, so both are lower bounds), state being the optimizer's bytes per parameter (SGD with
 * momentum 4, Adam 8); each further gradient of a merged update adds one
 * read of 4 bytes per parameter (the sum). So with momentum an update of
 * a shard of S bytes takes 5 S / mem_bw, plus S / mem_bw per extra
 * gradient. Kernel launch and RPC overheads are not modelled.
 *
 * Messages: a gradient push carries S bytes of fp32 gradients, a reply S
 * bytes of fp32 weights; --ps-message-overhead T adds T of the server's
 * time to every message it receives or sends (RPC handling: gRPC's or a
 * socket's fixed cost per message), one message at a time. Gradients use tag GRAD_TAG + shard, replies
 * REPLY_TAG.
 *
 * Why the send order turns: a server takes one message at a time, in the
 * order they were sent, and identical workers send at the same instant, so
 * the order among them is the simulator's tie order. With every worker
 * pushing shard 0 first, every shard served the same worker at once,
 * through that worker's one network interface, while the others waited:
 * 256 workers and 16 shards iterated in 401 ms, and in 291-306 ms once a
 * compute jitter of 0.01% broke the ties. Real workers push their shards
 * concurrently; turning the order makes the shards serve different workers
 * at once whatever the tie order (318 ms without jitter, 294-329 ms with). */
#include "config.h"

#include <string.h>

#include "core/error.h"
#include "core/units.h"
#include "platform/gpu.h"
#include "schedule/schedule-private.h"

enum { GRAD_TAG = 1000, REPLY_TAG = 999 };

static const char *const apply_names[DTS_APPLY_COUNT] = {
  [DTS_APPLY_EACH] = "each", [DTS_APPLY_MERGE] = "merge", [DTS_APPLY_ALL] = "all",
};

const char *
dts_apply_policy_to_string (DtsApplyPolicy p)
{
  g_return_val_if_fail (p >= 0 && p < DTS_APPLY_COUNT, "?");
  return apply_names[p];
}

/* An integer value its spec has checked (in range). */
static int
checked_int (const char *text)
{
  return (int) g_ascii_strtoll (text, NULL, 10);
}

gboolean
dts_schedule_ps_configure (DtsRunOptions *o, const DtsOptionValues *values, GError **error)
{
  DtsPsConfig *c = &o->ps;
  const char *v;
  /* --collective ps's options: a node summing its gradients first is not
   * what these workers do; --ps-count below. */
  if (g_strcmp0 (dts_option_value (values, "ps-aggregation"), "node") == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--ps-aggregation node: not with --strategy %s, whose workers each talk to "
                 "the servers (--collective ps --ps-aggregation node sums a node's gradients "
                 "first)",
                 o->strategy);
    return FALSE;
  }
  if ((v = dts_option_value (values, "ps-shards")) != NULL)
    c->shards = checked_int (v);
  /* --ps-count, the collective's former spelling of --ps-shards */
  if ((v = dts_option_value (values, "ps-count")) != NULL) {
    int count = checked_int (v);
    if (c->shards > 0 && c->shards != count) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--ps-count %d: the former name of --ps-shards, which is %d", count, c->shards);
      return FALSE;
    }
    c->shards = count;
  }
  v = dts_option_value (values, "ps-placement");
  c->own_hosts = g_strcmp0 (v, "own") == 0;
  c->cpu_hosts = g_strcmp0 (v, "cpus") == 0;
  if ((v = dts_option_value (values, "ps-message-overhead")) != NULL) {
    double s;
    if (!dts_units_parse (v, DTS_UNIT_TIME, &s, NULL) || !(s >= 0) || !(s <= 1e3)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--ps-message-overhead '%s': expected a time in 0..1000s, e.g. 50us", v);
      return FALSE;
    }
    c->message_overhead_s = s;
  }
  if ((v = dts_option_value (values, "ps-concurrency")) != NULL)
    c->concurrency = checked_int (v);
  c->push_buckets = g_strcmp0 (dts_option_value (values, "ps-push"), "buckets") == 0;
  c->update = g_strcmp0 (dts_option_value (values, "ps-update"), "merge") == 0 ? DTS_APPLY_MERGE
                                                                                 : DTS_APPLY_EACH;
  if ((v = dts_option_value (values, "staleness-bound")) != NULL) {
    c->staleness_bound = checked_int (v);
    c->bound_set = TRUE;
  }
  return TRUE;
}

gboolean
dts_schedule_ps_resolve (DtsRunOptions *o, int have, GError **error)
{
  int own = o->ps.own_hosts ? (o->ps.shards > 0 ? o->ps.shards : 1) : 0;
  if (o->n_gpus == 0)
    o->n_gpus = have - own;
  if (o->n_gpus < 1 || o->n_gpus + own > have) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--ps-placement own: %d server%s and at least one worker need more than the "
                 "%d GPU%s of the platform",
                 own, own == 1 ? "" : "s", have, have == 1 ? "" : "s");
    return FALSE;
  }
  return TRUE;
}

static void
add_op (GArray *prog, DtsOp op)
{
  g_array_append_val (prog, op);
}

/* The tag of the replies of shard K when sync-ps overlaps its pushes
 * with the backward pass: after the tags of every bucket's pushes. */
static int
pull_tag (const DtsSchedule *s, const GArray *buckets, int k)
{
  return GRAD_TAG + (int) buckets->len * s->n_shards + k;
}

/* Worker programs that differ only in the order of their pushes: at most
 * this many (each holds every layer's operations). */
#define MAX_SEND_ORDERS 64

/* The worker program on GPU: forward, backward (at the pace of the slowest
 * of PACE_N workers, 1: its own), push to every shard from shard FIRST on,
 * receive every shard's weights. With BUCKETS (sync-ps overlapping its
 * pushes with the backward pass), bucket b's part of every shard is pushed
 * as soon as the backward pass has computed the bucket's last gradient
 * (BUCKET_OF: a layer's bucket, -1 without parameters), to the server of
 * (bucket, shard), tag GRAD_TAG + b x shards + shard; the replies of all
 * of them are received after the backward pass. */
static GArray *
worker_program (const DtsWorkload *w, DtsCost *cost, const DtsGpuSpec *gpu,
                const DtsRunOptions *o, const DtsSchedule *s, int first, int pace_n,
                const GArray *buckets, const int *bucket_of, DtsComputeTotals *tot,
                char **cost_source, GError **error)
{
  guint n_layers = w->layers->len;
  g_autofree DtsLayerTimes *t =
      dts_schedule_layer_times (w, cost, gpu, o->precision, o->batch_size, o->recompute,
                                cost_source, error);
  if (t == NULL)
    return NULL;
  dts_schedule_pace_slowest (cost, pace_n, t, n_layers);
  g_autoptr (GArray) prog = g_array_new (FALSE, TRUE, sizeof (DtsOp));
  *tot = (DtsComputeTotals){ 0 };
  for (guint l = 0; l < n_layers; l++)
    dts_schedule_add_compute (prog, tot, DTS_PHASE_FORWARD, l, 0, t[l].fwd_s);
  for (int l = (int) n_layers - 1; l >= 0; l--) {
    dts_schedule_add_backward (prog, tot, l, 0, &t[l]);
    int b = buckets != NULL ? bucket_of[l] : -1;
    if (b < 0 || g_array_index (buckets, DtsBucket, b).last_layer != l)
      continue;
    double bytes = g_array_index (buckets, DtsBucket, b).params
                   * DTS_SCHEDULE_GRAD_BYTES_PER_PARAM / s->n_shards;
    for (int i = 0; i < s->n_shards; i++) {
      int k = (first + i) % s->n_shards;
      add_op (prog, (DtsOp){ .type = DTS_OP_SEND, .layer = -1, .bucket = -1,
                             .peer = s->shard_rank[k], .tag = GRAD_TAG + b * s->n_shards + k,
                             .bytes = bytes, .detach = TRUE, .samples = o->batch_size });
    }
  }
  if (buckets != NULL) {
    /* the pulls run on a stream of their own (pull_program) */
    add_op (prog, (DtsOp){ .type = DTS_OP_WAIT, .layer = -1, .bucket = -1, .event = 0,
                           .count = s->n_shards, .wait = DTS_WAIT_P2P });
    return g_steal_pointer (&prog);
  }
  for (int i = 0; i < s->n_shards; i++) {
    int k = (first + i) % s->n_shards;
    add_op (prog, (DtsOp){ .type = DTS_OP_SEND, .layer = -1, .bucket = -1,
                           .peer = s->shard_rank[k], .tag = GRAD_TAG + k, .bytes = s->shard_bytes,
                           .detach = TRUE, .samples = o->batch_size });
  }
  for (int k = 0; k < s->n_shards; k++)
    add_op (prog, (DtsOp){ .type = DTS_OP_RECV, .layer = -1, .bucket = -1, .peer = DTS_PEER_ANY,
                           .tag = REPLY_TAG, .bytes = s->shard_bytes });
  return g_steal_pointer (&prog);
}

/* The pulls of a worker of sync-ps overlapping its pushes, from shard K:
 * every bucket's reply, received as soon as its server sends it (tag
 * REPLY_TAG of the first bucket's part, as the worker's pushes), then the
 * event its compute stream waits for before the next iteration. */
static GArray *
pull_program (const DtsSchedule *s, const GArray *buckets, int k)
{
  GArray *prog = g_array_new (FALSE, TRUE, sizeof (DtsOp));
  for (guint b = 0; b < buckets->len; b++)
    add_op (prog, (DtsOp){ .type = DTS_OP_RECV, .layer = -1, .bucket = -1,
                           .peer = DTS_PEER_ANY, .tag = pull_tag (s, buckets, k),
                           .bytes = g_array_index (buckets, DtsBucket, b).params
                                    * DTS_SCHEDULE_GRAD_BYTES_PER_PARAM / s->n_shards });
  add_op (prog, (DtsOp){ .type = DTS_OP_RECORD, .layer = -1, .bucket = -1, .event = 0 });
  return prog;
}

static DtsSchedule *
build (const DtsWorkload *w, const DtsPlatform *platform, DtsCost *cost, const DtsRunOptions *o,
       gboolean sync, GError **error)
{
  const char *strategy = sync ? "sync-ps" : "async-ps";
  int have = platform->gpus->len;
  if (o->n_gpus < 1 || o->n_gpus > have) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "platform '%s' has %d GPU%s; cannot run on %d", platform->path, have,
                 have == 1 ? "" : "s", o->n_gpus);
    return NULL;
  }
  if (o->batch_size < 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "batch size must be positive");
    return NULL;
  }
  int n = o->n_gpus;
  gboolean own = o->ps.own_hosts;
  int n_own = own ? (o->ps.shards > 0 ? o->ps.shards : 1) : 0;
  if (n + n_own > have) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--ps-placement own: %d workers and %d server%s need %d GPUs; platform '%s' "
                 "has %d",
                 n, n_own, n_own == 1 ? "" : "s", n + n_own, platform->path, have);
    return NULL;
  }
  g_autoptr (GArray) cpu_hosts = NULL;
  if (o->ps.cpu_hosts) {
    cpu_hosts = dts_platform_server_hosts (platform);
    if (cpu_hosts->len == 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "--ps-placement cpus: platform '%s' has no CPU host (a host without a GPU "
                   "carrying the property role=cpu or role=ps; dtsim platform --cpus makes the "
                   "sockets such hosts)",
                   platform->path);
      return NULL;
    }
    int hosts = (int) cpu_hosts->len;
    n_own = o->ps.shards > 0 ? o->ps.shards : MIN (dts_platform_count_nodes (platform, n), hosts);
    if (n_own > hosts) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--ps-shards %d: --ps-placement cpus runs one shard per CPU host and platform "
                   "'%s' has %d",
                   n_own, platform->path, hosts);
      return NULL;
    }
  }
  g_autoptr (DtsSchedule) s
    = dts_schedule_new_empty (strategy, n + n_own, o->batch_size, o->precision);
  s->buckets = g_array_new (FALSE, TRUE, sizeof (DtsBucket));
  s->plan_comm = g_new0 (int, 1);
  s->n_events = 0;
  s->ps_update = sync ? DTS_APPLY_ALL : (DtsApplyPolicy) o->ps.update;
  s->staleness_bound = sync ? -1 : (o->ps.bound_set ? o->ps.staleness_bound : -1);

  int n_shards = o->ps.shards;
  if (own || cpu_hosts != NULL) {
    n_shards = n_own;
    s->shard_rank = g_new (int, n_own);
    for (int k = 0; k < n_own; k++) {
      s->shard_rank[k] = n + k;
      s->rank_program[n + k] = -1;
    }
    if (cpu_hosts != NULL) {
      s->rank_cpu = g_new (int, n + n_own);
      for (int r = 0; r < n + n_own; r++)
        s->rank_cpu[r] = r < n ? -1 : g_array_index (cpu_hosts, int, r - n);
    }
  } else {
    s->shard_rank = dts_schedule_ps_placement (platform, n, &n_shards, error);
    if (s->shard_rank == NULL) {
      g_prefix_error (error, "--ps-shards: ");
      return NULL;
    }
  }
  s->n_shards = n_shards;
  s->ps_parts = 1;
  s->shard_bytes = w->params * DTS_SCHEDULE_GRAD_BYTES_PER_PARAM / n_shards;
  if (!(s->shard_bytes > 0)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "workload '%s' has no parameters for its servers to hold", w->name);
    return NULL;
  }

  /* Workers: one program per distinct GPU and send order.  A synchronous
   * round (sync-ps, or a staleness bound of 0) waits for the slowest of
   * the N workers, as data parallelism does (dp.c): the profile's
   * gpu-speed-spread prices every worker at the expected slowest. */
  int pace_n = sync || s->staleness_bound == 0 ? n : 1;
  /* sync-ps --ps-push buckets pushes bucket by bucket during the backward
   * pass (the buckets of data parallelism, --bucket-size, in backward
   * order), but with --no-overlap: the whole gradient after it. */
  g_autoptr (GArray) buckets = NULL;
  g_autofree int *bucket_of = NULL;
  if (sync && o->overlap && o->ps.push_buckets) {
    bucket_of = g_new0 (int, w->layers->len);
    buckets = dts_schedule_make_buckets (w, 0, (int) w->layers->len - 1, o->bucket_bytes,
                                         DTS_SCHEDULE_GRAD_BYTES_PER_PARAM, 0, bucket_of);
    s->ps_parts = (int) buckets->len;
  }
  g_autoptr (GPtrArray) specs = g_ptr_array_new ();
  g_autoptr (GArray) prog_of = g_array_new (FALSE, FALSE, sizeof (int));
  int orders = MIN (MIN (s->n_shards, n), MAX_SEND_ORDERS);
  for (int r = 0; r < n; r++) {
    const DtsGpuSpec *spec = &dts_platform_gpu (platform, r)->spec;
    guint k = dts_schedule_spec_index (specs, spec);
    if (k == specs->len) {
      g_ptr_array_add (specs, (gpointer) spec);
      for (int f = 0; f < orders; f++) {
        DtsComputeTotals tot;
        int first = (int) ((gint64) f * s->n_shards / orders);
        GArray *prog
            = worker_program (w, cost, spec, o, s, first, pace_n, buckets, bucket_of, &tot,
                              &s->cost_source, error);
        if (prog == NULL) {
          g_prefix_error (error, "GPU '%s' (rank %d): ", dts_platform_gpu (platform, r)->host, r);
          return NULL;
        }
        int idx = s->programs->len;
        g_array_append_val (prog_of, idx);
        g_ptr_array_add (s->programs, prog);
        g_array_append_val (s->totals, tot);
      }
    }
    s->rank_program[r] = g_array_index (prog_of, int, k * orders + r % orders);
  }
  /* Its pulls: one stream per shard, so that a worker receives from every
   * shard at once (concurrent RPCs) and no server waits for a worker busy
   * receiving from another. */
  int pulls = -1;
  for (int k = 0; buckets != NULL && k < s->n_shards; k++) {
    g_ptr_array_add (s->programs, pull_program (s, buckets, k));
    DtsComputeTotals none = { 0 };
    g_array_append_val (s->totals, none);
    if (k == 0)
      pulls = (int) s->programs->len - 1;
    s->n_events = 1;
  }
  for (int r = 0; r < n; r++) {
    DtsStream cs = { r, DTS_STREAM_COMPUTE, 0, s->rank_program[r] };
    g_array_append_val (s->streams, cs);
    for (int k = 0; pulls >= 0 && k < s->n_shards; k++) {
      DtsStream ps = { r, DTS_STREAM_P2P, k, pulls + k };
      g_array_append_val (s->streams, ps);
    }
  }

  /* Servers: update priced on the host's memory bandwidth (GPU or CPU). */
  double state = dts_workload_optimizer_state_bytes_per_param (w);
  double per_param = 4.0 + 4.0 + 4.0 + 2.0 * state;
  for (int k = 0; k < n_shards; k++) {
    double mem_bw_Bps;
    int r = s->shard_rank[k];
    if (s->rank_cpu != NULL) {
      const DtsCpu *cpu = &g_array_index (platform->cpus, DtsCpu, s->rank_cpu[r]);
      mem_bw_Bps = cpu->mem_bw_Bps;
      if (!(mem_bw_Bps > 0)) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                     "platform '%s': line %d: CPU host '%s' has no memory bandwidth (expected "
                     "a property mem_bw, e.g. <prop id=\"mem_bw\" value=\"59GBps\"/>, to price "
                     "the update of parameter-server shard %d)",
                     platform->path, cpu->line, cpu->host, k);
        return NULL;
      }
    } else {
      const DtsGpu *gpu = dts_platform_gpu (platform, r);
      mem_bw_Bps = gpu->spec.mem_bw_Bps;
      if (!(mem_bw_Bps > 0)) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                     "platform '%s': line %d: GPU '%s' has no memory bandwidth (needed to price "
                     "the update of parameter-server shard %d)",
                     platform->path, gpu->line, gpu->host, k);
        return NULL;
      }
    }
    double params = s->shard_bytes / DTS_SCHEDULE_GRAD_BYTES_PER_PARAM;
    if (k == 0) {
      s->update_s = params * per_param / mem_bw_Bps;
      s->update_extra_s = params * 4.0 / mem_bw_Bps;
    }
    /* One server per part of the shard: the whole shard, or its part of
     * every bucket (tag GRAD_TAG + b x shards + k), updated as soon as
     * every worker's part has arrived and answered at once. */
    int n_parts = buckets != NULL ? (int) buckets->len : 1;
    for (int b = 0; b < n_parts; b++) {
      double part = buckets != NULL ? g_array_index (buckets, DtsBucket, b).params / n_shards
                                    : params;
      GArray *prog = g_array_new (FALSE, TRUE, sizeof (DtsOp));
      add_op (prog, (DtsOp){ .type = DTS_OP_APPLY, .phase = DTS_PHASE_UPDATE, .layer = -1,
                             .bucket = buckets != NULL ? b : -1,
                             .tag = GRAD_TAG + b * n_shards + k,
                             .bytes = part * DTS_SCHEDULE_GRAD_BYTES_PER_PARAM,
                             .policy = s->ps_update, .count = sync ? n : 1,
                             .bound = s->staleness_bound, .senders = n, .shard = k,
                             .duration_s = part * per_param / mem_bw_Bps,
                             .extra_s = part * 4.0 / mem_bw_Bps,
                             .overhead_s = o->ps.message_overhead_s,
                             .concurrency = MAX (o->ps.concurrency, 1),
                             .turn = buckets != NULL,
                             .first_sender = (int) ((gint64) k * n / n_shards) });
      add_op (prog, (DtsOp){ .type = DTS_OP_SEND, .layer = -1, .bucket = -1,
                             .peer = DTS_PEER_REPLY,
                             .tag = buckets != NULL ? pull_tag (s, buckets, k) : REPLY_TAG,
                             .bytes = part * DTS_SCHEDULE_GRAD_BYTES_PER_PARAM, .detach = TRUE });
      g_ptr_array_add (s->programs, prog);
      DtsComputeTotals none = { 0 };
      g_array_append_val (s->totals, none);
      DtsStream ss = { s->shard_rank[k], DTS_STREAM_SERVER, k, (int) s->programs->len - 1 };
      g_array_append_val (s->streams, ss);
    }
  }

  /* A worker keeps weights and gradients, no optimizer state. */
  dts_schedule_memory_estimate (w, o->batch_size, o->precision, o->recompute,
                                dts_cost_framework (cost)->loss, &s->memory);
  s->memory.total_bytes -= s->memory.optimizer_bytes;
  s->memory.optimizer_bytes = 0;
  g_autofree char *activations = g_strdup_printf ("activations of batch %d", o->batch_size);
  g_autofree char *hints = dts_schedule_memory_hints (w, &s->memory, o, NULL);
  if (!dts_schedule_check_memory (&s->memory, platform, NULL, n,
                                  "a worker (the whole model on every GPU)", activations, hints,
                                  o, error))
    return NULL;
  s->samples_per_iteration = o->batch_size * n;
  s->micro_batches = 1;
  return g_steal_pointer (&s);
}

DtsSchedule *
dts_schedule_async_ps_new (const DtsWorkload *workload, const DtsPlatform *platform,
                           DtsCost *cost, const DtsRunOptions *opts, GError **error)
{
  return build (workload, platform, cost, opts, FALSE, error);
}

DtsSchedule *
dts_schedule_sync_ps_new (const DtsWorkload *workload, const DtsPlatform *platform, DtsCost *cost,
                          const DtsRunOptions *opts, GError **error)
{
  return build (workload, platform, cost, opts, TRUE, error);
}
