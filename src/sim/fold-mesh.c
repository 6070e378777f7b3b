/* fold-mesh.c - folding along the data axis of a rank mesh: pipeline and
 * hybrid runs at analytic granularity (doc/SIMULATION.md, "Folded
 * pipelines and tensor-parallel groups"). fold-ranks.c folds ranks with
 * the same programs; this file the replicas that differ from one another
 * only in their groups and their pipeline peers.
 *
 * The replicas of a hybrid run have programs of their own (the
 * point-to-point messages of a pipeline name their peers) or run the
 * same program on communicators of their own (plan maps: a replica's
 * tensor, context and expert groups), so no two ranks have the same key
 * in fold-ranks.c. Replica d of stage s's tensor rank t still does what
 * replica 0 does, at the same simulated times, when:
 *   - its programs are replica 0's but for the peers and tags of their
 *     messages, which stay in its own replica (key: each program's
 *     shape, and for each message the peer's stage, tensor rank and place
 *     in its period of replicas, and its route's bandwidth and latency);
 *   - each collective it runs through a plan map takes the time of the
 *     one replica 0 runs there (key: the plan's analytic time);
 *   - it is on a host of the same figures (as in fold-ranks.c).
 * Ranks alike in that form classes (attempt 1); where a class has several
 * members in a communicator it is not wholly inside (a tensor group's
 * ranks, all alike), the key also keeps the stage, tensor rank and place
 * in the period apart, so that the classes run along the data axis only
 * (attempt 2). A period is M consecutive replicas, M the least common
 * multiple of the context and expert groups' replicas: a context ring's
 * and an expert group's members are at different places. The run folds
 * when, besides fold-ranks.c's conditions but the one against messages:
 *   - every communicator holds each class it meets either wholly (the
 *     data-parallel and expert-data groups) or once, and then only
 *     classes' stand-ins or no stand-in at all (replica 0's groups run,
 *     the others are never entered);
 *   - every rank's communicators and peers are its stand-in's images:
 *     member i of each group it runs in stands for member i of its
 *     stand-in's, and each message goes to the stand-in of its peer;
 *   - no link that shares its bandwidth and could limit the messages
 *     crossing it (they could take more than it has) carries messages
 *     of two periods, and each period has such links with the same
 *     bandwidths carrying the same messages (by the stand-ins of their
 *     ends): a period's messages then share links as the first's do,
 *     and links no message can saturate change nothing. Collectives make
 *     no flows at analytic granularity. */
#include "config.h"

#include <string.h>

#include <simgrid/host.h>

#include "schedule/mesh.h"
#include "sim/interp.h"

static gint
compare_gint64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

/* Whether program P has messages with a peer. */
static gboolean
program_has_p2p (const GArray *prog)
{
  for (guint i = 0; i < prog->len; i++) {
    DtsOpType t = g_array_index (prog, DtsOp, i).type;
    if (t == DTS_OP_SEND || t == DTS_OP_RECV)
      return TRUE;
  }
  return FALSE;
}

/* A hash of PROG's operations but for the peers and tags of its messages. */
static guint
program_shape_hash (const GArray *prog)
{
  guint64 h = 1469598103934665603ull;
  for (guint i = 0; i < prog->len; i++) {
    const DtsOp *op = &g_array_index (prog, DtsOp, i);
    guint64 d, b;
    memcpy (&d, &op->duration_s, sizeof d);
    memcpy (&b, &op->bytes, sizeof b);
    const guint64 v[] = { (guint64) op->type, (guint64) (guint32) op->coll,
                          (guint64) (guint32) op->event, d, b };
    for (gsize k = 0; k < G_N_ELEMENTS (v); k++)
      h = (h ^ v[k]) * 1099511628211ull;
  }
  return (guint) (h ^ (h >> 32));
}

