/* collective.c - the table of all-reduce algorithms and plan helpers shared
 * by every algorithm. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "collective/collective-private.h"
#include "core/error.h"

static const char *const ps_aggregations[] = { "none", "node", NULL };

static const DtsOptionSpec ps_options[] = {
  { "ps-count", DTS_OPTION_INT, "P",
    "deprecated: the former name of --ps-shards (with --ps-aggregation node: servers, placed "
    "round-robin over the nodes on GPU hosts)", "one per node", 1, 1 << 20, NULL },
  { "ps-aggregation", DTS_OPTION_CHOICE, "A",
    "none (every GPU talks to the servers) or node (a node's GPUs sum by a local ring first "
    "and its first GPU talks to the servers, as TensorFlow's distributed_replicated)",
    "none", 0, 0, ps_aggregations },
  { NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static double
ring_closed_form (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  return dts_coll_ring_closed_form_s (plan->n_ranks, plan->bytes, share_Bps, latency_s);
}

static double
direct_closed_form (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  return dts_coll_direct_closed_form_s (plan->n_ranks, plan->bytes, share_Bps, latency_s);
}

static const DtsCollAlgorithm algorithms[] = {
  { "ring", "NCCL-style ring: reduce-scatter then all-gather, chunked, over parallel channels",
    dts_coll_ring_plan_new, dts_coll_ring_n_steps, dts_coll_ring_step_ops,
    dts_coll_member_host, dts_coll_ring_routes, ring_closed_form, NULL,
    "2(N-1)/N x S/B + 2(N-1) x L", NULL },
  { "ps", "parameter servers: in dtsim run the former spelling of --strategy sync-ps, which it "
          "runs; with --ps-aggregation node, every node's first GPU pushes shard k of the node's "
          "sum to server k, which sums it, then pulls it",
    dts_coll_ps_plan_new, dts_coll_ps_n_steps, dts_coll_ps_step_ops, dts_coll_ps_part_host,
    dts_coll_ps_routes, NULL, ps_options, NULL, NULL },
  { "direct", "one-shot: every rank sends each other rank its shard, reduces, sends it back",
    dts_coll_direct_plan_new, dts_coll_direct_n_steps, dts_coll_direct_step_ops,
    dts_coll_member_host, dts_coll_direct_routes, direct_closed_form, NULL,
    "2 (S/(N B) + L)", NULL },
  { "rhd", "recursive halving-doubling (Rabenseifner): reduce-scatter by halving, all-gather "
           "by doubling, log2 N steps each; extra ranks fold in for N not a power of two",
    dts_coll_rhd_plan_new, dts_coll_rhd_n_steps, dts_coll_rhd_step_ops, dts_coll_member_host,
    dts_coll_fold_routes, dts_coll_rhd_closed_form_s, NULL,
    "2(p-1)/p x S/B' + 2 L sum_j R_j (+ 2 (R L + S/B') folding N-p ranks), "
    "p = 2^k <= N, B' = B x (k + fold), R_j rounds of step j",
    dts_coll_rhd_step_slot },
  { "rd", "recursive doubling: the whole buffer exchanged and reduced log2 N times; extra ranks "
          "fold in for N not a power of two",
    dts_coll_rd_plan_new, dts_coll_rd_n_steps, dts_coll_rd_step_ops, dts_coll_member_host,
    dts_coll_fold_routes, dts_coll_rd_closed_form_s, NULL,
    "(k + 2 fold) (R L + S/B'), p = 2^k <= N, B' = B x (k + fold), R rounds per step",
    dts_coll_rd_step_slot },
  { "tree", "NCCL's double binary tree: two complementary trees over the nodes, a chain inside "
            "each, each tree half the buffer, reduced up and broadcast down in chunks of "
            "--chunk-size, pipelined",
    dts_coll_tree_plan_new, dts_coll_tree_n_steps, dts_coll_tree_step_ops, dts_coll_member_host,
    dts_coll_tree_routes, dts_coll_tree_closed_form_s, NULL,
    "sum over the M + H + D - 1 slots of (L + C b / B'), b the most bytes a GPU sends or "
    "receives per channel in the slot, B' = B x the most routes of a GPU",
    dts_coll_tree_step_slot },
  { "hier", "hierarchical (2D): ring reduce-scatter inside each node, ring all-reduce per rail "
            "(the i-th GPU of every node) across nodes, ring all-gather inside each node, pipelined "
            "in pieces of --chunk-size per GPU",
    dts_coll_hier_plan_new, dts_coll_hier_n_steps, dts_coll_hier_step_ops, dts_coll_member_host,
    dts_coll_hier_routes, dts_coll_hier_closed_form_s, NULL,
    "sum over steps of (L + bytes of the step / B'), one piece: 2(g-1) (L + S/(g B')) + "
    "2(m-1) (L + S/(g m B')), m nodes of g GPUs, B' = B x ((g > 1) + (m > 1))", NULL },
  { "multi-rail", "topology-aware rings: channel c enters and leaves every node through GPU "
                  "c x GPUs/C, so the channels cross nodes on different NICs (NCCL's rails)",
    dts_coll_multirail_plan_new, dts_coll_multirail_n_steps, dts_coll_multirail_step_ops,
    dts_coll_member_host, dts_coll_multirail_routes, dts_coll_multirail_closed_form_s, NULL,
    "2(N-1)/N x S/B' + 2(N-1) R L, B' = B x C, R rounds per step", NULL },
  { "topo-ring", "rings in searched orders: inside each node the path whose busiest link "
                 "carries the fewest hops per bandwidth (NCCL's ring search over NVLink), "
                 "one per channel with the channels before it on the links, nodes in rank "
                 "order",
    dts_coll_topo_ring_plan_new, dts_coll_ring_n_steps, dts_coll_topo_ring_step_ops,
    dts_coll_member_host, dts_coll_topo_ring_routes, dts_coll_topo_ring_closed_form_s, NULL,
    "2(N-1)/N x S/B + 2(N-1) x L; rings that differ per channel: B x C, R L per step", NULL },
  { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};

const DtsCollAlgorithm *
dts_coll_algorithms (void)
{
  return algorithms;
}

DtsCollPlan *
dts_coll_plan_new (const char *algorithm, const DtsCollParams *params, GError **error)
{
  g_return_val_if_fail (algorithm != NULL && params != NULL, NULL);
  if (params->op != DTS_COLL_OP_ALLREDUCE)
    return dts_coll_op_plan_new (algorithm, params, error);
  if (dts_coll_is_tuned (algorithm))
    return dts_coll_tune_plan_new (algorithm, params, NULL, error);
  for (const DtsCollAlgorithm *a = algorithms; a->id; a++)
    if (strcmp (a->id, algorithm) == 0) {
      DtsCollPlan *plan = a->plan_new (params, error);
      if (plan != NULL)
        plan->alg = a;
      return plan;
    }
  g_autoptr (GString) known = g_string_new (NULL);
  for (const DtsCollAlgorithm *a = algorithms; a->id; a++)
    g_string_append_printf (known, "%s%s", known->len ? ", " : "", a->id);
  g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
               "unknown collective algorithm '%s' (known: %s, auto, nccl)",
               algorithm, known->str);
  return NULL;
}

void
dts_coll_plan_free (DtsCollPlan *plan)
{
  if (plan == NULL)
    return;
  g_free (plan->algorithm);
  g_free (plan->ring);
  g_free (plan->position);
  g_free (plan->server_rank);
  g_free (plan->node_of);
  g_free (plan->node_leader);
  g_free (plan->node_start);
  g_free (plan->node_ranks);
  g_free (plan->aux);
  if (plan->local != NULL)
    g_ptr_array_unref (plan->local);
  g_free (plan);
}

double
dts_coll_plan_round_bytes (const DtsCollPlan *plan, int round)
{
  g_return_val_if_fail (round >= 0 && round < plan->n_rounds, 0);
  if (round < plan->n_rounds - 1)
    return plan->chunk_bytes;
  return plan->seg_bytes - (plan->n_rounds - 1) * plan->chunk_bytes;
}

double
dts_coll_plan_bytes_per_rank (const DtsCollPlan *plan)
{
  /* A parameter-server rank pushes every shard once (and pulls it back);
   * with per-node aggregation this is what a leader sends to the servers. */
  if (plan->n_servers > 0)
    return dts_coll_plan_ps_n_talkers (plan) > 1 ? plan->bytes : 0;
  return plan->n_steps * plan->channels * plan->seg_bytes * MAX (plan->sends_per_step, 1);
}

