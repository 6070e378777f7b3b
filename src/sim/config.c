/* config.c - SimGrid start-up and configuration for dtsim.
 *
 * Why CM02 without cross-traffic: SimGrid's default LV08 model multiplies
 * every latency by 13.01, bandwidth by 0.97 and adds 5% reverse
 * cross-traffic per flow. Those factors calibrate TCP over Ethernet; on
 * NVLink and InfiniBand rings they inflate all-reduce times 1.1x to 12x
 * (SIMGRID-NOTES.md), while CM02 without cross-traffic reproduces the ring
 * closed form 2(N-1)/N S/B + 2(N-1) L to 6 digits. The TCP window bound
 * (rate <= TCP-gamma / (2 x latency)) is switched off too: GPU transports
 * (NVLink, RDMA) have no TCP window.
 *
 * SimGrid aborts on a malformed item or an unknown model name and throws on
 * unknown keys or ill-typed values. The first two are checked here against
 * the names SimGrid 3.32 accepts; the others are caught in sg-shim.cc.
 *
 * Note: host/model:default means SimGrid's Cas01 + LV08 bundle whatever
 * network/model says (measured: a ring then takes LV08's time); use
 * host/model:compound to combine a host model with the network model. */
#include "config.h"

#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef HAVE_MALLOC_H
#include <malloc.h>
#endif

#include <simgrid/engine.h>
#include <xbt/log.h>

#include <math.h>

#include "core/error.h"
#include "core/units.h"
#include "platform/ranges.h"
#include "sim/sg-shim.h"
#include "sim/sim-private.h"
#include "sim/sim.h"

/* contexts/guard-size:0 — SimGrid protects each actor stack with a guard
 * page, which costs two memory mappings per actor; with two actors per GPU,
 * 16k GPUs exceed Linux's default vm.max_map_count (65530) and SimGrid
 * aborts ("Failed to protect stack"). dtsim's actors keep shallow stacks;
 * `--cfg=contexts/guard-size:1` restores the guard pages. */
static const char *const default_cfg[] = {
  "network/model:CM02",
  "network/crosstraffic:0",
  "network/TCP-gamma:0",
  "contexts/guard-size:0",
  NULL,
};

const char *const *
dts_sim_default_cfg (void)
{
  return default_cfg;
}

/* The SimGrid configuration items dtsim passes through, each with the
 * values it accepts: SimGrid checks many values by aborting, hanging or
 * crashing (network/model:Constant refuses every link; stack sizes below a
 * page crash; surf/precision:-1 hangs; plugins and debug breakpoints abort),
 * so anything not listed here is refused before SimGrid sees it. */
typedef enum { CFG_CHOICE, CFG_NUMBER, CFG_INT } CfgKind;

static const struct {
  const char *name;
  CfgKind kind;
  const char *values[8]; /* CFG_CHOICE */
  double min, max;       /* CFG_NUMBER, CFG_INT: inclusive range */
  gboolean zero_ok;      /* CFG_NUMBER: 0 (off) is accepted besides the range */
} known[] = {
  { "network/model", CFG_CHOICE, { "CM02", "LV08", "SMPI", "IB", NULL }, 0, 0, FALSE },
  { "network/crosstraffic", CFG_CHOICE, { "0", "1", "yes", "no", NULL }, 0, 0, FALSE },
  { "network/optim", CFG_CHOICE, { "Lazy", "Full", NULL }, 0, 0, FALSE },
  { "network/solver", CFG_CHOICE, { "maxmin", "fairbottleneck", "bmf", NULL }, 0, 0, FALSE },
  { "host/model", CFG_CHOICE, { "default", "compound", "ptask_L07", NULL }, 0, 0, FALSE },
  { "cpu/model", CFG_CHOICE, { "Cas01", NULL }, 0, 0, FALSE },
  { "cpu/optim", CFG_CHOICE, { "Lazy", "Full", "TI", NULL }, 0, 0, FALSE },
  { "cpu/solver", CFG_CHOICE, { "maxmin", "fairbottleneck", "bmf", NULL }, 0, 0, FALSE },
  { "host/solver", CFG_CHOICE, { "maxmin", "fairbottleneck", "bmf", NULL }, 0, 0, FALSE },
  { "contexts/factory", CFG_CHOICE, { "raw", "thread", NULL }, 0, 0, FALSE },
  /* Bytes: a TCP window below one byte, like a denormal one, stalls every flow. */
  { "network/TCP-gamma", CFG_NUMBER, { NULL }, 1, 1e18, TRUE },
  /* Factors multiply every latency and bandwidth: the range of --scale
   * factors (platform/ranges.h), refreshed at start-up below. */
  { "network/latency-factor", CFG_NUMBER, { NULL }, 0, 0, FALSE },
  { "network/bandwidth-factor", CFG_NUMBER, { NULL }, 0, 0, FALSE },
  { "network/weight-S", CFG_NUMBER, { NULL }, 1, 1e18, TRUE },
  /* Below 1e-15 a relative precision is finer than a double. */
  { "maxmin/precision", CFG_NUMBER, { NULL }, 1e-15, 1e-2, FALSE },
  { "surf/precision", CFG_NUMBER, { NULL }, 1e-15, 1e-2, FALSE },
  { "contexts/stack-size", CFG_INT, { NULL }, 64, 1048576, FALSE },  /* KiB */
  { "contexts/guard-size", CFG_INT, { NULL }, 0, 64, FALSE },        /* pages */
};

