/* test-cost.c - the cost-model table and the roofline model, checked
 * against times computed by hand. */
#include "config.h"

#include "core/error.h"
#include "cost/cost.h"
#include "cost/roofline.h"
#include "testlib.h"

/* A made-up GPU with round numbers: 10 TFLOP/s fp32, 40 TFLOP/s fp16,
 * no tf32, 1 TB/s. */
static DtsGpuSpec
test_gpu (void)
{
  DtsGpuSpec g = { 0 };
  g.id = (char *) "TEST";
  g.peak_flops[DTS_PREC_FP32] = 10e12;
  g.peak_flops[DTS_PREC_FP16] = 40e12;
  g.mem_bw_Bps = 1e12;
  g.mem_bytes = 16e9;
  g.sm_count = 80;
  return g;
}

/* A 3x3 conv, 256 -> 256 channels, 14x14, stride 1, pad 1, no bias. */
static DtsLayer
conv_layer (void)
{
  DtsLayer l = { 0 };
  l.name = (char *) "conv";
  l.type = DTS_LAYER_CONV;
  l.in_shape = (DtsShape){ 256, 14, 14 };
  l.out_shape = (DtsShape){ 256, 14, 14 };
  l.params = 256.0 * 256 * 9;
  l.fwd_flops = 2.0 * 256 * 256 * 9 * 14 * 14;
  l.bwd_data_flops = l.fwd_flops;
  l.bwd_weight_flops = l.fwd_flops;
  l.in_elems = 256.0 * 14 * 14;
  l.out_elems = 256.0 * 14 * 14;
  return l;
}

/* A ReLU on 64x56x56: one FLOP per element. */
static DtsLayer
relu_layer (void)
{
  DtsLayer l = { 0 };
  l.name = (char *) "relu";
  l.type = DTS_LAYER_RELU;
  l.in_shape = l.out_shape = (DtsShape){ 64, 56, 56 };
  l.in_elems = l.out_elems = 64.0 * 56 * 56;
  l.fwd_flops = l.out_elems;
  l.bwd_data_flops = l.out_elems;
  return l;
}

START_TEST (test_roofline_compute_bound)
{
  DtsGpuSpec gpu = test_gpu ();
  DtsLayer conv = conv_layer ();
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  ck_assert_ptr_nonnull (cost);
  DtsLayerTimes t;
  ck_assert (dts_cost_layer_times (cost, &conv, &gpu, DTS_PREC_FP32, 32, &t, &error));
  /* FLOPs: 2*256*256*9*196*32 = 7,398,752,256 ... /(10e12*0.7) = 1.0569646e-3 s;
   * bytes: (50176+50176)*32*4 + 589824*4 = 15,204,352 B -> 19.0 us: compute-bound. */
  double flops = 2.0 * 256 * 256 * 9 * 196 * 32;
  double expect = flops / (10e12 * 0.70) + 5e-6;
  ck_assert_double_eq_tol (t.fwd_s, expect, 1e-12);
  ck_assert_double_eq_tol (t.bwd_data_s, expect, 1e-12);
  ck_assert_double_eq_tol (t.bwd_weight_s, expect, 1e-12);
  /* update: 589824 params * 20 B / (1e12*0.8) = 14.7456 us (vs 0.17 us of FLOPs) */
  ck_assert_double_eq_tol (t.update_s, 589824.0 * 20 / 0.8e12 + 5e-6, 1e-12);
  ck_assert_str_eq (t.source, "roofline");
  /* fp16 uses the tensor-core peak: four times faster compute. */
  DtsLayerTimes h;
  ck_assert (dts_cost_layer_times (cost, &conv, &gpu, DTS_PREC_FP16, 32, &h, &error));
  ck_assert_double_eq_tol (h.fwd_s, flops / (40e12 * 0.70) + 5e-6, 1e-12);
}
END_TEST

START_TEST (test_roofline_memory_bound)
{
  DtsGpuSpec gpu = test_gpu ();
  DtsLayer relu = relu_layer ();
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  DtsLayerTimes t;
  ck_assert (dts_cost_layer_times (cost, &relu, &gpu, DTS_PREC_FP32, 64, &t, &error));
  /* elements 200704 * 64 = 12,845,056; forward reads + writes them at 4 B:
   * 102,760,448 B / 0.8e12 = 128.45056 us, FLOPs only 1.8 us: memory-bound. */
  double e = 64.0 * 56 * 56 * 64;
  ck_assert_double_eq_tol (t.fwd_s, 2 * e * 4 / 0.8e12 + 5e-6, 1e-12);
  ck_assert_double_eq_tol (t.bwd_data_s, 3 * e * 4 / 0.8e12 + 5e-6, 1e-12);
  ck_assert_double_eq (t.bwd_weight_s, 0.0);
  ck_assert_double_eq (t.update_s, 0.0);
  /* fp16 halves the bytes. */
  DtsLayerTimes h;
  ck_assert (dts_cost_layer_times (cost, &relu, &gpu, DTS_PREC_FP16, 64, &h, &error));
  ck_assert_double_eq_tol (h.fwd_s, 2 * e * 2 / 0.8e12 + 5e-6, 1e-12);
}
END_TEST

START_TEST (test_roofline_ratio)
{
  DtsGpuSpec a = test_gpu ();
  DtsGpuSpec b = test_gpu ();
  b.peak_flops[DTS_PREC_FP32] = 20e12; /* twice the FLOP/s, same bandwidth */
  DtsLayer conv = conv_layer ();
  DtsLayer relu = relu_layer ();
  DtsLayerWork wc, wr;
  dts_roofline_layer_work (&conv, DTS_PREC_FP32, 32, &wc);
  dts_roofline_layer_work (&relu, DTS_PREC_FP32, 32, &wr);
  ck_assert_double_eq_tol (dts_roofline_ratio (&wc.fwd, &a, &b, DTS_PREC_FP32), 0.5, 1e-12);
  ck_assert_double_eq_tol (dts_roofline_ratio (&wr.fwd, &a, &b, DTS_PREC_FP32), 1.0, 1e-12);
}
END_TEST

START_TEST (test_cost_errors)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCost) none = dts_cost_new ("magic", &error);
  ck_assert_ptr_null (none);
  dts_test_assert_error (error, DTS_ERROR_INVALID, "unknown cost model 'magic'", "roofline",
                         NULL);
  g_clear_error (&error);
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  DtsGpuSpec gpu = test_gpu ();
  DtsLayer conv = conv_layer ();
  DtsLayerTimes t;
  ck_assert (!dts_cost_layer_times (cost, &conv, &gpu, DTS_PREC_FP32, 0, &t, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "batch size", NULL);
  g_clear_error (&error);
  gpu.mem_bw_Bps = 0;
  ck_assert (!dts_cost_layer_times (cost, &conv, &gpu, DTS_PREC_FP32, 8, &t, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "GPU 'TEST'", NULL);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("cost");
  TCase *tc = tcase_create ("roofline");
  tcase_add_test (tc, test_roofline_compute_bound);
  tcase_add_test (tc, test_roofline_memory_bound);
  tcase_add_test (tc, test_roofline_ratio);
  tcase_add_test (tc, test_cost_errors);
  suite_add_tcase (s, tc);
  return dts_test_run (s);
}
