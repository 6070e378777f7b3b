/* cmd-cost.c - `dtsim cost train|eval|validate`: the MLP kernel-time models.
 *
 *   train     fit the networks on DeepBench kernel times and write them with
 *             their manifest (default: the shipped platforms/kernel-models/);
 *   eval      error on held-out layer geometries per kernel class and GPU
 *             (the untouched test split, then k-fold inside the development
 *             split), MLP beside roofline, and the leave-one-GPU-out
 *             comparison;
 *   validate  whole-network check: single-GPU training throughput of the
 *             TensorFlow-benchmark models against the measured DGX-1 rows.
 *
 * Data come from --data DIR, else $DTSIM_SHARED/data/kernels (validation:
 * $DTSIM_SHARED/data/validation), else ../shared/data/... beside the data
 * directory, as `dtsim validate` finds them. Results go to stdout; eval's progress line
 * goes to stderr when that is a terminal (nothing otherwise, so that logs and
 * tests see only results). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli-private.h"
#include "core/error.h"
#include "core/input.h"
#include "core/datadir.h"
#include "cost/cost.h"
#include "cost/mlp.h"
#include "platform/gpu.h"
#include "workload/workload.h"

typedef struct {
  const char *name;
  const char *summary;
  gboolean (*run) (int argc, char **argv, GError **error);
} SubCommand;

static gboolean cost_train (int argc, char **argv, GError **error);
static gboolean cost_eval (int argc, char **argv, GError **error);
static gboolean cost_validate (int argc, char **argv, GError **error);

static const SubCommand subcommands[] = {
  { "train", "train the kernel-time networks on DeepBench times and write them", cost_train },
  { "eval", "held-out and leave-one-GPU-out error of the networks, beside roofline", cost_eval },
  { "validate", "single-GPU throughput of whole networks against measured benchmarks",
    cost_validate },
  { NULL, NULL, NULL },
};

static char *
subcommand_list (void)
{
  GString *s = g_string_new (NULL);
  for (const SubCommand *c = subcommands; c->name; c++)
    g_string_append_printf (s, "%s%s", c == subcommands ? "" : ", ", c->name);
  return g_string_free (s, FALSE);
}

static void
print_usage (void)
{
  printf ("Usage:\n  dtsim cost <subcommand> [OPTION...]\n\n"
          "Train and evaluate the MLP kernel-time models (--cost-model mlp).\n\n"
          "Subcommands:\n");
  for (const SubCommand *c = subcommands; c->name; c++)
    printf ("  %-10s %s\n", c->name, c->summary);
  printf ("\nSee 'dtsim cost <subcommand> --help' for its options.\n");
}

gboolean
dts_cmd_cost (int argc, char **argv, GError **error)
{
  if (argc >= 2 && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)) {
    print_usage ();
    return TRUE;
  }
  g_autofree char *known = subcommand_list ();
  if (argc < 2) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "'dtsim cost' needs a subcommand (known: %s; see 'dtsim cost --help')", known);
    return FALSE;
  }
  for (const SubCommand *c = subcommands; c->name; c++)
    if (strcmp (argv[1], c->name) == 0) {
      /* GOption's usage line names the program: "Usage: dtsim cost train". */
      g_autofree char *prgname = g_strdup_printf ("dtsim cost %s", c->name);
      g_set_prgname (prgname);
      return c->run (argc - 1, argv + 1, error);
    }
  g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
               "unknown 'dtsim cost' subcommand '%s' (known: %s)", argv[1], known);
  return FALSE;
}

/* ---- shared options -------------------------------------------------------- */

/* DIR, else the shared data sets' data/SUB (dts_cli_shared_data_dir, as
 * `dtsim validate` finds them); an error when the default is not a directory. */
static char *
shared_data_dir (const char *dir, const char *sub, const char *option, GError **error)
{
  if (dir != NULL)
    return g_strdup (dir);
  g_autofree char *path = dts_cli_shared_data_dir (sub);
  if (!g_file_test (path, G_FILE_TEST_IS_DIR)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_NOT_FOUND,
                 "no data directory '%s' (pass %s or set DTSIM_SHARED, the directory that "
                 "holds data/%s/)",
                 path, option, sub);
    return NULL;
  }
  return g_steal_pointer (&path);
}

