/* collective.h - collective algorithms as plans: pure data, no simulator.
 *
 * A plan says, for every participant, which point-to-point transfers it makes
 * at every step of the algorithm, with which peer, carrying which segment of
 * the buffer, and whether what it receives is reduced into its own copy or
 * replaces it. src/sim/ interprets a plan with SimGrid communications; the
 * unit tests interpret it with a naive reference (tests/unit/test-collective.c)
 * and check that every rank ends with the full reduction.
 *
 * Algorithms are rows of a table (collective.c); one file per algorithm.
 *
 * Ring all-reduce (ring.c), as NCCL does it: N participants in a ring, the
 * buffer of S bytes cut into C channels (parallel rings over the same order)
 * and, per channel, into N segments of S/(N C) bytes. Reduce-scatter takes
 * N-1 steps (step s: position p sends segment (p - s) mod N to p + 1 and
 * reduces what it receives from p - 1 into its segment (p - s - 1) mod N),
 * after which position p holds the full sum of segment (p + 1) mod N; the
 * all-gather takes N-1 more steps that forward the finished segments. Each
 * step of each channel moves its segment in rounds of at most chunk_bytes
 * (NCCL's chunk: 4 MiB buffer / 8 steps x 4 steps per chunk = 2 MiB by
 * default), one SimGrid communication per round and channel at the `step`
 * granularity. Sizes are doubles (a fluid model); the simulator rounds each
 * transfer to whole bytes.
 *
 * Closed forms (checked by the tests): 2(N-1) steps; every rank sends and
 * receives 2(N-1)/N x S bytes; on a contention-free ring of bandwidth B and
 * per-transfer latency L the time is 2(N-1) (R L + S/(N B)) with
 * R = ceil(S / (N C chunk_bytes)) rounds per step.
 *
 * Parameter servers (ps.c), as TensorFlow's synchronous parameter-server
 * training: P servers, each running on the host of one participant, hold
 * one shard of S/P bytes of the buffer each. Push: every rank sends shard k
 * to server k, which sums the N contributions; pull: every rank fetches the
 * summed shard k back from server k. A plan has 2P steps (see
 * dts_coll_plan_ps_step). Closed form on a contention-free star of
 * bandwidth B and route latency L with one server: 2 ((N-1) S / B + L) plus
 * the server's sum ((N+1) S bytes of device memory traffic).
 *
 * Parameter servers with per-node aggregation (node_of given), as
 * TensorFlow's distributed_replicated variable update: the ranks of a node
 * first all-reduce the bucket among themselves with a ring plan restricted
 * to the node (plan->local, NCCL-style, so the node's first rank, its
 * leader, holds the node's sum); the leaders alone then push and pull
 * through the servers as above (N = number of nodes); finally each leader
 * sends the pulled sum (S bytes) to every other rank of its node. A node of
 * one rank skips both local phases.
 *
 * Direct (one-shot) all-reduce (direct.c): every rank sends each other rank
 * the 1/N shard that rank owns and reduces the N - 1 shards it receives into
 * its own (step 0, a reduce-scatter), then sends its reduced shard to every
 * other rank (step 1, an all-gather). Closed form on a contention-free
 * full mesh of bandwidth B per link and route latency L, with the transfers
 * of a step sharing the rank's own links: 2 ((N-1) S / (N B') + R L), where
 * B' is the bandwidth one rank's N - 1 concurrent flows share and R the
 * chunk rounds per step.
 *
 * Recursive halving-doubling (rhd.c), recursive doubling (rd.c), with
 * MPICH's fold for N not a power of two (fold.c), NCCL's double binary
 * tree (tree.c) and the hierarchical all-reduce over nodes and rails
 * (hier.c): their models and closed forms are at the top of their files
 * and in doc/SIMULATION.md. `auto` (tune.c) is not a row: it builds the
 * candidates' plans and returns the one NCCL's tuning model predicts
 * fastest.
 *
 * Other operations (DtsCollOp, ops.c): all-gather and reduce-scatter by
 * the ring's halves (ring-halves.c), recursive doubling and halving
 * (rhd-ops.c) and one-shot (direct-ops.c); broadcast and reduce from a root
 * by NCCL's pipelined ring chain (chain.c) and a binomial tree
 * (binomial.c); all-to-all one-shot (direct-ops.c). Their rows are a table
 * of their own (dts_coll_op_algorithms) and go through the same generic
 * interface; the files have the models and closed forms.
 *
 * The generic interface (what src/sim/ and the tests interpret): a plan has
 * n_parts participants: its n_ranks members (participant i is member i of
 * the communicator the plan runs over) and, for parameter servers, one
 * participant per server (n_ranks + k), run on the host of a member
 * (dts_coll_plan_part_host). Each participant runs n_steps steps in order
 * (dts_coll_plan_n_steps: the same for every member of ring and direct, not
 * for ps with aggregation); a step (dts_coll_plan_step_ops) is a set of
 * transfers posted together and waited for together: sends and receives of
 * `bytes` per channel with a peer participant, a receive possibly reduced
 * into the participant's copy by a reduction kernel that runs alongside,
 * all cut into n_rounds chunk rounds; a step may instead be a reduction
 * alone (reduce_bytes, after the transfers of the previous step). A
 * transfer between two participants on the same host is a hand-off with
 * no network (a server's own shard). Receives name their peer, but a
 * participant receives on one mailbox per tag: an algorithm gives
 * different tags to transfers that could otherwise be matched with each
 * other. Steps are grouped into phases; in a lock-step phase every step of
 * a participant has the same peers and bytes, which is what lets `flow`
 * granularity replace the phase by one flow per transfer (doc/SIMULATION.md).
 * Nothing is stored per transfer: steps are computed on demand, so a plan
 * over 16k ranks is a few arrays. */
