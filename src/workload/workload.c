/* workload.c - read and validate workload files (format: doc/WORKLOADS.md).
 *
 * A file is one <model name="..." input="CxHxW"> with an optional <training>
 * element and <layer> elements in topological order. A layer reads the layer
 * before it unless it names its inputs (inputs="a,b"); the model input is the
 * implicit layer 'input' (index 0 of DtsWorkload.layers). Because inputs must
 * be earlier layers, a file cannot describe a cycle: a reference to a later
 * layer is reported as such.
 *
 * Validation is strict so that a model that loads is the model that was
 * meant: unknown elements and attributes are errors, numbers must be whole
 * and in range, every layer but the last and the losses must feed a later
 * layer (a forgotten branch in a concat would otherwise change the FLOPs
 * silently), and shapes must agree where inputs meet. Every message names the
 * file, the line and the layer. Shape and cost rules are in layers.c. */
#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "core/error.h"
#include "core/precision.h"
#include "core/units.h"
#include "core/xml.h"
#include "workload/workload-private.h"

/* --- messages and attribute readers -------------------------------------------- */

void
dts_wl_error (const DtsWlCtx *ctx, GError **error, int code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  int line = ctx->node ? dts_xml_line (ctx->node) : 0;
  if (ctx->layer != NULL)
    g_set_error (error, DTS_ERROR, code, "workload '%s': line %d: layer '%s': %s", ctx->path,
                 line, ctx->layer, msg);
  else
    g_set_error (error, DTS_ERROR, code, "workload '%s': line %d: %s", ctx->path, line, msg);
}

static gboolean
parse_int (const char *text, gint64 *out)
{
  return g_ascii_string_to_signed (text, 10, G_MININT, G_MAXINT, out, NULL);
}

static gboolean
check_min (const DtsWlCtx *ctx, const char *attr, gint64 v, int min, GError **error)
{
  if (v >= min)
    return TRUE;
  if (min == 1)
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "attribute '%s' must be positive, got %" G_GINT64_FORMAT, attr, v);
  else if (min == 0)
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "attribute '%s' must not be negative, got %" G_GINT64_FORMAT, attr, v);
  else
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "attribute '%s' must be at least %d, got %" G_GINT64_FORMAT, attr, min, v);
  return FALSE;
}

static gboolean
missing (const DtsWlCtx *ctx, const char *attr, const char *expected, GError **error)
{
  dts_wl_error (ctx, error, DTS_ERROR_INVALID, "missing attribute '%s' (%s)", attr, expected);
  return FALSE;
}

gboolean
dts_wl_attr_int (const DtsWlCtx *ctx, const char *attr, gboolean required, int min, int *out,
                 GError **error)
{
  g_autofree char *text = dts_xml_get_attr (ctx->node, attr);
  if (text == NULL)
    return required ? missing (ctx, attr, "an integer", error) : TRUE;
  gint64 v;
  if (!parse_int (text, &v)) {
    dts_wl_error (ctx, error, DTS_ERROR_PARSE, "attribute '%s': '%s' is not an integer", attr,
                  text);
    return FALSE;
  }
  if (!check_min (ctx, attr, v, min, error))
    return FALSE;
  *out = (int) v;
  return TRUE;
}

gboolean
dts_wl_attr_pair (const DtsWlCtx *ctx, const char *attr, gboolean required, int min, int *out_h,
                  int *out_w, GError **error)
{
  g_autofree char *text = dts_xml_get_attr (ctx->node, attr);
  if (text == NULL)
    return required ? missing (ctx, attr, "an integer or HxW such as 3 or 1x7", error) : TRUE;
  g_auto (GStrv) parts = g_strsplit (text, "x", -1);
  guint n = g_strv_length (parts);
  gint64 v[2] = { 0, 0 };
  if (n < 1 || n > 2 || !parse_int (parts[0], &v[0]) || (n == 2 && !parse_int (parts[1], &v[1]))) {
    dts_wl_error (ctx, error, DTS_ERROR_PARSE,
                  "attribute '%s': '%s' is not an integer or HxW such as 3 or 1x7", attr, text);
    return FALSE;
  }
  if (n == 1)
    v[1] = v[0];
  if (!check_min (ctx, attr, MIN (v[0], v[1]), min, error))
    return FALSE;
  *out_h = (int) v[0];
  *out_w = (int) v[1];
  return TRUE;
}

