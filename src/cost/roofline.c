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
 * Bytes per phase assume each tensor is read or written once (no cache
 * reuse across kernels): for a conv/fc layer forward reads input and weights
 * and writes output; backward-data reads output-gradient and weights, writes
 * input-gradient; backward-weights reads input and output-gradient, writes
 * weight-gradient. Element-wise layers (relu, batch norm, pooling, add,
 * concat, dropout, LRN, softmax) read their inputs and write their output
 * forward, and read output-gradient (plus the saved input) and write
 * input-gradient backward. Batch norm makes two passes (statistics, then
 * normalise). Activations use the precision's element size; weights and
 * gradients are fp32 master copies under mixed precision.
 *
 * Optimizer update (per layer with parameters): momentum SGD reads weight,
 * gradient and momentum and writes weight and momentum: 5 x 4 bytes per
 * parameter, 2 FLOPs per parameter, one fused kernel. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "cost/cost-private.h"
#include "cost/roofline.h"

static void
set_work (DtsKernelWork *w, double flops, double bytes, int kernels)
{
  w->flops = flops;
  w->bytes = bytes;
  w->kernels = (flops > 0 || bytes > 0) ? kernels : 0;
}

/* The FFT length cuFFT runs fast for N points: the smallest 2^a 3^b 5^c 7^d
 * that is at least N. */
static double
fft_length (int n)
{
  for (int m = MAX (n, 1);; m++) {
    int r = m;
    for (int f = 2; f <= 7; f++)
      while (r % f == 0)
        r /= f;
    if (r == 1)
      return m;
  }
}

/* One FFT algorithm for a pass of a convolution: PLANES real planes of
 * FH x FW points transformed (the pass's two operands forward, its result
 * back), each to FH x (FW/2 + 1) complex fp32 values, and MACS_PER_FREQ
 * complex multiply-adds (8 FLOPs each) per frequency in the batched GEMM
 * (N*C*K, times the tiles).  REAL_BYTES: the pass's tensors, read or
 * written once. */
static void
add_alt (DtsKernelWork *w, DtsConvAlgorithm algorithm, double xform_flops, double xform_bytes,
         double gemm_flops, double gemm_bytes, int kernels)
{
  g_assert (w->n_alt < (int) G_N_ELEMENTS (w->alt));
  int i = w->n_alt++;
  w->alt[i].algorithm = algorithm;
  w->alt[i].xform_flops = xform_flops;
  w->alt[i].xform_bytes = xform_bytes;
  w->alt[i].gemm_flops = gemm_flops;
  w->alt[i].gemm_bytes = gemm_bytes;
  w->alt[i].kernels = kernels;
}

static void
add_fft (DtsKernelWork *w, DtsConvAlgorithm algorithm, double planes, double fh, double fw,
         double macs_per_freq, double real_bytes)
{
  double freqs = fh * (floor (fw / 2.0) + 1.0);
  double spectra = planes * freqs * 8.0;
  /* 2.5 n log2 n FLOPs per real transform of n points (half a complex one);
   * each spectrum is written by its transform (or the GEMM), transposed to
   * and from frequency-major order, and read once; five kernels: two
   * transforms, transposes, the GEMM, the inverse */
  add_alt (w, algorithm, planes * 2.5 * fh * fw * log2 (fh * fw), real_bytes + 3.0 * spectra,
           8.0 * macs_per_freq * freqs, spectra, 5);
}

/* Winograd F(M x M, 3x3) for a pass whose output is OUT_H x OUT_W x K per
 * sample from C channels (Lavin and Gray, CVPR 2016): T = N ceil(OUT_H/M)
 * ceil(OUT_W/M) tiles, A = M + 2 points a side, A^2 GEMMs of (T x C) by
 * (C x K), 2 A^2 T C K FLOPs (against the direct 18 M^2 T C K).  Fused
 * (cuDNN's WINOGRAD, M = 2): one kernel, the transforms in registers, the
 * pass's tensors read and written once.  Non-fused (WINOGRAD_NONFUSED,
 * M = 4): the transformed input (A^2 T C), filter (A^2 C K, fp32) and
 * output (A^2 T K) written and read once more, in four kernels. */
