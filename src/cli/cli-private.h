/* cli-private.h - the subcommand table and helpers shared by src/cli files.
 *
 * Every subcommand is one file (cmd-NAME.c) plus one row of the table in
 * commands.c; `dtsim help` and argument dispatch are driven by that table.
 * A command returns TRUE on success or sets ERROR; main() prints the error
 * and maps DTS_ERROR_USAGE to exit status 2, anything else to 1. */
#ifndef DTS_CLI_PRIVATE_H
#define DTS_CLI_PRIVATE_H

#include <glib.h>

#include "collective/collective.h"
#include "core/precision.h"
#include "cost/cost.h"
#include "platform/platform.h"
#include "workload/workload.h"

G_BEGIN_DECLS

#define DTS_DEFAULT_PLATFORM "cluster-4x4-v100"
#define DTS_DEFAULT_WORKLOAD "resnet50"

/* One group of a `--config FILE` key file that a command reads: the keys of
 * [GROUP] are long options that ACCEPTS recognises. ACCEPTS parses a copy of
 * the NULL-terminated ARGS ({"CMD", "--KEY=VALUE", NULL}) with the command's
 * own option table and says whether it parses. */
typedef struct {
  const char *group;
  gboolean (*accepts) (char **args);
  /* Keys a file may not set, NULL-terminated (or NULL): options that name a
   * program to run, so that a key file stays data (doc/ROBUSTNESS.md). */
  const char *const *command_line_only;
} DtsConfigGroup;

typedef struct {
  const char *name;
  const char *summary; /* one line for `dtsim help` */
  gboolean (*run) (int argc, char **argv, GError **error); /* argv[0] is the command name */
  const DtsConfigGroup *config; /* groups read by --config, {NULL} ended; NULL: no --config */
  gboolean subcommands;         /* `dtsim help CMD SUB` is `dtsim CMD SUB --help` */
} DtsCommand;

/* The table, terminated by a row with name NULL. */
const DtsCommand *dts_cli_commands (void);
const DtsCommand *dts_cli_command_lookup (const char *name);

/* The --config pre-pass (config-file.c), run by main() before CMD's own
 * option parser: every `--config FILE` (or `--config=FILE`) before a "--" in
 * ARGV (ARGV[0] is the command) is replaced by the options its key file sets
 * for CMD's groups, in the file's order, and all of them are placed before
 * the command-line options, so that for single-valued options the command
 * line wins (CLI > file > default; repeatable options such as --set add up).
 * A key `K = V` becomes `--K=V`; a list `K = A;B` becomes `--K=A --K=B`; a
 * flag is `K = true` (false: left out). Unknown keys and groups, values given
 * to flags and malformed files are DTS_ERROR_USAGE errors naming the file, the
 * line and the key. Returns the new argv (owned) and its length in *ARGC_OUT;
 * *ORIGINS (owned, may be NULL when no file was read) lets
 * dts_cli_config_blame() name the file and line of a key whose value the
 * command later rejects. */
typedef struct _DtsConfigOrigins DtsConfigOrigins;
char **dts_cli_config_expand (const DtsCommand *cmd, int argc, char **argv, int *argc_out,
                              DtsConfigOrigins **origins, GError **error);
/* When ERROR's message is about an option ("--KEY ..." or "unknown --KEY
 * ...") that came from the key file and not from the command line, prefix
 * it with "config 'FILE': line N: key 'KEY': ". */
void dts_cli_config_blame (const DtsConfigOrigins *origins, GError *error);
void dts_cli_config_origins_free (DtsConfigOrigins *origins);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsConfigOrigins, dts_cli_config_origins_free)
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
/* A time from 0 to 1000 s with dtsim's units (30us, 1.5ms); NULL TEXT
 * leaves *OUT as it is. */
gboolean dts_cli_parse_time_option (const char *option, const char *text, double *out,
                                    GError **error);

/* Whether the word at W (of a NULL-terminated command line) gives option
 * --LNG ("--lng", "--lng=value") or, where SHRT is not 0, -SHRT ("-s",
 * "-svalue"). *VALUE (either may be NULL): its value, W[1] when given apart
 * (NULL at the end of the line); *SPAN: the words it spans (1 where it is
 * not the option). The one reading of option words that the commands which
 * build or edit `dtsim run` lines share (sweep's base and mesh, validate's
 * options after --). */
gboolean dts_cli_word_option (char *const *w, const char *lng, char shrt, const char **value,
                              int *span);