typedef struct {
  const DtsSchedule *sc;
  int n_programs;
  guint8 *p2p;          /* program -> has messages */
  int *shape;           /* program -> the first program of its shape (p2p programs) */
  GArray **plans;       /* program -> the distinct plans it names, in order */
  GArray **barriers;    /* program -> the communicators of its barriers */
  int *first, *streams; /* rank -> its streams (indices into sc->streams): CSR */
  int *stage, *data, *place, *tensor; /* rank -> mesh position: stage, replica d as
                                          data = d / M and place = d mod M (M the least
                                          common multiple of the context and expert groups'
                                          replicas), tensor rank */
  int n_data;           /* periods of M replicas (every stage the same), or 0 */
  GHashTable *ids;      /* what a key says of a plan or a message -> its id + 1 */
  int *plan_id;         /* plan -> its id in ids, or -1 before its first use */
} Wide;

/* The id of DESC: its entry of ids, made on first use. */
static int
desc_id (Wide *w, const char *desc)
{
  gpointer id = g_hash_table_lookup (w->ids, desc);
  if (id == NULL) {
    id = GINT_TO_POINTER (g_hash_table_size (w->ids) + 1);
    g_hash_table_insert (w->ids, g_strdup (desc), id);
  }
  return GPOINTER_TO_INT (id) - 1;
}

static void
wide_clear (Wide *w)
{
  for (int p = 0; p < w->n_programs; p++)
    if (w->plans[p] != NULL) {
      g_array_unref (w->plans[p]);
      g_array_unref (w->barriers[p]);
    }
  g_free (w->plans);
  g_free (w->barriers);
  g_free (w->p2p);
  g_free (w->shape);
  g_free (w->first);
  g_free (w->streams);
  g_free (w->stage);
  g_free (w->data);
  g_free (w->place);
  g_free (w->tensor);
  g_free (w->plan_id);
  if (w->ids != NULL)
    g_hash_table_unref (w->ids);
}

/* Fill W; FALSE when the run cannot fold this way (a message to any
 * sender or a reply, a rank outside the mesh). */
