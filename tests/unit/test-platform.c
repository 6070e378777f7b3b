/* test-platform.c - GPU catalogue, platform loading (clusters, nodes, rank
 * order, overrides, links), the shipped platforms and the error paths. */
#include "config.h"

#include <math.h>

#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "platform/gpu.h"
#include "platform/platform.h"
#include "platform/ranges.h"
#include "testlib.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define HEADER                                                                                   \
  "<?xml version=\"1.0\"?>\n"                                                                    \
  "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"

static DtsGpuCatalog *
shipped_catalog (void)
{
  g_autoptr (GError) error = NULL;
  DtsGpuCatalog *cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert_msg (cat != NULL, "shipped catalogue: %s", error ? error->message : "");
  return cat;
}

/* Write HEADER + BODY (which starts at line 3) to a temporary file. */
static char *
write_platform (const char *body)
{
  g_autofree char *text = g_strconcat (HEADER, body, NULL);
  return dts_test_write_tmp (text, ".xml");
}

static DtsPlatform *
load_ok (const char *body)
{
  g_autoptr (DtsGpuCatalog) cat = shipped_catalog ();
  g_autofree char *path = write_platform (body);
  g_autoptr (GError) error = NULL;
  DtsPlatform *p = dts_platform_load (path, cat, &error);
  ck_assert_msg (p != NULL, "load failed: %s", error ? error->message : "");
  return p;
}

/* Load BODY expecting an error of CODE whose message holds the fragments. */
static void
load_bad (const char *body, int code, const char *frag1, const char *frag2)
{
  g_autoptr (DtsGpuCatalog) cat = shipped_catalog ();
  g_autofree char *path = write_platform (body);
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsPlatform) p = dts_platform_load (path, cat, &error);
  ck_assert_msg (p == NULL, "accepted: %s", body);
  g_autofree char *prefix = g_strdup_printf ("platform '%s': line ", path);
  dts_test_assert_error (error, code, prefix, frag1, frag2, NULL);
}

static const char *
host_of (const DtsPlatform *p, int rank)
{
  return dts_platform_gpu (p, rank)->host;
}

/* ---- catalogue ---------------------------------------------------------- */

/* The one range table: bounds inclusive, zero only for latencies, never
 * NaN, infinities or denormals. */
START_TEST (test_ranges)
{
  ck_assert (dts_range_contains (DTS_RANGE_SPEED, 1));
  ck_assert (dts_range_contains (DTS_RANGE_SPEED, 1e21));
  ck_assert (!dts_range_contains (DTS_RANGE_SPEED, 1e-13));
  ck_assert (!dts_range_contains (DTS_RANGE_SPEED, 1.7e308));
  ck_assert (!dts_range_contains (DTS_RANGE_SPEED, 0));
  ck_assert (dts_range_contains (DTS_RANGE_BANDWIDTH, 1e18));
  ck_assert (!dts_range_contains (DTS_RANGE_BANDWIDTH, 1e18 * 1.000001));
  ck_assert (dts_range_contains (DTS_RANGE_LATENCY, 0));
  ck_assert (dts_range_contains (DTS_RANGE_LATENCY, 1e-12));
  ck_assert (!dts_range_contains (DTS_RANGE_LATENCY, 1e-310));
  ck_assert (!dts_range_contains (DTS_RANGE_LATENCY, 1e300));
  ck_assert (!dts_range_contains (DTS_RANGE_FACTOR, 1e-300));
  ck_assert (!dts_range_contains (DTS_RANGE_FACTOR, NAN));
  ck_assert (!dts_range_contains (DTS_RANGE_BANDWIDTH, INFINITY));
  ck_assert_str_eq (dts_range_describe (DTS_RANGE_LATENCY), "0, or 1e-12 to 1e+06 s");
}
END_TEST

START_TEST (test_catalog_v100)
{
  g_autoptr (DtsGpuCatalog) cat = shipped_catalog ();
  const DtsGpuSpec *v = dts_gpu_catalog_lookup (cat, "V100-SXM2-16GB");
  ck_assert_ptr_nonnull (v);
  ck_assert_str_eq (v->arch, "Volta");
  ck_assert_double_eq_tol (v->peak_flops[DTS_PREC_FP32], 15.7e12, 1e3);
  ck_assert_double_eq_tol (v->peak_flops[DTS_PREC_FP16], 125e12, 1e3);
  ck_assert_double_eq (v->peak_flops[DTS_PREC_TF32], 0);
  ck_assert_double_eq (v->peak_flops[DTS_PREC_BF16], 0);
  ck_assert_double_eq_tol (v->mem_bw_Bps, 900e9, 1);
  ck_assert_double_eq_tol (v->mem_bytes, 16 * GIB, 1);
  ck_assert_int_eq (v->sm_count, 80);
  ck_assert (strstr (v->source, "V100") != NULL);

  /* ids are case-insensitive; the PCIe card is slower */
  ck_assert_ptr_eq (dts_gpu_catalog_lookup (cat, "v100-sxm2-16gb"), v);
  const DtsGpuSpec *pcie = dts_gpu_catalog_lookup (cat, "V100-PCIE-16GB");
  ck_assert_double_eq_tol (pcie->peak_flops[DTS_PREC_FP32], 14e12, 1e3);
  ck_assert_double_eq_tol (pcie->peak_flops[DTS_PREC_FP16], 112e12, 1e3);
  ck_assert_double_eq_tol (dts_gpu_catalog_lookup (cat, "V100-SXM2-32GB")->mem_bytes, 32 * GIB, 1);

  /* unsupported precisions fall back to fp32 */
  DtsPrecision used = DTS_PREC_BF16;
  ck_assert_double_eq_tol (dts_gpu_spec_flops (v, DTS_PREC_TF32, &used), 15.7e12, 1e3);
  ck_assert_int_eq (used, DTS_PREC_FP32);
  ck_assert_double_eq_tol (dts_gpu_spec_flops (v, DTS_PREC_FP16, &used), 125e12, 1e3);
  ck_assert_int_eq (used, DTS_PREC_FP16);
  const DtsGpuSpec *a100 = dts_gpu_catalog_lookup (cat, "A100-SXM4-40GB");
  ck_assert_double_eq_tol (dts_gpu_spec_flops (a100, DTS_PREC_TF32, &used), 156e12, 1e3);
  ck_assert_int_eq (used, DTS_PREC_TF32);
}
END_TEST

