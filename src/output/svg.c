/* svg.c - a ring all-reduce in one picture, and any collective's steps as
 * arrows between rank rows (svg.h has the layouts).
 *
 * Geometry is in SVG user units (pixels at 100%). Coordinates are written
 * with one decimal and times with three, through printf in the C numeric
 * locale that main sets, so the same run gives the same bytes. Widths of
 * text are estimated from the character count (about 0.62 em per character
 * in a sans-serif face) to decide whether a box label fits: a label that
 * does not fit is shortened to the chunk ("c2") or left out, never drawn
 * over its neighbours. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "output/svg.h"

#define MARGIN 24.0
#define TITLE_H 96.0
#define LEFT_W 360.0
#define ROW_LABEL_W 64.0
#define ROW_H 30.0
#define BOX_INSET 3.0
#define STEP_MIN_W 80.0   /* per step column: room for "c10 -> r15" at 11 px */
#define TIMELINE_MIN_W 600.0
#define HEAD_H 56.0       /* phase bands and step numbers above the rows */
#define NODE_W 44.0
#define NODE_H 24.0
#define CELL_W 34.0
#define CELL_H 20.0
#define CHAR_EM 0.62

typedef struct {
  const char *name;
  const char *fill;       /* step boxes */
  const char *band;       /* phase band behind the step numbers */
  const char *what;       /* what a step of the phase does */
} PhaseStyle;

static const PhaseStyle phases[] = {
  { "reduce-scatter", "#3b75af", "#dbe7f3", "receive a chunk, add it to yours" },
  { "all-gather", "#e1812c", "#fbe3cc", "receive a reduced chunk, copy it" },
};

static double
text_w (const char *s, double font_px)
{
  return (double) g_utf8_strlen (s, -1) * CHAR_EM * font_px;
}

static void
svg_text (GString *o, double x, double y, double font_px, const char *anchor, const char *weight,
          const char *fill, const char *text)
{
  g_autofree char *esc = g_markup_escape_text (text, -1);
  g_string_append_printf (o,
                          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" text-anchor=\"%s\"%s%s%s "
                          "fill=\"%s\">%s</text>\n",
                          x, y, font_px, anchor, weight ? " font-weight=\"" : "",
                          weight ? weight : "", weight ? "\"" : "", fill, esc);
}

static void
svg_line (GString *o, double x1, double y1, double x2, double y2, const char *stroke,
          double width, gboolean dashed)
{
  g_string_append_printf (o,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                          "stroke-width=\"%.1f\"%s/>\n",
                          x1, y1, x2, y2, stroke, width,
                          dashed ? " stroke-dasharray=\"5 4\"" : "");
}

static void
svg_rect_w (GString *o, const char *klass, double x, double y, double w, double h, double rx,
            const char *fill, const char *stroke, double stroke_w)
{
  g_string_append_printf (o, "<rect%s%s%s x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"",
                          klass ? " class=\"" : "", klass ? klass : "", klass ? "\"" : "", x, y,
                          w, h);
  if (rx > 0)
    g_string_append_printf (o, " rx=\"%.1f\"", rx);
  g_string_append_printf (o, " fill=\"%s\"", fill);
  if (stroke)
    g_string_append_printf (o, " stroke=\"%s\" stroke-width=\"%.1f\"", stroke, stroke_w);
  g_string_append (o, "/>\n");
}

static void
svg_rect (GString *o, const char *klass, double x, double y, double w, double h, double rx,
          const char *fill, const char *stroke)
{
  svg_rect_w (o, klass, x, y, w, h, rx, fill, stroke, 1);
}

/* "16000000 bytes (16.0 MB)": exact bytes for the reader who checks the
 * closed form, a decimal unit for the eye. */
