/* direct.c - the direct (one-shot) all-reduce as a plan.
 *
 * Model: every member p owns shard p of the buffer, S/N bytes (S/(N C) per
 * channel). Step 0 (reduce-scatter): p sends shard q to every other member
 * q and reduces the N - 1 copies of shard p it receives into its own; step
 * 1 (all-gather): p sends its reduced shard to every other member and
 * receives theirs. All N - 1 transfers of a step are posted at once, so a
 * member's sends share its links: on a full mesh of dedicated links it is
 * latency-optimal (2 steps), on a shared NIC it moves the same 2 (N-1)/N x S
 * bytes per rank as a ring, in N - 1 concurrent flows. It is what NCCL and
 * MPI libraries use for small buffers on few, fully connected GPUs (one
 * NVSwitch node). Member p visits its peers in the order p+1, p+2, ... so
 * that no member is every member's first destination.
 *
 * Closed form on a contention-free platform where each member's N - 1
 * concurrent flows share a link of bandwidth B (the flat star of the tests)
 * and every route has latency L: 2 (R L + (N-1) S / (N B)) with R chunk
 * rounds per step, the same bandwidth term as the ring at 2 steps instead of
 * 2(N-1).
 *
 * The two steps use different tags: a member that has finished step 0 may
 * send its step-1 shard to one that is still receiving step 0. */
#include "config.h"

#include <math.h>

#include "collective/collective-private.h"
#include "core/error.h"


DtsCollPlan *
dts_coll_direct_plan_new (const DtsCollParams *params, GError **error)
{
  if (!dts_coll_check_params (params, "direct all-reduce", TRUE, error))
    return NULL;
  int n = params->n_ranks;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_alloc ("direct", params);
  plan->n_steps = n > 1 ? 2 : 0;
  plan->n_reduce_steps = n > 1 ? 1 : 0;
  plan->seg_bytes = params->bytes / ((double) n * params->channels);
  double rounds = ceil (plan->seg_bytes / plan->chunk_bytes * (1 - 1e-12));
  if (rounds > G_MAXINT / 4) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "direct all-reduce: %.0f rounds per step; use a larger chunk size", rounds);
    return NULL;
  }
  plan->n_rounds = rounds < 1 ? 1 : (int) rounds;
  plan->n_parts = n;
  plan->sends_per_step = n - 1;
  plan->n_phases = 2;
  plan->phases[0] = (DtsCollPhase){ 0, plan->n_reduce_steps, TRUE, "reduce-scatter" };
  plan->phases[1] = (DtsCollPhase){ plan->n_reduce_steps, plan->n_reduce_steps, TRUE,
                                    "all-gather" };
  plan->peer_key = dts_coll_key_add (dts_coll_key_add (0, 'd'), n);
  return g_steal_pointer (&plan);
}

int
dts_coll_direct_n_steps (const DtsCollPlan *plan, int part)
{
  return plan->n_steps;
}

void
dts_coll_direct_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  int n = plan->n_ranks;
  out->phase = step;
  out->n_rounds = plan->n_rounds;
  out->chunk_bytes = plan->chunk_bytes;
  for (int j = 1; j < n; j++)
    dts_coll_add_xfer (out, DTS_XFER_SEND, (part + j) % n, plan->seg_bytes, plan->channels,
                       FALSE, step);
  for (int j = 1; j < n; j++)
    dts_coll_add_xfer (out, DTS_XFER_RECV, (part - j + n) % n, plan->seg_bytes, plan->channels,
                       step == 0, step);
}

gboolean
dts_coll_direct_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data)
{
  int n = plan->n_ranks;
  for (int p = 0; p < n; p++)
    for (int j = 1; j < n; j++)
      if (!fn (p, (p + j) % n, "a rank sends its shards to every other rank", data))
        return FALSE;
  return TRUE;
}

double
dts_coll_direct_closed_form_s (int n, double bytes, double share_Bps, double latency_s)
{
  if (n < 2)
    return 0;
  return 2.0 * (bytes / n / share_Bps + latency_s);
}