START_TEST (test_catalog_contents)
{
  static const char *const ids[] = {
    "K80", "M40", "TitanX-Maxwell", "TitanX-Pascal", "TitanXp", "GTX1080Ti",
    "P100-PCIE-16GB", "P100-SXM2-16GB", "V100-PCIE-16GB", "V100-SXM2-16GB", "V100-SXM2-32GB",
    "T4", "A100-SXM4-40GB", "A100-SXM4-80GB", "H100-SXM5-80GB", "H200-SXM-141GB", NULL,
  };
  g_autoptr (DtsGpuCatalog) cat = shipped_catalog ();
  for (const char *const *id = ids; *id; id++)
    ck_assert_msg (dts_gpu_catalog_lookup (cat, *id) != NULL, "%s missing", *id);
  ck_assert_uint_ge (dts_gpu_catalog_size (cat), 16);
  for (guint i = 0; i < dts_gpu_catalog_size (cat); i++) {
    const DtsGpuSpec *s = dts_gpu_catalog_index (cat, i);
    ck_assert_msg (s->peak_flops[DTS_PREC_FP32] > 0 && s->mem_bw_Bps > 0 && s->mem_bytes > 0
                       && s->sm_count > 0 && s->source && *s->source,
                   "%s incomplete", s->id);
    /* tensor rates are at least the fp32 rate where they exist */
    for (int p = 0; p < DTS_PREC_COUNT; p++)
      ck_assert (s->peak_flops[p] == 0 || s->peak_flops[p] >= s->peak_flops[DTS_PREC_FP32]);
  }
  /* TF32 and BF16 only from Ampere on; P100 FP16 is twice FP32 */
  ck_assert_double_eq (dts_gpu_catalog_lookup (cat, "T4")->peak_flops[DTS_PREC_TF32], 0);
  const DtsGpuSpec *p100 = dts_gpu_catalog_lookup (cat, "P100-SXM2-16GB");
  ck_assert_double_eq_tol (p100->peak_flops[DTS_PREC_FP16], 2 * p100->peak_flops[DTS_PREC_FP32],
                           1e3);
  const DtsGpuSpec *h100 = dts_gpu_catalog_lookup (cat, "H100-SXM5-80GB");
  ck_assert_double_eq_tol (h100->peak_flops[DTS_PREC_BF16], 989.5e12, 1e3);
  ck_assert_double_eq_tol (h100->mem_bw_Bps, 3.35e12, 1);
  ck_assert_double_eq_tol (dts_gpu_catalog_lookup (cat, "K80")->peak_flops[DTS_PREC_FP32], 4.37e12,
                           1e3);

  g_autoptr (GError) error = NULL;
  ck_assert_ptr_null (dts_gpu_catalog_get (cat, "V100", &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "unknown GPU 'V100'", "V100-SXM2-16GB",
                         "H200-SXM-141GB", NULL);
}
END_TEST

START_TEST (test_gpu_fields)
{
  const DtsGpuField *f = dts_gpu_field_by_property ("mem_bw");
  ck_assert_ptr_nonnull (f);
  ck_assert_str_eq (f->attr, "mem-bw");
  ck_assert_ptr_nonnull (dts_gpu_field_by_property ("flops_fp8"));
  ck_assert (dts_gpu_field_by_property ("flops_fp8")->optional);
  ck_assert_ptr_null (dts_gpu_field_by_property ("flops_fp4"));
  DtsGpuSpec s = { 0 };
  double v = 0;
  g_autoptr (GError) error = NULL;
  ck_assert (dts_gpu_field_parse (f, "1.5TB/s", &v, &error));
  dts_gpu_spec_set_field (&s, f, v);
  ck_assert_double_eq_tol (s.mem_bw_Bps, 1.5e12, 1);
  ck_assert (!dts_gpu_field_parse (f, "0GB/s", &v, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "must be positive", NULL);
  g_clear_error (&error);
  const DtsGpuField *tf32 = dts_gpu_field_by_property ("flops_tf32");
  ck_assert (dts_gpu_field_parse (tf32, "0", &v, &error)); /* 0 = unsupported */
  const DtsGpuField *sm = dts_gpu_field_by_property ("sm_count");
  ck_assert (!dts_gpu_field_parse (sm, "80.5", &v, &error));
  dts_test_assert_error (error, DTS_ERROR_PARSE, "'80.5'", NULL);
  ck_assert (strstr (dts_gpu_field_properties (), "flops_bf16, flops_fp8, mem_bw, mem, sm_count")
             != NULL);
}
END_TEST

static void
catalog_bad (const char *text, int code, const char *frag1, const char *frag2)
{
  g_autofree char *path = dts_test_write_tmp (text, ".xml");
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsGpuCatalog) cat = dts_gpu_catalog_load (path, &error);
  ck_assert_msg (cat == NULL, "accepted: %s", text);
  g_autofree char *prefix = g_strdup_printf ("GPU catalogue '%s'", path);
  dts_test_assert_error (error, code, prefix, frag1, frag2, NULL);
}

#define GPU_OK                                                                                   \
  "  <gpu id=\"X1\" name=\"X one\" arch=\"Test\" fp32=\"10TFLOPS\" tf32=\"0\" fp16=\"20TFLOPS\" " \
  "bf16=\"0\" mem-bw=\"500GB/s\" mem=\"8GiB\" sm=\"10\" source=\"test\"/>\n"

START_TEST (test_catalog_errors)
{
  /* a good minimal catalogue first, so that the bad ones fail for their reason */
  g_autofree char *good = dts_test_write_tmp ("<gpus version=\"1\">\n" GPU_OK "</gpus>\n", ".xml");
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsGpuCatalog) cat = dts_gpu_catalog_load (good, &error);
  ck_assert_msg (cat != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (dts_gpu_catalog_size (cat), 1);
  ck_assert_double_eq_tol (dts_gpu_catalog_lookup (cat, "x1")->mem_bytes, 8 * GIB, 1);
  ck_assert_ptr_null (dts_gpu_catalog_lookup (cat, "x1")->chip); /* optional */
  {
    g_autofree char *chip = dts_test_write_tmp (
        "<gpus version=\"1\">\n  <gpu id=\"X1\" name=\"X one\" arch=\"Test\" chip=\" TX100 \" "
        "fp32=\"10TFLOPS\" tf32=\"0\" fp16=\"0\" bf16=\"0\" mem-bw=\"500GB/s\" mem=\"8GiB\" "
        "sm=\"10\" source=\"test\"/>\n</gpus>\n", ".xml");
    g_autoptr (DtsGpuCatalog) c2 = dts_gpu_catalog_load (chip, &error);
    ck_assert_msg (c2 != NULL, "%s", error ? error->message : "");
    ck_assert_str_eq (dts_gpu_catalog_lookup (c2, "X1")->chip, "TX100");
  }
  /* acc32-share: optional, 1 unless given; the die's rate is the tensor
   * rates over it, fp32 and the fp32 fallback untouched */
  ck_assert_double_eq (dts_gpu_catalog_lookup (cat, "x1")->acc32_share, 1);
  {
    g_autofree char *half = dts_test_write_tmp (
        "<gpus version=\"1\">\n  <gpu id=\"G1\" name=\"G one\" arch=\"Test\" "
        "acc32-share=\" 0.5 \" fp32=\"10TFLOPS\" tf32=\"10TFLOPS\" fp16=\"20TFLOPS\" "
        "bf16=\"0\" mem-bw=\"500GB/s\" mem=\"8GiB\" sm=\"10\" source=\"test\"/>\n</gpus>\n",
        ".xml");
    g_autoptr (DtsGpuCatalog) c3 = dts_gpu_catalog_load (half, &error);
    ck_assert_msg (c3 != NULL, "%s", error ? error->message : "");
    const DtsGpuSpec *g = dts_gpu_catalog_lookup (c3, "G1");
    ck_assert_double_eq (g->acc32_share, 0.5);
    ck_assert_double_eq (dts_gpu_spec_flops (g, DTS_PREC_FP16, NULL), 20e12);
    ck_assert_double_eq (dts_gpu_spec_die_flops (g, DTS_PREC_FP16), 40e12);
    ck_assert_double_eq (dts_gpu_spec_die_flops (g, DTS_PREC_TF32), 20e12);
    ck_assert_double_eq (dts_gpu_spec_die_flops (g, DTS_PREC_FP32), 10e12);
    ck_assert_double_eq (dts_gpu_spec_die_flops (g, DTS_PREC_BF16), 10e12); /* fp32 fallback */
    ck_assert_double_eq (dts_gpu_spec_die_flops (dts_gpu_catalog_lookup (cat, "x1"),
                                                 DTS_PREC_FP16), 20e12);
    /* a spec built by hand (share 0, not set) is at the full rate */
    DtsGpuSpec bare = { .peak_flops = { [DTS_PREC_FP32] = 1e12, [DTS_PREC_FP16] = 4e12 } };
    ck_assert_double_eq (dts_gpu_spec_die_flops (&bare, DTS_PREC_FP16), 4e12);
  }

  catalog_bad ("<gpus version=\"1\">\n" GPU_OK "  <gpu id=\"X2\"\n/>\n</gpus>\n",
               DTS_ERROR_INVALID, "line 4: <gpu id=X2> needs a non-empty attribute 'name'", NULL);
  catalog_bad ("<gpus version=\"1\">\n"
               "  <gpu id=\"X2\" name=\"n\" arch=\"a\" source=\"s\" fp32=\"10TFLOPZ\"/>\n</gpus>\n",
               DTS_ERROR_PARSE, "line 2: <gpu id=X2> attribute 'fp32'", "unknown unit 'TFLOPZ'");
  catalog_bad ("<gpus version=\"1\">\n"
               "  <gpu id=\"X2\" name=\"n\" arch=\"a\" source=\"s\" fp32=\"0\"/>\n</gpus>\n",
               DTS_ERROR_INVALID, "attribute 'fp32': '0' must be positive", NULL);
  catalog_bad ("<gpus version=\"1\">\n"
               "  <gpu id=\"X2\" name=\"n\" arch=\"a\" source=\"s\" fp32=\"1TFLOPS\"/>\n</gpus>\n",
               DTS_ERROR_INVALID, "needs attribute 'tf32'", "0 if unsupported");
  catalog_bad ("<gpus version=\"1\">\n" GPU_OK GPU_OK "</gpus>\n", DTS_ERROR_INVALID,
               "line 3: GPU id 'X1' is already defined", NULL);
  catalog_bad ("<gpus version=\"1\">\n  <gpu id=\"X\" speed=\"1\"/>\n</gpus>\n", DTS_ERROR_INVALID,
               "line 2: <gpu> has an unknown attribute 'speed'", "mem-bw");
  catalog_bad ("<gpus version=\"1\">\n"
               "  <gpu id=\"X2\" name=\"n\" arch=\"a\" chip=\" \" source=\"s\"/>\n</gpus>\n",
               DTS_ERROR_INVALID, "line 2: <gpu id=X2> attribute 'chip' is empty", "GA102");
  const char *const shares[] = { "0", "1.5", "-0.5", "half", "nan", "0.5x", "" };
  for (guint i = 0; i < G_N_ELEMENTS (shares); i++) {
    g_autofree char *xml = g_strdup_printf (
        "<gpus version=\"1\">\n  <gpu id=\"X2\" name=\"n\" arch=\"a\" acc32-share=\"%s\" "
        "source=\"s\"/>\n</gpus>\n", shares[i]);
    catalog_bad (xml, DTS_ERROR_INVALID, "line 2: <gpu id=X2> attribute 'acc32-share'",
                 "expected a number in (0, 1]");
  }
  catalog_bad ("<gpus version=\"1\">\n</gpus>\n", DTS_ERROR_INVALID, "no <gpu> entries", NULL);
  catalog_bad ("<gpus version=\"2\">\n" GPU_OK "</gpus>\n", DTS_ERROR_INVALID,
               "version '2' is not supported", NULL);
  catalog_bad ("<platform version=\"4.1\"/>\n", DTS_ERROR_INVALID, "root element is <platform>",
               NULL);
  catalog_bad ("<gpus version=\"1\">\n  <cpu/>\n</gpus>\n", DTS_ERROR_INVALID,
               "line 2: unexpected element <cpu>", NULL);
  catalog_bad ("<gpus version=\"1\">\n  <gpu\n</gpus>\n", DTS_ERROR_PARSE, "malformed XML", NULL);

  g_clear_error (&error);
  ck_assert_ptr_null (dts_gpu_catalog_load ("/nonexistent/gpus.xml", &error));
  dts_test_assert_error (error, DTS_ERROR_NOT_FOUND, "no such file", NULL);
}
END_TEST

/* ---- platforms ---------------------------------------------------------- */

/* CPU hosts (role=cpu, role=ps): nodes by property or zone, mem_bw parsed,
 * and the order servers are placed in: role=ps first, then round-robin over
 * the nodes in node order, hosts on no GPU's node last in document order. */
START_TEST (test_cpu_hosts)
{
  g_autoptr (DtsPlatform) p = load_ok (
      "<platform version=\"4.1\">\n"
      "  <zone id=\"top\" routing=\"Floyd\">\n"
      "    <host id=\"a-gpu\" speed=\"1Tf\"><prop id=\"gpu\" value=\"K80\"/>"
      "<prop id=\"node\" value=\"a\"/></host>\n"
      "    <host id=\"b-gpu\" speed=\"1Tf\"><prop id=\"gpu\" value=\"K80\"/>"
      "<prop id=\"node\" value=\"b\"/></host>\n"
      "    <host id=\"b-cpu0\" speed=\"1Tf\"><prop id=\"role\" value=\"cpu\"/>"
      "<prop id=\"node\" value=\"b\"/><prop id=\"mem_bw\" value=\"59GBps\"/></host>\n"
      "    <host id=\"far\" speed=\"1Tf\"><prop id=\"role\" value=\"cpu\"/></host>\n"
      "    <host id=\"a-cpu0\" speed=\"1Tf\"><prop id=\"role\" value=\"cpu\"/>"
      "<prop id=\"node\" value=\"a\"/></host>\n"
      "    <host id=\"a-cpu1\" speed=\"1Tf\"><prop id=\"role\" value=\"cpu\"/>"
      "<prop id=\"node\" value=\"a\"/></host>\n"
      "    <host id=\"b-cpu1\" speed=\"1Tf\"><prop id=\"role\" value=\"cpu\"/>"
      "<prop id=\"node\" value=\"b\"/></host>\n"
      "    <host id=\"ps\" speed=\"1Tf\"><prop id=\"role\" value=\"ps\"/>"
      "<prop id=\"node\" value=\"b\"/></host>\n"
      "    <host id=\"plain\" speed=\"1Tf\"/>\n"
      "  </zone>\n"
      "</platform>\n");
  ck_assert_uint_eq (p->gpus->len, 2);
  ck_assert_uint_eq (p->cpus->len, 6); /* "plain" has no role */
  const DtsCpu *c = &g_array_index (p->cpus, DtsCpu, 0);
  ck_assert_str_eq (c->host, "b-cpu0");
  ck_assert_int_eq (c->node, 1);
  ck_assert_int_eq (c->line, 7);
  ck_assert (!c->ps);
  ck_assert_double_eq_tol (c->mem_bw_Bps, 59e9, 1);
  c = &g_array_index (p->cpus, DtsCpu, 1);
  ck_assert_str_eq (c->host, "far");
  ck_assert_int_eq (c->node, -1); /* its zone "top" holds no GPU's node */
  ck_assert (c->mem_bw_Bps == 0);
  g_autoptr (GArray) order = dts_platform_server_hosts (p);
  static const char *const want[] = { "ps", "a-cpu0", "b-cpu0", "a-cpu1", "b-cpu1", "far" };
  ck_assert_uint_eq (order->len, G_N_ELEMENTS (want));
  for (guint i = 0; i < order->len; i++)
    ck_assert_str_eq (g_array_index (p->cpus, DtsCpu, g_array_index (order, int, i)).host,
                      want[i]);

  load_bad ("<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n"
            "<host id=\"g\" speed=\"1Tf\"><prop id=\"gpu\" value=\"K80\"/></host>\n"
            "<host id=\"c\" speed=\"1Tf\"><prop id=\"role\" value=\"server\"/></host>\n"
            "</zone></platform>\n",
            DTS_ERROR_INVALID, "5: host 'c': property 'role': unknown role 'server'",
            "(known: cpu, ps)");
  load_bad ("<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n"
            "<host id=\"g\" speed=\"1Tf\"><prop id=\"gpu\" value=\"K80\"/>"
            "<prop id=\"role\" value=\"ps\"/></host>\n"
            "</zone></platform>\n",
            DTS_ERROR_INVALID, "4: host 'g': property 'role' on a GPU host", NULL);
  load_bad ("<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n"
            "<host id=\"g\" speed=\"1Tf\"><prop id=\"gpu\" value=\"K80\"/></host>\n"
            "<host id=\"c\" speed=\"1Tf\"><prop id=\"role\" value=\"cpu\"/>"
            "<prop id=\"mem_bw\" value=\"fast\"/></host>\n"
            "</zone></platform>\n",
            DTS_ERROR_PARSE, "5: host 'c': property 'mem_bw':", "fast");
}
END_TEST


START_TEST (test_cluster_radical)
{
  g_autoptr (DtsPlatform) p = load_ok (
      "<platform version=\"4.1\">\n"
      "  <zone id=\"top\" routing=\"Full\">\n"
      "    <cluster id=\"c\" prefix=\"gpu-\" suffix=\".x\" radical=\"0-3,5,8-9\" speed=\"1Tf\"\n"
      "             bw=\"25GBps\" lat=\"1us\" sharing_policy=\"SPLITDUPLEX\" bb_bw=\"100Gbps\"\n"
      "             bb_lat=\"0\" bb_sharing_policy=\"FATPIPE\" limiter_link=\"50GBps\" "
      "router_id=\"c-nic\">\n"
      "      <prop id=\"gpu\" value=\"A100-SXM4-40GB\"/>\n"
      "    </cluster>\n"
      "  </zone>\n"
      "</platform>\n");
  static const char *const hosts[] = { "gpu-0.x", "gpu-1.x", "gpu-2.x", "gpu-3.x",
                                       "gpu-5.x", "gpu-8.x", "gpu-9.x" };
  ck_assert_uint_eq (p->gpus->len, G_N_ELEMENTS (hosts));
  for (guint i = 0; i < G_N_ELEMENTS (hosts); i++) {
    const DtsGpu *g = dts_platform_gpu (p, (int) i);
    ck_assert_str_eq (g->host, hosts[i]);
    ck_assert_int_eq (g->rank, (int) i);
    ck_assert_int_eq (g->local_index, (int) i);
    ck_assert_int_eq (g->line, 7); /* libxml2: the line where the start tag ends */
    ck_assert_str_eq (g->spec.id, "A100-SXM4-40GB");
  }
  ck_assert_uint_eq (p->nodes->len, 1);
  ck_assert_str_eq (g_array_index (p->nodes, DtsNode, 0).name, "c");

  /* private links, limiters, backbone: one pattern row each */
  ck_assert_uint_eq (p->links->len, 3);
  const DtsLink *l = &g_array_index (p->links, DtsLink, 0);
  ck_assert_str_eq (l->name, "c_link_*");
  ck_assert_int_eq (l->count, 7);
  ck_assert_str_eq (l->sharing, "SPLITDUPLEX");
  ck_assert_double_eq_tol (l->bandwidth_Bps, 25e9, 1);
  ck_assert_double_eq_tol (l->latency_s, 1e-6, 1e-15);
  l = &g_array_index (p->links, DtsLink, 1);
  ck_assert_str_eq (l->name, "c_link_*_limiter");
  ck_assert_double_eq_tol (l->bandwidth_Bps, 50e9, 1);
  l = &g_array_index (p->links, DtsLink, 2);
  ck_assert_str_eq (l->name, "c_backbone");
  ck_assert_int_eq (l->count, 1);
  ck_assert_str_eq (l->sharing, "FATPIPE");
  ck_assert_double_eq_tol (l->bandwidth_Bps, 12.5e9, 1);
}
END_TEST

START_TEST (test_cluster_radical_errors)
{
  static const char *const bad[][2] = {
    { "3-1", "range '3-1' is empty" }, { "0-", "'0-' is not a number or a range" },
    { "0,,2", "'' is not a number" },  { "a-b", "'a-b' is not a number" },
    { "0-2-4", "'0-2-4'" },            { "0-99999999", "more than" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autofree char *body = g_strdup_printf (
        "<platform version=\"4.1\">\n"
        "  <cluster id=\"c\" prefix=\"g\" suffix=\"\" radical=\"%s\" speed=\"1Tf\" bw=\"1GBps\" "
        "lat=\"0\">\n"
        "    <prop id=\"gpu\" value=\"T4\"/>\n"
        "  </cluster>\n"
        "</platform>\n",
        bad[i][0]);
    load_bad (body, i == 0 || i == 5 ? DTS_ERROR_INVALID : DTS_ERROR_PARSE, "line 4: ", bad[i][1]);
  }
}
END_TEST

START_TEST (test_node_grouping_numeric_order)
{
  /* Node "b" appears first; within it gpu2 < gpu10 (numeric, not SimGrid's
   * name order); the node property regroups host x into node "a". */
  g_autoptr (DtsPlatform) p = load_ok (
      "<platform version=\"4.1\">\n"
      "  <zone id=\"top\" routing=\"Full\">\n"
      "    <prop id=\"gpu\" value=\"V100-SXM2-16GB\"/>\n"
      "    <zone id=\"b\" routing=\"Full\">\n"
      "      <host id=\"gpu10\" speed=\"1Tf\"/>\n"
      "      <host id=\"gpu2\" speed=\"1Tf\"/>\n"
      "      <host id=\"gpu1\" speed=\"1Tf\"/>\n"
      "      <host id=\"cpu\" speed=\"1Gf\"><prop id=\"gpu\" value=\"T4\"/>"
      "<prop id=\"node\" value=\"a\"/></host>\n"
      "    </zone>\n"
      "    <zone id=\"a\" routing=\"Full\">\n"
      "      <host id=\"gpu0\" speed=\"1Tf\"/>\n"
      "      <host id=\"gpu01b\" speed=\"1Tf\"/>\n"
      "    </zone>\n"
      "  </zone>\n"
      "</platform>\n");
  static const char *const order[] = { "gpu1", "gpu2", "gpu10", "cpu", "gpu0", "gpu01b" };
  ck_assert_uint_eq (p->gpus->len, G_N_ELEMENTS (order));
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    ck_assert_str_eq (host_of (p, (int) i), order[i]);
  ck_assert_uint_eq (p->nodes->len, 2);
  const DtsNode *b = &g_array_index (p->nodes, DtsNode, 0);
  const DtsNode *a = &g_array_index (p->nodes, DtsNode, 1);
  ck_assert_str_eq (b->name, "b");
  ck_assert_int_eq (b->first_rank, 0);
  ck_assert_int_eq (b->n_gpus, 3);
  ck_assert_str_eq (a->name, "a");
  ck_assert_int_eq (a->first_rank, 3);
  ck_assert_int_eq (a->n_gpus, 3);
  ck_assert_int_eq (g_array_index (a->ranks, int, 2), 5);
  const DtsGpu *cpu = dts_platform_gpu (p, 3);
  ck_assert_int_eq (cpu->node, 1);
  ck_assert_int_eq (cpu->local_index, 0);
  ck_assert_str_eq (cpu->spec.id, "T4"); /* the host's own gpu property wins */
  ck_assert_int_eq (dts_platform_gpu (p, 5)->local_index, 2);
  ck_assert_int_eq (dts_platform_gpu (p, 2)->line, 7);
}
END_TEST

START_TEST (test_rank_properties)
{
  /* Explicit ranks may interleave nodes; nodes are ordered by first rank. */
  g_autoptr (DtsPlatform) p = load_ok (
      "<platform version=\"4.1\">\n"
      "  <zone id=\"top\" routing=\"Full\">\n"
      "    <prop id=\"gpu\" value=\"V100-SXM2-16GB\"/>\n"
      "    <zone id=\"n0\" routing=\"Full\">\n"
      "      <host id=\"g0\" speed=\"1Tf\"><prop id=\"rank\" value=\"2\"/></host>\n"
      "      <host id=\"g1\" speed=\"1Tf\"><prop id=\"rank\" value=\"3\"/></host>\n"
      "    </zone>\n"
      "    <zone id=\"n1\" routing=\"Full\">\n"
      "      <host id=\"g2\" speed=\"1Tf\"><prop id=\"rank\" value=\"0\"/></host>\n"
      "      <host id=\"g3\" speed=\"1Tf\"><prop id=\"rank\" value=\"1\"/></host>\n"
      "      <host id=\"g4\" speed=\"1Tf\"><prop id=\"rank\" value=\"4\"/></host>\n"
      "    </zone>\n"
      "  </zone>\n"
      "</platform>\n");
  static const char *const order[] = { "g2", "g3", "g0", "g1", "g4" };
  for (guint i = 0; i < G_N_ELEMENTS (order); i++) {
    ck_assert_str_eq (host_of (p, (int) i), order[i]);
    ck_assert_int_eq (dts_platform_gpu (p, (int) i)->rank, (int) i);
  }
  ck_assert_uint_eq (p->nodes->len, 2);
  const DtsNode *n1 = &g_array_index (p->nodes, DtsNode, 0);
  ck_assert_str_eq (n1->name, "n1");
  ck_assert_int_eq (n1->n_gpus, 3);
  ck_assert_int_eq (n1->first_rank, 0);
  ck_assert_uint_eq (n1->ranks->len, 3);
  ck_assert_int_eq (g_array_index (n1->ranks, int, 1), 1);
  ck_assert_int_eq (g_array_index (n1->ranks, int, 2), 4);
  ck_assert_int_eq (dts_platform_gpu (p, 4)->local_index, 2);
  ck_assert_int_eq (dts_platform_gpu (p, 4)->node, 0);
  ck_assert_int_eq (dts_platform_gpu (p, 2)->node, 1);
  ck_assert_int_eq (g_array_index (p->nodes, DtsNode, 1).first_rank, 2);
}
END_TEST

#define RANKED(r0, r1, r2)                                                                       \
  "<platform version=\"4.1\">\n"                                                                 \
  "  <zone id=\"z\" routing=\"Full\">\n"                                                         \
  "    <prop id=\"gpu\" value=\"T4\"/>\n"                                                        \
  "    <host id=\"a\" speed=\"1Tf\">" r0 "</host>\n"                                             \
  "    <host id=\"b\" speed=\"1Tf\">" r1 "</host>\n"                                             \
  "    <host id=\"c\" speed=\"1Tf\">" r2 "</host>\n"                                             \
  "  </zone>\n"                                                                                  \
  "</platform>\n"
#define RANK(n) "<prop id=\"rank\" value=\"" #n "\"/>"

START_TEST (test_rank_errors)
{
  load_bad (RANKED (RANK (0), RANK (1), RANK (0)), DTS_ERROR_INVALID, "line 8: rank 0 of host 'c'",
            "already the rank of host 'a' (line 6)");
  load_bad (RANKED (RANK (0), RANK (1), RANK (3)), DTS_ERROR_INVALID,
            "line 8: rank 3 of host 'c' is out of range", "rank 2 is missing");
  load_bad (RANKED (RANK (2), "", RANK (0)), DTS_ERROR_INVALID,
            "line 7: GPU host 'b' has no 'rank' property", "2 of the 3 GPUs");
  load_bad (RANKED (RANK (0), RANK (-1), RANK (2)), DTS_ERROR_PARSE,
            "line 7: host 'b': property 'rank'", "not a non-negative integer");
  load_bad (RANKED (RANK (0), RANK (1.5), RANK (2)), DTS_ERROR_PARSE, "line 7: ", "'1.5'");
}
END_TEST

START_TEST (test_overrides)
{
  g_autoptr (DtsPlatform) p = load_ok (
      "<platform version=\"4.1\">\n"
      "  <zone id=\"z\" routing=\"Full\">\n"
      "    <prop id=\"gpu\" value=\"V100-SXM2-16GB\"/>\n"
      "    <prop id=\"flops_tf32\" value=\"60TFLOPS\"/>\n"
      "    <host id=\"a\" speed=\"1Tf\">\n"
      "      <prop id=\"flops_fp32\" value=\"20TFLOPS\"/>\n"
      "      <prop id=\"flops_fp16\" value=\"0\"/>\n"
      "      <prop id=\"flops_bf16\" value=\"100Tf\"/>\n"
      "      <prop id=\"mem\" value=\"32GiB\"/>\n"
      "      <prop id=\"mem_bw\" value=\"1.2TB/s\"/>\n"
      "      <prop id=\"sm_count\" value=\"84\"/>\n"
      "      <prop id=\"flops_tf32\" value=\"70TFLOPS\"/>\n"
      "      <prop id=\"wattage\" value=\"300\"/>\n"
      "    </host>\n"
      "    <host id=\"b\" speed=\"1Tf\"/>\n"
      "  </zone>\n"
      "</platform>\n");
  const DtsGpuSpec *a = &dts_platform_gpu (p, 0)->spec;
  ck_assert_double_eq_tol (a->peak_flops[DTS_PREC_FP32], 20e12, 1e3);
  ck_assert_double_eq (a->peak_flops[DTS_PREC_FP16], 0);
  ck_assert_double_eq_tol (a->peak_flops[DTS_PREC_BF16], 100e12, 1e3);
  ck_assert_double_eq_tol (a->peak_flops[DTS_PREC_TF32], 70e12, 1e3); /* innermost wins */
  ck_assert_double_eq_tol (a->mem_bytes, 32 * GIB, 1);
  ck_assert_double_eq_tol (a->mem_bw_Bps, 1.2e12, 1);
  ck_assert_int_eq (a->sm_count, 84);
  ck_assert_str_eq (a->id, "V100-SXM2-16GB");
  /* b inherits only the zone's override; the catalogue is untouched */
  const DtsGpuSpec *b = &dts_platform_gpu (p, 1)->spec;
  ck_assert_double_eq_tol (b->peak_flops[DTS_PREC_FP32], 15.7e12, 1e3);
  ck_assert_double_eq_tol (b->peak_flops[DTS_PREC_TF32], 60e12, 1e3);
  ck_assert_double_eq_tol (b->mem_bytes, 16 * GIB, 1);
  g_autoptr (DtsGpuCatalog) cat = shipped_catalog ();
  ck_assert_double_eq (dts_gpu_catalog_lookup (cat, "V100-SXM2-16GB")->peak_flops[DTS_PREC_TF32],
                       0);
}
END_TEST

START_TEST (test_links_and_units)
{
  /* SimGrid's units: Gbps is bits, GiBps binary, "m" is minutes, bare numbers SI. */
  g_autoptr (DtsPlatform) p = load_ok (
      "<platform version=\"4.1\">\n"
      "  <zone id=\"z\" routing=\"Floyd\">\n"
      "    <prop id=\"gpu\" value=\"H100-SXM5-80GB\"/>\n"
      "    <host id=\"a\" speed=\"67Tf,10Tf\" core=\"2\"/>\n"
      "    <host id=\"b\" speed=\"1e12\"/>\n"
      "    <router id=\"r\"/>\n"
      "    <link id=\"l1\" bandwidth=\"100Gbps\" latency=\"1.5us\" sharing_policy=\"SPLITDUPLEX\"/>\n"
      "    <link id=\"l2\" bandwidth=\"1GiBps\" latency=\"1m\" sharing_policy=\"FULLDUPLEX\"/>\n"
      "    <link id=\"l3\" bandwidth=\"125000000\" latency=\"0\" sharing_policy=\"FATPIPE\">\n"
      "      <prop id=\"note\" value=\"x\"/>\n"
      "    </link>\n"
      "    <route src=\"a\" dst=\"r\"><link_ctn id=\"l1\" direction=\"UP\"/></route>\n"
      "    <route src=\"r\" dst=\"b\"><link_ctn id=\"l2_DOWN\"/><link_ctn id=\"l3\"/></route>\n"
      "  </zone>\n"
      "</platform>\n");
  ck_assert_uint_eq (p->gpus->len, 2);
  ck_assert_uint_eq (p->links->len, 3);
  const DtsLink *l = &g_array_index (p->links, DtsLink, 0);
  ck_assert_str_eq (l->name, "l1");
  ck_assert_double_eq_tol (l->bandwidth_Bps, 12.5e9, 1);
  ck_assert_double_eq_tol (l->latency_s, 1.5e-6, 1e-15);
  ck_assert_int_eq (l->line, 9);
  l = &g_array_index (p->links, DtsLink, 1);
  ck_assert_double_eq_tol (l->bandwidth_Bps, 1073741824.0, 1e-3);
  ck_assert_double_eq_tol (l->latency_s, 60, 1e-12);
  ck_assert_str_eq (l->sharing, "SPLITDUPLEX");
  l = &g_array_index (p->links, DtsLink, 2);
  ck_assert_double_eq_tol (l->bandwidth_Bps, 1.25e8, 1e-3);
  ck_assert_str_eq (l->sharing, "FATPIPE");
}
END_TEST

typedef struct {
  const char *body;
  int code;
  const char *frag1;
  const char *frag2;
} BadCase;

#define ZONE(x)                                                                                  \
  "<platform version=\"4.1\">\n  <zone id=\"z\" routing=\"Full\">\n"                             \
  "    <prop id=\"gpu\" value=\"T4\"/>\n" x "  </zone>\n</platform>\n"
#define HOSTS "    <host id=\"a\" speed=\"1Tf\"/>\n    <host id=\"b\" speed=\"1Tf\"/>\n"

static const BadCase bad_cases[] = {
  { ZONE ("    <host id=\"a\" speed=\"-1Tf\"/>\n"), DTS_ERROR_INVALID, "line 6: <host> attribute 'speed'",
    "'-1Tf' is negative" },
  { ZONE ("    <host id=\"a\" speed=\"1Tf,0f\"/>\n"), DTS_ERROR_INVALID, "'0f' must be positive", NULL },
  { ZONE ("    <host id=\"a\" speed=\"1GFLOPS\"/>\n"), DTS_ERROR_PARSE, "unit SimGrid does not know, 'GFLOPS'",
    "15.7Tf" },
  { ZONE ("    <host id=\"a\" speed=\"fast\"/>\n"), DTS_ERROR_PARSE, "'fast' is not a SimGrid speed", NULL },
  { ZONE ("    <host id=\"a\"/>\n"), DTS_ERROR_INVALID, "line 6: <host> needs attribute 'speed'", NULL },
  { ZONE ("    <host speed=\"1Tf\"/>\n"), DTS_ERROR_INVALID, "<host> needs attribute 'id'", NULL },
  { ZONE ("    <host id=\"a\" speed=\"1Tf\" core=\"0\"/>\n"), DTS_ERROR_INVALID,
    "attribute 'core' must be positive", NULL },
  { ZONE (HOSTS "    <link id=\"l\" bandwidth=\"0Bps\" latency=\"0\"/>\n"), DTS_ERROR_INVALID,
    "line 8: <link> attribute 'bandwidth': '0Bps' must be positive", NULL },
  { ZONE (HOSTS "    <link id=\"l\" bandwidth=\"1GBps\"/>\n"), DTS_ERROR_INVALID,
    "<link> needs attribute 'latency'", NULL },
  { ZONE (HOSTS "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"1fs\"/>\n"), DTS_ERROR_PARSE,
    "unit SimGrid does not know, 'fs'", NULL },
  { ZONE (HOSTS "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"0\" sharing_policy=\"HALF\"/>\n"),
    DTS_ERROR_INVALID, "sharing_policy' is 'HALF'", "SPLITDUPLEX" },
  { ZONE (HOSTS "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"0\"/>\n"
                "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"0\"/>\n"),
    DTS_ERROR_INVALID, "line 9: link 'l' is already declared at line 8", NULL },
  { ZONE (HOSTS "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"0\"/>\n"
                "    <route src=\"a\" dst=\"b\"><link_ctn id=\"l\" direction=\"UP\"/></route>\n"),
    DTS_ERROR_INVALID, "direction=\"UP\" to link 'l', which is not SPLITDUPLEX", NULL },
  { ZONE (HOSTS "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"0\"/>\n"
                "    <route src=\"a\" dst=\"c\"><link_ctn id=\"l\"/></route>\n"),
    DTS_ERROR_INVALID, "line 9: <route> dst='c' names no host, router or zone", NULL },
  { ZONE (HOSTS "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"0\"/>\n"
                "    <route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n"
                "    <route src=\"b\" dst=\"a\"><link_ctn id=\"l\"/></route>\n"),
    DTS_ERROR_INVALID, "line 10: the route from 'b' to 'a' is already declared at line 9", NULL },
  { ZONE (HOSTS "    <route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n"
                "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"0\"/>\n"),
    DTS_ERROR_INVALID, "names link 'l', which is not declared before it", NULL },
  { ZONE (HOSTS "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"0\"/>\n"
                "    <route src=\"a\" dst=\"b\"><link id=\"m\"/></route>\n"),
    DTS_ERROR_INVALID, "<link> is not allowed in <route> (expected <link_ctn>)", NULL },
  { ZONE ("    <host id=\"a\" speed=\"1Tf\"/>\n    <router id=\"a\"/>\n"), DTS_ERROR_INVALID,
    "line 7: the name 'a' is already used by the <host> at line 6", NULL },
  { ZONE ("    <host id=\"a\" speed=\"1Tf\"><prop id=\"gpu\" value=\"T4\"/>"
          "<prop id=\"gpu\" value=\"K80\"/></host>\n"),
    DTS_ERROR_INVALID, "property 'gpu' is given twice in this <host>", NULL },
  { ZONE ("    <host id=\"a\" speed=\"1Tf\"><prop id=\"node\" value=\" \"/></host>\n"),
    DTS_ERROR_INVALID, "property 'node' has an empty value", NULL },
  { ZONE ("    <host id=\"a\" speed=\"1Tf\"><prop id=\"mem\" value=\"16GB/s\"/></host>\n"),
    DTS_ERROR_PARSE, "host 'a': property 'mem'", "unknown unit" },
  { ZONE ("    <host id=\"a\" speed=\"1Tf\"><prop id=\"flops_fp32\" value=\"0\"/></host>\n"),
    DTS_ERROR_INVALID, "property 'flops_fp32': '0' must be positive", NULL },
  { ZONE ("    <host id=\"a\" speed=\"1Tf\"><prop id=\"mem_size\" value=\"1GB\"/></host>\n"),
    DTS_ERROR_INVALID, "unknown GPU property 'mem_size'", "mem_bw" },
  { ZONE ("    <cabinet id=\"c\" prefix=\"c\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1GBps\" "
          "lat=\"0\"/>\n"),
    DTS_ERROR_INVALID, "<cabinet> is not supported", NULL },
  { "<platform version=\"4.1\">\n  <host id=\"a\" speed=\"1Tf\"/>\n</platform>\n", DTS_ERROR_INVALID,
    "line 4: <host> is not allowed in <platform> (put it in a <zone>)", NULL },
  { "<platform version=\"4.1\">\n  <zone id=\"z\">\n    <host id=\"a\" speed=\"1Tf\"/>\n"
    "  </zone>\n</platform>\n",
    DTS_ERROR_INVALID, "line 4: <zone> needs attribute 'routing'", NULL },
  { "<platform version=\"4.1\">\n  <zone id=\"z\" routing=\"Star\">\n  </zone>\n</platform>\n",
    DTS_ERROR_INVALID, "'routing' is 'Star'", "Floyd" },
  { "<platform version=\"4.2\">\n</platform>\n", DTS_ERROR_INVALID, "line 3: <platform> version '4.2'",
    NULL },
  { "<platform>\n</platform>\n", DTS_ERROR_INVALID, "version '(none)'", NULL },
  { "<platform version=\"4.1\">\n  <zone id=\"z\" routing=\"Full\">\n"
    "    <host id=\"a\" speed=\"1Tf\"/>\n  </zone>\n</platform>\n",
    DTS_ERROR_INVALID, "line 3: no GPU", NULL },
  { "<model name=\"x\"/>\n", DTS_ERROR_INVALID, "line 3: root element is <model>", NULL },
  { "<platform version=\"4.1\">\n  <zone id=\"z\" routing=\"Full\">\n", DTS_ERROR_PARSE,
    "malformed XML", NULL },
};

START_TEST (test_platform_errors)
{
  g_autoptr (DtsGpuCatalog) cat = shipped_catalog ();
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++) {
    const BadCase *c = &bad_cases[i];
    g_autofree char *path = write_platform (c->body);
    g_autoptr (GError) error = NULL;
    g_autoptr (DtsPlatform) p = dts_platform_load (path, cat, &error);
    ck_assert_msg (p == NULL, "case %u accepted", i);
    ck_assert_msg (error != NULL && error->code == c->code, "case %u: code %d: %s", i,
                   error ? error->code : -1, error ? error->message : "");
    g_autofree char *prefix = g_strdup_printf ("platform '%s': line ", path);
    dts_test_assert_error (error, c->code, prefix, c->frag1, c->frag2, NULL);
  }
  /* no DOCTYPE: SimGrid's parser would refuse the file */
  g_autofree char *path = dts_test_write_tmp (
      "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">"
      "<host id=\"a\" speed=\"1Tf\"><prop id=\"gpu\" value=\"T4\"/></host></zone></platform>\n",
      ".xml");
  g_autoptr (GError) error = NULL;
  ck_assert_ptr_null (dts_platform_load (path, cat, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "line 1: expected <!DOCTYPE platform SYSTEM", NULL);
  g_clear_error (&error);
  ck_assert_ptr_null (dts_platform_load ("/nonexistent/p.xml", cat, &error));
  dts_test_assert_error (error, DTS_ERROR_NOT_FOUND, "platform '/nonexistent/p.xml': no such file",
                         NULL);
}
END_TEST

START_TEST (test_shipped_platforms)
{
  static const struct {
    const char *file;
    guint gpus, nodes, links;
  } shipped[] = {
    { "platforms/v100-single.xml", 1, 1, 0 },
    { "platforms/dgx1-v100.xml", 8, 1, 16 },
    { "platforms/cluster-4x4-v100.xml", 16, 4, 44 },
  };
  g_autoptr (DtsGpuCatalog) cat = shipped_catalog ();
  for (guint i = 0; i < G_N_ELEMENTS (shipped); i++) {
    g_autofree char *path = dts_test_srcpath (shipped[i].file);
    g_autoptr (GError) error = NULL;
    g_autoptr (DtsPlatform) p = dts_platform_load (path, cat, &error);
    ck_assert_msg (p != NULL, "%s: %s", path, error ? error->message : "");
    ck_assert_uint_eq (p->gpus->len, shipped[i].gpus);
    ck_assert_uint_eq (p->nodes->len, shipped[i].nodes);
    ck_assert_uint_eq (p->links->len, shipped[i].links);
    for (guint r = 0; r < p->gpus->len; r++)
      ck_assert_str_eq (dts_platform_gpu (p, (int) r)->spec.id, "V100-SXM2-16GB");
  }

  /* DGX-1V: 8 double (50 GB/s) and 8 single (25 GB/s) NVLink pairs, six links per GPU */
  g_autofree char *dgx = dts_test_srcpath ("platforms/dgx1-v100.xml");
  g_autoptr (DtsPlatform) d = dts_platform_load (dgx, cat, NULL);
  int nvlinks[8] = { 0 };
  guint doubles = 0;
  for (guint i = 0; i < d->links->len; i++) {
    const DtsLink *l = &g_array_index (d->links, DtsLink, i);
    int a = -1, b = -1;
    ck_assert_int_eq (sscanf (l->name, "nvlink-%d-%d", &a, &b), 2);
    int n = (int) (l->bandwidth_Bps / 25e9 + 0.5);
    ck_assert_double_eq_tol (l->bandwidth_Bps, n * 25e9, 1);
    ck_assert_str_eq (l->sharing, "SPLITDUPLEX");
    nvlinks[a] += n;
    nvlinks[b] += n;
    doubles += n == 2;
  }
  ck_assert_uint_eq (doubles, 8);
  for (int g = 0; g < 8; g++)
    ck_assert_int_eq (nvlinks[g], 6);
  ck_assert_str_eq (host_of (d, 7), "gpu7");

  /* the default platform: 4 nodes of 4, ranks node by node */
  g_autofree char *def = dts_test_srcpath ("platforms/cluster-4x4-v100.xml");
  g_autoptr (DtsPlatform) c = dts_platform_load (def, cat, NULL);
  for (int r = 0; r < 16; r++) {
    const DtsGpu *g = dts_platform_gpu (c, r);
    g_autofree char *want = g_strdup_printf ("node%d-gpu%d", r / 4, r % 4);
    ck_assert_str_eq (g->host, want);
    ck_assert_int_eq (g->node, r / 4);
    ck_assert_int_eq (g->local_index, r % 4);
  }
  const DtsLink *ib = &g_array_index (c->links, DtsLink, 40);
  ck_assert_str_eq (ib->name, "node0-ib");
  ck_assert_double_eq_tol (ib->bandwidth_Bps, 12.5e9, 1);
}
END_TEST

static Suite *
platform_suite (void)
{
  Suite *s = suite_create ("platform");
  TCase *tc = tcase_create ("catalogue");
  tcase_add_test (tc, test_ranges);
  tcase_add_test (tc, test_catalog_v100);
  tcase_add_test (tc, test_catalog_contents);
  tcase_add_test (tc, test_gpu_fields);
  tcase_add_test (tc, test_catalog_errors);
  suite_add_tcase (s, tc);
  tc = tcase_create ("platform");
  tcase_add_test (tc, test_cluster_radical);
  tcase_add_test (tc, test_cluster_radical_errors);
  tcase_add_test (tc, test_node_grouping_numeric_order);
  tcase_add_test (tc, test_rank_properties);
  tcase_add_test (tc, test_rank_errors);
  tcase_add_test (tc, test_overrides);
  tcase_add_test (tc, test_links_and_units);
  tcase_add_test (tc, test_platform_errors);
  tcase_add_test (tc, test_cpu_hosts);
  tcase_add_test (tc, test_shipped_platforms);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return dts_test_run (platform_suite ());
}
