/* test-output.c - readable numbers of the text outputs (output/format.h),
 * the JSON and CSV run writers (output/report.h), and the per-rank summary
 * and its verdict (trace/trace.h). */
#include "config.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "output/format.h"
#include "output/json.h"
#include "output/report.h"
#include "testlib.h"

START_TEST (test_format_scale_is_the_hand_written_arithmetic)
{
  /* x / 1e9 and x * 1e-9 differ in the last bit for these values; the
   * outputs were written with the first form and must keep their bytes. */
  ck_assert (dts_format_in (3.0, DTS_FORMAT_UNIT_GB) == 3.0 / 1e9);
  ck_assert (dts_format_in (3.0, DTS_FORMAT_UNIT_GB) != 3.0 * 1e-9);
  ck_assert (dts_format_in (2.1e6, DTS_FORMAT_UNIT_GBPS) == 2.1e6 / 1e9);
  ck_assert (dts_format_in (0.7, DTS_FORMAT_UNIT_MS) == 0.7 * 1e3);
  ck_assert (dts_format_in (0.7, DTS_FORMAT_UNIT_MS) != 0.7 / 1e-3);
  ck_assert (dts_format_in (0.001, DTS_FORMAT_UNIT_US) == 0.001 * 1e6);
  ck_assert (dts_format_in (0.001, DTS_FORMAT_UNIT_GBITPS) == 0.001 * 8 / 1e9);
  ck_assert (dts_format_in (0.001, DTS_FORMAT_UNIT_GBITPS) != 0.001 * (8 / 1e9));
  ck_assert_double_eq_tol (dts_format_in (12.5e9, DTS_FORMAT_UNIT_GBITPS), 100, 1e-12);
  ck_assert_double_eq_tol (dts_format_in (32.0 * 1073741824.0, DTS_FORMAT_UNIT_GIB), 32, 1e-12);
  ck_assert_double_eq_tol (dts_format_in (15.7e12, DTS_FORMAT_UNIT_TFLOPS), 15.7, 1e-12);
  ck_assert_double_eq_tol (dts_format_in (4.1e9, DTS_FORMAT_UNIT_GIGA), 4.1, 1e-12);
  ck_assert_double_eq_tol (dts_format_in (3.5e6, DTS_FORMAT_UNIT_MEGA), 3.5, 1e-12);
  ck_assert_double_eq_tol (dts_format_in (2500, DTS_FORMAT_UNIT_KB), 2.5, 1e-12);
  ck_assert_double_eq_tol (dts_format_in (2.5, DTS_FORMAT_UNIT_S), 2.5, 1e-12);
}
END_TEST

START_TEST (test_format_symbols)
{
  static const struct {
    DtsFormatUnit unit;
    const char *symbol;
  } cases[] = {
    { DTS_FORMAT_UNIT_S, "s" },        { DTS_FORMAT_UNIT_MS, "ms" },
    { DTS_FORMAT_UNIT_US, "us" },      { DTS_FORMAT_UNIT_B, "B" },
    { DTS_FORMAT_UNIT_KB, "kB" },      { DTS_FORMAT_UNIT_MB, "MB" },
    { DTS_FORMAT_UNIT_GB, "GB" },      { DTS_FORMAT_UNIT_GIB, "GiB" },
    { DTS_FORMAT_UNIT_MIB, "MiB" },   { DTS_FORMAT_UNIT_KIB, "KiB" },
    { DTS_FORMAT_UNIT_GBPS, "GB/s" },  { DTS_FORMAT_UNIT_GBITPS, "Gb/s" },
    { DTS_FORMAT_UNIT_TFLOPS, "TFLOP/s" }, { DTS_FORMAT_UNIT_MEGA, "M" },
    { DTS_FORMAT_UNIT_GIGA, "G" },
  };
  G_STATIC_ASSERT (G_N_ELEMENTS (cases) == DTS_FORMAT_UNIT_COUNT_);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    ck_assert_str_eq (dts_format_unit_symbol (cases[i].unit), cases[i].symbol);
}
END_TEST

