/* precision.c - precision names and element sizes. */
#include "config.h"

#include <string.h>

#include "core/error.h"
#include "core/precision.h"

static const char *const names[DTS_PREC_COUNT] = { "fp32", "tf32", "fp16", "bf16", "fp8" };

const char *
dts_precision_to_string (DtsPrecision p)
{
  g_return_val_if_fail (p < DTS_PREC_COUNT, "?");
  return names[p];
}

gboolean
dts_precision_from_string (const char *s, DtsPrecision *out, GError **error)
{
  for (int i = 0; i < DTS_PREC_COUNT; i++) {
    if (s && g_ascii_strcasecmp (s, names[i]) == 0) {
      *out = (DtsPrecision) i;
      return TRUE;
    }
  }
  g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
               "unknown precision '%s' (known: fp32, tf32, fp16, bf16, fp8)", s ? s : "");
  return FALSE;
}

double
dts_precision_elem_bytes (DtsPrecision p)
{
  /* fp8 keeps activations in bf16: Transformer Engine casts a GEMM's
   * inputs to FP8 inside the fused cast/GEMM path, and what is stored
   * between layers is bf16. */
  return (p == DTS_PREC_FP16 || p == DTS_PREC_BF16 || p == DTS_PREC_FP8) ? 2.0 : 4.0;
}

DtsPrecision
dts_precision_non_gemm (DtsPrecision p)
{
  return p == DTS_PREC_FP8 ? DTS_PREC_BF16 : p;
}
