/* run.c - the driver: one training simulation from options to summary: load and
 * validate the inputs, plan, simulate, summarize (doc/DESIGN.md, "What a
 * run is"). `dtsim run` and the tests call this; SimGrid can run once per
 * process, so this function can too.
 *
 * Options left at 0 take defaults that depend on the inputs: n_gpus all
 * the platform's GPUs, batch_size the workload's (else 32), precision
 * (DTS_PREC_COUNT) the workload's (else fp32). With opts->dump_plan set,
 * the plan is written to it instead of simulated, and NULL is returned with
 * no error. */
#include "config.h"

#include <string.h>

#include "core/error.h"
#include "cost/cost.h"
#include "platform/gpu.h"
#include "platform/override.h"
#include "platform/platform.h"
#include "schedule/mesh.h"
#include "schedule/schedule.h"
#include "driver/driver.h"
#include "sim/allreduce-run.h"
#include "sim/routes.h"
#include "sim/sim.h"

/* The collectives' options set away from their defaults where STRATEGY
 * runs none: said on stderr rather than ignored in silence, and not an
 * error, so that a sweep over strategies with one bucket size goes on. */
static void
warn_collective_options (const DtsRunOptions *o, const char *strategy)
{
  g_autoptr (GString) set = g_string_new (NULL);
  /* sync-ps --ps-push buckets pushes its gradients in data parallelism's
   * buckets during the backward pass, or after it with --no-overlap
   * (schedule/async.c) */
  gboolean buckets = strcmp (strategy, "sync-ps") == 0 && o->ps.push_buckets;
  /* --channels N sets NCCL's limits to N as well (common-options.c) */
  gboolean by_channels = o->nccl.by_channels;
  const struct {
    gboolean away;
    const char *flag;
  } opts[] = {
    { o->bucket_bytes != DTS_RUN_DEFAULT_BUCKET_BYTES && !buckets, "--bucket-size" },
    { o->channels != DTS_COLL_DEFAULT_CHANNELS, "--channels" },
    { o->chunk_bytes != DTS_COLL_DEFAULT_CHUNK_BYTES, "--chunk-size" },
    { o->coll_overhead_s > 0, "--coll-overhead" },
    { !o->overlap && !buckets, "--no-overlap" },
    /* point-to-point and server messages are flows at every granularity */
    { o->granularity != DTS_GRANULARITY_FLOW, "--comm-granularity" },
    /* NCCL's limits: options of the default collective, nccl */
    { o->nccl.algos != 0, "--nccl-algo" },
    { o->nccl.protos != 0, "--nccl-proto" },
    { o->nccl.min_channels > 0 && !by_channels, "--nccl-min-channels" },
    { o->nccl.max_channels > 0 && !by_channels, "--nccl-max-channels" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (opts); i++)
    if (opts[i].away)
      g_string_append_printf (set, "%s%s", set->len ? ", " : "", opts[i].flag);
  if (set->len > 0)
    g_printerr ("dtsim: warning: %s: no effect with --strategy %s, which runs no collective%s\n",
                set->str, strategy,
                strcmp (strategy, "pipeline") == 0 ? " without --tensor-parallel" : "");
}

static void
fill_summary (DtsRunSummary *s, const DtsRunOptions *o, const DtsPlatform *platform,
              const DtsWorkload *w, const DtsSchedule *sched, DtsCost *cost,
              gboolean collectives)
{
  s->platform = g_path_get_basename (o->platform_path);
  if (g_str_has_suffix (s->platform, ".xml"))
    s->platform[strlen (s->platform) - 4] = '\0';
  s->workload = g_strdup (w->name);
  s->gpu = g_strdup (dts_platform_gpu (platform, 0)->spec.id);
  s->n_nodes = dts_platform_count_nodes (platform, o->n_gpus);
  s->cost_model = g_strdup (dts_cost_id (cost));
  s->cost_source = g_strdup (sched->cost_source);
  s->cost_assumed = dts_cost_assumption (cost, &dts_platform_gpu (platform, 0)->spec, o->precision);
  const DtsFramework *fw = dts_cost_framework (cost); /* generic where none was set */
  s->framework = g_strdup (fw->id);
  s->framework_arg = g_strdup (o->framework);
  s->framework_mape = dts_framework_validate_mape (fw, s->cost_model);
  s->precision = g_strdup (dts_precision_to_string (o->precision));
  s->strategy = g_strdup (sched->strategy);
  /* null in the reports where nothing ran a collective */
  s->collective = collectives ? g_strdup (o->collective) : NULL;
  s->granularity = g_strdup (o->granularity_auto ? "auto"
                                                 : dts_granularity_to_string (o->granularity));
  s->cfg = g_strdupv (dts_sim_cfg_applied ());
  s->n_gpus = o->n_gpus;
  s->batch_size_per_gpu = o->batch_size;
  s->global_batch_size = sched->samples_per_iteration;
  s->iterations = o->iterations;
  s->warmup_iterations = dts_trace_warmup (o->iterations);
  s->bucket_bytes = o->bucket_bytes;
  s->chunk_bytes = o->chunk_bytes;
  s->coll_overhead_s = o->coll_overhead_s;
  s->channels = o->channels;
  s->comm_streams = sched->comms->len > 0 ? (int) sched->comms->len : 1;
  if (sched->plans->len > 0)
    s->ps_servers = ((const DtsCollPlan *) g_ptr_array_index (sched->plans, 0))->n_servers;
  if (s->collective != NULL && strcmp (s->collective, "ps") == 0)
    s->ps_aggregation = dts_ps_aggregation_to_string (o->ps_aggregation);
  s->overlap = o->overlap;
  s->recompute = dts_recompute_to_string (o->recompute);
  s->zero = o->replicas.zero;
  /* --zero 3 gathers before forward and backward (of every micro-batch on
   * one stage); over two or more pipeline stages once per iteration, kept
   * through the micro-batches (pipeline.c) */
  s->param_gathers = sched->param_gathers;
  s->param_gather = s->param_gathers >= 2 ? "forward-and-backward"
                     : o->replicas.zero >= 3     ? "first-forward"
                     : o->replicas.zero > 0 ? (o->replicas.param_gather_overlap ? "overlap" : "after-step")
                                   : NULL;
  s->seed = o->seed;
  s->params = w->params;
  s->compute_idle_gpu_s =
      g_array_index (sched->totals, DtsComputeTotals, sched->rank_program[0]).total_s;
  s->memory_weights_bytes = sched->memory.weights_bytes;
  s->memory_gradients_bytes = sched->memory.gradients_bytes;
  s->memory_optimizer_bytes = sched->memory.optimizer_bytes;
  s->memory_activations_bytes = sched->memory.activations_bytes;
  s->memory_peak_bytes_per_gpu = sched->memory.total_bytes;
  s->gpu_memory_bytes = dts_platform_gpu (platform, 0)->spec.mem_bytes;
  for (guint b = 0; b < sched->buckets->len; b++) {
    const DtsBucket *bk = &g_array_index (sched->buckets, DtsBucket, b);
    DtsBucketStat bs = {
      .bytes = bk->bytes,
      .n_layers = bk->n_layers,
      .first_layer = g_strdup (dts_workload_layer (w, bk->first_layer)->name),
      .last_layer = g_strdup (dts_workload_layer (w, bk->last_layer)->name),
    };
    /* Data parallelism: plan b is bucket b's all-reduce. */
    const DtsCollPlan *plan = b < sched->plans->len ? g_ptr_array_index (sched->plans, b) : NULL;
    if (plan != NULL && plan->protocol != NULL) {
      bs.algorithm = plan->alg->id;
      bs.protocol = plan->protocol;
      bs.predicted_s = plan->predicted_s;
      bs.chooser = plan->chooser;
      bs.nccl_algo = plan->nccl_algo;
      bs.channels = plan->nccl_algo != NULL ? plan->channels : 0;
    }
    g_array_append_val (s->buckets, bs);
    s->allreduce_bytes += sched->grad_reductions * bk->bytes;
    if (o->replicas.zero > 0)
      s->gather_bytes += s->param_gathers * bk->params * dts_precision_elem_bytes (o->precision);
  }
}

/* Layers of a stage, over all its chunks. */
static int
stage_layers (const DtsStage *st)
{
  int n = st->last_layer - st->first_layer + 1;
  for (int v = 1; v < st->n_chunks; v++)
    n += st->chunks[2 * v + 1] - st->chunks[2 * v] + 1;
  return n;
}

/* "a-b, c-d" (owned): the layer names of a stage's chunks after its first,
 * or NULL without chunks. */
static char *
chunk_ranges (const DtsWorkload *w, const DtsStage *st)
{
  if (st->n_chunks <= 1)
    return NULL;
  g_autoptr (GString) s = g_string_new (NULL);
  for (int v = 1; v < st->n_chunks; v++)
    g_string_append_printf (s, "%s%s-%s", v > 1 ? ", " : "",
                            dts_workload_layer (w, st->chunks[2 * v])->name,
                            dts_workload_layer (w, st->chunks[2 * v + 1])->name);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* Per-stage rows of a pipeline run, from the trace (means over replicas). */
static void
fill_stages (DtsRunSummary *s, const DtsRunOptions *o, const DtsWorkload *w,
             const DtsSchedule *sched, const DtsTrace *t)
{
  if (sched->stages == NULL)
    return;
  s->n_stages = sched->stages->len;
  s->tensor_parallel = g_array_index (sched->stages, DtsStage, 0).tensor_parallel;
  s->sequence_parallel = o->sequence_parallel;
  if (o->replicas.tp_overlap != DTS_TP_OVERLAP_NONE)
    s->tp_overlap = dts_tp_overlap_to_string (o->replicas.tp_overlap);
  s->context_parallel = MAX (o->replicas.context_parallel, 1);
  s->expert_parallel = MAX (sched->expert_parallel, 1);
  s->moe_imbalance = sched->moe_imbalance > 0 ? sched->moe_imbalance : 1.0;
  s->moe_imbalance_max = sched->moe_imbalance_max;
  s->moe_dropped = sched->moe_dropped;
  s->moe_routing_alpha = o->replicas.moe_routing_alpha;
  s->moe_capacity = o->replicas.moe_capacity;
  s->micro_batches = sched->micro_batches;
  s->pipeline_schedule =
      o->replicas.virtual_stages > 1
          ? g_strdup_printf ("interleaved 1f1b, %d chunks per stage", o->replicas.virtual_stages)
          : g_strdup (dts_pipeline_schedule_to_string (o->replicas.pipeline_schedule));
  s->virtual_stages = MAX (o->replicas.virtual_stages, 1);
  s->partition = sched->partition;
  s->partition_blocks = sched->partition_blocks;
  if (strcmp (sched->strategy, "hybrid") == 0)
    s->placement = g_strdup (dts_placement_to_string (o->replicas.placement));
  double idle = 0;
  for (guint i = 0; i < sched->stages->len; i++) {
    const DtsStage *st = &g_array_index (sched->stages, DtsStage, i);
    DtsStageStat ss = {
      .first_layer = g_strdup (dts_workload_layer (w, st->first_layer)->name),
      .last_layer = g_strdup (dts_workload_layer (w, st->last_layer)->name),
      .n_layers = stage_layers (st),
      .chunks = MAX (st->n_chunks, 1),
      .chunk_ranges = chunk_ranges (w, st),
      .replicas = st->n_replicas,
      .tensor_parallel = st->tensor_parallel,
      .first_rank = st->ranks[0],
      .params = st->params,
      .send_bytes = st->send_bytes * sched->samples_per_iteration / st->n_ranks,
      .stashed = st->stashed,
      .memory_bytes = st->memory.total_bytes,
      .activations_bytes = st->memory.activations_bytes,
    };
    for (int k = 0; k < st->n_ranks; k++) {
      DtsRankTimes rt;
      dts_trace_rank_times (t, st->ranks[k], s->warmup_iterations, &rt);
      ss.compute_s += rt.compute_s / st->n_ranks;
      ss.allreduce_exposed_s += (rt.coll_wait_s - rt.gather_wait_s) / st->n_ranks;
      ss.gather_exposed_s += rt.gather_wait_s / st->n_ranks;
      ss.tensor_s += rt.tp_s / st->n_ranks;
      ss.transfer_exposed_s += rt.p2p_xfer_s / st->n_ranks;
      ss.bubble_s += (rt.p2p_wait_s - rt.p2p_xfer_s) / st->n_ranks;
      idle += g_array_index (sched->totals, DtsComputeTotals, sched->rank_program[st->ranks[k]])
                  .total_s;
    }
    ss.busy_fraction = s->iteration_time_s > 0 ? ss.compute_s / s->iteration_time_s : 0;
    g_array_append_val (s->stages, ss);
  }
  /* A pipeline's compute on an idle GPU is the mean over its GPUs. */
  s->compute_idle_gpu_s = idle / sched->n_ranks;
  s->compute_efficiency =
      s->iteration_time_s > 0 ? s->compute_idle_gpu_s / s->iteration_time_s : 0;
}

/* Each rank's place in the schedule's mesh (DtsMeshRank); nodes numbered
 * in order of first appearance. Parameter servers have none. */
static void
fill_mesh (DtsRunSummary *s, const DtsPlatform *platform, const DtsSchedule *sched)
{
  if (sched->n_shards > 0 || sched->mesh == NULL
      || dts_mesh_n_ranks (sched->mesh) != sched->n_ranks)
    return;
  s->mesh = g_array_sized_new (FALSE, TRUE, sizeof (DtsMeshRank), sched->n_ranks);
  g_array_set_size (s->mesh, sched->n_ranks);
  for (int r = 0; r < sched->n_ranks; r++) {
    DtsMeshRank *m = &g_array_index (s->mesh, DtsMeshRank, r);
    dts_mesh_coords (sched->mesh, r, &m->stage, &m->replica, &m->tensor);
  }
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  for (int r = 0; r < sched->n_ranks; r++) {
    int node = dts_platform_gpu (platform, r)->node;
    gpointer at = NULL;
    if (!g_hash_table_lookup_extended (seen, GINT_TO_POINTER (node), NULL, &at)) {
      at = GINT_TO_POINTER (names->len);
      g_hash_table_insert (seen, GINT_TO_POINTER (node), at);
      g_ptr_array_add (names, g_strdup (g_array_index (platform->nodes, DtsNode, node).name));
    }
    g_array_index (s->mesh, DtsMeshRank, r).node = GPOINTER_TO_INT (at);
  }
  g_ptr_array_add (names, NULL);
  s->mesh_nodes = (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}

/* The parameter-server block (async-ps, sync-ps) and the epoch time of
 * every strategy. */
static void
fill_ps_and_epoch (DtsRunSummary *s, const DtsRunOptions *o, const DtsWorkload *w,
                   const DtsSchedule *sched, const DtsTrace *t)
{
  if (sched->n_shards > 0) {
    s->ps_shards = sched->n_shards;
    s->ps_workers = o->n_gpus;
    s->ps_update = dts_apply_policy_to_string (sched->ps_update);
    s->staleness_bound = sched->staleness_bound;
    s->ps_shard_bytes = sched->shard_bytes;
    gboolean buckets = o->ps.push_buckets && o->overlap && strcmp (sched->strategy, "sync-ps") == 0;
    s->ps_push_buckets = buckets ? sched->ps_parts : 0;
    s->ps_update_s = sched->update_s;
    s->ps_update_extra_s = sched->update_extra_s;
    g_autofree int *batch = g_new (int, o->n_gpus);
    for (int r = 0; r < o->n_gpus; r++)
      batch[r] = sched->batch_size;
    dts_trace_summarize_ps (t, s, batch, TRUE);
  }
  s->dataset_samples = o->dataset_samples > 0 ? o->dataset_samples : w->training.dataset_samples;
  if (s->dataset_samples > 0 && s->throughput_samples_per_s > 0)
    s->epoch_time_s = s->dataset_samples / s->throughput_samples_per_s;
}

/* Tokens and model FLOP utilisation of a sequence model: model FLOPs per
 * sample (dts_workload_model_flops) x samples per second over the GPUs'
 * peak at the run's precision (the catalogue's dense tensor rate). */
static void
fill_tokens (DtsRunSummary *s, const DtsRunOptions *o, const DtsPlatform *platform,
             const DtsWorkload *w)
{
  if (w->input.seq <= 0 || !(s->throughput_samples_per_s > 0) || o->n_gpus <= 0)
    return;
  s->seq_len = w->input.seq;
  s->tokens_per_s = s->throughput_samples_per_s * w->input.seq;
  s->tokens_per_s_per_gpu = s->tokens_per_s / o->n_gpus;
  s->model_flops_per_sample = dts_workload_model_flops (w);
  s->model_tflops_per_gpu = s->model_flops_per_sample * s->throughput_samples_per_s / o->n_gpus
                            / 1e12;
  s->peak_tflops_per_gpu
      = dts_gpu_spec_flops (&dts_platform_gpu (platform, 0)->spec, o->precision, NULL) / 1e12;
  s->mfu = s->peak_tflops_per_gpu > 0 ? s->model_tflops_per_gpu / s->peak_tflops_per_gpu : 0;
}

/* "link:*-nic*.bandwidth=0.5 (8 links)" for each applied override. */
static char **
describe_overrides (GArray *overrides)
{
  static const char *const what[] = {
    [DTS_OVERRIDE_LINK] = "link", [DTS_OVERRIDE_HOST] = "host", [DTS_OVERRIDE_GPU] = "GPU",
    [DTS_OVERRIDE_NETWORK] = "link", [DTS_OVERRIDE_GPU_ALL] = "GPU",
  };
  g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
  for (guint i = 0; overrides && i < overrides->len; i++) {
    const DtsOverride *o = &g_array_index (overrides, DtsOverride, i);
    g_autofree char *line = g_strdup_printf ("%s%s (%d %s%s)", o->is_scale ? "scale " : "set ",
                                             o->text, o->matched, what[o->target],
                                             o->matched == 1 ? "" : "s");
    g_strv_builder_add (b, line);
  }
  return g_strv_builder_end (b);
}

/* "about 12 s", "about 7 minutes" or "about 3.2 hours" of WALL_S. */
static char *
describe_wall_s (double wall_s)
{
  if (wall_s < 120)
    return g_strdup_printf ("about %.2g s", wall_s);
  if (wall_s < 2 * 3600)
    return g_strdup_printf ("about %.0f minutes", wall_s / 60);
  return g_strdup_printf ("about %.2g hours", wall_s / 3600);
}

typedef struct {
  const DtsSchedule *sched;
  double activities, coupled;
  DtsGranularity granularity;
} LongRun;

/* Before a run estimated to take long (DTS_SCHEDULE_LONG_RUN_S, or the
 * seconds of DTSIM_LONG_RUN_S in the environment), one line on stderr
 * that says so, also under -q (which hides the progress line only): a
 * long run without it is silent until it ends when stderr is not a
 * terminal. Called by the simulation once it knows how many ranks run
 * (N_RUN of N_RANKS: a folded run simulates the activities of those
 * only). */
static void
long_run_notice (gpointer data, int n_run, int n_ranks)
{
  const LongRun *lr = data;
  const DtsSchedule *sched = lr->sched;
  double share = n_ranks > 0 && n_run < n_ranks ? (double) n_run / n_ranks : 1;
  double limit = DTS_SCHEDULE_LONG_RUN_S;
  const char *env = g_getenv ("DTSIM_LONG_RUN_S");
  if (env != NULL && *env != '\0') {
    char *end;
    double v = g_ascii_strtod (env, &end);
    if (*end == '\0' && v >= 0)
      limit = v;
    else
      g_printerr ("dtsim: warning: DTSIM_LONG_RUN_S='%s' is not a number of seconds (0 or "
                  "more); the default, %g s, applies\n",
                  env, limit);
  }
  double wall_s
      = dts_schedule_estimate_wall_s (sched, lr->activities * share, lr->coupled * share);
  if (!(wall_s >= limit))
    return;
  double flows = dts_schedule_server_flows (sched);
  g_autofree char *at_once
      = flows > 0 ? g_strdup_printf (", %.0f parameter-server transfers at once", flows)
                  : g_strdup ("");
  g_autofree char *folded
      = share < 1 ? g_strdup_printf (", %d of %d ranks run", n_run, n_ranks) : g_strdup ("");
  g_autofree char *wall = describe_wall_s (wall_s);
  /* a pipeline or hybrid run of several replicas that runs every GPU: at
   * analytic its replicas fold where they can */
  const char *fold = "";
  if (share >= 1 && lr->granularity != DTS_GRANULARITY_ANALYTIC && sched->stages != NULL
      && sched->mesh != NULL && dts_mesh_group_size (sched->mesh, DTS_MESH_DATA, 0) > 1)
    fold = "; at --comm-granularity analytic the data-parallel replicas of a pipeline run "
           "as one where they can (doc/SIMULATION.md, \"Folded pipelines and "
           "tensor-parallel groups\")";
  g_printerr ("dtsim: this run will take %s of wall time (estimate: %.3g simulated "
              "activities%s%s)%s\n",
              wall, lr->activities, at_once, folded, fold);
}

DtsRunSummary *
dts_driver_run_training (const DtsRunOptions *opts, DtsTrace **trace_out, GError **error)
{
  g_return_val_if_fail (opts->platform_path != NULL && opts->workload_path != NULL, NULL);
  g_autoptr (DtsPlatform) platform =
      dts_override_load_platform (opts->platform_path, opts->overrides, error);
  if (platform == NULL)
    return NULL;
  g_autoptr (DtsWorkload) workload =
      dts_workload_load_seq (opts->workload_path, opts->seq_len, error);
  if (workload == NULL || !dts_schedule_check_recompute (workload, opts->recompute, error))
    return NULL;

  DtsRunOptions o = *opts;
  int have = platform->gpus->len;
  const DtsStrategy *strategy = dts_schedule_strategy_lookup (o.strategy ? o.strategy : "dp");
  g_return_val_if_fail (strategy != NULL, NULL);
  int asked = o.n_gpus;
  if (strategy->resolve != NULL && !strategy->resolve (&o, have, error))
    return NULL;
  if (o.sequence_parallel && o.replicas.tensor_parallel <= 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--sequence-parallel splits the sequence over a tensor-parallel group: it "
                 "needs --tensor-parallel T > 1 (with --strategy pipeline or hybrid)");
    return NULL;
  }
  if (o.replicas.tensor_parallel > 1 && !o.sequence_parallel && dts_workload_has_experts (workload)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "workload '%s' has mixtures of experts: with --tensor-parallel %d they need "
                 "--sequence-parallel (Megatron-LM requires it: the router's tokens come from "
                 "the sequence-parallel region)",
                 workload->name, o.replicas.tensor_parallel);
    return NULL;
  }
  if (o.replicas.tp_overlap != DTS_TP_OVERLAP_NONE && o.replicas.tensor_parallel <= 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--tp-overlap %s overlaps tensor-parallel collectives with GEMMs: it needs "
                 "--tensor-parallel T > 1",
                 dts_tp_overlap_to_string (o.replicas.tp_overlap));
    return NULL;
  }
  if (o.replicas.tp_overlap == DTS_TP_OVERLAP_ALL && !o.sequence_parallel) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--tp-overlap all splits the all-gathers and reduce-scatters of sequence "
                 "parallelism along the GEMMs (Transformer Engine's userbuffers): it needs "
                 "--sequence-parallel (--tp-overlap backward works without it)");
    return NULL;
  }
  if (o.n_gpus == 0)
    o.n_gpus = have;
  else if (o.n_gpus > have) {
    if (asked > 0)
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--gpus %d: platform '%s' has only %d GPU%s",
                   o.n_gpus, o.platform_path, have, have == 1 ? "" : "s");
    else
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--strategy %s needs %d GPUs: platform '%s' has only %d GPU%s", strategy->id,
                   o.n_gpus, o.platform_path, have, have == 1 ? "" : "s");
    return NULL;
  }
  if (o.batch_size == 0)
    o.batch_size = workload->training.batch_size > 0 ? workload->training.batch_size
                                                     : DTS_RUN_DEFAULT_BATCH_SIZE;
  if (o.precision == DTS_PREC_COUNT)
    o.precision = workload->training.has_precision ? workload->training.precision : DTS_PREC_FP32;
  /* An explicit --collective where the strategy runs none would be
   * silently ignored: a pipeline without tensor parallelism passes
   * activations point to point, the parameter-server strategies exchange
   * gradients with their servers. */
  gboolean collectives = dts_schedule_strategy_runs_collectives (strategy, &o);
  if (o.collective != NULL && !collectives) {
    if (strcmp (strategy->id, "pipeline") == 0)
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--collective %s: --strategy pipeline runs no collective without "
                   "--tensor-parallel (its stages pass activations point to point; --strategy "
                   "hybrid all-reduces the gradients of replicated stages)",
                   o.collective);
    else
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--collective %s: --strategy %s exchanges gradients with its servers, not by "
                   "a collective",
                   o.collective, strategy->id);
    return NULL;
  }
  if (!collectives)
    warn_collective_options (&o, strategy->id);
  o.collective = dts_coll_algorithm_or_default (o.collective);
  g_autoptr (DtsSimTuner) tuner = NULL;
  /* The tuning model and topo-ring read the routes between the members of
   * each communicator (the strategy passes their GPUs: dp's world, a
   * hybrid run's stage groups, a pipeline's tensor groups). */
  if (dts_coll_is_tuned (o.collective) || dts_coll_algorithm_reads_platform (o.collective)) {
    tuner = dts_sim_tuner_new (platform, o.cfg, o.overrides, error);
    if (tuner == NULL)
      return NULL;
    dts_sim_tuner_set_nccl (tuner, &o.nccl);
    o.coll_tuner = dts_sim_tuner_get (tuner);
  }
  if (o.link_stats && o.granularity == DTS_GRANULARITY_ANALYTIC) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--link-stats: nothing crosses a link at --comm-granularity analytic (use "
                 "flow or step)");
    return NULL;
  }
  if (strcmp (o.collective, "ps") == 0 && o.ps_count > o.n_gpus) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--ps-count %d: only %d GPU%s take part (servers run on GPU hosts, at most "
                 "one per GPU)",
                 o.ps_count, o.n_gpus, o.n_gpus == 1 ? "" : "s");
    return NULL;
  }

  g_autoptr (DtsCost) cost = dts_cost_new (o.cost_model ? o.cost_model : "roofline", error);
  if (cost == NULL)
    return NULL;
  DtsFramework *fw = dts_framework_load (o.framework, error);
  if (fw == NULL)
    return NULL;
  dts_cost_set_framework (cost, fw);
  if (o.grad_bytes <= 0)
    o.grad_bytes = dts_precision_elem_bytes (fw->grad_precision);
  g_autoptr (DtsSchedule) sched = strategy->schedule_new (workload, platform, cost, &o, error);
  if (sched == NULL)
    return NULL;
  if (o.dump_plan != NULL) {
    g_autoptr (GPtrArray) names = g_ptr_array_new ();
    for (guint l = 0; l < workload->layers->len; l++)
      g_ptr_array_add (names, dts_workload_layer (workload, l)->name);
    dts_schedule_dump (sched, names, DTS_SCHEDULE_DUMP_MAX_TRANSFERS, o.dump_plan);
    return NULL;
  }
  /* The local rings of --ps-aggregation node run step by step at both
   * granularities. */
  double local_transfers = 0;
  for (guint k = 0; k < sched->plans->len; k++) {
    const DtsCollPlan *plan = g_ptr_array_index (sched->plans, k);
    for (guint i = 0; plan->local != NULL && i < plan->local->len; i++)
      local_transfers += dts_coll_plan_step_transfers (g_ptr_array_index (plan->local, i));
  }
  local_transfers *= o.iterations;
  if (o.granularity == DTS_GRANULARITY_FLOW
      && local_transfers > DTS_ALLREDUCE_MAX_STEP_TRANSFERS) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--ps-aggregation node: %.3g transfers in the nodes' rings to simulate (at "
                 "most %.0e); use a larger --chunk-size or fewer --iterations",
                 local_transfers, DTS_ALLREDUCE_MAX_STEP_TRANSFERS);
    return NULL;
  }
  if (o.granularity == DTS_GRANULARITY_STEP) {
    /* Every chunk step is one SimGrid transfer: refuse runs that would take
     * hours (about 1 us to 40 us of wall time per transfer, growing with N). */
    double transfers = 0;
    for (guint k = 0; k < sched->plans->len; k++)
      transfers += dts_coll_plan_step_transfers (g_ptr_array_index (sched->plans, k));
    transfers = transfers * o.iterations + local_transfers;
    if (transfers > DTS_ALLREDUCE_MAX_STEP_TRANSFERS) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--comm-granularity step: %.3g transfers to simulate (at most %.0e); use a "
                   "larger --chunk-size, fewer --iterations or --comm-granularity flow",
                   transfers, DTS_ALLREDUCE_MAX_STEP_TRANSFERS);
      return NULL;
    }
  }
  /* Every granularity: refuse runs that would take hours. */
  double limit = o.max_activities > 0 ? o.max_activities : DTS_SCHEDULE_MAX_ACTIVITIES;
  g_autofree guint8 *analytic = NULL;
  if (!dts_sim_run_plans_analytic (sched, &o, &analytic, error))
    return NULL;
  double coupled = 0;
  double activities = dts_schedule_estimate_activities (
      sched, o.granularity != DTS_GRANULARITY_STEP, !o.record_slices, o.iterations, analytic,
      o.coll_overhead_s, &coupled);
  if (activities > limit) {
    g_autofree char *wall
        = describe_wall_s (dts_schedule_estimate_wall_s (sched, activities, coupled));
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "%.3g simulated activities estimated (at most %.3g; %s of wall time); use "
                 "fewer --iterations or --gpus, or raise --max-activities to simulate anyway",
                 activities, limit, wall);
    return NULL;
  }
  LongRun long_run = { sched, activities, coupled, o.granularity };
  g_autoptr (DtsTrace) trace
      = dts_sim_run (sched, platform, workload, &o, o.long_run_notice ? long_run_notice : NULL,
                     &long_run, error);
  if (trace == NULL)
    return NULL;

  g_autoptr (DtsRunSummary) summary = dts_run_summary_new ();
  fill_summary (summary, &o, platform, workload, sched, cost, collectives);
  dts_trace_summarize (trace, summary);
  /* An iteration that takes no time has no throughput and no bottleneck
   * to report: a verdict would be made up. */
  if (!(summary->iteration_time_s > 0)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "workload '%s': an iteration takes no simulated time (its layers run no "
                 "kernel with a cost, and nothing is communicated), so there is no throughput "
                 "to report; give it layers that compute (doc/WORKLOADS.md)",
                 workload->name);
    return NULL;
  }
  fill_stages (summary, &o, workload, sched, trace);
  fill_mesh (summary, platform, sched);
  fill_ps_and_epoch (summary, &o, workload, sched, trace);
  fill_tokens (summary, &o, platform, workload);
  dts_run_summary_diagnose (summary);
  summary->overrides = describe_overrides (opts->overrides);
  if (trace_out != NULL)
    *trace_out = g_steal_pointer (&trace);
  return g_steal_pointer (&summary);
}
