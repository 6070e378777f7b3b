/* override.c - apply link and host what-if overrides to SimGrid's platform
 * (see override.h). Overrides apply in command-line order, so a --scale
 * after a --set multiplies the value that was set. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <simgrid/host.h>
#include <simgrid/link.h>

#include "core/error.h"
#include "sim/override-speed.h"
#include "sim/override.h"

/* Does PATTERN match link NAME, directly or through the name of its
 * split-duplex pair (NAME without _UP / _DOWN)? */
static gboolean
link_matches (GPatternSpec *pattern, const char *name)
{
  if (g_pattern_spec_match_string (pattern, name))
    return TRUE;
  gsize len = strlen (name);
  for (int i = 0; i < 2; i++) {
    const char *suffix = i ? "_DOWN" : "_UP";
    gsize sl = strlen (suffix);
    if (len > sl && strcmp (name + len - sl, suffix) == 0) {
      g_autofree char *base = g_strndup (name, len - sl);
      return g_pattern_spec_match_string (pattern, base);
    }
  }
  return FALSE;
}

static int
compare_links (const void *a, const void *b)
{
  return strcmp (sg_link_get_name (*(const sg_link_t *) a),
                 sg_link_get_name (*(const sg_link_t *) b));
}

static gboolean
apply_links (DtsOverride *o, GError **error)
{
  size_t n = sg_link_count ();
  sg_link_t *links = sg_link_list ();
  qsort (links, n, sizeof *links, compare_links);
  g_autoptr (GPatternSpec) pattern = o->glob ? g_pattern_spec_new (o->glob) : NULL;
  gboolean bandwidth = strcmp (o->field, "bandwidth") == 0;
  o->matched = 0;
  for (size_t i = 0; i < n; i++) {
    sg_link_t l = links[i];
    if (pattern && !link_matches (pattern, sg_link_get_name (l)))
      continue;
    double v;
    if (bandwidth)
      v = o->is_scale ? sg_link_get_bandwidth (l) * o->value : o->value;
    else
      v = o->is_scale ? sg_link_get_latency (l) * o->value : o->value;
    if (!dts_override_check_value (o, "link", sg_link_get_name (l), o->field, v, error)) {
      g_free (links);
      return FALSE;
    }
    if (bandwidth)
      sg_link_set_bandwidth (l, v);
    else
      sg_link_set_latency (l, v);
    o->matched++;
  }
  /* an example name for the message: the first that is not SimGrid's own */
  const char *example = "";
  for (size_t i = 0; i < n && *example == '\0'; i++)
    if (!g_str_has_prefix (sg_link_get_name (links[i]), "__"))
      example = sg_link_get_name (links[i]);
  g_autofree char *first = g_strdup (example);
  g_free (links);
  if (o->matched == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_NOT_FOUND,
                 "--%s '%s': no link of the platform matches '%s' (%zu links, e.g. '%s')",
                 o->is_scale ? "scale" : "set", o->text, o->glob, n, first);
    return FALSE;
  }
  return TRUE;
}

static int
compare_hosts (const void *a, const void *b)
{
  return strcmp (sg_host_get_name (*(const sg_host_t *) a),
                 sg_host_get_name (*(const sg_host_t *) b));
}

static int
compare_names (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

gboolean
dts_sim_apply_overrides (GArray *overrides, GError **error)
{
  g_return_val_if_fail (overrides != NULL, FALSE);
  /* Host speeds: one profile per host, so ratios accumulate first. */
  g_autoptr (GHashTable) ratio = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < overrides->len; i++) {
    DtsOverride *o = &g_array_index (overrides, DtsOverride, i);
    if (o->target == DTS_OVERRIDE_LINK || o->target == DTS_OVERRIDE_NETWORK) {
      if (!apply_links (o, error))
        return FALSE;
      continue;
    }
    if (o->target != DTS_OVERRIDE_HOST)
      continue;
    size_t n = sg_host_count ();
    sg_host_t *hosts = sg_host_list ();
    qsort (hosts, n, sizeof *hosts, compare_hosts);
    g_autoptr (GPatternSpec) pattern = g_pattern_spec_new (o->glob);
    o->matched = 0;
    for (size_t h = 0; h < n; h++) {
      const char *name = sg_host_get_name (hosts[h]);
      if (!g_pattern_spec_match_string (pattern, name))
        continue;
      double *r = g_hash_table_lookup (ratio, name);
      if (r == NULL) {
        r = g_new (double, 1);
        *r = 1;
        g_hash_table_insert (ratio, g_strdup (name), r);
      }
      /* the speed the host has after the overrides before this one */
      double current = sg_host_get_speed (hosts[h]) * *r;
      double v = o->is_scale ? current * o->value : o->value;
      if (!dts_override_check_value (o, "host", name, "speed", v, error)) {
        g_free (hosts);
        return FALSE;
      }
      *r *= v / current;
      o->matched++;
    }
    g_free (hosts);
    if (o->matched == 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_NOT_FOUND,
                   "--%s '%s': no host of the platform matches '%s'",
                   o->is_scale ? "scale" : "set", o->text, o->glob);
      return FALSE;
    }
  }
  /* Sorted, so that SimGrid sees the same calls in the same order. */
  g_autofree const char **names = (const char **) g_hash_table_get_keys_as_array (ratio, NULL);
  qsort (names, g_hash_table_size (ratio), sizeof *names, compare_names);
  for (guint i = 0; i < g_hash_table_size (ratio); i++) {
    double r = *(double *) g_hash_table_lookup (ratio, names[i]);
    if (r != 1)
      dts_sg_host_scale_speed (names[i], r);
  }
  return TRUE;
}
