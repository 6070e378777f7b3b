/* test-async.c - parameter-server strategies (async-ps, sync-ps): the
 * staleness and mini-batch distributions the simulation records against
 * what the model must give in the cases where it is known, stragglers,
 * the staleness bound against sync-ps, seeded jitter and the errors.
 *
 * Simulations run in child processes (SimGrid runs once per process).
 * tests/data/fast-16.xml makes transfers cost next to nothing, so that
 * identical workers stay identical; with --ps-placement own the servers
 * have GPUs of their own, whose speed and memory bandwidth the tests set. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "collective/collective.h"
#include "core/datadir.h"
#include "core/error.h"
#include "driver/driver.h"
#include "platform/override.h"
#include "schedule/schedule.h"
#include "testlib.h"

#define MAX_WORKERS 16

/* Memory so fast that no gradient queues behind another's update (every
 * GPU, workers alike). */
#define FAST_SERVER "gpu:*.mem_bw=1000TB/s"

typedef struct {
  const char *platform;
  const char *workload;
  const char *strategy;
  int workers, shards, iterations, batch;
  gboolean own;
  gboolean merge;
  int bound;              /* -1 none */
  const char *set[2];     /* --set overrides, or NULL */
  const char *collective;
  double jitter;
  guint64 seed;
  double overhead_s;
  const char *framework;  /* profile path, or NULL (generic, not dtsim run's default) */
  gboolean buckets;       /* sync-ps: --ps-push buckets */
  gboolean no_overlap;    /* --no-overlap */
} Setup;

typedef struct {
  int ok, code;
  char message[768];
  double iteration_s, throughput;
  gint64 n_updates, n_gradients;
  DtsDistribution staleness, minibatch;
  double worker_iter_s[MAX_WORKERS];   /* a worker's mean over the measured iterations */
  double worker_staleness[MAX_WORKERS];/* mean staleness of its gradients */
  double worker_busy[MAX_WORKERS];
  double server_busy;
  double first_update_s;               /* when the first update of the run started */
  double backward_end_s;               /* when worker 0's first backward pass ended */
  int max_lead;                        /* at an update of shard 0, how many iterations its
                                          last gradient's worker was ahead of the slowest
                                          worker's gradients there (applied or arrived) */
} Outcome;


