/* schedule.h - training strategies as per-rank programs: pure data.
 *
 * A schedule turns (workload, cost model, platform view, options) into the
 * program every rank runs once per iteration, the gradient buckets and the
 * plan of each bucket's all-reduce. src/sim/ interprets programs with
 * SimGrid; tests inspect them without it.
 *
 * Pipeline and hybrid (data x pipeline) parallelism are in pipeline.c, whose
 * header states their model.
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
 * stream); with comm_streams S > 1, bucket b goes to stream b mod S, each
 * stream with a communicator of its own (NCCL on several streams), so
 * buckets overlap each other.
 *
 * As programs (see the program model below): the compute stream runs the
 * layers' kernels and RECORDs event "ready" of the bucket's stream after the
 * backward pass of each bucket's last layer, then WAITs for event "done"
 * once per bucket before the optimizer's kernels; each communication stream
 * WAITs for its "ready", runs the bucket's collective (COLL) and RECORDs
 * "done"; each parameter server is a stream of its host rank that runs its
 * part of every bucket's collective in turn.
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
#include "cost/loss.h"
#include "platform/platform.h"
#include "schedule/mesh.h"
#include "schedule/options.h"
#include "workload/workload.h"

G_BEGIN_DECLS

typedef enum {
  DTS_PHASE_FORWARD,
  DTS_PHASE_BACKWARD_DATA,
  DTS_PHASE_BACKWARD_WEIGHT,
  DTS_PHASE_UPDATE,
  DTS_PHASE_RECOMPUTE,  /* a forward run again before its backward (--recompute) */
  DTS_PHASE_COUNT
} DtsPhase;

/* "forward", "backward-data", "backward-weight", "update", "recompute" */
const char *dts_phase_to_string (DtsPhase phase);

/* Whether A and B belong to one pass (forward, backward with its
 * recomputation, update): kernels of one pass in a row may be simulated as
 * one execution. */
gboolean dts_phase_same_pass (DtsPhase a, DtsPhase b);

/* The program model. Every rank runs one or more streams (a compute stream,
 * communication streams, parameter-server streams), as CUDA streams and
 * NCCL communicators do; each stream runs its operations in order, once per
 * iteration, for opts->iterations iterations, and streams synchronise only
 * through what they share: a rank's events (RECORD / WAIT, counting, like
 * cudaEventRecord / cudaStreamWaitEvent with a count), collectives over a
 * communicator, point-to-point SEND / RECV and barriers. There is no
 * implicit barrier between ranks or iterations: a stream starts its next
 * iteration as soon as it has finished the previous one. */
typedef enum {
  DTS_OP_COMPUTE,  /* run a kernel of duration_s (idle GPU) on the rank's GPU */
  DTS_OP_RECORD,   /* signal the rank's event `event` once */
  DTS_OP_WAIT,     /* wait for `count` signals of the rank's event `event` */
  DTS_OP_COLL,     /* take part in collective `coll` as participant `part` (-1: the rank's
                      member index in the collective's communicator) */
  DTS_OP_SEND,     /* send `bytes` to rank `peer` with tag `tag` */
  DTS_OP_RECV,     /* receive `bytes` from rank `peer` with tag `tag` */
  DTS_OP_BARRIER,  /* wait until every member of communicator `comm` has reached it */
  DTS_OP_APPLY,    /* parameter server: take gradients from any sender, update (see below) */
  DTS_OP_TYPE_COUNT
} DtsOpType;

/* "compute", "record", "wait", "coll", "send", "recv", "barrier", "apply" */
const char *dts_op_type_to_string (DtsOpType type);

/* What a compute stream's WAIT waits for, which decides where its time is
 * counted: exposed collective time (the default) or, for data from a
 * neighbouring pipeline stage, exposed transfer time and bubble. */
typedef enum {
  DTS_WAIT_COLL,      /* collectives of the rank's communication streams */
  DTS_WAIT_P2P,       /* a RECV of another stream of the rank (pipeline activations) */
  DTS_WAIT_GATHER,    /* --zero 1: the parameter all-gathers of its communication streams,
                         counted apart from the gradients' collectives */
  DTS_WAIT_TENSOR,    /* a tensor-parallel collective of the rank's tensor stream (--tp-overlap),
                         counted as the rank's tensor-parallel time */
} DtsWaitKind;

