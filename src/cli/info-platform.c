/* info-platform.c - `dtsim info PLATFORM` (filled in with the platform loader). */
#include "config.h"

#include "cli/cli-private.h"
#include "core/error.h"

gboolean
dts_cli_info_platform (const char *path, const DtsInfoOptions *opts, GError **error)
{
  g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID, "platform '%s': platforms cannot be described yet", path);
  return FALSE;
}
