/* test-mlp.c - the MLP kernel-time model: kernel shapes and features, the
 * DeepBench CSV reader, training determinism, model loading and its errors,
 * predictions of the shipped networks, the roofline scaling rule and the
 * layer-to-kernel mapping.
 *
 * Built twice: test-mlp needs only the source tree (a synthetic fixture in
 * tests/data/mlp-kernels and the shipped platforms/kernel-models);
 * test-mlp-shared (DTS_TEST_MLP_SHARED) retrains the shipped networks from
 * $DTSIM_SHARED/data/kernels and checks they come out byte-identical; it
 * exits 77 (skip) when the shared data are absent. */
#include "config.h"

#include <fann.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "cost/cost.h"
#include "cost/kernel-data.h"
#include "cost/mlp.h"
#include "cost/roofline.h"
#include "platform/gpu.h"
#include "testlib.h"

/* ---- helpers ------------------------------------------------------------ */

static char *
make_tmp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("dtsim-mlp-XXXXXX", &error);
  ck_assert_msg (dir != NULL, "%s", error ? error->message : "?");
  return dir;
}

static void
remove_tree (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return;
  const char *n;
  while ((n = g_dir_read_name (d)) != NULL) {
    g_autofree char *p = g_build_filename (dir, n, NULL);
    g_unlink (p);
  }
  g_rmdir (dir);
}

static char *
read_in (const char *dir, const char *name)
{
  g_autofree char *p = g_build_filename (dir, name, NULL);
  char *text = NULL;
  ck_assert_msg (g_file_get_contents (p, &text, NULL, NULL), "cannot read %s", p);
  return text;
}

/* Every file of A exists in B with the same bytes, and B has no others. */
static void
assert_same_tree (const char *a, const char *b)
{
  g_autoptr (GDir) da = g_dir_open (a, 0, NULL);
  ck_assert (da != NULL);
  guint na = 0, nb = 0;
  const char *n;
  while ((n = g_dir_read_name (da)) != NULL) {
    g_autofree char *ta = read_in (a, n);
    g_autofree char *tb = read_in (b, n);
    ck_assert_msg (strcmp (ta, tb) == 0, "%s differs between %s and %s", n, a, b);
    na++;
  }
  g_autoptr (GDir) db = g_dir_open (b, 0, NULL);
  while ((n = g_dir_read_name (db)) != NULL)
    nb++;
  ck_assert_uint_eq (na, nb);
}

static char *
shipped_dir (void)
{
  return dts_test_srcpath ("platforms/kernel-models");
}

#ifndef DTS_TEST_MLP_SHARED

static void
write_in (const char *dir, const char *name, const char *content)
{
  g_autofree char *p = g_build_filename (dir, name, NULL);
  ck_assert (g_file_set_contents (p, content, -1, NULL));
}

static DtsKernel
conv (DtsKernelClass klass, int n, int c, int hw, int k, int rs, int pad, int stride)
{
  return (DtsKernel){ .klass = klass,
                      .conv = { n, c, hw, hw, k, rs, rs, pad, pad, stride, stride } };
}

static DtsKernel
gemm (int m, int n, int k, gboolean ta, gboolean tb)
{
  return (DtsKernel){ .klass = DTS_KERNEL_GEMM, .gemm = { m, n, k, ta, tb } };
}

/* The roofline model's times for LAYER. */
static void
roofline_times (const DtsLayer *layer, const DtsGpuSpec *gpu, int batch, DtsLayerTimes *out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCost) roof = dts_cost_new ("roofline", &error);
  ck_assert (roof != NULL);
  ck_assert_msg (dts_cost_layer_times (roof, layer, gpu, DTS_PREC_FP32, batch, out, &error), "%s",
                 error ? error->message : "?");
}


/* ---- kernels and features ------------------------------------------------ */

