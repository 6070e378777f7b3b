/* cmd-sweep.c - `dtsim sweep`: what-if studies in one command.
 *
 * A sweep is a base `dtsim run` configuration (the run options on the
 * command line, or --config FILE) and axes (--vary, sweep-axis.c). Every
 * point is one child `dtsim run --format json` process, -j at a time; its
 * JSON is kept as OUT/points/NAME.json, NAME derived from the point's values
 * and a hash of its whole run command line, and is written under a
 * temporary name first, so that a file with the final name is a finished
 * run: a sweep started again (after a crash, a kill, new axis values) only
 * runs the points without a valid file. OUT/sweep.ini lists the points; the
 * outputs (results.csv, results.jsonl, wall-times.csv and with --plot the
 * gnuplot scripts and pictures) are computed from it and the point files
 * only, in point order, which is why they are the same bytes whatever -j
 * and whoever ran the points: `--emit slurm|parallel` writes the same points
 * as a Slurm job array or a GNU parallel job list, and `--collect OUT`
 * merges what they produced.
 *
 * --where and --best (sweep-select.c) choose among the points once the
 * outputs are written: the best are printed after the table, every other
 * point with why it was not chosen, and results.csv/jsonl carry each
 * point's verdict. With them, or with a mesh axis (TPxPPxDP splits, which
 * `dtsim run` often refuses), a run that ends with its own error is a
 * result: its message is kept as OUT/points/NAME.json.failed and the sweep
 * goes on; without them the first such point stops the sweep, as before.
 *
 * One sweep per folder: every mode holds an advisory lock (flock) on
 * OUT/sweep.lock, which names its holder's pid, while it writes in OUT; a
 * second sweep there fails at once naming it. The lock goes with the
 * process, however it ends, and so do its points: each child is killed
 * when the sweep dies (PR_SET_PDEATHSIG), so that a sweep resumed after a
 * kill -9 never meets a point of the old one still writing. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "cli/cli-private.h"
#include "core/datadir.h"
#include "core/error.h"
#include "core/input.h"
#include "core/quote.h"
#include "core/units.h"
#include "platform/gpu.h"
#include "platform/platform.h"
#include "schedule/schedule.h"
#include "workload/workload.h"

#define DEFAULT_OUTPUT "sweep-out"

typedef struct {
  char **vary;
  gboolean zip;
  char *jobs;
  char *output;
  gboolean progress;
  gboolean quiet;
  gboolean plot;
  char *emit;
  char *collect;
  char *dtsim;
  char **where;
  char *best;
  char *global_batch;
  char *micro_batch_size;
  char *max_cp;
} SweepArgs;

static void
sweep_args_clear (SweepArgs *a)
{
  g_strfreev (a->vary);
  g_free (a->jobs);
  g_free (a->output);
  g_free (a->emit);
  g_free (a->collect);
  g_free (a->dtsim);
  g_strfreev (a->where);
  g_free (a->best);
  g_free (a->global_batch);
  g_free (a->micro_batch_size);
  g_free (a->max_cp);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SweepArgs, sweep_args_clear)

#define S G_OPTION_ARG_STRING
static void
add_entries (GOptionContext *ctx, SweepArgs *a)
{
  GOptionEntry entries[] = {
    { "vary", 'V', 0, G_OPTION_ARG_STRING_ARRAY, &a->vary,
      "An axis: a run option or what-if target and its values, repeatable "
      "(gpus=4,8,16; batch-size=32:256:x2; 'link:*-ib.bandwidth=25Gbps,100Gbps'; "
      "scale:network.bandwidth=0.5,1,2; mesh=8x4x2,4x8x2 for TPxPPxDP splits of --strategy "
      "hybrid, 8x4x2x2 with context parallelism CP, mesh=auto for every split of the GPUs)",
      "KEY=VALUES" },
    { "zip", 0, 0, G_OPTION_ARG_NONE, &a->zip,
      "Pair the axes value by value instead of taking every combination", NULL },
    { "jobs", 'j', 0, S, &a->jobs, "Points run at a time (default: 1)", "N" },
    { "output", 'o', 0, S, &a->output,
      "Output directory, also for resuming (default: " DEFAULT_OUTPUT ")", "DIR" },
    { "progress", 0, 0, G_OPTION_ARG_NONE, &a->progress,
      "Progress with ETA on stderr even when it is not a terminal (a line per point)", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &a->quiet, "No progress and no notes on stderr", NULL },
    { "plot", 0, 0, G_OPTION_ARG_NONE, &a->plot,
      "Also write gnuplot scripts and, with gnuplot, PNG and SVG plots", NULL },
    { "emit", 0, 0, S, &a->emit,
      "Do not run: write the points as a Slurm job array (slurm: DIR/sweep.slurm) or a "
      "GNU parallel job list (parallel: DIR/jobs.txt)", "KIND" },
    { "collect", 0, 0, S, &a->collect,
      "Do not run: merge the point results in DIR (after --emit) into its results", "DIR" },
    { "where", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->where,
      "A constraint on a column of results.csv, repeatable: COLUMN OP VALUE (OP: >=, <=, >, "
      "<, ==, !=), COLUMN (true) or !COLUMN (false); points that do not run are reported, "
      "not fatal ('fits', 'iteration_time_s<0.5')", "COND" },
    { "best", 0, 0, S, &a->best,
      "Print the best points that meet the constraints: max:COLUMN or min:COLUMN "
      "(max:throughput_samples_per_s)", "max|min:COLUMN" },
    { "global-batch", 0, 0, S, &a->global_batch,
      "With a mesh axis: samples per iteration at every split (--batch-size is this over DP; "
      "default: the base's --batch-size per replica)", "N" },
    { "micro-batch-size", 0, 0, S, &a->micro_batch_size,
      "With --global-batch: samples per micro-batch and replica (--micro-batches is the "
      "global batch over DP x this; default: the base's --micro-batches)", "N" },
    { "max-context-parallel", 0, 0, S, &a->max_cp,
      "With mesh=auto: also try context parallelism CP up to N, where the workload's "
      "attention allows it (splits TPxPPxDPxCP; default: 1, none)", "N" },
    { "dtsim", 0, 0, S, &a->dtsim,
      "The dtsim that runs the points (default: this one, by its absolute path)", "PATH" },
    { "config", 0, 0, S, NULL,
      "Key file: group [run] is the base run, group [sweep] these options (doc/SWEEP.md; "
      "default: none)",
      "FILE" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  dts_cli_add_entries (ctx, entries);
}
#undef S

gboolean
dts_cmd_sweep_accepts (char **args)
{
  g_auto (SweepArgs) a = { 0 };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  add_entries (ctx, &a);
  return dts_cli_trial_parse (ctx, args);
}

/* Fail with the first of the base run options (BASE) that `dtsim run`
 * would refuse: after the longest prefix of BASE that it accepts (a prefix
 * may stop between an option and its value). */
static gboolean
check_base (char *const *base, GError **error)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_ptr_array_add (args, (char *) "run");
  guint n = 0, accepted = 0;
  for (char *const *b = base; *b; b++) {
    g_ptr_array_add (args, *b);
    g_ptr_array_add (args, NULL);
    n++;
    if (dts_cmd_run_accepts ((char **) args->pdata))
      accepted = n;
    g_ptr_array_remove_index (args, args->len - 1);
  }
  if (accepted == n) {
    g_ptr_array_add (args, NULL);
    if (!dts_cmd_run_check_sweep_base ((char **) args->pdata, error))
      return FALSE;
    /* Each goes into sweep.ini's commands and the --emit job lists. */
    g_autoptr (GError) local = NULL;
    for (char *const *b = base; *b; b++)
      if (!dts_quote_check (*b, -1, "base run option", "a sweep's command lines", &local)) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "%s", local->message);
        return FALSE;
      }
    return TRUE;
  }
  g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
               "base run options: 'dtsim run' does not accept '%s' (an unknown option, a "
               "missing value or a stray argument; see 'dtsim run --help')", base[accepted]);
  return FALSE;
}

/* ---- points ---------------------------------------------------------------- */

typedef struct {
  char **args;  /* "run", options...: the child's argv after the binary */
  char *file;   /* "points/NAME.json", relative to the output directory */
  char **values;
  char *label;  /* "KEY=V KEY2=W", for messages */
  guint series;
  char *series_label;
} Point;

