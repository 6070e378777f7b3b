/* sweep-axis.c - the axes of `dtsim sweep --vary` and the points they span.
 *
 * An axis is `KEY=VALUES`:
 *   KEY     a long option of `dtsim run` (gpus, batch-size, workload, platform,
 *           collective, bucket-size, no-overlap, ...), `nodes` (the first N
 *           nodes of the point's platform, as --gpus), `mesh` (TPxPPxDP or
 *           TPxPPxDPxCP splits run as --strategy hybrid; `auto`, replaced by
 *           cmd-sweep.c with the splits of the GPUs that
 *           dts_sweep_mesh_enumerate keeps: every T*P*D*C = GPUs with T
 *           dividing the GPUs of a node, Megatron's rule that tensor
 *           parallelism stays inside a node, C > 1 only for a workload whose
 *           attention splits its sequence into 2C chunks, and with a global
 *           batch D x micro-batch size dividing it), or a what-if target:
 *           `link:GLOB.FIELD`, `host:GLOB.FIELD`, `gpu:GLOB.FIELD` or
 *           `set:TARGET` for `run --set TARGET=V`, `scale:TARGET` for
 *           `run --scale TARGET=V` (network.bandwidth, gpu.flops, link:...);
 *   VALUES  comma-separated items, each a literal or a range: `A:B:xF`
 *           (A, A*F, A*F^2, ... up to B) or `A:B:+S` (A, A+S, ... up to B);
 *           A and B may carry the same unit suffix (1MB:64MB:x2).
 * The points are the Cartesian product of the axes with the first axis
 * varying fastest, so that the points of one series (one value of every
 * other axis) are consecutive; with --zip the axes have the same length and
 * point i takes value i of every axis (one series). Values are checked here
 * as far as the option tables allow (what-if values fully, through
 * platform/override.h); the run itself checks the rest. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "cli/cli-private.h"
#include "core/error.h"
#include "core/quote.h"
#include "core/units.h"
#include "platform/override.h"
#include "schedule/schedule.h"

#define MAX_VALUES 10000
#define MAX_POINTS 100000

void
dts_sweep_axis_free (DtsSweepAxis *axis)
{
  if (axis == NULL)
    return;
  g_free (axis->key);
  g_free (axis->target);
  g_strfreev (axis->values);
  g_free (axis);
}

/* "32" -> 32 and "", "1MB" -> 1 and "MB". */
static gboolean
split_number (const char *s, double *v, const char **unit)
{
  char *end = NULL;
  *v = dts_units_strtod (s, &end);
  if (end == s || !isfinite (*v))
    return FALSE;
  *unit = end;
  for (const char *u = end; *u; u++)
    if (!g_ascii_isalpha (*u) && *u != '/')
      return FALSE;
  return TRUE;
}

static char *
format_value (double v, const char *unit)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (buf, sizeof buf, "%.10g", v);
  return g_strconcat (buf, unit, NULL);
}

/* Expand one item; a range has exactly two ':' and a step starting x or +. */
static gboolean
expand_item (const char *item, GPtrArray *out, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (item, ":", -1);
  if (g_strv_length (parts) != 3 || (parts[2][0] != 'x' && parts[2][0] != '+')) {
    if (*item == '\0') {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "empty value");
      return FALSE;
    }
    g_ptr_array_add (out, g_strdup (item));
    return TRUE;
  }
  double a, b, step;
  const char *ua, *ub, *us;
  gboolean geometric = parts[2][0] == 'x';
  if (!split_number (parts[0], &a, &ua) || !split_number (parts[1], &b, &ub)
      || !split_number (parts[2] + 1, &step, &us) || *us != '\0' || strcmp (ua, ub) != 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "range '%s': expected FROM:TO:xFACTOR or FROM:TO:+STEP with numbers "
                 "(FROM and TO with the same unit)", item);
    return FALSE;
  }
  if (b < a || (geometric ? !(step > 1) || !(a > 0) : !(step > 0))) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "range '%s': needs FROM <= TO and %s", item,
                 geometric ? "FROM > 0 and a factor above 1" : "a step above 0");
    return FALSE;
  }
  /* Multiply or add from the start each time: no drift from repeated sums. */
  double tol = 1e-9 * fmax (fabs (a), fabs (b));
  for (int i = 0;; i++) {
    double v = geometric ? a * pow (step, i) : a + i * step;
    if (v > b + tol)
      break;
    if (i >= MAX_VALUES) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "range '%s': more than %d values", item,
                   MAX_VALUES);
      return FALSE;
    }
    g_ptr_array_add (out, format_value (v, ua));
  }
  return TRUE;
}

