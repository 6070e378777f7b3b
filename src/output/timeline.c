/* timeline.c - one iteration per GPU as a Gantt chart (timeline.h has the
 * layout and the choice of ranks).
 *
 * Both writers draw the same Chart: per rank shown, the bars of its compute
 * and communication lanes in recording order (which is chronological per
 * rank and lane), with the compute slices of one pass merged when they
 * touch. Backward's two phases (gradients of the data, of the weights)
 * alternate layer by layer and are drawn as one pass; forwards run again
 * before their backward (--recompute) are a pass of their own, in the
 * legend only when the iteration has some. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "output/format.h"
#include "output/svg.h"
#include "output/timeline.h"

enum { LANE_COMPUTE, LANE_COMM, N_LANES };
enum { PASS_FORWARD, PASS_BACKWARD, PASS_OPTIMIZER, PASS_RECOMPUTE, N_PASSES };

typedef struct {
  int lane;
  int kind;          /* compute: a PASS_; communication: the bucket */
  int layer;         /* compute: the last layer merged into the bar */
  double t0_s, t1_s;
} Bar;

typedef struct {
  int rank;
  double start_s, end_s; /* the rank's iteration */
  GArray *bars;          /* Bar */
} Row;

typedef struct {
  int iteration;
  double t0_s, t1_s;     /* the axis */
  GArray *rows;          /* Row, by rank */
} Chart;

static const struct {
  const char *name;
  const char *fill;
  char ascii;
} passes[N_PASSES] = {
  [PASS_FORWARD] = { "forward", "#3b75af", 'F' },
  [PASS_BACKWARD] = { "backward", "#e1812c", 'B' },
  [PASS_OPTIMIZER] = { "optimizer", "#3a923a", 'O' },
  [PASS_RECOMPUTE] = { "recompute", "#c9a227", 'R' },
};
#define COMM_FILL "#8c5fb5"
#define WAIT_FILL "#e4e4e4"

static int
pass_of_phase (int phase)
{
  /* trace.h: the schedule's phases forward, backward-data,
   * backward-weight, update, recompute. */
  return phase == 0   ? PASS_FORWARD
         : phase == 3 ? PASS_OPTIMIZER
         : phase == 4 ? PASS_RECOMPUTE
                      : PASS_BACKWARD;
}

static void
row_clear (gpointer p)
{
  Row *r = p;
  g_array_unref (r->bars);
}

static void
chart_clear (Chart *c)
{
  g_array_unref (c->rows);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Chart, chart_clear)

static void
add_rank (GArray *ranks, int r)
{
  for (guint i = 0; i < ranks->len; i++)
    if (g_array_index (ranks, int, i) == r)
      return;
  g_array_append_val (ranks, r);
}

static int
compare_int (gconstpointer a, gconstpointer b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return (x > y) - (x < y);
}

