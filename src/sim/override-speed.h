/* override-speed.h - the C++ entry point sim/override.c needs for host speeds. */
#ifndef DTS_SIM_OVERRIDE_SPEED_H
#define DTS_SIM_OVERRIDE_SPEED_H

#ifdef __cplusplus
extern "C" {
#endif

/* Make HOST (an existing host name) execute RATIO times as fast from t = 0.
 * Once per host. */
void dts_sg_host_scale_speed (const char *host, double ratio);

#ifdef __cplusplus
}
#endif

#endif
