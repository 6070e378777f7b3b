/* test-generate.c - generated platforms: GPU count and node grouping through
 * dtsim's loader, routes (link count, bottleneck bandwidth, latency) through
 * SimGrid, for each intra-node fabric and each topology; parameter errors.
 *
 * SimGrid's engine runs once per process: every test that reads routes runs
 * in its own forked process (Check's default) and queries all its pairs at
 * once. */
#include "config.h"

#include <string.h>

#include "core/error.h"
#include "platform/generate.h"
#include "platform/platform.h"
#include "sim/routes.h"
#include "testlib.h"

/* 4 nodes x 4 V100, 2 sockets with one PCIe switch each (GPUs 0-1 and the
 * NIC under switch 0, GPUs 2-3 under switch 1), one 100 Gb/s NIC. */
static void
base_params (DtsGenParams *p)
{
  dts_gen_params_init (p);
  p->nodes = 4;
  p->gpus_per_node = 4;
  p->gpu = g_strdup ("V100-SXM2-16GB");
  p->pcie_switches = 1;
}

static char *
generate_ok (const DtsGenParams *p)
{
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  g_autoptr (GError) error = NULL;
  char *text = dts_platform_generate (p, cat, &error);
  ck_assert_msg (text != NULL, "%s", error ? error->message : "");
  return text;
}

/* Write P's platform to a file and check it through dtsim's loader:
 * NODES nodes of GPUS GPUs each, in node-major rank order. */
static char *
generate_file (const DtsGenParams *p, int nodes, int gpus)
{
  g_autofree char *text = generate_ok (p);
  char *path = dts_test_write_tmp (text, ".xml");
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsPlatform) plat = dts_platform_load (path, cat, &error);
  ck_assert_msg (plat != NULL, "%s", error ? error->message : "");
  ck_assert_int_eq (plat->gpus->len, nodes * gpus);
  ck_assert_int_eq (plat->nodes->len, nodes);
  for (int n = 0; n < nodes; n++) {
    const DtsNode *node = &g_array_index (plat->nodes, DtsNode, n);
    g_autofree char *name = g_strdup_printf ("node%d", n);
    ck_assert_str_eq (node->name, name);
    ck_assert_int_eq (node->n_gpus, gpus);
    ck_assert_int_eq (node->first_rank, n * gpus);
  }
  for (int r = 0; r < nodes * gpus; r++) {
    const DtsGpu *g = dts_platform_gpu (plat, r);
    g_autofree char *host = g_strdup_printf ("node%d-gpu%d", r / gpus, r % gpus);
    ck_assert_str_eq (g->host, host);
    ck_assert_int_eq (g->node, r / gpus);
    ck_assert_str_eq (g->spec.id, p->gpu);
  }
  return path;
}

typedef struct {
  const char *src, *dst;
  guint links;
  double bw_Bps;
  double lat_s;
} Expect;

/* Check the SimGrid routes of every pair of EXPECT (terminated by src NULL). */
static void
check_routes (const char *path, const Expect *expect)
{
  g_autoptr (GPtrArray) src = g_ptr_array_new ();
  g_autoptr (GPtrArray) dst = g_ptr_array_new ();
  for (const Expect *e = expect; e->src; e++) {
    g_ptr_array_add (src, (gpointer) e->src);
    g_ptr_array_add (dst, (gpointer) e->dst);
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) routes = dts_sim_routes (path, NULL, (const char *const *) src->pdata,
                                              (const char *const *) dst->pdata, src->len, &error);
  ck_assert_msg (routes != NULL, "%s", error ? error->message : "");
  for (guint i = 0; i < src->len; i++) {
    const DtsRoute *r = &g_array_index (routes, DtsRoute, i);
    const Expect *e = &expect[i];
    g_autoptr (GString) names = g_string_new (NULL);
    for (guint k = 0; k < r->links->len; k++)
      g_string_append_printf (names, " %s", g_array_index (r->links, DtsRouteLink, k).name);
    ck_assert_msg (r->links->len == e->links, "%s -> %s: %u links, expected %u:%s", e->src,
                   e->dst, r->links->len, e->links, names->str);
    ck_assert_msg (G_APPROX_VALUE (r->bottleneck_Bps, e->bw_Bps, 1.0),
                   "%s -> %s: bottleneck %g B/s, expected %g:%s", e->src, e->dst,
                   r->bottleneck_Bps, e->bw_Bps, names->str);
    ck_assert_double_eq_tol (r->latency_s, e->lat_s, 1e-12);
  }
}