static void
run_here (const void *setup, void *result)
{
  const Setup *st = setup;
  Outcome *out = result;
  g_autofree char *platform = dts_test_input_path (st->platform ? st->platform : "fast-16", "platforms");
  g_autofree char *workload = dts_test_input_path (st->workload ? st->workload : "fc-equal", "workloads");
  g_autoptr (GArray) overrides = dts_overrides_new ();
  for (int i = 0; i < 2 && st->set[i]; i++) {
    DtsOverride o = { 0 };
    g_autoptr (GError) e = NULL;
    if (!dts_override_parse (st->set[i], FALSE, &o, &e)) {
      g_strlcpy (out->message, e->message, sizeof out->message);
      return;
    }
    g_array_append_val (overrides, o);
  }
  DtsRunOptions o = {
    .platform_path = platform,
    .workload_path = workload,
    .n_gpus = st->workers,
    .batch_size = st->batch ? st->batch : 64,
    .iterations = st->iterations ? st->iterations : 8,
    .precision = DTS_PREC_COUNT,
    .strategy = st->strategy ? st->strategy : "async-ps",
    .cost_model = "roofline",
    .collective = st->collective,
    .bucket_bytes = DTS_RUN_DEFAULT_BUCKET_BYTES,
    .chunk_bytes = DTS_COLL_DEFAULT_CHUNK_BYTES,
    .channels = DTS_COLL_DEFAULT_CHANNELS,
    .overlap = !st->no_overlap,
    .granularity = DTS_GRANULARITY_FLOW,
    .overrides = overrides->len ? overrides : NULL,
    .ps = { .shards = st->shards, .own_hosts = st->own,
            .update = st->merge ? DTS_APPLY_MERGE : DTS_APPLY_EACH,
            .staleness_bound = st->bound, .bound_set = st->bound >= 0,
            .push_buckets = st->buckets, .message_overhead_s = st->overhead_s },
    .compute_jitter_sigma = st->jitter,
    .seed = st->seed ? st->seed : DTS_RUN_DEFAULT_SEED,
    .framework = st->framework ? st->framework : "generic",
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsTrace) t = NULL;
  g_autoptr (DtsRunSummary) s = NULL;
  if (platform && workload)
    s = dts_driver_run_training (&o, &t, &error);
  if (s == NULL) {
    out->code = error ? error->code : -1;
    g_strlcpy (out->message, error ? error->message : "input not found", sizeof out->message);
    return;
  }
  out->ok = 1;
  out->iteration_s = s->iteration_time_s;
  out->throughput = s->throughput_samples_per_s;
  out->n_updates = s->ps_updates;
  out->n_gradients = s->ps_gradients;
  out->staleness = s->staleness;
  out->minibatch = s->minibatch;
  out->server_busy = g_array_index (s->ps_server_busy, double, 0);
  int w = s->warmup_iterations, m = t->n_iterations - w;
  double n_grads[MAX_WORKERS] = { 0 };
  for (int r = 0; r < s->ps_workers && r < MAX_WORKERS; r++) {
    out->worker_iter_s[r] = (t->iter_end_s[dts_trace_ri (t, r, t->n_iterations - 1)]
                             - t->iter_end_s[dts_trace_ri (t, r, w - 1)])
                            / m;
    out->worker_busy[r] = g_array_index (s->ps_worker_busy, double, r);
  }
  /* Iteration 0 waits for nothing before its pushes (the initial weights
   * are free and pushes are posted, not waited for): its passes end at its
   * start plus their time. */
  out->backward_end_s = t->iter_start_s[dts_trace_ri (t, 0, 0)];
  for (int p = 0; p < DTS_TRACE_N_PHASES; p++)
    out->backward_end_s += t->phase_s[dts_trace_ri (t, 0, 0) * DTS_TRACE_N_PHASES + p];
  out->first_update_s = G_MAXDOUBLE;
  for (guint i = 0; i < t->ps_updates->len; i++)
    out->first_update_s = MIN (out->first_update_s,
                               g_array_index (t->ps_updates, DtsTraceUpdate, i).t_start_s);
  /* Per worker staleness, and how far ahead of the slowest worker's
   * delivered gradients an applied gradient was. */
  int delivered[MAX_WORKERS] = { 0 };
  double stop = G_MAXDOUBLE;
  for (int r = 0; r < s->ps_workers; r++)
    stop = MIN (stop, t->iter_end_s[dts_trace_ri (t, r, t->n_iterations - 1)]);
  for (guint i = 0; i < t->ps_gradients->len; i++) {
    const DtsTraceGradient *g = &g_array_index (t->ps_gradients, DtsTraceGradient, i);
    if (g->shard != 0 || g->worker >= MAX_WORKERS)
      continue;
    if (g->clock >= w && g->applied_s <= stop) {
      out->worker_staleness[g->worker] += g->staleness;
      n_grads[g->worker]++;
    }
    delivered[g->worker]++;
    /* Once every gradient of its update is counted. */
    const DtsTraceGradient *next = i + 1 < t->ps_gradients->len
                                       ? &g_array_index (t->ps_gradients, DtsTraceGradient, i + 1)
                                       : NULL;
    if (next != NULL && next->shard == g->shard && next->applied_s == g->applied_s)
      continue;
    int arrived[MAX_WORKERS] = { 0 };
    for (guint j = 0; j < t->ps_gradients->len; j++) {
      const DtsTraceGradient *h = &g_array_index (t->ps_gradients, DtsTraceGradient, j);
      if (h->shard == 0 && h->worker < MAX_WORKERS && h->arrived_s <= g->applied_s)
        arrived[h->worker]++;
    }
    int lo = G_MAXINT;
    for (int r = 0; r < s->ps_workers && r < MAX_WORKERS; r++)
      lo = MIN (lo, MAX (arrived[r], delivered[r]));
    out->max_lead = MAX (out->max_lead, g->clock + 1 - lo);
  }
  for (int r = 0; r < MAX_WORKERS; r++)
    if (n_grads[r] > 0)
      out->worker_staleness[r] /= n_grads[r];
}

