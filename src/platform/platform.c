/* platform.c - read a SimGrid platform file (DTD 4.1) into dtsim's view:
 * GPUs, nodes, rank order, links.
 *
 * The file is read with libxml2, never SimGrid, so that every mistake has a
 * file and a line before the simulator starts; the same file is later given
 * unchanged to SimGrid by src/sim/. Two things follow:
 *  - numbers in SimGrid attributes (speed, bandwidth, latency) are parsed
 *    with SimGrid's own unit rules (15.7Tf, 12.5GBps, 100Gbps, 1us), not
 *    dtsim's wider ones, so that nothing accepted here is refused there;
 *    dtsim's own properties (flops_fp32, mem_bw, ...) use core/units.h;
 *  - what SimGrid 3.32 would refuse, or worse accept and abort on later, is
 *    checked here when the file alone shows it (measured with SimGrid 3.32):
 *    its parser needs the exact DOCTYPE line, versions 4 to 4.1, <prop>s
 *    first in a zone, a zone holding sub-zones or hosts/routers but not
 *    both, unique host/router/zone names and link ids, links declared
 *    before the routes that use them, a direction on split-duplex links
 *    and on those only. It silently accepts negative bandwidths and zero
 *    speeds: dtsim refuses them.
 *
 * dtsim's conventions on top (see platform.h and doc/PLATFORMS.md): the
 * properties gpu, node, rank and the GPU field overrides are looked up on
 * the host, then on each enclosing cluster and zone, innermost first.
 * Cluster-generated links are recorded as one pattern row each
 * (SimGrid names them ID_link_N[_UP|_DOWN], ID_link_N_limiter,
 * ID_link_N_loopback, ID_backbone). */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "core/error.h"
#include "core/input.h"
#include "core/xml.h"
#include "platform/platform.h"
#include "platform/ranges.h"

/* A cluster radical that expands to more hosts than this is a typo. */
#define MAX_CLUSTER_HOSTS (1 << 20)

/* ---- SimGrid units ---------------------------------------------------------
 * As in SimGrid 3.32's xbt_parse_units: a number followed by a prefixed
 * unit; a bare number is accepted (SimGrid warns that it is deprecated). */

typedef struct {
  const char *prefix;
  double factor;
} SgPrefix;

static const SgPrefix sg_decimal[] = {
  { "", 1 }, { "k", 1e3 }, { "M", 1e6 }, { "G", 1e9 }, { "T", 1e12 },
  { "P", 1e15 }, { "E", 1e18 }, { "Z", 1e21 }, { "Y", 1e24 }, { NULL, 0 },
};
static const SgPrefix sg_binary[] = {
  { "Ki", 1024.0 }, { "Mi", 1048576.0 }, { "Gi", 1073741824.0 }, { "Ti", 1099511627776.0 },
  { "Pi", 1125899906842624.0 }, { "Ei", 1152921504606846976.0 }, { NULL, 0 },
};
static const SgPrefix sg_words[] = {
  { "", 1 }, { "kilo", 1e3 }, { "mega", 1e6 }, { "giga", 1e9 }, { "tera", 1e12 },
  { "peta", 1e15 }, { "exa", 1e18 }, { NULL, 0 },
};
static const SgPrefix sg_time[] = {
  { "w", 604800 }, { "d", 86400 }, { "h", 3600 }, { "m", 60 }, { "s", 1 },
  { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 }, { "ps", 1e-12 }, { NULL, 0 },
};

typedef struct {
  const char *unit;
  double factor;
  const SgPrefix *prefixes;
} SgUnit;

static const SgUnit sg_speed_units[] = {
  { "f", 1, sg_decimal }, { "flops", 1, sg_words }, { NULL, 0, NULL },
};
static const SgUnit sg_bandwidth_units[] = {
  { "Bps", 1, sg_decimal }, { "Bps", 1, sg_binary },
  { "bps", 0.125, sg_decimal }, { "bps", 0.125, sg_binary }, { NULL, 0, NULL },
};
static const SgUnit sg_time_units[] = {
  { "", 1, sg_time }, { NULL, 0, NULL },
};

typedef enum { SG_SPEED, SG_BANDWIDTH, SG_TIME } SgKind;

typedef struct {
  const SgUnit *units;
  const char *what;
  gboolean positive;  /* zero is an error (a zero speed or bandwidth never finishes) */
  DtsRangeKind range; /* platform/ranges.h */
} SgKindInfo;

static const SgKindInfo sg_kinds[] = {
  [SG_SPEED] = { sg_speed_units,
                 "a SimGrid speed: f or flops with an optional prefix k, M, G, T, P, e.g. 15.7Tf",
                 TRUE, DTS_RANGE_SPEED },
  [SG_BANDWIDTH] = { sg_bandwidth_units,
                     "a SimGrid bandwidth: Bps or bps with an optional prefix k, M, G, T, Ki, Mi, "
                     "Gi, Ti, e.g. 12.5GBps or 100Gbps",
                     TRUE, DTS_RANGE_BANDWIDTH },
  [SG_TIME] = { sg_time_units, "a SimGrid time: ps, ns, us, ms, s, e.g. 1us or 0.5ms",
                FALSE, DTS_RANGE_LATENCY },
};
/* The ranges are those of what-if overrides and of every other number that
 * reaches SimGrid (platform/ranges.h): beyond them SimGrid's arithmetic
 * breaks down (a 1e-300 B/s link never delivers, 1e300 B/s overflows, a
 * denormal latency aborts its solver, 1e-13 flop/s rounds compute away). */

static gboolean
sg_parse (const char *text, SgKind kind, double *out, GError **error)
{
  const SgKindInfo *k = &sg_kinds[kind];
  char *end = NULL;
  double v = dts_units_strtod (text, &end);
  if (*text == '\0' || g_ascii_isspace (*text) || end == text || !isfinite (v)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "'%s' is not %s", text, k->what);
    return FALSE;
  }
  if (v < 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "'%s' is negative (expected %s)", text,
                 k->what);
    return FALSE;
  }
  double factor = 0;
  if (*end == '\0') {
    factor = 1;
  } else {
    for (const SgUnit *u = k->units; u->unit && factor == 0; u++) {
      size_t ul = strlen (u->unit);
      size_t el = strlen (end);
      if (el < ul || strcmp (end + el - ul, u->unit) != 0)
        continue;
      for (const SgPrefix *p = u->prefixes; p->prefix; p++) {
        if (strlen (p->prefix) == el - ul && strncmp (end, p->prefix, el - ul) == 0) {
          factor = p->factor * u->factor;
          break;
        }
      }
    }
  }
  if (factor == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "'%s' has a unit SimGrid does not know, '%s' (expected %s)",
                 text, end, k->what);
    return FALSE;
  }
  if (v == 0 && k->positive) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "'%s' must be positive (expected %s)", text,
                 k->what);
    return FALSE;
  }
  double si = v * factor;
  if (!dts_range_contains (k->range, si)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "'%s' is out of range (expected %s)", text,
                 dts_range_describe (k->range));
    return FALSE;
  }
  *out = si;
  return TRUE;
}

/* ---- loader state ------------------------------------------------------- */

typedef struct {
  char *name;
  char *value;
  int line;
} Prop;

typedef struct Scope Scope;
struct Scope {
  const Scope *parent;
  const char *id;      /* NULL for <platform> */
  gboolean groups;     /* a zone or a cluster: the default node of its hosts */
  GArray *props;       /* Prop, this element's own */
  GHashTable *routes;  /* zones: "src\ndst" -> line of the route */
};

typedef struct {
  char *host;
  char *node;
  int line;
  int rank;      /* -1 without a rank property */
  int rank_line;
  guint order;   /* document order, the last tie-break */
  DtsGpuSpec spec;
} Pending;

typedef struct {
  const char *what; /* "the <host>", "a host of the <cluster>", ... for messages */
  int line;
} NameInfo;

typedef struct {
  gboolean split;
  int line;
} LinkInfo;

typedef struct {
  const char *path;
  const DtsGpuCatalog *catalog;
  GArray *gpus;          /* Pending */
  GArray *cpus;          /* DtsCpu, node still unresolved */
  GArray *links;         /* DtsLink */
  GHashTable *names;     /* netpoint name -> NameInfo */
  GHashTable *link_ids;  /* explicit link id -> LinkInfo */
  guint n_hosts;         /* hosts so far, cluster hosts included */
} Loader;

