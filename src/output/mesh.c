/* mesh.c - the rank mesh on the platform (mesh.h has the picture). */
#include "config.h"

#include <string.h>

#include "output/mesh.h"
#include "output/svg.h"

/* Stage colours (the first ten of a qualitative palette; more stages
 * reuse them, which the legend says). */
static const char *const stage_fill[] = { "#3b75af", "#e1812c", "#3a923a", "#c03d3e", "#9372b2",
                                          "#845b53", "#d684bd", "#7f7f7f", "#a9aa35", "#2ebdcd" };
#define N_FILLS G_N_ELEMENTS (stage_fill)

typedef struct {
  int n_stages, n_replicas, n_tensor, n_nodes, n_ranks;
  /* per kind of group: groups, groups on one node, groups across nodes */
  int tp_groups, tp_inside, dp_groups, dp_inside, pipelines, hops, hops_across;
} Counts;

static const DtsMeshRank *
at (const DtsRunSummary *s, int r)
{
  return &g_array_index (s->mesh, DtsMeshRank, r);
}

/* Groups of ranks sharing KEY: how many, and how many on one node. */
static void
count_groups (const DtsRunSummary *s, int (*key) (const DtsMeshRank *, const Counts *),
              const Counts *c, int *groups, int *inside)
{
  g_autoptr (GHashTable) node = g_hash_table_new (NULL, NULL); /* key + 1 -> node + 1, or -1 */
  for (int r = 0; r < c->n_ranks; r++) {
    gpointer k = GINT_TO_POINTER (key (at (s, r), c) + 1);
    int seen = GPOINTER_TO_INT (g_hash_table_lookup (node, k));
    if (seen == 0)
      g_hash_table_insert (node, k, GINT_TO_POINTER (at (s, r)->node + 1));
    else if (seen != at (s, r)->node + 1)
      g_hash_table_insert (node, k, GINT_TO_POINTER (-1));
  }
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, node);
  *groups = *inside = 0;
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    (*groups)++;
    *inside += GPOINTER_TO_INT (v) > 0;
  }
}

static int
tp_key (const DtsMeshRank *m, const Counts *c)
{
  return m->stage * c->n_replicas + m->replica;
}

static int
dp_key (const DtsMeshRank *m, const Counts *c)
{
  return m->stage * c->n_tensor + m->tensor;
}

static Counts
counts (const DtsRunSummary *s)
{
  Counts c = { .n_ranks = (int) s->mesh->len };
  for (int r = 0; r < c.n_ranks; r++) {
    c.n_stages = MAX (c.n_stages, at (s, r)->stage + 1);
    c.n_replicas = MAX (c.n_replicas, at (s, r)->replica + 1);
    c.n_tensor = MAX (c.n_tensor, at (s, r)->tensor + 1);
    c.n_nodes = MAX (c.n_nodes, at (s, r)->node + 1);
  }
  count_groups (s, tp_key, &c, &c.tp_groups, &c.tp_inside);
  count_groups (s, dp_key, &c, &c.dp_groups, &c.dp_inside);
  /* pipelines: stage s and s + 1 of one replica and tensor rank */
  gsize cells = (gsize) c.n_stages * c.n_replicas * c.n_tensor;
  g_autofree int *node_of = g_new (int, MAX (cells, 1));
  for (gsize i = 0; i < cells; i++)
    node_of[i] = -1;
  for (int r = 0; r < c.n_ranks; r++) {
    const DtsMeshRank *m = at (s, r);
    node_of[((gsize) m->replica * c.n_tensor + m->tensor) * c.n_stages + m->stage] = m->node;
  }
  c.pipelines = c.n_replicas * c.n_tensor;
  for (int p = 0; p < c.pipelines; p++)
    for (int st = 0; st + 1 < c.n_stages; st++) {
      int a = node_of[(gsize) p * c.n_stages + st], b = node_of[(gsize) p * c.n_stages + st + 1];
      if (a < 0 || b < 0)
        continue;
      c.hops++;
      c.hops_across += a != b;
    }
  return c;
}

static void
count_lines (const Counts *c, char lines[4][160])
{
  g_snprintf (lines[0], 160,
              "%d pipeline stage%s x %d data-parallel replica%s x %d tensor rank%s = %d GPUs "
              "on %d node%s",
              c->n_stages, c->n_stages == 1 ? "" : "s", c->n_replicas,
              c->n_replicas == 1 ? "" : "s", c->n_tensor, c->n_tensor == 1 ? "" : "s",
              c->n_ranks, c->n_nodes, c->n_nodes == 1 ? "" : "s");
  if (c->n_tensor > 1)
    g_snprintf (lines[1], 160,
                "tensor groups (same p and d): %d, %d inside one node, %d across nodes",
                c->tp_groups, c->tp_inside, c->tp_groups - c->tp_inside);
  else
    g_snprintf (lines[1], 160, "tensor groups: none (no tensor parallelism)");
  if (c->n_replicas > 1)
    g_snprintf (lines[2], 160,
                "data-parallel groups (same p and t): %d, %d inside one node, %d across nodes",
                c->dp_groups, c->dp_inside, c->dp_groups - c->dp_inside);
  else
    g_snprintf (lines[2], 160, "data-parallel groups: none (one replica)");
  if (c->n_stages > 1)
    g_snprintf (lines[3], 160,
                "pipelines (same d and t): %d; %d stage-to-stage hops, %d of them across nodes",
                c->pipelines, c->hops, c->hops_across);
  else
    g_snprintf (lines[3], 160, "pipelines: none (one stage)");
}