static const double PCIE = 15.75e9, NIC = 12.5e9, US = 1e-6, HOP = 1e-7;

START_TEST (test_pcie_switch)
{
  g_auto (DtsGenParams) p;
  base_params (&p);
  g_autofree char *path = generate_file (&p, 4, 4);
  const Expect e[] = {
    /* same PCIe switch: GPU link up, peer's GPU link down */
    { "node0-gpu0", "node0-gpu1", 2, PCIE, 2 * US },
    /* across sockets: GPU, switch uplink, QPI, switch uplink, GPU */
    { "node0-gpu0", "node0-gpu2", 5, PCIE, 5 * US },
    /* other node: GPU, NIC's PCIe, NIC cable, and back down on the other side */
    { "node0-gpu0", "node1-gpu0", 6, NIC, 6 * US },
    /* GPU 3 reaches NIC 0 (socket 0) across QPI on both sides */
    { "node0-gpu3", "node3-gpu3", 12, NIC, 12 * US },
    { NULL, NULL, 0, 0, 0 },
  };
  check_routes (path, e);
}
END_TEST

START_TEST (test_pcie_root_ports_cpus)
{
  /* No PCIe switches: GPUs on the sockets' root ports; sockets are hosts. */
  g_auto (DtsGenParams) p;
  base_params (&p);
  p.pcie_switches = 0;
  p.cpu_hosts = TRUE;
  p.socket_bw_Bps = 10e9;
  g_autofree char *path = generate_file (&p, 4, 4);
  const Expect e[] = {
    { "node0-gpu0", "node0-gpu1", 2, PCIE, 2 * US },
    { "node0-gpu0", "node0-gpu3", 3, 10e9, 3 * US },
    { "node0-gpu2", "node0-cpu1", 1, PCIE, 1 * US },
    { "node0-gpu0", "node0-cpu1", 2, 10e9, 2 * US },
    /* parameter-server traffic: socket 1 to a GPU of another node */
    { "node0-cpu1", "node2-gpu1", 3 + 3, 10e9, 6 * US },
    { NULL, NULL, 0, 0, 0 },
  };
  check_routes (path, e);
}
END_TEST

START_TEST (test_nvlink_mesh)
{
  g_auto (DtsGenParams) p;
  base_params (&p);
  p.intra = DTS_INTRA_NVLINK_MESH;
  p.nvlink_pairs = g_strdup ("0-1:2,1-2,2-3,0-3");
  g_autofree char *path = generate_file (&p, 4, 4);
  const Expect e[] = {
    { "node0-gpu0", "node0-gpu1", 1, 50e9, 1 * US },
    { "node0-gpu2", "node0-gpu3", 1, 25e9, 1 * US },
    /* no direct link: two NVLink hops */
    { "node0-gpu0", "node0-gpu2", 2, 25e9, 2 * US },
    { "node1-gpu1", "node2-gpu0", 6, NIC, 6 * US },
    { NULL, NULL, 0, 0, 0 },
  };
  check_routes (path, e);
}
END_TEST

START_TEST (test_nvlink_dgx1)
{
  g_auto (DtsGenParams) p;
  base_params (&p);
  p.nodes = 2;
  p.gpus_per_node = 8;
  p.pcie_switches = 2;
  p.nics_per_node = 4;
  p.intra = DTS_INTRA_NVLINK_MESH;
  p.nvlink_pairs = g_strdup ("dgx1-v100");
  g_autofree char *path = generate_file (&p, 2, 8);
  const Expect e[] = {
    { "node0-gpu0", "node0-gpu3", 1, 50e9, 1 * US },
    { "node0-gpu0", "node0-gpu1", 1, 25e9, 1 * US },
    { "node0-gpu0", "node0-gpu5", 2, 25e9, 2 * US },
    /* every GPU's NIC is under its own PCIe switch */
    { "node0-gpu7", "node1-gpu6", 6, NIC, 6 * US },
    { NULL, NULL, 0, 0, 0 },
  };
  check_routes (path, e);
}
END_TEST

