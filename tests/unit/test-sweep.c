/* test-sweep.c - dtsim sweep's axis parser (values, ranges, kinds, points,
 * series, mesh splits), its result writers (JSON reader, results.csv,
 * results.jsonl, the CSV reader of dtsim plot) and its choice among the
 * points (--where, --best). */
#include "config.h"

#include <string.h>

#include "cli/cli-private.h"
#include "core/error.h"
#include "testlib.h"

static void
assert_values (const char *text, const char *const *expected)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) v = dts_sweep_values_expand (text, &error);
  ck_assert_msg (v != NULL, "%s: %s", text, error ? error->message : "");
  ck_assert_uint_eq (g_strv_length (v), g_strv_length ((char **) expected));
  for (guint i = 0; expected[i]; i++)
    ck_assert_str_eq (v[i], expected[i]);
}

START_TEST (test_values_lists_and_ranges)
{
  assert_values ("4,8,16", (const char *const[]){ "4", "8", "16", NULL });
  assert_values ("32:256:x2", (const char *const[]){ "32", "64", "128", "256", NULL });
  /* The end is included only when reached; factors need not be integers. */
  assert_values ("1:10:x3", (const char *const[]){ "1", "3", "9", NULL });
  assert_values ("2:8:+3", (const char *const[]){ "2", "5", "8", NULL });
  /* No drift: 0.1 * 3 is printed 0.3, and 0.7 is still reached. */
  assert_values ("0.1:0.7:+0.1",
                 (const char *const[]){ "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", NULL });
  assert_values ("0.5:2:x2", (const char *const[]){ "0.5", "1", "2", NULL });
  /* A unit suffix shared by both ends is kept. */
  assert_values ("1MB:8MB:x2", (const char *const[]){ "1MB", "2MB", "4MB", "8MB", NULL });
  assert_values ("25Gbps:100Gbps:x2", (const char *const[]){ "25Gbps", "50Gbps", "100Gbps", NULL });
  /* Literals and ranges mix; values with ':' that are not ranges stay literal. */
  assert_values ("1,4:16:x2,100", (const char *const[]){ "1", "4", "8", "16", "100", NULL });
  assert_values ("network/model:LV08,network/model:CM02",
                 (const char *const[]){ "network/model:LV08", "network/model:CM02", NULL });
  assert_values ("4:4:x2", (const char *const[]){ "4", NULL });
}
END_TEST

START_TEST (test_values_errors)
{
  static const struct {
    const char *text;
    const char *fragment;
  } cases[] = {
    { "", "no values" },
    { "4,,8", "empty value" },
    { "4,8,4", "value '4' given twice" },
    { "8:4:x2", "needs FROM <= TO" },
    { "1:8:x1", "a factor above 1" },
    { "0:8:x2", "FROM > 0" },
    { "1:8:+0", "a step above 0" },
    { "1:8:+-1", "a step above 0" },
    { "1MB:8GB:x2", "the same unit" },
    { "a:8:x2", "expected FROM:TO:xFACTOR" },
    { "1:8:x2MB", "expected FROM:TO:xFACTOR" },
    { "1:1e9:+1", "more than 10000 values" },
    { "0x10:0x40:x2", "expected FROM:TO:xFACTOR" },
    { "1:8:x0x2", "expected FROM:TO:xFACTOR" },
    /* 400k values in 662 bytes: refused before they are compared (the
     * duplicate check was quadratic and took about 10 minutes). */
    { "1:10000:+1,10001:20000:+1,20001:30000:+1,30001:40000:+1,40001:50000:+1,"
      "50001:60000:+1,60001:70000:+1,70001:80000:+1,80001:90000:+1,90001:100000:+1,"
      "100001:110000:+1,110001:120000:+1,120001:130000:+1,130001:140000:+1,"
      "140001:150000:+1,150001:160000:+1,160001:170000:+1,170001:180000:+1,"
      "180001:190000:+1,190001:200000:+1,200001:210000:+1,210001:220000:+1,"
      "220001:230000:+1,230001:240000:+1,240001:250000:+1,250001:260000:+1,"
      "260001:270000:+1,270001:280000:+1,280001:290000:+1,290001:300000:+1,"
      "300001:310000:+1,310001:320000:+1,320001:330000:+1,330001:340000:+1,"
      "340001:350000:+1,350001:360000:+1,360001:370000:+1,370001:380000:+1,"
      "380001:390000:+1,390001:400000:+1", "more than 100000 values" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) error = NULL;
    g_auto (GStrv) v = dts_sweep_values_expand (cases[i].text, &error);
    ck_assert_msg (v == NULL, "'%s' accepted", cases[i].text);
    dts_test_assert_error (error, DTS_ERROR_USAGE, cases[i].fragment, NULL);
  }
}
END_TEST

