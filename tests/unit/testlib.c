/* testlib.c - helpers for the Check suites. */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.h"
#include "core/datadir.h"
#include "schedule/schedule.h"
#include "testlib.h"

static GPtrArray *tmp_files;

static void
remove_tmp_files (void)
{
  if (tmp_files == NULL)
    return;
  for (guint i = 0; i < tmp_files->len; i++)
    unlink (g_ptr_array_index (tmp_files, i));
  g_ptr_array_free (tmp_files, TRUE);
  tmp_files = NULL;
}

DtsGpuCatalog *
dts_test_gpu_catalog (void)
{
  g_autoptr (GError) error = NULL;
  DtsGpuCatalog *cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert_msg (cat != NULL, "GPU catalogue: %s", error ? error->message : "?");
  return cat;
}

DtsFramework *
dts_test_profile (const char *text)
{
  g_autoptr (GError) error = NULL;
  DtsFramework *fw = dts_framework_parse (text, "t", "t.conf", &error);
  ck_assert_msg (fw != NULL, "%s", error ? error->message : "");
  return fw;
}

int
dts_test_run (Suite *suite)
{
  SRunner *sr = srunner_create (suite);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  remove_tmp_files ();
  return failed == 0 ? 0 : 1;
}

char *
dts_test_write_tmp (const char *content, const char *suffix)
{
  g_autofree char *tmpl = g_strconcat ("dtsim-test-XXXXXX", suffix, NULL);
  g_autoptr (GError) error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp (tmpl, &path, &error);
  ck_assert_msg (fd >= 0, "cannot create temp file: %s", error ? error->message : "?");
  close (fd);
  ck_assert (g_file_set_contents (path, content, -1, NULL));
  if (tmp_files == NULL)
    tmp_files = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (tmp_files, g_strdup (path));
  return path;
}

const char *
dts_test_shared_dir (void)
{
  const char *d = g_getenv ("DTSIM_SHARED");
  if (d == NULL || !g_file_test (d, G_FILE_TEST_IS_DIR))
    return NULL;
  return d;
}

char *
dts_test_srcpath (const char *relative)
{
  const char *top = g_getenv ("top_srcdir");
  return g_build_filename (top ? top : ".", relative, NULL);
}

void
dts_test_assert_error (const GError *error, int code, ...)
{
  ck_assert_msg (error != NULL, "expected an error, got success");
  ck_assert_msg (error->domain == DTS_ERROR, "error domain is %s, not DTS_ERROR",
                 g_quark_to_string (error->domain));
  ck_assert_msg (error->code == code, "error code %d, expected %d (%s)", error->code, code,
                 error->message);
  va_list ap;
  va_start (ap, code);
  const char *frag;
  while ((frag = va_arg (ap, const char *)) != NULL)
    ck_assert_msg (strstr (error->message, frag) != NULL, "error '%s' does not contain '%s'",
                   error->message, frag);
  va_end (ap);
}

void
dts_test_run_in_child (DtsTestChildFunc func, const void *setup, void *result, gsize result_size,
                       const char *what)
{
  int fds[2];
  ck_assert (pipe (fds) == 0);
  pid_t pid = fork ();
  ck_assert (pid >= 0);
  if (pid == 0) {
    close (fds[0]);
    func (setup, result);
    ssize_t w = write (fds[1], result, result_size);
    _exit (w == (ssize_t) result_size ? 0 : 3);
  }
  close (fds[1]);
  gsize got = 0;
  while (got < result_size) {
    ssize_t r = read (fds[0], (char *) result + got, result_size - got);
    if (r <= 0)
      break;
    got += r;
  }
  close (fds[0]);
  int status = 0;
  waitpid (pid, &status, 0);
  ck_assert_msg (WIFEXITED (status) && WEXITSTATUS (status) == 0 && got == result_size,
                 "%s died (status %d)", what, status);
}

char *
dts_test_input_path (const char *name, const char *subdir)
{
  g_autofree char *rel = g_strconcat ("tests/data/", name, ".xml", NULL);
  char *path = dts_test_srcpath (rel);
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return path;
  g_free (path);
  return dts_datadir_resolve (subdir, name, ".xml", subdir, NULL);
}

double
dts_test_phase_sum (const GArray *prog, int phase)
{
  double sum = 0;
  for (guint k = 0; k < prog->len; k++) {
    const DtsOp *op = &g_array_index (prog, DtsOp, k);
    sum += op->type == DTS_OP_COMPUTE && (int) op->phase == phase ? op->duration_s : 0;
  }
  return sum;
}
