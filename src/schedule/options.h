/* options.h - the options of one training simulation (`dtsim run`).
 *
 * One DtsRunOptions is filled by the command line and handed down, const, to
 * the schedule, the simulation and the writers; nothing reads options from
 * globals. Its own fields are what every strategy reads; a strategy row's
 * options are a struct of their own in it (DtsReplicasConfig for dp,
 * pipeline and hybrid, DtsPsConfig for the parameter servers), which the
 * row's configure fills from the command line's values. Sizes and times
 * are SI (bytes, seconds). */
#ifndef DTS_SCHEDULE_OPTIONS_H
#define DTS_SCHEDULE_OPTIONS_H

#include <glib.h>
#include "collective/collective.h"
#include "core/precision.h"

G_BEGIN_DECLS

/* --expert-parallel dp: the experts over every data-parallel replica of a
 * stage (x its context-parallel GPUs), whatever their number. */
#define DTS_EXPERT_PARALLEL_DP (-1)

/* How the simulation executes a collective plan (sim/): */
typedef enum {
  DTS_GRANULARITY_STEP, /* every chunk of every ring step is a SimGrid communication */
  DTS_GRANULARITY_FLOW, /* one flow per rank, phase and channel; latencies added analytically */
  DTS_GRANULARITY_ANALYTIC, /* no transfers: the algorithm's closed form on its routes */
  DTS_GRANULARITY_COUNT
} DtsGranularity;

/* "step", "flow", "analytic" */
const char *dts_granularity_to_string (DtsGranularity g);
/* Unknown names are DTS_ERROR_USAGE "unknown --comm-granularity 'X' (known: step, flow, analytic)". */
gboolean dts_granularity_from_string (const char *s, DtsGranularity *out, GError **error);

/* How parameter-server training gathers the gradients of a node: */
typedef enum {
  DTS_PS_AGGREGATION_NONE, /* every GPU pushes to and pulls from the servers */
  DTS_PS_AGGREGATION_NODE, /* a node's GPUs sum locally; its first GPU talks to the servers */
  DTS_PS_AGGREGATION_COUNT
} DtsPsAggregation;

/* "none", "node" */
const char *dts_ps_aggregation_to_string (DtsPsAggregation a);
/* Unknown names are DTS_ERROR_USAGE "unknown --ps-aggregation 'X' (known: none, node)". */
gboolean dts_ps_aggregation_from_string (const char *s, DtsPsAggregation *out, GError **error);

/* The order in which a pipeline stage runs the forward and backward passes
 * of its micro-batches (schedule.h, pipeline.c): */
typedef enum {
  DTS_PIPELINE_1F1B,  /* PipeDream-flush / Megatron: warm-up forwards, then one forward
                         one backward, then the remaining backwards */
  DTS_PIPELINE_GPIPE, /* every forward, then every backward (in reverse order) */
  DTS_PIPELINE_COUNT
} DtsPipelineSchedule;

/* "1f1b", "gpipe" */
const char *dts_pipeline_schedule_to_string (DtsPipelineSchedule p);
/* Unknown names are DTS_ERROR_USAGE "unknown --pipeline-schedule 'X' (known: ...)". */
gboolean dts_pipeline_schedule_from_string (const char *s, DtsPipelineSchedule *out,
                                            GError **error);

/* Activation recomputation (Korthikanti et al. 2022): what the backward
 * pass computes again instead of keeping it from the forward pass. */
typedef enum {
  DTS_RECOMPUTE_NONE,
  DTS_RECOMPUTE_SELECTIVE, /* the core attention: its forward runs again before its
                            * backward, and its scores are not kept */
  DTS_RECOMPUTE_FULL,      /* every layer of a repeated block (a <transformer>'s
                            * layers): only each block's input is kept, and the block's
                            * forward runs again before its backward */
  DTS_RECOMPUTE_COUNT
} DtsRecompute;

/* "none", "selective", "full" */
const char *dts_recompute_to_string (DtsRecompute r);
/* Unknown names are DTS_ERROR_USAGE "unknown --recompute 'X' (known: ...)". */
gboolean dts_recompute_from_string (const char *s, DtsRecompute *out, GError **error);

/* Where the ranks of a hybrid run go: rank = stage x D + replica
 * (replicas of a stage side by side, Megatron's order) or
 * rank = replica x S + stage (the stages of a replica side by side). */
typedef enum {
  DTS_PLACEMENT_REPLICAS_INSIDE,
  DTS_PLACEMENT_STAGES_INSIDE,
  DTS_PLACEMENT_COUNT
} DtsPlacement;

/* "replicas-inside", "stages-inside" */
const char *dts_placement_to_string (DtsPlacement p);
gboolean dts_placement_from_string (const char *s, DtsPlacement *out, GError **error);