/* What a collective is, where its stream and bucket do not say it: on a
 * communication stream an untagged one is a bucket's gradient sync, or
 * with no bucket the distributed optimizer's parameter all-gather. */
typedef enum {
  DTS_COLL_PURPOSE_IMPLIED,
  DTS_COLL_PURPOSE_CONTEXT, /* context parallelism's key/value exchange (compute stream) */
  DTS_COLL_PURPOSE_EXPERT,  /* expert parallelism's token all-to-alls (compute stream) */
  DTS_COLL_PURPOSE_TENSOR,  /* tensor (and sequence) parallelism's: on the compute stream, or
                               with --tp-overlap on a tensor stream, whose compute stream
                               counts the wait for it (DTS_WAIT_TENSOR) */
} DtsCollPurpose;

/* Messages between any sender and a server (async-ps, sync-ps; async.c).
 *
 * A RECV whose peer is DTS_PEER_ANY takes the next message on (the rank,
 * tag) from whichever rank sent it. Every message carries its sender, the
 * model version the sender holds of the receiver's parameters (the version
 * of the last message it received from that rank; 0 before any), the
 * sender's iteration (its clock) and the samples its gradient was computed
 * on (`samples` of the SEND). A SEND with `detach` set is posted and the
 * stream goes on at once (a fire-and-forget RPC); it waits for its detached
 * sends at the end of the iteration.
 *
 * APPLY is a parameter-server update. The stream's rank receives, for tag
 * `tag`, the gradients that `senders` workers (ranks 0..senders-1) push; they
 * flow as soon as they are sent (the server's socket buffers) and queue in
 * arrival order. APPLY takes, under `policy`:
 *   each:  the first admissible gradient (one gradient, one update);
 *   merge: every admissible gradient that has arrived (at least one), so
 *          the update's mini-batch is the sum of their samples;
 *   all:   `count` gradients (synchronous replicas).
 * A gradient of clock c is admissible when `bound` < 0, or when every
 * worker has delivered at least c - bound + 1 gradients (stale-synchronous
 * parallel, Ho et al. 2013: the fastest worker runs at most `bound`
 * iterations ahead of the slowest; 0 is synchronous). The update then runs
 * on the rank's GPU for duration_s + (n - 1) x extra_s (n gradients taken)
 * and increments the server's version; its staleness (updates the server
 * applied between the worker's pull and this one) and mini-batch are
 * recorded in the trace. A SEND whose peer is DTS_PEER_REPLY sends `bytes`
 * carrying the new version to the sender of every gradient the stream's
 * last APPLY took and, under merge, to the sender of every admissible
 * gradient still waiting (once per gradient): with each, a push returns
 * once its gradient is applied (TensorFlow's asynchronous apply inside the
 * push); with merge, a worker's pull waits for the first version newer
 * than its own (SPRINT), whether or not it holds the worker's gradient. A stream with APPLY operations runs its program until
 * it has taken senders x iterations gradients, not once per iteration.
 * The server handles each gradient it receives and each reply it sends
 * for overhead_s before the next (an RPC's fixed cost, whatever its size),
 * up to `concurrency` messages at once in each direction. With `turn` set
 * it takes, among the gradients sent and not yet received, that of the
 * first worker from `first_sender` on (mod senders) rather than the
 * oldest: servers given different first senders then draw on different
 * workers' links at once where every worker sent at the same instant. */
#define DTS_PEER_ANY (-1)
#define DTS_PEER_REPLY (-2)

typedef enum {
  DTS_APPLY_EACH,
  DTS_APPLY_MERGE,
  DTS_APPLY_ALL,
  DTS_APPLY_COUNT
} DtsApplyPolicy;

/* "each", "merge", "all" */
const char *dts_apply_policy_to_string (DtsApplyPolicy p);

