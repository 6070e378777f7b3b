/* pipeline.c - pipeline and hybrid (data x pipeline) parallel schedules.
 *
 * The layers are cut into S stages, contiguous ranges in layer order
 * (--partition ranges; uniform: a model's repeated blocks, as many per
 * stage, Megatron-LM's split and the default where they divide; or
 * balanced by the cost model's per-layer time: the cut between blocks that
 * minimises the largest stage's forward + backward time, by dynamic
 * programming). Stage s runs on D_s ranks, its data-parallel replicas
 * (`pipeline`: D_s = 1; `hybrid`: --dp D or --stage-dp D0,D1,...).
 *
 * An iteration trains one global mini-batch of G = batch x max D_s samples,
 * cut into M micro-batches (sizes differ by at most one sample). Replica d
 * of stage s runs its share of every micro-batch: samples
 * [floor(d b / D_s), floor((d+1) b / D_s)) of a micro-batch of b samples, so
 * a narrower stage's replicas run more samples per micro-batch (load
 * imbalance, as in training with uneven data-parallel degrees). It sends its
 * output activations to every replica of stage s+1 whose share overlaps its
 * own (the overlap's samples), and the activation gradients back the same
 * way.
 *
 * The activations a stage sends are the outputs of its layers (and of
 * earlier stages' layers it forwards) that a later stage reads: with skip
 * connections, more than its last layer's output. They and their gradients
 * travel in the compute precision.
 *
 * Streams of a rank: the compute stream runs forward and backward passes
 * of its micro-batches (a pass's output, or input gradient, is sent once
 * the whole pass is done) in the order of --pipeline-schedule (gpipe: every
 * forward, then every backward in reverse order; 1f1b: min(S-s-1, M)
 * warm-up forwards, then one forward and one backward in turn, then the
 * remaining backwards), then waits for its gradient all-reduces and runs
 * the optimizer. Point-to-point transfers run on four streams of their own
 * (send forward, receive forward, send backward, receive backward), as
 * Megatron and DeepSpeed run them asynchronously from compute: the compute
 * stream RECORDs an event when a micro-batch's output is ready and WAITs
 * for the event the receiving stream RECORDs when an input has arrived.
 * Every pair of neighbouring streams sees the micro-batches in the same
 * order, so they cannot deadlock. A stage's gradients are bucketed as in
 * dp over its own layers and all-reduced among its replicas on one
 * communication stream, each bucket as soon as the backward pass of the
 * last micro-batch has produced it (gradient accumulation over the
 * micro-batches before that).
 *
 * Interleaved 1F1B (--virtual-stages V): the layers are cut into S V chunks
 * and stage s runs chunks s, S + s, ... (virtual stage j = v S + s is chunk
 * v of stage s), in the order of Megatron-LM's interleaved schedule
 * (pass_order); a pass of virtual stage j receives from j - 1 and sends to
 * j + 1 (the last stage sends on to the first), on the same streams and
 * events as above. Memory counts each chunk's activations from its forward
 * to the micro-batch's backward through it (peak_kept).
 *
 * The distributed optimizer (--zero 1, Megatron's --use-distributed-optimizer,
 * ZeRO stage 1): a bucket's gradients are reduce-scattered instead of
 * all-reduced, so each of the D replicas of a stage holds the sum of 1/D of
 * them; each updates its 1/D of the fp32 main weights and of the optimizer
 * state (the optimizer's kernels take 1/D of the time), and the updated
 * parameters, in the compute precision, are all-gathered bucket by bucket
 * in forward order on the gradient communication stream. Without
 * --param-gather overlap the compute stream waits for every gather before
 * the next iteration; with it, the first forward pass of the next iteration
 * waits for each bucket's gather just before the bucket's first layer
 * (Megatron's --overlap-param-gather); the parameters of the first
 * iteration are in place from the start.
 *
 * Events of a rank: 0 bucket ready, 1 bucket all-reduced, 2 output of a
 * micro-batch ready, 3 input arrived, 4 input gradient ready, 5 output
 * gradient arrived; with --zero 1 also 6 optimizer step done, 7 a bucket's
 * parameters gathered (which holds one signal per bucket of the stage when
 * the run starts under --param-gather overlap). --zero 3 (build_staged)
 * is FSDP under pipeline parallelism: --zero 1 with --param-gather overlap;
 * on one stage FSDP x TP, with 8 forward pass done and 9 a bucket's
 * parameters gathered again for the backward pass; there each micro-batch
 * gathers and reduce-scatters (grad_reductions, FSDP's gradient
 * accumulation).
 *
 * Memory of a replica: the weights, gradients and optimizer state of its
 * layers (dts_schedule_model_state: the main weights and optimizer state
 * divided by D under --zero 1), and the activations of its layers kept for backward for every
 * micro-batch in flight at the peak: M with gpipe, min(S - s, M) with
 * 1f1b (stage s). A stage that does not fit its GPU is an error unless
 * allow_oversubscribe is set. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "platform/gpu.h"
#include "schedule/mesh.h"
#include "schedule/schedule-private.h"

enum {
  EV_BUCKET_READY,
  EV_BUCKET_DONE,
  EV_OUT_READY,
  EV_IN_ARRIVED,
  EV_GRAD_IN_READY,
  EV_GRAD_OUT_ARRIVED,
  EV_STEP_DONE,       /* --zero 1: the optimizer step of the replica's shard is done */
  EV_PARAMS_GATHERED, /* --zero 1: a bucket's parameters are gathered */
  EV_FWD_DONE,        /* --zero 3, one stage: the forward pass is done */
  EV_GATHERED_BWD,    /* --zero 3, one stage: a bucket's parameters gathered again */
  EV_TP_GO,           /* --tp-overlap: a tensor-parallel collective handed to the tensor stream */
  EV_TP_DONE,         /* --tp-overlap: the tensor stream finished the one handed over */
  N_EVENTS
};

/* P2P stream indices. */
enum { SEND_FWD, RECV_FWD, SEND_BWD, RECV_BWD };

/* Operations a pipeline plan may hold (about 80 bytes each). */
#define DTS_PIPELINE_MAX_OPS 2e7

static gint64
split (gint64 n, int k, int i)
{
  return n * i / k;
}

/* --partition gives the stages' layer ranges (not "uniform" or "balanced",
 * the ways to compute them). */
static gboolean
partition_ranges (const char *partition)
{
  return partition != NULL && strcmp (partition, "uniform") != 0
         && strcmp (partition, "balanced") != 0;
}

/* Number of ranges in a --partition or --stage-dp list. */
static int
count_items (const char *list)
{
  int n = 1;
  for (const char *p = list; *p; p++)
    n += *p == ',';
  return n;
}

static gboolean
parse_stage_dp (const char *text, int **out, int *n_out, GError **error)
{
  g_auto (GStrv) items = g_strsplit (text, ",", -1);
  int n = g_strv_length (items);
  if (n == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--stage-dp '': expected the replicas of each stage, D0,D1,...");
    return FALSE;
  }
  g_autofree int *dp = g_new (int, n);
  for (int i = 0; i < n; i++) {
    guint64 v;
    if (!g_ascii_string_to_unsigned (items[i], 10, 1, 1 << 20, &v, NULL)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--stage-dp '%s': item %d '%s' is not an integer in 1..%d", text, i + 1,
                   items[i], 1 << 20);
      return FALSE;
    }
    dp[i] = (int) v;
  }
  *n_out = n;
  *out = g_steal_pointer (&dp);
  return TRUE;
}

static gboolean resolve_groups (DtsRunOptions *o, int have, gboolean hybrid, int T,
                                const char *unit, GError **error);

static gboolean
resolve_common (DtsRunOptions *o, int have, gboolean hybrid, GError **error)
{
  /* Counted in groups of T GPUs (a tensor-parallel group; T x C under
   * context parallelism: a ring of such groups), then multiplied back. */
  int C = MAX (o->replicas.context_parallel, 1);
  int T = MAX (o->replicas.tensor_parallel, 1) * C;
  g_autofree char *unit = C > 1 ? g_strdup_printf ("--tensor-parallel %d x --context-parallel %d",
                                                   T / C, C)
                                : g_strdup_printf ("--tensor-parallel %d", T);
  if (o->n_gpus > 0 && o->n_gpus % T != 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--gpus %d: not a multiple of %s", o->n_gpus,
                 unit);
    return FALSE;
  }
  int avail = o->n_gpus > 0 ? o->n_gpus : have;
  if (T > avail) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "%s: more than the %d GPUs taking part",
                 unit, avail);
    return FALSE;
  }
  if (T > 1 && o->replicas.stages > 0 && (gint64) o->replicas.stages * T > avail) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "%d stages of %s need %" G_GINT64_FORMAT " GPUs; %d take part", o->replicas.stages, unit,
                 (gint64) o->replicas.stages * T, avail);
    return FALSE;
  }
  DtsRunOptions groups = *o;
  groups.n_gpus = o->n_gpus / T;
  if (!resolve_groups (&groups, have / T, hybrid, T, unit, error))
    return FALSE;
  if ((gint64) groups.n_gpus * T > 1 << 20) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "%d x %d GPUs: too many", groups.n_gpus, T);
    return FALSE;
  }
  if (groups.n_gpus < 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "%s: the platform's %d GPUs hold no %s of %d stage%s", unit, have,
                 hybrid ? "replica" : "pipeline", MAX (groups.replicas.stages, 1),
                 groups.replicas.stages == 1 ? "" : "s");
    return FALSE;
  }
  *o = groups;
  o->n_gpus = groups.n_gpus * T;
  return TRUE;
}

/* Resolve O counting GPUs in groups of T (UNIT says what they are;
 * messages speak of GPUs). */
static gboolean
resolve_groups (DtsRunOptions *o, int have, gboolean hybrid, int T, const char *unit,
                GError **error)
{
  int given = o->n_gpus;
  int n = given > 0 ? given : have;
  int stages = o->replicas.stages;
  if (partition_ranges (o->replicas.partition)) {
    int k = count_items (o->replicas.partition);
    if (stages > 0 && stages != k) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--stages %d and --partition '%s' (%d stage%s) disagree", stages,
                   o->replicas.partition, k, k == 1 ? "" : "s");
      return FALSE;
    }
    stages = k;
  }
  if (!hybrid) {
    if (stages == 0)
      stages = n;
    if (given > 0 && given != stages) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--gpus %d: a pipeline of %d stage%s runs on %d GPU%s (--strategy hybrid "
                   "adds data-parallel replicas)",
                   given, stages, stages == 1 ? "" : "s", stages, stages == 1 ? "" : "s");
      return FALSE;
    }
    o->replicas.stages = stages;
    o->n_gpus = stages;
    o->replicas.dp = 1;
    return TRUE;
  }
  if (o->replicas.stage_dp != NULL) {
    g_autofree int *dp = NULL;
    int k;
    if (!parse_stage_dp (o->replicas.stage_dp, &dp, &k, error))
      return FALSE;
    if (stages > 0 && stages != k) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--stage-dp '%s' names %d stage%s, but there are %d", o->replicas.stage_dp, k,
                   k == 1 ? "" : "s", stages);
      return FALSE;
    }
    if (o->replicas.dp > 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--dp and --stage-dp: give one (--stage-dp sets every stage's degree)");
      return FALSE;
    }
    gint64 sum = 0;
    for (int i = 0; i < k; i++)
      sum += dp[i];
    if (given > 0 && sum != given) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--gpus %d: --stage-dp '%s' needs %" G_GINT64_FORMAT " GPUs", given,
                   o->replicas.stage_dp, sum);
      return FALSE;
    }
    if (sum > 1 << 20) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--stage-dp '%s': too many GPUs",
                   o->replicas.stage_dp);
      return FALSE;
    }
    o->replicas.stages = k;
    o->n_gpus = (int) sum;
    return TRUE;
  }
  if (stages == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--strategy hybrid: give the pipeline's --stages, --partition or --stage-dp");
    return FALSE;
  }
  int dp = o->replicas.dp;
  if (dp == 0) {
    if (n < stages) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "%d stages need at least %d GPUs (groups of --tensor-parallel); %d available",
                   stages, stages, n);
      return FALSE;
    }
    if (n % stages != 0) {
      if (T > 1)
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "%d groups of %s GPUs do not divide into %d stages: give --dp, or --gpus a "
                     "multiple of %d",
                     n, unit, stages, stages * T);
      else
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "%d GPUs do not divide into %d stages: give --dp, or --gpus a multiple of %d",
                     n, stages, stages);
      return FALSE;
    }
    dp = n / stages;
  }
  if ((gint64) dp * stages > 1 << 20 || (given > 0 && dp * stages != given)) {
    if (given > 0)
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--gpus %d: %d replicas of %d stages need %" G_GINT64_FORMAT " GPUs", given,
                   dp, stages, (gint64) dp * stages);
    else
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--dp %d: %d replicas of %d stages need %" G_GINT64_FORMAT " GPUs", dp, dp,
                   stages, (gint64) dp * stages);
    return FALSE;
  }
  o->replicas.stages = stages;
  o->replicas.dp = dp;
  o->n_gpus = dp * stages;
  return TRUE;
}

gboolean
dts_schedule_pipeline_resolve (DtsRunOptions *o, int have, GError **error)
{
  return resolve_common (o, have, FALSE, error);
}

gboolean
dts_schedule_hybrid_resolve (DtsRunOptions *o, int have, GError **error)
{
  return resolve_common (o, have, TRUE, error);
}

/* Layer index of END (a number or a layer name), or -1. */
static int
layer_index (const DtsWorkload *w, const char *end)
{
  guint64 v;
  if (g_ascii_string_to_unsigned (end, 10, 0, w->layers->len - 1, &v, NULL))
    return (int) v;
  for (guint l = 0; l < w->layers->len; l++)
    if (strcmp (dts_workload_layer (w, l)->name, end) == 0)
      return (int) l;
  return -1;
}

/* Parse "A-B,C-D,..." (indices or names; a single layer is "A") into the
 * stages' first and last layers. The first range may start at the input
 * layer or the one after it; ranges must follow each other and end at the
 * last layer. */
static gboolean
parse_partition (const DtsWorkload *w, const char *text, int *first, int *last, GError **error)
{
  g_auto (GStrv) items = g_strsplit (text, ",", -1);
  int n_layers = w->layers->len;
  int next = 0;
  if (items[0] == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--partition '': expected the stages' layer ranges, FIRST-LAST,...");
    return FALSE;
  }
  for (int s = 0; items[s] != NULL; s++) {
    const char *item = items[s];
    int a = layer_index (w, item), b = a;
    if (a < 0) {
      /* Try every '-' as the separator: names may contain one. */
      for (const char *dash = strchr (item, '-'); dash && a < 0; dash = strchr (dash + 1, '-')) {
        g_autofree char *left = g_strndup (item, dash - item);
        int x = layer_index (w, left), y = layer_index (w, dash + 1);
        if (x >= 0 && y >= 0)
          a = x, b = y;
      }
    }
    if (a < 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--partition '%s': stage %d '%s' is not a layer or a range FIRST-LAST of "
                   "layers (indices 0..%d or names of '%s')",
                   text, s, item, n_layers - 1, w->name);
      return FALSE;
    }
    if (s == 0 && a == 1)
      a = 0;
    if (a != next || b < a) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--partition '%s': stage %d '%s' covers layers %d-%d; expected a range "
                   "starting at layer %d",
                   text, s, item, a, b, next == 0 ? 1 : next);
      return FALSE;
    }
    if (b == 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--partition '%s': stage 0 holds only the input layer", text);
      return FALSE;
    }
    first[s] = a;
    last[s] = b;
    next = b + 1;
  }
  if (next != n_layers) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--partition '%s': the stages end at layer %d; '%s' has layers up to %d", text,
                 next - 1, w->name, n_layers - 1);
    return FALSE;
  }
  return TRUE;
}

/* The first layer of each of W's repeated blocks (a transformer's layers)
 * into STARTS (room for every layer); returns their number (0: none). */
static int
block_starts (const DtsWorkload *w, int *starts)
{
  int n_blocks = 0, prev = -1;
  for (guint l = 0; l < w->layers->len; l++) {
    int b = dts_workload_layer (w, l)->block;
    if (b >= 0 && b != prev)
      starts[n_blocks++] = (int) l;
    prev = b;
  }
  return n_blocks;
}

/* Megatron-LM's split (--partition uniform; DeepSpeed's type:transformer
 * too): the N_BLOCKS repeated blocks starting at STARTS in equal numbers per
 * model chunk, the layers before the first block with the first chunk and
 * those after the last block with the last. Sets FIRST and LAST of the C
 * chunks of W's N_LAYERS when C divides N_BLOCKS (> 0); returns whether. */
static gboolean
uniform_partition (const int *starts, int n_blocks, int n_layers, int C, int *first, int *last)
{
  if (n_blocks == 0 || n_blocks % C != 0)
    return FALSE;
  int k = n_blocks / C;
  first[0] = 0;
  for (int j = 1; j < C; j++) {
    first[j] = starts[j * k];
    last[j - 1] = first[j] - 1;
  }
  last[C - 1] = n_layers - 1;
  return TRUE;
}

/* Contiguous stages that minimise the largest stage time (WEIGHT[k] x the
 * sum of COST over stage k's layers: a stage with half the replicas runs
 * twice the samples per GPU); stage 0 starts at layer 0 and every stage
 * holds at least one layer after the input. Ties go to the earliest cut.
 * Cuts fall between repeated blocks (a transformer's layers: Megatron
 * splits a model by whole layers), not inside one, when there are at least
 * S blocks (BLOCK[l]: layer l's block, -1: none; N_BLOCKS of them);
 * otherwise anywhere (a model of fewer blocks than stages, which Megatron
 * would refuse). */
