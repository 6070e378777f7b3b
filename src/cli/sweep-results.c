/* sweep-results.c - read the points' run JSON, write results.csv and .jsonl.
 *
 * The JSON reader is the small subset that `dtsim run --format json`
 * writes (doc/DESIGN.md, output contract): objects, arrays, strings,
 * numbers, true, false, null. Numbers are kept as the text the run wrote
 * (its shortest round-trip form), never reformatted, so that the same
 * results give byte-identical CSV whatever order the points finished in.
 * Derived columns (doc/SWEEP.md, "Columns"):
 *   ideal_speedup = n_gpus / n_gpus(first)
 *   speedup       = throughput / throughput(first)
 *   efficiency    = speedup / ideal_speedup
 * against the first point of the series that ran (weak scaling with a fixed
 * batch per GPU: efficiency 1 is perfect), only in a series that scales: an
 * axis that sets the GPU count (gpus, nodes, mesh) changes within it and so
 * does n_gpus. Elsewhere a ratio of throughputs at one GPU count is no
 * speed-up, and the three are empty.
 *   comm_wait_s   = per iteration, the time a GPU's compute waits for
 *                   communication: breakdown.comm_exposed_s, or for the
 *                   workers of async-ps and sync-ps (which run no
 *                   collective) the mean of parameter_servers.
 *                   worker_wait_fraction x iteration_time_s. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli-private.h"
#include "core/error.h"
#include "core/units.h"

typedef enum { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } JKind;

typedef struct JValue JValue;
struct JValue {
  JKind kind;
  char *text;        /* J_BOOL, J_NUMBER: as written; J_STRING: decoded */
  char *raw;         /* J_STRING: as written, with its quotes */
  GPtrArray *keys;   /* J_OBJECT: char * */
  GPtrArray *items;  /* J_OBJECT, J_ARRAY: JValue * */
};

