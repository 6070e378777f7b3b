/* routes-sg.h - route queries that turn SimGrid's exceptions into messages
 * (the C API would end the process). */
#ifndef DTS_SIM_ROUTES_SG_H
#define DTS_SIM_ROUTES_SG_H

#include <simgrid/forward.h>
#include <xbt/dynar.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Append the links of the route from SRC to DST to LINKS (sg_link_t); the
 * platform must be sealed (sg-shim.h) for routes through Floyd and Dijkstra
 * zones.
 * Returns 1 on success; otherwise 0 with *MESSAGE the first line of
 * SimGrid's explanation (g_free it), e.g. when the hosts have no route or,
 * for distinct hosts, an empty one without latency (what SimGrid gives a
 * Full zone without a <route> between them and aborts on when a transfer
 * takes it). */
int dts_sg_host_route (sg_host_t src, sg_host_t dst, xbt_dynar_t links, char **message);

#ifdef __cplusplus
}
#endif

#endif
