/* cmd-validate.c - `dtsim validate`: predicted against measured, per slice.
 *
 * Reads the measured data sets of DIR (--data, else $DTSIM_SHARED/
 * data/validation, else ../shared/data/validation beside the data
 * directory) that map to a platform dtsim ships or makes, predicts each row
 * with a `dtsim run` (or `dtsim allreduce`) child process of this very
 * executable (SimGrid runs once per process), and prints the mean absolute
 * percentage error and the signed bias per data set and per slice.
 *
 * Sets (doc/VALIDATION.md, part 5):
 *   lambda-v0  lambda_pytorch_throughput_2022.csv, ResNet-50, V100 SXM2 16/32 GB,
 *              A100 SXM4 40/80 GB, 1..8 GPUs, under the `pytorch` profile. FIT.
 *   lambda-v1  lambda_pytorch_throughput.csv table v1, the same benchmark on
 *              newer containers (NGC 22.09+), `pytorch-ngc22`: V100 SXM2 and
 *              A100 SXM4 rows REPORT; A100 PCIe 40/80 GB rows FIT.
 *   lambda-v0-other  the 2022 table's RTX A6000 and RTX 3090 (GA102) and
 *              Quadro RTX 8000 (TU102) rows, 1..8 GPUs, `pytorch` (its
 *              GA102 and TU102 keys were fitted on the 1-GPU A6000 and
 *              Quadro rows).                                          FIT.
 *   lambda-v1-other  table v1's PCIe cards: RTX 3090, RTX 4090, RTX A6000,
 *              RTX 6000 Ada, A10 (Ampere and Ada, fp32 run as tf32) and
 *              Quadro RTX 8000 (Turing), 1..8 GPUs, `pytorch-ngc22`. REPORT.
 *   lambda-v1-ssd  table v1's SSD300 rows (task ssd, workloads/ssd300.xml)
 *              on the GPUs above, `pytorch-ngc22`: the A100 PCIe rows FIT
 *              (its GA100 keys, with the ResNet-50 ones), the rest REPORT.
 *              Slices "lambda-v1 all GPUs": lambda-v1 and lambda-v1-other
 *              (ResNet-50); "lambda-v1 all GPUs, ResNet-50 + SSD": and
 *              lambda-v1-ssd.
 *   tf2017     tf_benchmarks_2017_images_per_sec.csv synthetic rows, dgx1-p100
 *              and aws-p2-8xlarge, 1..8 GPUs, `tensorflow1`: the 1-GPU DGX-1
 *              rows and the p2.8xlarge ResNet-50 rows FIT, the rest REPORT.
 *   tf2017-cluster  the same file's p2.8xlarge cluster rows, 1..64 K80 dies
 *              (1..8 instances) on aws-p2-8xlarge-x8, `tensorflow1`,
 *              `--collective ps --ps-aggregation node` (TensorFlow's
 *              distributed_replicated, doc/VALIDATION.md part 3). REPORT.
 *              With "scaling 8->n" over the 8-GPU row (one instance).
 *   convnet    convnet_benchmarks_titanx.csv, cuDNN R4 fp32 and fp16 (Torch)
 *              whole networks on a Maxwell Titan X, the benchmark's own
 *              models (workloads/convnet-benchmarks/), `torch7-cudnn4`:
 *              the VGG-A pair FIT, AlexNet OWT, OverFeat fast and
 *              GoogLeNet V1 REPORT.
 *   deepbench  deepbench_allreduce.csv, every GPU row against `dtsim allreduce`
 *              on deepbench-p100-x4 (step granularity); the 16.8M-float rows at
 *              16 and 32 ranks are outliers (data README), shown, not counted.
 *                                                                      REPORT.
 *   korthikanti  llm/korthikanti2022_selene_iteration_times.csv: Korthikanti
 *              et al.'s GPT rows on Selene, the 8- and 64-GPU ones on DGX
 *              A100 80 GB nodes `dtsim platform` makes (--quick: the 8-GPU
 *              ones; 280 and 512 GPUs take minutes: bench/validate-llm.py
 *              --all).
 *   vtrain     llm/vtrain_ground_truth_multi.csv: vTrain's Megatron-DeepSpeed
 *              GPT rows on 64 A100 (more take minutes; not under --quick).
 *   nemo       llm/nemo_24.07_perf_summary.csv with llm/model_dims.csv:
 *              NeMo 24.07's FP8 pretraining rows on DGX H100, up to 128
 *              GPUs (--quick: the 8-GPU rows).
 *              All three as Megatron-LM and NeMo ran them (their
 *              tensor-parallel collectives overlapped as they ran:
 *              llm_tp_overlap), under `megatron` (-F llm=ID or a bare -F
 *              ID: another), the port of bench/validate-llm.py
 *              --tp-overlap=as-run (doc/VALIDATION.md parts 14, 15, 17, 20
 *              and 21); nothing was fitted on them (`megatron` was fitted on
 *              vTrain's single-node rows, none of these).      REPORT.
 * FIT rows are the only rows any constant of a framework profile was fitted
 * on (tools/fit-framework.py; doc/VALIDATION.md states the split); the
 * summary reports the REPORT rows, and the FIT rows only with --fit, apart
 * and labelled.  The port of
 * tools/validate-compute.py (same rows, same slices, same numbers) plus the
 * all-reduce set of bench/validate-data.py.
 *
 * Error, positive when dtsim is too fast: predicted / measured throughput
 * - 1 (lambda, tf2017), measured / predicted time - 1 (convnet, the speed
 * ratio as for throughput), 1 - predicted / measured time (deepbench: the
 * time error of doc/VALIDATION.md part 1 with its sign flipped; korthikanti
 * and vtrain too, per iteration).  "scaling 1->n": (predicted throughput
 * at n / at 1) over (measured at n / at 1), minus 1, for rows with a 1-GPU
 * row of the same set, GPU, precision, workload and batch. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "cli/cli-private.h"
#include "core/datadir.h"
#include "core/error.h"
#include "core/input.h"
#include "core/units.h"
#include "cost/framework.h"
#include "platform/gpu.h"

typedef enum { UNIT_IMG_S, UNIT_MS, UNIT_S_ITER } Unit;

typedef struct {
  const char *set;   /* "lambda-v0", "tf2017", ... (static) */
  gboolean fit;      /* a FIT row (else REPORT) */
  char *gpu;         /* catalogue id, or the DeepBench device name */
  char *platform;    /* shipped platform, or NULL: made by `dtsim platform` */
  int n;             /* GPUs */
  int nodes;         /* deepbench: nodes */
  char *workload;    /* NULL for deepbench */
  char *workload_path; /* the file run, when not a shipped name (convnet) */
  const char *const *args; /* further `dtsim run` options of the row's set, or NULL */
  int batch;
  char *precision;
  double floats;     /* deepbench: buffer in floats */
  gboolean outlier;  /* shown, not counted */
  double measured;
  Unit unit;
  double predicted;
  gboolean fits;
  double error;
  /* korthikanti, vtrain: the <transformer> run, the row's `dtsim run`
   * options, its split and, for a platform `dtsim platform` makes, its NICs */
  char *xml;
  GPtrArray *run_args;
  const char *mode;  /* korthikanti: "full" or "seqsel" */
  const char *tp_overlap; /* transformer sets: --tp-overlap as the row ran (NULL: none) */
  const char *param_gather; /* --param-gather as the row ran (NULL: the default) */
  int tp, pp, dp, cp, vstages, micro_batches, micro_batch, nics;
} Row;

static void
row_free (gpointer p)
{
  Row *r = p;
  g_free (r->gpu);
  g_free (r->platform);
  g_free (r->workload);
  g_free (r->workload_path);
  g_free (r->precision);
  g_free (r->xml);
  if (r->run_args)
    g_ptr_array_unref (r->run_args);
  g_free (r);
}

typedef struct {
  char *exe;
  char *tmp;            /* platforms made for this run */
  char *const *extra;   /* options appended to every `dtsim run` */
  GHashTable *platforms; /* gpu -> path */
  GPtrArray *files;     /* workloads written for this run */
  const char *fw_lambda, *fw_lambda_v1, *fw_tf2017, *fw_convnet;
  const char *fw_llm;   /* the transformer sets' profile (megatron unless -F says) */
} Validate;

static void
validate_clear (Validate *v)
{
  if (v->platforms) {
    GHashTableIter it;
    gpointer path;
    g_hash_table_iter_init (&it, v->platforms);
    while (g_hash_table_iter_next (&it, NULL, &path))
      g_unlink (path);
    g_hash_table_unref (v->platforms);
  }
  if (v->files) {
    for (guint i = 0; i < v->files->len; i++)
      g_unlink (g_ptr_array_index (v->files, i));
    g_ptr_array_unref (v->files);
  }
  if (v->tmp)
    g_rmdir (v->tmp);
  g_free (v->tmp);
  g_free (v->exe);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Validate, validate_clear)

/* ---- data files ---------------------------------------------------------------- */

typedef struct {
  char *path;
  GPtrArray *rows;   /* GStrv; row 0 the header */
  guint comments;    /* comment lines (at the top): row I is on line I + 1 + comments */
} Table;

static void
table_clear (Table *t)
{
  g_free (t->path);
  if (t->rows)
    g_ptr_array_unref (t->rows);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Table, table_clear)

static gboolean
table_load (Table *t, const char *dir, const char *name, GError **error)
{
  t->path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) local = NULL;
  g_autofree char *text = dts_input_read_text (t->path, "data set", NULL, error);
  if (text == NULL)
    return FALSE;
  /* `# source:` comment lines are not rows. */
  g_autoptr (GString) body = g_string_new (NULL);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    if (**l == '#')
      t->comments++;
    else if (**l != '\0')
      g_string_append_printf (body, "%s\n", *l);
  t->rows = dts_csv_parse (body->str, &local);
  if (t->rows == NULL || t->rows->len == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "'%s': %s", t->path,
                 local ? local->message : "no header row");
    return FALSE;
  }
  return TRUE;
}

/* Column indices of NAMES (NULL-terminated) into COLS. */
static gboolean
table_columns (const Table *t, const char *const *names, int *cols, GError **error)
{
  char **header = g_ptr_array_index (t->rows, 0);
  for (int i = 0; names[i]; i++) {
    cols[i] = -1;
    for (int c = 0; header[c]; c++)
      if (strcmp (header[c], names[i]) == 0)
        cols[i] = c;
    if (cols[i] < 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "'%s': no column '%s'", t->path,
                   names[i]);
      return FALSE;
    }
  }
  return TRUE;
}