typedef struct {
  DtsOpType type;
  DtsPhase phase;     /* COMPUTE */
  int layer;          /* COMPUTE: workload layer index; else -1 */
  int micro_batch;    /* COMPUTE: 0 without micro-batches */
  int bucket;         /* RECORD, COLL: the gradient bucket it concerns (traces); APPLY: the
                         bucket whose part of the shard it updates (sync-ps pushing during
                         the backward pass); else -1 */
  int event;          /* RECORD, WAIT: 0 .. n_events-1 */
  int count;          /* WAIT: >= 1 */
  int coll;           /* COLL: index into plans */
  int part;           /* COLL */
  int peer;           /* SEND, RECV: rank */
  int tag;            /* SEND, RECV */
  int comm;           /* BARRIER: index into comms */
  DtsWaitKind wait;   /* WAIT: what the stream waits for (how the time is counted) */
  DtsCollPurpose purpose; /* COLL: what it is (how the time is counted) */
  double bytes;       /* SEND, RECV */
  double duration_s;  /* COMPUTE, > 0 (zero-time kernels are left out); APPLY: first gradient */
  /* SEND, RECV, APPLY between workers and servers (see above) */
  gboolean detach;    /* SEND: post and go on */
  int samples;        /* SEND: samples of the gradient it carries */
  DtsApplyPolicy policy; /* APPLY */
  int bound;          /* APPLY: staleness bound in worker iterations, -1 none */
  int senders;        /* APPLY: workers pushing to it (ranks 0..senders-1) */
  int shard;          /* APPLY: server index (traces) */
  double extra_s;     /* APPLY: update time per gradient after the first */
  double overhead_s;  /* APPLY: the server's fixed cost per message received or sent */
  int concurrency;    /* APPLY: messages the server moves at once in each direction (>= 1) */
  gboolean turn;      /* APPLY: take the gradients sent from sender first_sender on, turning
                         (first_sender, +1, ... mod senders), not in the order they were sent */
  int first_sender;   /* APPLY, with turn */
  /* New fields go above first_sender, and are compared in program.c's
   * same_but_plan (which programs are one run on other communicators):
   * its assertions on this struct's layout stop a build that forgot it. */
} DtsOp;

typedef enum {
  DTS_STREAM_COMPUTE, /* the rank's kernels: its iterations start and end here */
  DTS_STREAM_COMM,    /* collectives of the rank (an NCCL stream) */
  DTS_STREAM_SERVER,  /* a parameter server hosted by the rank */
  DTS_STREAM_P2P,     /* point-to-point sends or receives of the rank (pipeline) */
} DtsStreamKind;

typedef struct {
  int rank;           /* the GPU whose host runs it */
  DtsStreamKind kind;
  int index;          /* COMM, P2P: stream number on the rank; SERVER: server index */
  int program;        /* index into programs */
} DtsStream;

/* A group of ranks collectives run over (an MPI/NCCL communicator).
 * Collectives of different communicators never match each other's
 * messages, even between the same ranks. */
typedef struct {
  char *name;         /* "world", "world-1", ... (owned) */
  int n_ranks;
  int *ranks;         /* member -> rank (owned) */
  int *member_of;     /* rank -> member, -1 outside (owned, n_ranks of the schedule) */
} DtsCommunicator;

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

/* A pipeline stage: a contiguous range of layers and the ranks (its
 * data-parallel replicas) that run it. */
typedef struct {
  int first_layer;         /* with chunks: of the first chunk */
  int last_layer;
  int n_chunks;            /* --virtual-stages V > 1: the stage's V chunks, else 0 */
  int *chunks;             /* first and last layer of each chunk (2 n_chunks, owned) */
  int n_replicas;
  int tensor_parallel;     /* GPUs per replica (a tensor-parallel group) */
  int n_ranks;             /* n_replicas x tensor_parallel */
  int *ranks;              /* replica x tensor_parallel + tensor rank -> rank (owned) */
  int comm;                /* its replicas' communicator (gradients), or -1 */
  int first_bucket;        /* its buckets are first_bucket .. first_bucket + n_buckets - 1 */
  int n_buckets;
  double params;
  double send_bytes;       /* activation bytes per sample sent to the next stage */
  int stashed;             /* micro-batches whose activations are kept at the peak */
  DtsMemoryEstimate memory;/* of one replica, at the peak */
} DtsStage;