double
dts_coll_pipeline_chunk_bytes (const DtsCollPlan *plan, int k)
{
  int n_chunks = plan->n_levels;
  double slice = plan->bytes / plan->channels;
  return k < n_chunks - 1 ? plan->chunk_bytes : slice - (n_chunks - 1) * plan->chunk_bytes;
}

int
dts_coll_relative_rank (const DtsCollPlan *plan, int part)
{
  return (part - plan->root + plan->n_ranks) % plan->n_ranks;
}

int
dts_coll_same_n_steps (const DtsCollPlan *plan, int part)
{
  return plan->n_steps;
}

gboolean
dts_coll_algorithm_reads_platform (const char *id)
{
  return id != NULL && strcmp (id, "topo-ring") == 0;
}

double
dts_coll_plan_step_transfers (const DtsCollPlan *plan)
{
  return (double) plan->n_steps * plan->n_rounds * plan->channels * plan->n_ranks
         * MAX (plan->sends_per_step, 1);
}

int
dts_coll_plan_n_steps (const DtsCollPlan *plan, int part)
{
  g_return_val_if_fail (part >= 0 && part < plan->n_parts, 0);
  return plan->alg->n_steps (plan, part);
}

void
dts_coll_plan_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  g_return_if_fail (part >= 0 && part < plan->n_parts && out->xfers != NULL);
  g_array_set_size (out->xfers, 0);
  out->phase = 0;
  out->n_rounds = 1;
  out->chunk_bytes = plan->chunk_bytes;
  out->reduce_bytes = 0;
  plan->alg->step_ops (plan, part, step, out);
  if (plan->wire_factor > 1) {
    /* the protocol's overhead on the wire; the reduction sums the data */
    for (guint i = 0; i < out->xfers->len; i++)
      g_array_index (out->xfers, DtsCollXfer, i).bytes *= plan->wire_factor;
    out->chunk_bytes *= plan->wire_factor;
  }
}

