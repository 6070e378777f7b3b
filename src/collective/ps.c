/* ps.c - synchronous parameter servers as a plan.
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
  if (params->n_ranks < 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "parameter servers: needs at least one rank, got %d", params->n_ranks);
    return FALSE;
  }
  if (!(params->bytes >= 0) || !isfinite (params->bytes)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "parameter servers: buffer size must be a finite non-negative number of bytes");
    return FALSE;
  }
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
  g_autoptr (DtsCollPlan) plan = g_new0 (DtsCollPlan, 1);
  plan->algorithm = g_strdup ("ps");
  plan->n_ranks = n;
  /* Ring fields keep their meaning (identity order) for code that shows them. */
  plan->ring = g_new (int, n);
  plan->position = g_new (int, n);
  for (int r = 0; r < n; r++)
    plan->ring[r] = plan->position[r] = r;
  plan->bytes = params->bytes;
  plan->channels = 1;
  plan->chunk_bytes = params->chunk_bytes;
  plan->n_servers = p;
  plan->server_rank = g_memdup2 (params->server_rank, sizeof (int) * p);
  plan->n_steps = 2 * p;
  plan->n_reduce_steps = p;
  plan->seg_bytes = params->bytes / p;
  plan->n_rounds = 1;
  if (params->node_of != NULL && !group_by_node (plan, params, error))
    return NULL;
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
