/* routes.c - read routes from SimGrid after sealing (see routes.h).
 *
 * The bottleneck of a route is its smallest link bandwidth and its latency
 * the sum of its link latencies: what one flow alone on the route gets in
 * SimGrid's CM02 model, which dtsim configures (no TCP window bound, no
 * bandwidth or latency factors). */
#include "config.h"

#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>

#include "core/error.h"
#include "collective/collective.h"
#include "sim/override.h"
#include "sim/routes-sg.h"
#include "sim/routes.h"
#include "sim/sg-shim.h"
#include "sim/sim.h"

void
dts_route_clear (DtsRoute *route)
{
  g_clear_pointer (&route->src, g_free);
  g_clear_pointer (&route->dst, g_free);
  g_clear_pointer (&route->links, g_array_unref);
}

static void
route_clear_func (gpointer p)
{
  dts_route_clear (p);
}

static void
route_link_clear (gpointer p)
{
  g_free (((DtsRouteLink *) p)->name);
}

/* Fill R's links, bottleneck and latency from SimGrid's route. */
static gboolean
read_route (DtsRoute *r, const char *path, GError **error)
{
  xbt_dynar_t links = xbt_dynar_new (sizeof (sg_link_t), NULL);
  g_autofree char *message = NULL;
  if (!dts_sg_host_route (sg_host_by_name (r->src), sg_host_by_name (r->dst), links, &message)) {
    xbt_dynar_free (&links);
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "platform '%s': no route from '%s' to '%s' (SimGrid: %s)", path, r->src, r->dst,
                 message);
    return FALSE;
  }
  unsigned int cursor;
  sg_link_t link;
  xbt_dynar_foreach (links, cursor, link)
  {
    DtsRouteLink rl = { g_strdup (sg_link_get_name (link)), sg_link_get_bandwidth (link),
                        sg_link_get_latency (link) };
    g_array_append_val (r->links, rl);
    r->latency_s += rl.latency_s;
    if (r->links->len == 1 || rl.bandwidth_Bps < r->bottleneck_Bps)
      r->bottleneck_Bps = rl.bandwidth_Bps;
  }
  xbt_dynar_free (&links);
  return TRUE;
}

static gboolean
seal (const char *path, GError **error)
{
  g_autofree char *message = NULL;
  if (!dts_sg_seal_platform (&message)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "platform '%s': SimGrid: %s", path,
                 message);
    return FALSE;
  }
  return TRUE;
}

GArray *
dts_sim_routes (const char *path, GArray *overrides, const char *const *src,
                const char *const *dst, guint n, GError **error)
{
  if (!dts_sim_configure (NULL, error))
    return NULL;
  g_autofree char *message = NULL;
  if (!dts_sg_load_platform (path, &message)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "platform '%s': SimGrid: %s", path,
                 message);
    return NULL;
  }
  if (overrides && !dts_sim_apply_overrides (overrides, error))
    return NULL;
  g_autoptr (GArray) routes = g_array_sized_new (FALSE, TRUE, sizeof (DtsRoute), n);
  g_array_set_clear_func (routes, route_clear_func);
  for (guint i = 0; i < n; i++) {
    for (int end = 0; end < 2; end++) {
      const char *name = end ? dst[i] : src[i];
      if (sg_host_by_name (name) == NULL) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "platform '%s': no host '%s'", path,
                     name);
        return NULL;
      }
    }
    DtsRoute r = { g_strdup (src[i]), g_strdup (dst[i]),
                   g_array_new (FALSE, TRUE, sizeof (DtsRouteLink)), 0, 0 };
    g_array_set_clear_func (r.links, route_link_clear);
    g_array_append_val (routes, r);
  }
  if (!seal (path, error))
    return NULL;
  for (guint i = 0; i < n; i++)
    if (!read_route (&g_array_index (routes, DtsRoute, i), path, error))
      return NULL;
  return g_steal_pointer (&routes);
}

/* Check the route from rank A to rank B once: KEY A * 2^32 + B in CHECKED. */
static gboolean
check_pair (const DtsPlatform *platform, GHashTable *checked, int a, int b, const char *why,
            GError **error)
{
  if (a == b)
    return TRUE;
  guint64 key = ((guint64) (guint32) a << 32) | (guint32) b;
  if (g_hash_table_contains (checked, &key))
    return TRUE;
  guint64 *stored = g_new (guint64, 1);
  *stored = key;
  g_hash_table_add (checked, stored);
  const DtsGpu *ga = dts_platform_gpu (platform, a);
  const DtsGpu *gb = dts_platform_gpu (platform, b);
  sg_host_t ha = sg_host_by_name (ga->host), hb = sg_host_by_name (gb->host);
  if (ha == NULL || hb == NULL) {
    const DtsGpu *missing = ha == NULL ? ga : gb;
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "platform '%s': line %d: SimGrid has no host '%s'", platform->path,
                 missing->line, missing->host);
    return FALSE;
  }
  xbt_dynar_t links = xbt_dynar_new (sizeof (sg_link_t), NULL);
  g_autofree char *message = NULL;
  gboolean ok = dts_sg_host_route (ha, hb, links, &message);
  xbt_dynar_free (&links);
  if (!ok) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "platform '%s': line %d: no route from GPU '%s' (rank %d) to GPU '%s' "
                 "(rank %d) (expected one: %s; SimGrid: %s)",
                 platform->path, ga->line, ga->host, a, gb->host, b, why, message);
    return FALSE;
  }
  return TRUE;
}

gboolean
dts_sim_check_routes (const DtsPlatform *platform, const GPtrArray *plans, GError **error)
{
  if (!seal (platform->path, error))
    return FALSE;
  g_autoptr (GHashTable) checked = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                          NULL);
  for (guint i = 0; i < plans->len; i++) {
    const DtsCollPlan *plan = g_ptr_array_index (plans, i);
    if (plan->n_servers > 0) {
      /* Per-node aggregation: a local ring in each node, then the leader
       * broadcasts the pulled sums to its node. */
      for (int n = 0; plan->local != NULL && n < plan->n_nodes; n++) {
        const int *ranks = plan->node_ranks + plan->node_start[n];
        int m = plan->node_start[n + 1] - plan->node_start[n];
        for (int q = 0; q < m && m > 1; q++)
          if (!check_pair (platform, checked, ranks[q], ranks[(q + 1) % m],
                           "a rank sends to its successor in its node's ring", error)
              || !check_pair (platform, checked, plan->node_leader[n], ranks[q],
                              "a node's leader sends the sums to its node", error))
            return FALSE;
      }
      for (int k = 0; k < plan->n_servers; k++)
        for (int r = 0; r < plan->n_ranks; r++)
          if (!check_pair (platform, checked, r, plan->server_rank[k],
                           "ranks send gradients to every parameter server", error)
              || !check_pair (platform, checked, plan->server_rank[k], r,
                              "parameter servers send the sums to every rank", error))
            return FALSE;
      continue;
    }
    for (int p = 0; p < plan->n_ranks && plan->n_ranks > 1; p++)
      if (!check_pair (platform, checked, plan->ring[p], plan->ring[(p + 1) % plan->n_ranks],
                       "a rank sends to its successor in the ring", error))
        return FALSE;
  }
  return TRUE;
}
