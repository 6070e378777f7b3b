/* tree.c - NCCL's double binary tree all-reduce as a plan.
 *
 * Model (NCCL 2.4+, "Massively scale your deep learning training with NCCL
 * 2.4", and the construction in NCCL's src/graph/trees.cc, read and
 * rewritten here): two trees over the m nodes (DtsCollParams.gpu_node; a
 * rank is a node of its own without it), each carrying half of every
 * channel's slice of the buffer, and inside each node a chain through its
 * GPUs. Node tree 0: node 0 is the root; the parent of node i > 0 is found
 * from b, the lowest set bit of i: (i xor b) or 2b, or i xor b when that is
 * m or more (so node 1's parent is 2, 3's is 2, 2's is 4, 6's is 4...: the
 * odd nodes are the leaves). Node tree 1 is tree 0 mirrored (node i plays
 * m-1-i) when m is even and shifted by one (i plays i-1 mod m) when m is
 * odd, so that most interior nodes of one tree are leaves of the other.
 * Inside a node the chain of tree 0 runs from local GPU 0 (the node's
 * head in tree 0, which talks to the heads of the parent and child nodes)
 * to the last GPU; tree 1's runs the other way, from the last GPU, so the
 * two trees cross nodes on different GPUs (and NICs) and use both
 * directions of the node's links. A rank has at most three children (the
 * next GPU of its chain and two child nodes' heads).
 *
 * Each tree's half is cut into M chunks of at most chunk_bytes (--chunk-size)
 * and pipelined: chunk c goes up (each rank reduces what its children send
 * into its copy and sends the sum to its parent) and down (the root's sum
 * is copied from parent to children) one tree level per slot. With h(r)
 * the height of rank r (leaves 0) and d(r) its depth (root 0) in a tree of
 * height H, rank r sends chunk c up at slot c + h(r), receives chunk c from
 * child q at slot c + h(q), receives it from its parent at slot
 * c + H + d(r) - 1 and sends it down at c + H + d(r). A rank's step is one
 * slot, with every transfer of both trees in that slot; slots where it has
 * nothing to do are not steps. Tags keep a rank's senders apart: tree t
 * uses 4t + i from child i and 4t + 3 from the parent.
 *
 * Closed form on a contention-free platform where every GPU has its own
 * link of bandwidth B and every route latency L (the flat test platforms),
 * if every slot ended for all ranks at once:
 *   T = sum over slots t of (L + C b(t) / B),
 * b(t) the most bytes per channel any rank sends or receives in slot t
 * (its transfers of the slot share its link). There are M + H + D - 1
 * slots, H and D the largest height and depth of the two trees (the
 * deepest leaf receives the last chunk at slot M - 1 + H + D - 1). Ranks
 * do not wait for slots they take no part in, so the simulated time is at
 * most this. dtsim allreduce reads B from the routes as the share of a
 * GPU's link over the plan's routes that cross it (up and down of both
 * trees, all at once in the pipeline), so B = share x the most routes
 * out of one rank. */
#include "config.h"

#include <math.h>

#include "collective/collective-private.h"
#include "core/error.h"

enum { T_PARENT, T_CHILD0, T_CHILD1, T_CHILD2, T_HEIGHT, T_DEPTH, T_FIELDS };
#define T_MAX_CHILDREN 3
#define T_TAGS 4 /* per tree: from child 0, 1, 2, from the parent */
/* A rank's activities (at most 2 trees x (1 + 3 + 3 + 1)) and, after the
 * trees, per rank: how many spans of slots it takes part in, then each
 * span's first and last slot (spans), so that slot_of needs no sort. */
#define T_MAX_ACTIVITIES (2 * (2 * T_MAX_CHILDREN + 2))
#define T_SPANS_FIELDS (1 + 2 * T_MAX_ACTIVITIES)

static int *
field (const DtsCollPlan *plan, int t, int r)
{
  return &plan->aux[((gsize) t * plan->n_ranks + r) * T_FIELDS];
}

/* Parent of rank R in tree 0 over N ranks (-1 for the root). */
static int
btree_parent (int n, int r)
{
  if (r == 0)
    return -1;
  int b = r & -r;
  int up = (r ^ b) | (b << 1);
  return up < n ? up : r ^ b;
}

static int
tree_root (const DtsCollPlan *plan, int t)
{
  return plan->aux[(gsize) 2 * plan->n_ranks * T_FIELDS + t];
}

static int
tree_parent (int n, int t, int r)
{
  if (t == 0)
    return btree_parent (n, r);
  if (n % 2 == 0) {
    int u = btree_parent (n, n - 1 - r);
    return u < 0 ? -1 : n - 1 - u;
  }
  int u = btree_parent (n, (r - 1 + n) % n);
  return u < 0 ? -1 : (u + 1) % n;
}

