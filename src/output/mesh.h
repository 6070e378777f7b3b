/* mesh.h - the rank mesh on the platform, for teaching 3D parallelism
 * (`dtsim run --mesh FILE.svg`, `--mesh-ascii`).
 *
 * Which GPUs form the tensor-parallel groups, the pipelines and the
 * data-parallel groups, node by node: every GPU is a cell inside its node,
 * coloured by pipeline stage and labelled with its coordinates (p stage,
 * d data-parallel replica, t tensor rank). A tensor group is the GPUs that
 * share p and d; a pipeline the GPUs that share d and t, one per stage;
 * a data-parallel group (the gradients' all-reduce) the GPUs that share p
 * and t. Under the picture, per kind of group, how many of the groups lie
 * inside one node and how many cross nodes (their traffic then crosses the
 * NICs), and for pipelines how many stage-to-stage hops cross nodes.
 *
 * Drawn from the run summary's mesh (trace.h, DtsMeshRank): the nodes in
 * rank order, up to DTS_MESH_MAX_NODES of them (the counts cover every
 * node). Deterministic; the SVG follows output/svg.h's house style. */
#ifndef DTS_OUTPUT_MESH_H
#define DTS_OUTPUT_MESH_H

#include <glib.h>
#include "trace/trace.h"

G_BEGIN_DECLS

#define DTS_MESH_MAX_NODES 32

/* S must have a mesh (S->mesh not NULL: not a parameter-server run). */
void dts_mesh_write_svg (const DtsRunSummary *s, GString *out);
/* The same as text: the groups' counts, then per node one line of cells
 * "p0d1t3". */
void dts_mesh_write_ascii (const DtsRunSummary *s, GString *out);

G_END_DECLS

#endif
