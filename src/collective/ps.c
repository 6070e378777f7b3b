/* ps.c - synchronous parameter servers as a plan.
 *
 * dtsim run runs this plan only with --ps-aggregation node: without it,
 * --collective ps is the former spelling of --strategy sync-ps
 * (schedule/async.c), the one synchronous parameter-server model, which
 * this plan disagreed with (doc/SIMULATION.md, "Parameter servers"). The
 * plan stays for the per-node sum, which sync-ps does not model yet.
 *
 * Model: TensorFlow's parameter-server data parallelism with synchronous
 * updates. The gradient buffer of S bytes is partitioned over P servers by
 * bytes: server k holds bytes [k S/P, (k+1) S/P), an equal shard of every
 * bucket. TensorFlow places whole variables (round-robin, or greedily by
 * size in tf_cnn_benchmarks); an equal split by bytes is what a greedy
 * placement approaches when tensors are small against S/P, and is the best
 * case: a large tensor that unbalances the servers is not modelled.
 *
 * Every rank pushes shard k to server k (steps 0..P-1), server k sums the N
 * contributions, then every rank pulls the sum of shard k back (steps
 * P..2P-1). Rank r visits the servers in the order r, r+1, ... mod P so that
 * a step does not send every rank to the same server; the simulation posts
 * all pushes (and all pulls) of a rank at once, so the order matters only to
 * readers of the plan. Servers run on the hosts of participants
 * (server_rank): a rank that runs server k keeps shard k on its host.
 *
 * Shards are not chunked: TensorFlow sends each tensor as one message, so
 * n_rounds is 1 and seg_bytes is the shard, S/P; channels is 1.
 *
 * Per-node aggregation (params->node_of): TensorFlow's distributed_replicated
 * sums the gradients of an instance's GPUs before one worker per instance
 * talks to the servers. The local sum is modelled as a ring all-reduce over
 * the node's ranks (the ring plan of ring.c with the run's channels and
 * chunk), not as a reduce to the leader: it is what NCCL does inside a node,
 * it loads every local link evenly (2(m-1)/m S per rank for m ranks) where a
 * reduce to the leader would put (m-1) S on the leader's link, and its
 * closed form is known. It leaves the local sum on every rank of the node,
 * not only on the leader; that costs the same all-gather a ring reduce to
 * one rank would need anyway. The leader, the node's first rank, then
 * takes part in the push and pull; the broadcast of the pulled sum back to
 * the node is one message of S bytes from the leader to each other rank,
 * posted at once (TensorFlow copies the updated variables to every local
 * replica). */
#include "config.h"

#include <math.h>

#include "collective/collective-private.h"
#include "core/error.h"

static gboolean
check_params (const DtsCollParams *params, GError **error)
{
  if (!dts_coll_check_params (params, "parameter servers", FALSE, error))
    return FALSE;
  if (params->n_servers < 1 || params->n_servers > params->n_ranks) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "parameter servers: %d server%s for %d rank%s (expected 1..%d: servers run "
                 "on the participants' hosts)",
                 params->n_servers, params->n_servers == 1 ? "" : "s", params->n_ranks,
                 params->n_ranks == 1 ? "" : "s", params->n_ranks);
    return FALSE;
  }
  for (int r = 0; params->node_of != NULL && r < params->n_ranks; r++)
    if (params->node_of[r] < 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "parameter servers: rank %d on node %d (expected a node index >= 0)", r,
                   params->node_of[r]);
      return FALSE;
    }
  if (params->server_rank == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "parameter servers: no placement of the servers given");
    return FALSE;
  }
  for (int k = 0; k < params->n_servers; k++)
    if (params->server_rank[k] < 0 || params->server_rank[k] >= params->n_ranks) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "parameter servers: server %d placed on rank %d (expected 0..%d)", k,
                   params->server_rank[k], params->n_ranks - 1);
      return FALSE;
    }
  return TRUE;
}

/* Nodes in the order of their first rank; node_of is renumbered to that. */
static gboolean
group_by_node (DtsCollPlan *plan, const DtsCollParams *params, GError **error)
{
  int n = params->n_ranks;
  g_autoptr (GHashTable) index = g_hash_table_new (NULL, NULL);
  plan->node_of = g_new (int, n);
  for (int r = 0; r < n; r++) {
    gpointer key = GINT_TO_POINTER (params->node_of[r]), value;
    if (!g_hash_table_lookup_extended (index, key, NULL, &value)) {
      value = GINT_TO_POINTER (plan->n_nodes++);
      g_hash_table_insert (index, key, value);
    }
    plan->node_of[r] = GPOINTER_TO_INT (value);
  }
  int m = plan->n_nodes;
  plan->node_leader = g_new (int, m);
  plan->node_start = g_new0 (int, m + 1);
  plan->node_ranks = g_new (int, n);
  for (int r = 0; r < n; r++)
    plan->node_start[plan->node_of[r] + 1]++;
  for (int i = 0; i < m; i++)
    plan->node_start[i + 1] += plan->node_start[i];
  g_autofree int *fill = g_memdup2 (plan->node_start, sizeof (int) * m);
  for (int r = 0; r < n; r++)
    plan->node_ranks[fill[plan->node_of[r]]++] = r;
  plan->local = g_ptr_array_new_with_free_func ((GDestroyNotify) dts_coll_plan_free);
  for (int i = 0; i < m; i++) {
    plan->node_leader[i] = plan->node_ranks[plan->node_start[i]];
    DtsCollParams lp = { .n_ranks = plan->node_start[i + 1] - plan->node_start[i],
                         .bytes = params->bytes, .channels = params->channels,
                         .chunk_bytes = params->chunk_bytes };
    DtsCollPlan *local = dts_coll_ring_plan_new (&lp, error);
    if (local == NULL) {
      g_prefix_error (error, "parameter servers, local sum on node %d: ", i);
      return FALSE;
    }
    g_ptr_array_add (plan->local, local);
  }
  return TRUE;
}