START_TEST (test_axis_kinds_and_arguments)
{
  static const struct {
    const char *spec;
    DtsSweepAxisKind kind;
    const char *target;
    const char *args; /* of the first value, joined by ' ' */
  } cases[] = {
    { "gpus=4,8", DTS_SWEEP_OPTION, "gpus", "--gpus=4" },
    { "batch-size=32:64:x2", DTS_SWEEP_OPTION, "batch-size", "--batch-size=32" },
    { "workload=resnet50,vgg16", DTS_SWEEP_OPTION, "workload", "--workload=resnet50" },
    { "no-overlap=true,false", DTS_SWEEP_FLAG, "no-overlap", "--no-overlap" },
    { "no-overlap=false,true", DTS_SWEEP_FLAG, "no-overlap", "" },
    { "link:*-ib.bandwidth=25Gbps,100Gbps", DTS_SWEEP_SET, "link:*-ib.bandwidth",
      "--set link:*-ib.bandwidth=25Gbps" },
    { "set:gpu:*.flops_fp32=10TFLOPS", DTS_SWEEP_SET, "gpu:*.flops_fp32",
      "--set gpu:*.flops_fp32=10TFLOPS" },
    { "scale:network.bandwidth=0.5,1", DTS_SWEEP_SCALE, "network.bandwidth",
      "--scale network.bandwidth=0.5" },
    { "scale:link:*-ib.latency=2,4", DTS_SWEEP_SCALE, "link:*-ib.latency",
      "--scale link:*-ib.latency=2" },
    /* nodes: --gpus is added by the sweep, which knows the platform. */
    { "nodes=1,2,4", DTS_SWEEP_NODES, "gpus", "" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (DtsSweepAxis) axis = dts_sweep_axis_parse (cases[i].spec, &error);
    ck_assert_msg (axis != NULL, "%s: %s", cases[i].spec, error ? error->message : "");
    ck_assert_int_eq (axis->kind, cases[i].kind);
    ck_assert_str_eq (axis->target, cases[i].target);
    g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
    dts_sweep_axis_append_args (axis, 0, args);
    g_ptr_array_add (args, NULL);
    g_autofree char *joined = g_strjoinv (" ", (char **) args->pdata);
    ck_assert_str_eq (joined, cases[i].args);
  }
}
END_TEST

START_TEST (test_axis_errors)
{
  static const struct {
    const char *spec;
    const char *fragment;
  } cases[] = {
    { "gpus", "expected KEY=V1,V2" },
    { "=4,8", "expected KEY=V1,V2" },
    { "bogus=1", "unknown key 'bogus'" },
    { "format=csv", "'format' cannot be an axis" },
    { "quiet=true", "'quiet' cannot be an axis" },
    { "no-overlap=yes", "--no-overlap is a flag" },
    { "link:*-ib.bandwidth=fast", "'fast' is not a bandwidth" },
    { "link:*-ib.colour=1", "colour" },
    { "scale:network.bandwidth=-1", "-1" },
    { "gpus=4:2:x2", "needs FROM <= TO" },
    { "nodes=0,1", "'0' is not a node count" },
    { "nodes=1.5", "'1.5' is not a node count" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (DtsSweepAxis) axis = dts_sweep_axis_parse (cases[i].spec, &error);
    ck_assert_msg (axis == NULL, "'%s' accepted", cases[i].spec);
    g_autofree char *quoted = g_strdup_printf ("--vary '%s'", cases[i].spec);
    dts_test_assert_error (error, DTS_ERROR_USAGE, quoted, cases[i].fragment, NULL);
  }
}
END_TEST

START_TEST (test_plan_product_first_axis_fastest)
{
  char *vary[] = { (char *) "gpus=4,8,16", (char *) "batch-size=32,64", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsSweepPlan) plan = dts_sweep_plan_new (vary, FALSE, &error);
  ck_assert_ptr_nonnull (plan);
  ck_assert_uint_eq (plan->n_points, 6);
  static const guint gpus[] = { 0, 1, 2, 0, 1, 2 }, batch[] = { 0, 0, 0, 1, 1, 1 };
  for (guint p = 0; p < 6; p++) {
    ck_assert_uint_eq (dts_sweep_plan_value (plan, p, 0), gpus[p]);
    ck_assert_uint_eq (dts_sweep_plan_value (plan, p, 1), batch[p]);
    ck_assert_uint_eq (dts_sweep_plan_series (plan, p), batch[p]);
  }
  g_autofree char *label = dts_sweep_plan_series_label (plan, 4);
  ck_assert_str_eq (label, "batch-size=64");
}
END_TEST

START_TEST (test_plan_three_axes_and_zip)
{
  char *vary3[] = { (char *) "gpus=4,8", (char *) "batch-size=32,64",
                    (char *) "scale:network.bandwidth=0.5,1,2", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsSweepPlan) plan = dts_sweep_plan_new (vary3, FALSE, &error);
  ck_assert_uint_eq (plan->n_points, 12);
  /* Point 7 (0-based): gpus 8, batch 64, bandwidth 1 (7 = 1 + 2 * (1 + 2 * 1)). */
  ck_assert_uint_eq (dts_sweep_plan_value (plan, 7, 0), 1);
  ck_assert_uint_eq (dts_sweep_plan_value (plan, 7, 1), 1);
  ck_assert_uint_eq (dts_sweep_plan_value (plan, 7, 2), 1);
  ck_assert_uint_eq (dts_sweep_plan_series (plan, 7), 3);
  g_autofree char *label = dts_sweep_plan_series_label (plan, 7);
  ck_assert_str_eq (label, "batch-size=64 scale:network.bandwidth=1");

  char *zipped[] = { (char *) "gpus=4,8,16", (char *) "batch-size=16:64:x2", NULL };
  g_autoptr (DtsSweepPlan) zip = dts_sweep_plan_new (zipped, TRUE, &error);
  ck_assert_uint_eq (zip->n_points, 3);
  for (guint p = 0; p < 3; p++) {
    ck_assert_uint_eq (dts_sweep_plan_value (zip, p, 0), p);
    ck_assert_uint_eq (dts_sweep_plan_value (zip, p, 1), p);
    ck_assert_uint_eq (dts_sweep_plan_series (zip, p), 0);
  }
  g_autofree char *all = dts_sweep_plan_series_label (zip, 2);
  ck_assert_str_eq (all, "all");
}
END_TEST

START_TEST (test_plan_errors)
{
  g_autoptr (GError) e1 = NULL, e2 = NULL, e3 = NULL;
  char *none[] = { NULL };
  ck_assert_ptr_null (dts_sweep_plan_new (none, FALSE, &e1));
  dts_test_assert_error (e1, DTS_ERROR_USAGE, "no axis", NULL);
  char *twice[] = { (char *) "gpus=4", (char *) "gpus=8", NULL };
  ck_assert_ptr_null (dts_sweep_plan_new (twice, FALSE, &e2));
  dts_test_assert_error (e2, DTS_ERROR_USAGE, "axis 'gpus' given twice", NULL);
  g_autoptr (GError) e4 = NULL;
  char *both[] = { (char *) "gpus=4,8", (char *) "nodes=1,2", NULL };
  ck_assert_ptr_null (dts_sweep_plan_new (both, FALSE, &e4));
  dts_test_assert_error (e4, DTS_ERROR_USAGE, "axes 'gpus' and 'nodes' both set --gpus", NULL);
  g_autoptr (GError) e5 = NULL;
  char *same_set[] = { (char *) "link:*-ib.bandwidth=1Gbps,2Gbps",
                       (char *) "set:link:*-ib.bandwidth=3Gbps", NULL };
  ck_assert_ptr_null (dts_sweep_plan_new (same_set, FALSE, &e5));
  dts_test_assert_error (e5, DTS_ERROR_USAGE, "axes 'link:*-ib.bandwidth' and "
                         "'set:link:*-ib.bandwidth' both set 'link:*-ib.bandwidth'", NULL);
  /* A scale applies after every --set: both axes have an effect. */
  char *set_and_scale[] = { (char *) "link:*-ib.bandwidth=1Gbps,2Gbps",
                            (char *) "scale:link:*-ib.bandwidth=0.5,1", NULL };
  g_autoptr (DtsSweepPlan) both_ok = dts_sweep_plan_new (set_and_scale, FALSE, NULL);
  ck_assert_ptr_nonnull (both_ok);
  char *uneven[] = { (char *) "gpus=4,8", (char *) "batch-size=1,2,3", NULL };
  ck_assert_ptr_null (dts_sweep_plan_new (uneven, TRUE, &e3));
  dts_test_assert_error (e3, DTS_ERROR_USAGE, "--zip", "3 values", NULL);
}
END_TEST

/* A run's JSON with the fields the sweep needs. */
static char *
run_json (int gpus, const char *throughput, const char *extra)
{
  return g_strdup_printf ("{\n  \"n_gpus\": %d,\n  \"iteration_time_s\": 0.25,\n"
                          "  \"throughput_samples_per_s\": %s,\n"
                          "  \"breakdown\": { \"forward_s\": 0.1, \"comm_exposed_s\": 1e-3 },\n"
                          "  \"workload\": \"a \\\"quoted\\\", name\",\n"
                          "  \"options\": { \"simgrid_cfg\": [\"x:1\", \"y:2\"], \"none\": null },\n"
                          "  \"buckets\": [ { \"bytes\": 1 } ]%s,\n"
                          "  \"simulation\": { \"wall_time_s\": 0.0123, \"events\": 7 }\n}\n",
                          gpus, throughput, extra);
}

static DtsSweepRow *
row_new (const char *json, const char *v1, const char *v2, guint series, const char *label)
{
  g_autoptr (GError) error = NULL;
  DtsSweepRow *row = g_new0 (DtsSweepRow, 1);
  row->result = dts_sweep_result_parse (json, &error);
  ck_assert_msg (row->result != NULL, "%s", error ? error->message : "");
  row->values = g_strdupv ((char *[]){ (char *) v1, (char *) v2, NULL });
  row->series = series;
  row->series_label = g_strdup (label);
  row->file = g_strdup ("points/x.json");
  return row;
}

START_TEST (test_csv_columns_values_and_derived)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) dts_sweep_row_free);
  g_autofree char *j1 = run_json (4, "1000", "");
  g_autofree char *j2 = run_json (8, "1800", ",\n  \"late\": 5");
  g_autofree char *j3 = run_json (4, "500", "");
  g_autofree char *j4 = run_json (8, "1000.5", "");
  g_ptr_array_add (rows, row_new (j1, "4", "1,5", 0, "bw=1,5"));
  g_ptr_array_add (rows, row_new (j2, "8", "1,5", 0, "bw=1,5"));
  g_ptr_array_add (rows, row_new (j3, "4", "2", 1, "bw=2"));
  g_ptr_array_add (rows, row_new (j4, "8", "2", 1, "bw=2"));
  char *axes[] = { (char *) "gpus", (char *) "bw", NULL };
  g_autoptr (GString) csv = g_string_new (NULL);
  dts_sweep_write_csv (axes, rows, csv);
  const char *expected =
      "point,series,gpus,bw,n_gpus,iteration_time_s,throughput_samples_per_s,"
      "breakdown.forward_s,breakdown.comm_exposed_s,workload,options.simgrid_cfg,"
      "options.none,simulation.events,late,ideal_speedup,speedup,efficiency,comm_wait_s\n"
      "1,\"bw=1,5\",4,\"1,5\",4,0.25,1000,0.1,1e-3,\"a \"\"quoted\"\", name\",x:1;y:2,,7,,"
      "1,1,1,0.001\n"
      "2,\"bw=1,5\",8,\"1,5\",8,0.25,1800,0.1,1e-3,\"a \"\"quoted\"\", name\",x:1;y:2,,7,5,"
      "2,1.8,0.9,0.001\n"
      "3,bw=2,4,2,4,0.25,500,0.1,1e-3,\"a \"\"quoted\"\", name\",x:1;y:2,,7,,1,1,1,0.001\n"
      "4,bw=2,8,2,8,0.25,1000.5,0.1,1e-3,\"a \"\"quoted\"\", name\",x:1;y:2,,7,,2,2.001,1.0005,"
      "0.001\n";
  ck_assert_str_eq (csv->str, expected);

  /* The CSV reader gives the fields back. */
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) table = dts_csv_parse (csv->str, &error);
  ck_assert_ptr_nonnull (table);
  ck_assert_uint_eq (table->len, 5);
  char **r2 = g_ptr_array_index (table, 2);
  ck_assert_str_eq (r2[1], "bw=1,5");
  ck_assert_str_eq (r2[9], "a \"quoted\", name");
  ck_assert_str_eq (r2[13], "5");
  ck_assert_uint_eq (g_strv_length (r2), 18);

  g_autoptr (GString) jsonl = g_string_new (NULL);
  dts_sweep_write_jsonl (axes, rows, jsonl);
  g_auto (GStrv) lines = g_strsplit (jsonl->str, "\n", -1);
  ck_assert_uint_eq (g_strv_length (lines), 5); /* 4 lines and the empty tail */
  ck_assert_str_eq (lines[1],
                    "{\"point\":2,\"series\":\"bw=1,5\",\"axes\":{\"gpus\":\"8\",\"bw\":\"1,5\"},"
                    "\"ideal_speedup\":2,\"speedup\":1.8,\"efficiency\":0.9,\"comm_wait_s\":0.001,"
                    "\"run\":{\"n_gpus\":8,"
                    "\"iteration_time_s\":0.25,\"throughput_samples_per_s\":1800,\"breakdown\":"
                    "{\"forward_s\":0.1,\"comm_exposed_s\":1e-3},\"workload\":\"a \\\"quoted\\\", "
                    "name\",\"options\":{\"simgrid_cfg\":[\"x:1\",\"y:2\"],\"none\":null},"
                    "\"buckets\":[{\"bytes\":1}],\"late\":5,\"simulation\":{\"events\":7}}}");
  ck_assert_ptr_null (strstr (jsonl->str, "wall_time"));

  /* An axis named like a run field: the field becomes run.NAME. */
  char *clash[] = { (char *) "workload", (char *) "bw", NULL };
  g_autoptr (GString) csv2 = g_string_new (NULL);
  dts_sweep_write_csv (clash, rows, csv2);
  ck_assert (g_str_has_prefix (csv2->str, "point,series,workload,bw,n_gpus,iteration_time_s,"
                                          "throughput_samples_per_s,breakdown.forward_s,"
                                          "breakdown.comm_exposed_s,run.workload,"));
  ck_assert_str_eq (dts_sweep_result_wall_time (((DtsSweepRow *) rows->pdata[0])->result),
                    "0.0123");
}
END_TEST

