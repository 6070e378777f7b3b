/* gpu.c - GPU specs and the GPU catalogue (platforms/gpus.xml).
 *
 * A catalogue entry is the vendor's peak numbers for one device: FP32 on the
 * CUDA cores, TF32/FP16/BF16 (and FP8 where the GPU has it: Hopper and
 * newer) on tensor cores (dense rates), memory bandwidth
 * and size, SM count, and the document they come from. Peaks are boost-clock
 * figures as NVIDIA states them; efficiency below peak is the cost models'
 * business, not the catalogue's. A precision a device lacks is 0 and runs at
 * the FP32 rate (dts_gpu_spec_flops), which is what frameworks do: TF32 math
 * mode is ignored before Ampere, and mixed precision without fast FP16 stores
 * FP16 but computes in FP32.
 *
 * The catalogue is validated like any input: unknown or missing attributes,
 * bad units, non-positive required values and duplicate ids are errors with
 * the file and the line. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/datadir.h"
#include "core/error.h"
#include "core/xml.h"
#include "platform/gpu.h"
#include "platform/ranges.h"

#define KIND "GPU catalogue"

struct _DtsGpuCatalog {
  char *path;
  GArray *specs; /* DtsGpuSpec, file order */
};

/* Where each field lives in DtsGpuSpec: peak_flops[PREC] for the rates,
 * else a named member. Kept beside the public table, same order. */
typedef enum { SLOT_FLOPS, SLOT_MEM_BW, SLOT_MEM, SLOT_SM } Slot;
typedef struct {
  Slot slot;
  DtsPrecision prec;
} FieldSlot;

static const DtsGpuField fields[] = {
  { "fp32", "flops_fp32", DTS_UNIT_FLOPS, FALSE, FALSE, FALSE },
  { "tf32", "flops_tf32", DTS_UNIT_FLOPS, TRUE, FALSE, FALSE },
  { "fp16", "flops_fp16", DTS_UNIT_FLOPS, TRUE, FALSE, FALSE },
  { "bf16", "flops_bf16", DTS_UNIT_FLOPS, TRUE, FALSE, FALSE },
  { "fp8", "flops_fp8", DTS_UNIT_FLOPS, TRUE, FALSE, TRUE },
  { "mem-bw", "mem_bw", DTS_UNIT_BANDWIDTH, FALSE, FALSE, FALSE },
  { "mem", "mem", DTS_UNIT_BYTES, FALSE, FALSE, FALSE },
  { "sm", "sm_count", DTS_UNIT_NONE, FALSE, TRUE, FALSE },
  { NULL, NULL, DTS_UNIT_NONE, FALSE, FALSE, FALSE },
};
static const FieldSlot slots[] = {
  { SLOT_FLOPS, DTS_PREC_FP32 }, { SLOT_FLOPS, DTS_PREC_TF32 }, { SLOT_FLOPS, DTS_PREC_FP16 },
  { SLOT_FLOPS, DTS_PREC_BF16 }, { SLOT_FLOPS, DTS_PREC_FP8 },  { SLOT_MEM_BW, 0 },
  { SLOT_MEM, 0 },               { SLOT_SM, 0 },
};
G_STATIC_ASSERT (G_N_ELEMENTS (slots) + 1 == G_N_ELEMENTS (fields));

/* String attributes of <gpu>, all required and non-empty. */
static const char *const string_attrs[] = { "id", "name", "arch", "source", NULL };

const DtsGpuField *
dts_gpu_fields (void)
{
  return fields;
}

const DtsGpuField *
dts_gpu_field_by_property (const char *name)
{
  for (const DtsGpuField *f = fields; f->attr; f++)
    if (g_strcmp0 (f->property, name) == 0)
      return f;
  return NULL;
}

const char *
dts_gpu_field_properties (void)
{
  static char *list = NULL;
  if (g_once_init_enter (&list)) {
    g_autoptr (GString) s = g_string_new (NULL);
    for (const DtsGpuField *f = fields; f->attr; f++)
      g_string_append_printf (s, "%s%s", s->len ? ", " : "", f->property);
    g_once_init_leave (&list, g_string_free (g_steal_pointer (&s), FALSE));
  }
  return list;
}

static const FieldSlot *
slot_of (const DtsGpuField *field)
{
  g_assert (field >= fields && field < fields + G_N_ELEMENTS (slots));
  return &slots[field - fields];
}

