/* sweep-select.c - `dtsim sweep --where COND --best max|min:COLUMN`: choose
 * among the points of a sweep.
 *
 * A condition is a column of results.csv compared with a value:
 *   COLUMN OP VALUE   OP one of >=, <=, >, <, ==, !=; VALUE a number, or
 *                     for == and != any text (compared as written);
 *   COLUMN            the column is true (the text "true" or a number
 *                     other than 0);
 *   !COLUMN           the column is false (the text "false" or 0).
 * COLUMN is a column's full name (memory.fits, breakdown.comm_exposed_s, an
 * axis key) or, when exactly one column's name ends with it after a dot,
 * that last part (fits, comm_exposed_s). A point meets the constraints when
 * it ran and every condition holds; a condition on an empty field (a value
 * the run does not report) does not hold. The objective ranks the points
 * that meet them; every point with the extreme value is best (ties are not
 * broken, so the choice never depends on the order of the points). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "cli/cli-private.h"
#include "core/error.h"

typedef struct {
  const char *text;
  DtsSweepOp op;
} OpName;

/* Longest first, so that ">=" is not read as ">". */
static const OpName ops[] = {
  { ">=", DTS_SWEEP_OP_GE }, { "<=", DTS_SWEEP_OP_LE }, { "==", DTS_SWEEP_OP_EQ },
  { "!=", DTS_SWEEP_OP_NE }, { ">", DTS_SWEEP_OP_GT },  { "<", DTS_SWEEP_OP_LT },
};

#define KNOWN_OPS ">=, <=, >, <, ==, != (or a bare COLUMN for true, !COLUMN for false)"

static void
cond_free (DtsSweepCond *c)
{
  g_free (c->text);
  g_free (c->name);
  g_free (c->column);
  g_free (c->value);
  g_free (c);
}

void
dts_sweep_select_free (DtsSweepSelect *sel)
{
  if (sel == NULL)
    return;
  g_clear_pointer (&sel->conds, g_ptr_array_unref);
  g_free (sel->best_text);
  g_free (sel->best_name);
  g_free (sel->best_column);
  g_free (sel);
}

static gboolean
is_op_char (char c)
{
  return c == '<' || c == '>' || c == '=' || c == '!';
}

/* A number written in full ("240", "1e-3", "-2"), as g_ascii_strtod reads it. */
static gboolean
parse_number (const char *text, double *v)
{
  char *end = NULL;
  if (*text == '\0')
    return FALSE;
  *v = g_ascii_strtod (text, &end);
  return end != text && *end == '\0' && isfinite (*v);
}

DtsSweepCond *
dts_sweep_cond_parse (const char *text, GError **error)
{
  g_return_val_if_fail (text != NULL, NULL);
  g_autofree char *s = g_strstrip (g_strdup (text));
  DtsSweepCond *c = g_new0 (DtsSweepCond, 1);
  c->text = g_strdup (s);
  const char *p = s;
  gboolean negated = *p == '!' && p[1] != '=';
  if (negated)
    p++;
  const char *start = p;
  while (*p && !is_op_char (*p))
    p++;
  g_autofree char *name = g_strstrip (g_strndup (start, p - start));
  if (*name == '\0') {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--where '%s': expected COLUMN OP VALUE, COLUMN or !COLUMN (OP: " KNOWN_OPS
                 ")", text);
    cond_free (c);
    return NULL;
  }
  c->name = g_steal_pointer (&name);
  if (*p == '\0') {
    c->op = negated ? DTS_SWEEP_OP_FALSE : DTS_SWEEP_OP_TRUE;
    return c;
  }
  const OpName *op = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (ops) && op == NULL; i++)
    if (g_str_has_prefix (p, ops[i].text))
      op = &ops[i];
  g_autofree char *rest = op ? g_strstrip (g_strdup (p + strlen (op->text))) : NULL;
  if (negated || op == NULL || *rest == '\0' || is_op_char (*rest)) {
    g_autofree char *why = NULL;
    if (negated)
      why = g_strdup ("'!' negates a bare column only");
    else if (op == NULL || is_op_char (*rest))
      why = g_strdup_printf ("bad operator '%.*s'", (int) strspn (p, "<>=!"), p);
    else
      why = g_strdup ("no value after the operator");
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--where '%s': %s (expected COLUMN OP VALUE with OP one of " KNOWN_OPS ")",
                 text, why);
    cond_free (c);
    return NULL;
  }
  c->op = op->op;
  c->value = g_steal_pointer (&rest);
  c->numeric = parse_number (c->value, &c->number);
  if (!c->numeric && c->op != DTS_SWEEP_OP_EQ && c->op != DTS_SWEEP_OP_NE) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--where '%s': '%s' is not a number (%s compares numbers; == and != also "
                 "compare text)", text, c->value, op->text);
    cond_free (c);
    return NULL;
  }
  return c;
}

