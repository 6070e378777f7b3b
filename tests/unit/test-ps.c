/* test-ps.c - the parameter-server collective: its plan against a reference
 * interpreter, the placement of the servers, and whole simulations against
 * closed forms (tests/data/flat-16.xml: 16 V100 on a non-blocking crossbar,
 * 12.5 GB/s per direction per GPU, 2 us between two GPUs; fc-allreduce: one
 * bucket of 65,601,536 bytes that runs alone). Simulations run in a child
 * process each (SimGrid runs once per process). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "collective/collective.h"
#include "core/datadir.h"
#include "core/error.h"
#include "platform/gpu.h"
#include "platform/platform.h"
#include "schedule/schedule.h"
#include "sim/sim.h"
#include "testlib.h"

/* --- the plan ----------------------------------------------------------------- */

/* The reference: every rank holds P shards, each the set of ranks whose
 * contribution it contains (a bit mask); every server starts empty. Push
 * steps add the sender's shard to the server of that shard, which must not
 * hold that contribution yet; after the pushes every server must hold all N
 * contributions; pull steps overwrite the rank's shard with the server's.
 * Right when every rank ends with every shard complete. */
static char *
reference_run (const DtsCollPlan *plan)
{
  int n = plan->n_ranks, p = plan->n_servers;
  if (p < 1 || plan->n_reduce_steps != p)
    return g_strdup_printf ("%d servers, %d reducing steps", p, plan->n_reduce_steps);
  g_autofree guint64 *held = g_new0 (guint64, n * p);
  g_autofree guint64 *server = g_new0 (guint64, p);
  g_autofree int *visits = g_new0 (int, n * p);
  for (int r = 0; r < n; r++)
    for (int k = 0; k < p; k++)
      held[r * p + k] = G_GUINT64_CONSTANT (1) << r;
  for (int step = 0; step < plan->n_steps; step++) {
    if (step == p)
      for (int k = 0; k < p; k++)
        if (server[k] != (n == 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT (1) << n) - 1))
          return g_strdup_printf ("server %d misses contributions after the pushes", k);
    for (int r = 0; r < n; r++) {
      DtsCollStep st;
      dts_coll_plan_ps_step (plan, r, step, &st);
      if (st.reduce != (step < p))
        return g_strdup_printf ("step %d of rank %d: reduce is %d", step, r, st.reduce);
      int k = step < p ? st.send_seg : st.recv_seg;
      if (k < 0 || k >= p)
        return g_strdup_printf ("step %d of rank %d: shard %d", step, r, k);
      visits[r * p + k]++;
      if (step < p) {
        if (st.send_to != plan->server_rank[k] || st.recv_from != -1)
          return g_strdup_printf ("step %d: rank %d pushes shard %d to rank %d, server on %d",
                                  step, r, k, st.send_to, plan->server_rank[k]);
        if (server[k] & held[r * p + k])
          return g_strdup_printf ("step %d: server %d counts rank %d twice", step, k, r);
        server[k] |= held[r * p + k];
      } else {
        if (st.recv_from != plan->server_rank[k] || st.send_to != -1)
          return g_strdup_printf ("step %d: rank %d pulls shard %d from rank %d, server on %d",
                                  step, r, k, st.recv_from, plan->server_rank[k]);
        held[r * p + k] = server[k];
      }
    }
  }
  guint64 all = n == 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT (1) << n) - 1;
  for (int r = 0; r < n; r++)
    for (int k = 0; k < p; k++) {
      if (held[r * p + k] != all)
        return g_strdup_printf ("rank %d ends with shard %d incomplete", r, k);
      if (visits[r * p + k] != 2)
        return g_strdup_printf ("rank %d visits server %d %d times", r, k, visits[r * p + k]);
    }
  return NULL;
}

static DtsCollPlan *
ps_plan (int n, int p, const int *server_rank, double bytes, GError **error)
{
  DtsCollParams cp = { .n_ranks = n, .bytes = bytes, .channels = 2,
                       .chunk_bytes = DTS_COLL_DEFAULT_CHUNK_BYTES, .n_servers = p,
                       .server_rank = server_rank };
  return dts_coll_plan_new ("ps", &cp, error);
}

