/* allreduce-run.c - all-reduces alone on a platform (see allreduce-run.h).
 *
 * One actor per participating GPU runs the plans of src/collective the way
 * sim.c runs a bucket's plan, so that `dtsim allreduce` and the
 * communication stream of `dtsim run` give the same time for the same plan
 * (tests/unit/test-allreduce.c compares them):
 *
 * step: at ring step s, for every round (chunk) the rank posts one send per
 * channel to its successor and one receive per channel from its
 * predecessor, starts the reduction of the received chunks on its GPU
 * (reduce-scatter steps; 3 bytes of device memory traffic per reduced byte
 * at the GPU's memory bandwidth) and waits for all of them;
 *
 * flow: per phase the rank sleeps (N-1) R Lmax - L_own, sends one flow per
 * channel of its (N-1) segments with one reduction execution alongside
 * (reduce-scatter), and all ranks leave the phase together.
 *
 * Unlike sim.c this file records when each rank starts and ends each step,
 * and puts a barrier before every all-reduce so that sizes do not overlap.
 * Transfers are rounded to whole bytes (SimGrid counts bytes in a long). */
#include "config.h"

#include <math.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/mailbox.h>
#include <xbt/dynar.h>

#include "collective/collective.h"
#include "core/error.h"
#include "platform/gpu.h"
#include "platform/override.h"
#include "platform/platform.h"
#include "sim/allreduce-run.h"
#include "sim/override.h"
#include "sim/routes.h"
#include "sim/sg-shim.h"
#include "sim/sim-private.h"
#include "sim/sim.h"

typedef struct _Ar Ar;

typedef struct {
  Ar *ar;
  int rank;
  sg_host_t host;
  double speed_flops;
  double reduce_s_per_byte;
  sg_mailbox_t inbox;
} ArRank;

struct _Ar {
  const DtsAllreduceOptions *opts;
  int n;
  ArRank *ranks;
  GPtrArray *plans;          /* DtsCollPlan *, one per size */
  DtsAllreduceResult *result;
  double *end_s;             /* [size * n + rank] */
  double *hop_latency_s;     /* rank -> route latency to its successor */
  double max_latency_s;
  gboolean routes_known;
  sg_bar_t barrier;
  int finished;
  int payload;               /* mailbox payloads must be non-NULL */
};

static double
now (void)
{
  return simgrid_get_clock ();
}

void
dts_allreduce_result_free (DtsAllreduceResult *r)
{
  if (r == NULL)
    return;
  g_free (r->platform);
  g_free (r->gpu);
  g_free (r->granularity);
  g_free (r->bottleneck_link);
  if (r->sizes)
    g_array_unref (r->sizes);
  if (r->slices)
    g_array_unref (r->slices);
  g_strfreev (r->rank_hosts);
  g_strfreev (r->cfg);
  g_free (r);
}

double
dts_allreduce_closed_form_s (int n, double bytes, double bottleneck_Bps, double latency_s)
{
  if (n < 2)
    return 0;
  return 2.0 * (n - 1) / n * bytes / bottleneck_Bps + 2.0 * (n - 1) * latency_s;
}

double
dts_allreduce_bus_bw_Bps (int n, double bytes, double time_s)
{
  if (!(time_s > 0))
    return 0;
  return bytes / time_s * 2.0 * (n - 1) / n;
}

/* The ring's routes, read once the platform is sealed (from an actor): hop
 * latencies and the bottleneck share B of the closed form. Links are
 * visited hop by hop in route order, so ties go to the first one met. */