START_TEST (test_kernel_shapes)
{
  ck_assert_int_eq (dts_kernel_conv_out (224, 3, 7, 2), 112);
  ck_assert_int_eq (dts_kernel_conv_out (7, 0, 3, 1), 5);
  ck_assert_int_eq (dts_kernel_conv_out (2, 0, 3, 1), 0);

  DtsKernel c = conv (DTS_KERNEL_CONV_FWD, 2, 3, 8, 4, 3, 1, 1);
  /* 2 * N*K*C*R*S*OH*OW = 2 * 2*4*3*3*3*8*8 */
  ck_assert_double_eq_tol (dts_kernel_flops (&c), 27648.0, 1e-9);
  /* (N*C*H*W + K*C*R*S + N*K*OH*OW) * 4 = (384 + 108 + 512) * 4 */
  ck_assert_double_eq_tol (dts_kernel_bytes (&c, 4.0), 4016.0, 1e-9);
  DtsKernel g = gemm (10, 20, 30, FALSE, TRUE);
  ck_assert_double_eq_tol (dts_kernel_flops (&g), 12000.0, 1e-9);
  ck_assert_double_eq_tol (dts_kernel_bytes (&g, 2.0), (300 + 600 + 200) * 2.0, 1e-9);

  g_autoptr (GError) error = NULL;
  DtsKernel bad = conv (DTS_KERNEL_CONV_FWD, 2, 3, 8, 0, 3, 1, 1);
  ck_assert (!dts_kernel_check (&bad, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "size k = 0", NULL);
  g_clear_error (&error);
  bad = conv (DTS_KERNEL_CONV_FWD, 2, 3, 2, 4, 5, 0, 1);
  ck_assert (!dts_kernel_check (&bad, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "does not fit", NULL);
  g_clear_error (&error);
  bad = gemm (0, 1, 1, FALSE, FALSE);
  ck_assert (!dts_kernel_check (&bad, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "m=0", NULL);
  g_clear_error (&error);

  DtsKernelClass k;
  ck_assert (dts_kernel_class_from_string ("conv-bwd-filter", &k, NULL));
  ck_assert_int_eq (k, DTS_KERNEL_CONV_BWD_FILTER);
  ck_assert (!dts_kernel_class_from_string ("conv-bwd", &k, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "'conv-bwd'", "known: conv-fwd", NULL);
}
END_TEST

START_TEST (test_kernel_features)
{
  for (int k = 0; k < DTS_KERNEL_CLASS_COUNT; k++) {
    guint n = dts_kernel_n_features (k);
    ck_assert_uint_gt (n, 0);
    ck_assert_uint_le (n, DTS_KERNEL_MAX_FEATURES);
  }
  double x[DTS_KERNEL_MAX_FEATURES];
  DtsKernel c = conv (DTS_KERNEL_CONV_FWD, 16, 64, 56, 128, 3, 1, 2);
  dts_kernel_features (&c, 4.0, x);
  const char *const *names = dts_kernel_feature_names (DTS_KERNEL_CONV_FWD);
  ck_assert_str_eq (names[0], "ln_n_out_hw");
  ck_assert_double_eq_tol (x[0], log (16.0 * 28 * 28), 1e-12);
  /* the 1x1 flag: off for a 3x3 filter, on for a 1x1 one */
  ck_assert_str_eq (names[5], "is_1x1");
  ck_assert_double_eq (x[5], 0.0);
  DtsKernel one = conv (DTS_KERNEL_CONV_FWD, 16, 64, 56, 128, 1, 0, 1);
  double y[DTS_KERNEL_MAX_FEATURES];
  dts_kernel_features (&one, 4.0, y);
  ck_assert_double_eq (y[5], 1.0);
  ck_assert_double_eq_tol (y[3], 0.0, 1e-12); /* ln(R*S) */
  /* last two: ln bytes and ln intensity */
  guint n = dts_kernel_n_features (DTS_KERNEL_CONV_FWD);
  ck_assert_double_eq_tol (x[n - 2], log (dts_kernel_bytes (&c, 4.0)), 1e-12);
  ck_assert_double_eq_tol (x[n - 1], log (dts_kernel_flops (&c) / dts_kernel_bytes (&c, 4.0)),
                           1e-12);

  /* one layer geometry at two batch sizes is one group of the split */
  DtsKernel c8 = conv (DTS_KERNEL_CONV_FWD, 8, 64, 56, 128, 3, 1, 2);
  DtsKernel b8 = conv (DTS_KERNEL_CONV_BWD_DATA, 8, 64, 56, 128, 3, 1, 2);
  ck_assert_uint_eq (dts_kernel_shape_key (&c, TRUE), dts_kernel_shape_key (&c8, TRUE));
  ck_assert_uint_eq (dts_kernel_shape_key (&c8, TRUE), dts_kernel_shape_key (&b8, TRUE));
  ck_assert_uint_ne (dts_kernel_shape_key (&c, FALSE), dts_kernel_shape_key (&c8, FALSE));
  DtsKernel c9 = conv (DTS_KERNEL_CONV_FWD, 8, 64, 56, 128, 3, 1, 1);
  ck_assert_uint_ne (dts_kernel_shape_key (&c9, TRUE), dts_kernel_shape_key (&c8, TRUE));
}
END_TEST

/* ---- the CSV reader ------------------------------------------------------ */

START_TEST (test_csv_fixture)
{
  g_autofree char *dir = dts_test_srcpath ("tests/data/mlp-kernels");
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsKernelData) data = dts_kernel_data_load (dir, &error);
  ck_assert_msg (data != NULL, "%s", error ? error->message : "?");
  /* per device: 20 conv rows (fwd, filter; data for 18: the C=3 rows have none)
   * and 12 GEMMs; V100 fp32, T4 fp32, V100 fp16 (quoted precision); the AMD
   * and inference rows are skipped */
  ck_assert_uint_eq (data->points->len, 3 * (20 + 18 + 20 + 12));
  ck_assert (strstr (data->conv_source, "synthetic") != NULL);
  ck_assert_uint_eq (strlen (data->conv_sha256), 64);

  const DtsKernelPoint *p = &g_array_index (data->points, DtsKernelPoint, 0);
  const DtsKernelDevice *dev = &dts_kernel_devices ()[p->device];
  ck_assert_str_eq (dev->gpu_id, "V100-PCIE-16GB");
  ck_assert_int_eq (dev->precision, DTS_PREC_FP32);
  ck_assert_int_eq (p->kernel.klass, DTS_KERNEL_CONV_FWD);
  ck_assert_int_eq (p->kernel.conv.n, 8);
  ck_assert_int_eq (p->kernel.conv.r, 7);
  ck_assert_double_eq_tol (p->time_s, 0.2082e-3, 1e-12);
  ck_assert_int_eq (p->line, 3);

  guint fp16 = 0;
  for (guint i = 0; i < data->points->len; i++) {
    const DtsKernelPoint *q = &g_array_index (data->points, DtsKernelPoint, i);
    fp16 += dts_kernel_devices ()[q->device].precision == DTS_PREC_FP16;
  }
  ck_assert_uint_eq (fp16, 70);
}
END_TEST

static const char *conv_header =
    "mode,device,precision,W,H,C,N,K,filter_w,filter_h,pad_w,pad_h,stride_w,stride_h,fwd_ms,"
    "bwd_data_ms,bwd_filter_ms\n";
static const char *gemm_ok = "mode,device,precision,M,N,K,transA,transB,time_ms\n"
                             "train,NVIDIA T4,Float,64,64,64,N,T,0.01\n";

static void
assert_csv_error (const char *conv_csv, const char *gemm_csv, int code, const char *frag1,
                  const char *frag2)
{
  g_autofree char *dir = make_tmp_dir ();
  if (conv_csv)
    write_in (dir, "deepbench_conv.csv", conv_csv);
  if (gemm_csv)
    write_in (dir, "deepbench_gemm.csv", gemm_csv);
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsKernelData) data = dts_kernel_data_load (dir, &error);
  ck_assert_ptr_null (data);
  dts_test_assert_error (error, code, frag1, frag2, NULL);
  remove_tree (dir);
}

START_TEST (test_csv_errors)
{
  g_autofree char *good_row = g_strconcat (
      conv_header, "train,NVIDIA T4,Float,8,8,4,2,4,3,3,1,1,1,1,0.1,0.2,0.3\n", NULL);
  assert_csv_error (NULL, gemm_ok, DTS_ERROR_IO, "deepbench_conv.csv", NULL);
  assert_csv_error (good_row, NULL, DTS_ERROR_IO, "deepbench_gemm.csv", NULL);
  g_autofree char *bad_n = g_strconcat (
      "# source: test\n", conv_header,
      "train,NVIDIA T4,Float,8,8,4,x,4,3,3,1,1,1,1,0.1,0.2,0.3\n", NULL);
  assert_csv_error (bad_n, gemm_ok, DTS_ERROR_PARSE, "line 3: column 'N'", "got 'x'");
  g_autofree char *bad_t = g_strconcat (
      conv_header, "train,NVIDIA T4,Float,8,8,4,2,4,3,3,1,1,1,1,-0.1,0.2,0.3\n", NULL);
  assert_csv_error (bad_t, gemm_ok, DTS_ERROR_PARSE, "line 2: column 'fwd_ms'", "positive time");
  g_autofree char *short_row =
      g_strconcat (conv_header, "train,NVIDIA T4,Float,8,8,4,2\n", NULL);
  assert_csv_error (short_row, gemm_ok, DTS_ERROR_PARSE, "line 2: 7 fields", "expected 17");
  assert_csv_error ("mode,device,precision,W\n", gemm_ok, DTS_ERROR_PARSE,
                    "header has no column 'H'", NULL);
  g_autofree char *no_fit = g_strconcat (
      conv_header, "train,NVIDIA T4,Float,2,2,4,2,4,5,5,0,0,1,1,0.1,0.2,0.3\n", NULL);
  assert_csv_error (no_fit, gemm_ok, DTS_ERROR_PARSE, "line 2", "does not fit");
  assert_csv_error (good_row, "mode,device,precision,M,N,K,transA,transB,time_ms\n"
                              "train,NVIDIA T4,Float,64,64,64,X,T,0.01\n",
                    DTS_ERROR_PARSE, "column 'transA'", "N or T");
  g_autofree char *amd_only = g_strconcat (
      conv_header, "train,AMD MI25,Float,8,8,4,2,4,3,3,1,1,1,1,0.1,0.2,0.3\n", NULL);
  assert_csv_error (amd_only, "mode,device,precision,M,N,K,transA,transB,time_ms\n",
                    DTS_ERROR_INVALID, "no training rows", NULL);
}
END_TEST

/* ---- training ------------------------------------------------------------ */

static char *
train_fixture (const DtsMlpTrainOptions *opts)
{
  g_autofree char *src = dts_test_srcpath ("tests/data/mlp-kernels");
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsKernelData) data = dts_kernel_data_load (src, &error);
  ck_assert_msg (data != NULL, "%s", error ? error->message : "?");
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  char *dir = make_tmp_dir ();
  ck_assert_msg (dts_mlp_train (data, cat, opts, dir, &error), "%s",
                 error ? error->message : "?");
  return dir;
}

START_TEST (test_train_deterministic)
{
  DtsMlpTrainOptions opts;
  dts_mlp_train_options_init (&opts);
  opts.epochs = 30;
  opts.members = 2;
  g_autofree char *a = train_fixture (&opts);
  g_autofree char *b = train_fixture (&opts);
  assert_same_tree (a, b);

  g_autoptr (GError) error = NULL;
  g_autoptr (DtsMlpSet) set = dts_mlp_set_load (a, &error);
  ck_assert_msg (set != NULL, "%s", error ? error->message : "?");
  ck_assert_uint_eq (dts_mlp_set_n_networks (set), 12); /* 3 GPU/precision pairs x 4 */
  ck_assert_uint_eq (dts_mlp_set_n_gpus (set), 3);
  g_autofree char *manifest = read_in (a, "manifest.xml");
  ck_assert (strstr (manifest, "epochs=\"30\" hidden=\"6\" members=\"2\"") != NULL);
  ck_assert (strstr (manifest, "file=\"T4.fp32.gemm.net\"") != NULL);
  ck_assert (strstr (manifest, "<range dim=\"n\" min=\"8\" max=\"16\"/>") != NULL);

  /* another seed gives other weights */
  opts.seed = 2;
  g_autofree char *c = train_fixture (&opts);
  g_autofree char *na = read_in (a, "T4.fp32.gemm.net");
  g_autofree char *nc = read_in (c, "T4.fp32.gemm.net");
  ck_assert (strcmp (na, nc) != 0);

  ck_assert (strstr (manifest, "folds=\"5\" test-percent=\"20\"") != NULL);

  opts.folds = 1;
  g_autofree char *src = dts_test_srcpath ("tests/data/mlp-kernels");
  g_autoptr (DtsKernelData) data = dts_kernel_data_load (src, NULL);
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  ck_assert (!dts_mlp_train (data, cat, &opts, c, &error));
  dts_test_assert_error (error, DTS_ERROR_USAGE, "folds 2..100", NULL);
  g_clear_error (&error);
  opts.folds = 5;
  opts.test_percent = 0;
  ck_assert (!dts_mlp_train (data, cat, &opts, c, &error));
  dts_test_assert_error (error, DTS_ERROR_USAGE, "test-percent 1..50", NULL);
  g_clear_error (&error);
  opts.test_percent = 51;
  ck_assert_ptr_null (dts_mlp_evaluate (data, cat, &opts, NULL, NULL, &error));
  dts_test_assert_error (error, DTS_ERROR_USAGE, "test-percent 1..50", NULL);
  remove_tree (a);
  remove_tree (b);
  remove_tree (c);
}
END_TEST

/* ---- the test split and the evaluation ------------------------------------ */

/* The test split holds out whole layer geometries (every batch size, every
 * convolution pass), about the requested share of them, independently of
 * the k-fold assignment. */
START_TEST (test_split)
{
  int test = 0, total = 0, folds[5] = { 0 };
  for (int c = 1; c <= 40; c++)
    for (int hw = 7; hw <= 56; hw += 7)
      for (int rs = 1; rs <= 5; rs += 2) {
        DtsKernelPoint p = { .kernel = conv (DTS_KERNEL_CONV_FWD, 8, c, hw, 64, rs, rs / 2, 1) };
        gboolean t = dts_mlp_point_is_test (&p, 20);
        for (int n = 4; n <= 32; n *= 2)
          for (int k = DTS_KERNEL_CONV_FWD; k <= DTS_KERNEL_CONV_BWD_FILTER; k++) {
            DtsKernelPoint q = { .kernel = conv (k, n, c, hw, 64, rs, rs / 2, 1) };
            ck_assert_int_eq (dts_mlp_point_is_test (&q, 20), t);
          }
        /* a larger share keeps every geometry of a smaller one */
        if (t)
          ck_assert (dts_mlp_point_is_test (&p, 50));
        ck_assert (dts_mlp_point_is_test (&p, 100));
        test += t;
        total++;
        if (t)
          folds[dts_kernel_shape_key (&p.kernel, TRUE) % 5]++;
      }
  /* 960 geometries: 20% +- 4 standard deviations of a binomial */
  ck_assert_msg (test > 0.2 * total - 52 && test < 0.2 * total + 52, "%d of %d", test, total);
  /* not one k-fold fold under another name */
  for (int f = 0; f < 5; f++)
    ck_assert_msg (folds[f] > test / 10, "fold %d: %d of %d", f, folds[f], test);
}
END_TEST

typedef struct {
  guint calls, last_done, total;
} ProgressLog;

static void
log_progress (guint done, guint total, gpointer user_data)
{
  ProgressLog *log = user_data;
  ck_assert_uint_eq (done, log->last_done + 1);
  log->calls++;
  log->last_done = done;
  log->total = total;
}

/* Every point of a (class, GPU) is in the test split or in the k-fold of
 * the development split, never both; progress counts up to its total. */
START_TEST (test_evaluate_splits)
{
  g_autofree char *src = dts_test_srcpath ("tests/data/mlp-kernels");
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsKernelData) data = dts_kernel_data_load (src, &error);
  ck_assert_msg (data != NULL, "%s", error ? error->message : "?");
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  DtsMlpTrainOptions opts;
  dts_mlp_train_options_init (&opts);
  opts.epochs = 5;
  opts.members = 1;
  opts.test_percent = 50; /* the fixture is small: make the test split non-empty */
  ProgressLog log = { 0 };
  g_autoptr (DtsMlpEval) ev = dts_mlp_evaluate (data, cat, &opts, log_progress, &log, &error);
  ck_assert_msg (ev != NULL, "%s", error ? error->message : "?");
  ck_assert_uint_gt (log.calls, 0);
  ck_assert_uint_eq (log.last_done, log.total);
  const DtsKernelDevice *table = dts_kernel_devices ();
  int with_test = 0;
  for (guint i = 0; i < ev->kfold->len; i++) {
    const DtsMlpEvalRow *r = &g_array_index (ev->kfold, DtsMlpEvalRow, i);
    int all = 0, test = 0;
    for (guint j = 0; j < data->points->len; j++) {
      const DtsKernelPoint *p = &g_array_index (data->points, DtsKernelPoint, j);
      if (p->kernel.klass != r->klass || strcmp (table[p->device].gpu_id, r->gpu_id) != 0
          || table[p->device].precision != r->precision)
        continue;
      all++;
      test += dts_mlp_point_is_test (p, opts.test_percent);
    }
    ck_assert_int_eq (r->test_points, test);
    ck_assert_int_le (r->points + r->test_points, all); /* k-fold: folds with training data */
    ck_assert (r->test_points == 0 ? isnan (r->test_mlp_mape) : r->test_mlp_mape > 0);
    with_test += r->test_points > 0;
  }
  ck_assert_int_gt (with_test, 0);
}
END_TEST