static gboolean
wide_init (Wide *w, const Sim *sim)
{
  const DtsSchedule *sc = sim->sched;
  *w = (Wide){ .sc = sc, .n_programs = sc->programs->len };
  w->ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  w->plan_id = g_new (int, MAX (sc->plans->len, 1));
  for (guint k = 0; k < sc->plans->len; k++)
    w->plan_id[k] = -1;
  w->p2p = g_new0 (guint8, MAX (w->n_programs, 1));
  w->shape = g_new (int, MAX (w->n_programs, 1));
  w->plans = g_new0 (GArray *, MAX (w->n_programs, 1));
  w->barriers = g_new0 (GArray *, MAX (w->n_programs, 1));
  /* messages to a rank, not to any sender or a server's replies */
  for (int p = 0; p < w->n_programs; p++) {
    const GArray *prog = g_ptr_array_index (sc->programs, p);
    for (guint i = 0; i < prog->len; i++) {
      const DtsOp *op = &g_array_index (prog, DtsOp, i);
      if ((op->type == DTS_OP_SEND || op->type == DTS_OP_RECV)
          && (op->peer < 0 || op->peer >= sim->n))
        return FALSE;
    }
  }
  g_autoptr (GHashTable) by_hash = g_hash_table_new (NULL, NULL);
  for (int p = 0; p < w->n_programs; p++) {
    const GArray *prog = g_ptr_array_index (sc->programs, p);
    w->shape[p] = p;
    w->plans[p] = g_array_new (FALSE, FALSE, sizeof (int));
    w->barriers[p] = g_array_new (FALSE, FALSE, sizeof (int));
    g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
    for (guint i = 0; i < prog->len; i++) {
      const DtsOp *op = &g_array_index (prog, DtsOp, i);
      if (op->type == DTS_OP_BARRIER)
        g_array_append_val (w->barriers[p], op->comm);
      if (op->type == DTS_OP_COLL && g_hash_table_add (seen, GINT_TO_POINTER (op->coll + 1)))
        g_array_append_val (w->plans[p], op->coll);
    }
    if (!(w->p2p[p] = program_has_p2p (prog)))
      continue;
    /* the first program of the same shape, among those of its hash */
    guint h = program_shape_hash (prog);
    GSList *same = g_hash_table_lookup (by_hash, GUINT_TO_POINTER (h));
    for (GSList *l = same; l != NULL && w->shape[p] == p; l = l->next) {
      int q = GPOINTER_TO_INT (l->data);
      if (dts_schedule_program_same_but_peers (g_ptr_array_index (sc->programs, q), prog))
        w->shape[p] = q;
    }
    if (w->shape[p] == p)
      g_hash_table_insert (by_hash, GUINT_TO_POINTER (h), g_slist_prepend (same, GINT_TO_POINTER (p)));
  }
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, by_hash);
  while (g_hash_table_iter_next (&it, NULL, &v))
    g_slist_free (v);
  /* each rank's streams */
  w->first = g_new0 (int, sim->n + 1);
  w->streams = g_new (int, MAX (sc->streams->len, 1));
  for (guint i = 0; i < sc->streams->len; i++)
    w->first[g_array_index (sc->streams, DtsStream, i).rank + 1]++;
  for (int r = 0; r < sim->n; r++)
    w->first[r + 1] += w->first[r];
  g_autofree int *fill = g_memdup2 (w->first, sizeof (int) * (gsize) sim->n);
  for (guint i = 0; i < sc->streams->len; i++)
    w->streams[fill[g_array_index (sc->streams, DtsStream, i).rank]++] = (int) i;
  /* where each rank sits */
  if (sc->mesh == NULL || dts_mesh_n_ranks (sc->mesh) != sim->n)
    return FALSE;
  w->stage = g_new (int, sim->n);
  w->data = g_new (int, sim->n);
  w->place = g_new (int, sim->n);
  w->tensor = g_new (int, sim->n);
  for (int r = 0; r < sim->n; r++) {
    int d;
    if (!dts_mesh_coords (sc->mesh, r, &w->stage[r], &d, &w->tensor[r]))
      return FALSE;
    /* replicas fold in periods of M: a context group's C and an expert
     * group's EP consecutive replicas lie in one period, at places of their own */
    int C = MAX (dts_mesh_group_size (sc->mesh, DTS_MESH_CONTEXT, w->stage[r]), 1);
    int EP = MAX (dts_mesh_group_size (sc->mesh, DTS_MESH_EXPERT, w->stage[r]), 1);
    int M = C;
    while (M % EP != 0)
      M += C;
    int D = dts_mesh_group_size (sc->mesh, DTS_MESH_DATA, w->stage[r]) / M;
    w->data[r] = d / M;
    w->place[r] = d % M;
    w->n_data = r == 0 ? D : w->n_data == D ? D : 0;
  }
  return TRUE;
}

/* Rank R's class key: its streams' kinds, indices and programs (a
 * program with messages by its shape and, per message, where the peer
 * sits and the route's figures), the analytic time of each plan its plan
 * map gives it, its host's figures; with POSITION its stage, tensor rank
 * and place in its period. What it says of a plan or a message goes in
 * as a short id (desc_id): the same plans and routes recur in every
 * rank's key. */
