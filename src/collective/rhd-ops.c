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
 * tag of its own (partners differ from step to step).
 *
 * Other N: the fold of fold.c (Thakur, Rabenseifner and Gropp's, as
 * MPICH's recursive halving reduce-scatter does it), p the largest power
 * of two below N, e = N - p: the e extra ranks (even ranks below 2e) hand
 * their part to the odd rank above them, the p new ranks (fold.c's
 * numbering) run the power-of-two algorithm over windows of new ranks,
 * and the odd ranks hand the extra ranks their result. New rank v stands
 * for the blocks [blk(v), blk(v+1)), blk(v) = 2v for v < e (the blocks of
 * its extra rank and its own), v + e otherwise, so a window of new ranks
 * is a contiguous run of blocks and two halves of a window may differ in
 * bytes by a block per folded rank.
 *   reduce-scatter: fold, an extra rank sends its whole slice (N blocks)
 *     to its odd rank, which adds it; step j = 0..k-1 halves the window
 *     of p >> j new ranks around v, v sending the half of partner
 *     w = v ^ (p >> (j + 1)) and adding w's partial sums of its own half;
 *     unfold, an odd rank sends its extra rank that rank's block.
 *   all-gather: fold, an extra rank sends its block to its odd rank; step
 *     j swaps the aligned window of 2^j new ranks with v ^ 2^j; unfold, an
 *     odd rank sends its extra rank the whole slice (its own block is a
 *     copy of what it has: one transfer rather than two around it).
 * Closed form on a contention-free platform with split-duplex links: the
 * recurrence over the slots, a pair's step starting when both partners
 * are done and lasting R L + bytes / B of its larger direction, R the
 * rounds of its smaller one (both directions take them, the larger
 * carrying its rest in the last), B = share x (k + 1) (a rank's k partners
 * and its fold partner share its link).
 *
 * Closed form on a contention-free platform where a rank's k routes share
 * its link (route share B/k, B = share x k): sum_j (R_j L + b_j C / B) =
 * L sum_j R_j + (N-1)/N S/B, with b_j the bytes per channel of step j and
 * R_j = ceil(b_j / chunk) its rounds. */
#include "config.h"

#include <string.h>

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
    static const char *const rs_names[] = { "reduce-scatter" };
    static const char *const ag_names[] = { "all-gather" };
    g_autoptr (DtsCollPlan) plan = dts_coll_fold_plan_new (params, "rhd", what, 1,
                                                          gather ? ag_names : rs_names, error);
    if (plan == NULL)
      return NULL;
    plan->n_reduce_steps = gather ? 0 : plan->n_levels + 1;
    plan->peer_key = dts_coll_key_add (plan->peer_key, gather ? 'g' : 's');
    return g_steal_pointer (&plan);
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

static gboolean
folded (const DtsCollPlan *plan)
{
  return plan->n_ranks > (1 << plan->n_levels);
}

/* First block of new rank V (fold.c's numbering; V = p: N). */
static int
blk (const DtsCollPlan *plan, int v)
{
  int e = plan->n_ranks - (1 << plan->n_levels);
  return v < e ? 2 * v : v + e;
}

int
dts_coll_rhd_op_n_steps (const DtsCollPlan *plan, int part)
{
  return folded (plan) ? dts_coll_fold_n_steps (plan, part, plan->n_levels) : plan->n_steps;
}

int
dts_coll_rhd_op_step_slot (const DtsCollPlan *plan, int part, int step)
{
  return folded (plan) ? dts_coll_fold_slot (plan, part, step, plan->n_levels) : step;
}

/* New rank V's transfers at halving or doubling step J of the folded plan
 * (slot 1 + J): (send first block, receive first block, blocks each way)
 * as runs of blocks. */
static void
folded_windows (const DtsCollPlan *plan, gboolean gather, int v, int j, int *send_lo,
                int *send_n, int *recv_lo, int *recv_n, int *w)
{
  int p = 1 << plan->n_levels;
  int half = gather ? 1 << j : p >> (j + 1);
  *w = v ^ half;
  int mine = v & ~(half - 1), theirs = *w & ~(half - 1);
  /* reduce-scatter sends the partner's half and receives its own;
   * all-gather sends its window and receives the partner's */
  int s = gather ? mine : theirs, r = gather ? theirs : mine;
  *send_lo = blk (plan, s);
  *send_n = blk (plan, s + half) - *send_lo;
  *recv_lo = blk (plan, r);
  *recv_n = blk (plan, r + half) - *recv_lo;
}

static void
folded_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  gboolean gather = plan->n_reduce_steps == 0;
  int n = plan->n_ranks, k = plan->n_levels;
  int slot = dts_coll_fold_slot (plan, part, step, k);
  double seg = plan->bytes / ((double) n * plan->channels);
  int v, role = dts_coll_fold_role (plan, part, &v);
  out->phase = dts_coll_fold_phase (plan, slot, k);
  out->chunk_bytes = plan->chunk_bytes;
  if (slot == 0 || slot == k + 1) {
    /* fold (extra -> odd) and unfold (odd -> extra) */
    gboolean fold = slot == 0;
    gboolean sends = (role == DTS_COLL_FOLD_EXTRA) == fold;
    int extra = role == DTS_COLL_FOLD_EXTRA ? part : part - 1;
    int peer = role == DTS_COLL_FOLD_EXTRA ? part + 1 : part - 1;
    /* reduce-scatter: the whole slice in, the extra rank's block out;
     * all-gather: its block in, the whole slice out */
    gboolean whole = fold != gather;
    double off = whole ? 0 : extra * seg, bytes = whole ? n * seg : seg;
    out->n_rounds = dts_coll_fold_step_rounds (plan, bytes);
    dts_coll_add_xfer_at (out, sends ? DTS_XFER_SEND : DTS_XFER_RECV, peer, off, bytes,
                          plan->channels, !sends && fold && !gather, slot);
    return;
  }
  int j = slot - 1, s_lo, s_n, r_lo, r_n, w;
  folded_windows (plan, gather, v, j, &s_lo, &s_n, &r_lo, &r_n, &w);
  int peer = dts_coll_fold_rank (plan, w);
  /* Both directions in the smaller one's rounds: the larger carries the
   * rest in its last (every round but the last moves chunk_bytes of each
   * transfer). */
  out->n_rounds = dts_coll_fold_step_rounds (plan, MIN (s_n, r_n) * seg);
  dts_coll_add_xfer_at (out, DTS_XFER_SEND, peer, s_lo * seg, s_n * seg, plan->channels, FALSE,
                        slot);
  dts_coll_add_xfer_at (out, DTS_XFER_RECV, peer, r_lo * seg, r_n * seg, plan->channels, !gather,
                        slot);
}

