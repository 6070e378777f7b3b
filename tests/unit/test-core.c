/* test-core.c - units, precision names, JSON number formatting, data dir. */
#include "config.h"

#include <math.h>

#include "core/datadir.h"
#include "core/error.h"
#include "core/precision.h"
#include "core/units.h"
#include "output/json.h"
#include "testlib.h"

static double
parse_ok (const char *text, DtsUnitKind kind)
{
  double v = -1;
  g_autoptr (GError) error = NULL;
  ck_assert_msg (dts_units_parse (text, kind, &v, &error), "'%s': %s", text,
                 error ? error->message : "");
  return v;
}

START_TEST (test_units_bandwidth)
{
  ck_assert_double_eq_tol (parse_ok ("25Gbps", DTS_UNIT_BANDWIDTH), 25e9 / 8, 1e-3);
  ck_assert_double_eq_tol (parse_ok ("100Gb/s", DTS_UNIT_BANDWIDTH), 12.5e9, 1e-3);
  ck_assert_double_eq_tol (parse_ok ("900GB/s", DTS_UNIT_BANDWIDTH), 900e9, 1e-3);
  ck_assert_double_eq_tol (parse_ok ("12.5GBps", DTS_UNIT_BANDWIDTH), 12.5e9, 1e-3);
  ck_assert_double_eq_tol (parse_ok ("1GiB/s", DTS_UNIT_BANDWIDTH), 1073741824.0, 1e-3);
  ck_assert_double_eq_tol (parse_ok ("125000000", DTS_UNIT_BANDWIDTH), 1.25e8, 1e-3);
}
END_TEST

START_TEST (test_units_flops_time_bytes)
{
  ck_assert_double_eq_tol (parse_ok ("15.7TFLOPS", DTS_UNIT_FLOPS), 15.7e12, 1);
  ck_assert_double_eq_tol (parse_ok ("125Tf", DTS_UNIT_FLOPS), 125e12, 1);
  ck_assert_double_eq_tol (parse_ok ("1.5e12", DTS_UNIT_FLOPS), 1.5e12, 1);
  ck_assert_double_eq_tol (parse_ok ("1.5us", DTS_UNIT_TIME), 1.5e-6, 1e-15);
  ck_assert_double_eq_tol (parse_ok ("2ns", DTS_UNIT_TIME), 2e-9, 1e-18);
  ck_assert_double_eq_tol (parse_ok ("3ms", DTS_UNIT_TIME), 3e-3, 1e-12);
  ck_assert_double_eq_tol (parse_ok ("0.25", DTS_UNIT_TIME), 0.25, 1e-12);
  ck_assert_double_eq_tol (parse_ok ("16GB", DTS_UNIT_BYTES), 16e9, 1e-3);
  ck_assert_double_eq_tol (parse_ok ("32GiB", DTS_UNIT_BYTES), 32.0 * 1073741824.0, 1e-3);
  ck_assert_double_eq_tol (parse_ok ("25MB", DTS_UNIT_BYTES), 25e6, 1e-6);
}
END_TEST

static void
parse_bad (const char *text, DtsUnitKind kind, const char *fragment)
{
  double v = 42;
  g_autoptr (GError) error = NULL;
  ck_assert_msg (!dts_units_parse (text, kind, &v, &error), "'%s' was accepted", text);
  dts_test_assert_error (error, DTS_ERROR_PARSE, fragment, NULL);
  ck_assert_double_eq (v, 42);
}

START_TEST (test_units_errors)
{
  parse_bad ("", DTS_UNIT_BANDWIDTH, "empty");
  parse_bad ("fast", DTS_UNIT_BANDWIDTH, "is not a bandwidth");
  parse_bad ("-5Gbps", DTS_UNIT_BANDWIDTH, "negative");
  parse_bad ("25Gbpz", DTS_UNIT_BANDWIDTH, "unknown unit 'Gbpz'");
  parse_bad ("25G", DTS_UNIT_BANDWIDTH, "unknown unit");  /* bits or bytes? */
  parse_bad ("3m", DTS_UNIT_TIME, "unknown unit");        /* minutes or milli? */
  parse_bad ("1.5us", DTS_UNIT_FLOPS, "unknown unit");
  parse_bad ("2ms", DTS_UNIT_BYTES, "unknown unit");
  parse_bad ("nan", DTS_UNIT_NONE, "is not a number");
  parse_bad ("inf", DTS_UNIT_TIME, "is not a time");
  parse_bad ("4k", DTS_UNIT_NONE, "unknown unit");
}
END_TEST

START_TEST (test_units_int)
{
  int v = 0;
  g_autoptr (GError) error = NULL;
  ck_assert (dts_units_parse_int ("42", &v, &error));
  ck_assert_int_eq (v, 42);
  ck_assert (!dts_units_parse_int ("4.2", &v, &error));
  dts_test_assert_error (error, DTS_ERROR_PARSE, "'4.2' is not a non-negative integer", NULL);
  g_clear_error (&error);
  ck_assert (!dts_units_parse_int ("-1", &v, &error));
  dts_test_assert_error (error, DTS_ERROR_PARSE, "'-1' is not a non-negative integer", NULL);
  g_clear_error (&error);
  ck_assert (!dts_units_parse_int ("99999999999", &v, &error));
  dts_test_assert_error (error, DTS_ERROR_PARSE, "'99999999999'", NULL);
  ck_assert_int_eq (v, 42); /* failures leave the output alone */
}
END_TEST