static void
chart_build (const DtsTrace *t, const DtsRunSummary *s, Chart *c)
{
  int n = t->n_ranks;
  c->iteration = t->n_iterations - 1;
  c->rows = g_array_new (FALSE, TRUE, sizeof (Row));
  g_array_set_clear_func (c->rows, row_clear);
  g_autoptr (GArray) ranks = g_array_new (FALSE, FALSE, sizeof (int));
  if (n <= DTS_TIMELINE_MAX_RANKS) {
    for (int r = 0; r < n; r++)
      add_rank (ranks, r);
  } else {
    int pick[] = { 0, 1, s->slowest_rank, s->fastest_rank, n - 2, n - 1 };
    for (gsize i = 0; i < G_N_ELEMENTS (pick); i++)
      add_rank (ranks, pick[i]);
    g_array_sort (ranks, compare_int);
  }
  g_autofree int *row_of = g_new (int, n > 0 ? (gsize) n : 1);
  for (int r = 0; r < n; r++)
    row_of[r] = -1;
  c->t0_s = G_MAXDOUBLE;
  c->t1_s = -G_MAXDOUBLE;
  for (guint i = 0; i < ranks->len; i++) {
    int r = g_array_index (ranks, int, i);
    gsize ri = dts_trace_ri (t, r, c->iteration);
    Row row = { .rank = r, .start_s = t->iter_start_s[ri], .end_s = t->iter_end_s[ri],
                .bars = g_array_new (FALSE, FALSE, sizeof (Bar)) };
    row_of[r] = (int) i;
    c->t0_s = MIN (c->t0_s, row.start_s);
    c->t1_s = MAX (c->t1_s, row.end_s);
    g_array_append_val (c->rows, row);
  }
  g_return_if_fail (t->slices != NULL);
  for (guint i = 0; i < t->slices->len; i++) {
    const DtsTraceSlice *sl = &g_array_index (t->slices, DtsTraceSlice, i);
    /* (tensor-parallel collectives: the Chrome trace's thread of their own) */
    if (sl->iteration != c->iteration || sl->rank < 0 || sl->rank >= n || row_of[sl->rank] < 0
        || sl->track == DTS_TRACK_PULL || sl->track == DTS_TRACK_TENSOR)
      continue;
    Row *row = &g_array_index (c->rows, Row, row_of[sl->rank]);
    Bar b = { .lane = sl->track == DTS_TRACK_COMPUTE ? LANE_COMPUTE : LANE_COMM,
              .kind = sl->track == DTS_TRACK_COMPUTE ? pass_of_phase (sl->phase) : sl->index,
              .layer = sl->index, .t0_s = sl->t_start_s, .t1_s = sl->t_end_s };
    c->t1_s = MAX (c->t1_s, b.t1_s);
    /* The last bar of the compute lane, to merge a touching slice of the
     * same pass into it. */
    Bar *last = NULL;
    for (guint k = row->bars->len; k-- > 0;) {
      Bar *p = &g_array_index (row->bars, Bar, k);
      if (p->lane == b.lane) {
        last = p;
        break;
      }
    }
    /* The same pass goes on while layers follow its order: forward up,
     * backward down (its two phases share a layer); a pipeline stage's next
     * micro-batch starts over, and a bar of its own. */
    gboolean goes_on = last != NULL && last->kind == b.kind && b.t0_s - last->t1_s <= 1e-12
                       && (b.kind == PASS_OPTIMIZER
                           || (b.kind == PASS_FORWARD || b.kind == PASS_RECOMPUTE
                                   ? b.layer > last->layer
                                   : b.layer <= last->layer));
    if (b.lane == LANE_COMPUTE && goes_on) {
      last->t1_s = MAX (last->t1_s, b.t1_s);
      last->layer = b.layer;
    } else
      g_array_append_val (row->bars, b);
  }
  if (!(c->t1_s > c->t0_s))
    c->t1_s = c->t0_s + 1e-6;
}

/* Whether some rank's compute lane has a bar of pass P. */
static gboolean
chart_has_pass (const Chart *c, int p)
{
  for (guint i = 0; i < c->rows->len; i++) {
    const Row *row = &g_array_index (c->rows, Row, i);
    for (guint k = 0; k < row->bars->len; k++) {
      const Bar *b = &g_array_index (row->bars, Bar, k);
      if (b->lane == LANE_COMPUTE && b->kind == p)
        return TRUE;
    }
  }
  return FALSE;
}

/* ---- SVG ---------------------------------------------------------------- */

#define MARGIN 24.0
#define TITLE_H 84.0
#define LEGEND_H 30.0
#define LABEL_W 150.0
#define LANE_H 18.0
#define ROW_GAP 12.0
#define TIMELINE_W 900.0

static void
legend_item (GString *o, double *x, double y, const char *fill, const char *label)
{
  dts_svg_rect (o, NULL, *x, y - 12, 16, 16, 2, fill, strcmp (fill, WAIT_FILL) == 0 ? "#bbbbbb" : NULL);
  dts_svg_text (o, *x + 22, y + 1, 13, "start", NULL, "#222222", label);
  *x += 22 + dts_svg_text_width (label, 13) + 24;
}

