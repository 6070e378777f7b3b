/* layers.c - the layer types of workload files: one table row per type with
 * its attributes, its shape inference and its cost counts.
 *
 * Shapes follow PyTorch (torch.nn) exactly, so that a model written from a
 * torchvision definition has torchvision's shapes:
 *   conv:    out = floor((in + 2*pad - kernel) / stride) + 1
 *   pooling: the same with ceil instead of floor under ceil="true", minus one
 *            when the last window would start in the right padding
 *            (torch.nn.MaxPool2d ceil_mode); pad at most half the kernel;
 *            stride defaults to the kernel size;
 *   adaptive-avgpool: window i spans [floor(i*in/out), ceil((i+1)*in/out)).
 *
 * Cost counts per sample (N: output elements, Ni: input elements):
 *   conv  MACs = N * (C_in/groups) * kh * kw;  params = C_out*(C_in/groups)*kh*kw (+ C_out bias)
 *   fc    MACs = N * C*H*W of the input;       params = out*in (+ out bias)
 *         forward 2*MACs (+N bias adds), data gradient 2*MACs, weight gradient
 *         2*MACs (+N bias-gradient sums).
 *   Every other layer has no MACs; its FLOPs are element operations, counted
 *   as the usual kernels do them (memory traffic dominates their time anyway):
 *   batchnorm   fwd 4/elem (sum x, sum x^2, then one scale and one shift per
 *               element), data gradient 4/elem, weight gradient 3/elem
 *               (sum dy, sum dy*x); params 2 per channel (running statistics
 *               are buffers, not parameters, as in PyTorch)
 *   relu        fwd 1/elem, data gradient 1/elem; relu6 2 and 2
 *   maxpool     fwd kh*kw comparisons per output, data gradient 1 per output
 *   avgpool     fwd kh*kw adds per output, data gradient the same
 *   adaptive-avgpool, global-avgpool: one add per input element read by a
 *               window, both directions
 *   add         fwd (inputs-1)/elem, data gradient 0 (the gradient is passed on)
 *   concat, flatten: 0 (copies and views)
 *   dropout     fwd 2/elem (mask and scale), data gradient 1/elem; 0 when p = 0
 *   softmax-loss fwd 5/elem (max, subtract, exp, sum, divide), data gradient 1/elem
 *   lrn         fwd (2*size + 4)/elem (window sum of squares, scale, power,
 *               divide), data gradient twice that
 *
 * Sequence layers (one sample is one sequence of S tokens, a tensor S x C):
 *   embedding   params vocab*C (+ max-positions*C for learned positions);
 *               forward a gather (+ one add per element for the positions),
 *               no data gradient (token ids), weight gradient one
 *               scatter-add per element (two with learned positions)
 *   linear      torch.nn.Linear on every token: MACs = S * C_in * out,
 *               params out*C_in (+ out bias; none of its own when tied to an
 *               embedding), FLOPs as fc; fp8="false" keeps its GEMMs in
 *               bf16 under an fp8 run
 *   attention   input S x (heads + 2 kv-heads) * d (the QKV projection),
 *               output S x heads * d; MACs = 2 * S^2 * d * heads (Q K^T and
 *               P V over the whole square) times the share a causal fused
 *               kernel runs, (S + 1) / 2S (FlashAttention skips the blocks
 *               above the diagonal; model-FLOP formulas count the whole
 *               square); softmax 5 per score; data gradient 2 x the forward
 *               products (dQ, dK, dV, dP), and the fused kernel recomputes
 *               Q K^T in backward (+1/2 of them)
 *   layernorm   fwd 4/elem, data gradient 4/elem, weight gradient 2/elem
 *               (1 without bias); params 2*C (C without bias)
 *   rmsnorm     fwd 3/elem (sum of squares, scale, weight), data gradient
 *               3/elem, weight gradient 1/elem; params C
 *   gelu        fwd 8/elem (tanh form), data gradient 12/elem
 *   swiglu      input S x 2F, output S x F: silu(a) * b, fwd 5 per output
 *               element, data gradient 8
 *   cross-entropy  softmax and loss over the last axis of every token, as
 *               softmax-loss: fwd 5/elem, data gradient 1/elem
 *
 * Mixture of experts (balanced routing: every expert gets S k / E tokens,
 * none dropped, as NVIDIA's published MoE tables force it):
 *   router      input S x C, output S k x C (every token copied to its k
 *               experts, grouped by expert); params C E (no bias); MACs
 *               S C E (the gate GEMM), softmax and top-k 5 per score;
 *               data gradient 2 x MACs + 1 per output element (the copies
 *               summed back), weight gradient 2 x MACs
 *   linear with experts=E: E weight matrices; the tokens it reads are the
 *               router's S k, so MACs = S k C_in out (k experts per token,
 *               as one grouped GEMM); params E (out C_in + out bias)
 *   moe-combine input S k x C, output S x C: each token's k outputs scaled
 *               by their gates and summed, fwd 2 per input element, data
 *               gradient 3 (the outputs' and the gates' gradients) */
#include "config.h"

#include <string.h>

#include "core/error.h"
#include "core/xml.h"
#include "workload/workload-private.h"

/* --- attribute readers shared by the rows ------------------------------------ */

static gboolean
parse_conv (const DtsWlCtx *ctx, DtsLayer *layer, DtsLayerArgs *args, GError **error)
{
  layer->stride_h = layer->stride_w = 1;
  layer->groups = 1;
  layer->has_bias = TRUE; /* torch.nn.Conv2d's default */
  return dts_wl_attr_int (ctx, "out", TRUE, 1, &args->out, error)
         && dts_wl_attr_pair (ctx, "kernel", TRUE, 1, &layer->kernel_h, &layer->kernel_w, error)
         && dts_wl_attr_pair (ctx, "stride", FALSE, 1, &layer->stride_h, &layer->stride_w, error)
         && dts_wl_attr_pair (ctx, "pad", FALSE, 0, &layer->pad_h, &layer->pad_w, error)
         && dts_wl_attr_int (ctx, "groups", FALSE, 1, &layer->groups, error)
         && dts_wl_attr_bool (ctx, "bias", &layer->has_bias, error);
}

