/* kernel-data.c - DeepBench kernel-time CSVs, kernel shapes and features.
 *
 * Data: Baidu DeepBench (github.com/baidu-research/DeepBench, results/train),
 * converted from xlsx to CSV with the published times unmodified. Each time
 * is the mean of 300 (conv) or 400 (GEMM) back-to-back calls with the
 * fastest algorithm cuDNN/cuBLAS offered, on one GPU, in milliseconds.
 *
 * Device mapping (one table below). DeepBench names GPUs loosely; the form
 * factor of its P100 and V100 is not stated, and both are mapped to the PCIe
 * cards (the lower clocks of the two, which the SXM2 parts exceed by about
 * 10%): the roofline ratio carries their times to the SXM2 entries. The
 * P100's "pseudo FP16" rows store fp16 tensors but multiply in fp32, so their
 * arithmetic is bounded by the fp32 peak (math = fp32); V100 and T4 FP16 rows
 * use tensor cores (math = fp16).
 *
 * Bytes of a pass: each tensor it reads or writes, once (input, filter and
 * output for every convolution pass; A, B and C for a GEMM). cuDNN's
 * workspace and any re-reads are what the networks learn on top. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/input.h"
#include "core/units.h"
#include "cost/kernel-data.h"

static const char *const class_names[DTS_KERNEL_CLASS_COUNT] = {
  "conv-fwd", "conv-bwd-data", "conv-bwd-filter", "gemm",
};

const char *
dts_kernel_class_to_string (DtsKernelClass k)
{
  g_return_val_if_fail (k < DTS_KERNEL_CLASS_COUNT, "?");
  return class_names[k];
}

gboolean
dts_kernel_class_from_string (const char *s, DtsKernelClass *out, GError **error)
{
  for (int i = 0; i < DTS_KERNEL_CLASS_COUNT; i++) {
    if (g_strcmp0 (s, class_names[i]) == 0) {
      *out = (DtsKernelClass) i;
      return TRUE;
    }
  }
  g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
               "unknown kernel class '%s' (known: conv-fwd, conv-bwd-data, conv-bwd-filter, gemm)",
               s ? s : "");
  return FALSE;
}

gboolean
dts_kernel_class_is_conv (DtsKernelClass k)
{
  return k != DTS_KERNEL_GEMM;
}

int
dts_kernel_conv_out (int in, int pad, int r, int stride)
{
  if (stride <= 0)
    return 0;
  long span = (long) in + 2L * pad - r;
  return span < 0 ? 0 : (int) (span / stride + 1);
}

gboolean
dts_kernel_check (const DtsKernel *k, GError **error)
{
  if (dts_kernel_class_is_conv (k->klass)) {
    const DtsConvShape *c = &k->conv;
    const struct {
      const char *name;
      int v;
      int min;
    } sizes[] = {
      { "n", c->n, 1 },           { "c", c->c, 1 },           { "h", c->h, 1 },
      { "w", c->w, 1 },           { "k", c->k, 1 },           { "r", c->r, 1 },
      { "s", c->s, 1 },           { "pad_h", c->pad_h, 0 },   { "pad_w", c->pad_w, 0 },
      { "stride_h", c->stride_h, 1 }, { "stride_w", c->stride_w, 1 },
    };
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
      if (sizes[i].v < sizes[i].min) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                     "convolution size %s = %d (expected at least %d)", sizes[i].name,
                     sizes[i].v, sizes[i].min);
        return FALSE;
      }
    }
    if (dts_kernel_conv_out (c->h, c->pad_h, c->r, c->stride_h) < 1
        || dts_kernel_conv_out (c->w, c->pad_w, c->s, c->stride_w) < 1) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "convolution filter %dx%d does not fit the padded %dx%d input", c->r, c->s,
                   c->h + 2 * c->pad_h, c->w + 2 * c->pad_w);
      return FALSE;
    }
    return TRUE;
  }
  const DtsGemmShape *g = &k->gemm;
  if (g->m < 1 || g->n < 1 || g->k < 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "GEMM sizes m=%d n=%d k=%d (expected all at least 1)", g->m, g->n, g->k);
    return FALSE;
  }
  return TRUE;
}

static void
conv_out (const DtsConvShape *c, double *oh, double *ow)
{
  *oh = dts_kernel_conv_out (c->h, c->pad_h, c->r, c->stride_h);
  *ow = dts_kernel_conv_out (c->w, c->pad_w, c->s, c->stride_w);
}

double
dts_kernel_flops (const DtsKernel *k)
{
  if (dts_kernel_class_is_conv (k->klass)) {
    const DtsConvShape *c = &k->conv;
    double oh, ow;
    conv_out (c, &oh, &ow);
    return 2.0 * c->n * (double) c->k * c->c * c->r * c->s * oh * ow;
  }
  return 2.0 * (double) k->gemm.m * k->gemm.n * k->gemm.k;
}

double
dts_kernel_bytes (const DtsKernel *k, double elem_bytes)
{
  if (dts_kernel_class_is_conv (k->klass)) {
    const DtsConvShape *c = &k->conv;
    double oh, ow;
    conv_out (c, &oh, &ow);
    double in = (double) c->n * c->c * c->h * c->w;
    double filt = (double) c->k * c->c * c->r * c->s;
    double out = (double) c->n * c->k * oh * ow;
    return (in + filt + out) * elem_bytes;
  }
  const DtsGemmShape *g = &k->gemm;
  return ((double) g->m * g->k + (double) g->k * g->n + (double) g->m * g->n) * elem_bytes;
}

/* A convolution is seen as the implicit GEMM cuDNN runs for it: N*OH*OW rows,
 * K columns, a reduction over C*R*S; the filter area and stride separately
 * (they pick Winograd/FFT/direct algorithms), whether the filter is 1x1 (a
 * plain GEMM for cuDNN, no im2col: a regime of its own that ln_rs = 0 alone
 * did not separate well), and the roofline coordinates. Fewer inputs than
 * sizes on purpose: with about 60 development shapes per network, these
 * eight generalised to unseen layers better than the eleven raw sizes, and
 * no other candidate (Winograd eligibility, output area, ln N, ln C, channel
 * counts divisible by 8, padding overhead, FLOPs per sample) helped in the
 * k-fold runs inside the development split (doc/COST-MODELS.md). */
