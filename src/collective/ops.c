/* ops.c - the collective operations and the rows of the algorithms that do
 * the ops other than all-reduce.
 *
 * An op says what every rank ends with; an algorithm row says how, for one
 * op (the all-reduce rows are in collective.c). The size S of a plan is
 * what nccl-tests calls the size (GetCollByteCount in its sources): the
 * larger of one rank's buffers, so
 *   all-reduce, broadcast, reduce: the buffer;
 *   all-gather: the output, N blocks of S/N (rank i contributes block i);
 *   reduce-scatter: the input (rank i ends with the sum of block i, S/N);
 *   all-to-all: the send buffer, block j of S/N going to rank j.
 * Bus bandwidth is nccl-tests' algorithm bandwidth S/t times the op's
 * factor (doc/PERFORMANCE.md of nccl-tests): 2(N-1)/N for all-reduce,
 * (N-1)/N for all-gather, reduce-scatter and all-to-all, 1 for broadcast
 * and reduce, so that it reads as the bandwidth of the busiest link and is
 * comparable across N and ops. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "collective/collective-private.h"
#include "core/error.h"

static const DtsCollOpInfo ops[] = {
  { DTS_COLL_OP_ALLREDUCE, "all-reduce",
    "every rank ends with the sum of every rank's S-byte buffer", "2(N-1)/N", FALSE, "ring" },
  { DTS_COLL_OP_ALLGATHER, "all-gather",
    "every rank ends with the N blocks of S/N bytes, block i from rank i (S: the output)",
    "(N-1)/N", FALSE, "ring" },
  { DTS_COLL_OP_REDUCE_SCATTER, "reduce-scatter",
    "rank i ends with the sum of block i (S/N bytes) of every rank's S-byte input", "(N-1)/N",
    FALSE, "ring" },
  { DTS_COLL_OP_BROADCAST, "broadcast", "every rank ends with the root's S-byte buffer", "1",
    TRUE, "ring" },
  { DTS_COLL_OP_REDUCE, "reduce", "the root ends with the sum of every rank's S-byte buffer",
    "1", TRUE, "ring" },
  { DTS_COLL_OP_ALLTOALL, "all-to-all",
    "rank j ends with block j (S/N bytes) of every rank's S-byte send buffer", "(N-1)/N", FALSE,
    "direct" },
  { DTS_COLL_N_OPS, NULL, NULL, NULL, FALSE, NULL },
};

const DtsCollOpInfo *
dts_coll_ops (void)
{
  return ops;
}

/* ID without '-' and '_', lower-cased, in OUT (at most N bytes). */
static void
op_key (const char *id, char *out, gsize n)
{
  gsize k = 0;
  for (; *id && k + 1 < n; id++)
    if (*id != '-' && *id != '_')
      out[k++] = g_ascii_tolower (*id);
  out[k] = '\0';
}

const DtsCollOpInfo *
dts_coll_op_lookup (const char *id)
{
  /* nccl-tests' and MPI's spellings too: all_reduce, allreduce, AllGather */
  char want[32], have[32];
  if (id == NULL || strlen (id) >= sizeof want)
    return NULL;
  op_key (id, want, sizeof want);
  for (const DtsCollOpInfo *o = ops; o->id; o++) {
    op_key (o->id, have, sizeof have);
    if (strcmp (have, want) == 0)
      return o;
  }
  return NULL;
}

const char *
dts_coll_op_to_string (DtsCollOp op)
{
  g_return_val_if_fail (op >= 0 && op < DTS_COLL_N_OPS, "?");
  return ops[op].id;
}

double
dts_coll_op_bus_factor (DtsCollOp op, int n)
{
  if (n < 1)
    return 0;
  switch (op) {
  case DTS_COLL_OP_ALLREDUCE:
    return 2.0 * (n - 1) / n;
  case DTS_COLL_OP_BROADCAST:
  case DTS_COLL_OP_REDUCE:
    return 1;
  default:
    return (double) (n - 1) / n;
  }
}

#define RING_HALF_FORM "(N-1) (R L + S/(N B)), R rounds per step"
#define MULTIRAIL_HALF_FORM "(N-1)/N x S/B' + (N-1) R L, B' = B x C, R rounds per step"
#define CHAIN_FORM                                                                          \
  "sum over the N + K - 2 slots of (L + C b / B), K chunks of --chunk-size per channel, b "  \
  "the largest in the slot; (N + K - 2) (L + S/(K B)) for equal chunks"
#define DIRECT_FORM "R L + S/(N B), R rounds"
#define RHD_FORM                                                                          \
  "L sum_j R_j + (N-1)/N x S/B', B' = B x log2 N, R_j rounds of step j; other N: the fold's " \
  "recurrence over the slots (rhd-ops.c)"
