/* cmd-run.c - `dtsim run`: simulate synchronous data-parallel training.
 *
 * Load and validate every input (options, platform, workload, cost model),
 * plan (schedule and all-reduce plans), simulate (src/sim), then report.
 * Every option is checked before anything is loaded; command-line mistakes
 * are usage errors (exit status 2), bad files are input errors (1). The
 * option table is one array of rows: a new option is one row plus one field
 * of RunArgs. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli-private.h"
#include "core/datadir.h"
#include "core/error.h"
#include "core/units.h"
#include "cost/cost.h"
#include "output/report.h"
#include "platform/override.h"
#include "schedule/options.h"
#include "sim/sim.h"
#include "sim/trace.h"

/* The raw text of the options, as GOption hands it over. */
typedef struct {
  char *platform;
  char *workload;
  char *batch_size;
  char *gpus;
  char *iterations;
  char *precision;
  char *cost_model;
  char *bucket_size;
  char *chunk_size;
  char *channels;
  char *collective;
  char *ps_count;
  char *ps_aggregation;
  gboolean no_overlap;
  char *seed;
  char *format;
  char *trace;
  gboolean quiet;
  char *granularity;
  char **cfg;
  char **set;   /* what-if overrides (platform/override.h) */
  char **scale;
} RunArgs;

static void
run_args_clear (RunArgs *a)
{
  g_free (a->platform);
  g_free (a->workload);
  g_free (a->batch_size);
  g_free (a->gpus);
  g_free (a->iterations);
  g_free (a->precision);
  g_free (a->cost_model);
  g_free (a->bucket_size);
  g_free (a->chunk_size);
  g_free (a->channels);
  g_free (a->collective);
  g_free (a->ps_count);
  g_free (a->ps_aggregation);
  g_free (a->seed);
  g_free (a->format);
  g_free (a->trace);
  g_free (a->granularity);
  g_strfreev (a->cfg);
  g_strfreev (a->set);
  g_strfreev (a->scale);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RunArgs, run_args_clear)

