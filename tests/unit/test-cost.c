/* test-cost.c - the cost-model table and the roofline model, checked
 * against times computed by hand. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "cli/cli-private.h"
#include "core/error.h"
#include "cost/cost.h"
#include "cost/roofline.h"
#include "platform/gpu.h"
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
  l.in_shape = (DtsShape){ 256, 14, 14, 0 };
  l.out_shape = (DtsShape){ 256, 14, 14, 0 };
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
  l.in_shape = l.out_shape = (DtsShape){ 64, 56, 56, 0 };
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
  /* a GeForce card, its FP32-accumulate rate half the die's: priced at the
   * die's rate in fp16, the fp32 rate as it was */
  DtsGpuSpec geforce = gpu;
  geforce.peak_flops[DTS_PREC_FP16] = 20e12;
  geforce.acc32_share = 0.5;
  DtsLayerTimes gh, g32;
  ck_assert (dts_cost_layer_times (cost, &conv, &geforce, DTS_PREC_FP16, 32, &gh, &error));
  ck_assert_double_eq_tol (gh.fwd_s, h.fwd_s, 1e-15);
  ck_assert (dts_cost_layer_times (cost, &conv, &geforce, DTS_PREC_FP32, 32, &g32, &error));
  ck_assert_double_eq_tol (g32.fwd_s, t.fwd_s, 1e-15);
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
  dts_layer_work (&conv, DTS_PREC_FP32, 32, &wc);
  dts_layer_work (&relu, DTS_PREC_FP32, 32, &wr);
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

/* Wave quantisation: blocks / (waves x SMs). */
START_TEST (test_wave_efficiency)
{
  ck_assert_double_eq_tol (dts_roofline_wave_efficiency (128 * 80, 128, 128, 80), 1.0, 1e-15);
  /* 81 blocks on 80 SMs: two waves, the second nearly empty */
  ck_assert_double_eq_tol (dts_roofline_wave_efficiency (128 * 81, 128, 128, 80),
                           81.0 / 160, 1e-15);
  /* a tiny GEMM: one 16x16 block, 100 of its 256 elements used, on 80 SMs */
  ck_assert_double_eq_tol (dts_roofline_wave_efficiency (10, 10, 128, 80), 100.0 / (80 * 256),
                           1e-15);
  /* 100 x 4096: blocks of 128 x 128 (100 rounds up to 128), 32 of them, one wave */
  ck_assert_double_eq_tol (dts_roofline_wave_efficiency (100, 4096, 128, 80),
                           100.0 * 4096 / (80 * 128 * 128), 1e-15);
  /* no geometry or no SM count: no loss */
  ck_assert_double_eq_tol (dts_roofline_wave_efficiency (0, 128, 128, 80), 1.0, 1e-15);
  ck_assert_double_eq_tol (dts_roofline_wave_efficiency (128, 128, 128, 0), 1.0, 1e-15);
}
END_TEST

static void
parse_fails (const char *text, const char *expect)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsFramework) fw = dts_framework_parse (text, "t", "t.conf", &error);
  ck_assert_ptr_null (fw);
  ck_assert_ptr_nonnull (error);
  ck_assert_msg (strstr (error->message, expect) != NULL, "'%s' lacks '%s'", error->message,
                 expect);
}

