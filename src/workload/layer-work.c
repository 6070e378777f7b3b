/* layer-work.c - what the kernels of each layer type do: the work column of
 * the layer table (layers.c), priced by the cost models (cost/roofline.c).
 *
 * Bytes per phase assume each tensor is read or written once (no cache
 * reuse across kernels): for a GEMM-shaped layer (conv, fc, linear) forward
 * reads input and weights and writes output; backward-data reads
 * output-gradient and weights, writes input-gradient; backward-weights reads
 * input and output-gradient, writes weight-gradient. Element-wise layers
 * (relu, pooling, add, dropout, LRN, softmax, the norms and activations of
 * sequence models) read their inputs and write their output forward, and
 * read output-gradient (plus the saved input) and write input-gradient
 * backward: the row of such a type has no work function of its own. Batch
 * norm makes two passes (statistics, then normalise). Activations use the
 * precision's element size; weights and gradients are fp32 master copies
 * under mixed precision.
 *
 * Optimizer update (per layer with parameters): momentum SGD reads weight,
 * gradient and momentum and writes weight and momentum: 5 x 4 bytes per
 * parameter, 2 FLOPs per parameter, one fused kernel. */
#include "config.h"

#include <math.h>

#include "workload/work.h"
#include "workload/workload-private.h"

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

/* --- the rows' work functions ------------------------------------------------ */

void
dts_layer_work_none (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out)
{
  (void) l, (void) a, (void) out;
}

/* Forward, data gradient (none for a layer fed by the model input alone)
 * and weight gradient of a GEMM-shaped layer, one kernel each. */
static void
gemm_passes (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out)
{
  set_work (&out->fwd, l->fwd_flops * a->n, a->in_b + a->w_b + a->out_b, 1);
  if (l->bwd_data_flops > 0)
    set_work (&out->bwd_data, l->bwd_data_flops * a->n, a->out_b + a->w_b + a->in_b, 1);
  set_work (&out->bwd_weight, l->bwd_weight_flops * a->n, a->in_b + a->out_b + a->w_b, 1);
}

/* The output matrices the thread blocks tile: forward (N*OH*OW) x K,
 * backward-data (N*H*W) x C.  A convolution's weight gradient (K x C*R*S)
 * is left untiled: cuDNN splits its reduction over N*OH*OW across blocks.
 * Grouped convolutions are not GEMM-shaped. */
void
dts_layer_work_conv (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out)
{
  gemm_passes (l, a, out);
  if (l->groups > 1)
    return;
  gboolean w3 = l->kernel_h == 3 && l->kernel_w == 3 && l->stride_h == 1 && l->stride_w == 1;
  out->fwd.winograd_3x3 = w3;
  out->bwd_data.winograd_3x3 = w3 && out->bwd_data.kernels > 0;
  if (l->kernel_h == 1 && l->kernel_w == 1)
    out->fwd.conv_1x1 = out->bwd_data.conv_1x1 = 1, out->bwd_weight.conv_1x1 = 2;
  out->fwd.gemm_rows = a->n * l->out_shape.h * l->out_shape.w;
  out->fwd.gemm_cols = l->out_shape.c;
  out->bwd_data.gemm_rows = a->n * l->in_shape.h * l->in_shape.w;
  out->bwd_data.gemm_cols = l->in_shape.c;
  alt_work (l, a->batch, a->eb, a->in_b, a->out_b, a->w_b, out);
}

/* fc: batch x outputs forward, batch x inputs for the data gradient, and
 * the weight gradient outputs x inputs. */
void
dts_layer_work_fc (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out)
{
  gemm_passes (l, a, out);
  out->fwd.gemm_rows = a->n, out->fwd.gemm_cols = l->out_shape.c;
  out->bwd_data.gemm_rows = a->n, out->bwd_data.gemm_cols = l->in_elems;
  out->bwd_weight.gemm_rows = l->out_shape.c, out->bwd_weight.gemm_cols = l->in_elems;
}

/* linear: one GEMM per pass over every token: (batch x seq) x out forward,
 * (batch x seq) x in for the data gradient, out x in for the weights. */
void
dts_layer_work_linear (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out)
{
  gemm_passes (l, a, out);
  double tok = a->n * l->in_shape.seq;
  out->fwd.gemm_rows = tok, out->fwd.gemm_cols = l->out_shape.c;
  out->bwd_data.gemm_rows = tok, out->bwd_data.gemm_cols = l->in_shape.c;
  out->bwd_weight.gemm_rows = l->out_shape.c, out->bwd_weight.gemm_cols = l->in_shape.c;
}

/* router: forward, the gate GEMM (tokens x experts), the softmax and
 * top-k, and the copy of every token to its k experts (writing the S k x C
 * output); backward, the copies summed back and the gate GEMM's data
 * gradient, and its weight gradient (experts x features). An experts
 * linear is a linear row whose weights are E matrices read once per pass
 * (one grouped GEMM over the router's S k tokens). */
