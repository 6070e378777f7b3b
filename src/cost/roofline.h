/* roofline.h - the roofline kernel-time model, exposed for reuse.
 *
 * It prices the work a layer's row says its kernels do (workload/work.h);
 * other models (mlp) reuse that decomposition and the roofline ratio of two
 * GPUs to carry a measured time from one GPU to another. */
#ifndef DTS_COST_ROOFLINE_H
#define DTS_COST_ROOFLINE_H

#include <glib.h>
#include "cost/cost.h"
#include "cost/framework.h"
#include "workload/work.h"

G_BEGIN_DECLS

/* The documented constants of the model (see roofline.c). */
#define DTS_ROOFLINE_COMPUTE_EFF 0.70   /* share of peak FLOP/s that GEMM/conv kernels reach */
#define DTS_ROOFLINE_MEMORY_EFF 0.80    /* share of peak bandwidth that streaming kernels reach */
#define DTS_ROOFLINE_LAUNCH_S 5e-6      /* per-kernel launch and scheduling overhead */

/* What LAYER's kernels do at BATCH and PRECISION as FW runs them: its
 * row's work (dts_layer_work), a cross-entropy's passes those of FW's
 * implementation (dts_loss_work, cost/loss.h). */
void dts_roofline_layer_work (const DtsLayer *layer, const DtsFramework *fw,
                              DtsPrecision precision, int batch, DtsLayerWork *out);

/* Time of WORK on GPU at PRECISION: max(compute, memory) + launches. */
double dts_roofline_kernel_time (const DtsKernelWork *work, const DtsGpuSpec *gpu,
                                 DtsPrecision precision);

/* The same under framework profile FW: its efficiencies and launch cost, and
 * with FW->waves, the wave quantisation of dts_roofline_wave_efficiency. */
double dts_roofline_kernel_time_fw (const DtsKernelWork *work, const DtsGpuSpec *gpu,
                                    DtsPrecision precision, const DtsFramework *fw);

/* Where the time of WORK goes under profile FW (NULL: generic): its
 * kernel (or the convolution algorithm the auto-tuner picks instead) costs
 * max(compute, memory) + launches per stage, and each stage's max is
 * compute-bound or memory-bound time, whichever term won (compute on a
 * tie).  Adds the work that ran and those times to *TERMS (zero it first to
 * price one kernel) and returns the time, the same as
 * dts_roofline_kernel_time_fw:
 *   returned = compute_bound_s + memory_bound_s + launch_s added. */
typedef struct {
  double flops, bytes;    /* of the algorithm that ran */
  double compute_bound_s; /* in stages where FLOPs / (peak x e_c) was the larger term */
  double memory_bound_s;  /* in stages where bytes / (bandwidth x e_m) was */
  double launch_s;        /* kernels x the profile's launch cost */
} DtsRooflineTerms;
double dts_roofline_kernel_terms (const DtsKernelWork *work, const DtsGpuSpec *gpu,
                                  DtsPrecision precision, const DtsFramework *fw,
                                  DtsRooflineTerms *terms);

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

/* The work of that sum (no kernels for one reader). */
void dts_roofline_grad_sum_work (const DtsLayer *layer, DtsPrecision precision, int batch,
                                 DtsKernelWork *out);

/* The FP8 casts of a linear layer's GEMMs under --precision fp8 (Transformer
 * Engine's fused cast-transpose kernels): forward (BACKWARD false), its
 * input, read in bf16 and written in FP8 twice, as is and transposed for the
 * weight gradient; backward, its output gradient the same way; one kernel
 * and one FLOP (the amax) per element. No work for other layers. */
void dts_roofline_fp8_cast_work (const DtsLayer *layer, int batch, gboolean backward,
                                 DtsKernelWork *out);

/* Time of WORK on GPU TO divided by its time on GPU FROM, without launch
 * overhead: the factor that carries a measured time from FROM to TO. */
double dts_roofline_ratio (const DtsKernelWork *work, const DtsGpuSpec *from,
                           const DtsGpuSpec *to, DtsPrecision precision);

G_END_DECLS

#endif
