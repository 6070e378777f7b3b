/* collective-private.h - shared by the algorithm files of src/collective. */
#ifndef DTS_COLLECTIVE_PRIVATE_H
#define DTS_COLLECTIVE_PRIVATE_H

#include "collective/collective.h"

G_BEGIN_DECLS

/* Group PLAN's n_ranks participants by node (params->gpu_node; without it
 * every rank is a node of its own when EACH_OWN, else all share one): nodes
 * in order of first appearance, a node's ranks in rank order. Sets
 * node_of, n_nodes, node_start, node_ranks, and position[r] to the rank's
 * index inside its node. */
void dts_coll_group_nodes (DtsCollPlan *plan, const DtsCollParams *params, gboolean each_own);

DtsCollPlan *dts_coll_ring_plan_new (const DtsCollParams *params, GError **error);
/* The ring in the order searched on the platform's routes (topo-ring.c),
 * a ring searched per channel where they differ; its generic interface. */
DtsCollPlan *dts_coll_topo_ring_plan_new (const DtsCollParams *params, GError **error);
void dts_coll_topo_ring_half_step_ops (const DtsCollPlan *plan, int part, int step,
                                       DtsCollStepOps *out);
double dts_coll_topo_ring_half_closed_form_s (const DtsCollPlan *plan, double share_Bps,
                                              double latency_s);
void dts_coll_topo_ring_step_ops (const DtsCollPlan *plan, int part, int step,
                                  DtsCollStepOps *out);
gboolean dts_coll_topo_ring_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data);
double dts_coll_topo_ring_closed_form_s (const DtsCollPlan *plan, double share_Bps,
                                         double latency_s);
int dts_coll_ring_n_steps (const DtsCollPlan *plan, int part);
void dts_coll_ring_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out);
gboolean dts_coll_ring_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data);

DtsCollPlan *dts_coll_ps_plan_new (const DtsCollParams *params, GError **error);
int dts_coll_ps_n_steps (const DtsCollPlan *plan, int part);
void dts_coll_ps_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out);
int dts_coll_ps_part_host (const DtsCollPlan *plan, int part);
gboolean dts_coll_ps_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data);

DtsCollPlan *dts_coll_direct_plan_new (const DtsCollParams *params, GError **error);
int dts_coll_direct_n_steps (const DtsCollPlan *plan, int part);
void dts_coll_direct_step_ops (const DtsCollPlan *plan, int part, int step,
                               DtsCollStepOps *out);
gboolean dts_coll_direct_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data);

DtsCollPlan *dts_coll_rd_plan_new (const DtsCollParams *params, GError **error);
int dts_coll_rd_n_steps (const DtsCollPlan *plan, int part);
void dts_coll_rd_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out);
int dts_coll_rd_step_slot (const DtsCollPlan *plan, int part, int step);
double dts_coll_rd_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s);

DtsCollPlan *dts_coll_rhd_plan_new (const DtsCollParams *params, GError **error);
int dts_coll_rhd_n_steps (const DtsCollPlan *plan, int part);
void dts_coll_rhd_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out);
int dts_coll_rhd_step_slot (const DtsCollPlan *plan, int part, int step);
double dts_coll_rhd_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s);

DtsCollPlan *dts_coll_tree_plan_new (const DtsCollParams *params, GError **error);
int dts_coll_tree_n_steps (const DtsCollPlan *plan, int part);
void dts_coll_tree_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out);
int dts_coll_tree_step_slot (const DtsCollPlan *plan, int part, int step);
gboolean dts_coll_tree_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data);
double dts_coll_tree_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s);

DtsCollPlan *dts_coll_hier_plan_new (const DtsCollParams *params, GError **error);
int dts_coll_hier_n_steps (const DtsCollPlan *plan, int part);
void dts_coll_hier_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out);
gboolean dts_coll_hier_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data);
double dts_coll_hier_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s);

DtsCollPlan *dts_coll_multirail_plan_new (const DtsCollParams *params, GError **error);
/* multi-rail all-gather and reduce-scatter: each channel's ring runs one half */
DtsCollPlan *dts_coll_multirail_half_plan_new (const DtsCollParams *params, GError **error);
void dts_coll_multirail_half_step_ops (const DtsCollPlan *plan, int part, int step,
                                       DtsCollStepOps *out);
double dts_coll_multirail_half_closed_form_s (const DtsCollPlan *plan, double share_Bps,
                                              double latency_s);
int dts_coll_multirail_n_steps (const DtsCollPlan *plan, int part);
void dts_coll_multirail_step_ops (const DtsCollPlan *plan, int part, int step,
                                  DtsCollStepOps *out);
