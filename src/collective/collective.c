/* collective.c - the table of all-reduce algorithms and plan helpers shared
 * by every algorithm. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "collective/collective-private.h"
#include "core/error.h"

static const DtsCollAlgorithm algorithms[] = {
  { "ring", "NCCL-style ring: reduce-scatter then all-gather, chunked, over parallel channels",
    dts_coll_ring_plan_new },
  { "ps", "parameter servers: every rank pushes shard k to server k, which sums it; then pulls it",
    dts_coll_ps_plan_new },
  { NULL, NULL, NULL },
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
  for (const DtsCollAlgorithm *a = algorithms; a->id; a++)
    if (strcmp (a->id, algorithm) == 0)
      return a->plan_new (params, error);
  g_autoptr (GString) known = g_string_new (NULL);
  for (const DtsCollAlgorithm *a = algorithms; a->id; a++)
    g_string_append_printf (known, "%s%s", known->len ? ", " : "", a->id);
  g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "unknown collective algorithm '%s' (known: %s)",
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
  return plan->n_steps * plan->channels * plan->seg_bytes;
}
