/* fuzz-study.c - libFuzzer target: what the study tools read and write.
 *
 * Each input goes, whole, to the sweep's readers of a results folder (a
 * point's JSON, dts_sweep_result_parse; a CSV, dts_csv_parse) and, as a key
 * file, to the --config pre-pass of `dtsim sweep` (dts_cli_config_expand);
 * each of its lines goes to the --vary parser (dts_sweep_axis_parse,
 * dts_sweep_values_expand) and to the script writers (core/quote.h).
 * Besides "no crash", each must return exactly one of a result and an
 * error, and:
 *   - a CSV that parses, written back field by field (dts_csv_append_field),
 *     parses to the same rows;
 *   - an axis that parses has at least one value and no value twice;
 *   - a value the writers accept has no control character, and the sh word
 *     written for it reads back (single quotes, '\'' for a quote) as the
 *     value; a value with a control character is refused by every writer. */
#include "config.h"

#include <string.h>

#include "cli/cli-private.h"
#include "core/quote.h"
#include "fuzz-common.h"

static gboolean
has_control (const char *s)
{
  for (; *s; s++)
    if ((unsigned char) *s < 0x20 || *s == 0x7f)
      return TRUE;
  return FALSE;
}

/* The value a sh word made by dts_quote_shell stands for: unquoted, or
 * single-quoted pieces joined by \' (sh's '\''). */
static char *
sh_unquote (const char *w)
{
  GString *s = g_string_new (NULL);
  gboolean in = FALSE;
  for (const char *p = w; *p; p++) {
    if (*p == '\'')
      in = !in;
    else if (!in && *p == '\\' && p[1] != '\0')
      g_string_append_c (s, *++p);
    else
      g_string_append_c (s, *p);
  }
  if (in)
    abort (); /* an unterminated quote */
  return g_string_free (s, FALSE);
}

static void
one_line (const char *line)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsSweepAxis) axis = dts_sweep_axis_parse (line, &error);
  if ((axis == NULL) == (error == NULL))
    abort ();
  if (axis != NULL) {
    guint n = g_strv_length (axis->values);
    if (n == 0)
      abort ();
    for (guint i = 0; i < n; i++)
      for (guint j = i + 1; j < n; j++)
        if (strcmp (axis->values[i], axis->values[j]) == 0)
          abort ();
  }
  g_clear_error (&error);
  g_auto (GStrv) values = dts_sweep_values_expand (line, &error);
  if ((values == NULL) == (error == NULL))
    abort ();
  g_clear_error (&error);

  gboolean control = has_control (line);
  g_autofree char *word = dts_quote_shell (line, "value", "a script", &error);
  if ((word == NULL) == (error == NULL) || (control && word != NULL))
    abort ();
  if (word != NULL) {
    g_autofree char *back = sh_unquote (word);
    if (strcmp (back, line) != 0)
      abort ();
  }
  g_clear_error (&error);
  g_autofree char *gp = dts_quote_gnuplot (line, "value", "a script", &error);
  if ((gp == NULL) == (error == NULL) || (control && gp != NULL))
    abort ();
}

/* The rows of TEXT, written back as CSV. */
static void
csv_round_trip (const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) rows = dts_csv_parse (text, &error);
  if ((rows == NULL) == (error == NULL))
    abort ();
  if (rows == NULL)
    return;
  g_autoptr (GString) out = g_string_new (NULL);
  for (guint r = 0; r < rows->len; r++) {
    char **fields = g_ptr_array_index (rows, r);
    for (guint f = 0; fields[f] != NULL; f++) {
      if (f > 0)
        g_string_append_c (out, ',');
      dts_csv_append_field (out, fields[f]);
    }
    g_string_append_c (out, '\n');
  }
  g_autoptr (GPtrArray) again = dts_csv_parse (out->str, &error);
  if (again == NULL || again->len != rows->len)
    abort ();
  for (guint r = 0; r < rows->len; r++)
    if (!g_strv_equal (g_ptr_array_index (rows, r), g_ptr_array_index (again, r)))
      abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  /* a NUL byte ends the text, as for the readers that take C strings */
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsSweepResult) result = dts_sweep_result_parse (text, &error);
  if ((result == NULL) == (error == NULL))
    abort ();
  if (result != NULL) {
    (void) dts_sweep_result_field (result, "breakdown.forward_s");
    (void) dts_sweep_result_field (result, "memory.fits");
    (void) dts_sweep_result_wall_time (result);
  }
  g_clear_error (&error);
  csv_round_trip (text);

  /* the input as a key file of `dtsim sweep --config` */
  const char *path = fuzz_write (data, size, ".ini");
  const DtsCommand *sweep = dts_cli_command_lookup ("sweep");
  char *argv[] = { (char *) "sweep", (char *) "--config", (char *) path, NULL };
  int argc_out = 0;
  g_autoptr (DtsConfigOrigins) origins = NULL;
  char **expanded = dts_cli_config_expand (sweep, 3, argv, &argc_out, &origins, &error);
  if ((expanded == NULL) == (error == NULL))
    abort ();
  g_strfreev (expanded);
  g_clear_error (&error);

  g_auto (GStrv) lines = g_strsplit (text, "\n", 64);
  for (int i = 0; lines[i] != NULL; i++)
    one_line (lines[i]);
  return 0;
}
