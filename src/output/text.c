/* text.c - the readable summary of a run (`dtsim run`, default format).
 *
 * Fixed formats (output/format.h): every time in ms with 3 decimals, so a
 * column never mixes units; traffic (buckets, chunks, gradients) in
 * decimal MB/GB with 2 decimals, memory in GiB/MiB as `dtsim info` and
 * the device makers count it. Identical runs print identical text (apart
 * from the wall time).
 *
 * The verdict is the summary's bottleneck (trace.c says how it is chosen)
 * in words, with the figures that decided it. */
#include "config.h"

#include <string.h>

#include "output/format.h"
#include "output/report.h"

/* One buffer each: a printf below holds at most one time and one size. */
#define T(v) ms (&tb, (v))
#define B(v) dts_format_bytes (&bb, (v))
#define M(v) dts_format_mem (&bb, (v))

/* Ranks of the per-rank table when there are more than this many: the
 * slowest few and the fastest. */
#define TEXT_MAX_RANK_ROWS 4

static const char *
ms (DtsFormatBuf *buf, double s)
{
  DtsFormatBuf n;
  g_snprintf (buf->str, sizeof buf->str, "%s ms", dts_format_fixed (&n, s, DTS_FORMAT_UNIT_MS, 3));
  return buf->str;
}

static gboolean
is_ps (const DtsRunSummary *s)
{
  return s->ps_servers > 0;
}

/* What the gradients wait for, in a sentence. */
static const char *
sync_name (const DtsRunSummary *s)
{
  return is_ps (s) ? "the parameter servers" : "all-reduce";
}

static const DtsRankStat *
rank_get (const DtsRunSummary *s, int r)
{
  return &g_array_index (s->ranks, DtsRankStat, r);
}

static void
verdict (const DtsRunSummary *s, GString *out)
{
  double exposed = s->iteration_time_s > 0 ? s->comm_exposed_s / s->iteration_time_s : 0;
  double hidden = s->comm_s > 0 ? s->comm_overlapped_s / s->comm_s : 0;
  switch (s->bottleneck) {
  case DTS_BOTTLENECK_SINGLE_GPU:
    g_string_append (out, "  single GPU: no gradient all-reduce; N GPUs at best give N x the "
                          "throughput\n");
    break;
  case DTS_BOTTLENECK_STRAGGLER: {
    DtsFormatBuf a, b;
    const DtsRankStat *slow = rank_get (s, s->slowest_rank);
    double lost = s->iteration_time_s > 0
                      ? (slow->compute_s - s->median_compute_s) / s->iteration_time_s : 0;
    g_string_append_printf (out, "  limited by a straggler: rank %d (%s)", slow->rank, slow->host);
    if (s->n_slow_ranks > 1)
      g_string_append_printf (out, " and %d other rank%s as slow", s->n_slow_ranks - 1,
                              s->n_slow_ranks == 2 ? "" : "s");
    g_string_append_printf (out, " computes %s per iteration,\n  %.2fx the median rank's %s;",
                            ms (&a, slow->compute_s),
                            s->median_compute_s > 0 ? slow->compute_s / s->median_compute_s : 0,
                            ms (&b, s->median_compute_s));
    g_string_append_printf (out, " the other ranks wait for it in %s (%.0f%% of each\n"
                                 "  iteration): a faster GPU there would help most, a faster "
                                 "network would not\n",
                            sync_name (s), 100 * lost);
    double own = 0;
    for (int k = 0; k < DTS_WAIT_N_KINDS; k++)
      own += slow->wait_s[k];
    if (s->iteration_time_s > 0 && own / s->iteration_time_s > 0.05)
      g_string_append_printf (out, "  (rank %d itself still waits %.0f%% of each iteration, for "
                                   "%s)\n",
                              slow->rank, 100 * own / s->iteration_time_s, sync_name (s));
    break;
  }
  case DTS_BOTTLENECK_NO_OVERLAP:
    g_string_append_printf (out,
                            "  overlap off: all communication is exposed (%.0f%% of each "
                            "iteration)\n",
                            100 * exposed);
    break;
  case DTS_BOTTLENECK_COMMUNICATION:
    g_string_append_printf (out,
                            "  communication-bound: %.0f%% of each iteration waits for "
                            "%s; a larger --batch-size,\n  a faster network or fewer "
                            "GPUs would raise the efficiency\n",
                            100 * exposed, sync_name (s));
    break;
  case DTS_BOTTLENECK_MIXED:
    g_string_append_printf (out,
                            "  %.0f%% of each iteration waits for %s; overlap hides "
                            "%.0f%% of the communication\n",
                            100 * exposed, sync_name (s), 100 * hidden);
    break;
  case DTS_BOTTLENECK_COMPUTE:
    g_string_append_printf (out,
                            "  compute-bound: overlap hides %.0f%% of the communication; more "
                            "GPUs should scale well\n",
                            100 * hidden);
    break;
  }
}

