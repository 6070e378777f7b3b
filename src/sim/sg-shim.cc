/* sg-shim.cc - C wrappers that turn SimGrid's C++ exceptions into messages.
 * See sg-shim.h; everything else of SimGrid is used through its C API. */
#include "config.h"

#include <exception>
#include <string>

#include <glib.h>
#include <simgrid/s4u/Engine.hpp>

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

extern "C" int
dts_sg_load_platform (const char *path, char **message)
{
  try {
    simgrid::s4u::Engine::get_instance ()->load_platform (std::string (path));
  } catch (const std::exception &e) {
    *message = first_line (e.what ());
    return 0;
  }
  return 1;
}