gboolean
dts_wl_attr_bool (const DtsWlCtx *ctx, const char *attr, gboolean *out, GError **error)
{
  g_autofree char *text = dts_xml_get_attr (ctx->node, attr);
  if (text == NULL)
    return TRUE;
  if (strcmp (text, "true") == 0)
    *out = TRUE;
  else if (strcmp (text, "false") == 0)
    *out = FALSE;
  else {
    dts_wl_error (ctx, error, DTS_ERROR_PARSE, "attribute '%s': '%s' is not true or false",
                  attr, text);
    return FALSE;
  }
  return TRUE;
}

gboolean
dts_wl_attr_double (const DtsWlCtx *ctx, const char *attr, double min, double *out,
                    GError **error)
{
  g_autofree char *text = dts_xml_get_attr (ctx->node, attr);
  if (text == NULL)
    return TRUE;
  double v;
  g_autoptr (GError) local = NULL;
  if (!dts_units_parse (text, DTS_UNIT_NONE, &v, &local)) {
    dts_wl_error (ctx, error, DTS_ERROR_PARSE, "attribute '%s': %s", attr, local->message);
    return FALSE;
  }
  if (v < min) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID, "attribute '%s' must be at least %g, got %g",
                  attr, min, v);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean
dts_wl_check_attrs (const DtsWlCtx *ctx, const char *what, const char *const *common,
             const char *const *own, GError **error)
{
  for (xmlAttr *a = ctx->node->properties; a != NULL; a = a->next) {
    const char *name = (const char *) a->name;
    gboolean known = FALSE;
    for (int i = 0; common[i] && !known; i++)
      known = strcmp (common[i], name) == 0;
    for (int i = 0; own && own[i] && !known; i++)
      known = strcmp (own[i], name) == 0;
    if (known)
      continue;
    g_autoptr (GString) list = g_string_new (NULL);
    for (int i = 0; common[i]; i++)
      g_string_append_printf (list, "%s%s", list->len ? ", " : "", common[i]);
    for (int i = 0; own && own[i]; i++)
      g_string_append_printf (list, "%s%s", list->len ? ", " : "", own[i]);
    dts_wl_error (ctx, error, DTS_ERROR_INVALID, "unknown attribute '%s' of %s (known: %s)", name,
                  what, list->str);
    return FALSE;
  }
  return TRUE;
}

/* --- optimizers ------------------------------------------------------------------ */

/* Optimizer state kept per parameter in fp32: momentum keeps a velocity,
 * Adam a first and a second moment (Kingma and Ba, 2015). */
static const struct {
  const char *id;
  double state_bytes_per_param;
} optimizers[] = {
  { "sgd", 0.0 },
  { "momentum", 4.0 },
  { "adam", 8.0 },
};

#define DTS_DEFAULT_OPTIMIZER "momentum"

double
dts_workload_optimizer_state_bytes_per_param (const DtsWorkload *w)
{
  g_return_val_if_fail (w != NULL, 0.0);
  const char *id = w->training.optimizer ? w->training.optimizer : DTS_DEFAULT_OPTIMIZER;
  for (guint i = 0; i < G_N_ELEMENTS (optimizers); i++)
    if (strcmp (optimizers[i].id, id) == 0)
      return optimizers[i].state_bytes_per_param;
  g_return_val_if_reached (0.0);
}

/* --- the file ---------------------------------------------------------------------- */

static void
layer_clear (gpointer p)
{
  DtsLayer *l = p;
  g_clear_pointer (&l->name, g_free);
  g_clear_pointer (&l->inputs, g_free);
}

void
dts_workload_free (DtsWorkload *w)
{
  if (w == NULL)
    return;
  g_free (w->name);
  g_free (w->path);
  g_free (w->training.optimizer);
  if (w->layers)
    g_array_unref (w->layers);
  g_free (w);
}

