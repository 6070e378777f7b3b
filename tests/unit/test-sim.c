/* test-sim.c - whole simulations against closed forms and against each other.
 *
 * SimGrid runs once per process, so every simulation runs in a child process
 * (simulate()) that sends its figures back through a pipe; a child that
 * aborts fails the test. Test platforms and workloads live in tests/data/
 * (their headers give the numbers used here). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "collective/collective.h"
#include "core/datadir.h"
#include "core/error.h"
#include "cost/cost.h"
#include "platform/gpu.h"
#include "platform/platform.h"
#include "driver/driver.h"
#include "schedule/schedule.h"
#include "sim/sim-private.h"
#include "sim/sim.h"
#include "testlib.h"
#include "workload/workload.h"

#define MAX_BUCKETS 16
/* measured: auto (tree at analytic) against flow, cluster-4x4-v100 */
#define AUTO_TREE_REL 0.02

typedef struct {
  const char *platform;  /* tests/data file name, or a shipped platform name */
  const char *workload;  /* likewise */
  int n_gpus;            /* 0: all */
  DtsGranularity granularity;
  gboolean no_overlap;
  int iterations;        /* 0: 2 */
  const char *cfg;       /* one --cfg item or NULL */
  const char *collective; /* NULL: ring */
  gboolean granularity_auto; /* --comm-granularity auto (granularity FLOW) */
  int comm_streams;      /* 0: 1 */
} Setup;

typedef struct {
  int ok;
  int code;
  char message[512];
  int n_gpus;
  double iteration_s, forward_s, backward_s, optimizer_s, comm_s, exposed_s;
  int n_buckets;
  double bucket_bytes[MAX_BUCKETS];
  double bucket_s[MAX_BUCKETS];
  gint64 events;
  int plans_analytic;
} Outcome;


static void
simulate_here (const void *setup, void *result)
{
  const Setup *st = setup;
  Outcome *out = result;
  g_autofree char *platform = dts_test_input_path (st->platform, "platforms");
  g_autofree char *workload = dts_test_input_path (st->workload, "workloads");
  char *cfg[] = { (char *) st->cfg, NULL };
  DtsRunOptions o = {
    .platform_path = platform,
    .workload_path = workload,
    .n_gpus = st->n_gpus,
    .iterations = st->iterations ? st->iterations : 2,
    .precision = DTS_PREC_COUNT,
    .cost_model = "roofline",
    .framework = "generic", /* the references price layers without a profile */
    .collective = st->collective ? st->collective : "ring",
    .replicas.comm_streams = st->comm_streams,
    .granularity_auto = st->granularity_auto,
    .bucket_bytes = DTS_RUN_DEFAULT_BUCKET_BYTES,
    .chunk_bytes = DTS_COLL_DEFAULT_CHUNK_BYTES,
    .channels = DTS_COLL_DEFAULT_CHANNELS,
    .overlap = !st->no_overlap,
    .granularity = st->granularity,
    .cfg = st->cfg ? cfg : NULL,
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsRunSummary) s = NULL;
  if (platform && workload)
    s = dts_driver_run_training (&o, NULL, &error);
  if (s == NULL) {
    out->code = error ? error->code : -1;
    g_strlcpy (out->message, error ? error->message : "input not found", sizeof out->message);
    return;
  }
  out->ok = 1;
  out->n_gpus = s->n_gpus;
  out->iteration_s = s->iteration_time_s;
  out->forward_s = s->forward_s;
  out->backward_s = s->backward_s;
  out->optimizer_s = s->optimizer_s;
  out->comm_s = s->comm_s;
  out->exposed_s = s->comm_exposed_s;
  out->events = s->events;
  out->plans_analytic = s->plans_analytic;
  out->n_buckets = MIN ((int) s->buckets->len, MAX_BUCKETS);
  for (int b = 0; b < out->n_buckets; b++) {
    out->bucket_bytes[b] = g_array_index (s->buckets, DtsBucketStat, b).bytes;
    out->bucket_s[b] = g_array_index (s->buckets, DtsBucketStat, b).duration_s;
  }
}

