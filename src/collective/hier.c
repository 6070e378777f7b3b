/* hier.c - hierarchical (2D) all-reduce as a plan: intra-node
 * reduce-scatter, inter-node all-reduce per rail, intra-node all-gather.
 *
 * Model (NCCL's tree/ring split and Horovod's hierarchical all-reduce;
 * Jia et al., "Highly scalable deep learning training system with
 * mixed-precision", 2018, 2D all-reduce): the ranks are grouped by the node
 * of their GPU (DtsCollParams.gpu_node), m nodes of g GPUs each, in rank
 * order; every node must have the same g. Each channel's slice (S/C bytes)
 * is cut into g segments.
 *  1. intra-node reduce-scatter: a ring over the node's g GPUs, g - 1 steps
 *     (as ring.c: local position q sends segment (q - s) mod g to q + 1 and
 *     reduces segment (q - s - 1) mod g from q - 1); afterwards local
 *     position q holds the node's sum of segment (q + 1) mod g;
 *  2. inter-node all-reduce per rail: the GPUs with the same local
 *     position q on every node (a rail: on a multi-NIC node, the GPUs that
 *     share a NIC and a leaf switch) run a ring all-reduce of that
 *     segment, cut into m pieces, 2(m - 1) steps, over the nodes in order;
 *     the g rails run at the same time, each through its own GPUs' NICs;
 *  3. intra-node all-gather: the node ring again, g - 1 steps, each GPU
 *     forwarding the finished segments.
 * Every rank sends 2(g-1)/g S bytes inside its node and 2(m-1)/(m g) S
 * across nodes (the flat ring sends 2(N-1)/N S across nodes through the
 * ring's one crossing per node). Tag 0 is the node ring, tag 1 the rail
 * ring.
 *
 * Pipelining: the three stages use different links (NVLink or NVSwitch
 * inside the node, NICs across), so the buffer is cut into P pieces, each
 * of whose g node segments is at most one chunk (P = ceil(S / (C g chunk))),
 * and piece p enters the stages K = max(g - 1, 2(m - 1)) steps after piece
 * p - 1: at any step at most one piece is in each stage, and a step holds
 * the transfers of every piece that is in a stage then (one round each).
 * (P - 1) K + 2(g - 1) + 2(m - 1) steps in all. Without pipelining the
 * node stages would bound what 8 NICs per node can give over 1: on 8-GPU
 * NVSwitch nodes of 300 GB/s per GPU and 25 GB/s NICs, near 5x. One piece
 * (P = 1) runs the stages one after the other as four lock-step phases;
 * more pieces make one phase that runs step by step at both granularities.
 *
 * Closed form on a contention-free platform where every GPU has its own
 * link of bandwidth B (the flat test platforms, with nodes) and every route
 * latency L: a step's transfers share the GPU's link, so
 *   T = sum over steps of (L + (bytes the step sends) / B),
 * a step sending S/(P g) per node stage and S/(P g m) per rail stage it
 * holds; with P = 1, 2(g-1) (L + S/(g B)) + 2(m-1) (L + S/(g m B)).
 * dtsim allreduce reads B from the routes as the share of a GPU's link over
 * the plan's routes that cross it: the node ring and the rail ring both
 * cross it, so B = share x ((g > 1) + (m > 1)). On nodes whose GPUs talk
 * faster to each other than to other nodes (NVSwitch, NICs) the stages run
 * at different bandwidths and this form does not apply. */
#include "config.h"

#include <math.h>

#include "collective/collective-private.h"
#include "core/error.h"

static int
mod (int a, int n)
{
  int r = a % n;
  return r < 0 ? r + n : r;
}

DtsCollPlan *
dts_coll_hier_plan_new (const DtsCollParams *params, GError **error)
{
  if (!dts_coll_check_params (params, "hierarchical all-reduce", TRUE, error))
    return NULL;
  int n = params->n_ranks;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_alloc ("hier", params);
  /* Nodes in order of first appearance, ranks in rank order; position is
   * the local position. */
  dts_coll_group_nodes (plan, params, FALSE);
  int m = plan->n_nodes, g = plan->node_start[1];
  for (int i = 1; i < m; i++)
    if (plan->node_start[i + 1] - plan->node_start[i] != g) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "hierarchical all-reduce: every node needs the same number of GPUs (node 0 has "
                   "%d, node %d has %d); use a multiple of %d GPUs",
                   g, i, plan->node_start[i + 1] - plan->node_start[i], g);
      return NULL;
    }
  plan->n_levels = g;
  plan->node_leader = g_new (int, m);
  for (int i = 0; i < m; i++)
    plan->node_leader[i] = plan->node_ranks[i * g];
  double slice = params->bytes / params->channels;
  /* Pieces of at most a chunk per node segment, pipelined one stage
   * length (K slots) apart. */
  double pieces = ceil (slice / g / plan->chunk_bytes * (1 - 1e-12));
  int K = MAX (g - 1, 2 * (m - 1));
  if (pieces * MAX (K, 1) > 1e8) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "hierarchical all-reduce: %.0f pieces of %d steps; use a larger chunk size",
                 pieces, K);
    return NULL;
  }
  int P = pieces < 1 ? 1 : (int) pieces;
  plan->n_rounds = 1;
  plan->seg_bytes = slice / P / g;
  plan->n_servers = 0;
  plan->sends_per_step = P > 1 ? 3 : 1;
  plan->n_parts = n;
  plan->n_reduce_steps = (g - 1) + (m - 1);
  /* aux: pieces, slots between two pieces' starts. */
  plan->aux = g_new (int, 2);
  plan->aux[0] = P;
  plan->aux[1] = K;
  plan->n_steps = n > 1 ? (P - 1) * K + 2 * (g - 1) + 2 * (m - 1) : 0;
  if (P == 1) {
    plan->n_phases = 4;
    plan->phases[0] = (DtsCollPhase){ 0, g - 1, TRUE, "node-reduce-scatter" };
    plan->phases[1] = (DtsCollPhase){ g - 1, m - 1, TRUE, "rail-reduce-scatter" };
    plan->phases[2] = (DtsCollPhase){ g - 1 + m - 1, m - 1, TRUE, "rail-all-gather" };
    plan->phases[3] = (DtsCollPhase){ g - 1 + 2 * (m - 1), g - 1, TRUE, "node-all-gather" };
  } else {
    plan->n_phases = 1;
    plan->phases[0] = (DtsCollPhase){ 0, plan->n_steps, FALSE, "pipeline" };
  }
  guint64 key = dts_coll_key_add (dts_coll_key_add (0, 'h'), n);
  for (int q = 0; q < n; q++)
    key = dts_coll_key_add (key, plan->node_ranks[q]);
  plan->peer_key = key;
  return g_steal_pointer (&plan);
}