START_TEST (test_format_fixed_and_sig)
{
  DtsFormatBuf b;
  ck_assert_str_eq (dts_format_fixed (&b, 0.0125, DTS_FORMAT_UNIT_MS, 3), "12.500");
  ck_assert_str_eq (dts_format_fixed (&b, 73.26e-6, DTS_FORMAT_UNIT_US, 1), "73.3");
  ck_assert_str_eq (dts_format_fixed (&b, 102.23e6, DTS_FORMAT_UNIT_MB, 1), "102.2");
  ck_assert_str_eq (dts_format_fixed (&b, 4.1e9, DTS_FORMAT_UNIT_GIGA, 0), "4");
  ck_assert_str_eq (dts_format_fixed (&b, -2e6, DTS_FORMAT_UNIT_MEGA, 2), "-2.00");
  ck_assert_str_eq (dts_format_sig (&b, 15.7e12, DTS_FORMAT_UNIT_TFLOPS, 4), "15.7");
  ck_assert_str_eq (dts_format_sig (&b, 125e12, DTS_FORMAT_UNIT_TFLOPS, 4), "125");
  ck_assert_str_eq (dts_format_sig (&b, 12.5e9, DTS_FORMAT_UNIT_GBITPS, 4), "100");
  ck_assert_str_eq (dts_format_sig (&b, 16.0 * 1073741824.0, DTS_FORMAT_UNIT_GIB, 4), "16");
  ck_assert_str_eq (dts_format_sig (&b, 1.23456e-6, DTS_FORMAT_UNIT_US, 4), "1.235");
  ck_assert_str_eq (dts_format_sig (&b, 12346.0e9, DTS_FORMAT_UNIT_GBPS, 4), "1.235e+04");
  ck_assert_str_eq (dts_format_sig (&b, 0, DTS_FORMAT_UNIT_GBPS, 4), "0");
  ck_assert_str_eq (dts_format_sig (&b, NAN, DTS_FORMAT_UNIT_GBPS, 4), "nan");
  ck_assert_str_eq (dts_format_sig (&b, -INFINITY, DTS_FORMAT_UNIT_GBPS, 4), "-inf");
}
END_TEST

typedef struct {
  double v;
  const char *text;
} Case;

static void
check_cases (const char *(*format) (DtsFormatBuf *, double), const Case *cases, gsize n)
{
  for (gsize i = 0; i < n; i++) {
    DtsFormatBuf b;
    ck_assert_msg (strcmp (format (&b, cases[i].v), cases[i].text) == 0,
                   "%.17g: got '%s', expected '%s'", cases[i].v, b.str, cases[i].text);
  }
}

START_TEST (test_format_time)
{
  static const Case cases[] = {
    { 0, "0.000 s" },
    { 1.5, "1.500 s" },
    { 1, "1.000 s" },
    { 0.204904, "204.904 ms" },
    { 1e-3, "1.000 ms" },
    { -0.002, "-2.000 ms" },
    { 3.753e-6, "3.753 us" },
    { 2e-9, "0.002 us" },
    /* The unit is chosen before rounding: just under 1 s stays in ms. */
    { 0.9999996, "1000.000 ms" },
    { NAN, "nan us" },
  };
  check_cases (dts_format_time, cases, G_N_ELEMENTS (cases));
}
END_TEST

START_TEST (test_format_bytes)
{
  static const Case cases[] = {
    { 9.96e9, "9.96 GB" },
    { 1e9, "1.00 GB" },
    { 1.6e13, "16000.00 GB" },
    { 25e6, "25.00 MB" },
    { 2097152, "2.10 MB" },
    { 1500, "1.50 kB" },
    { 999, "999 B" },
    { 0, "0 B" },
  };
  check_cases (dts_format_bytes, cases, G_N_ELEMENTS (cases));
}
END_TEST