START_TEST (test_nvswitch)
{
  g_auto (DtsGenParams) p;
  base_params (&p);
  p.intra = DTS_INTRA_NVSWITCH;
  p.intra_bw_Bps = 150e9;
  p.intra_lat_s = 0.5e-6;
  g_autofree char *path = generate_file (&p, 4, 4);
  const Expect e[] = {
    { "node0-gpu0", "node0-gpu3", 2, 150e9, 1 * US },
    { "node2-gpu0", "node3-gpu1", 6, NIC, 6 * US },
    /* GPU 3's NIC is across QPI: NVLink to GPU 0, then its PCIe path has
     * fewer links (5 instead of 6 per side) */
    { "node0-gpu3", "node1-gpu3", 10, NIC, 2 * (2 * 0.5 + 3) * US },
    { NULL, NULL, 0, 0, 0 },
  };
  check_routes (path, e);
}
END_TEST

/* 4 nodes x 4 GPUs x 4 NICs (one per GPU, on the GPU's PCIe switch). */
static void
nvswitch_4nics (DtsGenParams *p)
{
  base_params (p);
  p->intra = DTS_INTRA_NVSWITCH;
  p->intra_bw_Bps = 150e9;
  p->nics_per_node = 4;
}

START_TEST (test_fat_tree_2_levels)
{
  g_auto (DtsGenParams) p;
  nvswitch_4nics (&p);
  p.topology = DTS_TOPO_FAT_TREE;
  p.topo_params = g_strdup ("2;4,4;1,4;1,1"); /* one node per leaf, 4 spines */
  g_autofree char *path = generate_file (&p, 4, 4);
  const Expect e[] = {
    { "node0-gpu1", "node0-gpu2", 2, 150e9, 2 * US },
    { "node0-gpu0", "node1-gpu0", 8, NIC, 6 * US + 2 * HOP },
    { "node3-gpu3", "node2-gpu1", 8, NIC, 6 * US + 2 * HOP },
    { NULL, NULL, 0, 0, 0 },
  };
  check_routes (path, e);
}
END_TEST

/* One switch with more nodes than one Floyd zone takes (5 vertices per
 * node: 4 GPUs and the NVSwitch; 512 at most) is written as a tree of
 * zones: parts of 12 nodes, 32 parts per zone. Every route crosses the
 * links it crosses in one zone, plus a backplane link (up and down) for
 * each level it climbs, which neither limits it nor adds latency. */
START_TEST (test_switch_split)
{
  g_auto (DtsGenParams) p;
  nvswitch_4nics (&p);
  p.nodes = 100; /* 501 vertices: one zone, as ever */
  g_autofree char *small = generate_ok (&p);
  ck_assert (strstr (small, "backplane") == NULL);
  ck_assert (strstr (small, "<zone id=\"cluster\" routing=\"Floyd\">") != NULL);
  /* 400 nodes: cluster-0 holds 32 parts of 12 nodes (0..383), cluster-1
   * two (384..395, 396..399) */
  p.nodes = 400;
  g_autofree char *text = generate_ok (&p);
  ck_assert (strstr (text, "DijkstraCache") == NULL);
  ck_assert (strstr (text, "<zone id=\"cluster-0-31\" routing=\"Floyd\">") != NULL);
  ck_assert (strstr (text, "<zone id=\"cluster-0-32\"") == NULL);
  ck_assert (strstr (text, "<!-- part 1 of cluster-1: nodes 396..399 -->") != NULL);
  ck_assert (strstr (text, "<link id=\"cluster-1-backplane\" bandwidth=\"1000000000GBps\" "
                           "latency=\"0s\"")
             != NULL);
  g_autofree char *path = generate_file (&p, 400, 4);
  const Expect e[] = {
    { "node0-gpu0", "node0-gpu3", 2, 150e9, 2 * US },
    { "node0-gpu0", "node11-gpu2", 6, NIC, 6 * US },  /* the same part */
    { "node0-gpu0", "node12-gpu1", 8, NIC, 6 * US },  /* parts of cluster-0 */
    { "node383-gpu3", "node0-gpu0", 8, NIC, 6 * US },
    { "node0-gpu0", "node399-gpu3", 10, NIC, 6 * US }, /* cluster-0 to cluster-1 */
    { "node390-gpu2", "node397-gpu0", 8, NIC, 6 * US },
    { "node399-gpu1", "node384-gpu1", 8, NIC, 6 * US },
    { NULL, NULL, 0, 0, 0 },
  };
  check_routes (path, e);
}
END_TEST

