/* config-file.c - `--config FILE`: options from a GLib key file.
 *
 * A generic pre-pass run by main() before a command's own option parser
 * (cli-private.h, dts_cli_config_expand): the keys of the command's groups
 * ([run] for `dtsim run`; [run] and [sweep] for `dtsim sweep`) are long
 * option names, expanded into `--KEY=VALUE` arguments placed before the
 * command line's, so that precedence is command line > file > default with
 * nothing to merge: the option parser keeps the last value of an option.
 *
 *   # run.ini
 *   [run]
 *   workload = vgg16
 *   batch-size = 32
 *   set = link:*-ib.bandwidth=50Gbps;link:*-nic*.latency=2us
 *   no-overlap = true
 *
 * Keys are checked against the command's option table by parsing each
 * expanded option alone (DtsConfigGroup.accepts), so a new option of `run`
 * is a key without any change here. GKeyFile does not report line numbers;
 * this file finds them by a line scan of its own that follows GKeyFile's
 * syntax (groups, `key = value`, `#` comments). */
#include "config.h"

#include <string.h>

#include "cli/cli-private.h"
#include "core/error.h"
#include "core/input.h"

typedef struct {
  char *key;
  int line;
} Origin;

struct _DtsConfigOrigins {
  char *file;
  GArray *keys;  /* Origin, the keys expanded from the file */
  GStrv cli;     /* the command line's own arguments */
};

static void
origin_clear (gpointer p)
{
  g_free (((Origin *) p)->key);
}

void
dts_cli_config_origins_free (DtsConfigOrigins *origins)
{
  if (origins == NULL)
    return;
  g_free (origins->file);
  g_clear_pointer (&origins->keys, g_array_unref);
  g_strfreev (origins->cli);
  g_free (origins);
}

/* The line of every key of the file, in one pass over LINES: "GROUP\nKEY"
 * -> line. A key given twice in one group is an error: GKeyFile keeps the
 * last value and would give it for both (a first `set = ...` was lost). */
static GHashTable *
index_keys (char *const *lines, const char *file, GError **error)
{
  g_autoptr (GHashTable) where = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *current = NULL;
  for (int i = 0; lines[i] != NULL; i++) {
    const char *l = lines[i];
    while (*l == ' ' || *l == '\t')
      l++;
    if (*l == '[') {
      const char *end = strchr (l, ']');
      g_free (current);
      current = end ? g_strndup (l + 1, end - l - 1) : NULL;
      continue;
    }
    const char *eq = strchr (l, '=');
    if (*l == '#' || eq == NULL || current == NULL)
      continue;
    g_autofree char *key = g_strchomp (g_strndup (l, eq - l));
    g_autofree char *id = g_strconcat (current, "\n", key, NULL);
    int first = GPOINTER_TO_INT (g_hash_table_lookup (where, id));
    if (first > 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "config '%s': line %d: key '%s' given twice in [%s] (first on line %d; an "
                   "option that repeats takes a list: a;b)", file, i + 1, key, current, first);
      return NULL;
    }
    g_hash_table_insert (where, g_steal_pointer (&id), GINT_TO_POINTER (i + 1));
  }
  return g_steal_pointer (&where);
}

/* The line of [GROUP]; 0 when not found. */
static int
find_group_line (char *const *lines, const char *group)
{
  for (int i = 0; lines[i] != NULL; i++) {
    const char *l = lines[i];
    while (*l == ' ' || *l == '\t')
      l++;
    const char *end = *l == '[' ? strchr (l, ']') : NULL;
    if (end != NULL && (gsize) (end - l - 1) == strlen (group)
        && strncmp (l + 1, group, end - l - 1) == 0)
      return i + 1;
  }
  return 0;
}

/* The first line GKeyFile cannot read: neither blank, a comment, a group
 * nor KEY=VALUE (0 when every line looks fine). */
static int
find_bad_line (char *const *lines)
{
  for (int i = 0; lines[i] != NULL; i++) {
    const char *l = lines[i];
    while (*l == ' ' || *l == '\t')
      l++;
    if (*l == '\0' || *l == '#' || (*l == '[' && strchr (l, ']') != NULL))
      continue;
    const char *eq = strchr (l, '=');
    if (eq == NULL || eq == l)
      return i + 1;
  }
  return 0;
}

static gboolean
accepts (const DtsConfigGroup *g, const char *arg)
{
  char *args[] = { (char *) "dtsim", (char *) arg, NULL };
  return g->accepts (args);
}

/* Append to OUT the options of key KEY = VALUE, one value of the list. A
 * flag is what parses without a value (GOption would take `--flag=no` as
 * the flag set, so flags are told apart first). */
