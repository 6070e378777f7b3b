/* roofline.c - roofline kernel-time model.
 *
 * Model (Williams, Waterman, Patterson, CACM 2009, applied per kernel):
 *   t = max(F / (P * e_c), B / (W * e_m)) + k * t_launch
 * F: FLOPs of the kernel (2 x MACs), P: the GPU's peak FLOP/s at the precision
 * (tensor-core peak for fp16/bf16/tf32 where the GPU has one, else fp32;
 * on a GeForce card the die's tensor rate, twice the datasheet's
 * FP32-accumulate rate: dts_gpu_spec_die_flops, doc/COST-MODELS.md),
 * B: bytes moved to and from device memory, W: peak memory bandwidth,
 * k: kernel launches, t_launch: launch/scheduling overhead.
 *
 * Efficiencies (roofline.h): e_c = 0.70 — cuDNN/cuBLAS reach 60-80% of peak
 * on large training convolutions and GEMMs; e_m = 0.80 — streaming kernels
 * reach 75-85% of peak bandwidth (STREAM-like). t_launch = 5 us: a kernel
 * launch costs 3-7 us from the host. These are typical values, not fitted
 * to any data set: the roofline is an optimistic bound and its error on
 * measured kernels is reported by `dtsim cost eval` (doc/COST-MODELS.md).
 *
 * A fused attention kernel runs at the measured rate of the library the
 * profile names (attention-kernel; attention.c) where its architecture was
 * measured, else as a GEMM; a cross-entropy loss makes the passes of the
 * implementation it names (cross-entropy; loss.c).
 *
 * The work it prices, FLOPs, bytes and launches per pass and the GEMM shape
 * the thread blocks tile, is what the layer's row says its kernels do
 * (workload/layer-work.c); so is the optimizer update (momentum SGD: 5 x 4
 * bytes and 2 FLOPs per parameter, one fused kernel). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "cost/attention.h"
#include "cost/cost-private.h"
#include "cost/gemm.h"
#include "cost/loss.h"
#include "cost/roofline.h"

double
dts_roofline_wave_efficiency (double rows, double cols, int tile, int sms)
{
  if (!(rows > 0) || !(cols > 0) || sms <= 0 || tile <= 0)
    return 1.0;
  /* A library picks smaller blocks for a small dimension: the next power of
   * two, at least 16 (a tensor-core MMA edge), at most TILE.  Every block
   * costs a whole tile, so the time, waves x tile, never falls as a
   * dimension grows. */
  double tm = fmin (tile, fmax (16.0, exp2 (ceil (log2 (rows)))));
  double tn = fmin (tile, fmax (16.0, exp2 (ceil (log2 (cols)))));
  double blocks = ceil (rows / tm) * ceil (cols / tn);
  double waves = ceil (blocks / sms);
  return (rows * cols) / (waves * sms * tm * tn);
}

/* dts_roofline_kernel_time_fw, and the algorithm that won: -1 for the
 * direct kernel, else a DtsConvAlgorithm (*ALGORITHM).  Where its time went
 * is added to *TERMS when TERMS is not NULL. */
