/* format.h - readable numbers for text outputs: SI values in, text out.
 *
 * The text writers (`dtsim run`'s summary, `dtsim info`) show quantities in
 * display units: times in ms or us, sizes in MB or GiB, bandwidths in GB/s
 * or Gb/s, rates in TFLOP/s. The SI-to-display factor of each unit lives in
 * one table here, so a caller names the unit and never multiplies by 1e6 or
 * 8/1e9 itself (the commonest wrong-answer bug in a simulator).
 *
 * Every function is deterministic and locale-independent (GLib's
 * g_ascii_formatd: '.' as decimal point, no grouping), and writes into a
 * caller's DtsFormatBuf, returning its text; a buffer holds one result at a
 * time, so a printf of three numbers uses three buffers. The buffer fits
 * any double in any of these forms: nothing is truncated. NaN and
 * infinities come out as "nan", "inf", "-inf" (what printf writes). */
#ifndef DTS_OUTPUT_FORMAT_H
#define DTS_OUTPUT_FORMAT_H

#include <glib.h>

G_BEGIN_DECLS

/* 309 digits of DBL_MAX, 102 separators, sign, decimals and a unit. */
#define DTS_FORMAT_BUF_SIZE 512

typedef struct {
  char str[DTS_FORMAT_BUF_SIZE];
} DtsFormatBuf;

/* Display units. The symbol is what dts_format_unit_symbol() returns. */
typedef enum {
  DTS_FORMAT_UNIT_S,      /* "s"       seconds */
  DTS_FORMAT_UNIT_MS,     /* "ms"      1e-3 s */
  DTS_FORMAT_UNIT_US,     /* "us"      1e-6 s */
  DTS_FORMAT_UNIT_B,      /* "B"       bytes */
  DTS_FORMAT_UNIT_KB,     /* "kB"      1e3 bytes */
  DTS_FORMAT_UNIT_MB,     /* "MB"      1e6 bytes */
  DTS_FORMAT_UNIT_GB,     /* "GB"      1e9 bytes */
  DTS_FORMAT_UNIT_GIB,    /* "GiB"     2^30 bytes */
  DTS_FORMAT_UNIT_MIB,    /* "MiB"     2^20 bytes */
  DTS_FORMAT_UNIT_KIB,    /* "KiB"     2^10 bytes */
  DTS_FORMAT_UNIT_GBPS,   /* "GB/s"    1e9 bytes per second */
  DTS_FORMAT_UNIT_GBITPS, /* "Gb/s"    1e9 bits per second, from bytes per second */
  DTS_FORMAT_UNIT_TFLOPS, /* "TFLOP/s" 1e12 FLOP per second */
  DTS_FORMAT_UNIT_MEGA,   /* "M"       1e6 of a count (MFLOP) */
  DTS_FORMAT_UNIT_GIGA,   /* "G"       1e9 of a count (GFLOP, G MACs) */
  DTS_FORMAT_UNIT_COUNT_  /* not a unit: the size of the table */
} DtsFormatUnit;

/* The unit's symbol, e.g. "ms" or "GB/s" (static). */
const char *dts_format_unit_symbol (DtsFormatUnit unit);

/* SI value SI expressed in UNIT: dts_format_in (0.0125, DTS_FORMAT_UNIT_MS)
 * is 12.5. */
double dts_format_in (double si, DtsFormatUnit unit);

/* SI in UNIT with DECIMALS (0 to 17) digits after the point, no symbol:
 * "%.3f" of the scaled value, e.g. "12.500". */
const char *dts_format_fixed (DtsFormatBuf *buf, double si, DtsFormatUnit unit, int decimals);

/* SI in UNIT rounded to DIGITS (1 to 17) significant digits, no symbol:
 * "%.4g" of the scaled value, e.g. "15.7", "125", "1.25e+04". For table
 * cells whose header names the unit. */
const char *dts_format_sig (DtsFormatBuf *buf, double si, DtsFormatUnit unit, int digits);

/* A time with 3 decimals in the largest of s, ms, us that keeps it >= 1
 * (0 is "0.000 s"; below 1 us stays in us): "204.904 ms", "3.753 us". */
const char *dts_format_time (DtsFormatBuf *buf, double s);

/* A size in decimal units with 2 decimals in the largest of GB, MB, kB
 * that keeps it >= 1, else whole bytes: "9.96 GB", "25.00 MB", "512 B". */
const char *dts_format_bytes (DtsFormatBuf *buf, double bytes);

/* A size in binary units with 2 decimals in the largest of GiB, MiB, KiB
 * that keeps it >= 1, else whole bytes: "9.28 GiB", "97.49 MiB". For memory,
 * which devices and `dtsim info` count in GiB. */
const char *dts_format_mem (DtsFormatBuf *buf, double bytes);

/* V rounded to an integer with a comma every three digits: "25,557,032",
 * "-1,000". */
const char *dts_format_grouped (DtsFormatBuf *buf, double v);

G_END_DECLS

#endif
