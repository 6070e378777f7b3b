/* mlp-train.c - training, cross-validation and leave-one-GPU-out evaluation of
 * the kernel-time networks (dtsim cost train | eval).
 *
 * Splits. Everything works on layer geometries: the FNV-1a key of a shape
 * without its batch size, so one geometry measured at batch 4, 8, 16 and 32
 * is in one part and a held-out shape is a layer the network has never seen
 * at any batch; the three convolution passes of a geometry go together.
 *
 *  - The test split: the geometries whose salted, mixed key falls in the
 *    lowest test_percent (20) of 100 buckets. It is never used to choose
 *    anything (inputs, network size, epochs, ensemble size): it only measures
 *    the networks trained on the rest. That is the headline error.
 *  - The development split (the rest) is what networks are trained on, and
 *    where settings are chosen: by k-fold (k = 5, fold = key modulo k)
 *    inside it, the secondary error `cost eval` reports.
 *
 * The shipped networks are the development-split networks; their manifest
 * records the test-split error as their validation error.
 *
 * Leave-one-GPU-out. For each GPU and precision, its points are predicted
 * (a) by the network of the nearest other GPU, multiplied by the roofline
 * ratio of the two GPUs for that kernel, and (b) by one device-conditioned
 * network trained on all other GPUs, whose extra inputs are ln peak FLOP/s,
 * ln memory bandwidth and ln SM count (as Habitat, Yu et al., USENIX ATC
 * 2021, conditions its MLPs on the device). Both use the training split
 * only, as the shipped networks do.
 *
 * Manifest. XML, numbers written so that they read back to the same double
 * (g_ascii_dtostr), errors rounded to 4 decimals, attributes in a fixed
 * order, no dates: two runs give byte-identical files. */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "core/error.h"
#include "core/input.h"
#include "cost/mlp-private.h"
#include "cost/roofline.h"

static void
net_free_cb (gpointer p)
{
  dts_mlp_net_free (p);
}

void
dts_mlp_train_options_init (DtsMlpTrainOptions *opts)
{
  *opts = (DtsMlpTrainOptions){
    .seed = 1,
    .folds = 5,
    .test_percent = 20,
    .epochs = 100,
    .hidden = 6,
    .members = 10,
  };
}

static gboolean
check_options (const DtsMlpTrainOptions *o, GError **error)
{
  if (o->folds < 2 || o->folds > 100 || o->test_percent < 1 || o->test_percent > 50
      || o->epochs < 1 || o->epochs > 1000000 || o->hidden < 1 || o->hidden > 1000
      || o->members < 1 || o->members > 100) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "training options out of range (folds 2..100, test-percent 1..50, epochs "
                 "1..1000000, hidden 1..1000, members 1..100)");
    return FALSE;
  }
  return TRUE;
}

static DtsMlpNetParams
net_params (const DtsMlpTrainOptions *opts)
{
  return (DtsMlpNetParams){
    .seed = opts->seed,
    .epochs = opts->epochs,
    .hidden = opts->hidden,
    .members = opts->members,
  };
}

static int
point_fold (const DtsKernelPoint *p, int folds)
{
  return (int) (dts_kernel_shape_key (&p->kernel, TRUE) % (guint32) folds);
}

/* Salt of the test split's hash: fixed, so that the split never moves; a
 * different mix from the k-fold's plain modulo, so that the two are
 * independent. */
#define TEST_SPLIT_SALT 0x7e57c0deu

gboolean
dts_mlp_point_is_test (const DtsKernelPoint *p, int test_percent)
{
  /* murmur3's finaliser: every key bit moves every bucket bit */
  guint32 h = dts_kernel_shape_key (&p->kernel, TRUE) ^ TEST_SPLIT_SALT;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return (int) (h % 100u) < test_percent;
}

#define BIT(d) (G_GUINT64_CONSTANT (1) << (d))

typedef enum { PART_DEV, PART_TEST } Part;

