/* cli-private.h - the subcommand table and helpers shared by src/cli files.
 *
 * Every subcommand is one file (cmd-NAME.c) plus one row of the table in
 * commands.c; `dtsim help` and argument dispatch are driven by that table.
 * A command returns TRUE on success or sets ERROR; main() prints the error
 * and maps DTS_ERROR_USAGE to exit status 2, anything else to 1. */
#ifndef DTS_CLI_PRIVATE_H
#define DTS_CLI_PRIVATE_H

#include <glib.h>

#include "platform/platform.h"

G_BEGIN_DECLS

#define DTS_DEFAULT_PLATFORM "cluster-4x4-v100"
#define DTS_DEFAULT_WORKLOAD "resnet50"

typedef struct {
  const char *name;
  const char *summary; /* one line for `dtsim help` */
  gboolean (*run) (int argc, char **argv, GError **error); /* argv[0] is the command name */
} DtsCommand;

/* The table, terminated by a row with name NULL. */
const DtsCommand *dts_cli_commands (void);
const DtsCommand *dts_cli_command_lookup (const char *name);

/* Add ENTRIES to CTX as its main group (instead of
 * g_option_context_add_main_entries): an option that takes one value
 * (string, integer, file name) given twice is then a parse error "--NAME
 * given twice ('A', then 'B')" instead of silently the last value. Flags
 * and string arrays (repeatable by design) are unchanged. ENTRIES must
 * outlive CTX's parse. */
void dts_cli_add_entries (GOptionContext *ctx, const GOptionEntry *entries);

/* Parse ARGC/ARGV with CTX; turn GOption errors into DTS_ERROR_USAGE with the
 * hint "see 'dtsim CMD --help'". Handles --help itself (prints, returns TRUE
 * with *HELP_SHOWN set) so commands can return early. */
gboolean dts_cli_parse (GOptionContext *ctx, const char *cmd, int *argc, char ***argv,
                        gboolean *help_shown, GError **error);

/* After dts_cli_parse: fail with "unexpected argument 'X' (see 'dtsim CMD
 * --help')" when a positional argument is left (ARGV[0] is the command; CMD
 * may be "cost eval" for a sub-subcommand). */
gboolean dts_cli_no_arguments (int argc, char **argv, const char *cmd, GError **error);

/* Option values given as text, checked before anything is loaded. Each sets
 * a DTS_ERROR_USAGE "--OPTION 'TEXT': expected WHAT" so that every command
 * words a bad value the same way. A NULL TEXT (option absent) keeps *OUT. */
gboolean dts_cli_bad_option (const char *option, const char *text, const char *expected,
                             GError **error); /* always FALSE */
gboolean dts_cli_parse_int_option (const char *option, const char *text, int min, int max,
                                   int *out, GError **error);
/* A byte count from 1 byte to 1PB with dtsim's units (64MB, 2MiB). */
gboolean dts_cli_parse_bytes_option (const char *option, const char *text, double *out,
                                     GError **error);

/* --set then --scale (SimGrid what-ifs, platform/override.h) as one array of
 * DtsOverride in that order, or NULL with ERROR set. */
GArray *dts_cli_parse_overrides (char *const *set, char *const *scale, GError **error);

/* Fail before a possibly long simulation when PATH (not "-") cannot be
 * written; WHAT names the file in the error ("trace"). Creates nothing and
 * changes nothing (core/outfile.h): a refused run leaves no file behind.
 * Output files are written with dts_outfile_write(), atomically. */
gboolean dts_cli_check_writable (const char *path, const char *what, GError **error);

/* An output file option's TEXT (NULL: absent): not empty, and not "-"
 * unless STDOUT_OK (a second document on stdout, after or before the
 * results, would make both unreadable). DTS_ERROR_USAGE otherwise. */
gboolean dts_cli_check_output_option (const char *option, const char *text, gboolean stdout_ok,
                                      GError **error);

/* ARGV[1] is an option given before the command (`dtsim --max-input-size
 * 1GiB run ...`, `--max-hosts N`, both as OPTION VALUE or OPTION=VALUE):
 * apply it (core/input.h) and remove it from ARGC/ARGV, keeping ARGV[0].
 * An unknown option or a bad value is a DTS_ERROR_USAGE error. */
gboolean dts_cli_parse_global_option (int *argc, char ***argv, GError **error);

/* Flush stdout and fail (DTS_ERROR_IO) if any write to it failed. */
gboolean dts_cli_flush_stdout (GError **error);

/* --format values shared by commands. */
typedef enum {
  DTS_FORMAT_TEXT,
  DTS_FORMAT_JSON,
  DTS_FORMAT_CSV,
} DtsFormat;
gboolean dts_cli_parse_format (const char *s, gboolean allow_csv, DtsFormat *out,
                               GError **error);

/* Options of `dtsim info` handed to the per-kind printers. */
typedef struct {
  DtsFormat format;
  const char *gpu;         /* --gpu: catalogue id for per-layer kernel times, or NULL */
  const char *cost_model;  /* --cost-model */
  const char *precision;   /* --precision */
  int batch_size;          /* --batch-size, for per-layer times; 0 when not given */
  gboolean routes;         /* --routes (platforms) */
} DtsInfoOptions;

gboolean dts_cli_info_workload (const char *path, const DtsInfoOptions *opts, GError **error);
gboolean dts_cli_info_platform (const char *path, const DtsInfoOptions *opts, GError **error);
/* PLATFORM is the loaded view of the file at its path (platform->path). */
gboolean dts_cli_info_routes (const DtsPlatform *platform, const DtsInfoOptions *opts,
                              GError **error);

/* Subcommand entry points (one file each). */
gboolean dts_cmd_info (int argc, char **argv, GError **error);
gboolean dts_cmd_help (int argc, char **argv, GError **error);
gboolean dts_cmd_cost (int argc, char **argv, GError **error);
gboolean dts_cmd_platform (int argc, char **argv, GError **error);
gboolean dts_cmd_run (int argc, char **argv, GError **error);
gboolean dts_cmd_allreduce (int argc, char **argv, GError **error);

G_END_DECLS

#endif