/* ---- loading and its errors ------------------------------------------------ */

static void
assert_load_error (const char *dir, int code, const char *frag1, const char *frag2)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsMlpSet) set = dts_mlp_set_load (dir, &error);
  ck_assert_ptr_null (set);
  dts_test_assert_error (error, code, frag1, frag2, NULL);
}

START_TEST (test_load_errors)
{
  assert_load_error ("/nonexistent/kernel-models", DTS_ERROR_NOT_FOUND,
                     "'/nonexistent/kernel-models': no such directory", "dtsim cost train");
  g_autofree char *empty = make_tmp_dir ();
  assert_load_error (empty, DTS_ERROR_NOT_FOUND, "manifest.xml': no such file", NULL);
  write_in (empty, "manifest.xml", "<kernel-models version=\"1\">\n  <gpu id=\"x\"\n");
  assert_load_error (empty, DTS_ERROR_PARSE, "manifest.xml': line", NULL);
  write_in (empty, "manifest.xml", "<kernel-models version=\"2\"/>\n");
  assert_load_error (empty, DTS_ERROR_INVALID, "line 1: version 2", NULL);
  write_in (empty, "manifest.xml", "<kernel-models version=\"1\">\n</kernel-models>\n");
  assert_load_error (empty, DTS_ERROR_INVALID, "no <network>", NULL);
  write_in (empty, "manifest.xml",
            "<kernel-models version=\"1\">\n"
            "  <gpu id=\"T4\" precision=\"fp32\" math=\"fp32\" peak-flops=\"8e12\"\n"
            "       math-peak-flops=\"8e12\" mem-bw-Bps=\"-3\" sm-count=\"40\"/>\n"
            "</kernel-models>\n");
  assert_load_error (empty, DTS_ERROR_INVALID, "<gpu> attribute 'mem-bw-Bps'",
                     "expected a positive number, got '-3'");
  remove_tree (empty);

  /* a trained set, then damaged copies of it */
  DtsMlpTrainOptions opts;
  dts_mlp_train_options_init (&opts);
  opts.epochs = 5;
  opts.members = 1;
  g_autofree char *dir = train_fixture (&opts);
  g_autofree char *net = g_build_filename (dir, "T4.fp32.conv-fwd.net", NULL);
  g_autofree char *orig = read_in (dir, "T4.fp32.conv-fwd.net");

  g_unlink (net);
  assert_load_error (dir, DTS_ERROR_NOT_FOUND, "T4.fp32.conv-fwd.net", "manifest.xml': line");

  g_autofree char *corrupt = g_strdup (orig);
  corrupt[strlen (corrupt) / 2] ^= 1;
  write_in (dir, "T4.fp32.conv-fwd.net", corrupt);
  assert_load_error (dir, DTS_ERROR_INVALID, "T4.fp32.conv-fwd.net", "SHA-256");

  write_in (dir, "T4.fp32.conv-fwd.net", orig);
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsMlpSet) set = dts_mlp_set_load (dir, &error);
  ck_assert_msg (set != NULL, "%s", error ? error->message : "?");
  remove_tree (dir);
}
END_TEST

