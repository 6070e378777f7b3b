/* framework.c - framework profiles (framework.h): the built-in `generic`
 * profile and the reader of frameworks/ID.conf files.
 *
 * A profile file is lines of `key = value`; `#` starts a comment, blank lines
 * are ignored, every key is optional (unset keys keep `generic`'s value) and
 * may appear once.  Keys:
 *   description            free text
 *   validate-mape-MODEL    the profile's measured error under cost model
 *                          MODEL (roofline, roofline-gemm, mlp): the mean
 *                          of the MAPEs of `dtsim validate -F ID`'s sets,
 *                          in percent, [0, 1000]; printed by every run,
 *                          never used in a computation (checked by
 *                          tests/cli/framework-error.sh for the default)
 *   compute-efficiency-fp32, -tf32, -fp16, -bf16, -fp8
 *                          share of peak FLOP/s of conv and fc kernels, (0, 1];
 *                          fp8 (the GEMMs of linear layers) unset by default:
 *                          bf16's, as no FP8 kernels were measured
 *   memory-efficiency      share of peak bandwidth of other kernels, (0, 1]
 *   compute-efficiency-PREC-ARCH, memory-efficiency-ARCH
 *                          the same for the GPUs of one architecture (the
 *                          catalogue's arch: kepler, volta, ampere, ...)
 *                          or of one chip (its chip: ga100, ga102, ...); a
 *                          chip's key wins over its architecture's, which
 *                          wins over its stand-in's (dts_gpu_arch_stand_in:
 *                          a Blackwell GPU takes a Hopper key)
 *   wave-quantisation      yes|no: conv/fc kernels pay for whole waves of
 *                          tile x tile output blocks over the SMs
 *   tile                   that tile's edge in output elements (1..1024)
 *   launch-overhead        time per kernel launch ("5us")
 *   host-overhead          the host's time to issue one kernel ("30us"): a
 *                          pass or update takes at least its kernels x this,
 *                          the GPU waiting for a host slower than its
 *                          kernels (eager frameworks on small kernels); 0
 *                          by default: the host keeps ahead
 *   iteration-overhead     host time per iteration with the GPU idle ("2ms")
 *   fuse                   comma-separated layer kinds (relu, add, batchnorm,
 *                          dropout, relu6) that cost nothing of their own:
 *                          fused into the preceding kernel's epilogue
 *   gpu-speed-spread       coefficient of variation of the sustained speed of
 *                          GPUs of one model, [0, 0.5): synchronous data
 *                          parallelism runs at the pace of the slowest
 *                          (dts_framework_sync_slowdown)
 *   gradient-precision     fp32|fp16|bf16: the element gradient buckets
 *                          all-reduce (4 or 2 bytes per parameter; fp32 by
 *                          default, as DDP does with fp32 parameters)
 *   winograd-3x3           [1, 4]: the library runs the forward and
 *                          backward-data kernels of 3x3, stride-1, ungrouped
 *                          convolutions as Winograd transforms, which cost
 *                          the direct convolution's FLOPs divided by this
 *                          (Lavin and Gray, CVPR 2016: F(2x2,3x3) does 2.25x
 *                          fewer multiplications, F(4x4,3x3) 4x; the
 *                          transforms eat part of that); 1 (the default):
 *                          direct or implicit-GEMM convolution
 *   fft-convolution        yes|no: the library also has FFT convolutions
 *                          (cuDNN R3-R7's FFT and FFT_TILING algorithms) and
 *                          its auto-tuner takes the faster, per layer and
 *                          pass (roofline.c prices them); no by default
 *   winograd-convolution   yes|no: and Winograd ones for 3x3 stride-1
 *                          layers (cuDNN 5's fused F(2x2,3x3) and 5.1's
 *                          non-fused F(4x4,3x3)), priced the same way;
 *                          not with winograd-3x3, its flat stand-in
 *   attention-kernel       gemm|flash2|flash3|cudnn: the library the
 *                          framework's fused attention runs on, priced at
 *                          its measured rate on the GPU's architecture
 *                          (attention.c: FlashAttention-2, -3, cuDNN's
 *                          fused attention); gemm (the default) prices it
 *                          as a GEMM at the compute efficiency, as does an
 *                          architecture nothing was measured on
 *   cross-entropy          fused|torch-fp32|megatron|megatron-fused: the
 *                          passes the framework's cross-entropy loss makes
 *                          over the logits, and in which precision (loss.c);
 *                          fused (the default): one kernel each way */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/datadir.h"