/* A first point of throughput 0: the ratios to it are not numbers, written
 * as null in JSON Lines (valid JSON) and as empty cells in the CSV. */
START_TEST (test_derived_not_finite)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) dts_sweep_row_free);
  g_autofree char *j1 = run_json (4, "0", "");
  g_autofree char *j2 = run_json (8, "10", "");
  g_ptr_array_add (rows, row_new (j1, "4", "1", 0, "all"));
  g_ptr_array_add (rows, row_new (j2, "8", "1", 0, "all"));
  char *axes[] = { (char *) "gpus", (char *) "bw", NULL };
  g_autoptr (GString) jsonl = g_string_new (NULL);
  dts_sweep_write_jsonl (axes, rows, jsonl);
  ck_assert_ptr_null (strstr (jsonl->str, "inf"));
  ck_assert_ptr_null (strstr (jsonl->str, "nan"));
  ck_assert_ptr_nonnull (strstr (jsonl->str, "\"ideal_speedup\":2,\"speedup\":null,"
                                             "\"efficiency\":null"));
  g_autoptr (GString) csv = g_string_new (NULL);
  dts_sweep_write_csv (axes, rows, csv);
  ck_assert (g_str_has_suffix (csv->str, ",2,,,0.001\n"));
}
END_TEST

/* Speed-up and efficiency only where the series scales: a GPU-count axis
 * (gpus, nodes, mesh) changes in it and so does n_gpus; comm_wait_s is the
 * exposed collective time, or the parameter-server workers' mean wait. */
