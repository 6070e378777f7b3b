/* sg-shim.cc - C wrappers that turn SimGrid's C++ exceptions into messages,
 * and the few link and configuration accessors SimGrid's C API lacks.
 * See sg-shim.h; everything else of SimGrid is used through its C API. */
#include "config.h"

#include <exception>
#include <string>

#include <glib.h>
#include <glib/gstdio.h>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
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
