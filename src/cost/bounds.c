/* bounds.c - what bounds each pass of a layer: compute or memory.
 *
 * The roofline (cost/roofline.c) prices a kernel as
 *   t = max(F / (P * e_c), B / (W * e_m)) + k * t_launch,
 * so a kernel is compute-bound when its arithmetic intensity F / B is above
 * the ridge point P * e_c / (W * e_m) (Williams, Waterman, Patterson, CACM
 * 2009) and memory-bound below it.  A pass of a layer may run more than one
 * kernel (a convolution algorithm's transforms and its GEMM, the gradient
 * sum of an output read by several layers): its bound is the larger of the
 * time spent in compute-bound and in memory-bound kernels, launches apart.
 *
 * The times are the cost model's own (dts_cost_layer_times), so that they
 * are what `dtsim run` prices.  A model that is not a roofline (mlp: times
 * predicted from measured kernels) has no such terms, and its bound is
 * undefined; the FLOPs and bytes are then the layer's work as its row says
 * (workload/layer-work.c). */
#include "config.h"

#include <string.h>

#include "cost/cost.h"
#include "cost/roofline.h"

const char *
dts_cost_pass_id (DtsPass pass)
{
  static const char *const ids[DTS_PASS_COUNT] = { "fwd", "bwd-data", "bwd-weight", "update" };
  g_return_val_if_fail (pass >= 0 && pass < DTS_PASS_COUNT, "?");
  return ids[pass];
}

const char *
dts_cost_bound_id (DtsBound bound)
{
  static const char *const ids[] = { "-", "compute", "memory" };
  g_return_val_if_fail (bound >= DTS_BOUND_NONE && bound <= DTS_BOUND_MEMORY, "?");
  return ids[bound];
}

double
dts_cost_ridge_point (const DtsCost *cost, const DtsGpuSpec *gpu, DtsPrecision precision)
{
  const DtsFramework *fw = dts_cost_framework (cost);
  double bw = gpu->mem_bw_Bps * dts_framework_memory_eff (fw, gpu->chip, gpu->arch);
  if (!(bw > 0))
    return 0.0;
  return dts_gpu_spec_die_flops (gpu, precision)
         * dts_framework_compute_eff (fw, gpu->chip, gpu->arch, precision) / bw;
}

gboolean
dts_cost_layer_bounds (DtsCost *cost, const DtsLayer *layer, const DtsGpuSpec *gpu,
                       DtsPrecision precision, int batch, DtsLayerBounds *out, GError **error)
{
  *out = (DtsLayerBounds){ 0 };
  if (!dts_cost_layer_times (cost, layer, gpu, precision, batch, &out->times, error))
    return FALSE;
  const DtsLayerTimes *t = &out->times;
  /* fp8: the GEMMs of linear layers only (dts_cost_layer_times) */
  precision = dts_layer_precision (layer, precision);
  DtsPrecision gemm_precision = precision;
  const double time_s[DTS_PASS_COUNT] = { t->fwd_s, t->bwd_data_s, t->bwd_weight_s,
                                          t->update_s };
  /* What dts_cost_layer_times priced: the layer's kernels unless the
   * profile fuses them or it is the input's host time, and the gradient
   * sum. */
  gboolean own = g_strcmp0 (t->source, "fused") != 0 && g_strcmp0 (t->source, "framework") != 0;
  gboolean roofline = strcmp (dts_cost_id (cost), "roofline") == 0;
  const DtsFramework *fw = dts_cost_framework (cost);
  DtsLayerWork w = { 0 };
  if (own)
    dts_roofline_layer_work (layer, fw, precision, batch, &w);
  DtsKernelWork sum = { 0 };
  if (layer->type != DTS_LAYER_INPUT)
    dts_roofline_grad_sum_work (layer, dts_precision_non_gemm (precision), batch, &sum);
  /* and under fp8 the casts of a linear layer's GEMM operands */
  DtsKernelWork cast[2];
  memset (cast, 0, sizeof cast);
  if (own && gemm_precision == DTS_PREC_FP8) {
    dts_roofline_fp8_cast_work (layer, batch, FALSE, &cast[0]);
    dts_roofline_fp8_cast_work (layer, batch, TRUE, &cast[1]);
  }
  const DtsKernelWork *work[DTS_PASS_COUNT] = { &w.fwd, &w.bwd_data, &w.bwd_weight, &w.update };
  for (int p = 0; p < DTS_PASS_COUNT; p++) {
    DtsPassBound *b = &out->pass[p];
    b->time_s = time_s[p];
    DtsRooflineTerms terms = { 0 };
    if (roofline) {
      dts_roofline_kernel_terms (work[p], gpu, precision, fw, &terms);
      if (p == DTS_PASS_BWD_DATA)
        dts_roofline_kernel_terms (&sum, gpu, dts_precision_non_gemm (gemm_precision), fw,
                                   &terms);
      if (p <= DTS_PASS_BWD_DATA)
        dts_roofline_kernel_terms (&cast[p], gpu, DTS_PREC_BF16, fw, &terms);
      b->flops = terms.flops;
      b->bytes = terms.bytes;
      b->compute_bound_s = terms.compute_bound_s;
      b->memory_bound_s = terms.memory_bound_s;
      b->launch_s = terms.launch_s;
      if (terms.compute_bound_s > 0 || terms.memory_bound_s > 0)
        b->bound = terms.compute_bound_s >= terms.memory_bound_s ? DTS_BOUND_COMPUTE
                                                                 : DTS_BOUND_MEMORY;
    } else {
      b->flops = work[p]->flops + (p == DTS_PASS_BWD_DATA ? sum.flops : 0.0)
                 + (p <= DTS_PASS_BWD_DATA ? cast[p].flops : 0.0);
      b->bytes = work[p]->bytes + (p == DTS_PASS_BWD_DATA ? sum.bytes : 0.0)
                 + (p <= DTS_PASS_BWD_DATA ? cast[p].bytes : 0.0);
    }
  }
  return TRUE;
}
