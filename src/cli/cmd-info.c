/* cmd-info.c - `dtsim info [FILE|NAME ...]`: describe workloads and platforms.
 *
 * A bare name is looked up among the shipped workloads, then the shipped
 * platforms; a path is opened and classified by its root element (<model>
 * is a workload, <platform> a platform). Without arguments, the default
 * platform and the default workload are described. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli-private.h"
#include "core/autocleanups.h"
#include "core/datadir.h"
#include "core/error.h"
#include "core/input.h"
#include "core/xml.h"
#include "schedule/options.h"

typedef enum { KIND_WORKLOAD, KIND_PLATFORM } Kind;

static gboolean
classify (const char *arg, char **path, Kind *kind, GError **error)
{
  gboolean bare = strchr (arg, '/') == NULL && !g_str_has_suffix (arg, ".xml");
  if (bare) {
    g_autofree char *w = dts_datadir_resolve ("workloads", arg, ".xml", "workload", NULL);
    if (w) {
      *path = g_steal_pointer (&w);
      *kind = KIND_WORKLOAD;
      return TRUE;
    }
    g_autofree char *p = dts_datadir_resolve ("platforms", arg, ".xml", "platform", NULL);
    if (p) {
      *path = g_steal_pointer (&p);
      *kind = KIND_PLATFORM;
      return TRUE;
    }
    g_auto (GStrv) ws = dts_datadir_list ("workloads", ".xml");
    g_auto (GStrv) ps = dts_datadir_list ("platforms", ".xml");
    g_autofree char *wl = g_strjoinv (", ", ws);
    g_autofree char *pl = g_strjoinv (", ", ps);
    g_set_error (error, DTS_ERROR, DTS_ERROR_NOT_FOUND,
                 "'%s' is neither a file nor a shipped workload or platform "
                 "(workloads: %s; platforms: %s)",
                 arg, wl, pl);
    return FALSE;
  }
  /* Classify by the first root-like tag in the text, so that a malformed
   * platform or workload still reaches its own loader, whose errors name
   * the kind ("platform 'x.xml': line 9: malformed XML ..."). */
  g_autoptr (GBytes) bytes = dts_input_read (arg, "file", error);
  if (bytes == NULL)
    return FALSE;
  /* The text up to its first NUL (binary input is classified as neither). */
  gsize len = 0;
  const char *data = g_bytes_get_data (bytes, &len);
  g_autofree char *text = g_strndup (data ? data : "", len);
  const char *platform_tag = strstr (text, "<platform");
  const char *model_tag = strstr (text, "<model");
  if (platform_tag && (!model_tag || platform_tag < model_tag))
    *kind = KIND_PLATFORM;
  else if (model_tag)
    *kind = KIND_WORKLOAD;
  else {
    g_autoptr (xmlDoc) doc = dts_xml_load (arg, "file", error);
    if (doc == NULL)
      return FALSE;
    xmlNode *root = xmlDocGetRootElement (doc);
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "file '%s': line %d: root element <%s> is neither <model> (a workload) "
                 "nor <platform> (a SimGrid platform)",
                 arg, dts_xml_line (root), (const char *) root->name);
    return FALSE;
  }
  *path = g_strdup (arg);
  return TRUE;
}