/* The parent of every rank in tree T: the node tree over node indices,
 * and inside each node a chain from its head (local GPU 0 for tree 0, the
 * last for tree 1) through its GPUs; a head's parent is the head of its
 * node's parent. */
static int
rank_parent (const DtsCollPlan *plan, int t, int r)
{
  int i = plan->node_of[r], g = plan->node_start[i + 1] - plan->node_start[i];
  int q = plan->position[r];
  int pos = t == 0 ? q : g - 1 - q;
  if (pos > 0)
    return plan->node_ranks[plan->node_start[i] + (t == 0 ? q - 1 : q + 1)];
  int u = tree_parent (plan->n_nodes, t, i);
  if (u < 0)
    return -1;
  int gu = plan->node_start[u + 1] - plan->node_start[u];
  return plan->node_ranks[plan->node_start[u] + (t == 0 ? 0 : gu - 1)];
}

static gboolean
build_trees (DtsCollPlan *plan, GError **error)
{
  int n = plan->n_ranks;
  plan->aux = g_new (int, (gsize) 2 * n * T_FIELDS + 2 + (gsize) n * T_SPANS_FIELDS);
  int heights[2] = { 0, 0 }, depths[2] = { 0, 0 };
  for (int t = 0; t < 2; t++) {
    plan->aux[(gsize) 2 * n * T_FIELDS + t] = -1;
    for (int r = 0; r < n; r++) {
      int *f = field (plan, t, r);
      f[T_PARENT] = rank_parent (plan, t, r);
      f[T_CHILD0] = f[T_CHILD1] = f[T_CHILD2] = -1;
      f[T_HEIGHT] = 0;
      f[T_DEPTH] = -1;
      if (f[T_PARENT] < 0)
        plan->aux[(gsize) 2 * n * T_FIELDS + t] = r;
    }
    for (int r = 0; r < n; r++) {
      int u = field (plan, t, r)[T_PARENT];
      if (u < 0)
        continue;
      int *fu = field (plan, t, u), i = 0;
      while (i < T_MAX_CHILDREN && fu[T_CHILD0 + i] >= 0)
        i++;
      if (i == T_MAX_CHILDREN) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                     "tree all-reduce: rank %d of tree %d has more than %d children", u, t,
                     T_MAX_CHILDREN);
        return FALSE;
      }
      fu[T_CHILD0 + i] = r;
    }
    /* Depths in O(n): walk up from each rank to one whose depth is known
     * (T_DEPTH -1: unknown, -2: on the current walk, so a cycle), then
     * number the walk back down.  A node-local chain is n deep. */
    g_autofree int *walk = g_new (int, n);
    for (int r = 0; r < n; r++) {
      int len = 0, u = r;
      while (field (plan, t, u)[T_DEPTH] == -1) {
        field (plan, t, u)[T_DEPTH] = -2;
        walk[len++] = u;
        if (field (plan, t, u)[T_PARENT] < 0)
          break;
        u = field (plan, t, u)[T_PARENT];
      }
      if (field (plan, t, u)[T_DEPTH] == -2 && field (plan, t, u)[T_PARENT] >= 0) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "tree all-reduce: tree %d has a cycle",
                     t);
        return FALSE;
      }
      /* u is the root (on the walk) or a rank of known depth (not on it) */
      int d = field (plan, t, u)[T_DEPTH] >= 0 ? field (plan, t, u)[T_DEPTH] + 1 : 0;
      for (int i = len - 1; i >= 0; i--) {
        field (plan, t, walk[i])[T_DEPTH] = d++;
        depths[t] = MAX (depths[t], d - 1);
      }
    }
    /* Heights, deepest ranks first: the ranks bucketed by depth */
    g_autofree int *first = g_new0 (int, depths[t] + 2);
    for (int r = 0; r < n; r++)
      first[field (plan, t, r)[T_DEPTH] + 1]++;
    for (int d = 1; d <= depths[t] + 1; d++)
      first[d] += first[d - 1];
    for (int r = 0; r < n; r++)
      walk[first[field (plan, t, r)[T_DEPTH]]++] = r;
    for (int i = n - 1; i >= 0; i--) {
      const int *fr = field (plan, t, walk[i]);
      if (fr[T_PARENT] >= 0) {
        int *fu = field (plan, t, fr[T_PARENT]);
        fu[T_HEIGHT] = MAX (fu[T_HEIGHT], fr[T_HEIGHT] + 1);
      }
    }
    heights[t] = field (plan, t, tree_root (plan, t))[T_HEIGHT];
  }
  /* Slots: the deepest leaf of either tree gets the last chunk last. */
  int m = plan->n_levels;
  plan->n_steps = 0;
  for (int t = 0; t < 2 && n > 1; t++)
    plan->n_steps = MAX (plan->n_steps, m + heights[t] + depths[t] - 1);
  return TRUE;
}

