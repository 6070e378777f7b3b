/* test-attention.c - the fused-attention rate model (cost/attention.c)
 * against bench/fit-attention.py's numbers, its shape in sequence length and
 * head dimension, the architectures it covers, the profile key that names
 * the library, and what the roofline charges an attention layer with it. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "cost/attention.h"
#include "cost/cost.h"
#include "cost/framework.h"
#include "cost/roofline.h"
#include "platform/gpu.h"
#include "testlib.h"
#include "workload/work.h"
#include "workload/workload.h"

/* `bench/fit-attention.py --rows`: the rate the script predicts, with the
 * constants attention.c compiles in, for each library at three fitted head
 * dimensions and sequences (H100 SXM5, forward). */
START_TEST (test_attention_script_rows)
{
  static const struct {
    DtsAttentionKernel k;
    double d, s, rate;
  } rows[] = {
    { DTS_ATTENTION_FLASH2, 64, 512, 2.81984399e+14 },
    { DTS_ATTENTION_FLASH2, 128, 4096, 3.67972557e+14 },
    { DTS_ATTENTION_FLASH2, 256, 16384, 3.01608485e+14 },
    { DTS_ATTENTION_FLASH3, 64, 512, 3.33006028e+14 },
    { DTS_ATTENTION_FLASH3, 128, 4096, 6.3015182e+14 },
    { DTS_ATTENTION_FLASH3, 256, 16384, 6.49831102e+14 },
    { DTS_ATTENTION_CUDNN, 64, 512, 3.35031931e+14 },
    { DTS_ATTENTION_CUDNN, 128, 4096, 6.00027174e+14 },
    { DTS_ATTENTION_CUDNN, 256, 16384, 5.08987155e+14 },
  };
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *h100 = dts_gpu_catalog_lookup (cat, "H100-SXM5-80GB");
  ck_assert_ptr_nonnull (h100);
  double peak = dts_gpu_spec_die_flops (h100, DTS_PREC_BF16);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    assert_rel (peak * dts_attention_share (h100, rows[i].k, rows[i].d, rows[i].s, FALSE),
                rows[i].rate, 1e-8);
}
END_TEST

/* The rate rises with the sequence towards its share and never passes it;
 * a head dimension between two fitted ones lies between their rates;
 * backward runs at 0.80 of forward; the names parse both ways. */
START_TEST (test_attention_shape)
{
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *h100 = dts_gpu_catalog_lookup (cat, "H100-SXM5-80GB");
  for (int k = DTS_ATTENTION_FLASH2; k < DTS_ATTENTION_KERNEL_COUNT; k++) {
    DtsAttentionKernel back;
    ck_assert (dts_attention_kernel_from_string (dts_attention_kernel_name (k), &back));
    ck_assert_int_eq (back, k);
    for (double d = 32; d <= 512; d *= 1.5) {
      double prev = 0;
      for (double s = 16; s <= 1 << 20; s *= 2) {
        double x = dts_attention_share (h100, k, d, s, FALSE);
        ck_assert_msg (x > prev && x < 1, "%s d %g s %g: %g after %g",
                       dts_attention_kernel_name (k), d, s, x, prev);
        assert_rel (dts_attention_share (h100, k, d, s, TRUE), 0.80 * x, 1e-12);
        prev = x;
      }
    }
    double lo = dts_attention_share (h100, k, 64, 2048, FALSE);
    double hi = dts_attention_share (h100, k, 128, 2048, FALSE);
    double mid = dts_attention_share (h100, k, 96, 2048, FALSE);
    ck_assert (mid > fmin (lo, hi) && mid < fmax (lo, hi));
    /* outside the fitted dimensions: the nearest */
    ck_assert_double_eq (dts_attention_share (h100, k, 32, 2048, FALSE), lo);
  }
  DtsAttentionKernel k;
  ck_assert (!dts_attention_kernel_from_string ("flash", &k));
  ck_assert (!dts_attention_kernel_from_string (NULL, &k));
  ck_assert_double_eq (dts_attention_share (h100, DTS_ATTENTION_GEMM, 128, 2048, FALSE), 0.0);
  ck_assert_double_eq (dts_attention_share (h100, DTS_ATTENTION_CUDNN, 0, 2048, FALSE), 0.0);
  ck_assert_double_eq (dts_attention_share (h100, DTS_ATTENTION_CUDNN, 128, NAN, FALSE), 0.0);
}
END_TEST

/* Measured on Hopper: the H200 takes the H100's shares, Blackwell them as
 * its stand-in's, Ampere and older nothing (priced as GEMMs). */
