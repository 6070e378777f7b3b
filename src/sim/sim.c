/* sim.c - the interpreter: SimGrid actors that run any schedule.
 *
 * See sim.h for the actors and the two granularities. One actor per stream
 * of the schedule (DtsStream), on its rank's host, runs the stream's
 * program once per iteration. Operations:
 *
 * COMPUTE is an execution of duration_s x host speed flops, so two
 * activities on one GPU share it. RECORD releases, WAIT acquires the rank's
 * event semaphores (counting). BARRIER waits at the communicator's barrier.
 * SEND and RECV are mailbox communications between two ranks (one mailbox
 * per rank and tag). COLL runs the participant's steps of a collective plan
 * through the generic interface of collective.h, whatever the algorithm:
 *
 * step: for each step and each of its rounds (chunks), the participant
 * starts the reduction kernel of what it reduces in that round on its GPU
 * (3 bytes of device memory traffic per reduced byte), posts one send per
 * channel of every send and one receive per channel of every receive, and
 * waits for all of them. A step that is a reduction alone (a parameter
 * server's sum) is one execution. A transfer between two participants on
 * the same host is a hand-off through a semaphore: no network. A ring step
 * therefore costs R x (L + C x chunk / B) on a contention-free ring of
 * bandwidth B and latency L (C channels share the link), as long as the
 * reduction (3 C chunk / mem_bw) is shorter than the transfer; the whole
 * ring 2(N-1) (R L + S / (N B)).
 *
 * flow: a lock-step phase (collective.h) of k steps becomes, for each
 * participant, a sleep of (k R - 1) Lmax, where Lmax is the largest
 * latency of the routes the phase uses (fill_phase_latency: the slowest hop
 * paces a lock-step collective), the latencies of the phase's rounds that
 * its flows do not pay, then
 * one flow per channel of every transfer carrying k times its step bytes,
 * with one reduction execution for the whole phase alongside; then all
 * members leave the phase together (the communicator's barrier). The
 * barrier stands for the data dependency a flow does not have: in a ring,
 * no rank can finish a phase before the data that crosses the slowest hop
 * has gone round to it, but a flow on a fast hop would otherwise end early.
 * On a contention-free ring this is the step time exactly; elsewhere the two
 * differ by the amounts measured in doc/SIMULATION.md. Phases that are not
 * lock-step (parameter servers) run step by step at both granularities.
 *
 * analytic: a collective is its communicator's barrier and a wait of the
 * plan's time on its routes, from the link loads of its steps
 * (analytic_part_s), shared with the rank's other collectives in flight
 * (run_analytic); ranks that cannot tell each other apart then run as
 * one (fold_ranks, doc/SIMULATION.md "Folded analytic runs"); so do they
 * at flow where no flows of two pairs share a link (fold_flow_routes,
 * "Folded flow runs").
 *
 * Messages: a participant receives on one mailbox per communicator and
 * tag (as many tags as the communicator's plans use); the algorithms choose tags so that no receive can match a message
 * meant for another one (collective.h). Transfers are rounded to whole
 * bytes (SimGrid counts bytes in a long). The event count counts every
 * execution, sleep and transfer once (a transfer at its sender). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <xbt/dynar.h>

#include "core/error.h"
#include "core/input.h"
#include "sim/override.h"
#include "sim/routes.h"
#include "sim/sg-shim.h"
#include "sim/sim-private.h"
#include "sim/sim.h"

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
  gint64 *peer_version;      /* [rank]: version of the last message received from it, or NULL
                                before any */
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
  GHashTable *routes;        /* host pair -> GArray of link indices */
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
  int n_started;             /* streams started as actors */
};

static double
now (void)
{
  return simgrid_get_clock ();
}

static void
execute_s (Sim *sim, Rank *rk, double seconds)
{
  sg_actor_execute (seconds * rk->speed_flops);
  sim->trace->events += rk->weight;
}

/* A factor of mean 1 drawn from a lognormal of shape jitter_sigma
 * (exp (sigma Z - sigma^2 / 2), Z normal by Box-Muller), or 1. */
static double
jitter (Sim *sim)
{
  if (sim->rng == NULL)
    return 1.0;
  double u1 = 1.0 - g_rand_double (sim->rng), u2 = g_rand_double (sim->rng);
  double z = sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
  return exp (sim->jitter_sigma * z - sim->jitter_sigma * sim->jitter_sigma / 2.0);
}

static sg_exec_t
reduce_async (Sim *sim, Rank *rk, double bytes)
{
  if (!(bytes > 0))
    return NULL;
  sim->trace->events += rk->weight;
  return sg_actor_exec_async (bytes * rk->reduce_s_per_byte * rk->speed_flops);
}

static long
whole_bytes (double bytes)
{
  return (long) llround (bytes);
}

static const GArray *an_route (Sim *sim, const Rank *a, const Rank *b);

/* --link-stats: count BYTES sent from rank FROM to rank TO on every link of
 * their route. */
static void
count_link_bytes (Sim *sim, const Rank *from, const Rank *to, double bytes)
{
  if (sim->link_bytes == NULL || from->host == to->host || !(bytes > 0))
    return;
  const GArray *route = an_route (sim, from, to);
  if (sim->link_bytes->len < sim->an.links->len)
    g_array_set_size (sim->link_bytes, sim->an.links->len);
  for (guint i = 0; i < route->len; i++)
    g_array_index (sim->link_bytes, double, g_array_index (route, int, i)) += bytes;
}

static int
compare_busy (gconstpointer a, gconstpointer b)
{
  const DtsTraceLink *x = a, *y = b;
  if (x->busy_fraction != y->busy_fraction)
    return x->busy_fraction > y->busy_fraction ? -1 : 1;
  return strcmp (x->name, y->name);
}

/* The links that carried anything, busiest first. */
static GArray *
link_stats (Sim *sim, double makespan_s)
{
  GArray *out = dts_trace_links_new ();
  for (guint i = 0; i < sim->link_bytes->len; i++) {
    if (!(g_array_index (sim->link_bytes, double, i) > 0))
      continue; /* on a route the simulation looked up, not on one that carried bytes */
    sg_link_t link = g_ptr_array_index (sim->an.links, i);
    DtsTraceLink l = { g_strdup (sg_link_get_name (link)), sg_link_get_bandwidth (link),
                       g_array_index (sim->link_bytes, double, i), 0 };
    l.busy_fraction = makespan_s > 0 && l.bandwidth_Bps > 0
                          ? l.bytes / l.bandwidth_Bps / makespan_s : 0;
    g_array_append_val (out, l);
  }
  g_array_sort (out, compare_busy);
  return out;
}

/* The mailbox of participant PART of communicator C for TAG. (Mailboxes
 * are made before the simulation starts: made from an actor, each costs a
 * simcall.) */
static sg_mailbox_t
comm_mailbox (Comm *c, int part, int tag)
{
  return c->mailbox[part * c->n_tags + tag];
}

/* The hand-off semaphore of participant PART of C, made on first use. */
static sg_sem_t
comm_local (Comm *c, int part)
{
  if (c->local[part] == NULL)
    c->local[part] = sg_sem_init (0);
  return c->local[part];
}

static Rank *
part_rank (Sim *sim, const Comm *c, const DtsCollPlan *plan, int part)
{
  return &sim->ranks[c->comm->ranks[dts_coll_plan_part_host (plan, part)]];
}

static sg_comm_t *
comm_slots (Stream *s, gsize n)
{
  if (n > s->n_comms_max) {
    s->n_comms_max = MAX (n, 2 * s->n_comms_max);
    s->comms = g_renew (sg_comm_t, s->comms, s->n_comms_max);
  }
  return s->comms;
}

/* A transfer of a step, resolved once for all its rounds. */
typedef struct {
  const DtsCollXfer *x;
  gboolean local;            /* peer on the same host: a hand-off */
  const Rank *peer;          /* the peer's rank */
  sg_mailbox_t mailbox;      /* remote: the receiver's mailbox for the tag */
} Prepared;

/* Resolve the transfers of OPS for participant PART into S->prepared;
 * returns the number of communications a round posts. */
static gsize
prepare (Sim *sim, Stream *s, Comm *c, const DtsCollPlan *plan, int part,
         const DtsCollStepOps *ops)
{
  Rank *me = part_rank (sim, c, plan, part);
  g_array_set_size (s->prepared, ops->xfers->len);
  gsize n_comms = 0;
  for (guint i = 0; i < ops->xfers->len; i++) {
    const DtsCollXfer *x = &g_array_index (ops->xfers, DtsCollXfer, i);
    Prepared *p = &g_array_index (s->prepared, Prepared, i);
    p->x = x;
    p->peer = part_rank (sim, c, plan, x->peer);
    p->local = p->peer == me;
    int owner = x->kind == DTS_XFER_SEND ? x->peer : part;
    p->mailbox = p->local ? NULL : comm_mailbox (c, owner, x->tag);
    if (!p->local)
      n_comms += x->channels;
  }
  return n_comms;
}

/* The end of a round: wait for its K posted communications COMMS and its
 * reduction RED (or NULL), then take the hand-offs of PREP's receives from
 * the same host. */
static void
wait_round (Comm *c, int part, const GArray *prep, sg_comm_t *comms, gsize k, sg_exec_t red)
{
  sg_comm_wait_all (comms, k);
  if (red != NULL)
    sg_exec_wait (red);
  for (guint i = 0; i < prep->len; i++) {
    const Prepared *p = &g_array_index (prep, Prepared, i);
    if (p->x->kind == DTS_XFER_RECV && p->local)
      sg_sem_acquire (comm_local (c, part));
  }
}

/* Post the transfers of one round (or a whole flow phase: SCALE steps of
 * bytes) with the reduction alongside, and wait for them. */
static void
post_and_wait (Sim *sim, Stream *s, Comm *c, Rank *me, int part,
               const DtsCollStepOps *ops, gsize n_comms, int round, int scale)
{
  const GArray *prep = s->prepared;
  double red_bytes = 0;
  for (guint i = 0; i < prep->len; i++) {
    const DtsCollXfer *x = g_array_index (prep, Prepared, i).x;
    if (x->kind == DTS_XFER_RECV && x->reduce) {
      double b = scale > 0 ? scale * x->bytes
                           : dts_coll_round_bytes (x->bytes, ops->n_rounds, ops->chunk_bytes,
                                                   round);
      red_bytes += b * x->channels;
    }
  }
  sg_exec_t red = reduce_async (sim, me, red_bytes);
  sg_comm_t *comms = comm_slots (s, n_comms);
  void *slot;
  gsize k = 0;
  int sends = 0;
  for (guint i = 0; i < prep->len; i++) {
    const Prepared *p = &g_array_index (prep, Prepared, i);
    const DtsCollXfer *x = p->x;
    if (x->kind != DTS_XFER_SEND)
      continue;
    if (p->local) {
      sg_sem_release (comm_local (c, x->peer));
      continue;
    }
    double b = scale > 0 ? scale * x->bytes
                         : dts_coll_round_bytes (x->bytes, ops->n_rounds, ops->chunk_bytes, round);
    long bytes = whole_bytes (b);
    count_link_bytes (sim, me, p->peer, (double) bytes * x->channels);
    for (int ch = 0; ch < x->channels; ch++)
      comms[k++] = sg_mailbox_put_async (p->mailbox, &sim->payload, bytes);
    sends += x->channels;
  }
  for (guint i = 0; i < prep->len; i++) {
    const Prepared *p = &g_array_index (prep, Prepared, i);
    if (p->x->kind != DTS_XFER_RECV || p->local)
      continue;
    for (int ch = 0; ch < p->x->channels; ch++)
      comms[k++] = sg_mailbox_get_async (p->mailbox, &slot);
  }
  sim->trace->events += sends;
  wait_round (c, part, prep, comms, k, red);
}

/* A flow of a folded flow run between a running participant and one that
 * runs in its class's stand-in only: started by the running end, at the
 * time the whole run starts it (when both ends have posted). */
typedef struct {
  double at_s;
  sg_host_t from, to;
  long bytes;
  int channels;
} Ghost;

static int
compare_ghost (gconstpointer a, gconstpointer b)
{
  const Ghost *x = a, *y = b;
  return (x->at_s > y->at_s) - (x->at_s < y->at_s);
}

/* post_and_wait for a flow phase of a folded run (fold_flow_routes): a
 * transfer whose other end runs goes through its mailbox as in the whole
 * run; one whose other end does not is started as a host-to-host flow, at
 * T0 plus the later of the two ends' latency sleeps (EXTRA, per
 * participant), which is when the whole run's mailboxes match it. */