static gboolean
expand_value (const DtsConfigGroup *g, const char *cmd, const char *key, const char *value,
              const char *where, GPtrArray *out, GError **error)
{
  g_autofree char *flag = g_strdup_printf ("--%s", key);
  g_autofree char *option = g_strdup_printf ("--%s=%s", key, value);
  if (accepts (g, flag)) {
    if (strcmp (value, "true") != 0 && strcmp (value, "false") != 0) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "%s: key '%s' is a flag: its value must be true or false (got '%s')", where,
                   key, value);
      return FALSE;
    }
    if (value[0] == 't')
      g_ptr_array_add (out, g_steal_pointer (&flag));
    return TRUE;
  }
  if (accepts (g, option)) {
    g_ptr_array_add (out, g_steal_pointer (&option));
    return TRUE;
  }
  g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
               "%s: unknown key '%s' in [%s] (not an option of 'dtsim %s'; see 'dtsim %s "
               "--help')",
               where, key, g->group, cmd, g->group);
  return FALSE;
}

/* Whether group G's command parses ARGS (NULL-terminated, without argv[0]). */
static gboolean
parses (const DtsConfigGroup *g, const char *const *args)
{
  g_autoptr (GPtrArray) v = g_ptr_array_new ();
  g_ptr_array_add (v, (gpointer) "dtsim");
  for (; *args; args++)
    g_ptr_array_add (v, (gpointer) *args);
  g_ptr_array_add (v, NULL);
  return g->accepts ((char **) v->pdata);
}

/* Whether the command line CLI sets the option that FROM_FILE (one
 * expanded key) sets, so that the file's value must give way: a
 * single-valued option may be given once (cli-private.h,
 * dts_cli_add_entries). Each command-line argument, alone or with the one
 * after it, is tried with and without FROM_FILE in front: an argument that
 * parses alone but not after FROM_FILE repeats it (long or short name). */
static gboolean
overridden (const DtsCommand *cmd, const char *from_file, const GPtrArray *cli)
{
  for (const DtsConfigGroup *g = cmd->config; g && g->group; g++) {
    const char *alone[] = { from_file, NULL };
    if (!parses (g, alone))
      continue;
    for (guint i = 0; i < cli->len; i++) {
      const char *a = g_ptr_array_index (cli, i);
      const char *b = i + 1 < cli->len ? g_ptr_array_index (cli, i + 1) : NULL;
      const char *one[] = { a, NULL }, *one_f[] = { from_file, a, NULL };
      const char *two[] = { a, b, NULL }, *two_f[] = { from_file, a, b, NULL };
      if ((parses (g, one) && !parses (g, one_f))
          || (b != NULL && parses (g, two) && !parses (g, two_f)))
        return TRUE;
    }
  }
  return FALSE;
}

/* The options of FILE for CMD, in the order of CMD's groups then of the file. */
static GPtrArray *
expand_file (const DtsCommand *cmd, const char *file, DtsConfigOrigins *origins,
             GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *text = dts_input_read_text (file, "config", NULL, error);
  if (text == NULL)
    return NULL;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  if (!g_key_file_load_from_data (kf, text, (gsize) -1, G_KEY_FILE_NONE, &local)) {
    int bad = find_bad_line (lines);
    if (bad > 0)
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                   "config '%s': line %d: expected 'key = value', a [group] or a # comment",
                   file, bad);
    else
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "config '%s': %s", file, local->message);
    return NULL;
  }

  g_autoptr (GHashTable) key_lines = index_keys (lines, file, error);
  if (key_lines == NULL)
    return NULL;
  g_auto (GStrv) groups = g_key_file_get_groups (kf, NULL);
  for (char **gr = groups; *gr; gr++) {
    gboolean known = FALSE;
    g_autoptr (GString) names = g_string_new (NULL);
    for (const DtsCommand *c = dts_cli_commands (); c->name; c++)
      for (const DtsConfigGroup *g = c->config; g && g->group; g++) {
        known = known || strcmp (g->group, *gr) == 0;
        if (strstr (names->str, g->group) == NULL)
          g_string_append_printf (names, "%s%s", names->len ? ", " : "", g->group);
      }
    if (!known) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                   "config '%s': line %d: unknown group [%s] (known: %s)", file,
                   find_group_line (lines, *gr), *gr, names->str);
      return NULL;
    }
  }

  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func (g_free);
  for (const DtsConfigGroup *g = cmd->config; g->group; g++) {
    if (!g_key_file_has_group (kf, g->group))
      continue;
    g_auto (GStrv) keys = g_key_file_get_keys (kf, g->group, NULL, NULL);
    for (char **k = keys; *k; k++) {
      g_autofree char *id = g_strconcat (g->group, "\n", *k, NULL);
      int line = GPOINTER_TO_INT (g_hash_table_lookup (key_lines, id));
      g_autofree char *where = g_strdup_printf ("config '%s': line %d", file, line);
      if (strcmp (*k, "config") == 0) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                     "%s: key 'config': a key file cannot name another", where);
        return NULL;
      }
      if (g->command_line_only != NULL && g_strv_contains (g->command_line_only, *k)) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                     "%s: key '%s': a key file cannot name a program to run (give --%s on "
                     "the command line)", where, *k, *k);
        return NULL;
      }
      g_auto (GStrv) values = g_key_file_get_string_list (kf, g->group, *k, NULL, &local);
      if (values == NULL) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s: key '%s': %s", where, *k,
                     local->message);
        return NULL;
      }
      for (char **v = values; *v; v++)
        if (!expand_value (g, cmd->name, *k, *v, where, out, error))
          return NULL;
      Origin o = { g_strdup (*k), line };
      g_array_append_val (origins->keys, o);
    }
  }
  return g_steal_pointer (&out);
}

