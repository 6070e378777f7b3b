/* kernel-data.h - measured cuDNN/cuBLAS kernel times and the features the MLP
 * cost model learns from.
 *
 * A kernel is a class (convolution forward, backward-data, backward-filter,
 * GEMM) and a shape. Measured times come from Baidu's DeepBench result files
 * as converted to CSV (deepbench_conv.csv, deepbench_gemm.csv): one row per
 * (device, precision, shape), times in milliseconds. Only the training rows
 * of the NVIDIA GPUs listed in the device table are read; the table maps
 * DeepBench's device names to GPU catalogue ids in one place.
 *
 * Features are what a network sees of a kernel: natural logarithms of sizes
 * (for a convolution, those of its implicit GEMM), of the bytes moved and of
 * the arithmetic intensity, so that kernels three orders of magnitude apart
 * are equally spaced. */
#ifndef DTS_COST_KERNEL_DATA_H
#define DTS_COST_KERNEL_DATA_H

#include <glib.h>
#include "core/precision.h"
#include "workload/workload.h"

G_BEGIN_DECLS

typedef enum {
  DTS_KERNEL_CONV_FWD,
  DTS_KERNEL_CONV_BWD_DATA,
  DTS_KERNEL_CONV_BWD_FILTER,
  DTS_KERNEL_GEMM,
  DTS_KERNEL_CLASS_COUNT
} DtsKernelClass;

/* "conv-fwd", "conv-bwd-data", "conv-bwd-filter", "gemm" */
const char *dts_kernel_class_to_string (DtsKernelClass k);
gboolean dts_kernel_class_from_string (const char *s, DtsKernelClass *out, GError **error);
gboolean dts_kernel_class_is_conv (DtsKernelClass k);

/* Convolution of an N x C x H x W input with K filters of C x R x S (R rows,
 * S columns), zero padding and stride per axis, no dilation, one group. */
typedef struct {
  int n, c, h, w, k, r, s, pad_h, pad_w, stride_h, stride_w;
} DtsConvShape;

/* cuBLAS column-major GEMM: C[m x n] = op(A)[m x k] * op(B)[k x n]. */
typedef struct {
  int m, n, k;
  gboolean trans_a, trans_b;
} DtsGemmShape;

typedef struct {
  DtsKernelClass klass;
  union {
    DtsConvShape conv; /* the three convolution classes */
    DtsGemmShape gemm; /* DTS_KERNEL_GEMM */
  };
} DtsKernel;

/* Output size of a convolution along one axis: (in + 2 pad - r) / stride + 1,
 * or 0 when the filter does not fit. */
int dts_kernel_conv_out (int in, int pad, int r, int stride);

/* TRUE if every size is positive (pads non-negative) and the output is not
 * empty; otherwise DTS_ERROR_INVALID saying which size is wrong. */
gboolean dts_kernel_check (const DtsKernel *k, GError **error);

/* FLOPs (2 x multiply-accumulates) of K; the three convolution passes do the
 * same arithmetic. */
double dts_kernel_flops (const DtsKernel *k);
/* Bytes read and written once each, at ELEM_BYTES per element (inputs,
 * filters/matrices and outputs of the pass). */
double dts_kernel_bytes (const DtsKernel *k, double elem_bytes);

/* Features of a kernel, at most DTS_KERNEL_MAX_FEATURES. */
#define DTS_KERNEL_MAX_FEATURES 16
/* Number of features of class K and their names (NULL-terminated, lent). */
guint dts_kernel_n_features (DtsKernelClass k);
const char *const *dts_kernel_feature_names (DtsKernelClass k);
/* Write the features of KERNEL (elements of ELEM_BYTES) into OUT
 * (dts_kernel_n_features() values). */
void dts_kernel_features (const DtsKernel *kernel, double elem_bytes, double *out);