#ifndef DTS_COLLECTIVE_COLLECTIVE_H
#define DTS_COLLECTIVE_COLLECTIVE_H

#include <glib.h>

#include "core/option.h"

G_BEGIN_DECLS

/* NCCL 2.x Simple protocol: DEFAULT_BUFFSIZE 4 MiB / NCCL_STEPS 8 x
 * ALLREDUCE_CHUNKSTEPS 4. */
#define DTS_COLL_DEFAULT_CHUNK_BYTES (2.0 * 1024 * 1024)
#define DTS_COLL_DEFAULT_CHANNELS 2
/* The collective algorithm of a run or an all-reduce that names none:
 * NCCL's own choice per collective and size (tune.c). */
#define DTS_COLL_DEFAULT_ALGORITHM "nccl"
#define DTS_COLL_MAX_CHANNELS 64
/* The most step transfers the tuners weigh for one candidate plan whose
 * steps are not slots (the tree's): tune.c skips a larger one. */
#define DTS_COLL_TUNE_MAX_WEIGHED_TRANSFERS 2e8

typedef struct _DtsCollTuner DtsCollTuner;

/* ALGORITHM, or the default where it is NULL (not given). */
static inline const char *
dts_coll_algorithm_or_default (const char *algorithm)
{
  return algorithm != NULL ? algorithm : DTS_COLL_DEFAULT_ALGORITHM;
}

/* The collective operation a plan performs (ops.c has the table: ids,
 * nccl-tests' bus-bandwidth factors and size conventions). S, the plan's
 * bytes, is nccl-tests' "size": the larger of a rank's two buffers, so
 * all-gather's output (N blocks of S/N, block i rank i's contribution),
 * reduce-scatter's input (rank i ends with the sum of block i), the
 * buffer of all-reduce, broadcast and reduce, and all-to-all's send
 * buffer (block j, S/N bytes, goes to rank j, which stores it as block i
 * of its receive buffer). */
typedef enum {
  DTS_COLL_OP_ALLREDUCE,
  DTS_COLL_OP_ALLGATHER,
  DTS_COLL_OP_REDUCE_SCATTER,
  DTS_COLL_OP_BROADCAST,
  DTS_COLL_OP_REDUCE,
  DTS_COLL_OP_ALLTOALL,
  DTS_COLL_N_OPS
} DtsCollOp;

typedef struct {
  DtsCollOp op;
  const char *id;           /* "all-gather" */
  const char *description;  /* what every rank ends with, and what S is */
  const char *bus_factor_text; /* "(N-1)/N" */
  gboolean rooted;          /* takes --root (broadcast, reduce) */
  const char *default_algorithm; /* table id run when none is given */
} DtsCollOpInfo;

/* The table of ops, in DtsCollOp order, terminated by a row with id NULL. */
const DtsCollOpInfo *dts_coll_ops (void);
/* The op called ID, or NULL; also as nccl-tests and MPI spell it
 * (all_gather, allgather, AllGather: '-' and '_' and case ignored). */
