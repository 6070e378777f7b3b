/* dp.c - the data-parallel schedule (synchronous SGD, PyTorch DDP style).
 *
 * See schedule.h for the model. Bucketing follows DDP's Reducer: parameters
 * are visited in backward order (reverse layer order) and a bucket is closed
 * once it holds at least the cap, so a bucket may exceed the cap by one
 * layer's gradients and a layer is never split. The memory estimate counts
 * what training keeps resident (weights, gradients, optimizer state, the
 * activations saved for backward); workspace, allocator fragmentation and
 * the framework's own buffers are not counted.
 *
 * --zero 1 (the distributed optimizer, ZeRO stage 1, as pipeline.c runs it
 * for a stage's replicas, with the helpers both share): each bucket's
 * gradients are reduce-scattered over the N ranks instead of all-reduced,
 * each rank updates 1/N of the parameters (1/N of the optimizer's time, of
 * the fp32 main weights and of the optimizer state in memory), and the
 * bucket's stream then all-gathers its parameters in the compute precision,
 * in forward order; the next iteration waits for them before it starts
 * (--param-gather after-step) or before each bucket's first layer (overlap,
 * the first iteration's parameters being in place). --zero 2 keeps only
 * 1/N of the gradients (memory only). --zero 3 (FSDP, data parallelism
 * only) shards the parameters too: each bucket is a unit gathered before
 * its forward (as overlap) and again before its backward, once the forward
 * pass is done and one bucket ahead of the reduce-scatters (FSDP's backward
 * prefetch), with two buckets' parameters resident at a time. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "schedule/schedule-private.h"

static const char *const phase_names[DTS_PHASE_COUNT] = {
  [DTS_PHASE_FORWARD] = "forward",
  [DTS_PHASE_BACKWARD_DATA] = "backward-data",
  [DTS_PHASE_BACKWARD_WEIGHT] = "backward-weight",
  [DTS_PHASE_UPDATE] = "update",
  [DTS_PHASE_RECOMPUTE] = "recompute",
};

const char *
dts_phase_to_string (DtsPhase phase)
{
  g_return_val_if_fail (phase >= 0 && phase < DTS_PHASE_COUNT, "?");
  return phase_names[phase];
}

gboolean
dts_phase_same_pass (DtsPhase a, DtsPhase b)
{
  gboolean bwd_a = a == DTS_PHASE_BACKWARD_DATA || a == DTS_PHASE_BACKWARD_WEIGHT
                   || a == DTS_PHASE_RECOMPUTE;
  gboolean bwd_b = b == DTS_PHASE_BACKWARD_DATA || b == DTS_PHASE_BACKWARD_WEIGHT
                   || b == DTS_PHASE_RECOMPUTE;
  return a == b || (bwd_a && bwd_b);
}

#define GRAD_BYTES_PER_PARAM DTS_SCHEDULE_GRAD_BYTES_PER_PARAM

/* What LAYER keeps for backward when nothing is recomputed, and under
 * selective recomputation: attention keeps Q, K and V only (its input),
 * its probabilities, dropout mask and output are computed again. */
static double
kept_elems (const DtsLayer *layer, DtsRecompute recompute, DtsLossKernel loss,
            DtsPrecision precision)
{
  /* Layers whose row says they run in place (ReLU and the residual add:
   * torch.nn.ReLU(inplace=True), `out += identity`, as torchvision and the
   * frameworks' ResNets do) overwrite their input's buffer, which nothing
   * else needs for backward, so they store nothing of their own. */
  if (dts_layer_in_place (layer))
    return 0.0;
  if (recompute != DTS_RECOMPUTE_NONE && dts_layer_recomputed_selectively (layer))
    return layer->in_elems;
  /* a cross-entropy keeps what the framework's implementation keeps: fp32
   * probabilities where it computes in fp32 (loss.c) */
  if (layer->type == DTS_LAYER_CROSS_ENTROPY)
    return layer->act_elems * dts_loss_kept_bytes (loss, precision)
           / dts_precision_elem_bytes (precision);
  return layer->act_elems;
}

double
dts_schedule_stored_elems (const DtsWorkload *w, int first, int last, DtsRecompute recompute,
                           DtsLossKernel loss, DtsPrecision precision)
{
  /* Full recomputation (Megatron's uniform method with one layer per
   * checkpoint; Korthikanti et al. 2022, section 4): a block keeps its
   * input; its activations exist again only while its backward runs, one
   * block at a time. */
  double act = 0, block = 0, widest = 0;
  int current = -1;
  for (int l = first; l <= last; l++) {
    const DtsLayer *layer = dts_workload_layer (w, l);
    if (recompute != DTS_RECOMPUTE_FULL || layer->block < 0) {
      act += kept_elems (layer, recompute, loss, precision);
      continue;
    }
    if (layer->block != current) {
      current = layer->block;
      act += layer->in_elems;
      widest = MAX (widest, block);
      block = 0;
    }
    block += kept_elems (layer, DTS_RECOMPUTE_SELECTIVE, loss, precision);
  }
  return act + MAX (widest, block);
}

