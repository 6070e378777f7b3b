/* fuzz-workload.c - libFuzzer target: the workload loader (libxml2 parse,
 * layer table, shape inference, training settings) on arbitrary bytes. */
#include "config.h"

#include <unistd.h>

#include "fuzz-common.h"
#include "workload/workload.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write (data, size, ".xml");
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsWorkload) w = dts_workload_load (path, &error);
  if ((w == NULL) == (error == NULL))
    abort ();
  return 0;
}
