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
 * one (fold-ranks.c, doc/SIMULATION.md "Folded analytic runs"); so do they
 * at flow where no shared link could limit flows of two pairs
 * (fold_flow_routes, "Folded flow runs").
 *
 * Files: this one holds the actors, the operations but COLL, the
 * parameter servers, set-up and tear-down; coll-exec.c a participant's
 * part of a collective at each granularity; fold-ranks.c the folding;
 * interp.h the state they share.
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

#include "sim/interp.h"

double
sim_now (void)
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

sg_exec_t
sim_reduce_async (Sim *sim, Rank *rk, double bytes)
{
  if (!(bytes > 0))
    return NULL;
  sim->trace->events += rk->weight;
  return sg_actor_exec_async (bytes * rk->reduce_s_per_byte * rk->speed_flops);
}

long
sim_whole_bytes (double bytes)
{
  return (long) llround (bytes);
}


/* --link-stats: count BYTES sent from rank FROM to rank TO on every link of
 * their route. */
void
sim_count_link_bytes (Sim *sim, const Rank *from, const Rank *to, double bytes)
{
  if (sim->link_bytes == NULL || from->host == to->host || !(bytes > 0))
    return;
  const GArray *route = sim_an_route (sim, from, to);
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
               it + 1, sim->trace->n_iterations, sim->n, sim_now (),
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
  sg_comm_t comm = sg_mailbox_put_async (mb, msg, sim_whole_bytes (bytes));
  if (!detach) {
    sg_comm_wait (comm);
    return;
  }
  if (s->posted == NULL)
    s->posted = g_array_new (FALSE, FALSE, sizeof (sg_comm_t));
  g_array_append_val (s->posted, comm);
}

/* The version RK holds of the parameters of the server on rank PEER taking
 * gradients on TAG: that of its last reply, 0 before any. */
