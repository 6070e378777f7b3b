/* info-routes.c - `dtsim info PLATFORM --routes`: SimGrid's routes between a
 * few GPU pairs, with their links, bottleneck bandwidth and total latency.
 *
 * The pairs: the first two GPUs of the first node (same node), and rank 0
 * with the first GPU of the other node that is nearest (fewest links, then
 * lowest latency, then node order) and of the one that is farthest (most
 * links, then highest latency, then last). The bottleneck and latency are
 * those of one flow alone on the route in dtsim's network model (CM02, no
 * factors); contention is what a run adds. */
#include "config.h"

#include <stdio.h>

#include "cli/cli-private.h"
#include "core/error.h"
#include "output/format.h"
#include "output/json.h"
#include "platform/platform.h"
#include "sim/routes.h"

typedef struct {
  const char *relation;
  guint index; /* in the routes array */
} Shown;

static int
compare_distance (const DtsRoute *a, const DtsRoute *b)
{
  if (a->links->len != b->links->len)
    return a->links->len < b->links->len ? -1 : 1;
  if (a->latency_s != b->latency_s)
    return a->latency_s < b->latency_s ? -1 : 1;
  return 0;
}

static void
print_route_text (const char *relation, const DtsRoute *r)
{
  DtsFormatBuf bw, lat;
  printf ("  %s: %s -> %s: %u link%s, bottleneck %s GB/s, latency %s us\n", relation, r->src,
          r->dst, r->links->len, r->links->len == 1 ? "" : "s",
          dts_format_sig (&bw, r->bottleneck_Bps, DTS_FORMAT_UNIT_GBPS, 4),
          dts_format_sig (&lat, r->latency_s, DTS_FORMAT_UNIT_US, 4));
  for (guint k = 0; k < r->links->len; k++) {
    const DtsRouteLink *l = &g_array_index (r->links, DtsRouteLink, k);
    printf ("    %-28s %10s GB/s %8s us\n", l->name,
            dts_format_sig (&bw, l->bandwidth_Bps, DTS_FORMAT_UNIT_GBPS, 4),
            dts_format_sig (&lat, l->latency_s, DTS_FORMAT_UNIT_US, 4));
  }
}

static void
print_route_json (DtsJson *j, const char *relation, const DtsRoute *r)
{
  dts_json_begin_object (j);
  dts_json_kv_string (j, "relation", relation);
  dts_json_kv_string (j, "src", r->src);
  dts_json_kv_string (j, "dst", r->dst);
  dts_json_kv_int (j, "n_links", r->links->len);
  dts_json_kv_double (j, "bottleneck_bandwidth_Bps", r->bottleneck_Bps);
  dts_json_kv_double (j, "latency_s", r->latency_s);
  dts_json_key (j, "links");
  dts_json_begin_array (j);
  for (guint k = 0; k < r->links->len; k++) {
    const DtsRouteLink *l = &g_array_index (r->links, DtsRouteLink, k);
    dts_json_begin_object (j);
    dts_json_kv_string (j, "name", l->name);
    dts_json_kv_double (j, "bandwidth_Bps", l->bandwidth_Bps);
    dts_json_kv_double (j, "latency_s", l->latency_s);
    dts_json_end_object (j);
  }
  dts_json_end_array (j);
  dts_json_end_object (j);
}

gboolean
dts_cli_info_routes (const DtsPlatform *platform, const DtsInfoOptions *opts, GError **error)
{
  const char *path = platform->path;

  /* Candidate pairs: rank 0 with rank 1 when they share a node, and rank 0
   * with the first GPU of every other node. */
  g_autoptr (GPtrArray) src = g_ptr_array_new ();
  g_autoptr (GPtrArray) dst = g_ptr_array_new ();
  const DtsGpu *g0 = dts_platform_gpu (platform, 0);
  gboolean same_node = platform->gpus->len > 1 && dts_platform_gpu (platform, 1)->node == g0->node;
  if (same_node) {
    g_ptr_array_add (src, g0->host);
    g_ptr_array_add (dst, dts_platform_gpu (platform, 1)->host);
  }
  guint first_other = src->len;
  for (guint n = 0; n < platform->nodes->len; n++) {
    const DtsNode *node = &g_array_index (platform->nodes, DtsNode, n);
    if ((int) n == g0->node)
      continue;
    g_ptr_array_add (src, g0->host);
    g_ptr_array_add (dst, dts_platform_gpu (platform, node->first_rank)->host);
  }
  g_autoptr (GArray) routes = dts_sim_routes (path, NULL, (const char *const *) src->pdata,
                                              (const char *const *) dst->pdata, src->len, error);
  if (routes == NULL)
    return FALSE;

  Shown shown[3];
  guint n_shown = 0;
  if (same_node)
    shown[n_shown++] = (Shown){ "same node", 0 };
  if (routes->len > first_other) {
    guint near = first_other, far = first_other;
    for (guint i = first_other + 1; i < routes->len; i++) {
      const DtsRoute *r = &g_array_index (routes, DtsRoute, i);
      if (compare_distance (r, &g_array_index (routes, DtsRoute, near)) < 0)
        near = i;
      if (compare_distance (r, &g_array_index (routes, DtsRoute, far)) >= 0)
        far = i;
    }
    if (near == far) {
      shown[n_shown++] = (Shown){ "other node", near };
    } else {
      shown[n_shown++] = (Shown){ "nearest node", near };
      shown[n_shown++] = (Shown){ "farthest node", far };
    }
  }

  if (opts->format == DTS_FORMAT_JSON) {
    g_autoptr (DtsJson) j = dts_json_new ();
    dts_json_begin_object (j);
    dts_json_kv_string (j, "platform", path);
    dts_json_key (j, "routes");
    dts_json_begin_array (j);
    for (guint i = 0; i < n_shown; i++) {
      g_autofree char *rel = g_strdelimit (g_strdup (shown[i].relation), " ", '-');
      print_route_json (j, rel, &g_array_index (routes, DtsRoute, shown[i].index));
    }
    dts_json_end_array (j);
    dts_json_end_object (j);
    fputs (dts_json_get (j), stdout);
    return TRUE;
  }
  printf ("\nroutes (SimGrid; bottleneck and latency of one flow alone):\n");
  if (n_shown == 0)
    printf ("  none: the platform has one GPU\n");
  for (guint i = 0; i < n_shown; i++)
    print_route_text (shown[i].relation, &g_array_index (routes, DtsRoute, shown[i].index));
  return TRUE;
}
