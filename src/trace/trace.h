/* trace.h - what a simulation recorded, and the summary of a run: plain data.
 *
 * A layer of its own (src/trace) that includes nothing but GLib, so that the
 * writers in src/output/ read traces and summaries without seeing the
 * simulator (the layering lint checks it).
 *
 * Recording: the simulation always keeps, per rank and iteration, the busy
 * time of each compute phase, the time the compute stream waited for
 * all-reduces and the time the communication stream spent in them, and per
 * iteration and bucket the ready/start/end times on rank 0. With
 * record_slices it also keeps every slice (one per layer and phase on the
 * compute track, one per bucket all-reduce on the communication track), for
 * the Chrome trace. Times are simulated seconds from the start of the run. */
#ifndef DTS_TRACE_TRACE_H
#define DTS_TRACE_TRACE_H

#include <glib.h>

G_BEGIN_DECLS

/* Compute phases in the order of the schedule's DtsPhase. */
#define DTS_TRACE_N_PHASES 5
/* Collective operations in the order of the collective module's DtsCollOp. */
#define DTS_TRACE_N_COLL_OPS 6

typedef enum {
  DTS_TRACK_COMPUTE,
  DTS_TRACK_COMM,
  DTS_TRACK_PULL,     /* a parameter-server worker receiving a shard's weights (index: -1) */
  DTS_TRACK_TENSOR,   /* a tensor-parallel collective (index: its DtsCollOp), on the compute
                         stream or, with --tp-overlap, the rank's tensor stream */
} DtsTrack;

typedef struct {
  int rank;
  int iteration;
  DtsTrack track;
  int phase;          /* compute: 0..DTS_TRACE_N_PHASES-1; comm: -1 */
  int index;          /* compute: layer index; comm: bucket index; tensor: the
                         operation, 0..DTS_TRACE_N_COLL_OPS-1 (coll_op_names) */
  double t_start_s;
  double t_end_s;
  double bytes;       /* comm: bytes all-reduced; compute: 0 */
} DtsTraceSlice;

/* One participant's step of a collective (step granularity), or one of
 * its phases (flow granularity: step -1), when steps are recorded. */
typedef struct {
  int bucket;         /* the collective's index in the iteration */
  int rank;
  int step;           /* 0 .. n_steps-1, or -1 for a whole phase */
  int phase;          /* index into the plan's phases */
  double t_start_s;
  double t_end_s;
} DtsTraceStep;

/* One update of a parameter-server shard (async-ps, sync-ps). */
typedef struct {
  int shard;
  int bucket;         /* the bucket whose part of the shard it updates, or -1: the shard */
  int n_gradients;    /* gradients it applied */
  int samples;        /* its effective mini-batch: the sum of their samples */
  int min_clock;      /* the smallest iteration of its gradients' workers */
  double t_start_s;
  double t_end_s;
} DtsTraceUpdate;

/* One gradient as a shard applied it. */
typedef struct {
  int shard;
  int worker;         /* its sender's rank */
  int clock;          /* the sender's iteration */
  gint64 staleness;   /* updates of the shard between the worker's pull and this update */
  double arrived_s;
  double applied_s;   /* start of its update */
} DtsTraceGradient;