/* The kernel timings (--data DIR, else $DTSIM_SHARED/data/kernels) and the
 * GPU catalogue that training and evaluation read. */
static gboolean
load_training_inputs (const char *dir, const char *gpu, DtsKernelData **data,
                      DtsGpuCatalog **cat, GError **error)
{
  g_autofree char *data_dir = shared_data_dir (dir, "kernels", "--data DIR", error);
  if (data_dir == NULL || (*data = dts_kernel_data_load (data_dir, error)) == NULL)
    return FALSE;
  if ((*cat = dts_gpu_catalog_load (NULL, error)) == NULL)
    return FALSE;
  /* --gpu names the catalogue GPU of the measured rows; checked here so
   * that an unknown id is a usage error with the catalogue's ids. */
  if (gpu != NULL) {
    g_autoptr (GError) local = NULL;
    if (dts_gpu_catalog_get (*cat, gpu, &local) == NULL) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--gpu: %s", local->message);
      return FALSE;
    }
    if (!dts_kernel_data_name_measured (*data, gpu, error))
      return FALSE;
  }
  return TRUE;
}

typedef struct {
  char *data;
  char *gpu;
  char *format;
  int seed, folds, test_percent, epochs, hidden, members;
} TrainArgs;

static void
train_args_clear (TrainArgs *a)
{
  g_free (a->data);
  g_free (a->gpu);
  g_free (a->format);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TrainArgs, train_args_clear)

static void
train_args_init (TrainArgs *a)
{
  DtsMlpTrainOptions o;
  dts_mlp_train_options_init (&o);
  *a = (TrainArgs){ .seed = (int) o.seed, .folds = o.folds, .test_percent = o.test_percent,
                    .epochs = o.epochs, .hidden = o.hidden, .members = o.members };
}

static void
add_train_entries (GOptionContext *ctx, TrainArgs *a)
{
  static char h_seed[64], h_folds[112], h_test[160], h_epochs[64], h_hidden[64],
      h_members[80];
  DtsMlpTrainOptions o;
  dts_mlp_train_options_init (&o);
  g_snprintf (h_seed, sizeof h_seed, "Seed of the weight initialisation (default: %u)", o.seed);
  g_snprintf (h_folds, sizeof h_folds,
              "k of the k-fold evaluation inside the development split (default: %d)", o.folds);
  g_snprintf (h_test, sizeof h_test,
              "Percent of layer geometries held out as the test split; networks are trained "
              "on the rest (default: %d)",
              o.test_percent);
  g_snprintf (h_epochs, sizeof h_epochs, "RPROP epochs per network (default: %d)", o.epochs);
  g_snprintf (h_hidden, sizeof h_hidden, "Hidden units per network (default: %d)", o.hidden);
  g_snprintf (h_members, sizeof h_members, "Networks averaged into each model (default: %d)",
              o.members);
  GOptionEntry entries[] = {
    { "data", 0, 0, G_OPTION_ARG_FILENAME, &a->data,
      "Directory of deepbench_conv.csv and deepbench_gemm.csv, or of the conv.csv and gemm.csv "
      "of tools/measure-kernels (default: $DTSIM_SHARED/data/kernels, else ../shared/data/kernels beside the data directory)",
      "DIR" },
    { "gpu", 0, 0, G_OPTION_ARG_STRING, &a->gpu,
      "Catalogue GPU of the measured rows (precision fp32, tf32, fp16 or bf16) when their "
      "device column is not its id (default: the device column)",
      "ID" },
    { "seed", 0, 0, G_OPTION_ARG_INT, &a->seed, h_seed, "N" },
    { "folds", 0, 0, G_OPTION_ARG_INT, &a->folds, h_folds, "K" },
    { "test-percent", 0, 0, G_OPTION_ARG_INT, &a->test_percent, h_test, "P" },
    { "epochs", 0, 0, G_OPTION_ARG_INT, &a->epochs, h_epochs, "N" },
    { "hidden", 0, 0, G_OPTION_ARG_INT, &a->hidden, h_hidden, "N" },
    { "members", 0, 0, G_OPTION_ARG_INT, &a->members, h_members, "N" },
    { NULL },
  };
  dts_cli_add_entries (ctx, entries);
}