typedef struct {
  char *strategy;          /* "dp", "pipeline", "hybrid", "allreduce" */
  int n_ranks;
  int batch_size;
  DtsPrecision precision;
  char *cost_source;       /* the cost model's provenance of layer 1 on rank 0 */
  GArray *buckets;         /* DtsBucket, in all-reduce order */
  GPtrArray *plans;        /* DtsCollPlan *: the collectives of one iteration (one per bucket) */
  int *plan_comm;          /* collective -> index into comms */
  GPtrArray *comms;        /* DtsCommunicator * */
  GPtrArray *programs;     /* GArray of DtsOp; streams with the same operations share one */
  GArray *totals;          /* DtsComputeTotals, one per program (zero without compute) */
  GArray *streams;         /* DtsStream, in the order the simulation starts them */
  int n_events;            /* events per rank */
  int *event_initial;      /* [rank x n_events + event]: signals the event holds when the run
                              starts (owned), or NULL: none */
  int *rank_program;       /* rank -> the program of its compute stream, or -1 */
  /* Programs shared by ranks that run the same operations on communicators
   * of their own (the data-parallel replicas of a pipeline stage under
   * tensor or context parallelism, whose collectives are their groups'):
   * a rank's collectives are its plan map's image of those the program
   * names (dts_schedule_rank_plan). NULL when no rank has one. */
  GPtrArray *plan_maps;    /* GArray of int: [plan the program names] -> the rank's, -1 or
                              past the end: the same plan */
  int *rank_plan_map;      /* rank -> index into plan_maps, or -1: the programs' own plans */
  DtsMemoryEstimate memory;/* of the rank with the largest total */
  int samples_per_iteration; /* the global mini-batch */
  int micro_batches;       /* pipeline: per iteration; else 1 */
  int expert_parallel;     /* GPUs each mixture's experts are spread over (1: none) */
  double moe_imbalance;    /* the busiest GPU's routed tokens over the mean (1: balanced);
                              drawn per layer (moe_routing_alpha) or capped (moe_capacity):
                              the mean over the layers */
  double moe_imbalance_max;/* drawn or capped: the largest layer's; else 0 */
  double moe_dropped;      /* the share of the routed tokens the capacity drops, mean over
                              the layers (drawn routing only; else 0) */
  int param_gathers;       /* --zero: all-gathers of each bucket's parameters per iteration:
                              1, or 2 per micro-batch where --zero 3 reshards after the
                              forward pass (gathers again before the backward); 0 without
                              --zero */
  int grad_reductions;     /* reductions of each bucket's gradients per iteration: 1, or the
                              micro-batches where --zero 3 on one stage reduce-scatters
                              after every backward pass (FSDP's gradient accumulation) */
  GArray *stages;          /* DtsStage (pipeline, hybrid), or NULL */
  DtsMesh *mesh;           /* where the ranks sit and which groups they form (dp, pipeline,
                              hybrid; owned), or NULL (parameter servers) */
  const char *partition;   /* pipeline: "uniform", "balanced" or "given" (static), else NULL */
  int partition_blocks;    /* pipeline: the workload's repeated blocks (0: none) */
  int *rank_stage;         /* rank -> stage, or NULL */
  /* parameter-server strategies (async-ps, sync-ps; n_shards 0 otherwise) */
  int n_shards;
  int ps_parts;            /* parts of every shard that are updated and sent on their own: 1,
                              or sync-ps's buckets when it pushes during the backward pass
                              (APPLY's `bucket`) */
  int *shard_rank;         /* shard -> the rank whose host runs it (owned) */
  int *rank_cpu;           /* rank -> index into the platform's cpus when the rank is a CPU
                              host (--ps-placement cpus), else -1; NULL: every rank is a GPU */
  double shard_bytes;      /* fp32 parameters of one shard */
  double update_s;         /* a shard's update with one gradient, idle GPU of shard 0 */
  double update_extra_s;   /* ... per further gradient (merge, all) */
  DtsApplyPolicy ps_update;
  int staleness_bound;     /* -1: none */
} DtsSchedule;

#define DTS_SCHEDULE_MAX_COMM_STREAMS 64

void dts_communicator_free (DtsCommunicator *comm);

/* Build the data-parallel schedule for the first opts->n_gpus ranks of
 * PLATFORM. n_gpus larger than the platform, or non-positive sizes, are
 * DTS_ERROR_INVALID; cost-model errors are passed on. */
DtsSchedule *dts_schedule_dp_new (const DtsWorkload *workload, const DtsPlatform *platform,
                                  DtsCost *cost, const DtsRunOptions *opts, GError **error);
void dts_schedule_free (DtsSchedule *sched);

/* Pipeline parallelism over opts->stages GPUs, and hybrid data x pipeline
 * parallelism (pipeline.c, whose header comment states the model); the
 * options must have been resolved by the strategy's resolve function. */
DtsSchedule *dts_schedule_pipeline_new (const DtsWorkload *workload, const DtsPlatform *platform,
                                        DtsCost *cost, const DtsRunOptions *opts, GError **error);
