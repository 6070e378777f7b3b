/* test-cost-monotone.c - the iteration compute time that each cost model
 * gives every shipped network never falls as the batch grows, over batch
 * 1..1024 (the mlp networks are trained on batch 4..32 and extrapolate
 * beyond it), on a GPU with its own networks (V100 at fp32 and fp16) and
 * on one reached by roofline ratios (A100 at tf32; roofline-gemm prices
 * the linear layers by their GEMM shapes), under the generic and
 * the shipped pytorch profile, and under the two profiles with FFT
 * convolutions on the zoo and the convnet-benchmarks networks; and, kernel
 * by kernel, that every pass of
 * every layer the mlp model prices from its networks (convolutions and
 * fully connected layers) never gets faster as the batch grows, on every
 * GPU of the catalogue at every precision it supports (the GPUs and
 * precisions of platforms/kernel-models/manifest.xml served by their own
 * networks, the others by a trained GPU's times the roofline ratio).
 * Layers whose prices cannot differ (a transformer's repeated blocks) are
 * priced once and counted, checked against pricing every layer. */
#include "config.h"

#include "core/datadir.h"
#include "core/error.h"
#include "cost/cost.h"
#include "platform/gpu.h"
#include "workload/workload.h"
#include "testlib.h"

#include <math.h>

/* Everything of L that its price can depend on (dts_cost_layer_times()
 * reads the layer alone, not its neighbours): all but its name, line,
 * block and which layers feed it, apart from whether the model input
 * does; owned. */
static char *
layer_cost_key (const DtsLayer *l)
{
  return g_strdup_printf ("%d %d %d %d %d|%d %d %d %d|%d %d %d %d|%d %d %d %d %d %d %d %d|"
                          "%d %d %d %d %d %d %d|%d %d %d %d|%a %a %a %a %a %a %a %a",
                          l->type, l->n_inputs, l->n_inputs > 0 && l->inputs[0] == 0,
                          l->data_grad, l->n_consumers, l->in_shape.c, l->in_shape.h,
                          l->in_shape.w, l->in_shape.seq, l->out_shape.c, l->out_shape.h,
                          l->out_shape.w, l->out_shape.seq, l->kernel_h, l->kernel_w,
                          l->stride_h, l->stride_w, l->pad_h, l->pad_w, l->groups, l->has_bias,
                          l->heads, l->kv_heads, l->head_dim, l->v_head_dim, l->rope_dim,
                          l->causal, l->fused, l->vocab, l->tied != 0, l->experts, l->top_k,
                          l->params, l->macs, l->fwd_flops, l->bwd_data_flops,
                          l->bwd_weight_flops, l->in_elems, l->out_elems, l->act_elems);
}

/* W's layers with their prices told apart: one of each kind, and how many
 * times it occurs (a transformer's blocks repeat, and pricing each once
 * keeps this suite within its time limit under the sanitizers). */
typedef struct {
  GPtrArray *layers; /* const DtsLayer *, the first of each kind */
  GArray *count;     /* int per kind */
} Distinct;

static void
distinct_layers (const DtsWorkload *w, Distinct *d)
{
  d->layers = g_ptr_array_new ();
  d->count = g_array_new (FALSE, TRUE, sizeof (int));
  g_autoptr (GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint l = 0; l < w->layers->len; l++) {
    const DtsLayer *layer = dts_workload_layer (w, l);
    char *key = layer_cost_key (layer);
    gpointer at;
    if (g_hash_table_lookup_extended (index, key, NULL, &at)) {
      g_array_index (d->count, int, GPOINTER_TO_UINT (at))++;
      g_free (key);
      continue;
    }
    g_hash_table_insert (index, key, GUINT_TO_POINTER (d->layers->len));
    g_ptr_array_add (d->layers, (gpointer) layer);
    int one = 1;
    g_array_append_val (d->count, one);
  }
}

static void
distinct_clear (Distinct *d)
{
  g_ptr_array_unref (d->layers);
  g_array_unref (d->count);
}

/* The iteration compute time of the workload D was made from: each kind of
 * layer priced once, times its count. */
static double
iteration_s (DtsCost *cost, const Distinct *d, const DtsGpuSpec *gpu, DtsPrecision p, int batch)
{
  double total = 0;
  for (guint l = 0; l < d->layers->len; l++) {
    DtsLayerTimes t;
    g_autoptr (GError) error = NULL;
    ck_assert_msg (dts_cost_layer_times (cost, g_ptr_array_index (d->layers, l), gpu, p, batch,
                                         &t, &error),
                   "%s", error ? error->message : "");
    total += g_array_index (d->count, int, l)
             * (t.fwd_s + t.bwd_data_s + t.bwd_weight_s + t.update_s);
  }
  return total;
}