static void
point_clear (gpointer p)
{
  Point *pt = p;
  g_strfreev (pt->args);
  g_free (pt->file);
  g_strfreev (pt->values);
  g_free (pt->label);
  g_free (pt->series_label);
}

/* Runs of characters a file name should not hold become one '-'. */
static void
append_sanitized (GString *s, const char *text)
{
  gboolean dash = FALSE;
  for (const char *c = text; *c; c++) {
    gboolean ok = g_ascii_isalnum (*c) || strchr (".+_", *c) != NULL;
    if (ok) {
      if (dash && s->len > 0 && s->str[s->len - 1] != '_' && s->str[s->len - 1] != '=')
        g_string_append_c (s, '-');
      g_string_append_c (s, *c);
    }
    dash = !ok;
  }
}

/* The number of ranks that make the first NODES nodes of the platform
 * NAME: the largest N whose first N ranks span NODES nodes. Platforms are
 * loaded once (CACHE: path -> DtsPlatform). */
static int
gpus_of_nodes (const char *name, int nodes, GHashTable *cache, DtsGpuCatalog **catalog,
               GError **error)
{
  g_autofree char *path = dts_datadir_resolve ("platforms", name, ".xml", "platform", error);
  if (path == NULL)
    return -1;
  DtsPlatform *platform = g_hash_table_lookup (cache, path);
  if (platform == NULL) {
    if (*catalog == NULL && (*catalog = dts_gpu_catalog_load (NULL, error)) == NULL)
      return -1;
    if ((platform = dts_platform_load (path, *catalog, error)) == NULL)
      return -1;
    g_hash_table_insert (cache, g_strdup (path), platform);
  }
  int n_ranks = (int) platform->gpus->len, gpus = 0;
  for (int n = 1; n <= n_ranks; n++)
    if (dts_platform_count_nodes (platform, n) == nodes)
      gpus = n;
  if (gpus == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "nodes=%d: platform '%s' has %d node%s",
                 nodes, name, (int) platform->nodes->len, platform->nodes->len == 1 ? "" : "s");
    return -1;
  }
  return gpus;
}

/* The value the base gives option --LONG (or -SHORT, when not 0), its last
 * if several, or NULL. */
static const char *
base_value (char *const *base, const char *lng, char shrt)
{
  const char *v = NULL;
  for (char *const *b = base; *b;) {
    const char *value;
    int span;
    if (dts_cli_word_option (b, lng, shrt, &value, &span) && value != NULL)
      v = value;
    b += span;
  }
  return v;
}

/* The platform a run with options ARGS (NULL-terminated) would load: its
 * last --platform/-p, else the default. */
static const char *
platform_of (char *const *args)
{
  const char *p = base_value (args, "platform", 'p');
  return p != NULL ? p : DTS_DEFAULT_PLATFORM;
}

/* The last --gpus/-n of the base run options, or 0. */
static int
gpus_of_base (char *const *base)
{
  const char *g = base_value (base, "gpus", 'n');
  guint64 n = 0;
  return g && g_ascii_string_to_unsigned (g, 10, 1, 1 << 20, &n, NULL) ? (int) n : 0;
}

/* The sequence that context parallelism would split in the base's
 * workload (at its --seq-len): the greatest common divisor of its
 * attention layers' sequences, or 0 where it has none or one that is not
 * fused (what `dtsim run --context-parallel` refuses). *NAME: the
 * workload's name (owned). */
static int
cp_tokens_of_base (char *const *base, char **name, GError **error)
{
  const char *wl = base_value (base, "workload", 'w');
  const char *seq = base_value (base, "seq-len", 0);
  guint64 seq_len = 0;
  if (seq != NULL && !g_ascii_string_to_unsigned (seq, 10, 1, G_MAXINT, &seq_len, NULL))
    seq_len = 0; /* the run says what is wrong with it */
  g_autofree char *path = dts_datadir_resolve ("workloads", wl ? wl : DTS_DEFAULT_WORKLOAD,
                                               ".xml", "workload", error);
  if (path == NULL)
    return -1;
  g_autoptr (DtsWorkload) w = dts_workload_load_seq (path, (int) seq_len, error);
  if (w == NULL)
    return -1;
  *name = g_strdup (w->name);
  const DtsLayer *unfused = NULL;
  int tokens = dts_schedule_context_tokens (w, &unfused);
  return unfused != NULL ? 0 : tokens;
}

/* VARY with mesh=auto replaced by the splits of the base's GPU count (its
 * --gpus, else every GPU of its platform) that dts_sweep_mesh_enumerate
 * keeps; NOTE says which and what it left out (owned). */
static char **
expand_mesh (char *const *vary, char *const *base, int global_batch, int mbs, int max_cp,
             GString *note, GError **error)
{
  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func (g_free);
  for (char *const *v = vary; v && *v; v++) {
    if (strcmp (*v, "mesh=auto") != 0) {
      g_ptr_array_add (out, g_strdup (*v));
      continue;
    }
    /* The splits are those of one GPU count on one platform. */
    for (char *const *o = vary; *o; o++)
      if (g_str_has_prefix (*o, "platform=") || g_str_has_prefix (*o, "nodes=")) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "--vary 'mesh=auto' enumerates the splits of the base's platform and "
                     "GPUs: it cannot be beside --vary '%s' (list the splits instead)", *o);
        return NULL;
      }
    const char *platform = platform_of (base);
    g_autoptr (GHashTable) platforms = g_hash_table_new_full (
        g_str_hash, g_str_equal, g_free, (GDestroyNotify) dts_platform_free);
    g_autoptr (DtsGpuCatalog) catalog = NULL;
    int per_node = gpus_of_nodes (platform, 1, platforms, &catalog, error);
    if (per_node < 0) {
      g_prefix_error (error, "--vary 'mesh=auto': ");
      return NULL;
    }
    int n = gpus_of_base (base);
    if (n == 0) {
      g_autofree char *path = dts_datadir_resolve ("platforms", platform, ".xml", "platform",
                                                   error);
      const DtsPlatform *pf = path ? g_hash_table_lookup (platforms, path) : NULL;
      if (pf == NULL)
        return NULL;
      n = (int) pf->gpus->len;
    }
    /* Context parallelism is enumerated for the base's workload: not
     * beside an axis that changes the workload or its sequence. */
    const char *per_point = NULL;
    for (char *const *o = vary; *o && per_point == NULL; o++)
      if (g_str_has_prefix (*o, "workload=") || g_str_has_prefix (*o, "seq-len="))
        per_point = *o;
    if (per_point != NULL && max_cp > 1) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--max-context-parallel enumerates the context parallelism of the base's "
                   "workload: it cannot be beside --vary '%s' (list the splits instead)",
                   per_point);
      return NULL;
    }
    g_autofree char *wname = NULL;
    int cp_tokens = per_point != NULL ? 0 : cp_tokens_of_base (base, &wname, error);
    if (cp_tokens < 0) {
      g_prefix_error (error, "--vary 'mesh=auto': ");
      return NULL;
    }
    guint excluded[DTS_SWEEP_MESH_N_EXCLUDED];
    g_auto (GStrv) splits = dts_sweep_mesh_enumerate (n, per_node, global_batch, mbs,
                                                      cp_tokens, max_cp, excluded);
    guint total = g_strv_length (splits);
    g_string_append_printf (note, "mesh=auto: %d GPUs, %d per node: %u split%s TPxPPxDP", n,
                            per_node, total, total == 1 ? "" : "s");
    if (cp_tokens > 0 && max_cp > 1)
      g_string_append_printf (note, "[xCP] (context parallelism CP up to %d where 2 CP divides "
                              "the %d tokens of %s's attention)",
                              max_cp, cp_tokens, wname);
    else if (cp_tokens > 0)
      g_string_append_printf (note, " (context parallelism not tried: --max-context-parallel "
                              "N tries CP up to N)");
    else if (max_cp > 1 && wname != NULL)
      g_string_append_printf (note, " (no context parallelism: %s has no fused attention "
                              "layer whose sequence could be split)",
                              wname);
    if (excluded[DTS_SWEEP_MESH_TP_ACROSS_NODES] > 0)
      g_string_append_printf (note, "; %u left out whose TP does not divide the %d GPUs of a "
                              "node (tensor parallelism stays inside a node)",
                              excluded[DTS_SWEEP_MESH_TP_ACROSS_NODES], per_node);
    if (excluded[DTS_SWEEP_MESH_BATCH] > 0)
      g_string_append_printf (note, "; %u left out whose DP x micro-batch size does not "
                              "divide the global batch of %d",
                              excluded[DTS_SWEEP_MESH_BATCH], global_batch);
    if (total == 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--vary 'mesh=auto': no split is left (%s)",
                   note->str);
      return NULL;
    }
    g_string_append_c (note, '\n');
    g_autofree char *list = g_strjoinv (",", splits);
    g_ptr_array_add (out, g_strconcat ("mesh=", list, NULL));
  }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&out), FALSE);
}