double
dts_gpu_spec_get_field (const DtsGpuSpec *spec, const DtsGpuField *field)
{
  const FieldSlot *s = slot_of (field);
  switch (s->slot) {
  case SLOT_FLOPS:
    return spec->peak_flops[s->prec];
  case SLOT_MEM_BW:
    return spec->mem_bw_Bps;
  case SLOT_MEM:
    return spec->mem_bytes;
  case SLOT_SM:
    return spec->sm_count;
  }
  g_assert_not_reached ();
}

void
dts_gpu_spec_set_field (DtsGpuSpec *spec, const DtsGpuField *field, double value)
{
  const FieldSlot *s = slot_of (field);
  switch (s->slot) {
  case SLOT_FLOPS:
    spec->peak_flops[s->prec] = value;
    return;
  case SLOT_MEM_BW:
    spec->mem_bw_Bps = value;
    return;
  case SLOT_MEM:
    spec->mem_bytes = value;
    return;
  case SLOT_SM:
    spec->sm_count = (int) value;
    return;
  }
  g_assert_not_reached ();
}

gboolean
dts_gpu_field_parse (const DtsGpuField *field, const char *text, double *out, GError **error)
{
  double v = 0;
  if (field->is_int) {
    int n = 0;
    if (!dts_units_parse_int (text, &n, error))
      return FALSE;
    v = n;
  } else if (!dts_units_parse (text, field->unit, &v, error)) {
    return FALSE;
  }
  if (v <= 0 && !field->zero_ok) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "'%s' must be positive (%s)", text,
                 field->is_int ? "a positive integer" : dts_units_describe (field->unit));
    return FALSE;
  }
  /* Rates SimGrid computes with (platform/ranges.h); 0 is "absent". */
  DtsRangeKind kind = field->unit == DTS_UNIT_FLOPS ? DTS_RANGE_SPEED : DTS_RANGE_BANDWIDTH;
  if (v != 0 && (field->unit == DTS_UNIT_FLOPS || field->unit == DTS_UNIT_BANDWIDTH)
      && !field->is_int && !dts_range_contains (kind, v)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "'%s' is out of range (expected %s)", text,
                 dts_range_describe (kind));
    return FALSE;
  }
  *out = v;
  return TRUE;
}

void
dts_gpu_spec_copy (DtsGpuSpec *dst, const DtsGpuSpec *src)
{
  *dst = *src;
  dst->id = g_strdup (src->id);
  dst->full_name = g_strdup (src->full_name);
  dst->arch = g_strdup (src->arch);
  dst->chip = g_strdup (src->chip);
  dst->source = g_strdup (src->source);
}

void
dts_gpu_spec_clear (DtsGpuSpec *spec)
{
  if (spec == NULL)
    return;
  g_clear_pointer (&spec->id, g_free);
  g_clear_pointer (&spec->full_name, g_free);
  g_clear_pointer (&spec->arch, g_free);
  g_clear_pointer (&spec->chip, g_free);
  g_clear_pointer (&spec->source, g_free);
}

double
dts_gpu_spec_flops (const DtsGpuSpec *spec, DtsPrecision p, DtsPrecision *used)
{
  g_return_val_if_fail (spec != NULL, 0);
  DtsPrecision u = p;
  if (p >= DTS_PREC_COUNT || !(spec->peak_flops[p] > 0))
    u = DTS_PREC_FP32;
  if (used != NULL)
    *used = u;
  return spec->peak_flops[u];
}

double
dts_gpu_spec_die_flops (const DtsGpuSpec *spec, DtsPrecision p)
{
  DtsPrecision used = DTS_PREC_FP32;
  double flops = dts_gpu_spec_flops (spec, p, &used);
  if (used != DTS_PREC_FP32 && spec->acc32_share > 0 && spec->acc32_share < 1)
    flops /= spec->acc32_share;
  return flops;
}

/* One row per architecture released after the cost models were fitted:
 * its nearest measured family. */
static const struct {
  const char *arch, *stand_in;
} stand_ins[] = {
  { "Blackwell", "Hopper" },
};

const char *
dts_gpu_arch_stand_in (const char *arch)
{
  for (guint i = 0; arch != NULL && i < G_N_ELEMENTS (stand_ins); i++)
    if (g_ascii_strcasecmp (arch, stand_ins[i].arch) == 0)
      return stand_ins[i].stand_in;
  return NULL;
}