START_TEST (test_format_mem)
{
  static const Case cases[] = {
    { 16.0 * 1073741824.0, "16.00 GiB" },
    { 17.18e9, "16.00 GiB" },
    { 9.96e9, "9.28 GiB" },
    { 102.23e6, "97.49 MiB" },
    { 1048576, "1.00 MiB" },
    { 1048575, "1024.00 KiB" },
    { 69536, "67.91 KiB" },
    { 1023, "1023 B" },
    { 0, "0 B" },
  };
  check_cases (dts_format_mem, cases, G_N_ELEMENTS (cases));
}
END_TEST

START_TEST (test_format_grouped)
{
  static const Case cases[] = {
    { 25557032, "25,557,032" },
    { 0, "0" },
    { 999, "999" },
    { 1000, "1,000" },
    { 1234.6, "1,235" },
    { -100, "-100" },
    { -1000, "-1,000" },
    { -123456, "-123,456" },
    { 1e21, "1,000,000,000,000,000,000,000" },
  };
  check_cases (dts_format_grouped, cases, G_N_ELEMENTS (cases));
}
END_TEST

START_TEST (test_format_extremes_fit)
{
  /* The buffer holds the longest result of every form: nothing is cut. */
  DtsFormatBuf b;
  dts_format_fixed (&b, -DBL_MAX, DTS_FORMAT_UNIT_B, 17);
  ck_assert_uint_eq (strlen (b.str), 1 + 309 + 1 + 17);
  dts_format_grouped (&b, -DBL_MAX);
  ck_assert_uint_eq (strlen (b.str), 1 + 309 + 102);
  ck_assert_str_eq (b.str + strlen (b.str) - 4, ",368");
  dts_format_time (&b, DBL_MAX);
  ck_assert (g_str_has_suffix (b.str, ".000 s"));
  ck_assert_uint_eq (strlen (b.str), 309 + 6);
}
END_TEST

START_TEST (test_format_locale_independent)
{
  /* A locale with a decimal comma, where the system has one. */
  static const char *const commas[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8",
                                        NULL };
  const char *set = NULL;
  for (int i = 0; commas[i] && set == NULL; i++)
    set = setlocale (LC_NUMERIC, commas[i]);
  DtsFormatBuf b;
  ck_assert_str_eq (dts_format_fixed (&b, 0.0125, DTS_FORMAT_UNIT_MS, 3), "12.500");
  ck_assert_str_eq (dts_format_time (&b, 0.204904), "204.904 ms");
  ck_assert_str_eq (dts_format_grouped (&b, 1234567), "1,234,567");
  setlocale (LC_NUMERIC, "C");
}
END_TEST

/* A summary whose every field differs from its neighbours, with a string
 * that CSV must quote. */
static DtsRunSummary *
summary_new (void)
{
  DtsRunSummary *s = dts_run_summary_new ();
  s->workload = g_strdup ("my,net");
  s->platform = g_strdup ("pf \"x\"");
  s->gpu = g_strdup ("V100");
  s->precision = g_strdup ("fp16");
  s->cost_model = g_strdup ("roofline");
  s->collective = g_strdup ("ring");
  s->granularity = g_strdup ("flow");
  s->n_gpus = 8;
  s->n_nodes = 2;
  s->batch_size_per_gpu = 32;
  s->global_batch_size = 256;
  s->overlap = TRUE;
  s->bucket_bytes = 25e6;
  s->chunk_bytes = 2097152;
  s->channels = 2;
  s->iterations = 3;
  s->iteration_time_s = 0.25;
  s->throughput_samples_per_s = 1024;
  s->forward_s = 0.1;
  s->backward_s = 0.125;
  s->optimizer_s = 0.005;
  s->comm_s = 0.0625;
  s->comm_exposed_s = NAN;
  s->compute_efficiency = 0.5;
  s->memory_peak_bytes_per_gpu = 9.5e9;
  s->wall_time_s = 1.5;
  s->events = 123456789012;
  s->seed = 7;
  DtsBucketStat b = { .bytes = 4096, .n_layers = 3, .first_layer = g_strdup ("fc2"),
                      .last_layer = g_strdup ("fc1"), .end_s = 0.75 };
  g_array_append_val (s->buckets, b);
  return s;
}