static gboolean G_GNUC_PRINTF (5, 6)
fail (const Loader *ld, GError **error, int code, int line, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, DTS_ERROR, code, "platform '%s': line %d: %s", ld->path, line, msg);
  return FALSE;
}

static void
prop_clear (gpointer p)
{
  Prop *prop = p;
  g_free (prop->name);
  g_free (prop->value);
}

static void
pending_clear (gpointer p)
{
  Pending *g = p;
  g_free (g->host);
  g_free (g->node);
  dts_gpu_spec_clear (&g->spec);
}

static void
link_clear (gpointer p)
{
  DtsLink *l = p;
  g_free (l->name);
  g_free (l->sharing);
}

static void
gpu_clear (gpointer p)
{
  DtsGpu *g = p;
  g_free (g->host);
  dts_gpu_spec_clear (&g->spec);
}

static void
cpu_clear (gpointer p)
{
  DtsCpu *c = p;
  g_free (c->host);
  g_free (c->node_name);
}

static void
node_clear (gpointer p)
{
  DtsNode *n = p;
  g_free (n->name);
  if (n->ranks)
    g_array_unref (n->ranks);
}

static void
scope_init (Scope *s, const Scope *parent, const char *id, gboolean groups)
{
  *s = (Scope){ .parent = parent, .id = id, .groups = groups };
  s->props = g_array_new (FALSE, TRUE, sizeof (Prop));
  g_array_set_clear_func (s->props, prop_clear);
}

static void
scope_clear (Scope *s)
{
  g_clear_pointer (&s->props, g_array_unref);
  g_clear_pointer (&s->routes, g_hash_table_unref);
}

/* The innermost value of property NAME seen from S, or NULL. */
static const Prop *
scope_lookup (const Scope *s, const char *name)
{
  for (; s; s = s->parent)
    for (guint i = 0; i < s->props->len; i++) {
      const Prop *p = &g_array_index (s->props, Prop, i);
      if (strcmp (p->name, name) == 0)
        return p;
    }
  return NULL;
}

/* ---- attributes --------------------------------------------------------- */

static gboolean
check_attrs (const Loader *ld, xmlNode *node, const char *const *known, GError **error)
{
  if (known == NULL)
    return TRUE;
  for (xmlAttr *a = node->properties; a; a = a->next) {
    gboolean ok = FALSE;
    for (const char *const *k = known; *k && !ok; k++)
      ok = strcmp (*k, (const char *) a->name) == 0;
    if (!ok) {
      g_autofree char *list = g_strjoinv (", ", (char **) known);
      return fail (ld, error, DTS_ERROR_INVALID, dts_xml_line (node),
                   "<%s> has an unknown attribute '%s' (known: %s)", (const char *) node->name,
                   (const char *) a->name, list);
    }
  }
  return TRUE;
}

/* A required, non-empty attribute (owned), or NULL with an error. */
static char *
req_attr (const Loader *ld, xmlNode *node, const char *name, GError **error)
{
  g_autofree char *v = dts_xml_get_attr (node, name);
  if (v == NULL) {
    fail (ld, error, DTS_ERROR_INVALID, dts_xml_line (node), "<%s> needs attribute '%s'",
          (const char *) node->name, name);
    return NULL;
  }
  if (*v == '\0') {
    fail (ld, error, DTS_ERROR_INVALID, dts_xml_line (node), "<%s> attribute '%s' is empty",
          (const char *) node->name, name);
    return NULL;
  }
  return g_steal_pointer (&v);
}

/* Attribute NAME of NODE as a SimGrid quantity. Absent: an error when
 * REQUIRED, else *OUT is left alone and *PRESENT (if given) is FALSE. */
static gboolean
sg_attr (const Loader *ld, xmlNode *node, const char *name, SgKind kind, gboolean required,
         double *out, gboolean *present, GError **error)
{
  g_autofree char *v = dts_xml_get_attr (node, name);
  if (present)
    *present = v != NULL;
  if (v == NULL) {
    if (!required)
      return TRUE;
    return fail (ld, error, DTS_ERROR_INVALID, dts_xml_line (node),
                 "<%s> needs attribute '%s' (%s)", (const char *) node->name, name,
                 sg_kinds[kind].what);
  }
  g_autoptr (GError) local = NULL;
  if (!sg_parse (v, kind, out, &local))
    return fail (ld, error, local->code, dts_xml_line (node), "<%s> attribute '%s': %s",
                 (const char *) node->name, name, local->message);
  return TRUE;
}

/* A host or cluster speed: one value per power state, comma-separated. */
static gboolean
sg_speed_attr (const Loader *ld, xmlNode *node, GError **error)
{
  g_autofree char *v = req_attr (ld, node, "speed", error);
  if (v == NULL)
    return FALSE;
  g_auto (GStrv) parts = g_strsplit (v, ",", -1);
  for (char **p = parts; *p; p++) {
    double speed = 0;
    g_autoptr (GError) local = NULL;
    if (!sg_parse (*p, SG_SPEED, &speed, &local))
      return fail (ld, error, local->code, dts_xml_line (node), "<%s> attribute 'speed': %s",
                   (const char *) node->name, local->message);
  }
  return TRUE;
}

static gboolean
int_attr (const Loader *ld, xmlNode *node, const char *name, gboolean positive, GError **error)
{
  g_autofree char *v = dts_xml_get_attr (node, name);
  if (v == NULL)
    return TRUE;
  int n = 0;
  g_autoptr (GError) local = NULL;
  if (!dts_units_parse_int (v, &n, &local))
    return fail (ld, error, DTS_ERROR_PARSE, dts_xml_line (node), "<%s> attribute '%s': %s",
                 (const char *) node->name, name, local->message);
  if (positive && n == 0)
    return fail (ld, error, DTS_ERROR_INVALID, dts_xml_line (node),
                 "<%s> attribute '%s' must be positive", (const char *) node->name, name);
  return TRUE;
}

typedef struct {
  const char *value;
  const char *canonical; /* what dtsim reports; FULLDUPLEX is SimGrid's old name */
} Choice;

static const Choice link_sharing[] = {
  { "SHARED", "SHARED" }, { "SPLITDUPLEX", "SPLITDUPLEX" }, { "FULLDUPLEX", "SPLITDUPLEX" },
  { "FATPIPE", "FATPIPE" }, { "WIFI", "WIFI" }, { NULL, NULL },
};
static const Choice cluster_sharing[] = {
  { "SHARED", "SHARED" }, { "SPLITDUPLEX", "SPLITDUPLEX" }, { "FULLDUPLEX", "SPLITDUPLEX" },
  { "FATPIPE", "FATPIPE" }, { NULL, NULL },
};
static const Choice backbone_sharing[] = {
  { "SHARED", "SHARED" }, { "FATPIPE", "FATPIPE" }, { NULL, NULL },
};
static const Choice routings[] = {
  { "Full", NULL }, { "Floyd", NULL }, { "Dijkstra", NULL }, { "DijkstraCache", NULL },
  { "None", NULL }, { "Vivaldi", NULL }, { "Cluster", NULL }, { "Wifi", NULL }, { NULL, NULL },
};
static const Choice topologies[] = {
  { "FLAT", NULL }, { "TORUS", NULL }, { "FAT_TREE", NULL }, { "DRAGONFLY", NULL }, { NULL, NULL },
};
static const Choice directions[] = {
  { "UP", NULL }, { "DOWN", NULL }, { "NONE", NULL }, { NULL, NULL },
};
static const Choice yes_no[] = {
  { "YES", "YES" }, { "yes", "YES" }, { "NO", "NO" }, { "no", "NO" }, { NULL, NULL },
};

/* Attribute NAME of NODE, one of CHOICES, or DEFAULT_VALUE when absent.
 * Returns the matching row, or NULL with an error. */