/* A manifest for one conv-fwd network in t.net with SHA256 and the inputs
 * NAMES (NULL-terminated). */
static char *
one_network_manifest (const char *sha256, const char *const *names)
{
  GString *s = g_string_new (
      "<kernel-models version=\"1\">\n"
      "  <gpu id=\"T4\" precision=\"fp32\" math=\"fp32\" peak-flops=\"8.1e12\"\n"
      "       math-peak-flops=\"8.1e12\" mem-bw-Bps=\"320e9\" sm-count=\"40\"/>\n"
      "  <network class=\"conv-fwd\" gpu=\"T4\" precision=\"fp32\" file=\"t.net\"");
  g_string_append_printf (s, " sha256=\"%s\">\n", sha256);
  for (const char *const *n = names; *n; n++)
    g_string_append_printf (
        s, "    <input name=\"%s\" mean=\"0\" std=\"1\" min=\"0\" max=\"1\"/>\n", *n);
  g_string_append (s, "    <output name=\"ln_time_s_per_flop\" mean=\"-28\" std=\"1\"/>\n"
                      "    <range dim=\"n\" min=\"4\" max=\"32\"/>\n"
                      "  </network>\n</kernel-models>\n");
  return g_string_free (s, FALSE);
}

static char *
save_fann (const char *dir, unsigned int n_inputs)
{
  struct fann *ann = fann_create_standard (3, n_inputs, 2, 1);
  g_autofree char *path = g_build_filename (dir, "t.net", NULL);
  ck_assert_int_eq (fann_save (ann, path), 0);
  fann_destroy (ann);
  g_autofree char *text = read_in (dir, "t.net");
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
}

