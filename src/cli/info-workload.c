/* info-workload.c - `dtsim info WORKLOAD`: the layers of a model with their
 * shapes, parameters, FLOPs and activation sizes, and totals per sample.
 *
 * FLOPs are 2 x multiply-accumulates (MACs); MACs count conv and fc layers
 * (linear layers and attention's two products in a sequence model), which
 * is what published model figures count (torchvision's "GFLOPS" column
 * is MACs). Bias adds and element-wise layers are shown per layer and as a
 * separate total. Activation bytes are at fp32 (4 bytes per element) and
 * count what is kept for the backward pass (views such as flatten keep
 * nothing).
 *
 * With --gpu (or --platform: the GPU of its rank 0), each layer also gets
 * its forward, backward-data, backward-weights and optimizer-update times at
 * the batch size and precision (by default the workload's, as `dtsim run`
 * takes them) from the chosen cost model; the per-iteration total is their
 * plain sum (one GPU, no overlap, no communication). --bounds prints, instead
 * of the layer table, what bounds each pass (info-bounds.c). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli-private.h"
#include "core/datadir.h"
#include "core/error.h"
#include "core/precision.h"
#include "cost/cost.h"
#include "cost/framework.h"
#include "output/format.h"
#include "output/json.h"
#include "platform/gpu.h"
#include "platform/platform.h"
#include "workload/workload.h"

#define FP32_BYTES 4.0
#define DEFAULT_BATCH 32

/* Kernel times of every layer, when --gpu is given. */
typedef struct {
  char *gpu_id;
  const char *cost_model;
  char *framework;
  char *chip;                  /* the GPU's die, or NULL */
  /* the profile's efficiencies there (roofline), and the keys that set them */
  double compute_eff, memory_eff;
  char *compute_key, *memory_key;
  char *assumed;               /* dts_cost_assumption, or NULL */
  double eff_1x1, eff_1x1_wgrad; /* compute-efficiency-1x1[-wgrad], or 0 */
  double host_s;               /* host-overhead, or 0 */
  /* attention-kernel where it is priced by its measured rates: the
   * library's name and the architecture measured; else NULL */
  const char *attention, *attention_arch;
  const char *loss;                  /* the profile's cross-entropy where it is not fused and
                                      * the workload has the layer, else NULL */
  double loss_fwd_b, loss_bwd_b;     /* its bytes per logit element */
  DtsPrecision precision;
  int batch;
  DtsLayerTimes *layers; /* one per layer, index 0 (the input) all zero */
  DtsLayerTimes total;
} Times;

static void
times_clear (Times *t)
{
  g_clear_pointer (&t->gpu_id, g_free);
  g_clear_pointer (&t->framework, g_free);
  g_clear_pointer (&t->chip, g_free);
  g_clear_pointer (&t->compute_key, g_free);
  g_clear_pointer (&t->memory_key, g_free);
  g_clear_pointer (&t->assumed, g_free);
  g_clear_pointer (&t->layers, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Times, times_clear)

static gboolean
usage_error (GError **error, const char *option, GError *local)
{
  g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "%s: %s", option, local->message);
  return FALSE;
}

/* The GPU that prices the per-layer times: --gpu's catalogue entry, else
 * rank 0 of --platform (default: `dtsim run`'s), with the platform's
 * overrides, as `dtsim run` prices that rank. A platform whose GPUs differ
 * needs --gpu. *SPEC is lent by *CATALOG or *PLATFORM; *WHERE is owned. */
