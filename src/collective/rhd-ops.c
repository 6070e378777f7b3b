/* rhd-ops.c - recursive-halving reduce-scatter and recursive-doubling
 * all-gather as plans, for N a power of two: the two halves of
 * Rabenseifner's all-reduce (rhd.c), as MPI libraries run them alone
 * (MPICH's MPIR_Reduce_scatter_block_intra_recursive_halving and
 * MPIR_Allgather_intra_recursive_doubling).
 *
 * Model: N = 2^k ranks, each channel's slice (S/C bytes) in N blocks of
 * S/(N C), block b at offset b S/(N C).
 *   reduce-scatter, step j = 0..k-1, distance d = N / 2^(j+1): rank p holds
 *     partial sums of a window of 2d blocks (all N at first), the same
 *     window as its partner p XOR d; it keeps the half that contains block
 *     p, sends the other half to the partner and adds the partner's half
 *     of its own. After k steps its window is block p, with every sum.
 *   all-gather, step j, distance d = 2^j: rank p holds the d blocks of its
 *     aligned window (p rounded down to a multiple of d, its own block at
 *     first), sends them to p XOR d and receives the partner's d blocks,
 *     which complete the aligned window of 2d.
 * Every rank moves (N-1)/N S bytes, as the ring halves (ring-halves.c), in
 * log2 N steps instead of N - 1. Each step is a phase of its own with a
 * tag of its own (partners differ from step to step). Other N are refused:
 * the fold that rhd.c uses for all-reduce has no cheap counterpart here
 * (the ring and direct rows do any N).
 *
 * Closed form on a contention-free platform where a rank's k routes share
 * its link (route share B/k, B = share x k): sum_j (R_j L + b_j C / B) =
 * L sum_j R_j + (N-1)/N S/B, with b_j the bytes per channel of step j and
 * R_j = ceil(b_j / chunk) its rounds. */
#include "config.h"

#include "collective/collective-private.h"
#include "core/error.h"

/* Blocks per channel moved at step STEP. */
static int
step_blocks (const DtsCollPlan *plan, int step)
{
  int n = plan->n_ranks;
  return plan->n_reduce_steps > 0 ? n >> (step + 1) : 1 << step;
}

DtsCollPlan *
dts_coll_rhd_op_plan_new (const DtsCollParams *params, GError **error)
{
  gboolean gather = params->op == DTS_COLL_OP_ALLGATHER;
  const char *what = gather ? "recursive-doubling all-gather" : "recursive-halving reduce-scatter";
  g_return_val_if_fail (gather || params->op == DTS_COLL_OP_REDUCE_SCATTER, NULL);
  if (!dts_coll_check_params (params, what, TRUE, error))
    return NULL;
  int n = params->n_ranks, k = 0;
  while ((1 << k) < n)
    k++;
  /* int ranks: k <= 30, within the phases and tags a plan may have. */
  if ((1 << k) != n) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "%s: %d ranks is not a power of two; ring and direct do any number", what, n);
    return NULL;
  }
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_alloc ("rhd", params);
  plan->n_levels = k;
  plan->n_steps = k;
  plan->n_reduce_steps = gather ? 0 : k;
  plan->seg_bytes = params->bytes / ((double) n * params->channels);
  /* The largest step's rounds, for the count of transfers. */
  plan->n_rounds = dts_coll_rounds (plan->seg_bytes * MAX (n / 2, 1), plan->chunk_bytes, what,
                                    error);
  if (plan->n_rounds == 0)
    return NULL;
  plan->n_parts = n;
  plan->sends_per_step = 1;
  plan->n_tags = MAX (k, 1);
  plan->n_phases = k;
  for (int j = 0; j < k; j++)
    plan->phases[j] = (DtsCollPhase){ j, 1, TRUE, gather ? "all-gather" : "reduce-scatter" };
  plan->peer_key = dts_coll_key_add (dts_coll_key_add (0, 'h'), n);
  return g_steal_pointer (&plan);
}

int
dts_coll_rhd_op_n_steps (const DtsCollPlan *plan, int part)
{
  return plan->n_steps;
}

void
dts_coll_rhd_op_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  gboolean gather = plan->n_reduce_steps == 0;
  int blocks = step_blocks (plan, step), d = blocks, peer = part ^ d;
  double seg = plan->seg_bytes, bytes = blocks * seg;
  int send_first, recv_first;
  if (gather) {
    send_first = part & ~(d - 1);
    recv_first = peer & ~(d - 1);
  } else {
    /* The common window of 2d blocks; keep the half with block PART. */
    int lo = part & ~(2 * d - 1);
    recv_first = part & d ? lo + d : lo;
    send_first = part & d ? lo : lo + d;
  }
  out->phase = step;
  out->n_rounds = dts_coll_rounds (bytes, plan->chunk_bytes, "rhd", NULL);
  out->chunk_bytes = plan->chunk_bytes;
  dts_coll_add_xfer_at (out, DTS_XFER_SEND, peer, send_first * seg, bytes, plan->channels, FALSE,
                        step);
  dts_coll_add_xfer_at (out, DTS_XFER_RECV, peer, recv_first * seg, bytes, plan->channels, !gather,
                        step);
}

gboolean
dts_coll_rhd_op_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data)
{
  for (int p = 0; p < plan->n_ranks; p++)
    for (int j = 0; j < plan->n_levels; j++)
      if (!fn (p, p ^ step_blocks (plan, j), "a rank exchanges half windows with its partners",
               data))
        return FALSE;
  return TRUE;
}

double
dts_coll_rhd_op_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  int n = plan->n_ranks, k = plan->n_levels;
  if (n < 2)
    return 0;
  double t = 0;
  for (int j = 0; j < k; j++) {
    double bytes = step_blocks (plan, j) * plan->seg_bytes;
    t += dts_coll_rounds (bytes, plan->chunk_bytes, "rhd", NULL) * latency_s
         + bytes * plan->channels / (share_Bps * k);
  }
  return t;
}
