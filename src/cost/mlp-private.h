/* mlp-private.h - what the files of the MLP cost model share: one network with
 * its normalisation (mlp-net.c), the GPU records of a model set, and the
 * manifest reader/writer (mlp.c, mlp-train.c). */
#ifndef DTS_COST_MLP_PRIVATE_H
#define DTS_COST_MLP_PRIVATE_H

#include <glib.h>
#include "cost/kernel-data.h"
#include "cost/mlp.h"
#include "platform/gpu.h"

G_BEGIN_DECLS

struct fann;

#define DTS_MLP_MANIFEST "manifest.xml"
#define DTS_MLP_MANIFEST_VERSION 1

/* A GPU as the networks were trained on it: the catalogue numbers at training
 * time, so a model set predicts the same whatever the catalogue says later. */
typedef struct {
  char *id;
  DtsPrecision precision; /* storage precision of the measurements */
  DtsPrecision math;      /* precision whose peak bounds their arithmetic */
  double peak_flops;      /* the catalogue's FLOP/s at PRECISION (what the roofline uses) */
  double math_peak_flops; /* FLOP/s at MATH (the device-conditioned networks' input) */
  double mem_bw_Bps;
  int sm_count;
  char *deepbench_device;
} DtsMlpGpu;

void dts_mlp_gpu_clear (DtsMlpGpu *g);
void dts_mlp_gpu_free (DtsMlpGpu *g);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsMlpGpu, dts_mlp_gpu_free)
/* A spec the roofline helpers accept: PEAK_FLOPS at every precision that G's
 * precision serves (fp32: fp32, tf32; fp16: fp16, bf16). The strings are
 * lent from G. */
void dts_mlp_gpu_to_spec (const DtsMlpGpu *g, DtsGpuSpec *spec);

/* |ln(flops_a / flops_b)| + |ln(bw_a / bw_b)|: how far apart two GPUs are. */
double dts_mlp_gpu_distance (double flops_a, double bw_a, double flops_b, double bw_b);

/* Inputs a GPU adds to a device-conditioned network. */
#define DTS_MLP_N_GPU_FEATURES 3
extern const char *const dts_mlp_gpu_feature_names[DTS_MLP_N_GPU_FEATURES];

/* How far (in the features' own units, logarithms of sizes: a factor of 4)
 * beyond the training [min, max] a feature may lie before a layer's kernel
 * leaves the network for the roofline. */
#define DTS_MLP_FAR_MARGIN 1.3862943611198906 /* ln 4 */

/* One trained network and what it needs around it. */
typedef struct {
  DtsKernelClass klass;
  DtsPrecision precision;
  char *gpu_id;         /* NULL for a device-conditioned network */
  guint n_inputs;
  char **input_names;   /* n_inputs names, NULL-terminated */
  double *mean, *std;   /* z-score normalisation of each input */
  double *min, *max;    /* range of each input over the training points */
  double out_mean, out_std; /* of the target ln(time_s) - ln(flops) */
  /* training range of the batch-like sizes (conv: n; GEMM: m, n, k) */
  int dim_min[3], dim_max[3];
  struct fann *ann;
  /* provenance, for manifests and reports */
  int train_points, validation_points;
  double train_mape, validation_mape;
} DtsMlpNet;

DtsMlpNet *dts_mlp_net_new (DtsKernelClass klass, DtsPrecision precision, const char *gpu_id);
void dts_mlp_net_free (DtsMlpNet *net);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsMlpNet, dts_mlp_net_free)

/* Batch-like sizes whose training range a network records. */
guint dts_mlp_n_range_dims (DtsKernelClass klass);
const char *dts_mlp_range_dim_name (DtsKernelClass klass, guint d);
int dts_mlp_range_dim_index (DtsKernelClass klass, const char *name); /* -1 if unknown */
/* The value of size D of KERNEL. */
int dts_mlp_range_dim_value (const DtsKernel *kernel, guint d);

/* Raw (unnormalised) inputs of KERNEL for NET's kind: the kernel features,
 * then the GPU features when GPU is non-NULL (conditioned networks). Returns
 * the count written into OUT (at most DTS_KERNEL_MAX_FEATURES + 3). */