static void
balance (const double *cost, const double *weight, const int *block, int n_blocks,
         int n_layers, int S, int *first, int *last)
{
  int L = n_layers - 1; /* layers 1..n_layers-1 are cut, layer 0 joins stage 0 */
  /* may[j]: a stage may end at layer j (the next starts at j + 1) */
  g_autofree gboolean *may = g_new (gboolean, L + 1);
  for (int j = 1; j < L; j++)
    may[j] = n_blocks < S || block[j] < 0 || block[j] != block[j + 1];
  g_autofree double *prefix = g_new0 (double, L + 1);
  for (int i = 0; i < L; i++)
    prefix[i + 1] = prefix[i] + cost[i + 1];
  /* best[k][i]: the largest stage time of the first i layers in k stages. */
  g_autofree double *best = g_new (double, (gsize) (S + 1) * (L + 1));
  g_autofree int *cut = g_new0 (int, (gsize) (S + 1) * (L + 1));
#define B(k, i) best[(gsize) (k) * (L + 1) + (i)]
#define C(k, i) cut[(gsize) (k) * (L + 1) + (i)]
  for (int i = 0; i <= L; i++)
    B (1, i) = weight[0] * prefix[i];
  for (int k = 2; k <= S; k++)
    for (int i = k; i <= L; i++) {
      B (k, i) = INFINITY;
      for (int j = k - 1; j < i; j++) {
        if (!may[j])
          continue;
        double v = MAX (B (k - 1, j), weight[k - 1] * (prefix[i] - prefix[j]));
        if (v < B (k, i)) {
          B (k, i) = v;
          C (k, i) = j;
        }
      }
    }
  int i = L;
  for (int k = S; k >= 1; k--) {
    int j = k == 1 ? 0 : C (k, i);
    first[k - 1] = j + 1;
    last[k - 1] = i;
    i = j;
  }
  first[0] = 0;
#undef B
#undef C
}

/* Activation elements per sample that cross from stage layers <= LAST to
 * later layers. */
static double
crossing_elems (const DtsWorkload *w, int last)
{
  double elems = 0;
  for (int l = 0; l <= last; l++) {
    gboolean read_later = FALSE;
    for (guint c = last + 1; c < w->layers->len && !read_later; c++) {
      const DtsLayer *consumer = dts_workload_layer (w, c);
      for (int k = 0; k < consumer->n_inputs; k++)
        read_later = read_later || consumer->inputs[k] == l;
    }
    if (read_later)
      elems += dts_workload_layer (w, l)->out_elems;
  }
  return elems;
}

/* How tensor parallelism treats a layer (pipeline.c header, "Tensor"). */
typedef enum {
  TP_FULL,  /* replicated: every GPU of the group runs all of it */
  TP_COL,   /* output channels split: output split */
  TP_ROW,   /* input channels split: partial output, all-reduced */
  TP_CHAN,  /* channel-wise on a split activation */
  TP_SEQ,   /* sequence parallelism: a replicated layer of a block on 1/T of the sequence */
  TP_VEMB,  /* vocabulary-parallel embedding: 1/T of the rows, output all-reduced */
  TP_VLOSS, /* vocabulary-parallel loss on the logits a column split leaves split */
} TpMode;

typedef struct {
  const DtsWorkload *w;
  const DtsWorkload *wt;  /* the layers as one GPU of a tensor-parallel group runs them */
  DtsWorkload *tp_w, *cp_w; /* owned: the tensor- and context-parallel workloads, or NULL */
  DtsWorkload *ep_w;      /* owned: wt with E/EP of every layer's experts, or NULL */
  DtsWorkload *sync_w;    /* owned: ep_w without the experts' parameters, for the dense
                             buckets; or NULL */
  DtsWorkload *xw;        /* owned: ep_w with the experts' parameters alone, for their
                             buckets where a stage has more replicas than EP; or NULL */
  int EP;                 /* expert-parallel degree: the experts spread over EP consecutive
                             replicas of a stage's dp (a divisor of dp[s]); the replicas
                             d = e mod EP of a stage hold the same experts and synchronise
                             their gradients (expert data parallelism) where dp[s] > EP */
  GArray *bucket_experts; /* gboolean per bucket: it holds experts' gradients (reduced
                             over the stage's expert-data groups) */
  double *imb;            /* [layer]: routing imbalance, the busiest GPU's routed tokens over
                             the mean, of the mixture a router, the layers on its routed
                             tokens and its combine belong to (set_routing); 1 elsewhere */
  gboolean routed_scaled; /* some layer's imb is not 1 */
  TpMode *mode;           /* [layer] */
  gboolean *feeds_seq;    /* [layer]: a replicated layer read by sequence-split ones */
  int T;                  /* tensor-parallel degree */
  int C;                  /* context-parallel degree: replicas d C .. d C + C - 1 of a stage
                             share data-parallel replica d's samples, 1/C of each sequence */
  DtsMesh *mesh;          /* where the ranks are and which groups they form (mesh.h; the
                             schedule's) */
  int *comm[DTS_MESH_N_GROUPS]; /* [kind][group]: the group's communicator, or -1 where it
                                   has none (a group of one; an expert group that is the
                                   stage's data-parallel one) */
  GArray *tp_plans;       /* TpPlan: all-reduces of the groups, by communicator and bytes */
  GArray *plan_comm;      /* plan -> communicator, as plans are made */
  GArray *tensor_program; /* program -> its tensor stream's program (--tp-overlap), or -1 */
  DtsCollOp grad_op;      /* the gradients' collective: all-reduce, or reduce-scatter under
                             the distributed optimizer */
  int *bucket_plan;       /* [bucket * T + t]: the plan of bucket among tensor rank t's */
  int *gather_plan;       /* --zero 1: [bucket * T + t]: the bucket's parameter all-gather */
  int *gather_bwd_plan;   /* --zero 3, one stage: [bucket * T + t]: its gather before the
                             backward pass, or NULL */
  GArray *tstream;        /* --tp-overlap: the tensor stream's program, built along with the
                             compute program, or NULL (tensor collectives block it) */
  const DtsPlatform *platform;
  DtsCost *cost;
  const DtsRunOptions *o;
  const char *algorithm;  /* the gradients' collective */
  gboolean reshard;       /* --zero 3 on one stage (FSDP) */
  DtsSchedule *s;
  int S, M;
  int V;                  /* virtual stages (model chunks) per stage: chunk v of stage s is
                             virtual stage j = v S + s, layers first[j]..last[j] */
  double *vsend;          /* [S V]: activation bytes per sample virtual stage j sends on */
  gint64 G;               /* samples per iteration */
  gint64 *mb_start;       /* [M + 1]: global sample range of each micro-batch */
  int *first, *last;      /* [S V]: the layers of each virtual stage */
  int *dp;                /* [S] */
  int dmax;               /* the most replicas of a stage */
  int *bucket_of;         /* layer -> global bucket */
  GPtrArray *times;       /* cached DtsLayerTimes * */
  GArray *times_key;      /* (spec index, batch) per cached entry */
} Ctx;

typedef struct {
  int spec;
  int batch;
} TimesKey;

typedef struct {
  int comm;
  DtsCollOp op;
  double bytes;
  int plan;
} TpPlan;

static int
rank_of (const Ctx *c, int s, int d, int t)
{
  return dts_mesh_rank (c->mesh, s, d, t);
}

/* The communicator of the group of KIND that replica D of stage S's
 * tensor rank T belongs to, or -1. */
static int
comm_of (const Ctx *c, DtsMeshGroup kind, int s, int d, int t)
{
  return c->comm[kind][dts_mesh_group_of (c->mesh, kind, s, d, t)];
}

/* Samples of micro-batch M that replica D of stage S runs: [*lo, *hi)
 * (the same for the C replicas of a context-parallel ring, each running
 * 1/C of every sequence). */
static void
share (const Ctx *c, int s, int d, int m, gint64 *lo, gint64 *hi)
{
  gint64 b = c->mb_start[m + 1] - c->mb_start[m];
  *lo = c->mb_start[m] + split (b, c->dp[s] / c->C, d / c->C);
  *hi = c->mb_start[m] + split (b, c->dp[s] / c->C, d / c->C + 1);
}

static const DtsLayerTimes *
times_at (Ctx *c, int spec, const DtsGpuSpec *gpu, int batch, GError **error)
{
  for (guint i = 0; i < c->times_key->len; i++) {
    TimesKey *k = &g_array_index (c->times_key, TimesKey, i);
    if (k->spec == spec && k->batch == batch)
      return g_ptr_array_index (c->times, i);
  }
  DtsLayerTimes *t = dts_schedule_layer_times (c->wt, c->cost, gpu, c->o->precision, batch,
                                               c->o->recompute, &c->s->cost_source, error);
  if (t == NULL)
    return NULL;
  /* Every micro-batch waits for the stage before it and the flush (and a
   * hybrid run's all-reduces) for every GPU: the pipeline runs at the pace
   * of the slowest of its GPUs, whose sustained speeds spread as the
   * profile's gpu-speed-spread says (dp.c does the same). */
  dts_schedule_pace_slowest (c->cost, c->o->n_gpus, t, c->wt->layers->len);
  TimesKey k = { spec, batch };
  g_array_append_val (c->times_key, k);
  g_ptr_array_add (c->times, t);
  return t;
}

static void
add_op (GArray *prog, DtsOp op)
{
  g_array_append_val (prog, op);
}

static void
record (GArray *prog, int event, int bucket)
{
  add_op (prog, (DtsOp){ .type = DTS_OP_RECORD, .layer = -1, .bucket = bucket, .event = event });
}

static void
wait (GArray *prog, int event, int count, DtsWaitKind kind)
{
  add_op (prog, (DtsOp){ .type = DTS_OP_WAIT, .layer = -1, .bucket = -1, .event = event,
                         .count = count, .wait = kind });
}

/* Hand every bucket of stage S over to its gradient stream. */
static void
record_buckets (const Ctx *c, GArray *prog, int s)
{
  const DtsStage *st = &g_array_index (c->s->stages, DtsStage, s);
  for (int b = 0; b < st->n_buckets; b++)
    record (prog, EV_BUCKET_READY, st->first_bucket + b);
}

/* The order of the backward passes of the M micro-batches. */
static int
backward_mb (const Ctx *c, int i)
{
  return c->o->replicas.pipeline_schedule == DTS_PIPELINE_GPIPE ? c->M - 1 - i : i;
}

/* A forward or backward pass of micro-batch m through chunk v of a stage. */
typedef struct {
  gboolean forward;
  int v, m;
} Pass;

static void
add_pass (GArray *passes, gboolean forward, int v, int m)
{
  Pass p = { forward, v, m };
  g_array_append_val (passes, p);
}

/* The passes stage S's compute stream runs, in order: GPipe (every
 * forward, then every backward in reverse order), 1F1B (min(S-s-1, M)
 * warm-up forwards, then one forward and one backward in turn, then the
 * remaining backwards) or, with V chunks, Megatron-LM's interleaved 1F1B
 * (forward_backward_pipelining_with_interleaving): M V passes each way,
 * (S-s-1) 2 + (V-1) S warm-up forwards (all of them when M = S); the k-th
 * forward runs chunk (k mod S V) div S on micro-batch (k div S V) S + k mod
 * S, the k-th backward the chunks in reverse order. */
static GArray *
pass_order (const Ctx *c, int s)
{
  int M = c->M, S = c->S, V = c->V;
  GArray *p = g_array_new (FALSE, FALSE, sizeof (Pass));
  if (V == 1 && c->o->replicas.pipeline_schedule == DTS_PIPELINE_GPIPE) {
    for (int m = 0; m < M; m++)
      add_pass (p, TRUE, 0, m);
    for (int i = 0; i < M; i++)
      add_pass (p, FALSE, 0, backward_mb (c, i));
    return p;
  }
  int total = M * V;
  int warm = V == 1 ? MIN (S - s - 1, M)
             : M == S ? total
                      : MIN (total, (S - s - 1) * 2 + (V - 1) * S);
  int group = S * V;
#define FWD(k) add_pass (p, TRUE, ((k) % group) / S, ((k) / group) * S + (k) % S)
#define BWD(k) add_pass (p, FALSE, V - 1 - ((k) % group) / S, ((k) / group) * S + (k) % S)
  for (int k = 0; k < warm; k++)
    FWD (k);
  for (int i = 0; i < total - warm; i++) {
    FWD (warm + i);
    BWD (i);
  }
  for (int i = total - warm; i < total; i++)
    BWD (i);
#undef FWD
#undef BWD
  return p;
}

/* Node of each member of communicator COMM (for topology-aware
 * collectives), owned by the caller. */
static int *
member_nodes (const DtsPlatform *platform, const DtsCommunicator *comm)
{
  int *nodes = g_new (int, comm->n_ranks);
  for (int m = 0; m < comm->n_ranks; m++)
    nodes[m] = dts_platform_gpu (platform, comm->ranks[m])->node;
  return nodes;
}

/* The collective OP (all-reduce; all-gather and reduce-scatter under
 * sequence parallelism) of BYTES over tensor-parallel (or context-parallel)
 * communicator COMM: one plan per communicator, op and size, made on first
 * use. */
static int
tp_plan (Ctx *c, int comm, DtsCollOp op, double bytes, GError **error)
{
  /* the collective given, where it does OP; NCCL's all-to-all (and --collective
   * auto's) is the op's own default, its point-to-point sends */
  const char *algorithm = dts_coll_algorithm_or_default (c->o->collective);
  if (op == DTS_COLL_OP_ALLTOALL && dts_coll_algorithm_lookup (algorithm, op) == NULL)
    algorithm = dts_coll_ops ()[op].default_algorithm;
  for (guint i = 0; i < c->tp_plans->len; i++) {
    const TpPlan *p = &g_array_index (c->tp_plans, TpPlan, i);
    if (p->comm == comm && p->op == op && p->bytes == bytes)
      return p->plan;
  }
  const DtsCommunicator *cm = g_ptr_array_index (c->s->comms, comm);
  g_autofree int *nodes = member_nodes (c->platform, cm);
  DtsCollParams cp = { .n_ranks = cm->n_ranks, .bytes = bytes, .channels = c->o->channels,
                       .chunk_bytes = c->o->chunk_bytes, .gpu_node = nodes,
                       .tuner = c->o->coll_tuner, .gpu_rank = cm->ranks, .op = op };
  DtsCollPlan *plan = dts_coll_plan_new (algorithm, &cp, error);
  if (plan == NULL)
    return -1;
  g_ptr_array_add (c->s->plans, plan);
  g_array_append_val (c->plan_comm, comm);
  TpPlan p = { comm, op, bytes, (int) c->s->plans->len - 1 };
  g_array_append_val (c->tp_plans, p);
  return p.plan;
}

/* A blocking collective OP of BYTES over a group's communicator COMM on
 * the compute stream, for LAYER (-1: none), counted as PURPOSE says. */
static gboolean
group_coll (Ctx *c, GArray *prog, int comm, DtsCollOp op, double bytes, int layer,
            DtsCollPurpose purpose, GError **error)
{
  if (comm < 0 || !(bytes > 0))
    return TRUE;
  int k = tp_plan (c, comm, op, bytes, error);
  if (k < 0)
    return FALSE;
  add_op (prog, (DtsOp){ .type = DTS_OP_COLL, .layer = layer, .bucket = -1, .coll = k,
                         .part = -1, .purpose = purpose });
  return TRUE;
}

/* A collective OP of the tensor-parallel group (Megatron's all-reduces, or
 * sequence parallelism's all-gathers and reduce-scatters), of ELEMS
 * elements per sample (the whole tensor, which an all-gather assembles and
 * a reduce-scatter splits) for N samples. It blocks the compute stream; or,
 * under --tp-overlap, the compute stream hands it to the rank's tensor
 * stream (one collective at a time, in the order handed over: the group's
 * communicator on one stream) and, unless HELD, waits for it at once.
 * HANDED (may be NULL where HELD is FALSE) tells a HELD caller whether
 * there is one to wait for (tp_beside waits for it): none where the group
 * or the tensor is empty. */
static gboolean
tensor_coll (Ctx *c, GArray *prog, int comm, DtsCollOp op, double elems, gint64 n,
             gboolean held, gboolean *handed, GError **error)
{
  double bytes = elems * n * dts_precision_elem_bytes (c->o->precision);
  if (handed != NULL)
    *handed = FALSE;
  if (c->tstream == NULL)
    return group_coll (c, prog, comm, op, bytes, -1, DTS_COLL_PURPOSE_TENSOR, error);
  if (comm < 0 || !(bytes > 0))
    return TRUE;
  int k = tp_plan (c, comm, op, bytes, error);
  if (k < 0)
    return FALSE;
  record (prog, EV_TP_GO, -1);
  wait (c->tstream, EV_TP_GO, 1, DTS_WAIT_COLL);
  add_op (c->tstream, (DtsOp){ .type = DTS_OP_COLL, .layer = -1, .bucket = -1, .coll = k,
                               .part = -1, .purpose = DTS_COLL_PURPOSE_TENSOR });
  record (c->tstream, EV_TP_DONE, -1);
  if (held)
    *handed = TRUE;
  else
    wait (prog, EV_TP_DONE, 1, DTS_WAIT_TENSOR);
  return TRUE;
}

static gboolean
add_tp_coll (Ctx *c, GArray *prog, int comm, DtsCollOp op, double elems, gint64 n,
             GError **error)
{
  return tensor_coll (c, prog, comm, op, elems, n, FALSE, NULL, error);
}

/* How a tensor-parallel collective overlaps the GEMM it feeds or follows
 * (Transformer Engine's userbuffers methods): the compute stream runs LEAD
 * of the GEMM before it hands the collective over, and TAIL of it after
 * the collective is done; the rest runs while it flows. */
typedef struct {
  double lead, tail;
} TpOverlap;

/* bulk: a backward collective beside a GEMM that does not need it (a
 * column layer's input all-gather beside its data gradient's GEMM, which
 * the weight gradient's reads; the data gradient's reduce-scatter beside
 * the weight gradient's GEMM) */
static const TpOverlap tp_bulk = { 0, 0 };
/* pipelined: the GEMM in 4 chunks (the configurations' num_splits), each
 * chunk's reduce-scatter beside the next chunk's product: the first
 * chunk's product runs alone, the last chunk's reduce-scatter after the
 * GEMM (tp_forward) */
