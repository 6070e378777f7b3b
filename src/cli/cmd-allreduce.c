/* cmd-allreduce.c - `dtsim allreduce`: one ring all-reduce alone.
 *
 * The quickest what-if for a network and the teaching view of the ring
 * (src/sim/allreduce-run.h has the model). For each size: the simulated
 * time t, the algorithm bandwidth S/t, the bus bandwidth S/t x 2(N-1)/N
 * (as nccl-tests reports it, comparable across N), the closed form
 * 2(N-1)/N x S/B + 2(N-1) x L with B the ring's bottleneck share and L the
 * largest hop latency, and t over the closed form. --steps prints, for a
 * small ring, which chunk every rank sends to whom at every step and when,
 * and for every other algorithm and op every transfer of every rank's step
 * (peer, bytes, adds or copies, offset) from the plan's generic interface;
 * --trace writes the same as a Chrome/Perfetto trace, one track per GPU;
 * --svg draws one size's ring and steps in one picture, or the other
 * algorithms' steps as arrows between rank rows (output/svg.h).
 * --collective auto picks each size's algorithm with NCCL's tuning model
 * (collective/tune.c) and prints it, the protocol and the model's time
 * beside the simulated one and the chosen algorithm's closed form.
 * --op runs another collective operation (collective/ops.c: all-gather,
 * reduce-scatter, broadcast and reduce from --root, all-to-all) with the
 * algorithms that do it; bus bandwidth is then S/t times the op's factor
 * (nccl-tests': (N-1)/N, or 1 for broadcast and reduce).
 * Options are checked before anything is loaded: command-line mistakes are
 * usage errors (exit status 2), bad files input errors (1). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli-private.h"
#include "collective/collective.h"
#include "core/datadir.h"
#include "core/error.h"
#include "output/json.h"
#include "output/report.h"
#include "output/svg.h"
#include "platform/gpu.h"
#include "platform/platform.h"
#include "schedule/options.h"
#include "sim/allreduce-run.h"
#include "sim/sim.h"

#define DEFAULT_SIZE "64MB"
/* --steps prints 2(N-1) x N lines per size and --svg draws as many boxes:
 * readable up to 16 ranks. */
#define MAX_STEPS_GPUS 16
/* --svg of the other algorithms: one column per step slot, at least 44
 * pixels wide. */
#define MAX_SVG_STEPS 64
#define MAX_SIZES 256

typedef struct {
  DtsCommonArgs c;      /* shared with the other command (common-options.c) */
  char *size;
  char *sizes;
  char *svg;
  gboolean steps;
  char *op;
  char *root;
  char *op_help;        /* the --op entry's help, made from the table (owned) */
  char *why;            /* why c.collective is not NCCL without --collective (owned),
                         * for dts_cli_parse_nccl_limits' message; NULL: given */
} ArArgs;

static void
ar_args_clear (ArArgs *a)
{
  dts_cli_common_args_clear (&a->c);
  g_free (a->size);
  g_free (a->sizes);
  g_free (a->svg);
  g_free (a->op);
  g_free (a->root);
  g_free (a->op_help);
  g_free (a->why);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ArArgs, ar_args_clear)

#define S G_OPTION_ARG_STRING
static void
add_entries (GOptionContext *ctx, ArArgs *a)
{
  dts_cli_add_common_entries (ctx, &a->c);
  g_autoptr (GString) ops = g_string_new ("Collective operation: ");
  for (const DtsCollOpInfo *o = dts_coll_ops (); o->id; o++)
    g_string_append_printf (ops, "%s%s", o->op ? ", " : "", o->id);
  g_string_append (ops, "; help lists them and their algorithms (default: all-reduce)");
  a->op_help = g_string_free (g_steal_pointer (&ops), FALSE);
  GOptionEntry entries[] = {
    { "op", 0, 0, S, &a->op, a->op_help, "OP" },
    { "root", 0, 0, S, &a->root, "The rank that sends (broadcast) or receives (reduce) it all "
                                 "(--op broadcast or reduce; default: 0)", "R" },
    { "size", 's', 0, S, &a->size, "Buffer size (default: " DEFAULT_SIZE ")", "BYTES" },
    { "sizes", 0, 0, S, &a->sizes,
      "Comma-separated buffer sizes, simulated one after another (default: one, --size)",
      "S1,S2,..." },
    { "steps", 0, 0, G_OPTION_ARG_NONE, &a->steps,
      "Print every step of every rank: its transfers and when (step granularity, at most 16 "
      "GPUs; of the ring unless --collective names another)",
      NULL },
    { "svg", 0, 0, S, &a->svg,
      "Draw the steps as an SVG picture in FILE, - for stdout (one size, step granularity, at "
      "most 16 GPUs and 64 steps; of the ring unless --collective names another; default: "
      "none)",
      "FILE" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  dts_cli_add_entries (ctx, entries);
}
#undef S

typedef struct {
  DtsFormat format;
  GArray *sizes;       /* double */
  int n_gpus;
  int channels;
  double chunk_bytes;
  double coll_overhead_s;
  DtsGranularity granularity;
  DtsCollNcclLimits nccl;
} ArChecked;

static gboolean
check_args (const ArArgs *a, ArChecked *c, GError **error)
{
  if (!dts_cli_parse_format (a->c.format, TRUE, &c->format, error))
    return FALSE;
  if (!dts_cli_parse_int_option ("gpus", a->c.gpus, 2, 1 << 20, &c->n_gpus, error)
      || !dts_cli_parse_int_option ("channels", a->c.channels, 1, DTS_COLL_MAX_CHANNELS,
                                    &c->channels, error)
      || !dts_cli_parse_bytes_option ("chunk-size", a->c.chunk_size, &c->chunk_bytes, error)
      || !dts_cli_parse_time_option ("coll-overhead", a->c.coll_overhead, &c->coll_overhead_s,
                                     error)
      || !dts_cli_parse_nccl_limits (&a->c, a->c.collective, a->why, &c->nccl, error))
    return FALSE;
  if (a->size != NULL && a->sizes != NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--size and --sizes exclude each other");
    return FALSE;
  }
  if (a->sizes != NULL) {
    g_auto (GStrv) parts = g_strsplit (a->sizes, ",", -1);
    if (parts[0] == NULL || g_strv_length (parts) > MAX_SIZES) {
      g_autofree char *exp =
          g_strdup_printf ("1 to %d comma-separated sizes such as 1MB,4MB,16MB", MAX_SIZES);
      return dts_cli_bad_option ("sizes", a->sizes, exp, error);
    }
    for (char **p = parts; *p; p++) {
      double v;
      if (**p == '\0')
        return dts_cli_bad_option ("sizes", a->sizes, "comma-separated sizes such as 1MB,4MB,16MB",
                                   error);
      if (!dts_cli_parse_bytes_option ("sizes", *p, &v, error))
        return FALSE;
      g_array_append_val (c->sizes, v);
    }
  } else {
    double v;
    if (!dts_cli_parse_bytes_option ("size", a->size ? a->size : DEFAULT_SIZE, &v, error))
      return FALSE;
    g_array_append_val (c->sizes, v);
  }
  if (a->c.granularity != NULL
      && !dts_granularity_from_string (a->c.granularity, &c->granularity, error))
    return FALSE;
  if (a->svg != NULL && a->svg[0] == '\0')
    return dts_cli_bad_option ("svg", a->svg, "a file name, or - for stdout", error);
  if (a->svg != NULL && c->sizes->len != 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--svg draws one all-reduce: give one size, not %u", c->sizes->len);
    return FALSE;
  }
  if (a->svg != NULL && a->c.trace != NULL && strcmp (a->svg, "-") == 0
      && strcmp (a->c.trace, "-") == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--svg - and --trace - cannot both write to stdout");
    return FALSE;
  }
  for (int k = 0; k < 2; k++) {
    /* --steps and --svg show single ring steps: step granularity, few GPUs. */
    const char *opt = k == 0 ? "steps" : "svg";
    if (k == 0 ? !a->steps : a->svg == NULL)
      continue;
    if (a->c.granularity != NULL && c->granularity != DTS_GRANULARITY_STEP) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--%s needs --comm-granularity step (flow has no steps)", opt);
      return FALSE;
    }
    c->granularity = DTS_GRANULARITY_STEP;
    if (c->n_gpus > MAX_STEPS_GPUS) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--%s: %d GPUs is too many to %s step by step (at most %d; "
                   "use --trace for larger rings)",
                   opt, c->n_gpus, k == 0 ? "print" : "draw", MAX_STEPS_GPUS);
      return FALSE;
    }
  }
  if (!dts_cli_check_output_option ("trace", a->c.trace, FALSE, error))
    return FALSE;
  const DtsCliOutput outputs[] = { { "svg", a->svg }, { "trace", a->c.trace } };
  if (!dts_cli_check_distinct_outputs (outputs, G_N_ELEMENTS (outputs), error))
    return FALSE;
  return dts_sim_cfg_check (a->c.cfg, error);
}