static void
wide_key (Sim *sim, Wide *w, int r, gboolean position, GString *key)
{
  const DtsSchedule *sc = sim->sched;
  Rank *rk = &sim->ranks[r];
  gboolean mapped = sc->rank_plan_map != NULL;
  g_autoptr (GString) desc = g_string_new (NULL);
  for (int j = w->first[r]; j < w->first[r + 1]; j++) {
    const DtsStream *st = &g_array_index (sc->streams, DtsStream, w->streams[j]);
    int p = st->program;
    g_string_append_printf (key, "%d.%d.", st->kind, st->index);
    if (!w->p2p[p])
      g_string_append_printf (key, "p%d;", p);
    else {
      g_string_append_printf (key, "P%d:", w->shape[p]);
      const GArray *prog = g_ptr_array_index (sc->programs, p);
      for (guint i = 0; i < prog->len; i++) {
        const DtsOp *op = &g_array_index (prog, DtsOp, i);
        if (op->type != DTS_OP_SEND && op->type != DTS_OP_RECV)
          continue;
        int q = op->peer;
        double bw, lat_s;
        sim_an_route_figures (sim, op->type == DTS_OP_SEND ? rk : &sim->ranks[q],
                              op->type == DTS_OP_SEND ? &sim->ranks[q] : rk, &bw, &lat_s);
        g_string_printf (desc, "%d,%d,%d,%d,", w->stage[q], w->tensor[q], w->place[q],
                         w->data[q] == w->data[r]);
        sim_fold_key_double (desc, bw);
        sim_fold_key_double (desc, lat_s);
        g_string_append_printf (key, "%x,", desc_id (w, desc->str));
      }
    }
    for (guint i = 0; mapped && i < w->plans[p]->len; i++) {
      int k = dts_schedule_rank_plan (sc, r, g_array_index (w->plans[p], int, i));
      if (w->plan_id[k] < 0) {
        double t_s, lat_s;
        sim_analytic_plan_s (sim, k, &t_s, &lat_s);
        g_string_truncate (desc, 0);
        sim_fold_key_double (desc, t_s);
        sim_fold_key_double (desc, lat_s);
        sim_fold_key_double (desc,
                             ((const DtsCollPlan *) g_ptr_array_index (sc->plans, k))->fixed_s);
        w->plan_id[k] = desc_id (w, desc->str);
      }
      g_string_append_printf (key, "%x,", w->plan_id[k]);
    }
  }
  sim_fold_key_host (sim, r, key);
  if (position)
    g_string_append_printf (key, "@%d.%d.%d", w->stage[r], w->tensor[r], w->place[r]);
}

/* Whether communicator C of rank R's plan is the image of REP's: member
 * i's stand-in is member i of REP's. */
static gboolean
comm_image (const Sim *sim, int c, int c_rep)
{
  if (c == c_rep)
    return TRUE;
  const DtsCommunicator *a = g_ptr_array_index (sim->sched->comms, c);
  const DtsCommunicator *b = g_ptr_array_index (sim->sched->comms, c_rep);
  if (a->n_ranks != b->n_ranks)
    return FALSE;
  for (int i = 0; i < a->n_ranks; i++)
    if (sim->rep[a->ranks[i]] != b->ranks[i])
      return FALSE;
  return TRUE;
}

/* Every rank's communicators and peers are its stand-in's images; no
 * rank's two streams wait on one communicator. */
static const char *
wide_images (const Sim *sim, const Wide *w)
{
  const DtsSchedule *sc = sim->sched;
  int n_comms = sc->comms->len;
  g_autofree int *owner = g_new (int, MAX (n_comms, 1));
  g_autofree int *owner_stream = g_new (int, MAX (n_comms, 1));
  for (int c = 0; c < n_comms; c++)
    owner[c] = -1;
  for (int r = 0; r < sim->n; r++) {
    int rep = sim->rep[r];
    if (w->first[r + 1] - w->first[r] != w->first[rep + 1] - w->first[rep])
      return "a rank with other streams than its stand-in's";
    for (int j = 0; j < w->first[r + 1] - w->first[r]; j++) {
      const DtsStream *st = &g_array_index (sc->streams, DtsStream, w->streams[w->first[r] + j]);
      const DtsStream *sp
          = &g_array_index (sc->streams, DtsStream, w->streams[w->first[rep] + j]);
      const GArray *a = g_ptr_array_index (sc->programs, st->program);
      const GArray *b = g_ptr_array_index (sc->programs, sp->program);
      /* the communicators its program waits on, checked against the stand-in's */
      for (guint i = 0; i < w->plans[st->program]->len; i++) {
        int k = dts_schedule_rank_plan (sc, r, g_array_index (w->plans[st->program], int, i));
        int c = sc->plan_comm[k];
        if (owner[c] == r && owner_stream[c] != j)
          return "two streams of a rank on one communicator";
        owner[c] = r;
        owner_stream[c] = j;
      }
      for (guint i = 0; i < w->barriers[st->program]->len; i++) {
        int c = g_array_index (w->barriers[st->program], int, i);
        if (owner[c] == r && owner_stream[c] != j)
          return "two streams of a rank on one communicator";
        owner[c] = r;
        owner_stream[c] = j;
      }
      if (st->program == sp->program) {
        for (guint i = 0; rep != r && i < w->plans[st->program]->len; i++) {
          int k = g_array_index (w->plans[st->program], int, i);
          if (!comm_image (sim, sc->plan_comm[dts_schedule_rank_plan (sc, r, k)],
                           sc->plan_comm[dts_schedule_rank_plan (sc, rep, k)]))
            return "a group that is not its stand-in's image";
        }
        continue;
      }
      if (a->len != b->len)
        return "a program that is not its stand-in's";
      for (guint i = 0; i < a->len; i++) {
        const DtsOp *x = &g_array_index (a, DtsOp, i), *y = &g_array_index (b, DtsOp, i);
        if (x->type != y->type)
          return "a program that is not its stand-in's";
        if ((x->type == DTS_OP_SEND || x->type == DTS_OP_RECV) && sim->rep[x->peer] != y->peer)
          return "a message whose peer's stand-in is not its stand-in's peer";
        if ((x->type == DTS_OP_COLL
             && !comm_image (sim, sc->plan_comm[dts_schedule_rank_plan (sc, r, x->coll)],
                             sc->plan_comm[dts_schedule_rank_plan (sc, rep, y->coll)]))
            || (x->type == DTS_OP_BARRIER && !comm_image (sim, x->comm, y->comm)))
          return "a group that is not its stand-in's image";
      }
    }
  }
  return NULL;
}

