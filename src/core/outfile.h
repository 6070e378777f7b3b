/* outfile.h - output files written whole, atomically.
 *
 * A file is written to a temporary file in its own directory and renamed
 * over PATH only once every byte is written: a reader, or a second dtsim
 * writing the same PATH at the same time, sees the old file or a complete
 * new one, never a mix; a failed write (a full disk) leaves the previous
 * file in place and no temporary file behind. PATH that exists and is not
 * a regular file (/dev/null, /dev/stdout, a FIFO) is written in place: it
 * cannot be replaced. A symbolic link is followed: its target is replaced. */
#ifndef DTS_CORE_OUTFILE_H
#define DTS_CORE_OUTFILE_H

#include <glib.h>

G_BEGIN_DECLS

/* Write LEN bytes of DATA to PATH as above. WHAT names the file in errors:
 * "WHAT 'PATH': cannot write: REASON" (DTS_ERROR_IO). */
gboolean dts_outfile_write (const char *path, const char *data, gsize len, const char *what,
                            GError **error);

/* Fail, as dts_outfile_write would, when PATH could not be written, without
 * creating or changing anything: PATH is an existing file dtsim may write,
 * or its directory lets dtsim create files (a temporary one is made and
 * removed at once). For checks before a long simulation. */
gboolean dts_outfile_check (const char *path, const char *what, GError **error);

G_END_DECLS

#endif