static Outcome
run (const Setup *st)
{
  Outcome out = { 0 };
  dts_test_run_in_child (run_here, st, &out, sizeof out, "parameter-server simulation");
  return out;
}

static Outcome
run_ok (const Setup *st)
{
  Outcome out = run (st);
  ck_assert_msg (out.ok, "%s: %s", st->strategy ? st->strategy : "async-ps", out.message);
  return out;
}

/* One worker: nobody else updates the weights between its pull and its
 * push, and every update holds its batch alone. */
START_TEST (test_one_worker)
{
  for (int merge = 0; merge <= 1; merge++) {
    Setup st = { .workers = 1, .shards = 1, .merge = merge, .bound = -1, .batch = 48 };
    Outcome o = run_ok (&st);
    ck_assert_int_eq (o.n_gradients, 7);
    ck_assert_int_eq (o.n_updates, 7);
    ck_assert_double_eq (o.staleness.max, 0);
    ck_assert_double_eq (o.staleness.min, 0);
    ck_assert_double_eq (o.minibatch.min, 48);
    ck_assert_double_eq (o.minibatch.max, 48);
    ck_assert_int_eq (o.minibatch.n_bins, 1);
  }
}
END_TEST

/* W identical workers and one fast server, one update per gradient: in
 * steady state the W-1 others' updates land between a worker's pull and
 * its push. */
START_TEST (test_each_staleness)
{
  static const int Ws[] = { 2, 4, 8 };
  for (guint i = 0; i < G_N_ELEMENTS (Ws); i++) {
    int W = Ws[i];
    Setup st = { .workers = W, .shards = 1, .own = TRUE, .bound = -1, .iterations = 12,
                 .set = { FAST_SERVER } };
    Outcome o = run_ok (&st);
    ck_assert_msg (o.n_gradients >= 10 * W && o.n_gradients <= 11 * W, "%d gradients",
                   (int) o.n_gradients);
    ck_assert_int_eq (o.n_updates, o.n_gradients);
    ck_assert_msg (fabs (o.staleness.mean - (W - 1)) < 0.05 * W, "W = %d: mean staleness %g",
                   W, o.staleness.mean);
    ck_assert_double_eq (o.staleness.p50, W - 1);
    ck_assert_double_eq (o.minibatch.max, 64);
  }
}
END_TEST

/* merge: as the server gets slower than the workers, every update merges
 * more gradients, towards one of every worker (W x batch), and staleness
 * falls towards 1 (the gradient waits for the update in progress). */
START_TEST (test_merge_slow_server)
{
  static const char *const bw[] = { "gpu:gpu8.mem_bw=900GB/s", "gpu:gpu8.mem_bw=20GB/s",
                                     "gpu:gpu8.mem_bw=5GB/s", "gpu:gpu8.mem_bw=1GB/s" };
  double last = 0, busy = 0;
  for (guint i = 0; i < G_N_ELEMENTS (bw); i++) {
    Setup st = { .workers = 8, .shards = 1, .own = TRUE, .merge = TRUE, .bound = -1,
                 .iterations = 12, .set = { bw[i] } };
    Outcome o = run_ok (&st);
    ck_assert_msg (o.minibatch.mean >= last, "%s: mean mini-batch %g < %g", bw[i],
                   o.minibatch.mean, last);
    ck_assert_msg (o.server_busy > busy, "%s: server busy %g", bw[i], o.server_busy);
    last = o.minibatch.mean;
    busy = o.server_busy;
    if (i == G_N_ELEMENTS (bw) - 1) {
      ck_assert_msg (o.minibatch.mean >= 0.95 * 8 * 64, "mean mini-batch %g", o.minibatch.mean);
      ck_assert_msg (o.server_busy > 0.9, "server busy %g", o.server_busy);
      ck_assert_double_eq (o.staleness.p50, 1);
    }
  }
}
END_TEST