guint dts_mlp_inputs (const DtsKernel *kernel, DtsPrecision precision, const DtsMlpGpu *gpu,
                      double *out);
/* Names of those inputs (owned, NULL-terminated). */
char **dts_mlp_input_names (DtsKernelClass klass, gboolean conditioned);

#define DTS_MLP_TARGET_NAME "ln_time_s_per_flop"

/* The quantity networks learn: ln(time_s / flops), the log of the time per
 * FLOP, which is a kernel's inverse efficiency and varies far less across
 * shapes than its time. */
double dts_mlp_target (const DtsKernel *kernel, double time_s);
double dts_mlp_time_from_target (const DtsKernel *kernel, double target);

/* Training hyper-parameters (cost/mlp.h has the public subset). */
typedef struct {
  guint32 seed;
  int epochs;  /* RPROP epochs per member */
  int hidden;  /* hidden units per member */
  int members; /* networks averaged (stored as one of members x hidden units) */
} DtsMlpNetParams;

/* Train NET (its kind and names already set) on N points: RAW inputs
 * (N x net->n_inputs, row-major) and TARGETS. Sets normalisation and ranges
 * from these points; deterministic for the same inputs and params. */
void dts_mlp_net_train (DtsMlpNet *net, const double *raw, const double *targets, guint n,
                        const DtsMlpNetParams *params);

/* Predicted target for RAW inputs (net->n_inputs values). */
double dts_mlp_net_run (const DtsMlpNet *net, const double *raw);

/* Write the FANN network of NET to PATH. */
gboolean dts_mlp_net_save (const DtsMlpNet *net, const char *path, GError **error);

/* Load the FANN network in PATH into NET, after checking that the file's
 * SHA-256 is SHA256 (when non-NULL), and that the network is a plain layered
 * network with net->n_inputs inputs and one output. Errors name PATH. */
gboolean dts_mlp_net_load_fann (DtsMlpNet *net, const char *path, const char *sha256,
                                GError **error);

/* Predicted time of KERNEL by NET, trained on GPU (also the conditioned
 * network's GPU inputs), with the out-of-range rule of mlp.c applied. */
double dts_mlp_net_predict (const DtsMlpNet *net, const DtsMlpGpu *gpu, const DtsKernel *kernel,
                            DtsPrecision precision);
/* The index of the first kernel feature of KERNEL that lies more than
 * DTS_MLP_FAR_MARGIN above NET's training max even at its smallest trained
 * batch, or below its min even at its largest (the batch-like sizes moved
 * into NET's range first: the geometry decides, whatever the batch), its
 * value in *VALUE (may be NULL); -1 when the kernel is near the training
 * data. */
int dts_mlp_far_outside (const DtsMlpNet *net, const DtsKernel *kernel, DtsPrecision precision,
                         double *value);

/* A model set: GPU records and networks, in manifest order. A set made with
 * OWNS FALSE only points at records and networks owned elsewhere. */
struct _DtsMlpSet {
  char *dir;      /* where it was loaded from, NULL if built in memory */
  GPtrArray *gpus; /* DtsMlpGpu * */
  GPtrArray *nets; /* DtsMlpNet * */
  /* layer-kernel times at batch 1, 2, 4, ... (the batch rule of mlp.c),
   * per kernel geometry, pass, GPU and precision; GBytes -> GArray of
   * DtsMlpAnchor, filled on demand */
  GHashTable *anchors;
};

typedef struct {
  double time_s;      /* the largest raw time at this batch and the smaller anchors */
  const char *source; /* interned */
} DtsMlpAnchor;

DtsMlpSet *dts_mlp_set_new (gboolean owns);
const DtsMlpGpu *dts_mlp_set_find_gpu (const DtsMlpSet *set, const char *id,
                                       DtsPrecision precision);
const DtsMlpNet *dts_mlp_set_find_net (const DtsMlpSet *set, const char *gpu_id,
                                       DtsPrecision precision, DtsKernelClass klass);

/* Mean absolute percentage error helper: |p - m| / m. */
static inline double
dts_mlp_ape (double predicted, double measured)
{
  double d = predicted - measured;
  return (d < 0 ? -d : d) / measured;
}

G_END_DECLS

#endif
