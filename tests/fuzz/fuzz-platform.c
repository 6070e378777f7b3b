/* fuzz-platform.c - libFuzzer target: the platform loader (libxml2 parse,
 * SimGrid unit and range checks, zones, clusters, GPU properties) on
 * arbitrary bytes. Every input must load or fail with a GError; anything
 * else (a crash, a sanitizer report, an abort) is a bug. */
#include "config.h"

#include <unistd.h>

#include "fuzz-common.h"
#include "platform/gpu.h"
#include "platform/platform.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static DtsGpuCatalog *catalog;
  if (catalog == NULL) {
    catalog = dts_gpu_catalog_load (NULL, NULL);
    if (catalog == NULL)
      abort (); /* DTSIM_DATADIR must point at the source tree */
  }
  const char *path = fuzz_write (data, size, ".xml");
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsPlatform) p = dts_platform_load (path, catalog, &error);
  if ((p == NULL) == (error == NULL))
    abort (); /* exactly one of a platform and an error */
  return 0;
}
