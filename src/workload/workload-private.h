/* workload-private.h - the layer-type table and the parsing helpers that
 * workload.c (the file reader) and layers.c (one row per layer type) share.
 *
 * Loading a <layer> element goes: the reader checks the common attributes
 * (name, type, inputs) and resolves the inputs to earlier layers; the row's
 * parse() reads the type's own attributes into DtsLayerArgs and the geometry
 * fields of DtsLayer; the row's infer() computes the output shape, the
 * parameters, the MACs and the FLOPs from the input shapes. The reader then
 * fills what every type shares (in/out/act elements, no data gradient for
 * the model input). */
#ifndef DTS_WORKLOAD_PRIVATE_H
#define DTS_WORKLOAD_PRIVATE_H

#include <glib.h>
#include "core/autocleanups.h"
#include "workload/work.h"
#include "workload/workload.h"

G_BEGIN_DECLS

/* Where a message points: file, element and (for layers) the layer name. */
typedef struct {
  const char *path;
  xmlNode *node;
  const char *layer; /* NULL outside <layer> */
  const char *const *inputs; /* names of the layer's inputs, for messages */
} DtsWlCtx;

/* Sets ERROR to "workload 'PATH': line N: [layer 'NAME': ]MESSAGE". */
void dts_wl_error (const DtsWlCtx *ctx, GError **error, int code, const char *fmt, ...)
    G_GNUC_PRINTF (4, 5);

/* Attribute readers. Absent and not REQUIRED: *OUT is left alone and TRUE is
 * returned. Present: the text must be a decimal integer >= MIN ("3"), a pair
 * "HxW" of them or one integer meaning HxH ("1x7", "3"), "true"/"false", or
 * a plain number (no unit) >= MIN. */
gboolean dts_wl_attr_int (const DtsWlCtx *ctx, const char *attr, gboolean required, int min,
                          int *out, GError **error);
gboolean dts_wl_attr_pair (const DtsWlCtx *ctx, const char *attr, gboolean required, int min,
                           int *out_h, int *out_w, GError **error);
gboolean dts_wl_attr_bool (const DtsWlCtx *ctx, const char *attr, gboolean *out,
                           GError **error);
gboolean dts_wl_attr_double (const DtsWlCtx *ctx, const char *attr, double min, double *out,
                             GError **error);

/* Every attribute of the element must be in COMMON or OWN (NULL-terminated,
 * OWN may be NULL); WHAT names the element in the message ("<training>"). */
gboolean dts_wl_check_attrs (const DtsWlCtx *ctx, const char *what, const char *const *common,
                             const char *const *own, GError **error);

/* Per-type settings that are needed to infer shapes and costs but are not
 * part of DtsLayer. */
typedef struct {
  int out;            /* conv/fc: output channels or features */
  int out_h, out_w;   /* adaptive-avgpool: output size */
  gboolean ceil_mode; /* pooling: ceil instead of floor for the output size */
  double p;           /* dropout probability */
  int size;           /* lrn: channels in the normalisation window */
  int vocab;          /* embedding: rows of the table */
  int max_positions;  /* embedding: rows of a learned position table, 0: none */
  char *tied;         /* linear: the embedding layer it shares weights with (owned) */
} DtsLayerArgs;

/* What a row's work function gets: the batch, and the bytes of the layer's
 * inputs, output (at the precision's element size) and fp32 weights. */
typedef struct {
  int batch;
  double n;           /* the batch as a double */
  double eb;          /* bytes per activation element */
  double in_b, out_b, w_b;
} DtsWorkArgs;

/* The rows' work functions (layer-work.c); a row without one is
 * element-wise: it reads its inputs and writes its output. */
void dts_layer_work_none (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out);
void dts_layer_work_conv (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out);
void dts_layer_work_fc (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out);
void dts_layer_work_linear (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out);
void dts_layer_work_concat (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out);
void dts_layer_work_batchnorm (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out);
void dts_layer_work_attention (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out);
void dts_layer_work_embedding (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out);
void dts_layer_work_router (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out);

