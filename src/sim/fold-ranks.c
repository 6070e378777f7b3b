/* fold-ranks.c - folded runs: ranks that behave identically run as one
 * (doc/SIMULATION.md, "Folded analytic runs" and "Folded flow runs"). The
 * class key of a rank (its programs, its host's figures and, at flow, what
 * tells its transfers apart), the conditions under which a run folds, and
 * the copy of each class's figures to its ranks after the run. */
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
gboolean
sim_fold_link_limits (const AnRoutes *an, int idx)
{
  return g_array_index (an->shared, gboolean, idx) && g_array_index (an->bw_Bps, double, idx) < 1e200;
}

/* Append the bits of V to a class key, as hex (g_string_append_printf's
 * "%a" was a fifth of a 65,536-rank flow run). */
void
sim_fold_key_double (GString *key, double v)
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

void
sim_fold_key_host (const Sim *sim, int r, GString *key)
{
  const Rank *rk = &sim->ranks[r];
  g_string_append_printf (key, "%a/%a/%d", rk->speed_flops, rk->reduce_s_per_byte,
                          sg_host_core_count (rk->host));
  if (host_overridden (sim, sg_host_get_name (rk->host)))
    g_string_append_printf (key, "/r%d", r);
}

/* Whether the programs of SC talk only through collectives and barriers
 * (no point-to-point message, no server). */
static gboolean
only_collectives (const DtsSchedule *sc)
{
  for (guint p = 0; p < sc->programs->len; p++) {
    const GArray *prog = g_ptr_array_index (sc->programs, p);
    for (guint i = 0; i < prog->len; i++) {
      DtsOpType t = g_array_index (prog, DtsOp, i).type;
      if (t != DTS_OP_COMPUTE && t != DTS_OP_RECORD && t != DTS_OP_WAIT && t != DTS_OP_COLL
          && t != DTS_OP_BARRIER)
        return FALSE;
    }
  }
  return TRUE;
}

/* Whether every phase of participant PART of PLAN is lock-step. */
static gboolean
part_lockstep (const DtsCollPlan *plan, int part)
{
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
  return TRUE;
}

/* One collective at a time on the network's communicators: every rank has
 * at most one communication stream and one communicator carries every
 * plan, so the barriers close each phase of a plan before the next starts.
 * Streams other than compute and communication (servers) answer FALSE when
 * ONLY_COMPUTE_COMM. */
static gboolean
one_collective_at_a_time (const DtsSchedule *sc, gboolean only_compute_comm)
{
  g_autofree int *comm_streams = g_new0 (int, MAX (sc->n_ranks, 1));
  for (guint i = 0; i < sc->streams->len; i++) {
    const DtsStream *st = &g_array_index (sc->streams, DtsStream, i);
    if (only_compute_comm && st->kind != DTS_STREAM_COMPUTE && st->kind != DTS_STREAM_COMM)
      return FALSE;
    if (st->kind == DTS_STREAM_COMM && ++comm_streams[st->rank] > 1)
      return FALSE;
  }
  for (guint k = 1; k < sc->plans->len; k++)
    if (sc->plan_comm[k] != sc->plan_comm[0])
      return FALSE;
  return TRUE;
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
  if (!dts_sg_network_is_plain_maxmin () || sim_user_set_host_model ())
    return FALSE;
  gboolean per_phase = one_collective_at_a_time (sim->sched, FALSE);
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
    if (sim->plan_analytic != NULL && sim->plan_analytic[k])
      continue; /* no flow: a barrier and a wait, the same for every member */
    if (plan->n_parts != plan->n_ranks || plan->n_servers > 0)
      return FALSE;
    /* every participant's steps are lock-step phases, run as flow phases */
    for (int part = 0; part < plan->n_parts; part++)
      if (!part_lockstep (plan, part))
        return FALSE;
    const PlanLatency *lat = sim_plan_latency (sim, k);
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
        const Rank *me = sim_part_rank (sim, c, plan, part);
        GString *kr = key[me->rank];
        g_string_append_printf (kr, "|%u.%d:", k, i);
        sim_fold_key_double (kr, extra[i * plan->n_parts + part]);
        for (guint j = 0; j < ops.xfers->len; j++) {
          const DtsCollXfer *x = &g_array_index (ops.xfers, DtsCollXfer, j);
          const Rank *peer = sim_part_rank (sim, c, plan, x->peer);
          g_string_append_c (kr, x->kind == DTS_XFER_SEND ? 's' : x->reduce ? 'r' : 'c');
          sim_fold_key_double (kr, x->channels);
          sim_fold_key_double (kr, x->bytes);
          if (peer == me)
            continue;
          const Rank *from = x->kind == DTS_XFER_SEND ? me : peer;
          const Rank *to = x->kind == DTS_XFER_SEND ? peer : me;
          const GArray *route = sim_an_route (sim, from, to);
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
            if (!sim_fold_link_limits (an, idx))
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
          sim_fold_key_double (kr, bw);
          sim_fold_key_double (kr, lat_s);
          sim_fold_key_double (kr, extra[i * plan->n_parts + x->peer]);
        }
      }
    }
  }
  return TRUE;
}

