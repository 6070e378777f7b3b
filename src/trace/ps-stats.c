/* ps-stats.c - the parameter-server block of a run's summary (async-ps,
 * sync-ps): distributions of staleness and effective mini-batch and the
 * utilisation of workers and servers, all from what the simulation
 * recorded (trace.h), none from a formula.
 *
 * Definitions (doc/SIMULATION.md, "Parameter servers"): with W warm-up
 * iterations, the staleness distribution is over the gradients of worker
 * iterations >= W applied before the first worker has finished its last
 * iteration (steady state: all workers running), the mini-batch
 * distribution over the updates whose gradients all come from such
 * iterations, started in that window. Worker r's iteration time is
 * (end of its last iteration - end of its iteration W-1) / (I - W); its
 * busy fraction is its compute time over those iterations divided by that
 * span, its wait fraction the time it waited for weights. A server's busy
 * fraction is its update time over the whole run / the run's makespan.
 * With OWN_TIMES (both parameter-server strategies) the summary's
 * iteration time is the mean of the workers' and the throughput the sum
 * of their batch / iteration time: workers of async-ps do not finish
 * iterations together, and sync-ps is measured the same way so the two
 * compare. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "trace/trace.h"

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of the sorted V. */
static double
percentile (const double *v, gsize n, double q)
{
  gsize k = (gsize) ceil (q * n);
  return v[k == 0 ? 0 : k - 1];
}

void
dts_distribution_fill (DtsDistribution *d, double *v, gsize n)
{
  *d = (DtsDistribution){ 0 };
  d->n = n;
  if (n == 0)
    return;
  qsort (v, n, sizeof *v, cmp_double);
  double sum = 0, sq = 0;
  for (gsize i = 0; i < n; i++)
    sum += v[i];
  d->mean = sum / n;
  for (gsize i = 0; i < n; i++)
    sq += (v[i] - d->mean) * (v[i] - d->mean);
  d->std = sqrt (sq / n);
  d->min = v[0];
  d->max = v[n - 1];
  d->p50 = percentile (v, n, 0.50);
  d->p90 = percentile (v, n, 0.90);
  d->p99 = percentile (v, n, 0.99);
  /* Values are integers: bins are whole multiples of their common divisor
   * (a mini-batch of workers of 64 samples each is a multiple of 64). */
  gint64 g = 0;
  for (gsize i = 0; i < n; i++) {
    gint64 x = (gint64) llround (v[i] - d->min);
    while (x != 0) {
      gint64 r = g % x;
      g = x;
      x = r;
    }
  }
  if (g == 0)
    g = 1;
  d->step = g;
  double units = (d->max - d->min) / g + 1;
  d->bin_width = g * (units <= DTS_DIST_MAX_BINS ? 1 : ceil (units / DTS_DIST_MAX_BINS));
  d->n_bins = (int) floor ((d->max - d->min) / d->bin_width) + 1;
  for (int b = 0; b < d->n_bins; b++)
    d->bin_lo[b] = d->min + b * d->bin_width;
  for (gsize i = 0; i < n; i++) {
    int b = (int) ((v[i] - d->min) / d->bin_width);
    d->bin_count[MIN (b, d->n_bins - 1)]++;
  }
}