const DtsCollOpInfo *dts_coll_op_lookup (const char *id);
const char *dts_coll_op_to_string (DtsCollOp op);
/* nccl-tests' bus bandwidth over algorithm bandwidth for OP over N ranks:
 * all-reduce 2(N-1)/N; all-gather, reduce-scatter and all-to-all (N-1)/N;
 * broadcast and reduce 1. */
double dts_coll_op_bus_factor (DtsCollOp op, int n);

typedef struct {
  int n_ranks;          /* participants */
  const int *ring;      /* ring order: position -> rank (0..n_ranks-1 when NULL) */
  double bytes;         /* buffer size S */
  int channels;         /* C >= 1 */
  double chunk_bytes;   /* > 0 */
  int n_servers;        /* ps: P parameter servers, 1..n_ranks (unused by the ring) */
  const int *server_rank; /* ps: server -> rank whose host runs it (n_servers entries) */
  const int *node_of;   /* ps: rank -> node index (0..), to aggregate per node first; NULL:
                           every rank talks to the servers */
  const int *gpu_node;  /* rank -> index of the node its GPU is on (topology-aware algorithms:
                           hier); NULL: callers that do not know the platform */
  const DtsCollTuner *tuner; /* "auto": what the platform says of a candidate plan (tune.c);
                                NULL for every other algorithm */
  const int *gpu_rank;  /* rank -> the platform's GPU rank of that member, for what reads the
                           platform's routes (the tuner, topo-ring): a communicator of a
                           pipeline or hybrid run; NULL: rank r is GPU r */
  DtsCollOp op;         /* the operation (zero: all-reduce) */
  int root;             /* broadcast, reduce: the rank that sends or receives it all */
} DtsCollParams;

typedef struct _DtsCollAlgorithm DtsCollAlgorithm;

/* A phase of a plan: steps first_step .. first_step + n_steps - 1 of every
 * member. */
typedef struct {
  int first_step;
  int n_steps;
  gboolean lockstep;    /* every member in step with its peers; same peers and bytes at each
                           step (flow granularity aggregates the phase) */
  const char *name;     /* "reduce-scatter", ... (static) */
} DtsCollPhase;

/* 2 log2 N + 2 phases of recursive halving-doubling for N up to 2^23. */
#define DTS_COLL_MAX_PHASES 48

typedef struct {
  const DtsCollAlgorithm *alg; /* the table row that made it */
  char *algorithm;      /* table id, e.g. "ring" (owned) */
  int n_ranks;
  int *ring;            /* position -> rank (owned, n_ranks entries) */
  int *position;        /* rank -> position (owned); hier, multi-rail: rank -> index within
                           its node */
  double bytes;
  int channels;
  double chunk_bytes;
  int n_steps;          /* 2(N-1); 0 for one rank */
  int n_reduce_steps;   /* steps 0 .. n_reduce_steps-1 reduce (N-1) */
  double seg_bytes;     /* one segment of one channel: S / (N C) */
  int n_rounds;         /* rounds per step and channel: ceil(seg_bytes / chunk_bytes), >= 1 */
  int n_servers;        /* ps: P servers; 0 for every other algorithm */
  int *server_rank;     /* ps: server -> rank whose host runs it (owned) */
  /* ps with per-node aggregation (NULL / 0 without): */
  int n_nodes;          /* nodes taking part */
  int *node_of;         /* rank -> node index (owned) */
  int *node_leader;     /* node -> its first rank, the one that talks to the servers (owned) */
  int *node_start;      /* node -> first index into node_ranks; n_nodes + 1 entries (owned) */
  int *node_ranks;      /* the ranks of node i at node_start[i] .. node_start[i+1]-1, in
                           rank order (owned) */
  GPtrArray *local;     /* node -> DtsCollPlan, ring over its ranks: position q of the local
                           ring is node_ranks[node_start[i] + q] (owned) */
  /* Generic view (every algorithm): */
  int n_parts;          /* participants: n_ranks members, then the servers */
  int sends_per_step;   /* ring and direct: segments a member sends per step and channel */
  int n_phases;
  DtsCollPhase phases[DTS_COLL_MAX_PHASES];
  guint64 peer_key;     /* equal for plans of one algorithm whose transfers join the same
                           pairs of participants (bucket plans of one communicator) */
  int n_tags;           /* mailbox tags the plan uses; 0 means DTS_COLL_N_TAGS */
  int n_levels;         /* rd, rhd: log2 of the largest power of two <= n_ranks; tree:
                           rounds (chunks) per tree and channel; hier: GPUs per node */
  const char *protocol; /* "auto": the protocol the tuning model picked ("LL", "LL128",
                           "Simple", static); NULL when the algorithm was given */
  double predicted_s;   /* "auto": the model's time for this algorithm and protocol */
  const char *chooser;  /* "auto" or "nccl" when one chose the plan (static), else NULL */
  const char *nccl_algo; /* "nccl": NCCL's name of the algorithm ("Ring", "Tree"), else NULL */
  /* What the protocol costs ("nccl"; 0 otherwise, none): every transfer
   * carries wire_factor times its bytes (LL's flags: 2; LL128: 128/120 and
   * NCCL's 0.92; Simple: 1, the tuning model's efficiencies), and every
   * call pays fixed_s (NCCL's base latency of the algorithm and protocol)
   * before its first transfer. dts_coll_plan_step_ops and the closed form
   * apply them. */
  double wire_factor;
  double fixed_s;
  int *aux;             /* per-algorithm table (owned): tree: parent, children, height and
                           depth of every rank in both trees; hier: pieces, steps apart */
  DtsCollOp op;         /* what the plan does (the row's op) */
  int root;             /* broadcast, reduce: the root rank; 0 for the other ops */
  gboolean a2a_working; /* all-to-all in one working buffer per rank (bruck.c): block i of rank
                           p's starts as block p + i of its send buffer and ends as what rank
                           p - i sent to p; offsets are in it, a receive's where its send's was */
} DtsCollPlan;