static void
post_and_wait_folded (Sim *sim, Stream *s, Comm *c, Rank *me, int part, int scale,
                      const double *extra, double t0)
{
  const GArray *prep = s->prepared;
  double red_bytes = 0;
  gsize n_comms = 0;
  for (guint i = 0; i < prep->len; i++) {
    const Prepared *p = &g_array_index (prep, Prepared, i);
    if (p->x->kind == DTS_XFER_RECV && p->x->reduce)
      red_bytes += scale * p->x->bytes * p->x->channels;
    if (!p->local)
      n_comms += p->x->channels;
  }
  sg_exec_t red = reduce_async (sim, me, red_bytes);
  sg_comm_t *comms = comm_slots (s, n_comms);
  g_autoptr (GArray) ghosts = g_array_new (FALSE, FALSE, sizeof (Ghost));
  double mine = MAX (extra[part], 0);
  void *slot;
  gsize k = 0;
  int sends = 0;
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < prep->len; i++) {
      const Prepared *p = &g_array_index (prep, Prepared, i);
      const DtsCollXfer *x = p->x;
      gboolean send = x->kind == DTS_XFER_SEND;
      if (send != (pass == 0))
        continue;
      if (p->local) {
        if (send)
          sg_sem_release (comm_local (c, x->peer));
        continue;
      }
      long bytes = whole_bytes (scale * x->bytes);
      if (send)
        sends += x->channels;
      if (sim->rep[p->peer->rank] == p->peer->rank) {
        for (int ch = 0; ch < x->channels; ch++)
          comms[k++] = send ? sg_mailbox_put_async (p->mailbox, &sim->payload, bytes)
                            : sg_mailbox_get_async (p->mailbox, &slot);
        continue;
      }
      Ghost g = { t0 + MAX (mine, MAX (extra[x->peer], 0)), send ? me->host : p->peer->host,
                  send ? p->peer->host : me->host, bytes, x->channels };
      g_array_append_val (ghosts, g);
    }
  g_array_sort (ghosts, compare_ghost);
  for (guint i = 0; i < ghosts->len; i++) {
    const Ghost *g = &g_array_index (ghosts, Ghost, i);
    if (g->at_s > now ())
      sg_actor_sleep_for (g->at_s - now ());
    for (int ch = 0; ch < g->channels; ch++)
      comms[k++] = dts_sg_sendto_async (g->from, g->to, g->bytes);
  }
  sim->trace->events += (gint64) sends * me->weight;
  wait_round (c, part, prep, comms, k, red);
}

static void
add_step (Sim *sim, int bucket, int rank, int step, int phase, double t0, double t1)
{
  if (sim->trace->steps == NULL || bucket < 0)
    return;
  DtsTraceStep st = { bucket, rank, step, phase, t0, t1 };
  g_array_append_val (sim->trace->steps, st);
}

static void
run_step (Sim *sim, Stream *s, Comm *c, const DtsCollPlan *plan, int part, int step,
          int bucket)
{
  DtsCollStepOps ops = { .xfers = s->xfers };
  dts_coll_plan_step_ops (plan, part, step, &ops);
  double t0 = now ();
  Rank *me = part_rank (sim, c, plan, part);
  if (ops.reduce_bytes > 0) {
    sg_exec_t sum = reduce_async (sim, me, ops.reduce_bytes);
    sg_exec_wait (sum);
  }
  gsize n_comms = prepare (sim, s, c, plan, part, &ops);
  for (int r = 0; r < ops.n_rounds && ops.xfers->len > 0; r++)
    post_and_wait (sim, s, c, me, part, &ops, n_comms, r, 0);
  add_step (sim, bucket, s->rank->rank, step, ops.phase, t0, now ());
}

typedef struct {
  Sim *sim;
  const Comm *c;
  const DtsCollPlan *plan;
  PlanLatency *lat;
  GHashTable *pairs;         /* flow: (rank << 32 | rank) -> route latency, for the phases */
} LatencyFill;

/* The key of the route from rank A to rank B in LatencyFill.pairs. */
static guint64
pair_key (const Rank *a, const Rank *b)
{
  return ((guint64) (guint32) a->rank << 32) | (guint32) b->rank;
}

static gboolean
fill_latency (int from, int to, const char *why, gpointer data)
{
  LatencyFill *f = data;
  Rank *a = part_rank (f->sim, f->c, f->plan, from), *b = part_rank (f->sim, f->c, f->plan, to);
  double l = a == b ? 0 : sg_host_get_route_latency (a->host, b->host);
  if (f->pairs != NULL && a != b) {
    guint64 *key = g_new (guint64, 1);
    *key = pair_key (a, b);
    double *v = g_new (double, 1);
    *v = l;
    g_hash_table_replace (f->pairs, key, v);
  }
  f->lat->max_s = MAX (f->lat->max_s, l);
  if (a != b && f->sim->set->granularity == DTS_GRANULARITY_ANALYTIC) {
    double bw = sg_host_get_route_bandwidth (a->host, b->host);
    if (f->lat->min_bw_Bps == 0 || bw < f->lat->min_bw_Bps)
      f->lat->min_bw_Bps = bw;
  }
  return TRUE;
}

/* Whether every member of PLAN runs every phase lock-step (no servers):
 * then member 0 stands for all at analytic granularity. */
static gboolean
plan_uniform (const DtsCollPlan *plan)
{
  gboolean uniform = plan->n_parts == plan->n_ranks;
  for (int i = 0; i < plan->n_phases; i++)
    uniform = uniform && plan->phases[i].lockstep;
  return uniform;
}

/* Give LAT slot weights of its own for N steps, none known yet (-1). */
static void
own_slots (PlanLatency *lat, int n)
{
  lat->slot_s_per_byte = g_new (double, MAX (n, 1));
  lat->slot_lat_s = g_new0 (double, MAX (n, 1));
  lat->n_slot_steps = n;
  lat->own_slots = TRUE;
  for (int i = 0; i < n; i++)
    lat->slot_s_per_byte[i] = -1;
}

/* Whether plans A and B have the same phases (first steps, lengths,
 * lock-step or not). */
static gboolean
same_phases (const DtsCollPlan *a, const DtsCollPlan *b)
{
  if (a->n_phases != b->n_phases || a->n_parts != b->n_parts)
    return FALSE;
  for (int i = 0; i < a->n_phases; i++)
    if (a->phases[i].first_step != b->phases[i].first_step
        || a->phases[i].n_steps != b->phases[i].n_steps
        || a->phases[i].lockstep != b->phases[i].lockstep)
      return FALSE;
  return TRUE;
}

/* The latency of the route from A to B: from PAIRS where it holds it. */
static double
route_latency (GHashTable *pairs, const Rank *a, const Rank *b)
{
  guint64 key = pair_key (a, b);
  const double *v = pairs != NULL ? g_hash_table_lookup (pairs, &key) : NULL;
  return v != NULL ? *v : sg_host_get_route_latency (a->host, b->host);
}

/* Flow granularity: the largest route latency of each lock-step phase of
 * collective K's plan, from the sends of its first step (the phase's steps
 * have the same peers): a phase pays its own slowest hop, not the plan's,
 * so hier's node phases and rhd's steps inside a node are not paced by the
 * links between nodes, as they are not at step (doc/SIMULATION.md,
 * "Granularities", measured there). PAIRS: route latencies already known
 * (the plan's routes), or NULL. */
static void
fill_phase_latency (Sim *sim, int k, PlanLatency *lat, GHashTable *pairs)
{
  const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, k);
  const Comm *c = &sim->comms[sim->sched->plan_comm[k]];
  lat->phase_max_s = g_new0 (double, MAX (plan->n_phases, 1));
  lat->own_phases = TRUE;
  g_autoptr (GArray) xfers = g_array_new (FALSE, TRUE, sizeof (DtsCollXfer));
  DtsCollStepOps ops = { .xfers = xfers };
  for (int i = 0; i < plan->n_phases; i++) {
    const DtsCollPhase *ph = &plan->phases[i];
    if (!ph->lockstep || ph->n_steps == 0)
      continue;
    for (int part = 0; part < plan->n_parts; part++) {
      if (ph->first_step >= dts_coll_plan_n_steps (plan, part))
        continue;
      dts_coll_plan_step_ops (plan, part, ph->first_step, &ops);
      const Rank *me = part_rank (sim, c, plan, part);
      for (guint j = 0; j < ops.xfers->len; j++) {
        const DtsCollXfer *x = &g_array_index (ops.xfers, DtsCollXfer, j);
        const Rank *peer = part_rank (sim, c, plan, x->peer);
        if (x->kind == DTS_XFER_SEND && peer != me)
          lat->phase_max_s[i] = MAX (lat->phase_max_s[i], route_latency (pairs, me, peer));
      }
    }
  }
}

/* Route latencies of collective K's plan; routes are known once the
 * platform is sealed. */
static const PlanLatency *
plan_latency (Sim *sim, int k)
{
  PlanLatency *lat = &sim->latency[k];
  if (lat->known)
    return lat;
  const DtsSchedule *sc = sim->sched;
  const DtsCollPlan *plan = g_ptr_array_index (sc->plans, k);
  gboolean slots = sim->set->granularity == DTS_GRANULARITY_ANALYTIC && plan_uniform (plan)
                   && plan->n_parts > 0;
  int n = slots ? dts_coll_plan_n_steps (plan, 0) : 0;
  for (int q = 0; q < k; q++) {
    if (sim->latency[q].known && dts_schedule_same_peers (sc, q, k)) {
      *lat = sim->latency[q];
      lat->borrowed = TRUE;
      lat->own_slots = FALSE;
      lat->own_phases = FALSE;
      if (sim->set->granularity == DTS_GRANULARITY_FLOW
          && !same_phases (plan, g_ptr_array_index (sc->plans, q)))
        fill_phase_latency (sim, k, lat, NULL);
      /* a plan of the same peers in pieces (hier) is not lock-step and
       * weighed no slots: this one weighs its own */
      if (slots && (lat->slot_s_per_byte == NULL || lat->n_slot_steps != n))
        break;
      if (!slots) {
        lat->slot_s_per_byte = NULL;
        lat->slot_lat_s = NULL;
        lat->n_slot_steps = 0;
      }
      return lat;
    }
  }
  if (lat->borrowed) {
    /* latencies borrowed, slots its own */
    own_slots (lat, n);
    return lat;
  }
  lat->max_s = 0;
  lat->min_bw_Bps = 0;
  gboolean flow = sim->set->granularity == DTS_GRANULARITY_FLOW;
  LatencyFill f = { sim, &sim->comms[sc->plan_comm[k]], plan, lat,
                    flow ? g_hash_table_new_full (dts_sim_pair_hash, g_int64_equal, g_free, g_free)
                         : NULL };
  dts_coll_plan_routes (plan, fill_latency, &f);
  if (flow) {
    fill_phase_latency (sim, k, lat, f.pairs);
    g_hash_table_unref (f.pairs);
  }
  if (slots)
    own_slots (lat, n);
  lat->known = TRUE;
  return lat;
}

/* The links of the route from rank A to rank B, as indices into SIM->an
 * (looked up once per pair). */
static const GArray *
an_route (Sim *sim, const Rank *a, const Rank *b)
{
  AnRoutes *an = &sim->an;
  if (an->routes == NULL) {
    an->routes = g_hash_table_new_full (dts_sim_pair_hash, g_int64_equal, g_free,
                                        (GDestroyNotify) g_array_unref);
    an->index = g_hash_table_new (g_direct_hash, g_direct_equal);
    an->links = g_ptr_array_new ();
    an->bw_Bps = g_array_new (FALSE, FALSE, sizeof (double));
    an->shared = g_array_new (FALSE, FALSE, sizeof (gboolean));
    an->lat_s = g_array_new (FALSE, FALSE, sizeof (double));
    an->load = g_array_new (FALSE, TRUE, sizeof (double));
    an->largest = g_array_new (FALSE, TRUE, sizeof (double));
    an->touched = g_array_new (FALSE, FALSE, sizeof (int));
  }
  guint64 key = ((guint64) (guint32) a->rank << 32) | (guint32) b->rank;
  GArray *route = g_hash_table_lookup (an->routes, &key);
  if (route != NULL)
    return route;
  route = g_array_new (FALSE, FALSE, sizeof (int));
  xbt_dynar_t links = xbt_dynar_new (sizeof (sg_link_t), NULL);
  sg_host_get_route (a->host, b->host, links);
  unsigned int cursor;
  sg_link_t link;
  xbt_dynar_foreach (links, cursor, link)
  {
    int idx = GPOINTER_TO_INT (g_hash_table_lookup (an->index, link)) - 1;
    if (idx < 0) {
      idx = an->bw_Bps->len;
      double bw = sg_link_get_bandwidth (link);
      gboolean shared = sg_link_is_shared (link);
      double lat = sg_link_get_latency (link);
      g_array_append_val (an->lat_s, lat);
      g_array_append_val (an->bw_Bps, bw);
      g_array_append_val (an->shared, shared);
      g_ptr_array_add (an->links, link);
      g_array_set_size (an->load, idx + 1);
      g_array_set_size (an->largest, idx + 1);
      g_hash_table_insert (an->index, link, GINT_TO_POINTER (idx + 1));
    }
    g_array_append_val (route, idx);
  }
  xbt_dynar_free (&links);
  guint64 *stored = g_new (guint64, 1);
  *stored = key;
  g_hash_table_insert (an->routes, stored, route);
  return route;
}

/* The link-load time of step STEP of collective K's plan, every member's
 * step STEP running at once (the members of a lock-step plan): the largest
 * over the links of the bytes the step's transfers put on it (every
 * channel's; a FATPIPE link: the largest transfer alone) over its
 * bandwidth, as load.c weighs a slot. Hand-offs on one host cross no link. */