static const char *const conv_features[] = {
  "ln_n_out_hw", "ln_k", "ln_c_rs", "ln_rs", "ln_stride", "is_1x1", "ln_bytes",
  "ln_flops_per_byte", NULL,
};
static const char *const gemm_features[] = {
  "ln_m", "ln_n", "ln_k", "trans_a", "trans_b", "ln_flops", "ln_bytes", "ln_flops_per_byte", NULL,
};

const char *const *
dts_kernel_feature_names (DtsKernelClass k)
{
  return dts_kernel_class_is_conv (k) ? conv_features : gemm_features;
}

guint
dts_kernel_n_features (DtsKernelClass k)
{
  return g_strv_length ((char **) dts_kernel_feature_names (k));
}

void
dts_kernel_features (const DtsKernel *kernel, double elem_bytes, double *out)
{
  const double flops = dts_kernel_flops (kernel);
  const double bytes = dts_kernel_bytes (kernel, elem_bytes);
  guint i = 0;
  if (dts_kernel_class_is_conv (kernel->klass)) {
    const DtsConvShape *c = &kernel->conv;
    double oh, ow;
    conv_out (c, &oh, &ow);
    out[i++] = log (c->n * oh * ow);
    out[i++] = log (c->k);
    out[i++] = log ((double) c->c * c->r * c->s);
    out[i++] = log ((double) c->r * c->s);
    out[i++] = log ((double) c->stride_h * c->stride_w);
    out[i++] = c->r == 1 && c->s == 1 ? 1.0 : 0.0;
  } else {
    const DtsGemmShape *g = &kernel->gemm;
    out[i++] = log (g->m);
    out[i++] = log (g->n);
    out[i++] = log (g->k);
    out[i++] = g->trans_a ? 1.0 : 0.0;
    out[i++] = g->trans_b ? 1.0 : 0.0;
    out[i++] = log (flops);
  }
  out[i++] = log (bytes);
  out[i++] = log (flops / bytes);
  g_assert (i == dts_kernel_n_features (kernel->klass));
}

