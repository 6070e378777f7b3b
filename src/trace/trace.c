/* trace.c - trace storage and the steady-state summary of a run.
 *
 * Definitions (doc/SIMULATION.md, "Output fields"): with iterations I and
 * warm-up W (1 when I > 1, else 0), let E(i) be the end of iteration i on the
 * last rank to finish it, E(-1) = 0. Then
 *   iteration_time_s = (E(I-1) - E(W-1)) / (I - W)
 *   forward_s, backward_s, optimizer_s, recompute_s, comm_s, comm_exposed_s
 *     = means over ranks and measured iterations of the per-rank busy time
 *       of each phase, of the all-reduce time on the communication stream,
 *       and of the time the compute stream waited for all-reduces.
 * A rank's iteration is its compute time plus its waiting time, so on a
 * homogeneous platform iteration_time_s = forward_s + backward_s +
 * optimizer_s + recompute_s + comm_exposed_s. Compute phases are measured in simulated
 * time, so they include slow-down by reduction kernels sharing the GPU.
 *
 * Per rank: the same means for one rank, and idle_s, the rest of the run's
 * iteration time (a rank that finishes its iteration before the last one
 * does; parameter-server workers: their own iteration's, ps-stats.c). The
 * simulation has taken out of a rank's counters what it did before the
 * window [E(W-1), E(I-1)] opened where they would exceed it
 * (src/sim/window.c), so idle_s >= 0 up to rounding.
 *
 * The bottleneck, in this order of tests:
 *   single-gpu     n_gpus == 1;
 *   stage-imbalance  pipelines: a stage computes > 10% more than the mean
 *                  stage (the text summary's "load imbalance");
 *   bubble         pipelines: bubbles > 10% of the iteration;
 *   straggler      data parallelism: the slowest rank's compute exceeds the median rank's by
 *                  more than 5% of the iteration time: the others wait for
 *                  it in their all-reduces, whatever the network;
 *   no-overlap     overlap off;
 *   communication  comm_exposed_s > 25% of the iteration time,
 *   mixed          > 5%, else
 *   compute. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "trace/trace.h"

static void
link_clear (gpointer p)
{
  g_free (((DtsTraceLink *) p)->name);
}

GArray *
dts_trace_links_new (void)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (DtsTraceLink));
  g_array_set_clear_func (a, link_clear);
  return a;
}

DtsTrace *
dts_trace_new (int n_ranks, int n_iterations, int n_buckets, gboolean record_slices)
{
  g_return_val_if_fail (n_ranks > 0 && n_iterations > 0 && n_buckets >= 0, NULL);
  DtsTrace *t = g_new0 (DtsTrace, 1);
  gsize ri = (gsize) n_ranks * n_iterations;
  gsize ib = (gsize) n_iterations * n_buckets;
  t->n_ranks = n_ranks;
  t->n_iterations = n_iterations;
  t->n_buckets = n_buckets;
  t->layer_names = g_ptr_array_new_with_free_func (g_free);
  t->rank_hosts = g_ptr_array_new_with_free_func (g_free);
  if (record_slices)
    t->slices = g_array_new (FALSE, FALSE, sizeof (DtsTraceSlice));
  t->iter_start_s = g_new0 (double, ri);
  t->iter_end_s = g_new0 (double, ri);
  t->phase_s = g_new0 (double, ri * DTS_TRACE_N_PHASES);
  t->wait_s = g_new0 (double, ri);
  t->comm_s = g_new0 (double, ri);
  t->p2p_wait_s = g_new0 (double, ri);
  t->p2p_xfer_s = g_new0 (double, ri);
  t->tp_s = g_new0 (double, ri);
  t->cp_s = g_new0 (double, ri);
  t->ep_s = g_new0 (double, ri);
  t->gather_wait_s = g_new0 (double, ri);
  t->gather_s = g_new0 (double, ri);
  t->bucket_rank = g_new0 (int, MAX (n_buckets, 1));
  t->bucket_ready_s = g_new0 (double, ib);
  t->bucket_start_s = g_new0 (double, ib);
  t->bucket_end_s = g_new0 (double, ib);
  t->bucket_end_max_s = g_new0 (double, ib);
  return t;
}

void
dts_trace_free (DtsTrace *t)
{
  if (t == NULL)
    return;
  for (int p = 0; p < DTS_TRACE_N_PHASES; p++)
    g_free (t->phase_names[p]);
  for (int k = 0; k < DTS_TRACE_N_COLL_OPS; k++)
    g_free (t->coll_op_names[k]);
  g_ptr_array_unref (t->layer_names);
  g_ptr_array_unref (t->rank_hosts);
  if (t->slices)
    g_array_unref (t->slices);
  g_free (t->iter_start_s);
  g_free (t->iter_end_s);
  g_free (t->phase_s);
  g_free (t->wait_s);
  g_free (t->comm_s);
  g_free (t->p2p_wait_s);
  g_free (t->p2p_xfer_s);
  g_free (t->tp_s);
  g_free (t->cp_s);
  g_free (t->ep_s);
  g_free (t->gather_wait_s);
  g_free (t->gather_s);
  g_free (t->bucket_rank);
  g_free (t->bucket_ready_s);
  g_free (t->bucket_end_max_s);
  if (t->steps)
    g_array_unref (t->steps);
  if (t->links)
    g_array_unref (t->links);
  g_free (t->bucket_start_s);
  g_free (t->bucket_end_s);
  if (t->ps_updates)
    g_array_unref (t->ps_updates);
  if (t->ps_gradients)
    g_array_unref (t->ps_gradients);
  g_free (t->ps_busy_s);
  g_free (t);
}

static void
bucket_stat_clear (gpointer p)
{
  DtsBucketStat *b = p;
  g_free (b->first_layer);
  g_free (b->last_layer);
}

static void
stage_stat_clear (gpointer p)
{
  DtsStageStat *st = p;
  g_free (st->first_layer);
  g_free (st->last_layer);
  g_free (st->chunk_ranges);
}

static void
rank_stat_clear (gpointer p)
{
  DtsRankStat *r = p;
  g_free (r->host);
}

const char *
dts_trace_wait_kind_id (DtsRankWait kind)
{
  static const char *const ids[DTS_RANK_WAIT_N_KINDS] = {
    [DTS_RANK_WAIT_ALLREDUCE] = "allreduce",
    [DTS_RANK_WAIT_TENSOR] = "tensor",
    [DTS_RANK_WAIT_TRANSFER] = "transfer",
    [DTS_RANK_WAIT_BUBBLE] = "bubble",
    [DTS_RANK_WAIT_GATHER] = "gather",
    [DTS_RANK_WAIT_CONTEXT] = "context",
    [DTS_RANK_WAIT_EXPERT] = "expert",
  };
  g_return_val_if_fail (kind >= 0 && kind < DTS_RANK_WAIT_N_KINDS, NULL);
  return ids[kind];
}

const char *
dts_bottleneck_id (DtsBottleneck b)
{
  static const char *const ids[] = {
    [DTS_BOTTLENECK_SINGLE_GPU] = "single-gpu",
    [DTS_BOTTLENECK_STRAGGLER] = "straggler",
    [DTS_BOTTLENECK_NO_OVERLAP] = "no-overlap",
    [DTS_BOTTLENECK_COMMUNICATION] = "communication",
    [DTS_BOTTLENECK_MIXED] = "mixed",
    [DTS_BOTTLENECK_COMPUTE] = "compute",
    [DTS_BOTTLENECK_STAGE_IMBALANCE] = "stage-imbalance",
    [DTS_BOTTLENECK_BUBBLE] = "bubble",
  };
  g_return_val_if_fail (b >= 0 && b < (int) G_N_ELEMENTS (ids), NULL);
  return ids[b];
}

DtsRunSummary *
dts_run_summary_new (void)
{
  DtsRunSummary *s = g_new0 (DtsRunSummary, 1);
  s->buckets = g_array_new (FALSE, TRUE, sizeof (DtsBucketStat));
  g_array_set_clear_func (s->buckets, bucket_stat_clear);
  s->ranks = g_array_new (FALSE, TRUE, sizeof (DtsRankStat));
  g_array_set_clear_func (s->ranks, rank_stat_clear);
  s->stages = g_array_new (FALSE, TRUE, sizeof (DtsStageStat));
  g_array_set_clear_func (s->stages, stage_stat_clear);
  return s;
}

void
dts_run_summary_free (DtsRunSummary *s)
{
  if (s == NULL)
    return;
  g_free (s->platform);
  g_free (s->workload);
  g_free (s->gpu);
  g_free (s->cost_model);
  g_free (s->cost_source);
  g_free (s->cost_assumed);
  g_free (s->framework);
  g_free (s->framework_arg);
  g_free (s->precision);
  g_free (s->strategy);
  g_free (s->collective);
  g_free (s->granularity);
  g_strfreev (s->cfg);
  g_strfreev (s->overrides);
  g_array_unref (s->buckets);
  g_array_unref (s->ranks);
  g_array_unref (s->stages);
  if (s->mesh)
    g_array_unref (s->mesh);
  g_strfreev (s->mesh_nodes);
  if (s->links)
    g_array_unref (s->links);
  if (s->ps_worker_busy)
    g_array_unref (s->ps_worker_busy);
  if (s->ps_worker_wait)
    g_array_unref (s->ps_worker_wait);
  if (s->ps_server_busy)
    g_array_unref (s->ps_server_busy);
  g_free (s->pipeline_schedule);
  g_free (s->placement);
  g_free (s);
}

/* End of iteration IT on the last rank to finish it; 0 before the first. */
static double
iteration_end (const DtsTrace *t, int it)
{
  double end = 0;
  if (it < 0)
    return 0;
  for (int r = 0; r < t->n_ranks; r++)
    end = MAX (end, t->iter_end_s[dts_trace_ri (t, r, it)]);
  return end;
}