static void
jvalue_free (JValue *v)
{
  if (v == NULL)
    return;
  g_free (v->text);
  g_free (v->raw);
  if (v->keys)
    g_ptr_array_unref (v->keys);
  if (v->items)
    g_ptr_array_unref (v->items);
  g_free (v);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (JValue, jvalue_free)

struct _DtsSweepResult {
  JValue *root;
};

typedef struct {
  const char *p;
  const char *start;
  int depth;
} Reader;

static void
skip_ws (Reader *r)
{
  while (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r')
    r->p++;
}

static gboolean
fail (Reader *r, GError **error, const char *what)
{
  int line = 1;
  for (const char *c = r->start; c < r->p; c++)
    line += *c == '\n';
  g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "line %d: %s", line,
               *r->p ? what : "unexpected end (a run cut short?)");
  return FALSE;
}

static JValue *read_value (Reader *r, GError **error);

static gboolean
read_string (Reader *r, char **decoded, char **raw, GError **error)
{
  const char *begin = r->p;
  g_autoptr (GString) s = g_string_new (NULL);
  r->p++;
  while (*r->p != '"') {
    if (*r->p == '\0' || (guchar) *r->p < 0x20)
      return fail (r, error, "unterminated string");
    if (*r->p == '\\') {
      r->p++;
      static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
      const char *e = *r->p ? strchr (from, *r->p) : NULL;
      if (e != NULL)
        g_string_append_c (s, to[e - from]);
      else if (*r->p == 'u' && g_ascii_isxdigit (r->p[1]) && g_ascii_isxdigit (r->p[2])
               && g_ascii_isxdigit (r->p[3]) && g_ascii_isxdigit (r->p[4])) {
        char hex[5] = { r->p[1], r->p[2], r->p[3], r->p[4], 0 };
        g_string_append_unichar (s, (gunichar) strtoul (hex, NULL, 16));
        r->p += 4;
      } else
        return fail (r, error, "bad escape in a string");
      r->p++;
      continue;
    }
    g_string_append_c (s, *r->p++);
  }
  r->p++;
  *decoded = g_string_free (g_steal_pointer (&s), FALSE);
  if (raw != NULL)
    *raw = g_strndup (begin, r->p - begin);
  return TRUE;
}

static JValue *
read_container (Reader *r, gboolean object, GError **error)
{
  g_autoptr (JValue) v = g_new0 (JValue, 1);
  v->kind = object ? J_OBJECT : J_ARRAY;
  v->items = g_ptr_array_new_with_free_func ((GDestroyNotify) jvalue_free);
  if (object)
    v->keys = g_ptr_array_new_with_free_func (g_free);
  if (++r->depth > 32) {
    fail (r, error, "nested too deep");
    return NULL;
  }
  r->p++;
  skip_ws (r);
  char close = object ? '}' : ']';
  if (*r->p == close) {
    r->p++;
    r->depth--;
    return g_steal_pointer (&v);
  }
  for (;;) {
    skip_ws (r);
    if (object) {
      char *key = NULL;
      if (*r->p != '"') {
        fail (r, error, "expected a key");
        return NULL;
      }
      if (!read_string (r, &key, NULL, error))
        return NULL;
      g_ptr_array_add (v->keys, key);
      skip_ws (r);
      if (*r->p != ':') {
        fail (r, error, "expected ':'");
        return NULL;
      }
      r->p++;
    }
    JValue *item = read_value (r, error);
    if (item == NULL)
      return NULL;
    g_ptr_array_add (v->items, item);
    skip_ws (r);
    if (*r->p == ',') {
      r->p++;
      continue;
    }
    if (*r->p == close) {
      r->p++;
      r->depth--;
      return g_steal_pointer (&v);
    }
    fail (r, error, object ? "expected ',' or '}'" : "expected ',' or ']'");
    return NULL;
  }
}

static JValue *
read_value (Reader *r, GError **error)
{
  skip_ws (r);
  if (*r->p == '{' || *r->p == '[')
    return read_container (r, *r->p == '{', error);
  g_autoptr (JValue) v = g_new0 (JValue, 1);
  if (*r->p == '"') {
    v->kind = J_STRING;
    if (!read_string (r, &v->text, &v->raw, error))
      return NULL;
    return g_steal_pointer (&v);
  }
  static const struct {
    const char *word;
    JKind kind;
  } words[] = { { "true", J_BOOL }, { "false", J_BOOL }, { "null", J_NULL } };
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (g_str_has_prefix (r->p, words[i].word)) {
      v->kind = words[i].kind;
      v->text = g_strdup (words[i].word);
      r->p += strlen (words[i].word);
      return g_steal_pointer (&v);
    }
  char *end = NULL;
  dts_units_strtod (r->p, &end); /* decimal only, as every dtsim input */
  if (end == r->p || !(g_ascii_isdigit (*r->p) || *r->p == '-')) {
    fail (r, error, "expected a value");
    return NULL;
  }
  v->kind = J_NUMBER;
  v->text = g_strndup (r->p, end - r->p);
  r->p = end;
  return g_steal_pointer (&v);
}

static const JValue *
member (const JValue *obj, const char *key)
{
  if (obj == NULL || obj->kind != J_OBJECT)
    return NULL;
  for (guint i = 0; i < obj->keys->len; i++)
    if (strcmp (g_ptr_array_index (obj->keys, i), key) == 0)
      return g_ptr_array_index (obj->items, i);
  return NULL;
}

DtsSweepResult *
dts_sweep_result_parse (const char *text, GError **error)
{
  Reader r = { text, text, 0 };
  skip_ws (&r);
  if (*r.p != '{') {
    fail (&r, error, "expected a JSON object");
    return NULL;
  }
  g_autoptr (JValue) root = read_value (&r, error);
  if (root == NULL)
    return NULL;
  skip_ws (&r);
  if (*r.p != '\0') {
    fail (&r, error, "text after the object");
    return NULL;
  }
  static const char *const required[] = { "n_gpus", "iteration_time_s",
                                          "throughput_samples_per_s" };
  for (guint i = 0; i < G_N_ELEMENTS (required); i++) {
    const JValue *v = member (root, required[i]);
    if (v == NULL || v->kind != J_NUMBER) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "no number '%s' (not a dtsim run result)",
                   required[i]);
      return NULL;
    }
    /* Every run has at least one GPU and reports finite numbers: another
     * value would make the derived columns infinite. */
    double x = g_ascii_strtod (v->text, NULL);
    if (!isfinite (x) || x < 0 || (i == 0 && (x < 1 || x != floor (x)))) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "'%s' is %s (%s)", required[i], v->text,
                   i == 0 ? "expected an integer from 1" : "expected a finite number from 0");
      return NULL;
    }
  }
  DtsSweepResult *res = g_new0 (DtsSweepResult, 1);
  res->root = g_steal_pointer (&root);
  return res;
}

