/* ps-timeline.c - parameter-server training as a Gantt chart: what
 * staleness is (`dtsim run --strategy async-ps|sync-ps --timeline F.svg`).
 *
 * Workers run free, so one iteration is not the unit here: the chart spans
 * PS_ITERATIONS iterations of the workers shown (from the first measured
 * one), one row per worker and one per shard shown. A worker's row has its
 * forward and backward passes (consecutive slices of one pass merged into
 * one bar, the forward bar labelled with its iteration) over a grey band:
 * what no bar covers, the worker waits for weights. A shard's row has its
 * updates, each labelled with the worker whose gradient it applied and the
 * gradient's staleness (`w2 s3`), or for a merged update with the number of
 * gradients and their largest staleness (`4 g s3`; a label that would
 * overlap the previous one is left out); for the first shard, a
 * line joins each gradient's arrival on its worker's row to the start of
 * the update that applied it. Deterministic: elements in row and recording
 * order, fixed number formats. */
#include "config.h"

#include <string.h>

#include "output/format.h"
#include "output/svg.h"
#include "output/timeline.h"

/* Worker iterations in the picture. */
#define PS_ITERATIONS 3
/* Shards drawn at most. */
#define PS_MAX_SHARDS 4

#define MARGIN 24.0
#define TITLE_H 84.0
#define LEGEND_H 30.0
#define LABEL_W 150.0
#define LANE_H 20.0
#define ROW_GAP 10.0
#define TIMELINE_W 900.0
#define WAIT_FILL "#e4e4e4"
#define UPDATE_FILL "#3a923a"
#define FORWARD_FILL "#3b75af"
#define BACKWARD_FILL "#e1812c"

typedef struct {
  int rank;
  int pass;           /* 0 forward, 1 backward (its two phases), 2 optimizer */
  int iteration;
  double t0_s, t1_s;
} PsBar;

static int
pass_of_phase (int phase)
{
  return phase == 0 ? 0 : phase == 3 ? 2 : 1;
}

static void
legend (GString *o, double *x, double y, const char *fill, const char *label)
{
  dts_svg_rect (o, NULL, *x, y - 12, 16, 16, 2, fill,
                strcmp (fill, WAIT_FILL) == 0 ? "#bbbbbb" : NULL);
  dts_svg_text (o, *x + 22, y + 1, 13, "start", NULL, "#222222", label);
  *x += 22 + dts_svg_text_width (label, 13) + 24;
}