void
dts_kernel_to_layer (const DtsKernel *kernel, DtsLayer *layer, int *batch)
{
  *layer = (DtsLayer){ 0 };
  layer->groups = 1;
  if (dts_kernel_class_is_conv (kernel->klass)) {
    const DtsConvShape *c = &kernel->conv;
    double oh, ow;
    conv_out (c, &oh, &ow);
    layer->type = DTS_LAYER_CONV;
    layer->in_shape = (DtsShape){ c->c, c->h, c->w, 0 };
    layer->out_shape = (DtsShape){ c->k, (int) oh, (int) ow, 0 };
    layer->kernel_h = c->r;
    layer->kernel_w = c->s;
    layer->stride_h = c->stride_h;
    layer->stride_w = c->stride_w;
    layer->pad_h = c->pad_h;
    layer->pad_w = c->pad_w;
    layer->params = (double) c->k * c->c * c->r * c->s;
    layer->macs = layer->params * oh * ow;
    layer->in_elems = (double) c->c * c->h * c->w;
    layer->out_elems = (double) c->k * oh * ow;
    *batch = c->n;
  } else {
    /* As the forward GEMM of a fully connected layer: M outputs, K inputs,
     * N samples (transposes change the access pattern, not the counts). */
    const DtsGemmShape *g = &kernel->gemm;
    layer->type = DTS_LAYER_FC;
    layer->in_shape = (DtsShape){ g->k, 1, 1, 0 };
    layer->out_shape = (DtsShape){ g->m, 1, 1, 0 };
    layer->params = (double) g->m * g->k;
    layer->macs = layer->params;
    layer->in_elems = g->k;
    layer->out_elems = g->m;
    *batch = g->n;
  }
  layer->fwd_flops = 2.0 * layer->macs;
  layer->bwd_data_flops = 2.0 * layer->macs;
  layer->bwd_weight_flops = 2.0 * layer->macs;
  layer->act_elems = layer->out_elems;
}

static guint32
fnv1a (guint32 h, int v)
{
  guint32 u = (guint32) v;
  for (int i = 0; i < 4; i++) {
    h ^= (u >> (8 * i)) & 0xffu;
    h *= 16777619u;
  }
  return h;
}

guint32
dts_kernel_shape_key (const DtsKernel *k, gboolean without_batch)
{
  guint32 h = 2166136261u;
  if (dts_kernel_class_is_conv (k->klass)) {
    const DtsConvShape *c = &k->conv;
    const int v[] = { without_batch ? 0 : c->n, c->c, c->h, c->w, c->k, c->r, c->s,
                      c->pad_h, c->pad_w, c->stride_h, c->stride_w };
    h = fnv1a (h, 1);
    for (guint i = 0; i < G_N_ELEMENTS (v); i++)
      h = fnv1a (h, v[i]);
  } else {
    const DtsGemmShape *g = &k->gemm;
    const int v[] = { g->m, g->n, g->k, g->trans_a, g->trans_b };
    h = fnv1a (h, 2);
    for (guint i = 0; i < G_N_ELEMENTS (v); i++)
      h = fnv1a (h, v[i]);
  }
  return h;
}

/* ---- the device table ---------------------------------------------------- */