START_TEST (test_fat_tree_oversubscribed)
{
  g_auto (DtsGenParams) p;
  nvswitch_4nics (&p);
  p.topology = DTS_TOPO_FAT_TREE;
  p.topo_params = g_strdup ("2;4,4;1,4;1,1");
  p.oversubscription = 8; /* 4 cables of 12.5 GB/s carry 6.25 GB/s */
  g_autofree char *path = generate_file (&p, 4, 4);
  const Expect e[] = {
    { "node0-gpu0", "node0-gpu3", 2, 150e9, 2 * US },
    { "node0-gpu0", "node1-gpu0", 8, NIC / 2, 6 * US + 2 * HOP },
    { NULL, NULL, 0, 0, 0 },
  };
  check_routes (path, e);
}
END_TEST

START_TEST (test_fat_tree_3_levels)
{
  g_auto (DtsGenParams) p;
  base_params (&p);
  p.nodes = 8;
  p.gpus_per_node = 2;
  p.intra = DTS_INTRA_PCIE;
  p.topology = DTS_TOPO_FAT_TREE;
  p.topo_params = g_strdup ("3;2,2,2;1,2,2;1,1,1");
  p.link_bw_Bps = 5e9; /* level-2 uplinks: 2 cables, level 3: 4 cables */
  g_autofree char *path = generate_file (&p, 8, 2);
  const Expect e[] = {
    { "node0-gpu0", "node1-gpu0", 6, NIC, 6 * US },
    { "node0-gpu0", "node2-gpu0", 6 + 2, 10e9, 6 * US + 2 * HOP },
    { "node0-gpu0", "node7-gpu0", 6 + 4, 10e9, 6 * US + 4 * HOP },
    /* GPU 1 is on socket 1, its NIC on socket 0 */
    { "node0-gpu0", "node7-gpu1", 3 + 4 + 6, 10e9, 9 * US + 4 * HOP },
    { NULL, NULL, 0, 0, 0 },
  };
  check_routes (path, e);
}
END_TEST

START_TEST (test_fat_tree_derived)
{
  /* 64 nodes x 4 NICs on 16-port switches: leaves of 8 NICs (2 nodes),
   * 32 leaves > 16 ports: three levels. */
  g_auto (DtsGenParams) p;
  nvswitch_4nics (&p);
  p.nodes = 64;
  p.gpus_per_node = 4;
  p.topology = DTS_TOPO_FAT_TREE;
  p.switch_radix = 16;
  g_autofree char *text = generate_ok (&p);
  ck_assert_ptr_nonnull (strstr (text, "topo-params 3;8,8,4;1,8,8;1,1,1"));
  g_autofree char *path = generate_file (&p, 64, 4);
  const Expect e[] = {
    { "node0-gpu0", "node1-gpu0", 6 + 0, NIC, 6 * US },
    { "node0-gpu0", "node2-gpu0", 6 + 2, NIC, 6 * US + 2 * HOP },
    { "node0-gpu0", "node63-gpu3", 6 + 4, NIC, 6 * US + 4 * HOP },
    { NULL, NULL, 0, 0, 0 },
  };
  check_routes (path, e);
}
END_TEST

START_TEST (test_torus)
{
  g_auto (DtsGenParams) p;
  base_params (&p);
  p.nodes = 8;
  p.topology = DTS_TOPO_TORUS;
  p.topo_params = g_strdup ("4,2");
  p.link_lat_s = 0.5e-6;
  g_autofree char *path = generate_file (&p, 8, 4);
  const Expect e[] = {
    { "node0-gpu0", "node0-gpu1", 2, PCIE, 2 * US },
    { "node0-gpu0", "node1-gpu0", 7, NIC, 6.5 * US },
    { "node0-gpu0", "node3-gpu0", 7, NIC, 6.5 * US }, /* wraps around */
    { "node0-gpu0", "node6-gpu1", 6 + 3, NIC, 7.5 * US },
    { NULL, NULL, 0, 0, 0 },
  };
  check_routes (path, e);
}
END_TEST