/* What shapes a layer type reads. */
typedef enum {
  DTS_TAKES_ANY,       /* any shape (element-wise layers) */
  DTS_TAKES_IMAGES,    /* images and vectors: no sequence axis */
  DTS_TAKES_TOKENS,    /* sequences (SEQ x C) */
} DtsLayerTakes;

typedef struct {
  const char *id;          /* kebab-case, as written in files */
  DtsLayerType type;
  const char *description; /* one line for docs and listings */
  gboolean in_files;       /* FALSE for the implicit input layer */
  int min_inputs, max_inputs; /* max_inputs -1: any number */
  gboolean may_be_output;  /* may be a layer no later layer reads (losses) */
  gboolean view;           /* output is a view of the input: stores nothing */
  gboolean in_place;       /* overwrites its input: stores nothing of its own
                            * (dts_layer_in_place) */
  gboolean fusable;        /* a framework profile may fuse it into the kernel
                            * before it (`fuse = ...`) */
  DtsLayerTakes takes;     /* the shapes its inputs may have */
  gboolean keeps_input;    /* keeps its input for backward, not its output
                            * (dts_layer_keeps_input) */
  DtsTpRole tp;            /* its tensor-parallel role (dts_layer_tp_role) */
  /* The role where it depends on the layer's attributes; NULL: tp. */
  DtsTpRole (*tp_of) (const DtsLayer *l);
  /* A channel-wise layer with several inputs: whether an input of C
   * features is read whole by every GPU of the group rather than split
   * (dts_layer_tp_input_whole); NULL: none is. */
  gboolean (*tp_input_whole) (const DtsLayer *l, int c);
  gboolean selective;      /* --recompute selective runs its forward again before its
                            * backward and keeps only its input
                            * (dts_layer_recomputed_selectively) */
  /* Forward FLOPs as Megatron-LM counts model FLOPs (dts_workload_model_flops);
   * NULL: none. */
  double (*model_flops) (const DtsLayer *l);
  /* What its kernels do per pass at a batch and precision (dts_layer_work);
   * NULL: element-wise (reads its inputs, writes its output). */
  void (*work) (const DtsLayer *l, const DtsWorkArgs *a, DtsLayerWork *out);
  const char *const *attrs; /* own attributes besides name, type, inputs; NULL-terminated */
  /* Read the type's attributes into ARGS and LAYER's geometry (zeroed before
   * the call), applying PyTorch's defaults for absent ones. */
  gboolean (*parse) (const DtsWlCtx *ctx, DtsLayer *layer, DtsLayerArgs *args, GError **error);
  /* From the N_IN input shapes IN (all N_IN >= min_inputs), set out_shape,
   * params, macs and the three FLOP counts of LAYER. */
  gboolean (*infer) (const DtsWlCtx *ctx, const DtsShape *in, int n_in, const DtsLayerArgs *args,
                     DtsLayer *layer, GError **error);
} DtsLayerClass;

/* Read the <transformer> element CTX->node into T and add the <layer>
 * elements it stands for after it (transformer.c). */
/* SEQ_LEN > 0 replaces the element's seq-len (--seq-len). */
gboolean dts_wl_transformer_expand (const DtsWlCtx *ctx, DtsTransformer *t, int seq_len,
                                    GError **error);

/* The table in layers.c, in DtsLayerType order, terminated by a row with id NULL. */
const DtsLayerClass *dts_layer_classes (void);
const DtsLayerClass *dts_layer_class_get (DtsLayerType type);
/* Row by id, for types that may appear in files; NULL if none. */
const DtsLayerClass *dts_layer_class_lookup (const char *id);
/* "conv, fc, maxpool, ..." (owned): the ids allowed in files, table order. */
char *dts_layer_class_ids (void);

G_END_DECLS

#endif