#define TP_PIPELINE_SPLITS 4

/* ring exchange: an all-gather feeding the GEMM, the product of each of
 * the T blocks beside the transfer of the next; the last block's product
 * runs once it has arrived */
static TpOverlap
tp_ring_exchange (const Ctx *c)
{
  return (TpOverlap){ 0, 1.0 / c->T };
}

/* Under --tp-overlap: collective OP (as tensor_coll) beside DUR s of
 * compute (PHASE, layer L, micro-batch M) as HOW says. */
static gboolean
tp_beside (Ctx *c, GArray *prog, DtsComputeTotals *tot, int comm, DtsCollOp op, double elems,
           gint64 n, TpOverlap how, DtsPhase phase, int l, int m, double dur, GError **error)
{
  gboolean handed;
  dts_schedule_add_compute (prog, tot, phase, l, m, how.lead * dur);
  if (!tensor_coll (c, prog, comm, op, elems, n, TRUE, &handed, error))
    return FALSE;
  dts_schedule_add_compute (prog, tot, phase, l, m, (1 - how.lead - how.tail) * dur);
  if (handed)
    wait (prog, EV_TP_DONE, 1, DTS_WAIT_TENSOR);
  dts_schedule_add_compute (prog, tot, phase, l, m, how.tail * dur);
  return TRUE;
}

static gboolean
add_tp_allreduce (Ctx *c, GArray *prog, int comm, double elems, gint64 n, GError **error)
{
  return add_tp_coll (c, prog, comm, DTS_COLL_OP_ALLREDUCE, elems, n, error);
}

/* Context parallelism (Megatron's --context-parallel-size, ring attention
 * as Transformer Engine runs it): each of the ring's C GPUs holds 1/C of
 * every sequence's keys and values, and attention layer L passes them
 * around the ring, C - 1 blocks each way: an all-gather of them forward
 * and again backward, where their gradients come back as a reduce-scatter.
 * Elements per sample of the whole tensor: keys and values of every token
 * (head-dim + v-head-dim per head), the group's share of the key/value
 * heads (16 bits under fp8 too, as every activation:
 * dts_precision_elem_bytes). Blocking, on the compute stream: Transformer
 * Engine overlaps each block's transfer with the attention of the one
 * before, which this does not model (an upper bound; the transfer of a
 * block is short against its attention where it matters: long
 * sequences). */
static gboolean
add_cp_coll (Ctx *c, GArray *prog, int comm, DtsCollOp op, int l, gint64 n, GError **error)
{
  const DtsLayer *layer = dts_workload_layer (c->w, l);
  if (layer->type != DTS_LAYER_ATTENTION)
    return TRUE;
  double elems = (double) layer->in_shape.seq * ((layer->kv_heads + c->T - 1) / c->T)
                 * ((double) layer->head_dim + layer->v_head_dim);
  return group_coll (c, prog, comm, op, elems * n * dts_precision_elem_bytes (c->o->precision),
                     l, DTS_COLL_PURPOSE_CONTEXT, error);
}

/* Expert parallelism (Megatron's --expert-model-parallel-size, its
 * all-to-all token dispatcher): a router sends every token's k copies to
 * the GPUs holding their experts, and the copies come back before the
 * combine, one all-to-all of the GPU's S k tokens each way; backward, their
 * gradients take the same two ways back. Routing is balanced: (EP - 1)/EP
 * of each all-to-all leaves the GPU; with --moe-imbalance X every GPU's is
 * the busiest one's, X times as large (an upper bound where the GPUs'
 * exchanges share links). Blocking, on the compute stream. BEFORE
 * says which side of layer L's pass this call is on: a router's all-to-all
 * follows its forward and precedes its backward, a combine's precedes its
 * forward and follows its backward. */
static gboolean
add_ep_coll (Ctx *c, GArray *prog, int comm, int l, gboolean forward, gboolean before,
             gint64 n, GError **error)
{
  const DtsLayer *layer = dts_workload_layer (c->wt, l);
  gboolean router = layer->type == DTS_LAYER_ROUTER;
  if (comm < 0 || (!router && layer->type != DTS_LAYER_MOE_COMBINE)
      || before != (router ? !forward : forward))
    return TRUE;
  double elems = (router ? layer->out_elems : layer->in_elems) * c->imb[l];
  return group_coll (c, prog, comm, DTS_COLL_OP_ALLTOALL,
                     elems * n * dts_precision_elem_bytes (c->o->precision), l,
                     DTS_COLL_PURPOSE_EXPERT, error);
}

/* The parameters of layers FIRST..LAST of W held by experts. */
static double
expert_params (const DtsWorkload *w, int first, int last)
{
  double sum = 0;
  for (int l = first; l <= last; l++) {
    const DtsLayer *x = dts_workload_layer (w, l);
    sum += x->type == DTS_LAYER_LINEAR && x->experts > 1 ? x->params : 0.0;
  }
  return sum;
}

static double
in_elems (const DtsLayer *l)
{
  return dts_shape_elems (l->in_shape);
}

/* Sequence parallelism's boundaries (Korthikanti et al. 2022, section 4.2.2):
 * the mode of the layer that produces layer L's (first) input. */
static TpMode
producer_mode (const Ctx *c, int l)
{
  const DtsLayer *layer = dts_workload_layer (c->w, l);
  return layer->n_inputs > 0 ? c->mode[layer->inputs[0]] : TP_FULL;
}

/* Forward: a layer that needs the whole sequence (a column split, a
 * replicated layer) after sequence-split ones all-gathers its input; a
 * row split feeding sequence-split layers reduce-scatters its output
 * instead of all-reducing it, and so does a vocabulary-parallel embedding
 * (whose output is a partial sum, as a row split's is). A replicated layer
 * read by sequence-split ones hands each GPU its part: no transfer. */
static gboolean
tp_forward_before (Ctx *c, GArray *prog, int comm, int l, gint64 n, GError **error)
{
  if ((c->mode[l] == TP_COL || c->mode[l] == TP_FULL) && producer_mode (c, l) == TP_SEQ)
    return add_tp_coll (c, prog, comm, DTS_COLL_OP_ALLGATHER,
                        in_elems (dts_workload_layer (c->w, l)), n, error);
  return TRUE;
}

static gboolean
tp_forward_after (Ctx *c, GArray *prog, int comm, int l, gint64 n, GError **error)
{
  const DtsLayer *layer = dts_workload_layer (c->w, l);
  /* Megatron's vocabulary-parallel cross-entropy: all-reduces of the
   * logits' maximum, of the target's logit and of the sum of exponentials,
   * one fp32 number per token each */
  if (c->mode[l] == TP_VLOSS)
    return add_tp_allreduce (c, prog, comm,
                             3.0 * layer->in_shape.seq * 4.0
                                 / dts_precision_elem_bytes (c->o->precision),
                             n, error);
  if (c->mode[l] != TP_ROW && c->mode[l] != TP_VEMB)
    return TRUE;
  double out = layer->out_elems;
  if (c->mode[l] == TP_VEMB && !c->feeds_seq[l])
    return add_tp_allreduce (c, prog, comm, out, n, error);
  return c->o->sequence_parallel
             ? add_tp_coll (c, prog, comm, DTS_COLL_OP_REDUCE_SCATTER, out, n, error)
             : add_tp_allreduce (c, prog, comm, out, n, error);
}

/* --tp-overlap all: the GEMMs of a block (Transformer Engine's layers; not
 * the head's) overlap the sequence-parallel collectives around them. */
static gboolean
tp_overlap_all (const Ctx *c, int l)
{
  return c->tstream != NULL && c->o->replicas.tp_overlap == DTS_TP_OVERLAP_ALL
         && dts_workload_layer (c->w, l)->block >= 0;
}

/* Layer L's forward for N samples (micro-batch M) with its tensor-parallel
 * collectives: under --tp-overlap all a column layer's input all-gather
 * runs beside its GEMM (ring exchange), a row layer's output
 * reduce-scatter beside its GEMM but the last chunk's (pipelined). */
static gboolean
tp_forward (Ctx *c, GArray *prog, DtsComputeTotals *tot, int comm, int cpcomm, int l, int m,
            gint64 n, const DtsLayerTimes *t, GError **error)
{
  const DtsLayer *layer = dts_workload_layer (c->w, l);
  /* (the GEMMs exchange no keys and values: add_cp_coll is for attention) */
  if (tp_overlap_all (c, l) && c->mode[l] == TP_COL && producer_mode (c, l) == TP_SEQ)
    return tp_beside (c, prog, tot, comm, DTS_COLL_OP_ALLGATHER, in_elems (layer), n,
                      tp_ring_exchange (c), DTS_PHASE_FORWARD, l, m, t[l].fwd_s, error);
  if (tp_overlap_all (c, l) && c->mode[l] == TP_ROW) {
    /* the first chunks' reduce-scatters beside the GEMM, the last's after */
    double last = 1.0 / TP_PIPELINE_SPLITS;
    return tp_beside (c, prog, tot, comm, DTS_COLL_OP_REDUCE_SCATTER,
                      (1 - last) * layer->out_elems, n, (TpOverlap){ last, 0 },
                      DTS_PHASE_FORWARD, l, m, t[l].fwd_s, error)
           && add_tp_coll (c, prog, comm, DTS_COLL_OP_REDUCE_SCATTER, last * layer->out_elems, n,
                           error);
  }
  if (!tp_forward_before (c, prog, comm, l, n, error)
      || !add_cp_coll (c, prog, cpcomm, DTS_COLL_OP_ALLGATHER, l, n, error))
    return FALSE;
  dts_schedule_add_compute (prog, tot, DTS_PHASE_FORWARD, l, m, t[l].fwd_s);
  return tp_forward_after (c, prog, comm, l, n, error);
}

/* Backward, the transposes: a row split's output gradient is all-gathered
 * before its backward, and so is a replicated layer's read by
 * sequence-split ones (the embedding's, once); a column split's input
 * gradient, a partial sum, is all-reduced, or reduce-scattered into the
 * sequence-split layers before it. A replicated layer after split ones
 * has the whole gradient on every GPU: each keeps its part. */
static gboolean
tp_backward_before (Ctx *c, GArray *prog, int comm, int l, gint64 n, GError **error)
{
  if ((c->mode[l] == TP_ROW && c->o->sequence_parallel) || c->feeds_seq[l])
    return add_tp_coll (c, prog, comm, DTS_COLL_OP_ALLGATHER,
                        dts_workload_layer (c->w, l)->out_elems, n, error);
  return TRUE;
}

static gboolean
tp_backward_after (Ctx *c, GArray *prog, int comm, int l, gint64 n, const DtsLayerTimes *t,
                   GError **error)
{
  double in = in_elems (dts_workload_layer (c->w, l));
  if (c->mode[l] == TP_COL && t[l].bwd_data_s > 0)
    return producer_mode (c, l) == TP_SEQ
               ? add_tp_coll (c, prog, comm, DTS_COLL_OP_REDUCE_SCATTER, in, n, error)
               : add_tp_allreduce (c, prog, comm, in, n, error);
  return TRUE;
}

/* Layer L's backward for N samples (micro-batch M): its data gradient,
 * its weight gradient and the collectives of tensor and context
 * parallelism around them. Under --tp-overlap a column layer's runs as
 * Megatron's (and Transformer Engine's) ColumnParallelLinear issues it:
 * under sequence parallelism the input it did not keep all-gathered again
 * beside the data gradient's GEMM, the data gradient reduce-scattered (or
 * all-reduced) beside the weight gradient's; under --tp-overlap all a row
 * layer's output gradient is all-gathered beside its data gradient's GEMM
 * (ring exchange). */
static gboolean
tp_backward (Ctx *c, GArray *prog, DtsComputeTotals *tot, int comm, int cpcomm, int l, int m,
             gint64 n, const DtsLayerTimes *t, GError **error)
{
  const DtsLayer *layer = dts_workload_layer (c->w, l);
  /* (the GEMMs exchange no keys and values: add_cp_coll is for attention) */
  if (c->tstream != NULL && c->mode[l] == TP_COL && t[l].bwd_data_s > 0) {
    gboolean seq = producer_mode (c, l) == TP_SEQ;
    if (seq && !tp_beside (c, prog, tot, comm, DTS_COLL_OP_ALLGATHER, in_elems (layer), n,
                           tp_bulk, DTS_PHASE_BACKWARD_DATA, l, m, t[l].bwd_data_s, error))
      return FALSE;
    if (!seq)
      dts_schedule_add_compute (prog, tot, DTS_PHASE_BACKWARD_DATA, l, m, t[l].bwd_data_s);
    return tp_beside (c, prog, tot, comm,
                      seq ? DTS_COLL_OP_REDUCE_SCATTER : DTS_COLL_OP_ALLREDUCE, in_elems (layer),
                      n, tp_bulk, DTS_PHASE_BACKWARD_WEIGHT, l, m, t[l].bwd_weight_s, error);
  }
  if (tp_overlap_all (c, l) && c->mode[l] == TP_ROW) {
    if (!tp_beside (c, prog, tot, comm, DTS_COLL_OP_ALLGATHER, layer->out_elems, n,
                    tp_ring_exchange (c), DTS_PHASE_BACKWARD_DATA, l, m, t[l].bwd_data_s, error))
      return FALSE;
  } else {
    if (!tp_backward_before (c, prog, comm, l, n, error))
      return FALSE;
    dts_schedule_add_compute (prog, tot, DTS_PHASE_BACKWARD_DATA, l, m, t[l].bwd_data_s);
    if (!tp_backward_after (c, prog, comm, l, n, t, error)
        || !add_cp_coll (c, prog, cpcomm, DTS_COLL_OP_REDUCE_SCATTER, l, n, error))
      return FALSE;
  }
  dts_schedule_add_compute (prog, tot, DTS_PHASE_BACKWARD_WEIGHT, l, m, t[l].bwd_weight_s);
  return TRUE;
}

static gboolean
forward_pass (Ctx *c, GArray *prog, DtsComputeTotals *tot, int j, int m, gint64 n, int comm,
              int cpcomm, int epcomm, const DtsLayerTimes *t, GError **error)
{
  if (j > 0)
    wait (prog, EV_IN_ARRIVED, 1, DTS_WAIT_P2P);
  for (int l = c->first[j]; l <= c->last[j]; l++) {
    if ((m == 0 || c->reshard) && c->gather_plan != NULL && c->o->replicas.param_gather_overlap
        && dts_schedule_bucket_starting_at (c->s->buckets, c->bucket_of, l) >= 0)
      wait (prog, EV_PARAMS_GATHERED, 1, DTS_WAIT_GATHER);
    if (!add_ep_coll (c, prog, epcomm, l, TRUE, TRUE, n, error)
        || !tp_forward (c, prog, tot, comm, cpcomm, l, m, n, t, error)
        || !add_ep_coll (c, prog, epcomm, l, TRUE, FALSE, n, error))
      return FALSE;
  }
  if (j < c->S * c->V - 1)
    record (prog, EV_OUT_READY, -1);
  if (c->gather_bwd_plan != NULL)
    record (prog, EV_FWD_DONE, -1);
  return TRUE;
}

static gboolean
backward_pass (Ctx *c, GArray *prog, DtsComputeTotals *tot, int j, int m, gint64 n, int comm,
               int cpcomm, int epcomm, gboolean last_mb, const DtsLayerTimes *t,
               GError **error)
{
  if (j < c->S * c->V - 1)
    wait (prog, EV_GRAD_OUT_ARRIVED, 1, DTS_WAIT_P2P);
  for (int l = c->last[j]; l >= c->first[j]; l--) {
    /* Full recomputation runs a block's forward again, its tensor-parallel
     * collectives included (the layer's forward again, then, after a row
     * layer's, the collective its forward ran): an all-reduce of the row layer's
     * output, or under sequence parallelism the all-gather before the
     * column layer and the reduce-scatter after the row one. */
    const DtsLayer *layer = dts_workload_layer (c->w, l);
    int bb = c->gather_bwd_plan != NULL ? c->bucket_of[l] : -1;
    if (bb >= 0 && g_array_index (c->s->buckets, DtsBucket, bb).first_layer == l)
      wait (prog, EV_GATHERED_BWD, 1, DTS_WAIT_GATHER);
    /* the ring's keys and values again, for the recomputed forward (if
     * any) and the backward alike */
    if (!add_cp_coll (c, prog, cpcomm, DTS_COLL_OP_ALLGATHER, l, n, error))
      return FALSE;
    dts_schedule_add_compute (prog, tot, DTS_PHASE_RECOMPUTE, l, m, t[l].recompute_s);
    /* full recomputation sends a block's tokens to their experts and back
     * again */
    if (c->o->recompute == DTS_RECOMPUTE_FULL && layer->block >= 0
        && (!add_ep_coll (c, prog, epcomm, l, TRUE, TRUE, n, error)
            || !add_ep_coll (c, prog, epcomm, l, TRUE, FALSE, n, error)))
      return FALSE;
    if (c->o->recompute == DTS_RECOMPUTE_FULL && layer->block >= 0 && c->mode[l] == TP_ROW
        && !(c->o->sequence_parallel
                 ? add_tp_coll (c, prog, comm, DTS_COLL_OP_ALLGATHER, layer->out_elems, n, error)
                       && add_tp_coll (c, prog, comm, DTS_COLL_OP_REDUCE_SCATTER,
                                       layer->out_elems, n, error)
                 : add_tp_allreduce (c, prog, comm, layer->out_elems, n, error)))
      return FALSE;
    if (!add_ep_coll (c, prog, epcomm, l, FALSE, TRUE, n, error)
        || !tp_backward (c, prog, tot, comm, cpcomm, l, m, n, t, error)
        || !add_ep_coll (c, prog, epcomm, l, FALSE, FALSE, n, error))
      return FALSE;
    int b = c->bucket_of[l];
    if ((last_mb || c->reshard) && c->o->overlap && b >= 0
        && g_array_index (c->s->buckets, DtsBucket, b).last_layer == l)
      record (prog, EV_BUCKET_READY, b);
  }
  /* The input gradient goes back once the stage's backward pass is done
   * (one autograd call per micro-batch, as Megatron and DeepSpeed run it). */
  if (j > 0)
    record (prog, EV_GRAD_IN_READY, -1);
  return TRUE;
}