#include "core/error.h"
#include "core/input.h"
#include "core/units.h"
#include "cost/cost.h"
#include "cost/framework.h"
#include "cost/roofline.h"
#include "platform/gpu.h"

static const DtsFramework generic = {
  .id = (char *) DTS_FRAMEWORK_GENERIC,
  .description = (char *) "the plain roofline: 70% of peak FLOP/s, 80% of peak bandwidth, "
                          "5 us per kernel, nothing fused, no host time",
  .compute_eff = { DTS_ROOFLINE_COMPUTE_EFF, DTS_ROOFLINE_COMPUTE_EFF, DTS_ROOFLINE_COMPUTE_EFF,
                   DTS_ROOFLINE_COMPUTE_EFF, 0 /* fp8: bf16's */ },
  .memory_eff = DTS_ROOFLINE_MEMORY_EFF,
  .waves = FALSE,
  .tile = 128,
  .launch_s = DTS_ROOFLINE_LAUNCH_S,
  .iteration_s = 0.0,
  .grad_precision = DTS_PREC_FP32,
  .winograd_3x3 = 1.0,
  /* dtsim validate -F generic (doc/VALIDATION.md parts 19 and 24) */
  .n_mape = 2,
  .mape = { { "roofline", 40.1 }, { "roofline-gemm", 41.3 } },
};

const DtsFramework *
dts_framework_generic (void)
{
  return &generic;
}

double
dts_framework_validate_mape (const DtsFramework *fw, const char *cost_model)
{
  for (int i = 0; cost_model != NULL && i < fw->n_mape; i++)
    if (strcmp (fw->mape[i].cost_model, cost_model) == 0)
      return fw->mape[i].pct;
  return -1;
}

void
dts_framework_free (DtsFramework *fw)
{
  if (fw == NULL || fw == &generic)
    return;
  g_free (fw->id);
  g_free (fw->description);
  g_free (fw);
}

static gboolean
parse_fraction (const char *v, double *out, const char *where, const char *key, GError **error)
{
  char *end;
  double x = dts_units_strtod (v, &end);
  if (end == v || *end != '\0' || !(x > 0 && x <= 1)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                 "%s: %s = '%s': expected a number in (0, 1]", where, key, v);
    return FALSE;
  }
  *out = x;
  return TRUE;
}

/* E[max of N standard normals] = integral of x N phi(x) Phi(x)^(N-1) dx,
 * by the midpoint rule over [-10, 10] (error far below 1e-6). */
static double
expected_max_normal (int n)
{
  if (n <= 1)
    return 0.0;
  const double lo = -10.0, hi = 10.0;
  const int steps = 20000;
  double h = (hi - lo) / steps, sum = 0.0;
  for (int i = 0; i < steps; i++) {
    double x = lo + (i + 0.5) * h;
    double phi = exp (-0.5 * x * x) / sqrt (2 * G_PI);
    double cdf = 0.5 * erfc (-x / G_SQRT2);
    sum += x * n * phi * pow (cdf, n - 1);
  }
  return sum * h;
}

double
dts_framework_sync_slowdown (const DtsFramework *fw, int n)
{
  if (fw == NULL || !(fw->speed_spread > 0) || n <= 1)
    return 1.0;
  return 1.0 + fw->speed_spread * expected_max_normal (n);
}

/* The index in FW->arch_eff of the override for CHIP, else for ARCH
 * (either may be NULL), else for the architecture that stands in for ARCH
 * (dts_gpu_arch_stand_in: Hopper's key for Blackwell), else -1. */
static int
arch_key (const DtsFramework *fw, const char *chip, const char *arch, gboolean memory,
          DtsPrecision precision)
{
  const char *names[] = { chip, arch, dts_gpu_arch_stand_in (arch) };
  for (guint n = 0; n < G_N_ELEMENTS (names); n++)
    for (int i = 0; names[n] != NULL && i < fw->n_arch; i++)
      if (fw->arch_eff[i].memory == memory && (memory || fw->arch_eff[i].precision == precision)
          && g_ascii_strcasecmp (fw->arch_eff[i].arch, names[n]) == 0)
        return i;
  return -1;
}

static double
arch_eff (const DtsFramework *fw, const char *chip, const char *arch, gboolean memory,
          DtsPrecision precision)
{
  int i = arch_key (fw, chip, arch, memory, precision);
  return i >= 0 ? fw->arch_eff[i].eff : -1;
}

