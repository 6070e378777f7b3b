/* loss.c - the kernels a framework runs a cross-entropy loss with.
 *
 * Every implementation is memory-bound: its time is the bytes its passes
 * move over the logits, L elements (the cross-entropy layer's input, S x
 * vocabulary per sample, or the vocabulary's shard under tensor
 * parallelism), at the roofline's bandwidth share, plus its launches.  The
 * per-token work (gathering the target's logit, the masks, the loss) is
 * negligible beside it and not counted.  Bytes per logit element, with a the
 * logits' element size (2 in bf16):
 *
 *   fused        the layer's own row (layer-work.c), at the logits'
 *                precision: one kernel forward reading the logits and
 *                writing their probabilities (2a), one backward reading
 *                them and the output gradient and writing the logits'
 *                gradient (3a); a fused kernel such as Apex's xentropy
 *   torch-fp32   logits.float() then F.cross_entropy (torchtitan's loss):
 *                forward the cast (a + 4), log_softmax (reads its row for
 *                the maximum, for the sum of exponentials and to write: 12 +
 *                4) and nll_loss; 3 kernels, a + 20.  Backward a zero-filled
 *                fp32 gradient with the targets scattered in (4),
 *                log_softmax's backward (reads the gradient twice and the
 *                saved output, writes: 16) and the cast back (4 + a);
 *                4 kernels, a + 24
 *   megatron     Megatron-LM's vocabulary-parallel cross-entropy
 *                (tensor_parallel/cross_entropy.py), unfused as
 *                Megatron-LM runs it by default: forward the cast to fp32
 *                (a + 4), the maximum (4), subtract it (8), exp (8), the
 *                sum (4) and divide (8: the softmax, kept for backward);
 *                6 kernels, a + 36.  Backward subtract one at the target
 *                (a scatter), multiply by the loss gradient (8) and the
 *                cast back (4 + a); 3 kernels, a + 12
 *   megatron-fused  the same with --cross-entropy-loss-fusion
 *                (fused_cross_entropy.py, jit-fused): cast and maximum in
 *                one pass (a + 4), subtract, exp and sum in one (8), the
 *                divide (8); 3 kernels, a + 20.  Backward one fused
 *                gradient kernel (8) and the cast (4 + a); 2 kernels,
 *                a + 12
 *
 * What each keeps for backward: fused, the layer's activation at the
 * logits' precision; the others fp32 probabilities, 4 bytes per element
 * (dts_loss_kept_bytes; the memory model counts them).
 *
 * FLOPs are the layer's (5 per element forward, 1 backward): below the
 * ridge of every GPU, they decide nothing. */
#include "config.h"

#include <string.h>

#include "cost/loss.h"

typedef struct {
  const char *id;
  /* bytes per logit element: a times the logits' element size plus fp32
   * bytes, and the kernels, forward and backward */
  double fwd_a, fwd_f32;
  int fwd_kernels;
  double bwd_a, bwd_f32;
  int bwd_kernels;
} LossRow;

static const LossRow rows[DTS_LOSS_KERNEL_COUNT] = {
  [DTS_LOSS_FUSED] = { "fused", 0, 0, 0, 0, 0, 0 },
  [DTS_LOSS_TORCH_FP32] = { "torch-fp32", 1, 20, 3, 1, 24, 4 },
  [DTS_LOSS_MEGATRON] = { "megatron", 1, 36, 6, 1, 12, 3 },
  [DTS_LOSS_MEGATRON_FUSED] = { "megatron-fused", 1, 20, 3, 1, 12, 2 },
};

const char *
dts_loss_kernel_name (DtsLossKernel k)
{
  return k >= 0 && k < DTS_LOSS_KERNEL_COUNT ? rows[k].id : "?";
}

gboolean
dts_loss_kernel_from_string (const char *s, DtsLossKernel *out)
{
  for (int k = 0; s != NULL && k < DTS_LOSS_KERNEL_COUNT; k++)
    if (strcmp (s, rows[k].id) == 0) {
      *out = (DtsLossKernel) k;
      return TRUE;
    }
  return FALSE;
}

char *
dts_loss_kernel_list (void)
{
  GString *s = g_string_new (NULL);
  for (int k = 0; k < DTS_LOSS_KERNEL_COUNT; k++)
    g_string_append_printf (s, "%s%s", k == 0 ? "" : k + 1 < DTS_LOSS_KERNEL_COUNT ? ", " : " or ",
                            rows[k].id);
  return g_string_free (s, FALSE);
}

void
dts_loss_kernel_bytes (DtsLossKernel k, DtsPrecision precision, double *fwd, double *bwd)
{
  *fwd = *bwd = 0;
  if (k <= DTS_LOSS_FUSED || k >= DTS_LOSS_KERNEL_COUNT)
    return;
  const double a = dts_precision_elem_bytes (precision);
  *fwd = rows[k].fwd_a * a + rows[k].fwd_f32;
  *bwd = rows[k].bwd_a * a + rows[k].bwd_f32;
}

double
dts_loss_kept_bytes (DtsLossKernel k, DtsPrecision precision)
{
  if (k <= DTS_LOSS_FUSED || k >= DTS_LOSS_KERNEL_COUNT)
    return dts_precision_elem_bytes (precision);
  return 4.0;
}

static void
set_pass (DtsKernelWork *k, double flops, double bytes, int kernels)
{
  *k = (DtsKernelWork){ .flops = flops, .bytes = bytes, .kernels = bytes > 0 ? kernels : 0 };
}

void
dts_loss_work (const DtsLayer *layer, DtsLossKernel k, DtsPrecision precision, int batch,
               DtsLayerWork *w)
{
  if (layer->type != DTS_LAYER_CROSS_ENTROPY || k <= DTS_LOSS_FUSED || k >= DTS_LOSS_KERNEL_COUNT
      || batch <= 0)
    return;
  double fwd, bwd;
  dts_loss_kernel_bytes (k, precision, &fwd, &bwd);
  const double n = layer->in_elems * batch;
  set_pass (&w->fwd, layer->fwd_flops * batch, n * fwd, rows[k].fwd_kernels);
  set_pass (&w->bwd_data, layer->bwd_data_flops * batch, n * bwd, rows[k].bwd_kernels);
}