gboolean
dts_schedule_check_recompute (const DtsWorkload *w, DtsRecompute recompute, GError **error)
{
  gboolean blocks = FALSE, attention = FALSE;
  for (guint l = 0; l < w->layers->len; l++) {
    blocks = blocks || dts_workload_layer (w, l)->block >= 0;
    attention = attention || dts_layer_recomputed_selectively (dts_workload_layer (w, l));
  }
  if (recompute == DTS_RECOMPUTE_FULL && !blocks) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--recompute full: workload '%s' has no repeated blocks to recompute (a "
                 "<transformer>, or block= on its layers: doc/WORKLOADS.md)",
                 w->name);
    return FALSE;
  }
  if (recompute == DTS_RECOMPUTE_SELECTIVE && !attention) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--recompute selective: workload '%s' has no attention layer to recompute",
                 w->name);
    return FALSE;
  }
  return TRUE;
}

/* Recomputation in time: a layer recomputed runs its forward again just
 * before its backward, on the compute stream, as a kernel of its own
 * (phase recompute; dts_schedule_add_backward). */
static void
add_recompute (const DtsWorkload *w, DtsRecompute recompute, DtsLayerTimes *t)
{
  for (guint l = 1; recompute != DTS_RECOMPUTE_NONE && l < w->layers->len; l++) {
    const DtsLayer *layer = dts_workload_layer (w, l);
    gboolean again = recompute == DTS_RECOMPUTE_FULL ? layer->block >= 0
                                                     : dts_layer_recomputed_selectively (layer);
    if (again)
      t[l].recompute_s = t[l].fwd_s;
  }
}

void
dts_schedule_add_backward (GArray *prog, DtsComputeTotals *tot, int layer, int micro_batch,
                           const DtsLayerTimes *t)
{
  dts_schedule_add_compute (prog, tot, DTS_PHASE_RECOMPUTE, layer, micro_batch, t->recompute_s);
  dts_schedule_add_compute (prog, tot, DTS_PHASE_BACKWARD_DATA, layer, micro_batch,
                            t->bwd_data_s);
  dts_schedule_add_compute (prog, tot, DTS_PHASE_BACKWARD_WEIGHT, layer, micro_batch,
                            t->bwd_weight_s);
}

void
dts_schedule_model_state (double params, DtsPrecision precision, double optimizer_bytes,
                          int shards, int grad_shards, double bucket_bytes,
                          DtsMemoryEstimate *out)
{
  double elem = dts_precision_elem_bytes (precision);
  gboolean mixed = elem < 4.0;
  double grads = params * GRAD_BYTES_PER_PARAM;
  out->weights_bytes = params * (mixed ? elem + 4.0 / shards : 4.0);
  out->gradients_bytes = grad_shards > 1
                             ? grads / grad_shards + MIN (bucket_bytes, grads - grads / grad_shards)
                             : grads;
  out->optimizer_bytes = params * optimizer_bytes / shards;
}

double
dts_schedule_sharded_weights (double params, DtsPrecision precision, int shards,
                              double bucket_params, gboolean overlap)
{
  double elem = dts_precision_elem_bytes (precision);
  double per_param = elem < 4.0 ? elem + 4.0 : 4.0;
  double gathered = overlap ? MIN (2 * bucket_params, params) : params;
  return params * per_param / shards + gathered * elem;
}

void
dts_schedule_memory_estimate (const DtsWorkload *w, int batch, DtsPrecision precision,
                              DtsRecompute recompute, DtsLossKernel loss, DtsMemoryEstimate *out)
{
  dts_schedule_model_state (w->params, precision, dts_workload_optimizer_state_bytes_per_param (w),
                            1, 1, 0, out);
  double act
      = dts_schedule_stored_elems (w, 0, (int) w->layers->len - 1, recompute, loss, precision);
  out->activations_bytes = act * batch * dts_precision_elem_bytes (precision);
  out->total_bytes = out->weights_bytes + out->gradients_bytes + out->optimizer_bytes
                     + out->activations_bytes;
}

#define GIB (1024.0 * 1024.0 * 1024.0)

/* "12.34 GiB", or "5.2 MiB" below 0.1 GiB (BUF of 32). */
static const char *
gib (char *buf, double bytes)
{
  if (bytes >= 0.1 * GIB)
    g_snprintf (buf, 32, "%.2f GiB", bytes / GIB);
  else
    g_snprintf (buf, 32, "%.1f MiB", bytes / (1024.0 * 1024.0));
  return buf;
}

gboolean
dts_schedule_check_memory (const DtsMemoryEstimate *mem, const DtsPlatform *platform,
                           const int *ranks, int n_ranks, const char *what,
                           const char *activations, const char *hints, const DtsRunOptions *o,
                           GError **error)
{
  for (int k = 0; k < n_ranks && !o->allow_oversubscribe; k++) {
    int r = ranks ? ranks[k] : k;
    const DtsGpu *gpu = dts_platform_gpu (platform, r);
    if (mem->total_bytes > gpu->spec.mem_bytes) {
      char total[32], weights[32], grads[32], optim[32], act[32], have[32];
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "%s needs %s per GPU (weights %s, gradients %s, optimizer %s, %s %s), more "
                   "than the %s of GPU '%s' (rank %d); use %s or --allow-oversubscribe-memory",
                   what, gib (total, mem->total_bytes), gib (weights, mem->weights_bytes),
                   gib (grads, mem->gradients_bytes), gib (optim, mem->optimizer_bytes),
                   activations, gib (act, mem->activations_bytes),
                   gib (have, gpu->spec.mem_bytes), gpu->host, r, hints);
      return FALSE;
    }
  }
  return TRUE;
}