/* Which tensor-parallel collectives overlap a GEMM (--tp-overlap): none
 * (each blocks the compute stream), backward (a column layer's backward:
 * its input's all-gather under sequence parallelism during the data
 * gradient's GEMM, the data gradient's reduce-scatter or all-reduce
 * during the weight gradient's, as Megatron's and Transformer Engine's
 * linear layers issue them) or all (those, and the forward all-gathers
 * and reduce-scatters and the backward all-gathers around the GEMMs they
 * feed or follow, chunk by chunk: Transformer Engine's userbuffers,
 * --tp-comm-overlap). */
typedef enum {
  DTS_TP_OVERLAP_NONE,
  DTS_TP_OVERLAP_BACKWARD,
  DTS_TP_OVERLAP_ALL,
  DTS_TP_OVERLAP_COUNT
} DtsTpOverlap;

/* "none", "backward", "all" */
const char *dts_tp_overlap_to_string (DtsTpOverlap t);
gboolean dts_tp_overlap_from_string (const char *s, DtsTpOverlap *out, GError **error);

#define DTS_RUN_DEFAULT_ITERATIONS 3
#define DTS_RUN_MAX_SEQ_LEN (1 << 24) /* --seq-len: 16,777,216 tokens */
#define DTS_RUN_DEFAULT_BATCH_SIZE 32
#define DTS_RUN_DEFAULT_BUCKET_BYTES 25e6 /* PyTorch DDP's bucket_cap_mb = 25 */
#define DTS_RUN_DEFAULT_SEED 42

/* What the replicated strategies' rows (dp, pipeline, hybrid) take: their
 * options (program.c's dp_options, PIPELINE_OPTIONS and hybrid_options),
 * read from the command line's values by the row itself (its configure,
 * replicas_configure). Zeroed: the defaults (the strategy's stages and
 * micro-batches, 1F1B, replicas-inside, one tensor, context and expert
 * rank, no distributed optimizer, blocking tensor-parallel collectives). */
typedef struct {
  int comm_streams;            /* dp: communication streams per GPU; 0 means 1 */
  /* pipeline and hybrid (0 / NULL: the strategy's default) */
  int stages;                  /* pipeline stages */
  const char *partition;       /* "FIRST-LAST,..." layer ranges of the stages */
  int micro_batches;           /* per iteration */
  DtsPipelineSchedule pipeline_schedule;
  int dp;                      /* hybrid: replicas of every stage */
  const char *stage_dp;        /* hybrid: "D0,D1,...", replicas per stage */
  DtsPlacement placement;
  int virtual_stages;          /* pipeline, hybrid: model chunks per stage (Megatron's
                                  interleaved 1F1B); 0 or 1: one contiguous range */
  int zero;                    /* every strategy with replicas: 1 = the distributed optimizer
                                  (ZeRO stage 1): gradients reduce-scattered, each replica
                                  updates 1/D of the fp32 main weights and Adam's moments,
                                  parameters all-gathered; 2 = the same collectives, and each
                                  replica keeps only its 1/D of the fp32 gradients (ZeRO stage
                                  2); 3 = the parameters sharded too (FSDP); 0 = every replica
                                  holds and updates them all */
  gboolean param_gather_overlap; /* zero 1: gather a bucket's parameters while the next
                                    iteration's forward pass runs (Megatron's
                                    --overlap-param-gather), not before it starts */
  gboolean p2p_shared;         /* sends on the gradient communication stream, in issue order */
  int tensor_parallel;         /* GPUs per replica of a stage; 0 means 1 */
  int expert_parallel;         /* --expert-parallel EP: data-parallel replicas over which
                                  each layer's experts are spread (1: none), or
                                  DTS_EXPERT_PARALLEL_DP: all of a stage's */
  double moe_imbalance;        /* --moe-imbalance X: the busiest GPU's routed tokens over the
                                  mean under expert parallelism; 0 means 1 (balanced) */
  double moe_routing_alpha;    /* --moe-imbalance dirichlet:A: every router's expert shares
                                  drawn from a symmetric Dirichlet(A) (seeded by --seed);
                                  0: none (moe_imbalance) */
  double moe_capacity;         /* --moe-capacity-factor F: an expert takes at most F times
                                  its balanced share of the tokens, the rest dropped; 0:
                                  none */
  int context_parallel;        /* --context-parallel C: GPUs sharing each sample's sequence,
                                  passing keys and values around a ring (hybrid); 0 means 1 */
  DtsTpOverlap tp_overlap;     /* --tp-overlap: tensor-parallel collectives overlapping GEMMs */
} DtsReplicasConfig;

/* What the parameter-server strategies' rows (async-ps, sync-ps) take:
 * their options (program.c's PS_SHARDS_OPTION and their own), read from
 * the command line's values by the row itself (its configure). Zeroed:
 * the defaults (a shard per node on the workers' GPUs, one update per
 * gradient, no staleness bound, one message at a time, no cost per
 * message, gradients pushed after the backward pass). */