/* Does point P belong to the selection (class, devices, part, folds)?
 * KEEP_FOLD >= 0 keeps only that fold of the development split; SKIP_FOLD
 * >= 0 drops that fold. */
typedef struct {
  DtsKernelClass klass;
  guint64 devices;
  Part part;
  int test_percent;
  int folds, keep_fold, skip_fold;
} Selection;

static gboolean
selected (const Selection *s, const DtsKernelPoint *p)
{
  if (p->kernel.klass != s->klass || !(s->devices & BIT (p->device)))
    return FALSE;
  if (dts_mlp_point_is_test (p, s->test_percent) != (s->part == PART_TEST))
    return FALSE;
  int f = point_fold (p, s->folds);
  return (s->keep_fold < 0 || f == s->keep_fold) && (s->skip_fold < 0 || f != s->skip_fold);
}

/* The development split of class K on DEVICES, less fold SKIP (-1: none). */
static Selection
dev_split (const DtsMlpTrainOptions *o, DtsKernelClass k, guint64 devices, int skip)
{
  return (Selection){ k, devices, PART_DEV, o->test_percent, o->folds, -1, skip };
}

/* Fold KEEP of the development split (-1: all of it). */
static Selection
dev_fold (const DtsMlpTrainOptions *o, DtsKernelClass k, guint64 devices, int keep)
{
  return (Selection){ k, devices, PART_DEV, o->test_percent, o->folds, keep, -1 };
}

static Selection
test_split (const DtsMlpTrainOptions *o, DtsKernelClass k, guint64 devices)
{
  return (Selection){ k, devices, PART_TEST, o->test_percent, o->folds, -1, -1 };
}

/* GPU records of the device table (DtsMlpGpu, table order), from the catalogue. */
static GArray *
build_gpus (const DtsKernelData *data, const DtsGpuCatalog *cat, GError **error)
{
  const DtsKernelDevice *table = (const DtsKernelDevice *) data->devices->data;
  g_autoptr (GArray) arr = g_array_sized_new (FALSE, TRUE, sizeof (DtsMlpGpu),
                                              data->devices->len);
  g_array_set_clear_func (arr, (GDestroyNotify) dts_mlp_gpu_clear);
  g_array_set_size (arr, data->devices->len);
  DtsMlpGpu *gpus = (DtsMlpGpu *) arr->data;
  for (guint d = 0; d < data->devices->len; d++) {
    const DtsGpuSpec *spec = dts_gpu_catalog_get (cat, table[d].gpu_id, error);
    if (spec == NULL && table[d].file != NULL) {
      g_prefix_error (error,
                      "kernel data '%s': line %d: measured rows of device '%s' (name its "
                      "catalogue GPU with --gpu ID): ",
                      table[d].file, table[d].line, table[d].deepbench_device);
      return NULL;
    }
    if (spec == NULL) {
      g_prefix_error (error, "the DeepBench device table names a GPU the catalogue lacks: ");
      return NULL;
    }
    gpus[d] = (DtsMlpGpu){
      .id = g_strdup (spec->id),
      .precision = table[d].precision,
      .math = table[d].math,
      .peak_flops = dts_gpu_spec_flops (spec, table[d].precision, NULL),
      .math_peak_flops = dts_gpu_spec_flops (spec, table[d].math, NULL),
      .mem_bw_Bps = spec->mem_bw_Bps,
      .sm_count = spec->sm_count,
      .deepbench_device = g_strdup (table[d].deepbench_device),
    };
    if (gpus[d].peak_flops <= 0 || gpus[d].mem_bw_Bps <= 0 || gpus[d].sm_count < 1) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "GPU '%s' has no positive peak FLOP/s, bandwidth or SM count in the "
                   "catalogue",
                   spec->id);
      return NULL;
    }
  }
  return g_steal_pointer (&arr);
}

/* Train a network on the selected points (NULL if there are none). GPU_ID
 * NULL makes a device-conditioned network. */