/* A straggler (worker 3 at half speed) under async-ps: the others run as
 * fast as without it (nobody waits for anyone), its own gradients see more
 * updates between pull and push (more staleness) and the fast workers'
 * less... than its. sync-ps makes everyone wait for it. */
START_TEST (test_straggler)
{
  Setup base = { .workers = 8, .shards = 1, .own = TRUE, .bound = -1, .iterations = 12,
                 .set = { FAST_SERVER } };
  Setup slow = base;
  slow.set[1] = "host:gpu3.speed=7.85Tf";
  Outcome a = run_ok (&base), b = run_ok (&slow);
  for (int r = 0; r < 8; r++) {
    if (r == 3)
      continue;
    ck_assert_msg (fabs (b.worker_iter_s[r] - a.worker_iter_s[r]) < 0.01 * a.worker_iter_s[r],
                   "worker %d: %g s with a straggler, %g s without", r, b.worker_iter_s[r],
                   a.worker_iter_s[r]);
    ck_assert_msg (b.worker_staleness[3] > b.worker_staleness[r] + 1,
                   "straggler's staleness %g, worker %d's %g", b.worker_staleness[3], r,
                   b.worker_staleness[r]);
  }
  ck_assert_msg (b.worker_iter_s[3] > 1.8 * a.worker_iter_s[3], "straggler %g s, was %g s",
                 b.worker_iter_s[3], a.worker_iter_s[3]);
  /* Its gradients come half as often and see about twice the updates; the
   * others' see fewer than W-1. The mean over all gradients stays W-1
   * (each gradient sees the updates of the others during its worker's
   * iteration: sum over workers of rate x iteration time, 1 each), but
   * the distribution spreads. */
  ck_assert_msg (b.worker_staleness[3] > 1.8 * 7 && b.worker_staleness[0] < 7,
                 "straggler %g, worker 0 %g", b.worker_staleness[3], b.worker_staleness[0]);
  ck_assert_msg (fabs (b.staleness.mean - 7) < 0.2 && fabs (a.staleness.mean - 7) < 0.2,
                 "mean staleness %g, was %g", b.staleness.mean, a.staleness.mean);
  ck_assert_msg (b.staleness.std > a.staleness.std + 1, "std %g, was %g", b.staleness.std,
                 a.staleness.std);
  ck_assert_msg (b.staleness.max >= 13 && a.staleness.max <= 8, "max staleness %g, was %g",
                 b.staleness.max, a.staleness.max);
  ck_assert_msg (b.max_lead > 2, "unbounded: fast workers %d iterations ahead", b.max_lead);

  Setup sync = slow;
  sync.strategy = "sync-ps";
  Outcome c = run_ok (&sync);
  for (int r = 0; r < 8; r++)
    ck_assert_msg (fabs (c.worker_iter_s[r] - c.worker_iter_s[3]) < 0.01 * c.worker_iter_s[3],
                   "sync-ps: worker %d %g s, the straggler %g s", r, c.worker_iter_s[r],
                   c.worker_iter_s[3]);
  ck_assert_int_eq (c.max_lead, 0);
  /* A bound of 1 lets the fast workers one iteration ahead, no more. */
  Setup bounded = slow;
  bounded.bound = 1;
  Outcome d = run_ok (&bounded);
  ck_assert_int_eq (d.max_lead, 1);
  ck_assert_msg (d.worker_iter_s[0] > 1.5 * a.worker_iter_s[0], "bound 1: worker 0 %g s",
                 d.worker_iter_s[0]);
}
END_TEST

#define assert_same(a, b) ck_assert_msg ((a) == (b), "%s = %.17g, %s = %.17g", #a, (double) (a), \
                                         #b, (double) (b))

/* --staleness-bound 0 with merge is synchronous training: the same run as
 * sync-ps, to the bit, on a real network, with and without a straggler. */
