/* mlp.c - the `mlp` cost model: kernel-time networks trained on measured
 * cuDNN/cuBLAS times, carried to other GPUs by roofline ratios.
 *
 * Model. For a layer on a GPU at a precision:
 *   - convolutions (one group) and fully connected layers: each pass is a
 *     kernel (conv forward / backward-data / backward-filter; an fc layer with
 *     I inputs, O outputs at batch B is the GEMMs fwd M=O N=B K=I (N,N),
 *     bwd-data M=I N=B K=O (T,N), bwd-filter M=O N=I K=B (N,T)); its time
 *     is predicted by the network of that kernel class on the serving GPU;
 *   - no data gradient for a layer that reads the model input;
 *   - every other layer, grouped convolutions and the optimizer update are
 *     priced by the roofline model (cost/roofline.c), since no kernel class
 *     was trained for them.
 * Serving GPU: the GPU itself when networks were trained on it at the
 * precision (fp32 networks also serve tf32, fp16 ones bf16), else the
 * trained GPU nearest in |ln(peak FLOP/s ratio)| + |ln(bandwidth ratio)|.
 * Its prediction is multiplied by the roofline ratio of the two GPUs for
 * that kernel (dts_roofline_ratio: compute-bound kernels scale with peak
 * FLOP/s, memory-bound ones with bandwidth). The ratio is exactly 1 for the
 * trained GPU itself unless its numbers were overridden (what-if runs).
 * Leave-one-GPU-out tests chose this over a device-conditioned network
 * (doc/COST-MODELS.md): the conditioned network fails badly outside the
 * range of GPUs it saw, and A100/H100/H200 are all outside it.
 * Sizes outside the training range (DeepBench convolutions have batch 4..32;
 * its GEMMs have k >= 512): the network is asked at the nearest size inside
 * the range and its answer multiplied by the ratio of the roofline times
 * (launch overhead included) of the actual kernel and that one on the
 * serving GPU, so a compute-bound kernel at twice the largest trained batch
 * takes twice as long, while one far below the range costs about what the
 * smallest trained one costs (launch-dominated). The rule is on the
 * batch-like dimensions only (conv n; GEMM m, n, k); other sizes are left to
 * the network, unless they are far outside what it was trained on: a layer
 * kernel one of whose features (logarithms of sizes, after the batch rule)
 * lies more than ln 4 beyond the [min, max] of the training points (a size
 * over 4x the largest or under 1/4 of the smallest trained) at every
 * trained batch is priced by the roofline instead, with one warning on
 * stderr per process (dts_mlp_far_outside; doc/COST-MODELS.md).
 * Batch rule of layer times: a larger batch never takes less time. The
 * networks are not monotone in the batch, neither inside their range (a
 * GEMM at n = 46 can come out faster than at n = 45) nor when carried to
 * another GPU (the roofline ratio switches between compute- and memory-bound
 * with the batch), so a layer kernel's time at batch B is taken from its
 * times at the powers of two 1, 2, 4, ...: at each power of two the largest
 * time at that and every smaller power of two, between two powers of two
 * the straight line joining them. The result never falls as the batch grows
 * (tests/unit/test-cost-monotone.c), equals the network's answer at a power
 * of two whenever the answers up to it rise, and is linear in the batch
 * between powers of two (a compute-bound kernel's time is). Anchor times
 * are kept per set (kernel geometry, pass, GPU numbers, precision), so a
 * layer costs at most log2(B) + 2 network evaluations once per process.
 * dts_mlp_set_kernel_time, which `dtsim cost eval` compares with measured
 * kernels, gives the network's own answer, without this rule.
 *
 * Networks are loaded once per process per directory, on first use, and
 * kept until exit; predictions take a lock (FANN networks hold their
 * activations, so one network cannot run twice at once). */
#include "config.h"

#include <fann.h>
#include <math.h>
#include <string.h>

#include "core/autocleanups.h"
#include "core/datadir.h"
#include "core/error.h"
#include "core/xml.h"
#include "cost/cost-private.h"
#include "cost/mlp-private.h"
#include "cost/roofline.h"

/* Which trained precision serves a requested one. */
static const DtsPrecision served_by[DTS_PREC_COUNT] = {
  [DTS_PREC_FP32] = DTS_PREC_FP32,
  [DTS_PREC_TF32] = DTS_PREC_FP32,
  [DTS_PREC_FP16] = DTS_PREC_FP16,
  [DTS_PREC_BF16] = DTS_PREC_FP16,
  [DTS_PREC_FP8] = DTS_PREC_FP16, /* scaled by the roofline to the FP8 rate */
};