/* Ranks of node N in rank order. */
static GArray *
node_ranks (const DtsRunSummary *s, int n)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (int));
  for (int r = 0; r < (int) s->mesh->len; r++)
    if (at (s, r)->node == n)
      g_array_append_val (a, r);
  return a;
}

void
dts_mesh_write_ascii (const DtsRunSummary *s, GString *out)
{
  g_return_if_fail (s->mesh != NULL);
  Counts c = counts (s);
  char lines[4][160];
  count_lines (&c, lines);
  g_string_append_printf (out, "rank mesh: %s\n", lines[0]);
  g_string_append (out, "  cell pPdDtT: pipeline stage P, data-parallel replica D, tensor rank T\n");
  for (int i = 1; i < 4; i++)
    g_string_append_printf (out, "  %s\n", lines[i]);
  int width = 0;
  for (int n = 0; n < c.n_nodes && n < DTS_MESH_MAX_NODES; n++)
    width = MAX (width, (int) strlen (s->mesh_nodes[n]));
  for (int n = 0; n < c.n_nodes && n < DTS_MESH_MAX_NODES; n++) {
    g_autoptr (GArray) ranks = node_ranks (s, n);
    g_string_append_printf (out, "%-*s ", width, s->mesh_nodes[n]);
    for (guint i = 0; i < ranks->len; i++) {
      const DtsMeshRank *m = at (s, g_array_index (ranks, int, i));
      g_string_append_printf (out, " p%dd%dt%d", m->stage, m->replica, m->tensor);
    }
    g_string_append_c (out, '\n');
  }
  if (c.n_nodes > DTS_MESH_MAX_NODES)
    g_string_append_printf (out, "... %d more nodes\n", c.n_nodes - DTS_MESH_MAX_NODES);
}

#define MARGIN 24.0
#define CELL_W 78.0
#define CELL_H 40.0
#define CELL_GAP 4.0
#define NODE_PAD 10.0
#define NODE_TITLE 22.0
#define NODE_GAP 18.0
#define MAX_COLS 8   /* GPU cells per row inside a node */
#define MAX_WIDTH 1400.0 /* nodes per row: as many as fit */

