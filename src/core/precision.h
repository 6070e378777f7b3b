/* precision.h - arithmetic precisions that compute and cost models know of.
 *
 * fp32: IEEE single on the CUDA cores; tf32: tensor-core TF32 (Ampere+);
 * fp16 and bf16: tensor-core mixed precision (fp16/bf16 inputs, fp32 accumulate).
 * Element size in memory is 4 bytes for fp32/tf32 and 2 for fp16/bf16
 * activations; master weights and gradients stay fp32 under mixed precision. */
#ifndef DTS_CORE_PRECISION_H
#define DTS_CORE_PRECISION_H

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  DTS_PREC_FP32,
  DTS_PREC_TF32,
  DTS_PREC_FP16,
  DTS_PREC_BF16,
  DTS_PREC_COUNT
} DtsPrecision;

/* "fp32", "tf32", "fp16", "bf16" */
const char *dts_precision_to_string (DtsPrecision p);
gboolean dts_precision_from_string (const char *s, DtsPrecision *out, GError **error);
/* Bytes of one activation element at P. */
double dts_precision_elem_bytes (DtsPrecision p);

G_END_DECLS

#endif