static GArray *
make_points (const DtsSweepPlan *plan, char *const *base, GError **error)
{
  const DtsSweepAxis *mesh = NULL;
  guint mesh_at = 0;
  for (guint a = 0; a < plan->axes->len; a++)
    if (((DtsSweepAxis *) g_ptr_array_index (plan->axes, a))->kind == DTS_SWEEP_MESH) {
      mesh = g_ptr_array_index (plan->axes, a);
      mesh_at = a;
    }
  g_autoptr (GHashTable) platforms = g_hash_table_new_full (
      g_str_hash, g_str_equal, g_free, (GDestroyNotify) dts_platform_free);
  g_autoptr (DtsGpuCatalog) catalog = NULL;
  GArray *points = g_array_sized_new (FALSE, TRUE, sizeof (Point), plan->n_points);
  g_array_set_clear_func (points, point_clear);
  for (guint p = 0; p < plan->n_points; p++) {
    /* NULL-terminated throughout: platform_of reads it as it grows */
    g_autoptr (GPtrArray) args = g_ptr_array_new_null_terminated (0, g_free, TRUE);
    g_autoptr (GPtrArray) values = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (GString) name = g_string_new ("points/");
    g_autoptr (GString) label = g_string_new (NULL);
    g_ptr_array_add (args, g_strdup ("run"));
    /* a split without tensor parallelism drops the base's
     * --sequence-parallel (tensor parallelism's: a mixture of experts needs
     * it wherever TP > 1, and dtsim run refuses it at TP 1) */
    int t = 0, pp, d, c;
    if (mesh != NULL
        && !dts_sweep_mesh_parse (mesh->values[dts_sweep_plan_value (plan, p, mesh_at)], &t, &pp,
                                  &d, &c, NULL))
      g_return_val_if_reached (NULL);
    int skip = 1;
    for (char *const *b = base; b && *b; b += skip)
      if (t == 1 && strcmp (*b, "--sequence-parallel") == 0)
        skip = 1;
      else if (mesh == NULL || !dts_sweep_mesh_sets (mesh, b, &skip))
        for (int i = 0; i < skip; i++)
          g_ptr_array_add (args, g_strdup (b[i]));
    for (guint a = 0; a < plan->axes->len; a++) {
      const DtsSweepAxis *axis = g_ptr_array_index (plan->axes, a);
      guint v = dts_sweep_plan_value (plan, p, a);
      dts_sweep_axis_append_args (axis, v, args);
      g_ptr_array_add (values, g_strdup (axis->values[v]));
      g_string_append_printf (label, "%s%s=%s", a ? " " : "", axis->key, axis->values[v]);
      if (a > 0)
        g_string_append_c (name, '_');
      gsize at = name->len;
      append_sanitized (name, g_str_has_prefix (axis->key, "link:") ? axis->key + 5
                                                                   : axis->key);
      if (name->len > at + 40)
        g_string_truncate (name, at + 40);
      g_string_append_c (name, '=');
      append_sanitized (name, axis->values[v]);
    }
    for (guint a = 0; a < plan->axes->len; a++) {
      const DtsSweepAxis *axis = g_ptr_array_index (plan->axes, a);
      if (axis->kind != DTS_SWEEP_NODES)
        continue;
      /* Checked to be an integer from 1 by the axis parser. */
      int nodes = (int) g_ascii_strtoll (axis->values[dts_sweep_plan_value (plan, p, a)], NULL, 10);
      const char *platform = platform_of ((char *const *) args->pdata);
      int gpus = gpus_of_nodes (platform, nodes, platforms, &catalog, error);
      if (gpus < 0) {
        g_prefix_error (error, "--vary '%s': ", axis->key);
        g_array_unref (points);
        return NULL;
      }
      g_ptr_array_add (args, g_strdup_printf ("--gpus=%d", gpus));
    }
    g_ptr_array_add (args, g_strdup ("--format=json"));
    g_ptr_array_add (args, g_strdup ("--quiet"));
    g_ptr_array_add (values, NULL);
    g_ptr_array_add (args, NULL);
    /* An axis may set an output option too (the base is checked already). */
    if (p == 0 && !dts_cmd_run_check_sweep_base ((char **) args->pdata, error)) {
      g_array_unref (points);
      return NULL;
    }
    /* The hash covers the whole command line: another base configuration
     * never reuses these results. */
    g_autoptr (GString) all = g_string_new (NULL);
    for (guint i = 0; i + 1 < args->len; i++)
      g_string_append_printf (all, "%s\n", (char *) g_ptr_array_index (args, i));
    g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA1, all->str, all->len);
    if (name->len > 180)
      g_string_truncate (name, 180);
    g_string_append_printf (name, "-%.8s.json", sum);
    Point pt = {
      .args = (char **) g_ptr_array_free (g_steal_pointer (&args), FALSE),
      .file = g_string_free (g_steal_pointer (&name), FALSE),
      .values = (char **) g_ptr_array_free (g_steal_pointer (&values), FALSE),
      .label = g_string_free (g_steal_pointer (&label), FALSE),
      .series = dts_sweep_plan_series (plan, p),
      .series_label = dts_sweep_plan_series_label (plan, p),
    };
    g_array_append_val (points, pt);
  }
  return points;
}

/* The result in file PATH, or NULL with the reason. */
static DtsSweepResult *
load_result_path (const char *path, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *text = dts_input_read_regular (path, "point file", error);
  if (text == NULL)
    return NULL;
  DtsSweepResult *r = dts_sweep_result_parse (text, &local);
  if (r == NULL)
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "%s: %s", path, local->message);
  return r;
}

/* The result of the point whose file is FILE in DIR. */
static DtsSweepResult *
load_result (const char *dir, const char *file, GError **error)
{
  g_autofree char *path = g_build_filename (dir, file, NULL);
  return load_result_path (path, error);
}

/* ---- the manifest, OUT/sweep.ini --------------------------------------------- */

/* The sh command line that runs DTSIM with ARGS, for the script INTO
 * (core/quote.h); NULL with ERROR set when one cannot be written safely. */
static char *
command_line (const char *dtsim, char *const *args, const char *into, GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);
  g_autofree char *q = dts_quote_shell_command (dtsim, "--dtsim", into, error);
  if (q == NULL)
    return NULL;
  g_string_append (s, q);
  for (char *const *a = args; *a; a++) {
    g_autofree char *qa = dts_quote_shell (*a, "run option", into, error);
    if (qa == NULL)
      return NULL;
    g_string_append_printf (s, " %s", qa);
  }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static gboolean
write_file (const char *dir, const char *name, const char *text, gsize len, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) local = NULL;
  if (!g_file_set_contents (path, text, (gssize) len, &local)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s: cannot write: %s", path, local->message);
    return FALSE;
  }
  return TRUE;
}

static gboolean
write_manifest (const char *dir, const DtsSweepPlan *plan, const GArray *points,
                GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GPtrArray) keys = g_ptr_array_new ();
  for (guint a = 0; a < plan->axes->len; a++)
    g_ptr_array_add (keys, ((DtsSweepAxis *) g_ptr_array_index (plan->axes, a))->key);
  g_key_file_set_comment (kf, NULL, NULL,
                          " dtsim sweep: the points of this directory ('dtsim sweep --collect' "
                          "reads it)", NULL);
  g_key_file_set_string_list (kf, "sweep", "axes", (const char *const *) keys->pdata, keys->len);
  g_key_file_set_boolean (kf, "sweep", "zip", plan->zip);
  g_key_file_set_integer (kf, "sweep", "points", (int) points->len);
  for (guint p = 0; p < points->len; p++) {
    const Point *pt = &g_array_index (points, Point, p);
    g_autofree char *group = g_strdup_printf ("point %u", p + 1);
    g_key_file_set_string (kf, group, "file", pt->file);
    g_key_file_set_string_list (kf, group, "values", (const char *const *) pt->values,
                                g_strv_length (pt->values));
    g_key_file_set_integer (kf, group, "series", (int) pt->series);
    g_key_file_set_string (kf, group, "series-label", pt->series_label);
    g_autofree char *cmd = command_line ("dtsim", pt->args, "sweep.ini", error);
    if (cmd == NULL)
      return FALSE;
    g_key_file_set_string (kf, group, "command", cmd);
  }
  gsize len = 0;
  g_autofree char *text = g_key_file_to_data (kf, &len, NULL);
  return write_file (dir, "sweep.ini", text, len, error);
}