static DtsMlpNet *
train_net (const DtsKernelData *data, const DtsMlpGpu *gpus, const Selection *sel,
           DtsPrecision precision, const char *gpu_id, const DtsMlpTrainOptions *opts)
{
  const DtsKernelDevice *table = (const DtsKernelDevice *) data->devices->data;
  g_autoptr (GArray) raw = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) targets = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (DtsMlpNet) net = dts_mlp_net_new (sel->klass, precision, gpu_id);
  const guint n_dims = dts_mlp_n_range_dims (sel->klass);
  for (guint d = 0; d < n_dims; d++) {
    net->dim_min[d] = G_MAXINT;
    net->dim_max[d] = 0;
  }
  for (guint i = 0; i < data->points->len; i++) {
    const DtsKernelPoint *p = &g_array_index (data->points, DtsKernelPoint, i);
    if (!selected (sel, p))
      continue;
    double x[DTS_KERNEL_MAX_FEATURES + DTS_MLP_N_GPU_FEATURES];
    guint n = dts_mlp_inputs (&p->kernel, table[p->device].precision,
                              gpu_id == NULL ? &gpus[p->device] : NULL, x);
    g_assert (n == net->n_inputs);
    g_array_append_vals (raw, x, n);
    double t = dts_mlp_target (&p->kernel, p->time_s);
    g_array_append_val (targets, t);
    for (guint d = 0; d < n_dims; d++) {
      int v = dts_mlp_range_dim_value (&p->kernel, d);
      net->dim_min[d] = MIN (net->dim_min[d], v);
      net->dim_max[d] = MAX (net->dim_max[d], v);
    }
  }
  if (targets->len == 0)
    return NULL;
  DtsMlpNetParams params = net_params (opts);
  dts_mlp_net_train (net, (double *) raw->data, (double *) targets->data, targets->len, &params);
  net->train_points = (int) targets->len;
  return g_steal_pointer (&net);
}

/* Sum of absolute percentage errors of NET over the selected points. */
static double
sum_ape (const DtsKernelData *data, const DtsMlpGpu *gpus, const DtsMlpNet *net,
         const Selection *sel, int *count)
{
  double sum = 0;
  *count = 0;
  for (guint i = 0; i < data->points->len; i++) {
    const DtsKernelPoint *p = &g_array_index (data->points, DtsKernelPoint, i);
    if (!selected (sel, p))
      continue;
    double t = dts_mlp_net_predict (net, &gpus[p->device], &p->kernel, net->precision);
    sum += dts_mlp_ape (t, p->time_s);
    (*count)++;
  }
  return sum;
}

/* The roofline model's time for point P on its catalogue GPU. */
static double
roofline_time (const DtsKernelData *data, const DtsKernelPoint *p, const DtsGpuSpec *spec)
{
  DtsLayer layer;
  int batch = 0;
  DtsLayerWork w;
  DtsPrecision precision =
      ((const DtsKernelDevice *) data->devices->data)[p->device].precision;
  dts_kernel_to_layer (&p->kernel, &layer, &batch);
  dts_layer_work (&layer, precision, batch, &w);
  const DtsKernelWork *k = p->kernel.klass == DTS_KERNEL_CONV_BWD_DATA     ? &w.bwd_data
                           : p->kernel.klass == DTS_KERNEL_CONV_BWD_FILTER ? &w.bwd_weight
                                                                           : &w.fwd;
  return dts_roofline_kernel_time (k, spec, precision);
}

/* ---- the manifest -------------------------------------------------------- */

static void
put_double (GString *s, const char *name, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (s, " %s=\"%s\"", name, g_ascii_dtostr (buf, sizeof buf, v));
}

/* An error or share, rounded to 4 decimals so that manifests read well. */
static void
put_rounded (GString *s, const char *name, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (s, " %s=\"%s\"", name, g_ascii_formatd (buf, sizeof buf, "%.4f", v));
}

static void
put_str (GString *s, const char *name, const char *v)
{
  g_autofree char *esc = g_markup_escape_text (v, -1);
  g_string_append_printf (s, " %s=\"%s\"", name, esc);
}

