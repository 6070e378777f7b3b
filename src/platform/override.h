/* override.h - what-if overrides (`--set`, `--scale`) on a loaded platform.
 *
 * Syntax (validated by dts_override_parse; errors quote the text):
 *   --set link:GLOB.bandwidth=VALUE   --set link:GLOB.latency=VALUE
 *   --set host:GLOB.speed=VALUE       --set gpu:GLOB.FIELD=VALUE
 *        (FIELD: flops_fp32, flops_tf32, flops_fp16, flops_bf16, flops_fp8, mem_bw, mem, sm_count)
 *   --scale network.bandwidth=F  --scale network.latency=F
 *   --scale gpu.flops=F          --scale gpu.mem_bw=F
 * GLOB is a shell-style pattern (g_pattern_match_simple) over SimGrid link
 * names (split-duplex links match as NAME, NAME_UP and NAME_DOWN), host names
 * or GPU host names. Values carry units (25Gbps, 1.5us, 15TFLOPS); factors are
 * positive numbers. A pattern that matches nothing is an error.
 *
 * GPU overrides apply to the platform view (dts_override_apply_gpus); link and
 * host overrides apply to SimGrid's loaded platform before the simulation
 * starts (src/sim/override.c, dts_sim_apply_overrides). */
#ifndef DTS_PLATFORM_OVERRIDE_H
#define DTS_PLATFORM_OVERRIDE_H

#include <glib.h>
#include "platform/platform.h"

G_BEGIN_DECLS

typedef enum {
  DTS_OVERRIDE_LINK,    /* link:GLOB.field */
  DTS_OVERRIDE_HOST,    /* host:GLOB.field */
  DTS_OVERRIDE_GPU,     /* gpu:GLOB.field */
  DTS_OVERRIDE_NETWORK, /* network.field (scale only) */
  DTS_OVERRIDE_GPU_ALL, /* gpu.field (scale only) */
} DtsOverrideTarget;

typedef struct {
  char *text;          /* as given, for reports: "link:ib*.bandwidth=50Gbps" */
  gboolean is_scale;   /* --scale (multiply) rather than --set (replace) */
  DtsOverrideTarget target;
  char *glob;          /* NULL for NETWORK / GPU_ALL */
  char *field;         /* "bandwidth", "latency", "speed", "flops", "mem_bw", ... */
  double value;        /* SI value for --set, factor for --scale */
  int matched;         /* filled when applied: how many objects it changed */
} DtsOverride;

void dts_override_clear (DtsOverride *o);

/* Parse one --set (IS_SCALE FALSE) or --scale argument into *OUT. */
gboolean dts_override_parse (const char *text, gboolean is_scale, DtsOverride *out,
                             GError **error);

/* An array of DtsOverride with dts_override_clear as clear func. */
GArray *dts_overrides_new (void);

/* Check VALUE, what override O gives FIELD of OBJECT (kind NOUN: "link",
 * "host", "GPU"), against the range dtsim simulates (platform/ranges.h:
 * bandwidths 1 B/s to 1e18 B/s, latencies 0 or 1e-12 s to 1e6 s, speeds
 * and FLOP/s 1 to 1e21). Fields without a row (memory size, SM count)
 * pass. Out of range: DTS_ERROR_INVALID naming O, OBJECT and the range.
 * (A --set value or a --scale factor out of its own range is already a
 * DTS_ERROR_USAGE error of dts_override_parse(): the command line alone
 * shows it. What a --scale makes of a platform's value depends on the
 * platform: that is this function's error, exit status 1.) */
gboolean dts_override_check_value (const DtsOverride *o, const char *noun, const char *object,
                                   const char *field, double value, GError **error);

/* Apply every GPU-level override of OVERRIDES to PLATFORM's GPU specs. */
gboolean dts_override_apply_gpus (GArray *overrides, DtsPlatform *platform, GError **error);

/* Load the platform view of PATH with the shipped GPU catalogue and apply
 * the GPU OVERRIDES (may be NULL) to it: what `run` and `allreduce` start
 * from. Errors as dts_gpu_catalog_load, dts_platform_load and
 * dts_override_apply_gpus. */
DtsPlatform *dts_override_load_platform (const char *path, GArray *overrides, GError **error);

G_END_DECLS

#endif
