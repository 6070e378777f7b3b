/* test-loss.c - what a transformer's loss and lm-head cost: the
 * cross-entropy implementations a profile names (cost/loss.c), their key,
 * and the lm-head that stays in bf16 under fp8 (a linear row's fp8
 * attribute). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "cost/cost.h"
#include "cost/framework.h"
#include "cost/loss.h"
#include "cost/roofline.h"
#include "platform/gpu.h"
#include "schedule/schedule.h"
#include "testlib.h"
#include "workload/work.h"
#include "workload/workload.h"

static DtsWorkload *
llama_like (void)
{
  g_autofree char *path = dts_test_write_tmp (
      "<model name=\"t\"><transformer layers=\"1\" hidden=\"1024\" ffn=\"4096\" heads=\"8\" "
      "vocab=\"128000\" seq-len=\"2048\"/></model>\n",
      ".xml");
  g_autoptr (GError) error = NULL;
  DtsWorkload *w = dts_workload_load (path, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  return w;
}

static const DtsLayer *
layer_named (const DtsWorkload *w, const char *name)
{
  for (guint i = 0; i < w->layers->len; i++)
    if (strcmp (dts_workload_layer (w, i)->name, name) == 0)
      return dts_workload_layer (w, i);
  ck_abort_msg ("no layer %s", name);
  return NULL;
}

/* cross-entropy in a profile: every implementation parses and names
 * itself back, fused is the default, anything else is an error naming the
 * file, line and the implementations. */
START_TEST (test_loss_profile_key)
{
  g_autoptr (DtsFramework) plain = dts_test_profile ("description = x\n");
  ck_assert_int_eq (plain->loss, DTS_LOSS_FUSED);
  ck_assert_int_eq (dts_framework_generic ()->loss, DTS_LOSS_FUSED);
  for (int k = 0; k < DTS_LOSS_KERNEL_COUNT; k++) {
    g_autofree char *text = g_strdup_printf ("cross-entropy = %s\n", dts_loss_kernel_name (k));
    g_autoptr (DtsFramework) fw = dts_test_profile (text);
    ck_assert_int_eq (fw->loss, k);
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsFramework) bad
      = dts_framework_parse ("description = x\ncross-entropy = apex\n", "t", "t.conf", &error);
  ck_assert_ptr_null (bad);
  dts_test_assert_error (error, DTS_ERROR_PARSE, "t.conf': line 2", "cross-entropy = 'apex'",
                         "expected fused, torch-fp32, megatron or megatron-fused", NULL);
}
END_TEST

/* What the roofline charges the loss of a 128,000-token vocabulary over
 * 2,048 tokens on the H100: under megatron, forward 38 bytes per logit (the
 * cast from bf16 and five fp32 passes) and 6 launches, backward 14 bytes and
 * 3, at the profile's bandwidth share; under fused, the layer's own one
 * pass each way.  The implementations order as their passes do, and no
 * other layer's price moves. */
