/* fold.c - the fold of recursive doubling and recursive halving-doubling
 * (rd.c, rhd.c) for a number of ranks that is not a power of two.
 *
 * Model (Thakur, Rabenseifner and Gropp, "Optimization of collective
 * communication operations in MPICH", IJHPCA 2005, as MPICH's
 * MPIR_Allreduce_intra_recursive_doubling and _reduce_scatter_allgather
 * do it): with p the largest power of two <= N and e = N - p, each of the
 * first 2e ranks that is even (an extra rank) sends its whole buffer to
 * the odd rank above it, which reduces it (the fold, slot 0); the p ranks
 * left (odd ranks below 2e, then every rank from 2e on, in rank order, are
 * new ranks 0..p-1) run the power-of-two algorithm; at the end each odd
 * rank below 2e sends the result to its extra rank (the unfold, last
 * slot). An extra rank has two steps: its fold send and its unfold
 * receive.
 *
 * Slots number the steps of the whole plan: 0 the fold (when e > 0), then
 * the P slots of the power-of-two algorithm, then the unfold. A transfer
 * of slot s has tag s: in the power-of-two part a rank exchanges with a
 * different partner at each slot, and a partner in another half of the
 * ranks can be many slots ahead (the halves wait on each other only at the
 * slot that joins them: the new ranks that are folded start late), so no
 * two slots may share a mailbox. */
#include "config.h"

#include <math.h>

#include "collective/collective-private.h"
#include "core/error.h"

int
dts_coll_fold_role (const DtsCollPlan *plan, int rank, int *newrank)
{
  int e = plan->n_ranks - (1 << plan->n_levels);
  if (rank < 2 * e) {
    *newrank = rank % 2 == 0 ? -1 : rank / 2;
    return rank % 2 == 0 ? DTS_COLL_FOLD_EXTRA : DTS_COLL_FOLD_ODD;
  }
  *newrank = rank - e;
  return DTS_COLL_FOLD_PLAIN;
}

int
dts_coll_fold_rank (const DtsCollPlan *plan, int newrank)
{
  int e = plan->n_ranks - (1 << plan->n_levels);
  return newrank < e ? 2 * newrank + 1 : newrank + e;
}

static gboolean
folded (const DtsCollPlan *plan)
{
  return plan->n_ranks > (1 << plan->n_levels);
}

int
dts_coll_fold_n_steps (const DtsCollPlan *plan, int part, int n_pow2_slots)
{
  int v;
  switch (dts_coll_fold_role (plan, part, &v)) {
  case DTS_COLL_FOLD_EXTRA:
    return 2;
  case DTS_COLL_FOLD_ODD:
    return n_pow2_slots + 2;
  default:
    return n_pow2_slots;
  }
}

int
dts_coll_fold_slot (const DtsCollPlan *plan, int part, int step, int n_pow2_slots)
{
  int v;
  int role = dts_coll_fold_role (plan, part, &v);
  if (role == DTS_COLL_FOLD_EXTRA)
    return step == 0 ? 0 : n_pow2_slots + 1;
  return step + (role == DTS_COLL_FOLD_PLAIN && folded (plan) ? 1 : 0);
}

static int
rounds_of (const DtsCollPlan *plan, double bytes)
{
  double r = ceil (bytes / plan->chunk_bytes * (1 - 1e-12));
  return r < 1 ? 1 : (int) r;
}

int
dts_coll_fold_step_rounds (const DtsCollPlan *plan, double bytes)
{
  return rounds_of (plan, bytes);
}

gboolean
dts_coll_fold_step_ops (const DtsCollPlan *plan, int part, int slot, int n_pow2_slots,
                        DtsCollStepOps *out)
{
  if (!folded (plan) || (slot != 0 && slot != n_pow2_slots + 1))
    return FALSE;
  double slice = plan->bytes / plan->channels;
  int v;
  int role = dts_coll_fold_role (plan, part, &v);
  int peer = role == DTS_COLL_FOLD_EXTRA ? part + 1 : part - 1;
  gboolean fold = slot == 0;
  out->phase = fold ? 0 : plan->n_phases - 1;
  out->n_rounds = rounds_of (plan, slice);
  out->chunk_bytes = plan->chunk_bytes;
  gboolean sends = (role == DTS_COLL_FOLD_EXTRA) == fold;
  dts_coll_add_xfer_at (out, sends ? DTS_XFER_SEND : DTS_XFER_RECV, peer, 0, slice,
                        plan->channels, !sends && fold, slot);
  return TRUE;
}