/* The shortest round-trip text of a double, remembered by its bits: with
 * far more values than the memo has sets (so values share sets), each
 * text read back is still its own value and the shortest that does, in
 * any order of repeats. */
START_TEST (test_json_double_memo)
{
  enum { N = 4000 };
  static char first[N][G_ASCII_DTOSTR_BUF_SIZE];
  for (int pass = 0; pass < 3; pass++)
    for (int k = 0; k < N; k++) {
      int i = pass == 1 ? N - 1 - k : (k * 7) % N; /* repeats in other orders */
      double v = 0.001 * i + 1.0 / (i + 3.0);
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      dts_json_format_double (buf, sizeof buf, v);
      ck_assert_msg (g_ascii_strtod (buf, NULL) == v, "%s for %.17g", buf, v);
      if (pass == 0) {
        g_strlcpy (first[i], buf, sizeof first[i]);
        char shorter[G_ASCII_DTOSTR_BUF_SIZE];
        int digits = 0; /* significant: from the first non-zero digit */
        for (const char *c = buf; *c && *c != 'e'; c++)
          digits += g_ascii_isdigit (*c) && (digits > 0 || *c != '0');
        if (digits > 6) { /* one digit fewer does not read back */
          char fmt[8];
          g_snprintf (fmt, sizeof fmt, "%%.%dg", digits - 1);
          g_ascii_formatd (shorter, sizeof shorter, fmt, v);
          ck_assert_msg (g_ascii_strtod (shorter, NULL) != v, "%s shortens to %s", buf, shorter);
        }
      } else
        ck_assert_str_eq (buf, first[i]);
    }
}
END_TEST

START_TEST (test_report_csv)
{
  g_autoptr (DtsRunSummary) s = summary_new ();
  g_autoptr (GString) out = g_string_new (NULL);
  dts_report_write_csv (s, out);
  g_auto (GStrv) lines = g_strsplit (out->str, "\n", -1);
  ck_assert_uint_eq (g_strv_length (lines), 3);
  ck_assert_str_eq (lines[2], "");
  g_autofree char *header = g_strjoinv (",", (char **) dts_report_csv_columns ());
  ck_assert_str_eq (lines[0], header);
  ck_assert_str_eq (lines[1], "\"my,net\",\"pf \"\"x\"\"\",V100,8,2,32,256,fp16,roofline,ring,flow,"
                              "true,2.5e+07,2097152,2,3,0.25,1024,0.1,0.125,0.005,0.0625,,0.5,"
                              "9.5e+09,1.5,123456789012");
}
END_TEST

START_TEST (test_report_json)
{
  g_autoptr (DtsRunSummary) s = summary_new ();
  g_autoptr (GString) out = g_string_new (NULL);
  dts_report_write_json (s, out);
  static const char *const expected[] = {
    "\"n_gpus\": 8,",
    "\"comm_exposed_s\": null,",
    "\"memory_peak_bytes_per_gpu\": 9.5e+09,",
    "\"fits\": false",
    "\"workload\": \"my,net\",",
    "\"comm_granularity\": \"flow\",",
    "\"overlap\": true,",
    "\"seed\": 7,",
    "\"simgrid_cfg\": [],",
    "\"first_layer\": \"fc2\",",
    "\"end_s\": 0.75,",
    "\"events\": 123456789012,",
  };
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    ck_assert_msg (strstr (out->str, expected[i]) != NULL, "no '%s' in:\n%s", expected[i],
                   out->str);
  /* The keys of the output contract come first, in this order. */
  const char *order[] = { "\"n_gpus\"", "\"iteration_time_s\"", "\"breakdown\"",
                          "\"memory\"", "\"platform\"", "\"options\"", "\"buckets\"",
                          "\"simulation\"" };
  for (guint i = 1; i < G_N_ELEMENTS (order); i++)
    ck_assert_msg (strstr (out->str, order[i - 1]) < strstr (out->str, order[i]), "%s before %s",
                   order[i - 1], order[i]);
}
END_TEST

/* A trace of N ranks, 2 iterations (the first a warm-up), no buckets:
 * every rank computes 100 ms forward and waits WAIT_S, except rank SLOW,
 * which computes FACTOR x as long and does not wait; all end together. */
