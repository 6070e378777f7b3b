/* load.c - the bandwidth time of a plan from the load its steps put on the
 * links of their routes (dts_coll_plan_load_s, collective.h).
 *
 * Model: the participants' steps run in slots (a step's slot is its index,
 * or what the algorithm's step_slot says: the fold's extra ranks, the
 * tree's pipeline), every transfer of a slot at the same time and each
 * slot after the one before. A slot takes as long as its most loaded link
 * needs to carry the bytes that cross it: a link shared by its flows
 * (SimGrid's SHARED) carries the sum of the bytes of the slot's transfers
 * whose route crosses it (every channel's), a FATPIPE link the largest
 * transfer alone, so
 *   T = sum over slots t of max over links l of load(t, l) / bandwidth(l).
 * Two flows of a slot through one shared link thus get half its bandwidth
 * each; flows of different slots never meet. This is what max-min sharing
 * gives when the most loaded link of a slot stays the bottleneck of all of
 * its flows (the common case of symmetric exchanges: a ring, halving and
 * doubling, a node's rails). The latency is apart: per slot, the largest
 * latency of the routes of its transfers (a route's is the sum of its
 * links'), once per slot, as flow granularity sends a step's bytes in one
 * message (the step granularity pays it once per round of chunks, more
 * for steps of several chunks). It ignores that a slot's transfers may
 * start apart (ranks that skip a slot start the
 * next one early, so this is at most the time of lock-step slots), and the
 * reduction's compute. The steps of a lock-step phase (same peers and
 * bytes at every step: the ring's) are weighed once and counted n_steps
 * times, and so are consecutive slots with the same transfers. */
#include "config.h"

#include <string.h>

#include "collective/collective-private.h"

typedef struct {
  int slot, from, to;    /* the slot first: dts_coll_order_by_slot */
  double bytes;          /* per channel */
  int channels;
  int times;             /* identical slots it stands for (a lock-step phase's steps) */
} Flow;

typedef struct {
  double load, largest, bandwidth_Bps;
  gboolean shared;
  guint stamp;           /* the slot whose load this is; older: zero */
} Load;

static int
flow_cmp (const void *a, const void *b)
{
  const Flow *x = a, *y = b;
  if (x->slot != y->slot)
    return x->slot < y->slot ? -1 : 1;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  return x->to < y->to ? -1 : x->to > y->to;
}

/* Sort the N flows of one slot by sender and receiver, stably (as
 * glibc's qsort, a merge sort, did: the same order, so the same sums to
 * the last bit). They come gathered by participant, mostly in order: an
 * insertion sort is linear on them, where qsort's copies were a tenth
 * of a 16,384-GPU tree's weighing. */
static void
sort_slot (Flow *f, gsize n)
{
  for (gsize i = 1; i < n; i++) {
    if (flow_cmp (&f[i - 1], &f[i]) <= 0)
      continue;
    Flow x = f[i];
    gsize j = i;
    while (j > 0 && flow_cmp (&f[j - 1], &x) > 0) {
      f[j] = f[j - 1];
      j--;
    }
    f[j] = x;
  }
}

/* The transfers of the flows [A, A + N) and [B, B + N) are the same. */
static gboolean
same_flows (const Flow *a, const Flow *b, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (a[i].from != b[i].from || a[i].to != b[i].to || a[i].bytes != b[i].bytes
        || a[i].channels != b[i].channels || a[i].times != b[i].times)
      return FALSE;
  return TRUE;
}

static int
step_slot (const DtsCollPlan *plan, int part, int step)
{
  return plan->alg != NULL && plan->alg->step_slot != NULL
           ? plan->alg->step_slot (plan, part, step)
           : step;
}

/* What the slots so far add up to, and the last slot weighed. */
typedef struct {
  DtsCollLinksFn links;
  gpointer data;
  GHashTable *index;     /* link id -> 1 + its index in loads, for every slot */
  GArray *dense;         /* DtsCollLink.index - 1 -> 1 + its index in loads (0: not yet) */
  GArray *loads;         /* Load, valid for the slot stamped */
  guint stamp;           /* the slot being weighed (a Load of another is empty) */
  const Flow *prev_at;   /* the last slot weighed: PREV_N flows */
  gsize prev_n;
  double prev_s, prev_lat, total, total_lat;
} Weigh;

