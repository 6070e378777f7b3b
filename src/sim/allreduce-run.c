/* allreduce-run.c - all-reduces alone on a platform (see allreduce-run.h).
 *
 * The all-reduces are a schedule with no compute
 * (dts_schedule_collectives_new: every rank waits at a barrier, then takes
 * part in the plan of one size, size after size) run by the interpreter of
 * `dtsim run` (sim.c), so that `dtsim allreduce` and the communication
 * stream of `dtsim run` give the same time for the same plan
 * (tests/unit/test-allreduce.c compares them). The interpreter records when
 * each rank starts and ends each step (each phase at flow granularity);
 * this file adds the closed form, read from the plan's routes once the
 * platform is sealed. */
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
#include "schedule/schedule.h"
#include "sim/allreduce-run.h"
#include "sim/override.h"
#include "sim/routes.h"
#include "sim/sg-shim.h"
#include "sim/sim-private.h"
#include "sim/sim.h"

void
dts_allreduce_result_free (DtsAllreduceResult *r)
{
  if (r == NULL)
    return;
  g_free (r->platform);
  g_free (r->gpu);
  g_free (r->granularity);
  g_free (r->algorithm);
  g_free (r->bottleneck_link);
  for (guint k = 0; r->sizes && k < r->sizes->len; k++)
    if (g_array_index (r->sizes, DtsAllreduceSize, k).candidates)
      g_array_unref (g_array_index (r->sizes, DtsAllreduceSize, k).candidates);
  if (r->sizes)
    g_array_unref (r->sizes);
  if (r->slices)
    g_array_unref (r->slices);
  if (r->plans)
    g_ptr_array_unref (r->plans);
  g_strfreev (r->rank_hosts);
  g_strfreev (r->cfg);
  g_free (r);
}

double
dts_allreduce_closed_form_s (int n, double bytes, double bottleneck_Bps, double latency_s)
{
  return dts_coll_ring_closed_form_s (n, bytes, bottleneck_Bps, latency_s);
}

double
dts_allreduce_bus_bw_Bps (int n, double bytes, double time_s)
{
  if (!(time_s > 0))
    return 0;
  return bytes / time_s * 2.0 * (n - 1) / n;
}

/* The routes of the plans, read once the platform is sealed (routes.h,
 * dts_sim_plan_bottleneck): the first plan's give the header's B and L and,
 * when one algorithm runs every size, every size's closed form; under
 * --collective auto each size's closed form has its own plan's. */
typedef struct {
  const DtsPlatform *platform;
  GPtrArray *plans;
  DtsAllreduceResult *res;
  gboolean each;           /* every plan its own routes (auto) */
} Sealed;

static void
read_routes (gpointer data)
{
  Sealed *sd = data;
  DtsAllreduceResult *res = sd->res;
  for (guint k = 0; k < sd->plans->len; k++) {
    const DtsCollPlan *plan = g_ptr_array_index (sd->plans, k);
    DtsAllreduceSize *sz = &g_array_index (res->sizes, DtsAllreduceSize, k);
    if (k > 0 && !sd->each) {
      sz->share_Bps = res->bottleneck_Bps;
      sz->latency_s = res->hop_latency_s;
      continue;
    }
    /* A size whose plan joins the same pairs as an earlier one's shares its
     * routes (peer_key, collective.h). */
    gboolean seen = FALSE;
    for (guint q = 0; q < k && !seen; q++) {
      const DtsCollPlan *earlier = g_ptr_array_index (sd->plans, q);
      if (earlier->alg == plan->alg && earlier->peer_key == plan->peer_key) {
        const DtsAllreduceSize *e = &g_array_index (res->sizes, DtsAllreduceSize, q);
        sz->share_Bps = e->share_Bps;
        sz->latency_s = e->latency_s;
        seen = TRUE;
      }
    }
    if (seen)
      continue;
    DtsPlanBottleneck b;
    /* dts_sim_check_routes has checked every pair. */
    gboolean ok = dts_sim_plan_bottleneck (sd->platform, plan, &b, NULL);
    g_assert (ok);
    sz->share_Bps = b.share_Bps;
    sz->latency_s = b.latency_s;
    if (k == 0) {
      res->bottleneck_Bps = b.share_Bps;
      res->bottleneck_link = g_steal_pointer (&b.link);
      res->bottleneck_hops = b.sharers;
      res->hop_latency_s = b.latency_s;
    }
    g_free (b.link);
  }
}