/* State of one load. */
typedef struct {
  const char *path;
  DtsWorkload *w;
  GHashTable *index;   /* layer name (owned by the layer) -> index + 1 */
  GHashTable *later;   /* every <layer> name of the file -> line of its first definition */
  GPtrArray *nodes;    /* xmlNode of each layer, for messages after the pass */
  GArray *kept;        /* gboolean per layer: a reader keeps its output for backward */
} Loader;

static gboolean
is_element (const xmlNode *n, const char *name)
{
  return n->type == XML_ELEMENT_NODE && xmlStrcmp (n->name, (const xmlChar *) name) == 0;
}

static gboolean
parse_input_shape (const DtsWlCtx *ctx, DtsShape *out, GError **error)
{
  g_autofree char *text = dts_xml_get_attr (ctx->node, "input");
  if (text == NULL)
    return missing (ctx, "input",
                    "the input shape CxHxW such as 3x224x224; seq-len for a sequence of tokens",
                    error);
  g_auto (GStrv) parts = g_strsplit (text, "x", -1);
  guint n = g_strv_length (parts);
  gint64 v[3] = { 0, 1, 1 };
  gboolean ok = n == 1 || n == 3;
  for (guint i = 0; ok && i < n; i++)
    ok = parse_int (parts[i], &v[i]);
  if (!ok) {
    dts_wl_error (ctx, error, DTS_ERROR_PARSE,
                  "attribute 'input': '%s' is not a shape CxHxW such as 3x224x224 "
                  "(or F for F features)",
                  text);
    return FALSE;
  }
  for (int i = 0; i < 3; i++) {
    if (v[i] < 1) {
      dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                    "attribute 'input': sizes must be positive, got '%s'", text);
      return FALSE;
    }
  }
  *out = (DtsShape){ (int) v[0], (int) v[1], (int) v[2], 0 };
  return TRUE;
}

/* The model input: the input attribute, a sequence of seq-len tokens, or the
 * tokens of the one <transformer> element, which then expands to its layers
 * (transformer.c) and stands alone (no <layer> elements beside it). */
static gboolean
model_input (const DtsWlCtx *ctx, DtsShape *input, DtsTransformer *t, int seq_len,
             GError **error)
{
  xmlNode *tnode = NULL;
  gboolean layers = FALSE;
  for (xmlNode *n = ctx->node->children; n != NULL; n = n->next) {
    if (is_element (n, "layer"))
      layers = TRUE;
    if (!is_element (n, "transformer"))
      continue;
    if (tnode != NULL) {
      DtsWlCtx nctx = { ctx->path, n, NULL, NULL };
      dts_wl_error (&nctx, error, DTS_ERROR_INVALID,
                    "a second <transformer> element (one at most: it is the whole model)");
      return FALSE;
    }
    tnode = n;
  }
  gboolean has_input = xmlHasProp (ctx->node, (const xmlChar *) "input") != NULL;
  gboolean has_seq = xmlHasProp (ctx->node, (const xmlChar *) "seq-len") != NULL;
  if (tnode != NULL) {
    DtsWlCtx tctx = { ctx->path, tnode, NULL, NULL };
    if (layers) {
      dts_wl_error (&tctx, error, DTS_ERROR_INVALID,
                    "<transformer> is the whole model: no <layer> elements beside it");
      return FALSE;
    }
    if (has_input || has_seq) {
      dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                    "attribute '%s': the input of a <transformer> is its seq-len tokens",
                    has_input ? "input" : "seq-len");
      return FALSE;
    }
    static const char *const attrs[] = { "layers", "hidden", "ffn", "heads", "kv-heads",
                                         "head-dim", "vocab", "pad-vocab-to", "seq-len",
                                         "max-positions", "mlp", "norm", "positions",
                                         "attention", "tied-embedding", "bias", "causal",
                                         "dropout", "experts", "top-k", "moe-ffn",
                                         "shared-ffn", "dense-layers", "q-lora-rank",
                                         "kv-lora-rank", "rope-head-dim", "v-head-dim", NULL };
    static const char *const none[] = { NULL };
    if (!dts_wl_check_attrs (&tctx, "<transformer>", attrs, none, error)
        || !dts_wl_transformer_expand (&tctx, t, seq_len, error))
      return FALSE;
    *input = (DtsShape){ 1, 1, 1, t->seq_len };
    return TRUE;
  }
  if (has_seq) {
    if (has_input) {
      dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                    "attributes 'input' and 'seq-len' both given (an image or a sequence: one)");
      return FALSE;
    }
    int seq = 0;
    if (!dts_wl_attr_int (ctx, "seq-len", TRUE, 1, &seq, error))
      return FALSE;
    *input = (DtsShape){ 1, 1, 1, seq_len > 0 ? seq_len : seq };
    return TRUE;
  }
  if (seq_len > 0) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "--seq-len %d: this model takes an input shape (an image), not a sequence "
                  "of tokens (seq-len or a <transformer>)",
                  seq_len);
    return FALSE;
  }
  return parse_input_shape (ctx, input, error);
}

