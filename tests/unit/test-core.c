/* test-core.c - units, precision names, JSON number formatting, data dir. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "core/datadir.h"
#include "core/error.h"
#include "core/precision.h"
#include "core/quote.h"
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
  ck_assert (dts_precision_from_string ("fp8", &p, &error));
  ck_assert_int_eq (p, DTS_PREC_FP8);
  /* fp8 stores activations in bf16; its non-GEMM kernels run in bf16 */
  ck_assert_double_eq (dts_precision_elem_bytes (p), 2.0);
  ck_assert_int_eq (dts_precision_non_gemm (p), DTS_PREC_BF16);
  ck_assert_int_eq (dts_precision_non_gemm (DTS_PREC_FP16), DTS_PREC_FP16);
  ck_assert (!dts_precision_from_string ("fp4", &p, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "unknown precision 'fp4'", "bf16, fp8", NULL);
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

/* ---- quote.c: hostile strings through every script writer ---- */

static const char *const hostile[] = {
  "`touch CANARY`",
  "$(touch CANARY)",
  "${HOME}$HOME$$",
  "system('touch CANARY')",
  "x'; system(\"touch CANARY\"); '",
  "\"`touch CANARY`\"",
  "'\"'\"both kinds'\"",
  "it's",
  "back\\slash\\",
  "@macro %s %A %% #not a comment",
  "; touch CANARY; #",
  "| touch CANARY &",
  "-e",
  "~",
  "*",
  "",
  "\xc3\xa9t\xc3\xa9 \xe2\x80\x94 UTF-8",
  NULL,
};

/* Control characters refused by every writer. */
static const char *const controls[] = { "a\nb", "a\rb", "tab\there", "\x1b[31mred", "del\x7f",
                                        "\n", "x\n`touch CANARY`", NULL };

/* A value of 1 MiB made of quotes, backquotes and $(. */
static char *
long_hostile (void)
{
  GString *s = g_string_new (NULL);
  while (s->len < 1024 * 1024)
    g_string_append (s, "'\"`$(touch CANARY)\\");
  return g_string_free (s, FALSE);
}

/* What sh prints for the script "printf '%s' WORD", run in a new temporary
 * directory, which must still be empty of CANARY afterwards. */
static char *
sh_prints (const char *word)
{
  g_autofree char *dir = g_dir_make_tmp ("dtsim-quote-XXXXXX", NULL);
  ck_assert_ptr_nonnull (dir);
  g_autofree char *script = g_build_filename (dir, "s.sh", NULL);
  g_autofree char *text = g_strdup_printf ("printf '%%s' %s\n", word);
  ck_assert (g_file_set_contents (script, text, -1, NULL));
  char *argv[] = { (char *) "sh", (char *) "s.sh", NULL };
  char *out = NULL;
  int status = -1;
  ck_assert (g_spawn_sync (dir, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, NULL, &status,
                           NULL));
  ck_assert (g_spawn_check_wait_status (status, NULL));
  g_autofree char *canary = g_build_filename (dir, "CANARY", NULL);
  ck_assert_msg (!g_file_test (canary, G_FILE_TEST_EXISTS), "a command ran from '%.40s'", word);
  g_unlink (script);
  g_rmdir (dir);
  return out;
}

START_TEST (test_quote_shell)
{
  g_autofree char *huge = long_hostile ();
  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++) {
    const char *v = hostile[i] ? hostile[i] : huge;
    g_autoptr (GError) error = NULL;
    g_autofree char *q = dts_quote_shell (v, "value", "a test", &error);
    ck_assert_msg (q != NULL, "'%.40s': %s", v, error ? error->message : "");
    g_autofree char *back = sh_prints (q);
    ck_assert_msg (strcmp (back, v) == 0, "'%.40s' came back as '%.40s'", v, back);
  }
  /* Plain words stay as they are, so that job lists stay readable. */
  g_autofree char *p = dts_quote_shell ("--gpus=4", "value", "a test", NULL);
  ck_assert_str_eq (p, "--gpus=4");
  g_autofree char *s = dts_quote_shell ("link:*-ib.bandwidth=1", "value", "a test", NULL);
  ck_assert_str_eq (s, "'link:*-ib.bandwidth=1'");
  /* A command word that sh would read as an assignment or a keyword. */
  g_autofree char *c1 = dts_quote_shell_command ("A=1", "dtsim", "a test", NULL);
  ck_assert_str_eq (c1, "'A=1'");
  g_autofree char *c2 = dts_quote_shell_command ("if", "dtsim", "a test", NULL);
  ck_assert_str_eq (c2, "'if'");
  g_autofree char *c3 = dts_quote_shell_command ("/usr/bin/dtsim", "dtsim", "a test", NULL);
  ck_assert_str_eq (c3, "/usr/bin/dtsim");
}
END_TEST

