/* mlp-net.c - one kernel-time network: inputs, normalisation, FANN training,
 * saving and checked loading.
 *
 * Network: a FANN perceptron (float) with one hidden layer of tanh
 * (FANN_SIGMOID_SYMMETRIC) units and one linear output that predicts the
 * z-scored target ln(time_s / flops); inputs are z-scored with the mean and
 * standard deviation of the training points.
 *
 * Training. With about 75 points per network (the development split), one
 * network's error on unseen shapes is dominated by its initial weights;
 * averaging several independently initialised small networks removes most
 * of that variance (a seed ensemble).
 * Each member (6 hidden units by default) is trained by batch RPROP
 * (Riedmiller & Braun 1993) on the mean squared error for a fixed, small
 * number of epochs (early stopping by budget: longer training fitted the
 * measurement noise and generalised worse in k-fold tests). The members are
 * then stored as one network with their hidden units side by side and the
 * output weights divided by their count, which computes their mean exactly.
 * Weights start uniform in +-1/sqrt(fan-in), drawn from a GRand seeded with
 * the given seed: no libc rand(), no time-based seeding, so the same data and
 * parameters give bit-identical weights on the same build.
 *
 * Loading goes through FANN's own reader, which trusts its input (connection
 * indices are not range-checked), so a file is only handed to it after its
 * SHA-256 matches the manifest; the network read back is then checked to be
 * a plain layered network of the expected width. */
#include "config.h"

#include <fann.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "core/error.h"
#include "core/input.h"
#include "cost/mlp-private.h"

const char *const dts_mlp_gpu_feature_names[DTS_MLP_N_GPU_FEATURES] = {
  "gpu_ln_peak_flops",
  "gpu_ln_mem_bw_Bps",
  "gpu_ln_sm_count",
};

void
dts_mlp_gpu_clear (DtsMlpGpu *g)
{
  g_clear_pointer (&g->id, g_free);
  g_clear_pointer (&g->deepbench_device, g_free);
}

static const char *const conv_dims[] = { "n", NULL };
static const char *const gemm_dims[] = { "m", "n", "k", NULL };

static const char *const *
range_dims (DtsKernelClass klass)
{
  return dts_kernel_class_is_conv (klass) ? conv_dims : gemm_dims;
}

guint
dts_mlp_n_range_dims (DtsKernelClass klass)
{
  return g_strv_length ((char **) range_dims (klass));
}

const char *
dts_mlp_range_dim_name (DtsKernelClass klass, guint d)
{
  g_return_val_if_fail (d < dts_mlp_n_range_dims (klass), "?");
  return range_dims (klass)[d];
}

int
dts_mlp_range_dim_index (DtsKernelClass klass, const char *name)
{
  const char *const *dims = range_dims (klass);
  for (int i = 0; dims[i]; i++)
    if (g_strcmp0 (dims[i], name) == 0)
      return i;
  return -1;
}

int
dts_mlp_range_dim_value (const DtsKernel *kernel, guint d)
{
  if (dts_kernel_class_is_conv (kernel->klass))
    return kernel->conv.n;
  const int v[3] = { kernel->gemm.m, kernel->gemm.n, kernel->gemm.k };
  g_return_val_if_fail (d < 3, 0);
  return v[d];
}

DtsMlpNet *
dts_mlp_net_new (DtsKernelClass klass, DtsPrecision precision, const char *gpu_id)
{
  DtsMlpNet *net = g_new0 (DtsMlpNet, 1);
  net->klass = klass;
  net->precision = precision;
  net->gpu_id = g_strdup (gpu_id);
  net->input_names = dts_mlp_input_names (klass, gpu_id == NULL);
  net->n_inputs = g_strv_length (net->input_names);
  net->mean = g_new0 (double, net->n_inputs);
  net->std = g_new0 (double, net->n_inputs);
  net->min = g_new0 (double, net->n_inputs);
  net->max = g_new0 (double, net->n_inputs);
  net->out_std = 1.0;
  return net;
}