static gboolean
resolve_gpu (const DtsInfoOptions *opts, DtsGpuCatalog **catalog, DtsPlatform **platform,
             const DtsGpuSpec **spec, char **where, GError **error)
{
  g_autoptr (GError) local = NULL;
  *catalog = dts_gpu_catalog_load (NULL, error);
  if (*catalog == NULL)
    return FALSE;
  if (opts->gpu != NULL) {
    *spec = dts_gpu_catalog_get (*catalog, opts->gpu, &local);
    if (*spec == NULL)
      return usage_error (error, "--gpu", local);
    *where = g_strdup ("catalogue");
    return TRUE;
  }
  const char *name = opts->platform ? opts->platform : DTS_DEFAULT_PLATFORM;
  g_autofree char *path = dts_datadir_resolve ("platforms", name, ".xml", "platform", error);
  if (path == NULL)
    return FALSE;
  *platform = dts_platform_load (path, *catalog, error);
  if (*platform == NULL)
    return FALSE;
  const DtsGpuSpec *first = &dts_platform_gpu (*platform, 0)->spec;
  for (guint r = 1; r < (*platform)->gpus->len; r++) {
    const DtsGpu *g = dts_platform_gpu (*platform, (int) r);
    if (strcmp (g->spec.id, first->id) != 0 || g->spec.mem_bw_Bps != first->mem_bw_Bps
        || memcmp (g->spec.peak_flops, first->peak_flops, sizeof first->peak_flops) != 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "platform '%s': rank %u (%s) is not the GPU of rank 0 (%s): per-layer times "
                   "are priced on one GPU, choose it with --gpu ID",
                   path, r, g->spec.id, first->id);
      return FALSE;
    }
  }
  *spec = first;
  *where = g_strdup_printf ("rank 0 of platform '%s'", name);
  return TRUE;
}

/* The cost model of --cost-model under the profile of --framework. */
static DtsCost *
make_cost (const DtsInfoOptions *opts, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (DtsCost) cost = dts_cost_new (opts->cost_model, &local);
  if (cost == NULL) {
    usage_error (error, "--cost-model", local);
    return NULL;
  }
  DtsFramework *fw = dts_framework_load (opts->framework, error); /* NULL: the default */
  if (fw == NULL)
    return NULL;
  dts_cost_set_framework (cost, fw);
  return g_steal_pointer (&cost);
}

static gboolean
compute_times (const DtsWorkload *w, DtsCost *cost, const DtsGpuSpec *gpu, Times *t,
               GError **error)
{
  t->gpu_id = g_strdup (gpu->id);
  t->cost_model = dts_cost_id (cost);
  const DtsFramework *fw = dts_cost_framework (cost);
  t->framework = g_strdup (fw->id);
  t->chip = g_strdup (gpu->chip);
  t->compute_eff = dts_framework_compute_eff (fw, gpu->chip, gpu->arch, t->precision);
  t->memory_eff = dts_framework_memory_eff (fw, gpu->chip, gpu->arch);
  t->compute_key = dts_framework_eff_key (fw, gpu->chip, gpu->arch, FALSE, t->precision);
  t->memory_key = dts_framework_eff_key (fw, gpu->chip, gpu->arch, TRUE, t->precision);
  t->assumed = dts_cost_assumption (cost, gpu, t->precision);
  t->eff_1x1 = fw->eff_1x1;
  t->eff_1x1_wgrad = fw->eff_1x1_wgrad;
  t->host_s = fw->host_s;
  if (fw->attention != DTS_ATTENTION_GEMM && dts_attention_measured_arch (gpu) != NULL) {
    t->attention = dts_attention_kernel_name (fw->attention);
    t->attention_arch = dts_attention_measured_arch (gpu);
  }
  t->layers = g_new0 (DtsLayerTimes, w->layers->len);
  for (guint i = 1; i < w->layers->len; i++) {
    const DtsLayer *l = dts_workload_layer (w, i);
    DtsLayerTimes *lt = &t->layers[i];
    if (l->type == DTS_LAYER_CROSS_ENTROPY && fw->loss != DTS_LOSS_FUSED) {
      t->loss = dts_loss_kernel_name (fw->loss);
      dts_loss_kernel_bytes (fw->loss, dts_layer_precision (l, t->precision), &t->loss_fwd_b,
                             &t->loss_bwd_b);
    }
    if (!dts_cost_layer_times (cost, l, gpu, t->precision, t->batch, lt, error)) {
      g_prefix_error (error, "workload '%s': layer '%s': ", w->path, l->name);
      return FALSE;
    }
    t->total.fwd_s += lt->fwd_s;
    t->total.bwd_data_s += lt->bwd_data_s;
    t->total.bwd_weight_s += lt->bwd_weight_s;
    t->total.update_s += lt->update_s;
  }
  return TRUE;
}

static double
layer_total_s (const DtsLayerTimes *t)
{
  return t->fwd_s + t->bwd_data_s + t->bwd_weight_s + t->update_s;
}