static gboolean
parse_fc (const DtsWlCtx *ctx, DtsLayer *layer, DtsLayerArgs *args, GError **error)
{
  layer->has_bias = TRUE; /* torch.nn.Linear's default */
  return dts_wl_attr_int (ctx, "out", TRUE, 1, &args->out, error)
         && dts_wl_attr_bool (ctx, "bias", &layer->has_bias, error);
}

static gboolean
parse_pool (const DtsWlCtx *ctx, DtsLayer *layer, DtsLayerArgs *args, GError **error)
{
  if (!dts_wl_attr_pair (ctx, "kernel", TRUE, 1, &layer->kernel_h, &layer->kernel_w, error))
    return FALSE;
  /* torch.nn.MaxPool2d / AvgPool2d: the stride defaults to the kernel size. */
  layer->stride_h = layer->kernel_h;
  layer->stride_w = layer->kernel_w;
  if (!dts_wl_attr_pair (ctx, "stride", FALSE, 1, &layer->stride_h, &layer->stride_w, error)
      || !dts_wl_attr_pair (ctx, "pad", FALSE, 0, &layer->pad_h, &layer->pad_w, error)
      || !dts_wl_attr_bool (ctx, "ceil", &args->ceil_mode, error))
    return FALSE;
  if (2 * (gint64) layer->pad_h > layer->kernel_h || 2 * (gint64) layer->pad_w > layer->kernel_w) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "pad %dx%d is more than half the kernel %dx%d (as in PyTorch)", layer->pad_h,
                  layer->pad_w, layer->kernel_h, layer->kernel_w);
    return FALSE;
  }
  return TRUE;
}

static gboolean
parse_adaptive (const DtsWlCtx *ctx, DtsLayer *layer, DtsLayerArgs *args, GError **error)
{
  (void) layer;
  return dts_wl_attr_pair (ctx, "out", TRUE, 1, &args->out_h, &args->out_w, error);
}

static gboolean
parse_dropout (const DtsWlCtx *ctx, DtsLayer *layer, DtsLayerArgs *args, GError **error)
{
  (void) layer;
  args->p = 0.5; /* torch.nn.Dropout's default */
  if (!dts_wl_attr_double (ctx, "p", 0.0, &args->p, error))
    return FALSE;
  if (args->p >= 1.0) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "attribute 'p' must be below 1 (a drop probability), got %g", args->p);
    return FALSE;
  }
  return TRUE;
}

static gboolean
parse_lrn (const DtsWlCtx *ctx, DtsLayer *layer, DtsLayerArgs *args, GError **error)
{
  (void) layer;
  args->size = 5;
  /* alpha, beta and k change values, not costs: they are validated only. */
  double alpha = 1e-4, beta = 0.75, k = 1.0;
  return dts_wl_attr_int (ctx, "size", FALSE, 1, &args->size, error)
         && dts_wl_attr_double (ctx, "alpha", 0.0, &alpha, error)
         && dts_wl_attr_double (ctx, "beta", 0.0, &beta, error)
         && dts_wl_attr_double (ctx, "k", 0.0, &k, error);
}

static gboolean
parse_embedding (const DtsWlCtx *ctx, DtsLayer *layer, DtsLayerArgs *args, GError **error)
{
  (void) layer;
  return dts_wl_attr_int (ctx, "vocab", TRUE, 1, &args->vocab, error)
         && dts_wl_attr_int (ctx, "out", TRUE, 1, &args->out, error)
         && dts_wl_attr_int (ctx, "max-positions", FALSE, 1, &args->max_positions, error);
}

static gboolean
parse_layernorm (const DtsWlCtx *ctx, DtsLayer *layer, DtsLayerArgs *args, GError **error)
{
  (void) args;
  layer->has_bias = TRUE; /* torch.nn.LayerNorm's default */
  return dts_wl_attr_bool (ctx, "bias", &layer->has_bias, error);
}

/* The most experts a layer may hold: a bound against absurd files
 * (DeepSeek-V3 has 256 routed experts, the largest published count). */
#define MAX_EXPERTS 65536

static gboolean
parse_experts (const DtsWlCtx *ctx, const char *attr, gboolean required, int *out,
               GError **error)
{
  if (!dts_wl_attr_int (ctx, attr, required, 1, out, error))
    return FALSE;
  if (*out > MAX_EXPERTS) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID, "attribute '%s': %d experts is more than %d",
                  attr, *out, MAX_EXPERTS);
    return FALSE;
  }
  return TRUE;
}

static gboolean
parse_linear (const DtsWlCtx *ctx, DtsLayer *layer, DtsLayerArgs *args, GError **error)
{
  layer->experts = 1;
  layer->fp8 = TRUE;
  if (!parse_fc (ctx, layer, args, error)
      || !parse_experts (ctx, "experts", FALSE, &layer->experts, error)
      || !dts_wl_attr_bool (ctx, "fp8", &layer->fp8, error))
    return FALSE;
  /* 'tied' names an embedding: the reader resolves it after the shapes */
  args->tied = dts_xml_get_attr (ctx->node, "tied");
  if (args->tied != NULL && layer->experts > 1) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "attributes 'tied' and 'experts': a layer tied to an embedding's table has "
                  "one weight matrix, not one per expert");
    g_clear_pointer (&args->tied, g_free);
    return FALSE;
  }
  return TRUE;
}

static gboolean
parse_router (const DtsWlCtx *ctx, DtsLayer *layer, DtsLayerArgs *args, GError **error)
{
  (void) args;
  if (!parse_experts (ctx, "experts", TRUE, &layer->experts, error)
      || !dts_wl_attr_int (ctx, "top-k", TRUE, 1, &layer->top_k, error))
    return FALSE;
  if (layer->top_k > layer->experts) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "attribute 'top-k': %d experts per token, but there are %d experts",
                  layer->top_k, layer->experts);
    return FALSE;
  }
  return TRUE;
}

static gboolean
parse_moe_combine (const DtsWlCtx *ctx, DtsLayer *layer, DtsLayerArgs *args, GError **error)
{
  (void) args;
  return parse_experts (ctx, "top-k", TRUE, &layer->top_k, error);
}