/* nccl-tests' bus bandwidth of OP (all-reduce's as it always was). */
static double
bus_bw (DtsCollOp op, int n, double bytes, double time_s)
{
  if (op == DTS_COLL_OP_ALLREDUCE)
    return dts_allreduce_bus_bw_Bps (n, bytes, time_s);
  return time_s > 0 ? bytes / time_s * dts_coll_op_bus_factor (op, n) : 0;
}

static double
ratio (const DtsAllreduceSize *sz)
{
  return sz->closed_form_s > 0 ? sz->time_s / sz->closed_form_s : 0;
}

static const char *const phase_names[] = { "reduce-scatter", "all-gather" };

/* --collective auto: the algorithm and protocol the tuning model chose for
 * each size, its predicted time, and the simulated time against the chosen
 * algorithm's closed form. */
static void
write_text_tuned (const DtsAllreduceResult *r, DtsCollOp op, GString *out)
{
  g_string_append (out, "closed form:  the chosen algorithm's (--collective help), with B and L "
                        "of its own routes\n");
  if (op != DTS_COLL_OP_ALLREDUCE)
    g_string_append_printf (out, "bus bw:       S/t x %s (nccl-tests' %s)\n",
                            dts_coll_ops ()[op].bus_factor_text, dts_coll_op_to_string (op));
  g_string_append (out, "model:        NCCL's tuning model: base + hop latencies (at least the "
                        "routes') + link loads at the protocol's bandwidth (predicted_us)\n");
  if (r->nccl)
    g_string_append (out, "nccl:         NCCL's algorithm, the plan that lays it on the "
                          "platform (searched rings, rails or the tree) and its channels\n");
  g_string_append_c (out, '\n');
  if (r->nccl)
    g_string_append_printf (out, "%14s %-5s %-10s %3s", "size_bytes", "nccl", "plan", "ch");
  else
    g_string_append_printf (out, "%14s %-10s", "size_bytes", "algorithm");
  g_string_append_printf (out, " %-6s %14s %14s %12s %12s %10s %10s %16s %10s\n", "proto",
                          "predicted_us", "time_us", "algbw_GBps", "busbw_GBps", "B_GBps",
                          "L_us", "closed_form_us", "sim/closed");
  for (guint k = 0; k < r->sizes->len; k++) {
    const DtsAllreduceSize *sz = &g_array_index (r->sizes, DtsAllreduceSize, k);
    if (r->nccl)
      g_string_append_printf (out, "%14.0f %-5s %-10s %3d", sz->bytes, sz->nccl_algo,
                              sz->algorithm, sz->channels);
    else
      g_string_append_printf (out, "%14.0f %-10s", sz->bytes, sz->algorithm);
    g_string_append_printf (
        out, " %-6s %14.3f %14.3f %12.3f %12.3f %10.3f %10.3f %16.3f %10.4f\n",
        sz->protocol, sz->predicted_s * 1e6, sz->time_s * 1e6,
        sz->time_s > 0 ? sz->bytes / sz->time_s / 1e9 : 0,
        bus_bw (op, r->n_gpus, sz->bytes, sz->time_s) / 1e9, sz->share_Bps / 1e9,
        sz->latency_s * 1e6, sz->closed_form_s * 1e6, ratio (sz));
  }
}

static void
write_text (const DtsAllreduceResult *r, DtsCollOp op, int root, GString *out)
{
  gboolean ring = strcmp (r->algorithm, "ring") == 0;
  g_autofree char *label = g_strdup_printf ("%s:", dts_coll_op_to_string (op));
  g_string_append_printf (out, "%-13s %s over %d GPUs on %d node%s (%s), platform %s", label,
                          r->algorithm, r->n_gpus, r->n_nodes, r->n_nodes == 1 ? "" : "s", r->gpu, r->platform);
  if (dts_coll_ops ()[op].rooted)
    g_string_append_printf (out, ", root %d", root);
  g_string_append_c (out, '\n');
  if (r->nccl)
    g_string_append_printf (out, "plan:         channels per size below, chunk %.0f bytes, "
                                 "granularity %s\n",
                            r->chunk_bytes, r->granularity);
  else
    g_string_append_printf (out, "plan:         %d channel%s, chunk %.0f bytes, granularity %s\n",
                            r->channels, r->channels == 1 ? "" : "s", r->chunk_bytes,
                            r->granularity);
  if (r->coll_overhead_s > 0)
    g_string_append_printf (out, "call:         %.3f us fixed cost per call (--coll-overhead), "
                                 "in every time and closed form below\n",
                            r->coll_overhead_s * 1e6);
  if (r->tuned) {
    write_text_tuned (r, op, out);
    return;
  }
  g_string_append_printf (out, "%s bottleneck B %.3f GB/s (%s, %d hop%s), "
                               "hop latency L %.3f us\n",
                          ring ? "ring:        " : "routes:      ",
                          r->bottleneck_Bps / 1e9, r->bottleneck_link ? r->bottleneck_link : "-",
                          r->bottleneck_hops, r->bottleneck_hops == 1 ? "" : "s",
                          r->hop_latency_s * 1e6);
  const DtsCollAlgorithm *alg = dts_coll_algorithm_lookup (r->algorithm, op);
  g_string_append_printf (out, "closed form:  %s\n",
                          alg && alg->closed_form_text ? alg->closed_form_text : "-");
  if (op != DTS_COLL_OP_ALLREDUCE)
    g_string_append_printf (out, "bus bw:       S/t x %s (nccl-tests' %s)\n",
                            dts_coll_ops ()[op].bus_factor_text, dts_coll_op_to_string (op));
  g_string_append_c (out, '\n');
  g_string_append_printf (out, "%14s %14s %12s %12s %16s %10s\n", "size_bytes", "time_us",
                          "algbw_GBps", "busbw_GBps", "closed_form_us", "sim/closed");
  for (guint k = 0; k < r->sizes->len; k++) {
    const DtsAllreduceSize *sz = &g_array_index (r->sizes, DtsAllreduceSize, k);
    g_string_append_printf (out, "%14.0f %14.3f %12.3f %12.3f %16.3f %10.4f\n", sz->bytes,
                            sz->time_s * 1e6, sz->time_s > 0 ? sz->bytes / sz->time_s / 1e9 : 0,
                            bus_bw (op, r->n_gpus, sz->bytes, sz->time_s) / 1e9,
                            sz->closed_form_s * 1e6, ratio (sz));
  }
}

