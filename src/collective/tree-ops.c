/* tree-ops.c - pipelined binary-tree broadcast from a root: the broadcast
 * half of the tree all-reduce (tree.c) run alone over one tree, as MPI
 * libraries pipeline a broadcast down a tree for medium buffers (Open
 * MPI's coll/tuned binary-tree broadcast with segments, MVAPICH2's
 * knomial pipelines).
 *
 * Model: relative rank r = (rank - root) mod N is a node of the binary
 * heap over 0..N-1: its parent is (r - 1) / 2, its children 2r + 1 and
 * 2r + 2 where they are ranks, its depth d = floor(log2 (r + 1)), and the
 * deepest rank has depth D = floor(log2 N). Each channel's slice (S/C
 * bytes) is cut into K chunks of chunk_bytes (the last one the remainder),
 * as the chain does (chain.c), and the tree pipelines them: at step s the
 * root sends chunk s to each of its children; a rank below receives chunk
 * s from its parent (a copy) while it sends chunk s - 1, received at the
 * step before, to each of its children; a leaf only receives. The root
 * and the leaves take K steps, the others K + 1; a rank of depth d >= 1
 * runs its step s in slot s + d - 1, the root in slot s: K + D - 1 slots,
 * the ranks of depth j sending chunk t - j in slot t.
 *
 * Closed form on a contention-free platform where a rank's routes to its
 * children share its link W (a route's share B = W/2 with two children),
 * hop latency L: the sum over the K + D - 1 slots of L plus the longest
 * C b f / W of the slot, b the chunk a sending depth moves and f the most
 * children of a rank of that depth; (K + D - 1) (L + S/(K B)) with equal
 * chunks and two children at every depth. Against the chain's N + K - 2
 * slots at the link's whole bandwidth: log2 N fill slots instead of N - 2,
 * at half the bandwidth (two children on one link). No reduce: its
 * children reach a parent at different times where the heap's leaves sit
 * at two depths, which no slot count says. */
#include "config.h"

#include "collective/collective-private.h"
#include "core/error.h"

static int
absolute (const DtsCollPlan *plan, int r)
{
  return (r + plan->root) % plan->n_ranks;
}

/* floor(log2 (R + 1)): the depth of relative rank R. */
static int
depth_of (int r)
{
  int d = 0;
  while ((2 << d) <= r + 1)
    d++;
  return d;
}

static int
n_children (const DtsCollPlan *plan, int r)
{
  int n = plan->n_ranks;
  return (2 * r + 1 < n) + (2 * r + 2 < n);
}

DtsCollPlan *
dts_coll_tree_op_plan_new (const DtsCollParams *params, GError **error)
{
  const char *what = "tree broadcast";
  g_return_val_if_fail (params->op == DTS_COLL_OP_BROADCAST, NULL);
  if (!dts_coll_check_params (params, what, TRUE, error))
    return NULL;
  int n = params->n_ranks;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_alloc ("tree", params);
  plan->root = params->root;
  int n_chunks = dts_coll_rounds (params->bytes / params->channels, plan->chunk_bytes, what,
                                  error);
  if (n_chunks == 0)
    return NULL;
  plan->n_levels = n_chunks;
  plan->n_rounds = 1;
  plan->seg_bytes = dts_coll_pipeline_chunk_bytes (plan, 0);
  plan->n_steps = n < 2 ? 0 : n_chunks + (n > 2);
  plan->n_reduce_steps = 0;
  plan->n_parts = n;
  plan->sends_per_step = n > 2 ? 2 : 1;
  plan->n_phases = 1;
  plan->phases[0] = (DtsCollPhase){ 0, plan->n_steps, FALSE, "broadcast" };
  guint64 key = dts_coll_key_add (0, 'h');
  key = dts_coll_key_add (key, n);
  plan->peer_key = dts_coll_key_add (key, params->root);
  return g_steal_pointer (&plan);
}

int
dts_coll_tree_op_n_steps (const DtsCollPlan *plan, int part)
{
  int r = dts_coll_relative_rank (plan, part);
  if (plan->n_ranks < 2)
    return 0;
  /* the root and the leaves K steps, the others K + 1 */
  return r == 0 || n_children (plan, r) == 0 ? plan->n_levels : plan->n_levels + 1;
}

void
dts_coll_tree_op_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  int r = dts_coll_relative_rank (plan, part), n_chunks = plan->n_levels;
  int kids = n_children (plan, r);
  out->phase = 0;
  out->n_rounds = 1;
  /* The root sends chunk s at step s, the others chunk s - 1: the one
   * they received at the step before. */
  int send = r == 0 ? step : step - 1;
  for (int c = 0; c < kids && send >= 0 && send < n_chunks; c++)
    dts_coll_add_xfer_at (out, DTS_XFER_SEND, absolute (plan, 2 * r + 1 + c),
                          send * plan->chunk_bytes, dts_coll_pipeline_chunk_bytes (plan, send),
                          plan->channels, FALSE, 0);
  if (r > 0 && step < n_chunks)
    dts_coll_add_xfer_at (out, DTS_XFER_RECV, absolute (plan, (r - 1) / 2),
                          step * plan->chunk_bytes, dts_coll_pipeline_chunk_bytes (plan, step),
                          plan->channels, FALSE, 0);
}

int
dts_coll_tree_op_step_slot (const DtsCollPlan *plan, int part, int step)
{
  int r = dts_coll_relative_rank (plan, part);
  return r == 0 ? step : step + depth_of (r) - 1;
}

gboolean
dts_coll_tree_op_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data)
{
  for (int r = 1; r < plan->n_ranks; r++)
    if (!fn (absolute (plan, (r - 1) / 2), absolute (plan, r),
             "a rank passes chunks to its children in the binary tree", data))
      return FALSE;
  return TRUE;
}

double
dts_coll_tree_op_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  int n = plan->n_ranks, n_chunks = plan->n_levels;
  if (n < 2)
    return 0;
  int depth = depth_of (n - 1);
  /* fan[j]: the most children of a rank of depth j; its link carries that
   * many chunk transfers at once */
  g_autofree int *fan = g_new0 (int, depth + 1);
  for (int r = 0; r < n; r++)
    fan[depth_of (r)] = MAX (fan[depth_of (r)], n_children (plan, r));
  double link_Bps = share_Bps * (n > 2 ? 2 : 1);
  double t = 0;
  for (int slot = 0; slot < n_chunks + depth - 1; slot++) {
    double slot_s = 0;
    for (int j = 0; j < depth; j++) {
      int c = slot - j; /* the chunk depth j sends */
      if (fan[j] > 0 && c >= 0 && c < n_chunks)
        slot_s = MAX (slot_s, plan->channels * dts_coll_pipeline_chunk_bytes (plan, c) * fan[j]
                                  / link_Bps);
    }
    t += latency_s + slot_s;
  }
  return t;
}