DtsCollPlan *
dts_coll_ps_plan_new (const DtsCollParams *params, GError **error)
{
  if (!check_params (params, error))
    return NULL;
  int n = params->n_ranks, p = params->n_servers;
  /* Ring fields keep their meaning (identity order) for code that shows them. */
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_alloc ("ps", params);
  plan->channels = 1;
  plan->n_servers = p;
  plan->server_rank = g_memdup2 (params->server_rank, sizeof (int) * p);
  plan->n_steps = 2 * p;
  plan->n_reduce_steps = p;
  plan->seg_bytes = params->bytes / p;
  plan->n_rounds = 1;
  if (params->node_of != NULL && !group_by_node (plan, params, error))
    return NULL;
  plan->n_parts = n + p;
  plan->n_phases = 3;
  plan->phases[0] = (DtsCollPhase){ 0, 0, FALSE, "node-sum" };
  plan->phases[1] = (DtsCollPhase){ 0, 0, FALSE, "push-pull" };
  plan->phases[2] = (DtsCollPhase){ 0, 0, FALSE, "node-broadcast" };
  guint64 key = dts_coll_key_add (0, 'p');
  key = dts_coll_key_add (key, n);
  for (int k = 0; k < p; k++)
    key = dts_coll_key_add (key, plan->server_rank[k]);
  for (int r = 0; plan->node_of != NULL && r < n; r++)
    key = dts_coll_key_add (key, plan->node_of[r]);
  plan->peer_key = key;
  return g_steal_pointer (&plan);
}

gboolean
dts_coll_plan_ps_talks (const DtsCollPlan *plan, int rank)
{
  g_return_val_if_fail (plan->n_servers > 0 && rank >= 0 && rank < plan->n_ranks, FALSE);
  return plan->node_of == NULL || plan->node_leader[plan->node_of[rank]] == rank;
}

int
dts_coll_plan_ps_n_talkers (const DtsCollPlan *plan)
{
  return plan->node_of != NULL ? plan->n_nodes : plan->n_ranks;
}

void
dts_coll_plan_ps_step (const DtsCollPlan *plan, int rank, int step, DtsCollStep *out)
{
  g_return_if_fail (plan->n_servers > 0 && rank >= 0 && rank < plan->n_ranks && step >= 0
                    && step < plan->n_steps);
  int p = plan->n_servers;
  int k = (rank + step) % p;
  if (step < p) {
    *out = (DtsCollStep){ .send_to = plan->server_rank[k], .recv_from = -1, .send_seg = k,
                          .recv_seg = -1, .reduce = TRUE };
  } else {
    *out = (DtsCollStep){ .send_to = -1, .recv_from = plan->server_rank[k], .send_seg = -1,
                          .recv_seg = k, .reduce = FALSE };
  }
}

/* The generic view. Participants 0..N-1 are the ranks, N+k is server k.
 *
 * A rank: with aggregation, the 2(m-1) steps of its node's ring (m ranks),
 * then, for the leader, one push-pull step, then (m > 1) the broadcast
 * step; without aggregation the push-pull step alone. The push-pull step
 * posts every push (tag 0, to the servers' mailboxes) and every pull (tag 1)
 * at once, in the staggered order of dts_coll_plan_ps_step.
 * A server: receive the talkers' shards (tag 0), sum them (a reduction
 * alone: add_n reads N inputs and writes one, (N + 1) S/P bytes of memory
 * traffic), send the sum to every talker (tag 1), its host last. */
enum { PS_PHASE_NODE_SUM, PS_PHASE_PUSH_PULL, PS_PHASE_BROADCAST };

static int
node_size (const DtsCollPlan *plan, int rank)
{
  int node = plan->node_of[rank];
  return plan->node_start[node + 1] - plan->node_start[node];
}

int
dts_coll_ps_n_steps (const DtsCollPlan *plan, int part)
{
  if (part >= plan->n_ranks)
    return 3;
  if (plan->node_of == NULL)
    return 1;
  int m = node_size (plan, part);
  return (m > 1 ? 2 * (m - 1) + 1 : 0) + (dts_coll_plan_ps_talks (plan, part) ? 1 : 0);
}

