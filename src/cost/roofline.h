/* roofline.h - the roofline kernel-time model, exposed for reuse.
 *
 * Other models (mlp) reuse the same kernel decomposition and the roofline
 * ratio of two GPUs to carry a measured time from one GPU to another. */
#ifndef DTS_COST_ROOFLINE_H
#define DTS_COST_ROOFLINE_H

#include <glib.h>
#include "cost/cost.h"
#include "cost/framework.h"

G_BEGIN_DECLS

/* The documented constants of the model (see roofline.c). */
#define DTS_ROOFLINE_COMPUTE_EFF 0.70   /* share of peak FLOP/s that GEMM/conv kernels reach */
#define DTS_ROOFLINE_MEMORY_EFF 0.80    /* share of peak bandwidth that streaming kernels reach */
#define DTS_ROOFLINE_LAUNCH_S 5e-6      /* per-kernel launch and scheduling overhead */

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
  /* the other algorithms a library may run the kernel of a stride-1,
   * ungrouped convolution with (roofline.c): cuDNN's FFT (every pass) and
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

/* The work of each phase of LAYER at BATCH and PRECISION. */
typedef struct {
  DtsKernelWork fwd, bwd_data, bwd_weight, update;
} DtsLayerWork;

void dts_roofline_layer_work (const DtsLayer *layer, DtsPrecision precision, int batch,
                              DtsLayerWork *out);

/* Time of WORK on GPU at PRECISION: max(compute, memory) + launches. */
double dts_roofline_kernel_time (const DtsKernelWork *work, const DtsGpuSpec *gpu,
                                 DtsPrecision precision);

/* The same under framework profile FW: its efficiencies and launch cost, and
 * with FW->waves, the wave quantisation of dts_roofline_wave_efficiency. */
double dts_roofline_kernel_time_fw (const DtsKernelWork *work, const DtsGpuSpec *gpu,
                                    DtsPrecision precision, const DtsFramework *fw);

/* Share of SM time doing useful work when ROWS x COLS output elements are cut
 * into blocks of at most TILE x TILE (a smaller power of two, >= 16, for a
 * small dimension), one block per SM at a time, on SMS SMs:
 * rows x cols / (waves x SMs x block area); 1 when rows, cols or SMS is 0. */
double dts_roofline_wave_efficiency (double rows, double cols, int tile, int sms);

/* Backward-pass time of summing the gradients of LAYER's output from its
 * n_consumers readers: n_consumers - 1 element-wise adds of two output-sized
 * tensors into one, at FW's bandwidth share and launch cost (0 for one
 * reader). */
double dts_roofline_grad_sum_time (const DtsLayer *layer, const DtsGpuSpec *gpu,
                                   DtsPrecision precision, int batch, const DtsFramework *fw);

/* Time of WORK on GPU TO divided by its time on GPU FROM, without launch
 * overhead: the factor that carries a measured time from FROM to TO. */
double dts_roofline_ratio (const DtsKernelWork *work, const DtsGpuSpec *from,
                           const DtsGpuSpec *to, DtsPrecision precision);

G_END_DECLS

#endif