static gboolean
parse_attention (const DtsWlCtx *ctx, DtsLayer *layer, DtsLayerArgs *args, GError **error)
{
  layer->causal = TRUE;
  layer->fused = TRUE;
  if (!dts_wl_attr_int (ctx, "heads", TRUE, 1, &layer->heads, error))
    return FALSE;
  layer->kv_heads = layer->heads;
  if (!dts_wl_attr_int (ctx, "kv-heads", FALSE, 1, &layer->kv_heads, error)
      || !dts_wl_attr_int (ctx, "head-dim", FALSE, 1, &layer->head_dim, error)
      || !dts_wl_attr_int (ctx, "v-head-dim", FALSE, 1, &layer->v_head_dim, error)
      || !dts_wl_attr_int (ctx, "rope-dim", FALSE, 1, &layer->rope_dim, error)
      || !dts_wl_attr_bool (ctx, "causal", &layer->causal, error)
      || !dts_wl_attr_bool (ctx, "fused", &layer->fused, error)
      || !dts_wl_attr_double (ctx, "dropout", 0.0, &args->p, error))
    return FALSE;
  if (args->p >= 1.0) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "attribute 'dropout' must be below 1 (a drop probability), got %g", args->p);
    return FALSE;
  }
  if (layer->heads % layer->kv_heads != 0) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "kv-heads %d must divide heads %d (each key/value head serves a group of "
                  "query heads)",
                  layer->kv_heads, layer->heads);
    return FALSE;
  }
  if (layer->head_dim == 0 && (layer->v_head_dim > 0 || layer->rope_dim > 0)) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "attribute '%s' needs head-dim (the features of a query and key head)",
                  layer->v_head_dim > 0 ? "v-head-dim" : "rope-dim");
    return FALSE;
  }
  if (layer->rope_dim >= layer->head_dim && layer->rope_dim > 0) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "rope-dim %d must be less than head-dim %d (the shared key features are "
                  "part of every head's)",
                  layer->rope_dim, layer->head_dim);
    return FALSE;
  }
  return TRUE;
}

static gboolean
parse_none (const DtsWlCtx *ctx, DtsLayer *layer, DtsLayerArgs *args, GError **error)
{
  (void) ctx, (void) layer, (void) args, (void) error;
  return TRUE;
}

/* --- shape and cost inference ------------------------------------------------ */

/* Output size of a sliding window along one dimension, PyTorch's rule
 * (64-bit arithmetic: sizes come from files and may be absurd). */
static gboolean
window_dim (const DtsWlCtx *ctx, const char *what, int in, int k, int s, int p,
            gboolean ceil_mode, int *out, GError **error)
{
  gint64 span = (gint64) in + 2 * (gint64) p - k;
  if (span < 0) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "%s window %d does not fit the input size %d with pad %d "
                  "(the output would be empty)",
                  what, k, in, p);
    return FALSE;
  }
  gint64 o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  /* PyTorch: the last window must start inside the input or the left padding. */
  if (ceil_mode && (o - 1) * s >= (gint64) in + p)
    o--;
  if (o > G_MAXINT) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID, "output size %" G_GINT64_FORMAT " is too large",
                  o);
    return FALSE;
  }
  *out = (int) o;
  return TRUE;
}

static gboolean
infer_input (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
             DtsLayer *layer, GError **error)
{
  (void) ctx, (void) in, (void) n_in, (void) args, (void) layer, (void) error;
  return TRUE;
}

static gboolean
infer_conv (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
            DtsLayer *layer, GError **error)
{
  (void) n_in;
  int g = layer->groups;
  if (in->c % g != 0 || args->out % g != 0) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "groups %d must divide both the input channels (%d) and 'out' (%d)", g,
                  in->c, args->out);
    return FALSE;
  }
  DtsShape o = { args->out, 0, 0, 0 };
  if (!window_dim (ctx, "kernel", in->h, layer->kernel_h, layer->stride_h, layer->pad_h, FALSE,
                   &o.h, error)
      || !window_dim (ctx, "kernel", in->w, layer->kernel_w, layer->stride_w, layer->pad_w,
                      FALSE, &o.w, error))
    return FALSE;
  double weights = (double) args->out * (in->c / g) * layer->kernel_h * layer->kernel_w;
  double n = dts_shape_elems (o);
  double bias = layer->has_bias ? n : 0.0;
  layer->out_shape = o;
  layer->params = weights + (layer->has_bias ? args->out : 0);
  layer->macs = n * (in->c / g) * layer->kernel_h * layer->kernel_w;
  layer->fwd_flops = 2.0 * layer->macs + bias;
  layer->bwd_data_flops = 2.0 * layer->macs;
  layer->bwd_weight_flops = 2.0 * layer->macs + bias;
  return TRUE;
}

static gboolean
infer_fc (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
          DtsLayer *layer, GError **error)
{
  (void) ctx, (void) n_in, (void) error;
  double in_f = dts_shape_elems (*in);
  double bias = layer->has_bias ? args->out : 0.0;
  layer->out_shape = (DtsShape){ args->out, 1, 1, 0 };
  layer->params = in_f * args->out + bias;
  layer->macs = in_f * args->out;
  layer->fwd_flops = 2.0 * layer->macs + bias;
  layer->bwd_data_flops = 2.0 * layer->macs;
  layer->bwd_weight_flops = 2.0 * layer->macs + bias;
  return TRUE;
}

static gboolean
infer_pool (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
            DtsLayer *layer, GError **error)
{
  (void) n_in;
  DtsShape o = { in->c, 0, 0, 0 };
  if (!window_dim (ctx, "pooling", in->h, layer->kernel_h, layer->stride_h, layer->pad_h,
                   args->ceil_mode, &o.h, error)
      || !window_dim (ctx, "pooling", in->w, layer->kernel_w, layer->stride_w, layer->pad_w,
                      args->ceil_mode, &o.w, error))
    return FALSE;
  double n = dts_shape_elems (o);
  double window = (double) layer->kernel_h * layer->kernel_w;
  layer->out_shape = o;
  layer->fwd_flops = n * window;
  layer->bwd_data_flops = layer->type == DTS_LAYER_MAXPOOL ? n : n * window;
  return TRUE;
}