static void
read_routes (Ar *ar)
{
  if (ar->routes_known)
    return;
  ar->routes_known = TRUE;
  DtsAllreduceResult *res = ar->result;
  g_autoptr (GHashTable) hops = g_hash_table_new (NULL, NULL); /* sg_link_t -> count */
  g_autoptr (GPtrArray) order = g_ptr_array_new ();             /* sg_link_t, first met */
  for (int p = 0; p < ar->n; p++) {
    sg_host_t from = ar->ranks[p].host, to = ar->ranks[(p + 1) % ar->n].host;
    ar->hop_latency_s[p] = sg_host_get_route_latency (from, to);
    ar->max_latency_s = MAX (ar->max_latency_s, ar->hop_latency_s[p]);
    xbt_dynar_t links = xbt_dynar_new (sizeof (sg_link_t), NULL);
    sg_host_get_route (from, to, links);
    unsigned int cursor;
    sg_link_t link;
    xbt_dynar_foreach (links, cursor, link)
    {
      gpointer old = NULL;
      if (!g_hash_table_lookup_extended (hops, link, NULL, &old))
        g_ptr_array_add (order, link);
      g_hash_table_insert (hops, link, GINT_TO_POINTER (GPOINTER_TO_INT (old) + 1));
    }
    xbt_dynar_free (&links);
  }
  res->hop_latency_s = ar->max_latency_s;
  res->bottleneck_Bps = INFINITY;
  for (guint i = 0; i < order->len; i++) {
    sg_link_t link = g_ptr_array_index (order, i);
    int count = GPOINTER_TO_INT (g_hash_table_lookup (hops, link));
    int sharers = sg_link_is_shared (link) ? count : 1;
    double share = sg_link_get_bandwidth (link) / sharers;
    if (share < res->bottleneck_Bps) {
      res->bottleneck_Bps = share;
      g_free (res->bottleneck_link);
      res->bottleneck_link = g_strdup (sg_link_get_name (link));
      res->bottleneck_hops = sharers;
    }
  }
  if (order->len == 0)
    res->bottleneck_Bps = 0;
}

static void
add_slice (Ar *ar, int size_index, int rank, int step, int phase, double t0, double t1)
{
  if (ar->result->slices == NULL)
    return;
  DtsAllreduceSlice s = { size_index, rank, step, phase, t0, t1 };
  g_array_append_val (ar->result->slices, s);
}

static sg_exec_t
reduce_async (Ar *ar, ArRank *rk, double bytes)
{
  if (!(bytes > 0))
    return NULL;
  ar->result->events++;
  return sg_actor_exec_async (bytes * rk->reduce_s_per_byte * rk->speed_flops);
}

static void
exchange (Ar *ar, ArRank *rk, sg_mailbox_t to, long bytes, int channels, sg_exec_t reduction)
{
  ar->result->events += dts_sim_exchange (rk->inbox, to, &ar->payload, bytes, channels, reduction);
}

static void
run_step (Ar *ar, ArRank *rk, int k)
{
  const DtsCollPlan *plan = g_ptr_array_index (ar->plans, k);
  int pos = plan->position[rk->rank];
  for (int s = 0; s < plan->n_steps; s++) {
    DtsCollStep st;
    dts_coll_plan_step (plan, pos, s, &st);
    sg_mailbox_t to = ar->ranks[st.send_to].inbox;
    double t0 = now ();
    for (int r = 0; r < plan->n_rounds; r++) {
      double bytes = dts_coll_plan_round_bytes (plan, r);
      sg_exec_t red = st.reduce ? reduce_async (ar, rk, bytes * plan->channels) : NULL;
      exchange (ar, rk, to, llround (bytes), plan->channels, red);
    }
    add_slice (ar, k, rk->rank, s, st.reduce ? 0 : 1, t0, now ());
  }
}

static void
run_flow (Ar *ar, ArRank *rk, int k)
{
  const DtsCollPlan *plan = g_ptr_array_index (ar->plans, k);
  DtsCollStep st;
  dts_coll_plan_step (plan, plan->position[rk->rank], 0, &st);
  sg_mailbox_t to = ar->ranks[st.send_to].inbox;
  int phase_steps[2] = { plan->n_reduce_steps, plan->n_steps - plan->n_reduce_steps };
  for (int ph = 0; ph < 2; ph++) {
    double t0 = now ();
    double extra_s = phase_steps[ph] * plan->n_rounds * ar->max_latency_s
                     - ar->hop_latency_s[rk->rank];
    if (extra_s > 0) {
      sg_actor_sleep_for (extra_s);
      ar->result->events++;
    }
    double bytes = phase_steps[ph] * plan->seg_bytes;
    sg_exec_t red = ph == 0 ? reduce_async (ar, rk, bytes * plan->channels) : NULL;
    exchange (ar, rk, to, llround (bytes), plan->channels, red);
    sg_barrier_wait (ar->barrier);
    add_slice (ar, k, rk->rank, -1, ph, t0, now ());
  }
}