static DtsTrace *
straggler_trace (int n, int slow, double factor, double wait_s)
{
  DtsTrace *t = dts_trace_new (n, 2, 0, FALSE);
  double it_s = 0.1 * factor;
  for (int r = 0; r < n; r++) {
    g_ptr_array_add (t->rank_hosts, g_strdup_printf ("host%d", r));
    for (int it = 0; it < 2; it++) {
      gsize ri = dts_trace_ri (t, r, it);
      double compute = r == slow ? 0.1 * factor : 0.1;
      t->iter_start_s[ri] = it * (it_s + wait_s);
      t->iter_end_s[ri] = (it + 1) * (it_s + wait_s);
      t->phase_s[ri * DTS_TRACE_N_PHASES + 0] = compute;
      t->wait_s[ri] = it_s + wait_s - compute;
      t->comm_s[ri] = wait_s;
    }
  }
  return t;
}

static DtsRunSummary *
summarize (const DtsTrace *t, gboolean overlap)
{
  DtsRunSummary *s = dts_run_summary_new ();
  s->n_gpus = t->n_ranks;
  s->iterations = 2;
  s->warmup_iterations = 1;
  s->global_batch_size = 32 * t->n_ranks;
  s->overlap = overlap;
  dts_trace_summarize (t, s);
  return s;
}

START_TEST (test_ranks_straggler)
{
  g_autoptr (DtsTrace) t = straggler_trace (8, 5, 2.0, 0.001);
  g_autoptr (DtsRunSummary) s = summarize (t, TRUE);
  ck_assert_uint_eq (s->ranks->len, 8);
  ck_assert_int_eq (s->slowest_rank, 5);
  ck_assert_int_eq (s->fastest_rank, 0); /* ties: the lowest rank */
  ck_assert_int_eq (s->n_slow_ranks, 1);
  ck_assert_double_eq_tol (s->median_compute_s, 0.1, 1e-12);
  ck_assert_int_eq (s->bottleneck, DTS_BOTTLENECK_STRAGGLER);
  ck_assert_str_eq (dts_bottleneck_id (s->bottleneck), "straggler");
  const DtsRankStat *slow = &g_array_index (s->ranks, DtsRankStat, 5);
  const DtsRankStat *fast = &g_array_index (s->ranks, DtsRankStat, 3);
  ck_assert_str_eq (slow->host, "host5");
  ck_assert_double_eq_tol (slow->compute_s, 0.2, 1e-12);
  ck_assert_double_eq_tol (slow->wait_s[DTS_RANK_WAIT_ALLREDUCE], 0.001, 1e-12);
  ck_assert_double_eq_tol (fast->wait_s[DTS_RANK_WAIT_ALLREDUCE], 0.101, 1e-12);
  /* compute + waits + idle = the iteration time, on every rank. */
  for (guint r = 0; r < s->ranks->len; r++) {
    const DtsRankStat *rs = &g_array_index (s->ranks, DtsRankStat, r);
    ck_assert_double_eq_tol (rs->compute_s + rs->wait_s[DTS_RANK_WAIT_ALLREDUCE] + rs->idle_s,
                             s->iteration_time_s, 1e-12);
  }
  /* The mean over ranks says "communication-bound"; the verdict must not. */
  ck_assert (s->comm_exposed_s / s->iteration_time_s > 0.25);
  s->workload = g_strdup ("w");
  s->platform = g_strdup ("p");
  s->gpu = g_strdup ("g");
  s->collective = g_strdup ("ring");
  g_autoptr (GString) text = g_string_new (NULL);
  dts_report_write_text (s, text);
  ck_assert_msg (strstr (text->str, "limited by a straggler: rank 5 (host5) computes 200.000 ms "
                                    "per iteration,\n  2.00x the median rank's 100.000 ms")
                     != NULL, "%s", text->str);
  ck_assert_msg (strstr (text->str, "communication-bound") == NULL, "%s", text->str);
  ck_assert_msg (strstr (text->str, "     5  host5       200.000          1.000      0.000\n")
                     != NULL, "%s", text->str);

  g_autoptr (GString) csv = g_string_new (NULL);
  dts_report_write_ranks_csv (s, csv);
  g_auto (GStrv) lines = g_strsplit (csv->str, "\n", -1);
  ck_assert_uint_eq (g_strv_length (lines), 10);
  ck_assert_str_eq (lines[0], "rank,host,compute_s,phase_forward_s,phase_backward_data_s,"
                              "phase_backward_weight_s,phase_optimizer_s,phase_recompute_s,"
                              "wait_allreduce_s,wait_tensor_s,wait_transfer_s,wait_bubble_s,"
                              "comm_busy_s,idle_s");
  /* wait_allreduce_s is 0.2 + 0.001 - 0.2 in doubles: not exactly 0.001. */
  ck_assert_msg (g_str_has_prefix (lines[6], "5,host5,0.2,0.2,0,0,0,0,0.00100")
                     && g_str_has_suffix (lines[6], ",0,0,0,0.001,0"), "%s", lines[6]);

  g_autoptr (GString) json = g_string_new (NULL);
  dts_report_write_json (s, json);
  ck_assert (strstr (json->str, "\"bottleneck\": \"straggler\"") != NULL);
  ck_assert (strstr (json->str, "\"slowest_host\": \"host5\"") != NULL);
  ck_assert (strstr (json->str, "\"slowest_over_median\": 2") != NULL);
}
END_TEST

