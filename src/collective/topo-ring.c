/* topo-ring.c - the ring all-reduce in orders searched on the platform's
 * routes, the way NCCL's graph search looks for rings over NVLink instead
 * of taking the rank order: a ring per channel, channel c's searched with
 * the hops of channels 0 .. c-1 already counted on the links.
 *
 * The search (one node at a time; nodes from params->gpu_node, in order of
 * first appearance, as hier and multi-rail group them): the node's GPUs are
 * visited from its first rank along a path that passes every GPU once (a
 * cycle back to the first when the ring has only this node). A path's
 * cost is its busiest link: over the shared links of the routes of its
 * hops (the tuner's rank_links), the most hops that cross one link over
 * that link's bandwidth (FATPIPE links never count); ties go to fewer links
 * crossed in all (less latency), then to the first found. Depth-first in
 * rank order with branch and bound, so the rank order is kept unless a
 * path is strictly better (every order ties on an NVSwitch or a crossbar).
 * Nodes of more than TOPO_RING_MAX_GPUS GPUs, and searches past
 * TOPO_RING_MAX_VISITS partial paths, keep the best found so far. Between
 * nodes the ring goes from one node's last GPU on its path to the next
 * node's first rank; those hops are not searched (the NIC a GPU reaches is
 * the platform's). Without a tuner (no platform: the reference
 * interpreter's tests) the order is the rank order.
 *
 * What it finds on a DGX-1 (hybrid cube mesh of 25 and 50 GB/s NVLinks):
 * 0 3 2 1 5 6 7 4, every hop a direct double NVLink (50 GB/s), where the
 * rank order takes single links and two hops (3-4, 7-0) through another
 * GPU; channel 1 then takes the same NVLinks the other way round (each
 * direction is a link of its own). Where every channel finds the same order
 * the plan is a ring plan in it (ring.c, with its closed form); where they
 * differ, the multi-rail plan (multirail.c) with the orders in aux, each
 * channel a ring over its slice of the buffer, with multi-rail's closed
 * form. */
#include "config.h"

#include <string.h>

#include "collective/collective-private.h"
#include "core/error.h"

#define TOPO_RING_MAX_GPUS 32
#define TOPO_RING_MAX_VISITS 2000000

typedef struct {
  int g;                 /* GPUs of the node */
  const int *rank;       /* [g]: their ranks, in rank order */
  gboolean cycle;        /* close the path back to rank[0] */
  int **hop_links;       /* [a * g + b]: indices of the shared links of rank[a] -> rank[b] */
  int *n_hop_links;      /* [a * g + b] */
  int *n_route_links;    /* [a * g + b]: every link of the route (latency tie-break) */
  double *bw;            /* link index -> bandwidth */
  int *load;             /* link index -> hops of the current path through it */
  int *path, *best;
  gboolean *used;
  double best_cost;
  int best_hops;
  int min_route_links;   /* the fewest links of a hop's route: a bound on what the rest of a
                            path adds */
  long visits;
} Search;

/* The cost of hop A -> B added to a path of cost COST: COST or the load of
 * one of its links, whichever is larger (loads counted in). */
static double
add_hop (Search *s, int a, int b, double cost)
{
  int k = a * s->g + b;
  for (int i = 0; i < s->n_hop_links[k]; i++) {
    int l = s->hop_links[k][i];
    s->load[l]++;
    double c = s->load[l] / s->bw[l];
    if (c > cost)
      cost = c;
  }
  return cost;
}

static void
remove_hop (Search *s, int a, int b)
{
  int k = a * s->g + b;
  for (int i = 0; i < s->n_hop_links[k]; i++)
    s->load[s->hop_links[k][i]]--;
}

static gboolean
better (const Search *s, double cost, int hops)
{
  return cost < s->best_cost || (cost == s->best_cost && hops < s->best_hops);
}

static void
extend (Search *s, int depth, double cost, int hops)
{
  /* The hops still to add cross at least min_route_links links each, and a
   * path's cost never falls as it grows: a partial path that cannot end
   * strictly better than the best is not extended (on an NVSwitch, where
   * every order ties, the rank order is then the only one followed). */
  int to_add = s->g - depth + (s->cycle ? 1 : 0);
  if (++s->visits > TOPO_RING_MAX_VISITS
      || !better (s, cost, hops + to_add * s->min_route_links))
    return;
  int last = s->path[depth - 1];
  if (depth == s->g) {
    if (s->cycle) {
      double c = add_hop (s, last, 0, cost);
      int h = hops + s->n_route_links[last * s->g];
      remove_hop (s, last, 0);
      cost = c;
      hops = h;
    }
    if (better (s, cost, hops)) {
      s->best_cost = cost;
      s->best_hops = hops;
      memcpy (s->best, s->path, sizeof (int) * s->g);
    }
    return;
  }
  for (int b = 1; b < s->g; b++) {
    if (s->used[b])
      continue;
    double c = add_hop (s, last, b, cost);
    s->used[b] = TRUE;
    s->path[depth] = b;
    extend (s, depth + 1, c, hops + s->n_route_links[last * s->g + b]);
    s->used[b] = FALSE;
    remove_hop (s, last, b);
  }
}

