/* generate.c - SimGrid platform files for GPU clusters (`dtsim platform`).
 *
 * Model (see generate.h for the parameters and doc/PLATFORMS-GENERATED.md for
 * the measurements behind the representation):
 *  - every GPU is a host; CPU sockets, PCIe switches and the NVSwitch are
 *    routers (sockets become hosts with cpu_hosts, for parameter servers);
 *  - every physical link is a split-duplex SimGrid link: a GPU's PCIe x16
 *    link, a PCIe switch's uplink to its socket, the inter-socket link, each
 *    NVLink pair (bandwidth = per-link bandwidth x number of links), each
 *    GPU's NVSwitch port, each NIC's PCIe link and its cable to the switch;
 *  - a route follows the physical path with the fewest links: peer GPUs
 *    talk over NVLink when the fabric has it (two NVLink hops through
 *    another GPU when a mesh pair has no direct link), else over PCIe; a
 *    GPU reaches its NIC (block affinity) over PCIe, GPUDirect RDMA style,
 *    without host-memory staging;
 *  - between nodes, switches are routers and inter-switch cables links.
 *
 * Representation, chosen for size and load time (measured in
 * bench/platform-gen.sh): SimGrid's XML cluster topologies take single hosts
 * as leaves and all-pairs zoneRoutes grow with the square of the node count,
 * so neither is used. Instead:
 *  - an "attachment zone" (Floyd routing) holds the nodes that hang off one
 *    switch: their GPUs, internal routers, links, and only the adjacent
 *    routes plus one explicit route per GPU to the switch router (through
 *    the GPU's own NIC, which makes the NIC affinity exact). Floyd picks the
 *    fewest-link paths; the explicit routes are built so that the intended
 *    path is the unique shortest one. A switch with more nodes than one
 *    Floyd zone seals quickly becomes a tree of such zones (emit_parts);
 *  - fat-tree: SimGrid's FAT_TREE wiring with its parameters, with the
 *    switches above each subtree merged into one router whose uplink
 *    carries the bandwidth of all the subtree's uplink cables. The result is
 *    a tree of zones (Floyd over children + one router each), so that every
 *    route is unique, its cost is linear in the node count, and up-links
 *    are shared by exactly the flows that leave a subtree, as with an ideal
 *    (perfectly balanced) multipath routing. A flow is never faster than its
 *    NIC, so merging parallel cables changes no flow's bandwidth bound;
 *  - torus and dragonfly: one attachment zone per switch (a torus vertex is
 *    one node's switch), joined by zoneRoutes in a DijkstraCache zone with
 *    SimGrid's wiring; routes are shortest paths (ties broken by switch
 *    order), not SimGrid's dimension-order or minimal-group routing.
 * Names are "nodeI-gpuG", "nodeI-nicR", "leafB-sw", ...; no name contains a
 * dot, so that `--set link:GLOB.FIELD` parses unambiguously. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "core/input.h"
#include "platform/generate.h"
#include "platform/ranges.h"

/* Above this many hosts and routers, a switch's nodes are split in parts
 * (emit_switch), and the one node that still has more uses DijkstraCache:
 * Floyd's sealing is cubic in the vertex count (~0.3 s at 512). */
#define FLOYD_MAX_VERTICES 512

/* ---- kinds --------------------------------------------------------------- */

typedef struct {
  const char *id;
  const char *description;
} KindRow;

static const KindRow intra_rows[] = {
  [DTS_INTRA_PCIE] = { "pcie", "GPU peer traffic over the PCIe tree" },
  [DTS_INTRA_NVLINK_MESH] = { "nvlink-mesh", "direct NVLinks between GPU pairs" },
  [DTS_INTRA_NVSWITCH] = { "nvswitch", "one NVLink port per GPU into an NVSwitch" },
};

static const KindRow topo_rows[] = {
  [DTS_TOPO_SWITCH] = { "switch", "one non-blocking switch" },
  [DTS_TOPO_FAT_TREE] = { "fat-tree", "fat-tree (SimGrid FAT_TREE parameters)" },
  [DTS_TOPO_TORUS] = { "torus", "torus of switches, one node each (SimGrid TORUS parameters)" },
  [DTS_TOPO_DRAGONFLY] = { "dragonfly", "dragonfly (SimGrid DRAGONFLY parameters)" },
};

static gboolean
kind_from_string (const KindRow *rows, int n, const char *what, const char *s, int *out,
                  GError **error)
{
  for (int i = 0; i < n; i++)
    if (s && strcmp (rows[i].id, s) == 0) {
      *out = i;
      return TRUE;
    }
  g_autoptr (GString) known = g_string_new (NULL);
  for (int i = 0; i < n; i++)
    g_string_append_printf (known, "%s%s", i ? ", " : "", rows[i].id);
  g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "unknown %s '%s' (known: %s)", what,
               s ? s : "", known->str);
  return FALSE;
}

const char *
dts_intra_kind_to_string (DtsIntraKind kind)
{
  return intra_rows[kind].id;
}

gboolean
dts_intra_kind_from_string (const char *s, DtsIntraKind *out, GError **error)
{
  int k = 0;
  if (!kind_from_string (intra_rows, G_N_ELEMENTS (intra_rows), "intra-node fabric", s, &k,
                         error))
    return FALSE;
  *out = (DtsIntraKind) k;
  return TRUE;
}

const char *
dts_topo_kind_to_string (DtsTopoKind kind)
{
  return topo_rows[kind].id;
}

gboolean
dts_topo_kind_from_string (const char *s, DtsTopoKind *out, GError **error)
{
  int k = 0;
  if (!kind_from_string (topo_rows, G_N_ELEMENTS (topo_rows), "topology", s, &k, error))
    return FALSE;
  *out = (DtsTopoKind) k;
  return TRUE;
}

/* ---- parameters ---------------------------------------------------------- */

void
dts_gen_params_init (DtsGenParams *p)
{
  memset (p, 0, sizeof *p);
  p->nodes = 1;
  p->gpus_per_node = 8;
  /* from the GPU's system class unless given (system_classes, below) */
  p->intra = DTS_INTRA_FROM_GPU;
  p->intra_bw_Bps = 0;
  p->intra_lat_s = 1e-6;
  p->sockets = 2;
  p->pcie_switches = -1;
  p->pcie_bw_Bps = 0;
  p->pcie_lat_s = 1e-6;
  p->socket_bw_Bps = 19.2e9;   /* one QPI link at 9.6 GT/s */
  p->socket_lat_s = 1e-6;
  p->nics_per_node = -1;       /* derived: 1 with several nodes, 0 for one */
  p->nic_bw_Bps = 12.5e9;      /* 100 Gb/s (InfiniBand EDR) */
  p->nic_lat_s = 1e-6;
  p->topology = DTS_TOPO_SWITCH;
  p->switch_radix = 40;
  p->link_bw_Bps = 0;
  p->link_lat_s = 1e-7;        /* one switch hop, of the order of an InfiniBand switch */
  p->oversubscription = 1;
  p->cpu_speed_flops = 1e12;
}

void
dts_gen_params_clear (DtsGenParams *p)
{
  g_clear_pointer (&p->title, g_free);
  g_clear_pointer (&p->command, g_free);
  g_clear_pointer (&p->gpu, g_free);
  g_clear_pointer (&p->nvlink_pairs, g_free);
  g_clear_pointer (&p->topo_params, g_free);
}

/* ---- number formatting (SimGrid units in attributes, readable in comments) */

static void
fmt_num (char *buf, gsize size, double v)
{
  g_ascii_formatd (buf, size, "%.12g", v);
}

/* "12.5GBps" */
static char *
fmt_bw (double Bps)
{
  char n[G_ASCII_DTOSTR_BUF_SIZE];
  if (Bps >= 1e9) {
    fmt_num (n, sizeof n, Bps / 1e9);
    return g_strconcat (n, "GBps", NULL);
  }
  if (Bps >= 1e6) {
    fmt_num (n, sizeof n, Bps / 1e6);
    return g_strconcat (n, "MBps", NULL);
  }
  fmt_num (n, sizeof n, Bps);
  return g_strconcat (n, "Bps", NULL);
}

/* "200Gbps", for network bandwidths in the header */
static char *
fmt_bw_bits (double Bps)
{
  char n[G_ASCII_DTOSTR_BUF_SIZE];
  fmt_num (n, sizeof n, Bps * 8 / 1e9);
  return g_strconcat (n, "Gbps", NULL);
}

/* "1.5us" */
static char *
fmt_time (double s)
{
  char n[G_ASCII_DTOSTR_BUF_SIZE];
  if (s == 0)
    return g_strdup ("0s");
  if (s < 1e-6) {
    fmt_num (n, sizeof n, s * 1e9);
    return g_strconcat (n, "ns", NULL);
  }
  if (s < 1e-3) {
    fmt_num (n, sizeof n, s * 1e6);
    return g_strconcat (n, "us", NULL);
  }
  if (s < 1) {
    fmt_num (n, sizeof n, s * 1e3);
    return g_strconcat (n, "ms", NULL);
  }
  fmt_num (n, sizeof n, s);
  return g_strconcat (n, "s", NULL);
}

/* "15.7Tf" */
static char *
fmt_speed (double f)
{
  char n[G_ASCII_DTOSTR_BUF_SIZE];
  if (f >= 1e12) {
    fmt_num (n, sizeof n, f / 1e12);
    return g_strconcat (n, "Tf", NULL);
  }
  fmt_num (n, sizeof n, f / 1e9);
  return g_strconcat (n, "Gf", NULL);
}

/* Text inside an XML comment must not contain "--". */
static void
append_comment_text (GString *out, const char *text)
{
  for (const char *c = text; *c; c++) {
    g_string_append_c (out, *c);
    if (c[0] == '-' && c[1] == '-')
      g_string_append_c (out, ' ');
  }
}