char *
dts_framework_eff_key (const DtsFramework *fw, const char *chip, const char *arch,
                       gboolean memory, DtsPrecision precision)
{
  if (!memory && precision == DTS_PREC_FP8 && !dts_framework_has_eff (fw, chip, arch, precision))
    precision = DTS_PREC_BF16; /* borrowed: dts_framework_compute_eff */
  int i = arch_key (fw, chip, arch, memory, precision);
  g_autofree char *base = memory ? g_strdup ("memory-efficiency")
                                 : g_strdup_printf ("compute-efficiency-%s",
                                                    dts_precision_to_string (precision));
  if (i < 0)
    return g_steal_pointer (&base);
  g_autofree char *name = g_ascii_strdown (fw->arch_eff[i].arch, -1);
  return g_strdup_printf ("%s-%s", base, name);
}

gboolean
dts_framework_has_eff (const DtsFramework *fw, const char *chip, const char *arch,
                       DtsPrecision precision)
{
  return fw->compute_eff[precision] > 0 || arch_key (fw, chip, arch, FALSE, precision) >= 0;
}

double
dts_framework_compute_eff (const DtsFramework *fw, const char *chip, const char *arch,
                           DtsPrecision precision)
{
  if (precision == DTS_PREC_FP8 && !dts_framework_has_eff (fw, chip, arch, precision))
    precision = DTS_PREC_BF16;
  double e = arch_eff (fw, chip, arch, FALSE, precision);
  return e > 0 ? e : fw->compute_eff[precision];
}

double
dts_framework_memory_eff (const DtsFramework *fw, const char *chip, const char *arch)
{
  double e = arch_eff (fw, chip, arch, TRUE, DTS_PREC_FP32);
  return e > 0 ? e : fw->memory_eff;
}

/* KEY-ARCH = V: one per-architecture override of an efficiency. */
static gboolean
parse_arch_key (DtsFramework *fw, const char *key, const char *prefix, gboolean memory,
                DtsPrecision precision, const char *v, const char *where, GError **error)
{
  const char *arch = key + strlen (prefix) + 1;
  if (arch[0] == '\0' || strlen (arch) >= sizeof fw->arch_eff[0].arch) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                 "%s: %s: expected an architecture name of 1..%zu characters after '%s-'",
                 where, key, sizeof fw->arch_eff[0].arch - 1, prefix);
    return FALSE;
  }
  if (fw->n_arch >= DTS_FRAMEWORK_MAX_ARCH_KEYS) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                 "%s: %s: more than %d per-architecture efficiencies", where, key,
                 DTS_FRAMEWORK_MAX_ARCH_KEYS);
    return FALSE;
  }
  double eff;
  if (!parse_fraction (v, &eff, where, key, error))
    return FALSE;
  g_strlcpy (fw->arch_eff[fw->n_arch].arch, arch, sizeof fw->arch_eff[0].arch);
  fw->arch_eff[fw->n_arch].memory = memory;
  fw->arch_eff[fw->n_arch].precision = precision;
  fw->arch_eff[fw->n_arch].eff = eff;
  fw->n_arch++;
  return TRUE;
}

