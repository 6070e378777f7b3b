/* attention.h - the rate of a fused attention kernel by implementation, head
 * dimension, sequence length and architecture.
 *
 * The model and its constants are stated in attention.c; the roofline
 * (roofline.c) prices a fused attention layer's kernels with it when the
 * framework profile names the implementation (attention-kernel). */
#ifndef DTS_COST_ATTENTION_H
#define DTS_COST_ATTENTION_H

#include <glib.h>
#include "platform/gpu.h"

G_BEGIN_DECLS

/* The library a framework's fused attention runs on. */
typedef enum {
  DTS_ATTENTION_GEMM = 0, /* none named: priced as a GEMM at the profile's efficiency */
  DTS_ATTENTION_FLASH2,   /* FlashAttention-2 (flash-attn 2, PyTorch's SDPA flash backend) */
  DTS_ATTENTION_FLASH3,   /* FlashAttention-3 (Hopper) */
  DTS_ATTENTION_CUDNN,    /* cuDNN's fused attention (Transformer Engine on Hopper) */
  DTS_ATTENTION_KERNEL_COUNT
} DtsAttentionKernel;

/* "gemm", "flash2", "flash3", "cudnn". */
const char *dts_attention_kernel_name (DtsAttentionKernel k);
gboolean dts_attention_kernel_from_string (const char *s, DtsAttentionKernel *out);
/* The names, "gemm, flash2, flash3 or cudnn" (g_free). */
char *dts_attention_kernel_list (void);

/* The architecture whose measured rates GPU takes: its own where measured
 * ("Hopper"), else its stand-in's (dts_gpu_arch_stand_in: Blackwell takes
 * Hopper's), else NULL (nothing measured: the kernel is priced as a GEMM). */
const char *dts_attention_measured_arch (const DtsGpuSpec *gpu);

/* The share of GPU's dense fp16/bf16 peak (dts_gpu_spec_die_flops) a fused
 * attention kernel of K reaches over sequences of SEQ tokens with head
 * dimension HEAD_DIM, forward, or BACKWARD (attention.c); 0 when K is
 * DTS_ATTENTION_GEMM, SEQ or HEAD_DIM is not positive, or nothing was
 * measured for GPU (dts_attention_measured_arch). */
double dts_attention_share (const DtsGpuSpec *gpu, DtsAttentionKernel k, double head_dim,
                            double seq, gboolean backward);

G_END_DECLS

#endif
