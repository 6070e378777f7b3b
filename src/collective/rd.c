/* rd.c - recursive doubling all-reduce as a plan.
 *
 * Model (MPICH's MPIR_Allreduce_intra_recursive_doubling; Thakur et al.
 * 2005): for N = p = 2^k, at slot j (j = 0..k-1) every rank exchanges its
 * whole buffer with the rank whose index differs in bit j (distance 1, 2,
 * 4, ...: the largest distances, across nodes in dtsim's node-contiguous
 * rank order, come last) and reduces what it receives: after slot j it
 * holds the sum of the 2^(j+1) ranks that agree with it above bit j. For
 * other N the fold of fold.c adds a slot before and one after. Every rank
 * sends k S bytes (k + 2 around a fold): latency-optimal (log2 N steps),
 * bandwidth-poor (the ring sends 2(N-1)/N S), what MPI libraries use for
 * small messages.
 *
 * Closed form on a contention-free platform where every GPU has its own
 * link of bandwidth B and every route latency L (the flat test platforms),
 * at the step granularity: each slot moves S/C bytes per channel in
 * R = ceil(S/(C chunk)) rounds of one latency each, so
 *   T = (k + 2f) (R L + S/B),  f = 1 when N is not a power of two.
 * dtsim allreduce reads B from the routes as the share of a GPU's link over
 * the plan's routes that cross it: a rank's k partners (and its fold
 * partner) cross its link one slot at a time, so B = share x (k + f).
 * Nothing else is modelled: no protocol overhead, no memory traffic but the
 * reduction kernel's. */
#include "config.h"

#include "collective/collective-private.h"

static const char *const rd_names[] = { "exchange" };

DtsCollPlan *
dts_coll_rd_plan_new (const DtsCollParams *params, GError **error)
{
  return dts_coll_fold_plan_new (params, "rd", "recursive-doubling all-reduce", 1, rd_names,
                                 error);
}

int
dts_coll_rd_n_steps (const DtsCollPlan *plan, int part)
{
  return dts_coll_fold_n_steps (plan, part, plan->n_levels);
}

int
dts_coll_rd_step_slot (const DtsCollPlan *plan, int part, int step)
{
  return dts_coll_fold_slot (plan, part, step, plan->n_levels);
}

void
dts_coll_rd_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  int k = plan->n_levels;
  int slot = dts_coll_fold_slot (plan, part, step, k);
  if (dts_coll_fold_step_ops (plan, part, slot, k, out))
    return;
  int v;
  dts_coll_fold_role (plan, part, &v);
  int j = slot - (plan->n_ranks > (1 << k) ? 1 : 0);
  int peer = dts_coll_fold_rank (plan, v ^ (1 << j));
  double slice = plan->bytes / plan->channels;
  out->phase = dts_coll_fold_phase (plan, slot, k);
  out->n_rounds = dts_coll_fold_step_rounds (plan, slice);
  out->chunk_bytes = plan->chunk_bytes;
  dts_coll_add_xfer_at (out, DTS_XFER_SEND, peer, 0, slice, plan->channels, FALSE, slot);
  dts_coll_add_xfer_at (out, DTS_XFER_RECV, peer, 0, slice, plan->channels, TRUE, slot);
}

double
dts_coll_rd_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  if (plan->n_ranks < 2 || !(share_Bps > 0))
    return 0;
  int f = plan->n_ranks > (1 << plan->n_levels) ? 1 : 0;
  double B = share_Bps * dts_coll_fold_routes_per_rank (plan);
  double slice = plan->bytes / plan->channels;
  return (plan->n_levels + 2 * f)
         * (dts_coll_fold_step_rounds (plan, slice) * latency_s + plan->bytes / B);
}