/* Whether FILE, a point file named by a manifest, stays inside the results
 * folder: a relative path with no ".." (a manifest made elsewhere could
 * name ../../../dev/zero). */
static gboolean
inside_folder (const char *file)
{
  if (*file == '\0' || g_path_is_absolute (file))
    return FALSE;
  g_auto (GStrv) parts = g_strsplit (file, "/", -1);
  for (char **p = parts; *p; p++)
    if (strcmp (*p, "..") == 0)
      return FALSE;
  return TRUE;
}

/* The record of a point whose run refused or failed, POINT_FILE.failed:
 * its exit status on the first line, its error message on the second. */
static char *
failure_path (const char *dir, const char *point_file)
{
  return g_strconcat (dir, G_DIR_SEPARATOR_S, point_file, ".failed", NULL);
}

static gboolean
write_failure (const char *path, int exit_status, const char *why, GError **error)
{
  g_autofree char *text = g_strdup_printf ("%d\n%s\n", exit_status, why);
  g_autoptr (GError) local = NULL;
  if (!g_file_set_contents (path, text, -1, &local)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s: cannot write: %s", path, local->message);
    return FALSE;
  }
  return TRUE;
}

/* Fill ROW's status and reason from the failure record of the point FILE
 * in DIR; FALSE when there is none (or it is not one). */
static gboolean
load_failure (const char *dir, const char *file, DtsSweepRow *row)
{
  g_autofree char *path = failure_path (dir, file);
  g_autofree char *text = dts_input_read_regular (path, "failure record", NULL);
  if (text == NULL)
    return FALSE;
  g_auto (GStrv) lines = g_strsplit (text, "\n", 3);
  guint64 status;
  if (g_strv_length (lines) < 2
      || !g_ascii_string_to_unsigned (lines[0], 10, 1, 2, &status, NULL))
    return FALSE;
  row->status = status == 2 ? "invalid" : "failed";
  row->reason = g_strdup (lines[1]);
  return TRUE;
}

/* The rows of the sweep in DIR from its manifest; every point must have a
 * valid result or a failure record. */
static GPtrArray *
load_rows (const char *dir, char ***axes_out, GError **error)
{
  g_autofree char *path = g_build_filename (dir, "sweep.ini", NULL);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) local = NULL;
  g_autofree char *text = dts_input_read_regular (path, "sweep manifest", &local);
  if (text == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_NOT_FOUND,
                 "%s (not the output directory of 'dtsim sweep'?)", local->message);
    return NULL;
  }
  if (!g_key_file_load_from_data (kf, text, (gsize) -1, G_KEY_FILE_NONE, &local)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s: %s", path, local->message);
    return NULL;
  }
  g_auto (GStrv) axes = g_key_file_get_string_list (kf, "sweep", "axes", NULL, &local);
  int n = axes ? g_key_file_get_integer (kf, "sweep", "points", &local) : 0;
  if (axes == NULL || local != NULL || n < 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "%s: [sweep]: %s", path,
                 local ? local->message : "no points");
    return NULL;
  }
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func (
      (GDestroyNotify) dts_sweep_row_free);
  int missing = 0;
  g_autoptr (GError) first_missing = NULL;
  for (int p = 1; p <= n; p++) {
    g_autofree char *group = g_strdup_printf ("point %d", p);
    DtsSweepRow *row = g_new0 (DtsSweepRow, 1);
    g_ptr_array_add (rows, row);
    row->file = g_key_file_get_string (kf, group, "file", &local);
    if (row->file != NULL)
      row->values = g_key_file_get_string_list (kf, group, "values", NULL, &local);
    if (row->values != NULL)
      row->series_label = g_key_file_get_string (kf, group, "series-label", &local);
    if (row->series_label != NULL)
      row->series = (guint) g_key_file_get_integer (kf, group, "series", &local);
    if (local != NULL || g_strv_length (row->values) != g_strv_length (axes)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "%s: [%s]: %s", path, group,
                   local ? local->message : "one value per axis expected");
      return NULL;
    }
    if (!inside_folder (row->file)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "%s: [%s]: file '%s' is not inside the results folder (expected a "
                   "relative path without '..', as points/NAME.json)", path, group, row->file);
      return NULL;
    }
    g_autoptr (GError) why = NULL;
    row->result = load_result (dir, row->file, &why);
    if (row->result != NULL)
      row->status = "ok";
    else if (!load_failure (dir, row->file, row) && missing++ == 0)
      first_missing = g_steal_pointer (&why);
  }
  if (missing > 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "%s: %d of %d points have no valid result (first: %s)", dir, missing, n,
                 first_missing->message);
    return NULL;
  }
  *axes_out = g_steal_pointer (&axes);
  return g_steal_pointer (&rows);
}

/* ---- outputs ------------------------------------------------------------------ */

static const char *
row_field (char *const *header, char *const *row, const char *name)
{
  for (guint i = 0; header[i] && row[i]; i++)
    if (strcmp (header[i], name) == 0)
      return row[i];
  return "";
}

static double
row_number (char *const *header, char *const *row, const char *name)
{
  char *end;
  return dts_units_strtod (row_field (header, row, name), &end);
}

/* Column NAME of ROW times SCALE with DECIMALS decimals and SUFFIX, right
 * aligned in WIDTH; "-" where results.csv's field is empty (undefined). */
static void
append_cell (GString *out, char *const *header, char *const *row, const char *name,
             double scale, int decimals, const char *suffix, int width)
{
  const char *v = row_field (header, row, name);
  if (*v == '\0') {
    g_string_append_printf (out, "  %*s", width, "-");
    return;
  }
  char buf[64];
  g_snprintf (buf, sizeof buf, "%.*f%s", decimals, row_number (header, row, name) * scale,
              suffix);
  g_string_append_printf (out, "  %*s", width, buf);
}

/* The table on stdout: axis values and the numbers a reader looks at first
 * (results.csv's columns, doc/SWEEP.md "Columns"): wait ms is comm_wait_s,
 * speedup and efficiency are "-" where the series does not scale. */
static void
print_table (char *const *axes, const GPtrArray *table)
{
  char *const *header = g_ptr_array_index (table, 0);
  g_autoptr (GString) out = g_string_new (NULL);
  g_autoptr (GArray) widths = g_array_new (FALSE, FALSE, sizeof (int));
  for (guint a = 0; axes[a]; a++) {
    int w = (int) strlen (axes[a]);
    for (guint r = 1; r < table->len; r++)
      w = MAX (w, (int) strlen (row_field (header, g_ptr_array_index (table, r), axes[a])));
    g_array_append_val (widths, w);
  }
  g_string_append (out, "point");
  for (guint a = 0; axes[a]; a++)
    g_string_append_printf (out, "  %-*s", g_array_index (widths, int, a), axes[a]);
  g_string_append (out, "  GPUs  iteration ms   samples/s     wait ms  speedup  efficiency\n");
  for (guint r = 1; r < table->len; r++) {
    char *const *row = g_ptr_array_index (table, r);
    g_string_append_printf (out, "%5s", row_field (header, row, "point"));
    for (guint a = 0; axes[a]; a++)
      g_string_append_printf (out, "  %-*s", g_array_index (widths, int, a),
                              row_field (header, row, axes[a]));
    const char *status = row_field (header, row, "status");
    if (*status && strcmp (status, "ok") != 0) {
      /* The reason up to its advice: results.csv has it whole. */
      const char *reason = row_field (header, row, "reason");
      const char *advice = strstr (reason, "; ");
      g_string_append_printf (out, "  %s: %.*s\n", status,
                              advice ? (int) (advice - reason) : (int) strlen (reason), reason);
      continue;
    }
    g_string_append_printf (out, "  %4s  %12.3f  %10.1f", row_field (header, row, "n_gpus"),
                            row_number (header, row, "iteration_time_s") * 1e3,
                            row_number (header, row, "throughput_samples_per_s"));
    append_cell (out, header, row, "comm_wait_s", 1e3, 3, "", 10);
    append_cell (out, header, row, "speedup", 1, 3, "", 7);
    append_cell (out, header, row, "efficiency", 100, 1, "%", 10);
    g_string_append_c (out, '\n');
  }
  fwrite (out->str, 1, out->len, stdout);
}