char *
dts_schedule_memory_hints (const DtsWorkload *w, const DtsMemoryEstimate *mem,
                           const DtsRunOptions *o, const char *strategies)
{
  g_autoptr (GString) s = g_string_new (NULL);
  if (o->batch_size > 1)
    g_string_append (s, "a smaller --batch-size, ");
  if (o->recompute != DTS_RECOMPUTE_FULL
      && dts_schedule_check_recompute (w, DTS_RECOMPUTE_FULL, NULL))
    g_string_append (s, "--recompute full, ");
  else if (o->recompute == DTS_RECOMPUTE_NONE
           && dts_schedule_check_recompute (w, DTS_RECOMPUTE_SELECTIVE, NULL))
    g_string_append (s, "--recompute selective, ");
  /* Mixed precision saves half the activations and adds a 2-byte copy of
   * the 4-byte weights: half their bytes. */
  if (o->precision == DTS_PREC_FP32 && mem->activations_bytes > mem->weights_bytes)
    g_string_append (s, "--precision fp16, ");
  if (strategies != NULL)
    g_string_append_printf (s, "%s, ", strategies);
  g_string_append (s, "GPUs with more memory,");
  return g_string_free (g_steal_pointer (&s), FALSE);
}

void
dts_schedule_free (DtsSchedule *sched)
{
  if (sched == NULL)
    return;
  g_free (sched->strategy);
  g_free (sched->cost_source);
  if (sched->buckets)
    g_array_unref (sched->buckets);
  if (sched->plans)
    g_ptr_array_unref (sched->plans);
  g_free (sched->plan_comm);
  if (sched->comms)
    g_ptr_array_unref (sched->comms);
  if (sched->programs)
    g_ptr_array_unref (sched->programs);
  if (sched->totals)
    g_array_unref (sched->totals);
  if (sched->streams)
    g_array_unref (sched->streams);
  g_free (sched->rank_program);
  if (sched->plan_maps)
    g_ptr_array_unref (sched->plan_maps);
  g_free (sched->rank_plan_map);
  if (sched->stages)
    g_array_unref (sched->stages);
  g_free (sched->rank_stage);
  dts_mesh_free (sched->mesh);
  g_free (sched->shard_rank);
  g_free (sched->rank_cpu);
  g_free (sched->event_initial);
  g_free (sched);
}

gboolean
dts_schedule_same_gpu (const DtsGpuSpec *a, const DtsGpuSpec *b)
{
  return g_strcmp0 (a->id, b->id) == 0
         && memcmp (a->peak_flops, b->peak_flops, sizeof a->peak_flops) == 0
         && a->mem_bw_Bps == b->mem_bw_Bps && a->mem_bytes == b->mem_bytes
         && a->sm_count == b->sm_count;
}

double
dts_schedule_grad_bytes (const DtsRunOptions *opts)
{
  return opts->grad_bytes > 0 ? opts->grad_bytes : GRAD_BYTES_PER_PARAM;
}

/* The cap counts the bytes that are all-reduced (DDP with fp16 gradients,
 * Horovod's fusion buffer after fp16 compression). */
guint
dts_schedule_spec_index (const GPtrArray *specs, const DtsGpuSpec *spec)
{
  guint k;
  for (k = 0; k < specs->len; k++)
    if (dts_schedule_same_gpu (spec, g_ptr_array_index (specs, k)))
      break;
  return k;
}

GArray *
dts_schedule_make_buckets (const DtsWorkload *w, int first, int last, double cap_bytes,
                           double grad_bytes, int base, int *bucket_of)
{
  GArray *buckets = g_array_new (FALSE, TRUE, sizeof (DtsBucket));
  DtsBucket cur = { 0 };
  for (int l = last; l >= first; l--) {
    bucket_of[l] = -1;
    const DtsLayer *layer = dts_workload_layer (w, l);
    if (!(layer->params > 0))
      continue;
    if (cur.n_layers == 0)
      cur.first_layer = l;
    cur.params += layer->params;
    cur.bytes += layer->params * grad_bytes;
    cur.n_layers++;
    cur.last_layer = l;
    bucket_of[l] = base + (int) buckets->len;
    if (cur.bytes >= cap_bytes) {
      g_array_append_val (buckets, cur);
      cur = (DtsBucket){ 0 };
    }
  }
  if (cur.n_layers > 0)
    g_array_append_val (buckets, cur);
  return buckets;
}

