/* hosts.c - SimGrid hosts by name, looked up in a hash table.
 *
 * sg_host_by_name searches the platform's zones one after the other
 * (SimGrid 3.32's NetZoneImpl::get_host_by_name_or_null), so on a fat-tree
 * of 2,048 node zones the lookups of every rank and route check took half
 * of an analytic run. The table is built from sg_host_list () on first use;
 * a name it does not hold is looked up the slow way (and kept when found),
 * so a lookup before the platform is loaded, or of a host that does not
 * exist, answers as sg_host_by_name does. Hosts live until the process
 * ends, so the pointers stay valid. */
#include "config.h"

#include <simgrid/host.h>

#include "sim/sim-private.h"

static GHashTable *by_name;      /* host name (SimGrid's) -> sg_host_t */

sg_host_t
dts_sim_host_by_name (const char *name)
{
  if (by_name == NULL) {
    by_name = g_hash_table_new (g_str_hash, g_str_equal);
    size_t n = sg_host_count ();
    sg_host_t *hosts = sg_host_list ();
    for (size_t i = 0; i < n; i++)
      g_hash_table_insert (by_name, (gpointer) sg_host_get_name (hosts[i]), hosts[i]);
    g_free (hosts);
  }
  sg_host_t h = g_hash_table_lookup (by_name, name);
  if (h == NULL) {
    h = sg_host_by_name (name);
    if (h != NULL)
      g_hash_table_insert (by_name, (gpointer) sg_host_get_name (h), h);
  }
  return h;
}
