/* test-collective.c - collective plans against a naive reference interpreter
 * and against their closed forms. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "collective/collective.h"
#include "core/error.h"
#include "testlib.h"

/* The reference: every rank holds N segments, each the set of ranks whose
 * contribution it contains (a bit mask). All participants of a step send
 * what they held before the step, then receive: a reduction adds a set that
 * must be disjoint from the local one (no contribution counted twice), a copy
 * replaces it. The all-reduce is right when every rank ends with every
 * segment holding every contribution. Returns NULL or what went wrong. */
static char *
reference_run (const DtsCollPlan *plan)
{
  int n = plan->n_ranks;
  g_autofree guint64 *held = g_new0 (guint64, n * n);  /* [rank][segment] */
  g_autofree guint64 *sent = g_new0 (guint64, n);
  g_autofree int *sent_seg = g_new0 (int, n);
  for (int r = 0; r < n; r++)
    for (int seg = 0; seg < n; seg++)
      held[r * n + seg] = G_GUINT64_CONSTANT (1) << r;
  for (int step = 0; step < plan->n_steps; step++) {
    for (int pos = 0; pos < n; pos++) {
      DtsCollStep st;
      dts_coll_plan_step (plan, pos, step, &st);
      int r = plan->ring[pos];
      sent[r] = held[r * n + st.send_seg];
      sent_seg[r] = st.send_seg;
    }
    for (int pos = 0; pos < n; pos++) {
      DtsCollStep st, from;
      dts_coll_plan_step (plan, pos, step, &st);
      dts_coll_plan_step (plan, plan->position[st.recv_from], step, &from);
      int r = plan->ring[pos];
      if (from.send_to != r || sent_seg[st.recv_from] != st.recv_seg)
        return g_strdup_printf ("step %d: rank %d expects segment %d from %d, which sends %d to %d",
                                step, r, st.recv_seg, st.recv_from, sent_seg[st.recv_from],
                                from.send_to);
      guint64 *mine = &held[r * n + st.recv_seg];
      if (st.reduce) {
        if (*mine & sent[st.recv_from])
          return g_strdup_printf ("step %d: rank %d counts a contribution twice", step, r);
        *mine |= sent[st.recv_from];
      } else {
        *mine = sent[st.recv_from];
      }
    }
  }
  guint64 all = n == 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT (1) << n) - 1;
  for (int r = 0; r < n; r++)
    for (int seg = 0; seg < n; seg++)
      if (held[r * n + seg] != all)
        return g_strdup_printf ("rank %d ends with segment %d incomplete", r, seg);
  return NULL;
}

static DtsCollPlan *
ring_plan (int n, const int *ring, double bytes, int channels, double chunk)
{
  DtsCollParams p = { .n_ranks = n, .ring = ring, .bytes = bytes, .channels = channels,
                      .chunk_bytes = chunk };
  g_autoptr (GError) error = NULL;
  DtsCollPlan *plan = dts_coll_plan_new ("ring", &p, &error);
  ck_assert_msg (plan != NULL, "%s", error ? error->message : "");
  return plan;
}

START_TEST (test_ring_reference)
{
  for (int n = 1; n <= 64; n = n < 8 ? n + 1 : n * 2) {
    g_autoptr (DtsCollPlan) plan = ring_plan (n, NULL, 1e6, 1, DTS_COLL_DEFAULT_CHUNK_BYTES);
    g_autofree char *why = reference_run (plan);
    ck_assert_msg (why == NULL, "N=%d: %s", n, why);
  }
}
END_TEST

/* Any ring order works, e.g. ranks interleaved across nodes. */
START_TEST (test_ring_reference_permuted)
{
  int ring[12];
  for (int p = 0; p < 12; p++)
    ring[p] = (p * 5) % 12; /* 5 is coprime with 12: a permutation */
  g_autoptr (DtsCollPlan) plan = ring_plan (12, ring, 1e6, 3, 1e5);
  g_autofree char *why = reference_run (plan);
  ck_assert_msg (why == NULL, "%s", why);
  DtsCollStep st;
  dts_coll_plan_step (plan, 0, 0, &st);
  ck_assert_int_eq (st.send_to, 5);
  ck_assert_int_eq (st.recv_from, 7);
}
END_TEST

/* A plan that is wrong must be caught: the test of the test. */
START_TEST (test_reference_catches_errors)
{
  g_autoptr (DtsCollPlan) plan = ring_plan (4, NULL, 1e6, 1, 1e6);
  plan->n_steps = 5; /* one all-gather step short */
  g_autofree char *why = reference_run (plan);
  ck_assert_ptr_nonnull (why);
  ck_assert (strstr (why, "incomplete") != NULL);
  plan->n_steps = 6;
  plan->n_reduce_steps = 4; /* reduce once too often: counts twice */
  g_autofree char *why2 = reference_run (plan);
  ck_assert_ptr_nonnull (why2);
}
END_TEST

START_TEST (test_ring_closed_forms)
{
  const double S = 100e6;
  for (int n = 2; n <= 1024; n *= 2) {
    for (int c = 1; c <= 4; c++) {
      g_autoptr (DtsCollPlan) plan = ring_plan (n, NULL, S, c, DTS_COLL_DEFAULT_CHUNK_BYTES);
      ck_assert_int_eq (plan->n_steps, 2 * (n - 1));
      ck_assert_int_eq (plan->n_reduce_steps, n - 1);
      ck_assert_double_eq_tol (dts_coll_plan_bytes_per_rank (plan), 2.0 * (n - 1) / n * S,
                               1e-6);
      int rounds = (int) ceil (S / ((double) n * c * DTS_COLL_DEFAULT_CHUNK_BYTES));
      ck_assert_int_eq (plan->n_rounds, rounds);
      double seg = 0;
      for (int r = 0; r < plan->n_rounds; r++) {
        double b = dts_coll_plan_round_bytes (plan, r);
        ck_assert (b > 0 && b <= DTS_COLL_DEFAULT_CHUNK_BYTES * (1 + 1e-12));
        seg += b;
      }
      ck_assert_double_eq_tol (seg, S / ((double) n * c), 1e-6);
    }
  }
  /* An exact multiple of the chunk makes no empty round. */
  g_autoptr (DtsCollPlan) even = ring_plan (4, NULL, 4 * 3 * 1000.0, 1, 1000.0);
  ck_assert_int_eq (even->n_rounds, 3);
  ck_assert_double_eq_tol (dts_coll_plan_round_bytes (even, 2), 1000.0, 1e-9);
  /* One rank: nothing to do. */
  g_autoptr (DtsCollPlan) one = ring_plan (1, NULL, S, 2, 1e6);
  ck_assert_int_eq (one->n_steps, 0);
  ck_assert_double_eq (dts_coll_plan_bytes_per_rank (one), 0);
}
END_TEST

static void
plan_bad (const char *algo, int n, const int *ring, double bytes, int channels, double chunk,
          const char *fragment)
{
  DtsCollParams p = { .n_ranks = n, .ring = ring, .bytes = bytes, .channels = channels,
                      .chunk_bytes = chunk };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_new (algo, &p, &error);
  ck_assert_ptr_null (plan);
  dts_test_assert_error (error, DTS_ERROR_INVALID, fragment, NULL);
}

START_TEST (test_ring_errors)
{
  int dup[] = { 0, 1, 1, 3 };
  int out[] = { 0, 1, 2, 4 };
  plan_bad ("ring", 0, NULL, 1e6, 1, 1e6, "at least one rank");
  plan_bad ("ring", 4, dup, 1e6, 1, 1e6, "not a permutation");
  plan_bad ("ring", 4, out, 1e6, 1, 1e6, "not a permutation");
  plan_bad ("ring", 4, NULL, -1, 1, 1e6, "non-negative");
  plan_bad ("ring", 4, NULL, NAN, 1, 1e6, "non-negative");
  plan_bad ("ring", 4, NULL, 1e6, 0, 1e6, "channels must be in 1..64");
  plan_bad ("ring", 4, NULL, 1e6, 65, 1e6, "channels");
  plan_bad ("ring", 4, NULL, 1e6, 1, 0, "chunk size must be a positive");
  plan_bad ("ring", 4, NULL, 1e18, 1, 1, "rounds per step");
  plan_bad ("tree2", 4, NULL, 1e6, 1, 1e6, "unknown collective algorithm 'tree2' (known: ring, ps, direct, rhd, rd");
}
END_TEST

/* The generic reference: runs any plan through the interface that src/sim/
 * interprets (dts_coll_plan_step_ops) as a message system. Each
 * participant knows, for every range of bytes of a channel's slice of the
 * buffer (an atom), a set of contributions (a bit mask over the members;
 * member i starts with {i} everywhere, servers with none). Starting a step
 * posts its sends, each carrying the sender's sets over the bytes it sends,
 * on a FIFO queue per (sender, receiver, tag); a step completes once a
 * message is waiting for each of its receives. A reduction adds the
 * message's sets to the receiver's, which must be disjoint (no
 * contribution counted twice); a copy replaces them. The plan is right when
 * this never deadlocks, every message is received by a receive of the same
 * offset, bytes and channels, and every member ends knowing every
 * contribution over every byte. When a plan does not say where its bytes
 * are (offset -1: ring, direct and ps), the whole slice is one atom and a
 * reduction and a copy alike add the message's set: only what reaches whom
 * is tracked, and the per-segment check of the ring is test_ring_reference.
 * Plans of other ops (plan->op) must say where their bytes are; members
 * start and must end as the op says (all-gather: {i} on block i alone, then
 * exactly {b} on every block b; reduce-scatter: block i of member i full;
 * broadcast: the root's {root} everywhere; reduce: the root full), and an
 * all-to-all tracks, instead of sets, the label of every atom of every
 * send buffer: sends read the send buffers, receives write the receive
 * buffers at their own offsets, and block i of member j's receive buffer
 * must end with the labels of block j of member i's send buffer. */
typedef struct {
  guint64 *set;         /* one per channel of the message and atom of [a0, a1) */
  int a0, a1;
  double offset, bytes;
  int channels, channel;
} Message;