/* Every communicator holds each class it meets wholly or once, and then
 * only stand-ins or none. */
static const char *
wide_comms (const Sim *sim)
{
  const DtsSchedule *sc = sim->sched;
  g_autofree int *inside = g_new0 (int, sim->n);
  for (guint c = 0; c < sc->comms->len; c++) {
    const DtsCommunicator *cm = g_ptr_array_index (sc->comms, c);
    int stand_ins = 0, once_not_stand_in = 0;
    for (int i = 0; i < cm->n_ranks; i++) {
      inside[sim->rep[cm->ranks[i]]]++;
      stand_ins += sim->rep[cm->ranks[i]] == cm->ranks[i];
    }
    gboolean ok = TRUE;
    for (int i = 0; i < cm->n_ranks; i++) {
      int r = cm->ranks[i], rep = sim->rep[r];
      if (inside[rep] == 1 && sim->ranks[rep].weight > 1)
        once_not_stand_in += rep != r;
      else if (inside[rep] != sim->ranks[rep].weight)
        ok = FALSE;
    }
    for (int i = 0; i < cm->n_ranks; i++)
      inside[sim->rep[cm->ranks[i]]] = 0;
    if (!ok)
      return "a group holding part of a class";
    if (stand_ins > 0 && once_not_stand_in > 0)
      return "a group of stand-ins and ranks that do not run";
  }
  return NULL;
}

static void
unref_array (gpointer a)
{
  if (a != NULL)
    g_array_unref (a);
}

/* The flows of one end (a sender, or a receiver) that cross a link: the
 * sum of their routes' bandwidths, and the links all of them cross before
 * it (a sender's) or after it (a receiver's), which bound them together. */
#define END_LINKS 16
typedef struct {
  double sum;
  int n;
  int common[END_LINKS];
} EndLoad;

/* Add a flow of bandwidth BW whose other links, before or after the link,
 * are LINKS[0..N-1], to *E (new when E->n < 0). */
static void
end_load_add (EndLoad *e, double bw, const int *links, int n)
{
  if (e->n < 0) {
    e->sum = bw;
    e->n = MIN (n, END_LINKS);
    memcpy (e->common, links, sizeof (int) * (gsize) e->n);
    return;
  }
  e->sum += bw;
  int kept = 0;
  for (int i = 0; i < e->n; i++)
    for (int j = 0; j < n; j++)
      if (links[j] == e->common[i]) {
        e->common[kept++] = e->common[i];
        break;
      }
  e->n = kept;
}

/* The most the flows of E can put on a link: their bandwidths, at most
 * the smallest link they all cross besides it. */
static double
end_load_bound (const AnRoutes *an, const EndLoad *e)
{
  double v = e->sum;
  for (int i = 0; i < e->n; i++)
    if (sim_fold_link_limits (an, e->common[i]))
      v = MIN (v, g_array_index (an->bw_Bps, double, e->common[i]));
  return v;
}