typedef struct {
  int shards;                  /* --ps-shards; 0 = one per node taking part */
  int update;                  /* --ps-update: DtsApplyPolicy (schedule.h), each or merge */
  int staleness_bound;         /* --staleness-bound, worker iterations, when bound_set */
  gboolean bound_set;          /* without it: no bound */
  gboolean own_hosts;          /* --ps-placement own: on the GPUs after the workers' */
  gboolean cpu_hosts;          /* --ps-placement cpus: on the CPU hosts (role=ps, role=cpu) */
  double message_overhead_s;   /* --ps-message-overhead: a server's cost per message, >= 0 */
  int concurrency;             /* --ps-concurrency: messages at once per direction; 0 = 1 */
  gboolean push_buckets;       /* --ps-push buckets (sync-ps; unless --no-overlap) */
} DtsPsConfig;

typedef struct {
  const char *platform_path;   /* resolved file path */
  const char *workload_path;   /* resolved file path */
  int n_gpus;                  /* the first n_gpus ranks take part; >= 1 */
  int batch_size;              /* samples per GPU per iteration; >= 1 */
  int seq_len;                 /* --seq-len: tokens per sample; 0: the workload's */
  int iterations;              /* >= 1; the first is a warm-up when there are more */
  DtsPrecision precision;
  const char *strategy;        /* strategy table id ("dp"); NULL: "dp" */
  const char *cost_model;      /* cost-model table id */
  const char *collective;      /* all-reduce algorithm table id ("ring", "ps") */
  int ps_count;                /* ps: parameter servers; 0 = one per node taking part */
  DtsPsAggregation ps_aggregation; /* ps: per-node sum before the servers */
  double bucket_bytes;         /* gradient bucket cap, > 0 */
  double chunk_bytes;          /* collective chunk, > 0 */
  double coll_overhead_s;      /* --coll-overhead: every collective's fixed cost before its
                                  transfers, on every rank, >= 0 */
  int channels;                /* parallel rings, >= 1 */
  DtsCollNcclLimits nccl;      /* --collective nccl: what it may choose (collective.h) */
  DtsRecompute recompute;      /* activation recomputation (every strategy) */
  gboolean allow_oversubscribe; /* simulate a replica, stage or worker that does not fit its
                                 * GPU (dts_schedule_check_memory) */
  gboolean sequence_parallel;  /* Megatron's sequence parallelism over the tensor group */
  DtsReplicasConfig replicas;  /* dp, pipeline, hybrid: their rows' options (replicas_configure) */
  gboolean link_stats;         /* count the bytes every link carries */
  gboolean overlap;            /* start a bucket's all-reduce as soon as it is ready */
  guint64 seed;                /* for stochastic models; recorded in outputs */
  DtsGranularity granularity;
  gboolean granularity_auto;   /* --comm-granularity auto (dtsim run's default): FLOW, with
                                  the plans that are not lock-step and alone on the network
                                  at analytic */
  char **cfg;                  /* --cfg NAME:VALUE for SimGrid (NULL-terminated) or NULL */
  GArray *overrides;           /* DtsOverride (platform/override.h) or NULL */
  const char *trace_path;      /* Chrome trace to write, or NULL */
  gboolean record_slices;      /* keep every compute and comm slice (for a trace) */
  int progress;                /* 0, DTS_PROGRESS_LIVE or DTS_PROGRESS_LINES */
  GString *dump_plan;          /* non-NULL: write the plan here and simulate nothing */
  double max_activities;       /* refuse runs estimated above this many; 0: the default */
  gboolean long_run_notice;    /* say on stderr before a run estimated to take long
                                  (DTS_SCHEDULE_LONG_RUN_S) that it will: dtsim run */
  const char *framework;       /* framework profile name or path; NULL: DTS_FRAMEWORK_DEFAULT */
  double grad_bytes;           /* bytes per parameter that gradient buckets all-reduce;
                                * 0: 4 (fp32). run.c sets it from the framework profile */
  DtsPsConfig ps;               /* parameter-server strategies (async-ps, sync-ps) */
  double dataset_samples;      /* > 0: overrides the workload's data-set size */
  double compute_jitter_sigma; /* > 0: every compute operation x lognormal(mean 1, sigma) */
  const struct _DtsCollTuner *coll_tuner; /* --collective auto: the platform's side of the
                                             tuning model (collective.h); set by the driver */
} DtsRunOptions;

/* Progress on stderr: a line that rewrites itself (terminals), or one line
 * per iteration (logs, `run --progress`). */
#define DTS_PROGRESS_LIVE 1
#define DTS_PROGRESS_LINES 2

G_END_DECLS

#endif
