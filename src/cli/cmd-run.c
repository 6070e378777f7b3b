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
#include "output/mesh.h"
#include "output/timeline.h"
#include "platform/override.h"
#include "schedule/options.h"
#include "schedule/schedule.h"
#include "driver/driver.h"
#include "sim/sim.h"
#include "trace/trace.h"

/* The raw text of the options, as GOption hands it over. */
typedef struct {
  DtsCommonArgs c;      /* shared with the other command (common-options.c) */
  char *workload;
  char *batch_size;
  char *seq_len;
  char *iterations;
  char *precision;
  char *cost_model;
  char *framework;
  char *bucket_size;
  char *strategy;
  char *max_activities;
  gboolean no_overlap;
  gboolean sequence_parallel;
  gboolean oversubscribe;
  gboolean link_stats;
  char *seed;
  char *dataset_size;
  char *compute_jitter;
  char *recompute;
  gboolean quiet;
  gboolean progress;
  char *per_rank;
  char *timeline;
  gboolean timeline_ascii;
  char *mesh;
  gboolean mesh_ascii;
  DtsRowOptions *rows;  /* options of the collective and strategy rows */
} RunArgs;

static void
run_args_clear (RunArgs *a)
{
  dts_cli_common_args_clear (&a->c);
  g_free (a->workload);
  g_free (a->batch_size);
  g_free (a->seq_len);
  g_free (a->iterations);
  g_free (a->precision);
  g_free (a->cost_model);
  g_free (a->framework);
  g_free (a->bucket_size);
  g_free (a->strategy);
  g_free (a->max_activities);
  g_free (a->seed);
  g_free (a->per_rank);
  g_free (a->timeline);
  g_free (a->mesh);
  g_free (a->dataset_size);
  g_free (a->compute_jitter);
  g_free (a->recompute);
  dts_cli_row_options_free (a->rows);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RunArgs, run_args_clear)

