/* test-gemm.c - the GEMM model (cost/gemm.c) against bench/fit-gemm.py's
 * numbers and a case worked by hand, the wave efficiency's range and
 * monotonicity, the roofline-gemm cost model on a transformer, and fp8
 * (FP8 GEMMs of linear layers, bf16 elsewhere) under both roofline models. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "cost/cost.h"
#include "cost/gemm.h"
#include "cost/roofline.h"
#include "platform/gpu.h"
#include "testlib.h"
#include "workload/work.h"
#include "workload/workload.h"

/* `bench/fit-gemm.py --rows`: one GEMM of a FIT model per GPU and operator
 * (InternLM-20B, fp16), the script's prediction with the constants gemm.c
 * compiles in. */
START_TEST (test_gemm_script_rows)
{
  static const struct {
    const char *gpu;
    double m, n, k, model_s;
  } rows[] = {
    { "A100-SXM4-80GB", 4096, 15360, 5120, 0.00266185029 },
    { "A100-SXM4-80GB", 200, 5120, 5120, 7.73926469e-05 },
    { "A100-SXM4-80GB", 64, 27648, 5120, 0.000196152451 },
    { "A100-SXM4-80GB", 1, 5120, 13824, 9.84712739e-05 },
    { "A40", 4096, 15360, 5120, 0.00598618775 },
    { "A40", 200, 5120, 5120, 0.000133608321 },
    { "A40", 64, 27648, 5120, 0.000567795767 },
    { "A40", 1, 5120, 13824, 0.000281629216 },
    { "H100-SXM5-80GB", 4096, 15360, 5120, 0.000856596518 },
    { "H100-SXM5-80GB", 200, 5120, 5120, 3.40187506e-05 },
    { "H100-SXM5-80GB", 64, 27648, 5120, 0.000104746001 },
    { "H100-SXM5-80GB", 1, 5120, 13824, 5.44897685e-05 },
  };
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++) {
    const DtsGpuSpec *gpu = dts_gpu_catalog_lookup (cat, rows[i].gpu);
    ck_assert_ptr_nonnull (gpu);
    assert_rel (dts_gemm_time (rows[i].m, rows[i].n, rows[i].k, gpu, DTS_PREC_FP16),
                rows[i].model_s, 1e-8);
  }
}
END_TEST

/* 4096^3 on the A100 SXM4 80 GB, by hand: 32 x 32 = 1024 tiles of 128 x
 * 128 on 108 SMs, 10 waves, q = 1024 / 1080; compute-bound. */
START_TEST (test_gemm_by_hand)
{
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *a100 = dts_gpu_catalog_lookup (cat, "A100-SXM4-80GB");
  ck_assert_ptr_nonnull (a100);
  double q = 1024.0 / 1080.0;
  ck_assert_double_eq_tol (dts_gemm_wave_efficiency (4096, 4096, 4096, 108), q, 1e-15);
  double n = 4096;
  double tc = 2 * n * n * n / (271.2e12 * 0.9048 * q);
  double tm = 3 * n * n * 2 / (2039e9 * 0.7316);
  ck_assert (tc > tm);
  assert_rel (dts_gemm_time (n, n, n, a100, DTS_PREC_FP16), tc + 3.551e-6, 1e-12);
  /* one token: memory-bound, the weights dominate */
  double tm1 = (4096.0 + 4096.0 * 4096 + 4096) * 2 / (2039e9 * 0.7316);
  assert_rel (dts_gemm_time (1, n, n, a100, DTS_PREC_FP16), tm1 + 3.551e-6, 1e-12);
  /* 96 x 1536 x 4096: 1 x 12 tiles of 128 x 128 (96 rows take a 128 tile)
   * fill 12 of 108 SMs; split-K in 9 slices (108 / 12; 4096 / 256 = 16
   * allowed) makes 108 tiles, one wave: q = 96 x 1536 x 9 / (108 x 128^2) */
  ck_assert_double_eq_tol (dts_gemm_wave_efficiency (96, 1536, 4096, 108),
                           96.0 * 1536 * 9 / (108.0 * 128 * 128), 1e-15);
  /* a shallow K limits the split: 512 / 256 = 2 slices */
  ck_assert_double_eq_tol (dts_gemm_wave_efficiency (96, 1536, 512, 108),
                           96.0 * 1536 * 2 / (108.0 * 128 * 128), 1e-15);
  /* sizes that are not positive: no time */
  ck_assert_double_eq (dts_gemm_time (0, n, n, a100, DTS_PREC_FP16), 0.0);
  ck_assert_double_eq (dts_gemm_wave_efficiency (-1, 8, 8, 108), 1.0);
}
END_TEST