START_TEST (test_ps_reference)
{
  for (int n = 1; n <= 64; n = n < 8 ? n + 1 : n * 2)
    for (int p = 1; p <= n; p = p < 4 ? p + 1 : p * 2) {
      g_autofree int *where = g_new (int, p);
      for (int k = 0; k < p; k++)
        where[k] = (k * 7) % n; /* any placement, several servers per rank allowed */
      g_autoptr (GError) error = NULL;
      g_autoptr (DtsCollPlan) plan = ps_plan (n, p, where, 1e6, &error);
      ck_assert_msg (plan != NULL, "%s", error ? error->message : "");
      g_autofree char *why = reference_run (plan);
      ck_assert_msg (why == NULL, "N=%d P=%d: %s", n, p, why);
      ck_assert_str_eq (plan->algorithm, "ps");
      ck_assert_double_eq_tol (plan->seg_bytes * p, 1e6, 1e-6);
      ck_assert_int_eq (plan->n_rounds, 1);
      ck_assert_double_eq_tol (dts_coll_plan_bytes_per_rank (plan), n > 1 ? 1e6 : 0, 1e-9);
      for (int k = 0; k < p; k++)
        ck_assert_int_eq (plan->server_rank[k], where[k]);
    }
}
END_TEST

/* The interpreter catches a plan that stops one pull short. */
START_TEST (test_ps_reference_can_fail)
{
  int where[2] = { 0, 1 };
  g_autoptr (DtsCollPlan) plan = ps_plan (4, 2, where, 1e6, NULL);
  ck_assert (plan != NULL);
  plan->n_steps--;
  g_autofree char *why = reference_run (plan);
  ck_assert (why != NULL);
  ck_assert_msg (strstr (why, "incomplete") != NULL, "%s", why);
}
END_TEST

START_TEST (test_ps_staggered)
{
  int where[4] = { 0, 4, 8, 12 };
  g_autoptr (DtsCollPlan) plan = ps_plan (16, 4, where, 4e6, NULL);
  ck_assert (plan != NULL);
  /* At every push step, each server receives from N/P ranks, not all N. */
  for (int step = 0; step < 4; step++) {
    int count[4] = { 0 };
    for (int r = 0; r < 16; r++) {
      DtsCollStep st;
      dts_coll_plan_ps_step (plan, r, step, &st);
      count[st.send_seg]++;
    }
    for (int k = 0; k < 4; k++)
      ck_assert_int_eq (count[k], 4);
  }
}
END_TEST

START_TEST (test_ps_plan_errors)
{
  int where[3] = { 0, 1, 5 };
  struct {
    int n, p;
    const int *where;
    double bytes;
    const char *frag;
  } bad[] = {
    { 0, 1, where, 1e6, "at least one rank" },
    { 4, 0, where, 1e6, "0 servers for 4 ranks (expected 1..4" },
    { 2, 3, where, 1e6, "3 servers for 2 ranks" },
    { 4, 3, where, 1e6, "server 2 placed on rank 5 (expected 0..3)" },
    { 4, 2, NULL, 1e6, "no placement" },
    { 4, 2, where, -1, "non-negative" },
    { 4, 2, where, NAN, "non-negative" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (DtsCollPlan) plan = ps_plan (bad[i].n, bad[i].p, bad[i].where, bad[i].bytes,
                                            &error);
    ck_assert_msg (plan == NULL, "case %u accepted", i);
    dts_test_assert_error (error, DTS_ERROR_INVALID, "parameter servers", bad[i].frag, NULL);
  }
  g_autoptr (GError) error = NULL;
  DtsCollParams cp = { .n_ranks = 2, .bytes = 1, .channels = 1, .chunk_bytes = 1 };
  ck_assert (dts_coll_plan_new ("nope", &cp, &error) == NULL);
  dts_test_assert_error (error, DTS_ERROR_INVALID, "'nope'", "known: ring, ps", NULL);
}
END_TEST

/* --- placement ------------------------------------------------------------------ */

static DtsPlatform *
load_platform (const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *rel = g_strconcat ("tests/data/", name, ".xml", NULL);
  g_autofree char *path = dts_test_srcpath (rel);
  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    g_free (path);
    path = dts_datadir_resolve ("platforms", name, ".xml", "platform", &error);
    ck_assert_msg (path != NULL, "%s", error ? error->message : "");
  }
  g_autoptr (DtsGpuCatalog) cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert_msg (cat != NULL, "%s", error ? error->message : "");
  DtsPlatform *p = dts_platform_load (path, cat, &error);
  ck_assert_msg (p != NULL, "%s", error ? error->message : "");
  return p;
}