static int
compare_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The per-rank rows, the extreme ranks and the bottleneck (see the top). */
static void
summarize_ranks (const DtsTrace *t, DtsRunSummary *s)
{
  int w = s->warmup_iterations;
  int m = t->n_iterations - w;
  g_array_set_size (s->ranks, 0);
  g_autofree double *compute = g_new (double, t->n_ranks);
  for (int r = 0; r < t->n_ranks; r++) {
    DtsRankStat rs = { .rank = r };
    rs.host = g_strdup ((guint) r < t->rank_hosts->len ? g_ptr_array_index (t->rank_hosts, r)
                                                       : "");
    for (int it = w; it < t->n_iterations; it++) {
      gsize ri = dts_trace_ri (t, r, it);
      for (int p = 0; p < DTS_TRACE_N_PHASES; p++)
        rs.phase_s[p] += t->phase_s[ri * DTS_TRACE_N_PHASES + p] / m;
      rs.wait_s[DTS_RANK_WAIT_ALLREDUCE] += t->wait_s[ri] / m;
      rs.wait_s[DTS_RANK_WAIT_TENSOR] += t->tp_s[ri] / m;
      rs.wait_s[DTS_RANK_WAIT_TRANSFER] += t->p2p_xfer_s[ri] / m;
      rs.wait_s[DTS_RANK_WAIT_BUBBLE] += (t->p2p_wait_s[ri] - t->p2p_xfer_s[ri]) / m;
      rs.wait_s[DTS_RANK_WAIT_GATHER] += t->gather_wait_s[ri] / m;
      rs.wait_s[DTS_RANK_WAIT_CONTEXT] += t->cp_s[ri] / m;
      rs.wait_s[DTS_RANK_WAIT_EXPERT] += t->ep_s[ri] / m;
      rs.comm_s += t->comm_s[ri] / m;
      rs.gather_s += t->gather_s[ri] / m;
    }
    for (int p = 0; p < DTS_TRACE_N_PHASES; p++)
      rs.compute_s += rs.phase_s[p];
    double busy = rs.compute_s;
    for (int k = 0; k < DTS_RANK_WAIT_N_KINDS; k++)
      busy += rs.wait_s[k];
    /* Below a picosecond of rounding, a rank that never idles reads 0. */
    rs.idle_s = s->iteration_time_s - busy;
    if (fabs (rs.idle_s) < 1e-12)
      rs.idle_s = 0;
    compute[r] = rs.compute_s;
    if (r == 0 || rs.compute_s > g_array_index (s->ranks, DtsRankStat, s->slowest_rank).compute_s)
      s->slowest_rank = r;
    if (r == 0 || rs.compute_s < g_array_index (s->ranks, DtsRankStat, s->fastest_rank).compute_s)
      s->fastest_rank = r;
    g_array_append_val (s->ranks, rs);
  }
  qsort (compute, t->n_ranks, sizeof (double), compare_double);
  s->median_compute_s = compute[(t->n_ranks - 1) / 2];
  double slowest = g_array_index (s->ranks, DtsRankStat, s->slowest_rank).compute_s;
  s->n_slow_ranks = 0;
  for (int r = 0; r < t->n_ranks; r++)
    if (g_array_index (s->ranks, DtsRankStat, r).compute_s >= 0.99 * slowest)
      s->n_slow_ranks++;

  dts_run_summary_diagnose (s);
}