void
dts_timeline_write_svg (const DtsTrace *t, const DtsRunSummary *s, GString *out)
{
  if (s->ps_workers > 0) {
    dts_timeline_write_ps_svg (t, s, out);
    return;
  }
  g_auto (Chart) c = { 0 };
  chart_build (t, s, &c);
  double row_h = N_LANES * LANE_H + ROW_GAP;
  double tx0 = MARGIN + LABEL_W;
  double ty0 = TITLE_H + LEGEND_H + 12;
  double axis_y = ty0 + c.rows->len * row_h;
  double width = tx0 + TIMELINE_W + MARGIN + 16;
  double notes_y = axis_y + 64;
  double height = notes_y + 3 * 18 + MARGIN;
  double span_s = c.t1_s - c.t0_s;
  double scale = TIMELINE_W / span_s;
#define TX(v) (tx0 + ((v) - c.t0_s) * scale)
  DtsFormatBuf a, b, d;

  dts_svg_begin (out, width, height);
  g_autofree char *t1 = g_strdup_printf ("%s on %s: %d x %s, one iteration per GPU",
                                         s->workload, s->platform, s->n_gpus, s->gpu);
  dts_svg_text (out, MARGIN, 34, 20, "start", "bold", "#111111", t1);
  g_autofree char *t2 =
      s->n_stages > 0
          ? g_strdup_printf ("iteration %d of %d; %s: %d stages, %d micro-batches (%s); "
                             "iteration time %s ms",
                             c.iteration + 1, t->n_iterations, s->strategy, s->n_stages,
                             s->micro_batches, s->pipeline_schedule,
                             dts_format_fixed (&a, s->iteration_time_s, DTS_FORMAT_UNIT_MS, 3))
          : g_strdup_printf (
                "iteration %d of %d; batch %d per GPU; %s%s, overlap %s; iteration time %s ms",
                c.iteration + 1, t->n_iterations, s->batch_size_per_gpu, s->collective,
                s->ps_servers > 0 ? " (parameter servers)" : " all-reduce",
                s->overlap ? "on" : "off",
                dts_format_fixed (&a, s->iteration_time_s, DTS_FORMAT_UNIT_MS, 3));
  dts_svg_text (out, MARGIN, 58, 14, "start", NULL, "#333333", t2);
  g_autofree char *t3 =
      (int) c.rows->len < t->n_ranks
          ? g_strdup_printf ("%u of %d ranks: the first two, the slowest and the fastest "
                             "(by compute), the last two",
                             c.rows->len, t->n_ranks)
          : g_strdup_printf ("all %d ranks", t->n_ranks);
  dts_svg_text (out, MARGIN, 78, 13, "start", NULL, "#555555", t3);

  double lx = MARGIN;
  double ly = TITLE_H + LEGEND_H / 2 + 4;
  for (int p = 0; p < N_PASSES; p++)
    if (p != PASS_RECOMPUTE || chart_has_pass (&c, p))
      legend_item (out, &lx, ly, passes[p].fill, passes[p].name);
  legend_item (out, &lx, ly, COMM_FILL, s->ps_servers > 0 ? "bucket to the servers and back"
                                                           : "bucket all-reduce");
  legend_item (out, &lx, ly, WAIT_FILL, "compute stream waiting");

  g_string_append (out, "<!-- one row per rank: compute lane, then communication lane -->\n");
  for (guint i = 0; i < c.rows->len; i++) {
    const Row *row = &g_array_index (c.rows, Row, i);
    double y = ty0 + i * row_h;
    g_autofree char *l = g_strdup_printf ("rank %d", row->rank);
    const char *host = (guint) row->rank < t->rank_hosts->len
                           ? g_ptr_array_index (t->rank_hosts, row->rank) : "";
    dts_svg_text (out, tx0 - 10, y + 13, 13, "end", "bold", "#222222", l);
    dts_svg_text (out, tx0 - 10, y + 29, 11, "end", NULL, "#555555", host);
    /* The rank's iteration in grey: what no compute bar covers is waiting. */
    dts_svg_rect (out, "wait", TX (row->start_s), y + 1, TX (row->end_s) - TX (row->start_s),
                  LANE_H - 2, 0, WAIT_FILL, NULL);
    dts_svg_line (out, tx0, y + 2 * LANE_H + ROW_GAP / 2, tx0 + TIMELINE_W,
                  y + 2 * LANE_H + ROW_GAP / 2, "#dddddd", 1, FALSE);
    for (guint k = 0; k < row->bars->len; k++) {
      const Bar *bar = &g_array_index (row->bars, Bar, k);
      double x0 = TX (bar->t0_s), x1 = TX (bar->t1_s);
      double w = MAX (0.5, x1 - x0);
      double by = y + bar->lane * LANE_H + 1;
      if (bar->lane == LANE_COMPUTE) {
        /* White edges part a pipeline stage's micro-batches. */
        dts_svg_rect (out, passes[bar->kind].name, x0, by, w, LANE_H - 2, 0, passes[bar->kind].fill,
                      "#ffffff");
        continue;
      }
      dts_svg_rect (out, "allreduce", x0, by, w, LANE_H - 2, 2, COMM_FILL, "#ffffff");
      g_autofree char *bl = g_strdup_printf ("b%d", bar->kind);
      if (dts_svg_text_width (bl, 10) <= w - 4)
        dts_svg_text (out, x0 + w / 2, by + 12, 10, "middle", NULL, "#ffffff", bl);
    }
  }

  /* Time axis in milliseconds from the iteration's start. */
  dts_svg_time_axis (out, tx0, TIMELINE_W, axis_y, span_s * 1e3,
                     "simulated time since the iteration started (ms)");

  /* What to read in it, with the run's own figures. */
  g_autofree char *n1_dp = g_strdup_printf (
      "Per GPU and iteration: %s ms of communication, %s ms of it hidden behind backward "
      "(overlapped), %s ms exposed (grey gaps).",
      dts_format_fixed (&a, s->comm_s, DTS_FORMAT_UNIT_MS, 3),
      dts_format_fixed (&b, s->comm_overlapped_s, DTS_FORMAT_UNIT_MS, 3),
      dts_format_fixed (&d, s->comm_exposed_s, DTS_FORMAT_UNIT_MS, 3));
  const char *n1 = n1_dp;
  const char *n2 = s->overlap
                       ? "A bucket's all-reduce starts once backward has produced its gradients "
                         "and runs while backward goes on;"
                       : "Overlap is off: every all-reduce waits for the whole backward pass;";
  const char *n3 = "the optimizer starts only when the last bucket is reduced on that rank.";
  g_autofree char *straggler = NULL;
  g_autofree char *p1 = NULL, *p2 = NULL;
  if (s->n_stages > 0) {
    int S = s->n_stages, M = s->micro_batches;
    p1 = g_strdup_printf ("Pipeline: each stage's bars are its micro-batches; grey is waiting for "
                          "a neighbouring stage: bubble %.1f%% of the iteration, transfers %.1f%%.",
                          100 * s->bubble_fraction,
                          s->iteration_time_s > 0 ? 100 * s->p2p_exposed_s / s->iteration_time_s
                                                  : 0);
    p2 = g_strdup_printf ("With S = %d equal stage%s, M = %d micro-batch%s and no transfer "
                          "time the bubble would be (S-1)/(M+S-1) = %.1f%%;",
                          S, S == 1 ? "" : "s", M, M == 1 ? "" : "es",
                          100.0 * (S - 1) / (M + S - 1));
    n1 = p1;
    n2 = p2;
    n3 = "more micro-batches shrink it, unequal stages make the others wait for the slowest.";
  }
  if (s->bottleneck == DTS_BOTTLENECK_STRAGGLER && s->ranks->len > 0) {
    const DtsRankStat *slow = &g_array_index (s->ranks, DtsRankStat, s->slowest_rank);
    straggler = g_strdup_printf (
        "Rank %d (%s) computes %.2fx as long as the median rank: the others wait for it in "
        "their all-reduces (long bars, grey gaps);",
        slow->rank, slow->host,
        s->median_compute_s > 0 ? slow->compute_s / s->median_compute_s : 0);
    n2 = straggler;
    n3 = "a faster network would not shorten this iteration, a faster GPU for that rank would.";
  }
  dts_svg_text (out, MARGIN, notes_y, 13, "start", NULL, "#222222", n1);
  dts_svg_text (out, MARGIN, notes_y + 18, 13, "start", NULL, "#222222", n2);
  dts_svg_text (out, MARGIN, notes_y + 36, 13, "start", NULL, "#222222", n3);
#undef TX
  g_string_append (out, "</svg>\n");
}