DtsCollPlan *
dts_schedule_gather_plan_new (const char *algorithm, const DtsCollParams *grad,
                              const DtsBucket *bucket, DtsPrecision precision, GError **error)
{
  DtsCollParams cp = *grad;
  cp.bytes = bucket->params * dts_precision_elem_bytes (precision);
  cp.op = DTS_COLL_OP_ALLGATHER;
  return dts_coll_plan_new (algorithm, &cp, error);
}

void
dts_schedule_add_param_gathers (GArray *prog, const int *plan_of, int plan_stride, int first,
                                int last, int step, int event)
{
  g_return_if_fail (step >= 1);
  for (int b = last; b >= first; b -= step) {
    DtsOp coll = { .type = DTS_OP_COLL, .layer = -1, .bucket = -1,
                   .coll = plan_of[b * plan_stride], .part = -1 };
    DtsOp done = { .type = DTS_OP_RECORD, .layer = -1, .bucket = -1, .event = event };
    g_array_append_val (prog, coll);
    g_array_append_val (prog, done);
  }
}

void
dts_schedule_add_backward_gathers (GArray *prog, const int *plan_of, int plan_stride, int first,
                                   int end, int step, int b, gboolean overlap, int event)
{
  if (b == first)
    for (int g = first; g < end && (g == first || !overlap); g += step)
      dts_schedule_add_param_gathers (prog, plan_of, plan_stride, g, g, 1, event);
  if (overlap && b + step < end)
    dts_schedule_add_param_gathers (prog, plan_of, plan_stride, b + step, b + step, 1, event);
}

double
dts_schedule_largest_bucket (const GArray *buckets, int first, int n, double *params)
{
  double bytes = 0, most = 0;
  for (int b = first; b < first + n; b++) {
    bytes = MAX (bytes, g_array_index (buckets, DtsBucket, b).bytes);
    most = MAX (most, g_array_index (buckets, DtsBucket, b).params);
  }
  if (params != NULL)
    *params = most;
  return bytes;
}

int
dts_schedule_bucket_starting_at (const GArray *buckets, const int *bucket_of, int l)
{
  int b = bucket_of[l];
  return b >= 0 && g_array_index (buckets, DtsBucket, b).last_layer == l ? b : -1;
}

void
dts_schedule_add_compute (GArray *prog, DtsComputeTotals *tot, DtsPhase phase, int layer,
                          int micro_batch, double t_s)
{
  if (!(t_s > 0))
    return;
  DtsOp op = { .type = DTS_OP_COMPUTE, .phase = phase, .layer = layer, .bucket = -1,
               .micro_batch = micro_batch, .duration_s = t_s };
  g_array_append_val (prog, op);
  tot->phase_s[phase] += t_s;
  tot->total_s += t_s;
}

/* Events of a data-parallel rank: "ready" of communication stream j is
 * event j, "done" (every stream's) is event S. */
static void
add_ready (GArray *prog, int bucket, int n_streams)
{
  DtsOp op = { .type = DTS_OP_RECORD, .layer = -1, .bucket = bucket,
               .event = bucket % n_streams };
  g_array_append_val (prog, op);
}

void
dts_schedule_pace_slowest (const DtsCost *cost, int n, DtsLayerTimes *t, guint n_layers)
{
  double slow = dts_framework_sync_slowdown (dts_cost_framework (cost), n);
  for (guint l = 0; slow != 1.0 && l < n_layers; l++) {
    t[l].fwd_s *= slow;
    t[l].bwd_data_s *= slow;
    t[l].bwd_weight_s *= slow;
    t[l].update_s *= slow;
    t[l].recompute_s *= slow;
  }
}

DtsLayerTimes *
dts_schedule_layer_times (const DtsWorkload *w, DtsCost *cost, const DtsGpuSpec *gpu,
                          DtsPrecision precision, int batch, DtsRecompute recompute,
                          char **cost_source, GError **error)
{
  guint n_layers = w->layers->len;
  g_autofree DtsLayerTimes *times = g_new0 (DtsLayerTimes, n_layers);
  for (guint l = 0; l < n_layers; l++) {
    const DtsLayer *layer = dts_workload_layer (w, l);
    if (!dts_cost_layer_times (cost, layer, gpu, precision, batch, &times[l], error))
      return NULL;
    double t[] = { times[l].fwd_s, times[l].bwd_data_s, times[l].bwd_weight_s, times[l].update_s };
    for (guint k = 0; k < G_N_ELEMENTS (t); k++)
      if (!(t[k] >= 0) || !isfinite (t[k])) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                     "cost model '%s' gives layer '%s' a %s time of %g s on %s "
                     "(expected a finite time >= 0)",
                     dts_cost_id (cost), layer->name, phase_names[k], t[k], gpu->id);
        return NULL;
      }
    if (*cost_source == NULL && times[l].source != NULL && l > 0)
      *cost_source = g_strdup (times[l].source);
  }
  add_recompute (w, recompute, times);
  return g_steal_pointer (&times);
}

/* Events of a data-parallel rank under the distributed optimizer, after
 * add_ready's: the optimizer step is done (recorded once per stream), and
 * stream j's parameter all-gathers, one event per stream, so that a wait
 * for a bucket's gather counts that stream's gathers, which run in forward
 * order. */
