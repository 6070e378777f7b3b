/* test-override.c - what-if overrides: parsing (values, units, errors),
 * GPU overrides on the platform view, link and host overrides on SimGrid's
 * platform (routes and execution times after the change).
 *
 * Tests that start SimGrid run in their own forked process (Check's
 * default): the engine runs once per process. */
#include "config.h"

#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>

#include "core/error.h"
#include "platform/generate.h"
#include "platform/override.h"
#include "platform/platform.h"
#include "sim/override.h"
#include "sim/routes.h"
#include "sim/sg-shim.h"
#include "sim/sim.h"
#include "testlib.h"

static GArray *
parse_all (const char *const *set, const char *const *scale)
{
  GArray *a = dts_overrides_new ();
  for (int k = 0; k < 2; k++)
    for (const char *const *t = k ? scale : set; t && *t; t++) {
      DtsOverride o;
      g_autoptr (GError) error = NULL;
      ck_assert_msg (dts_override_parse (*t, k == 1, &o, &error), "%s: %s", *t,
                     error ? error->message : "");
      g_array_append_val (a, o);
    }
  return a;
}

START_TEST (test_parse)
{
  const char *set[] = { "link:node*-nic*.bandwidth=50Gbps", "link:a.b.c.latency=1.5us",
                        "host:node0-cpu*.speed=2TFLOPS", "gpu:node1-*.mem_bw=900GB/s",
                        "gpu:*.flops_tf32=0", NULL };
  const char *scale[] = { "network.bandwidth=0.5", "gpu.flops=2", "gpu:node0-gpu0.flops=1.5",
                          "link:leaf*.latency=3", NULL };
  g_autoptr (GArray) a = parse_all (set, scale);
  const DtsOverride *o = &g_array_index (a, DtsOverride, 0);
  ck_assert_int_eq (o->target, DTS_OVERRIDE_LINK);
  ck_assert_str_eq (o->glob, "node*-nic*");
  ck_assert_str_eq (o->field, "bandwidth");
  ck_assert_double_eq_tol (o->value, 6.25e9, 1e-3);
  ck_assert (!o->is_scale);
  ck_assert_str_eq (o->text, "link:node*-nic*.bandwidth=50Gbps");
  o = &g_array_index (a, DtsOverride, 1);
  ck_assert_str_eq (o->glob, "a.b.c"); /* the field follows the last dot */
  ck_assert_double_eq_tol (o->value, 1.5e-6, 1e-15);
  o = &g_array_index (a, DtsOverride, 2);
  ck_assert_int_eq (o->target, DTS_OVERRIDE_HOST);
  ck_assert_double_eq_tol (o->value, 2e12, 1);
  o = &g_array_index (a, DtsOverride, 3);
  ck_assert_int_eq (o->target, DTS_OVERRIDE_GPU);
  ck_assert_double_eq_tol (o->value, 900e9, 1);
  o = &g_array_index (a, DtsOverride, 4);
  ck_assert_double_eq (o->value, 0); /* tf32 may be "unsupported" */
  o = &g_array_index (a, DtsOverride, 5);
  ck_assert_int_eq (o->target, DTS_OVERRIDE_NETWORK);
  ck_assert_ptr_null (o->glob);
  ck_assert (o->is_scale);
  ck_assert_double_eq (o->value, 0.5);
  o = &g_array_index (a, DtsOverride, 6);
  ck_assert_int_eq (o->target, DTS_OVERRIDE_GPU_ALL);
  ck_assert_str_eq (o->field, "flops");
  o = &g_array_index (a, DtsOverride, 7);
  ck_assert_int_eq (o->target, DTS_OVERRIDE_GPU);
  ck_assert_str_eq (o->field, "flops");
}
END_TEST

static void
parse_bad (const char *text, gboolean is_scale, const char *fragment)
{
  DtsOverride o = { 0 };
  g_autoptr (GError) error = NULL;
  ck_assert_msg (!dts_override_parse (text, is_scale, &o, &error), "'%s' was accepted", text);
  dts_test_assert_error (error, DTS_ERROR_USAGE, text, fragment, NULL);
  ck_assert_ptr_null (o.text);
}