START_TEST (test_framework_parse)
{
  g_autoptr (DtsFramework) fw = dts_test_profile (
      "# comment\n\ncompute-efficiency-fp32 = 0.9  # trailing\n"
      "compute-efficiency-fp16-volta = 0.25\nmemory-efficiency = 0.5\n"
      "wave-quantisation = yes\ntile = 64\nlaunch-overhead = 2us\n"
      "iteration-overhead = 3ms\nfuse = relu, add\n");
  ck_assert_double_eq (fw->compute_eff[DTS_PREC_FP32], 0.9);
  ck_assert_double_eq (fw->compute_eff[DTS_PREC_TF32], DTS_ROOFLINE_COMPUTE_EFF);
  ck_assert_double_eq (dts_framework_compute_eff (fw, NULL, "Volta", DTS_PREC_FP16), 0.25);
  ck_assert_double_eq (dts_framework_compute_eff (fw, NULL, "Ampere", DTS_PREC_FP16),
                       DTS_ROOFLINE_COMPUTE_EFF);
  ck_assert_double_eq (dts_framework_compute_eff (fw, NULL, NULL, DTS_PREC_FP16),
                       DTS_ROOFLINE_COMPUTE_EFF);
  ck_assert_double_eq (fw->memory_eff, 0.5);
  /* a chip's key wins over its architecture's; either falls back */
  g_autoptr (DtsFramework) chips = dts_test_profile (
      "compute-efficiency-fp16-ampere = 0.2\ncompute-efficiency-fp16-GA102 = 0.4\n"
      "memory-efficiency-ga102 = 0.6\nmemory-efficiency-ampere = 0.7\n");
  ck_assert_double_eq (dts_framework_compute_eff (chips, "ga102", "Ampere", DTS_PREC_FP16), 0.4);
  ck_assert_double_eq (dts_framework_compute_eff (chips, "GA100", "Ampere", DTS_PREC_FP16), 0.2);
  ck_assert_double_eq (dts_framework_compute_eff (chips, "GA102", "Ampere", DTS_PREC_TF32),
                       DTS_ROOFLINE_COMPUTE_EFF);
  ck_assert_double_eq (dts_framework_compute_eff (chips, "GA102", NULL, DTS_PREC_FP16), 0.4);
  ck_assert_double_eq (dts_framework_memory_eff (chips, "GA102", "Ampere"), 0.6);
  ck_assert_double_eq (dts_framework_memory_eff (chips, NULL, "Ampere"), 0.7);
  ck_assert_double_eq (dts_framework_memory_eff (chips, "AD102", "Ada"), chips->memory_eff);
  /* fp8 without a key of its own borrows bf16's, looked up the same way
   * (Blackwell through its Hopper stand-in); an fp8 key of its own wins */
  g_autoptr (DtsFramework) fp8 = dts_test_profile ("compute-efficiency-bf16 = 0.3\n"
                                                   "compute-efficiency-bf16-hopper = 0.4\n");
  ck_assert (!dts_framework_has_eff (fp8, "GH100", "Hopper", DTS_PREC_FP8));
  ck_assert_double_eq (dts_framework_compute_eff (fp8, "GH100", "Hopper", DTS_PREC_FP8), 0.4);
  ck_assert_double_eq (dts_framework_compute_eff (fp8, "GB100", "Blackwell", DTS_PREC_FP8), 0.4);
  ck_assert_double_eq (dts_framework_compute_eff (fp8, "GA100", "Ampere", DTS_PREC_FP8), 0.3);
  g_autofree char *key = dts_framework_eff_key (fp8, "GH100", "Hopper", FALSE, DTS_PREC_FP8);
  ck_assert_str_eq (key, "compute-efficiency-bf16-hopper");
  g_autoptr (DtsFramework) own = dts_test_profile ("compute-efficiency-bf16 = 0.3\n"
                                                   "compute-efficiency-fp8-hopper = 0.5\n");
  ck_assert (dts_framework_has_eff (own, "GH100", "Hopper", DTS_PREC_FP8));
  ck_assert_double_eq (dts_framework_compute_eff (own, "GH100", "Hopper", DTS_PREC_FP8), 0.5);
  ck_assert_double_eq (dts_framework_compute_eff (own, "GA100", "Ampere", DTS_PREC_FP8), 0.3);
  ck_assert (fw->waves);
  ck_assert_int_eq (fw->tile, 64);
  ck_assert_double_eq_tol (fw->launch_s, 2e-6, 1e-18);
  ck_assert_double_eq_tol (fw->iteration_s, 3e-3, 1e-15);
  ck_assert (fw->fuse[DTS_LAYER_RELU] && fw->fuse[DTS_LAYER_ADD] && !fw->fuse[DTS_LAYER_CONV]);
  ck_assert_int_eq (fw->grad_precision, DTS_PREC_FP32);
  g_autoptr (DtsFramework) half = dts_test_profile ("gradient-precision = fp16\n");
  ck_assert_int_eq (half->grad_precision, DTS_PREC_FP16);
  ck_assert_int_eq (dts_framework_generic ()->grad_precision, DTS_PREC_FP32);

  parse_fails ("memory-efficiency 0.5\n", "line 1: 'memory-efficiency 0.5': expected key = value");
  parse_fails ("\nbogus = 1\n", "line 2: unknown key 'bogus'");
  parse_fails ("compute-efficiency-fp32 = 1.5\n", "expected a number in (0, 1]");
  parse_fails ("compute-efficiency-fp32 = 0\n", "expected a number in (0, 1]");
  parse_fails ("compute-efficiency-fp32 = 0.5x\n", "expected a number in (0, 1]");
  parse_fails ("tile = 0\n", "expected an integer in 1..1024");
  parse_fails ("wave-quantisation = maybe\n", "expected yes or no");
  parse_fails ("launch-overhead = 5 parsecs\n", "expected a time below 1 s");
  parse_fails ("iteration-overhead = 2s\n", "expected a time below 1 s");
  parse_fails ("fuse = conv\n", "'conv' is not a fusable layer kind");
  parse_fails ("tile = 8\ntile = 16\n", "line 2: key 'tile' given twice");
  parse_fails ("compute-efficiency-fp16- = 0.5\n", "expected an architecture name");
  parse_fails ("gradient-precision = tf32\n", "expected fp32, fp16 or bf16");
  parse_fails ("gpu-speed-spread = 0.5\n", "expected a number in [0, 0.5)");
  parse_fails ("gpu-speed-spread = -0.01\n", "expected a number in [0, 0.5)");
  parse_fails ("gradient-precision = int8\n", "expected fp32, fp16 or bf16");
  parse_fails ("gradient-precision = fp8\n", "expected fp32, fp16 or bf16");
  parse_fails ("winograd-3x3 = 0.9\n", "expected a number in [1, 4]");
  parse_fails ("winograd-3x3 = 4.5\n", "expected a number in [1, 4]");
  parse_fails ("memory-efficiency-kepler = 0\n", "expected a number in (0, 1]");
  parse_fails ("memory-efficiency- = 0.5\n", "expected an architecture name");
  parse_fails ("compute-efficiency-1x1 = 0\n", "expected a number in (0, 1]");
  parse_fails ("compute-efficiency-1x1-wgrad = 1.5\n", "expected a number in (0, 1]");
  parse_fails ("compute-efficiency-1x1 = x\n", "expected a number in (0, 1]");
  g_autoptr (DtsFramework) one = dts_test_profile ("compute-efficiency-1x1 = 0.46\n"
                                                   "compute-efficiency-1x1-wgrad = 0.22\n");
  ck_assert_double_eq (one->eff_1x1, 0.46);
  ck_assert_double_eq (one->eff_1x1_wgrad, 0.22);
  ck_assert_double_eq (dts_framework_generic ()->eff_1x1, 0);
  ck_assert_double_eq (dts_framework_generic ()->winograd_3x3, 1.0);
}
END_TEST

/* winograd-3x3 divides the compute time of the forward and backward-data
 * kernels of 3x3 stride-1 convolutions only; memory-efficiency-ARCH sets
 * the bandwidth share on that architecture only. */
START_TEST (test_framework_winograd_arch)
{
  DtsGpuSpec gpu = test_gpu ();
  gpu.arch = (char *) "Kepler";
  DtsLayer conv = conv_layer (), relu = relu_layer ();
  conv.kernel_h = conv.kernel_w = 3;
  conv.stride_h = conv.stride_w = 1;
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  dts_cost_set_framework (cost, dts_test_profile ("winograd-3x3 = 2.25\n"
                                                  "memory-efficiency-kepler = 0.4\n"
                                                  "compute-efficiency-fp32-kepler = 0.5\n"));
  double flops = 2.0 * 256 * 256 * 9 * 196 * 32;
  DtsLayerTimes t;
  ck_assert (dts_cost_layer_times (cost, &conv, &gpu, DTS_PREC_FP32, 32, &t, &error));
  ck_assert_double_eq_tol (t.fwd_s, flops / (10e12 * 0.5 * 2.25) + 5e-6, 1e-12);
  ck_assert_double_eq_tol (t.bwd_data_s, t.fwd_s, 1e-15);
  ck_assert_double_eq_tol (t.bwd_weight_s, flops / (10e12 * 0.5) + 5e-6, 1e-12);
  /* stride 2 (a 7x7 output): no Winograd */
  DtsLayer s2 = conv;
  s2.stride_h = s2.stride_w = 2;
  ck_assert (dts_cost_layer_times (cost, &s2, &gpu, DTS_PREC_FP32, 32, &t, &error));
  ck_assert_double_eq_tol (t.fwd_s, flops / (10e12 * 0.5) + 5e-6, 1e-12);
  /* the Kepler bandwidth share, and the default one elsewhere */
  double e = 64.0 * 56 * 56 * 64;
  ck_assert (dts_cost_layer_times (cost, &relu, &gpu, DTS_PREC_FP32, 64, &t, &error));
  ck_assert_double_eq_tol (t.fwd_s, 2 * e * 4 / 0.4e12 + 5e-6, 1e-12);
  gpu.arch = (char *) "Pascal";
  ck_assert (dts_cost_layer_times (cost, &relu, &gpu, DTS_PREC_FP32, 64, &t, &error));
  ck_assert_double_eq_tol (t.fwd_s, 2 * e * 4 / 0.8e12 + 5e-6, 1e-12);
  ck_assert (dts_cost_layer_times (cost, &conv, &gpu, DTS_PREC_FP32, 32, &t, &error));
  ck_assert_double_eq_tol (t.fwd_s, flops / (10e12 * 0.7 * 2.25) + 5e-6, 1e-12);
  /* the generic profile: no Winograd */
  g_autoptr (DtsCost) plain = dts_cost_new ("roofline", &error);
  ck_assert (dts_cost_layer_times (plain, &conv, &gpu, DTS_PREC_FP32, 32, &t, &error));
  ck_assert_double_eq_tol (t.fwd_s, flops / (10e12 * 0.7) + 5e-6, 1e-12);
}
END_TEST