static gboolean
parse_training (Loader *ld, xmlNode *node, GError **error)
{
  static const char *const attrs[] = { "batch-size", "dataset-samples", "precision", "optimizer",
                                       NULL };
  static const char *const none[] = { NULL };
  DtsWlCtx ctx = { ld->path, node, NULL, NULL };
  DtsTraining *t = &ld->w->training;
  if (!dts_wl_check_attrs (&ctx, "<training>", attrs, none, error)
      || !dts_wl_attr_int (&ctx, "batch-size", FALSE, 1, &t->batch_size, error)
      || !dts_wl_attr_double (&ctx, "dataset-samples", 1.0, &t->dataset_samples, error))
    return FALSE;
  g_autofree char *prec = dts_xml_get_attr (node, "precision");
  if (prec != NULL) {
    g_autoptr (GError) local = NULL;
    if (!dts_precision_from_string (prec, &t->precision, &local)) {
      dts_wl_error (&ctx, error, DTS_ERROR_INVALID, "attribute 'precision': %s", local->message);
      return FALSE;
    }
    t->has_precision = TRUE;
  }
  g_autofree char *opt = dts_xml_get_attr (node, "optimizer");
  if (opt != NULL) {
    gboolean known = FALSE;
    for (guint i = 0; i < G_N_ELEMENTS (optimizers) && !known; i++)
      known = strcmp (optimizers[i].id, opt) == 0;
    if (!known) {
      dts_wl_error (&ctx, error, DTS_ERROR_INVALID,
                    "attribute 'optimizer': unknown optimizer '%s' (known: sgd, momentum, adam)",
                    opt);
      return FALSE;
    }
    t->optimizer = g_steal_pointer (&opt);
  }
  return TRUE;
}

static gboolean
valid_name (const char *s)
{
  if (*s == '\0')
    return FALSE;
  for (; *s; s++)
    if (*s == ',' || g_ascii_isspace (*s))
      return FALSE;
  return TRUE;
}

/* Resolve the inputs attribute of the layer being read into indices. */
static gboolean
resolve_inputs (Loader *ld, const DtsWlCtx *ctx, GArray *idx, GPtrArray *names, GError **error)
{
  g_autofree char *text = dts_xml_get_attr (ctx->node, "inputs");
  if (text == NULL) {
    int prev = (int) ld->w->layers->len - 1;
    g_array_append_val (idx, prev);
    g_ptr_array_add (names, g_strdup (g_array_index (ld->w->layers, DtsLayer, prev).name));
    return TRUE;
  }
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  for (int i = 0; parts[i] != NULL; i++) {
    const char *in = g_strstrip (parts[i]);
    if (*in == '\0') {
      dts_wl_error (ctx, error, DTS_ERROR_PARSE,
                    "attribute 'inputs': empty name in '%s' (expected names separated by commas)",
                    text);
      return FALSE;
    }
    if (strcmp (in, ctx->layer) == 0) {
      dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                    "takes its own output as input (a cycle; inputs must be earlier layers)");
      return FALSE;
    }
    gpointer found = g_hash_table_lookup (ld->index, in);
    if (found == NULL) {
      gpointer later = g_hash_table_lookup (ld->later, in);
      if (later != NULL)
        dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                      "input '%s' is defined later, on line %d (layers are listed in "
                      "topological order: inputs come first, so cycles cannot occur)",
                      in, GPOINTER_TO_INT (later));
      else
        dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                      "unknown input '%s' (no layer of that name; the model input is 'input')",
                      in);
      return FALSE;
    }
    int j = GPOINTER_TO_INT (found) - 1;
    g_array_append_val (idx, j);
    g_ptr_array_add (names, g_strdup (in));
  }
  return TRUE;
}

