/* program.c - the program model shared by every strategy: communicators,
 * the collectives-only schedule of `dtsim allreduce`, and the text dump of a
 * schedule (`--dump-plan`).
 *
 * The dump is meant to be read and diffed: one line per item, integers and
 * %.10g numbers in SI units (bytes, seconds), no pointers or hash order.
 * Its form (doc/SIMULATION.md, "Reading a plan"):
 *
 *   plan STRATEGY: N ranks, C collectives, P programs, S streams, E events per rank
 *   communicator I NAME: N ranks RANGES
 *   event E initially xN: ranks RANGES      (signals held when the run starts)
 *   collective I: ALGORITHM [OP] over NAME, BYTES bytes, C channels, chunk BYTES, N participants
 *     phase NAME: steps A-B [lockstep]
 *     participant P (rank R) step S [PHASE, R rounds]: send PEER BYTES xC tag T; recv ...
 *   program I (KIND; N streams): OPS operations
 *     compute PHASE LAYER SECONDS | record event E [bucket B] | wait event E xN | ...
 *   streams STREAM-KIND INDEX program I: ranks RANGES
 *
 * A collective whose participants have more than DTS_SCHEDULE_DUMP_MAX_TRANSFERS
 * steps in all is printed for its first two participants, with a line that
 * counts the steps left out. */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/error.h"
#include "schedule/schedule.h"

static const char *const op_names[DTS_OP_TYPE_COUNT] = {
  [DTS_OP_COMPUTE] = "compute", [DTS_OP_RECORD] = "record", [DTS_OP_WAIT] = "wait",
  [DTS_OP_COLL] = "coll",       [DTS_OP_SEND] = "send",     [DTS_OP_RECV] = "recv",
  [DTS_OP_BARRIER] = "barrier", [DTS_OP_APPLY] = "apply",
};

static const char *const zero_levels[] = { "0", "1", "2", "3", NULL };
static const char *const param_gathers[] = { "after-step", "overlap", NULL };

/* The distributed optimizer, of every strategy with data-parallel replicas. */
#define ZERO_OPTIONS                                                                          \
  { "zero", DTS_OPTION_CHOICE, "N",                                                           \
    "1: the distributed optimizer (ZeRO stage 1, Megatron's --use-distributed-optimizer): "   \
    "gradients reduce-scattered among the D data-parallel replicas (of a stage, with "        \
    "pipelines), each updating 1/D of the fp32 main weights and optimizer state, parameters " \
    "all-gathered; 2: the same, and each replica also keeps only its 1/D of the fp32 "       \
    "gradients and the bucket being reduced (ZeRO stage 2, memory only); 3: the parameters " \
    "sharded too (ZeRO stage 3, FSDP), each bucket gathered before its forward and again "    \
    "before its backward (--strategy dp, or one stage of --strategy hybrid: FSDP x TP), or, " \
    "over two or more pipeline stages, a stage's gathered before the first micro-batch's "    \
    "forward and kept until the last one's backward (FSDP under pipeline parallelism); 0: "   \
    "all-reduced, every replica holding and updating all of them",                            \
    "0", 0, 0, zero_levels },                                                                 \
  { "param-gather", DTS_OPTION_CHOICE, "ID",                                                  \
    "with --zero 1 or 2, when the updated parameters are gathered: after-step (before the next "   \
    "iteration starts) or overlap (bucket by bucket during the next forward pass, Megatron's " \
    "--overlap-param-gather)",                                                                \
    "after-step", 0, 0, param_gathers }

