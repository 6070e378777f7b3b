/* precision.h - arithmetic precisions that compute and cost models know of.
 *
 * fp32: IEEE single on the CUDA cores; tf32: tensor-core TF32 (Ampere+);
 * fp16 and bf16: tensor-core mixed precision (fp16/bf16 inputs, fp32 accumulate).
 * fp8: FP8 training as NVIDIA Transformer Engine runs it (Hopper and newer):
 * the GEMMs of linear layers, forward and backward, at the FP8 tensor rate;
 * everything else (attention core, norms, element-wise, softmax, loss,
 * communication) in bf16, so activations are 2 bytes as under bf16.
 * Element size in memory is 4 bytes for fp32/tf32 and 2 for fp16/bf16/fp8
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
  DTS_PREC_FP8, /* E4M3/E5M2 GEMMs of linear layers; bf16 elsewhere */
  DTS_PREC_COUNT
} DtsPrecision;

/* "fp32", "tf32", "fp16", "bf16", "fp8" */
const char *dts_precision_to_string (DtsPrecision p);
gboolean dts_precision_from_string (const char *s, DtsPrecision *out, GError **error);
/* Bytes of one activation element at P. */
double dts_precision_elem_bytes (DtsPrecision p);
/* The precision of the kernels that are not linear-layer GEMMs at P: bf16
 * for fp8, else P itself. */
DtsPrecision dts_precision_non_gemm (DtsPrecision p);

G_END_DECLS

#endif
