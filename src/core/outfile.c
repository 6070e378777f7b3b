/* outfile.c - atomic output files (outfile.h), on GLib's
 * g_file_set_contents_full: a temporary file PATH.XXXXXX beside PATH,
 * written, flushed to disk and renamed over PATH; removed on failure. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "core/error.h"
#include "core/outfile.h"

static gboolean
write_error (GError **error, const char *what, const char *path, const char *reason)
{
  g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s '%s': cannot write: %s", what, path, reason);
  return FALSE;
}

/* Write into an existing non-regular file (a device, a FIFO). */
static gboolean
write_in_place (const char *path, const char *data, gsize len, const char *what,
                GError **error)
{
  FILE *f = fopen (path, "wb");
  if (f == NULL)
    return write_error (error, what, path, g_strerror (errno));
  gboolean ok = fwrite (data, 1, len, f) == len;
  int saved = errno;
  if (fclose (f) != 0 && ok) {
    ok = FALSE;
    saved = errno;
  }
  return ok || write_error (error, what, path, g_strerror (saved ? saved : EIO));
}

gboolean
dts_outfile_write (const char *path, const char *data, gsize len, const char *what,
                   GError **error)
{
  struct stat st;
  if (g_stat (path, &st) == 0 && !S_ISREG (st.st_mode)) {
    if (S_ISDIR (st.st_mode))
      return write_error (error, what, path, "is a directory");
    return write_in_place (path, data, len, what, error);
  }
  /* Respect a read-only file, as opening it for writing would. */
  if (g_access (path, F_OK) == 0 && g_access (path, W_OK) != 0)
    return write_error (error, what, path, g_strerror (errno));
  /* Replace the target of a link, not the link. */
  char target[PATH_MAX];
  const char *dest = path;
  if (g_lstat (path, &st) == 0 && S_ISLNK (st.st_mode) && realpath (path, target) != NULL)
    dest = target;
  g_autoptr (GError) local = NULL;
  if (!g_file_set_contents_full (dest, data, (gssize) len, G_FILE_SET_CONTENTS_CONSISTENT, 0666,
                                 &local)) {
    /* GLib's message names the temporary file ("Failed to write file
     * 'PATH.XXXXXX': write() failed: No space left on device"): keep the
     * reason, its last part. */
    const char *reason = g_strrstr (local->message, ": ");
    reason = reason ? reason + 2 : local->message;
    return write_error (error, what, path, reason);
  }
  return TRUE;
}

gboolean
dts_outfile_check (const char *path, const char *what, GError **error)
{
  struct stat st;
  if (g_stat (path, &st) == 0) {
    if (S_ISDIR (st.st_mode))
      return write_error (error, what, path, "is a directory");
    if (!S_ISREG (st.st_mode)) {
      /* A device or a FIFO: opening a FIFO for writing would wait for a
       * reader, so only its permission is checked. */
      if (g_access (path, W_OK) != 0)
        return write_error (error, what, path, g_strerror (errno));
      return TRUE;
    }
    if (g_access (path, W_OK) != 0)
      return write_error (error, what, path, g_strerror (errno));
  }
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *probe = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  int fd = g_mkstemp_full (probe, O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    return write_error (error, what, path, g_strerror (errno));
  close (fd);
  g_unlink (probe);
  return TRUE;
}