START_TEST (test_gemm_ceilings)
{
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *a100 = dts_gpu_catalog_lookup (cat, "A100-SXM4-80GB");
  const DtsGpuSpec *h100 = dts_gpu_catalog_lookup (cat, "H100-SXM5-80GB");
  const DtsGpuSpec *h200 = dts_gpu_catalog_lookup (cat, "H200-SXM-141GB");
  const DtsGpuSpec *pcie = dts_gpu_catalog_lookup (cat, "A100-PCIE-40GB");
  const DtsGpuSpec *a40 = dts_gpu_catalog_lookup (cat, "A40");
  const DtsGpuSpec *v100 = dts_gpu_catalog_lookup (cat, "V100-SXM2-16GB");
  ck_assert (a100 && h100 && h200 && pcie && a40 && v100);
  /* MAMF's BF16 rates, at fp16 and bf16 alike */
  assert_rel (dts_gemm_ceiling_flops (a100, DTS_PREC_FP16), 271.2e12, 1e-12);
  assert_rel (dts_gemm_ceiling_flops (a100, DTS_PREC_BF16), 271.2e12, 1e-12);
  assert_rel (dts_gemm_ceiling_flops (pcie, DTS_PREC_FP16), 252.9e12, 1e-12);
  assert_rel (dts_gemm_ceiling_flops (h100, DTS_PREC_FP16), 794.5e12, 1e-12);
  assert_rel (dts_gemm_ceiling_flops (h200, DTS_PREC_BF16), 794.5e12, 1e-12);
  /* another precision: the same share of its peak */
  assert_rel (dts_gemm_ceiling_flops (a100, DTS_PREC_TF32), 156e12 * 271.2 / 312, 1e-12);
  /* not in the table: 0.80 of the die's peak */
  assert_rel (dts_gemm_ceiling_flops (a40, DTS_PREC_FP16), 0.80 * 149.7e12, 1e-12);
  assert_rel (dts_gemm_ceiling_flops (v100, DTS_PREC_FP16), 0.80 * 125e12, 1e-12);
  /* families: Ampere and Hopper fitted, the others take Ampere's */
  ck_assert_str_eq (dts_gemm_family (a40)->arch, "Ampere");
  ck_assert_str_eq (dts_gemm_family (h200)->arch, "Hopper");
  ck_assert_str_eq (dts_gemm_family (v100)->arch, "Ampere");
  ck_assert_double_eq (dts_gemm_family (h100)->share, 0.9827);
  ck_assert (dts_gemm_family_is_own (h100) && dts_gemm_family_is_own (a40));
  ck_assert (!dts_gemm_family_is_own (v100));
  ck_assert (dts_gemm_ceiling_is_measured (h200) && !dts_gemm_ceiling_is_measured (a40));
}
END_TEST

/* Blackwell, with no measured GEMMs: its ceilings are its measured MAMF
 * (ml_engineering_mamf.csv: B200 SXM 1745 of 2250, GB200 1822 of 2500),
 * its constants Hopper's, the nearest family (not Ampere's, the default
 * of older architectures), and the GEMM time follows from both. */