typedef struct {
  const char *gpu;
  DtsPrecision precision;
} Case;

/* Assert that the iteration time of the workload D was made from under COST on the case's GPU never falls
 * from batch 1 to 1024 (every batch to 64, then steps of 1/8 of a power of
 * two: 87 batches, counted in *CHECKED); LABEL names the network, model
 * and profile in the message. */
static void
check_monotone (DtsCost *cost, const Distinct *d, const DtsGpuCatalog *cat, const Case *c,
                const char *label, int *checked)
{
  const DtsGpuSpec *gpu = dts_gpu_catalog_lookup (cat, c->gpu);
  ck_assert_ptr_nonnull (gpu);
  double prev = 0;
  int prev_b = 0;
  for (int b = 1; b <= 1024; b += b < 64 ? 1 : b / 8) {
    double t = iteration_s (cost, d, gpu, c->precision, b);
    ck_assert_msg (t >= prev, "%s, %s %s: batch %d takes %.9g s, batch %d %.9g s", label, c->gpu,
                   dts_precision_to_string (c->precision), b, t, prev_b, prev);
    prev = t, prev_b = b;
    (*checked)++;
  }
}

START_TEST (test_monotone)
{
  static const Case cases[] = {
    { "V100-SXM2-16GB", DTS_PREC_FP32 },
    { "V100-SXM2-16GB", DTS_PREC_FP16 },
    { "A100-SXM4-80GB", DTS_PREC_TF32 },
  };
  static const char *const models[] = { "roofline", "mlp", "roofline-gemm" };
  static const char *const frameworks[] = { "generic", "pytorch" };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsGpuCatalog) cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert_msg (cat != NULL, "%s", error ? error->message : "");
  g_auto (GStrv) names = dts_datadir_list ("workloads", ".xml");
  ck_assert (names != NULL && g_strv_length (names) >= 9);
  int checked = 0;
  for (guint n = 0; names[n]; n++) {
    g_autofree char *path = dts_datadir_resolve ("workloads", names[n], ".xml", "workload", &error);
    ck_assert_msg (path != NULL, "%s", error ? error->message : "");
    g_autoptr (DtsWorkload) w = dts_workload_load (path, &error);
    ck_assert_msg (w != NULL, "%s", error ? error->message : "");
    Distinct d;
    distinct_layers (w, &d);
    for (guint m = 0; m < G_N_ELEMENTS (models); m++)
      for (guint f = 0; f < G_N_ELEMENTS (frameworks); f++) {
        g_autoptr (DtsCost) cost = dts_cost_new (models[m], &error);
        ck_assert_msg (cost != NULL, "%s", error ? error->message : "");
        DtsFramework *fw = dts_framework_load (frameworks[f], &error);
        ck_assert_msg (fw != NULL, "%s", error ? error->message : "");
        dts_cost_set_framework (cost, fw);
        g_autofree char *label = g_strdup_printf ("%s, %s, %s", names[n], models[m], frameworks[f]);
        for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
          check_monotone (cost, &d, cat, &cases[c], label, &checked);
        /* pricing each kind once changes nothing: every layer priced */
        const DtsGpuSpec *gpu = dts_gpu_catalog_lookup (cat, cases[0].gpu);
        double all = 0;
        for (guint l = 0; l < w->layers->len; l++) {
          DtsLayerTimes t;
          ck_assert (dts_cost_layer_times (cost, dts_workload_layer (w, l), gpu,
                                           cases[0].precision, 48, &t, &error));
          all += t.fwd_s + t.bwd_data_s + t.bwd_weight_s + t.update_s;
        }
        assert_rel (iteration_s (cost, &d, gpu, cases[0].precision, 48), all, 1e-12);
      }
    distinct_clear (&d);
  }
  ck_assert_int_ge (checked, 9 * 3 * 2 * 3 * 87); /* 87 batch sizes per case */
}
END_TEST

/* The same under the profiles whose auto-tuners may pick FFT convolutions
 * (the cheaper of several algorithms per layer and pass), on the zoo and
 * the convnet-benchmarks networks, roofline, on the Titan X at fp32 and
 * fp16 and the V100 at fp32. */