/* Add the slot of the N_FLOWS flows FLOWS (sorted by from and to), which
 * stay where they are until the next slot has been weighed. */
static gboolean
weigh_slot (Weigh *w, const Flow *flows, gsize n, GError **error)
{
  if (n == 0)
    return TRUE;
  if (w->prev_n == n && same_flows (w->prev_at, flows, n)) {
    w->total += w->prev_s;
    w->total_lat += w->prev_lat;
    w->prev_at = flows; /* the same transfers; the earlier may go */
    return TRUE;
  }
  w->stamp++;
  double slot_s = 0, slot_lat = 0;
  int slot_times = 1;
  for (const Flow *f = flows; f < flows + n; f++) {
    const DtsCollLink *route = NULL;
    int n_links = 0;
    if (!w->links (f->from, f->to, &route, &n_links, w->data, error))
      return FALSE;
    double lat = 0;
    for (int l = 0; l < n_links; l++)
      lat += route[l].latency_s;
    slot_lat = MAX (slot_lat, lat);
    slot_times = f->times;
    for (int l = 0; l < n_links; l++) {
      guint i, *slot_of_dense = NULL;
      if (route[l].index > 0) {
        if ((guint) route[l].index > w->dense->len)
          g_array_set_size (w->dense, route[l].index);
        slot_of_dense = &g_array_index (w->dense, guint, route[l].index - 1);
        i = *slot_of_dense;
      } else
        i = GPOINTER_TO_UINT (g_hash_table_lookup (w->index, route[l].id));
      if (i == 0) {
        Load fresh = { 0, 0, route[l].bandwidth_Bps, route[l].shared, 0 };
        g_array_append_val (w->loads, fresh);
        i = w->loads->len;
        if (slot_of_dense != NULL)
          *slot_of_dense = i;
        else
          g_hash_table_insert (w->index, (gpointer) route[l].id, GUINT_TO_POINTER (i));
      }
      Load *ld = &g_array_index (w->loads, Load, i - 1);
      if (ld->stamp != w->stamp) {
        ld->stamp = w->stamp;
        ld->load = ld->largest = 0;
      }
      ld->load += f->bytes * f->channels;
      ld->largest = MAX (ld->largest, f->bytes);
      if (ld->bandwidth_Bps > 0)
        slot_s = MAX (slot_s, (ld->shared ? ld->load : ld->largest) / ld->bandwidth_Bps);
    }
  }
  w->prev_s = slot_s * slot_times;
  w->prev_lat = slot_lat * slot_times;
  w->total += w->prev_s;
  w->total_lat += w->prev_lat;
  w->prev_at = flows;
  w->prev_n = n;
  return TRUE;
}

/* Append the sends of PART's step STEP to FLOWS, standing for TIMES slots. */
static void
add_step (const DtsCollPlan *plan, int part, int step, int times, DtsCollStepOps *ops,
          GArray *flows)
{
  dts_coll_plan_step_ops (plan, part, step, ops);
  for (guint i = 0; i < ops->xfers->len; i++) {
    const DtsCollXfer *x = &g_array_index (ops->xfers, DtsCollXfer, i);
    if (x->kind != DTS_XFER_SEND || x->peer == part || !(x->bytes > 0))
      continue;
    Flow f = { step_slot (plan, part, step), part, x->peer, x->bytes, x->channels, times };
    g_array_append_val (flows, f);
  }
}

guint *
dts_coll_order_by_slot (const void *base, gsize stride, guint n, int n_slots, guint **first)
{
  g_return_val_if_fail ((base != NULL || n == 0) && n_slots >= 0 && first != NULL, NULL);
  guint *f = g_new0 (guint, (gsize) n_slots + 1);
  for (guint i = 0; i < n; i++)
    f[*(const int *) ((const char *) base + i * stride) + 1]++;
  for (int t = 1; t <= n_slots; t++)
    f[t] += f[t - 1];
  guint *order = g_new (guint, MAX (n, 1));
  g_autofree guint *next = g_memdup2 (f, sizeof (guint) * ((gsize) n_slots + 1));
  for (guint i = 0; i < n; i++)
    order[next[*(const int *) ((const char *) base + i * stride)]++] = i;
  *first = f;
  return order;
}

