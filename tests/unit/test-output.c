/* test-output.c - readable numbers of the text outputs (output/format.h) and
 * the JSON and CSV run writers (output/report.h). */
#include "config.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "output/format.h"
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
  s->scaling_efficiency = 0.5;
  s->memory_peak_bytes_per_gpu = 9.5e9;
  s->wall_time_s = 1.5;
  s->events = 123456789012;
  s->seed = 7;
  DtsBucketStat b = { .bytes = 4096, .n_layers = 3, .first_layer = g_strdup ("fc2"),
                      .last_layer = g_strdup ("fc1"), .end_s = 0.75 };
  g_array_append_val (s->buckets, b);
  return s;
}

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
  tcase_add_test (tc, test_format_grouped);
  tcase_add_test (tc, test_format_extremes_fit);
  tcase_add_test (tc, test_format_locale_independent);
  suite_add_tcase (s, tc);
  TCase *tr = tcase_create ("report");
  tcase_add_test (tr, test_report_csv);
  tcase_add_test (tr, test_report_json);
  suite_add_tcase (s, tr);
  return s;
}

int
main (void)
{
  return dts_test_run (output_suite ());
}
