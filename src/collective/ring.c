/* ring.c - NCCL-style ring all-reduce as a plan.
 *
 * Model (see collective.h for the closed forms): N positions in a ring,
 * reduce-scatter then all-gather, N-1 steps each. At reduce-scatter step s,
 * position p sends segment (p - s) mod N to p + 1 and reduces the segment
 * (p - s - 1) mod N that p - 1 sends it; after N-1 steps position p holds the
 * complete sum of segment (p + 1) mod N. At all-gather step s, p sends
 * segment (p + 1 - s) mod N, which it completed at the previous step, and
 * receives segment (p - s) mod N, overwriting its copy. Every channel runs
 * the same ring on its own slice of the buffer; the ring order is given by
 * the caller (NCCL orders it so that GPUs of a node are adjacent, which is
 * dtsim's rank order). */
#include "config.h"

#include <math.h>

#include "collective/collective-private.h"
#include "core/error.h"

static int
mod (int a, int n)
{
  int r = a % n;
  return r < 0 ? r + n : r;
}


DtsCollPlan *
dts_coll_ring_plan_new (const DtsCollParams *params, GError **error)
{
  if (!dts_coll_check_params (params, "ring all-reduce", TRUE, error))
    return NULL;
  int n = params->n_ranks;
  g_autoptr (DtsCollPlan) plan = g_new0 (DtsCollPlan, 1);
  plan->algorithm = g_strdup ("ring");
  plan->n_ranks = n;
  plan->ring = g_new (int, n);
  plan->position = g_new (int, n);
  for (int r = 0; r < n; r++)
    plan->position[r] = -1;
  for (int p = 0; p < n; p++) {
    int r = params->ring ? params->ring[p] : p;
    if (r < 0 || r >= n || plan->position[r] != -1) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "ring all-reduce: ring order is not a permutation of 0..%d "
                   "(position %d holds %d)",
                   n - 1, p, r);
      return NULL;
    }
    plan->ring[p] = r;
    plan->position[r] = p;
  }
  plan->bytes = params->bytes;
  plan->channels = params->channels;
  plan->chunk_bytes = params->chunk_bytes;
  plan->n_steps = 2 * (n - 1);
  plan->n_reduce_steps = n - 1;
  plan->seg_bytes = params->bytes / ((double) n * params->channels);
  /* A tiny tolerance keeps S = k x chunk from growing a zero-byte round. */
  double rounds = ceil (plan->seg_bytes / plan->chunk_bytes * (1 - 1e-12));
  if (rounds > G_MAXINT / 4) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "ring all-reduce: %.0f rounds per step; use a larger chunk size", rounds);
    return NULL;
  }
  plan->n_rounds = rounds < 1 ? 1 : (int) rounds;
  plan->n_parts = n;
  plan->sends_per_step = 1;
  plan->n_phases = 2;
  plan->phases[0] = (DtsCollPhase){ 0, n - 1, TRUE, "reduce-scatter" };
  plan->phases[1] = (DtsCollPhase){ n - 1, n - 1, TRUE, "all-gather" };
  plan->peer_key = dts_coll_ring_peer_key (plan, 'r');
  return g_steal_pointer (&plan);
}

int
dts_coll_ring_n_steps (const DtsCollPlan *plan, int part)
{
  return plan->n_steps;
}

/* Step STEP of member PART: one send to the successor and one receive from
 * the predecessor of its segment per channel, cut into the plan's rounds. */
void
dts_coll_ring_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  DtsCollStep st;
  dts_coll_plan_step (plan, plan->position[part], step, &st);
  out->phase = step < plan->n_reduce_steps ? 0 : 1;
  out->n_rounds = plan->n_rounds;
  out->chunk_bytes = plan->chunk_bytes;
  dts_coll_add_xfer (out, DTS_XFER_SEND, st.send_to, plan->seg_bytes, plan->channels, FALSE, 0);
  dts_coll_add_xfer (out, DTS_XFER_RECV, st.recv_from, plan->seg_bytes, plan->channels,
                     st.reduce, 0);
}

gboolean
dts_coll_ring_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data)
{
  int n = plan->n_ranks;
  for (int p = 0; p < n && n > 1; p++)
    if (!fn (plan->ring[p], plan->ring[(p + 1) % n], "a rank sends to its successor in the ring",
             data))
      return FALSE;
  return TRUE;
}

void
dts_coll_plan_step (const DtsCollPlan *plan, int pos, int step, DtsCollStep *out)
{
  g_return_if_fail (pos >= 0 && pos < plan->n_ranks && step >= 0 && step < plan->n_steps);
  int n = plan->n_ranks;
  out->send_to = plan->ring[mod (pos + 1, n)];
  out->recv_from = plan->ring[mod (pos - 1, n)];
  if (step < plan->n_reduce_steps) {
    out->send_seg = mod (pos - step, n);
    out->recv_seg = mod (pos - step - 1, n);
    out->reduce = TRUE;
  } else {
    int s = step - plan->n_reduce_steps;
    out->send_seg = mod (pos + 1 - s, n);
    out->recv_seg = mod (pos - s, n);
    out->reduce = FALSE;
  }
}

double
dts_coll_ring_closed_form_s (int n, double bytes, double share_Bps, double latency_s)
{
  if (n < 2)
    return 0;
  return 2.0 * (n - 1) / n * bytes / share_Bps + 2.0 * (n - 1) * latency_s;
}
