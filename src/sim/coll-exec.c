/* coll-exec.c - a participant's part of a collective, as the interpreter
 * (sim.c, whose header has the model of each granularity) runs it: at
 * step granularity every round of every step as transfers and a reduction
 * kernel (post_and_wait), at flow granularity a lock-step phase as one
 * flow per transfer and channel after a latency sleep (run_flow_phase,
 * and post_and_wait_folded in folded runs), at analytic granularity a wait
 * of the plan's time from the link loads of its steps, shared with the
 * rank's other collectives in flight (run_analytic). The routes' latencies
 * and links are read once per plan and pair of hosts (sim_plan_latency,
 * sim_an_route). */
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
#include "sim/interp.h"
#include "sim/override.h"
#include "sim/routes.h"
#include "sim/sg-shim.h"
#include "sim/sim-private.h"
#include "sim/sim.h"

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

Rank *
sim_part_rank (Sim *sim, const Comm *c, const DtsCollPlan *plan, int part)
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
  Rank *me = sim_part_rank (sim, c, plan, part);
  g_array_set_size (s->prepared, ops->xfers->len);
  gsize n_comms = 0;
  for (guint i = 0; i < ops->xfers->len; i++) {
    const DtsCollXfer *x = &g_array_index (ops->xfers, DtsCollXfer, i);
    Prepared *p = &g_array_index (s->prepared, Prepared, i);
    p->x = x;
    p->peer = sim_part_rank (sim, c, plan, x->peer);
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
  sg_exec_t red = sim_reduce_async (sim, me, red_bytes);
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
    long bytes = sim_whole_bytes (b);
    sim_count_link_bytes (sim, me, p->peer, (double) bytes * x->channels);
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
  sg_exec_t red = sim_reduce_async (sim, me, red_bytes);
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
      long bytes = sim_whole_bytes (scale * x->bytes);
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
    if (g->at_s > sim_now ())
      sg_actor_sleep_for (g->at_s - sim_now ());
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
  double t0 = sim_now ();
  Rank *me = sim_part_rank (sim, c, plan, part);
  if (ops.reduce_bytes > 0) {
    sg_exec_t sum = sim_reduce_async (sim, me, ops.reduce_bytes);
    sg_exec_wait (sum);
  }
  gsize n_comms = prepare (sim, s, c, plan, part, &ops);
  for (int r = 0; r < ops.n_rounds && ops.xfers->len > 0; r++)
    post_and_wait (sim, s, c, me, part, &ops, n_comms, r, 0);
  add_step (sim, bucket, s->rank->rank, step, ops.phase, t0, sim_now ());
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
  Rank *a = sim_part_rank (f->sim, f->c, f->plan, from), *b = sim_part_rank (f->sim, f->c, f->plan, to);
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
      const Rank *me = sim_part_rank (sim, c, plan, part);
      for (guint j = 0; j < ops.xfers->len; j++) {
        const DtsCollXfer *x = &g_array_index (ops.xfers, DtsCollXfer, j);
        const Rank *peer = sim_part_rank (sim, c, plan, x->peer);
        if (x->kind == DTS_XFER_SEND && peer != me)
          lat->phase_max_s[i] = MAX (lat->phase_max_s[i], route_latency (pairs, me, peer));
      }
    }
  }
}

/* Route latencies of collective K's plan; routes are known once the
 * platform is sealed. */
