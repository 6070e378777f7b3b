/* plot.c - gnuplot scripts for sweep results (results.csv of `dtsim sweep`).
 *
 * Every plot is three files next to each other: BASE.dat, the numbers
 * (tab-separated, one block per series so that gnuplot's `index` selects a
 * series), BASE.gp, a script that reads BASE.dat by its name alone and
 * writes BASE.png (pngcairo) and/or BASE.svg, and the pictures themselves
 * when a gnuplot is found (it runs in the script's directory). Without
 * gnuplot the .dat and .gp files are still there: `gnuplot BASE.gp` renders
 * them anywhere. Axis labels carry units, from the column names: dtsim
 * names every quantity with its unit (iteration_time_s,
 * throughput_samples_per_s, ...). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "cli/cli-private.h"
#include "core/error.h"
#include "core/input.h"
#include "core/outfile.h"
#include "core/quote.h"
#include "core/units.h"

char *
dts_plot_gnuplot (void)
{
  const char *env = g_getenv ("DTSIM_GNUPLOT");
  if (env != NULL)
    return *env && strcmp (env, "none") != 0 ? g_strdup (env) : NULL;
  if (DTS_GNUPLOT[0] != '\0' && g_file_test (DTS_GNUPLOT, G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup (DTS_GNUPLOT);
  return g_find_program_in_path ("gnuplot");
}

/* Labels of known columns, then units by suffix. */
static const struct {
  const char *name;
  const char *label;
} names[] = {
  { "gpus", "GPUs" },
  { "n_gpus", "GPUs" },
  { "n_nodes", "nodes" },
  { "nodes", "nodes" },
  { "batch-size", "batch size per GPU (samples)" },
  { "bucket-size", "gradient bucket cap (bytes)" },
  { "chunk-size", "all-reduce chunk (bytes)" },
  { "throughput_samples_per_s", "throughput (samples/s)" },
  { "iteration_time_s", "iteration time (s)" },
  { "speedup", "speed-up over the first point of the series (x)" },
  { "ideal_speedup", "ideal (speed-up = GPU ratio)" },
  { "efficiency", "scaling efficiency (speed-up / GPU ratio)" },
  { "compute_efficiency", "compute efficiency (compute on an idle GPU / iteration)" },
};

static const struct {
  const char *suffix;
  const char *unit;
} suffixes[] = {
  { "_samples_per_s", "samples/s" }, { "_bytes_per_gpu", "bytes per GPU" },
  { "_bytes", "bytes" },             { "_Bps", "bytes/s" },
  { "_s", "s" },                     { ".bandwidth", "bandwidth" },
  { ".latency", "latency" },         { ".flops", "FLOP/s" },
};

static char *
label_for (const char *column)
{
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (names[i].name, column) == 0)
      return g_strdup (names[i].label);
  if (g_str_has_prefix (column, "scale:"))
    return g_strdup_printf ("%s (scale factor)", column + 6);
  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (g_str_has_suffix (column, suffixes[i].suffix))
      return g_strdup_printf ("%s (%s)", column, suffixes[i].unit);
  return g_strdup (column);
}

/* TEXT as a gnuplot string (core/quote.h: no command runs from it), or
 * FALSE when it cannot be one; WHAT names it and FILE is the script. */
static gboolean
append_quoted (GString *out, const char *text, const char *what, const char *file,
               GError **error)
{
  g_autofree char *q = dts_quote_gnuplot (text, what, file, error);
  if (q == NULL)
    return FALSE;
  g_string_append (out, q);
  return TRUE;
}

/* The script's own name (BASE.gp) and its outputs' and data's names, each
 * a gnuplot string. */
typedef struct {
  char *gp, *dat, *png, *svg;
  char *gp_name;
} Names;

static void
names_clear (Names *n)
{
  g_free (n->gp);
  g_free (n->dat);
  g_free (n->png);
  g_free (n->svg);
  g_free (n->gp_name);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Names, names_clear)

static gboolean
names_init (Names *n, const char *name, GError **error)
{
  n->gp_name = g_strconcat (name, ".gp", NULL);
  g_autofree char *dat = g_strconcat (name, ".dat", NULL);
  g_autofree char *png = g_strconcat (name, ".png", NULL);
  g_autofree char *svg = g_strconcat (name, ".svg", NULL);
  return (n->dat = dts_quote_gnuplot (dat, "output name", n->gp_name, error)) != NULL
         && (n->png = dts_quote_gnuplot (png, "output name", n->gp_name, error)) != NULL
         && (n->svg = dts_quote_gnuplot (svg, "output name", n->gp_name, error)) != NULL;
}

