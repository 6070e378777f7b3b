/* tune.c - `--collective auto`: pick an all-reduce (all-gather,
 * reduce-scatter) algorithm and protocol per message the way NCCL's tuning
 * model does.  For all-gather and reduce-scatter the candidates are the
 * algorithms with a row for the op, and every step count below is the
 * all-reduce's halved (NCCL's nsteps = N - 1 for them): Shape.half.
 *
 * Model (NCCL's ncclTopoTuneModel and ncclTopoGetAlgoTime, src/graph/
 * tuning.cc, read at commit 5067397c of github.com/NVIDIA/nccl and
 * rewritten here; no code copied): the predicted time of algorithm a with
 * protocol p on S bytes is
 *   t(a, p, S) = lat(a, p) + W(a, S) / eff(a, p),
 * lat(a, p) = base latency + per-hop hardware latency x hops, intra- and
 * inter-node hops counted apart (NCCL's), or base latency + the latency of
 * the candidate plan's routes when that is more (below). NCCL's bandwidth
 * term is S over a bus bandwidth its topology search measured; dtsim's,
 * W(a, S), is the time the candidate plan's transfers need on the
 * platform's links (dts_coll_plan_load_s, load.c): per slot of steps that
 * run at once, the most loaded link's bytes over its bandwidth, so two
 * flows of a step through one link get half of it each and flows of
 * different steps do not meet, then summed over the slots; over the
 * protocol's bandwidth efficiency. W and the routes' latency come from
 * whoever builds the plan (DtsCollTuner.measure: src/sim reads the routes
 * once the platform is sealed, once per communicator, algorithm and size),
 * so multi-rail rings see every NIC they use, rings the one link they
 * share, and halving-doubling the links of each of its steps: on a DGX-1's
 * NVLink pairs its partners never share one; on a cluster its inter-node
 * levels share the NICs. The routes' latency (per slot, the largest
 * latency of its routes, summed) is a floor under NCCL's hop latencies: a
 * step cannot take less than its wire on the platform, which matters where
 * an algorithm's routes cross more links (direct between GPUs that are no
 * NVLink neighbours) or slower ones (inter-node) than NCCL's hop classes
 * say. The candidate with the smallest t wins; ties go to the earlier row
 * of the algorithm table, then to the earlier protocol (LL, LL128,
 * Simple).
 *
 * The closed forms (closed_form_s) stay what dtsim allreduce compares the
 * simulation with; they are no part of the model. They read the bandwidth
 * as one link's share over all the plan's routes that cross it, times the
 * routes a rank uses (rhd: B x (k + fold)), which holds where every GPU
 * has one link that all its partners cross and not elsewhere: on the
 * DGX-1, where each partner has an NVLink of its own, rhd's form is 3x too
 * fast (612 us predicted at 25 MB, 1762 us simulated); on 768 GPUs 3.3x
 * too slow (3028 us against 920 us): it charges every byte at the share
 * of the busiest NIC, while the fold and the large halves of the first
 * levels stay inside the nodes, on the NVSwitch, and only the small ones
 * of the last levels cross the NICs.
 *
 * Constants (microseconds; NCCL's ncclTunerConstantsDefaults and
 * ncclTopoTuneModel, same commit):
 *   base latency        Tree LL 6.8, LL128 14.0, Simple 8.4
 *                       Ring LL 6.6, LL128 14.0, Simple 8.4
 *   hop latency NVLink  Tree 0.6, 1.25, 4.0      Ring 0.6, 1.9, 3.4
 *   hop latency PCIe    Tree 1.0, 1.9, 4.0       Ring 1.0, 2.5, 5.7
 *   hop latency network Tree 5.0, 8.5, 14.0      Ring 2.7, 4.0, 14.0
 *   network post overhead 1.0 (x86 Intel; 2.0 on AMD, not distinguished
 *                       here), x 3 for Simple: an intra-node ring step of a
 *                       multi-node ring costs at least that
 *   bandwidth efficiency Ring LL 0.5, LL128 0.92, Simple 1
 *                       Tree 0.92 x (LL 1/3.8, LL128 7/9 on one node else
 *                       120/128, Simple 1)
 *   ring Simple plateau  multi-node ring latency x 1.4 (Ampere and later)
 *                       or x 1.9, when S / (channels x N) >= 64 bytes
 *   tree correction     the bandwidth of a tree all-reduce times
 *                       treeCorrectionFactor[p][log2(S / 64)] (table below)
 * Hop counts, with N ranks on m nodes of ppn = N/m GPUs:
 *   ring, multi-rail, topo-ring
 *                     2(N-1) steps, 2(m-1) of them inter-node; with one GPU
 *                     per node NCCL charges the tree's network latency
 *   tree              2 ((ppn-1) intra + floor(log2 m) inter)
 * and, as dtsim's extension in the same form (NCCL has no such algorithm;
 * they use the ring's base, hop latencies and efficiencies, a step of
 * theirs being a point-to-point exchange like a ring step):
 *   hier              2 (ppn-1) intra + 2 (m-1) inter (reduce-scatter and
 *                     all-gather in the node, a ring per rail across)
 *   rhd               2 per level of the power-of-two part, intra or inter
 *                     as the level's partners are; + 2 for a fold
 *   rd                1 per level; + 2 for a fold
 *   direct            2, single-node communicators only (one-shot)
 * Candidates that cannot run over the communicator (hier over nodes of
 * unequal sizes) are left out.
 * Protocols: LL and Simple always; LL128 only on NVLink (SXM GPUs) of
 * Volta or later, as NCCL enables it by default only where its 128-byte
 * stores are known to arrive in order.
 *
 * Not modelled: NCCL's per-channel bandwidth caps (llMaxBws,
 * perChMax*Bws: GB/s figures per GPU generation that stand for its
 * kernels' limits; dtsim's bandwidths are the platform's), NVLS, CollNet
 * and PAT (dtsim has none of them), the tree-pattern penalty, the number of
 * channels and threads NCCL then chooses, and the graph's own network
 * latency. The protocol changes only the model's ranking: the simulation
 * runs the chosen algorithm at its usual fidelity with the usual chunks
 * (doc/SIMULATION.md, "Choosing the algorithm: --collective auto"). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "collective/collective-private.h"
#include "core/error.h"

enum { HW_NVLINK, HW_PCI, HW_NET, HW_COUNT };
enum { F_TREE, F_RING, F_COUNT };

static const double base_us[F_COUNT][DTS_COLL_N_PROTOS] = {
  [F_TREE] = { 6.8, 14.0, 8.4 },
  [F_RING] = { 6.6, 14.0, 8.4 },
};

static const double hop_us[HW_COUNT][F_COUNT][DTS_COLL_N_PROTOS] = {
  [HW_NVLINK] = { [F_TREE] = { 0.6, 1.25, 4.0 }, [F_RING] = { 0.6, 1.9, 3.4 } },
  [HW_PCI] = { [F_TREE] = { 1.0, 1.9, 4.0 }, [F_RING] = { 1.0, 2.5, 5.7 } },
  [HW_NET] = { [F_TREE] = { 5.0, 8.5, 14.0 }, [F_RING] = { 2.7, 4.0, 14.0 } },
};

#define NET_OVERHEAD_US 1.0

/* treeCorrectionFactor, rows LL, LL128, Simple; columns log2(S / 64) = 0..23. */
static const double tree_correction[DTS_COLL_N_PROTOS][24] = {
  { 1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0,
    1.0, 1.0 },
  { 1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0,
    1.0, 1.0 },
  { .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9,
    .9 },
};

