/* datadir.h - where dtsim finds its shipped files (platforms/, workloads/, models/).
 *
 * Search order, first directory that holds platforms/gpus.xml wins:
 *   1. $DTSIM_DATADIR (tests set it to the source tree);
 *   2. the directory of the running executable (an uninstalled, in-tree build);
 *   3. <exe dir>/../share/dtsim (a relocated install);
 *   4. the configured $(pkgdatadir).
 * The result is computed once and lent for the life of the process. */
#ifndef DTS_CORE_DATADIR_H
#define DTS_CORE_DATADIR_H

#include <glib.h>

G_BEGIN_DECLS

const char *dts_datadir_get (void);

/* Resolve NAME_OR_PATH for shipped files in SUBDIR with extension EXT (".xml"):
 * a name that contains '/' or ends in EXT and exists is a path; otherwise
 * <datadir>/SUBDIR/NAME_OR_PATH[EXT], where a few other names of shipped files
 * (torchvision's inception_v3 and mobilenet_v2 for the zoo's inception3 and
 * mobilenet2) are aliases in a table in datadir.c. Returns a new string or NULL with
 * DTS_ERROR_NOT_FOUND naming what was tried and listing the shipped names. */
char *dts_datadir_resolve (const char *subdir, const char *name_or_path, const char *ext,
                           const char *kind, GError **error);

/* Sorted list of shipped names (without EXT) in SUBDIR; free with g_strfreev. */
char **dts_datadir_list (const char *subdir, const char *ext);

G_END_DECLS

#endif
