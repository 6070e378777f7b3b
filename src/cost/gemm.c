/* gemm.c - GEMM time by shape and architecture, and the cost model
 * `roofline-gemm` that prices the linear layers of sequence models with it.
 *
 * Model: an (M x K) x (K x N) GEMM at precision P on GPU G takes
 *   t = max(2MNK / (C(G, P) x s x q), (MK + KN + MN) x b / (W x m)) + t0
 * C(G, P): the ceiling, the maximum achievable matmul rate. For the GPUs
 *   that ml_engineering_mamf.csv measured (github.com/stas00/ml-engineering,
 *   "Maximum Achievable Matmul FLOPS comparison table", BF16: the best of a
 *   shape search), C = the catalogue's rate at P x MAMF / the catalogue's
 *   BF16 rate: A100 SXM 271.2 of 312 TFLOP/s, A100 PCIe 252.9 of 312,
 *   H100 SXM 794.5 of 989.5 (the H200 measures as the H100, the table's
 *   note), B200 SXM 1745 of 2250, GB200 1822 of 2500; under fp8 the FP8
 *   MAMF over the FP8 rate: H100 1402.6 of 1979, H200 1453.4 of 1979, B200
 *   3432.5 of 4500, GB200 3615.6 of 5000. Any other GPU:
 *   0.80 x the die's peak at P, 0.80 being about the median MAMF / peak of
 *   the table's NVIDIA rows (0.73-0.87); a stated share, not a fit.
 * q: the wave quantisation, dts_gemm_wave_efficiency: the M x N output is
 *   cut into 128 x 128 thread-block tiles (cuBLAS's and CUTLASS's common
 *   Ampere/Hopper tile; a dimension under 128 gets the next power of two,
 *   at least 16), one tile per SM at a time; where the tiles do not fill
 *   the SMs, K is split into slices (split-K) to fill them, each slice at
 *   least 256 deep; waves = ceil(tiles x slices / SMs) and
 *   q = MN x slices / (waves x SMs x tile area), in (0, 1].
 * b: the precision's element size, for A, B and C each read or written
 *   once (the GEMM reads the half-precision weights, not fp32 masters).
 * W: peak memory bandwidth.
 * s, m, t0: fitted per architecture family (families[] below) by
 *   bench/fit-gemm.py on Vidur's measured fp16 forward GEMMs
 *   (vidur_op_times_median_ms.csv: QKV, attention output, MLP up and down
 *   projections of tensor-parallel shards, 1-32768 tokens), minimising the
 *   MAPE over the rows of the models Llama-2-7B, Llama-2-70B, Llama-3-70B
 *   and InternLM-20B only: Ampere on the A100, Hopper on the H100.
 *   Blackwell (B200, GB200), with no measured GEMMs, gets the constants of
 *   its stand-in, Hopper (dts_gpu_arch_stand_in), and the run says so
 *   (dts_cost_assumption); other architectures get the Ampere constants
 *   (the check that says what that costs: Ampere's constants on the H100,
 *   doc/COST-MODELS.md).
 * The errors on the held-out models, the A40 (no fit, its ceiling the
 * stated share) and the cross-generation check are in doc/COST-MODELS.md.
 *
 * Not modelled: tile shapes other than 128 x 128 and the library's choice
 * among them, stream-K, the split-K reduction's own traffic, L2 reuse,
 * clocks under power limits, transposes, epilogues (bias, activation).
 * Backward GEMMs are priced as forward ones of their shapes: nothing
 * measured says otherwise here.
 *
 * `roofline-gemm`: the roofline (roofline.c, with the framework profile)
 * for every layer, then the forward, data-gradient and weight-gradient
 * kernels of each `linear` layer (QKV, attention output, MLP, LM head;
 * tensor-parallel shards are the layer's split shape) by this model:
 * tokens x out x in forward, tokens x in x out for the data gradient,
 * out x in x tokens for the weights. The fixed time t0 replaces the
 * profile's launch cost for those kernels; its compute efficiencies do
 * not apply to them. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "cost/cost-private.h"
#include "cost/gemm.h"
#include "workload/work.h"

#define GEMM_TILE 128        /* thread-block tile edge */
#define GEMM_TILE_MIN 16     /* the least tile edge (a tensor-core MMA edge) */
#define GEMM_SPLIT_K_MIN 256 /* the least depth of a split-K slice */
#define GEMM_UNLISTED_SHARE 0.80

/* bench/fit-gemm.py's constants, 4 significant digits. */
static const DtsGemmFamily families[] = {
  { "Ampere", 0.9048, 0.7316, 3.551e-6, "A100" },
  { "Hopper", 0.9827, 0.8655, 5.654e-6, "H100" },
};

/* MAMF over the catalogue's rate (ml_engineering_mamf.csv), BF16 and, for
 * the GPUs with FP8 tensor cores, FP8 e4m3 (the table's own FP8 rows: the
 * H200's measured apart, its BF16 as the H100's by the table's note; the
 * catalogue's dense FP8 rates are the table's "theory" column). */
