/* mlp.h - the MLP kernel-time cost model: trained networks, their training
 * and their evaluation.
 *
 * A model set is a directory (shipped: platforms/kernel-models/) holding
 * manifest.xml and one FANN network per (kernel class, GPU, precision). The
 * manifest records each network's inputs, normalisation, training data,
 * training/validation split and error, and the GPU numbers it was trained
 * with. doc/COST-MODELS.md describes the model and its measured accuracy. */
#ifndef DTS_COST_MLP_H
#define DTS_COST_MLP_H

#include <glib.h>
#include "core/precision.h"
#include "cost/cost.h"
#include "cost/kernel-data.h"
#include "platform/gpu.h"

G_BEGIN_DECLS

typedef struct _DtsMlpSet DtsMlpSet;

/* <datadir>/platforms/kernel-models (owned). */
char *dts_mlp_default_dir (void);

/* Load DIR/manifest.xml and every network it lists. A missing or corrupt
 * file is an error naming it (DTS_ERROR_NOT_FOUND, _IO, _PARSE or _INVALID). */
DtsMlpSet *dts_mlp_set_load (const char *dir, GError **error);
void dts_mlp_set_free (DtsMlpSet *set);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsMlpSet, dts_mlp_set_free)

/* Number of networks and of (GPU, precision) records in SET. */
guint dts_mlp_set_n_networks (const DtsMlpSet *set);
guint dts_mlp_set_n_gpus (const DtsMlpSet *set);

/* The process's model set from DIR, loaded on the first call for that
 * directory and kept until exit (lent). A failed load is not cached. */
DtsMlpSet *dts_mlp_set_get_shared (const char *dir, GError **error);

/* Time of KERNEL on GPU at PRECISION. *SOURCE (interned) says what produced
 * it: "mlp:ID" (a network trained on GPU ID) or "mlp:ID*roofline" (ID's
 * prediction carried to GPU by the roofline ratio of the two GPUs). */
gboolean dts_mlp_set_kernel_time (DtsMlpSet *set, const DtsKernel *kernel, const DtsGpuSpec *gpu,
                                  DtsPrecision precision, double *time_s, const char **source,
                                  GError **error);

/* Per-phase times of LAYER: conv (one group) and fc layers from the
 * networks, everything else (and the optimizer update) from the roofline. */
gboolean dts_mlp_set_layer_times (DtsMlpSet *set, const DtsLayer *layer, const DtsGpuSpec *gpu,
                                  DtsPrecision precision, int batch, DtsLayerTimes *out,
                                  GError **error);

/* The trained GPU whose KLASS network serves GPU at PRECISION (NULL if none
 * does): GPU itself when trained, else the nearest in |ln(peak FLOP/s
 * ratio)| + |ln(bandwidth ratio)|, ties to the first in the manifest. Lent. */
const char *dts_mlp_set_source_gpu (DtsMlpSet *set, const DtsGpuSpec *gpu, DtsPrecision precision,
                                    DtsKernelClass klass);

/* ---- training and evaluation (dtsim cost train | eval) -------------------- */

typedef struct {
  guint32 seed;     /* weight initialisation */
  int folds;        /* k of the k-fold evaluation inside the development split */
  int test_percent; /* share of layer geometries in the test split */
  int epochs;       /* RPROP epochs per ensemble member */
  int hidden;       /* hidden units per member */
  int members;      /* ensemble members averaged into one network */
} DtsMlpTrainOptions;

/* Is P in the test split? Its layer geometry (without the batch size; the
 * three convolution passes of a geometry alike) hashed with a fixed salt, in
 * the lowest TEST_PERCENT of 100 buckets. Independent of the k-fold
 * assignment, which works on the remaining development split. */
gboolean dts_mlp_point_is_test (const DtsKernelPoint *p, int test_percent);

/* The defaults the shipped networks were trained with. */
void dts_mlp_train_options_init (DtsMlpTrainOptions *opts);

/* Train one network per (kernel class, GPU, precision) of DATA on the
 * development split, test it on the test split and write the networks and
 * manifest.xml into OUT_DIR (created if needed). CAT supplies the GPU numbers
 * recorded in the manifest. Byte-identical output for the same data, options
 * and build. */
gboolean dts_mlp_train (const DtsKernelData *data, const DtsGpuCatalog *cat,
                        const DtsMlpTrainOptions *opts, const char *out_dir, GError **error);

/* Error on held-out shapes of one (kernel class, GPU, precision), MLP and
 * roofline on the same points: on the test split, predicted by the network
 * trained on the development split (the shipped network), and k-fold inside
 * the development split. A MAPE is NAN where there are no points. */
typedef struct {
  DtsKernelClass klass;
  const char *gpu_id; /* lent from the device table */
  DtsPrecision precision;
  int test_points;
  double test_mlp_mape;
  double test_roofline_mape;
  int points; /* k-fold inside the development split */
  double mlp_mape;
  double roofline_mape;
} DtsMlpEvalRow;

/* Leave-one-GPU-out error: every point of HELD_OUT predicted without any of
 * its data, by the nearest other GPU's network times the roofline ratio
 * (scaled), by a device-conditioned network trained on the other GPUs
 * (conditioned), and by the roofline model. */
typedef struct {
  DtsKernelClass klass;
  DtsPrecision precision;
  const char *held_out; /* lent from the device table */
  const char *nearest;
  int points;
  double scaled_mape;
  double conditioned_mape;
  double roofline_mape;
} DtsMlpLogoRow;

typedef struct {
  GArray *kfold; /* DtsMlpEvalRow (test and k-fold), device table, then class order */
  GArray *logo;  /* DtsMlpLogoRow, precision, held-out GPU, class order */
} DtsMlpEval;

/* Called after each network trained by an evaluation: DONE of TOTAL. */
typedef void (*DtsMlpProgressFunc) (guint done, guint total, gpointer user_data);

/* PROGRESS may be NULL. */
DtsMlpEval *dts_mlp_evaluate (const DtsKernelData *data, const DtsGpuCatalog *cat,
                              const DtsMlpTrainOptions *opts, DtsMlpProgressFunc progress,
                              gpointer user_data, GError **error);
void dts_mlp_eval_free (DtsMlpEval *eval);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsMlpEval, dts_mlp_eval_free)

G_END_DECLS

#endif