/* compute-efficiency-1x1[-wgrad]: a 1x1 convolution's forward and
 * backward-data kernels (and, apart, its weight gradient) at their own share
 * of peak, whatever the precision's; a 3x3 layer keeps the conv/fc one. */
START_TEST (test_framework_1x1)
{
  DtsGpuSpec gpu = test_gpu ();
  DtsLayer c3 = conv_layer (), c1 = conv_layer ();
  c3.kernel_h = c3.kernel_w = 3;
  c1.kernel_h = c1.kernel_w = 1;
  c1.params = 256.0 * 256;
  c1.fwd_flops = c1.bwd_data_flops = c1.bwd_weight_flops = 2.0 * 256 * 256 * 14 * 14;
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  dts_cost_set_framework (cost, dts_test_profile ("compute-efficiency-fp32 = 0.8\n"
                                                  "compute-efficiency-fp16 = 0.4\n"
                                                  "compute-efficiency-1x1 = 0.5\n"
                                                  "compute-efficiency-1x1-wgrad = 0.25\n"));
  double f1 = 2.0 * 256 * 256 * 196 * 32, f3 = 9 * f1;
  DtsLayerTimes t;
  ck_assert (dts_cost_layer_times (cost, &c1, &gpu, DTS_PREC_FP32, 32, &t, &error));
  ck_assert_double_eq_tol (t.fwd_s, f1 / (10e12 * 0.5) + 5e-6, 1e-12); /* compute-bound */
  ck_assert_double_eq_tol (t.bwd_data_s, t.fwd_s, 1e-15);
  ck_assert_double_eq_tol (t.bwd_weight_s, f1 / (10e12 * 0.25) + 5e-6, 1e-12);
  ck_assert (dts_cost_layer_times (cost, &c1, &gpu, DTS_PREC_FP16, 32, &t, &error));
  ck_assert_double_eq_tol (t.fwd_s, f1 / (40e12 * 0.5) + 5e-6, 1e-12);
  ck_assert (dts_cost_layer_times (cost, &c3, &gpu, DTS_PREC_FP32, 32, &t, &error));
  ck_assert_double_eq_tol (t.fwd_s, f3 / (10e12 * 0.8) + 5e-6, 1e-12);
  ck_assert_double_eq_tol (t.bwd_weight_s, f3 / (10e12 * 0.8) + 5e-6, 1e-12);
}
END_TEST

/* fft-convolution: a stride-1 convolution costs the cheaper of its direct
 * kernel and cuDNN's FFT algorithms, worked out here by hand from the model
 * of roofline.c.  A 5x5 conv, 64 -> 192 channels, 27x27, pad 2, batch 128:
 * padded 31 points a side -> FFTs of 32 (2^5), 32 x 17 = 544 frequencies. */
START_TEST (test_fft_convolution)
{
  DtsGpuSpec gpu = test_gpu ();
  DtsLayer l = { 0 };
  l.name = (char *) "conv5";
  l.type = DTS_LAYER_CONV;
  l.in_shape = (DtsShape){ 64, 27, 27, 0 };
  l.out_shape = (DtsShape){ 192, 27, 27, 0 };
  l.kernel_h = l.kernel_w = 5;
  l.stride_h = l.stride_w = 1;
  l.pad_h = l.pad_w = 2;
  l.groups = 1;
  l.params = 192.0 * 64 * 25;
  l.fwd_flops = 2.0 * 192 * 64 * 25 * 27 * 27;
  l.bwd_data_flops = l.bwd_weight_flops = l.fwd_flops;
  l.in_elems = 64.0 * 27 * 27;
  l.out_elems = 192.0 * 27 * 27;
  const double n = 128, c = 64, k = 192;
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  dts_cost_set_framework (cost, dts_test_profile ("fft-convolution = yes\n"));
  DtsLayerTimes t, d;
  ck_assert (dts_cost_layer_times (cost, &l, &gpu, DTS_PREC_FP32, 128, &t, &error));
  g_autoptr (DtsCost) plain = dts_cost_new ("roofline", &error);
  ck_assert (dts_cost_layer_times (plain, &l, &gpu, DTS_PREC_FP32, 128, &d, &error));
  double direct = n * l.fwd_flops / 7e12 + 5e-6;
  ck_assert_double_eq_tol (d.fwd_s, direct, 1e-12);

  double reals = (n * (l.in_elems + l.out_elems) + l.params) * 4;
  double p = 10e12 * 0.7, bw = 1e12 * 0.8;
  /* whole image: n*c + k*c + n*k planes of 32x32 */
  double planes = n * c + k * c + n * k, freqs = 32 * 17;
  double spectra = planes * freqs * 8;
  double whole = fmax (planes * 2.5 * 1024 * 10 / p, (reals + 3 * spectra) / bw)
                 + fmax (8 * n * c * k * freqs / p, spectra / bw) + 5 * 5e-6;
  /* 32x32 tiles, 28 outputs a side: one tile of the 27x27 output */
  double tplanes = (n * c + n * k) * 1 + k * c;
  double tspectra = tplanes * freqs * 8;
  double tiled = fmax (tplanes * 2.5 * 1024 * 10 / p, (reals + 3 * tspectra) / bw)
                 + fmax (8 * n * c * k * freqs / p, tspectra / bw) + 5 * 5e-6;
  ck_assert (whole < direct && tiled < direct);
  ck_assert_double_eq_tol (t.fwd_s, fmin (whole, tiled), 1e-12);
  /* backward data and weights: the whole-image FFT only (no tiling) */
  ck_assert_double_eq_tol (t.bwd_data_s, whole, 1e-12);
  ck_assert_double_eq_tol (t.bwd_weight_s, whole, 1e-12);

  /* stride 2, or padding as large as the filter: direct only */
  DtsLayer s2 = l;
  s2.stride_h = 2;
  DtsLayerTimes u, v;
  ck_assert (dts_cost_layer_times (cost, &s2, &gpu, DTS_PREC_FP32, 128, &u, &error));
  ck_assert (dts_cost_layer_times (plain, &s2, &gpu, DTS_PREC_FP32, 128, &v, &error));
  ck_assert_double_eq (u.fwd_s, v.fwd_s);
  ck_assert_double_eq (u.bwd_weight_s, v.bwd_weight_s);
  /* a 1x1 convolution: the direct kernel is faster than any FFT */
  DtsLayer one = l;
  one.kernel_h = one.kernel_w = 1;
  one.pad_h = one.pad_w = 0;
  one.fwd_flops = one.bwd_data_flops = one.bwd_weight_flops = 2.0 * 192 * 64 * 27 * 27;
  one.params = 192.0 * 64;
  ck_assert (dts_cost_layer_times (cost, &one, &gpu, DTS_PREC_FP32, 128, &u, &error));
  ck_assert (dts_cost_layer_times (plain, &one, &gpu, DTS_PREC_FP32, 128, &v, &error));
  ck_assert_double_eq (u.fwd_s, v.fwd_s);
  ck_assert_double_eq (u.bwd_data_s, v.bwd_data_s);
  /* an image too large for the whole-image FFT (257 padded points) still
   * has the tiled forward, and nothing else */
  DtsLayer big = l;
  big.in_shape.h = big.in_shape.w = big.out_shape.h = big.out_shape.w = 253;
  big.in_elems = 64.0 * 253 * 253;
  big.out_elems = 192.0 * 253 * 253;
  big.fwd_flops = big.bwd_data_flops = big.bwd_weight_flops = 2.0 * 192 * 64 * 25 * 253 * 253;
  ck_assert (dts_cost_layer_times (cost, &big, &gpu, DTS_PREC_FP32, 8, &u, &error));
  ck_assert (dts_cost_layer_times (plain, &big, &gpu, DTS_PREC_FP32, 8, &v, &error));
  ck_assert (u.fwd_s < v.fwd_s);
  ck_assert_double_eq (u.bwd_data_s, v.bwd_data_s);
  ck_assert_double_eq (u.bwd_weight_s, v.bwd_weight_s);
  parse_fails ("fft-convolution = sometimes\n", "expected yes or no");
  ck_assert (!dts_framework_generic ()->fft);
}
END_TEST