/* The step-by-step view: slices are recorded rank by rank as the actors
 * run, so they are sorted here by (size, step, rank) for printing. */
static int
slice_cmp (gconstpointer pa, gconstpointer pb)
{
  const DtsAllreduceSlice *a = pa, *b = pb;
  if (a->size_index != b->size_index)
    return a->size_index < b->size_index ? -1 : 1;
  if (a->step != b->step)
    return a->step < b->step ? -1 : 1;
  return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static GArray *
sorted_slices (const DtsAllreduceResult *r)
{
  GArray *s = g_array_sized_new (FALSE, FALSE, sizeof (DtsAllreduceSlice), r->slices->len);
  g_array_append_vals (s, r->slices->data, r->slices->len);
  g_array_sort (s, slice_cmp);
  return s;
}

/* A walk over the sorted slices that keeps the plan of the current size,
 * rebuilt for the chunk indices whenever the size changes (plans are pure,
 * so the rebuilt plan is the simulated one). */
typedef struct {
  const DtsAllreduceResult *r;
  int size_index; /* of plan; -1 before the first slice */
  DtsCollPlan *plan;
  DtsCollOp op;   /* ring steps are the all-reduce's only */
} PlanCursor;

static void
plan_cursor_clear (PlanCursor *c)
{
  g_clear_pointer (&c->plan, dts_coll_plan_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PlanCursor, plan_cursor_clear)

/* Move to SL and put its ring step in *ST (all zero for a flow-granularity
 * slice, which has no step). TRUE when SL is the first slice of a size. */
static gboolean
plan_cursor_move (PlanCursor *c, const DtsAllreduceSlice *sl, DtsCollStep *st)
{
  gboolean new_size = sl->size_index != c->size_index;
  if (new_size) {
    const DtsAllreduceSize *sz = &g_array_index (c->r->sizes, DtsAllreduceSize, sl->size_index);
    DtsCollParams params = { .n_ranks = c->r->n_gpus, .bytes = sz->bytes,
                             .channels = c->r->channels, .chunk_bytes = c->r->chunk_bytes };
    g_clear_pointer (&c->plan, dts_coll_plan_free);
    /* Ring sizes only: plan stays NULL for the other algorithms. */
    if (strcmp (sz->algorithm, "ring") == 0 && c->op == DTS_COLL_OP_ALLREDUCE)
      c->plan = dts_coll_plan_new ("ring", &params, NULL);
    c->size_index = sl->size_index;
  }
  *st = (DtsCollStep){ 0 };
  if (sl->step >= 0 && c->plan != NULL)
    dts_coll_plan_step (c->plan, c->plan->position[sl->rank], sl->step, st);
  return new_size;
}

static void
write_steps_text (const DtsAllreduceResult *r, GString *out)
{
  g_autoptr (GArray) s = sorted_slices (r);
  g_auto (PlanCursor) cur = { r, -1, NULL, DTS_COLL_OP_ALLREDUCE };
  for (guint i = 0; i < s->len; i++) {
    const DtsAllreduceSlice *sl = &g_array_index (s, DtsAllreduceSlice, i);
    DtsCollStep st;
    if (plan_cursor_move (&cur, sl, &st)) {
      const DtsCollPlan *plan = cur.plan;
      g_string_append_printf (
          out,
          "\nsteps of the %.0f-byte all-reduce: %d ranks, chunk c = segment c of each of %d "
          "channel%s (%.0f bytes each, %d round%s per step)\n",
          plan->bytes, r->n_gpus, plan->channels, plan->channels == 1 ? "" : "s", plan->seg_bytes,
          plan->n_rounds, plan->n_rounds == 1 ? "" : "s");
      g_string_append_printf (out, "%4s  %-14s %4s  %-22s %-28s %12s %12s\n", "step", "phase",
                              "rank", "sends", "receives", "start_us", "end_us");
    }
    g_autofree char *sends = g_strdup_printf ("chunk %d to rank %d", st.send_seg, st.send_to);
    g_autofree char *recvs = g_strdup_printf ("chunk %d from rank %d, %s", st.recv_seg,
                                              st.recv_from, st.reduce ? "adds" : "copies");
    g_string_append_printf (out, "%4d  %-14s %4d  %-22s %-28s %12.3f %12.3f\n", sl->step,
                            phase_names[sl->phase], sl->rank, sends, recvs, sl->t_start_s * 1e6,
                            sl->t_end_s * 1e6);
  }
}

/* Every algorithm but the ring all-reduce: the transfers of each recorded
 * step from the simulated plan's generic interface (dts_coll_plan_step_ops),
 * sorted by (size, slot, rank, the rank's own step). The slot is the
 * algorithm's step_slot, the column in which steps that run at once line up
 * (a folded rank's first step and the others' are in different slots), or
 * the rank's step when the algorithm has none. */
typedef struct {
  const DtsAllreduceSlice *sl;
  int slot;
} SlotSlice;

static int
slot_slice_cmp (gconstpointer pa, gconstpointer pb)
{
  const SlotSlice *a = pa, *b = pb;
  if (a->sl->size_index != b->sl->size_index)
    return a->sl->size_index < b->sl->size_index ? -1 : 1;
  if (a->slot != b->slot)
    return a->slot < b->slot ? -1 : 1;
  if (a->sl->rank != b->sl->rank)
    return a->sl->rank < b->sl->rank ? -1 : 1;
  return a->sl->step < b->sl->step ? -1 : a->sl->step > b->sl->step;
}

static int
plan_slot (const DtsCollPlan *plan, int part, int step)
{
  return plan->alg != NULL && plan->alg->step_slot != NULL
             ? plan->alg->step_slot (plan, part, step)
             : step;
}

/* The step slices of R (step granularity: every slice has a step) with
 * their slots, sorted. */
static GArray *
slot_slices (const DtsAllreduceResult *r)
{
  GArray *s = g_array_sized_new (FALSE, FALSE, sizeof (SlotSlice), r->slices->len);
  for (guint i = 0; i < r->slices->len; i++) {
    const DtsAllreduceSlice *sl = &g_array_index (r->slices, DtsAllreduceSlice, i);
    if (sl->step < 0)
      continue;
    const DtsCollPlan *plan = g_ptr_array_index (r->plans, sl->size_index);
    SlotSlice v = { sl, plan_slot (plan, sl->rank, sl->step) };
    g_array_append_val (s, v);
  }
  g_array_sort (s, slot_slice_cmp);
  return s;
}

/* "0-1": the channels a transfer's copies carry. */
static char *
xfer_channels (const DtsCollXfer *x)
{
  if (x->channels <= 1)
    return g_strdup_printf ("%d", x->channel);
  return g_strdup_printf ("%d-%d", x->channel, x->channel + x->channels - 1);
}

static void
write_generic_steps_text (const DtsAllreduceResult *r, DtsCollOp op, int root, GString *out)
{
  g_autoptr (GArray) s = slot_slices (r);
  g_autoptr (GArray) xfers = g_array_new (FALSE, FALSE, sizeof (DtsCollXfer));
  int size_index = -1;
  for (guint i = 0; i < s->len; i++) {
    const SlotSlice *ss = &g_array_index (s, SlotSlice, i);
    const DtsAllreduceSlice *sl = ss->sl;
    const DtsCollPlan *plan = g_ptr_array_index (r->plans, sl->size_index);
    if (sl->size_index != size_index) {
      size_index = sl->size_index;
      g_string_append_printf (out, "\nsteps of the %.0f-byte %s (%s): %d ranks", plan->bytes,
                              dts_coll_op_to_string (op), plan->alg->id, r->n_gpus);
      if (dts_coll_ops ()[op].rooted)
        g_string_append_printf (out, ", root %d", root);
      g_string_append_printf (out,
                              ", %d channel%s; bytes and offsets per channel, offsets into "
                              "the channel's slice of S/C = %.0f bytes\n",
                              plan->channels, plan->channels == 1 ? "" : "s",
                              plan->bytes / plan->channels);
      g_string_append_printf (out, "%4s %4s  %-19s %4s  %-14s %12s %-7s %12s %-5s %12s %12s\n",
                              "step", "own", "phase", "rank", "transfer", "bytes", "data",
                              "offset", "ch", "start_us", "end_us");
    }
    DtsCollStepOps ops = { .xfers = xfers };
    dts_coll_plan_step_ops (plan, sl->rank, sl->step, &ops);
    const char *phase = plan->phases[ops.phase].name;
    if (ops.xfers->len == 0)
      g_string_append_printf (out, "%4d %4d  %-19s %4d  %-14s %12.0f %-7s %12s %-5s %12.3f %12.3f\n",
                              ss->slot, sl->step, phase, sl->rank,
                              ops.reduce_bytes > 0 ? "reduce" : "none", ops.reduce_bytes,
                              ops.reduce_bytes > 0 ? "adds" : "-", "-", "-", sl->t_start_s * 1e6,
                              sl->t_end_s * 1e6);
    for (guint k = 0; k < ops.xfers->len; k++) {
      const DtsCollXfer *x = &g_array_index (ops.xfers, DtsCollXfer, k);
      g_autofree char *what = g_strdup_printf ("%s %d", x->kind == DTS_XFER_SEND ? "send to"
                                                                                 : "recv from",
                                               x->peer);
      g_autofree char *off = x->offset >= 0 ? g_strdup_printf ("%.0f", x->offset) : g_strdup ("-");
      g_autofree char *ch = xfer_channels (x);
      g_string_append_printf (out, "%4d %4d  %-19s %4d  %-14s %12.0f %-7s %12s %-5s %12.3f %12.3f\n",
                              ss->slot, sl->step, phase, sl->rank, what, x->bytes,
                              x->kind == DTS_XFER_SEND ? "-" : x->reduce ? "adds" : "copies", off,
                              ch, sl->t_start_s * 1e6, sl->t_end_s * 1e6);
    }
  }
}

static void
write_generic_steps_json (const DtsAllreduceResult *r, DtsJson *j)
{
  g_autoptr (GArray) s = slot_slices (r);
  g_autoptr (GArray) xfers = g_array_new (FALSE, FALSE, sizeof (DtsCollXfer));
  dts_json_key (j, "steps");
  dts_json_begin_array (j);
  for (guint i = 0; i < s->len; i++) {
    const SlotSlice *ss = &g_array_index (s, SlotSlice, i);
    const DtsAllreduceSlice *sl = ss->sl;
    const DtsCollPlan *plan = g_ptr_array_index (r->plans, sl->size_index);
    DtsCollStepOps ops = { .xfers = xfers };
    dts_coll_plan_step_ops (plan, sl->rank, sl->step, &ops);
    dts_json_begin_object (j);
    dts_json_kv_double (j, "bytes", plan->bytes);
    dts_json_kv_int (j, "step", ss->slot);
    dts_json_kv_int (j, "rank_step", sl->step);
    dts_json_kv_string (j, "phase", plan->phases[ops.phase].name);
    dts_json_kv_int (j, "rank", sl->rank);
    dts_json_kv_int (j, "rounds", ops.n_rounds);
    if (ops.reduce_bytes > 0)
      dts_json_kv_double (j, "reduce_bytes", ops.reduce_bytes);
    dts_json_key (j, "transfers");
    dts_json_begin_array (j);
    for (guint k = 0; k < ops.xfers->len; k++) {
      const DtsCollXfer *x = &g_array_index (ops.xfers, DtsCollXfer, k);
      dts_json_begin_object (j);
      dts_json_kv_string (j, "kind", x->kind == DTS_XFER_SEND ? "send" : "recv");
      dts_json_kv_int (j, "peer", x->peer);
      dts_json_kv_double (j, "bytes", x->bytes);
      dts_json_kv_int (j, "channels", x->channels);
      dts_json_kv_int (j, "channel", x->channel);
      if (x->kind == DTS_XFER_RECV)
        dts_json_kv_bool (j, "reduce", x->reduce);
      if (x->offset >= 0)
        dts_json_kv_double (j, "offset", x->offset);
      dts_json_end_object (j);
    }
    dts_json_end_array (j);
    dts_json_kv_double (j, "t_start_s", sl->t_start_s);
    dts_json_kv_double (j, "t_end_s", sl->t_end_s);
    dts_json_end_object (j);
  }
  dts_json_end_array (j);
}

/* The ring all-reduce has its own step view (chunks round the ring). */
static gboolean
ring_steps (const DtsAllreduceResult *r, DtsCollOp op)
{
  return op == DTS_COLL_OP_ALLREDUCE && strcmp (r->algorithm, "ring") == 0;
}

static void
write_json (const DtsAllreduceResult *r, DtsCollOp op, int root, gboolean steps, GString *out)
{
  g_autoptr (DtsJson) j = dts_json_new ();
  dts_json_begin_object (j);
  dts_json_kv_string (j, "platform", r->platform);
  dts_json_kv_string (j, "gpu", r->gpu);
  dts_json_kv_int (j, "n_gpus", r->n_gpus);
  dts_json_kv_int (j, "n_nodes", r->n_nodes);
  dts_json_kv_string (j, "algorithm", r->algorithm);
  /* All-reduce is the op when none is named. */
  if (op != DTS_COLL_OP_ALLREDUCE)
    dts_json_kv_string (j, "op", dts_coll_op_to_string (op));
  if (dts_coll_ops ()[op].rooted)
    dts_json_kv_int (j, "root", root);
  dts_json_kv_int (j, "channels", r->channels);
  dts_json_kv_double (j, "chunk_bytes", r->chunk_bytes);
  dts_json_kv_double (j, "coll_overhead_s", r->coll_overhead_s);
  dts_json_kv_string (j, "granularity", r->granularity);
  dts_json_kv_double (j, "bottleneck_Bps", r->bottleneck_Bps);
  dts_json_kv_string (j, "bottleneck_link", r->bottleneck_link);
  dts_json_kv_int (j, "bottleneck_hops", r->bottleneck_hops);
  dts_json_kv_double (j, "hop_latency_s", r->hop_latency_s);
  dts_json_key (j, "results");
  dts_json_begin_array (j);
  for (guint k = 0; k < r->sizes->len; k++) {
    const DtsAllreduceSize *sz = &g_array_index (r->sizes, DtsAllreduceSize, k);
    dts_json_begin_object (j);
    dts_json_kv_double (j, "bytes", sz->bytes);
    dts_json_kv_double (j, "time_s", sz->time_s);
    dts_json_kv_double (j, "algbw_Bps", sz->time_s > 0 ? sz->bytes / sz->time_s : 0);
    dts_json_kv_double (j, "busbw_Bps", bus_bw (op, r->n_gpus, sz->bytes, sz->time_s));
    dts_json_kv_double (j, "closed_form_s", sz->closed_form_s);
    dts_json_kv_double (j, "ratio_to_closed_form", ratio (sz));
    dts_json_kv_int (j, "rounds_per_step", sz->n_rounds);
    if (r->tuned) {
      dts_json_kv_string (j, "algorithm", sz->algorithm);
      dts_json_kv_string (j, "protocol", sz->protocol);
      dts_json_kv_double (j, "predicted_s", sz->predicted_s);
      if (r->nccl) {
        dts_json_kv_string (j, "nccl_algorithm", sz->nccl_algo);
        dts_json_kv_int (j, "channels", sz->channels);
      }
      /* Every candidate the model weighed, for the curious. */
      dts_json_key (j, "candidates");
      dts_json_begin_array (j);
      for (guint i = 0; i < sz->candidates->len; i++) {
        const DtsCollTuneRow *row = &g_array_index (sz->candidates, DtsCollTuneRow, i);
        dts_json_begin_object (j);
        dts_json_kv_string (j, "algorithm", row->algorithm);
        if (r->nccl)
          dts_json_kv_int (j, "channels", row->channels);
        dts_json_kv_string (j, "protocol", dts_coll_proto_to_string (row->protocol));
        dts_json_kv_double (j, "latency_s", row->latency_s);
        dts_json_kv_double (j, "bandwidth_s", row->bandwidth_s);
        dts_json_kv_double (j, "predicted_s", row->predicted_s);
        dts_json_end_object (j);
      }
      dts_json_end_array (j);
    }
    dts_json_end_object (j);
  }
  dts_json_end_array (j);
  if (steps && r->slices && !ring_steps (r, op)) {
    write_generic_steps_json (r, j);
  } else if (steps && r->slices) {
    g_autoptr (GArray) s = sorted_slices (r);
    g_auto (PlanCursor) cur = { r, -1, NULL, DTS_COLL_OP_ALLREDUCE };
    dts_json_key (j, "steps");
    dts_json_begin_array (j);
    for (guint i = 0; i < s->len; i++) {
      const DtsAllreduceSlice *sl = &g_array_index (s, DtsAllreduceSlice, i);
      DtsCollStep st;
      plan_cursor_move (&cur, sl, &st);
      dts_json_begin_object (j);
      dts_json_kv_double (j, "bytes", cur.plan->bytes);
      dts_json_kv_int (j, "step", sl->step);
      dts_json_kv_string (j, "phase", phase_names[sl->phase]);
      dts_json_kv_int (j, "rank", sl->rank);
      dts_json_kv_int (j, "send_to", st.send_to);
      dts_json_kv_int (j, "send_chunk", st.send_seg);
      dts_json_kv_int (j, "recv_from", st.recv_from);
      dts_json_kv_int (j, "recv_chunk", st.recv_seg);
      dts_json_kv_bool (j, "reduce", st.reduce);
      dts_json_kv_double (j, "t_start_s", sl->t_start_s);
      dts_json_kv_double (j, "t_end_s", sl->t_end_s);
      dts_json_end_object (j);
    }
    dts_json_end_array (j);
  }
  dts_json_key (j, "cfg");
  dts_json_begin_array (j);
  for (char **c = r->cfg; c && *c; c++)
    dts_json_string (j, *c);
  dts_json_end_array (j);
  dts_json_key (j, "simulation");
  dts_json_begin_object (j);
  dts_json_kv_double (j, "wall_time_s", r->wall_time_s);
  dts_json_kv_int (j, "events", r->events);
  dts_json_end_object (j);
  dts_json_end_object (j);
  g_string_append (out, dts_json_get (j));
}

static void
write_csv (const DtsAllreduceResult *r, DtsCollOp op, GString *out)
{
  g_string_append (out, "platform,gpu,n_gpus,n_nodes,channels,chunk_bytes,granularity,bytes,"
                        "time_s,algbw_Bps,busbw_Bps,closed_form_s,ratio_to_closed_form");
  g_string_append (out, r->nccl    ? ",algorithm,protocol,predicted_s,nccl_algorithm\n"
                        : r->tuned ? ",algorithm,protocol,predicted_s\n"
                        : op != DTS_COLL_OP_ALLREDUCE ? ",algorithm,op\n" : "\n");
  for (guint k = 0; k < r->sizes->len; k++) {
    const DtsAllreduceSize *sz = &g_array_index (r->sizes, DtsAllreduceSize, k);
    double v[] = { sz->time_s, sz->time_s > 0 ? sz->bytes / sz->time_s : 0,
                   bus_bw (op, r->n_gpus, sz->bytes, sz->time_s),
                   sz->closed_form_s, ratio (sz) };
    g_string_append_printf (out, "%s,%s,%d,%d,%d,%.0f,%s,%.0f", r->platform, r->gpu, r->n_gpus,
                            r->n_nodes, r->nccl ? sz->channels : r->channels, r->chunk_bytes,
                            r->granularity, sz->bytes);
    for (gsize i = 0; i < G_N_ELEMENTS (v); i++) {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      dts_json_format_double (buf, sizeof buf, v[i]);
      g_string_append_printf (out, ",%s", buf);
    }
    if (r->tuned) {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      dts_json_format_double (buf, sizeof buf, sz->predicted_s);
      g_string_append_printf (out, ",%s,%s,%s", sz->algorithm, sz->protocol, buf);
      if (r->nccl)
        g_string_append_printf (out, ",%s", sz->nccl_algo);
    } else if (op != DTS_COLL_OP_ALLREDUCE) {
      g_string_append_printf (out, ",%s,%s", sz->algorithm, dts_coll_op_to_string (op));
    }
    g_string_append_c (out, '\n');
  }
}

/* Chrome / Perfetto trace-event JSON: one process per GPU rank with one
 * thread, one complete event per ring step (flow: per phase), timestamps in
 * microseconds of simulated time, slices sorted by (size, step, rank). */
static void
write_trace (const DtsAllreduceResult *r, DtsCollOp op, GString *out)
{
  g_autoptr (DtsJson) j = dts_json_new ();
  dts_json_begin_object (j);
  dts_json_kv_string (j, "displayTimeUnit", "ms");
  dts_json_key (j, "otherData");
  dts_json_begin_object (j);
  dts_json_kv_string (j, "generator", "dtsim allreduce");
  dts_json_kv_string (j, "platform", r->platform);
  dts_json_kv_int (j, "n_gpus", r->n_gpus);
  dts_json_kv_string (j, "granularity", r->granularity);
  dts_json_end_object (j);
  dts_json_key (j, "traceEvents");
  dts_json_begin_array (j);
  for (int rank = 0; rank < r->n_gpus; rank++) {
    g_autofree char *name = g_strdup_printf ("rank %d (%s)", rank, r->rank_hosts[rank]);
    dts_report_chrome_metadata (j, "process_name", rank, 0, name, 0);
    dts_report_chrome_metadata (j, "process_sort_index", rank, 0, NULL, rank);
    dts_report_chrome_metadata (j, "thread_name", rank, 0, r->algorithm, 0);
  }
  g_autoptr (GArray) s = sorted_slices (r);
  g_auto (PlanCursor) cur = { r, -1, NULL, op };
  for (guint i = 0; i < s->len; i++) {
    const DtsAllreduceSlice *sl = &g_array_index (s, DtsAllreduceSlice, i);
    DtsCollStep st;
    plan_cursor_move (&cur, sl, &st);
    dts_json_begin_object (j);
    g_autofree char *name = NULL;
    /* Chunks and peers are the ring's; other algorithms' steps are named by
     * number (their transfers are in --dump-plan). */
    if (sl->step >= 0 && cur.plan != NULL)
      name = g_strdup_printf ("step %d: chunk %d -> rank %d", sl->step, st.send_seg, st.send_to);
    else if (sl->step >= 0)
      name = g_strdup_printf ("step %d", sl->step);
    else
      name = g_strdup (sl->phase_name);
    dts_json_kv_string (j, "name", name);
    dts_json_kv_string (j, "cat", sl->phase_name);
    dts_json_kv_string (j, "ph", "X");
    dts_json_kv_int (j, "pid", sl->rank);
    dts_json_kv_int (j, "tid", 0);
    dts_json_kv_double (j, "ts", sl->t_start_s * 1e6);
    dts_json_kv_double (j, "dur", (sl->t_end_s - sl->t_start_s) * 1e6);
    dts_json_key (j, "args");
    dts_json_begin_object (j);
    dts_json_kv_double (j, op == DTS_COLL_OP_ALLREDUCE ? "allreduce_bytes" : "bytes",
                        g_array_index (r->sizes, DtsAllreduceSize, sl->size_index).bytes);
    if (sl->step >= 0)
      dts_json_kv_int (j, "step", sl->step);
    if (sl->step >= 0 && cur.plan != NULL) {
      dts_json_kv_int (j, "send_chunk", st.send_seg);
      dts_json_kv_int (j, "send_to", st.send_to);
      dts_json_kv_int (j, "recv_chunk", st.recv_seg);
      dts_json_kv_int (j, "recv_from", st.recv_from);
      dts_json_kv_bool (j, "reduce", st.reduce);
    }
    dts_json_end_object (j);
    dts_json_end_object (j);
  }
  dts_json_end_array (j);
  dts_json_end_object (j);
  g_string_append (out, dts_json_get (j));
}

/* The run and size SZ as the pictures' titles give them. */
static DtsSvgRun
svg_run (const DtsAllreduceResult *r, const DtsAllreduceSize *sz)
{
  return (DtsSvgRun){ .platform = r->platform, .gpu = r->gpu, .n_ranks = r->n_gpus,
                      .channels = r->channels, .bytes = sz->bytes,
                      .bottleneck_Bps = r->bottleneck_Bps, .hop_latency_s = r->hop_latency_s,
                      .closed_form_s = sz->closed_form_s, .time_s = sz->time_s,
                      .t_origin_s = sz->t_start_s };
}

/* The picture of the (only) size: its step slices, sorted by (step, rank),
 * with the chunk each one sends and the chunk each rank holds fully reduced
 * after the last reduce-scatter step (the one it receives and adds then). */
static void
write_svg (const DtsAllreduceResult *r, GString *out)
{
  const DtsAllreduceSize *sz = &g_array_index (r->sizes, DtsAllreduceSize, 0);
  g_autoptr (GArray) s = sorted_slices (r);
  g_autoptr (GArray) steps = g_array_new (FALSE, FALSE, sizeof (DtsSvgRingStep));
  g_autofree int *reduced = g_new0 (int, r->n_gpus);
  g_auto (PlanCursor) cur = { r, -1, NULL, DTS_COLL_OP_ALLREDUCE };
  for (guint i = 0; i < s->len; i++) {
    const DtsAllreduceSlice *sl = &g_array_index (s, DtsAllreduceSlice, i);
    DtsCollStep st;
    if (sl->size_index != 0 || sl->step < 0)
      continue;
    plan_cursor_move (&cur, sl, &st);
    DtsSvgRingStep v = { .rank = sl->rank, .step = sl->step, .phase = sl->phase,
                         .send_chunk = st.send_seg, .send_to = st.send_to,
                         .t_start_s = sl->t_start_s, .t_end_s = sl->t_end_s };
    g_array_append_val (steps, v);
    if (sl->step == cur.plan->n_reduce_steps - 1)
      reduced[sl->rank] = st.recv_seg;
  }
  DtsSvgRing ring = {
    .run = svg_run (r, sz),
    .steps = (const DtsSvgRingStep *) steps->data,
    .n_steps = (int) steps->len,
    .reduced_chunk = reduced,
  };
  dts_svg_write_ring_allreduce (&ring, out);
}

/* The generic picture of the (only) size: one column per slot, one arrow
 * per received transfer that crosses hosts (the receiver knows whether it
 * adds), in the order of the sorted slices. FALSE (a usage error) when the
 * plan has more slots than a picture can show. */
static gboolean
write_generic_svg (const DtsAllreduceResult *r, DtsCollOp op, int root, GString *out,
                   GError **error)
{
  const DtsAllreduceSize *sz = &g_array_index (r->sizes, DtsAllreduceSize, 0);
  const DtsCollPlan *plan = g_ptr_array_index (r->plans, 0);
  g_autoptr (GArray) s = slot_slices (r);
  int n_cols = 0;
  for (guint i = 0; i < s->len; i++)
    n_cols = MAX (n_cols, g_array_index (s, SlotSlice, i).slot + 1);
  if (n_cols > MAX_SVG_STEPS) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--svg: the %s plan of %.0f bytes has %d steps, too many to draw (at most %d; "
                 "use a larger --chunk-size, a smaller --size, or --steps)",
                 plan->alg->id, sz->bytes, n_cols, MAX_SVG_STEPS);
    return FALSE;
  }
  n_cols = MAX (n_cols, 1);
  g_autofree double *col_end = g_new (double, n_cols);
  g_autofree const char **col_phase = g_new0 (const char *, n_cols);
  for (int c = 0; c < n_cols; c++)
    col_end[c] = sz->t_start_s;
  g_autoptr (GArray) arrows = g_array_new (FALSE, FALSE, sizeof (DtsSvgArrow));
  g_autoptr (GArray) xfers = g_array_new (FALSE, FALSE, sizeof (DtsCollXfer));
  for (guint i = 0; i < s->len; i++) {
    const SlotSlice *ss = &g_array_index (s, SlotSlice, i);
    const DtsAllreduceSlice *sl = ss->sl;
    if (sl->size_index != 0)
      continue;
    DtsCollStepOps ops = { .xfers = xfers };
    dts_coll_plan_step_ops (plan, sl->rank, sl->step, &ops);
    col_end[ss->slot] = MAX (col_end[ss->slot], sl->t_end_s);
    if (col_phase[ss->slot] == NULL)
      col_phase[ss->slot] = plan->phases[ops.phase].name;
    for (guint k = 0; k < ops.xfers->len; k++) {
      const DtsCollXfer *x = &g_array_index (ops.xfers, DtsCollXfer, k);
      if (x->kind != DTS_XFER_RECV
          || dts_coll_plan_part_host (plan, x->peer) == dts_coll_plan_part_host (plan, sl->rank))
        continue;
      DtsSvgArrow a = { .from = x->peer, .to = sl->rank, .column = ss->slot,
                        .reduce = x->reduce, .bytes = x->bytes, .offset = x->offset,
                        .channels = x->channels };
      g_array_append_val (arrows, a);
    }
  }
  DtsSvgSteps st = {
    .algorithm = plan->alg->id,
    .op = dts_coll_op_to_string (op),
    .description = plan->alg->description,
    .run = svg_run (r, sz),
    .root = dts_coll_ops ()[op].rooted ? root : -1,
    .n_columns = n_cols,
    .col_end_s = col_end,
    .col_phase = col_phase,
    .arrows = (const DtsSvgArrow *) arrows->data,
    .n_arrows = (int) arrows->len,
  };
  dts_svg_write_steps (&st, out);
  return TRUE;
}

/* --op help: the ops, what S is for each, their bus-bandwidth factor and
 * the algorithms that do them. */
static void
list_ops (void)
{
  for (const DtsCollOpInfo *o = dts_coll_ops (); o->id; o++) {
    g_autofree char *ids = dts_coll_op_algorithm_ids (o->op);
    if (o->op == DTS_COLL_OP_ALLREDUCE) {
      /* dtsim allreduce runs the all-reduce rows with a closed form. */
      g_autoptr (GString) s = g_string_new (NULL);
      for (const DtsCollAlgorithm *b = dts_coll_algorithms (); b->id; b++)
        if (b->closed_form_s != NULL)
          g_string_append_printf (s, "%s%s", s->len ? ", " : "", b->id);
      g_string_append (s, ", auto");
      g_free (ids);
      ids = g_string_free (g_steal_pointer (&s), FALSE);
    }
    printf ("%-15s %s\n", o->id, o->description);
    printf ("%-15s   bus bandwidth S/t x %s; --collective %s%s\n", "", o->bus_factor_text, ids,
            o->rooted ? "; --root R" : "");
  }
}

/* --op and --root, and --collective against the op: usage errors. */
static gboolean
check_op (const ArArgs *a, DtsCollOp *op, int *root, GError **error)
{
  if (a->op != NULL) {
    const DtsCollOpInfo *o = dts_coll_op_lookup (a->op);
    if (o == NULL) {
      g_autoptr (GString) known = g_string_new (NULL);
      for (const DtsCollOpInfo *k = dts_coll_ops (); k->id; k++)
        g_string_append_printf (known, "%s%s", known->len ? ", " : "", k->id);
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "unknown --op '%s' (known: %s, help)",
                   a->op, known->str);
      return FALSE;
    }
    *op = o->op;
  }
  const DtsCollOpInfo *o = &dts_coll_ops ()[*op];
  if (a->root != NULL) {
    if (!o->rooted) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--root is only for --op broadcast or reduce, not %s", o->id);
      return FALSE;
    }
    if (!dts_cli_parse_int_option ("root", a->root, 0, (1 << 20) - 1, root, error))
      return FALSE;
  }
  if (*op == DTS_COLL_OP_ALLREDUCE)
    return TRUE;
  g_autofree char *ids = dts_coll_op_algorithm_ids (*op);
  gboolean tunable = *op == DTS_COLL_OP_ALLGATHER || *op == DTS_COLL_OP_REDUCE_SCATTER;
  if (dts_coll_is_tuned (a->c.collective) && !tunable) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--collective %s picks all-reduce, all-gather and reduce-scatter algorithms "
                 "only (its tuning model is NCCL's for those); for --op %s give one of: %s",
                 a->c.collective, o->id, ids);
    return FALSE;
  }
  if (a->c.collective != NULL && !dts_coll_is_tuned (a->c.collective)
      && dts_coll_algorithm_lookup (a->c.collective, *op) == NULL) {
    gboolean known = dts_coll_algorithm_lookup (a->c.collective, DTS_COLL_OP_ALLREDUCE) != NULL;
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "%s--collective '%s' %s %s (%s: %s)",
                 known ? "" : "unknown ", a->c.collective, known ? "does not do" : "for", o->id,
                 o->id, ids);
    return FALSE;
  }
  return TRUE;
}

