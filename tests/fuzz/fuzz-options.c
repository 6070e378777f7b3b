/* fuzz-options.c - libFuzzer target: the parsers of option values that
 * reach SimGrid: quantities with units, what-if overrides (--set,
 * --scale) and --cfg items. Each line of the input is one value given to
 * each parser; every parser must accept it or set an error, and what it
 * accepts must be finite and, for overrides, inside the ranges of
 * platform/ranges.h. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/units.h"
#include "fuzz-common.h"
#include "platform/override.h"
#include "platform/ranges.h"
#include "sim/sim.h"

static const DtsUnitKind kinds[] = {
  DTS_UNIT_NONE, DTS_UNIT_BANDWIDTH, DTS_UNIT_FLOPS, DTS_UNIT_TIME, DTS_UNIT_BYTES,
};

static void
one_value (const char *text)
{
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++) {
    double v = -1;
    g_autoptr (GError) error = NULL;
    if (dts_units_parse (text, kinds[k], &v, &error)) {
      if (!isfinite (v) || v < 0 || error != NULL)
        abort ();
    } else if (error == NULL) {
      abort ();
    }
  }
  int n = -1;
  g_autoptr (GError) int_error = NULL;
  if (dts_units_parse_int (text, &n, &int_error) ? n < 0 : int_error == NULL)
    abort ();
  for (int scale = 0; scale < 2; scale++) {
    DtsOverride o = { 0 };
    g_autoptr (GError) error = NULL;
    if (dts_override_parse (text, scale, &o, &error)) {
      if (!isfinite (o.value) || (scale && !dts_range_contains (DTS_RANGE_FACTOR, o.value)))
        abort ();
      dts_override_clear (&o);
    } else if (error == NULL) {
      abort ();
    }
  }
  char *cfg[] = { (char *) text, NULL };
  g_autoptr (GError) cfg_error = NULL;
  if (!dts_sim_cfg_check (cfg, &cfg_error) && cfg_error == NULL)
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_auto (GStrv) lines = g_strsplit (text, "\n", 64);
  for (char **l = lines; *l; l++)
    one_value (*l);
  return 0;
}
