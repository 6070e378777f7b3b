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

#include <simgrid/forward.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Set one configuration item "NAME:VALUE". Returns 1 on success; otherwise
 * 0 with *MESSAGE the first line of SimGrid's explanation (g_free it). */
int dts_sg_config_set (const char *name_value, char **message);

/* Load the platform file PATH. Returns 1 on success; otherwise 0 with
 * *MESSAGE set as above. */
int dts_sg_load_platform (const char *path, char **message);

/* Seal the loaded platform, so that routes can be queried before the
 * simulation starts. Returns 1 on success; otherwise 0 with *MESSAGE. */
int dts_sg_seal_platform (char **message);

/* 1 when flow rates come from SimGrid's max-min solver over CM02 links
 * with every flow weighing the same on each link it crosses: network/model
 * CM02, network/solver maxmin, no cross-traffic, network/weight-S 0. */
int dts_sg_network_is_plain_maxmin (void);

/* How LINK shares its bandwidth (SimGrid's s4u::Link::SharingPolicy). */
typedef enum {
  DTS_SG_LINK_FATPIPE = 0,
  DTS_SG_LINK_SHARED = 1,
  DTS_SG_LINK_OTHER = 2,     /* split-duplex (never on a route), wifi, non-linear */
} DtsSgLinkPolicy;
DtsSgLinkPolicy dts_sg_link_policy (sg_link_t link);

/* Make LINK a SHARED link of practically infinite bandwidth (1e290 B/s):
 * it stays on its routes with its latency but never limits a rate. Only
 * for FATPIPE links that provably never limit a flow (see sim.c). */
void dts_sg_link_unlimit (sg_link_t link);

/* Start a flow of BYTES from host FROM to host TO with no receiver to
 * match (s4u::Comm::sendto_async), from inside an actor: the same network
 * action as a mailbox communication between the two hosts. Wait for it
 * with sg_comm_wait or sg_comm_wait_all, which release it. */
sg_comm_t dts_sg_sendto_async (sg_host_t from, sg_host_t to, long bytes);

#ifdef __cplusplus
}
#endif

#endif