void
dts_mlp_gpu_to_spec (const DtsMlpGpu *g, DtsGpuSpec *spec)
{
  *spec = (DtsGpuSpec){ 0 };
  spec->id = g->id;
  spec->full_name = g->id;
  for (int p = 0; p < DTS_PREC_COUNT; p++)
    if (served_by[p] == g->precision)
      spec->peak_flops[p] = g->peak_flops;
  spec->mem_bw_Bps = g->mem_bw_Bps;
  spec->sm_count = g->sm_count;
}

double
dts_mlp_gpu_distance (double flops_a, double bw_a, double flops_b, double bw_b)
{
  return fabs (log (flops_a / flops_b)) + fabs (log (bw_a / bw_b));
}

/* ---- the set ------------------------------------------------------------- */

void
dts_mlp_gpu_free (DtsMlpGpu *g)
{
  if (g == NULL)
    return;
  dts_mlp_gpu_clear (g);
  g_free (g);
}

static void
gpu_free (gpointer p)
{
  dts_mlp_gpu_free (p);
}

static void
net_free (gpointer p)
{
  dts_mlp_net_free (p);
}

DtsMlpSet *
dts_mlp_set_new (gboolean owns)
{
  DtsMlpSet *set = g_new0 (DtsMlpSet, 1);
  set->gpus = g_ptr_array_new_with_free_func (owns ? gpu_free : NULL);
  set->nets = g_ptr_array_new_with_free_func (owns ? net_free : NULL);
  set->anchors = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                        (GDestroyNotify) g_bytes_unref,
                                        (GDestroyNotify) g_array_unref);
  return set;
}

void
dts_mlp_set_free (DtsMlpSet *set)
{
  if (set == NULL)
    return;
  g_free (set->dir);
  g_ptr_array_unref (set->gpus);
  g_ptr_array_unref (set->nets);
  g_hash_table_unref (set->anchors);
  g_free (set);
}

guint
dts_mlp_set_n_networks (const DtsMlpSet *set)
{
  return set->nets->len;
}

guint
dts_mlp_set_n_gpus (const DtsMlpSet *set)
{
  return set->gpus->len;
}

const DtsMlpGpu *
dts_mlp_set_find_gpu (const DtsMlpSet *set, const char *id, DtsPrecision precision)
{
  for (guint i = 0; i < set->gpus->len; i++) {
    const DtsMlpGpu *g = g_ptr_array_index (set->gpus, i);
    if (g->precision == precision && g_ascii_strcasecmp (g->id, id) == 0)
      return g;
  }
  return NULL;
}

const DtsMlpNet *
dts_mlp_set_find_net (const DtsMlpSet *set, const char *gpu_id, DtsPrecision precision,
                      DtsKernelClass klass)
{
  for (guint i = 0; i < set->nets->len; i++) {
    const DtsMlpNet *n = g_ptr_array_index (set->nets, i);
    if (n->klass == klass && n->precision == precision && n->gpu_id != NULL
        && g_ascii_strcasecmp (n->gpu_id, gpu_id) == 0)
      return n;
  }
  return NULL;
}

/* The trained GPU record that serves GPU at precision P for kernel class
 * KLASS (see the header): only records with a network of that class count. */
static const DtsMlpGpu *
serving_gpu (const DtsMlpSet *set, const DtsGpuSpec *gpu, DtsPrecision p, DtsKernelClass klass)
{
  DtsPrecision tp = served_by[p];
  const DtsMlpGpu *own = dts_mlp_set_find_gpu (set, gpu->id, tp);
  if (own != NULL && dts_mlp_set_find_net (set, own->id, tp, klass) != NULL)
    return own;
  const double flops = dts_gpu_spec_flops (gpu, p, NULL);
  const DtsMlpGpu *best = NULL;
  double best_d = INFINITY;
  for (guint i = 0; i < set->gpus->len; i++) {
    const DtsMlpGpu *g = g_ptr_array_index (set->gpus, i);
    if (g->precision != tp || dts_mlp_set_find_net (set, g->id, tp, klass) == NULL)
      continue;
    double d = dts_mlp_gpu_distance (flops, gpu->mem_bw_Bps, g->peak_flops, g->mem_bw_Bps);
    if (d < best_d) { /* strict: ties go to the first in manifest order */
      best = g;
      best_d = d;
    }
  }
  return best;
}

const char *
dts_mlp_set_source_gpu (DtsMlpSet *set, const DtsGpuSpec *gpu, DtsPrecision precision,
                        DtsKernelClass klass)
{
  const DtsMlpGpu *g = serving_gpu (set, gpu, precision, klass);
  return g ? g->id : NULL;
}