void
dts_mlp_net_free (DtsMlpNet *net)
{
  if (net == NULL)
    return;
  g_free (net->gpu_id);
  g_strfreev (net->input_names);
  g_free (net->mean);
  g_free (net->std);
  g_free (net->min);
  g_free (net->max);
  if (net->ann != NULL)
    fann_destroy (net->ann);
  g_free (net);
}

guint
dts_mlp_inputs (const DtsKernel *kernel, DtsPrecision precision, const DtsMlpGpu *gpu,
                double *out)
{
  dts_kernel_features (kernel, dts_precision_elem_bytes (precision), out);
  guint n = dts_kernel_n_features (kernel->klass);
  if (gpu != NULL) {
    out[n++] = log (gpu->math_peak_flops);
    out[n++] = log (gpu->mem_bw_Bps);
    out[n++] = log (gpu->sm_count);
  }
  return n;
}

char **
dts_mlp_input_names (DtsKernelClass klass, gboolean conditioned)
{
  g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
  g_strv_builder_addv (b, (const char **) dts_kernel_feature_names (klass));
  if (conditioned)
    for (guint i = 0; i < DTS_MLP_N_GPU_FEATURES; i++)
      g_strv_builder_add (b, dts_mlp_gpu_feature_names[i]);
  return g_strv_builder_end (b);
}

double
dts_mlp_target (const DtsKernel *kernel, double time_s)
{
  return log (time_s) - log (dts_kernel_flops (kernel));
}

double
dts_mlp_time_from_target (const DtsKernel *kernel, double target)
{
  return exp (target + log (dts_kernel_flops (kernel)));
}

static void
normalise (const DtsMlpNet *net, const double *raw, fann_type *out)
{
  for (guint j = 0; j < net->n_inputs; j++)
    out[j] = (fann_type) ((raw[j] - net->mean[j]) / net->std[j]);
}


static struct fann *
create_net (unsigned int n_inputs, unsigned int hidden)
{
  unsigned int layers[3] = { n_inputs, hidden, 1 };
  struct fann *ann = fann_create_standard_array (3, layers);
  g_assert (ann != NULL);
  fann_set_activation_function_hidden (ann, FANN_SIGMOID_SYMMETRIC);
  fann_set_activation_function_output (ann, FANN_LINEAR);
  fann_set_training_algorithm (ann, FANN_TRAIN_RPROP);
  fann_set_train_error_function (ann, FANN_ERRORFUNC_LINEAR);
  return ann;
}

/* One member: weights in connection order, each uniform in +-1/sqrt(fan-in)
 * of the neuron it feeds (bias included), then EPOCHS of batch RPROP. */
static struct fann *
train_member (struct fann_train_data *td, unsigned int hidden, int epochs, GRand *rng)
{
  struct fann *ann = create_net (fann_num_input_train_data (td), hidden);
  for (struct fann_layer *l = ann->first_layer + 1; l != ann->last_layer; l++) {
    for (struct fann_neuron *nr = l->first_neuron; nr != l->last_neuron; nr++) {
      unsigned int fan_in = nr->last_con - nr->first_con;
      double bound = fan_in > 0 ? 1.0 / sqrt ((double) fan_in) : 0.0;
      for (unsigned int c = nr->first_con; c < nr->last_con; c++)
        ann->weights[c] = (fann_type) g_rand_double_range (rng, -bound, bound);
    }
  }
  for (int e = 0; e < epochs; e++)
    fann_train_epoch (ann, td);
  return ann;
}

/* The network whose output is the mean of the members' outputs: their hidden
 * units side by side, output weights divided by the member count. Exact,
 * since the members share inputs and the output is linear. */