/* --set then --scale (SimGrid what-ifs, platform/override.h) as one array of
 * DtsOverride in that order, or NULL with ERROR set. */
GArray *dts_cli_parse_overrides (char *const *set, char *const *scale, GError **error);

/* The directory SUB of the shared data sets: $DTSIM_SHARED/data/SUB, else
 * ../shared/data/SUB beside the data directory (dts_datadir_get). The caller
 * owns it and checks that it exists. */
char *dts_cli_shared_data_dir (const char *sub);

/* Fail before a possibly long simulation when PATH (not "-") cannot be
 * written; WHAT names the file in the error ("trace"). Creates nothing and
 * changes nothing (core/outfile.h): a refused run leaves no file behind.
 * Output files are written with dts_outfile_write(), atomically. */
gboolean dts_cli_check_writable (const char *path, const char *what, GError **error);

/* `--strategy help` and `--collective help`: the table rows, id,
 * description and the options each declares, on stdout. */
void dts_cli_list_strategies (void);
void dts_cli_list_collectives (void);

/* The options `run` and `allreduce` share (common-options.c), as text. */
typedef struct {
  char *platform;
  char *gpus;
  char *collective;
  char *channels;
  char *nccl_algo;
  char *nccl_proto;
  char *nccl_min_channels;
  char *nccl_max_channels;
  char *chunk_size;
  char *coll_overhead;
  char *granularity;
  gboolean dump_plan;
  char *format;
  char *trace;
  char **cfg;
  char **set;
  char **scale;
} DtsCommonArgs;
void dts_cli_common_args_clear (DtsCommonArgs *c);
/* --nccl-algo, --nccl-proto and the channel limits into LIMITS (zero: not
 * given), and --channels with --collective nccl as both limits: usage
 * errors for bad values, limits that cross, and any of them with another
 * COLLECTIVE (NULL: the default); WHY, when not NULL, says why COLLECTIVE
 * was taken without --collective ("--steps without --collective runs ring"),
 * and the message gives it. */
gboolean dts_cli_parse_nccl_limits (const DtsCommonArgs *c, const char *collective,
                                    const char *why, DtsCollNcclLimits *limits,
                                    GError **error);
/* Add the shared entries to CTX, parsing into C (which must outlive CTX). */
void dts_cli_add_common_entries (GOptionContext *ctx, DtsCommonArgs *c);

/* Options declared by table rows (table-options.c): every option of every
 * collective (only those with a closed form when CLOSED_FORM_ONLY) and,
 * with STRATEGIES, of every strategy. */
typedef struct _DtsRowOptions DtsRowOptions;
DtsRowOptions *dts_cli_row_options_new (gboolean closed_form_only, gboolean strategies);
void dts_cli_row_options_free (DtsRowOptions *ro);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsRowOptions, dts_cli_row_options_free)
/* The entries to add to a GOptionContext (lent, NULL-terminated). */
const GOptionEntry *dts_cli_row_options_entries (const DtsRowOptions *ro);
/* Validate the given values and refuse those the selected COLLECTIVE or
 * STRATEGY does not declare (DTS_ERROR_USAGE). */
gboolean dts_cli_row_options_check (const DtsRowOptions *ro, const char *collective,
                                    const char *strategy, GError **error);
/* The text given for option NAME, or NULL. */
const char *dts_cli_row_option (const DtsRowOptions *ro, const char *name);
/* The output files a command writes, by option: none may be the file of
 * another (one would silently replace the other), "-" apart (checked by
 * each command: stdout takes one document). Two paths are one file when
 * they name the same regular file or, not existing yet, the same path once
 * made absolute; existing files that are not regular (/dev/null) may be
 * named twice. DTS_ERROR_USAGE naming both options. PATH NULL: absent. */
typedef struct {
  const char *option;
  const char *path;
} DtsCliOutput;
gboolean dts_cli_check_distinct_outputs (const DtsCliOutput *outputs, guint n, GError **error);
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
  const char *framework;   /* --framework: profile for --gpu times (DTS_FRAMEWORK_DEFAULT when NULL) */
  const char *precision;   /* --precision */
  int batch_size;          /* --batch-size, for per-layer times; 0 when not given */
  int seq_len;             /* --seq-len: tokens per sample; 0: the workload's */
  gboolean routes;         /* --routes (platforms) */
  const char *platform;    /* --platform: its rank 0's GPU prices the per-layer times */
  gboolean bounds;         /* --bounds: per layer and pass, what bounds it */
} DtsInfoOptions;