int
dts_coll_plan_part_host (const DtsCollPlan *plan, int part)
{
  g_return_val_if_fail (part >= 0 && part < plan->n_parts, 0);
  return plan->alg->part_host (plan, part);
}

gboolean
dts_coll_plan_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data)
{
  return plan->alg->routes (plan, fn, data);
}

double
dts_coll_round_bytes (double bytes, int n_rounds, double chunk_bytes, int round)
{
  g_return_val_if_fail (round >= 0 && round < n_rounds, 0);
  if (round < n_rounds - 1)
    return chunk_bytes;
  return bytes - (n_rounds - 1) * chunk_bytes;
}

int
dts_coll_member_host (const DtsCollPlan *plan, int part)
{
  return part;
}

void
dts_coll_add_xfer (DtsCollStepOps *out, DtsXferKind kind, int peer, double bytes, int channels,
                   gboolean reduce, int tag)
{
  dts_coll_add_xfer_at (out, kind, peer, -1, bytes, channels, reduce, tag);
}

void
dts_coll_add_xfer_at (DtsCollStepOps *out, DtsXferKind kind, int peer, double offset,
                      double bytes, int channels, gboolean reduce, int tag)
{
  DtsCollXfer x = { kind, peer, bytes, channels, reduce, tag, offset, 0 };
  g_array_append_val (out->xfers, x);
}

void
dts_coll_add_xfer_channel (DtsCollStepOps *out, DtsXferKind kind, int peer, int channel,
                           double offset, double bytes, gboolean reduce, int tag)
{
  DtsCollXfer x = { kind, peer, bytes, 1, reduce, tag, offset, channel };
  g_array_append_val (out->xfers, x);
}

int
dts_coll_plan_n_tags (const DtsCollPlan *plan)
{
  return plan->n_tags > 0 ? plan->n_tags : DTS_COLL_N_TAGS;
}

