/* ring-halves.c - ring all-gather and ring reduce-scatter as plans: the two
 * halves of the ring all-reduce (ring.c), as NCCL runs them.
 *
 * Model: N positions in a ring (the caller's order, rank order by
 * default), every channel its own ring over its slice of the buffer (S/C
 * bytes), the slice cut into N blocks of S/(N C), block b at offset
 * b S/(N C) being rank b's (all-gather: its contribution; reduce-scatter:
 * the sum it ends with). With q = position and ring[] the order:
 *   all-gather, step s = 0..N-2: q sends block ring[q - s] to q + 1 and
 *     receives block ring[q - s - 1] from q - 1, replacing its copy: what
 *     it sends is its own block (s = 0) or the one it received at s - 1;
 *   reduce-scatter, step s: q sends its partial sum of block
 *     ring[q - s - 1] and adds the partial sum of block ring[q - s - 2]
 *     it receives from q - 1 to its own; after N - 1 steps the block it
 *     added last, ring[q - N] = ring[q], holds every rank's contribution.
 * (indices mod N). Each step moves its block in rounds of at most
 * chunk_bytes, as the ring all-reduce.
 *
 * Closed form on a contention-free ring of bottleneck share B and hop
 * latency L: (N-1) (R L + S/(N B)), R = ceil(S/(N C chunk)) rounds per
 * step: half the ring all-reduce's steps. nccl-tests' bus bandwidth of
 * both is S/t x (N-1)/N, the link's bandwidth when t is this form's
 * bandwidth term. */
#include "config.h"

#include "collective/collective-private.h"
#include "core/error.h"

static int
mod (int a, int n)
{
  int r = a % n;
  return r < 0 ? r + n : r;
}

DtsCollPlan *
dts_coll_ring_order_plan_new (const DtsCollParams *params, const char *what, GError **error)
{
  if (!dts_coll_check_params (params, what, TRUE, error))
    return NULL;
  int n = params->n_ranks;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_alloc ("ring", params);
  for (int r = 0; r < n; r++)
    plan->position[r] = -1;
  for (int p = 0; p < n; p++) {
    int r = params->ring ? params->ring[p] : p;
    if (r < 0 || r >= n || plan->position[r] != -1) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "%s: ring order is not a permutation of 0..%d (position %d holds %d)", what,
                   n - 1, p, r);
      return NULL;
    }
    plan->ring[p] = r;
    plan->position[r] = p;
  }
  return g_steal_pointer (&plan);
}

DtsCollPlan *
dts_coll_ring_half_plan_new (const DtsCollParams *params, GError **error)
{
  gboolean gather = params->op == DTS_COLL_OP_ALLGATHER;
  const char *what = gather ? "ring all-gather" : "ring reduce-scatter";
  g_return_val_if_fail (gather || params->op == DTS_COLL_OP_REDUCE_SCATTER, NULL);
  g_autoptr (DtsCollPlan) plan = dts_coll_ring_order_plan_new (params, what, error);
  if (plan == NULL)
    return NULL;
  int n = params->n_ranks;
  plan->n_steps = n - 1;
  plan->n_reduce_steps = gather ? 0 : n - 1;
  plan->seg_bytes = params->bytes / ((double) n * params->channels);
  plan->n_rounds = dts_coll_rounds (plan->seg_bytes, plan->chunk_bytes, what, error);
  if (plan->n_rounds == 0)
    return NULL;
  plan->n_parts = n;
  plan->sends_per_step = 1;
  plan->n_phases = 1;
  plan->phases[0] = (DtsCollPhase){ 0, n - 1, TRUE, gather ? "all-gather" : "reduce-scatter" };
  plan->peer_key = dts_coll_ring_peer_key (plan, 'r');
  return g_steal_pointer (&plan);
}

int
dts_coll_ring_half_n_steps (const DtsCollPlan *plan, int part)
{
  return plan->n_steps;
}

void
dts_coll_ring_half_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  int n = plan->n_ranks, q = plan->position[part];
  gboolean gather = plan->n_reduce_steps == 0;
  int send_block = plan->ring[mod (q - step - (gather ? 0 : 1), n)];
  int recv_block = plan->ring[mod (q - step - (gather ? 1 : 2), n)];
  out->phase = 0;
  out->n_rounds = plan->n_rounds;
  out->chunk_bytes = plan->chunk_bytes;
  dts_coll_add_xfer_at (out, DTS_XFER_SEND, plan->ring[mod (q + 1, n)],
                        send_block * plan->seg_bytes, plan->seg_bytes, plan->channels, FALSE, 0);
  dts_coll_add_xfer_at (out, DTS_XFER_RECV, plan->ring[mod (q - 1, n)],
                        recv_block * plan->seg_bytes, plan->seg_bytes, plan->channels, !gather,
                        0);
}

double
dts_coll_ring_half_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  int n = plan->n_ranks;
  if (n < 2)
    return 0;
  return (n - 1) * (plan->n_rounds * latency_s + plan->bytes / n / share_Bps);
}