static const char *const proto_names[DTS_COLL_N_PROTOS] = { "LL", "LL128", "Simple" };

const char *
dts_coll_proto_to_string (DtsCollProto p)
{
  g_return_val_if_fail (p >= 0 && p < DTS_COLL_N_PROTOS, NULL);
  return proto_names[p];
}

/* The communicator's shape and what the model reads from the tuner. */
typedef struct {
  int n, m;            /* ranks, nodes */
  double ppn;          /* n / m */
  int intra_hw;        /* HW_NVLINK or HW_PCI */
  gboolean ampere;     /* Ampere or later (the ring plateau) */
  const int *node;     /* rank -> node (params->gpu_node), or NULL: one node */
  int half;            /* all-gather or reduce-scatter: the all-reduce's steps once (1), else 2 */
} Shape;

static int
node_of (const Shape *sh, int rank)
{
  return sh->node ? sh->node[rank] : 0;
}

/* floor(log2 x) for x >= 1. */
static int
log2i (int x)
{
  int k = 0;
  while (x >> (k + 1))
    k++;
  return k;
}

/* NCCL's intra- and inter-node hop latency of family F with protocol P. */
static double
intra_hop (const Shape *sh, int f, int p)
{
  return hop_us[sh->intra_hw][f][p];
}

static double
inter_hop (const Shape *sh, int f, int p)
{
  /* With one GPU per node every latency is exposed: NCCL charges the
   * tree's network latency to rings too. */
  return sh->ppn == 1 ? hop_us[HW_NET][F_TREE][p] : hop_us[HW_NET][f][p];
}

