/* schedule.h - training strategies as per-rank programs: pure data.
 *
 * A schedule turns (workload, cost model, platform view, options) into the
 * program every rank runs once per iteration, the gradient buckets and the
 * plan of each bucket's all-reduce. src/sim/ interprets programs with
 * SimGrid; tests inspect them without it.
 *
 * Data parallelism (dp.c), as PyTorch DDP and Horovod run synchronous SGD:
 * every rank holds the whole model and a batch of its own; per iteration it
 * runs the forward pass of every layer in order, the backward pass in reverse
 * order (backward-data then backward-weights of each layer), and the
 * optimizer update once every gradient has been all-reduced. Gradients
 * (fp32, 4 bytes per parameter, also under mixed precision) are grouped into
 * buckets in backward order: a bucket is closed as soon as it holds at least
 * bucket_bytes (DDP's bucket_cap_mb; DDP's smaller first bucket is not
 * modelled). A bucket's all-reduce is started right after the backward pass
 * of its last layer, so it overlaps the rest of backprop; without overlap all
 * all-reduces start after the whole backward pass. All-reduces run one at a
 * time, in bucket order, on a communication stream of their own (NCCL's
 * stream).
 *
 * Compute operations carry their time on an idle GPU (from the cost model);
 * the simulation turns it into work on the GPU host, so a GPU shared with a
 * reduction kernel slows down. Ranks with identical GPU specs share one
 * program.
 *
 * With the parameter-server collective ("ps"), the schedule also places the
 * servers (dts_schedule_ps_placement): round-robin over the nodes taking
 * part, on each node's first participating GPU, then its second, and so on
 * (TensorFlow's parameter-server tasks co-located on the worker machines).
 * Every bucket's plan uses the same servers. With --ps-aggregation node the
 * plans group the ranks by platform node (DtsGpu.node) and the node's first
 * participating rank talks to the servers (collective.h). */
#ifndef DTS_SCHEDULE_SCHEDULE_H
#define DTS_SCHEDULE_SCHEDULE_H

#include <glib.h>
#include "collective/collective.h"
#include "cost/cost.h"
#include "platform/platform.h"
#include "schedule/options.h"
#include "workload/workload.h"

G_BEGIN_DECLS

typedef enum {
  DTS_PHASE_FORWARD,
  DTS_PHASE_BACKWARD_DATA,
  DTS_PHASE_BACKWARD_WEIGHT,
  DTS_PHASE_UPDATE,
  DTS_PHASE_COUNT
} DtsPhase;

/* "forward", "backward-data", "backward-weight", "update" */
const char *dts_phase_to_string (DtsPhase phase);

typedef enum {
  DTS_OP_COMPUTE,         /* run a kernel of duration_s (idle GPU) on the rank's GPU */
  DTS_OP_ALLREDUCE_START, /* hand bucket `bucket` to the communication stream */
  DTS_OP_ALLREDUCE_WAIT,  /* wait until every bucket of the iteration is all-reduced */
} DtsOpType;

typedef struct {
  DtsOpType type;
  DtsPhase phase;     /* COMPUTE */
  int layer;          /* COMPUTE: workload layer index */
  int bucket;         /* ALLREDUCE_START */
  double duration_s;  /* COMPUTE, > 0 (zero-time kernels are left out) */
} DtsOp;

typedef struct {
  double bytes;       /* gradient bytes */
  double params;
  int n_layers;       /* layers with parameters in the bucket */
  int first_layer;    /* first in backward order (highest index) */
  int last_layer;     /* last in backward order: its gradient completes the bucket */
} DtsBucket;

/* Compute time of one iteration on an idle GPU, by phase. */
typedef struct {
  double phase_s[DTS_PHASE_COUNT];
  double total_s;
} DtsComputeTotals;

/* Device memory of one rank, in bytes. */
typedef struct {
  double weights_bytes;    /* fp32 master weights (+ fp16/bf16 copy under mixed precision) */
  double gradients_bytes;  /* fp32 gradients */
  double optimizer_bytes;  /* optimizer state (momentum 4, adam 8 bytes per parameter) */
  double activations_bytes;/* activations kept for backward at the batch size */
  double total_bytes;
} DtsMemoryEstimate;

typedef struct {
  char *strategy;          /* "dp" */
  int n_ranks;
  int batch_size;
  DtsPrecision precision;
  char *cost_source;       /* the cost model's provenance of layer 1 on rank 0 */
  GArray *buckets;         /* DtsBucket, in all-reduce order */
  GPtrArray *plans;        /* DtsCollPlan *, one per bucket */
  GPtrArray *programs;     /* GArray of DtsOp, one per distinct GPU spec */
  GArray *totals;          /* DtsComputeTotals, one per program */
  int *rank_program;       /* rank -> program index */
  DtsMemoryEstimate memory;
} DtsSchedule;

/* Build the data-parallel schedule for the first opts->n_gpus ranks of
 * PLATFORM. n_gpus larger than the platform, or non-positive sizes, are
 * DTS_ERROR_INVALID; cost-model errors are passed on. */
DtsSchedule *dts_schedule_dp_new (const DtsWorkload *workload, const DtsPlatform *platform,
                                  DtsCost *cost, const DtsRunOptions *opts, GError **error);
void dts_schedule_free (DtsSchedule *sched);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsSchedule, dts_schedule_free)

static inline const GArray *
dts_schedule_program (const DtsSchedule *s, int rank)
{
  return g_ptr_array_index (s->programs, s->rank_program[rank]);
}

/* Place N_SERVERS parameter servers on the first N_RANKS ranks of PLATFORM:
 * server k on node k mod M (M nodes take part), on that node's
 * (k div M)-th participating rank; nodes with fewer ranks are skipped.
 * N_SERVERS 0 means one per node. Returns the server -> rank array and sets
 * *N_SERVERS, or NULL with DTS_ERROR_INVALID when there are more servers
 * than ranks. */
int *dts_schedule_ps_placement (const DtsPlatform *platform, int n_ranks, int *n_servers,
                                GError **error);

/* Memory of one rank training WORKLOAD at BATCH and PRECISION. */
void dts_schedule_memory_estimate (const DtsWorkload *workload, int batch, DtsPrecision precision,
                                   DtsMemoryEstimate *out);

G_END_DECLS

#endif