DtsSchedule *dts_schedule_hybrid_new (const DtsWorkload *workload, const DtsPlatform *platform,
                                      DtsCost *cost, const DtsRunOptions *opts, GError **error);
gboolean dts_schedule_pipeline_resolve (DtsRunOptions *opts, int n_available, GError **error);
gboolean dts_schedule_hybrid_resolve (DtsRunOptions *opts, int n_available, GError **error);

/* Asynchronous and synchronous parameter-server training (async.c, whose
 * header comment states the model). */
DtsSchedule *dts_schedule_async_ps_new (const DtsWorkload *workload, const DtsPlatform *platform,
                                        DtsCost *cost, const DtsRunOptions *opts, GError **error);
DtsSchedule *dts_schedule_sync_ps_new (const DtsWorkload *workload, const DtsPlatform *platform,
                                       DtsCost *cost, const DtsRunOptions *opts, GError **error);
/* Without --gpus, every GPU not running a server of --ps-placement own
 * is a worker. */
gboolean dts_schedule_ps_resolve (DtsRunOptions *opts, int n_available, GError **error);
/* The parameter-server rows' configure (DtsStrategy): their option values
 * into OPTS->ps, --ps-count (the ps collective's) as --ps-shards. */
gboolean dts_schedule_ps_configure (DtsRunOptions *opts, const DtsOptionValues *values,
                                    GError **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsSchedule, dts_schedule_free)

/* The SimGrid host of RANK (a GPU, or a CPU host: rank_cpu) and the line
 * that declares it. */
static inline const char *
dts_schedule_rank_host (const DtsSchedule *s, const DtsPlatform *platform, int rank, int *line)
{
  if (s->rank_cpu != NULL && s->rank_cpu[rank] >= 0) {
    const DtsCpu *c = &g_array_index (platform->cpus, DtsCpu, s->rank_cpu[rank]);
    if (line != NULL)
      *line = c->line;
    return c->host;
  }
  const DtsGpu *g = dts_platform_gpu (platform, rank);
  if (line != NULL)
    *line = g->line;
  return g->host;
}

/* The plan that RANK runs where one of its programs names plan K. */
static inline int
dts_schedule_rank_plan (const DtsSchedule *s, int rank, int k)
{
  if (s->rank_plan_map == NULL || s->rank_plan_map[rank] < 0)
    return k;
  const GArray *map = g_ptr_array_index (s->plan_maps, s->rank_plan_map[rank]);
  int to = k >= 0 && (guint) k < map->len ? g_array_index (map, int, k) : -1;
  return to >= 0 ? to : k;
}

/* Whether program B is program A run on other communicators: the same
 * operations but for the plans their collectives name, each plan A names
 * standing for one plan of B. MAP (int, indexed by A's plans; -1: none
 * yet, and it grows as needed) receives and is checked against the
 * correspondence, so that two programs can be matched under one map; on
 * FALSE its contents are unspecified. */
gboolean dts_schedule_program_match (const GArray *a, const GArray *b, GArray *map);

/* Whether programs A and B are the same operations but for the peers and
 * tags of their messages (SEND, RECV): one stage's point-to-point streams
 * in two replicas of a pipeline. */
gboolean dts_schedule_program_same_but_peers (const GArray *a, const GArray *b);

/* The program of RANK's compute stream. */
static inline const GArray *
dts_schedule_program (const DtsSchedule *s, int rank)
{
  return g_ptr_array_index (s->programs, s->rank_program[rank]);
}

/* An empty schedule of strategy STRATEGY over N_RANKS ranks: no plans,
 * communicators, programs, totals or streams yet, every rank on program 0,
 * and no buckets (NULL: the builder sets them). */
DtsSchedule *dts_schedule_new_empty (const char *strategy, int n_ranks, int batch_size,
                                     DtsPrecision precision);

/* A schedule with no compute: every one of the first N_RANKS ranks runs one
 * communication stream that, for each plan in PLANS (taken over; all over
 * the N ranks, in order), waits at a barrier of all ranks and then takes
 * part in the plan (`dtsim allreduce`: nccl-tests synchronises before
 * timing each size). */
DtsSchedule *dts_schedule_collectives_new (int n_ranks, GPtrArray *plans);

/* Add communicator NAME over RANKS (N of them, ranks of SCHED) and return
 * its index. */
int dts_schedule_add_comm (DtsSchedule *sched, const char *name, const int *ranks, int n);