static double
an_slot_s (Sim *sim, Stream *s, int k, int step, double *lat_s)
{
  const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, k);
  const Comm *c = &sim->comms[sim->sched->plan_comm[k]];
  AnRoutes *an = &sim->an;
  DtsCollStepOps ops = { .xfers = s->xfers };
  for (int p = 0; p < plan->n_parts; p++) {
    if (step >= dts_coll_plan_n_steps (plan, p))
      continue;
    dts_coll_plan_step_ops (plan, p, step, &ops);
    const Rank *me = part_rank (sim, c, plan, p);
    for (guint i = 0; i < ops.xfers->len; i++) {
      const DtsCollXfer *x = &g_array_index (ops.xfers, DtsCollXfer, i);
      const Rank *peer = part_rank (sim, c, plan, x->peer);
      if (x->kind != DTS_XFER_SEND || peer->host == me->host || !(x->bytes > 0))
        continue;
      const GArray *route = an_route (sim, me, peer);
      double route_lat = 0;
      for (guint l = 0; l < route->len; l++) {
        int idx = g_array_index (route, int, l);
        route_lat += g_array_index (an->lat_s, double, idx);
        double *load = &g_array_index (an->load, double, idx);
        double *largest = &g_array_index (an->largest, double, idx);
        if (*load == 0)
          g_array_append_val (an->touched, idx);
        *load += x->bytes * x->channels;
        *largest = MAX (*largest, x->bytes);
      }
      *lat_s = MAX (*lat_s, route_lat);
    }
  }
  double t = 0;
  for (guint i = 0; i < an->touched->len; i++) {
    int idx = g_array_index (an->touched, int, i);
    double bw = g_array_index (an->bw_Bps, double, idx);
    double *load = &g_array_index (an->load, double, idx);
    double *largest = &g_array_index (an->largest, double, idx);
    if (bw > 0)
      t = MAX (t, (g_array_index (an->shared, gboolean, idx) ? *load : *largest) / bw);
    *load = 0;
    *largest = 0;
  }
  if (an->touched != NULL)
    g_array_set_size (an->touched, 0);
  return t;
}

static void
run_flow_phase (Sim *sim, Stream *s, Comm *c, int k, int part, const DtsCollPhase *ph,
                int bucket)
{
  const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, k);
  DtsCollStepOps ops = { .xfers = s->xfers };
  dts_coll_plan_step_ops (plan, part, ph->first_step, &ops);
  const PlanLatency *lat = plan_latency (sim, k);
  double t0 = now ();
  int i = ph - plan->phases;
  double extra_s = (ph->n_steps * ops.n_rounds - 1) * lat->phase_max_s[i];
  Rank *me = part_rank (sim, c, plan, part);
  if (extra_s > 0) {
    sg_actor_sleep_for (extra_s);
    sim->trace->events += me->weight;
  }
  gsize n_comms = prepare (sim, s, c, plan, part, &ops);
  if (sim->fold_extra != NULL)
    post_and_wait_folded (sim, s, c, me, part, ph->n_steps,
                          sim->fold_extra[k] + (ph - plan->phases) * plan->n_parts, t0);
  else
    post_and_wait (sim, s, c, me, part, &ops, n_comms, 0, ph->n_steps);
  sg_barrier_wait (c->barrier);
  add_step (sim, bucket, s->rank->rank, -1, ops.phase, t0, now ());
}

/* The link-load time of step STEP of collective K's lock-step plan
 * (an_slot_s), worked out once per plan and communicator (plans with the
 * same peers share it, in proportion to their bytes) and once per
 * lock-step phase (its steps have the same peers and bytes); -1 where it
 * is not known (plans that are not lock-step). */
static double
an_plan_slot_s (Sim *sim, Stream *s, int k, int step, const DtsCollStepOps *ops,
                double *slot_lat_s)
{
  const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, k);
  const PlanLatency *lat = plan_latency (sim, k);
  if (lat->slot_s_per_byte == NULL || step >= lat->n_slot_steps || !(plan->bytes > 0))
    return -1;
  double *v = &lat->slot_s_per_byte[step];
  double *l = &lat->slot_lat_s[step];
  if (*v < 0) {
    const DtsCollPhase *ph = &plan->phases[ops->phase];
    if (ph->lockstep && step > ph->first_step && ph->first_step < lat->n_slot_steps
        && lat->slot_s_per_byte[ph->first_step] >= 0) {
      *v = lat->slot_s_per_byte[ph->first_step];
      *l = lat->slot_lat_s[ph->first_step];
    } else {
      *l = 0;
      *v = an_slot_s (sim, s, k, step, l) / plan->bytes;
    }
  }
  *slot_lat_s = *l;
  return *v * plan->bytes;
}

/* The slot in which participant PART's step STEP of PLAN runs (collective.h). */
static int
an_step_slot (const DtsCollPlan *plan, int part, int step)
{
  return plan->alg != NULL && plan->alg->step_slot != NULL
           ? plan->alg->step_slot (plan, part, step)
           : step;
}

static guint64
an_load_key (int slot, int link)
{
  return ((guint64) (guint32) slot << 32) | (guint32) link;
}

/* For a plan whose members do not all run lock-step: the bytes every slot
 * of its steps puts on each link, slot x 2^32 + link index -> double[2]
 * (the bytes of every channel; the largest transfer per channel, what a
 * FATPIPE link carries). */
static GHashTable *
an_plan_loads_new (Sim *sim, Stream *s, int k)
{
  const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, k);
  const Comm *c = &sim->comms[sim->sched->plan_comm[k]];
  GHashTable *loads = g_hash_table_new_full (dts_sim_pair_hash, g_int64_equal, g_free, g_free);
  DtsCollStepOps ops = { .xfers = s->xfers };
  for (int p = 0; p < plan->n_parts; p++) {
    const Rank *me = part_rank (sim, c, plan, p);
    int n = dts_coll_plan_n_steps (plan, p);
    for (int step = 0; step < n; step++) {
      dts_coll_plan_step_ops (plan, p, step, &ops);
      int slot = an_step_slot (plan, p, step);
      for (guint i = 0; i < ops.xfers->len; i++) {
        const DtsCollXfer *x = &g_array_index (ops.xfers, DtsCollXfer, i);
        const Rank *peer = part_rank (sim, c, plan, x->peer);
        if (x->kind != DTS_XFER_SEND || peer->host == me->host || !(x->bytes > 0))
          continue;
        const GArray *route = an_route (sim, me, peer);
        for (guint l = 0; l < route->len; l++) {
          guint64 key = an_load_key (slot, g_array_index (route, int, l));
          double *v = g_hash_table_lookup (loads, &key);
          if (v == NULL) {
            v = g_new0 (double, 2);
            guint64 *stored = g_new (guint64, 1);
            *stored = key;
            g_hash_table_insert (loads, stored, v);
          }
          v[0] += x->bytes * x->channels;
          v[1] = MAX (v[1], x->bytes);
        }
      }
    }
  }
  return loads;
}

/* The longest a link of ROUTE needs for what slot SLOT puts on it (LOADS). */
static double
an_route_load_s (Sim *sim, GHashTable *loads, int slot, const GArray *route)
{
  double t = 0;
  for (guint l = 0; l < route->len; l++) {
    int idx = g_array_index (route, int, l);
    guint64 key = an_load_key (slot, idx);
    const double *v = g_hash_table_lookup (loads, &key);
    double bw = g_array_index (sim->an.bw_Bps, double, idx);
    if (v != NULL && bw > 0)
      t = MAX (t, (g_array_index (sim->an.shared, gboolean, idx) ? v[0] : v[1]) / bw);
  }
  return t;
}

/* One slot of a pipelined plan at analytic granularity: its longest step
 * and that step's latency. */
typedef struct {
  double s, lat_s;
} AnSlot;

/* Analytic granularity: participant PART's time for collective K alone on
 * its routes, step by step: n_rounds x the plan's largest route latency,
 * plus the larger of its sends and its receives (over every channel, hand-
 * offs on its own host left out) at the plan's smallest route bandwidth, or
 * the reduction kernel of what it reduces if that is longer. For a plan
 * whose members run lock-step (UNIFORM), the transfer time of a step is at
 * least its slot's link-load time (an_plan_slot_s): routes of the plan
 * that cross one link in one step share it. On a contention-free platform
 * this is the time of a lock-step collective at flow granularity. *LAT_S:
 * the part of it that is latency. */
static double
analytic_part_s (Sim *sim, Stream *s, int k, int part, gboolean uniform, GHashTable *loads,
                 GArray *slots, double *lat_s)
{
  const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, k);
  const Comm *c = &sim->comms[sim->sched->plan_comm[k]];
  const PlanLatency *lat = plan_latency (sim, k);
  const Rank *me = part_rank (sim, c, plan, part);
  DtsCollStepOps ops = { .xfers = s->xfers };
  double total = 0;
  *lat_s = 0;
  int n_steps = dts_coll_plan_n_steps (plan, part);
  for (int step = 0; step < n_steps; step++) {
    dts_coll_plan_step_ops (plan, part, step, &ops);
    double send = 0, recv = 0, reduced = ops.reduce_bytes, hop = 0, links_s = 0;
    int slot = loads != NULL ? an_step_slot (plan, part, step) : 0;
    for (guint i = 0; i < ops.xfers->len; i++) {
      const DtsCollXfer *x = &g_array_index (ops.xfers, DtsCollXfer, i);
      double bytes = x->bytes * x->channels;
      if (x->reduce)
        reduced += bytes;
      const Rank *peer = part_rank (sim, c, plan, x->peer);
      if (peer->host == me->host)
        continue;
      /* Lock-step members are paced by the plan's slowest hop; the others
       * by their own routes. */
      double bw = uniform ? lat->min_bw_Bps
                          : sg_host_get_route_bandwidth (me->host, peer->host);
      hop = MAX (hop, uniform ? lat->max_s : sg_host_get_route_latency (me->host, peer->host));
      if (x->kind == DTS_XFER_SEND)
        send += bytes / bw;
      else
        recv += bytes / bw;
      if (loads != NULL && bytes > 0)
        links_s = MAX (links_s, an_route_load_s (sim, loads, slot,
                                                 x->kind == DTS_XFER_SEND
                                                     ? an_route (sim, me, peer)
                                                     : an_route (sim, peer, me)));
    }
    double bw_s = MAX (send, recv);
    if (uniform) {
      /* The slot's link loads: every member's step at once (after the
       * loop: it reuses the scratch transfers). Where they give the same
       * time (a contention-free ring), the time above stays, to the last
       * bit. */
      double slot_lat = 0, slot_s = an_plan_slot_s (sim, s, k, step, &ops, &slot_lat);
      if (slot_s >= 0 && fabs (slot_s - bw_s) > 1e-9 * bw_s)
        bw_s = slot_s;
      /* a lock-step phase is paced by its own slowest hop (hier's node
       * and rail phases differ), a ring's by the plan's */
      if (slot_s >= 0 && slot_lat > 0 && fabs (slot_lat - hop) > 1e-9 * hop)
        hop = slot_lat;
    } else if (loads != NULL && fabs (links_s - bw_s) > 1e-9 * bw_s) {
      /* the loads of the participant's routes in its slot: its own
       * transfers over different links run side by side, shared links
       * carry what every participant of the slot puts on them */
      bw_s = links_s;
    }
    double xfer = ops.n_rounds * hop + bw_s;
    double step_s = MAX (xfer, reduced * me->reduce_s_per_byte);
    total += step_s;
    *lat_s += MIN (ops.n_rounds * hop, step_s);
    if (slots != NULL) {
      /* the slot lasts as long as its longest step (and that step's latency) */
      guint sl = (guint) an_step_slot (plan, part, step);
      if (sl >= slots->len)
        g_array_set_size (slots, sl + 1);
      AnSlot *a = &g_array_index (slots, AnSlot, sl);
      if (step_s > a->s) {
        a->s = step_s;
        a->lat_s = MIN (ops.n_rounds * hop, step_s);
      }
    }
  }
  return total;
}

/* How long F needs from now with the collectives in flight on RK: what
 * is left of its time alone, its bandwidth part n times over, n counting
 * it and the others of other plans. */
static double
flight_wait_s (const Rank *rk, const Flight *f)
{
  guint others = 0;
  for (guint i = 0; i < rk->flights->len; i++)
    others += ((const Flight *) g_ptr_array_index (rk->flights, i))->plan != f->plan;
  return others > 0 ? f->left_s + others * f->bw_s : f->left_s;
}

/* Bring the progress of RK's collectives in flight up to now: each has
 * gone through the fraction of what it has left that the time since the
 * last update is of its wait. */
static void
flights_update (Rank *rk)
{
  double t = now (), d = t - rk->flights_s;
  for (guint i = 0; i < rk->flights->len && d > 0; i++) {
    Flight *f = g_ptr_array_index (rk->flights, i);
    double wait = flight_wait_s (rk, f);
    double keep = wait > d ? 1 - d / wait : 0;
    f->left_s *= keep;
    f->bw_s *= keep;
  }
  rk->flights_s = t;
}

/* Wake RK's collectives in flight but EXCEPT: their share changed. */
static void
flights_wake (Rank *rk, const Flight *except)
{
  for (guint i = 0; i < rk->flights->len; i++) {
    Flight *f = g_ptr_array_index (rk->flights, i);
    if (f != except)
      sg_sem_release (f->wake);
  }
}

/* Collective K at analytic granularity: its members start together (a
 * barrier, as an NCCL collective waits for every rank) and each waits the
 * time of the slowest participant. Computed once per plan: for a plan whose
 * members all run lock-step phases, member 0 stands for them.
 *
 * Collectives in flight at once on one rank (several streams) share it:
 * each progresses through its time alone at a rate that gives it, with n
 * in flight, lat + n bw seconds for what alone takes lat + bw (latency
 * part lat, the rest bw), recomputed whenever one starts or ends (the
 * others are woken through their semaphore). Alone, that is a wait of
 * the time alone. */