/* An experts linear reads the tokens of the router before it, through
 * layers of one input each (the first expert GEMM, the activation) and no
 * moe-combine (which ends a mixture): that router's E must be the layer's
 * and its k is what a token runs through. */
static gboolean
resolve_router (Loader *ld, const DtsWlCtx *ctx, int producer, DtsLayer *layer, GError **error)
{
  const DtsLayer *r = &g_array_index (ld->w->layers, DtsLayer, producer);
  while (r->type != DTS_LAYER_ROUTER && r->type != DTS_LAYER_MOE_COMBINE && r->n_inputs == 1)
    r = &g_array_index (ld->w->layers, DtsLayer, r->inputs[0]);
  if (r->type != DTS_LAYER_ROUTER) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "attribute 'experts': no router before this layer (an experts linear reads "
                  "the tokens a router dispatched)");
    return FALSE;
  }
  if (r->experts != layer->experts) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "attribute 'experts': %d, but router '%s' routes to %d experts",
                  layer->experts, r->name, r->experts);
    return FALSE;
  }
  layer->top_k = r->top_k;
  return TRUE;
}

/* A linear layer tied to the embedding NAME shares its table: it must be an
 * earlier embedding whose vocabulary is this layer's output and whose
 * features its input; the weights are then counted once, there. */
static gboolean
resolve_tied (Loader *ld, const DtsWlCtx *ctx, const char *name, DtsLayer *layer,
              GError **error)
{
  gpointer found = g_hash_table_lookup (ld->index, name);
  const DtsLayer *e
      = found ? &g_array_index (ld->w->layers, DtsLayer, GPOINTER_TO_INT (found) - 1) : NULL;
  if (e == NULL || e->type != DTS_LAYER_EMBEDDING) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "attribute 'tied': '%s' is not an earlier embedding layer", name);
    return FALSE;
  }
  if (e->vocab != layer->out_shape.c || e->out_shape.c != layer->in_shape.c) {
    dts_wl_error (ctx, error, DTS_ERROR_INVALID,
                  "attribute 'tied': embedding '%s' is %d x %d, but this layer's weights are "
                  "%d x %d (out x input features)",
                  name, e->vocab, e->out_shape.c, layer->out_shape.c, layer->in_shape.c);
    return FALSE;
  }
  layer->tied = GPOINTER_TO_INT (found) - 1;
  layer->params -= (double) layer->out_shape.c * layer->in_shape.c;
  return TRUE;
}