static void
manifest_network (GString *s, const DtsMlpNet *net, const char *file, const char *sha256)
{
  g_string_append (s, "  <network");
  put_str (s, "class", dts_kernel_class_to_string (net->klass));
  put_str (s, "gpu", net->gpu_id);
  put_str (s, "precision", dts_precision_to_string (net->precision));
  put_str (s, "file", file);
  put_str (s, "sha256", sha256);
  g_string_append_printf (s, "\n          train-points=\"%d\" validation-points=\"%d\"",
                          net->train_points, net->validation_points);
  put_rounded (s, "train-mape", net->train_mape);
  put_rounded (s, "validation-mape", net->validation_mape);
  g_string_append (s, ">\n");
  for (guint j = 0; j < net->n_inputs; j++) {
    g_string_append (s, "    <input");
    put_str (s, "name", net->input_names[j]);
    put_double (s, "mean", net->mean[j]);
    put_double (s, "std", net->std[j]);
    put_double (s, "min", net->min[j]);
    put_double (s, "max", net->max[j]);
    g_string_append (s, "/>\n");
  }
  g_string_append (s, "    <output");
  put_str (s, "name", DTS_MLP_TARGET_NAME);
  put_double (s, "mean", net->out_mean);
  put_double (s, "std", net->out_std);
  g_string_append (s, "/>\n");
  for (guint d = 0; d < dts_mlp_n_range_dims (net->klass); d++)
    g_string_append_printf (s, "    <range dim=\"%s\" min=\"%d\" max=\"%d\"/>\n",
                            dts_mlp_range_dim_name (net->klass, d), net->dim_min[d],
                            net->dim_max[d]);
  g_string_append (s, "  </network>\n");
}

static void
manifest_head (GString *s, const DtsKernelData *data, const DtsMlpTrainOptions *opts,
               const DtsMlpGpu *gpus, guint64 present)
{
  g_string_append (s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                      "<!-- Kernel-time networks of dtsim's mlp cost model, written by "
                      "'dtsim cost train'.\n"
                      "     Networks are FANN files; each <input> is z-scored with its mean "
                      "and std;\n"
                      "     the output is the z-scored ln(time_s / flops). Do not edit: the "
                      "checksums\n"
                      "     guard the networks, and training regenerates these files "
                      "byte for byte. -->\n");
  g_string_append_printf (s, "<kernel-models version=\"%d\">\n", DTS_MLP_MANIFEST_VERSION);
  g_string_append_printf (s,
                          "  <training algorithm=\"rprop\" seed=\"%u\" epochs=\"%d\" "
                          "hidden=\"%d\" members=\"%d\"\n            folds=\"%d\" "
                          "test-percent=\"%d\" split=\"trained on the development split, "
                          "validated on the test split: the layer geometries (FNV-1a without "
                          "the batch size, mixed with a fixed salt) in the lowest test-percent "
                          "of 100 buckets\"/>\n",
                          opts->seed, opts->epochs, opts->hidden, opts->members, opts->folds,
                          opts->test_percent);
  const struct {
    const char *file, *sha, *source;
  } files[] = {
    { data->conv_file, data->conv_sha256, data->conv_source },
    { data->gemm_file, data->gemm_sha256, data->gemm_source },
  };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++) {
    g_string_append (s, "  <data");
    put_str (s, "file", files[i].file);
    put_str (s, "sha256", files[i].sha);
    g_string_append (s, "\n       ");
    put_str (s, "source", files[i].source);
    g_string_append (s, "/>\n");
  }
  for (guint d = 0; d < data->devices->len; d++) {
    const DtsMlpGpu *g = &gpus[d];
    if (!(present & BIT (d)))
      continue;
    g_string_append (s, "  <gpu");
    put_str (s, "id", g->id);
    put_str (s, "precision", dts_precision_to_string (g->precision));
    put_str (s, "math", dts_precision_to_string (g->math));
    put_str (s, "deepbench-device", g->deepbench_device);
    g_string_append (s, "\n      ");
    put_double (s, "peak-flops", g->peak_flops);
    put_double (s, "math-peak-flops", g->math_peak_flops);
    put_double (s, "mem-bw-Bps", g->mem_bw_Bps);
    g_string_append_printf (s, " sm-count=\"%d\"/>\n", g->sm_count);
  }
}