char **
dts_sweep_values_expand (const char *text, GError **error)
{
  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) items = g_strsplit (text, ",", -1);
  for (char **it = items; *it; it++) {
    if (!expand_item (*it, out, error))
      return NULL;
    /* A sweep has at most MAX_POINTS points, so no axis has more values:
     * checked as the values grow, before they are compared. */
    if (out->len > MAX_POINTS) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "more than %d values (a sweep has at most %d points)", MAX_POINTS,
                   MAX_POINTS);
      return NULL;
    }
  }
  if (out->len == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "no values");
    return NULL;
  }
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < out->len; i++)
    if (!g_hash_table_add (seen, g_ptr_array_index (out, i))) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "value '%s' given twice",
                   (char *) g_ptr_array_index (out, i));
      return NULL;
    }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&out), FALSE);
}

static gboolean
run_accepts (const char *arg)
{
  char *args[] = { (char *) "run", (char *) arg, NULL };
  return dts_cmd_run_accepts (args);
}

/* Options that the sweep sets itself or that make no sense per point. */
static const char *const reserved[] = { "format",   "quiet",     "config",   "trace",
                                        "help",     "per-rank",  "timeline", "timeline-ascii",
                                        "progress", "dump-plan", "mesh",     "mesh-ascii",
                                        NULL };

gboolean
dts_sweep_mesh_parse (const char *text, int *tp, int *pp, int *dp, int *cp, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text, "x", -1);
  guint n = g_strv_length (parts);
  guint64 v[4] = { 1, 1, 1, 1 };
  gboolean ok = n == 3 || n == 4;
  /* the product checked as it grows: four factors of up to 2^20 would
   * overflow 64 bits */
  guint64 gpus = 1;
  for (guint i = 0; ok && i < n; i++) {
    ok = g_ascii_string_to_unsigned (parts[i], 10, 1, 1 << 20, &v[i], NULL);
    gpus *= ok ? v[i] : 1;
    ok = ok && gpus <= (1 << 20);
  }
  if (!ok) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "mesh: '%s' is not a split TPxPPxDP or TPxPPxDPxCP (three or four integers "
                 "from 1, at most %d GPUs in all: 8x4x2, 8x4x2x2), nor auto",
                 text, 1 << 20);
    return FALSE;
  }
  *tp = (int) v[0];
  *pp = (int) v[1];
  *dp = (int) v[2];
  *cp = (int) v[3];
  return TRUE;
}

char *
dts_sweep_mesh_format (int tp, int pp, int dp, int cp)
{
  return cp > 1 ? g_strdup_printf ("%dx%dx%dx%d", tp, pp, dp, cp)
                : g_strdup_printf ("%dx%dx%d", tp, pp, dp);
}

char **
dts_sweep_mesh_enumerate (int n_gpus, int gpus_per_node, int global_batch,
                          int micro_batch_size, int cp_tokens, int max_cp,
                          guint excluded[DTS_SWEEP_MESH_N_EXCLUDED])
{
  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func (g_free);
  for (int i = 0; i < DTS_SWEEP_MESH_N_EXCLUDED; i++)
    excluded[i] = 0;
  int mbs = MAX (micro_batch_size, 1);
  for (int t = 1; t <= n_gpus; t++) {
    if (n_gpus % t != 0)
      continue;
    for (int p = 1; p <= n_gpus / t; p++) {
      if ((n_gpus / t) % p != 0)
        continue;
      for (int c = 1; c <= MIN (n_gpus / t / p, MAX (max_cp, 1)); c++) {
        if ((n_gpus / t / p) % c != 0 || (c > 1 && !dts_schedule_context_fits (cp_tokens, c)))
          continue;
        int d = n_gpus / t / p / c;
        if (gpus_per_node % t != 0)
          excluded[DTS_SWEEP_MESH_TP_ACROSS_NODES]++;
        else if (global_batch > 0 && global_batch % ((gint64) d * mbs) != 0)
          excluded[DTS_SWEEP_MESH_BATCH]++;
        else
          g_ptr_array_add (out, dts_sweep_mesh_format (t, p, d, c));
      }
    }
  }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&out), FALSE);
}