/* winograd-convolution: a 3x3 stride-1 convolution's forward and
 * data-gradient passes cost the least of the direct kernel, the fused
 * Winograd F(2x2,3x3) and the non-fused F(4x4,3x3), by hand from the model
 * of roofline.c; the weight gradient stays direct.  The 256 -> 256, 14x14
 * layer at batch 32: 7x7 tiles of 2x2 or 4x4 per image. */
START_TEST (test_winograd_convolution)
{
  DtsGpuSpec gpu = test_gpu ();
  DtsLayer conv = conv_layer ();
  conv.kernel_h = conv.kernel_w = 3;
  conv.stride_h = conv.stride_w = 1;
  conv.pad_h = conv.pad_w = 1;
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  dts_cost_set_framework (cost, dts_test_profile ("winograd-convolution = yes\n"));
  DtsLayerTimes t;
  for (int fp16 = 0; fp16 <= 1; fp16++) {
    DtsPrecision prec = fp16 ? DTS_PREC_FP16 : DTS_PREC_FP32;
    double eb = fp16 ? 2 : 4, p = (fp16 ? 40e12 : 10e12) * 0.7, bw = 0.8e12;
    ck_assert (dts_cost_layer_times (cost, &conv, &gpu, prec, 32, &t, &error));
    double n = 32, c = 256, k = 256;
    double reals = n * 2 * 256 * 196 * eb + conv.params * 4;
    double direct = fmax (n * conv.fwd_flops / p, reals / bw) + 5e-6;
    double t2 = n * 7 * 7, t4 = n * 4 * 4; /* 14 = 7 x 2 = 3.5 x 4 */
    double fused = fmax (2 * 16 * t2 * c * k / p, reals / bw) + 5e-6;
    double mid = 36 * t4 * (c + k) * eb + 36 * c * k * 4;
    double nonfused = (reals + mid) / bw + fmax (2 * 36 * t4 * c * k / p, mid / bw) + 4 * 5e-6;
    double best = fmin (direct, fmin (fused, nonfused));
    ck_assert (best < direct);
    ck_assert_double_eq_tol (t.fwd_s, best, 1e-12);
    ck_assert_double_eq_tol (t.bwd_data_s, best, 1e-12);
    ck_assert_double_eq_tol (t.bwd_weight_s, direct, 1e-12);
    ck_assert_str_eq (t.source, "roofline:winograd-fd");
  }
  /* a 5x5 layer has no Winograd */
  DtsLayer five = conv;
  five.kernel_h = five.kernel_w = 5;
  five.pad_h = five.pad_w = 2;
  ck_assert (dts_cost_layer_times (cost, &five, &gpu, DTS_PREC_FP32, 32, &t, &error));
  ck_assert_str_eq (t.source, "roofline");
  ck_assert (!dts_framework_generic ()->winograd);
  parse_fails ("winograd-convolution = perhaps\n", "expected yes or no");
  parse_fails ("winograd-convolution = yes\nwinograd-3x3 = 2.25\n",
               "winograd-3x3 (one factor for every 3x3 layer) and winograd-convolution");
  /* with FFTs too, the weight gradient may take one: both named */
  dts_cost_set_framework (cost,
                          dts_test_profile ("winograd-convolution = yes\nfft-convolution = yes\n"));
  ck_assert (dts_cost_layer_times (cost, &conv, &gpu, DTS_PREC_FP32, 32, &t, &error));
  ck_assert (g_str_has_prefix (t.source, "roofline:"));
}
END_TEST

/* Backward sums the gradients of an output read by k layers: k - 1 adds of
 * two output-sized tensors into one, under every profile, fused or not;
 * concat hands each input its slice of the output gradient (one copy per
 * input) unless nothing needs its inputs' gradient. */