static int
column_index (const GPtrArray *table, const char *name, GError **error)
{
  char *const *header = g_ptr_array_index (table, 0);
  for (int i = 0; header[i]; i++)
    if (strcmp (header[i], name) == 0)
      return i;
  g_autofree char *all = g_strjoinv (", ", (char **) header);
  g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "no column '%s' (columns: %s)", name, all);
  return -1;
}

static const char *
cell (const GPtrArray *table, guint row, int col)
{
  char *const *r = g_ptr_array_index (table, row);
  for (int i = 0; i <= col; i++)
    if (r[i] == NULL)
      return "";
  return r[col];
}

static gboolean
as_number (const char *text, double *v)
{
  char *end = NULL;
  *v = dts_units_strtod (text, &end);
  return *text != '\0' && end != text && *end == '\0' && isfinite (*v);
}

static gboolean
number_cell (const GPtrArray *table, guint row, int col, double *v, GError **error)
{
  if (as_number (cell (table, row, col), v))
    return TRUE;
  char *const *header = g_ptr_array_index (table, 0);
  g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "line %u, column '%s': '%s' is not a number",
               row + 1, header[col], cell (table, row, col));
  return FALSE;
}

static void
append_number (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.10g", v));
}

static gboolean
save (const char *path, const GString *text, GError **error)
{
  return dts_outfile_write (path, text->str, text->len, "plot", error);
}

/* The terminal lines and the plot command for each requested format, on
 * a canvas WIDTH pixels wide (1000 or more) and 640 high. */
static void
append_outputs (GString *gp, const Names *nm, gboolean png, gboolean svg, const char *plot,
                int width)
{
  if (png)
    g_string_append_printf (gp,
                            "set terminal pngcairo size %d,640 noenhanced font \"sans,11\"\n"
                            "set output %s\n%s\n",
                            width, nm->png, plot);
  if (svg)
    g_string_append_printf (gp,
                            "set terminal svg size %d,640 noenhanced font \"sans,11\"\n"
                            "set output %s\n%s\n",
                            width, nm->svg, plot);
  g_string_append (gp, "unset output\n");
}

/* Series S's line: gnuplot's 8 colours, then the same colours dashed and
 * with other points for series 9-16, and so on: no two series alike. */
static void
append_series_style (GString *plot, guint s)
{
  static const int points[] = { 7, 5, 9, 11, 13, 15 };
  guint round = s / 8;
  g_string_append_printf (plot, "lc %u dt %u pt %d", s % 8 + 1, round % 5 + 1,
                          points[round % G_N_ELEMENTS (points)]);
}