/* What the model's MACs count: its GEMM-shaped layers. */
static const char *
macs_of (const DtsWorkload *w)
{
  return w->input.seq > 0 ? "linear layers and attention's products" : "conv and fc layers";
}

static void
print_transformer (const DtsTransformer *t)
{
  DtsFormatBuf v;
  printf ("transformer: %d layers, hidden %d, ", t->layers, t->hidden);
  if (t->dense_layers > 0)
    printf ("the first %d with a %s %d, then ", t->dense_layers,
            t->swiglu ? "SwiGLU" : "GELU MLP", t->ffn);
  if (t->experts > 0)
    printf ("%d %s experts of %d, %d per token", t->experts, t->swiglu ? "SwiGLU" : "GELU",
            t->moe_ffn, t->top_k);
  else
    printf ("%s %d", t->swiglu ? "SwiGLU" : "GELU MLP", t->ffn);
  if (t->shared_ffn > 0)
    printf (" beside shared experts of %d", t->shared_ffn);
  if (t->kv_lora > 0) {
    printf (",\n  latent attention: %d heads of %d + %d rotary (values %d), keys and values "
            "from %d",
            t->heads, t->head_dim, t->rope_head_dim, t->v_head_dim, t->kv_lora);
    if (t->q_lora > 0)
      printf (", queries from %d", t->q_lora);
  } else
    printf (", %d heads of %d", t->heads, t->head_dim);
  if (t->kv_heads != t->heads)
    printf (" in %d key/value groups", t->kv_heads);
  printf (", vocabulary %s", dts_format_grouped (&v, t->vocab));
  if (t->padded_vocab != t->vocab)
    printf (" padded to %s", dts_format_grouped (&v, t->padded_vocab));
  printf (",\n  %s, %s positions%s, %s%s attention%s, %s", t->rmsnorm ? "RMSNorm" : "LayerNorm",
          t->learned_positions ? "learned" : "rotary", t->tied_embedding ? ", tied LM head" : "",
          t->causal ? "causal " : "", t->fused_attention ? "fused" : "unfused",
          t->bias ? ", biases" : "", t->dropout > 0 ? "dropout" : "no dropout");
  if (t->dropout > 0)
    printf (" %g", t->dropout);
  printf ("\n");
}