typedef struct {
  int n_ranks;
  int n_iterations;
  int n_buckets;           /* collectives per iteration (gradient buckets) */
  char *phase_names[DTS_TRACE_N_PHASES];  /* "forward", ... (owned) */
  char *coll_op_names[DTS_TRACE_N_COLL_OPS]; /* "all-reduce", ... (owned): tensor slices */
  GPtrArray *layer_names;  /* char *, by layer index (owned) */
  GPtrArray *rank_hosts;   /* char *, SimGrid host of each rank (owned) */
  GArray *slices;          /* DtsTraceSlice in the order recorded, or NULL */

  /* [rank * n_iterations + iteration] */
  double *iter_start_s;
  double *iter_end_s;
  double *phase_s;         /* [(rank * n_iterations + it) * DTS_TRACE_N_PHASES + phase] */
  double *wait_s;          /* compute stream blocked on all-reduces */
  double *comm_s;          /* communication stream busy in all-reduces */
  double *p2p_wait_s;      /* compute stream blocked on data from a neighbouring stage */
  double *p2p_xfer_s;      /* the part of p2p_wait_s the data was in flight */
  double *tp_s;            /* compute stream in collectives of its own (tensor parallelism) */
  double *cp_s;            /* compute stream in context parallelism's key/value exchange */
  double *ep_s;            /* compute stream in expert parallelism's all-to-alls */
  double *gather_wait_s;   /* --zero 1: compute stream blocked on parameter all-gathers (not
                              in wait_s) */
  double *gather_s;        /* --zero 1: communication stream busy in parameter all-gathers
                              (not in comm_s) */
  int *bucket_rank;        /* [bucket]: the rank whose bucket times are kept (0 by default) */
  /* [iteration * n_buckets + bucket], on bucket_rank */
  double *bucket_ready_s;
  double *bucket_start_s;
  double *bucket_end_s;
  double *bucket_end_max_s; /* [iteration * n_buckets + bucket], the last rank's end */
  GArray *steps;           /* DtsTraceStep in the order recorded, or NULL */

  GArray *links;           /* DtsTraceLink, busiest first, with link_stats; else NULL */
  /* parameter servers (NULL without) */
  GArray *ps_updates;      /* DtsTraceUpdate, in the order they started */
  GArray *ps_gradients;    /* DtsTraceGradient, in the order applied */
  double *ps_busy_s;       /* [shard]: time in updates (n_shards of them) */
  int n_shards;
  int ps_parts;            /* parts of a shard updated on their own (DtsSchedule.ps_parts) */

  gint64 events;           /* simulated activities: executions, transfers, sleeps */
  int plans_analytic;      /* --comm-granularity auto: plans run at analytic granularity */
  double wall_time_s;      /* host time spent simulating */
  double makespan_s;       /* simulated time at the end */
} DtsTrace;

/* A link and what the run sent through it (SimGrid's link bandwidth). */
typedef struct {
  char *name;              /* (owned) */
  double bandwidth_Bps;
  double bytes;            /* over the whole run */
  double busy_fraction;    /* bytes / bandwidth / simulated time */
} DtsTraceLink;

/* An empty array of DtsTraceLink that frees their names. */
GArray *dts_trace_links_new (void);

DtsTrace *dts_trace_new (int n_ranks, int n_iterations, int n_buckets, gboolean record_slices);
void dts_trace_free (DtsTrace *trace);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsTrace, dts_trace_free)

static inline gsize
dts_trace_ri (const DtsTrace *t, int rank, int iteration)
{
  return (gsize) rank * t->n_iterations + iteration;
}

/* The warm-up iterations W of a run of N_ITERATIONS that the summary
 * leaves out: 1 when it has more than one, else 0. */
static inline int
dts_trace_warmup (int n_iterations)
{
  return n_iterations > 1 ? 1 : 0;
}

/* Per-bucket figures of a run (rank 0, averaged over the measured iterations;
 * times relative to the start of the iteration). */
typedef struct {
  double bytes;
  int n_layers;
  char *first_layer;   /* first in backward order (owned) */
  char *last_layer;    /* its gradient completes the bucket (owned) */
  double ready_s;      /* when the compute stream handed it over */
  double start_s;      /* when its all-reduce started */
  double end_s;
  double duration_s;
  const char *algorithm; /* --collective auto: the algorithm chosen for it (static), else NULL */
  const char *protocol;  /* --collective auto: the protocol the model picked (static) */
  double predicted_s;    /* --collective auto: the model's time for it alone */
  const char *chooser;   /* "auto" or "nccl" (static) when one chose the algorithm, else NULL */
  const char *nccl_algo; /* --collective nccl: NCCL's name of it ("Ring", static), else NULL */
  int channels;          /* --collective nccl: the channels it chose, else 0 */
} DtsBucketStat;