typedef enum {
  DTS_XFER_SEND,
  DTS_XFER_RECV,
} DtsXferKind;

/* Mailbox tags: a participant receives on one mailbox per tag; a plan
 * uses DTS_COLL_N_TAGS tags unless it says more (n_tags, at most
 * DTS_COLL_MAX_TAGS). */
#define DTS_COLL_N_TAGS 2
#define DTS_COLL_MAX_TAGS 64

/* One transfer of a step, as one participant sees it. */
typedef struct {
  DtsXferKind kind;
  int peer;             /* participant at the other end */
  double bytes;         /* per channel, the whole step (cut into the step's rounds) */
  int channels;         /* identical parallel transfers, >= 1 */
  gboolean reduce;      /* RECV: reduced into the local copy as it arrives */
  int tag;              /* 0 .. n_tags-1 (the receiver's mailbox) */
  double offset;        /* where the bytes start in each channel's slice of the buffer
                           (S / channels bytes), or -1 when the algorithm does not say; the
                           reference interpreter then tracks contributions per byte range */
  int channel;          /* the first channel the copies carry (channels channel ..
                           channel + channels - 1); 0 unless an algorithm gives each channel
                           its own peers (multi-rail) */
} DtsCollXfer;

/* One step of one participant (dts_coll_plan_step_ops). */
typedef struct {
  int phase;            /* index into plan->phases */
  int n_rounds;         /* >= 1: round r < n_rounds-1 carries chunk_bytes of every transfer */
  double chunk_bytes;
  double reduce_bytes;  /* a reduction over this many bytes alone (no transfers), else 0 */
  GArray *xfers;        /* DtsCollXfer, sends first (caller-owned; cleared and filled) */
} DtsCollStepOps;

/* Called for every pair of participants a plan sends between, in the
 * algorithm's order; WHY says what the transfer is for. Returns FALSE to
 * stop the enumeration. */
typedef gboolean (*DtsCollRouteFn) (int from_part, int to_part, const char *why, gpointer data);

/* What one participant does at one step: send segment send_seg of every
 * channel to rank send_to, receive segment recv_seg from rank recv_from and
 * reduce it into its own copy (reduce) or overwrite its copy with it. */
typedef struct {
  int send_to, recv_from;   /* ranks */
  int send_seg, recv_seg;   /* segment indices 0..N-1 */
  gboolean reduce;
} DtsCollStep;

