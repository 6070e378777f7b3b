/* sim.c - SimGrid actors that interpret a data-parallel schedule.
 *
 * See sim.h for the actors and the two granularities. Details of the model:
 *
 * step: at ring step s, for every round r (chunk) the rank posts one send
 * per channel to its ring successor and one receive per channel from its
 * predecessor, starts the reduction of the received chunks (reduce-scatter
 * steps only) on its GPU, and waits for all of them. So one step costs
 * R x (L + C x chunk / B) on a contention-free ring of bandwidth B and
 * latency L (C channels share the link), as long as the reduction
 * (3 C chunk / mem_bw) is shorter than the transfer; the whole collective
 * 2(N-1) (R L + S / (N B)).
 *
 * flow: per phase (N-1 steps) the rank first sleeps (N-1) R Lmax - L_own,
 * where Lmax is the largest successor-route latency in the ring (the
 * slowest hop paces a lock-step ring) and L_own the latency its own flow
 * pays, then sends one flow per channel of (N-1) segment bytes, with one
 * reduction execution for the whole phase running alongside; then all ranks
 * leave the phase together (a barrier). The barrier stands for the data
 * dependency a flow does not have: in a ring, no rank can finish a phase
 * before the data that crosses the slowest hop has gone round to it, but a
 * flow on a fast hop would otherwise end early. On a contention-free ring
 * this is the step time exactly; elsewhere the two differ by the amounts
 * measured in doc/SIMULATION.md.
 *
 * Parameter servers (plans with n_servers > 0, the same at both
 * granularities): one server actor per server on the host of the rank that
 * runs it. Per bucket, every communication actor posts all its pushes (one
 * message of S/P bytes per server, to the server's mailbox) at once, then
 * all its pulls, and waits for them; the server receives the N - 1 remote
 * contributions, sums the N of them (an execution on its GPU of (N + 1) S/P
 * bytes of memory traffic at the GPU's memory bandwidth: add_n reads N
 * inputs and writes one), then sends the sum to the N - 1 remote ranks at
 * once. So the incast of N - 1 pushes at a server's link and the outcast of
 * its pulls share that link as the flow model says. The shard of the rank
 * that runs the server stays on the host: semaphores stand for its push and
 * pull. A server takes the next bucket once all its pulls have been sent.
 *
 * With per-node aggregation (collective.h) a bucket is, for every rank, the
 * ring all-reduce of its node (as at the step granularity, whatever the
 * granularity: a node has few ranks), then, for the node's leader only, the
 * push and pull above with the leaders as the N ranks, then the leader's
 * broadcast of S bytes to each other rank of the node, which waits for it.
 * The local ring uses the ranks' ring mailboxes, the broadcast their pulls
 * mailboxes, which only leaders otherwise receive on.
 *
 * Transfers are rounded to whole bytes (SimGrid counts bytes in a long). */
#include "config.h"

#include <math.h>
#include <stdio.h>
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
#include "sim/override.h"
#include "sim/sg-shim.h"
#include "sim/routes.h"
#include "sim/sim-private.h"
#include "sim/sim.h"


typedef struct _Sim Sim;

/* An operation as the compute actor runs it: a program operation, or, when
 * no per-layer slices are recorded, a run of consecutive compute operations
 * of one pass merged into one execution. Merging changes no simulated time
 * (a GPU shared by two executions gives each the same share whether the
 * work is one execution or a sequence), only the number of events; the
 * time of a merged execution is split over its phases in proportion to
 * their idle-GPU times. */
typedef struct {
  DtsOpType type;
  int phase;                 /* of the first merged operation */
  int layer;                 /* of the first merged operation */
  int bucket;
  double duration_s;         /* idle-GPU time of the whole run */
  double share[DTS_PHASE_COUNT]; /* fraction of duration_s in each phase */
} SimOp;