static const char *
cell (char **row, int col)
{
  for (int c = 0; c < col; c++)
    if (row[c] == NULL)
      return "";
  return row[col] ? row[col] : "";
}

static gboolean
number (const Table *t, guint row, const char *text, double *out, GError **error)
{
  char *end;
  *out = dts_units_strtod (text, &end);
  if (end == text || *end != '\0') {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "'%s': line %u: '%s': expected a number",
                 t->path, row + t->comments, text);
    return FALSE;
  }
  return TRUE;
}

/* ---- rows of each set ----------------------------------------------------------- */

/* Lambda's names, without the count prefix, and the catalogue's.  `other`:
 * PCIe cards, sets lambda-v0-other (FIT: the GA102 and TU102 keys of
 * frameworks/pytorch.conf were fitted on them) and lambda-v1-other (REPORT);
 * `table`: the one table a name is read from, else both. */
static const struct {
  const char *name, *gpu;
  gboolean other;
  const char *table;
} lambda_gpus[] = {
  { "V100 16GB", "V100-SXM2-16GB", FALSE, NULL },
  { "V100 32GB", "V100-SXM2-32GB", FALSE, NULL },
  { "A100 40GB SXM4", "A100-SXM4-40GB", FALSE, NULL },
  { "A100 80GB SXM4", "A100-SXM4-80GB", FALSE, NULL },
  /* table v1 only: its FIT rows (frameworks/pytorch-ngc22.conf) */
  { "A100 40GB PCIe", "A100-PCIE-40GB", FALSE, "v1" },
  { "A100 80GB PCIe", "A100-PCIE-80GB", FALSE, "v1" },
  { "RTX A6000", "RTXA6000", TRUE, NULL },
  { "Quadro RTX 8000", "RTX8000", TRUE, NULL },
  { "RTX Quadro 8000", "RTX8000", TRUE, "v0" }, /* its multi-GPU rows there */
  { "RTX 3090", "RTX3090", TRUE, NULL },
  { "RTX 4090", "RTX4090", TRUE, "v1" },
  { "RTX 6000 Ada", "RTX6000-Ada", TRUE, "v1" },
  { "A10", "A10", TRUE, "v1" },
};

static char *
remove_all (const char *s, const char *what)
{
  g_auto (GStrv) parts = g_strsplit (s, what, -1);
  return g_strjoinv ("", parts);
}

static gboolean
lambda_rows (const char *dir, gboolean quick, GPtrArray *rows, GError **error)
{
  static const struct {
    const char *file, *table, *set;
    gboolean fit;
  } files[] = {
    { "lambda_pytorch_throughput_2022.csv", "v0", "lambda-v0", TRUE },
    { "lambda_pytorch_throughput.csv", "v1", "lambda-v1", FALSE },
  };
  static const char *const names[] = { "task",       "table",     "gpu_name_as_in_source",
                                       "gpu_count",  "throughput", "precision",
                                       "batch_size_per_gpu", NULL };
  g_autoptr (DtsGpuCatalog) catalog = dts_gpu_catalog_load (NULL, error);
  if (catalog == NULL)
    return FALSE;
  for (guint f = 0; f < G_N_ELEMENTS (files); f++) {
    g_auto (Table) t = { 0 };
    int col[7];
    if (!table_load (&t, dir, files[f].file, error) || !table_columns (&t, names, col, error))
      return FALSE;
    g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = 1; i < t.rows->len; i++) {
      char **r = g_ptr_array_index (t.rows, i);
      /* ResNet-50 from both tables, SSD300 from table v1 only (lambda-v1-ssd):
       * the 2022 table's SSD "fp32" rows run faster than the fp32 peak
       * allows (V100 136 img/s: 16.4 TFLOP/s of a 15.7 peak) */
      const char *task = cell (r, col[0]);
      gboolean ssd = strcmp (task, "ssd") == 0 && !files[f].fit;
      if ((strcmp (task, "resnet50") != 0 && !ssd) || strcmp (cell (r, col[1]),
                                                             files[f].table) != 0)
        continue;
      double count, tput, batch;
      if (!number (&t, i + 1, cell (r, col[3]), &count, error)
          || !number (&t, i + 1, cell (r, col[4]), &tput, error)
          || !number (&t, i + 1, cell (r, col[6]), &batch, error))
        return FALSE;
      int n = (int) count;
      g_autofree char *a = remove_all (cell (r, col[2]), "LambdaCloud");
      g_autofree char *name = remove_all (a, "Lambda Cloud \u2014");
      g_strstrip (name);
      g_autofree char *prefix = g_strdup_printf ("%dx", n);
      const char *bare = name;
      if (g_str_has_prefix (bare, prefix))
        bare += strlen (prefix);
      while (*bare == ' ')
        bare++;
      const char *gpu = NULL;
      gboolean other = FALSE;
      for (guint g = 0; g < G_N_ELEMENTS (lambda_gpus); g++)
        if (strcmp (bare, lambda_gpus[g].name) == 0
            && (lambda_gpus[g].table == NULL || strcmp (lambda_gpus[g].table,
                                                        files[f].table) == 0)) {
          gpu = lambda_gpus[g].gpu;
          other = lambda_gpus[g].other;
        }
      /* A100 PCIe rows: FIT rows of table v1 (pytorch-ngc22) */
      gboolean pcie = gpu != NULL && strstr (gpu, "PCIE") != NULL;
      if (gpu == NULL || !(tput > 0) || (quick && n != 1 && n != 8))
        continue;
      const char *prec = cell (r, col[5]);
      char *key = g_strdup_printf ("%s/%s/%d/%s", task, gpu, n, prec);
      if (!g_hash_table_add (seen, key))
        continue;
      Row *row = g_new0 (Row, 1);
      row->set = ssd      ? "lambda-v1-ssd"
                 : !other ? files[f].set
                 : files[f].fit ? "lambda-v0-other"
                                : "lambda-v1-other";
      row->fit = files[f].fit || pcie;
      row->gpu = g_strdup (gpu);
      row->n = n;
      row->workload = g_strdup (ssd ? "ssd300" : "resnet50");
      row->batch = (int) batch;
      /* PyTorch >= 1.7 runs fp32 convolutions in TF32 where the GPU has it */
      const DtsGpuSpec *spec = dts_gpu_catalog_lookup (catalog, gpu);
      gboolean tf32 = spec != NULL && spec->peak_flops[DTS_PREC_TF32] > 0;
      row->precision = g_strdup (strcmp (prec, "fp32") == 0 && tf32 ? "tf32" : prec);
      row->measured = tput;
      row->unit = UNIT_IMG_S;
      g_ptr_array_add (rows, row);
    }
  }
  return TRUE;
}

static gboolean
tf_rows (const char *dir, gboolean quick, GPtrArray *rows, GError **error)
{
  /* The p2.8xlarge cluster (8-64 K80 dies, 1-8 instances) ran TensorFlow's
   * distributed_replicated mode: the dies of an instance sum their
   * gradients, parameter servers on the worker instances (doc/VALIDATION.md
   * part 3). */
  static const char *const ps_node[] = { "--collective", "ps", "--ps-aggregation", "node",
                                         NULL };
  static const struct {
    const char *source, *platform, *gpu, *set;
    const char *const *args;
  } plats[] = {
    { "NVIDIA DGX-1", "dgx1-p100", "P100-SXM2-16GB", "tf2017", NULL },
    { "AWS p2.8xlarge", "aws-p2-8xlarge", "K80", "tf2017", NULL },
    { "AWS p2.8xlarge cluster (multi-node)", "aws-p2-8xlarge-x8", "K80", "tf2017-cluster",
      ps_node },
  };
  static const struct {
    const char *source, *workload;
  } models[] = {
    { "InceptionV3", "inception3" }, { "ResNet-50", "resnet50" }, { "ResNet-152", "resnet152" },
    { "AlexNet", "alexnet" },        { "VGG16", "vgg16" },
  };
  static const char *const names[] = { "data",          "platform", "n_gpus", "model",
                                       "batch_per_gpu", "images_per_sec", NULL };
  g_auto (Table) t = { 0 };
  int col[6];
  if (!table_load (&t, dir, "tf_benchmarks_2017_images_per_sec.csv", error)
      || !table_columns (&t, names, col, error))
    return FALSE;
  for (guint i = 1; i < t.rows->len; i++) {
    char **r = g_ptr_array_index (t.rows, i);
    const char *ips = cell (r, col[5]);
    if (strcmp (cell (r, col[0]), "synthetic") != 0 || ips[0] == '\0'
        || strcmp (ips, "N/A") == 0)
      continue;
    int p = -1, m = -1;
    for (guint k = 0; k < G_N_ELEMENTS (plats); k++)
      if (strcmp (cell (r, col[1]), plats[k].source) == 0)
        p = (int) k;
    for (guint k = 0; k < G_N_ELEMENTS (models); k++)
      if (strcmp (cell (r, col[3]), models[k].source) == 0)
        m = (int) k;
    if (p < 0)
      continue;
    if (m < 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "'%s': line %u: unknown model '%s'",
                   t.path, i + 1 + t.comments, cell (r, col[3]));
      return FALSE;
    }
    double n, batch, measured;
    if (!number (&t, i + 1, cell (r, col[2]), &n, error)
        || !number (&t, i + 1, cell (r, col[4]), &batch, error)
        || !number (&t, i + 1, ips, &measured, error))
      return FALSE;
    gboolean cluster = plats[p].args != NULL;
    if (quick && n != 1 && !(cluster && n == 64))
      continue;
    Row *row = g_new0 (Row, 1);
    row->set = plats[p].set;
    row->args = plats[p].args;
    /* FIT (frameworks/tensorflow1.conf): the 1-GPU DGX-1 rows and every
     * p2.8xlarge ResNet-50 row; the cluster's rows are REPORT */
    row->fit = cluster  ? FALSE
               : p == 1 ? strcmp (models[m].workload, "resnet50") == 0
                        : n == 1;
    row->gpu = g_strdup (plats[p].gpu);
    row->platform = g_strdup (plats[p].platform);
    row->n = (int) n;
    row->workload = g_strdup (models[m].workload);
    row->batch = (int) batch;
    row->precision = g_strdup ("fp32");
    row->measured = measured;
    row->unit = UNIT_IMG_S;
    g_ptr_array_add (rows, row);
  }
  return TRUE;
}