/* Input elements that adaptive windows read along one dimension: the sum
 * over i < OUT of ceil((i+1) IN / OUT) - floor(i IN / OUT). The floors
 * telescope to IN; each ceil exceeds its floor by one unless OUT divides
 * (i+1) IN, which happens gcd(IN, OUT) times. So IN + OUT - gcd(IN, OUT),
 * in closed form because OUT may be up to 2^31 - 1. */
static double
adaptive_span (int in, int out)
{
  gint64 a = in, b = out;
  while (b != 0) {
    gint64 t = a % b;
    a = b;
    b = t;
  }
  return (double) in + (double) out - (double) a;
}

static gboolean
infer_adaptive (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
                DtsLayer *layer, GError **error)
{
  (void) ctx, (void) n_in, (void) error;
  layer->out_shape = (DtsShape){ in->c, args->out_h, args->out_w, 0 };
  double reads = in->c * adaptive_span (in->h, args->out_h) * adaptive_span (in->w, args->out_w);
  layer->fwd_flops = reads;
  layer->bwd_data_flops = reads;
  return TRUE;
}

static gboolean
infer_global_avgpool (const DtsWlCtx *ctx, const DtsShape *in, int n_in,
                      const DtsLayerArgs *args, DtsLayer *layer, GError **error)
{
  (void) ctx, (void) n_in, (void) args, (void) error;
  layer->out_shape = (DtsShape){ in->c, 1, 1, 0 };
  layer->kernel_h = in->h;
  layer->kernel_w = in->w;
  layer->fwd_flops = dts_shape_elems (*in);
  layer->bwd_data_flops = dts_shape_elems (*in);
  return TRUE;
}

/* Element-wise layers: the output has the input's shape. */
static void
elementwise (DtsLayer *layer, const DtsShape *in, double fwd_per_elem, double bwd_per_elem)
{
  double n = dts_shape_elems (*in);
  layer->out_shape = *in;
  layer->fwd_flops = fwd_per_elem * n;
  layer->bwd_data_flops = bwd_per_elem * n;
}

static gboolean
infer_batchnorm (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
                 DtsLayer *layer, GError **error)
{
  (void) ctx, (void) n_in, (void) args, (void) error;
  elementwise (layer, in, 4.0, 4.0);
  layer->bwd_weight_flops = 3.0 * dts_shape_elems (*in);
  layer->params = 2.0 * in->c;
  return TRUE;
}

static gboolean
infer_relu (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
            DtsLayer *layer, GError **error)
{
  (void) ctx, (void) n_in, (void) args, (void) error;
  elementwise (layer, in, 1.0, 1.0);
  return TRUE;
}

static gboolean
infer_relu6 (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
             DtsLayer *layer, GError **error)
{
  (void) ctx, (void) n_in, (void) args, (void) error;
  elementwise (layer, in, 2.0, 2.0);
  return TRUE;
}

static gboolean
infer_dropout (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
               DtsLayer *layer, GError **error)
{
  (void) ctx, (void) n_in, (void) error;
  if (args->p > 0)
    elementwise (layer, in, 2.0, 1.0);
  else
    elementwise (layer, in, 0.0, 0.0);
  /* on a sequence, what backward needs is the mask (1 byte an element: half
   * an element of a 16-bit precision); on images, as always, the output */
  if (in->seq > 0)
    layer->act_elems = args->p > 0 ? 0.5 * dts_shape_elems (*in) : 0.0;
  return TRUE;
}

static gboolean
infer_lrn (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
           DtsLayer *layer, GError **error)
{
  (void) ctx, (void) n_in, (void) error;
  double per_elem = 2.0 * args->size + 4.0;
  elementwise (layer, in, per_elem, 2.0 * per_elem);
  return TRUE;
}

/* A flat view of IN, which must fit the int of DtsShape. */
static gboolean
flat_shape (const DtsWlCtx *ctx, const DtsShape *in, DtsShape *out, GError **error)
{
  if (dts_shape_elems (*in) > G_MAXINT) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID, "%.0f features do not fit an int",
                  dts_shape_elems (*in));
    return FALSE;
  }
  *out = (DtsShape){ (int) dts_shape_elems (*in), 1, 1, 0 };
  return TRUE;
}

static gboolean
infer_softmax_loss (const DtsWlCtx *ctx, const DtsShape *in, int n_in,
                    const DtsLayerArgs *args, DtsLayer *layer, GError **error)
{
  (void) n_in, (void) args;
  /* The output kept is the class probabilities (what the gradient needs);
   * the scalar loss itself is negligible. */
  DtsShape flat;
  if (!flat_shape (ctx, in, &flat, error))
    return FALSE;
  elementwise (layer, &flat, 5.0, 1.0);
  return TRUE;
}

static gboolean
infer_flatten (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
               DtsLayer *layer, GError **error)
{
  (void) n_in, (void) args;
  return flat_shape (ctx, in, &layer->out_shape, error);
}

static gboolean
infer_add (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
           DtsLayer *layer, GError **error)
{
  (void) args;
  for (int i = 1; i < n_in; i++) {
    if (in[i].c != in[0].c || in[i].h != in[0].h || in[i].w != in[0].w
        || in[i].seq != in[0].seq) {
      g_autofree char *a = dts_shape_to_string (in[0]);
      g_autofree char *b = dts_shape_to_string (in[i]);
      dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                    "input '%s' has shape %s but input '%s' has %s (add needs equal shapes)",
                    ctx->inputs[i], b, ctx->inputs[0], a);
      return FALSE;
    }
  }
  layer->out_shape = in[0];
  layer->fwd_flops = (n_in - 1) * dts_shape_elems (in[0]);
  layer->bwd_data_flops = 0.0;
  return TRUE;
}

static gboolean
infer_concat (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
              DtsLayer *layer, GError **error)
{
  (void) args;
  DtsShape o = in[0];
  for (int i = 1; i < n_in; i++) {
    if (in[i].h != in[0].h || in[i].w != in[0].w || in[i].seq != in[0].seq) {
      g_autofree char *a = dts_shape_to_string (in[0]);
      g_autofree char *b = dts_shape_to_string (in[i]);
      dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                    "input '%s' has shape %s but input '%s' has %s (concat joins channels "
                    "and needs equal height and width)",
                    ctx->inputs[i], b, ctx->inputs[0], a);
      return FALSE;
    }
    if ((double) o.c + in[i].c > G_MAXINT) {
      dts_wl_error (ctx, error, DTS_ERROR_INVALID, "concatenated channels exceed %d",
                    G_MAXINT);
      return FALSE;
    }
    o.c += in[i].c;
  }
  layer->out_shape = o;
  return TRUE;
}