static const DtsKernelDevice devices[] = {
  { "Nvidia Tesla M40", "Float", "M40", DTS_PREC_FP32, DTS_PREC_FP32, NULL, 0 },
  { "Nvidia TitanX", "Float", "TitanX-Maxwell", DTS_PREC_FP32, DTS_PREC_FP32, NULL, 0 },
  { "Nvidia TitanX Pascal", "Float", "TitanX-Pascal", DTS_PREC_FP32, DTS_PREC_FP32, NULL, 0 },
  { "NVIDIA GTX TitanXp", "Float", "TitanXp", DTS_PREC_FP32, DTS_PREC_FP32, NULL, 0 },
  { "NVIDIA GTX 1080 Ti", "Float", "GTX1080Ti", DTS_PREC_FP32, DTS_PREC_FP32, NULL, 0 },
  { "NVIDIA Tesla P100", "Float", "P100-PCIE-16GB", DTS_PREC_FP32, DTS_PREC_FP32, NULL, 0 },
  { "NVIDIA Tesla P100", "16 bit inputs, 32 bit multiplication, 32 bit addition",
    "P100-PCIE-16GB", DTS_PREC_FP16, DTS_PREC_FP32, NULL, 0 },
  { "NVIDIA V100", "Float", "V100-PCIE-16GB", DTS_PREC_FP32, DTS_PREC_FP32, NULL, 0 },
  { "NVIDIA V100", "16 bit inputs, 16 bit multiplication, 32 bit addition", "V100-PCIE-16GB",
    DTS_PREC_FP16, DTS_PREC_FP16, NULL, 0 },
  { "NVIDIA T4", "Float", "T4", DTS_PREC_FP32, DTS_PREC_FP32, NULL, 0 },
  { "NVIDIA T4", "16 bit inputs, 16 bit multiplication, 32 bit addition", "T4", DTS_PREC_FP16,
    DTS_PREC_FP16, NULL, 0 },
  { NULL, NULL, NULL, 0, 0, NULL, 0 },
};

const DtsKernelDevice *
dts_kernel_devices (void)
{
  return devices;
}

guint
dts_kernel_n_devices (void)
{
  return G_N_ELEMENTS (devices) - 1;
}

/* The index in DATA's devices of a row's DEVICE and PRECISION, adding a
 * measured device on its first row; -1 for rows of no device dtsim learns
 * from, -2 with ERROR set past DTS_KERNEL_MAX_DEVICES. */
static int
device_index (DtsKernelData *data, const char *device, const char *precision, const char *path,
              int line, GError **error)
{
  for (guint i = 0; i < data->devices->len; i++) {
    const DtsKernelDevice *d = &g_array_index (data->devices, DtsKernelDevice, i);
    if (strcmp (d->deepbench_device, device) == 0
        && strcmp (d->deepbench_precision, precision) == 0)
      return (int) i;
  }
  DtsPrecision p;
  if (!dts_precision_from_string (precision, &p, NULL) || *device == '\0')
    return -1;
  if (data->devices->len >= DTS_KERNEL_MAX_DEVICES) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "kernel data '%s': line %d: more than %d (GPU, precision) pairs in one data set",
                 path, line, DTS_KERNEL_MAX_DEVICES);
    return -2;
  }
  const char *name = g_string_chunk_insert_const (data->names, device);
  DtsKernelDevice d = { .deepbench_device = name,
                        .deepbench_precision = g_string_chunk_insert_const (data->names,
                                                                            precision),
                        .gpu_id = name, .precision = p, .math = p,
                        .file = g_string_chunk_insert_const (data->names, path), .line = line };
  g_array_append_val (data->devices, d);
  return (int) data->devices->len - 1;
}

/* ---- CSV reading ------------------------------------------------------- */

GPtrArray *
dts_kernel_csv_split (const char *line)
{
  GPtrArray *fields = g_ptr_array_new_with_free_func (g_free);
  const char *p = line;
  for (;;) {
    GString *f = g_string_new (NULL);
    if (*p == '"') {
      p++;
      while (*p) {
        if (*p == '"' && p[1] == '"') {
          g_string_append_c (f, '"');
          p += 2;
        } else if (*p == '"') {
          p++;
          break;
        } else {
          g_string_append_c (f, *p++);
        }
      }
    }
    while (*p && *p != ',')
      g_string_append_c (f, *p++);
    g_ptr_array_add (fields, g_string_free (f, FALSE));
    if (*p != ',')
      break;
    p++;
  }
  return fields;
}

typedef struct {
  const char *path;
  int line;
  GPtrArray *fields;
  GPtrArray *header;
} CsvRow;