/* --zero 1: the parameter all-gathers have their own wait kind and
 * columns. Every rank waits 3 ms for gradient sync (its comm stream busy 5
 * ms) and 2 ms for gathers (busy 4 ms) after 100 ms of compute: comm_s and
 * comm_exposed_s are the sums, split into grad_sync and param_gather; the
 * per-rank waits partition the iteration; the gather columns appear in the
 * per-rank CSV and JSON of a --zero 1 run only. */
START_TEST (test_ranks_gather)
{
  g_autoptr (DtsTrace) t = straggler_trace (4, -1, 1.0, 0.005);
  for (int r = 0; r < 4; r++)
    for (int it = 0; it < 2; it++) {
      gsize ri = dts_trace_ri (t, r, it);
      t->wait_s[ri] = 0.003;
      t->gather_wait_s[ri] = 0.002;
      t->comm_s[ri] = 0.005;
      t->gather_s[ri] = 0.004;
    }
  g_autoptr (DtsRunSummary) s = summarize (t, TRUE);
  ck_assert_double_eq_tol (s->comm_s, 0.009, 1e-12);
  ck_assert_double_eq_tol (s->comm_exposed_s, 0.005, 1e-12);
  ck_assert_double_eq_tol (s->grad_sync_s, 0.005, 1e-12);
  ck_assert_double_eq_tol (s->grad_sync_exposed_s, 0.003, 1e-12);
  ck_assert_double_eq_tol (s->param_gather_s, 0.004, 1e-12);
  ck_assert_double_eq_tol (s->param_gather_exposed_s, 0.002, 1e-12);
  ck_assert_str_eq (dts_trace_wait_kind_id (DTS_RANK_WAIT_GATHER), "gather");
  for (guint r = 0; r < s->ranks->len; r++) {
    const DtsRankStat *rs = &g_array_index (s->ranks, DtsRankStat, r);
    ck_assert_double_eq_tol (rs->wait_s[DTS_RANK_WAIT_ALLREDUCE], 0.003, 1e-12);
    ck_assert_double_eq_tol (rs->wait_s[DTS_RANK_WAIT_GATHER], 0.002, 1e-12);
    ck_assert_double_eq_tol (rs->comm_s, 0.005, 1e-12);
    ck_assert_double_eq_tol (rs->gather_s, 0.004, 1e-12);
    ck_assert_double_eq_tol (rs->idle_s, 0, 1e-12);
  }
  s->workload = g_strdup ("w");
  s->platform = g_strdup ("p");
  s->gpu = g_strdup ("g");
  s->collective = g_strdup ("ring");
  for (int zero = 0; zero <= 1; zero++) {
    s->zero = zero;
    s->param_gather = zero ? "after-step" : NULL;
    g_autoptr (GString) csv = g_string_new (NULL);
    dts_report_write_ranks_csv (s, csv);
    g_autoptr (GString) json = g_string_new (NULL);
    dts_report_write_json (s, json);
    g_autoptr (GString) text = g_string_new (NULL);
    dts_report_write_text (s, text);
    ck_assert_int_eq (g_str_has_prefix (strchr (csv->str, '\n') - strlen ("idle_s,wait_gather_s,gather_busy_s"),
                                        "idle_s,wait_gather_s,gather_busy_s"),
                      zero);
    ck_assert_int_eq (strstr (json->str, "\"wait_gather_s\": 0.002") != NULL, zero);
    ck_assert_int_eq (strstr (json->str, "\"param_gather_exposed_s\": 0.002") != NULL, zero);
    ck_assert_int_eq (strstr (text->str, "  parameter gather 4.000 ms") != NULL, zero);
    ck_assert_msg (strstr (text->str, "gather wait") != NULL, "%s", text->str);
  }
}
END_TEST