static gboolean
write_plots (const char *dir, char *const *axes, const GPtrArray *table, gboolean quiet,
             GError **error)
{
  g_autofree char *gnuplot = dts_plot_gnuplot ();
  static const struct {
    const char *name;
    const char *y;
    const char *ideal;
  } lines[] = {
    { "throughput", "throughput_samples_per_s", NULL },
    { "speedup", "speedup", "ideal_speedup" },
  };
  g_autoptr (GPtrArray) scripts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) names = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++) {
    /* The rows where the column is defined (speed-up: in series that
     * scale); no plot when there are none. */
    g_autoptr (GPtrArray) defined = g_ptr_array_new ();
    char *const *header = g_ptr_array_index (table, 0);
    for (guint r = 0; r < table->len; r++)
      if (r == 0 || *row_field (header, g_ptr_array_index (table, r), lines[i].y) != '\0')
        g_ptr_array_add (defined, g_ptr_array_index (table, r));
    if (defined->len < 2)
      continue;
    g_autofree char *base = g_build_filename (dir, lines[i].name, NULL);
    if (!dts_plot_lines (defined, axes[0], lines[i].y, "series", lines[i].ideal, base, TRUE, TRUE,
                         error))
      return FALSE;
    g_ptr_array_add (scripts, g_strconcat (base, ".gp", NULL));
    g_string_append_printf (names, "%s,", lines[i].name);
  }
  g_string_append (names, "breakdown");
  g_autofree char *base = g_build_filename (dir, "breakdown", NULL);
  if (!dts_plot_breakdown (table, axes, base, TRUE, TRUE, error))
    return FALSE;
  g_ptr_array_add (scripts, g_strconcat (base, ".gp", NULL));
  for (guint i = 0; i < scripts->len; i++) {
    const char *script = g_ptr_array_index (scripts, i);
    if (gnuplot != NULL && !dts_plot_render (gnuplot, script, error))
      return FALSE;
  }
  if (quiet)
    return TRUE;
  if (gnuplot != NULL) {
    fprintf (stderr, "plots: %s/{%s}.{png,svg}\n", dir, names->str);
  } else {
    g_autoptr (GString) gps = g_string_new (NULL);
    for (guint i = 0; i < scripts->len; i++) {
      g_autofree char *b = g_path_get_basename (g_ptr_array_index (scripts, i));
      g_string_append_printf (gps, " %s", b);
    }
    fprintf (stderr,
             "note: gnuplot not found: wrote the scripts %s/{%s}.gp; "
             "render them with 'cd %s && gnuplot%s' "
             "(Debian: apt-get install gnuplot-nox)\n", dir, names->str, dir, gps->str);
  }
  return TRUE;
}

/* Give every row of ROWS its verdict under SEL, its columns resolved
 * against the results' header; print what was chosen and why each other
 * point was not (PRINTED, to print after the table). FALSE with ERROR set
 * when a column is unknown (DTS_ERROR_USAGE) or no point meets the
 * constraints (DTS_ERROR_INVALID; the verdicts are set). */
static gboolean
choose (char *const *axes, GPtrArray *rows, DtsSweepSelect *sel, GString *printed,
        gboolean *none, GError **error)
{
  g_autoptr (GString) csv = g_string_new (NULL);
  dts_sweep_write_csv (axes, rows, csv);
  g_autoptr (GPtrArray) table = dts_csv_parse (csv->str, error);
  if (table == NULL)
    return FALSE;
  g_autofree gboolean *ran = g_new0 (gboolean, rows->len);
  guint n_ran = 0;
  for (guint i = 0; i < rows->len; i++)
    n_ran += ran[i] = ((DtsSweepRow *) g_ptr_array_index (rows, i))->result != NULL;
  /* Without a run there are only the columns of the sweep itself. */
  if (n_ran > 0 && !dts_sweep_select_resolve (sel, g_ptr_array_index (table, 0), error))
    return FALSE;
  g_autoptr (GArray) verdicts = n_ran > 0 ? dts_sweep_select_apply (sel, table, ran) : NULL;
  g_autoptr (GString) conds = g_string_new (NULL);
  for (guint i = 0; i < sel->conds->len; i++) {
    const DtsSweepCond *c = g_ptr_array_index (sel->conds, i);
    g_string_append_printf (conds, "%s%s", i ? ", " : "", c->text);
  }
  guint n_meet = 0;
  for (guint i = 0; i < rows->len; i++) {
    DtsSweepRow *row = g_ptr_array_index (rows, i);
    DtsSweepVerdict none_ran = { .kind = DTS_SWEEP_VERDICT_DID_NOT_RUN, .broken = -1 };
    const DtsSweepVerdict *v = verdicts ? &g_array_index (verdicts, DtsSweepVerdict, i)
                                        : &none_ran;
    g_free (row->verdict);
    row->verdict = dts_sweep_verdict_text (sel, v);
    row->meets = v->kind == DTS_SWEEP_VERDICT_MEETS || v->kind == DTS_SWEEP_VERDICT_BEST
                 || v->kind == DTS_SWEEP_VERDICT_WORSE;
    n_meet += row->meets;
  }
  g_string_append_printf (printed, "%u of %u points meet the constraints%s%s%s", n_meet,
                          rows->len, conds->len ? " (" : "", conds->str, conds->len ? ")" : "");
  if (rows->len - n_ran > 0)
    g_string_append_printf (printed, "; %u did not run", rows->len - n_ran);
  if (sel->has_best && n_ran > 0)
    g_string_append_printf (printed, "; best: %s %s", sel->maximize ? "max" : "min",
                            sel->best_column);
  g_string_append (printed, "\n");
  /* The chosen points first, then every other one with its reason. */
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < rows->len; i++) {
      DtsSweepRow *row = g_ptr_array_index (rows, i);
      const DtsSweepVerdict *v = verdicts ? &g_array_index (verdicts, DtsSweepVerdict, i) : NULL;
      gboolean chosen = v && (v->kind == DTS_SWEEP_VERDICT_BEST
                              || (v->kind == DTS_SWEEP_VERDICT_MEETS && !sel->has_best));
      if (chosen != (pass == 0))
        continue;
      g_autoptr (GString) values = g_string_new (NULL);
      for (guint a = 0; axes[a]; a++)
        g_string_append_printf (values, "%s%s=%s", a ? " " : "", axes[a], row->values[a]);
      g_string_append_printf (printed, "%-6s point %u (%s)", chosen ? (sel->has_best ? "best" : "meets")
                                                                    : "other", i + 1, values->str);
      if (!chosen)
        g_string_append_printf (printed, ": %s", row->verdict);
      if (v && sel->has_best
          && (v->kind == DTS_SWEEP_VERDICT_BEST || v->kind == DTS_SWEEP_VERDICT_WORSE)) {
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        g_string_append_printf (printed, chosen ? ": %s %s" : " (%s %s)", sel->best_column,
                                g_ascii_formatd (buf, sizeof buf, "%.6g", v->objective));
      }
      if (!chosen) {
        if (v && v->kind == DTS_SWEEP_VERDICT_BROKE) {
          const DtsSweepCond *c = g_ptr_array_index (sel->conds, v->broken);
          const char *got = row_field (g_ptr_array_index (table, 0),
                                       g_ptr_array_index (table, i + 1), c->column);
          g_string_append_printf (printed, " (%s is %s)", c->column, *got ? got : "empty");
        }
        if (row->result == NULL)
          g_string_append_printf (printed, " (%s)", row->status);
      }
      g_string_append_c (printed, '\n');
    }
  if (n_meet == 0) {
    *none = TRUE;
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "no point meets the constraints%s%s%s (the verdict column of the results "
                 "says what each point broke)", conds->len ? " (" : "", conds->str,
                 conds->len ? ")" : "");
    return FALSE;
  }
  return TRUE;
}