/* Per layer and pass of W on GPU at PRECISION and BATCH under COST (its
 * profile): time, FLOPs, bytes, arithmetic intensity, bound (compute or
 * memory against the ridge point; dts_cost_layer_bounds) and share of the
 * iteration's compute time (the plain sum of every layer's passes, as
 * `dtsim info --gpu` totals it), as text, CSV or JSON appended to OUT.
 * Passes without work or time are left out. GPU_WHERE says where the GPU
 * came from ("catalogue", "rank 0 of platform 'P'"). */
gboolean dts_cli_format_bounds (const DtsWorkload *w, DtsCost *cost, const DtsGpuSpec *gpu,
                                const char *gpu_where, DtsPrecision precision, int batch,
                                DtsFormat format, GString *out, GError **error);

gboolean dts_cli_info_workload (const char *path, const DtsInfoOptions *opts, GError **error);
gboolean dts_cli_info_platform (const char *path, const DtsInfoOptions *opts, GError **error);
/* PLATFORM is the loaded view of the file at its path (platform->path). */
gboolean dts_cli_info_routes (const DtsPlatform *platform, const DtsInfoOptions *opts,
                              GError **error);

/* ---- dtsim sweep (sweep-axis.c, sweep-results.c, cmd-sweep.c) ------------ */

/* How an axis value reaches `dtsim run`. */
typedef enum {
  DTS_SWEEP_OPTION, /* --TARGET=V */
  DTS_SWEEP_FLAG,   /* --TARGET when V is "true", nothing when "false" */
  DTS_SWEEP_SET,    /* --set TARGET=V */
  DTS_SWEEP_SCALE,  /* --scale TARGET=V */
  DTS_SWEEP_NODES,  /* --gpus=G, G the ranks of the first V nodes of the point's platform */
  DTS_SWEEP_MESH,   /* V = TxPxD: --strategy=hybrid --tensor-parallel=T --stages=P --dp=D
                     * --gpus=T*P*D, with a global batch also --batch-size, --micro-batches */
} DtsSweepAxisKind;

typedef struct {
  char *key;     /* as written before '=': "batch-size", "scale:network.bandwidth" */
  DtsSweepAxisKind kind;
  char *target;  /* the option name or the --set/--scale target */
  char **values; /* expanded values, NULL-terminated, at least one, no duplicates */
  int global_batch;     /* DTS_SWEEP_MESH: samples per iteration, kept at every split (0: the
                         * base's --batch-size per replica) */
  int micro_batch_size; /* DTS_SWEEP_MESH with GLOBAL_BATCH: samples per micro-batch and
                         * replica (0: the base's --micro-batches) */
} DtsSweepAxis;

/* Parse `KEY=VALUES` (syntax: sweep-axis.c, doc/SWEEP.md). Errors are
 * DTS_ERROR_USAGE quoting SPEC. */
DtsSweepAxis *dts_sweep_axis_parse (const char *spec, GError **error);
void dts_sweep_axis_free (DtsSweepAxis *axis);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsSweepAxis, dts_sweep_axis_free)
/* "4,8,16:64:x2" -> {"4", "8", "16", "32", "64"} (owned); DTS_ERROR_USAGE
 * for a bad range, an empty item or a value given twice. */
char **dts_sweep_values_expand (const char *text, GError **error);
/* Parse a split "TxPxD" or "TxPxDxC" (tensor x pipeline x data x context
 * parallel degrees, each from 1, C 1 when left out, at most 2^20 GPUs in
 * all); DTS_ERROR_USAGE otherwise. */
gboolean dts_sweep_mesh_parse (const char *text, int *tp, int *pp, int *dp, int *cp,
                               GError **error);
/* The split's spelling: "TxPxD", with "xC" when CP > 1 (owned). */
char *dts_sweep_mesh_format (int tp, int pp, int dp, int cp);

/* Why mesh=auto leaves a factorisation out (doc/SWEEP.md). */
typedef enum {
  DTS_SWEEP_MESH_TP_ACROSS_NODES, /* T does not divide the GPUs of a node */
  DTS_SWEEP_MESH_BATCH,           /* D x micro-batch size does not divide the global batch */
  DTS_SWEEP_MESH_N_EXCLUDED,
} DtsSweepMeshExcluded;