static gboolean
parse_layer (Loader *ld, xmlNode *node, GError **error)
{
  static const char *const common[] = { "name", "type", "inputs", "block", NULL };
  DtsWlCtx ctx = { ld->path, node, NULL, NULL };
  g_autofree char *name = dts_xml_get_attr (node, "name");
  if (name == NULL)
    return missing (&ctx, "name", "<layer> needs a unique name", error);
  if (!valid_name (name)) {
    dts_wl_error (&ctx, error, DTS_ERROR_INVALID,
                  "layer name '%s' is empty or has a comma or a space", name);
    return FALSE;
  }
  ctx.layer = name;

  g_autofree char *type = dts_xml_get_attr (node, "type");
  g_autofree char *known = dts_layer_class_ids ();
  if (type == NULL) {
    g_autofree char *what = g_strdup_printf ("the layer type: %s", known);
    return missing (&ctx, "type", what, error);
  }
  const DtsLayerClass *cls = dts_layer_class_lookup (type);
  if (cls == NULL) {
    dts_wl_error (&ctx, error, DTS_ERROR_INVALID, "unknown layer type '%s' (known: %s)", type,
                  known);
    return FALSE;
  }
  g_autofree char *what = g_strdup_printf ("a %s layer", cls->id);
  if (!dts_wl_check_attrs (&ctx, what, common, cls->attrs, error))
    return FALSE;

  gpointer dup = g_hash_table_lookup (ld->index, name);
  if (dup != NULL) {
    int j = GPOINTER_TO_INT (dup) - 1;
    if (j == 0)
      dts_wl_error (&ctx, error, DTS_ERROR_INVALID,
                    "duplicate layer name: 'input' is the model input");
    else
      dts_wl_error (&ctx, error, DTS_ERROR_INVALID,
                    "duplicate layer name (first defined on line %d)",
                    g_array_index (ld->w->layers, DtsLayer, j).line);
    return FALSE;
  }

  g_autoptr (GArray) idx = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  if (!resolve_inputs (ld, &ctx, idx, names, error))
    return FALSE;
  g_ptr_array_add (names, NULL);
  ctx.inputs = (const char *const *) names->pdata;
  int n_in = (int) idx->len;
  if (n_in < cls->min_inputs || (cls->max_inputs >= 0 && n_in > cls->max_inputs)) {
    if (cls->max_inputs == cls->min_inputs)
      dts_wl_error (&ctx, error, DTS_ERROR_INVALID, "a %s layer takes %d input%s, got %d",
                    cls->id, cls->min_inputs, cls->min_inputs == 1 ? "" : "s", n_in);
    else
      dts_wl_error (&ctx, error, DTS_ERROR_INVALID, "a %s layer takes at least %d inputs, got %d",
                    cls->id, cls->min_inputs, n_in);
    return FALSE;
  }

  DtsLayer layer = { 0 };
  DtsLayerArgs args = { 0 };
  layer.type = cls->type;
  layer.line = dts_xml_line (node);
  layer.block = -1;
  layer.act_elems = -1; /* infer may set it */
  if (!dts_wl_attr_int (&ctx, "block", FALSE, 0, &layer.block, error))
    return FALSE;
  if (!cls->parse (&ctx, &layer, &args, error))
    return FALSE;
  g_autofree char *tied = g_steal_pointer (&args.tied);

  g_autofree DtsShape *shapes = g_new0 (DtsShape, n_in);
  for (int i = 0; i < n_in; i++) {
    const DtsLayer *src = &g_array_index (ld->w->layers, DtsLayer, g_array_index (idx, int, i));
    shapes[i] = src->out_shape;
    layer.in_elems += src->out_elems;
  }
  layer.in_shape = shapes[0];
  for (int i = 0; i < n_in; i++) {
    gboolean seq = shapes[i].seq > 0;
    if ((cls->takes == DTS_TAKES_TOKENS && !seq) || (cls->takes == DTS_TAKES_IMAGES && seq)) {
      g_autofree char *shape = dts_shape_to_string (shapes[i]);
      dts_wl_error (&ctx, error, DTS_ERROR_INVALID,
                    "input '%s' has shape %s, but a%s %s layer reads %s", ctx.inputs[i], shape,
                    strchr ("aeiou", cls->id[0]) ? "n" : "", cls->id,
                    seq ? "images or vectors, not sequences (sequence layers: embedding, "
                          "linear, layernorm, rmsnorm, attention, swiglu, cross-entropy, router, "
                          "moe-combine)"
                        : "sequences (tokens x features: a model with seq-len or a "
                          "<transformer>)");
      return FALSE;
    }
  }
  if (!cls->infer (&ctx, shapes, n_in, &args, &layer, error))
    return FALSE;
  if (tied != NULL && !resolve_tied (ld, &ctx, tied, &layer, error))
    return FALSE;
  if (layer.type == DTS_LAYER_LINEAR && layer.experts > 1
      && !resolve_router (ld, &ctx, g_array_index (idx, int, 0), &layer, error))
    return FALSE;
  layer.out_elems = dts_shape_elems (layer.out_shape);
  /* what backward needs: the output, or the input where the row says so,
   * unless infer said otherwise (unfused attention's probabilities, a
   * dropout's mask) or it keeps nothing (views) */
  if (layer.act_elems < 0)
    layer.act_elems = cls->view ? 0.0 : cls->keeps_input ? layer.in_elems : layer.out_elems;
  /* a tensor several layers keep is stored once (autograd saves the one
   * tensor): the first reader counts it (latent attention's three GEMMs on
   * the norm's output, a router and the shared experts) */
  for (int i = 0; cls->keeps_input && !cls->view && i < n_in; i++) {
    int src = g_array_index (idx, int, i);
    gboolean *kept = &g_array_index (ld->kept, gboolean, src);
    if (*kept)
      layer.act_elems
          = MAX (0.0, layer.act_elems
                          - g_array_index (ld->w->layers, DtsLayer, src).out_elems);
    *kept = TRUE;
  }
  /* Nothing upstream of the model input needs a gradient, unless the
   * framework computes it anyway (input-gradient="true"). */
  layer.data_grad = !(n_in == 1 && g_array_index (idx, int, 0) == 0 && !ld->w->input_gradient);
  if (!layer.data_grad)
    layer.bwd_data_flops = 0.0;

  layer.n_inputs = n_in;
  layer.inputs = (int *) g_array_free (g_steal_pointer (&idx), FALSE);
  layer.name = g_steal_pointer (&name);
  g_array_append_val (ld->w->layers, layer);
  gboolean no = FALSE;
  g_array_append_val (ld->kept, no);
  g_hash_table_insert (ld->index, layer.name, GINT_TO_POINTER (ld->w->layers->len));
  g_ptr_array_add (ld->nodes, node);
  return TRUE;
}