/* ---- prediction ---------------------------------------------------------- */

/* Roofline work of KERNEL (what the roofline model charges for it). */
static DtsKernelWork
kernel_work (const DtsKernel *kernel, DtsPrecision precision)
{
  DtsLayer layer;
  int batch = 0;
  DtsLayerWork w;
  dts_kernel_to_layer (kernel, &layer, &batch);
  dts_layer_work (&layer, precision, batch, &w);
  switch (kernel->klass) {
  case DTS_KERNEL_CONV_BWD_DATA:
    return w.bwd_data;
  case DTS_KERNEL_CONV_BWD_FILTER:
    return w.bwd_weight;
  default:
    return w.fwd;
  }
}

static int
clamp_int (int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

/* KERNEL with its batch-like sizes moved into NET's training range. */
static DtsKernel
clamp_kernel (const DtsMlpNet *net, const DtsKernel *kernel)
{
  DtsKernel k = *kernel;
  if (dts_kernel_class_is_conv (k.klass)) {
    k.conv.n = clamp_int (k.conv.n, net->dim_min[0], net->dim_max[0]);
  } else {
    k.gemm.m = clamp_int (k.gemm.m, net->dim_min[0], net->dim_max[0]);
    k.gemm.n = clamp_int (k.gemm.n, net->dim_min[1], net->dim_max[1]);
    k.gemm.k = clamp_int (k.gemm.k, net->dim_min[2], net->dim_max[2]);
  }
  return k;
}

double
dts_mlp_net_predict (const DtsMlpNet *net, const DtsMlpGpu *gpu, const DtsKernel *kernel,
                     DtsPrecision precision)
{
  DtsKernel k = clamp_kernel (net, kernel);
  double x[DTS_KERNEL_MAX_FEATURES + DTS_MLP_N_GPU_FEATURES];
  dts_mlp_inputs (&k, precision, net->gpu_id == NULL ? gpu : NULL, x);
  double t = dts_mlp_time_from_target (&k, dts_mlp_net_run (net, x));
  if (memcmp (&k, kernel, sizeof k) != 0) {
    DtsGpuSpec spec;
    dts_mlp_gpu_to_spec (gpu, &spec);
    DtsKernelWork w_in = kernel_work (&k, precision);
    DtsKernelWork w_out = kernel_work (kernel, precision);
    /* with the launch overhead, which does not shrink with the kernel */
    t *= dts_roofline_kernel_time (&w_out, &spec, precision)
         / dts_roofline_kernel_time (&w_in, &spec, precision);
  }
  return t;
}

int
dts_mlp_far_outside (const DtsMlpNet *net, const DtsKernel *kernel, DtsPrecision precision,
                     double *value)
{
  /* The geometry decides, not the batch: too large even at the smallest
   * trained batch, or too small even at the largest, so that a layer keeps
   * one model at every batch (times stay monotone in the batch). GEMMs have
   * only batch-like sizes, all moved into the range by the batch rule. */
  DtsKernel hi = clamp_kernel (net, kernel), lo = hi;
  if (dts_kernel_class_is_conv (kernel->klass)) {
    hi.conv.n = net->dim_min[0];
    lo.conv.n = net->dim_max[0];
  }
  double xh[DTS_KERNEL_MAX_FEATURES + DTS_MLP_N_GPU_FEATURES];
  double xl[DTS_KERNEL_MAX_FEATURES + DTS_MLP_N_GPU_FEATURES];
  dts_mlp_inputs (&hi, precision, NULL, xh);
  dts_mlp_inputs (&lo, precision, NULL, xl);
  guint n = MIN (dts_kernel_n_features (kernel->klass), net->n_inputs);
  for (guint i = 0; i < n; i++) {
    double v = xh[i] > net->max[i] + DTS_MLP_FAR_MARGIN   ? xh[i]
               : xl[i] < net->min[i] - DTS_MLP_FAR_MARGIN ? xl[i]
                                                          : NAN;
    if (!isnan (v)) {
      if (value)
        *value = v;
      return (int) i;
    }
  }
  return -1;
}

static const char *
source_name (const char *gpu_id, gboolean scaled)
{
  g_autofree char *s = g_strdup_printf ("mlp:%s%s", gpu_id, scaled ? "*roofline" : "");
  return g_intern_string (s);
}

gboolean
dts_mlp_set_kernel_time (DtsMlpSet *set, const DtsKernel *kernel, const DtsGpuSpec *gpu,
                         DtsPrecision precision, double *time_s, const char **source,
                         GError **error)
{
  if (!dts_kernel_check (kernel, error))
    return FALSE;
  if (gpu->mem_bw_Bps <= 0 || dts_gpu_spec_flops (gpu, precision, NULL) <= 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "GPU '%s' has no positive peak FLOP/s or memory bandwidth", gpu->id);
    return FALSE;
  }
  const DtsMlpGpu *g = serving_gpu (set, gpu, precision, kernel->klass);
  const DtsMlpNet *net =
      g ? dts_mlp_set_find_net (set, g->id, g->precision, kernel->klass) : NULL;
  if (net == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_NOT_FOUND,
                 "kernel models '%s': no %s network for %s (none trained at that precision)",
                 set->dir ? set->dir : "(memory)", dts_kernel_class_to_string (kernel->klass),
                 dts_precision_to_string (served_by[precision]));
    return FALSE;
  }
  double t = dts_mlp_net_predict (net, g, kernel, precision);
  DtsGpuSpec from;
  dts_mlp_gpu_to_spec (g, &from);
  DtsKernelWork w = kernel_work (kernel, precision);
  double ratio = dts_roofline_ratio (&w, &from, gpu, precision);
  *time_s = t * ratio;
  *source = source_name (g->id, g_ascii_strcasecmp (g->id, gpu->id) != 0 || ratio != 1.0);
  return TRUE;
}