/* ---- links and routes ---------------------------------------------------- */

typedef struct {
  char *name;
  double bw_Bps;
  double lat_s;
  gboolean used;
} LinkDef;

static void
link_def_clear (gpointer p)
{
  g_free (((LinkDef *) p)->name);
}

/* One link crossed by a route, in the route's direction. */
typedef struct {
  const char *name; /* lent by a LinkDef */
  gboolean up;
} Hop;

/* Every link of the platform, declared once at the top of the root zone:
 * SimGrid 3.32 resolves a split-duplex link_ctn by searching the zones
 * depth-first from the root, which made a 1024-node file with links inside
 * its 600 zones take 17 s to parse instead of 1 s. Only the links some route
 * uses are written. */
typedef struct {
  GArray *defs;       /* LinkDef */
  GHashTable *index;  /* name -> position + 1 */
} LinkTable;

static void
link_table_init (LinkTable *t)
{
  t->defs = g_array_new (FALSE, TRUE, sizeof (LinkDef));
  g_array_set_clear_func (t->defs, link_def_clear);
  t->index = g_hash_table_new (g_str_hash, g_str_equal);
}

static void
link_table_clear (LinkTable *t)
{
  if (t->index)
    g_hash_table_unref (t->index);
  if (t->defs)
    g_array_unref (t->defs);
}

static const char *
table_link (LinkTable *t, char *name_owned, double bw, double lat)
{
  gpointer pos = g_hash_table_lookup (t->index, name_owned);
  if (pos != NULL) {
    g_free (name_owned);
    return g_array_index (t->defs, LinkDef, GPOINTER_TO_INT (pos) - 1).name;
  }
  LinkDef d = { name_owned, bw, lat, FALSE };
  g_array_append_val (t->defs, d);
  const char *name = g_array_index (t->defs, LinkDef, t->defs->len - 1).name;
  g_hash_table_insert (t->index, (gpointer) name, GINT_TO_POINTER (t->defs->len));
  return name;
}

static void
mark_used (LinkTable *t, const char *name)
{
  gpointer pos = g_hash_table_lookup (t->index, name);
  g_assert (pos != NULL);
  g_array_index (t->defs, LinkDef, GPOINTER_TO_INT (pos) - 1).used = TRUE;
}

static void
indent_to (GString *out, int n)
{
  for (int i = 0; i < n; i++)
    g_string_append (out, "  ");
}

/* The routes of one zone, written after its hosts, routers and sub-zones. */
typedef struct {
  LinkTable *links;
  GString *routes;
  int indent;
} ZoneBody;

static void
zone_body_init (ZoneBody *z, LinkTable *links, int indent)
{
  z->links = links;
  z->routes = g_string_new (NULL);
  z->indent = indent;
}

static void
zone_body_clear (ZoneBody *z)
{
  g_string_free (z->routes, TRUE);
}

static const char *
zone_link (ZoneBody *z, char *name_owned, double bw, double lat)
{
  return table_link (z->links, name_owned, bw, lat);
}

/* <route> (hosts/routers) or <zoneRoute> (zones, with gateways). */
static void
zone_route (ZoneBody *z, const char *src, const char *dst, const char *gw_src,
            const char *gw_dst, const Hop *hops, guint n_hops)
{
  g_assert (n_hops > 0);
  indent_to (z->routes, z->indent);
  if (gw_src)
    g_string_append_printf (z->routes,
                            "<zoneRoute src=\"%s\" dst=\"%s\" gw_src=\"%s\" gw_dst=\"%s\">", src,
                            dst, gw_src, gw_dst);
  else
    g_string_append_printf (z->routes, "<route src=\"%s\" dst=\"%s\">", src, dst);
  for (guint i = 0; i < n_hops; i++) {
    mark_used (z->links, hops[i].name);
    g_string_append_printf (z->routes, "<link_ctn id=\"%s\" direction=\"%s\"/>", hops[i].name,
                            hops[i].up ? "UP" : "DOWN");
  }
  g_string_append (z->routes, gw_src ? "</zoneRoute>\n" : "</route>\n");
}

static char *
link_table_write (const LinkTable *t, int indent)
{
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < t->defs->len; i++) {
    const LinkDef *d = &g_array_index (t->defs, LinkDef, i);
    if (!d->used)
      continue;
    g_autofree char *bw = fmt_bw (d->bw_Bps);
    g_autofree char *lat = fmt_time (d->lat_s);
    indent_to (out, indent);
    g_string_append_printf (out,
                            "<link id=\"%s\" bandwidth=\"%s\" latency=\"%s\" "
                            "sharing_policy=\"SPLITDUPLEX\"/>\n",
                            d->name, bw, lat);
  }
  return g_string_free (out, FALSE);
}

/* ---- system classes: what a node built around the GPU has ------------------ */

/* The defaults of the intra-node fabric, its bandwidth and the PCIe tree,
 * by the GPU's architecture and form factor (an SXM module: the catalogue
 * id names "SXM"), for the options the user did not give. Rows are tried
 * in order; the last one matches every GPU.
 *
 * Sources: NVIDIA's A100 and H100 datasheets (NVLink 3: 12 links of 25 GB/s
 * per direction, 600 GB/s both ways per GPU; NVLink 4: 18 links, 900 GB/s),
 * the DGX A100 and DGX H100 user guides (NVSwitch between the 8 GPUs; 4
 * PCIe switches, each with 2 GPUs and their NICs, 2 per CPU socket, so
 * GPUDirect RDMA goes GPU -> switch -> NIC), and the PCIe 3.0/4.0/5.0 x16
 * rates (8, 16, 32 GT/s x 16 lanes x 128/130 / 8).
 *
 * Blackwell: NVIDIA's HGX B200 and GB200 NVL72 specifications (NVLink 5:
 * 1.8 TB/s both ways per GPU, 900 GB/s per direction through NVSwitch; HGX
 * B200: 8 GPUs and PCIe 5.0). The HGX B200 is taken to keep the HGX H100's
 * PCIe tree (2 switches per socket, each GPU's NIC under its switch): an
 * assumption, its layout is not in a stored document. The GB200 NVL72 puts
 * 72 GPUs in one NVLink domain (18 compute trays of 2 superchips, each a
 * Grace CPU and 2 GPUs, through NVLink switch trays): a node of the
 * generator is that domain, so --gpus-per-node 72 gives the rack (the
 * class does not change the default of 8); its NICs are taken to sit on
 * PCIe 5.0 root ports (0 switches), also an assumption. */
typedef struct {
  const char *arch;         /* catalogue arch, or NULL: any */
  gboolean sxm;             /* an SXM module (ignored when arch is NULL) */
  const char *name;         /* what the header says was assumed */
  DtsIntraKind intra;
  double nvswitch_port_Bps; /* nvswitch: per GPU port and direction */
  double nvlink_Bps;        /* nvlink-mesh: per NVLink and direction */
  double pcie_Bps;
  int pcie_switches;        /* per socket */
  const char *id_has;       /* and the catalogue id contains this, or NULL: any */
} SystemClass;

#define PCIE3_BPS 15.75e9    /* PCIe 3.0 x16: 8 GT/s x 16 lanes x 128/130 */
#define PCIE4_BPS 31.5e9     /* PCIe 4.0 x16 */
#define PCIE5_BPS 63e9       /* PCIe 5.0 x16 */

static const SystemClass system_classes[] = {
  { "Blackwell", FALSE, "GB200 NVL72 (NVLink 5 through NVLink switches, 72 GPUs per NVLink "
    "domain: gpus-per-node 72 for the rack; PCIe 5.0 to the NICs)",
    DTS_INTRA_NVSWITCH, 900e9, 50e9, PCIE5_BPS, 0, "GB200" },
  { "Blackwell", TRUE, "HGX B200 (SXM6: NVLink 5 through NVSwitch, PCIe 5.0 switches)",
    DTS_INTRA_NVSWITCH, 900e9, 50e9, PCIE5_BPS, 2, NULL },
  { "Hopper", TRUE, "HGX H100/H200 (SXM5: NVLink 4 through NVSwitch, PCIe 5.0 switches)",
    DTS_INTRA_NVSWITCH, 450e9, 25e9, PCIE5_BPS, 2, NULL },
  { "Ampere", TRUE, "HGX A100 (SXM4: NVLink 3 through NVSwitch, PCIe 4.0 switches)",
    DTS_INTRA_NVSWITCH, 300e9, 25e9, PCIE4_BPS, 2, NULL },
  { "Hopper", FALSE, "PCIe 5.0 server", DTS_INTRA_PCIE, 25e9, 25e9, PCIE5_BPS, 0, NULL },
  { "Blackwell", FALSE, "PCIe 5.0 server", DTS_INTRA_PCIE, 25e9, 25e9, PCIE5_BPS, 0, NULL },
  { "Ampere", FALSE, "PCIe 4.0 server", DTS_INTRA_PCIE, 25e9, 25e9, PCIE4_BPS, 0, NULL },
  { "Ada", FALSE, "PCIe 4.0 server", DTS_INTRA_PCIE, 25e9, 25e9, PCIE4_BPS, 0, NULL },
  /* Pascal, Volta, Turing and older, and anything else: NVLink 2 links,
   * PCIe 3.0 on root ports (a DGX-1's NVLink mesh is --intra nvlink-mesh
   * --nvlink-pairs dgx1-v100) */
  { NULL, FALSE, NULL, DTS_INTRA_PCIE, 25e9, 25e9, PCIE3_BPS, 0, NULL },
};

static const SystemClass *
system_class (const DtsGpuSpec *spec)
{
  gboolean sxm = strstr (spec->id, "SXM") != NULL;
  const SystemClass *c = system_classes;
  while (c->arch != NULL
         && !(g_strcmp0 (c->arch, spec->arch) == 0 && c->sxm == sxm
              && (c->id_has == NULL || strstr (spec->id, c->id_has) != NULL)))
    c++;
  return c;
}