static gboolean
write_file (const char *path, const char *contents, gsize len, GError **error)
{
  g_autoptr (GError) local = NULL;
  if (!g_file_set_contents (path, contents, (gssize) len, &local)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "kernel models: %s", local->message);
    return FALSE;
  }
  return TRUE;
}

gboolean
dts_mlp_train (const DtsKernelData *data, const DtsGpuCatalog *cat,
               const DtsMlpTrainOptions *opts, const char *out_dir, GError **error)
{
  if (!check_options (opts, error))
    return FALSE;
  const guint n_dev = data->devices->len;
  g_autoptr (GArray) gpu_arr = build_gpus (data, cat, error);
  if (gpu_arr == NULL)
    return FALSE;
  const DtsMlpGpu *gpus = (const DtsMlpGpu *) gpu_arr->data;
  if (g_mkdir_with_parents (out_dir, 0755) != 0) {
    int e = errno;
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "kernel models '%s': cannot create: %s",
                 out_dir, g_strerror (e));
    return FALSE;
  }
  const DtsKernelDevice *table = (const DtsKernelDevice *) data->devices->data;
  g_autoptr (GString) networks = g_string_new (NULL);
  guint64 present = 0;
  for (guint d = 0; d < n_dev; d++) {
    for (int k = 0; k < DTS_KERNEL_CLASS_COUNT; k++) {
      Selection train = dev_split (opts, k, BIT (d), -1);
      Selection valid = test_split (opts, k, BIT (d));
      g_autoptr (DtsMlpNet) net =
          train_net (data, gpus, &train, table[d].precision, table[d].gpu_id, opts);
      if (net == NULL)
        continue;
      present |= BIT (d);
      int n = 0;
      net->train_mape = sum_ape (data, gpus, net, &train, &n) / n;
      double v = sum_ape (data, gpus, net, &valid, &net->validation_points);
      net->validation_mape = net->validation_points ? v / net->validation_points : 0;
      g_autofree char *file = g_strdup_printf ("%s.%s.%s.net", table[d].gpu_id,
                                               dts_precision_to_string (table[d].precision),
                                               dts_kernel_class_to_string (k));
      g_autofree char *path = g_build_filename (out_dir, file, NULL);
      gsize len = 0;
      if (!dts_mlp_net_save (net, path, error))
        return FALSE;
      g_autofree char *text = dts_input_read_text (path, "kernel model", &len, error);
      dts_input_forget (path);
      if (text == NULL)
        return FALSE;
      g_autofree char *sha = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (guchar *) text, len);
      manifest_network (networks, net, file, sha);
    }
  }
  g_autoptr (GString) manifest = g_string_new (NULL);
  manifest_head (manifest, data, opts, gpus, present);
  g_string_append (manifest, networks->str);
  g_string_append (manifest, "</kernel-models>\n");
  g_autofree char *mpath = g_build_filename (out_dir, DTS_MLP_MANIFEST, NULL);
  return write_file (mpath, manifest->str, manifest->len, error);
}

/* ---- evaluation ---------------------------------------------------------- */

void
dts_mlp_eval_free (DtsMlpEval *eval)
{
  if (eval == NULL)
    return;
  if (eval->kfold)
    g_array_unref (eval->kfold);
  if (eval->logo)
    g_array_unref (eval->logo);
  g_free (eval);
}

/* Reports progress in steps of one (GPU, precision) per stage. */
typedef struct {
  DtsMlpProgressFunc func;
  gpointer user_data;
  guint done, total;
} Progress;

static void
progress_step (Progress *pr)
{
  pr->done++;
  if (pr->func != NULL)
    pr->func (pr->done, pr->total, pr->user_data);
}

