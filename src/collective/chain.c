/* chain.c - ring-pipelined broadcast and reduce from a root, as NCCL runs
 * them (its ring broadcast and reduce: one pass along the ring, from the
 * root for broadcast, ending at the root for reduce).
 *
 * Model: the N ranks form a chain along the ring order (the caller's,
 * rank order by default): broadcast starts at the root and follows the
 * ring, reduce starts at the root's successor and ends at the root. Each
 * channel's slice of the buffer (S/C bytes) is cut into K chunks of
 * chunk_bytes (the last one the remainder), and the chain pipelines them:
 * at step s the chain's first rank sends chunk s; a middle rank receives
 * chunk s from its predecessor (broadcast: a copy; reduce: added to its
 * own) while it sends chunk s - 1, which it completed at the step before,
 * to its successor; the last rank only receives. The first and last
 * ranks take K steps, the middle ones K + 1; rank q of the chain (q >= 1)
 * runs its step s in slot s + q - 1, the first rank in slot s: N + K - 2
 * slots, all transfers of a slot at once.
 *
 * Closed form on a contention-free chain (each hop's route its own links,
 * bottleneck share B, hop latency L): the sum over the slots of
 * (L + C b / B), b the largest chunk moving in the slot; with equal chunks
 * (S a multiple of C x chunk) (N + K - 2) (L + S/(K B)). With hops of
 * different speeds it is an upper bound (the fill runs at each hop's own
 * pace, only the steady state at the slowest's). Small chunks
 * shorten the pipeline's fill (N - 2 slots) and pay K latencies; NCCL's
 * broadcast moves 512 KiB (one of the 8 steps of its 4 MiB buffer) per
 * chunk, --chunk-size 512KiB here. */
#include "config.h"

#include <math.h>

#include "collective/collective-private.h"
#include "core/error.h"

DtsCollPlan *
dts_coll_chain_plan_new (const DtsCollParams *params, GError **error)
{
  gboolean bcast = params->op == DTS_COLL_OP_BROADCAST;
  const char *what = bcast ? "ring broadcast" : "ring reduce";
  g_return_val_if_fail (bcast || params->op == DTS_COLL_OP_REDUCE, NULL);
  g_autoptr (DtsCollPlan) plan = dts_coll_ring_order_plan_new (params, what, error);
  if (plan == NULL)
    return NULL;
  int n = params->n_ranks;
  /* The chain: position q of plan->ring holds chain rank q. */
  g_autofree int *ring = g_memdup2 (plan->ring, sizeof (int) * n);
  int start = plan->position[params->root] + (bcast ? 0 : 1);
  for (int q = 0; q < n; q++) {
    plan->ring[q] = ring[(start + q) % n];
    plan->position[plan->ring[q]] = q;
  }
  int n_chunks = dts_coll_rounds (params->bytes / params->channels, plan->chunk_bytes, what,
                                  error);
  if (n_chunks == 0)
    return NULL;
  plan->n_levels = n_chunks;
  plan->n_rounds = 1;
  plan->seg_bytes = dts_coll_pipeline_chunk_bytes (plan, 0);
  plan->n_steps = n < 2 ? 0 : n_chunks + (n > 2);
  plan->n_reduce_steps = bcast ? 0 : plan->n_steps;
  plan->n_parts = n;
  plan->sends_per_step = 1;
  plan->n_phases = 1;
  plan->phases[0] = (DtsCollPhase){ 0, plan->n_steps, FALSE, bcast ? "broadcast" : "reduce" };
  plan->peer_key = dts_coll_ring_peer_key (plan, 'c');
  return g_steal_pointer (&plan);
}

int
dts_coll_chain_n_steps (const DtsCollPlan *plan, int part)
{
  int n = plan->n_ranks, q = plan->position[part];
  if (n < 2)
    return 0;
  return q == 0 || q == n - 1 ? plan->n_levels : plan->n_levels + 1;
}

void
dts_coll_chain_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  int n = plan->n_ranks, q = plan->position[part], n_chunks = plan->n_levels;
  gboolean reduce = plan->n_reduce_steps > 0;
  out->phase = 0;
  out->n_rounds = 1;
  /* The first rank sends chunk s at step s, the others chunk s - 1. */
  int send = q == 0 ? step : step - 1;
  if (q < n - 1 && send >= 0 && send < n_chunks)
    dts_coll_add_xfer_at (out, DTS_XFER_SEND, plan->ring[q + 1], send * plan->chunk_bytes,
                          dts_coll_pipeline_chunk_bytes (plan, send), plan->channels, FALSE, 0);
  if (q > 0 && step < n_chunks)
    dts_coll_add_xfer_at (out, DTS_XFER_RECV, plan->ring[q - 1], step * plan->chunk_bytes,
                          dts_coll_pipeline_chunk_bytes (plan, step), plan->channels, reduce, 0);
}

int
dts_coll_chain_step_slot (const DtsCollPlan *plan, int part, int step)
{
  int q = plan->position[part];
  return q == 0 ? step : step + q - 1;
}

gboolean
dts_coll_chain_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data)
{
  for (int q = 0; q + 1 < plan->n_ranks; q++)
    if (!fn (plan->ring[q], plan->ring[q + 1], "a rank passes chunks to its successor in the chain",
             data))
      return FALSE;
  return TRUE;
}

double
dts_coll_chain_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  int n = plan->n_ranks, n_chunks = plan->n_levels;
  if (n < 2)
    return 0;
  double t = 0;
  for (int slot = 0; slot < n + n_chunks - 2; slot++) {
    /* Chunks slot - (N-2) .. slot move in this slot. */
    int lo = MAX (0, slot - (n - 2));
    double b = dts_coll_pipeline_chunk_bytes (plan, lo < n_chunks - 1 ? 0 : n_chunks - 1);
    t += latency_s + plan->channels * b / share_Bps;
  }
  return t;
}
