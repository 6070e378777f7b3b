/* commands.c - the subcommand table (git's commands[]) and shared CLI helpers. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli-private.h"
#include "collective/collective.h"
#include "schedule/schedule.h"
#include "core/error.h"
#include "core/input.h"
#include "core/outfile.h"
#include "core/units.h"
#include "platform/override.h"

/* --config groups (config-file.c): a sweep's [run] group is its base run. */
static const DtsConfigGroup run_config[] = {
  { "run", dts_cmd_run_accepts, NULL },
  { NULL, NULL, NULL },
};
/* --dtsim names the program every point runs: command line only. */
static const char *const sweep_command_line_only[] = { "dtsim", NULL };
static const DtsConfigGroup sweep_config[] = {
  { "run", dts_cmd_run_accepts, NULL },
  { "sweep", dts_cmd_sweep_accepts, sweep_command_line_only },
  { NULL, NULL, NULL },
};

static const DtsCommand commands[] = {
  { "info", "describe a workload (layers, params, FLOPs, --bounds) or a platform (GPUs, links)",
    dts_cmd_info, NULL, FALSE },
  { "run", "simulate training: data, pipeline, tensor or parameter-server parallelism",
    dts_cmd_run, run_config, FALSE },
  { "sweep", "run configurations over axes (run options, mesh) into one CSV; --where, --best",
    dts_cmd_sweep, sweep_config, FALSE },
  { "plot", "plot columns of a sweep's results.csv with gnuplot", dts_cmd_plot, NULL, FALSE },
  { "platform", "write a SimGrid platform file for a GPU cluster", dts_cmd_platform, NULL, FALSE },
  { "allreduce", "simulate one collective alone (--op, --collective ... nccl, auto; steps)",
    dts_cmd_allreduce, NULL, FALSE },
  { "cost", "train and evaluate the MLP kernel-time models (train, eval, validate)",
    dts_cmd_cost, NULL, TRUE },
  { "validate", "predict measured data sets and print the error per slice (MAPE, bias)",
    dts_cmd_validate, NULL, FALSE },
  { "help", "list subcommands, or show the options of one", dts_cmd_help, NULL, FALSE },
  { NULL, NULL, NULL, NULL, FALSE },
};

const DtsCommand *
dts_cli_commands (void)
{
  return commands;
}

const DtsCommand *
dts_cli_command_lookup (const char *name)
{
  for (const DtsCommand *c = commands; c->name; c++)
    if (strcmp (c->name, name) == 0)
      return c;
  return NULL;
}

/* Options that take one value are given at most once: GOption silently
 * keeps the last of `-b 8 -b 16`. Each such entry becomes a callback that
 * refuses a second occurrence and otherwise hands the value to GOption
 * itself, through a one-entry context, so that values are parsed exactly
 * as before (integers, file names, strings). Flags and repeatable options
 * (string arrays: --set, --cfg) keep their entries. */
typedef struct {
  GArray *entries;   /* GOptionEntry: the original single-value entries */
  GHashTable *given; /* long name -> first value given */
} Repeats;

/* The Repeats of each context's main group, so that a command can add
 * entries in several calls (a common set, then its own). */
static GHashTable *repeats_of_group;

static void
repeats_free (gpointer p)
{
  Repeats *r = p;
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, repeats_of_group);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (value == r)
      g_hash_table_iter_remove (&it);
  g_array_unref (r->entries);
  g_hash_table_unref (r->given);
  g_free (r);
}