START_TEST (test_derived_defined)
{
  g_autofree char *j4 = run_json (4, "1000", "");
  g_autofree char *j8 = run_json (8, "1800", "");
  g_autofree char *j8b = run_json (8, "1500", "");
  /* The parameter-server JSON: no collective, the workers' wait fractions. */
  g_autofree char *ps = run_json (
      8, "900", ",\n  \"parameter_servers\": { \"worker_wait_fraction\": [0.5, 0.7] }");
  static const struct {
    const char *axis;
    const char *v1, *v2;
    const char *tail1, *tail2;
  } cases[] = {
    /* gpus and nodes set the GPU count: defined against the first point */
    { "gpus", "4", "8", "1,1,1,0.001\n", "2,1.8,0.9,0.001\n" },
    { "nodes", "1", "2", "1,1,1,0.001\n", "2,1.8,0.9,0.001\n" },
    { "mesh", "1x1x4", "1x2x4", "1,1,1,0.001\n", "2,1.8,0.9,0.001\n" },
    /* another axis: the 371.5% of a ratio of throughputs is no efficiency */
    { "batch-size", "32", "64", ",,,0.001\n", ",,,0.001\n" },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    g_autoptr (GPtrArray) rows =
        g_ptr_array_new_with_free_func ((GDestroyNotify) dts_sweep_row_free);
    g_ptr_array_add (rows, row_new (j4, cases[c].v1, "x", 0, "b=x"));
    g_ptr_array_add (rows, row_new (j8, cases[c].v2, "x", 0, "b=x"));
    char *axes[] = { (char *) cases[c].axis, (char *) "b", NULL };
    g_autoptr (GString) csv = g_string_new (NULL);
    dts_sweep_write_csv (axes, rows, csv);
    g_auto (GStrv) lines = g_strsplit (csv->str, "\n", -1);
    ck_assert_msg (g_str_has_suffix (csv->str, cases[c].tail2), "%s: %s", cases[c].axis,
                   csv->str);
    g_autofree char *l1 = g_strconcat (lines[1], "\n", NULL);
    ck_assert_msg (g_str_has_suffix (l1, cases[c].tail1), "%s: %s", cases[c].axis, l1);
  }

  /* A mesh axis over the splits of one GPU count: n_gpus does not change. */
  g_autoptr (GPtrArray) mesh = g_ptr_array_new_with_free_func ((GDestroyNotify) dts_sweep_row_free);
  g_ptr_array_add (mesh, row_new (j8, "1x1x8", "x", 0, "all"));
  g_ptr_array_add (mesh, row_new (j8b, "1x2x4", "x", 0, "all"));
  char *mesh_axes[] = { (char *) "mesh", (char *) "b", NULL };
  g_autoptr (GString) csv = g_string_new (NULL);
  dts_sweep_write_csv (mesh_axes, mesh, csv);
  ck_assert_msg (g_str_has_suffix (csv->str, ",1500,0.1,1e-3,\"a \"\"quoted\"\", name\",x:1;y:2,,7,"
                                             ",,,0.001\n"), "%s", csv->str);

  /* Parameter servers: the mean wait fraction x the iteration time,
   * (0.5 + 0.7) / 2 x 0.25 s, not the 1e-3 of comm_exposed_s. */
  g_autoptr (GPtrArray) psr = g_ptr_array_new_with_free_func ((GDestroyNotify) dts_sweep_row_free);
  g_ptr_array_add (psr, row_new (ps, "8", "x", 0, "all"));
  char *gpus_axes[] = { (char *) "gpus", (char *) "b", NULL };
  g_autoptr (GString) csv2 = g_string_new (NULL);
  dts_sweep_write_csv (gpus_axes, psr, csv2);
  ck_assert_msg (g_str_has_suffix (csv2->str, ",,,,0.15\n"), "%s", csv2->str);
  g_autoptr (GString) jsonl = g_string_new (NULL);
  dts_sweep_write_jsonl (gpus_axes, psr, jsonl);
  ck_assert_ptr_nonnull (strstr (jsonl->str, "\"ideal_speedup\":null,\"speedup\":null,"
                                             "\"efficiency\":null,\"comm_wait_s\":0.15,"));
}
END_TEST

START_TEST (test_result_parse_errors)
{
  g_autofree char *good = run_json (2, "10", "");
  static const struct {
    gsize cut; /* 0: use TEXT */
    const char *text;
    int code;
    const char *fragment;
  } cases[] = {
    { 40, NULL, DTS_ERROR_PARSE, "unexpected end" },
    { 0, "", DTS_ERROR_PARSE, "unexpected end" },
    { 0, "[1, 2]", DTS_ERROR_PARSE, "expected a JSON object" },
    { 0, "{\"n_gpus\": 1,}", DTS_ERROR_PARSE, "expected a key" },
    { 0, "{\"n_gpus\" 1}", DTS_ERROR_PARSE, "expected ':'" },
    { 0, "{\"n_gpus\": 1} x", DTS_ERROR_PARSE, "text after the object" },
    { 0, "{\n\"a\": \"x\\q\"}", DTS_ERROR_PARSE, "line 2: bad escape" },
    { 0, "{\"n_gpus\": 1, \"iteration_time_s\": 1}", DTS_ERROR_INVALID,
      "no number 'throughput_samples_per_s'" },
    { 0, "{\"n_gpus\": \"1\", \"iteration_time_s\": 1, \"throughput_samples_per_s\": 1}",
      DTS_ERROR_INVALID, "no number 'n_gpus'" },
    /* A point file made elsewhere: 0 GPUs made -inf in results.jsonl. */
    { 0, "{\"n_gpus\": 0, \"iteration_time_s\": 1, \"throughput_samples_per_s\": 1}",
      DTS_ERROR_INVALID, "'n_gpus' is 0 (expected an integer from 1)" },
    { 0, "{\"n_gpus\": 1.5, \"iteration_time_s\": 1, \"throughput_samples_per_s\": 1}",
      DTS_ERROR_INVALID, "'n_gpus' is 1.5" },
    { 0, "{\"n_gpus\": 1, \"iteration_time_s\": 1, \"throughput_samples_per_s\": 1e999}",
      DTS_ERROR_INVALID, "'throughput_samples_per_s' is 1e999 (expected a finite number" },
    { 0, "{\"n_gpus\": 1, \"iteration_time_s\": -1, \"throughput_samples_per_s\": 1}",
      DTS_ERROR_INVALID, "'iteration_time_s' is -1" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree char *text = cases[i].cut ? g_strndup (good, cases[i].cut) : g_strdup (cases[i].text);
    g_autoptr (GError) error = NULL;
    g_autoptr (DtsSweepResult) r = dts_sweep_result_parse (text, &error);
    ck_assert_msg (r == NULL, "case %u accepted", i);
    dts_test_assert_error (error, cases[i].code, cases[i].fragment, NULL);
  }
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsSweepResult) ok = dts_sweep_result_parse (good, &error);
  ck_assert_ptr_nonnull (ok);
}
END_TEST