gboolean dts_coll_multirail_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data);
double dts_coll_multirail_closed_form_s (const DtsCollPlan *plan, double share_Bps,
                                         double latency_s);

/* The fold of rd and rhd for N not a power of two (fold.c): the plan
 * (n_levels = k, p = 2^k), each rank's role and new rank, the slot of a
 * participant's step (N_POW2_SLOTS slots between the fold and the unfold),
 * the fold's own steps (FALSE when SLOT is not one), its routes and those
 * of the power-of-two exchanges, the phase of a slot, and the number of a
 * rank's partners (k, plus 1 for a fold). */
enum { DTS_COLL_FOLD_PLAIN, DTS_COLL_FOLD_EXTRA, DTS_COLL_FOLD_ODD };
DtsCollPlan *dts_coll_fold_plan_new (const DtsCollParams *params, const char *id,
                                     const char *what, int slots_per_level,
                                     const char *const *level_names, GError **error);
int dts_coll_fold_role (const DtsCollPlan *plan, int rank, int *newrank);
int dts_coll_fold_rank (const DtsCollPlan *plan, int newrank);
int dts_coll_fold_n_steps (const DtsCollPlan *plan, int part, int n_pow2_slots);
int dts_coll_fold_slot (const DtsCollPlan *plan, int part, int step, int n_pow2_slots);
int dts_coll_fold_step_rounds (const DtsCollPlan *plan, double bytes);
gboolean dts_coll_fold_step_ops (const DtsCollPlan *plan, int part, int slot, int n_pow2_slots,
                                 DtsCollStepOps *out);
gboolean dts_coll_fold_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data);
int dts_coll_fold_phase (const DtsCollPlan *plan, int slot, int n_pow2_slots);
int dts_coll_fold_routes_per_rank (const DtsCollPlan *plan);

/* Ops other than all-reduce (ops.c): the plan of ALGORITHM for
 * params->op, from the rows of dts_coll_op_algorithms. */
DtsCollPlan *dts_coll_op_plan_new (const char *algorithm, const DtsCollParams *params,
                                   GError **error);

/* Ring all-gather and reduce-scatter (ring-halves.c). */
DtsCollPlan *dts_coll_ring_half_plan_new (const DtsCollParams *params, GError **error);
int dts_coll_ring_half_n_steps (const DtsCollPlan *plan, int part);
void dts_coll_ring_half_step_ops (const DtsCollPlan *plan, int part, int step,
                                  DtsCollStepOps *out);
double dts_coll_ring_half_closed_form_s (const DtsCollPlan *plan, double share_Bps,
                                         double latency_s);

/* A plan of the ring family (id "ring") for PARAMS, checked, with its ring
 * and position from params->ring (identity when NULL); NULL with ERROR set
 * (naming WHAT) for bad parameters or an order that is not a permutation. */
DtsCollPlan *dts_coll_ring_order_plan_new (const DtsCollParams *params, const char *what,
                                          GError **error);

/* Pipelined broadcast and reduce (chain.c, tree-ops.c): bytes of chunk K
 * of a channel's slice, cut into plan->n_levels chunks of chunk_bytes (the
 * last one the remainder). */
double dts_coll_pipeline_chunk_bytes (const DtsCollPlan *plan, int k);

/* Rooted ops: PART's rank relative to plan->root, (part - root) mod N. */
int dts_coll_relative_rank (const DtsCollPlan *plan, int part);

/* Ring-pipelined broadcast and reduce from a root (chain.c). */
DtsCollPlan *dts_coll_chain_plan_new (const DtsCollParams *params, GError **error);
int dts_coll_chain_n_steps (const DtsCollPlan *plan, int part);
void dts_coll_chain_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out);
int dts_coll_chain_step_slot (const DtsCollPlan *plan, int part, int step);
gboolean dts_coll_chain_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data);
double dts_coll_chain_closed_form_s (const DtsCollPlan *plan, double share_Bps,
                                     double latency_s);

/* Binomial-tree broadcast and reduce from a root (binomial.c). */
DtsCollPlan *dts_coll_binomial_plan_new (const DtsCollParams *params, GError **error);
int dts_coll_binomial_n_steps (const DtsCollPlan *plan, int part);
void dts_coll_binomial_step_ops (const DtsCollPlan *plan, int part, int step,
                                 DtsCollStepOps *out);
int dts_coll_binomial_step_slot (const DtsCollPlan *plan, int part, int step);
gboolean dts_coll_binomial_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data);
double dts_coll_binomial_closed_form_s (const DtsCollPlan *plan, double share_Bps,
                                        double latency_s);