static const Choice *
choice_attr (const Loader *ld, xmlNode *node, const char *name, const Choice *choices,
             const char *default_value, GError **error)
{
  g_autofree char *v = dts_xml_get_attr (node, name);
  const char *want = v ? v : default_value;
  if (want == NULL) {
    fail (ld, error, DTS_ERROR_INVALID, dts_xml_line (node), "<%s> needs attribute '%s'",
          (const char *) node->name, name);
    return NULL;
  }
  for (const Choice *c = choices; c->value; c++)
    if (strcmp (c->value, want) == 0)
      return c;
  g_autoptr (GString) list = g_string_new (NULL);
  for (const Choice *c = choices; c->value; c++)
    g_string_append_printf (list, "%s%s", list->len ? ", " : "", c->value);
  fail (ld, error, DTS_ERROR_INVALID, dts_xml_line (node),
        "<%s> attribute '%s' is '%s' (expected one of %s)", (const char *) node->name, name, want,
        list->str);
  return NULL;
}

/* ---- names and links ---------------------------------------------------- */

static gboolean
add_name (Loader *ld, const char *name, const char *what, int line, GError **error)
{
  const NameInfo *prev = g_hash_table_lookup (ld->names, name);
  if (prev != NULL)
    return fail (ld, error, DTS_ERROR_INVALID, line,
                 "the name '%s' is already used by %s at line %d (host, router and zone "
                 "names must be unique)",
                 name, prev->what, prev->line);
  if (g_str_has_prefix (what, "the <host>") || g_str_has_prefix (what, "the <peer>")
      || g_str_has_prefix (what, "a host of")) {
    if (++ld->n_hosts > dts_input_max_hosts ())
      return fail (ld, error, DTS_ERROR_INVALID, line,
                   "more than %u hosts, dtsim's platform size limit (raise it with "
                   "'dtsim --max-hosts N COMMAND ...')",
                   dts_input_max_hosts ());
  }
  NameInfo *info = g_new (NameInfo, 1);
  *info = (NameInfo){ what, line };
  g_hash_table_insert (ld->names, g_strdup (name), info);
  return TRUE;
}

static void
add_link_row (Loader *ld, const char *name, double bw, double lat, const char *sharing, int count,
              int line)
{
  DtsLink l = { g_strdup (name), bw, lat, g_strdup (sharing), count, line };
  g_array_append_val (ld->links, l);
}

/* ---- GPUs --------------------------------------------------------------- */

static const char *const dtsim_props[] = { "gpu", "node", "rank", "role", NULL };

static gboolean
is_dtsim_prop (const char *name)
{
  for (const char *const *p = dtsim_props; *p; p++)
    if (strcmp (*p, name) == 0)
      return TRUE;
  return dts_gpu_field_by_property (name) != NULL;
}

/* Names that look like dtsim's but are not: a typo would otherwise be
 * ignored silently like any foreign property. */
static gboolean
is_misspelled_prop (const char *name)
{
  return !is_dtsim_prop (name) && (g_str_has_prefix (name, "flops_") || g_str_has_prefix (name, "mem_"));
}

/* Collect the <prop> children of NODE into S. */
static gboolean
collect_props (Loader *ld, xmlNode *node, Scope *s, GError **error)
{
  static const char *const prop_attrs[] = { "id", "value", NULL };
  for (xmlNode *c = node->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || xmlStrcmp (c->name, (const xmlChar *) "prop") != 0)
      continue;
    int line = dts_xml_line (c);
    if (!check_attrs (ld, c, prop_attrs, error))
      return FALSE;
    g_autofree char *id = req_attr (ld, c, "id", error);
    if (id == NULL)
      return FALSE;
    g_autofree char *value = dts_xml_get_attr (c, "value");
    if (value == NULL)
      return fail (ld, error, DTS_ERROR_INVALID, line, "<prop id=\"%s\"> needs attribute 'value'",
                   id);
    if (is_misspelled_prop (id))
      return fail (ld, error, DTS_ERROR_INVALID, line,
                   "unknown GPU property '%s' (known: gpu, node, rank, %s)", id,
                   dts_gpu_field_properties ());
    if (is_dtsim_prop (id)) {
      if (*g_strstrip (value) == '\0')
        return fail (ld, error, DTS_ERROR_INVALID, line, "property '%s' has an empty value", id);
      for (guint i = 0; i < s->props->len; i++) {
        const Prop *p = &g_array_index (s->props, Prop, i);
        if (strcmp (p->name, id) == 0)
          return fail (ld, error, DTS_ERROR_INVALID, line,
                       "property '%s' is given twice in this <%s> (first at line %d)", id,
                       (const char *) node->name, p->line);
      }
    }
    Prop p = { g_steal_pointer (&id), g_steal_pointer (&value), line };
    g_array_append_val (s->props, p);
  }
  return TRUE;
}

/* The node of a host seen from scope S: its `node` property, else the
 * innermost enclosing zone or cluster (owned). */
static char *
host_node (const Scope *s)
{
  const Prop *node = scope_lookup (s, "node");
  if (node != NULL)
    return g_strdup (node->value);
  const Scope *z = s;
  while (z && !z->groups)
    z = z->parent;
  g_assert (z != NULL && z->id != NULL); /* hosts live in zones or clusters */
  return g_strdup (z->id);
}

/* HOST, without a `gpu` property, is a CPU host if `role` reaches it. */
static gboolean
add_cpu_host (Loader *ld, const char *host, int line, const Scope *s, const Prop *role,
              GError **error)
{
  gboolean ps = strcmp (role->value, "ps") == 0;
  if (!ps && strcmp (role->value, "cpu") != 0)
    return fail (ld, error, DTS_ERROR_INVALID, role->line,
                 "host '%s': property 'role': unknown role '%s' (known: cpu, ps)", host,
                 role->value);
  DtsCpu c = { .host = g_strdup (host), .node_name = host_node (s), .node = -1, .ps = ps,
               .line = line };
  const Prop *bw = scope_lookup (s, "mem_bw");
  if (bw != NULL) {
    g_autoptr (GError) local = NULL;
    if (!dts_gpu_field_parse (dts_gpu_field_by_property ("mem_bw"), bw->value, &c.mem_bw_Bps,
                              &local)) {
      cpu_clear (&c);
      return fail (ld, error, local->code, bw->line, "host '%s': property 'mem_bw': %s", host,
                   local->message);
    }
  }
  g_array_append_val (ld->cpus, c);
  return TRUE;
}

/* HOST (declared at LINE, seen from scope S) is a GPU if a `gpu` property
 * reaches it: record it with its spec, node and rank. */
static gboolean
add_host (Loader *ld, const char *host, int line, const Scope *s, GError **error)
{
  const Prop *gpu = scope_lookup (s, "gpu");
  const Prop *role = scope_lookup (s, "role");
  if (gpu == NULL)
    return role == NULL || add_cpu_host (ld, host, line, s, role, error);
  if (role != NULL)
    return fail (ld, error, DTS_ERROR_INVALID, role->line,
                 "host '%s': property 'role' on a GPU host (role=%s marks hosts without a "
                 "GPU where parameter servers may run)",
                 host, role->value);
  g_autoptr (GError) local = NULL;
  const DtsGpuSpec *base = dts_gpu_catalog_get (ld->catalog, gpu->value, &local);
  if (base == NULL)
    return fail (ld, error, DTS_ERROR_INVALID, gpu->line, "host '%s': %s", host,
                 local->message);

  Pending g = { .host = g_strdup (host), .line = line, .rank = -1, .order = ld->gpus->len };
  dts_gpu_spec_copy (&g.spec, base);
  g_array_append_val (ld->gpus, g);
  Pending *pg = &g_array_index (ld->gpus, Pending, ld->gpus->len - 1);

  for (const DtsGpuField *f = dts_gpu_fields (); f->attr; f++) {
    const Prop *p = scope_lookup (s, f->property);
    if (p == NULL)
      continue;
    double v = 0;
    if (!dts_gpu_field_parse (f, p->value, &v, &local))
      return fail (ld, error, local->code, p->line, "host '%s': property '%s': %s", host,
                   f->property, local->message);
    dts_gpu_spec_set_field (&pg->spec, f, v);
  }

  pg->node = host_node (s);

  const Prop *rank = scope_lookup (s, "rank");
  if (rank != NULL) {
    if (!dts_units_parse_int (rank->value, &pg->rank, &local))
      return fail (ld, error, DTS_ERROR_PARSE, rank->line, "host '%s': property 'rank': %s",
                   host, local->message);
    pg->rank_line = rank->line;
  }
  return TRUE;
}

/* ---- elements ----------------------------------------------------------- */