/* ---- the generator's state ------------------------------------------------ */

typedef struct {
  int a, b, count;
} NvPair;

typedef struct {
  const DtsGenParams *p;   /* &res */
  DtsGenParams res;        /* the caller's, with the system class's values where not given
                              (strings shared with the caller's) */
  GString *assumed;        /* "intra nvswitch, ..." taken from the class, for the header */
  const SystemClass *sys;
  const DtsGpuSpec *spec;
  int nics;           /* effective NICs per node */
  double link_bw_Bps; /* effective switch-to-switch bandwidth */
  GArray *pairs;      /* NvPair, nvlink-mesh only */
  /* node layout, the same for every node */
  int n_sw;           /* PCIe switches per node */
  int *gpu_sw, *gpu_sock, *gpu_nic, *nic_sw, *nic_sock;
  gboolean *sw_used;
  /* fat-tree */
  int levels;
  int down[16], up[16], par[16];
  /* torus */
  int n_dims;
  int dims[16];
  /* dragonfly */
  int df[7]; /* groups, blue, chassis, black, routers, green, nodes */
  LinkTable links;
  GString *out;
  gsize root_pos;       /* where the root zone's link declarations go */
  gboolean root_nested; /* the root zone holds zones (its links go in a sub-zone) */
} Gen;

static void
gen_clear (Gen *g)
{
  if (g->pairs)
    g_array_unref (g->pairs);
  g_free (g->gpu_sw);
  g_free (g->gpu_sock);
  g_free (g->gpu_nic);
  g_free (g->nic_sw);
  g_free (g->nic_sock);
  g_free (g->sw_used);
  link_table_clear (&g->links);
  if (g->assumed)
    g_string_free (g->assumed, TRUE);
  if (g->out)
    g_string_free (g->out, TRUE);
}

static gboolean G_GNUC_PRINTF (2, 3)
invalid (GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (error, DTS_ERROR, DTS_ERROR_INVALID, msg);
  return FALSE;
}

/* ---- NVLink pairs ------------------------------------------------------- */

/* DGX-1 with V100 (NVIDIA DGX-1 With Tesla V100 System Architecture
 * whitepaper): hybrid cube-mesh, six NVLinks per GPU, eight pairs doubled.
 * The same matrix as platforms/dgx1-v100.xml. */
static const NvPair dgx1_v100_pairs[] = {
  { 0, 1, 1 }, { 0, 2, 1 }, { 0, 3, 2 }, { 0, 4, 2 }, { 1, 2, 2 }, { 1, 3, 1 },
  { 1, 5, 2 }, { 2, 3, 2 }, { 2, 6, 1 }, { 3, 7, 1 }, { 4, 5, 1 }, { 4, 6, 1 },
  { 4, 7, 2 }, { 5, 6, 2 }, { 5, 7, 1 }, { 6, 7, 2 }, { -1, -1, 0 },
};
/* DGX-1 with P100 (NVIDIA DGX-1 System Architecture whitepaper): the same
 * cube-mesh with four single NVLinks per GPU. */
static const NvPair dgx1_p100_pairs[] = {
  { 0, 1, 1 }, { 0, 2, 1 }, { 0, 3, 1 }, { 0, 4, 1 }, { 1, 2, 1 }, { 1, 3, 1 },
  { 1, 5, 1 }, { 2, 3, 1 }, { 2, 6, 1 }, { 3, 7, 1 }, { 4, 5, 1 }, { 4, 6, 1 },
  { 4, 7, 1 }, { 5, 6, 1 }, { 5, 7, 1 }, { 6, 7, 1 }, { -1, -1, 0 },
};

static gboolean
parse_int_token (const char *s, int *out)
{
  if (s == NULL || *s == '\0')
    return FALSE;
  char *end = NULL;
  gint64 v = g_ascii_strtoll (s, &end, 10);
  if (end == s || *end != '\0' || v < 0 || v > G_MAXINT)
    return FALSE;
  *out = (int) v;
  return TRUE;
}

static gboolean
parse_nvlink_pairs (Gen *g, GError **error)
{
  const DtsGenParams *p = g->p;
  int G = p->gpus_per_node;
  const char *spec = p->nvlink_pairs ? p->nvlink_pairs : "full";
  g->pairs = g_array_new (FALSE, FALSE, sizeof (NvPair));
  const NvPair *preset = NULL;
  if (strcmp (spec, "full") == 0) {
    for (int a = 0; a < G; a++)
      for (int b = a + 1; b < G; b++) {
        NvPair np = { a, b, 1 };
        g_array_append_val (g->pairs, np);
      }
  } else if (strcmp (spec, "dgx1-v100") == 0) {
    preset = dgx1_v100_pairs;
  } else if (strcmp (spec, "dgx1-p100") == 0) {
    preset = dgx1_p100_pairs;
  } else {
    g_auto (GStrv) items = g_strsplit (spec, ",", -1);
    for (char **it = items; *it; it++) {
      g_autofree char *item = g_strstrip (g_strdup (*it));
      g_auto (GStrv) kv = g_strsplit (item, ":", 2);
      /* g_strsplit ("") is an empty vector: an empty item has no kv[0] */
      g_auto (GStrv) ab = g_strsplit (kv[0] ? kv[0] : "", "-", 2);
      NvPair np = { 0, 0, 1 };
      if (g_strv_length (ab) != 2 || !parse_int_token (ab[0], &np.a)
          || !parse_int_token (ab[1], &np.b) || (kv[1] && !parse_int_token (kv[1], &np.count))
          || np.count < 1)
        return invalid (error,
                        "--nvlink-pairs: '%s' is not a GPU pair A-B or A-B:LINKS "
                        "(known presets: full, dgx1-v100, dgx1-p100)",
                        item);
      if (np.a > np.b) {
        int t = np.a;
        np.a = np.b;
        np.b = t;
      }
      g_array_append_val (g->pairs, np);
    }
  }
  if (preset) {
    if (G != 8)
      return invalid (error, "--nvlink-pairs %s describes 8 GPUs, not %d", spec, G);
    for (const NvPair *q = preset; q->a >= 0; q++)
      g_array_append_val (g->pairs, *q);
  }
  /* Check each pair, duplicates, and that NVLink joins every GPU: a GPU
   * without NVLink would have no route to its peers. */
  g_autofree int *comp = g_new (int, G);
  for (int i = 0; i < G; i++)
    comp[i] = i;
  for (guint i = 0; i < g->pairs->len; i++) {
    const NvPair *q = &g_array_index (g->pairs, NvPair, i);
    if (q->a == q->b || q->b >= G)
      return invalid (error, "--nvlink-pairs: pair %d-%d is not two distinct GPUs of 0..%d",
                      q->a, q->b, G - 1);
    for (guint j = 0; j < i; j++) {
      const NvPair *r = &g_array_index (g->pairs, NvPair, j);
      if (r->a == q->a && r->b == q->b)
        return invalid (error,
                        "--nvlink-pairs: pair %d-%d is given twice (use %d-%d:N for N links)",
                        q->a, q->b, q->a, q->b);
    }
    int ca = comp[q->a], cb = comp[q->b];
    for (int k = 0; k < G; k++)
      if (comp[k] == cb)
        comp[k] = ca;
  }
  for (int k = 1; k < G; k++)
    if (comp[k] != comp[0])
      return invalid (error, "--nvlink-pairs: no NVLink path joins GPU 0 and GPU %d", k);
  return TRUE;
}

/* ---- topology parameters ------------------------------------------------ */

/* "a,b,c" into OUT (at most MAX values, each >= 1). */
static int
parse_int_list (const char *s, int *out, int max)
{
  g_auto (GStrv) items = g_strsplit (s, ",", -1);
  int n = 0;
  for (char **it = items; *it; it++) {
    if (n == max || !parse_int_token (g_strstrip (*it), &out[n]) || out[n] < 1)
      return -1;
    n++;
  }
  return n;
}

static gboolean
parse_fat_tree (Gen *g, GError **error)
{
  const DtsGenParams *p = g->p;
  long endpoints = (long) p->nodes * g->nics;
  int K = g->nics;
  if (p->topo_params == NULL) {
    /* Derived from the switch radix: r/2 ports down and r/2 up at the leaves
     * (a multiple of the NICs per node, so that a node's NICs share a leaf),
     * as many uplinks as downlinks (1:1) at every level. */
    int r = p->switch_radix;
    if (endpoints <= r) {
      g->levels = 1;
      g->down[0] = (int) endpoints;
    } else {
      int m1 = (r / 2 / K) * K;
      if (m1 < K)
        return invalid (error,
                        "--switch-radix %d is too small for %d NICs per node (a leaf needs "
                        "half its ports for at least one node)",
                        r, K);
      long leaves = (endpoints + m1 - 1) / m1;
      if (leaves <= r) {
        g->levels = 2;
        g->down[0] = m1;
        g->down[1] = (int) leaves;
        g->up[1] = m1;
      } else {
        int m2 = r / 2;
        long pods = (leaves + m2 - 1) / m2;
        if (pods > r)
          return invalid (error,
                          "%ld NICs do not fit a 3-level fat-tree of %d-port switches; "
                          "give --topo-params",
                          endpoints, r);
        g->levels = 3;
        g->down[0] = m1;
        g->down[1] = m2;
        g->down[2] = (int) pods;
        g->up[1] = m1;
        g->up[2] = m2;
      }
    }
    for (int l = 0; l < g->levels; l++) {
      if (l == 0)
        g->up[0] = 1;
      g->par[l] = 1;
    }
    return TRUE;
  }
  g_auto (GStrv) parts = g_strsplit (p->topo_params, ";", -1);
  int L = 0;
  if (g_strv_length (parts) != 4 || !parse_int_token (g_strstrip (parts[0]), &L) || L < 1
      || L > 15 || parse_int_list (parts[1], g->down, 16) != L
      || parse_int_list (parts[2], g->up, 16) != L || parse_int_list (parts[3], g->par, 16) != L)
    return invalid (error,
                    "fat-tree --topo-params '%s': expected LEVELS;DOWN,..;UP,..;PARALLEL,.. "
                    "with one positive count per level (SimGrid's FAT_TREE syntax, e.g. "
                    "2;16,8;1,16;1,1)",
                    p->topo_params);
  g->levels = L;
  if (g->up[0] != 1 || g->par[0] != 1)
    return invalid (error,
                    "fat-tree --topo-params '%s': UP and PARALLEL of level 1 must be 1: each "
                    "NIC has one cable to one leaf switch (use --nics-per-node for more NICs)",
                    p->topo_params);
  double capacity = 1;
  for (int l = 0; l < L; l++)
    capacity *= g->down[l];
  if (capacity < endpoints)
    return invalid (error,
                    "fat-tree --topo-params '%s' connects %.0f NICs, fewer than the %ld of "
                    "%d nodes x %d NICs",
                    p->topo_params, capacity, endpoints, p->nodes, K);
  if (g->down[0] % K != 0)
    return invalid (error,
                    "fat-tree --topo-params '%s': %d NICs per leaf switch is not a multiple of "
                    "the %d NICs per node (a node's NICs attach to one leaf)",
                    p->topo_params, g->down[0], K);
  return TRUE;
}

