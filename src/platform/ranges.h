/* ranges.h - the one accepted range of every number that reaches SimGrid.
 *
 * Speeds, bandwidths, latencies and factors come from platform files, GPU
 * catalogue entries and properties, what-if overrides (--set, --scale), the
 * platform generator and --cfg. All of them are checked against the rows
 * below, so that `dtsim info`, `dtsim run` and `dtsim allreduce` accept the
 * same values and `dtsim platform` never writes a file dtsim refuses
 * (doc/ROBUSTNESS.md lists them). Why bounds at all: beyond them SimGrid's
 * arithmetic breaks down, measured with SimGrid 3.32: 1e300 B/s overflows;
 * 1e-300 B/s or flop/s leaves transfers and kernels that never end; a
 * latency of 1e-310 s (a denormal) makes the max-min solver abort
 * ("Impossible"); 1e-13 flop/s rounds compute away; 1.7e308 flop/s ends in
 * "Deadlock detected". The ranges are many orders of magnitude around any
 * hardware and well inside what doubles handle. */
#ifndef DTS_PLATFORM_RANGES_H
#define DTS_PLATFORM_RANGES_H

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  DTS_RANGE_SPEED,     /* host speeds and GPU peak rates: flop/s, FLOP/s */
  DTS_RANGE_BANDWIDTH, /* link and GPU memory bandwidths: B/s */
  DTS_RANGE_LATENCY,   /* link latencies: s */
  DTS_RANGE_FACTOR,    /* --scale factors, --cfg network/latency-factor and bandwidth-factor */
} DtsRangeKind;

typedef struct {
  double min, max;  /* inclusive, for non-zero values */
  gboolean zero_ok; /* 0 itself is accepted (a latency of 0) */
  const char *unit; /* SI unit for messages ("B/s"), "" for factors */
} DtsRange;

const DtsRange *dts_range_get (DtsRangeKind kind);

/* TRUE when V is accepted for KIND (NaN and infinities never are). */
gboolean dts_range_contains (DtsRangeKind kind, double v);

/* "1 to 1e+18 B/s", "0, or 1e-12 to 1e+06 s": for "(expected ...)". */
const char *dts_range_describe (DtsRangeKind kind);

G_END_DECLS

#endif