/* Where an element may appear. */
enum {
  IN_PLATFORM = 1 << 0,
  IN_ZONE = 1 << 1,
  IN_HOST = 1 << 2,
  IN_CLUSTER = 1 << 3,
};

/* What an element makes its zone hold (SimGrid: one kind or the other). */
typedef enum { HOLDS_NOTHING, HOLDS_ZONES, HOLDS_HOSTS } Holds;

typedef gboolean (*ElementFn) (Loader *ld, xmlNode *node, Scope *scope, GError **error);

typedef struct {
  const char *name;
  guint where;
  Holds holds;
  ElementFn fn; /* NULL: valid SimGrid, nothing for dtsim to read */
} Element;

static gboolean walk_zone (Loader *ld, xmlNode *node, Scope *scope, GError **error);
static gboolean walk_cluster (Loader *ld, xmlNode *node, Scope *scope, GError **error);
static gboolean walk_host (Loader *ld, xmlNode *node, Scope *scope, GError **error);
static gboolean walk_peer (Loader *ld, xmlNode *node, Scope *scope, GError **error);
static gboolean walk_router (Loader *ld, xmlNode *node, Scope *scope, GError **error);
static gboolean walk_link (Loader *ld, xmlNode *node, Scope *scope, GError **error);
static gboolean walk_backbone (Loader *ld, xmlNode *node, Scope *scope, GError **error);
static gboolean walk_route (Loader *ld, xmlNode *node, Scope *scope, GError **error);
static gboolean walk_host_link (Loader *ld, xmlNode *node, Scope *scope, GError **error);
static gboolean reject (Loader *ld, xmlNode *node, Scope *scope, GError **error);

static const Element elements[] = {
  { "prop", IN_ZONE | IN_HOST | IN_CLUSTER, HOLDS_NOTHING, NULL }, /* see collect_props */
  { "config", IN_PLATFORM, HOLDS_NOTHING, NULL },
  { "zone", IN_PLATFORM | IN_ZONE, HOLDS_ZONES, walk_zone },
  { "AS", IN_PLATFORM | IN_ZONE, HOLDS_ZONES, walk_zone },
  { "cluster", IN_PLATFORM | IN_ZONE, HOLDS_ZONES, walk_cluster },
  { "host", IN_ZONE, HOLDS_HOSTS, walk_host },
  { "peer", IN_ZONE, HOLDS_HOSTS, walk_peer },
  { "router", IN_ZONE, HOLDS_HOSTS, walk_router },
  { "link", IN_ZONE, HOLDS_NOTHING, walk_link },
  { "backbone", IN_ZONE, HOLDS_NOTHING, walk_backbone },
  { "route", IN_ZONE, HOLDS_NOTHING, walk_route },
  { "zoneRoute", IN_ZONE, HOLDS_NOTHING, walk_route },
  { "ASroute", IN_ZONE, HOLDS_NOTHING, walk_route },
  { "bypassRoute", IN_ZONE, HOLDS_NOTHING, walk_route },
  { "bypassZoneRoute", IN_ZONE, HOLDS_NOTHING, walk_route },
  { "bypassASroute", IN_ZONE, HOLDS_NOTHING, walk_route },
  { "host_link", IN_ZONE, HOLDS_NOTHING, walk_host_link },
  { "disk", IN_HOST, HOLDS_NOTHING, NULL },
  { "trace", IN_PLATFORM | IN_ZONE, HOLDS_NOTHING, NULL },
  { "trace_connect", IN_PLATFORM | IN_ZONE, HOLDS_NOTHING, NULL },
  { "actor", IN_PLATFORM, HOLDS_NOTHING, NULL },
  { "process", IN_PLATFORM, HOLDS_NOTHING, NULL },
  { "cabinet", IN_ZONE, HOLDS_HOSTS, reject },
  { "include", IN_PLATFORM | IN_ZONE, HOLDS_NOTHING, reject },
  { NULL, 0, HOLDS_NOTHING, NULL },
};

static const Element *
element_lookup (const char *name)
{
  for (const Element *e = elements; e->name; e++)
    if (strcmp (e->name, name) == 0)
      return e;
  return NULL;
}

static gboolean
reject (Loader *ld, xmlNode *node, Scope *scope, GError **error)
{
  return fail (ld, error, DTS_ERROR_INVALID, dts_xml_line (node),
               "<%s> is not supported by dtsim (describe the hosts with <host> or <cluster> in "
               "this file)",
               (const char *) node->name);
}

/* Walk the element children of NODE, which is a CONTEXT (IN_*), in scope S. */
static gboolean
walk_children (Loader *ld, xmlNode *node, guint context, Scope *s, GError **error)
{
  gboolean seen_other = FALSE;
  xmlNode *first_zone = NULL, *first_host = NULL;
  for (xmlNode *c = node->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE)
      continue;
    const char *name = (const char *) c->name;
    const Element *e = element_lookup (name);
    if (e == NULL)
      return fail (ld, error, DTS_ERROR_INVALID, dts_xml_line (c),
                   "unknown element <%s> in <%s> (not in SimGrid's platform DTD 4.1)", name,
                   (const char *) node->name);
    if (!(e->where & context))
      return fail (ld, error, DTS_ERROR_INVALID, dts_xml_line (c),
                   "<%s> is not allowed in <%s>%s", name, (const char *) node->name,
                   context == IN_PLATFORM ? " (put it in a <zone>)" : "");
    if (strcmp (name, "prop") == 0) {
      if (seen_other && context == IN_ZONE)
        return fail (ld, error, DTS_ERROR_INVALID, dts_xml_line (c),
                     "<prop> must come before the other elements of its <%s>",
                     (const char *) node->name);
      continue;
    }
    seen_other = TRUE;
    if (e->holds == HOLDS_ZONES && first_zone == NULL)
      first_zone = c;
    if (e->holds == HOLDS_HOSTS && first_host == NULL)
      first_host = c;
    if (first_zone && first_host) {
      xmlNode *later = dts_xml_line (first_zone) > dts_xml_line (first_host) ? first_zone
                                                                              : first_host;
      return fail (ld, error, DTS_ERROR_INVALID, dts_xml_line (later),
                   "<%s id=\"%s\"> holds both sub-zones (<%s> at line %d) and hosts or routers "
                   "(<%s> at line %d): SimGrid zones hold one or the other; move the hosts "
                   "into a sub-zone",
                   (const char *) node->name, s->id ? s->id : "", (const char *) first_zone->name,
                   dts_xml_line (first_zone), (const char *) first_host->name,
                   dts_xml_line (first_host));
    }
    if (e->fn != NULL && !e->fn (ld, c, s, error))
      return FALSE;
  }
  return TRUE;
}

/* SimGrid's Full and Floyd zones keep tables of n x n routes over their n
 * hosts, routers and sub-zones (8 and 24 bytes an entry): a Full zone of
 * 10k hosts took 1.2 GB, of 25k 5.7 GB, before anything ran. Such a zone
 * may have 4096 of them (0.4 GB for Floyd), or 1/32 of a host limit raised
 * above its default; Dijkstra zones and clusters grow linearly. */
static gboolean
check_zone_size (const Loader *ld, xmlNode *node, GError **error)
{
  g_autoptr (DtsXmlString) routing = xmlGetNoNsProp (node, (const xmlChar *) "routing");
  if (routing == NULL
      || (strcmp ((const char *) routing, "Full") != 0
          && strcmp ((const char *) routing, "Floyd") != 0))
    return TRUE;
  guint max = MAX (dts_input_max_hosts () / 32, DTS_INPUT_DEFAULT_MAX_HOSTS / 32);
  guint n = 0;
  for (xmlNode *c = node->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE
        && (xmlStrEqual (c->name, (const xmlChar *) "host")
            || xmlStrEqual (c->name, (const xmlChar *) "router")
            || xmlStrEqual (c->name, (const xmlChar *) "peer")
            || xmlStrEqual (c->name, (const xmlChar *) "zone")
            || xmlStrEqual (c->name, (const xmlChar *) "cluster")))
      n++;
  if (n <= max)
    return TRUE;
  return fail (ld, error, DTS_ERROR_INVALID, dts_xml_line (node),
               "<zone> routing '%s' over %u hosts, routers and zones: SimGrid's %s routing "
               "needs memory in the square of that; at most %u (a Dijkstra zone or a "
               "<cluster> grows linearly; 'dtsim --max-hosts N' above %u allows N/32)",
               (const char *) routing, n, (const char *) routing, max,
               (guint) DTS_INPUT_DEFAULT_MAX_HOSTS);
}