/* The kernels of a conv or fc layer, per phase (klass of an absent phase is
 * DTS_KERNEL_CLASS_COUNT). FALSE if the layer is not one the networks cover. */
static gboolean
layer_kernels (const DtsLayer *l, int batch, DtsKernel k[3])
{
  if (l->type == DTS_LAYER_CONV && l->groups <= 1) {
    DtsConvShape c = {
      .n = batch, .c = l->in_shape.c, .h = l->in_shape.h, .w = l->in_shape.w,
      .k = l->out_shape.c, .r = l->kernel_h, .s = l->kernel_w, .pad_h = l->pad_h,
      .pad_w = l->pad_w, .stride_h = l->stride_h, .stride_w = l->stride_w,
    };
    k[0] = (DtsKernel){ .klass = DTS_KERNEL_CONV_FWD, .conv = c };
    k[1] = (DtsKernel){ .klass = DTS_KERNEL_CONV_BWD_DATA, .conv = c };
    k[2] = (DtsKernel){ .klass = DTS_KERNEL_CONV_BWD_FILTER, .conv = c };
  } else if (l->type == DTS_LAYER_FC) {
    const int in = (int) l->in_elems;
    const int out = l->out_shape.c * l->out_shape.h * l->out_shape.w;
    k[0] = (DtsKernel){ .klass = DTS_KERNEL_GEMM, .gemm = { out, batch, in, FALSE, FALSE } };
    k[1] = (DtsKernel){ .klass = DTS_KERNEL_GEMM, .gemm = { in, batch, out, TRUE, FALSE } };
    k[2] = (DtsKernel){ .klass = DTS_KERNEL_GEMM, .gemm = { out, in, batch, FALSE, TRUE } };
  } else {
    return FALSE;
  }
  if (l->bwd_data_flops <= 0)
    k[1].klass = DTS_KERNEL_CLASS_COUNT;
  return TRUE;
}

/* The time of pass PASS (0 forward, 1 backward-data, 2 backward-filter) of
 * LAYER at BATCH under the batch rule (top of the file). */