gboolean
dts_coll_fold_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data)
{
  int p = 1 << plan->n_levels;
  int e = plan->n_ranks - p;
  for (int i = 0; i < e; i++)
    if (!fn (2 * i, 2 * i + 1, "an extra rank folds its buffer into its partner's", data)
        || !fn (2 * i + 1, 2 * i, "the partner returns the result to its extra rank", data))
      return FALSE;
  for (int v = 0; v < p; v++)
    for (int m = 1; m < p; m <<= 1)
      if (!fn (dts_coll_fold_rank (plan, v), dts_coll_fold_rank (plan, v ^ m),
               "a rank exchanges with the rank that differs in one bit of its new rank", data))
        return FALSE;
  return TRUE;
}

DtsCollPlan *
dts_coll_fold_plan_new (const DtsCollParams *params, const char *id, const char *what,
                        int slots_per_level, const char *const *level_names, GError **error)
{
  if (!dts_coll_check_params (params, what, TRUE, error))
    return NULL;
  int n = params->n_ranks;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_alloc (id, params);
  int k = 0;
  while ((2 << k) <= n)
    k++;
  plan->n_levels = k;
  int e = n - (1 << k);
  int n_pow2 = slots_per_level * k;
  if (n_pow2 + 2 > DTS_COLL_MAX_PHASES) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "%s: at most 2^%d ranks, got %d", what,
                 (DTS_COLL_MAX_PHASES - 2) / slots_per_level, n);
    return NULL;
  }
  plan->n_parts = n;
  plan->n_steps = n_pow2 + (e > 0 ? 2 : 0);
  plan->n_reduce_steps = (e > 0 ? 1 : 0) + k;
  plan->n_tags = MAX (plan->n_steps, DTS_COLL_N_TAGS);
  plan->seg_bytes = params->bytes / params->channels;
  double rounds = ceil (plan->seg_bytes / plan->chunk_bytes * (1 - 1e-12));
  if (rounds > G_MAXINT / 4) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "%s: %.0f rounds per step; use a larger chunk size", what, rounds);
    return NULL;
  }
  plan->n_rounds = rounds < 1 ? 1 : (int) rounds;
  plan->sends_per_step = 1;
  if (e == 0) {
    /* Every rank takes part in every slot: one lock-step phase per slot. */
    plan->n_phases = n_pow2;
    for (int s = 0; s < n_pow2; s++)
      plan->phases[s] = (DtsCollPhase){ s, 1, TRUE, level_names[s / k] };
  } else {
    plan->n_phases = 0;
    plan->phases[plan->n_phases++] = (DtsCollPhase){ 0, 1, FALSE, "fold" };
    for (int l = 0; l < slots_per_level && k > 0; l++)
      plan->phases[plan->n_phases++] = (DtsCollPhase){ 1 + l * k, k, FALSE, level_names[l] };
    plan->phases[plan->n_phases++] = (DtsCollPhase){ 1 + n_pow2, 1, FALSE, "unfold" };
  }
  plan->peer_key = dts_coll_key_add (dts_coll_key_add (dts_coll_key_add (0, 'f'), id[1]), n);
  return g_steal_pointer (&plan);
}

int
dts_coll_fold_phase (const DtsCollPlan *plan, int slot, int n_pow2_slots)
{
  if (!folded (plan))
    return slot;
  int k = plan->n_levels;
  if (slot == 0)
    return 0;
  if (slot == n_pow2_slots + 1)
    return plan->n_phases - 1;
  return 1 + (slot - 1) / MAX (k, 1);
}

int
dts_coll_fold_routes_per_rank (const DtsCollPlan *plan)
{
  return plan->n_levels + (folded (plan) ? 1 : 0);
}