static struct fann *
merge_members (struct fann **members, guint n_members, unsigned int n_inputs, unsigned int hidden)
{
  struct fann *merged = create_net (n_inputs, hidden * n_members);
  struct fann_neuron *m_hidden = merged->first_layer[1].first_neuron;
  struct fann_neuron *m_out = merged->first_layer[2].first_neuron;
  for (unsigned int c = m_out->first_con; c < m_out->last_con; c++)
    merged->weights[c] = 0;
  for (guint e = 0; e < n_members; e++) {
    struct fann *a = members[e];
    struct fann_neuron *a_hidden = a->first_layer[1].first_neuron;
    struct fann_neuron *a_out = a->first_layer[2].first_neuron;
    for (unsigned int j = 0; j < hidden; j++) {
      const struct fann_neuron *src = &a_hidden[j];
      const struct fann_neuron *dst = &m_hidden[e * hidden + j];
      g_assert (src->last_con - src->first_con == dst->last_con - dst->first_con);
      for (unsigned int c = 0; c < src->last_con - src->first_con; c++)
        merged->weights[dst->first_con + c] = a->weights[src->first_con + c];
      g_assert (a->connections[a_out->first_con + j] == &a_hidden[j]);
      merged->weights[m_out->first_con + e * hidden + j] =
          a->weights[a_out->first_con + j] / (fann_type) n_members;
    }
    /* the hidden layer's bias neuron comes last */
    merged->weights[m_out->first_con + n_members * hidden] +=
        a->weights[a_out->first_con + hidden] / (fann_type) n_members;
  }
  return merged;
}

void
dts_mlp_net_train (DtsMlpNet *net, const double *raw, const double *targets, guint n,
                   const DtsMlpNetParams *params)
{
  g_return_if_fail (n > 0 && params->members > 0 && params->hidden > 0);
  const guint d = net->n_inputs;

  /* Normalisation and ranges; an input that does not vary gets std 1 so it
   * is centred, not divided by zero. */
  double tmean = 0, tvar = 0;
  for (guint j = 0; j < d; j++) {
    double m = 0, v = 0, lo = raw[j], hi = raw[j];
    for (guint i = 0; i < n; i++) {
      double x = raw[i * d + j];
      m += x;
      lo = fmin (lo, x);
      hi = fmax (hi, x);
    }
    m /= n;
    for (guint i = 0; i < n; i++)
      v += (raw[i * d + j] - m) * (raw[i * d + j] - m);
    v /= n;
    net->mean[j] = m;
    net->std[j] = v > 1e-12 ? sqrt (v) : 1.0;
    net->min[j] = lo;
    net->max[j] = hi;
  }
  for (guint i = 0; i < n; i++)
    tmean += targets[i];
  tmean /= n;
  for (guint i = 0; i < n; i++)
    tvar += (targets[i] - tmean) * (targets[i] - tmean);
  tvar /= n;
  net->out_mean = tmean;
  net->out_std = tvar > 1e-12 ? sqrt (tvar) : 1.0;

  struct fann_train_data *td = fann_create_train (n, d, 1);
  g_assert (td != NULL);
  for (guint i = 0; i < n; i++) {
    normalise (net, raw + (gsize) i * d, td->input[i]);
    td->output[i][0] = (fann_type) ((targets[i] - net->out_mean) / net->out_std);
  }
  g_autoptr (GRand) rng = g_rand_new_with_seed (params->seed);
  g_autofree struct fann **members = g_new0 (struct fann *, params->members);
  for (int e = 0; e < params->members; e++)
    members[e] = train_member (td, (unsigned) params->hidden, params->epochs, rng);
  fann_destroy_train (td);

  if (net->ann != NULL)
    fann_destroy (net->ann);
  net->ann = merge_members (members, (guint) params->members, d, (unsigned) params->hidden);
  for (int e = 0; e < params->members; e++)
    fann_destroy (members[e]);
}

double
dts_mlp_net_run (const DtsMlpNet *net, const double *raw)
{
  fann_type in[DTS_KERNEL_MAX_FEATURES + DTS_MLP_N_GPU_FEATURES];
  g_assert (net->n_inputs <= G_N_ELEMENTS (in));
  normalise (net, raw, in);
  fann_type *out = fann_run (net->ann, in);
  return out[0] * net->out_std + net->out_mean;
}