static gboolean
layer_kernel_time (DtsMlpSet *set, const DtsLayer *layer, int pass, int batch,
                   const DtsGpuSpec *gpu, DtsPrecision precision, double *time_s,
                   const char **source, GError **error)
{
  DtsKernel k[3];
  if (!layer_kernels (layer, 1, k))
    g_return_val_if_reached (FALSE);
  /* the key: the kernel at batch 1 and every number of the GPU, then its id */
  struct {
    DtsKernel kernel;
    double peak_flops[DTS_PREC_COUNT], mem_bw_Bps, mem_bytes;
    int sm_count, precision;
  } key;
  memset (&key, 0, sizeof key);
  key.kernel = k[pass];
  memcpy (key.peak_flops, gpu->peak_flops, sizeof key.peak_flops);
  key.mem_bw_Bps = gpu->mem_bw_Bps;
  key.mem_bytes = gpu->mem_bytes;
  key.sm_count = gpu->sm_count;
  key.precision = precision;
  g_autoptr (GByteArray) kb = g_byte_array_new ();
  g_byte_array_append (kb, (const guint8 *) &key, sizeof key);
  if (gpu->id)
    g_byte_array_append (kb, (const guint8 *) gpu->id, strlen (gpu->id));
  g_autoptr (GBytes) bytes = g_byte_array_free_to_bytes (g_steal_pointer (&kb));
  GArray *a = g_hash_table_lookup (set->anchors, bytes);
  if (a == NULL) {
    a = g_array_new (FALSE, FALSE, sizeof (DtsMlpAnchor));
    g_hash_table_insert (set->anchors, g_bytes_ref (bytes), a);
  }
  int j = 0;
  while (j < 30 && (1 << j) < batch)
    j++;
  while ((int) a->len <= j) {
    DtsKernel kj[3];
    layer_kernels (layer, 1 << a->len, kj);
    DtsMlpAnchor an;
    if (!dts_mlp_set_kernel_time (set, &kj[pass], gpu, precision, &an.time_s, &an.source, error))
      return FALSE;
    if (a->len > 0)
      an.time_s = MAX (an.time_s, g_array_index (a, DtsMlpAnchor, a->len - 1).time_s);
    g_array_append_val (a, an);
  }
  const DtsMlpAnchor *hi = &g_array_index (a, DtsMlpAnchor, j);
  *source = hi->source;
  if ((1 << j) <= batch || j == 0) {
    *time_s = hi->time_s;
    return TRUE;
  }
  const DtsMlpAnchor *lo = &g_array_index (a, DtsMlpAnchor, j - 1);
  const int b_lo = 1 << (j - 1);
  *time_s = lo->time_s + (hi->time_s - lo->time_s) * (double) (batch - b_lo) / b_lo;
  return TRUE;
}