#define S G_OPTION_ARG_STRING
static void
add_entries (GOptionContext *ctx, RunArgs *a)
{
  dts_cli_add_common_entries (ctx, &a->c);
  GOptionEntry entries[] = {
    { "workload", 'w', 0, S, &a->workload,
      "Workload file, or a shipped name (default: " DTS_DEFAULT_WORKLOAD ")", "FILE" },
    { "batch-size", 'b', 0, S, &a->batch_size,
      "Samples per GPU per iteration; pipeline, hybrid: per pipeline replica, split into "
      "micro-batches (default: the workload's, else 32)", "N" },
    { "seq-len", 0, 0, S, &a->seq_len,
      "Tokens per sample of a sequence model (up to 16,777,216; a model with learned "
      "positions: up to its table; default: the workload's seq-len)", "N" },
    { "iterations", 'i', 0, S, &a->iterations,
      "Iterations to simulate; the first is a warm-up when there are more (default: 3)", "N" },
    { "precision", 0, 0, S, &a->precision,
      "fp32, tf32, fp16, bf16 or fp8 (fp8: the GEMMs of linear layers in FP8, the rest "
      "in bf16, on Hopper and newer; default: the workload's, else fp32)", "P" },
    { "cost-model", 0, 0, S, &a->cost_model, "Kernel-time model: roofline, mlp, roofline-gemm (default: roofline; below)", "ID" },
    { "framework", 0, 0, S, &a->framework,
      "Framework profile: a shipped name (frameworks/), generic (the plain roofline) or a file; "
      "each run prints the profile's measured error (default: " DTS_FRAMEWORK_DEFAULT ")",
      "ID" },
    { "bucket-size", 0, 0, S, &a->bucket_size,
      "Gradient bucket cap, like DDP's bucket_cap_mb; also what sync-ps --ps-push buckets "
      "pushes at once (default: 25MB)", "BYTES" },
    { "strategy", 0, 0, S, &a->strategy,
      "Parallel strategy; 'help' lists them (default: dp)", "ID" },
    { "max-activities", 0, 0, S, &a->max_activities,
      "Refuse runs estimated to start more SimGrid activities than this (default: 2e8, "
      "about an hour or more)", "N" },
    { "sequence-parallel", 0, 0, G_OPTION_ARG_NONE, &a->sequence_parallel,
      "With --tensor-parallel: split the sequence of the layers between the tensor-parallel "
      "pairs (norms, dropout, residual adds) over the group, and turn each pair's all-reduces "
      "into an all-gather before it and a reduce-scatter after it (Megatron's "
      "--sequence-parallel; default: off)", NULL },
    { "no-overlap", 0, 0, G_OPTION_ARG_NONE, &a->no_overlap,
      "Start all-reduces (sync-ps --ps-push buckets: gradient pushes) only after the whole "
      "backward pass (default: overlap)", NULL },
    { "link-stats", 0, 0, G_OPTION_ARG_NONE, &a->link_stats,
      "Count the bytes every link carries: the busiest links, and the verdict names the "
      "busiest (default: off; not at --comm-granularity analytic, which sends nothing)",
      NULL },
    { "allow-oversubscribe-memory", 0, 0, G_OPTION_ARG_NONE, &a->oversubscribe,
      "Simulate a run whose model, stage or worker does not fit its GPU's memory, the "
      "verdict leading with the overflow (default: refuse it)",
      NULL },
    { "recompute", 0, 0, S, &a->recompute,
      "Activation recomputation: none, selective (the core attention: its forward again "
      "before its backward, its scores not kept) or full (each repeated block keeps its input "
      "only and runs its forward again before its backward) (default: none)", "ID" },
    { "seed", 0, 0, S, &a->seed, "Random seed, recorded in the outputs (default: 42)", "N" },
    { "dataset-size", 0, 0, S, &a->dataset_size,
      "Samples in one epoch, for the epoch time (default: the workload's dataset-samples)",
      "N" },
    { "compute-jitter", 0, 0, S, &a->compute_jitter,
      "Noise on every compute operation, seeded by --seed: lognormal:SIGMA, a factor of mean "
      "1 (default: none)", "DIST:PARAMS" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &a->quiet, "No progress line on stderr (default: a progress line when stderr is a terminal); a run estimated to take a minute or more still says so before it starts", NULL },
    { "progress", 0, 0, G_OPTION_ARG_NONE, &a->progress,
      "Progress on stderr even when it is not a terminal: a line per iteration (default: off there)",
      NULL },
    { "per-rank", 0, 0, S, &a->per_rank,
      "Write every rank's compute, wait and idle times as CSV to FILE, - for stdout (default: none)",
      "FILE" },
    { "timeline", 0, 0, S, &a->timeline,
      "Draw one iteration per GPU (compute phases, communication; parameter servers: three "
      "iterations and the shards' updates) as SVG to FILE (default: none)",
      "FILE" },
    { "timeline-ascii", 0, 0, G_OPTION_ARG_NONE, &a->timeline_ascii,
      "Print the same timeline as text after the summary (text format only)", NULL },
    { "mesh", 0, 0, S, &a->mesh,
      "Draw the rank mesh on the platform as SVG to FILE: every GPU in its node with its "
      "pipeline stage, data-parallel replica and tensor rank, and how many groups cross "
      "nodes (not for parameter servers; default: none)",
      "FILE" },
    { "mesh-ascii", 0, 0, G_OPTION_ARG_NONE, &a->mesh_ascii,
      "Print the same mesh as text after the summary (text format only)", NULL },
    { "config", 0, 0, S, NULL, "Options from a key file, group [run] (doc/SWEEP.md; default: none)", "FILE" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  dts_cli_add_entries (ctx, entries);
  if (a->rows == NULL)
    a->rows = dts_cli_row_options_new (FALSE, TRUE);
  dts_cli_add_entries (ctx, dts_cli_row_options_entries (a->rows));
}
#undef S

/* Everything that can be checked without reading a file. */
/* DtsOptionValues over the command line's row options. */
static const char *
row_value (gconstpointer rows, const char *name)
{
  return dts_cli_row_option (rows, name);
}

static gboolean
check_args (const RunArgs *a, DtsRunOptions *o, const DtsReportWriter **writer, GError **error)
{
  *writer = dts_report_writer_lookup (a->c.format ? a->c.format : "text");
  if (*writer == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "unknown --format '%s' (known: text, json, csv)",
                 a->c.format);
    return FALSE;
  }
  if (!dts_cli_parse_int_option ("batch-size", a->batch_size, 1, 1 << 20, &o->batch_size, error)
      || !dts_cli_parse_int_option ("seq-len", a->seq_len, 1, DTS_RUN_MAX_SEQ_LEN, &o->seq_len,
                                    error)
      || !dts_cli_parse_int_option ("gpus", a->c.gpus, 1, 1 << 20, &o->n_gpus, error)
      || !dts_cli_parse_int_option ("iterations", a->iterations, 1, 100000, &o->iterations, error)
      || !dts_cli_parse_int_option ("channels", a->c.channels, 1, DTS_COLL_MAX_CHANNELS, &o->channels, error)
      || !dts_cli_parse_bytes_option ("bucket-size", a->bucket_size, &o->bucket_bytes, error)
      || !dts_cli_parse_bytes_option ("chunk-size", a->c.chunk_size, &o->chunk_bytes, error)
      || !dts_cli_parse_time_option ("coll-overhead", a->c.coll_overhead, &o->coll_overhead_s,
                                     error))
    return FALSE;
  if (a->max_activities != NULL) {
    double v;
    char *end = NULL;
    v = dts_units_strtod (a->max_activities, &end);
    if (end == a->max_activities || *end != '\0' || !(v >= 1) || !(v <= 1e15))
      return dts_cli_bad_option ("max-activities", a->max_activities, "a number in 1..1e15",
                                 error);
    o->max_activities = v;
  }
  if (a->strategy != NULL) {
    if (dts_schedule_strategy_lookup (a->strategy) == NULL) {
      g_autoptr (GString) ids = g_string_new (NULL);
      for (const DtsStrategy *st = dts_schedule_strategies (); st->id; st++)
        g_string_append_printf (ids, "%s%s", ids->len ? ", " : "", st->id);
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "unknown --strategy '%s' (known: %s)",
                   a->strategy, ids->str);
      return FALSE;
    }
    o->strategy = a->strategy;
  }
  if (a->c.collective != NULL) {
    gboolean known = FALSE;
    g_autoptr (GString) ids = g_string_new (NULL);
    for (const DtsCollAlgorithm *alg = dts_coll_algorithms (); alg->id; alg++) {
      known = known || strcmp (alg->id, a->c.collective) == 0;
      g_string_append_printf (ids, "%s%s", ids->len ? ", " : "", alg->id);
    }
    known = known || dts_coll_is_tuned (a->c.collective);
    if (!known) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "unknown --collective '%s' (known: %s, auto, nccl)", a->c.collective,
                   ids->str);
      return FALSE;
    }
    o->collective = a->c.collective;
  }
  if (!dts_cli_parse_nccl_limits (&a->c, o->collective, NULL, &o->nccl, error))
    return FALSE;
  /* One synchronous parameter-server model (issue 30): --collective ps is
   * the former spelling of --strategy sync-ps and runs it, --ps-count that
   * of --ps-shards. The exception, until sync-ps sums a node's gradients
   * first: --ps-aggregation node still runs the servers as a collective of
   * data parallelism (collective/ps.c). */
  const char *aggregation = dts_cli_row_option (a->rows, "ps-aggregation");
  gboolean ps_strategy = g_strcmp0 (o->strategy, "sync-ps") == 0
                         || g_strcmp0 (o->strategy, "async-ps") == 0;
  if (g_strcmp0 (o->collective, "ps") == 0 && g_strcmp0 (aggregation, "node") != 0
      && (o->strategy == NULL || strcmp (o->strategy, "dp") == 0)) {
    const char *zero = dts_cli_row_option (a->rows, "zero");
    if (zero != NULL && strcmp (zero, "0") != 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--zero %s: not available with --collective ps (it runs --strategy sync-ps, "
                   "whose parameter servers hold and update the parameters)",
                   zero);
      return FALSE;
    }
    o->strategy = "sync-ps";
    o->collective = NULL;
    ps_strategy = TRUE;
  }
  /* Options of the rows: validated and owned by their row, then read; a
   * parameter-server strategy also takes the collective's spellings. */
  const char *collective = ps_strategy && o->collective == NULL
                               ? "ps"
                               : dts_coll_algorithm_or_default (o->collective);
  if (!dts_cli_row_options_check (a->rows, collective, o->strategy ? o->strategy : "dp", error))
    return FALSE;
  /* The strategy's row reads the values of its own options. */
  const DtsStrategy *row = dts_schedule_strategy_lookup (o->strategy ? o->strategy : "dp");
  DtsOptionValues values = { row_value, a->rows };
  if (row != NULL && row->configure != NULL && !row->configure (o, &values, error))
    return FALSE;
  if (a->recompute != NULL && !dts_recompute_from_string (a->recompute, &o->recompute, error))
    return FALSE;
  if (a->dataset_size != NULL) {
    char *end = NULL;
    double v = dts_units_strtod (a->dataset_size, &end);
    if (end == a->dataset_size || *end != '\0' || !(v >= 1) || !(v <= 1e15))
      return dts_cli_bad_option ("dataset-size", a->dataset_size, "a number of samples in 1..1e15",
                                 error);
    o->dataset_samples = v;
  }
  if (a->compute_jitter != NULL) {
    char *end = NULL;
    const char *p = g_str_has_prefix (a->compute_jitter, "lognormal:")
                        ? a->compute_jitter + strlen ("lognormal:") : NULL;
    double v = p ? dts_units_strtod (p, &end) : 0;
    if (p == NULL || end == p || *end != '\0' || !(v >= 0) || !(v <= 2))
      return dts_cli_bad_option ("compute-jitter", a->compute_jitter,
                                 "lognormal:SIGMA with SIGMA in 0..2", error);
    o->compute_jitter_sigma = v;
  }
  o->allow_oversubscribe = a->oversubscribe;
  o->sequence_parallel = a->sequence_parallel;
  o->link_stats = a->link_stats;
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
  /* auto is the default (o->granularity_auto): a granularity given by
   * name is that granularity alone */
  if (a->c.granularity != NULL && strcmp (a->c.granularity, "auto") != 0) {
    o->granularity_auto = FALSE;
    if (!dts_granularity_from_string (a->c.granularity, &o->granularity, NULL)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "unknown --comm-granularity '%s' (known: step, flow, analytic, auto)",
                   a->c.granularity);
      return FALSE;
    }
  }
  if (!dts_cli_check_output_option ("trace", a->c.trace, FALSE, error)
      || !dts_cli_check_output_option ("per-rank", a->per_rank, TRUE, error)
      || !dts_cli_check_output_option ("timeline", a->timeline, TRUE, error)
      || !dts_cli_check_output_option ("mesh", a->mesh, TRUE, error))
    return FALSE;
  const DtsCliOutput outputs[] = {
    { "trace", a->c.trace }, { "per-rank", a->per_rank }, { "timeline", a->timeline },
    { "mesh", a->mesh },
  };
  if (!dts_cli_check_distinct_outputs (outputs, G_N_ELEMENTS (outputs), error))
    return FALSE;
  /* stdout carries one result: the summary, or one file given as -. */
  int to_stdout = (g_strcmp0 (a->per_rank, "-") == 0) + (g_strcmp0 (a->timeline, "-") == 0)
                  + (g_strcmp0 (a->mesh, "-") == 0);
  if (to_stdout > 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--per-rank -, --timeline - and --mesh -: only one of them can write to "
                 "stdout");
    return FALSE;
  }
  /* o->strategy, not a->strategy: --collective ps has become sync-ps above */
  if ((a->mesh != NULL || a->mesh_ascii)
      && (g_strcmp0 (o->strategy, "async-ps") == 0 || g_strcmp0 (o->strategy, "sync-ps") == 0)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--mesh%s: parameter-server runs (--strategy %s%s) have no rank mesh",
                 a->mesh_ascii && a->mesh == NULL ? "-ascii" : "", o->strategy,
                 g_strcmp0 (a->strategy, o->strategy) != 0 ? ", which --collective ps runs" : "");
    return FALSE;
  }
  if (a->mesh_ascii && (*writer)->write != dts_report_write_text) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--mesh-ascii prints after the text summary; --format %s keeps stdout for "
                 "its own output (use --mesh FILE.svg)",
                 a->c.format);
    return FALSE;
  }
  if (a->timeline_ascii && (*writer)->write != dts_report_write_text) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--timeline-ascii prints after the text summary; --format %s keeps stdout for "
                 "its own output (use --timeline FILE.svg)",
                 a->c.format);
    return FALSE;
  }
  return dts_sim_cfg_check (a->c.cfg, error);
}

