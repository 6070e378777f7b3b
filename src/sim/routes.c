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
check_pair (const DtsPlatform *platform, const DtsSchedule *sched, GHashTable *checked, int a,
            int b, const char *why, GError **error)
{
  if (a == b)
    return TRUE;
  guint64 key = ((guint64) (guint32) a << 32) | (guint32) b;
  if (g_hash_table_contains (checked, &key))
    return TRUE;
  guint64 *stored = g_new (guint64, 1);
  *stored = key;
  g_hash_table_add (checked, stored);
  int la, lb;
  const char *na = dts_schedule_rank_host (sched, platform, a, &la);
  const char *nb = dts_schedule_rank_host (sched, platform, b, &lb);
  sg_host_t ha = sg_host_by_name (na), hb = sg_host_by_name (nb);
  if (ha == NULL || hb == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "platform '%s': line %d: SimGrid has no host '%s'", platform->path,
                 ha == NULL ? la : lb, ha == NULL ? na : nb);
    return FALSE;
  }
  xbt_dynar_t links = xbt_dynar_new (sizeof (sg_link_t), NULL);
  g_autofree char *message = NULL;
  gboolean ok = dts_sg_host_route (ha, hb, links, &message);
  xbt_dynar_free (&links);
  if (!ok) {
    gboolean cpu_a = sched->rank_cpu != NULL && sched->rank_cpu[a] >= 0;
    gboolean cpu_b = sched->rank_cpu != NULL && sched->rank_cpu[b] >= 0;
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "platform '%s': line %d: no route from %s '%s' (rank %d) to %s '%s' "
                 "(rank %d) (expected one: %s; SimGrid: %s)",
                 platform->path, la, cpu_a ? "CPU host" : "GPU", na, a,
                 cpu_b ? "CPU host" : "GPU", nb, b, why, message);
    return FALSE;
  }
  return TRUE;
}

typedef struct {
  const DtsPlatform *platform;
  const DtsSchedule *sched;
  const DtsCommunicator *comm;
  const DtsCollPlan *plan;
  GHashTable *checked;
  GError **error;
} RouteCheck;

static gboolean
check_plan_pair (int from, int to, const char *why, gpointer data)
{
  RouteCheck *rc = data;
  int a = rc->comm->ranks[dts_coll_plan_part_host (rc->plan, from)];
  int b = rc->comm->ranks[dts_coll_plan_part_host (rc->plan, to)];
  return check_pair (rc->platform, rc->sched, rc->checked, a, b, why, rc->error);
}

gboolean
dts_sim_check_routes (const DtsPlatform *platform, const DtsSchedule *sched, GError **error)
{
  if (!seal (platform->path, error))
    return FALSE;
  g_autoptr (GHashTable) checked = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                          NULL);
  for (guint i = 0; i < sched->plans->len; i++) {
    const DtsCollPlan *plan = g_ptr_array_index (sched->plans, i);
    gboolean seen = FALSE;
    for (guint q = 0; q < i && !seen; q++)
      seen = dts_schedule_same_peers (sched, q, i);
    RouteCheck rc = { platform, sched, g_ptr_array_index (sched->comms, sched->plan_comm[i]), plan,
                      checked, error };
    if (!seen && !dts_coll_plan_routes (plan, check_plan_pair, &rc))
      return FALSE;
  }
  /* Point-to-point transfers of the programs that have any. */
  g_autofree gboolean *sends = g_new0 (gboolean, MAX (sched->programs->len, 1));
  for (guint p = 0; p < sched->programs->len; p++) {
    const GArray *prog = g_ptr_array_index (sched->programs, p);
    for (guint k = 0; k < prog->len && !sends[p]; k++)
      sends[p] = g_array_index (prog, DtsOp, k).type == DTS_OP_SEND;
  }
  for (guint i = 0; i < sched->streams->len; i++) {
    const DtsStream *st = &g_array_index (sched->streams, DtsStream, i);
    const GArray *prog = g_ptr_array_index (sched->programs, st->program);
    for (guint k = 0; sends[st->program] && k < prog->len; k++) {
      const DtsOp *op = &g_array_index (prog, DtsOp, k);
      if (op->type != DTS_OP_SEND || op->peer < 0)
        continue;
      /* A detached send is a worker's push; its server replies the other way. */
      if (!check_pair (platform, sched, checked, st->rank, op->peer,
                       op->detach ? "a worker pushes gradients to its parameter server"
                                  : "a stage sends to the next one",
                       error)
          || (op->detach && !check_pair (platform, sched, checked, op->peer, st->rank,
                                         "a parameter server replies to a worker", error)))
        return FALSE;
    }
  }
  return TRUE;
}