/* Items dtsim cannot honour, with the reason. */
static const struct {
  const char *prefix;
  const char *why;
} refused[] = {
  { "tracing", "SimGrid's Paje tracing aborts on split-duplex and Floyd platforms; "
               "dtsim writes its own traces (--trace FILE)" },
  { "model-check", "model checking is not supported by dtsim" },
  { "smpi/", "dtsim does not run MPI programs" },
};

static char *
known_names (void)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (known); i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", known[i].name);
  return g_string_free (s, FALSE);
}

static gboolean
check_item (const char *item, GError **error)
{
  const char *colon = strchr (item, ':');
  if (colon == NULL || colon == item || colon[1] == '\0') {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                 "--cfg '%s': expected NAME:VALUE (e.g. network/model:CM02)", item);
    return FALSE;
  }
  g_autofree char *name = g_strndup (item, colon - item);
  const char *value = colon + 1;
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    if (g_str_has_prefix (name, refused[i].prefix)) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--cfg '%s': %s", item, refused[i].why);
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (known); i++) {
    if (strcmp (name, known[i].name) != 0)
      continue;
    if (known[i].kind == CFG_CHOICE) {
      for (const char *const *v = known[i].values; *v; v++)
        if (strcmp (*v, value) == 0)
          return TRUE;
      g_autofree char *list = g_strjoinv (", ", (char **) known[i].values);
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--cfg '%s': unknown %s '%s' (known: %s)",
                   item, name, value, list);
      return FALSE;
    }
    char *end = NULL;
    double v = dts_units_strtod (value, &end);
    gboolean is_int = known[i].kind == CFG_INT;
    gboolean factor = g_str_has_suffix (name, "-factor");
    double min = known[i].min, max = known[i].max;
    if (factor) {
      min = dts_range_get (DTS_RANGE_FACTOR)->min;
      max = dts_range_get (DTS_RANGE_FACTOR)->max;
    }
    gboolean ok = end != value && *end == '\0' && isfinite (v)
                  && ((v >= min && v <= max) || (v == 0 && known[i].zero_ok))
                  && (!is_int || v == floor (v));
    if (!ok) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
                   is_int ? "--cfg '%s': expected %s%s from %.10g to %.10g"
                          : "--cfg '%s': expected %s%s from %g to %g",
                   item,
                   known[i].zero_ok ? "0 or " : "", is_int ? "an integer" : "a number", min, max);
      return FALSE;
    }
    return TRUE;
  }
  g_autofree char *names = known_names ();
  g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE,
               "--cfg '%s': dtsim does not pass '%s' to SimGrid (known: %s)", item, name, names);
  return FALSE;
}

gboolean
dts_sim_cfg_check (char **cfg, GError **error)
{
  for (char **c = cfg; c && *c; c++)
    if (!check_item (*c, error))
      return FALSE;
  return TRUE;
}

static gboolean configured;
static GPtrArray *applied;

char **
dts_sim_cfg_applied (void)
{
  return applied ? (char **) applied->pdata : NULL;
}

static gboolean
set_item (const char *item, GError **error)
{
  g_autofree char *message = NULL;
  if (!dts_sg_config_set (item, &message)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--cfg '%s': SimGrid rejects it: %s", item,
                 message);
    return FALSE;
  }
  g_ptr_array_insert (applied, applied->len - 1, g_strdup (item));
  return TRUE;
}

gboolean
dts_sim_configure (char **cfg, GError **error)
{
  if (configured) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "the simulator can be configured once per process");
    return FALSE;
  }
  if (!dts_sim_cfg_check (cfg, error))
    return FALSE;
  configured = TRUE;