/* Order the G GPUs RANK of one node into OUT[c G ..] for each of the C
 * channels (their ranks): channel c's path is searched with the hops of
 * channels 0 .. c-1 already on the links. */
static gboolean
search_node (const DtsCollTuner *tuner, const int *gpu_rank, const int *rank, int g,
             gboolean cycle, int C, int *out, GError **error)
{
  if (tuner == NULL || tuner->rank_links == NULL || g <= 2 || g > TOPO_RING_MAX_GPUS) {
    for (int c = 0; c < C; c++)
      memcpy (out + (gsize) c * g, rank, sizeof (int) * g);
    return TRUE;
  }
  Search s = { .g = g, .rank = rank, .cycle = cycle, .best_cost = G_MAXDOUBLE,
               .best_hops = G_MAXINT };
  s.hop_links = g_new0 (int *, (gsize) g * g);
  s.n_hop_links = g_new0 (int, (gsize) g * g);
  s.n_route_links = g_new0 (int, (gsize) g * g);
  g_autoptr (GHashTable) index = g_hash_table_new (NULL, NULL);
  g_autoptr (GArray) bw = g_array_new (FALSE, FALSE, sizeof (double));
  gboolean ok = TRUE;
  for (int a = 0; a < g && ok; a++)
    for (int b = 0; b < g && ok; b++) {
      if (a == b)
        continue;
      const DtsCollLink *links;
      int n_links;
      int ga = gpu_rank ? gpu_rank[rank[a]] : rank[a], gb = gpu_rank ? gpu_rank[rank[b]] : rank[b];
      if (!tuner->rank_links (ga, gb, &links, &n_links, tuner->data, error)) {
        ok = FALSE;
        break;
      }
      int k = a * g + b;
      s.n_route_links[k] = n_links;
      s.hop_links[k] = g_new (int, MAX (n_links, 1));
      for (int i = 0; i < n_links; i++) {
        if (!links[i].shared)
          continue;
        gpointer v;
        if (!g_hash_table_lookup_extended (index, links[i].id, NULL, &v)) {
          v = GINT_TO_POINTER (bw->len);
          g_hash_table_insert (index, (gpointer) links[i].id, v);
          g_array_append_val (bw, links[i].bandwidth_Bps);
        }
        s.hop_links[k][s.n_hop_links[k]++] = GPOINTER_TO_INT (v);
      }
    }
  if (ok) {
    s.min_route_links = G_MAXINT;
    for (int a = 0; a < g; a++)
      for (int b = 0; b < g; b++)
        if (a != b)
          s.min_route_links = MIN (s.min_route_links, s.n_route_links[a * g + b]);
    s.bw = (double *) bw->data;
    s.load = g_new0 (int, MAX (bw->len, 1));
    s.path = g_new (int, g);
    s.best = g_new (int, g);
    s.used = g_new0 (gboolean, g);
    for (int c = 0; c < C; c++) {
      memset (s.used, 0, sizeof (gboolean) * g);
      s.path[0] = 0;
      s.used[0] = TRUE;
      s.best_cost = G_MAXDOUBLE;
      s.best_hops = G_MAXINT;
      s.visits = 0;
      extend (&s, 1, 0, 0);
      for (int i = 0; i < g; i++)
        out[c * g + i] = rank[s.best[i]];
      /* the later channels see this one's hops on the links */
      for (int i = 0; i + 1 < g + (cycle ? 1 : 0); i++)
        add_hop (&s, s.best[i], s.best[(i + 1) % g], 0.0);
    }
    g_free (s.load);
    g_free (s.path);
    g_free (s.best);
    g_free (s.used);
  }
  for (int k = 0; k < g * g; k++)
    g_free (s.hop_links[k]);
  g_free (s.hop_links);
  g_free (s.n_hop_links);
  g_free (s.n_route_links);
  return ok;
}

