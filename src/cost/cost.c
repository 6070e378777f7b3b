/* cost.c - the cost-model table and the DtsCost handle around one model.
 *
 * A new model is one file defining a DtsCostModelClass plus one row here. */
#include "config.h"

#include "core/error.h"
#include "cost/attention.h"
#include "cost/cost-private.h"
#include "cost/gemm.h"
#include "cost/roofline.h"
#include "platform/gpu.h"

static const DtsCostModelClass *const models[] = {
  &dts_cost_roofline_class,
  &dts_cost_mlp_class,
  &dts_cost_roofline_gemm_class,
  NULL,
};

struct _DtsCost {
  const DtsCostModelClass *klass;
  gpointer state;
  DtsFramework *framework; /* NULL: generic */
};

const DtsCostModelClass *
dts_cost_model_lookup (const char *id)
{
  for (guint i = 0; models[i]; i++)
    if (g_strcmp0 (models[i]->id, id) == 0)
      return models[i];
  return NULL;
}

const DtsCostModelClass *const *
dts_cost_models (void)
{
  return models;
}

char *
dts_cost_model_ids (void)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; models[i]; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", models[i]->id);
  return g_string_free (s, FALSE);
}

DtsCost *
dts_cost_new (const char *id, GError **error)
{
  const DtsCostModelClass *klass = dts_cost_model_lookup (id);
  if (klass == NULL) {
    g_autofree char *known = dts_cost_model_ids ();
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "unknown cost model '%s' (known: %s)",
                 id ? id : "", known);
    return NULL;
  }
  gpointer state = NULL;
  if (klass->init != NULL && (state = klass->init (error)) == NULL)
    return NULL;
  DtsCost *cost = g_new0 (DtsCost, 1);
  cost->klass = klass;
  cost->state = state;
  return cost;
}

void
dts_cost_free (DtsCost *cost)
{
  if (cost == NULL)
    return;
  if (cost->klass->free != NULL)
    cost->klass->free (cost->state);
  dts_framework_free (cost->framework);
  g_free (cost);
}

void
dts_cost_set_framework (DtsCost *cost, DtsFramework *fw)
{
  dts_framework_free (cost->framework);
  cost->framework = fw;
}

const DtsFramework *
dts_cost_framework (const DtsCost *cost)
{
  return cost->framework ? cost->framework : dts_framework_generic ();
}

const char *
dts_cost_id (const DtsCost *cost)
{
  return cost->klass->id;
}

char *
dts_cost_assumption (const DtsCost *cost, const DtsGpuSpec *gpu, DtsPrecision precision)
{
  const char *stand_in = dts_gpu_arch_stand_in (gpu->arch);
  const DtsFramework *fw = dts_cost_framework (cost);
  /* fp8 with no FP8 efficiency in the profile: bf16's (framework.c) */
  g_autoptr (GString) notes = NULL; /* what is said besides a stand-in */
  if (precision == DTS_PREC_FP8 && !dts_framework_has_eff (fw, gpu->chip, gpu->arch, precision)) {
    g_autofree char *bkey = dts_framework_eff_key (fw, gpu->chip, gpu->arch, FALSE, DTS_PREC_BF16);
    const char *on = NULL;
    double ratio = dts_gemm_fp8_ratio (gpu, &on);
    double eff = dts_framework_compute_eff (fw, gpu->chip, gpu->arch, DTS_PREC_BF16);
    notes = g_string_new (NULL);
    g_autofree char *whose = on == NULL                     ? NULL
                             : g_strcmp0 (on, gpu->id) == 0 ? g_strdup_printf ("the %s's", on)
                                                            : g_strdup_printf ("the mean %s", on);
    if (on != NULL)
      g_string_append_printf (notes,
                              "fp8: the FP8 GEMMs of linear layers at profile %s's %s %.2f x "
                              "%.3f, %s FP8-to-BF16 ratio of maximum achievable matmul rates "
                              "(MAMF share of peak), %.3f of the fp8 peak",
                              fw->id, bkey, eff, ratio, whose, eff * ratio);
    else
      g_string_append_printf (notes,
                              "fp8: no FP8 kernels measured, bf16's efficiency assumed for the "
                              "FP8 GEMMs of linear layers: profile %s's %s %.2f of the fp8 peak",
                              fw->id, bkey, eff);
    if (cost->klass->assumed_fp8 != NULL)
      cost->klass->assumed_fp8 (gpu, notes);
  }
  /* the profile's attention library where its rates were not measured on
   * the GPU's own architecture (attention.c) */
  const char *on = dts_attention_measured_arch (gpu);
  if (fw->attention != DTS_ATTENTION_GEMM && (on == NULL || g_ascii_strcasecmp (on, gpu->arch))) {
    if (notes == NULL)
      notes = g_string_new (NULL);
    else
      g_string_append (notes, "; ");
    const char *impl = dts_attention_kernel_name (fw->attention);
    if (on == NULL) {
      g_autofree char *ckey = dts_framework_eff_key (fw, gpu->chip, gpu->arch, FALSE, precision);
      g_string_append_printf (notes,
                              "attention: no %s rates measured on %s, its fused attention priced "
                              "as a GEMM at profile %s's %s %.2f",
                              impl, gpu->arch, fw->id, ckey,
                              dts_framework_compute_eff (fw, gpu->chip, gpu->arch, precision));
    } else {
      g_string_append_printf (notes,
                              "attention: no %s rates measured on %s, %s's measured shares of "
                              "the 16-bit peak assumed",
                              impl, gpu->arch, on);
    }
  }
  if (stand_in == NULL)
    return notes != NULL ? g_string_free (g_steal_pointer (&notes), FALSE) : NULL;
  g_autofree char *ckey = dts_framework_eff_key (fw, gpu->chip, gpu->arch, FALSE, precision);
  g_autofree char *mkey = dts_framework_eff_key (fw, gpu->chip, gpu->arch, TRUE, precision);
  GString *out = g_string_new (NULL);
  g_string_append_printf (out,
                          "%s (%s): nothing measured on %s, %s's values assumed: profile %s's "
                          "%s %.2f and %s %.2f (what a %s GPU takes)",
                          gpu->id, gpu->arch, gpu->arch, stand_in, fw->id, ckey,
                          dts_framework_compute_eff (fw, gpu->chip, gpu->arch, precision), mkey,
                          dts_framework_memory_eff (fw, gpu->chip, gpu->arch), stand_in);
  if (cost->klass->assumed != NULL)
    cost->klass->assumed (gpu, precision, stand_in, out);
  if (notes != NULL)
    g_string_append_printf (out, "; %s", notes->str);
  return g_string_free (out, FALSE);
}