gboolean
dts_cmd_info (int argc, char **argv, GError **error)
{
  g_autofree char *format = NULL;
  g_autofree char *gpu = NULL;
  g_autofree char *cost_model = NULL;
  g_autofree char *framework = NULL;
  g_autofree char *precision = NULL;
  g_autofree char *batch = NULL;
  g_autofree char *seq_len = NULL;
  g_autofree char *platform = NULL;
  gboolean routes = FALSE;
  gboolean bounds = FALSE;
  GOptionEntry entries[] = {
    { "format", 0, 0, G_OPTION_ARG_STRING, &format,
      "Output format: text or json; with --bounds also csv (default: text)", "FMT" },
    { "gpu", 0, 0, G_OPTION_ARG_STRING, &gpu,
      "Workloads: also show per-layer kernel times on this catalogue GPU (default: none)", "ID" },
    { "platform", 'p', 0, G_OPTION_ARG_STRING, &platform,
      "Workloads: the same on the GPU of this platform's rank 0, file or shipped name, as "
      "'dtsim run' prices it (default: none; with --bounds, " DTS_DEFAULT_PLATFORM ")", "FILE" },
    { "bounds", 0, 0, G_OPTION_ARG_NONE, &bounds,
      "Workloads: per layer and pass, the time, FLOPs, bytes, FLOP/byte, whether it is "
      "compute- or memory-bound (roofline) and its share of the iteration's compute", NULL },
    { "cost-model", 0, 0, G_OPTION_ARG_STRING, &cost_model,
      "Cost model for per-layer times (default: roofline)", "ID" },
    { "framework", 0, 0, G_OPTION_ARG_STRING, &framework,
      "Framework profile for per-layer times: a shipped name (frameworks/), generic or a "
      "file (default: " DTS_FRAMEWORK_DEFAULT ")", "ID" },
    { "precision", 0, 0, G_OPTION_ARG_STRING, &precision,
      "Precision for per-layer times: fp32, tf32, fp16, bf16, fp8 (default: the workload's, "
      "else fp32)", "P" },
    { "batch-size", 'b', 0, G_OPTION_ARG_STRING, &batch,
      "Batch size for per-layer times (default: the workload's, else 32)", "N" },
    { "seq-len", 0, 0, G_OPTION_ARG_STRING, &seq_len,
      "Workloads: tokens per sample of a sequence model, as 'dtsim run --seq-len' "
      "(default: the workload's seq-len)", "N" },
    { "routes", 0, 0, G_OPTION_ARG_NONE, &routes,
      "Platforms: show routes between a few GPU pairs", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("[WORKLOAD|PLATFORM ...]");
  g_option_context_set_summary (
      ctx, "Describe workloads (per-layer shapes, parameters, FLOPs = 2 x MACs,\n"
           "activation sizes) and platforms (GPUs by node, CPU hosts, links).\n"
           "Bare names resolve to shipped files; without arguments the default\n"
           "platform (" DTS_DEFAULT_PLATFORM ") and workload (" DTS_DEFAULT_WORKLOAD
           ") are shown.\n\n"
           "--gpu or --platform adds per-layer kernel times; --bounds prints per\n"
           "layer and pass the time, FLOPs, bytes, arithmetic intensity, whether\n"
           "the roofline finds it compute- or memory-bound (against the GPU's ridge\n"
           "point; undefined under --cost-model mlp) and its share of the\n"
           "iteration's compute time (doc/WORKLOADS.md).");
  dts_cli_add_entries (ctx, entries);
  gboolean help = FALSE;
  if (!dts_cli_parse (ctx, "info", &argc, &argv, &help, error))
    return FALSE;
  if (help)
    return TRUE;

  DtsInfoOptions opts = {
    .gpu = gpu,
    .cost_model = cost_model ? cost_model : "roofline",
    .framework = framework,
    .precision = precision,
    .batch_size = 0,
    .routes = routes,
    .platform = platform,
    .bounds = bounds,
  };
  if (!dts_cli_parse_format (format, TRUE, &opts.format, error))
    return FALSE;
  if (format != NULL && !bounds && strcmp (format, "csv") == 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--format csv is the table of --bounds: give --bounds too");
    return FALSE;
  }
  if (gpu != NULL && platform != NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--gpu and --platform both choose the GPU of the per-layer times: give one");
    return FALSE;
  }
  if (framework != NULL && gpu == NULL && platform == NULL && !bounds) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--framework prices the per-layer times of --gpu: give --gpu ID too");
    return FALSE;
  }
  /* The same range as `dtsim run --batch-size`; 0 stays "not given". */
  if (!dts_cli_parse_int_option ("batch-size", batch, 1, 1 << 20, &opts.batch_size, error)
      || !dts_cli_parse_int_option ("seq-len", seq_len, 1, DTS_RUN_MAX_SEQ_LEN, &opts.seq_len,
                                    error))
    return FALSE;

  const char *defaults[] = { DTS_DEFAULT_PLATFORM, DTS_DEFAULT_WORKLOAD };
  int n = argc > 1 ? argc - 1 : 2;
  char **args = argc > 1 ? argv + 1 : (char **) defaults;
  /* Without arguments --bounds shows the default workload only. */
  if (bounds && argc <= 1)
    n = 1, args = (char **) defaults + 1;
  if (opts.format != DTS_FORMAT_TEXT && n > 1) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--format %s describes one file at a time (got %d)", format, n);
    return FALSE;
  }
  for (int i = 0; bounds && i < n; i++) {
    g_autofree char *path = NULL;
    Kind kind;
    if (!classify (args[i], &path, &kind, error))
      return FALSE;
    if (kind == KIND_PLATFORM) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--bounds applies to workloads only ('%s' is a platform; choose the GPU "
                   "with --platform %s)",
                   args[i], args[i]);
      return FALSE;
    }
  }
  /* Named workloads with --routes are a usage error before anything is
   * printed; without arguments --routes shows the default platform only. */
  for (int i = 0; routes && i < n; i++) {
    g_autofree char *path = NULL;
    Kind kind;
    if (!classify (args[i], &path, &kind, error))
      return FALSE;
    if (kind == KIND_WORKLOAD && argc > 1) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--routes applies to platforms only ('%s' is a workload)", args[i]);
      return FALSE;
    }
  }
  if (routes && argc <= 1)
    n = 1;
  for (int i = 0; i < n; i++) {
    g_autofree char *path = NULL;
    Kind kind;
    if (!classify (args[i], &path, &kind, error))
      return FALSE;
    if (i > 0)
      printf ("\n");
    gboolean ok = kind == KIND_WORKLOAD ? dts_cli_info_workload (path, &opts, error)
                                        : dts_cli_info_platform (path, &opts, error);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}