int
dts_coll_ps_part_host (const DtsCollPlan *plan, int part)
{
  return part < plan->n_ranks ? part : plan->server_rank[part - plan->n_ranks];
}

static void
push_pull_ops (const DtsCollPlan *plan, int rank, DtsCollStepOps *out)
{
  out->phase = PS_PHASE_PUSH_PULL;
  for (int step = 0; step < plan->n_steps; step++) {
    DtsCollStep st = { -1, -1, -1, -1, FALSE };
    dts_coll_plan_ps_step (plan, rank, step, &st);
    if (st.send_to >= 0)
      dts_coll_add_xfer (out, DTS_XFER_SEND, plan->n_ranks + st.send_seg, plan->seg_bytes, 1,
                         FALSE, 0);
    else
      dts_coll_add_xfer (out, DTS_XFER_RECV, plan->n_ranks + st.recv_seg, plan->seg_bytes, 1,
                         FALSE, 1);
  }
}

static void
server_ops (const DtsCollPlan *plan, int k, int step, DtsCollStepOps *out)
{
  out->phase = PS_PHASE_PUSH_PULL;
  int host = plan->server_rank[k];
  if (step == 1) {
    out->reduce_bytes = (dts_coll_plan_ps_n_talkers (plan) + 1) * plan->seg_bytes
                        / DTS_COLL_REDUCE_TRAFFIC_PER_BYTE;
    return;
  }
  for (int r = 0; r < plan->n_ranks; r++)
    if (dts_coll_plan_ps_talks (plan, r) && (step == 0 || r != host))
      dts_coll_add_xfer (out, step == 0 ? DTS_XFER_RECV : DTS_XFER_SEND, r, plan->seg_bytes, 1,
                         FALSE, step == 0 ? 0 : 1);
  if (step == 2 && dts_coll_plan_ps_talks (plan, host))
    dts_coll_add_xfer (out, DTS_XFER_SEND, host, plan->seg_bytes, 1, FALSE, 1);
}

void
dts_coll_ps_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  if (part >= plan->n_ranks) {
    server_ops (plan, part - plan->n_ranks, step, out);
    return;
  }
  if (plan->node_of == NULL) {
    push_pull_ops (plan, part, out);
    return;
  }
  int node = plan->node_of[part];
  const int *members = plan->node_ranks + plan->node_start[node];
  int m = node_size (plan, part), q = 0;
  while (members[q] != part)
    q++;
  const DtsCollPlan *local = g_ptr_array_index (plan->local, node);
  int ring_steps = m > 1 ? local->n_steps : 0;
  if (step < ring_steps) {
    DtsCollStep st;
    dts_coll_plan_step (local, local->position[q], step, &st);
    out->phase = PS_PHASE_NODE_SUM;
    out->n_rounds = local->n_rounds;
    out->chunk_bytes = local->chunk_bytes;
    dts_coll_add_xfer (out, DTS_XFER_SEND, members[st.send_to], local->seg_bytes,
                       local->channels, FALSE, 0);
    dts_coll_add_xfer (out, DTS_XFER_RECV, members[st.recv_from], local->seg_bytes,
                       local->channels, st.reduce, 0);
    return;
  }
  step -= ring_steps;
  if (dts_coll_plan_ps_talks (plan, part)) {
    if (step == 0) {
      push_pull_ops (plan, part, out);
      return;
    }
    step--;
  }
  /* The node broadcast: one message of S bytes from the leader to each
   * other rank of the node, on the pulls' tag (which only leaders otherwise
   * receive on). */
  out->phase = PS_PHASE_BROADCAST;
  if (q == 0)
    for (int i = 1; i < m; i++)
      dts_coll_add_xfer (out, DTS_XFER_SEND, members[i], plan->bytes, 1, FALSE, 1);
  else
    dts_coll_add_xfer (out, DTS_XFER_RECV, members[0], plan->bytes, 1, FALSE, 1);
}

gboolean
dts_coll_ps_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data)
{
  /* Per-node aggregation: a local ring in each node, then the leader
   * broadcasts the pulled sums to its node. */
  for (int i = 0; plan->local != NULL && i < plan->n_nodes; i++) {
    const int *ranks = plan->node_ranks + plan->node_start[i];
    int m = plan->node_start[i + 1] - plan->node_start[i];
    for (int q = 0; q < m && m > 1; q++)
      if (!fn (ranks[q], ranks[(q + 1) % m], "a rank sends to its successor in its node's ring",
               data)
          || !fn (plan->node_leader[i], ranks[q], "a node's leader sends the sums to its node",
                  data))
        return FALSE;
  }
  for (int k = 0; k < plan->n_servers; k++)
    for (int r = 0; r < plan->n_ranks; r++)
      if (dts_coll_plan_ps_talks (plan, r)
          && (!fn (r, plan->n_ranks + k, "ranks send gradients to every parameter server", data)
              || !fn (plan->n_ranks + k, r, "parameter servers send the sums to every rank",
                      data)))
        return FALSE;
  return TRUE;
}
