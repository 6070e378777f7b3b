/* allreduce-run.h - one all-reduce alone on a platform (`dtsim allreduce`).
 *
 * The quickest what-if for a network and the teaching view of the ring:
 * the first n_gpus ranks of a platform all-reduce buffers of the given sizes,
 * one after the other, with the plans of src/collective and the executors
 * of `dtsim run` (sim.c): at `step` granularity every chunk of every ring
 * step is a SimGrid communication, at `flow` granularity one flow per rank,
 * phase and channel plus the per-step latencies (doc/SIMULATION.md). The
 * reduction kernel runs on the GPU as in `dtsim run`. All ranks enter each
 * all-reduce together (a barrier, as nccl-tests synchronises before timing),
 * so the time of one size is from that barrier to the last rank's end.
 *
 * Beside the simulated time, the closed form of an unchunked ring on a
 * network without other traffic, 2(N-1)/N x S/B + 2(N-1) x L, with
 *   B = min over the links of the ring's routes of bandwidth / (number of
 *       ring hops whose route crosses the link in that direction; 1 for a
 *       FATPIPE link), the ring's bottleneck share,
 *   L = the largest route latency of a ring hop (the slowest hop paces a
 *       lock-step ring).
 * The ratio of simulated time to closed form shows chunking latencies,
 * reduction kernels slower than the link and contention the closed form
 * does not see. */
#ifndef DTS_SIM_ALLREDUCE_RUN_H
#define DTS_SIM_ALLREDUCE_RUN_H

#include <glib.h>
#include "schedule/options.h"

G_BEGIN_DECLS

typedef struct {
  const char *platform_path;   /* resolved file path */
  int n_gpus;                  /* the first n_gpus ranks; 0: all, else 2..platform's */
  const double *sizes_bytes;   /* buffer sizes S, each >= 1 byte, simulated in this order */
  int n_sizes;                 /* >= 1 */
  int channels;                /* 1..DTS_COLL_MAX_CHANNELS */
  double chunk_bytes;          /* > 0 */
  double coll_overhead_s;      /* --coll-overhead: each call's fixed cost, >= 0 */
  DtsGranularity granularity;
  char **cfg;                  /* --cfg items or NULL */
  GArray *overrides;           /* DtsOverride or NULL */
  gboolean record_steps;       /* keep one slice per rank and step (phase at flow) */
  const char *collective;      /* algorithm table id, "auto" or "nccl" (tune.c: per size); NULL:
                                  "ring" */
  GString *dump_plan;          /* non-NULL: write the plan here and simulate nothing */
  int op;                      /* DtsCollOp (collective/collective.h); 0: all-reduce */
  int root;                    /* broadcast, reduce: the root rank */
  DtsCollNcclLimits nccl;      /* "nccl": what it may choose */
} DtsAllreduceOptions;

/* One rank's part of one step (step granularity) or one phase (flow). */
typedef struct {
  int size_index;
  int rank;
  int step;            /* 0 .. 2(N-1)-1; -1 for a whole phase at flow granularity */
  int phase;           /* index into the plan's phases: ring 0 reduce-scatter, 1 all-gather */
  const char *phase_name; /* the plan's name of it (static) */
  double t_start_s;    /* simulated time */
  double t_end_s;
} DtsAllreduceSlice;

typedef struct {
  double bytes;
  int n_rounds;        /* chunk rounds per step and channel */
  double t_start_s;    /* when every rank entered */
  double time_s;       /* to the end of the last rank */
  double closed_form_s;
  double share_Bps;    /* B and L of this size's closed form (its plan's routes) */
  double latency_s;
  const char *algorithm; /* table id of the plan (static) */
  const char *protocol;  /* --collective auto: the protocol the model picked (static), else NULL */
  double predicted_s;    /* --collective auto: the model's time, else 0 */
  GArray *candidates;    /* --collective auto: DtsCollTuneRow of every candidate, in the order
                            tried (owned), else NULL */
  int channels;          /* the plan's channels (--collective nccl: its choice) */
  const char *nccl_algo; /* --collective nccl: NCCL's name of the algorithm (static), else NULL */
} DtsAllreduceSize;

typedef struct {
  char *platform;          /* basename without .xml */
  char *gpu;               /* GPU of rank 0 */
  int n_gpus;
  int n_nodes;             /* nodes spanned by the ranks */
  char *algorithm;         /* collective table id, or "auto" */
  gboolean tuned;          /* --collective auto or nccl: each size's algorithm in its
                              DtsAllreduceSize */
  gboolean nccl;           /* --collective nccl: each size's channels too */
  int channels;
  double chunk_bytes;
  double coll_overhead_s;  /* in time_s and closed_form_s of every size */
  char *granularity;
  double bottleneck_Bps;   /* B of the closed form */
  char *bottleneck_link;   /* the link that sets it (SimGrid name) */
  int bottleneck_hops;     /* ring hops sharing that link direction */
  double hop_latency_s;    /* L of the closed form */
  GArray *sizes;           /* DtsAllreduceSize, in the order given */
  GArray *slices;          /* DtsAllreduceSlice in the order recorded, or NULL */
  GPtrArray *plans;        /* DtsCollPlan simulated for each size (owned ref) */
  char **rank_hosts;       /* SimGrid host of each rank (owned strv) */
  char **cfg;              /* SimGrid items set (owned strv) */
  gint64 events;
  double wall_time_s;
} DtsAllreduceResult;

void dts_allreduce_result_free (DtsAllreduceResult *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsAllreduceResult, dts_allreduce_result_free)

/* Step granularity simulates every chunk transfer: 2(N-1) steps x rounds x
 * channels x N ranks per size. Beyond this many (about ten minutes at
 * SimGrid's 2-4 us per transfer, SIMGRID-NOTES.md) a run is refused rather
 * than left to look hung; at flow granularity too when the plans whose
 * phases are not all lock-step (run step by step there) have that many. */
#define DTS_ALLREDUCE_MAX_STEP_TRANSFERS 2e8

/* Load the platform, check the options against it, simulate and return the
 * result (with opts->dump_plan set: write the plan to it and return NULL
 * with no error). More GPUs than the platform has, or more step transfers than
 * DTS_ALLREDUCE_MAX_STEP_TRANSFERS, is DTS_ERROR_USAGE; inputs SimGrid
 * rejects, and GPU pairs of the ring without a route, are
 * DTS_ERROR_INVALID. SimGrid runs once per process. */
DtsAllreduceResult *dts_allreduce_run (const DtsAllreduceOptions *opts, GError **error);

/* The ring's closed form 2(N-1)/N x S/B + 2(N-1) x L (0 for one rank). */
double dts_allreduce_closed_form_s (int n, double bytes, double bottleneck_Bps,
                                    double latency_s);

/* Bus bandwidth as nccl-tests reports it: S/t x 2(N-1)/N. */
double dts_allreduce_bus_bw_Bps (int n, double bytes, double time_s);

G_END_DECLS

#endif
