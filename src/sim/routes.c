/* routes.c - read routes from SimGrid after sealing (see routes.h).
 *
 * The bottleneck of a route is its smallest link bandwidth and its latency
 * the sum of its link latencies: what one flow alone on the route gets in
 * SimGrid's CM02 model, which dtsim configures (no TCP window bound, no
 * bandwidth or latency factors). */
#include "config.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>

#include "core/error.h"
#include "sim/override.h"
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

/* The query handed to the actor: the engine runs once per process, and the
 * C actor API passes only argc/argv. */
static GArray *pending;

static void
query_actor (int argc, char **argv)
{
  for (guint i = 0; i < pending->len; i++) {
    DtsRoute *r = &g_array_index (pending, DtsRoute, i);
    sg_host_t a = sg_host_by_name (r->src);
    sg_host_t b = sg_host_by_name (r->dst);
    xbt_dynar_t links = xbt_dynar_new (sizeof (sg_link_t), NULL);
    sg_host_get_route (a, b, links);
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
  }
}

GArray *
dts_sim_routes (const char *path, GArray *overrides, const char *const *src,
                const char *const *dst, guint n, GError **error)
{
  g_return_val_if_fail (pending == NULL, NULL);
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
  if (n == 0)
    return g_steal_pointer (&routes);
  pending = routes;
  sg_actor_create ("dtsim-routes", sg_host_by_name (src[0]), query_actor, 0, NULL);
  simgrid_run ();
  pending = NULL;
  return g_steal_pointer (&routes);
}
