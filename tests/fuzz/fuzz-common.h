/* fuzz-common.h - shared by the libFuzzer harnesses (tests/fuzz/README.md).
 *
 * The loaders read files by path, as dtsim does; each input is written to
 * one scratch file (in $TMPDIR) that is rewritten for every run, and the
 * input cache (core/input.h) is told to forget it. */
#ifndef DTS_FUZZ_COMMON_H
#define DTS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <glib.h>

#include "core/input.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* The scratch file's path, made on first use, with SUFFIX (".xml"). */
static const char *
fuzz_scratch (const char *suffix)
{
  static char *path;
  if (path == NULL) {
    g_autofree char *name = g_strdup_printf ("dtsim-fuzz-%d%s", (int) getpid (), suffix);
    path = g_build_filename (g_get_tmp_dir (), name, NULL);
  }
  return path;
}

/* Write DATA to the scratch file and return its path. */
static G_GNUC_UNUSED const char *
fuzz_write (const uint8_t *data, size_t size, const char *suffix)
{
  const char *path = fuzz_scratch (suffix);
  /* Plain stdio: g_file_set_contents would sync the disk every run. */
  FILE *f = fopen (path, "wb");
  if (f == NULL || fwrite (data, 1, size, f) != size || fclose (f) != 0)
    abort ();
  dts_input_forget (path);
  return path;
}

#endif
