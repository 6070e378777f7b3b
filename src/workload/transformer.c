/* transformer.c - a <transformer> element: a GPT- or Llama-style model from
 * its dimensions, expanded into the <layer> elements it stands for.
 *
 * The expansion is Megatron-LM's GPT model (megatron/core/models/gpt) with
 * pre-normalisation, written as layers of the table in layers.c, so that a
 * model from dimensions and the same model written out by hand load to the
 * same layers, parameters and FLOPs:
 *
 *   embed                  embedding (vocab, hidden; + learned positions)
 *   [embed-dropout]        when dropout > 0
 *   for every layer i, prefix "layers.i.":
 *     norm1                layernorm or rmsnorm
 *     qkv                  linear to (heads + 2 kv-heads) x head-dim
 *     attn                 attention (grouped-query when kv-heads < heads)
 *     proj                 linear back to hidden
 *     [attn-dropout]
 *     add1                 residual: the layer's input + the attention
 *     norm2
 *     fc1                  linear to ffn (GELU) or 2 x ffn (SwiGLU's pair)
 *     act                  gelu or swiglu
 *     fc2                  linear back to hidden
 *   or, with experts="E" (a mixture of experts in every layer, Mixtral's and
 *   Qwen3-MoE's):
 *     router               E experts, top-k of them per token
 *     fc1, act, fc2        as above with experts="E", to moe-ffn (default ffn)
 *     combine              moe-combine of the k outputs
 *     [mlp-dropout]
 *     add2                 residual: add1 + the MLP
 *   final-norm
 *   lm-head                linear to the (padded) vocabulary, no bias; tied
 *                          to embed's table with tied-embedding="true"; in
 *                          bf16 under fp8 (fp8="false": Megatron's output
 *                          layer is not a Transformer Engine module, and
 *                          torchtitan's Float8 leaves "output" out)
 *   loss                   cross-entropy
 *
 * Parameters (Megatron's, bias = b, 1 or 0): per layer
 *   h (heads + 2 kv) d + (heads + 2 kv) d b     QKV
 *   heads d h + h b                             output projection
 *   h f m + f m b + f h + h b  (m = 2 for SwiGLU)  MLP
 *   2 h (LayerNorm with bias) or h per norm, two norms
 *   with experts: h E for the router and E times the MLP (f = moe-ffn), of
 *   which k/E are active per token
 * plus V h (+ P h learned positions) for the embedding, V h for an untied
 * LM head and one final norm. Llama-3-8B: 8,030,261,248; GPT-3 175B
 * (V = 50,257, tied, P = 2,048): 174,604,259,328. pad-vocab-to rounds V up
 * as Megatron's make-vocab-size-divisible-by does (times the tensor-parallel
 * size there), which adds (V' - V) h per table. */
#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "core/error.h"
#include "core/xml.h"
#include "workload/workload-private.h"

/* Layers a <transformer> may have: each expands to a dozen layers, and a
 * file must not make the loader build millions (the largest published
 * dense models have about 130). */
#define MAX_BLOCKS 4096

/* One of the NULL-terminated CHOICES, by index into *OUT; absent: left alone. */
static gboolean
attr_choice (const DtsWlCtx *ctx, const char *attr, const char *const *choices, int *out,
             GError **error)
{
  g_autofree char *text = dts_xml_get_attr (ctx->node, attr);
  if (text == NULL)
    return TRUE;
  for (int i = 0; choices[i] != NULL; i++) {
    if (strcmp (choices[i], text) == 0) {
      *out = i;
      return TRUE;
    }
  }
  g_autofree char *list = g_strjoinv (", ", (char **) choices);
  dts_wl_error (ctx, error, DTS_ERROR_INVALID, "attribute '%s': unknown value '%s' (known: %s)",
                attr, text, list);
  return FALSE;
}

static gboolean
too_large (const DtsWlCtx *ctx, const char *what, double v, GError **error)
{
  if (v <= G_MAXINT)
    return FALSE;
  dts_wl_error (ctx, error, DTS_ERROR_INVALID, "%s (%.0f) does not fit an int", what, v);
  return TRUE;
}

/* experts, top-k and moe-ffn: all three or experts and top-k describe a
 * mixture of experts; none, a dense MLP. */
