/* collective-private.h - shared by the algorithm files of src/collective. */
#ifndef DTS_COLLECTIVE_PRIVATE_H
#define DTS_COLLECTIVE_PRIVATE_H

#include "collective/collective.h"

G_BEGIN_DECLS

DtsCollPlan *dts_coll_ring_plan_new (const DtsCollParams *params, GError **error);
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

/* Helpers shared by the algorithms. */
/* The checks every plan makes: ranks, buffer size and, when CHUNKED,
 * channels and chunk size; errors start with WHAT ("ring all-reduce"). */
gboolean dts_coll_check_params (const DtsCollParams *params, const char *what, gboolean chunked,
                                GError **error);
int dts_coll_member_host (const DtsCollPlan *plan, int part);
void dts_coll_add_xfer (DtsCollStepOps *out, DtsXferKind kind, int peer, double bytes,
                        int channels, gboolean reduce, int tag);
/* A plan of ALGORITHM with the common fields of PARAMS and the identity
 * order in ring/position (checked parameters). */
DtsCollPlan *dts_coll_plan_alloc (const char *algorithm, const DtsCollParams *params);
/* Fold VALUE into a plan's peer_key (0 starts a key). */
guint64 dts_coll_key_add (guint64 key, gint64 value);

G_END_DECLS

#endif