START_TEST (test_csv_quoting_and_reader)
{
  g_autoptr (GString) out = g_string_new (NULL);
  static const char *const fields[] = { "plain", "a,b", "say \"hi\"", " lead", "two\nlines", "" };
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++) {
    if (i)
      g_string_append_c (out, ',');
    dts_csv_append_field (out, fields[i]);
  }
  ck_assert_str_eq (out->str, "plain,\"a,b\",\"say \"\"hi\"\"\",\" lead\",\"two\nlines\",");
  g_string_append (out, "\nx,y\n");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) rows = dts_csv_parse (out->str, &error);
  ck_assert_uint_eq (rows->len, 2);
  char **r0 = g_ptr_array_index (rows, 0);
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    ck_assert_str_eq (r0[i], fields[i]);
  ck_assert_str_eq (((char **) g_ptr_array_index (rows, 1))[1], "y");

  g_autoptr (GError) bad = NULL;
  ck_assert_ptr_null (dts_csv_parse ("a,b\nc,\"open\nd\n", &bad));
  dts_test_assert_error (bad, DTS_ERROR_PARSE, "line 2: quoted field never closed", NULL);
}
END_TEST

/* A failed row: no result, its status and reason. */
static DtsSweepRow *
row_failed (const char *v1, const char *v2, guint series, const char *label)
{
  DtsSweepRow *row = g_new0 (DtsSweepRow, 1);
  row->values = g_strdupv ((char *[]){ (char *) v1, (char *) v2, NULL });
  row->series = series;
  row->series_label = g_strdup (label);
  row->file = g_strdup ("points/y.json");
  row->status = "invalid";
  row->reason = g_strdup ("--gpus 0, refused");
  return row;
}

START_TEST (test_csv_failed_rows)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) dts_sweep_row_free);
  g_autofree char *j2 = run_json (8, "1800", "");
  g_autofree char *j3 = run_json (16, "3000", "");
  /* The first point of the series did not run: the next one is the reference. */
  g_ptr_array_add (rows, row_failed ("4", "1", 0, "bw=1"));
  g_ptr_array_add (rows, row_new (j2, "8", "1", 0, "bw=1"));
  g_ptr_array_add (rows, row_new (j3, "16", "1", 0, "bw=1"));
  ((DtsSweepRow *) g_ptr_array_index (rows, 1))->status = "ok";
  char *axes[] = { (char *) "gpus", (char *) "bw", NULL };
  g_autoptr (GString) csv = g_string_new (NULL);
  dts_sweep_write_csv (axes, rows, csv);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) table = dts_csv_parse (csv->str, &error);
  ck_assert_ptr_nonnull (table);
  char **h = g_ptr_array_index (table, 0), **r1 = g_ptr_array_index (table, 1),
       **r3 = g_ptr_array_index (table, 3);
  guint n = g_strv_length (h);
  ck_assert_str_eq (h[n - 2], "status");
  ck_assert_str_eq (h[n - 1], "reason");
  ck_assert_str_eq (r1[n - 2], "invalid");
  ck_assert_str_eq (r1[n - 1], "--gpus 0, refused");
  ck_assert_str_eq (r1[4], ""); /* n_gpus */
  ck_assert_str_eq (r1[n - 4], ""); /* efficiency */
  ck_assert_str_eq (r1[n - 3], ""); /* comm_wait_s */
  ck_assert_str_eq (r3[n - 2], "ok");
  ck_assert_str_eq (r3[n - 5], "1.66666667"); /* speedup against point 2 */

  /* Verdicts add two columns; the JSON of a failed row has a null run. */
  ((DtsSweepRow *) g_ptr_array_index (rows, 1))->verdict = g_strdup ("best");
  ((DtsSweepRow *) g_ptr_array_index (rows, 1))->meets = TRUE;
  g_autoptr (GString) jsonl = g_string_new (NULL);
  dts_sweep_write_jsonl (axes, rows, jsonl);
  g_auto (GStrv) lines = g_strsplit (jsonl->str, "\n", -1);
  ck_assert_str_eq (lines[0],
                    "{\"point\":1,\"series\":\"bw=1\",\"axes\":{\"gpus\":\"4\",\"bw\":\"1\"},"
                    "\"ideal_speedup\":null,\"speedup\":null,\"efficiency\":null,"
                    "\"comm_wait_s\":null,\"status\":\"invalid\",\"reason\":\"--gpus 0, refused\","
                    "\"meets_constraints\":false,\"verdict\":\"\",\"run\":null}");
  ck_assert_ptr_nonnull (strstr (lines[1], "\"status\":\"ok\",\"reason\":null,"
                                           "\"meets_constraints\":true,\"verdict\":\"best\""));
}
END_TEST