void
dts_coll_rhd_op_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  if (folded (plan)) {
    folded_step_ops (plan, part, step, out);
    return;
  }
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
  if (folded (plan))
    return dts_coll_fold_routes (plan, fn, data);
  for (int p = 0; p < plan->n_ranks; p++)
    for (int j = 0; j < plan->n_levels; j++)
      if (!fn (p, p ^ step_blocks (plan, j), "a rank exchanges half windows with its partners",
               data))
        return FALSE;
  return TRUE;
}

/* The folded plan's recurrence (the file's header): each new rank's end
 * time after each step, the fold's and unfold's transfers around them. */
static double
folded_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  gboolean gather = plan->n_reduce_steps == 0;
  int n = plan->n_ranks, k = plan->n_levels, p = 1 << k, e = n - p;
  double B = share_Bps * (k + 1), seg = plan->bytes / ((double) n * plan->channels);
  /* a fold or unfold of BLOCKS blocks per channel: its rounds' latency and its bytes */
  double fold_blocks = gather ? 1 : n, unfold_blocks = gather ? n : 1;
  double fold_s = dts_coll_fold_step_rounds (plan, fold_blocks * seg) * latency_s
                  + fold_blocks * seg * plan->channels / B;
  double unfold_s = dts_coll_fold_step_rounds (plan, unfold_blocks * seg) * latency_s
                    + unfold_blocks * seg * plan->channels / B;
  g_autofree double *t = g_new0 (double, p), *next = g_new (double, p);
  for (int v = 0; v < e; v++)
    t[v] = fold_s;
  for (int j = 0; j < k; j++) {
    for (int v = 0; v < p; v++) {
      int s_lo, s_n, r_lo, r_n, w;
      folded_windows (plan, gather, v, j, &s_lo, &s_n, &r_lo, &r_n, &w);
      next[v] = MAX (t[v], t[w])
                + dts_coll_fold_step_rounds (plan, MIN (s_n, r_n) * seg) * latency_s
                + MAX (s_n, r_n) * seg * plan->channels / B;
    }
    memcpy (t, next, sizeof (double) * p);
  }
  double end = 0;
  for (int v = 0; v < p; v++)
    end = MAX (end, t[v] + (v < e ? unfold_s : 0));
  return end;
}

double
dts_coll_rhd_op_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  int n = plan->n_ranks, k = plan->n_levels;
  if (n < 2)
    return 0;
  if (folded (plan))
    return folded_closed_form_s (plan, share_Bps, latency_s);
  double t = 0;
  for (int j = 0; j < k; j++) {
    double bytes = step_blocks (plan, j) * plan->seg_bytes;
    t += dts_coll_rounds (bytes, plan->chunk_bytes, "rhd", NULL) * latency_s
         + bytes * plan->channels / (share_Bps * k);
  }
  return t;
}