static gboolean
classify_option (DtsSweepAxis *axis, GError **error)
{
  if (strcmp (axis->key, "mesh") == 0) {
    axis->kind = DTS_SWEEP_MESH;
    axis->target = g_strdup ("gpus");
    if (strcmp (axis->values[0], "auto") == 0 && axis->values[1] == NULL)
      return TRUE;
    for (char **v = axis->values; *v; v++) {
      int t, p, d, c;
      if (!dts_sweep_mesh_parse (*v, &t, &p, &d, &c, error))
        return FALSE;
    }
    return TRUE;
  }
  if (strcmp (axis->key, "nodes") == 0) {
    axis->kind = DTS_SWEEP_NODES;
    axis->target = g_strdup ("gpus");
    for (char **v = axis->values; *v; v++) {
      guint64 n;
      if (!g_ascii_string_to_unsigned (*v, 10, 1, 1 << 20, &n, NULL)) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "nodes: '%s' is not a node count (an integer from 1)", *v);
        return FALSE;
      }
    }
    return TRUE;
  }
  for (const char *const *r = reserved; *r; r++)
    if (strcmp (axis->key, *r) == 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "'%s' cannot be an axis (the sweep sets "
                   "--format and --quiet, and every point writes its own result)", axis->key);
      return FALSE;
    }
  g_autofree char *flag = g_strdup_printf ("--%s", axis->key);
  g_autofree char *with_value = g_strdup_printf ("--%s=%s", axis->key, axis->values[0]);
  /* A flag first: GOption takes `--flag=false` as the flag set. */
  if (!run_accepts (flag) && run_accepts (with_value))
    axis->kind = DTS_SWEEP_OPTION;
  else if (run_accepts (flag)) {
    axis->kind = DTS_SWEEP_FLAG;
    for (char **v = axis->values; *v; v++)
      if (strcmp (*v, "true") != 0 && strcmp (*v, "false") != 0) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "--%s is a flag: its values are true and false (got '%s')", axis->key, *v);
        return FALSE;
      }
  } else {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "unknown key '%s': neither an option of 'dtsim run' (see 'dtsim run --help') "
                 "nor a what-if target (link:GLOB.FIELD, host:..., gpu:..., set:TARGET, "
                 "scale:TARGET)", axis->key);
    return FALSE;
  }
  axis->target = g_strdup (axis->key);
  return TRUE;
}

gboolean
dts_sweep_axis_key_counts_gpus (const char *key)
{
  return strcmp (key, "gpus") == 0 || strcmp (key, "nodes") == 0 || strcmp (key, "mesh") == 0;
}

static gboolean
classify_override (DtsSweepAxis *axis, const char *target, gboolean is_scale, GError **error)
{
  axis->kind = is_scale ? DTS_SWEEP_SCALE : DTS_SWEEP_SET;
  axis->target = g_strdup (target);
  for (char **v = axis->values; *v; v++) {
    g_autofree char *text = g_strdup_printf ("%s=%s", target, *v);
    DtsOverride ov = { 0 };
    gboolean ok = dts_override_parse (text, is_scale, &ov, error);
    dts_override_clear (&ov);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

DtsSweepAxis *
dts_sweep_axis_parse (const char *spec, GError **error)
{
  g_return_val_if_fail (spec != NULL, NULL);
  const char *eq = strchr (spec, '=');
  g_autoptr (DtsSweepAxis) axis = g_new0 (DtsSweepAxis, 1);
  g_autoptr (GError) local = NULL;
  if (eq == NULL || eq == spec) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--vary '%s': expected KEY=V1,V2,... or KEY=FROM:TO:xFACTOR|+STEP", spec);
    return NULL;
  }
  axis->key = g_strndup (spec, eq - spec);
  axis->values = dts_sweep_values_expand (eq + 1, &local);
  if (axis->values == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--vary '%s': %s", spec, local->message);
    return NULL;
  }
  /* Keys and values go into sweep.ini, the job lists and the plot scripts. */
  if (!dts_quote_check (axis->key, -1, "--vary key", "a sweep's scripts", &local)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "%s", local->message);
    return NULL;
  }
  for (char **v = axis->values; *v; v++)
    if (!dts_quote_check (*v, -1, "--vary value", "a sweep's scripts", &local)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "%s", local->message);
      return NULL;
    }
  gboolean ok;
  if (g_str_has_prefix (axis->key, "set:"))
    ok = classify_override (axis, axis->key + 4, FALSE, &local);
  else if (g_str_has_prefix (axis->key, "scale:"))
    ok = classify_override (axis, axis->key + 6, TRUE, &local);
  else if (g_str_has_prefix (axis->key, "link:") || g_str_has_prefix (axis->key, "host:")
           || g_str_has_prefix (axis->key, "gpu:"))
    ok = classify_override (axis, axis->key, FALSE, &local);
  else
    ok = classify_option (axis, &local);
  if (!ok) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--vary '%s': %s", spec, local->message);
    return NULL;
  }
  return g_steal_pointer (&axis);
}