/* results.csv, results.jsonl, wall-times.csv (and plots) of the sweep in
 * DIR, and with SEL the points it chooses. */
static gboolean
write_outputs (const char *dir, gboolean plot, gboolean quiet, DtsSweepSelect *sel,
               GError **error)
{
  g_auto (GStrv) axes = NULL;
  g_autoptr (GPtrArray) rows = load_rows (dir, &axes, error);
  if (rows == NULL)
    return FALSE;
  g_autoptr (GString) chosen = g_string_new (NULL);
  g_autoptr (GError) no_point = NULL;
  gboolean none = FALSE;
  if (sel != NULL && !choose (axes, rows, sel, chosen, &none, &no_point) && !none) {
    g_propagate_error (error, g_steal_pointer (&no_point));
    return FALSE;
  }
  g_autoptr (GString) csv = g_string_new (NULL);
  g_autoptr (GString) jsonl = g_string_new (NULL);
  g_autoptr (GString) walls = g_string_new ("point,file,simulation_wall_time_s\n");
  dts_sweep_write_csv (axes, rows, csv);
  dts_sweep_write_jsonl (axes, rows, jsonl);
  for (guint i = 0; i < rows->len; i++) {
    const DtsSweepRow *row = g_ptr_array_index (rows, i);
    const char *wall = row->result ? dts_sweep_result_wall_time (row->result) : NULL;
    g_string_append_printf (walls, "%u,", i + 1);
    dts_csv_append_field (walls, row->file);
    g_string_append_printf (walls, ",%s\n", wall ? wall : "");
  }
  if (!write_file (dir, "results.csv", csv->str, csv->len, error)
      || !write_file (dir, "results.jsonl", jsonl->str, jsonl->len, error)
      || !write_file (dir, "wall-times.csv", walls->str, walls->len, error))
    return FALSE;
  g_autoptr (GPtrArray) table = dts_csv_parse (csv->str, error);
  if (table == NULL)
    return FALSE;
  print_table (axes, table);
  fwrite (chosen->str, 1, chosen->len, stdout);
  printf ("wrote %s/results.csv and %s/results.jsonl (%u points)\n", dir, dir, rows->len);
  /* The points that did not run have no numbers to plot. */
  g_autoptr (GPtrArray) ran = g_ptr_array_new ();
  for (guint r = 0; r < table->len; r++) {
    const char *status = row_field (g_ptr_array_index (table, 0), g_ptr_array_index (table, r),
                                    "status");
    if (r == 0 || *status == '\0' || strcmp (status, "ok") == 0)
      g_ptr_array_add (ran, g_ptr_array_index (table, r));
  }
  if (plot && ran->len < 2 && !quiet)
    fprintf (stderr, "note: no point ran: no plots\n");
  else if (plot && !write_plots (dir, axes, ran, quiet, error))
    return FALSE;
  if (no_point != NULL) {
    g_propagate_error (error, g_steal_pointer (&no_point));
    return FALSE;
  }
  return TRUE;
}

/* ---- running the points --------------------------------------------------------- */

typedef struct {
  const char *dir;
  const char *dtsim;
  const GArray *points;
  GArray *todo;        /* guint: indices of points to run */
  guint next, running, finished;
  guint jobs;
  gint64 t_start;
  gboolean tty;        /* live line */
  gboolean lines;      /* --progress without a terminal: one line per point */
  gboolean keep_going; /* a run that refuses or fails is a result, not the end */
  GError *error;
} Runner;

typedef struct {
  Runner *runner;
  guint point;
  char *tmp, *err, *final;
} Job;

static void
job_free (Job *job)
{
  g_free (job->tmp);
  g_free (job->err);
  g_free (job->final);
  g_free (job);
}

static void
format_duration (char *buf, gsize size, double s)
{
  int t = (int) (s + 0.5);
  if (t >= 3600)
    g_snprintf (buf, size, "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60);
  else
    g_snprintf (buf, size, "%d:%02d", t / 60, t % 60);
}

static void
show_progress (Runner *r)
{
  if (!r->tty && !r->lines)
    return;
  double elapsed = (g_get_monotonic_time () - r->t_start) / 1e6;
  char el[32], eta[32] = "?";
  format_duration (el, sizeof el, elapsed);
  if (r->finished > 0)
    format_duration (eta, sizeof eta, elapsed / r->finished * (r->todo->len - r->finished));
  fprintf (stderr, "%ssweep: %u/%u points run, %u running, %s elapsed, ETA %s%s",
           r->tty ? "\r" : "", r->finished, r->todo->len, r->running, el, eta,
           r->tty ? "\033[K" : "\n");
  fflush (stderr);
}

static gboolean
tick (gpointer data)
{
  show_progress (data);
  return G_SOURCE_CONTINUE;
}

/* The child's own last error line, without "dtsim: error: ", else how it
 * ended (WHY: "Child process killed by signal 9"). */
static char *
child_error (const char *err_path, const char *why)
{
  g_autofree char *text = dts_input_read_regular (err_path, "error log", NULL);
  if (text == NULL)
    return g_strdup (why);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  const char *last = NULL;
  for (char **l = lines; *l; l++)
    if (**l)
      last = g_str_has_prefix (*l, "dtsim: error: ") ? *l + strlen ("dtsim: error: ") : *l;
  return g_strdup (last ? last : why);
}

static void
job_done (GPid pid, gint wait_status, gpointer data)
{
  Job *job = data;
  Runner *r = job->runner;
  g_spawn_close_pid (pid);
  r->running--;
  const Point *pt = &g_array_index (r->points, Point, job->point);
  g_autoptr (GError) local = NULL;
  const char *values = pt->label;
  if (!g_spawn_check_wait_status (wait_status, &local)) {
    gboolean usage = g_error_matches (local, G_SPAWN_EXIT_ERROR, 2);
    gboolean refused = usage || g_error_matches (local, G_SPAWN_EXIT_ERROR, 1);
    g_autofree char *why = child_error (job->err, local->message);
    g_autofree char *failed = g_strconcat (job->final, ".failed", NULL);
    g_autoptr (GError) record = NULL;
    /* Only a run that ended with its own error is a result: a crash or a
     * kill still stops the sweep. */
    if (r->keep_going && refused) {
      g_unlink (job->tmp);
      if (!write_failure (failed, usage ? 2 : 1, why, &record) && r->error == NULL)
        r->error = g_steal_pointer (&record);
    } else if (r->error == NULL)
      g_set_error (&r->error, DTS_ERROR, usage ? DTS_ERROR_USAGE : DTS_ERROR_INVALID,
                   "point %u (%s): %s", job->point + 1, values, why);
  } else {
    g_autoptr (DtsSweepResult) check = load_result_path (job->tmp, &local);
    if (check == NULL) {
      if (r->error == NULL)
        g_set_error (&r->error, DTS_ERROR, DTS_ERROR_INVALID, "point %u (%s): %s",
                     job->point + 1, values, local->message);
    } else if (g_rename (job->tmp, job->final) != 0) {
      if (r->error == NULL)
        g_set_error (&r->error, DTS_ERROR, DTS_ERROR_IO, "%s: cannot rename: %s", job->final,
                     g_strerror (errno));
    } else {
      g_autofree char *failed = g_strconcat (job->final, ".failed", NULL);
      g_unlink (job->err);
      g_unlink (failed);
    }
  }
  r->finished++;
  show_progress (r);
  job_free (job);
}

/* In each child, before exec: die with the sweep (SIGKILL when the parent
 * dies, by kill -9 too), and at once when it is already gone. */
static void
die_with_parent (gpointer parent)
{
#ifdef __linux__
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (getppid () != (pid_t) GPOINTER_TO_INT (parent))
    _exit (127);
#else
  (void) parent;
#endif
}

static gboolean
launch (Runner *r, guint point, GError **error)
{
  const Point *pt = &g_array_index (r->points, Point, point);
  Job *job = g_new0 (Job, 1);
  job->runner = r;
  job->point = point;
  job->final = g_build_filename (r->dir, pt->file, NULL);
  job->tmp = g_strconcat (job->final, ".tmp", NULL);
  job->err = g_strconcat (job->final, ".err", NULL);
  int out = g_open (job->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  int err = out < 0 ? -1 : g_open (job->err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (out < 0 || err < 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s: cannot write: %s",
                 out < 0 ? job->tmp : job->err, g_strerror (errno));
    if (out >= 0)
      g_close (out, NULL);
    job_free (job);
    return FALSE;
  }
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) r->dtsim);
  for (char **a = pt->args; *a; a++)
    g_ptr_array_add (argv, *a);
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) local = NULL;
  GPid pid;
  gboolean ok = g_spawn_async_with_pipes_and_fds (
      NULL, (const char *const *) argv->pdata, NULL,
      G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH, die_with_parent,
      GINT_TO_POINTER ((int) getpid ()), -1, out, err, NULL, NULL, 0,
      &pid, NULL, NULL, NULL, &local);
  g_close (out, NULL);
  g_close (err, NULL);
  if (!ok) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "cannot run '%s': %s", r->dtsim, local->message);
    job_free (job);
    return FALSE;
  }
  r->running++;
  g_child_watch_add (pid, job_done, job);
  return TRUE;
}

