/* info-workload.c - `dtsim info WORKLOAD` (filled in with the workload loader). */
#include "config.h"

#include "cli/cli-private.h"
#include "core/error.h"

gboolean
dts_cli_info_workload (const char *path, const DtsInfoOptions *opts, GError **error)
{
  g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "workload '%s': workloads cannot be described yet", path);
  return FALSE;
}