static const char *
csv_get (const CsvRow *row, const char *column)
{
  for (guint i = 0; i < row->header->len; i++)
    if (strcmp (g_ptr_array_index (row->header, i), column) == 0)
      return i < row->fields->len ? g_ptr_array_index (row->fields, i) : "";
  g_return_val_if_reached ("");
}

static gboolean
csv_has (const CsvRow *row, const char *column)
{
  for (guint i = 0; i < row->header->len; i++)
    if (strcmp (g_ptr_array_index (row->header, i), column) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
csv_int (const CsvRow *row, const char *column, int min, int *out, GError **error)
{
  const char *s = csv_get (row, column);
  char *end = NULL;
  errno = 0;
  long v = strtol (s, &end, 10);
  if (*s == '\0' || *end != '\0' || errno != 0 || v < min || v > G_MAXINT) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                 "kernel data '%s': line %d: column '%s': expected an integer >= %d, got '%s'",
                 row->path, row->line, column, min, s);
    return FALSE;
  }
  *out = (int) v;
  return TRUE;
}

/* A time in ms; empty means "not measured" (*PRESENT FALSE). */
static gboolean
csv_time (const CsvRow *row, const char *column, double *out_s, gboolean *present,
          GError **error)
{
  const char *s = csv_get (row, column);
  *present = FALSE;
  if (*s == '\0')
    return TRUE;
  char *end = NULL;
  double v = dts_units_strtod (s, &end);
  if (*end != '\0' || !isfinite (v) || v <= 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                 "kernel data '%s': line %d: column '%s': expected a positive time in ms or "
                 "nothing, got '%s'",
                 row->path, row->line, column, s);
    return FALSE;
  }
  *out_s = v * 1e-3;
  *present = TRUE;
  return TRUE;
}

static gboolean
csv_trans (const CsvRow *row, const char *column, gboolean *out, GError **error)
{
  const char *s = csv_get (row, column);
  if (strcmp (s, "N") == 0 || strcmp (s, "T") == 0) {
    *out = s[0] == 'T';
    return TRUE;
  }
  g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
               "kernel data '%s': line %d: column '%s': expected N or T, got '%s'", row->path,
               row->line, column, s);
  return FALSE;
}

static gboolean
add_point (DtsKernelData *data, const CsvRow *row, const DtsKernel *k, guint device,
           const char *column, GError **error)
{
  DtsKernelPoint p = { .kernel = *k, .device = device, .line = row->line };
  gboolean present;
  if (!csv_time (row, column, &p.time_s, &present, error))
    return FALSE;
  if (present)
    g_array_append_val (data->points, p);
  return TRUE;
}

static gboolean
read_conv_row (DtsKernelData *data, const CsvRow *row, guint device, GError **error)
{
  DtsKernel k = { .klass = DTS_KERNEL_CONV_FWD };
  DtsConvShape *c = &k.conv;
  /* Grouped (depthwise) convolutions of measured data: not a dense
   * convolution's time. */
  int groups = 1;
  if (csv_has (row, "groups") && !csv_int (row, "groups", 1, &groups, error))
    return FALSE;
  if (groups != 1)
    return TRUE;
  if (!csv_int (row, "N", 1, &c->n, error) || !csv_int (row, "C", 1, &c->c, error)
      || !csv_int (row, "H", 1, &c->h, error) || !csv_int (row, "W", 1, &c->w, error)
      || !csv_int (row, "K", 1, &c->k, error) || !csv_int (row, "filter_h", 1, &c->r, error)
      || !csv_int (row, "filter_w", 1, &c->s, error)
      || !csv_int (row, "pad_h", 0, &c->pad_h, error)
      || !csv_int (row, "pad_w", 0, &c->pad_w, error)
      || !csv_int (row, "stride_h", 1, &c->stride_h, error)
      || !csv_int (row, "stride_w", 1, &c->stride_w, error))
    return FALSE;
  g_autoptr (GError) local = NULL;
  if (!dts_kernel_check (&k, &local)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "kernel data '%s': line %d: %s", row->path,
                 row->line, local->message);
    return FALSE;
  }
  static const struct {
    DtsKernelClass klass;
    const char *column;
  } passes[] = {
    { DTS_KERNEL_CONV_FWD, "fwd_ms" },
    { DTS_KERNEL_CONV_BWD_DATA, "bwd_data_ms" },
    { DTS_KERNEL_CONV_BWD_FILTER, "bwd_filter_ms" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (passes); i++) {
    k.klass = passes[i].klass;
    if (!add_point (data, row, &k, device, passes[i].column, error))
      return FALSE;
  }
  return TRUE;
}