/* The compute program of replica D of stage S on GPU (spec index SPEC),
 * for tensor rank T (the same for every tensor rank but under context
 * parallelism, whose rings are one per tensor rank); under --tp-overlap
 * with its tensor stream's program in *TENSOR (else NULL). */
static GArray *
compute_program (Ctx *c, int s, int d, int t_rank, int spec, const DtsGpuSpec *gpu,
                 DtsComputeTotals *tot, GArray **tensor, GError **error)
{
  *tensor = NULL;
  g_autofree const DtsLayerTimes **t = g_new (const DtsLayerTimes *, c->M);
  g_autofree gint64 *n = g_new (gint64, c->M);
  for (int m = 0; m < c->M; m++) {
    gint64 lo, hi;
    share (c, s, d, m, &lo, &hi);
    n[m] = hi - lo;
    t[m] = times_at (c, spec, gpu, (int) (hi - lo), error);
    if (t[m] == NULL)
      return NULL;
  }
  int comm = comm_of (c, DTS_MESH_TENSOR, s, d, t_rank);
  int cpcomm = comm_of (c, DTS_MESH_CONTEXT, s, d, t_rank);
  /* expert parallelism over the stage's replicas: their expert group, or
   * where it is all of them, tensor rank t's data-parallel group */
  int epcomm = c->EP == 1         ? -1
               : c->dp[s] > c->EP ? comm_of (c, DTS_MESH_EXPERT, s, d, t_rank)
                                  : comm_of (c, DTS_MESH_DATA, s, d, t_rank);
  g_autoptr (GArray) prog = g_array_new (FALSE, TRUE, sizeof (DtsOp));
  g_autoptr (GArray) tstream = NULL;
  if (c->o->replicas.tp_overlap != DTS_TP_OVERLAP_NONE && comm >= 0)
    tstream = g_array_new (FALSE, TRUE, sizeof (DtsOp));
  c->tstream = tstream;
  *tot = (DtsComputeTotals){ 0 };
  g_autoptr (GArray) passes = pass_order (c, s);
  /* backward passes left per chunk: its buckets are ready after the last */
  g_autofree int *left = g_new (int, c->V);
  for (int v = 0; v < c->V; v++)
    left[v] = c->M;
  gboolean ok = TRUE;
  const DtsStage *st = &g_array_index (c->s->stages, DtsStage, s);
  for (guint k = 0; ok && k < passes->len; k++) {
    const Pass *p = &g_array_index (passes, Pass, k);
    int j = p->v * c->S + s, m = p->m;
    /* --zero 3 on one stage: the last micro-batch's reduce-scatters are
     * done before this one's gathers (one stream), so waiting for them
     * first changes no time and counts it as gradient synchronisation */
    if (p->forward && m > 0 && c->reshard && st->n_buckets > 0)
      wait (prog, EV_BUCKET_DONE, st->n_buckets, DTS_WAIT_COLL);
    ok = p->forward ? forward_pass (c, prog, tot, j, m, n[m], comm, cpcomm, epcomm, t[m], error)
                    : backward_pass (c, prog, tot, j, m, n[m], comm, cpcomm, epcomm,
                                     --left[p->v] == 0, t[m], error);
    /* without overlap, --zero 3 on one stage hands its buckets over after
     * every backward pass (the others after the last, below) */
    if (ok && !p->forward && !c->o->overlap && c->reshard)
      record_buckets (c, prog, s);
  }
  c->tstream = NULL; /* it is this call's, freed on return unless handed back */
  if (!ok)
    return NULL;
  if (st->n_buckets > 0) {
    if (!c->o->overlap && !c->reshard)
      record_buckets (c, prog, s);
    wait (prog, EV_BUCKET_DONE, st->n_buckets, DTS_WAIT_COLL);
  }
  /* The distributed optimizer updates the replica's 1/D of the parameters
   * (of the experts' under expert parallelism, 1/(D / EP): those of the
   * replicas that hold its experts; all of them where EP = D). */
  int shards = c->gather_plan != NULL && st->n_buckets > 0 ? st->n_replicas : 1;
  int expert_shards = c->EP > 1 ? MAX (shards / c->EP, 1) : shards;
  for (int v = 0; v < c->V; v++)
    for (int l = c->first[v * c->S + s]; l <= c->last[v * c->S + s]; l++)
      dts_schedule_add_compute (prog, tot, DTS_PHASE_UPDATE, l, 0,
                                t[0][l].update_s
                                    / (expert_params (c->wt, l, l) > 0 ? expert_shards
                                                                      : shards));
  if (shards > 1) {
    record (prog, EV_STEP_DONE, -1);
    if (!c->o->replicas.param_gather_overlap)
      wait (prog, EV_PARAMS_GATHERED, st->n_buckets, DTS_WAIT_GATHER);
  }
  *tensor = g_steal_pointer (&tstream);
  return g_steal_pointer (&prog);
}

/* The transfers of micro-batch M between replica D of stage S and the
 * replicas of the neighbouring stage that KIND names, appended to PROG: a
 * send to (or receive from) each peer whose samples overlap D's. */
static void
append_transfers (const Ctx *c, GArray *prog, int j, int d, int t, int m, int kind)
{
  gboolean forward = kind == SEND_FWD || kind == RECV_FWD;
  gboolean send = kind == SEND_FWD || kind == SEND_BWD;
  int peer_j = (kind == SEND_FWD || kind == RECV_BWD) ? j + 1 : j - 1;
  int s = j % c->S, peer_stage = peer_j % c->S;
  /* The activations cross the boundary between the lower virtual stage and
   * the next. */
  double bytes_per_sample = c->vsend[MIN (j, peer_j)] / c->T / c->C;
  int me = rank_of (c, s, d, t);
  gint64 lo, hi;
  share (c, s, d, m, &lo, &hi);
  /* The peers' shares are consecutive ranges: start at the last peer that
   * ends at or before LO (none before it overlaps) and stop at the first
   * that starts at or after HI, so that the work is the overlaps' count,
   * not the replicas' (quadratic in them over a stage's streams). */
  /* Under context parallelism only the peers of the same place in their
   * rings (their part of the sequence), counted in rings. */
  int n_peers = c->dp[peer_stage] / c->C, ring = d % c->C;
  gint64 b = c->mb_start[m + 1] - c->mb_start[m];
  int p0 = b > 0 ? (int) MAX (0, (lo - c->mb_start[m]) * n_peers / b - 1) : 0;
  for (int pr = p0; pr < n_peers; pr++) {
    int p = pr * c->C + ring;
    gint64 plo, phi;
    share (c, peer_stage, p, m, &plo, &phi);
    if (plo >= hi)
      break;
    gint64 n = MIN (hi, phi) - MAX (lo, plo);
    if (n <= 0)
      continue;
    int peer = rank_of (c, peer_stage, p, t);
    int sender = send ? me : peer;
    DtsOp op = { .type = send ? DTS_OP_SEND : DTS_OP_RECV, .layer = -1, .bucket = -1,
                 .peer = peer, .tag = sender * 2 + (forward ? 0 : 1),
                 .bytes = n * bytes_per_sample };
    g_array_append_val (prog, op);
  }
}

/* Send (or receive) stream of replica D of stage S towards the stage KIND
 * names: for every micro-batch in the order of that direction, wait for the
 * compute stream's event and send each overlapping peer its samples, or
 * receive from each and record the arrival. */
static GArray *
p2p_program (const Ctx *c, int s, int d, int t, int kind)
{
  gboolean forward = kind == SEND_FWD || kind == RECV_FWD;
  gboolean send = kind == SEND_FWD || kind == SEND_BWD;
  gboolean towards_next = kind == SEND_FWD || kind == RECV_BWD;
  GArray *prog = g_array_new (FALSE, TRUE, sizeof (DtsOp));
  g_autoptr (GArray) passes = pass_order (c, s);
  for (guint k = 0; k < passes->len; k++) {
    const Pass *p = &g_array_index (passes, Pass, k);
    int j = p->v * c->S + s;
    if (p->forward != forward || (towards_next ? j == c->S * c->V - 1 : j == 0))
      continue;
    if (send)
      wait (prog, forward ? EV_OUT_READY : EV_GRAD_IN_READY, 1, DTS_WAIT_COLL);
    append_transfers (c, prog, j, d, t, p->m, kind);
    if (!send)
      record (prog, forward ? EV_IN_ARRIVED : EV_GRAD_OUT_ARRIVED, -1);
  }
  return prog;
}

/* A compute program built for a stage: its index in the schedule's
 * programs, and the GPU spec (index in the build's specs) it was priced on. */
typedef struct {
  int program, spec;
} Built;

/* S's plan maps, made empty (no rank has one) where there are none. */
static void
ensure_plan_maps (DtsSchedule *s)
{
  if (s->plan_maps != NULL)
    return;
  s->plan_maps = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  s->rank_plan_map = g_new (int, s->n_ranks);
  for (int r = 0; r < s->n_ranks; r++)
    s->rank_plan_map[r] = -1;
}

/* The program among BUILT (this stage's; its tensor stream's in
 * TENSOR_PROGRAM) that PROG, priced on spec SPEC with its tensor stream's
 * program TENSOR (or NULL), runs as on other communicators, or -1. *MAP_OF
 * receives the plan map the ranks of PROG need (a new one in S), or -1
 * where the plans are the same. */
static int
match_program (DtsSchedule *s, const GArray *built, const GArray *tensor_program, int spec,
               const GArray *prog, const GArray *tensor, int *map_of)
{
  *map_of = -1;
  for (guint b = 0; b < built->len; b++) {
    const Built *bt = &g_array_index (built, Built, b);
    int q = bt->program;
    int tq = g_array_index (tensor_program, int, q);
    g_autoptr (GArray) map = g_array_new (FALSE, FALSE, sizeof (int));
    if (bt->spec != spec || (tq >= 0) != (tensor != NULL)
        || !dts_schedule_program_match (g_ptr_array_index (s->programs, q), prog, map)
        || (tensor != NULL
            && !dts_schedule_program_match (g_ptr_array_index (s->programs, tq), tensor, map)))
      continue;
    gboolean identity = TRUE;
    for (guint x = 0; x < map->len && identity; x++)
      identity = g_array_index (map, int, x) < 0 || g_array_index (map, int, x) == (int) x;
    if (!identity) {
      ensure_plan_maps (s);
      g_ptr_array_add (s->plan_maps, g_steal_pointer (&map));
      *map_of = (int) s->plan_maps->len - 1;
    }
    return q;
  }
  return -1;
}

/* --zero 1: the all-gathers of stage S's parameters among tensor rank T's
 * replicas, bucket by bucket in forward order, appended to PROG. */
static void
append_gathers (const Ctx *c, GArray *prog, int s, int t)
{
  const DtsStage *st = &g_array_index (c->s->stages, DtsStage, s);
  dts_schedule_add_param_gathers (prog, c->gather_plan + t, c->T, st->first_bucket,
                                  st->first_bucket + st->n_buckets - 1, 1, EV_PARAMS_GATHERED);
}

/* One communication stream for replica D of stage S (--p2p-stream shared):
 * its sends and its stage's gradient all-reduces, in the order the compute
 * stream COMPUTE hands them over, one at a time (a single communication
 * thread). */
static GArray *
shared_program (const Ctx *c, int s, int d, int t, const GArray *compute)
{
  GArray *prog = g_array_new (FALSE, TRUE, sizeof (DtsOp));
  int n_fwd = 0, n_bwd = 0;
  for (guint k = 0; k < compute->len; k++) {
    const DtsOp *op = &g_array_index (compute, DtsOp, k);
    /* (the tensor stream takes the tensor-parallel collectives) */
    if (op->type != DTS_OP_RECORD || op->event == EV_TP_GO)
      continue;
    wait (prog, op->event, 1, DTS_WAIT_COLL);
    if (op->event == EV_OUT_READY)
      append_transfers (c, prog, s, d, t, n_fwd++, SEND_FWD);
    else if (op->event == EV_GRAD_IN_READY)
      append_transfers (c, prog, s, d, t, backward_mb (c, n_bwd++), SEND_BWD);
    else if (op->event == EV_STEP_DONE)
      append_gathers (c, prog, s, t);
    else {
      g_assert (op->event == EV_BUCKET_READY);
      add_op (prog, (DtsOp){ .type = DTS_OP_COLL, .layer = -1, .bucket = op->bucket,
                             .coll = c->bucket_plan[op->bucket * c->T + t], .part = -1 });
      record (prog, EV_BUCKET_DONE, -1);
    }
  }
  return prog;
}

static void
stage_clear (gpointer p)
{
  DtsStage *st = p;
  g_free (st->ranks);
  g_free (st->chunks);
}

static void
add_stream (DtsSchedule *s, int rank, DtsStreamKind kind, int index, GArray *prog)
{
  g_ptr_array_add (s->programs, prog);
  DtsComputeTotals none = { 0 };
  g_array_append_val (s->totals, none);
  DtsStream st = { rank, kind, index, (int) s->programs->len - 1 };
  g_array_append_val (s->streams, st);
}

/* Tensor parallelism over T GPUs (Megatron's column and row splits):
 * within a stage, a splittable layer (conv, fc, linear: its row's tensor-
 * parallel role) whose output reaches the next splittable layer through
 * channel-wise layers only (ReLU, batch norm, pooling, dropout, flatten,
 * attention by heads, GELU, SwiGLU), each read by the next alone, forms a
 * pair with it: the
 * first splits its output channels (column), the layers between work on
 * split channels, the second splits its input channels (row) and its
 * partial output is all-reduced in the forward pass; in the backward pass
 * the first's input gradient is all-reduced. Where the channel-wise layers
 * reach a join of several inputs instead (latent attention), tp_join
 * splits the layers that feed it. Layers in no pair are replicated: every
 * GPU of the group runs them whole. */
static gboolean
splittable (const DtsLayer *l)
{
  return dts_layer_tp_role (l) == DTS_TP_SPLITTABLE;
}

static gboolean
vocabulary (const DtsLayer *l)
{
  return dts_layer_tp_role (l) == DTS_TP_VOCABULARY;
}

static gboolean
channel_wise (const DtsLayer *l)
{
  return dts_layer_tp_role (l) == DTS_TP_CHANNEL_WISE;
}

/* The layer that alone reads layer L's output, -1 if none or several. */
static int
sole_reader (const int *readers, const int *reader, int l)
{
  return readers[l] == 1 ? reader[l] : -1;
}

/* A channel-wise layer that reads one input, which nothing else reads. */
static gboolean
chan_link (const DtsWorkload *w, const int *readers, int l)
{
  const DtsLayer *x = dts_workload_layer (w, l);
  return channel_wise (x) && x->n_inputs == 1 && readers[x->inputs[0]] == 1;
}

/* A join (latent attention, whose queries, keys and values come from
 * separate GEMMs): splittable layer L reaches, through channel-wise
 * layers, a channel-wise layer J of several inputs. When every input of J
 * (but those it reads whole, its rotary keys) comes the same way from a
 * splittable layer, and J reaches a splittable layer R the same way, those
 * layers split their output channels (column), R its input channels (row),
 * the layers between work on split channels. FALSE: no such join, nothing
 * marked. */
static gboolean
tp_join (const DtsWorkload *w, int first, int last, const int *readers, const int *reader,
         int l, TpMode *mode)
{
  int j = sole_reader (readers, reader, l);
  while (j > 0 && j <= last && chan_link (w, readers, j))
    j = sole_reader (readers, reader, j);
  if (j <= 0 || j > last || mode[j] != TP_FULL)
    return FALSE;
  const DtsLayer *join = dts_workload_layer (w, j);
  if (!channel_wise (join) || join->n_inputs < 2)
    return FALSE;
  g_autofree int *col = g_new (int, join->n_inputs);
  for (int k = 0; k < join->n_inputs; k++) {
    int s = join->inputs[k];
    col[k] = -1;
    if (dts_layer_tp_input_whole (join, dts_workload_layer (w, s)->out_shape.c))
      continue;
    while (s >= first && readers[s] == 1 && chan_link (w, readers, s) && mode[s] == TP_FULL)
      s = dts_workload_layer (w, s)->inputs[0];
    if (s < first || readers[s] != 1 || mode[s] != TP_FULL
        || !splittable (dts_workload_layer (w, s)))
      return FALSE;
    col[k] = s;
  }
  int r = sole_reader (readers, reader, j);
  while (r > 0 && r <= last && chan_link (w, readers, r))
    r = sole_reader (readers, reader, r);
  if (r <= 0 || r > last || mode[r] != TP_FULL || !splittable (dts_workload_layer (w, r))
      || dts_workload_layer (w, r)->n_inputs != 1)
    return FALSE;
  for (int k = 0; k < join->n_inputs; k++) {
    if (col[k] < 0)
      continue;
    mode[col[k]] = TP_COL;
    for (int s = join->inputs[k]; s != col[k]; s = dts_workload_layer (w, s)->inputs[0])
      mode[s] = TP_CHAN;
  }
  mode[j] = TP_CHAN;
  for (int x = sole_reader (readers, reader, j); x != r; x = sole_reader (readers, reader, x))
    mode[x] = TP_CHAN;
  mode[r] = TP_ROW;
  return TRUE;
}

