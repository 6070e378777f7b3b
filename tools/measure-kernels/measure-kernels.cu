/* measure-kernels.cu - time cuDNN convolutions and cuBLAS GEMMs on one GPU.
 *
 * Reads the shape lists written by gen-shapes.py (DeepBench column names) and,
 * for each precision asked for, writes one CSV row per shape in the layout of
 * DeepBench's published result files, so that the tools that fit dtsim's
 * kernel-time models read measured and published points alike.
 *
 * Method, after DeepBench (github.com/baidu-research/DeepBench, conv_bench.cu
 * and gemm_bench.cu), with these choices:
 * - Convolutions: the fastest algorithm per direction (forward, backward data,
 *   backward filter) is the first usable entry that cudnnFind*AlgorithmEx
 *   returns (it runs every algorithm and sorts by time) with a fixed workspace
 *   arena (--workspace-mib); the chosen algorithm is then timed on its own.
 *   The search runs --find-passes times and the last ranking is used: with
 *   CUDA's lazy module loading the first call of each kernel also pays for
 *   loading it, which would rank algorithms by load time on small shapes.
 * - GEMMs: cublasGemmEx with CUBLAS_GEMM_DEFAULT (cuBLAS's heuristic picks the
 *   kernel, as in DeepBench; cuBLAS has no exhaustive search).
 * - Timing: after --warmup untimed calls, --runs calls are queued back to back
 *   behind a short spin kernel, so the host's launch cost never leaves the GPU
 *   idle between them, with a CUDA event between consecutive calls; the time of
 *   a call is the median of the --runs event intervals.  Whether the queue was
 *   really ahead of the GPU is checked (the spin kernel must still be running
 *   when the last call is queued) and reported in column `queued`.
 * - Precisions: fp32 is IEEE single on the CUDA cores (CUDNN_FMA_MATH,
 *   CUBLAS_COMPUTE_32F: TF32 excluded); tf32 lets both libraries use TF32
 *   tensor cores; fp16 and bf16 are 16-bit tensors with fp32 accumulation on
 *   the tensor cores.  fp32/tf32 tensors are NCHW, fp16/bf16 NHWC (the layout
 *   frameworks use for tensor-core training).
 * - Data: uniform random in [-1, 1] from a fixed seed (all-zero operands run
 *   measurably faster on recent GPUs, so zeros would bias the times).
 * - Every row is written and flushed as soon as it is measured; the run stops
 *   at --deadline-s and keeps what it has.
 *
 * Not measured: dilated and transposed convolutions, bias and activation
 * kernels, the cost of the algorithm search itself. */

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_COLUMNS 32
#define MAX_LINE 1024
#define MAX_RUNS 1000
#define SPIN_MAX_S 0.1

/* ---------------------------------------------------------------- tables */

typedef struct {
  const char *name;
  cudnnDataType_t tensor_type;
  cudnnDataType_t conv_type;       /* accumulation type of the convolution */
  cudnnMathType_t math;            /* math type asked of cudnnFind */
  int tensor_ops_ok;               /* may the chosen algorithm use tensor cores? */
  cudnnTensorFormat_t format;
  const char *layout;
  cudaDataType_t blas_type;
  cublasComputeType_t blas_compute;
  size_t elem_bytes;
} Precision;

static const Precision precision_table[] = {
  { "fp32", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_FMA_MATH, 0,
    CUDNN_TENSOR_NCHW, "NCHW", CUDA_R_32F, CUBLAS_COMPUTE_32F, 4 },
  { "tf32", CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, 1,
    CUDNN_TENSOR_NCHW, "NCHW", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4 },
  { "fp16", CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH, 1,
    CUDNN_TENSOR_NHWC, "NHWC", CUDA_R_16F, CUBLAS_COMPUTE_32F, 2 },
  { "bf16", CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH, 1,
    CUDNN_TENSOR_NHWC, "NHWC", CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2 },
};
#define N_PRECISIONS ((int) (sizeof precision_table / sizeof precision_table[0]))

static const char *const fwd_algo_names[CUDNN_CONVOLUTION_FWD_ALGO_COUNT] = {
  "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
  "WINOGRAD", "WINOGRAD_NONFUSED",
};
static const char *const bwd_data_algo_names[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT] = {
  "ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED",
};
static const char *const bwd_filter_algo_names[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT] = {
  "ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING",
};

static const char *
algo_name (const char *const *names, int count, int algo)
{
  return (algo >= 0 && algo < count) ? names[algo] : "UNKNOWN";
}

/* ---------------------------------------------------------------- errors */

/* A failed library call fails the current point; a sticky CUDA error (the
 * context is lost) ends the run. */
static char last_error[512];

static void
set_error (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (last_error, sizeof last_error, fmt, ap);
  va_end (ap);
}