#define EV_STEP_DONE(n_streams) ((n_streams) + 1)
#define EV_GATHERED(n_streams, j) ((n_streams) + 2 + (j))
/* --zero 3 adds stream j's gathers before the backward pass, and the end
 * of the forward pass (recorded once per stream), after which they start. */
#define EV_GATHERED_BWD(n_streams, j) (2 * (n_streams) + 2 + (j))
#define EV_FWD_DONE(n_streams) (3 * (n_streams) + 2)

/* Buckets of a data-parallel communication stream J of N_STREAMS among
 * N_BUCKETS: J, J + N_STREAMS, ... */
static int
stream_buckets (int n_buckets, int n_streams, int j)
{
  return j < n_buckets ? (n_buckets - j + n_streams - 1) / n_streams : 0;
}

static void
add_wait (GArray *prog, int event, int count, DtsWaitKind kind)
{
  DtsOp op = { .type = DTS_OP_WAIT, .layer = -1, .bucket = -1, .event = event, .count = count,
               .wait = kind };
  g_array_append_val (prog, op);
}

/* The program of one rank on GPU; under --zero 1 or 2 (ZERO) the rank
 * updates 1/D of the parameters and then waits for their all-gathers, at
 * once (--param-gather after-step) or bucket by bucket in the next forward
 * pass (overlap). Under --zero 3 (SHARDED) it waits for each bucket's
 * gather before the bucket's forward, as with overlap, and for its second
 * gather before the bucket's backward, and says when its forward pass is
 * done (the backward gathers start then). */
static GArray *
make_program (const DtsWorkload *w, DtsCost *cost, const DtsGpuSpec *gpu, const DtsRunOptions *opts,
              const GArray *buckets, const int *bucket_of, int n_streams, gboolean zero,
              gboolean sharded, DtsComputeTotals *tot, char **cost_source, GError **error)
{
  guint n_layers = w->layers->len;
  g_autofree DtsLayerTimes *times = dts_schedule_layer_times (
      w, cost, gpu, opts->precision, opts->batch_size, opts->recompute, cost_source, error);
  if (times == NULL)
    return NULL;
  /* Synchronous data parallelism runs at the pace of the slowest GPU. */
  dts_schedule_pace_slowest (cost, opts->n_gpus, times, n_layers);

  g_autoptr (GArray) prog = g_array_new (FALSE, TRUE, sizeof (DtsOp));
  *tot = (DtsComputeTotals){ 0 };
  for (guint l = 0; l < n_layers; l++) {
    int b = zero && (opts->replicas.param_gather_overlap || sharded)
                ? dts_schedule_bucket_starting_at (buckets, bucket_of, l) : -1;
    if (b >= 0)
      add_wait (prog, EV_GATHERED (n_streams, b % n_streams), 1, DTS_WAIT_GATHER);
    dts_schedule_add_compute (prog, tot, DTS_PHASE_FORWARD, l, 0, times[l].fwd_s);
  }
  for (int j = 0; sharded && j < n_streams; j++) {
    DtsOp done = { .type = DTS_OP_RECORD, .layer = -1, .bucket = -1,
                   .event = EV_FWD_DONE (n_streams) };
    g_array_append_val (prog, done);
  }
  for (int l = (int) n_layers - 1; l >= 0; l--) {
    int bb = sharded ? bucket_of[l] : -1;
    if (bb >= 0 && g_array_index (buckets, DtsBucket, bb).first_layer == l)
      add_wait (prog, EV_GATHERED_BWD (n_streams, bb % n_streams), 1, DTS_WAIT_GATHER);
    dts_schedule_add_backward (prog, tot, l, 0, &times[l]);
    int b = bucket_of[l];
    if (opts->overlap && b >= 0 && g_array_index (buckets, DtsBucket, b).last_layer == l)
      add_ready (prog, b, n_streams);
  }
  if (buckets->len > 0) {
    if (!opts->overlap)
      for (guint b = 0; b < buckets->len; b++)
        add_ready (prog, b, n_streams);
    DtsOp wait = { .type = DTS_OP_WAIT, .layer = -1, .bucket = -1, .event = n_streams,
                   .count = (int) buckets->len };
    g_array_append_val (prog, wait);
  }
  /* The distributed optimizer updates the rank's 1/D of the parameters. */
  int shards = zero && buckets->len > 0 ? opts->n_gpus : 1;
  for (guint l = 0; l < n_layers; l++)
    dts_schedule_add_compute (prog, tot, DTS_PHASE_UPDATE, l, 0, times[l].update_s / shards);
  if (shards > 1) {
    for (int j = 0; j < n_streams; j++) {
      DtsOp step = { .type = DTS_OP_RECORD, .layer = -1, .bucket = -1,
                     .event = EV_STEP_DONE (n_streams) };
      g_array_append_val (prog, step);
    }
    for (int j = 0; j < n_streams && !opts->replicas.param_gather_overlap && !sharded; j++)
      add_wait (prog, EV_GATHERED (n_streams, j), stream_buckets (buckets->len, n_streams, j),
                DTS_WAIT_GATHER);
  }
  return g_steal_pointer (&prog);
}