static void
tp_modes (const DtsWorkload *w, int first, int last, gboolean sequence_parallel, TpMode *mode)
{
  int n = w->layers->len;
  g_autofree int *readers = g_new0 (int, n);
  g_autofree int *reader = g_new0 (int, n);
  for (int l = 0; l < n; l++) {
    const DtsLayer *layer = dts_workload_layer (w, l);
    for (int k = 0; k < layer->n_inputs; k++) {
      readers[layer->inputs[k]]++;
      reader[layer->inputs[k]] = l;
    }
  }
  for (int l = first; l <= last; l++) {
    if (!splittable (dts_workload_layer (w, l)) || mode[l] != TP_FULL)
      continue;
    int r = l + 1;
    gboolean chain = TRUE;
    for (; r <= last && chain; r++) {
      const DtsLayer *next = dts_workload_layer (w, r);
      chain = next->n_inputs == 1 && next->inputs[0] == r - 1 && readers[r - 1] == 1;
      if (chain && (splittable (next) || vocabulary (next)))
        break;
      chain = chain && channel_wise (next);
    }
    if (!chain || r > last) {
      tp_join (w, first, last, readers, reader, l, mode);
      continue;
    }
    mode[l] = TP_COL;
    for (int k = l + 1; k < r; k++)
      mode[k] = TP_CHAN;
    /* a column split before a vocabulary-parallel loss: the LM head */
    mode[r] = vocabulary (dts_workload_layer (w, r)) ? TP_VLOSS : TP_ROW;
    l = r;
  }
  /* Vocabulary-parallel embeddings (the other vocabulary layers). */
  for (int l = first; l <= last; l++)
    if (mode[l] == TP_FULL && vocabulary (dts_workload_layer (w, l)))
      mode[l] = TP_VEMB;
  /* Sequence parallelism: the replicated layers of the blocks (norms,
   * dropout, residual adds) run on 1/T of the sequence. */
  for (int l = first; sequence_parallel && l <= last; l++) {
    const DtsLayer *layer = dts_workload_layer (w, l);
    if (mode[l] == TP_FULL && layer->block >= 0 && layer->in_shape.seq > 0)
      mode[l] = TP_SEQ;
  }
}

static int
div_up (int a, int b)
{
  return MAX (1, (a + b - 1) / b);
}

/* A copy of W whose layers are what one GPU of a group of T runs (names
 * and inputs are borrowed from W, which must outlive it). */
static void
tp_workload_free (DtsWorkload *w)
{
  g_array_unref (w->layers);
  g_free (w);
}

typedef DtsWorkload TpWorkload;
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TpWorkload, tp_workload_free)

/* A copy of W (which must outlive it) with layers of its own, to transform
 * (freed by tp_workload_free). */
static DtsWorkload *
workload_copy (const DtsWorkload *w)
{
  DtsWorkload *c = g_new (DtsWorkload, 1);
  *c = *w;
  c->layers = g_array_sized_new (FALSE, FALSE, sizeof (DtsLayer), w->layers->len);
  g_array_append_vals (c->layers, w->layers->data, w->layers->len);
  return c;
}

static DtsWorkload *
tp_workload (const DtsWorkload *w, const TpMode *mode, int T, gboolean sequence_parallel)
{
  DtsWorkload *c = workload_copy (w);
  for (guint l = 0; l < c->layers->len; l++) {
    DtsLayer *x = &g_array_index (c->layers, DtsLayer, l);
    if (mode[l] == TP_FULL)
      continue;
    if (mode[l] == TP_VEMB) {
      /* 1/T of the token table's rows (learned positions are whole on
       * every GPU); every token's vector, partial */
      double table = (double) x->vocab * x->out_shape.c;
      x->params = table / T + (x->params - table);
      continue;
    }
    if (mode[l] == TP_VLOSS) {
      /* the softmax over 1/T of the logits, which it keeps */
      x->macs /= T;
      x->fwd_flops /= T;
      x->bwd_data_flops /= T;
      x->in_shape.c = div_up (x->in_shape.c, T);
      x->in_elems /= T;
      x->act_elems /= T;
      continue;
    }
    if (mode[l] == TP_SEQ) {
      /* the same weights, 1/T of the tokens */
      x->macs /= T;
      x->fwd_flops /= T;
      x->bwd_data_flops /= T;
      x->bwd_weight_flops /= T;
      x->in_shape.seq = div_up (x->in_shape.seq, T);
      x->out_shape.seq = div_up (x->out_shape.seq, T);
      x->in_elems /= T;
      x->out_elems /= T;
      x->act_elems /= T;
      continue;
    }
    x->params /= T;
    x->macs /= T;
    x->fwd_flops /= T;
    x->bwd_data_flops /= T;
    x->bwd_weight_flops /= T;
    /* attention splits by heads: an unfused kernel's score matrices
     * (dts_layer_work_attention) are those of its 1/T of them */
    if (x->type == DTS_LAYER_ATTENTION) {
      x->heads = div_up (x->heads, T);
      x->kv_heads = div_up (x->kv_heads, T);
    }
    /* what the layer keeps for backward is split where the tensor it
     * keeps is: its output but for a row layer, its input but for a
     * column layer (Korthikanti et al. 2022, eq. 2) */
    gboolean keeps_in = dts_layer_keeps_input (x);
    if (mode[l] != TP_ROW) {
      x->out_shape.c = div_up (x->out_shape.c, T);
      x->out_elems /= T;
      if (!keeps_in)
        x->act_elems /= T;
    }
    if (mode[l] != TP_COL) {
      x->in_shape.c = div_up (x->in_shape.c, T);
      x->in_elems /= T;
      if (keeps_in)
        x->act_elems /= T;
    } else if (keeps_in && sequence_parallel) {
      /* it keeps its sequence-split input and gathers it again for its
       * weight gradient (Korthikanti et al. 2022, 4.2.2; Megatron overlaps
       * that all-gather with the data gradient: not priced) */
      x->act_elems /= T;
    }
  }
  return c;
}

/* A copy of W (which must outlive it) whose layers are what one GPU of a
 * context-parallel ring of C runs: 1/C of every sequence's tokens in every
 * layer with a sequence axis, the same weights. Attention's work is 1/C of
 * the whole square too: Megatron cuts each sequence into 2 C chunks and
 * gives GPU i chunks i and 2 C - 1 - i, so that every GPU has as much of
 * the causal mask's triangle. */
static DtsWorkload *
cp_workload (const DtsWorkload *w, int C)
{
  DtsWorkload *c = workload_copy (w);
  for (guint l = 0; l < c->layers->len; l++) {
    DtsLayer *x = &g_array_index (c->layers, DtsLayer, l);
    if (x->in_shape.seq <= 0 && x->out_shape.seq <= 0)
      continue;
    x->macs /= C;
    x->fwd_flops /= C;
    x->bwd_data_flops /= C;
    x->bwd_weight_flops /= C;
    x->in_shape.seq = x->in_shape.seq > 0 ? div_up (x->in_shape.seq, C) : 0;
    x->out_shape.seq = x->out_shape.seq > 0 ? div_up (x->out_shape.seq, C) : 0;
    x->in_elems /= C;
    x->out_elems /= C;
    x->act_elems /= C;
  }
  return c;
}

/* A copy of W (which must outlive it) whose experts linears hold E/EP of
 * their experts (one GPU of expert parallelism over EP: every token's
 * work is the same, the weights a GPU holds 1/EP), and with DROP, none:
 * the parameters whose gradients the data-parallel replicas synchronise
 * when EP is the whole data-parallel group. With a routing IMBALANCE
 * (per layer, or NULL: none) X other than 1 the layers that work on routed
 * tokens (from a router's output to its combine, not included) are the
 * busiest GPU's: X times the mean's tokens, their work, what they read,
 * write and keep. */
static DtsWorkload *
ep_workload (const DtsWorkload *w, int EP, gboolean drop, const double *imbalance)
{
  DtsWorkload *c = workload_copy (w);
  for (guint l = 0; l < c->layers->len; l++) {
    DtsLayer *x = &g_array_index (c->layers, DtsLayer, l);
    if (x->type == DTS_LAYER_LINEAR && x->experts > 1)
      x->params = drop ? 0.0 : x->params / EP;
    /* set_routing gives the layers on routed tokens their router's X, and
     * the router and its combine too (their all-to-alls'): those two keep
     * their own tokens */
    if (imbalance == NULL || imbalance[l] == 1.0 || x->type == DTS_LAYER_ROUTER
        || x->type == DTS_LAYER_MOE_COMBINE)
      continue;
    x->macs *= imbalance[l];
    x->fwd_flops *= imbalance[l];
    x->bwd_data_flops *= imbalance[l];
    x->bwd_weight_flops *= imbalance[l];
    x->in_elems *= imbalance[l];
    x->out_elems *= imbalance[l];
    x->act_elems *= imbalance[l];
  }
  return c;
}

/* A Gamma(A, 1) variate of R (Marsaglia and Tsang 2000; below A = 1, a
 * Gamma(A + 1) one times U^(1/A)). */
static double
gamma_draw (GRand *r, double a)
{
  if (a < 1.0) {
    double u = 1.0 - g_rand_double (r); /* (0, 1] */
    return gamma_draw (r, a + 1.0) * pow (u, 1.0 / a);
  }
  double d = a - 1.0 / 3.0, k = 1.0 / sqrt (9.0 * d);
  for (;;) {
    double x, v;
    do {
      double u1 = 1.0 - g_rand_double (r), u2 = g_rand_double (r);
      x = sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
      v = 1.0 + k * x;
    } while (v <= 0);
    v = v * v * v;
    double u = 1.0 - g_rand_double (r);
    if (u < 1.0 - 0.0331 * x * x * x * x || log (u) < 0.5 * x * x + d * (1.0 - v + log (v)))
      return d * v;
  }
}

/* Routing: the imbalance X of every mixture (the busiest of the EP GPUs'
 * routed tokens over the mean, c->imb for its router, the layers on its
 * routed tokens and its combine) and the schedule's statistics of it.
 * --moe-imbalance X gives every mixture X; dirichlet:A draws each router's
 * expert shares p (E of them, in layer order, from one generator seeded by
 * --seed) from a symmetric Dirichlet(A), and X = EP max over the GPUs of
 * the shares of the E/EP experts it holds (experts e E/EP .. on GPU e).
 * --moe-capacity-factor F keeps at most F/E of the tokens at each expert,
 * dropping the rest before the dispatch: X = EP max of the kept shares
 * (with a fixed X: min (X, F), the GPU's experts at most full), and the
 * dropped share is counted. The draw is one per layer for the whole run,
 * the same for every expert-parallel group. */
static gboolean
set_routing (Ctx *c, GError **error)
{
  const DtsWorkload *w = c->w;
  const DtsRunOptions *o = c->o;
  int n = w->layers->len, EP = c->EP;
  double F = o->replicas.moe_capacity;
  c->imb = g_new (double, n);
  g_autofree int *router_of = g_new (int, n);
  for (int l = 0; l < n; l++)
    c->imb[l] = 1.0;
  gboolean asked = o->replicas.moe_routing_alpha > 0 || F > 0;
  if (asked && !dts_workload_has_experts (w)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--%s: workload '%s' has no mixture of experts (a router layer, or "
                 "<transformer experts=...>)",
                 F > 0 ? "moe-capacity-factor" : "moe-imbalance", w->name);
    return FALSE;
  }
  if (o->replicas.moe_routing_alpha > 0 && EP == 1 && !(F > 0)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--moe-imbalance dirichlet:%g needs --expert-parallel (or a "
                 "--moe-capacity-factor that drops tokens): without it every GPU runs all "
                 "experts on its own tokens, whatever the routing",
                 o->replicas.moe_routing_alpha);
    return FALSE;
  }
  g_autoptr (GRand) rng = o->replicas.moe_routing_alpha > 0 ? g_rand_new_with_seed ((guint32) o->seed)
                                                   : NULL;
  double sum = 0, most = 0, dropped = 0;
  int routers = 0;
  for (int l = 0; l < n; l++) {
    const DtsLayer *x = dts_workload_layer (w, l);
    /* the router whose routed tokens layer l works on (as ep_workload
     * follows them: single-input layers from the router on), -1: none; a
     * combine takes its router's imbalance but ends the routed tokens */
    router_of[l] = -1;
    if (x->type == DTS_LAYER_ROUTER)
      router_of[l] = l;
    else if (x->type == DTS_LAYER_MOE_COMBINE) {
      for (int k = 0; k < x->n_inputs; k++)
        if (router_of[x->inputs[k]] >= 0)
          c->imb[l] = c->imb[router_of[x->inputs[k]]];
      continue;
    } else if (x->n_inputs == 1)
      router_of[l] = router_of[x->inputs[0]];
    if (router_of[l] >= 0 && router_of[l] < l) {
      c->imb[l] = c->imb[router_of[l]];
      continue;
    }
    if (x->type != DTS_LAYER_ROUTER)
      continue;
    double X = c->s->moe_imbalance, lost = 0;
    if (rng != NULL) {
      int E = x->experts, per = MAX (E / EP, 1);
      g_autofree double *p = g_new (double, E);
      double total = 0;
      for (int e = 0; e < E; e++)
        total += p[e] = gamma_draw (rng, o->replicas.moe_routing_alpha);
      X = 0;
      for (int g = 0; g < EP; g++) {
        double load = 0;
        for (int e = g * per; e < (g + 1) * per && e < E; e++) {
          double share = total > 0 ? p[e] / total : 1.0 / E;
          double kept = F > 0 ? MIN (share, F / E) : share;
          load += kept;
          lost += share - kept;
        }
        X = MAX (X, EP * load);
      }
    } else if (F > 0)
      X = MIN (X, F);
    c->imb[l] = X;
    c->routed_scaled = c->routed_scaled || X != 1.0;
    sum += X;
    most = MAX (most, X);
    dropped += lost;
    routers++;
  }
  if (routers > 0 && asked) {
    c->s->moe_imbalance = sum / routers;
    c->s->moe_imbalance_max = most;
    c->s->moe_dropped = dropped / routers;
  }
  return TRUE;
}

/* A copy of W (which must outlive it) in which only the experts' linears
 * hold parameters: their gradients' buckets under expert data
 * parallelism. */
static DtsWorkload *
experts_workload (const DtsWorkload *w)
{
  DtsWorkload *c = workload_copy (w);
  for (guint l = 0; l < c->layers->len; l++) {
    DtsLayer *x = &g_array_index (c->layers, DtsLayer, l);
    if (!(x->type == DTS_LAYER_LINEAR && x->experts > 1))
      x->params = 0.0;
  }
  return c;
}

int
dts_schedule_context_tokens (const DtsWorkload *w, const DtsLayer **unfused)
{
  int tokens = 0;
  *unfused = NULL;
  for (guint l = 0; l < w->layers->len; l++) {
    const DtsLayer *x = dts_workload_layer (w, l);
    if (x->type != DTS_LAYER_ATTENTION)
      continue;
    if (!x->fused && *unfused == NULL)
      *unfused = x;
    int a = tokens, b = x->in_shape.seq;
    while (b != 0) {
      int r = a % b;
      a = b;
      b = r;
    }
    tokens = a;
  }
  return tokens;
}

/* What --context-parallel C needs: attention layers, each a fused kernel
 * (ring attention runs FlashAttention's blocks) over a sequence that cuts
 * into 2 C equal chunks (Megatron's load balancing), and replicas alike on
 * every stage. */
static gboolean
check_context (const DtsWorkload *w, const DtsRunOptions *o, int C, GError **error)
{
  if (o->replicas.stage_dp != NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--context-parallel %d: not with --stage-dp (give --dp: every stage's "
                 "replicas are cut into rings alike)",
                 C);
    return FALSE;
  }
  const DtsLayer *unfused = NULL;
  int tokens = dts_schedule_context_tokens (w, &unfused);
  if (unfused != NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--context-parallel %d: layer '%s' of '%s' is unfused attention; ring "
                 "attention runs a fused kernel (attention=\"flash\" in <transformer>, "
                 "fused=\"true\" on an attention layer)",
                 C, unfused->name, w->name);
    return FALSE;
  }
  if (tokens == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--context-parallel %d: '%s' has no attention layer whose sequence could be "
                 "split",
                 C, w->name);
    return FALSE;
  }
  if (dts_schedule_context_fits (tokens, C))
    return TRUE;
  /* name the first layer the ring cannot cut (2 C divides every sequence
   * exactly when it divides their gcd, so one is found) */
  for (guint l = 0; l < w->layers->len; l++) {
    const DtsLayer *x = dts_workload_layer (w, l);
    if (x->type == DTS_LAYER_ATTENTION && !dts_schedule_context_fits (x->in_shape.seq, C)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--context-parallel %d: layer '%s' of '%s' has a sequence of %d tokens, "
                   "not a multiple of 2 x %d (each GPU takes two of 2 C equal chunks; "
                   "--seq-len sets it)",
                   C, x->name, w->name, x->in_shape.seq, C);
      return FALSE;
    }
  }
  g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
               "--context-parallel %d: '%s' has attention sequences of %d tokens in common, "
               "not a multiple of 2 x %d",
               C, w->name, tokens, C);
  return FALSE;
}

/* What --virtual-stages V needs: Megatron-LM's interleaved schedule (1F1B,
 * at least 2 stages, micro-batches a multiple of the stages), a layer or
 * more per chunk, and the chunks cut by the balancer, on stages of the same
 * data-parallel degree whose sends have streams of their own. */
static gboolean
check_interleaving (const DtsWorkload *w, const DtsRunOptions *o, int S, int V, GError **error)
{
  const char *why = NULL;
  g_autofree char *own = NULL;
  if (o->replicas.pipeline_schedule != DTS_PIPELINE_1F1B)
    why = "needs --pipeline-schedule 1f1b (Megatron's interleaved 1F1B)";
  else if (S < 2)
    why = "needs 2 or more --stages";
  else if (o->replicas.micro_batches > 0 && o->replicas.micro_batches % S != 0)
    why = own = g_strdup_printf ("needs --micro-batches a multiple of the %d stages, as "
                                 "Megatron's interleaved schedule does (%d given)",
                                 S, o->replicas.micro_batches);
  else if ((gint64) S * V > (gint64) w->layers->len - 1)
    why = own = g_strdup_printf ("%d stages x %d chunks: '%s' has %u layers after its input "
                                 "(at least one per chunk)",
                                 S, V, w->name, w->layers->len - 1);
  else if (partition_ranges (o->replicas.partition))
    why = "cuts the layers into stages x chunks itself: --partition takes uniform or balanced";
  else if (o->replicas.stage_dp != NULL)
    why = "needs the same data-parallel degree on every stage: --stage-dp is not available";
  else if (o->replicas.p2p_shared)
    why = "needs --p2p-stream own";
  if (why == NULL)
    return TRUE;
  g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--virtual-stages %d: %s", V, why);
  return FALSE;
}