struct _DtsCollAlgorithm {
  const char *id;
  const char *description;
  DtsCollPlan *(*plan_new) (const DtsCollParams *params, GError **error);
  /* The generic interface (see the top of this file). */
  int (*n_steps) (const DtsCollPlan *plan, int part);
  void (*step_ops) (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out);
  int (*part_host) (const DtsCollPlan *plan, int part);
  gboolean (*routes) (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data);
  /* Time of PLAN alone on the network, with SHARE_BPS the bottleneck
   * share of a route (its link's bandwidth over the plan's routes that
   * cross it) and LATENCY_S the largest route latency; NULL when the
   * algorithm has none. Ring and direct ignore the chunking. */
  double (*closed_form_s) (const DtsCollPlan *plan, double share_Bps, double latency_s);
  /* Options only this algorithm takes (core/option.h), or NULL. */
  const DtsOptionSpec *options;
  /* The closed form as dtsim allreduce prints it (NULL without one). */
  const char *closed_form_text;
  /* The slot (0, 1, ...) in which participant PART's step STEP runs, the
   * same for the steps of all participants that run at once; NULL when it
   * is STEP (dts_coll_plan_load_s). */
  int (*step_slot) (const DtsCollPlan *plan, int part, int step);
};

/* A row of an op other than all-reduce (ops.c). */
typedef struct {
  DtsCollOp op;
  DtsCollAlgorithm alg;
} DtsCollOpAlgorithm;

/* The table of all-reduce algorithms, terminated by a row with id NULL. */
const DtsCollAlgorithm *dts_coll_algorithms (void);

/* The rows of the other ops (ops.c): one per algorithm and op it does,
 * with the id of the all-reduce row of the same family ("ring", "direct");
 * terminated by a row with alg.id NULL. */
const DtsCollOpAlgorithm *dts_coll_op_algorithms (void);

/* The row of ALGORITHM for OP, or NULL when it does not do OP (or is
 * unknown). */
const DtsCollAlgorithm *dts_coll_algorithm_lookup (const char *algorithm, DtsCollOp op);

/* "ring, direct": the algorithms that do OP, in table order (owned). */
char *dts_coll_op_algorithm_ids (DtsCollOp op);

/* Build the plan of ALGORITHM ("ring") for params->op (all-reduce by
 * default). Invalid parameters (no ranks, a ring that is not a
 * permutation, negative bytes, channels outside 1..DTS_COLL_MAX_CHANNELS,
 * chunk <= 0, a root that is not a rank), unknown algorithms and
 * algorithms that do not do the op (the error lists those that do; "auto"
 * is all-reduce only) are DTS_ERROR_INVALID. */
DtsCollPlan *dts_coll_plan_new (const char *algorithm, const DtsCollParams *params,
                                GError **error);
void dts_coll_plan_free (DtsCollPlan *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsCollPlan, dts_coll_plan_free)

/* The transfer of the participant at ring position POS at STEP
 * (0 <= STEP < n_steps) of a ring plan. */
void dts_coll_plan_step (const DtsCollPlan *plan, int pos, int step, DtsCollStep *out);

/* What rank RANK does at STEP of a parameter-server plan (n_servers > 0).
 * Push steps 0..P-1: send segment (shard) send_seg to the server of that
 * index, which runs on rank send_to and reduces it (recv_from = -1).
 * Pull steps P..2P-1: receive segment recv_seg from its server on rank
 * recv_from, overwriting the local copy (send_to = -1). Ranks visit the
 * servers in a staggered order (rank r starts with server r mod P). When
 * send_to or recv_from is RANK itself the shard stays on the host. */
void dts_coll_plan_ps_step (const DtsCollPlan *plan, int rank, int step, DtsCollStep *out);

/* Whether RANK pushes to and pulls from the servers of a ps plan: every
 * rank without aggregation, the node leaders with it. */
gboolean dts_coll_plan_ps_talks (const DtsCollPlan *plan, int rank);

/* Ranks that talk to the servers of a ps plan (N of the closed forms). */
int dts_coll_plan_ps_n_talkers (const DtsCollPlan *plan);

/* Bytes of round ROUND (0 <= ROUND < n_rounds) of one channel at any step:
 * chunk_bytes except the last round, which carries the remainder. */
double dts_coll_plan_round_bytes (const DtsCollPlan *plan, int round);

/* Bytes one participant sends (and receives) in the whole collective:
 * ring, direct and ps only (from their step counts); for the other
 * algorithms sum what dts_coll_plan_step_ops sends. */
double dts_coll_plan_bytes_per_rank (const DtsCollPlan *plan);

/* Whether the all-reduce algorithm ID plans from the platform's routes
 * (params->tuner; topo-ring), so that its callers must give a tuner. */
