/* options.c - names of the option values shared by the run layers. */
#include "config.h"

#include <string.h>

#include "core/error.h"
#include "schedule/options.h"

static const char *const granularities[DTS_GRANULARITY_COUNT] = {
  [DTS_GRANULARITY_STEP] = "step",
  [DTS_GRANULARITY_FLOW] = "flow",
};

const char *
dts_granularity_to_string (DtsGranularity g)
{
  g_return_val_if_fail (g >= 0 && g < DTS_GRANULARITY_COUNT, "?");
  return granularities[g];
}

gboolean
dts_granularity_from_string (const char *s, DtsGranularity *out, GError **error)
{
  for (int g = 0; g < DTS_GRANULARITY_COUNT; g++)
    if (s != NULL && strcmp (s, granularities[g]) == 0) {
      *out = g;
      return TRUE;
    }
  g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
               "unknown --comm-granularity '%s' (known: step, flow)", s ? s : "");
  return FALSE;
}