static void
print_text (const DtsWorkload *w, const Times *t)
{
  const DtsTraining *tr = &w->training;
  g_autofree char *input = w->input.seq > 0 ? g_strdup_printf ("%d tokens", w->input.seq)
                                            : dts_shape_to_string (w->input);
  printf ("workload %s: input %s, %u layers\n", w->name, input, w->layers->len - 1);
  if (w->transformer.layers > 0)
    print_transformer (&w->transformer);
  if (tr->batch_size > 0 || tr->dataset_samples > 0 || tr->has_precision || tr->optimizer) {
    g_autoptr (GString) s = g_string_new ("training:");
    if (tr->batch_size > 0)
      g_string_append_printf (s, " batch %d per GPU,", tr->batch_size);
    if (tr->dataset_samples > 0)
      g_string_append_printf (s, " %.0f samples per epoch,", tr->dataset_samples);
    if (tr->has_precision)
      g_string_append_printf (s, " %s,", dts_precision_to_string (tr->precision));
    if (tr->optimizer)
      g_string_append_printf (s, " %s,", tr->optimizer);
    g_string_truncate (s, s->len - 1);
    printf ("%s\n", s->str);
  }
  if (t != NULL)
    printf ("kernel times: %s, batch %d, %s, cost model %s, framework %s (microseconds per "
            "batch)\n",
            t->gpu_id, t->batch, dts_precision_to_string (t->precision), t->cost_model,
            t->framework);
  if (t != NULL && strcmp (t->cost_model, "roofline") == 0)
    printf ("  %s%s%s: conv/fc at %.2f of peak (%s), other kernels at %.2f of bandwidth (%s)\n",
            t->gpu_id, t->chip ? " " : "", t->chip ? t->chip : "", t->compute_eff,
            t->compute_key, t->memory_eff, t->memory_key);
  if (t != NULL && strcmp (t->cost_model, "roofline") == 0
      && (t->eff_1x1 > 0 || t->eff_1x1_wgrad > 0))
    printf ("  1x1 convolutions: forward and data gradient at %.2f of peak (%s), weight gradient "
            "at %.2f (%s)\n",
            t->eff_1x1 > 0 ? t->eff_1x1 : t->compute_eff,
            t->eff_1x1 > 0 ? "compute-efficiency-1x1" : t->compute_key,
            t->eff_1x1_wgrad > 0 ? t->eff_1x1_wgrad : t->compute_eff,
            t->eff_1x1_wgrad > 0 ? "compute-efficiency-1x1-wgrad" : t->compute_key);
  if (t != NULL && strcmp (t->cost_model, "roofline") == 0 && t->host_s > 0)
    printf ("  host: %.1f us to issue a kernel (host-overhead): a pass or an update takes at least "
            "its kernels x that\n",
            1e6 * t->host_s);
  if (t != NULL && t->attention != NULL)
    printf ("  fused attention: %s's measured rates on %s (attention-kernel), by sequence and "
            "head dimension\n",
            t->attention, t->attention_arch);
  if (t != NULL && t->loss != NULL)
    printf ("  loss: %s's cross-entropy (cross-entropy), %g bytes per logit forward, %g "
            "backward\n",
            t->loss, t->loss_fwd_b, t->loss_bwd_b);
  if (t != NULL && t->assumed != NULL)
    printf ("  assumed: %s; the error of these is unmeasured\n", t->assumed);
  printf ("\n");

  int name_w = 5, type_w = 4, shape_w = 6;
  for (guint i = 0; i < w->layers->len; i++) {
    const DtsLayer *l = dts_workload_layer (w, i);
    g_autofree char *shape = dts_shape_to_string (l->out_shape);
    name_w = MAX (name_w, (int) strlen (l->name));
    type_w = MAX (type_w, (int) strlen (dts_layer_type_to_string (l->type)));
    shape_w = MAX (shape_w, (int) strlen (shape));
  }
  printf ("%4s  %-*s  %-*s  %-*s  %11s  %10s  %11s", "#", name_w, "layer", type_w, "type",
          shape_w, "output", "params", "fwd MFLOP", "act bytes");
  if (t != NULL)
    printf ("  %10s  %10s  %10s  %10s  %s", "fwd us", "bwd-dat us", "bwd-wgt us", "update us",
            "model");
  printf ("\n");
  for (guint i = 0; i < w->layers->len; i++) {
    const DtsLayer *l = dts_workload_layer (w, i);
    g_autofree char *shape = dts_shape_to_string (l->out_shape);
    DtsFormatBuf mflop, fwd, bwd_data, bwd_weight, update;
    printf ("%4u  %-*s  %-*s  %-*s  %11.0f  %10s  %11.0f", i, name_w, l->name, type_w,
            dts_layer_type_to_string (l->type), shape_w, shape, l->params,
            dts_format_fixed (&mflop, l->fwd_flops, DTS_FORMAT_UNIT_MEGA, 2),
            l->act_elems * FP32_BYTES);
    if (t != NULL) {
      const DtsLayerTimes *lt = &t->layers[i];
      printf ("  %10s  %10s  %10s  %10s  %s",
              dts_format_fixed (&fwd, lt->fwd_s, DTS_FORMAT_UNIT_US, 1),
              dts_format_fixed (&bwd_data, lt->bwd_data_s, DTS_FORMAT_UNIT_US, 1),
              dts_format_fixed (&bwd_weight, lt->bwd_weight_s, DTS_FORMAT_UNIT_US, 1),
              dts_format_fixed (&update, lt->update_s, DTS_FORMAT_UNIT_US, 1),
              lt->source ? lt->source : "-");
    }
    printf ("\n");
  }

  DtsFormatBuf a, b;
  printf ("\ntotals per %s (FLOPs = 2 x multiply-accumulates; MACs count %s)\n",
          w->input.seq > 0 ? "sequence" : "sample", macs_of (w));
  printf ("  parameters        %s (%s MB at fp32)\n", dts_format_grouped (&a, w->params),
          dts_format_fixed (&b, w->params * FP32_BYTES, DTS_FORMAT_UNIT_MB, 1));
  if (w->active_params < w->params)
    printf ("  active params     %s per token (each mixture runs k of its E experts)\n",
            dts_format_grouped (&a, w->active_params));
  printf ("  MACs              %s G\n", dts_format_fixed (&a, w->macs, DTS_FORMAT_UNIT_GIGA, 3));
  printf ("  forward GFLOPs    %s (2 x MACs of %s)\n",
          dts_format_fixed (&a, 2.0 * w->macs, DTS_FORMAT_UNIT_GIGA, 3),
          w->input.seq > 0 ? "linear and attention" : "conv and fc");
  printf ("  other fwd GFLOPs  %s (bias and element-wise operations, priced by bytes)\n",
          dts_format_fixed (&a, w->fwd_flops - 2.0 * w->macs, DTS_FORMAT_UNIT_GIGA, 3));
  printf ("  activations       %s MB at fp32 (kept for the backward pass)\n",
          dts_format_fixed (&a, w->act_elems * FP32_BYTES, DTS_FORMAT_UNIT_MB, 2));
  if (t != NULL) {
    printf ("\ncompute per iteration on one %s, batch %d (sum of kernels, no overlap)\n",
            t->gpu_id, t->batch);
    const DtsFormatUnit ms = DTS_FORMAT_UNIT_MS;
    printf ("  forward           %s ms\n", dts_format_fixed (&a, t->total.fwd_s, ms, 3));
    printf ("  backward data     %s ms\n", dts_format_fixed (&a, t->total.bwd_data_s, ms, 3));
    printf ("  backward weights  %s ms\n", dts_format_fixed (&a, t->total.bwd_weight_s, ms, 3));
    printf ("  optimizer update  %s ms\n", dts_format_fixed (&a, t->total.update_s, ms, 3));
    printf ("  total             %s ms\n",
            dts_format_fixed (&a, layer_total_s (&t->total), ms, 3));
  }
}