static void
add_winograd (DtsKernelWork *w, int m, double n, double c, double k, int out_h, int out_w,
              double eb, double real_bytes)
{
  double a2 = (m + 2.0) * (m + 2.0);
  double tiles = n * ceil ((double) out_h / m) * ceil ((double) out_w / m);
  double gemm = 2.0 * a2 * tiles * c * k;
  if (m == 2) {
    add_alt (w, DTS_CONV_WINOGRAD, 0.0, 0.0, gemm, real_bytes, 1);
    return;
  }
  double mid = a2 * tiles * (c + k) * eb + a2 * c * k * 4.0;
  add_alt (w, DTS_CONV_WINOGRAD_NONFUSED, 0.0, real_bytes + mid, gemm, mid, 4);
}

/* cuDNN's FFT convolutions of a stride-1, ungrouped convolution (R3-R7):
 * every pass as a whole-image FFT when the padded input is at most 256
 * points a side and the filter larger than the padding; the forward also as
 * FFT_TILING, 32x32 tiles overlapping by the filter size less one. */
static void
alt_work (const DtsLayer *l, int batch, double eb, double in_b, double out_b, double w_b,
          DtsLayerWork *out)
{
  if (l->groups > 1 || l->stride_h != 1 || l->stride_w != 1)
    return;
  if (l->kernel_h == 3 && l->kernel_w == 3) {
    for (int m = 2; m <= 4; m += 2) {
      add_winograd (&out->fwd, m, batch, l->in_shape.c, l->out_shape.c, l->out_shape.h,
                    l->out_shape.w, eb, in_b + out_b + w_b);
      if (out->bwd_data.kernels > 0) /* the output gradient convolved back to the input */
        add_winograd (&out->bwd_data, m, batch, l->out_shape.c, l->in_shape.c, l->in_shape.h,
                      l->in_shape.w, eb, in_b + out_b + w_b);
    }
  }
  double n = batch, c = l->in_shape.c, k = l->out_shape.c;
  double planes = n * c + k * c + n * k;
  double macs = n * c * k;
  double bytes = in_b + out_b + w_b;
  int ph = l->in_shape.h + 2 * l->pad_h, pw = l->in_shape.w + 2 * l->pad_w;
  if (ph <= 256 && pw <= 256 && l->kernel_h > l->pad_h && l->kernel_w > l->pad_w) {
    double fh = fft_length (ph), fw = fft_length (pw);
    add_fft (&out->fwd, DTS_CONV_FFT, planes, fh, fw, macs, bytes);
    if (out->bwd_data.kernels > 0)
      add_fft (&out->bwd_data, DTS_CONV_FFT, planes, fh, fw, macs, bytes);
    add_fft (&out->bwd_weight, DTS_CONV_FFT, planes, fh, fw, macs, bytes);
  }
  int th = 32 - l->kernel_h + 1, tw = 32 - l->kernel_w + 1;
  if (th > 0 && tw > 0) {
    double tiles = ceil ((double) l->out_shape.h / th) * ceil ((double) l->out_shape.w / tw);
    double tplanes = (n * c + n * k) * tiles + k * c;
    add_fft (&out->fwd, DTS_CONV_FFT_TILING, tplanes, 32, 32, macs * tiles, bytes);
  }
}