static gboolean
take_once (const char *option_name, const char *value, gpointer data, GError **error)
{
  Repeats *r = data;
  const GOptionEntry *orig = NULL;
  for (guint i = 0; i < r->entries->len && orig == NULL; i++) {
    const GOptionEntry *e = &g_array_index (r->entries, GOptionEntry, i);
    gboolean is_long = option_name[0] == '-' && option_name[1] == '-'
                       && strcmp (option_name + 2, e->long_name) == 0;
    gboolean is_short = option_name[0] == '-' && option_name[1] == e->short_name
                        && e->short_name != 0 && option_name[2] == '\0';
    if (is_long || is_short)
      orig = e;
  }
  g_return_val_if_fail (orig != NULL, FALSE);
  const char *first = g_hash_table_lookup (r->given, orig->long_name);
  if (first != NULL) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "--%s given twice ('%s', then '%s'): give it once", orig->long_name, first,
                 value);
    return FALSE;
  }
  g_hash_table_insert (r->given, (gpointer) orig->long_name, g_strdup (value));
  GOptionEntry one[] = { *orig, { NULL, 0, 0, 0, NULL, NULL, NULL } };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  g_option_context_set_help_enabled (ctx, FALSE);
  g_option_context_add_main_entries (ctx, one, NULL);
  g_autofree char *arg = g_strdup_printf ("--%s=%s", orig->long_name, value);
  char *argv[] = { (char *) "dtsim", arg, NULL };
  char **pargv = argv;
  int argc = 2;
  return g_option_context_parse (ctx, &argc, &pargv, error);
}

void
dts_cli_add_entries (GOptionContext *ctx, const GOptionEntry *entries)
{
  if (repeats_of_group == NULL)
    repeats_of_group = g_hash_table_new (g_direct_hash, g_direct_equal);
  GOptionGroup *group = g_option_context_get_main_group (ctx);
  Repeats *r = group ? g_hash_table_lookup (repeats_of_group, group) : NULL;
  g_return_if_fail (group == NULL || r != NULL);
  if (r == NULL) {
    r = g_new0 (Repeats, 1);
    r->entries = g_array_new (FALSE, FALSE, sizeof (GOptionEntry));
    r->given = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
    group = g_option_group_new (NULL, NULL, NULL, r, repeats_free);
    g_hash_table_insert (repeats_of_group, group, r);
    g_option_context_set_main_group (ctx, group);
  }
  g_autoptr (GArray) wrapped = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));
  for (const GOptionEntry *e = entries; e->long_name; e++) {
    GOptionEntry w = *e;
    gboolean single = e->arg == G_OPTION_ARG_STRING || e->arg == G_OPTION_ARG_INT
                      || e->arg == G_OPTION_ARG_FILENAME || e->arg == G_OPTION_ARG_DOUBLE
                      || e->arg == G_OPTION_ARG_INT64;
    if (single) {
      g_array_append_val (r->entries, *e);
      w.arg = G_OPTION_ARG_CALLBACK;
      w.arg_data = (gpointer) take_once;
    }
    g_array_append_val (wrapped, w);
  }
  g_option_group_add_entries (group, (const GOptionEntry *) wrapped->data);
}

gboolean
dts_cli_parse (GOptionContext *ctx, const char *cmd, int *argc, char ***argv,
               gboolean *help_shown, GError **error)
{
  *help_shown = FALSE;
  for (int i = 1; i < *argc; i++) {
    if (strcmp ((*argv)[i], "--") == 0)
      break;
    if (strcmp ((*argv)[i], "--help") == 0 || strcmp ((*argv)[i], "-h") == 0) {
      g_autofree char *help = g_option_context_get_help (ctx, FALSE, NULL);
      fputs (help, stdout);
      *help_shown = TRUE;
      return TRUE;
    }
  }
  g_option_context_set_help_enabled (ctx, FALSE);
  g_autoptr (GError) local = NULL;
  if (!g_option_context_parse (ctx, argc, argv, &local)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "%s (see 'dtsim %s --help')",
                 local->message, cmd);
    return FALSE;
  }
  return TRUE;
}

gboolean
dts_cli_no_arguments (int argc, char **argv, const char *cmd, GError **error)
{
  if (argc <= 1)
    return TRUE;
  g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
               "unexpected argument '%s' (see 'dtsim %s --help')", argv[1], cmd);
  return FALSE;
}

gboolean
dts_cli_bad_option (const char *option, const char *text, const char *expected, GError **error)
{
  g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--%s '%s': expected %s", option, text,
               expected);
  return FALSE;
}

