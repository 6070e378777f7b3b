/* generate.h - write SimGrid platform files for GPU clusters from a few
 * parameters (`dtsim platform`).
 *
 * A generated platform is a plain SimGrid 4.1 file that follows dtsim's
 * conventions (every GPU host carries the properties `gpu` and `node`; rank
 * order is node-major). What it models, in dtsim's words:
 *  - a node holds GPUS_PER_NODE GPUs of one catalogue model, SOCKETS CPU
 *    sockets joined by inter-socket links, PCIE_SWITCHES PCIe switches per
 *    socket (0: GPUs on the root ports) and NICS_PER_NODE NICs;
 *  - intra-node GPU-to-GPU traffic goes over NVLink (a mesh of direct links,
 *    or one port per GPU into a non-blocking NVSwitch) or over the PCIe tree;
 *  - GPU g uses NIC g * NICS / GPUS (block affinity): its traffic to other
 *    nodes crosses the PCIe path from the GPU to that NIC, then the NIC's
 *    cable to its switch;
 *  - nodes are joined by one switch, a fat-tree, a torus or a dragonfly,
 *    described with SimGrid's cluster parameters (see doc/PLATFORMS-GENERATED.md
 *    for the representation and its limits).
 * Generation is deterministic: the same parameters give the same bytes. */
#ifndef DTS_PLATFORM_GENERATE_H
#define DTS_PLATFORM_GENERATE_H

#include <glib.h>
#include "platform/gpu.h"

G_BEGIN_DECLS

typedef enum {
  DTS_INTRA_FROM_GPU = -1, /* not given: the GPU's system class says (generate.c) */
  DTS_INTRA_PCIE,        /* GPU peer traffic over the PCIe tree */
  DTS_INTRA_NVLINK_MESH, /* direct NVLinks between GPU pairs */
  DTS_INTRA_NVSWITCH,    /* one NVLink port per GPU into a non-blocking switch */
} DtsIntraKind;

typedef enum {
  DTS_TOPO_SWITCH,    /* one non-blocking switch */
  DTS_TOPO_FAT_TREE,  /* SimGrid FAT_TREE parameters "L;down..;up..;parallel.." */
  DTS_TOPO_TORUS,     /* SimGrid TORUS parameters "X,Y,Z" (one node per vertex) */
  DTS_TOPO_DRAGONFLY, /* SimGrid DRAGONFLY parameters "G,g;C,c;R,r;N" */
} DtsTopoKind;

/* Kebab-case ids, in the tables' order ("pcie", "nvlink-mesh", "nvswitch";
 * "switch", "fat-tree", "torus", "dragonfly"). */
const char *dts_intra_kind_to_string (DtsIntraKind kind);
gboolean dts_intra_kind_from_string (const char *s, DtsIntraKind *out, GError **error);
const char *dts_topo_kind_to_string (DtsTopoKind kind);
gboolean dts_topo_kind_from_string (const char *s, DtsTopoKind *out, GError **error);

typedef struct {
  char *title;             /* one line for the file header; NULL: derived */
  char *command;           /* how the file was made, for the header; may be NULL */

  int nodes;
  int gpus_per_node;
  char *gpu;               /* catalogue id */

  /* Zero, DTS_INTRA_FROM_GPU or -1 below: not given, taken from the GPU's
   * system class (generate.c's table: an HGX A100's NVSwitch ports, PCIe
   * generation and switches), which the header then names. */
  DtsIntraKind intra;
  double intra_bw_Bps;     /* nvlink-mesh: per NVLink; nvswitch: per GPU port */
  double intra_lat_s;      /* per NVLink hop */
  char *nvlink_pairs;      /* nvlink-mesh: "full", "dgx1-v100", "dgx1-p100" or "A-B[:N],..." */

  int sockets;
  int pcie_switches;       /* per socket; 0 = GPUs and NICs on the root ports; -1: class */
  double pcie_bw_Bps, pcie_lat_s;     /* every PCIe link (GPU, NIC, switch uplink) */
  double socket_bw_Bps, socket_lat_s; /* link between two sockets (QPI/UPI) */

  int nics_per_node;
  double nic_bw_Bps, nic_lat_s;       /* the NIC's cable to its switch */
  gboolean nic_at_cpu;     /* NICs on the sockets' root ports, not under the switches */

  DtsTopoKind topology;
  char *topo_params;       /* SimGrid-style parameters; NULL = derived (fat-tree, torus) */
  int switch_radix;        /* ports per switch, for a derived fat-tree */
  double link_bw_Bps;      /* switch-to-switch cables; 0 = nic_bw_Bps */
  double link_lat_s;       /* per switch-to-switch hop */
  double oversubscription; /* fat-tree: leaf uplinks carry 1/R of their cables' bandwidth */

  gboolean cpu_hosts;      /* the sockets are hosts (for parameter servers), not routers */
  double cpu_speed_flops;
  double cpu_mem_bw_Bps;   /* a socket host's memory bandwidth (property mem_bw); 0 = none */
} DtsGenParams;

/* Defaults (documented in `dtsim platform --help`); strings NULL. */
void dts_gen_params_init (DtsGenParams *p);
void dts_gen_params_clear (DtsGenParams *p);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (DtsGenParams, dts_gen_params_clear)

/* Validate P against CATALOG and return the platform file's text (owned).
 * Errors: DTS_ERROR_INVALID naming the parameter and what was expected. */
char *dts_platform_generate (const DtsGenParams *p, const DtsGpuCatalog *catalog,
                             GError **error);

G_END_DECLS

#endif