void
dts_roofline_layer_work (const DtsLayer *layer, DtsPrecision precision, int batch,
                         DtsLayerWork *out)
{
  const double eb = dts_precision_elem_bytes (precision);
  const double n = batch;
  const double in_b = layer->in_elems * n * eb;
  const double out_b = layer->out_elems * n * eb;
  const double w_b = layer->params * 4.0;

  *out = (DtsLayerWork){ 0 };
  switch (layer->type) {
  case DTS_LAYER_INPUT:
    return;
  case DTS_LAYER_CONV:
  case DTS_LAYER_FC:
    set_work (&out->fwd, layer->fwd_flops * n, in_b + w_b + out_b, 1);
    if (layer->bwd_data_flops > 0) /* no data gradient for the model input */
      set_work (&out->bwd_data, layer->bwd_data_flops * n, out_b + w_b + in_b, 1);
    set_work (&out->bwd_weight, layer->bwd_weight_flops * n, in_b + out_b + w_b, 1);
    /* The output matrices the thread blocks tile: forward (N*OH*OW) x K,
     * backward-data (N*H*W) x C; for fc, batch x outputs and batch x inputs,
     * and the weight gradient outputs x inputs.  A convolution's weight
     * gradient (K x C*R*S) is left untiled: cuDNN splits its reduction over
     * N*OH*OW across blocks.  Grouped convolutions are not GEMM-shaped. */
    if (layer->type == DTS_LAYER_FC) {
      out->fwd.gemm_rows = n, out->fwd.gemm_cols = layer->out_shape.c;
      out->bwd_data.gemm_rows = n, out->bwd_data.gemm_cols = layer->in_elems;
      out->bwd_weight.gemm_rows = layer->out_shape.c, out->bwd_weight.gemm_cols = layer->in_elems;
    } else if (layer->groups <= 1) {
      gboolean w3 = layer->kernel_h == 3 && layer->kernel_w == 3 && layer->stride_h == 1
                    && layer->stride_w == 1;
      out->fwd.winograd_3x3 = w3;
      out->bwd_data.winograd_3x3 = w3 && out->bwd_data.kernels > 0;
      if (layer->type == DTS_LAYER_CONV && layer->kernel_h == 1 && layer->kernel_w == 1)
        out->fwd.conv_1x1 = out->bwd_data.conv_1x1 = 1, out->bwd_weight.conv_1x1 = 2;
      out->fwd.gemm_rows = n * layer->out_shape.h * layer->out_shape.w;
      out->fwd.gemm_cols = layer->out_shape.c;
      out->bwd_data.gemm_rows = n * layer->in_shape.h * layer->in_shape.w;
      out->bwd_data.gemm_cols = layer->in_shape.c;
      if (layer->type == DTS_LAYER_CONV)
        alt_work (layer, batch, eb, in_b, out_b, w_b, out);
    }
    break;
  case DTS_LAYER_LINEAR: {
    /* one GEMM per pass over every token: (batch x seq) x out forward,
     * (batch x seq) x in for the data gradient, out x in for the weights */
    double tok = n * layer->in_shape.seq;
    set_work (&out->fwd, layer->fwd_flops * n, in_b + w_b + out_b, 1);
    if (layer->bwd_data_flops > 0)
      set_work (&out->bwd_data, layer->bwd_data_flops * n, out_b + w_b + in_b, 1);
    set_work (&out->bwd_weight, layer->bwd_weight_flops * n, in_b + out_b + w_b, 1);
    out->fwd.gemm_rows = tok, out->fwd.gemm_cols = layer->out_shape.c;
    out->bwd_data.gemm_rows = tok, out->bwd_data.gemm_cols = layer->in_shape.c;
    out->bwd_weight.gemm_rows = layer->out_shape.c, out->bwd_weight.gemm_cols = layer->in_shape.c;
    break;
  }
  case DTS_LAYER_ATTENTION: {
    /* fused (FlashAttention): one kernel forward reading Q, K, V and writing
     * the output; backward reads them, the output and its gradient and
     * writes dQ, dK, dV. Unfused: the heads x seq^2 scores are written and
     * read again by the softmax, the probabilities written and read by the
     * second GEMM (three kernels), and backward moves them half as much
     * again (four kernels). */
    double scores = layer->fused ? 0.0
                                 : n * layer->heads * (double) layer->in_shape.seq
                                       * layer->in_shape.seq * eb;
    set_work (&out->fwd, layer->fwd_flops * n, in_b + out_b + 4.0 * scores,
              layer->fused ? 1 : 3);
    if (layer->bwd_data_flops > 0)
      set_work (&out->bwd_data, layer->bwd_data_flops * n, 2.0 * (in_b + out_b) + 6.0 * scores,
                layer->fused ? 1 : 4);
    break;
  }
  case DTS_LAYER_EMBEDDING:
    /* a gather of one table row per token forward; backward a scatter-add
     * of the output gradient into the table's gradient (read, add, write) */
    set_work (&out->fwd, layer->fwd_flops * n, in_b + 2.0 * out_b, 1);
    set_work (&out->bwd_weight, layer->bwd_weight_flops * n, 3.0 * out_b, 1);
    break;
  case DTS_LAYER_FLATTEN:
    return; /* a view: no kernel, no bytes */
  case DTS_LAYER_CONCAT:
    /* forward copies each input into its channel range; backward hands each
     * input its channel slice of the output gradient, which the next
     * kernels need contiguous (cuDNN): one copy per input, reading the
     * output gradient once and writing the inputs' gradients. */
    set_work (&out->fwd, 0.0, in_b + out_b, 1);
    if (layer->data_grad)
      set_work (&out->bwd_data, 0.0, out_b + in_b, layer->n_inputs);
    return;
  case DTS_LAYER_BATCHNORM:
    /* two passes forward (statistics, normalise); one fused backward kernel
     * (cudnnBatchNormalizationBackward) computes data and weight gradients
     * together: it is priced under bwd_data and bwd_weight stays 0. */
    set_work (&out->fwd, layer->fwd_flops * n, 2.0 * in_b + out_b, 2);
    if (layer->bwd_data_flops > 0)
      set_work (&out->bwd_data, layer->bwd_data_flops * n, 2.0 * (in_b + out_b) + in_b, 2);
    break;
  default:
    /* element-wise, pooling, concat, loss: memory-bound; backward reads the
     * output gradient and the saved input, writes the input gradient. */
    set_work (&out->fwd, layer->fwd_flops * n, in_b + out_b, 1);
    if (layer->bwd_data_flops > 0)
      set_work (&out->bwd_data, layer->bwd_data_flops * n, out_b + 2.0 * in_b, 1);
    break;
  }
  if (layer->params > 0)
    set_work (&out->update, 2.0 * layer->params, 5.0 * 4.0 * layer->params, 1);
}

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
 * direct kernel, else a DtsConvAlgorithm (*ALGORITHM). */