gboolean
dts_cost_check_fp8 (const DtsGpuSpec *gpu, GError **error)
{
  if (gpu->peak_flops[DTS_PREC_FP8] > 0)
    return TRUE;
  /* Name the catalogue's GPUs that have it; the shipped catalogue, as the
   * platform's entry may come from it under another name. */
  g_autoptr (GString) have = g_string_new (NULL);
  g_autoptr (GError) local = NULL;
  DtsGpuCatalog *cat = dts_gpu_catalog_load (NULL, &local);
  for (guint i = 0; cat != NULL && i < dts_gpu_catalog_size (cat); i++) {
    const DtsGpuSpec *s = dts_gpu_catalog_index (cat, i);
    if (s->peak_flops[DTS_PREC_FP8] > 0)
      g_string_append_printf (have, "%s%s", have->len ? ", " : "", s->id);
  }
  dts_gpu_catalog_free (cat);
  g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
               "precision fp8: %s (%s) has no FP8 tensor cores (its catalogue entry records "
               "no fp8 rate; Hopper and newer have them: %s); use --precision bf16%s",
               gpu->id, gpu->arch ? gpu->arch : "unknown architecture",
               have->len ? have->str : "none in the catalogue",
               gpu->peak_flops[DTS_PREC_BF16] > 0 ? "" : " or fp32");
  return FALSE;
}

gboolean
dts_cost_layer_times (DtsCost *cost, const DtsLayer *layer, const DtsGpuSpec *gpu,
                      DtsPrecision precision, int batch, DtsLayerTimes *out, GError **error)
{
  *out = (DtsLayerTimes){ 0 };
  /* TF32 and BF16 exist only as tensor-core formats (Ampere and later): a GPU
   * whose catalogue entry records 0 for them cannot run them at all, unlike
   * fp16, which runs at the fp32 rate on GPUs without tensor cores. */
  if ((precision == DTS_PREC_TF32 || precision == DTS_PREC_BF16)
      && !(gpu->peak_flops[precision] > 0)) {
    const char *p = dts_precision_to_string (precision);
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "precision %s: %s (%s) has no %s tensor cores (its catalogue entry records "
                 "%s=0; Ampere and newer have them); use --precision fp32%s",
                 p, gpu->id, gpu->arch ? gpu->arch : "unknown architecture", p, p,
                 gpu->peak_flops[DTS_PREC_FP16] > 0 ? " or fp16" : "");
    return FALSE;
  }
  if (precision == DTS_PREC_FP8 && !dts_cost_check_fp8 (gpu, error))
    return FALSE;
  /* Under fp8 only the GEMMs of linear layers run in FP8 */
  precision = dts_layer_precision (layer, precision);
  const DtsFramework *fw = dts_cost_framework (cost);
  if (layer->type == DTS_LAYER_INPUT && fw->iteration_s > 0) {
    out->fwd_s = fw->iteration_s;
    out->source = "framework";
    return TRUE;
  }
  if (layer->type >= 0 && layer->type < DTS_LAYER_TYPE_COUNT && fw->fuse[layer->type])
    out->source = "fused";
  else if (!cost->klass->layer_times (cost->state, layer, gpu, precision, batch, fw, out, error))
    return FALSE;
  /* FP8 GEMMs read FP8 copies of their operands: the casts of the input
   * (forward) and of the output gradient (backward) are kernels of their
   * own, memory-bound, at the profile's bandwidth share (roofline.h) */
  if (precision == DTS_PREC_FP8 && layer->type == DTS_LAYER_LINEAR
      && g_strcmp0 (out->source, "fused") != 0) {
    DtsKernelWork cast;
    dts_roofline_fp8_cast_work (layer, batch, FALSE, &cast);
    out->fwd_s += dts_roofline_kernel_time_fw (&cast, gpu, DTS_PREC_BF16, fw);
    dts_roofline_fp8_cast_work (layer, batch, TRUE, &cast);
    out->bwd_data_s += dts_roofline_kernel_time_fw (&cast, gpu, DTS_PREC_BF16, fw);
  }
  /* An output read by k later layers gets k gradients in the backward pass,
   * summed before its own backward runs: k - 1 element-wise adds, each
   * reading two tensors of the output's size and writing one (autograd's
   * in-place accumulation, Torch7 nn.Concat's copy-then-add), priced by the
   * roofline at the profile's bandwidth share.  Fused layers still pay it:
   * fusion removes their own kernel, not their consumers' gradients. */
  if (layer->type != DTS_LAYER_INPUT && layer->n_consumers > 1)
    out->bwd_data_s += dts_roofline_grad_sum_time (layer, gpu, dts_precision_non_gemm (precision),
                                                   batch, fw);
  return TRUE;
}
