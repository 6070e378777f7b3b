/* input.h - input files read once, whole, with a size limit.
 *
 * Every file dtsim reads (platforms, workloads, the GPU catalogue, kernel
 * data) is read here exactly once per process and kept: a second reader of
 * the same path (the classifier of `dtsim info`, then the loader, then
 * SimGrid) gets the same bytes. So pipes, FIFOs, /dev/stdin and process
 * substitutions (`-p <(dtsim platform ...)`) work, and what SimGrid loads is
 * byte for byte what dtsim validated.
 *
 * Limits (doc/ROBUSTNESS.md): a file larger than the size limit is refused
 * after reading at most the limit plus one byte, so /dev/zero or a runaway
 * pipe cannot exhaust memory. The limits are process-wide settings, set
 * once by main from `dtsim --max-input-size` and `--max-hosts` before any
 * command runs (a parameter would have to cross every loader's signature
 * for a value that never changes during a run). */
#ifndef DTS_CORE_INPUT_H
#define DTS_CORE_INPUT_H

#include <glib.h>

G_BEGIN_DECLS

/* Default limits: 128 MiB per input file (a generated platform of 131072
 * GPUs is 82 MB) and 131072 hosts in a platform (about 1.3 GB to load). */
#define DTS_INPUT_DEFAULT_MAX_BYTES (128u * 1024 * 1024)
#define DTS_INPUT_DEFAULT_MAX_HOSTS 131072

gsize dts_input_max_bytes (void);
void dts_input_set_max_bytes (gsize max_bytes);
guint dts_input_max_hosts (void);
void dts_input_set_max_hosts (guint max_hosts);

/* The contents of PATH, read on the first call for PATH and shared by every
 * later one (a new reference: unref it). KIND names the file in messages
 * ("platform"): "KIND 'PATH': no such file" (DTS_ERROR_NOT_FOUND),
 * "is a directory", "cannot read: ...", "is larger than N bytes ..."
 * (DTS_ERROR_IO). */
GBytes *dts_input_read (const char *path, const char *kind, GError **error);

/* The contents of PATH as dts_input_read() gives them, as text: a new
 * NUL-terminated string (g_free it), its length in LEN when LEN is not
 * NULL. A NUL byte in the file is an error naming its line
 * (DTS_ERROR_PARSE): "KIND 'PATH': line N: a NUL byte (expected text)". */
char *dts_input_read_text (const char *path, const char *kind, gsize *len, GError **error);

/* The contents of PATH when it is a regular file, for files of a results
 * folder that another program wrote (a sweep's points): the file is opened
 * without blocking, so that a FIFO is refused at once ("KIND 'PATH': not a
 * regular file") instead of waiting for a writer, read under the size
 * limit, and not kept (a sweep reads thousands, each once or twice). A new
 * NUL-terminated string, or NULL with ERROR set as dts_input_read() and
 * dts_input_read_text() (a NUL byte) set it. */
char *dts_input_read_regular (const char *path, const char *kind, GError **error);

/* Forget what was read from PATH, so that the next dts_input_read() reads
 * it again: for programs that rewrite one file many times in place (the
 * fuzzers in tests/fuzz/). */
void dts_input_forget (const char *path);

/* A private temporary copy of PATH's contents (as dts_input_read gives
 * them) in the temporary directory, with PATH's extension, for libraries
 * that open files by name (SimGrid). Returns the copy's name (g_free it;
 * the caller removes the file), or NULL with ERROR set. */
char *dts_input_private_copy (const char *path, const char *kind, GError **error);

G_END_DECLS

#endif
