/* xml.h - load an XML file with libxml2 and report errors the dtsim way.
 *
 * dts_xml_load() reads PATH once (core/input.h: size limit, pipes and FIFOs
 * work) and parses it without network access, without loading any DTD and
 * without expanding entities. On malformed input it fails with
 * DTS_ERROR_PARSE: "KIND 'PATH': line N: malformed XML: MESSAGE" (libxml2's
 * own message, the first error, not the last). An entity reference anywhere
 * (content or attribute value) is a DTS_ERROR_PARSE error naming it: an
 * unexpanded reference would silently drop text. KIND is the word used in
 * messages ("workload", "platform", "GPU catalogue").
 *
 * The attribute helpers below read an attribute of NODE and fail with
 * "KIND 'PATH': line N: <elem> attribute 'name': expected ..." on bad values. */
#ifndef DTS_CORE_XML_H
#define DTS_CORE_XML_H

#include <glib.h>
#include "core/autocleanups.h"
#include "core/units.h"

G_BEGIN_DECLS

/* Line of NODE in its file, as an int for messages. */
int dts_xml_line (const xmlNode *node);

xmlDoc *dts_xml_load (const char *path, const char *kind, GError **error);

/* Returns a newly allocated copy of the attribute, or NULL if it is absent. */
char *dts_xml_get_attr (xmlNode *node, const char *name);

/* Set *OUT from attribute NAME of NODE parsed as KIND. If absent: with
 * REQUIRED an error, otherwise *OUT keeps its value and TRUE is returned. */
gboolean dts_xml_get_quantity (xmlNode *node, const char *name, DtsUnitKind kind,
                               gboolean required, double *out,
                               const char *what, const char *path, GError **error);
gboolean dts_xml_get_int (xmlNode *node, const char *name, gboolean required, int *out,
                          const char *what, const char *path, GError **error);

G_END_DECLS

#endif