/* The links the messages cross: none that could limit them carries two
 * periods' messages, and every period has the same such links. The most
 * the messages can put on a link is the smaller of two sums, over their
 * senders and over their receivers, of what each end's messages can put
 * on it together: their routes' bandwidths, at most the smallest link
 * they all cross before it (a sender's) or after it (a receiver's): a
 * GPU whose two pipeline neighbours sit behind one NIC sends them at most
 * that NIC's bandwidth. */
static const char *
wide_links (Sim *sim, const Wide *w)
{
  const DtsSchedule *sc = sim->sched;
  AnRoutes *an = &sim->an;
  g_autoptr (GHashTable) pairs = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr (GHashTable) ends = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr (GArray) replica = g_array_new (FALSE, TRUE, sizeof (int));
  g_autoptr (GPtrArray) on = g_ptr_array_new_with_free_func (unref_array);
  for (int r = 0; r < sim->n; r++)
    for (int j = w->first[r]; j < w->first[r + 1]; j++) {
      int p = g_array_index (sc->streams, DtsStream, w->streams[j]).program;
      const GArray *prog = g_ptr_array_index (sc->programs, p);
      for (guint i = 0; w->p2p[p] && i < prog->len; i++) {
        const DtsOp *op = &g_array_index (prog, DtsOp, i);
        if (op->type != DTS_OP_SEND)
          continue;
        gint64 pk = (gint64) (((guint64) (guint32) r << 32) | (guint32) op->peer);
        if (w->data[r] != w->data[op->peer])
          return "a message between replicas";
        if (g_hash_table_contains (pairs, &pk))
          continue;
        g_hash_table_add (pairs, g_memdup2 (&pk, sizeof pk));
        const GArray *route = sim_an_route (sim, &sim->ranks[r], &sim->ranks[op->peer]);
        const int *links = (const int *) route->data;
        int n = route->len;
        double bw, lat_s;
        sim_an_route_figures (sim, &sim->ranks[r], &sim->ranks[op->peer], &bw, &lat_s);
        gint64 stood = (gint64) (((guint64) (guint32) sim->rep[r] << 32)
                                 | (guint32) sim->rep[op->peer]);
        for (int l = 0; l < n; l++) {
          int idx = links[l];
          if (!sim_fold_link_limits (an, idx))
            continue;
          if ((guint) idx >= replica->len) {
            g_array_set_size (replica, idx + 1);
            while (on->len < (guint) idx + 1)
              g_ptr_array_add (on, NULL);
          }
          if (g_ptr_array_index (on, idx) == NULL) {
            on->pdata[idx] = g_array_new (FALSE, FALSE, sizeof (gint64));
            g_array_index (replica, int, idx) = w->data[r];
          } else if (g_array_index (replica, int, idx) != w->data[r])
            g_array_index (replica, int, idx) = -1;
          g_array_append_val ((GArray *) g_ptr_array_index (on, idx), stood);
          /* its sender's load on the link (end 0), its receiver's (end 1) */
          for (int end = 0; end < 2; end++) {
            gint64 ek = (gint64) (((guint64) (guint32) idx << 32)
                                  | ((guint32) (end == 0 ? r : op->peer) << 1) | (guint32) end);
            EndLoad *e = g_hash_table_lookup (ends, &ek);
            if (e == NULL) {
              e = g_new (EndLoad, 1);
              e->n = -1;
              g_hash_table_insert (ends, g_memdup2 (&ek, sizeof ek), e);
            }
            if (end == 0)
              end_load_add (e, bw, links, l);
            else
              end_load_add (e, bw, links + l + 1, n - l - 1);
          }
        }
      }
    }
  /* the most the messages can put on each link, by senders and by receivers */
  g_autoptr (GArray) by_end = g_array_new (FALSE, TRUE, sizeof (double) * 2);
  g_array_set_size (by_end, replica->len);
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, ends);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    guint64 ek = *(const guint64 *) k;
    double *d = (double *) (void *) (by_end->data + (ek >> 32) * sizeof (double) * 2);
    d[ek & 1] += end_load_bound (an, v);
  }
  /* the links that could limit: one period's, the same in every period */
  g_autoptr (GHashTable) count = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint idx = 0; idx < replica->len; idx++) {
    double cap = g_array_index (an->bw_Bps, double, idx);
    const double *d = (const double *) (void *) (by_end->data + idx * sizeof (double) * 2);
    if (g_ptr_array_index (on, idx) == NULL || MIN (d[0], d[1]) <= cap * (1 + 1e-12))
      continue;
    int r = g_array_index (replica, int, idx);
    if (r < 0 || w->n_data <= 0)
      return "messages of two periods of replicas on a link they could saturate";
    GArray *ks = g_ptr_array_index (on, idx);
    g_array_sort (ks, compare_gint64);
    GString *sig = g_string_new (NULL);
    sim_fold_key_double (sig, cap);
    for (guint i = 0; i < ks->len; i++)
      g_string_append_printf (sig, "%" G_GINT64_MODIFIER "x,", g_array_index (ks, gint64, i));
    int *n = g_hash_table_lookup (count, sig->str);
    if (n == NULL) {
      n = g_new0 (int, w->n_data);
      g_hash_table_insert (count, g_string_free (sig, FALSE), n);
    } else
      g_string_free (sig, TRUE);
    n[r]++;
  }
  g_hash_table_iter_init (&it, count);
  while (g_hash_table_iter_next (&it, NULL, &v))
    for (int d = 1; d < w->n_data; d++)
      if (((int *) v)[d] != ((int *) v)[0])
        return "periods of replicas whose messages share links differently";
  return NULL;
}