gboolean
dts_cli_parse_int_option (const char *option, const char *text, int min, int max, int *out,
                          GError **error)
{
  if (text == NULL)
    return TRUE;
  int v;
  if (!dts_units_parse_int (text, &v, NULL) || v < min || v > max) {
    g_autofree char *expected = g_strdup_printf ("an integer in %d..%d", min, max);
    return dts_cli_bad_option (option, text, expected, error);
  }
  *out = v;
  return TRUE;
}

gboolean
dts_cli_parse_bytes_option (const char *option, const char *text, double *out, GError **error)
{
  if (text == NULL)
    return TRUE;
  double v;
  /* !(v >= 1) also refuses NaN; above 1PB is a typo, not a buffer. */
  if (!dts_units_parse (text, DTS_UNIT_BYTES, &v, NULL) || !(v >= 1) || v > 1e15)
    return dts_cli_bad_option (option, text, "a size from 1 byte to 1PB such as 64MB or 2MiB",
                               error);
  *out = v;
  return TRUE;
}

gboolean
dts_cli_parse_time_option (const char *option, const char *text, double *out, GError **error)
{
  if (text == NULL)
    return TRUE;
  double v;
  if (!dts_units_parse (text, DTS_UNIT_TIME, &v, NULL) || !(v >= 0) || !(v <= 1e3))
    return dts_cli_bad_option (option, text, "a time in 0..1000s, e.g. 30us", error);
  *out = v;
  return TRUE;
}

gboolean
dts_cli_word_option (char *const *w, const char *lng, char shrt, const char **value, int *span)
{
  const char *a = w[0];
  size_t n = strlen (lng);
  const char *v = NULL;
  gboolean is = FALSE, apart = FALSE;
  if (a[0] == '-' && a[1] == '-' && strncmp (a + 2, lng, n) == 0
      && (a[2 + n] == '\0' || a[2 + n] == '=')) {
    is = TRUE;
    apart = a[2 + n] == '\0';
    v = apart ? NULL : a + 3 + n;
  } else if (shrt != 0 && a[0] == '-' && a[1] == shrt) {
    is = TRUE;
    apart = a[2] == '\0';
    v = apart ? NULL : a + 2;
  }
  if (apart && w[1] != NULL)
    v = w[1];
  if (value != NULL)
    *value = is ? v : NULL;
  if (span != NULL)
    *span = is && apart && w[1] != NULL ? 2 : 1;
  return is;
}

GArray *
dts_cli_parse_overrides (char *const *set, char *const *scale, GError **error)
{
  g_autoptr (GArray) overrides = dts_overrides_new ();
  char *const *lists[] = { set, scale };
  for (guint k = 0; k < G_N_ELEMENTS (lists); k++)
    for (char *const *t = lists[k]; t && *t; t++) {
      DtsOverride ov;
      if (!dts_override_parse (*t, k == 1, &ov, error))
        return NULL;
      g_array_append_val (overrides, ov);
    }
  return g_steal_pointer (&overrides);
}

gboolean
dts_cli_check_writable (const char *path, const char *what, GError **error)
{
  if (path == NULL || strcmp (path, "-") == 0)
    return TRUE;
  return dts_outfile_check (path, what, error);
}

gboolean
dts_cli_check_output_option (const char *option, const char *text, gboolean stdout_ok,
                             GError **error)
{
  if (text == NULL)
    return TRUE;
  if (text[0] == '\0')
    return dts_cli_bad_option (option, text, stdout_ok ? "a file name, or - for stdout"
                                                       : "a file name", error);
  if (!stdout_ok && strcmp (text, "-") == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--%s -: standard output carries the results; give --%s a file name", option,
                 option);
    return FALSE;
  }
  return TRUE;
}

/* Options given before the command, for every command: the input limits. */
static const struct {
  const char *name;
  gboolean bytes; /* a size, else a count */
} global_options[] = {
  { "--max-input-size", TRUE },
  { "--max-hosts", FALSE },
};