/* The benchmark's own networks (workloads/convnet-benchmarks/, from its
 * Torch files at the revisions of the cuDNN R4 rows), not the zoo's
 * torchvision ones. */
static gboolean
convnet_rows (const char *dir, GPtrArray *rows, GError **error)
{
  static const struct {
    const char *source, *workload;
  } models[] = {
    { "AlexNet (One Weird Trick paper)", "alexnet-owt" },
    { "Overfeat [fast]", "overfeat-fast" },
    { "OxfordNet [Model-A]", "vgg-a" },
    { "GoogleNet V1", "googlenet-v1" },
  };
  /* cuDNN R4 "fp16" on the Maxwell Titan X stores fp16 and computes in fp32
   * (GM200 has no fp16 arithmetic): run as --precision fp16, which halves
   * the bytes while the catalogue's fp16 peak of 0 falls back to fp32. */
  static const struct {
    const char *library, *precision;
  } libraries[] = {
    { "CuDNN[R4]-fp32 (Torch)", "fp32" },
    { "CuDNN[R4]-fp16 (Torch)", "fp16" },
  };
  static const char *const names[] = { "table", "library", "model_or_layer", "total_ms",
                                       "batch_size", NULL };
  g_auto (Table) t = { 0 };
  int col[5];
  if (!table_load (&t, dir, "convnet_benchmarks_titanx.csv", error)
      || !table_columns (&t, names, col, error))
    return FALSE;
  for (guint i = 1; i < t.rows->len; i++) {
    char **r = g_ptr_array_index (t.rows, i);
    const char *prec = NULL, *w = NULL;
    for (guint k = 0; k < G_N_ELEMENTS (libraries); k++)
      if (strcmp (cell (r, col[1]), libraries[k].library) == 0)
        prec = libraries[k].precision;
    for (guint k = 0; k < G_N_ELEMENTS (models); k++)
      if (strcmp (cell (r, col[2]), models[k].source) == 0)
        w = models[k].workload;
    if (strcmp (cell (r, col[0]), "imagenet_winners") != 0 || prec == NULL || w == NULL
        || cell (r, col[3])[0] == '\0')
      continue;
    double ms, batch;
    if (!number (&t, i + 1, cell (r, col[3]), &ms, error)
        || !number (&t, i + 1, cell (r, col[4]), &batch, error))
      return FALSE;
    Row *row = g_new0 (Row, 1);
    row->set = "convnet";
    /* FIT (frameworks/torch7-cudnn4.conf): the VGG-A pair, all 3x3 convolutions */
    row->fit = strcmp (w, "vgg-a") == 0;
    row->gpu = g_strdup ("TitanX-Maxwell");
    row->n = 1;
    row->workload = g_strdup (w);
    g_autofree char *file = g_strconcat (w, ".xml", NULL);
    row->workload_path
        = g_build_filename (dts_datadir_get (), "workloads", "convnet-benchmarks", file, NULL);
    row->batch = (int) batch;
    row->precision = g_strdup (prec);
    row->measured = ms;
    row->unit = UNIT_MS;
    g_ptr_array_add (rows, row);
  }
  return TRUE;
}

static gboolean
deepbench_rows (const char *dir, GPtrArray *rows, GError **error)
{
  static const char *const names[] = { "device", "mean_ms", "size_floats", "n_ranks",
                                       "n_nodes", NULL };
  g_auto (Table) t = { 0 };
  int col[5];
  if (!table_load (&t, dir, "deepbench_allreduce.csv", error)
      || !table_columns (&t, names, col, error))
    return FALSE;
  for (guint i = 1; i < t.rows->len; i++) {
    char **r = g_ptr_array_index (t.rows, i);
    /* Xeon Phi over Omni-Path: no platform of that kind is shipped. */
    if (strstr (cell (r, col[0]), "Xeon Phi") != NULL || cell (r, col[1])[0] == '\0')
      continue;
    double ms, floats, n, nodes;
    if (!number (&t, i + 1, cell (r, col[1]), &ms, error)
        || !number (&t, i + 1, cell (r, col[2]), &floats, error)
        || !number (&t, i + 1, cell (r, col[3]), &n, error)
        || !number (&t, i + 1, cell (r, col[4]), &nodes, error))
      return FALSE;
    Row *row = g_new0 (Row, 1);
    row->set = "deepbench";
    row->gpu = g_strdup (cell (r, col[0]));
    row->platform = g_strdup ("deepbench-p100-x4");
    row->n = (int) n;
    row->nodes = (int) nodes;
    row->floats = floats;
    row->outlier = floats == 16777216 && (row->n == 16 || row->n == 32);
    row->measured = ms;
    row->unit = UNIT_MS;
    g_ptr_array_add (rows, row);
  }
  return TRUE;
}

/* The transformer sets (doc/VALIDATION.md parts 14 and 15; the port of
 * bench/validate-llm.py): each row runs as Megatron-LM ran it, NCCL's
 * collectives included (--collective nccl), under the megatron profile
 * (fitted on vTrain's single-node table, which no set here uses) unless -F
 * names one.  Nothing was fitted on them.  LEFT gathers the rows left out
 * and why. */

static void
llm_arg (Row *r, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
llm_arg (Row *r, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_ptr_array_add (r->run_args, g_strdup_vprintf (fmt, ap));
  va_end (ap);
}

static Row *
llm_row (const char *set, const char *gpu, const char *precision, int n, int tp, int pp, int dp,
         int batch, int micro_batches)
{
  Row *row = g_new0 (Row, 1);
  row->set = set;
  row->gpu = g_strdup (gpu);
  row->n = n;
  row->tp = tp;
  row->pp = pp;
  row->dp = dp;
  row->vstages = 1;
  row->batch = batch;
  row->micro_batches = micro_batches;
  row->precision = g_strdup (precision);
  row->unit = UNIT_S_ITER;
  row->run_args = g_ptr_array_new_with_free_func (g_free);
  llm_arg (row, "--strategy");
  llm_arg (row, "hybrid");
  llm_arg (row, "--stages");
  llm_arg (row, "%d", pp);
  llm_arg (row, "--tensor-parallel");
  llm_arg (row, "%d", tp);
  llm_arg (row, "--dp");
  llm_arg (row, "%d", dp);
  llm_arg (row, "--batch-size");
  llm_arg (row, "%d", batch);
  llm_arg (row, "--micro-batches");
  llm_arg (row, "%d", micro_batches);
  llm_arg (row, "--precision");
  llm_arg (row, "%s", precision);
  return row;
}

/* The tensor-parallel collectives of ROW as its framework ran them: as
 * Megatron-LM's (and Transformer Engine's) column-parallel layers run their
 * backward, the input's all-gather (sequence parallelism) and the data
 * gradient's reduce-scatter or all-reduce asynchronous, beside the data
 * and weight gradients' GEMMs (backward); with userbuffers (NeMo's
 * ub_tp_comm_overlap), every sequence-parallel collective around a split
 * GEMM too (all). doc/VALIDATION.md part 21. */
static void
llm_tp_overlap (Row *row, gboolean userbuffers)
{
  row->tp_overlap = row->tp <= 1 ? NULL : userbuffers ? "all" : "backward";
}

/* Korthikanti et al. 2022, Table 5: GPT models on Selene's DGX A100 nodes,
 * full recomputation against sequence parallelism with selective
 * recomputation ("seqsel"); the vocabulary Megatron's padded GPT-2 one of
 * 51,200, and Megatron-LM's attention of the time, before FlashAttention
 * (two batched GEMMs around a fused scale-mask-softmax: attention
 * "unfused").  Selene's nodes as `dtsim platform` makes them: 8 A100 SXM4
 * 80 GB on NVSwitch, 8 NICs of 200 Gb/s (HDR InfiniBand).  The 8- and
 * 64-GPU rows; the 280- and 512-GPU rows take minutes each and are left
 * out (bench/validate-llm.py --all runs them); --quick: the 8-GPU rows. */
static gboolean
korthikanti_rows (const char *dir, gboolean quick, GPtrArray *rows, GString *left,
                  GError **error)
{
  static const char *const names[] = { "model", "mode", "measured_iter_time_s", "num_gpus",
                                       "tp", "pp", "global_batch", "micro_batch",
                                       "pipeline_interleaving", "hidden", "ffn", "seq_len",
                                       "heads", "head_dim", "layers", NULL };
  g_auto (Table) t = { 0 };
  int col[15];
  if (!table_load (&t, dir, "korthikanti2022_selene_iteration_times.csv", error)
      || !table_columns (&t, names, col, error))
    return FALSE;
  guint big = 0, quick_out = 0;
  for (guint i = 1; i < t.rows->len; i++) {
    char **r = g_ptr_array_index (t.rows, i);
    double v[13];
    for (int k = 0; k < 13; k++)
      if (!number (&t, i + 1, cell (r, col[k + 2]), &v[k], error))
        return FALSE;
    int n = (int) v[1], tp = (int) v[2], pp = (int) v[3], gb = (int) v[4], mb = (int) v[5];
    int vst = (int) v[6];
    const char *mode = cell (r, col[1]);
    if (n != 8 && n != 64) {
      big++;
      continue;
    }
    if (quick && n != 8) {
      quick_out++;
      continue;
    }
    if (strcmp (mode, "full") != 0 && strcmp (mode, "seqsel") != 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "'%s': line %u: unknown mode '%s'",
                   t.path, i + 1 + t.comments, mode);
      return FALSE;
    }
    if (mb <= 0 || gb % mb != 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "'%s': line %u: global batch %d is not a multiple of the micro-batch %d",
                   t.path, i + 1 + t.comments, gb, mb);
      return FALSE;
    }
    Row *row = llm_row ("korthikanti", "A100-SXM4-80GB", "fp16", n, tp, pp, 1, gb, gb / mb);
    row->nics = 8;
    row->mode = strcmp (mode, "full") == 0 ? "full" : "seqsel";
    row->micro_batch = mb;
    row->workload = g_strdup (cell (r, col[0]));
    /* the numbers as the file spells them, as the script writes them */
    row->xml = g_markup_printf_escaped (
        "<model name=\"%s\"><transformer layers=\"%s\" hidden=\"%s\" ffn=\"%s\" "
        "heads=\"%s\" head-dim=\"%s\" vocab=\"51200\" seq-len=\"%s\" "
        "attention=\"unfused\"/></model>\n",
        cell (r, col[0]), cell (r, col[14]), cell (r, col[9]), cell (r, col[10]),
        cell (r, col[12]), cell (r, col[13]), cell (r, col[11]));
    if (vst > 1) {
      row->vstages = vst;
      llm_arg (row, "--virtual-stages");
      llm_arg (row, "%d", vst);
    }
    llm_arg (row, "--recompute");
    if (strcmp (mode, "full") == 0)
      llm_arg (row, "full");
    else {
      llm_arg (row, "selective");
      llm_arg (row, "--sequence-parallel");
    }
    llm_tp_overlap (row, FALSE);
    row->measured = v[0];
    g_ptr_array_add (rows, row);
  }
  if (big)
    g_string_append_printf (left, "%skorthikanti's %u rows on 280 and 512 GPUs (minutes each "
                            "to simulate; bench/validate-llm.py --all runs them)",
                            left->len ? "; " : "", big);
  if (quick_out)
    g_string_append_printf (left, "%skorthikanti's %u 64-GPU rows (--quick)",
                            left->len ? "; " : "", quick_out);
  return TRUE;
}