/* Run ST in a child process. */
static Outcome
simulate (const Setup *st)
{
  Outcome out = { 0 };
  g_autofree char *what = g_strdup_printf ("simulation of %s on %s", st->workload, st->platform);
  dts_test_run_in_child (simulate_here, st, &out, sizeof out, what);
  return out;
}

static Outcome
simulate_ok (const Setup *st)
{
  Outcome out = simulate (st);
  ck_assert_msg (out.ok, "%s on %s: %s", st->workload, st->platform, out.message);
  return out;
}


/* One GPU: no communication, and the iteration is exactly the sum of the
 * cost model's layer times. */
static void
check_one_gpu (const char *workload_name)
{
  Setup st = { .platform = "flat-16", .workload = workload_name, .n_gpus = 1 };
  Outcome o = simulate_ok (&st);

  g_autofree char *wpath = dts_test_input_path (workload_name, "workloads");
  g_autofree char *ppath = dts_test_input_path ("flat-16", "platforms");
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsWorkload) w = dts_workload_load (wpath, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  g_autoptr (DtsGpuCatalog) cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert (cat != NULL);
  g_autoptr (DtsPlatform) p = dts_platform_load (ppath, cat, &error);
  ck_assert (p != NULL);
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  ck_assert (cost != NULL);
  int batch = w->training.batch_size > 0 ? w->training.batch_size : 32;
  DtsPrecision prec = w->training.has_precision ? w->training.precision : DTS_PREC_FP32;
  double sum = 0;
  for (guint l = 0; l < w->layers->len; l++) {
    DtsLayerTimes t;
    ck_assert (dts_cost_layer_times (cost, dts_workload_layer (w, l), &dts_platform_gpu (p, 0)->spec,
                                     prec, batch, &t, &error));
    sum += t.fwd_s + t.bwd_data_s + t.bwd_weight_s + t.update_s;
  }
  ck_assert (sum > 0);
  assert_rel (o.iteration_s, sum, 1e-9);
  assert_rel (o.forward_s + o.backward_s + o.optimizer_s, sum, 1e-9);
  ck_assert_int_eq (o.n_buckets, 0);
  ck_assert_double_eq (o.comm_s, 0);
  ck_assert_double_eq (o.exposed_s, 0);
}

START_TEST (test_one_gpu_exact)
{
  check_one_gpu ("mlp8");
  check_one_gpu ("resnet50");
}
END_TEST

/* An all-reduce alone on the contention-free flat-16 (B = 12.5 GB/s,
 * L = 2 us per hop): within 2% of 2(N-1)/N S/B + 2(N-1) L, exactly dtsim's
 * chunked form 2(N-1)(R L + S/(N B)), and step = flow. */
START_TEST (test_allreduce_closed_form)
{
  const double B = 12.5e9, L = 2e-6;
  for (int n = 2; n <= 16; n *= 2) {
    Outcome res[DTS_GRANULARITY_COUNT];
    for (int g = 0; g < DTS_GRANULARITY_COUNT; g++) {
      Setup st = { .platform = "flat-16", .workload = "fc-allreduce", .n_gpus = n,
                   .granularity = g };
      res[g] = simulate_ok (&st);
      ck_assert_int_eq (res[g].n_buckets, 1);
      double S = res[g].bucket_bytes[0];
      ck_assert_double_eq_tol (S, 65601536.0, 0.5);
      double closed = 2.0 * (n - 1) / n * S / B + 2.0 * (n - 1) * L;
      double rounds = ceil (S / (n * DTS_COLL_DEFAULT_CHANNELS * DTS_COLL_DEFAULT_CHUNK_BYTES));
      double chunked = 2.0 * (n - 1) * (rounds * L + S / (n * B));
      assert_rel (res[g].bucket_s[0], closed, 0.02);
      assert_rel (res[g].bucket_s[0], chunked, 1e-9);
    }
    assert_rel (res[DTS_GRANULARITY_FLOW].bucket_s[0], res[DTS_GRANULARITY_STEP].bucket_s[0],
                1e-12);
    ck_assert (res[DTS_GRANULARITY_FLOW].events < res[DTS_GRANULARITY_STEP].events);
  }
}
END_TEST