START_TEST (test_bound0_is_sync)
{
  for (int straggle = 0; straggle <= 1; straggle++) {
    Setup a = { .platform = "cluster-4x4-v100", .workload = "resnet50", .workers = 8,
                .shards = 2, .merge = TRUE, .bound = 0, .iterations = 5,
                .set = { straggle ? "host:node1-gpu2.speed=5Tf" : NULL } };
    Setup s = a;
    s.strategy = "sync-ps";
    s.bound = -1;
    s.merge = FALSE;
    Outcome x = run_ok (&a), y = run_ok (&s);
    assert_same (x.iteration_s, y.iteration_s);
    assert_same (x.throughput, y.throughput);
    assert_same (x.n_updates, y.n_updates);
    assert_same (x.n_gradients, y.n_gradients);
    assert_same (x.staleness.max, 0);
    assert_same (y.staleness.max, 0);
    assert_same (x.minibatch.min, 8 * 64);
    assert_same (y.minibatch.max, 8 * 64);
    assert_same (x.server_busy, y.server_busy);
    for (int r = 0; r < 8; r++) {
      assert_same (x.worker_iter_s[r], y.worker_iter_s[r]);
      assert_same (x.worker_busy[r], y.worker_busy[r]);
    }
    /* Without the bound the same run is not synchronous. */
    a.bound = -1;
    Outcome z = run_ok (&a);
    ck_assert_msg (z.staleness.max > 0 && z.n_updates > y.n_updates, "unbounded: %g, %d",
                   z.staleness.max, (int) z.n_updates);
  }
}
END_TEST

/* A synchronous round waits for the slowest of its workers: under a profile
 * with gpu-speed-spread, sync-ps (and async-ps with staleness bound 0)
 * prices every worker's compute at the expected slowest of N, as data
 * parallelism does; one worker, or asynchronous workers, are unchanged. */
/* sync-ps --ps-push buckets pushes bucket by bucket while the backward
 * pass goes on (the buckets of --bucket-size, here 25 MB of ResNet-50's
 * 102 MB), so its servers update before the pass has ended; with
 * --no-overlap they start once it has, as by default. One update per
 * bucket and shard, all synchronous. */
START_TEST (test_sync_overlap)
{
  Setup a = { .platform = "cluster-4x4-v100", .workload = "resnet50", .workers = 8,
              .shards = 2, .bound = -1, .iterations = 3, .strategy = "sync-ps",
              .buckets = TRUE };
  Setup b = a, c = a;
  b.no_overlap = TRUE;
  c.buckets = FALSE;
  Outcome x = run_ok (&a), y = run_ok (&b), z = run_ok (&c);
  assert_same (y.iteration_s, z.iteration_s);
  assert_same (y.n_updates, z.n_updates);
  ck_assert_msg (x.first_update_s < x.backward_end_s, "first update at %g s, backward to %g s",
                 x.first_update_s, x.backward_end_s);
  ck_assert_msg (y.first_update_s >= y.backward_end_s, "--no-overlap: first update at %g s, "
                 "backward to %g s", y.first_update_s, y.backward_end_s);
  ck_assert_msg (x.iteration_s < y.iteration_s, "overlapped %g s, not %g s", x.iteration_s,
                 y.iteration_s);
  ck_assert_msg (x.n_updates >= 4 * y.n_updates, "%" G_GINT64_FORMAT " updates against %"
                 G_GINT64_FORMAT, x.n_updates, y.n_updates);
  ck_assert_int_eq (x.n_gradients % 8, 0);
  ck_assert_msg (x.staleness.max == 0 && y.staleness.max == 0, "staleness %g, %g",
                 x.staleness.max, y.staleness.max);
  ck_assert_msg (x.minibatch.min == 8 * 64 && x.minibatch.max == 8 * 64, "mini-batch %g..%g",
                 x.minibatch.min, x.minibatch.max);
}
END_TEST