typedef struct {
  Sim *sim;
  int rank;
  sg_host_t host;
  double speed_flops;        /* host speed: converts seconds of GPU work to flops */
  double reduce_s_per_byte;  /* reduction kernel time per reduced byte */
  const GArray *ops;         /* SimOp, shared by ranks with the same program */
  sg_sem_t ready;            /* one release per bucket handed to the comm stream */
  sg_sem_t done;             /* one release per bucket all-reduced */
  sg_mailbox_t inbox;        /* messages from the ring predecessor */
  sg_mailbox_t pulls;        /* ps: summed shards from the servers */
} Rank;

/* A parameter server (ps plans). */
typedef struct {
  Sim *sim;
  int index;
  Rank *rank;                /* the participant whose host runs it */
  sg_mailbox_t inbox;        /* pushes from the other ranks */
  sg_sem_t local_in;         /* the hosting rank's own shard is ready */
  sg_sem_t local_out;        /* the hosting rank's shard is summed */
} Server;

/* Route latencies of one plan's ring. Plans with the same ring order
 * (every bucket of a data-parallel schedule) share the first one's, so the
 * N route queries are paid once per distinct ring, not once per bucket. */
typedef struct {
  gboolean known;
  gboolean borrowed;         /* hop_s belongs to an earlier plan's entry */
  double max_s;              /* largest successor-route latency in the ring */
  double *hop_s;             /* rank -> latency of its route to its successor */
} RingLatency;

struct _Sim {
  const DtsSchedule *sched;
  const DtsRunOptions *opts;
  int n;
  Rank *ranks;
  DtsTrace *trace;
  RingLatency *latency;      /* one per plan, filled on first use */
  GPtrArray *ops;            /* GArray of SimOp per schedule program */
  sg_bar_t phase_end;        /* flow: all ranks leave a phase together */
  int n_servers;             /* ps: servers of every plan (0 without) */
  const int *server_rank;    /* ps: server -> rank (the first plan's) */
  Server *servers;
  int finished;              /* compute actors that ran every iteration */
  gint64 wall_start_us;
  gint64 last_progress_us;
  int payload;               /* mailbox payloads must be non-NULL: &payload */
};

typedef void (*AllreduceFn) (Sim *sim, Rank *rk, int plan_index);

static double
now (void)
{
  return simgrid_get_clock ();
}

static void
execute_s (Sim *sim, Rank *rk, double seconds)
{
  sg_actor_execute (seconds * rk->speed_flops);
  sim->trace->events++;
}

static sg_exec_t
reduce_async (Sim *sim, Rank *rk, double bytes)
{
  if (!(bytes > 0))
    return NULL;
  sim->trace->events++;
  return sg_actor_exec_async (bytes * rk->reduce_s_per_byte * rk->speed_flops);
}

static long
whole_bytes (double bytes)
{
  return (long) llround (bytes);
}

int
dts_sim_exchange (sg_mailbox_t inbox, sg_mailbox_t to, void *payload, long bytes, int channels,
                  sg_exec_t reduction)
{
  sg_comm_t comms[2 * DTS_COLL_MAX_CHANNELS];
  void *slots[DTS_COLL_MAX_CHANNELS];
  for (int c = 0; c < channels; c++)
    comms[c] = sg_mailbox_put_async (to, payload, bytes);
  for (int c = 0; c < channels; c++)
    comms[channels + c] = sg_mailbox_get_async (inbox, &slots[c]);
  sg_comm_wait_all (comms, 2 * channels);
  if (reduction != NULL)
    sg_exec_wait (reduction);
  return channels;
}

static void
exchange (Sim *sim, Rank *rk, sg_mailbox_t to, long bytes, int channels, sg_exec_t reduction)
{
  sim->trace->events += dts_sim_exchange (rk->inbox, to, &sim->payload, bytes, channels, reduction);
}

/* Every step of ring PLAN at position POS; MEMBERS maps the plan's ranks to
 * the simulation's (NULL: the same). */