gboolean
dts_cmd_run_accepts (char **args)
{
  g_auto (RunArgs) a = { 0 };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  add_entries (ctx, &a);
  return dts_cli_trial_parse (ctx, args);
}

gboolean
dts_cmd_run_check_sweep_base (char **args, GError **error)
{
  g_auto (RunArgs) a = { 0 };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  add_entries (ctx, &a);
  if (!dts_cli_trial_parse (ctx, args))
    return TRUE;
  const char *file = a.c.trace      ? "trace"
                     : a.timeline   ? "timeline"
                     : a.mesh       ? "mesh"
                     : a.per_rank   ? "per-rank"
                                    : NULL;
  if (file != NULL && g_strcmp0 (a.per_rank, "-") != 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "base run options: --%s writes one file, which every point would replace (a "
                 "sweep keeps each point's results in DIR/points/; run a point alone with "
                 "'dtsim run --%s')", file, file);
    return FALSE;
  }
  const char *out = a.per_rank ? "per-rank -" : a.c.dump_plan ? "dump-plan"
                  : a.timeline_ascii ? "timeline-ascii" : a.mesh_ascii ? "mesh-ascii" : NULL;
  if (out != NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "base run options: --%s prints instead of the JSON result a sweep reads "
                 "from every point's standard output", out);
    return FALSE;
  }
  return TRUE;
}