/* vTrain's multi-node set: Megatron-DeepSpeed GPT models on A100, as its
 * configurations state: full recomputation, 1F1B, fp16, nodes of 8 GPUs
 * with 800 Gb/s between them (4 NICs of 200 Gb/s), GPT-2's vocabulary
 * padded as Megatron pads it.  As vTrain models the runs (its
 * src/model/gpt_modeling.py and src/predictor.py at f8dda847): unfused
 * attention, and the gradients all-reduced after the backward pass
 * (use_gradient_bucket false in every configuration: --no-overlap).  The
 * 64-GPU rows; those on more take minutes each and are left out
 * (bench/validate-llm.py --set=vtrain --all); --quick leaves the set out. */
static gboolean
vtrain_rows (const char *dir, gboolean quick, GPtrArray *rows, GString *left, GError **error)
{
  static const char *const names[] = { "Parameters (billion)", "n_gpus", "global batch",
                                       "micro batch", "hidden size", "attention heads",
                                       "n_layers", "sequence length", "tensor parallelism",
                                       "data parallelism", "pipeline parallelism",
                                       "iteration time (ms)", NULL };
  g_auto (Table) t = { 0 };
  int col[12];
  if (!table_load (&t, dir, "vtrain_ground_truth_multi.csv", error)
      || !table_columns (&t, names, col, error))
    return FALSE;
  guint big = 0, quick_out = 0;
  for (guint i = 1; i < t.rows->len; i++) {
    char **r = g_ptr_array_index (t.rows, i);
    double v[11];
    for (int k = 0; k < 11; k++)
      if (!number (&t, i + 1, cell (r, col[k + 1]), &v[k], error))
        return FALSE;
    int n = (int) v[0], gb = (int) v[1], mb = (int) v[2], tp = (int) v[7], dp = (int) v[8];
    int pp = (int) v[9];
    if (n > 64) {
      big++;
      continue;
    }
    if (quick) {
      quick_out++;
      continue;
    }
    if (tp <= 0 || dp <= 0 || mb <= 0 || gb % dp != 0 || (gb / dp) % mb != 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "'%s': line %u: global batch %d does not split into %d replicas of "
                   "micro-batches of %d",
                   t.path, i + 1 + t.comments, gb, dp, mb);
      return FALSE;
    }
    int per_replica = gb / dp;
    Row *row = llm_row ("vtrain", "A100-SXM4-80GB", "fp16", n, tp, pp, dp, per_replica,
                        per_replica / mb);
    row->micro_batch = mb;
    row->nics = 4;
    row->workload = g_strdup_printf ("gpt-%s", cell (r, col[0]));
    /* Megatron pads GPT-2's 50,257 tokens to a multiple of 128 x TP */
    int vocab = (50257 + 128 * tp - 1) / (128 * tp) * 128 * tp;
    row->xml = g_strdup_printf ("<model name=\"gpt\"><transformer layers=\"%d\" hidden=\"%d\" "
                                "heads=\"%d\" vocab=\"%d\" seq-len=\"%d\" "
                                "attention=\"unfused\"/></model>\n",
                                (int) v[5], (int) v[3], (int) v[4], vocab, (int) v[6]);
    llm_arg (row, "--recompute");
    llm_arg (row, "full");
    llm_arg (row, "--no-overlap");
    llm_tp_overlap (row, FALSE);
    row->measured = v[10] / 1e3;
    g_ptr_array_add (rows, row);
  }
  if (big)
    g_string_append_printf (left, "%svtrain's %u rows on more than 64 GPUs (minutes each to "
                            "simulate; bench/validate-llm.py --set=vtrain --all runs them)",
                            left->len ? "; " : "", big);
  if (quick_out)
    g_string_append_printf (left, "%svtrain's %u 64-GPU rows (--quick)", left->len ? "; " : "",
                            quick_out);
  return TRUE;
}

/* NeMo 24.07's performance summary: pretraining on DGX H100 in FP8, the
 * last of the file's three revisions; each row as NeMo ran it (its TP, PP,
 * virtual stages, micro-batch and global batch, sequence parallelism
 * under TP > 1, its context parallelism, the distributed optimizer (--zero
 * 1) with its parameter gather overlapped (--param-gather overlap), no
 * recomputation; doc/VALIDATION.md parts 17 and 22 state what is assumed),
 * the model's dimensions from model_dims.csv.  Left out: models without
 * dimensions, and rows on more than 128 GPUs (minutes each); --quick keeps
 * one-node rows.  The
 * measured iteration time is the global batch's tokens over the measured
 * tokens/s/GPU x GPUs. */
static const char nemo_revision[] = "8e3d65dcfe3504689bfc5b6e67d502780aacad41";
/* ub: the recipe turns on Transformer Engine's userbuffers
 * (ub_tp_comm_overlap), run as --tp-overlap all (NeMo-Framework-Launcher's
 * launcher_scripts/conf/training at 24c3d6bb, the last commit before the
 * table's revision: gpt3/20b, llama/llama2_70b, llama/llama3_70b,
 * nemotron/nemotron_8b and nemotron_22b; gpt3/175b leaves it off; the
 * TP 1 rows have nothing to overlap). */
static const struct {
  const char *nemo, *dims, *attributes;
  gboolean ub;
} nemo_models[] = {
  { "GPT3-5B", "GPT3-5B", "tied-embedding=\"true\"", FALSE },
  { "GPT3-20B", "GPT3-20B", "tied-embedding=\"true\"", TRUE },
  { "GPT3-175B", "GPT3-175B", "tied-embedding=\"true\"", FALSE },
  { "LLAMA2-7B", "Llama2-7B", "mlp=\"swiglu\" norm=\"rmsnorm\" positions=\"rotary\" bias=\"false\"", FALSE },
  { "LLAMA2-13B", "Llama2-13B", "mlp=\"swiglu\" norm=\"rmsnorm\" positions=\"rotary\" bias=\"false\"", FALSE },
  { "LLAMA2-70B", "Llama2-70B", "mlp=\"swiglu\" norm=\"rmsnorm\" positions=\"rotary\" bias=\"false\"", TRUE },
  { "LLAMA3-8B", "Llama3-8B", "mlp=\"swiglu\" norm=\"rmsnorm\" positions=\"rotary\" bias=\"false\"", FALSE },
  { "LLAMA3-70B", "Llama3-70B", "mlp=\"swiglu\" norm=\"rmsnorm\" positions=\"rotary\" bias=\"false\"", TRUE },
  /* Nemotron 3's squared-ReLU MLP runs as a GELU MLP of the same shape */
  { "Nemotron-8B", "Nemotron-8B (Nemotron3 8B)", "positions=\"rotary\" bias=\"false\"", TRUE },
  { "Nemotron-22B", "Nemotron-22B (Nemotron3 22B)", "positions=\"rotary\" bias=\"false\"", TRUE },
};