/* Kinds of time a rank's compute stream spends blocked, the columns of
 * DtsRankStat.wait_s. A strategy that blocks for something else appends a
 * kind before DTS_RANK_WAIT_N_KINDS, its id in trace.c and the time it records. */
typedef enum {
  DTS_RANK_WAIT_ALLREDUCE,   /* compute stream waiting for gradient all-reduces */
  DTS_RANK_WAIT_TENSOR,      /* tensor parallelism: in its own all-reduces */
  DTS_RANK_WAIT_TRANSFER,    /* pipelines: for a neighbouring stage's data in flight */
  DTS_RANK_WAIT_BUBBLE,      /* pipelines: for a neighbouring stage to produce it */
  DTS_RANK_WAIT_GATHER,      /* --zero 1: for the parameter all-gathers (not gradient sync) */
  DTS_RANK_WAIT_CONTEXT,     /* context parallelism: in its key/value exchange */
  DTS_RANK_WAIT_EXPERT,      /* expert parallelism: in its token all-to-alls */
  DTS_RANK_WAIT_N_KINDS,
} DtsRankWait;

/* "allreduce", "tensor", "transfer", "bubble", "gather", "context", "expert": the kind's id in JSON
 * keys and CSV columns (static). */
const char *dts_trace_wait_kind_id (DtsRankWait kind);

/* One rank's steady state: means over the measured iterations. compute_s
 * + the waits + idle_s = the run's iteration_time_s. */
typedef struct {
  int rank;
  char *host;                          /* SimGrid host (owned) */
  double phase_s[DTS_TRACE_N_PHASES];  /* busy time of each compute phase */
  double compute_s;                    /* their sum */
  double wait_s[DTS_RANK_WAIT_N_KINDS];     /* compute stream blocked, by kind */
  double comm_s;                       /* communication stream busy in gradient sync */
  double gather_s;                     /* ... in parameter all-gathers (--zero 1) */
  double idle_s;                       /* iteration_time_s - compute_s - waits:
                                          done before the last rank */
} DtsRankStat;

/* What limits a run, from the per-rank figures (trace.c says how). */
typedef enum {
  DTS_BOTTLENECK_SINGLE_GPU,    /* one GPU: nothing to wait for */
  DTS_BOTTLENECK_STRAGGLER,     /* some rank computes much longer than the others */
  DTS_BOTTLENECK_NO_OVERLAP,    /* overlap off: all communication exposed */
  DTS_BOTTLENECK_COMMUNICATION, /* > 25% of the iteration waits for all-reduce */
  DTS_BOTTLENECK_MIXED,         /* 5% to 25% */
  DTS_BOTTLENECK_COMPUTE,       /* below 5% */
  DTS_BOTTLENECK_STAGE_IMBALANCE, /* pipelines: a stage computes > 10% more than the mean */
  DTS_BOTTLENECK_BUBBLE,        /* pipelines: > 10% of the iteration is bubble */
} DtsBottleneck;

/* "straggler", "communication", ... (static). */
const char *dts_bottleneck_id (DtsBottleneck b);
/* Where a rank sits in the mesh of a data, pipeline, tensor or hybrid run. */
typedef struct {
  int stage;           /* pipeline stage (0 without a pipeline) */
  int replica;         /* data-parallel replica of its stage */
  int tensor;          /* rank in its tensor-parallel group (0 without) */
  int node;            /* index into DtsRunSummary.mesh_nodes */
} DtsMeshRank;

/* Per-stage figures of a pipeline run: means over the stage's replicas and
 * the measured iterations. */