void
dts_timeline_write_ps_svg (const DtsTrace *t, const DtsRunSummary *s, GString *out)
{
  g_return_if_fail (t->slices != NULL && s->ps_workers > 0);
  int n_workers = MIN (s->ps_workers, DTS_TIMELINE_MAX_RANKS);
  int n_shards = MIN (t->n_shards, PS_MAX_SHARDS);
  int it0 = t->n_iterations > PS_ITERATIONS ? 1 : 0;
  int it1 = MIN (t->n_iterations - 1, it0 + PS_ITERATIONS - 1);

  /* The window: the shown workers' iterations it0..it1. */
  double w0 = G_MAXDOUBLE, w1 = -G_MAXDOUBLE;
  for (int r = 0; r < n_workers; r++) {
    w0 = MIN (w0, t->iter_start_s[dts_trace_ri (t, r, it0)]);
    w1 = MAX (w1, t->iter_end_s[dts_trace_ri (t, r, it1)]);
  }
  if (!(w1 > w0))
    w1 = w0 + 1e-6;

  /* Compute bars, touching slices of one pass merged. */
  g_autoptr (GArray) bars = g_array_new (FALSE, FALSE, sizeof (PsBar));
  g_autofree int *last = g_new (int, n_workers);
  for (int r = 0; r < n_workers; r++)
    last[r] = -1;
  for (guint i = 0; i < t->slices->len; i++) {
    const DtsTraceSlice *sl = &g_array_index (t->slices, DtsTraceSlice, i);
    if (sl->track != DTS_TRACK_COMPUTE || sl->rank < 0 || sl->rank >= n_workers
        || sl->iteration < it0 || sl->iteration > it1)
      continue;
    PsBar b = { sl->rank, pass_of_phase (sl->phase), sl->iteration, sl->t_start_s,
                sl->t_end_s };
    PsBar *p = last[b.rank] >= 0 ? &g_array_index (bars, PsBar, last[b.rank]) : NULL;
    if (p != NULL && p->pass == b.pass && p->iteration == b.iteration
        && b.t0_s - p->t1_s <= 1e-12) {
      p->t1_s = MAX (p->t1_s, b.t1_s);
      continue;
    }
    last[b.rank] = (int) bars->len;
    g_array_append_val (bars, b);
  }

  double row_h = LANE_H + ROW_GAP;
  double tx0 = MARGIN + LABEL_W;
  double ty0 = TITLE_H + LEGEND_H + 12;
  double shard_y0 = ty0 + n_workers * row_h + ROW_GAP;
  double axis_y = shard_y0 + n_shards * (LANE_H + 16 + ROW_GAP);
  double width = tx0 + TIMELINE_W + MARGIN + 16;
  double notes_y = axis_y + 64;
  double height = notes_y + 3 * 18 + MARGIN;
  double scale = TIMELINE_W / (w1 - w0);
#define TX(v) (tx0 + (CLAMP ((v), w0, w1) - w0) * scale)
  DtsFormatBuf a;

  dts_svg_begin (out, width, height);
  g_autofree char *t1 = g_strdup_printf ("%s on %s: %d workers, %d shard%s, %s", s->workload,
                                         s->platform, s->ps_workers, t->n_shards,
                                         t->n_shards == 1 ? "" : "s", s->strategy);
  dts_svg_text (out, MARGIN, 34, 20, "start", "bold", "#111111", t1);
  g_autofree char *bound = s->staleness_bound >= 0
                               ? g_strdup_printf (", staleness bound %d", s->staleness_bound)
                               : g_strdup ("");
  g_autofree char *t2 = g_strdup_printf (
      "worker iterations %d-%d of %d; batch %d per worker; update %s%s; iteration time %s ms",
      it0 + 1, it1 + 1, t->n_iterations, s->batch_size_per_gpu, s->ps_update, bound,
      dts_format_fixed (&a, s->iteration_time_s, DTS_FORMAT_UNIT_MS, 3));
  dts_svg_text (out, MARGIN, 58, 14, "start", NULL, "#333333", t2);
  g_autoptr (GString) t3 = g_string_new (NULL);
  if (n_workers < s->ps_workers)
    g_string_printf (t3, "the first %d of %d workers", n_workers, s->ps_workers);
  else
    g_string_printf (t3, "all %d workers", s->ps_workers);
  if (n_shards < t->n_shards)
    g_string_append_printf (t3, "; the first %d of %d shards", n_shards, t->n_shards);
  dts_svg_text (out, MARGIN, 78, 13, "start", NULL, "#555555", t3->str);

  double lx = MARGIN, ly = TITLE_H + LEGEND_H / 2 + 4;
  legend (out, &lx, ly, FORWARD_FILL, "forward");
  legend (out, &lx, ly, BACKWARD_FILL, "backward");
  legend (out, &lx, ly, WAIT_FILL, "worker waiting for weights");
  legend (out, &lx, ly, UPDATE_FILL, "shard update: worker, staleness");

  g_string_append (out, "<!-- one row per worker, then one per shard -->\n");
  for (int r = 0; r < n_workers; r++) {
    double y = ty0 + r * row_h;
    g_autofree char *l = g_strdup_printf ("worker %d", r);
    const char *host = (guint) r < t->rank_hosts->len ? g_ptr_array_index (t->rank_hosts, r)
                                                      : "";
    dts_svg_text (out, tx0 - 10, y + 9, 13, "end", "bold", "#222222", l);
    dts_svg_text (out, tx0 - 10, y + 23, 11, "end", NULL, "#555555", host);
    double a0 = t->iter_start_s[dts_trace_ri (t, r, it0)];
    double a1 = t->iter_end_s[dts_trace_ri (t, r, it1)];
    dts_svg_rect (out, "wait", TX (a0), y + 1, TX (a1) - TX (a0), LANE_H - 2, 0, WAIT_FILL,
                  NULL);
  }
  static const char *const pass_class[] = { "forward", "backward", "optimizer" };
  static const char *const pass_fill[] = { FORWARD_FILL, BACKWARD_FILL, UPDATE_FILL };
  for (guint i = 0; i < bars->len; i++) {
    const PsBar *b = &g_array_index (bars, PsBar, i);
    double y = ty0 + b->rank * row_h;
    double x0 = TX (b->t0_s), w = MAX (0.5, TX (b->t1_s) - x0);
    dts_svg_rect (out, pass_class[b->pass], x0, y + 1, w, LANE_H - 2, 0, pass_fill[b->pass],
                  "#ffffff");
    g_autofree char *il = g_strdup_printf ("it %d", b->iteration + 1);
    if (b->pass == 0 && dts_svg_text_width (il, 10) <= w - 4)
      dts_svg_text (out, x0 + w / 2, y + 14, 10, "middle", NULL, "#ffffff", il);
  }

  /* Shards: their updates in the window, with the gradients they applied
   * (ps_gradients and ps_updates are both in the order of application). */
  g_autofree guint *next_grad = g_new0 (guint, MAX (t->n_shards, 1));
  g_autofree double *label_end = g_new (double, MAX (t->n_shards, 1));
  for (int k = 0; k < t->n_shards; k++)
    label_end[k] = -G_MAXDOUBLE;
  for (int k = 0; k < n_shards; k++) {
    double y = shard_y0 + k * (LANE_H + 16 + ROW_GAP);
    g_autofree char *l = g_strdup_printf ("shard %d", k);
    dts_svg_text (out, tx0 - 10, y + 14, 13, "end", "bold", "#222222", l);
    dts_svg_line (out, tx0, y + LANE_H / 2, tx0 + TIMELINE_W, y + LANE_H / 2, "#dddddd", 1,
                  FALSE);
  }
  for (guint i = 0; i < t->ps_updates->len; i++) {
    const DtsTraceUpdate *u = &g_array_index (t->ps_updates, DtsTraceUpdate, i);
    if (u->shard < 0 || u->shard >= t->n_shards)
      continue;
    /* The gradients of this update: the next n_gradients of its shard. */
    gint64 stale_max = -1;
    int worker = -1;
    guint g = next_grad[u->shard];
    int taken = 0;
    for (; g < t->ps_gradients->len && taken < u->n_gradients; g++) {
      const DtsTraceGradient *gr = &g_array_index (t->ps_gradients, DtsTraceGradient, g);
      if (gr->shard != u->shard)
        continue;
      taken++;
      stale_max = MAX (stale_max, gr->staleness);
      worker = gr->worker;
      if (u->shard == 0 && n_shards > 0 && gr->worker < n_workers && gr->arrived_s >= w0
          && gr->applied_s <= w1) {
        double wy = ty0 + gr->worker * row_h + LANE_H - 1;
        dts_svg_line (out, TX (gr->arrived_s), wy, TX (gr->applied_s), shard_y0 + 1, "#7a7a7a",
                      1, TRUE);
      }
    }
    next_grad[u->shard] = g;
    if (u->shard >= n_shards || u->t_end_s < w0 || u->t_start_s > w1)
      continue;
    double y = shard_y0 + u->shard * (LANE_H + 16 + ROW_GAP);
    double x0 = TX (u->t_start_s), w = MAX (1.0, TX (u->t_end_s) - x0);
    dts_svg_rect (out, "update", x0, y + 1, w, LANE_H - 2, 0, UPDATE_FILL, "#ffffff");
    g_autofree char *ul =
        u->n_gradients == 1
            ? g_strdup_printf ("w%d s%" G_GINT64_FORMAT, worker, stale_max)
            : g_strdup_printf ("%d g s%" G_GINT64_FORMAT, u->n_gradients, stale_max);
    /* A label that would overlap the previous one on its row is left out. */
    double lw = dts_svg_text_width (ul, 9);
    if (x0 + w / 2 - lw / 2 > label_end[u->shard] + 2) {
      dts_svg_text (out, x0 + w / 2, y + LANE_H + 11, 9, "middle", NULL, "#333333", ul);
      label_end[u->shard] = x0 + w / 2 + lw / 2;
    }
  }

  /* Time axis in milliseconds from the window's start. */
  dts_svg_time_axis (out, tx0, TIMELINE_W, axis_y, (w1 - w0) * 1e3, "simulated time (ms)");

  gboolean sync = strcmp (s->ps_update, "all") == 0;
  const char *n1 =
      sync ? "Each worker computes, pushes its gradient to every shard and waits (grey) for "
             "weights; an update waits for one gradient of every worker."
           : "Each worker computes, pushes its gradient to every shard and waits (grey) for the "
             "weights of the update that applies it; no worker waits for another.";
  g_autofree char *n2 = g_strdup_printf (
      "Staleness: the updates a shard applied between a worker's pull and the update of its "
      "gradient; here mean %.2f, max %.0f (W-1 = %d for W identical workers, one update each).",
      s->staleness.mean, s->staleness.max, s->ps_workers - 1);
  g_autofree char *n3 = g_strdup_printf (
      "Effective mini-batch: the samples an update applies; here mean %.1f (batch %d per "
      "worker). Dashed: shard 0's gradients, from arrival to update.",
      s->minibatch.mean, s->batch_size_per_gpu);
  dts_svg_text (out, MARGIN, notes_y, 13, "start", NULL, "#222222", n1);
  dts_svg_text (out, MARGIN, notes_y + 18, 13, "start", NULL, "#222222", n2);
  dts_svg_text (out, MARGIN, notes_y + 36, 13, "start", NULL, "#222222", n3);
#undef TX
  g_string_append (out, "</svg>\n");
}