void
dts_mesh_write_svg (const DtsRunSummary *s, GString *out)
{
  g_return_if_fail (s->mesh != NULL);
  Counts c = counts (s);
  char lines[4][160];
  count_lines (&c, lines);
  int shown = MIN (c.n_nodes, DTS_MESH_MAX_NODES);
  int most = 1;
  for (int n = 0; n < shown; n++) {
    g_autoptr (GArray) ranks = node_ranks (s, n);
    most = MAX (most, (int) ranks->len);
  }
  int cols = MIN (most, MAX_COLS), rows = (most + cols - 1) / cols;
  double node_w = 2 * NODE_PAD + cols * CELL_W + (cols - 1) * CELL_GAP;
  double node_h = NODE_TITLE + 2 * NODE_PAD + rows * CELL_H + (rows - 1) * CELL_GAP;
  int per_row = MAX (1, (int) ((MAX_WIDTH - 2 * MARGIN + NODE_GAP) / (node_w + NODE_GAP)));
  per_row = MIN (per_row, shown);
  int node_rows = (shown + per_row - 1) / per_row;
  double top = 96, legend_h = 40, notes_h = 4 * 18 + 20;
  g_autofree char *t1 = g_strdup_printf ("Rank mesh: %s", lines[0]);
  g_autofree char *t2 = g_strdup_printf (
      "%s on %s (%s%s%s). Each GPU: p stage, d data-parallel replica, t tensor rank; colour: "
      "stage.",
      s->workload, s->platform, s->strategy, s->placement ? ", " : "",
      s->placement ? s->placement : "");
  double width = 2 * MARGIN + per_row * node_w + (per_row - 1) * NODE_GAP;
  width = MAX (width, 2 * MARGIN + dts_svg_text_width (t1, 18));
  width = MAX (width, 2 * MARGIN + dts_svg_text_width (t2, 13));
  for (int i = 1; i < 4; i++)
    width = MAX (width, 2 * MARGIN + dts_svg_text_width (lines[i], 13));
  double height = top + node_rows * (node_h + NODE_GAP) + legend_h + notes_h;
  dts_svg_begin (out, width, height);
  dts_svg_text (out, MARGIN, 34, 18, "start", "bold", "#111111", t1);
  dts_svg_text (out, MARGIN, 58, 13, "start", NULL, "#333333", t2);
  dts_svg_text (out, MARGIN, 78, 13, "start", NULL, "#555555",
                "A box around GPUs: one tensor-parallel group (same p and d) inside the node; "
                "dashed: the node's part of a group that spans nodes.");

  for (int n = 0; n < shown; n++) {
    double nx = MARGIN + (n % per_row) * (node_w + NODE_GAP);
    double ny = top + (n / per_row) * (node_h + NODE_GAP);
    dts_svg_rect (out, "node", nx, ny, node_w, node_h, 6, "#f4f4f4", "#999999");
    g_autoptr (GArray) ranks = node_ranks (s, n);
    g_autofree char *title = g_strdup_printf ("%s (%u GPU%s)", s->mesh_nodes[n], ranks->len,
                                              ranks->len == 1 ? "" : "s");
    dts_svg_text (out, nx + NODE_PAD, ny + 16, 12, "start", "bold", "#222222", title);
    for (guint i = 0; i < ranks->len; i++) {
      int r = g_array_index (ranks, int, i);
      const DtsMeshRank *m = at (s, r);
      double x = nx + NODE_PAD + (i % cols) * (CELL_W + CELL_GAP);
      double y = ny + NODE_TITLE + NODE_PAD + (i / cols) * (CELL_H + CELL_GAP);
      dts_svg_rect (out, "gpu", x, y, CELL_W, CELL_H, 3, stage_fill[m->stage % N_FILLS], NULL);
      g_autofree char *gpu = g_strdup_printf ("GPU %d", r);
      g_autofree char *coord = g_strdup_printf ("p%d d%d t%d", m->stage, m->replica, m->tensor);
      dts_svg_text (out, x + CELL_W / 2, y + 15, 10, "middle", NULL, "#ffffff", gpu);
      dts_svg_text (out, x + CELL_W / 2, y + 31, 11, "middle", "bold", "#ffffff", coord);
    }
    /* Tensor groups of more than one GPU, wholly inside the node and on
     * consecutive cells of one row: a box around them. */
    for (guint i = 0; c.n_tensor > 1 && i < ranks->len;) {
      const DtsMeshRank *m = at (s, g_array_index (ranks, int, i));
      guint j = i + 1;
      while (j < ranks->len && (j % cols) != 0
             && tp_key (at (s, g_array_index (ranks, int, j)), &c) == tp_key (m, &c))
        j++;
      int members = 0;
      for (int r = 0; r < c.n_ranks; r++)
        members += tp_key (at (s, r), &c) == tp_key (m, &c);
      if (j - i > 1 || (members > 1 && j - i == 1 && (int) (j - i) < members)) {
        gboolean whole = (int) (j - i) == members;
        double x = nx + NODE_PAD + (i % cols) * (CELL_W + CELL_GAP) - 2;
        double y = ny + NODE_TITLE + NODE_PAD + (i / cols) * (CELL_H + CELL_GAP) - 2;
        double w = (j - i) * (CELL_W + CELL_GAP) - CELL_GAP + 4;
        g_string_append_printf (out,
                                "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" "
                                "width=\"%.1f\" height=\"%.1f\" rx=\"4\" fill=\"none\" "
                                "stroke=\"#111111\" stroke-width=\"2\"%s/>\n",
                                whole ? "tensor-group" : "tensor-group-part", x, y, w,
                                CELL_H + 4, whole ? "" : " stroke-dasharray=\"6,4\"");
      }
      i = j;
    }
  }

  double ly = top + node_rows * (node_h + NODE_GAP) + 14;
  double lx = MARGIN;
  for (int st = 0; st < c.n_stages && st < (int) N_FILLS; st++) {
    dts_svg_rect (out, NULL, lx, ly - 12, 16, 16, 2, stage_fill[st], NULL);
    g_autofree char *label = g_strdup_printf ("stage %d", st);
    dts_svg_text (out, lx + 22, ly + 1, 13, "start", NULL, "#222222", label);
    lx += 22 + dts_svg_text_width (label, 13) + 18;
  }
  if (c.n_stages > (int) N_FILLS)
    dts_svg_text (out, lx, ly + 1, 13, "start", NULL, "#555555",
                  "(colours repeat every 10 stages)");
  double ny = ly + legend_h;
  for (int i = 1; i < 4; i++)
    dts_svg_text (out, MARGIN, ny + (i - 1) * 18, 13, "start", NULL, "#222222", lines[i]);
  if (c.n_nodes > shown) {
    g_autofree char *more = g_strdup_printf (
        "The first %d of %d nodes are drawn; the counts above cover all of them.", shown,
        c.n_nodes);
    dts_svg_text (out, MARGIN, ny + 3 * 18, 13, "start", NULL, "#555555", more);
  }
  g_string_append (out, "</svg>\n");
}