typedef struct {
  char *first_layer;   /* (owned) */
  char *last_layer;    /* (owned) */
  int n_layers;        /* of all its chunks */
  int chunks;          /* --virtual-stages: model chunks of the stage (1: none) */
  char *chunk_ranges;  /* the other chunks' "first-last, ..." (owned), or NULL */
  int replicas;
  int tensor_parallel; /* GPUs per replica */
  int first_rank;      /* rank of its first replica */
  double params;
  double compute_s;    /* busy in forward, backward and optimizer kernels */
  double allreduce_exposed_s; /* waiting for its gradient sync (all-reduces; --zero 1:
                                 reduce-scatters) */
  double gather_exposed_s;    /* --zero 1: waiting for its parameter all-gathers */
  double tensor_s;     /* in tensor-parallel all-reduces (they block compute) */
  double transfer_exposed_s;  /* waiting while activations or gradients were in flight */
  double bubble_s;     /* waiting for a neighbouring stage to produce them */
  double busy_fraction;/* compute_s / iteration time */
  double send_bytes;   /* activations sent to the next stage per iteration and replica */
  int stashed;         /* micro-batches whose activations are kept at the peak */
  double memory_bytes; /* of one replica at the peak */
  double activations_bytes;
} DtsStageStat;

/* Means over the measured iterations (warm-up left out) of one rank's
 * compute stream: busy time, and waits by kind. */
typedef struct {
  double compute_s;
  double coll_wait_s;           /* gradient sync and parameter all-gathers */
  double gather_wait_s;         /* the part of coll_wait_s in parameter all-gathers */
  double tp_s;
  double p2p_wait_s;
  double p2p_xfer_s;
} DtsRankTimes;

/* A distribution of integer values: moments, percentiles (nearest rank)
 * and a histogram (one bin per value up to DTS_DIST_MAX_BINS bins, else
 * equal-width bins; bin i counts values in [bin_lo[i], bin_lo[i] + width)). */
#define DTS_DIST_MAX_BINS 32
typedef struct {
  gint64 n;
  double mean;
  double std;
  double min;
  double max;
  double p50;
  double p90;
  double p99;
  int n_bins;
  double step;        /* the values' common divisor (1 at least): a bin of one step holds one
                         value */
  double bin_width;
  double bin_lo[DTS_DIST_MAX_BINS];
  gint64 bin_count[DTS_DIST_MAX_BINS];
} DtsDistribution;

/* Fill D from the N values V (sorted in place). */
void dts_distribution_fill (DtsDistribution *d, double *v, gsize n);

