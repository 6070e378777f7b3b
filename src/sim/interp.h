/* interp.h - the interpreter's state (sim.c), shared by the files that
 * run it: sim.c (actors, operations, parameter servers, set-up and tear
 * down), coll-exec.c (a participant's part of a collective at step, flow
 * and analytic granularity) and fold-ranks.c (ranks that behave identically run
 * as one). Nothing outside src/sim includes it. */
#ifndef DTS_SIM_INTERP_H
#define DTS_SIM_INTERP_H

#include <glib.h>
#include <simgrid/forward.h>

#include "collective/collective.h"
#include "schedule/schedule.h"
#include "sim/sim-private.h"
#include "sim/sim.h"
#include "trace/trace.h"

G_BEGIN_DECLS

typedef struct _Sim Sim;

/* An operation as a stream runs it: a program operation, or, when no
 * per-layer slices are recorded, a run of consecutive compute operations of
 * one pass merged into one execution. Merging changes no simulated time (a
 * GPU shared by two executions gives each the same share whether the work
 * is one execution or a sequence), only the number of events; the time of
 * a merged execution is split over its phases in proportion to their
 * idle-GPU times. */
typedef struct {
  DtsOp op;                      /* duration_s: idle-GPU time of the whole run */
  double share[DTS_PHASE_COUNT]; /* fraction of duration_s in each phase */
} SimOp;

typedef struct {
  int rank;
  sg_host_t host;
  double speed_flops;        /* host speed: converts seconds of GPU work to flops */
  double reduce_s_per_byte;  /* reduction kernel time per reduced byte */
  sg_sem_t *events;          /* n_events counting semaphores */
  double *arrived_s;         /* [event]: when the data of the last receive that signalled it
                                started to flow (point-to-point streams) */
  int weight;                /* ranks it stands for (folded runs), else 1 */
  GPtrArray *flights;        /* analytic: Flight, the rank's collectives in flight */
  double flights_s;          /* when their progress was last brought up to date */
  GHashTable *peer_version;  /* server rank x 2^32 + its tag -> version of the last reply
                                received from that server (gint64), or NULL before any: a
                                rank's pulls may run on a stream of their own (sync-ps) */
} Rank;

/* A collective in flight on a rank at analytic granularity (run_analytic):
 * what is left of its time alone, and of that the part that is not latency. */
typedef struct {
  int plan;                  /* its plan: a rank's streams that run two participants of one
                                plan (a server and a worker) are one collective */
  double left_s, bw_s;
  sg_sem_t wake;             /* released when the rank's other collectives change */
} Flight;

/* A communicator as the simulation runs it. */
typedef struct {
  const DtsCommunicator *comm;
  int index;
  int n_parts;               /* participants of its largest plan */
  int n_tags;                /* the most tags a plan of the communicator uses */
  sg_mailbox_t *mailbox;     /* [part * n_tags + tag] */
  sg_sem_t *local;           /* [part]: hand-offs from a participant on the same host, made
                                on first use */
  sg_bar_t barrier;          /* its members */
} Comm;

/* The payload of a point-to-point message (schedule.h, "Messages between
 * any sender and a server"); made by the sender, freed by the receiver. */
typedef struct {
  int sender;
  int clock;                 /* the sender's iteration */
  int samples;
  gint64 version;            /* of the receiver's parameters the sender holds; a reply: the
                                server's version */
  double sent_s;             /* when the sender was ready */
  double arrived_s;          /* set by a server's receiver */
  gboolean replied;          /* a server has sent its sender newer weights */
  int server_tag;            /* a reply: the tag its server receives gradients on */
} SimMsg;

/* A parameter server: the stream that runs APPLY operations and the queue
 * its receiver actor fills. */
typedef struct {
  const DtsOp *apply;        /* the stream's (first) APPLY: tag, senders */
  GQueue inbox;              /* SimMsg *, in arrival order */
  sg_sem_t arrived;          /* released once per arrival */
  int *delivered;            /* [worker]: gradients received from it */
  int min_delivered;         /* the smallest of them */
  int n_at_min;              /* workers at min_delivered */
  gint64 version;            /* updates applied */
  gint64 taken;              /* gradients taken by APPLY */
  gint64 total;              /* senders x iterations */
  int rank;
  GQueue outbox;             /* SimMsg * replies, their receiver in `clock` until sent */
  sg_sem_t to_send;          /* released once per reply queued */
  double reply_bytes;
  int reply_tag;
  gint64 recv_claimed;       /* receives its receiver actors have started or done */
  GQueue pending;            /* senders of the gradients sent and not yet taken by a receiver,
                                in the order they were sent (GINT_TO_POINTER) */
  sg_sem_t sent;             /* released once per entry of pending */
  sg_mailbox_t *lane;        /* [sender]: the mailbox its gradients travel on, or NULL before
                                the first */
  gint64 send_claimed;       /* replies its sender actors have taken or sent */
} Server;