START_TEST (test_parse_errors)
{
  parse_bad ("link:x.bandwidth=-5Gbps", FALSE, "negative");
  parse_bad ("link:x.bandwidth=0", FALSE, "bandwidth must be positive");
  parse_bad ("link:x.bandwidth=fast", FALSE, "is not a bandwidth");
  parse_bad ("link:x.latency=-1us", FALSE, "negative");
  parse_bad ("link:x.latency=3m", FALSE, "unknown unit");
  parse_bad ("link:x.speed=1Tf", FALSE, "unknown field 'speed' for link (known: bandwidth, latency)");
  parse_bad ("disk:x.size=1", FALSE, "unknown target 'disk:'");
  parse_bad ("link:.bandwidth=1Gbps", FALSE, "expected link:GLOB.FIELD=VALUE");
  parse_bad ("link:x.bandwidth", FALSE, "expected link:GLOB.FIELD=VALUE");
  parse_bad ("=3", TRUE, "expected network.FIELD=F");
  parse_bad ("network.bandwidth=5Gbps", FALSE, "use --scale with a factor");
  parse_bad ("gpu:x.flops=1Tf", FALSE, "unknown field 'flops' for gpu (known: flops_fp32");
  parse_bad ("gpu:x.mem_bw=-1GB/s", FALSE, "negative");
  parse_bad ("network.bandwidth=0", TRUE, "the factor must be positive");
  parse_bad ("network.bandwidth=-2", TRUE, "negative");
  parse_bad ("network.bandwidth=half", TRUE, "is not a number");
  parse_bad ("network.speed=2", TRUE, "unknown field 'speed' for network");
  parse_bad ("gpu.sm_count=2", TRUE, "unknown field 'sm_count' for gpu (known: flops, mem_bw)");
}
END_TEST

static DtsGpuCatalog *
catalog (void)
{
  g_autoptr (GError) error = NULL;
  DtsGpuCatalog *cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert_msg (cat != NULL, "%s", error ? error->message : "");
  return cat;
}

/* 2 nodes x 2 V100, one 100 Gb/s NIC each, CPU hosts of 1 TFLOP/s. */
static char *
small_platform (void)
{
  g_auto (DtsGenParams) p;
  dts_gen_params_init (&p);
  p.nodes = 2;
  p.gpus_per_node = 2;
  p.gpu = g_strdup ("V100-SXM2-16GB");
  p.intra = DTS_INTRA_NVSWITCH;
  p.cpu_hosts = TRUE;
  g_autoptr (DtsGpuCatalog) cat = catalog ();
  g_autoptr (GError) error = NULL;
  g_autofree char *text = dts_platform_generate (&p, cat, &error);
  ck_assert_msg (text != NULL, "%s", error ? error->message : "");
  return dts_test_write_tmp (text, ".xml");
}

START_TEST (test_apply_gpus)
{
  g_autofree char *path = small_platform ();
  g_autoptr (DtsGpuCatalog) cat = catalog ();
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsPlatform) plat = dts_platform_load (path, cat, &error);
  ck_assert_msg (plat != NULL, "%s", error ? error->message : "");
  const DtsGpu *g0 = dts_platform_gpu (plat, 0), *g3 = dts_platform_gpu (plat, 3);
  double fp32 = g0->spec.peak_flops[DTS_PREC_FP32], fp16 = g0->spec.peak_flops[DTS_PREC_FP16];
  double mem_bw = g0->spec.mem_bw_Bps;

  const char *set[] = { "gpu:node1-*.mem_bw=1TB/s", NULL };
  const char *scale[] = { "gpu.flops=2", "gpu:node0-gpu0.mem_bw=0.5", NULL };
  g_autoptr (GArray) a = parse_all (set, scale);
  ck_assert (dts_override_apply_gpus (a, plat, &error));
  ck_assert_int_eq (g_array_index (a, DtsOverride, 0).matched, 2);
  ck_assert_int_eq (g_array_index (a, DtsOverride, 1).matched, 4);
  ck_assert_int_eq (g_array_index (a, DtsOverride, 2).matched, 1);
  ck_assert_double_eq_tol (g3->spec.mem_bw_Bps, 1e12, 1);
  ck_assert_double_eq_tol (dts_platform_gpu (plat, 1)->spec.mem_bw_Bps, mem_bw, 1);
  ck_assert_double_eq_tol (g0->spec.mem_bw_Bps, mem_bw / 2, 1);
  ck_assert_double_eq_tol (g3->spec.peak_flops[DTS_PREC_FP32], 2 * fp32, 1);
  ck_assert_double_eq_tol (g3->spec.peak_flops[DTS_PREC_FP16], 2 * fp16, 1);

  const char *none[] = { "gpu:node9-*.mem=8GB", NULL };
  g_autoptr (GArray) b = parse_all (none, NULL);
  ck_assert (!dts_override_apply_gpus (b, plat, &error));
  dts_test_assert_error (error, DTS_ERROR_NOT_FOUND, "no GPU host matches 'node9-*'",
                         "node0-gpu0 .. node1-gpu1", NULL);
}
END_TEST

static void
start_sim (const char *path)
{
  g_autoptr (GError) error = NULL;
  ck_assert_msg (dts_sim_configure (NULL, &error), "%s", error ? error->message : "");
  g_autofree char *message = NULL;
  ck_assert_msg (dts_sg_load_platform (path, &message), "%s", message);
}