static gboolean
nemo_rows (const char *dir, gboolean quick, GPtrArray *rows, GString *left, GError **error)
{
  static const char *const names[] = { "revision_commit", "phase", "model", "n_gpus", "gbs",
                                       "mbs", "seq_len", "tp", "pp", "cp", "vp",
                                       "tokens_per_s_per_gpu", NULL };
  static const char *const dim_names[] = { "model", "layers", "hidden", "ffn_hidden", "heads",
                                           "kv_heads", "head_dim", "vocab", NULL };
  g_auto (Table) t = { 0 };
  g_auto (Table) d = { 0 };
  int col[12], dcol[8];
  if (!table_load (&t, dir, "nemo_24.07_perf_summary.csv", error)
      || !table_columns (&t, names, col, error) || !table_load (&d, dir, "model_dims.csv", error)
      || !table_columns (&d, dim_names, dcol, error))
    return FALSE;
  guint big = 0, quick_out = 0;
  g_autoptr (GString) unknown = g_string_new (NULL);
  for (guint i = 1; i < t.rows->len; i++) {
    char **r = g_ptr_array_index (t.rows, i);
    if (strcmp (cell (r, col[0]), nemo_revision) != 0 || strcmp (cell (r, col[1]), "pretrain") != 0)
      continue;
    const char *model = cell (r, col[2]);
    double v[9];
    for (int k = 0; k < 9; k++) {
      const char *text = cell (r, col[k + 3]);
      if (k == 7 && *text == '\0')
        text = "1"; /* vp: none */
      if (!number (&t, i + 1, text, &v[k], error))
        return FALSE;
      if (k < 8 && !(v[k] >= 0 && v[k] <= 1e7)) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                     "'%s': line %u: '%s': expected a count in 0..1e7", t.path,
                     i + 1 + t.comments, text);
        return FALSE;
      }
    }
    int n = (int) v[0], gb = (int) v[1], mb = (int) v[2], seq = (int) v[3], tp = (int) v[4];
    int pp = (int) v[5], cp = (int) v[6], vp = (int) v[7];
    guint m = 0;
    while (m < G_N_ELEMENTS (nemo_models) && strcmp (nemo_models[m].nemo, model) != 0)
      m++;
    char **dims = NULL;
    guint dline = 0;
    for (guint j = 1; m < G_N_ELEMENTS (nemo_models) && j < d.rows->len && dims == NULL; j++)
      if (strcmp (cell (g_ptr_array_index (d.rows, j), dcol[0]), nemo_models[m].dims) == 0) {
        dims = g_ptr_array_index (d.rows, j);
        dline = j + 1;
      }
    if (dims == NULL) {
      g_string_append_printf (unknown, "%s%s on %d GPUs", unknown->len ? ", " : "", model, n);
      continue;
    }
    if (n > 128) {
      big++;
      continue;
    }
    if (quick && n > 8) {
      quick_out++;
      continue;
    }
    gint64 group = (gint64) tp * pp * cp;
    if (n <= 0 || tp <= 0 || pp <= 0 || cp <= 0 || mb <= 0 || vp <= 0 || seq <= 0
        || n % group != 0 || gb % (n / group) != 0 || (gb / (n / group)) % mb != 0
        || !(v[8] > 0)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "'%s': line %u: %d GPUs, TP %d, PP %d, CP %d, global batch %d and "
                   "micro-batch %d do not split into data-parallel replicas of whole "
                   "micro-batches",
                   t.path, i + 1 + t.comments, n, tp, pp, cp, gb, mb);
      return FALSE;
    }
    /* the first word of "50257 (tok)" */
    double vocab, kv;
    g_autofree char *vocab_text = g_strndup (cell (dims, dcol[7]), strcspn (cell (dims, dcol[7]), " "));
    g_autofree char *kv_text = g_strndup (cell (dims, dcol[5]), strcspn (cell (dims, dcol[5]), " "));
    if (!number (&d, dline, vocab_text, &vocab, error) || !number (&d, dline, kv_text, &kv, error))
      return FALSE;
    int dp = (int) (n / group), per_replica = gb / dp;
    Row *row = llm_row ("nemo", "H100-SXM5-80GB", "fp8", n, tp, pp, dp, per_replica,
                        per_replica / mb);
    row->micro_batch = mb;
    row->nics = n > 8 ? 8 : 0;
    row->workload = g_ascii_strdown (model, -1);
    row->xml = g_markup_printf_escaped (
        "<model name=\"%s\"><transformer layers=\"%s\" hidden=\"%s\" ffn=\"%s\" "
        "heads=\"%s\" kv-heads=\"%s\" head-dim=\"%s\" vocab=\"%s\" pad-vocab-to=\"%d\" "
        "seq-len=\"%d\" ",
        row->workload, cell (dims, dcol[1]), cell (dims, dcol[2]), cell (dims, dcol[3]),
        cell (dims, dcol[4]), kv_text, cell (dims, dcol[6]), vocab_text, 128 * tp, seq);
    char *xml = g_strconcat (row->xml, nemo_models[m].attributes, "/></model>\n", NULL);
    g_free (row->xml);
    row->xml = xml;
    llm_arg (row, "--recompute");
    llm_arg (row, "none");
    /* NeMo's GPT, Llama and Nemotron recipes run Megatron's distributed
     * optimizer (distributed_fused_adam), every one of them with
     * overlap_param_sync: true (the updated parameters gathered bucket by
     * bucket during the next forward pass; NeMo-Framework-Launcher's
     * training configs at 24c3d6bb) */
    llm_arg (row, "--zero");
    llm_arg (row, "1");
    row->param_gather = "overlap";
    if (vp > 1) {
      row->vstages = vp;
      llm_arg (row, "--virtual-stages");
      llm_arg (row, "%d", vp);
    }
    if (tp > 1)
      llm_arg (row, "--sequence-parallel");
    llm_tp_overlap (row, nemo_models[m].ub); /* all needs --sequence-parallel: TP > 1 */
    if (cp > 1) {
      row->cp = cp;
      llm_arg (row, "--context-parallel");
      llm_arg (row, "%d", cp);
    }
    row->measured = (double) gb * seq / (v[8] * n);
    g_ptr_array_add (rows, row);
  }
  if (unknown->len)
    g_string_append_printf (left, "%snemo's %s (no dimensions in model_dims.csv)",
                            left->len ? "; " : "", unknown->str);
  if (big)
    g_string_append_printf (left, "%snemo's %u row%s on more than 128 GPUs (minutes each to "
                            "simulate; bench/validate-llm.py --set=nemo runs them)",
                            left->len ? "; " : "", big, big == 1 ? "" : "s");
  if (quick_out)
    g_string_append_printf (left, "%snemo's %u row%s on more than one node (--quick)",
                            left->len ? "; " : "", quick_out, quick_out == 1 ? "" : "s");
  return TRUE;
}

/* ---- running dtsim -------------------------------------------------------------- */

/* Run this executable with ARGS (NULL-terminated after the command); its
 * stdout in *OUT. Failures quote the command and the child's last line. */
static gboolean
call (Validate *v, GPtrArray *args, char **out, GError **error)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, v->exe);
  for (guint i = 0; i < args->len; i++)
    g_ptr_array_add (argv, g_ptr_array_index (args, i));
  g_ptr_array_add (argv, NULL);
  g_autofree char *err = NULL;
  int status = 0;
  g_autoptr (GError) local = NULL;
  /* Platforms made for this run are named by their file name alone. */
  g_autoptr (GString) cmd = g_string_new (NULL);
  for (guint i = 0; i < args->len; i++) {
    const char *a = g_ptr_array_index (args, i);
    g_autofree char *base = v->tmp && g_str_has_prefix (a, v->tmp) ? g_path_get_basename (a) : NULL;
    g_string_append_printf (cmd, "%s%s", i ? " " : "", base ? base : a);
  }
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, &err,
                     &status, &local)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "cannot run '%s': %s", v->exe, local->message);
    return FALSE;
  }
  if (!g_spawn_check_wait_status (status, &local)) {
    g_strchomp (err);
    const char *last = strrchr (err, '\n');
    last = last ? last + 1 : err;
    if (g_str_has_prefix (last, "dtsim: error: "))
      last += strlen ("dtsim: error: ");
    gboolean usage = g_error_matches (local, G_SPAWN_EXIT_ERROR, 2);
    g_set_error (error, DTS_ERROR, usage ? DTS_ERROR_USAGE : DTS_ERROR_INVALID,
                 "'dtsim %s': %s", cmd->str, *last ? last : local->message);
    g_clear_pointer (out, g_free);
    return FALSE;
  }
  return TRUE;
}

/* The directory of the files made for this run, made at first use. */
static gboolean
ensure_tmp (Validate *v, GError **error)
{
  if (v->tmp != NULL)
    return TRUE;
  g_autoptr (GError) local = NULL;
  v->tmp = g_dir_make_tmp ("dtsim-validate-XXXXXX", &local);
  if (v->tmp == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "cannot make a temporary directory: %s",
                 local->message);
    return FALSE;
  }
  return TRUE;
}

/* One node of 8 GPUs: NVSwitch for A100 (DGX A100 / HGX), the DGX-1 hybrid
 * cube-mesh for V100 (Lambda's V100 servers are SXM2 NVLink machines).
 * korthikanti, vtrain, nemo: N GPUs in nodes of 8 on NVSwitch, R->nics
 * NICs per node (200 Gb/s with A100, 400 Gb/s with H100) to one switch. */
static const char *
platform_for (Validate *v, const Row *r, GError **error)
{
  if (r->platform)
    return r->platform;
  g_autofree char *key = r->nics ? g_strdup_printf ("%s-%d-%d", r->gpu, r->n, r->nics)
                                 : g_strdup (r->gpu);
  const char *path = g_hash_table_lookup (v->platforms, key);
  if (path)
    return path;
  if (!ensure_tmp (v, error))
    return NULL;
  g_autofree char *name = g_strconcat (key, ".xml", NULL);
  char *file = g_build_filename (v->tmp, name, NULL);
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  char nodes[16], per_node[16], nics[16];
  g_snprintf (nodes, sizeof nodes, "%d", r->nics ? MAX (1, r->n / 8) : 1);
  g_snprintf (per_node, sizeof per_node, "%d", r->nics ? MIN (r->n, 8) : 8);
  g_snprintf (nics, sizeof nics, "%d", r->nics);
  const char *base[] = { "platform", "-o", file, "--nodes", nodes, "--gpus-per-node", per_node,
                         "--gpu", r->gpu, NULL };
  for (int i = 0; base[i]; i++)
    g_ptr_array_add (args, (char *) base[i]);
  if (r->nics) {
    g_ptr_array_add (args, (char *) "--nics-per-node");
    g_ptr_array_add (args, nics);
    g_ptr_array_add (args, (char *) "--nic-bandwidth");
    /* HDR InfiniBand with A100 (DGX A100), NDR with H100 (DGX H100) */
    g_ptr_array_add (args, (char *) (g_str_has_prefix (r->gpu, "H100") ? "400Gbps" : "200Gbps"));
  }
  /* The PCIe tree as the rows were fitted and reported with (PCIe 3.0 x16
   * on root ports), not the GPU's system class: the published errors stay
   * those of doc/VALIDATION.md. */
  static const char *const a100[] = { "--intra", "nvswitch", "--intra-bandwidth", "300GB/s",
                                      "--pcie-switches", "0", "--pcie-bandwidth", "15.75GB/s",
                                      NULL };
  static const char *const v100[] = { "--intra", "nvlink-mesh", "--nvlink-pairs", "dgx1-v100",
                                      "--intra-bandwidth", "25GB/s", "--pcie-switches", "2",
                                      NULL };
  /* PCIe cards (A100 PCIe, lambda-v1-other): PCIe only, PCIe 3.0 x16
   * links on root ports */
  static const char *const pcie[] = { "--intra", "pcie", "--pcie-switches", "0",
                                      "--pcie-bandwidth", "15.75GB/s", NULL };
  /* DGX H100: NVSwitch of 450 GB/s per GPU and direction, the rest the
   * H100 SXM system class's (doc/PLATFORMS-GENERATED.md) */
  static const char *const h100[] = { "--intra", "nvswitch", "--intra-bandwidth", "450GB/s",
                                      NULL };
  const char *const *fabric = g_str_has_prefix (r->gpu, "A100-SXM") ? a100
                              : g_str_has_prefix (r->gpu, "H100-SXM") ? h100
                              : g_str_has_prefix (r->gpu, "V100") ? v100
                                                                  : pcie;
  for (int i = 0; fabric && fabric[i]; i++)
    g_ptr_array_add (args, (char *) fabric[i]);
  g_autofree char *out = NULL;
  if (!call (v, args, &out, error)) {
    g_free (file);
    return NULL;
  }
  g_hash_table_insert (v->platforms, g_steal_pointer (&key), file);
  return file;
}