#if defined(HAVE_MALLOPT) && defined(M_MMAP_MAX)
  /* SimGrid allocates every actor stack with calloc of contexts/stack-size
   * (8 MiB), which glibc serves with mmap, so only the pages an actor
   * touches are resident. glibc maps at most 65,536 chunks (M_MMAP_MAX);
   * past that, the stacks of a run of more than 32,768 GPUs came from the
   * heap, zeroed in full: 8 MiB resident per actor, 18 GB and more at
   * 65,536 GPUs. The kernel's own limit is checked before the actors start
   * (dts_sim_check_map_count). */
  mallopt (M_MMAP_MAX, 1 << 30);
#endif
  /* Before simgrid_init, so that not even its start-up messages show. */
  xbt_log_control_set ("root.thresh:critical");
  char arg0[] = "dtsim";
  char *argv[] = { arg0, NULL };
  int argc = 1;
  simgrid_init (&argc, argv);

  applied = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (applied, NULL);
  for (const char *const *d = default_cfg; *d; d++)
    if (!set_item (*d, error))
      return FALSE;
  for (char **c = cfg; c && *c; c++)
    if (!set_item (*c, error))
      return FALSE;
  return TRUE;
}

gboolean
dts_sim_check_map_count (guint n_actors, const char *limit_path, GError **error)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents (limit_path, &text, NULL, NULL))
    return TRUE; /* not Linux, or not readable: nothing to check */
  guint64 limit = g_ascii_strtoull (text, NULL, 10);
  if (limit == 0)
    return TRUE;
  /* The mappings the process has already (libraries, heap), and some room. */
  g_autofree char *maps = NULL;
  guint64 used = 0;
  if (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL))
    for (const char *p = maps; *p; p++)
      used += *p == '\n';
  guint64 need = used + n_actors + 1024;
  if (need <= limit)
    return TRUE;
  g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
               "%u simulated streams need one memory mapping each for their stacks, %" G_GUINT64_FORMAT
               " in all, more than this machine's vm.max_map_count of %" G_GUINT64_FORMAT
               " (%s); raise it (as root: sysctl -w vm.max_map_count=%" G_GUINT64_FORMAT
               ") or simulate fewer GPUs",
               n_actors, need, limit, limit_path, MAX (2 * need, (guint64) 262144));
  return FALSE;
}

/* Room for what the simulation allocates besides the stacks (SimGrid's
 * engine, the trace, the plans): generous, since it only decides when to
 * refuse. */
#define ADDRESS_SPACE_ROOM (512.0 * 1024 * 1024)

gboolean
dts_sim_check_address_space (guint n_actors, long stack_kib, GError **error)
{
  struct rlimit rl;
  if (getrlimit (RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return TRUE;
  double limit = (double) rl.rlim_cur;
  /* The address space in use: the first field of /proc/self/statm, pages. */
  double used = 0;
  g_autofree char *statm = NULL;
  long page = sysconf (_SC_PAGESIZE);
  if (page > 0 && g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL))
    used = g_ascii_strtod (statm, NULL) * page;
  double stacks = (double) n_actors * stack_kib * 1024.0;
  if (used + stacks + ADDRESS_SPACE_ROOM <= limit)
    return TRUE;
  /* The largest power-of-two stack of at least 64 KiB that fits. */
  double room = limit - used - ADDRESS_SPACE_ROOM;
  long fit = 0;
  for (long kib = 64; kib < stack_kib && room > 0 && (double) n_actors * kib * 1024.0 <= room;
       kib *= 2)
    fit = kib;
  g_autofree char *fix = fit > 0
                             ? g_strdup_printf ("give --cfg contexts/stack-size:%ld (KiB; dtsim's "
                                                "streams keep shallow stacks), raise the limit "
                                                "(ulimit -v) or simulate fewer GPUs",
                                                fit)
                             : g_strdup ("raise the limit (ulimit -v) or simulate fewer GPUs");
  g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
               "%u simulated streams need a stack of %ld KiB each, %.0f MiB in all, which with "
               "the %.0f MiB in use and %.0f MiB for the simulation exceed this process's "
               "address-space limit of %.0f MiB (ulimit -v); %s",
               n_actors, stack_kib, stacks / 1048576.0, used / 1048576.0,
               ADDRESS_SPACE_ROOM / 1048576.0, limit / 1048576.0, fix);
  return FALSE;
}