static gboolean
walk_zone (Loader *ld, xmlNode *node, Scope *parent, GError **error)
{
  static const char *const attrs[] = { "id", "routing", NULL };
  if (!check_attrs (ld, node, attrs, error))
    return FALSE;
  g_autofree char *id = req_attr (ld, node, "id", error);
  if (id == NULL || !choice_attr (ld, node, "routing", routings, NULL, error))
    return FALSE;
  if (!add_name (ld, id, "the <zone>", dts_xml_line (node), error))
    return FALSE;
  if (!check_zone_size (ld, node, error))
    return FALSE;
  Scope s;
  scope_init (&s, parent, id, TRUE);
  s.routes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gboolean ok = collect_props (ld, node, &s, error) && walk_children (ld, node, IN_ZONE, &s, error);
  scope_clear (&s);
  return ok;
}

static gboolean
walk_host (Loader *ld, xmlNode *node, Scope *parent, GError **error)
{
  static const char *const attrs[] = { "id", "speed", "core", "pstate", "availability_file",
                                       "speed_file", "state_file", "coordinates", NULL };
  if (!check_attrs (ld, node, attrs, error))
    return FALSE;
  g_autofree char *id = req_attr (ld, node, "id", error);
  if (id == NULL || !sg_speed_attr (ld, node, error) || !int_attr (ld, node, "core", TRUE, error)
      || !int_attr (ld, node, "pstate", FALSE, error))
    return FALSE;
  int line = dts_xml_line (node);
  if (!add_name (ld, id, "the <host>", line, error))
    return FALSE;
  Scope s;
  scope_init (&s, parent, id, FALSE);
  gboolean ok = collect_props (ld, node, &s, error)
                && walk_children (ld, node, IN_HOST, &s, error)
                && add_host (ld, id, line, &s, error);
  scope_clear (&s);
  return ok;
}

static gboolean
walk_peer (Loader *ld, xmlNode *node, Scope *parent, GError **error)
{
  static const char *const attrs[] = { "id", "speed", "bw_in", "bw_out", "lat", "coordinates",
                                       "speed_file", "state_file", "availability_file", NULL };
  double bw_in = 0, bw_out = 0, lat = 0;
  if (!check_attrs (ld, node, attrs, error))
    return FALSE;
  g_autofree char *id = req_attr (ld, node, "id", error);
  if (id == NULL || !sg_speed_attr (ld, node, error)
      || !sg_attr (ld, node, "bw_in", SG_BANDWIDTH, TRUE, &bw_in, NULL, error)
      || !sg_attr (ld, node, "bw_out", SG_BANDWIDTH, TRUE, &bw_out, NULL, error)
      || !sg_attr (ld, node, "lat", SG_TIME, FALSE, &lat, NULL, error))
    return FALSE;
  int line = dts_xml_line (node);
  if (!add_name (ld, id, "the <peer>", line, error))
    return FALSE;
  /* SimGrid 3.32 names a peer's links link_ID_UP (bw_out) and link_ID_DOWN
   * (bw_in), without latency (it goes into the Vivaldi coordinates). */
  g_autofree char *up = g_strdup_printf ("link_%s_UP", id);
  g_autofree char *down = g_strdup_printf ("link_%s_DOWN", id);
  add_link_row (ld, up, bw_out, 0, "SPLITDUPLEX", 1, line);
  add_link_row (ld, down, bw_in, 0, "SPLITDUPLEX", 1, line);
  return add_host (ld, id, line, parent, error);
}

static gboolean
walk_router (Loader *ld, xmlNode *node, Scope *parent, GError **error)
{
  static const char *const attrs[] = { "id", "coordinates", NULL };
  if (!check_attrs (ld, node, attrs, error))
    return FALSE;
  g_autofree char *id = req_attr (ld, node, "id", error);
  return id != NULL && add_name (ld, id, "the <router>", dts_xml_line (node), error);
}

static gboolean
walk_link (Loader *ld, xmlNode *node, Scope *parent, GError **error)
{
  static const char *const attrs[] = { "id", "bandwidth", "latency", "sharing_policy",
                                       "bandwidth_file", "latency_file", "state_file", NULL };
  if (!check_attrs (ld, node, attrs, error))
    return FALSE;
  g_autofree char *id = req_attr (ld, node, "id", error);
  if (id == NULL)
    return FALSE;
  const Choice *sharing = choice_attr (ld, node, "sharing_policy", link_sharing, "SHARED", error);
  if (sharing == NULL)
    return FALSE;
  int line = dts_xml_line (node);
  double bw = 0, lat = 0;
  if (strcmp (sharing->canonical, "WIFI") == 0) {
    /* One rate per station class, comma-separated; report the first. */
    g_autofree char *v = req_attr (ld, node, "bandwidth", error);
    if (v == NULL)
      return FALSE;
    g_auto (GStrv) parts = g_strsplit (v, ",", -1);
    for (int i = 0; parts[i]; i++) {
      double r = 0;
      g_autoptr (GError) local = NULL;
      if (!sg_parse (parts[i], SG_BANDWIDTH, &r, &local))
        return fail (ld, error, local->code, line, "<link> attribute 'bandwidth': %s",
                     local->message);
      if (i == 0)
        bw = r;
    }
  } else if (!sg_attr (ld, node, "bandwidth", SG_BANDWIDTH, TRUE, &bw, NULL, error)) {
    return FALSE;
  }
  /* SimGrid 3.32 fails with "cannot parse number" on a <link> without latency. */
  if (!sg_attr (ld, node, "latency", SG_TIME, TRUE, &lat, NULL, error))
    return FALSE;

  const LinkInfo *prev = g_hash_table_lookup (ld->link_ids, id);
  if (prev != NULL)
    return fail (ld, error, DTS_ERROR_INVALID, line, "link '%s' is already declared at line %d",
                 id, prev->line);
  LinkInfo *info = g_new (LinkInfo, 1);
  *info = (LinkInfo){ strcmp (sharing->canonical, "SPLITDUPLEX") == 0, line };
  g_hash_table_insert (ld->link_ids, g_strdup (id), info);
  add_link_row (ld, id, bw, lat, sharing->canonical, 1, line);
  return TRUE;
}

static gboolean
walk_backbone (Loader *ld, xmlNode *node, Scope *parent, GError **error)
{
  static const char *const attrs[] = { "id", "bandwidth", "latency", NULL };
  double bw = 0, lat = 0;
  if (!check_attrs (ld, node, attrs, error))
    return FALSE;
  g_autofree char *id = req_attr (ld, node, "id", error);
  if (id == NULL || !sg_attr (ld, node, "bandwidth", SG_BANDWIDTH, TRUE, &bw, NULL, error)
      || !sg_attr (ld, node, "latency", SG_TIME, TRUE, &lat, NULL, error))
    return FALSE;
  add_link_row (ld, id, bw, lat, "SHARED", 1, dts_xml_line (node));
  return TRUE;
}

/* A link reference: ID with an optional direction, as <link_ctn> and
 * <host_link> make them. Split-duplex links are named ID_UP / ID_DOWN by
 * SimGrid, and a direction picks one; other links take no direction. */
static gboolean
check_link_ref (Loader *ld, xmlNode *node, const char *id, const char *direction, GError **error)
{
  int line = dts_xml_line (node);
  const LinkInfo *info = g_hash_table_lookup (ld->link_ids, id);
  gboolean directed = direction != NULL && strcmp (direction, "NONE") != 0;
  static const char *const halves[] = { "_UP", "_DOWN", NULL };
  for (const char *const *h = halves; info == NULL && !directed && *h; h++) {
    if (!g_str_has_suffix (id, *h))
      continue;
    g_autofree char *base = g_strndup (id, strlen (id) - strlen (*h));
    const LinkInfo *b = g_hash_table_lookup (ld->link_ids, base);
    if (b != NULL && b->split)
      return TRUE;
  }
  if (info == NULL)
    return fail (ld, error, DTS_ERROR_INVALID, line,
                 "<%s> names link '%s', which is not declared before it (declare it with "
                 "<link id=\"%s\" .../> first; cluster links cannot be named)",
                 (const char *) node->name, id, id);
  if (directed && !info->split)
    return fail (ld, error, DTS_ERROR_INVALID, line,
                 "<%s> gives direction=\"%s\" to link '%s', which is not SPLITDUPLEX (line %d)",
                 (const char *) node->name, direction, id, info->line);
  if (!directed && info->split)
    return fail (ld, error, DTS_ERROR_INVALID, line,
                 "<%s> names the SPLITDUPLEX link '%s' (line %d) without a direction (add "
                 "direction=\"UP\" or \"DOWN\")",
                 (const char *) node->name, id, info->line);
  return TRUE;
}