/* Token layers: the output is a sequence of the input's length. */
static DtsShape
tokens (const DtsShape *in, int c)
{
  return (DtsShape){ c, 1, 1, in->seq };
}

static gboolean
infer_embedding (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
                 DtsLayer *layer, GError **error)
{
  (void) n_in;
  if (in->c != 1) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "an embedding reads token ids (a sequence of 1 feature), got %d features", in->c);
    return FALSE;
  }
  if (args->max_positions > 0 && args->max_positions < in->seq) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "max-positions %d is shorter than the sequence (%d tokens)",
                  args->max_positions, in->seq);
    return FALSE;
  }
  double n = (double) in->seq * args->out;
  int tables = args->max_positions > 0 ? 2 : 1;
  layer->vocab = args->vocab;
  layer->out_shape = tokens (in, args->out);
  layer->params = ((double) args->vocab + args->max_positions) * args->out;
  layer->fwd_flops = (tables - 1) * n;
  layer->bwd_weight_flops = tables * n;
  return TRUE;
}

static gboolean
infer_linear (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
              DtsLayer *layer, GError **error)
{
  (void) ctx, (void) n_in, (void) error;
  double n = (double) in->seq * args->out;
  double bias = layer->has_bias ? n : 0.0;
  layer->out_shape = tokens (in, args->out);
  layer->params
      = layer->experts * ((double) in->c * args->out + (layer->has_bias ? args->out : 0));
  layer->macs = n * in->c;
  layer->fwd_flops = 2.0 * layer->macs + bias;
  layer->bwd_data_flops = 2.0 * layer->macs;
  layer->bwd_weight_flops = 2.0 * layer->macs + bias;
  return TRUE;
}

/* The features attention reads, all inputs together: every query head's
 * head-dim, every key head's less the rope-dim shared ones (once), every
 * value head's v-head-dim. */
static double
attention_in_features (const DtsLayer *l)
{
  return (double) l->heads * l->head_dim + (double) l->kv_heads * (l->head_dim - l->rope_dim)
         + l->rope_dim + (double) l->kv_heads * l->v_head_dim;
}

static gboolean
infer_attention (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
                 DtsLayer *layer, GError **error)
{
  double c = 0.0;
  for (int i = 0; i < n_in; i++) {
    if (in[i].seq != in[0].seq) {
      dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                    "input '%s' has %d tokens but input '%s' has %d (attention reads one "
                    "sequence)",
                    ctx->inputs[i], in[i].seq, ctx->inputs[0], in[0].seq);
      return FALSE;
    }
    c += in[i].c;
  }
  if (layer->head_dim == 0) {
    int groups = layer->heads + 2 * layer->kv_heads;
    if (n_in > 1 || in->c % groups != 0) {
      dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                    "the input's %.0f features are not heads + 2 kv-heads = %d heads of equal "
                    "size (the QKV projection's output; give head-dim otherwise)",
                    c, groups);
      return FALSE;
    }
    layer->head_dim = in->c / groups;
  }
  if (layer->v_head_dim == 0)
    layer->v_head_dim = layer->head_dim;
  if (c != attention_in_features (layer)) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "the inputs' %.0f features are not the %.0f of %d query heads and %d key "
                  "heads of %d (%d of them shared by every head), %d value heads of %d",
                  c, attention_in_features (layer), layer->heads, layer->kv_heads,
                  layer->head_dim, layer->rope_dim, layer->kv_heads, layer->v_head_dim);
    return FALSE;
  }
  if ((double) layer->heads * layer->v_head_dim > G_MAXINT) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID, "heads x v-head-dim does not fit an int");
    return FALSE;
  }
  double s = in->seq;
  double scores = s * s * layer->heads;
  layer->out_shape = tokens (in, layer->heads * layer->v_head_dim);
  /* The products a fused causal kernel runs: the blocks on and below the
   * diagonal, (s + 1) / 2s of the square (FlashAttention skips the rest);
   * the unfused path computes the whole square and masks it. Q K^T is
   * head-dim deep, the product with V v-head-dim. */
  double share = layer->fused && layer->causal ? (s + 1.0) / (2.0 * s) : 1.0;
  layer->macs = scores * ((double) layer->head_dim + layer->v_head_dim) * share;
  double gemm = 2.0 * layer->macs;
  layer->fwd_flops = gemm + 5.0 * scores * share;
  layer->bwd_data_flops = 2.0 * gemm + (layer->fused ? gemm / 2.0 : 0.0) + 2.0 * scores * share;
  /* kept for backward: Q, K and V (its inputs; its output is the output
   * projection's input, kept there), and unfused, the probabilities and,
   * with dropout, its mask (1 byte: half a 16-bit element) and output
   * (Korthikanti et al. 2022: 5 a s^2 b bytes); the fused kernel keeps one
   * softmax statistic per row and draws its mask again */
  double probs = layer->fused ? 0.0 : scores * (args->p > 0 ? 2.5 : 1.0);
  layer->act_elems = s * c + probs;
  return TRUE;
}

static gboolean
infer_layernorm (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
                 DtsLayer *layer, GError **error)
{
  (void) ctx, (void) n_in, (void) args, (void) error;
  elementwise (layer, in, 4.0, 4.0);
  layer->bwd_weight_flops = (layer->has_bias ? 2.0 : 1.0) * dts_shape_elems (*in);
  layer->params = (layer->has_bias ? 2.0 : 1.0) * in->c;
  return TRUE;
}

static gboolean
infer_rmsnorm (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
               DtsLayer *layer, GError **error)
{
  (void) ctx, (void) n_in, (void) args, (void) error;
  elementwise (layer, in, 3.0, 3.0);
  layer->bwd_weight_flops = dts_shape_elems (*in);
  layer->params = in->c;
  return TRUE;
}

static gboolean
infer_gelu (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
            DtsLayer *layer, GError **error)
{
  (void) ctx, (void) n_in, (void) args, (void) error;
  elementwise (layer, in, 8.0, 12.0);
  return TRUE;
}