static double
ring_latency_us (const Shape *sh, const DtsCollPlan *plan, int p)
{
  int steps = sh->half * (sh->n - 1), inter = sh->m > 1 ? sh->half * (sh->m - 1) : 0;
  double intra = intra_hop (sh, F_RING, p);
  if (sh->m > 1)
    intra = MAX (intra, NET_OVERHEAD_US * (p == DTS_COLL_PROTO_SIMPLE ? 3 : 1));
  double lat = base_us[F_RING][p] + (steps - inter) * intra + inter * inter_hop (sh, F_RING, p);
  if (p == DTS_COLL_PROTO_SIMPLE && sh->m > 1 && plan->bytes / (plan->channels * sh->n) >= 64)
    lat *= sh->ampere ? 1.4 : 1.9;
  return lat;
}

static double
tree_latency_us (const Shape *sh, const DtsCollPlan *plan, int p)
{
  return base_us[F_TREE][p]
         + 2 * ((sh->ppn - 1) * intra_hop (sh, F_TREE, p)
                + log2i (sh->m) * inter_hop (sh, F_TREE, p));
}

static double
hier_latency_us (const Shape *sh, const DtsCollPlan *plan, int p)
{
  return base_us[F_RING][p] + 2 * (sh->ppn - 1) * intra_hop (sh, F_RING, p)
         + (sh->m > 1 ? 2 * (sh->m - 1) : 0) * inter_hop (sh, F_RING, p);
}

static double
direct_latency_us (const Shape *sh, const DtsCollPlan *plan, int p)
{
  return base_us[F_RING][p] + sh->half * intra_hop (sh, F_RING, p);
}

/* rd and rhd: the hop latency of each level of the power-of-two part
 * (inter-node when any pair of partners of the level is on two nodes),
 * PER_LEVEL times, and of the fold and unfold. */
static double
levels_latency_us (const Shape *sh, const DtsCollPlan *plan, int p, int per_level)
{
  int k = plan->n_levels, pw = 1 << k, e = plan->n_ranks - pw;
  double lat = base_us[F_RING][p];
  for (int j = 0; j < k; j++) {
    gboolean inter = FALSE;
    for (int v = 0; v < pw && !inter; v++)
      inter = node_of (sh, dts_coll_fold_rank (plan, v))
              != node_of (sh, dts_coll_fold_rank (plan, v ^ (1 << j)));
    lat += per_level * (inter ? inter_hop (sh, F_RING, p) : intra_hop (sh, F_RING, p));
  }
  if (e > 0) {
    gboolean inter = FALSE;
    for (int i = 0; i < e && !inter; i++)
      inter = node_of (sh, 2 * i) != node_of (sh, 2 * i + 1);
    lat += 2 * (inter ? inter_hop (sh, F_RING, p) : intra_hop (sh, F_RING, p));
  }
  return lat;
}

static double
rhd_latency_us (const Shape *sh, const DtsCollPlan *plan, int p)
{
  return levels_latency_us (sh, plan, p, sh->half);
}

static double
rd_latency_us (const Shape *sh, const DtsCollPlan *plan, int p)
{
  return levels_latency_us (sh, plan, p, 1);
}

static double
ring_efficiency (const Shape *sh, const DtsCollPlan *plan, int p)
{
  static const double eff[DTS_COLL_N_PROTOS] = { 0.5, 0.92, 1.0 };
  return eff[p];
}

static double
tree_efficiency (const Shape *sh, const DtsCollPlan *plan, int p)
{
  double eff = 0.92;
  if (p == DTS_COLL_PROTO_LL)
    eff /= 3.8;
  else if (p == DTS_COLL_PROTO_LL128)
    eff *= sh->m == 1 ? 7.0 / 9.0 : 120.0 / 128.0;
  double chunks = floor (plan->bytes / 64);
  int log_size = chunks >= 1 ? log2i ((int) MIN (chunks, (double) (1 << 30))) : -1;
  if (log_size >= 0 && log_size < 23)
    eff *= tree_correction[p][log_size];
  return eff;
}