START_TEST (test_gemm_blackwell_stand_in)
{
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *b200 = dts_gpu_catalog_lookup (cat, "B200-SXM-180GB");
  const DtsGpuSpec *gb200 = dts_gpu_catalog_lookup (cat, "GB200-186GB");
  const DtsGpuSpec *h100 = dts_gpu_catalog_lookup (cat, "H100-SXM5-80GB");
  ck_assert (b200 != NULL && gb200 != NULL && h100 != NULL);
  ck_assert_str_eq (b200->arch, "Blackwell");
  assert_rel (dts_gemm_ceiling_flops (b200, DTS_PREC_BF16), 1745e12, 1e-12);
  assert_rel (dts_gemm_ceiling_flops (gb200, DTS_PREC_BF16), 1822e12, 1e-12);
  assert_rel (dts_gemm_ceiling_flops (b200, DTS_PREC_TF32), 1100e12 * 1745 / 2250, 1e-12);
  ck_assert (dts_gemm_ceiling_is_measured (b200) && dts_gemm_ceiling_is_measured (gb200));
  ck_assert (dts_gemm_family (b200) == dts_gemm_family (h100));
  ck_assert (dts_gemm_family (gb200) == dts_gemm_family (h100));
  ck_assert (!dts_gemm_family_is_own (b200));
  /* a large compute-bound GEMM (one full wave count on both): the time
   * ratio is the ratio of the ceilings, less the fixed time */
  double m = 16384, n = 16384, k = 16384;
  double th = dts_gemm_time (m, n, k, h100, DTS_PREC_BF16);
  double tb = dts_gemm_time (m, n, k, b200, DTS_PREC_BF16);
  double fixed = dts_gemm_family (h100)->fixed_s;
  double qh = dts_gemm_wave_efficiency (m, n, k, h100->sm_count);
  double qb = dts_gemm_wave_efficiency (m, n, k, b200->sm_count);
  assert_rel ((th - fixed) / (tb - fixed), 1745.0 / 794.5 * qb / qh, 1e-9);
}
END_TEST

/* q is a share of SM time, in (0, 1]; it is 1 where whole tiles fill
 * whole waves; and the time never falls as M or N grows at a fixed K (a
 * bigger output never runs faster), on every catalogue GPU. */
START_TEST (test_gemm_wave_range_and_monotone)
{
  static const int sms[] = { 13, 80, 84, 108, 132 };
  for (guint s = 0; s < G_N_ELEMENTS (sms); s++)
    for (double m = 1; m <= 20000; m = ceil (m * 1.37))
      for (double n = 1; n <= 20000; n = ceil (n * 1.41))
        for (double k = 16; k <= 40000; k *= 3) {
          double q = dts_gemm_wave_efficiency (m, n, k, sms[s]);
          ck_assert_msg (q > 0 && q <= 1, "q(%g, %g, %g, %d) = %g", m, n, k, sms[s], q);
        }
  ck_assert_double_eq (dts_gemm_wave_efficiency (128 * 108, 128, 4096, 108), 1.0);
  ck_assert_double_eq (dts_gemm_wave_efficiency (256, 256, 4096, 4), 1.0);
  /* more SMs than tiles, K too shallow to split: the idle SMs count */
  ck_assert_double_eq_tol (dts_gemm_wave_efficiency (128, 128, 128, 4), 0.25, 1e-15);

  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  for (guint g = 0; g < dts_gpu_catalog_size (cat); g++) {
    const DtsGpuSpec *gpu = dts_gpu_catalog_index (cat, g);
    for (double k = 64; k <= 65536; k *= 4) {
      for (double n = 16; n <= 65536; n *= 2) {
        double prev = 0;
        for (double m = 1; m <= 65536; m += ceil (m / 7)) {
          double t = dts_gemm_time (m, n, k, gpu, DTS_PREC_FP16);
          /* (equal times may differ in the last bits) */
          ck_assert_msg (t >= prev * (1 - 1e-12), "%s: t(%g, %g, %g) = %.17g < t at fewer rows %.17g",
                         gpu->id, m, n, k, t, prev);
          ck_assert_double_eq_tol (t, dts_gemm_time (n, m, k, gpu, DTS_PREC_FP16), 1e-18);
          prev = t;
        }
      }
    }
  }
}
END_TEST

/* roofline-gemm: a transformer's linear layers get the GEMM model's times
 * for their shapes, every other layer the roofline's. */
