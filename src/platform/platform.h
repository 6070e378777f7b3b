/* platform.h - dtsim's view of a SimGrid platform file: which hosts are GPUs,
 * how they group into nodes, their rank order, and the links (for reports).
 *
 * The file is read with libxml2 (never SimGrid) so that every error has a file
 * and a line before the simulator starts. SimGrid semantics are unchanged; the
 * conventions on top (see doc/DESIGN.md):
 *  - a GPU is a host (or a <cluster> member) carrying, itself or through an
 *    enclosing zone/cluster, the property `gpu` = catalogue id; optional
 *    properties override catalogue fields: `flops_fp32`, `flops_tf32`,
 *    `flops_fp16`, `flops_bf16` (FLOP/s units), `mem_bw` (bandwidth), `mem` (bytes);
 *  - nodes: the property `node`, else the innermost enclosing zone or cluster;
 *  - rank order: (node order of first appearance, numeric-aware host name)
 *    unless every GPU carries a `rank` property (then 0..N-1, each once);
 *  - a CPU host is a host without `gpu` that carries `role` = cpu or ps
 *    (`dtsim platform --cpus` makes the sockets such hosts): parameter
 *    servers may run there (--ps-placement cpus); its `mem_bw` property is
 *    the memory bandwidth their updates are priced at. */
#ifndef DTS_PLATFORM_PLATFORM_H
#define DTS_PLATFORM_PLATFORM_H

#include <glib.h>
#include "platform/gpu.h"

G_BEGIN_DECLS

typedef struct {
  char *host;        /* SimGrid host name */
  int rank;          /* index in DtsPlatform.gpus */
  int node;          /* index in DtsPlatform.nodes */
  int local_index;   /* index within its node */
  int line;          /* line of the declaring element */
  DtsGpuSpec spec;   /* catalogue entry with this host's overrides applied (owned) */
} DtsGpu;

/* Nodes are ordered by their smallest rank. With the default rank order a
 * node's ranks are first_rank .. first_rank + n_gpus - 1; with `rank`
 * properties they need not be contiguous: RANKS lists them. */
typedef struct {
  char *name;        /* node property or zone/cluster id */
  int first_rank;    /* smallest rank on the node */
  int n_gpus;
  GArray *ranks;     /* int, ascending (owned) */
} DtsNode;

typedef struct {
  char *name;             /* link id; for cluster-generated links a pattern, e.g. "c0_link_*" */
  double bandwidth_Bps;   /* per direction for SPLITDUPLEX */
  double latency_s;
  char *sharing;          /* "SHARED", "SPLITDUPLEX", "FATPIPE" (or "WIFI") */
  int count;              /* how many links this row stands for (clusters); 0 when a
                           * TORUS/FAT_TREE/DRAGONFLY cluster generates them */
  int line;
} DtsLink;

/* A CPU host (role=cpu or role=ps), in document order. */
typedef struct {
  char *host;        /* SimGrid host name */
  char *node_name;   /* node property or zone/cluster id */
  int node;          /* index in DtsPlatform.nodes, -1 when no GPU is on its node */
  gboolean ps;       /* role=ps: preferred for parameter servers */
  double mem_bw_Bps; /* property mem_bw; 0 when absent */
  int line;
} DtsCpu;

typedef struct {
  char *path;
  GArray *gpus;   /* DtsGpu, index = rank */
  GArray *cpus;   /* DtsCpu, document order (possibly empty) */
  GArray *nodes;  /* DtsNode */
  GArray *links;  /* DtsLink, document order */
} DtsPlatform;

/* Load and validate PATH (a file path; resolve shipped names with
 * dts_datadir_resolve() first). Unknown GPU ids, malformed or negative
 * values, zero GPUs, duplicate or gapped ranks are DTS_ERROR errors with
 * "platform 'PATH': line N: ...". So is whatever would make SimGrid 3.32
 * refuse or abort on the file and that can be seen without it: a missing
 * DOCTYPE, unknown elements or attributes, values SimGrid's unit parser
 * rejects, zones holding both sub-zones and hosts, duplicate names,
 * routes through undeclared links or between undeclared hosts. */
DtsPlatform *dts_platform_load (const char *path, const DtsGpuCatalog *catalog, GError **error);
void dts_platform_free (DtsPlatform *platform);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsPlatform, dts_platform_free)

/* Where parameter servers go with --ps-placement cpus: the indices into
 * PLATFORM->cpus of its role=ps hosts, then of its role=cpu hosts; within
 * each, round-robin over the nodes (the first CPU of every node in node
 * order, then the second, ...; hosts off the GPUs' nodes last, in document
 * order). Returns a new array (possibly empty). */
GArray *dts_platform_server_hosts (const DtsPlatform *platform);

/* How many nodes the first N_RANKS ranks span. */
int dts_platform_count_nodes (const DtsPlatform *platform, int n_ranks);

static inline const DtsGpu *
dts_platform_gpu (const DtsPlatform *p, int rank)
{
  return &g_array_index (p->gpus, DtsGpu, rank);
}

G_END_DECLS

#endif
