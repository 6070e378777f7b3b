/* pairwise.c - the pairwise-exchange all-to-all (MPI's for large blocks;
 * MPICH's MPIR_Alltoall_pairwise, Open MPI's "pairwise"): N - 1 steps, one
 * partner to send to and one to receive from at each.
 *
 * Model: each channel's slice of the send buffer (S/C bytes) holds N blocks
 * of S/(N C), block j at offset j S/(N C) going to rank j. At step k
 * (0 .. N-2), rank p sends block p+k+1 (mod N) of its send buffer to rank
 * p+k+1 and receives from rank p-k-1 (mod N) into block p-k-1 of its
 * receive buffer, a copy (offsets as in direct-ops.c: a send's in the
 * sender's send buffer, a receive's in the receiver's receive buffer). Its
 * own block stays where it is. Every rank sends once and receives once per
 * step, so a step's flows are a permutation: one flow per link at a time
 * where the direct all-to-all puts N - 1 on every rank's link at once,
 * traded for N - 1 latencies. The peers change every step, so the phase
 * is not lock-step: flow granularity runs the steps one by one. All
 * transfers use tag 0: a rank has one receive pending at a time.
 *
 * Closed form on a contention-free platform where every route has latency
 * L and the plan's routes (all N (N-1) pairs, those of direct) share a
 * rank's link N - 1 ways (route share B): (N-1) (R L + S/(N B')), B' = B (N-1)
 * the link's bandwidth, R chunk rounds per step. */
#include "config.h"

#include "collective/collective-private.h"
#include "core/error.h"

DtsCollPlan *
dts_coll_pairwise_plan_new (const DtsCollParams *params, GError **error)
{
  const char *what = "pairwise all-to-all";
  if (!dts_coll_check_params (params, what, TRUE, error))
    return NULL;
  int n = params->n_ranks;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_alloc ("pairwise", params);
  plan->n_steps = n - 1;
  plan->n_reduce_steps = 0;
  plan->seg_bytes = params->bytes / ((double) n * params->channels);
  plan->n_rounds = dts_coll_rounds (plan->seg_bytes, plan->chunk_bytes, what, error);
  if (plan->n_rounds == 0)
    return NULL;
  plan->n_parts = n;
  plan->sends_per_step = 1;
  plan->n_phases = 1;
  plan->phases[0] = (DtsCollPhase){ 0, plan->n_steps, FALSE, "all-to-all" };
  plan->op = params->op;
  plan->peer_key = dts_coll_key_add (dts_coll_key_add (0, 'w'), n);
  return g_steal_pointer (&plan);
}

void
dts_coll_pairwise_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  int n = plan->n_ranks;
  double seg = plan->seg_bytes;
  int to = (part + step + 1) % n, from = (part - step - 1 + n) % n;
  out->phase = 0;
  out->n_rounds = plan->n_rounds;
  out->chunk_bytes = plan->chunk_bytes;
  dts_coll_add_xfer_at (out, DTS_XFER_SEND, to, to * seg, seg, plan->channels, FALSE, 0);
  dts_coll_add_xfer_at (out, DTS_XFER_RECV, from, from * seg, seg, plan->channels, FALSE, 0);
}

double
dts_coll_pairwise_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  int n = plan->n_ranks;
  if (n < 2)
    return 0;
  return (n - 1) * (plan->n_rounds * latency_s + plan->bytes / n / (share_Bps * (n - 1)));
}