gboolean dts_coll_algorithm_reads_platform (const char *id);

/* Transfers of the whole collective when every step of every member runs
 * as its own SimGrid transfers (step granularity), from the plan's counts:
 * steps x rounds x channels x members x sends per step. What run and
 * allreduce measure a step-by-step run's cost by before refusing it. */
double dts_coll_plan_step_transfers (const DtsCollPlan *plan);

/* The generic interface, for every algorithm: */

/* Steps participant PART (0 .. n_parts-1) runs. */
int dts_coll_plan_n_steps (const DtsCollPlan *plan, int part);

/* Fill OUT with step STEP (0 .. n_steps-1) of participant PART; OUT->xfers
 * must be a GArray of DtsCollXfer (emptied first). */
void dts_coll_plan_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out);

/* The member whose host runs participant PART (PART itself for members). */
int dts_coll_plan_part_host (const DtsCollPlan *plan, int part);

/* Enumerate the pairs of participants the plan sends between (see
 * DtsCollRouteFn); FALSE when FN stopped it. */
gboolean dts_coll_plan_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data);

/* Bytes of round ROUND of a transfer of BYTES cut into N_ROUNDS rounds of
 * CHUNK_BYTES (the last round carries the remainder). */
double dts_coll_round_bytes (double bytes, int n_rounds, double chunk_bytes, int round);

/* Closed forms: the ring's 2(N-1)/N x S/B + 2(N-1) x L; the direct
 * all-reduce's 2 (S/(N B) + L) (0 for one rank). */
double dts_coll_ring_closed_form_s (int n, double bytes, double share_Bps, double latency_s);
double dts_coll_direct_closed_form_s (int n, double bytes, double share_Bps, double latency_s);

/* Mailbox tags PLAN uses (n_tags or DTS_COLL_N_TAGS). */
int dts_coll_plan_n_tags (const DtsCollPlan *plan);

/* The closed form of PLAN's algorithm (0 when it has none); see
 * DtsCollAlgorithm.closed_form_s. */
double dts_coll_plan_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s);

/* Device-memory traffic of the reduction kernel per reduced byte: it reads
 * two operands and writes one. */
#define DTS_COLL_REDUCE_TRAFFIC_PER_BYTE 3.0

/* --collective auto (tune.c, whose header has the model and its
 * constants): NCCL's protocols, in NCCL's order. */
typedef enum {
  DTS_COLL_PROTO_LL,
  DTS_COLL_PROTO_LL128,
  DTS_COLL_PROTO_SIMPLE,
  DTS_COLL_N_PROTOS
} DtsCollProto;

/* "LL", "LL128", "Simple" */
const char *dts_coll_proto_to_string (DtsCollProto p);

/* --collective nccl: NCCL's algorithms (NCCL_ALGO's names). */
typedef enum {
  DTS_COLL_NCCL_RING,
  DTS_COLL_NCCL_TREE,
  DTS_COLL_N_NCCL_ALGOS
} DtsCollNcclAlgo;

/* "Ring", "Tree" */
const char *dts_coll_nccl_algo_to_string (DtsCollNcclAlgo a);

/* What --collective nccl may choose, as NCCL's environment limits it:
 * ALGOS and PROTOS are bit sets (1 << DtsCollNcclAlgo, 1 << DtsCollProto;
 * 0: all), MIN_CHANNELS and MAX_CHANNELS bound the channel counts tried
 * (0: NCCL's defaults, 2 and the most GPUs of the communicator on one
 * node, at least 2). */
typedef struct {
  guint algos;
  guint protos;
  int min_channels;
  int max_channels;
  gboolean by_channels; /* both set by --channels (for messages) */
} DtsCollNcclLimits;

/* Parse NCCL_ALGO-like TEXT ("ring,tree", case ignored) or NCCL_PROTO-like
 * TEXT ("LL,LL128,Simple") into a bit set; FALSE with a DTS_ERROR_USAGE
 * ERROR naming OPTION and what is known. */
gboolean dts_coll_nccl_parse_algos (const char *option, const char *text, guint *bits,
                                    GError **error);
gboolean dts_coll_nccl_parse_protos (const char *option, const char *text, guint *bits,
                                     GError **error);

/* Whether ID is a chooser rather than a table row: "auto" or "nccl". */
gboolean dts_coll_is_tuned (const char *id);

