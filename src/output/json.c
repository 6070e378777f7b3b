/* json.c - streaming JSON writer (see json.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/json.h"

struct _DtsJson {
  GString *out;
  GArray *first; /* per nesting level: is the next element the first? */
  gboolean after_key;
};

DtsJson *
dts_json_new (void)
{
  DtsJson *j = g_new0 (DtsJson, 1);
  j->out = g_string_new (NULL);
  j->first = g_array_new (FALSE, FALSE, sizeof (gboolean));
  return j;
}

void
dts_json_free (DtsJson *j)
{
  if (j == NULL)
    return;
  g_string_free (j->out, TRUE);
  g_array_free (j->first, TRUE);
  g_free (j);
}

static void
indent (DtsJson *j)
{
  g_string_append_c (j->out, '\n');
  for (guint i = 0; i < j->first->len; i++)
    g_string_append (j->out, "  ");
}

/* Comma and indentation before a value (or a key). */
static void
before_value (DtsJson *j)
{
  if (j->after_key) {
    j->after_key = FALSE;
    return;
  }
  if (j->first->len == 0)
    return;
  gboolean *first = &g_array_index (j->first, gboolean, j->first->len - 1);
  if (!*first)
    g_string_append_c (j->out, ',');
  *first = FALSE;
  indent (j);
}

static void
push (DtsJson *j, char c)
{
  before_value (j);
  g_string_append_c (j->out, c);
  gboolean t = TRUE;
  g_array_append_val (j->first, t);
}

static void
pop (DtsJson *j, char c)
{
  g_return_if_fail (j->first->len > 0);
  gboolean was_empty = g_array_index (j->first, gboolean, j->first->len - 1);
  g_array_set_size (j->first, j->first->len - 1);
  if (!was_empty)
    indent (j);
  g_string_append_c (j->out, c);
  if (j->first->len == 0)
    g_string_append_c (j->out, '\n');
}

void
dts_json_begin_object (DtsJson *j)
{
  push (j, '{');
}

void
dts_json_end_object (DtsJson *j)
{
  pop (j, '}');
}

void
dts_json_begin_array (DtsJson *j)
{
  push (j, '[');
}

void
dts_json_end_array (DtsJson *j)
{
  pop (j, ']');
}

static void
append_escaped (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
    switch (*p) {
    case '"':
      g_string_append (out, "\\\"");
      break;
    case '\\':
      g_string_append (out, "\\\\");
      break;
    case '\n':
      g_string_append (out, "\\n");
      break;
    case '\t':
      g_string_append (out, "\\t");
      break;
    case '\r':
      g_string_append (out, "\\r");
      break;
    default:
      if (*p < 0x20)
        g_string_append_printf (out, "\\u%04x", *p);
      else
        g_string_append_c (out, (char) *p);
    }
  }
  g_string_append_c (out, '"');
}

void
dts_json_key (DtsJson *j, const char *key)
{
  before_value (j);
  append_escaped (j->out, key);
  g_string_append (j->out, ": ");
  j->after_key = TRUE;
}

void
dts_json_string (DtsJson *j, const char *s)
{
  before_value (j);
  if (s == NULL)
    g_string_append (j->out, "null");
  else
    append_escaped (j->out, s);
}

void
dts_json_append_csv_double (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  dts_json_format_double (buf, sizeof buf, v);
  g_string_append (out, strcmp (buf, "null") == 0 ? "" : buf);
}

void
dts_json_format_double (char *buf, gsize len, double v)
{
  if (!isfinite (v)) {
    g_strlcpy (buf, "null", len);
    return;
  }
  if (v == 0.0) {
    g_strlcpy (buf, "0", len);
    return;
  }
  /* The shortest of %.6g .. %.17g that reads back as V costs up to twelve
   * formattings and parses; reports repeat values (a per-rank table of
   * identical ranks), so the last ones are remembered by their bits, in
   * sets of two: values of one row that hash alike (two of a rank's seven
   * did, at 16,384 ranks) would otherwise evict each other on every row. */
  static struct {
    guint64 bits;
    char text[G_ASCII_DTOSTR_BUF_SIZE];
  } memo[256][2];
  guint64 bits;
  memcpy (&bits, &v, sizeof bits);
  guint slot = (guint) ((bits * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 56);
  gboolean memoize = len >= sizeof memo[slot][0].text;
  for (int way = 0; memoize && way < 2; way++)
    if (memo[slot][way].bits == bits && memo[slot][way].text[0] != '\0') {
      g_strlcpy (buf, memo[slot][way].text, len);
      return;
    }
  for (int prec = 6; prec <= 17; prec++) {
    char fmt[8];
    g_snprintf (fmt, sizeof fmt, "%%.%dg", prec);
    g_ascii_formatd (buf, len, fmt, v);
    if (g_ascii_strtod (buf, NULL) == v)
      break;
  }
  if (memoize) {
    /* the newest in way 0, the one it displaces in way 1 */
    memo[slot][1] = memo[slot][0];
    memo[slot][0].bits = bits;
    g_strlcpy (memo[slot][0].text, buf, sizeof memo[slot][0].text);
  }
}

void
dts_json_double (DtsJson *j, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  before_value (j);
  dts_json_format_double (buf, sizeof buf, v);
  g_string_append (j->out, buf);
}

void
dts_json_int (DtsJson *j, gint64 v)
{
  before_value (j);
  g_string_append_printf (j->out, "%" G_GINT64_FORMAT, v);
}

void
dts_json_uint (DtsJson *j, guint64 v)
{
  before_value (j);
  g_string_append_printf (j->out, "%" G_GUINT64_FORMAT, v);
}

void
dts_json_bool (DtsJson *j, gboolean v)
{
  before_value (j);
  g_string_append (j->out, v ? "true" : "false");
}

void
dts_json_null (DtsJson *j)
{
  before_value (j);
  g_string_append (j->out, "null");
}

void
dts_json_kv_string (DtsJson *j, const char *key, const char *s)
{
  dts_json_key (j, key);
  dts_json_string (j, s);
}

void
dts_json_kv_double (DtsJson *j, const char *key, double v)
{
  dts_json_key (j, key);
  dts_json_double (j, v);
}

void
dts_json_kv_int (DtsJson *j, const char *key, gint64 v)
{
  dts_json_key (j, key);
  dts_json_int (j, v);
}

void
dts_json_kv_uint (DtsJson *j, const char *key, guint64 v)
{
  dts_json_key (j, key);
  dts_json_uint (j, v);
}

void
dts_json_kv_bool (DtsJson *j, const char *key, gboolean v)
{
  dts_json_key (j, key);
  dts_json_bool (j, v);
}

const char *
dts_json_get (const DtsJson *j)
{
  return j->out->str;
}