/* The largest activation bytes per sample stage S keeps at once, walking
 * its passes (a forward keeps its chunk's activations until the
 * micro-batch's backward through that chunk); *STASHED the largest number of
 * micro-batch chunks in flight. ACT[v]: elements chunk v keeps per sample. */
static double
peak_kept (const Ctx *c, int s, const double *act, int *stashed)
{
  g_autoptr (GArray) passes = pass_order (c, s);
  g_autofree int *inflight = g_new0 (int, c->V);
  double peak = 0;
  int most = 0, n = 0;
  for (guint k = 0; k < passes->len; k++) {
    const Pass *p = &g_array_index (passes, Pass, k);
    inflight[p->v] += p->forward ? 1 : -1;
    n += p->forward ? 1 : -1;
    double now = 0;
    for (int v = 0; v < c->V; v++)
      now += inflight[v] * act[v];
    peak = MAX (peak, now);
    most = MAX (most, n);
  }
  *stashed = most;
  return peak;
}

static void
ctx_clear (Ctx *c)
{
  g_free (c->first);
  g_free (c->last);
  g_free (c->vsend);
  g_free (c->dp);
  g_free (c->bucket_of);
  g_free (c->mode);
  g_free (c->feeds_seq);
  for (int k = 0; k < DTS_MESH_N_GROUPS; k++)
    g_free (c->comm[k]);
  g_free (c->imb);
  g_clear_pointer (&c->bucket_experts, g_array_unref);
  g_free (c->mb_start);
  g_free (c->bucket_plan);
  g_free (c->gather_plan);
  g_free (c->gather_bwd_plan);
  g_clear_pointer (&c->times, g_ptr_array_unref);
  g_clear_pointer (&c->times_key, g_array_unref);
  g_clear_pointer (&c->tp_plans, g_array_unref);
  g_clear_pointer (&c->plan_comm, g_array_unref);
  g_clear_pointer (&c->tensor_program, g_array_unref);
  g_clear_pointer (&c->cp_w, tp_workload_free);
  g_clear_pointer (&c->ep_w, tp_workload_free);
  g_clear_pointer (&c->sync_w, tp_workload_free);
  g_clear_pointer (&c->xw, tp_workload_free);
  g_clear_pointer (&c->tp_w, tp_workload_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Ctx, ctx_clear)

/* The replicas of each stage (--stage-dp, or --dp times a ring of C). */
static gboolean
set_replicas (Ctx *c, GError **error)
{
  const DtsRunOptions *o = c->o;
  int S = c->S;
  int T = c->T;
  int C = c->C;
  if (o->replicas.stage_dp != NULL) {
    int k;
    if (!parse_stage_dp (o->replicas.stage_dp, &c->dp, &k, error))
      return FALSE;
    g_return_val_if_fail (k == S, FALSE);
  } else {
    /* a ring of C replicas per data-parallel replica */
    c->dp = g_new (int, S);
    for (int i = 0; i < S; i++)
      c->dp[i] = MAX (o->replicas.dp, 1) * C;
  }
  int *dp = c->dp;
  int sum = 0;
  gboolean uniform = TRUE;
  for (int i = 0; i < S; i++) {
    sum += dp[i];
    c->dmax = MAX (c->dmax, dp[i]);
    uniform = uniform && dp[i] == dp[0];
  }
  g_return_val_if_fail (sum * T == o->n_gpus, FALSE);
  if (!uniform && o->replicas.placement == DTS_PLACEMENT_STAGES_INSIDE) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--placement stages-inside: needs the same data-parallel degree on every "
                 "stage (--stage-dp '%s')",
                 o->replicas.stage_dp);
    return FALSE;
  }
  return TRUE;
}

/* The rank mesh of the stages' replicas (mesh.h), once check_experts has
 * settled EP, and its communicator tables, without communicators yet. */
static gboolean
set_mesh (Ctx *c, GError **error)
{
  c->s->mesh = c->mesh = dts_mesh_new (c->S, c->dp, c->T, c->C, c->EP,
                                       c->o->replicas.placement == DTS_PLACEMENT_STAGES_INSIDE, error);
  if (c->mesh == NULL)
    return FALSE;
  for (int k = 0; k < DTS_MESH_N_GROUPS; k++) {
    int n = dts_mesh_n_groups (c->mesh, k);
    c->comm[k] = g_new (int, MAX (n, 1));
    for (int g = 0; g < n; g++)
      c->comm[k][g] = -1;
  }
  return TRUE;
}

/* Micro-batches: the data-parallel replicas' batches (a ring's C replicas
 * share theirs), their sample ranges, and the plan's size bounded. */
static gboolean
set_micro_batches (Ctx *c, GError **error)
{
  const DtsRunOptions *o = c->o;
  DtsSchedule *s = c->s;
  int S = c->S;
  int V = c->V;
  int T = c->T;
  int C = c->C;
  int n_layers = c->w->layers->len;
  const int *dp = c->dp;
  gboolean reshard = c->reshard;
  c->G = (gint64) o->batch_size * (c->dmax / C);
  /* --zero 3 on one stage: the batch is one micro-batch unless given (FSDP
   * without gradient accumulation) */
  int M = o->replicas.micro_batches > 0 ? o->replicas.micro_batches : reshard ? 1 : MIN (4 * S, o->batch_size);
  if (reshard && M > 1 && o->replicas.pipeline_schedule == DTS_PIPELINE_GPIPE) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--pipeline-schedule gpipe: --zero 3 on one stage runs each of the %d "
                 "micro-batches' forward and backward passes in turn, gathering the "
                 "parameters for each (FSDP's gradient accumulation); use 1f1b",
                 M);
    return FALSE;
  }
  if (M > o->batch_size) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--micro-batches %d: more than the batch of %d samples per replica", M,
                 o->batch_size);
    return FALSE;
  }
  if (V > 1 && M % S != 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--virtual-stages %d: needs --micro-batches a multiple of the %d stages, as "
                 "Megatron's interleaved schedule does (%d)",
                 V, S, M);
    return FALSE;
  }
  c->M = M;
  s->micro_batches = M;
  /* FSDP accumulates gradients as it runs without: each micro-batch
   * gathers before its forward and its backward and reduce-scatters after
   * it (torchtitan's FSDP2 and llm-foundry's Composer do not skip the
   * synchronisation of all but the last micro-batch for FSDP) */
  s->param_gathers = reshard ? 2 * M : o->replicas.zero > 0 ? 1 : 0;
  s->grad_reductions = reshard ? M : 1;
  s->samples_per_iteration = (int) c->G;
  gint64 *mb_start = c->mb_start = g_new (gint64, M + 1);
  for (int m = 0; m <= M; m++)
    mb_start[m] = split (c->G, M, m);
  for (int i = 0; i < S; i++)
    if (mb_start[1] - mb_start[0] < dp[i] / C || (c->G / M) < dp[i] / C) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "stage %d: a micro-batch of %" G_GINT64_FORMAT " samples cannot be shared by "
                   "%d replicas (use fewer --micro-batches or a larger --batch-size)",
                   i, c->G / M, dp[i] / C);
      return FALSE;
    }

  /* The plan's size: compute programs of about 4 operations per layer of
   * their stage and micro-batch, one per replica of a stage with tensor
   * parallelism or uneven replicas (--stage-dp), else one or two per stage
   * (replicas whose micro-batch shares differ by a sample); over the stages
   * about 4 M L R operations, R those programs per stage, every layer being
   * in one stage. And point-to-point programs of a few per micro-batch and
   * rank. */
  int dmax = c->dmax;
  int R = C > 1 && T > 1 ? dmax * T : T > 1 || C > 1 || o->replicas.stage_dp != NULL ? dmax : MIN (dmax, 2);
  double n_ops = (double) M * n_layers * 4 * R + (double) M * 8 * o->n_gpus;
  /* --tp-overlap: the tensor streams' programs and the GEMMs cut around
   * their collectives (2.5 times the operations of a transformer's
   * programs under all) */
  if (o->replicas.tp_overlap != DTS_TP_OVERLAP_NONE)
    n_ops *= 3;
  if (n_ops > DTS_PIPELINE_MAX_OPS) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--micro-batches %d: the plan would hold about %.3g operations (at most %.0e); "
                 "use fewer micro-batches",
                 M, n_ops, DTS_PIPELINE_MAX_OPS);
    return FALSE;
  }
  return TRUE;
}

/* The layers of each (virtual) stage, and the workload one GPU of a
 * tensor-parallel group and context-parallel ring runs. */
static gboolean
cut_stages (Ctx *c, GError **error)
{
  const DtsWorkload *w = c->w;
  const DtsRunOptions *o = c->o;
  DtsSchedule *s = c->s;
  const DtsPlatform *platform = c->platform;
  int S = c->S;
  int V = c->V;
  int T = c->T;
  int C = c->C;
  int M = c->M;
  int n_layers = c->w->layers->len;
  int *first = c->first;
  int *last = c->last;
  const int *dp = c->dp;
  /* Stages: given; whole blocks in equal numbers (uniform: the default
   * where a model's blocks divide among the chunks, as Megatron-LM splits
   * it); or balanced on rank 0's GPU at the widest stage's share (before
   * tensor parallelism, which divides the layers it splits alike). */
  gboolean want_uniform = g_strcmp0 (o->replicas.partition, "uniform") == 0;
  gboolean want_balanced = g_strcmp0 (o->replicas.partition, "balanced") == 0;
  s->partition = "given";
  g_autofree int *starts = g_new (int, n_layers);
  int n_blocks = block_starts (w, starts);
  if (o->replicas.partition == NULL || want_uniform) {
    s->partition_blocks = n_blocks;
    if (uniform_partition (starts, n_blocks, n_layers, S * V, first, last))
      s->partition = "uniform";
    else if (want_uniform) {
      if (n_blocks == 0)
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "--partition uniform: '%s' has no repeated blocks (a transformer's "
                     "layers) to share out; use balanced or the stages' layer ranges",
                     w->name);
      else {
        g_autofree char *among = V > 1 ? g_strdup_printf ("%d model chunks (%d stages x %d "
                                                          "virtual stages)",
                                                          S * V, S, V)
                                       : g_strdup_printf ("%d stages", S);
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "--partition uniform: the %d blocks of '%s' do not divide among %s; use "
                     "balanced, other --stages or the stages' layer ranges",
                     n_blocks, w->name, among);
      }
      return FALSE;
    } else
      s->partition = "balanced";
  } else if (want_balanced) {
    s->partition = "balanced";
    s->partition_blocks = n_blocks;
  } else if (!parse_partition (w, o->replicas.partition, first, last, error))
    return FALSE;
  if (strcmp (s->partition, "balanced") == 0) {
    int b = (int) MAX (1, (c->G / M) / (c->dmax / C));
    const DtsLayerTimes *t = times_at (c, -1, &dts_platform_gpu (platform, 0)->spec, b, error);
    if (t == NULL)
      return FALSE;
    g_autofree double *layer_cost = g_new (double, n_layers);
    g_autofree double *weight = g_new (double, S * V);
    for (int l = 0; l < n_layers; l++)
      layer_cost[l] = t[l].fwd_s + t[l].recompute_s + t[l].bwd_data_s + t[l].bwd_weight_s;
    g_autofree int *block = g_new (int, n_layers);
    for (int j = 0; j < S * V; j++)
      weight[j] = (double) c->dmax / dp[j % S];
    for (int l = 0; l < n_layers; l++)
      block[l] = dts_workload_layer (w, l)->block;
    balance (layer_cost, weight, block, n_blocks, n_layers, S * V, first, last);
    /* Those times were of whole layers: price the split ones afresh. */
    g_ptr_array_set_size (c->times, 0);
    g_array_set_size (c->times_key, 0);
  }
  if (T > 1) {
    for (int j = 0; j < S * V; j++)
      tp_modes (w, first[j], last[j], o->sequence_parallel, c->mode);
    c->wt = c->tp_w = tp_workload (w, c->mode, T, o->sequence_parallel);
  }
  if (C > 1)
    c->wt = c->cp_w = cp_workload (c->wt, C);
  if (c->EP > 1 || c->routed_scaled)
    c->wt = c->ep_w = ep_workload (c->wt, c->EP, FALSE, c->imb);
  if (c->EP > 1) {
    c->sync_w = ep_workload (c->wt, 1, TRUE, NULL);
    for (int i = 0; i < S && c->xw == NULL; i++)
      if (c->dp[i] > c->EP)
        c->xw = experts_workload (c->wt);
  }
  gboolean *feeds_seq = c->feeds_seq = g_new0 (gboolean, n_layers);
  for (int l = 0; l < n_layers; l++) {
    const DtsLayer *layer = dts_workload_layer (w, l);
    for (int k = 0; c->mode[l] == TP_SEQ && k < layer->n_inputs; k++)
      feeds_seq[layer->inputs[k]] = feeds_seq[layer->inputs[k]]
                                    || c->mode[layer->inputs[k]] == TP_FULL
                                    || c->mode[layer->inputs[k]] == TP_VEMB;
  }
  return TRUE;
}

/* --expert-parallel EP: a workload with mixtures of experts whose experts
 * divide among EP, over EP consecutive data-parallel (x context-parallel)
 * replicas of each stage, a divisor of their number. Over all of them an
 * expert lives on one GPU of each tensor rank and its gradients need no
 * synchronisation; over fewer (Megatron's expert data parallelism) the
 * replicas d = e mod EP hold the same experts and all-reduce (or, under
 * the distributed optimizer, reduce-scatter) their gradients among
 * themselves, beside the dense parameters' over the whole stage.
 * --expert-parallel dp resolves to the replicas' number; c->EP and the
 * schedule's expert_parallel are set here. */
static gboolean
check_experts (Ctx *c, GError **error)
{
  const DtsWorkload *w = c->w;
  gboolean asked_dp = c->EP == DTS_EXPERT_PARALLEL_DP;
  if (asked_dp) {
    for (int i = 1; i < c->S; i++)
      if (c->dp[i] != c->dp[0]) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "--expert-parallel dp: the stages have %d and %d data-parallel "
                     "replicas (--stage-dp); give one size to all",
                     c->dp[0], c->dp[i]);
        return FALSE;
      }
    c->EP = c->dp[0];
  }
  c->EP = MAX (c->EP, 1);
  c->s->expert_parallel = c->EP;
  double imb = c->o->replicas.moe_imbalance > 0 ? c->o->replicas.moe_imbalance : 1.0;
  c->s->moe_imbalance = imb;
  if (imb > 1.0 && c->EP == 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--moe-imbalance %g needs --expert-parallel: without it every GPU runs all "
                 "experts on its own tokens, whatever the routing",
                 imb);
    return FALSE;
  }
  if (imb > c->EP) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--moe-imbalance %g is more than the expert-parallel size %d (the busiest of %d "
                 "GPUs receives at most every token: %d times the mean)",
                 imb, c->EP, c->EP, c->EP);
    return FALSE;
  }
  if (c->EP == 1 && !asked_dp)
    return TRUE;
  g_autofree char *given = asked_dp ? g_strdup_printf ("dp (%d)", c->EP)
                                    : g_strdup_printf ("%d", c->EP);
  if (!dts_workload_has_experts (w)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--expert-parallel %s: workload '%s' has no mixture of experts (a router "
                 "layer, or <transformer experts=...>)",
                 given, w->name);
    return FALSE;
  }
  if (c->EP == 1)
    return TRUE;
  for (guint l = 0; l < w->layers->len; l++) {
    const DtsLayer *x = dts_workload_layer (w, l);
    if (x->type == DTS_LAYER_ROUTER && x->experts % c->EP != 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--expert-parallel %s does not divide the %d experts of layer '%s'", given,
                   x->experts, x->name);
      return FALSE;
    }
  }
  for (int i = 0; i < c->S; i++) {
    gboolean one = c->dp[i] == 1;
    const char *what = c->C > 1 ? (one ? "data-parallel x context-parallel GPU"
                                       : "data-parallel x context-parallel GPUs")
                                : (one ? "data-parallel replica" : "data-parallel replicas");
    if (c->dp[i] % c->EP != 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--expert-parallel %d %s the %d %s of stage %d (the experts spread over "
                   "EP consecutive ones)",
                   c->EP, c->EP > c->dp[i] ? "is more than" : "does not divide", c->dp[i], what,
                   i);
      return FALSE;
    }
    if (c->dp[i] > c->EP && c->o->replicas.zero >= 2) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--expert-parallel %d with --zero %d: stage %d has %d %s, and expert data "
                   "parallelism (EP below them) is modelled with --zero 0 or 1 only; give "
                   "--expert-parallel %d or --zero 1",
                   c->EP, c->o->replicas.zero, i, c->dp[i], what, c->dp[i]);
      return FALSE;
    }
  }
  return TRUE;
}

/* A plan of OP over BYTES on communicator CM, appended to the schedule's
 * plans (plan_comm: CM). */
static gboolean
add_bucket_plan (Ctx *c, int cm, DtsCollOp op, double bytes, GError **error)
{
  const DtsRunOptions *o = c->o;
  const DtsCommunicator *comm = g_ptr_array_index (c->s->comms, cm);
  g_autofree int *nodes = member_nodes (c->platform, comm);
  DtsCollParams cp = { .n_ranks = comm->n_ranks, .bytes = bytes, .channels = o->channels,
                       .chunk_bytes = o->chunk_bytes, .gpu_node = nodes,
                       .tuner = o->coll_tuner, .gpu_rank = comm->ranks, .op = op };
  DtsCollPlan *plan = dts_coll_plan_new (c->algorithm, &cp, error);
  if (plan == NULL)
    return FALSE;
  g_ptr_array_add (c->s->plans, plan);
  g_array_append_val (c->plan_comm, cm);
  return TRUE;
}