START_TEST (test_roofline_gemm_model)
{
  g_autofree char *path = dts_test_write_tmp (
      "<model name=\"t\"><transformer layers=\"1\" hidden=\"1024\" ffn=\"4096\" heads=\"16\" "
      "head-dim=\"64\" vocab=\"32000\" seq-len=\"512\"/></model>\n",
      ".xml");
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsWorkload) w = dts_workload_load (path, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *gpu = dts_gpu_catalog_lookup (cat, "A100-SXM4-80GB");
  g_autoptr (DtsCost) roof = dts_cost_new ("roofline", &error);
  g_autoptr (DtsCost) gemm = dts_cost_new ("roofline-gemm", &error);
  ck_assert (roof && gemm);
  int batch = 4, n_linear = 0;
  for (guint i = 0; i < w->layers->len; i++) {
    const DtsLayer *l = dts_workload_layer (w, i);
    DtsLayerTimes r, g;
    ck_assert (dts_cost_layer_times (roof, l, gpu, DTS_PREC_FP16, batch, &r, &error));
    ck_assert (dts_cost_layer_times (gemm, l, gpu, DTS_PREC_FP16, batch, &g, &error));
    ck_assert_double_eq (g.update_s, r.update_s);
    if (l->type != DTS_LAYER_LINEAR) {
      ck_assert_double_eq (g.fwd_s, r.fwd_s);
      ck_assert_double_eq (g.bwd_data_s, r.bwd_data_s);
      ck_assert_double_eq (g.bwd_weight_s, r.bwd_weight_s);
      ck_assert_str_eq (g.source, r.source);
      continue;
    }
    n_linear++;
    double tok = batch * 512.0, in = l->in_shape.c, out = l->out_shape.c;
    ck_assert_int_eq (l->in_shape.seq, 512);
    /* the shape is the one whose FLOPs the layer counts (no bias: exact) */
    ck_assert (l->fwd_flops * batch >= 2 * tok * in * out);
    ck_assert (l->fwd_flops * batch <= 2 * tok * in * out + tok * out);
    ck_assert_str_eq (g.source, "gemm");
    assert_rel (g.fwd_s, dts_gemm_time (tok, out, in, gpu, DTS_PREC_FP16), 1e-15);
    assert_rel (g.bwd_data_s, dts_gemm_time (tok, in, out, gpu, DTS_PREC_FP16), 1e-15);
    assert_rel (g.bwd_weight_s, dts_gemm_time (out, in, tok, gpu, DTS_PREC_FP16), 1e-15);
  }
  /* qkv, proj, fc1, fc2, lm-head */
  ck_assert_int_eq (n_linear, 5);

  /* a GPU without an SM count cannot be tiled */
  DtsGpuSpec bare = *gpu;
  bare.sm_count = 0;
  DtsLayerTimes t;
  const DtsLayer *lin = NULL;
  for (guint i = 0; i < w->layers->len && lin == NULL; i++)
    if (dts_workload_layer (w, i)->type == DTS_LAYER_LINEAR)
      lin = dts_workload_layer (w, i);
  ck_assert (!dts_cost_layer_times (gemm, lin, &bare, DTS_PREC_FP16, batch, &t, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "no SM count", "roofline-gemm", NULL);
}
END_TEST

/* fp8 on an H100 (FP8 1979 TFLOP/s dense, twice BF16's 989.5): the
 * compute-bound GEMMs of a large transformer's linear layers take half
 * their bf16 time over r, the FP8-to-BF16 ratio of measured matmul shares
 * (1402.6 / 1979 against 794.5 / 989.5 on the H100), less the per-kernel
 * fixed cost, under the roofline (bf16's 0.70 efficiency x r) and
 * roofline-gemm (the FP8 MAMF ceiling, fitted constants borrowed), plus
 * the casts of their operands to FP8; norms, the attention core, element-wise
 * layers, the loss and every optimizer update are the bf16 times exactly.
 * An A100 has no FP8: refused, naming the GPUs that have it. */
START_TEST (test_fp8)
{
  g_autofree char *path = dts_test_write_tmp (
      "<model name=\"t\"><transformer layers=\"1\" hidden=\"8192\" ffn=\"28672\" "
      "heads=\"64\" vocab=\"32000\" seq-len=\"4096\" mlp=\"swiglu\" norm=\"rmsnorm\" "
      "positions=\"rotary\" bias=\"false\"/></model>\n",
      ".xml");
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsWorkload) w = dts_workload_load (path, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  const DtsGpuSpec *h100 = dts_gpu_catalog_lookup (cat, "H100-SXM5-80GB");
  const DtsGpuSpec *a100 = dts_gpu_catalog_lookup (cat, "A100-SXM4-80GB");
  ck_assert_double_eq (h100->peak_flops[DTS_PREC_FP8], 2 * h100->peak_flops[DTS_PREC_BF16]);
  ck_assert_double_eq (a100->peak_flops[DTS_PREC_FP8], 0);
  const DtsFramework *fw = dts_framework_generic ();
  ck_assert_double_eq (dts_framework_compute_eff (fw, h100->chip, h100->arch, DTS_PREC_FP8),
                       dts_framework_compute_eff (fw, h100->chip, h100->arch, DTS_PREC_BF16));
  /* FP8 at its own measured ceiling (MAMF 1402.6 of 1979 TFLOP/s against
   * BF16's 794.5 of 989.5), and the ratio of the two shares */
  assert_rel (dts_gemm_ceiling_flops (h100, DTS_PREC_FP8), 1402.6e12, 1e-12);
  assert_rel (dts_gemm_ceiling_flops (h100, DTS_PREC_BF16), 794.5e12 * 989.5 / 989.5, 1e-12);
  const char *on = NULL;
  double r = dts_gemm_fp8_ratio (h100, &on);
  assert_rel (r, (1402.6 / 1979) / (794.5 / 989.5), 1e-12);
  ck_assert_str_eq (on, "H100-SXM5-80GB");
  /* not listed: its architecture's mean (H100 and H200), else its
   * stand-in's, else 1 */
  DtsGpuSpec other = *h100;
  other.id = (char *) "H100-PCIE-made-up";
  assert_rel (dts_gemm_fp8_ratio (&other, &on),
              ((1402.6 / 1979) / (794.5 / 989.5) + (1453.4 / 1979) / (794.5 / 989.5)) / 2, 1e-12);
  ck_assert_str_eq (on, "Hopper");
  DtsGpuSpec unlisted = other; /* a Hopper GPU without a catalogue id */
  unlisted.id = NULL;
  other.arch = (char *) "Rubin";
  ck_assert_double_eq (dts_gemm_fp8_ratio (&other, &on), 1.0);
  ck_assert_ptr_null (on);
  static const char *const models[] = { "roofline", "roofline-gemm" };
  int batch = 2;
  for (guint m = 0; m < G_N_ELEMENTS (models); m++) {
    g_autoptr (DtsCost) cost = dts_cost_new (models[m], &error);
    ck_assert (cost != NULL);
    gboolean gemm = m == 1;
    int n_linear = 0, n_other = 0;
    for (guint i = 0; i < w->layers->len; i++) {
      const DtsLayer *l = dts_workload_layer (w, i);
      DtsLayerTimes b, f;
      ck_assert (dts_cost_layer_times (cost, l, h100, DTS_PREC_BF16, batch, &b, &error));
      ck_assert (dts_cost_layer_times (cost, l, h100, DTS_PREC_FP8, batch, &f, &error));
      ck_assert_double_eq (f.update_s, b.update_s);
      /* everything but the blocks' linear layers, the lm-head included
       * (fp8="false"), as in bf16 */
      if (l->type != DTS_LAYER_LINEAR || !l->fp8) {
        ck_assert_double_eq (f.fwd_s, b.fwd_s);
        ck_assert_double_eq (f.bwd_data_s, b.bwd_data_s);
        ck_assert_double_eq (f.bwd_weight_s, b.bwd_weight_s);
        n_other += l->type == DTS_LAYER_ATTENTION || l->type == DTS_LAYER_RMSNORM
                   || strcmp (l->name, "lm-head") == 0;
        continue;
      }
      n_linear++;
      DtsLayerWork lw;
      dts_layer_work (l, DTS_PREC_FP8, batch, &lw);
      double gfix = dts_gemm_family (h100)->fixed_s;
      const double fixed[3] = { gemm ? gfix : lw.fwd.kernels * DTS_ROOFLINE_LAUNCH_S,
                                gemm ? gfix : lw.bwd_data.kernels * DTS_ROOFLINE_LAUNCH_S,
                                gemm ? gfix : lw.bwd_weight.kernels * DTS_ROOFLINE_LAUNCH_S };
      const double tb[3] = { b.fwd_s, b.bwd_data_s, b.bwd_weight_s };
      const double tf[3] = { f.fwd_s, f.bwd_data_s, f.bwd_weight_s };
      /* the casts: forward the input, backward the output gradient, read
       * in bf16 and written twice in FP8 (4 bytes per element), one
       * memory-bound kernel each at generic's 0.80 of the bandwidth */
      DtsKernelWork cf, cb;
      dts_roofline_fp8_cast_work (l, batch, FALSE, &cf);
      dts_roofline_fp8_cast_work (l, batch, TRUE, &cb);
      assert_rel (cf.bytes, l->in_elems * batch * 4.0, 1e-12);
      assert_rel (cb.bytes, l->out_elems * batch * 4.0, 1e-12);
      const double cast[3] = { cf.bytes / (h100->mem_bw_Bps * 0.80) + DTS_ROOFLINE_LAUNCH_S,
                               cb.bytes / (h100->mem_bw_Bps * 0.80) + DTS_ROOFLINE_LAUNCH_S, 0 };
      /* half the time at the share bf16 reaches, over the FP8-to-BF16
       * ratio of shares: the roofline's efficiency x r, roofline-gemm's
       * FP8 ceiling; plus the casts */
      for (int p = 0; p < 3; p++)
        assert_rel ((tf[p] - cast[p] - fixed[p]) / (tb[p] - fixed[p]), 0.5 / r, 1e-12);
    }
    /* qkv, proj, fc1, fc2; the attention core, two norms and the lm-head
     * at least */
    ck_assert_int_eq (n_linear, 4);
    ck_assert_int_ge (n_other, 4);
    g_autofree char *said = dts_cost_assumption (cost, h100, DTS_PREC_FP8);
    ck_assert_ptr_nonnull (said);
    ck_assert_ptr_nonnull (strstr (said, "the H100-SXM5-80GB's FP8-to-BF16 ratio of maximum"));
    g_autofree char *said_unlisted = dts_cost_assumption (cost, &unlisted, DTS_PREC_FP8);
    ck_assert_ptr_nonnull (strstr (said_unlisted, "the mean Hopper FP8-to-BF16 ratio"));
    ck_assert (dts_cost_assumption (cost, h100, DTS_PREC_BF16) == NULL);
    DtsLayerTimes t;
    ck_assert (!dts_cost_layer_times (cost, dts_workload_layer (w, 2), a100, DTS_PREC_FP8, batch,
                                      &t, &error));
    dts_test_assert_error (error, DTS_ERROR_INVALID, "precision fp8: A100-SXM4-80GB (Ampere)",
                           "H100-SXM5-80GB, H200-SXM-141GB, B200-SXM-180GB, GB200-186GB",
                           "--precision bf16", NULL);
    g_clear_error (&error);
  }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("gemm");
  TCase *tc = tcase_create ("gemm");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_gemm_script_rows);
  tcase_add_test (tc, test_gemm_by_hand);
  tcase_add_test (tc, test_gemm_ceilings);
  tcase_add_test (tc, test_gemm_blackwell_stand_in);
  tcase_add_test (tc, test_gemm_wave_range_and_monotone);
  tcase_add_test (tc, test_roofline_gemm_model);
  tcase_add_test (tc, test_fp8);
  suite_add_tcase (s, tc);
  return dts_test_run (s);
}