void
dts_sweep_result_free (DtsSweepResult *result)
{
  if (result == NULL)
    return;
  jvalue_free (result->root);
  g_free (result);
}

const char *
dts_sweep_result_wall_time (const DtsSweepResult *result)
{
  const JValue *v = member (member (result->root, "simulation"), "wall_time_s");
  return v && v->kind == J_NUMBER ? v->text : NULL;
}

const char *
dts_sweep_result_field (const DtsSweepResult *result, const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, ".", -1);
  const JValue *v = result->root;
  for (guint i = 0; parts[i] && v; i++)
    v = member (v, parts[i]);
  return v && (v->kind == J_NUMBER || v->kind == J_BOOL) ? v->text : NULL;
}

void
dts_sweep_row_free (DtsSweepRow *row)
{
  if (row == NULL)
    return;
  g_strfreev (row->values);
  g_free (row->series_label);
  g_free (row->file);
  g_free (row->reason);
  g_free (row->verdict);
  dts_sweep_result_free (row->result);
  g_free (row);
}

/* Nondeterministic fields, kept out of results.csv and results.jsonl. */
static gboolean
is_wall_time (const char *path)
{
  return strcmp (path, "simulation.wall_time_s") == 0;
}

/* Flatten V under PATH into COLUMNS (names, in order) and VALUES (name -> text). */
static void
flatten (const JValue *v, const char *path, GPtrArray *columns, GHashTable *values)
{
  if (v->kind == J_OBJECT) {
    for (guint i = 0; i < v->keys->len; i++) {
      const char *k = g_ptr_array_index (v->keys, i);
      g_autofree char *sub = *path ? g_strconcat (path, ".", k, NULL) : g_strdup (k);
      flatten (g_ptr_array_index (v->items, i), sub, columns, values);
    }
    return;
  }
  if (is_wall_time (path))
    return;
  g_autoptr (GString) text = g_string_new (NULL);
  if (v->kind == J_ARRAY) {
    for (guint i = 0; i < v->items->len; i++) {
      const JValue *it = g_ptr_array_index (v->items, i);
      if (it->kind == J_OBJECT || it->kind == J_ARRAY)
        return;
      g_string_append_printf (text, "%s%s", i ? ";" : "", it->text);
    }
  } else if (v->kind != J_NULL)
    g_string_append (text, v->text);
  if (!g_hash_table_contains (values, path))
    g_ptr_array_add (columns, g_strdup (path));
  g_hash_table_replace (values, g_strdup (path), g_string_free (g_steal_pointer (&text), FALSE));
}

void
dts_csv_append_field (GString *out, const char *text)
{
  if (strpbrk (text, ",\"\n\r") == NULL && text[0] != ' '
      && (text[0] == '\0' || text[strlen (text) - 1] != ' ')) {
    g_string_append (out, text);
    return;
  }
  g_string_append_c (out, '"');
  for (const char *c = text; *c; c++) {
    if (*c == '"')
      g_string_append_c (out, '"');
    g_string_append_c (out, *c);
  }
  g_string_append_c (out, '"');
}

static double
number (const DtsSweepResult *r, const char *key)
{
  return g_ascii_strtod (member (r->root, key)->text, NULL);
}

typedef struct {
  double ideal, speedup, efficiency, wait;
} Derived;

/* comm_wait_s of result R (the file header). */
static double
comm_wait (const DtsSweepResult *r)
{
  const JValue *ps = member (r->root, "parameter_servers");
  const JValue *fw = member (ps, "worker_wait_fraction");
  if (fw != NULL && fw->kind == J_ARRAY) {
    double sum = 0;
    guint n = 0;
    for (guint i = 0; i < fw->items->len; i++) {
      const JValue *v = g_ptr_array_index (fw->items, i);
      if (v->kind == J_NUMBER) {
        sum += g_ascii_strtod (v->text, NULL);
        n++;
      }
    }
    return n > 0 ? sum / n * number (r, "iteration_time_s") : NAN;
  }
  const JValue *exposed = member (member (r->root, "breakdown"), "comm_exposed_s");
  return exposed != NULL && exposed->kind == J_NUMBER ? g_ascii_strtod (exposed->text, NULL)
                                                      : NAN;
}

