/* bruck.c - Bruck's all-to-all (J. Bruck et al., "Efficient algorithms for
 * all-to-all communications in multiport message-passing systems", IEEE
 * TPDS 1997; MPICH's MPIR_Alltoall_intra_brucks, Open MPI's "bruck"): the
 * all-to-all for small blocks, in ceil(log2 N) steps instead of N - 1.
 *
 * Model: each rank works in one buffer of N blocks per channel (S/(N C)
 * bytes each). Block i of rank p's working buffer starts as block p + i
 * (mod N) of its send buffer, the block that must travel i ranks on (the
 * local rotation, a copy on the GPU). At step k = 0 .. K-1, K =
 * ceil(log2 N), rank p sends every block i of its working buffer with bit k
 * of i set to rank p + 2^k and receives those blocks, into the same places,
 * from rank p - 2^k (mod N): a block moves 2^k on for each bit of its
 * distance, so after K steps block i of rank q's working buffer holds what
 * rank q - i sent to q (the final inverse rotation into the receive buffer
 * is a copy on the GPU). The blocks with bit k set form runs of 2^k
 * consecutive blocks; each run is one transfer (MPI packs them into one
 * message), every run of a step to the same peer with the step's tag. All
 * ranks move the same blocks at a step, so each step is a lock-step phase
 * of its own; a run shorter than the others (cut at block N - 1) sets the
 * step's chunk rounds, the longer ones carrying the rest in their last.
 * Its offsets are in the working buffer (DtsCollPlan.a2a_working), not in
 * a send and a receive buffer as direct's and pairwise's are.
 *
 * Every rank sends about S/2 per step against pairwise's S/N: Bruck trades
 * bytes for latencies, which pays for small blocks.
 *
 * Closed form on a contention-free platform where every route has latency
 * L and a rank's K routes share its link (route share B): sum over the
 * steps of (R_k L + b_k / B'), b_k = the blocks with bit k set among
 * 1..N-1 times S/N, R_k the shortest run's rounds, B' = B x K. */
#include "config.h"

#include "collective/collective-private.h"
#include "core/error.h"

/* The steps: ceil(log2 N). */
static int
n_levels (int n)
{
  int k = 0;
  while ((1 << k) < n)
    k++;
  return k;
}

/* Blocks of 1..N-1 with bit K set, and the length of the shortest run. */
static int
step_blocks (int n, int k, int *shortest)
{
  int count = 0, least = n;
  for (int lo = 1 << k; lo < n; lo += 2 << k) {
    int len = MIN (lo + (1 << k), n) - lo;
    count += len;
    least = MIN (least, len);
  }
  *shortest = least;
  return count;
}

DtsCollPlan *
dts_coll_bruck_plan_new (const DtsCollParams *params, GError **error)
{
  const char *what = "Bruck all-to-all";
  if (!dts_coll_check_params (params, what, TRUE, error))
    return NULL;
  int n = params->n_ranks, k = n_levels (n);
  if (k > DTS_COLL_MAX_PHASES) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "%s: at most 2^%d ranks, got %d", what,
                 DTS_COLL_MAX_PHASES, n);
    return NULL;
  }
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_alloc ("bruck", params);
  plan->n_levels = k;
  plan->n_steps = k;
  plan->n_reduce_steps = 0;
  plan->seg_bytes = params->bytes / ((double) n * params->channels);
  /* For the count of transfers: a block's rounds, and at most N/2 runs a
   * step (step 0: every odd block alone; later steps have fewer, longer
   * runs). */
  plan->n_rounds = dts_coll_rounds (plan->seg_bytes, plan->chunk_bytes, what, error);
  if (plan->n_rounds == 0)
    return NULL;
  plan->n_parts = n;
  plan->sends_per_step = MAX (n / 2, 1);
  plan->n_tags = MAX (k, 1);
  plan->n_phases = k;
  for (int j = 0; j < k; j++)
    plan->phases[j] = (DtsCollPhase){ j, 1, TRUE, "all-to-all" };
  plan->op = params->op;
  plan->a2a_working = TRUE;
  plan->peer_key = dts_coll_key_add (dts_coll_key_add (0, 'b'), n);
  return g_steal_pointer (&plan);
}

void
dts_coll_bruck_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  int n = plan->n_ranks, d = 1 << step;
  int shortest;
  step_blocks (n, step, &shortest);
  double seg = plan->seg_bytes;
  out->phase = step;
  out->n_rounds = dts_coll_rounds (shortest * seg, plan->chunk_bytes, "bruck", NULL);
  out->chunk_bytes = plan->chunk_bytes;
  int to = (part + d) % n, from = ((part - d) % n + n) % n;
  for (int pass = 0; pass < 2; pass++)
    for (int lo = d; lo < n; lo += 2 * d) {
      int len = MIN (lo + d, n) - lo;
      dts_coll_add_xfer_at (out, pass == 0 ? DTS_XFER_SEND : DTS_XFER_RECV,
                            pass == 0 ? to : from, lo * seg, len * seg, plan->channels, FALSE,
                            step);
    }
}

gboolean
dts_coll_bruck_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data)
{
  int n = plan->n_ranks;
  for (int p = 0; p < n; p++)
    for (int k = 0; k < plan->n_levels; k++)
      if (!fn (p, (p + (1 << k)) % n, "a rank sends the blocks of one bit of their distance",
               data))
        return FALSE;
  return TRUE;
}

double
dts_coll_bruck_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  int n = plan->n_ranks, k = plan->n_levels;
  if (n < 2 || !(share_Bps > 0))
    return 0;
  double B = share_Bps * k, t = 0;
  for (int j = 0; j < k; j++) {
    int shortest, blocks = step_blocks (n, j, &shortest);
    t += dts_coll_rounds (shortest * plan->seg_bytes, plan->chunk_bytes, "bruck", NULL)
             * latency_s
         + blocks * plan->seg_bytes * plan->channels / B;
  }
  return t;
}