static void fill_spans (const DtsCollPlan *plan, int r);

DtsCollPlan *
dts_coll_tree_plan_new (const DtsCollParams *params, GError **error)
{
  if (!dts_coll_check_params (params, "tree all-reduce", TRUE, error))
    return NULL;
  int n = params->n_ranks;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_alloc ("tree", params);
  double half = params->bytes / params->channels / 2;
  double chunks = ceil (half / params->chunk_bytes * (1 - 1e-12));
  if (chunks > G_MAXINT / 4) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "tree all-reduce: %.0f chunks per tree; use a larger chunk size", chunks);
    return NULL;
  }
  plan->n_levels = chunks < 1 ? 1 : (int) chunks;
  /* Nodes in order of first appearance, a node's GPUs in rank order;
   * without nodes, every rank is a node of its own. */
  dts_coll_group_nodes (plan, params, TRUE);
  plan->seg_bytes = half / plan->n_levels;
  plan->n_rounds = 1;
  plan->n_parts = n;
  plan->sends_per_step = 4;
  plan->n_tags = 2 * T_TAGS;
  plan->n_phases = 1;
  plan->phases[0] = (DtsCollPhase){ 0, 0, FALSE, "reduce-broadcast" };
  if (!build_trees (plan, error))
    return NULL;
  for (int r = 0; r < n; r++)
    fill_spans (plan, r);
  plan->n_reduce_steps = plan->n_steps;
  guint64 key = dts_coll_key_add (dts_coll_key_add (0, 't'), n);
  for (int r = 0; r < n; r++)
    key = dts_coll_key_add (key, plan->node_of[r]);
  plan->peer_key = key;
  return g_steal_pointer (&plan);
}

/* What a rank does over the slots: activity i runs from slot start[i] for
 * M slots (chunk c at slot start + c). */
typedef struct {
  int start;
  int tree;
  DtsXferKind kind;
  int peer;
  gboolean reduce;
  int tag;
} Activity;

static int
activities (const DtsCollPlan *plan, int r, Activity *act)
{
  int k = 0;
  for (int t = 0; t < 2 && plan->n_ranks > 1; t++) {
    const int *f = field (plan, t, r);
    int H = field (plan, t, tree_root (plan, t))[T_HEIGHT];
    int d = f[T_DEPTH];
    if (f[T_PARENT] >= 0)
      act[k++] = (Activity){ f[T_HEIGHT], t, DTS_XFER_SEND, f[T_PARENT], FALSE, 0 };
    for (int i = 0; i < T_MAX_CHILDREN; i++) {
      int q = f[T_CHILD0 + i];
      if (q >= 0) {
        act[k++] = (Activity){ H + d, t, DTS_XFER_SEND, q, FALSE, 0 };
        act[k++] = (Activity){ field (plan, t, q)[T_HEIGHT], t, DTS_XFER_RECV, q, TRUE,
                               T_TAGS * t + i };
      }
    }
    if (f[T_PARENT] >= 0)
      act[k++] = (Activity){ H + d - 1, t, DTS_XFER_RECV, f[T_PARENT], FALSE,
                             T_TAGS * t + T_TAGS - 1 };
  }
  /* The tag of a send is the receiver's for this sender. */
  for (int i = 0; i < k; i++)
    if (act[i].kind == DTS_XFER_SEND) {
      const int *fp = field (plan, act[i].tree, act[i].peer);
      int c = 0;
      while (c < T_MAX_CHILDREN && fp[T_CHILD0 + c] != r)
        c++;
      act[i].tag = T_TAGS * act[i].tree + (fp[T_PARENT] == r ? T_TAGS - 1 : c);
    }
  return k;
}

static int *
spans (const DtsCollPlan *plan, int r)
{
  return &plan->aux[(gsize) 2 * plan->n_ranks * T_FIELDS + 2 + (gsize) r * T_SPANS_FIELDS];
}

/* Rank R's spans of slots: the slots of its activities (M from each
 * start), merged. */