static gboolean
parse_torus (Gen *g, GError **error)
{
  const DtsGenParams *p = g->p;
  if (p->topo_params == NULL) {
    g->n_dims = 1;
    g->dims[0] = p->nodes;
    return TRUE;
  }
  g->n_dims = parse_int_list (p->topo_params, g->dims, 16);
  if (g->n_dims < 1)
    return invalid (error,
                    "torus --topo-params '%s': expected the size of each dimension, "
                    "e.g. 4,4,2 (SimGrid's TORUS syntax)",
                    p->topo_params);
  double n = 1;
  for (int d = 0; d < g->n_dims; d++)
    n *= g->dims[d];
  if (n != p->nodes)
    return invalid (error,
                    "torus --topo-params '%s' has %.0f vertices but there are %d nodes (one "
                    "node per vertex)",
                    p->topo_params, n, p->nodes);
  return TRUE;
}

static gboolean
parse_dragonfly (Gen *g, GError **error)
{
  const DtsGenParams *p = g->p;
  const char *what = "dragonfly --topo-params";
  if (p->topo_params == NULL)
    return invalid (error,
                    "--topology dragonfly needs --topo-params GROUPS,LINKS;CHASSIS,LINKS;"
                    "ROUTERS,LINKS;NODES (SimGrid's DRAGONFLY syntax, e.g. 2,1;2,1;4,1;2)");
  g_auto (GStrv) parts = g_strsplit (p->topo_params, ";", -1);
  gboolean ok = g_strv_length (parts) == 4;
  for (int i = 0; ok && i < 3; i++)
    ok = parse_int_list (parts[i], &g->df[2 * i], 2) == 2;
  ok = ok && parse_int_token (g_strstrip (parts[3]), &g->df[6]) && g->df[6] >= 1;
  if (!ok)
    return invalid (error,
                    "%s '%s': expected GROUPS,LINKS;CHASSIS,LINKS;ROUTERS,LINKS;NODES with "
                    "positive counts (SimGrid's DRAGONFLY syntax, e.g. 2,1;2,1;4,1;2)",
                    what, p->topo_params);
  double routers_per_group = (double) g->df[2] * g->df[4];
  double n = g->df[0] * routers_per_group * g->df[6];
  if (n != p->nodes)
    return invalid (error, "%s '%s' connects %.0f nodes, not %d", what, p->topo_params, n,
                    p->nodes);
  /* SimGrid links group i to group j through router j of group i. */
  if (g->df[0] > routers_per_group)
    return invalid (error,
                    "%s '%s': %d groups need at least %d routers per group for the "
                    "inter-group links",
                    what, p->topo_params, g->df[0], g->df[0]);
  return TRUE;
}

/* ---- validation and layout ------------------------------------------------ */

static gboolean
check_positive (double v, const char *option, GError **error)
{
  if (!(v > 0) || !isfinite (v))
    return invalid (error, "--%s must be positive", option);
  return TRUE;
}

/* The ranges the platform loader accepts (platform/ranges.h), so that
 * dtsim never writes a platform it refuses. */
static gboolean
check_bandwidth (double v, const char *option, GError **error)
{
  if (!check_positive (v, option, error))
    return FALSE;
  if (!dts_range_contains (DTS_RANGE_BANDWIDTH, v))
    return invalid (error, "--%s must be %s", option, dts_range_describe (DTS_RANGE_BANDWIDTH));
  return TRUE;
}

static gboolean
check_latency (double v, const char *option, GError **error)
{
  if (!(v >= 0) || !isfinite (v))
    return invalid (error, "--%s must not be negative", option);
  if (!dts_range_contains (DTS_RANGE_LATENCY, v))
    return invalid (error, "--%s must be %s", option, dts_range_describe (DTS_RANGE_LATENCY));
  return TRUE;
}

static gboolean
validate (Gen *g, const DtsGpuCatalog *catalog, GError **error)
{
  const DtsGenParams *p = g->p;
  if (p->nodes < 1)
    return invalid (error, "--nodes must be at least 1");
  if (p->gpus_per_node < 1 || p->gpus_per_node > 1024)
    return invalid (error, "--gpus-per-node must be between 1 and 1024");
  /* The loader's host limit (core/input.h): never write what dtsim refuses. */
  if ((gint64) p->nodes * p->gpus_per_node > (gint64) dts_input_max_hosts ())
    return invalid (error,
                    "--nodes %d x --gpus-per-node %d is more than %u GPUs, dtsim's platform size "
                    "limit (raise it with 'dtsim --max-hosts N platform ...')",
                    p->nodes, p->gpus_per_node, dts_input_max_hosts ());
  /* The title goes into an XML comment: control characters or bytes that
   * are not UTF-8 would make the file unreadable. */
  if (p->title && !g_utf8_validate (p->title, -1, NULL))
    return invalid (error, "--title is not valid UTF-8 text");
  for (const char *c = p->title; c && *c; c++)
    if ((guchar) *c < 0x20 && *c != '\n' && *c != '\t')
      return invalid (error, "--title: control character 0x%02x (expected printable text; "
                      "newlines start new lines)", (guchar) *c);
  if (p->gpu == NULL)
    return invalid (error, "--gpu is required (a catalogue id such as V100-SXM2-16GB)");
  g_autoptr (GError) local = NULL;
  g->spec = dts_gpu_catalog_get (catalog, p->gpu, &local);
  if (g->spec == NULL)
    return invalid (error, "--gpu: %s", local->message);
  /* What was not given comes from the GPU's system class. */
  g->sys = system_class (g->spec);
  g->assumed = g_string_new (NULL);
  DtsGenParams *res = &g->res;
  if (res->intra == DTS_INTRA_FROM_GPU) {
    res->intra = g->sys->intra;
    g_string_append_printf (g->assumed, ", intra %s", dts_intra_kind_to_string (res->intra));
  }
  if (res->intra_bw_Bps == 0 && res->intra != DTS_INTRA_PCIE) {
    res->intra_bw_Bps = res->intra == DTS_INTRA_NVSWITCH ? g->sys->nvswitch_port_Bps
                                                     : g->sys->nvlink_Bps;
    g_autofree char *bw = fmt_bw (res->intra_bw_Bps);
    g_string_append_printf (g->assumed, ", intra-bandwidth %s", bw);
  } else if (res->intra_bw_Bps == 0) {
    res->intra_bw_Bps = g->sys->nvlink_Bps; /* unused over PCIe */
  }
  if (res->pcie_switches < 0) {
    res->pcie_switches = g->sys->pcie_switches;
    g_string_append_printf (g->assumed, ", pcie-switches %d", res->pcie_switches);
  }
  if (res->pcie_bw_Bps == 0) {
    res->pcie_bw_Bps = g->sys->pcie_Bps;
    g_autofree char *bw = fmt_bw (res->pcie_bw_Bps);
    g_string_append_printf (g->assumed, ", pcie-bandwidth %s", bw);
  }
  if (p->sockets < 1 || p->sockets > 8)
    return invalid (error, "--sockets must be between 1 and 8");
  if (p->pcie_switches < 0 || p->pcie_switches > 64)
    return invalid (error, "--pcie-switches must be between 0 and 64");
  if (!check_bandwidth (p->intra_bw_Bps, "intra-bandwidth", error)
      || !check_latency (p->intra_lat_s, "intra-latency", error)
      || !check_bandwidth (p->pcie_bw_Bps, "pcie-bandwidth", error)
      || !check_latency (p->pcie_lat_s, "pcie-latency", error)
      || !check_bandwidth (p->socket_bw_Bps, "socket-bandwidth", error)
      || !check_latency (p->socket_lat_s, "socket-latency", error)
      || !check_bandwidth (p->nic_bw_Bps, "nic-bandwidth", error)
      || !check_latency (p->nic_lat_s, "nic-latency", error)
      || !check_latency (p->link_lat_s, "link-latency", error)
      || !check_positive (p->cpu_speed_flops, "cpu-speed", error))
    return FALSE;
  if (p->cpu_mem_bw_Bps != 0 && !check_bandwidth (p->cpu_mem_bw_Bps, "cpu-mem-bw", error))
    return FALSE;
  if (p->cpu_mem_bw_Bps != 0 && !p->cpu_hosts)
    return invalid (error, "--cpu-mem-bw needs --cpus (the sockets as hosts)");
  if (p->link_bw_Bps != 0 && !check_bandwidth (p->link_bw_Bps, "link-bandwidth", error))
    return FALSE;
  if (!(p->oversubscription >= 1) || !isfinite (p->oversubscription))
    return invalid (error, "--oversubscription must be at least 1 (1 = non-blocking)");
  if (p->oversubscription != 1 && p->topology != DTS_TOPO_FAT_TREE)
    return invalid (error, "--oversubscription applies to --topology fat-tree only");
  if (p->nvlink_pairs && p->intra != DTS_INTRA_NVLINK_MESH)
    return invalid (error, "--nvlink-pairs applies to --intra nvlink-mesh only");
  if (p->nic_at_cpu && p->pcie_switches == 0)
    return invalid (error, "--nic-at-cpu needs --pcie-switches (without switches NICs are "
                           "on the root ports already)");

  g->nics = p->nics_per_node >= 0 ? p->nics_per_node : (p->nodes > 1 ? 1 : 0);
  if (g->nics > p->gpus_per_node * 4)
    return invalid (error, "--nics-per-node %d is more than four per GPU", g->nics);
  if (g->nics == 0 && p->nodes > 1)
    return invalid (error, "%d nodes need at least one NIC each (--nics-per-node)", p->nodes);
  if (g->nics == 0 && (p->topo_params || p->topology != DTS_TOPO_SWITCH))
    return invalid (error, "--topology and --topo-params need NICs (--nics-per-node)");
  if (p->topology == DTS_TOPO_SWITCH && p->topo_params)
    return invalid (error, "--topology switch takes no --topo-params");
  if (p->switch_radix < 2)
    return invalid (error, "--switch-radix must be at least 2");
  g->link_bw_Bps = p->link_bw_Bps > 0 ? p->link_bw_Bps : p->nic_bw_Bps;

  if (p->intra == DTS_INTRA_NVLINK_MESH && p->gpus_per_node > 1 && !parse_nvlink_pairs (g, error))
    return FALSE;
  switch (p->topology) {
  case DTS_TOPO_SWITCH:
    break;
  case DTS_TOPO_FAT_TREE:
    if (!parse_fat_tree (g, error))
      return FALSE;
    if (p->oversubscription != 1 && g->levels < 2)
      return invalid (error, "--oversubscription needs a fat-tree of at least 2 levels");
    break;
  case DTS_TOPO_TORUS:
    if (!parse_torus (g, error))
      return FALSE;
    break;
  case DTS_TOPO_DRAGONFLY:
    if (!parse_dragonfly (g, error))
      return FALSE;
    break;
  }

  /* Block placement: GPU g on switch g*SW/G, NIC r on switch r*SW/K. */
  int G = p->gpus_per_node, K = g->nics, S = p->sockets, P = p->pcie_switches;
  g->n_sw = S * P;
  g->gpu_sw = g_new0 (int, G);
  g->gpu_sock = g_new0 (int, G);
  g->gpu_nic = g_new0 (int, G);
  g->nic_sw = g_new0 (int, MAX (K, 1));
  g->nic_sock = g_new0 (int, MAX (K, 1));
  g->sw_used = g_new0 (gboolean, MAX (g->n_sw, 1));
  for (int i = 0; i < G; i++) {
    if (P > 0) {
      g->gpu_sw[i] = (int) ((long) i * g->n_sw / G);
      g->gpu_sock[i] = g->gpu_sw[i] / P;
      g->sw_used[g->gpu_sw[i]] = TRUE;
    } else {
      g->gpu_sw[i] = -1;
      g->gpu_sock[i] = (int) ((long) i * S / G);
    }
    g->gpu_nic[i] = K > 0 ? (int) ((long) i * K / G) : -1;
  }
  for (int r = 0; r < K; r++) {
    if (P > 0 && !p->nic_at_cpu) {
      g->nic_sw[r] = (int) ((long) r * g->n_sw / K);
      g->nic_sock[r] = g->nic_sw[r] / P;
      g->sw_used[g->nic_sw[r]] = TRUE;
    } else {
      g->nic_sw[r] = -1;
      g->nic_sock[r] = (int) ((long) r * S / K);
    }
  }
  return TRUE;
}