static gboolean
read_experts (const DtsWlCtx *ctx, DtsTransformer *t, GError **error)
{
  gboolean has_moe_ffn = xmlHasProp (ctx->node, (const xmlChar *) "moe-ffn") != NULL;
  if (t->experts == 0) {
    const char *stray = t->top_k > 0         ? "top-k"
                        : has_moe_ffn          ? "moe-ffn"
                        : t->shared_ffn > 0    ? "shared-ffn"
                        : t->dense_layers > 0  ? "dense-layers"
                                               : NULL;
    if (stray != NULL) {
      dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                    "attribute '%s' is for a mixture of experts (give experts)", stray);
      return FALSE;
    }
    return TRUE;
  }
  if (t->experts > 4096) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID, "experts %d is more than 4096", t->experts);
    return FALSE;
  }
  if (t->top_k == 0 || t->top_k > t->experts) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "a mixture of %d experts needs top-k, the experts per token (1 to %d)",
                  t->experts, t->experts);
    return FALSE;
  }
  if (t->dense_layers >= t->layers) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "dense-layers %d leaves none of the %d layers a mixture of experts",
                  t->dense_layers, t->layers);
    return FALSE;
  }
  return !too_large (ctx, "seq-len x top-k", (double) t->seq_len * t->top_k, error)
         && !too_large (ctx, "2 x moe-ffn", 2.0 * t->moe_ffn, error)
         && !too_large (ctx, "2 x shared-ffn", 2.0 * t->shared_ffn, error);
}

/* Multi-head latent attention: kv-lora-rank turns it on; q-lora-rank,
 * rope-head-dim and v-head-dim describe it and nothing else. */
static gboolean
read_latent (const DtsWlCtx *ctx, DtsTransformer *t, GError **error)
{
  if (t->kv_lora == 0) {
    const char *stray = t->q_lora > 0          ? "q-lora-rank"
                        : t->rope_head_dim > 0 ? "rope-head-dim"
                        : t->v_head_dim > 0    ? "v-head-dim"
                                               : NULL;
    if (stray != NULL) {
      dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                    "attribute '%s' is for multi-head latent attention (give kv-lora-rank)",
                    stray);
      return FALSE;
    }
    return TRUE;
  }
  if (t->kv_heads != t->heads) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "kv-heads is not for multi-head latent attention (every head has its keys "
                  "and values from the latent)");
    return FALSE;
  }
  if (t->rope_head_dim == 0) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "multi-head latent attention needs rope-head-dim (the rotary part of a query "
                  "and key head)");
    return FALSE;
  }
  if (t->v_head_dim == 0)
    t->v_head_dim = t->head_dim;
  double qk = (double) t->head_dim + t->rope_head_dim;
  return !too_large (ctx, "heads x (head-dim + rope-head-dim)", t->heads * qk, error)
         && !too_large (ctx, "heads x (head-dim + v-head-dim)",
                        t->heads * ((double) t->head_dim + t->v_head_dim), error);
}

