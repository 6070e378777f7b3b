/* ranges.c - the accepted ranges of simulated quantities (ranges.h). */
#include "config.h"

#include <math.h>

#include "platform/ranges.h"

static const struct {
  DtsRange range;
  const char *described;
} ranges[] = {
  [DTS_RANGE_SPEED] = { { 1, 1e21, FALSE, "flop/s" }, "1 to 1e+21 flop/s" },
  [DTS_RANGE_BANDWIDTH] = { { 1, 1e18, FALSE, "B/s" }, "1 to 1e+18 B/s" },
  /* 1 ps is SimGrid's smallest time unit. */
  [DTS_RANGE_LATENCY] = { { 1e-12, 1e6, TRUE, "s" }, "0, or 1e-12 to 1e+06 s" },
  [DTS_RANGE_FACTOR] = { { 1e-6, 1e6, FALSE, "" }, "1e-06 to 1e+06" },
};

const DtsRange *
dts_range_get (DtsRangeKind kind)
{
  g_return_val_if_fail ((guint) kind < G_N_ELEMENTS (ranges), NULL);
  return &ranges[kind].range;
}

gboolean
dts_range_contains (DtsRangeKind kind, double v)
{
  const DtsRange *r = dts_range_get (kind);
  if (v == 0)
    return r->zero_ok;
  return isfinite (v) && v >= r->min && v <= r->max;
}

const char *
dts_range_describe (DtsRangeKind kind)
{
  g_return_val_if_fail ((guint) kind < G_N_ELEMENTS (ranges), "");
  return ranges[kind].described;
}