static gboolean
run_points (Runner *r, GError **error)
{
  r->t_start = g_get_monotonic_time ();
  guint timer = r->tty ? g_timeout_add_seconds (1, tick, r) : 0;
  GError *launch_error = NULL;
  while (r->running > 0 || (r->next < r->todo->len && r->error == NULL && launch_error == NULL)) {
    while (r->running < r->jobs && r->next < r->todo->len && r->error == NULL
           && launch_error == NULL)
      launch (r, g_array_index (r->todo, guint, r->next++), &launch_error);
    if (r->running > 0)
      g_main_context_iteration (NULL, TRUE);
  }
  if (timer)
    g_source_remove (timer);
  if (r->tty)
    fprintf (stderr, "\r\033[K");
  if (launch_error != NULL) {
    g_clear_error (&r->error);
    g_propagate_error (error, launch_error);
    return FALSE;
  }
  if (r->error != NULL) {
    g_propagate_error (error, r->error);
    r->error = NULL;
    return FALSE;
  }
  return TRUE;
}

/* ---- emitting job lists -------------------------------------------------------------- */

/* One job: the point's run, its JSON written under a temporary name and
 * renamed when complete. INTO names the script in errors. */
static char *
job_line (const char *dtsim, const char *dir, const Point *pt, const char *into,
          GError **error)
{
  g_autofree char *cmd = command_line (dtsim, pt->args, into, error);
  if (cmd == NULL)
    return NULL;
  g_autofree char *final = g_build_filename (dir, pt->file, NULL);
  g_autofree char *tmp = g_strconcat (final, ".tmp", NULL);
  g_autofree char *qf = dts_quote_shell (final, "point file", into, error);
  g_autofree char *qt = qf ? dts_quote_shell (tmp, "point file", into, error) : NULL;
  if (qt == NULL)
    return NULL;
  return g_strdup_printf ("%s > %s && mv %s %s", cmd, qt, qt, qf);
}

static gboolean
emit (const char *kind, const char *dtsim, const char *dir, const GArray *points,
      GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);
  const char *name = strcmp (kind, "parallel") == 0 ? "jobs.txt (GNU parallel: one job per line)"
                                                    : "sweep.slurm";
  g_autofree char *qdir = dts_quote_shell (dir, "output directory", name, error);
  if (qdir == NULL)
    return FALSE;
  if (strcmp (kind, "parallel") == 0) {
    for (guint p = 0; p < points->len; p++) {
      g_autofree char *line = job_line (dtsim, dir, &g_array_index (points, Point, p), name,
                                        error);
      if (line == NULL)
        return FALSE;
      g_string_append_printf (s, "%s\n", line);
    }
    name = "jobs.txt";
  } else if (strcmp (kind, "slurm") == 0) {
    /* sbatch reads the #SBATCH lines with its own quoting. */
    g_autofree char *sdir = dts_quote_slurm (dir, "output directory", "sweep.slurm's #SBATCH "
                                             "--output line", error);
    if (sdir == NULL)
      return FALSE;
    g_string_append_printf (s,
                            "#!/bin/sh\n"
                            "#SBATCH --job-name=dtsim-sweep\n"
                            "#SBATCH --array=1-%u\n"
                            "#SBATCH --ntasks=1\n"
                            "#SBATCH --cpus-per-task=1\n"
                            "#SBATCH --output=%s/slurm-%%A_%%a.log\n"
                            "# dtsim sweep: one array task per point; submit from this "
                            "directory with\n"
                            "#   sbatch %s/sweep.slurm\n"
                            "# then merge the results with: dtsim sweep --collect %s\n"
                            "set -e\n"
                            "case \"${SLURM_ARRAY_TASK_ID:?not a Slurm array task}\" in\n",
                            points->len, sdir, qdir, qdir);
    for (guint p = 0; p < points->len; p++) {
      g_autofree char *line = job_line (dtsim, dir, &g_array_index (points, Point, p), name,
                                        error);
      if (line == NULL)
        return FALSE;
      g_string_append_printf (s, "%u) %s ;;\n", p + 1, line);
    }
    g_string_append (s, "*) echo \"no point $SLURM_ARRAY_TASK_ID\" >&2; exit 2 ;;\nesac\n");
  } else {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "unknown --emit '%s' (known: slurm, "
                 "parallel)", kind);
    return FALSE;
  }
  if (!write_file (dir, name, s->str, s->len, error))
    return FALSE;
  printf ("wrote %s/%s (%u points) and %s/sweep.ini\n", dir, name, points->len, dir);
  if (strcmp (kind, "parallel") == 0)
    printf ("run the jobs from this directory with 'parallel -j 8 < %s/jobs.txt' (or 'sh "
            "%s/jobs.txt'), then 'dtsim sweep --collect %s'\n", qdir, qdir, qdir);
  else
    printf ("submit from this directory with 'sbatch %s/sweep.slurm', then 'dtsim sweep "
            "--collect %s'\n", qdir, qdir);
  return TRUE;
}

/* ---- one sweep per folder ------------------------------------------------------------ */

/* Lock the folder DIR for this process: a file descriptor holding the lock
 * (close it to release), or -1 with ERROR set, naming the holder's pid when
 * another sweep holds it. */
static int
lock_folder (const char *dir, GError **error)
{
  g_autofree char *path = g_build_filename (dir, "sweep.lock", NULL);
  int fd = g_open (path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd < 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s: cannot create: %s", path,
                 g_strerror (errno));
    return -1;
  }
  if (flock (fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    char holder[24] = "";
    ssize_t n = pread (fd, holder, sizeof holder - 1, 0);
    holder[n > 0 ? n : 0] = '\0';
    g_strstrip (holder);
    close (fd);
    if (err == EWOULDBLOCK)
      g_set_error (error, DTS_ERROR, DTS_ERROR_IO,
                   "%s: another dtsim sweep (pid %s) is using this folder: wait for it to "
                   "end, or give another -o", dir, *holder ? holder : "unknown");
    else
      g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s: cannot lock: %s", path,
                   g_strerror (err));
    return -1;
  }
  g_autofree char *pid = g_strdup_printf ("%d\n", (int) getpid ());
  if (ftruncate (fd, 0) != 0 || pwrite (fd, pid, strlen (pid), 0) != (ssize_t) strlen (pid)) {
    int err = errno;
    close (fd);
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s: cannot write: %s", path,
                 g_strerror (err));
    return -1;
  }
  return fd;
}

/* Write the manifest of POINTS in DIR, then emit their job list (A->emit)
 * or run those without a result and write the outputs; DIR is locked. */
