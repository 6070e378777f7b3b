/* datadir.c - locate shipped data files (see datadir.h for the search order). */
#include "config.h"

#include <string.h>

#include "core/datadir.h"
#include "core/error.h"

static gboolean
is_datadir (const char *dir)
{
  g_autofree char *probe = g_build_filename (dir, "platforms", "gpus.xml", NULL);
  return g_file_test (probe, G_FILE_TEST_IS_REGULAR);
}

static char *
find_datadir (void)
{
  const char *env = g_getenv ("DTSIM_DATADIR");
  if (env != NULL && *env != '\0')
    return g_strdup (env);

  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  if (exe != NULL) {
    g_autofree char *dir = g_path_get_dirname (exe);
    if (is_datadir (dir))
      return g_steal_pointer (&dir);
    g_autofree char *rel = g_build_filename (dir, "..", "share", "dtsim", NULL);
    if (is_datadir (rel))
      return g_steal_pointer (&rel);
  }
  return g_strdup (DTS_PKGDATADIR);
}

const char *
dts_datadir_get (void)
{
  static char *dir = NULL;
  if (g_once_init_enter (&dir))
    g_once_init_leave (&dir, find_datadir ());
  return dir;
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

char **
dts_datadir_list (const char *subdir, const char *ext)
{
  g_autofree char *dir = g_build_filename (dts_datadir_get (), subdir, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  if (d != NULL) {
    const char *n;
    while ((n = g_dir_read_name (d)) != NULL)
      if (g_str_has_suffix (n, ext) && strcmp (n, "gpus.xml") != 0)
        g_ptr_array_add (names, g_strndup (n, strlen (n) - strlen (ext)));
  }
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}

/* Other names of shipped files: torchvision's model names for the zoo's. */
static const struct {
  const char *subdir;
  const char *alias;
  const char *name;
} aliases[] = {
  { "workloads", "inception_v3", "inception3" },
  { "workloads", "mobilenet_v2", "mobilenet2" },
};

static const char *
unalias (const char *subdir, const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (aliases); i++)
    if (strcmp (aliases[i].subdir, subdir) == 0 && strcmp (aliases[i].alias, name) == 0)
      return aliases[i].name;
  return name;
}

char *
dts_datadir_resolve (const char *subdir, const char *name_or_path, const char *ext,
                     const char *kind, GError **error)
{
  g_return_val_if_fail (name_or_path != NULL, NULL);
  if (strchr (name_or_path, '/') != NULL || g_str_has_suffix (name_or_path, ext)) {
    if (g_file_test (name_or_path, G_FILE_TEST_EXISTS))
      return g_strdup (name_or_path);
    g_set_error (error, DTS_ERROR, DTS_ERROR_NOT_FOUND, "%s '%s': no such file", kind,
                 name_or_path);
    return NULL;
  }
  g_autofree char *file = g_strconcat (unalias (subdir, name_or_path), ext, NULL);
  g_autofree char *path = g_build_filename (dts_datadir_get (), subdir, file, NULL);
  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return g_steal_pointer (&path);
  g_auto (GStrv) known = dts_datadir_list (subdir, ext);
  g_autofree char *list = g_strjoinv (", ", known);
  g_set_error (error, DTS_ERROR, DTS_ERROR_NOT_FOUND,
               "%s '%s': no such file, and no shipped %s of that name (shipped: %s)", kind,
               name_or_path, kind, *list ? list : "none");
  return NULL;
}
