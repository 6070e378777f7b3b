/* test-collective.c - collective plans against a naive reference interpreter
 * and against their closed forms. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "collective/collective.h"
#include "core/error.h"
#include "testlib.h"

/* The reference: every rank holds N segments, each the set of ranks whose
 * contribution it contains (a bit mask). All participants of a step send
 * what they held before the step, then receive: a reduction adds a set that
 * must be disjoint from the local one (no contribution counted twice), a copy
 * replaces it. The all-reduce is right when every rank ends with every
 * segment holding every contribution. Returns NULL or what went wrong. */
static char *
reference_run (const DtsCollPlan *plan)
{
  int n = plan->n_ranks;
  g_autofree guint64 *held = g_new0 (guint64, n * n);  /* [rank][segment] */
  g_autofree guint64 *sent = g_new0 (guint64, n);
  g_autofree int *sent_seg = g_new0 (int, n);
  for (int r = 0; r < n; r++)
    for (int seg = 0; seg < n; seg++)
      held[r * n + seg] = G_GUINT64_CONSTANT (1) << r;
  for (int step = 0; step < plan->n_steps; step++) {
    for (int pos = 0; pos < n; pos++) {
      DtsCollStep st;
      dts_coll_plan_step (plan, pos, step, &st);
      int r = plan->ring[pos];
      sent[r] = held[r * n + st.send_seg];
      sent_seg[r] = st.send_seg;
    }
    for (int pos = 0; pos < n; pos++) {
      DtsCollStep st, from;
      dts_coll_plan_step (plan, pos, step, &st);
      dts_coll_plan_step (plan, plan->position[st.recv_from], step, &from);
      int r = plan->ring[pos];
      if (from.send_to != r || sent_seg[st.recv_from] != st.recv_seg)
        return g_strdup_printf ("step %d: rank %d expects segment %d from %d, which sends %d to %d",
                                step, r, st.recv_seg, st.recv_from, sent_seg[st.recv_from],
                                from.send_to);
      guint64 *mine = &held[r * n + st.recv_seg];
      if (st.reduce) {
        if (*mine & sent[st.recv_from])
          return g_strdup_printf ("step %d: rank %d counts a contribution twice", step, r);
        *mine |= sent[st.recv_from];
      } else {
        *mine = sent[st.recv_from];
      }
    }
  }
  guint64 all = n == 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT (1) << n) - 1;
  for (int r = 0; r < n; r++)
    for (int seg = 0; seg < n; seg++)
      if (held[r * n + seg] != all)
        return g_strdup_printf ("rank %d ends with segment %d incomplete", r, seg);
  return NULL;
}

static DtsCollPlan *
ring_plan (int n, const int *ring, double bytes, int channels, double chunk)
{
  DtsCollParams p = { .n_ranks = n, .ring = ring, .bytes = bytes, .channels = channels,
                      .chunk_bytes = chunk };
  g_autoptr (GError) error = NULL;
  DtsCollPlan *plan = dts_coll_plan_new ("ring", &p, &error);
  ck_assert_msg (plan != NULL, "%s", error ? error->message : "");
  return plan;
}

START_TEST (test_ring_reference)
{
  for (int n = 1; n <= 64; n = n < 8 ? n + 1 : n * 2) {
    g_autoptr (DtsCollPlan) plan = ring_plan (n, NULL, 1e6, 1, DTS_COLL_DEFAULT_CHUNK_BYTES);
    g_autofree char *why = reference_run (plan);
    ck_assert_msg (why == NULL, "N=%d: %s", n, why);
  }
}
END_TEST

/* Any ring order works, e.g. ranks interleaved across nodes. */
START_TEST (test_ring_reference_permuted)
{
  int ring[12];
  for (int p = 0; p < 12; p++)
    ring[p] = (p * 5) % 12; /* 5 is coprime with 12: a permutation */
  g_autoptr (DtsCollPlan) plan = ring_plan (12, ring, 1e6, 3, 1e5);
  g_autofree char *why = reference_run (plan);
  ck_assert_msg (why == NULL, "%s", why);
  DtsCollStep st;
  dts_coll_plan_step (plan, 0, 0, &st);
  ck_assert_int_eq (st.send_to, 5);
  ck_assert_int_eq (st.recv_from, 7);
}
END_TEST