static const char *
framework_of (const Validate *v, const Row *r)
{
  if (g_str_has_prefix (r->set, "lambda-v1"))
    return v->fw_lambda_v1;
  if (g_str_has_prefix (r->set, "lambda"))
    return v->fw_lambda;
  return g_str_has_prefix (r->set, "tf2017") ? v->fw_tf2017 : v->fw_convnet;
}

static gboolean
result_number (const DtsSweepResult *res, const char *path, double *out, GError **error)
{
  const char *t = dts_sweep_result_field (res, path);
  if (t == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "dtsim run wrote no '%s'", path);
    return FALSE;
  }
  char *end;
  *out = dts_units_strtod (t, &end);
  return TRUE;
}

/* Whether the options given after -- set --NAME: they replace what a row
 * would give it. */
static gboolean
extra_sets (const Validate *v, const char *name)
{
  for (int i = 0; v->extra && v->extra[i];) {
    int span;
    if (dts_cli_word_option (v->extra + i, name, 0, NULL, &span))
      return TRUE;
    i += span;
  }
  return FALSE;
}

/* A transformer row: its <transformer> written to a file of this run, and
 * its own `dtsim run` options under the default profile, as
 * bench/validate-llm.py runs it; the error 1 - predicted / measured
 * iteration time. Its collectives are dtsim run's default, nccl: Megatron-LM
 * and NeMo ran NCCL, over every NIC rail (doc/VALIDATION.md part 15: the
 * two-channel ring, the default before, left rails idle and made tensor
 * parallelism across nodes 3.5x too slow); a --collective after -- replaces
 * it. */
static gboolean
predict_llm (Validate *v, Row *r, const char *plat, GError **error)
{
  if (!ensure_tmp (v, error))
    return FALSE;
  g_autofree char *name = g_strdup_printf ("%s-%u.xml", r->set, v->files->len);
  char *file = g_build_filename (v->tmp, name, NULL);
  g_ptr_array_add (v->files, file);
  if (!g_file_set_contents (file, r->xml, -1, error))
    return FALSE;
  const char *base[] = { "run", "-w", file, "-p", plat, "--allow-oversubscribe-memory",
                         "--format", "json", "--quiet", NULL };
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  for (int i = 0; base[i]; i++)
    g_ptr_array_add (args, (char *) base[i]);
  for (guint i = 0; i < r->run_args->len; i++)
    g_ptr_array_add (args, g_ptr_array_index (r->run_args, i));
  /* the tensor-parallel collectives as the row ran them (llm_tp_overlap);
   * a --tp-overlap after -- replaces it (none: blocking, as before part 21) */
  if (!extra_sets (v, "tp-overlap") && r->tp_overlap != NULL) {
    g_ptr_array_add (args, (char *) "--tp-overlap");
    g_ptr_array_add (args, (char *) r->tp_overlap);
  }
  /* the parameter gather as the row ran it; a --param-gather after -- replaces
   * it (after-step: as before part 22) */
  if (!extra_sets (v, "param-gather") && r->param_gather != NULL) {
    g_ptr_array_add (args, (char *) "--param-gather");
    g_ptr_array_add (args, (char *) r->param_gather);
  }
  g_ptr_array_add (args, (char *) "--framework");
  g_ptr_array_add (args, (char *) v->fw_llm);
  for (int i = 0; v->extra && v->extra[i]; i++)
    g_ptr_array_add (args, v->extra[i]);
  g_autofree char *out = NULL;
  if (!call (v, args, &out, error))
    return FALSE;
  g_autoptr (DtsSweepResult) res = dts_sweep_result_parse (out, error);
  if (res == NULL)
    return FALSE;
  const char *fits = dts_sweep_result_field (res, "memory.fits");
  r->fits = fits && strcmp (fits, "true") == 0;
  if (!result_number (res, "iteration_time_s", &r->predicted, error))
    return FALSE;
  r->error = 1 - r->predicted / r->measured;
  return TRUE;
}

static gboolean
predict_run (Validate *v, Row *r, GError **error)
{
  const char *plat = platform_for (v, r, error);
  if (plat == NULL)
    return FALSE;
  if (r->xml != NULL)
    return predict_llm (v, r, plat, error);
  char b[16], n[16];
  g_snprintf (b, sizeof b, "%d", r->batch);
  g_snprintf (n, sizeof n, "%d", r->n);
  const char *wl = r->workload_path ? r->workload_path : r->workload;
  /* A measured row ran: predict it even where dtsim's memory estimate (an
   * upper bound, doc/WORKLOADS.md) says it does not fit; the fits column
   * says so. */
  const char *base[] = { "run", "-p", plat, "-w", wl, "-b", b, "-n", n, "--precision",
                         r->precision, "-i", "3", "--format", "json", "--quiet", "--framework",
                         framework_of (v, r), "--allow-oversubscribe-memory", NULL };
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  for (int i = 0; base[i]; i++)
    g_ptr_array_add (args, (char *) base[i]);
  for (int i = 0; r->args && r->args[i]; i++)
    g_ptr_array_add (args, (char *) r->args[i]);
  for (int i = 0; v->extra && v->extra[i]; i++)
    g_ptr_array_add (args, v->extra[i]);
  g_autofree char *out = NULL;
  if (!call (v, args, &out, error))
    return FALSE;
  g_autoptr (DtsSweepResult) res = dts_sweep_result_parse (out, error);
  if (res == NULL)
    return FALSE;
  const char *fits = dts_sweep_result_field (res, "memory.fits");
  r->fits = fits && strcmp (fits, "true") == 0;
  if (r->unit == UNIT_IMG_S) {
    if (!result_number (res, "throughput_samples_per_s", &r->predicted, error))
      return FALSE;
    r->error = r->predicted / r->measured - 1;
  } else {
    double f, bw;
    if (!result_number (res, "breakdown.forward_s", &f, error)
        || !result_number (res, "breakdown.backward_s", &bw, error))
      return FALSE;
    r->predicted = 1e3 * (f + bw);
    r->error = r->measured / r->predicted - 1;
  }
  return TRUE;
}

static int
compare_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* One `dtsim allreduce` per GPU count over every buffer size of the set. */
static gboolean
predict_deepbench (Validate *v, GPtrArray *rows, GError **error)
{
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GHashTable) counts = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < rows->len; i++) {
    Row *r = g_ptr_array_index (rows, i);
    if (strcmp (r->set, "deepbench") != 0)
      continue;
    gboolean known = FALSE;
    for (guint s = 0; s < sizes->len; s++)
      known |= g_array_index (sizes, double, s) == r->floats;
    if (!known)
      g_array_append_val (sizes, r->floats);
    g_hash_table_add (counts, GINT_TO_POINTER (r->n));
  }
  if (sizes->len == 0)
    return TRUE;
  g_array_sort (sizes, compare_double);
  g_autoptr (GString) list = g_string_new (NULL);
  for (guint s = 0; s < sizes->len; s++)
    g_string_append_printf (list, "%s%.0fB", s ? "," : "", 4 * g_array_index (sizes, double, s));
  g_autoptr (GList) ns = g_hash_table_get_keys (counts);
  for (GList *l = ns; l; l = l->next) {
    int n = GPOINTER_TO_INT (l->data);
    char gpus[16];
    g_snprintf (gpus, sizeof gpus, "%d", n);
    const char *base[] = { "allreduce", "-p", "deepbench-p100-x4", "--gpus", gpus,
                           "--comm-granularity", "step", "--format", "csv", "--sizes", list->str,
                           NULL };
    g_autoptr (GPtrArray) args = g_ptr_array_new ();
    for (int i = 0; base[i]; i++)
      g_ptr_array_add (args, (char *) base[i]);
    g_autofree char *out = NULL;
    g_autoptr (GError) local = NULL;
    if (!call (v, args, &out, error))
      return FALSE;
    g_autoptr (GPtrArray) csv = dts_csv_parse (out, &local);
    if (csv == NULL || csv->len < 2) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "dtsim allreduce --gpus %d: no rows", n);
      return FALSE;
    }
    char **header = g_ptr_array_index (csv, 0);
    int cb = -1, ct = -1;
    for (int c = 0; header[c]; c++) {
      if (strcmp (header[c], "bytes") == 0)
        cb = c;
      if (strcmp (header[c], "time_s") == 0)
        ct = c;
    }
    if (cb < 0 || ct < 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "dtsim allreduce --gpus %d: no bytes and time_s columns", n);
      return FALSE;
    }
    for (guint k = 1; k < csv->len; k++) {
      char **f = g_ptr_array_index (csv, k);
      char *end;
      double bytes = dts_units_strtod (cell (f, cb), &end);
      double t = dts_units_strtod (cell (f, ct), &end);
      for (guint i = 0; i < rows->len; i++) {
        Row *r = g_ptr_array_index (rows, i);
        if (strcmp (r->set, "deepbench") == 0 && r->n == n && 4 * r->floats == bytes) {
          r->predicted = 1e3 * t;
          r->fits = TRUE;
          /* the time error of doc/VALIDATION.md part 1, sign flipped */
          r->error = 1 - r->predicted / r->measured;
        }
      }
    }
  }
  return TRUE;
}

/* ---- slices ---------------------------------------------------------------------- */

static void
add_error (GHashTable *acc, const Row *r, const char *slice, double e)
{
  g_autofree char *key = g_strdup_printf ("%s\t%s", r->fit ? "fit" : "report", slice);
  GArray *a = g_hash_table_lookup (acc, key);
  if (a == NULL) {
    a = g_array_new (FALSE, FALSE, sizeof (double));
    g_hash_table_insert (acc, g_steal_pointer (&key), a);
  }
  g_array_append_val (a, e);
}