START_TEST (test_cond_parse)
{
  static const struct {
    const char *text;
    const char *name;
    DtsSweepOp op;
    const char *value;
  } cases[] = {
    { "minibatch_mean>=240", "minibatch_mean", DTS_SWEEP_OP_GE, "240" },
    { " a <= -1.5e3 ", "a", DTS_SWEEP_OP_LE, "-1.5e3" },
    { "a>0", "a", DTS_SWEEP_OP_GT, "0" },
    { "a<0", "a", DTS_SWEEP_OP_LT, "0" },
    { "options.precision == fp16", "options.precision", DTS_SWEEP_OP_EQ, "fp16" },
    { "link:*-ib.bandwidth!=25Gbps", "link:*-ib.bandwidth", DTS_SWEEP_OP_NE, "25Gbps" },
    { "fits", "fits", DTS_SWEEP_OP_TRUE, NULL },
    { "!fits", "fits", DTS_SWEEP_OP_FALSE, NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (DtsSweepCond) c = dts_sweep_cond_parse (cases[i].text, &error);
    ck_assert_msg (c != NULL, "%s: %s", cases[i].text, error ? error->message : "");
    ck_assert_str_eq (c->name, cases[i].name);
    ck_assert_int_eq (c->op, cases[i].op);
    if (cases[i].value)
      ck_assert_str_eq (c->value, cases[i].value);
    else
      ck_assert_ptr_null (c->value);
  }
  static const struct {
    const char *text;
    const char *fragment;
  } bad[] = {
    { "a=>3", "bad operator '=>'" },
    { "a=3", "bad operator '='" },
    { "a<>3", "bad operator '<>'" },
    { "a>=", "no value after the operator" },
    { ">=3", "expected COLUMN OP VALUE" },
    { "", "expected COLUMN OP VALUE" },
    { "!a>3", "'!' negates a bare column only" },
    { "a>fast", "'fast' is not a number" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autoptr (GError) error = NULL;
    ck_assert_msg (dts_sweep_cond_parse (bad[i].text, &error) == NULL, "%s", bad[i].text);
    dts_test_assert_error (error, DTS_ERROR_USAGE, bad[i].fragment, NULL);
  }
  g_autoptr (GError) error = NULL;
  ck_assert_ptr_null (dts_sweep_select_new (NULL, "max", &error));
  dts_test_assert_error (error, DTS_ERROR_USAGE, "expected max:COLUMN or min:COLUMN", NULL);
  g_clear_error (&error);
  ck_assert_ptr_null (dts_sweep_select_new (NULL, "max:", &error));
  dts_test_assert_error (error, DTS_ERROR_USAGE, "expected max:COLUMN", NULL);
}
END_TEST

/* A parsed table: header and rows of "a,b,memory.fits,x.bytes,y.bytes,speed". */
static GPtrArray *
select_table (void)
{
  g_autoptr (GError) error = NULL;
  GPtrArray *t = dts_csv_parse ("point,mode,memory.fits,x.bytes,y.bytes,speed\n"
                                "1,ring,true,1,2,10\n"
                                "2,tree,false,1,2,30\n"
                                "3,ring,true,5,2,20\n"
                                "4,ring,true,1,2,20\n"
                                "5,,,,,\n"
                                "6,ring,true,1,2,\n",
                                &error);
  ck_assert_ptr_nonnull (t);
  return t;
}

START_TEST (test_select_resolve_and_apply)
{
  g_autoptr (GPtrArray) table = select_table ();
  char **header = g_ptr_array_index (table, 0);
  char *where[] = { (char *) "fits", (char *) "x.bytes<=1", (char *) "mode==ring", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsSweepSelect) sel = dts_sweep_select_new (where, "max:speed", &error);
  ck_assert_ptr_nonnull (sel);
  ck_assert (dts_sweep_select_resolve (sel, header, &error));
  ck_assert_str_eq (((DtsSweepCond *) g_ptr_array_index (sel->conds, 0))->column, "memory.fits");
  gboolean ran[] = { TRUE, TRUE, TRUE, TRUE, FALSE, TRUE };
  g_autoptr (GArray) v = dts_sweep_select_apply (sel, table, ran);
  ck_assert_uint_eq (v->len, 6);
  static const DtsSweepVerdictKind kinds[] = {
    DTS_SWEEP_VERDICT_WORSE, DTS_SWEEP_VERDICT_BROKE,       DTS_SWEEP_VERDICT_BROKE,
    DTS_SWEEP_VERDICT_BEST,  DTS_SWEEP_VERDICT_DID_NOT_RUN, DTS_SWEEP_VERDICT_NO_OBJECTIVE,
  };
  for (guint i = 0; i < 6; i++)
    ck_assert_msg (g_array_index (v, DtsSweepVerdict, i).kind == kinds[i], "point %u", i + 1);
  /* The first broken condition, in --where order. */
  ck_assert_int_eq (g_array_index (v, DtsSweepVerdict, 1).broken, 0);
  ck_assert_int_eq (g_array_index (v, DtsSweepVerdict, 2).broken, 1);
  g_autofree char *t1 = dts_sweep_verdict_text (sel, &g_array_index (v, DtsSweepVerdict, 1));
  ck_assert_str_eq (t1, "broke fits");
  g_autofree char *t0 = dts_sweep_verdict_text (sel, &g_array_index (v, DtsSweepVerdict, 0));
  ck_assert_str_eq (t0, "lower than best");

  /* min: ties are all best; without --best every point that meets is MEETS. */
  char *none[] = { (char *) "speed>=20", NULL };
  g_autoptr (DtsSweepSelect) tie = dts_sweep_select_new (none, "min:speed", &error);
  ck_assert (dts_sweep_select_resolve (tie, header, &error));
  g_autoptr (GArray) vt = dts_sweep_select_apply (tie, table, ran);
  ck_assert_int_eq (g_array_index (vt, DtsSweepVerdict, 2).kind, DTS_SWEEP_VERDICT_BEST);
  ck_assert_int_eq (g_array_index (vt, DtsSweepVerdict, 3).kind, DTS_SWEEP_VERDICT_BEST);
  ck_assert_int_eq (g_array_index (vt, DtsSweepVerdict, 1).kind, DTS_SWEEP_VERDICT_WORSE);
  g_autoptr (DtsSweepSelect) plain = dts_sweep_select_new (none, NULL, &error);
  ck_assert (dts_sweep_select_resolve (plain, header, &error));
  g_autoptr (GArray) vp = dts_sweep_select_apply (plain, table, ran);
  ck_assert_int_eq (g_array_index (vp, DtsSweepVerdict, 1).kind, DTS_SWEEP_VERDICT_MEETS);
  ck_assert_int_eq (g_array_index (vp, DtsSweepVerdict, 0).kind, DTS_SWEEP_VERDICT_BROKE);
  /* An empty field breaks any condition, != included. */
  ck_assert_int_eq (g_array_index (vp, DtsSweepVerdict, 5).kind, DTS_SWEEP_VERDICT_BROKE);
}
END_TEST

START_TEST (test_select_resolve_errors)
{
  g_autoptr (GPtrArray) table = select_table ();
  char **header = g_ptr_array_index (table, 0);
  char *unknown[] = { (char *) "fitz", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsSweepSelect) a = dts_sweep_select_new (unknown, NULL, &error);
  ck_assert (!dts_sweep_select_resolve (a, header, &error));
  dts_test_assert_error (error, DTS_ERROR_USAGE, "--where 'fitz': unknown column 'fitz'",
                         "known: point, mode, memory.fits, x.bytes, y.bytes, speed;", NULL);
  g_clear_error (&error);
  char *ambiguous[] = { (char *) "bytes>0", NULL };
  g_autoptr (DtsSweepSelect) b = dts_sweep_select_new (ambiguous, NULL, &error);
  ck_assert (!dts_sweep_select_resolve (b, header, &error));
  dts_test_assert_error (error, DTS_ERROR_USAGE, "column 'bytes' is ambiguous",
                         "x.bytes, y.bytes", NULL);
  g_clear_error (&error);
  g_autoptr (DtsSweepSelect) c = dts_sweep_select_new (NULL, "min:slow", &error);
  ck_assert (!dts_sweep_select_resolve (c, header, &error));
  dts_test_assert_error (error, DTS_ERROR_USAGE, "--best 'min:slow': unknown column 'slow'",
                         NULL);
}
END_TEST

START_TEST (test_mesh_enumerate)
{
  guint ex[DTS_SWEEP_MESH_N_EXCLUDED];
  /* Every factorisation of 8 on nodes of 8, TP ascending, then PP. */
  g_auto (GStrv) all = dts_sweep_mesh_enumerate (8, 8, 0, 0, 0, 1, ex);
  const char *const expected[] = { "1x1x8", "1x2x4", "1x4x2", "1x8x1", "2x1x4",
                                   "2x2x2", "2x4x1", "4x1x2", "4x2x1", "8x1x1", NULL };
  ck_assert_uint_eq (g_strv_length (all), 10);
  for (guint i = 0; expected[i]; i++)
    ck_assert_str_eq (all[i], expected[i]);
  ck_assert_uint_eq (ex[DTS_SWEEP_MESH_TP_ACROSS_NODES], 0);
  /* Nodes of 4: 8x1x1 would cross nodes; a global batch of 64 in
   * micro-batches of 16: DP 8 cannot share it. */
  g_auto (GStrv) some = dts_sweep_mesh_enumerate (8, 4, 64, 16, 0, 1, ex);
  ck_assert_uint_eq (g_strv_length (some), 8);
  ck_assert_str_eq (some[0], "1x2x4");
  ck_assert_str_eq (some[7], "4x2x1");
  ck_assert_uint_eq (ex[DTS_SWEEP_MESH_TP_ACROSS_NODES], 1);
  ck_assert_uint_eq (ex[DTS_SWEEP_MESH_BATCH], 1);
  /* A prime count: TP of 1 alone on nodes of 8 (7 does not divide 8). */
  g_auto (GStrv) prime = dts_sweep_mesh_enumerate (7, 8, 0, 0, 0, 1, ex);
  ck_assert_uint_eq (g_strv_length (prime), 2);
  ck_assert_str_eq (prime[0], "1x1x7");
  ck_assert_str_eq (prime[1], "1x7x1");
  ck_assert_uint_eq (ex[DTS_SWEEP_MESH_TP_ACROSS_NODES], 1);
  /* The count of splits is the number of ordered factorisations into 3. */
  for (int n = 1; n <= 64; n++) {
    g_auto (GStrv) s = dts_sweep_mesh_enumerate (n, n, 0, 0, 0, 12, ex);
    guint count = 0;
    for (int t = 1; t <= n; t++)
      for (int p = 1; p <= n; p++)
        count += n % t == 0 && (n / t) % p == 0;
    ck_assert_uint_eq (g_strv_length (s), count);
    for (char **x = s; *x; x++) {
      int t, p, d, c;
      ck_assert (dts_sweep_mesh_parse (*x, &t, &p, &d, &c, NULL));
      ck_assert_int_eq (t * p * d, n);
      ck_assert_int_eq (c, 1);
    }
  }
  /* Context parallelism: with a sequence of 12 tokens, C = 2 (2C = 4
   * divides 12) and C = 3 (6 divides 12) but not C = 4 (8 does not). Of
   * 12 GPUs on nodes of 4: C ascending after T and P. */
  g_auto (GStrv) cp = dts_sweep_mesh_enumerate (12, 4, 0, 0, 12, 12, ex);
  guint n_cp = 0, count = 0;
  for (int t = 1; t <= 12; t++)
    for (int p = 1; p <= 12; p++)
      for (int c = 1; c <= 12; c++)
        count += 12 % (t * p * c) == 0 && 4 % t == 0 && (c == 1 || 12 % (2 * c) == 0);
  ck_assert_uint_eq (g_strv_length (cp), count);
  ck_assert_str_eq (cp[0], "1x1x12");
  ck_assert_str_eq (cp[1], "1x1x6x2");
  ck_assert_str_eq (cp[2], "1x1x4x3");
  ck_assert_str_eq (cp[3], "1x1x2x6");
  ck_assert_str_eq (cp[4], "1x2x6");
  for (char **x = cp; *x; x++) {
    int t, p, d, c;
    ck_assert (dts_sweep_mesh_parse (*x, &t, &p, &d, &c, NULL));
    ck_assert_int_eq (t * p * d * c, 12);
    ck_assert (c == 1 || 12 % (2 * c) == 0);
    ck_assert_int_eq (4 % t, 0);
    n_cp += c > 1;
  }
  ck_assert_uint_gt (n_cp, 0);
  /* 3 GPUs of TP 3 do not divide nodes of 4: 3x1x4, 3x1x2x2, ... left out */
  ck_assert_uint_gt (ex[DTS_SWEEP_MESH_TP_ACROSS_NODES], 0);
  /* At most CP 2: the same splits less those of C 3 and 6. */
  g_auto (GStrv) cp2 = dts_sweep_mesh_enumerate (12, 4, 0, 0, 12, 2, ex);
  guint count2 = 0;
  for (int t = 1; t <= 12; t++)
    for (int p = 1; p <= 12; p++)
      for (int c = 1; c <= 2; c++)
        count2 += 12 % (t * p * c) == 0 && 4 % t == 0;
  ck_assert_uint_eq (g_strv_length (cp2), count2);
  ck_assert_str_eq (cp2[1], "1x1x6x2");
  ck_assert_str_eq (cp2[2], "1x2x6");
  /* With no sequence to split, a larger limit changes nothing. */
  g_auto (GStrv) none = dts_sweep_mesh_enumerate (12, 4, 0, 0, 0, 12, ex);
  g_auto (GStrv) one = dts_sweep_mesh_enumerate (12, 4, 0, 0, 12, 1, ex);
  ck_assert_uint_eq (g_strv_length (none), g_strv_length (one));
}
END_TEST

/* The run arguments of value VALUE of AXIS, space-separated (owned). */
static char *
axis_args (const DtsSweepAxis *axis, guint value)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  dts_sweep_axis_append_args (axis, value, args);
  g_ptr_array_add (args, NULL);
  return g_strjoinv (" ", (char **) args->pdata);
}

START_TEST (test_mesh_axis)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsSweepAxis) axis = dts_sweep_axis_parse ("mesh=8x4x2,1x2x3", &error);
  ck_assert_msg (axis != NULL, "%s", error ? error->message : "");
  ck_assert_int_eq (axis->kind, DTS_SWEEP_MESH);
  axis->global_batch = 128;
  axis->micro_batch_size = 2;
  g_autofree char *joined = axis_args (axis, 0);
  ck_assert_str_eq (joined, "--strategy=hybrid --tensor-parallel=8 --stages=4 --dp=2 --gpus=64 "
                            "--batch-size=64 --micro-batches=32");
  /* a fourth factor is context parallelism, on T*P*D*C GPUs; 1 is left out */
  g_autoptr (DtsSweepAxis) cp = dts_sweep_axis_parse ("mesh=8x4x2x2,8x4x2x1", &error);
  ck_assert_msg (cp != NULL, "%s", error ? error->message : "");
  cp->global_batch = 128;
  g_autofree char *cjoined = axis_args (cp, 0);
  ck_assert_str_eq (cjoined, "--strategy=hybrid --tensor-parallel=8 --stages=4 --dp=2 "
                             "--context-parallel=2 --gpus=128 --batch-size=64");
  g_autofree char *ojoined = axis_args (cp, 1);
  ck_assert_str_eq (ojoined, "--strategy=hybrid --tensor-parallel=8 --stages=4 --dp=2 --gpus=64 "
                             "--batch-size=64");
  static const char *const bad[] = { "mesh=8x4", "mesh=0x1x1", "mesh=2x2x2x2x2", "mesh=ax1x1",
                                     "mesh=2x2x2x0", "mesh=auto,2x2x2", "mesh=1024x1024x2",
                                     "mesh=1024x32x32x2",
                                     /* 2^64: a product that wraps to 0 */
                                     "mesh=65536x65536x65536x65536", NULL };
  for (const char *const *b = bad; *b; b++) {
    g_autoptr (GError) e = NULL;
    ck_assert_msg (dts_sweep_axis_parse (*b, &e) == NULL, "%s", *b);
    dts_test_assert_error (e, DTS_ERROR_USAGE, "is not a split TPxPPxDP", NULL);
  }
}
END_TEST