const PlanLatency *
sim_plan_latency (Sim *sim, int k)
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
const GArray *
sim_an_route (Sim *sim, const Rank *a, const Rank *b)
{
  AnRoutes *an = &sim->an;
  if (an->routes == NULL) {
    an->routes = g_new0 (DtsSimPeers, MAX (sim->n, 1));
    an->index = g_hash_table_new (g_direct_hash, g_direct_equal);
    an->links = g_ptr_array_new ();
    an->bw_Bps = g_array_new (FALSE, FALSE, sizeof (double));
    an->shared = g_array_new (FALSE, FALSE, sizeof (gboolean));
    an->lat_s = g_array_new (FALSE, FALSE, sizeof (double));
    an->load = g_array_new (FALSE, TRUE, sizeof (double));
    an->largest = g_array_new (FALSE, TRUE, sizeof (double));
    an->touched = g_array_new (FALSE, FALSE, sizeof (int));
  }
  GArray *route = dts_sim_peers_find (&an->routes[a->rank], b->rank);
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
  dts_sim_peers_add (&an->routes[a->rank], b->rank, route);
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
    const Rank *me = sim_part_rank (sim, c, plan, p);
    for (guint i = 0; i < ops.xfers->len; i++) {
      const DtsCollXfer *x = &g_array_index (ops.xfers, DtsCollXfer, i);
      const Rank *peer = sim_part_rank (sim, c, plan, x->peer);
      if (x->kind != DTS_XFER_SEND || peer->host == me->host || !(x->bytes > 0))
        continue;
      const GArray *route = sim_an_route (sim, me, peer);
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
  const PlanLatency *lat = sim_plan_latency (sim, k);
  double t0 = sim_now ();
  int i = ph - plan->phases;
  double extra_s = (ph->n_steps * ops.n_rounds - 1) * lat->phase_max_s[i];
  Rank *me = sim_part_rank (sim, c, plan, part);
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
  add_step (sim, bucket, s->rank->rank, -1, ops.phase, t0, sim_now ());
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
  const PlanLatency *lat = sim_plan_latency (sim, k);
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

/* For a plan whose members do not all run lock-step: per participant and
 * step, the longest that a link of one of its routes to or from a peer
 * needs for what the step's slot puts on it, every participant's sends of
 * that slot counted (a shared link carries their bytes over every channel,
 * a FATPIPE link the largest transfer per channel). Worked out slot by
 * slot over dense per-link sums, as load.c weighs a plan: a 16,384-GPU
 * tree has tens of thousands of slots and millions of transfers, which a
 * table keyed by slot and link made the largest part of its run. */
typedef struct {
  int *first;     /* participant -> its first step's index into links_s */
  double *links_s;
} AnLoads;

/* A send's bytes on a route in a slot; a step's question about one of its
 * routes in its slot. Gathered participant by participant, step by step:
 * what a slot sums, it sums in that order. The slot comes first
 * (dts_coll_order_by_slot). */
typedef struct {
  int slot;
  const GArray *route;   /* link indices into sim->an */
  double bytes, largest; /* over every channel; the largest per channel */
} AnSend;

typedef struct {
  int slot;
  int at;                /* the step: its index into links_s */
  const GArray *route;
} AnAsk;

static void
an_loads_free (AnLoads *a)
{
  g_free (a->first);
  g_free (a->links_s);
  g_free (a);
}

/* What participant PART's step STEP waits for on its routes (AnLoads). */
static double
an_loads_step_s (const AnLoads *a, int part, int step)
{
  return a->links_s[a->first[part] + step];
}

static AnLoads *
an_plan_loads_new (Sim *sim, Stream *s, int k)
{
  const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, k);
  const Comm *c = &sim->comms[sim->sched->plan_comm[k]];
  AnLoads *loads = g_new (AnLoads, 1);
  loads->first = g_new (int, (gsize) plan->n_parts + 1);
  /* room for a transfer each way per step (a chain's, a tree's leaf's) */
  guint n_all = 0;
  for (int p = 0; p < plan->n_parts; p++)
    n_all += (guint) dts_coll_plan_n_steps (plan, p);
  g_autoptr (GArray) sends = g_array_sized_new (FALSE, FALSE, sizeof (AnSend), n_all);
  g_autoptr (GArray) asks = g_array_sized_new (FALSE, FALSE, sizeof (AnAsk), 2 * n_all);
  DtsCollStepOps ops = { .xfers = s->xfers };
  int n_slots = 0, at = 0;
  for (int p = 0; p < plan->n_parts; p++) {
    const Rank *me = sim_part_rank (sim, c, plan, p);
    int n = dts_coll_plan_n_steps (plan, p);
    loads->first[p] = at;
    for (int step = 0; step < n; step++, at++) {
      dts_coll_plan_step_ops (plan, p, step, &ops);
      int slot = an_step_slot (plan, p, step);
      n_slots = MAX (n_slots, slot + 1);
      for (guint i = 0; i < ops.xfers->len; i++) {
        const DtsCollXfer *x = &g_array_index (ops.xfers, DtsCollXfer, i);
        const Rank *peer = sim_part_rank (sim, c, plan, x->peer);
        gboolean send = x->kind == DTS_XFER_SEND;
        gboolean loads_links = send && x->bytes > 0, waits = x->bytes * x->channels > 0;
        if (peer->host == me->host || !(loads_links || waits))
          continue;
        const GArray *route = send ? sim_an_route (sim, me, peer) : sim_an_route (sim, peer, me);
        if (loads_links) {
          AnSend f = { slot, route, x->bytes * x->channels, x->bytes };
          g_array_append_val (sends, f);
        }
        if (waits) {
          AnAsk q = { slot, at, route };
          g_array_append_val (asks, q);
        }
      }
    }
  }
  loads->first[plan->n_parts] = at;
  loads->links_s = g_new0 (double, MAX (at, 1));
  g_autofree guint *send_first = NULL, *ask_first = NULL;
  g_autofree guint *send_order
    = dts_coll_order_by_slot (sends->data, sizeof (AnSend), sends->len, n_slots, &send_first);
  g_autofree guint *ask_order
    = dts_coll_order_by_slot (asks->data, sizeof (AnAsk), asks->len, n_slots, &ask_first);
  guint n_links = sim->an.bw_Bps->len;
  g_autofree double *load = g_new0 (double, MAX (n_links, 1));
  g_autofree double *largest = g_new0 (double, MAX (n_links, 1));
  g_autofree int *stamp = g_new (int, MAX (n_links, 1));
  for (guint l = 0; l < n_links; l++)
    stamp[l] = -1;
  const double *bw = (const double *) sim->an.bw_Bps->data;
  const gboolean *shared = (const gboolean *) sim->an.shared->data;
  for (int t = 0; t < n_slots; t++) {
    for (guint i = send_first[t]; i < send_first[t + 1]; i++) {
      const AnSend *f = &g_array_index (sends, AnSend, send_order[i]);
      for (guint l = 0; l < f->route->len; l++) {
        int idx = g_array_index (f->route, int, l);
        if (stamp[idx] != t) {
          stamp[idx] = t;
          load[idx] = largest[idx] = 0;
        }
        load[idx] += f->bytes;
        largest[idx] = MAX (largest[idx], f->largest);
      }
    }
    for (guint i = ask_first[t]; i < ask_first[t + 1]; i++) {
      const AnAsk *q = &g_array_index (asks, AnAsk, ask_order[i]);
      double v = 0;
      for (guint l = 0; l < q->route->len; l++) {
        int idx = g_array_index (q->route, int, l);
        if (stamp[idx] == t && bw[idx] > 0)
          v = MAX (v, (shared[idx] ? load[idx] : largest[idx]) / bw[idx]);
      }
      loads->links_s[q->at] = MAX (loads->links_s[q->at], v);
    }
  }
  return loads;
}

/* The bandwidth (its smallest link's) and latency (its links', summed in
 * order) of the route from A to B, as sg_host_get_route_bandwidth and
 * sg_host_get_route_latency give them, from the routes read once
 * (sim_an_route): SimGrid walks the routing zones on every call. */
void
sim_an_route_figures (Sim *sim, const Rank *a, const Rank *b, double *bw_Bps, double *lat_s)
{
  const GArray *route = sim_an_route (sim, a, b);
  if (route->len == 0) {
    *bw_Bps = sg_host_get_route_bandwidth (a->host, b->host);
    *lat_s = sg_host_get_route_latency (a->host, b->host);
    return;
  }
  double bw = -1, lat = 0;
  for (guint l = 0; l < route->len; l++) {
    int idx = g_array_index (route, int, l);
    double v = g_array_index (sim->an.bw_Bps, double, idx);
    if (v < bw || bw < 0)
      bw = v;
    lat += g_array_index (sim->an.lat_s, double, idx);
  }
  *bw_Bps = bw;
  *lat_s = lat;
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
analytic_part_s (Sim *sim, Stream *s, int k, int part, gboolean uniform, AnLoads *loads,
                 GArray *slots, double *lat_s)
{
  const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, k);
  const Comm *c = &sim->comms[sim->sched->plan_comm[k]];
  const PlanLatency *lat = sim_plan_latency (sim, k);
  const Rank *me = sim_part_rank (sim, c, plan, part);
  DtsCollStepOps ops = { .xfers = s->xfers };
  double total = 0;
  *lat_s = 0;
  int n_steps = dts_coll_plan_n_steps (plan, part);
  for (int step = 0; step < n_steps; step++) {
    dts_coll_plan_step_ops (plan, part, step, &ops);
    double send = 0, recv = 0, reduced = ops.reduce_bytes, hop = 0, links_s = 0;
    for (guint i = 0; i < ops.xfers->len; i++) {
      const DtsCollXfer *x = &g_array_index (ops.xfers, DtsCollXfer, i);
      double bytes = x->bytes * x->channels;
      if (x->reduce)
        reduced += bytes;
      const Rank *peer = sim_part_rank (sim, c, plan, x->peer);
      if (peer->host == me->host)
        continue;
      /* Lock-step members are paced by the plan's slowest hop; the others
       * by their own routes. */
      double bw = lat->min_bw_Bps, hop_s = lat->max_s;
      if (!uniform)
        sim_an_route_figures (sim, me, peer, &bw, &hop_s);
      hop = MAX (hop, hop_s);
      if (x->kind == DTS_XFER_SEND)
        send += bytes / bw;
      else
        recv += bytes / bw;
    }
    if (loads != NULL)
      links_s = an_loads_step_s (loads, part, step);
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
  double t = sim_now (), d = t - rk->flights_s;
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

static void
analytic_plan_s (Sim *sim, Stream *s, int k)
{
  const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, k);
  if (sim->analytic_s[k] >= 0)
    return;
  gboolean uniform = plan_uniform (plan);
  double t = 0, t_lat = 0;
  /* Parameter servers' steps of one index do not run at once (each
   * worker pushes when it is ready): no slots, each participant on its
   * own routes. */
  AnLoads *loads = uniform || plan->n_parts > plan->n_ranks ? NULL : an_plan_loads_new (sim, s, k);
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
    an_loads_free (loads);
  sim->analytic_s[k] = t;
  sim->analytic_lat_s[k] = MIN (t_lat, t);
}

void
sim_analytic_plan_s (Sim *sim, int k, double *t_s, double *lat_s)
{
  if (!(sim->analytic_s[k] >= 0)) {
    Stream scratch = { .sim = sim, .xfers = g_array_new (FALSE, TRUE, sizeof (DtsCollXfer)) };
    analytic_plan_s (sim, &scratch, k);
    g_array_unref (scratch.xfers);
  }
  *t_s = sim->analytic_s[k];
  *lat_s = sim->analytic_lat_s[k];
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
  Comm *c = &sim->comms[sim->sched->plan_comm[k]];
  analytic_plan_s (sim, s, k);
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
void
sim_run_coll (Sim *sim, Stream *s, int k, int part, int bucket)
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
  if (sim->set->granularity == DTS_GRANULARITY_ANALYTIC
      || (sim->plan_analytic != NULL && sim->plan_analytic[k])) {
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