START_TEST (test_sync_speed_spread)
{
  g_autofree char *fw = dts_test_write_tmp ("gpu-speed-spread = 0.05\n", ".conf");
  double slow8 = 1 + 0.05 * 1.42360; /* E[max of 8 standard normals] */
  for (int workers = 1; workers <= 8; workers += 7) {
    Setup base = { .strategy = "sync-ps", .workers = workers, .shards = 1, .bound = -1,
                   .set = { FAST_SERVER } };
    Setup spread = base;
    spread.framework = fw;
    Outcome a = run_ok (&base), b = run_ok (&spread);
    /* a worker's compute: its busy share of its iteration */
    double ca = a.worker_busy[0] * a.worker_iter_s[0], cb = b.worker_busy[0] * b.worker_iter_s[0];
    if (workers == 1) {
      assert_same (b.iteration_s, a.iteration_s);
      assert_same (cb, ca);
    } else {
      ck_assert_msg (fabs (cb / ca / slow8 - 1) < 1e-3, "compute x %g, expected %g", cb / ca,
                     slow8);
      ck_assert (b.iteration_s > a.iteration_s * (1 + 0.5 * (slow8 - 1)));
    }
    /* async-ps: unbounded, nothing waits for the slowest; bound 0: it does */
    Setup as = base, as0 = base;
    as.strategy = as0.strategy = "async-ps";
    as0.bound = 0;
    as0.merge = TRUE;
    Outcome c = run_ok (&as), d;
    as.framework = fw;
    d = run_ok (&as);
    assert_same (d.iteration_s, c.iteration_s);
    Outcome e = run_ok (&as0);
    as0.framework = fw;
    Outcome f = run_ok (&as0);
    double ce = e.worker_busy[0] * e.worker_iter_s[0], cf = f.worker_busy[0] * f.worker_iter_s[0];
    if (workers == 1)
      assert_same (f.iteration_s, e.iteration_s);
    else
      ck_assert_msg (fabs (cf / ce / slow8 - 1) < 1e-3, "bound 0: compute x %g, expected %g",
                     cf / ce, slow8);
  }
}
END_TEST

/* --compute-jitter draws from a generator seeded by --seed: the same seed
 * gives the same run, another seed another; no jitter, no draw. */
START_TEST (test_jitter_seeded)
{
  Setup st = { .workers = 4, .shards = 1, .own = TRUE, .bound = -1, .jitter = 0.05, .seed = 7,
               .set = { FAST_SERVER } };
  Outcome a = run_ok (&st), b = run_ok (&st);
  st.seed = 8;
  Outcome c = run_ok (&st);
  st.jitter = 0;
  Outcome d = run_ok (&st);
  st.seed = 7;
  Outcome e = run_ok (&st);
  ck_assert_int_eq (memcmp (&a, &b, sizeof a), 0);
  ck_assert_msg (a.iteration_s != c.iteration_s, "seeds 7 and 8: %g s", a.iteration_s);
  ck_assert_int_eq (memcmp (&d, &e, sizeof d), 0);
  /* Identical workers drift apart under jitter: not every gradient sees
   * exactly W-1 updates any more. */
  ck_assert_double_eq (d.staleness.std, 0);
  ck_assert_msg (a.staleness.std > 0, "std %g", a.staleness.std);
  ck_assert_msg (fabs (a.iteration_s - d.iteration_s) < 0.05 * d.iteration_s, "%g vs %g",
                 a.iteration_s, d.iteration_s);
}
END_TEST

/* A per-message overhead T at the server, sync-ps, W workers, free links:
 * the replies leave T apart, so the last worker pushes W T after the
 * update and its gradient is handled T later: the iteration grows by
 * (W + 1) T exactly. */
START_TEST (test_message_overhead)
{
  static const int Ws[] = { 2, 4 };
  for (guint i = 0; i < G_N_ELEMENTS (Ws); i++) {
    Setup st = { .strategy = "sync-ps", .workers = Ws[i], .shards = 1, .own = TRUE, .bound = -1,
                 .set = { FAST_SERVER } };
    Outcome a = run_ok (&st);
    st.overhead_s = 0.01;
    Outcome b = run_ok (&st);
    double grown = b.iteration_s - a.iteration_s;
    ck_assert_msg (fabs (grown - (Ws[i] + 1) * 0.01) < 1e-9, "W = %d: %g s more", Ws[i], grown);
  }
}
END_TEST