START_TEST (test_load_fann_checks)
{
  const char *const *names = dts_kernel_feature_names (DTS_KERNEL_CONV_FWD);
  const guint n = dts_kernel_n_features (DTS_KERNEL_CONV_FWD);
  g_autofree char *dir = make_tmp_dir ();

  /* good: a FANN network with the right inputs */
  g_autofree char *sha = save_fann (dir, n);
  g_autofree char *m = one_network_manifest (sha, names);
  write_in (dir, "manifest.xml", m);
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsMlpSet) set = dts_mlp_set_load (dir, &error);
  ck_assert_msg (set != NULL, "%s", error ? error->message : "?");
  ck_assert_uint_eq (dts_mlp_set_n_networks (set), 1);

  /* wrong input count: the network takes 5, the manifest says 7 */
  g_autofree char *sha5 = save_fann (dir, 5);
  g_autofree char *m5 = one_network_manifest (sha5, names);
  write_in (dir, "manifest.xml", m5);
  g_autofree char *expect = g_strdup_printf ("has 5 inputs, expected %u", n);
  assert_load_error (dir, DTS_ERROR_INVALID, "t.net", expect);

  /* the manifest's inputs are not those of a conv network */
  const char *wrong[] = { "ln_m", "ln_n", NULL };
  g_autofree char *mw = one_network_manifest (sha5, wrong);
  write_in (dir, "manifest.xml", mw);
  assert_load_error (dir, DTS_ERROR_INVALID, "line 5: input 1 is 'ln_m'", "ln_n_out_hw");

  /* not a FANN file at all (with a matching checksum) */
  write_in (dir, "t.net", "hello\n");
  g_autofree char *shat = g_compute_checksum_for_string (G_CHECKSUM_SHA256, "hello\n", -1);
  g_autofree char *mt = one_network_manifest (shat, names);
  write_in (dir, "manifest.xml", mt);
  assert_load_error (dir, DTS_ERROR_PARSE, "t.net", "not a FANN network");

  /* a file name that leaves the directory */
  g_autofree char *esc = one_network_manifest (shat, names);
  char *f = strstr (esc, "file=\"t.net\"");
  memcpy (f, "file=\"/.net\"", 12);
  write_in (dir, "manifest.xml", esc);
  assert_load_error (dir, DTS_ERROR_INVALID, "plain name", NULL);
  remove_tree (dir);
}
END_TEST

