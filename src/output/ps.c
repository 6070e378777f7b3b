/* ps.c - what the writers add for parameter-server runs (async-ps, sync-ps)
 * and the epoch time of every run: the text block and the JSON members.
 *
 * Text: the servers and their update cost, staleness and effective
 * mini-batch (mean, standard deviation, percentiles, histogram as rows of
 * value range, count and a bar), the epoch time, and the utilisation of
 * workers and servers (mean, min, max; every one in JSON). */
#include "config.h"

#include <math.h>

#include "output/format.h"
#include "output/report.h"

#define BAR_WIDTH 40

static void
text_distribution (GString *out, const char *name, const DtsDistribution *d)
{
  g_string_append_printf (out,
                          "%-18s mean %.2f, std %.2f, min %.0f, p50 %.0f, p90 %.0f, p99 %.0f, "
                          "max %.0f (%" G_GINT64_FORMAT " value%s)\n",
                          name, d->mean, d->std, d->min, d->p50, d->p90, d->p99, d->max, d->n,
                          d->n == 1 ? "" : "s");
  gint64 top = 1;
  for (int b = 0; b < d->n_bins; b++)
    top = MAX (top, d->bin_count[b]);
  for (int b = 0; b < d->n_bins; b++) {
    char range[64];
    if (d->bin_width <= d->step)
      g_snprintf (range, sizeof range, "%.0f", d->bin_lo[b]);
    else
      g_snprintf (range, sizeof range, "%.0f-%.0f", d->bin_lo[b],
                  d->bin_lo[b] + d->bin_width - d->step);
    int len = (int) llround ((double) BAR_WIDTH * d->bin_count[b] / top);
    g_string_append_printf (out, "  %12s %8" G_GINT64_FORMAT " ", range, d->bin_count[b]);
    for (int i = 0; i < len; i++)
      g_string_append_c (out, '#');
    g_string_append_c (out, '\n');
  }
}

static void
utilisation (GString *out, const char *name, const GArray *v)
{
  double sum = 0, lo = INFINITY, hi = -INFINITY;
  for (guint i = 0; i < v->len; i++) {
    double x = g_array_index (v, double, i);
    sum += x;
    lo = MIN (lo, x);
    hi = MAX (hi, x);
  }
  if (v->len == 0)
    return;
  g_string_append_printf (out, "  %-16s mean %.1f%%, min %.1f%%, max %.1f%% (%u)\n", name,
                          100 * sum / v->len, 100 * lo, 100 * hi, v->len);
}

void
dts_report_text_ps_head (const DtsRunSummary *s, GString *out)
{
  g_string_append_printf (out, "  %s: %d worker%s, batch %d per worker, %s, %s cost model\n",
                          s->strategy, s->ps_workers, s->ps_workers == 1 ? "" : "s",
                          s->batch_size_per_gpu, s->precision, s->cost_model);
}

void
dts_report_text_ps (const DtsRunSummary *s, GString *out)
{
  if (s->ps_shards == 0)
    return;
  DtsFormatBuf tb, bb;
  g_string_append_printf (out, "parameter servers  %d shard%s of %s, update %s", s->ps_shards,
                          s->ps_shards == 1 ? "" : "s", dts_format_bytes (&bb, s->ps_shard_bytes),
                          s->ps_update);
  if (s->staleness_bound >= 0)
    g_string_append_printf (out, ", staleness bound %d", s->staleness_bound);
  if (s->ps_push_buckets > 0)
    g_string_append_printf (out, ", pushed in %d bucket%s during the backward pass",
                            s->ps_push_buckets, s->ps_push_buckets == 1 ? "" : "s");
  g_string_append_printf (out, "\n  update           %s", dts_format_time (&tb, s->ps_update_s));
  g_string_append_printf (out, " + %s per further gradient\n",
                          dts_format_time (&tb, s->ps_update_extra_s));
  g_string_append_printf (out, "  %" G_GINT64_FORMAT " update%s, %" G_GINT64_FORMAT
                               " gradient%s counted (%s, while every worker runs)\n",
                          s->ps_updates, s->ps_updates == 1 ? "" : "s", s->ps_gradients,
                          s->ps_gradients == 1 ? "" : "s",
                          s->warmup_iterations > 0 ? "after the warm-up" : "no warm-up");
  text_distribution (out, "staleness", &s->staleness);
  text_distribution (out, "mini-batch", &s->minibatch);
  g_string_append (out, "utilisation\n");
  utilisation (out, "workers busy", s->ps_worker_busy);
  utilisation (out, "workers waiting", s->ps_worker_wait);
  utilisation (out, "servers busy", s->ps_server_busy);
  if (s->epoch_time_s > 0)
    g_string_append_printf (out, "epoch              %s (%.0f samples)\n",
                            dts_format_time (&tb, s->epoch_time_s), s->dataset_samples);
}

