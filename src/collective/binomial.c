/* binomial.c - binomial-tree broadcast and reduce from a root, as MPI
 * libraries run them for small buffers (MPICH's MPIR_Bcast_binomial and
 * MPIR_Reduce_binomial).
 *
 * Model: with r the rank relative to the root ((rank - root) mod N) and
 * K = ceil(log2 N) levels, broadcast step k = 0..K-1 has every rank with
 * r < 2^k that holds the buffer send all of it to r + 2^k (when that is a
 * rank): rank r > 0 receives once, at level floor(log2 r), from
 * r - 2^floor(log2 r), and then sends at every later level to its children
 * r + 2^k. Reduce is the same tree run backwards: a rank adds what its
 * children send it, the last level's child first, and sends the sum to its
 * parent; the root ends with the sum. Every transfer carries a channel's
 * whole slice (S/C bytes) in rounds of chunk_bytes; the transfers of level k
 * use tag k, so that a child that is ready early (a leaf) cannot meet a
 * receive meant for a child of another level.
 *
 * Closed form on a contention-free platform, where a rank's routes to its
 * children (or from them, for reduce) share its link: K (R L + S/B'), with
 * R chunk rounds per transfer and B' = B x K (B being the share of a route
 * of the root's link, which K routes cross): log2 N latencies instead of
 * the chain's N - 2 + K slots (chain.c), but the whole buffer K times. */
#include "config.h"

#include "collective/collective-private.h"
#include "core/error.h"

/* floor(log2 R) for R >= 1. */
static int
level_of (int r)
{
  int k = 0;
  while ((2 << k) <= r)
    k++;
  return k;
}

DtsCollPlan *
dts_coll_binomial_plan_new (const DtsCollParams *params, GError **error)
{
  gboolean bcast = params->op == DTS_COLL_OP_BROADCAST;
  const char *what = bcast ? "binomial broadcast" : "binomial reduce";
  g_return_val_if_fail (bcast || params->op == DTS_COLL_OP_REDUCE, NULL);
  if (!dts_coll_check_params (params, what, TRUE, error))
    return NULL;
  int n = params->n_ranks;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_alloc ("binomial", params);
  int levels = 0;
  while ((1 << levels) < n)
    levels++;
  plan->n_levels = levels;
  plan->root = params->root;
  plan->seg_bytes = params->bytes / params->channels;
  plan->n_rounds = dts_coll_rounds (plan->seg_bytes, plan->chunk_bytes, what, error);
  if (plan->n_rounds == 0)
    return NULL;
  plan->n_steps = levels;
  plan->n_reduce_steps = bcast ? 0 : levels;
  plan->n_parts = n;
  plan->sends_per_step = 1;
  plan->n_tags = MAX (levels, 1);
  plan->n_phases = 1;
  plan->phases[0] = (DtsCollPhase){ 0, levels, FALSE, bcast ? "broadcast" : "reduce" };
  guint64 key = dts_coll_key_add (0, 'b');
  key = dts_coll_key_add (key, n);
  plan->peer_key = dts_coll_key_add (key, params->root);
  return g_steal_pointer (&plan);
}

/* The levels at which relative rank R takes part: from *FIRST (its
 * receive, for R > 0) to *LAST (its last send) of the broadcast. */
static void
levels_of (const DtsCollPlan *plan, int r, int *first, int *last)
{
  int n = plan->n_ranks;
  int k = r == 0 ? -1 : level_of (r);
  *first = r == 0 ? 0 : k;
  int top = k;
  while (top + 1 < plan->n_levels && r + (1 << (top + 1)) < n)
    top++;
  *last = top;
}

int
dts_coll_binomial_n_steps (const DtsCollPlan *plan, int part)
{
  int first, last;
  levels_of (plan, dts_coll_relative_rank (plan, part), &first, &last);
  return last - first + 1;
}

/* The broadcast level of step STEP of relative rank R. */
static int
bcast_level (const DtsCollPlan *plan, int part, int step)
{
  int first, last;
  levels_of (plan, dts_coll_relative_rank (plan, part), &first, &last);
  gboolean bcast = plan->n_reduce_steps == 0;
  return bcast ? first + step : last - step;
}

void
dts_coll_binomial_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  int n = plan->n_ranks, r = dts_coll_relative_rank (plan, part);
  gboolean bcast = plan->n_reduce_steps == 0;
  int k = bcast_level (plan, part, step);
  out->phase = 0;
  out->n_rounds = plan->n_rounds;
  out->chunk_bytes = plan->chunk_bytes;
  if (r > 0 && k == level_of (r)) {
    /* The transfer with the parent. */
    int parent = (r - (1 << k) + plan->root) % n;
    dts_coll_add_xfer_at (out, bcast ? DTS_XFER_RECV : DTS_XFER_SEND, parent, 0, plan->seg_bytes,
                          plan->channels, FALSE, k);
    return;
  }
  int child = (r + (1 << k) + plan->root) % n;
  dts_coll_add_xfer_at (out, bcast ? DTS_XFER_SEND : DTS_XFER_RECV, child, 0, plan->seg_bytes,
                        plan->channels, !bcast, k);
}

int
dts_coll_binomial_step_slot (const DtsCollPlan *plan, int part, int step)
{
  int k = bcast_level (plan, part, step);
  return plan->n_reduce_steps == 0 ? k : plan->n_levels - 1 - k;
}

gboolean
dts_coll_binomial_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data)
{
  int n = plan->n_ranks;
  gboolean bcast = plan->n_reduce_steps == 0;
  for (int r = 1; r < n; r++) {
    int parent = (r - (1 << level_of (r)) + plan->root) % n, child = (r + plan->root) % n;
    if (!fn (bcast ? parent : child, bcast ? child : parent,
             bcast ? "a rank sends the buffer to its children in the binomial tree"
                   : "a rank sends its sum to its parent in the binomial tree",
             data))
      return FALSE;
  }
  return TRUE;
}

double
dts_coll_binomial_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  int k = plan->n_levels;
  if (plan->n_ranks < 2)
    return 0;
  return k * (plan->n_rounds * latency_s + plan->bytes / (share_Bps * k));
}