static void
message_free (gpointer p)
{
  Message *m = p;
  g_free (m->set);
  g_free (m);
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* The atom boundary at X (within TOL), or -1. */
static int
boundary (const GArray *b, double x, double tol)
{
  for (guint i = 0; i < b->len; i++)
    if (fabs (g_array_index (b, double, i) - x) <= tol)
      return (int) i;
  return -1;
}

/* The block of atom A (of a slice cut in blocks of BLK). */
static int
atom_block (const GArray *b, int a, double blk, double tol)
{
  return (int) ((g_array_index (b, double, a) + tol) / blk);
}

/* Whether the W atoms from A and from B have the same lengths. */
static gboolean
same_atoms (const GArray *b, int a, int bb, int w, double tol)
{
  if (a < 0 || bb < 0 || bb + w >= (int) b->len)
    return FALSE;
  for (int i = 0; i < w; i++) {
    double la = g_array_index (b, double, a + i + 1) - g_array_index (b, double, a + i);
    double lb = g_array_index (b, double, bb + i + 1) - g_array_index (b, double, bb + i);
    if (fabs (la - lb) > tol)
      return FALSE;
  }
  return TRUE;
}

static char *
generic_run (const DtsCollPlan *plan)
{
  int np = plan->n_parts, n = plan->n_ranks, nt = dts_coll_plan_n_tags (plan);
  double slice = plan->bytes / MAX (plan->channels, 1);
  double tol = 1e-9 * MAX (slice, 1.0);
  g_autoptr (GArray) xfers = g_array_new (FALSE, TRUE, sizeof (DtsCollXfer));
  /* Atoms: every offset and end a plan names, when it names them all. */
  g_autoptr (GArray) bounds = g_array_new (FALSE, FALSE, sizeof (double));
  gboolean segmented = TRUE;
  for (int p = 0; p < np; p++)
    for (int st = 0; st < dts_coll_plan_n_steps (plan, p); st++) {
      DtsCollStepOps ops = { .xfers = xfers };
      dts_coll_plan_step_ops (plan, p, st, &ops);
      for (guint i = 0; i < xfers->len; i++) {
        const DtsCollXfer *x = &g_array_index (xfers, DtsCollXfer, i);
        if (x->offset < 0) {
          segmented = FALSE;
          continue;
        }
        double end = x->offset + x->bytes;
        if (end > slice + tol)
          return g_strdup_printf ("participant %d step %d: bytes %g..%g beyond the slice %g", p,
                                  st, x->offset, end, slice);
        g_array_append_val (bounds, x->offset);
        g_array_append_val (bounds, end);
      }
    }
  g_array_set_size (bounds, 0);
  double zero = 0;
  g_array_append_val (bounds, zero);
  DtsCollOp op = plan->op;
  if (op != DTS_COLL_OP_ALLREDUCE && !segmented)
    return g_strdup_printf ("a %s plan that does not say where its bytes are",
                            dts_coll_op_to_string (op));
  /* The ops of blocks: block b of a slice is [b blk, (b+1) blk). */
  gboolean blocks = op == DTS_COLL_OP_ALLGATHER || op == DTS_COLL_OP_REDUCE_SCATTER
                    || op == DTS_COLL_OP_ALLTOALL;
  double blk = slice / MAX (n, 1);
  for (int b = 1; blocks && b < n; b++) {
    double x = b * blk;
    if (boundary (bounds, x, tol) < 0)
      g_array_append_val (bounds, x);
  }
  if (segmented) {
    for (int p = 0; p < np; p++)
      for (int st = 0; st < dts_coll_plan_n_steps (plan, p); st++) {
        DtsCollStepOps ops = { .xfers = xfers };
        dts_coll_plan_step_ops (plan, p, st, &ops);
        for (guint i = 0; i < xfers->len; i++) {
          const DtsCollXfer *x = &g_array_index (xfers, DtsCollXfer, i);
          double end = x->offset + x->bytes;
          if (boundary (bounds, x->offset, tol) < 0)
            g_array_append_val (bounds, x->offset);
          if (boundary (bounds, end, tol) < 0)
            g_array_append_val (bounds, end);
        }
      }
  }
  if (boundary (bounds, slice, tol) < 0)
    g_array_append_val (bounds, slice);
  g_array_sort (bounds, cmp_double);
  int na = (int) bounds->len - 1;
  if (!segmented)
    na = 1;
  /* know[(p * nc + channel) * na + atom]; one channel without offsets. */
  int nc = segmented ? MAX (plan->channels, 1) : 1;
  g_autofree guint64 *know = g_new0 (guint64, (gsize) np * nc * MAX (na, 1));
  /* All-to-all: KNOW holds, per atom of a send buffer, its own label
   * (which participant, channel and atom it is, + 1); sends read it, and
   * receives write the labels into the receive buffers, GOT. Every other
   * op sends from and receives into the one buffer. */
  /* Bruck's all-to-all works in one buffer per rank (a2a_working): block i
   * of rank p's starts with the labels of block p + i of its send buffer
   * and must end with those of block p of rank p - i's; its receives land
   * where their sends were, as the other ops'. */
  gboolean working = op == DTS_COLL_OP_ALLTOALL && plan->a2a_working;
  gboolean a2a = op == DTS_COLL_OP_ALLTOALL && !working;
  g_autofree guint64 *got_buf = a2a ? g_new0 (guint64, (gsize) np * nc * MAX (na, 1)) : NULL;
  guint64 *into = a2a ? got_buf : know;
  g_autofree int *step = g_new0 (int, np);
  g_autofree gboolean *posted = g_new0 (gboolean, np);
  /* queue[(from * np + to) * nt + tag] */
  g_autoptr (GPtrArray) queues = g_ptr_array_new_with_free_func ((GDestroyNotify) g_queue_free);
  for (int i = 0; i < np * np * nt; i++)
    g_ptr_array_add (queues, g_queue_new ());
  g_autoptr (GPtrArray) messages = g_ptr_array_new_with_free_func (message_free);
  for (int r = 0; r < n; r++)
    for (int a = 0; a < nc * na; a++) {
      guint64 mine = G_GUINT64_CONSTANT (1) << r;
      int blk_of = blocks ? atom_block (bounds, a % na, blk, tol) : -1;
      if (op == DTS_COLL_OP_ALLGATHER && blk_of != r)
        mine = 0;   /* a rank starts with its own block only */
      if (op == DTS_COLL_OP_BROADCAST && r != plan->root)
        mine = 0;   /* and the root with the buffer */
      if (a2a)
        mine = (guint64) (r * nc * na + a) + 1;
      if (working) {
        double d = g_array_index (bounds, double, a % na) - blk_of * blk;
        int src = boundary (bounds, ((r + blk_of) % n) * blk + d, tol);
        mine = (guint64) (r * nc * na + a / na * na + src) + 1;
      }
      know[r * nc * na + a] = mine;
      /* A rank's own block of an all-to-all is a copy on the GPU, not a
       * transfer of the plan. */
      if (a2a && blk_of == r)
        got_buf[r * nc * na + a] = mine;
    }
  for (gboolean progress = TRUE; progress;) {
    progress = FALSE;
    for (int p = 0; p < np; p++) {
      if (step[p] >= dts_coll_plan_n_steps (plan, p))
        continue;
      DtsCollStepOps ops = { .xfers = xfers };
      dts_coll_plan_step_ops (plan, p, step[p], &ops);
      if (ops.n_rounds < 1 || (ops.xfers->len == 0 && !(ops.reduce_bytes > 0)))
        return g_strdup_printf ("participant %d step %d: empty step", p, step[p]);
      if (ops.phase < 0 || ops.phase >= plan->n_phases)
        return g_strdup_printf ("participant %d step %d: phase %d", p, step[p], ops.phase);
      for (guint i = 0; i < xfers->len; i++) {
        const DtsCollXfer *x = &g_array_index (xfers, DtsCollXfer, i);
        if (x->peer < 0 || x->peer >= np || x->peer == p || x->tag < 0 || x->tag >= nt
            || x->channels < 1 || !(x->bytes >= 0) || x->channel < 0
            || (segmented && x->channel + x->channels > nc))
          return g_strdup_printf ("participant %d step %d: bad transfer", p, step[p]);
        if (ops.n_rounds > 1
            && !(x->bytes > (ops.n_rounds - 1) * ops.chunk_bytes * (1 - 1e-12)))
          return g_strdup_printf ("participant %d step %d: %g bytes in %d rounds of %g", p,
                                  step[p], x->bytes, ops.n_rounds, ops.chunk_bytes);
      }
      for (guint i = 0; i < xfers->len && !posted[p]; i++) {
        const DtsCollXfer *x = &g_array_index (xfers, DtsCollXfer, i);
        if (x->kind != DTS_XFER_SEND)
          continue;
        Message *m = g_new0 (Message, 1);
        m->a0 = segmented ? boundary (bounds, x->offset, tol) : 0;
        m->a1 = segmented ? boundary (bounds, x->offset + x->bytes, tol) : 1;
        int w = m->a1 - m->a0, mc = segmented ? x->channels : 1;
        int c0 = segmented ? x->channel : 0;
        m->set = g_new (guint64, MAX (w * mc, 1));
        for (int c = 0; c < mc; c++)
          for (int a = m->a0; a < m->a1; a++)
            m->set[c * w + a - m->a0] = know[(p * nc + c0 + c) * na + a];
        m->offset = x->offset;
        m->bytes = x->bytes;
        m->channels = x->channels;
        m->channel = x->channel;
        g_ptr_array_add (messages, m);
        g_queue_push_tail (g_ptr_array_index (queues, (p * np + x->peer) * nt + x->tag), m);
      }
      posted[p] = TRUE;
      gboolean ready = TRUE;
      for (guint i = 0; i < xfers->len && ready; i++) {
        const DtsCollXfer *x = &g_array_index (xfers, DtsCollXfer, i);
        if (x->kind == DTS_XFER_RECV)
          ready = !g_queue_is_empty (g_ptr_array_index (queues, (x->peer * np + p) * nt + x->tag));
      }
      if (!ready)
        continue;
      for (guint i = 0; i < xfers->len; i++) {
        const DtsCollXfer *x = &g_array_index (xfers, DtsCollXfer, i);
        if (x->kind != DTS_XFER_RECV)
          continue;
        Message *m = g_queue_pop_head (g_ptr_array_index (queues, (x->peer * np + p) * nt + x->tag));
        /* A receive lands where the send came from, except all-to-all's
         * (block j of i's send buffer into block i of j's receive buffer). */
        int r0 = a2a ? boundary (bounds, x->offset, tol) : m->a0;
        if (m->bytes != x->bytes || m->channels != x->channels || m->channel != x->channel
            || (segmented && !a2a && fabs (m->offset - x->offset) > tol)
            || (a2a && !same_atoms (bounds, m->a0, r0, m->a1 - m->a0, tol)))
          return g_strdup_printf ("participant %d step %d: receives %g at %g x%d from %d, which "
                                  "sent %g at %g x%d",
                                  p, step[p], x->bytes, x->offset, x->channels, x->peer, m->bytes,
                                  m->offset, m->channels);
        int w = m->a1 - m->a0, mc = segmented ? m->channels : 1;
        int c0 = segmented ? m->channel : 0;
        for (int c = 0; c < mc; c++)
          for (int a = m->a0; a < m->a1; a++) {
            guint64 *mine = &into[(p * nc + c0 + c) * na + a - m->a0 + r0];
            guint64 got = m->set[c * w + a - m->a0];
            if (segmented && x->reduce && (*mine & got))
              return g_strdup_printf ("participant %d step %d: counts a contribution of %d twice",
                                      p, step[p], x->peer);
            *mine = segmented && !x->reduce ? got : *mine | got;
          }
      }
      step[p]++;
      posted[p] = FALSE;
      progress = TRUE;
    }
  }
  for (int p = 0; p < np; p++)
    if (step[p] < dts_coll_plan_n_steps (plan, p))
      return g_strdup_printf ("deadlock: participant %d waits at step %d", p, step[p]);
  for (guint i = 0; i < queues->len; i++)
    if (!g_queue_is_empty (g_ptr_array_index (queues, i)))
      return g_strdup_printf ("a message from %u to %u is never received", i / nt / np,
                              i / nt % np);
  guint64 all = n == 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT (1) << n) - 1;
  for (int r = 0; r < n; r++)
    for (int a = 0; a < nc * na; a++) {
      guint64 have = into[r * nc * na + a], want = all;
      int b = blocks ? atom_block (bounds, a % na, blk, tol) : -1;
      switch (op) {
      case DTS_COLL_OP_ALLGATHER:
        want = G_GUINT64_CONSTANT (1) << b;
        break;
      case DTS_COLL_OP_REDUCE_SCATTER:
        if (b != r)
          continue;
        break;
      case DTS_COLL_OP_BROADCAST:
        want = G_GUINT64_CONSTANT (1) << plan->root;
        break;
      case DTS_COLL_OP_REDUCE:
        if (r != plan->root)
          continue;
        break;
      case DTS_COLL_OP_ALLTOALL: {
        /* Block b of r's receive buffer: block r of b's send buffer (in
         * the working buffer: block r of rank r - b's). */
        double d = g_array_index (bounds, double, a % na) - b * blk;
        int src = boundary (bounds, r * blk + d, tol);
        int from = working ? ((r - b) % n + n) % n : b;
        want = (guint64) (from * nc * na + a / na * na + src) + 1;
        break;
      }
      default:
        break;
      }
      if (have != want)
        return g_strdup_printf ("member %d ends without %s%s", r,
                                op == DTS_COLL_OP_ALLREDUCE ? "every contribution"
                                                            : "what the op gives it",
                                segmented ? " to some of its bytes" : "");
    }
  return NULL;
}