/* ---- the shipped networks ------------------------------------------------ */

static DtsMlpSet *
shipped (void)
{
  g_autofree char *dir = shipped_dir ();
  g_autoptr (GError) error = NULL;
  DtsMlpSet *set = dts_mlp_set_load (dir, &error);
  ck_assert_msg (set != NULL, "%s", error ? error->message : "?");
  return set;
}

static double
predict (DtsMlpSet *set, const DtsKernel *k, const DtsGpuSpec *gpu, DtsPrecision p,
         const char **source)
{
  double t = -1;
  g_autoptr (GError) error = NULL;
  ck_assert_msg (dts_mlp_set_kernel_time (set, k, gpu, p, &t, source, &error), "%s",
                 error ? error->message : "?");
  ck_assert (t > 0 && isfinite (t));
  return t;
}

START_TEST (test_shipped_deterministic)
{
  g_autoptr (DtsMlpSet) a = shipped ();
  g_autoptr (DtsMlpSet) b = shipped ();
  ck_assert_uint_eq (dts_mlp_set_n_networks (a), 44);
  ck_assert_uint_eq (dts_mlp_set_n_gpus (a), 11);
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *v100 = dts_gpu_catalog_lookup (cat, "V100-PCIE-16GB");
  /* ResNet-50 layer1 3x3 convolution at batch 16 */
  DtsKernel k = conv (DTS_KERNEL_CONV_FWD, 16, 64, 56, 64, 3, 1, 1);
  const char *src_a = NULL, *src_b = NULL;
  double ta = predict (a, &k, v100, DTS_PREC_FP32, &src_a);
  double tb = predict (b, &k, v100, DTS_PREC_FP32, &src_b);
  ck_assert_str_eq (src_a, "mlp:V100-PCIE-16GB");
  ck_assert_ptr_eq (src_a, src_b); /* interned */
  ck_assert_double_eq (ta, tb);
  /* same again on the same set: FANN keeps no state between runs */
  ck_assert_double_eq (predict (a, &k, v100, DTS_PREC_FP32, &src_a), ta);
  /* DeepBench measured 0.179 ms for this kernel on the V100 (Winograd: 3.7
   * GFLOP in less time than the 14 TFLOP/s peak allows) */
  ck_assert_msg (fabs (ta / 0.179e-3 - 1) < 0.25, "%g s", ta);
}
END_TEST

