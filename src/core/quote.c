/* quote.c - data written into scripts (quote.h).
 *
 * One rule for every script writer: refuse control characters, then quote
 * with the one quoting of the target language that substitutes nothing.
 * The unit tests (tests/unit/test-core.c) feed hostile strings through each
 * function; tests/cli/hostile-scripts.sh runs the scripts dtsim writes from
 * hostile data through sh and gnuplot and checks that no command ran. */
#include "config.h"

#include <string.h>

#include "core/error.h"
#include "core/quote.h"

/* At most this many bytes of a refused value are shown in the message. */
#define SHOWN_BYTES 60

gboolean
dts_quote_check (const char *text, gssize len, const char *what, const char *into,
                 GError **error)
{
  g_return_val_if_fail (text != NULL, FALSE);
  gsize n = len < 0 ? strlen (text) : (gsize) len;
  for (gsize i = 0; i < n; i++) {
    guchar c = (guchar) text[i];
    if (c >= 0x20 && c != 0x7f)
      continue;
    g_autofree char *head = g_strndup (text, MIN (n, SHOWN_BYTES));
    g_autofree char *shown = g_strescape (head, NULL);
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "%s '%s%s': %s (byte %" G_GSIZE_FORMAT ") cannot be written into %s",
                 what, shown, strlen (head) < n ? "..." : "",
                 c == '\0' ? "a NUL byte" : c == '\n' ? "a newline" : "a control character",
                 i + 1, into);
    return FALSE;
  }
  return TRUE;
}

static gboolean
plain (const char *text)
{
  if (*text == '\0')
    return FALSE;
  for (const char *c = text; *c; c++)
    if (!g_ascii_isalnum (*c) && strchr ("_./:=+,@%-", *c) == NULL)
      return FALSE;
  return TRUE;
}

static char *
single_quoted (const char *text, const char *quote_in_quotes)
{
  GString *s = g_string_sized_new (strlen (text) + 2);
  g_string_append_c (s, '\'');
  for (const char *c = text; *c; c++)
    if (*c == '\'')
      g_string_append (s, quote_in_quotes);
    else
      g_string_append_c (s, *c);
  g_string_append_c (s, '\'');
  return g_string_free (s, FALSE);
}

char *
dts_quote_shell (const char *text, const char *what, const char *into, GError **error)
{
  if (!dts_quote_check (text, -1, what, into, error))
    return NULL;
  return plain (text) ? g_strdup (text) : single_quoted (text, "'\\''");
}

char *
dts_quote_shell_command (const char *text, const char *what, const char *into,
                         GError **error)
{
  /* POSIX 2.4: words that are reserved where a command name may appear. */
  static const char *const reserved[] = { "case", "do",    "done",  "elif", "else",
                                          "esac", "fi",    "for",   "if",   "in",
                                          "then", "until", "while", NULL };
  if (!dts_quote_check (text, -1, what, into, error))
    return NULL;
  gboolean ok = plain (text) && strchr (text, '=') == NULL;
  for (const char *const *r = reserved; ok && *r; r++)
    ok = strcmp (text, *r) != 0;
  return ok ? g_strdup (text) : single_quoted (text, "'\\''");
}

char *
dts_quote_gnuplot (const char *text, const char *what, const char *into, GError **error)
{
  if (!dts_quote_check (text, -1, what, into, error))
    return NULL;
  if (strlen (text) > DTS_QUOTE_GNUPLOT_MAX) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "%s '%.40s...': longer than %d bytes, which cannot be written into %s", what,
                 text, DTS_QUOTE_GNUPLOT_MAX, into);
    return NULL;
  }
  if (strchr (text, '\'') == NULL)
    return single_quoted (text, "");
  /* gnuplot 5.4's scanner misreads '' next to the opening quote or to
   * another '' ('''a' is read as two strings), so a quote is joined in as
   * the string "'" instead. */
  GString *s = g_string_new ("(");
  for (const char *c = text; *c;) {
    if (s->len > 1)
      g_string_append_c (s, '.');
    if (*c == '\'') {
      g_string_append (s, "\"'\"");
      c++;
      continue;
    }
    gsize n = strcspn (c, "'");
    g_string_append_c (s, '\'');
    g_string_append_len (s, c, (gssize) n);
    g_string_append_c (s, '\'');
    c += n;
  }
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

char *
dts_quote_slurm (const char *text, const char *what, const char *into, GError **error)
{
  if (!dts_quote_check (text, -1, what, into, error))
    return NULL;
  if (strchr (text, '\\') != NULL) {
    g_autofree char *shown = g_strndup (text, SHOWN_BYTES);
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "%s '%s%s': a backslash cannot be written into %s", what, shown,
                 strlen (text) > SHOWN_BYTES ? "..." : "", into);
    return NULL;
  }
  g_autoptr (GString) doubled = g_string_new (NULL);
  for (const char *c = text; *c; c++) {
    if (*c == '%')
      g_string_append_c (doubled, '%');
    g_string_append_c (doubled, *c);
  }
  return dts_quote_shell (doubled->str, what, into, error);
}
