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

/* Times of LAYER.  Under the cost's profile, a layer of a kind it fuses costs
 * nothing (source "fused"), and the model input layer's forward time is the
 * profile's host time per iteration (source "framework"). */
gboolean dts_cost_layer_times (DtsCost *cost, const DtsLayer *layer, const DtsGpuSpec *gpu,
                               DtsPrecision precision, int batch, DtsLayerTimes *out,
                               GError **error);

G_END_DECLS

#endif