/* Interleaved ranks put all 4 ring hops of each direction on one NIC link:
 * about 4x the node-local ring, at every granularity (analytic: the link
 * loads of each step's slot, sim.c an_slot_s; it gave the node-local time
 * before, 4x short), and analytic within 0.1% of step. */
START_TEST (test_contention_interleaved)
{
  double step_s = 0;
  for (int g = 0; g < DTS_GRANULARITY_COUNT; g++) {
    Setup local = { .platform = "two-nodes-local", .workload = "fc-allreduce", .granularity = g };
    Setup inter = { .platform = "two-nodes-interleaved", .workload = "fc-allreduce",
                    .granularity = g };
    Outcome a = simulate_ok (&local), b = simulate_ok (&inter);
    double ratio = b.bucket_s[0] / a.bucket_s[0];
    ck_assert_msg (ratio > 3.9 && ratio < 4.05, "%s: interleaved / local = %g, expected ~4",
                   dts_granularity_to_string (g), ratio);
    /* The NIC bottleneck alone: 2(N-1)/N S / (B/4). */
    assert_rel (b.bucket_s[0], 4 * 2.0 * 7 / 8 * b.bucket_bytes[0] / 12.5e9, 0.02);
    if (g == DTS_GRANULARITY_STEP)
      step_s = b.bucket_s[0];
    if (g == DTS_GRANULARITY_ANALYTIC)
      assert_rel (b.bucket_s[0], step_s, 1e-3);
  }
}
END_TEST

/* One 50 Gb/s link among 100 Gb/s ones paces the whole ring. */
START_TEST (test_slow_link)
{
  for (int g = 0; g < DTS_GRANULARITY_COUNT; g++) {
    Setup st = { .platform = "star-8-slow", .workload = "fc-allreduce", .granularity = g };
    Outcome o = simulate_ok (&st);
    double S = o.bucket_bytes[0];
    assert_rel (o.bucket_s[0], 2.0 * 7 / 8 * S / 6.25e9, 0.02);
  }
}
END_TEST

/* Without overlap an iteration is compute plus communication; with it, it is
 * shorter and the exposed communication accounts for the difference. */
START_TEST (test_overlap)
{
  Setup serial = { .platform = "flat-16", .workload = "mlp8", .no_overlap = TRUE };
  Setup overlap = { .platform = "flat-16", .workload = "mlp8" };
  Outcome s = simulate_ok (&serial), o = simulate_ok (&overlap);
  ck_assert (s.n_buckets > 2);
  double compute_s = s.forward_s + s.backward_s + s.optimizer_s;
  assert_rel (s.iteration_s, compute_s + s.comm_s, 1e-9);
  assert_rel (s.exposed_s, s.comm_s, 1e-9);

  double compute_o = o.forward_s + o.backward_s + o.optimizer_s;
  assert_rel (o.iteration_s, compute_o + o.exposed_s, 1e-9);
  ck_assert_msg (o.iteration_s < s.iteration_s - 0.05 * s.comm_s,
                 "overlap does not shorten the iteration: %g vs %g", o.iteration_s,
                 s.iteration_s);
  ck_assert (o.exposed_s < o.comm_s);
  /* The saving is the hidden communication less the slow-down of compute
   * by reduction kernels sharing the GPU. */
  double saved = s.iteration_s - o.iteration_s;
  double hidden = s.comm_s - o.exposed_s;
  double slowdown = compute_o - compute_s;
  ck_assert (slowdown >= -1e-12);
  assert_rel (saved, hidden - slowdown, 1e-6);
}
END_TEST

/* Full data-parallel iterations (buckets overlapping backprop): flow
 * against step on two platforms at 16 and 64 GPUs. Measured: equal to
 * 1e-14 on flat platforms, within 2e-5 of the iteration time where hop
 * latencies differ (NVLink and IB hops in one ring). */
