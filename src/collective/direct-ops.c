/* direct-ops.c - one-shot all-gather, reduce-scatter and all-to-all as
 * plans: one step in which every rank sends to every other rank at once.
 *
 * Model: each channel's slice of the buffer (S/C bytes) holds N blocks of
 * S/(N C), block b at offset b S/(N C). In the one step, rank p
 *   all-gather: sends its block p to every other rank and receives block q
 *     from every rank q, a copy;
 *   reduce-scatter: sends block q to rank q and adds the N - 1 blocks p it
 *     receives to its own;
 *   all-to-all: sends block q of its send buffer to rank q and receives
 *     from rank q into block q of its receive buffer (for all-to-all a
 *     send's offset is in the sender's send buffer, a receive's in the
 *     receiver's receive buffer).
 * Peers are visited in the order p+1, p+2, ... as in the direct
 * all-reduce (direct.c), all on tag 0: the N - 1 receives of a step are
 * all the same size and waited for together, so which message meets which
 * receive does not change the time.
 *
 * Closed form on a contention-free platform where a rank's N - 1
 * concurrent flows share its link (route share B, the link's bandwidth
 * over the N - 1 routes through it) and every route has latency L:
 * R L + S/(N B) with R chunk rounds: (N - 1) S/N bytes leave each rank. */
#include "config.h"

#include "collective/collective-private.h"
#include "core/error.h"

DtsCollPlan *
dts_coll_direct_op_plan_new (const DtsCollParams *params, GError **error)
{
  g_autofree char *what = g_strdup_printf ("direct %s", dts_coll_op_to_string (params->op));
  if (!dts_coll_check_params (params, what, TRUE, error))
    return NULL;
  int n = params->n_ranks;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_alloc ("direct", params);
  plan->n_steps = n > 1 ? 1 : 0;
  plan->n_reduce_steps = params->op == DTS_COLL_OP_REDUCE_SCATTER ? plan->n_steps : 0;
  plan->seg_bytes = params->bytes / ((double) n * params->channels);
  plan->n_rounds = dts_coll_rounds (plan->seg_bytes, plan->chunk_bytes, what, error);
  if (plan->n_rounds == 0)
    return NULL;
  plan->n_parts = n;
  plan->sends_per_step = n - 1;
  plan->n_phases = 1;
  plan->phases[0] = (DtsCollPhase){ 0, plan->n_steps, TRUE,
                                    dts_coll_op_to_string (params->op) };
  /* The op is in the plan only once dts_coll_op_plan_new returns. */
  plan->op = params->op;
  plan->peer_key = dts_coll_key_add (dts_coll_key_add (0, 'd'), n);
  return g_steal_pointer (&plan);
}

int
dts_coll_direct_op_n_steps (const DtsCollPlan *plan, int part)
{
  return plan->n_steps;
}

void
dts_coll_direct_op_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  int n = plan->n_ranks;
  double seg = plan->seg_bytes;
  gboolean gather = plan->op == DTS_COLL_OP_ALLGATHER;
  gboolean reduce = plan->op == DTS_COLL_OP_REDUCE_SCATTER;
  out->phase = 0;
  out->n_rounds = plan->n_rounds;
  out->chunk_bytes = plan->chunk_bytes;
  for (int j = 1; j < n; j++) {
    int to = (part + j) % n;
    dts_coll_add_xfer_at (out, DTS_XFER_SEND, to, (gather ? part : to) * seg, seg,
                          plan->channels, FALSE, 0);
  }
  for (int j = 1; j < n; j++) {
    int from = (part - j + n) % n;
    dts_coll_add_xfer_at (out, DTS_XFER_RECV, from, (reduce ? part : from) * seg, seg,
                          plan->channels, reduce, 0);
  }
}

double
dts_coll_direct_op_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  int n = plan->n_ranks;
  if (n < 2)
    return 0;
  return plan->n_rounds * latency_s + plan->bytes / n / share_Bps;
}