/* ---- one node ------------------------------------------------------------ */

typedef struct {
  ZoneBody body;
  GString *decls;   /* hosts and routers */
  int vertices;
} Attach;

static char *
node_name (int node)
{
  return g_strdup_printf ("node%d", node);
}

/* Links of node I (declared on first use). */
static const char *
l_gpu_pcie (Gen *g, ZoneBody *z, int i, int k)
{
  return zone_link (z, g_strdup_printf ("node%d-gpu%d-pcie", i, k), g->p->pcie_bw_Bps,
                    g->p->pcie_lat_s);
}
static const char *
l_plx (Gen *g, ZoneBody *z, int i, int sw)
{
  return zone_link (z, g_strdup_printf ("node%d-plx%d", i, sw), g->p->pcie_bw_Bps,
                    g->p->pcie_lat_s);
}
static const char *
l_socket (Gen *g, ZoneBody *z, int i, int a, int b)
{
  return zone_link (z, g_strdup_printf ("node%d-qpi%d-%d", i, MIN (a, b), MAX (a, b)),
                    g->p->socket_bw_Bps, g->p->socket_lat_s);
}
static const char *
l_nic_pcie (Gen *g, ZoneBody *z, int i, int r)
{
  return zone_link (z, g_strdup_printf ("node%d-nic%d-pcie", i, r), g->p->pcie_bw_Bps,
                    g->p->pcie_lat_s);
}
static const char *
l_nic (Gen *g, ZoneBody *z, int i, int r)
{
  return zone_link (z, g_strdup_printf ("node%d-nic%d", i, r), g->p->nic_bw_Bps,
                    g->p->nic_lat_s);
}

/* A PCIe endpoint: a GPU or a NIC, on switch SW (-1: root port) of SOCK. */
typedef struct {
  const char *own; /* its x16 link, UP = towards the root */
  int sw, sock;
} PcieEnd;

static void
push (GArray *hops, const char *name, gboolean up)
{
  Hop h = { name, up };
  g_array_append_val (hops, h);
}

/* Hops from A up the PCIe tree and down to B. */
static void
pcie_path (Gen *g, ZoneBody *z, int node, const PcieEnd *a, const PcieEnd *b, GArray *hops)
{
  push (hops, a->own, TRUE);
  if (a->sw >= 0 && a->sw == b->sw) {
    push (hops, b->own, FALSE);
    return;
  }
  if (a->sw >= 0)
    push (hops, l_plx (g, z, node, a->sw), TRUE);
  if (a->sock != b->sock)
    push (hops, l_socket (g, z, node, a->sock, b->sock), a->sock < b->sock);
  if (b->sw >= 0)
    push (hops, l_plx (g, z, node, b->sw), FALSE);
  push (hops, b->own, FALSE);
}

static void
declare_host (GString *out, int indent, const char *id, const char *speed, const char *gpu,
              const char *node, const char *role, const char *mem_bw)
{
  indent_to (out, indent);
  g_string_append_printf (out, "<host id=\"%s\" speed=\"%s\">", id, speed);
  if (gpu)
    g_string_append_printf (out, "<prop id=\"gpu\" value=\"%s\"/>", gpu);
  g_string_append_printf (out, "<prop id=\"node\" value=\"%s\"/>", node);
  if (role)
    g_string_append_printf (out, "<prop id=\"role\" value=\"%s\"/>", role);
  if (mem_bw)
    g_string_append_printf (out, "<prop id=\"mem_bw\" value=\"%s\"/>", mem_bw);
  g_string_append (out, "</host>\n");
}

static void
declare_router (GString *out, int indent, const char *id)
{
  indent_to (out, indent);
  g_string_append_printf (out, "<router id=\"%s\"/>\n", id);
}

/* Declare node I's hosts and routers in A and its routes, ending at the
 * switch router SWITCH (NULL: no NICs). */