/* A one-layer view of KERNEL that the roofline model prices (conv or fc
 * geometry, per-sample counts as the workload loader computes them); *BATCH
 * receives the batch size the layer runs at. The layer owns no memory. */
void dts_kernel_to_layer (const DtsKernel *kernel, DtsLayer *layer, int *batch);

/* Key of the shape without its class, for grouping the three convolution
 * passes of one shape (e.g. into the same cross-validation fold): FNV-1a of
 * the sizes. With WITHOUT_BATCH the convolution's n is left out, so that a
 * layer geometry measured at several batch sizes falls in one group. */
guint32 dts_kernel_shape_key (const DtsKernel *k, gboolean without_batch);

/* Split one CSV record (RFC 4180 quoting, no embedded newlines) into its
 * fields (owned strings). */
GPtrArray *dts_kernel_csv_split (const char *line);

/* A device that dtsim learns from: a (GPU, precision) of the data. */
typedef struct {
  const char *deepbench_device;    /* "NVIDIA V100" (the CSV's device column) */
  const char *deepbench_precision; /* the CSV's precision column */
  const char *gpu_id;              /* GPU catalogue id */
  DtsPrecision precision;          /* what a user asks for: storage precision */
  DtsPrecision math;               /* whose peak bounds the arithmetic */
  const char *file;                /* measured rows (below): the file and line of the first */
  int line;
} DtsKernelDevice;

/* DeepBench's devices, terminated by a row with deepbench_device NULL: the
 * first devices of every data set, in this order. */
const DtsKernelDevice *dts_kernel_devices (void);
guint dts_kernel_n_devices (void);

/* At most this many devices in one data set (a device set is a bit mask). */
#define DTS_KERNEL_MAX_DEVICES 64

/* One measured kernel time. */
typedef struct {
  DtsKernel kernel;
  guint device;   /* index in the device table */
  double time_s;
  int line;       /* line in its CSV file */
} DtsKernelPoint;

typedef struct {
  char *dir;
  GArray *points;        /* DtsKernelPoint: the conv file's rows, then the GEMM file's */
  char *conv_source;     /* the files' "# source:" lines (without the "# source: ") */
  char *gemm_source;
  char *conv_sha256;     /* checksums of the files read */
  char *gemm_sha256;
  char *conv_file;       /* the files' names in dir */
  char *gemm_file;
  GArray *devices;       /* DtsKernelDevice: DeepBench's (dts_kernel_devices), then one per
                            (device, precision) of measured rows, in order of first row */
  GStringChunk *names;   /* the strings of the measured devices */
} DtsKernelData;

/* Read DIR/deepbench_conv.csv and DIR/deepbench_gemm.csv, or DIR/conv.csv
 * and DIR/gemm.csv (what tools/measure-kernels writes). A row is
 * DeepBench's when its device and precision are a row of
 * dts_kernel_devices, measured when its precision is one of dtsim's names
 * (fp32, tf32, fp16, bf16): its device column then names a GPU of the
 * catalogue (its id; checked by the caller that has the catalogue, with the
 * device's file and line). Other rows (DeepBench's other devices) are
 * skipped, as are convolutions with a `groups` column other than 1
 * (depthwise); an empty time (DeepBench leaves backward-data empty for
 * layers that read the data) is no point. Malformed rows are
 * DTS_ERROR_PARSE "kernel data 'FILE': line N: ...". */
DtsKernelData *dts_kernel_data_load (const char *dir, GError **error);
void dts_kernel_data_free (DtsKernelData *data);

/* Say that DATA's measured rows are of catalogue GPU GPU_ID, whatever
 * their device column says (tools/measure-kernels writes the driver's name
 * of the GPU). DTS_ERROR_USAGE when DATA has no measured rows, or when two
 * measured devices would then be the same (GPU, precision). */
gboolean dts_kernel_data_name_measured (DtsKernelData *data, const char *gpu_id,
                                        GError **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsKernelData, dts_kernel_data_free)

G_END_DECLS

#endif