gboolean
dts_cmd_run (int argc, char **argv, GError **error)
{
  g_auto (RunArgs) a = { 0 };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  g_option_context_set_summary (
      ctx, "Simulate training under a parallel strategy (--strategy help lists them):\n"
           "by default data parallelism (PyTorch DDP / Horovod style): forward,\n"
           "backward with gradient buckets all-reduced (--collective: an NCCL-style\n"
           "ring, NCCL's own choice, parameter servers, ...) while backprop goes on,\n"
           "then the optimizer update; also pipeline, hybrid (data x pipeline x\n"
           "tensor) and synchronous or asynchronous parameter servers. Without\n"
           "options, " DTS_DEFAULT_WORKLOAD " on the shipped " DTS_DEFAULT_PLATFORM " platform.");
  add_entries (ctx, &a);
  g_autoptr (GString) models = g_string_new ("Cost models (--cost-model):\n");
  for (const DtsCostModelClass *const *m = dts_cost_models (); *m; m++)
    g_string_append_printf (models, "  %-13s %s\n", (*m)->id, (*m)->description);
  g_option_context_set_description (ctx, models->str);
  gboolean help = FALSE;
  if (!dts_cli_parse (ctx, "run", &argc, &argv, &help, error))
    return FALSE;
  if (help)
    return TRUE;
  if (!dts_cli_no_arguments (argc, argv, "run", error))
    return FALSE;
  if (g_strcmp0 (a.strategy, "help") == 0) {
    dts_cli_list_strategies ();
    return TRUE;
  }
  if (g_strcmp0 (a.c.collective, "help") == 0) {
    dts_cli_list_collectives ();
    return TRUE;
  }

  DtsRunOptions o = {
    .n_gpus = 0,
    .batch_size = 0,
    .iterations = DTS_RUN_DEFAULT_ITERATIONS,
    .precision = DTS_PREC_COUNT,
    .cost_model = a.cost_model ? a.cost_model : "roofline",
    .framework = a.framework,
    .collective = NULL, /* the driver's default (nccl) where the strategy runs one */
    .bucket_bytes = DTS_RUN_DEFAULT_BUCKET_BYTES,
    .chunk_bytes = DTS_COLL_DEFAULT_CHUNK_BYTES,
    .channels = DTS_COLL_DEFAULT_CHANNELS,
    .overlap = !a.no_overlap,
    .seed = DTS_RUN_DEFAULT_SEED,
    .granularity = DTS_GRANULARITY_FLOW,
    .granularity_auto = TRUE,
    .cfg = a.c.cfg,
    .trace_path = a.c.trace,
    .record_slices = a.c.trace != NULL || a.timeline != NULL || a.timeline_ascii,
    .progress = a.quiet                    ? 0
                : isatty (STDERR_FILENO)   ? DTS_PROGRESS_LIVE
                : a.progress               ? DTS_PROGRESS_LINES
                                           : 0,
    .long_run_notice = TRUE,
  };
  const DtsReportWriter *writer = NULL;
  if (!check_args (&a, &o, &writer, error))
    return FALSE;
  g_autoptr (GArray) overrides = dts_cli_parse_overrides (a.c.set, a.c.scale, error);
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
      "platforms", a.c.platform ? a.c.platform : DTS_DEFAULT_PLATFORM, ".xml", "platform", error);
  if (platform_path == NULL)
    return FALSE;
  g_autofree char *workload_path = dts_datadir_resolve (
      "workloads", a.workload ? a.workload : DTS_DEFAULT_WORKLOAD, ".xml", "workload", error);
  if (workload_path == NULL)
    return FALSE;
  o.platform_path = platform_path;
  o.workload_path = workload_path;

  /* Fail on an unwritable trace file before a possibly long simulation. */
  if ((o.trace_path != NULL && !dts_cli_check_writable (o.trace_path, "trace", error))
      || (a.per_rank != NULL && !dts_cli_check_writable (a.per_rank, "per-rank table", error))
      || (a.timeline != NULL && !dts_cli_check_writable (a.timeline, "timeline", error))
      || (a.mesh != NULL && !dts_cli_check_writable (a.mesh, "mesh", error)))
    return FALSE;

  g_autoptr (GString) plan = a.c.dump_plan ? g_string_new (NULL) : NULL;
  o.dump_plan = plan;
  g_autoptr (DtsTrace) trace = NULL;
  g_autoptr (DtsRunSummary) summary = dts_driver_run_training (&o, &trace, error);
  if (plan != NULL && summary == NULL && (error == NULL || *error == NULL)) {
    fwrite (plan->str, 1, plan->len, stdout);
    return TRUE;
  }
  if (summary == NULL)
    return FALSE;

  if (o.trace_path != NULL) {
    g_autoptr (GString) tr = g_string_new (NULL);
    dts_report_write_chrome_trace (trace, summary, tr);
    if (!dts_report_save (tr, o.trace_path, "trace", error))
      return FALSE;
  }
  /* What goes to stdout: the summary, or the one file given as - in its
   * place, written after every file. */
  g_autoptr (GString) out = g_string_new (NULL);
  if (a.per_rank != NULL) {
    g_autoptr (GString) pr = g_string_new (NULL);
    dts_report_write_ranks_csv (summary, pr);
    if (strcmp (a.per_rank, "-") == 0)
      g_string_append_len (out, pr->str, (gssize) pr->len);
    else if (!dts_report_save (pr, a.per_rank, "per-rank table", error))
      return FALSE;
  }
  if (a.timeline != NULL) {
    g_autoptr (GString) svg = g_string_new (NULL);
    dts_timeline_write_svg (trace, summary, svg);
    if (strcmp (a.timeline, "-") == 0)
      g_string_append_len (out, svg->str, (gssize) svg->len);
    else if (!dts_report_save (svg, a.timeline, "timeline", error))
      return FALSE;
  }
  if ((a.mesh != NULL || a.mesh_ascii) && summary->mesh == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--mesh%s: parameter-server runs (--strategy %s) have no rank mesh",
                 a.mesh_ascii ? "-ascii" : "", summary->strategy);
    return FALSE;
  }
  if (a.mesh != NULL) {
    g_autoptr (GString) svg = g_string_new (NULL);
    dts_mesh_write_svg (summary, svg);
    if (strcmp (a.mesh, "-") == 0)
      g_string_append_len (out, svg->str, (gssize) svg->len);
    else if (!dts_report_save (svg, a.mesh, "mesh", error))
      return FALSE;
  }
  if (g_strcmp0 (a.per_rank, "-") == 0 || g_strcmp0 (a.timeline, "-") == 0
      || g_strcmp0 (a.mesh, "-") == 0) {
    fwrite (out->str, 1, out->len, stdout);
    return TRUE;
  }
  writer->write (summary, out);
  if (a.timeline_ascii) {
    g_string_append_c (out, '\n');
    dts_timeline_write_ascii (trace, summary, DTS_TIMELINE_ASCII_WIDTH, out);
  }
  if (a.mesh_ascii) {
    g_string_append_c (out, '\n');
    dts_mesh_write_ascii (summary, out);
  }
  fwrite (out->str, 1, out->len, stdout);
  return TRUE;
}
