/* table-options.c - command-line options declared by the rows of the
 * collective and strategy tables (core/option.h).
 *
 * Every option some row declares becomes one command-line entry (a row's
 * option shared by several rows is one entry), with help text made from the
 * declaration ("With --collective ps: ... (default: ...)"). After parsing,
 * dts_cli_row_options_check() validates each given value against its
 * declaration and refuses it when the selected algorithm or strategy does
 * not declare it, in the words the rest of the command line uses. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli-private.h"
#include "collective/collective.h"
#include "core/error.h"
#include "schedule/schedule.h"

typedef struct {
  const DtsOptionSpec *spec;
  const char *flag;         /* "collective" or "strategy" */
  GPtrArray *owners;        /* ids of the rows that declare it (static strings) */
  char *help;               /* generated (owned) */
  char *value;              /* what GOption parsed, or NULL (owned) */
} RowOption;

struct _DtsRowOptions {
  GArray *opts;             /* RowOption */
  GOptionEntry *entries;    /* NULL-terminated, pointing into opts */
};

static void
add_spec (GArray *opts, const DtsOptionSpec *spec, const char *flag, const char *owner)
{
  for (guint i = 0; i < opts->len; i++) {
    RowOption *o = &g_array_index (opts, RowOption, i);
    if (strcmp (o->spec->name, spec->name) == 0) {
      g_ptr_array_add (o->owners, (gpointer) owner);
      return;
    }
  }
  RowOption o = { spec, flag, g_ptr_array_new (), NULL, NULL };
  g_ptr_array_add (o.owners, (gpointer) owner);
  g_array_append_val (opts, o);
}

static char *
owners_text (const RowOption *o)
{
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint i = 0; i < o->owners->len; i++)
    g_string_append_printf (s, "%s%s", i == 0 ? "" : i + 1 == o->owners->len ? " or " : ", ",
                            (const char *) g_ptr_array_index (o->owners, i));
  return g_string_free (g_steal_pointer (&s), FALSE);
}

DtsRowOptions *
dts_cli_row_options_new (gboolean collectives_with_closed_form_only, gboolean strategies)
{
  DtsRowOptions *ro = g_new0 (DtsRowOptions, 1);
  ro->opts = g_array_new (FALSE, TRUE, sizeof (RowOption));
  for (const DtsCollAlgorithm *a = dts_coll_algorithms (); a->id; a++)
    for (const DtsOptionSpec *sp = a->options;
         sp && sp->name && (!collectives_with_closed_form_only || a->closed_form_s); sp++)
      add_spec (ro->opts, sp, "collective", a->id);
  for (const DtsStrategy *st = dts_schedule_strategies (); strategies && st->id; st++)
    for (const DtsOptionSpec *sp = st->options; sp && sp->name; sp++)
      add_spec (ro->opts, sp, "strategy", st->id);
  ro->entries = g_new0 (GOptionEntry, ro->opts->len + 1);
  for (guint i = 0; i < ro->opts->len; i++) {
    RowOption *o = &g_array_index (ro->opts, RowOption, i);
    g_autofree char *who = owners_text (o);
    o->help = g_strdup_printf ("With --%s %s: %s (default: %s)", o->flag, who, o->spec->help,
                               o->spec->default_text);
    ro->entries[i] = (GOptionEntry){ o->spec->name, 0, 0, G_OPTION_ARG_STRING, &o->value,
                                     o->help, o->spec->arg };
  }
  return ro;
}

void
dts_cli_row_options_free (DtsRowOptions *ro)
{
  if (ro == NULL)
    return;
  for (guint i = 0; i < ro->opts->len; i++) {
    RowOption *o = &g_array_index (ro->opts, RowOption, i);
    g_ptr_array_unref (o->owners);
    g_free (o->help);
    g_free (o->value);
  }
  g_array_unref (ro->opts);
  g_free (ro->entries);
  g_free (ro);
}

const GOptionEntry *
dts_cli_row_options_entries (const DtsRowOptions *ro)
{
  return ro->entries;
}

static gboolean
declared_by (const RowOption *o, const char *id)
{
  for (guint i = 0; i < o->owners->len; i++)
    if (strcmp (g_ptr_array_index (o->owners, i), id) == 0)
      return TRUE;
  return FALSE;
}

gboolean
dts_cli_row_options_check (const DtsRowOptions *ro, const char *collective, const char *strategy,
                           GError **error)
{
  for (guint i = 0; i < ro->opts->len; i++) {
    const RowOption *o = &g_array_index (ro->opts, RowOption, i);
    if (o->value == NULL)
      continue;
    const DtsOptionSpec *sp = o->spec;
    if (sp->type == DTS_OPTION_INT) {
      int v;
      if (!dts_cli_parse_int_option (sp->name, o->value, (int) sp->min, (int) sp->max, &v, error))
        return FALSE;
    } else if (sp->type == DTS_OPTION_CHOICE) {
      gboolean known = FALSE;
      g_autoptr (GString) ids = g_string_new (NULL);
      for (const char *const *c = sp->choices; *c; c++) {
        known = known || strcmp (*c, o->value) == 0;
        g_string_append_printf (ids, "%s%s", ids->len ? ", " : "", *c);
      }
      if (!known) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "unknown --%s '%s' (known: %s)", sp->name,
                     o->value, ids->str);
        return FALSE;
      }
    }
    const char *selected = strcmp (o->flag, "collective") == 0 ? collective : strategy;
    if (!declared_by (o, selected)) {
      g_autofree char *who = owners_text (o);
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--%s %s: only with --%s %s (the %s is %s)",
                   sp->name, o->value, o->flag, who, o->flag, selected);
      return FALSE;
    }
  }
  return TRUE;
}

const char *
dts_cli_row_option (const DtsRowOptions *ro, const char *name)
{
  for (guint i = 0; i < ro->opts->len; i++) {
    const RowOption *o = &g_array_index (ro->opts, RowOption, i);
    if (strcmp (o->spec->name, name) == 0)
      return o->value;
  }
  g_return_val_if_reached (NULL);
}

static void
list_options (const DtsOptionSpec *sp)
{
  for (; sp && sp->name; sp++) {
    g_autofree char *opt = g_strdup_printf ("--%s=%s", sp->name, sp->arg);
    printf ("  %-22s %s (default: %s)\n", opt, sp->help, sp->default_text);
  }
}

void
dts_cli_list_strategies (void)
{
  for (const DtsStrategy *st = dts_schedule_strategies (); st->id; st++) {
    printf ("%-12s %s\n", st->id, st->description);
    list_options (st->options);
  }
}

void
dts_cli_list_collectives (void)
{
  for (const DtsCollAlgorithm *a = dts_coll_algorithms (); a->id; a++) {
    printf ("%-12s %s\n", a->id, a->description);
    list_options (a->options);
  }
  printf ("%-12s %s\n", "auto",
          "per all-reduce, the algorithm (and protocol) NCCL's tuning model predicts fastest on "
          "the platform's routes (doc/SIMULATION.md)");
  printf ("%-12s %s\n", "nccl",
          "per collective, what NCCL would run: its ring (searched rings or across the rails) or "
          "double binary tree, protocol and channel count, as its tuning model picks them on the "
          "platform's routes; --nccl-algo, --nccl-proto, --nccl-min-channels and "
          "--nccl-max-channels limit it as NCCL's variables do (doc/SIMULATION.md)");
}