START_TEST (test_gradient_sum_and_concat)
{
  DtsGpuSpec gpu = test_gpu ();
  DtsLayer relu = relu_layer ();
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  DtsLayerTimes one, three;
  ck_assert (dts_cost_layer_times (cost, &relu, &gpu, DTS_PREC_FP16, 64, &one, &error));
  relu.n_consumers = 3;
  ck_assert (dts_cost_layer_times (cost, &relu, &gpu, DTS_PREC_FP16, 64, &three, &error));
  double e = 64.0 * 56 * 56 * 64;
  ck_assert_double_eq_tol (three.bwd_data_s - one.bwd_data_s, 2 * (3 * e * 2 / 0.8e12 + 5e-6),
                           1e-12);
  ck_assert_double_eq (three.fwd_s, one.fwd_s);
  dts_cost_set_framework (cost, dts_test_profile ("fuse = relu\n"));
  ck_assert (dts_cost_layer_times (cost, &relu, &gpu, DTS_PREC_FP16, 64, &three, &error));
  ck_assert_str_eq (three.source, "fused");
  ck_assert_double_eq (three.fwd_s, 0);
  ck_assert_double_eq_tol (three.bwd_data_s, 2 * (3 * e * 2 / 0.8e12 + 5e-6), 1e-12);

  DtsLayer cat = { 0 };
  cat.name = (char *) "cat";
  cat.type = DTS_LAYER_CONCAT;
  cat.n_inputs = 2;
  cat.in_elems = cat.out_elems = 96.0 * 28 * 28;
  cat.data_grad = TRUE;
  g_autoptr (DtsCost) plain = dts_cost_new ("roofline", &error);
  DtsLayerTimes t;
  ck_assert (dts_cost_layer_times (plain, &cat, &gpu, DTS_PREC_FP32, 32, &t, &error));
  double b = cat.out_elems * 32 * 4;
  ck_assert_double_eq_tol (t.fwd_s, 2 * b / 0.8e12 + 5e-6, 1e-12);
  ck_assert_double_eq_tol (t.bwd_data_s, 2 * b / 0.8e12 + 2 * 5e-6, 1e-12);
  cat.data_grad = FALSE;
  ck_assert (dts_cost_layer_times (plain, &cat, &gpu, DTS_PREC_FP32, 32, &t, &error));
  ck_assert_double_eq (t.bwd_data_s, 0);
}
END_TEST

/* The slowest of N GPUs whose speeds spread by 2%: 1 + 0.02 E[max of N
 * standard normals]; E[max of 2] = 1/sqrt(pi), E[max of 8] = 1.4236
 * (tables of normal order statistics); one GPU or no spread: 1. */
START_TEST (test_framework_sync_slowdown)
{
  g_autoptr (DtsFramework) fw = dts_test_profile ("gpu-speed-spread = 0.02\n");
  ck_assert_double_eq (dts_framework_sync_slowdown (fw, 1), 1.0);
  ck_assert_double_eq (dts_framework_sync_slowdown (dts_framework_generic (), 8), 1.0);
  ck_assert_double_eq_tol (dts_framework_sync_slowdown (fw, 2), 1 + 0.02 / sqrt (G_PI), 1e-7);
  ck_assert_double_eq_tol (dts_framework_sync_slowdown (fw, 8), 1 + 0.02 * 1.42360, 1e-6);
  double prev = 1.0;
  for (int n = 2; n <= 4096; n *= 2) {
    double s = dts_framework_sync_slowdown (fw, n);
    ck_assert_msg (s > prev, "slowdown not increasing at n=%d", n);
    prev = s;
  }
  /* E[max of 4096] is about 3.6 standard deviations */
  ck_assert (prev > 1 + 0.02 * 3.4 && prev < 1 + 0.02 * 3.8);
}
END_TEST

/* The generic profile is the plain roofline; a profile's efficiencies,
 * waves, fusion and host time change what they say and nothing else. */
START_TEST (test_framework_times)
{
  DtsGpuSpec gpu = test_gpu ();
  gpu.arch = (char *) "Volta";
  DtsLayer conv = conv_layer (), relu = relu_layer ();
  DtsLayer input = { 0 };
  input.name = (char *) "input";
  input.type = DTS_LAYER_INPUT;
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCost) plain = dts_cost_new ("roofline", &error);
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  ck_assert_str_eq (dts_cost_framework (plain)->id, "generic");
  dts_cost_set_framework (cost, dts_framework_load ("generic", &error));
  DtsLayerTimes a, b;
  ck_assert (dts_cost_layer_times (plain, &conv, &gpu, DTS_PREC_FP32, 32, &a, &error));
  ck_assert (dts_cost_layer_times (cost, &conv, &gpu, DTS_PREC_FP32, 32, &b, &error));
  ck_assert (a.fwd_s == b.fwd_s && a.bwd_data_s == b.bwd_data_s
             && a.bwd_weight_s == b.bwd_weight_s && a.update_s == b.update_s);

  dts_cost_set_framework (cost, dts_test_profile ("compute-efficiency-fp32 = 0.5\n"
                                                  "compute-efficiency-fp16-volta = 0.25\n"
                                                  "wave-quantisation = yes\nlaunch-overhead = 1us\n"
                                                  "iteration-overhead = 2ms\nfuse = relu\n"));
  /* forward GEMM rows 32*14*14 = 6272 -> 49 tiles of 128, cols 256 -> 2: 98
   * blocks on 80 SMs, 2 waves: efficiency 98/160 */
  double flops = 2.0 * 256 * 256 * 9 * 196 * 32;
  ck_assert (dts_cost_layer_times (cost, &conv, &gpu, DTS_PREC_FP32, 32, &b, &error));
  ck_assert_double_eq_tol (b.fwd_s, flops / (10e12 * 0.5 * (98.0 / 160)) + 1e-6, 1e-12);
  ck_assert_double_eq_tol (b.bwd_data_s, b.fwd_s, 1e-15); /* same geometry */
  /* the weight gradient is not tiled (split reduction) */
  ck_assert_double_eq_tol (b.bwd_weight_s, flops / (10e12 * 0.5) + 1e-6, 1e-12);
  ck_assert (dts_cost_layer_times (cost, &conv, &gpu, DTS_PREC_FP16, 32, &b, &error));
  ck_assert_double_eq_tol (b.bwd_weight_s, flops / (40e12 * 0.25) + 1e-6, 1e-12);
  /* fused: no time at all */
  ck_assert (dts_cost_layer_times (cost, &relu, &gpu, DTS_PREC_FP32, 32, &b, &error));
  ck_assert (b.fwd_s == 0 && b.bwd_data_s == 0 && b.bwd_weight_s == 0 && b.update_s == 0);
  ck_assert_str_eq (b.source, "fused");
  /* the host time per iteration sits on the input layer */
  ck_assert (dts_cost_layer_times (cost, &input, &gpu, DTS_PREC_FP32, 32, &b, &error));
  ck_assert_double_eq_tol (b.fwd_s, 2e-3, 1e-15);
  ck_assert_str_eq (b.source, "framework");
  ck_assert (dts_cost_layer_times (plain, &input, &gpu, DTS_PREC_FP32, 32, &a, &error));
  ck_assert (a.fwd_s == 0);
  /* TF32 on a GPU without it is still refused under a profile */
  ck_assert (!dts_cost_layer_times (cost, &conv, &gpu, DTS_PREC_TF32, 32, &b, &error));
  ck_assert (strstr (error->message, "has no tf32 tensor cores") != NULL);
  g_clear_error (&error);
  /* an unknown shipped name */
  ck_assert_ptr_null (dts_framework_load ("no-such-profile", &error));
  ck_assert (strstr (error->message, "framework profile 'no-such-profile': no such file") != NULL);
}
END_TEST