/* Whether the series of the row at index I scales: an axis of AXES that sets
 * the GPU count takes more than one value in it, and so does n_gpus among the
 * rows that ran. */
static gboolean
series_scales (char *const *axes, const GPtrArray *rows, guint i)
{
  const DtsSweepRow *row = g_ptr_array_index (rows, i);
  gboolean axis_varies = FALSE, gpus_vary = FALSE;
  const char *gpus = NULL;
  for (guint j = 0; j < rows->len; j++) {
    const DtsSweepRow *other = g_ptr_array_index (rows, j);
    if (other->series != row->series)
      continue;
    for (guint a = 0; axes[a] && other->values[a]; a++)
      if (dts_sweep_axis_key_counts_gpus (axes[a]) && strcmp (other->values[a], row->values[a]))
        axis_varies = TRUE;
    if (other->result != NULL) {
      const JValue *n = member (other->result->root, "n_gpus");
      if (n != NULL && gpus != NULL && strcmp (n->text, gpus) != 0)
        gpus_vary = TRUE;
      if (n != NULL)
        gpus = n->text;
    }
  }
  return axis_varies && gpus_vary;
}

/* Derived values of every row against the first row of its series that
 * ran (NaN for a row that did not, and where undefined). */
static GArray *
derive (char *const *axes, const GPtrArray *rows)
{
  GArray *out = g_array_sized_new (FALSE, TRUE, sizeof (Derived), rows->len);
  g_autoptr (GHashTable) first = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) scales = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < rows->len; i++) {
    const DtsSweepRow *row = g_ptr_array_index (rows, i);
    gpointer key = GUINT_TO_POINTER (row->series + 1);
    if (!g_hash_table_contains (scales, key))
      g_hash_table_insert (scales, key, GINT_TO_POINTER (series_scales (axes, rows, i)));
    Derived d = { NAN, NAN, NAN, NAN };
    if (row->result == NULL) {
      g_array_append_val (out, d);
      continue;
    }
    if (!g_hash_table_contains (first, key))
      g_hash_table_insert (first, key, (gpointer) row);
    const DtsSweepRow *f = g_hash_table_lookup (first, key);
    if (GPOINTER_TO_INT (g_hash_table_lookup (scales, key))) {
      d.ideal = number (row->result, "n_gpus") / number (f->result, "n_gpus");
      d.speedup = number (row->result, "throughput_samples_per_s")
                  / number (f->result, "throughput_samples_per_s");
      d.efficiency = d.speedup / d.ideal;
    }
    d.wait = comm_wait (row->result);
    g_array_append_val (out, d);
  }
  return out;
}

/* V, or NOT_FINITE when it is infinite or NaN (JSON has neither: a ratio
 * to a first point whose throughput is 0 is written as null). */
static void
append_number (GString *out, double v, const char *not_finite)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append (out, isfinite (v) ? g_ascii_formatd (buf, sizeof buf, "%.9g", v)
                                     : not_finite);
}