START_TEST (test_scaling_rule)
{
  g_autoptr (DtsMlpSet) set = shipped ();
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *v100 = dts_gpu_catalog_lookup (cat, "V100-PCIE-16GB");
  DtsKernel big = gemm (4096, 4096, 4096, FALSE, FALSE);   /* compute-bound */
  DtsKernel thin = gemm (4096, 4096, 32, FALSE, FALSE);    /* near the ridge point */
  DtsKernel stream = gemm (8192, 8192, 1, FALSE, FALSE);   /* memory-bound */
  const char *src = NULL;
  double t_big = predict (set, &big, v100, DTS_PREC_FP32, &src);
  ck_assert_str_eq (src, "mlp:V100-PCIE-16GB");
  double t_stream = predict (set, &stream, v100, DTS_PREC_FP32, &src);
  double t_thin = predict (set, &thin, v100, DTS_PREC_FP32, &src);

  /* the same GPU with twice the FLOP/s and twice the bandwidth: every kernel
   * takes half the time */
  DtsGpuSpec fast = *v100;
  fast.id = (char *) "Hypothetical-2x";
  for (int p = 0; p < DTS_PREC_COUNT; p++)
    fast.peak_flops[p] *= 2;
  fast.mem_bw_Bps *= 2;
  ck_assert_double_eq_tol (predict (set, &big, &fast, DTS_PREC_FP32, &src), t_big / 2,
                           1e-9 * t_big);
  ck_assert_str_eq (src, "mlp:V100-PCIE-16GB*roofline");
  ck_assert_double_eq_tol (predict (set, &stream, &fast, DTS_PREC_FP32, &src), t_stream / 2,
                           1e-9 * t_stream);

  /* twice the FLOP/s only: the compute-bound kernel halves, the memory-bound
   * one keeps its time */
  DtsGpuSpec flops2 = *v100;
  flops2.id = (char *) "Hypothetical-flops";
  for (int p = 0; p < DTS_PREC_COUNT; p++)
    flops2.peak_flops[p] *= 2;
  ck_assert_double_eq_tol (predict (set, &big, &flops2, DTS_PREC_FP32, &src), t_big / 2,
                           1e-9 * t_big);
  ck_assert_str_eq (src, "mlp:V100-PCIE-16GB*roofline");
  ck_assert_double_eq_tol (predict (set, &stream, &flops2, DTS_PREC_FP32, &src), t_stream,
                           1e-9 * t_stream);
  /* the roofline ratio exactly, whatever the kernel */
  DtsKernelWork w = { .flops = dts_kernel_flops (&thin),
                      .bytes = (4096.0 * 32 + 32.0 * 4096 + 4096.0 * 4096) * 4,
                      .kernels = 1 };
  double r = dts_roofline_ratio (&w, v100, &flops2, DTS_PREC_FP32);
  ck_assert (r > 0.5 && r < 1.0);
  ck_assert_double_eq_tol (predict (set, &thin, &flops2, DTS_PREC_FP32, &src), t_thin * r,
                           1e-9 * t_thin);

  /* an unmeasured GPU is served by the nearest trained one */
  DtsGpuSpec t4ish = *v100;
  t4ish.id = (char *) "T4-like";
  t4ish.peak_flops[DTS_PREC_FP32] = 8e12;
  t4ish.mem_bw_Bps = 300e9;
  predict (set, &big, &t4ish, DTS_PREC_FP32, &src);
  ck_assert_str_eq (src, "mlp:T4*roofline");
  const DtsGpuSpec *a100 = dts_gpu_catalog_lookup (cat, "A100-SXM4-40GB");
  ck_assert_str_eq (dts_mlp_set_source_gpu (set, a100, DTS_PREC_FP32, DTS_KERNEL_GEMM),
                    "V100-PCIE-16GB");
  ck_assert_str_eq (dts_mlp_set_source_gpu (set, v100, DTS_PREC_FP16, DTS_KERNEL_GEMM),
                    "V100-PCIE-16GB");
  /* tf32 is served by fp32 networks */
  double t_tf32 = predict (set, &big, a100, DTS_PREC_TF32, &src);
  ck_assert_str_eq (src, "mlp:V100-PCIE-16GB*roofline");
  ck_assert (t_tf32 < t_big / 5); /* 156 TFLOP/s tf32 against 14 fp32 */

  /* bad GPU numbers are an error, not a division by zero */
  DtsGpuSpec broken = *v100;
  broken.mem_bw_Bps = 0;
  double t = 0;
  g_autoptr (GError) error = NULL;
  ck_assert (!dts_mlp_set_kernel_time (set, &big, &broken, DTS_PREC_FP32, &t, &src, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "no positive peak", NULL);
}
END_TEST

START_TEST (test_batch_beyond_range)
{
  g_autoptr (DtsMlpSet) set = shipped ();
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *v100 = dts_gpu_catalog_lookup (cat, "V100-PCIE-16GB");
  /* DeepBench convolutions stop at batch 32: at 64 and 128 a compute-bound
   * layer takes 2x and 4x the batch-32 time, a little less since the launch
   * overhead is paid once */
  DtsKernel k32 = conv (DTS_KERNEL_CONV_FWD, 32, 256, 14, 256, 3, 1, 1);
  DtsKernel k64 = k32, k128 = k32;
  k64.conv.n = 64;
  k128.conv.n = 128;
  const char *src = NULL;
  double t32 = predict (set, &k32, v100, DTS_PREC_FP32, &src);
  double r64 = predict (set, &k64, v100, DTS_PREC_FP32, &src) / t32;
  double r128 = predict (set, &k128, v100, DTS_PREC_FP32, &src) / t32;
  ck_assert_msg (r64 > 1.98 && r64 < 2.0, "%g", r64);
  ck_assert_msg (r128 > 3.95 && r128 < 4.0, "%g", r128);
  /* a GEMM far below the smallest trained k (512) costs about what k = 512
   * costs: with k = 1 its roofline time is mostly the launch */
  DtsKernel k512 = gemm (64, 64, 512, FALSE, FALSE);
  DtsKernel k1 = gemm (64, 64, 1, FALSE, FALSE);
  double r1 = predict (set, &k1, v100, DTS_PREC_FP32, &src)
              / predict (set, &k512, v100, DTS_PREC_FP32, &src);
  ck_assert_msg (r1 > 0.8 && r1 < 1.0, "%g", r1);
}
END_TEST

/* ---- layers -------------------------------------------------------------- */

START_TEST (test_layer_times)
{
  g_autoptr (DtsMlpSet) set = shipped ();
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *gpu = dts_gpu_catalog_lookup (cat, "V100-SXM2-16GB");
  g_autoptr (GError) error = NULL;

  /* a 3x3 convolution layer: three kernels, update from the roofline */
  DtsKernel k = conv (DTS_KERNEL_CONV_FWD, 1, 128, 28, 128, 3, 1, 1);
  DtsLayer layer;
  int batch = 0;
  dts_kernel_to_layer (&k, &layer, &batch);
  layer.name = (char *) "conv";
  DtsLayerTimes t;
  ck_assert_msg (dts_mlp_set_layer_times (set, &layer, gpu, DTS_PREC_FP32, 16, &t, &error), "%s",
                 error ? error->message : "?");
  ck_assert_str_eq (t.source, "mlp:V100-PCIE-16GB*roofline");
  const char *src = NULL;
  k.conv.n = 16;
  ck_assert_double_eq (t.fwd_s, predict (set, &k, gpu, DTS_PREC_FP32, &src));
  k.klass = DTS_KERNEL_CONV_BWD_DATA;
  ck_assert_double_eq (t.bwd_data_s, predict (set, &k, gpu, DTS_PREC_FP32, &src));
  k.klass = DTS_KERNEL_CONV_BWD_FILTER;
  ck_assert_double_eq (t.bwd_weight_s, predict (set, &k, gpu, DTS_PREC_FP32, &src));
  DtsLayerTimes roof;
  roofline_times (&layer, gpu, 16, &roof);
  ck_assert_double_eq (t.update_s, roof.update_s);

  /* no data gradient for a layer that reads the model input */
  layer.bwd_data_flops = 0;
  ck_assert (dts_mlp_set_layer_times (set, &layer, gpu, DTS_PREC_FP32, 16, &t, &error));
  ck_assert_double_eq (t.bwd_data_s, 0);

  /* fc 4096 -> 1000 at batch 64: the three GEMMs */
  DtsKernel g = gemm (1000, 1, 4096, FALSE, FALSE);
  dts_kernel_to_layer (&g, &layer, &batch);
  layer.name = (char *) "fc";
  ck_assert (dts_mlp_set_layer_times (set, &layer, gpu, DTS_PREC_FP32, 64, &t, &error));
  DtsKernel fwd = gemm (1000, 64, 4096, FALSE, FALSE);
  DtsKernel bwd_d = gemm (4096, 64, 1000, TRUE, FALSE);
  DtsKernel bwd_w = gemm (1000, 4096, 64, FALSE, TRUE);
  ck_assert_double_eq (t.fwd_s, predict (set, &fwd, gpu, DTS_PREC_FP32, &src));
  ck_assert_double_eq (t.bwd_data_s, predict (set, &bwd_d, gpu, DTS_PREC_FP32, &src));
  ck_assert_double_eq (t.bwd_weight_s, predict (set, &bwd_w, gpu, DTS_PREC_FP32, &src));

  /* element-wise and grouped layers: the roofline */
  DtsLayer relu = { .name = (char *) "relu", .type = DTS_LAYER_RELU, .in_elems = 1e5,
                    .out_elems = 1e5, .fwd_flops = 1e5, .bwd_data_flops = 1e5 };
  ck_assert (dts_mlp_set_layer_times (set, &relu, gpu, DTS_PREC_FP32, 32, &t, &error));
  ck_assert_str_eq (t.source, "roofline");
  roofline_times (&relu, gpu, 32, &roof);
  ck_assert_double_eq (t.fwd_s, roof.fwd_s);
  dts_kernel_to_layer (&k, &layer, &batch);
  layer.groups = 32;
  ck_assert (dts_mlp_set_layer_times (set, &layer, gpu, DTS_PREC_FP32, 32, &t, &error));
  ck_assert_str_eq (t.source, "roofline");
}
END_TEST

START_TEST (test_cost_model_row)
{
  /* the table row finds the shipped networks through the data directory */
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCost) cost = dts_cost_new ("mlp", &error);
  ck_assert_msg (cost != NULL, "%s", error ? error->message : "?");
  ck_assert_str_eq (dts_cost_id (cost), "mlp");
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *gpu = dts_gpu_catalog_lookup (cat, "H100-SXM5-80GB");
  DtsKernel k = conv (DTS_KERNEL_CONV_FWD, 1, 64, 56, 64, 3, 1, 1);
  DtsLayer layer;
  int batch = 0;
  dts_kernel_to_layer (&k, &layer, &batch);
  layer.name = (char *) "c";
  DtsLayerTimes t;
  ck_assert_msg (dts_cost_layer_times (cost, &layer, gpu, DTS_PREC_FP16, 64, &t, &error), "%s",
                 error ? error->message : "?");
  ck_assert_str_eq (t.source, "mlp:V100-PCIE-16GB*roofline");
  ck_assert (t.fwd_s > 0 && t.bwd_data_s > 0 && t.bwd_weight_s > 0);
  ck_assert (!dts_cost_layer_times (cost, &layer, gpu, DTS_PREC_FP16, 0, &t, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "batch size", NULL);
}
END_TEST

static Suite *
mlp_suite (void)
{
  Suite *s = suite_create ("mlp");
  TCase *tc = tcase_create ("mlp");
  tcase_add_test (tc, test_kernel_shapes);
  tcase_add_test (tc, test_kernel_features);
  tcase_add_test (tc, test_csv_fixture);
  tcase_add_test (tc, test_csv_errors);
  tcase_add_test (tc, test_train_deterministic);
  tcase_add_test (tc, test_split);
  tcase_add_test (tc, test_evaluate_splits);
  tcase_add_test (tc, test_load_errors);
  tcase_add_test (tc, test_load_fann_checks);
  tcase_add_test (tc, test_shipped_deterministic);
  tcase_add_test (tc, test_scaling_rule);
  tcase_add_test (tc, test_batch_beyond_range);
  tcase_add_test (tc, test_layer_times);
  tcase_add_test (tc, test_cost_model_row);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return dts_test_run (mlp_suite ());
}

#else /* DTS_TEST_MLP_SHARED */

/* `dtsim cost train` on the DeepBench files regenerates the shipped
 * networks byte for byte. */
START_TEST (test_regenerate_shipped)
{
  g_autofree char *src = g_build_filename (dts_test_shared_dir (), "data", "kernels", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsKernelData) data = dts_kernel_data_load (src, &error);
  ck_assert_msg (data != NULL, "%s", error ? error->message : "?");
  /* 8 GPUs at fp32 and 3 at fp16: 94 conv shapes (backward-data 84 to 94)
   * and 160 GEMMs each */
  ck_assert_uint_eq (data->points->len, 11 * (94 + 94 + 160) + 965);
  DtsMlpTrainOptions opts;
  dts_mlp_train_options_init (&opts);
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  g_autofree char *dir = make_tmp_dir ();
  ck_assert_msg (dts_mlp_train (data, cat, &opts, dir, &error), "%s",
                 error ? error->message : "?");
  g_autofree char *ship = shipped_dir ();
  assert_same_tree (dir, ship);
  remove_tree (dir);
}
END_TEST

int
main (void)
{
  if (dts_test_shared_dir () == NULL) {
    g_printerr ("DTSIM_SHARED not set or missing: skipping\n");
    return 77;
  }
  g_autofree char *kernels = g_build_filename (dts_test_shared_dir (), "data", "kernels",
                                               "deepbench_conv.csv", NULL);
  if (!g_file_test (kernels, G_FILE_TEST_EXISTS)) {
    g_printerr ("%s missing: skipping\n", kernels);
    return 77;
  }
  Suite *s = suite_create ("mlp-shared");
  TCase *tc = tcase_create ("mlp-shared");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_regenerate_shipped);
  suite_add_tcase (s, tc);
  return dts_test_run (s);
}

#endif