double
dts_coll_plan_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  if (plan->alg == NULL || plan->alg->closed_form_s == NULL)
    return 0;
  double wire = plan->wire_factor > 1 ? plan->wire_factor : 1;
  return plan->alg->closed_form_s (plan, share_Bps / wire, latency_s) + plan->fixed_s;
}

guint64
dts_coll_key_add (guint64 key, gint64 value)
{
  /* FNV-1a over the value's bytes. */
  if (key == 0)
    key = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  for (int i = 0; i < 8; i++) {
    key ^= (guint64) ((value >> (8 * i)) & 0xff);
    key *= G_GUINT64_CONSTANT (0x100000001b3);
  }
  return key;
}

guint64
dts_coll_ring_peer_key (const DtsCollPlan *plan, char family)
{
  guint64 key = dts_coll_key_add (dts_coll_key_add (0, family), plan->n_ranks);
  for (int p = 0; p < plan->n_ranks; p++)
    key = dts_coll_key_add (key, plan->ring[p]);
  return key;
}

gboolean
dts_coll_check_params (const DtsCollParams *params, const char *what, gboolean chunked,
                       GError **error)
{
  if (params->n_ranks < 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "%s: needs at least one rank, got %d", what,
                 params->n_ranks);
    return FALSE;
  }
  if (!(params->bytes >= 0) || !isfinite (params->bytes)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "%s: buffer size must be a finite non-negative number of bytes", what);
    return FALSE;
  }
  if (!chunked)
    return TRUE;
  if (params->channels < 1 || params->channels > DTS_COLL_MAX_CHANNELS) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "%s: channels must be in 1..%d, got %d",
                 what, DTS_COLL_MAX_CHANNELS, params->channels);
    return FALSE;
  }
  if (!(params->chunk_bytes > 0) || !isfinite (params->chunk_bytes)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "%s: chunk size must be a positive number of bytes", what);
    return FALSE;
  }
  return TRUE;
}

DtsCollPlan *
dts_coll_plan_alloc (const char *algorithm, const DtsCollParams *params)
{
  int n = params->n_ranks;
  DtsCollPlan *plan = g_new0 (DtsCollPlan, 1);
  plan->algorithm = g_strdup (algorithm);
  plan->n_ranks = n;
  plan->ring = g_new (int, n);
  plan->position = g_new (int, n);
  for (int r = 0; r < n; r++)
    plan->ring[r] = plan->position[r] = r;
  plan->bytes = params->bytes;
  plan->channels = params->channels;
  plan->chunk_bytes = params->chunk_bytes;
  return plan;
}

void
dts_coll_group_nodes (DtsCollPlan *plan, const DtsCollParams *params, gboolean each_own)
{
  int n = params->n_ranks;
  plan->node_of = g_new (int, n);
  g_autoptr (GHashTable) index = g_hash_table_new (NULL, NULL);
  g_autoptr (GArray) count = g_array_new (FALSE, TRUE, sizeof (int));
  for (int r = 0; r < n; r++) {
    int node = params->gpu_node ? params->gpu_node[r] : each_own ? r : 0;
    gpointer v;
    if (!g_hash_table_lookup_extended (index, GINT_TO_POINTER (node), NULL, &v)) {
      v = GINT_TO_POINTER (count->len);
      g_hash_table_insert (index, GINT_TO_POINTER (node), v);
      g_array_set_size (count, count->len + 1);
    }
    plan->node_of[r] = GPOINTER_TO_INT (v);
    g_array_index (count, int, plan->node_of[r])++;
  }
  int m = (int) count->len;
  plan->n_nodes = m;
  plan->node_start = g_new (int, m + 1);
  plan->node_start[0] = 0;
  for (int i = 0; i < m; i++)
    plan->node_start[i + 1] = plan->node_start[i] + g_array_index (count, int, i);
  plan->node_ranks = g_new (int, n);
  g_autofree int *fill = g_new0 (int, m);
  for (int r = 0; r < n; r++) {
    int i = plan->node_of[r];
    plan->position[r] = fill[i];
    plan->node_ranks[plan->node_start[i] + fill[i]++] = r;
  }
}