/* TF32 and BF16 on every catalogue GPU without them (Kepler..Turing) are an
 * input error naming the GPU, its architecture and the precisions it has,
 * under both cost models; on those with them (Ampere, Hopper) they run. */
START_TEST (test_tensor_formats_catalogue)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsGpuCatalog) cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert_msg (cat != NULL, "%s", error ? error->message : "");
  static const char *const models[] = { "roofline", "mlp" };
  static const DtsPrecision formats[] = { DTS_PREC_TF32, DTS_PREC_BF16 };
  DtsLayer conv = conv_layer ();
  conv.kernel_h = conv.kernel_w = 3; /* the geometry the mlp networks read */
  conv.stride_h = conv.stride_w = 1;
  conv.pad_h = conv.pad_w = 1;
  guint refused = 0, ran = 0;
  for (guint m = 0; m < G_N_ELEMENTS (models); m++) {
    g_autoptr (DtsCost) cost = dts_cost_new (models[m], &error);
    ck_assert_msg (cost != NULL, "%s", error ? error->message : "");
    for (guint g = 0; g < dts_gpu_catalog_size (cat); g++) {
      const DtsGpuSpec *gpu = dts_gpu_catalog_index (cat, g);
      for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
        DtsLayerTimes t;
        const char *p = dts_precision_to_string (formats[f]);
        gboolean ok = dts_cost_layer_times (cost, &conv, gpu, formats[f], 32, &t, &error);
        if (gpu->peak_flops[formats[f]] > 0) {
          ck_assert_msg (ok, "%s %s %s: %s", models[m], gpu->id, p, error ? error->message : "");
          ck_assert (t.fwd_s > 0);
          ran++;
          continue;
        }
        ck_assert_msg (!ok, "%s ran %s on %s", models[m], p, gpu->id);
        g_autofree char *what = g_strdup_printf ("%s (%s) has no %s tensor cores", gpu->id,
                                                 gpu->arch, p);
        dts_test_assert_error (error, DTS_ERROR_INVALID, what, "Ampere and newer have them",
                               "use --precision fp32", NULL);
        g_clear_error (&error);
        refused++;
      }
    }
  }
  /* K80, M40, two Titan X, Titan Xp, 1080 Ti, two P100, three V100, T4 */
  ck_assert_uint_ge (refused, 2 * 2 * 12);
  ck_assert_uint_ge (ran, 2 * 2 * 6);
}
END_TEST

/* A GPU of an architecture nothing was measured on (Blackwell) takes its
 * stand-in's (Hopper's) profile keys and GEMM constants, and the cost says
 * so; a GPU of a measured architecture borrows nothing, and says nothing. */
START_TEST (test_stand_in_assumption)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsGpuCatalog) cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert_msg (cat != NULL, "%s", error ? error->message : "");
  const DtsGpuSpec *b200 = dts_gpu_catalog_lookup (cat, "B200-SXM-180GB");
  const DtsGpuSpec *gb200 = dts_gpu_catalog_lookup (cat, "GB200-186GB");
  const DtsGpuSpec *h100 = dts_gpu_catalog_lookup (cat, "H100-SXM5-80GB");
  const DtsGpuSpec *v100 = dts_gpu_catalog_lookup (cat, "V100-SXM2-16GB");
  ck_assert (b200 && gb200 && h100 && v100);
  ck_assert_str_eq (dts_gpu_arch_stand_in ("Blackwell"), "Hopper");
  ck_assert_str_eq (dts_gpu_arch_stand_in ("blackwell"), "Hopper");
  ck_assert (dts_gpu_arch_stand_in ("Hopper") == NULL);
  ck_assert (dts_gpu_arch_stand_in (NULL) == NULL);
  /* profile keys: Blackwell's own, else Hopper's, else the default */
  g_autoptr (DtsFramework) fw = dts_test_profile ("compute-efficiency-bf16-hopper = 0.5\n"
                                                  "memory-efficiency-hopper = 0.6\n");
  ck_assert_double_eq (dts_framework_compute_eff (fw, b200->chip, b200->arch, DTS_PREC_BF16), 0.5);
  ck_assert_double_eq (dts_framework_memory_eff (fw, gb200->chip, gb200->arch), 0.6);
  ck_assert_double_eq (dts_framework_compute_eff (fw, b200->chip, b200->arch, DTS_PREC_FP16),
                       fw->compute_eff[DTS_PREC_FP16]);
  g_autofree char *key = dts_framework_eff_key (fw, b200->chip, b200->arch, FALSE, DTS_PREC_BF16);
  ck_assert_str_eq (key, "compute-efficiency-bf16-hopper");
  g_autoptr (DtsFramework) own = dts_test_profile ("compute-efficiency-bf16-hopper = 0.5\n"
                                                   "compute-efficiency-bf16-blackwell = 0.4\n");
  ck_assert_double_eq (dts_framework_compute_eff (own, b200->chip, b200->arch, DTS_PREC_BF16),
                       0.4);
  /* the sentence for the run's summary */
  g_autoptr (DtsCost) gemm = dts_cost_new ("roofline-gemm", &error);
  ck_assert (gemm != NULL);
  dts_cost_set_framework (gemm, g_steal_pointer (&fw));
  g_autofree char *said = dts_cost_assumption (gemm, b200, DTS_PREC_BF16);
  ck_assert (said != NULL);
  ck_assert_msg (strstr (said, "B200-SXM-180GB (Blackwell): nothing measured on Blackwell, "
                               "Hopper's values assumed") != NULL, "%s", said);
  ck_assert_msg (strstr (said, "compute-efficiency-bf16-hopper 0.50") != NULL, "%s", said);
  ck_assert_msg (strstr (said, "memory-efficiency-hopper 0.60") != NULL, "%s", said);
  ck_assert_msg (strstr (said, "Hopper's GEMM constants (share 0.9827") != NULL, "%s", said);
  ck_assert_msg (strstr (said, "not measured") == NULL, "%s", said); /* its MAMF is */
  ck_assert (dts_cost_assumption (gemm, h100, DTS_PREC_BF16) == NULL);
  ck_assert (dts_cost_assumption (gemm, v100, DTS_PREC_FP16) == NULL);
  g_autoptr (DtsCost) roof = dts_cost_new ("roofline", &error);
  g_autofree char *plain = dts_cost_assumption (roof, gb200, DTS_PREC_BF16);
  ck_assert (plain != NULL && strstr (plain, "GEMM") == NULL);
  ck_assert_msg (strstr (plain, "profile generic's compute-efficiency-bf16 ") != NULL, "%s", plain);
}
END_TEST