void
dts_run_summary_diagnose (DtsRunSummary *s)
{
  double it_s = s->iteration_time_s;
  double exposed = it_s > 0 ? s->comm_exposed_s / it_s : 0;
  double slowest = s->ranks->len > 0
                       ? g_array_index (s->ranks, DtsRankStat, s->slowest_rank).compute_s : 0;
  double stage_mean = 0, stage_max = 0;
  for (guint i = 0; i < s->stages->len; i++) {
    double c = g_array_index (s->stages, DtsStageStat, i).compute_s;
    stage_mean += c / s->stages->len;
    stage_max = MAX (stage_max, c);
  }
  if (s->n_gpus == 1)
    s->bottleneck = DTS_BOTTLENECK_SINGLE_GPU;
  else if (s->n_stages > 1 && stage_max > 1.1 * stage_mean)
    s->bottleneck = DTS_BOTTLENECK_STAGE_IMBALANCE;
  else if (s->n_stages > 1 && s->bubble_fraction > 0.1)
    s->bottleneck = DTS_BOTTLENECK_BUBBLE;
  /* Stages compute different layers: ranks compare within data parallelism only. */
  else if (s->n_stages == 0 && it_s > 0 && slowest - s->median_compute_s > 0.05 * it_s)
    s->bottleneck = DTS_BOTTLENECK_STRAGGLER;
  else if (!s->overlap)
    s->bottleneck = DTS_BOTTLENECK_NO_OVERLAP;
  else if (exposed > 0.25)
    s->bottleneck = DTS_BOTTLENECK_COMMUNICATION;
  else if (exposed > 0.05)
    s->bottleneck = DTS_BOTTLENECK_MIXED;
  else
    s->bottleneck = DTS_BOTTLENECK_COMPUTE;
}