static gboolean
parse_key (DtsFramework *fw, const char *key, const char *v, const char *where, GError **error)
{
  for (int p = 0; p < DTS_PREC_COUNT; p++) {
    g_autofree char *k =
        g_strdup_printf ("compute-efficiency-%s", dts_precision_to_string ((DtsPrecision) p));
    if (strcmp (key, k) == 0)
      return parse_fraction (v, &fw->compute_eff[p], where, key, error);
    gsize n = strlen (k);
    if (strncmp (key, k, n) == 0 && key[n] == '-')
      return parse_arch_key (fw, key, k, FALSE, (DtsPrecision) p, v, where, error);
  }
  if (g_str_has_prefix (key, "memory-efficiency-"))
    return parse_arch_key (fw, key, "memory-efficiency", TRUE, DTS_PREC_FP32, v, where, error);
  if (strcmp (key, "description") == 0) {
    g_free (fw->description);
    fw->description = g_strdup (v);
    return TRUE;
  }
  if (strcmp (key, "memory-efficiency") == 0)
    return parse_fraction (v, &fw->memory_eff, where, key, error);
  if (g_str_has_prefix (key, "validate-mape-")) {
    const char *model = key + strlen ("validate-mape-");
    char *end;
    double x = dts_units_strtod (v, &end);
    if (dts_cost_model_lookup (model) == NULL) {
      g_autofree char *ids = dts_cost_model_ids ();
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                   "%s: %s: unknown cost model '%s' (expected validate-mape-MODEL with MODEL "
                   "one of %s)", where, key, model, ids);
      return FALSE;
    }
    if (end == v || *end != '\0' || !(x >= 0 && x <= 1000)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                   "%s: %s = '%s': expected a percentage in [0, 1000]", where, key, v);
      return FALSE;
    }
    if (fw->n_mape == DTS_FRAMEWORK_MAX_MAPES) { /* keys are given once: more models */
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s: %s: more than %d validate-mape keys",
                   where, key, DTS_FRAMEWORK_MAX_MAPES);
      return FALSE;
    }
    g_strlcpy (fw->mape[fw->n_mape].cost_model, model, sizeof fw->mape[0].cost_model);
    fw->mape[fw->n_mape++].pct = x;
    return TRUE;
  }
  if (strcmp (key, "wave-quantisation") == 0 || strcmp (key, "fft-convolution") == 0
      || strcmp (key, "winograd-convolution") == 0) {
    if (strcmp (v, "yes") == 0 || strcmp (v, "no") == 0) {
      gboolean *flag = key[0] == 'f' ? &fw->fft : key[1] == 'a' ? &fw->waves : &fw->winograd;
      *flag = strcmp (v, "yes") == 0;
      return TRUE;
    }
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s: %s = '%s': expected yes or no", where,
                 key, v);
    return FALSE;
  }
  if (strcmp (key, "tile") == 0) {
    int t;
    if (!dts_units_parse_int (v, &t, NULL) || t < 1 || t > 1024) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                   "%s: %s = '%s': expected an integer in 1..1024", where, key, v);
      return FALSE;
    }
    fw->tile = t;
    return TRUE;
  }
  if (strcmp (key, "launch-overhead") == 0 || strcmp (key, "iteration-overhead") == 0
      || strcmp (key, "host-overhead") == 0) {
    double t;
    g_autoptr (GError) local = NULL;
    if (!dts_units_parse (v, DTS_UNIT_TIME, &t, &local) || !(t < 1.0)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                   "%s: %s = '%s': expected a time below 1 s such as 5us or 2ms", where, key, v);
      return FALSE;
    }
    *(key[0] == 'l' ? &fw->launch_s : key[0] == 'h' ? &fw->host_s : &fw->iteration_s) = t;
    return TRUE;
  }
  if (strcmp (key, "gpu-speed-spread") == 0) {
    char *end;
    double x = dts_units_strtod (v, &end);
    if (end == v || *end != '\0' || !(x >= 0 && x < 0.5)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                   "%s: %s = '%s': expected a number in [0, 0.5)", where, key, v);
      return FALSE;
    }
    fw->speed_spread = x;
    return TRUE;
  }
  if (strcmp (key, "compute-efficiency-1x1") == 0)
    return parse_fraction (v, &fw->eff_1x1, where, key, error);
  if (strcmp (key, "compute-efficiency-1x1-wgrad") == 0)
    return parse_fraction (v, &fw->eff_1x1_wgrad, where, key, error);
  if (strcmp (key, "winograd-3x3") == 0) {
    char *end;
    double x = dts_units_strtod (v, &end);
    if (end == v || *end != '\0' || !(x >= 1 && x <= 4)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                   "%s: %s = '%s': expected a number in [1, 4] (1: no Winograd; 2.25: "
                   "F(2x2,3x3); 4: F(4x4,3x3))", where, key, v);
      return FALSE;
    }
    fw->winograd_3x3 = x;
    return TRUE;
  }
  if (strcmp (key, "attention-kernel") == 0) {
    if (!dts_attention_kernel_from_string (v, &fw->attention)) {
      g_autofree char *known = dts_attention_kernel_list ();
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s: %s = '%s': expected %s", where, key,
                   v, known);
      return FALSE;
    }
    return TRUE;
  }
  if (strcmp (key, "cross-entropy") == 0) {
    if (!dts_loss_kernel_from_string (v, &fw->loss)) {
      g_autofree char *known = dts_loss_kernel_list ();
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s: %s = '%s': expected %s", where, key,
                   v, known);
      return FALSE;
    }
    return TRUE;
  }
  if (strcmp (key, "gradient-precision") == 0) {
    DtsPrecision p;
    if (!dts_precision_from_string (v, &p, NULL) || p == DTS_PREC_TF32 || p == DTS_PREC_FP8) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                   "%s: %s = '%s': expected fp32, fp16 or bf16 (tf32 is stored as fp32)", where,
                   key, v);
      return FALSE;
    }
    fw->grad_precision = p;
    return TRUE;
  }
  if (strcmp (key, "fuse") == 0) {
    g_auto (GStrv) kinds = g_strsplit (v, ",", -1);
    for (guint i = 0; kinds[i]; i++) {
      g_strstrip (kinds[i]);
      DtsLayerType t;
      if (kinds[i][0] == '\0')
        continue;
      if (!dts_layer_type_from_string (kinds[i], &t) || !dts_layer_type_fusable (t)) {
        g_autofree char *known = dts_layer_fusable_ids ();
        g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                     "%s: fuse: '%s' is not a fusable layer kind (expected one of %s)", where,
                     kinds[i], known);
        return FALSE;
      }
      fw->fuse[t] = TRUE;
    }
    return TRUE;
  }
  g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
               "%s: unknown key '%s' (expected description, validate-mape-MODEL, "
               "compute-efficiency-fp32|tf32|fp16|"
               "bf16|fp8[-ARCH], compute-efficiency-1x1[-wgrad], memory-efficiency[-ARCH], "
               "wave-quantisation, tile, launch-overhead, host-overhead, iteration-overhead, "
               "fuse, "
               "gpu-speed-spread, gradient-precision, winograd-3x3, fft-convolution, "
               "winograd-convolution, attention-kernel or cross-entropy)",
               where, key);
  return FALSE;
}