/* Everything the writers print. Names are owned copies. */
typedef struct {
  /* inputs */
  char *platform;
  char *workload;
  char *gpu;               /* GPU of rank 0 */
  int n_nodes;             /* nodes spanned by the ranks */
  char *cost_model;
  char *cost_source;
  char *cost_assumed;      /* what the cost takes from another architecture for this
                              GPU (dts_cost_assumption), NULL when nothing */
  char *framework;         /* framework profile id ("generic", "pytorch", a file's name) */
  char *framework_arg;     /* --framework as given (a name or a file); NULL: none given,
                            * DTS_FRAMEWORK_DEFAULT ran */
  double framework_mape;   /* the profile's measured error under the cost model, percent
                            * (validate-mape-MODEL); negative: not measured */
  char *precision;
  char *strategy;          /* "dp" */
  char *collective;
  char *granularity;
  char **cfg;              /* SimGrid configuration actually set (owned strv) */
  char **overrides;        /* applied --set/--scale and what they changed (owned strv) */
  int n_gpus;
  int batch_size_per_gpu;
  int global_batch_size;
  int iterations;
  int warmup_iterations;
  double bucket_bytes;
  double chunk_bytes;
  double coll_overhead_s;      /* --coll-overhead */
  int channels;
  int comm_streams;            /* communication streams per GPU */
  int ps_servers;              /* parameter servers (collective ps), else 0 */
  const char *ps_aggregation;  /* collective ps: "none" or "node" (static), else NULL */
  gboolean overlap;
  guint64 seed;
  double params;
  /* steady-state timing */
  double iteration_time_s;
  double throughput_samples_per_s;
  double forward_s;
  double backward_s;
  double backward_data_s;
  double backward_weight_s;
  double optimizer_s;
  double recompute_s;           /* forwards run again before their backward (--recompute) */
  double comm_s;
  double comm_exposed_s;
  double comm_overlapped_s;     /* comm_s - comm_exposed_s */
  double param_gather_s;        /* --zero 1: the part of comm_s in parameter all-gathers */
  double param_gather_exposed_s; /* ... of comm_exposed_s: the compute stream waiting for them */
  double grad_sync_s;           /* the rest of comm_s: the gradients' collectives */
  double grad_sync_exposed_s;   /* the rest of comm_exposed_s */
  double compute_idle_gpu_s;    /* compute of rank 0 on an idle GPU (cost model) */
  double compute_efficiency;    /* compute_idle_gpu_s / iteration_time_s */
  double allreduce_bytes;       /* gradient bytes all-reduced (zero 1: reduce-scattered) per
                                   iteration */
  double gather_bytes;          /* zero 1: parameter bytes all-gathered per iteration */
  /* memory of one rank */
  double memory_weights_bytes;
  double memory_gradients_bytes;
  double memory_optimizer_bytes;
  double memory_activations_bytes;
  double memory_peak_bytes_per_gpu;
  double gpu_memory_bytes;      /* device memory of rank 0's GPU */
  GArray *buckets;              /* DtsBucketStat */
  /* per rank and diagnosis */
  GArray *ranks;                /* DtsRankStat, by rank */
  GArray *mesh;                 /* DtsMeshRank, by rank; NULL for parameter servers */
  char **mesh_nodes;            /* the nodes of the mesh's ranks, in rank order (owned) */
  int slowest_rank;             /* largest compute_s; ties: the lowest rank */
  int fastest_rank;             /* smallest compute_s; ties: the lowest rank */
  double median_compute_s;      /* median of the ranks' compute_s (lower middle) */
  int n_slow_ranks;             /* ranks within 1% of the slowest's compute_s */
  DtsBottleneck bottleneck;
  /* pipeline and hybrid (n_stages 0 otherwise) */
  int n_stages;
  int micro_batches;
  char *pipeline_schedule;      /* "1f1b", "gpipe", "interleaved 1f1b, V chunks per stage"
                                   (owned), or NULL */
  int virtual_stages;           /* chunks per stage (1: none) */
  const char *partition;        /* "uniform", "balanced" or "given" (static) */
  int partition_blocks;         /* the workload's repeated blocks (0: none) */
  char *placement;              /* hybrid: "replicas-inside", ... (owned), or NULL */
  double p2p_wait_s;            /* compute stream waiting for neighbouring stages */
  double p2p_exposed_s;         /* ... while the data was in flight */
  double bubble_s;              /* ... before it was produced */
  double bubble_fraction;       /* bubble_s / iteration_time_s */
  double tensor_s;              /* compute stream in tensor-parallel collectives (with
                                 * tp_overlap, waiting for those its GEMMs did not hide) */
  const char *tp_overlap;       /* --tp-overlap "backward", "all" (static), or NULL: none */
  int tensor_parallel;          /* GPUs per replica */
  int context_parallel;         /* --context-parallel C (1: none) */
  double context_s;             /* compute stream in its key/value exchange */
  int expert_parallel;          /* --expert-parallel E (1: none) */
  double moe_imbalance;         /* --moe-imbalance X (1: balanced routing); drawn per layer
                                 * or capped: the mean over the layers */
  double moe_imbalance_max;     /* drawn or capped: the largest layer's; else 0 */
  double moe_routing_alpha;     /* --moe-imbalance dirichlet:A, else 0 */
  double moe_capacity;          /* --moe-capacity-factor F, else 0 */
  double moe_dropped;           /* drawn with a capacity: the tokens' share dropped */
  double expert_s;              /* compute stream in its token all-to-alls */
  gboolean sequence_parallel;   /* --sequence-parallel: the tensor collectives are
                                 * all-gathers and reduce-scatters */
  GArray *stages;               /* DtsStageStat */
  GArray *links;                /* DtsTraceLink, busiest first (--link-stats), or NULL */
  /* parameter servers (async-ps, sync-ps; ps_shards 0 otherwise): from the
   * trace, over the gradients of workers' iterations after the warm-up
   * (ps-stats.c) */
  int ps_shards;
  int ps_workers;
  const char *ps_update;        /* "each", "merge", "all" (static) */
  int staleness_bound;          /* -1: none */
  double ps_shard_bytes;
  int ps_push_buckets;          /* sync-ps pushing bucket by bucket: the buckets, else 0 */
  double ps_update_s;           /* a shard's update with one gradient (idle GPU) */
  double ps_update_extra_s;     /* ... per further gradient */
  gint64 ps_updates;            /* updates counted */
  gint64 ps_gradients;          /* gradients counted */
  DtsDistribution staleness;    /* per gradient */
  DtsDistribution minibatch;    /* effective mini-batch per update, samples */
  GArray *ps_worker_busy;       /* double per worker: compute / its steady iteration time */
  GArray *ps_worker_wait;       /* double per worker: waiting for weights / iteration time */
  GArray *ps_server_busy;       /* double per shard: updating / the measured span */
  /* sequence models (seq_len 0 otherwise): tokens and model FLOPs */
  const char *recompute;        /* "none", "selective", "full" (static) */
  int zero;                     /* 1: the distributed optimizer (pipeline, hybrid) */
  const char *param_gather;     /* zero 1: "after-step" or "overlap"; zero 3: "first-forward"
                                   or "forward-and-backward" (static), else NULL */
  int param_gathers;            /* gathers of each bucket per iteration (DtsSchedule's) */
  int seq_len;                  /* tokens per sample */
  double tokens_per_s;          /* throughput_samples_per_s x seq_len */
  double tokens_per_s_per_gpu;
  double model_flops_per_sample; /* dts_workload_model_flops */
  double model_tflops_per_gpu;  /* model FLOPs per second and GPU, in 10^12 */
  double peak_tflops_per_gpu;   /* rank 0's GPU at the run's precision */
  double mfu;                   /* model_tflops_per_gpu / peak_tflops_per_gpu */
  /* epoch (every strategy) */
  double dataset_samples;       /* the workload's or --dataset-size; 0 unknown */
  double epoch_time_s;          /* dataset_samples / throughput, 0 unknown */
  /* simulation */
  double wall_time_s;
  gint64 events;
  int plans_analytic;      /* --comm-granularity auto: plans run at analytic granularity */
  double makespan_s;
} DtsRunSummary;

