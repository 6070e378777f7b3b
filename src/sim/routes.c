/* routes.c - read routes from SimGrid after sealing (see routes.h).
 *
 * The bottleneck of a route is its smallest link bandwidth and its latency
 * the sum of its link latencies: what one flow alone on the route gets in
 * SimGrid's CM02 model, which dtsim configures (no TCP window bound, no
 * bandwidth or latency factors). */
#include "config.h"

#include <math.h>
#include <string.h>

#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>

#include "core/error.h"
#include "collective/collective.h"
#include "sim/override.h"
#include "sim/routes-sg.h"
#include "sim/routes.h"
#include "sim/sg-shim.h"
#include "sim/sim-private.h"
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
  if (!dts_sg_host_route (dts_sim_host_by_name (r->src), dts_sim_host_by_name (r->dst), links,
                          &message)) {
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
      if (dts_sim_host_by_name (name) == NULL) {
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
  sg_host_t ha = dts_sim_host_by_name (na), hb = dts_sim_host_by_name (nb);
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
  g_autoptr (GHashTable) checked = g_hash_table_new_full (dts_sim_pair_hash, g_int64_equal, g_free,
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

typedef struct {
  const DtsPlatform *platform;
  const DtsCollPlan *plan;
  DtsPlanBottleneck *out;
  GHashTable *hops;        /* sg_link_t -> count */
  GPtrArray *order;        /* sg_link_t, first met */
  GError **error;
} PlanRead;

static gboolean
read_plan_route (int from, int to, const char *why, gpointer data)
{
  PlanRead *pr = data;
  int ra = dts_coll_plan_part_host (pr->plan, from), rb = dts_coll_plan_part_host (pr->plan, to);
  const DtsGpu *ga = dts_platform_gpu (pr->platform, ra);
  const DtsGpu *gb = dts_platform_gpu (pr->platform, rb);
  sg_host_t a = dts_sim_host_by_name (ga->host), b = dts_sim_host_by_name (gb->host);
  if (a == b)
    return TRUE;
  xbt_dynar_t links = xbt_dynar_new (sizeof (sg_link_t), NULL);
  g_autofree char *message = NULL;
  if (!dts_sg_host_route (a, b, links, &message)) {
    xbt_dynar_free (&links);
    g_set_error (pr->error, DTS_ERROR, DTS_ERROR_INVALID,
                 "platform '%s': line %d: no route from GPU '%s' (rank %d) to GPU '%s' (rank %d) "
                 "(expected one: %s; SimGrid: %s)",
                 pr->platform->path, ga->line, ga->host, ra, gb->host, rb, why, message);
    return FALSE;
  }
  pr->out->latency_s = MAX (pr->out->latency_s, sg_host_get_route_latency (a, b));
  unsigned int cursor;
  sg_link_t link;
  xbt_dynar_foreach (links, cursor, link)
  {
    gpointer old = NULL;
    if (!g_hash_table_lookup_extended (pr->hops, link, NULL, &old))
      g_ptr_array_add (pr->order, link);
    g_hash_table_insert (pr->hops, link, GINT_TO_POINTER (GPOINTER_TO_INT (old) + 1));
  }
  xbt_dynar_free (&links);
  return TRUE;
}

gboolean
dts_sim_plan_bottleneck (const DtsPlatform *platform, const DtsCollPlan *plan,
                         DtsPlanBottleneck *out, GError **error)
{
  *out = (DtsPlanBottleneck){ 0 };
  g_autoptr (GHashTable) hops = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  PlanRead pr = { platform, plan, out, hops, order, error };
  if (!dts_coll_plan_routes (plan, read_plan_route, &pr))
    return FALSE;
  out->share_Bps = INFINITY;
  for (guint i = 0; i < order->len; i++) {
    sg_link_t link = g_ptr_array_index (order, i);
    int count = GPOINTER_TO_INT (g_hash_table_lookup (hops, link));
    int sharers = sg_link_is_shared (link) ? count : 1;
    double share = sg_link_get_bandwidth (link) / sharers;
    if (share < out->share_Bps) {
      out->share_Bps = share;
      g_free (out->link);
      out->link = g_strdup (sg_link_get_name (link));
      out->sharers = sharers;
    }
  }
  if (order->len == 0)
    out->share_Bps = 0;
  return TRUE;
}

typedef struct {
  int peer;
  gpointer value;
} PeerValue;

enum { PEER_SCAN = 16 };

gpointer
dts_sim_peers_find (const DtsSimPeers *p, int peer)
{
  if (p->peers == NULL)
    return NULL;
  if (p->index != NULL) {
    guint i = GPOINTER_TO_UINT (g_hash_table_lookup (p->index, GINT_TO_POINTER (peer)));
    return i > 0 ? g_array_index (p->peers, PeerValue, i - 1).value : NULL;
  }
  for (guint i = 0; i < p->peers->len; i++) {
    const PeerValue *pv = &g_array_index (p->peers, PeerValue, i);
    if (pv->peer == peer)
      return pv->value;
  }
  return NULL;
}

void
dts_sim_peers_add (DtsSimPeers *p, int peer, gpointer value)
{
  if (p->peers == NULL)
    p->peers = g_array_new (FALSE, FALSE, sizeof (PeerValue));
  PeerValue pv = { peer, value };
  g_array_append_val (p->peers, pv);
  if (p->index == NULL && p->peers->len > PEER_SCAN) {
    p->index = g_hash_table_new (g_direct_hash, g_direct_equal);
    for (guint i = 0; i + 1 < p->peers->len; i++)
      g_hash_table_insert (p->index, GINT_TO_POINTER (g_array_index (p->peers, PeerValue, i).peer),
                           GUINT_TO_POINTER (i + 1));
  }
  if (p->index != NULL)
    g_hash_table_insert (p->index, GINT_TO_POINTER (peer), GUINT_TO_POINTER (p->peers->len));
}

void
dts_sim_peers_clear (DtsSimPeers *p, GDestroyNotify free_value)
{
  for (guint i = 0; p->peers != NULL && i < p->peers->len; i++)
    free_value (g_array_index (p->peers, PeerValue, i).value);
  g_clear_pointer (&p->peers, g_array_unref);
  g_clear_pointer (&p->index, g_hash_table_unref);
}

struct _DtsSimTuner {
  DtsCollTuner tuner;
  const DtsPlatform *platform;
  GHashTable *cache;       /* "algorithm:peer_key:n:bytes" -> double[2]: bandwidth and
                              latency time */
  DtsSimPeers *routes;     /* GPU rank a -> GArray of DtsCollLink to each peer read so far */
  guint n_routes;          /* the platform's GPUs */
  GHashTable *link_index;  /* sg_link_t -> its DtsCollLink.index */
};

typedef struct {
  DtsSimTuner *tuner;
  const DtsCollPlan *plan;
  const int *gpu_rank;   /* member -> GPU rank, or NULL */
} TunerRoutes;

/* DtsCollLinksFn over SimGrid's routes between ranks RA and RB, read once
 * per pair of GPUs (DATA: the DtsSimTuner). */
static gboolean
tuner_rank_links (int ra, int rb, const DtsCollLink **links, int *n_links, gpointer data,
                  GError **error)
{
  DtsSimTuner *tuner = data;
  GArray *route = dts_sim_peers_find (&tuner->routes[ra], rb);
  if (route == NULL) {
    const DtsGpu *ga = dts_platform_gpu (tuner->platform, ra);
    const DtsGpu *gb = dts_platform_gpu (tuner->platform, rb);
    sg_host_t a = dts_sim_host_by_name (ga->host), b = dts_sim_host_by_name (gb->host);
    route = g_array_new (FALSE, FALSE, sizeof (DtsCollLink));
    if (a != b) {
      xbt_dynar_t found = xbt_dynar_new (sizeof (sg_link_t), NULL);
      g_autofree char *message = NULL;
      if (!dts_sg_host_route (a, b, found, &message)) {
        xbt_dynar_free (&found);
        g_array_unref (route);
        g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                     "platform '%s': line %d: no route from GPU '%s' (rank %d) to GPU '%s' "
                     "(rank %d) (expected one: the all-reduce sends between them; SimGrid: %s)",
                     tuner->platform->path, ga->line, ga->host, ra, gb->host, rb, message);
        return FALSE;
      }
      unsigned int cursor;
      sg_link_t link;
      xbt_dynar_foreach (found, cursor, link)
      {
        int index = GPOINTER_TO_INT (g_hash_table_lookup (tuner->link_index, link));
        if (index == 0) {
          index = (int) g_hash_table_size (tuner->link_index) + 1;
          g_hash_table_insert (tuner->link_index, link, GINT_TO_POINTER (index));
        }
        DtsCollLink l = { link, sg_link_get_bandwidth (link), sg_link_get_latency (link),
                          sg_link_is_shared (link), index };
        g_array_append_val (route, l);
      }
      xbt_dynar_free (&found);
    }
    dts_sim_peers_add (&tuner->routes[ra], rb, route);
  }
  *links = (const DtsCollLink *) route->data;
  *n_links = (int) route->len;
  return TRUE;
}

/* DtsCollLinksFn over a plan's participants (DATA: TunerRoutes). */
static gboolean
tuner_links (int from, int to, const DtsCollLink **links, int *n_links, gpointer data,
             GError **error)
{
  TunerRoutes *tr = data;
  int a = dts_coll_plan_part_host (tr->plan, from), b = dts_coll_plan_part_host (tr->plan, to);
  if (tr->gpu_rank != NULL)
    a = tr->gpu_rank[a], b = tr->gpu_rank[b];
  return tuner_rank_links (a, b, links, n_links, tr->tuner, error);
}

static gboolean
tuner_measure (const DtsCollPlan *plan, const int *gpu_rank, double *bandwidth_s,
               double *latency_s, gpointer data, GError **error)
{
  DtsSimTuner *t = data;
  /* The members' GPUs are part of the key: communicators of one size over
   * other GPUs cross other links. */
  g_autoptr (GString) k = g_string_new (NULL);
  g_string_printf (k, "%s:%" G_GUINT64_FORMAT ":%d:%a:%d:", plan->algorithm, plan->peer_key,
                   plan->n_ranks, plan->bytes, plan->channels);
  for (int r = 0; gpu_rank != NULL && r < plan->n_ranks; r++)
    g_string_append_printf (k, "%d,", gpu_rank[r]);
  g_autofree char *key = g_string_free (g_steal_pointer (&k), FALSE);
  double *known = g_hash_table_lookup (t->cache, key);
  if (known == NULL) {
    TunerRoutes tr = { t, plan, gpu_rank };
    double *v = g_new (double, 2);
    g_autoptr (GError) missing = NULL;
    if (!dts_coll_plan_load_s (plan, tuner_links, &tr, &v[0], &v[1], &missing)) {
      g_free (v);
      /* Say which route is missing the way the route check does: the
       * first in the algorithm's order, with what it is for (over the
       * first ranks: a communicator of other GPUs says it as it found it). */
      DtsPlanBottleneck b;
      if (gpu_rank != NULL)
        g_propagate_error (error, g_steal_pointer (&missing));
      else if (dts_sim_plan_bottleneck (t->platform, plan, &b, error)) {
        g_free (b.link);
        g_propagate_error (error, g_steal_pointer (&missing));
      }
      return FALSE;
    }
    g_hash_table_insert (t->cache, g_steal_pointer (&key), v);
    known = v;
  }
  *bandwidth_s = known[0];
  *latency_s = known[1];
  return TRUE;
}

DtsSimTuner *
dts_sim_tuner_new (const DtsPlatform *platform, char **cfg, GArray *overrides, GError **error)
{
  if (!dts_sim_load_platform (platform->path, cfg, overrides, error)
      || !seal (platform->path, error))
    return NULL;
  DtsSimTuner *t = g_new0 (DtsSimTuner, 1);
  t->platform = platform;
  t->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  t->n_routes = platform->gpus->len;
  t->routes = g_new0 (DtsSimPeers, MAX (t->n_routes, 1));
  t->link_index = g_hash_table_new (g_direct_hash, g_direct_equal);
  const DtsGpu *gpu = dts_platform_gpu (platform, 0);
  t->tuner = (DtsCollTuner){ .measure = tuner_measure, .rank_links = tuner_rank_links,
                             .data = t, .arch = gpu->spec.arch,
                             .nvlink = strstr (gpu->spec.id, "SXM") != NULL };
  return t;
}

const DtsCollTuner *
dts_sim_tuner_get (const DtsSimTuner *t)
{
  return &t->tuner;
}

void
dts_sim_tuner_set_nccl (DtsSimTuner *t, const DtsCollNcclLimits *limits)
{
  t->tuner.nccl = *limits;
}

void
dts_sim_tuner_free (DtsSimTuner *t)
{
  if (t == NULL)
    return;
  g_hash_table_unref (t->cache);
  for (guint r = 0; r < t->n_routes; r++)
    dts_sim_peers_clear (&t->routes[r], (GDestroyNotify) g_array_unref);
  g_free (t->routes);
  g_hash_table_unref (t->link_index);
  g_free (t);
}