static void
ring_steps (Sim *sim, Rank *rk, const DtsCollPlan *plan, int pos, const int *members)
{
  for (int s = 0; s < plan->n_steps; s++) {
    DtsCollStep st;
    dts_coll_plan_step (plan, pos, s, &st);
    sg_mailbox_t to = sim->ranks[members ? members[st.send_to] : st.send_to].inbox;
    for (int r = 0; r < plan->n_rounds; r++) {
      double bytes = dts_coll_plan_round_bytes (plan, r);
      sg_exec_t red = st.reduce ? reduce_async (sim, rk, bytes * plan->channels) : NULL;
      exchange (sim, rk, to, whole_bytes (bytes), plan->channels, red);
    }
  }
}

static void
allreduce_step (Sim *sim, Rank *rk, int plan_index)
{
  const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, plan_index);
  ring_steps (sim, rk, plan, plan->position[rk->rank], NULL);
}

/* Route latencies of PLAN's ring; routes are only known once the platform
 * is sealed, that is from inside an actor. */
static const RingLatency *
ring_latency (Sim *sim, int plan_index)
{
  RingLatency *lat = &sim->latency[plan_index];
  if (lat->known)
    return lat;
  const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, plan_index);
  for (int q = 0; q < plan_index; q++) {
    const DtsCollPlan *other = g_ptr_array_index (sim->sched->plans, q);
    const RingLatency *known = &sim->latency[q];
    if (known->known && other->n_ranks == plan->n_ranks
        && memcmp (other->ring, plan->ring, sizeof *plan->ring * plan->n_ranks) == 0) {
      *lat = *known;
      lat->borrowed = TRUE;
      return lat;
    }
  }
  lat->hop_s = g_new0 (double, sim->n);
  lat->max_s = 0;
  for (int p = 0; p < plan->n_ranks; p++) {
    int from = plan->ring[p], to = plan->ring[(p + 1) % plan->n_ranks];
    lat->hop_s[from] = sg_host_get_route_latency (sim->ranks[from].host, sim->ranks[to].host);
    lat->max_s = MAX (lat->max_s, lat->hop_s[from]);
  }
  lat->known = TRUE;
  return lat;
}

static void
allreduce_flow (Sim *sim, Rank *rk, int plan_index)
{
  const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, plan_index);
  if (plan->n_steps == 0)
    return;
  const RingLatency *lat = ring_latency (sim, plan_index);
  DtsCollStep st;
  dts_coll_plan_step (plan, plan->position[rk->rank], 0, &st);
  sg_mailbox_t to = sim->ranks[st.send_to].inbox;
  int phase_steps[2] = { plan->n_reduce_steps, plan->n_steps - plan->n_reduce_steps };
  for (int ph = 0; ph < 2; ph++) {
    double extra_s = phase_steps[ph] * plan->n_rounds * lat->max_s - lat->hop_s[rk->rank];
    if (extra_s > 0) {
      sg_actor_sleep_for (extra_s);
      sim->trace->events++;
    }
    double bytes = phase_steps[ph] * plan->seg_bytes;
    sg_exec_t red = ph == 0 ? reduce_async (sim, rk, bytes * plan->channels) : NULL;
    exchange (sim, rk, to, whole_bytes (bytes), plan->channels, red);
    sg_barrier_wait (sim->phase_end);
  }
}

static void ps_push_pull (Sim *sim, Rank *rk, const DtsCollPlan *plan);

/* The ranks of RANK's node in a ps plan with aggregation, their number in
 * *M and RANK's index among them in *Q. */
static const int *
node_members (const DtsCollPlan *plan, int rank, int *m, int *q)
{
  int node = plan->node_of[rank];
  const int *members = plan->node_ranks + plan->node_start[node];
  *m = plan->node_start[node + 1] - plan->node_start[node];
  for (*q = 0; members[*q] != rank; (*q)++)
    ;
  return members;
}

/* The leader sends the pulled sum to every other rank of its node, which
 * receives it on its pulls mailbox (no server sends to a rank that does not
 * talk to the servers). */
