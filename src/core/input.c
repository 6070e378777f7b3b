/* input.c - read input files once, whole, under a size limit (input.h).
 *
 * The file is opened once and read with read(2) until end of file, so that
 * a FIFO or a pipe, which can be read only once, and a character device
 * that never ends (/dev/zero) behave like a regular file: the first yields
 * its bytes, the second stops at the limit. g_file_get_contents would read
 * a device to the end of memory. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "core/error.h"
#include "core/input.h"

static gsize max_bytes = DTS_INPUT_DEFAULT_MAX_BYTES;
static guint max_hosts = DTS_INPUT_DEFAULT_MAX_HOSTS;
/* What was read from a path, for the life of the process (inputs are few).
 * A regular file is read again when it changed since (a test or `dtsim
 * cost train` rewrites a file it read); anything else (a FIFO, a pipe, a
 * device) can be read only once and is never read again. */
typedef struct {
  GBytes *bytes;
  gboolean regular;
  struct stat st;
} Entry;

static void
entry_free (gpointer p)
{
  Entry *e = p;
  g_bytes_unref (e->bytes);
  g_free (e);
}

static GHashTable *contents; /* path -> Entry */

static gboolean
same_file (const struct stat *a, const struct stat *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size
         && a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

gsize
dts_input_max_bytes (void)
{
  return max_bytes;
}

void
dts_input_set_max_bytes (gsize v)
{
  g_return_if_fail (v > 0);
  max_bytes = v;
}

guint
dts_input_max_hosts (void)
{
  return max_hosts;
}

void
dts_input_set_max_hosts (guint v)
{
  g_return_if_fail (v > 0);
  max_hosts = v;
}

static gboolean
io_error (GError **error, const char *kind, const char *path, int err)
{
  g_set_error (error, DTS_ERROR, err == ENOENT ? DTS_ERROR_NOT_FOUND : DTS_ERROR_IO,
               err == ENOENT ? "%s '%s': no such file" : "%s '%s': cannot read: %s", kind, path,
               g_strerror (err));
  return FALSE;
}

static GBytes *
read_fd (int fd, const char *kind, const char *path, GError **error)
{
  g_autoptr (GByteArray) buf = g_byte_array_new ();
  guint8 chunk[65536];
  for (;;) {
    ssize_t n = read (fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      io_error (error, kind, path, errno);
      return NULL;
    }
    if (n == 0)
      break;
    if (buf->len + (gsize) n > max_bytes) {
      g_set_error (error, DTS_ERROR, DTS_ERROR_IO,
                   "%s '%s': larger than %" G_GSIZE_FORMAT
                   " bytes, dtsim's input size limit (raise it with "
                   "'dtsim --max-input-size SIZE COMMAND ...')",
                   kind, path, max_bytes);
      return NULL;
    }
    g_byte_array_append (buf, chunk, (guint) n);
  }
  return g_byte_array_free_to_bytes (g_steal_pointer (&buf));
}

/* PATH opened with FLAGS and its status in *ST: the descriptor, or -1 with
 * ERROR set as io_error says. */
static int
open_stat (const char *path, int flags, const char *kind, struct stat *st, GError **error)
{
  int fd = g_open (path, flags, 0);
  if (fd < 0) {
    io_error (error, kind, path, errno);
    return -1;
  }
  if (fstat (fd, st) != 0) {
    int err = errno;
    close (fd);
    io_error (error, kind, path, err);
    return -1;
  }
  return fd;
}

GBytes *
dts_input_read (const char *path, const char *kind, GError **error)
{
  g_return_val_if_fail (path != NULL && kind != NULL, NULL);
  Entry *cached = contents ? g_hash_table_lookup (contents, path) : NULL;
  if (cached != NULL) {
    struct stat now;
    if (!cached->regular || (g_stat (path, &now) == 0 && same_file (&now, &cached->st)))
      return g_bytes_ref (cached->bytes);
  }
  struct stat st;
  int fd = open_stat (path, O_RDONLY | O_CLOEXEC, kind, &st, error);
  if (fd < 0)
    return NULL;
  if (S_ISDIR (st.st_mode)) {
    close (fd);
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s '%s': is a directory", kind, path);
    return NULL;
  }
  GBytes *bytes = read_fd (fd, kind, path, error);
  close (fd);
  if (bytes == NULL)
    return NULL;
  if (contents == NULL)
    contents = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, entry_free);
  Entry *e = g_new0 (Entry, 1);
  e->bytes = g_bytes_ref (bytes);
  e->regular = S_ISREG (st.st_mode);
  e->st = st;
  g_hash_table_insert (contents, g_strdup (path), e);
  return bytes;
}

