/* routes.h - the routes SimGrid computes between hosts of a platform, for
 * `dtsim info PLATFORM --routes` and for tests of generated platforms.
 *
 * SimGrid completes routes through Floyd and Dijkstra zones only when the
 * platform is sealed, which happens when the simulation starts; the routes
 * are therefore read by an actor at simulated time 0. Running the engine is
 * possible once per process: dts_sim_routes() is for processes that
 * simulate nothing else. */
#ifndef DTS_SIM_ROUTES_H
#define DTS_SIM_ROUTES_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *name;           /* SimGrid's link name; split-duplex ones end in _UP or _DOWN */
  double bandwidth_Bps;
  double latency_s;
} DtsRouteLink;

typedef struct {
  char *src, *dst;        /* host names */
  GArray *links;          /* DtsRouteLink, in SimGrid's order */
  double bottleneck_Bps;  /* smallest link bandwidth (0 for an empty route) */
  double latency_s;       /* sum of the link latencies */
} DtsRoute;

void dts_route_clear (DtsRoute *route);

/* Load the platform file PATH into SimGrid (configuring SimGrid with dtsim's
 * defaults), apply OVERRIDES (DtsOverride, may be NULL; see sim/override.h)
 * and return the routes from SRC[i] to DST[i], i < N, as a GArray of
 * DtsRoute (owned, clear func set). Unknown host names and files SimGrid
 * refuses are DTS_ERROR_INVALID errors naming the file. */
GArray *dts_sim_routes (const char *path, GArray *overrides, const char *const *src,
                        const char *const *dst, guint n, GError **error);

G_END_DECLS

#endif