DtsRunSummary *dts_run_summary_new (void);
void dts_run_summary_free (DtsRunSummary *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsRunSummary, dts_run_summary_free)

/* Fill the timing fields of S (iterations, warmup_iterations, global batch
 * size, n_gpus and overlap must be set) from T: the first warmup_iterations
 * iterations are left out; bucket timings are rank 0's. Bucket rows must
 * already exist (one per bucket) with bytes and names. Also fills the
 * per-rank rows, the slowest and fastest ranks and the bottleneck. */
void dts_trace_summarize (const DtsTrace *t, DtsRunSummary *s);

/* The bottleneck of S from its per-rank rows and, for pipelines, its
 * stages (trace.c says how); dts_trace_summarize calls it, and a caller
 * that fills the stages afterwards calls it again. */
void dts_run_summary_diagnose (DtsRunSummary *s);
/* The parameter-server block of S from T (s->ps_workers, ps_shards and
 * warmup_iterations set): distributions over the gradients of worker
 * iterations >= warmup, utilisations, and with OWN_TIMES the iteration
 * time and throughput from the workers' own iterations (ps-stats.c). */
void dts_trace_summarize_ps (const DtsTrace *t, DtsRunSummary *s, const int *worker_batch,
                             gboolean own_times);

/* RANK's means over iterations WARMUP.. of T. */
void dts_trace_rank_times (const DtsTrace *t, int rank, int warmup, DtsRankTimes *out);

G_END_DECLS

#endif