gboolean
dts_cmd_allreduce (int argc, char **argv, GError **error)
{
  g_auto (ArArgs) a = { 0 };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  g_option_context_set_summary (
      ctx, "Simulate one all-reduce alone (as NCCL would run it, or --collective help): time,\n"
           "algorithm and bus bandwidth, and the closed form (the ring's: 2(N-1)/N x S/B +\n"
           "2(N-1) x L with its bottleneck B and hop latency L; each algorithm prints its own).\n"
           "--steps shows the algorithm step by step, --svg draws it in one picture.\n"
           "--op runs another collective (--op help).");
  add_entries (ctx, &a);
  gboolean help = FALSE;
  if (!dts_cli_parse (ctx, "allreduce", &argc, &argv, &help, error))
    return FALSE;
  if (help)
    return TRUE;
  if (!dts_cli_no_arguments (argc, argv, "allreduce", error))
    return FALSE;
  if (g_strcmp0 (a.c.collective, "help") == 0) {
    dts_cli_list_collectives ();
    return TRUE;
  }
  if (g_strcmp0 (a.op, "help") == 0) {
    list_ops ();
    return TRUE;
  }
  DtsCollOp op = DTS_COLL_OP_ALLREDUCE;
  int root = 0;
  if (!check_op (&a, &op, &root, error))
    return FALSE;
  if (a.c.collective == NULL) {
    /* No --collective: NCCL's choice where its tuning model covers the op
     * and no one algorithm is to be drawn; the ring for --steps and --svg
     * (they show one algorithm: its name is in their output); the op's own
     * default elsewhere (broadcast, reduce, all-to-all). */
    gboolean tunable = op == DTS_COLL_OP_ALLREDUCE || op == DTS_COLL_OP_ALLGATHER
                       || op == DTS_COLL_OP_REDUCE_SCATTER;
    a.c.collective = g_strdup (!tunable ? dts_coll_ops ()[op].default_algorithm
                               : a.steps || a.svg != NULL ? "ring"
                                                          : DTS_COLL_DEFAULT_ALGORITHM);
    if (strcmp (a.c.collective, DTS_COLL_DEFAULT_ALGORITHM) != 0)
      a.why = g_strdup_printf ("%s%s without --collective runs %s", tunable ? "" : "--op ",
                               tunable ? (a.steps ? "--steps" : "--svg") : dts_coll_ops ()[op].id,
                               a.c.collective);
  }
  if (dts_coll_is_tuned (a.c.collective) && (a.steps || a.svg != NULL)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--%s shows one algorithm step by step, and %s may pick a different one "
                 "for each size: give it with --collective (the algorithm %s picks is in "
                 "the output without --%s)",
                 a.steps ? "steps" : "svg", a.c.collective, a.c.collective,
                 a.steps ? "steps" : "svg");
    return FALSE;
  }
  if (op == DTS_COLL_OP_ALLREDUCE && a.c.collective != NULL
      && !dts_coll_is_tuned (a.c.collective)) {
    const DtsCollAlgorithm *alg = dts_coll_algorithms ();
    while (alg->id && strcmp (alg->id, a.c.collective) != 0)
      alg++;
    if (alg->id == NULL || alg->closed_form_s == NULL) {
      g_autoptr (GString) ids = g_string_new (NULL);
      for (const DtsCollAlgorithm *b = dts_coll_algorithms (); b->id; b++)
        if (b->closed_form_s != NULL)
          g_string_append_printf (ids, "%s%s", ids->len ? ", " : "", b->id);
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "%s --collective '%s' in dtsim allreduce (known: %s, auto, nccl; parameter servers "
                   "run in dtsim run --collective ps)",
                   alg->id ? "no" : "unknown", a.c.collective, ids->str);
      return FALSE;
    }
  }
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (double));
  ArChecked c = { .sizes = sizes, .n_gpus = 0, .channels = DTS_COLL_DEFAULT_CHANNELS,
                  .chunk_bytes = DTS_COLL_DEFAULT_CHUNK_BYTES,
                  .granularity = DTS_GRANULARITY_FLOW };
  if (!check_args (&a, &c, error))
    return FALSE;
  g_autoptr (GArray) overrides = dts_cli_parse_overrides (a.c.set, a.c.scale, error);
  if (overrides == NULL)
    return FALSE;
  if (!dts_sim_configure (a.c.cfg, error))
    return FALSE;
  g_autofree char *platform_path = dts_datadir_resolve (
      "platforms", a.c.platform ? a.c.platform : DTS_DEFAULT_PLATFORM, ".xml", "platform", error);
  if (platform_path == NULL)
    return FALSE;

  DtsAllreduceOptions o = {
    .platform_path = platform_path,
    .n_gpus = c.n_gpus,
    .sizes_bytes = (const double *) sizes->data,
    .n_sizes = sizes->len,
    .channels = c.channels,
    .chunk_bytes = c.chunk_bytes,
    .coll_overhead_s = c.coll_overhead_s,
    .granularity = c.granularity,
    .cfg = a.c.cfg,
    .overrides = overrides->len ? overrides : NULL,
    .record_steps = a.steps || a.c.trace != NULL || a.svg != NULL,
    .collective = a.c.collective,
    .op = op,
    .root = root,
    .nccl = c.nccl,
  };
  if (a.c.dump_plan) {
    g_autoptr (GString) plan = g_string_new (NULL);
    o.dump_plan = plan;
    g_autoptr (DtsAllreduceResult) none = dts_allreduce_run (&o, error);
    if (*error != NULL)
      return FALSE;
    fwrite (plan->str, 1, plan->len, stdout);
    return TRUE;
  }
  if ((a.steps || a.svg != NULL) && c.n_gpus == 0) {
    /* Refuse a large ring before simulating it: count the platform's GPUs. */
    g_autoptr (DtsGpuCatalog) catalog = dts_gpu_catalog_load (NULL, error);
    if (catalog == NULL)
      return FALSE;
    g_autoptr (DtsPlatform) p = dts_platform_load (platform_path, catalog, error);
    if (p == NULL)
      return FALSE;
    if (p->gpus->len > MAX_STEPS_GPUS) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--%s: platform '%s' has %u GPUs, too many to %s step by step "
                   "(at most %d; choose fewer with --gpus, or use --trace)",
                   a.steps ? "steps" : "svg", platform_path, p->gpus->len,
                   a.steps ? "print" : "draw", MAX_STEPS_GPUS);
      return FALSE;
    }
  }
  /* After every check that can refuse the run, so that a refused run leaves
   * no empty file behind. */
  if (!dts_cli_check_writable (a.c.trace, "trace", error)
      || !dts_cli_check_writable (a.svg, "svg", error))
    return FALSE;
  g_autoptr (DtsAllreduceResult) r = dts_allreduce_run (&o, error);
  if (r == NULL)
    return FALSE;

  if (a.c.trace != NULL) {
    g_autoptr (GString) tr = g_string_new (NULL);
    write_trace (r, op, tr);
    if (!dts_report_save (tr, a.c.trace, "trace", error))
      return FALSE;
  }
  if (a.svg != NULL) {
    g_autoptr (GString) svg = g_string_new (NULL);
    if (ring_steps (r, op))
      write_svg (r, svg);
    else if (!write_generic_svg (r, op, root, svg, error))
      return FALSE;
    if (!dts_report_save (svg, a.svg, "svg", error))
      return FALSE;
    /* The picture alone on stdout, so that it can be piped. */
    if (strcmp (a.svg, "-") == 0)
      return TRUE;
  }
  g_autoptr (GString) out = g_string_new (NULL);
  switch (c.format) {
  case DTS_FORMAT_TEXT:
    write_text (r, op, root, out);
    if (a.steps && ring_steps (r, op))
      write_steps_text (r, out);
    else if (a.steps)
      write_generic_steps_text (r, op, root, out);
    break;
  case DTS_FORMAT_JSON:
    write_json (r, op, root, a.steps, out);
    break;
  case DTS_FORMAT_CSV:
    write_csv (r, op, out);
    break;
  }
  fwrite (out->str, 1, out->len, stdout);
  return TRUE;
}
