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
  return is_ps (s)                ? "the parameter servers"
         : s->gather_bytes > 0 ? "gradient reduce-scatters and parameter all-gathers"
                               : "all-reduce";
}

static const DtsRankStat *
rank_get (const DtsRunSummary *s, int r)
{
  return &g_array_index (s->ranks, DtsRankStat, r);
}

/* The first line of the verdict of a run whose memory does not fit its GPU
 * (dtsim run refuses it without --allow-oversubscribe-memory): whatever
 * else limits it, that run cannot happen as simulated. */
static void
overflow (const DtsRunSummary *s, GString *out)
{
  if (!(s->memory_peak_bytes_per_gpu > s->gpu_memory_bytes))
    return;
  DtsFormatBuf need, more, have;
  g_string_append_printf (out,
                          "  does not fit: %s per GPU, %s more than the %s of the GPU; simulated "
                          "as if it did\n  (--allow-oversubscribe-memory), so these times "
                          "assume memory the GPU does not have\n",
                          dts_format_mem (&need, s->memory_peak_bytes_per_gpu),
                          dts_format_mem (&more,
                                          s->memory_peak_bytes_per_gpu - s->gpu_memory_bytes),
                          dts_format_mem (&have, s->gpu_memory_bytes));
}

static void
verdict (const DtsRunSummary *s, GString *out)
{
  overflow (s, out);
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
    for (int k = 0; k < DTS_RANK_WAIT_N_KINDS; k++)
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
  case DTS_BOTTLENECK_STAGE_IMBALANCE:
  case DTS_BOTTLENECK_BUBBLE:
    /* Pipelines: pipeline_body says it, with the stage table. */
    break;
  }
}

/* --link-stats: the busiest links, and where the run waits for
 * communication, which link to make faster. */