/* As dts_mlp_set_layer_times, the roofline-priced parts under profile FW. */
static gboolean
mlp_set_layer_times_fw (DtsMlpSet *set, const DtsLayer *layer, const DtsGpuSpec *gpu,
                        DtsPrecision precision, int batch, const DtsFramework *fw,
                        DtsLayerTimes *out, GError **error)
{
  /* The roofline prices what the networks do not cover, and checks the GPU
   * and batch the same way for every layer. */
  if (!dts_cost_roofline_class.layer_times (NULL, layer, gpu, precision, batch, fw, out, error))
    return FALSE;
  DtsKernel k[3];
  if (!layer_kernels (layer, batch, k))
    return TRUE;
  double *slot[3] = { &out->fwd_s, &out->bwd_data_s, &out->bwd_weight_s };
  for (int i = 0; i < 3; i++) {
    if (k[i].klass == DTS_KERNEL_CLASS_COUNT) {
      *slot[i] = 0;
      continue;
    }
    const DtsMlpGpu *g = serving_gpu (set, gpu, precision, k[i].klass);
    const DtsMlpNet *net = g ? dts_mlp_set_find_net (set, g->id, g->precision, k[i].klass) : NULL;
    double v = 0;
    int f = net ? dts_mlp_far_outside (net, &k[i], precision, &v) : -1;
    if (f >= 0) {
      /* keep the roofline's time for this kernel */
      static gsize warned = 0;
      if (g_once_init_enter (&warned)) {
        g_printerr ("dtsim: warning: layer '%s' (%s): %s = %.2f is far outside the %s mlp "
                    "network's training range [%.2f, %.2f]; priced by the roofline (further "
                    "such kernels are not reported)\n",
                    layer->name ? layer->name : "?", dts_kernel_class_to_string (k[i].klass),
                    net->input_names[f], v, g->id, net->min[f], net->max[f]);
        g_once_init_leave (&warned, 1);
      }
      continue;
    }
    g_autoptr (GError) local = NULL;
    if (!layer_kernel_time (set, layer, i, batch, gpu, precision, slot[i], &out->source,
                            &local)) {
      g_set_error (error, DTS_ERROR, local->code, "layer '%s': %s",
                   layer->name ? layer->name : "?", local->message);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
dts_mlp_set_layer_times (DtsMlpSet *set, const DtsLayer *layer, const DtsGpuSpec *gpu,
                         DtsPrecision precision, int batch, DtsLayerTimes *out, GError **error)
{
  return mlp_set_layer_times_fw (set, layer, gpu, precision, batch, NULL, out, error);
}

/* ---- manifest reading ---------------------------------------------------- */

typedef struct {
  const char *path;
  const char *dir;
} Ctx;

static gboolean G_GNUC_PRINTF (4, 5)
fail (const Ctx *ctx, xmlNode *node, GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "kernel-model manifest '%s': line %d: %s",
               ctx->path, dts_xml_line (node), msg);
  return FALSE;
}

static gboolean
attr_str (const Ctx *ctx, xmlNode *node, const char *name, char **out, GError **error)
{
  *out = dts_xml_get_attr (node, name);
  if (*out == NULL || **out == '\0') {
    g_clear_pointer (out, g_free);
    return fail (ctx, node, error, "<%s> has no attribute '%s'", (const char *) node->name,
                 name);
  }
  return TRUE;
}

static gboolean
attr_double (const Ctx *ctx, xmlNode *node, const char *name, gboolean positive, double *out,
             GError **error)
{
  g_autofree char *s = NULL;
  if (!attr_str (ctx, node, name, &s, error))
    return FALSE;
  char *end = NULL;
  double v = g_ascii_strtod (s, &end);
  if (*end != '\0' || !isfinite (v) || (positive && v <= 0))
    return fail (ctx, node, error, "<%s> attribute '%s': expected a %snumber, got '%s'",
                 (const char *) node->name, name, positive ? "positive " : "", s);
  *out = v;
  return TRUE;
}

static gboolean
attr_int (const Ctx *ctx, xmlNode *node, const char *name, int *out, GError **error)
{
  double v = 0;
  if (!attr_double (ctx, node, name, FALSE, &v, error))
    return FALSE;
  if (v != floor (v) || v < 0 || v > G_MAXINT)
    return fail (ctx, node, error, "<%s> attribute '%s': expected a non-negative integer",
                 (const char *) node->name, name);
  *out = (int) v;
  return TRUE;
}

static gboolean
attr_precision (const Ctx *ctx, xmlNode *node, const char *name, DtsPrecision *out,
                GError **error)
{
  g_autofree char *s = NULL;
  g_autoptr (GError) local = NULL;
  if (!attr_str (ctx, node, name, &s, error))
    return FALSE;
  if (!dts_precision_from_string (s, out, &local))
    return fail (ctx, node, error, "%s", local->message);
  return TRUE;
}

static gboolean
read_gpu (const Ctx *ctx, xmlNode *node, DtsMlpSet *set, GError **error)
{
  g_autoptr (DtsMlpGpu) g = g_new0 (DtsMlpGpu, 1);
  if (!attr_str (ctx, node, "id", &g->id, error)
      || !attr_precision (ctx, node, "precision", &g->precision, error)
      || !attr_precision (ctx, node, "math", &g->math, error)
      || !attr_double (ctx, node, "peak-flops", TRUE, &g->peak_flops, error)
      || !attr_double (ctx, node, "math-peak-flops", TRUE, &g->math_peak_flops, error)
      || !attr_double (ctx, node, "mem-bw-Bps", TRUE, &g->mem_bw_Bps, error)
      || !attr_int (ctx, node, "sm-count", &g->sm_count, error))
    return FALSE;
  g->deepbench_device = dts_xml_get_attr (node, "deepbench-device");
  if (g->precision != served_by[g->precision])
    return fail (ctx, node, error, "<gpu> precision must be fp32 or fp16");
  if (g->sm_count < 1)
    return fail (ctx, node, error, "<gpu> sm-count must be at least 1");
  if (dts_mlp_set_find_gpu (set, g->id, g->precision) != NULL)
    return fail (ctx, node, error, "GPU '%s' is listed twice for %s", g->id,
                 dts_precision_to_string (g->precision));
  g_ptr_array_add (set->gpus, g_steal_pointer (&g));
  return TRUE;
}

static gboolean
read_inputs (const Ctx *ctx, xmlNode *node, DtsMlpNet *net, GError **error)
{
  guint i = 0;
  gboolean have_output = FALSE;
  for (xmlNode *c = node->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE)
      continue;
    const char *name = (const char *) c->name;
    if (strcmp (name, "input") == 0) {
      g_autofree char *iname = NULL;
      if (!attr_str (ctx, c, "name", &iname, error))
        return FALSE;
      if (i >= net->n_inputs || strcmp (iname, net->input_names[i]) != 0) {
        g_autofree char *want = g_strjoinv (", ", net->input_names);
        return fail (ctx, c, error, "input %u is '%s', but a %s network takes (%s)", i + 1,
                     iname, dts_kernel_class_to_string (net->klass), want);
      }
      if (!attr_double (ctx, c, "mean", FALSE, &net->mean[i], error)
          || !attr_double (ctx, c, "std", TRUE, &net->std[i], error)
          || !attr_double (ctx, c, "min", FALSE, &net->min[i], error)
          || !attr_double (ctx, c, "max", FALSE, &net->max[i], error))
        return FALSE;
      i++;
    } else if (strcmp (name, "output") == 0) {
      g_autofree char *oname = NULL;
      if (!attr_str (ctx, c, "name", &oname, error))
        return FALSE;
      if (strcmp (oname, DTS_MLP_TARGET_NAME) != 0)
        return fail (ctx, c, error, "output is '%s', expected '%s'", oname,
                     DTS_MLP_TARGET_NAME);
      if (!attr_double (ctx, c, "mean", FALSE, &net->out_mean, error)
          || !attr_double (ctx, c, "std", TRUE, &net->out_std, error))
        return FALSE;
      have_output = TRUE;
    } else if (strcmp (name, "range") == 0) {
      g_autofree char *dim = NULL;
      if (!attr_str (ctx, c, "dim", &dim, error))
        return FALSE;
      int d = dts_mlp_range_dim_index (net->klass, dim);
      if (d < 0)
        return fail (ctx, c, error, "unknown range dimension '%s' for a %s network", dim,
                     dts_kernel_class_to_string (net->klass));
      if (!attr_int (ctx, c, "min", &net->dim_min[d], error)
          || !attr_int (ctx, c, "max", &net->dim_max[d], error))
        return FALSE;
      if (net->dim_min[d] < 1 || net->dim_max[d] < net->dim_min[d])
        return fail (ctx, c, error, "range of '%s' must satisfy 1 <= min <= max", dim);
    } else {
      return fail (ctx, c, error, "unexpected <%s> in <network> (expected input, output, range)",
                   name);
    }
  }
  if (i != net->n_inputs) {
    g_autofree char *want = g_strjoinv (", ", net->input_names);
    return fail (ctx, node, error, "%u <input> elements, but a %s network takes %u (%s)", i,
                 dts_kernel_class_to_string (net->klass), net->n_inputs, want);
  }
  if (!have_output)
    return fail (ctx, node, error, "<network> has no <output>");
  for (guint d = 0; d < dts_mlp_n_range_dims (net->klass); d++)
    if (net->dim_max[d] < 1)
      return fail (ctx, node, error, "<network> has no <range dim='%s'>",
                   dts_mlp_range_dim_name (net->klass, d));
  return TRUE;
}

static gboolean
read_network (const Ctx *ctx, xmlNode *node, DtsMlpSet *set, GError **error)
{
  g_autofree char *klass_s = NULL, *gpu_id = NULL, *file = NULL, *sha = NULL;
  DtsPrecision precision;
  DtsKernelClass klass;
  g_autoptr (GError) local = NULL;
  if (!attr_str (ctx, node, "class", &klass_s, error)
      || !attr_str (ctx, node, "gpu", &gpu_id, error)
      || !attr_precision (ctx, node, "precision", &precision, error)
      || !attr_str (ctx, node, "file", &file, error)
      || !attr_str (ctx, node, "sha256", &sha, error))
    return FALSE;
  if (!dts_kernel_class_from_string (klass_s, &klass, &local))
    return fail (ctx, node, error, "%s", local->message);
  if (dts_mlp_set_find_gpu (set, gpu_id, precision) == NULL)
    return fail (ctx, node, error, "network for GPU '%s' at %s, which no <gpu> describes",
                 gpu_id, dts_precision_to_string (precision));
  if (dts_mlp_set_find_net (set, gpu_id, precision, klass) != NULL)
    return fail (ctx, node, error, "a second %s network for GPU '%s' at %s", klass_s, gpu_id,
                 dts_precision_to_string (precision));
  if (strchr (file, '/') != NULL || file[0] == '.')
    return fail (ctx, node, error, "network file '%s' must be a plain name in the directory",
                 file);
  g_autoptr (DtsMlpNet) net = dts_mlp_net_new (klass, precision, gpu_id);
  if (!read_inputs (ctx, node, net, error))
    return FALSE;
  /* provenance: not needed to predict, but checked when present */
  if (!dts_xml_get_int (node, "train-points", FALSE, &net->train_points, "network", ctx->path,
                        error)
      || !dts_xml_get_int (node, "validation-points", FALSE, &net->validation_points,
                           "network", ctx->path, error))
    return FALSE;
  g_autofree char *path = g_build_filename (ctx->dir, file, NULL);
  if (!dts_mlp_net_load_fann (net, path, sha, error)) {
    g_prefix_error (error, "kernel-model manifest '%s': line %d: ", ctx->path,
                    dts_xml_line (node));
    return FALSE;
  }
  g_ptr_array_add (set->nets, g_steal_pointer (&net));
  return TRUE;
}

DtsMlpSet *
dts_mlp_set_load (const char *dir, GError **error)
{
  g_autofree char *path = g_build_filename (dir, DTS_MLP_MANIFEST, NULL);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_NOT_FOUND,
                 "kernel models '%s': no such directory (train them with 'dtsim cost train')",
                 dir);
    return NULL;
  }
  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_NOT_FOUND,
                 "kernel-model manifest '%s': no such file (train the models with 'dtsim cost "
                 "train')",
                 path);
    return NULL;
  }
  g_autoptr (xmlDoc) doc = dts_xml_load (path, "kernel-model manifest", error);
  if (doc == NULL)
    return NULL;
  Ctx ctx = { path, dir };
  xmlNode *root = xmlDocGetRootElement (doc);
  if (root == NULL || xmlStrcmp (root->name, (const xmlChar *) "kernel-models") != 0) {
    fail (&ctx, root, error, "root element is <%s>, expected <kernel-models>",
          root ? (const char *) root->name : "");
    return NULL;
  }
  int version = 0;
  if (!attr_int (&ctx, root, "version", &version, error))
    return NULL;
  if (version != DTS_MLP_MANIFEST_VERSION) {
    fail (&ctx, root, error, "version %d, this dtsim reads version %d", version,
          DTS_MLP_MANIFEST_VERSION);
    return NULL;
  }
  g_autoptr (DtsMlpSet) set = dts_mlp_set_new (TRUE);
  set->dir = g_strdup (dir);
  for (xmlNode *c = root->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE)
      continue;
    const char *name = (const char *) c->name;
    if (strcmp (name, "gpu") == 0) {
      if (!read_gpu (&ctx, c, set, error))
        return NULL;
    } else if (strcmp (name, "network") == 0) {
      if (!read_network (&ctx, c, set, error))
        return NULL;
    } else if (strcmp (name, "data") != 0 && strcmp (name, "training") != 0) {
      fail (&ctx, c, error, "unexpected <%s> (expected data, training, gpu, network)", name);
      return NULL;
    }
  }
  if (set->nets->len == 0) {
    fail (&ctx, root, error, "no <network>");
    return NULL;
  }
  return g_steal_pointer (&set);
}