static gboolean
train_options (const TrainArgs *a, DtsMlpTrainOptions *o, GError **error)
{
  if (a->seed < 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--seed must be non-negative, got %d",
                 a->seed);
    return FALSE;
  }
  *o = (DtsMlpTrainOptions){ .seed = (guint32) a->seed, .folds = a->folds,
                             .test_percent = a->test_percent, .epochs = a->epochs,
                             .hidden = a->hidden, .members = a->members };
  return TRUE;
}

static gboolean
no_arguments (int argc, char **argv, const char *cmd, GError **error)
{
  if (argc > 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "unexpected argument '%s' (see 'dtsim cost %s --help')", argv[1], cmd);
    return FALSE;
  }
  return TRUE;
}

/* ---- train --------------------------------------------------------------- */

static gboolean
cost_train (int argc, char **argv, GError **error)
{
  g_auto (TrainArgs) a = { 0 };
  train_args_init (&a);
  g_autofree char *out = NULL;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
      "Write the networks and manifest.xml into DIR (default: the shipped "
      "platforms/kernel-models)",
      "DIR" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Print nothing on success", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  g_option_context_set_summary (
      ctx, "Train one network per (kernel class, GPU, precision) on DeepBench cuDNN/cuBLAS\n"
           "times and write them with their manifest. The same data and options give\n"
           "byte-identical files.");
  dts_cli_add_entries (ctx, entries);
  add_train_entries (ctx, &a);
  gboolean help = FALSE;
  if (!dts_cli_parse (ctx, "cost train", &argc, &argv, &help, error))
    return FALSE;
  if (help)
    return TRUE;
  if (!no_arguments (argc, argv, "train", error))
    return FALSE;
  DtsMlpTrainOptions opts;
  if (!train_options (&a, &opts, error))
    return FALSE;
  g_autoptr (DtsKernelData) data = NULL;
  g_autoptr (DtsGpuCatalog) cat = NULL;
  if (!load_training_inputs (a.data, a.gpu, &data, &cat, error))
    return FALSE;
  g_autofree char *dir = out ? g_strdup (out) : dts_mlp_default_dir ();
  if (!dts_mlp_train (data, cat, &opts, dir, error))
    return FALSE;
  if (!quiet) {
    g_autoptr (DtsMlpSet) set = dts_mlp_set_load (dir, error);
    if (set == NULL)
      return FALSE;
    printf ("wrote %u networks for %u GPU/precision pairs to %s\n", dts_mlp_set_n_networks (set),
            dts_mlp_set_n_gpus (set), dir);
  }
  return TRUE;
}

/* ---- eval ---------------------------------------------------------------- */

static void
fmt_pct (char *buf, gsize len, double v)
{
  if (isnan (v))
    g_strlcpy (buf, "", len);
  else
    g_snprintf (buf, len, "%.1f%%", 100.0 * v);
}

typedef struct {
  double mlp, roof;
  int points;
} Sum;

typedef enum { HELD_TEST, HELD_KFOLD } Held;

static void
print_heldout_md (const DtsMlpEval *ev, Held which)
{
  char a[32], b[32];
  printf ("| kernel | GPU | precision | points | MLP MAPE | roofline MAPE |\n"
          "|---|---|---|---:|---:|---:|\n");
  Sum by_class[DTS_KERNEL_CLASS_COUNT] = { 0 };
  for (guint i = 0; i < ev->kfold->len; i++) {
    const DtsMlpEvalRow *r = &g_array_index (ev->kfold, DtsMlpEvalRow, i);
    int n = which == HELD_TEST ? r->test_points : r->points;
    double mlp = which == HELD_TEST ? r->test_mlp_mape : r->mlp_mape;
    double roof = which == HELD_TEST ? r->test_roofline_mape : r->roofline_mape;
    if (n == 0)
      continue;
    fmt_pct (a, sizeof a, mlp);
    fmt_pct (b, sizeof b, roof);
    printf ("| %s | %s | %s | %d | %s | %s |\n", dts_kernel_class_to_string (r->klass), r->gpu_id,
            dts_precision_to_string (r->precision), n, a, b);
    by_class[r->klass].mlp += mlp * n;
    by_class[r->klass].roof += roof * n;
    by_class[r->klass].points += n;
  }
  for (int k = 0; k < DTS_KERNEL_CLASS_COUNT; k++) {
    if (by_class[k].points == 0)
      continue;
    fmt_pct (a, sizeof a, by_class[k].mlp / by_class[k].points);
    fmt_pct (b, sizeof b, by_class[k].roof / by_class[k].points);
    printf ("| **%s** | all | | %d | **%s** | **%s** |\n", dts_kernel_class_to_string (k),
            by_class[k].points, a, b);
  }
}