static void
json_distribution (DtsJson *j, const char *key, const DtsDistribution *d)
{
  dts_json_key (j, key);
  dts_json_begin_object (j);
  dts_json_kv_int (j, "n", d->n);
  dts_json_kv_double (j, "mean", d->mean);
  dts_json_kv_double (j, "std", d->std);
  dts_json_kv_double (j, "min", d->min);
  dts_json_kv_double (j, "p50", d->p50);
  dts_json_kv_double (j, "p90", d->p90);
  dts_json_kv_double (j, "p99", d->p99);
  dts_json_kv_double (j, "max", d->max);
  dts_json_kv_double (j, "step", d->step);
  dts_json_kv_double (j, "bin_width", d->bin_width);
  dts_json_key (j, "histogram");
  dts_json_begin_array (j);
  for (int b = 0; b < d->n_bins; b++) {
    dts_json_begin_object (j);
    dts_json_kv_double (j, "from", d->bin_lo[b]);
    dts_json_kv_int (j, "count", d->bin_count[b]);
    dts_json_end_object (j);
  }
  dts_json_end_array (j);
  dts_json_end_object (j);
}

static void
json_doubles (DtsJson *j, const char *key, const GArray *v)
{
  dts_json_key (j, key);
  dts_json_begin_array (j);
  for (guint i = 0; v && i < v->len; i++)
    dts_json_double (j, g_array_index (v, double, i));
  dts_json_end_array (j);
}

void
dts_report_json_ps (DtsJson *j, const DtsRunSummary *s)
{
  dts_json_kv_double (j, "dataset_samples", s->dataset_samples);
  dts_json_kv_double (j, "epoch_time_s", s->epoch_time_s);
  if (s->ps_shards == 0)
    return;
  dts_json_key (j, "parameter_servers");
  dts_json_begin_object (j);
  dts_json_kv_int (j, "shards", s->ps_shards);
  dts_json_kv_int (j, "workers", s->ps_workers);
  dts_json_kv_string (j, "update", s->ps_update);
  dts_json_kv_int (j, "staleness_bound", s->staleness_bound);
  dts_json_kv_double (j, "shard_bytes", s->ps_shard_bytes);
  if (s->ps_push_buckets > 0)
    dts_json_kv_int (j, "push_buckets", s->ps_push_buckets);
  dts_json_kv_double (j, "update_s", s->ps_update_s);
  dts_json_kv_double (j, "update_extra_s", s->ps_update_extra_s);
  dts_json_kv_int (j, "updates", s->ps_updates);
  dts_json_kv_int (j, "gradients", s->ps_gradients);
  json_distribution (j, "staleness", &s->staleness);
  json_distribution (j, "minibatch", &s->minibatch);
  json_doubles (j, "worker_busy_fraction", s->ps_worker_busy);
  json_doubles (j, "worker_wait_fraction", s->ps_worker_wait);
  json_doubles (j, "server_busy_fraction", s->ps_server_busy);
  dts_json_end_object (j);
}