void
dts_sweep_cond_free (DtsSweepCond *cond)
{
  if (cond != NULL)
    cond_free (cond);
}

DtsSweepSelect *
dts_sweep_select_new (char *const *where, const char *best, GError **error)
{
  g_autoptr (DtsSweepSelect) sel = g_new0 (DtsSweepSelect, 1);
  sel->conds = g_ptr_array_new_with_free_func ((GDestroyNotify) cond_free);
  for (char *const *w = where; w && *w; w++) {
    DtsSweepCond *c = dts_sweep_cond_parse (*w, error);
    if (c == NULL)
      return NULL;
    g_ptr_array_add (sel->conds, c);
  }
  if (best != NULL) {
    const char *colon = strchr (best, ':');
    gboolean max = g_str_has_prefix (best, "max:"), min = g_str_has_prefix (best, "min:");
    if ((!max && !min) || colon[1] == '\0') {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--best '%s': expected max:COLUMN or min:COLUMN "
                   "(max:throughput_samples_per_s, min:iteration_time_s)", best);
      return NULL;
    }
    sel->has_best = TRUE;
    sel->maximize = max;
    sel->best_text = g_strdup (best);
    sel->best_name = g_strdup (colon + 1);
  }
  return g_steal_pointer (&sel);
}

/* The column of HEADER that NAME names: itself, or the only one ending in
 * ".NAME"; NULL with ERROR set (DTS_ERROR_USAGE) naming the known ones. */
static char *
resolve_column (const char *option, const char *text, const char *name, char *const *header,
                GError **error)
{
  for (char *const *h = header; *h; h++)
    if (strcmp (*h, name) == 0)
      return g_strdup (*h);
  g_autofree char *suffix = g_strconcat (".", name, NULL);
  g_autoptr (GPtrArray) found = g_ptr_array_new ();
  for (char *const *h = header; *h; h++)
    if (g_str_has_suffix (*h, suffix))
      g_ptr_array_add (found, *h);
  if (found->len == 1)
    return g_strdup (g_ptr_array_index (found, 0));
  g_ptr_array_add (found, NULL);
  if (found->len > 2) {
    g_autofree char *list = g_strjoinv (", ", (char **) found->pdata);
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "%s '%s': column '%s' is ambiguous (it ends %s); give one in full", option,
                 text, name, list);
    return NULL;
  }
  g_autofree char *known = g_strjoinv (", ", (char **) header);
  g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
               "%s '%s': unknown column '%s' (known: %s; a name may also be the last part "
               "after a dot, as fits for memory.fits)", option, text, name, known);
  return NULL;
}

gboolean
dts_sweep_select_resolve (DtsSweepSelect *sel, char *const *header, GError **error)
{
  for (guint i = 0; i < sel->conds->len; i++) {
    DtsSweepCond *c = g_ptr_array_index (sel->conds, i);
    g_free (c->column);
    if ((c->column = resolve_column ("--where", c->text, c->name, header, error)) == NULL)
      return FALSE;
  }
  if (sel->has_best) {
    g_free (sel->best_column);
    if ((sel->best_column
         = resolve_column ("--best", sel->best_text, sel->best_name, header, error)) == NULL)
      return FALSE;
  }
  return TRUE;
}