static void
fill_spans (const DtsCollPlan *plan, int r)
{
  Activity act[T_MAX_ACTIVITIES];
  int k = activities (plan, r, act);
  int starts[T_MAX_ACTIVITIES];
  for (int i = 0; i < k; i++)
    starts[i] = act[i].start;
  for (int i = 1; i < k; i++) /* at most 16: insertion, no qsort call per step */
    for (int j = i; j > 0 && starts[j - 1] > starts[j]; j--) {
      int t = starts[j];
      starts[j] = starts[j - 1];
      starts[j - 1] = t;
    }
  int m = plan->n_levels, covered = -1, *sp = spans (plan, r);
  sp[0] = 0;
  for (int i = 0; i < k; i++) {
    int a = MAX (starts[i], covered + 1), b = starts[i] + m - 1;
    if (b < a)
      continue;
    sp[1 + 2 * sp[0]] = a;
    sp[2 + 2 * sp[0]] = b;
    sp[0]++;
    covered = b;
  }
}

/* The slot of rank R's step STEP (or the number of steps, STEP < 0). */
static int
slot_of (const DtsCollPlan *plan, int r, int step)
{
  const int *sp = spans (plan, r);
  int count = 0;
  for (int i = 0; i < sp[0]; i++) {
    int a = sp[1 + 2 * i], b = sp[2 + 2 * i];
    if (step >= 0 && step < count + (b - a + 1))
      return a + (step - count);
    count += b - a + 1;
  }
  return step < 0 ? count : -1;
}

int
dts_coll_tree_n_steps (const DtsCollPlan *plan, int part)
{
  return slot_of (plan, part, -1);
}

int
dts_coll_tree_step_slot (const DtsCollPlan *plan, int part, int step)
{
  return slot_of (plan, part, step);
}

void
dts_coll_tree_step_ops (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  int slot = slot_of (plan, part, step);
  Activity act[T_MAX_ACTIVITIES];
  int k = activities (plan, part, act);
  int m = plan->n_levels;
  double half = plan->bytes / plan->channels / 2;
  out->phase = 0;
  out->n_rounds = 1;
  out->chunk_bytes = plan->chunk_bytes;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < k; i++) {
      int c = slot - act[i].start;
      if (c < 0 || c >= m || (act[i].kind == DTS_XFER_SEND) != (pass == 0))
        continue;
      double off = c * plan->chunk_bytes;
      double bytes = c < m - 1 ? plan->chunk_bytes : half - off;
      dts_coll_add_xfer_at (out, act[i].kind, act[i].peer, act[i].tree * half + off, bytes,
                            plan->channels, act[i].reduce, act[i].tag);
    }
}

gboolean
dts_coll_tree_routes (const DtsCollPlan *plan, DtsCollRouteFn fn, gpointer data)
{
  for (int t = 0; t < 2; t++)
    for (int r = 0; r < plan->n_ranks; r++) {
      int u = field (plan, t, r)[T_PARENT];
      if (u >= 0
          && (!fn (r, u, "a rank sends its partial sums up the tree", data)
              || !fn (u, r, "a rank sends the finished sums down the tree", data)))
        return FALSE;
    }
  return TRUE;
}

double
dts_coll_tree_closed_form_s (const DtsCollPlan *plan, double share_Bps, double latency_s)
{
  int n = plan->n_ranks, m = plan->n_levels;
  if (n < 2 || !(share_Bps > 0))
    return 0;
  double half = plan->bytes / plan->channels / 2;
  /* Per slot, the most bytes a rank sends or receives in it. */
  g_autofree double *busiest = g_new0 (double, plan->n_steps);
  g_autofree double *out = g_new (double, plan->n_steps);
  g_autofree double *in = g_new (double, plan->n_steps);
  int routes = 0;
  for (int r = 0; r < n; r++) {
    Activity act[T_MAX_ACTIVITIES];
    int k = activities (plan, r, act), sends = 0;
    for (int t = 0; t < plan->n_steps; t++)
      out[t] = in[t] = 0;
    for (int i = 0; i < k; i++) {
      sends += act[i].kind == DTS_XFER_SEND;
      for (int c = 0; c < m; c++) {
        double b = c < m - 1 ? plan->chunk_bytes : half - c * plan->chunk_bytes;
        (act[i].kind == DTS_XFER_SEND ? out : in)[act[i].start + c] += b;
      }
    }
    routes = MAX (routes, sends);
    for (int t = 0; t < plan->n_steps; t++)
      busiest[t] = MAX (busiest[t], MAX (out[t], in[t]));
  }
  /* A GPU's link: the share of each of the routes that cross it. */
  double B = share_Bps * routes;
  double t = 0;
  for (int s = 0; s < plan->n_steps; s++)
    t += latency_s + busiest[s] * plan->channels / B;
  return t;
}