static void
row_slices (GHashTable *acc, const Row *r)
{
  if (r->outlier)
    return;
  add_error (acc, r, r->set, r->error);
  g_autofree char *family = g_strndup (r->gpu, strcspn (r->gpu, "-"));
  if (g_str_has_prefix (r->set, "lambda")) {
    g_autofree char *a = g_strdup_printf ("%s %s", r->set, family);
    g_autofree char *b = g_strdup_printf ("%s %s %s", r->set, family, r->precision);
    g_autofree char *c = g_strdup_printf ("%s %d-GPU", r->set, r->n);
    add_error (acc, r, a, r->error);
    add_error (acc, r, b, r->error);
    add_error (acc, r, c, r->error);
    if (g_str_has_prefix (r->set, "lambda-v1")) {
      if (strcmp (r->workload, "resnet50") == 0)
        add_error (acc, r, "lambda-v1 all GPUs", r->error);
      add_error (acc, r, "lambda-v1 all GPUs, ResNet-50 + SSD", r->error);
    }
  } else if (strcmp (r->set, "tf2017") == 0) {
    g_autofree char *a = g_strdup_printf ("tf2017 %s", r->gpu);
    add_error (acc, r, a, r->error);
  } else if (strcmp (r->set, "tf2017-cluster") == 0) {
    g_autofree char *a = g_strdup_printf ("tf2017-cluster %s", r->workload);
    add_error (acc, r, a, r->error);
  } else if (strcmp (r->set, "convnet") == 0) {
    g_autofree char *a = g_strdup_printf ("convnet %s", r->precision);
    add_error (acc, r, a, r->error);
  } else if (strcmp (r->set, "deepbench") == 0) {
    g_autofree char *a = g_strdup_printf ("deepbench %s", r->gpu);
    add_error (acc, r, a, r->error);
    add_error (acc, r, r->nodes > 1 ? "deepbench several nodes" : "deepbench one node",
               r->error);
  } else if (strcmp (r->set, "korthikanti") == 0) {
    g_autofree char *a = g_strdup_printf ("korthikanti %s", r->mode);
    g_autofree char *b = g_strdup_printf ("korthikanti %d-GPU", r->n);
    add_error (acc, r, a, r->error);
    add_error (acc, r, b, r->error);
  } else if (strcmp (r->set, "nemo") == 0) {
    add_error (acc, r, r->n > 8 ? "nemo several nodes" : "nemo one node", r->error);
  } else if (strcmp (r->set, "vtrain") == 0) {
    /* doc/VALIDATION.md part 15's three kinds of rows */
    add_error (acc, r,
               r->tp > 8                ? "vtrain TP across nodes"
               : r->micro_batches == 1 ? "vtrain TP x PP in a node, one micro-batch"
                                       : "vtrain TP x PP in a node, 2+ micro-batches",
               r->error);
  }
}

/* The row of R's set, GPU, precision, workload and batch at N GPUs, or NULL. */
static const Row *
base_row (GPtrArray *rows, const Row *r, int n)
{
  for (guint j = 0; j < rows->len; j++) {
    const Row *b = g_ptr_array_index (rows, j);
    if (b->n == n && strcmp (b->set, r->set) == 0 && strcmp (b->gpu, r->gpu) == 0
        && strcmp (b->precision, r->precision) == 0 && strcmp (b->workload, r->workload) == 0
        && b->batch == r->batch)
      return b;
  }
  return NULL;
}

/* Speed-ups over 1 GPU ("1->n", "1->8"), and over one 8-GPU node ("8->n")
 * where a set goes beyond one (tf2017-cluster). */
static void
scaling_slices (GHashTable *acc, GPtrArray *rows)
{
  for (guint i = 0; i < rows->len; i++) {
    const Row *r = g_ptr_array_index (rows, i);
    if (r->n <= 1 || r->workload == NULL || r->xml != NULL)
      continue;
    const Row *b = base_row (rows, r, 1);
    if (b != NULL) {
      double e = (r->predicted / b->predicted) / (r->measured / b->measured) - 1;
      g_autofree char *s = g_strdup_printf ("%s scaling 1->n", r->set);
      add_error (acc, r, s, e);
      if (r->n == 8) {
        g_autofree char *s8 = g_strdup_printf ("%s scaling 1->8", r->set);
        add_error (acc, r, s8, e);
      }
    }
    const Row *b8 = r->n > 8 ? base_row (rows, r, 8) : NULL;
    if (b8 != NULL) {
      double e = (r->predicted / b8->predicted) / (r->measured / b8->measured) - 1;
      g_autofree char *s = g_strdup_printf ("%s scaling 8->n", r->set);
      add_error (acc, r, s, e);
    }
  }
}

static int
compare_keys (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The MAPE and the signed bias of the errors E (fractions). */
static void
errors_mean (const GArray *e, double *mape, double *bias)
{
  double abs_sum = 0, sum = 0;
  for (guint j = 0; j < e->len; j++) {
    abs_sum += fabs (g_array_index (e, double, j));
    sum += g_array_index (e, double, j);
  }
  *mape = abs_sum / e->len;
  *bias = sum / e->len;
}

static void
print_slices (GHashTable *acc, const char *split, const char *title)
{
  g_autoptr (GPtrArray) keys = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, acc);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (g_str_has_prefix (key, split) && ((char *) key)[strlen (split)] == '\t')
      g_ptr_array_add (keys, key);
  if (keys->len == 0)
    return;
  g_ptr_array_sort (keys, compare_keys);
  printf ("\n| slice (%s) | rows | MAPE | signed bias |\n|---|---:|---:|---:|\n", title);
  for (guint i = 0; i < keys->len; i++) {
    const char *k = g_ptr_array_index (keys, i);
    GArray *e = g_hash_table_lookup (acc, k);
    double mape, bias;
    errors_mean (e, &mape, &bias);
    printf ("| %s | %u | %.1f%% | %+.1f%% |\n", strchr (k, '\t') + 1, e->len, 100 * mape,
            100 * bias);
  }
}

/* The REPORT rows' sets, each weighing the same whatever its number of rows
 * (deepbench's 159 all-reduces would otherwise decide): the figure by which
 * framework profiles are compared and which each records
 * (validate-mape-MODEL; doc/VALIDATION.md part 19). */
static void
print_set_mean (GHashTable *acc, GPtrArray *rows)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  double mape = 0, bias = 0;
  unsigned n = 0, n_rows = 0;
  g_autoptr (GString) names = g_string_new (NULL);
  for (guint i = 0; i < rows->len; i++) {
    const Row *r = g_ptr_array_index (rows, i);
    if (r->fit || !g_hash_table_add (seen, (gpointer) r->set))
      continue;
    g_autofree char *k = g_strdup_printf ("report\t%s", r->set);
    GArray *e = g_hash_table_lookup (acc, k);
    if (e == NULL || e->len == 0)
      continue;
    double set_mape, set_bias;
    errors_mean (e, &set_mape, &set_bias);
    mape += set_mape;
    bias += set_bias;
    n_rows += e->len;
    n++;
    g_string_append_printf (names, "%s%s", names->len ? ", " : "", r->set);
  }
  if (n == 0)
    return;
  printf ("\nMean over %u set%s (%s), each weighing the same: MAPE %.1f%%, signed bias "
          "%+.1f%% (%u REPORT row%s)\n",
          n, n == 1 ? "" : "s", names->str, 100 * mape / n, 100 * bias / n, n_rows,
          n_rows == 1 ? "" : "s");
}

static void
print_rows (GPtrArray *rows, gboolean fit)
{
  printf ("\n| split | set | GPU | GPUs | workload | batch | precision | measured | predicted "
          "| error | fits |\n|---|---|---|---:|---|---:|---|---:|---:|---:|---|\n");
  for (guint i = 0; i < rows->len; i++) {
    const Row *r = g_ptr_array_index (rows, i);
    if (r->fit && !fit)
      continue;
    if (r->xml != NULL) {
      g_autofree char *v = r->vstages > 1 ? g_strdup_printf (" V %d", r->vstages) : NULL;
      g_autofree char *c = r->cp > 1 ? g_strdup_printf (" CP %d", r->cp) : NULL;
      printf ("| report | %s | %s | %d | %s%s%s, TP %d PP %d DP %d%s%s, %d x %d | %d | %s | "
              "%g s/iteration | %.2f | %+.1f%% | %s |\n",
              r->set, r->gpu, r->n, r->workload, r->mode ? " " : "", r->mode ? r->mode : "",
              r->tp, r->pp, r->dp, c ? c : "", v ? v : "", r->micro_batches, r->micro_batch,
              r->batch,
              r->precision, r->measured, r->predicted, 100 * r->error, r->fits ? "yes" : "NO");
    } else if (r->workload)
      printf ("| %s | %s | %s | %d | %s | %d | %s | %g %s | %.1f | %+.1f%% | %s |\n",
              r->fit ? "fit" : "report", r->set, r->gpu, r->n, r->workload, r->batch,
              r->precision, r->measured, r->unit == UNIT_IMG_S ? "img/s" : "ms fwd+bwd",
              r->predicted, 100 * r->error, r->fits ? "yes" : "NO");
    else
      printf ("| report | deepbench | %s | %d | all-reduce %.0f floats | - | fp32 | %g ms | "
              "%.3f | %+.1f%%%s | - |\n",
              r->gpu, r->n, r->floats, r->measured, r->predicted, 100 * r->error,
              r->outlier ? " (outlier)" : "");
  }
}

/* ---- the command ------------------------------------------------------------------ */

char *
dts_cli_shared_data_dir (const char *sub)
{
  const char *env = g_getenv ("DTSIM_SHARED");
  if (env != NULL && *env != '\0')
    return g_build_filename (env, "data", sub, NULL);
  return g_build_filename (dts_datadir_get (), "..", "shared", "data", sub, NULL);
}

