/* override.c - parse what-if overrides and apply the GPU ones to the
 * platform view (see override.h for the syntax).
 *
 * A --set replaces a value, a --scale multiplies it by a positive factor.
 * Targets and their fields are the table below; GPU fields are those of
 * the catalogue (gpu.h's field table), plus `flops` for --scale (every
 * precision at once). Link and host overrides are only parsed here and are
 * applied to SimGrid's platform by src/sim/override.c. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "core/units.h"
#include "platform/gpu.h"
#include "platform/override.h"
#include "platform/ranges.h"

typedef struct {
  const char *field;
  DtsUnitKind unit;  /* for --set */
  gboolean zero_ok;  /* for --set */
} FieldRow;

typedef struct {
  const char *word;       /* "link" in link:GLOB.field, "network" in network.field */
  gboolean has_glob;
  DtsOverrideTarget target;
  const FieldRow *fields; /* NULL: the GPU field table */
  gboolean set_ok;        /* --set allowed (global targets are --scale only) */
} TargetRow;

static const FieldRow link_fields[] = {
  { "bandwidth", DTS_UNIT_BANDWIDTH, FALSE }, { "latency", DTS_UNIT_TIME, TRUE }, { NULL, 0, 0 },
};
static const FieldRow host_fields[] = {
  { "speed", DTS_UNIT_FLOPS, FALSE }, { NULL, 0, 0 },
};
static const FieldRow gpu_all_fields[] = {
  { "flops", DTS_UNIT_FLOPS, FALSE }, { "mem_bw", DTS_UNIT_BANDWIDTH, FALSE }, { NULL, 0, 0 },
};

static const TargetRow targets[] = {
  { "link", TRUE, DTS_OVERRIDE_LINK, link_fields, TRUE },
  { "host", TRUE, DTS_OVERRIDE_HOST, host_fields, TRUE },
  { "gpu", TRUE, DTS_OVERRIDE_GPU, NULL, TRUE },
  { "network", FALSE, DTS_OVERRIDE_NETWORK, link_fields, FALSE },
  { "gpu", FALSE, DTS_OVERRIDE_GPU_ALL, gpu_all_fields, FALSE },
  { NULL, FALSE, 0, NULL, FALSE },
};

void
dts_override_clear (DtsOverride *o)
{
  g_clear_pointer (&o->text, g_free);
  g_clear_pointer (&o->glob, g_free);
  g_clear_pointer (&o->field, g_free);
}

static void
override_clear_func (gpointer p)
{
  dts_override_clear (p);
}

GArray *
dts_overrides_new (void)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (DtsOverride));
  g_array_set_clear_func (a, override_clear_func);
  return a;
}

static gboolean G_GNUC_PRINTF (4, 5)
bad (GError **error, gboolean is_scale, const char *text, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--%s '%s': %s", is_scale ? "scale" : "set",
               text, msg);
  return FALSE;
}