char **
dts_cli_config_expand (const DtsCommand *cmd, int argc, char **argv, int *argc_out,
                       DtsConfigOrigins **origins_out, GError **error)
{
  *origins_out = NULL;
  const char *file = NULL;
  g_autoptr (GPtrArray) cli = g_ptr_array_new_with_free_func (g_free);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *value = NULL;
    if (cmd->config != NULL && strcmp (a, "--") == 0) {
      for (; i < argc; i++)
        g_ptr_array_add (cli, g_strdup (argv[i]));
      break;
    }
    if (cmd->config != NULL && strcmp (a, "--config") == 0) {
      if (i + 1 >= argc) {
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--config: missing FILE (see 'dtsim %s "
                     "--help')", cmd->name);
        return NULL;
      }
      value = argv[++i];
    } else if (cmd->config != NULL && g_str_has_prefix (a, "--config="))
      value = a + strlen ("--config=");
    if (value == NULL) {
      g_ptr_array_add (cli, g_strdup (a));
      continue;
    }
    if (file != NULL) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--config given twice ('%s', '%s')", file,
                   value);
      return NULL;
    }
    file = value;
  }

  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (args, g_strdup (argv[0]));
  if (file != NULL) {
    g_autoptr (DtsConfigOrigins) origins = g_new0 (DtsConfigOrigins, 1);
    origins->file = g_strdup (file);
    origins->keys = g_array_new (FALSE, FALSE, sizeof (Origin));
    g_array_set_clear_func (origins->keys, origin_clear);
    g_autoptr (GPtrArray) from_file = expand_file (cmd, file, origins, error);
    if (from_file == NULL)
      return NULL;
    /* The command line wins: a key it also sets is left out. */
    for (guint i = 0; i < from_file->len; i++)
      if (!overridden (cmd, g_ptr_array_index (from_file, i), cli))
        g_ptr_array_add (args, g_strdup (g_ptr_array_index (from_file, i)));
    g_ptr_array_add (cli, NULL);
    origins->cli = g_strdupv ((char **) cli->pdata);
    g_ptr_array_remove_index (cli, cli->len - 1);
    *origins_out = g_steal_pointer (&origins);
  }
  for (guint i = 0; i < cli->len; i++)
    g_ptr_array_add (args, g_strdup (g_ptr_array_index (cli, i)));
  *argc_out = (int) args->len;
  g_ptr_array_add (args, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&args), FALSE);
}

static gboolean
given_on_cli (const DtsConfigOrigins *origins, const char *option)
{
  gsize n = strlen (option);
  for (char **a = origins->cli; a && *a; a++)
    if (strncmp (*a, option, n) == 0 && ((*a)[n] == '\0' || (*a)[n] == '='))
      return TRUE;
  return FALSE;
}

void
dts_cli_config_blame (const DtsConfigOrigins *origins, GError *error)
{
  if (origins == NULL || error == NULL)
    return;
  const char *msg = error->message;
  if (g_str_has_prefix (msg, "unknown "))
    msg += strlen ("unknown ");
  for (guint i = 0; i < origins->keys->len; i++) {
    const Origin *o = &g_array_index (origins->keys, Origin, i);
    g_autofree char *option = g_strdup_printf ("--%s", o->key);
    gsize n = strlen (option);
    if (strncmp (msg, option, n) != 0 || strchr (" :=", msg[n]) == NULL || msg[n] == '\0'
        || given_on_cli (origins, option))
      continue;
    g_autofree char *old = g_steal_pointer (&error->message);
    error->message = g_strdup_printf ("config '%s': line %d: key '%s': %s", origins->file,
                                      o->line, o->key, old);
    /* A value read from a file is an input error (exit 1), not a usage one. */
    error->code = DTS_ERROR_INVALID;
    return;
  }
}
