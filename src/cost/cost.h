/* cost.h - kernel-time models: the table of cost models and their interface.
 *
 * A cost model gives, for one layer at a batch size on a GPU and precision,
 * the time of its forward, backward-data, backward-weights and optimizer-update
 * work on an otherwise idle GPU. Models are rows of a table (cost.c):
 * `roofline` (cost/roofline.c) and `mlp` (cost/mlp.c). Each row states its
 * assumptions in its file header. */
#ifndef DTS_COST_COST_H
#define DTS_COST_COST_H

#include <glib.h>
#include "core/precision.h"
#include "cost/framework.h"
#include "platform/gpu.h"
#include "workload/workload.h"

G_BEGIN_DECLS

typedef struct {
  double fwd_s;
  double bwd_data_s;
  double bwd_weight_s;
  double update_s;
  /* the forward run again just before the backward under activation
   * recomputation: set by the schedule (dts_schedule_layer_times), 0 from
   * the cost models */
  double recompute_s;
  /* which model produced the times, e.g. "roofline", "roofline:fft-fd" (the
   * forward and data-gradient passes as FFT convolutions), "mlp:V100-PCIE-16GB",
   * "mlp:P100-PCIE-16GB*roofline-ratio"; static or interned string (lent). */
  const char *source;
} DtsLayerTimes;

typedef struct _DtsCost DtsCost;

typedef struct {
  const char *id;
  const char *description;
  /* Create the model's state (may be NULL for stateless models). */
  gpointer (*init) (GError **error);
  void (*free) (gpointer state);
  /* FW: the framework profile (NULL: generic); the model applies its
   * efficiencies and launch cost, dts_cost_layer_times its fusion and
   * per-iteration host time. */
  gboolean (*layer_times) (gpointer state, const DtsLayer *layer, const DtsGpuSpec *gpu,
                           DtsPrecision precision, int batch, const DtsFramework *fw,
                           DtsLayerTimes *out, GError **error);
  /* Optional: append to OUT, as "; ..." clauses, what the model borrows for
   * GPU from the architecture standing in for GPU's (dts_gpu_arch_stand_in,
   * STAND_IN), for dts_cost_assumption. */
  void (*assumed) (const DtsGpuSpec *gpu, DtsPrecision precision, const char *stand_in,
                   GString *out);
  /* Optional: append to OUT, as "; ..." clauses, what the model assumes for
   * FP8 GEMMs on GPU where nothing was measured in FP8. */
  void (*assumed_fp8) (const DtsGpuSpec *gpu, GString *out);
} DtsCostModelClass;

/* The table, terminated by NULL. */
const DtsCostModelClass *const *dts_cost_models (void);
const DtsCostModelClass *dts_cost_model_lookup (const char *id);
/* "roofline, mlp" (owned). */
char *dts_cost_model_ids (void);

/* Create cost model ID ("roofline", "mlp"); unknown ids are DTS_ERROR_INVALID
 * listing the known ones. */
DtsCost *dts_cost_new (const char *id, GError **error);
void dts_cost_free (DtsCost *cost);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsCost, dts_cost_free)
const char *dts_cost_id (const DtsCost *cost);
/* Price layers under framework profile FW from now on (the cost takes FW
 * over; NULL: generic, the default). */
void dts_cost_set_framework (DtsCost *cost, DtsFramework *fw);
/* The profile in use (lent; generic unless set). */
const DtsFramework *dts_cost_framework (const DtsCost *cost);

/* TRUE when GPU has FP8 tensor cores (a catalogue fp8 rate); else FALSE
 * with an error naming GPU and the catalogue's GPUs that have them. */
gboolean dts_cost_check_fp8 (const DtsGpuSpec *gpu, GError **error);

/* Times of LAYER.  Under the cost's profile, a layer of a kind it fuses costs
 * nothing (source "fused"), and the model input layer's forward time is the
 * profile's host time per iteration (source "framework"). */
gboolean dts_cost_layer_times (DtsCost *cost, const DtsLayer *layer, const DtsGpuSpec *gpu,
                               DtsPrecision precision, int batch, DtsLayerTimes *out,
                               GError **error);

/* What the cost (its model and profile) takes for GPU at PRECISION from
 * another architecture because nothing was measured on GPU's
 * (dts_gpu_arch_stand_in), as one sentence for the run's summary:
 * "B200-SXM-180GB (Blackwell): nothing measured on Blackwell, Hopper's
 * values assumed: ...", and under fp8 with no FP8 efficiency in the
 * profile "fp8: ... bf16's efficiency assumed ..."; NULL (nothing
 * borrowed) otherwise.
 * Owned. */
char *dts_cost_assumption (const DtsCost *cost, const DtsGpuSpec *gpu, DtsPrecision precision);

/* The passes a cost model prices, in the order of an iteration. */
typedef enum {
  DTS_PASS_FWD,
  DTS_PASS_BWD_DATA,
  DTS_PASS_BWD_WEIGHT,
  DTS_PASS_UPDATE,
  DTS_PASS_COUNT
} DtsPass;
/* "fwd", "bwd-data", "bwd-weight", "update" (static). */
const char *dts_cost_pass_id (DtsPass pass);

/* What limits a pass under the roofline (cost/bounds.c). */
typedef enum {
  DTS_BOUND_NONE,    /* no kernel, or a model that is not a roofline */
  DTS_BOUND_COMPUTE, /* FLOPs / (peak x e_c) is the larger term */
  DTS_BOUND_MEMORY,  /* bytes / (bandwidth x e_m) is */
} DtsBound;
/* "-", "compute", "memory" (static). */
const char *dts_cost_bound_id (DtsBound bound);

typedef struct {
  double time_s; /* the cost model's time (dts_cost_layer_times) */
  double flops;  /* of the kernels that run: none for a fused layer */
  double bytes;  /* moved to and from device memory by them */
  /* Under the roofline, the larger share of the pass's time once launches
   * are taken out: compute-bound or memory-bound kernels (the gradient sum of
   * an output read by several layers is one more, memory-bound, kernel of
   * the backward-data pass).  DTS_BOUND_NONE under other models, whose times
   * are not a max of two terms, and for a pass that runs no kernel. */
  DtsBound bound;
  double compute_bound_s, memory_bound_s, launch_s; /* the roofline's terms, else 0 */
} DtsPassBound;

typedef struct {
  DtsLayerTimes times;
  DtsPassBound pass[DTS_PASS_COUNT];
} DtsLayerBounds;

/* The times of LAYER (as dts_cost_layer_times) and, per pass, the work its
 * kernels do and what bounds it. */
gboolean dts_cost_layer_bounds (DtsCost *cost, const DtsLayer *layer, const DtsGpuSpec *gpu,
                                DtsPrecision precision, int batch, DtsLayerBounds *out,
                                GError **error);

/* The ridge point of GPU at PRECISION under the cost's profile: the
 * arithmetic intensity (FLOP/byte) above which a conv/fc kernel is
 * compute-bound, peak x e_c / (bandwidth x e_m); 0 when the GPU has no
 * bandwidth.  A 1x1 convolution with its own efficiency (and, under a
 * profile with wave quantisation, a kernel of few thread blocks) has its own
 * ridge; DtsPassBound.bound takes it into account. */
double dts_cost_ridge_point (const DtsCost *cost, const DtsGpuSpec *gpu, DtsPrecision precision);

G_END_DECLS

#endif