static void
emit_node (Gen *g, Attach *a, int i, const char *sw)
{
  const DtsGenParams *p = g->p;
  int G = p->gpus_per_node, K = g->nics, S = p->sockets;
  ZoneBody *z = &a->body;
  int ind = z->indent;
  g_autofree char *node = node_name (i);
  g_autofree char *speed = fmt_speed (dts_gpu_spec_flops (g->spec, DTS_PREC_FP32, NULL));
  g_autofree char *cpu_speed = fmt_speed (p->cpu_speed_flops);
  g_autofree char *cpu_mem_bw = p->cpu_mem_bw_Bps > 0 ? fmt_bw (p->cpu_mem_bw_Bps) : NULL;
  gboolean tree = p->intra == DTS_INTRA_PCIE;
  gboolean sockets = tree || p->cpu_hosts;

  indent_to (a->decls, ind);
  g_string_append_printf (a->decls, "<!-- %s: %d x %s, %s", node, G, p->gpu,
                          dts_intra_kind_to_string (p->intra));
  if (K > 0)
    g_string_append_printf (a->decls, ", %d NIC%s", K, K > 1 ? "s" : "");
  g_string_append (a->decls, " -->\n");

  g_autoptr (GPtrArray) gpus = g_ptr_array_new_with_free_func (g_free);
  for (int k = 0; k < G; k++) {
    char *id = g_strdup_printf ("%s-gpu%d", node, k);
    declare_host (a->decls, ind, id, speed, p->gpu, node, NULL, NULL);
    g_ptr_array_add (gpus, id);
  }
  a->vertices += G;
  g_autoptr (GPtrArray) cpus = g_ptr_array_new_with_free_func (g_free);
  if (sockets) {
    for (int s = 0; s < S; s++) {
      char *id = g_strdup_printf ("%s-cpu%d", node, s);
      if (p->cpu_hosts)
        declare_host (a->decls, ind, id, cpu_speed, NULL, node, "cpu", cpu_mem_bw);
      else
        declare_router (a->decls, ind, id);
      g_ptr_array_add (cpus, id);
    }
    a->vertices += S;
  }
  g_autoptr (GPtrArray) plx = g_ptr_array_new_with_free_func (g_free);
  if (tree) {
    for (int s = 0; s < g->n_sw; s++) {
      char *id = g_strdup_printf ("%s-plx%d", node, s);
      g_ptr_array_add (plx, id);
      if (g->sw_used[s]) {
        declare_router (a->decls, ind, id);
        a->vertices++;
      }
    }
  }
  g_autofree char *nvswitch = NULL;
  if (p->intra == DTS_INTRA_NVSWITCH && G > 1) {
    nvswitch = g_strdup_printf ("%s-nvswitch", node);
    declare_router (a->decls, ind, nvswitch);
    a->vertices++;
  }

  /* Declare the node's links in a readable order; only the used ones are
   * written. */
  for (int k = 0; k < G; k++)
    if (p->intra == DTS_INTRA_NVSWITCH)
      zone_link (z, g_strdup_printf ("%s-gpu%d-nvlink", node, k), p->intra_bw_Bps,
                 p->intra_lat_s);
  for (guint q = 0; p->intra == DTS_INTRA_NVLINK_MESH && g->pairs && q < g->pairs->len; q++) {
    const NvPair *np = &g_array_index (g->pairs, NvPair, q);
    zone_link (z, g_strdup_printf ("%s-nvlink-%d-%d", node, np->a, np->b),
               p->intra_bw_Bps * np->count, p->intra_lat_s);
  }
  for (int k = 0; k < G; k++)
    l_gpu_pcie (g, z, i, k);
  for (int s = 0; s < g->n_sw; s++)
    if (g->sw_used[s])
      l_plx (g, z, i, s);
  for (int s = 0; s < S; s++)
    for (int t = s + 1; t < S; t++)
      l_socket (g, z, i, s, t);
  for (int r = 0; r < K; r++) {
    l_nic_pcie (g, z, i, r);
    l_nic (g, z, i, r);
  }

  g_autoptr (GArray) hops = g_array_new (FALSE, FALSE, sizeof (Hop));
#define ROUTE(src, dst)                                                                      \
  do {                                                                                       \
    zone_route (z, (src), (dst), NULL, NULL, (const Hop *) (void *) hops->data, hops->len); \
    g_array_set_size (hops, 0);                                                              \
  } while (0)

  /* Intra-node fabric: adjacent routes only; Floyd composes the rest. */
  if (tree) {
    for (int k = 0; k < G; k++) {
      push (hops, l_gpu_pcie (g, z, i, k), TRUE);
      ROUTE (gpus->pdata[k], g->gpu_sw[k] >= 0 ? plx->pdata[g->gpu_sw[k]]
                                               : cpus->pdata[g->gpu_sock[k]]);
    }
    for (int s = 0; s < g->n_sw; s++)
      if (g->sw_used[s]) {
        push (hops, l_plx (g, z, i, s), TRUE);
        ROUTE (plx->pdata[s], cpus->pdata[s / p->pcie_switches]);
      }
  } else if (p->intra == DTS_INTRA_NVLINK_MESH) {
    for (guint q = 0; g->pairs && q < g->pairs->len; q++) {
      const NvPair *np = &g_array_index (g->pairs, NvPair, q);
      push (hops,
            zone_link (z, g_strdup_printf ("%s-nvlink-%d-%d", node, np->a, np->b),
                       p->intra_bw_Bps * np->count, p->intra_lat_s),
            TRUE);
      ROUTE (gpus->pdata[np->a], gpus->pdata[np->b]);
    }
  } else if (nvswitch) {
    for (int k = 0; k < G; k++) {
      push (hops,
            zone_link (z, g_strdup_printf ("%s-gpu%d-nvlink", node, k), p->intra_bw_Bps,
                       p->intra_lat_s),
            TRUE);
      ROUTE (gpus->pdata[k], nvswitch);
    }
  }
  if (sockets) {
    if (!tree)
      for (int k = 0; k < G; k++) {
        push (hops, l_gpu_pcie (g, z, i, k), TRUE);
        if (g->gpu_sw[k] >= 0)
          push (hops, l_plx (g, z, i, g->gpu_sw[k]), TRUE);
        ROUTE (gpus->pdata[k], cpus->pdata[g->gpu_sock[k]]);
      }
    for (int s = 0; s < S; s++)
      for (int t = s + 1; t < S; t++) {
        push (hops, l_socket (g, z, i, s, t), TRUE);
        ROUTE (cpus->pdata[s], cpus->pdata[t]);
      }
  }

  /* Each GPU to the switch through its own NIC: the only routes that leave
   * the node, so inter-node traffic cannot borrow another GPU's NIC unless
   * that path has fewer links. */
  for (int k = 0; k < G && K > 0; k++) {
    int r = g->gpu_nic[k];
    PcieEnd from = { l_gpu_pcie (g, z, i, k), g->gpu_sw[k], g->gpu_sock[k] };
    PcieEnd to = { l_nic_pcie (g, z, i, r), g->nic_sw[r], g->nic_sock[r] };
    pcie_path (g, z, i, &from, &to, hops);
    push (hops, l_nic (g, z, i, r), TRUE);
    ROUTE (gpus->pdata[k], sw);
  }
  /* Each socket to the switch through the first NIC on it (else NIC 0). */
  for (int s = 0; s < S && K > 0 && p->cpu_hosts; s++) {
    int r = 0;
    for (int q = 0; q < K; q++)
      if (g->nic_sock[q] == s) {
        r = q;
        break;
      }
    if (g->nic_sock[r] != s)
      push (hops, l_socket (g, z, i, s, g->nic_sock[r]), s < g->nic_sock[r]);
    if (g->nic_sw[r] >= 0)
      push (hops, l_plx (g, z, i, g->nic_sw[r]), FALSE);
    push (hops, l_nic_pcie (g, z, i, r), FALSE);
    push (hops, l_nic (g, z, i, r), TRUE);
    ROUTE (cpus->pdata[s], sw);
  }
#undef ROUTE
}

/* An attachment zone: nodes FIRST..FIRST+COUNT-1 and the switch router SW
 * (NULL without NICs), as zone ID. */
static void
emit_attachment (Gen *g, const char *id, const char *sw, int first, int count, int indent,
                 const char *comment)
{
  Attach a = { .decls = g_string_new (NULL) };
  zone_body_init (&a.body, &g->links, indent + 1);
  for (int i = first; i < first + count; i++)
    emit_node (g, &a, i, sw);
  if (sw) {
    indent_to (a.decls, indent + 1);
    g_string_append_printf (a.decls, "<!-- %s -->\n", comment);
    declare_router (a.decls, indent + 1, sw);
    a.vertices++;
  }
  indent_to (g->out, indent);
  g_string_append_printf (g->out, "<zone id=\"%s\" routing=\"%s\">\n", id,
                          a.vertices <= FLOYD_MAX_VERTICES ? "Floyd" : "DijkstraCache");
  if (indent == 1)
    g->root_pos = g->out->len;
  g_string_append (g->out, a.decls->str);
  g_string_append (g->out, a.body.routes->str);
  indent_to (g->out, indent);
  g_string_append (g->out, "</zone>\n");
  g_string_free (a.decls, TRUE);
  zone_body_clear (&a.body);
}

/* Vertices (hosts and routers) that one node adds to its attachment zone:
 * emit_node's count, known before it runs. */
static int
node_vertices (const Gen *g)
{
  const DtsGenParams *p = g->p;
  int v = p->gpus_per_node;
  if (p->intra == DTS_INTRA_PCIE || p->cpu_hosts)
    v += p->sockets;
  for (int s = 0; p->intra == DTS_INTRA_PCIE && s < g->n_sw; s++)
    v += g->sw_used[s] ? 1 : 0;
  if (p->intra == DTS_INTRA_NVSWITCH && p->gpus_per_node > 1)
    v++;
  return v;
}

/* A switch with too many nodes for one Floyd zone is written as a tree of
 * zones: parts of at most SPLIT_LEAF_VERTICES vertices (whole nodes), at
 * most SPLIT_FANOUT children per zone, each zone's children joined at a
 * one-router zone. The parts' routers and the one at the top are the same
 * switch; SimGrid 3.32 forbids a zoneRoute without links, so each child's
 * zoneRoute crosses a "backplane" link of BACKPLANE_BPS (the most dtsim's
 * loader accepts) and no latency. A route crosses the links it crosses in
 * one zone plus a backplane up and down per level it climbs. A flow that
 * crosses a backplane also crosses a NIC cable, so the backplane could be
 * its bottleneck only with BACKPLANE_BPS / (the NIC's bandwidth) flows on
 * it at once, 10^7 for 800 Gb/s NICs; below that the max-min solver never
 * picks it (relax_fatpipes, sim.c, makes the same argument for its 1e290
 * B/s links) and the simulated times are those of one zone. The one zone,
 * DijkstraCache beyond 512 vertices, took SimGrid 137 s to route one
 * ResNet-50 iteration's transfers on 2,048 DGX A100 nodes (16,384 GPUs)
 * and listed a route's links out of order; as parts the whole run takes
 * 4.2 s (doc/PLATFORMS-GENERATED.md). */
#define BACKPLANE_BPS 1e18
#define SPLIT_LEAF_VERTICES 64
#define SPLIT_FANOUT 32