/* BYTES as a new NUL-terminated string, or NULL when they hold a NUL
 * byte: the parsers would stop there and drop every later line (a key
 * file cut at a NUL used to lose its last options with exit 0). */
static char *
bytes_to_text (GBytes *bytes, const char *kind, const char *path, gsize *len, GError **error)
{
  gsize n = 0;
  const char *data = g_bytes_get_data (bytes, &n);
  const char *nul = n > 0 ? memchr (data, '\0', n) : NULL;
  if (nul != NULL) {
    guint line = 1;
    for (const char *c = data; c < nul; c++)
      line += *c == '\n';
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                 "%s '%s': line %u: a NUL byte (expected text)", kind, path, line);
    return NULL;
  }
  if (len != NULL)
    *len = n;
  char *text = g_malloc (n + 1);
  if (n > 0)
    memcpy (text, data, n);
  text[n] = '\0';
  return text;
}

char *
dts_input_read_text (const char *path, const char *kind, gsize *len, GError **error)
{
  g_autoptr (GBytes) bytes = dts_input_read (path, kind, error);
  return bytes ? bytes_to_text (bytes, kind, path, len, error) : NULL;
}

char *
dts_input_read_regular (const char *path, const char *kind, GError **error)
{
  g_return_val_if_fail (path != NULL && kind != NULL, NULL);
  /* O_NONBLOCK: opening a FIFO with no writer would wait for one. */
  struct stat st;
  int fd = open_stat (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, kind, &st, error);
  if (fd < 0)
    return NULL;
  if (!S_ISREG (st.st_mode)) {
    close (fd);
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s '%s': not a regular file", kind, path);
    return NULL;
  }
  g_autoptr (GBytes) bytes = read_fd (fd, kind, path, error);
  close (fd);
  return bytes ? bytes_to_text (bytes, kind, path, NULL, error) : NULL;
}

void
dts_input_forget (const char *path)
{
  if (contents != NULL)
    g_hash_table_remove (contents, path);
}

char *
dts_input_private_copy (const char *path, const char *kind, GError **error)
{
  g_autoptr (GBytes) bytes = dts_input_read (path, kind, error);
  if (bytes == NULL)
    return NULL;
  /* SimGrid picks its parser by the file name's extension. */
  const char *base = strrchr (path, '/');
  const char *dot = strrchr (base ? base : path, '.');
  g_autofree char *tmpl = g_strdup_printf ("dtsim-%s-XXXXXX%s", kind,
                                           dot && strlen (dot) < 16 ? dot : ".xml");
  g_strdelimit (tmpl, " /", '-');
  g_autofree char *name = NULL;
  g_autoptr (GError) local = NULL;
  int fd = g_file_open_tmp (tmpl, &name, &local);
  if (fd < 0) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s '%s': cannot make a temporary copy: %s",
                 kind, path, local->message);
    return NULL;
  }
  gsize len = 0;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  gsize done = 0;
  while (done < len) {
    ssize_t n = write (fd, data + done, len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int err = n < 0 ? errno : ENOSPC;
      close (fd);
      g_unlink (name);
      g_set_error (error, DTS_ERROR, DTS_ERROR_IO,
                   "%s '%s': cannot write a temporary copy '%s': %s", kind, path, name,
                   g_strerror (err));
      return NULL;
    }
    done += (gsize) n;
  }
  if (close (fd) != 0) {
    int err = errno;
    g_unlink (name);
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO,
                 "%s '%s': cannot write a temporary copy '%s': %s", kind, path, name,
                 g_strerror (err));
    return NULL;
  }
  return g_steal_pointer (&name);
}
