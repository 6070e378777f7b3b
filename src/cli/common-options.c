/* common-options.c - the options `dtsim run` and `dtsim allreduce` share,
 * declared once: the platform and the ranks, the collective and how it is
 * simulated, outputs, SimGrid items and what-ifs. Each command adds its
 * own options after these and reads the parsed text from DtsCommonArgs. */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "cli/cli-private.h"
#include "core/error.h"

void
dts_cli_common_args_clear (DtsCommonArgs *c)
{
  g_free (c->platform);
  g_free (c->gpus);
  g_free (c->collective);
  g_free (c->channels);
  g_free (c->nccl_algo);
  g_free (c->nccl_proto);
  g_free (c->nccl_min_channels);
  g_free (c->nccl_max_channels);
  g_free (c->chunk_size);
  g_free (c->coll_overhead);
  g_free (c->granularity);
  g_free (c->format);
  g_free (c->trace);
  g_strfreev (c->cfg);
  g_strfreev (c->set);
  g_strfreev (c->scale);
}

gboolean
dts_cli_parse_nccl_limits (const DtsCommonArgs *c, const char *collective, const char *why,
                           DtsCollNcclLimits *limits, GError **error)
{
  *limits = (DtsCollNcclLimits){ 0 };
  struct {
    const char *name, *text;
  } given[] = { { "nccl-algo", c->nccl_algo },
                { "nccl-proto", c->nccl_proto },
                { "nccl-min-channels", c->nccl_min_channels },
                { "nccl-max-channels", c->nccl_max_channels } };
  collective = dts_coll_algorithm_or_default (collective);
  gboolean nccl = strcmp (collective, "nccl") == 0;
  for (gsize i = 0; i < G_N_ELEMENTS (given); i++)
    if (given[i].text != NULL && !nccl) {
      if (why != NULL)
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "--%s is an option of --collective nccl, and %s", given[i].name, why);
      else
        g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                     "--%s is an option of --collective nccl, not of --collective %s",
                     given[i].name, collective);
      return FALSE;
    }
  if (!nccl)
    return TRUE;
  if ((c->nccl_algo != NULL
       && !dts_coll_nccl_parse_algos ("nccl-algo", c->nccl_algo, &limits->algos, error))
      || (c->nccl_proto != NULL
          && !dts_coll_nccl_parse_protos ("nccl-proto", c->nccl_proto, &limits->protos, error))
      || !dts_cli_parse_int_option ("nccl-min-channels", c->nccl_min_channels, 1,
                                    DTS_COLL_MAX_CHANNELS, &limits->min_channels, error)
      || !dts_cli_parse_int_option ("nccl-max-channels", c->nccl_max_channels, 1,
                                    DTS_COLL_MAX_CHANNELS, &limits->max_channels, error))
    return FALSE;
  if (c->channels != NULL) {
    if (c->nccl_min_channels != NULL || c->nccl_max_channels != NULL) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--channels with --collective nccl fixes the channel count: give it or "
                   "--nccl-min-channels/--nccl-max-channels, not both");
      return FALSE;
    }
    if (!dts_cli_parse_int_option ("channels", c->channels, 1, DTS_COLL_MAX_CHANNELS,
                                   &limits->min_channels, error))
      return FALSE;
    limits->max_channels = limits->min_channels;
    limits->by_channels = TRUE;
  }
  if (limits->min_channels > 0 && limits->max_channels > 0
      && limits->min_channels > limits->max_channels) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--nccl-min-channels %d is more than --nccl-max-channels %d",
                 limits->min_channels, limits->max_channels);
    return FALSE;
  }
  return TRUE;
}