DtsFramework *
dts_framework_parse (const char *text, const char *id, const char *file, GError **error)
{
  g_autoptr (DtsFramework) fw = g_new0 (DtsFramework, 1);
  *fw = generic;
  fw->id = g_strdup (id);
  fw->description = g_strdup ("");
  fw->n_mape = 0; /* generic's errors are its own */
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; lines[i]; i++) {
    char *line = lines[i];
    char *hash = strchr (line, '#');
    if (hash)
      *hash = '\0';
    g_strstrip (line);
    if (line[0] == '\0')
      continue;
    g_autofree char *where = g_strdup_printf ("framework profile '%s': line %u", file, i + 1);
    char *eq = strchr (line, '=');
    if (eq == NULL) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s: '%s': expected key = value", where,
                   line);
      return NULL;
    }
    *eq = '\0';
    char *key = g_strstrip (line), *value = g_strstrip (eq + 1);
    if (g_hash_table_contains (seen, key)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s: key '%s' given twice", where, key);
      return NULL;
    }
    g_hash_table_add (seen, g_strdup (key));
    if (!parse_key (fw, key, value, where, error))
      return NULL;
  }
  if (fw->winograd && fw->winograd_3x3 > 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                 "framework profile '%s': winograd-3x3 (one factor for every 3x3 layer) and "
                 "winograd-convolution (Winograd priced per layer) both set: give one",
                 file);
    return NULL;
  }
  return g_steal_pointer (&fw);
}

DtsFramework *
dts_framework_load (const char *id_or_path, GError **error)
{
  if (id_or_path == NULL) {
    /* the default is a shipped file: a data directory without it says so */
    g_autoptr (GError) local = NULL;
    DtsFramework *fw = dts_framework_load (DTS_FRAMEWORK_DEFAULT, &local);
    if (fw == NULL)
      g_set_error (error, local->domain, local->code,
                   "%s; it is the default profile (--framework generic is the built-in "
                   "plain roofline, which needs no file)",
                   local->message);
    return fw;
  }
  if (strcmp (id_or_path, DTS_FRAMEWORK_GENERIC) == 0) {
    DtsFramework *fw = g_new0 (DtsFramework, 1);
    *fw = generic;
    fw->id = g_strdup (generic.id);
    fw->description = g_strdup (generic.description);
    return fw;
  }
  g_autofree char *path =
      dts_datadir_resolve ("frameworks", id_or_path, ".conf", "framework profile", error);
  if (path == NULL)
    return NULL;
  g_autofree char *text = dts_input_read_text (path, "framework profile", NULL, error);
  if (text == NULL)
    return NULL;
  g_autofree char *base = g_path_get_basename (path);
  if (g_str_has_suffix (base, ".conf"))
    base[strlen (base) - 5] = '\0';
  return dts_framework_parse (text, base, path, error);
}