static void
quiet_fann (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    /* FANN prints its errors on stderr by default; dtsim reports its own. */
    fann_set_error_log (NULL, NULL);
    g_once_init_leave (&done, 1);
  }
}

gboolean
dts_mlp_net_save (const DtsMlpNet *net, const char *path, GError **error)
{
  quiet_fann ();
  if (fann_save (net->ann, path) != 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "kernel model '%s': cannot write the network",
                 path);
    return FALSE;
  }
  return TRUE;
}

/* The network FANN read back must be what dts_mlp_net_train() makes: layered,
 * every connection from the previous layer, known activation functions.
 * FANN does not check this itself, and fann_run() would read out of bounds. */
static gboolean
layout_ok (struct fann *ann)
{
  for (struct fann_layer *l = ann->first_layer + 1; l != ann->last_layer; l++) {
    const struct fann_layer *prev = l - 1;
    for (struct fann_neuron *nr = l->first_neuron; nr != l->last_neuron; nr++) {
      if (nr->last_con < nr->first_con || nr->last_con > ann->total_connections)
        return FALSE;
      for (unsigned int c = nr->first_con; c < nr->last_con; c++)
        if (ann->connections[c] < prev->first_neuron || ann->connections[c] >= prev->last_neuron)
          return FALSE;
      if (nr->activation_function > FANN_COS)
        return FALSE;
    }
  }
  return TRUE;
}

static gboolean
check_layout (struct fann *ann, const DtsMlpNet *net, const char *path, GError **error)
{
  if (fann_get_network_type (ann) != FANN_NETTYPE_LAYER || fann_get_num_layers (ann) < 3
      || fann_get_num_output (ann) != 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "kernel model '%s': not a layered network with one output", path);
    return FALSE;
  }
  if (fann_get_num_input (ann) != net->n_inputs) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "kernel model '%s': the network has %u inputs, expected %u (the %s inputs "
                 "of the manifest)",
                 path, fann_get_num_input (ann), net->n_inputs,
                 dts_kernel_class_to_string (net->klass));
    return FALSE;
  }
  if (!layout_ok (ann)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "kernel model '%s': connections do not form a layered network", path);
    return FALSE;
  }
  return TRUE;
}

gboolean
dts_mlp_net_load_fann (DtsMlpNet *net, const char *path, const char *sha256, GError **error)
{
  quiet_fann ();
  gsize len = 0;
  g_autofree char *text = dts_input_read_text (path, "kernel model", &len, error);
  if (text == NULL)
    return FALSE;
  if (sha256 != NULL) {
    g_autofree char *sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (guchar *) text, len);
    if (g_ascii_strcasecmp (sum, sha256) != 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "kernel model '%s': SHA-256 %s does not match the manifest's %s (the file "
                   "changed after training: regenerate it with 'dtsim cost train')",
                   path, sum, sha256);
      return FALSE;
    }
  }
  /* FANN leaks its error message when it refuses a file, so the header is
   * checked here first. */
  struct fann *ann = NULL;
  if (g_str_has_prefix (text, "FANN_FLO_2.1\n")) {
    /* FANN opens files by name: it reads a copy of the bytes checked here. */
    g_autofree char *copy = dts_input_private_copy (path, "kernel model", error);
    if (copy == NULL)
      return FALSE;
    ann = fann_create_from_file (copy);
    g_unlink (copy);
  }
  if (ann == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                 "kernel model '%s': not a FANN network file (FANN_FLO_2.1)", path);
    return FALSE;
  }
  if (!check_layout (ann, net, path, error)) {
    fann_destroy (ann);
    return FALSE;
  }
  if (net->ann != NULL)
    fann_destroy (net->ann);
  net->ann = ann;
  return TRUE;
}