static void
json_times (DtsJson *j, const DtsLayerTimes *lt)
{
  dts_json_kv_double (j, "fwd_s", lt->fwd_s);
  dts_json_kv_double (j, "bwd_data_s", lt->bwd_data_s);
  dts_json_kv_double (j, "bwd_weight_s", lt->bwd_weight_s);
  dts_json_kv_double (j, "update_s", lt->update_s);
  dts_json_kv_double (j, "total_s", layer_total_s (lt));
}

/* Counts (parameters, MACs, FLOPs, elements, bytes) are whole numbers: write
 * them as integers, not in exponent form. */
static void
kv_count (DtsJson *j, const char *key, double v)
{
  if (v == floor (v) && fabs (v) < 9007199254740992.0) /* 2^53 */
    dts_json_kv_int (j, key, (gint64) v);
  else
    dts_json_kv_double (j, key, v);
}

/* [C, H, W], or [tokens, features] for a sequence. */
static void
json_shape (DtsJson *j, const char *key, DtsShape s)
{
  dts_json_key (j, key);
  dts_json_begin_array (j);
  if (s.seq > 0) {
    dts_json_int (j, s.seq);
    dts_json_int (j, s.c);
  } else {
    dts_json_int (j, s.c);
    dts_json_int (j, s.h);
    dts_json_int (j, s.w);
  }
  dts_json_end_array (j);
}