/* The splits "TxPxD[xC]" with T*P*D*C = N_GPUS that mesh=auto runs, T
 * ascending, then P, then C (owned, NULL-terminated, possibly empty): T
 * divides GPUS_PER_NODE (tensor parallelism inside a node); C > 1 only up
 * to MAX_CP and where 2 C divides CP_TOKENS (the sequence of the
 * workload's attention; 0: no context parallelism); and, when
 * GLOBAL_BATCH > 0, D * MAX (MICRO_BATCH_SIZE, 1) divides it. EXCLUDED
 * counts the others by their first broken rule (a C that does not cut the
 * sequence is no split). */
char **dts_sweep_mesh_enumerate (int n_gpus, int gpus_per_node, int global_batch,
                                 int micro_batch_size, int cp_tokens, int max_cp,
                                 guint excluded[DTS_SWEEP_MESH_N_EXCLUDED]);

/* Whether the axis of KEY sets the GPU count of its points (gpus, nodes,
 * mesh): the only axes along which speed-up and efficiency are defined. */
gboolean dts_sweep_axis_key_counts_gpus (const char *key);

/* Whether the run option at B (a word of a command line, its value in B[1]
 * when it takes one apart) is one that a split of MESH sets: --gpus, the
 * strategy and the degrees, and with MESH's global batch the batch and the
 * micro-batches. *SKIP: the number of words it spans (1 where it is not). */
gboolean dts_sweep_mesh_sets (const DtsSweepAxis *mesh, char *const *b, int *skip);

/* Append the `dtsim run` arguments for value VALUE of AXIS to ARGS (owned
 * strings); nothing for DTS_SWEEP_NODES, whose --gpus needs the platform. */
void dts_sweep_axis_append_args (const DtsSweepAxis *axis, guint value, GPtrArray *args);

typedef struct {
  GPtrArray *axes;  /* DtsSweepAxis, in --vary order */
  gboolean zip;
  guint n_points;
} DtsSweepPlan;

/* The points of the axes VARY (NULL-terminated --vary texts): the Cartesian
 * product, first axis fastest, or with ZIP the axes side by side. */
DtsSweepPlan *dts_sweep_plan_new (char *const *vary, gboolean zip, GError **error);
void dts_sweep_plan_free (DtsSweepPlan *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsSweepPlan, dts_sweep_plan_free)
/* Index of the value of axis AXIS at point POINT (both from 0). */
guint dts_sweep_plan_value (const DtsSweepPlan *plan, guint point, guint axis);
/* The series of POINT: points that differ only in the first axis share it
 * (with --zip every point is in series 0). */
guint dts_sweep_plan_series (const DtsSweepPlan *plan, guint point);
/* "KEY2=V KEY3=W" of the series of POINT, or "all" when there is one (owned). */
char *dts_sweep_plan_series_label (const DtsSweepPlan *plan, guint point);

/* One point's `dtsim run --format json` output, parsed (sweep-results.c). */
typedef struct _DtsSweepResult DtsSweepResult;
/* Parse TEXT; DTS_ERROR_PARSE when it is not one complete JSON object,
 * DTS_ERROR_INVALID when it lacks n_gpus, iteration_time_s or
 * throughput_samples_per_s (what a killed run would leave). */
DtsSweepResult *dts_sweep_result_parse (const char *text, GError **error);
void dts_sweep_result_free (DtsSweepResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsSweepResult, dts_sweep_result_free)
/* The simulation's wall time (simulation.wall_time_s) as written, or NULL. */
const char *dts_sweep_result_wall_time (const DtsSweepResult *result);
/* The number or boolean at the dotted PATH ("breakdown.forward_s",
 * "memory.fits") as written, or NULL when there is none. */
const char *dts_sweep_result_field (const DtsSweepResult *result, const char *path);

typedef struct {
  char **values;        /* the point's value of every axis (NULL-terminated) */
  guint series;         /* rows with the same series are one series, first row first */
  char *series_label;
  char *file;           /* result file, relative to the output directory */
  DtsSweepResult *result; /* NULL when the run refused or failed: STATUS, REASON */
  const char *status;   /* "ok", "invalid" (the run's exit status 2) or "failed" (1) */
  char *reason;         /* the run's error message, when it did not run */
  char *verdict;        /* with --where/--best: dts_sweep_verdict_text, else NULL */
  gboolean meets;       /* with --where/--best: whether it met the constraints */
} DtsSweepRow;
void dts_sweep_row_free (DtsSweepRow *row);