START_TEST (test_dragonfly)
{
  /* 2 groups of 1 chassis of 2 routers, one node each: node0 and node3 are
   * joined by green (node0-node1), blue (node1-node2) and green links. */
  g_auto (DtsGenParams) p;
  base_params (&p);
  p.intra = DTS_INTRA_NVSWITCH;
  p.topology = DTS_TOPO_DRAGONFLY;
  p.topo_params = g_strdup ("2,1;1,1;2,2;1");
  g_autofree char *path = generate_file (&p, 4, 4);
  const Expect e[] = {
    { "node0-gpu0", "node0-gpu1", 2, 25e9, 2 * US },
    { "node0-gpu0", "node1-gpu0", 7, NIC, 6 * US + HOP },
    { "node0-gpu0", "node3-gpu1", 9, NIC, 6 * US + 3 * HOP },
    { NULL, NULL, 0, 0, 0 },
  };
  check_routes (path, e);
}
END_TEST

START_TEST (test_single_node)
{
  g_auto (DtsGenParams) p;
  base_params (&p);
  p.nodes = 1;
  p.intra = DTS_INTRA_NVSWITCH;
  g_autofree char *text = generate_ok (&p);
  ck_assert_ptr_null (strstr (text, "nic"));
  g_autofree char *path = generate_file (&p, 1, 4);
  const Expect e[] = {
    { "node0-gpu0", "node0-gpu3", 2, 25e9, 2 * US },
    { NULL, NULL, 0, 0, 0 },
  };
  check_routes (path, e);
}
END_TEST

START_TEST (test_deterministic)
{
  g_auto (DtsGenParams) p;
  nvswitch_4nics (&p);
  p.topology = DTS_TOPO_FAT_TREE;
  p.nodes = 24;
  g_autofree char *a = generate_ok (&p);
  g_autofree char *b = generate_ok (&p);
  ck_assert_str_eq (a, b);
  /* XML comments must not contain "--" */
  const char *c = a;
  while ((c = strstr (c, "<!--")) != NULL) {
    const char *end = strstr (c + 4, "-->");
    ck_assert_ptr_nonnull (end);
    g_autofree char *body = g_strndup (c + 4, end - c - 4);
    ck_assert_ptr_null (strstr (body, "--"));
    c = end;
  }
}
END_TEST

static void
generate_bad (const DtsGenParams *p, const char *fragment)
{
  g_autoptr (DtsGpuCatalog) cat = dts_test_gpu_catalog ();
  g_autoptr (GError) error = NULL;
  g_autofree char *text = dts_platform_generate (p, cat, &error);
  ck_assert_ptr_null (text);
  dts_test_assert_error (error, DTS_ERROR_INVALID, fragment, NULL);
}