gboolean
dts_plot_lines (const GPtrArray *table, const char *x, const char *y, const char *series,
                const char *ideal, const char *base, gboolean png, gboolean svg,
                GError **error)
{
  if (table->len < 2) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "no rows to plot");
    return FALSE;
  }
  int cx = column_index (table, x, error);
  int cy = cx < 0 ? -1 : column_index (table, y, error);
  int cs = cy < 0 || series == NULL ? -1 : column_index (table, series, error);
  int ci = cy < 0 || ideal == NULL ? -1 : column_index (table, ideal, error);
  if (cx < 0 || cy < 0 || (series != NULL && cs < 0) || (ideal != NULL && ci < 0))
    return FALSE;

  /* Numeric x when every value is a number; else categories in the order
   * they first appear, at 0, 1, 2, ... Values and series are found by hash
   * (text -> index + 1), and the rows grouped by series in one pass: a CSV
   * of 100k series used to take minutes of comparisons. */
  gboolean numeric = TRUE;
  double lo = INFINITY, hi = -INFINITY;
  g_autoptr (GPtrArray) categories = g_ptr_array_new ();
  g_autoptr (GHashTable) category_at = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint r = 1; r < table->len; r++) {
    double v;
    const char *t = cell (table, r, cx);
    if (as_number (t, &v)) {
      lo = fmin (lo, v);
      hi = fmax (hi, v);
    } else
      numeric = FALSE;
    if (!g_hash_table_contains (category_at, t)) {
      g_ptr_array_add (categories, (gpointer) t);
      g_hash_table_insert (category_at, (gpointer) t, GUINT_TO_POINTER (categories->len));
    }
  }
  g_autoptr (GPtrArray) labels = g_ptr_array_new ();
  g_autoptr (GHashTable) label_at = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GArray) series_of = g_array_sized_new (FALSE, FALSE, sizeof (guint), table->len);
  for (guint r = 1; r < table->len; r++) {
    const char *t = cs >= 0 ? cell (table, r, cs) : y;
    guint at = GPOINTER_TO_UINT (g_hash_table_lookup (label_at, t));
    if (at == 0) {
      g_ptr_array_add (labels, (gpointer) t);
      at = labels->len;
      g_hash_table_insert (label_at, (gpointer) t, GUINT_TO_POINTER (at));
    }
    guint s = at - 1;
    g_array_append_val (series_of, s);
  }
  /* The rows of series s, in file order: rows[start[s] .. start[s + 1]). */
  g_autofree guint *start = g_new0 (guint, labels->len + 1);
  g_autofree guint *rows = g_new (guint, series_of->len + 1);
  for (guint i = 0; i < series_of->len; i++)
    start[g_array_index (series_of, guint, i) + 1]++;
  for (guint s = 0; s < labels->len; s++)
    start[s + 1] += start[s];
  g_autofree guint *fill = g_memdup2 (start, (labels->len + 1) * sizeof (guint));
  for (guint i = 0; i < series_of->len; i++)
    rows[fill[g_array_index (series_of, guint, i)]++] = i + 1;

  g_autofree char *name = g_path_get_basename (base);
  g_auto (Names) nm = { 0 };
  if (!names_init (&nm, name, error))
    return FALSE;
  /* The data file is no script, but a newline or a tab in a label or an x
   * value would make other rows and columns of it. */
  g_autofree char *dat_name = g_strconcat (name, ".dat", NULL);
  g_autoptr (GString) dat = g_string_new (NULL);
  for (guint s = 0; s < labels->len; s++) {
    if (!dts_quote_check (labels->pdata[s], -1, "series label", dat_name, error))
      return FALSE;
    g_string_append_printf (dat, "%s# %s\n", s ? "\n\n" : "", (char *) labels->pdata[s]);
    for (guint k = start[s]; k < start[s + 1]; k++) {
      guint r = rows[k];
      double vx = 0, vy, vi = 0;
      const char *t = cell (table, r, cx);
      if (numeric)
        as_number (t, &vx);
      else
        vx = GPOINTER_TO_UINT (g_hash_table_lookup (category_at, t)) - 1;
      if (!number_cell (table, r, cy, &vy, error)
          || (ci >= 0 && !number_cell (table, r, ci, &vi, error))
          || !dts_quote_check (t, -1, "x value", dat_name, error))
        return FALSE;
      append_number (dat, vx);
      g_string_append_c (dat, '\t');
      append_number (dat, vy);
      g_string_append_c (dat, '\t');
      append_number (dat, vi);
      g_string_append_printf (dat, "\t%s\n", t);
    }
  }

  g_autofree char *xl = label_for (x);
  g_autofree char *yl = label_for (y);
  g_autoptr (GString) gp = g_string_new ("# dtsim plot: ");
  /* The comment names the columns quoted too: a newline would end it, a
   * backslash at its end would continue it onto the next line. */
  if (!append_quoted (gp, y, "column name", nm.gp_name, error))
    return FALSE;
  g_string_append (gp, " against ");
  if (!append_quoted (gp, x, "column name", nm.gp_name, error))
    return FALSE;
  if (series != NULL) {
    g_string_append (gp, ", one line per ");
    if (!append_quoted (gp, series, "column name", nm.gp_name, error))
      return FALSE;
  }
  g_string_append_printf (gp, "; data in %s\n", nm.dat);
  g_string_append (gp, "set datafile separator \"\\t\"\nset grid\nset key top left box opaque\n");
  g_string_append (gp, "set xlabel ");
  if (!append_quoted (gp, xl, "column name", nm.gp_name, error))
    return FALSE;
  g_string_append (gp, "\nset ylabel ");
  if (!append_quoted (gp, yl, "column name", nm.gp_name, error))
    return FALSE;
  g_string_append_c (gp, '\n');
  /* A wide positive x range is a log axis; then y is one too when it can
   * be, so that linear scaling is a straight line (log-log). */
  gboolean logx = numeric && lo > 0 && hi / lo >= 8, logy = logx;
  for (guint r = 1; r < table->len && logy; r++) {
    double v;
    logy = number_cell (table, r, cy, &v, NULL) && v > 0;
  }
  if (logx)
    g_string_append (gp, "set logscale x 2\n");
  g_string_append (gp, logy ? "set logscale y 2\n" : "set yrange [0:*]\n");
  if (!numeric)
    g_string_append_printf (gp, "set xrange [-0.5:%u.5]\n", categories->len - 1);
  else if (lo == hi)
    g_string_append (gp, "set offsets 1, 1, 0, 0\n");
  g_autoptr (GString) plot = g_string_new ("plot");
  for (guint s = 0; s < labels->len; s++) {
    g_string_append_printf (plot, "%s %s index %u using 1:2%s with linespoints lw 2 ",
                            s ? ", " : " ", nm.dat, s, numeric ? "" : ":xtic(4)");
    append_series_style (plot, s);
    g_string_append (plot, " title ");
    /* A sweep's series column already reads KEY=VALUE; others get it. */
    g_autofree char *title = cs < 0 || strcmp (series, "series") == 0
                                 ? g_strdup (labels->pdata[s])
                                 : g_strdup_printf ("%s=%s", series, (char *) labels->pdata[s]);
    if (!append_quoted (plot, title, "series label", nm.gp_name, error))
      return FALSE;
  }
  /* The ideal of the first series (the same x), once, in black. */
  if (ci >= 0) {
    g_string_append_printf (plot, ", %s index 0 using 1:3 with lines dt 2 lw 2 "
                            "lc black title ", nm.dat);
    g_autofree char *t = label_for (ideal);
    if (!append_quoted (plot, t, "column name", nm.gp_name, error))
      return FALSE;
  }
  append_outputs (gp, &nm, png, svg, plot->str, 1000);
  g_autofree char *dat_path = g_strconcat (base, ".dat", NULL);
  g_autofree char *gp_path = g_strconcat (base, ".gp", NULL);
  return save (dat_path, dat, error) && save (gp_path, gp, error);
}