static void
run_analytic (Sim *sim, Stream *s, int k, int part)
{
  const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, k);
  Comm *c = &sim->comms[sim->sched->plan_comm[k]];
  if (!(sim->analytic_s[k] >= 0)) {
    gboolean uniform = plan_uniform (plan);
    double t = 0, t_lat = 0;
    /* Parameter servers' steps of one index do not run at once (each
     * worker pushes when it is ready): no slots, each participant on its
     * own routes. */
    GHashTable *loads = uniform || plan->n_parts > plan->n_ranks
                            ? NULL
                            : an_plan_loads_new (sim, s, k);
    /* A plan whose steps are not slots (a pipeline: the chain, the trees;
     * the fold's extra ranks): its ranks start slots apart, so its time is
     * the sum of its slots, each as long as its longest step, not one
     * participant's steps in a row, which would miss the pipeline's fill. */
    g_autoptr (GArray) slots = loads != NULL && plan->alg != NULL && plan->alg->step_slot != NULL
                                   ? g_array_new (FALSE, TRUE, sizeof (AnSlot))
                                   : NULL;
    for (int p = 0; p < (uniform ? MIN (plan->n_parts, 1) : plan->n_parts); p++) {
      double l = 0, v = analytic_part_s (sim, s, k, p, uniform, loads, slots, &l);
      if (v > t) {
        t = v;
        t_lat = l;
      }
    }
    if (slots != NULL) {
      t = t_lat = 0;
      for (guint i = 0; i < slots->len; i++) {
        t += g_array_index (slots, AnSlot, i).s;
        t_lat += g_array_index (slots, AnSlot, i).lat_s;
      }
    }
    if (loads != NULL)
      g_hash_table_unref (loads);
    sim->analytic_s[k] = t;
    sim->analytic_lat_s[k] = MIN (t_lat, t);
  }
  if (part < c->comm->n_ranks)
    sg_barrier_wait (c->barrier);
  if (!(sim->analytic_s[k] > 0))
    return;
  Rank *rk = s->rank;
  if (rk->flights == NULL)
    rk->flights = g_ptr_array_new ();
  Flight me = { k, sim->analytic_s[k], sim->analytic_s[k] - sim->analytic_lat_s[k],
                sg_sem_init (0) };
  flights_update (rk);
  g_ptr_array_add (rk->flights, &me);
  flights_wake (rk, &me);
  for (;;) {
    double wait = flight_wait_s (rk, &me);
    sim->trace->events += rk->weight;
    if (!(wait > 0) || sg_sem_acquire_timeout (me.wake, wait) != 0)
      break;
    /* woken: another collective of the rank started or ended */
  }
  flights_update (rk);
  g_ptr_array_remove (rk->flights, &me);
  flights_wake (rk, &me);
  sg_sem_destroy (me.wake);
}

/* Participant PART's part of collective K. */
static void
run_coll (Sim *sim, Stream *s, int k, int part, int bucket)
{
  const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, k);
  Comm *c = &sim->comms[sim->sched->plan_comm[k]];
  int n_steps = dts_coll_plan_n_steps (plan, part);
  if (s->xfers == NULL) {
    s->xfers = g_array_new (FALSE, TRUE, sizeof (DtsCollXfer));
    s->prepared = g_array_new (FALSE, TRUE, sizeof (Prepared));
  }
  /* --coll-overhead and the protocol's base latency (--collective nccl):
   * the call's fixed cost, before its first transfer. */
  if (sim->set->coll_overhead_s + plan->fixed_s > 0) {
    sg_actor_sleep_for (sim->set->coll_overhead_s + plan->fixed_s);
    sim->trace->events += s->rank->weight;
  }
  if (sim->set->granularity == DTS_GRANULARITY_ANALYTIC) {
    run_analytic (sim, s, k, part);
    return;
  }
  int step = 0;
  while (step < n_steps) {
    const DtsCollPhase *ph = NULL;
    for (int i = 0; i < plan->n_phases && sim->set->granularity == DTS_GRANULARITY_FLOW; i++)
      if (plan->phases[i].lockstep && plan->phases[i].first_step == step
          && plan->phases[i].n_steps > 0)
        ph = &plan->phases[i];
    if (ph != NULL) {
      run_flow_phase (sim, s, c, k, part, ph, bucket);
      step += ph->n_steps;
    } else {
      run_step (sim, s, c, plan, part, step, bucket);
      step++;
    }
  }
}

static void
add_slice (DtsTrace *t, int rank, int it, DtsTrack track, int phase, int index, double t0,
           double t1, double bytes)
{
  if (t->slices == NULL)
    return;
  DtsTraceSlice s = { .rank = rank, .iteration = it, .track = track, .phase = phase,
                      .index = index, .t_start_s = t0, .t_end_s = t1, .bytes = bytes };
  g_array_append_val (t->slices, s);
}

static void
progress (Sim *sim, int it, int bucket, gboolean force)
{
  if (!sim->set->progress)
    return;
  gint64 t = g_get_monotonic_time ();
  if (sim->set->progress == DTS_PROGRESS_LINES) {
    /* One line at the end of each of rank 0's iterations. */
    if (bucket < 0)
      fprintf (stderr, "dtsim: iteration %d/%d simulated (%d GPUs, at %.6f s simulated, %.1f s "
                       "wall)\n",
               it + 1, sim->trace->n_iterations, sim->n, now (),
               (t - sim->wall_start_us) / 1e6);
    return;
  }
  if (!force && t - sim->last_progress_us < 100000)
    return;
  sim->last_progress_us = t;
  int nb = sim->trace->n_buckets;
  fprintf (stderr, "\rdtsim: simulating iteration %d/%d", it + 1, sim->trace->n_iterations);
  if (bucket >= 0 && nb > 0)
    fprintf (stderr, ", bucket %d/%d", bucket + 1, nb);
  fprintf (stderr, " (%d GPUs, %.1f s)   ", sim->n, (t - sim->wall_start_us) / 1e6);
  fflush (stderr);
}

/* The mailbox of RANK's point-to-point receives with TAG, made on first
 * use (found without formatting its name: a server's receiver looks it up
 * once per message). */
static sg_mailbox_t
p2p_mailbox (Sim *sim, int rank, int tag)
{
  guint64 key = ((guint64) (guint32) rank << 32) | (guint32) tag;
  sg_mailbox_t mb = g_hash_table_lookup (sim->p2p, &key);
  if (mb == NULL) {
    g_autofree char *name = g_strdup_printf ("dtsim-p2p-%d-%d", rank, tag);
    mb = sg_mailbox_by_name (name);
    guint64 *stored = g_new (guint64, 1);
    *stored = key;
    g_hash_table_insert (sim->p2p, stored, mb);
  }
  return mb;
}

/* The mailbox of the gradients worker FROM sends to server SV, made on
 * first use. Each worker has its own, and the server takes them in the
 * order they were sent (Server.pending): one mailbox for all would give
 * the same order, but SimGrid matches a send by scanning the mailbox's
 * queue, which holds a message of every worker waiting its turn. */
static sg_mailbox_t
server_lane (Sim *sim, Server *sv, int from)
{
  g_return_val_if_fail (from >= 0 && from < sv->apply->senders, NULL);
  if (sv->lane[from] == NULL) {
    g_autofree char *name = g_strdup_printf ("dtsim-p2p-%d-%d-from-%d", sv->rank, sv->apply->tag,
                                             from);
    sv->lane[from] = sg_mailbox_by_name (name);
  }
  return sv->lane[from];
}

/* Send MSG on MB and wait for it, or (DETACH) go on and leave it to the
 * end of the iteration. (SimGrid's own detached communications cost time
 * in proportion to how many are in flight: 16k of them at 1024 workers.) */
static void
post (Stream *s, sg_mailbox_t mb, SimMsg *msg, double bytes, gboolean detach)
{
  sg_comm_t comm = sg_mailbox_put_async (mb, msg, whole_bytes (bytes));
  if (!detach) {
    sg_comm_wait (comm);
    return;
  }
  if (s->posted == NULL)
    s->posted = g_array_new (FALSE, FALSE, sizeof (sg_comm_t));
  g_array_append_val (s->posted, comm);
}

/* A gradient of clock C is admissible under SV's bound (schedule.h). */
static gboolean
admissible (const Server *sv, const SimMsg *m)
{
  return sv->apply->bound < 0 || sv->min_delivered >= m->clock - sv->apply->bound + 1;
}

/* The receiver of a server: takes the gradients for its tag one at a
 * time, in the order they were sent, each at the full bandwidth of its
 * route (a server's network interface serves one message at a time in
 * each direction: the bytes per second of fair sharing, with messages
 * completing in turn rather than together, and few concurrent flows for
 * SimGrid's solver, whose cost grows with the flows sharing a link).
 * With --ps-concurrency K the server has K receivers (and K senders): K
 * messages at once in each direction, sharing the routes' bandwidth. */
static void
server_receiver (int argc, char **argv)
{
  Stream *s = sg_actor_self_get_data ();
  Server *sv = s->server;
  /* Each of the server's receivers claims a receive before it waits, so
   * that together they post exactly `total` of them. */
  while (sv->recv_claimed < sv->total) {
    sv->recv_claimed++;
    sg_sem_acquire (sv->sent);
    int from = GPOINTER_TO_INT (g_queue_pop_head (&sv->pending));
    SimMsg *m = sg_mailbox_get (server_lane (s->sim, sv, from));
    if (sv->apply->overhead_s > 0) {
      sg_actor_sleep_for (sv->apply->overhead_s);
      s->sim->trace->events++;
    }
    m->arrived_s = now ();
    g_queue_push_tail (&sv->inbox, m);
    g_return_if_fail (m->sender >= 0 && m->sender < sv->apply->senders);
    if (sv->delivered[m->sender]++ == sv->min_delivered && --sv->n_at_min == 0) {
      sv->min_delivered++;
      for (int j = 0; j < sv->apply->senders; j++)
        sv->n_at_min += sv->delivered[j] == sv->min_delivered;
    }
    sg_sem_release (sv->arrived);
  }
}

/* Take the gradients OP's policy applies next, waiting for arrivals. */
static void
take_gradients (Server *sv, const DtsOp *op, GPtrArray *out)
{
  for (;;) {
    int n_ok = 0;
    for (GList *l = sv->inbox.head; l; l = l->next)
      n_ok += admissible (sv, l->data);
    int want = op->policy == DTS_APPLY_EACH ? 1 : op->policy == DTS_APPLY_ALL ? op->count : n_ok;
    if (n_ok >= want && want > 0) {
      for (GList *l = sv->inbox.head; l && (int) out->len < want;) {
        GList *next = l->next;
        if (admissible (sv, l->data)) {
          g_ptr_array_add (out, l->data);
          g_queue_delete_link (&sv->inbox, l);
        }
        l = next;
      }
      return;
    }
    sg_sem_acquire (sv->arrived);
  }
}

/* APPLY: one update of a parameter-server shard (schedule.h). */
static void
apply (Sim *sim, Stream *s, const DtsOp *op)
{
  Server *sv = s->server;
  g_autoptr (GPtrArray) got = g_ptr_array_new_with_free_func (g_free);
  take_gradients (sv, op, got);
  double t0 = now ();
  DtsTraceUpdate u = { .shard = op->shard, .n_gradients = got->len, .min_clock = G_MAXINT,
                       .t_start_s = t0 };
  g_array_set_size (s->reply_to, 0);
  for (guint i = 0; i < got->len; i++) {
    const SimMsg *m = g_ptr_array_index (got, i);
    u.samples += m->samples;
    u.min_clock = MIN (u.min_clock, m->clock);
    DtsTraceGradient g = { .shard = op->shard, .worker = m->sender, .clock = m->clock,
                           .staleness = sv->version - m->version, .arrived_s = m->arrived_s,
                           .applied_s = t0 };
    g_array_append_val (sim->trace->ps_gradients, g);
    if (!m->replied)
      g_array_append_val (s->reply_to, m->sender);
  }
  execute_s (sim, s->rank, op->duration_s + (got->len - 1) * op->extra_s);
  /* Under merge the new weights also go to the senders of admissible
   * gradients still waiting: a pull waits for weights newer than the
   * worker's own, not for its gradient (schedule.h). */
  for (GList *l = op->policy == DTS_APPLY_MERGE ? sv->inbox.head : NULL; l; l = l->next) {
    SimMsg *m = l->data;
    if (!m->replied && admissible (sv, m)) {
      m->replied = TRUE;
      g_array_append_val (s->reply_to, m->sender);
    }
  }
  u.t_end_s = now ();
  g_array_append_val (sim->trace->ps_updates, u);
  sim->trace->ps_busy_s[op->shard] += u.t_end_s - t0;
  sv->version++;
  sv->taken += got->len;
}

/* SEND to DTS_PEER_REPLY: the new weights to every sender of the last
 * APPLY, queued for the server's sender actor. */
static void
send_replies (Sim *sim, Stream *s, const DtsOp *op)
{
  Server *sv = s->server;
  g_return_if_fail (sv != NULL && op->detach);
  sv->reply_bytes = op->bytes;
  sv->reply_tag = op->tag;
  for (guint i = 0; i < s->reply_to->len; i++) {
    SimMsg *msg = g_new0 (SimMsg, 1);
    *msg = (SimMsg){ .sender = s->rank->rank, .clock = g_array_index (s->reply_to, int, i),
                     .version = sv->version, .sent_s = now () };
    g_queue_push_tail (&sv->outbox, msg);
    sg_sem_release (sv->to_send);
    sim->trace->events++;
  }
}

/* A sender of a server: the replies one at a time, in order (K senders:
 * K at once; see server_receiver). Every gradient is answered once. */
