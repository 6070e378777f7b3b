/* mesh.h - the rank mesh of a parallel training run: where each GPU sits
 * and which groups of GPUs (communicators) it belongs to.
 *
 * The ranks of a pipeline or hybrid run form a mesh of four dimensions:
 * tensor (T GPUs share each layer of a replica), context (C replicas share
 * each sample, 1/C of its sequence each), data (D replicas run different
 * samples) and pipeline (S stages run different layers). A stage's
 * replicas are numbered d = data x C + context, so R_s = D_s x C of them;
 * R_s may differ from stage to stage (--stage-dp). The placement, innermost
 * first:
 *
 *   replicas-inside (Megatron's order): tensor, context, data, pipeline:
 *     rank = (R_0 + ... + R_{s-1} + d) x T + t
 *   stages-inside (same R on every stage): tensor, pipeline, context x data:
 *     rank = (d x S + s) x T + t
 *
 * so a tensor group is always T consecutive ranks, inside a node where T
 * divides the node's GPUs. A "slot" is a replica of a stage (a tensor
 * group): slot x T is its first rank.
 *
 * Expert parallelism factors a stage's replicas the other way, as
 * Megatron-Core's expert mesh does over its data x context ranks: EP
 * consecutive replicas (EP divides R_s) form an expert group, whose
 * all-to-alls carry the routed tokens, and the replicas d = e mod EP hold
 * the same experts (expert data parallelism), whose gradients they
 * synchronise among themselves.
 *
 * The groups, by kind (DtsMeshGroup). Groups of every kind are numbered
 * stage by stage; within a stage, by their outer index and then by tensor
 * rank (the order their communicators are made in, which --dump-plan
 * shows):
 *
 *   tensor       the T ranks of one replica              R_s per stage
 *   context      C consecutive replicas, one tensor rank (R_s / C) x T
 *   data         every replica, one tensor rank          T
 *   expert       EP consecutive replicas, one tensor rank (R_s / EP) x T
 *   expert-data  replicas e, e + EP, ..., one tensor rank EP x T
 *
 * The mesh says where ranks are and which groups exist; what a group's
 * communicator carries (a layer's tensor-parallel collectives, a ring's
 * keys and values, the gradient buckets) is the schedule's (pipeline.c). */
#ifndef DTS_SCHEDULE_MESH_H
#define DTS_SCHEDULE_MESH_H

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  DTS_MESH_TENSOR,
  DTS_MESH_CONTEXT,
  DTS_MESH_DATA,
  DTS_MESH_EXPERT,
  DTS_MESH_EXPERT_DATA,
  DTS_MESH_N_GROUPS
} DtsMeshGroup;

typedef struct _DtsMesh DtsMesh;

/* A mesh of S stages with REPLICAS[s] replicas each (R_s, multiples of C
 * and of EP), T tensor ranks per replica, context rings of C replicas and
 * expert groups of EP; STAGES_INSIDE: the stages of a replica side by
 * side (every R_s equal). NULL with DTS_ERROR_USAGE where the degrees do
 * not compose (the message names them), or where the ranks would exceed
 * G_MAXINT. */
DtsMesh *dts_mesh_new (int S, const int *replicas, int T, int C, int EP, gboolean stages_inside,
                       GError **error);
void dts_mesh_free (DtsMesh *mesh);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsMesh, dts_mesh_free)

int dts_mesh_n_ranks (const DtsMesh *mesh);
/* The group size of KIND (on STAGE: data's is R_s). */
int dts_mesh_group_size (const DtsMesh *mesh, DtsMeshGroup kind, int stage);

/* The rank of replica D of stage S's tensor rank T. */
int dts_mesh_rank (const DtsMesh *mesh, int stage, int d, int t);
/* The stage, replica and tensor rank of RANK (any pointer may be NULL);
 * FALSE where RANK is not in the mesh. */
gboolean dts_mesh_coords (const DtsMesh *mesh, int rank, int *stage, int *d, int *t);

/* Groups of KIND over the whole mesh, and those before STAGE's first. */
int dts_mesh_n_groups (const DtsMesh *mesh, DtsMeshGroup kind);
int dts_mesh_first_group (const DtsMesh *mesh, DtsMeshGroup kind, int stage);
/* The group of KIND that replica D of STAGE's tensor rank T belongs to. */
int dts_mesh_group_of (const DtsMesh *mesh, DtsMeshGroup kind, int stage, int d, int t);
/* The members of group G of KIND, in rank order within the group (the
 * order the collectives' plans number them: replica by replica, or for a
 * tensor group tensor rank by tensor rank) written to MEMBERS (room for
 * dts_mesh_group_size); returns their number and sets *STAGE. */
int dts_mesh_group_members (const DtsMesh *mesh, DtsMeshGroup kind, int g, int *stage,
                            int *members);
/* The communicator name of group G of KIND: stageS-tpD, stageS-cpK[-T],
 * stageS or stageS-dpT, stageS-epK[-T], stageS-edpE[-T] (the tensor rank
 * only where T > 1). Free with g_free. */
char *dts_mesh_group_name (const DtsMesh *mesh, DtsMeshGroup kind, int g);
/* "tensor", "context", "data", "expert", "expert-data" */
const char *dts_mesh_group_kind_name (DtsMeshGroup kind);

/* One line for --dump-plan: the degrees in placement order, innermost
 * first, e.g. "mesh: tensor 2 x context 1 x data 4 x pipeline 2 = 16
 * ranks, innermost first (replicas-inside)", the data degree per stage
 * where they differ ("data 3,1"), and "; experts over EP of data x
 * context" under expert parallelism. */
void dts_mesh_describe (const DtsMesh *mesh, GString *out);

G_END_DECLS

#endif