/* The one-shot (direct) all-reduce is a candidate on one node of at most
 * this many ranks: the largest NVLink domain built (GB200 NVL72).  A rank
 * of a larger "node" (a platform without node properties puts every GPU on
 * one) would open thousands of concurrent flows, which no library does,
 * and weighing its N (N - 1) transfers grows as N^2 (1,024 ranks: 7 s). */
#define DTS_COLL_TUNE_MAX_DIRECT_RANKS 72

/* The candidates, in the order of the algorithm table (ties go to the
 * first): each one's latency term and bandwidth efficiency. */
typedef struct {
  const char *id;
  double (*latency_us) (const Shape *sh, const DtsCollPlan *plan, int p);
  double (*efficiency) (const Shape *sh, const DtsCollPlan *plan, int p);
  gboolean single_node_only;
  int family;           /* F_TREE or F_RING: whose base latency */
  DtsCollNcclAlgo nccl; /* what NCCL calls it (--collective nccl's candidates) */
} Candidate;

static const Candidate candidates[] = {
  { "ring", ring_latency_us, ring_efficiency, FALSE, F_RING, DTS_COLL_NCCL_RING },
  { "direct", direct_latency_us, ring_efficiency, TRUE, F_RING, DTS_COLL_N_NCCL_ALGOS },
  { "rhd", rhd_latency_us, ring_efficiency, FALSE, F_RING, DTS_COLL_N_NCCL_ALGOS },
  { "rd", rd_latency_us, ring_efficiency, FALSE, F_RING, DTS_COLL_N_NCCL_ALGOS },
  { "tree", tree_latency_us, tree_efficiency, FALSE, F_TREE, DTS_COLL_NCCL_TREE },
  { "hier", hier_latency_us, ring_efficiency, FALSE, F_RING, DTS_COLL_N_NCCL_ALGOS },
  { "multi-rail", ring_latency_us, ring_efficiency, FALSE, F_RING, DTS_COLL_NCCL_RING },
  /* NCCL's rings are searched ones: where the search finds the rank order
   * the plan is ring's and ties it (the earlier row keeps the choice) */
  { "topo-ring", ring_latency_us, ring_efficiency, FALSE, F_RING, DTS_COLL_NCCL_RING },
};

/* --collective nccl's candidates, per channel count in this order: NCCL's
 * ring as its search lays it (searched orders inside the nodes, then across
 * the rails), then its double binary tree. */
static const Candidate nccl_candidates[] = {
  { "topo-ring", ring_latency_us, ring_efficiency, FALSE, F_RING, DTS_COLL_NCCL_RING },
  { "multi-rail", ring_latency_us, ring_efficiency, FALSE, F_RING, DTS_COLL_NCCL_RING },
  { "tree", tree_latency_us, tree_efficiency, FALSE, F_TREE, DTS_COLL_NCCL_TREE },
};

static const char *const nccl_algo_names[DTS_COLL_N_NCCL_ALGOS] = { "Ring", "Tree" };

const char *
dts_coll_nccl_algo_to_string (DtsCollNcclAlgo a)
{
  g_return_val_if_fail (a >= 0 && a < DTS_COLL_N_NCCL_ALGOS, NULL);
  return nccl_algo_names[a];
}

gboolean
dts_coll_is_tuned (const char *id)
{
  return id != NULL && (strcmp (id, "auto") == 0 || strcmp (id, "nccl") == 0);
}

/* TEXT, comma-separated names out of NAMES (N of them, case ignored), as a
 * bit set; NCCL's "^" prefix (every name but those) is accepted too. */
static gboolean
parse_names (const char *option, const char *text, const char *const *names, int n, guint *bits,
             GError **error)
{
  gboolean except = text[0] == '^';
  g_auto (GStrv) items = g_strsplit (text + except, ",", -1);
  guint set = 0;
  for (char **it = items; *it != NULL; it++) {
    int i = 0;
    while (i < n && g_ascii_strcasecmp (*it, names[i]) != 0)
      i++;
    if (i == n) {
      g_autofree char *known = g_strjoinv (", ", (char **) names);
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--%s '%s': unknown '%s' (expected a comma-separated list of %s, as "
                   "NCCL's variable takes; ^ before it: all but those)",
                   option, text, *it, known);
      return FALSE;
    }
    set |= 1u << i;
  }
  if (except)
    set = ((1u << n) - 1) & ~set;
  if (set == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--%s '%s': leaves nothing to choose from",
                 option, text);
    return FALSE;
  }
  *bits = set;
  return TRUE;
}