START_TEST (test_errors)
{
  g_auto (DtsGenParams) p;
  base_params (&p);
  g_free (p.gpu);
  p.gpu = g_strdup ("V200");
  generate_bad (&p, "unknown GPU 'V200'");
  g_free (p.gpu);
  p.gpu = g_strdup ("V100-SXM2-16GB");

  p.nics_per_node = 0;
  generate_bad (&p, "4 nodes need at least one NIC");
  p.nics_per_node = 1;

  p.nic_bw_Bps = -1;
  generate_bad (&p, "--nic-bandwidth must be positive");
  p.nic_bw_Bps = 12.5e9;

  p.topology = DTS_TOPO_TORUS;
  p.topo_params = g_strdup ("3,2");
  generate_bad (&p, "has 6 vertices but there are 4 nodes");
  g_free (p.topo_params);

  p.topology = DTS_TOPO_FAT_TREE;
  p.topo_params = g_strdup ("2;2,1;1,2;1,1");
  generate_bad (&p, "connects 2 NICs, fewer than the 4");
  g_free (p.topo_params);
  p.topo_params = g_strdup ("2;4,4;2,4;1,1");
  generate_bad (&p, "UP and PARALLEL of level 1 must be 1");
  g_free (p.topo_params);
  p.topo_params = g_strdup ("2;4;1;1");
  generate_bad (&p, "expected LEVELS;DOWN");
  g_free (p.topo_params);
  p.nics_per_node = 2;
  p.topo_params = g_strdup ("2;3,4;1,3;1,1");
  generate_bad (&p, "3 NICs per leaf switch is not a multiple of the 2");
  g_clear_pointer (&p.topo_params, g_free);
  p.nics_per_node = 1;

  p.topology = DTS_TOPO_DRAGONFLY;
  generate_bad (&p, "needs --topo-params");
  p.topo_params = g_strdup ("2,1;1,1;2,1;2");
  generate_bad (&p, "connects 8 nodes, not 4");
  g_clear_pointer (&p.topo_params, g_free);

  p.topology = DTS_TOPO_SWITCH;
  p.oversubscription = 2;
  generate_bad (&p, "--oversubscription applies to --topology fat-tree only");
  p.oversubscription = 1;

  p.intra = DTS_INTRA_NVLINK_MESH;
  p.nvlink_pairs = g_strdup ("0-1,2-3");
  generate_bad (&p, "no NVLink path joins GPU 0 and GPU 2");
  g_free (p.nvlink_pairs);
  p.nvlink_pairs = g_strdup ("0-1,1-2,2-3,1-0");
  generate_bad (&p, "pair 0-1 is given twice");
  g_free (p.nvlink_pairs);
  p.nvlink_pairs = g_strdup ("0-4,1-2");
  generate_bad (&p, "pair 0-4 is not two distinct GPUs of 0..3");
  g_free (p.nvlink_pairs);
  p.nvlink_pairs = g_strdup ("0-x");
  generate_bad (&p, "'0-x' is not a GPU pair");
  g_free (p.nvlink_pairs);
  p.nvlink_pairs = g_strdup ("dgx1-v100");
  generate_bad (&p, "describes 8 GPUs, not 4");
}
END_TEST