static double
kernel_time (const DtsKernelWork *work, const DtsGpuSpec *gpu, DtsPrecision precision,
             const DtsFramework *fw, int *algorithm, DtsRooflineTerms *terms)
{
  *algorithm = -1;
  if (work->kernels == 0)
    return 0.0;
  double peak = dts_gpu_spec_die_flops (gpu, precision);
  double eff = dts_framework_compute_eff (fw, gpu->chip, gpu->arch, precision);
  /* FP8 GEMMs at bf16's efficiency where the profile has none of its own,
   * times how much less of its peak an FP8 matmul reaches (gemm.c) */
  if (precision == DTS_PREC_FP8 && !dts_framework_has_eff (fw, gpu->chip, gpu->arch, precision))
    eff *= dts_gemm_fp8_ratio (gpu, NULL);
  if (work->conv_1x1 == 1 && fw->eff_1x1 > 0)
    eff = fw->eff_1x1;
  else if (work->conv_1x1 == 2 && fw->eff_1x1_wgrad > 0)
    eff = fw->eff_1x1_wgrad;
  /* A fused attention kernel of the profile's library, in 16 bits: its
   * measured share of the 16-bit peak (attention.c), where there is one */
  if (work->attn_seq > 0
      && (precision == DTS_PREC_FP16 || precision == DTS_PREC_BF16 || precision == DTS_PREC_FP8)) {
    double share = dts_attention_share (gpu, fw->attention, work->attn_head_dim, work->attn_seq,
                                        work->attn_backward);
    if (share > 0)
      peak = dts_gpu_spec_die_flops (gpu, DTS_PREC_BF16), eff = share;
  }
  double p = peak * eff;
  double tc = work->flops / p;
  if (work->winograd_3x3 && fw->winograd_3x3 > 1)
    tc /= fw->winograd_3x3;
  if (fw->waves)
    tc /= dts_roofline_wave_efficiency (work->gemm_rows, work->gemm_cols, fw->tile,
                                        gpu->sm_count);
  double bw = gpu->mem_bw_Bps * dts_framework_memory_eff (fw, gpu->chip, gpu->arch);
  double tm = work->bytes / bw;
  /* A host slower than the kernels (host-overhead): the GPU waits for
   * each launch; the wait is counted as launch time. */
  double t = fmax (tc, tm) + work->kernels * fw->launch_s;
  double wait = fmax (work->kernels * fw->host_s - t, 0.0);
  t += wait;
  DtsRooflineTerms won = { .flops = work->flops, .bytes = work->bytes,
                           .compute_bound_s = tc >= tm ? tc : 0.0,
                           .memory_bound_s = tc >= tm ? 0.0 : tm,
                           .launch_s = work->kernels * fw->launch_s + wait };
  /* The auto-tuner's choice: another algorithm where it is faster.  FFTs
   * transform and multiply in fp32 complex whatever the precision. */
  double p32 = dts_gpu_spec_flops (gpu, DTS_PREC_FP32, NULL)
               * dts_framework_compute_eff (fw, gpu->chip, gpu->arch, DTS_PREC_FP32);
  for (int i = 0; i < work->n_alt; i++) {
    DtsConvAlgorithm a = work->alt[i].algorithm;
    gboolean fft = a == DTS_CONV_FFT || a == DTS_CONV_FFT_TILING;
    double pa = fft ? p32 : p;
    if (!(fft ? fw->fft : fw->winograd) || !(pa > 0))
      continue;
    double xc = work->alt[i].xform_flops / pa, xm = work->alt[i].xform_bytes / bw;
    double gc = work->alt[i].gemm_flops / pa, gm = work->alt[i].gemm_bytes / bw;
    double ta = fmax (xc, xm) + fmax (gc, gm) + work->alt[i].kernels * fw->launch_s;
    double wa = fmax (work->alt[i].kernels * fw->host_s - ta, 0.0);
    ta += wa;
    if (ta < t) {
      t = ta, *algorithm = a;
      won = (DtsRooflineTerms){
        .flops = work->alt[i].xform_flops + work->alt[i].gemm_flops,
        .bytes = work->alt[i].xform_bytes + work->alt[i].gemm_bytes,
        .compute_bound_s = (xc >= xm ? xc : 0.0) + (gc >= gm ? gc : 0.0),
        .memory_bound_s = (xc >= xm ? 0.0 : xm) + (gc >= gm ? 0.0 : gm),
        .launch_s = work->alt[i].kernels * fw->launch_s + wa
      };
    }
  }
  if (terms != NULL) {
    terms->flops += won.flops;
    terms->bytes += won.bytes;
    terms->compute_bound_s += won.compute_bound_s;
    terms->memory_bound_s += won.memory_bound_s;
    terms->launch_s += won.launch_s;
  }
  return t;
}

double
dts_roofline_kernel_terms (const DtsKernelWork *work, const DtsGpuSpec *gpu,
                           DtsPrecision precision, const DtsFramework *fw,
                           DtsRooflineTerms *terms)
{
  int algorithm;
  return kernel_time (work, gpu, precision, fw ? fw : dts_framework_generic (), &algorithm,
                      terms);
}

double
dts_roofline_kernel_time_fw (const DtsKernelWork *work, const DtsGpuSpec *gpu,
                             DtsPrecision precision, const DtsFramework *fw)
{
  int algorithm;
  return kernel_time (work, gpu, precision, fw, &algorithm, NULL);
}

double
dts_roofline_grad_sum_time (const DtsLayer *layer, const DtsGpuSpec *gpu, DtsPrecision precision,
                            int batch, const DtsFramework *fw)
{
  DtsKernelWork w;
  dts_roofline_grad_sum_work (layer, precision, batch, &w);
  if (w.kernels == 0)
    return 0.0;
  return dts_roofline_kernel_time_fw (&w, gpu, precision, fw ? fw : dts_framework_generic ());
}