/* Every layer but the last and the losses must be read by a later layer. */
static gboolean
check_outputs (Loader *ld, GError **error)
{
  GArray *layers = ld->w->layers;
  g_autofree int *uses = g_new0 (int, layers->len);
  for (guint i = 1; i < layers->len; i++) {
    const DtsLayer *l = &g_array_index (layers, DtsLayer, i);
    for (int k = 0; k < l->n_inputs; k++)
      uses[l->inputs[k]]++;
  }
  for (guint i = 1; i + 1 < layers->len; i++) {
    const DtsLayer *l = &g_array_index (layers, DtsLayer, i);
    if (uses[i] > 0 || dts_layer_class_get (l->type)->may_be_output)
      continue;
    DtsWlCtx ctx = { ld->path, g_ptr_array_index (ld->nodes, i), l->name, NULL };
    dts_wl_error (&ctx, error, DTS_ERROR_INVALID,
                  "output is not used by any later layer (only the last layer and losses "
                  "may be outputs; name it in a later layer's inputs)");
    return FALSE;
  }
  return TRUE;
}

DtsWorkload *
dts_workload_load (const char *path, GError **error)
{
  return dts_workload_load_seq (path, 0, error);
}

DtsWorkload *
dts_workload_load_seq (const char *path, int seq_len, GError **error)
{
  g_return_val_if_fail (path != NULL && seq_len >= 0, NULL);
  g_autoptr (xmlDoc) doc = dts_xml_load (path, "workload", error);
  if (doc == NULL)
    return NULL;
  xmlNode *root = xmlDocGetRootElement (doc);
  DtsWlCtx ctx = { path, root, NULL, NULL };
  if (!is_element (root, "model")) {
    dts_wl_error (&ctx, error, DTS_ERROR_INVALID,
                  "root element is <%s> (expected <model>: a workload describes one model)",
                  (const char *) root->name);
    return NULL;
  }
  static const char *const model_attrs[] = { "name", "input", "seq-len", "input-gradient",
                                              NULL };
  static const char *const none[] = { NULL };
  if (!dts_wl_check_attrs (&ctx, "<model>", model_attrs, none, error))
    return NULL;

  g_autoptr (DtsWorkload) w = g_new0 (DtsWorkload, 1);
  w->path = g_strdup (path);
  w->name = dts_xml_get_attr (root, "name");
  if (w->name == NULL) {
    g_autofree char *base = g_path_get_basename (path);
    w->name = g_str_has_suffix (base, ".xml") ? g_strndup (base, strlen (base) - 4)
                                              : g_steal_pointer (&base);
  }
  if (!dts_wl_attr_bool (&ctx, "input-gradient", &w->input_gradient, error)
      || !model_input (&ctx, &w->input, &w->transformer, seq_len, error))
    return NULL;

  w->layers = g_array_new (FALSE, TRUE, sizeof (DtsLayer));
  g_array_set_clear_func (w->layers, layer_clear);
  DtsLayer input = {
    .name = g_strdup ("input"),
    .block = -1,
    .type = DTS_LAYER_INPUT,
    .line = dts_xml_line (root),
    .out_shape = w->input,
    .out_elems = dts_shape_elems (w->input),
    .act_elems = dts_shape_elems (w->input),
  };
  g_array_append_val (w->layers, input);

  g_autoptr (GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) later = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) nodes = g_ptr_array_new ();
  g_hash_table_insert (index, input.name, GINT_TO_POINTER (1));
  g_ptr_array_add (nodes, root);
  for (xmlNode *n = root->children; n != NULL; n = n->next) {
    if (!is_element (n, "layer"))
      continue;
    char *name = dts_xml_get_attr (n, "name");
    if (name != NULL && !g_hash_table_contains (later, name))
      g_hash_table_insert (later, name, GINT_TO_POINTER (dts_xml_line (n)));
    else
      g_free (name);
  }
  g_autoptr (GArray) kept = g_array_new (FALSE, TRUE, sizeof (gboolean));
  g_array_set_size (kept, w->layers->len);
  Loader ld = { path, w, index, later, nodes, kept };

  gboolean seen_training = FALSE;
  for (xmlNode *n = root->children; n != NULL; n = n->next) {
    DtsWlCtx nctx = { path, n, NULL, NULL };
    if (is_element (n, "layer")) {
      if (!parse_layer (&ld, n, error))
        return NULL;
    } else if (is_element (n, "transformer")) {
      continue; /* expanded into the <layer> elements after it */
    } else if (is_element (n, "training")) {
      if (seen_training) {
        dts_wl_error (&nctx, error, DTS_ERROR_INVALID,
                      "a second <training> element (one at most)");
        return NULL;
      }
      seen_training = TRUE;
      if (!parse_training (&ld, n, error))
        return NULL;
    } else if (n->type == XML_ELEMENT_NODE) {
      dts_wl_error (&nctx, error, DTS_ERROR_INVALID,
                    "unknown element <%s> in <model> (expected <layer> or <training>)",
                    (const char *) n->name);
      return NULL;
    } else if ((n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE)
               && !xmlIsBlankNode (n)) {
      dts_wl_error (&nctx, error, DTS_ERROR_INVALID,
                    "unexpected text in <model> (expected <layer> or <training> elements)");
      return NULL;
    }
  }
  if (w->layers->len == 1) {
    dts_wl_error (&ctx, error, DTS_ERROR_INVALID,
                  "<model> has no layers (expected <layer> elements)");
    return NULL;
  }
  if (!check_outputs (&ld, error))
    return NULL;

  for (guint i = 0; i < w->layers->len; i++) {
    const DtsLayer *l = &g_array_index (w->layers, DtsLayer, i);
    for (int k = 0; k < l->n_inputs; k++)
      g_array_index (w->layers, DtsLayer, l->inputs[k]).n_consumers++;
    w->params += l->params;
    gboolean routed = l->type == DTS_LAYER_LINEAR && l->experts > 1;
    w->active_params += routed ? l->params * l->top_k / l->experts : l->params;
    w->macs += l->macs;
    w->fwd_flops += l->fwd_flops;
    w->act_elems += l->act_elems;
  }
  return g_steal_pointer (&w);
}