typedef struct {
  Sim *sim;
  const DtsStream *stream;
  Rank *rank;
  const GArray *ops;         /* SimOp, shared by streams with the same program */
  GArray *xfers;             /* scratch for the steps of collectives */
  GArray *prepared;          /* scratch: Prepared, one per transfer of the step */
  sg_comm_t *comms;          /* scratch: posted communications */
  gsize n_comms_max;
  double flow_start_s;       /* receives since the last RECORD: when the last one's data
                                started to flow, or -1 */
  GArray *reply_to;          /* int: senders of the gradients of the last APPLY */
  Server *server;            /* streams that run APPLY, else NULL */
  GArray *posted;            /* sg_comm_t of detached SENDs, waited for at the iteration's end */
} Stream;

/* Latencies of a plan's routes, for flow and analytic granularity, and
 * the link loads of a lock-step plan's slots (analytic). Plans with the
 * same peers (every bucket of a communicator) share the first one's. */
typedef struct {
  gboolean known;
  gboolean borrowed;         /* the latencies are an earlier plan's entry's */
  double max_s;              /* largest route latency of the plan (analytic) */
  double min_bw_Bps;         /* smallest route bandwidth of the plan (analytic) */
  double *slot_s_per_byte;   /* analytic, plans whose members run lock-step: step of
                                participant 0 -> the link-load time of the step's slot over
                                the plan's bytes, -1 until known (NULL otherwise) */
  double *slot_lat_s;        /* the same steps -> the largest latency of a route of the slot */
  int n_slot_steps;          /* their entries */
  gboolean own_slots;        /* they are this entry's (not borrowed) */
  double *phase_max_s;       /* flow: lock-step phase -> largest latency of a route of its
                                steps (hier's node phases do not pay the rails'); NULL
                                otherwise */
  gboolean own_phases;       /* phase_max_s is this entry's (not borrowed) */
} PlanLatency;

/* Routes as the analytic granularity, the flow fold and --link-stats read
 * them: links by index, each route looked up once per pair of hosts. */
typedef struct {
  DtsSimPeers *routes;       /* rank a -> GArray of link indices to each peer b */
  GHashTable *index;         /* sg_link_t -> index + 1 */
  GPtrArray *links;          /* index -> sg_link_t */
  GArray *bw_Bps;            /* index -> bandwidth */
  GArray *shared;            /* index -> gboolean: SHARED (else FATPIPE) */
  GArray *lat_s;             /* index -> latency */
  GArray *load;              /* index -> bytes of the slot being weighed */
  GArray *largest;           /* index -> largest flow of it (per channel) */
  GArray *touched;           /* indices with load in the slot being weighed */
} AnRoutes;

struct _Sim {
  const DtsSchedule *sched;
  const DtsSimSettings *set;
  int n;
  Rank *ranks;
  Comm *comms;
  Stream *streams;
  DtsTrace *trace;
  PlanLatency *latency;      /* one per plan, filled on first use */
  double *analytic_s;        /* one per plan at analytic granularity, -1 until known */
  double *analytic_lat_s;    /* the latency part of analytic_s */
  AnRoutes an;               /* route links (analytic, folded flow runs, --link-stats),
                                made on first use */
  GArray *link_bytes;        /* --link-stats: link index (an) -> bytes sent through it;
                                NULL without */
  GPtrArray *ops;            /* GArray of SimOp per schedule program */
  GHashTable *p2p;           /* rank x 2^32 + tag -> mailbox of point-to-point receives */
  GHashTable *servers;       /* rank x 2^32 + tag -> the Server receiving on it */
  int finished;              /* streams that ran every iteration */
  gint64 wall_start_us;
  gint64 last_progress_us;
  int payload;               /* mailbox payloads must be non-NULL: &payload */
  GRand *rng;                /* compute jitter, seeded; NULL without */
  double jitter_sigma;
  int *rep;                  /* folded runs: rank -> the rank that stands for it; NULL when
                                every rank runs */
  double **fold_extra;       /* folded flow runs: plan -> [phase * n_parts + part], the
                                latency sleep run_flow_phase gives the participant; NULL
                                otherwise */
  const char *fold_why;      /* a fold along the mesh's data axis refused: why (static; for
                                DTSIM_FOLD=count), else NULL */
  int n_started;             /* streams started as actors */
  guint8 *plan_analytic;     /* --comm-granularity auto: plan -> run at analytic granularity
                                (sim_plans_analytic_alone); NULL otherwise */
  int warmup;                /* the summary's warm-up iterations W (dts_trace_warmup) */
  int n_compute;             /* compute streams started */
  int n_warm;                /* of them, those that have finished iteration W-1 */
  double window_open_s;      /* when the last of them did (E(W-1)); INFINITY until then */
  GArray *lead;              /* window.c: counter spans before every rank finished W-1;
                                NULL where nothing is cut */
};