static double
kernel_time (const DtsKernelWork *work, const DtsGpuSpec *gpu, DtsPrecision precision,
             const DtsFramework *fw, int *algorithm)
{
  *algorithm = -1;
  if (work->kernels == 0)
    return 0.0;
  double peak = dts_gpu_spec_die_flops (gpu, precision);
  double eff = dts_framework_compute_eff (fw, gpu->chip, gpu->arch, precision);
  if (work->conv_1x1 == 1 && fw->eff_1x1 > 0)
    eff = fw->eff_1x1;
  else if (work->conv_1x1 == 2 && fw->eff_1x1_wgrad > 0)
    eff = fw->eff_1x1_wgrad;
  double p = peak * eff;
  double tc = work->flops / p;
  if (work->winograd_3x3 && fw->winograd_3x3 > 1)
    tc /= fw->winograd_3x3;
  if (fw->waves)
    tc /= dts_roofline_wave_efficiency (work->gemm_rows, work->gemm_cols, fw->tile,
                                        gpu->sm_count);
  double bw = gpu->mem_bw_Bps * dts_framework_memory_eff (fw, gpu->chip, gpu->arch);
  double t = fmax (tc, work->bytes / bw) + work->kernels * fw->launch_s;
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
    double ta = fmax (work->alt[i].xform_flops / pa, work->alt[i].xform_bytes / bw)
                + fmax (work->alt[i].gemm_flops / pa, work->alt[i].gemm_bytes / bw)
                + work->alt[i].kernels * fw->launch_s;
    if (ta < t)
      t = ta, *algorithm = a;
  }
  return t;
}

double
dts_roofline_kernel_time_fw (const DtsKernelWork *work, const DtsGpuSpec *gpu,
                             DtsPrecision precision, const DtsFramework *fw)
{
  int algorithm;
  return kernel_time (work, gpu, precision, fw, &algorithm);
}

double
dts_roofline_grad_sum_time (const DtsLayer *layer, const DtsGpuSpec *gpu, DtsPrecision precision,
                            int batch, const DtsFramework *fw)
{
  int adds = layer->n_consumers - 1;
  if (adds <= 0 || batch <= 0)
    return 0.0;
  double elems = layer->out_elems * batch;
  DtsKernelWork w = { 0 };
  set_work (&w, adds * elems, adds * 3.0 * elems * dts_precision_elem_bytes (precision), adds);
  return dts_roofline_kernel_time_fw (&w, gpu, precision, fw ? fw : dts_framework_generic ());
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
  DtsLayerWork w;
  dts_roofline_layer_work (layer, precision, batch, &w);
  if (fw == NULL)
    fw = dts_framework_generic ();
  int alg[3];
  out->fwd_s = kernel_time (&w.fwd, gpu, precision, fw, &alg[0]);
  out->bwd_data_s = kernel_time (&w.bwd_data, gpu, precision, fw, &alg[1]);
  out->bwd_weight_s = kernel_time (&w.bwd_weight, gpu, precision, fw, &alg[2]);
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
