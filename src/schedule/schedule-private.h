/* schedule-private.h - what the strategies of src/schedule (dp.c,
 * pipeline.c) share: buckets, compute operations and per-layer times. */
#ifndef DTS_SCHEDULE_PRIVATE_H
#define DTS_SCHEDULE_PRIVATE_H

#include <glib.h>
#include "schedule/schedule.h"

G_BEGIN_DECLS

/* Gradients are kept in fp32 in memory whatever the compute precision (the
 * master gradients the optimizer reads); what a bucket all-reduces per
 * parameter is dts_schedule_grad_bytes(), from the framework profile. */
#define DTS_SCHEDULE_GRAD_BYTES_PER_PARAM 4.0

/* Bytes per parameter in gradient buckets: OPTS->grad_bytes, or 4 (fp32)
 * when it is 0. */
double dts_schedule_grad_bytes (const DtsRunOptions *opts);

/* Buckets of the layers FIRST..LAST in backward order (DDP's Reducer: a
 * bucket is closed once it holds at least CAP_BYTES, GRAD_BYTES per
 * parameter); bucket_of[layer] is
 * the layer's bucket, counted from BASE, or -1 (only FIRST..LAST are set). */
GArray *dts_schedule_make_buckets (const DtsWorkload *w, int first, int last, double cap_bytes,
                                   double grad_bytes, int base, int *bucket_of);

/* Append a compute operation of T_S seconds (nothing when T_S is 0) and
 * count it in TOT. */
void dts_schedule_add_compute (GArray *prog, DtsComputeTotals *tot, DtsPhase phase, int layer,
                               int micro_batch, double t_s);

/* Append layer LAYER's backward pass of micro-batch MICRO_BATCH: its
 * recomputed forward (if any), then its data and weight gradients. */
void dts_schedule_add_backward (GArray *prog, DtsComputeTotals *tot, int layer, int micro_batch,
                                const DtsLayerTimes *t);

/* The cost model's times of every layer of W on GPU at BATCH, checked to be
 * finite and >= 0; sets *COST_SOURCE (if NULL) from the first layer after
 * the input that has one. */
DtsLayerTimes *dts_schedule_layer_times (const DtsWorkload *w, DtsCost *cost,
                                         const DtsGpuSpec *gpu, DtsPrecision precision, int batch,
                                         DtsRecompute recompute, char **cost_source,
                                         GError **error);

/* Synchronous training over N GPUs waits for the slowest of them: every
 * compute time of T (N_LAYERS layers) times the profile's
 * dts_framework_sync_slowdown (COST's framework) for N (dp, sync-ps,
 * pipeline, hybrid). */
void dts_schedule_pace_slowest (const DtsCost *cost, int n, DtsLayerTimes *t, guint n_layers);

/* The memory rule of every strategy: each of the N_RANKS ranks RANKS (NULL:
 * 0 .. N_RANKS - 1) keeps MEM (a replica, a stage or a worker); where that
 * is more than its GPU's memory the run is refused with DTS_ERROR_INVALID,
 * "WHAT needs T per GPU (weights, gradients, optimizer, ACTIVATIONS A),
 * more than the M of GPU 'HOST' (rank R); use HINTS or
 * --allow-oversubscribe-memory", unless O->allow_oversubscribe, in which
 * case the run goes on and its summary leads with the overflow. */
gboolean dts_schedule_check_memory (const DtsMemoryEstimate *mem, const DtsPlatform *platform,
                                    const int *ranks, int n_ranks, const char *what,
                                    const char *activations, const char *hints,
                                    const DtsRunOptions *o, GError **error);

/* What helps a whole model fit one GPU under O (dp, the parameter-server
 * workers): a smaller batch, the recomputation W allows, mixed precision
 * where activations dominate MEM, then STRATEGIES (may be NULL), as
 * "a smaller --batch-size, ..." (owned). */
char *dts_schedule_memory_hints (const DtsWorkload *w, const DtsMemoryEstimate *mem,
                                 const DtsRunOptions *o, const char *strategies);

/* Activation elements per sample that layers FIRST..LAST keep for the
 * backward pass (layers that run in place keep none) under RECOMPUTE:
 * selective drops unfused attention's probabilities; full keeps, of the
 * layers of a repeated block, each block's input and, at the peak, one
 * block's activations rebuilt for its backward; a cross-entropy keeps what
 * LOSS keeps, counted in elements of PRECISION's activations
 * (dts_loss_kept_bytes). */
double dts_schedule_stored_elems (const DtsWorkload *w, int first, int last,
                                  DtsRecompute recompute, DtsLossKernel loss,
                                  DtsPrecision precision);