#define S G_OPTION_ARG_STRING
void
dts_cli_add_common_entries (GOptionContext *ctx, DtsCommonArgs *c)
{
  GOptionEntry entries[] = {
    { "platform", 'p', 0, S, &c->platform,
      "SimGrid platform file, or a shipped name (default: " DTS_DEFAULT_PLATFORM ")", "FILE" },
    { "gpus", 'n', 0, S, &c->gpus, "Use the first N ranks of the platform (default: all)", "N" },
    { "collective", 0, 0, S, &c->collective,
      "Collective algorithm: nccl (per collective and size, NCCL's ring or tree, protocol "
      "and channels as its tuning model picks them on the platform), ring (NCCL-style ring "
      "on --channels rings), direct (one-shot), ps (parameter servers, dtsim run only), auto "
      "(NCCL's tuning model over every algorithm dtsim has); 'help' lists them with their "
      "options (default: " DTS_COLL_DEFAULT_ALGORITHM ")",
      "ALG" },
    { "channels", 0, 0, S, &c->channels,
      "Parallel rings of ring and the other fixed algorithms (default: 2); with "
      "--collective nccl, the one channel count it may use (default: NCCL's own)",
      "N" },
    { "nccl-algo", 0, 0, S, &c->nccl_algo,
      "With --collective nccl: the algorithms it may pick, as NCCL_ALGO (ring, tree, "
      "comma-separated; ^ for all but those; default: both)",
      "LIST" },
    { "nccl-proto", 0, 0, S, &c->nccl_proto,
      "With --collective nccl: the protocols, as NCCL_PROTO (LL, LL128, Simple; default: all "
      "that the GPUs allow)",
      "LIST" },
    { "nccl-min-channels", 0, 0, S, &c->nccl_min_channels,
      "With --collective nccl: the fewest channels to try, as NCCL_MIN_NCHANNELS (default: 2)",
      "N" },
    { "nccl-max-channels", 0, 0, S, &c->nccl_max_channels,
      "With --collective nccl: the most channels to try, as NCCL_MAX_NCHANNELS (default: the "
      "most GPUs of a communicator on one node, at least 2)",
      "N" },
    { "chunk-size", 0, 0, S, &c->chunk_size,
      "Chunk per ring step and channel (default: 2MiB, as NCCL)", "BYTES" },
    { "comm-granularity", 0, 0, S, &c->granularity,
      "How collectives are simulated: step, flow, analytic (no transfers: each "
      "collective's time on its routes, without contention) or, for dtsim run, auto "
      "(flow, with the plans that are not lock-step, such as NCCL's trees, at analytic "
      "where they are alone on the network: fast at scale; doc/SIMULATION.md); default: "
      "auto for dtsim run, flow for dtsim allreduce (step for its --steps and --svg)",
      "G" },
    { "coll-overhead", 0, 0, S, &c->coll_overhead,
      "Fixed cost of every collective call on every rank, before its first transfer "
      "(kernel launch, stream synchronisation; e.g. 30us; default: 0)",
      "T" },
    { "dump-plan", 0, 0, G_OPTION_ARG_NONE, &c->dump_plan,
      "Print every rank's program and every collective's steps, and simulate nothing "
      "(default: simulate)",
      NULL },
    { "format", 'f', 0, S, &c->format, "Output: text, json or csv (default: text)", "FMT" },
    { "trace", 't', 0, S, &c->trace,
      "Write a Chrome/Perfetto trace (tracks per GPU) to FILE (default: none)", "FILE" },
    { "cfg", 0, 0, G_OPTION_ARG_STRING_ARRAY, &c->cfg,
      "SimGrid configuration item, repeatable (e.g. network/model:LV08; default: "
      "CM02 without cross-traffic, doc/SIMULATION.md)",
      "NAME:VALUE" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &c->set,
      "What-if: set link:GLOB.bandwidth|latency, host:GLOB.speed or gpu:GLOB.FIELD, "
      "repeatable (e.g. link:*-nic*.bandwidth=50Gbps; default: none)",
      "T:GLOB.F=V" },
    { "scale", 0, 0, G_OPTION_ARG_STRING_ARRAY, &c->scale,
      "What-if: multiply network.bandwidth|latency, gpu.flops|mem_bw or T:GLOB.F, "
      "repeatable, applied after every --set (e.g. network.bandwidth=0.5; default: none)",
      "TARGET.F=X" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  dts_cli_add_entries (ctx, entries);
}
#undef S

/* Whether A and B name one file (cli-private.h). */
static gboolean
same_output (const char *a, const char *b)
{
  GStatBuf sa, sb;
  gboolean ea = g_stat (a, &sa) == 0, eb = g_stat (b, &sb) == 0;
  if (ea && eb)
    return S_ISREG (sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea != eb)
    return FALSE;
  g_autofree char *ca = g_canonicalize_filename (a, NULL);
  g_autofree char *cb = g_canonicalize_filename (b, NULL);
  return strcmp (ca, cb) == 0;
}

gboolean
dts_cli_check_distinct_outputs (const DtsCliOutput *outputs, guint n, GError **error)
{
  for (guint i = 0; i < n; i++)
    for (guint j = i + 1; j < n; j++) {
      const char *a = outputs[i].path, *b = outputs[j].path;
      if (a == NULL || b == NULL || strcmp (a, "-") == 0 || strcmp (b, "-") == 0
          || !same_output (a, b))
        continue;
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   "--%s '%s' and --%s '%s' are the same file: one would replace the other",
                   outputs[i].option, a, outputs[j].option, b);
      return FALSE;
    }
  return TRUE;
}