gboolean
dts_cmd_validate (int argc, char **argv, GError **error)
{
  g_autofree char *data = NULL;
  g_autofree char *sets = NULL;
  g_auto (GStrv) frameworks = NULL;
  gboolean quick = FALSE, show_rows = FALSE, show_fit = FALSE;
  GOptionEntry entries[] = {
    { "data", 'd', 0, G_OPTION_ARG_STRING, &data,
      "Directory of the measured data sets (default: $DTSIM_SHARED/data/validation, else "
      "../shared/data/validation beside the data directory)", "DIR" },
    { "quick", 'q', 0, G_OPTION_ARG_NONE, &quick,
      "Only the 1- and 8-GPU Lambda rows, the 1-GPU TensorFlow rows, the 1- and 64-GPU "
      "cluster ones, the 8-GPU Korthikanti rows and NeMo's one-node row (seconds)", NULL },
    { "sets", 0, 0, G_OPTION_ARG_STRING, &sets,
      "Comma-separated sets to run: lambda, tf2017 (and tf2017-cluster), convnet, deepbench, "
      "korthikanti, vtrain, nemo (default: all)",
      "LIST" },
    { "framework", 'F', 0, G_OPTION_ARG_STRING_ARRAY, &frameworks,
      "Run the rows of SET (lambda, lambda-v1, tf2017 with tf2017-cluster, convnet, llm: the "
      "korthikanti, vtrain and nemo sets) under framework profile ID, or every set with a bare "
      "ID (default: lambda-v0 pytorch, lambda-v1 pytorch-ngc22, tf2017 tensorflow1, convnet "
      "torch7-cudnn4, llm megatron; lambda= sets both Lambda tables; repeatable)",
      "[SET=]ID" },
    { "rows", 0, 0, G_OPTION_ARG_NONE, &show_rows, "Also print every row", NULL },
    { "fit", 0, 0, G_OPTION_ARG_NONE, &show_fit,
      "Also print the FIT rows' slices, apart (not a measure of accuracy)", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("[-- RUN OPTION...]");
  g_option_context_set_summary (
      ctx, "Predict every row of the measured data sets that map to a platform dtsim\n"
           "ships or makes (Lambda's PyTorch ResNet-50 and SSD300 tables on V100, A100 and\n"
           "PCIe cards, the TensorFlow 2017 benchmarks on DGX-1, p2.8xlarge and a cluster of\n"
           "8 p2.8xlarge, convnet-benchmarks on a Titan X, DeepBench all-reduce, and\n"
           "Megatron-LM's GPT iterations on A100: Korthikanti et al.'s Selene rows on\n"
           "8 and 64 GPUs, vTrain's 64-GPU rows; NeMo 24.07's FP8 rows on DGX H100) and\n"
           "print the mean absolute percentage error\n"
           "and the signed bias per set and per slice (error positive when dtsim is\n"
           "too fast). Only the REPORT rows, never used to fit anything, are\n"
           "summarised; --fit adds the FIT rows apart. RUN OPTIONs after -- are added\n"
           "to every 'dtsim run'. See doc/VALIDATION.md.");
  dts_cli_add_entries (ctx, entries);
  gboolean help = FALSE;
  if (!dts_cli_parse (ctx, "validate", &argc, &argv, &help, error))
    return FALSE;
  if (help)
    return TRUE;
  char **extra = argv + 1;
  if (*extra != NULL && strcmp (*extra, "--") == 0)
    extra++;
  else if (*extra != NULL)
    return dts_cli_no_arguments (argc, argv, "validate", error);

  g_auto (Validate) v = { 0 };
  v.fw_lambda = "pytorch";
  v.fw_lambda_v1 = "pytorch-ngc22";
  v.fw_tf2017 = "tensorflow1";
  v.fw_convnet = "torch7-cudnn4";
  v.fw_llm = "megatron";
  gboolean v1_given = FALSE;
  for (int i = 0; frameworks && frameworks[i]; i++) {
    const char *eq = strchr (frameworks[i], '=');
    if (eq == NULL && frameworks[i][0] != '\0') {
      /* a bare ID: every set, the transformer sets too (how profiles are
       * compared: doc/VALIDATION.md part 19) */
      v.fw_lambda = v.fw_lambda_v1 = v.fw_tf2017 = v.fw_convnet = v.fw_llm = frameworks[i];
      v1_given = FALSE;
      continue;
    }
    g_autofree char *set = eq ? g_strndup (frameworks[i], eq - frameworks[i]) : NULL;
    const char **slot = set == NULL                        ? NULL
                        : strcmp (set, "lambda") == 0    ? &v.fw_lambda
                        : strcmp (set, "lambda-v1") == 0 ? &v.fw_lambda_v1
                        : strcmp (set, "tf2017") == 0    ? &v.fw_tf2017
                        : strcmp (set, "convnet") == 0   ? &v.fw_convnet
                        : strcmp (set, "llm") == 0       ? &v.fw_llm
                                                         : NULL;
    if (slot == NULL || eq[1] == '\0')
      return dts_cli_bad_option ("framework", frameworks[i],
                                 "ID (every set) or SET=ID with SET one of lambda, lambda-v1, "
                                 "tf2017, convnet, llm",
                                 error);
    *slot = eq + 1;
    if (slot == &v.fw_lambda_v1)
      v1_given = TRUE;
    else if (slot == &v.fw_lambda && !v1_given)
      v.fw_lambda_v1 = eq + 1; /* lambda= sets both tables, unless lambda-v1= does */
  }
  /* A bad profile fails here, once, not in the first row's child. */
  const char *fws[] = { v.fw_lambda, v.fw_lambda_v1, v.fw_tf2017, v.fw_convnet,
                        v.fw_llm };
  for (guint i = 0; i < G_N_ELEMENTS (fws); i++) {
    g_autoptr (DtsFramework) fw = dts_framework_load (fws[i], error);
    if (fw == NULL)
      return FALSE;
  }
  static const char *const set_names[] = { "lambda",      "tf2017", "convnet", "deepbench",
                                           "korthikanti", "vtrain", "nemo" };
  enum { N_SETS = G_N_ELEMENTS (set_names) };
  gboolean want[N_SETS] = { TRUE, TRUE, TRUE, TRUE, TRUE, TRUE, TRUE };
  if (sets != NULL) {
    memset (want, 0, sizeof want);
    g_auto (GStrv) list = g_strsplit (sets, ",", -1);
    for (int i = 0; list[i]; i++) {
      int k = 0;
      while (k < N_SETS && strcmp (list[i], set_names[k]) != 0)
        k++;
      if (k == N_SETS)
        return dts_cli_bad_option ("sets", sets,
                                   "a comma-separated list of lambda, tf2017, convnet, "
                                   "deepbench, korthikanti, vtrain, nemo",
                                   error);
      want[k] = TRUE;
    }
  }

  g_autofree char *dir = data ? g_strdup (data) : dts_cli_shared_data_dir ("validation");
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_NOT_FOUND,
                 "no validation data directory '%s' (give --data DIR or set DTSIM_SHARED)", dir);
    return FALSE;
  }
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func (row_free);
  g_autofree char *llm_dir = g_build_filename (dir, "llm", NULL);
  g_autoptr (GString) left = g_string_new (NULL);
  if ((want[0] && !lambda_rows (dir, quick, rows, error))
      || (want[1] && !tf_rows (dir, quick, rows, error))
      || (want[2] && !convnet_rows (dir, rows, error))
      || (want[3] && !deepbench_rows (dir, rows, error))
      || (want[4] && !korthikanti_rows (llm_dir, quick, rows, left, error))
      || (want[5] && !vtrain_rows (llm_dir, quick, rows, left, error))
      || (want[6] && !nemo_rows (llm_dir, quick, rows, left, error)))
    return FALSE;

  char *exe = g_file_read_link ("/proc/self/exe", NULL);
  v.exe = exe ? exe : g_strdup ("dtsim");
  v.extra = extra;
  v.platforms = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  v.files = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < rows->len; i++) {
    Row *r = g_ptr_array_index (rows, i);
    if (r->workload && !predict_run (&v, r, error))
      return FALSE;
  }
  if (!predict_deepbench (&v, rows, error))
    return FALSE;

  g_autoptr (GHashTable) acc
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_array_unref);
  guint n_fit = 0, n_report = 0;
  for (guint i = 0; i < rows->len; i++) {
    const Row *r = g_ptr_array_index (rows, i);
    row_slices (acc, r);
    n_fit += r->fit;
    n_report += !r->fit;
  }
  scaling_slices (acc, rows);

  printf ("dtsim validate: %u rows from %s%s\n", rows->len, dir, quick ? " (--quick)" : "");
  printf ("Framework profiles: convnet %s, lambda-v0 %s, lambda-v1 %s, tf2017 %s, llm %s\n",
          v.fw_convnet, v.fw_lambda, v.fw_lambda_v1, v.fw_tf2017,
          v.fw_llm);
  printf ("FIT rows (%u: lambda-v0 and lambda-v0-other for pytorch, lambda-v1 A100 PCIe for "
          "pytorch-ngc22, "
          "tf2017 1-GPU DGX-1 and p2.8xlarge ResNet-50 for tensorflow1, convnet VGG-A for "
          "torch7-cudnn4): %s\n", n_fit,
          show_fit ? "shown apart below" : "not reported");
  printf ("REPORT rows (%u): never used to fit anything\n", n_report);
  gboolean llm = want[4] || want[5] || want[6];
  printf ("Error (positive: dtsim too fast): predicted/measured throughput - 1; convnet "
          "measured/predicted time - 1; deepbench%s 1 - predicted/measured time\n",
          llm ? ", korthikanti, vtrain, nemo (iteration time)" : "");
  if (llm) {
    printf ("Transformer sets (korthikanti, vtrain, nemo; REPORT, nothing fitted on them): run as "
            "Megatron-LM and NeMo ran them (--strategy hybrid, 1F1B, the row's TP x PP x DP (x CP), "
            "virtual stages and micro-batches, NCCL's collectives (--collective nccl, unless "
            "given after --), tensor-parallel collectives overlapped as they ran (--tp-overlap "
            "backward; all for NeMo's userbuffers recipes; unless given after --); "
            "korthikanti and vtrain fp16 with full or selective recomputation on A100 and "
            "Megatron's attention before FlashAttention (attention=\"unfused\"), vtrain's "
            "gradients all-reduced after the backward pass (--no-overlap), as vTrain models "
            "them, nemo "
            "fp8 with sequence parallelism and the distributed optimizer, its parameter gather "
            "overlapped (--param-gather overlap, unless given after --), on DGX H100) under "
            "%s, as bench/validate-llm.py --tp-overlap=as-run runs them\n",
            v.fw_llm);
    if (left->len)
      printf ("Left out: %s\n", left->str);
  }
  if (show_rows)
    print_rows (rows, show_fit);
  print_slices (acc, "report", "REPORT rows");
  print_set_mean (acc, rows);
  if (show_fit)
    print_slices (acc, "fit", "FIT rows, not a measure of accuracy");
  return dts_cli_flush_stdout (error);
}