static gint64
peer_version (const Rank *rk, int peer, int tag)
{
  if (rk->peer_version == NULL)
    return 0;
  gint64 key = (gint64) (((guint64) (guint32) peer << 32) | (guint32) tag);
  const gint64 *v = g_hash_table_lookup (rk->peer_version, &key);
  return v != NULL ? *v : 0;
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
    int from = GPOINTER_TO_INT (g_queue_peek_head (&sv->pending));
    GList *take = sv->pending.head;
    for (GList *l = sv->apply->turn ? take : NULL; l; l = l->next) {
      int n = sv->apply->senders, f = sv->apply->first_sender;
      if ((GPOINTER_TO_INT (l->data) - f + n) % n < (from - f + n) % n) {
        from = GPOINTER_TO_INT (l->data);
        take = l;
      }
    }
    g_queue_delete_link (&sv->pending, take);
    SimMsg *m = sg_mailbox_get (server_lane (s->sim, sv, from));
    if (sv->apply->overhead_s > 0) {
      sg_actor_sleep_for (sv->apply->overhead_s);
      s->sim->trace->events++;
    }
    m->arrived_s = sim_now ();
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
  double t0 = sim_now ();
  DtsTraceUpdate u = { .shard = op->shard, .bucket = op->bucket, .n_gradients = got->len,
                       .min_clock = G_MAXINT, .t_start_s = t0 };
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
  /* recorded in the order the updates start: the servers of a shard's
   * buckets (sync-ps) may update at once */
  guint ui = sim->trace->ps_updates->len;
  g_array_append_val (sim->trace->ps_updates, u);
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
  u.t_end_s = sim_now ();
  g_array_index (sim->trace->ps_updates, DtsTraceUpdate, ui).t_end_s = u.t_end_s;
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
                     .version = sv->version, .server_tag = sv->apply->tag, .sent_s = sim_now () };
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
    sg_mailbox_put (p2p_mailbox (s->sim, to, sv->reply_tag), msg, sim_whole_bytes (sv->reply_bytes));
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
      t->iter_start_s[ri] = sim_now ();
    for (guint i = 0; i < s->ops->len; i++) {
      const SimOp *so = &g_array_index (s->ops, SimOp, i);
      const DtsOp *op = &so->op;
      double t0 = sim_now ();
      switch (op->type) {
      case DTS_OP_COMPUTE:
        execute_s (sim, rk, op->duration_s * jitter (sim));
        for (int p = 0; p < DTS_PHASE_COUNT; p++)
          t->phase_s[ri * DTS_TRACE_N_PHASES + p] += (sim_now () - t0) * so->share[p];
        sim_window_note (sim, rk->rank, it, SIM_WINDOW_PHASE, so->share, t0, t0, sim_now ());
        add_slice (t, rk->rank, it, DTS_TRACK_COMPUTE, op->phase, op->layer, t0, sim_now (), 0);
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
          double t1 = sim_now ();
          t->p2p_wait_s[ri] += t1 - t0;
          if (t1 > t0) {
            double flow = MAX (t0, MIN (t1, rk->arrived_s[op->event]));
            t->p2p_xfer_s[ri] += t1 - flow;
            sim_window_note (sim, rk->rank, it, SIM_WINDOW_P2P_WAIT, NULL, t0, flow, t1);
          }
        } else if (op->wait == DTS_WAIT_GATHER) {
          t->gather_wait_s[ri] += sim_now () - t0;
          sim_window_note (sim, rk->rank, it, SIM_WINDOW_GATHER_WAIT, NULL, t0, t0, sim_now ());
        } else if (op->wait == DTS_WAIT_TENSOR) {
          /* the part of a tensor-parallel collective that its GEMM did not hide */
          t->tp_s[ri] += sim_now () - t0;
          sim_window_note (sim, rk->rank, it, SIM_WINDOW_TP, NULL, t0, t0, sim_now ());
        } else {
          t->wait_s[ri] += sim_now () - t0;
          sim_window_note (sim, rk->rank, it, SIM_WINDOW_WAIT, NULL, t0, t0, sim_now ());
        }
        break;
      case DTS_OP_COLL: {
        int k = dts_schedule_rank_plan (sim->sched, rk->rank, op->coll);
        const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, k);
        const Comm *c = &sim->comms[sim->sched->plan_comm[k]];
        int part = op->part >= 0 ? op->part : c->comm->member_of[rk->rank];
        sim_run_coll (sim, s, k, part, op->bucket);
        double t1 = sim_now ();
        if (compute && op->purpose == DTS_COLL_PURPOSE_CONTEXT) {
          t->cp_s[ri] += t1 - t0;
          sim_window_note (sim, rk->rank, it, SIM_WINDOW_CONTEXT, NULL, t0, t0, t1);
        } else if (compute && op->purpose == DTS_COLL_PURPOSE_EXPERT) {
          t->ep_s[ri] += t1 - t0;
          sim_window_note (sim, rk->rank, it, SIM_WINDOW_EXPERT, NULL, t0, t0, t1);
        } else if (compute) {
          t->tp_s[ri] += t1 - t0;
          sim_window_note (sim, rk->rank, it, SIM_WINDOW_TP, NULL, t0, t0, t1);
        }
        /* a tensor stream's: its compute stream counts the wait for it */
        if (op->purpose == DTS_COLL_PURPOSE_TENSOR) {
          add_slice (t, rk->rank, it, DTS_TRACK_TENSOR, -1, plan->op, t0, t1, plan->bytes);
          break;
        }
        if (op->bucket < 0) {
          /* the distributed optimizer's parameter all-gathers */
          if (s->stream->kind == DTS_STREAM_COMM)
            t->gather_s[ri] += t1 - t0;
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
        sim->trace->events += rk->weight;
        sim_count_link_bytes (sim, rk, &sim->ranks[op->peer], (double) sim_whole_bytes (op->bytes));
        SimMsg *msg = g_new0 (SimMsg, 1);
        *msg = (SimMsg){ .sender = rk->rank, .clock = it, .samples = op->samples,
                         .version = peer_version (rk, op->peer, op->tag),
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
        if (op->peer == DTS_PEER_ANY) {
          if (rk->peer_version == NULL)
            rk->peer_version = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
          gint64 *from_key = g_new (gint64, 1), *v = g_new (gint64, 1);
          *from_key = (gint64) (((guint64) (guint32) got->sender << 32) | (guint32) got->server_tag);
          *v = got->version;
          g_hash_table_replace (rk->peer_version, from_key, v);
        }
        g_free (got);
        if (compute) {
          t->p2p_wait_s[ri] += sim_now () - t0;
          sim_window_note (sim, rk->rank, it, SIM_WINDOW_P2P_WAIT, NULL, t0, sim_now (),
                           sim_now ());
        }
        /* a pull of a parameter-server worker, on its compute stream or
         * on a stream of its own (sync-ps overlapping its pushes) */
        if ((compute || s->stream->kind == DTS_STREAM_P2P) && op->peer == DTS_PEER_ANY)
          add_slice (t, rk->rank, it, DTS_TRACK_PULL, -1, -1, t0, sim_now (), op->bytes);
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
      t->iter_end_s[ri] = sim_now ();
      sim_window_iteration_end (sim, it);
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
gboolean
sim_user_set_host_model (void)
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
  sg_host_t from = sim_part_rank (rx->sim, rx->c, rx->plan, from_part)->host;
  sg_host_t to = sim_part_rank (rx->sim, rx->c, rx->plan, to_part)->host;
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
  if (sc->plans->len == 0 || !dts_sg_network_is_plain_maxmin () || sim_user_set_host_model ())
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
    /* (a group none of whose members runs is never entered) */
    cm->barrier = sg_barrier_init (MAX (members, 1));
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
    sim->n_compute += st->kind == DTS_STREAM_COMPUTE;
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
  g_clear_pointer (&sim->plan_analytic, g_free);
  g_clear_pointer (&sim->lead, g_array_unref);
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
  for (int r = 0; sim->an.routes != NULL && r < sim->n; r++)
    dts_sim_peers_clear (&sim->an.routes[r], (GDestroyNotify) g_array_unref);
  g_clear_pointer (&sim->an.routes, g_free);
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
    g_clear_pointer (&sim->ranks[r].peer_version, g_hash_table_unref);
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
  G_STATIC_ASSERT (DTS_TRACE_N_COLL_OPS == DTS_COLL_N_OPS);
  for (int k = 0; k < DTS_TRACE_N_COLL_OPS; k++)
    t->coll_op_names[k] = g_strdup (dts_coll_op_to_string (k));
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

/* One line on stderr (also under -q) where `auto` would run some plans
 * of this flow run at analytic: they are not lock-step (NCCL's tree), so
 * they neither fold nor run as one flow per phase. */
static void
hint_auto (const DtsSchedule *sched, const DtsSimSettings *set)
{
  DtsSimSettings as_auto = *set;
  as_auto.analytic_alone = TRUE;
  int n;
  g_autofree guint8 *mask = dts_sim_plans_alone (sched, &as_auto, &n);
  if (n > 0)
    g_printerr ("dtsim: note: %d of %u collectives are not lock-step (NCCL's tree) and run "
                "transfer by transfer at flow granularity, which is slow at %d GPUs; "
                "--comm-granularity auto (the default) runs them at analytic, alone on the "
                "network as they are (doc/SIMULATION.md, \"auto\")\n",
                n, sched->plans->len, sched->n_ranks);
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
    trace->ps_parts = MAX (sched->ps_parts, 1);
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
  trace->plans_analytic = sim_plans_analytic_alone (&sim);
  if (set->hint_auto && set->granularity == DTS_GRANULARITY_FLOW && !set->analytic_alone
      && sim.n >= DTS_SIM_HINT_AUTO_RANKS)
    hint_auto (sched, set);
  int n_classes = sim_fold_ranks (&sim);
  if (set->folded != NULL)
    set->folded (set->folded_data, n_classes > 0 ? n_classes : sim.n, sim.n);
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
  sim_window_init (&sim);
  start_actors (&sim);
  simgrid_run ();
  sim_window_cut (&sim);
  if (sim.rep != NULL)
    sim_unfold (&sim);
  trace->wall_time_s = (g_get_monotonic_time () - sim.wall_start_us) / 1e6;
  trace->makespan_s = sim_now ();
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

/* The settings of a `dtsim run` with options OPTS. */
static DtsSimSettings
run_settings (const DtsRunOptions *opts)
{
  return (DtsSimSettings){
    .platform_path = opts->platform_path,
    .cfg = opts->cfg,
    .overrides = opts->overrides,
    .granularity = opts->granularity,
    .analytic_alone = opts->granularity_auto,
    .hint_auto = TRUE,
    .iterations = opts->iterations,
    .record_slices = opts->record_slices,
    .link_stats = opts->link_stats,
    .progress = opts->progress,
    .speed_use = "converts kernel times to work with it",
    .compute_jitter_sigma = opts->compute_jitter_sigma,
    .seed = opts->seed,
    .coll_overhead_s = opts->coll_overhead_s,
  };
}

DtsTrace *
dts_sim_run (const DtsSchedule *sched, const DtsPlatform *platform, const DtsWorkload *workload,
             const DtsRunOptions *opts, void (*folded) (gpointer data, int n_run, int n_ranks),
             gpointer folded_data, GError **error)
{
  DtsSimSettings set = run_settings (opts);
  set.folded = folded;
  set.folded_data = folded_data;
  return dts_sim_execute (sched, platform, workload, &set, error);
}

gboolean
dts_sim_run_plans_analytic (const DtsSchedule *sched, const DtsRunOptions *opts, guint8 **mask,
                            GError **error)
{
  *mask = NULL;
  if (opts->granularity == DTS_GRANULARITY_ANALYTIC) {
    *mask = g_new (guint8, MAX (sched->plans->len, 1));
    memset (*mask, 1, MAX (sched->plans->len, 1));
    return TRUE;
  }
  if (!opts->granularity_auto || opts->granularity != DTS_GRANULARITY_FLOW)
    return TRUE;
  /* the network model decides: SimGrid configured, the platform loaded
   * (once: the run goes on with it) */
  if (!dts_sim_load_platform (opts->platform_path, opts->cfg, opts->overrides, error))
    return FALSE;
  DtsSimSettings set = run_settings (opts);
  *mask = dts_sim_plans_alone (sched, &set, NULL);
  return TRUE;
}
