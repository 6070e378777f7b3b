/* test-cost-monotone.c - the iteration compute time that each cost model
 * gives every shipped network never falls as the batch grows, over batch
 * 1..1024 (the mlp networks are trained on batch 4..32 and extrapolate
 * beyond it), on a GPU with its own networks (V100 at fp32 and fp16) and
 * on one reached by roofline ratios (A100 at tf32), under the generic and
 * the shipped pytorch profile. */
#include "config.h"

#include "core/datadir.h"
#include "core/error.h"
#include "cost/cost.h"
#include "platform/gpu.h"
#include "workload/workload.h"
#include "testlib.h"

static double
iteration_s (DtsCost *cost, const DtsWorkload *w, const DtsGpuSpec *gpu, DtsPrecision p, int batch)
{
  double total = 0;
  for (guint l = 0; l < w->layers->len; l++) {
    DtsLayerTimes t;
    g_autoptr (GError) error = NULL;
    ck_assert_msg (dts_cost_layer_times (cost, dts_workload_layer (w, l), gpu, p, batch, &t,
                                         &error),
                   "%s", error ? error->message : "");
    total += t.fwd_s + t.bwd_data_s + t.bwd_weight_s + t.update_s;
  }
  return total;
}

START_TEST (test_monotone)
{
  static const struct {
    const char *gpu;
    DtsPrecision precision;
  } cases[] = {
    { "V100-SXM2-16GB", DTS_PREC_FP32 },
    { "V100-SXM2-16GB", DTS_PREC_FP16 },
    { "A100-SXM4-80GB", DTS_PREC_TF32 },
  };
  static const char *const models[] = { "roofline", "mlp" };
  static const char *const frameworks[] = { "generic", "pytorch" };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsGpuCatalog) cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert_msg (cat != NULL, "%s", error ? error->message : "");
  g_auto (GStrv) names = dts_datadir_list ("workloads", ".xml");
  ck_assert (names != NULL && g_strv_length (names) >= 9);
  int checked = 0;
  for (guint n = 0; names[n]; n++) {
    g_autofree char *path = dts_datadir_resolve ("workloads", names[n], ".xml", "workload", &error);
    ck_assert_msg (path != NULL, "%s", error ? error->message : "");
    g_autoptr (DtsWorkload) w = dts_workload_load (path, &error);
    ck_assert_msg (w != NULL, "%s", error ? error->message : "");
    for (guint m = 0; m < G_N_ELEMENTS (models); m++)
      for (guint f = 0; f < G_N_ELEMENTS (frameworks); f++) {
        g_autoptr (DtsCost) cost = dts_cost_new (models[m], &error);
        ck_assert_msg (cost != NULL, "%s", error ? error->message : "");
        DtsFramework *fw = dts_framework_load (frameworks[f], &error);
        ck_assert_msg (fw != NULL, "%s", error ? error->message : "");
        dts_cost_set_framework (cost, fw);
        for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
          const DtsGpuSpec *gpu = dts_gpu_catalog_lookup (cat, cases[c].gpu);
          ck_assert_ptr_nonnull (gpu);
          double prev = 0;
          int prev_b = 0;
          /* every batch to 64, then steps of 1/8 of a power of two */
          for (int b = 1; b <= 1024; b += b < 64 ? 1 : b / 8) {
            double t = iteration_s (cost, w, gpu, cases[c].precision, b);
            ck_assert_msg (t >= prev, "%s, %s, %s, %s %s: batch %d takes %.9g s, batch %d %.9g s",
                           names[n], models[m], frameworks[f], cases[c].gpu,
                           dts_precision_to_string (cases[c].precision), b, t, prev_b, prev);
            prev = t, prev_b = b;
            checked++;
          }
        }
      }
  }
  ck_assert_int_ge (checked, 9 * 2 * 2 * 3 * 87); /* 87 batch sizes per case */
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("cost-monotone");
  TCase *tc = tcase_create ("monotone");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_monotone);
  suite_add_tcase (s, tc);
  return dts_test_run (s);
}
