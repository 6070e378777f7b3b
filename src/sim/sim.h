/* sim.h - run a schedule on a SimGrid platform (the only layer that sees SimGrid).
 *
 * Actors (per participating GPU, both on the GPU's host):
 *  - a compute actor runs the rank's program: every compute operation is a
 *    SimGrid execution of duration_s x host speed flops, so two activities
 *    on one GPU share it; ALLREDUCE_START releases a semaphore, and
 *    ALLREDUCE_WAIT acquires one per bucket;
 *  - a communication actor waits for each bucket in turn and runs its
 *    all-reduce plan, exchanging messages with the ring neighbours' actors
 *    through one mailbox per rank, then releases the compute actor.
 * SimGrid's C API has no wait-any across executions and communications,
 * hence two actors joined by semaphores.
 *
 * Plans run at one of two granularities (doc/SIMULATION.md has the measured
 * difference): `step` sends every chunk of every ring step as a SimGrid
 * communication; `flow` sends one flow per rank, phase (reduce-scatter,
 * all-gather) and channel carrying that rank's bytes of the phase, after a
 * sleep that stands for the per-step latencies the flow does not pay, and
 * all ranks leave a phase together. In
 * both, the reduction kernel (read two chunks, write one: 3 bytes of device
 * memory traffic per reduced byte at the GPU's memory bandwidth) is an
 * execution on the GPU that runs while its data streams in: a round (step)
 * ends when both its transfer and its reduction are done.
 *
 * Network model: SimGrid's CM02 without cross-traffic and without the TCP
 * window bound (network/TCP-gamma:0), set before the user's --cfg items;
 * SimGrid's own logging is silenced below critical. FATPIPE links that no
 * flow of the run can be limited by are simulated as unlimited SHARED
 * links, which gives the same times to the bit at a fraction of the solver
 * cost (sim.c, relax_fatpipes). */
#ifndef DTS_SIM_SIM_H
#define DTS_SIM_SIM_H

#include <glib.h>
#include "platform/platform.h"
#include "schedule/options.h"
#include "schedule/schedule.h"
#include "trace/trace.h"

G_BEGIN_DECLS

/* The SimGrid configuration dtsim sets before the user's items. */
const char *const *dts_sim_default_cfg (void);

/* Check the syntax of --cfg items (NAME:VALUE, known model names, nothing
 * SimGrid would abort on) without starting SimGrid. Errors are
 * DTS_ERROR_USAGE quoting the item. */
gboolean dts_sim_cfg_check (char **cfg, GError **error);

/* Start SimGrid (once per process) and set the defaults and then CFG.
 * Items SimGrid rejects (unknown keys, values of the wrong type) are
 * DTS_ERROR_USAGE with SimGrid's reason. Calling it again is an error. */
gboolean dts_sim_configure (char **cfg, GError **error);

/* The configuration items set, in order (lent; valid after dts_sim_configure). */
char **dts_sim_cfg_applied (void);

/* Load the platform file PATH into SimGrid and apply OVERRIDES (DtsOverride
 * or NULL), configuring SimGrid with CFG first unless dts_sim_configure was
 * called. Once per process: later calls with the same PATH do nothing, so
 * that routes can be read (routes.h) before dts_sim_execute runs on the
 * same platform. Files SimGrid refuses are DTS_ERROR_INVALID. */
gboolean dts_sim_load_platform (const char *path, char **cfg, GArray *overrides, GError **error);

/* From this many ranks, a run at --comm-granularity flow (by name: auto is
 * dtsim run's default) whose plans `auto` would run at analytic says so
 * (DtsSimSettings.hint_auto): step by step, NCCL's tree at 4,096 GPUs is
 * tens of seconds where auto takes one or two. */
#define DTS_SIM_HINT_AUTO_RANKS 1024