static void
print_eval_md (const DtsMlpEval *ev, const DtsMlpTrainOptions *opts)
{
  char a[32], b[32], c[32];
  printf ("## Held-out shapes: test split\n\n"
          "The layer geometries of the test split (%d%%, at every batch size), predicted by\n"
          "the networks trained on the development split (the shipped networks); no\n"
          "setting was chosen on them. Roofline on the same points.\n\n",
          opts->test_percent);
  print_heldout_md (ev, HELD_TEST);
  printf ("\n## Held-out shapes: %d-fold inside the development split\n\n"
          "Every development point predicted by the network that did not see its layer\n"
          "geometry (at any batch size); what settings are chosen on.\n\n",
          opts->folds);
  print_heldout_md (ev, HELD_KFOLD);
  printf ("\n## Leave one GPU out\n\n"
          "Every point of the held-out GPU, predicted without any of its data: by the\n"
          "nearest other GPU's network times the roofline ratio (scaled), by one network\n"
          "conditioned on GPU features and trained on the other GPUs (conditioned), and by\n"
          "the roofline model.\n\n"
          "| kernel | held-out GPU | precision | nearest GPU | points | scaled MAPE | "
          "conditioned MAPE | roofline MAPE |\n"
          "|---|---|---|---|---:|---:|---:|---:|\n");
  Sum logo[3] = { 0 };
  for (guint i = 0; i < ev->logo->len; i++) {
    const DtsMlpLogoRow *r = &g_array_index (ev->logo, DtsMlpLogoRow, i);
    fmt_pct (a, sizeof a, r->scaled_mape);
    fmt_pct (b, sizeof b, r->conditioned_mape);
    fmt_pct (c, sizeof c, r->roofline_mape);
    printf ("| %s | %s | %s | %s | %d | %s | %s | %s |\n", dts_kernel_class_to_string (r->klass),
            r->held_out, dts_precision_to_string (r->precision), r->nearest ? r->nearest : "",
            r->points, a, b, c);
    logo[0].mlp += r->scaled_mape * r->points;
    logo[1].mlp += isnan (r->conditioned_mape) ? 0 : r->conditioned_mape * r->points;
    logo[2].mlp += r->roofline_mape * r->points;
    logo[0].points += r->points;
  }
  if (logo[0].points > 0) {
    fmt_pct (a, sizeof a, logo[0].mlp / logo[0].points);
    fmt_pct (b, sizeof b, logo[1].mlp / logo[0].points);
    fmt_pct (c, sizeof c, logo[2].mlp / logo[0].points);
    printf ("| **all** | | | | %d | **%s** | **%s** | **%s** |\n", logo[0].points, a, b, c);
  }
}

static void
csv_num (double v)
{
  if (isnan (v))
    printf (",");
  else
    printf (",%.4f", v);
}

static void
print_eval_csv (const DtsMlpEval *ev)
{
  printf ("table,kernel,gpu,precision,nearest_gpu,points,mlp_mape,roofline_mape,scaled_mape,"
          "conditioned_mape\n");
  for (guint i = 0; i < ev->kfold->len; i++) {
    const DtsMlpEvalRow *r = &g_array_index (ev->kfold, DtsMlpEvalRow, i);
    printf ("test,%s,%s,%s,,%d", dts_kernel_class_to_string (r->klass), r->gpu_id,
            dts_precision_to_string (r->precision), r->test_points);
    csv_num (r->test_mlp_mape);
    csv_num (r->test_roofline_mape);
    printf (",,\n");
  }
  for (guint i = 0; i < ev->kfold->len; i++) {
    const DtsMlpEvalRow *r = &g_array_index (ev->kfold, DtsMlpEvalRow, i);
    printf ("kfold,%s,%s,%s,,%d", dts_kernel_class_to_string (r->klass), r->gpu_id,
            dts_precision_to_string (r->precision), r->points);
    csv_num (r->mlp_mape);
    csv_num (r->roofline_mape);
    printf (",,\n");
  }
  for (guint i = 0; i < ev->logo->len; i++) {
    const DtsMlpLogoRow *r = &g_array_index (ev->logo, DtsMlpLogoRow, i);
    printf ("leave-one-gpu-out,%s,%s,%s,%s,%d,", dts_kernel_class_to_string (r->klass),
            r->held_out, dts_precision_to_string (r->precision), r->nearest ? r->nearest : "",
            r->points);
    csv_num (r->roofline_mape);
    csv_num (r->scaled_mape);
    csv_num (r->conditioned_mape);
    printf ("\n");
  }
}