static void
rank_actor (int argc, char **argv)
{
  ArRank *rk = sg_actor_self_get_data ();
  Ar *ar = rk->ar;
  read_routes (ar);
  for (int k = 0; k < ar->opts->n_sizes; k++) {
    sg_barrier_wait (ar->barrier);
    if (rk->rank == 0)
      g_array_index (ar->result->sizes, DtsAllreduceSize, k).t_start_s = now ();
    if (ar->opts->granularity == DTS_GRANULARITY_STEP)
      run_step (ar, rk, k);
    else
      run_flow (ar, rk, k);
    ar->end_s[(gsize) k * ar->n + rk->rank] = now ();
  }
  ar->finished++;
}

static gboolean
set_up_ranks (Ar *ar, const DtsPlatform *platform, GError **error)
{
  for (int r = 0; r < ar->n; r++) {
    ArRank *rk = &ar->ranks[r];
    rk->ar = ar;
    rk->rank = r;
    if (!dts_sim_rank_host (platform, r, "runs the reduction kernel on it", &rk->host,
                            &rk->speed_flops, &rk->reduce_s_per_byte, error))
      return FALSE;
    g_autofree char *mb = g_strdup_printf ("dtsim-allreduce-%d", r);
    rk->inbox = sg_mailbox_by_name (mb);
  }
  return TRUE;
}

static gboolean ran_here;