static void
spec_clear_func (gpointer p)
{
  dts_gpu_spec_clear (p);
}

void
dts_gpu_catalog_free (DtsGpuCatalog *cat)
{
  if (cat == NULL)
    return;
  g_free (cat->path);
  g_array_unref (cat->specs);
  g_free (cat);
}

static gboolean
is_known_attr (const char *name)
{
  for (const char *const *s = string_attrs; *s; s++)
    if (strcmp (*s, name) == 0)
      return TRUE;
  if (strcmp (name, "chip") == 0 || strcmp (name, "acc32-share") == 0)
    return TRUE;
  for (const DtsGpuField *f = fields; f->attr; f++)
    if (strcmp (f->attr, name) == 0)
      return TRUE;
  return FALSE;
}

static char *
known_attrs (void)
{
  g_autoptr (GString) s = g_string_new (NULL);
  for (const char *const *a = string_attrs; *a; a++)
    g_string_append_printf (s, "%s%s", s->len ? ", " : "", *a);
  g_string_append (s, ", chip, acc32-share");
  for (const DtsGpuField *f = fields; f->attr; f++)
    g_string_append_printf (s, ", %s", f->attr);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static gboolean
load_entry (DtsGpuCatalog *cat, xmlNode *node, GError **error)
{
  const char *path = cat->path;
  int line = dts_xml_line (node);
  for (xmlAttr *a = node->properties; a; a = a->next) {
    if (!is_known_attr ((const char *) a->name)) {
      g_autofree char *known = known_attrs ();
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   KIND " '%s': line %d: <gpu> has an unknown attribute '%s' (known: %s)", path,
                   line, (const char *) a->name, known);
      return FALSE;
    }
  }

  DtsGpuSpec spec = { 0 };
  char **strings[] = { &spec.id, &spec.full_name, &spec.arch, &spec.source };
  G_STATIC_ASSERT (G_N_ELEMENTS (strings) + 1 == G_N_ELEMENTS (string_attrs));
  for (guint i = 0; string_attrs[i]; i++) {
    g_autofree char *v = dts_xml_get_attr (node, string_attrs[i]);
    if (v == NULL || *g_strstrip (v) == '\0') {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   KIND " '%s': line %d: <gpu%s%s> needs a non-empty attribute '%s'", path, line,
                   spec.id ? " id=" : "", spec.id ? spec.id : "", string_attrs[i]);
      dts_gpu_spec_clear (&spec);
      return FALSE;
    }
    *strings[i] = g_steal_pointer (&v);
  }
  /* optional: the die, for framework keys finer than the architecture */
  spec.chip = dts_xml_get_attr (node, "chip");
  if (spec.chip != NULL && *g_strstrip (spec.chip) == '\0') {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 KIND " '%s': line %d: <gpu id=%s> attribute 'chip' is empty (omit it, or "
                 "name the die: GA102)", path, line, spec.id);
    dts_gpu_spec_clear (&spec);
    return FALSE;
  }
  /* optional: GeForce's halved FP32-accumulate tensor rate */
  g_autofree char *share = dts_xml_get_attr (node, "acc32-share");
  spec.acc32_share = 1;
  if (share != NULL) {
    char *end;
    double v = g_ascii_strtod (g_strstrip (share), &end);
    if (end == share || *end != '\0' || !(v > 0 && v <= 1)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   KIND " '%s': line %d: <gpu id=%s> attribute 'acc32-share': '%s': expected "
                   "a number in (0, 1], the share of the die's tensor rate at FP32 accumulate "
                   "(0.5 on GeForce; omit it for 1)",
                   path, line, spec.id, share);
      dts_gpu_spec_clear (&spec);
      return FALSE;
    }
    spec.acc32_share = v;
  }

  for (const DtsGpuField *f = fields; f->attr; f++) {
    g_autofree char *v = dts_xml_get_attr (node, f->attr);
    g_autoptr (GError) local = NULL;
    double value = 0;
    if (v == NULL && f->optional)
      continue; /* absent: 0, unsupported */
    if (v == NULL) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   KIND " '%s': line %d: <gpu id=%s> needs attribute '%s' (%s%s)", path, line,
                   spec.id, f->attr,
                   f->is_int ? "a positive integer" : dts_units_describe (f->unit),
                   f->zero_ok ? "; 0 if unsupported" : "");
      dts_gpu_spec_clear (&spec);
      return FALSE;
    }
    if (!dts_gpu_field_parse (f, v, &value, &local)) {
      g_set_error (error, DTS_ERROR, local->code, KIND " '%s': line %d: <gpu id=%s> attribute '%s': %s",
                   path, line, spec.id, f->attr, local->message);
      dts_gpu_spec_clear (&spec);
      return FALSE;
    }
    dts_gpu_spec_set_field (&spec, f, value);
  }

  const DtsGpuSpec *prev = dts_gpu_catalog_lookup (cat, spec.id);
  if (prev != NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 KIND " '%s': line %d: GPU id '%s' is already defined (as '%s'; ids are "
                 "case-insensitive)",
                 path, line, spec.id, prev->id);
    dts_gpu_spec_clear (&spec);
    return FALSE;
  }
  g_array_append_val (cat->specs, spec);
  return TRUE;
}

