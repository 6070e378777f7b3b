/* override.h - apply what-if overrides (platform/override.h) to SimGrid's
 * loaded platform: link bandwidths and latencies, host speeds.
 *
 * Call after the platform is loaded and before the simulation starts.
 * Split-duplex links are SimGrid links NAME_UP and NAME_DOWN; a pattern
 * matches them through NAME as well as through their own names. Host speed
 * overrides act through a constant speed profile (SimGrid 3.32 seals host
 * speeds while parsing): the host's executions run at the new speed, while
 * sg_host_get_speed() still reports the file's speed; such a host must not
 * also have a speed_file. GPU overrides are not applied here
 * (dts_override_apply_gpus does that on the platform view). Each applied
 * override's `matched` counts the SimGrid links or hosts it changed; a
 * link or host override that matches nothing is a DTS_ERROR_NOT_FOUND
 * error. */
#ifndef DTS_SIM_OVERRIDE_H
#define DTS_SIM_OVERRIDE_H

#include <glib.h>
#include "platform/override.h"

G_BEGIN_DECLS

gboolean dts_sim_apply_overrides (GArray *overrides, GError **error);

G_END_DECLS

#endif