int
dts_coll_hier_n_steps (const DtsCollPlan *plan, int part)
{
  return plan->n_steps;
}

/* The transfers of stage step T (0 .. 2(g-1) + 2(m-1) - 1) of piece P of
 * member PART: SENDS or receives. */
static void
stage_xfers (const DtsCollPlan *plan, int part, int piece, int t, gboolean sends,
             DtsCollStepOps *out)
{
  int g = plan->n_levels, m = plan->n_nodes;
  int q = plan->position[part], i = plan->node_of[part];
  double seg = plan->seg_bytes, base = piece * seg * g;
  if (t < g - 1 || t >= g - 1 + 2 * (m - 1)) {
    gboolean rs = t < g - 1;
    int s = rs ? t : t - (g - 1) - 2 * (m - 1);
    int peer = plan->node_ranks[i * g + mod (q + (sends ? 1 : -1), g)];
    int sg = sends ? (rs ? mod (q - s, g) : mod (q + 1 - s, g))
                   : (rs ? mod (q - s - 1, g) : mod (q - s, g));
    dts_coll_add_xfer_at (out, sends ? DTS_XFER_SEND : DTS_XFER_RECV, peer, base + sg * seg, seg,
                          plan->channels, !sends && rs, 0);
    return;
  }
  /* The rail ring over the nodes, on segment (q + 1) mod g cut into m. */
  gboolean rs = t < g - 1 + m - 1;
  int s = t - (g - 1) - (rs ? 0 : m - 1);
  int peer = plan->node_ranks[mod (i + (sends ? 1 : -1), m) * g + q];
  double piece_bytes = seg / m, at = base + mod (q + 1, g) * seg;
  int pc = sends ? (rs ? mod (i - s, m) : mod (i + 1 - s, m))
                 : (rs ? mod (i - s - 1, m) : mod (i - s, m));
  dts_coll_add_xfer_at (out, sends ? DTS_XFER_SEND : DTS_XFER_RECV, peer, at + pc * piece_bytes,
                        piece_bytes, plan->channels, !sends && rs, 1);
}

void
dts_coll_hier_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  int g = plan->n_levels, m = plan->n_nodes;
  int P = plan->aux[0], K = plan->aux[1];
  int len = 2 * (g - 1) + 2 * (m - 1);
  out->n_rounds = 1;
  out->chunk_bytes = plan->chunk_bytes;
  out->phase = 0;
  for (int ph = 0; P == 1 && ph < 3; ph++)
    if (step >= plan->phases[ph].first_step + plan->phases[ph].n_steps)
      out->phase = ph + 1;
  /* The pieces at a stage step now: later pieces are earlier in their
   * stages; sends first, then receives, both in piece order. */
  int first = K > 0 ? MAX (0, (step - len + K) / K) : 0;
  for (int pass = 0; pass < 2; pass++)
    for (int p = first; p < P && p * K <= step; p++) {
      int t = step - p * K;
      if (t < len)
        stage_xfers (plan, part, p, t, pass == 0, out);
    }
}

gboolean
dts_coll_hier_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data)
{
  int g = plan->n_levels, m = plan->n_nodes;
  for (int r = 0; r < plan->n_ranks; r++) {
    int q = plan->position[r], i = plan->node_of[r];
    if (g > 1
        && !fn (r, plan->node_ranks[i * g + mod (q + 1, g)],
                "a GPU sends to its successor in its node's ring", data))
      return FALSE;
    if (m > 1
        && !fn (r, plan->node_ranks[mod (i + 1, m) * g + q],
                "a GPU sends to the GPU of its rail on the next node", data))
      return FALSE;
  }
  return TRUE;
}

double
dts_coll_hier_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  if (plan->n_ranks < 2 || !(share_Bps > 0))
    return 0;
  int g = plan->n_levels, m = plan->n_nodes;
  int P = plan->aux[0], K = plan->aux[1];
  int len = 2 * (g - 1) + 2 * (m - 1);
  double B = share_Bps * ((g > 1) + (m > 1));
  double seg = plan->seg_bytes * plan->channels;
  double t = 0;
  for (int step = 0; step < plan->n_steps; step++) {
    double bytes = 0;
    int first = K > 0 ? MAX (0, (step - len + K) / K) : 0;
    for (int p = first; p < P && p * K <= step; p++) {
      int s = step - p * K;
      if (s < len)
        bytes += s < g - 1 || s >= g - 1 + 2 * (m - 1) ? seg : seg / m;
    }
    t += latency_s + bytes / B;
  }
  return t;
}