/* Whether C holds for the field text V ("" when the run reports nothing). */
static gboolean
cond_holds (const DtsSweepCond *c, const char *v)
{
  double x = 0;
  gboolean number = parse_number (v, &x);
  switch (c->op) {
  case DTS_SWEEP_OP_TRUE:
    return strcmp (v, "true") == 0 || (number && x != 0);
  case DTS_SWEEP_OP_FALSE:
    return strcmp (v, "false") == 0 || (number && x == 0);
  case DTS_SWEEP_OP_EQ:
  case DTS_SWEEP_OP_NE: {
    gboolean eq = c->numeric && number ? x == c->number : strcmp (v, c->value) == 0;
    return *v != '\0' && (c->op == DTS_SWEEP_OP_EQ ? eq : !eq);
  }
  case DTS_SWEEP_OP_GE:
    return number && x >= c->number;
  case DTS_SWEEP_OP_LE:
    return number && x <= c->number;
  case DTS_SWEEP_OP_GT:
    return number && x > c->number;
  case DTS_SWEEP_OP_LT:
    return number && x < c->number;
  }
  g_return_val_if_reached (FALSE);
}

static const char *
field (char *const *header, char *const *row, const char *name)
{
  for (guint i = 0; header[i] && row[i]; i++)
    if (strcmp (header[i], name) == 0)
      return row[i];
  return "";
}

GArray *
dts_sweep_select_apply (const DtsSweepSelect *sel, const GPtrArray *table,
                        const gboolean *ran)
{
  char *const *header = g_ptr_array_index (table, 0);
  GArray *out = g_array_sized_new (FALSE, TRUE, sizeof (DtsSweepVerdict), table->len - 1);
  double extreme = sel->maximize ? -INFINITY : INFINITY;
  for (guint r = 1; r < table->len; r++) {
    char *const *row = g_ptr_array_index (table, r);
    DtsSweepVerdict v = { .kind = DTS_SWEEP_VERDICT_MEETS, .broken = -1 };
    if (!ran[r - 1])
      v.kind = DTS_SWEEP_VERDICT_DID_NOT_RUN;
    for (guint i = 0; i < sel->conds->len && v.kind == DTS_SWEEP_VERDICT_MEETS; i++) {
      const DtsSweepCond *c = g_ptr_array_index (sel->conds, i);
      if (!cond_holds (c, field (header, row, c->column))) {
        v.kind = DTS_SWEEP_VERDICT_BROKE;
        v.broken = (int) i;
      }
    }
    if (v.kind == DTS_SWEEP_VERDICT_MEETS && sel->has_best) {
      /* A point without a number to rank cannot be the best. */
      if (!parse_number (field (header, row, sel->best_column), &v.objective))
        v.kind = DTS_SWEEP_VERDICT_NO_OBJECTIVE;
      else if (sel->maximize ? v.objective > extreme : v.objective < extreme)
        extreme = v.objective;
    }
    g_array_append_val (out, v);
  }
  for (guint i = 0; i < out->len && sel->has_best; i++) {
    DtsSweepVerdict *v = &g_array_index (out, DtsSweepVerdict, i);
    if (v->kind == DTS_SWEEP_VERDICT_MEETS)
      v->kind = v->objective == extreme ? DTS_SWEEP_VERDICT_BEST : DTS_SWEEP_VERDICT_WORSE;
  }
  return out;
}

char *
dts_sweep_verdict_text (const DtsSweepSelect *sel, const DtsSweepVerdict *v)
{
  switch (v->kind) {
  case DTS_SWEEP_VERDICT_MEETS:
    return g_strdup ("meets the constraints");
  case DTS_SWEEP_VERDICT_BEST:
    return g_strdup ("best");
  case DTS_SWEEP_VERDICT_WORSE:
    return g_strdup_printf ("%s than best", sel->maximize ? "lower" : "higher");
  case DTS_SWEEP_VERDICT_BROKE:
    return g_strdup_printf (
        "broke %s", ((DtsSweepCond *) g_ptr_array_index (sel->conds, v->broken))->text);
  case DTS_SWEEP_VERDICT_NO_OBJECTIVE:
    return g_strdup_printf ("no value of %s", sel->best_column);
  case DTS_SWEEP_VERDICT_DID_NOT_RUN:
    return g_strdup ("did not run");
  }
  g_return_val_if_reached (NULL);
}