/* A plan of ALGORITHM over N ranks; parameter servers get min(3, N)
 * servers spread over the ranks and, with NODE_SIZE > 0, ranks grouped in
 * nodes of NODE_SIZE. */
static DtsCollPlan *
any_plan (const char *algorithm, int n, int node_size)
{
  int p = MIN (3, n);
  int server_rank[3], node_of[64], gpu_node[64];
  for (int k = 0; k < p; k++)
    server_rank[k] = k * n / p;
  /* GPUs in nodes of 4, 3, 2 or 1, whichever divides N first. */
  int g = n % 4 == 0 ? 4 : n % 3 == 0 ? 3 : n % 2 == 0 ? 2 : 1;
  for (int r = 0; r < n; r++) {
    node_of[r] = node_size > 0 ? r / node_size : 0;
    gpu_node[r] = r / g;
  }
  DtsCollParams params = { .n_ranks = n, .bytes = 3e6, .channels = 2, .chunk_bytes = 2.5e5,
                           .n_servers = p, .server_rank = server_rank,
                           .node_of = node_size > 0 ? node_of : NULL, .gpu_node = gpu_node };
  g_autoptr (GError) error = NULL;
  DtsCollPlan *plan = dts_coll_plan_new (algorithm, &params, &error);
  ck_assert_msg (plan != NULL, "%s: %s", algorithm, error ? error->message : "");
  return plan;
}

START_TEST (test_generic_reference)
{
  for (const DtsCollAlgorithm *a = dts_coll_algorithms (); a->id; a++)
    for (int n = 1; n <= 64; n++)
      for (int node_size = 0; node_size <= (strcmp (a->id, "ps") == 0 ? 5 : 0); node_size += 2) {
        g_autoptr (DtsCollPlan) plan = any_plan (a->id, n, node_size > 0 ? node_size - 1 : 0);
        ck_assert (plan->alg == a);
        ck_assert_int_ge (plan->n_parts, plan->n_ranks);
        g_autofree char *why = generic_run (plan);
        ck_assert_msg (why == NULL, "%s N=%d nodes of %d: %s", a->id, n, node_size - 1, why);
      }
}
END_TEST

/* The generic reference finds a plan that drops a receive. */
static void (*ring_step_ops) (const DtsCollPlan *, int, int, DtsCollStepOps *);

static void
drop_last_recv (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  ring_step_ops (plan, part, step, out);
  if (part == 1 && step == 2)
    g_array_set_size (out->xfers, out->xfers->len - 1);
}

START_TEST (test_generic_reference_catches_errors)
{
  g_autoptr (DtsCollPlan) plan = any_plan ("ring", 5, 0);
  DtsCollAlgorithm broken = *plan->alg;
  ring_step_ops = broken.step_ops;
  broken.step_ops = drop_last_recv;
  plan->alg = &broken;
  g_autofree char *why = generic_run (plan);
  ck_assert_msg (why != NULL && strstr (why, "never received") != NULL, "%s", why ? why : "none");
}
END_TEST

/* An rhd whose all-gather sends the partner's window instead of its own
 * matches offsets on both sides and reaches every member with every
 * contribution: only the per-byte tracking sees that it is wrong. */
static void (*rhd_step_ops) (const DtsCollPlan *, int, int, DtsCollStepOps *);

static void
swap_gather_windows (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  rhd_step_ops (plan, part, step, out);
  if (strcmp (plan->phases[out->phase].name, "all-gather") != 0 || out->xfers->len != 2)
    return;
  DtsCollXfer *a = &g_array_index (out->xfers, DtsCollXfer, 0);
  DtsCollXfer *b = &g_array_index (out->xfers, DtsCollXfer, 1);
  double o = a->offset;
  a->offset = b->offset;
  b->offset = o;
}

START_TEST (test_generic_reference_tracks_bytes)
{
  for (int n = 4; n <= 6; n++) {
    g_autoptr (DtsCollPlan) plan = any_plan ("rhd", n, 0);
    DtsCollAlgorithm broken = *plan->alg;
    rhd_step_ops = broken.step_ops;
    broken.step_ops = swap_gather_windows;
    plan->alg = &broken;
    g_autofree char *why = generic_run (plan);
    ck_assert_msg (why != NULL && strstr (why, "some of its bytes") != NULL, "N=%d: %s", n,
                   why ? why : "none");
  }
}
END_TEST

/* Step by step sums of what each slot of rd and rhd moves, against their
 * closed forms (B = share x routes per rank). */
START_TEST (test_rd_rhd_plans)
{
  for (int n = 1; n <= 64; n++) {
    g_autoptr (DtsCollPlan) rhd = any_plan ("rhd", n, 0);
    g_autoptr (DtsCollPlan) rd = any_plan ("rd", n, 0);
    int k = 0;
    while ((2 << k) <= n)
      k++;
    int f = n > (1 << k);
    ck_assert_int_eq (rhd->n_levels, k);
    ck_assert_int_eq (rd->n_steps, k + 2 * f);
    ck_assert_int_eq (rhd->n_steps, 2 * k + 2 * f);
    const double L = 1e-6, B = 1e9, share = B / (k + f);
    g_autoptr (GArray) xfers = g_array_new (FALSE, TRUE, sizeof (DtsCollXfer));
    /* The busiest member: new rank 0, an odd rank when there is a fold. */
    int r = f ? 1 : 0;
    const DtsCollPlan *plans[] = { rhd, rd };
    for (int q = 0; q < 2; q++) {
      double t = 0, sent = 0;
      for (int st = 0; st < dts_coll_plan_n_steps (plans[q], r); st++) {
        DtsCollStepOps ops = { .xfers = xfers };
        dts_coll_plan_step_ops (plans[q], r, st, &ops);
        double b = g_array_index (xfers, DtsCollXfer, 0).bytes * plans[q]->channels;
        t += ops.n_rounds * L + b / B;
        for (guint i = 0; i < xfers->len; i++)
          if (g_array_index (xfers, DtsCollXfer, i).kind == DTS_XFER_SEND)
            sent += g_array_index (xfers, DtsCollXfer, i).bytes * plans[q]->channels;
      }
      ck_assert_double_eq_tol (dts_coll_plan_closed_form_s (plans[q], share, L), n > 1 ? t : 0,
                               1e-12);
      int p = 1 << k;
      double want = q == 0 ? 2.0 * (p - 1) / p * 3e6 + f * 3e6 : (k + f) * 3e6;
      ck_assert_double_eq_tol (sent, want, 1e-3);
    }
  }
}
END_TEST

/* Multi-rail rings: uneven nodes and more channels than GPUs per node pass
 * the reference; channel c leaves node 0 from its GPU c g / C - 1 and
 * enters node 1 at GPU c g / C; with every channel on channel 0's bytes
 * the reference sees some bytes never reduced and others reduced twice. */
static void (*mr_step_ops) (const DtsCollPlan *, int, int, DtsCollStepOps *);

static void
all_on_channel_0 (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  mr_step_ops (plan, part, step, out);
  for (guint i = 0; i < out->xfers->len; i++)
    g_array_index (out->xfers, DtsCollXfer, i).channel = 0;
}

START_TEST (test_multirail_plan)
{
  int node[20];
  for (int r = 0; r < 20; r++)
    node[r] = r < 4 ? 0 : r < 9 ? 1 : 2 + (r - 9) / 4; /* 4, 5, 4, 4, 3 GPUs */
  for (int c = 1; c <= 9; c += 4)
    for (int n = 1; n <= 20; n++) {
      DtsCollParams params = { .n_ranks = n, .bytes = 3e6, .channels = c, .chunk_bytes = 2.5e5,
                               .gpu_node = node };
      g_autoptr (GError) error = NULL;
      g_autoptr (DtsCollPlan) plan = dts_coll_plan_new ("multi-rail", &params, &error);
      ck_assert_msg (plan != NULL, "%s", error ? error->message : "");
      g_autofree char *why = generic_run (plan);
      ck_assert_msg (why == NULL, "C=%d N=%d: %s", c, n, why);
    }
  int eight[16];
  for (int r = 0; r < 16; r++)
    eight[r] = r / 8;
  DtsCollParams params = { .n_ranks = 16, .bytes = 8e6, .channels = 8, .chunk_bytes = 1e6,
                           .gpu_node = eight };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_new ("multi-rail", &params, &error);
  ck_assert_ptr_nonnull (plan);
  g_autoptr (GArray) xfers = g_array_new (FALSE, TRUE, sizeof (DtsCollXfer));
  for (int c = 0; c < 8; c++) {
    /* Local GPU c - 1 of node 0 sends channel c to GPU c of node 1. */
    int from = (c + 7) % 8;
    DtsCollStepOps ops = { .xfers = xfers };
    dts_coll_plan_step_ops (plan, from, 0, &ops);
    const DtsCollXfer *x = &g_array_index (xfers, DtsCollXfer, c);
    ck_assert_int_eq (x->kind, DTS_XFER_SEND);
    ck_assert_int_eq (x->channel, c);
    ck_assert_int_eq (x->peer, 8 + c);
  }
  DtsCollAlgorithm broken = *plan->alg;
  mr_step_ops = broken.step_ops;
  broken.step_ops = all_on_channel_0;
  plan->alg = &broken;
  g_autofree char *why = generic_run (plan);
  ck_assert_ptr_nonnull (why);
}
END_TEST

