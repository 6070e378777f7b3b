/* framework.h - framework profiles: what the software stack adds to kernels.
 *
 * A profile (frameworks/ID.conf, doc/COST-MODELS.md) describes how one
 * framework, in one mode, on its library generation, turns layers into
 * kernels: the share of peak FLOP/s its convolutions and GEMMs reach per
 * precision, whether kernels lose the tail of their last wave over the SMs,
 * the share of peak bandwidth of its element-wise kernels, which layer kinds
 * it fuses into the preceding kernel, what a kernel launch costs, and a fixed
 * host cost per iteration.  The built-in profile `generic` (no file) is the
 * roofline as it was before profiles existed. */
#ifndef DTS_COST_FRAMEWORK_H
#define DTS_COST_FRAMEWORK_H

#include <glib.h>
#include "core/precision.h"
#include "cost/attention.h"
#include "cost/loss.h"
#include "workload/workload.h"

G_BEGIN_DECLS

/* The built-in profile (no file), and the profile `dtsim run` and `dtsim
 * info` take when none is given: the shipped profile with the lowest mean
 * error over `dtsim validate`'s sets (doc/VALIDATION.md part 19).  Every
 * profile records its error, which every run prints. */
#define DTS_FRAMEWORK_GENERIC "generic"
#define DTS_FRAMEWORK_DEFAULT "tensorflow1"
#define DTS_FRAMEWORK_MAX_ARCH_KEYS 16
#define DTS_FRAMEWORK_MAX_MAPES 4 /* at least the number of cost models (cost.c) */

typedef struct {
  char *id;                           /* file name without .conf, or "generic" */
  char *description;
  double compute_eff[DTS_PREC_COUNT]; /* share of peak FLOP/s of conv/fc kernels; 0 for
                                       * fp8: unset, bf16's (dts_framework_compute_eff) */
  double memory_eff;                  /* share of peak bandwidth of other kernels */
  gboolean waves;                     /* wave quantisation of conv/fc kernels */
  int tile;                           /* output tile edge (elements) of a conv/fc thread block */
  double launch_s;                    /* per kernel launch */
  double host_s;                      /* host-overhead: the host's time to issue one kernel; a
                                       * pass or update takes at least its kernels x this (the GPU
                                       * waits for a host slower than its kernels); 0: never */
  double iteration_s;                 /* per iteration, on the host, GPU idle */
  gboolean fuse[DTS_LAYER_TYPE_COUNT]; /* layer kinds fused into the preceding kernel */
  DtsPrecision grad_precision;        /* what gradient buckets all-reduce: fp32, fp16, bf16 */
  double speed_spread;                /* coefficient of variation of sustained per-GPU speed */
  double winograd_3x3;                /* FLOPs of a direct 3x3 stride-1 convolution's forward and
                                       * backward-data kernels over what the library's Winograd
                                       * kernels cost (1: no Winograd) */
  gboolean fft;                       /* fft-convolution: the library may run a stride-1
                                       * convolution as an FFT (roofline.c); the cheaper of
                                       * it and the direct kernel is taken */
  gboolean winograd;                  /* winograd-convolution: and a 3x3 one as a Winograd
                                       * transform, fused F(2x2,3x3) or not F(4x4,3x3) */
  double eff_1x1;                     /* compute-efficiency-1x1: share of peak FLOP/s of a 1x1
                                       * ungrouped convolution's forward and backward-data
                                       * kernels, whatever the precision and GPU; 0: the
                                       * conv/fc efficiency */
  double eff_1x1_wgrad;               /* compute-efficiency-1x1-wgrad: the same for its
                                       * weight gradient; 0: the conv/fc efficiency */
  DtsAttentionKernel attention;       /* attention-kernel: the library its fused attention
                                       * runs on, priced at that library's measured rate
                                       * (attention.c); DTS_ATTENTION_GEMM: as a GEMM */
  DtsLossKernel loss;                 /* cross-entropy: the kernels its cross-entropy loss
                                       * runs (loss.c); DTS_LOSS_FUSED: one each way */
  /* compute-efficiency-PREC-ARCH and memory-efficiency-ARCH: overrides of
   * compute_eff and memory_eff for the GPUs of one architecture or chip
   * (the catalogue's arch or chip, compared without case) */
  int n_arch;
  struct {
    char arch[24];
    gboolean memory;          /* overrides memory_eff (precision unused) */
    DtsPrecision precision;
    double eff;
  } arch_eff[DTS_FRAMEWORK_MAX_ARCH_KEYS];
  /* validate-mape-MODEL: the measured error of this profile under cost
   * model MODEL, the mean over `dtsim validate -F ID`'s sets of their MAPE
   * on REPORT rows, in percent (a record, not an input: the run prints it) */
  int n_mape;
  struct {
    char cost_model[24];
    double pct;
  } mape[DTS_FRAMEWORK_MAX_MAPES];
} DtsFramework;

/* FW's measured error under COST_MODEL (validate-mape-MODEL, percent), or
 * a negative number where none was measured. */
double dts_framework_validate_mape (const DtsFramework *fw, const char *cost_model);

/* The share of peak FLOP/s of conv/fc kernels at PRECISION on a GPU of
 * chip CHIP and architecture ARCH (either may be NULL): the chip's key,
 * else the architecture's, else the precision's.  fp8 with no fp8 key of
 * its own (dts_framework_has_eff) takes bf16's, looked up the same way:
 * no FP8 kernels were measured. */
double dts_framework_compute_eff (const DtsFramework *fw, const char *chip, const char *arch,
                                  DtsPrecision precision);
/* Whether FW sets a compute efficiency at PRECISION for CHIP/ARCH itself
 * (always for the precisions other than fp8, which the generic profile
 * leaves unset). */
gboolean dts_framework_has_eff (const DtsFramework *fw, const char *chip, const char *arch,
                                DtsPrecision precision);

/* The share of peak bandwidth of other kernels, looked up the same way. */
double dts_framework_memory_eff (const DtsFramework *fw, const char *chip, const char *arch);

/* The profile key that sets the compute efficiency at PRECISION (MEMORY:
 * the memory efficiency) there, as a profile writes it
 * ("compute-efficiency-fp16-ga100", "memory-efficiency"; g_free it). */
char *dts_framework_eff_key (const DtsFramework *fw, const char *chip, const char *arch,
                             gboolean memory, DtsPrecision precision);

/* What synchronous data parallelism over N GPUs multiplies compute times
 * by: every GPU waits for the slowest of N whose sustained speeds spread
 * with coefficient of variation FW->speed_spread, i.e. 1 + spread x E[max
 * of N standard normals] (1 for N = 1 or spread 0). */
double dts_framework_sync_slowdown (const DtsFramework *fw, int n);

/* The built-in `generic` profile (lent, static). */
const DtsFramework *dts_framework_generic (void);

/* Load ID_OR_PATH: a shipped profile name (frameworks/ID.conf), a path, or
 * "generic"; NULL: DTS_FRAMEWORK_DEFAULT.  Errors name the file and line and what was expected. */
DtsFramework *dts_framework_load (const char *id_or_path, GError **error);
/* Parse TEXT as the profile ID read from FILE (for error messages). */
DtsFramework *dts_framework_parse (const char *text, const char *id, const char *file,
                                   GError **error);
void dts_framework_free (DtsFramework *fw);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsFramework, dts_framework_free)

G_END_DECLS

#endif