/* Decimal numbers only: hexadecimal, inf and nan read as no number. */
START_TEST (test_units_strtod_decimal)
{
  const char *bad[] = { "0x10", "0X1p3", "-0x1", "inf", "nan", "infinity", " x1", "", "-", "." };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    char *end = NULL;
    dts_units_strtod (bad[i], &end);
    ck_assert_msg (end == bad[i], "'%s' read as a number", bad[i]);
  }
  char *end = NULL;
  ck_assert_double_eq (dts_units_strtod ("1.5e3us", &end), 1500);
  ck_assert_str_eq (end, "us");
  ck_assert_double_eq (dts_units_strtod ("-.5", &end), -0.5);
  ck_assert_double_eq (dts_units_strtod ("0", &end), 0);
  double v = 0;
  ck_assert (!dts_units_parse ("0x10GBps", DTS_UNIT_BANDWIDTH, &v, NULL));
  ck_assert (!dts_units_parse ("inf", DTS_UNIT_NONE, &v, NULL));
  /* Found by fuzz-options: the unit's factor overflowed to infinity. */
  ck_assert (!dts_units_parse ("1e308PB", DTS_UNIT_BYTES, &v, NULL));
  ck_assert (!dts_units_parse ("1e300TB/s", DTS_UNIT_BANDWIDTH, &v, NULL));
}
END_TEST

START_TEST (test_precision)
{
  DtsPrecision p;
  g_autoptr (GError) error = NULL;
  ck_assert (dts_precision_from_string ("FP16", &p, &error));
  ck_assert_int_eq (p, DTS_PREC_FP16);
  ck_assert_double_eq (dts_precision_elem_bytes (p), 2.0);
  ck_assert_str_eq (dts_precision_to_string (DTS_PREC_TF32), "tf32");
  ck_assert (!dts_precision_from_string ("fp8", &p, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "unknown precision 'fp8'", "bf16", NULL);
}
END_TEST

START_TEST (test_json)
{
  g_autoptr (DtsJson) j = dts_json_new ();
  dts_json_begin_object (j);
  dts_json_kv_double (j, "a_s", 0.1);
  dts_json_kv_double (j, "b", 1e-7);
  dts_json_kv_double (j, "nan", NAN);
  dts_json_kv_int (j, "n", 16);
  dts_json_key (j, "list");
  dts_json_begin_array (j);
  dts_json_string (j, "q\"uote\n");
  dts_json_end_array (j);
  dts_json_key (j, "empty");
  dts_json_begin_object (j);
  dts_json_end_object (j);
  dts_json_end_object (j);
  ck_assert_str_eq (dts_json_get (j), "{\n  \"a_s\": 0.1,\n  \"b\": 1e-07,\n  \"nan\": null,\n"
                                      "  \"n\": 16,\n  \"list\": [\n    \"q\\\"uote\\n\"\n  ],\n"
                                      "  \"empty\": {}\n}\n");
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  dts_json_format_double (buf, sizeof buf, 1.0 / 3.0);
  ck_assert_double_eq (g_ascii_strtod (buf, NULL), 1.0 / 3.0);
  ck_assert_str_eq (buf, "0.3333333333333333"); /* shortest, not %.17g */
}
END_TEST

/* Integers at both ends of their range: an unsigned seed above G_MAXINT64
 * must not come out negative, as it would through dts_json_int. */
START_TEST (test_json_integers)
{
  g_autoptr (DtsJson) j = dts_json_new ();
  dts_json_begin_array (j);
  dts_json_int (j, G_MININT64);
  dts_json_int (j, G_MAXINT64);
  dts_json_uint (j, G_MAXUINT64);
  dts_json_uint (j, 0);
  dts_json_begin_object (j);
  dts_json_kv_uint (j, "seed", 4294967295u);
  dts_json_end_object (j);
  dts_json_end_array (j);
  ck_assert_str_eq (dts_json_get (j), "[\n  -9223372036854775808,\n  9223372036854775807,\n"
                                      "  18446744073709551615,\n  0,\n  {\n"
                                      "    \"seed\": 4294967295\n  }\n]\n");
}
END_TEST

START_TEST (test_datadir)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *p = dts_datadir_resolve ("workloads", "no-such-model", ".xml", "workload",
                                            &error);
  ck_assert_ptr_null (p);
  dts_test_assert_error (error, DTS_ERROR_NOT_FOUND, "workload 'no-such-model'", "shipped", NULL);
  g_clear_error (&error);
  g_autofree char *q = dts_datadir_resolve ("workloads", "./nope.xml", ".xml", "workload", &error);
  ck_assert_ptr_null (q);
  dts_test_assert_error (error, DTS_ERROR_NOT_FOUND, "'./nope.xml': no such file", NULL);
}
END_TEST

static Suite *
core_suite (void)
{
  Suite *s = suite_create ("core");
  TCase *tc = tcase_create ("core");
  tcase_add_test (tc, test_units_bandwidth);
  tcase_add_test (tc, test_units_flops_time_bytes);
  tcase_add_test (tc, test_units_errors);
  tcase_add_test (tc, test_units_strtod_decimal);
  tcase_add_test (tc, test_units_int);
  tcase_add_test (tc, test_precision);
  tcase_add_test (tc, test_json);
  tcase_add_test (tc, test_json_integers);
  tcase_add_test (tc, test_datadir);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return dts_test_run (core_suite ());
}