/* ---- ASCII -------------------------------------------------------------- */

/* What covers most of column K's span of LANE, or 0 when nothing does. */
static char
column_char (const Row *row, int lane, double c0, double c1)
{
  double cover[N_PASSES + 10] = { 0 };
  for (guint k = 0; k < row->bars->len; k++) {
    const Bar *b = &g_array_index (row->bars, Bar, k);
    if (b->lane != lane)
      continue;
    double o = MIN (b->t1_s, c1) - MAX (b->t0_s, c0);
    if (o > 0)
      cover[lane == LANE_COMPUTE ? b->kind : N_PASSES + b->kind % 10] += o;
  }
  int best = -1;
  for (int k = 0; k < (int) G_N_ELEMENTS (cover); k++)
    if (cover[k] > 0 && (best < 0 || cover[k] > cover[best]))
      best = k;
  if (best < 0)
    return 0;
  return best < N_PASSES ? passes[best].ascii : (char) ('0' + best - N_PASSES);
}

void
dts_timeline_write_ascii (const DtsTrace *t, const DtsRunSummary *s, int width, GString *out)
{
  g_return_if_fail (width >= 10);
  g_auto (Chart) c = { 0 };
  chart_build (t, s, &c);
  double col_s = (c.t1_s - c.t0_s) / width;
  DtsFormatBuf a, b;
  g_string_append_printf (out, "timeline of iteration %d of %d (%s ms per column", c.iteration + 1,
                          t->n_iterations, dts_format_fixed (&a, col_s, DTS_FORMAT_UNIT_MS, 3));
  if ((int) c.rows->len < t->n_ranks)
    g_string_append_printf (out, "; %u of %d ranks: first two, slowest, fastest, last two",
                            c.rows->len, t->n_ranks);
  g_string_append (out, "):\n");
  for (guint i = 0; i < c.rows->len; i++) {
    const Row *row = &g_array_index (c.rows, Row, i);
    for (int lane = 0; lane < N_LANES; lane++) {
      if (lane == LANE_COMPUTE)
        g_string_append_printf (out, "  rank %-4d compute |", row->rank);
      else
        g_string_append_printf (out, "  %-9s comm    |", "");
      g_autofree char *line = g_new0 (char, width + 1);
      for (int k = 0; k < width; k++) {
        double c0 = c.t0_s + k * col_s, c1 = c0 + col_s;
        line[k] = column_char (row, lane, c0, c1);
      }
      /* A bar shorter than a column that no column shows (an optimizer
       * step, a small bucket) takes the column of its middle when that is
       * free or its owner also shows in a neighbouring column. */
      for (guint j = 0; j < row->bars->len; j++) {
        const Bar *bar = &g_array_index (row->bars, Bar, j);
        if (bar->lane != lane)
          continue;
        char want = lane == LANE_COMPUTE ? passes[bar->kind].ascii : (char) ('0' + bar->kind % 10);
        int k0 = CLAMP ((int) floor ((bar->t0_s - c.t0_s) / col_s), 0, width - 1);
        int k1 = CLAMP ((int) floor ((bar->t1_s - c.t0_s) / col_s), 0, width - 1);
        gboolean seen = FALSE;
        for (int k = k0; k <= k1; k++)
          seen = seen || line[k] == want;
        int mid = CLAMP ((int) floor (((bar->t0_s + bar->t1_s) / 2 - c.t0_s) / col_s), 0,
                         width - 1);
        char had = line[mid];
        if (!seen
            && (had == 0 || (mid > 0 && line[mid - 1] == had)
                || (mid + 1 < width && line[mid + 1] == had)))
          line[mid] = want;
      }
      for (int k = 0; k < width; k++) {
        double c0 = c.t0_s + k * col_s, c1 = c0 + col_s;
        /* Inside the rank's iteration, an empty compute column is waiting. */
        if (line[k] == 0)
          line[k] = lane == LANE_COMPUTE && c1 > row->start_s && c0 < row->end_s ? '.' : ' ';
      }
      g_string_append_printf (out, "%s|\n", line);
    }
  }
  g_autofree char *end = g_strdup_printf ("%s ms",
                                          dts_format_fixed (&b, c.t1_s - c.t0_s, DTS_FORMAT_UNIT_MS, 3));
  g_string_append_printf (out, "  %-17s  0 ms%*s\n", "", MAX (1, width - 4), end);
  g_string_append_printf (out, "  F forward, B backward, O optimizer, %s. waiting; digits: the "
                                "bucket (mod 10) being ",
                          chart_has_pass (&c, PASS_RECOMPUTE) ? "R recompute, " : "");
  g_string_append (out, s->ps_servers > 0 ? "exchanged with the servers\n" : "all-reduced\n");
}