DtsCollPlan *
dts_coll_topo_ring_plan_new (const DtsCollParams *params, GError **error)
{
  gboolean half = params->op == DTS_COLL_OP_ALLGATHER
                  || params->op == DTS_COLL_OP_REDUCE_SCATTER;
  const char *what = !half                                    ? "topo-ring all-reduce"
                     : params->op == DTS_COLL_OP_ALLGATHER ? "topo-ring all-gather"
                                                             : "topo-ring reduce-scatter";
  if (!dts_coll_check_params (params, what, TRUE, error))
    return NULL;
  if (params->ring != NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "%s: searches its own order (no ring order to give)", what);
    return NULL;
  }
  int n = params->n_ranks;
  /* nodes in order of first appearance, a node's ranks in rank order */
  g_autofree int *node_of = g_new (int, n);
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  int n_nodes = 0;
  for (int r = 0; r < n; r++) {
    int node = params->gpu_node ? params->gpu_node[r] : 0;
    gpointer v;
    if (!g_hash_table_lookup_extended (seen, GINT_TO_POINTER (node), NULL, &v)) {
      v = GINT_TO_POINTER (n_nodes++);
      g_hash_table_insert (seen, GINT_TO_POINTER (node), v);
    }
    node_of[r] = GPOINTER_TO_INT (v);
  }
  int C = params->channels;
  /* order[c n + p]: the rank at position p of channel c's ring */
  g_autofree int *order = g_new (int, (gsize) C * n);
  g_autofree int *members = g_new (int, n);
  g_autofree int *node_order = g_new (int, (gsize) C * n);
  int pos = 0;
  for (int i = 0; i < n_nodes; i++) {
    int g = 0;
    for (int r = 0; r < n; r++)
      if (node_of[r] == i)
        members[g++] = r;
    if (!search_node (params->tuner, params->gpu_rank, members, g, n_nodes == 1, C, node_order,
                      error))
      return NULL;
    for (int c = 0; c < C; c++)
      memcpy (order + (gsize) c * n + pos, node_order + (gsize) c * g, sizeof (int) * g);
    pos += g;
  }
  gboolean same = TRUE;
  for (int c = 1; c < C && same; c++)
    same = memcmp (order, order + (gsize) c * n, sizeof (int) * n) == 0;
  DtsCollPlan *plan;
  if (same) {
    /* one ring for every channel: a ring plan in that order */
    DtsCollParams p = *params;
    p.ring = order;
    if ((plan = half ? dts_coll_ring_half_plan_new (&p, error)
                     : dts_coll_ring_plan_new (&p, error)) == NULL)
      return NULL;
  } else {
    /* a ring per channel: the multi-rail plan over these orders */
    if ((plan = half ? dts_coll_multirail_half_plan_new (params, error)
                     : dts_coll_multirail_plan_new (params, error)) == NULL)
      return NULL;
    plan->aux = g_new (int, (gsize) 2 * C * n);
    guint64 key = dts_coll_key_add (dts_coll_key_add (dts_coll_key_add (0, 't'), n), C);
    key = dts_coll_key_add (key, params->op);
    for (int c = 0; c < C; c++)
      for (int q = 0; q < n; q++) {
        plan->aux[c * n + q] = order[c * n + q];
        plan->aux[(C + c) * n + order[c * n + q]] = q;
        key = dts_coll_key_add (key, order[c * n + q]);
      }
    plan->peer_key = key;
  }
  g_free (plan->algorithm);
  plan->algorithm = g_strdup ("topo-ring");
  return plan;
}

/* The topo-ring row's generic interface: a ring plan's or, with a ring per
 * channel (aux), the multi-rail plan's (both take plan->n_steps steps, so
 * the row's n_steps is ring's). */
void
dts_coll_topo_ring_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  if (plan->aux)
    dts_coll_multirail_step_ops (plan, part, step, out);
  else
    dts_coll_ring_step_ops (plan, part, step, out);
}

gboolean
dts_coll_topo_ring_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data)
{
  return plan->aux ? dts_coll_multirail_routes (plan, fn, data)
                   : dts_coll_ring_routes (plan, fn, data);
}

double
dts_coll_topo_ring_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  return plan->aux ? dts_coll_multirail_closed_form_s (plan, share_Bps, latency_s)
                   : dts_coll_ring_closed_form_s (plan->n_ranks, plan->bytes, share_Bps, latency_s);
}

/* All-gather and reduce-scatter over the searched rings: the ring halves'
 * interface, or with a ring per channel the multi-rail halves'. */
void
dts_coll_topo_ring_half_step_ops (const DtsCollPlan *plan, int part, int step,
                                  DtsCollStepOps *out)
{
  if (plan->aux)
    dts_coll_multirail_half_step_ops (plan, part, step, out);
  else
    dts_coll_ring_half_step_ops (plan, part, step, out);
}

double
dts_coll_topo_ring_half_closed_form_s (const DtsCollPlan *plan, double share_Bps,
                                       double latency_s)
{
  return plan->aux ? dts_coll_multirail_half_closed_form_s (plan, share_Bps, latency_s)
                   : dts_coll_ring_half_closed_form_s (plan, share_Bps, latency_s);
}