/* The direct all-reduce sends 2(N-1)/N x S per rank in 2 steps. */
/* topo-ring with a ring per channel: every ordered pair of GPUs of a node
 * has a link of its own (a full mesh of one-way links), so channel 0 keeps
 * the rank order and channel 1, searched with channel 0's hops on the
 * links, takes other links: the plan is then the multi-rail plan over the
 * searched orders (aux), checked by the generic reference interpreter. */
static DtsCollLink mesh_links[64 * 64];

static gboolean
mesh_rank_links (int a, int b, const DtsCollLink **links, int *n_links, gpointer data,
                 GError **error)
{
  (void) data, (void) error;
  DtsCollLink *l = &mesh_links[a * 64 + b];
  *l = (DtsCollLink){ .id = l, .bandwidth_Bps = 10e9, .latency_s = 1e-6, .shared = TRUE };
  *links = l;
  *n_links = 1;
  return TRUE;
}

/* The GPUs topo-ring asked about (rank_links' ranks), in [lo, hi] or not. */
typedef struct {
  int lo, hi, outside, asked;
} Asked;

static gboolean
asked_rank_links (int a, int b, const DtsCollLink **links, int *n_links, gpointer data,
                  GError **error)
{
  Asked *k = data;
  k->asked++;
  k->outside += a < k->lo || a > k->hi || b < k->lo || b > k->hi;
  return mesh_rank_links (a, b, links, n_links, NULL, error);
}

/* A communicator of other GPUs (a hybrid run's stage group, members GPUs
 * 8..15): topo-ring weighs the routes between those GPUs, not between the
 * first ranks. */
START_TEST (test_topo_ring_members)
{
  Asked k = { .lo = 8, .hi = 15 };
  DtsCollTuner t = { .rank_links = asked_rank_links, .data = &k };
  int node[8] = { 0 }, gpu[8];
  for (int m = 0; m < 8; m++)
    gpu[m] = 8 + m;
  DtsCollParams params = { .n_ranks = 8, .bytes = 3e6, .channels = 2, .chunk_bytes = 2.5e5,
                           .gpu_node = node, .tuner = &t, .gpu_rank = gpu };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_new ("topo-ring", &params, &error);
  ck_assert_msg (plan != NULL, "%s", error ? error->message : "");
  ck_assert_int_eq (k.asked, 8 * 7);
  ck_assert_int_eq (k.outside, 0);
  g_autofree char *why = generic_run (plan);
  ck_assert_msg (why == NULL, "%s", why);
  /* without the members, the first ranks */
  Asked first = { .lo = 0, .hi = 7 };
  t.data = &first;
  params.gpu_rank = NULL;
  g_autoptr (DtsCollPlan) p0 = dts_coll_plan_new ("topo-ring", &params, &error);
  ck_assert_ptr_nonnull (p0);
  ck_assert_int_eq (first.outside, 0);
  ck_assert_int_eq (first.asked, 8 * 7);
}
END_TEST

START_TEST (test_topo_ring_channels)
{
  DtsCollTuner t = { .rank_links = mesh_rank_links };
  int node[24];
  for (int r = 0; r < 24; r++)
    node[r] = r < 5 ? 0 : r < 8 ? 1 : 2 + (r - 8) / 8; /* 5, 3, 8, 8 GPUs */
  int multi = 0;
  for (int c = 1; c <= 4; c++)
    for (int n = 1; n <= 24; n++) {
      DtsCollParams params = { .n_ranks = n, .bytes = 3e6, .channels = c, .chunk_bytes = 2.5e5,
                               .gpu_node = node, .tuner = &t };
      g_autoptr (GError) error = NULL;
      g_autoptr (DtsCollPlan) plan = dts_coll_plan_new ("topo-ring", &params, &error);
      ck_assert_msg (plan != NULL, "%s", error ? error->message : "");
      ck_assert_str_eq (plan->algorithm, "topo-ring");
      /* one channel, or nodes of at most two GPUs: one ring, a ring plan */
      ck_assert (c > 1 && n > 2 ? plan->aux != NULL : plan->aux == NULL);
      multi += plan->aux != NULL;
      g_autofree char *why = generic_run (plan);
      ck_assert_msg (why == NULL, "C=%d N=%d: %s", c, n, why);
    }
  ck_assert_int_gt (multi, 0);
  /* All-gather and reduce-scatter over the same searched rings: a ring half
   * per channel, the multi-rail halves where the rings differ (aux). */
  for (int op = DTS_COLL_OP_ALLGATHER; op <= DTS_COLL_OP_REDUCE_SCATTER; op++)
    for (int c = 1; c <= 4; c++)
      for (int n = 1; n <= 24; n++) {
        DtsCollParams params = { .n_ranks = n, .bytes = 3e6, .channels = c,
                                 .chunk_bytes = 2.5e5, .gpu_node = node, .tuner = &t,
                                 .op = op };
        g_autoptr (GError) error = NULL;
        g_autoptr (DtsCollPlan) plan = dts_coll_plan_new ("topo-ring", &params, &error);
        ck_assert_msg (plan != NULL, "%s", error ? error->message : "");
        ck_assert (c > 1 && n > 2 ? plan->aux != NULL : plan->aux == NULL);
        ck_assert_int_eq (plan->n_steps, MAX (n - 1, 0));
        g_autofree char *why = generic_run (plan);
        ck_assert_msg (why == NULL, "%s C=%d N=%d: %s", dts_coll_op_to_string (op), c, n, why);
      }
  /* One node of 5: channel 0 in rank order, channel 1 on other links. */
  DtsCollParams params = { .n_ranks = 5, .bytes = 5e6, .channels = 2, .chunk_bytes = 1e6,
                           .gpu_node = node, .tuner = &t };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_new ("topo-ring", &params, &error);
  ck_assert_ptr_nonnull (plan);
  g_autoptr (GArray) xfers = g_array_new (FALSE, TRUE, sizeof (DtsCollXfer));
  gboolean reused = FALSE;
  for (int r = 0; r < 5; r++) {
    g_array_set_size (xfers, 0);
    DtsCollStepOps ops = { .xfers = xfers };
    dts_coll_plan_step_ops (plan, r, 0, &ops);
    const DtsCollXfer *x0 = &g_array_index (xfers, DtsCollXfer, 0);
    const DtsCollXfer *x1 = &g_array_index (xfers, DtsCollXfer, 1);
    ck_assert_int_eq (x0->kind, DTS_XFER_SEND);
    ck_assert_int_eq (x0->channel, 0);
    ck_assert_int_eq (x0->peer, (r + 1) % 5);
    ck_assert_int_eq (x1->channel, 1);
    reused |= x1->peer == x0->peer;
  }
  ck_assert (!reused); /* no link carries both channels */
}
END_TEST

START_TEST (test_direct_plan)
{
  for (int n = 1; n <= 16; n++) {
    g_autoptr (DtsCollPlan) plan = any_plan ("direct", n, 0);
    ck_assert_int_eq (plan->n_steps, n > 1 ? 2 : 0);
    ck_assert_double_eq_tol (dts_coll_plan_bytes_per_rank (plan), 2.0 * (n - 1) / n * 3e6, 1e-6);
    ck_assert_double_eq_tol (dts_coll_direct_closed_form_s (n, 3e6, 1e9, 1e-6),
                             n > 1 ? 2 * (3e6 / n / 1e9 + 1e-6) : 0, 1e-15);
  }
}
END_TEST

/* Hand-made platforms for dts_coll_plan_load_s (load.c): STAR, every GPU
 * its own link of bandwidth bw up and one down (a route crosses the
 * sender's up and the receiver's down: contention-free); BUS, every route
 * through one link (shared, or a FATPIPE); PAIR, a link of its own for
 * each ordered pair of GPUs (the DGX-1's NVLinks between neighbours). */
enum { FAKE_STAR, FAKE_BUS, FAKE_FATPIPE, FAKE_PAIR };
#define FAKE_MAX 64
typedef struct {
  int kind;
  double bw, lat;
  char ids[FAKE_MAX * FAKE_MAX];  /* a link is the address of one entry */
  DtsCollLink route[2];
  int calls;                      /* routes asked for */
} FakeNet;

static gboolean
fake_links (int from, int to, const DtsCollLink **links, int *n_links, gpointer data,
            GError **error)
{
  FakeNet *f = data;
  ck_assert_int_lt (from, FAKE_MAX);
  ck_assert_int_lt (to, FAKE_MAX);
  ck_assert_int_ne (from, to);
  f->calls++;
  *links = f->route;
  *n_links = 1;
  f->route[0] = (DtsCollLink){ NULL, f->bw, f->lat, f->kind != FAKE_FATPIPE, 0 };
  switch (f->kind) {
  case FAKE_STAR:
    f->route[0].id = &f->ids[from];
    f->route[1] = (DtsCollLink){ &f->ids[FAKE_MAX + to], f->bw, f->lat, TRUE, 0 };
    *n_links = 2;
    break;
  case FAKE_BUS:
  case FAKE_FATPIPE:
    f->route[0].id = &f->ids[0];
    break;
  default:
    f->route[0].id = &f->ids[from * FAKE_MAX + to];
  }
  return TRUE;
}

static double
fake_load_s (const char *alg, int kind, int n, int per_node, double bytes, int channels)
{
  g_autofree int *node = g_new (int, n);
  for (int r = 0; r < n; r++)
    node[r] = r / per_node;
  DtsCollParams p = { .n_ranks = n, .bytes = bytes, .channels = channels,
                      .chunk_bytes = 2 * 1048576.0, .gpu_node = node };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_new (alg, &p, &error);
  ck_assert_ptr_nonnull (plan);
  FakeNet *f = g_new0 (FakeNet, 1);
  f->kind = kind;
  f->bw = 10e9;
  double s = -1;
  ck_assert (dts_coll_plan_load_s (plan, fake_links, f, &s, NULL, &error));
  ck_assert_int_gt (f->calls, 0);
  g_free (f);
  return s;
}

/* The link-load time of plans, worked by hand (S = 1 MB, B = 10 GB/s). */
/* The counting sort the link loads share: slot order, stable within a
 * slot, and each slot's first position, empty slots included. */