gboolean
dts_coll_plan_load_s (const DtsCollPlan *plan, DtsCollLinksFn links, gpointer data,
                      double *bandwidth_s, double *latency_s, GError **error)
{
  g_return_val_if_fail (plan != NULL && links != NULL && bandwidth_s != NULL, FALSE);
  *bandwidth_s = 0;
  if (latency_s != NULL)
    *latency_s = 0;
  g_autoptr (GArray) flows = g_array_new (FALSE, FALSE, sizeof (Flow));
  g_autoptr (GArray) xfers = g_array_new (FALSE, FALSE, sizeof (DtsCollXfer));
  g_autoptr (GHashTable) index = g_hash_table_new (NULL, NULL);
  g_autoptr (GArray) loads = g_array_new (FALSE, FALSE, sizeof (Load));
  DtsCollStepOps ops = { .xfers = xfers };
  g_autoptr (GArray) dense = g_array_new (FALSE, TRUE, sizeof (guint));
  Weigh w = { .links = links, .data = data, .index = index, .dense = dense, .loads = loads };
  if (plan->alg != NULL && plan->alg->step_slot != NULL) {
    /* Steps are not slots: gather every step, then weigh slot by slot. */
    for (int part = 0; part < plan->n_parts; part++) {
      int n = dts_coll_plan_n_steps (plan, part);
      for (int s = 0; s < n; s++)
        add_step (plan, part, s, 1, &ops, flows);
    }
    /* Bucket by slot, then sort each slot's few flows by sender and
     * receiver. */
    int n_slots = 0;
    for (guint i = 0; i < flows->len; i++)
      n_slots = MAX (n_slots, g_array_index (flows, Flow, i).slot + 1);
    g_autofree guint *first = NULL;
    g_autofree guint *order = dts_coll_order_by_slot (flows->data, sizeof (Flow), flows->len,
                                                      n_slots, &first);
    g_autoptr (GArray) sorted = g_array_sized_new (FALSE, FALSE, sizeof (Flow), flows->len);
    for (guint i = 0; i < flows->len; i++)
      g_array_append_val (sorted, g_array_index (flows, Flow, order[i]));
    for (int t = 0; t < n_slots; t++) {
      Flow *slot = &g_array_index (sorted, Flow, first[t]);
      gsize n = first[t + 1] - first[t];
      sort_slot (slot, n);
      if (!weigh_slot (&w, slot, n, error))
        return FALSE;
    }
  } else {
    /* Step s of every participant is slot s: weigh them one at a time. The
     * steps of a lock-step phase have the same peers and bytes: its first
     * step stands for all. */
    int n_slots = 0;
    g_autofree int *n_steps = g_new (int, MAX (plan->n_parts, 1));
    for (int part = 0; part < plan->n_parts; part++) {
      n_steps[part] = dts_coll_plan_n_steps (plan, part);
      n_slots = MAX (n_slots, n_steps[part]);
    }
    /* Two arrays in turn: a slot is gathered in one while the last one
     * weighed stays in the other (weigh_slot compares them). */
    g_autoptr (GArray) other = g_array_new (FALSE, FALSE, sizeof (Flow));
    for (int s = 0; s < n_slots; s++) {
      int ph = -1;
      for (int q = 0; q < plan->n_phases && ph < 0; q++)
        if (s >= plan->phases[q].first_step
            && s < plan->phases[q].first_step + plan->phases[q].n_steps)
          ph = q;
      gboolean lockstep = ph >= 0 && plan->phases[ph].lockstep;
      if (lockstep && s > plan->phases[ph].first_step)
        continue;
      GArray *t = flows;
      flows = other;
      other = t;
      g_array_set_size (flows, 0);
      for (int part = 0; part < plan->n_parts; part++)
        if (s < n_steps[part])
          add_step (plan, part, s, lockstep ? plan->phases[ph].n_steps : 1, &ops, flows);
      /* gathered by sender: only each sender's few flows may need moving */
      sort_slot ((Flow *) flows->data, flows->len);
      if (!weigh_slot (&w, (const Flow *) flows->data, flows->len, error))
        return FALSE;
    }
  }
  *bandwidth_s = w.total;
  if (latency_s != NULL)
    *latency_s = w.total_lat;
  return TRUE;
}