gboolean
dts_plot_breakdown (const GPtrArray *table, char *const *labels, const char *base,
                    gboolean png, gboolean svg, GError **error)
{
  static const char *const compute[] = { "breakdown.forward_s", "breakdown.backward_s",
                                         "breakdown.optimizer_s" };
  int cc[G_N_ELEMENTS (compute)], ce, cl[16];
  for (guint i = 0; i < G_N_ELEMENTS (compute); i++)
    if ((cc[i] = column_index (table, compute[i], error)) < 0)
      return FALSE;
  if ((ce = column_index (table, "breakdown.comm_exposed_s", error)) < 0)
    return FALSE;
  guint nl = 0;
  for (; labels[nl] && nl < G_N_ELEMENTS (cl); nl++)
    if ((cl[nl] = column_index (table, labels[nl], error)) < 0)
      return FALSE;
  g_autofree char *name = g_path_get_basename (base);
  g_auto (Names) nm = { 0 };
  if (!names_init (&nm, name, error))
    return FALSE;
  g_autofree char *dat_name = g_strconcat (name, ".dat", NULL);
  g_autoptr (GString) dat = g_string_new ("# point\tcompute ms\texposed communication ms\n");
  glong longest = 0; /* characters of the longest point label */
  for (guint r = 1; r < table->len; r++) {
    glong len = 0;
    for (guint l = 0; l < nl; l++)
      len += (l ? 1 : 0) + g_utf8_strlen (cell (table, r, cl[l]), -1);
    longest = MAX (longest, len);
    double c = 0, v;
    for (guint i = 0; i < G_N_ELEMENTS (compute); i++) {
      if (!number_cell (table, r, cc[i], &v, error))
        return FALSE;
      c += v;
    }
    if (!number_cell (table, r, ce, &v, error))
      return FALSE;
    for (guint l = 0; l < nl; l++) {
      if (!dts_quote_check (cell (table, r, cl[l]), -1, "point label", dat_name, error))
        return FALSE;
      g_string_append_printf (dat, "%s%s", l ? " " : "", cell (table, r, cl[l]));
    }
    g_string_append_c (dat, '\t');
    append_number (dat, c * 1e3);
    g_string_append_c (dat, '\t');
    append_number (dat, v * 1e3);
    g_string_append_c (dat, '\n');
  }
  g_autofree char *joined = g_strjoinv (" ", (char **) labels);
  g_autoptr (GString) gp = g_string_new (NULL);
  g_string_append_printf (gp, "# dtsim plot: iteration time per point, compute and exposed "
                          "communication stacked; data in %s\n", nm.dat);
  g_string_append (gp, "set datafile separator \"\\t\"\n"
                       "set style data histograms\nset style histogram rowstacked\n"
                       "set style fill solid 0.85 border -1\nset boxwidth 0.75\n"
                       "set grid ytics\nset key below\nset yrange [0:*]\n"
                       "set xtics rotate by -45 scale 0\n"
                       "set ylabel \"time per iteration (ms)\"\n");
  /* Labels slant down to the right from their bar: the last one needs a
   * right margin of about 0.7 of its characters, and bars at least 24
   * pixels each so that neighbouring labels (11 pixels high, 17 apart
   * across a -45 degree slant) do not overlap. */
  g_string_append_printf (gp, "set rmargin %d\nset xlabel ",
                          (int) MAX (4, (longest * 7 + 9) / 10 + 2));
  int width = MAX (1000, 160 + 24 * (int) (table->len - 1));
  g_autofree char *xl = g_strdup_printf ("point (%s)", joined);
  if (!append_quoted (gp, xl, "column name", nm.gp_name, error))
    return FALSE;
  g_string_append_c (gp, '\n');
  g_autofree char *plot = g_strdup_printf (
      "plot %s using 2:xtic(1) title \"compute (forward + backward + optimizer)\" "
      "lc 1, \"\" using 3 title \"exposed communication\" lc 7", nm.dat);
  append_outputs (gp, &nm, png, svg, plot, width);
  g_autofree char *dat_path = g_strconcat (base, ".dat", NULL);
  g_autofree char *gp_path = g_strconcat (base, ".gp", NULL);
  return save (dat_path, dat, error) && save (gp_path, gp, error);
}

