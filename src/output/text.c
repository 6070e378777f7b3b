/* text.c - the readable summary of a run (`dtsim run`, default format).
 *
 * Fixed formats (output/format.h): times in the largest unit that keeps
 * them >= 1 (s, ms, us) with 3 decimals, sizes in decimal GB/MB with 2
 * decimals, so identical runs print identical text (apart from the wall
 * time). */
#include "config.h"

#include <string.h>

#include "output/format.h"
#include "output/report.h"

/* One buffer each: a printf below holds at most one time and one size. */
#define T(v) dts_format_time (&tb, (v))
#define B(v) dts_format_bytes (&bb, (v))

static void
hint (const DtsRunSummary *s, GString *out)
{
  double exposed = s->iteration_time_s > 0 ? s->comm_exposed_s / s->iteration_time_s : 0;
  double hidden = s->comm_s > 0 ? s->comm_overlapped_s / s->comm_s : 0;
  if (s->n_gpus == 1) {
    g_string_append (out, "  single GPU: no gradient all-reduce; N GPUs at best give N x the "
                          "throughput\n");
  } else if (!s->overlap) {
    g_string_append_printf (out,
                            "  overlap off: all communication is exposed (%.0f%% of each "
                            "iteration)\n",
                            100 * exposed);
  } else if (exposed > 0.25) {
    g_string_append_printf (out,
                            "  communication-bound: %.0f%% of each iteration waits for "
                            "all-reduce; a larger --batch-size,\n  a faster network or fewer "
                            "GPUs would raise the efficiency\n",
                            100 * exposed);
  } else if (exposed > 0.05) {
    g_string_append_printf (out,
                            "  %.0f%% of each iteration waits for all-reduce; overlap hides "
                            "%.0f%% of the communication\n",
                            100 * exposed, 100 * hidden);
  } else {
    g_string_append_printf (out,
                            "  compute-bound: overlap hides %.0f%% of the communication; more "
                            "GPUs should scale well\n",
                            100 * hidden);
  }
}

/* Pipeline and hybrid runs: the shape of the pipeline. */
static void
pipeline_head (const DtsRunSummary *s, GString *out)
{
  g_string_append_printf (out, "  %s: %d stages", s->strategy, s->n_stages);
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
  if (s->placement != NULL)
    g_string_append_printf (out, " (%s)", s->placement);
  g_string_append_printf (out, ", %d micro-batches (%s), batch %d (global %d), %s, %s cost "
                               "model\n",
                          s->micro_batches, s->pipeline_schedule, s->batch_size_per_gpu,
                          s->global_batch_size, s->precision, s->cost_model);
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
  g_string_append_printf (out, "  (equal stages, no transfer time: (S-1)/(M+S-1) = %.1f%%)\n",
                          100.0 * (S - 1) / (M + S - 1));
  g_string_append (out, "stages (ms per GPU and iteration; memory of one GPU in GiB):\n");
  g_string_append_printf (out, "  %-5s %-30s %4s %9s %9s %9s %9s %5s %7s\n", "stage", "layers",
                          "GPUs", "compute", "allreduce", "transfer", "bubble", "busy",
                          "memory");
  int slowest = 0;
  double mean = 0;
  for (guint i = 0; i < s->stages->len; i++) {
    const DtsStageStat *st = &g_array_index (s->stages, DtsStageStat, i);
    g_autofree char *layers = g_strdup_printf ("%s-%s", st->first_layer, st->last_layer);
    if (strlen (layers) > 30)
      g_snprintf (layers + 27, 4, "...");
    g_string_append_printf (out, "  %-5u %-30s %4d %9.3f %9.3f %9.3f %9.3f %4.0f%% %7.2f\n", i,
                            layers, st->replicas, 1e3 * st->compute_s,
                            1e3 * st->allreduce_exposed_s, 1e3 * st->transfer_exposed_s,
                            1e3 * st->bubble_s, 100 * st->busy_fraction,
                            st->memory_bytes / (1024.0 * 1024.0 * 1024.0));
    if (st->compute_s > g_array_index (s->stages, DtsStageStat, slowest).compute_s)
      slowest = i;
    mean += st->compute_s / s->stages->len;
  }
  g_string_append_printf (out, "GPU busy           %.1f%% (mean compute / iteration)\n",
                          100 * s->scaling_efficiency);
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
                            "  data parallel, batch %d per GPU (global %d), %s, %s cost model\n",
                            s->batch_size_per_gpu, s->global_batch_size, s->precision,
                            s->cost_model);
  if (s->n_gpus > 1 && s->ps_shards == 0 && (s->n_stages == 0 || s->buckets->len > 0)) {
    g_string_append_printf (out, "  %s all-reduce: %u bucket%s of >= %s, ", s->collective,
                            s->buckets->len, s->buckets->len == 1 ? "" : "s", B (s->bucket_bytes));
    if (s->ps_servers > 0)
      g_string_append_printf (out, "%d parameter server%s%s, ", s->ps_servers,
                              s->ps_servers == 1 ? "" : "s",
                              g_strcmp0 (s->ps_aggregation, "node") == 0
                                  ? " fed by one GPU per node after a local sum" : "");
    else
      g_string_append_printf (out, "%d channel%s, %s chunks, ", s->channels,
                              s->channels == 1 ? "" : "s", B (s->chunk_bytes));
    g_string_append_printf (out, "%s granularity, overlap %s\n", s->granularity,
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
  if (s->n_gpus > 1 && s->ps_shards == 0 && (s->n_stages == 0 || s->buckets->len > 0)) {
    g_string_append_printf (out, "  all-reduce       %s", T (s->comm_s));
    g_string_append_printf (out, " (%s of %s all-reduced)\n", B (s->allreduce_bytes),
                            "gradients");
    g_string_append_printf (out, "    exposed        %s\n", T (s->comm_exposed_s));
    g_string_append_printf (out, "    overlapped     %s\n", T (s->comm_overlapped_s));
  }
  g_string_append_printf (out, "memory per GPU     %s", B (s->memory_peak_bytes_per_gpu));
  g_string_append_printf (out, " of %s", B (s->gpu_memory_bytes));
  g_string_append_printf (out, "%s\n", s->memory_peak_bytes_per_gpu > s->gpu_memory_bytes
                                         ? " (DOES NOT FIT)" : "");
  g_string_append_printf (out, "  weights %s,", B (s->memory_weights_bytes));
  g_string_append_printf (out, " gradients %s,", B (s->memory_gradients_bytes));
  g_string_append_printf (out, " optimizer %s,", B (s->memory_optimizer_bytes));
  g_string_append_printf (out, " activations %s\n", B (s->memory_activations_bytes));
  if (s->n_stages > 0) {
    pipeline_body (s, out);
  } else if (s->ps_shards == 0) {
    g_string_append_printf (out,
                            "scaling efficiency %.1f%% (compute on an idle GPU / iteration)\n",
                            100 * s->scaling_efficiency);
    hint (s, out);
  }
  dts_report_text_ps (s, out);
  g_string_append_printf (out, "simulation         %.2f s wall, %" G_GINT64_FORMAT " events\n",
                          s->wall_time_s, s->events);
}
