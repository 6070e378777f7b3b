/* sg-shim.cc - C wrappers that turn SimGrid's C++ exceptions into messages,
 * and the few link and configuration accessors SimGrid's C API lacks.
 * See sg-shim.h; everything else of SimGrid is used through its C API. */
#include "config.h"

#include <exception>
#include <set>
#include <string>
#include <vector>

#include <glib.h>
#include <glib/gstdio.h>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <xbt/config.hpp>

#include "core/input.h"
#include "sim/sg-shim.h"

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
dts_sg_config_set (const char *name_value, char **message)
{
  try {
    simgrid::s4u::Engine::set_config (std::string (name_value));
  } catch (const std::exception &e) {
    *message = first_line (e.what ());
    return 0;
  }
  return 1;
}

/* SimGrid 3.32 seals a zone by listing its hosts out of every host of the
 * platform (NetZoneImpl::seal calls get_all_hosts), so sealing them all at
 * the end costs zones x hosts: on a generated 16,384-GPU fat-tree (547
 * zones) 17% of a run. A zone whose element is closed can be sealed as
 * soon as the next zone begins, when only the hosts read so far are
 * listed. SimGrid announces a zone before it gives it its parent, so the
 * zones closed are found one announcement late: those made before the
 * last one that are neither it nor among its ancestors (an XML element
 * closes before its next sibling opens). */
namespace {
struct EarlySeal {
  std::vector<simgrid::s4u::NetZone *> pending; /* announced, not sealed */
  void
  announce (simgrid::s4u::NetZone *zone)
  {
    if (!pending.empty ()) {
      /* (s4u's get_parent() of the root is not null-safe: the kernel's) */
      std::set<const simgrid::kernel::routing::NetZoneImpl *> open;
      for (const simgrid::kernel::routing::NetZoneImpl *z = pending.back ()->get_impl ();
           z != nullptr; z = z->get_parent ())
        open.insert (z);
      std::vector<simgrid::s4u::NetZone *> still;
      for (simgrid::s4u::NetZone *z : pending)
        if (open.count (z->get_impl ()) != 0)
          still.push_back (z);
        else
          z->seal ();
      pending.swap (still);
    }
    pending.push_back (zone);
  }
};
} // namespace

/* SimGrid opens the platform by name; it gets a private copy of the bytes
 * dtsim read and validated (core/input.h), so that a FIFO or a pipe, which
 * can be read once, works, and a file replaced in between cannot make the
 * two disagree. Its messages name PATH, not the copy. */
extern "C" int
dts_sg_load_platform (const char *path, char **message)
{
  GError *error = NULL;
  char *copy = dts_input_private_copy (path, "platform", &error);
  if (copy == NULL) {
    *message = g_strdup (error->message);
    g_error_free (error);
    return 0;
  }
  int ok = 1;
  /* SimGrid's signal cannot be left: one handler, on while loading. */
  static EarlySeal *early_seal = nullptr;
  static bool connected = false;
  if (!connected) {
    simgrid::s4u::NetZone::on_creation_cb ([] (simgrid::s4u::NetZone const &zone) {
      if (early_seal != nullptr)
        early_seal->announce (const_cast<simgrid::s4u::NetZone *> (&zone));
    });
    connected = true;
  }
  EarlySeal early;
  early_seal = &early;
  try {
    simgrid::s4u::Engine::get_instance ()->load_platform (std::string (copy));
  } catch (const std::exception &e) {
    char *line = first_line (e.what ());
    char **parts = g_strsplit (line, copy, -1);
    *message = g_strjoinv (path, parts);
    g_strfreev (parts);
    g_free (line);
    ok = 0;
  }
  early_seal = nullptr;
  g_unlink (copy);
  g_free (copy);
  return ok;
}

extern "C" int
dts_sg_seal_platform (char **message)
{
  try {
    simgrid::s4u::Engine::get_instance ()->seal_platform ();
  } catch (const std::exception &e) {
    *message = first_line (e.what ());
    return 0;
  }
  return 1;
}

extern "C" int
dts_sg_network_is_plain_maxmin (void)
{
  try {
    return simgrid::config::get_value<std::string> ("network/model") == "CM02"
           && simgrid::config::get_value<std::string> ("network/solver") == "maxmin"
           && !simgrid::config::get_value<bool> ("network/crosstraffic")
           && simgrid::config::get_value<double> ("network/weight-S") == 0.0;
  } catch (const std::exception &e) {
    return 0; /* an item this SimGrid does not know: change nothing */
  }
}

extern "C" DtsSgLinkPolicy
dts_sg_link_policy (sg_link_t link)
{
  switch (link->get_sharing_policy ()) {
  case simgrid::s4u::Link::SharingPolicy::FATPIPE:
    return DTS_SG_LINK_FATPIPE;
  case simgrid::s4u::Link::SharingPolicy::SHARED:
    return DTS_SG_LINK_SHARED;
  default:
    return DTS_SG_LINK_OTHER;
  }
}

extern "C" void
dts_sg_link_unlimit (sg_link_t link)
{
  link->set_sharing_policy (simgrid::s4u::Link::SharingPolicy::SHARED);
  link->set_bandwidth (1e290);
}

extern "C" sg_comm_t
dts_sg_sendto_async (sg_host_t from, sg_host_t to, long bytes)
{
  simgrid::s4u::CommPtr comm = simgrid::s4u::Comm::sendto_async (from, to, (uint64_t) bytes);
  comm->add_ref ();
  return comm.get ();
}
