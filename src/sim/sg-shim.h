/* sg-shim.h - the few SimGrid entry points dtsim needs from C++.
 *
 * SimGrid's C API aborts the process on a bad configuration key or value
 * and on a platform file it cannot load; the C++ API throws. These wrappers
 * catch the exceptions and hand back SimGrid's message, so that bad input
 * becomes a dtsim error instead of an abort. Values that SimGrid rejects by
 * aborting even in C++ (unknown model names, a NAME without ':VALUE') must
 * be validated before calling (sim/config.c). */
#ifndef DTS_SIM_SG_SHIM_H
#define DTS_SIM_SG_SHIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* Set one configuration item "NAME:VALUE". Returns 1 on success; otherwise
 * 0 with *MESSAGE the first line of SimGrid's explanation (g_free it). */
int dts_sg_config_set (const char *name_value, char **message);

/* Load the platform file PATH. Returns 1 on success; otherwise 0 with
 * *MESSAGE set as above. */
int dts_sg_load_platform (const char *path, char **message);

#ifdef __cplusplus
}
#endif

#endif