static const DtsOptionSpec dp_options[] = {
  { "comm-streams", DTS_OPTION_INT, "N",
    "communication streams per GPU: bucket b goes to stream b mod N with a communicator of "
    "its own, so buckets overlap each other",
    "1", 1, DTS_SCHEDULE_MAX_COMM_STREAMS, NULL },
  ZERO_OPTIONS,
  { NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static const char *const pipeline_schedules[] = { "1f1b", "gpipe", NULL };
static const char *const placements[] = { "replicas-inside", "stages-inside", NULL };
static const char *const p2p_streams[] = { "own", "shared", NULL };
static const char *const tp_overlaps[] = { "none", "backward", "all", NULL };

#define STAGES_OPTION(default_text)                                                          \
  { "stages", DTS_OPTION_INT, "S", "pipeline stages, cut as --partition says", \
    default_text, 1, 1 << 20, NULL }
#define PIPELINE_OPTIONS                                                                      \
  { "partition", DTS_OPTION_TEXT, "A-B,...",                                                  \
    "the stages' layer ranges by index or name, in order, e.g. 1-60,61-120,121-175; "         \
    "uniform (whole blocks, as many per stage: Megatron-LM's split); balanced (by layer "     \
    "times, cut between blocks)",                                                             \
    "uniform where a model's blocks divide among the stages, else balanced", 0, 0, NULL },    \
  { "micro-batches", DTS_OPTION_INT, "M",                                                     \
    "micro-batches per iteration (each replica's batch is split into M; --zero 3 on one "     \
    "stage: FSDP's gradient accumulation)",                                                   \
    "4 x stages, at most the batch size; 1 for --zero 3 on one stage", 1, 1 << 20, NULL },   \
  { "pipeline-schedule", DTS_OPTION_CHOICE, "ID",                                             \
    "order of forward and backward passes: 1f1b (PipeDream-flush, Megatron) or gpipe",        \
    "1f1b", 0, 0, pipeline_schedules },                                                       \
  { "p2p-stream", DTS_OPTION_CHOICE, "ID",                                                    \
    "where a stage's sends run: own (streams of their own, Megatron, DeepSpeed) or shared "   \
    "(one communication stream with the gradient all-reduces, in the order they are issued)", \
    "own", 0, 0, p2p_streams },                                                               \
  { "tensor-parallel", DTS_OPTION_INT, "T",                                                   \
    "GPUs per replica of a stage, splitting its GEMM layers (conv, fc, linear) in "           \
    "column-row pairs and its vocabulary layers (Megatron)",                                  \
    "1", 1, 1024, NULL },                                                                     \
  { "tp-overlap", DTS_OPTION_CHOICE, "ID",                                                    \
    "tensor-parallel collectives overlapping GEMMs: none (each blocks the GPU's kernels), "   \
    "backward (a column layer's backward: its input's all-gather during the data "            \
    "gradient's GEMM, the data gradient's reduce-scatter or all-reduce during the weight "    \
    "gradient's, as Megatron's linear layers issue them) or all (those, and the all-gathers " \
    "and reduce-scatters around every split GEMM, chunk by chunk: Transformer Engine's "       \
    "userbuffers, Megatron's --tp-comm-overlap; needs --sequence-parallel)",                   \
    "none", 0, 0, tp_overlaps },                                                              \
  { "virtual-stages", DTS_OPTION_INT, "V",                                                    \
    "model chunks per stage (Megatron's interleaved 1F1B, --num-layers-per-virtual-pipeline-" \
    "stage): the layers cut into stages x V chunks, chunk v of stage s the (v x stages + s)-th", \
    "1", 1, 1024, NULL },                                                                     \
  ZERO_OPTIONS

static const DtsOptionSpec pipeline_options[] = {
  STAGES_OPTION ("the GPUs taking part (pipeline); none (hybrid)"),
  PIPELINE_OPTIONS,
  { NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static const DtsOptionSpec hybrid_options[] = {
  STAGES_OPTION ("the GPUs taking part (pipeline); none (hybrid)"),
  PIPELINE_OPTIONS,
  { "dp", DTS_OPTION_INT, "D", "data-parallel replicas of every stage",
    "the GPUs taking part / stages", 1, 1 << 20, NULL },
  { "stage-dp", DTS_OPTION_TEXT, "D0,D1,...",
    "replicas of each stage, which may differ; sets the number of stages", "--dp for every stage",
    0, 0, NULL },
  { "placement", DTS_OPTION_CHOICE, "ID",
    "rank order: replicas-inside (a stage's replicas on neighbouring GPUs, Megatron's order) "
    "or stages-inside (a replica's stages on neighbouring GPUs)",
    "replicas-inside", 0, 0, placements },
  { "context-parallel", DTS_OPTION_INT, "C",
    "GPUs sharing each sample's sequence (Megatron's --context-parallel-size, ring "
    "attention): each runs 1/C of every layer's tokens, the causal mask's work balanced, and "
    "passes keys and values around a ring of the C in every attention layer (an all-gather "
    "forward; an all-gather and a reduce-scatter of their gradients backward); the "
    "gradients are synchronised over D x C GPUs; needs a fused attention kernel and a "
    "sequence divisible by 2 x C",
    "1", 1, 1024, NULL },
  { "expert-parallel", DTS_OPTION_TEXT, "EP",
    "data-parallel replicas (x context-parallel GPUs) over which every mixture of experts "
    "is spread (Megatron's --expert-model-parallel-size): each holds 1/EP of the experts, "
    "and every MoE layer sends its tokens to their experts and back as all-to-alls over the "
    "EP GPUs, forward and backward; EP divides every stage's data-parallel x "
    "context-parallel size (dp: that size, whatever it is, so that an expert's gradients "
    "live on one GPU and need no synchronisation); below it, groups of EP consecutive "
    "replicas, and the replicas that hold the same experts synchronise their gradients "
    "(expert data parallelism, with --zero 0 or 1)",
    "1", 0, 0, NULL },
  { "moe-imbalance", DTS_OPTION_TEXT, "X",
    "with --expert-parallel: routing imbalance, the busiest GPU's routed tokens over the mean "
    "(max/mean load, 1 to EP; a measured or assumed figure, such as 1.2-1.5 for routers "
    "trained without a strong balancing loss), or dirichlet:A, every layer's expert shares "
    "drawn from a symmetric Dirichlet distribution of concentration A (seeded by --seed; "
    "smaller is more skewed, 1 is uniform over the shares) and each layer priced at its own "
    "busiest GPU: every GPU's expert layers and all-to-alls are priced at the busiest one's "
    "load, which the all-to-all before each combine makes every GPU wait for",
    "1: balanced, as NVIDIA's published MoE tables force it", 0, 0, NULL },
  { "moe-capacity-factor", DTS_OPTION_TEXT, "F",
    "with a mixture of experts: each expert takes at most F times its balanced share of a "
    "layer's routed tokens and drops the rest (Megatron's --moe-expert-capacity-factor, "
    "tokens dropped before the dispatch): the busiest GPU's load is at most F times the "
    "mean, and below 1 every expert runs fewer tokens",
    "none: no token dropped", 0, 0, NULL },
  { NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static const char *const ps_updates[] = { "each", "merge", NULL };
static const char *const ps_placements[] = { "workers", "own", "cpus", NULL };

#define PS_SHARDS_OPTION                                                                      \
  { "ps-shards", DTS_OPTION_INT, "P",                                                         \
    "parameter-server shards, each holding 1/P of the parameters (placed by --ps-placement; " \
    "--ps-count, deprecated, is its former name)",                                            \
    "one per node taking part (at most one per CPU host with cpus); 1 with own", 1, 1 << 20, \
    NULL },                                                                                   \
  { "ps-placement", DTS_OPTION_CHOICE, "ID",                                                  \
    "where the shards run: workers (on the workers' GPUs, sharing them), own (on the GPUs "  \
    "after the workers', which run no worker; --gpus counts the workers) or cpus (one per "   \
    "CPU host of the platform, role=ps hosts first, then role=cpu, round-robin over the "     \
    "nodes; the update is priced at the host's mem_bw property)",                             \
    "workers", 0, 0, ps_placements },                                                        \
  { "ps-message-overhead", DTS_OPTION_TEXT, "T",                                              \
    "a server's fixed time per message it receives or sends (RPC handling), e.g. 50us",       \
    "0", 0, 0, NULL },                                                                        \
  { "ps-concurrency", DTS_OPTION_INT, "K",                                                    \
    "messages a server moves at once in each direction (gRPC streams, RPC threads); they "    \
    "share its routes' bandwidth",                                                            \
    "1", 1, 4096, NULL }

static const DtsOptionSpec async_ps_options[] = {
  PS_SHARDS_OPTION,
  { "ps-update", DTS_OPTION_CHOICE, "ID",
    "how a server applies gradients: each (one update per gradient) or merge (one update "
    "with every gradient that arrived since the previous one)",
    "each", 0, 0, ps_updates },
  { "staleness-bound", DTS_OPTION_INT, "K",
    "a worker waits while it is more than K iterations ahead of the slowest (0: synchronous)",
    "none", 0, 1 << 20, NULL },
  { NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static const char *const ps_pushes[] = { "after-backward", "buckets", NULL };

static const DtsOptionSpec sync_ps_options[] = {
  PS_SHARDS_OPTION,
  { "ps-push", DTS_OPTION_CHOICE, "ID",
    "when a worker pushes its gradients: after-backward (all of them once the backward pass "
    "has ended) or buckets (each bucket of --bucket-size as soon as the backward pass has "
    "computed it, as TensorFlow sends each gradient once computed, the servers updating and "
    "answering bucket by bucket; --no-overlap: after-backward)",
    "after-backward", 0, 0, ps_pushes },
  { NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

/* A pipeline runs collectives only inside its tensor-parallel groups. */
static gboolean
pipeline_runs_collectives (const DtsRunOptions *o)
{
  return o->replicas.tensor_parallel > 1;
}

/* Workers exchange gradients with their servers, not by a collective. */
static gboolean
ps_runs_collectives (const DtsRunOptions *o)
{
  (void) o;
  return FALSE;
}

/* An integer value its spec has checked (in range). */
static int
checked_int (const char *text)
{
  return (int) g_ascii_strtoll (text, NULL, 10);
}

/* configure of dp, pipeline and hybrid: the values of the options their
 * rows declare (an option a row does not declare has none: the command
 * line refuses it first), into OPTS's replicas, the part the builders read. */
static gboolean
replicas_configure (DtsRunOptions *o, const DtsOptionValues *values, GError **error)
{
  /* the row's own part of the options */
  DtsReplicasConfig *r = &o->replicas;
  static const struct {
    const char *name;
    gsize offset;
  } ints[] = {
    { "comm-streams", G_STRUCT_OFFSET (DtsReplicasConfig, comm_streams) },
    { "stages", G_STRUCT_OFFSET (DtsReplicasConfig, stages) },
    { "micro-batches", G_STRUCT_OFFSET (DtsReplicasConfig, micro_batches) },
    { "dp", G_STRUCT_OFFSET (DtsReplicasConfig, dp) },
    { "tensor-parallel", G_STRUCT_OFFSET (DtsReplicasConfig, tensor_parallel) },
    { "virtual-stages", G_STRUCT_OFFSET (DtsReplicasConfig, virtual_stages) },
    { "context-parallel", G_STRUCT_OFFSET (DtsReplicasConfig, context_parallel) },
    { "zero", G_STRUCT_OFFSET (DtsReplicasConfig, zero) },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (ints); i++) {
    const char *v = dts_option_value (values, ints[i].name);
    if (v != NULL)
      G_STRUCT_MEMBER (int, r, ints[i].offset) = checked_int (v);
  }
  const char *v;
  if ((v = dts_option_value (values, "partition")) != NULL)
    r->partition = v;
  if ((v = dts_option_value (values, "expert-parallel")) != NULL) {
    gint64 ep;
    if (strcmp (v, "dp") == 0)
      r->expert_parallel = DTS_EXPERT_PARALLEL_DP;
    else if (g_ascii_string_to_signed (v, 10, 1, 4096, &ep, NULL))
      r->expert_parallel = (int) ep;
    else {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--expert-parallel '%s': expected an integer in 1..4096, or dp", v);
      return FALSE;
    }
  }
  if ((v = dts_option_value (values, "moe-imbalance")) != NULL) {
    char *end = NULL;
    gboolean dirichlet = g_str_has_prefix (v, "dirichlet:");
    const char *num = dirichlet ? v + strlen ("dirichlet:") : v;
    double x = g_ascii_strtod (num, &end);
    if (end == num || *end != '\0' || !isfinite (x)
        || (dirichlet ? !(x > 0) || x > 1e6 : x < 1.0 || x > 4096.0)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   dirichlet ? "--moe-imbalance '%s': expected dirichlet:A with a concentration A "
                               "above 0 and at most 1e6"
                             : "--moe-imbalance '%s': expected a number from 1 (balanced) to the "
                               "expert-parallel size (the busiest GPU's tokens over the mean), "
                               "or dirichlet:A",
                   v);
      return FALSE;
    }
    if (dirichlet)
      r->moe_routing_alpha = x;
    else
      r->moe_imbalance = x;
  }
  if ((v = dts_option_value (values, "moe-capacity-factor")) != NULL) {
    char *end = NULL;
    double f = g_ascii_strtod (v, &end);
    if (end == v || *end != '\0' || !isfinite (f) || !(f > 0) || f > 4096.0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--moe-capacity-factor '%s': expected a number above 0 and at most 4096 "
                   "(an expert's tokens over its balanced share)",
                   v);
      return FALSE;
    }
    r->moe_capacity = f;
  }
  if ((v = dts_option_value (values, "stage-dp")) != NULL)
    r->stage_dp = v;
  /* choices its spec has checked */
  if ((v = dts_option_value (values, "pipeline-schedule")) != NULL
      && !dts_pipeline_schedule_from_string (v, &r->pipeline_schedule, error))
    return FALSE;
  if ((v = dts_option_value (values, "tp-overlap")) != NULL
      && !dts_tp_overlap_from_string (v, &r->tp_overlap, error))
    return FALSE;
  if ((v = dts_option_value (values, "placement")) != NULL
      && !dts_placement_from_string (v, &r->placement, error))
    return FALSE;
  r->p2p_shared = g_strcmp0 (dts_option_value (values, "p2p-stream"), "shared") == 0;
  /* --collective ps's own, given only with it (its row checks them) */
  if ((v = dts_option_value (values, "ps-count")) != NULL)
    o->ps_count = checked_int (v);
  if ((v = dts_option_value (values, "ps-aggregation")) != NULL
      && !dts_ps_aggregation_from_string (v, &o->ps_aggregation, error))
    return FALSE;
  const char *gather = dts_option_value (values, "param-gather");
  r->param_gather_overlap = g_strcmp0 (gather, "overlap") == 0;
  if (gather != NULL && r->zero >= 3) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--param-gather %s: not with --zero 3 (it gathers each bucket's parameters "
                 "before its forward and its backward, or over two or more pipeline stages "
                 "before the first micro-batch's forward)",
                 gather);
    return FALSE;
  }
  if (gather != NULL && r->zero == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--param-gather %s: only with --zero 1 or 2 (without it, no parameters are gathered)",
                 gather);
    return FALSE;
  }
  return TRUE;
}

static const DtsStrategy strategies[] = {
  { "dp", "data parallelism: every GPU holds the model, gradients all-reduced in buckets "
          "while backprop goes on (PyTorch DDP, Horovod)",
    dts_schedule_dp_new, dp_options, NULL, NULL, replicas_configure },
  { "pipeline", "pipeline parallelism: the layers cut into stages on one GPU each, "
                "micro-batches flowing through them (GPipe, PipeDream-flush 1F1B)",
    dts_schedule_pipeline_new, pipeline_options, dts_schedule_pipeline_resolve,
    pipeline_runs_collectives, replicas_configure },
  { "hybrid", "data x pipeline parallelism: every stage replicated on D GPUs (or D0, D1, ... "
              "per stage), each stage's gradients all-reduced among its replicas",
    dts_schedule_hybrid_new, hybrid_options, dts_schedule_hybrid_resolve, NULL,
    replicas_configure },
  { "async-ps", "asynchronous SGD with parameter servers: every worker pulls, computes and "
                "pushes on its own; servers update as gradients arrive",
    dts_schedule_async_ps_new, async_ps_options, dts_schedule_ps_resolve, ps_runs_collectives,
    dts_schedule_ps_configure },
  { "sync-ps", "synchronous parameter servers (TensorFlow SyncReplicas): one update per "
               "shard with a gradient of every worker; --collective ps is its former spelling",
    dts_schedule_sync_ps_new, sync_ps_options, dts_schedule_ps_resolve, ps_runs_collectives,
    dts_schedule_ps_configure },
  { NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};

const DtsStrategy *
dts_schedule_strategies (void)
{
  return strategies;
}

gboolean
dts_schedule_strategy_runs_collectives (const DtsStrategy *strategy, const DtsRunOptions *opts)
{
  return strategy->runs_collectives == NULL || strategy->runs_collectives (opts);
}

const DtsStrategy *
dts_schedule_strategy_lookup (const char *id)
{
  for (const DtsStrategy *st = strategies; id != NULL && st->id; st++)
    if (strcmp (st->id, id) == 0)
      return st;
  return NULL;
}

const char *
dts_op_type_to_string (DtsOpType type)
{
  g_return_val_if_fail (type >= 0 && type < DTS_OP_TYPE_COUNT, "?");
  return op_names[type];
}

void
dts_communicator_free (DtsCommunicator *comm)
{
  if (comm == NULL)
    return;
  g_free (comm->name);
  g_free (comm->ranks);
  g_free (comm->member_of);
  g_free (comm);
}

int
dts_schedule_add_comm (DtsSchedule *sched, const char *name, const int *ranks, int n)
{
  g_return_val_if_fail (n >= 1, -1);
  DtsCommunicator *c = g_new0 (DtsCommunicator, 1);
  c->name = g_strdup (name);
  c->n_ranks = n;
  c->ranks = g_memdup2 (ranks, sizeof (int) * n);
  c->member_of = g_new (int, sched->n_ranks);
  for (int r = 0; r < sched->n_ranks; r++)
    c->member_of[r] = -1;
  for (int m = 0; m < n; m++) {
    g_return_val_if_fail (ranks[m] >= 0 && ranks[m] < sched->n_ranks, -1);
    c->member_of[ranks[m]] = m;
  }
  g_ptr_array_add (sched->comms, c);
  return sched->comms->len - 1;
}

DtsSchedule *
dts_schedule_new_empty (const char *strategy, int n_ranks, int batch_size, DtsPrecision precision)
{
  g_return_val_if_fail (strategy != NULL && n_ranks >= 1, NULL);
  DtsSchedule *s = g_new0 (DtsSchedule, 1);
  s->strategy = g_strdup (strategy);
  s->n_ranks = n_ranks;
  s->batch_size = batch_size;
  s->precision = precision;
  s->plans = g_ptr_array_new_with_free_func ((GDestroyNotify) dts_coll_plan_free);
  s->comms = g_ptr_array_new_with_free_func ((GDestroyNotify) dts_communicator_free);
  s->programs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  s->totals = g_array_new (FALSE, TRUE, sizeof (DtsComputeTotals));
  s->streams = g_array_new (FALSE, TRUE, sizeof (DtsStream));
  s->rank_program = g_new0 (int, n_ranks);
  s->grad_reductions = 1;
  return s;
}

DtsSchedule *
dts_schedule_collectives_new (int n_ranks, GPtrArray *plans)
{
  g_return_val_if_fail (n_ranks >= 1 && plans != NULL, NULL);
  DtsSchedule *s = g_new0 (DtsSchedule, 1);
  s->strategy = g_strdup ("allreduce");
  s->n_ranks = n_ranks;
  s->grad_reductions = 1;
  s->buckets = g_array_new (FALSE, TRUE, sizeof (DtsBucket));
  s->plans = plans;
  s->plan_comm = g_new0 (int, MAX (plans->len, 1));
  s->comms = g_ptr_array_new_with_free_func ((GDestroyNotify) dts_communicator_free);
  s->programs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  s->totals = g_array_new (FALSE, TRUE, sizeof (DtsComputeTotals));
  s->streams = g_array_new (FALSE, TRUE, sizeof (DtsStream));
  s->rank_program = g_new (int, n_ranks);
  g_autofree int *all = g_new (int, n_ranks);
  for (int r = 0; r < n_ranks; r++) {
    all[r] = r;
    s->rank_program[r] = -1;
  }
  dts_schedule_add_comm (s, "world", all, n_ranks);
  GArray *prog = g_array_new (FALSE, TRUE, sizeof (DtsOp));
  for (guint k = 0; k < plans->len; k++) {
    g_return_val_if_fail (((const DtsCollPlan *) g_ptr_array_index (plans, k))->n_ranks
                              == n_ranks,
                          NULL);
    DtsOp bar = { .type = DTS_OP_BARRIER, .layer = -1, .bucket = -1, .comm = 0 };
    DtsOp coll = { .type = DTS_OP_COLL, .layer = -1, .bucket = k, .coll = k, .part = -1 };
    g_array_append_val (prog, bar);
    g_array_append_val (prog, coll);
  }
  g_ptr_array_add (s->programs, prog);
  DtsComputeTotals none = { 0 };
  g_array_append_val (s->totals, none);
  for (int r = 0; r < n_ranks; r++) {
    DtsStream st = { r, DTS_STREAM_COMM, 0, 0 };
    g_array_append_val (s->streams, st);
  }
  return s;
}

/* "0-3,8,10-11" */
static void
append_ranges (GString *out, const GArray *ranks)
{
  for (guint i = 0; i < ranks->len;) {
    int a = g_array_index (ranks, int, i);
    guint j = i;
    while (j + 1 < ranks->len && g_array_index (ranks, int, j + 1) == g_array_index (ranks, int, j) + 1)
      j++;
    int b = g_array_index (ranks, int, j);
    g_string_append_printf (out, "%s%d", i ? "," : "", a);
    if (b != a)
      g_string_append_printf (out, "-%d", b);
    i = j + 1;
  }
}

static const char *const stream_kinds[] = {
  [DTS_STREAM_COMPUTE] = "compute", [DTS_STREAM_COMM] = "comm", [DTS_STREAM_SERVER] = "server",
  [DTS_STREAM_P2P] = "p2p",
};

static void
dump_step (GString *out, const DtsCollPlan *plan, const DtsCommunicator *comm, int part, int step,
           DtsCollStepOps *ops)
{
  dts_coll_plan_step_ops (plan, part, step, ops);
  int host = comm->ranks[dts_coll_plan_part_host (plan, part)];
  g_string_append_printf (out, "  participant %d (rank %d) step %d [%s, %d round%s]:", part, host,
                          step, plan->phases[ops->phase].name, ops->n_rounds,
                          ops->n_rounds == 1 ? "" : "s");
  if (ops->reduce_bytes > 0)
    g_string_append_printf (out, " reduce %.10g", ops->reduce_bytes);
  for (guint i = 0; i < ops->xfers->len; i++) {
    const DtsCollXfer *x = &g_array_index (ops->xfers, DtsCollXfer, i);
    g_string_append_printf (out, "%s %s %d %.10g x%d%s tag %d", i || ops->reduce_bytes > 0 ? ";" : "",
                            x->kind == DTS_XFER_SEND ? "send" : "recv", x->peer, x->bytes,
                            x->channels, x->reduce ? " reduce" : "", x->tag);
  }
  g_string_append_c (out, '\n');
}

static void
dump_plan (GString *out, const DtsSchedule *s, guint k, double max_transfers)
{
  const DtsCollPlan *plan = g_ptr_array_index (s->plans, k);
  const DtsCommunicator *comm = g_ptr_array_index (s->comms, s->plan_comm[k]);
  g_string_append_printf (out,
                          "collective %u: %s%s%s over %s, %.10g bytes, %d channel%s, chunk %.10g "
                          "bytes, %d participants\n",
                          k, plan->algorithm, plan->op == DTS_COLL_OP_ALLREDUCE ? "" : " ",
                          plan->op == DTS_COLL_OP_ALLREDUCE ? "" : dts_coll_op_to_string (plan->op),
                          comm->name, plan->bytes, plan->channels,
                          plan->channels == 1 ? "" : "s", plan->chunk_bytes, plan->n_parts);
  if (plan->nccl_algo != NULL)
    g_string_append_printf (out, "  chosen by --collective nccl: %s, protocol %s, predicted %.6g s\n",
                            plan->nccl_algo, plan->protocol, plan->predicted_s);
  else if (plan->protocol != NULL)
    g_string_append_printf (out, "  chosen by --collective auto: protocol %s, predicted %.6g s\n",
                            plan->protocol, plan->predicted_s);
  for (int ph = 0; ph < plan->n_phases; ph++) {
    const DtsCollPhase *p = &plan->phases[ph];
    if (p->lockstep)
      g_string_append_printf (out, "  phase %s: steps %d-%d, lockstep\n", p->name,
                              p->first_step, p->first_step + p->n_steps - 1);
    else
      g_string_append_printf (out, "  phase %s\n", p->name);
  }
  double total = 0;
  for (int part = 0; part < plan->n_parts; part++)
    total += dts_coll_plan_n_steps (plan, part);
  int shown = total <= max_transfers ? plan->n_parts : MIN (2, plan->n_parts);
  g_autoptr (GArray) xfers = g_array_new (FALSE, TRUE, sizeof (DtsCollXfer));
  DtsCollStepOps ops = { .xfers = xfers };
  double printed = 0;
  for (int part = 0; part < shown; part++) {
    int n_steps = dts_coll_plan_n_steps (plan, part);
    for (int step = 0; step < n_steps; step++)
      dump_step (out, plan, comm, part, step, &ops);
    printed += n_steps;
  }
  if (printed < total)
    g_string_append_printf (out, "  ... %.0f more steps of %d more participants (more than %.0f "
                            "steps in all)\n",
                            total - printed, plan->n_parts - shown, max_transfers);
}

static void
dump_op (GString *out, const DtsSchedule *s, const DtsOp *op, const GPtrArray *layer_names)
{
  g_string_append_printf (out, "  %s", dts_op_type_to_string (op->type));
  switch (op->type) {
  case DTS_OP_COMPUTE:
    if (layer_names != NULL && op->layer >= 0 && (guint) op->layer < layer_names->len)
      g_string_append_printf (out, " %s %s", dts_phase_to_string (op->phase),
                              (const char *) g_ptr_array_index (layer_names, op->layer));
    else
      g_string_append_printf (out, " %s layer %d", dts_phase_to_string (op->phase), op->layer);
    if (op->micro_batch > 0)
      g_string_append_printf (out, " micro-batch %d", op->micro_batch);
    g_string_append_printf (out, " %.10g s", op->duration_s);
    break;
  case DTS_OP_RECORD:
    g_string_append_printf (out, " event %d", op->event);
    if (op->bucket >= 0)
      g_string_append_printf (out, " (bucket %d ready)", op->bucket);
    break;
  case DTS_OP_WAIT:
    g_string_append_printf (out, " event %d x%d", op->event, op->count);
    if (op->wait == DTS_WAIT_P2P)
      g_string_append (out, s->n_shards > 0 ? " (the weights pulled from the servers)"
                                            : " (data from a neighbouring stage)");
    else if (op->wait == DTS_WAIT_GATHER)
      g_string_append (out, " (parameters gathered)");
    else if (op->wait == DTS_WAIT_TENSOR)
      g_string_append (out, " (tensor-parallel collective done)");
    break;
  case DTS_OP_COLL: {
    const DtsCollPlan *plan = g_ptr_array_index (s->plans, op->coll);
    g_string_append_printf (out, " %d (%s)", op->coll, plan->algorithm);
    if (op->part < 0)
      g_string_append (out, " as member");
    else
      g_string_append_printf (out, " as participant %d", op->part);
    if (op->bucket >= 0)
      g_string_append_printf (out, " (bucket %d)", op->bucket);
    if (op->purpose == DTS_COLL_PURPOSE_CONTEXT)
      g_string_append_printf (out, " (context K/V of layer %d)", op->layer);
    if (op->purpose == DTS_COLL_PURPOSE_EXPERT)
      g_string_append_printf (out, " (expert tokens of layer %d)", op->layer);
    break;
  }
  case DTS_OP_SEND:
  case DTS_OP_RECV:
    if (op->peer == DTS_PEER_ANY)
      g_string_append (out, " from any rank");
    else if (op->peer == DTS_PEER_REPLY)
      g_string_append (out, " to the senders of the last apply");
    else
      g_string_append_printf (out, " %s rank %d", op->type == DTS_OP_SEND ? "to" : "from",
                              op->peer);
    g_string_append_printf (out, " %.10g bytes tag %d", op->bytes, op->tag);
    if (op->detach)
      g_string_append (out, " detached");
    if (op->samples > 0)
      g_string_append_printf (out, " (%d samples)", op->samples);
    break;
  case DTS_OP_APPLY:
    g_string_append_printf (out, " shard %d", op->shard);
    if (op->bucket >= 0)
      g_string_append_printf (out, " (bucket %d)", op->bucket);
    g_string_append_printf (out, " tag %d: %s", op->tag, dts_apply_policy_to_string (op->policy));
    if (op->policy == DTS_APPLY_ALL)
      g_string_append_printf (out, " %d", op->count);
    g_string_append_printf (out, " of %d workers", op->senders);
    if (op->bound >= 0)
      g_string_append_printf (out, ", staleness bound %d", op->bound);
    g_string_append_printf (out, ", %.10g s + %.10g s per further gradient", op->duration_s,
                            op->extra_s);
    if (op->overhead_s > 0)
      g_string_append_printf (out, ", %.10g s per message", op->overhead_s);
    if (op->concurrency > 1)
      g_string_append_printf (out, ", %d messages at once", op->concurrency);
    if (op->turn)
      g_string_append_printf (out, ", from worker %d on", op->first_sender);
    break;
  case DTS_OP_BARRIER:
    g_string_append_printf (out, " %s",
                            ((const DtsCommunicator *) g_ptr_array_index (s->comms, op->comm))->name);
    break;
  case DTS_OP_TYPE_COUNT:
    break;
  }
  g_string_append_c (out, '\n');
}

void
dts_schedule_dump (const DtsSchedule *s, const GPtrArray *layer_names, double max_transfers,
                   GString *out)
{
  g_string_append_printf (out,
                          "plan %s: %d rank%s, %u collective%s, %u program%s, %u streams, %d "
                          "event%s per rank\n",
                          s->strategy, s->n_ranks, s->n_ranks == 1 ? "" : "s", s->plans->len,
                          s->plans->len == 1 ? "" : "s", s->programs->len,
                          s->programs->len == 1 ? "" : "s", s->streams->len, s->n_events,
                          s->n_events == 1 ? "" : "s");
  if (s->mesh != NULL)
    dts_mesh_describe (s->mesh, out);
  for (guint c = 0; c < s->comms->len; c++) {
    const DtsCommunicator *comm = g_ptr_array_index (s->comms, c);
    g_autoptr (GArray) ranks = g_array_new (FALSE, FALSE, sizeof (int));
    g_array_append_vals (ranks, comm->ranks, comm->n_ranks);
    g_string_append_printf (out, "communicator %u %s: %d rank%s ", c, comm->name, comm->n_ranks,
                            comm->n_ranks == 1 ? "" : "s");
    append_ranges (out, ranks);
    g_string_append_c (out, '\n');
  }
  for (guint i = 0; s->stages != NULL && i < s->stages->len; i++) {
    const DtsStage *st = &g_array_index (s->stages, DtsStage, i);
    g_autoptr (GArray) ranks = g_array_new (FALSE, FALSE, sizeof (int));
    g_array_append_vals (ranks, st->ranks, st->n_ranks);
    g_string_append_printf (out, "stage %u: layers %d-%d", i, st->first_layer, st->last_layer);
    if (layer_names != NULL)
      g_string_append_printf (out, " (%s-%s)",
                              (const char *) g_ptr_array_index (layer_names, st->first_layer),
                              (const char *) g_ptr_array_index (layer_names, st->last_layer));
    for (int v = 1; v < st->n_chunks; v++) {
      g_string_append_printf (out, ", %d-%d", st->chunks[2 * v], st->chunks[2 * v + 1]);
      if (layer_names != NULL)
        g_string_append_printf (
            out, " (%s-%s)", (const char *) g_ptr_array_index (layer_names, st->chunks[2 * v]),
            (const char *) g_ptr_array_index (layer_names, st->chunks[2 * v + 1]));
    }
    g_string_append_printf (out, ", %.10g parameters, sends %.10g bytes per sample, %d "
                                 "micro-batch%s stashed, %d replica%s",
                            st->params, st->send_bytes, st->stashed, st->stashed == 1 ? "" : "es",
                            st->n_replicas, st->n_replicas == 1 ? "" : "s");
    if (st->tensor_parallel > 1)
      g_string_append_printf (out, " of %d GPUs", st->tensor_parallel);
    g_string_append_c (out, ' ');
    append_ranges (out, ranks);
    g_string_append_c (out, '\n');
  }
  /* Events signalled before the run, grouped by (event, count). */
  for (int e = 0; s->event_initial != NULL && e < s->n_events; e++) {
    g_autoptr (GArray) done = g_array_new (FALSE, FALSE, sizeof (int));
    for (int r = 0; r < s->n_ranks; r++) {
      int count = s->event_initial[(gsize) r * s->n_events + e];
      gboolean seen = FALSE;
      for (guint k = 0; k < done->len && !seen; k++)
        seen = g_array_index (done, int, k) == count;
      if (count == 0 || seen)
        continue;
      g_array_append_val (done, count);
      g_autoptr (GArray) ranks = g_array_new (FALSE, FALSE, sizeof (int));
      for (int q = r; q < s->n_ranks; q++)
        if (s->event_initial[(gsize) q * s->n_events + e] == count)
          g_array_append_val (ranks, q);
      g_string_append_printf (out, "event %d initially x%d: ranks ", e, count);
      append_ranges (out, ranks);
      g_string_append_c (out, '\n');
    }
  }
  for (guint k = 0; k < s->plans->len; k++)
    dump_plan (out, s, k, max_transfers);
  /* Streams grouped by (kind, index, program), in order of first start
   * (a hash of the groups and a count per program: a 32,768-GPU hybrid
   * plan has about 100,000 programs and 200,000 streams, and a scan per
   * stream was two thirds of the time --dump-plan took). */
  g_autoptr (GArray) groups = g_array_new (FALSE, FALSE, sizeof (DtsStream));
  g_autoptr (GPtrArray) members = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr (GHashTable) group_of = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                           NULL);
  g_autofree int *n_streams_of = g_new0 (int, MAX (s->programs->len, 1));
  for (guint i = 0; i < s->streams->len; i++) {
    const DtsStream *st = &g_array_index (s->streams, DtsStream, i);
    gint64 key = ((gint64) st->kind << 56) ^ ((gint64) (guint32) st->index << 32)
                 ^ (gint64) (guint32) st->program;
    gpointer found;
    guint g;
    if (g_hash_table_lookup_extended (group_of, &key, NULL, &found))
      g = GPOINTER_TO_UINT (found);
    else {
      g = groups->len;
      g_array_append_val (groups, *st);
      g_ptr_array_add (members, g_array_new (FALSE, FALSE, sizeof (int)));
      g_hash_table_insert (group_of, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (g));
    }
    g_array_append_val ((GArray *) g_ptr_array_index (members, g), st->rank);
    if (st->program >= 0 && (guint) st->program < s->programs->len)
      n_streams_of[st->program]++;
  }
  for (guint p = 0; p < s->programs->len; p++) {
    const GArray *prog = g_ptr_array_index (s->programs, p);
    int n_streams = n_streams_of[p];
    g_string_append_printf (out, "program %u (%d stream%s): %u operation%s\n", p, n_streams,
                            n_streams == 1 ? "" : "s", prog->len, prog->len == 1 ? "" : "s");
    for (guint i = 0; i < prog->len; i++)
      dump_op (out, s, &g_array_index (prog, DtsOp, i), layer_names);
  }
  for (guint g = 0; g < groups->len; g++) {
    const DtsStream *st = &g_array_index (groups, DtsStream, g);
    g_string_append_printf (out, "streams %s %d program %d: rank%s ", stream_kinds[st->kind],
                            st->index, st->program,
                            ((GArray *) g_ptr_array_index (members, g))->len == 1 ? "" : "s");
    append_ranges (out, g_ptr_array_index (members, g));
    g_string_append_c (out, '\n');
  }
  /* Plan maps: the ranks that run their programs' collectives on plans of
   * their own. */
  if (s->plan_maps == NULL)
    return;
  g_autoptr (GPtrArray) map_ranks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint m = 0; m < s->plan_maps->len; m++)
    g_ptr_array_add (map_ranks, g_array_new (FALSE, FALSE, sizeof (int)));
  for (int r = 0; r < s->n_ranks; r++)
    if (s->rank_plan_map[r] >= 0)
      g_array_append_val ((GArray *) g_ptr_array_index (map_ranks, s->rank_plan_map[r]), r);
  for (guint m = 0; m < s->plan_maps->len; m++) {
    const GArray *map = g_ptr_array_index (s->plan_maps, m);
    const GArray *ranks = g_ptr_array_index (map_ranks, m);
    g_string_append_printf (out, "plan map %u:", m);
    for (guint k = 0; k < map->len; k++)
      if (g_array_index (map, int, k) >= 0 && g_array_index (map, int, k) != (int) k)
        g_string_append_printf (out, " %u->%d", k, g_array_index (map, int, k));
    g_string_append_printf (out, "; rank%s ", ranks->len == 1 ? "" : "s");
    append_ranges (out, ranks);
    g_string_append_c (out, '\n');
  }
}

/* An activity count and its coupling (dts_schedule_estimate_activities). */
typedef struct {
  double n, coupled;
} Activities;

static void
activities_add (Activities *a, Activities b)
{
  a->n += b.n;
  a->coupled += b.coupled;
}

/* The transfers one of a step's transfers shares the network with, as
 * SimGrid's bandwidth sharing connects them (XFERS, one participant's, of
 * a plan of N_RANKS that all do the same): when each sends to two peers or
 * more and receives from two or more (a direct all-to-all), a send shares
 * its source's link with the participant's other sends and its
 * destination's with the others' sends there, and every transfer of the
 * step is connected to every other, N_RANKS times the participant's sends;
 * else 0 (a few transfers at most, in the per-activity figure). The
 * estimate counts this to the power DTS_SCHEDULE_COUPLING_EXPONENT. */
static double
step_coupling (const GArray *xfers, int n_ranks)
{
  int to = -1, from = -1;
  gboolean many_to = FALSE, many_from = FALSE;
  double sends = 0;
  for (guint i = 0; i < xfers->len; i++) {
    const DtsCollXfer *x = &g_array_index (xfers, DtsCollXfer, i);
    if (x->kind == DTS_XFER_SEND) {
      sends += x->channels;
      many_to = many_to || (to >= 0 && x->peer != to);
      to = x->peer;
    } else {
      many_from = many_from || (from >= 0 && x->peer != from);
      from = x->peer;
    }
  }
  return many_to && many_from ? sends * n_ranks : 0;
}

/* Activities of participant PART of PLAN in one run of the collective,
 * after a wait for the call's fixed cost where it has one (OVERHEAD_S,
 * --coll-overhead, and the protocol's plan->fixed_s); each transfer's
 * coupling (step_coupling) summed in .coupled. */
static Activities
participant_activities (const DtsCollPlan *plan, int part, gboolean flow, double overhead_s,
                        GArray *xfers)
{
  DtsCollStepOps ops = { .xfers = xfers };
  Activities a = { overhead_s + plan->fixed_s > 0, 0 };
  int n_steps = dts_coll_plan_n_steps (plan, part);
  for (int step = 0; step < n_steps;) {
    const DtsCollPhase *ph = NULL;
    for (int i = 0; flow && i < plan->n_phases; i++)
      if (plan->phases[i].lockstep && plan->phases[i].first_step == step
          && plan->phases[i].n_steps > 0)
        ph = &plan->phases[i];
    dts_coll_plan_step_ops (plan, part, step, &ops);
    double sends = 0, reduces = 0;
    for (guint i = 0; i < xfers->len; i++) {
      const DtsCollXfer *x = &g_array_index (xfers, DtsCollXfer, i);
      if (x->kind == DTS_XFER_SEND)
        sends += x->channels;
      reduces = reduces || (x->kind == DTS_XFER_RECV && x->reduce);
    }
    double coupling = flow ? pow (step_coupling (xfers, plan->n_ranks),
                                  DTS_SCHEDULE_COUPLING_EXPONENT)
                           : 0;
    if (ph != NULL) {
      a.n += 1 + sends + reduces; /* the latency wait, one flow per transfer, the reduction */
      a.coupled += sends * coupling;
      step += ph->n_steps;
    } else {
      a.n += ops.n_rounds * (sends + reduces) + (ops.reduce_bytes > 0);
      a.coupled += ops.n_rounds * sends * coupling;
      step++;
    }
  }
  return a;
}

/* Workers pushing to PROG's APPLY (one reply per gradient), or 1. */
static double
apply_senders (const GArray *prog)
{
  for (guint j = 0; j < prog->len; j++)
    if (g_array_index (prog, DtsOp, j).type == DTS_OP_APPLY)
      return g_array_index (prog, DtsOp, j).senders;
  return 1;
}

/* Transfers the parameter servers of S keep in flight at once: each
 * server stream (a shard, or a shard's part of a bucket) moves up to
 * --ps-concurrency messages in each direction, and no more than it has
 * workers. */
double
dts_schedule_server_flows (const DtsSchedule *s)
{
  double flows = 0;
  for (guint i = 0; i < s->streams->len; i++) {
    const DtsStream *st = &g_array_index (s->streams, DtsStream, i);
    const GArray *prog = g_ptr_array_index (s->programs, st->program);
    for (guint j = 0; st->kind == DTS_STREAM_SERVER && j < prog->len; j++) {
      const DtsOp *op = &g_array_index (prog, DtsOp, j);
      if (op->type == DTS_OP_APPLY) {
        flows += 2.0 * MAX (MIN (op->concurrency, op->senders), 1);
        break;
      }
    }
  }
  return flows;
}

double
dts_schedule_estimate_wall_s (const DtsSchedule *s, double activities, double coupled)
{
  double flows = dts_schedule_server_flows (s);
  double base = DTS_SCHEDULE_ACTIVITY_S * pow (MAX (s->n_ranks, 1) / 64.0, 0.53);
  return activities * (base + DTS_SCHEDULE_ACTIVITY_S_PER_FLOW2 * flows * flows)
         + coupled * DTS_SCHEDULE_ACTIVITY_S_PER_COUPLED;
}

double
dts_schedule_estimate_activities (const DtsSchedule *s, gboolean flow, gboolean merge,
                                  int iterations, const guint8 *analytic, double overhead_s,
                                  double *coupled)
{
  g_autoptr (GArray) xfers = g_array_new (FALSE, TRUE, sizeof (DtsCollXfer));
  /* A collective's activities per participant: members of a plan whose
   * phases are all lock-step do the same, so member 0 stands for them. */
  g_autofree Activities *per_member = g_new0 (Activities, MAX (s->plans->len, 1));
  g_autofree gboolean *uniform = g_new0 (gboolean, MAX (s->plans->len, 1));
  for (guint k = 0; k < s->plans->len; k++) {
    const DtsCollPlan *plan = g_ptr_array_index (s->plans, k);
    uniform[k] = plan->n_parts == plan->n_ranks;
    for (int i = 0; i < plan->n_phases; i++)
      uniform[k] = uniform[k] && plan->phases[i].lockstep;
    if (analytic != NULL && analytic[k]) {
      /* one wait, whatever its steps (after the call's fixed cost) */
      uniform[k] = TRUE;
      per_member[k].n = 1 + (overhead_s + plan->fixed_s > 0);
    } else if (uniform[k] && plan->n_ranks > 0)
      per_member[k] = participant_activities (plan, 0, flow, overhead_s, xfers);
  }
  /* What a program costs whoever runs it is counted once per program, its
   * collectives once per program and plan map; only collectives whose
   * members differ (parameter servers) depend on the stream's rank. */
  g_autofree double *base = g_new0 (double, MAX (s->programs->len, 1));
  g_autofree gboolean *has_coll = g_new0 (gboolean, MAX (s->programs->len, 1));
  for (guint p = 0; p < s->programs->len; p++) {
    const GArray *prog = g_ptr_array_index (s->programs, p);
    for (guint j = 0; j < prog->len; j++) {
      const DtsOp *op = &g_array_index (prog, DtsOp, j);
      const DtsOp *prev = j > 0 ? &g_array_index (prog, DtsOp, j - 1) : NULL;
      if (op->type == DTS_OP_COMPUTE)
        base[p] += !(merge && prev != NULL && prev->type == DTS_OP_COMPUTE
                     && dts_phase_same_pass (prev->phase, op->phase));
      else if (op->type == DTS_OP_SEND && op->peer == DTS_PEER_REPLY)
        base[p] += apply_senders (prog);
      else if (op->type == DTS_OP_SEND)
        base[p] += 1;
      else if (op->type == DTS_OP_APPLY)
        base[p] += op->senders;
      else if (op->type == DTS_OP_COLL)
        has_coll[p] = TRUE;
    }
  }
  /* (program, plan map) -> what its collectives cost every rank, and
   * whether some of them (members of a plan that is not lock-step) cost
   * each rank its own */
  typedef struct {
    Activities same;
    gboolean by_rank;
  } Colls;
  g_autoptr (GHashTable) colls = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                        g_free);
  Activities total = { 0, 0 };
  for (guint i = 0; i < s->streams->len; i++) {
    const DtsStream *st = &g_array_index (s->streams, DtsStream, i);
    total.n += base[st->program];
    if (!has_coll[st->program])
      continue;
    const GArray *prog = g_ptr_array_index (s->programs, st->program);
    int map = s->rank_plan_map != NULL ? s->rank_plan_map[st->rank] : -1;
    gint64 key = ((gint64) st->program << 32) | (guint32) map;
    Colls *cl = g_hash_table_lookup (colls, &key);
    if (cl == NULL) {
      cl = g_new0 (Colls, 1);
      for (guint j = 0; j < prog->len; j++) {
        const DtsOp *op = &g_array_index (prog, DtsOp, j);
        if (op->type != DTS_OP_COLL)
          continue;
        int k = dts_schedule_rank_plan (s, st->rank, op->coll);
        if (op->part >= 0 && !(analytic != NULL && analytic[k]))
          activities_add (&cl->same, participant_activities (g_ptr_array_index (s->plans, k),
                                                             op->part, flow, overhead_s, xfers));
        else if (uniform[k])
          activities_add (&cl->same, per_member[k]);
        else
          cl->by_rank = TRUE;
      }
      g_hash_table_insert (colls, g_memdup2 (&key, sizeof key), cl);
    }
    activities_add (&total, cl->same);
    for (guint j = 0; cl->by_rank && j < prog->len; j++) {
      const DtsOp *op = &g_array_index (prog, DtsOp, j);
      int k = op->type == DTS_OP_COLL ? dts_schedule_rank_plan (s, st->rank, op->coll) : -1;
      if (k >= 0 && op->part < 0 && !uniform[k]) {
        const DtsCommunicator *c = g_ptr_array_index (s->comms, s->plan_comm[k]);
        activities_add (&total, participant_activities (g_ptr_array_index (s->plans, k),
                                                        c->member_of[st->rank], flow,
                                                        overhead_s, xfers));
      }
    }
  }
  if (coupled != NULL)
    *coupled = total.coupled * iterations;
  return total.n * iterations;
}

/* Whether A and B are the same operation, but for the plan a collective
 * names (ANY_PLAN) or the peer and tag of a message (ANY_PEER), compared
 * field by field (a struct's padding is not its value).
 * Every field of DtsOp is listed. The assertions pin DtsOp's layout on
 * LP64 (first_sender, the last field, at 120 of 128 bytes): a field added
 * anywhere but as one 4-byte field after first_sender (in the trailing
 * padding, which schedule.h's comment there rules out) moves one or the
 * other, and the build stops here until the field is compared. */
#if GLIB_SIZEOF_VOID_P == 8
G_STATIC_ASSERT (offsetof (DtsOp, first_sender) == 120);
G_STATIC_ASSERT (sizeof (DtsOp) == 128);
#endif
static gboolean
same_op (const DtsOp *a, const DtsOp *b, gboolean any_plan, gboolean any_peer)
{
  return a->type == b->type && a->phase == b->phase && a->layer == b->layer
         && a->micro_batch == b->micro_batch && a->bucket == b->bucket && a->event == b->event
         && a->count == b->count && a->part == b->part && (any_peer || a->peer == b->peer)
         && (any_peer || a->tag == b->tag) && a->comm == b->comm && a->wait == b->wait
         && a->purpose == b->purpose && a->bytes == b->bytes && a->duration_s == b->duration_s
         && a->detach == b->detach && a->samples == b->samples && a->policy == b->policy
         && a->bound == b->bound && a->senders == b->senders && a->shard == b->shard
         && a->extra_s == b->extra_s && a->overhead_s == b->overhead_s
         && a->concurrency == b->concurrency && a->turn == b->turn
         && a->first_sender == b->first_sender
         && (any_plan || a->coll == b->coll);
}

static gboolean
same_but_plan (const DtsOp *a, const DtsOp *b)
{
  return same_op (a, b, a->type == DTS_OP_COLL, FALSE);
}

gboolean
dts_schedule_program_same_but_peers (const GArray *a, const GArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++) {
    const DtsOp *x = &g_array_index (a, DtsOp, i), *y = &g_array_index (b, DtsOp, i);
    if (!same_op (x, y, FALSE, x->type == DTS_OP_SEND || x->type == DTS_OP_RECV))
      return FALSE;
  }
  return TRUE;
}

gboolean
dts_schedule_program_match (const GArray *a, const GArray *b, GArray *map)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++) {
    const DtsOp *x = &g_array_index (a, DtsOp, i), *y = &g_array_index (b, DtsOp, i);
    if (!same_but_plan (x, y))
      return FALSE;
    if (x->type != DTS_OP_COLL)
      continue;
    int none = -1;
    while (map->len <= (guint) x->coll)
      g_array_append_val (map, none);
    int *to = &g_array_index (map, int, x->coll);
    if (*to >= 0 && *to != y->coll)
      return FALSE;
    *to = y->coll;
  }
  return TRUE;
}

gboolean
dts_schedule_same_peers (const DtsSchedule *s, guint a, guint b)
{
  const DtsCollPlan *pa = g_ptr_array_index (s->plans, a);
  const DtsCollPlan *pb = g_ptr_array_index (s->plans, b);
  return pa->alg == pb->alg && pa->peer_key == pb->peer_key && pa->n_parts == pb->n_parts
         && s->plan_comm[a] == s->plan_comm[b];
}