static gboolean
infer_swiglu (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
              DtsLayer *layer, GError **error)
{
  (void) n_in, (void) args;
  if (in->c % 2 != 0) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "swiglu reads a gated pair: the input's features (%d) must be even", in->c);
    return FALSE;
  }
  layer->out_shape = tokens (in, in->c / 2);
  double n = dts_shape_elems (layer->out_shape);
  layer->fwd_flops = 5.0 * n;
  layer->bwd_data_flops = 8.0 * n;
  return TRUE;
}

static gboolean
infer_router (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
              DtsLayer *layer, GError **error)
{
  (void) n_in, (void) args;
  double copies = (double) in->seq * layer->top_k;
  if (copies > G_MAXINT) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "%d tokens x top-k %d copies does not fit an int", in->seq, layer->top_k);
    return FALSE;
  }
  layer->out_shape = tokens (in, in->c);
  layer->out_shape.seq = (int) copies;
  double scores = (double) in->seq * layer->experts;
  layer->params = (double) in->c * layer->experts;
  layer->macs = scores * in->c;
  layer->fwd_flops = 2.0 * layer->macs + 5.0 * scores;
  layer->bwd_data_flops = 2.0 * layer->macs + copies * in->c;
  layer->bwd_weight_flops = 2.0 * layer->macs;
  return TRUE;
}

static gboolean
infer_moe_combine (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
                   DtsLayer *layer, GError **error)
{
  (void) n_in, (void) args;
  if (in->seq % layer->top_k != 0) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "the input's %d tokens are not top-k %d copies of a sequence (a router's "
                  "output)",
                  in->seq, layer->top_k);
    return FALSE;
  }
  layer->out_shape = tokens (in, in->c);
  layer->out_shape.seq = in->seq / layer->top_k;
  double n = dts_shape_elems (*in);
  layer->fwd_flops = 2.0 * n;
  layer->bwd_data_flops = 3.0 * n;
  return TRUE;
}

static gboolean
infer_cross_entropy (const DtsWlCtx *ctx, const DtsShape *in, int n_in,
                     const DtsLayerArgs *args, DtsLayer *layer, GError **error)
{
  (void) ctx, (void) n_in, (void) args, (void) error;
  elementwise (layer, in, 5.0, 1.0);
  return TRUE;
}

/* --- the table ----------------------------------------------------------------- */

static const char *const conv_attrs[] = { "out", "kernel", "stride", "pad", "groups", "bias",
                                          NULL };
static const char *const fc_attrs[] = { "out", "bias", NULL };
static const char *const pool_attrs[] = { "kernel", "stride", "pad", "ceil", NULL };
static const char *const adaptive_attrs[] = { "out", NULL };
static const char *const dropout_attrs[] = { "p", NULL };
static const char *const lrn_attrs[] = { "size", "alpha", "beta", "k", NULL };
static const char *const embedding_attrs[] = { "vocab", "out", "max-positions", NULL };
static const char *const norm_attrs[] = { "bias", NULL };
static const char *const linear_attrs[] = { "out", "bias", "tied", "experts", "fp8", NULL };
static const char *const router_attrs[] = { "experts", "top-k", NULL };
static const char *const combine_attrs[] = { "top-k", NULL };
static const char *const attention_attrs[] = { "heads", "kv-heads", "head-dim", "v-head-dim",
                                               "rope-dim", "causal", "fused", "dropout", NULL };
static const char *const no_attrs[] = { NULL };

/* A grouped convolution is not one GEMM: it cannot split as a pair. */
static DtsTpRole
tp_of_conv (const DtsLayer *l)
{
  return l->groups > 1 ? DTS_TP_REPLICATED : DTS_TP_SPLITTABLE;
}

/* Latent attention's rotary keys, rope-dim features every head shares:
 * each GPU of a tensor-parallel group reads them whole. */
static gboolean
attention_input_whole (const DtsLayer *l, int c)
{
  return l->rope_dim > 0 && c == l->rope_dim;
}

/* Two FLOPs per multiply-accumulate of the layer's GEMM (or convolution). */
static double
model_flops_macs (const DtsLayer *l)
{
  return 2.0 * l->macs;
}

/* The attention scores and their product with the values: 2 x 2 s^2 per
 * head and head dimension, the causal mask not discounted (Megatron-LM's
 * count: Narayanan et al. 2021, appendix); 2 s^2 (head-dim + v-head-dim)
 * per head where they differ. */
static double
model_flops_attention (const DtsLayer *l)
{
  return 2.0 * (double) l->in_shape.seq * l->in_shape.seq * l->heads
         * ((double) l->head_dim + l->v_head_dim);
}

