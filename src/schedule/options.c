/* options.c - names of the option values shared by the run layers. */
#include "config.h"

#include <string.h>

#include "core/error.h"
#include "schedule/options.h"

static const char *const granularities[DTS_GRANULARITY_COUNT] = {
  [DTS_GRANULARITY_STEP] = "step",
  [DTS_GRANULARITY_FLOW] = "flow",
  [DTS_GRANULARITY_ANALYTIC] = "analytic",
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
               "unknown --comm-granularity '%s' (known: step, flow, analytic)", s ? s : "");
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

/* Index of S in NAMES (N of them), or DTS_ERROR_USAGE "unknown --FLAG". */
static gboolean
lookup (const char *const *names, int n, const char *flag, const char *s, int *out,
        GError **error)
{
  g_autoptr (GString) known = g_string_new (NULL);
  for (int i = 0; i < n; i++) {
    if (s != NULL && strcmp (s, names[i]) == 0) {
      *out = i;
      return TRUE;
    }
    g_string_append_printf (known, "%s%s", i ? ", " : "", names[i]);
  }
  g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "unknown --%s '%s' (known: %s)", flag,
               s ? s : "", known->str);
  return FALSE;
}

static const char *const pipeline_schedules[DTS_PIPELINE_COUNT] = {
  [DTS_PIPELINE_1F1B] = "1f1b",
  [DTS_PIPELINE_GPIPE] = "gpipe",
};

const char *
dts_pipeline_schedule_to_string (DtsPipelineSchedule p)
{
  g_return_val_if_fail (p >= 0 && p < DTS_PIPELINE_COUNT, "?");
  return pipeline_schedules[p];
}

gboolean
dts_pipeline_schedule_from_string (const char *s, DtsPipelineSchedule *out, GError **error)
{
  int i;
  if (!lookup (pipeline_schedules, DTS_PIPELINE_COUNT, "pipeline-schedule", s, &i, error))
    return FALSE;
  *out = i;
  return TRUE;
}

static const char *const recomputes[DTS_RECOMPUTE_COUNT] = {
  [DTS_RECOMPUTE_NONE] = "none",
  [DTS_RECOMPUTE_SELECTIVE] = "selective",
  [DTS_RECOMPUTE_FULL] = "full",
};

const char *
dts_recompute_to_string (DtsRecompute r)
{
  g_return_val_if_fail (r >= 0 && r < DTS_RECOMPUTE_COUNT, "?");
  return recomputes[r];
}

gboolean
dts_recompute_from_string (const char *s, DtsRecompute *out, GError **error)
{
  int i;
  if (!lookup (recomputes, DTS_RECOMPUTE_COUNT, "recompute", s, &i, error))
    return FALSE;
  *out = i;
  return TRUE;
}

static const char *const placements[DTS_PLACEMENT_COUNT] = {
  [DTS_PLACEMENT_REPLICAS_INSIDE] = "replicas-inside",
  [DTS_PLACEMENT_STAGES_INSIDE] = "stages-inside",
};

const char *
dts_placement_to_string (DtsPlacement p)
{
  g_return_val_if_fail (p >= 0 && p < DTS_PLACEMENT_COUNT, "?");
  return placements[p];
}

gboolean
dts_placement_from_string (const char *s, DtsPlacement *out, GError **error)
{
  int i;
  if (!lookup (placements, DTS_PLACEMENT_COUNT, "placement", s, &i, error))
    return FALSE;
  *out = i;
  return TRUE;
}

static const char *const tp_overlaps[DTS_TP_OVERLAP_COUNT] = {
  [DTS_TP_OVERLAP_NONE] = "none",
  [DTS_TP_OVERLAP_BACKWARD] = "backward",
  [DTS_TP_OVERLAP_ALL] = "all",
};

const char *
dts_tp_overlap_to_string (DtsTpOverlap t)
{
  g_return_val_if_fail (t >= 0 && t < DTS_TP_OVERLAP_COUNT, "?");
  return tp_overlaps[t];
}

gboolean
dts_tp_overlap_from_string (const char *s, DtsTpOverlap *out, GError **error)
{
  int i;
  if (!lookup (tp_overlaps, DTS_TP_OVERLAP_COUNT, "tp-overlap", s, &i, error))
    return FALSE;
  *out = i;
  return TRUE;
}
