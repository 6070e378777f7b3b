/* loss.h - the kernels a framework runs a cross-entropy loss with.
 *
 * A language model's loss reads logits of S x vocabulary elements per
 * sample, as many as the largest activation of the network: how many
 * passes over them a framework makes, and in which precision, is a share of
 * the iteration of its own.  loss.c states each implementation's passes;
 * the roofline (roofline.c) prices them when the framework profile names
 * one (cross-entropy). */
#ifndef DTS_COST_LOSS_H
#define DTS_COST_LOSS_H

#include <glib.h>
#include "core/precision.h"
#include "workload/work.h"

G_BEGIN_DECLS

typedef enum {
  DTS_LOSS_FUSED = 0,     /* one kernel each way at the logits' precision (the default) */
  DTS_LOSS_TORCH_FP32,    /* logits cast to fp32, then F.cross_entropy (torchtitan) */
  DTS_LOSS_MEGATRON,      /* Megatron-LM's vocabulary-parallel cross-entropy, in fp32 */
  DTS_LOSS_MEGATRON_FUSED, /* the same with --cross-entropy-loss-fusion */
  DTS_LOSS_KERNEL_COUNT
} DtsLossKernel;

/* "fused", "torch-fp32", "megatron", "megatron-fused". */
const char *dts_loss_kernel_name (DtsLossKernel k);
gboolean dts_loss_kernel_from_string (const char *s, DtsLossKernel *out);
/* The names, "fused, torch-fp32, megatron or megatron-fused" (g_free). */
char *dts_loss_kernel_list (void);

/* Bytes K moves per logit element forward and backward when the logits
 * are in PRECISION; 0 and 0 for DTS_LOSS_FUSED (the layer's own row). */
void dts_loss_kernel_bytes (DtsLossKernel k, DtsPrecision precision, double *fwd, double *bwd);

/* Bytes per logit element K keeps for the backward pass when the logits
 * are in PRECISION: their size under DTS_LOSS_FUSED (the layer's own row),
 * 4 for the others, which keep fp32 probabilities (Megatron's softmax,
 * log_softmax's output). */
double dts_loss_kept_bytes (DtsLossKernel k, DtsPrecision precision);

/* Replaces the forward and data-gradient work of LAYER, a cross-entropy, in
 * W (dts_layer_work at BATCH and PRECISION, the logits' precision) with
 * K's kernels; W is left as it is for DTS_LOSS_FUSED and any other layer. */
void dts_loss_work (const DtsLayer *layer, DtsLossKernel k, DtsPrecision precision, int batch,
                    DtsLayerWork *w);

G_END_DECLS

#endif