/* Rows in DtsLayerType order (asserted by dts_layer_class_get). */
static const DtsLayerClass classes[] = {
  { .id = "input", .type = DTS_LAYER_INPUT,
    .description = "the model input (implicit, named 'input')",
    .in_files = FALSE, .min_inputs = 0, .max_inputs = 0, .may_be_output = FALSE, .view = FALSE,
    .attrs = no_attrs, .parse = parse_none, .infer = infer_input,
    .work = dts_layer_work_none },
  { .id = "conv", .type = DTS_LAYER_CONV,
    .description = "2-D convolution; groups for grouped and depthwise",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = conv_attrs, .parse = parse_conv, .infer = infer_conv,
    .tp = DTS_TP_SPLITTABLE, .tp_of = tp_of_conv, .takes = DTS_TAKES_IMAGES,
    .work = dts_layer_work_conv, .model_flops = model_flops_macs },
  { .id = "fc", .type = DTS_LAYER_FC,
    .description = "fully connected; reads its input as a flat vector",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = fc_attrs, .parse = parse_fc, .infer = infer_fc,
    .tp = DTS_TP_SPLITTABLE, .takes = DTS_TAKES_IMAGES,
    .work = dts_layer_work_fc, .model_flops = model_flops_macs },
  { .id = "maxpool", .type = DTS_LAYER_MAXPOOL,
    .description = "max pooling",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = pool_attrs, .parse = parse_pool, .infer = infer_pool,
    .tp = DTS_TP_CHANNEL_WISE, .takes = DTS_TAKES_IMAGES },
  { .id = "avgpool", .type = DTS_LAYER_AVGPOOL,
    .description = "average pooling (padding counted, as PyTorch's default)",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = pool_attrs, .parse = parse_pool, .infer = infer_pool,
    .tp = DTS_TP_CHANNEL_WISE, .takes = DTS_TAKES_IMAGES },
  { .id = "global-avgpool", .type = DTS_LAYER_GLOBAL_AVGPOOL,
    .description = "average over height and width: CxHxW to C",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = no_attrs, .parse = parse_none, .infer = infer_global_avgpool,
    .tp = DTS_TP_CHANNEL_WISE, .takes = DTS_TAKES_IMAGES },
  { .id = "batchnorm", .type = DTS_LAYER_BATCHNORM,
    .description = "batch normalisation: 2 parameters per channel",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = no_attrs, .parse = parse_none, .infer = infer_batchnorm,
    .fusable = TRUE, .tp = DTS_TP_CHANNEL_WISE, .takes = DTS_TAKES_IMAGES,
    .work = dts_layer_work_batchnorm },
  { .id = "relu", .type = DTS_LAYER_RELU,
    .description = "max(x, 0)",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = no_attrs, .parse = parse_none, .infer = infer_relu,
    .in_place = TRUE, .fusable = TRUE, .tp = DTS_TP_CHANNEL_WISE },
  { .id = "add", .type = DTS_LAYER_ADD,
    .description = "element-wise sum of equal shapes (residual connections)",
    .in_files = TRUE, .min_inputs = 2, .max_inputs = -1, .may_be_output = FALSE, .view = FALSE,
    .attrs = no_attrs, .parse = parse_none, .infer = infer_add,
    .in_place = TRUE, .fusable = TRUE },
  { .id = "concat", .type = DTS_LAYER_CONCAT,
    .description = "channel concatenation; equal height and width",
    .in_files = TRUE, .min_inputs = 2, .max_inputs = -1, .may_be_output = FALSE, .view = FALSE,
    .attrs = no_attrs, .parse = parse_none, .infer = infer_concat,
    .work = dts_layer_work_concat },
  { .id = "dropout", .type = DTS_LAYER_DROPOUT,
    .description = "zero elements with probability p (default 0.5)",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = dropout_attrs, .parse = parse_dropout, .infer = infer_dropout,
    .fusable = TRUE, .tp = DTS_TP_CHANNEL_WISE },
  { .id = "flatten", .type = DTS_LAYER_FLATTEN,
    .description = "view CxHxW as a vector of C*H*W features",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = TRUE,
    .attrs = no_attrs, .parse = parse_none, .infer = infer_flatten,
    .tp = DTS_TP_CHANNEL_WISE, .takes = DTS_TAKES_IMAGES,
    .work = dts_layer_work_none },
  { .id = "softmax-loss", .type = DTS_LAYER_SOFTMAX_LOSS,
    .description = "softmax and cross-entropy loss over a vector",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = TRUE, .view = FALSE,
    .attrs = no_attrs, .parse = parse_none, .infer = infer_softmax_loss,
    .takes = DTS_TAKES_IMAGES },
  { .id = "lrn", .type = DTS_LAYER_LRN,
    .description = "local response normalisation across size channels",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = lrn_attrs, .parse = parse_lrn, .infer = infer_lrn,
    .takes = DTS_TAKES_IMAGES },
  { .id = "adaptive-avgpool", .type = DTS_LAYER_ADAPTIVE_AVGPOOL,
    .description = "average pooling to a given output size",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = adaptive_attrs, .parse = parse_adaptive, .infer = infer_adaptive,
    .tp = DTS_TP_CHANNEL_WISE, .takes = DTS_TAKES_IMAGES },
  { .id = "relu6", .type = DTS_LAYER_RELU6,
    .description = "min(max(x, 0), 6)",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = no_attrs, .parse = parse_none, .infer = infer_relu6,
    .in_place = TRUE, .fusable = TRUE, .tp = DTS_TP_CHANNEL_WISE },
  { .id = "embedding", .type = DTS_LAYER_EMBEDDING,
    .description = "token embedding of a vocabulary (+ learned positions with max-positions)",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = embedding_attrs, .parse = parse_embedding, .infer = infer_embedding,
    .takes = DTS_TAKES_TOKENS, .tp = DTS_TP_VOCABULARY,
    .work = dts_layer_work_embedding, .keeps_input = TRUE },
  { .id = "layernorm", .type = DTS_LAYER_LAYERNORM,
    .description = "layer normalisation over every token's features",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = norm_attrs, .parse = parse_layernorm, .infer = infer_layernorm,
    .takes = DTS_TAKES_TOKENS, .keeps_input = TRUE },
  { .id = "rmsnorm", .type = DTS_LAYER_RMSNORM,
    .description = "root-mean-square normalisation over every token's features",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = no_attrs, .parse = parse_none, .infer = infer_rmsnorm,
    .takes = DTS_TAKES_TOKENS, .keeps_input = TRUE },
  { .id = "linear", .type = DTS_LAYER_LINEAR,
    .description = "fully connected on every token (torch.nn.Linear on the last axis)",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = linear_attrs, .parse = parse_linear, .infer = infer_linear,
    .takes = DTS_TAKES_TOKENS, .tp = DTS_TP_SPLITTABLE,
    .work = dts_layer_work_linear, .keeps_input = TRUE, .model_flops = model_flops_macs },
  { .id = "attention", .type = DTS_LAYER_ATTENTION,
    .description = "core attention over the QKV projection (grouped-query with kv-heads, "
                   "latent with head-dim, v-head-dim, rope-dim and several inputs)",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = -1, .may_be_output = FALSE, .view = FALSE,
    .attrs = attention_attrs, .parse = parse_attention, .infer = infer_attention,
    .takes = DTS_TAKES_TOKENS, .tp = DTS_TP_CHANNEL_WISE,
    .tp_input_whole = attention_input_whole, .work = dts_layer_work_attention,
    .keeps_input = TRUE, .selective = TRUE, .model_flops = model_flops_attention },
  { .id = "gelu", .type = DTS_LAYER_GELU,
    .description = "Gaussian error linear unit",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = no_attrs, .parse = parse_none, .infer = infer_gelu,
    .fusable = TRUE, .tp = DTS_TP_CHANNEL_WISE, .keeps_input = TRUE },
  { .id = "swiglu", .type = DTS_LAYER_SWIGLU,
    .description = "silu(a) * b of the two halves of every token's features",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = no_attrs, .parse = parse_none, .infer = infer_swiglu,
    .takes = DTS_TAKES_TOKENS, .tp = DTS_TP_CHANNEL_WISE, .keeps_input = TRUE },
  { .id = "cross-entropy", .type = DTS_LAYER_CROSS_ENTROPY,
    .description = "softmax and cross-entropy loss of every token over the vocabulary",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = TRUE, .view = FALSE,
    .attrs = no_attrs, .parse = parse_none, .infer = infer_cross_entropy,
    .takes = DTS_TAKES_TOKENS, .tp = DTS_TP_VOCABULARY, .keeps_input = TRUE },
  { .id = "router", .type = DTS_LAYER_ROUTER,
    .description = "mixture of experts: gate scores, top-k experts, every token sent to its k",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = router_attrs, .parse = parse_router, .infer = infer_router,
    .takes = DTS_TAKES_TOKENS, .work = dts_layer_work_router, .keeps_input = TRUE,
    .model_flops = model_flops_macs },
  { .id = "moe-combine", .type = DTS_LAYER_MOE_COMBINE,
    .description = "mixture of experts: every token's k expert outputs weighted and summed",
    .in_files = TRUE, .min_inputs = 1, .max_inputs = 1, .may_be_output = FALSE, .view = FALSE,
    .attrs = combine_attrs, .parse = parse_moe_combine, .infer = infer_moe_combine,
    .takes = DTS_TAKES_TOKENS, .keeps_input = TRUE },
  { .id = NULL, .type = DTS_LAYER_TYPE_COUNT },
};