/* results.csv: columns point, series, one per axis (named by its key), every
 * scalar field of the run's JSON flattened with dots (breakdown.comm_s,
 * options.precision; lists of scalars joined by ';'; lists of objects and the
 * wall time left out; a field named like an axis is run.NAME), in the first
 * row's order with fields that only later rows have after them, then ideal_speedup (n_gpus over the first point of
 * the series), speedup (throughput over the first point of the series) and
 * efficiency (speedup / ideal_speedup), empty unless the series scales (an
 * axis that sets the GPU count, gpus, nodes or mesh, changes in it and so
 * does n_gpus); the reference of a series is its first point that ran. Then
 * comm_wait_s: per iteration, the time a GPU's compute waits for
 * communication (the exposed collective time, or the parameter-server
 * workers' mean wait for weights). When a row did not run (no result), status and
 * reason follow (its run fields and derived values are empty); when rows
 * have a verdict, meets_constraints and verdict follow. Numbers keep the
 * JSON's digits, so that the same results give the same bytes. ROWS holds
 * DtsSweepRow. */
void dts_sweep_write_csv (char *const *axes, const GPtrArray *rows, GString *csv);
/* results.jsonl: one line per row, {"point", "series", "axes": {KEY: VALUE},
 * "ideal_speedup", "speedup", "efficiency", "comm_wait_s" (null where the CSV is
 * empty), "run": the JSON without its wall
 * time, or null}, with "status" and "reason", "meets_constraints" and
 * "verdict" under the same conditions as results.csv's columns. */
void dts_sweep_write_jsonl (char *const *axes, const GPtrArray *rows, GString *jsonl);
/* CSV field quoting (RFC 4180) of TEXT appended to OUT. */
void dts_csv_append_field (GString *out, const char *text);
/* Split CSV TEXT into rows of fields (GPtrArray of GStrv), or NULL with
 * DTS_ERROR_PARSE naming the line of an unterminated quote. */
GPtrArray *dts_csv_parse (const char *text, GError **error);

/* ---- choosing among the points (sweep-select.c) --------------------------- */

typedef enum {
  DTS_SWEEP_OP_TRUE,  /* a bare COLUMN: "true" or a number other than 0 */
  DTS_SWEEP_OP_FALSE, /* !COLUMN: "false" or 0 */
  DTS_SWEEP_OP_GE,
  DTS_SWEEP_OP_LE,
  DTS_SWEEP_OP_GT,
  DTS_SWEEP_OP_LT,
  DTS_SWEEP_OP_EQ,
  DTS_SWEEP_OP_NE,
} DtsSweepOp;

/* One --where condition (syntax: sweep-select.c, doc/SWEEP.md). */
typedef struct {
  char *text;      /* as given, stripped: "minibatch_mean>=240" */
  char *name;      /* the column as written: "fits" */
  char *column;    /* the results.csv column it names, once resolved: "memory.fits" */
  DtsSweepOp op;
  char *value;     /* the right-hand side as written; NULL for a bare column */
  double number;   /* the value, when it is a number (NUMERIC) */
  gboolean numeric;
} DtsSweepCond;

/* Parse one --where TEXT; DTS_ERROR_USAGE for a bad operator, a missing
 * column or value, or a non-number compared by order. */
DtsSweepCond *dts_sweep_cond_parse (const char *text, GError **error);
void dts_sweep_cond_free (DtsSweepCond *cond);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsSweepCond, dts_sweep_cond_free)

typedef struct {
  GPtrArray *conds;  /* DtsSweepCond, in --where order */
  gboolean has_best;
  gboolean maximize;
  char *best_text;   /* "max:throughput_samples_per_s" */
  char *best_name;   /* the column as written */
  char *best_column; /* once resolved */
} DtsSweepSelect;

/* The constraints WHERE (NULL-terminated, may be NULL) and the objective
 * BEST ("max:COLUMN", "min:COLUMN" or NULL); DTS_ERROR_USAGE on bad syntax.
 * Column names are resolved later, against the results' header. */
DtsSweepSelect *dts_sweep_select_new (char *const *where, const char *best, GError **error);
void dts_sweep_select_free (DtsSweepSelect *sel);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsSweepSelect, dts_sweep_select_free)
/* Resolve every column name against HEADER (results.csv's, NULL-terminated):
 * the full name, or the last part after a dot when one column alone ends so;
 * DTS_ERROR_USAGE naming the known columns otherwise. */