/* Whether stage I's groups of KIND need a communicator: groups of more
 * than one GPU, and the expert groups only where they are not the whole
 * data-parallel group (expert data parallelism). */
static gboolean
stage_has_groups (const Ctx *c, DtsMeshGroup kind, int i)
{
  if (kind == DTS_MESH_EXPERT || kind == DTS_MESH_EXPERT_DATA)
    return c->EP > 1 && c->dp[i] > c->EP;
  return dts_mesh_group_size (c->mesh, kind, i) > 1;
}

/* The communicators of stage I's groups, kind by kind in the mesh's
 * order (tensor, context, data, expert, expert-data), each group's in its
 * number's order. */
static void
add_stage_comms (Ctx *c, int i)
{
  int most = MAX (c->T, c->dp[i]);
  g_autofree int *members = g_new (int, most);
  for (int k = 0; k < DTS_MESH_N_GROUPS; k++) {
    if (!stage_has_groups (c, k, i))
      continue;
    for (int g = dts_mesh_first_group (c->mesh, k, i);
         g < dts_mesh_first_group (c->mesh, k, i + 1); g++) {
      int n = dts_mesh_group_members (c->mesh, k, g, NULL, members);
      g_autofree char *name = dts_mesh_group_name (c->mesh, k, g);
      c->comm[k][g] = dts_schedule_add_comm (c->s, name, members, n);
    }
  }
}

/* Expert data parallelism: the buckets of the experts' gradients of layers
 * LO..HI (numbered from BASE on) merged into the dense ones of PART
 * (numbered from BASE too), in the order the backward pass completes them
 * (the lower its last layer, the later), renumbering c->bucket_of; one flag
 * per bucket appended to EXPERTS. */
static void
merge_expert_buckets (Ctx *c, int lo, int hi, int base, GArray *part, GArray *experts)
{
  g_autofree int *x_of = g_new (int, c->w->layers->len);
  g_autoptr (GArray) xb = dts_schedule_make_buckets (c->xw, lo, hi, c->o->bucket_bytes,
                                                     dts_schedule_grad_bytes (c->o), 0, x_of);
  g_autoptr (GArray) merged = g_array_new (FALSE, TRUE, sizeof (DtsBucket));
  g_autofree int *renumber = g_new (int, part->len);
  g_autofree int *x_renumber = g_new (int, MAX (xb->len, 1));
  guint a = 0, b = 0;
  while (a < part->len || b < xb->len) {
    gboolean take_x
        = a == part->len
          || (b < xb->len && g_array_index (xb, DtsBucket, b).last_layer
                                 > g_array_index (part, DtsBucket, a).last_layer);
    gboolean flag = take_x;
    if (take_x) {
      x_renumber[b] = base + (int) merged->len;
      g_array_append_val (merged, g_array_index (xb, DtsBucket, b++));
    } else {
      renumber[a] = base + (int) merged->len;
      g_array_append_val (merged, g_array_index (part, DtsBucket, a++));
    }
    g_array_append_val (experts, flag);
  }
  for (int l = lo; l <= hi; l++)
    if (c->bucket_of[l] >= 0)
      c->bucket_of[l] = renumber[c->bucket_of[l] - base];
    else if (x_of[l] >= 0)
      c->bucket_of[l] = x_renumber[x_of[l]];
  g_array_set_size (part, 0);
  g_array_append_vals (part, merged->data, merged->len);
}

/* Stages: their ranks, communicators, buckets, gradient plans (tensor
 * rank 0's) and memory. */
static gboolean
add_stages (Ctx *c, GError **error)
{
  const DtsWorkload *w = c->w;
  const DtsRunOptions *o = c->o;
  DtsSchedule *s = c->s;
  int S = c->S;
  int V = c->V;
  int T = c->T;
  int M = c->M;
  int n_layers = c->w->layers->len;
  int *first = c->first;
  int *last = c->last;
  const int *dp = c->dp;
  double *vsend = c->vsend;
  int *bucket_of = c->bucket_of;
  gboolean reshard = c->reshard;
  DtsCollOp grad_op = c->grad_op;
  /* Stages, their communicators (a group per replica, a data-parallel one
   * per tensor rank), buckets and plans. Bucket b's plan among tensor rank
   * 0's is plan b (the trace keeps bucket times by plan index); the other
   * ranks' come after every bucket's, then the groups' all-reduces. */
  s->buckets = g_array_new (FALSE, TRUE, sizeof (DtsBucket));
  for (int l = 0; l < n_layers; l++)
    bucket_of[l] = -1;
  double elem = dts_precision_elem_bytes (o->precision);
  for (int i = 0; i < S; i++) {
    DtsStage st = { .first_layer = first[i], .last_layer = last[i], .n_replicas = dp[i],
                    .tensor_parallel = T, .comm = -1, .first_bucket = s->buckets->len };
    st.n_ranks = dp[i] * T;
    st.ranks = g_new (int, st.n_ranks);
    for (int d = 0; d < dp[i]; d++)
      for (int t = 0; t < T; t++) {
        st.ranks[d * T + t] = rank_of (c, i, d, t);
        s->rank_stage[st.ranks[d * T + t]] = i;
      }
    /* a tensor group per replica; a context ring per data-parallel
     * replica and tensor rank; a data-parallel group per tensor rank; the
     * expert groups */
    add_stage_comms (c, i);
    for (int v = 0; v < V; v++) {
      int j = v * S + i;
      for (int l = first[j]; l <= last[j]; l++)
        st.params += dts_workload_layer (c->wt, l)->params;
      vsend[j] = j < S * V - 1 ? crossing_elems (w, last[j]) * elem : 0;
    }
    st.send_bytes = vsend[i];
    if (V > 1) {
      st.n_chunks = V;
      st.chunks = g_new (int, 2 * V);
      for (int v = 0; v < V; v++) {
        st.chunks[2 * v] = first[v * S + i];
        st.chunks[2 * v + 1] = last[v * S + i];
      }
    }
    st.comm = comm_of (c, DTS_MESH_DATA, i, 0, 0);
    gboolean edp = stage_has_groups (c, DTS_MESH_EXPERT_DATA, i);
    /* in the order the chunks' gradients complete: the last chunk's first */
    g_autoptr (GArray) bk = g_array_new (FALSE, TRUE, sizeof (DtsBucket));
    g_autoptr (GArray) bk_experts = g_array_new (FALSE, TRUE, sizeof (gboolean));
    for (int v = V - 1; v >= 0 && dp[i] > 1; v--) {
      int lo = first[v * S + i], hi = last[v * S + i];
      g_autoptr (GArray) part = dts_schedule_make_buckets (c->sync_w ? c->sync_w : c->wt, lo,
                                                           hi, o->bucket_bytes,
                                                           dts_schedule_grad_bytes (o),
                                                           s->buckets->len + bk->len, bucket_of);
      if (edp)
        merge_expert_buckets (c, lo, hi, s->buckets->len + bk->len, part, bk_experts);
      else
        g_array_set_size (bk_experts, bk_experts->len + part->len);
      g_array_append_vals (bk, part->data, part->len);
    }
    if (dp[i] > 1) {
      st.n_buckets = bk->len;
      for (guint b = 0; b < bk->len; b++) {
        const DtsBucket *bucket = &g_array_index (bk, DtsBucket, b);
        gboolean experts = g_array_index (bk_experts, gboolean, b);
        int cm = experts ? comm_of (c, DTS_MESH_EXPERT_DATA, i, 0, 0) : st.comm;
        g_array_append_val (c->bucket_experts, experts);
        if (!add_bucket_plan (c, cm, grad_op, bucket->bytes, error))
          return FALSE;
        g_array_append_val (s->buckets, *bucket);
      }
    }
    /* Memory of a replica at the peak: the widest share of a micro-batch. */
    gint64 widest = 0;
    for (int m = 0; m < M; m++)
      for (int d = 0; d < dp[i]; d++) {
        gint64 lo, hi;
        share (c, i, d, m, &lo, &hi);
        widest = MAX (widest, hi - lo);
      }
    g_autofree double *act = g_new (double, V);
    for (int v = 0; v < V; v++)
      act[v] = dts_schedule_stored_elems (c->wt, first[v * S + i], last[v * S + i], o->recompute,
                                          dts_cost_framework (c->cost)->loss, o->precision);
    double kept = peak_kept (c, i, act, &st.stashed);
    if (V == 1) /* the same bytes, in the order they were always summed */
      kept = act[0] * st.stashed;
    /* ZeRO-2 keeps the bucket being reduced whole: the stage's largest */
    double biggest = dts_schedule_largest_bucket (s->buckets, st.first_bucket, st.n_buckets, NULL);
    /* expert parallelism: an expert's weights and gradients are whole on
     * the GPUs that hold it, its optimizer states too over the whole group,
     * and under the distributed optimizer sharded over the D / EP replicas
     * that hold it (expert data parallelism) */
    double experts = 0, expert_weights = 0;
    for (int v = 0; v < V && c->EP > 1; v++)
      experts += expert_params (c->wt, first[v * S + i], last[v * S + i]);
    dts_schedule_model_state (st.params - experts, o->precision,
                              dts_workload_optimizer_state_bytes_per_param (w),
                              o->replicas.zero > 0 ? dp[i] : 1, o->replicas.zero == 2 || reshard ? dp[i] : 1,
                              biggest, &st.memory);
    if (experts > 0) {
      DtsMemoryEstimate whole;
      dts_schedule_model_state (experts, o->precision,
                                dts_workload_optimizer_state_bytes_per_param (w),
                                o->replicas.zero > 0 ? dp[i] / c->EP : 1, 1, 0, &whole);
      expert_weights = whole.weights_bytes;
      st.memory.weights_bytes += whole.weights_bytes;
      st.memory.gradients_bytes += whole.gradients_bytes;
      st.memory.optimizer_bytes += whole.optimizer_bytes;
    }
    if (reshard) {
      /* FSDP without pipelining: the weights sharded too, two buckets'
       * gathered at a time (the one computed and the one prefetched), as
       * dp's --zero 3 */
      double bucket_params;
      dts_schedule_largest_bucket (s->buckets, st.first_bucket, st.n_buckets, &bucket_params);
      st.memory.weights_bytes
          = dts_schedule_sharded_weights (st.params - experts, o->precision, dp[i],
                                          bucket_params, o->overlap)
            + expert_weights;
    }
    st.memory.activations_bytes = V == 1 ? act[0] * widest * elem * st.stashed
                                         : kept * widest * elem;
    st.memory.total_bytes = st.memory.weights_bytes + st.memory.gradients_bytes
                            + st.memory.optimizer_bytes + st.memory.activations_bytes;
    g_array_append_val (s->stages, st);
  }
  return TRUE;
}

/* The communicator of bucket B of stage I among tensor rank T's replicas:
 * the stage's, or for the experts' gradients under expert data
 * parallelism, that of the replicas d = E mod EP. */
static int
bucket_comm (const Ctx *c, int i, int b, int e, int t)
{
  if (g_array_index (c->bucket_experts, gboolean, b))
    return comm_of (c, DTS_MESH_EXPERT_DATA, i, e, t);
  return comm_of (c, DTS_MESH_DATA, i, 0, t);
}

/* The other tensor ranks' bucket plans. */
static gboolean
add_tensor_rank_plans (Ctx *c, GError **error)
{
  DtsSchedule *s = c->s;
  int S = c->S;
  int T = c->T;
  DtsCollOp grad_op = c->grad_op;
  int n_buckets = s->buckets->len;
  int *bucket_plan = c->bucket_plan = g_new (int, MAX (n_buckets * T, 1));
  for (int i = 0; i < S; i++) {
    const DtsStage *st = &g_array_index (s->stages, DtsStage, i);
    for (int b = st->first_bucket; b < st->first_bucket + st->n_buckets; b++) {
      bucket_plan[b * T] = b;
      for (int t = 1; t < T; t++) {
        const DtsBucket *bucket = &g_array_index (s->buckets, DtsBucket, b);
        if (!add_bucket_plan (c, bucket_comm (c, i, b, 0, t), grad_op, bucket->bytes, error))
          return FALSE;
        bucket_plan[b * T + t] = s->plans->len - 1;
      }
    }
  }
  return TRUE;
}

/* The distributed optimizer's parameter all-gathers. */
static gboolean
add_gather_plans (Ctx *c, GError **error)
{
  const DtsRunOptions *o = c->o;
  DtsSchedule *s = c->s;
  const DtsPlatform *platform = c->platform;
  int S = c->S;
  int T = c->T;
  const char *algorithm = c->algorithm;
  gboolean reshard = c->reshard;
  int n_buckets = c->s->buckets->len;
  GArray *plan_comm = c->plan_comm;
  DtsCollOp grad_op = c->grad_op;
  /* The distributed optimizer's parameter all-gathers, in the compute
   * precision, after every reduce-scatter. */
  if (o->replicas.zero > 0 && n_buckets > 0) {
    c->gather_plan = g_new (int, n_buckets * T);
    s->event_initial = g_new0 (int, (gsize) s->n_ranks * s->n_events);
    if (reshard) {
      c->gather_bwd_plan = g_new (int, n_buckets * T);
    }
  }
  for (int i = 0; i < S && c->gather_plan != NULL; i++) {
    const DtsStage *st = &g_array_index (s->stages, DtsStage, i);
    for (int b = st->first_bucket; b < st->first_bucket + st->n_buckets; b++)
      for (int t = 0; t < T; t++) {
        const DtsBucket *bucket = &g_array_index (s->buckets, DtsBucket, b);
        int cm = bucket_comm (c, i, b, 0, t);
        const DtsCommunicator *tcm = g_ptr_array_index (s->comms, cm);
        g_autofree int *nodes = member_nodes (platform, tcm);
        DtsCollParams cp = { .n_ranks = tcm->n_ranks, .bytes = bucket->bytes,
                             .channels = o->channels,
                             .chunk_bytes = o->chunk_bytes, .gpu_node = nodes,
                             .tuner = o->coll_tuner, .gpu_rank = tcm->ranks, .op = grad_op };
        DtsCollPlan *plan = dts_schedule_gather_plan_new (algorithm, &cp, bucket, o->precision,
                                                          error);
        if (plan == NULL)
          return FALSE;
        g_ptr_array_add (s->plans, plan);
        g_array_append_val (plan_comm, cm);
        c->gather_plan[b * T + t] = s->plans->len - 1;
        if (c->gather_bwd_plan == NULL)
          continue;
        plan = dts_schedule_gather_plan_new (algorithm, &cp, bucket, o->precision, error);
        if (plan == NULL)
          return FALSE;
        g_ptr_array_add (s->plans, plan);
        g_array_append_val (plan_comm, cm);
        c->gather_bwd_plan[b * T + t] = s->plans->len - 1;
      }
    /* The first iteration's parameters are in place. */
    for (int k = 0; k < st->n_ranks && o->replicas.param_gather_overlap; k++)
      s->event_initial[(gsize) st->ranks[k] * s->n_events + EV_PARAMS_GATHERED] = st->n_buckets;
  }
  return TRUE;
}

/* Expert data parallelism: the plans of the experts' buckets among the
 * replicas d = e mod EP for e > 0 (the programs name e = 0's), reduction
 * and parameter gather, and the plan maps that give them to those
 * replicas' ranks (each rank's map, from its compute program, extended). */
static gboolean
add_expert_group_plans (Ctx *c, GError **error)
{
  DtsSchedule *s = c->s;
  int T = c->T, EP = c->EP;
  if (c->xw == NULL)
    return TRUE;
  /* (the rank's map, stage x EP + e) -> the extended one */
  g_autoptr (GHashTable) extended = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                           NULL);
  ensure_plan_maps (s);
  for (int i = 0; i < c->S; i++) {
    const DtsStage *st = &g_array_index (s->stages, DtsStage, i);
    for (int e = 1; e < EP && c->dp[i] > EP; e++) {
      g_autoptr (GArray) from = g_array_new (FALSE, FALSE, sizeof (int));
      g_autoptr (GArray) to = g_array_new (FALSE, FALSE, sizeof (int));
      for (int b = st->first_bucket; b < st->first_bucket + st->n_buckets; b++)
        for (int t = 0; t < T && g_array_index (c->bucket_experts, gboolean, b); t++) {
          const DtsBucket *bucket = &g_array_index (s->buckets, DtsBucket, b);
          int cm = bucket_comm (c, i, b, e, t);
          if (!add_bucket_plan (c, cm, c->grad_op, bucket->bytes, error))
            return FALSE;
          g_array_append_val (from, c->bucket_plan[b * T + t]);
          g_array_append_val (to, (int) { s->plans->len - 1 });
          if (c->gather_plan == NULL)
            continue;
          if (!add_bucket_plan (c, cm, DTS_COLL_OP_ALLGATHER,
                                bucket->params * dts_precision_elem_bytes (c->o->precision),
                                error))
            return FALSE;
          g_array_append_val (from, c->gather_plan[b * T + t]);
          g_array_append_val (to, (int) { s->plans->len - 1 });
        }
      for (int d = e; d < c->dp[i]; d += EP)
        for (int t = 0; t < T; t++) {
          int r = rank_of (c, i, d, t);
          gint64 key = (gint64) (((guint64) (guint32) s->rank_plan_map[r] << 32)
                                 | (guint32) (i * EP + e));
          gpointer found;
          if (g_hash_table_lookup_extended (extended, &key, NULL, &found)) {
            s->rank_plan_map[r] = GPOINTER_TO_INT (found);
            continue;
          }
          GArray *map = g_array_new (FALSE, FALSE, sizeof (int));
          if (s->rank_plan_map[r] >= 0) {
            const GArray *old = g_ptr_array_index (s->plan_maps, s->rank_plan_map[r]);
            g_array_append_vals (map, old->data, old->len);
          }
          for (guint k = 0; k < from->len; k++) {
            int none = -1, f = g_array_index (from, int, k);
            while (map->len <= (guint) f)
              g_array_append_val (map, none);
            g_array_index (map, int, f) = g_array_index (to, int, k);
          }
          g_ptr_array_add (s->plan_maps, map);
          s->rank_plan_map[r] = (int) s->plan_maps->len - 1;
          g_hash_table_insert (extended, g_memdup2 (&key, sizeof key),
                               GINT_TO_POINTER (s->rank_plan_map[r]));
        }
    }
  }
  /* drop the maps no rank runs any more (those extended for all of theirs) */
  g_autofree int *renumber = g_new (int, s->plan_maps->len);
  for (guint m = 0; m < s->plan_maps->len; m++)
    renumber[m] = -1;
  for (int r = 0; r < s->n_ranks; r++)
    if (s->rank_plan_map[r] >= 0)
      renumber[s->rank_plan_map[r]] = 0;
  GPtrArray *kept = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint m = 0; m < s->plan_maps->len; m++)
    if (renumber[m] == 0) {
      renumber[m] = kept->len;
      g_ptr_array_add (kept, g_array_ref (g_ptr_array_index (s->plan_maps, m)));
    }
  for (int r = 0; r < s->n_ranks; r++)
    if (s->rank_plan_map[r] >= 0)
      s->rank_plan_map[r] = renumber[s->rank_plan_map[r]];
  g_ptr_array_unref (s->plan_maps);
  s->plan_maps = kept;
  return TRUE;
}