/* Classes of ranks by KEY (sim->rep, weights); returns their number. */
static int
classes_by_key (Sim *sim, GString **key)
{
  int n_classes = 0;
  g_autoptr (GHashTable) first = g_hash_table_new (g_str_hash, g_str_equal);
  for (int r = 0; r < sim->n; r++)
    sim->ranks[r].weight = 0;
  for (int r = 0; r < sim->n; r++) {
    gpointer found = NULL;
    if (g_hash_table_lookup_extended (first, key[r]->str, NULL, &found))
      sim->rep[r] = GPOINTER_TO_INT (found);
    else {
      g_hash_table_insert (first, key[r]->str, GINT_TO_POINTER (r));
      sim->rep[r] = r;
      n_classes++;
    }
    sim->ranks[sim->rep[r]].weight++;
  }
  return n_classes;
}

int
sim_fold_mesh (Sim *sim)
{
  Wide w;
  gboolean ok = wide_init (&w, sim);
  /* each rank alone on its host (they would share its speed) */
  g_autoptr (GHashTable) hosts = g_hash_table_new (NULL, NULL);
  for (int r = 0; r < sim->n && ok; r++)
    ok = g_hash_table_add (hosts, sim->ranks[r].host);
  int n_classes = 0;
  g_autofree GString **key = g_new0 (GString *, sim->n);
  for (int r = 0; r < sim->n; r++)
    key[r] = g_string_new (NULL);
  sim->rep = g_new (int, sim->n);
  if (!ok)
    sim->fold_why = "a message to any rank, a rank outside the mesh or two on one host";
  for (int attempt = 0; ok && attempt < 2 && n_classes == 0; attempt++) {
    for (int r = 0; r < sim->n; r++) {
      g_string_truncate (key[r], 0);
      wide_key (sim, &w, r, attempt == 1, key[r]);
    }
    n_classes = classes_by_key (sim, key);
    if (n_classes == sim->n)
      sim->fold_why = "no two ranks alike";
    else if ((sim->fold_why = wide_comms (sim)) == NULL)
      sim->fold_why = wide_images (sim, &w);
    if (n_classes == sim->n || sim->fold_why != NULL)
      n_classes = 0;
  }
  if (n_classes > 0 && (sim->fold_why = wide_links (sim, &w)) != NULL)
    n_classes = 0;
  for (int r = 0; r < sim->n; r++)
    g_string_free (key[r], TRUE);
  wide_clear (&w);
  return n_classes;
}