/* Per-pass bounds: the roofline of roofline.c written out again, for a
 * compute-bound convolution and a memory-bound ReLU whose output three
 * layers read (its data gradient then sums three gradients: two more,
 * memory-bound, kernels).  The ridge point of the test GPU at fp32 is
 * 10e12 x 0.70 / (1e12 x 0.80) = 8.75 FLOP/byte. */
START_TEST (test_layer_bounds)
{
  DtsGpuSpec gpu = test_gpu ();
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  const double pc = 10e12 * 0.70, bw = 1e12 * 0.80, launch = 5e-6;
  ck_assert_double_eq_tol (dts_cost_ridge_point (cost, &gpu, DTS_PREC_FP32), 8.75, 1e-12);
  ck_assert_double_eq_tol (dts_cost_ridge_point (cost, &gpu, DTS_PREC_FP16), 35.0, 1e-12);

  DtsLayer conv = conv_layer ();
  DtsLayerBounds b;
  ck_assert (dts_cost_layer_bounds (cost, &conv, &gpu, DTS_PREC_FP32, 32, &b, &error));
  double flops = 2.0 * 256 * 256 * 9 * 196 * 32;
  double bytes = 2.0 * 256 * 196 * 32 * 4 + 589824.0 * 4; /* input, output, weights */
  for (int p = DTS_PASS_FWD; p <= DTS_PASS_BWD_WEIGHT; p++) {
    ck_assert_double_eq_tol (b.pass[p].flops, flops, 1e-3);
    ck_assert_double_eq_tol (b.pass[p].bytes, bytes, 1e-6);
    ck_assert_double_eq_tol (b.pass[p].time_s, fmax (flops / pc, bytes / bw) + launch, 1e-12);
    ck_assert_int_eq (b.pass[p].bound, DTS_BOUND_COMPUTE);
    ck_assert (flops / bytes > 8.75);
    ck_assert_double_eq_tol (b.pass[p].compute_bound_s, flops / pc, 1e-12);
    ck_assert_double_eq (b.pass[p].memory_bound_s, 0.0);
  }
  ck_assert_double_eq (b.pass[DTS_PASS_FWD].time_s, b.times.fwd_s);
  /* the momentum update: 2 FLOPs and 5 x 4 bytes per parameter */
  ck_assert_double_eq_tol (b.pass[DTS_PASS_UPDATE].flops, 2 * 589824.0, 1e-6);
  ck_assert_double_eq_tol (b.pass[DTS_PASS_UPDATE].bytes, 20 * 589824.0, 1e-6);
  ck_assert_double_eq_tol (b.pass[DTS_PASS_UPDATE].time_s, 20 * 589824.0 / bw + launch, 1e-12);
  ck_assert_int_eq (b.pass[DTS_PASS_UPDATE].bound, DTS_BOUND_MEMORY);

  DtsLayer relu = relu_layer ();
  relu.n_consumers = 3;
  ck_assert (dts_cost_layer_bounds (cost, &relu, &gpu, DTS_PREC_FP32, 64, &b, &error));
  double e = 64.0 * 56 * 56 * 64;
  ck_assert_double_eq_tol (b.pass[DTS_PASS_FWD].flops, e, 1e-6);
  ck_assert_double_eq_tol (b.pass[DTS_PASS_FWD].bytes, 2 * e * 4, 1e-6);
  ck_assert_double_eq_tol (b.pass[DTS_PASS_FWD].time_s, fmax (e / pc, 2 * e * 4 / bw) + launch,
                           1e-12);
  ck_assert_int_eq (b.pass[DTS_PASS_FWD].bound, DTS_BOUND_MEMORY);
  ck_assert (e / (2 * e * 4) < 8.75);
  /* its own kernel (read the output gradient and the input, write the
   * input gradient) and two adds of two output-sized tensors into one */
  double own = fmax (e / pc, 3 * e * 4 / bw) + launch;
  double add = fmax (e / pc, 3 * e * 4 / bw) + launch;
  ck_assert_double_eq_tol (b.pass[DTS_PASS_BWD_DATA].flops, e + 2 * e, 1e-6);
  ck_assert_double_eq_tol (b.pass[DTS_PASS_BWD_DATA].bytes, 3 * e * 4 + 2 * 3 * e * 4, 1e-6);
  ck_assert_double_eq_tol (b.pass[DTS_PASS_BWD_DATA].time_s, own + 2 * add, 1e-12);
  ck_assert_double_eq_tol (b.pass[DTS_PASS_BWD_DATA].launch_s, 3 * launch, 1e-15);
  ck_assert_int_eq (b.pass[DTS_PASS_BWD_DATA].bound, DTS_BOUND_MEMORY);
  ck_assert_double_eq (b.pass[DTS_PASS_BWD_WEIGHT].time_s, 0.0);
  ck_assert_int_eq (b.pass[DTS_PASS_BWD_WEIGHT].bound, DTS_BOUND_NONE);

  /* fp16 moves half the bytes and has four times the peak: the ridge moves */
  ck_assert (dts_cost_layer_bounds (cost, &relu, &gpu, DTS_PREC_FP16, 64, &b, &error));
  ck_assert_double_eq_tol (b.pass[DTS_PASS_FWD].bytes, 2 * e * 2, 1e-6);

  /* a fused layer runs no kernel of its own: no work, no bound */
  relu.n_consumers = 1;
  dts_cost_set_framework (cost, dts_test_profile ("fuse = relu\n"));
  ck_assert (dts_cost_layer_bounds (cost, &relu, &gpu, DTS_PREC_FP32, 64, &b, &error));
  ck_assert_double_eq (b.pass[DTS_PASS_FWD].flops, 0.0);
  ck_assert_double_eq (b.pass[DTS_PASS_FWD].time_s, 0.0);
  ck_assert_int_eq (b.pass[DTS_PASS_FWD].bound, DTS_BOUND_NONE);

  /* where the auto-tuner picks Winograd, the terms still add up to the time */
  conv.kernel_h = conv.kernel_w = 3;
  conv.stride_h = conv.stride_w = 1;
  conv.pad_h = conv.pad_w = 1;
  dts_cost_set_framework (cost, dts_test_profile ("winograd-convolution = yes\n"));
  ck_assert (dts_cost_layer_bounds (cost, &conv, &gpu, DTS_PREC_FP32, 32, &b, &error));
  ck_assert_str_eq (b.times.source, "roofline:winograd-fd");
  for (int p = 0; p < DTS_PASS_COUNT; p++)
    ck_assert_double_eq_tol (b.pass[p].time_s,
                             b.pass[p].compute_bound_s + b.pass[p].memory_bound_s
                                 + b.pass[p].launch_s,
                             1e-15);
  ck_assert (b.pass[DTS_PASS_FWD].flops < flops);

  ck_assert_str_eq (dts_cost_pass_id (DTS_PASS_BWD_WEIGHT), "bwd-weight");
  ck_assert_str_eq (dts_cost_bound_id (DTS_BOUND_MEMORY), "memory");
  ck_assert_str_eq (dts_cost_bound_id (DTS_BOUND_NONE), "-");
}
END_TEST