static gboolean
parse_md_csv (const char *s, gboolean *csv, GError **error)
{
  if (s == NULL || strcmp (s, "md") == 0)
    *csv = FALSE;
  else if (strcmp (s, "csv") == 0)
    *csv = TRUE;
  else {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "unknown --format '%s' (known: md, csv)", s);
    return FALSE;
  }
  return TRUE;
}

/* A progress line that rewrites itself; only called when stderr is a
 * terminal. */
static void
eval_progress (guint done, guint total, gpointer user_data)
{
  (void) user_data;
  fprintf (stderr, "\rdtsim cost eval: training and testing networks: %u/%u%s", done, total,
           done == total ? "\n" : "");
  fflush (stderr);
}

static gboolean
cost_eval (int argc, char **argv, GError **error)
{
  g_auto (TrainArgs) a = { 0 };
  train_args_init (&a);
  GOptionEntry entries[] = {
    { "format", 0, 0, G_OPTION_ARG_STRING, &a.format, "Output format: md or csv (default: md)",
      "FMT" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  g_option_context_set_summary (
      ctx, "Report the mean absolute percentage error of the kernel-time networks on\n"
           "held-out layer geometries (the test split, then k-fold inside the\n"
           "development split; per kernel class and GPU) and on held-out GPUs\n"
           "(leave-one-GPU-out), beside the roofline model on the same points. Networks\n"
           "are retrained with the given options; nothing is written.");
  dts_cli_add_entries (ctx, entries);
  add_train_entries (ctx, &a);
  gboolean help = FALSE;
  if (!dts_cli_parse (ctx, "cost eval", &argc, &argv, &help, error))
    return FALSE;
  if (help)
    return TRUE;
  gboolean csv = FALSE;
  DtsMlpTrainOptions opts;
  if (!no_arguments (argc, argv, "eval", error) || !parse_md_csv (a.format, &csv, error)
      || !train_options (&a, &opts, error))
    return FALSE;
  g_autoptr (DtsKernelData) data = NULL;
  g_autoptr (DtsGpuCatalog) cat = NULL;
  if (!load_training_inputs (a.data, a.gpu, &data, &cat, error))
    return FALSE;
  g_autoptr (DtsMlpEval) ev = dts_mlp_evaluate (
      data, cat, &opts, isatty (STDERR_FILENO) ? eval_progress : NULL, NULL, error);
  if (ev == NULL)
    return FALSE;
  if (csv)
    print_eval_csv (ev);
  else
    print_eval_md (ev, &opts);
  return TRUE;
}

/* ---- validate ------------------------------------------------------------ */

/* Benchmark names of the validation file -> shipped workloads and GPUs. */
static const struct {
  const char *benchmark;
  const char *workload;
} models[] = {
  { "InceptionV3", "inception3" }, { "ResNet-50", "resnet50" }, { "ResNet-152", "resnet152" },
  { "AlexNet", "alexnet" },        { "VGG16", "vgg16" },
};
static const struct {
  const char *platform;
  const char *gpu_id;
} platforms[] = {
  { "NVIDIA DGX-1", "P100-SXM2-16GB" },
  { "GCE n1-standard-32-k80x8", "K80" },
};

typedef struct {
  const char *platform;
  const char *gpu_id;
  const char *model;
  const char *workload;
  int batch;
  double measured_ips;
  double ips[2];        /* roofline, mlp */
  double network_share; /* share of the mlp time predicted by the networks */
} Check;

/* One training iteration (forward, backward, update; one GPU, layers back
 * to back) of WORKLOAD at BATCH under COST. */
static gboolean
iteration_time (DtsCost *cost, const DtsWorkload *w, const DtsGpuSpec *gpu, int batch,
                double *total_s, double *network_s, GError **error)
{
  *total_s = 0;
  *network_s = 0;
  for (guint i = 0; i < w->layers->len; i++) {
    const DtsLayer *l = dts_workload_layer (w, i);
    DtsLayerTimes t;
    if (!dts_cost_layer_times (cost, l, gpu, DTS_PREC_FP32, batch, &t, error)) {
      g_prefix_error (error, "workload '%s': ", w->path);
      return FALSE;
    }
    double kernels = t.fwd_s + t.bwd_data_s + t.bwd_weight_s;
    *total_s += kernels + t.update_s;
    if (t.source != NULL && g_str_has_prefix (t.source, "mlp:"))
      *network_s += kernels;
  }
  return TRUE;
}

static const char *
csv_field (GPtrArray *header, GPtrArray *row, const char *name)
{
  for (guint i = 0; i < header->len && i < row->len; i++)
    if (strcmp (g_ptr_array_index (header, i), name) == 0)
      return g_ptr_array_index (row, i);
  return NULL;
}

static gboolean
read_checks (const char *path, GArray *checks, GError **error)
{
  g_autofree char *text = dts_input_read_text (path, "validation data", NULL, error);
  if (text == NULL)
    return FALSE;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GPtrArray) header = NULL;
  int lineno = 0;
  for (char **l = lines; *l; l++) {
    lineno++;
    g_strchomp (*l);
    if (**l == '\0' || **l == '#')
      continue;
    g_autoptr (GPtrArray) f = dts_kernel_csv_split (*l);
    if (header == NULL) {
      header = g_steal_pointer (&f);
      continue;
    }
    const char *platform = csv_field (header, f, "platform");
    const char *data = csv_field (header, f, "data");
    const char *model = csv_field (header, f, "model");
    const char *n_gpus = csv_field (header, f, "n_gpus");
    const char *batch = csv_field (header, f, "batch_per_gpu");
    const char *ips = csv_field (header, f, "images_per_sec");
    if (!platform || !data || !model || !n_gpus || !batch || !ips) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                   "validation data '%s': line %d: expected the columns platform, data, model, "
                   "n_gpus, batch_per_gpu, images_per_sec",
                   path, lineno);
      return FALSE;
    }
    if (strcmp (data, "synthetic") != 0 || strcmp (n_gpus, "1") != 0)
      continue;
    Check c = { 0 };
    for (guint i = 0; i < G_N_ELEMENTS (platforms); i++)
      if (strcmp (platform, platforms[i].platform) == 0) {
        c.platform = platforms[i].platform;
        c.gpu_id = platforms[i].gpu_id;
      }
    for (guint i = 0; i < G_N_ELEMENTS (models); i++)
      if (strcmp (model, models[i].benchmark) == 0) {
        c.model = models[i].benchmark;
        c.workload = models[i].workload;
      }
    if (c.platform == NULL || c.model == NULL)
      continue;
    char *end = NULL;
    c.batch = (int) g_ascii_strtoll (batch, &end, 10);
    c.measured_ips = g_ascii_strtod (ips, &end);
    if (c.batch <= 0 || !(c.measured_ips > 0) || *end != '\0') {
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                   "validation data '%s': line %d: expected a positive batch and images/s",
                   path, lineno);
      return FALSE;
    }
    g_array_append_val (checks, c);
  }
  return TRUE;
}

