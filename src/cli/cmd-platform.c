/* cmd-platform.c - `dtsim platform`: write a SimGrid platform file for a GPU
 * cluster from a few parameters (src/platform/generate.c has the model).
 *
 * Every quantity takes dtsim's units (25GB/s, 100Gbps, 1us); the defaults are
 * those of dts_gen_params_init() and are printed by --help. Bad parameters
 * are usage errors (exit status 2). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli-private.h"
#include "core/error.h"
#include "core/outfile.h"
#include "core/units.h"
#include "platform/generate.h"
#include "platform/gpu.h"

/* An option that takes a quantity with a unit: its text as given, where
 * the parsed SI value goes, and whether 0 is refused here. The generator
 * checks the values too, but reads a zero --link-bandwidth as "not given"
 * (the NIC bandwidth): an explicit 0 must not silently become that. */
typedef struct {
  const char *option;
  DtsUnitKind kind;
  char *const *text;
  double *target;
  gboolean positive;
} Quantity;

static gboolean
usage_error (GError **error, GError *cause, const char *option)
{
  if (option)
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--%s: %s (see 'dtsim platform --help')",
                 option, cause->message);
  else
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "%s (see 'dtsim platform --help')",
                 cause->message);
  return FALSE;
}

gboolean
dts_cmd_platform (int argc, char **argv, GError **error)
{
  g_auto (DtsGenParams) p;
  dts_gen_params_init (&p);
  g_autofree char *output = NULL;
  g_autofree char *intra = NULL;
  g_autofree char *topology = NULL;
  g_autofree char *oversub = NULL;
  g_autofree char *nics = NULL;
  g_autofree char *t_pcie_sw = NULL;
  g_autofree char *t_intra_bw = NULL, *t_intra_lat = NULL, *t_pcie_bw = NULL,
                  *t_pcie_lat = NULL, *t_sock_bw = NULL, *t_sock_lat = NULL, *t_nic_bw = NULL,
                  *t_nic_lat = NULL, *t_link_bw = NULL, *t_link_lat = NULL, *t_cpu_speed = NULL,
                  *t_cpu_mem_bw = NULL;
  const Quantity q[] = {
    { "intra-bandwidth", DTS_UNIT_BANDWIDTH, &t_intra_bw, &p.intra_bw_Bps, TRUE },
    { "intra-latency", DTS_UNIT_TIME, &t_intra_lat, &p.intra_lat_s, FALSE },
    { "pcie-bandwidth", DTS_UNIT_BANDWIDTH, &t_pcie_bw, &p.pcie_bw_Bps, TRUE },
    { "pcie-latency", DTS_UNIT_TIME, &t_pcie_lat, &p.pcie_lat_s, FALSE },
    { "socket-bandwidth", DTS_UNIT_BANDWIDTH, &t_sock_bw, &p.socket_bw_Bps, TRUE },
    { "socket-latency", DTS_UNIT_TIME, &t_sock_lat, &p.socket_lat_s, FALSE },
    { "nic-bandwidth", DTS_UNIT_BANDWIDTH, &t_nic_bw, &p.nic_bw_Bps, TRUE },
    { "nic-latency", DTS_UNIT_TIME, &t_nic_lat, &p.nic_lat_s, FALSE },
    { "link-bandwidth", DTS_UNIT_BANDWIDTH, &t_link_bw, &p.link_bw_Bps, TRUE },
    { "link-latency", DTS_UNIT_TIME, &t_link_lat, &p.link_lat_s, FALSE },
    { "cpu-speed", DTS_UNIT_FLOPS, &t_cpu_speed, &p.cpu_speed_flops, TRUE },
    { "cpu-mem-bw", DTS_UNIT_BANDWIDTH, &t_cpu_mem_bw, &p.cpu_mem_bw_Bps, TRUE },
    { "oversubscription", DTS_UNIT_NONE, &oversub, &p.oversubscription, FALSE },
  };
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE (default: stdout)",
      "FILE" },
    { "title", 0, 0, G_OPTION_ARG_STRING, &p.title,
      "First lines of the header comment (default: a summary)", "TEXT" },
    { "nodes", 0, 0, G_OPTION_ARG_INT, &p.nodes, "Number of nodes (default: 1)", "N" },
    { "gpus-per-node", 0, 0, G_OPTION_ARG_INT, &p.gpus_per_node,
      "GPUs per node (default: 8)", "N" },
    { "gpu", 0, 0, G_OPTION_ARG_STRING, &p.gpu,
      "GPU model, a catalogue id such as V100-SXM2-16GB (required)", "ID" },
    { "intra", 0, 0, G_OPTION_ARG_STRING, &intra,
      "Peer fabric inside a node: pcie, nvlink-mesh or nvswitch (default: the GPU's system "
      "class: nvswitch for A100, H100, H200 and B200 SXM and GB200, else pcie)",
      "FABRIC" },
    { "intra-bandwidth", 0, 0, G_OPTION_ARG_STRING, &t_intra_bw,
      "nvlink-mesh: per NVLink; nvswitch: per GPU port; per direction (default: NVSwitch "
      "ports of 300GB/s for A100 SXM, 450GB/s for H100/H200 SXM, 900GB/s for B200 SXM and "
      "GB200; NVLinks of 25GB/s, 50GB/s on Blackwell)",
      "BW" },
    { "intra-latency", 0, 0, G_OPTION_ARG_STRING, &t_intra_lat,
      "Latency per NVLink hop (default: 1us)", "T" },
    { "nvlink-pairs", 0, 0, G_OPTION_ARG_STRING, &p.nvlink_pairs,
      "nvlink-mesh: full, dgx1-v100, dgx1-p100 or pairs A-B[:LINKS],... (default: full)",
      "SPEC" },
    { "sockets", 0, 0, G_OPTION_ARG_INT, &p.sockets, "CPU sockets per node (default: 2)", "N" },
    { "pcie-switches", 0, 0, G_OPTION_ARG_STRING, &t_pcie_sw,
      "PCIe switches per socket, 0 for root ports (default: 2 for A100, H100, H200 and "
      "B200 SXM, each with its GPUs' NICs; else 0)",
      "N" },
    { "pcie-bandwidth", 0, 0, G_OPTION_ARG_STRING, &t_pcie_bw,
      "Every PCIe link, per direction (default: by the GPU: 63GB/s PCIe 5.0 x16 for Hopper and "
      "Blackwell, 31.5GB/s 4.0 for Ampere and Ada, else 15.75GB/s 3.0)",
      "BW" },
    { "pcie-latency", 0, 0, G_OPTION_ARG_STRING, &t_pcie_lat,
      "Latency per PCIe link (default: 1us)", "T" },
    { "socket-bandwidth", 0, 0, G_OPTION_ARG_STRING, &t_sock_bw,
      "Link between two sockets, per direction (default: 19.2GB/s, one QPI link)", "BW" },
    { "socket-latency", 0, 0, G_OPTION_ARG_STRING, &t_sock_lat,
      "Latency between sockets (default: 1us)", "T" },
    { "nics-per-node", 0, 0, G_OPTION_ARG_STRING, &nics,
      "NICs per node; GPU g uses NIC g*NICS/GPUS (default: 1, or 0 for one node)", "N" },
    { "nic-bandwidth", 0, 0, G_OPTION_ARG_STRING, &t_nic_bw,
      "Each NIC's cable to its switch, per direction (default: 100Gbps)", "BW" },
    { "nic-latency", 0, 0, G_OPTION_ARG_STRING, &t_nic_lat,
      "Latency of a NIC's cable (default: 1us)", "T" },
    { "nic-at-cpu", 0, 0, G_OPTION_ARG_NONE, &p.nic_at_cpu,
      "Put NICs on the sockets' root ports rather than under the PCIe switches", NULL },
    { "topology", 0, 0, G_OPTION_ARG_STRING, &topology,
      "Between nodes: switch, fat-tree, torus or dragonfly (default: switch)", "TOPO" },
    { "topo-params", 0, 0, G_OPTION_ARG_STRING, &p.topo_params,
      "SimGrid cluster parameters: fat-tree L;DOWN..;UP..;PAR.., torus X,Y,.., dragonfly "
      "G,g;C,c;R,r;N (default: derived for fat-tree and torus)",
      "PARAMS" },
    { "switch-radix", 0, 0, G_OPTION_ARG_INT, &p.switch_radix,
      "Ports per switch of a derived fat-tree (default: 40)", "N" },
    { "link-bandwidth", 0, 0, G_OPTION_ARG_STRING, &t_link_bw,
      "Switch-to-switch cable, per direction (default: the NIC bandwidth)", "BW" },
    { "link-latency", 0, 0, G_OPTION_ARG_STRING, &t_link_lat,
      "Latency per switch-to-switch hop (default: 100ns)", "T" },
    { "oversubscription", 0, 0, G_OPTION_ARG_STRING, &oversub,
      "Fat-tree: leaf uplinks carry 1/R of their cables' bandwidth (default: 1)", "R" },
    { "cpus", 0, 0, G_OPTION_ARG_NONE, &p.cpu_hosts,
      "Make each socket a host (property role=cpu), e.g. for parameter servers", NULL },
    { "cpu-speed", 0, 0, G_OPTION_ARG_STRING, &t_cpu_speed,
      "Speed of a socket host (default: 1TFLOPS)", "F" },
    { "cpu-mem-bw", 0, 0, G_OPTION_ARG_STRING, &t_cpu_mem_bw,
      "Memory bandwidth of a socket host (property mem_bw: prices parameter-server updates "
      "with --ps-placement cpus; default: none)",
      "BW" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  g_option_context_set_summary (
      ctx, "Write a SimGrid platform file for a GPU cluster: nodes of GPUs joined by\n"
           "NVLink or PCIe, NICs, and a switch, fat-tree, torus or dragonfly between\n"
           "nodes. Every GPU host carries the properties gpu and node. The file is\n"
           "deterministic and its header lists every parameter.\n"
           "Example: dtsim platform --nodes 4 --gpus-per-node 8 --gpu A100-SXM4-40GB\n"
           "         --intra nvswitch --intra-bandwidth 300GB/s --nics-per-node 8\n"
           "         --nic-bandwidth 200Gbps --pcie-switches 2 --topology fat-tree");
  dts_cli_add_entries (ctx, entries);
  gboolean help = FALSE;
  if (!dts_cli_parse (ctx, "platform", &argc, &argv, &help, error))
    return FALSE;
  if (help)
    return TRUE;
  if (!dts_cli_no_arguments (argc, argv, "platform", error))
    return FALSE;

  g_autoptr (GError) local = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (q); i++) {
    if (*q[i].text && !dts_units_parse (*q[i].text, q[i].kind, q[i].target, &local))
      return usage_error (error, local, q[i].option);
    if (*q[i].text && q[i].positive && *q[i].target == 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--%s must be positive (see 'dtsim platform --help')", q[i].option);
      return FALSE;
    }
  }
  /* A string, not G_OPTION_ARG_INT: the generator's default (derived) is
   * -1, which an explicit --nics-per-node -1 must not select. */
  if (!dts_cli_parse_int_option ("nics-per-node", nics, 0, 4096, &p.nics_per_node, &local))
    return usage_error (error, local, NULL);
  /* A string too: the default (-1) is the GPU's system class. */
  if (!dts_cli_parse_int_option ("pcie-switches", t_pcie_sw, 0, 64, &p.pcie_switches, &local))
    return usage_error (error, local, NULL);
  if (intra && !dts_intra_kind_from_string (intra, &p.intra, &local))
    return usage_error (error, local, "intra");
  if (topology && !dts_topo_kind_from_string (topology, &p.topology, &local))
    return usage_error (error, local, "topology");

  g_autoptr (DtsGpuCatalog) catalog = dts_gpu_catalog_load (NULL, error);
  if (catalog == NULL)
    return FALSE;
  g_autofree char *text = dts_platform_generate (&p, catalog, &local);
  if (text == NULL)
    return usage_error (error, local, NULL);

  if (output == NULL || strcmp (output, "-") == 0) {
    fputs (text, stdout);
    return TRUE;
  }
  /* Atomically: two writers of the same file leave one complete file. */
  return dts_outfile_write (output, text, strlen (text), "platform", error);
}