/* Sum of the roofline's absolute percentage errors over the selected points. */
static double
sum_ape_roofline (const DtsKernelData *data, const DtsGpuSpec *spec, const Selection *sel)
{
  double sum = 0;
  for (guint i = 0; i < data->points->len; i++) {
    const DtsKernelPoint *p = &g_array_index (data->points, DtsKernelPoint, i);
    if (selected (sel, p))
      sum += dts_mlp_ape (roofline_time (data, p, spec), p->time_s);
  }
  return sum;
}

static double
mape_or_nan (double sum, int n)
{
  return n > 0 ? sum / n : NAN;
}

static void
eval_heldout (const DtsKernelData *data, const DtsGpuCatalog *cat, const DtsMlpGpu *gpus,
              const DtsMlpTrainOptions *opts, GArray *rows, Progress *pr)
{
  const DtsKernelDevice *table = (const DtsKernelDevice *) data->devices->data;
  for (guint d = 0; d < data->devices->len; d++) {
    const DtsGpuSpec *spec = dts_gpu_catalog_lookup (cat, table[d].gpu_id);
    for (int k = 0; k < DTS_KERNEL_CLASS_COUNT; k++) {
      DtsMlpEvalRow row = { .klass = k, .gpu_id = table[d].gpu_id,
                            .precision = table[d].precision };
      /* the headline: the development-split network on the test split */
      Selection dev = dev_split (opts, k, BIT (d), -1);
      Selection test = test_split (opts, k, BIT (d));
      double mlp = 0, roof = 0;
      g_autoptr (DtsMlpNet) shipped =
          train_net (data, gpus, &dev, table[d].precision, table[d].gpu_id, opts);
      if (shipped != NULL) {
        mlp = sum_ape (data, gpus, shipped, &test, &row.test_points);
        roof = sum_ape_roofline (data, spec, &test);
      }
      /* secondary: k-fold inside the development split */
      double kmlp = 0, kroof = 0;
      for (int f = 0; f < opts->folds; f++) {
        Selection train = dev_split (opts, k, BIT (d), f);
        Selection held = dev_fold (opts, k, BIT (d), f);
        g_autoptr (DtsMlpNet) net =
            train_net (data, gpus, &train, table[d].precision, table[d].gpu_id, opts);
        int n = 0;
        if (net != NULL) {
          kmlp += sum_ape (data, gpus, net, &held, &n);
          kroof += sum_ape_roofline (data, spec, &held);
        }
        row.points += n;
      }
      if (row.points + row.test_points == 0)
        continue;
      row.test_mlp_mape = mape_or_nan (mlp, row.test_points);
      row.test_roofline_mape = mape_or_nan (roof, row.test_points);
      row.mlp_mape = mape_or_nan (kmlp, row.points);
      row.roofline_mape = mape_or_nan (kroof, row.points);
      g_array_append_val (rows, row);
    }
    progress_step (pr);
  }
}