START_TEST (test_ranks_balanced)
{
  /* 4% slower is below the 5%-of-the-iteration threshold. */
  g_autoptr (DtsTrace) t = straggler_trace (4, 2, 1.04, 0.0);
  g_autoptr (DtsRunSummary) s = summarize (t, TRUE);
  ck_assert_int_eq (s->slowest_rank, 2);
  ck_assert_int_eq (s->bottleneck, DTS_BOTTLENECK_COMPUTE);
  g_autoptr (DtsTrace) t2 = straggler_trace (4, 2, 1.06, 0.0);
  g_autoptr (DtsRunSummary) s2 = summarize (t2, FALSE);
  ck_assert_int_eq (s2->bottleneck, DTS_BOTTLENECK_STRAGGLER);
  /* Without a straggler, overlap off is what the verdict names. */
  g_autoptr (DtsTrace) t3 = straggler_trace (4, 2, 1.0, 0.05);
  g_autoptr (DtsRunSummary) s3 = summarize (t3, FALSE);
  ck_assert_int_eq (s3->bottleneck, DTS_BOTTLENECK_NO_OVERLAP);
  g_autoptr (DtsRunSummary) s4 = summarize (t3, TRUE);
  ck_assert_int_eq (s4->bottleneck, DTS_BOTTLENECK_COMMUNICATION);
  g_autoptr (DtsTrace) t5 = straggler_trace (1, 0, 1.0, 0.0);
  g_autoptr (DtsRunSummary) s5 = summarize (t5, TRUE);
  ck_assert_int_eq (s5->bottleneck, DTS_BOTTLENECK_SINGLE_GPU);
}
END_TEST

static Suite *
output_suite (void)
{
  Suite *s = suite_create ("output");
  TCase *tc = tcase_create ("format");
  tcase_add_test (tc, test_format_scale_is_the_hand_written_arithmetic);
  tcase_add_test (tc, test_format_symbols);
  tcase_add_test (tc, test_format_fixed_and_sig);
  tcase_add_test (tc, test_format_time);
  tcase_add_test (tc, test_format_bytes);
  tcase_add_test (tc, test_format_mem);
  tcase_add_test (tc, test_format_grouped);
  tcase_add_test (tc, test_json_double_memo);
  tcase_add_test (tc, test_format_extremes_fit);
  tcase_add_test (tc, test_format_locale_independent);
  suite_add_tcase (s, tc);
  TCase *tr = tcase_create ("report");
  tcase_add_test (tr, test_report_csv);
  tcase_add_test (tr, test_report_json);
  tcase_add_test (tr, test_ranks_straggler);
  tcase_add_test (tr, test_ranks_balanced);
  tcase_add_test (tr, test_ranks_gather);
  suite_add_tcase (s, tr);
  return s;
}

int
main (void)
{
  return dts_test_run (output_suite ());
}
