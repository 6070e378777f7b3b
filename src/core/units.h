/* units.h - parse quantities with units at the edges of dtsim.
 *
 * Everything inside dtsim is SI: bytes, bytes per second, FLOP/s, seconds.
 * Text such as "25Gbps", "900GB/s", "15.7TFLOPS" or "1.5us" is turned into SI
 * here and nowhere else.
 *
 * Accepted forms (case of the prefix letter matters: m is milli, M is mega):
 *   DTS_UNIT_BANDWIDTH  bits:  "25Gbps", "100Gb/s", "10Mbps"     -> value / 8 B/s
 *                       bytes: "900GB/s", "12.5GBps", "1.2TB/s", "16GiB/s" -> B/s
 *                       a bare number is B/s (SimGrid's convention).
 *   DTS_UNIT_FLOPS      "15.7TFLOPS", "312Tf", "1.5e12", "19.5TFLOP/s" -> FLOP/s
 *                       ("f" is SimGrid's flop unit; a bare number is FLOP/s)
 *   DTS_UNIT_TIME       "1.5us", "2ns", "3ms", "0.1s", "1.5" (seconds)
 *   DTS_UNIT_BYTES      "16GB", "32GiB", "25MB", "4096", "4KiB"
 *   DTS_UNIT_NONE       a plain number, no suffix allowed
 * Decimal prefixes k M G T P are powers of 1000, binary Ki Mi Gi Ti of 1024.
 * Negative values, NaN, infinities and trailing garbage are errors; zero is
 * accepted (callers that need positive values say so). */
#ifndef DTS_CORE_UNITS_H
#define DTS_CORE_UNITS_H

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  DTS_UNIT_NONE,
  DTS_UNIT_BANDWIDTH,
  DTS_UNIT_FLOPS,
  DTS_UNIT_TIME,
  DTS_UNIT_BYTES,
} DtsUnitKind;

/* Parse TEXT as a quantity of KIND into *OUT (SI). On failure sets a
 * DTS_ERROR_PARSE error whose message quotes TEXT and says what was expected. */
gboolean dts_units_parse (const char *text, DtsUnitKind kind, double *out, GError **error);

/* g_ascii_strtod for decimal numbers only: the digits, point and exponent
 * of a C decimal literal with an optional sign. Hexadecimal ("0x10f" would
 * be 271), "inf", "nan" and "infinity" read as no number (*END == TEXT). */
double dts_units_strtod (const char *text, char **end);

/* Parse a non-negative integer (no unit) that fits in an int. */
gboolean dts_units_parse_int (const char *text, int *out, GError **error);

/* A short human description of what KIND accepts, e.g. "a bandwidth such as 25Gbps or 900GB/s". */
const char *dts_units_describe (DtsUnitKind kind);

G_END_DECLS

#endif