static gboolean
read_gemm_row (DtsKernelData *data, const CsvRow *row, guint device, GError **error)
{
  DtsKernel k = { .klass = DTS_KERNEL_GEMM };
  DtsGemmShape *g = &k.gemm;
  if (!csv_int (row, "M", 1, &g->m, error) || !csv_int (row, "N", 1, &g->n, error)
      || !csv_int (row, "K", 1, &g->k, error) || !csv_trans (row, "transA", &g->trans_a, error)
      || !csv_trans (row, "transB", &g->trans_b, error))
    return FALSE;
  return add_point (data, row, &k, device, "time_ms", error);
}

typedef gboolean (*RowReader) (DtsKernelData *data, const CsvRow *row, guint device,
                               GError **error);

static gboolean
read_csv (DtsKernelData *data, const char *path, const char *const *required, RowReader reader,
          char **source, char **sha256, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr (GError) local = NULL;
  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO,
                 "kernel data '%s': no such file (expected DeepBench's CSV files, "
                 "deepbench_conv.csv and deepbench_gemm.csv, or conv.csv and gemm.csv as "
                 "tools/measure-kernels writes them, in the data directory)",
                 path);
    return FALSE;
  }
  if ((text = dts_input_read_text (path, "kernel data", &len, error)) == NULL)
    return FALSE;
  *sha256 = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) text, len);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GPtrArray) header = NULL;
  int lineno = 0;
  for (char **l = lines; *l; l++) {
    lineno++;
    g_strchomp (*l); /* also drops a CR */
    if (**l == '\0')
      continue;
    if (**l == '#') {
      if (*source == NULL && g_str_has_prefix (*l, "# source:"))
        *source = g_strstrip (g_strdup (*l + strlen ("# source:")));
      continue;
    }
    if (header == NULL) {
      header = dts_kernel_csv_split (*l);
      for (const char *const *r = required; *r; r++) {
        gboolean found = FALSE;
        for (guint i = 0; i < header->len && !found; i++)
          found = strcmp (g_ptr_array_index (header, i), *r) == 0;
        if (!found) {
          g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                       "kernel data '%s': line %d: header has no column '%s' (expected "
                       "DeepBench's columns)",
                       path, lineno, *r);
          return FALSE;
        }
      }
      continue;
    }
    g_autoptr (GPtrArray) fields = dts_kernel_csv_split (*l);
    if (fields->len != header->len) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                   "kernel data '%s': line %d: %u fields (expected %u, as in the header)", path,
                   lineno, fields->len, header->len);
      return FALSE;
    }
    CsvRow row = { path, lineno, fields, header };
    if (strcmp (csv_get (&row, "mode"), "train") != 0)
      continue;
    int dev = device_index (data, csv_get (&row, "device"), csv_get (&row, "precision"), path,
                            lineno, error);
    if (dev == -2)
      return FALSE;
    if (dev < 0)
      continue;
    if (!reader (data, &row, (guint) dev, error))
      return FALSE;
  }
  if (header == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "kernel data '%s': no header line", path);
    return FALSE;
  }
  if (*source == NULL)
    *source = g_strdup ("unknown");
  return TRUE;
}