/* The distribution helper against values worked out by hand. */
START_TEST (test_distribution)
{
  double v[] = { 3, 1, 2, 2, 7, 2, 3, 1, 2, 3 };
  DtsDistribution d;
  dts_distribution_fill (&d, v, G_N_ELEMENTS (v));
  ck_assert_int_eq (d.n, 10);
  ck_assert_double_eq_tol (d.mean, 2.6, 1e-12);
  ck_assert_double_eq_tol (d.std, sqrt (2.64), 1e-12); /* (2 x 2.56 + 4 x 0.36 + 3 x 0.16 + 19.36) / 10 */
  ck_assert_double_eq (d.min, 1);
  ck_assert_double_eq (d.max, 7);
  ck_assert_double_eq (d.p50, 2); /* nearest rank: the 5th of 1 1 2 2 2 2 3 3 3 7 */
  ck_assert_double_eq (d.p90, 3); /* the 9th */
  ck_assert_double_eq (d.p99, 7); /* the 10th */
  ck_assert_int_eq (d.n_bins, 7);
  ck_assert_double_eq (d.step, 1);
  static const gint64 counts[] = { 2, 4, 3, 0, 0, 0, 1 };
  for (int b = 0; b < 7; b++) {
    ck_assert_double_eq (d.bin_lo[b], 1 + b);
    ck_assert_int_eq (d.bin_count[b], counts[b]);
  }
  /* Multiples of 64 over a wide range: bins of whole multiples. */
  double w[100];
  for (int i = 0; i < 100; i++)
    w[i] = 64 * (1 + i);
  dts_distribution_fill (&d, w, 100);
  ck_assert_double_eq (d.step, 64);
  ck_assert_int_eq (d.n_bins, 25);
  ck_assert_double_eq (d.bin_width, 256);
  gint64 total = 0;
  for (int b = 0; b < d.n_bins; b++)
    total += d.bin_count[b];
  ck_assert_int_eq (total, 100);
  ck_assert_int_eq (d.bin_count[0], 4);
  dts_distribution_fill (&d, w, 0);
  ck_assert_int_eq (d.n, 0);
  ck_assert_int_eq (d.n_bins, 0);
}
END_TEST

START_TEST (test_errors)
{
  Setup st = { .workers = 4, .collective = "ps", .bound = -1 };
  Outcome o = run (&st);
  ck_assert_int_eq (o.ok, 0);
  ck_assert_int_eq (o.code, DTS_ERROR_USAGE);
  ck_assert_msg (strstr (o.message, "--collective ps") != NULL, "%s", o.message);
  Setup own = { .workers = 12, .shards = 5, .own = TRUE, .bound = -1 };
  o = run (&own);
  ck_assert_int_eq (o.ok, 0);
  ck_assert_int_eq (o.code, DTS_ERROR_USAGE);
  ck_assert_msg (strstr (o.message, "--ps-placement own") != NULL, "%s", o.message);
  Setup many = { .workers = 4, .shards = 5, .bound = -1 };
  o = run (&many);
  ck_assert_int_eq (o.ok, 0);
  ck_assert_msg (strstr (o.message, "--ps-shards") != NULL, "%s", o.message);
}
END_TEST

static Suite *
async_suite (void)
{
  Suite *s = suite_create ("async");
  TCase *tc = tcase_create ("core");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_one_worker);
  tcase_add_test (tc, test_each_staleness);
  tcase_add_test (tc, test_merge_slow_server);
  tcase_add_test (tc, test_straggler);
  tcase_add_test (tc, test_bound0_is_sync);
  tcase_add_test (tc, test_sync_overlap);
  tcase_add_test (tc, test_sync_speed_spread);
  tcase_add_test (tc, test_jitter_seeded);
  tcase_add_test (tc, test_message_overhead);
  tcase_add_test (tc, test_distribution);
  tcase_add_test (tc, test_errors);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return dts_test_run (async_suite ());
}