static void
emit_parts (Gen *g, const char *id, const char *sw, int first, int count, int leaf, int indent,
            const char *comment)
{
  long span = leaf;
  while ((count + span - 1) / span > SPLIT_FANOUT)
    span *= SPLIT_FANOUT;
  int children = (int) ((count + span - 1) / span);
  indent_to (g->out, indent);
  g_string_append_printf (g->out, "<zone id=\"%s\" routing=\"Floyd\">\n", id);
  if (indent == 1) {
    g->root_pos = g->out->len;
    g->root_nested = TRUE;
  }
  ZoneBody z;
  zone_body_init (&z, &g->links, indent + 1);
  g_autofree char *rzone = g_strdup_printf ("%s-switch", id);
  for (int c = 0; c < children; c++) {
    g_autofree char *cid = g_strdup_printf ("%s-%d", id, c);
    g_autofree char *csw = g_strdup_printf ("%s-sw", cid);
    int cfirst = first + (int) (c * span), ccount = (int) MIN (span, first + count - cfirst);
    g_autofree char *ccomment = g_strdup_printf ("part %d of %s: nodes %d..%d", c, id, cfirst,
                                                 cfirst + ccount - 1);
    if (ccount <= leaf)
      emit_attachment (g, cid, csw, cfirst, ccount, indent + 1, ccomment);
    else
      emit_parts (g, cid, csw, cfirst, ccount, leaf, indent + 1, ccomment);
    Hop h = { zone_link (&z, g_strdup_printf ("%s-backplane", cid), BACKPLANE_BPS, 0), TRUE };
    zone_route (&z, cid, rzone, csw, sw, &h, 1);
  }
  indent_to (g->out, indent + 1);
  g_string_append_printf (g->out,
                          "<!-- %s, split in %d parts joined by backplane links that never limit a "
                          "flow -->\n",
                          comment, children);
  indent_to (g->out, indent + 1);
  g_string_append_printf (g->out, "<zone id=\"%s\" routing=\"None\"><router id=\"%s\"/></zone>\n",
                          rzone, sw);
  g_string_append (g->out, z.routes->str);
  zone_body_clear (&z);
  indent_to (g->out, indent);
  g_string_append (g->out, "</zone>\n");
}

/* The nodes FIRST..FIRST+COUNT-1 on switch SW: one attachment zone, or a
 * tree of them (emit_parts) where one would be more than a Floyd zone
 * seals quickly. */
static void
emit_switch (Gen *g, const char *id, const char *sw, int first, int count, int indent,
             const char *comment)
{
  int per_node = node_vertices (g);
  if (sw == NULL || (long) count * per_node + 1 <= FLOYD_MAX_VERTICES)
    emit_attachment (g, id, sw, first, count, indent, comment);
  else
    emit_parts (g, id, sw, first, count, MAX (1, (SPLIT_LEAF_VERTICES - 1) / per_node), indent,
                comment);
}

/* ---- fabrics ------------------------------------------------------------- */

static const char *
level_name (int level)
{
  static const char *const names[] = { "leaf", "spine", "core" };
  return level <= 3 ? names[level - 1] : "top";
}

static char *
block_id (int level, int b)
{
  if (level <= 3)
    return g_strdup_printf ("%s%d", level_name (level), b);
  return g_strdup_printf ("level%d-%d", level, b);
}

/* Endpoints (NICs) under one block of LEVEL. */
static double
block_span (const Gen *g, int level)
{
  double s = 1;
  for (int l = 0; l < level; l++)
    s *= g->down[l];
  return s;
}

/* Switches merged in one block of LEVEL. */
static double
block_switches (const Gen *g, int level)
{
  double s = 1;
  for (int l = 0; l < level; l++)
    s *= g->up[l];
  return s;
}

static void
emit_block (Gen *g, int level, int b, int indent)
{
  const DtsGenParams *p = g->p;
  long endpoints = (long) p->nodes * g->nics;
  int K = g->nics;
  g_autofree char *id = block_id (level, b);
  g_autofree char *sw = g_strdup_printf ("%s-sw", id);
  if (level == 1) {
    long first_ep = (long) b * g->down[0];
    long last_ep = MIN (first_ep + g->down[0], endpoints);
    int first = (int) (first_ep / K), count = (int) ((last_ep - first_ep) / K);
    g_autofree char *comment = g_strdup_printf (
        "leaf switch %d: nodes %d..%d, %d NIC ports used of %d", b, first, first + count - 1,
        (int) (last_ep - first_ep), g->down[0]);
    emit_switch (g, id, sw, first, count, indent, comment);
    return;
  }
  double span = block_span (g, level - 1);
  int n_children = g->down[level - 1];
  double cables = block_switches (g, level - 1) * g->up[level - 1] * g->par[level - 1];
  double bw = cables * g->link_bw_Bps / (level == 2 ? p->oversubscription : 1);
  g_autofree char *bw_text = fmt_bw (bw);

  indent_to (g->out, indent);
  g_string_append_printf (g->out, "<zone id=\"%s\" routing=\"Floyd\">\n", id);
  if (indent == 1)
    g->root_pos = g->out->len;
  ZoneBody z;
  zone_body_init (&z, &g->links, indent + 1);
  for (int c = 0; c < n_children; c++) {
    int child = b * n_children + c;
    if (child * span >= endpoints)
      break;
    emit_block (g, level - 1, child, indent + 1);
  }
  indent_to (g->out, indent + 1);
  g_string_append_printf (g->out,
                          "<!-- %s: %.0f merged %s switch%s; each child's uplink carries %.0f "
                          "cable%s (%s) -->\n",
                          id, block_switches (g, level), level_name (level),
                          block_switches (g, level) > 1 ? "es" : "", cables,
                          cables > 1 ? "s" : "", bw_text);
  indent_to (g->out, indent + 1);
  g_string_append_printf (g->out, "<zone id=\"%s-switch\" routing=\"None\"><router id=\"%s\"/></zone>\n",
                          id, sw);
  for (int c = 0; c < n_children; c++) {
    int child = b * n_children + c;
    if (child * span >= endpoints)
      break;
    g_autofree char *cid = block_id (level - 1, child);
    g_autofree char *csw = g_strdup_printf ("%s-sw", cid);
    g_autofree char *czone = level - 1 == 1 ? g_strdup (cid) : g_strdup (cid);
    Hop h = { zone_link (&z, g_strdup_printf ("%s-up", cid), bw, p->link_lat_s), TRUE };
    g_autofree char *rzone = g_strdup_printf ("%s-switch", id);
    zone_route (&z, czone, rzone, csw, sw, &h, 1);
  }
  g_string_append (g->out, z.routes->str);
  zone_body_clear (&z);
  indent_to (g->out, indent);
  g_string_append (g->out, "</zone>\n");
}

/* Torus and dragonfly: attachment zones per switch, joined in a
 * DijkstraCache zone by zoneRoutes along SimGrid's wiring. */
typedef struct {
  int a, b;
  double bw;
  char *name;
} Edge;

static void
edge_clear (gpointer p)
{
  g_free (((Edge *) p)->name);
}

static void
emit_graph (Gen *g, const char *id, const char *prefix, int n_switches, int nodes_per_switch,
            GArray *edges)
{
  const DtsGenParams *p = g->p;
  g_string_append_printf (g->out, "  <zone id=\"%s\" routing=\"DijkstraCache\">\n", id);
  g->root_pos = g->out->len;
  for (int v = 0; v < n_switches; v++) {
    g_autofree char *zid = g_strdup_printf ("%s%d", prefix, v);
    g_autofree char *sw = g_strdup_printf ("%s%d-sw", prefix, v);
    g_autofree char *comment = g_strdup_printf ("switch %d of the %s", v, id);
    emit_switch (g, zid, sw, v * nodes_per_switch, nodes_per_switch, 2, comment);
  }
  ZoneBody z;
  zone_body_init (&z, &g->links, 2);
  for (guint e = 0; e < edges->len; e++) {
    const Edge *ed = &g_array_index (edges, Edge, e);
    g_autofree char *za = g_strdup_printf ("%s%d", prefix, ed->a);
    g_autofree char *zb = g_strdup_printf ("%s%d", prefix, ed->b);
    g_autofree char *swa = g_strdup_printf ("%s%d-sw", prefix, ed->a);
    g_autofree char *swb = g_strdup_printf ("%s%d-sw", prefix, ed->b);
    Hop h = { zone_link (&z, g_strdup (ed->name), ed->bw, p->link_lat_s), TRUE };
    zone_route (&z, za, zb, swa, swb, &h, 1);
  }
  g_string_append (g->out, z.routes->str);
  zone_body_clear (&z);
  g_string_append (g->out, "  </zone>\n");
}

static void
emit_torus (Gen *g)
{
  int n = g->p->nodes;
  g_autoptr (GArray) edges = g_array_new (FALSE, FALSE, sizeof (Edge));
  g_array_set_clear_func (edges, edge_clear);
  for (int v = 0; v < n; v++) {
    int stride = 1;
    for (int d = 0; d < g->n_dims; d++) {
      int size = g->dims[d];
      int coord = (v / stride) % size;
      /* one link to the + neighbour; with size 2 the - neighbour is the same */
      if (size >= 2 && !(size == 2 && coord == 1)) {
        int u = v + (((coord + 1) % size) - coord) * stride;
        Edge e = { v, u, g->link_bw_Bps, g_strdup_printf ("torus%d-d%d", v, d) };
        g_array_append_val (edges, e);
      }
      stride *= size;
    }
  }
  emit_graph (g, "torus", "torus", n, 1, edges);
}