START_TEST (test_ps_placement)
{
  g_autoptr (DtsPlatform) p = load_platform ("aws-p2-8xlarge-x8"); /* 8 nodes x 8 GPUs */
  g_autoptr (GError) error = NULL;
  int n_servers = 0;
  g_autofree int *one_per_node = dts_schedule_ps_placement (p, 64, &n_servers, &error);
  ck_assert (one_per_node != NULL);
  ck_assert_int_eq (n_servers, 8);
  for (int k = 0; k < 8; k++)
    ck_assert_int_eq (one_per_node[k], 8 * k);
  n_servers = 10;
  g_autofree int *ten = dts_schedule_ps_placement (p, 64, &n_servers, &error);
  ck_assert (ten != NULL);
  ck_assert_int_eq (ten[8], 1);
  ck_assert_int_eq (ten[9], 9);
  /* 12 GPUs: nodes 0 (8 ranks) and 1 (4 ranks); node 1 runs out first. */
  n_servers = 0;
  g_autofree int *two = dts_schedule_ps_placement (p, 12, &n_servers, &error);
  ck_assert_int_eq (n_servers, 2);
  n_servers = 12;
  g_autofree int *all = dts_schedule_ps_placement (p, 12, &n_servers, &error);
  int expect[12] = { 0, 8, 1, 9, 2, 10, 3, 11, 4, 5, 6, 7 };
  for (int k = 0; k < 12; k++)
    ck_assert_int_eq (all[k], expect[k]);
  n_servers = 13;
  ck_assert (dts_schedule_ps_placement (p, 12, &n_servers, &error) == NULL);
  dts_test_assert_error (error, DTS_ERROR_INVALID, "13 parameter servers for 12 GPUs", NULL);
}
END_TEST

/* --- simulations ------------------------------------------------------------------ */

typedef struct {
  const char *platform;
  int n_gpus;
  int ps_count;
  DtsGranularity granularity;
  const char *collective;
} Setup;

typedef struct {
  int ok, code;
  char message[512];
  double bucket_bytes, bucket_s, iteration_s;
  char collective[16];
} Outcome;

static void
simulate_here (const void *setup, void *result)
{
  const Setup *st = setup;
  Outcome *out = result;
  g_autofree char *rel = g_strconcat ("tests/data/", st->platform, ".xml", NULL);
  g_autofree char *platform = dts_test_srcpath (rel);
  g_autofree char *workload = dts_test_srcpath ("tests/data/fc-allreduce.xml");
  DtsRunOptions o = {
    .platform_path = platform,
    .workload_path = workload,
    .n_gpus = st->n_gpus,
    .iterations = 2,
    .precision = DTS_PREC_COUNT,
    .cost_model = "roofline",
    .collective = st->collective ? st->collective : "ps",
    .ps_count = st->ps_count,
    .bucket_bytes = DTS_RUN_DEFAULT_BUCKET_BYTES,
    .chunk_bytes = DTS_COLL_DEFAULT_CHUNK_BYTES,
    .channels = DTS_COLL_DEFAULT_CHANNELS,
    .overlap = TRUE,
    .granularity = st->granularity,
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsRunSummary) s = dts_sim_run_training (&o, NULL, &error);
  if (s == NULL) {
    out->code = error ? error->code : -1;
    g_strlcpy (out->message, error ? error->message : "?", sizeof out->message);
    return;
  }
  out->ok = 1;
  out->iteration_s = s->iteration_time_s;
  g_strlcpy (out->collective, s->collective, sizeof out->collective);
  if (s->buckets->len == 1) {
    out->bucket_bytes = g_array_index (s->buckets, DtsBucketStat, 0).bytes;
    out->bucket_s = g_array_index (s->buckets, DtsBucketStat, 0).duration_s;
  }
}

static Outcome
simulate (const Setup *st)
{
  Outcome out = { 0 };
  g_autofree char *what = g_strdup_printf ("simulation on %s", st->platform);
  dts_test_run_in_child (simulate_here, st, &out, sizeof out, what);
  return out;
}

static Outcome
simulate_ok (const Setup *st)
{
  Outcome out = simulate (st);
  ck_assert_msg (out.ok, "%s: %s", st->platform, out.message);
  ck_assert_double_eq_tol (out.bucket_bytes, 65601536.0, 0.5);
  return out;
}