void
dts_trace_summarize (const DtsTrace *t, DtsRunSummary *s)
{
  int w = s->warmup_iterations;
  int m = t->n_iterations - w;
  g_return_if_fail (w >= 0 && m >= 1);
  s->iteration_time_s = (iteration_end (t, t->n_iterations - 1) - iteration_end (t, w - 1)) / m;
  s->throughput_samples_per_s =
      s->iteration_time_s > 0 ? s->global_batch_size / s->iteration_time_s : 0;

  double phase[DTS_TRACE_N_PHASES] = { 0 };
  double wait = 0, comm = 0, p2p_wait = 0, p2p_xfer = 0, tp = 0, cp = 0, ep = 0, gather = 0,
         gather_wait = 0;
  for (int r = 0; r < t->n_ranks; r++)
    for (int it = w; it < t->n_iterations; it++) {
      gsize ri = dts_trace_ri (t, r, it);
      for (int p = 0; p < DTS_TRACE_N_PHASES; p++)
        phase[p] += t->phase_s[ri * DTS_TRACE_N_PHASES + p];
      wait += t->wait_s[ri];
      comm += t->comm_s[ri];
      p2p_wait += t->p2p_wait_s[ri];
      p2p_xfer += t->p2p_xfer_s[ri];
      tp += t->tp_s[ri];
      cp += t->cp_s[ri];
      ep += t->ep_s[ri];
      gather += t->gather_s[ri];
      gather_wait += t->gather_wait_s[ri];
    }
  double k = (double) t->n_ranks * m;
  s->forward_s = phase[0] / k;
  s->backward_data_s = phase[1] / k;
  s->backward_weight_s = phase[2] / k;
  s->backward_s = s->backward_data_s + s->backward_weight_s;
  s->optimizer_s = phase[3] / k;
  s->recompute_s = phase[4] / k;
  /* All the communication streams' collectives: gradient sync and, under
   * --zero 1, the parameter all-gathers, also given apart. */
  s->comm_s = (comm + gather) / k;
  s->comm_exposed_s = (wait + gather_wait) / k;
  s->param_gather_s = gather / k;
  s->param_gather_exposed_s = gather_wait / k;
  s->grad_sync_s = comm / k;
  s->grad_sync_exposed_s = wait / k;
  s->comm_overlapped_s = s->comm_s - s->comm_exposed_s;
  s->p2p_wait_s = p2p_wait / k;
  s->p2p_exposed_s = p2p_xfer / k;
  s->tensor_s = tp / k;
  s->context_s = cp / k;
  s->expert_s = ep / k;
  s->bubble_s = s->p2p_wait_s - s->p2p_exposed_s;
  s->bubble_fraction = s->iteration_time_s > 0 ? s->bubble_s / s->iteration_time_s : 0;
  s->compute_efficiency =
      s->iteration_time_s > 0 ? s->compute_idle_gpu_s / s->iteration_time_s : 0;

  summarize_ranks (t, s);

  /* The trace has a row per collective of the iteration; the first ones are
   * the gradient buckets (tensor-parallel all-reduces come after). */
  g_return_if_fail ((int) s->buckets->len <= t->n_buckets);
  for (int b = 0; b < (int) s->buckets->len; b++) {
    DtsBucketStat *bs = &g_array_index (s->buckets, DtsBucketStat, b);
    double ready = 0, start = 0, end = 0;
    for (int it = w; it < t->n_iterations; it++) {
      double t0 = t->iter_start_s[dts_trace_ri (t, t->bucket_rank[b], it)];
      gsize ib = (gsize) it * t->n_buckets + b;
      ready += t->bucket_ready_s[ib] - t0;
      start += t->bucket_start_s[ib] - t0;
      end += t->bucket_end_s[ib] - t0;
    }
    bs->ready_s = ready / m;
    bs->start_s = start / m;
    bs->end_s = end / m;
    bs->duration_s = bs->end_s - bs->start_s;
  }
  if (t->links != NULL) {
    s->links = dts_trace_links_new ();
    for (guint i = 0; i < t->links->len; i++) {
      DtsTraceLink l = g_array_index (t->links, DtsTraceLink, i);
      l.name = g_strdup (l.name);
      g_array_append_val (s->links, l);
    }
  }
  s->wall_time_s = t->wall_time_s;
  s->events = t->events;
  s->plans_analytic = t->plans_analytic;
  s->makespan_s = t->makespan_s;
}

void
dts_trace_rank_times (const DtsTrace *t, int rank, int warmup, DtsRankTimes *out)
{
  *out = (DtsRankTimes){ 0 };
  int m = t->n_iterations - warmup;
  g_return_if_fail (rank >= 0 && rank < t->n_ranks && m >= 1);
  for (int it = warmup; it < t->n_iterations; it++) {
    gsize ri = dts_trace_ri (t, rank, it);
    for (int p = 0; p < DTS_TRACE_N_PHASES; p++)
      out->compute_s += t->phase_s[ri * DTS_TRACE_N_PHASES + p];
    out->coll_wait_s += t->wait_s[ri] + t->gather_wait_s[ri];
    out->gather_wait_s += t->gather_wait_s[ri];
    out->p2p_wait_s += t->p2p_wait_s[ri];
    out->p2p_xfer_s += t->p2p_xfer_s[ri];
    out->tp_s += t->tp_s[ri];
  }
  out->compute_s /= m;
  out->coll_wait_s /= m;
  out->gather_wait_s /= m;
  out->p2p_wait_s /= m;
  out->p2p_xfer_s /= m;
  out->tp_s /= m;
}
