/* attention.c - the rate of a fused attention kernel.
 *
 * Model: a fused (FlashAttention-style) kernel of implementation I with head
 * dimension d over sequences of s tokens, forward, runs at
 *   R = P x a(I, d) x s / (s + s0(I, d))
 * P: the GPU's dense fp16/bf16 peak (the kernel computes in 16 bits whatever
 *   the run's precision: FP8 attention, off by default in Transformer
 *   Engine, is not modelled).
 * a: the share of that peak long sequences reach; s0: the sequence length at
 *   which half of it is reached (short sequences give each thread block less
 *   work over which to spread its prologue and epilogue).
 * Both are fitted by bench/fit-attention.py per implementation and head
 *   dimension (64, 128, 256) on the FlashAttention-3 paper's forward
 *   figures for the H100 SXM5 (attention_kernel_tflops.csv, panel "a" of
 *   each head dimension; whether those panels are causal the source does not
 *   state); between two fitted head dimensions a and s0 are interpolated
 *   linearly in log2 d, outside them the nearest is taken. The errors on
 *   the fitted rows and on held-out ones are in doc/COST-MODELS.md.
 * Backward: 0.80 of the forward rate, an assumption, not a fit (the
 *   FlashAttention-2 and -3 papers' H100 backward figures run 15-25% below
 *   their forward ones; no backward rate is in the data). The backward
 *   FLOPs (layers.c) count the kernel's recomputation of Q K^T.
 * Causal masking: the FLOPs count only the blocks a causal kernel runs
 *   (layers.c); the rate is the fitted one either way.
 * Architectures: measured on Hopper (the H100; the H200 has the same SMs
 *   and clocks). Blackwell takes Hopper's shares of its own peak
 *   (dts_gpu_arch_stand_in), an assumption the run prints; any other
 *   architecture has nothing measured and its attention stays priced as a
 *   GEMM at the profile's compute efficiency (roofline.c), which the run
 *   also prints. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "cost/attention.h"

#define ATTENTION_BACKWARD_RATIO 0.80

static const char *const names[DTS_ATTENTION_KERNEL_COUNT] = { "gemm", "flash2", "flash3",
                                                                "cudnn" };

/* bench/fit-attention.py's constants, 4 significant digits: share a and
 * half-rate sequence s0 at head dimensions 64, 128, 256 (H100 SXM5). */
static const int head_dims[] = { 64, 128, 256 };
static const struct {
  double a, s0;
} constants[DTS_ATTENTION_KERNEL_COUNT][3] = {
  [DTS_ATTENTION_FLASH2] = { { 0.3302, 81.25 }, { 0.3823, 114.8 }, { 0.3093, 241.4 } },
  [DTS_ATTENTION_FLASH3] = { { 0.5125, 267.7 }, { 0.6698, 212.0 }, { 0.6804, 590.6 } },
  [DTS_ATTENTION_CUDNN] = { { 0.4233, 128.1 }, { 0.6249, 125.0 }, { 0.5250, 338.0 } },
};

static const char *const measured[] = { "Hopper" };

const char *
dts_attention_kernel_name (DtsAttentionKernel k)
{
  return k >= 0 && k < DTS_ATTENTION_KERNEL_COUNT ? names[k] : "?";
}

char *
dts_attention_kernel_list (void)
{
  GString *s = g_string_new (NULL);
  for (int k = 0; k < DTS_ATTENTION_KERNEL_COUNT; k++)
    g_string_append_printf (s, "%s%s",
                            k == 0 ? "" : k + 1 < DTS_ATTENTION_KERNEL_COUNT ? ", " : " or ",
                            names[k]);
  return g_string_free (s, FALSE);
}

gboolean
dts_attention_kernel_from_string (const char *s, DtsAttentionKernel *out)
{
  for (int k = 0; s != NULL && k < DTS_ATTENTION_KERNEL_COUNT; k++)
    if (strcmp (s, names[k]) == 0) {
      *out = k;
      return TRUE;
    }
  return FALSE;
}

static const char *
measured_arch (const char *arch)
{
  for (guint i = 0; arch != NULL && i < G_N_ELEMENTS (measured); i++)
    if (g_ascii_strcasecmp (arch, measured[i]) == 0)
      return measured[i];
  return NULL;
}

const char *
dts_attention_measured_arch (const DtsGpuSpec *gpu)
{
  const char *own = measured_arch (gpu->arch);
  return own != NULL ? own : measured_arch (dts_gpu_arch_stand_in (gpu->arch));
}

double
dts_attention_share (const DtsGpuSpec *gpu, DtsAttentionKernel k, double head_dim, double seq,
                     gboolean backward)
{
  if (k <= DTS_ATTENTION_GEMM || k >= DTS_ATTENTION_KERNEL_COUNT || !(head_dim > 0)
      || !(seq > 0) || dts_attention_measured_arch (gpu) == NULL)
    return 0.0;
  /* a and s0 at HEAD_DIM: linear in log2 d between the fitted dimensions */
  const int n = G_N_ELEMENTS (head_dims);
  double a, s0;
  if (head_dim <= head_dims[0]) {
    a = constants[k][0].a, s0 = constants[k][0].s0;
  } else if (head_dim >= head_dims[n - 1]) {
    a = constants[k][n - 1].a, s0 = constants[k][n - 1].s0;
  } else {
    int i = 0;
    while (head_dim > head_dims[i + 1])
      i++;
    double w = log2 (head_dim / head_dims[i]) / log2 ((double) head_dims[i + 1] / head_dims[i]);
    a = constants[k][i].a + w * (constants[k][i + 1].a - constants[k][i].a);
    s0 = constants[k][i].s0 + w * (constants[k][i + 1].s0 - constants[k][i].s0);
  }
  return a * seq / (seq + s0) * (backward ? ATTENTION_BACKWARD_RATIO : 1.0);
}