START_TEST (test_order_by_slot)
{
  typedef struct {
    int slot;
    int tag;
  } Item;
  const Item items[] = { { 2, 0 }, { 0, 1 }, { 2, 2 }, { 0, 3 }, { 3, 4 }, { 0, 5 } };
  g_autofree guint *first = NULL;
  g_autofree guint *order
    = dts_coll_order_by_slot (items, sizeof (Item), G_N_ELEMENTS (items), 4, &first);
  const guint want_order[] = { 1, 3, 5, 0, 2, 4 };
  const guint want_first[] = { 0, 3, 3, 5, 6 };
  for (gsize i = 0; i < G_N_ELEMENTS (want_order); i++)
    ck_assert_uint_eq (order[i], want_order[i]);
  for (gsize i = 0; i < G_N_ELEMENTS (want_first); i++)
    ck_assert_uint_eq (first[i], want_first[i]);
  g_autofree guint *none_first = NULL;
  g_autofree guint *none = dts_coll_order_by_slot (NULL, sizeof (Item), 0, 2, &none_first);
  ck_assert_ptr_nonnull (none);
  ck_assert_uint_eq (none_first[0], 0);
  ck_assert_uint_eq (none_first[2], 0);
}
END_TEST

START_TEST (test_plan_load)
{
  double S = 1e6, B = 10e9;
  /* Contention-free: the closed forms at latency 0 with the GPU's own
   * link as B (each step of the ring sends S/N on every up link). */
  ck_assert_double_eq_tol (fake_load_s ("ring", FAKE_STAR, 8, 8, S, 2), 14.0 / 8 * S / B, 1e-15);
  ck_assert_double_eq_tol (fake_load_s ("rhd", FAKE_STAR, 8, 8, S, 2), 2 * 7.0 / 8 * S / B,
                           1e-15);
  ck_assert_double_eq_tol (fake_load_s ("rd", FAKE_STAR, 8, 8, S, 2), 3 * S / B, 1e-15);
  ck_assert_double_eq_tol (fake_load_s ("direct", FAKE_STAR, 8, 8, S, 2), 2 * 7.0 / 8 * S / B,
                           1e-15);
  /* The fold (N = 6, p = 4): the extra ranks' whole buffers before and
   * after, 2 (p-1)/p S/B between. */
  ck_assert_double_eq_tol (fake_load_s ("rhd", FAKE_STAR, 6, 6, S, 2),
                           (2 * 3.0 / 4 + 2) * S / B, 1e-15);
  /* Two flows through one shared link get half its bandwidth: the two
   * ranks of a ring send to each other at once over the bus. */
  ck_assert_double_eq_tol (fake_load_s ("ring", FAKE_STAR, 2, 2, S, 1), S / B, 1e-15);
  ck_assert_double_eq_tol (fake_load_s ("ring", FAKE_BUS, 2, 2, S, 1), 2 * S / B, 1e-15);
  /* ... and all of it each through a FATPIPE, channels included. */
  ck_assert_double_eq_tol (fake_load_s ("ring", FAKE_FATPIPE, 2, 2, S, 2), S / 2 / B, 1e-15);
  /* N flows on the bus at every step of a ring of 4: 2(N-1) steps of
   * N x S/N. */
  ck_assert_double_eq_tol (fake_load_s ("ring", FAKE_BUS, 4, 4, S, 2), 6 * S / B, 1e-15);
  /* A link per pair of GPUs: rhd's partners never share one, so each
   * slot takes its bytes over B; the closed form, which reads B as a
   * link's share x the partners that cross it (k = 3), is 3x too fast. */
  ck_assert_double_eq_tol (fake_load_s ("rhd", FAKE_PAIR, 8, 8, S, 2), 2 * 7.0 / 8 * S / B,
                           1e-15);
  {
    DtsCollParams p = { .n_ranks = 8, .bytes = S, .channels = 2, .chunk_bytes = 2 * 1048576.0 };
    g_autoptr (DtsCollPlan) rhd = dts_coll_plan_new ("rhd", &p, NULL);
    ck_assert_double_eq_tol (dts_coll_plan_closed_form_s (rhd, B, 0), 2 * 7.0 / 8 * S / B / 3,
                             1e-15);
  }
  /* The tree over two ranks (one per node): each tree's half goes up in
   * slot 0 and down in slot 1, both trees at once, one each way: S/B on
   * the star, twice that on the bus. In 2 chunks per tree (8 MiB) its
   * slots come from step_slot: up 0, then down 0 with up 1 (two chunks
   * out of each rank), then down 1: 2 + 4 + 2 MiB over every up link. */
  ck_assert_double_eq_tol (fake_load_s ("tree", FAKE_STAR, 2, 1, S, 1), S / B, 1e-15);
  ck_assert_double_eq_tol (fake_load_s ("tree", FAKE_BUS, 2, 1, S, 1), 2 * S / B, 1e-15);
  ck_assert_double_eq_tol (fake_load_s ("tree", FAKE_STAR, 2, 1, 8 * 1048576.0, 1),
                           8 * 1048576.0 / B, 1e-15);
}
END_TEST

/* The link-load time of a plan of OP on the STAR (10 GB/s links). */
static double
fake_op_load_s (const char *alg, DtsCollOp op, int n, double bytes)
{
  DtsCollParams p = { .n_ranks = n, .bytes = bytes, .channels = 2,
                      .chunk_bytes = 2 * 1048576.0, .op = op };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_new (alg, &p, &error);
  ck_assert_msg (plan != NULL, "%s", error ? error->message : "");
  FakeNet *f = g_new0 (FakeNet, 1);
  f->kind = FAKE_STAR;
  f->bw = 10e9;
  double s = -1;
  ck_assert (dts_coll_plan_load_s (plan, fake_links, f, &s, NULL, &error));
  g_free (f);
  return s;
}

/* The ops' link loads, worked by hand (B = 10 GB/s): the chain's slots
 * and the binomial tree's levels come from their step_slot. */
START_TEST (test_op_plan_load)
{
  double S = 1e6, B = 10e9, MiB = 1048576.0;
  /* (N-1)/N S leaves every rank. */
  ck_assert_double_eq_tol (fake_op_load_s ("ring", DTS_COLL_OP_ALLGATHER, 8, S), 7.0 / 8 * S / B,
                           1e-15);
  ck_assert_double_eq_tol (fake_op_load_s ("rhd", DTS_COLL_OP_REDUCE_SCATTER, 8, S),
                           7.0 / 8 * S / B, 1e-15);
  ck_assert_double_eq_tol (fake_op_load_s ("direct", DTS_COLL_OP_ALLTOALL, 8, S),
                           7.0 / 8 * S / B, 1e-15);
  /* The chain over 4 ranks, 8 MiB in 2 channels of 2 chunks: 4 slots,
   * each a rank's 2 channels of one 2 MiB chunk on its up link. */
  ck_assert_double_eq_tol (fake_op_load_s ("ring", DTS_COLL_OP_BROADCAST, 4, 8 * MiB),
                           4 * 2 * 2 * MiB / B, 1e-15);
  ck_assert_double_eq_tol (fake_op_load_s ("ring", DTS_COLL_OP_REDUCE, 4, 8 * MiB),
                           4 * 2 * 2 * MiB / B, 1e-15);
  /* The binomial tree over 4: 2 levels of the whole buffer (the root's up
   * link, or down link for reduce, at each). */
  ck_assert_double_eq_tol (fake_op_load_s ("binomial", DTS_COLL_OP_BROADCAST, 4, S), 2 * S / B,
                           1e-15);
  ck_assert_double_eq_tol (fake_op_load_s ("binomial", DTS_COLL_OP_REDUCE, 4, S), 2 * S / B,
                           1e-15);
}
END_TEST

/* --collective auto (tune.c): the model's terms against NCCL's constants
 * worked by hand, on the contention-free STAR platform of 10 GB/s links. */
static gboolean
fake_measure (const DtsCollPlan *plan, const int *gpu_rank, double *bandwidth_s,
              double *latency_s, gpointer data, GError **error)
{
  FakeNet *f = g_new0 (FakeNet, 1);
  f->kind = FAKE_STAR;
  f->bw = 10e9;
  f->lat = data ? *(const double *) data : 0;
  gboolean ok = dts_coll_plan_load_s (plan, fake_links, f, bandwidth_s, latency_s, error);
  g_free (f);
  return ok;
}

static const DtsCollTuneRow *
tune_row (GArray *rows, const char *alg, DtsCollProto proto)
{
  for (guint i = 0; i < rows->len; i++) {
    const DtsCollTuneRow *r = &g_array_index (rows, DtsCollTuneRow, i);
    if (strcmp (r->algorithm, alg) == 0 && r->protocol == proto)
      return r;
  }
  return NULL;
}

/* The candidates on the STAR of 10 GB/s links of latency LINK_LAT_S. */
static GArray *
tune_rows_lat (int n, int per_node, double bytes, const char *arch, gboolean nvlink,
               double link_lat_s, DtsCollPlan **chosen)
{
  DtsCollTuner t = { .measure = fake_measure, .data = &link_lat_s, .arch = arch,
                     .nvlink = nvlink };
  g_autofree int *node = g_new (int, n);
  for (int r = 0; r < n; r++)
    node[r] = r / per_node;
  DtsCollParams p = { .n_ranks = n, .bytes = bytes, .channels = 2, .chunk_bytes = 2 * 1048576.0,
                      .gpu_node = node, .tuner = &t };
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (DtsCollTuneRow));
  g_autoptr (GError) error = NULL;
  *chosen = dts_coll_tune_plan_new ("auto", &p, rows, &error);
  ck_assert_ptr_nonnull (*chosen);
  return rows;
}

static GArray *
tune_rows (int n, int per_node, double bytes, const char *arch, gboolean nvlink,
           DtsCollPlan **chosen)
{
  return tune_rows_lat (n, per_node, bytes, arch, nvlink, 0, chosen);
}

/* All-gather and reduce-scatter: the candidates with a row for the op (the
 * ring family, direct on one node, rhd; no tree, rd or
 * hier), the ring's N - 1 steps once, direct's one step, rhd's one per
 * level; the chosen plan does the op. */