/* One reading of option words: --long, --long=v, --long v, -s, -sv, -s v;
 * a longer name with the same start is another option. */
START_TEST (test_word_option)
{
  char *line[] = { (char *) "--gpus", (char *) "8",  (char *) "--gpus=16",
                   (char *) "-n4",    (char *) "-n", (char *) "32",
                   (char *) "--gpus-per-node", (char *) "4", (char *) "--gpus", NULL };
  const char *v;
  int span;
  ck_assert (dts_cli_word_option (line, "gpus", 'n', &v, &span));
  ck_assert_str_eq (v, "8");
  ck_assert_int_eq (span, 2);
  ck_assert (dts_cli_word_option (line + 2, "gpus", 'n', &v, &span));
  ck_assert_str_eq (v, "16");
  ck_assert_int_eq (span, 1);
  ck_assert (dts_cli_word_option (line + 3, "gpus", 'n', &v, &span));
  ck_assert_str_eq (v, "4");
  ck_assert_int_eq (span, 1);
  ck_assert (dts_cli_word_option (line + 4, "gpus", 'n', &v, &span));
  ck_assert_str_eq (v, "32");
  ck_assert_int_eq (span, 2);
  ck_assert (!dts_cli_word_option (line + 3, "gpus", 0, &v, &span));
  ck_assert (v == NULL);
  ck_assert_int_eq (span, 1);
  ck_assert (!dts_cli_word_option (line + 6, "gpus", 'n', &v, &span));
  ck_assert_int_eq (span, 1);
  /* at the end of the line, given apart: no value */
  ck_assert (dts_cli_word_option (line + 8, "gpus", 'n', &v, &span));
  ck_assert (v == NULL);
  ck_assert_int_eq (span, 1);
  /* a mesh split sets --gpus and the degrees, and the batch only with a
   * global batch */
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsSweepAxis) mesh = dts_sweep_axis_parse ("mesh=2x2x2", &error);
  ck_assert_msg (mesh != NULL, "%s", error ? error->message : "");
  ck_assert (dts_sweep_mesh_sets (mesh, line, &span));
  ck_assert_int_eq (span, 2);
  ck_assert (!dts_sweep_mesh_sets (mesh, line + 6, &span));
  char *batch[] = { (char *) "-b", (char *) "64", NULL };
  ck_assert (!dts_sweep_mesh_sets (mesh, batch, &span));
  ck_assert_int_eq (span, 1);
  mesh->global_batch = 128;
  ck_assert (dts_sweep_mesh_sets (mesh, batch, &span));
  ck_assert_int_eq (span, 2);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("sweep");
  TCase *ta = tcase_create ("axes");
  tcase_add_test (ta, test_values_lists_and_ranges);
  tcase_add_test (ta, test_values_errors);
  tcase_add_test (ta, test_axis_kinds_and_arguments);
  tcase_add_test (ta, test_axis_errors);
  tcase_add_test (ta, test_plan_product_first_axis_fastest);
  tcase_add_test (ta, test_plan_three_axes_and_zip);
  tcase_add_test (ta, test_plan_errors);
  suite_add_tcase (s, ta);
  TCase *tr = tcase_create ("results");
  tcase_add_test (tr, test_csv_columns_values_and_derived);
  tcase_add_test (tr, test_result_parse_errors);
  tcase_add_test (tr, test_derived_not_finite);
  tcase_add_test (tr, test_derived_defined);
  tcase_add_test (tr, test_csv_quoting_and_reader);
  tcase_add_test (tr, test_csv_failed_rows);
  suite_add_tcase (s, tr);
  TCase *tc = tcase_create ("choose");
  tcase_add_test (tc, test_cond_parse);
  tcase_add_test (tc, test_select_resolve_and_apply);
  tcase_add_test (tc, test_select_resolve_errors);
  tcase_add_test (tc, test_mesh_enumerate);
  tcase_add_test (tc, test_mesh_axis);
  tcase_add_test (tc, test_word_option);
  suite_add_tcase (s, tc);
  return dts_test_run (s);
}