static const struct {
  const char *gpu_id, *arch; /* the catalogue's id and architecture */
  double mamf_tflops, catalogue_tflops;
  double fp8_mamf_tflops, fp8_catalogue_tflops; /* 0: no FP8 */
} ceilings[] = {
  { "A100-SXM4-40GB", "Ampere", 271.2, 312.0, 0, 0 },
  { "A100-SXM4-80GB", "Ampere", 271.2, 312.0, 0, 0 },
  { "A100-PCIE-40GB", "Ampere", 252.9, 312.0, 0, 0 },
  { "A100-PCIE-80GB", "Ampere", 252.9, 312.0, 0, 0 },
  { "H100-SXM5-80GB", "Hopper", 794.5, 989.5, 1402.6, 1979.0 },
  { "H200-SXM-141GB", "Hopper", 794.5, 989.5, 1453.4, 1979.0 },
  { "B200-SXM-180GB", "Blackwell", 1745.0, 2250.0, 3432.5, 4500.0 },
  { "GB200-186GB", "Blackwell", 1822.0, 2500.0, 3615.6, 5000.0 },
};

static const DtsGemmFamily *
family_of (const char *arch)
{
  for (guint i = 0; arch != NULL && i < G_N_ELEMENTS (families); i++)
    if (g_ascii_strcasecmp (arch, families[i].arch) == 0)
      return &families[i];
  return NULL;
}

const DtsGemmFamily *
dts_gemm_family (const DtsGpuSpec *gpu)
{
  const DtsGemmFamily *f = family_of (gpu->arch);
  if (f == NULL)
    f = family_of (dts_gpu_arch_stand_in (gpu->arch));
  return f != NULL ? f : &families[0];
}

gboolean
dts_gemm_family_is_own (const DtsGpuSpec *gpu)
{
  return family_of (gpu->arch) != NULL;
}

gboolean
dts_gemm_ceiling_is_measured (const DtsGpuSpec *gpu)
{
  for (guint i = 0; i < G_N_ELEMENTS (ceilings); i++)
    if (gpu->id != NULL && strcmp (gpu->id, ceilings[i].gpu_id) == 0)
      return TRUE;
  return FALSE;
}

double
dts_gemm_ceiling_flops (const DtsGpuSpec *gpu, DtsPrecision precision)
{
  double peak = dts_gpu_spec_die_flops (gpu, precision);
  for (guint i = 0; i < G_N_ELEMENTS (ceilings); i++)
    if (gpu->id != NULL && strcmp (gpu->id, ceilings[i].gpu_id) == 0) {
      if (precision == DTS_PREC_FP8 && ceilings[i].fp8_mamf_tflops > 0)
        return peak * (ceilings[i].fp8_mamf_tflops / ceilings[i].fp8_catalogue_tflops);
      return peak * (ceilings[i].mamf_tflops / ceilings[i].catalogue_tflops);
    }
  return peak * GEMM_UNLISTED_SHARE;
}

/* The FP8 to BF16 ratio of one listed GPU, or 0. */
static double
fp8_ratio_of (guint i)
{
  if (!(ceilings[i].fp8_mamf_tflops > 0))
    return 0;
  return (ceilings[i].fp8_mamf_tflops / ceilings[i].fp8_catalogue_tflops)
         / (ceilings[i].mamf_tflops / ceilings[i].catalogue_tflops);
}

double
dts_gemm_fp8_ratio (const DtsGpuSpec *gpu, const char **measured_on)
{
  for (guint i = 0; i < G_N_ELEMENTS (ceilings); i++)
    if (gpu->id != NULL && strcmp (gpu->id, ceilings[i].gpu_id) == 0 && fp8_ratio_of (i) > 0) {
      if (measured_on != NULL)
        *measured_on = ceilings[i].gpu_id;
      return fp8_ratio_of (i);
    }
  /* a GPU not listed: the mean of its architecture's measured GPUs, else
   * of its stand-in's, else none (1) */
  const char *archs[] = { gpu->arch, dts_gpu_arch_stand_in (gpu->arch) };
  for (guint a = 0; a < G_N_ELEMENTS (archs); a++) {
    double sum = 0;
    int n = 0;
    for (guint i = 0; archs[a] != NULL && i < G_N_ELEMENTS (ceilings); i++)
      if (g_ascii_strcasecmp (ceilings[i].arch, archs[a]) == 0 && fp8_ratio_of (i) > 0) {
        sum += fp8_ratio_of (i);
        n++;
      }
    if (n > 0) {
      if (measured_on != NULL)
        *measured_on = archs[a];
      return sum / n;
    }
  }
  if (measured_on != NULL)
    *measured_on = NULL;
  return 1.0;
}