static gboolean
sweep_in_folder (const SweepArgs *a, guint jobs, const char *dir, const char *dtsim,
                 const DtsSweepPlan *plan, const GArray *points, gboolean keep_going,
                 DtsSweepSelect *sel, GError **error)
{
  if (!write_manifest (dir, plan, points, error))
    return FALSE;
  if (a->emit != NULL)
    return emit (a->emit, dtsim, dir, points, error);

  Runner r = {
    .dir = dir,
    .dtsim = dtsim,
    .points = points,
    .todo = g_array_new (FALSE, FALSE, sizeof (guint)),
    .jobs = jobs,
    .tty = !a->quiet && isatty (STDERR_FILENO),
    .lines = !a->quiet && a->progress && !isatty (STDERR_FILENO),
    .keep_going = keep_going,
  };
  g_autoptr (GArray) todo = r.todo;
  for (guint p = 0; p < points->len; p++) {
    const char *file = g_array_index (points, Point, p).file;
    g_autoptr (DtsSweepResult) done = load_result (dir, file, NULL);
    DtsSweepRow failed = { 0 };
    /* A run that refused its point refuses it again: not run twice. */
    if (done == NULL && !(keep_going && load_failure (dir, file, &failed)))
      g_array_append_val (todo, p);
    g_free (failed.reason);
  }
  if (!a->quiet)
    fprintf (stderr, "sweep: %u points, %u to run, %u already done in %s\n", points->len,
             todo->len, points->len - todo->len, dir);
  if (!run_points (&r, error))
    return FALSE;
  return write_outputs (dir, a->plot, a->quiet, sel, error);
}

/* ---- the command ------------------------------------------------------------------ */

static char *
default_dtsim (void)
{
  char *exe = g_file_read_link ("/proc/self/exe", NULL);
  return exe ? exe : g_strdup ("dtsim");
}

gboolean
dts_cmd_sweep (int argc, char **argv, GError **error)
{
  g_auto (SweepArgs) a = { 0 };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("[RUN OPTION...]");
  g_option_context_set_summary (
      ctx, "Run `dtsim run` over the points of one or more axes (--vary) around a base\n"
           "configuration (the run options that follow, or --config FILE) and merge the\n"
           "results into DIR/results.csv (one row per point: axis values, inputs,\n"
           "outputs; speed-up and efficiency against the first point of a series along\n"
           "a GPU-count axis, gpus, nodes or mesh, else empty; the wait for communication\n"
           "per iteration) and DIR/results.jsonl. Finished points are kept in\n"
           "DIR/points/ and not run again. --where and --best choose among the points:\n"
           "the best are printed after the table, with the constraint every other point\n"
           "broke. See doc/SWEEP.md.");
  g_option_context_set_description (
      ctx, "Examples:\n"
           "  dtsim sweep --vary gpus=4,8,16 --vary 'link:*-ib.bandwidth=25Gbps,100Gbps' -j 2\n"
           "  dtsim sweep --vary batch-size=32:256:x2 --workload vgg16 --plot\n"
           "  dtsim sweep --vary mesh=auto --workload vgg16 --platform dgxa100-x8 --global-batch 512 "
           "--where fits --best max:throughput_samples_per_s\n"
           "  dtsim sweep --vary gpus=2,4 --emit parallel -o study && sh study/jobs.txt\n"
           "  dtsim sweep --collect study\n");
  add_entries (ctx, &a);
  g_option_context_set_ignore_unknown_options (ctx, TRUE);
  gboolean help = FALSE;
  if (!dts_cli_parse (ctx, "sweep", &argc, &argv, &help, error))
    return FALSE;
  if (help)
    return TRUE;
  /* What GOption left, in order, is the base run configuration. */
  char **base = argv + 1;
  if (*base != NULL && strcmp (*base, "--") == 0)
    base++;
  g_autoptr (DtsSweepSelect) sel = NULL;
  if ((a.where != NULL || a.best != NULL)
      && (sel = dts_sweep_select_new (a.where, a.best, error)) == NULL)
    return FALSE;

  if (a.collect != NULL) {
    if (a.vary != NULL || *base != NULL || a.emit != NULL) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--collect DIR takes no --vary, --emit or run options (the points are "
                   "those of DIR/sweep.ini)");
      return FALSE;
    }
    /* A folder that is not there has no manifest: write_outputs says so. */
    if (!g_file_test (a.collect, G_FILE_TEST_IS_DIR))
      return write_outputs (a.collect, a.plot, a.quiet, sel, error);
    int lock = lock_folder (a.collect, error);
    if (lock < 0)
      return FALSE;
    gboolean ok = write_outputs (a.collect, a.plot, a.quiet, sel, error);
    close (lock);
    return ok;
  }

  int jobs = 1;
  if (!dts_cli_parse_int_option ("jobs", a.jobs, 1, 1024, &jobs, error)
      || !check_base (base, error))
    return FALSE;
  if (sel != NULL && a.emit != NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--where and --best choose among results: give them to --collect once the "
                 "jobs have run");
    return FALSE;
  }
  if (a.emit != NULL && strcmp (a.emit, "slurm") != 0 && strcmp (a.emit, "parallel") != 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "unknown --emit '%s' (known: slurm, "
                 "parallel)", a.emit);
    return FALSE;
  }
  if (a.output != NULL && a.output[0] == '\0')
    return dts_cli_bad_option ("output", a.output, "a directory", error);
  int global_batch = 0, mbs = 0, max_cp = 1;
  if (!dts_cli_parse_int_option ("global-batch", a.global_batch, 1, 1 << 30, &global_batch,
                                 error)
      || !dts_cli_parse_int_option ("micro-batch-size", a.micro_batch_size, 1, 1 << 30, &mbs,
                                    error)
      || !dts_cli_parse_int_option ("max-context-parallel", a.max_cp, 1, 1 << 20, &max_cp,
                                    error))
    return FALSE;
  gboolean mesh_auto = FALSE;
  for (char **v = a.vary; v != NULL && *v != NULL; v++)
    mesh_auto = mesh_auto || strcmp (*v, "mesh=auto") == 0;
  if (a.max_cp != NULL && !mesh_auto) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--max-context-parallel applies to --vary mesh=auto (list splits TPxPPxDPxCP "
                 "otherwise)");
    return FALSE;
  }
  if (mbs > 0 && global_batch == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--micro-batch-size needs --global-batch (the micro-batches of a split are "
                 "the global batch over DP x micro-batch size)");
    return FALSE;
  }
  g_autoptr (GString) mesh_note = g_string_new (NULL);
  g_auto (GStrv) vary = expand_mesh (a.vary, base, global_batch, mbs, max_cp, mesh_note, error);
  if (vary == NULL)
    return FALSE;
  g_autoptr (DtsSweepPlan) plan = dts_sweep_plan_new (vary, a.zip, error);
  if (plan == NULL)
    return FALSE;
  gboolean mesh = FALSE;
  for (guint i = 0; i < plan->axes->len; i++) {
    DtsSweepAxis *axis = g_ptr_array_index (plan->axes, i);
    if (axis->kind == DTS_SWEEP_OPTION && global_batch > 0
        && (strcmp (axis->target, "batch-size") == 0
            || strcmp (axis->target, "micro-batches") == 0)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--vary '%s': --global-batch sets --%s at every split", axis->key,
                   axis->target);
      return FALSE;
    }
    if (axis->kind != DTS_SWEEP_MESH)
      continue;
    mesh = TRUE;
    axis->global_batch = global_batch;
    axis->micro_batch_size = mbs;
    for (char **v = axis->values; *v && global_batch > 0; v++) {
      int t, p, d, cp;
      if (dts_sweep_mesh_parse (*v, &t, &p, &d, &cp, NULL)
          && global_batch % ((gint64) d * MAX (mbs, 1)) != 0) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "--vary mesh: split %s: DP %d x micro-batch size %d does not divide "
                     "--global-batch %d", *v, d, MAX (mbs, 1), global_batch);
        return FALSE;
      }
    }
  }
  if (global_batch > 0 && !mesh) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--global-batch applies to the splits of a mesh axis: give --vary mesh=...");
    return FALSE;
  }
  const char *dir = a.output ? a.output : DEFAULT_OUTPUT;
  g_autofree char *dtsim = a.dtsim ? g_strdup (a.dtsim) : default_dtsim ();
  g_autoptr (GArray) points = make_points (plan, base, error);
  if (points == NULL)
    return FALSE;

  g_autofree char *points_dir = g_build_filename (dir, "points", NULL);
  if (g_mkdir_with_parents (points_dir, 0777) != 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s: cannot create: %s", points_dir,
                 g_strerror (errno));
    return FALSE;
  }
  int lock = lock_folder (dir, error);
  if (lock < 0)
    return FALSE;
  gboolean keep_going = sel != NULL || mesh;
  if (mesh_note->len > 0) {
    fputs (mesh_note->str, stdout);
    fflush (stdout);
  }
  gboolean ok = sweep_in_folder (&a, (guint) jobs, dir, dtsim, plan, points, keep_going, sel,
                                 error);
  close (lock);
  return ok;
}