#define assert_rel(a, b, tol)                                                                  \
  ck_assert_msg (fabs ((a) - (b)) <= (tol) * fabs (b), "%s = %.12g, %s = %.12g: relative "    \
                 "difference %.3g > %g", #a, (double) (a), #b, (double) (b),                   \
                 fabs ((a) - (b)) / fabs (b), (double) (tol))

static const double B = 12.5e9, L = 2e-6;

static double
v100_mem_bw (void)
{
  g_autoptr (DtsPlatform) p = load_platform ("flat-16");
  double bw = dts_platform_gpu (p, 0)->spec.mem_bw_Bps;
  ck_assert (bw > 0);
  return bw;
}

/* One server (on rank 0), N - 1 remote workers: the pushes share the
 * server's incoming link, the pulls its outgoing one, and the sum runs in
 * between: 2 ((N-1) S/B + L) + (N+1) S / mem_bw, at both granularities. */
START_TEST (test_ps_closed_form)
{
  double mem_bw = v100_mem_bw ();
  for (int n = 2; n <= 16; n *= 2)
    for (int g = 0; g < DTS_GRANULARITY_COUNT; g++) {
      Setup st = { .platform = "flat-16", .n_gpus = n, .ps_count = 1, .granularity = g };
      Outcome o = simulate_ok (&st);
      double S = o.bucket_bytes;
      double closed = 2 * ((n - 1) * S / B + L) + (n + 1) * S / mem_bw;
      assert_rel (o.bucket_s, closed, 1e-6);
      ck_assert_str_eq (o.collective, "ps");
    }
}
END_TEST

/* Incast: with one server the bucket time grows as the N - 1 remote workers
 * per server; one server per GPU spreads it as an all-to-all,
 * 2 (N-1)/N S/B + 2 L plus the sums. */
START_TEST (test_ps_incast)
{
  double mem_bw = v100_mem_bw ();
  Setup s4 = { .platform = "flat-16", .n_gpus = 4, .ps_count = 1 };
  Setup s8 = { .platform = "flat-16", .n_gpus = 8, .ps_count = 1 };
  Setup s16 = { .platform = "flat-16", .n_gpus = 16, .ps_count = 1 };
  Outcome a = simulate_ok (&s4), b = simulate_ok (&s8), c = simulate_ok (&s16);
  /* Network part only: take the sum away. */
  double S = a.bucket_bytes;
  double na = a.bucket_s - 5 * S / mem_bw, nb = b.bucket_s - 9 * S / mem_bw,
         nc = c.bucket_s - 17 * S / mem_bw;
  assert_rel (nb / na, 7.0 / 3.0, 1e-3);
  assert_rel (nc / na, 15.0 / 3.0, 1e-3);
  Setup spread = { .platform = "flat-16", .n_gpus = 8, .ps_count = 8 };
  Outcome d = simulate_ok (&spread);
  assert_rel (d.bucket_s, 2 * (7.0 / 8 * S / B + L) + 9 * S / 8 / mem_bw, 1e-6);
  ck_assert (d.bucket_s < b.bucket_s / 6);
}
END_TEST

START_TEST (test_ps_errors)
{
  Setup too_many = { .platform = "flat-16", .n_gpus = 4, .ps_count = 5 };
  Outcome o = simulate (&too_many);
  ck_assert (!o.ok);
  ck_assert_int_eq (o.code, DTS_ERROR_USAGE);
  ck_assert_msg (strstr (o.message, "--ps-count 5: only 4 GPUs take part") != NULL, "%s",
                 o.message);
  Setup nope = { .platform = "flat-16", .n_gpus = 4, .collective = "nope" };
  o = simulate (&nope);
  ck_assert (!o.ok);
  ck_assert_int_eq (o.code, DTS_ERROR_INVALID);
  ck_assert_msg (strstr (o.message, "unknown collective algorithm 'nope'") != NULL, "%s",
                 o.message);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("ps");
  TCase *plan = tcase_create ("plan");
  tcase_add_test (plan, test_ps_reference);
  tcase_add_test (plan, test_ps_reference_can_fail);
  tcase_add_test (plan, test_ps_staggered);
  tcase_add_test (plan, test_ps_plan_errors);
  tcase_add_test (plan, test_ps_placement);
  suite_add_tcase (s, plan);
  TCase *sim = tcase_create ("simulation");
  tcase_add_test (sim, test_ps_closed_form);
  tcase_add_test (sim, test_ps_incast);
  tcase_add_test (sim, test_ps_errors);
  suite_add_tcase (s, sim);
  return dts_test_run (s);
}