static void
server_sender (int argc, char **argv)
{
  Stream *s = sg_actor_self_get_data ();
  Server *sv = s->server;
  while (sv->send_claimed < sv->total) {
    sv->send_claimed++;
    sg_sem_acquire (sv->to_send);
    SimMsg *msg = g_queue_pop_head (&sv->outbox);
    int to = msg->clock;
    msg->clock = -1;
    if (sv->apply->overhead_s > 0) {
      sg_actor_sleep_for (sv->apply->overhead_s);
      s->sim->trace->events++;
    }
    sg_mailbox_put (p2p_mailbox (s->sim, to, sv->reply_tag), msg, whole_bytes (sv->reply_bytes));
  }
}

static void
stream_actor (int argc, char **argv)
{
  Stream *s = sg_actor_self_get_data ();
  Sim *sim = s->sim;
  Rank *rk = s->rank;
  DtsTrace *t = sim->trace;
  gboolean compute = s->stream->kind == DTS_STREAM_COMPUTE;
  gboolean first_comm = s->stream->kind == DTS_STREAM_COMM && s->stream->index == 0;
  Server *sv = s->server;
  for (int it = 0; sv != NULL ? sv->taken < sv->total : it < t->n_iterations; it++) {
    gsize ri = dts_trace_ri (t, rk->rank, MIN (it, t->n_iterations - 1));
    if (compute)
      t->iter_start_s[ri] = now ();
    for (guint i = 0; i < s->ops->len; i++) {
      const SimOp *so = &g_array_index (s->ops, SimOp, i);
      const DtsOp *op = &so->op;
      double t0 = now ();
      switch (op->type) {
      case DTS_OP_COMPUTE:
        execute_s (sim, rk, op->duration_s * jitter (sim));
        for (int p = 0; p < DTS_PHASE_COUNT; p++)
          t->phase_s[ri * DTS_TRACE_N_PHASES + p] += (now () - t0) * so->share[p];
        add_slice (t, rk->rank, it, DTS_TRACK_COMPUTE, op->phase, op->layer, t0, now (), 0);
        break;
      case DTS_OP_RECORD:
        if (op->bucket >= 0 && rk->rank == t->bucket_rank[op->bucket])
          t->bucket_ready_s[(gsize) it * t->n_buckets + op->bucket] = t0;
        if (s->flow_start_s >= 0) {
          rk->arrived_s[op->event] = s->flow_start_s;
          s->flow_start_s = -1;
        }
        sg_sem_release (rk->events[op->event]);
        break;
      case DTS_OP_WAIT:
        for (int k = 0; k < op->count; k++)
          sg_sem_acquire (rk->events[op->event]);
        if (!compute)
          break;
        if (op->wait == DTS_WAIT_P2P) {
          /* Waiting while the data flows is exposed transfer time; before
           * that, the neighbour had not produced it (bubble). */
          double t1 = now ();
          t->p2p_wait_s[ri] += t1 - t0;
          if (t1 > t0)
            t->p2p_xfer_s[ri] += t1 - MAX (t0, MIN (t1, rk->arrived_s[op->event]));
        } else
          t->wait_s[ri] += now () - t0;
        break;
      case DTS_OP_COLL: {
        const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, op->coll);
        const Comm *c = &sim->comms[sim->sched->plan_comm[op->coll]];
        int part = op->part >= 0 ? op->part : c->comm->member_of[rk->rank];
        run_coll (sim, s, op->coll, part, op->bucket);
        double t1 = now ();
        if (compute)
          t->tp_s[ri] += t1 - t0;
        if (op->bucket < 0) {
          /* the distributed optimizer's parameter all-gathers */
          if (s->stream->kind == DTS_STREAM_COMM)
            t->comm_s[ri] += t1 - t0;
          break;
        }
        t->comm_s[ri] += t1 - t0;
        add_slice (t, rk->rank, it, DTS_TRACK_COMM, -1, op->bucket, t0, t1, plan->bytes);
        gsize ib = (gsize) it * t->n_buckets + op->bucket;
        t->bucket_end_max_s[ib] = MAX (t->bucket_end_max_s[ib], t1);
        if (rk->rank == t->bucket_rank[op->bucket]) {
          t->bucket_start_s[ib] = t0;
          t->bucket_end_s[ib] = t1;
          if (first_comm)
            progress (sim, it, op->bucket, FALSE);
        }
        break;
      }
      case DTS_OP_SEND:
        if (op->peer == DTS_PEER_REPLY) {
          send_replies (sim, s, op);
          break;
        }
        /* The payload tells the receiver when the sender was ready. */
        sim->trace->events++;
        count_link_bytes (sim, rk, &sim->ranks[op->peer], (double) whole_bytes (op->bytes));
        SimMsg *msg = g_new0 (SimMsg, 1);
        *msg = (SimMsg){ .sender = rk->rank, .clock = it, .samples = op->samples,
                         .version = s->peer_version ? s->peer_version[op->peer] : 0,
                         .sent_s = t0 };
        guint64 key = ((guint64) (guint32) op->peer << 32) | (guint32) op->tag;
        Server *to = g_hash_table_lookup (sim->servers, &key);
        if (to != NULL) {
          g_queue_push_tail (&to->pending, GINT_TO_POINTER (rk->rank));
          sg_sem_release (to->sent);
          post (s, server_lane (sim, to, rk->rank), msg, op->bytes, op->detach);
        } else
          post (s, p2p_mailbox (sim, op->peer, op->tag), msg, op->bytes, op->detach);
        break;
      case DTS_OP_RECV: {
        void *slot = NULL;
        sg_comm_wait (sg_mailbox_get_async (p2p_mailbox (sim, rk->rank, op->tag), &slot));
        SimMsg *got = slot;
        s->flow_start_s = MAX (s->flow_start_s, MAX (t0, got->sent_s));
        if (s->peer_version == NULL)
          s->peer_version = g_new0 (gint64, sim->n);
        s->peer_version[got->sender] = got->version;
        g_free (got);
        if (compute)
          t->p2p_wait_s[ri] += now () - t0;
        if (compute && op->peer == DTS_PEER_ANY)
          add_slice (t, rk->rank, it, DTS_TRACK_PULL, -1, -1, t0, now (), op->bytes);
        break;
      }
      case DTS_OP_APPLY:
        apply (sim, s, op);
        break;
      case DTS_OP_BARRIER:
        sg_barrier_wait (sim->comms[op->comm].barrier);
        break;
      case DTS_OP_TYPE_COUNT:
        g_assert_not_reached ();
      }
    }
    if (s->posted != NULL && s->posted->len > 0) {
      sg_comm_wait_all ((sg_comm_t *) s->posted->data, s->posted->len);
      g_array_set_size (s->posted, 0);
    }
    if (compute) {
      t->iter_end_s[ri] = now ();
      if (rk->rank == 0)
        progress (sim, it, -1, FALSE);
    }
  }
  sim->finished++;
}

static GArray *
compile_program (const GArray *program, gboolean merge)
{
  GArray *ops = g_array_new (FALSE, TRUE, sizeof (SimOp));
  for (guint i = 0; i < program->len; i++) {
    const DtsOp *op = &g_array_index (program, DtsOp, i);
    SimOp *last = ops->len ? &g_array_index (ops, SimOp, ops->len - 1) : NULL;
    if (merge && op->type == DTS_OP_COMPUTE && last && last->op.type == DTS_OP_COMPUTE
        && dts_phase_same_pass (last->op.phase, op->phase)) {
      last->share[op->phase] += op->duration_s;
      last->op.duration_s += op->duration_s;
      continue;
    }
    SimOp so = { .op = *op };
    if (op->type == DTS_OP_COMPUTE)
      so.share[op->phase] = op->duration_s;
    g_array_append_val (ops, so);
  }
  /* Seconds to fractions. */
  for (guint i = 0; i < ops->len; i++) {
    SimOp *so = &g_array_index (ops, SimOp, i);
    for (int p = 0; p < DTS_PHASE_COUNT && so->op.type == DTS_OP_COMPUTE; p++)
      so->share[p] /= so->op.duration_s;
  }
  return ops;
}

/* FATPIPE links that cannot limit any flow of the run become SHARED links
 * of practically infinite bandwidth before the simulation starts.
 *
 * Why: SimGrid 3.32's max-min solver, each time it fixes the rate of a
 * flow, rescans every flow of each FATPIPE link the flow crosses, so a
 * rate change costs O(F^2) for F flows through one FATPIPE link (a
 * cluster backbone): at 16,384 GPUs that was 85% of the run. A SHARED link
 * costs O(1) per flow.
 *
 * Why the simulated times stay the same, to the bit: a FATPIPE link of
 * bandwidth B bounds each of its flows by B alone. If every flow of the run
 * that crosses it also crosses a SHARED link of bandwidth < B (a GPU's own
 * link, for a cluster backbone), then at every step of the solver the
 * unfixed flow j with the smallest penalty p_j has a SHARED link whose
 * level is at most b p_j < B p_j, the FATPIPE link's level, so the FATPIPE
 * link is never the bottleneck and never changes another constraint (the
 * solver updates only the constraints of the bottleneck's flows). The
 * same holds for a SHARED link of 1e290 B/s; the constraint keeps its place
 * in the solver's tables and leaves them with its last flow in both cases,
 * so the order of the floating-point operations is unchanged too, and the
 * link keeps its latency. Flow bounds (min bandwidth along the route) do
 * not change since the link was not the minimum. The argument needs every
 * flow to weigh 1 on each link it crosses (no cross-traffic), penalties
 * that do not depend on bandwidths (weight-S 0) and the max-min solver:
 * dts_sg_network_is_plain_maxmin; host/model set by the user may swap the
 * network model, so then nothing is changed either. The flows of a run
 * are known: the routes every plan enumerates (dts_coll_plan_routes), for
 * each distinct set of peers once; beyond RELAX_MAX_ROUTES routes nothing
 * is changed. */
static gboolean
user_set_host_model (void)
{
  for (char **c = dts_sim_cfg_applied (); c && *c; c++)
    if (g_str_has_prefix (*c, "host/model:"))
      return TRUE;
  return FALSE;
}

#define RELAX_MAX_ROUTES (1 << 20)

typedef struct {
  Sim *sim;
  const Comm *c;
  const DtsCollPlan *plan;
  GHashTable *state;           /* sg_link_t -> 1 can be relaxed, 2 must stay */
  GPtrArray *order;            /* FATPIPE links in the order first met */
  xbt_dynar_t links;
  double n_routes;
} Relax;

static gboolean
count_route (int from, int to, const char *why, gpointer data)
{
  Relax *rx = data;
  return ++rx->n_routes <= RELAX_MAX_ROUTES;
}

static gboolean
relax_route (int from_part, int to_part, const char *why, gpointer data)
{
  Relax *rx = data;
  sg_host_t from = part_rank (rx->sim, rx->c, rx->plan, from_part)->host;
  sg_host_t to = part_rank (rx->sim, rx->c, rx->plan, to_part)->host;
  if (from == to)
    return TRUE;
  xbt_dynar_reset (rx->links);
  sg_host_get_route (from, to, rx->links);
  double shared_min_Bps = INFINITY;
  unsigned int cursor;
  sg_link_t link;
  xbt_dynar_foreach (rx->links, cursor, link)
    if (dts_sg_link_policy (link) == DTS_SG_LINK_SHARED)
      shared_min_Bps = MIN (shared_min_Bps, sg_link_get_bandwidth (link));
  xbt_dynar_foreach (rx->links, cursor, link) {
    if (dts_sg_link_policy (link) != DTS_SG_LINK_FATPIPE)
      continue;
    int state = GPOINTER_TO_INT (g_hash_table_lookup (rx->state, link));
    if (state == 0)
      g_ptr_array_add (rx->order, link);
    gboolean limits = !(sg_link_get_bandwidth (link) > shared_min_Bps);
    if (state != 2)
      g_hash_table_insert (rx->state, link, GINT_TO_POINTER (limits ? 2 : 1));
  }
  return TRUE;
}

/* Whether plan K joins the same pairs as an earlier plan of the schedule. */
static gboolean
seen_peers (const DtsSchedule *sc, guint k)
{
  for (guint q = 0; q < k; q++)
    if (dts_schedule_same_peers (sc, q, k))
      return TRUE;
  return FALSE;
}

static void
relax_fatpipes (Sim *sim)
{
  const DtsSchedule *sc = sim->sched;
  if (sc->plans->len == 0 || !dts_sg_network_is_plain_maxmin () || user_set_host_model ())
    return;
  /* Point-to-point transfers (pipelines, parameter servers) are flows the
   * plans do not enumerate: a link one of them is limited by must stay, so
   * such runs keep every FATPIPE link as it is. */
  for (guint p = 0; p < sc->programs->len; p++) {
    const GArray *prog = g_ptr_array_index (sc->programs, p);
    for (guint i = 0; i < prog->len; i++)
      if (g_array_index (prog, DtsOp, i).type == DTS_OP_SEND)
        return;
  }
  Relax rx = { .sim = sim };
  for (guint k = 0; k < sc->plans->len; k++)
    if (!seen_peers (sc, k)) {
      rx.plan = g_ptr_array_index (sc->plans, k);
      if (!dts_coll_plan_routes (rx.plan, count_route, &rx))
        return;
    }
  rx.state = g_hash_table_new (NULL, NULL);
  rx.order = g_ptr_array_new ();
  rx.links = xbt_dynar_new (sizeof (sg_link_t), NULL);
  for (guint k = 0; k < sc->plans->len; k++)
    if (!seen_peers (sc, k)) {
      rx.plan = g_ptr_array_index (sc->plans, k);
      rx.c = &sim->comms[sc->plan_comm[k]];
      dts_coll_plan_routes (rx.plan, relax_route, &rx);
    }
  for (guint i = 0; i < rx.order->len; i++) {
    sg_link_t link = g_ptr_array_index (rx.order, i);
    if (GPOINTER_TO_INT (g_hash_table_lookup (rx.state, link)) == 1)
      dts_sg_link_unlimit (link);
  }
  xbt_dynar_free (&rx.links);
  g_ptr_array_unref (rx.order);
  g_hash_table_unref (rx.state);
}