START_TEST (test_tune_halves)
{
  double lat = 0;
  DtsCollTuner t = { .measure = fake_measure, .data = &lat, .arch = "Ampere", .nvlink = TRUE };
  int node[16];
  for (int op = DTS_COLL_OP_ALLGATHER; op <= DTS_COLL_OP_REDUCE_SCATTER; op++)
    for (int per_node = 8; per_node <= 16; per_node += 8) {
      for (int r = 0; r < 16; r++)
        node[r] = r / per_node;
      DtsCollParams p = { .n_ranks = 16, .bytes = 1e6, .channels = 2,
                          .chunk_bytes = 2 * 1048576.0, .gpu_node = node, .tuner = &t, .op = op };
      g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (DtsCollTuneRow));
      g_autoptr (GError) error = NULL;
      g_autoptr (DtsCollPlan) plan = dts_coll_tune_plan_new ("auto", &p, rows, &error);
      ck_assert_msg (plan != NULL, "%s", error ? error->message : "");
      ck_assert_int_eq (plan->op, op);
      ck_assert_ptr_nonnull (plan->protocol);
      ck_assert_ptr_null (tune_row (rows, "tree", DTS_COLL_PROTO_LL));
      ck_assert_ptr_null (tune_row (rows, "rd", DTS_COLL_PROTO_LL));
      ck_assert_ptr_null (tune_row (rows, "hier", DTS_COLL_PROTO_LL));
      ck_assert_ptr_nonnull (tune_row (rows, "rhd", DTS_COLL_PROTO_LL));
      ck_assert_ptr_nonnull (tune_row (rows, "multi-rail", DTS_COLL_PROTO_LL));
      if (per_node == 16) {
        /* one node: LL's 15 hops of 0.6 us on the base, direct's one */
        ck_assert_double_eq_tol (tune_row (rows, "ring", DTS_COLL_PROTO_LL)->latency_s,
                                 (6.6 + 15 * 0.6) * 1e-6, 1e-12);
        ck_assert_double_eq_tol (tune_row (rows, "direct", DTS_COLL_PROTO_LL)->latency_s,
                                 (6.6 + 0.6) * 1e-6, 1e-12);
        ck_assert_double_eq_tol (tune_row (rows, "rhd", DTS_COLL_PROTO_LL)->latency_s,
                                 (6.6 + 4 * 0.6) * 1e-6, 1e-12);
      } else {
        /* two nodes: 14 intra hops and 1 inter, no direct */
        ck_assert_ptr_null (tune_row (rows, "direct", DTS_COLL_PROTO_LL));
        ck_assert_double_eq_tol (tune_row (rows, "ring", DTS_COLL_PROTO_LL)->latency_s,
                                 (6.6 + 14 * 1.0 + 1 * 2.7) * 1e-6, 1e-12);
      }
      /* the ring's bandwidth term is the all-gather's (N-1)/N S/B, half the
       * all-reduce's */
      ck_assert_double_eq_tol (tune_row (rows, "ring", DTS_COLL_PROTO_SIMPLE)->bandwidth_s,
                               15.0 / 16 * 1e6 / 10e9, 1e-12);
      double best = INFINITY;
      for (guint i = 0; i < rows->len; i++)
        best = MIN (best, g_array_index (rows, DtsCollTuneRow, i).predicted_s);
      ck_assert_double_eq (plan->predicted_s, best);
      g_autofree char *why = generic_run (plan);
      ck_assert_msg (why == NULL, "%s", why);
    }
  /* broadcast has no tuning model */
  DtsCollParams b = { .n_ranks = 4, .bytes = 1e6, .channels = 2, .chunk_bytes = 2 * 1048576.0,
                      .tuner = &t, .op = DTS_COLL_OP_BROADCAST };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCollPlan) none = dts_coll_plan_new ("auto", &b, &error);
  ck_assert_ptr_null (none);
  dts_test_assert_error (error, DTS_ERROR_INVALID, "picks all-reduce, all-gather and "
                         "reduce-scatter algorithms only", NULL);
}
END_TEST

#define US 1e-6
START_TEST (test_tune_model)
{
  DtsCollPlan *plan = NULL;
  /* One NVLink node of 8 Ampere GPUs, 1 MB. */
  g_autoptr (GArray) one = tune_rows (8, 8, 1e6, "Ampere", TRUE, &plan);
  ck_assert_double_eq_tol (tune_row (one, "ring", DTS_COLL_PROTO_LL)->latency_s, 15.0 * US, 1e-12);
  ck_assert_double_eq_tol (tune_row (one, "ring", DTS_COLL_PROTO_LL128)->latency_s, 40.6 * US,
                           1e-12);
  ck_assert_double_eq_tol (tune_row (one, "ring", DTS_COLL_PROTO_SIMPLE)->latency_s, 56.0 * US,
                           1e-12);
  ck_assert_double_eq_tol (tune_row (one, "tree", DTS_COLL_PROTO_LL)->latency_s, 15.2 * US, 1e-12);
  ck_assert_double_eq_tol (tune_row (one, "direct", DTS_COLL_PROTO_LL)->latency_s, 7.8 * US,
                           1e-12);
  /* Bandwidth: the ring's 2(N-1)/N S/B at half the share with LL. */
  ck_assert_double_eq_tol (tune_row (one, "ring", DTS_COLL_PROTO_LL)->bandwidth_s,
                           1.75e6 / 5e9, 1e-12);
  ck_assert_double_eq_tol (tune_row (one, "ring", DTS_COLL_PROTO_LL128)->bandwidth_s,
                           1.75e6 / 9.2e9, 1e-12);
  /* The winner is the fastest row, and says so. */
  double best = INFINITY;
  for (guint i = 0; i < one->len; i++)
    best = MIN (best, g_array_index (one, DtsCollTuneRow, i).predicted_s);
  ck_assert_double_eq (plan->predicted_s, best);
  ck_assert_ptr_nonnull (plan->protocol);
  ck_assert_ptr_nonnull (tune_row (one, plan->algorithm, DTS_COLL_PROTO_LL));
  dts_coll_plan_free (plan);

  /* Two nodes of 8: the network's hop latencies, the post overhead and the
   * ring's plateau (x 1.4 on Ampere, x 1.9 before). */
  g_autoptr (GArray) two = tune_rows (16, 8, 1e6, "Ampere", TRUE, &plan);
  ck_assert_ptr_null (tune_row (two, "direct", DTS_COLL_PROTO_LL));
  ck_assert_double_eq_tol (tune_row (two, "ring", DTS_COLL_PROTO_SIMPLE)->latency_s,
                           (8.4 + 28 * 3.4 + 2 * 14.0) * 1.4 * US, 1e-12);
  ck_assert_double_eq_tol (tune_row (two, "ring", DTS_COLL_PROTO_LL)->latency_s,
                           (6.6 + 28 * 1.0 + 2 * 2.7) * US, 1e-12);
  ck_assert_double_eq_tol (tune_row (two, "tree", DTS_COLL_PROTO_SIMPLE)->latency_s,
                           (8.4 + 2 * (7 * 4.0 + 1 * 14.0)) * US, 1e-12);
  ck_assert_double_eq_tol (tune_row (two, "hier", DTS_COLL_PROTO_LL)->latency_s,
                           (6.6 + 14 * 0.6 + 2 * 2.7) * US, 1e-12);
  ck_assert_double_eq_tol (tune_row (two, "rd", DTS_COLL_PROTO_LL)->latency_s,
                           (6.6 + 3 * 0.6 + 2.7) * US, 1e-12);
  ck_assert_double_eq_tol (tune_row (two, "rhd", DTS_COLL_PROTO_LL)->latency_s,
                           (6.6 + 2 * (3 * 0.6 + 2.7)) * US, 1e-12);
  /* The tree's bandwidth: its link load over 0.92 x the correction for
   * 1 MB (log2 (1e6 / 64) = 13: Simple 0.5). */
  ck_assert_double_eq_tol (tune_row (two, "tree", DTS_COLL_PROTO_SIMPLE)->bandwidth_s,
                           fake_load_s ("tree", FAKE_STAR, 16, 8, 1e6, 2) / (0.92 * 0.5), 1e-12);
  /* rhd on the star: 2(N-1)/N S/B over the ring's efficiency. */
  ck_assert_double_eq_tol (tune_row (two, "rhd", DTS_COLL_PROTO_LL)->bandwidth_s,
                           2 * 15.0 / 16 * 1e6 / 10e9 / 0.5, 1e-12);
  dts_coll_plan_free (plan);
  g_autoptr (GArray) volta = tune_rows (16, 8, 1e6, "Volta", TRUE, &plan);
  ck_assert_double_eq_tol (tune_row (volta, "ring", DTS_COLL_PROTO_SIMPLE)->latency_s,
                           (8.4 + 28 * 3.4 + 2 * 14.0) * 1.9 * US, 1e-12);
  dts_coll_plan_free (plan);

  /* One GPU per node: the tree's network latency for the ring too. */
  g_autoptr (GArray) ppn1 = tune_rows (4, 1, 1e6, "Ampere", TRUE, &plan);
  ck_assert_double_eq_tol (tune_row (ppn1, "ring", DTS_COLL_PROTO_LL)->latency_s,
                           (6.6 + 6 * 5.0) * US, 1e-12);
  dts_coll_plan_free (plan);

  /* Nodes of 8 and 4 GPUs: hier cannot run and is no candidate. */
  g_autoptr (GArray) uneven = tune_rows (12, 8, 1e6, "Ampere", TRUE, &plan);
  ck_assert_ptr_null (tune_row (uneven, "hier", DTS_COLL_PROTO_SIMPLE));
  ck_assert_ptr_nonnull (tune_row (uneven, "ring", DTS_COLL_PROTO_SIMPLE));
  dts_coll_plan_free (plan);

  /* Links of 5 us: every route (up and down) is 10 us, more than NCCL's
   * hops, and floors the latency: base + 10 us per step (direct 2, rd 3,
   * the ring 14); at 8 B direct's 2 steps still win. */
  g_autoptr (GArray) slow = tune_rows_lat (8, 8, 8, "Ampere", TRUE, 5e-6, &plan);
  ck_assert_double_eq_tol (tune_row (slow, "direct", DTS_COLL_PROTO_LL)->latency_s,
                           (6.6 + 2 * 10) * US, 1e-12);
  ck_assert_double_eq_tol (tune_row (slow, "rd", DTS_COLL_PROTO_LL)->latency_s,
                           (6.6 + 3 * 10) * US, 1e-12);
  ck_assert_double_eq_tol (tune_row (slow, "ring", DTS_COLL_PROTO_SIMPLE)->latency_s,
                           (8.4 + 14 * 10) * US, 1e-12);
  ck_assert_str_eq (plan->algorithm, "direct");
  dts_coll_plan_free (plan);

  /* PCIe: no LL128, PCIe hop latencies. */
  g_autoptr (GArray) pcie = tune_rows (8, 8, 1e6, "Kepler", FALSE, &plan);
  ck_assert_ptr_null (tune_row (pcie, "ring", DTS_COLL_PROTO_LL128));
  ck_assert_double_eq_tol (tune_row (pcie, "ring", DTS_COLL_PROTO_SIMPLE)->latency_s,
                           (8.4 + 14 * 5.7) * US, 1e-12);
  dts_coll_plan_free (plan);
}
END_TEST

START_TEST (test_tune_errors)
{
  DtsCollParams p = { .n_ranks = 4, .bytes = 1e6, .channels = 2, .chunk_bytes = 1e6 };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_new ("auto", &p, &error);
  ck_assert_ptr_null (plan);
  dts_test_assert_error (error, DTS_ERROR_INVALID, "--collective auto: needs the platform's routes",
                         NULL);
}
END_TEST