START_TEST (test_quote_refused)
{
  for (const char *const *v = controls; *v; v++) {
    g_autoptr (GError) e1 = NULL, e2 = NULL, e3 = NULL, e4 = NULL;
    ck_assert_ptr_null (dts_quote_shell (*v, "base run option", "jobs.txt", &e1));
    dts_test_assert_error (e1, DTS_ERROR_INVALID, "base run option '", "cannot be written into "
                           "jobs.txt", NULL);
    ck_assert_ptr_null (strchr (e1->message, '\n'));
    ck_assert_ptr_null (dts_quote_shell_command (*v, "dtsim", "jobs.txt", &e2));
    ck_assert_ptr_null (dts_quote_gnuplot (*v, "column", "x.gp", &e3));
    dts_test_assert_error (e3, DTS_ERROR_INVALID, "column '", "x.gp", NULL);
    ck_assert_ptr_null (dts_quote_slurm (*v, "output directory", "sweep.slurm", &e4));
  }
  g_autoptr (GError) nl = NULL;
  ck_assert (!dts_quote_check ("a\nb", -1, "label", "x.gp", &nl));
  dts_test_assert_error (nl, DTS_ERROR_INVALID, "label 'a\\nb': a newline (byte 2) cannot be "
                         "written into x.gp", NULL);
  /* A NUL byte inside a value of known length. */
  g_autoptr (GError) nul = NULL;
  ck_assert (!dts_quote_check ("ab\0cd", 5, "cell", "x.dat", &nul));
  dts_test_assert_error (nul, DTS_ERROR_INVALID, "cell 'ab...': a NUL byte (byte 3)", NULL);
  ck_assert (dts_quote_check ("ab\0cd", 2, "cell", "x.dat", NULL));
  /* Long values are shown shortened. */
  g_autofree char *huge = g_strnfill (100000, 'x');
  huge[50000] = '\n';
  g_autoptr (GError) lng = NULL;
  ck_assert_ptr_null (dts_quote_gnuplot (huge, "label", "x.gp", &lng));
  ck_assert_int_lt (strlen (lng->message), 200);
}
END_TEST

START_TEST (test_quote_gnuplot)
{
  g_autofree char *a = dts_quote_gnuplot ("it's `x` $(y) @z \\", "label", "x.gp", NULL);
  ck_assert_str_eq (a, "('it'.\"'\".'s `x` $(y) @z \\')");
  g_autofree char *b = dts_quote_gnuplot ("''x''", "label", "x.gp", NULL);
  ck_assert_str_eq (b, "(\"'\".\"'\".'x'.\"'\".\"'\")");
  g_autofree char *huge = long_hostile ();
  g_autoptr (GError) too_long = NULL;
  ck_assert_ptr_null (dts_quote_gnuplot (huge, "label", "x.gp", &too_long));
  dts_test_assert_error (too_long, DTS_ERROR_INVALID, "longer than 4096 bytes", NULL);
  huge[DTS_QUOTE_GNUPLOT_MAX] = '\0';
  g_autofree char *gnuplot = g_find_program_in_path ("gnuplot");
  if (gnuplot == NULL)
    return;
  /* What gnuplot prints for each value: the value, and no command ran. */
  g_autofree char *dir = g_dir_make_tmp ("dtsim-quote-XXXXXX", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++) {
    const char *v = hostile[i] ? hostile[i] : huge;
    g_autofree char *q = dts_quote_gnuplot (v, "label", "x.gp", NULL);
    ck_assert_ptr_nonnull (q);
    g_autofree char *script = g_build_filename (dir, "t.gp", NULL);
    g_autofree char *text = g_strdup_printf ("set print '-'\nprint %s\nset title %s\n", q, q);
    ck_assert (g_file_set_contents (script, text, -1, NULL));
    char *argv[] = { gnuplot, (char *) "t.gp", NULL };
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;
    int status = -1;
    ck_assert (g_spawn_sync (dir, argv, NULL, 0, NULL, NULL, &out, &err, &status, NULL));
    ck_assert_msg (g_spawn_check_wait_status (status, NULL), "'%.40s': %s", v, err);
    g_autofree char *expected = g_strconcat (v, "\n", NULL);
    ck_assert_msg (strcmp (out, expected) == 0, "'%.40s' came back as '%.40s'", v, out);
    g_autofree char *canary = g_build_filename (dir, "CANARY", NULL);
    ck_assert_msg (!g_file_test (canary, G_FILE_TEST_EXISTS), "a command ran from '%.40s'", v);
    g_unlink (script);
  }
  g_rmdir (dir);
}
END_TEST

START_TEST (test_quote_slurm)
{
  g_autofree char *a = dts_quote_slurm ("out 50%", "output directory", "sweep.slurm", NULL);
  ck_assert_str_eq (a, "'out 50%%'");
  g_autofree char *b = dts_quote_slurm ("study", "output directory", "sweep.slurm", NULL);
  ck_assert_str_eq (b, "study");
  g_autofree char *c = dts_quote_slurm ("`x` $(y) it's", "output directory", "sweep.slurm", NULL);
  ck_assert_str_eq (c, "'`x` $(y) it'\\''s'");
  g_autoptr (GError) error = NULL;
  ck_assert_ptr_null (dts_quote_slurm ("a\\b", "output directory", "sweep.slurm", &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "a backslash cannot be written into "
                         "sweep.slurm", NULL);
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
  tcase_add_test (tc, test_quote_shell);
  tcase_add_test (tc, test_quote_refused);
  tcase_add_test (tc, test_quote_gnuplot);
  tcase_add_test (tc, test_quote_slurm);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return dts_test_run (core_suite ());
}