static double
tile_edge (double x)
{
  return fmin (GEMM_TILE, fmax (GEMM_TILE_MIN, exp2 (ceil (log2 (x)))));
}

double
dts_gemm_wave_efficiency (double m, double n, double k, int sms)
{
  if (!(m > 0) || !(n > 0) || !(k > 0) || sms <= 0)
    return 1.0;
  double tm = tile_edge (m), tn = tile_edge (n);
  double tiles = ceil (m / tm) * ceil (n / tn);
  double split = 1;
  if (tiles < sms)
    split = fmax (1.0, fmin (floor (sms / tiles), floor (k / GEMM_SPLIT_K_MIN)));
  double waves = ceil (tiles * split / sms);
  return (m * n * split) / (waves * sms * tm * tn);
}

double
dts_gemm_time (double m, double n, double k, const DtsGpuSpec *gpu, DtsPrecision precision)
{
  if (!(m > 0) || !(n > 0) || !(k > 0))
    return 0.0;
  const DtsGemmFamily *f = dts_gemm_family (gpu);
  double tc = 2.0 * m * n * k
              / (dts_gemm_ceiling_flops (gpu, precision) * f->share
                 * dts_gemm_wave_efficiency (m, n, k, gpu->sm_count));
  double tm = (m * k + k * n + m * n) * dts_precision_elem_bytes (precision)
              / (gpu->mem_bw_Bps * f->mem_share);
  return fmax (tc, tm) + f->fixed_s;
}

static gboolean
roofline_gemm_layer_times (gpointer state, const DtsLayer *layer, const DtsGpuSpec *gpu,
                           DtsPrecision precision, int batch, const DtsFramework *fw,
                           DtsLayerTimes *out, GError **error)
{
  if (!dts_cost_roofline_class.layer_times (state, layer, gpu, precision, batch, fw, out, error))
    return FALSE;
  if (layer->type != DTS_LAYER_LINEAR)
    return TRUE;
  if (gpu->sm_count <= 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "GPU '%s' has no SM count: cost model roofline-gemm needs one", gpu->id);
    return FALSE;
  }
  DtsLayerWork w;
  dts_layer_work (layer, precision, batch, &w);
  double tok = (double) batch * MAX (layer->in_shape.seq, 1);
  double in = layer->in_shape.c, outc = layer->out_shape.c;
  out->fwd_s = w.fwd.kernels ? dts_gemm_time (tok, outc, in, gpu, precision) : 0.0;
  out->bwd_data_s = w.bwd_data.kernels ? dts_gemm_time (tok, in, outc, gpu, precision) : 0.0;
  out->bwd_weight_s = w.bwd_weight.kernels ? dts_gemm_time (outc, in, tok, gpu, precision) : 0.0;
  out->source = "gemm";
  return TRUE;
}

static void
roofline_gemm_assumed (const DtsGpuSpec *gpu, DtsPrecision precision, const char *stand_in,
                       GString *out)
{
  const DtsGemmFamily *f = dts_gemm_family (gpu);
  if (!dts_gemm_family_is_own (gpu))
    g_string_append_printf (out,
                            "; %s's GEMM constants (share %.4g, memory share %.4g, fixed "
                            "%.4g us, fitted on the %s)",
                            f->arch, f->share, f->mem_share, f->fixed_s * 1e6, f->fitted_on);
  if (!dts_gemm_ceiling_is_measured (gpu))
    g_string_append_printf (out, "; matmul ceiling %.2f x peak, not measured",
                            GEMM_UNLISTED_SHARE);
  (void) precision;
  (void) stand_in;
}

static void
roofline_gemm_assumed_fp8 (const DtsGpuSpec *gpu, GString *out)
{
  const char *on = NULL;
  dts_gemm_fp8_ratio (gpu, &on);
  if (g_strcmp0 (on, gpu->id) == 0 && on != NULL)
    g_string_append (out, "; linear layers' FP8 GEMMs at their measured FP8 matmul ceiling "
                          "with the GEMM constants fitted on BF16/FP16 GEMMs");
  else
    g_string_append (out, "; FP8 GEMMs reach the same share of the FP8 peak as BF16 GEMMs of the "
                          "BF16 peak (matmul ceiling and fitted GEMM constants)");
}

const DtsCostModelClass dts_cost_roofline_gemm_class = {
  .id = "roofline-gemm",
  .description = "roofline, but linear layers (QKV, projections, MLP, LM head) as GEMMs "
                 "by shape: max(2MNK/(MAMF ceiling x fitted share x 128x128-tile wave "
                 "quantisation), bytes/bandwidth) + fixed time, fitted per architecture on "
                 "Vidur's A100 and H100 GEMMs (doc/COST-MODELS.md)",
  .init = NULL,
  .free = NULL,
  .layer_times = roofline_gemm_layer_times,
  .assumed = roofline_gemm_assumed,
  .assumed_fp8 = roofline_gemm_assumed_fp8,
};