void
dts_layer_work_router (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out)
{
  gemm_passes (l, a, out);
  double tok = a->n * l->in_shape.seq;
  out->fwd.kernels = 3;
  out->fwd.gemm_rows = tok, out->fwd.gemm_cols = l->experts;
  if (out->bwd_data.kernels > 0) {
    out->bwd_data.kernels = 2;
    out->bwd_data.gemm_rows = tok, out->bwd_data.gemm_cols = l->in_shape.c;
  }
  out->bwd_weight.gemm_rows = l->experts, out->bwd_weight.gemm_cols = l->in_shape.c;
}

/* concat: forward copies each input into its channel range; backward hands
 * each input its channel slice of the output gradient, which the next
 * kernels need contiguous (cuDNN): one copy per input, reading the output
 * gradient once and writing the inputs' gradients. */
void
dts_layer_work_concat (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out)
{
  set_work (&out->fwd, 0.0, a->in_b + a->out_b, 1);
  if (l->data_grad)
    set_work (&out->bwd_data, 0.0, a->out_b + a->in_b, l->n_inputs);
}

/* batchnorm: two passes forward (statistics, normalise); one fused backward
 * kernel (cudnnBatchNormalizationBackward) computes data and weight
 * gradients together: it is priced under bwd_data and bwd_weight stays 0. */
void
dts_layer_work_batchnorm (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out)
{
  set_work (&out->fwd, l->fwd_flops * a->n, 2.0 * a->in_b + a->out_b, 2);
  if (l->bwd_data_flops > 0)
    set_work (&out->bwd_data, l->bwd_data_flops * a->n, 2.0 * (a->in_b + a->out_b) + a->in_b,
              2);
}

/* attention, fused (FlashAttention): one kernel forward reading Q, K, V and
 * writing the output; backward reads them, the output and its gradient and
 * writes dQ, dK, dV; the profile's library prices both at its measured rate
 * for the sequence and head dimension (cost/attention.c). Unfused: the heads x seq^2 scores are written and read
 * again by the softmax, the probabilities written and read by the second
 * GEMM (three kernels), and backward moves them half as much again (four
 * kernels). */
void
dts_layer_work_attention (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out)
{
  double scores = l->fused ? 0.0
                           : a->n * l->heads * (double) l->in_shape.seq * l->in_shape.seq * a->eb;
  set_work (&out->fwd, l->fwd_flops * a->n, a->in_b + a->out_b + 4.0 * scores, l->fused ? 1 : 3);
  if (l->bwd_data_flops > 0)
    set_work (&out->bwd_data, l->bwd_data_flops * a->n, 2.0 * (a->in_b + a->out_b) + 6.0 * scores,
              l->fused ? 1 : 4);
  if (l->fused) {
    /* what the fused kernel's rate depends on (cost/attention.c): Q K^T's
     * and P V's depths averaged where they differ (latent attention) */
    out->fwd.attn_seq = out->bwd_data.attn_seq = l->in_shape.seq;
    out->fwd.attn_head_dim = out->bwd_data.attn_head_dim = (l->head_dim + l->v_head_dim) / 2.0;
    out->bwd_data.attn_backward = TRUE;
  }
}

/* embedding: a gather of one table row per token forward; backward a
 * scatter-add of the output gradient into the table's gradient (read, add,
 * write). */
void
dts_layer_work_embedding (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out)
{
  set_work (&out->fwd, l->fwd_flops * a->n, a->in_b + 2.0 * a->out_b, 1);
  set_work (&out->bwd_weight, l->bwd_weight_flops * a->n, 3.0 * a->out_b, 1);
}

/* Element-wise, pooling, loss: memory-bound; backward reads the output
 * gradient and the saved input, writes the input gradient. */
static void
work_elementwise (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out)
{
  set_work (&out->fwd, l->fwd_flops * a->n, a->in_b + a->out_b, 1);
  if (l->bwd_data_flops > 0)
    set_work (&out->bwd_data, l->bwd_data_flops * a->n, a->out_b + 2.0 * a->in_b, 1);
}

void
dts_layer_work (const DtsLayer *layer, DtsPrecision precision, int batch, DtsLayerWork *out)
{
  const double eb = dts_precision_elem_bytes (precision);
  const DtsWorkArgs a = {
    .batch = batch,
    .n = batch,
    .eb = eb,
    .in_b = layer->in_elems * batch * eb,
    .out_b = layer->out_elems * batch * eb,
    .w_b = layer->params * 4.0,
  };
  *out = (DtsLayerWork){ 0 };
  const DtsLayerClass *cls = dts_layer_class_get (layer->type);
  (cls->work ? cls->work : work_elementwise) (layer, &a, out);
  if (layer->params > 0)
    set_work (&out->update, 2.0 * layer->params, 5.0 * 4.0 * layer->params, 1);
}