/* A link of a route, for dts_coll_plan_load_s. */
typedef struct {
  gconstpointer id;     /* the same for every route through the link */
  double bandwidth_Bps;
  double latency_s;
  gboolean shared;      /* its flows share the bandwidth (else FATPIPE: each gets it all) */
  int index;            /* 1 + a number of the link, dense among the links one links
                           function reports, or 0 (the id is looked up) */
} DtsCollLink;

/* Set *LINKS (lent, N_LINKS entries; none when both are on one host) to
 * the route from participant FROM to participant TO; FALSE with ERROR set
 * when there is none. */
typedef gboolean (*DtsCollLinksFn) (int from_part, int to_part, const DtsCollLink **links,
                                    int *n_links, gpointer data, GError **error);

/* Set *BANDWIDTH_S to the time PLAN's transfers need on the links LINKS
 * reports, without latency: per slot of steps that run at once (the
 * algorithm's step_slot), the largest load of one link over its bandwidth,
 * the load of a shared link being the bytes of all the slot's transfers
 * that cross it; summed over the slots. *LATENCY_S (may be NULL): the sum
 * over the slots of the largest latency of a route of the slot (load.c
 * has the model). FALSE when LINKS fails. */
gboolean dts_coll_plan_load_s (const DtsCollPlan *plan, DtsCollLinksFn links, gpointer data,
                               double *bandwidth_s, double *latency_s, GError **error);

/* The indices of the N items at BASE, STRIDE bytes apart, each starting
 * with an int slot in [0, N_SLOTS), in slot order and stably (a counting
 * sort: a tree over a node-local chain has tens of thousands of slots and
 * millions of transfers); *FIRST: slot -> its first position, N_SLOTS + 1
 * of them. Both owned by the caller. */
guint *dts_coll_order_by_slot (const void *base, gsize stride, guint n, int n_slots,
                               guint **first);

/* What the caller that knows the platform tells the tuning model. */
struct _DtsCollTuner {
  /* Set *BANDWIDTH_S to the time PLAN's transfers need on the platform's
   * links at their full bandwidth and *LATENCY_S to its routes' latency
   * (dts_coll_plan_load_s over its routes); FALSE with ERROR set when it
   * cannot. GPU_RANK: member -> the platform's GPU rank (the params'
   * gpu_rank; NULL: member r is GPU r). */
  gboolean (*measure) (const DtsCollPlan *plan, const int *gpu_rank, double *bandwidth_s,
                       double *latency_s, gpointer data, GError **error);
  /* The links of the route from GPU rank A to GPU rank B (as
   * DtsCollLinksFn): what topo-ring's search weighs. */
  DtsCollLinksFn rank_links;
  gpointer data;
  const char *arch;     /* the GPUs' architecture ("Ampere"), for the ring's latency plateau
                           and LL128 */
  gboolean nvlink;      /* GPUs of a node talk over NVLink (SXM GPUs), else PCIe */
  DtsCollNcclLimits nccl; /* --collective nccl: what NCCL_ALGO, NCCL_PROTO and the channel
                             limits allow (zero: NCCL's defaults) */
};

/* One candidate of the model (for tests and reports). */
typedef struct {
  const char *algorithm; /* table id (static) */
  int channels;
  DtsCollProto protocol;
  double latency_s;      /* base + hop latencies, or base + the routes' latency when more */
  double bandwidth_s;    /* the plan's link-load time over the protocol's efficiency */
  double predicted_s;    /* their sum */
} DtsCollTuneRow;

/* The plan of the algorithm the model predicts fastest for PARAMS (which
 * must have a tuner; DTS_ERROR_INVALID without), with protocol, chooser
 * and predicted_s set. CHOOSER is "auto" (every algorithm with a model,
 * PARAMS' channels) or "nccl" (NCCL's: its rings, laid out as the searched
 * rings or across the rails, and its double binary tree, over the channel
 * counts the tuner's limits allow; nccl_algo set). ROWS (DtsCollTuneRow,
 * may be NULL) receives every candidate in the order tried.
 * dts_coll_plan_new (CHOOSER, ...) calls it. */
DtsCollPlan *dts_coll_tune_plan_new (const char *chooser, const DtsCollParams *params,
                                     GArray *rows, GError **error);

/* Whether GPU architecture ARCH is Ampere or later. */
gboolean dts_coll_tune_arch_is_ampere_or_later (const char *arch);

G_END_DECLS

#endif