void
dts_roofline_grad_sum_work (const DtsLayer *layer, DtsPrecision precision, int batch,
                            DtsKernelWork *out)
{
  *out = (DtsKernelWork){ 0 };
  int adds = layer->n_consumers - 1;
  if (adds <= 0 || batch <= 0)
    return;
  double elems = layer->out_elems * batch;
  out->flops = adds * elems;
  out->bytes = adds * 3.0 * elems * dts_precision_elem_bytes (precision);
  out->kernels = adds;
}

void
dts_roofline_fp8_cast_work (const DtsLayer *layer, int batch, gboolean backward,
                            DtsKernelWork *out)
{
  *out = (DtsKernelWork){ 0 };
  if (layer->type != DTS_LAYER_LINEAR || batch <= 0)
    return;
  double elems = (backward ? layer->out_elems : layer->in_elems) * batch;
  out->flops = elems;
  out->bytes = elems * (dts_precision_elem_bytes (DTS_PREC_BF16) + 2.0);
  out->kernels = elems > 0 ? 1 : 0;
}

double
dts_roofline_kernel_time (const DtsKernelWork *work, const DtsGpuSpec *gpu,
                          DtsPrecision precision)
{
  return dts_roofline_kernel_time_fw (work, gpu, precision, dts_framework_generic ());
}

double
dts_roofline_ratio (const DtsKernelWork *work, const DtsGpuSpec *from, const DtsGpuSpec *to,
                    DtsPrecision precision)
{
  DtsKernelWork w = *work;
  if (w.kernels == 0)
    return 1.0;
  double t_from = dts_roofline_kernel_time (&w, from, precision) - w.kernels * DTS_ROOFLINE_LAUNCH_S;
  double t_to = dts_roofline_kernel_time (&w, to, precision) - w.kernels * DTS_ROOFLINE_LAUNCH_S;
  return t_from > 0 ? t_to / t_from : 1.0;
}

/* "roofline", or which passes (forward, data and weight gradient: f, d,
 * w) ran as FFT and Winograd convolutions: "roofline:fft-fdw",
 * "roofline:fft-w+winograd-fd" (interned). */
static const char *
algorithm_source (const int alg[3])
{
  static const char *const family[2] = { "fft", "winograd" };
  char text[64] = "roofline";
  for (int f = 0; f < 2; f++) {
    char passes[4] = "";
    for (int k = 0, n = 0; k < 3; k++)
      if (alg[k] >= 0 && (alg[k] >= DTS_CONV_WINOGRAD) == f)
        passes[n++] = "fdw"[k], passes[n] = '\0';
    if (passes[0] != '\0') {
      g_strlcat (text, strchr (text, ':') ? "+" : ":", sizeof text);
      g_strlcat (text, family[f], sizeof text);
      g_strlcat (text, "-", sizeof text);
      g_strlcat (text, passes, sizeof text);
    }
  }
  return g_intern_string (text);
}

void
dts_roofline_layer_work (const DtsLayer *layer, const DtsFramework *fw, DtsPrecision precision,
                         int batch, DtsLayerWork *out)
{
  dts_layer_work (layer, precision, batch, out);
  if (fw != NULL)
    dts_loss_work (layer, fw->loss, precision, batch, out);
}

static gboolean
roofline_layer_times (gpointer state, const DtsLayer *layer, const DtsGpuSpec *gpu,
                      DtsPrecision precision, int batch, const DtsFramework *fw,
                      DtsLayerTimes *out, GError **error)
{
  if (batch <= 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "batch size must be positive, got %d",
                 batch);
    return FALSE;
  }
  if (gpu->mem_bw_Bps <= 0 || dts_gpu_spec_flops (gpu, precision, NULL) <= 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "GPU '%s' has no positive peak FLOP/s or memory bandwidth", gpu->id);
    return FALSE;
  }
  if (fw == NULL)
    fw = dts_framework_generic ();
  DtsLayerWork w;
  dts_roofline_layer_work (layer, fw, precision, batch, &w);
  int alg[3];
  out->fwd_s = kernel_time (&w.fwd, gpu, precision, fw, &alg[0], NULL);
  out->bwd_data_s = kernel_time (&w.bwd_data, gpu, precision, fw, &alg[1], NULL);
  out->bwd_weight_s = kernel_time (&w.bwd_weight, gpu, precision, fw, &alg[2], NULL);
  out->update_s = dts_roofline_kernel_time_fw (&w.update, gpu, precision, fw);
  out->source = algorithm_source (alg);
  return TRUE;
}

const DtsCostModelClass dts_cost_roofline_class = {
  .id = "roofline",
  .description = "max(FLOPs/(peak*0.70), bytes/(bandwidth*0.80)) + 5us per kernel",
  .init = NULL,
  .free = NULL,
  .layer_times = roofline_layer_times,
};