#define PAIRWISE_FORM "(N-1) (R L + S/(N B')), B' = B x (N-1), R rounds per step"
#define TREE_OP_FORM                                                                        \
  "sum over the K + D - 1 slots of (L + C b f / 2B), D = floor(log2 N), K chunks of "        \
  "--chunk-size per channel, depth j sending chunk t - j in slot t to f children; "          \
  "(K + D - 1) (L + S/(K B)) for equal chunks and two children"
#define BRUCK_FORM                                                                        \
  "sum over the K = ceil(log2 N) steps of (R_k L + b_k S/(N B')), b_k the blocks with bit k " \
  "set among 1..N-1, R_k its shortest run's rounds, B' = B x K"
#define BINOMIAL_FORM                                                                    \
  "K (R L + S/B'), K = ceil(log2 N) levels, R rounds, B' = B x K (the root's K routes)"

static const DtsCollOpAlgorithm op_algorithms[] = {
  { DTS_COLL_OP_ALLGATHER,
    { "ring", "ring all-gather: N-1 steps, each rank forwards the block it received last",
    dts_coll_ring_half_plan_new, dts_coll_ring_half_n_steps, dts_coll_ring_half_step_ops,
    dts_coll_member_host, dts_coll_ring_routes, dts_coll_ring_half_closed_form_s, NULL,
    RING_HALF_FORM, NULL } },
  { DTS_COLL_OP_ALLGATHER,
    { "direct", "one-shot all-gather: every rank sends its block to every other rank at once",
    dts_coll_direct_op_plan_new, dts_coll_direct_op_n_steps, dts_coll_direct_op_step_ops,
    dts_coll_member_host, dts_coll_direct_routes, dts_coll_direct_op_closed_form_s, NULL,
    DIRECT_FORM, NULL } },
  { DTS_COLL_OP_ALLGATHER,
    { "rhd", "recursive doubling: log2 N steps, each rank swapping all it holds with the rank "
             "1, 2, 4, ... away (other N: MPICH's fold, one step before and one after)",
    dts_coll_rhd_op_plan_new, dts_coll_rhd_op_n_steps, dts_coll_rhd_op_step_ops,
    dts_coll_member_host, dts_coll_rhd_op_routes, dts_coll_rhd_op_closed_form_s, NULL,
    RHD_FORM, dts_coll_rhd_op_step_slot } },
  { DTS_COLL_OP_ALLGATHER,
    { "topo-ring", "rings in searched orders (all-reduce's topo-ring): each channel's ring, "
                   "the node path whose busiest link carries the fewest hops, gathers its "
                   "slice in N-1 steps",
    dts_coll_topo_ring_plan_new, dts_coll_ring_n_steps, dts_coll_topo_ring_half_step_ops,
    dts_coll_member_host, dts_coll_topo_ring_routes, dts_coll_topo_ring_half_closed_form_s,
    NULL, RING_HALF_FORM "; rings that differ per channel: " MULTIRAIL_HALF_FORM, NULL } },
  { DTS_COLL_OP_ALLGATHER,
    { "multi-rail", "topology-aware rings (all-reduce's multi-rail): each channel's ring, "
                    "entering and leaving every node through its own GPU and NIC, gathers its "
                    "slice in N-1 steps",
    dts_coll_multirail_half_plan_new, dts_coll_multirail_n_steps,
    dts_coll_multirail_half_step_ops, dts_coll_member_host, dts_coll_multirail_routes,
    dts_coll_multirail_half_closed_form_s, NULL, MULTIRAIL_HALF_FORM, NULL } },
  { DTS_COLL_OP_REDUCE_SCATTER,
    { "ring", "ring reduce-scatter: N-1 steps, each rank adds the block it receives and passes "
            "it on",
    dts_coll_ring_half_plan_new, dts_coll_ring_half_n_steps, dts_coll_ring_half_step_ops,
    dts_coll_member_host, dts_coll_ring_routes, dts_coll_ring_half_closed_form_s, NULL,
    RING_HALF_FORM, NULL } },
  { DTS_COLL_OP_REDUCE_SCATTER,
    { "direct", "one-shot reduce-scatter: every rank sends block j to rank j, which adds them",
    dts_coll_direct_op_plan_new, dts_coll_direct_op_n_steps, dts_coll_direct_op_step_ops,
    dts_coll_member_host, dts_coll_direct_routes, dts_coll_direct_op_closed_form_s, NULL,
    DIRECT_FORM, NULL } },
  { DTS_COLL_OP_REDUCE_SCATTER,
    { "rhd", "recursive halving: log2 N steps, each rank sending half its window to the rank "
             "N/2, N/4, ... away and adding the half it keeps (other N: MPICH's fold, one step "
             "before and one after)",
    dts_coll_rhd_op_plan_new, dts_coll_rhd_op_n_steps, dts_coll_rhd_op_step_ops,
    dts_coll_member_host, dts_coll_rhd_op_routes, dts_coll_rhd_op_closed_form_s, NULL,
    RHD_FORM, dts_coll_rhd_op_step_slot } },
  { DTS_COLL_OP_REDUCE_SCATTER,
    { "topo-ring", "rings in searched orders (all-reduce's topo-ring): each channel's ring, "
                   "the node path whose busiest link carries the fewest hops, reduces and "
                   "scatters its slice in N-1 steps",
    dts_coll_topo_ring_plan_new, dts_coll_ring_n_steps, dts_coll_topo_ring_half_step_ops,
    dts_coll_member_host, dts_coll_topo_ring_routes, dts_coll_topo_ring_half_closed_form_s,
    NULL, RING_HALF_FORM "; rings that differ per channel: " MULTIRAIL_HALF_FORM, NULL } },
  { DTS_COLL_OP_REDUCE_SCATTER,
    { "multi-rail", "topology-aware rings (all-reduce's multi-rail): each channel's ring, "
                    "entering and leaving every node through its own GPU and NIC, reduces and "
                    "scatters its slice in N-1 steps",
    dts_coll_multirail_half_plan_new, dts_coll_multirail_n_steps,
    dts_coll_multirail_half_step_ops, dts_coll_member_host, dts_coll_multirail_routes,
    dts_coll_multirail_half_closed_form_s, NULL, MULTIRAIL_HALF_FORM, NULL } },
  { DTS_COLL_OP_BROADCAST,
    { "ring", "NCCL's ring broadcast: a chain from the root along the ring, pipelined in chunks "
            "of --chunk-size",
    dts_coll_chain_plan_new, dts_coll_chain_n_steps, dts_coll_chain_step_ops,
    dts_coll_member_host, dts_coll_chain_routes, dts_coll_chain_closed_form_s, NULL, CHAIN_FORM,
    dts_coll_chain_step_slot } },
  { DTS_COLL_OP_REDUCE,
    { "ring", "NCCL's ring reduce: a chain along the ring ending at the root, each rank adding "
            "its buffer, pipelined in chunks of --chunk-size",
    dts_coll_chain_plan_new, dts_coll_chain_n_steps, dts_coll_chain_step_ops,
    dts_coll_member_host, dts_coll_chain_routes, dts_coll_chain_closed_form_s, NULL, CHAIN_FORM,
    dts_coll_chain_step_slot } },
  { DTS_COLL_OP_BROADCAST,
    { "binomial", "binomial tree (MPI's for small buffers): ceil(log2 N) levels, each rank "
                  "passing the whole buffer on to a rank 2^k further at level k",
    dts_coll_binomial_plan_new, dts_coll_binomial_n_steps, dts_coll_binomial_step_ops,
    dts_coll_member_host, dts_coll_binomial_routes, dts_coll_binomial_closed_form_s, NULL,
    BINOMIAL_FORM, dts_coll_binomial_step_slot } },
  { DTS_COLL_OP_REDUCE,
    { "binomial", "binomial tree (MPI's for small buffers): the broadcast's tree backwards, each "
                  "rank adding its children's sums and sending the result to its parent",
    dts_coll_binomial_plan_new, dts_coll_binomial_n_steps, dts_coll_binomial_step_ops,
    dts_coll_member_host, dts_coll_binomial_routes, dts_coll_binomial_closed_form_s, NULL,
    BINOMIAL_FORM, dts_coll_binomial_step_slot } },
  { DTS_COLL_OP_BROADCAST,
    { "tree", "pipelined binary tree: chunks of --chunk-size flow from the root down the heap "
              "over the ranks, each rank passing chunk s - 1 to its two children as chunk s "
              "arrives",
    dts_coll_tree_op_plan_new, dts_coll_tree_op_n_steps, dts_coll_tree_op_step_ops,
    dts_coll_member_host, dts_coll_tree_op_routes, dts_coll_tree_op_closed_form_s, NULL,
    TREE_OP_FORM, dts_coll_tree_op_step_slot } },
  { DTS_COLL_OP_ALLTOALL,
    { "direct", "direct all-to-all: every rank sends block j to rank j, all at once",
    dts_coll_direct_op_plan_new, dts_coll_direct_op_n_steps, dts_coll_direct_op_step_ops,
    dts_coll_member_host, dts_coll_direct_routes, dts_coll_direct_op_closed_form_s, NULL,
    DIRECT_FORM, NULL } },
  { DTS_COLL_OP_ALLTOALL,
    { "pairwise", "pairwise exchange (MPI's for large blocks): N-1 steps, at step k each rank "
                  "sending block p+k to rank p+k and receiving from rank p-k",
    dts_coll_pairwise_plan_new, dts_coll_same_n_steps, dts_coll_pairwise_step_ops,
    dts_coll_member_host, dts_coll_direct_routes, dts_coll_pairwise_closed_form_s, NULL,
    PAIRWISE_FORM, NULL } },
  { DTS_COLL_OP_ALLTOALL,
    { "bruck", "Bruck's (MPI's for small blocks): ceil(log2 N) steps, at step k each rank "
               "sending the blocks whose distance has bit k set to the rank 2^k on",
    dts_coll_bruck_plan_new, dts_coll_same_n_steps, dts_coll_bruck_step_ops,
    dts_coll_member_host, dts_coll_bruck_routes, dts_coll_bruck_closed_form_s, NULL,
    BRUCK_FORM, NULL } },
  { DTS_COLL_N_OPS, { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL } },
};