/* The model state of PARAMS parameters in OUT (weights, gradients and
 * optimizer bytes; activations and total left alone), trained at PRECISION
 * with OPTIMIZER_BYTES of optimizer state per parameter, the fp32 main
 * weights and the optimizer state sharded over SHARDS replicas (the
 * distributed optimizer, ZeRO stage 1; 1: not sharded). Mixed precision
 * keeps a copy of the weights in the compute precision besides the fp32
 * main weights; fp32 training has one copy, which every replica holds
 * whole. Gradients are fp32 (DTS_SCHEDULE_GRAD_BYTES_PER_PARAM), whole, or
 * with GRAD_SHARDS > 1 (ZeRO stage 2) 1/GRAD_SHARDS of them plus one
 * bucket of BUCKET_BYTES being reduced, at most the rest: bf16 with Adam is
 * 2 + 4/D + 4 + 8/D bytes per parameter (18 with D = 1), 2 + 16/D + the
 * bucket under ZeRO-2. */
void dts_schedule_model_state (double params, DtsPrecision precision, double optimizer_bytes,
                               int shards, int grad_shards, double bucket_bytes,
                               DtsMemoryEstimate *out);
/* ZeRO-3's (FSDP's) weight bytes per rank: PARAMS in the compute PRECISION
 * with the fp32 main weights sharded over SHARDS ranks, and the gathered
 * parameters whole: with OVERLAP two buckets of at most BUCKET_PARAMS (the
 * one computed and the one prefetched), without every bucket's (all are
 * gathered before the backward pass). */
double dts_schedule_sharded_weights (double params, DtsPrecision precision, int shards,
                                     double bucket_params, gboolean overlap);

/* The distributed optimizer (--zero 1; dp.c, pipeline.c). */

/* The all-gather, by ALGORITHM, of BUCKET's parameters in the compute
 * PRECISION among the ranks of GRAD, the parameters of the bucket's
 * gradient reduce-scatter (its ranks, channels, chunks, nodes and tuner). */
DtsCollPlan *dts_schedule_gather_plan_new (const char *algorithm, const DtsCollParams *grad,
                                           const DtsBucket *bucket, DtsPrecision precision,
                                           GError **error);

/* Appends to PROG the parameter all-gathers of buckets LAST, LAST - STEP,
 * ... down to FIRST, that is in forward order (buckets are numbered in
 * backward order): bucket b's is plan PLAN_OF[b * PLAN_STRIDE], a COLL of
 * no bucket (the trace counts it as a parameter gather, not as gradient
 * sync), each followed by a RECORD of EVENT. */
void dts_schedule_add_param_gathers (GArray *prog, const int *plan_of, int plan_stride, int first,
                                     int last, int step, int event);
/* --zero 3's gathers before the backward pass on a communication stream
 * that reduces buckets FIRST, FIRST + STEP, ... below END, those to append
 * to PROG just before bucket B's reduce-scatter (plans and EVENT as
 * dts_schedule_add_param_gathers). With OVERLAP: at the first bucket its
 * own and the next one's, then at each bucket the next one's, ahead of the
 * current reduce-scatter (FSDP's backward prefetch). Without: all of them
 * at the first bucket, as no reduce-scatter starts before the backward
 * pass has ended. The stream waits for the forward pass before the first. */
void dts_schedule_add_backward_gathers (GArray *prog, const int *plan_of, int plan_stride,
                                        int first, int end, int step, int b, gboolean overlap,
                                        int event);

/* The bucket (an index into BUCKETS) whose first layer in forward order is
 * layer L, or -1: under --param-gather overlap the forward pass waits for
 * that bucket's parameters just before L. BUCKET_OF maps layers to buckets
 * (-1: none). */
int dts_schedule_bucket_starting_at (const GArray *buckets, const int *bucket_of, int l);
/* The largest gradient bytes of N buckets from FIRST, and in *PARAMS (if
 * not NULL) the most parameters one of them holds; 0 for none. */
double dts_schedule_largest_bucket (const GArray *buckets, int first, int n, double *params);

/* The index in SPECS (const DtsGpuSpec *) of a spec that prices kernels
 * like SPEC, or SPECS->len when there is none. */
guint dts_schedule_spec_index (const GPtrArray *specs, const DtsGpuSpec *spec);

/* Whether two GPU specs price kernels the same. */
gboolean dts_schedule_same_gpu (const DtsGpuSpec *a, const DtsGpuSpec *b);

G_END_DECLS

#endif