gboolean dts_sweep_select_resolve (DtsSweepSelect *sel, char *const *header, GError **error);

typedef enum {
  DTS_SWEEP_VERDICT_MEETS,        /* meets the constraints (no --best) */
  DTS_SWEEP_VERDICT_BEST,         /* meets them with the extreme objective (ties: all) */
  DTS_SWEEP_VERDICT_WORSE,        /* meets them, objective below the best's */
  DTS_SWEEP_VERDICT_BROKE,        /* broke condition BROKEN (the first in --where order) */
  DTS_SWEEP_VERDICT_NO_OBJECTIVE, /* meets them but has no number to rank */
  DTS_SWEEP_VERDICT_DID_NOT_RUN,  /* the run refused or failed */
} DtsSweepVerdictKind;

typedef struct {
  DtsSweepVerdictKind kind;
  int broken;       /* index of the broken condition, else -1 */
  double objective; /* the objective's value where it was read */
} DtsSweepVerdict;

/* The verdict of every point of TABLE (the parsed results.csv, header
 * first; RAN[i]: whether point i ran) under the resolved SEL: a GArray of
 * DtsSweepVerdict, one per point (owned). */
GArray *dts_sweep_select_apply (const DtsSweepSelect *sel, const GPtrArray *table,
                                const gboolean *ran);
/* "best", "broke fits", "lower than best", "did not run", ... (owned). */
char *dts_sweep_verdict_text (const DtsSweepSelect *sel, const DtsSweepVerdict *v);

/* ---- plots (plot.c) ------------------------------------------------------ */

/* The gnuplot to run: $DTSIM_GNUPLOT ("none": none), else the one configure
 * found, else gnuplot in PATH; NULL when there is none (owned). */
char *dts_plot_gnuplot (void);
/* Line plot of column Y against column X of the parsed CSV TABLE (row 0 the
 * header), one line per distinct value of column SERIES (NULL: one line),
 * with IDEAL (a column, or NULL) dashed beside each. Writes BASE.dat and
 * BASE.gp, whose outputs are BASE.png and/or BASE.svg (PNG, SVG). */
gboolean dts_plot_lines (const GPtrArray *table, const char *x, const char *y,
                         const char *series, const char *ideal, const char *base,
                         gboolean png, gboolean svg, GError **error);
/* Stacked bars per row: compute (forward + backward + optimizer) and exposed
 * communication, labelled by the columns LABELS (NULL-terminated). */
gboolean dts_plot_breakdown (const GPtrArray *table, char *const *labels, const char *base,
                             gboolean png, gboolean svg, GError **error);
/* Run GNUPLOT on SCRIPT; errors carry gnuplot's message. */
gboolean dts_plot_render (const char *gnuplot, const char *script, GError **error);

/* Subcommand entry points (one file each). */
gboolean dts_cmd_info (int argc, char **argv, GError **error);
gboolean dts_cmd_help (int argc, char **argv, GError **error);
gboolean dts_cmd_cost (int argc, char **argv, GError **error);
gboolean dts_cmd_platform (int argc, char **argv, GError **error);
gboolean dts_cmd_run (int argc, char **argv, GError **error);
gboolean dts_cmd_allreduce (int argc, char **argv, GError **error);
gboolean dts_cmd_sweep (int argc, char **argv, GError **error);
gboolean dts_cmd_plot (int argc, char **argv, GError **error);
gboolean dts_cmd_validate (int argc, char **argv, GError **error);
/* Whether CTX parses ARGS (argv[0] first) with nothing left over, silently:
 * the --config pre-pass's check of a key (DtsConfigGroup.accepts). */
gboolean dts_cli_trial_parse (GOptionContext *ctx, char **args);

/* Option tables of run and sweep for the --config pre-pass (DtsConfigGroup). */
gboolean dts_cmd_run_accepts (char **args);
gboolean dts_cmd_sweep_accepts (char **args);
/* Fail when the run options ARGS (argv[0] first) that a sweep runs at every
 * point write an output of their own: a file every point would replace
 * (--trace, --timeline, --per-rank FILE) or something on stdout where the
 * sweep reads the point's JSON (--per-rank -, --dump-plan,
 * --timeline-ascii). DTS_ERROR_USAGE. */
gboolean dts_cmd_run_check_sweep_base (char **args, GError **error);

G_END_DECLS

#endif