static gboolean
check_netpoint (Loader *ld, xmlNode *node, const char *attr, const char *name, GError **error)
{
  if (g_hash_table_contains (ld->names, name))
    return TRUE;
  return fail (ld, error, DTS_ERROR_INVALID, dts_xml_line (node),
               "<%s> %s='%s' names no host, router or zone declared before it",
               (const char *) node->name, attr, name);
}

static gboolean
walk_route (Loader *ld, xmlNode *node, Scope *zone, GError **error)
{
  static const char *const attrs[] = { "src", "dst", "gw_src", "gw_dst", "symmetrical", NULL };
  static const char *const ctn_attrs[] = { "id", "direction", NULL };
  const char *el = (const char *) node->name;
  gboolean zone_route = strstr (el, "ASroute") || strstr (el, "ZoneRoute") || strcmp (el, "zoneRoute") == 0;
  gboolean bypass = g_str_has_prefix (el, "bypass");
  if (!check_attrs (ld, node, attrs, error))
    return FALSE;
  g_autofree char *src = req_attr (ld, node, "src", error);
  if (src == NULL)
    return FALSE;
  g_autofree char *dst = req_attr (ld, node, "dst", error);
  if (dst == NULL || !check_netpoint (ld, node, "src", src, error)
      || !check_netpoint (ld, node, "dst", dst, error))
    return FALSE;
  if (zone_route) {
    for (const char *const *gw = (const char *const[]){ "gw_src", "gw_dst", NULL }; *gw; gw++) {
      g_autofree char *v = req_attr (ld, node, *gw, error);
      if (v == NULL || !check_netpoint (ld, node, *gw, v, error))
        return FALSE;
    }
  }
  const Choice *sym = choice_attr (ld, node, "symmetrical", yes_no, "YES", error);
  if (sym == NULL)
    return FALSE;

  for (xmlNode *c = node->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE)
      continue;
    if (xmlStrcmp (c->name, (const xmlChar *) "link_ctn") != 0)
      return fail (ld, error, DTS_ERROR_INVALID, dts_xml_line (c),
                   "<%s> is not allowed in <%s> (expected <link_ctn>)", (const char *) c->name,
                   el);
    if (!check_attrs (ld, c, ctn_attrs, error))
      return FALSE;
    g_autofree char *id = req_attr (ld, c, "id", error);
    if (id == NULL)
      return FALSE;
    g_autofree char *dir = dts_xml_get_attr (c, "direction");
    if (dir != NULL && !choice_attr (ld, c, "direction", directions, NULL, error))
      return FALSE;
    if (!check_link_ref (ld, c, id, dir, error))
      return FALSE;
  }

  if (bypass || zone->routes == NULL)
    return TRUE;
  int line = dts_xml_line (node);
  g_autofree char *key = g_strconcat (src, "\n", dst, NULL);
  gpointer prev = g_hash_table_lookup (zone->routes, key);
  if (prev != NULL)
    return fail (ld, error, DTS_ERROR_INVALID, line,
                 "the route from '%s' to '%s' is already declared at line %d (routes are "
                 "symmetrical unless symmetrical=\"NO\")",
                 src, dst, GPOINTER_TO_INT (prev));
  g_hash_table_insert (zone->routes, g_steal_pointer (&key), GINT_TO_POINTER (line));
  if (strcmp (sym->canonical, "YES") == 0 && strcmp (src, dst) != 0) {
    g_autofree char *rkey = g_strconcat (dst, "\n", src, NULL);
    prev = g_hash_table_lookup (zone->routes, rkey);
    if (prev != NULL)
      return fail (ld, error, DTS_ERROR_INVALID, line,
                   "the route from '%s' to '%s' is already declared at line %d (routes are "
                   "symmetrical unless symmetrical=\"NO\")",
                   dst, src, GPOINTER_TO_INT (prev));
    g_hash_table_insert (zone->routes, g_steal_pointer (&rkey), GINT_TO_POINTER (line));
  }
  return TRUE;
}

static gboolean
walk_host_link (Loader *ld, xmlNode *node, Scope *parent, GError **error)
{
  static const char *const attrs[] = { "id", "up", "down", NULL };
  if (!check_attrs (ld, node, attrs, error))
    return FALSE;
  g_autofree char *id = req_attr (ld, node, "id", error);
  if (id == NULL || !check_netpoint (ld, node, "id", id, error))
    return FALSE;
  for (const char *const *a = (const char *const[]){ "up", "down", NULL }; *a; a++) {
    g_autofree char *link = req_attr (ld, node, *a, error);
    if (link == NULL || !check_link_ref (ld, node, link, NULL, error))
      return FALSE;
  }
  return TRUE;
}

/* Expand a cluster radical ("0-7", "0-3,5,8-9") into OUT (ints). */
static gboolean
parse_radical (Loader *ld, xmlNode *node, const char *radical, GArray *out, GError **error)
{
  int line = dts_xml_line (node);
  g_auto (GStrv) items = g_strsplit (radical, ",", -1);
  for (char **it = items; *it; it++) {
    g_auto (GStrv) ends = g_strsplit (*it, "-", -1);
    int lo = 0, hi = 0;
    guint n = g_strv_length (ends);
    if (n < 1 || n > 2 || !dts_units_parse_int (ends[0], &lo, NULL)
        || (n == 2 && !dts_units_parse_int (ends[1], &hi, NULL)))
      return fail (ld, error, DTS_ERROR_PARSE, line,
                   "<cluster> radical '%s': '%s' is not a number or a range such as 0-7 "
                   "(expected a comma-separated list such as 0-3,5,8-9)",
                   radical, *it);
    if (n == 1)
      hi = lo;
    if (hi < lo)
      return fail (ld, error, DTS_ERROR_INVALID, line,
                   "<cluster> radical '%s': range '%s' is empty (%d > %d)", radical, *it, lo,
                   hi);
    if ((gint64) out->len + (hi - lo) + 1 > MAX_CLUSTER_HOSTS
        || (gint64) out->len + (hi - lo) + 1 > (gint64) dts_input_max_hosts ())
      return fail (ld, error, DTS_ERROR_INVALID, line,
                   "<cluster> radical '%s' expands to more than %u hosts", radical,
                   MIN ((guint) MAX_CLUSTER_HOSTS, dts_input_max_hosts ()));
    for (int i = lo; i <= hi; i++)
      g_array_append_val (out, i);
  }
  return TRUE;
}