const DtsCollOpAlgorithm *
dts_coll_op_algorithms (void)
{
  return op_algorithms;
}

const DtsCollAlgorithm *
dts_coll_algorithm_lookup (const char *algorithm, DtsCollOp op)
{
  if (op == DTS_COLL_OP_ALLREDUCE) {
    for (const DtsCollAlgorithm *a = dts_coll_algorithms (); a->id; a++)
      if (strcmp (a->id, algorithm) == 0)
        return a;
    return NULL;
  }
  for (const DtsCollOpAlgorithm *a = op_algorithms; a->alg.id; a++)
    if (a->op == op && strcmp (a->alg.id, algorithm) == 0)
      return &a->alg;
  return NULL;
}

char *
dts_coll_op_algorithm_ids (DtsCollOp op)
{
  GString *ids = g_string_new (NULL);
  if (op == DTS_COLL_OP_ALLREDUCE)
    for (const DtsCollAlgorithm *a = dts_coll_algorithms (); a->id; a++)
      g_string_append_printf (ids, "%s%s", ids->len ? ", " : "", a->id);
  for (const DtsCollOpAlgorithm *a = op_algorithms; a->alg.id; a++)
    if (a->op == op)
      g_string_append_printf (ids, "%s%s", ids->len ? ", " : "", a->alg.id);
  return g_string_free (ids, FALSE);
}