static gboolean
cost_validate (int argc, char **argv, GError **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *format = NULL;
  GOptionEntry entries[] = {
    { "data", 0, 0, G_OPTION_ARG_FILENAME, &dir,
      "Directory of tf_benchmarks_2017_images_per_sec.csv (default: "
      "$DTSIM_SHARED/data/validation, else ../shared/data/validation beside the data directory)",
      "DIR" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, "Output format: md or csv (default: md)",
      "FMT" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  g_option_context_set_summary (
      ctx, "Predict the single-GPU training throughput (images/s) of the TensorFlow\n"
           "benchmark models (tf_cnn_benchmarks, May 2017, synthetic data, fp32) with the\n"
           "roofline and mlp cost models and compare it with the measured DGX-1 (P100\n"
           "SXM2) and GCE (K80) rows. An iteration is the sum of every layer's forward,\n"
           "backward and update times; nothing else of the framework is modelled.");
  dts_cli_add_entries (ctx, entries);
  gboolean help = FALSE;
  if (!dts_cli_parse (ctx, "cost validate", &argc, &argv, &help, error))
    return FALSE;
  if (help)
    return TRUE;
  gboolean csv = FALSE;
  if (!no_arguments (argc, argv, "validate", error) || !parse_md_csv (format, &csv, error))
    return FALSE;
  g_autofree char *vdir = shared_data_dir (dir, "validation", "--data DIR", error);
  if (vdir == NULL)
    return FALSE;
  g_autofree char *path = g_build_filename (vdir, "tf_benchmarks_2017_images_per_sec.csv", NULL);
  g_autoptr (GArray) checks = g_array_new (FALSE, FALSE, sizeof (Check));
  if (!read_checks (path, checks, error))
    return FALSE;
  g_autoptr (DtsGpuCatalog) cat = dts_gpu_catalog_load (NULL, error);
  if (cat == NULL)
    return FALSE;
  static const char *const cost_ids[2] = { "roofline", "mlp" };
  DtsCost *costs[2] = { NULL, NULL };
  for (int m = 0; m < 2; m++)
    if ((costs[m] = dts_cost_new (cost_ids[m], error)) == NULL) {
      dts_cost_free (costs[0]);
      return FALSE;
    }
  gboolean ok = TRUE;
  for (guint i = 0; i < checks->len && ok; i++) {
    Check *c = &g_array_index (checks, Check, i);
    const DtsGpuSpec *gpu = dts_gpu_catalog_get (cat, c->gpu_id, error);
    g_autofree char *wpath =
        gpu ? dts_datadir_resolve ("workloads", c->workload, ".xml", "workload", error) : NULL;
    g_autoptr (DtsWorkload) w = wpath ? dts_workload_load (wpath, error) : NULL;
    ok = w != NULL;
    for (int m = 0; m < 2 && ok; m++) {
      double total = 0, network = 0;
      ok = iteration_time (costs[m], w, gpu, c->batch, &total, &network, error);
      c->ips[m] = c->batch / total;
      if (m == 1)
        c->network_share = network / total;
    }
  }
  dts_cost_free (costs[0]);
  dts_cost_free (costs[1]);
  if (!ok)
    return FALSE;

  if (csv)
    printf ("platform,gpu,model,workload,batch,measured_images_per_s,roofline_images_per_s,"
            "roofline_error,mlp_images_per_s,mlp_error,mlp_network_share\n");
  else
    printf ("| platform | GPU | model | batch | measured img/s | roofline img/s | error | "
            "mlp img/s | error | network share |\n"
            "|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  double sum[2] = { 0, 0 };
  for (guint i = 0; i < checks->len; i++) {
    const Check *c = &g_array_index (checks, Check, i);
    double err[2];
    for (int m = 0; m < 2; m++) {
      err[m] = c->ips[m] / c->measured_ips - 1.0;
      sum[m] += fabs (err[m]);
    }
    if (csv)
      printf ("%s,%s,%s,%s,%d,%.4g,%.4g,%.4f,%.4g,%.4f,%.4f\n", c->platform, c->gpu_id, c->model,
              c->workload, c->batch, c->measured_ips, c->ips[0], err[0], c->ips[1], err[1],
              c->network_share);
    else
      printf ("| %s | %s | %s | %d | %.4g | %.4g | %+.1f%% | %.4g | %+.1f%% | %.0f%% |\n",
              c->platform, c->gpu_id, c->model, c->batch, c->measured_ips, c->ips[0],
              100 * err[0], c->ips[1], 100 * err[1], 100 * c->network_share);
  }
  if (!csv && checks->len > 0)
    printf ("| **mean absolute error** | | | | | | **%.1f%%** | | **%.1f%%** | |\n",
            100 * sum[0] / checks->len, 100 * sum[1] / checks->len);
  return TRUE;
}
