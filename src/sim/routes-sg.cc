/* routes-sg.cc - route queries that report SimGrid's errors instead of
 * aborting (see routes.h).
 *
 * SimGrid throws when two hosts have no route (std::invalid_argument from
 * Floyd and Dijkstra zones, an AssertionError from Full ones, "Bad
 * gateways" between zones); thrown inside an actor the exception ends the
 * process. An empty route between two distinct hosts (a Full zone without
 * a <route> between them) is reported the same way: SimGrid itself returns
 * it without complaint and aborts only when a transfer takes it. Once the
 * platform is sealed (dts_sg_seal_platform()), routes
 * through Floyd and Dijkstra zones are complete and can be read before the
 * simulation starts. */
#include "config.h"

#include <exception>
#include <string>

#include <glib.h>
#include <simgrid/host.h>

#include "sim/routes-sg.h"

static char *
first_line (const char *what)
{
  std::string s (what ? what : "unknown SimGrid error");
  std::string::size_type nl = s.find ('\n');
  if (nl != std::string::npos)
    s.resize (nl);
  return g_strdup (s.c_str ());
}

extern "C" int
dts_sg_host_route (sg_host_t src, sg_host_t dst, xbt_dynar_t links, char **message)
{
  try {
    unsigned long before = xbt_dynar_length (links);
    sg_host_get_route (src, dst, links);
    /* A Full zone without a <route> between two of its hosts, or with a
     * one-way route (symmetrical="NO") read backwards, gives an empty
     * route: SimGrid aborts ("no connecting path") when a transfer uses
     * one, unless the zone gives it a latency (Vivaldi). */
    if (src != dst && xbt_dynar_length (links) == before
        && !(sg_host_get_route_latency (src, dst) > 0)) {
      *message = g_strdup_printf ("an empty route: no <route> from '%s' to '%s' in their zone",
                                  sg_host_get_name (src), sg_host_get_name (dst));
      return 0;
    }
  } catch (const std::exception &e) {
    *message = first_line (e.what ());
    return 0;
  } catch (...) {
    *message = g_strdup ("unknown SimGrid error");
    return 0;
  }
  return 1;
}