/* "bandwidth, latency" for error messages. */
static char *
field_list (const TargetRow *t, gboolean is_scale)
{
  if (t->fields == NULL) {
    const char *props = dts_gpu_field_properties ();
    return is_scale ? g_strconcat ("flops, ", props, NULL) : g_strdup (props);
  }
  g_autoptr (GString) s = g_string_new (NULL);
  for (const FieldRow *f = t->fields; f->field; f++)
    g_string_append_printf (s, "%s%s", s->len ? ", " : "", f->field);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* The range of each field (platform/ranges.h). A field matches a row by
 * name or by the prefix before '*'; fields without a row (memory size, SM
 * count) have none. */
static const struct {
  const char *field;
  DtsRangeKind kind;
} value_ranges[] = {
  { "bandwidth", DTS_RANGE_BANDWIDTH }, { "mem_bw", DTS_RANGE_BANDWIDTH },
  { "latency", DTS_RANGE_LATENCY },     { "speed", DTS_RANGE_SPEED },
  { "flops_*", DTS_RANGE_SPEED },
};

static gboolean
field_range (const char *field, DtsRangeKind *kind)
{
  for (guint i = 0; i < G_N_ELEMENTS (value_ranges); i++) {
    const char *f = value_ranges[i].field;
    gsize len = strlen (f);
    gboolean hit = f[len - 1] == '*' ? strncmp (field, f, len - 1) == 0 : strcmp (field, f) == 0;
    if (hit) {
      *kind = value_ranges[i].kind;
      return TRUE;
    }
  }
  return FALSE;
}

gboolean
dts_override_parse (const char *text, gboolean is_scale, DtsOverride *out, GError **error)
{
  g_return_val_if_fail (text != NULL && out != NULL, FALSE);
  const char *syntax = is_scale ? "expected network.FIELD=F, gpu.FIELD=F or "
                                  "link:GLOB.FIELD=F, host:GLOB.FIELD=F, gpu:GLOB.FIELD=F"
                                : "expected link:GLOB.FIELD=VALUE, host:GLOB.FIELD=VALUE or "
                                  "gpu:GLOB.FIELD=VALUE";
  const char *eq = strchr (text, '=');
  if (eq == NULL || eq == text)
    return bad (error, is_scale, text, "%s", syntax);
  g_autofree char *lhs = g_strndup (text, eq - text);
  const char *value = eq + 1;

  /* TARGET:GLOB.FIELD (the field is after the last dot: globs may hold
   * dots, field names do not) or TARGET.FIELD. */
  g_autofree char *word = NULL;
  g_autofree char *glob = NULL;
  g_autofree char *field = NULL;
  const char *colon = strchr (lhs, ':');
  if (colon) {
    word = g_strndup (lhs, colon - lhs);
    const char *dot = strrchr (colon + 1, '.');
    if (dot == NULL || dot == colon + 1 || dot[1] == '\0')
      return bad (error, is_scale, text, "%s", syntax);
    glob = g_strndup (colon + 1, dot - colon - 1);
    field = g_strdup (dot + 1);
  } else {
    const char *dot = strchr (lhs, '.');
    if (dot == NULL || dot == lhs || dot[1] == '\0')
      return bad (error, is_scale, text, "%s", syntax);
    word = g_strndup (lhs, dot - lhs);
    field = g_strdup (dot + 1);
  }

  const TargetRow *t = NULL;
  for (const TargetRow *r = targets; r->word; r++)
    if (strcmp (r->word, word) == 0 && r->has_glob == (glob != NULL))
      t = r;
  if (t == NULL)
    return bad (error, is_scale, text, "unknown target '%s%s' (%s)", word, glob ? ":" : "",
                syntax);
  if (!is_scale && !t->set_ok)
    return bad (error, is_scale, text,
                "'%s.%s' applies to every %s: use --scale with a factor, or --set on "
                "%s:GLOB.%s",
                word, field, strcmp (word, "gpu") == 0 ? "GPU" : "link",
                strcmp (word, "gpu") == 0 ? "gpu" : "link", field);

  /* The field and its unit. */
  const FieldRow *fr = NULL;
  const DtsGpuField *gf = NULL;
  gboolean all_flops = FALSE;
  if (t->fields) {
    for (const FieldRow *f = t->fields; f->field; f++)
      if (strcmp (f->field, field) == 0)
        fr = f;
  } else {
    gf = dts_gpu_field_by_property (field);
    all_flops = is_scale && strcmp (field, "flops") == 0;
  }
  if (fr == NULL && gf == NULL && !all_flops) {
    g_autofree char *known = field_list (t, is_scale);
    return bad (error, is_scale, text, "unknown field '%s' for %s (known: %s)", field, word,
                known);
  }

  double v = 0;
  g_autoptr (GError) local = NULL;
  if (is_scale) {
    if (!dts_units_parse (value, DTS_UNIT_NONE, &v, &local))
      return bad (error, is_scale, text, "%s", local->message);
    if (!(v > 0))
      return bad (error, is_scale, text, "the factor must be positive, got '%s'", value);
    if (!dts_range_contains (DTS_RANGE_FACTOR, v))
      return bad (error, is_scale, text, "factor %g is out of range (expected %s)", v,
                  dts_range_describe (DTS_RANGE_FACTOR));
  } else if (gf) {
    if (!dts_gpu_field_parse (gf, value, &v, &local))
      return bad (error, is_scale, text, "%s", local->message);
  } else {
    if (!dts_units_parse (value, fr->unit, &v, &local))
      return bad (error, is_scale, text, "%s", local->message);
    if (v == 0 && !fr->zero_ok)
      return bad (error, is_scale, text, "%s must be positive, got '%s'", field, value);
    DtsRangeKind kind;
    if (field_range (field, &kind) && !dts_range_contains (kind, v))
      return bad (error, is_scale, text, "%g %s is out of range (expected %s)", v,
                  dts_range_get (kind)->unit, dts_range_describe (kind));
  }
  if (glob && *glob == '\0')
    return bad (error, is_scale, text, "empty pattern (use * to match everything)");

  *out = (DtsOverride){
    .text = g_strdup (text),
    .is_scale = is_scale,
    .target = t->target,
    .glob = g_steal_pointer (&glob),
    .field = g_steal_pointer (&field),
    .value = v,
    .matched = 0,
  };
  return TRUE;
}

gboolean
dts_override_check_value (const DtsOverride *o, const char *noun, const char *object,
                          const char *field, double value, GError **error)
{
  DtsRangeKind kind;
  if (!field_range (field, &kind) || dts_range_contains (kind, value))
    return TRUE;
  g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
               "--%s '%s': %s '%s' would get %s %g %s (expected %s)",
               o->is_scale ? "scale" : "set", o->text, noun, object, field, value,
               dts_range_get (kind)->unit, dts_range_describe (kind));
  return FALSE;
}