static char *
format_bytes (double bytes)
{
  static const struct { double unit; const char *name; } units[] = {
    { 1e12, "TB" }, { 1e9, "GB" }, { 1e6, "MB" }, { 1e3, "kB" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (units); i++)
    if (bytes >= units[i].unit)
      return g_strdup_printf ("%.0f bytes (%.1f %s)", bytes, bytes / units[i].unit,
                              units[i].name);
  return g_strdup_printf ("%.0f bytes", bytes);
}

/* Axis ticks at 1, 2 or 5 x 10^k microseconds, about eight over the span. */
static double
tick_step_us (double span_us, int *decimals)
{
  double raw = span_us / 8;
  if (!(raw > 0)) {
    *decimals = 0;
    return 1;
  }
  double mag = pow (10, floor (log10 (raw)));
  double norm = raw / mag;
  double step = (norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10) * mag;
  *decimals = step >= 1 ? 0 : (int) ceil (-log10 (step) - 1e-9);
  return step;
}

/* A filled triangle with its tip at (x, y) pointing along (dx, dy). */
static void
arrow_head (GString *o, double x, double y, double dx, double dy, const char *fill)
{
  double n = hypot (dx, dy);
  dx /= n;
  dy /= n;
  double bx = x - 10 * dx, by = y - 10 * dy;
  g_string_append_printf (o,
                          "<path d=\"M %.1f %.1f L %.1f %.1f L %.1f %.1f Z\" fill=\"%s\"/>\n", x,
                          y, bx - 5 * dy, by + 5 * dx, bx + 5 * dy, by - 5 * dx, fill);
}

/* The ring on a circle, rank 0 at the top and successors clockwise, then a
 * caption; returns the lowest y drawn. */
static double
draw_ring (const DtsSvgRing *ring, const int *order, GString *o)
{
  int n = ring->run.n_ranks;
  double r = n <= 8 ? 120 : 150;
  double cx = MARGIN + LEFT_W / 2, cy = TITLE_H + 24 + r + NODE_H;
  /* Leave the arc where it would run under a node box. */
  double gap = asin (MIN (1.0, (NODE_W / 2 + 8) / r));
  if (2 * gap > 2 * G_PI / n * 0.8)
    gap = 2 * G_PI / n * 0.4;
  g_string_append (o, "<!-- the ring: each rank sends to its successor -->\n");
  for (int k = 0; k < n; k++) {
    double a0 = -G_PI / 2 + 2 * G_PI * k / n + gap;
    double a1 = -G_PI / 2 + 2 * G_PI * (k + 1) / n - gap;
    double x0 = cx + r * cos (a0), y0 = cy + r * sin (a0);
    double x1 = cx + r * cos (a1), y1 = cy + r * sin (a1);
    g_string_append_printf (o,
                            "<path d=\"M %.1f %.1f A %.1f %.1f 0 %d 1 %.1f %.1f\" fill=\"none\" "
                            "stroke=\"#555555\" stroke-width=\"2.0\"/>\n",
                            x0, y0, r, r, a1 - a0 > G_PI ? 1 : 0, x1, y1);
    /* Clockwise tangent at the arc's end. */
    arrow_head (o, x1, y1, -sin (a1), cos (a1), "#555555");
  }
  for (int k = 0; k < n; k++) {
    double a = -G_PI / 2 + 2 * G_PI * k / n;
    double x = cx + r * cos (a), y = cy + r * sin (a);
    g_autofree char *label = g_strdup_printf ("r%d", order[k]);
    svg_rect (o, "rank", x - NODE_W / 2, y - NODE_H / 2, NODE_W, NODE_H, 6, "#ffffff",
              "#333333");
    svg_text (o, x, y + 4.5, 13, "middle", "bold", "#222222", label);
  }
  svg_text (o, cx, cy - 8, 13, "middle", NULL, "#444444", "ring of N ranks");
  g_autofree char *chunk = format_bytes (ring->run.bytes / n);
  g_autofree char *c1 = g_strdup_printf ("S is cut into N = %d chunks", n);
  svg_text (o, cx, cy + 10, 13, "middle", NULL, "#444444", c1);
  double y = cy + r + NODE_H + 24;
  const char *caption[] = {
    "Every step, each rank sends one chunk to its",
    "successor and receives one from its predecessor.",
    "2(N-1) steps: N-1 of reduce-scatter, then N-1",
    "of all-gather. Each rank sends 2(N-1)/N x S in all:",
    "nearly 2S, however many ranks share the work.",
  };
  for (gsize i = 0; i < G_N_ELEMENTS (caption); i++, y += 18)
    svg_text (o, MARGIN + 8, y, 13, "start", NULL, "#222222", caption[i]);
  g_autofree char *cs = g_strdup_printf ("One chunk = S/N = %s.", chunk);
  svg_text (o, MARGIN + 8, y, 13, "start", NULL, "#222222", cs);
  y += 28;
  for (gsize p = 0; p < G_N_ELEMENTS (phases); p++, y += 22) {
    svg_rect (o, NULL, MARGIN + 8, y - 12, 16, 16, 2, phases[p].fill, NULL);
    g_autofree char *l = g_strdup_printf ("%s: %s", phases[p].name, phases[p].what);
    svg_text (o, MARGIN + 32, y + 1, 13, "start", NULL, "#222222", l);
  }
  svg_rect_w (o, NULL, MARGIN + 8, y - 12, 16, 16, 2, "#ffffff", "#111111", 2.5);
  svg_text (o, MARGIN + 32, y + 1, 13, "start", NULL, "#222222",
            "outlined: chunk c0 going round the ring");
  return y;
}

void
dts_svg_write_ring_allreduce (const DtsSvgRing *ring, GString *out)
{
  g_return_if_fail (ring != NULL && ring->run.n_ranks >= 2 && out != NULL);
  int n = ring->run.n_ranks;
  int n_cols = 2 * (n - 1);

  /* Ring order from rank 0 along send_to; a rank's successor is the same at
   * every step. */
  g_autofree int *succ = g_new (int, n);
  for (int k = 0; k < n; k++)
    succ[k] = (k + 1) % n;
  for (int i = 0; i < ring->n_steps; i++) {
    const DtsSvgRingStep *s = &ring->steps[i];
    g_return_if_fail (s->rank >= 0 && s->rank < n && s->step >= 0 && s->step < n_cols);
    if (s->step == 0 && s->send_to >= 0 && s->send_to < n)
      succ[s->rank] = s->send_to;
  }
  g_autofree int *order = g_new (int, n);
  order[0] = 0;
  for (int k = 1; k < n; k++)
    order[k] = succ[order[k - 1]];

  /* Time span and, per step, the earliest start and latest end over ranks. */
  double t_end = ring->run.t_origin_s;
  g_autofree double *col_start = g_new (double, n_cols);
  g_autofree double *col_end = g_new (double, n_cols);
  for (int c = 0; c < n_cols; c++) {
    col_start[c] = G_MAXDOUBLE;
    col_end[c] = -G_MAXDOUBLE;
  }
  double rs_end = ring->run.t_origin_s;
  for (int i = 0; i < ring->n_steps; i++) {
    const DtsSvgRingStep *s = &ring->steps[i];
    t_end = MAX (t_end, s->t_end_s);
    col_start[s->step] = MIN (col_start[s->step], s->t_start_s);
    col_end[s->step] = MAX (col_end[s->step], s->t_end_s);
    if (s->phase == 0)
      rs_end = MAX (rs_end, s->t_end_s);
  }
  double span_s = t_end - ring->run.t_origin_s;
  if (!(span_s > 0))
    span_s = 1e-6;

  double tw = MAX (TIMELINE_MIN_W, n_cols * STEP_MIN_W);
  double tx0 = MARGIN + LEFT_W + MARGIN + ROW_LABEL_W;
  double ty0 = TITLE_H + 24 + HEAD_H;
  double width = tx0 + tw + MARGIN + 16;
  double axis_y = ty0 + n * ROW_H + 6;
  double table_y = axis_y + 76;
  double right_bottom = table_y + 2 * CELL_H + 12;
  double scale = tw / span_s;
#define TX(t) (tx0 + ((t) - ring->run.t_origin_s) * scale)

  g_autoptr (GString) body = g_string_new (NULL);
  double left_bottom = draw_ring (ring, order, body);
  double height = MAX (left_bottom, right_bottom) + MARGIN;

  /* Title. */
  g_autofree char *size = format_bytes (ring->run.bytes);
  g_autofree char *t1 = g_strdup_printf ("Ring all-reduce of %s over N = %d GPUs", size, n);
  g_autoptr (GString) hdr = g_string_new (NULL);
  dts_svg_begin (hdr, width, height);
  svg_text (hdr, MARGIN, 34, 20, "start", "bold", "#111111", t1);
  g_autofree char *t2 = g_strdup_printf (
      "%s%s%s%s, %d channel%s; ring bottleneck B = %.3f GB/s, hop latency L = %.3f us",
      ring->run.platform ? "platform " : "", ring->run.platform ? ring->run.platform : "",
      ring->run.gpu ? ", " : "", ring->run.gpu ? ring->run.gpu : "", ring->run.channels,
      ring->run.channels == 1 ? "" : "s", ring->run.bottleneck_Bps / 1e9, ring->run.hop_latency_s * 1e6);
  svg_text (hdr, MARGIN, 58, 14, "start", NULL, "#333333", t2);
  g_autofree char *t3 = g_strdup_printf (
      "closed form 2(N-1)/N x S/B + 2(N-1) x L = %.3f us; simulated %.3f us (x %.4f)",
      ring->run.closed_form_s * 1e6, ring->run.time_s * 1e6,
      ring->run.closed_form_s > 0 ? ring->run.time_s / ring->run.closed_form_s : 0);
  svg_text (hdr, MARGIN, 80, 14, "start", NULL, "#333333", t3);
  g_string_prepend (body, hdr->str);

  /* Phase bands and step numbers over the columns. */
  GString *o = body;
  g_string_append (o, "<!-- the timeline: one row per rank, one box per step -->\n");
  for (gsize p = 0; p < G_N_ELEMENTS (phases); p++) {
    int c0 = p == 0 ? 0 : n - 1, c1 = p == 0 ? n - 2 : n_cols - 1;
    if (col_start[c0] > col_end[c1])
      continue;
    double x0 = TX (col_start[c0]), x1 = TX (col_end[c1]);
    svg_rect (o, "phase", x0, ty0 - HEAD_H, x1 - x0, 22, 3, phases[p].band, NULL);
    g_autofree char *l =
        g_strdup_printf ("%s (N-1 = %d step%s)", phases[p].name, n - 1, n == 2 ? "" : "s");
    if (text_w (l, 12) > x1 - x0 - 8)
      g_snprintf (l, strlen (l) + 1, "%s", phases[p].name);
    svg_text (o, (x0 + x1) / 2, ty0 - HEAD_H + 15, 12, "middle", "bold", "#222222", l);
  }
  for (int c = 0; c < n_cols; c++) {
    if (col_start[c] > col_end[c])
      continue;
    g_autofree char *l = g_strdup_printf ("step %d", c);
    double w = TX (col_end[c]) - TX (col_start[c]);
    if (text_w (l, 11) > w - 2)
      g_snprintf (l, strlen (l) + 1, "%d", c);
    svg_text (o, (TX (col_start[c]) + TX (col_end[c])) / 2, ty0 - 12, 11, "middle", NULL,
              "#444444", l);
  }

  /* Rows: rank labels, guide lines, then the step boxes. */
  for (int k = 0; k < n; k++) {
    double y = ty0 + k * ROW_H;
    g_autofree char *l = g_strdup_printf ("rank %d", k);
    if (k % 2 == 1)
      svg_rect (o, NULL, tx0, y, tw, ROW_H, 0, "#f4f4f4", NULL);
    svg_text (o, tx0 - 8, y + ROW_H / 2 + 4.5, 13, "end", NULL, "#222222", l);
  }
  /* End of reduce-scatter, under the boxes of ranks that finish it early. */
  if (rs_end > ring->run.t_origin_s) {
    double x = TX (rs_end);
    svg_line (o, x, ty0 - HEAD_H + 24, x, axis_y, "#222222", 1.5, TRUE);
  }
  for (int i = 0; i < ring->n_steps; i++) {
    const DtsSvgRingStep *s = &ring->steps[i];
    double x0 = TX (s->t_start_s), x1 = TX (s->t_end_s);
    double y = ty0 + s->rank * ROW_H + BOX_INSET;
    double w = MAX (1.0, x1 - x0 - 2);
    const PhaseStyle *ps = &phases[s->phase ? 1 : 0];
    /* Chunk c0's boxes outlined: its way round the ring, summed then copied. */
    if (s->send_chunk == 0)
      svg_rect_w (o, "step", x0 + 1, y, w, ROW_H - 2 * BOX_INSET, 3, ps->fill, "#111111", 2.5);
    else
      svg_rect (o, "step", x0 + 1, y, w, ROW_H - 2 * BOX_INSET, 3, ps->fill, NULL);
    g_autofree char *l = g_strdup_printf ("c%d -> r%d", s->send_chunk, s->send_to);
    if (text_w (l, 11) > w - 4)
      g_snprintf (l, strlen (l) + 1, "c%d", s->send_chunk);
    if (text_w (l, 11) <= w - 4)
      svg_text (o, x0 + 1 + w / 2, y + (ROW_H - 2 * BOX_INSET) / 2 + 4, 11, "middle", NULL,
                "#ffffff", l);
  }


  /* Time axis in microseconds. */
  dts_svg_time_axis (o, tx0, tw, axis_y, span_s * 1e6,
                     "simulated time since all ranks entered (us)");

  /* Which chunk each rank holds fully reduced once reduce-scatter ends. */
  if (ring->reduced_chunk) {
    svg_text (o, tx0 - ROW_LABEL_W, table_y - 8, 13, "start", "bold", "#222222",
              "After reduce-scatter (dashed line), each rank holds one chunk fully reduced:");
    const char *heads[] = { "rank", "chunk" };
    for (int row = 0; row < 2; row++) {
      double y = table_y + row * CELL_H;
      svg_text (o, tx0 - 8, y + 14, 12, "end", NULL, "#222222", heads[row]);
      for (int k = 0; k < n; k++) {
        double x = tx0 + k * CELL_W;
        svg_rect (o, NULL, x, y, CELL_W, CELL_H, 0, row ? phases[0].band : "#ffffff",
                  "#888888");
        g_autofree char *l = row ? g_strdup_printf ("c%d", ring->reduced_chunk[k])
                                 : g_strdup_printf ("r%d", k);
        svg_text (o, x + CELL_W / 2, y + 14, 12, "middle", NULL, "#222222", l);
      }
    }
  }
#undef TX
  g_string_append (o, "</svg>\n");
  g_string_append_len (out, o->str, o->len);
}

/* The generic picture (svg.h, DtsSvgSteps). */
#define GRID_LABEL_W 96.0
#define COL_MIN_W 44.0
#define COL_MAX_W 120.0
#define GRID_MIN_W 720.0

static const char *const bands[] = { "#dbe7f3", "#fbe3cc", "#dcefdc", "#eadff2" };

void
dts_svg_write_steps (const DtsSvgSteps *st, GString *out)
{
  g_return_if_fail (st != NULL && st->run.n_ranks >= 2 && st->n_columns >= 1 && out != NULL);
  int n = st->run.n_ranks, nc = st->n_columns;
  double cw = MIN (COL_MAX_W, MAX (COL_MIN_W, GRID_MIN_W / nc));
  double gx0 = MARGIN + GRID_LABEL_W;
  double gw = nc * cw;
  double width = MAX (gx0 + gw + MARGIN, 860);
  /* The description, wrapped at word boundaries to the picture's width. */
  g_autoptr (GPtrArray) desc = g_ptr_array_new_with_free_func (g_free);
  if (st->description) {
    g_auto (GStrv) words = g_strsplit (st->description, " ", -1);
    g_autoptr (GString) line = g_string_new (NULL);
    for (char **w = words; *w; w++) {
      g_autofree char *next = g_strdup_printf ("%s%s%s", line->str, line->len ? " " : "", *w);
      if (line->len && text_w (next, 12) > width - 2 * MARGIN) {
        g_ptr_array_add (desc, g_strdup (line->str));
        g_string_assign (line, *w);
      } else {
        g_string_assign (line, next);
      }
    }
    if (line->len)
      g_ptr_array_add (desc, g_strdup (line->str));
  }
  double gy0 = TITLE_H + 24 + 46 + 16 * MAX ((int) desc->len - 1, 0);
  double axis_y = gy0 + n * ROW_H + 8;
  double legend_y = axis_y + 62;
  double height = legend_y + 4 * 20 + MARGIN;
  g_autoptr (GString) o = g_string_new (NULL);
  dts_svg_begin (o, width, height);

  /* Title. */
  g_autofree char *size = format_bytes (st->run.bytes);
  g_autofree char *t1 = g_strdup_printf ("%s %s of %s over N = %d GPUs", st->algorithm, st->op,
                                         size, n);
  if (st->root >= 0) {
    g_autofree char *t = g_strdup_printf ("%s, root r%d", t1, st->root);
    g_free (t1);
    t1 = g_steal_pointer (&t);
  }
  svg_text (o, MARGIN, 34, 20, "start", "bold", "#111111", t1);
  g_autofree char *t2 = g_strdup_printf (
      "%s%s%s%s, %d channel%s; routes' bottleneck B = %.3f GB/s, hop latency L = %.3f us",
      st->run.platform ? "platform " : "", st->run.platform ? st->run.platform : "", st->run.gpu ? ", " : "",
      st->run.gpu ? st->run.gpu : "", st->run.channels, st->run.channels == 1 ? "" : "s",
      st->run.bottleneck_Bps / 1e9, st->run.hop_latency_s * 1e6);
  svg_text (o, MARGIN, 58, 14, "start", NULL, "#333333", t2);
  g_autofree char *t3 = g_strdup_printf (
      "closed form %.3f us; simulated %.3f us (x %.4f)", st->run.closed_form_s * 1e6,
      st->run.time_s * 1e6, st->run.closed_form_s > 0 ? st->run.time_s / st->run.closed_form_s : 0);
  svg_text (o, MARGIN, 80, 14, "start", NULL, "#333333", t3);
  for (guint i = 0; i < desc->len; i++)
    svg_text (o, MARGIN, 104 + 16 * i, 12, "start", NULL, "#444444",
              g_ptr_array_index (desc, i));

  /* Phase bands: runs of columns with the same phase. */
  g_string_append (o, "<!-- the steps: one row per rank, one column per step -->\n");
  int band = 0;
  for (int c0 = 0; c0 < nc;) {
    int c1 = c0;
    while (c1 + 1 < nc && g_strcmp0 (st->col_phase[c1 + 1], st->col_phase[c0]) == 0)
      c1++;
    double x0 = gx0 + c0 * cw, x1 = gx0 + (c1 + 1) * cw;
    svg_rect (o, "phase", x0 + 1, gy0 - 46, x1 - x0 - 2, 20, 3,
              bands[band++ % G_N_ELEMENTS (bands)], NULL);
    const char *name = st->col_phase[c0] ? st->col_phase[c0] : "";
    const char *dash = strchr (name, '-');
    if (text_w (name, 11) <= x1 - x0 - 6) {
      svg_text (o, (x0 + x1) / 2, gy0 - 32, 11, "middle", "bold", "#222222", name);
    } else if (dash != NULL && text_w (dash + 1, 9) <= x1 - x0 - 4) {
      /* "rail-reduce-scatter" over one column: on two lines. */
      g_autofree char *head = g_strndup (name, dash - name + 1);
      svg_text (o, (x0 + x1) / 2, gy0 - 37, 9, "middle", "bold", "#222222", head);
      svg_text (o, (x0 + x1) / 2, gy0 - 28, 9, "middle", "bold", "#222222", dash + 1);
    }
    c0 = c1 + 1;
  }
  for (int c = 0; c < nc; c++) {
    g_autofree char *l = g_strdup_printf ("step %d", c);
    if (text_w (l, 11) > cw - 4)
      g_snprintf (l, strlen (l) + 1, "%d", c);
    svg_text (o, gx0 + (c + 0.5) * cw, gy0 - 10, 11, "middle", NULL, "#444444", l);
  }
  /* Rows and column guides. */
  for (int k = 0; k < n; k++) {
    double y = gy0 + k * ROW_H;
    if (k % 2 == 1)
      svg_rect (o, NULL, gx0, y, gw, ROW_H, 0, "#f4f4f4", NULL);
    g_autofree char *l = k == st->root ? g_strdup_printf ("rank %d (root)", k)
                                       : g_strdup_printf ("rank %d", k);
    svg_text (o, gx0 - 8, y + ROW_H / 2 + 4.5, 13, "end", NULL, "#222222", l);
  }
  for (int c = 0; c <= nc; c++)
    svg_line (o, gx0 + c * cw, gy0, gx0 + c * cw, gy0 + n * ROW_H, "#cccccc", 1, FALSE);

  /* Arrows: from the sender's row on the column's left to the receiver's
   * on its right. */
  for (int i = 0; i < st->n_arrows; i++) {
    const DtsSvgArrow *a = &st->arrows[i];
    g_return_if_fail (a->from >= 0 && a->from < n && a->to >= 0 && a->to < n && a->column >= 0
                      && a->column < nc);
    double x0 = gx0 + a->column * cw + 0.18 * cw, x1 = gx0 + a->column * cw + 0.82 * cw;
    double y0 = gy0 + (a->from + 0.5) * ROW_H, y1 = gy0 + (a->to + 0.5) * ROW_H;
    const char *col = a->reduce ? phases[0].fill : phases[1].fill;
    g_autofree char *at = a->offset >= 0 ? g_strdup_printf (" at offset %.0f", a->offset)
                                         : g_strdup ("");
    g_string_append_printf (o,
                            "<path class=\"xfer\" d=\"M %.1f %.1f L %.1f %.1f\" stroke=\"%s\" "
                            "stroke-width=\"1.6\" fill=\"none\"><title>step %d: r%d -&gt; r%d, "
                            "%.0f bytes%s x %d channel%s, %s</title></path>\n",
                            x0, y0, x1, y1, col, a->column, a->from, a->to, a->bytes, at,
                            a->channels, a->channels == 1 ? "" : "s",
                            a->reduce ? "added" : "copied");
    arrow_head (o, x1, y1, x1 - x0, y1 - y0, col);
  }

  /* Under each column, when its last rank ends it. */
  svg_line (o, gx0, axis_y, gx0 + gw, axis_y, "#222222", 1, FALSE);
  int dec = 1;
  for (int c = 0; c < nc; c++) {
    g_autofree char *l = g_strdup_printf ("%.*f", dec, (st->col_end_s[c] - st->run.t_origin_s) * 1e6);
    /* Staggered on two lines when the numbers are wider than a column. */
    double y = axis_y + 16 + (text_w (l, 10) > cw - 4 && c % 2 == 1 ? 13 : 0);
    svg_line (o, gx0 + (c + 1) * cw, axis_y, gx0 + (c + 1) * cw, axis_y + 4, "#222222", 1,
              FALSE);
    svg_text (o, gx0 + (c + 0.5) * cw, y, 10, "middle", NULL, "#333333", l);
  }
  svg_text (o, gx0 + gw / 2, axis_y + 46, 12, "middle", NULL, "#333333",
            "simulated end of each step (us since all ranks entered; its slowest rank)");

  /* Legend. */
  double y = legend_y;
  const char *what[] = { "received and added (reduce)", "received and copied" };
  for (int k = 0; k < 2; k++, y += 20) {
    const char *col = phases[k].fill;
    svg_line (o, MARGIN + 8, y, MARGIN + 40, y, col, 1.6, FALSE);
    arrow_head (o, MARGIN + 40, y, 1, 0, col);
    svg_text (o, MARGIN + 50, y + 4, 12, "start", NULL, "#222222", what[k]);
  }
  svg_text (o, MARGIN + 8, y + 4, 12, "start", NULL, "#222222",
            "One arrow per transfer, from sender to receiver; columns are the steps that run "
            "at once,");
  svg_text (o, MARGIN + 8, y + 22, 12, "start", NULL, "#222222",
            "drawn one width whatever they last (times on the axis; --steps lists bytes and "
            "offsets).");
  g_string_append (o, "</svg>\n");
  g_string_append_len (out, o->str, o->len);
}

void
dts_svg_text (GString *o, double x, double y, double font_px, const char *anchor,
              const char *weight, const char *fill, const char *text)
{
  svg_text (o, x, y, font_px, anchor, weight, fill, text);
}

void
dts_svg_line (GString *o, double x1, double y1, double x2, double y2, const char *stroke,
              double width, gboolean dashed)
{
  svg_line (o, x1, y1, x2, y2, stroke, width, dashed);
}

void
dts_svg_rect (GString *o, const char *klass, double x, double y, double w, double h, double rx,
              const char *fill, const char *stroke)
{
  svg_rect (o, klass, x, y, w, h, rx, fill, stroke);
}

double
dts_svg_text_width (const char *text, double font_px)
{
  return text_w (text, font_px);
}

void
dts_svg_time_axis (GString *o, double x0, double width, double y, double span,
                   const char *label)
{
  svg_line (o, x0, y, x0 + width, y, "#222222", 1, FALSE);
  int dec;
  double step = tick_step_us (span, &dec);
  for (int k = 0;; k++) {
    double v = k * step;
    if (v > span * (1 + 1e-9))
      break;
    double x = x0 + v / span * width;
    svg_line (o, x, y, x, y + 5, "#222222", 1, FALSE);
    g_autofree char *l = g_strdup_printf ("%.*f", dec, v);
    svg_text (o, x, y + 19, 11, "middle", NULL, "#333333", l);
  }
  svg_text (o, x0 + width / 2, y + 38, 12, "middle", NULL, "#333333", label);
}

void
dts_svg_begin (GString *o, double width, double height)
{
  g_string_append_printf (o,
                          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                          "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                          "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
                          width, height, width, height);
  svg_rect (o, NULL, 0, 0, width, height, 0, "#ffffff", NULL);
}