static gboolean
walk_cluster (Loader *ld, xmlNode *node, Scope *parent, GError **error)
{
  static const char *const attrs[] = {
    "id", "prefix", "suffix", "radical", "speed", "core", "bw", "lat", "sharing_policy",
    "topology", "topo_parameters", "bb_bw", "bb_lat", "bb_sharing_policy", "limiter_link",
    "loopback_bw", "loopback_lat", "router_id", NULL,
  };
  int line = dts_xml_line (node);
  if (!check_attrs (ld, node, attrs, error))
    return FALSE;
  g_autofree char *id = req_attr (ld, node, "id", error);
  if (id == NULL)
    return FALSE;
  /* prefix and suffix are required by SimGrid, and may be empty. */
  g_autofree char *prefix = dts_xml_get_attr (node, "prefix");
  g_autofree char *suffix = dts_xml_get_attr (node, "suffix");
  if (prefix == NULL || suffix == NULL)
    return fail (ld, error, DTS_ERROR_INVALID, line, "<cluster> needs attribute '%s'",
                 prefix == NULL ? "prefix" : "suffix");
  g_autofree char *radical = req_attr (ld, node, "radical", error);
  double bw = 0, lat = 0, bb_bw = 0, bb_lat = 0, limiter = 0, lo_bw = 0, lo_lat = 0;
  gboolean has_bb = FALSE, has_limiter = FALSE, has_lo_bw = FALSE, has_lo_lat = FALSE;
  if (radical == NULL || !sg_speed_attr (ld, node, error)
      || !int_attr (ld, node, "core", TRUE, error)
      || !sg_attr (ld, node, "bw", SG_BANDWIDTH, TRUE, &bw, NULL, error)
      || !sg_attr (ld, node, "lat", SG_TIME, TRUE, &lat, NULL, error)
      || !sg_attr (ld, node, "bb_bw", SG_BANDWIDTH, FALSE, &bb_bw, &has_bb, error)
      || !sg_attr (ld, node, "bb_lat", SG_TIME, FALSE, &bb_lat, NULL, error)
      || !sg_attr (ld, node, "limiter_link", SG_BANDWIDTH, FALSE, &limiter, &has_limiter, error)
      || !sg_attr (ld, node, "loopback_bw", SG_BANDWIDTH, FALSE, &lo_bw, &has_lo_bw, error)
      || !sg_attr (ld, node, "loopback_lat", SG_TIME, FALSE, &lo_lat, &has_lo_lat, error))
    return FALSE;
  const Choice *sharing = choice_attr (ld, node, "sharing_policy", cluster_sharing, "SHARED", error);
  if (sharing == NULL)
    return FALSE;
  const Choice *bb_sharing = choice_attr (ld, node, "bb_sharing_policy", backbone_sharing, "SHARED", error);
  if (bb_sharing == NULL)
    return FALSE;
  const Choice *topology = choice_attr (ld, node, "topology", topologies, "FLAT", error);
  if (topology == NULL)
    return FALSE;
  gboolean flat = strcmp (topology->value, "FLAT") == 0;
  if (!flat) {
    g_autofree char *params = req_attr (ld, node, "topo_parameters", error);
    if (params == NULL)
      return FALSE;
  }
  if (!add_name (ld, id, "the <cluster>", line, error))
    return FALSE;

  g_autoptr (GArray) radicals = g_array_new (FALSE, FALSE, sizeof (int));
  if (!parse_radical (ld, node, radical, radicals, error))
    return FALSE;

  Scope s;
  scope_init (&s, parent, id, TRUE);
  gboolean ok = collect_props (ld, node, &s, error) && walk_children (ld, node, IN_CLUSTER, &s, error);
  for (guint i = 0; ok && i < radicals->len; i++) {
    g_autofree char *host = g_strdup_printf ("%s%d%s", prefix, g_array_index (radicals, int, i), suffix);
    ok = add_name (ld, host, "a host of the <cluster>", line, error)
         && add_host (ld, host, line, &s, error);
  }
  scope_clear (&s);
  if (!ok)
    return FALSE;

  g_autofree char *router = dts_xml_get_attr (node, "router_id");
  if (router == NULL || *router == '\0') {
    g_free (router);
    router = g_strconcat (prefix, id, "_router", suffix, NULL);
  }
  if (!add_name (ld, router, "the router of the <cluster>", line, error))
    return FALSE;

  int n = (int) radicals->len;
  g_autofree char *links = g_strdup_printf ("%s_link_*", id);
  add_link_row (ld, links, bw, lat, sharing->canonical, flat ? n : 0, line);
  if (flat && has_limiter) {
    g_autofree char *name = g_strdup_printf ("%s_link_*_limiter", id);
    add_link_row (ld, name, limiter, 0, "SHARED", n, line);
  }
  if (flat && (has_lo_bw || has_lo_lat)) {
    g_autofree char *name = g_strdup_printf ("%s_link_*_loopback", id);
    add_link_row (ld, name, lo_bw, lo_lat, "FATPIPE", n, line);
  }
  if (flat && has_bb) {
    g_autofree char *name = g_strdup_printf ("%s_backbone", id);
    add_link_row (ld, name, bb_bw, bb_lat, bb_sharing->canonical, 1, line);
  }
  return TRUE;
}

/* ---- rank order --------------------------------------------------------- */

/* Compare host names with digit runs as numbers: gpu2 < gpu10. */
static int
natural_compare (const char *a, const char *b)
{
  while (*a && *b) {
    if (g_ascii_isdigit (*a) && g_ascii_isdigit (*b)) {
      while (*a == '0' && g_ascii_isdigit (a[1]))
        a++;
      while (*b == '0' && g_ascii_isdigit (b[1]))
        b++;
      size_t la = 0, lb = 0;
      while (g_ascii_isdigit (a[la]))
        la++;
      while (g_ascii_isdigit (b[lb]))
        lb++;
      if (la != lb)
        return la < lb ? -1 : 1;
      int c = strncmp (a, b, la);
      if (c != 0)
        return c;
      a += la;
      b += lb;
    } else {
      if (*a != *b)
        return (guchar) *a < (guchar) *b ? -1 : 1;
      a++;
      b++;
    }
  }
  return *a ? 1 : *b ? -1 : 0;
}

typedef struct {
  GHashTable *node_index; /* node name -> first-appearance index + 1 */
} OrderCtx;

static int
compare_default (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const Pending *a = pa, *b = pb;
  const OrderCtx *ctx = data;
  int na = GPOINTER_TO_INT (g_hash_table_lookup (ctx->node_index, a->node));
  int nb = GPOINTER_TO_INT (g_hash_table_lookup (ctx->node_index, b->node));
  if (na != nb)
    return na < nb ? -1 : 1;
  int c = natural_compare (a->host, b->host);
  if (c == 0)
    c = strcmp (a->host, b->host);
  if (c == 0)
    c = a->order < b->order ? -1 : a->order > b->order;
  return c;
}