START_TEST (test_monotone_fft)
{
  static const char *const extra[] = { "convnet-benchmarks/alexnet-owt",
                                       "convnet-benchmarks/overfeat-fast",
                                       "convnet-benchmarks/vgg-a",
                                       "convnet-benchmarks/googlenet-v1", NULL };
  static const Case cases[] = {
    { "TitanX-Maxwell", DTS_PREC_FP32 },
    { "TitanX-Maxwell", DTS_PREC_FP16 },
    { "V100-SXM2-16GB", DTS_PREC_FP32 },
  };
  static const char *const frameworks[] = { "torch7-cudnn4", "tensorflow1" };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsGpuCatalog) cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert_msg (cat != NULL, "%s", error ? error->message : "");
  g_auto (GStrv) zoo = dts_datadir_list ("workloads", ".xml");
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  for (guint n = 0; zoo[n]; n++)
    g_ptr_array_add (names, zoo[n]);
  for (guint n = 0; extra[n]; n++)
    g_ptr_array_add (names, (gpointer) extra[n]);
  int checked = 0, fft = 0;
  for (guint n = 0; n < names->len; n++) {
    const char *name = g_ptr_array_index (names, n);
    g_autofree char *file = g_strconcat (name, ".xml", NULL);
    g_autofree char *path = g_build_filename (dts_datadir_get (), "workloads", file, NULL);
    g_autoptr (DtsWorkload) w = dts_workload_load (path, &error);
    ck_assert_msg (w != NULL, "%s", error ? error->message : "");
    Distinct d;
    distinct_layers (w, &d);
    for (guint f = 0; f < G_N_ELEMENTS (frameworks); f++) {
      g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
      DtsFramework *fw = dts_framework_load (frameworks[f], &error);
      ck_assert_msg (fw != NULL && fw->fft, "%s", error ? error->message : "no FFT");
      dts_cost_set_framework (cost, fw);
      g_autofree char *label = g_strdup_printf ("%s, roofline, %s", name, frameworks[f]);
      for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
        check_monotone (cost, &d, cat, &cases[c], label, &checked);
        /* some layer takes an FFT (the case is one that can) */
        const DtsGpuSpec *gpu = dts_gpu_catalog_lookup (cat, cases[c].gpu);
        for (guint l = 0; l < w->layers->len; l++) {
          DtsLayerTimes lt;
          ck_assert (dts_cost_layer_times (cost, dts_workload_layer (w, l), gpu,
                                           cases[c].precision, 64, &lt, &error));
          fft += g_str_has_prefix (lt.source, "roofline:fft");
        }
      }
    }
    distinct_clear (&d);
  }
  ck_assert_int_ge (checked, 13 * 2 * 3 * 87);
  ck_assert_int_gt (fft, 0);
}
END_TEST

/* One geometry of a conv or fc layer, as the mlp model sees it. */
static char *
geometry_key (const DtsLayer *l)
{
  return g_strdup_printf ("%d %dx%dx%d %dx%dx%d k%dx%d s%dx%d p%dx%d g%d b%d in%d", l->type,
                          l->in_shape.c, l->in_shape.h, l->in_shape.w, l->out_shape.c,
                          l->out_shape.h, l->out_shape.w, l->kernel_h, l->kernel_w, l->stride_h,
                          l->stride_w, l->pad_h, l->pad_w, l->groups, l->has_bias,
                          l->n_inputs > 0 && l->inputs[0] == 0);
}