static void
check_step_vs_flow (const char *platform, int n_gpus)
{
  Setup st = { .platform = platform, .workload = "resnet50", .n_gpus = n_gpus,
               .granularity = DTS_GRANULARITY_STEP };
  Setup fl = st;
  fl.granularity = DTS_GRANULARITY_FLOW;
  Outcome a = simulate_ok (&st), b = simulate_ok (&fl);
  ck_assert_int_eq (a.n_gpus, n_gpus);
  assert_rel (b.iteration_s, a.iteration_s, 1e-4);
  assert_rel (b.comm_s, a.comm_s, 0.02);
  assert_rel (b.exposed_s, a.exposed_s, 0.02);
}

START_TEST (test_step_vs_flow_16)
{
  check_step_vs_flow ("flat-16", 16);
  check_step_vs_flow ("cluster-4x4-v100", 16);
}
END_TEST

START_TEST (test_step_vs_flow_64)
{
  check_step_vs_flow ("flat-64", 64);
  check_step_vs_flow ("cluster-16x4", 64);
}
END_TEST

/* --comm-granularity auto: plans that are not lock-step (the tree) run at
 * analytic granularity when alone on the network, the rest (rings) stay
 * flows; with two communication streams nothing changes. */
START_TEST (test_granularity_auto)
{
  Setup fl = { .platform = "cluster-4x4-v100", .workload = "resnet50", .n_gpus = 16,
               .granularity = DTS_GRANULARITY_FLOW, .collective = "tree" };
  Setup au = fl, an = fl;
  au.granularity_auto = TRUE;
  an.granularity = DTS_GRANULARITY_ANALYTIC;
  Outcome f = simulate_ok (&fl), a = simulate_ok (&au), n = simulate_ok (&an);
  ck_assert_int_gt (f.n_buckets, 1);
  ck_assert_int_eq (a.plans_analytic, a.n_buckets);
  ck_assert_int_eq (f.plans_analytic, 0);
  assert_rel (a.iteration_s, n.iteration_s, 1e-12);
  for (int b = 0; b < a.n_buckets; b++)
    assert_rel (a.bucket_s[b], n.bucket_s[b], 1e-12);
  assert_rel (a.iteration_s, f.iteration_s, AUTO_TREE_REL);
  ck_assert (a.events < f.events);
  /* rings are lock-step: flows as before, to the bit */
  fl.collective = au.collective = "ring";
  f = simulate_ok (&fl);
  a = simulate_ok (&au);
  ck_assert_int_eq (a.plans_analytic, 0);
  ck_assert_double_eq (a.iteration_s, f.iteration_s);
  ck_assert_int_eq (a.events, f.events);
  /* two buckets in flight at once share links analytic cannot see */
  fl.collective = au.collective = "tree";
  fl.comm_streams = au.comm_streams = 2;
  f = simulate_ok (&fl);
  a = simulate_ok (&au);
  ck_assert_int_eq (a.plans_analytic, 0);
  ck_assert_double_eq (a.iteration_s, f.iteration_s);
}
END_TEST

START_TEST (test_errors)
{
  Setup st = { .platform = "flat-16", .workload = "mlp8", .cfg = "bogus/key:1" };
  Outcome o = simulate (&st);
  ck_assert (!o.ok);
  ck_assert_int_eq (o.code, DTS_ERROR_USAGE);
  ck_assert_msg (strstr (o.message, "--cfg 'bogus/key:1': dtsim does not pass 'bogus/key' to SimGrid")
                     != NULL, "%s", o.message);

  st.cfg = "network/model:FOO";
  o = simulate (&st);
  ck_assert (!o.ok && strstr (o.message, "unknown network/model 'FOO'") != NULL);

  st.cfg = "network/model";
  o = simulate (&st);
  ck_assert (!o.ok && strstr (o.message, "expected NAME:VALUE") != NULL);

  st.cfg = NULL;
  st.n_gpus = 17;
  o = simulate (&st);
  ck_assert (!o.ok);
  ck_assert_int_eq (o.code, DTS_ERROR_USAGE);
  ck_assert (strstr (o.message, "has only 16 GPUs") != NULL);

  /* A --cfg that is valid changes the result: LV08 is slower than CM02. */
  Setup cm = { .platform = "flat-16", .workload = "fc-allreduce", .n_gpus = 4 };
  Setup lv = cm;
  lv.cfg = "network/model:LV08";
  Outcome a = simulate_ok (&cm), b = simulate_ok (&lv);
  ck_assert (b.bucket_s[0] > 1.02 * a.bucket_s[0]);
}
END_TEST