static void
json_transformer (DtsJson *j, const DtsTransformer *t)
{
  dts_json_key (j, "transformer");
  if (t->layers == 0) {
    dts_json_null (j);
    return;
  }
  dts_json_begin_object (j);
  dts_json_kv_int (j, "layers", t->layers);
  dts_json_kv_int (j, "hidden", t->hidden);
  dts_json_kv_int (j, "ffn", t->ffn);
  dts_json_kv_int (j, "heads", t->heads);
  dts_json_kv_int (j, "kv_heads", t->kv_heads);
  dts_json_kv_int (j, "head_dim", t->head_dim);
  dts_json_kv_int (j, "vocab", t->vocab);
  dts_json_kv_int (j, "padded_vocab", t->padded_vocab);
  dts_json_kv_int (j, "seq_len", t->seq_len);
  dts_json_kv_string (j, "mlp", t->swiglu ? "swiglu" : "gelu");
  dts_json_kv_string (j, "norm", t->rmsnorm ? "rmsnorm" : "layernorm");
  dts_json_kv_string (j, "positions", t->learned_positions ? "learned" : "rotary");
  dts_json_kv_string (j, "attention", t->fused_attention ? "flash" : "unfused");
  dts_json_kv_bool (j, "tied_embedding", t->tied_embedding);
  dts_json_kv_bool (j, "bias", t->bias);
  dts_json_kv_bool (j, "causal", t->causal);
  dts_json_kv_double (j, "dropout", t->dropout);
  dts_json_kv_int (j, "experts", t->experts);
  dts_json_kv_int (j, "top_k", t->top_k);
  dts_json_kv_int (j, "moe_ffn", t->experts > 0 ? t->moe_ffn : 0);
  dts_json_kv_int (j, "shared_ffn", t->shared_ffn);
  dts_json_kv_int (j, "dense_layers", t->dense_layers);
  dts_json_kv_int (j, "q_lora_rank", t->q_lora);
  dts_json_kv_int (j, "kv_lora_rank", t->kv_lora);
  dts_json_kv_int (j, "rope_head_dim", t->rope_head_dim);
  dts_json_kv_int (j, "v_head_dim", t->v_head_dim);
  dts_json_end_object (j);
}

static void
print_json (const DtsWorkload *w, const Times *t)
{
  g_autoptr (DtsJson) j = dts_json_new ();
  const DtsTraining *tr = &w->training;
  dts_json_begin_object (j);
  dts_json_kv_string (j, "name", w->name);
  dts_json_kv_string (j, "path", w->path);
  json_shape (j, "input_shape", w->input);
  g_autofree char *convention
      = g_strdup_printf ("FLOPs = 2 x multiply-accumulates; macs count %s", macs_of (w));
  dts_json_kv_string (j, "flops_convention", convention);
  if (w->input.seq > 0)
    json_transformer (j, &w->transformer);
  dts_json_key (j, "training");
  dts_json_begin_object (j);
  dts_json_key (j, "batch_size");
  if (tr->batch_size > 0)
    dts_json_int (j, tr->batch_size);
  else
    dts_json_null (j);
  dts_json_key (j, "dataset_samples");
  if (tr->dataset_samples > 0)
    dts_json_double (j, tr->dataset_samples);
  else
    dts_json_null (j);
  dts_json_kv_string (j, "precision",
                      tr->has_precision ? dts_precision_to_string (tr->precision) : NULL);
  dts_json_kv_string (j, "optimizer", tr->optimizer);
  dts_json_end_object (j);
  if (t != NULL) {
    dts_json_key (j, "kernel_times");
    dts_json_begin_object (j);
    dts_json_kv_string (j, "gpu", t->gpu_id);
    dts_json_kv_string (j, "cost_model", t->cost_model);
    dts_json_kv_string (j, "framework", t->framework);
    dts_json_kv_string (j, "precision", dts_precision_to_string (t->precision));
    dts_json_kv_int (j, "batch_size", t->batch);
    if (strcmp (t->cost_model, "roofline") == 0) {
      dts_json_kv_double (j, "compute_efficiency", t->compute_eff);
      dts_json_kv_string (j, "compute_efficiency_key", t->compute_key);
      dts_json_kv_double (j, "memory_efficiency", t->memory_eff);
      dts_json_kv_string (j, "memory_efficiency_key", t->memory_key);
      if (t->eff_1x1 > 0)
        dts_json_kv_double (j, "compute_efficiency_1x1", t->eff_1x1);
      if (t->eff_1x1_wgrad > 0)
        dts_json_kv_double (j, "compute_efficiency_1x1_wgrad", t->eff_1x1_wgrad);
      if (t->host_s > 0)
        dts_json_kv_double (j, "host_overhead_s", t->host_s);
    }
    if (t->attention != NULL)
      dts_json_kv_string (j, "attention_kernel", t->attention);
    if (t->loss != NULL)
      dts_json_kv_string (j, "cross_entropy", t->loss);
    dts_json_end_object (j);
  }

  dts_json_key (j, "layers");
  dts_json_begin_array (j);
  for (guint i = 0; i < w->layers->len; i++) {
    const DtsLayer *l = dts_workload_layer (w, i);
    dts_json_begin_object (j);
    dts_json_kv_int (j, "index", i);
    dts_json_kv_string (j, "name", l->name);
    dts_json_kv_string (j, "type", dts_layer_type_to_string (l->type));
    dts_json_kv_int (j, "line", l->line);
    dts_json_key (j, "inputs");
    dts_json_begin_array (j);
    for (int k = 0; k < l->n_inputs; k++)
      dts_json_string (j, dts_workload_layer (w, l->inputs[k])->name);
    dts_json_end_array (j);
    json_shape (j, "output_shape", l->out_shape);
    kv_count (j, "params", l->params);
    kv_count (j, "macs", l->macs);
    kv_count (j, "fwd_flops", l->fwd_flops);
    kv_count (j, "bwd_data_flops", l->bwd_data_flops);
    kv_count (j, "bwd_weight_flops", l->bwd_weight_flops);
    kv_count (j, "in_elems", l->in_elems);
    kv_count (j, "out_elems", l->out_elems);
    kv_count (j, "activation_bytes_fp32", l->act_elems * FP32_BYTES);
    if (t != NULL) {
      dts_json_key (j, "times");
      dts_json_begin_object (j);
      json_times (j, &t->layers[i]);
      dts_json_kv_string (j, "source", t->layers[i].source);
      dts_json_end_object (j);
    }
    dts_json_end_object (j);
  }
  dts_json_end_array (j);

  dts_json_key (j, "totals");
  dts_json_begin_object (j);
  dts_json_kv_int (j, "layers", w->layers->len - 1);
  kv_count (j, "params", w->params);
  kv_count (j, "active_params", w->active_params);
  kv_count (j, "macs", w->macs);
  kv_count (j, "fwd_flops", w->fwd_flops);
  kv_count (j, "fwd_conv_fc_flops", 2.0 * w->macs);
  kv_count (j, "fwd_other_flops", w->fwd_flops - 2.0 * w->macs);
  kv_count (j, "activation_bytes_fp32", w->act_elems * FP32_BYTES);
  if (t != NULL) {
    dts_json_key (j, "iteration_times");
    dts_json_begin_object (j);
    json_times (j, &t->total);
    dts_json_end_object (j);
  }
  dts_json_end_object (j);
  dts_json_end_object (j);
  fputs (dts_json_get (j), stdout);
}