/* --comm-granularity auto. A plan whose steps are not lock-step phases
 * (NCCL's trees, chains: a pipeline over chunks) runs at flow as one flow
 * per transfer, step by step, and keeps a run from folding (above); at
 * 16,384 GPUs a ResNet-50 iteration took minutes. Its analytic time is
 * the sum of its pipeline slots, each as long as its longest step under
 * the link loads of every transfer of the slot (coll-exec.c, run_analytic),
 * which is what flow gives the plan alone, up to the slots' lock-step
 * (flow lets a chunk go on as soon as its own predecessor is done). What
 * analytic cannot see is other traffic on the plan's links. So such plans
 * run at analytic granularity when nothing else is on the network while
 * they run: every plan on one communicator, at most one communication
 * stream per rank (one collective at a time), no point-to-point message
 * and no server; plain max-min sharing (no network factors that analytic
 * would not apply); and no output that needs the transfers themselves
 * (--link-stats, step records). Lock-step plans (rings, multi-rail rings)
 * stay flows and fold as before. Measured: doc/SIMULATION.md, "auto". */
guint8 *
dts_sim_plans_alone (const DtsSchedule *sc, const DtsSimSettings *set, int *n_plans)
{
  int dummy;
  int *np = n_plans != NULL ? n_plans : &dummy;
  *np = 0;
  if (!set->analytic_alone || set->granularity != DTS_GRANULARITY_FLOW || set->record_steps
      || set->link_stats || sc->n_shards > 0 || sc->rank_cpu != NULL
      || !dts_sg_network_is_plain_maxmin () || sim_user_set_host_model ())
    return NULL;
  if (!only_collectives (sc))
    return NULL;
  if (!one_collective_at_a_time (sc, TRUE))
    return NULL;
  for (guint k = 0; k < sc->plans->len; k++) {
    const DtsCollPlan *plan = g_ptr_array_index (sc->plans, k);
    if (plan->n_parts != plan->n_ranks || plan->n_servers > 0 || plan->local != NULL)
      return NULL;
  }
  g_autofree guint8 *mask = g_new0 (guint8, MAX (sc->plans->len, 1));
  int n = 0;
  for (guint k = 0; k < sc->plans->len; k++) {
    const DtsCollPlan *plan = g_ptr_array_index (sc->plans, k);
    gboolean lockstep = TRUE;
    for (int part = 0; part < plan->n_parts && lockstep; part++)
      lockstep = part_lockstep (plan, part);
    if (!lockstep) {
      mask[k] = 1;
      n++;
    }
  }
  *np = n;
  return n > 0 ? g_steal_pointer (&mask) : NULL;
}