/* sim.c */
/* The simulated time. */
double sim_now (void);
/* The reduction kernel of BYTES on RK's GPU, started (NULL for none). */
sg_exec_t sim_reduce_async (Sim *sim, Rank *rk, double bytes);
/* BYTES rounded to whole bytes, as SimGrid counts them. */
long sim_whole_bytes (double bytes);
/* --link-stats: BYTES sent from FROM to TO, on the links of their route. */
void sim_count_link_bytes (Sim *sim, const Rank *from, const Rank *to, double bytes);
/* Whether the user chose SimGrid's host model (--cfg host/model). */
gboolean sim_user_set_host_model (void);

/* window.c: each rank's counters cut to the run's measured window. */
typedef enum {
  SIM_WINDOW_PHASE,        /* phase_s, by the op's phase fractions */
  SIM_WINDOW_WAIT,         /* wait_s */
  SIM_WINDOW_P2P_WAIT,     /* p2p_wait_s, and p2p_xfer_s after the data started to flow */
  SIM_WINDOW_GATHER_WAIT,  /* gather_wait_s */
  SIM_WINDOW_TP,           /* tp_s */
  SIM_WINDOW_CONTEXT,      /* cp_s */
  SIM_WINDOW_EXPERT,       /* ep_s */
} SimWindowCounter;
/* Before the actors start: whether spans are kept, and W. */
void sim_window_init (Sim *sim);
/* RANK's compute stream counted T1 - T0 in COUNTER of iteration IT (SHARE:
 * the phase fractions of a compute op; FLOW_S: a neighbour wait's data
 * started to flow then, T0..T1). */
void sim_window_note (Sim *sim, int rank, int it, int counter, const double *share, double t0,
                      double flow_s, double t1);
/* A compute stream finished iteration IT. */
void sim_window_iteration_end (Sim *sim, int it);
/* After the run, before sim_unfold: take out of every rank's counters what
 * it did before its window opened. */
void sim_window_cut (Sim *sim);

/* coll-exec.c */
/* The rank that runs participant PART of PLAN on communicator C. */
Rank *sim_part_rank (Sim *sim, const Comm *c, const DtsCollPlan *plan, int part);
/* The links of the route from A's host to B's (analytic, fold, --link-stats). */
const GArray *sim_an_route (Sim *sim, const Rank *a, const Rank *b);
/* The smallest bandwidth and the summed latency of the route from A to B
 * (sim_an_route's links; SimGrid's figures where it has none). */
void sim_an_route_figures (Sim *sim, const Rank *a, const Rank *b, double *bw_Bps, double *lat_s);
/* The latencies of plan K's routes, filled on first use. */
const PlanLatency *sim_plan_latency (Sim *sim, int k);
/* Collective K's time at analytic granularity, the same for every member,
 * and its latency part (worked out on first use and kept). */
void sim_analytic_plan_s (Sim *sim, int k, double *t_s, double *lat_s);
/* Participant PART's part of collective K on stream S (BUCKET: its index in
 * the iteration). */
void sim_run_coll (Sim *sim, Stream *s, int k, int part, int bucket);

/* fold-ranks.c */
/* Fold the run when it can be (doc/SIMULATION.md, "Folded analytic runs",
 * "Folded flow runs"): the number of classes that run, 0 when every rank
 * does. */
int sim_fold_ranks (Sim *sim);
/* --comm-granularity auto: mark the plans that run at analytic granularity
 * in a flow run (sim->plan_analytic); returns how many. */
int sim_plans_analytic_alone (Sim *sim);
/* After a folded run: every rank's figures are those of its class's. */
void sim_unfold (Sim *sim);
/* Whether link IDX of the routes can make two flows share its bandwidth
 * (SHARED and not relaxed to unlimited). */
gboolean sim_fold_link_limits (const AnRoutes *an, int idx);
/* Append the bits of V to a class key. */
void sim_fold_key_double (GString *key, double v);
/* Append what tells rank R's host apart to a class key: its speed,
 * reduction rate and cores, and the rank where a --set or --scale names
 * the host. */
void sim_fold_key_host (const Sim *sim, int r, GString *key);

/* fold-mesh.c */
/* Fold a pipeline or hybrid run at analytic granularity along its mesh's
 * data axis (doc/SIMULATION.md, "Folded pipelines and tensor-parallel
 * groups"): sets sim->rep and the ranks' weights and returns the number
 * of classes, or 0 with sim->fold_why saying what stopped it. */
int sim_fold_mesh (Sim *sim);

G_END_DECLS

#endif