static gboolean
read_dims (const DtsWlCtx *ctx, DtsTransformer *t, int seq_len, GError **error)
{
  static const char *const mlps[] = { "gelu", "swiglu", NULL };
  static const char *const norms[] = { "layernorm", "rmsnorm", NULL };
  static const char *const positions[] = { "learned", "rotary", NULL };
  static const char *const kernels[] = { "flash", "unfused", NULL };
  int mlp = 0, norm = 0, pos = 0, kernel = 0, pad = 1;
  *t = (DtsTransformer){ .bias = TRUE, .causal = TRUE };
  t->head_dim = 0;
  if (!dts_wl_attr_int (ctx, "layers", TRUE, 1, &t->layers, error)
      || !dts_wl_attr_int (ctx, "hidden", TRUE, 1, &t->hidden, error)
      || !dts_wl_attr_int (ctx, "heads", TRUE, 1, &t->heads, error)
      || !dts_wl_attr_int (ctx, "vocab", TRUE, 1, &t->vocab, error)
      || !dts_wl_attr_int (ctx, "seq-len", TRUE, 1, &t->seq_len, error))
    return FALSE;
  t->kv_heads = t->heads;
  if (too_large (ctx, "4 x hidden", 4.0 * t->hidden, error))
    return FALSE;
  t->ffn = 4 * t->hidden;
  if (!dts_wl_attr_int (ctx, "ffn", FALSE, 1, &t->ffn, error)
      || !dts_wl_attr_int (ctx, "kv-heads", FALSE, 1, &t->kv_heads, error)
      || !dts_wl_attr_int (ctx, "head-dim", FALSE, 1, &t->head_dim, error)
      || !dts_wl_attr_int (ctx, "pad-vocab-to", FALSE, 1, &pad, error)
      || !dts_wl_attr_int (ctx, "max-positions", FALSE, 1, &t->max_positions, error)
      || !attr_choice (ctx, "mlp", mlps, &mlp, error)
      || !attr_choice (ctx, "norm", norms, &norm, error)
      || !attr_choice (ctx, "positions", positions, &pos, error)
      || !attr_choice (ctx, "attention", kernels, &kernel, error)
      || !dts_wl_attr_bool (ctx, "tied-embedding", &t->tied_embedding, error)
      || !dts_wl_attr_bool (ctx, "bias", &t->bias, error)
      || !dts_wl_attr_bool (ctx, "causal", &t->causal, error)
      || !dts_wl_attr_double (ctx, "dropout", 0.0, &t->dropout, error)
      || !dts_wl_attr_int (ctx, "experts", FALSE, 1, &t->experts, error)
      || !dts_wl_attr_int (ctx, "top-k", FALSE, 1, &t->top_k, error))
    return FALSE;
  t->moe_ffn = t->ffn;
  if (!dts_wl_attr_int (ctx, "moe-ffn", FALSE, 1, &t->moe_ffn, error)
      || !dts_wl_attr_int (ctx, "shared-ffn", FALSE, 1, &t->shared_ffn, error)
      || !dts_wl_attr_int (ctx, "dense-layers", FALSE, 0, &t->dense_layers, error)
      || !dts_wl_attr_int (ctx, "q-lora-rank", FALSE, 1, &t->q_lora, error)
      || !dts_wl_attr_int (ctx, "kv-lora-rank", FALSE, 1, &t->kv_lora, error)
      || !dts_wl_attr_int (ctx, "rope-head-dim", FALSE, 1, &t->rope_head_dim, error)
      || !dts_wl_attr_int (ctx, "v-head-dim", FALSE, 1, &t->v_head_dim, error))
    return FALSE;
  /* a learned table without max-positions has the file's seq-len rows */
  if (pos == 0 && t->max_positions == 0)
    t->max_positions = t->seq_len;
  if (seq_len > 0) {
    if (pos == 0 && seq_len > t->max_positions) {
      dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                    "--seq-len %d is longer than the model's learned positions (%d: "
                    "max-positions, else seq-len)",
                    seq_len, t->max_positions);
      return FALSE;
    }
    t->seq_len = seq_len;
  }
  t->swiglu = mlp == 1;
  t->rmsnorm = norm == 1;
  t->learned_positions = pos == 0;
  t->fused_attention = kernel == 0;
  if (t->layers > MAX_BLOCKS) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID, "layers %d is more than %d", t->layers,
                  MAX_BLOCKS);
    return FALSE;
  }
  if (t->dropout >= 1.0) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "attribute 'dropout' must be below 1 (a drop probability), got %g", t->dropout);
    return FALSE;
  }
  if (t->head_dim == 0) {
    if (t->hidden % t->heads != 0) {
      dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                    "heads %d do not divide hidden %d (give head-dim)", t->heads, t->hidden);
      return FALSE;
    }
    t->head_dim = t->hidden / t->heads;
  }
  if (t->heads % t->kv_heads != 0) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "kv-heads %d must divide heads %d (each key/value head serves a group of "
                  "query heads)",
                  t->kv_heads, t->heads);
    return FALSE;
  }
  if (t->learned_positions) {
    if (t->max_positions == 0)
      t->max_positions = t->seq_len;
    if (t->max_positions < t->seq_len) {
      dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                    "max-positions %d is shorter than seq-len %d", t->max_positions,
                    t->seq_len);
      return FALSE;
    }
  } else if (t->max_positions > 0) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "max-positions is for learned positions (rotary positions have no table)");
    return FALSE;
  }
  if (!read_experts (ctx, t, error) || !read_latent (ctx, t, error))
    return FALSE;
  double padded = ((double) t->vocab + pad - 1) / pad;
  padded = (double) (gint64) padded * pad;
  if (too_large (ctx, "(heads + 2 kv-heads) x head-dim",
                 ((double) t->heads + 2.0 * t->kv_heads) * t->head_dim, error)
      || too_large (ctx, "2 x ffn", 2.0 * t->ffn, error)
      || too_large (ctx, "the padded vocabulary", padded, error))
    return FALSE;
  t->padded_vocab = (int) padded;
  return TRUE;
}