/* Pipelined binary-tree broadcast from a root (tree-ops.c). */
DtsCollPlan *dts_coll_tree_op_plan_new (const DtsCollParams *params, GError **error);
int dts_coll_tree_op_n_steps (const DtsCollPlan *plan, int part);
void dts_coll_tree_op_step_ops (const DtsCollPlan *plan, int part, int step,
                                DtsCollStepOps *out);
int dts_coll_tree_op_step_slot (const DtsCollPlan *plan, int part, int step);
gboolean dts_coll_tree_op_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data);
double dts_coll_tree_op_closed_form_s (const DtsCollPlan *plan, double share_Bps,
                                       double latency_s);

/* Recursive-halving reduce-scatter, recursive-doubling all-gather
 * (rhd-ops.c). */
DtsCollPlan *dts_coll_rhd_op_plan_new (const DtsCollParams *params, GError **error);
int dts_coll_rhd_op_n_steps (const DtsCollPlan *plan, int part);
int dts_coll_rhd_op_step_slot (const DtsCollPlan *plan, int part, int step);
void dts_coll_rhd_op_step_ops (const DtsCollPlan *plan, int part, int step,
                               DtsCollStepOps *out);
gboolean dts_coll_rhd_op_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data);
double dts_coll_rhd_op_closed_form_s (const DtsCollPlan *plan, double share_Bps,
                                      double latency_s);

/* Direct all-gather, reduce-scatter and all-to-all (direct-ops.c). */
DtsCollPlan *dts_coll_direct_op_plan_new (const DtsCollParams *params, GError **error);
int dts_coll_direct_op_n_steps (const DtsCollPlan *plan, int part);
void dts_coll_direct_op_step_ops (const DtsCollPlan *plan, int part, int step,
                                  DtsCollStepOps *out);
double dts_coll_direct_op_closed_form_s (const DtsCollPlan *plan, double share_Bps,
                                         double latency_s);

/* Pairwise-exchange all-to-all (pairwise.c). */
DtsCollPlan *dts_coll_bruck_plan_new (const DtsCollParams *params, GError **error);
void dts_coll_bruck_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out);
gboolean dts_coll_bruck_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data);
double dts_coll_bruck_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s);

DtsCollPlan *dts_coll_pairwise_plan_new (const DtsCollParams *params, GError **error);
void dts_coll_pairwise_step_ops (const DtsCollPlan *plan, int part, int step,
                                 DtsCollStepOps *out);
double dts_coll_pairwise_closed_form_s (const DtsCollPlan *plan, double share_Bps,
                                        double latency_s);

/* Helpers shared by the algorithms. */
/* n_steps of a plan every member of which runs plan->n_steps steps. */
int dts_coll_same_n_steps (const DtsCollPlan *plan, int part);
/* Chunk rounds of SEG_BYTES per step (>= 1), or 0 with ERROR set (naming
 * WHAT) when there are too many. */
int dts_coll_rounds (double seg_bytes, double chunk_bytes, const char *what, GError **error);
/* The checks every plan makes: ranks, buffer size and, when CHUNKED,
 * channels and chunk size; errors start with WHAT ("ring all-reduce"). */
gboolean dts_coll_check_params (const DtsCollParams *params, const char *what, gboolean chunked,
                                GError **error);
int dts_coll_member_host (const DtsCollPlan *plan, int part);
void dts_coll_add_xfer (DtsCollStepOps *out, DtsXferKind kind, int peer, double bytes,
                        int channels, gboolean reduce, int tag);
/* The same, saying where the bytes start in each channel's slice. */
void dts_coll_add_xfer_at (DtsCollStepOps *out, DtsXferKind kind, int peer, double offset,
                           double bytes, int channels, gboolean reduce, int tag);
/* One transfer of channel CHANNEL alone. */
void dts_coll_add_xfer_channel (DtsCollStepOps *out, DtsXferKind kind, int peer, int channel,
                                double offset, double bytes, gboolean reduce, int tag);
/* A plan of ALGORITHM with the common fields of PARAMS and the identity
 * order in ring/position (checked parameters). */
DtsCollPlan *dts_coll_plan_alloc (const char *algorithm, const DtsCollParams *params);
/* Fold VALUE into a plan's peer_key (0 starts a key). */
guint64 dts_coll_key_add (guint64 key, gint64 value);
/* The peer_key of a plan whose peers follow its ring order (plan->ring):
 * FAMILY, then n_ranks, then the order. */
guint64 dts_coll_ring_peer_key (const DtsCollPlan *plan, char family);

G_END_DECLS

#endif