/* A plan that is wrong must be caught: the test of the test. */
START_TEST (test_reference_catches_errors)
{
  g_autoptr (DtsCollPlan) plan = ring_plan (4, NULL, 1e6, 1, 1e6);
  plan->n_steps = 5; /* one all-gather step short */
  g_autofree char *why = reference_run (plan);
  ck_assert_ptr_nonnull (why);
  ck_assert (strstr (why, "incomplete") != NULL);
  plan->n_steps = 6;
  plan->n_reduce_steps = 4; /* reduce once too often: counts twice */
  g_autofree char *why2 = reference_run (plan);
  ck_assert_ptr_nonnull (why2);
}
END_TEST

START_TEST (test_ring_closed_forms)
{
  const double S = 100e6;
  for (int n = 2; n <= 1024; n *= 2) {
    for (int c = 1; c <= 4; c++) {
      g_autoptr (DtsCollPlan) plan = ring_plan (n, NULL, S, c, DTS_COLL_DEFAULT_CHUNK_BYTES);
      ck_assert_int_eq (plan->n_steps, 2 * (n - 1));
      ck_assert_int_eq (plan->n_reduce_steps, n - 1);
      ck_assert_double_eq_tol (dts_coll_plan_bytes_per_rank (plan), 2.0 * (n - 1) / n * S,
                               1e-6);
      int rounds = (int) ceil (S / ((double) n * c * DTS_COLL_DEFAULT_CHUNK_BYTES));
      ck_assert_int_eq (plan->n_rounds, rounds);
      double seg = 0;
      for (int r = 0; r < plan->n_rounds; r++) {
        double b = dts_coll_plan_round_bytes (plan, r);
        ck_assert (b > 0 && b <= DTS_COLL_DEFAULT_CHUNK_BYTES * (1 + 1e-12));
        seg += b;
      }
      ck_assert_double_eq_tol (seg, S / ((double) n * c), 1e-6);
    }
  }
  /* An exact multiple of the chunk makes no empty round. */
  g_autoptr (DtsCollPlan) even = ring_plan (4, NULL, 4 * 3 * 1000.0, 1, 1000.0);
  ck_assert_int_eq (even->n_rounds, 3);
  ck_assert_double_eq_tol (dts_coll_plan_round_bytes (even, 2), 1000.0, 1e-9);
  /* One rank: nothing to do. */
  g_autoptr (DtsCollPlan) one = ring_plan (1, NULL, S, 2, 1e6);
  ck_assert_int_eq (one->n_steps, 0);
  ck_assert_double_eq (dts_coll_plan_bytes_per_rank (one), 0);
}
END_TEST

static void
plan_bad (const char *algo, int n, const int *ring, double bytes, int channels, double chunk,
          const char *fragment)
{
  DtsCollParams p = { .n_ranks = n, .ring = ring, .bytes = bytes, .channels = channels,
                      .chunk_bytes = chunk };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_new (algo, &p, &error);
  ck_assert_ptr_null (plan);
  dts_test_assert_error (error, DTS_ERROR_INVALID, fragment, NULL);
}

START_TEST (test_ring_errors)
{
  int dup[] = { 0, 1, 1, 3 };
  int out[] = { 0, 1, 2, 4 };
  plan_bad ("ring", 0, NULL, 1e6, 1, 1e6, "at least one rank");
  plan_bad ("ring", 4, dup, 1e6, 1, 1e6, "not a permutation");
  plan_bad ("ring", 4, out, 1e6, 1, 1e6, "not a permutation");
  plan_bad ("ring", 4, NULL, -1, 1, 1e6, "non-negative");
  plan_bad ("ring", 4, NULL, NAN, 1, 1e6, "non-negative");
  plan_bad ("ring", 4, NULL, 1e6, 0, 1e6, "channels must be in 1..64");
  plan_bad ("ring", 4, NULL, 1e6, 65, 1e6, "channels");
  plan_bad ("ring", 4, NULL, 1e6, 1, 0, "chunk size must be a positive");
  plan_bad ("ring", 4, NULL, 1e18, 1, 1, "rounds per step");
  plan_bad ("tree", 4, NULL, 1e6, 1, 1e6, "unknown collective algorithm 'tree' (known: ring, ps)");
}
END_TEST

static Suite *
collective_suite (void)
{
  Suite *s = suite_create ("collective");
  TCase *tc = tcase_create ("ring");
  tcase_add_test (tc, test_ring_reference);
  tcase_add_test (tc, test_ring_reference_permuted);
  tcase_add_test (tc, test_reference_catches_errors);
  tcase_add_test (tc, test_ring_closed_forms);
  tcase_add_test (tc, test_ring_errors);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return dts_test_run (collective_suite ());
}