static void
node_broadcast (Sim *sim, Rank *rk, const DtsCollPlan *plan)
{
  int m, q;
  const int *members = node_members (plan, rk->rank, &m, &q);
  if (m < 2)
    return;
  long bytes = whole_bytes (plan->bytes);
  if (q != 0) {
    void *slot;
    sg_comm_wait (sg_mailbox_get_async (rk->pulls, &slot));
    return;
  }
  g_autofree sg_comm_t *comms = g_new (sg_comm_t, m - 1);
  for (int i = 1; i < m; i++)
    comms[i - 1] = sg_mailbox_put_async (sim->ranks[members[i]].pulls, &sim->payload, bytes);
  sim->trace->events += m - 1;
  sg_comm_wait_all (comms, m - 1);
}

/* One bucket through the parameter servers, as one worker (see the header):
 * with per-node aggregation, first the node's ring all-reduce, then the
 * push and pull by the leader, then the leader's broadcast to the node. */
static void
allreduce_ps (Sim *sim, Rank *rk, int plan_index)
{
  const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, plan_index);
  if (plan->node_of != NULL) {
    int m, q;
    const int *members = node_members (plan, rk->rank, &m, &q);
    const DtsCollPlan *local = g_ptr_array_index (plan->local, plan->node_of[rk->rank]);
    ring_steps (sim, rk, local, local->position[q], members);
    if (dts_coll_plan_ps_talks (plan, rk->rank))
      ps_push_pull (sim, rk, plan);
    node_broadcast (sim, rk, plan);
    return;
  }
  ps_push_pull (sim, rk, plan);
}

static void
ps_push_pull (Sim *sim, Rank *rk, const DtsCollPlan *plan)
{
  int p = plan->n_servers;
  long bytes = whole_bytes (plan->seg_bytes);
  g_autofree sg_comm_t *comms = g_new (sg_comm_t, 2 * p);
  g_autofree void **slots = g_new (void *, p);
  int n_comms = 0, n_pulls = 0;
  for (int step = 0; step < plan->n_steps; step++) {
    DtsCollStep st;
    dts_coll_plan_ps_step (plan, rk->rank, step, &st);
    if (st.send_to == rk->rank)
      sg_sem_release (sim->servers[st.send_seg].local_in);
    else if (st.send_to >= 0)
      comms[n_comms++] = sg_mailbox_put_async (sim->servers[st.send_seg].inbox, &sim->payload,
                                               bytes);
    else if (st.recv_from != rk->rank)
      comms[n_comms++] = sg_mailbox_get_async (rk->pulls, &slots[n_pulls++]);
  }
  sim->trace->events += n_comms;
  sg_comm_wait_all (comms, n_comms);
  for (int step = plan->n_reduce_steps; step < plan->n_steps; step++) {
    DtsCollStep st;
    dts_coll_plan_ps_step (plan, rk->rank, step, &st);
    if (st.recv_from == rk->rank)
      sg_sem_acquire (sim->servers[st.recv_seg].local_out);
  }
}

static void
server_actor (int argc, char **argv)
{
  Server *sv = sg_actor_self_get_data ();
  Sim *sim = sv->sim;
  DtsTrace *t = sim->trace;
  int n = sim->n;
  g_autofree sg_comm_t *comms = g_new (sg_comm_t, MAX (n, 1));
  g_autofree void **slots = g_new (void *, MAX (n, 1));
  for (int it = 0; it < t->n_iterations; it++)
    for (int b = 0; b < t->n_buckets; b++) {
      const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, b);
      long bytes = whole_bytes (plan->seg_bytes);
      /* Contributions come from the ranks that talk to the servers (all of
       * them, or the node leaders); the hosting rank's own, if it talks,
       * stays on the host. */
      int talkers = dts_coll_plan_ps_n_talkers (plan);
      gboolean host_talks = dts_coll_plan_ps_talks (plan, sv->rank->rank);
      int remote = talkers - (host_talks ? 1 : 0);
      for (int r = 0; r < remote; r++)
        comms[r] = sg_mailbox_get_async (sv->inbox, &slots[r]);
      sg_comm_wait_all (comms, remote);
      if (host_talks)
        sg_sem_acquire (sv->local_in);
      /* add_n: read N shards, write one; reduce_s_per_byte counts 3 bytes. */
      double traffic = (talkers + 1) * plan->seg_bytes / DTS_SIM_REDUCE_BYTES_PER_BYTE;
      sg_exec_t sum = reduce_async (sim, sv->rank, traffic);
      if (sum != NULL)
        sg_exec_wait (sum);
      int m = 0;
      for (int r = 0; r < n; r++)
        if (r != sv->rank->rank && dts_coll_plan_ps_talks (plan, r))
          comms[m++] = sg_mailbox_put_async (sim->ranks[r].pulls, &sim->payload, bytes);
      sim->trace->events += 2 * m;
      if (host_talks)
        sg_sem_release (sv->local_out);
      sg_comm_wait_all (comms, m);
    }
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
 * are known: ring successors, or every rank and the parameter servers. */
