/* main.c - dtsim entry point: dispatch to a subcommand, print errors.
 *
 * Only this file prints errors and chooses the exit status:
 * 0 success, 1 input or runtime error, 2 usage error. Results go to stdout
 * through stdio; a write error there (a full disk, a closed pipe reader,
 * /dev/full) is an error too, found when stdout is flushed at the end. */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli-private.h"
#include "core/error.h"

static int
fail (const GError *error)
{
  fflush (stdout);
  fprintf (stderr, "dtsim: error: %s\n", error->message);
  return g_error_matches (error, DTS_ERROR, DTS_ERROR_USAGE) ? 2 : 1;
}

static int
dispatch (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  /* Options before the command: input limits (core/input.h). */
  while (argc >= 2 && g_str_has_prefix (argv[1], "--max-"))
    if (!dts_cli_parse_global_option (&argc, &argv, &error))
      return fail (error);

  if (argc < 2) {
    char *help[] = { (char *) "help", NULL };
    dts_cmd_help (1, help, NULL);
    return 2;
  }
  if (strcmp (argv[1], "--version") == 0 || strcmp (argv[1], "version") == 0) {
    printf ("dtsim %s\n", PACKAGE_VERSION);
    return 0;
  }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0) {
    char *help[] = { (char *) "help", NULL };
    return dts_cmd_help (1, help, NULL) ? 0 : 1;
  }

  const DtsCommand *cmd = dts_cli_command_lookup (argv[1]);
  if (cmd == NULL) {
    fprintf (stderr, "dtsim: error: unknown command '%s' (see 'dtsim help')\n", argv[1]);
    return 2;
  }

  /* GOption's usage line reads "Usage: dtsim CMD [OPTION...]", also for
   * `dtsim help CMD`. GLib wants the program name set once, hence here. */
  const DtsCommand *shown = cmd;
  if (cmd->run == dts_cmd_help && argc > 2 && dts_cli_command_lookup (argv[2]) != NULL)
    shown = dts_cli_command_lookup (argv[2]);
  g_autofree char *prgname = g_strdup_printf ("dtsim %s", shown->name);
  g_set_prgname (prgname);

  int cmd_argc = 0;
  g_autoptr (DtsConfigOrigins) origins = NULL;
  g_auto (GStrv) owned = dts_cli_config_expand (cmd, argc - 1, argv + 1, &cmd_argc, &origins,
                                                &error);
  /* Option parsers reorder the array they are given: hand them a view. */
  g_autofree char **cmd_argv = owned ? g_memdup2 (owned, (cmd_argc + 1) * sizeof (char *)) : NULL;
  if (owned == NULL || !cmd->run (cmd_argc, cmd_argv, &error)) {
    g_assert (error != NULL);
    dts_cli_config_blame (origins, error);
    return fail (error);
  }
  return 0;
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");

  int status = dispatch (argc, argv);
  g_autoptr (GError) error = NULL;
  if (!dts_cli_flush_stdout (&error))
    return status ? status : fail (error);
  return status;
}