DtsCollPlan *
dts_coll_op_plan_new (const char *algorithm, const DtsCollParams *params, GError **error)
{
  g_return_val_if_fail (params->op > DTS_COLL_OP_ALLREDUCE && params->op < DTS_COLL_N_OPS,
                        NULL);
  const char *op = dts_coll_op_to_string (params->op);
  if (dts_coll_is_tuned (algorithm)
      && (params->op == DTS_COLL_OP_ALLGATHER || params->op == DTS_COLL_OP_REDUCE_SCATTER))
    return dts_coll_tune_plan_new (algorithm, params, NULL, error);
  const DtsCollAlgorithm *a = dts_coll_algorithm_lookup (algorithm, params->op);
  if (a == NULL) {
    g_autofree char *ids = dts_coll_op_algorithm_ids (params->op);
    gboolean known = dts_coll_is_tuned (algorithm)
                     || dts_coll_algorithm_lookup (algorithm, DTS_COLL_OP_ALLREDUCE) != NULL;
    if (dts_coll_is_tuned (algorithm))
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "collective '%s' picks all-reduce, all-gather and reduce-scatter "
                   "algorithms only (its tuning model is NCCL's for those); give one of %s for "
                   "%s",
                   algorithm, ids, op);
    else
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "%s collective algorithm '%s' does not do %s (%s: %s)",
                   known ? "the" : "unknown", algorithm, op, op, ids);
    return NULL;
  }
  if (ops[params->op].rooted && (params->root < 0 || params->root >= MAX (params->n_ranks, 1))) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "%s %s: root %d is not one of the %d ranks (0..%d)", algorithm, op,
                 params->root, params->n_ranks, params->n_ranks - 1);
    return NULL;
  }
  DtsCollPlan *plan = a->plan_new (params, error);
  if (plan == NULL)
    return NULL;
  plan->alg = a;
  plan->op = params->op;
  plan->root = ops[params->op].rooted ? params->root : 0;
  return plan;
}

int
dts_coll_rounds (double seg_bytes, double chunk_bytes, const char *what, GError **error)
{
  /* A tiny tolerance keeps S = k x chunk from growing a zero-byte round. */
  double rounds = ceil (seg_bytes / chunk_bytes * (1 - 1e-12));
  if (rounds > G_MAXINT / 4) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "%s: %.0f rounds per step; use a larger chunk size", what, rounds);
    return 0;
  }
  return rounds < 1 ? 1 : (int) rounds;
}