#define S G_OPTION_ARG_STRING
static void
add_entries (GOptionContext *ctx, RunArgs *a)
{
  GOptionEntry entries[] = {
    { "platform", 'p', 0, S, &a->platform,
      "SimGrid platform file, or a shipped name (default: " DTS_DEFAULT_PLATFORM ")", "FILE" },
    { "workload", 'w', 0, S, &a->workload,
      "Workload file, or a shipped name (default: " DTS_DEFAULT_WORKLOAD ")", "FILE" },
    { "batch-size", 'b', 0, S, &a->batch_size,
      "Samples per GPU per iteration (default: the workload's, else 32)", "N" },
    { "gpus", 'n', 0, S, &a->gpus, "Use the first N ranks of the platform (default: all)", "N" },
    { "iterations", 'i', 0, S, &a->iterations,
      "Iterations to simulate; the first is a warm-up when there are more (default: 3)", "N" },
    { "precision", 0, 0, S, &a->precision,
      "fp32, tf32, fp16 or bf16 (default: the workload's, else fp32)", "P" },
    { "cost-model", 0, 0, S, &a->cost_model, "Kernel-time model (default: roofline)", "ID" },
    { "bucket-size", 0, 0, S, &a->bucket_size,
      "Gradient bucket cap, like DDP's bucket_cap_mb (default: 25MB)", "BYTES" },
    { "chunk-size", 0, 0, S, &a->chunk_size,
      "All-reduce chunk per ring step and channel (default: 2MiB, as NCCL)", "BYTES" },
    { "channels", 0, 0, S, &a->channels, "Parallel rings (default: 2)", "N" },
    { "collective", 0, 0, S, &a->collective,
      "Gradient reduction: ring (NCCL-style all-reduce) or ps (parameter servers) "
      "(default: ring)", "ALG" },
    { "ps-count", 0, 0, S, &a->ps_count,
      "With --collective ps: parameter servers, placed round-robin over the nodes on "
      "GPU hosts (default: one per node)", "P" },
    { "ps-aggregation", 0, 0, S, &a->ps_aggregation,
      "With --collective ps: none (every GPU talks to the servers) or node (a node's GPUs "
      "sum by a local ring first and its first GPU talks to the servers, as TensorFlow's "
      "distributed_replicated) (default: none)", "A" },
    { "no-overlap", 0, 0, G_OPTION_ARG_NONE, &a->no_overlap,
      "Start all-reduces only after the whole backward pass (default: overlap)", NULL },
    { "seed", 0, 0, S, &a->seed, "Random seed, recorded in the outputs (default: 42)", "N" },
    { "format", 'f', 0, S, &a->format, "Output: text, json or csv (default: text)", "FMT" },
    { "trace", 't', 0, S, &a->trace, "Write a Chrome/Perfetto trace to FILE (default: none)", "FILE" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &a->quiet, "No progress line on stderr (default: a progress line when stderr is a terminal)", NULL },
    { "comm-granularity", 0, 0, S, &a->granularity,
      "How all-reduces are simulated: step or flow (default: flow)", "G" },
    { "cfg", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->cfg,
      "SimGrid configuration item, repeatable (e.g. network/model:LV08; default: "
      "CM02 without cross-traffic, doc/SIMULATION.md)", "NAME:VALUE" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->set,
      "What-if: set link:GLOB.bandwidth|latency, host:GLOB.speed or gpu:GLOB.FIELD, "
      "repeatable (e.g. link:*-nic*.bandwidth=50Gbps; default: none)",
      "T:GLOB.F=V" },
    { "scale", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->scale,
      "What-if: multiply network.bandwidth|latency, gpu.flops|mem_bw or T:GLOB.F, "
      "repeatable, applied after every --set (e.g. network.bandwidth=0.5; default: none)",
      "TARGET.F=X" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  dts_cli_add_entries (ctx, entries);
}
#undef S

/* Everything that can be checked without reading a file. */
static gboolean
check_args (const RunArgs *a, DtsRunOptions *o, const DtsReportWriter **writer, GError **error)
{
  *writer = dts_report_writer_lookup (a->format ? a->format : "text");
  if (*writer == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "unknown --format '%s' (known: text, json, csv)",
                 a->format);
    return FALSE;
  }
  if (!dts_cli_parse_int_option ("batch-size", a->batch_size, 1, 1 << 20, &o->batch_size, error)
      || !dts_cli_parse_int_option ("gpus", a->gpus, 1, 1 << 20, &o->n_gpus, error)
      || !dts_cli_parse_int_option ("iterations", a->iterations, 1, 100000, &o->iterations, error)
      || !dts_cli_parse_int_option ("channels", a->channels, 1, DTS_COLL_MAX_CHANNELS, &o->channels, error)
      || !dts_cli_parse_bytes_option ("bucket-size", a->bucket_size, &o->bucket_bytes, error)
      || !dts_cli_parse_bytes_option ("chunk-size", a->chunk_size, &o->chunk_bytes, error))
    return FALSE;
  if (a->collective != NULL) {
    gboolean known = FALSE;
    g_autoptr (GString) ids = g_string_new (NULL);
    for (const DtsCollAlgorithm *alg = dts_coll_algorithms (); alg->id; alg++) {
      known = known || strcmp (alg->id, a->collective) == 0;
      g_string_append_printf (ids, "%s%s", ids->len ? ", " : "", alg->id);
    }
    if (!known) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "unknown --collective '%s' (known: %s)",
                   a->collective, ids->str);
      return FALSE;
    }
    o->collective = a->collective;
  }
  if (!dts_cli_parse_int_option ("ps-count", a->ps_count, 1, 1 << 20, &o->ps_count, error))
    return FALSE;
  if (a->ps_count != NULL && strcmp (o->collective, "ps") != 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--ps-count %s: only with --collective ps (the collective is %s)", a->ps_count,
                 o->collective);
    return FALSE;
  }
  if (a->ps_aggregation != NULL) {
    if (!dts_ps_aggregation_from_string (a->ps_aggregation, &o->ps_aggregation, error))
      return FALSE;
    if (strcmp (o->collective, "ps") != 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--ps-aggregation %s: only with --collective ps (the collective is %s)",
                   a->ps_aggregation, o->collective);
      return FALSE;
    }
  }
  if (a->seed != NULL) {
    guint64 seed;
    if (!g_ascii_string_to_unsigned (a->seed, 10, 0, G_MAXUINT32, &seed, NULL))
      return dts_cli_bad_option ("seed", a->seed, "an integer in 0..4294967295", error);
    o->seed = seed;
  }
  if (a->precision != NULL) {
    g_autoptr (GError) local = NULL;
    if (!dts_precision_from_string (a->precision, &o->precision, &local)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--precision: %s", local->message);
      return FALSE;
    }
  }
  if (a->granularity != NULL && !dts_granularity_from_string (a->granularity, &o->granularity,
                                                              error))
    return FALSE;
  if (!dts_cli_check_output_option ("trace", a->trace, FALSE, error))
    return FALSE;
  return dts_sim_cfg_check (a->cfg, error);
}