DtsAllreduceResult *
dts_allreduce_run (const DtsAllreduceOptions *opts, GError **error)
{
  g_return_val_if_fail (opts->platform_path != NULL && opts->n_sizes >= 1, NULL);
  g_return_val_if_fail (opts->granularity >= 0 && opts->granularity < DTS_GRANULARITY_COUNT,
                        NULL);
  g_autoptr (DtsPlatform) platform =
      dts_override_load_platform (opts->platform_path, opts->overrides, error);
  if (platform == NULL)
    return NULL;
  int have = platform->gpus->len;
  int n = opts->n_gpus ? opts->n_gpus : have;
  if (n > have || n < 2) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--gpus %d: platform '%s' has %d GPU%s (an all-reduce needs 2 or more)", n,
                 opts->platform_path, have, have == 1 ? "" : "s");
    return NULL;
  }

  const char *algorithm = dts_coll_algorithm_or_default (opts->collective);
  gboolean tuned = dts_coll_is_tuned (algorithm);
  g_autoptr (DtsSimTuner) tuner = NULL;
  if (tuned || dts_coll_algorithm_reads_platform (algorithm)) {
    tuner = dts_sim_tuner_new (platform, opts->cfg, opts->overrides, error);
    if (tuner == NULL)
      return NULL;
    dts_sim_tuner_set_nccl (tuner, &opts->nccl);
  }
  g_autofree int *gpu_node = g_new (int, n);
  for (int r = 0; r < n; r++)
    gpu_node[r] = dts_platform_gpu (platform, r)->node;
  GPtrArray *plans = g_ptr_array_new_with_free_func ((GDestroyNotify) dts_coll_plan_free);
  g_autoptr (GPtrArray) candidates = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (int k = 0; k < opts->n_sizes; k++) {
    DtsCollParams params = { .n_ranks = n, .ring = NULL, .bytes = opts->sizes_bytes[k],
                             .channels = opts->channels, .chunk_bytes = opts->chunk_bytes,
                             .gpu_node = gpu_node,
                             .tuner = tuner ? dts_sim_tuner_get (tuner) : NULL,
                             .op = (DtsCollOp) opts->op, .root = opts->root };
    GArray *rows = tuned ? g_array_new (FALSE, FALSE, sizeof (DtsCollTuneRow)) : NULL;
    if (rows != NULL)
      g_ptr_array_add (candidates, rows);
    DtsCollPlan *plan = tuned ? dts_coll_tune_plan_new (algorithm, &params, rows, error)
                              : dts_coll_plan_new (algorithm, &params, error);
    if (plan == NULL) {
      g_ptr_array_unref (plans);
      return NULL;
    }
    g_ptr_array_add (plans, plan);
  }
  g_autoptr (DtsSchedule) sched = dts_schedule_collectives_new (n, plans);
  /* At flow granularity only lock-step phases become flows; the other
   * steps run one by one, as at step (the ring broadcast's chain, ...). */
  gboolean flow = opts->granularity == DTS_GRANULARITY_FLOW;
  double flow_transfers = 0;
  for (guint k = 0; flow && k < plans->len; k++) {
    const DtsCollPlan *plan = g_ptr_array_index (plans, k);
    gboolean lockstep = TRUE;
    for (int i = 0; i < plan->n_phases; i++)
      lockstep = lockstep && plan->phases[i].lockstep;
    if (!lockstep)
      flow_transfers += dts_coll_plan_step_transfers (plan);
  }
  if (flow_transfers > DTS_ALLREDUCE_MAX_STEP_TRANSFERS) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--comm-granularity flow: %.3g transfers to simulate (steps that are not "
                 "lock-step run one by one; at most %.0e, about ten minutes); use a larger "
                 "--chunk-size or smaller sizes",
                 flow_transfers, DTS_ALLREDUCE_MAX_STEP_TRANSFERS);
    return NULL;
  }
  if (opts->granularity == DTS_GRANULARITY_STEP) {
    double transfers = 0;
    for (guint k = 0; k < plans->len; k++)
      transfers += dts_coll_plan_step_transfers (g_ptr_array_index (plans, k));
    if (transfers > DTS_ALLREDUCE_MAX_STEP_TRANSFERS) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--comm-granularity step: %.3g transfers to simulate (at most %.0e, about "
                   "ten minutes); use a larger --chunk-size, smaller sizes or "
                   "--comm-granularity flow",
                   transfers, DTS_ALLREDUCE_MAX_STEP_TRANSFERS);
      return NULL;
    }
  }
  if (opts->dump_plan != NULL) {
    dts_schedule_dump (sched, NULL, DTS_SCHEDULE_DUMP_MAX_TRANSFERS, opts->dump_plan);
    return NULL;
  }

  g_autoptr (DtsAllreduceResult) res = g_new0 (DtsAllreduceResult, 1);
  res->platform = g_path_get_basename (opts->platform_path);
  if (g_str_has_suffix (res->platform, ".xml"))
    res->platform[strlen (res->platform) - 4] = '\0';
  res->gpu = g_strdup (dts_platform_gpu (platform, 0)->spec.id);
  res->n_gpus = n;
  res->n_nodes = dts_platform_count_nodes (platform, n);
  res->algorithm = g_strdup (algorithm);
  res->channels = opts->channels;
  res->chunk_bytes = opts->chunk_bytes;
  res->coll_overhead_s = opts->coll_overhead_s;
  res->granularity = g_strdup (dts_granularity_to_string (opts->granularity));
  res->sizes = g_array_new (FALSE, TRUE, sizeof (DtsAllreduceSize));
  if (opts->record_steps)
    res->slices = g_array_new (FALSE, FALSE, sizeof (DtsAllreduceSlice));
  g_autoptr (GStrvBuilder) hosts = g_strv_builder_new ();
  for (int r = 0; r < n; r++)
    g_strv_builder_add (hosts, dts_platform_gpu (platform, r)->host);
  res->rank_hosts = g_strv_builder_end (hosts);
  for (int k = 0; k < opts->n_sizes; k++) {
    const DtsCollPlan *plan = g_ptr_array_index (plans, k);
    DtsAllreduceSize sz = { .bytes = plan->bytes, .n_rounds = plan->n_rounds,
                            .algorithm = plan->alg->id, .protocol = plan->protocol,
                            .predicted_s = plan->predicted_s,
                            .channels = plan->channels, .nccl_algo = plan->nccl_algo,
                            .candidates = tuned ? g_array_ref (g_ptr_array_index (candidates, k))
                                                : NULL };
    g_array_append_val (res->sizes, sz);
  }

  res->tuned = tuned;
  res->nccl = strcmp (algorithm, "nccl") == 0;
  Sealed sealed = { platform, sched->plans, res, tuned };
  DtsSimSettings set = {
    .platform_path = opts->platform_path,
    .cfg = opts->cfg,
    .overrides = opts->overrides,
    .granularity = opts->granularity,
    .iterations = 1,
    .record_steps = opts->record_steps,
    .speed_use = "runs the reduction kernel on it",
    .coll_overhead_s = opts->coll_overhead_s,
    .sealed = read_routes,
    .sealed_data = &sealed,
  };
  g_autoptr (DtsTrace) trace = dts_sim_execute (sched, platform, NULL, &set, error);
  if (trace == NULL)
    return NULL;
  res->cfg = g_strdupv (dts_sim_cfg_applied ());
  res->plans = g_ptr_array_ref (sched->plans);
  res->events = trace->events;
  res->wall_time_s = trace->wall_time_s;
  for (int k = 0; k < opts->n_sizes; k++) {
    DtsAllreduceSize *sz = &g_array_index (res->sizes, DtsAllreduceSize, k);
    sz->t_start_s = trace->bucket_start_s[k];
    sz->time_s = MAX (trace->bucket_end_max_s[k], sz->t_start_s) - sz->t_start_s;
    sz->closed_form_s = dts_coll_plan_closed_form_s (g_ptr_array_index (sched->plans, k),
                                                     sz->share_Bps, sz->latency_s)
                        + opts->coll_overhead_s;
  }
  for (guint i = 0; res->slices != NULL && i < trace->steps->len; i++) {
    const DtsTraceStep *st = &g_array_index (trace->steps, DtsTraceStep, i);
    const DtsCollPlan *plan = g_ptr_array_index (sched->plans, st->bucket);
    DtsAllreduceSlice sl = { st->bucket, st->rank, st->step, st->phase,
                             plan->phases[st->phase].name, st->t_start_s, st->t_end_s };
    g_array_append_val (res->slices, sl);
  }
  return g_steal_pointer (&res);
}
