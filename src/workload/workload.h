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
  DTS_LAYER_EMBEDDING,        /* token (and learned position) embedding */
  DTS_LAYER_LAYERNORM,
  DTS_LAYER_RMSNORM,
  DTS_LAYER_LINEAR,           /* a GEMM applied to every token (torch.nn.Linear) */
  DTS_LAYER_ATTENTION,        /* core attention: scores, softmax, weighted values */
  DTS_LAYER_GELU,
  DTS_LAYER_SWIGLU,           /* silu(a) * b of a gated pair */
  DTS_LAYER_CROSS_ENTROPY,    /* softmax and cross-entropy of every token */
  DTS_LAYER_ROUTER,           /* mixture of experts: gate scores, top-k, tokens dispatched */
  DTS_LAYER_MOE_COMBINE,      /* mixture of experts: the k expert outputs' weighted sum */
  DTS_LAYER_TYPE_COUNT
} DtsLayerType;

/* Activation shape of one sample: channels x height x width; a flat vector
 * of F features is F x 1 x 1. A tensor with a sequence axis (one sample is
 * one sequence of SEQ tokens) is SEQ x C, with h = w = 1 and C the features
 * of every token (the hidden size); SEQ is 0 for tensors without one
 * (images and vectors), so that {c, h, w} initialisers mean what they did. */
typedef struct {
  int c, h, w;
  int seq;
} DtsShape;

/* "64x56x56", "1000" for a flat vector (h = w = 1), "2048x4096" (tokens x
 * features) for a sequence; owned. */
char *dts_shape_to_string (DtsShape s);

/* Elements of one sample of S. */
double dts_shape_elems (DtsShape s);

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
  /* attention geometry (0 elsewhere): query heads, key/value heads (grouped-
   * query attention when fewer), features per query and key head, per value
   * head (= head_dim but with v-head-dim), and of them the key features every
   * head shares (multi-head latent attention's rotary part, else 0); causal
   * masking, and the fused (FlashAttention-style) kernel rather than the
   * unfused softmax path */
  int heads, kv_heads, head_dim, v_head_dim, rope_dim;
  gboolean causal, fused;
  int vocab;               /* embedding: rows of its token table */
  int tied;                /* linear: the embedding layer whose weights it shares
                            * (no parameters of its own), else 0 */
  gboolean fp8;            /* linear: its GEMMs run in FP8 when the run's precision
                            * is fp8 (default TRUE; fp8="false" keeps them in bf16,
                            * as every FP8 recipe keeps a transformer's lm-head) */
  int experts;             /* linear: experts it holds weights for (1: dense; the
                            * tokens it reads are already the router's k copies);
                            * router: experts it scores; else 0 */
  int top_k;               /* router, moe-combine: experts per token; an experts
                            * linear: its router's (set by the loader); else 0 */
  int block;               /* the repeated block it belongs to (a <transformer>'s
                            * layer index, or block= in the file), -1: none; full
                            * recomputation keeps a block's input only */
  /* per sample */
  double params;           /* trainable parameters (batch-norm running stats are not) */
  double macs;             /* forward multiply-accumulates (conv and fc only) */
  double fwd_flops;
  double bwd_data_flops;
  double bwd_weight_flops;
  double in_elems;         /* elements read (all inputs) */
  double out_elems;        /* elements of the output activation */
  double act_elems;        /* elements stored for the backward pass: out_elems,
                            * 0 for views (flatten); for the sequence layers what
                            * autograd saves, their input (dts_layer_keeps_input),
                            * a dropout's mask (1 byte, counted as half an element
                            * of a 16-bit precision), unfused attention's
                            * probabilities */
} DtsLayer;

/* Optional training settings of a workload file; 0 / NULL where unset. */
typedef struct {
  int batch_size;          /* per GPU */
  double dataset_samples;  /* e.g. 1281167 for ImageNet-1k */
  gboolean has_precision;
  DtsPrecision precision;
  char *optimizer;         /* "sgd", "momentum", "adam" */
} DtsTraining;

/* The dimensions of a decoder-only (or, causal = FALSE, encoder) transformer
 * as a <transformer> element gives them; the layers it expands to are in
 * doc/WORKLOADS.md. */
typedef struct {
  int layers, hidden, ffn, heads, kv_heads, head_dim;
  int vocab;               /* as written */
  int padded_vocab;        /* vocab rounded up to a multiple of pad-vocab-to */
  int seq_len, max_positions;
  gboolean swiglu;         /* gated SwiGLU MLP (else GELU) */
  gboolean rmsnorm;        /* RMSNorm (else LayerNorm) */
  gboolean learned_positions; /* learned position embedding (else rotary: no parameters) */
  gboolean tied_embedding; /* the LM head shares the token embedding's weights */
  gboolean bias;           /* linear layers and LayerNorms have biases */
  gboolean causal, fused_attention;
  double dropout;          /* probability of the dropout layers, 0: none */
  int experts;             /* > 1: every layer's MLP is a mixture of experts */
  int top_k;               /* experts per token */
  int moe_ffn;             /* an expert's hidden size (default ffn) */
  int shared_ffn;          /* > 0: the hidden size of the shared experts (all of them,
                            * one MLP) that every token runs beside its k */
  int dense_layers;        /* the first layers with a dense MLP (DeepSeek's 3) */
  /* multi-head latent attention (DeepSeek-V2/V3) when kv_lora > 0: keys and
   * values from a kv_lora-wide latent, queries from a q_lora-wide one (0:
   * straight from the hidden state); head_dim is then the query/key part
   * without positions, rope_head_dim the rotary part (the keys' is one for
   * every head), v_head_dim the value head */
  int q_lora, kv_lora, rope_head_dim, v_head_dim;
} DtsTransformer;

