/* routes-sg.cc - route queries that report SimGrid's errors instead of
 * aborting (see routes.h).
 *
 * SimGrid throws when two hosts have no route (std::invalid_argument from
 * Floyd and Dijkstra zones, an AssertionError from Full ones, "Bad
 * gateways" between zones); thrown inside an actor the exception ends the
 * process. Once the platform is sealed (dts_sg_seal_platform()), routes
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
    sg_host_get_route (src, dst, links);
  } catch (const std::exception &e) {
    *message = first_line (e.what ());
    return 0;
  } catch (...) {
    *message = g_strdup ("unknown SimGrid error");
    return 0;
  }
  return 1;
}