void
dts_trace_summarize_ps (const DtsTrace *t, DtsRunSummary *s, const int *worker_batch,
                        gboolean own_times)
{
  g_return_if_fail (t->ps_updates != NULL && t->ps_gradients != NULL);
  int w = s->warmup_iterations;
  int m = t->n_iterations - w;
  g_return_if_fail (m >= 1 && s->ps_workers <= t->n_ranks);

  /* Steady state ends when the first worker has run all its iterations:
   * after that fewer workers share the servers. */
  double stop = G_MAXDOUBLE;
  for (int r = 0; r < s->ps_workers; r++)
    stop = MIN (stop, t->iter_end_s[dts_trace_ri (t, r, t->n_iterations - 1)]);
  g_autofree double *v = g_new (double, MAX (t->ps_gradients->len, 1));
  gsize n = 0;
  for (guint i = 0; i < t->ps_gradients->len; i++) {
    const DtsTraceGradient *g = &g_array_index (t->ps_gradients, DtsTraceGradient, i);
    if (g->clock >= w && g->applied_s <= stop)
      v[n++] = (double) g->staleness;
  }
  s->ps_gradients = n;
  dts_distribution_fill (&s->staleness, v, n);
  g_autofree double *b = g_new (double, MAX (t->ps_updates->len, 1));
  n = 0;
  for (guint i = 0; i < t->ps_updates->len; i++) {
    const DtsTraceUpdate *u = &g_array_index (t->ps_updates, DtsTraceUpdate, i);
    if (u->min_clock >= w && u->t_start_s <= stop)
      b[n++] = u->samples;
  }
  s->ps_updates = n;
  dts_distribution_fill (&s->minibatch, b, n);

  s->ps_worker_busy = g_array_new (FALSE, FALSE, sizeof (double));
  s->ps_worker_wait = g_array_new (FALSE, FALSE, sizeof (double));
  s->ps_server_busy = g_array_new (FALSE, FALSE, sizeof (double));
  double sum_t = 0, throughput = 0;
  for (int r = 0; r < s->ps_workers; r++) {
    double t0 = w > 0 ? t->iter_end_s[dts_trace_ri (t, r, w - 1)] : 0;
    double span = t->iter_end_s[dts_trace_ri (t, r, t->n_iterations - 1)] - t0;
    double busy = 0, wait = 0;
    for (int it = w; it < t->n_iterations; it++) {
      gsize ri = dts_trace_ri (t, r, it);
      for (int p = 0; p < DTS_TRACE_N_PHASES; p++)
        busy += t->phase_s[ri * DTS_TRACE_N_PHASES + p];
      wait += t->p2p_wait_s[ri];
    }
    double fb = span > 0 ? busy / span : 0, fw = span > 0 ? wait / span : 0;
    g_array_append_val (s->ps_worker_busy, fb);
    g_array_append_val (s->ps_worker_wait, fw);
    sum_t += span / m;
    if (span > 0)
      throughput += worker_batch[r] / (span / m);
  }
  for (int k = 0; k < t->n_shards; k++) {
    double f = t->makespan_s > 0 ? t->ps_busy_s[k] / t->makespan_s : 0;
    g_array_append_val (s->ps_server_busy, f);
  }
  /* Compute means over the workers alone (servers of their own GPUs run
   * no iterations). */
  double phase[DTS_TRACE_N_PHASES] = { 0 };
  for (int r = 0; r < s->ps_workers; r++)
    for (int it = w; it < t->n_iterations; it++)
      for (int p = 0; p < DTS_TRACE_N_PHASES; p++)
        phase[p] += t->phase_s[dts_trace_ri (t, r, it) * DTS_TRACE_N_PHASES + p];
  double k = (double) s->ps_workers * m;
  s->forward_s = phase[0] / k;
  s->backward_data_s = phase[1] / k;
  s->backward_weight_s = phase[2] / k;
  s->backward_s = s->backward_data_s + s->backward_weight_s;
  s->optimizer_s = phase[3] / k;
  if (own_times) {
    /* A worker's idle time is the rest of its own iteration: there is no
     * common iteration to measure it against. */
    for (int r = 0; r < s->ps_workers && (guint) r < s->ranks->len; r++) {
      DtsRankStat *rs = &g_array_index (s->ranks, DtsRankStat, r);
      double t0 = w > 0 ? t->iter_end_s[dts_trace_ri (t, r, w - 1)] : 0;
      double own = (t->iter_end_s[dts_trace_ri (t, r, t->n_iterations - 1)] - t0) / m;
      double busy = rs->compute_s;
      for (int q = 0; q < DTS_RANK_WAIT_N_KINDS; q++)
        busy += rs->wait_s[q];
      rs->idle_s = fabs (own - busy) < 1e-12 ? 0 : own - busy;
    }
    s->iteration_time_s = sum_t / s->ps_workers;
    s->throughput_samples_per_s = throughput;
    s->compute_efficiency =
        s->iteration_time_s > 0 ? s->compute_idle_gpu_s / s->iteration_time_s : 0;
  }
}