gboolean
dts_sim_rank_host (const DtsPlatform *platform, int rank, const char *speed_use,
                   sg_host_t *host, double *speed_flops, double *reduce_s_per_byte,
                   GError **error)
{
  const DtsGpu *gpu = dts_platform_gpu (platform, rank);
  *host = dts_sim_host_by_name (gpu->host);
  if (*host == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "platform '%s': line %d: SimGrid has no host '%s' for rank %d", platform->path,
                 gpu->line, gpu->host, rank);
    return FALSE;
  }
  *speed_flops = sg_host_get_speed (*host);
  if (!(*speed_flops > 0)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "platform '%s': line %d: host '%s' has speed 0 (expected a positive speed; "
                 "dtsim %s)",
                 platform->path, gpu->line, gpu->host, speed_use);
    return FALSE;
  }
  if (!(gpu->spec.mem_bw_Bps > 0)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "platform '%s': line %d: GPU '%s' has no memory bandwidth "
                 "(needed for the reduction kernel)",
                 platform->path, gpu->line, gpu->host);
    return FALSE;
  }
  *reduce_s_per_byte = DTS_SIM_REDUCE_BYTES_PER_BYTE / gpu->spec.mem_bw_Bps;
  return TRUE;
}

/* A rank on a CPU host (a parameter server of --ps-placement cpus): its
 * host and speed; it runs no collective, so no reduction kernel. */
static gboolean
cpu_rank_host (const DtsPlatform *platform, const DtsCpu *cpu, int rank, const char *speed_use,
               Rank *rk, GError **error)
{
  rk->host = dts_sim_host_by_name (cpu->host);
  if (rk->host == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "platform '%s': line %d: SimGrid has no host '%s' for rank %d", platform->path,
                 cpu->line, cpu->host, rank);
    return FALSE;
  }
  rk->speed_flops = sg_host_get_speed (rk->host);
  if (!(rk->speed_flops > 0)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "platform '%s': line %d: host '%s' has speed 0 (expected a positive speed; "
                 "dtsim %s)",
                 platform->path, cpu->line, cpu->host, speed_use);
    return FALSE;
  }
  rk->reduce_s_per_byte = 0;
  return TRUE;
}

static gboolean
set_up (Sim *sim, const DtsPlatform *platform, GError **error)
{
  const DtsSchedule *sc = sim->sched;
  for (int r = 0; r < sim->n; r++) {
    Rank *rk = &sim->ranks[r];
    rk->rank = r;
    rk->weight = 1;
    if (sc->rank_cpu != NULL && sc->rank_cpu[r] >= 0) {
      if (!cpu_rank_host (platform, &g_array_index (platform->cpus, DtsCpu, sc->rank_cpu[r]), r,
                          sim->set->speed_use, rk, error))
        return FALSE;
    } else if (!dts_sim_rank_host (platform, r, sim->set->speed_use, &rk->host,
                                   &rk->speed_flops, &rk->reduce_s_per_byte, error))
      return FALSE;
  }
  for (guint c = 0; c < sc->comms->len; c++) {
    Comm *cm = &sim->comms[c];
    cm->comm = g_ptr_array_index (sc->comms, c);
    cm->n_parts = cm->comm->n_ranks;
    cm->n_tags = DTS_COLL_N_TAGS;
    for (guint k = 0; k < sc->plans->len; k++)
      if (sc->plan_comm[k] == (int) c) {
        const DtsCollPlan *plan = g_ptr_array_index (sc->plans, k);
        cm->n_parts = MAX (cm->n_parts, plan->n_parts);
        cm->n_tags = MAX (cm->n_tags, dts_coll_plan_n_tags (plan));
      }
    cm->index = c;
    cm->mailbox = g_new0 (sg_mailbox_t, (gsize) cm->n_parts * cm->n_tags);
    /* analytic: no transfers, no mailboxes */
    for (int p = 0; p < cm->n_parts && sim->set->granularity != DTS_GRANULARITY_ANALYTIC; p++)
      for (int tag = 0; tag < cm->n_tags; tag++) {
        char name[64];
        g_snprintf (name, sizeof name, "c%u.%d.%d", c, p, tag);
        cm->mailbox[p * cm->n_tags + tag] = sg_mailbox_by_name (name);
      }
    cm->local = g_new0 (sg_sem_t, cm->n_parts);
  }
  return TRUE;
}


/* Folding a run: ranks that behave identically run as one. Flow
 * granularity adds its own conditions (fold_flow_routes, above).
 *
 * At analytic granularity a collective is a barrier of its communicator
 * and a sleep whose length is the plan's (the same for every member), so a
 * rank's iteration depends on the others only through the barriers'
 * release times. Two ranks with the same program on every stream, on hosts
 * of the same speed, cores and reduction rate, each alone on its host, run
 * every operation at the same simulated times, provided nothing else tells
 * them apart: no point-to-point message, server, compute jitter, host
 * speed override or speed/availability/state profile, and no communicator
 * that two streams of one rank use (each rank then has at most one arrival
 * pending at a barrier, so barrier generations cannot mix ranks' k-th and
 * (k+1)-th arrivals). Such ranks form a class; the lowest rank of each
 * class runs (its actors only), stands for WEIGHT ranks in the event count
 * and in the barriers (a communicator's barrier counts the classes among
 * its members, each wholly inside it or the run is not folded), and its
 * per-rank figures are copied to the others after the run. Slices, step
 * records and link statistics are per rank and disable folding; so does
 * DTSIM_FOLD=0 in the environment (every rank an actor pair: the
 * reference the folded run is tested against). */
static gboolean
host_overridden (const Sim *sim, const char *host)
{
  for (guint i = 0; sim->set->overrides && i < sim->set->overrides->len; i++) {
    const DtsOverride *o = &g_array_index (sim->set->overrides, DtsOverride, i);
    if (o->target == DTS_OVERRIDE_HOST && g_pattern_match_simple (o->glob, host))
      return TRUE;
  }
  return FALSE;
}

