/* override-speed.cc - scale a host's speed after SimGrid sealed it.
 *
 * SimGrid 3.32 seals host speeds while parsing; a constant speed profile
 * (availability RATIO from t = 0) is the public way left to change how fast
 * the host executes. Measured: 1 Gflop on a 1 Gf host with ratio 2.5 takes
 * 0.4 s. */
#include "config.h"

#include <string>

#include <glib.h>
#include <simgrid/kernel/ProfileBuilder.hpp>
#include <simgrid/s4u/Host.hpp>

#include "sim/override-speed.h"

extern "C" void
dts_sg_host_scale_speed (const char *host, double ratio)
{
  simgrid::s4u::Host *h = simgrid::s4u::Host::by_name (host);
  std::string name = std::string ("dtsim-speed-") + host;
  char num[G_ASCII_DTOSTR_BUF_SIZE];
  std::string profile = std::string ("0 ") + g_ascii_dtostr (num, sizeof num, ratio) + "\n";
  h->set_speed_profile (simgrid::kernel::profile::ProfileBuilder::from_string (name, profile, -1));
}
