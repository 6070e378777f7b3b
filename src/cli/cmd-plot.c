/* cmd-plot.c - `dtsim plot RESULTS.csv --x COL --y COL [--series COL]`.
 *
 * One line plot of two columns of a CSV with a header row (a sweep's
 * results.csv, or `dtsim run --format csv` rows), one line per value of the
 * series column, written as a gnuplot script and its data beside the
 * picture (plot.c) and rendered when gnuplot is found. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli-private.h"
#include "core/error.h"
#include "core/input.h"

gboolean
dts_cmd_plot (int argc, char **argv, GError **error)
{
  g_autofree char *x = NULL;
  g_autofree char *y = NULL;
  g_autofree char *series = NULL;
  g_autofree char *ideal = NULL;
  g_autofree char *output = NULL;
  GOptionEntry entries[] = {
    { "x", 'x', 0, G_OPTION_ARG_STRING, &x, "Column on the x axis (required)", "COL" },
    { "y", 'y', 0, G_OPTION_ARG_STRING, &y, "Column on the y axis (required)", "COL" },
    { "series", 's', 0, G_OPTION_ARG_STRING, &series,
      "One line per value of this column (default: one line)", "COL" },
    { "ideal", 0, 0, G_OPTION_ARG_STRING, &ideal,
      "Also draw this column dashed beside each line (e.g. ideal_speedup)", "COL" },
    { "output", 'o', 0, G_OPTION_ARG_STRING, &output,
      "Picture to write, .png or .svg; FILE.gp and FILE.dat go beside it (default: plot.png)",
      "FILE" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("RESULTS.csv");
  g_option_context_set_summary (
      ctx, "Plot column --y against column --x of a CSV file with a header row, such as\n"
           "the results.csv of 'dtsim sweep', with gnuplot. The gnuplot script and its\n"
           "data are always written; the picture when gnuplot is found.");
  dts_cli_add_entries (ctx, entries);
  gboolean help = FALSE;
  if (!dts_cli_parse (ctx, "plot", &argc, &argv, &help, error))
    return FALSE;
  if (help)
    return TRUE;
  if (argc != 2) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "expected one CSV file (see 'dtsim plot --help')");
    return FALSE;
  }
  if (x == NULL || y == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--x and --y are required (see 'dtsim "
                 "plot --help')");
    return FALSE;
  }
  const char *out = output ? output : "plot.png";
  gboolean png = g_str_has_suffix (out, ".png"), svg = g_str_has_suffix (out, ".svg");
  if (!png && !svg)
    return dts_cli_bad_option ("output", out, "a file name ending in .png or .svg", error);
  g_autofree char *base = g_strndup (out, strlen (out) - 4);

  g_autoptr (GError) local = NULL;
  g_autofree char *text = dts_input_read_text (argv[1], "CSV", NULL, error);
  if (text == NULL)
    return FALSE;
  g_autoptr (GPtrArray) table = dts_csv_parse (text, &local);
  if (table == NULL || !dts_plot_lines (table, x, y, series, ideal, base, png, svg, &local)) {
    g_set_error (error, DTS_ERROR, g_error_matches (local, DTS_ERROR, DTS_ERROR_USAGE)
                                       ? DTS_ERROR_USAGE : DTS_ERROR_INVALID,
                 "'%s': %s", argv[1], local->message);
    return FALSE;
  }
  g_autofree char *gnuplot = dts_plot_gnuplot ();
  g_autofree char *script = g_strconcat (base, ".gp", NULL);
  if (gnuplot == NULL) {
    printf ("wrote %s and %s.dat\n", script, base);
    g_autofree char *dir = g_path_get_dirname (script);
    g_autofree char *name = g_path_get_basename (script);
    g_autofree char *cd = strcmp (dir, ".") == 0 ? g_strdup ("") : g_strdup_printf ("cd %s && ", dir);
    fprintf (stderr, "note: gnuplot not found: render with '%sgnuplot %s' (Debian: "
             "apt-get install gnuplot-nox)\n", cd, name);
    return TRUE;
  }
  if (!dts_plot_render (gnuplot, script, error))
    return FALSE;
  printf ("wrote %s (%s, %s.dat)\n", out, script, base);
  return TRUE;
}