void
dts_sweep_axis_append_args (const DtsSweepAxis *axis, guint value, GPtrArray *args)
{
  const char *v = axis->values[value];
  switch (axis->kind) {
  case DTS_SWEEP_OPTION:
    g_ptr_array_add (args, g_strdup_printf ("--%s=%s", axis->target, v));
    break;
  case DTS_SWEEP_FLAG:
    if (strcmp (v, "true") == 0)
      g_ptr_array_add (args, g_strdup_printf ("--%s", axis->target));
    break;
  case DTS_SWEEP_NODES:
    /* The GPU count depends on the platform: cmd-sweep.c adds --gpus. */
    break;
  case DTS_SWEEP_MESH: {
    int t, p, d, c;
    /* Checked by the parser (cmd-sweep.c replaces auto by the splits). */
    if (!dts_sweep_mesh_parse (v, &t, &p, &d, &c, NULL))
      g_return_if_reached ();
    g_ptr_array_add (args, g_strdup ("--strategy=hybrid"));
    g_ptr_array_add (args, g_strdup_printf ("--tensor-parallel=%d", t));
    g_ptr_array_add (args, g_strdup_printf ("--stages=%d", p));
    g_ptr_array_add (args, g_strdup_printf ("--dp=%d", d));
    if (c > 1)
      g_ptr_array_add (args, g_strdup_printf ("--context-parallel=%d", c));
    g_ptr_array_add (args, g_strdup_printf ("--gpus=%d", t * p * d * c));
    if (axis->global_batch > 0) {
      g_ptr_array_add (args, g_strdup_printf ("--batch-size=%d", axis->global_batch / d));
      if (axis->micro_batch_size > 0)
        g_ptr_array_add (args, g_strdup_printf ("--micro-batches=%d",
                                                axis->global_batch / d / axis->micro_batch_size));
    }
    break;
  }
  case DTS_SWEEP_SET:
  case DTS_SWEEP_SCALE:
    g_ptr_array_add (args, g_strdup (axis->kind == DTS_SWEEP_SET ? "--set" : "--scale"));
    g_ptr_array_add (args, g_strdup_printf ("%s=%s", axis->target, v));
    break;
  }
}

/* The run options that a split of a mesh axis sets. */
typedef struct {
  const char *name;
  char short_name;
  int needs; /* 0: always; 1: with a global batch; 2: with a micro-batch size */
} MeshOption;

static const MeshOption mesh_options[] = {
  { "gpus", 'n', 0 },         { "strategy", 0, 0 },      { "tensor-parallel", 0, 0 },
  { "stages", 0, 0 },         { "dp", 0, 0 },            { "context-parallel", 0, 0 },
  { "batch-size", 'b', 1 },   { "micro-batches", 0, 2 },
};

/* Whether a split of MESH sets option O (the batch options only with a
 * global batch and a micro-batch size). */
static gboolean
mesh_option_applies (const DtsSweepAxis *mesh, const MeshOption *o)
{
  return !((o->needs == 1 && mesh->global_batch == 0)
           || (o->needs == 2 && mesh->micro_batch_size == 0));
}

/* Whether a split of MESH sets run option --NAME. */
static gboolean
mesh_sets_option (const DtsSweepAxis *mesh, const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (mesh_options); i++) {
    const MeshOption *o = &mesh_options[i];
    if (strcmp (o->name, name) == 0)
      return mesh_option_applies (mesh, o);
  }
  return FALSE;
}

gboolean
dts_sweep_mesh_sets (const DtsSweepAxis *mesh, char *const *b, int *skip)
{
  for (guint i = 0; i < G_N_ELEMENTS (mesh_options); i++) {
    const MeshOption *o = &mesh_options[i];
    if (mesh_option_applies (mesh, o)
        && dts_cli_word_option (b, o->name, o->short_name, NULL, skip))
      return TRUE;
  }
  *skip = 1;
  return FALSE;
}

void
dts_sweep_plan_free (DtsSweepPlan *plan)
{
  if (plan == NULL)
    return;
  g_clear_pointer (&plan->axes, g_ptr_array_unref);
  g_free (plan);
}