START_TEST (test_loss_roofline)
{
  g_autoptr (DtsWorkload) w = llama_like ();
  const DtsLayer *loss = layer_named (w, "loss");
  ck_assert_int_eq (loss->type, DTS_LAYER_CROSS_ENTROPY);
  ck_assert_double_eq (loss->in_elems, 2048.0 * 128000.0);
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *h100 = dts_gpu_catalog_lookup (cat, "H100-SXM5-80GB");
  const char *base = "compute-efficiency-bf16 = 0.5\nmemory-efficiency = 0.8\n"
                     "launch-overhead = 5us\n";
  double total[DTS_LOSS_KERNEL_COUNT];
  DtsLayerTimes t[DTS_LOSS_KERNEL_COUNT];
  for (int k = 0; k < DTS_LOSS_KERNEL_COUNT; k++) {
    g_autofree char *text = g_strdup_printf ("%scross-entropy = %s\n", base,
                                             dts_loss_kernel_name (k));
    g_autoptr (GError) error = NULL;
    g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
    ck_assert (cost != NULL);
    dts_cost_set_framework (cost, dts_test_profile (text));
    ck_assert (dts_cost_layer_times (cost, loss, h100, DTS_PREC_BF16, 2, &t[k], &error));
    total[k] = t[k].fwd_s + t[k].bwd_data_s;
    /* the norm before the head is priced the same under every profile */
    DtsLayerTimes n0, n1;
    ck_assert (dts_cost_layer_times (cost, layer_named (w, "final-norm"), h100, DTS_PREC_BF16,
                                     2, &n1, &error));
    g_autoptr (DtsCost) plain = dts_cost_new ("roofline", &error);
    dts_cost_set_framework (plain, dts_test_profile (base));
    ck_assert (dts_cost_layer_times (plain, layer_named (w, "final-norm"), h100, DTS_PREC_BF16,
                                     2, &n0, &error));
    ck_assert_double_eq (n0.fwd_s, n1.fwd_s);
    ck_assert_double_eq (n0.bwd_data_s, n1.bwd_data_s);
  }
  const double n = 2.0 * 2048.0 * 128000.0, bw = h100->mem_bw_Bps * 0.8;
  assert_rel (t[DTS_LOSS_MEGATRON].fwd_s, n * 38.0 / bw + 6 * 5e-6, 1e-12);
  assert_rel (t[DTS_LOSS_MEGATRON].bwd_data_s, n * 14.0 / bw + 3 * 5e-6, 1e-12);
  assert_rel (t[DTS_LOSS_MEGATRON_FUSED].fwd_s, n * 22.0 / bw + 3 * 5e-6, 1e-12);
  assert_rel (t[DTS_LOSS_TORCH_FP32].bwd_data_s, n * 26.0 / bw + 4 * 5e-6, 1e-12);
  /* fused: the row's own pass each way, reading the bf16 logits and
   * writing their probabilities, then reading those and the output
   * gradient and writing the logits' gradient */
  DtsLayerWork own;
  dts_layer_work (loss, DTS_PREC_BF16, 2, &own);
  ck_assert_double_eq (own.fwd.bytes, n * 4.0);
  ck_assert_double_eq (own.bwd_data.bytes, n * 6.0);
  assert_rel (t[DTS_LOSS_FUSED].fwd_s, own.fwd.bytes / bw + 5e-6, 1e-12);
  ck_assert (total[DTS_LOSS_FUSED] < total[DTS_LOSS_MEGATRON_FUSED]);
  ck_assert (total[DTS_LOSS_MEGATRON_FUSED] < total[DTS_LOSS_TORCH_FP32]);
  ck_assert (total[DTS_LOSS_TORCH_FP32] < total[DTS_LOSS_MEGATRON]);
  /* and in fp32 the logits' element is 4 bytes: megatron reads them once
   * more, no cast saved */
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  dts_cost_set_framework (cost, dts_test_profile ("compute-efficiency-fp32 = 0.5\n"
                                                  "memory-efficiency = 0.8\n"
                                                  "launch-overhead = 5us\n"
                                                  "cross-entropy = megatron\n"));
  DtsLayerTimes t32;
  ck_assert (dts_cost_layer_times (cost, loss, h100, DTS_PREC_FP32, 2, &t32, &error));
  assert_rel (t32.fwd_s, n * 40.0 / bw + 6 * 5e-6, 1e-12);
}
END_TEST

/* What the loss keeps for backward: fused, its activation in bf16 (2 bytes
 * per logit); the fp32 implementations their probabilities (4); in fp32
 * every implementation keeps 4.  Nothing else in the estimate moves. */
