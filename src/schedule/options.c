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

static const char *const aggregations[DTS_PS_AGGREGATION_COUNT] = {
  [DTS_PS_AGGREGATION_NONE] = "none",
  [DTS_PS_AGGREGATION_NODE] = "node",
};

const char *
dts_ps_aggregation_to_string (DtsPsAggregation a)
{
  g_return_val_if_fail (a >= 0 && a < DTS_PS_AGGREGATION_COUNT, "?");
  return aggregations[a];
}

gboolean
dts_ps_aggregation_from_string (const char *s, DtsPsAggregation *out, GError **error)
{
  for (int a = 0; a < DTS_PS_AGGREGATION_COUNT; a++)
    if (s != NULL && strcmp (s, aggregations[a]) == 0) {
      *out = a;
      return TRUE;
    }
  g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
               "unknown --ps-aggregation '%s' (known: none, node)", s ? s : "");
  return FALSE;
}