START_TEST (test_kind_names)
{
  DtsIntraKind i;
  DtsTopoKind t;
  g_autoptr (GError) error = NULL;
  ck_assert (dts_intra_kind_from_string ("nvlink-mesh", &i, &error));
  ck_assert_int_eq (i, DTS_INTRA_NVLINK_MESH);
  ck_assert (dts_topo_kind_from_string ("dragonfly", &t, &error));
  ck_assert_str_eq (dts_topo_kind_to_string (t), "dragonfly");
  ck_assert (!dts_topo_kind_from_string ("hypercube", &t, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "unknown topology 'hypercube'",
                         "switch, fat-tree, torus, dragonfly", NULL);
}
END_TEST

/* Options not given come from the GPU's system class, and the header says
 * so: an A100 SXM4 node is an HGX A100 (NVSwitch ports of 300 GB/s, PCIe
 * 4.0 switches), an H100 SXM5 node NVLink 4 at 450 GB/s and PCIe 5.0, a
 * V100 keeps PCIe 3.0 on root ports; given values win. */
START_TEST (test_system_class)
{
  static const struct {
    const char *gpu;
    const char *intra, *ports, *pcie;
  } want[] = {
    { "A100-SXM4-80GB", "intra nvswitch, intra-bandwidth 300GBps", "pcie-switches 2",
      "pcie-bandwidth 31.5GBps" },
    { "H100-SXM5-80GB", "intra nvswitch, intra-bandwidth 450GBps", "pcie-switches 2",
      "pcie-bandwidth 63GBps" },
    { "B200-SXM-180GB", "intra nvswitch, intra-bandwidth 900GBps", "pcie-switches 2",
      "pcie-bandwidth 63GBps" },
    { "GB200-186GB", "intra nvswitch, intra-bandwidth 900GBps", "pcie-switches 0",
      "pcie-bandwidth 63GBps" },
    { "A100-PCIE-40GB", "intra pcie\n", "pcie-switches 0", "pcie-bandwidth 31.5GBps" },
    { "V100-SXM2-16GB", "intra pcie\n", "pcie-switches 0", "pcie-bandwidth 15.75GBps" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (want); i++) {
    g_auto (DtsGenParams) p;
    dts_gen_params_init (&p);
    p.nodes = 2;
    p.gpu = g_strdup (want[i].gpu);
    g_autofree char *text = generate_ok (&p);
    ck_assert_msg (strstr (text, want[i].intra) != NULL, "%s: %s", want[i].gpu, want[i].intra);
    ck_assert_msg (strstr (text, want[i].ports) != NULL, "%s: %s", want[i].gpu, want[i].ports);
    ck_assert_msg (strstr (text, want[i].pcie) != NULL, "%s: %s", want[i].gpu, want[i].pcie);
    /* said, except for the long-standing defaults of older GPUs */
    ck_assert_msg ((strstr (text, "system class") != NULL) == (i < 5), "%s: assumption said?",
                   want[i].gpu);
  }
  /* Given values win, and nothing is said to be assumed. */
  g_auto (DtsGenParams) p;
  dts_gen_params_init (&p);
  p.nodes = 2;
  p.gpu = g_strdup ("A100-SXM4-80GB");
  p.intra = DTS_INTRA_NVLINK_MESH;
  p.intra_bw_Bps = 50e9;
  p.pcie_switches = 0;
  p.pcie_bw_Bps = 15.75e9;
  g_autofree char *text = generate_ok (&p);
  ck_assert (strstr (text, "intra nvlink-mesh, intra-bandwidth 50GBps") != NULL);
  ck_assert (strstr (text, "pcie-switches 0, pcie-bandwidth 15.75GBps") != NULL);
  ck_assert (strstr (text, "system class") == NULL);
  /* nvlink-mesh without a bandwidth: the class's NVLink, not its NVSwitch port */
  g_auto (DtsGenParams) q;
  dts_gen_params_init (&q);
  q.gpu = g_strdup ("H100-SXM5-80GB");
  q.intra = DTS_INTRA_NVLINK_MESH;
  g_autofree char *mesh = generate_ok (&q);
  ck_assert (strstr (mesh, "intra nvlink-mesh, intra-bandwidth 25GBps") != NULL);
  /* the class names the server: HGX B200 for the SXM module, GB200 NVL72
   * (whose NVLink domain is 72 GPUs) for the superchip's GPU */
  g_auto (DtsGenParams) b;
  dts_gen_params_init (&b);
  b.gpu = g_strdup ("B200-SXM-180GB");
  g_autofree char *hgx = generate_ok (&b);
  ck_assert (strstr (hgx, "system class, HGX B200 (SXM6: NVLink 5") != NULL);
  g_auto (DtsGenParams) r;
  dts_gen_params_init (&r);
  r.gpu = g_strdup ("GB200-186GB");
  r.gpus_per_node = 72;
  g_autofree char *rack = generate_ok (&r);
  ck_assert (strstr (rack, "system class, GB200 NVL72 (") != NULL);
  ck_assert (strstr (rack, "gpus-per-node 72, gpu GB200-186GB") != NULL);
}
END_TEST

static Suite *
generate_suite (void)
{
  Suite *s = suite_create ("generate");
  TCase *tc = tcase_create ("generate");
  tcase_add_test (tc, test_pcie_switch);
  tcase_add_test (tc, test_system_class);
  tcase_add_test (tc, test_pcie_root_ports_cpus);
  tcase_add_test (tc, test_nvlink_mesh);
  tcase_add_test (tc, test_nvlink_dgx1);
  tcase_add_test (tc, test_nvswitch);
  tcase_add_test (tc, test_switch_split);
  tcase_add_test (tc, test_fat_tree_2_levels);
  tcase_add_test (tc, test_fat_tree_oversubscribed);
  tcase_add_test (tc, test_fat_tree_3_levels);
  tcase_add_test (tc, test_fat_tree_derived);
  tcase_add_test (tc, test_torus);
  tcase_add_test (tc, test_dragonfly);
  tcase_add_test (tc, test_single_node);
  tcase_add_test (tc, test_deterministic);
  tcase_add_test (tc, test_errors);
  tcase_add_test (tc, test_kind_names);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return dts_test_run (generate_suite ());
}