gboolean
dts_cli_info_workload (const char *path, const DtsInfoOptions *opts, GError **error)
{
  g_auto (Times) times = { 0 };
  g_autoptr (GError) local = NULL;
  if (opts->precision != NULL
      && !dts_precision_from_string (opts->precision, &times.precision, &local))
    return usage_error (error, "--precision", local);
  g_autoptr (DtsWorkload) w = dts_workload_load_seq (path, opts->seq_len, error);
  if (w == NULL)
    return FALSE;
  /* Precision and batch size as `dtsim run` takes them. */
  if (opts->precision == NULL)
    times.precision = w->training.has_precision ? w->training.precision : DTS_PREC_FP32;
  times.batch = opts->batch_size > 0            ? opts->batch_size
                : w->training.batch_size > 0 ? w->training.batch_size
                                             : DEFAULT_BATCH;
  gboolean with_times = opts->gpu != NULL || opts->platform != NULL || opts->bounds;
  g_autoptr (DtsGpuCatalog) catalog = NULL;
  g_autoptr (DtsPlatform) platform = NULL;
  g_autoptr (DtsCost) cost = NULL;
  g_autofree char *where = NULL;
  const DtsGpuSpec *gpu = NULL;
  if (with_times && !resolve_gpu (opts, &catalog, &platform, &gpu, &where, error))
    return FALSE;
  if (with_times && (cost = make_cost (opts, error)) == NULL)
    return FALSE;
  if (opts->bounds) {
    g_autoptr (GString) out = g_string_new (NULL);
    if (!dts_cli_format_bounds (w, cost, gpu, where, times.precision, times.batch, opts->format,
                                out, error))
      return FALSE;
    fputs (out->str, stdout);
    return TRUE;
  }
  if (with_times && !compute_times (w, cost, gpu, &times, error))
    return FALSE;
  if (opts->format == DTS_FORMAT_JSON)
    print_json (w, with_times ? &times : NULL);
  else
    print_text (w, with_times ? &times : NULL);
  return TRUE;
}
