/* text.c - the readable summary of a run (`dtsim run`, default format).
 *
 * Fixed formats (output/format.h): times in the largest unit that keeps
 * them >= 1 (s, ms, us) with 3 decimals, sizes in decimal GB/MB with 2
 * decimals, so identical runs print identical text (apart from the wall
 * time). */
#include "config.h"

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
  if (s->n_gpus > 1) {
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
  g_string_append_printf (out, "scaling efficiency %.1f%% (compute on an idle GPU / iteration)\n",
                          100 * s->scaling_efficiency);
  hint (s, out);
  g_string_append_printf (out, "simulation         %.2f s wall, %" G_GINT64_FORMAT " events\n",
                          s->wall_time_s, s->events);
}