START_TEST (test_apply_links)
{
  g_autofree char *path = small_platform ();
  start_sim (path);
  const char *set[] = { "link:node*-nic0.bandwidth=50Gbps", "link:node1-gpu0-pcie_UP.latency=3us",
                        NULL };
  const char *scale[] = { "network.latency=2", "link:node0-nic0.bandwidth=0.5", NULL };
  g_autoptr (GArray) a = parse_all (set, scale);
  g_autoptr (GError) error = NULL;
  ck_assert_msg (dts_sim_apply_overrides (a, &error), "%s", error ? error->message : "");
  /* split-duplex links match through their name and their _UP/_DOWN names */
  ck_assert_int_eq (g_array_index (a, DtsOverride, 0).matched, 4);
  ck_assert_int_eq (g_array_index (a, DtsOverride, 1).matched, 1);
  ck_assert_int_eq (g_array_index (a, DtsOverride, 2).matched, (int) sg_link_count ());
  ck_assert_double_eq_tol (sg_link_get_bandwidth (sg_link_by_name ("node1-nic0_DOWN")), 6.25e9,
                           1e-3);
  ck_assert_double_eq_tol (sg_link_get_bandwidth (sg_link_by_name ("node0-nic0_UP")), 3.125e9,
                           1e-3);
  ck_assert_double_eq_tol (sg_link_get_latency (sg_link_by_name ("node1-gpu0-pcie_UP")), 6e-6,
                           1e-15);
  ck_assert_double_eq_tol (sg_link_get_latency (sg_link_by_name ("node1-gpu0-pcie_DOWN")), 2e-6,
                           1e-15);

  const char *none[] = { "link:ib*.bandwidth=1Gbps", NULL };
  g_autoptr (GArray) b = parse_all (none, NULL);
  ck_assert (!dts_sim_apply_overrides (b, &error));
  dts_test_assert_error (error, DTS_ERROR_NOT_FOUND, "--set 'link:ib*.bandwidth=1Gbps'",
                         "no link of the platform matches 'ib*'", NULL);
}
END_TEST

START_TEST (test_routes_after_override)
{
  /* Halving the NIC bandwidth halves the inter-node bottleneck, leaves the
   * NVSwitch route alone. */
  g_autofree char *path = small_platform ();
  const char *scale[] = { "link:*-nic*.bandwidth=0.5", NULL };
  g_autoptr (GArray) a = parse_all (NULL, scale);
  const char *src[] = { "node0-gpu0", "node0-gpu0" };
  const char *dst[] = { "node0-gpu1", "node1-gpu1" };
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) r = dts_sim_routes (path, a, src, dst, 2, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  ck_assert_double_eq_tol (g_array_index (r, DtsRoute, 0).bottleneck_Bps, 25e9, 1);
  ck_assert_double_eq_tol (g_array_index (r, DtsRoute, 1).bottleneck_Bps, 6.25e9, 1);
  /* 2 NIC links x 2 directions x 2 nodes, and the NIC's PCIe links */
  ck_assert_int_eq (g_array_index (a, DtsOverride, 0).matched, 8);
}
END_TEST

static double exec_time_s;

static void
exec_actor (int argc, char **argv)
{
  double t0 = simgrid_get_clock ();
  sg_actor_execute (1e12);
  exec_time_s = simgrid_get_clock () - t0;
}

START_TEST (test_host_speed)
{
  g_autofree char *path = small_platform ();
  start_sim (path);
  const char *set[] = { "host:node0-cpu0.speed=4TFLOPS", NULL };
  const char *scale[] = { "host:node0-cpu*.speed=0.5", NULL };
  g_autoptr (GArray) a = parse_all (set, scale);
  g_autoptr (GError) error = NULL;
  ck_assert_msg (dts_sim_apply_overrides (a, &error), "%s", error ? error->message : "");
  ck_assert_int_eq (g_array_index (a, DtsOverride, 1).matched, 2);
  /* 1 TFLOP on a 1 TFLOP/s host set to 4 TFLOP/s, then halved: 0.5 s */
  sg_actor_create ("exec", sg_host_by_name ("node0-cpu0"), exec_actor, 0, NULL);
  simgrid_run ();
  ck_assert_double_eq_tol (exec_time_s, 0.5, 1e-9);
}
END_TEST

START_TEST (test_host_no_match)
{
  g_autofree char *path = small_platform ();
  start_sim (path);
  const char *set[] = { "host:login*.speed=1Tf", NULL };
  g_autoptr (GArray) a = parse_all (set, NULL);
  g_autoptr (GError) error = NULL;
  ck_assert (!dts_sim_apply_overrides (a, &error));
  dts_test_assert_error (error, DTS_ERROR_NOT_FOUND, "no host of the platform matches 'login*'",
                         NULL);
}
END_TEST

static Suite *
override_suite (void)
{
  Suite *s = suite_create ("override");
  TCase *tc = tcase_create ("override");
  tcase_add_test (tc, test_parse);
  tcase_add_test (tc, test_parse_errors);
  tcase_add_test (tc, test_apply_gpus);
  tcase_add_test (tc, test_apply_links);
  tcase_add_test (tc, test_routes_after_override);
  tcase_add_test (tc, test_host_speed);
  tcase_add_test (tc, test_host_no_match);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return dts_test_run (override_suite ());
}
