/* multirail.c - a multi-rail (topology-aware) ring all-reduce as a plan.
 *
 * Model (NCCL's rings on multi-NIC nodes: its graph search gives each
 * channel a ring that enters and leaves every node through a different
 * GPU and NIC, NCCL_CROSS_NIC=0): the ranks are grouped by the node of
 * their GPU (DtsCollParams.gpu_node), nodes in order of first appearance,
 * a node's GPUs in rank order. Channel c's ring visits the nodes in order
 * and, inside node i of g_i GPUs, its GPUs from local index
 * o = floor(c g_i / C) on: o, o+1, ..., g_i - 1, 0, ..., o - 1. So channel
 * c leaves node i from its GPU o - 1 mod g_i and enters node i + 1 at its
 * GPU o: with C = g channels on nodes whose GPU q uses NIC q x NICS/g,
 * every NIC carries one channel out and one in, where the rank-order ring
 * sends every channel through one GPU's NIC. Each channel is an ordinary
 * ring (ring.c) over its own slice of the buffer (S/C bytes, N segments):
 * 2(N-1) steps, reduce-scatter then all-gather, each step sending one
 * segment per channel to that channel's successor. A step holds the
 * transfers of every channel (one transfer each, DtsCollXfer.channel
 * saying which), tag c for channel c (a rank's predecessors differ between
 * channels). Both halves are lock-step phases.
 *
 * Closed form on a contention-free platform where every GPU has its own
 * link of bandwidth B and every route latency L (the flat test platforms):
 * every step sends S/N bytes per rank over its link (all channels), in
 * R = ceil(S/(N C chunk)) rounds, so as for the ring
 *   T = 2(N-1)/N x S/B + 2(N-1) R L
 * (unchunked: 2(N-1) L). dtsim allreduce reads B as the share of a link
 * over the plan's routes, which are enumerated per channel: B = share x C.
 *
 * All-gather and reduce-scatter (dts_coll_multirail_half_plan_new): the
 * same rings, each channel running one half over its own slice, as NCCL's
 * ring all-gather and reduce-scatter use every channel's ring. Block b of a
 * channel's slice belongs to rank b (ring-halves.c's indexing, along that
 * channel's ring): at step s = 0..N-2 the rank at position p of channel
 * c's ring sends block ring_c[p - s] (all-gather; its own at s = 0) or its
 * partial sum of block ring_c[p - s - 1] (reduce-scatter, adding the
 * partial sum of block ring_c[p - s - 2] it receives), so after N - 1
 * steps every rank holds every block, or the whole sum of its own.
 * Closed form on the flat platforms, as for the ring halves:
 *   T = (N-1)/N x S/B + (N-1) R L, B = share x C. */
#include "config.h"

#include <math.h>

#include "collective/collective-private.h"
#include "core/error.h"

static int
mod (int a, int n)
{
  int r = a % n;
  return r < 0 ? r + n : r;
}

DtsCollPlan *
dts_coll_multirail_plan_new (const DtsCollParams *params, GError **error)
{
  if (!dts_coll_check_params (params, "multi-rail ring all-reduce", TRUE, error))
    return NULL;
  int n = params->n_ranks, C = params->channels;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_alloc ("multi-rail", params);
  dts_coll_group_nodes (plan, params, FALSE);
  plan->n_levels = C;
  plan->n_steps = 2 * (n - 1);
  plan->n_reduce_steps = n - 1;
  plan->seg_bytes = params->bytes / ((double) n * C);
  double rounds = ceil (plan->seg_bytes / plan->chunk_bytes * (1 - 1e-12));
  if (rounds > G_MAXINT / 4) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "multi-rail ring all-reduce: %.0f rounds per step; use a larger chunk size",
                 rounds);
    return NULL;
  }
  plan->n_rounds = rounds < 1 ? 1 : (int) rounds;
  plan->n_parts = n;
  plan->sends_per_step = C;
  plan->n_tags = MAX (C, DTS_COLL_N_TAGS);
  plan->n_phases = 2;
  plan->phases[0] = (DtsCollPhase){ 0, n - 1, TRUE, "reduce-scatter" };
  plan->phases[1] = (DtsCollPhase){ n - 1, n - 1, TRUE, "all-gather" };
  guint64 key = dts_coll_key_add (dts_coll_key_add (dts_coll_key_add (0, 'm'), n), C);
  for (int r = 0; r < n; r++)
    key = dts_coll_key_add (key, plan->node_ranks[r]);
  plan->peer_key = key;
  return g_steal_pointer (&plan);
}

DtsCollPlan *
dts_coll_multirail_half_plan_new (const DtsCollParams *params, GError **error)
{
  gboolean gather = params->op == DTS_COLL_OP_ALLGATHER;
  g_return_val_if_fail (gather || params->op == DTS_COLL_OP_REDUCE_SCATTER, NULL);
  DtsCollParams ar = *params;
  ar.op = DTS_COLL_OP_ALLREDUCE;
  g_autoptr (DtsCollPlan) plan = dts_coll_multirail_plan_new (&ar, error);
  if (plan == NULL) {
    if (error && *error)
      g_prefix_error (error, "%s: ", gather ? "all-gather" : "reduce-scatter");
    return NULL;
  }
  int n = params->n_ranks;
  plan->n_steps = n - 1;
  plan->n_reduce_steps = gather ? 0 : n - 1;
  plan->n_phases = 1;
  plan->phases[0] = (DtsCollPhase){ 0, n - 1, TRUE, gather ? "all-gather" : "reduce-scatter" };
  plan->peer_key = dts_coll_key_add (plan->peer_key, gather ? 'g' : 's');
  return g_steal_pointer (&plan);
}