/* A plan of ALGORITHM for OP over N ranks: 3 MB + BYTES_EXTRA in 2
 * channels of 250 kB chunks, in ring order RING (NULL: rank order). */
static DtsCollPlan *
op_plan (const char *algorithm, DtsCollOp op, int n, int root, const int *ring,
         double bytes_extra)
{
  DtsCollParams params = { .n_ranks = n, .ring = ring, .bytes = 3e6 + bytes_extra,
                           .channels = 2, .chunk_bytes = 2.5e5, .op = op, .root = root };
  g_autoptr (GError) error = NULL;
  DtsCollPlan *plan = dts_coll_plan_new (algorithm, &params, &error);
  ck_assert_msg (plan != NULL, "%s %s: %s", algorithm, dts_coll_op_to_string (op),
                 error ? error->message : "");
  ck_assert_int_eq (plan->op, op);
  return plan;
}

/* Every row of every op other than all-reduce for N = 1..64, several
 * roots, a buffer that is not a multiple of the chunks, and a permuted
 * ring: the reference checks the op's postcondition (generic_run). */
START_TEST (test_op_reference)
{
  int ring[64];
  for (const DtsCollOpAlgorithm *row = dts_coll_op_algorithms (); row->alg.id; row++) {
    const DtsCollAlgorithm *a = &row->alg;
    int runs = 0;
    for (int n = 1; n <= 64; n++) {
      gboolean rooted = dts_coll_ops ()[row->op].rooted;
      int roots[] = { 0, n - 1, n / 2 };
      for (int k = 0; k < (rooted ? 3 : 1); k++)
        for (int shape = 0; shape < 3; shape++) {
          /* shape 1: 1234.5 bytes more (an uneven last chunk); 2: the ring
           * in the order 0, 5, 10, ... (mod N, for N coprime with 5). */
          if (shape == 2 && (n % 5 == 0 || strcmp (a->id, "ring") != 0))
            continue;
          for (int p = 0; p < n; p++)
            ring[p] = (p * 5) % n;
          g_autoptr (DtsCollPlan) plan =
              op_plan (a->id, row->op, n, roots[k], shape == 2 ? ring : NULL,
                       shape == 1 ? 1234.5 : 0);
          ck_assert (plan->alg == a);
          g_autofree char *why = generic_run (plan);
          ck_assert_msg (why == NULL, "%s %s N=%d root %d shape %d: %s", a->id,
                         dts_coll_op_to_string (row->op), n, roots[k], shape, why);
          runs++;
        }
    }
    ck_assert_int_ge (runs, 64);
  }
}
END_TEST

/* multi-rail all-gather and reduce-scatter over several nodes (contiguous,
 * uneven, interleaved) and channel counts: every channel's ring runs one
 * half over its slice; the reference checks the op's postcondition. */
START_TEST (test_multirail_halves_reference)
{
  int node[40];
  for (int op = DTS_COLL_OP_ALLGATHER; op <= DTS_COLL_OP_REDUCE_SCATTER; op++)
    for (int layout = 0; layout < 3; layout++)
      for (int c = 1; c <= 4; c *= 2)
        for (int n = 1; n <= 40; n++) {
          for (int r = 0; r < n; r++)
            node[r] = layout == 0 ? r / 4 : layout == 1 ? (r < 5 ? 0 : 1 + (r - 5) / 3) : r % 3;
          DtsCollParams params = { .n_ranks = n, .bytes = 3e6 + 1234.5, .channels = c,
                                   .chunk_bytes = 2.5e5, .gpu_node = node, .op = op };
          g_autoptr (GError) error = NULL;
          g_autoptr (DtsCollPlan) plan = dts_coll_plan_new ("multi-rail", &params, &error);
          ck_assert_msg (plan != NULL, "%s", error ? error->message : "");
          ck_assert_int_eq (plan->n_steps, MAX (n - 1, 0));
          g_autofree char *why = generic_run (plan);
          ck_assert_msg (why == NULL, "%s layout %d C=%d N=%d: %s", dts_coll_op_to_string (op),
                         layout, c, n, why);
        }
}
END_TEST

/* The op reference finds plans that are wrong in each op's way. */
static void (*op_step_ops) (const DtsCollPlan *, int, int, DtsCollStepOps *);

/* Every send one block further on (receives unchanged). */
static void
send_next_block (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  op_step_ops (plan, part, step, out);
  double slice = plan->bytes / plan->channels, blk = slice / plan->n_ranks;
  for (guint i = 0; i < out->xfers->len; i++) {
    DtsCollXfer *x = &g_array_index (out->xfers, DtsCollXfer, i);
    if (x->kind == DTS_XFER_SEND)
      x->offset = fmod (x->offset + blk, slice);
  }
}

/* Receives that copy instead of adding: the root of a reduce ends with
 * one rank's buffer. */
static void
drop_reduce_flag (const DtsCollPlan *plan, int part, int step, DtsCollStepOps *out)
{
  op_step_ops (plan, part, step, out);
  for (guint i = 0; i < out->xfers->len; i++)
    g_array_index (out->xfers, DtsCollXfer, i).reduce = FALSE;
}

static char *
run_broken (const char *alg, DtsCollOp op, int n, int root,
            void (*broken_ops) (const DtsCollPlan *, int, int, DtsCollStepOps *))
{
  g_autoptr (DtsCollPlan) plan = op_plan (alg, op, n, root, NULL, 0);
  g_autofree char *good = generic_run (plan);
  ck_assert_msg (good == NULL, "%s", good);
  DtsCollAlgorithm broken = *plan->alg;
  op_step_ops = broken.step_ops;
  broken.step_ops = broken_ops;
  plan->alg = &broken;
  return generic_run (plan);
}