void
dts_sweep_write_csv (char *const *axes, const GPtrArray *rows, GString *csv)
{
  g_autoptr (GPtrArray) columns = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) per_row = g_ptr_array_new_with_free_func (
      (GDestroyNotify) g_hash_table_unref);
  for (guint i = 0; i < rows->len; i++) {
    const DtsSweepRow *row = g_ptr_array_index (rows, i);
    GHashTable *values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
    g_autoptr (GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
    if (row->result != NULL)
      flatten (row->result->root, "", seen, values);
    for (guint k = 0; k < seen->len; k++) {
      gboolean have = FALSE;
      for (guint c = 0; c < columns->len && !have; c++)
        have = strcmp (g_ptr_array_index (columns, c), g_ptr_array_index (seen, k)) == 0;
      if (!have)
        g_ptr_array_add (columns, g_strdup (g_ptr_array_index (seen, k)));
    }
    g_ptr_array_add (per_row, values);
  }
  g_autoptr (GArray) derived = derive (axes, rows);
  gboolean status = FALSE, verdicts = FALSE;
  for (guint i = 0; i < rows->len; i++) {
    const DtsSweepRow *row = g_ptr_array_index (rows, i);
    status = status || row->result == NULL;
    verdicts = verdicts || row->verdict != NULL;
  }

  g_string_append (csv, "point,series");
  for (char *const *a = axes; *a; a++) {
    g_string_append_c (csv, ',');
    dts_csv_append_field (csv, *a);
  }
  for (guint c = 0; c < columns->len; c++) {
    const char *name = g_ptr_array_index (columns, c);
    g_string_append_c (csv, ',');
    /* An axis named like a field of the run (workload, platform) keeps its
     * name; the run's field, which may differ (a path and its name), is
     * then run.NAME, so that no two columns share a name. */
    gboolean clash = FALSE;
    for (char *const *a = axes; *a && !clash; a++)
      clash = strcmp (*a, name) == 0;
    if (clash)
      g_string_append (csv, "run.");
    dts_csv_append_field (csv, name);
  }
  g_string_append_printf (csv, ",ideal_speedup,speedup,efficiency,comm_wait_s%s%s\n",
                          status ? ",status,reason" : "",
                          verdicts ? ",meets_constraints,verdict" : "");
  for (guint i = 0; i < rows->len; i++) {
    const DtsSweepRow *row = g_ptr_array_index (rows, i);
    GHashTable *values = g_ptr_array_index (per_row, i);
    g_string_append_printf (csv, "%u,", i + 1);
    dts_csv_append_field (csv, row->series_label);
    for (char **v = row->values; *v; v++) {
      g_string_append_c (csv, ',');
      dts_csv_append_field (csv, *v);
    }
    for (guint c = 0; c < columns->len; c++) {
      const char *v = g_hash_table_lookup (values, g_ptr_array_index (columns, c));
      g_string_append_c (csv, ',');
      dts_csv_append_field (csv, v ? v : "");
    }
    const Derived *d = &g_array_index (derived, Derived, i);
    g_string_append_c (csv, ',');
    append_number (csv, d->ideal, "");
    g_string_append_c (csv, ',');
    append_number (csv, d->speedup, "");
    g_string_append_c (csv, ',');
    append_number (csv, d->efficiency, "");
    g_string_append_c (csv, ',');
    append_number (csv, d->wait, "");
    if (status) {
      g_string_append_printf (csv, ",%s,", row->status ? row->status : "ok");
      dts_csv_append_field (csv, row->reason ? row->reason : "");
    }
    if (verdicts) {
      g_string_append_printf (csv, ",%s,", row->meets ? "true" : "false");
      dts_csv_append_field (csv, row->verdict ? row->verdict : "");
    }
    g_string_append_c (csv, '\n');
  }
}

static void
append_json_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const guchar *c = (const guchar *) s; *c; c++) {
    if (*c == '"' || *c == '\\')
      g_string_append_printf (out, "\\%c", *c);
    else if (*c < 0x20)
      g_string_append_printf (out, "\\u%04x", *c);
    else
      g_string_append_c (out, (char) *c);
  }
  g_string_append_c (out, '"');
}

/* V without whitespace, without the wall time. */
static void
write_compact (const JValue *v, const char *path, GString *out)
{
  switch (v->kind) {
  case J_OBJECT: {
    g_string_append_c (out, '{');
    gboolean first = TRUE;
    for (guint i = 0; i < v->keys->len; i++) {
      const char *k = g_ptr_array_index (v->keys, i);
      g_autofree char *sub = *path ? g_strconcat (path, ".", k, NULL) : g_strdup (k);
      if (is_wall_time (sub))
        continue;
      if (!first)
        g_string_append_c (out, ',');
      first = FALSE;
      append_json_string (out, k);
      g_string_append_c (out, ':');
      write_compact (g_ptr_array_index (v->items, i), sub, out);
    }
    g_string_append_c (out, '}');
    break;
  }
  case J_ARRAY:
    g_string_append_c (out, '[');
    for (guint i = 0; i < v->items->len; i++) {
      if (i)
        g_string_append_c (out, ',');
      write_compact (g_ptr_array_index (v->items, i), path, out);
    }
    g_string_append_c (out, ']');
    break;
  case J_STRING:
    g_string_append (out, v->raw);
    break;
  case J_NULL:
  case J_BOOL:
  case J_NUMBER:
    g_string_append (out, v->text);
    break;
  }
}