START_TEST (test_cfg_check)
{
  g_autoptr (GError) error = NULL;
  char *good[] = { (char *) "network/model:IB", (char *) "maxmin/precision:1e-6", NULL };
  ck_assert (dts_sim_cfg_check (good, &error));
  char *bad[] = { (char *) "tracing:yes", NULL };
  ck_assert (!dts_sim_cfg_check (bad, &error));
  dts_test_assert_error (error, DTS_ERROR_USAGE, "--trace FILE", NULL);
  g_clear_error (&error);
  char *empty[] = { (char *) ":CM02", NULL };
  ck_assert (!dts_sim_cfg_check (empty, &error));
  dts_test_assert_error (error, DTS_ERROR_USAGE, "expected NAME:VALUE", NULL);
}
END_TEST

/* A two-stage pipeline written by hand as stream programs, the shape the
 * pipeline strategy compiles to: rank 0 computes a micro-batch (1 ms) and
 * sends its activations (12.5 MB) to rank 1, M = 2 micro-batches per
 * iteration; rank 1 receives each and computes it (1 ms). On the crossbar
 * (12.5 GB/s, 2 us per route) a transfer takes 2 us + 1 ms. The times are
 * checked in the test. There is no implicit barrier: rank 0 starts its
 * second iteration as soon as its second send is received, before rank 1
 * has finished its first. */
typedef struct {
  double iter_end_s[2][2];   /* [rank][iteration] */
  double iter_start_s[2][2];
  gint64 events;
  int ok;
  char message[256];
} PipeOutcome;

static void
pipeline_here (const void *setup, void *result)
{
  PipeOutcome *out = result;
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsGpuCatalog) catalog = dts_gpu_catalog_load (NULL, &error);
  g_autofree char *path = dts_test_input_path ("flat-16", "platforms");
  g_autoptr (DtsPlatform) platform = dts_platform_load (path, catalog, &error);
  g_assert (platform != NULL);
  GPtrArray *plans = g_ptr_array_new_with_free_func ((GDestroyNotify) dts_coll_plan_free);
  g_autoptr (DtsSchedule) s = dts_schedule_collectives_new (2, plans);
  /* Replace the collectives-only programs by the pipeline's. */
  g_ptr_array_set_size (s->programs, 0);
  g_array_set_size (s->streams, 0);
  g_array_set_size (s->totals, 0);
  GArray *stage0 = g_array_new (FALSE, TRUE, sizeof (DtsOp));
  GArray *stage1 = g_array_new (FALSE, TRUE, sizeof (DtsOp));
  for (int m = 0; m < 2; m++) {
    DtsOp fwd = { .type = DTS_OP_COMPUTE, .layer = -1, .bucket = -1, .micro_batch = m,
                  .duration_s = 1e-3 };
    DtsOp send = { .type = DTS_OP_SEND, .layer = -1, .bucket = -1, .peer = 1, .tag = 0,
                   .bytes = 12.5e6 };
    DtsOp recv = { .type = DTS_OP_RECV, .layer = -1, .bucket = -1, .peer = 0, .tag = 0,
                   .bytes = 12.5e6 };
    g_array_append_val (stage0, fwd);
    g_array_append_val (stage0, send);
    g_array_append_val (stage1, recv);
    g_array_append_val (stage1, fwd);
  }
  g_ptr_array_add (s->programs, stage0);
  g_ptr_array_add (s->programs, stage1);
  for (int r = 0; r < 2; r++) {
    DtsComputeTotals none = { 0 };
    g_array_append_val (s->totals, none);
    DtsStream st = { r, DTS_STREAM_COMPUTE, 0, r };
    g_array_append_val (s->streams, st);
    s->rank_program[r] = r;
  }
  DtsSimSettings set = { .platform_path = path, .granularity = DTS_GRANULARITY_FLOW,
                         .iterations = 2, .speed_use = "test" };
  g_autoptr (DtsTrace) t = dts_sim_execute (s, platform, NULL, &set, &error);
  if (t == NULL) {
    g_strlcpy (out->message, error->message, sizeof out->message);
    return;
  }
  for (int r = 0; r < 2; r++)
    for (int it = 0; it < 2; it++) {
      out->iter_start_s[r][it] = t->iter_start_s[dts_trace_ri (t, r, it)];
      out->iter_end_s[r][it] = t->iter_end_s[dts_trace_ri (t, r, it)];
    }
  out->events = t->events;
  out->ok = 1;
}