START_TEST (test_attention_architectures)
{
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *h100 = dts_gpu_catalog_lookup (cat, "H100-SXM5-80GB");
  const DtsGpuSpec *h200 = dts_gpu_catalog_lookup (cat, "H200-SXM-141GB");
  const DtsGpuSpec *b200 = dts_gpu_catalog_lookup (cat, "B200-SXM-180GB");
  const DtsGpuSpec *a100 = dts_gpu_catalog_lookup (cat, "A100-SXM4-80GB");
  const DtsGpuSpec *v100 = dts_gpu_catalog_lookup (cat, "V100-SXM2-16GB");
  ck_assert (h100 && h200 && b200 && a100 && v100);
  double x = dts_attention_share (h100, DTS_ATTENTION_CUDNN, 128, 4096, FALSE);
  ck_assert_double_eq (dts_attention_share (h200, DTS_ATTENTION_CUDNN, 128, 4096, FALSE), x);
  ck_assert_double_eq (dts_attention_share (b200, DTS_ATTENTION_CUDNN, 128, 4096, FALSE), x);
  ck_assert_str_eq (dts_attention_measured_arch (b200), "Hopper");
  ck_assert_ptr_null (dts_attention_measured_arch (a100));
  ck_assert_double_eq (dts_attention_share (a100, DTS_ATTENTION_CUDNN, 128, 4096, FALSE), 0.0);
  ck_assert_double_eq (dts_attention_share (v100, DTS_ATTENTION_FLASH2, 128, 4096, FALSE), 0.0);
}
END_TEST

/* attention-kernel in a profile: the libraries parse, anything else is an
 * error naming the file, line and what was expected; gemm is the default. */
START_TEST (test_attention_profile_key)
{
  g_autoptr (DtsFramework) plain = dts_test_profile ("description = x\n");
  ck_assert_int_eq (plain->attention, DTS_ATTENTION_GEMM);
  ck_assert_int_eq (dts_framework_generic ()->attention, DTS_ATTENTION_GEMM);
  g_autoptr (DtsFramework) cudnn = dts_test_profile ("attention-kernel = cudnn\n");
  ck_assert_int_eq (cudnn->attention, DTS_ATTENTION_CUDNN);
  g_autoptr (DtsFramework) f3 = dts_test_profile ("attention-kernel = flash3\n");
  ck_assert_int_eq (f3->attention, DTS_ATTENTION_FLASH3);
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsFramework) bad
      = dts_framework_parse ("description = x\nattention-kernel = flash\n", "t", "t.conf", &error);
  ck_assert_ptr_null (bad);
  dts_test_assert_error (error, DTS_ERROR_PARSE, "t.conf': line 2", "attention-kernel = 'flash'",
                         "expected gemm, flash2, flash3 or cudnn", NULL);
}
END_TEST

/* What the roofline charges one fused attention layer (Llama-like: 32
 * heads of 128 over 4,096 tokens, causal): on the H100 under a cudnn
 * profile, forward and backward are their FLOPs at the measured shares of
 * the 16-bit peak (compute-bound), whatever 16-bit precision or fp8 the run
 * uses, plus one launch each; under the same profile the A100 prices them
 * as before, as GEMMs at the compute efficiency, and so does the H100 at
 * fp32 (no fused kernel) and under a profile without the key. */