gboolean
dts_coll_nccl_parse_algos (const char *option, const char *text, guint *bits, GError **error)
{
  static const char *const names[] = { "ring", "tree", NULL };
  return parse_names (option, text, names, DTS_COLL_N_NCCL_ALGOS, bits, error);
}

gboolean
dts_coll_nccl_parse_protos (const char *option, const char *text, guint *bits, GError **error)
{
  static const char *const names[] = { "LL", "LL128", "Simple", NULL };
  return parse_names (option, text, names, DTS_COLL_N_PROTOS, bits, error);
}

gboolean
dts_coll_tune_arch_is_ampere_or_later (const char *arch)
{
  static const char *const later[] = { "Ampere", "Ada", "Hopper", "Blackwell", NULL };
  for (const char *const *a = later; *a; a++)
    if (g_strcmp0 (arch, *a) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
arch_is_volta_or_later (const char *arch)
{
  return g_strcmp0 (arch, "Volta") == 0 || g_strcmp0 (arch, "Turing") == 0
         || dts_coll_tune_arch_is_ampere_or_later (arch);
}

/* The most ranks of the communicator on one node. */
static int
most_per_node (const Shape *sh)
{
  g_autoptr (GHashTable) count = g_hash_table_new (NULL, NULL);
  int most = 1;
  for (int r = 0; r < sh->n; r++) {
    gpointer k = GINT_TO_POINTER (node_of (sh, r));
    int c = GPOINTER_TO_INT (g_hash_table_lookup (count, k)) + 1;
    g_hash_table_insert (count, k, GINT_TO_POINTER (c));
    most = MAX (most, c);
  }
  return most;
}

DtsCollPlan *
dts_coll_tune_plan_new (const char *chooser, const DtsCollParams *params, GArray *rows,
                        GError **error)
{
  gboolean nccl = g_strcmp0 (chooser, "nccl") == 0;
  chooser = nccl ? "nccl" : "auto";
  gboolean half = params->op == DTS_COLL_OP_ALLGATHER
                  || params->op == DTS_COLL_OP_REDUCE_SCATTER;
  g_autofree char *what = g_strdup_printf ("%s%s", chooser, half ? "" : " all-reduce");
  if (!dts_coll_check_params (params, what, TRUE, error))
    return NULL;
  if (params->op != DTS_COLL_OP_ALLREDUCE && !half)
    return dts_coll_op_plan_new (chooser, params, error); /* the error: not for this op */
  const DtsCollTuner *tuner = params->tuner;
  if (tuner == NULL || tuner->measure == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "--collective %s: needs the platform's routes to choose an algorithm "
                 "(dtsim run and dtsim allreduce provide them)",
                 chooser);
    return NULL;
  }
  Shape sh = { .n = params->n_ranks, .node = params->gpu_node,
               .intra_hw = tuner->nvlink ? HW_NVLINK : HW_PCI,
               .ampere = dts_coll_tune_arch_is_ampere_or_later (tuner->arch),
               .half = half ? 1 : 2 };
  {
    g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
    for (int r = 0; r < sh.n; r++)
      g_hash_table_add (seen, GINT_TO_POINTER (node_of (&sh, r)));
    sh.m = (int) g_hash_table_size (seen);
  }
  sh.ppn = (double) sh.n / sh.m;
  gboolean ll128 = tuner->nvlink && arch_is_volta_or_later (tuner->arch);
  /* What to try: auto, every algorithm with a model at the params'
   * channels; nccl, NCCL's over the channel counts from the smallest to the
   * largest allowed, doubling (the largest always tried). */
  const Candidate *cands = nccl ? nccl_candidates : candidates;
  gsize n_cands = nccl ? G_N_ELEMENTS (nccl_candidates) : G_N_ELEMENTS (candidates);
  const DtsCollNcclLimits *lim = &tuner->nccl;
  guint algos = nccl && lim->algos ? lim->algos : ~0u;
  guint protos = nccl && lim->protos ? lim->protos : ~0u;
  int c_lo = params->channels, c_hi = params->channels;
  if (nccl) {
    c_lo = lim->min_channels > 0 ? lim->min_channels : DTS_COLL_DEFAULT_CHANNELS;
    c_hi = lim->max_channels > 0 ? lim->max_channels
                                 : MIN (MAX (c_lo, most_per_node (&sh)), DTS_COLL_MAX_CHANNELS);
    c_lo = MIN (c_lo, c_hi);
  }
  g_autoptr (DtsCollPlan) best = NULL;
  double best_s = INFINITY;
  DtsCollProto best_p = DTS_COLL_PROTO_SIMPLE;
  const Candidate *best_cd = NULL;
  double best_eff = 1;
  int too_many = 0;
  for (int C = c_lo;; C = MIN (2 * C, c_hi)) {
    DtsCollParams cp = *params;
    cp.channels = C;
    for (gsize c = 0; c < n_cands; c++) {
      const Candidate *cd = &cands[c];
      if (nccl && !(algos & (1u << cd->nccl)))
        continue;
      if (cd->single_node_only && (sh.m > 1 || sh.n > DTS_COLL_TUNE_MAX_DIRECT_RANKS))
        continue;
      /* the op's row of the algorithm (all-gather, reduce-scatter: the ring
       * family, direct and rhd have one; tree, rd and hier do not) */
      const DtsCollAlgorithm *a = dts_coll_algorithm_lookup (cd->id, params->op);
      if (a == NULL)
        continue;
      /* The parameters are valid (checked above): an algorithm that cannot
       * run over this communicator (hier over nodes of unequal sizes) is no
       * candidate. */
      g_autoptr (GError) refused = NULL;
      g_autoptr (DtsCollPlan) plan = a->plan_new (&cp, &refused);
      if (plan == NULL)
        continue;
      plan->alg = a;
      plan->op = params->op;
      /* A plan whose steps are not slots is weighed step by step, every
       * step held at once: past this many (tiny chunks), it is no
       * candidate rather than hours and gigabytes of weighing. */
      if (a->step_slot != NULL
          && dts_coll_plan_step_transfers (plan) > DTS_COLL_TUNE_MAX_WEIGHED_TRANSFERS) {
        too_many++;
        continue;
      }
      double load_s = 0, wire_s = 0;
      if (!tuner->measure (plan, params->gpu_rank, &load_s, &wire_s, tuner->data, error))
        return NULL;
      if (!(load_s > 0) && plan->bytes > 0)
        continue;
      gboolean won = FALSE;
      for (int p = 0; p < DTS_COLL_N_PROTOS; p++) {
        if ((p == DTS_COLL_PROTO_LL128 && !ll128) || !(protos & (1u << p)))
          continue;
        /* The routes' own latency is the floor of the hop latencies. */
        double base_s = base_us[cd->family][p] * 1e-6;
        double lat_s = MAX (cd->latency_us (&sh, plan, p) * 1e-6, base_s + wire_s);
        double bw_s = load_s / cd->efficiency (&sh, plan, p);
        double t = lat_s + bw_s;
        if (rows != NULL) {
          DtsCollTuneRow row = { a->id, C, p, lat_s, bw_s, t };
          g_array_append_val (rows, row);
        }
        if (t < best_s) {
          best_s = t;
          best_p = p;
          best_eff = cd->efficiency (&sh, plan, p);
          won = TRUE;
        }
      }
      if (won) {
        g_clear_pointer (&best, dts_coll_plan_free);
        best = g_steal_pointer (&plan);
        best_cd = cd;
      }
    }
    if (C >= c_hi)
      break;
  }
  if (best == NULL && too_many > 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--collective %s: every algorithm allowed has more than %.0e transfers to "
                 "weigh at chunks of %.6g bytes; use a larger --chunk-size",
                 chooser, DTS_COLL_TUNE_MAX_WEIGHED_TRANSFERS, params->chunk_bytes);
    return NULL;
  }
  if (best == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 nccl ? "--collective nccl: none of the algorithms and protocols allowed has a "
                        "route with bandwidth between the ranks"
                      : "--collective auto: no algorithm has a route with bandwidth between "
                        "the ranks");
    return NULL;
  }
  best->protocol = proto_names[best_p];
  best->predicted_s = best_s;
  best->chooser = chooser;
  best->nccl_algo = nccl ? nccl_algo_names[best_cd->nccl] : NULL;
  if (nccl) {
    /* What NCCL runs pays its protocol: the simulation carries the bytes
     * at the protocol's efficiency and the base latency once per call. */
    best->wire_factor = best_eff > 0 && best_eff < 1 ? 1 / best_eff : 1;
    best->fixed_s = base_us[best_cd->family][best_p] * 1e-6;
  }
  return g_steal_pointer (&best);
}