gboolean
dts_cmd_run (int argc, char **argv, GError **error)
{
  g_auto (RunArgs) a = { 0 };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  g_option_context_set_summary (
      ctx, "Simulate synchronous data-parallel training (PyTorch DDP / Horovod style):\n"
           "forward, backward with gradient buckets all-reduced by an NCCL-style ring\n"
           "(or parameter servers, --collective ps) while backprop goes on, then the\n"
           "optimizer update. Without options,\n"
           DTS_DEFAULT_WORKLOAD " on the shipped " DTS_DEFAULT_PLATFORM " platform.");
  add_entries (ctx, &a);
  gboolean help = FALSE;
  if (!dts_cli_parse (ctx, "run", &argc, &argv, &help, error))
    return FALSE;
  if (help)
    return TRUE;
  if (!dts_cli_no_arguments (argc, argv, "run", error))
    return FALSE;

  DtsRunOptions o = {
    .n_gpus = 0,
    .batch_size = 0,
    .iterations = DTS_RUN_DEFAULT_ITERATIONS,
    .precision = DTS_PREC_COUNT,
    .cost_model = a.cost_model ? a.cost_model : "roofline",
    .collective = "ring",
    .bucket_bytes = DTS_RUN_DEFAULT_BUCKET_BYTES,
    .chunk_bytes = DTS_COLL_DEFAULT_CHUNK_BYTES,
    .channels = DTS_COLL_DEFAULT_CHANNELS,
    .overlap = !a.no_overlap,
    .seed = DTS_RUN_DEFAULT_SEED,
    .granularity = DTS_GRANULARITY_FLOW,
    .cfg = a.cfg,
    .trace_path = a.trace,
    .record_slices = a.trace != NULL,
    .progress = !a.quiet && isatty (STDERR_FILENO),
  };
  const DtsReportWriter *writer = NULL;
  if (!check_args (&a, &o, &writer, error))
    return FALSE;
  g_autoptr (GArray) overrides = dts_cli_parse_overrides (a.set, a.scale, error);
  if (overrides == NULL)
    return FALSE;
  o.overrides = overrides->len ? overrides : NULL;
  if (dts_cost_model_lookup (o.cost_model) == NULL) {
    g_autofree char *known = dts_cost_model_ids ();
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "unknown --cost-model '%s' (known: %s)",
                 o.cost_model, known);
    return FALSE;
  }
  if (!dts_sim_configure (o.cfg, error))
    return FALSE;

  g_autofree char *platform_path = dts_datadir_resolve (
      "platforms", a.platform ? a.platform : DTS_DEFAULT_PLATFORM, ".xml", "platform", error);
  if (platform_path == NULL)
    return FALSE;
  g_autofree char *workload_path = dts_datadir_resolve (
      "workloads", a.workload ? a.workload : DTS_DEFAULT_WORKLOAD, ".xml", "workload", error);
  if (workload_path == NULL)
    return FALSE;
  o.platform_path = platform_path;
  o.workload_path = workload_path;

  /* Fail on an unwritable trace file before a possibly long simulation. */
  if (o.trace_path != NULL && !dts_cli_check_writable (o.trace_path, "trace", error))
    return FALSE;

  g_autoptr (DtsTrace) trace = NULL;
  g_autoptr (DtsRunSummary) summary = dts_sim_run_training (&o, &trace, error);
  if (summary == NULL)
    return FALSE;

  if (o.trace_path != NULL) {
    g_autoptr (GString) tr = g_string_new (NULL);
    dts_report_write_chrome_trace (trace, summary, tr);
    if (!dts_report_save (tr, o.trace_path, "trace", error))
      return FALSE;
  }
  g_autoptr (GString) out = g_string_new (NULL);
  writer->write (summary, out);
  fwrite (out->str, 1, out->len, stdout);
  return TRUE;
}