/* The table `dtsim info --bounds --format csv` prints, read back and
 * checked against the roofline written out again for a 4096 -> 4096 fc
 * layer (compute-bound at batch 256) and the ReLU after it
 * (memory-bound); the shares are each pass's time over their sum. */
START_TEST (test_bounds_table)
{
  g_autofree char *path = dts_test_write_tmp (
      "<model name=\"fc-relu\" input=\"4096\">\n"
      "  <training batch-size=\"256\" precision=\"fp32\"/>\n"
      "  <layer name=\"fc1\" type=\"fc\" out=\"4096\"/>\n"
      "  <layer name=\"relu1\" type=\"relu\"/>\n"
      "</model>\n",
      ".xml");
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsWorkload) w = dts_workload_load (path, &error);
  ck_assert_ptr_nonnull (w);
  DtsGpuSpec gpu = test_gpu ();
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  g_autoptr (GString) out = g_string_new (NULL);
  ck_assert (dts_cli_format_bounds (w, cost, &gpu, "catalogue", DTS_PREC_FP32, 256,
                                    DTS_FORMAT_CSV, out, &error));
  g_autoptr (GPtrArray) table = dts_csv_parse (out->str, &error);
  ck_assert_ptr_nonnull (table);
  g_ptr_array_set_free_func (table, (GDestroyNotify) g_strfreev);

  const double pc = 10e12 * 0.70, bw = 1e12 * 0.80, launch = 5e-6, n = 256;
  const DtsLayer *fc = dts_workload_layer (w, 1);
  double params = fc->params;
  ck_assert_double_eq (params, 4096.0 * 4096 + 4096); /* weights and biases */
  double act = 4096 * n * 4; /* one activation tensor at fp32 */
  double fc_flops = fc->fwd_flops * n, fc_bytes = act + params * 4 + act;
  double relu_e = 4096 * n;
  struct {
    const char *layer, *pass, *bound;
    double flops, bytes;
  } expect[] = {
    { "fc1", "fwd", "compute", fc_flops, fc_bytes },
    { "fc1", "bwd-weight", "compute", fc->bwd_weight_flops * n, fc_bytes },
    { "fc1", "update", "memory", 2 * params, 20 * params },
    { "relu1", "fwd", "memory", relu_e, 2 * relu_e * 4 },
    { "relu1", "bwd-data", "memory", relu_e, 3 * relu_e * 4 },
  };
  ck_assert (fc->fwd_flops >= 2.0 * 4096 * 4096);
  ck_assert_uint_eq (table->len, 1 + G_N_ELEMENTS (expect));
  char **head = g_ptr_array_index (table, 0);
  static const char *const columns[] = { "index", "layer", "type", "pass", "time_s", "flops",
                                         "bytes", "intensity_flop_per_byte", "bound", "share",
                                         NULL };
  for (int c = 0; columns[c]; c++)
    ck_assert_str_eq (head[c], columns[c]);
  double times[G_N_ELEMENTS (expect)], total = 0;
  for (guint r = 0; r < G_N_ELEMENTS (expect); r++) {
    times[r] = fmax (expect[r].flops / pc, expect[r].bytes / bw) + launch;
    total += times[r];
  }
  double shares = 0;
  for (guint r = 0; r < G_N_ELEMENTS (expect); r++) {
    char **row = g_ptr_array_index (table, r + 1);
    ck_assert_str_eq (row[1], expect[r].layer);
    ck_assert_str_eq (row[3], expect[r].pass);
    ck_assert_double_eq_tol (g_ascii_strtod (row[4], NULL), times[r], 1e-12);
    ck_assert_double_eq_tol (g_ascii_strtod (row[5], NULL), expect[r].flops, 1e-3);
    ck_assert_double_eq_tol (g_ascii_strtod (row[6], NULL), expect[r].bytes, 1e-3);
    ck_assert_double_eq_tol (g_ascii_strtod (row[7], NULL), expect[r].flops / expect[r].bytes,
                             1e-9);
    ck_assert_str_eq (row[8], expect[r].bound);
    /* the bound is the side of the ridge point the intensity is on */
    ck_assert ((expect[r].flops / expect[r].bytes > 8.75) == (strcmp (row[8], "compute") == 0));
    ck_assert_double_eq_tol (g_ascii_strtod (row[9], NULL), times[r] / total, 1e-12);
    shares += g_ascii_strtod (row[9], NULL);
  }
  ck_assert_double_eq_tol (shares, 1.0, 1e-12);

  /* the text table says the same, and its totals split by bound */
  g_string_truncate (out, 0);
  ck_assert (dts_cli_format_bounds (w, cost, &gpu, "catalogue", DTS_PREC_FP32, 256,
                                    DTS_FORMAT_TEXT, out, &error));
  ck_assert_ptr_nonnull (strstr (out->str, "ridge point 8.75 FLOP/B"));
  g_autofree char *compute_ms = g_strdup_printf ("compute-bound   %10.3f ms  %5.1f %%",
                                                 (times[0] + times[1]) * 1e3,
                                                 100 * (times[0] + times[1]) / total);
  ck_assert_msg (strstr (out->str, compute_ms) != NULL, "no '%s' in:\n%s", compute_ms, out->str);
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
  tcase_add_test (tc, test_tensor_formats_catalogue);
  tcase_add_test (tc, test_stand_in_assumption);
  tcase_add_test (tc, test_wave_efficiency);
  tcase_add_test (tc, test_framework_parse);
  tcase_add_test (tc, test_framework_times);
  tcase_add_test (tc, test_framework_sync_slowdown);
  tcase_add_test (tc, test_framework_1x1);
  tcase_add_test (tc, test_framework_winograd_arch);
  tcase_add_test (tc, test_fft_convolution);
  tcase_add_test (tc, test_winograd_convolution);
  tcase_add_test (tc, test_gradient_sum_and_concat);
  tcase_add_test (tc, test_layer_bounds);
  tcase_add_test (tc, test_bounds_table);
  suite_add_tcase (s, tc);
  return dts_test_run (s);
}