DtsGpuCatalog *
dts_gpu_catalog_load (const char *path, GError **error)
{
  g_autofree char *shipped = NULL;
  if (path == NULL)
    path = shipped = g_build_filename (dts_datadir_get (), "platforms", "gpus.xml", NULL);

  g_autoptr (xmlDoc) doc = dts_xml_load (path, KIND, error);
  if (doc == NULL)
    return NULL;
  xmlNode *root = xmlDocGetRootElement (doc);
  if (xmlStrcmp (root->name, (const xmlChar *) "gpus") != 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 KIND " '%s': line %d: root element is <%s> (expected <gpus version=\"1\">)",
                 path, dts_xml_line (root), (const char *) root->name);
    return NULL;
  }
  g_autofree char *version = dts_xml_get_attr (root, "version");
  if (g_strcmp0 (version, "1") != 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 KIND " '%s': line %d: <gpus> version '%s' is not supported (expected 1)", path,
                 dts_xml_line (root), version ? version : "");
    return NULL;
  }

  g_autoptr (DtsGpuCatalog) cat = g_new0 (DtsGpuCatalog, 1);
  cat->path = g_strdup (path);
  cat->specs = g_array_new (FALSE, TRUE, sizeof (DtsGpuSpec));
  g_array_set_clear_func (cat->specs, spec_clear_func);
  for (xmlNode *n = root->children; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    if (xmlStrcmp (n->name, (const xmlChar *) "gpu") != 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   KIND " '%s': line %d: unexpected element <%s> in <gpus> (expected <gpu>)",
                   path, dts_xml_line (n), (const char *) n->name);
      return NULL;
    }
    if (!load_entry (cat, n, error))
      return NULL;
  }
  if (cat->specs->len == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, KIND " '%s': line %d: no <gpu> entries",
                 path, dts_xml_line (root));
    return NULL;
  }
  return g_steal_pointer (&cat);
}

const DtsGpuSpec *
dts_gpu_catalog_lookup (const DtsGpuCatalog *cat, const char *id)
{
  g_return_val_if_fail (cat != NULL, NULL);
  if (id == NULL)
    return NULL;
  for (guint i = 0; i < cat->specs->len; i++) {
    const DtsGpuSpec *s = &g_array_index (cat->specs, DtsGpuSpec, i);
    if (g_ascii_strcasecmp (s->id, id) == 0)
      return s;
  }
  return NULL;
}

const DtsGpuSpec *
dts_gpu_catalog_get (const DtsGpuCatalog *cat, const char *id, GError **error)
{
  const DtsGpuSpec *s = dts_gpu_catalog_lookup (cat, id);
  if (s != NULL)
    return s;
  g_autoptr (GString) known = g_string_new (NULL);
  for (guint i = 0; i < cat->specs->len; i++)
    g_string_append_printf (known, "%s%s", i ? ", " : "",
                            g_array_index (cat->specs, DtsGpuSpec, i).id);
  g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "unknown GPU '%s' (known: %s)", id ? id : "",
               known->str);
  return NULL;
}

guint
dts_gpu_catalog_size (const DtsGpuCatalog *cat)
{
  g_return_val_if_fail (cat != NULL, 0);
  return cat->specs->len;
}

const DtsGpuSpec *
dts_gpu_catalog_index (const DtsGpuCatalog *cat, guint i)
{
  g_return_val_if_fail (cat != NULL && i < cat->specs->len, NULL);
  return &g_array_index (cat->specs, DtsGpuSpec, i);
}