/* Appends <layer name=NAME type=TYPE [ATTR=VALUE ...]/> after *AT, moves *AT
 * to it, on the transformer's line. The varargs are name/value pairs ending
 * in NULL. */
static void G_GNUC_NULL_TERMINATED
add_layer (xmlNode **at, const char *name, const char *type, ...)
{
  xmlNode *n = xmlNewNode (NULL, (const xmlChar *) "layer");
  n->line = (*at)->line;
  xmlNewProp (n, (const xmlChar *) "name", (const xmlChar *) name);
  xmlNewProp (n, (const xmlChar *) "type", (const xmlChar *) type);
  va_list ap;
  va_start (ap, type);
  for (const char *k = va_arg (ap, const char *); k != NULL; k = va_arg (ap, const char *)) {
    const char *v = va_arg (ap, const char *);
    xmlNewProp (n, (const xmlChar *) k, (const xmlChar *) v);
  }
  va_end (ap);
  *at = xmlAddNextSibling (*at, n);
}

static char *
num (double v)
{
  return g_strdup_printf ("%.0f", v);
}

/* Multi-head latent attention (DeepSeek-V2 and V3, Megatron-LM's
 * MLASelfAttention) after the norm NORM1, as its GEMMs:
 *   q-down, q-norm, q-up  the hidden state to the q-lora-rank latent,
 *                         normalised, up to heads x (head-dim + rope-head-dim)
 *                         (without q-lora-rank, one linear: q)
 *   kv-down, kv-norm      the hidden state to the kv-lora-rank latent
 *   kv-up                 up to heads x (head-dim + v-head-dim): keys
 *                         without positions and values
 *   k-rope                the hidden state to the rope-head-dim rotary key
 *                         every head shares (kv-down and k-rope are the
 *                         one GEMM DeepSeek's kv_a_proj_with_mqa is)
 *   attn                  attention over the three */
static void
add_latent_attention (xmlNode **at, const DtsTransformer *t, const char *pre, const char *norm1)
{
  const char *bias = t->bias ? "true" : "false";
  g_autofree char *q_lora = num (t->q_lora);
  g_autofree char *kv_lora = num (t->kv_lora);
  g_autofree char *rope = num (t->rope_head_dim);
  g_autofree char *q_heads = num ((double) t->heads * (t->head_dim + t->rope_head_dim));
  g_autofree char *kv_heads = num ((double) t->heads * (t->head_dim + t->v_head_dim));
  g_autofree char *heads = num (t->heads);
  g_autofree char *qk_dim = num (t->head_dim + t->rope_head_dim);
  g_autofree char *v_dim = num (t->v_head_dim);
  g_autofree char *p = g_strdup_printf ("%.17g", t->dropout);
  g_autofree char *q_down = g_strconcat (pre, "q-down", NULL);
  g_autofree char *q_norm = g_strconcat (pre, "q-norm", NULL);
  g_autofree char *q_up = g_strconcat (pre, t->q_lora > 0 ? "q-up" : "q", NULL);
  g_autofree char *kv_down = g_strconcat (pre, "kv-down", NULL);
  g_autofree char *kv_norm = g_strconcat (pre, "kv-norm", NULL);
  g_autofree char *kv_up = g_strconcat (pre, "kv-up", NULL);
  g_autofree char *k_rope = g_strconcat (pre, "k-rope", NULL);
  g_autofree char *attn = g_strconcat (pre, "attn", NULL);
  g_autofree char *qkv = g_strjoin (",", q_up, kv_up, k_rope, NULL);
  const char *norm = t->rmsnorm ? "rmsnorm" : "layernorm";
  const char *norm_k = t->rmsnorm ? NULL : "bias";
  if (t->q_lora > 0) {
    add_layer (at, q_down, "linear", "out", q_lora, "bias", bias, NULL);
    add_layer (at, q_norm, norm, norm_k, bias, NULL);
  }
  add_layer (at, q_up, "linear", "out", q_heads, "bias", bias, NULL);
  add_layer (at, kv_down, "linear", "inputs", norm1, "out", kv_lora, "bias", bias, NULL);
  add_layer (at, kv_norm, norm, norm_k, bias, NULL);
  add_layer (at, kv_up, "linear", "out", kv_heads, "bias", bias, NULL);
  add_layer (at, k_rope, "linear", "inputs", norm1, "out", rope, "bias", bias, NULL);
  add_layer (at, attn, "attention", "inputs", qkv, "heads", heads, "head-dim", qk_dim,
             "v-head-dim", v_dim, "rope-dim", rope, "causal", t->causal ? "true" : "false", "fused",
             t->fused_attention ? "true" : "false", "dropout", p, NULL);
}