DtsAllreduceResult *
dts_allreduce_run (const DtsAllreduceOptions *opts, GError **error)
{
  g_return_val_if_fail (opts->platform_path != NULL && opts->n_sizes >= 1, NULL);
  g_return_val_if_fail (opts->granularity >= 0 && opts->granularity < DTS_GRANULARITY_COUNT,
                        NULL);
  g_autoptr (DtsGpuCatalog) catalog = dts_gpu_catalog_load (NULL, error);
  if (catalog == NULL)
    return NULL;
  g_autoptr (DtsPlatform) platform = dts_platform_load (opts->platform_path, catalog, error);
  if (platform == NULL)
    return NULL;
  if (opts->overrides != NULL && !dts_override_apply_gpus (opts->overrides, platform, error))
    return NULL;
  int have = platform->gpus->len;
  int n = opts->n_gpus ? opts->n_gpus : have;
  if (n > have || n < 2) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--gpus %d: platform '%s' has %d GPU%s (an all-reduce needs 2 or more)", n,
                 opts->platform_path, have, have == 1 ? "" : "s");
    return NULL;
  }

  g_autoptr (GPtrArray) plans = g_ptr_array_new_with_free_func ((GDestroyNotify) dts_coll_plan_free);
  for (int k = 0; k < opts->n_sizes; k++) {
    DtsCollParams params = { .n_ranks = n, .ring = NULL, .bytes = opts->sizes_bytes[k],
                             .channels = opts->channels, .chunk_bytes = opts->chunk_bytes };
    DtsCollPlan *plan = dts_coll_plan_new ("ring", &params, error);
    if (plan == NULL)
      return NULL;
    g_ptr_array_add (plans, plan);
  }
  if (opts->granularity == DTS_GRANULARITY_STEP) {
    double transfers = 0;
    for (guint k = 0; k < plans->len; k++) {
      const DtsCollPlan *plan = g_ptr_array_index (plans, k);
      transfers += (double) plan->n_steps * plan->n_rounds * plan->channels * n;
    }
    if (transfers > DTS_ALLREDUCE_MAX_STEP_TRANSFERS) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--comm-granularity step: %.3g transfers to simulate (at most %.0e, about "
                   "ten minutes); use a larger --chunk-size, smaller sizes or "
                   "--comm-granularity flow",
                   transfers, DTS_ALLREDUCE_MAX_STEP_TRANSFERS);
      return NULL;
    }
  }

  if (dts_sim_cfg_applied () == NULL && !dts_sim_configure (opts->cfg, error))
    return NULL;
  if (ran_here) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "the simulator can run once per process");
    return NULL;
  }
  ran_here = TRUE;
  g_autofree char *message = NULL;
  if (!dts_sg_load_platform (opts->platform_path, &message)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "platform '%s': %s", opts->platform_path,
                 message);
    return NULL;
  }
  if (opts->overrides != NULL && !dts_sim_apply_overrides (opts->overrides, error))
    return NULL;

  g_autoptr (DtsAllreduceResult) res = g_new0 (DtsAllreduceResult, 1);
  res->platform = g_path_get_basename (opts->platform_path);
  if (g_str_has_suffix (res->platform, ".xml"))
    res->platform[strlen (res->platform) - 4] = '\0';
  res->gpu = g_strdup (dts_platform_gpu (platform, 0)->spec.id);
  res->n_gpus = n;
  res->n_nodes = dts_platform_count_nodes (platform, n);
  res->channels = opts->channels;
  res->chunk_bytes = opts->chunk_bytes;
  res->granularity = g_strdup (dts_granularity_to_string (opts->granularity));
  res->cfg = g_strdupv (dts_sim_cfg_applied ());
  res->sizes = g_array_new (FALSE, TRUE, sizeof (DtsAllreduceSize));
  if (opts->record_steps)
    res->slices = g_array_new (FALSE, FALSE, sizeof (DtsAllreduceSlice));
  g_autoptr (GStrvBuilder) hosts = g_strv_builder_new ();
  for (int r = 0; r < n; r++)
    g_strv_builder_add (hosts, dts_platform_gpu (platform, r)->host);
  res->rank_hosts = g_strv_builder_end (hosts);
  for (int k = 0; k < opts->n_sizes; k++) {
    const DtsCollPlan *plan = g_ptr_array_index (plans, k);
    DtsAllreduceSize sz = { .bytes = plan->bytes, .n_rounds = plan->n_rounds };
    g_array_append_val (res->sizes, sz);
  }

  g_autofree ArRank *ranks = g_new0 (ArRank, n);
  g_autofree double *end_s = g_new0 (double, (gsize) n * opts->n_sizes);
  g_autofree double *hop_latency_s = g_new0 (double, n);
  Ar ar = { .opts = opts, .n = n, .ranks = ranks, .plans = plans, .result = res,
            .end_s = end_s, .hop_latency_s = hop_latency_s };
  if (!set_up_ranks (&ar, platform, error))
    return NULL;
  if (!dts_sim_check_routes (platform, plans, error))
    return NULL;

  gint64 wall_start_us = g_get_monotonic_time ();
  ar.barrier = sg_barrier_init (n);
  for (int r = 0; r < n; r++) {
    g_autofree char *name = g_strdup_printf ("allreduce-%d", r);
    sg_actor_t a = sg_actor_init (name, ranks[r].host);
    sg_actor_set_data (a, &ranks[r]);
    sg_actor_start (a, rank_actor, 0, NULL);
  }
  simgrid_run ();
  res->wall_time_s = (g_get_monotonic_time () - wall_start_us) / 1e6;
  sg_barrier_destroy (ar.barrier);
  if (ar.finished != n) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "internal error: the simulation stopped with %d of %d ranks unfinished",
                 n - ar.finished, n);
    return NULL;
  }
  for (int k = 0; k < opts->n_sizes; k++) {
    DtsAllreduceSize *sz = &g_array_index (res->sizes, DtsAllreduceSize, k);
    double end = sz->t_start_s;
    for (int r = 0; r < n; r++)
      end = MAX (end, end_s[(gsize) k * n + r]);
    sz->time_s = end - sz->t_start_s;
    sz->closed_form_s =
        dts_allreduce_closed_form_s (n, sz->bytes, res->bottleneck_Bps, res->hop_latency_s);
  }
  return g_steal_pointer (&res);
}
