/* workload.h - a DNN model as a graph of layers with inferred shapes and costs.
 *
 * A workload file (XML, see doc/WORKLOADS.md) lists layers in topological
 * order; each takes the previous layer as input unless it names its inputs.
 * Shapes are inferred from the model input; parameter counts and FLOPs are
 * computed per sample (batch 1): multiply by the batch size.
 *
 * FLOPs are 2 x multiply-accumulates everywhere. For a conv or fc layer:
 *   fwd_flops        = 2 * MACs (+ bias adds)
 *   bwd_data_flops   = fwd_flops (0 when the layer's input is the model input)
 *   bwd_weight_flops = fwd_flops
 * Other layers count their element-wise operations; they are memory-bound and
 * the cost model prices them by bytes. */
#ifndef DTS_WORKLOAD_WORKLOAD_H
#define DTS_WORKLOAD_WORKLOAD_H

#include <glib.h>
#include "core/precision.h"

G_BEGIN_DECLS

typedef enum {
  DTS_LAYER_INPUT,
  DTS_LAYER_CONV,
  DTS_LAYER_FC,
  DTS_LAYER_MAXPOOL,
  DTS_LAYER_AVGPOOL,
  DTS_LAYER_GLOBAL_AVGPOOL,
  DTS_LAYER_BATCHNORM,
  DTS_LAYER_RELU,
  DTS_LAYER_ADD,
  DTS_LAYER_CONCAT,
  DTS_LAYER_DROPOUT,
  DTS_LAYER_FLATTEN,
  DTS_LAYER_SOFTMAX_LOSS,
  DTS_LAYER_LRN,
  DTS_LAYER_TYPE_COUNT
} DtsLayerType;

/* Activation shape of one sample: channels x height x width; a flat vector
 * of F features is F x 1 x 1. */
typedef struct {
  int c, h, w;
} DtsShape;

typedef struct {
  char *name;
  DtsLayerType type;
  int line;            /* line in the workload file */
  int n_inputs;
  int *inputs;         /* indices of earlier layers (owned) */
  DtsShape in_shape;   /* shape of the first input */
  DtsShape out_shape;
  /* conv / pooling / fc geometry (0 where not applicable) */
  int kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, groups;
  gboolean has_bias;
  /* per sample */
  double params;           /* trainable parameters */
  double fwd_flops;
  double bwd_data_flops;
  double bwd_weight_flops;
  double in_elems;         /* elements read (all inputs) */
  double out_elems;        /* elements of the output activation */
} DtsLayer;

/* Optional training settings of a workload file; 0 / NULL where unset. */
typedef struct {
  int batch_size;          /* per GPU */
  double dataset_samples;  /* e.g. 1281167 for ImageNet-1k */
  gboolean has_precision;
  DtsPrecision precision;
  char *optimizer;         /* "sgd", "momentum", "adam" */
} DtsTraining;

typedef struct {
  char *name;
  char *path;
  DtsShape input;
  GArray *layers;      /* DtsLayer, index 0 is the input layer, topological order */
  DtsTraining training;
  /* totals per sample */
  double params;
  double fwd_flops;
  double act_elems;    /* sum of out_elems over layers (stored activations) */
} DtsWorkload;

const char *dts_layer_type_to_string (DtsLayerType t);

DtsWorkload *dts_workload_load (const char *path, GError **error);
void dts_workload_free (DtsWorkload *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsWorkload, dts_workload_free)

static inline const DtsLayer *
dts_workload_layer (const DtsWorkload *w, guint i)
{
  return &g_array_index (w->layers, DtsLayer, i);
}

/* Optimizer state bytes per parameter (fp32): sgd 0, momentum 4, adam 8. */
double dts_workload_optimizer_state_bytes_per_param (const DtsWorkload *w);

G_END_DECLS

#endif
