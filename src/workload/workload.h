/* workload.h - a DNN model as a graph of layers with inferred shapes and costs.
 *
 * A workload file (XML, see doc/WORKLOADS.md) lists layers in topological
 * order; each takes the previous layer as input unless it names its inputs.
 * Shapes are inferred from the model input; parameter counts and FLOPs are
 * computed per sample (batch 1): multiply by the batch size.
 *
 * FLOPs are 2 x multiply-accumulates everywhere. For a conv or fc layer:
 *   macs             = multiply-accumulates of the forward pass
 *   fwd_flops        = 2 * macs (+ one add per output element with a bias)
 *   bwd_data_flops   = 2 * macs (0 when the layer's input is the model input)
 *   bwd_weight_flops = fwd_flops (weight gradient, plus the bias gradient's sums)
 * Other layers have macs = 0 and count their element-wise operations (the
 * per-type counts are in layers.c and doc/WORKLOADS.md); they are memory-bound
 * and the cost model prices them by bytes (in_elems, out_elems). The MAC total
 * is what published model figures (torchvision's "GFLOPS" column) count.
 * A layer whose only input is the model input has bwd_data_flops = 0 whatever
 * its type: nothing needs the gradient of the data, unless the model says
 * input-gradient="true" (a framework that computes it anyway, as Torch7
 * modules do unless told not to); then it keeps 2 * macs. */
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
  DTS_LAYER_ADAPTIVE_AVGPOOL, /* average pooling to a fixed output size */
  DTS_LAYER_RELU6,            /* min(max(x, 0), 6) (MobileNet-v2) */
  DTS_LAYER_TYPE_COUNT
} DtsLayerType;

/* Activation shape of one sample: channels x height x width; a flat vector
 * of F features is F x 1 x 1. */
typedef struct {
  int c, h, w;
} DtsShape;

/* "64x56x56", or "1000" for a flat vector (h = w = 1); owned. */
char *dts_shape_to_string (DtsShape s);

typedef struct {
  char *name;
  DtsLayerType type;
  int line;            /* line in the workload file */
  int n_inputs;
  int *inputs;         /* indices of earlier layers (owned) */
  gboolean data_grad;  /* backward computes the gradient of its inputs: FALSE for a
                        * layer fed by the model input alone (unless input-gradient) */
  int n_consumers;     /* later layers that read this one's output: backward sums
                        * their n_consumers gradients of it */
  DtsShape in_shape;   /* shape of the first input */
  DtsShape out_shape;
  /* conv / pooling / fc geometry (0 where not applicable) */
  int kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, groups;
  gboolean has_bias;
  /* per sample */
  double params;           /* trainable parameters (batch-norm running stats are not) */
  double macs;             /* forward multiply-accumulates (conv and fc only) */
  double fwd_flops;
  double bwd_data_flops;
  double bwd_weight_flops;
  double in_elems;         /* elements read (all inputs) */
  double out_elems;        /* elements of the output activation */
  double act_elems;        /* elements stored for the backward pass: out_elems,
                            * 0 for views (flatten) */
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
  gboolean input_gradient; /* <model input-gradient="true">: layers fed by the model
                            * input compute their data gradient */
  /* totals per sample */
  double params;
  double macs;         /* conv and fc multiply-accumulates of one forward pass */
  double fwd_flops;    /* 2 x macs + bias and element-wise operations */
  double act_elems;    /* sum of act_elems over layers, model input included */
} DtsWorkload;

/* The kebab-case id of T as written in workload files ("conv", "global-avgpool"). */
const char *dts_layer_type_to_string (DtsLayerType t);
/* The type whose id is S; FALSE (no error set) if there is none. */
gboolean dts_layer_type_from_string (const char *s, DtsLayerType *out);

/* Load and validate the workload file PATH (a path, not a bare name: resolve
 * shipped names with dts_datadir_resolve ("workloads", NAME, ".xml", ...)).
 * Errors read "workload 'PATH': line N: layer 'NAME': what (expected)". */
DtsWorkload *dts_workload_load (const char *path, GError **error);
void dts_workload_free (DtsWorkload *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsWorkload, dts_workload_free)

static inline const DtsLayer *
dts_workload_layer (const DtsWorkload *w, guint i)
{
  return &g_array_index (w->layers, DtsLayer, i);
}

/* Optimizer state bytes per parameter (fp32): sgd 0, momentum 4, adam 8;
 * a workload without an optimizer setting is trained with momentum. */
double dts_workload_optimizer_state_bytes_per_param (const DtsWorkload *w);

G_END_DECLS

#endif