DtsSweepPlan *
dts_sweep_plan_new (char *const *vary, gboolean zip, GError **error)
{
  g_autoptr (DtsSweepPlan) plan = g_new0 (DtsSweepPlan, 1);
  plan->axes = g_ptr_array_new_with_free_func ((GDestroyNotify) dts_sweep_axis_free);
  plan->zip = zip;
  for (char *const *v = vary; v && *v; v++) {
    DtsSweepAxis *axis = dts_sweep_axis_parse (*v, error);
    if (axis == NULL)
      return NULL;
    g_ptr_array_add (plan->axes, axis);
    for (guint i = 0; i + 1 < plan->axes->len; i++) {
      const DtsSweepAxis *other = g_ptr_array_index (plan->axes, i);
      if (strcmp (other->key, axis->key) == 0) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--vary: axis '%s' given twice",
                     axis->key);
        return NULL;
      }
      /* Two --set of one target: the last wins and the first axis, which
       * still labels the rows, has no effect. (Scales multiply.) */
      if (strcmp (other->target, axis->target) == 0 && other->kind == DTS_SWEEP_SET
          && axis->kind == DTS_SWEEP_SET) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "--vary: axes '%s' and '%s' both set '%s' (the second would replace the "
                     "first)", other->key, axis->key, axis->target);
        return NULL;
      }
      /* A split sets the strategy, the degrees and the GPUs (the batch is
       * checked with --global-batch), and gives every stage one degree and
       * one cut. */
      static const char *const beside_mesh[] = { "stage-dp", "partition", NULL };
      const DtsSweepAxis *mesh = other->kind == DTS_SWEEP_MESH ? other
                                 : axis->kind == DTS_SWEEP_MESH ? axis : NULL;
      const DtsSweepAxis *opt = mesh == other ? axis : other;
      if (mesh != NULL && opt->kind == DTS_SWEEP_OPTION
          && strcmp (opt->target, mesh->target) != 0 /* --gpus: below */
          && (g_strv_contains (beside_mesh, opt->target) || mesh_sets_option (mesh, opt->target))) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "--vary: axis 'mesh' sets --%s (with --strategy, --tensor-parallel, "
                     "--stages, --dp, --context-parallel and --gpus): it cannot be an axis "
                     "beside it",
                     opt->target);
        return NULL;
      }
      if (strcmp (other->target, axis->target) == 0 && other->kind != DTS_SWEEP_SET
          && other->kind != DTS_SWEEP_SCALE) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "--vary: axes '%s' and '%s' both set --%s", other->key, axis->key,
                     axis->target);
        return NULL;
      }
    }
  }
  if (plan->axes->len == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "no axis: give at least one --vary KEY=V1,V2,... (see 'dtsim sweep --help')");
    return NULL;
  }
  double n = zip ? 0 : 1;
  for (guint i = 0; i < plan->axes->len; i++) {
    const DtsSweepAxis *a = g_ptr_array_index (plan->axes, i);
    guint len = g_strv_length (a->values);
    if (zip && i > 0 && len != n) {
      const DtsSweepAxis *first = g_ptr_array_index (plan->axes, 0);
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--zip: axis '%s' has %u values, axis '%s' %.0f (zipped axes pair their "
                   "values one to one)", a->key, len, first->key, n);
      return NULL;
    }
    n = zip ? len : n * len;
  }
  if (n > MAX_POINTS) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "%.0f points: at most %d", n, MAX_POINTS);
    return NULL;
  }
  plan->n_points = (guint) n;
  return g_steal_pointer (&plan);
}

guint
dts_sweep_plan_value (const DtsSweepPlan *plan, guint point, guint axis)
{
  g_return_val_if_fail (point < plan->n_points && axis < plan->axes->len, 0);
  if (plan->zip)
    return point;
  for (guint i = 0; i < axis; i++)
    point /= g_strv_length (((DtsSweepAxis *) g_ptr_array_index (plan->axes, i))->values);
  return point % g_strv_length (((DtsSweepAxis *) g_ptr_array_index (plan->axes, axis))->values);
}

guint
dts_sweep_plan_series (const DtsSweepPlan *plan, guint point)
{
  if (plan->zip)
    return 0;
  return point / g_strv_length (((DtsSweepAxis *) g_ptr_array_index (plan->axes, 0))->values);
}

char *
dts_sweep_plan_series_label (const DtsSweepPlan *plan, guint point)
{
  if (plan->zip || plan->axes->len == 1)
    return g_strdup ("all");
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint i = 1; i < plan->axes->len; i++) {
    const DtsSweepAxis *a = g_ptr_array_index (plan->axes, i);
    g_string_append_printf (s, "%s%s=%s", i > 1 ? " " : "", a->key,
                            a->values[dts_sweep_plan_value (plan, point, i)]);
  }
  return g_string_free (g_steal_pointer (&s), FALSE);
}
