/* work.h - the work of a layer's kernels: FLOPs, bytes moved to and from
 * device memory, launches and GEMM shapes, per pass.
 *
 * Each row of the layer table (layers.c) says what its kernels do at a batch
 * size and precision (layer-work.c); the cost models (cost/roofline.c,
 * cost/mlp.c) price that work on a GPU. Bytes assume each tensor is read or
 * written once (no cache reuse across kernels); activations use the
 * precision's element size, weights and their gradients are fp32 master
 * copies (4 bytes) under mixed precision. */
#ifndef DTS_WORKLOAD_WORK_H
#define DTS_WORKLOAD_WORK_H

#include <glib.h>
#include "core/precision.h"
#include "workload/workload.h"

G_BEGIN_DECLS

/* A convolution algorithm other than the direct (implicit-GEMM) kernel. */
typedef enum {
  DTS_CONV_FFT,              /* whole-image FFT */
  DTS_CONV_FFT_TILING,       /* FFT over 32x32 tiles */
  DTS_CONV_WINOGRAD,         /* fused Winograd F(2x2,3x3) */
  DTS_CONV_WINOGRAD_NONFUSED /* Winograd F(4x4,3x3): transforms, 36 GEMMs, inverse */
} DtsConvAlgorithm;

/* The work of one kernel: FLOPs and bytes moved to/from device memory. */
typedef struct {
  double flops;
  double bytes;
  int kernels; /* launches this work takes (0 when there is no work) */
  /* conv/fc kernels: the output matrix of the implicit GEMM, rows x cols,
   * that thread blocks tile (0 when not a GEMM-like kernel) */
  double gemm_rows, gemm_cols;
  /* a 3x3, stride-1, ungrouped convolution's forward or backward-data
   * kernel: a library may run it as a Winograd transform (framework.h) */
  gboolean winograd_3x3;
  /* a 1x1 ungrouped convolution's kernel: 1 forward or backward-data, 2
   * weight gradient (the profile's compute-efficiency-1x1[-wgrad]); 0 */
  int conv_1x1;
  /* a fused attention kernel (FlashAttention-style): the sequence length
   * and head dimension its rate depends on (cost/attention.c), and whether
   * it is the backward kernel; 0 for any other kernel */
  double attn_seq, attn_head_dim;
  gboolean attn_backward;
  /* the other algorithms a library may run the kernel of a stride-1,
   * ungrouped convolution with (layer-work.c): cuDNN's FFT (every pass) and
   * FFT_TILING (forward), for a profile with fft-convolution; for 3x3
   * layers, its fused Winograd F(2x2,3x3) and non-fused F(4x4,3x3)
   * (forward and data gradient), for a profile with winograd-convolution.
   * Each is two stages, its transforms (and transposes) and its batched
   * GEMM; FFTs compute in fp32 complex, Winograd at the run's precision */
  int n_alt;
  struct {
    DtsConvAlgorithm algorithm;
    double xform_flops, xform_bytes, gemm_flops, gemm_bytes;
    int kernels;
  } alt[4];
} DtsKernelWork;

/* The work of each phase of a layer at a batch size and precision. */
typedef struct {
  DtsKernelWork fwd, bwd_data, bwd_weight, update;
} DtsLayerWork;

/* The work of each phase of LAYER at BATCH and PRECISION, as its row says;
 * a layer with parameters also gets the optimizer update (update). */
void dts_layer_work (const DtsLayer *layer, DtsPrecision precision, int batch,
                     DtsLayerWork *out);

G_END_DECLS

#endif