DtsKernelData *
dts_kernel_data_load (const char *dir, GError **error)
{
  static const char *const conv_cols[] = {
    "mode", "device", "precision", "W", "H", "C", "N", "K", "filter_w", "filter_h", "pad_w",
    "pad_h", "stride_w", "stride_h", "fwd_ms", "bwd_data_ms", "bwd_filter_ms", NULL,
  };
  static const char *const gemm_cols[] = {
    "mode", "device", "precision", "M", "N", "K", "transA", "transB", "time_ms", NULL,
  };
  g_autoptr (DtsKernelData) data = g_new0 (DtsKernelData, 1);
  data->dir = g_strdup (dir);
  data->points = g_array_new (FALSE, FALSE, sizeof (DtsKernelPoint));
  data->devices = g_array_new (FALSE, FALSE, sizeof (DtsKernelDevice));
  g_array_append_vals (data->devices, devices, G_N_ELEMENTS (devices) - 1);
  data->names = g_string_chunk_new (256);
  /* DeepBench's names, else those of tools/measure-kernels. */
  data->conv_file = g_strdup ("deepbench_conv.csv");
  data->gemm_file = g_strdup ("deepbench_gemm.csv");
  g_autofree char *db_conv = g_build_filename (dir, data->conv_file, NULL);
  if (!g_file_test (db_conv, G_FILE_TEST_EXISTS)) {
    g_autofree char *m_conv = g_build_filename (dir, "conv.csv", NULL);
    g_autofree char *m_gemm = g_build_filename (dir, "gemm.csv", NULL);
    if (g_file_test (m_conv, G_FILE_TEST_EXISTS) && g_file_test (m_gemm, G_FILE_TEST_EXISTS)) {
      g_free (data->conv_file);
      g_free (data->gemm_file);
      data->conv_file = g_strdup ("conv.csv");
      data->gemm_file = g_strdup ("gemm.csv");
    }
  }
  g_autofree char *conv = g_build_filename (dir, data->conv_file, NULL);
  g_autofree char *gemm = g_build_filename (dir, data->gemm_file, NULL);
  if (!read_csv (data, conv, conv_cols, read_conv_row, &data->conv_source, &data->conv_sha256,
                 error)
      || !read_csv (data, gemm, gemm_cols, read_gemm_row, &data->gemm_source,
                    &data->gemm_sha256, error))
    return NULL;
  if (data->points->len == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "kernel data '%s': no training rows of a known NVIDIA GPU (DeepBench's, or "
                 "measured rows with precision fp32, tf32, fp16 or bf16)",
                 dir);
    return NULL;
  }
  return g_steal_pointer (&data);
}

gboolean
dts_kernel_data_name_measured (DtsKernelData *data, const char *gpu_id, GError **error)
{
  const char *id = g_string_chunk_insert_const (data->names, gpu_id);
  guint n = 0;
  for (guint i = 0; i < data->devices->len; i++) {
    DtsKernelDevice *d = &g_array_index (data->devices, DtsKernelDevice, i);
    if (d->file == NULL)
      continue;
    for (guint j = 0; j < i; j++) {
      const DtsKernelDevice *e = &g_array_index (data->devices, DtsKernelDevice, j);
      if (e->file != NULL && e->precision == d->precision) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "--gpu %s: kernel data '%s' measures two devices at %s ('%s', line %d, "
                     "and '%s', line %d); give them one device per data directory",
                     gpu_id, data->dir, dts_precision_to_string (d->precision),
                     e->deepbench_device, e->line, d->deepbench_device, d->line);
        return FALSE;
      }
    }
    d->gpu_id = id;
    n++;
  }
  if (n == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--gpu %s: kernel data '%s' has no measured rows (rows whose precision is "
                 "fp32, tf32, fp16 or bf16)",
                 gpu_id, data->dir);
    return FALSE;
  }
  return TRUE;
}

void
dts_kernel_data_free (DtsKernelData *data)
{
  if (data == NULL)
    return;
  g_free (data->dir);
  if (data->points)
    g_array_unref (data->points);
  g_free (data->conv_source);
  g_free (data->gemm_source);
  g_free (data->conv_sha256);
  g_free (data->conv_file);
  g_free (data->gemm_file);
  if (data->devices)
    g_array_unref (data->devices);
  if (data->names)
    g_string_chunk_free (data->names);
  g_free (data->gemm_sha256);
  g_free (data);
}