/* Whether collectives A and B of SCHED join the same pairs of participants
 * over the same communicator (bucket plans of one stream): route checks,
 * FATPIPE relaxation and flow latencies are done once for both. */
gboolean dts_schedule_same_peers (const DtsSchedule *sched, guint a, guint b);

/* Write SCHED as text to OUT (`--dump-plan`): the communicators, the
 * collectives with their per-step transfers (every participant's when the
 * plan has at most MAX_TRANSFERS transfers, else the first participants'
 * and a count), and every distinct program with the streams that run it.
 * LAYER_NAMES (may be NULL) names compute operations. */
void dts_schedule_dump (const DtsSchedule *sched, const GPtrArray *layer_names,
                        double max_transfers, GString *out);

/* The SimGrid activities (executions, transfers, latency waits) that
 * simulating SCHED for ITERATIONS iterations will start, at flow or step
 * granularity, with consecutive compute kernels of one pass merged
 * (MERGE: no per-layer trace) or not: the cost guard of `dtsim run`.
 * ANALYTIC (may be NULL): the plans run at analytic granularity (a mask
 * over sched->plans, dts_sim_run_plans_analytic), one activity per
 * participant and call (a wait) whatever their steps. Every call of a
 * collective whose fixed cost (OVERHEAD_S, --coll-overhead, plus the
 * protocol's plan->fixed_s) is not 0 adds a wait per participant.
 * *COUPLED (where not NULL): the sum over the transfers of the number of
 * transfers each shares the network with, where that is many (a direct
 * all-to-all's: every transfer of its step), to the power
 * DTS_SCHEDULE_COUPLING_EXPONENT, at flow; the wall-time estimate's last
 * term. */
double dts_schedule_estimate_activities (const DtsSchedule *sched, gboolean flow, gboolean merge,
                                         int iterations, const guint8 *analytic,
                                         double overhead_s, double *coupled);

/* Above this many estimated activities a run is refused unless the user
 * raises the limit: at the 5-25 us of wall time per activity measured on
 * 768 to 16k GPUs (doc/SIMULATION.md), 15 minutes to more than an hour. */
#define DTS_SCHEDULE_MAX_ACTIVITIES 2e8

/* Wall time to simulate ACTIVITIES activities of S (an estimate from
 * dts_schedule_estimate_activities): DTS_SCHEDULE_ACTIVITY_S each at 64
 * ranks, times (ranks / 64)^0.53 (measured: 1.3 us per activity for
 * Llama-3-70B on 64 H100, TP 8 x PP 4 x DP 2, 8.3 s for 6.2e6; 5 us at 768
 * GPUs and 25 us at 16k, data-parallel ResNet-50 at flow), plus
 * DTS_SCHEDULE_ACTIVITY_S_PER_FLOW2 times the square of the transfers the
 * parameter servers keep in flight at once (F, dts_schedule_server_flows).
 * SimGrid re-solves the bandwidth sharing of every flow connected to one
 * that starts or ends; the servers' transfers cross every node's network
 * interface and so connect all of them, and an activity costs about F^2
 * (measured, one core: 1,024 workers and 64 shards, 16 us of CPU per
 * activity at F = 128 and 426 us at F = 1,024; doc/SIMULATION.md, "The
 * cost guard"). A rough figure, within a few times the measured ones; too
 * high when the concurrency nears the workers (pushes that arrive together
 * share the links equally and end together: 16 s estimated for 0.4 s with
 * 64 workers, sync-ps, --ps-concurrency 64). Plus
 * DTS_SCHEDULE_ACTIVITY_S_PER_COUPLED times COUPLED (from the same
 * estimate): a direct all-to-all's transfers are all connected, each
 * through its source's and its destination's links, and one that starts
 * or ends costs time that grows as the 0.4th power of how many there are
 * (fitted on Qwen3-30B-A3B, PP 4 with DP = EP = 16, 32 and 64 on H100
 * nodes of 8, one iteration at flow: 2.3, 16.6 and 105 s measured on one
 * core, 0.6, 3.1 and 17 s estimated without this term; doc/SIMULATION.md,
 * "The cost guard"). */
double dts_schedule_server_flows (const DtsSchedule *sched);
double dts_schedule_estimate_wall_s (const DtsSchedule *sched, double activities,
                                     double coupled);