static void
emit_dragonfly (Gen *g)
{
  int groups = g->df[0], chassis = g->df[2], routers = g->df[4], per = g->df[6];
  int per_group = chassis * routers;
  int n = groups * per_group;
  double bw = g->link_bw_Bps;
  g_autoptr (GArray) edges = g_array_new (FALSE, FALSE, sizeof (Edge));
  g_array_set_clear_func (edges, edge_clear);
  /* green: all-to-all between the routers of a chassis */
  for (int c = 0; c < groups * chassis; c++)
    for (int j = 0; j < routers; j++)
      for (int k = j + 1; k < routers; k++) {
        Edge e = { c * routers + j, c * routers + k, bw * g->df[5],
                   g_strdup_printf ("df-green%d-%d", c * routers + j, c * routers + k) };
        g_array_append_val (edges, e);
      }
  /* black: router l of every chassis of a group, all-to-all */
  for (int gr = 0; gr < groups; gr++)
    for (int j = 0; j < chassis; j++)
      for (int k = j + 1; k < chassis; k++)
        for (int l = 0; l < routers; l++) {
          int a = gr * per_group + j * routers + l, b = gr * per_group + k * routers + l;
          Edge e = { a, b, bw * g->df[3], g_strdup_printf ("df-black%d-%d", a, b) };
          g_array_append_val (edges, e);
        }
  /* blue: group i to group j through router j of group i and router i of group j */
  for (int i = 0; i < groups; i++)
    for (int j = i + 1; j < groups; j++) {
      int a = i * per_group + j, b = j * per_group + i;
      Edge e = { a, b, bw * g->df[1], g_strdup_printf ("df-blue%d-%d", a, b) };
      g_array_append_val (edges, e);
    }
  emit_graph (g, "dragonfly", "df", n, per, edges);
}

/* ---- header --------------------------------------------------------------- */

static void
header_line (GString *out, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
header_line (GString *out, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (*text)
    g_string_append (out, "  ");
  append_comment_text (out, text);
  g_string_append_c (out, '\n');
}

static void
emit_header (Gen *g)
{
  const DtsGenParams *p = g->p;
  GString *o = g->out;
  int G = p->gpus_per_node, K = g->nics;
  g_string_append (o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<!--\n");
  if (p->title) {
    g_auto (GStrv) lines = g_strsplit (p->title, "\n", -1);
    for (char **l = lines; *l; l++)
      header_line (o, "%s", *l);
  } else {
    header_line (o, "%d node%s x %d %s, %s inside nodes%s%s", p->nodes, p->nodes > 1 ? "s" : "",
                 G, p->gpu, dts_intra_kind_to_string (p->intra), K > 0 ? ", " : "",
                 K > 0 ? topo_rows[p->topology].description : "");
  }
  header_line (o, "%s", "");
  header_line (o, "Generated by dtsim platform (doc/PLATFORMS-GENERATED.md); do not edit.");
  if (p->command)
    header_line (o, "Command: %s", p->command);
  header_line (o, "Every parameter, as option of dtsim platform and value:");
  /* the last class holds dtsim's long-standing defaults: nothing to say */
  if (g->assumed->len > 0 && g->sys->name != NULL)
    header_line (o, "  (not given, from the %s's system class, %s: %s)", p->gpu, g->sys->name,
                 g->assumed->str + 2);
  char n[G_ASCII_DTOSTR_BUF_SIZE];
  header_line (o, "  nodes %d, gpus-per-node %d, gpu %s", p->nodes, G, p->gpu);
  {
    g_autofree char *bw = fmt_bw (p->intra_bw_Bps);
    g_autofree char *lat = fmt_time (p->intra_lat_s);
    if (p->intra == DTS_INTRA_PCIE)
      header_line (o, "  intra pcie");
    else
      header_line (o, "  intra %s, intra-bandwidth %s, intra-latency %s%s%s",
                   dts_intra_kind_to_string (p->intra), bw, lat,
                   p->intra == DTS_INTRA_NVLINK_MESH ? ", nvlink-pairs " : "",
                   p->intra == DTS_INTRA_NVLINK_MESH
                       ? (p->nvlink_pairs ? p->nvlink_pairs : "full")
                       : "");
  }
  {
    g_autofree char *pbw = fmt_bw (p->pcie_bw_Bps);
    g_autofree char *plat = fmt_time (p->pcie_lat_s);
    g_autofree char *sbw = fmt_bw (p->socket_bw_Bps);
    g_autofree char *slat = fmt_time (p->socket_lat_s);
    header_line (o, "  sockets %d, pcie-switches %d, pcie-bandwidth %s, pcie-latency %s",
                 p->sockets, p->pcie_switches, pbw, plat);
    g_autofree char *cbw = p->cpu_mem_bw_Bps > 0 ? fmt_bw (p->cpu_mem_bw_Bps) : NULL;
    header_line (o, "  socket-bandwidth %s, socket-latency %s%s%s%s", sbw, slat,
                 p->cpu_hosts ? ", cpus" : "", cbw ? ", cpu-mem-bw " : "", cbw ? cbw : "");
  }
  if (K > 0) {
    g_autofree char *bw = fmt_bw_bits (p->nic_bw_Bps);
    g_autofree char *lat = fmt_time (p->nic_lat_s);
    g_autofree char *lbw = fmt_bw_bits (g->link_bw_Bps);
    g_autofree char *llat = fmt_time (p->link_lat_s);
    header_line (o, "  nics-per-node %d, nic-bandwidth %s, nic-latency %s%s", K, bw, lat,
                 p->nic_at_cpu ? ", nic-at-cpu" : "");
    g_autoptr (GString) topo = g_string_new (NULL);
    g_string_append_printf (topo, "  topology %s", dts_topo_kind_to_string (p->topology));
    if (p->topology == DTS_TOPO_FAT_TREE) {
      g_string_append_printf (topo, ", topo-params %d;", g->levels);
      for (int k = 0; k < 3; k++) {
        const int *v = k == 0 ? g->down : k == 1 ? g->up : g->par;
        for (int l = 0; l < g->levels; l++)
          g_string_append_printf (topo, "%s%d", l ? "," : "", v[l]);
        g_string_append (topo, k < 2 ? ";" : "");
      }
      fmt_num (n, sizeof n, p->oversubscription);
      g_string_append_printf (topo, ", oversubscription %s", n);
    } else if (p->topology == DTS_TOPO_TORUS) {
      g_string_append (topo, ", topo-params ");
      for (int d = 0; d < g->n_dims; d++)
        g_string_append_printf (topo, "%s%d", d ? "," : "", g->dims[d]);
    } else if (p->topology == DTS_TOPO_DRAGONFLY) {
      g_string_append_printf (topo, ", topo-params %s", p->topo_params);
    }
    header_line (o, "%s", topo->str);
    if (p->topology != DTS_TOPO_SWITCH)
      header_line (o, "  link-bandwidth %s, link-latency %s", lbw, llat);
  }
  header_line (o, "%s", "");
  g_autofree char *speed = fmt_speed (dts_gpu_spec_flops (g->spec, DTS_PREC_FP32, NULL));
  header_line (o, "GPU hosts node<I>-gpu<G> (speed %s, the %s's fp32 peak) carry the", speed,
               p->gpu);
  header_line (o, "properties gpu and node; ranks are node-major. All links are split-duplex;");
  header_line (o, "bandwidths are per direction, latencies per link. A route takes the");
  header_line (o, "fewest links: NVLink between peers when the fabric has it, else PCIe;");
  if (K > 0) {
    header_line (o, "GPU g uses NIC g*%d/%d over PCIe (GPUDirect RDMA, no host staging),", K,
                 G);
    header_line (o, "then the NIC's cable to its switch.");
  }
  if (p->topology == DTS_TOPO_FAT_TREE && g->levels > 1) {
    header_line (o, "Fat-tree: the switches above each subtree are one router whose uplink");
    header_line (o, "carries all their cables (ideal load balancing across them).");
  }
  g_string_append (o, "-->\n<platform version=\"4.1\">\n");
}

char *
dts_platform_generate (const DtsGenParams *p, const DtsGpuCatalog *catalog, GError **error)
{
  g_return_val_if_fail (p != NULL && catalog != NULL, NULL);
  Gen g = { .res = *p };
  g.p = &g.res;
  if (!validate (&g, catalog, error)) {
    gen_clear (&g);
    return NULL;
  }
  g.out = g_string_new (NULL);
  link_table_init (&g.links);
  emit_header (&g);
  if (g.nics == 0) {
    g_autofree char *id = node_name (0);
    emit_attachment (&g, id, NULL, 0, 1, 1, NULL);
  } else if (p->topology == DTS_TOPO_SWITCH) {
    emit_switch (&g, "cluster", "switch", 0, p->nodes, 1, "the switch");
  } else if (p->topology == DTS_TOPO_FAT_TREE) {
    emit_block (&g, g.levels, 0, 1);
  } else if (p->topology == DTS_TOPO_TORUS) {
    emit_torus (&g);
  } else {
    emit_dragonfly (&g);
  }
  /* SimGrid's parser takes a <link> before the first sub-zone as the sign
   * of a zone of hosts; a zone of sub-zones gets its links in a first,
   * link-only sub-zone, which its depth-first search visits right away. */
  gboolean nested = g.root_nested
                    || (g.nics > 0 && p->topology != DTS_TOPO_SWITCH
                        && !(p->topology == DTS_TOPO_FAT_TREE && g.levels == 1));
  g_autofree char *links = link_table_write (&g.links, nested ? 3 : 2);
  g_autofree char *block = g_strconcat (
      nested ? "    <zone id=\"links\" routing=\"None\">\n      " : "    ",
      "<!-- every link of the platform, declared first for SimGrid's parser -->\n", links,
      nested ? "    </zone>\n" : "", NULL);
  g_string_insert (g.out, g.root_pos, block);
  g_string_append (g.out, "</platform>\n");
  char *text = g_string_free (g.out, FALSE);
  g.out = NULL;
  gen_clear (&g);
  return text;
}