void
dts_sweep_write_jsonl (char *const *axes, const GPtrArray *rows, GString *jsonl)
{
  g_autoptr (GArray) derived = derive (axes, rows);
  gboolean status = FALSE, verdicts = FALSE;
  for (guint i = 0; i < rows->len; i++) {
    const DtsSweepRow *row = g_ptr_array_index (rows, i);
    status = status || row->result == NULL;
    verdicts = verdicts || row->verdict != NULL;
  }
  for (guint i = 0; i < rows->len; i++) {
    const DtsSweepRow *row = g_ptr_array_index (rows, i);
    const Derived *d = &g_array_index (derived, Derived, i);
    g_string_append_printf (jsonl, "{\"point\":%u,\"series\":", i + 1);
    append_json_string (jsonl, row->series_label);
    g_string_append (jsonl, ",\"axes\":{");
    for (guint a = 0; axes[a]; a++) {
      if (a)
        g_string_append_c (jsonl, ',');
      append_json_string (jsonl, axes[a]);
      g_string_append_c (jsonl, ':');
      append_json_string (jsonl, row->values[a]);
    }
    g_string_append (jsonl, "},\"ideal_speedup\":");
    append_number (jsonl, d->ideal, "null");
    g_string_append (jsonl, ",\"speedup\":");
    append_number (jsonl, d->speedup, "null");
    g_string_append (jsonl, ",\"efficiency\":");
    append_number (jsonl, d->efficiency, "null");
    g_string_append (jsonl, ",\"comm_wait_s\":");
    append_number (jsonl, d->wait, "null");
    if (status) {
      g_string_append_printf (jsonl, ",\"status\":\"%s\",\"reason\":",
                              row->status ? row->status : "ok");
      if (row->reason)
        append_json_string (jsonl, row->reason);
      else
        g_string_append (jsonl, "null");
    }
    if (verdicts) {
      g_string_append_printf (jsonl, ",\"meets_constraints\":%s,\"verdict\":",
                              row->meets ? "true" : "false");
      append_json_string (jsonl, row->verdict ? row->verdict : "");
    }
    g_string_append (jsonl, ",\"run\":");
    if (row->result)
      write_compact (row->result->root, "", jsonl);
    else
      g_string_append (jsonl, "null");
    g_string_append (jsonl, "}\n");
  }
}

GPtrArray *
dts_csv_parse (const char *text, GError **error)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  const char *p = text;
  int line = 1;
  while (*p) {
    g_autoptr (GPtrArray) fields = g_ptr_array_new_with_free_func (g_free);
    for (;;) {
      g_autoptr (GString) f = g_string_new (NULL);
      if (*p == '"') {
        int start = line;
        p++;
        for (;;) {
          if (*p == '\0') {
            g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                         "line %d: quoted field never closed", start);
            return NULL;
          }
          if (*p == '"' && p[1] == '"') {
            g_string_append_c (f, '"');
            p += 2;
          } else if (*p == '"') {
            p++;
            break;
          } else {
            line += *p == '\n';
            g_string_append_c (f, *p++);
          }
        }
      }
      while (*p && *p != ',' && *p != '\n' && *p != '\r')
        g_string_append_c (f, *p++);
      g_ptr_array_add (fields, g_string_free (g_steal_pointer (&f), FALSE));
      if (*p == ',') {
        p++;
        continue;
      }
      if (*p == '\r')
        p++;
      if (*p == '\n') {
        p++;
        line++;
      }
      break;
    }
    g_ptr_array_add (fields, NULL);
    g_ptr_array_add (rows, g_ptr_array_free (g_steal_pointer (&fields), FALSE));
  }
  return g_steal_pointer (&rows);
}
