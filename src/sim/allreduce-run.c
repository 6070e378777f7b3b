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
  return dts_coll_ring_closed_form_s (n, bytes, bottleneck_Bps, latency_s);
}

double
dts_allreduce_bus_bw_Bps (int n, double bytes, double time_s)
{
  if (!(time_s > 0))
    return 0;
  return bytes / time_s * 2.0 * (n - 1) / n;
}

/* The routes of a plan, read once the platform is sealed: the largest
 * route latency and the bottleneck share B of the closed form (a link's
 * bandwidth over the number of the plan's routes that cross it in that
 * direction; 1 for a FATPIPE link). Links are visited route by route in the
 * plan's order, so ties go to the first one met. */
typedef struct {
  const DtsPlatform *platform;
  const DtsCollPlan *plan;
  DtsAllreduceResult *res;
  GHashTable *hops;        /* sg_link_t -> count */
  GPtrArray *order;        /* sg_link_t, first met */
} RouteRead;

static gboolean
read_route (int from, int to, const char *why, gpointer data)
{
  RouteRead *rr = data;
  sg_host_t a = sg_host_by_name (dts_platform_gpu (rr->platform, dts_coll_plan_part_host (rr->plan, from))->host);
  sg_host_t b = sg_host_by_name (dts_platform_gpu (rr->platform, dts_coll_plan_part_host (rr->plan, to))->host);
  rr->res->hop_latency_s = MAX (rr->res->hop_latency_s, sg_host_get_route_latency (a, b));
  xbt_dynar_t links = xbt_dynar_new (sizeof (sg_link_t), NULL);
  sg_host_get_route (a, b, links);
  unsigned int cursor;
  sg_link_t link;
  xbt_dynar_foreach (links, cursor, link)
  {
    gpointer old = NULL;
    if (!g_hash_table_lookup_extended (rr->hops, link, NULL, &old))
      g_ptr_array_add (rr->order, link);
    g_hash_table_insert (rr->hops, link, GINT_TO_POINTER (GPOINTER_TO_INT (old) + 1));
  }
  xbt_dynar_free (&links);
  return TRUE;
}

typedef struct {
  const DtsPlatform *platform;
  const DtsCollPlan *plan;
  DtsAllreduceResult *res;
} Sealed;

static void
read_routes (gpointer data)
{
  Sealed *sd = data;
  DtsAllreduceResult *res = sd->res;
  g_autoptr (GHashTable) hops = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  RouteRead rr = { sd->platform, sd->plan, res, hops, order };
  dts_coll_plan_routes (sd->plan, read_route, &rr);
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

  const char *algorithm = opts->collective ? opts->collective : "ring";
  g_autofree int *gpu_node = g_new (int, n);
  for (int r = 0; r < n; r++)
    gpu_node[r] = dts_platform_gpu (platform, r)->node;
  GPtrArray *plans = g_ptr_array_new_with_free_func ((GDestroyNotify) dts_coll_plan_free);
  for (int k = 0; k < opts->n_sizes; k++) {
    DtsCollParams params = { .n_ranks = n, .ring = NULL, .bytes = opts->sizes_bytes[k],
                             .channels = opts->channels, .chunk_bytes = opts->chunk_bytes,
                             .gpu_node = gpu_node };
    DtsCollPlan *plan = dts_coll_plan_new (algorithm, &params, error);
    if (plan == NULL) {
      g_ptr_array_unref (plans);
      return NULL;
    }
    g_ptr_array_add (plans, plan);
  }
  g_autoptr (DtsSchedule) sched = dts_schedule_collectives_new (n, plans);
  if (opts->granularity == DTS_GRANULARITY_STEP) {
    double transfers = 0;
    for (guint k = 0; k < plans->len; k++) {
      const DtsCollPlan *plan = g_ptr_array_index (plans, k);
      transfers += (double) plan->n_steps * plan->n_rounds * plan->channels * n
                   * MAX (plan->sends_per_step, 1);
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
    DtsAllreduceSize sz = { .bytes = plan->bytes, .n_rounds = plan->n_rounds };
    g_array_append_val (res->sizes, sz);
  }

  Sealed sealed = { platform, g_ptr_array_index (plans, 0), res };
  DtsSimSettings set = {
    .platform_path = opts->platform_path,
    .cfg = opts->cfg,
    .overrides = opts->overrides,
    .granularity = opts->granularity,
    .iterations = 1,
    .record_steps = opts->record_steps,
    .speed_use = "runs the reduction kernel on it",
    .sealed = read_routes,
    .sealed_data = &sealed,
  };
  g_autoptr (DtsTrace) trace = dts_sim_execute (sched, platform, NULL, &set, error);
  if (trace == NULL)
    return NULL;
  res->cfg = g_strdupv (dts_sim_cfg_applied ());
  res->events = trace->events;
  res->wall_time_s = trace->wall_time_s;
  for (int k = 0; k < opts->n_sizes; k++) {
    DtsAllreduceSize *sz = &g_array_index (res->sizes, DtsAllreduceSize, k);
    sz->t_start_s = trace->bucket_start_s[k];
    sz->time_s = MAX (trace->bucket_end_max_s[k], sz->t_start_s) - sz->t_start_s;
    sz->closed_form_s = dts_coll_plan_closed_form_s (g_ptr_array_index (plans, k),
                                                     res->bottleneck_Bps, res->hop_latency_s);
  }
  for (guint i = 0; res->slices != NULL && i < trace->steps->len; i++) {
    const DtsTraceStep *st = &g_array_index (trace->steps, DtsTraceStep, i);
    DtsAllreduceSlice sl = { st->bucket, st->rank, st->step, st->phase, st->t_start_s,
                             st->t_end_s };
    g_array_append_val (res->slices, sl);
  }
  return g_steal_pointer (&res);
}