/* Slowest first; ties: the lower rank. */
static int
compare_slowest (gconstpointer a, gconstpointer b)
{
  const DtsRankStat *x = *(const DtsRankStat *const *) a, *y = *(const DtsRankStat *const *) b;
  if (x->compute_s != y->compute_s)
    return x->compute_s > y->compute_s ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

static void
rank_row (const DtsRankStat *r, int host_width, GString *out)
{
  DtsFormatBuf c, d, e;
  g_string_append_printf (out, "  %4d  %-*s  %12s", r->rank, host_width, r->host,
                          dts_format_fixed (&c, r->compute_s, DTS_FORMAT_UNIT_MS, 3));
  for (int k = 0; k < DTS_WAIT_N_KINDS; k++)
    g_string_append_printf (out, "  %13s", dts_format_fixed (&d, r->wait_s[k], DTS_FORMAT_UNIT_MS, 3));
  g_string_append_printf (out, "  %9s\n", dts_format_fixed (&e, r->idle_s, DTS_FORMAT_UNIT_MS, 3));
}

/* All ranks in rank order when few; else the slowest few, slowest first,
 * and the fastest. */
static void
rank_table (const DtsRunSummary *s, GString *out)
{
  guint n = s->ranks->len;
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();
  for (guint r = 0; r < n; r++)
    g_ptr_array_add (rows, (gpointer) rank_get (s, r));
  const DtsRankStat *fastest = NULL;
  if (n > TEXT_MAX_RANK_ROWS) {
    g_ptr_array_sort (rows, compare_slowest);
    g_ptr_array_set_size (rows, TEXT_MAX_RANK_ROWS - 1);
    fastest = rank_get (s, s->fastest_rank);
    for (guint i = 0; i < rows->len; i++)
      if (rows->pdata[i] == fastest)
        fastest = NULL;
  }
  guint shown = rows->len + (fastest ? 1 : 0);
  int host_width = 4;
  for (guint i = 0; i < rows->len; i++)
    host_width = MAX (host_width, (int) strlen (((const DtsRankStat *) rows->pdata[i])->host));
  if (fastest)
    host_width = MAX (host_width, (int) strlen (fastest->host));
  if (shown == n)
    g_string_append (out, "per rank and iteration (ms):\n");
  else
    g_string_append_printf (out, "per rank and iteration (ms), slowest first, %u of %u ranks:\n",
                            shown, n);
  g_string_append_printf (out, "  rank  %-*s  %12s", host_width, "host", "compute");
  for (int k = 0; k < DTS_WAIT_N_KINDS; k++) {
    g_autofree char *h = g_strdup_printf ("%s wait", dts_trace_wait_kind_id (k));
    g_string_append_printf (out, "  %13s", h);
  }
  g_string_append_printf (out, "  %9s\n", "idle");
  for (guint i = 0; i < rows->len; i++)
    rank_row (rows->pdata[i], host_width, out);
  if (shown < n)
    g_string_append_printf (out, "   ...  %u more; --per-rank FILE writes every rank\n",
                            n - shown);
  if (fastest)
    rank_row (fastest, host_width, out);
}

void
dts_report_write_text (const DtsRunSummary *s, GString *out)
{
  DtsFormatBuf tb, bb;
  g_string_append_printf (out, "%s on %s: %d x %s (%d node%s)\n", s->workload, s->platform,
                          s->n_gpus, s->gpu, s->n_nodes, s->n_nodes == 1 ? "" : "s");
  g_string_append_printf (out, "  data parallel, batch %d per GPU (global %d), %s, %s cost model\n",
                          s->batch_size_per_gpu, s->global_batch_size, s->precision,
                          s->cost_model);
  if (s->n_gpus > 1) {
    double lo = 0, hi = 0;
    for (guint b = 0; b < s->buckets->len; b++) {
      double v = g_array_index (s->buckets, DtsBucketStat, b).bytes;
      lo = b == 0 ? v : MIN (lo, v);
      hi = b == 0 ? v : MAX (hi, v);
    }
    if (is_ps (s))
      g_string_append_printf (out, "  parameter servers (%s): ", s->collective);
    else
      g_string_append_printf (out, "  %s all-reduce: ", s->collective);
    g_string_append_printf (out, "%u bucket%s of ", s->buckets->len,
                            s->buckets->len == 1 ? "" : "s");
    if (s->buckets->len > 1 && lo != hi) {
      DtsFormatBuf lb;
      dts_format_bytes (&lb, lo);
      /* "24.18-26.26 MB": one unit when both are in the same one. */
      const char *unit_lo = strchr (lb.str, ' '), *unit_hi = strchr (B (hi), ' ');
      if (unit_lo && unit_hi && strcmp (unit_lo, unit_hi) == 0)
        g_string_append_len (out, lb.str, unit_lo - lb.str);
      else
        g_string_append (out, lb.str);
      g_string_append_c (out, '-');
    }
    g_string_append_printf (out, "%s (cap %s), ", B (hi), dts_format_bytes (&tb, s->bucket_bytes));
    if (is_ps (s))
      g_string_append_printf (out, "%d server%s%s,", s->ps_servers, s->ps_servers == 1 ? "" : "s",
                              g_strcmp0 (s->ps_aggregation, "node") == 0
                                  ? " fed by one GPU per node after a local sum" : "");
    else
      g_string_append_printf (out, "%d channel%s, %s chunks,", s->channels,
                              s->channels == 1 ? "" : "s", B (s->chunk_bytes));
    g_string_append_printf (out, "\n  %s granularity, overlap %s\n", s->granularity,
                            s->overlap ? "on" : "off");
  }
  for (char **o = s->overrides; o && *o; o++)
    g_string_append_printf (out, "  what-if: %s\n", *o);
  g_string_append_c (out, '\n');
  g_string_append_printf (out, "iteration time     %s", T (s->iteration_time_s));
  if (s->warmup_iterations > 0)
    g_string_append_printf (out, "  (mean of %d after %d warm-up)\n",
                            s->iterations - s->warmup_iterations, s->warmup_iterations);
  else
    g_string_append_printf (out, "  (%d iteration%s, no warm-up)\n", s->iterations,
                            s->iterations == 1 ? "" : "s");
  g_string_append_printf (out, "throughput         %.1f samples/s\n",
                          s->throughput_samples_per_s);
  g_string_append (out, "per GPU and iteration:\n");
  g_string_append_printf (out, "  forward          %s\n", T (s->forward_s));
  g_string_append_printf (out, "  backward         %s\n", T (s->backward_s));
  g_string_append_printf (out, "  optimizer        %s\n", T (s->optimizer_s));
  if (s->n_gpus > 1) {
    g_string_append_printf (out, "  %-16s %s", is_ps (s) ? "push and pull" : "all-reduce",
                            T (s->comm_s));
    g_string_append_printf (out, " (%s of gradients %s)\n", B (s->allreduce_bytes),
                            is_ps (s) ? "through the servers" : "all-reduced");
    g_string_append_printf (out, "    exposed        %s\n", T (s->comm_exposed_s));
    g_string_append_printf (out, "    overlapped     %s\n", T (s->comm_overlapped_s));
  }
  if (s->n_gpus > 1 && s->ranks->len > 0)
    rank_table (s, out);
  g_string_append_printf (out, "memory per GPU     %s", M (s->memory_peak_bytes_per_gpu));
  g_string_append_printf (out, " of %s", M (s->gpu_memory_bytes));
  g_string_append_printf (out, "%s\n", s->memory_peak_bytes_per_gpu > s->gpu_memory_bytes
                                         ? " (DOES NOT FIT)" : "");
  g_string_append_printf (out, "  weights %s,", M (s->memory_weights_bytes));
  g_string_append_printf (out, " gradients %s,", M (s->memory_gradients_bytes));
  g_string_append_printf (out, " optimizer %s,", M (s->memory_optimizer_bytes));
  g_string_append_printf (out, " activations %s\n", M (s->memory_activations_bytes));
  g_string_append_printf (out, "compute efficiency %.1f%% (compute on an idle GPU / iteration)\n",
                          100 * s->compute_efficiency);
  verdict (s, out);
  g_string_append_printf (out, "simulation         %.2f s wall, %" G_GINT64_FORMAT " events\n",
                          s->wall_time_s, s->events);
}