/* Memory: every replica must fit its GPU. */
static gboolean
check_stage_memory (Ctx *c, GError **error)
{
  const DtsWorkload *w = c->w;
  const DtsRunOptions *o = c->o;
  DtsSchedule *s = c->s;
  const DtsPlatform *platform = c->platform;
  int S = c->S;
  for (int i = 0; i < S; i++) {
    const DtsStage *st = &g_array_index (s->stages, DtsStage, i);
    if (st->memory.total_bytes > s->memory.total_bytes)
      s->memory = st->memory;
    g_autofree char *what = g_strdup_printf (
        "stage %d (layers %s-%s)", i, dts_workload_layer (w, st->first_layer)->name,
        dts_workload_layer (w, st->last_layer)->name);
    g_autofree char *activations = g_strdup_printf ("activations of %d micro-batch%s",
                                                    st->stashed, st->stashed == 1 ? "" : "es");
    g_autofree char *hints = g_strdup_printf (
        "more stages, fewer or smaller micro-batches,%s%s%s",
        o->replicas.pipeline_schedule == DTS_PIPELINE_GPIPE ? " --pipeline-schedule 1f1b," : "",
        st->n_replicas > 1 && o->replicas.zero == 0 ? " --zero 1," : "",
        o->recompute != DTS_RECOMPUTE_FULL && dts_schedule_check_recompute (w, DTS_RECOMPUTE_FULL,
                                                                            NULL)
            ? " --recompute full,"
            : "");
    if (!dts_schedule_check_memory (&st->memory, platform, st->ranks, st->n_ranks, what,
                                    activations, hints, o, error))
      return FALSE;
  }
  return TRUE;
}

/* The compute programs of every rank. */
static gboolean
add_compute_programs (Ctx *c, GError **error)
{
  DtsSchedule *s = c->s;
  const DtsPlatform *platform = c->platform;
  int S = c->S;
  int T = c->T;
  int C = c->C;
  int M = c->M;
  const int *dp = c->dp;
  /* Compute programs: one per replica, shared by its tensor-parallel group
   * (under context parallelism one per GPU: each tensor rank has a ring of
   * its own); without tensor parallelism also by replicas of a stage with
   * the same GPU and the same shares (and ring). A program that is one
   * built before for the stage but for its collectives' communicators (its
   * tensor-parallel group's, its ring's) gives way to that one and a plan
   * map (match_program): a stage's replicas then share one program
   * whatever the data-parallel degree. */
  g_autoptr (GPtrArray) specs = g_ptr_array_new ();
  g_autoptr (GArray) built = g_array_new (FALSE, FALSE, sizeof (Built)); /* this stage's */
  for (int i = 0; i < S; i++) {
    g_array_set_size (built, 0);
    for (int d = 0; d < dp[i]; d++) {
      int r = rank_of (c, i, d, 0);
      const DtsGpuSpec *spec = &dts_platform_gpu (platform, r)->spec;
      guint k = dts_schedule_spec_index (specs, spec);
      if (k == specs->len)
        g_ptr_array_add (specs, (gpointer) spec);
      int found = -1;
      int map_of = -1; /* the group's plan map */
      for (int e = 0; e < d && found < 0 && T == 1; e++) {
        int re = rank_of (c, i, e, 0);
        if (!dts_schedule_same_gpu (spec, &dts_platform_gpu (platform, re)->spec)
            || (C > 1
                && dts_mesh_group_of (c->mesh, DTS_MESH_CONTEXT, i, e, 0)
                       != dts_mesh_group_of (c->mesh, DTS_MESH_CONTEXT, i, d, 0))
            || (stage_has_groups (c, DTS_MESH_EXPERT, i)
                && dts_mesh_group_of (c->mesh, DTS_MESH_EXPERT, i, e, 0)
                       != dts_mesh_group_of (c->mesh, DTS_MESH_EXPERT, i, d, 0)))
          continue;
        gboolean same = TRUE;
        for (int m = 0; m < M && same; m++) {
          gint64 a0, a1, b0, b1;
          share (c, i, d, m, &a0, &a1);
          share (c, i, e, m, &b0, &b1);
          same = a1 - a0 == b1 - b0;
        }
        if (same) {
          found = s->rank_program[re];
          map_of = s->rank_plan_map != NULL ? s->rank_plan_map[re] : -1;
        }
      }
      /* tensor rank 0's program serves the group, or under context
       * parallelism each tensor rank has its own (its own ring) */
      for (int t = 0; t < T; t++) {
        if (t == 0 ? found < 0 : C > 1 || c->EP > 1) {
          DtsComputeTotals tot;
          GArray *tensor;
          GArray *prog = compute_program (c, i, d, t, (int) k, spec, &tot, &tensor, error);
          if (prog == NULL) {
            g_prefix_error (error, "GPU '%s' (rank %d): ",
                            dts_platform_gpu (platform, r)->host, r);
            return FALSE;
          }
          found = match_program (s, built, c->tensor_program, (int) k, prog, tensor, &map_of);
          if (found >= 0) {
            g_array_unref (prog);
            if (tensor != NULL)
              g_array_unref (tensor);
          } else {
            g_ptr_array_add (s->programs, prog);
            g_array_append_val (s->totals, tot);
            found = s->programs->len - 1;
            Built bt = { found, (int) k };
            g_array_append_val (built, bt);
            int none = -1;
            g_array_append_val (c->tensor_program, none);
            if (tensor != NULL) {
              g_ptr_array_add (s->programs, tensor);
              DtsComputeTotals idle = { 0 };
              g_array_append_val (s->totals, idle);
              g_array_index (c->tensor_program, int, found) = s->programs->len - 1;
              g_array_append_val (c->tensor_program, none);
            }
          }
        }
        s->rank_program[rank_of (c, i, d, t)] = found;
        if (map_of >= 0)
          s->rank_plan_map[rank_of (c, i, d, t)] = map_of;
      }
    }
  }
  return TRUE;
}

/* Streams, rank by rank: compute, gradients, then point-to-point. */
static void
add_streams (Ctx *c)
{
  const DtsRunOptions *o = c->o;
  DtsSchedule *s = c->s;
  int S = c->S;
  int V = c->V;
  int T = c->T;
  /* Streams, rank by rank: compute, gradients, then point-to-point. A
   * stage's gradient stream program is shared by the replicas of one tensor
   * rank. */
  g_autofree int *comm_program = g_new0 (int, S * T);
  GArray *tensor_program = c->tensor_program;
  for (int i = 0; i < S; i++)
    for (int t = 0; t < T; t++) {
      const DtsStage *st = &g_array_index (s->stages, DtsStage, i);
      comm_program[i * T + t] = -1;
      if (st->n_buckets == 0)
        continue;
      GArray *prog = g_array_new (FALSE, TRUE, sizeof (DtsOp));
      int end = st->first_bucket + st->n_buckets;
      /* --zero 3 on one stage, per micro-batch: its forward gathers (the
       * first micro-batch's came after the last step), then, once its
       * forward pass is done, the gathers before the backward, as dp's,
       * and the reduce-scatters. One stream: the next micro-batch's
       * gathers wait for this one's last reduce-scatter. */
      for (int m = 0; m < s->grad_reductions; m++) {
        if (m > 0)
          append_gathers (c, prog, i, t);
        if (c->gather_bwd_plan != NULL)
          wait (prog, EV_FWD_DONE, 1, DTS_WAIT_COLL);
        for (int b = st->first_bucket; b < end; b++) {
          if (c->gather_bwd_plan != NULL)
            dts_schedule_add_backward_gathers (prog, c->gather_bwd_plan + t, T,
                                               st->first_bucket, end, 1, b, o->overlap,
                                               EV_GATHERED_BWD);
          wait (prog, EV_BUCKET_READY, 1, DTS_WAIT_COLL);
          add_op (prog, (DtsOp){ .type = DTS_OP_COLL, .layer = -1, .bucket = b,
                                 .coll = c->bucket_plan[b * T + t], .part = -1 });
          record (prog, EV_BUCKET_DONE, -1);
        }
      }
      if (c->gather_plan != NULL) {
        wait (prog, EV_STEP_DONE, 1, DTS_WAIT_COLL);
        append_gathers (c, prog, i, t);
      }
      g_ptr_array_add (s->programs, prog);
      DtsComputeTotals none = { 0 };
      g_array_append_val (s->totals, none);
      comm_program[i * T + t] = s->programs->len - 1;
    }
  for (int r = 0; r < s->n_ranks; r++) {
    int i = s->rank_stage[r];
    const DtsStage *st = &g_array_index (s->stages, DtsStage, i);
    int k = 0;
    while (st->ranks[k] != r)
      k++;
    int d = k / T, t = k % T;
    DtsStream cs = { r, DTS_STREAM_COMPUTE, 0, s->rank_program[r] };
    g_array_append_val (s->streams, cs);
    if ((guint) s->rank_program[r] < tensor_program->len
        && g_array_index (tensor_program, int, s->rank_program[r]) >= 0) {
      DtsStream ts = { r, DTS_STREAM_COMM, 1,
                       g_array_index (tensor_program, int, s->rank_program[r]) };
      g_array_append_val (s->streams, ts);
    }
    gboolean shared = o->replicas.p2p_shared && S > 1;
    if (shared)
      add_stream (s, r, DTS_STREAM_COMM, 0,
                  shared_program (c, i, d, t,
                                  g_ptr_array_index (s->programs, s->rank_program[r])));
    else if (comm_program[i * T + t] >= 0) {
      DtsStream ms = { r, DTS_STREAM_COMM, 0, comm_program[i * T + t] };
      g_array_append_val (s->streams, ms);
    }
    static const int kinds[] = { SEND_FWD, RECV_FWD, SEND_BWD, RECV_BWD };
    for (guint q = 0; q < G_N_ELEMENTS (kinds); q++) {
      gboolean towards_next = kinds[q] == SEND_FWD || kinds[q] == RECV_BWD;
      gboolean sends = kinds[q] == SEND_FWD || kinds[q] == SEND_BWD;
      /* with chunks, the last stage sends on to the first */
      if ((V == 1 && ((towards_next && i == S - 1) || (!towards_next && i == 0)))
          || (shared && sends))
        continue;
      add_stream (s, r, DTS_STREAM_P2P, kinds[q], p2p_program (c, i, d, t, kinds[q]));
    }
  }
}

/* The pipeline, hybrid and tensor-parallel plan: the options checked, then
 * in phases over one Ctx (which owns what they make but the schedule):
 * the replicas of each stage, the micro-batches, the stages' layers and
 * the workload one GPU runs, the stages with their communicators, buckets,
 * gradient plans and memory, the other tensor ranks' plans, the parameter
 * gathers, the memory check, the compute programs and the streams. */
static DtsSchedule *
build (const DtsWorkload *w, const DtsPlatform *platform, DtsCost *cost, const DtsRunOptions *o,
       const char *strategy, GError **error)
{
  int n_layers = w->layers->len;
  int S = o->replicas.stages;
  int V = MAX (o->replicas.virtual_stages, 1);
  if (V > 1 && !check_interleaving (w, o, S, V, error))
    return NULL;
  if (S < 1 || S > n_layers - 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "%d pipeline stages: '%s' has %d layers after its input (at least one per "
                 "stage)",
                 S, w->name, n_layers - 1);
    return NULL;
  }
  if (o->n_gpus < 1 || o->n_gpus > (int) platform->gpus->len) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "%d GPUs needed; platform '%s' has %u",
                 o->n_gpus, platform->path, platform->gpus->len);
    return NULL;
  }
  if (o->batch_size < 1 || !(o->bucket_bytes > 0) || !(o->chunk_bytes > 0) || o->channels < 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "batch size, bucket size, chunk size and channels must be positive");
    return NULL;
  }
  const char *algorithm = dts_coll_algorithm_or_default (o->collective);
  if (strcmp (algorithm, "ps") == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--collective ps: not available with --strategy %s (parameter servers serve "
                 "the whole model)",
                 strategy);
    return NULL;
  }
  int T = MAX (o->replicas.tensor_parallel, 1);
  int C = MAX (o->replicas.context_parallel, 1);
  if (C > 1 && !check_context (w, o, C, error))
    return NULL;
  g_autoptr (DtsSchedule) s
    = dts_schedule_new_empty (strategy, o->n_gpus, o->batch_size, o->precision);
  s->rank_stage = g_new0 (int, s->n_ranks);
  s->stages = g_array_new (FALSE, TRUE, sizeof (DtsStage));
  g_array_set_clear_func (s->stages, stage_clear);
  /* the distributed optimizer's events only where they are used, so that
   * plans without it read as before */
  gboolean reshard = o->replicas.zero >= 3 && S == 1;
  s->n_events = reshard || o->replicas.tp_overlap != DTS_TP_OVERLAP_NONE ? N_EVENTS
                 : o->replicas.zero > 0                                  ? EV_FWD_DONE
                                                                : EV_STEP_DONE;

  g_auto (Ctx) c = { .w = w, .wt = w, .platform = platform, .cost = cost, .o = o, .s = s,
                     .S = S, .V = V, .T = T, .C = C, .EP = o->replicas.expert_parallel,
                     .dmax = 1, .algorithm = algorithm,
                     .reshard = reshard,
                     /* the distributed optimizer reduce-scatters the gradients */
                     .grad_op = o->replicas.zero > 0 ? DTS_COLL_OP_REDUCE_SCATTER
                                            : DTS_COLL_OP_ALLREDUCE };
  c.first = g_new (int, S * V);
  c.last = g_new (int, S * V);
  c.vsend = g_new0 (double, S * V);
  c.bucket_of = g_new (int, n_layers);
  c.mode = g_new0 (TpMode, n_layers);
  c.times = g_ptr_array_new_with_free_func (g_free);
  c.times_key = g_array_new (FALSE, FALSE, sizeof (TimesKey));
  c.tp_plans = g_array_new (FALSE, FALSE, sizeof (TpPlan));
  c.plan_comm = g_array_new (FALSE, FALSE, sizeof (int));
  c.tensor_program = g_array_new (FALSE, FALSE, sizeof (int));
  c.bucket_experts = g_array_new (FALSE, FALSE, sizeof (gboolean));
  if (!set_replicas (&c, error) || !check_experts (&c, error) || !set_mesh (&c, error)
      || !set_routing (&c, error)
      || !set_micro_batches (&c, error)
      || !cut_stages (&c, error)
      || !add_stages (&c, error) || !add_tensor_rank_plans (&c, error)
      || !add_gather_plans (&c, error) || !check_stage_memory (&c, error)
      || !add_compute_programs (&c, error) || !add_expert_group_plans (&c, error))
    return NULL;
  s->plan_comm = g_new0 (int, MAX (c.plan_comm->len, 1));
  if (c.plan_comm->len > 0) /* a pipeline without replicas has no collectives */
    memcpy (s->plan_comm, c.plan_comm->data, sizeof (int) * c.plan_comm->len);
  add_streams (&c);
  return g_steal_pointer (&s);
}

/* --zero 3 over pipeline stages runs as FSDP does under pipeline
 * parallelism (torchtitan; PyTorch's pipelining schedules): a stage's
 * parameters are gathered before the first micro-batch's forward and kept
 * until after the last one's backward (reshard_after_forward off), the
 * gradients accumulated whole over the micro-batches and reduce-scattered
 * after the last backward. Per iteration that is --zero 1's collectives
 * with --param-gather overlap, and its memory at the peak. On one stage
 * (FSDP x TP, no pipelining) FSDP reshards after the forward: build()
 * gathers again before the backward, as dp's --zero 3 (reshard). */
static DtsSchedule *
build_staged (const DtsWorkload *w, const DtsPlatform *platform, DtsCost *cost,
              const DtsRunOptions *o, const char *strategy, GError **error)
{
  if (o->replicas.zero < 3)
    return build (w, platform, cost, o, strategy, error);
  DtsRunOptions fsdp = *o;
  fsdp.replicas.param_gather_overlap = TRUE;
  return build (w, platform, cost, &fsdp, strategy, error);
}

DtsSchedule *
dts_schedule_pipeline_new (const DtsWorkload *workload, const DtsPlatform *platform,
                           DtsCost *cost, const DtsRunOptions *opts, GError **error)
{
  return build_staged (workload, platform, cost, opts, "pipeline", error);
}

DtsSchedule *
dts_schedule_hybrid_new (const DtsWorkload *workload, const DtsPlatform *platform, DtsCost *cost,
                         const DtsRunOptions *opts, GError **error)
{
  return build_staged (workload, platform, cost, opts, "hybrid", error);
}