#define CK_CUDA(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  set_error ("%s: %s", #call, cudaGetErrorString (e_)); return -1; } } while (0)
#define CK_DNN(call) do { cudnnStatus_t e_ = (call); if (e_ != CUDNN_STATUS_SUCCESS) { \
  set_error ("%s: %s", #call, cudnnGetErrorString (e_)); return -1; } } while (0)
#define CK_BLAS(call) do { cublasStatus_t e_ = (call); if (e_ != CUBLAS_STATUS_SUCCESS) { \
  set_error ("%s: %s", #call, cublasGetStatusString (e_)); return -1; } } while (0)

static int
context_lost (void)
{
  cudaError_t e = cudaDeviceSynchronize ();
  if (e == cudaSuccess)
    return 0;
  fprintf (stderr, "measure-kernels: CUDA context lost: %s\n", cudaGetErrorString (e));
  return 1;
}

/* ---------------------------------------------------------------- CSV input */

typedef struct {
  int n_columns;
  char names[MAX_COLUMNS][64];
  int n_rows;
  char **cells;                    /* n_rows * n_columns, owned */
  int *lines;                      /* file line of each row, owned */
  const char *path;
} Table;

static int
split_line (char *line, char **fields, int max_fields)
{
  int n = 0;
  char *p = line;
  line[strcspn (line, "\r\n")] = '\0';
  for (;;) {
    if (n == max_fields)
      return -1;
    fields[n++] = p;
    char *comma = strchr (p, ',');
    if (!comma)
      break;
    *comma = '\0';
    p = comma + 1;
  }
  return n;
}

static int
table_load (Table *t, const char *path)
{
  memset (t, 0, sizeof *t);
  t->path = path;
  FILE *f = fopen (path, "r");
  if (!f) {
    set_error ("cannot open '%s': %s", path, strerror (errno));
    return -1;
  }
  char line[MAX_LINE];
  char *fields[MAX_COLUMNS];
  int lineno = 0, capacity = 0;
  while (fgets (line, sizeof line, f)) {
    lineno++;
    if (line[0] == '#' || line[0] == '\n')
      continue;
    if (!strchr (line, '\n') && !feof (f)) {
      set_error ("'%s': line %d: longer than %d characters", path, lineno, MAX_LINE - 2);
      fclose (f);
      return -1;
    }
    int n = split_line (line, fields, MAX_COLUMNS);
    if (n < 0) {
      set_error ("'%s': line %d: more than %d columns", path, lineno, MAX_COLUMNS);
      fclose (f);
      return -1;
    }
    if (t->n_columns == 0) {
      t->n_columns = n;
      for (int i = 0; i < n; i++)
        snprintf (t->names[i], sizeof t->names[i], "%s", fields[i]);
      continue;
    }
    if (n != t->n_columns) {
      set_error ("'%s': line %d: %d columns (the header has %d)", path, lineno, n,
                 t->n_columns);
      fclose (f);
      return -1;
    }
    if (t->n_rows == capacity) {
      capacity = capacity ? 2 * capacity : 256;
      char **cells = (char **) realloc (t->cells, sizeof (char *) * capacity * t->n_columns);
      if (!cells) {
        set_error ("out of memory reading '%s'", path);
        fclose (f);
        return -1;
      }
      t->cells = cells;
      int *lines = (int *) realloc (t->lines, sizeof (int) * capacity);
      if (!lines) {
        set_error ("out of memory reading '%s'", path);
        fclose (f);
        return -1;
      }
      t->lines = lines;
    }
    t->lines[t->n_rows] = lineno;
    for (int i = 0; i < n; i++) {
      char *copy = strdup (fields[i]);
      if (!copy) {
        set_error ("out of memory reading '%s'", path);
        fclose (f);
        return -1;
      }
      t->cells[t->n_rows * t->n_columns + i] = copy;
    }
    t->n_rows++;
  }
  fclose (f);
  if (t->n_columns == 0) {
    set_error ("'%s': no header line", path);
    return -1;
  }
  return 0;
}

static int
table_column (const Table *t, const char *name)
{
  for (int i = 0; i < t->n_columns; i++)
    if (strcmp (t->names[i], name) == 0)
      return i;
  return -1;
}

static const char *
table_cell (const Table *t, int row, int column)
{
  return column < 0 ? "" : t->cells[row * t->n_columns + column];
}

/* Reads the named integer columns of ROW into OUT; all must be >= MIN. */
static int
table_ints (const Table *t, int row, const char *const *names, int count, long long *out,
            long long min)
{
  for (int i = 0; i < count; i++) {
    int c = table_column (t, names[i]);
    if (c < 0) {
      set_error ("'%s': no column '%s'", t->path, names[i]);
      return -1;
    }
    const char *s = table_cell (t, row, c);
    char *end = NULL;
    errno = 0;
    long long v = strtoll (s, &end, 10);
    if (errno || end == s || *end != '\0' || v < min || v > (1LL << 40)) {
      set_error ("'%s': line %d: column %s: '%s' is not an integer >= %lld", t->path,
                 t->lines[row], names[i], s, min);
      return -1;
    }
    out[i] = v;
  }
  return 0;
}

/* ---------------------------------------------------------------- shapes */

typedef struct {
  long long W, H, C, N, K, fw, fh, pw, ph, sw, sh, groups, out_w, out_h;
  const char *app;
} ConvShape;

typedef struct {
  long long M, N, K;
  int trans_a, trans_b;
  const char *pass, *app;
} GemmShape;

static int
conv_shape_get (const Table *t, int row, ConvShape *s)
{
  static const char *const names[] = { "W", "H", "C", "N", "K", "filter_w", "filter_h",
                                       "pad_w", "pad_h", "stride_w", "stride_h" };
  long long v[11];
  if (table_ints (t, row, names, 11, v, 0) < 0)
    return -1;
  s->W = v[0]; s->H = v[1]; s->C = v[2]; s->N = v[3]; s->K = v[4];
  s->fw = v[5]; s->fh = v[6]; s->pw = v[7]; s->ph = v[8]; s->sw = v[9]; s->sh = v[10];
  s->groups = 1;
  if (table_column (t, "groups") >= 0) {
    static const char *const g[] = { "groups" };
    if (table_ints (t, row, g, 1, &s->groups, 1) < 0)
      return -1;
  }
  if (s->W < 1 || s->H < 1 || s->C < 1 || s->N < 1 || s->K < 1 || s->fw < 1 || s->fh < 1
      || s->sw < 1 || s->sh < 1) {
    set_error ("'%s': line %d: sizes, filter and stride must be >= 1", t->path, t->lines[row]);
    return -1;
  }
  if (s->C % s->groups || s->K % s->groups) {
    set_error ("'%s': line %d: C=%lld and K=%lld must be multiples of groups=%lld",
               t->path, t->lines[row], s->C, s->K, s->groups);
    return -1;
  }
  s->out_w = (s->W + 2 * s->pw - s->fw) / s->sw + 1;
  s->out_h = (s->H + 2 * s->ph - s->fh) / s->sh + 1;
  if (s->W + 2 * s->pw < s->fw || s->H + 2 * s->ph < s->fh) {
    set_error ("'%s': line %d: filter larger than the padded input", t->path, t->lines[row]);
    return -1;
  }
  static const char *const o[] = { "out_w", "out_h" };
  long long out[2];
  if (table_column (t, "out_w") >= 0 && table_column (t, "out_h") >= 0) {
    if (table_ints (t, row, o, 2, out, 1) < 0)
      return -1;
    if (out[0] != s->out_w || out[1] != s->out_h) {
      set_error ("'%s': line %d: out_w,out_h %lld,%lld disagree with the geometry "
                 "(%lld,%lld)", t->path, t->lines[row], out[0], out[1], s->out_w, s->out_h);
      return -1;
    }
  }
  s->app = table_cell (t, row, table_column (t, "app"));
  return 0;
}

static int
parse_trans (const Table *t, int row, const char *name, int *out)
{
  const char *s = table_cell (t, row, table_column (t, name));
  if (strcmp (s, "N") == 0 || strcmp (s, "T") == 0) {
    *out = s[0] == 'T';
    return 0;
  }
  set_error ("'%s': line %d: %s is '%s' (expected N or T)", t->path, t->lines[row], name, s);
  return -1;
}

static int
gemm_shape_get (const Table *t, int row, GemmShape *s)
{
  static const char *const names[] = { "M", "N", "K" };
  long long v[3];
  if (table_ints (t, row, names, 3, v, 1) < 0)
    return -1;
  s->M = v[0]; s->N = v[1]; s->K = v[2];
  if (parse_trans (t, row, "transA", &s->trans_a) < 0
      || parse_trans (t, row, "transB", &s->trans_b) < 0)
    return -1;
  s->pass = table_cell (t, row, table_column (t, "pass"));
  s->app = table_cell (t, row, table_column (t, "app"));
  return 0;
}

/* ---------------------------------------------------------------- device side */

static __device__ __forceinline__ unsigned long long
global_timer_ns (void)
{
  unsigned long long t;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* Holds the stream while the host queues the timed calls behind it. */
static __global__ void
spin_kernel (unsigned long long ns)
{
  unsigned long long t0 = global_timer_ns ();
  while (global_timer_ns () - t0 < ns) {
  }
}

static __device__ __forceinline__ float
uniform_pm1 (unsigned long long i, unsigned long long seed)
{
  /* splitmix64: independent of the launch geometry, so runs are repeatable */
  unsigned long long z = i + seed * 0x9E3779B97F4A7C15ULL + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (float) (z >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

static __global__ void
fill_kernel (void *p, size_t n, int kind, unsigned long long seed)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x) {
    float v = uniform_pm1 (i, seed);
    if (kind == 0)
      ((float *) p)[i] = v;
    else if (kind == 1)
      ((__half *) p)[i] = __float2half (v);
    else
      ((__nv_bfloat16 *) p)[i] = __float2bfloat16 (v);
  }
}

/* ---------------------------------------------------------------- timing */

typedef struct {
  int warmup, runs;
  int find_passes;
  double deadline_s;
  size_t workspace_bytes;
  cudaStream_t stream;
  cudnnHandle_t dnn;
  cublasHandle_t blas;
  cudaEvent_t events[MAX_RUNS + 1];
  void *x, *w, *dy, *y, *dx, *dw, *ws;  /* arenas */
  size_t x_bytes, w_bytes, dy_bytes;
  int n_not_queued;
} Bench;

typedef int (*OpFn) (Bench *b, void *ctx);

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Times one call of FN: median over b->runs of back-to-back calls, in ms.
 * *QUEUED is 1 when the calls were all queued before the GPU reached them. */
static int
time_op (Bench *b, OpFn fn, void *ctx, double *median_ms, int *queued)
{
  for (int i = 0; i < b->warmup; i++)
    if (fn (b, ctx) < 0)
      return -1;
  CK_CUDA (cudaStreamSynchronize (b->stream));
  /* host cost of one call, measured once the kernels are loaded */
  const int probe = 3;
  double t0 = now_s ();
  for (int i = 0; i < probe; i++)
    if (fn (b, ctx) < 0)
      return -1;
  double host_s = (now_s () - t0) / probe;
  CK_CUDA (cudaStreamSynchronize (b->stream));

  double spin_s = 2.0 * host_s * b->runs + 20e-6;
  *queued = 0;
  for (int attempt = 0; attempt < 3 && !*queued; attempt++) {
    if (spin_s > SPIN_MAX_S)
      spin_s = SPIN_MAX_S;
    spin_kernel<<<1, 1, 0, b->stream>>> ((unsigned long long) (spin_s * 1e9));
    CK_CUDA (cudaGetLastError ());
    for (int i = 0; i < b->runs; i++) {
      CK_CUDA (cudaEventRecord (b->events[i], b->stream));
      if (fn (b, ctx) < 0)
        return -1;
    }
    CK_CUDA (cudaEventRecord (b->events[b->runs], b->stream));
    cudaError_t q = cudaEventQuery (b->events[0]);
    if (q == cudaErrorNotReady) {
      *queued = 1;
      (void) cudaGetLastError ();   /* not-ready is a state, not a failure */
    } else if (q != cudaSuccess) {
      CK_CUDA (q);
    }
    CK_CUDA (cudaStreamSynchronize (b->stream));
    spin_s *= 4;
  }
  if (!*queued)
    b->n_not_queued++;
  double ms[MAX_RUNS];
  for (int i = 0; i < b->runs; i++) {
    float f = 0;
    CK_CUDA (cudaEventElapsedTime (&f, b->events[i], b->events[i + 1]));
    ms[i] = f;
  }
  qsort (ms, b->runs, sizeof ms[0], cmp_double);
  *median_ms = b->runs % 2 ? ms[b->runs / 2] : 0.5 * (ms[b->runs / 2 - 1] + ms[b->runs / 2]);
  return 0;
}

/* ---------------------------------------------------------------- convolution */

typedef struct {
  const Precision *p;
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  cudnnConvolutionFwdAlgo_t fwd;
  cudnnConvolutionBwdDataAlgo_t bwd_data;
  cudnnConvolutionBwdFilterAlgo_t bwd_filter;
  size_t ws_bytes;
} ConvCtx;

static int
op_fwd (Bench *b, void *ctx)
{
  ConvCtx *c = (ConvCtx *) ctx;
  const float one = 1.0f, zero = 0.0f;
  CK_DNN (cudnnConvolutionForward (b->dnn, &one, c->x, b->x, c->w, b->w, c->conv, c->fwd,
                                   b->ws, c->ws_bytes, &zero, c->y, b->y));
  return 0;
}

static int
op_bwd_data (Bench *b, void *ctx)
{
  ConvCtx *c = (ConvCtx *) ctx;
  const float one = 1.0f, zero = 0.0f;
  CK_DNN (cudnnConvolutionBackwardData (b->dnn, &one, c->w, b->w, c->y, b->dy, c->conv,
                                        c->bwd_data, b->ws, c->ws_bytes, &zero, c->x, b->dx));
  return 0;
}

static int
op_bwd_filter (Bench *b, void *ctx)
{
  ConvCtx *c = (ConvCtx *) ctx;
  const float one = 1.0f, zero = 0.0f;
  CK_DNN (cudnnConvolutionBackwardFilter (b->dnn, &one, c->x, b->x, c->y, b->dy, c->conv,
                                          c->bwd_filter, b->ws, c->ws_bytes, &zero, c->w,
                                          b->dw));
  return 0;
}

static int
math_ok (const Precision *p, cudnnMathType_t m)
{
  return p->tensor_ops_ok
         || (m != CUDNN_TENSOR_OP_MATH && m != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION);
}

/* Picks the fastest usable entry of a cudnnFind result and sets the math type
 * the algorithm was found with (fp32 keeps CUDNN_FMA_MATH so that no TF32
 * kernel can be substituted). */
#define PICK_FASTEST(perf, n, p, conv, algo_out, ws_out, what) do { \
  int found_ = 0; \
  for (int i_ = 0; i_ < (n) && !found_; i_++) \
    if ((perf)[i_].status == CUDNN_STATUS_SUCCESS && math_ok ((p), (perf)[i_].mathType)) { \
      (algo_out) = (perf)[i_].algo; \
      (ws_out) = (perf)[i_].memory; \
      CK_DNN (cudnnSetConvolutionMathType ((conv), (p)->tensor_ops_ok ? (perf)[i_].mathType \
                                                                      : (p)->math)); \
      found_ = 1; \
    } \
  if (!found_) { set_error ("no usable %s algorithm", (what)); return -1; } \
} while (0)

typedef struct {
  double fwd_ms, bwd_data_ms, bwd_filter_ms;
  const char *fwd_algo, *bwd_data_algo, *bwd_filter_algo;
  int queued;
} ConvResult;

static int
conv_measure_in (Bench *b, ConvCtx *c, const ConvShape *s, ConvResult *r)
{
  const Precision *p = c->p;
  CK_DNN (cudnnSetTensor4dDescriptor (c->x, p->format, p->tensor_type, (int) s->N, (int) s->C,
                                      (int) s->H, (int) s->W));
  CK_DNN (cudnnSetFilter4dDescriptor (c->w, p->tensor_type, p->format, (int) s->K,
                                      (int) (s->C / s->groups), (int) s->fh, (int) s->fw));
  CK_DNN (cudnnSetConvolution2dDescriptor (c->conv, (int) s->ph, (int) s->pw, (int) s->sh,
                                           (int) s->sw, 1, 1, CUDNN_CROSS_CORRELATION,
                                           p->conv_type));
  CK_DNN (cudnnSetConvolutionGroupCount (c->conv, (int) s->groups));
  int n, k, h, w;
  CK_DNN (cudnnGetConvolution2dForwardOutputDim (c->conv, c->x, c->w, &n, &k, &h, &w));
  if (n != s->N || k != s->K || h != s->out_h || w != s->out_w) {
    set_error ("cuDNN output %dx%dx%dx%d disagrees with the shape list", n, k, h, w);
    return -1;
  }
  CK_DNN (cudnnSetTensor4dDescriptor (c->y, p->format, p->tensor_type, n, k, h, w));
  size_t x_bytes = (size_t) s->N * s->C * s->H * s->W * p->elem_bytes;
  size_t w_bytes = (size_t) s->K * (s->C / s->groups) * s->fh * s->fw * p->elem_bytes;
  size_t y_bytes = (size_t) n * k * h * w * p->elem_bytes;
  if (x_bytes > b->x_bytes || w_bytes > b->w_bytes || y_bytes > b->dy_bytes) {
    set_error ("tensors larger than the arenas (internal error)");
    return -1;
  }
  int got, qf = 0, qd = 0, qw = 0;

  cudnnConvolutionFwdAlgoPerf_t fperf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  CK_DNN (cudnnSetConvolutionMathType (c->conv, p->math));
  for (int pass = 0; pass < b->find_passes; pass++)
    CK_DNN (cudnnFindConvolutionForwardAlgorithmEx (b->dnn, c->x, b->x, c->w, b->w, c->conv,
                                                    c->y, b->y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                    &got, fperf, b->ws, b->workspace_bytes));
  PICK_FASTEST (fperf, got, p, c->conv, c->fwd, c->ws_bytes, "forward");
  if (time_op (b, op_fwd, c, &r->fwd_ms, &qf) < 0)
    return -1;
  r->fwd_algo = algo_name (fwd_algo_names, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, c->fwd);

  cudnnConvolutionBwdDataAlgoPerf_t dperf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  CK_DNN (cudnnSetConvolutionMathType (c->conv, p->math));
  for (int pass = 0; pass < b->find_passes; pass++)
    CK_DNN (cudnnFindConvolutionBackwardDataAlgorithmEx (
        b->dnn, c->w, b->w, c->y, b->dy, c->conv, c->x, b->dx,
        CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, dperf, b->ws, b->workspace_bytes));
  PICK_FASTEST (dperf, got, p, c->conv, c->bwd_data, c->ws_bytes, "backward-data");
  if (time_op (b, op_bwd_data, c, &r->bwd_data_ms, &qd) < 0)
    return -1;
  r->bwd_data_algo = algo_name (bwd_data_algo_names, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                c->bwd_data);

  cudnnConvolutionBwdFilterAlgoPerf_t wperf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  CK_DNN (cudnnSetConvolutionMathType (c->conv, p->math));
  for (int pass = 0; pass < b->find_passes; pass++)
    CK_DNN (cudnnFindConvolutionBackwardFilterAlgorithmEx (
        b->dnn, c->x, b->x, c->y, b->dy, c->conv, c->w, b->dw,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, wperf, b->ws, b->workspace_bytes));
  PICK_FASTEST (wperf, got, p, c->conv, c->bwd_filter, c->ws_bytes, "backward-filter");
  if (time_op (b, op_bwd_filter, c, &r->bwd_filter_ms, &qw) < 0)
    return -1;
  r->bwd_filter_algo = algo_name (bwd_filter_algo_names,
                                  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, c->bwd_filter);
  r->queued = qf && qd && qw;
  return 0;
}

static int
conv_measure (Bench *b, const Precision *p, const ConvShape *s, ConvResult *r)
{
  ConvCtx c;
  memset (&c, 0, sizeof c);
  c.p = p;
  int rc = -1;
  if (cudnnCreateTensorDescriptor (&c.x) == CUDNN_STATUS_SUCCESS
      && cudnnCreateTensorDescriptor (&c.y) == CUDNN_STATUS_SUCCESS
      && cudnnCreateFilterDescriptor (&c.w) == CUDNN_STATUS_SUCCESS
      && cudnnCreateConvolutionDescriptor (&c.conv) == CUDNN_STATUS_SUCCESS)
    rc = conv_measure_in (b, &c, s, r);
  else
    set_error ("cannot create cuDNN descriptors");
  if (c.conv) cudnnDestroyConvolutionDescriptor (c.conv);
  if (c.w) cudnnDestroyFilterDescriptor (c.w);
  if (c.y) cudnnDestroyTensorDescriptor (c.y);
  if (c.x) cudnnDestroyTensorDescriptor (c.x);
  return rc;
}

/* ---------------------------------------------------------------- GEMM */

typedef struct {
  const Precision *p;
  const GemmShape *s;
} GemmCtx;

/* C[M,N] = op(A)[M,K] op(B)[K,N], column-major as in cuBLAS and DeepBench. */
static int
op_gemm (Bench *b, void *ctx)
{
  GemmCtx *g = (GemmCtx *) ctx;
  const GemmShape *s = g->s;
  const float one = 1.0f, zero = 0.0f;
  int lda = (int) (s->trans_a ? s->K : s->M);
  int ldb = (int) (s->trans_b ? s->N : s->K);
  CK_BLAS (cublasGemmEx (b->blas, s->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                         s->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, (int) s->M, (int) s->N,
                         (int) s->K, &one, b->x, g->p->blas_type, lda, b->w, g->p->blas_type,
                         ldb, &zero, b->y, g->p->blas_type, (int) s->M, g->p->blas_compute,
                         CUBLAS_GEMM_DEFAULT));
  return 0;
}

/* ---------------------------------------------------------------- output */

typedef struct {
  char device[256];
  char cuda[32];
  char cudnn[32];
  char cublas[32];
  char driver[64];
  char date[32];
} Versions;

static void
write_source_line (FILE *f, const Versions *v, const Bench *b, const char *what)
{
  fprintf (f, "# source: measured with dtsim tools/measure-kernels (%s) on %s, driver %s, "
           "CUDA runtime %s, cuDNN %s, cuBLAS %s, %s; median of %d cudaEvent-timed "
           "back-to-back calls after %d warm-ups; random uniform[-1,1] data\n",
           what, v->device, v->driver, v->cuda, v->cudnn, v->cublas, v->date, b->runs,
           b->warmup);
}

/* ---------------------------------------------------------------- main */

typedef struct {
  const char *conv_path, *gemm_path, *out_conv, *out_gemm, *driver;
  const Precision *precisions[N_PRECISIONS];
  int n_precisions;
  int dry_run;
  long long limit;
} Options;

static void
usage (FILE *f)
{
  fprintf (f,
           "usage: measure-kernels [OPTIONS]\n"
           "  --conv FILE          conv shapes (gen-shapes.py's shapes-conv.csv)\n"
           "  --gemm FILE          GEMM shapes (shapes-gemm.csv)\n"
           "  --out-conv FILE      conv results (default: stdout)\n"
           "  --out-gemm FILE      GEMM results (default: stdout)\n"
           "  --precisions LIST    of fp32,tf32,fp16,bf16 in the order to run (fp32,fp16)\n"
           "  --warmup N           untimed calls before timing (5)\n"
           "  --runs N             timed calls, median reported (25)\n"
           "  --find-passes N      cudnnFind runs per direction, the last one counts (2)\n"
           "  --deadline-s S       stop starting points after S seconds (300)\n"
           "  --workspace-mib N    cuDNN workspace arena (4096)\n"
           "  --limit N            at most N rows of each file (all)\n"
           "  --driver TEXT        driver version for the source line (unknown)\n"
           "  --dry-run            check the shape lists and print the plan, no GPU\n");
}

static int
parse_int (const char *s, long long min, long long max, long long *out)
{
  char *end = NULL;
  errno = 0;
  long long v = strtoll (s, &end, 10);
  if (errno || end == s || *end || v < min || v > max)
    return -1;
  *out = v;
  return 0;
}

static int
parse_precisions (const char *list, Options *o)
{
  char buf[128];
  snprintf (buf, sizeof buf, "%s", list);
  o->n_precisions = 0;
  char *save = NULL;
  for (char *tok = strtok_r (buf, ",", &save); tok; tok = strtok_r (NULL, ",", &save)) {
    const Precision *hit = NULL;
    for (int i = 0; i < N_PRECISIONS; i++)
      if (strcmp (tok, precision_table[i].name) == 0)
        hit = &precision_table[i];
    if (!hit || o->n_precisions == N_PRECISIONS)
      return -1;
    o->precisions[o->n_precisions++] = hit;
  }
  return o->n_precisions ? 0 : -1;
}

static int
setup (Bench *b, Versions *v, const Options *o, const Table *conv, const Table *gemm)
{
  int count = 0;
  CK_CUDA (cudaGetDeviceCount (&count));
  if (count < 1) {
    set_error ("no CUDA device");
    return -1;
  }
  CK_CUDA (cudaSetDevice (0));
  cudaDeviceProp prop;
  CK_CUDA (cudaGetDeviceProperties (&prop, 0));
  snprintf (v->device, sizeof v->device, "%s", prop.name);
  int rt = 0;
  CK_CUDA (cudaRuntimeGetVersion (&rt));
  snprintf (v->cuda, sizeof v->cuda, "%d.%d", rt / 1000, rt % 1000 / 10);
  size_t dv = cudnnGetVersion ();
  snprintf (v->cudnn, sizeof v->cudnn, "%zu.%zu.%zu", dv / 10000, dv % 10000 / 100, dv % 100);
  snprintf (v->driver, sizeof v->driver, "%s", o->driver ? o->driver : "unknown");
  time_t now = time (NULL);
  struct tm tm;
  gmtime_r (&now, &tm);
  strftime (v->date, sizeof v->date, "%Y-%m-%d", &tm);

  CK_CUDA (cudaStreamCreateWithFlags (&b->stream, cudaStreamNonBlocking));
  CK_DNN (cudnnCreate (&b->dnn));
  CK_DNN (cudnnSetStream (b->dnn, b->stream));
  CK_BLAS (cublasCreate (&b->blas));
  CK_BLAS (cublasSetStream (b->blas, b->stream));
  int bv = 0;
  CK_BLAS (cublasGetVersion (b->blas, &bv));
  snprintf (v->cublas, sizeof v->cublas, "%d.%d.%d", bv / 10000, bv % 10000 / 100, bv % 100);
  for (int i = 0; i <= b->runs; i++)
    CK_CUDA (cudaEventCreate (&b->events[i]));

  /* Arenas sized for the largest tensor of each role at 4 bytes/element. */
  size_t xe = 1, we = 1, ye = 1;
  for (int r = 0; r < conv->n_rows; r++) {
    ConvShape s;
    if (conv_shape_get (conv, r, &s) < 0)
      return -1;
    size_t x = (size_t) (s.N * s.C * s.H * s.W), w = (size_t) (s.K * (s.C / s.groups) * s.fh * s.fw),
           y = (size_t) (s.N * s.K * s.out_h * s.out_w);
    xe = x > xe ? x : xe; we = w > we ? w : we; ye = y > ye ? y : ye;
  }
  for (int r = 0; r < gemm->n_rows; r++) {
    GemmShape s;
    if (gemm_shape_get (gemm, r, &s) < 0)
      return -1;
    size_t a = (size_t) (s.M * s.K), bb = (size_t) (s.K * s.N), c = (size_t) (s.M * s.N);
    xe = a > xe ? a : xe; we = bb > we ? bb : we; ye = c > ye ? c : ye;
  }
  b->x_bytes = xe * 4; b->w_bytes = we * 4; b->dy_bytes = ye * 4;
  CK_CUDA (cudaMalloc (&b->x, b->x_bytes));
  CK_CUDA (cudaMalloc (&b->w, b->w_bytes));
  CK_CUDA (cudaMalloc (&b->dy, b->dy_bytes));
  CK_CUDA (cudaMalloc (&b->y, b->dy_bytes));
  CK_CUDA (cudaMalloc (&b->dx, b->x_bytes));
  CK_CUDA (cudaMalloc (&b->dw, b->w_bytes));
  CK_CUDA (cudaMalloc (&b->ws, b->workspace_bytes));
  fprintf (stderr, "measure-kernels: %s (%d SMs, %.1f GiB), driver %s, CUDA %s, cuDNN %s "
           "(built with %d.%d.%d), cuBLAS %s; arenas %.2f+%.2f+%.2f GiB x2, workspace %.2f GiB\n",
           v->device, prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0, v->driver,
           v->cuda, v->cudnn, CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL, v->cublas,
           b->x_bytes / 1073741824.0, b->w_bytes / 1073741824.0, b->dy_bytes / 1073741824.0,
           b->workspace_bytes / 1073741824.0);
  return 0;
}

/* Fills the read-only operands with random values of P's element type. */
static int
fill_inputs (Bench *b, const Precision *p)
{
  int kind = p->elem_bytes == 4 ? 0 : (p->tensor_type == CUDNN_DATA_HALF ? 1 : 2);
  void *bufs[3] = { b->x, b->w, b->dy };
  size_t bytes[3] = { b->x_bytes, b->w_bytes, b->dy_bytes };
  for (int i = 0; i < 3; i++) {
    fill_kernel<<<1024, 256, 0, b->stream>>> (bufs[i], bytes[i] / p->elem_bytes, kind,
                                              (unsigned long long) (i + 1));
    CK_CUDA (cudaGetLastError ());
  }
  CK_CUDA (cudaStreamSynchronize (b->stream));
  return 0;
}

static FILE *
open_out (const char *path)
{
  if (!path || strcmp (path, "-") == 0)
    return stdout;
  FILE *f = fopen (path, "w");
  if (!f)
    set_error ("cannot write '%s': %s", path, strerror (errno));
  return f;
}

int
main (int argc, char **argv)
{
  Options o;
  memset (&o, 0, sizeof o);
  Bench b;
  memset (&b, 0, sizeof b);
  b.warmup = 5;
  b.find_passes = 2;
  b.runs = 25;
  b.deadline_s = 300;
  b.workspace_bytes = (size_t) 4096 << 20;
  o.limit = -1;
  parse_precisions ("fp32,fp16", &o);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    long long n = 0;
    int takes = 1;
    if (strcmp (a, "--help") == 0) {
      usage (stdout);
      return 0;
    } else if (strcmp (a, "--dry-run") == 0) {
      o.dry_run = 1;
      takes = 0;
    } else if (!val) {
      fprintf (stderr, "measure-kernels: %s: unknown option or missing value\n", a);
      usage (stderr);
      return 2;
    } else if (strcmp (a, "--conv") == 0) {
      o.conv_path = val;
    } else if (strcmp (a, "--gemm") == 0) {
      o.gemm_path = val;
    } else if (strcmp (a, "--out-conv") == 0) {
      o.out_conv = val;
    } else if (strcmp (a, "--out-gemm") == 0) {
      o.out_gemm = val;
    } else if (strcmp (a, "--driver") == 0) {
      o.driver = val;
    } else if (strcmp (a, "--precisions") == 0) {
      if (parse_precisions (val, &o) < 0) {
        fprintf (stderr, "measure-kernels: --precisions '%s' (expected a list of fp32, tf32, "
                 "fp16, bf16)\n", val);
        return 2;
      }
    } else if (strcmp (a, "--warmup") == 0 && parse_int (val, 0, 1000, &n) == 0) {
      b.warmup = (int) n;
    } else if (strcmp (a, "--find-passes") == 0 && parse_int (val, 1, 10, &n) == 0) {
      b.find_passes = (int) n;
    } else if (strcmp (a, "--runs") == 0 && parse_int (val, 1, MAX_RUNS, &n) == 0) {
      b.runs = (int) n;
    } else if (strcmp (a, "--deadline-s") == 0 && parse_int (val, 1, 86400, &n) == 0) {
      b.deadline_s = (double) n;
    } else if (strcmp (a, "--workspace-mib") == 0 && parse_int (val, 0, 1 << 20, &n) == 0) {
      b.workspace_bytes = (size_t) n << 20;
    } else if (strcmp (a, "--limit") == 0 && parse_int (val, 0, 1LL << 40, &n) == 0) {
      o.limit = n;
    } else {
      fprintf (stderr, "measure-kernels: %s '%s': unknown option or bad value\n", a, val);
      usage (stderr);
      return 2;
    }
    i += takes;
  }
  if (!o.conv_path || !o.gemm_path) {
    fprintf (stderr, "measure-kernels: --conv and --gemm are required\n");
    usage (stderr);
    return 2;
  }

  Table conv, gemm;
  if (table_load (&conv, o.conv_path) < 0 || table_load (&gemm, o.gemm_path) < 0) {
    fprintf (stderr, "measure-kernels: error: %s\n", last_error);
    return 1;
  }
  if (o.limit >= 0) {
    conv.n_rows = conv.n_rows < o.limit ? conv.n_rows : (int) o.limit;
    gemm.n_rows = gemm.n_rows < o.limit ? gemm.n_rows : (int) o.limit;
  }
  for (int r = 0; r < conv.n_rows; r++) {
    ConvShape s;
    if (conv_shape_get (&conv, r, &s) < 0) {
      fprintf (stderr, "measure-kernels: error: %s\n", last_error);
      return 1;
    }
  }
  for (int r = 0; r < gemm.n_rows; r++) {
    GemmShape s;
    if (gemm_shape_get (&gemm, r, &s) < 0) {
      fprintf (stderr, "measure-kernels: error: %s\n", last_error);
      return 1;
    }
  }
  fprintf (stderr, "measure-kernels: %d conv and %d GEMM shapes x %d precisions\n",
           conv.n_rows, gemm.n_rows, o.n_precisions);
  if (o.dry_run)
    return 0;

  Versions v;
  memset (&v, 0, sizeof v);
  if (setup (&b, &v, &o, &conv, &gemm) < 0) {
    fprintf (stderr, "measure-kernels: error: %s\n", last_error);
    return 1;
  }
  FILE *fc = open_out (o.out_conv);
  FILE *fg = fc ? open_out (o.out_gemm) : NULL;
  if (!fc || !fg) {
    fprintf (stderr, "measure-kernels: error: %s\n", last_error);
    return 1;
  }
  char what[256];
  snprintf (what, sizeof what, "cudnnFind*AlgorithmEx fastest algorithm per direction, "
            "last of %d searches, %zu MiB workspace arena", b.find_passes,
            b.workspace_bytes >> 20);
  write_source_line (fc, &v, &b, what);
  fprintf (fc, "mode,device,cuda,dnnlib,precision,app,W,H,C,N,K,filter_w,filter_h,pad_w,"
           "pad_h,stride_w,stride_h,groups,out_w,out_h,fwd_ms,bwd_data_ms,bwd_filter_ms,"
           "fwd_algo,bwd_data_algo,bwd_filter_algo,layout,queued,source\n");
  if (fg != fc)
    write_source_line (fg, &v, &b, "cublasGemmEx, CUBLAS_GEMM_DEFAULT");
  fprintf (fg, "mode,device,cuda,dnnlib,precision,app,M,N,K,transA,transB,pass,time_ms,"
           "queued,source\n");
  fflush (fc);
  fflush (fg);

  double t_start = now_s ();
  long long done = 0, failed = 0, total = (long long) o.n_precisions * (conv.n_rows + gemm.n_rows);
  int stopped = 0, lost = 0;
  for (int pi = 0; pi < o.n_precisions && !stopped; pi++) {
    const Precision *p = o.precisions[pi];
    if (fill_inputs (&b, p) < 0) {
      fprintf (stderr, "measure-kernels: error: %s\n", last_error);
      lost = 1;
      break;
    }
    /* GEMMs first: few and quick, so a cut-short run still has them all. */
    for (int r = 0; r < gemm.n_rows && !stopped; r++) {
      if (now_s () - t_start > b.deadline_s) {
        stopped = 1;
        break;
      }
      GemmShape s;
      gemm_shape_get (&gemm, r, &s);
      GemmCtx g = { p, &s };
      double ms = 0;
      int queued = 0;
      if (time_op (&b, op_gemm, &g, &ms, &queued) < 0) {
        fprintf (stderr, "measure-kernels: %s GEMM %lld,%lld,%lld,%c,%c: %s\n", p->name, s.M,
                 s.N, s.K, s.trans_a ? 'T' : 'N', s.trans_b ? 'T' : 'N', last_error);
        failed++;
        if (context_lost ()) {
          stopped = lost = 1;
        }
        continue;
      }
      fprintf (fg, "train,%s,%s,%s,%s,%s,%lld,%lld,%lld,%c,%c,%s,%.5f,%d,%s\n", v.device,
               v.cuda, v.cublas, p->name, s.app, s.M, s.N, s.K, s.trans_a ? 'T' : 'N',
               s.trans_b ? 'T' : 'N', s.pass, ms, queued, "measure-kernels-cublas");
      fflush (fg);
      done++;
    }
    for (int r = 0; r < conv.n_rows && !stopped; r++) {
      if (now_s () - t_start > b.deadline_s) {
        stopped = 1;
        break;
      }
      ConvShape s;
      conv_shape_get (&conv, r, &s);
      ConvResult res;
      memset (&res, 0, sizeof res);
      if (conv_measure (&b, p, &s, &res) < 0) {
        fprintf (stderr, "measure-kernels: %s conv W=%lld H=%lld C=%lld N=%lld K=%lld "
                 "%lldx%lld/%lld g%lld: %s\n", p->name, s.W, s.H, s.C, s.N, s.K, s.fh, s.fw,
                 s.sh, s.groups, last_error);
        failed++;
        if (context_lost ()) {
          stopped = lost = 1;
        }
        continue;
      }
      fprintf (fc, "train,%s,%s,%s,%s,%s,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,"
               "%lld,%lld,%lld,%lld,%.5f,%.5f,%.5f,%s,%s,%s,%s,%d,%s\n",
               v.device, v.cuda, v.cudnn, p->name, s.app, s.W, s.H, s.C, s.N, s.K, s.fw, s.fh,
               s.pw, s.ph, s.sw, s.sh, s.groups, s.out_w, s.out_h, res.fwd_ms,
               res.bwd_data_ms, res.bwd_filter_ms, res.fwd_algo, res.bwd_data_algo,
               res.bwd_filter_algo, p->layout, res.queued, "measure-kernels-cudnn");
      fflush (fc);
      done++;
      if (done % 50 == 0)
        fprintf (stderr, "measure-kernels: %lld/%lld points, %.0f s\n", done, total,
                 now_s () - t_start);
    }
  }
  fprintf (stderr, "measure-kernels: %lld of %lld points measured, %lld failed, %d timings "
           "not fully queued, %.1f s%s%s\n", done, total, failed, b.n_not_queued,
           now_s () - t_start, stopped && !lost ? "; stopped at the deadline" : "",
           lost ? "; stopped: CUDA context lost" : "");
  if (fc != stdout)
    fclose (fc);
  if (fg != stdout && fg != fc)
    fclose (fg);
  return lost ? 1 : 0;
}