START_TEST (test_loss_memory)
{
  g_autoptr (DtsWorkload) w = llama_like ();
  const double logits = 2048.0 * 128000.0;
  ck_assert_double_eq (dts_loss_kept_bytes (DTS_LOSS_FUSED, DTS_PREC_BF16), 2.0);
  ck_assert_double_eq (dts_loss_kept_bytes (DTS_LOSS_FUSED, DTS_PREC_FP8), 2.0);
  ck_assert_double_eq (dts_loss_kept_bytes (DTS_LOSS_MEGATRON, DTS_PREC_BF16), 4.0);
  static const DtsPrecision precs[] = { DTS_PREC_BF16, DTS_PREC_FP32 };
  for (guint p = 0; p < G_N_ELEMENTS (precs); p++)
    for (int k = 1; k < DTS_LOSS_KERNEL_COUNT; k++) {
      DtsMemoryEstimate fused, other;
      dts_schedule_memory_estimate (w, 3, precs[p], DTS_RECOMPUTE_NONE, DTS_LOSS_FUSED, &fused);
      dts_schedule_memory_estimate (w, 3, precs[p], DTS_RECOMPUTE_NONE, k, &other);
      double more = precs[p] == DTS_PREC_FP32 ? 0.0 : 3 * logits * 2.0;
      assert_rel (other.activations_bytes - fused.activations_bytes + 1.0, more + 1.0, 1e-9);
      ck_assert_double_eq (other.weights_bytes, fused.weights_bytes);
      ck_assert_double_eq (other.optimizer_bytes, fused.optimizer_bytes);
    }
}
END_TEST

/* Under fp8 the lm-head stays in bf16 (the transformer writes fp8="false"
 * on it): it costs what it costs in bf16, no casts, while a block's GEMM
 * runs in FP8 and pays for its casts.  A linear row takes fp8="true" or
 * "false", nothing else. */
START_TEST (test_loss_lm_head_bf16)
{
  g_autoptr (DtsWorkload) w = llama_like ();
  const DtsLayer *head = layer_named (w, "lm-head"), *fc1 = layer_named (w, "layers.0.fc1");
  ck_assert (!head->fp8 && fc1->fp8);
  ck_assert_int_eq (dts_layer_precision (head, DTS_PREC_FP8), DTS_PREC_BF16);
  ck_assert_int_eq (dts_layer_precision (fc1, DTS_PREC_FP8), DTS_PREC_FP8);
  ck_assert_int_eq (dts_layer_precision (head, DTS_PREC_FP16), DTS_PREC_FP16);
  ck_assert_int_eq (dts_layer_precision (layer_named (w, "loss"), DTS_PREC_FP8), DTS_PREC_BF16);
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *h100 = dts_gpu_catalog_lookup (cat, "H100-SXM5-80GB");
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  dts_cost_set_framework (cost, dts_test_profile ("compute-efficiency-bf16 = 0.5\n"));
  DtsLayerTimes h8, h16, f8, f16;
  ck_assert (dts_cost_layer_times (cost, head, h100, DTS_PREC_FP8, 2, &h8, &error));
  ck_assert (dts_cost_layer_times (cost, head, h100, DTS_PREC_BF16, 2, &h16, &error));
  ck_assert (dts_cost_layer_times (cost, fc1, h100, DTS_PREC_FP8, 2, &f8, &error));
  ck_assert (dts_cost_layer_times (cost, fc1, h100, DTS_PREC_BF16, 2, &f16, &error));
  ck_assert_double_eq (h8.fwd_s, h16.fwd_s);
  ck_assert_double_eq (h8.bwd_data_s, h16.bwd_data_s);
  ck_assert_double_eq (h8.bwd_weight_s, h16.bwd_weight_s);
  ck_assert (f8.fwd_s < f16.fwd_s);

  g_autofree char *bad = dts_test_write_tmp (
      "<model name=\"t\" seq-len=\"16\">\n  <layer name=\"e\" type=\"embedding\" vocab=\"100\" "
      "out=\"64\"/>\n  <layer name=\"y\" type=\"linear\" out=\"8\" fp8=\"maybe\"/>\n</model>\n",
      ".xml");
  g_autoptr (GError) e2 = NULL;
  g_autoptr (DtsWorkload) none = dts_workload_load (bad, &e2);
  ck_assert_ptr_null (none);
  dts_test_assert_error (e2, DTS_ERROR_PARSE, "line 3: layer 'y'",
                         "attribute 'fp8': 'maybe' is not true or false", NULL);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("loss");
  TCase *tc = tcase_create ("loss");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_loss_profile_key);
  tcase_add_test (tc, test_loss_roofline);
  tcase_add_test (tc, test_loss_memory);
  tcase_add_test (tc, test_loss_lm_head_bf16);
  suite_add_tcase (s, tc);
  return dts_test_run (s);
}