/* How to simulate a schedule. */
typedef struct {
  const char *platform_path;   /* resolved file path */
  char **cfg;                  /* --cfg items or NULL */
  GArray *overrides;           /* DtsOverride or NULL */
  DtsGranularity granularity;
  gboolean analytic_alone;     /* at flow (--comm-granularity auto): plans that are not
                                  lock-step and have the network to themselves run at
                                  analytic granularity (sim_plans_analytic_alone) */
  gboolean hint_auto;          /* at flow without analytic_alone: a note on stderr where
                                  at least DTS_SIM_HINT_AUTO_RANKS ranks would run plans at
                                  analytic under auto (dtsim run) */
  int iterations;              /* >= 1 */
  gboolean record_slices;      /* compute and collective slices (Chrome trace) */
  gboolean record_steps;       /* every step (phase, at flow) of every collective */
  gboolean link_stats;         /* bytes carried by every link (trace->links) */
  int progress;                /* 0, DTS_PROGRESS_LIVE or DTS_PROGRESS_LINES */
  const char *speed_use;       /* what the host speed is for, in its error */
  void (*sealed) (gpointer data); /* called once the platform is sealed, before actors start */
  gpointer sealed_data;
  /* called once it is known how many of the N_RANKS ranks run (N_RUN: all
   * but those a folded run leaves to a rank alike, doc/SIMULATION.md
   * "Folded analytic runs"), before actors start; may be NULL */
  void (*folded) (gpointer data, int n_run, int n_ranks);
  gpointer folded_data;
  double compute_jitter_sigma; /* > 0: each compute execution x lognormal (mean 1, sigma) */
  guint64 seed;                /* of the jitter's generator (GLib's GRand) */
  double coll_overhead_s;      /* each rank waits this long at the start of every collective
                                  (a library call's fixed cost: kernel launch, stream
                                  synchronisation), >= 0 */
} DtsSimSettings;

/* Run SCHED on the platform file set->platform_path (loaded, with
 * set->overrides, unless dts_sim_load_platform did it), configuring SimGrid
 * first unless dts_sim_configure was called: one actor per stream, in the
 * order of sched->streams. PLATFORM is the same file's view (rank -> host);
 * WORKLOAD (may be NULL) names the layers in the trace. Returns the trace,
 * or NULL with an error for inputs SimGrid rejects. SimGrid runs once per
 * process. */
DtsTrace *dts_sim_execute (const DtsSchedule *sched, const DtsPlatform *platform,
                           const DtsWorkload *workload, const DtsSimSettings *set,
                           GError **error);

/* Run SCHED for opts->iterations iterations on the platform file
 * opts->platform_path (configuring SimGrid first unless dts_sim_configure
 * was called). PLATFORM is the same file's view (rank -> host). FOLDED
 * (may be NULL) is DtsSimSettings.folded, with FOLDED_DATA. Returns the
 * trace, or NULL with an error for inputs SimGrid rejects. */
DtsTrace *dts_sim_run (const DtsSchedule *sched, const DtsPlatform *platform,
                       const DtsWorkload *workload, const DtsRunOptions *opts,
                       void (*folded) (gpointer data, int n_run, int n_ranks),
                       gpointer folded_data, GError **error);

/* The plans of SCHED that a simulation with SET runs at analytic
 * granularity although it is a flow run (--comm-granularity auto: plans
 * that are not lock-step, alone on the network; doc/SIMULATION.md): a mask
 * over sched->plans, or NULL for none; their number in *N_PLANS (may be
 * NULL). SimGrid must be configured (the network model decides). */
guint8 *dts_sim_plans_alone (const DtsSchedule *sched, const DtsSimSettings *set,
                             int *n_plans);

/* The plans of SCHED that `dtsim run` with OPTS runs at analytic
 * granularity (every plan at --comm-granularity analytic, those of
 * dts_sim_plans_alone at auto), in *MASK: a mask over sched->plans, or
 * NULL for none. For the cost guard, before the run; at auto it loads the
 * platform (dts_sim_load_platform) and fails with its errors. */
gboolean dts_sim_run_plans_analytic (const DtsSchedule *sched, const DtsRunOptions *opts,
                                     guint8 **mask, GError **error);

G_END_DECLS

#endif