START_TEST (test_mlp_layers_monotone)
{
  /* the networks' times do not depend on the profile (it sets the
   * roofline-priced parts, which test_monotone covers) */
  static const char *const frameworks[] = { "generic" };
  static const DtsPrecision precisions[] = { DTS_PREC_FP32, DTS_PREC_FP16, DTS_PREC_TF32,
                                             DTS_PREC_BF16 };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsGpuCatalog) cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert_msg (cat != NULL, "%s", error ? error->message : "");
  g_auto (GStrv) names = dts_datadir_list ("workloads", ".xml");
  ck_assert (names != NULL && g_strv_length (names) >= 9);
  /* the distinct conv and fc geometries of every shipped network */
  g_autoptr (GPtrArray) workloads = g_ptr_array_new_with_free_func ((GDestroyNotify) dts_workload_free);
  g_autoptr (GPtrArray) layers = g_ptr_array_new ();
  g_autoptr (GPtrArray) where = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n_conv = 0, n_fc = 0;
  for (guint n = 0; names[n]; n++) {
    g_autofree char *path = dts_datadir_resolve ("workloads", names[n], ".xml", "workload", &error);
    ck_assert_msg (path != NULL, "%s", error ? error->message : "");
    DtsWorkload *w = dts_workload_load (path, &error);
    ck_assert_msg (w != NULL, "%s", error ? error->message : "");
    g_ptr_array_add (workloads, w);
    for (guint l = 0; l < w->layers->len; l++) {
      const DtsLayer *layer = dts_workload_layer (w, l);
      if (layer->type != DTS_LAYER_CONV && layer->type != DTS_LAYER_FC)
        continue;
      char *key = geometry_key (layer);
      if (!g_hash_table_add (seen, key))
        continue;
      g_ptr_array_add (layers, (gpointer) layer);
      g_ptr_array_add (where, g_strdup_printf ("%s layer '%s'", names[n], layer->name));
      n_conv += layer->type == DTS_LAYER_CONV, n_fc += layer->type == DTS_LAYER_FC;
    }
  }
  ck_assert_uint_ge (n_conv, 100);
  ck_assert_uint_ge (n_fc, 5);
  guint64 checked = 0;
  guint n_cases = 0, n_mlp = 0;
  for (guint f = 0; f < G_N_ELEMENTS (frameworks); f++) {
    g_autoptr (DtsCost) cost = dts_cost_new ("mlp", &error);
    ck_assert_msg (cost != NULL, "%s", error ? error->message : "");
    DtsFramework *fw = dts_framework_load (frameworks[f], &error);
    ck_assert_msg (fw != NULL, "%s", error ? error->message : "");
    dts_cost_set_framework (cost, fw);
    for (guint g = 0; g < dts_gpu_catalog_size (cat); g++) {
      const DtsGpuSpec *gpu = dts_gpu_catalog_index (cat, g);
      for (guint p = 0; p < G_N_ELEMENTS (precisions); p++) {
        DtsPrecision prec = precisions[p];
        if ((prec == DTS_PREC_TF32 || prec == DTS_PREC_BF16) && !(gpu->peak_flops[prec] > 0))
          continue; /* a clear error, tested in test-cost */
        n_cases++;
        for (guint l = 0; l < layers->len; l++) {
          const DtsLayer *layer = g_ptr_array_index (layers, l);
          DtsLayerTimes prev = { 0 };
          int prev_b = 0;
          for (int b = 1; b <= 1024; b += b < 64 ? 1 : b / 8) {
            DtsLayerTimes t;
            ck_assert_msg (dts_cost_layer_times (cost, layer, gpu, prec, b, &t, &error), "%s",
                           error ? error->message : "");
            if (b == 1 && t.source && g_str_has_prefix (t.source, "mlp:"))
              n_mlp++;
            const double now[3] = { t.fwd_s, t.bwd_data_s, t.bwd_weight_s };
            const double before[3] = { prev.fwd_s, prev.bwd_data_s, prev.bwd_weight_s };
            static const char *const pass[3] = { "forward", "backward-data", "backward-filter" };
            for (int k = 0; k < 3; k++)
              ck_assert_msg (now[k] >= before[k],
                             "%s, %s, %s %s, %s pass (%s): batch %d takes %.9g s, batch %d %.9g s",
                             (const char *) g_ptr_array_index (where, l), frameworks[f], gpu->id,
                             dts_precision_to_string (prec), pass[k], t.source, b, now[k],
                             prev_b, before[k]);
            prev = t, prev_b = b;
            checked++;
          }
        }
      }
    }
  }
  /* every catalogue GPU at fp32 and fp16, the Ampere and Hopper ones at tf32 and bf16 */
  ck_assert_uint_ge (n_cases, 2 * dts_gpu_catalog_size (cat) + 2 * 6);
  /* the networks priced most of them (the rest: grouped convolutions) */
  ck_assert_uint_ge (n_mlp, n_cases * (n_conv + n_fc) / 2);
  ck_assert_uint_eq (checked, (guint64) n_cases * layers->len * 87);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("cost-monotone");
  TCase *tc = tcase_create ("monotone");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_monotone);
  tcase_add_test (tc, test_monotone_fft);
  tcase_add_test (tc, test_mlp_layers_monotone);
  suite_add_tcase (s, tc);
  return dts_test_run (s);
}