static gboolean
check_options (const DtsPlatform *platform, const DtsRunOptions *opts, GError **error)
{
  int have = platform->gpus->len;
  if (opts->n_gpus < 1 || opts->n_gpus > have) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "platform '%s' has %d GPU%s; cannot run on %d", platform->path, have,
                 have == 1 ? "" : "s", opts->n_gpus);
    return FALSE;
  }
  if (opts->batch_size < 1 || !(opts->bucket_bytes > 0) || !(opts->chunk_bytes > 0)
      || opts->channels < 1 || opts->replicas.comm_streams < 0
      || opts->replicas.comm_streams > DTS_SCHEDULE_MAX_COMM_STREAMS) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "batch size, bucket size, chunk size and channels must be positive and "
                 "communication streams in 1..%d",
                 DTS_SCHEDULE_MAX_COMM_STREAMS);
    return FALSE;
  }
  return TRUE;
}

int *
dts_schedule_ps_placement (const DtsPlatform *platform, int n_ranks, int *n_servers,
                           GError **error)
{
  g_return_val_if_fail (n_ranks >= 1 && n_ranks <= (int) platform->gpus->len, NULL);
  /* Participating ranks of every node, in node order. */
  g_autoptr (GPtrArray) nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint i = 0; i < platform->nodes->len; i++) {
    const DtsNode *node = &g_array_index (platform->nodes, DtsNode, i);
    GArray *mine = g_array_new (FALSE, FALSE, sizeof (int));
    for (guint j = 0; j < node->ranks->len; j++)
      if (g_array_index (node->ranks, int, j) < n_ranks)
        g_array_append_val (mine, g_array_index (node->ranks, int, j));
    if (mine->len > 0)
      g_ptr_array_add (nodes, mine);
    else
      g_array_unref (mine);
  }
  int want = *n_servers > 0 ? *n_servers : (int) nodes->len;
  if (want > n_ranks) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "%d parameter servers for %d GPU%s (expected at most one server per GPU "
                 "taking part)",
                 want, n_ranks, n_ranks == 1 ? "" : "s");
    return NULL;
  }
  g_autofree int *server_rank = g_new (int, want);
  int k = 0;
  for (guint slot = 0; k < want; slot++)
    for (guint i = 0; i < nodes->len && k < want; i++) {
      GArray *mine = g_ptr_array_index (nodes, i);
      if (slot < mine->len)
        server_rank[k++] = g_array_index (mine, int, slot);
    }
  *n_servers = want;
  return g_steal_pointer (&server_rank);
}