/* Channel C's first local index in node I. */
static int
first_local (const DtsCollPlan *plan, int i, int c)
{
  int g = plan->node_start[i + 1] - plan->node_start[i];
  return (int) ((gint64) c * g / plan->n_levels) % g;
}

/* Position of rank R in channel C's ring.  A plan with aux (topo-ring's
 * searched rings, topo-ring.c) holds every channel's order: aux[c n + p]
 * the rank at position p, aux[C n + c n + r] the position of rank r. */
static int
ring_pos (const DtsCollPlan *plan, int r, int c)
{
  if (plan->aux != NULL)
    return plan->aux[(plan->n_levels + c) * plan->n_ranks + r];
  int i = plan->node_of[r];
  int g = plan->node_start[i + 1] - plan->node_start[i];
  return plan->node_start[i] + mod (plan->position[r] - first_local (plan, i, c), g);
}

/* The rank at position P of channel C's ring. */
static int
ring_rank (const DtsCollPlan *plan, int p, int c)
{
  if (plan->aux != NULL)
    return plan->aux[c * plan->n_ranks + p];
  int lo = 0, hi = plan->n_nodes - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (plan->node_start[mid] <= p)
      lo = mid;
    else
      hi = mid - 1;
  }
  int g = plan->node_start[lo + 1] - plan->node_start[lo];
  int q = mod (p - plan->node_start[lo] + first_local (plan, lo, c), g);
  return plan->node_ranks[plan->node_start[lo] + q];
}

int
dts_coll_multirail_n_steps (const DtsCollPlan *plan, int part)
{
  return plan->n_steps;
}

void
dts_coll_multirail_half_step_ops (const DtsCollPlan *plan, int part, int step,
                                  DtsCollStepOps *out)
{
  int n = plan->n_ranks, C = plan->n_levels;
  gboolean gather = plan->n_reduce_steps == 0;
  out->phase = 0;
  out->n_rounds = plan->n_rounds;
  out->chunk_bytes = plan->chunk_bytes;
  for (int pass = 0; pass < 2; pass++)
    for (int c = 0; c < C; c++) {
      int p = ring_pos (plan, part, c);
      int at = pass == 0 ? p - step - (gather ? 0 : 1) : p - step - (gather ? 1 : 2);
      int block = ring_rank (plan, mod (at, n), c);
      int peer = ring_rank (plan, mod (p + (pass == 0 ? 1 : -1), n), c);
      dts_coll_add_xfer_channel (out, pass == 0 ? DTS_XFER_SEND : DTS_XFER_RECV, peer, c,
                                 block * plan->seg_bytes, plan->seg_bytes,
                                 pass == 1 && !gather, c);
    }
}

double
dts_coll_multirail_half_closed_form_s (const DtsCollPlan *plan, double share_Bps,
                                       double latency_s)
{
  int n = plan->n_ranks;
  if (n < 2 || !(share_Bps > 0))
    return 0;
  double B = share_Bps * plan->n_levels;
  return (double) (n - 1) / n * plan->bytes / B + (n - 1.0) * plan->n_rounds * latency_s;
}

void
dts_coll_multirail_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  int n = plan->n_ranks, C = plan->n_levels;
  gboolean rs = step < plan->n_reduce_steps;
  int s = rs ? step : step - plan->n_reduce_steps;
  out->phase = rs ? 0 : 1;
  out->n_rounds = plan->n_rounds;
  out->chunk_bytes = plan->chunk_bytes;
  for (int pass = 0; pass < 2; pass++)
    for (int c = 0; c < C; c++) {
      int p = ring_pos (plan, part, c);
      int seg = pass == 0 ? (rs ? mod (p - s, n) : mod (p + 1 - s, n))
                          : (rs ? mod (p - s - 1, n) : mod (p - s, n));
      int peer = ring_rank (plan, mod (p + (pass == 0 ? 1 : -1), n), c);
      dts_coll_add_xfer_channel (out, pass == 0 ? DTS_XFER_SEND : DTS_XFER_RECV, peer, c,
                                 seg * plan->seg_bytes, plan->seg_bytes,
                                 pass == 1 && rs, c);
    }
}

gboolean
dts_coll_multirail_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data)
{
  int n = plan->n_ranks;
  for (int c = 0; c < plan->n_levels && n > 1; c++)
    for (int p = 0; p < n; p++)
      if (!fn (ring_rank (plan, p, c), ring_rank (plan, (p + 1) % n, c),
               "a rank sends to its successor in its channel's ring", data))
        return FALSE;
  return TRUE;
}

double
dts_coll_multirail_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  int n = plan->n_ranks;
  if (n < 2 || !(share_Bps > 0))
    return 0;
  double B = share_Bps * plan->n_levels;
  return 2.0 * (n - 1) / n * plan->bytes / B + 2.0 * (n - 1) * plan->n_rounds * latency_s;
}
