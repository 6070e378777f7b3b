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

#include <simgrid/engine.h>
#include <xbt/log.h>

#include "core/error.h"
#include "sim/sg-shim.h"
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

/* Items whose value SimGrid checks by aborting. */
static const struct {
  const char *name;
  const char *values[8];
} choices[] = {
  { "network/model", { "CM02", "LV08", "SMPI", "IB", "Constant", NULL } },
  { "host/model", { "default", "compound", "ptask_L07", NULL } },
  { "cpu/model", { "Cas01", NULL } },
  { "network/optim", { "Lazy", "Full", NULL } },
  { "cpu/optim", { "Lazy", "Full", "TI", NULL } },
  { "network/solver", { "maxmin", "fairbottleneck", "bmf", NULL } },
  { "cpu/solver", { "maxmin", "fairbottleneck", "bmf", NULL } },
  { "host/solver", { "maxmin", "fairbottleneck", "bmf", NULL } },
  { "contexts/factory", { "raw", "thread", NULL } },
};

/* Items dtsim cannot honour. */
static const struct {
  const char *prefix;
  const char *why;
} refused[] = {
  { "tracing", "SimGrid's Paje tracing aborts on split-duplex and Floyd platforms; "
               "dtsim writes its own traces (--trace FILE)" },
  { "model-check", "model checking is not supported by dtsim" },
  { "smpi/", "dtsim does not run MPI programs" },
};

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
  for (guint i = 0; i < G_N_ELEMENTS (choices); i++) {
    if (strcmp (name, choices[i].name) != 0)
      continue;
    for (const char *const *v = choices[i].values; *v; v++)
      if (strcmp (*v, value) == 0)
        return TRUE;
    g_autofree char *known = g_strjoinv (", ", (char **) choices[i].values);
    g_set_error (error, DTS_ERROR, DTS_ERROR_USAGE, "--cfg '%s': unknown %s '%s' (known: %s)",
                 item, name, value, known);
    return FALSE;
  }
  return TRUE;
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
