/* error.h - the one error domain of dtsim.
 *
 * Every fallible function takes a GError ** last and returns TRUE / non-NULL on
 * success. Messages name the file, the line and what was expected, in the form
 *   workload 'resnet.xml': line 42: unknown layer type 'convv' (known: conv, fc, ...)
 * Only main() prints them (prefixed "dtsim: error: ") and picks the exit status. */
#ifndef DTS_CORE_ERROR_H
#define DTS_CORE_ERROR_H

#include <glib.h>

G_BEGIN_DECLS

#define DTS_ERROR (dts_error_quark ())

typedef enum {
  DTS_ERROR_IO,        /* a file cannot be read or written */
  DTS_ERROR_PARSE,     /* malformed text: XML, numbers, units */
  DTS_ERROR_INVALID,   /* well-formed but wrong: unknown names, bad values, cycles */
  DTS_ERROR_NOT_FOUND, /* a named file, model or entry does not exist */
  DTS_ERROR_USAGE,     /* bad command-line use (exit status 2) */
} DtsErrorCode;

GQuark dts_error_quark (void);

G_END_DECLS

#endif
