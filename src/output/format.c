/* format.c - readable numbers for text outputs (see format.h).
 *
 * A display value is SI x mul / div with one of the two equal to 1: units
 * above SI divide (bytes / 1e9), units below multiply (seconds * 1e3), as
 * the outputs were first written by hand. x / 1e9 and x * 1e-9 can differ in
 * the last bit, and a last bit can change a rounded digit, so the table
 * keeps the operation and not just a factor; that keeps every output byte
 * what it was. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "output/format.h"

typedef struct {
  const char *symbol;
  double mul;
  double div;
} Unit;

static const Unit units[DTS_FORMAT_UNIT_COUNT_] = {
  [DTS_FORMAT_UNIT_S] = { "s", 1, 1 },
  [DTS_FORMAT_UNIT_MS] = { "ms", 1e3, 1 },
  [DTS_FORMAT_UNIT_US] = { "us", 1e6, 1 },
  [DTS_FORMAT_UNIT_B] = { "B", 1, 1 },
  [DTS_FORMAT_UNIT_KB] = { "kB", 1, 1e3 },
  [DTS_FORMAT_UNIT_MB] = { "MB", 1, 1e6 },
  [DTS_FORMAT_UNIT_GB] = { "GB", 1, 1e9 },
  [DTS_FORMAT_UNIT_GIB] = { "GiB", 1, 1073741824.0 },
  [DTS_FORMAT_UNIT_MIB] = { "MiB", 1, 1048576.0 },
  [DTS_FORMAT_UNIT_KIB] = { "KiB", 1, 1024.0 },
  [DTS_FORMAT_UNIT_GBPS] = { "GB/s", 1, 1e9 },
  [DTS_FORMAT_UNIT_GBITPS] = { "Gb/s", 8, 1e9 },
  [DTS_FORMAT_UNIT_TFLOPS] = { "TFLOP/s", 1, 1e12 },
  [DTS_FORMAT_UNIT_MEGA] = { "M", 1, 1e6 },
  [DTS_FORMAT_UNIT_GIGA] = { "G", 1, 1e9 },
};

/* Candidates of the automatic units, largest first; the last one takes
 * whatever is left. A threshold is the smallest SI value the unit shows. */
typedef struct {
  DtsFormatUnit unit;
  double threshold;
  int decimals;
} Step;

static const Step time_steps[] = {
  { DTS_FORMAT_UNIT_S, 1, 3 },
  { DTS_FORMAT_UNIT_MS, 1e-3, 3 },
  { DTS_FORMAT_UNIT_US, 0, 3 },
};

/* Whole bytes have no fraction to show. */
static const Step byte_steps[] = {
  { DTS_FORMAT_UNIT_GB, 1e9, 2 },
  { DTS_FORMAT_UNIT_MB, 1e6, 2 },
  { DTS_FORMAT_UNIT_KB, 1e3, 2 },
  { DTS_FORMAT_UNIT_B, 0, 0 },
};

static const Step mem_steps[] = {
  { DTS_FORMAT_UNIT_GIB, 1073741824.0, 2 },
  { DTS_FORMAT_UNIT_MIB, 1048576.0, 2 },
  { DTS_FORMAT_UNIT_KIB, 1024.0, 2 },
  { DTS_FORMAT_UNIT_B, 0, 0 },
};

static const Unit *
unit_get (DtsFormatUnit unit)
{
  g_return_val_if_fail (unit >= 0 && unit < DTS_FORMAT_UNIT_COUNT_, &units[DTS_FORMAT_UNIT_S]);
  return &units[unit];
}

const char *
dts_format_unit_symbol (DtsFormatUnit unit)
{
  return unit_get (unit)->symbol;
}

double
dts_format_in (double si, DtsFormatUnit unit)
{
  const Unit *u = unit_get (unit);
  return si * u->mul / u->div;
}

/* printf's CONVERSION ('f' or 'g') with PRECISION of V, in the C locale. */
static const char *
format_number (DtsFormatBuf *buf, double v, int precision, char conversion)
{
  char format[16];
  g_snprintf (format, sizeof format, "%%.%d%c", precision, conversion);
  return g_ascii_formatd (buf->str, sizeof buf->str, format, v);
}

const char *
dts_format_fixed (DtsFormatBuf *buf, double si, DtsFormatUnit unit, int decimals)
{
  g_return_val_if_fail (decimals >= 0 && decimals <= 17, NULL);
  return format_number (buf, dts_format_in (si, unit), decimals, 'f');
}

const char *
dts_format_sig (DtsFormatBuf *buf, double si, DtsFormatUnit unit, int digits)
{
  g_return_val_if_fail (digits >= 1 && digits <= 17, NULL);
  return format_number (buf, dts_format_in (si, unit), digits, 'g');
}

/* "NUMBER SYMBOL" in the unit and with the decimals of STEP. */
static const char *
with_symbol (DtsFormatBuf *buf, double si, const Step *step)
{
  DtsFormatBuf number;
  dts_format_fixed (&number, si, step->unit, step->decimals);
  g_snprintf (buf->str, sizeof buf->str, "%s %s", number.str, dts_format_unit_symbol (step->unit));
  return buf->str;
}

const char *
dts_format_time (DtsFormatBuf *buf, double s)
{
  /* Zero reads better as "0.000 s" than as "0.000 us". */
  double a = fabs (s);
  guint i = 0;
  if (a != 0)
    while (i + 1 < G_N_ELEMENTS (time_steps) && !(a >= time_steps[i].threshold))
      i++;
  return with_symbol (buf, s, &time_steps[i]);
}

const char *
dts_format_bytes (DtsFormatBuf *buf, double bytes)
{
  guint i = 0;
  while (i + 1 < G_N_ELEMENTS (byte_steps) && !(bytes >= byte_steps[i].threshold))
    i++;
  return with_symbol (buf, bytes, &byte_steps[i]);
}

const char *
dts_format_mem (DtsFormatBuf *buf, double bytes)
{
  guint i = 0;
  while (i + 1 < G_N_ELEMENTS (mem_steps) && !(bytes >= mem_steps[i].threshold))
    i++;
  return with_symbol (buf, bytes, &mem_steps[i]);
}

const char *
dts_format_grouped (DtsFormatBuf *buf, double v)
{
  DtsFormatBuf digits;
  format_number (&digits, v, 0, 'f');
  gsize n = strlen (digits.str);
  gsize o = 0;
  for (gsize i = 0; i < n && o + 2 < sizeof buf->str; i++) {
    if (i > 0 && (n - i) % 3 == 0 && digits.str[i - 1] != '-')
      buf->str[o++] = ',';
    buf->str[o++] = digits.str[i];
  }
  buf->str[o] = '\0';
  return buf->str;
}