static int
compare_rank (gconstpointer pa, gconstpointer pb)
{
  const Pending *a = pa, *b = pb;
  return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static gboolean
order_gpus (Loader *ld, GError **error)
{
  GArray *g = ld->gpus;
  guint with_rank = 0;
  const Pending *first_without = NULL;
  for (guint i = 0; i < g->len; i++) {
    const Pending *p = &g_array_index (g, Pending, i);
    if (p->rank >= 0)
      with_rank++;
    else if (first_without == NULL)
      first_without = p;
  }

  if (with_rank == 0) {
    g_autoptr (GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);
    for (guint i = 0; i < g->len; i++) {
      const Pending *p = &g_array_index (g, Pending, i);
      if (!g_hash_table_contains (index, p->node))
        g_hash_table_insert (index, p->node, GINT_TO_POINTER (g_hash_table_size (index) + 1));
    }
    OrderCtx ctx = { index };
    g_array_sort_with_data (g, compare_default, &ctx);
    for (guint i = 0; i < g->len; i++)
      g_array_index (g, Pending, i).rank = (int) i;
    return TRUE;
  }

  if (first_without != NULL)
    return fail (ld, error, DTS_ERROR_INVALID, first_without->line,
                 "GPU host '%s' has no 'rank' property, but %u of the %u GPUs have one (give "
                 "every GPU a rank, or none)",
                 first_without->host, with_rank, g->len);

  g_autofree const Pending **by_rank = g_new0 (const Pending *, g->len);
  for (guint i = 0; i < g->len; i++) {
    const Pending *p = &g_array_index (g, Pending, i);
    if (p->rank < (int) g->len && by_rank[p->rank] != NULL)
      return fail (ld, error, DTS_ERROR_INVALID, p->rank_line,
                   "rank %d of host '%s' is already the rank of host '%s' (line %d)", p->rank,
                   p->host, by_rank[p->rank]->host, by_rank[p->rank]->rank_line);
    if (p->rank < (int) g->len)
      by_rank[p->rank] = p;
  }
  for (guint i = 0; i < g->len; i++) {
    const Pending *p = &g_array_index (g, Pending, i);
    if (p->rank >= (int) g->len) {
      guint missing = 0;
      while (by_rank[missing] != NULL)
        missing++;
      return fail (ld, error, DTS_ERROR_INVALID, p->rank_line,
                   "rank %d of host '%s' is out of range: %u GPUs take ranks 0..%u, each once "
                   "(rank %u is missing)",
                   p->rank, p->host, g->len, g->len - 1, missing);
    }
  }
  g_array_sort (g, compare_rank);
  return TRUE;
}

/* ---- entry point -------------------------------------------------------- */

static const char *const simgrid_dtds[] = {
  "https://simgrid.org/simgrid.dtd",
  "http://simgrid.gforge.inria.fr/simgrid/simgrid.dtd",
  NULL,
};

static gboolean
check_header (Loader *ld, xmlDoc *doc, xmlNode *root, GError **error)
{
  int line = dts_xml_line (root);
  if (xmlStrcmp (root->name, (const xmlChar *) "platform") != 0)
    return fail (ld, error, DTS_ERROR_INVALID, line,
                 "root element is <%s> (expected <platform version=\"4.1\">, a SimGrid platform)",
                 (const char *) root->name);
  xmlDtd *dtd = doc->intSubset;
  gboolean dtd_ok = dtd != NULL && xmlStrcmp (dtd->name, (const xmlChar *) "platform") == 0
                    && dtd->ExternalID == NULL && dtd->children == NULL && dtd->SystemID != NULL;
  gboolean known = FALSE;
  for (const char *const *d = simgrid_dtds; dtd_ok && *d && !known; d++)
    known = xmlStrcmp (dtd->SystemID, (const xmlChar *) *d) == 0;
  if (!known)
    return fail (ld, error, DTS_ERROR_INVALID, line,
                 "expected <!DOCTYPE platform SYSTEM \"%s\"> before <platform> (SimGrid's "
                 "parser refuses the file without it)",
                 simgrid_dtds[0]);
  static const char *const attrs[] = { "version", NULL };
  if (!check_attrs (ld, root, attrs, error))
    return FALSE;
  g_autofree char *version = dts_xml_get_attr (root, "version");
  static const char *const versions[] = { "4.1", "4", "4.0", NULL };
  for (const char *const *v = versions; version && *v; v++)
    if (strcmp (*v, version) == 0)
      return TRUE;
  return fail (ld, error, DTS_ERROR_INVALID, line,
               "<platform> version '%s' is not supported (expected 4.1; SimGrid 3.32 reads "
               "4.0 and 4.1, simgrid_update_xml converts older files)",
               version ? version : "(none)");
}

static DtsPlatform *
build (Loader *ld)
{
  g_autoptr (DtsPlatform) p = g_new0 (DtsPlatform, 1);
  p->path = g_strdup (ld->path);
  p->gpus = g_array_sized_new (FALSE, TRUE, sizeof (DtsGpu), ld->gpus->len);
  g_array_set_clear_func (p->gpus, gpu_clear);
  p->nodes = g_array_new (FALSE, TRUE, sizeof (DtsNode));
  g_array_set_clear_func (p->nodes, node_clear);
  p->links = g_steal_pointer (&ld->links);

  g_autoptr (GHashTable) node_of = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < ld->gpus->len; i++) {
    Pending *pg = &g_array_index (ld->gpus, Pending, i);
    gpointer found = NULL;
    int node;
    if (g_hash_table_lookup_extended (node_of, pg->node, NULL, &found)) {
      node = GPOINTER_TO_INT (found);
    } else {
      node = (int) p->nodes->len;
      DtsNode n = { g_strdup (pg->node), (int) i, 0, g_array_new (FALSE, FALSE, sizeof (int)) };
      g_array_append_val (p->nodes, n);
      g_hash_table_insert (node_of, pg->node, GINT_TO_POINTER (node));
    }
    DtsNode *n = &g_array_index (p->nodes, DtsNode, node);
    int rank = (int) i;
    g_array_append_val (n->ranks, rank);
    DtsGpu gpu = { g_steal_pointer (&pg->host), rank, node, n->n_gpus++, pg->line, pg->spec };
    pg->spec = (DtsGpuSpec){ 0 };
    g_array_append_val (p->gpus, gpu);
  }
  p->cpus = g_steal_pointer (&ld->cpus);
  for (guint i = 0; i < p->cpus->len; i++) {
    DtsCpu *c = &g_array_index (p->cpus, DtsCpu, i);
    gpointer found = NULL;
    if (g_hash_table_lookup_extended (node_of, c->node_name, NULL, &found))
      c->node = GPOINTER_TO_INT (found);
  }
  return g_steal_pointer (&p);
}

DtsPlatform *
dts_platform_load (const char *path, const DtsGpuCatalog *catalog, GError **error)
{
  g_return_val_if_fail (path != NULL && catalog != NULL, NULL);
  g_autoptr (xmlDoc) doc = dts_xml_load (path, "platform", error);
  if (doc == NULL)
    return NULL;
  xmlNode *root = xmlDocGetRootElement (doc);

  Loader ld = { .path = path, .catalog = catalog };
  ld.gpus = g_array_new (FALSE, TRUE, sizeof (Pending));
  g_array_set_clear_func (ld.gpus, pending_clear);
  ld.links = g_array_new (FALSE, TRUE, sizeof (DtsLink));
  g_array_set_clear_func (ld.links, link_clear);
  ld.cpus = g_array_new (FALSE, TRUE, sizeof (DtsCpu));
  g_array_set_clear_func (ld.cpus, cpu_clear);
  ld.names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  ld.link_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  Scope top;
  scope_init (&top, NULL, NULL, FALSE);
  DtsPlatform *result = NULL;
  if (check_header (&ld, doc, root, error) && walk_children (&ld, root, IN_PLATFORM, &top, error)) {
    if (ld.gpus->len == 0)
      fail (&ld, error, DTS_ERROR_INVALID, dts_xml_line (root),
            "no GPU: no host carries a 'gpu' property, itself or through its zone or cluster "
            "(e.g. <prop id=\"gpu\" value=\"V100-SXM2-16GB\"/>)");
    else if (order_gpus (&ld, error))
      result = build (&ld);
  }
  scope_clear (&top);
  g_array_unref (ld.gpus);
  if (ld.links)
    g_array_unref (ld.links);
  if (ld.cpus)
    g_array_unref (ld.cpus);
  g_hash_table_unref (ld.names);
  g_hash_table_unref (ld.link_ids);
  return result;
}

void
dts_platform_free (DtsPlatform *platform)
{
  if (platform == NULL)
    return;
  g_free (platform->path);
  if (platform->gpus)
    g_array_unref (platform->gpus);
  if (platform->nodes)
    g_array_unref (platform->nodes);
  if (platform->links)
    g_array_unref (platform->links);
  if (platform->cpus)
    g_array_unref (platform->cpus);
  g_free (platform);
}

typedef struct {
  int ps_last;  /* 0 for role=ps, 1 for role=cpu */
  int round;    /* the how-many-th CPU of its node; G_MAXINT off the GPUs' nodes */
  int node;
  int index;    /* document order */
} ServerSlot;

static int
server_slot_cmp (gconstpointer pa, gconstpointer pb)
{
  const ServerSlot *a = pa, *b = pb;
  if (a->ps_last != b->ps_last)
    return a->ps_last - b->ps_last;
  if (a->round != b->round)
    return a->round < b->round ? -1 : 1;
  if (a->round != G_MAXINT && a->node != b->node)
    return a->node - b->node;
  return a->index - b->index;
}

GArray *
dts_platform_server_hosts (const DtsPlatform *platform)
{
  guint n_cpus = platform->cpus ? platform->cpus->len : 0;
  g_autofree int *seen = g_new0 (int, 2 * (platform->nodes->len + 1));
  g_autoptr (GArray) slots = g_array_new (FALSE, FALSE, sizeof (ServerSlot));
  for (guint i = 0; i < n_cpus; i++) {
    const DtsCpu *c = &g_array_index (platform->cpus, DtsCpu, i);
    int kind = c->ps ? 0 : 1;
    ServerSlot sl = { kind, c->node >= 0 ? seen[2 * c->node + kind]++ : G_MAXINT, c->node,
                      (int) i };
    g_array_append_val (slots, sl);
  }
  g_array_sort (slots, server_slot_cmp);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (int));
  for (guint i = 0; i < slots->len; i++)
    g_array_append_val (out, g_array_index (slots, ServerSlot, i).index);
  return out;
}

int
dts_platform_count_nodes (const DtsPlatform *platform, int n_ranks)
{
  g_autofree gboolean *seen = g_new0 (gboolean, platform->nodes->len);
  int n = 0;
  for (int r = 0; r < n_ranks; r++) {
    int node = dts_platform_gpu (platform, r)->node;
    if (node >= 0 && node < (int) platform->nodes->len && !seen[node]) {
      seen[node] = TRUE;
      n++;
    }
  }
  return n;
}