G_STATIC_ASSERT (G_N_ELEMENTS (classes) == DTS_LAYER_TYPE_COUNT + 1);

const DtsLayerClass *
dts_layer_classes (void)
{
  return classes;
}

const DtsLayerClass *
dts_layer_class_get (DtsLayerType type)
{
  g_return_val_if_fail (type < DTS_LAYER_TYPE_COUNT, NULL);
  g_assert (classes[type].type == type);
  return &classes[type];
}

const DtsLayerClass *
dts_layer_class_lookup (const char *id)
{
  for (const DtsLayerClass *c = classes; c->id != NULL; c++)
    if (c->in_files && strcmp (c->id, id) == 0)
      return c;
  return NULL;
}

char *
dts_layer_class_ids (void)
{
  g_autoptr (GString) s = g_string_new (NULL);
  for (const DtsLayerClass *c = classes; c->id != NULL; c++) {
    if (!c->in_files)
      continue;
    if (s->len > 0)
      g_string_append (s, ", ");
    g_string_append (s, c->id);
  }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

const char *
dts_layer_type_to_string (DtsLayerType t)
{
  g_return_val_if_fail (t < DTS_LAYER_TYPE_COUNT, "?");
  return dts_layer_class_get (t)->id;
}

gboolean
dts_layer_type_from_string (const char *s, DtsLayerType *out)
{
  for (const DtsLayerClass *c = classes; c->id != NULL; c++) {
    if (s != NULL && strcmp (c->id, s) == 0) {
      *out = c->type;
      return TRUE;
    }
  }
  return FALSE;
}

double
dts_shape_elems (DtsShape s)
{
  return (double) s.c * s.h * s.w * (s.seq > 0 ? s.seq : 1);
}

DtsTpRole
dts_layer_tp_role (const DtsLayer *layer)
{
  const DtsLayerClass *k = dts_layer_class_get (layer->type);
  return k->tp_of ? k->tp_of (layer) : k->tp;
}

gboolean
dts_layer_tp_input_whole (const DtsLayer *layer, int c)
{
  const DtsLayerClass *k = dts_layer_class_get (layer->type);
  return k->tp_input_whole != NULL && k->tp_input_whole (layer, c);
}

gboolean
dts_layer_recomputed_selectively (const DtsLayer *layer)
{
  return dts_layer_class_get (layer->type)->selective;
}

gboolean
dts_layer_keeps_input (const DtsLayer *layer)
{
  return dts_layer_class_get (layer->type)->keeps_input;
}

DtsPrecision
dts_layer_precision (const DtsLayer *layer, DtsPrecision precision)
{
  if (layer->type == DTS_LAYER_LINEAR && layer->fp8)
    return precision;
  return dts_precision_non_gemm (precision);
}

gboolean
dts_layer_in_place (const DtsLayer *layer)
{
  return dts_layer_class_get (layer->type)->in_place;
}

gboolean
dts_layer_type_fusable (DtsLayerType t)
{
  return t < DTS_LAYER_TYPE_COUNT && dts_layer_class_get (t)->fusable;
}

char *
dts_layer_fusable_ids (void)
{
  g_autoptr (GString) s = g_string_new (NULL);
  for (const DtsLayerClass *c = classes; c->id != NULL; c++)
    if (c->fusable)
      g_string_append_printf (s, "%s%s", s->len > 0 ? ", " : "", c->id);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

char *
dts_shape_to_string (DtsShape s)
{
  if (s.seq > 0)
    return g_strdup_printf ("%dx%d", s.seq, s.c);
  if (s.h == 1 && s.w == 1)
    return g_strdup_printf ("%d", s.c);
  return g_strdup_printf ("%dx%dx%d", s.c, s.h, s.w);
}

double
dts_workload_model_flops (const DtsWorkload *w)
{
  g_return_val_if_fail (w != NULL, 0.0);
  double fwd = 0;
  for (guint i = 0; i < w->layers->len; i++) {
    const DtsLayer *l = dts_workload_layer (w, i);
    const DtsLayerClass *k = dts_layer_class_get (l->type);
    fwd += k->model_flops ? k->model_flops (l) : 0;
  }
  return 3.0 * fwd;
}

gboolean
dts_workload_has_experts (const DtsWorkload *w)
{
  g_return_val_if_fail (w != NULL, FALSE);
  for (guint i = 0; i < w->layers->len; i++)
    if (dts_workload_layer (w, i)->type == DTS_LAYER_ROUTER)
      return TRUE;
  return FALSE;
}