START_TEST (test_op_reference_catches_errors)
{
  struct {
    const char *alg;
    DtsCollOp op;
    void (*ops) (const DtsCollPlan *, int, int, DtsCollStepOps *);
  } cases[] = {
    { "ring", DTS_COLL_OP_ALLGATHER, send_next_block },
    { "direct", DTS_COLL_OP_ALLGATHER, send_next_block },
    { "ring", DTS_COLL_OP_REDUCE_SCATTER, send_next_block },
    { "direct", DTS_COLL_OP_REDUCE_SCATTER, send_next_block },
    { "direct", DTS_COLL_OP_ALLTOALL, send_next_block },
    { "rhd", DTS_COLL_OP_ALLGATHER, send_next_block },
    { "rhd", DTS_COLL_OP_REDUCE_SCATTER, drop_reduce_flag },
    { "ring", DTS_COLL_OP_REDUCE, drop_reduce_flag },
    { "binomial", DTS_COLL_OP_REDUCE, drop_reduce_flag },
    { "tree", DTS_COLL_OP_BROADCAST, send_next_block },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    for (int n = 3; n <= 8; n++) {
      if (strcmp (cases[i].alg, "rhd") == 0 && (n & (n - 1)) != 0)
        continue;
      g_autofree char *why = run_broken (cases[i].alg, cases[i].op, n, 1, cases[i].ops);
      ck_assert_msg (why != NULL, "%s %s N=%d: not caught", cases[i].alg,
                     dts_coll_op_to_string (cases[i].op), n);
    }
  /* A broadcast from root 0 checked as one from root 1. */
  g_autoptr (DtsCollPlan) plan = op_plan ("ring", DTS_COLL_OP_BROADCAST, 5, 0, NULL, 0);
  plan->root = 1;
  g_autofree char *why = generic_run (plan);
  ck_assert_ptr_nonnull (why);
}
END_TEST

/* Steps, bytes and the closed forms of the ops' plans, worked by hand. */
START_TEST (test_op_plans)
{
  g_autoptr (GArray) xfers = g_array_new (FALSE, TRUE, sizeof (DtsCollXfer));
  for (int n = 2; n <= 16; n++) {
    g_autoptr (DtsCollPlan) ag = op_plan ("ring", DTS_COLL_OP_ALLGATHER, n, 0, NULL, 0);
    g_autoptr (DtsCollPlan) rs = op_plan ("ring", DTS_COLL_OP_REDUCE_SCATTER, n, 0, NULL, 0);
    ck_assert_int_eq (ag->n_steps, n - 1);
    ck_assert_int_eq (rs->n_steps, n - 1);
    /* 3 MB in 2 channels and N blocks: ceil(1.5e6 / N / 2.5e5) rounds. */
    int rounds = (int) ceil (1.5e6 / n / 2.5e5 * (1 - 1e-12));
    ck_assert_int_eq (ag->n_rounds, rounds);
    ck_assert_double_eq_tol (dts_coll_plan_closed_form_s (ag, 1e9, 1e-6),
                             (n - 1) * (rounds * 1e-6 + 3e6 / n / 1e9), 1e-15);
    ck_assert_double_eq_tol (dts_coll_plan_closed_form_s (rs, 1e9, 1e-6),
                             (n - 1) * (rounds * 1e-6 + 3e6 / n / 1e9), 1e-15);
    g_autoptr (DtsCollPlan) a2a = op_plan ("direct", DTS_COLL_OP_ALLTOALL, n, 0, NULL, 0);
    ck_assert_int_eq (a2a->n_steps, 1);
    ck_assert_double_eq_tol (dts_coll_plan_closed_form_s (a2a, 1e9, 1e-6),
                             rounds * 1e-6 + 3e6 / n / 1e9, 1e-15);
    /* Rank 1 of the all-to-all sends block j to rank j and receives block
     * 1 of rank j into its block j. */
    DtsCollStepOps ops = { .xfers = xfers };
    dts_coll_plan_step_ops (a2a, 1, 0, &ops);
    ck_assert_int_eq (xfers->len, 2 * (n - 1));
    for (guint i = 0; i < xfers->len; i++) {
      const DtsCollXfer *x = &g_array_index (xfers, DtsCollXfer, i);
      ck_assert_double_eq_tol (x->offset, x->peer * 1.5e6 / n, 1e-6);
    }
    /* The broadcast: 6 chunks per channel, N + 4 slots of 1 us + 2 x 250 kB
     * at 1 GB/s; the middle ranks take 7 steps, the ends 6. */
    g_autoptr (DtsCollPlan) bc = op_plan ("ring", DTS_COLL_OP_BROADCAST, n, n - 1, NULL, 0);
    ck_assert_int_eq (bc->n_levels, 6);
    ck_assert_double_eq_tol (dts_coll_plan_closed_form_s (bc, 1e9, 1e-6),
                             (n + 4) * (1e-6 + 5e5 / 1e9), 1e-15);
    ck_assert_int_eq (dts_coll_plan_n_steps (bc, n - 1), 6);
    ck_assert_int_eq (dts_coll_plan_n_steps (bc, n - 2), 6);
    if (n > 2)
      ck_assert_int_eq (dts_coll_plan_n_steps (bc, 0), 7);
    /* The root sends chunk s to rank 0 at step s. */
    dts_coll_plan_step_ops (bc, n - 1, 3, &ops);
    ck_assert_int_eq (xfers->len, 1);
    ck_assert_int_eq (g_array_index (xfers, DtsCollXfer, 0).peer, 0);
    ck_assert_double_eq_tol (g_array_index (xfers, DtsCollXfer, 0).offset, 7.5e5, 1e-6);
  }
  /* An uneven last chunk: 1.5e6 + 617.25 bytes per channel, 7 chunks,
   * the last 617.25 bytes: it moves alone in the last slot. */
  g_autoptr (DtsCollPlan) red = op_plan ("ring", DTS_COLL_OP_REDUCE, 4, 2, NULL, 1234.5);
  ck_assert_int_eq (red->n_levels, 7);
  ck_assert_double_eq_tol (dts_coll_plan_closed_form_s (red, 1e9, 0),
                           8 * 5e5 / 1e9 + 2 * 617.25 / 1e9, 1e-15);
  /* The reduce's chain ends at the root: rank 3 starts it. */
  ck_assert_int_eq (red->ring[0], 3);
  ck_assert_int_eq (red->ring[3], 2);
  /* The binomial tree over 5 ranks from root 2 (relative ranks r): 3
   * levels; the root sends to r = 1, 2, 4 (ranks 3, 4, 1), r = 1 to r = 3
   * (rank 0) at level 1; its reduce runs the levels backwards, each
   * level on a tag of its own. */
  g_autoptr (DtsCollPlan) bn = op_plan ("binomial", DTS_COLL_OP_BROADCAST, 5, 2, NULL, 0);
  g_autoptr (DtsCollPlan) bnr = op_plan ("binomial", DTS_COLL_OP_REDUCE, 5, 2, NULL, 0);
  ck_assert_int_eq (bn->n_levels, 3);
  ck_assert_int_eq (dts_coll_plan_n_steps (bn, 2), 3);
  ck_assert_int_eq (dts_coll_plan_n_steps (bn, 3), 2);
  ck_assert_int_eq (dts_coll_plan_n_steps (bn, 1), 1);
  static const int root_to[] = { 3, 4, 1 };
  for (int k = 0; k < 3; k++) {
    DtsCollStepOps ops = { .xfers = xfers };
    dts_coll_plan_step_ops (bn, 2, k, &ops);
    const DtsCollXfer *x = &g_array_index (xfers, DtsCollXfer, 0);
    ck_assert_int_eq (x->kind, DTS_XFER_SEND);
    ck_assert_int_eq (x->peer, root_to[k]);
    ck_assert_int_eq (x->tag, k);
    ck_assert_double_eq_tol (x->bytes, 1.5e6, 1e-6);
    dts_coll_plan_step_ops (bnr, 2, k, &ops);
    ck_assert_int_eq (x->kind, DTS_XFER_RECV);
    ck_assert_int_eq (x->peer, root_to[2 - k]);
    ck_assert (x->reduce);
  }
  DtsCollStepOps ops0 = { .xfers = xfers };
  dts_coll_plan_step_ops (bn, 3, 1, &ops0);
  ck_assert_int_eq (g_array_index (xfers, DtsCollXfer, 0).peer, 0);
  /* 3 levels of 6 rounds of 1 us and 3 MB over B' = 3 x 1 GB/s. */
  ck_assert_double_eq_tol (dts_coll_plan_closed_form_s (bn, 1e9, 1e-6),
                           3 * (6e-6 + 3e6 / 3e9), 1e-15);
  /* The pipelined tree over 6 ranks from root 1 (relative ranks r, the
   * heap: r 0 -> 1, 2; 1 -> 3, 4; 2 -> 5): 1.5 MB per channel in 6
   * chunks of 2.5e5. The root sends chunk s to ranks 2 and 3 at step s; r = 1
   * (rank 2) receives chunk s from rank 1 and sends chunk s - 1 to ranks 4
   * and 5, in slot s (depth 1); r = 5 (rank 0), a leaf of depth 2, takes
   * chunk s in slot s + 1. K + D - 1 = 7 slots. */
  g_autoptr (DtsCollPlan) tb = op_plan ("tree", DTS_COLL_OP_BROADCAST, 6, 1, NULL, 0);
  ck_assert_int_eq (tb->n_levels, 6);
  ck_assert_int_eq (dts_coll_plan_n_steps (tb, 1), 6);
  ck_assert_int_eq (dts_coll_plan_n_steps (tb, 2), 7);
  ck_assert_int_eq (dts_coll_plan_n_steps (tb, 0), 6);
  {
    DtsCollStepOps ops = { .xfers = xfers };
    dts_coll_plan_step_ops (tb, 1, 2, &ops);
    ck_assert_int_eq (xfers->len, 2);
    ck_assert_int_eq (g_array_index (xfers, DtsCollXfer, 0).peer, 2);
    ck_assert_int_eq (g_array_index (xfers, DtsCollXfer, 1).peer, 3);
    ck_assert_double_eq_tol (g_array_index (xfers, DtsCollXfer, 1).offset, 5e5, 1e-6);
    ck_assert_double_eq_tol (g_array_index (xfers, DtsCollXfer, 1).bytes, 2.5e5, 1e-6);
    dts_coll_plan_step_ops (tb, 2, 2, &ops);
    ck_assert_int_eq (xfers->len, 3); /* chunk 1 to ranks 4 and 5, chunk 2 from rank 1 */
    ck_assert_int_eq (g_array_index (xfers, DtsCollXfer, 2).kind, DTS_XFER_RECV);
    ck_assert_int_eq (g_array_index (xfers, DtsCollXfer, 2).peer, 1);
    ck_assert_double_eq_tol (g_array_index (xfers, DtsCollXfer, 0).offset, 2.5e5, 1e-6);
    ck_assert_int_eq (g_array_index (xfers, DtsCollXfer, 1).peer, 5);
    ck_assert_int_eq (tb->alg->step_slot (tb, 2, 2), 2);
    ck_assert_int_eq (tb->alg->step_slot (tb, 0, 2), 3);
  }
  /* 7 slots of 1 us and a 2.5e5-byte chunk on each of 2 channels at 1 GB/s. */
  ck_assert_double_eq_tol (dts_coll_plan_closed_form_s (tb, 1e9, 1e-6),
                           7 * (1e-6 + 2 * 2.5e5 / 1e9), 1e-15);
  /* 8 ranks: depths 0 and 1 send to two children, depth 2 only r 3 (to
   * r 7, depth 3): K + D - 1 = 8 slots, the last one depth 2's alone, at
   * the link's whole bandwidth. */
  g_autoptr (DtsCollPlan) t8 = op_plan ("tree", DTS_COLL_OP_BROADCAST, 8, 0, NULL, 0);
  ck_assert_int_eq (t8->alg->step_slot (t8, 7, 0), 2);
  ck_assert_double_eq_tol (dts_coll_plan_closed_form_s (t8, 1e9, 1e-6),
                           8 * 1e-6 + 7 * (2 * 2.5e5 / 1e9) + 2 * 2.5e5 / 2e9, 1e-15);
  for (int n = 1; n <= 8; n++)
    ck_assert_double_eq_tol (dts_coll_op_bus_factor (DTS_COLL_OP_ALLGATHER, n),
                             (n - 1.0) / n, 1e-15);
  ck_assert_double_eq (dts_coll_op_bus_factor (DTS_COLL_OP_BROADCAST, 8), 1);
  ck_assert_double_eq (dts_coll_op_bus_factor (DTS_COLL_OP_ALLREDUCE, 4), 1.5);
}
END_TEST

static void
op_bad (const char *algo, DtsCollOp op, int n, int root, const char *fragment)
{
  DtsCollParams p = { .n_ranks = n, .bytes = 1e6, .channels = 1, .chunk_bytes = 1e6, .op = op,
                      .root = root };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsCollPlan) plan = dts_coll_plan_new (algo, &p, &error);
  ck_assert_ptr_null (plan);
  dts_test_assert_error (error, DTS_ERROR_INVALID, fragment, NULL);
}

START_TEST (test_op_errors)
{
  op_bad ("rd", DTS_COLL_OP_ALLGATHER, 4, 0,
          "the collective algorithm 'rd' does not do all-gather (all-gather: ring, direct, rhd, "
          "topo-ring, multi-rail)");
  op_bad ("ring", DTS_COLL_OP_ALLTOALL, 4, 0,
          "does not do all-to-all (all-to-all: direct, pairwise, bruck)");
  op_bad ("nope", DTS_COLL_OP_BROADCAST, 4, 0, "unknown collective algorithm 'nope'");
  op_bad ("auto", DTS_COLL_OP_REDUCE, 4, 0, "all-gather and reduce-scatter algorithms only");
  op_bad ("ring", DTS_COLL_OP_BROADCAST, 4, 4, "root 4 is not one of the 4 ranks (0..3)");
  op_bad ("ring", DTS_COLL_OP_REDUCE, 4, -1, "root -1");
  op_bad ("ring", DTS_COLL_OP_ALLGATHER, 0, 0, "ring all-gather: needs at least one rank");
}
END_TEST

static Suite *
collective_suite (void)
{
  Suite *s = suite_create ("collective");
  TCase *tc = tcase_create ("ring");
  tcase_add_test (tc, test_ring_reference);
  tcase_add_test (tc, test_ring_reference_permuted);
  tcase_add_test (tc, test_reference_catches_errors);
  tcase_add_test (tc, test_ring_closed_forms);
  tcase_add_test (tc, test_ring_errors);
  suite_add_tcase (s, tc);
  TCase *generic = tcase_create ("generic");
  /* Every row for N = 1..64: seconds, more on a loaded machine. */
  tcase_set_timeout (generic, 120);
  tcase_add_test (generic, test_generic_reference);
  tcase_add_test (generic, test_generic_reference_catches_errors);
  tcase_add_test (generic, test_direct_plan);
  tcase_add_test (generic, test_generic_reference_tracks_bytes);
  tcase_add_test (generic, test_rd_rhd_plans);
  tcase_add_test (generic, test_multirail_plan);
  tcase_add_test (generic, test_topo_ring_channels);
  tcase_add_test (generic, test_topo_ring_members);
  tcase_add_test (generic, test_multirail_halves_reference);
  tcase_add_test (generic, test_tune_halves);
  tcase_add_test (generic, test_op_reference);
  tcase_add_test (generic, test_op_reference_catches_errors);
  tcase_add_test (generic, test_op_plans);
  tcase_add_test (generic, test_op_errors);
  suite_add_tcase (s, generic);
  TCase *tune = tcase_create ("tune");
  tcase_add_test (tune, test_order_by_slot);
  tcase_add_test (tune, test_plan_load);
  tcase_add_test (tune, test_op_plan_load);
  tcase_add_test (tune, test_tune_model);
  tcase_add_test (tune, test_tune_errors);
  suite_add_tcase (s, tune);
  return s;
}

int
main (void)
{
  return dts_test_run (collective_suite ());
}
