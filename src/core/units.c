/* units.c - quantity parsing (see units.h for the accepted forms).
 *
 * The number is read with g_ascii_strtod (locale-independent), then the suffix
 * is split into an SI/binary prefix and a unit word that must fit the kind. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "core/units.h"

typedef struct {
  const char *word;
  double factor; /* multiply the number by this to get SI */
} UnitWord;

/* Unit words per kind, after the prefix is removed. Empty word = bare number. */
static const UnitWord bandwidth_words[] = {
  { "bps", 1.0 / 8.0 }, { "b/s", 1.0 / 8.0 }, { "Bps", 1.0 }, { "B/s", 1.0 }, { "", 1.0 }, { NULL, 0 },
};
static const UnitWord flops_words[] = {
  { "FLOPS", 1.0 }, { "FLOP/s", 1.0 }, { "flops", 1.0 }, { "f", 1.0 }, { "", 1.0 }, { NULL, 0 },
};
static const UnitWord time_words[] = {
  { "s", 1.0 }, { "", 1.0 }, { NULL, 0 },
};
static const UnitWord bytes_words[] = {
  { "B", 1.0 }, { "", 1.0 }, { NULL, 0 },
};
static const UnitWord none_words[] = {
  { "", 1.0 }, { NULL, 0 },
};

typedef struct {
  const char *prefix;
  double factor;
} Prefix;

/* Longest first so that "Gi" is tried before "G". */
static const Prefix prefixes[] = {
  { "Ki", 1024.0 }, { "Mi", 1048576.0 }, { "Gi", 1073741824.0 }, { "Ti", 1099511627776.0 },
  { "k", 1e3 }, { "K", 1e3 }, { "M", 1e6 }, { "G", 1e9 }, { "T", 1e12 }, { "P", 1e15 },
  { "m", 1e-3 }, { "u", 1e-6 }, { "n", 1e-9 }, { "p", 1e-12 },
  { "", 1.0 }, { NULL, 0 },
};

const char *
dts_units_describe (DtsUnitKind kind)
{
  switch (kind) {
  case DTS_UNIT_BANDWIDTH:
    return "a bandwidth such as 25Gbps, 100Gb/s or 900GB/s";
  case DTS_UNIT_FLOPS:
    return "a compute rate such as 15.7TFLOPS or 1.5e12";
  case DTS_UNIT_TIME:
    return "a time such as 1.5us, 2ns, 3ms or 0.1s";
  case DTS_UNIT_BYTES:
    return "a size such as 16GB, 32GiB or 4096";
  case DTS_UNIT_NONE:
  default:
    return "a number";
  }
}

static const UnitWord *
words_for (DtsUnitKind kind)
{
  switch (kind) {
  case DTS_UNIT_BANDWIDTH:
    return bandwidth_words;
  case DTS_UNIT_FLOPS:
    return flops_words;
  case DTS_UNIT_TIME:
    return time_words;
  case DTS_UNIT_BYTES:
    return bytes_words;
  case DTS_UNIT_NONE:
  default:
    return none_words;
  }
}

/* Binary and sub-unit prefixes only make sense for some kinds. */
static gboolean
prefix_allowed (DtsUnitKind kind, const Prefix *p)
{
  if (p->prefix[0] == '\0')
    return TRUE;
  if (kind == DTS_UNIT_NONE)
    return FALSE;
  if (p->factor < 1.0)
    return kind == DTS_UNIT_TIME;
  if (kind == DTS_UNIT_TIME)
    return FALSE;
  return TRUE;
}

double
dts_units_strtod (const char *text, char **end)
{
  const char *p = text;
  while (g_ascii_isspace (*p))
    p++;
  if (*p == '+' || *p == '-')
    p++;
  /* A decimal literal starts with a digit or a point followed by one; a
   * hexadecimal one with "0x", and inf/nan with a letter. */
  gboolean decimal = g_ascii_isdigit (p[0]) || (p[0] == '.' && g_ascii_isdigit (p[1]));
  if (!decimal || (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))) {
    *end = (char *) text;
    return 0;
  }
  return g_ascii_strtod (text, end);
}

gboolean
dts_units_parse (const char *text, DtsUnitKind kind, double *out, GError **error)
{
  g_return_val_if_fail (out != NULL, FALSE);

  if (text == NULL || *text == '\0') {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "empty value: expected %s",
                 dts_units_describe (kind));
    return FALSE;
  }
  g_autofree char *s = g_strstrip (g_strdup (text));
  char *end = NULL;
  double v = dts_units_strtod (s, &end);
  if (end == s || !isfinite (v)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "'%s' is not %s", text,
                 dts_units_describe (kind));
    return FALSE;
  }
  if (v < 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "'%s' is negative: expected %s", text,
                 dts_units_describe (kind));
    return FALSE;
  }
  while (*end == ' ')
    end++;
  for (const Prefix *p = prefixes; p->prefix; p++) {
    size_t pl = strlen (p->prefix);
    if (strncmp (end, p->prefix, pl) != 0 || !prefix_allowed (kind, p))
      continue;
    for (const UnitWord *w = words_for (kind); w->word; w++) {
      if (strcmp (end + pl, w->word) != 0)
        continue;
      /* A bare prefix without unit word ("25G") is ambiguous for bandwidth
       * (bits or bytes?) and for time ("3m"): refuse it. */
      if (pl > 0 && w->word[0] == '\0' && (kind == DTS_UNIT_BANDWIDTH || kind == DTS_UNIT_TIME))
        continue;
      /* "1e308PB" overflows to infinity: not a quantity either. */
      double si = v * p->factor * w->factor;
      if (!isfinite (si)) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "'%s' is too large: expected %s", text,
                     dts_units_describe (kind));
        return FALSE;
      }
      *out = si;
      return TRUE;
    }
  }
  g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "'%s' has an unknown unit '%s': expected %s",
               text, end, dts_units_describe (kind));
  return FALSE;
}

gboolean
dts_units_parse_int (const char *text, int *out, GError **error)
{
  g_return_val_if_fail (out != NULL, FALSE);
  guint64 v = 0;
  g_autoptr (GError) local = NULL;
  if (text == NULL
      || !g_ascii_string_to_unsigned (text, 10, 0, G_MAXINT, &v, &local)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                 "'%s' is not a non-negative integer", text ? text : "");
    return FALSE;
  }
  *out = (int) v;
  return TRUE;
}