START_TEST (test_attention_roofline)
{
  g_autofree char *path = dts_test_write_tmp (
      "<model name=\"t\"><transformer layers=\"1\" hidden=\"4096\" ffn=\"11008\" heads=\"32\" "
      "vocab=\"32000\" seq-len=\"4096\"/></model>\n",
      ".xml");
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsWorkload) w = dts_workload_load (path, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  const DtsLayer *attn = NULL;
  for (guint i = 0; i < w->layers->len; i++)
    if (dts_workload_layer (w, i)->type == DTS_LAYER_ATTENTION)
      attn = dts_workload_layer (w, i);
  ck_assert (attn != NULL && attn->fused && attn->causal);
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *h100 = dts_gpu_catalog_lookup (cat, "H100-SXM5-80GB");
  const DtsGpuSpec *a100 = dts_gpu_catalog_lookup (cat, "A100-SXM4-80GB");
  g_autoptr (DtsFramework) cudnn = dts_test_profile ("compute-efficiency-fp16 = 0.5\n"
                                                     "compute-efficiency-bf16 = 0.5\n"
                                                     "compute-efficiency-fp32 = 0.5\n"
                                                     "launch-overhead = 5us\n"
                                                     "attention-kernel = cudnn\n");
  g_autoptr (DtsFramework) gemm = dts_test_profile ("compute-efficiency-fp16 = 0.5\n"
                                                    "compute-efficiency-bf16 = 0.5\n"
                                                    "launch-overhead = 5us\n");
  const int batch = 2;
  static const DtsPrecision precs[] = { DTS_PREC_FP16, DTS_PREC_BF16, DTS_PREC_FP8 };
  for (guint p = 0; p < G_N_ELEMENTS (precs); p++) {
    DtsLayerWork work;
    dts_layer_work (attn, precs[p], batch, &work);
    ck_assert_double_eq (work.fwd.attn_seq, 4096);
    ck_assert_double_eq (work.fwd.attn_head_dim, 128);
    ck_assert (!work.fwd.attn_backward && work.bwd_data.attn_backward);
    double peak = dts_gpu_spec_die_flops (h100, DTS_PREC_BF16);
    double fwd = dts_roofline_kernel_time_fw (&work.fwd, h100, precs[p], cudnn);
    double bwd = dts_roofline_kernel_time_fw (&work.bwd_data, h100, precs[p], cudnn);
    assert_rel (fwd,
                work.fwd.flops / (peak * dts_attention_share (h100, DTS_ATTENTION_CUDNN, 128,
                                                               4096, FALSE))
                    + 5e-6,
                1e-12);
    assert_rel (bwd,
                work.bwd_data.flops / (peak * dts_attention_share (h100, DTS_ATTENTION_CUDNN,
                                                                    128, 4096, TRUE))
                    + 5e-6,
                1e-12);
    if (precs[p] != DTS_PREC_FP8) {
      /* the A100 and a profile without the key: as a GEMM at 0.5 */
      double pa = dts_gpu_spec_die_flops (a100, precs[p]);
      assert_rel (dts_roofline_kernel_time_fw (&work.fwd, a100, precs[p], cudnn),
                  work.fwd.flops / (pa * 0.5) + 5e-6, 1e-12);
      assert_rel (dts_roofline_kernel_time_fw (&work.fwd, h100, precs[p], gemm),
                  work.fwd.flops / (peak * 0.5) + 5e-6, 1e-12);
    }
  }
  DtsLayerWork w32;
  dts_layer_work (attn, DTS_PREC_FP32, batch, &w32);
  assert_rel (dts_roofline_kernel_time_fw (&w32.fwd, h100, DTS_PREC_FP32, cudnn),
              fmax (w32.fwd.flops / (dts_gpu_spec_die_flops (h100, DTS_PREC_FP32) * 0.5),
                    w32.fwd.bytes / (h100->mem_bw_Bps * 0.8))
                  + 5e-6,
              1e-12);
}
END_TEST

/* The run says what it assumed: Ampere has no measured rates (priced as a
 * GEMM, the key named), Blackwell takes Hopper's; the H100 says nothing. */
START_TEST (test_attention_assumption)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  ck_assert (cost != NULL);
  dts_cost_set_framework (cost, dts_test_profile ("compute-efficiency-bf16 = 0.6\n"
                                                  "attention-kernel = flash2\n"));
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *h100 = dts_gpu_catalog_lookup (cat, "H100-SXM5-80GB");
  const DtsGpuSpec *a100 = dts_gpu_catalog_lookup (cat, "A100-SXM4-80GB");
  const DtsGpuSpec *b200 = dts_gpu_catalog_lookup (cat, "B200-SXM-180GB");
  ck_assert_ptr_null (dts_cost_assumption (cost, h100, DTS_PREC_BF16));
  g_autofree char *a = dts_cost_assumption (cost, a100, DTS_PREC_BF16);
  ck_assert_ptr_nonnull (a);
  ck_assert_ptr_nonnull (strstr (a, "attention: no flash2 rates measured on Ampere, its fused "
                                    "attention priced as a GEMM at profile t's "
                                    "compute-efficiency-bf16 0.60"));
  g_autofree char *b = dts_cost_assumption (cost, b200, DTS_PREC_BF16);
  ck_assert_ptr_nonnull (b);
  ck_assert_ptr_nonnull (strstr (b, "attention: no flash2 rates measured on Blackwell, Hopper's "
                                    "measured shares of the 16-bit peak assumed"));
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("attention");
  TCase *tc = tcase_create ("attention");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_attention_script_rows);
  tcase_add_test (tc, test_attention_shape);
  tcase_add_test (tc, test_attention_architectures);
  tcase_add_test (tc, test_attention_profile_key);
  tcase_add_test (tc, test_attention_roofline);
  tcase_add_test (tc, test_attention_assumption);
  suite_add_tcase (s, tc);
  return dts_test_run (s);
}