#define RELAX_MAX_ROUTES (1 << 20)

typedef struct {
  GHashTable *state;           /* sg_link_t -> 1 can be relaxed, 2 must stay */
  GPtrArray *order;            /* FATPIPE links in the order first met */
  xbt_dynar_t links;
} Relax;

static void
relax_route (Relax *rx, sg_host_t from, sg_host_t to)
{
  if (from == to)
    return;
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
}

static gboolean
user_set_host_model (void)
{
  for (char **c = dts_sim_cfg_applied (); c && *c; c++)
    if (g_str_has_prefix (*c, "host/model:"))
      return TRUE;
  return FALSE;
}

static void
relax_fatpipes (Sim *sim)
{
  const GPtrArray *plans = sim->sched->plans;
  if (plans->len == 0 || !dts_sg_network_is_plain_maxmin () || user_set_host_model ())
    return;
  if ((double) sim->n * MAX (sim->n_servers, 1) * 2 > RELAX_MAX_ROUTES)
    return;
  Relax rx = { g_hash_table_new (NULL, NULL), g_ptr_array_new (),
               xbt_dynar_new (sizeof (sg_link_t), NULL) };
  if (sim->n_servers > 0) {
    for (int k = 0; k < sim->n_servers; k++)
      for (int r = 0; r < sim->n; r++) {
        sg_host_t server = sim->ranks[sim->server_rank[k]].host;
        relax_route (&rx, sim->ranks[r].host, server);
        relax_route (&rx, server, sim->ranks[r].host);
      }
    /* Per-node aggregation: the local rings and the leaders' broadcasts. */
    const DtsCollPlan *plan = g_ptr_array_index (plans, 0);
    for (int r = 0; plan->node_of != NULL && r < sim->n; r++) {
      int m, q;
      const int *members = node_members (plan, r, &m, &q);
      relax_route (&rx, sim->ranks[r].host, sim->ranks[members[(q + 1) % m]].host);
      relax_route (&rx, sim->ranks[members[0]].host, sim->ranks[r].host);
    }
  } else {
    for (guint i = 0; i < plans->len; i++) {
      const DtsCollPlan *plan = g_ptr_array_index (plans, i);
      gboolean seen = FALSE;
      for (guint q = 0; q < i && !seen; q++) {
        const DtsCollPlan *other = g_ptr_array_index (plans, q);
        seen = other->n_ranks == plan->n_ranks
               && memcmp (other->ring, plan->ring, sizeof *plan->ring * plan->n_ranks) == 0;
      }
      for (int p = 0; p < plan->n_ranks && !seen; p++)
        relax_route (&rx, sim->ranks[plan->ring[p]].host,
                     sim->ranks[plan->ring[(p + 1) % plan->n_ranks]].host);
    }
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

static const AllreduceFn executors[DTS_GRANULARITY_COUNT] = {
  [DTS_GRANULARITY_STEP] = allreduce_step,
  [DTS_GRANULARITY_FLOW] = allreduce_flow,
};

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
  if (!sim->opts->progress)
    return;
  gint64 t = g_get_monotonic_time ();
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

static void
compute_actor (int argc, char **argv)
{
  Rank *rk = sg_actor_self_get_data ();
  Sim *sim = rk->sim;
  DtsTrace *t = sim->trace;
  int n_buckets = t->n_buckets;
  for (int it = 0; it < t->n_iterations; it++) {
    gsize ri = dts_trace_ri (t, rk->rank, it);
    t->iter_start_s[ri] = now ();
    for (guint i = 0; i < rk->ops->len; i++) {
      const SimOp *op = &g_array_index (rk->ops, SimOp, i);
      double t0 = now ();
      switch (op->type) {
      case DTS_OP_COMPUTE:
        execute_s (sim, rk, op->duration_s);
        for (int p = 0; p < DTS_PHASE_COUNT; p++)
          t->phase_s[ri * DTS_TRACE_N_PHASES + p] += (now () - t0) * op->share[p];
        add_slice (t, rk->rank, it, DTS_TRACK_COMPUTE, op->phase, op->layer, t0, now (), 0);
        break;
      case DTS_OP_ALLREDUCE_START:
        if (rk->rank == 0)
          t->bucket_ready_s[(gsize) it * n_buckets + op->bucket] = t0;
        sg_sem_release (rk->ready);
        break;
      case DTS_OP_ALLREDUCE_WAIT:
        for (int b = 0; b < n_buckets; b++)
          sg_sem_acquire (rk->done);
        t->wait_s[ri] += now () - t0;
        break;
      }
    }
    t->iter_end_s[ri] = now ();
    if (rk->rank == 0)
      progress (sim, it, -1, FALSE);
  }
  sim->finished++;
}

static void
comm_actor (int argc, char **argv)
{
  Rank *rk = sg_actor_self_get_data ();
  Sim *sim = rk->sim;
  DtsTrace *t = sim->trace;
  AllreduceFn run = sim->n_servers > 0 ? allreduce_ps : executors[sim->opts->granularity];
  for (int it = 0; it < t->n_iterations; it++) {
    gsize ri = dts_trace_ri (t, rk->rank, it);
    for (int b = 0; b < t->n_buckets; b++) {
      sg_sem_acquire (rk->ready);
      double t0 = now ();
      run (sim, rk, b);
      double t1 = now ();
      t->comm_s[ri] += t1 - t0;
      const DtsCollPlan *plan = g_ptr_array_index (sim->sched->plans, b);
      add_slice (t, rk->rank, it, DTS_TRACK_COMM, -1, b, t0, t1, plan->bytes);
      if (rk->rank == 0) {
        gsize ib = (gsize) it * t->n_buckets + b;
        t->bucket_start_s[ib] = t0;
        t->bucket_end_s[ib] = t1;
        progress (sim, it, b, FALSE);
      }
      sg_sem_release (rk->done);
    }
  }
}

static gboolean
same_pass (DtsPhase a, DtsPhase b)
{
  gboolean bwd_a = a == DTS_PHASE_BACKWARD_DATA || a == DTS_PHASE_BACKWARD_WEIGHT;
  gboolean bwd_b = b == DTS_PHASE_BACKWARD_DATA || b == DTS_PHASE_BACKWARD_WEIGHT;
  return a == b || (bwd_a && bwd_b);
}

static GArray *
compile_program (const GArray *program, gboolean merge)
{
  GArray *ops = g_array_new (FALSE, TRUE, sizeof (SimOp));
  for (guint i = 0; i < program->len; i++) {
    const DtsOp *op = &g_array_index (program, DtsOp, i);
    SimOp *last = ops->len ? &g_array_index (ops, SimOp, ops->len - 1) : NULL;
    if (merge && op->type == DTS_OP_COMPUTE && last && last->type == DTS_OP_COMPUTE
        && same_pass (last->phase, op->phase)) {
      last->share[op->phase] += op->duration_s;
      last->duration_s += op->duration_s;
      continue;
    }
    SimOp so = { .type = op->type, .phase = op->phase, .layer = op->layer, .bucket = op->bucket,
                 .duration_s = op->duration_s };
    if (op->type == DTS_OP_COMPUTE)
      so.share[op->phase] = op->duration_s;
    g_array_append_val (ops, so);
  }
  /* Seconds to fractions. */
  for (guint i = 0; i < ops->len; i++) {
    SimOp *so = &g_array_index (ops, SimOp, i);
    for (int p = 0; p < DTS_PHASE_COUNT && so->type == DTS_OP_COMPUTE; p++)
      so->share[p] /= so->duration_s;
  }
  return ops;
}

gboolean
dts_sim_rank_host (const DtsPlatform *platform, int rank, const char *speed_use,
                   sg_host_t *host, double *speed_flops, double *reduce_s_per_byte,
                   GError **error)
{
  const DtsGpu *gpu = dts_platform_gpu (platform, rank);
  *host = sg_host_by_name (gpu->host);
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

static gboolean
set_up_ranks (Sim *sim, const DtsPlatform *platform, GError **error)
{
  for (int r = 0; r < sim->n; r++) {
    Rank *rk = &sim->ranks[r];
    rk->sim = sim;
    rk->rank = r;
    if (!dts_sim_rank_host (platform, r, "converts kernel times to work with it", &rk->host,
                            &rk->speed_flops, &rk->reduce_s_per_byte, error))
      return FALSE;
    rk->ops = g_ptr_array_index (sim->ops, sim->sched->rank_program[r]);
    g_autofree char *mb = g_strdup_printf ("dtsim-rank-%d", r);
    rk->inbox = sg_mailbox_by_name (mb);
    g_autofree char *pb = g_strdup_printf ("dtsim-pulls-%d", r);
    rk->pulls = sg_mailbox_by_name (pb);
  }
  for (int k = 0; k < sim->n_servers; k++) {
    Server *sv = &sim->servers[k];
    sv->sim = sim;
    sv->index = k;
    sv->rank = &sim->ranks[sim->server_rank[k]];
    g_autofree char *mb = g_strdup_printf ("dtsim-ps-%d", k);
    sv->inbox = sg_mailbox_by_name (mb);
  }
  return TRUE;
}

static void
start_actors (Sim *sim)
{
  gboolean comm = sim->trace->n_buckets > 0;
  for (int r = 0; r < sim->n; r++) {
    Rank *rk = &sim->ranks[r];
    rk->ready = sg_sem_init (0);
    rk->done = sg_sem_init (0);
    g_autofree char *cname = g_strdup_printf ("compute-%d", r);
    sg_actor_t a = sg_actor_init (cname, rk->host);
    sg_actor_set_data (a, rk);
    sg_actor_start (a, compute_actor, 0, NULL);
    if (comm) {
      g_autofree char *mname = g_strdup_printf ("comm-%d", r);
      sg_actor_t c = sg_actor_init (mname, rk->host);
      sg_actor_set_data (c, rk);
      sg_actor_start (c, comm_actor, 0, NULL);
    }
  }
  for (int k = 0; k < sim->n_servers && comm; k++) {
    Server *sv = &sim->servers[k];
    sv->local_in = sg_sem_init (0);
    sv->local_out = sg_sem_init (0);
    g_autofree char *name = g_strdup_printf ("ps-%d", k);
    sg_actor_t a = sg_actor_init (name, sv->rank->host);
    sg_actor_set_data (a, sv);
    sg_actor_start (a, server_actor, 0, NULL);
  }
}

static void
fill_names (DtsTrace *t, const DtsPlatform *platform, const DtsWorkload *workload)
{
  for (int p = 0; p < DTS_TRACE_N_PHASES; p++)
    t->phase_names[p] = g_strdup (dts_phase_to_string (p));
  for (guint l = 0; l < workload->layers->len; l++)
    g_ptr_array_add (t->layer_names, g_strdup (dts_workload_layer (workload, l)->name));
  for (int r = 0; r < t->n_ranks; r++)
    g_ptr_array_add (t->rank_hosts, g_strdup (dts_platform_gpu (platform, r)->host));
}

static gboolean configured_here;

DtsTrace *
dts_sim_run (const DtsSchedule *sched, const DtsPlatform *platform, const DtsWorkload *workload,
             const DtsRunOptions *opts, GError **error)
{
  G_STATIC_ASSERT (DTS_TRACE_N_PHASES == DTS_PHASE_COUNT);
  g_return_val_if_fail (opts->granularity >= 0 && opts->granularity < DTS_GRANULARITY_COUNT,
                        NULL);
  g_return_val_if_fail (sched->n_ranks <= (int) platform->gpus->len, NULL);
  g_return_val_if_fail (opts->iterations >= 1, NULL);

  if (dts_sim_cfg_applied () == NULL) {
    if (!dts_sim_configure (opts->cfg, error))
      return NULL;
  }
  if (configured_here) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "the simulator can run once per process");
    return NULL;
  }
  configured_here = TRUE;

  g_autofree char *message = NULL;
  if (!dts_sg_load_platform (opts->platform_path, &message)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "platform '%s': %s", opts->platform_path,
                 message);
    return NULL;
  }
  if (opts->overrides != NULL && !dts_sim_apply_overrides (opts->overrides, error))
    return NULL;

  Sim sim = { .sched = sched, .opts = opts, .n = sched->n_ranks };
  g_autofree Rank *ranks = g_new0 (Rank, sim.n);
  g_autofree RingLatency *latency = g_new0 (RingLatency, sched->plans->len + 1);
  sim.ranks = ranks;
  sim.latency = latency;
  if (sched->plans->len > 0) {
    const DtsCollPlan *first = g_ptr_array_index (sched->plans, 0);
    sim.n_servers = first->n_servers;
    sim.server_rank = first->server_rank;
  }
  g_autofree Server *servers = g_new0 (Server, MAX (sim.n_servers, 1));
  sim.servers = servers;
  g_autoptr (GPtrArray) ops = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint p = 0; p < sched->programs->len; p++)
    g_ptr_array_add (ops, compile_program (g_ptr_array_index (sched->programs, p),
                                           !opts->record_slices));
  sim.ops = ops;
  g_autoptr (DtsTrace) trace = dts_trace_new (sim.n, opts->iterations, sched->buckets->len,
                                              opts->record_slices);
  sim.trace = trace;
  fill_names (trace, platform, workload);
  if (!set_up_ranks (&sim, platform, error))
    return NULL;
  if (!dts_sg_seal_platform (&message)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "platform '%s': %s", opts->platform_path,
                 message);
    return NULL;
  }
  /* A GPU pair without a route makes SimGrid abort on the first query:
   * check every pair the plans use, with file and line, before any. */
  if (!dts_sim_check_routes (platform, sched->plans, error))
    return NULL;
  relax_fatpipes (&sim);

  sim.wall_start_us = g_get_monotonic_time ();
  sim.phase_end = sg_barrier_init (sim.n);
  start_actors (&sim);
  simgrid_run ();
  trace->wall_time_s = (g_get_monotonic_time () - sim.wall_start_us) / 1e6;
  trace->makespan_s = now ();
  if (opts->progress)
    fprintf (stderr, "\r%*s\r", 72, "");

  sg_barrier_destroy (sim.phase_end);
  for (guint p = 0; p < sched->plans->len; p++)
    if (!latency[p].borrowed)
      g_free (latency[p].hop_s);
  for (int r = 0; r < sim.n; r++) {
    sg_sem_destroy (ranks[r].ready);
    sg_sem_destroy (ranks[r].done);
  }
  for (int k = 0; k < sim.n_servers && trace->n_buckets > 0; k++) {
    sg_sem_destroy (servers[k].local_in);
    sg_sem_destroy (servers[k].local_out);
  }
  if (sim.finished != sim.n) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "internal error: the simulation stopped with %d of %d ranks unfinished",
                 sim.n - sim.finished, sim.n);
    return NULL;
  }
  return g_steal_pointer (&trace);
}