DtsSchedule *
dts_schedule_dp_new (const DtsWorkload *workload, const DtsPlatform *platform, DtsCost *cost,
                     const DtsRunOptions *opts, GError **error)
{
  if (!check_options (platform, opts, error))
    return NULL;
  int n = opts->n_gpus;
  g_autoptr (DtsSchedule) s = dts_schedule_new_empty ("dp", n, opts->batch_size, opts->precision);
  /* one stage of n replicas */
  s->mesh = dts_mesh_new (1, &n, 1, 1, 1, FALSE, error);
  if (s->mesh == NULL)
    return NULL;

  g_autofree int *bucket_of = g_new0 (int, workload->layers->len);
  if (n > 1) {
    s->buckets = dts_schedule_make_buckets (workload, 0, (int) workload->layers->len - 1,
                                            opts->bucket_bytes, dts_schedule_grad_bytes (opts),
                                            0, bucket_of);
  } else {
    /* One GPU has nothing to all-reduce. */
    s->buckets = g_array_new (FALSE, TRUE, sizeof (DtsBucket));
    for (guint l = 0; l < workload->layers->len; l++)
      bucket_of[l] = -1;
  }

  const char *algorithm = dts_coll_algorithm_or_default (opts->collective);
  if (opts->replicas.zero > 0 && strcmp (algorithm, "ps") == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--zero %d: not available with --collective ps (the parameter servers hold "
                 "and update the parameters)",
                 opts->replicas.zero);
    return NULL;
  }
  /* the distributed optimizer (ZeRO stage 1) over the N ranks, when they
   * have gradients to share; stage 3 shards the parameters too */
  gboolean zero = opts->replicas.zero > 0 && s->buckets->len > 0;
  gboolean sharded = zero && opts->replicas.zero >= 3;
  int n_servers = opts->ps_count;
  g_autofree int *server_rank = NULL;
  g_autofree int *node_of = NULL;
  if (strcmp (algorithm, "ps") == 0) {
    server_rank = dts_schedule_ps_placement (platform, n, &n_servers, error);
    if (server_rank == NULL)
      return NULL;
    if (opts->ps_aggregation == DTS_PS_AGGREGATION_NODE) {
      node_of = g_new (int, n);
      for (int r = 0; r < n; r++)
        node_of[r] = dts_platform_gpu (platform, r)->node;
    }
  }
  /* One communicator per communication stream, over every rank. */
  int n_streams = opts->replicas.comm_streams > 0 ? opts->replicas.comm_streams : 1;
  n_streams = MIN (n_streams, MAX ((int) s->buckets->len, 1));
  g_autofree int *all = g_new (int, n);
  for (int r = 0; r < n; r++)
    all[r] = r;
  for (int j = 0; j < n_streams; j++) {
    g_autofree char *name = j == 0 ? g_strdup ("world") : g_strdup_printf ("world-%d", j);
    dts_schedule_add_comm (s, name, all, n);
  }
  s->plan_comm = g_new0 (int, MAX (s->buckets->len, 1));
  g_autofree int *gpu_node = g_new (int, n);
  for (int r = 0; r < n; r++)
    gpu_node[r] = dts_platform_gpu (platform, r)->node;
  for (guint b = 0; b < s->buckets->len; b++) {
    DtsCollParams cp = { .n_ranks = n, .ring = NULL,
                         .bytes = g_array_index (s->buckets, DtsBucket, b).bytes,
                         .channels = opts->channels, .chunk_bytes = opts->chunk_bytes,
                         .n_servers = n_servers, .server_rank = server_rank,
                         .node_of = node_of, .gpu_node = gpu_node,
                         .tuner = opts->coll_tuner,
                         .op = zero ? DTS_COLL_OP_REDUCE_SCATTER : DTS_COLL_OP_ALLREDUCE };
    DtsCollPlan *plan = dts_coll_plan_new (algorithm, &cp, error);
    if (plan == NULL)
      return NULL;
    g_ptr_array_add (s->plans, plan);
    s->plan_comm[b] = b % n_streams;
  }
  /* --zero 1: bucket b's parameter all-gather is plan B + b (the trace
   * keeps bucket times by plan index: the gradient plans come first), on
   * the bucket's stream; --zero 3 adds its gather before the backward pass,
   * plan 2B + b. */
  g_autofree int *gather_plan = NULL;
  if (zero) {
    guint nb = s->buckets->len, n_gathers = sharded ? 2 * nb : nb;
    gather_plan = g_new (int, n_gathers);
    s->plan_comm = g_renew (int, s->plan_comm, nb + n_gathers);
    for (guint g = 0; g < n_gathers; g++) {
      guint b = g % nb;
      DtsCollParams cp = { .n_ranks = n, .channels = opts->channels,
                           .chunk_bytes = opts->chunk_bytes, .gpu_node = gpu_node,
                           .tuner = opts->coll_tuner };
      DtsCollPlan *plan = dts_schedule_gather_plan_new (
          algorithm, &cp, &g_array_index (s->buckets, DtsBucket, b), opts->precision, error);
      if (plan == NULL)
        return NULL;
      g_ptr_array_add (s->plans, plan);
      gather_plan[g] = s->plans->len - 1;
      s->plan_comm[gather_plan[g]] = b % n_streams;
    }
  }

  g_autoptr (GPtrArray) specs = g_ptr_array_new ();
  for (int r = 0; r < n; r++) {
    const DtsGpuSpec *spec = &dts_platform_gpu (platform, r)->spec;
    guint k = dts_schedule_spec_index (specs, spec);
    if (k == specs->len) {
      DtsComputeTotals tot;
      GArray *prog = make_program (workload, cost, spec, opts, s->buckets, bucket_of, n_streams,
                                   zero, sharded, &tot, &s->cost_source, error);
      if (prog == NULL) {
        g_prefix_error (error, "GPU '%s' (rank %d): ", dts_platform_gpu (platform, r)->host, r);
        return NULL;
      }
      g_ptr_array_add (specs, (gpointer) spec);
      g_ptr_array_add (s->programs, prog);
      g_array_append_val (s->totals, tot);
    }
    s->rank_program[r] = k;
  }
  /* the distributed optimizer's events only where they are used, so that
   * plans without it read as before */
  s->n_events = sharded ? EV_FWD_DONE (n_streams) + 1
                 : zero  ? EV_GATHERED (n_streams, n_streams)
                         : n_streams + 1;
  if (zero && (opts->replicas.param_gather_overlap || sharded)) {
    /* The first iteration's parameters are in place. */
    s->event_initial = g_new0 (int, (gsize) n * s->n_events);
    for (int r = 0; r < n; r++)
      for (int j = 0; j < n_streams; j++)
        s->event_initial[(gsize) r * s->n_events + EV_GATHERED (n_streams, j)] =
            stream_buckets (s->buckets->len, n_streams, j);
  }

  /* Communication stream j: bucket after bucket of its communicator. */
  int first_comm_program = s->programs->len;
  for (int j = 0; j < n_streams && s->buckets->len > 0; j++) {
    GArray *prog = g_array_new (FALSE, TRUE, sizeof (DtsOp));
    int nb = s->buckets->len;
    /* --zero 3: once the forward pass is done, the gathers before the
     * backward, each ahead of a reduce-scatter (FSDP's backward prefetch) */
    if (sharded)
      add_wait (prog, EV_FWD_DONE (n_streams), 1, DTS_WAIT_COLL);
    for (int b = j; b < nb; b += n_streams) {
      if (sharded)
        dts_schedule_add_backward_gathers (prog, gather_plan + nb, 1, j, nb, n_streams, b,
                                           opts->overlap, EV_GATHERED_BWD (n_streams, j));
      DtsOp wait = { .type = DTS_OP_WAIT, .layer = -1, .bucket = -1, .event = j, .count = 1 };
      DtsOp coll = { .type = DTS_OP_COLL, .layer = -1, .bucket = b, .coll = b, .part = -1 };
      DtsOp done = { .type = DTS_OP_RECORD, .layer = -1, .bucket = -1, .event = n_streams };
      g_array_append_val (prog, wait);
      g_array_append_val (prog, coll);
      g_array_append_val (prog, done);
    }
    if (zero) {
      add_wait (prog, EV_STEP_DONE (n_streams), 1, DTS_WAIT_COLL);
      dts_schedule_add_param_gathers (prog, gather_plan, 1, j,
                                      j + (stream_buckets (nb, n_streams, j) - 1) * n_streams,
                                      n_streams, EV_GATHERED (n_streams, j));
    }
    g_ptr_array_add (s->programs, prog);
    DtsComputeTotals none = { 0 };
    g_array_append_val (s->totals, none);
  }
  for (int r = 0; r < n; r++) {
    DtsStream cs = { r, DTS_STREAM_COMPUTE, 0, s->rank_program[r] };
    g_array_append_val (s->streams, cs);
    for (int j = 0; j < n_streams && s->buckets->len > 0; j++) {
      DtsStream ms = { r, DTS_STREAM_COMM, j, first_comm_program + j };
      g_array_append_val (s->streams, ms);
    }
  }
  /* Parameter servers: server k of the stream j's communicator runs its
   * part of that communicator's buckets. */
  for (int j = 0; j < n_streams && server_rank != NULL && s->buckets->len > 0; j++)
    for (int k = 0; k < n_servers; k++) {
      GArray *prog = g_array_new (FALSE, TRUE, sizeof (DtsOp));
      for (guint b = j; b < s->buckets->len; b += n_streams) {
        DtsOp coll = { .type = DTS_OP_COLL, .layer = -1, .bucket = -1, .coll = b,
                       .part = n + k };
        g_array_append_val (prog, coll);
      }
      g_ptr_array_add (s->programs, prog);
      DtsComputeTotals none = { 0 };
      g_array_append_val (s->totals, none);
      DtsStream ss = { server_rank[k], DTS_STREAM_SERVER, k, (int) s->programs->len - 1 };
      g_array_append_val (s->streams, ss);
    }
  dts_schedule_memory_estimate (workload, opts->batch_size, opts->precision, opts->recompute,
                                dts_cost_framework (cost)->loss, &s->memory);
  if (zero) {
    /* the fp32 main weights and the optimizer state sharded over the N
     * ranks; under ZeRO-2 the gradients too, but for the bucket being
     * reduced (the largest) */
    double bucket_params;
    double bucket = dts_schedule_largest_bucket (s->buckets, 0, s->buckets->len, &bucket_params);
    dts_schedule_model_state (workload->params, opts->precision,
                              dts_workload_optimizer_state_bytes_per_param (workload), n,
                              opts->replicas.zero >= 2 ? n : 1, bucket, &s->memory);
    if (sharded) {
      /* ZeRO-3: the weights sharded too (the compute-precision copy with the
       * fp32 main weights), and two buckets' parameters gathered at a time
       * (the one computed and the one prefetched; without overlap every
       * bucket's, gathered before the backward pass) */
      s->memory.weights_bytes = dts_schedule_sharded_weights (workload->params, opts->precision,
                                                              n, bucket_params, opts->overlap);
    }
    s->memory.total_bytes = s->memory.weights_bytes + s->memory.gradients_bytes
                            + s->memory.optimizer_bytes + s->memory.activations_bytes;
  }
  g_autofree char *activations = g_strdup_printf ("activations of batch %d", opts->batch_size);
  /* The distributed optimizer helps where the model state, not the
   * activations, is what overflows. */
  gboolean zero_helps = n > 1 && opts->replicas.zero == 0 && strcmp (algorithm, "ps") != 0
                        && s->memory.optimizer_bytes > 0.1 * s->memory.total_bytes;
  gboolean zero2_helps = n > 1 && opts->replicas.zero == 1
                         && s->memory.gradients_bytes > 0.1 * s->memory.total_bytes;
  g_autofree char *strategies = g_strdup_printf (
      "%s--strategy pipeline or hybrid (the layers split over GPUs)",
      zero_helps    ? "--zero 1 (the optimizer state sharded over the GPUs), "
      : zero2_helps ? "--zero 2 (the gradients sharded too), "
                    : "");
  g_autofree char *hints = dts_schedule_memory_hints (workload, &s->memory, opts, strategies);
  if (!dts_schedule_check_memory (&s->memory, platform, NULL, n,
                                  sharded ? "fully sharded data parallelism (--zero 3)"
                                          : "data parallelism (the whole model on every GPU)",
                                  activations,
                                  hints, opts, error))
    return NULL;
  s->samples_per_iteration = opts->batch_size * n;
  s->micro_batches = 1;
  s->param_gathers = opts->replicas.zero >= 3 ? 2 : opts->replicas.zero > 0 ? 1 : 0;
  return g_steal_pointer (&s);
}
