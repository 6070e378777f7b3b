/* precision.c - precision names and element sizes. */
#include "config.h"

#include <string.h>

#include "core/error.h"
#include "core/precision.h"

static const char *const names[DTS_PREC_COUNT] = { "fp32", "tf32", "fp16", "bf16" };

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
               "unknown precision '%s' (known: fp32, tf32, fp16, bf16)", s ? s : "");
  return FALSE;
}

double
dts_precision_elem_bytes (DtsPrecision p)
{
  return (p == DTS_PREC_FP16 || p == DTS_PREC_BF16) ? 2.0 : 4.0;
}