static gboolean
is_gpu_target (DtsOverrideTarget t)
{
  return t == DTS_OVERRIDE_GPU || t == DTS_OVERRIDE_GPU_ALL;
}

/* Apply O to the spec of GPU. */
static gboolean
apply_to_spec (const DtsOverride *o, DtsGpu *gpu, GError **error)
{
  DtsGpuSpec *spec = &gpu->spec;
  for (const DtsGpuField *f = dts_gpu_fields (); f->attr; f++) {
    gboolean hit = strcmp (f->property, o->field) == 0
                   || (strcmp (o->field, "flops") == 0 && g_str_has_prefix (f->property, "flops_"));
    if (!hit)
      continue;
    double v = o->is_scale ? dts_gpu_spec_get_field (spec, f) * o->value : o->value;
    if (f->is_int)
      v = round (v);
    /* 0 FLOP/s: a precision the GPU does not have (it runs at the fp32 rate) */
    if (!(v == 0 && f->zero_ok)
        && !dts_override_check_value (o, "GPU", gpu->host, f->property, v, error))
      return FALSE;
    dts_gpu_spec_set_field (spec, f, v);
  }
  return TRUE;
}

gboolean
dts_override_apply_gpus (GArray *overrides, DtsPlatform *platform, GError **error)
{
  g_return_val_if_fail (overrides != NULL && platform != NULL, FALSE);
  for (guint i = 0; i < overrides->len; i++) {
    DtsOverride *o = &g_array_index (overrides, DtsOverride, i);
    if (!is_gpu_target (o->target))
      continue;
    g_autoptr (GPatternSpec) pattern = o->glob ? g_pattern_spec_new (o->glob) : NULL;
    o->matched = 0;
    for (guint r = 0; r < platform->gpus->len; r++) {
      DtsGpu *g = &g_array_index (platform->gpus, DtsGpu, r);
      if (pattern && !g_pattern_spec_match_string (pattern, g->host))
        continue;
      if (!apply_to_spec (o, g, error))
        return FALSE;
      o->matched++;
    }
    if (o->matched == 0) {
      const DtsGpu *first = dts_platform_gpu (platform, 0);
      const DtsGpu *last = dts_platform_gpu (platform, platform->gpus->len - 1);
      g_set_error (error, DTS_ERROR, DTS_ERROR_NOT_FOUND,
                   "--%s '%s': no GPU host matches '%s' (GPU hosts: %s .. %s)",
                   o->is_scale ? "scale" : "set", o->text, o->glob, first->host, last->host);
      return FALSE;
    }
  }
  return TRUE;
}

DtsPlatform *
dts_override_load_platform (const char *path, GArray *overrides, GError **error)
{
  g_autoptr (DtsGpuCatalog) catalog = dts_gpu_catalog_load (NULL, error);
  if (catalog == NULL)
    return NULL;
  g_autoptr (DtsPlatform) platform = dts_platform_load (path, catalog, error);
  if (platform == NULL)
    return NULL;
  if (overrides != NULL && !dts_override_apply_gpus (overrides, platform, error))
    return NULL;
  return g_steal_pointer (&platform);
}
