/* rhd.c - recursive halving-doubling (Rabenseifner) all-reduce as a plan.
 *
 * Model (R. Rabenseifner, "Optimization of collective reduction operations",
 * ICCS 2004; MPICH's MPIR_Allreduce_intra_reduce_scatter_allgather): for
 * N = p = 2^k the buffer's slice of each channel (S/C bytes) is cut into p
 * segments. Reduce-scatter by recursive halving: at slot j (j = 0..k-1) a
 * rank holds a window of p/2^j segments, the same window as the rank that
 * differs from it in bit j; the rank whose bit j is 0 keeps the lower half
 * and sends the upper one, its partner the reverse, and each reduces the
 * half it keeps. After k slots rank v holds segment v's complete sum (its
 * window is the one segment whose index has v's bits, low bit first
 * deciding the upper or lower half). All-gather by recursive doubling
 * undoes this: at slot k + i (i = 0..k-1, bit j = k-1-i) a rank sends its
 * window to the partner across bit j and receives the partner's, which is
 * the other half of their common window. Distances double in the
 * reduce-scatter (1, 2, 4, ...: the largest halves stay between
 * neighbours, inside a node in dtsim's node-contiguous rank order) and
 * halve in the all-gather. Every rank sends 2(p-1)/p S bytes, like the
 * ring, in 2 log2 p steps instead of 2(N-1). For other N the fold of
 * fold.c adds a slot before (the extra ranks' whole buffers) and one after.
 *
 * Closed form on a contention-free platform where every GPU has its own
 * link of bandwidth B and every route latency L (the flat test platforms),
 * at the step granularity: slot j of the reduce-scatter moves
 * S/(C 2^(j+1)) bytes per channel in R_j = ceil(S/(C 2^(j+1) chunk))
 * rounds, the all-gather the same in reverse, so
 *   T = 2 sum_j (R_j L + S/(2^(j+1) B)) + 2f (R L + S/B)
 *     = 2(p-1)/p S/B + 2 L sum_j R_j + 2f (R L + S/B)
 * with f = 1 and R = ceil(S/(C chunk)) when N is not a power of two;
 * unchunked, 2(p-1)/p S/B + 2 log2 p L (+ 2 (S/B + L) with a fold).
 * dtsim allreduce reads B from the routes as the share of a GPU's link over
 * the plan's routes that cross it: a rank's k partners (and its fold
 * partner) cross its link one slot at a time, so B = share x (k + f). */
#include "config.h"

#include "collective/collective-private.h"

static const char *const rhd_names[] = { "reduce-scatter", "all-gather" };

DtsCollPlan *
dts_coll_rhd_plan_new (const DtsCollParams *params, GError **error)
{
  return dts_coll_fold_plan_new (params, "rhd", "recursive halving-doubling all-reduce", 2,
                                 rhd_names, error);
}

int
dts_coll_rhd_n_steps (const DtsCollPlan *plan, int part)
{
  return dts_coll_fold_n_steps (plan, part, 2 * plan->n_levels);
}

int
dts_coll_rhd_step_slot (const DtsCollPlan *plan, int part, int step)
{
  return dts_coll_fold_slot (plan, part, step, 2 * plan->n_levels);
}

/* The window of new rank V after the first T halving slots: first
 * segment and number of segments. */
static void
window (int k, int v, int t, int *lo, int *cnt)
{
  *lo = 0;
  *cnt = 1 << k;
  for (int j = 0; j < t; j++) {
    *cnt /= 2;
    if (v & (1 << j))
      *lo += *cnt;
  }
}

void
dts_coll_rhd_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  int k = plan->n_levels;
  int slot = dts_coll_fold_slot (plan, part, step, 2 * k);
  if (dts_coll_fold_step_ops (plan, part, slot, 2 * k, out))
    return;
  int v;
  dts_coll_fold_role (plan, part, &v);
  int s = slot - (plan->n_ranks > (1 << k) ? 1 : 0);
  double seg = plan->bytes / plan->channels / (1 << k);
  out->phase = dts_coll_fold_phase (plan, slot, 2 * k);
  out->chunk_bytes = plan->chunk_bytes;
  int j = s < k ? s : 2 * k - 1 - s;
  int w = v ^ (1 << j);
  int peer = dts_coll_fold_rank (plan, w);
  int lo_v, cnt, lo_w, cnt_w;
  if (s < k) {
    /* Halving: keep the half of the common window on the side of bit j. */
    window (k, v, j + 1, &lo_v, &cnt);
    window (k, w, j + 1, &lo_w, &cnt_w);
    out->n_rounds = dts_coll_fold_step_rounds (plan, cnt * seg);
    dts_coll_add_xfer_at (out, DTS_XFER_SEND, peer, lo_w * seg, cnt * seg, plan->channels,
                          FALSE, slot);
    dts_coll_add_xfer_at (out, DTS_XFER_RECV, peer, lo_v * seg, cnt * seg, plan->channels,
                          TRUE, slot);
  } else {
    /* Doubling: send the window, receive the partner's. */
    window (k, v, j + 1, &lo_v, &cnt);
    window (k, w, j + 1, &lo_w, &cnt_w);
    out->n_rounds = dts_coll_fold_step_rounds (plan, cnt * seg);
    dts_coll_add_xfer_at (out, DTS_XFER_SEND, peer, lo_v * seg, cnt * seg, plan->channels,
                          FALSE, slot);
    dts_coll_add_xfer_at (out, DTS_XFER_RECV, peer, lo_w * seg, cnt * seg, plan->channels,
                          FALSE, slot);
  }
}

double
dts_coll_rhd_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  if (plan->n_ranks < 2 || !(share_Bps > 0))
    return 0;
  int k = plan->n_levels, p = 1 << k;
  int f = plan->n_ranks > p ? 1 : 0;
  double B = share_Bps * dts_coll_fold_routes_per_rank (plan);
  double slice = plan->bytes / plan->channels;
  double rounds = 0;
  for (int j = 0; j < k; j++)
    rounds += dts_coll_fold_step_rounds (plan, slice / (2 << j));
  double t = 2.0 * (p - 1) / p * plan->bytes / B + 2 * latency_s * rounds;
  if (f)
    t += 2 * (dts_coll_fold_step_rounds (plan, slice) * latency_s + plan->bytes / B);
  return t;
}