gboolean
dts_cli_parse_global_option (int *argc, char ***argv, GError **error)
{
  const char *arg = (*argv)[1];
  for (guint i = 0; i < G_N_ELEMENTS (global_options); i++) {
    const char *name = global_options[i].name;
    gsize len = strlen (name);
    if (strncmp (arg, name, len) != 0 || (arg[len] != '\0' && arg[len] != '='))
      continue;
    int used = 2;
    const char *value = arg[len] == '=' ? arg + len + 1 : NULL;
    if (value == NULL) {
      if (*argc < 3) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "%s needs a value (see 'dtsim help')",
                     name);
        return FALSE;
      }
      value = (*argv)[2];
      used = 3;
    }
    if (global_options[i].bytes) {
      double v = 0;
      if (!dts_cli_parse_bytes_option (name + 2, value, &v, error))
        return FALSE;
      dts_input_set_max_bytes ((gsize) MIN (v, (double) G_MAXINT));
    } else {
      int v = 0;
      if (!dts_cli_parse_int_option (name + 2, value, 1, 1 << 24, &v, error))
        return FALSE;
      dts_input_set_max_hosts ((guint) v);
    }
    /* Drop the option: argv[0] stays, the rest moves down. */
    (*argv)[used - 1] = (*argv)[0];
    *argv += used - 1;
    *argc -= used - 1;
    return TRUE;
  }
  g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
               "unknown option '%s' before the command (known: --max-input-size SIZE, "
               "--max-hosts N; see 'dtsim help')",
               arg);
  return FALSE;
}

gboolean
dts_cli_flush_stdout (GError **error)
{
  if (fflush (stdout) == 0 && !ferror (stdout))
    return TRUE;
  int err = errno;
  g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "cannot write the results to standard output: %s",
               g_strerror (err ? err : EIO));
  return FALSE;
}

gboolean
dts_cli_parse_format (const char *s, gboolean allow_csv, DtsFormat *out, GError **error)
{
  if (s == NULL || strcmp (s, "text") == 0)
    *out = DTS_FORMAT_TEXT;
  else if (strcmp (s, "json") == 0)
    *out = DTS_FORMAT_JSON;
  else if (allow_csv && strcmp (s, "csv") == 0)
    *out = DTS_FORMAT_CSV;
  else {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "unknown --format '%s' (known: text, json%s)",
                 s, allow_csv ? ", csv" : "");
    return FALSE;
  }
  return TRUE;
}

gboolean
dts_cmd_help (int argc, char **argv, GError **error)
{
  /* `dtsim help CMD [SUB]` is `dtsim CMD [SUB] --help` (SUB: `cost train`). */
  if (argc > 3) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "'dtsim help' takes at most a command and its subcommand");
    return FALSE;
  }
  if (argc >= 2) {
    const DtsCommand *c = dts_cli_command_lookup (argv[1]);
    if (c == NULL) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "unknown command '%s' (see 'dtsim help')",
                   argv[1]);
      return FALSE;
    }
    if (argc == 3 && !c->subcommands) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "'dtsim %s' has no subcommands: 'dtsim help %s' shows its options", c->name,
                   c->name);
      return FALSE;
    }
    if (c->run != dts_cmd_help) {
      char *sub[] = { (char *) c->name, argc == 3 ? argv[2] : (char *) "--help",
                      (char *) "--help", NULL };
      return c->run (argc, sub, error);
    }
  }
  printf ("usage: dtsim [--max-input-size SIZE] [--max-hosts N] <command> [options]\n"
          "       dtsim --version\n\n"
          "dtsim simulates distributed deep-learning training on GPU clusters\n"
          "described as SimGrid platforms.\n\ncommands:\n");
  for (const DtsCommand *c = commands; c->name; c++)
    printf ("  %-10s %s\n", c->name, c->summary);
  printf ("\nSee 'dtsim <command> --help' for the options of a command.\n"
          "--max-input-size (default 128MiB) and --max-hosts (default %d) raise the\n"
          "limits on input files and platform sizes (doc/ROBUSTNESS.md).\n",
          DTS_INPUT_DEFAULT_MAX_HOSTS);
  return TRUE;
}

gboolean
dts_cli_trial_parse (GOptionContext *ctx, char **args)
{
  g_option_context_set_help_enabled (ctx, FALSE);
  g_auto (GStrv) copy = g_strdupv (args);
  return g_option_context_parse_strv (ctx, &copy, NULL) && copy[1] == NULL;
}