typedef struct {
  char *name;
  char *path;
  DtsShape input;
  GArray *layers;      /* DtsLayer, index 0 is the input layer, topological order */
  DtsTraining training;
  gboolean input_gradient; /* <model input-gradient="true">: layers fed by the model
                            * input compute their data gradient */
  DtsTransformer transformer; /* the <transformer> element the layers came from,
                               * if any (layers == 0 otherwise) */
  /* totals per sample */
  double params;
  double active_params; /* those a token runs through: an experts linear's k of E */
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
/* The same with SEQ_LEN tokens per sample instead of the file's seq-len
 * (0: the file's): `dtsim run --seq-len`. A model that takes images is an
 * error, and so is a sequence longer than a learned position table. */
DtsWorkload *dts_workload_load_seq (const char *path, int seq_len, GError **error);
void dts_workload_free (DtsWorkload *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsWorkload, dts_workload_free)

static inline const DtsLayer *
dts_workload_layer (const DtsWorkload *w, guint i)
{
  return &g_array_index (w->layers, DtsLayer, i);
}

/* What a layer's row says of it (layers.c), for the strategies and cost
 * models: they ask the row rather than switch on the type. */
typedef enum {
  DTS_TP_REPLICATED,   /* every GPU of a tensor-parallel group runs it whole */
  DTS_TP_SPLITTABLE,   /* a GEMM-shaped layer (conv, fc, linear): split by output
                        * channels (column) or input channels (row) as it pairs */
  DTS_TP_CHANNEL_WISE, /* works on split channels between a column and a row split
                        * (relu, pooling, attention by heads, gelu, swiglu) */
  DTS_TP_VOCABULARY,   /* splits the vocabulary (Megatron's vocabulary-parallel layers):
                        * an embedding holds 1/T of the rows and all-reduces its output;
                        * a loss after a column split reads 1/T of the logits */
} DtsTpRole;

DtsTpRole dts_layer_tp_role (const DtsLayer *layer);
/* Of a channel-wise layer's inputs, one of C features that every GPU of a
 * tensor-parallel group reads whole, its producer replicated (the rotary
 * keys latent attention's heads share). */
gboolean dts_layer_tp_input_whole (const DtsLayer *layer, int c);
/* The precision the layer's kernels run in under the run's PRECISION:
 * under fp8 only the GEMMs of linear layers that allow it (fp8) run in
 * FP8 (Transformer Engine's te.Linear and its fused variants); attention,
 * norms, element-wise kernels, the loss and the optimizer run in bf16. */
DtsPrecision dts_layer_precision (const DtsLayer *layer, DtsPrecision precision);
/* The layer overwrites its input's buffer and stores nothing of its own
 * (torch.nn.ReLU(inplace=True), the residual `out += identity`). */
gboolean dts_layer_in_place (const DtsLayer *layer);
/* What the layer keeps for backward (act_elems) is its input (the
 * sequence layers: what autograd saves), not its output (the image layers,
 * as dtsim has always counted them). */
gboolean dts_layer_keeps_input (const DtsLayer *layer);
/* --recompute selective runs the layer's forward again just before its
 * backward and keeps only its input (the core attention). */
gboolean dts_layer_recomputed_selectively (const DtsLayer *layer);
/* A framework may fuse layers of type T into the kernel before them. */
gboolean dts_layer_type_fusable (DtsLayerType t);
/* "relu, relu6, ..." (owned): the fusable type ids, table order. */
char *dts_layer_fusable_ids (void);

/* Model FLOPs of one training step (forward and backward, no
 * recomputation) of one sample, as Megatron-LM counts them for MFU
 * (Narayanan et al. 2021, eq. 3): three times the forward's GEMMs, 2 x the
 * MACs of every conv, fc and linear layer (a tied LM head included) and
 * 4 x seq^2 x heads x head-dim per attention layer, the whole square
 * whatever the mask. For a GPT of l layers, hidden h, vocabulary V:
 * 72 s l h^2 (1 + s / 6h + V / 12 l h). */
double dts_workload_model_flops (const DtsWorkload *w);

/* The workload has a router layer (a mixture of experts). */
gboolean dts_workload_has_experts (const DtsWorkload *w);

/* Optimizer state bytes per parameter (fp32): sgd 0, momentum 4, adam 8;
 * a workload without an optimizer setting is trained with momentum. */
double dts_workload_optimizer_state_bytes_per_param (const DtsWorkload *w);

G_END_DECLS

#endif