gboolean
dts_wl_transformer_expand (const DtsWlCtx *ctx, DtsTransformer *t, int seq_len,
                           GError **error)
{
  if (!read_dims (ctx, t, seq_len, error))
    return FALSE;
  const char *norm = t->rmsnorm ? "rmsnorm" : "layernorm";
  /* the norms' attribute list: "bias" for LayerNorm; for RMSNorm a NULL
   * that ends add_layer's list there (it has no bias) */
  const char *norm_k = t->rmsnorm ? NULL : "bias";
  const char *bias = t->bias ? "true" : "false";
  g_autofree char *hidden = num (t->hidden);
  g_autofree char *vocab = num (t->padded_vocab);
  g_autofree char *positions = num (t->max_positions);
  g_autofree char *qkv = num (((double) t->heads + 2.0 * t->kv_heads) * t->head_dim);
  g_autofree char *dense_fc1 = num ((t->swiglu ? 2.0 : 1.0) * t->ffn);
  g_autofree char *moe_fc1 = num ((t->swiglu ? 2.0 : 1.0) * t->moe_ffn);
  g_autofree char *shared_fc1 = num ((t->swiglu ? 2.0 : 1.0) * t->shared_ffn);
  g_autofree char *experts = num (t->experts);
  g_autofree char *top_k = num (t->top_k);
  g_autofree char *heads = num (t->heads);
  g_autofree char *kv = num (t->kv_heads);
  g_autofree char *p = g_strdup_printf ("%.17g", t->dropout);
  const char *causal = t->causal ? "true" : "false";
  const char *fused = t->fused_attention ? "true" : "false";

  xmlNode *at = ctx->node;
  if (t->learned_positions)
    add_layer (&at, "embed", "embedding", "vocab", vocab, "out", hidden, "max-positions",
               positions, NULL);
  else
    add_layer (&at, "embed", "embedding", "vocab", vocab, "out", hidden, NULL);
  g_autofree char *residual = g_strdup ("embed");
  if (t->dropout > 0) {
    add_layer (&at, "embed-dropout", "dropout", "p", p, NULL);
    g_free (residual);
    residual = g_strdup ("embed-dropout");
  }
  for (int i = 0; i < t->layers; i++) {
    g_autofree char *pre = g_strdup_printf ("layers.%d.", i);
    g_autofree char *norm1 = g_strconcat (pre, "norm1", NULL);
    g_autofree char *qkv_ = g_strconcat (pre, "qkv", NULL);
    g_autofree char *attn = g_strconcat (pre, "attn", NULL);
    g_autofree char *proj = g_strconcat (pre, "proj", NULL);
    g_autofree char *attn_drop = g_strconcat (pre, "attn-dropout", NULL);
    g_autofree char *add1 = g_strconcat (pre, "add1", NULL);
    g_autofree char *norm2 = g_strconcat (pre, "norm2", NULL);
    g_autofree char *fc1_ = g_strconcat (pre, "fc1", NULL);
    g_autofree char *act = g_strconcat (pre, "act", NULL);
    g_autofree char *fc2 = g_strconcat (pre, "fc2", NULL);
    g_autofree char *add2 = g_strconcat (pre, "add2", NULL);
    g_autofree char *mlp_drop = g_strconcat (pre, "mlp-dropout", NULL);
    g_autofree char *router = g_strconcat (pre, "router", NULL);
    g_autofree char *combine = g_strconcat (pre, "combine", NULL);
    g_autofree char *sfc1 = g_strconcat (pre, "shared-fc1", NULL);
    g_autofree char *sact = g_strconcat (pre, "shared-act", NULL);
    g_autofree char *sfc2 = g_strconcat (pre, "shared-fc2", NULL);
    g_autofree char *in1 = NULL, *in2 = NULL;
    gboolean moe = t->experts > 0 && i >= t->dense_layers;

    xmlNode *before = at;
    add_layer (&at, norm1, norm, norm_k, bias, NULL);
    if (t->kv_lora > 0)
      add_latent_attention (&at, t, pre, norm1);
    else {
      add_layer (&at, qkv_, "linear", "out", qkv, "bias", bias, NULL);
      add_layer (&at, attn, "attention", "heads", heads, "kv-heads", kv, "causal", causal,
                 "fused", fused, "dropout", p, NULL);
    }
    add_layer (&at, proj, "linear", "out", hidden, "bias", bias, NULL);
    if (t->dropout > 0)
      add_layer (&at, attn_drop, "dropout", "p", p, NULL);
    in1 = g_strjoin (",", residual, t->dropout > 0 ? attn_drop : proj, NULL);
    add_layer (&at, add1, "add", "inputs", in1, NULL);
    add_layer (&at, norm2, norm, norm_k, bias, NULL);
    if (moe) {
      add_layer (&at, router, "router", "experts", experts, "top-k", top_k, NULL);
      add_layer (&at, fc1_, "linear", "out", moe_fc1, "bias", bias, "experts", experts, NULL);
      add_layer (&at, act, t->swiglu ? "swiglu" : "gelu", NULL);
      add_layer (&at, fc2, "linear", "out", hidden, "bias", bias, "experts", experts, NULL);
      add_layer (&at, combine, "moe-combine", "top-k", top_k, NULL);
      if (t->shared_ffn > 0) {
        add_layer (&at, sfc1, "linear", "inputs", norm2, "out", shared_fc1, "bias", bias, NULL);
        add_layer (&at, sact, t->swiglu ? "swiglu" : "gelu", NULL);
        add_layer (&at, sfc2, "linear", "out", hidden, "bias", bias, NULL);
      }
    } else {
      add_layer (&at, fc1_, "linear", "out", dense_fc1, "bias", bias, NULL);
      add_layer (&at, act, t->swiglu ? "swiglu" : "gelu", NULL);
      add_layer (&at, fc2, "linear", "out", hidden, "bias", bias, NULL);
    }
    if (t->dropout > 0)
      add_layer (&at, mlp_drop, "dropout", "p", p, NULL);
    if (t->dropout > 0)
      in2 = g_strjoin (",", add1, mlp_drop, NULL);
    else if (moe && t->shared_ffn > 0)
      in2 = g_strjoin (",", add1, combine, sfc2, NULL);
    else
      in2 = g_strjoin (",", add1, moe ? combine : fc2, NULL);
    add_layer (&at, add2, "add", "inputs", in2, NULL);
    g_autofree char *blk = num (i);
    for (xmlNode *n = before->next;; n = n->next) {
      xmlNewProp (n, (const xmlChar *) "block", (const xmlChar *) blk);
      if (n == at)
        break;
    }
    g_free (residual);
    residual = g_strdup (add2);
  }
  add_layer (&at, "final-norm", norm, norm_k, bias, NULL);
  if (t->tied_embedding)
    add_layer (&at, "lm-head", "linear", "out", vocab, "bias", "false", "tied", "embed", "fp8",
               "false", NULL);
  else
    add_layer (&at, "lm-head", "linear", "out", vocab, "bias", "false", "fp8", "false", NULL);
  add_layer (&at, "loss", "cross-entropy", NULL);
  return TRUE;
}