static gboolean
platform_has_profiles (const char *path)
{
  /* the loaders' copy: a FIFO or a pipe cannot be read again */
  g_autoptr (GBytes) bytes = path != NULL ? dts_input_read (path, "platform", NULL) : NULL;
  if (bytes == NULL)
    return TRUE;
  gsize n;
  const char *text = g_bytes_get_data (bytes, &n);
  static const char *const marks[] = { "speed_file", "availability_file", "state_file",
                                       "<include", NULL };
  for (int i = 0; marks[i] != NULL; i++)
    if (g_strstr_len (text, (gssize) n, marks[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* Unlimited links (relax_fatpipes) and FATPIPE links never make two flows
 * share a bandwidth. */
static gboolean
link_limits_sharing (const AnRoutes *an, int idx)
{
  return g_array_index (an->shared, gboolean, idx) && g_array_index (an->bw_Bps, double, idx) < 1e200;
}

/* Append the bits of V to a class key, as hex (g_string_append_printf's
 * "%a" was a fifth of a 65,536-rank flow run). */
static void
key_add_double (GString *key, double v)
{
  static const char hex[] = "0123456789abcdef";
  guint64 bits;
  memcpy (&bits, &v, sizeof bits);
  char buf[17];
  for (int i = 15; i >= 0; i--, bits >>= 4)
    buf[i] = hex[bits & 15];
  buf[16] = '/';
  g_string_append_len (key, buf, sizeof buf);
}

/* Folded flow runs. At flow granularity a lock-step phase is a sleep (the
 * plan's latency less the participant's own hops), one flow per transfer
 * and channel, and the communicator's barrier. Ranks with the same
 * programs and hosts start every phase at the same time (the barriers'
 * release, or the same point of the same compute). If every link that
 * shares its bandwidth and is crossed by flows of two or more pairs of
 * ranks that can be in flight together has at least the sum of those
 * pairs' route bandwidths (the most each pair's flows can take: the
 * smallest bandwidth on its route), no such link ever limits a flow under
 * max-min sharing, and every pair's flows run at their route's rate as if
 * alone (multi-rail rings between nodes whose rails a full fat-tree
 * carries: eight pairs on a leaf's uplink of 32 cables); so two ranks
 * whose transfers have the same bytes, the same
 * route bandwidth and latency and the same sleeps at both ends finish
 * each phase at the same time: they can be one class. This appends to
 * KEY[r] what tells rank r's transfers apart, fills sim->fold_extra, and
 * returns FALSE when the run cannot fold: a plan that is not lock-step in
 * every phase, ranks that differ in programs or hosts (KEY not all equal),
 * a network other than plain max-min, or pairs that a shared link could
 * limit. Flows
 * can be in flight together within one phase of one plan when every rank
 * has one communication stream and one communicator carries every plan
 * (the barriers close each phase before the next starts), and across the
 * whole run otherwise. */
static gboolean
fold_flow_routes (Sim *sim, GString **key)
{
  const DtsSchedule *sc = sim->sched;
  for (int r = 1; r < sim->n; r++)
    if (strcmp (key[r]->str, key[0]->str) != 0)
      return FALSE;
  if (!dts_sg_network_is_plain_maxmin () || user_set_host_model ())
    return FALSE;
  g_autofree int *comm_streams = g_new0 (int, sim->n);
  gboolean per_phase = TRUE;
  for (guint i = 0; i < sc->streams->len; i++) {
    const DtsStream *st = &g_array_index (sc->streams, DtsStream, i);
    if (st->kind == DTS_STREAM_COMM && ++comm_streams[st->rank] > 1)
      per_phase = FALSE;
  }
  for (guint k = 1; k < sc->plans->len; k++)
    if (sc->plan_comm[k] != sc->plan_comm[0])
      per_phase = FALSE;
  AnRoutes *an = &sim->an;
  g_autoptr (GArray) owner = g_array_new (FALSE, TRUE, sizeof (guint64));
  g_autoptr (GArray) group = g_array_new (FALSE, TRUE, sizeof (int));
  g_autoptr (GArray) demand = g_array_new (FALSE, TRUE, sizeof (double));
  int n_groups = 0;
  g_autoptr (GArray) xfers = g_array_new (FALSE, TRUE, sizeof (DtsCollXfer));
  DtsCollStepOps ops = { .xfers = xfers };
  sim->fold_extra = g_new0 (double *, MAX (sc->plans->len, 1));
  for (guint k = 0; k < sc->plans->len; k++) {
    const DtsCollPlan *plan = g_ptr_array_index (sc->plans, k);
    const Comm *c = &sim->comms[sc->plan_comm[k]];
    if (plan->n_parts != plan->n_ranks || plan->n_servers > 0)
      return FALSE;
    /* every participant's steps are lock-step phases, run as flow phases */
    for (int part = 0; part < plan->n_parts; part++) {
      int n_steps = dts_coll_plan_n_steps (plan, part), step = 0;
      while (step < n_steps) {
        int i = 0;
        while (i < plan->n_phases
               && !(plan->phases[i].lockstep && plan->phases[i].first_step == step
                    && plan->phases[i].n_steps > 0))
          i++;
        if (i == plan->n_phases)
          return FALSE;
        step += plan->phases[i].n_steps;
      }
    }
    const PlanLatency *lat = plan_latency (sim, k);
    double *extra = sim->fold_extra[k] = g_new (double, (gsize) plan->n_phases * plan->n_parts);
    for (int i = 0; i < plan->n_phases; i++) {
      const DtsCollPhase *ph = &plan->phases[i];
      for (int part = 0; part < plan->n_parts; part++) {
        extra[i * plan->n_parts + part] = 0;
        if (!ph->lockstep || ph->n_steps == 0 || ph->first_step >= dts_coll_plan_n_steps (plan, part))
          continue;
        dts_coll_plan_step_ops (plan, part, ph->first_step, &ops);
        extra[i * plan->n_parts + part] = (ph->n_steps * ops.n_rounds - 1) * lat->phase_max_s[i];
      }
    }
    for (int i = 0; i < plan->n_phases; i++) {
      const DtsCollPhase *ph = &plan->phases[i];
      if (!ph->lockstep || ph->n_steps == 0)
        continue;
      if (per_phase || n_groups == 0)
        n_groups++;
      for (int part = 0; part < plan->n_parts; part++) {
        if (ph->first_step >= dts_coll_plan_n_steps (plan, part))
          continue;
        dts_coll_plan_step_ops (plan, part, ph->first_step, &ops);
        const Rank *me = part_rank (sim, c, plan, part);
        GString *kr = key[me->rank];
        g_string_append_printf (kr, "|%u.%d:", k, i);
        key_add_double (kr, extra[i * plan->n_parts + part]);
        for (guint j = 0; j < ops.xfers->len; j++) {
          const DtsCollXfer *x = &g_array_index (ops.xfers, DtsCollXfer, j);
          const Rank *peer = part_rank (sim, c, plan, x->peer);
          g_string_append_c (kr, x->kind == DTS_XFER_SEND ? 's' : x->reduce ? 'r' : 'c');
          key_add_double (kr, x->channels);
          key_add_double (kr, x->bytes);
          if (peer == me)
            continue;
          const Rank *from = x->kind == DTS_XFER_SEND ? me : peer;
          const Rank *to = x->kind == DTS_XFER_SEND ? peer : me;
          const GArray *route = an_route (sim, from, to);
          double bw = 0, lat_s = 0;
          guint64 pair = ((guint64) (guint32) from->rank << 32) | (guint32) to->rank;
          for (guint l = 0; l < route->len; l++) {
            int idx = g_array_index (route, int, l);
            double b = g_array_index (an->bw_Bps, double, idx);
            bw = l == 0 || b < bw ? b : bw;
            lat_s += g_array_index (an->lat_s, double, idx);
          }
          for (guint l = 0; x->kind == DTS_XFER_SEND && l < route->len; l++) {
            int idx = g_array_index (route, int, l);
            if (!link_limits_sharing (an, idx))
              continue;
            if ((guint) idx >= owner->len) {
              g_array_set_size (owner, idx + 1);
              g_array_set_size (group, idx + 1);
              g_array_set_size (demand, idx + 1);
            }
            /* A pair's flows (its channels) come together: a new pair adds
             * the most its flows can take, its route's bandwidth (a pair met
             * again after another counts twice, which only refuses more). */
            double *d = &g_array_index (demand, double, idx);
            if (g_array_index (group, int, idx) != n_groups)
              *d = bw;
            else if (g_array_index (owner, guint64, idx) != pair) {
              *d += bw;
              if (*d > g_array_index (an->bw_Bps, double, idx) * (1 + 1e-12))
                return FALSE;
            }
            g_array_index (group, int, idx) = n_groups;
            g_array_index (owner, guint64, idx) = pair;
          }
          key_add_double (kr, bw);
          key_add_double (kr, lat_s);
          key_add_double (kr, extra[i * plan->n_parts + x->peer]);
        }
      }
    }
  }
  return TRUE;
}

/* Sets sim->rep and the ranks' weights; returns the number of classes, or
 * 0 (sim->rep NULL) when the run is not folded. */
static int
fold_classes (Sim *sim, const char *env)
{
  const DtsSchedule *sc = sim->sched;
  if ((env != NULL && strcmp (env, "1") == 0) || sim->set->record_slices
      || sim->trace->steps != NULL || sim->link_bytes != NULL || sim->rng != NULL
      || sc->n_shards > 0 || sc->rank_cpu != NULL || sim->n < 2)
    return 0;
  for (guint p = 0; p < sc->programs->len; p++) {
    const GArray *prog = g_ptr_array_index (sc->programs, p);
    for (guint i = 0; i < prog->len; i++) {
      DtsOpType t = g_array_index (prog, DtsOp, i).type;
      if (t != DTS_OP_COMPUTE && t != DTS_OP_RECORD && t != DTS_OP_WAIT && t != DTS_OP_COLL
          && t != DTS_OP_BARRIER)
        return 0;
    }
  }
  for (guint i = 0; i < sc->streams->len; i++) {
    DtsStreamKind k = g_array_index (sc->streams, DtsStream, i).kind;
    if (k != DTS_STREAM_COMPUTE && k != DTS_STREAM_COMM)
      return 0;
  }
  if (platform_has_profiles (sim->set->platform_path))
    return 0;
  /* Communicators each program waits on: a rank's streams must not share one. */
  int n_comms = sc->comms->len;
  g_autofree guint8 *uses = g_new0 (guint8, (gsize) sc->programs->len * MAX (n_comms, 1));
  for (guint p = 0; p < sc->programs->len; p++) {
    const GArray *prog = g_ptr_array_index (sc->programs, p);
    for (guint i = 0; i < prog->len; i++) {
      const DtsOp *op = &g_array_index (prog, DtsOp, i);
      if (op->type == DTS_OP_COLL)
        uses[p * n_comms + sc->plan_comm[op->coll]] = 1;
      else if (op->type == DTS_OP_BARRIER)
        uses[p * n_comms + op->comm] = 1;
    }
  }
  /* Each rank's key: its streams' kinds, indices and programs, then its host's figures. */
  g_autofree GString **key = g_new0 (GString *, sim->n);
  for (int r = 0; r < sim->n; r++)
    key[r] = g_string_new (NULL);
  gboolean ok = TRUE;
  g_autofree int *comm_owner = g_new (int, (gsize) MAX (n_comms, 1));
  for (guint i = 0; i < sc->streams->len; i++) {
    const DtsStream *st = &g_array_index (sc->streams, DtsStream, i);
    g_string_append_printf (key[st->rank], "%d.%d.%d;", st->kind, st->index, st->program);
  }
  g_autoptr (GHashTable) hosts = g_hash_table_new (NULL, NULL);
  for (int r = 0; r < sim->n && ok; r++) {
    Rank *rk = &sim->ranks[r];
    if (g_hash_table_contains (hosts, rk->host)) {
      ok = FALSE;
      break;
    }
    g_hash_table_add (hosts, rk->host);
    g_string_append_printf (key[r], "%a/%a/%d", rk->speed_flops, rk->reduce_s_per_byte,
                            sg_host_core_count (rk->host));
    if (host_overridden (sim, sg_host_get_name (rk->host)))
      g_string_append_printf (key[r], "/r%d", r);
  }
  if (ok && sim->set->granularity == DTS_GRANULARITY_FLOW)
    ok = fold_flow_routes (sim, key);
  /* Two streams of one rank on one communicator: the streams of a rank
   * are found by scanning its key's programs. */
  for (int r = 0; r < sim->n && ok; r++) {
    if (r > 0 && strcmp (key[r]->str, key[r - 1]->str) == 0)
      continue; /* the same streams as the rank before: checked */
    const char *k = key[r]->str;
    for (int c = 0; c < n_comms; c++)
      comm_owner[c] = -1;
    int kind, index, program, n;
    int stream = 0;
    while (ok && sscanf (k, "%d.%d.%d;%n", &kind, &index, &program, &n) == 3) {
      for (int c = 0; c < n_comms; c++)
        if (uses[(gsize) program * n_comms + c]) {
          if (comm_owner[c] >= 0)
            ok = FALSE;
          comm_owner[c] = stream;
        }
      stream++;
      k += n;
    }
  }
  int n_classes = 0;
  sim->rep = g_new (int, sim->n);
  g_autoptr (GHashTable) first = g_hash_table_new (g_str_hash, g_str_equal);
  for (int r = 0; r < sim->n && ok; r++) {
    gpointer found = NULL;
    if (g_hash_table_lookup_extended (first, key[r]->str, NULL, &found)) {
      sim->rep[r] = GPOINTER_TO_INT (found);
      sim->ranks[sim->rep[r]].weight++;
    } else {
      g_hash_table_insert (first, key[r]->str, GINT_TO_POINTER (r));
      sim->rep[r] = r;
      n_classes++;
    }
  }
  /* Every class wholly inside or outside each communicator. */
  g_autofree int *inside = g_new0 (int, sim->n);
  for (int c = 0; c < n_comms && ok; c++) {
    const DtsCommunicator *cm = g_ptr_array_index (sc->comms, c);
    for (int i = 0; i < cm->n_ranks; i++)
      inside[sim->rep[cm->ranks[i]]]++;
    for (int i = 0; i < cm->n_ranks; i++) {
      int rep = sim->rep[cm->ranks[i]];
      if (inside[rep] != 0 && inside[rep] != sim->ranks[rep].weight)
        ok = FALSE;
      inside[rep] = 0;
    }
  }
  for (int r = 0; r < sim->n; r++)
    g_string_free (key[r], TRUE);
  if (!ok || n_classes == sim->n) {
    for (int r = 0; r < sim->n; r++)
      sim->ranks[r].weight = 1;
    g_clear_pointer (&sim->rep, g_free);
    n_classes = 0;
  }
  if (n_classes == 0 && sim->fold_extra != NULL) {
    for (guint k = 0; k < sc->plans->len; k++)
      g_free (sim->fold_extra[k]);
    g_clear_pointer (&sim->fold_extra, g_free);
  }
  return n_classes;
}

static int
fold_ranks (Sim *sim)
{
  DtsGranularity g = sim->set->granularity;
  if (g != DTS_GRANULARITY_ANALYTIC && g != DTS_GRANULARITY_FLOW)
    return 0;
  const char *env = g_getenv ("DTSIM_FOLD");
  int n_classes = fold_classes (sim, env != NULL && strcmp (env, "0") == 0 ? "1" : NULL);
  if (env != NULL && strcmp (env, "count") == 0)
    fprintf (stderr, "dtsim: %s: %d ranks run as %d\n",
             g == DTS_GRANULARITY_FLOW ? "flow" : "analytic", sim->n,
             n_classes > 0 ? n_classes : sim->n);
  return n_classes;
}

/* After a folded run: every rank's figures are those of the rank that
 * stood for it; bucket times go back to the bucket's own rank. */
static void
unfold (Sim *sim)
{
  DtsTrace *t = sim->trace;
  for (int r = 0; r < sim->n; r++) {
    int rep = sim->rep[r];
    if (rep == r)
      continue;
    for (int it = 0; it < t->n_iterations; it++) {
      gsize to = dts_trace_ri (t, r, it), from = dts_trace_ri (t, rep, it);
      t->iter_start_s[to] = t->iter_start_s[from];
      t->iter_end_s[to] = t->iter_end_s[from];
      for (int p = 0; p < DTS_TRACE_N_PHASES; p++)
        t->phase_s[to * DTS_TRACE_N_PHASES + p] = t->phase_s[from * DTS_TRACE_N_PHASES + p];
      t->wait_s[to] = t->wait_s[from];
      t->comm_s[to] = t->comm_s[from];
      t->p2p_wait_s[to] = t->p2p_wait_s[from];
      t->p2p_xfer_s[to] = t->p2p_xfer_s[from];
      t->tp_s[to] = t->tp_s[from];
    }
  }
  for (guint k = 0; k < sim->sched->plans->len; k++)
    t->bucket_rank[k] =
        ((const DtsCommunicator *) g_ptr_array_index (sim->sched->comms,
                                                      sim->sched->plan_comm[k]))->ranks[0];
  g_clear_pointer (&sim->rep, g_free);
}

static void
start_actors (Sim *sim)
{
  const DtsSchedule *sc = sim->sched;
  for (int r = 0; r < sim->n; r++) {
    Rank *rk = &sim->ranks[r];
    if (sim->rep != NULL && sim->rep[r] != r)
      continue;
    rk->events = g_new (sg_sem_t, MAX (sc->n_events, 1));
    rk->arrived_s = g_new0 (double, MAX (sc->n_events, 1));
    for (int e = 0; e < sc->n_events; e++)
      rk->events[e] = sg_sem_init (
          sc->event_initial ? sc->event_initial[(gsize) r * sc->n_events + e] : 0);
  }
  for (guint c = 0; c < sc->comms->len; c++) {
    Comm *cm = &sim->comms[c];
    int members = cm->comm->n_ranks;
    if (sim->rep != NULL) {
      members = 0;
      for (int i = 0; i < cm->comm->n_ranks; i++)
        members += sim->rep[cm->comm->ranks[i]] == cm->comm->ranks[i];
    }
    cm->barrier = sg_barrier_init (members);
  }
  static const char *const prefix[] = {
    [DTS_STREAM_COMPUTE] = "compute", [DTS_STREAM_COMM] = "comm", [DTS_STREAM_SERVER] = "ps",
    [DTS_STREAM_P2P] = "p2p",
  };
  for (guint i = 0; i < sc->streams->len; i++) {
    const DtsStream *st = &g_array_index (sc->streams, DtsStream, i);
    Stream *s = &sim->streams[i];
    if (sim->rep != NULL && sim->rep[st->rank] != st->rank)
      continue;
    sim->n_started++;
    *s = (Stream){ .sim = sim, .stream = st, .rank = &sim->ranks[st->rank],
                   .ops = g_ptr_array_index (sim->ops, st->program), .flow_start_s = -1 };
    g_autofree char *name = st->kind == DTS_STREAM_SERVER || st->index == 0
                                ? g_strdup_printf ("%s-%d", prefix[st->kind],
                                                   st->kind == DTS_STREAM_SERVER ? st->index
                                                                                 : st->rank)
                                : g_strdup_printf ("%s-%d-%d", prefix[st->kind], st->rank,
                                                   st->index);
    const GArray *prog = g_ptr_array_index (sc->programs, st->program);
    for (guint j = 0; j < prog->len && s->server == NULL; j++) {
      const DtsOp *op = &g_array_index (prog, DtsOp, j);
      if (op->type != DTS_OP_APPLY)
        continue;
      Server *sv = g_new0 (Server, 1);
      sv->apply = op;
      g_queue_init (&sv->inbox);
      sv->arrived = sg_sem_init (0);
      sv->to_send = sg_sem_init (0);
      g_queue_init (&sv->outbox);
      sv->delivered = g_new0 (int, op->senders);
      sv->n_at_min = op->senders;
      sv->total = (gint64) op->senders * sim->set->iterations;
      sv->rank = st->rank;
      g_queue_init (&sv->pending);
      sv->sent = sg_sem_init (0);
      sv->lane = g_new0 (sg_mailbox_t, op->senders);
      guint64 *key = g_new (guint64, 1);
      *key = ((guint64) (guint32) st->rank << 32) | (guint32) op->tag;
      g_hash_table_insert (sim->servers, key, sv);
      s->server = sv;
      s->reply_to = g_array_new (FALSE, FALSE, sizeof (int));
    }
    sg_actor_t a = sg_actor_init (name, s->rank->host);
    sg_actor_set_data (a, s);
    sg_actor_start (a, stream_actor, 0, NULL);
    /* --ps-concurrency K: K receivers and K senders per server. */
    for (int c = 0; s->server != NULL && c < MAX (s->server->apply->concurrency, 1); c++) {
      g_autofree char *rname = c == 0 ? g_strdup_printf ("ps-recv-%d", st->index)
                                      : g_strdup_printf ("ps-recv-%d-%d", st->index, c);
      sg_actor_t r = sg_actor_init (rname, s->rank->host);
      sg_actor_set_data (r, s);
      sg_actor_start (r, server_receiver, 0, NULL);
      g_autofree char *sname = c == 0 ? g_strdup_printf ("ps-send-%d", st->index)
                                      : g_strdup_printf ("ps-send-%d-%d", st->index, c);
      sg_actor_t snd = sg_actor_init (sname, s->rank->host);
      sg_actor_set_data (snd, s);
      sg_actor_start (snd, server_sender, 0, NULL);
    }
  }
}

static void
tear_down (Sim *sim)
{
  const DtsSchedule *sc = sim->sched;
  g_clear_pointer (&sim->rep, g_free);
  for (guint k = 0; sim->fold_extra != NULL && k < sc->plans->len; k++)
    g_free (sim->fold_extra[k]);
  g_clear_pointer (&sim->fold_extra, g_free);
  for (guint p = 0; p < sc->plans->len; p++)
  {
    if (sim->latency[p].own_slots) {
      g_free (sim->latency[p].slot_s_per_byte);
      g_free (sim->latency[p].slot_lat_s);
    }
    if (sim->latency[p].own_phases) {
      g_free (sim->latency[p].phase_max_s);
    }
  }
  g_clear_pointer (&sim->an.routes, g_hash_table_unref);
  g_clear_pointer (&sim->an.index, g_hash_table_unref);
  g_clear_pointer (&sim->an.links, g_ptr_array_unref);
  g_clear_pointer (&sim->an.bw_Bps, g_array_unref);
  g_clear_pointer (&sim->an.shared, g_array_unref);
  g_clear_pointer (&sim->an.lat_s, g_array_unref);
  g_clear_pointer (&sim->an.load, g_array_unref);
  g_clear_pointer (&sim->an.largest, g_array_unref);
  g_clear_pointer (&sim->an.touched, g_array_unref);
  for (int r = 0; r < sim->n; r++) {
    if (sim->ranks[r].flights != NULL)
      g_ptr_array_unref (sim->ranks[r].flights);
    for (int e = 0; e < sc->n_events && sim->ranks[r].events; e++)
      sg_sem_destroy (sim->ranks[r].events[e]);
    g_free (sim->ranks[r].events);
    g_free (sim->ranks[r].arrived_s);
  }
  for (guint c = 0; c < sc->comms->len; c++) {
    Comm *cm = &sim->comms[c];
    if (cm->barrier != NULL)
      sg_barrier_destroy (cm->barrier);
    for (int p = 0; cm->local && p < cm->n_parts; p++)
      if (cm->local[p] != NULL)
        sg_sem_destroy (cm->local[p]);
    g_free (cm->local);
    g_free (cm->mailbox);
  }
  for (guint i = 0; i < sc->streams->len; i++) {
    if (sim->streams[i].xfers)
      g_array_unref (sim->streams[i].xfers);
    if (sim->streams[i].prepared)
      g_array_unref (sim->streams[i].prepared);
    g_free (sim->streams[i].comms);
    g_free (sim->streams[i].peer_version);
    if (sim->streams[i].posted)
      g_array_unref (sim->streams[i].posted);
    if (sim->streams[i].reply_to)
      g_array_unref (sim->streams[i].reply_to);
    Server *sv = sim->streams[i].server;
    if (sv != NULL) {
      g_queue_clear_full (&sv->inbox, g_free);
      g_queue_clear_full (&sv->outbox, g_free);
      sg_sem_destroy (sv->arrived);
      sg_sem_destroy (sv->to_send);
      g_queue_clear (&sv->pending);
      sg_sem_destroy (sv->sent);
      g_free (sv->lane);
      g_free (sv->delivered);
      g_free (sv);
    }
  }
}

static void
fill_names (DtsTrace *t, const DtsSchedule *sched, const DtsPlatform *platform,
            const DtsWorkload *workload)
{
  for (int p = 0; p < DTS_TRACE_N_PHASES; p++)
    t->phase_names[p] = g_strdup (dts_phase_to_string (p));
  for (guint l = 0; workload != NULL && l < workload->layers->len; l++)
    g_ptr_array_add (t->layer_names, g_strdup (dts_workload_layer (workload, l)->name));
  for (int r = 0; r < t->n_ranks; r++)
    g_ptr_array_add (t->rank_hosts, g_strdup (dts_schedule_rank_host (sched, platform, r, NULL)));
}

/* contexts/stack-size in KiB as set (SimGrid's default: 8 MiB). */
static long
stack_size_kib (void)
{
  long kib = 8192;
  for (char **c = dts_sim_cfg_applied (); c && *c; c++)
    if (g_str_has_prefix (*c, "contexts/stack-size:"))
      kib = strtol (*c + strlen ("contexts/stack-size:"), NULL, 10);
  return kib;
}

static gboolean configured_here;
static char *loaded_path;

gboolean
dts_sim_load_platform (const char *path, char **cfg, GArray *overrides, GError **error)
{
  if (loaded_path != NULL) {
    g_return_val_if_fail (strcmp (loaded_path, path) == 0, FALSE);
    return TRUE;
  }
  if (dts_sim_cfg_applied () == NULL && !dts_sim_configure (cfg, error))
    return FALSE;
  g_autofree char *message = NULL;
  if (!dts_sg_load_platform (path, &message)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "platform '%s': %s", path, message);
    return FALSE;
  }
  if (overrides != NULL && !dts_sim_apply_overrides (overrides, error))
    return FALSE;
  loaded_path = g_strdup (path);
  return TRUE;
}

DtsTrace *
dts_sim_execute (const DtsSchedule *sched, const DtsPlatform *platform,
                 const DtsWorkload *workload, const DtsSimSettings *set, GError **error)
{
  G_STATIC_ASSERT (DTS_TRACE_N_PHASES == DTS_PHASE_COUNT);
  g_return_val_if_fail (set->granularity >= 0 && set->granularity < DTS_GRANULARITY_COUNT, NULL);
  g_return_val_if_fail (sched->n_ranks <= (int) (platform->gpus->len
                                                 + (platform->cpus ? platform->cpus->len : 0)),
                        NULL);
  g_return_val_if_fail (set->iterations >= 1, NULL);

  if (dts_sim_cfg_applied () == NULL) {
    if (!dts_sim_configure (set->cfg, error))
      return NULL;
  }
  if (configured_here) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "the simulator can run once per process");
    return NULL;
  }
  configured_here = TRUE;

  if (!dts_sim_load_platform (set->platform_path, set->cfg, set->overrides, error))
    return NULL;
  g_autofree char *message = NULL;

  Sim sim = { .sched = sched, .set = set, .n = sched->n_ranks };
  g_autofree Rank *ranks = g_new0 (Rank, sim.n);
  g_autofree Comm *comms = g_new0 (Comm, MAX (sched->comms->len, 1));
  g_autofree Stream *streams = g_new0 (Stream, MAX (sched->streams->len, 1));
  g_autofree PlanLatency *latency = g_new0 (PlanLatency, sched->plans->len + 1);
  g_autofree double *analytic_s = g_new (double, sched->plans->len + 1);
  g_autofree double *analytic_lat_s = g_new0 (double, sched->plans->len + 1);
  for (guint k = 0; k <= sched->plans->len; k++)
    analytic_s[k] = -1;
  g_autoptr (GHashTable) p2p = g_hash_table_new_full (dts_sim_pair_hash, g_int64_equal, g_free, NULL);
  g_autoptr (GHashTable) servers = g_hash_table_new_full (dts_sim_pair_hash, g_int64_equal, g_free,
                                                          NULL);
  sim.ranks = ranks;
  sim.comms = comms;
  sim.streams = streams;
  sim.latency = latency;
  sim.analytic_s = analytic_s;
  sim.analytic_lat_s = analytic_lat_s;
  g_autoptr (GArray) link_bytes = set->link_stats ? g_array_new (FALSE, TRUE, sizeof (double))
                                                 : NULL;
  sim.link_bytes = link_bytes;
  sim.p2p = p2p;
  sim.servers = servers;
  g_autoptr (GPtrArray) ops = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint p = 0; p < sched->programs->len; p++)
    g_ptr_array_add (ops, compile_program (g_ptr_array_index (sched->programs, p),
                                           !set->record_slices));
  sim.ops = ops;
  g_autoptr (DtsTrace) trace = dts_trace_new (sim.n, set->iterations, sched->plans->len,
                                              set->record_slices);
  if (set->record_steps)
    trace->steps = g_array_new (FALSE, FALSE, sizeof (DtsTraceStep));
  /* Bucket times are kept on the first member of the bucket's communicator. */
  for (guint k = 0; k < sched->plans->len; k++)
    trace->bucket_rank[k] =
        ((const DtsCommunicator *) g_ptr_array_index (sched->comms, sched->plan_comm[k]))->ranks[0];
  if (sched->n_shards > 0) {
    trace->n_shards = sched->n_shards;
    trace->ps_updates = g_array_new (FALSE, FALSE, sizeof (DtsTraceUpdate));
    trace->ps_gradients = g_array_new (FALSE, FALSE, sizeof (DtsTraceGradient));
    trace->ps_busy_s = g_new0 (double, sched->n_shards);
  }
  g_autoptr (GRand) rng = set->compute_jitter_sigma > 0 ? g_rand_new_with_seed ((guint32) set->seed)
                                                        : NULL;
  sim.rng = rng;
  sim.jitter_sigma = set->compute_jitter_sigma;
  sim.trace = trace;
  fill_names (trace, sched, platform, workload);
  if (!set_up (&sim, platform, error)) {
    tear_down (&sim);
    return NULL;
  }
  if (!dts_sg_seal_platform (&message)) {
    tear_down (&sim);
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "platform '%s': %s", set->platform_path,
                 message);
    return NULL;
  }
  /* A GPU pair without a route makes SimGrid abort on the first query:
   * check every pair the plans use, with file and line, before any. */
  if (!dts_sim_check_routes (platform, sched, error)) {
    tear_down (&sim);
    return NULL;
  }
  if (set->sealed != NULL)
    set->sealed (set->sealed_data);
  /* analytic starts no flow: nothing for a FATPIPE link to slow down (its
   * routes' bandwidths, the smallest link's, are the same either way) */
  if (set->granularity != DTS_GRANULARITY_ANALYTIC)
    relax_fatpipes (&sim);
  sim.wall_start_us = g_get_monotonic_time ();
  int n_classes = fold_ranks (&sim);
  for (guint k = 0; k < sched->plans->len && n_classes > 0; k++)
    trace->bucket_rank[k] = sim.rep[trace->bucket_rank[k]];
  /* Every stream is an actor with a stack of its own, mapped on its own
   * while the stacks are at least glibc's mmap threshold (128 KiB). */
  guint n_actors = sched->streams->len;
  if (sim.rep != NULL) {
    n_actors = 0;
    for (guint i = 0; i < sched->streams->len; i++) {
      int r = g_array_index (sched->streams, DtsStream, i).rank;
      n_actors += sim.rep[r] == r;
    }
  }
  if ((stack_size_kib () >= 128
       && !dts_sim_check_map_count (n_actors, "/proc/sys/vm/max_map_count", error))
      || !dts_sim_check_address_space (n_actors, stack_size_kib (), error)) {
    tear_down (&sim);
    return NULL;
  }
  start_actors (&sim);
  simgrid_run ();
  if (sim.rep != NULL)
    unfold (&sim);
  trace->wall_time_s = (g_get_monotonic_time () - sim.wall_start_us) / 1e6;
  trace->makespan_s = now ();
  if (sim.link_bytes != NULL)
    trace->links = link_stats (&sim, trace->makespan_s);
  if (set->progress == DTS_PROGRESS_LIVE)
    fprintf (stderr, "\r%*s\r", 72, "");
  tear_down (&sim);
  if (sim.finished != sim.n_started) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "internal error: the simulation stopped with %d of %d streams unfinished",
                 sim.n_started - sim.finished, sim.n_started);
    return NULL;
  }
  return g_steal_pointer (&trace);
}

DtsTrace *
dts_sim_run (const DtsSchedule *sched, const DtsPlatform *platform, const DtsWorkload *workload,
             const DtsRunOptions *opts, GError **error)
{
  DtsSimSettings set = {
    .platform_path = opts->platform_path,
    .cfg = opts->cfg,
    .overrides = opts->overrides,
    .granularity = opts->granularity,
    .iterations = opts->iterations,
    .record_slices = opts->record_slices,
    .link_stats = opts->link_stats,
    .progress = opts->progress,
    .speed_use = "converts kernel times to work with it",
    .compute_jitter_sigma = opts->compute_jitter_sigma,
    .seed = opts->seed,
    .coll_overhead_s = opts->coll_overhead_s,
  };
  return dts_sim_execute (sched, platform, workload, &set, error);
}
