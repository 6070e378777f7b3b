/* gemm.h - time of one GEMM by its shape and the GPU's architecture.
 *
 * The model and its constants are stated in gemm.c; the cost model
 * `roofline-gemm` (gemm.c) prices the linear layers of sequence models with
 * it and everything else with the roofline. */
#ifndef DTS_COST_GEMM_H
#define DTS_COST_GEMM_H

#include <glib.h>
#include "core/precision.h"
#include "platform/gpu.h"

G_BEGIN_DECLS

/* The constants fitted per architecture family (gemm.c). */
typedef struct {
  const char *arch;    /* catalogue architecture: "Ampere" */
  double share;        /* share of the matmul ceiling that full waves reach */
  double mem_share;    /* share of peak memory bandwidth */
  double fixed_s;      /* fixed time per kernel */
  const char *fitted_on; /* the GPU whose GEMMs fitted them: "A100" */
} DtsGemmFamily;

/* The constants for GPU's architecture; an architecture without a fit gets
 * those of its stand-in (dts_gpu_arch_stand_in: Hopper's for Blackwell),
 * else the Ampere constants. Never NULL (lent, static). */
const DtsGemmFamily *dts_gemm_family (const DtsGpuSpec *gpu);
/* Whether dts_gemm_family's constants were fitted on GPU's own
 * architecture. */
gboolean dts_gemm_family_is_own (const DtsGpuSpec *gpu);
/* Whether dts_gemm_ceiling_flops is GPU's measured MAMF (by catalogue id),
 * rather than the stated share of its peak. */
gboolean dts_gemm_ceiling_is_measured (const DtsGpuSpec *gpu);

/* The most FLOP/s a GEMM at PRECISION reaches on GPU: the maximum
 * achievable matmul rate measured for it (ml_engineering_mamf.csv) where
 * gemm.c's table lists the GPU, else 0.80 x the die's peak; 0 when the GPU
 * has no rate at all. */
double dts_gemm_ceiling_flops (const DtsGpuSpec *gpu, DtsPrecision precision);

/* The share of its FP8 peak an FP8 matmul reaches over the share of its
 * BF16 peak a BF16 one reaches (maximum achievable matmul rates, gemm.c's
 * table): the GPU's own where measured (*MEASURED_ON its catalogue id),
 * else the mean of its architecture's measured GPUs, else of its
 * stand-in's (*MEASURED_ON the architecture), else 1 (*MEASURED_ON NULL).
 * What the roofline multiplies bf16's efficiency by for FP8 GEMMs when a
 * profile has no FP8 efficiency of its own. */
double dts_gemm_fp8_ratio (const DtsGpuSpec *gpu, const char **measured_on);

/* Share in (0, 1] of SMS SMs x waves doing useful work when an M x N
 * output cut into tiles (128 x 128, a smaller power of two >= 16 for a
 * small dimension) and, where the tiles do not fill the SMs, K split into
 * slices of at least 256, runs in waves of one tile per SM. 1 when a size
 * is not positive. */
double dts_gemm_wave_efficiency (double m, double n, double k, int sms);

/* Time of an (M x K) x (K x N) GEMM at PRECISION on GPU, in seconds:
 * max(2MNK / (ceiling x share x wave efficiency),
 *     (MK + KN + MN) x element bytes / (bandwidth x mem_share)) + fixed_s.
 * 0 when a size is not positive. */
double dts_gemm_time (double m, double n, double k, const DtsGpuSpec *gpu,
                      DtsPrecision precision);

G_END_DECLS

#endif