/* Remove the files of the temporary directory DIR, then DIR. */
static void
remove_tmp_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  for (const char *f; d != NULL && (f = g_dir_read_name (d)) != NULL;) {
    g_autofree char *path = g_build_filename (dir, f, NULL);
    g_unlink (path);
  }
  g_rmdir (dir);
}

/* gnuplot runs in a private directory beside the script, where its data
 * file is linked: the pictures it writes there are checked (gnuplot exits
 * 0 when it cannot write them) and then written in place as every output
 * is (core/outfile.h), so that a write that fails is an error. */
gboolean
dts_plot_render (const char *gnuplot, const char *script, GError **error)
{
  g_autofree char *abs = g_canonicalize_filename (script, NULL);
  g_autofree char *dir = g_path_get_dirname (abs);
  g_autofree char *name = g_path_get_basename (abs);
  if (g_str_has_suffix (name, ".gp"))
    name[strlen (name) - 3] = '\0';
  g_autofree char *script_base = g_str_has_suffix (script, ".gp")
                                     ? g_strndup (script, strlen (script) - 3)
                                     : g_strdup (script);
  g_autofree char *tmp = g_build_filename (dir, ".dtsim-plot-XXXXXX", NULL);
  if (g_mkdtemp (tmp) == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s: cannot make a directory for gnuplot: %s",
                 dir, g_strerror (errno));
    return FALSE;
  }
  g_autofree char *dat = g_strconcat (dir, "/", name, ".dat", NULL);
  g_autofree char *link = g_strconcat (tmp, "/", name, ".dat", NULL);
  if (symlink (dat, link) != 0) {
    int err = errno;
    remove_tmp_dir (tmp);
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s: cannot link: %s", link, g_strerror (err));
    return FALSE;
  }
  char *argv[] = { (char *) gnuplot, abs, NULL };
  g_autofree char *err = NULL;
  int status = 0;
  g_autoptr (GError) local = NULL;
  if (!g_spawn_sync (tmp, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                     NULL, NULL, &err, &status, &local)) {
    remove_tmp_dir (tmp);
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "cannot run gnuplot '%s': %s", gnuplot,
                 local->message);
    return FALSE;
  }
  if (!g_spawn_check_wait_status (status, NULL)) {
    remove_tmp_dir (tmp);
    g_strstrip (err);
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "gnuplot %s failed: %s", script, err);
    return FALSE;
  }
  static const char *const exts[] = { ".png", ".svg" };
  guint pictures = 0;
  for (guint i = 0; i < G_N_ELEMENTS (exts); i++) {
    g_autofree char *made = g_strconcat (tmp, "/", name, exts[i], NULL);
    if (!g_file_test (made, G_FILE_TEST_EXISTS))
      continue;
    g_autofree char *target = g_strconcat (script_base, exts[i], NULL);
    g_autoptr (GBytes) bytes = dts_input_read (made, "picture", error);
    dts_input_forget (made);
    gsize len = 0;
    const char *data = bytes ? g_bytes_get_data (bytes, &len) : NULL;
    if (bytes != NULL && len == 0)
      g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "gnuplot %s wrote an empty picture%s%s",
                   script, *g_strstrip (err) ? ": " : "", err);
    if (bytes == NULL || len == 0 || !dts_outfile_write (target, data, len, "picture", error)) {
      remove_tmp_dir (tmp);
      return FALSE;
    }
    pictures++;
  }
  remove_tmp_dir (tmp);
  if (pictures == 0) {
    g_strstrip (err);
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "gnuplot %s wrote no picture%s%s", script,
                 *err ? ": " : "", err);
    return FALSE;
  }
  return TRUE;
}