char *
dts_mlp_default_dir (void)
{
  return g_build_filename (dts_datadir_get (), "platforms", "kernel-models", NULL);
}

/* One set per directory for the whole process; never freed (the networks
 * are small and a process uses one or two directories). */
static GMutex shared_lock;
static GHashTable *shared_sets;

DtsMlpSet *
dts_mlp_set_get_shared (const char *dir, GError **error)
{
  g_mutex_lock (&shared_lock);
  if (shared_sets == NULL)
    shared_sets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  DtsMlpSet *set = g_hash_table_lookup (shared_sets, dir);
  if (set == NULL) {
    set = dts_mlp_set_load (dir, error);
    if (set != NULL)
      g_hash_table_insert (shared_sets, g_strdup (dir), set);
  }
  g_mutex_unlock (&shared_lock);
  return set;
}

/* ---- the cost-model row -------------------------------------------------- */

typedef struct {
  char *dir;
} MlpState;

static gpointer
mlp_init (GError **error)
{
  MlpState *s = g_new0 (MlpState, 1);
  /* DTSIM_KERNEL_MODELS: networks of `dtsim cost train -o DIR` in place of
   * the shipped ones (a GPU measured with tools/measure-kernels). */
  const char *env = g_getenv ("DTSIM_KERNEL_MODELS");
  s->dir = env != NULL && *env != '\0' ? g_strdup (env) : dts_mlp_default_dir ();
  return s;
}

static void
mlp_free (gpointer state)
{
  MlpState *s = state;
  if (s == NULL)
    return;
  g_free (s->dir);
  g_free (s);
}

static gboolean
mlp_layer_times (gpointer state, const DtsLayer *layer, const DtsGpuSpec *gpu,
                 DtsPrecision precision, int batch, const DtsFramework *fw, DtsLayerTimes *out,
                 GError **error)
{
  MlpState *s = state;
  DtsMlpSet *set = dts_mlp_set_get_shared (s->dir, error);
  if (set == NULL)
    return FALSE;
  g_mutex_lock (&shared_lock);
  gboolean ok = mlp_set_layer_times_fw (set, layer, gpu, precision, batch, fw, out, error);
  g_mutex_unlock (&shared_lock);
  return ok;
}

const DtsCostModelClass dts_cost_mlp_class = {
  .id = "mlp",
  .description = "per-kernel networks trained on DeepBench cuDNN/cuBLAS times, scaled by "
                 "roofline ratios to untrained GPUs; roofline for other layers",
  .init = mlp_init,
  .free = mlp_free,
  .layer_times = mlp_layer_times,
};