#define DTS_SCHEDULE_ACTIVITY_S 1.3e-6
#define DTS_SCHEDULE_ACTIVITY_S_PER_FLOW2 0.4e-9
#define DTS_SCHEDULE_ACTIVITY_S_PER_COUPLED 0.35e-6
#define DTS_SCHEDULE_COUPLING_EXPONENT 0.4

/* `dtsim run` says on stderr before it starts a run estimated to take at
 * least this many seconds of wall time (DTSIM_LONG_RUN_S in the
 * environment sets another threshold), with -q too. */
#define DTS_SCHEDULE_LONG_RUN_S 60.0

/* Transfers of a plan printed in full by --dump-plan. */
#define DTS_SCHEDULE_DUMP_MAX_TRANSFERS 4096

/* Strategies are rows of a table (program.c): each turns the inputs into a
 * schedule. */
typedef struct {
  const char *id;
  const char *description;
  DtsSchedule *(*schedule_new) (const DtsWorkload *workload, const DtsPlatform *platform,
                                DtsCost *cost, const DtsRunOptions *opts, GError **error);
  /* Options only this strategy takes (core/option.h), or NULL. */
  const DtsOptionSpec *options;
  /* Set the options the strategy derives (n_gpus when 0, from the
   * N_AVAILABLE GPUs of the platform; its own counts) and check how they
   * combine, before the inputs are priced; NULL: n_gpus defaults to all. */
  gboolean (*resolve) (DtsRunOptions *opts, int n_available, GError **error);
  /* Whether the strategy runs collectives under OPTS (the collectives'
   * options mean nothing where it does not: src/driver/run.c refuses
   * --collective there and warns of the others); NULL: it always does. */
  gboolean (*runs_collectives) (const DtsRunOptions *opts);
  /* Read the values given to OPTIONS (checked against their specs) into
   * the strategy's part of OPTS; NULL: a strategy whose options the
   * command line still copies into DtsRunOptions itself. */
  gboolean (*configure) (DtsRunOptions *opts, const DtsOptionValues *values, GError **error);
} DtsStrategy;

/* STRATEGY's runs_collectives, TRUE where it has none. */
gboolean dts_schedule_strategy_runs_collectives (const DtsStrategy *strategy,
                                                 const DtsRunOptions *opts);

/* The table, terminated by a row with id NULL. */
const DtsStrategy *dts_schedule_strategies (void);
/* The row of ID, or NULL. */
const DtsStrategy *dts_schedule_strategy_lookup (const char *id);

/* Place N_SERVERS parameter servers on the first N_RANKS ranks of PLATFORM:
 * server k on node k mod M (M nodes take part), on that node's
 * (k div M)-th participating rank; nodes with fewer ranks are skipped.
 * N_SERVERS 0 means one per node. Returns the server -> rank array and sets
 * *N_SERVERS, or NULL with DTS_ERROR_INVALID when there are more servers
 * than ranks. */
int *dts_schedule_ps_placement (const DtsPlatform *platform, int n_ranks, int *n_servers,
                                GError **error);

/* Full recomputation needs repeated blocks (block >= 0), selective an
 * attention layer: DTS_ERROR_USAGE otherwise, so that the option never does
 * nothing silently. */
gboolean dts_schedule_check_recompute (const DtsWorkload *w, DtsRecompute recompute,
                                       GError **error);

/* The sequence that context parallelism cuts in W: the greatest common
 * divisor of its attention layers' sequences, 0 where it has no attention
 * layer. *UNFUSED: its first attention layer that is not fused (ring
 * attention runs a fused kernel), or NULL. */
int dts_schedule_context_tokens (const DtsWorkload *w, const DtsLayer **unfused);

/* Whether a ring of C GPUs cuts a sequence of TOKENS (as
 * dts_schedule_context_tokens gives it): each GPU takes two of 2 C equal
 * chunks, so TOKENS must be a positive multiple of 2 C. */
static inline gboolean
dts_schedule_context_fits (int tokens, int C)
{
  return C >= 1 && tokens > 0 && tokens % (2 * C) == 0;
}

/* Memory of one rank training WORKLOAD at BATCH and PRECISION under
 * RECOMPUTE, its cross-entropy loss keeping what LOSS keeps. */
void dts_schedule_memory_estimate (const DtsWorkload *workload, int batch, DtsPrecision precision,
                                   DtsRecompute recompute, DtsLossKernel loss,
                                   DtsMemoryEstimate *out);

G_END_DECLS

#endif
