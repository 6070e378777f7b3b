/* routes.h - the routes SimGrid computes between hosts of a platform, for
 * `dtsim info PLATFORM --routes` and for tests of generated platforms.
 *
 * SimGrid completes routes through Floyd and Dijkstra zones only when the
 * platform is sealed, which happens when the simulation starts; the routes
 * are therefore read once the platform is sealed (sim/routes-sg.h), which
 * dtsim does itself before the simulation starts. SimGrid aborts when an
 * actor asks for a route that does not exist, so every route the
 * simulation will use is checked first (dts_sim_check_routes()).
 * dts_sim_routes() loads a platform: it is for processes that simulate
 * nothing else. */
#ifndef DTS_SIM_ROUTES_H
#define DTS_SIM_ROUTES_H

#include <glib.h>

#include "platform/platform.h"
#include "schedule/schedule.h"

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
 * DtsRoute (owned, clear func set). Unknown host names, files SimGrid
 * refuses and pairs of hosts without a route are DTS_ERROR_INVALID errors
 * naming the file. */
GArray *dts_sim_routes (const char *path, GArray *overrides, const char *const *src,
                        const char *const *dst, guint n, GError **error);

/* Check that SimGrid, with PLATFORM loaded (and overrides applied), has a
 * route for every transfer that SCHED makes: every pair of participants
 * its collective plans enumerate (dts_coll_plan_routes) and every SEND of
 * its programs. Seals the platform. Call it before the simulation starts: a missing
 * route is a DTS_ERROR_INVALID error "platform 'PATH': line N: no route
 * from GPU 'A' (rank I) to GPU 'B' (rank J) ...", with N the line of A,
 * for the first such pair in plan order. */
gboolean dts_sim_check_routes (const DtsPlatform *platform, const DtsSchedule *sched,
                               GError **error);

/* The bottleneck share of PLAN's routes, its member ranks 0..n_ranks-1
 * being the platform's ranks of the same number, once the platform is
 * sealed: B = min over the links of the routes of the link's bandwidth over
 * the number of the plan's routes that cross it in that direction (1 for a
 * FATPIPE link); the link that sets it (first met, route by route in the
 * plan's order) and that number; and the largest route latency. A pair of
 * ranks without a route is DTS_ERROR_INVALID. */
typedef struct {
  double share_Bps;     /* 0 when the plan sends nothing */
  char *link;           /* SimGrid's name (owned), or NULL */
  int sharers;
  double latency_s;
} DtsPlanBottleneck;

gboolean dts_sim_plan_bottleneck (const DtsPlatform *platform, const DtsCollPlan *plan,
                                  DtsPlanBottleneck *out, GError **error);

/* What --collective auto needs from the platform (collective.h,
 * DtsCollTuner): the platform loaded into SimGrid with OVERRIDES applied
 * and sealed (dts_sim_load_platform, configuring SimGrid with CFG), and a
 * measure function that reads candidate plans' bottleneck shares, each
 * set of routes once (plans of one algorithm with the same peer_key share
 * it). For communicators over ranks 0..N-1 of PLATFORM (data parallelism,
 * dtsim allreduce). */
typedef struct _DtsSimTuner DtsSimTuner;
DtsSimTuner *dts_sim_tuner_new (const DtsPlatform *platform, char **cfg, GArray *overrides,
                                GError **error);
const DtsCollTuner *dts_sim_tuner_get (const DtsSimTuner *t);
/* What --collective nccl may choose (NCCL_ALGO, NCCL_PROTO, channels). */
void dts_sim_tuner_set_nccl (DtsSimTuner *t, const DtsCollNcclLimits *limits);
void dts_sim_tuner_free (DtsSimTuner *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsSimTuner, dts_sim_tuner_free)

G_END_DECLS

#endif