START_TEST (test_pipeline_programs)
{
  PipeOutcome out = { 0 };
  dts_test_run_in_child (pipeline_here, NULL, &out, sizeof out, "pipeline");
  ck_assert_msg (out.ok, "%s", out.message);
  /* The platform's hosts run at their own speed; kernels are given in idle
   * seconds, so 1 ms each. A transfer: 2 us of latency + 12.5 MB at
   * 12.5 GB/s = 1.002 ms. Stage 0: compute 0-1, send 1-2.002 (received by
   * stage 1, which waited), compute 2.002-3.002, send 3.002-4.004: its
   * iteration ends at 4.004 ms and the next starts at once. Stage 1:
   * receive until 2.002, compute to 3.002, receive until 4.004, compute to
   * 5.004 ms. */
  double tx = 2e-6 + 12.5e6 / 12.5e9;
  ck_assert_double_eq_tol (out.iter_end_s[0][0], 2 * (1e-3 + tx), 1e-9);
  ck_assert_double_eq_tol (out.iter_start_s[0][1], out.iter_end_s[0][0], 1e-12);
  ck_assert_double_eq_tol (out.iter_end_s[1][0], 2 * (1e-3 + tx) + 1e-3, 1e-9);
  /* No barrier: stage 0 is into its second iteration before stage 1 ends
   * its first. */
  ck_assert (out.iter_start_s[0][1] < out.iter_end_s[1][0]);
  ck_assert_double_eq_tol (out.iter_end_s[1][1], 4 * (1e-3 + tx) + 1e-3, 1e-9);
  /* 4 kernels and 2 sends per iteration on each side that starts them. */
  ck_assert_int_eq (out.events, 2 * (4 + 2));
}
END_TEST

/* Actor stacks against the kernel's mapping limit: a limit too small for
 * the actors is an error that says how to raise it; a large one, or none
 * readable, passes. */
START_TEST (test_map_count)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *small = dts_test_write_tmp ("65530\n", ".txt");
  g_autofree char *large = dts_test_write_tmp ("4194304\n", ".txt");
  ck_assert (!dts_sim_check_map_count (131072, small, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "131072 simulated streams",
                         "vm.max_map_count of 65530", "sysctl -w vm.max_map_count=", NULL);
  g_clear_error (&error);
  ck_assert (dts_sim_check_map_count (32768, small, &error));
  ck_assert (dts_sim_check_map_count (131072, large, &error));
  ck_assert (dts_sim_check_map_count (131072, "/nonexistent/max_map_count", &error));
  ck_assert (error == NULL);
}
END_TEST

static Suite *
sim_suite (void)
{
  Suite *s = suite_create ("sim");
  TCase *tc = tcase_create ("dp");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_one_gpu_exact);
  tcase_add_test (tc, test_allreduce_closed_form);
  tcase_add_test (tc, test_contention_interleaved);
  tcase_add_test (tc, test_slow_link);
  tcase_add_test (tc, test_overlap);
  tcase_add_test (tc, test_step_vs_flow_16);
  tcase_add_test (tc, test_step_vs_flow_64);
  tcase_add_test (tc, test_granularity_auto);
  tcase_add_test (tc, test_errors);
  tcase_add_test (tc, test_cfg_check);
  tcase_add_test (tc, test_pipeline_programs);
  tcase_add_test (tc, test_map_count);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return dts_test_run (sim_suite ());
}