int
sim_plans_analytic_alone (Sim *sim)
{
  int n;
  sim->plan_analytic = dts_sim_plans_alone (sim->sched, sim->set, &n);
  return n;
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
  /* messages between ranks, or collectives on communicators of a
   * rank's own: along the mesh's data axis (fold-mesh.c) */
  gboolean wide = sim->set->granularity == DTS_GRANULARITY_ANALYTIC
                  && (sc->rank_plan_map != NULL || !only_collectives (sc));
  if (!wide && !only_collectives (sc))
    return 0;
  for (guint i = 0; i < sc->streams->len; i++) {
    DtsStreamKind k = g_array_index (sc->streams, DtsStream, i).kind;
    if (k != DTS_STREAM_COMPUTE && k != DTS_STREAM_COMM && !(wide && k == DTS_STREAM_P2P))
      return 0;
  }
  if (platform_has_profiles (sim->set->platform_path))
    return 0;
  if (wide) {
    int n_classes = sim_fold_mesh (sim);
    if (n_classes == 0) {
      for (int r = 0; r < sim->n; r++)
        sim->ranks[r].weight = 1;
      g_clear_pointer (&sim->rep, g_free);
    }
    return n_classes;
  }
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
    /* (the plan map too: a program shared by ranks on other communicators) */
    g_string_append_printf (key[st->rank], "%d.%d.%d.%d;", st->kind, st->index, st->program,
                            sc->rank_plan_map != NULL ? sc->rank_plan_map[st->rank] : -1);
  }
  g_autoptr (GHashTable) hosts = g_hash_table_new (NULL, NULL);
  for (int r = 0; r < sim->n && ok; r++) {
    Rank *rk = &sim->ranks[r];
    if (g_hash_table_contains (hosts, rk->host)) {
      ok = FALSE;
      break;
    }
    g_hash_table_add (hosts, rk->host);
    sim_fold_key_host (sim, r, key[r]);
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
    int kind, index, program, map, n;
    int stream = 0;
    while (ok && sscanf (k, "%d.%d.%d.%d;%n", &kind, &index, &program, &map, &n) == 4) {
      /* a program under a plan map: its collectives' communicators are the
       * rank's own (barriers are not mapped) */
      g_autofree guint8 *mapped = NULL;
      if (map >= 0) {
        mapped = g_new0 (guint8, MAX (n_comms, 1));
        const GArray *prog = g_ptr_array_index (sc->programs, program);
        for (guint i = 0; i < prog->len; i++) {
          const DtsOp *op = &g_array_index (prog, DtsOp, i);
          if (op->type == DTS_OP_COLL)
            mapped[sc->plan_comm[dts_schedule_rank_plan (sc, r, op->coll)]] = 1;
          else if (op->type == DTS_OP_BARRIER)
            mapped[op->comm] = 1;
        }
      }
      for (int c = 0; c < n_comms; c++)
        if (mapped != NULL ? mapped[c] : uses[(gsize) program * n_comms + c]) {
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

int
sim_fold_ranks (Sim *sim)
{
  DtsGranularity g = sim->set->granularity;
  if (g != DTS_GRANULARITY_ANALYTIC && g != DTS_GRANULARITY_FLOW)
    return 0;
  const char *env = g_getenv ("DTSIM_FOLD");
  int n_classes = fold_classes (sim, env != NULL && strcmp (env, "0") == 0 ? "1" : NULL);
  if (env != NULL && strcmp (env, "count") == 0)
    fprintf (stderr, "dtsim: %s: %d ranks run as %d%s%s%s\n",
             g == DTS_GRANULARITY_FLOW ? "flow" : "analytic", sim->n,
             n_classes > 0 ? n_classes : sim->n, sim->fold_why != NULL ? " (" : "",
             sim->fold_why != NULL ? sim->fold_why : "", sim->fold_why != NULL ? ")" : "");
  return n_classes;
}

/* After a folded run: every rank's figures are those of the rank that
 * stood for it; bucket times go back to the bucket's own rank. */
void
sim_unfold (Sim *sim)
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
      t->cp_s[to] = t->cp_s[from];
      t->ep_s[to] = t->ep_s[from];
      t->gather_wait_s[to] = t->gather_wait_s[from];
      t->gather_s[to] = t->gather_s[from];
    }
  }
  for (guint k = 0; k < sim->sched->plans->len; k++)
    t->bucket_rank[k] =
        ((const DtsCommunicator *) g_ptr_array_index (sim->sched->comms,
                                                      sim->sched->plan_comm[k]))->ranks[0];
  g_clear_pointer (&sim->rep, g_free);
}