static gboolean
eval_logo (const DtsKernelData *data, const DtsGpuCatalog *cat, DtsMlpGpu *gpus,
           const DtsMlpTrainOptions *opts, GArray *rows, Progress *pr, GError **error)
{
  const DtsKernelDevice *table = (const DtsKernelDevice *) data->devices->data;
  const guint n_dev = data->devices->len;
  /* The shipped networks of every device (development split). */
  g_autoptr (GPtrArray) nets = g_ptr_array_new_with_free_func (net_free_cb);
  for (guint d = 0; d < n_dev; d++) {
    for (int k = 0; k < DTS_KERNEL_CLASS_COUNT; k++) {
      Selection train = dev_split (opts, k, BIT (d), -1);
      g_ptr_array_add (nets, train_net (data, gpus, &train, table[d].precision, table[d].gpu_id,
                                        opts));
    }
    progress_step (pr);
  }
  static const DtsPrecision precisions[] = { DTS_PREC_FP32, DTS_PREC_FP16 };
  for (guint pi = 0; pi < G_N_ELEMENTS (precisions); pi++) {
    for (guint h = 0; h < n_dev; h++) {
      if (table[h].precision != precisions[pi])
        continue;
      const DtsGpuSpec *spec = dts_gpu_catalog_lookup (cat, table[h].gpu_id);
      /* Everything but the held-out GPU, at any precision. */
      g_autoptr (DtsMlpSet) set = dts_mlp_set_new (FALSE);
      guint64 others = 0;
      for (guint e = 0; e < n_dev; e++) {
        if (strcmp (table[e].gpu_id, table[h].gpu_id) == 0)
          continue;
        g_ptr_array_add (set->gpus, &gpus[e]);
        for (int k = 0; k < DTS_KERNEL_CLASS_COUNT; k++)
          if (g_ptr_array_index (nets, e * DTS_KERNEL_CLASS_COUNT + k) != NULL)
            g_ptr_array_add (set->nets, g_ptr_array_index (nets, e * DTS_KERNEL_CLASS_COUNT + k));
        if (table[e].precision == table[h].precision)
          others |= BIT (e);
      }
      for (int k = 0; k < DTS_KERNEL_CLASS_COUNT; k++) {
        /* no other GPU measured at this precision: nothing to compare */
        const char *nearest = dts_mlp_set_source_gpu (set, spec, table[h].precision, k);
        if (nearest == NULL)
          continue;
        Selection train = dev_split (opts, k, others, -1);
        g_autoptr (DtsMlpNet) cond = train_net (data, gpus, &train, table[h].precision, NULL, opts);
        DtsMlpLogoRow row = { .klass = k, .precision = table[h].precision,
                              .held_out = table[h].gpu_id, .nearest = g_intern_string (nearest) };
        double scaled = 0, conditioned = 0, roof = 0;
        for (guint i = 0; i < data->points->len; i++) {
          const DtsKernelPoint *p = &g_array_index (data->points, DtsKernelPoint, i);
          if (p->device != h || p->kernel.klass != (DtsKernelClass) k)
            continue;
          double t = 0;
          const char *source = NULL;
          if (!dts_mlp_set_kernel_time (set, &p->kernel, spec, table[h].precision, &t, &source,
                                        error))
            return FALSE;
          scaled += dts_mlp_ape (t, p->time_s);
          if (cond != NULL)
            conditioned += dts_mlp_ape (
                dts_mlp_net_predict (cond, &gpus[h], &p->kernel, table[h].precision), p->time_s);
          roof += dts_mlp_ape (roofline_time (data, p, spec), p->time_s);
          row.points++;
        }
        if (row.points == 0)
          continue;
        row.scaled_mape = scaled / row.points;
        row.conditioned_mape = cond != NULL ? conditioned / row.points : NAN;
        row.roofline_mape = roof / row.points;
        g_array_append_val (rows, row);
      }
      progress_step (pr);
    }
  }
  return TRUE;
}

DtsMlpEval *
dts_mlp_evaluate (const DtsKernelData *data, const DtsGpuCatalog *cat,
                  const DtsMlpTrainOptions *opts, DtsMlpProgressFunc progress,
                  gpointer user_data, GError **error)
{
  if (!check_options (opts, error))
    return NULL;
  Progress pr = { progress, user_data, 0, 3 * data->devices->len };
  g_autoptr (GArray) gpus = build_gpus (data, cat, error);
  if (gpus == NULL)
    return NULL;
  g_autoptr (DtsMlpEval) eval = g_new0 (DtsMlpEval, 1);
  eval->kfold = g_array_new (FALSE, FALSE, sizeof (DtsMlpEvalRow));
  eval->logo = g_array_new (FALSE, FALSE, sizeof (DtsMlpLogoRow));
  eval_heldout (data, cat, (DtsMlpGpu *) gpus->data, opts, eval->kfold, &pr);
  if (!eval_logo (data, cat, (DtsMlpGpu *) gpus->data, opts, eval->logo, &pr, error))
    return NULL;
  return g_steal_pointer (&eval);
}