static void
links (const DtsRunSummary *s, GString *out)
{
  if (s->links == NULL || s->links->len == 0)
    return;
  DtsFormatBuf b, w;
  g_string_append (out, "busiest links (busy = bytes / bandwidth / simulated time):\n");
  for (guint i = 0; i < MIN (s->links->len, 5); i++) {
    const DtsTraceLink *l = &g_array_index (s->links, DtsTraceLink, i);
    g_string_append_printf (out, "  %-28s %5.1f%% busy, %s per iteration at %s/s\n", l->name,
                            100 * l->busy_fraction,
                            dts_format_bytes (&b, l->bytes / MAX (s->iterations, 1)),
                            dts_format_bytes (&w, l->bandwidth_Bps));
  }
  const DtsTraceLink *top = &g_array_index (s->links, DtsTraceLink, 0);
  double exposed = s->iteration_time_s > 0 ? s->comm_exposed_s / s->iteration_time_s : 0;
  guint ties = 0;
  for (guint i = 1; i < s->links->len; i++)
    ties += g_array_index (s->links, DtsTraceLink, i).busy_fraction
            >= 0.99 * top->busy_fraction;
  if (exposed > 0.05 && top->busy_fraction > 0.5) {
    g_string_append_printf (out, "  the busiest link, %s", top->name);
    if (ties > 0)
      g_string_append_printf (out, " (and %u more as busy)", ties);
    g_string_append_printf (out,
                            ", carries data %.0f%% of the time\n  while %.0f%% of each "
                            "iteration waits for communication: faster links there\n  are what "
                            "a faster network buys\n",
                            100 * top->busy_fraction, 100 * exposed);
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
rank_row (const DtsRankStat *r, int host_width, const gboolean *shown, GString *out)
{
  DtsFormatBuf c, d, e;
  g_string_append_printf (out, "  %4d  %-*s  %12s", r->rank, host_width, r->host,
                          dts_format_fixed (&c, r->compute_s, DTS_FORMAT_UNIT_MS, 3));
  for (int k = 0; k < DTS_RANK_WAIT_N_KINDS; k++)
    if (shown[k])
      g_string_append_printf (out, "  %13s", dts_format_fixed (&d, r->wait_s[k], DTS_FORMAT_UNIT_MS, 3));
  g_string_append_printf (out, "  %9s\n", dts_format_fixed (&e, r->idle_s, DTS_FORMAT_UNIT_MS, 3));
}

/* All ranks in rank order when few; else the slowest few, slowest first,
 * and the fastest. */
/* --collective auto: what the model chose, one line per run of buckets
 * with the same algorithm and protocol, the model's time of one bucket
 * alone next to the simulated mean (which overlaps with compute and other
 * buckets). */
static void
auto_lines (const DtsRunSummary *s, GString *out)
{
  guint n = s->buckets->len;
  for (guint b = 0; b < n;) {
    const DtsBucketStat *first = &g_array_index (s->buckets, DtsBucketStat, b);
    if (first->protocol == NULL)
      return;
    guint e = b + 1;
    double pred_lo = first->predicted_s, pred_hi = first->predicted_s, sim = first->duration_s;
    while (e < n) {
      const DtsBucketStat *x = &g_array_index (s->buckets, DtsBucketStat, e);
      if (g_strcmp0 (x->algorithm, first->algorithm) != 0
          || g_strcmp0 (x->protocol, first->protocol) != 0 || x->channels != first->channels)
        break;
      pred_lo = MIN (pred_lo, x->predicted_s);
      pred_hi = MAX (pred_hi, x->predicted_s);
      sim += x->duration_s;
      e++;
    }
    g_autofree char *which = e - b == 1 ? g_strdup_printf ("bucket %u", b)
                                        : g_strdup_printf ("buckets %u-%u", b, e - 1);
    if (first->nccl_algo != NULL)
      g_string_append_printf (out, "  nccl: %s %s (%s, %d channels) with %s, predicted %.3f",
                              which, first->nccl_algo, first->algorithm, first->channels,
                              first->protocol, pred_lo * 1e3);
    else
      g_string_append_printf (out, "  auto: %s %s with %s, predicted %.3f", which,
                              first->algorithm, first->protocol, pred_lo * 1e3);
    if (pred_hi > pred_lo)
      g_string_append_printf (out, "-%.3f", pred_hi * 1e3);
    g_string_append_printf (out, " ms alone, simulated %.3f ms (mean)\n", sim / (e - b) * 1e3);
    b = e;
  }
}

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
  /* A column per wait kind some rank has; all-reduce waits always. */
  gboolean kinds[DTS_RANK_WAIT_N_KINDS] = { [DTS_RANK_WAIT_ALLREDUCE] = TRUE };
  for (guint r = 0; r < n; r++)
    for (int k = 0; k < DTS_RANK_WAIT_N_KINDS; k++)
      kinds[k] = kinds[k] || rank_get (s, r)->wait_s[k] != 0;
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
  for (int k = 0; k < DTS_RANK_WAIT_N_KINDS; k++) {
    if (!kinds[k])
      continue;
    /* Parameter-server workers wait at their pulls: for the weights in
     * flight, or for the servers to produce them. */
    const char *id = dts_trace_wait_kind_id (k);
    if (s->ps_shards > 0 && k == DTS_RANK_WAIT_TRANSFER)
      id = "pull";
    else if (s->ps_shards > 0 && k == DTS_RANK_WAIT_BUBBLE)
      id = "server";
    g_autofree char *h = g_strdup_printf ("%s wait", id);
    g_string_append_printf (out, "  %13s", h);
  }
  g_string_append_printf (out, "  %9s\n", "idle");
  for (guint i = 0; i < rows->len; i++)
    rank_row (rows->pdata[i], host_width, kinds, out);
  if (shown < n)
    g_string_append_printf (out, "   ...  %u more; --per-rank FILE writes every rank\n",
                            n - shown);
  if (fastest)
    rank_row (fastest, host_width, kinds, out);
}

/* Pipeline and hybrid runs: the shape of the pipeline. */
static void
pipeline_head (const DtsRunSummary *s, GString *out)
{
  g_string_append_printf (out, "  %s: %d stage%s", s->strategy, s->n_stages,
                          s->n_stages == 1 ? "" : "s");
  gboolean uniform = TRUE;
  for (guint i = 1; i < s->stages->len; i++)
    uniform = uniform && g_array_index (s->stages, DtsStageStat, i).replicas
                             == g_array_index (s->stages, DtsStageStat, 0).replicas;
  if (!uniform) {
    g_string_append (out, " with ");
    for (guint i = 0; i < s->stages->len; i++)
      g_string_append_printf (out, "%s%d", i ? "," : "",
                              g_array_index (s->stages, DtsStageStat, i).replicas);
    g_string_append (out, " replicas");
  } else if (g_array_index (s->stages, DtsStageStat, 0).replicas > 1)
    g_string_append_printf (out, " x %d replicas",
                            g_array_index (s->stages, DtsStageStat, 0).replicas);
  if (s->tensor_parallel > 1)
    g_string_append_printf (out, " of %d GPUs (tensor parallel)", s->tensor_parallel);
  if (s->context_parallel > 1)
    g_string_append_printf (out, ", rings of %d replicas sharing each sequence (context parallel)",
                            s->context_parallel);
  int most = 0;
  for (guint i = 0; i < s->stages->len; i++)
    most = MAX (most, g_array_index (s->stages, DtsStageStat, i).replicas);
  if (s->expert_parallel > 1 && most > s->expert_parallel && uniform)
    g_string_append_printf (out,
                            ", experts over %d consecutive replicas (expert parallel), each "
                            "expert's gradients over the %d that hold it (expert data parallel)",
                            s->expert_parallel, most / s->expert_parallel);
  else if (s->expert_parallel > 1 && most > s->expert_parallel)
    g_string_append_printf (out,
                            ", experts over %d consecutive replicas (expert parallel), each "
                            "expert's gradients over the replicas that hold it (expert data "
                            "parallel)",
                            s->expert_parallel);
  else if (s->expert_parallel > 1)
    g_string_append_printf (out, ", experts over %d replicas (expert parallel)",
                            s->expert_parallel);
  if (s->placement != NULL)
    g_string_append_printf (out, " (%s)", s->placement);
  g_string_append_printf (out, ", %d micro-batch%s (%s), batch %d (global %d), %s, %s cost "
                               "model, %s framework\n",
                          s->micro_batches, s->micro_batches == 1 ? "" : "es",
                          s->pipeline_schedule, s->batch_size_per_gpu,
                          s->global_batch_size, s->precision, s->cost_model, s->framework);
  /* how the layers were cut, for models of repeated blocks (the others are
   * balanced, or given, as their stage table shows) */
  int chunks = s->n_stages * MAX (s->virtual_stages, 1);
  if (chunks == 1)
    ; /* one stage: nothing was cut */
  else if (s->partition_blocks > 0 && g_strcmp0 (s->partition, "uniform") == 0)
    g_string_append_printf (out, "  stages: %d block%s per %s (uniform, as Megatron-LM splits a "
                                 "model)\n",
                            s->partition_blocks / chunks, s->partition_blocks == chunks ? "" : "s",
                            s->virtual_stages > 1 ? "model chunk" : "stage");
  else if (s->partition_blocks > 0 && s->partition_blocks < chunks
           && g_strcmp0 (s->partition, "balanced") == 0)
    g_string_append_printf (out, "  stages: balanced by cost, cut inside blocks (%d blocks, "
                                 "fewer than the %d %s)\n",
                            s->partition_blocks, chunks,
                            s->virtual_stages > 1 ? "model chunks" : "stages");
  else if (s->partition_blocks > 0 && g_strcmp0 (s->partition, "balanced") == 0)
    g_string_append_printf (out, "  stages: balanced by cost, cut between blocks (%d blocks%s)\n",
                            s->partition_blocks,
                            s->partition_blocks % chunks != 0 ? ", which do not divide evenly"
                                                              : "; --partition balanced");
  /* the stage table names each stage's first chunk; the others here */
  for (guint i = 0; i < s->stages->len; i++) {
    const DtsStageStat *st = &g_array_index (s->stages, DtsStageStat, i);
    if (st->chunk_ranges != NULL)
      g_string_append_printf (out, "  stage %u also runs %s\n", i, st->chunk_ranges);
  }
}

/* What the summary says of a profile nobody chose: under roofline, on which
 * the default was chosen (doc/VALIDATION.md part 19), why it is the default. */
static const char *
default_mark (const DtsRunSummary *s)
{
  if (s->framework_arg != NULL)
    return "";
  if (s->cost_model != NULL && strcmp (s->cost_model, "roofline") == 0)
    return " (the default: the lowest of the shipped profiles)";
  return " (the default)";
}

/* Pipeline and hybrid runs: waits and the per-stage table. One unit per
 * column: milliseconds for times, GiB for memory. */
static void
pipeline_body (const DtsRunSummary *s, GString *out)
{
  DtsFormatBuf tb;
  g_string_append_printf (out, "pipeline wait      %s per GPU and iteration", T (s->p2p_wait_s));
  g_string_append_printf (out, ": bubble %.1f%% of the iteration", 100 * s->bubble_fraction);
  g_string_append_printf (out, ", transfers %.1f%%\n",
                          s->iteration_time_s > 0 ? 100 * s->p2p_exposed_s / s->iteration_time_s
                                                  : 0);
  int S = s->n_stages, M = s->micro_batches;
  if (S > 1)
    g_string_append_printf (out, "  (equal stages, no transfer time: (S-1)/(M+S-1) = %.1f%%)\n",
                            100.0 * (S - 1) / (M + S - 1));
  if (s->tensor_parallel > 1) {
    /* One line whether or not the collectives overlap GEMMs: what the time
     * is (exposed or blocking), then the mode and sequence parallelism in
     * the parenthesis. */
    g_autofree char *how = s->tp_overlap != NULL
                               ? g_strdup_printf ("exposed: not hidden by GEMMs, --tp-overlap %s",
                                                  s->tp_overlap)
                               : g_strdup ("blocking compute");
    g_string_append_printf (out, "%s %s per GPU and iteration (%s%s)\n",
                            s->sequence_parallel ? "tensor AG/RS      " : "tensor all-reduce ",
                            T (s->tensor_s), how, s->sequence_parallel ? "; sequence parallel" : "");
  }
  if (s->context_parallel > 1)
    g_string_append_printf (out,
                            "context K/V ring   %s per GPU and iteration (blocking compute; "
                            "%d GPUs share each sequence)\n",
                            T (s->context_s), s->context_parallel);
  if (s->expert_parallel > 1)
    g_string_append_printf (out,
                            "expert all-to-all  %s per GPU and iteration (blocking compute; "
                            "tokens to and from %d GPUs' experts)\n",
                            T (s->expert_s), s->expert_parallel);
  if (s->moe_routing_alpha > 0) {
    g_autofree char *cap = s->moe_capacity > 0
                               ? g_strdup_printf (", capacity factor %g (%.2f%% of the routed "
                                                  "tokens dropped)",
                                                  s->moe_capacity, 100 * s->moe_dropped)
                               : g_strdup ("");
    g_string_append_printf (out,
                            "  routing drawn per layer: expert shares from Dirichlet(%g) (seed "
                            "%" G_GUINT64_FORMAT ")%s; the busiest GPU receives %.3f times the "
                            "mean's tokens, the mean over the layers (at most %.3f); every "
                            "GPU's experts and all-to-alls priced at its layer's busiest one's "
                            "load\n",
                            s->moe_routing_alpha, s->seed, cap, s->moe_imbalance,
                            s->moe_imbalance_max);
  } else if (s->moe_capacity > 0 && s->moe_capacity < 1)
    g_string_append_printf (out,
                            "  capacity factor %g (--moe-capacity-factor): every expert takes %g "
                            "times its balanced share of the tokens and drops the rest; every "
                            "GPU's experts and all-to-alls priced at that load\n",
                            s->moe_capacity, s->moe_imbalance);
  else if (s->moe_capacity > 0)
    g_string_append_printf (out,
                            "  capacity factor %g (--moe-capacity-factor): the busiest GPU "
                            "receives %g times the mean's tokens (at most %g, the tokens above "
                            "it dropped); every GPU's experts and all-to-alls priced at its "
                            "load\n",
                            s->moe_capacity, s->moe_imbalance, s->moe_capacity);
  else if (s->moe_imbalance > 1)
    g_string_append_printf (out,
                            "  routing imbalance %g (--moe-imbalance): every GPU's experts and "
                            "all-to-alls priced at the busiest one's load\n",
                            s->moe_imbalance);
  g_string_append (out, "stages (ms per GPU and iteration; memory of one GPU in GiB):\n");
  /* --zero 1: the gradients' reduce-scatters and the parameters' all-gathers
   * apart (otherwise the all-reduces, the table every other run has) */
  gboolean zero = s->gather_bytes > 0;
  g_string_append_printf (out, "  %-5s %-30s %4s %9s %9s", "stage", "layers", "GPUs", "compute",
                          zero ? "grad sync" : "allreduce");
  if (zero)
    g_string_append_printf (out, " %9s", "gather");
  g_string_append_printf (out, " %9s %9s %9s %5s %7s\n", "tensor", "transfer", "bubble", "busy",
                          "memory");
  int slowest = 0;
  double mean = 0;
  for (guint i = 0; i < s->stages->len; i++) {
    const DtsStageStat *st = &g_array_index (s->stages, DtsStageStat, i);
    g_autofree char *layers = g_strdup_printf ("%s-%s", st->first_layer, st->last_layer);
    if (strlen (layers) > 30)
      g_snprintf (layers + 27, 4, "...");
    g_string_append_printf (out, "  %-5u %-30s %4d %9.3f %9.3f", i, layers,
                            st->replicas * st->tensor_parallel, 1e3 * st->compute_s,
                            1e3 * st->allreduce_exposed_s);
    if (zero)
      g_string_append_printf (out, " %9.3f", 1e3 * st->gather_exposed_s);
    g_string_append_printf (out, " %9.3f %9.3f %9.3f %4.0f%% %7.2f\n", 1e3 * st->tensor_s,
                            1e3 * st->transfer_exposed_s, 1e3 * st->bubble_s,
                            100 * st->busy_fraction,
                            st->memory_bytes / (1024.0 * 1024.0 * 1024.0));
    if (st->compute_s > g_array_index (s->stages, DtsStageStat, slowest).compute_s)
      slowest = i;
    mean += st->compute_s / s->stages->len;
  }
  g_string_append_printf (out, "GPU busy           %.1f%% (mean compute / iteration)\n",
                          100 * s->compute_efficiency);
  overflow (s, out);
  const DtsStageStat *sl = &g_array_index (s->stages, DtsStageStat, slowest);
  if (s->stages->len > 1 && sl->compute_s > 1.1 * mean)
    g_string_append_printf (out,
                            "  load imbalance: stage %d computes %.0f%% more than the mean "
                            "stage; rebalance with --partition or --stage-dp\n",
                            slowest, 100 * (sl->compute_s / mean - 1));
  else if (s->bubble_fraction > 0.1)
    g_string_append_printf (out,
                            "  %.0f%% of each iteration is pipeline bubble: more --micro-batches "
                            "would shrink it\n",
                            100 * s->bubble_fraction);
}

void
dts_report_write_text (const DtsRunSummary *s, GString *out)
{
  DtsFormatBuf tb, bb;
  g_string_append_printf (out, "%s on %s: %d x %s (%d node%s)\n", s->workload, s->platform,
                          s->n_gpus, s->gpu, s->n_nodes, s->n_nodes == 1 ? "" : "s");
  if (s->n_stages > 0)
    pipeline_head (s, out);
  else if (s->ps_shards > 0)
    dts_report_text_ps_head (s, out);
  else
    g_string_append_printf (out,
                            "  data parallel, batch %d per GPU (global %d), %s, %s cost model, "
                            "%s framework\n",
                            s->batch_size_per_gpu, s->global_batch_size, s->precision,
                            s->cost_model, s->framework);
  if (s->framework_mape >= 0)
    g_string_append_printf (out, "  measured error of %s%s under %s: MAPE %.1f%% over dtsim "
                                 "validate's sets\n",
                            s->framework, default_mark (s), s->cost_model, s->framework_mape);
  else
    g_string_append_printf (out, "  measured error of %s under %s: none (dtsim validate -F %s "
                                 "-- --cost-model %s measures it)\n",
                            s->framework, s->cost_model,
                            s->framework_arg ? s->framework_arg : s->framework, s->cost_model);
  if (s->cost_assumed != NULL)
    g_string_append_printf (out, "  assumed: %s; the error of these is unmeasured\n",
                            s->cost_assumed);
  if (s->recompute != NULL && strcmp (s->recompute, "none") != 0)
    g_string_append_printf (out, "  %s activation recomputation\n", s->recompute);
  if (s->n_gpus > 1 && s->ps_shards == 0 && (s->n_stages == 0 || s->buckets->len > 0)) {
    double lo = 0, hi = 0;
    for (guint b = 0; b < s->buckets->len; b++) {
      double v = g_array_index (s->buckets, DtsBucketStat, b).bytes;
      lo = b == 0 ? v : MIN (lo, v);
      hi = b == 0 ? v : MAX (hi, v);
    }
    if (is_ps (s))
      g_string_append_printf (out, "  parameter servers (%s): ", s->collective);
    else if (s->zero > 0)
      g_string_append_printf (out, "  %s reduce-scatter of gradients, all-gather of parameters "
                                   "(%s; %s): ",
                              s->collective, s->param_gather,
                              s->zero >= 3 && s->param_gathers == 1
                                  ? "fully sharded between iterations"
                              : s->zero >= 3 ? "fully sharded"
                              : s->zero == 2 ? "distributed optimizer, gradients sharded"
                                             : "distributed optimizer");
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
    else if (g_strcmp0 (s->collective, "nccl") == 0)
      g_string_append_printf (out, "channels as chosen below, %s chunks,", B (s->chunk_bytes));
    else
      g_string_append_printf (out, "%d channel%s, %s chunks,", s->channels,
                              s->channels == 1 ? "" : "s", B (s->chunk_bytes));
    if (g_strcmp0 (s->granularity, "auto") == 0 && s->plans_analytic == 0)
      g_string_append_printf (out,
                              "\n  auto granularity: flow (no plan both not lock-step and alone "
                              "on the network), overlap %s\n",
                              s->overlap ? "on" : "off");
    else if (g_strcmp0 (s->granularity, "auto") == 0)
      g_string_append_printf (out,
                              "\n  auto granularity: flow, %d plans at analytic (not "
                              "lock-step, alone on the network), overlap %s\n",
                              s->plans_analytic, s->overlap ? "on" : "off");
    else
      g_string_append_printf (out, "\n  %s granularity, overlap %s\n", s->granularity,
                              s->overlap ? "on" : "off");
    auto_lines (s, out);
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
  /* below 0.1 (a million tokens per sample), three digits instead of 0.0 */
  if (s->throughput_samples_per_s < 0.1)
    g_string_append_printf (out, "throughput         %.3g samples/s\n",
                            s->throughput_samples_per_s);
  else
    g_string_append_printf (out, "throughput         %.1f samples/s\n",
                            s->throughput_samples_per_s);
  if (s->seq_len > 0) {
    g_string_append_printf (out, "tokens             %.0f tokens/s, %.1f per GPU (%d per sample)\n",
                            s->tokens_per_s, s->tokens_per_s_per_gpu, s->seq_len);
    g_string_append_printf (out,
                            "model FLOPs        %.1f TFLOP/s per GPU, MFU %.1f%% of %.1f "
                            "(%s peak)\n",
                            s->model_tflops_per_gpu, 100.0 * s->mfu, s->peak_tflops_per_gpu,
                            s->precision);
    /* Megatron's count takes the whole attention square; a causal kernel
     * runs half of it, which long sequences make most of the work. */
    if (s->mfu > 1.0)
      g_string_append_printf (out,
                              "  (above 100%%: Megatron's model FLOPs count the whole attention "
                              "square, of which a causal kernel runs half, and at %d tokens "
                              "attention is most of the count; doc/WORKLOADS.md)\n",
                              s->seq_len);
  }
  g_string_append (out, "per GPU and iteration:\n");
  g_string_append_printf (out, "  forward          %s\n", T (s->forward_s));
  g_string_append_printf (out, "  backward         %s\n", T (s->backward_s));
  if (s->recompute_s > 0)
    g_string_append_printf (out, "  recompute        %s (forwards run again before their backward)\n",
                            T (s->recompute_s));
  g_string_append_printf (out, "  optimizer        %s\n", T (s->optimizer_s));
  if (s->n_gpus > 1 && s->ps_shards == 0 && (s->n_stages == 0 || s->buckets->len > 0)) {
    if (s->zero > 0) {
      /* The distributed optimizer: its two kinds of collectives apart. */
      g_string_append_printf (out, "  gradient sync    %s (%s of gradients reduce-scattered)\n",
                              T (s->grad_sync_s), B (s->allreduce_bytes));
      g_string_append_printf (out, "    exposed        %s\n", T (s->grad_sync_exposed_s));
      g_string_append_printf (out, "    overlapped     %s\n",
                              T (s->grad_sync_s - s->grad_sync_exposed_s));
      g_string_append_printf (out, "  parameter gather %s (%s of parameters all-gathered, %s)\n",
                              T (s->param_gather_s), B (s->gather_bytes), s->param_gather);
      g_string_append_printf (out, "    exposed        %s\n", T (s->param_gather_exposed_s));
      g_string_append_printf (out, "    overlapped     %s\n",
                              T (s->param_gather_s - s->param_gather_exposed_s));
    } else {
      g_string_append_printf (out, "  %-16s %s", is_ps (s) ? "push and pull" : "all-reduce",
                              T (s->comm_s));
      g_string_append_printf (out, " (%s of gradients %s)\n", B (s->allreduce_bytes),
                              is_ps (s) ? "through the servers" : "all-reduced");
      g_string_append_printf (out, "    exposed        %s\n", T (s->comm_exposed_s));
      g_string_append_printf (out, "    overlapped     %s\n", T (s->comm_overlapped_s));
    }
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
  if (s->n_stages > 0) {
    pipeline_body (s, out);
  } else if (s->ps_shards == 0) {
    g_string_append_printf (out,
                            "compute efficiency %.1f%% (compute on an idle GPU / iteration)\n",
                            100 * s->compute_efficiency);
    verdict (s, out);
  } else
    overflow (s, out);
  links (s, out);
  dts_report_text_ps (s, out);
  g_string_append_printf (out, "simulation         %.2f s wall, %" G_GINT64_FORMAT " events\n",
                          s->wall_time_s, s->events);
}
