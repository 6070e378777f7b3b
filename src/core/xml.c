/* xml.c - libxml2 loading with file/line error messages. */
#include "config.h"

#include "core/error.h"
#include "core/xml.h"

int
dts_xml_line (const xmlNode *node)
{
  return (int) xmlGetLineNo (node);
}

xmlDoc *
dts_xml_load (const char *path, const char *kind, GError **error)
{
  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_NOT_FOUND, "%s '%s': no such file", kind, path);
    return NULL;
  }
  if (g_file_test (path, G_FILE_TEST_IS_DIR)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s '%s': is a directory", kind, path);
    return NULL;
  }
  g_autoptr (xmlParserCtxt) ctxt = xmlNewParserCtxt ();
  if (ctxt == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s '%s': cannot create XML parser", kind, path);
    return NULL;
  }
  xmlDoc *doc = xmlCtxtReadFile (ctxt, path, NULL, DTS_XML_PARSE_FLAGS);
  if (doc == NULL || !ctxt->wellFormed) {
    const xmlError *e = xmlCtxtGetLastError (ctxt);
    if (e != NULL && e->message != NULL) {
      g_autofree char *msg = g_strchomp (g_strdup (e->message));
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s '%s': line %d: malformed XML: %s",
                   kind, path, e->line, msg);
    } else {
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s '%s': cannot be read as XML", kind,
                   path);
    }
    if (doc)
      xmlFreeDoc (doc);
    return NULL;
  }
  if (xmlDocGetRootElement (doc) == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s '%s': empty document", kind, path);
    xmlFreeDoc (doc);
    return NULL;
  }
  return doc;
}

char *
dts_xml_get_attr (xmlNode *node, const char *name)
{
  g_autoptr (DtsXmlString) v = xmlGetProp (node, (const xmlChar *) name);
  return v ? g_strdup ((const char *) v) : NULL;
}

gboolean
dts_xml_get_quantity (xmlNode *node, const char *name, DtsUnitKind kind, gboolean required,
                      double *out, const char *what, const char *path, GError **error)
{
  g_autofree char *v = dts_xml_get_attr (node, name);
  if (v == NULL) {
    if (!required)
      return TRUE;
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "%s '%s': line %d: <%s> needs attribute '%s' (%s)", what, path,
                 dts_xml_line (node), (const char *) node->name, name, dts_units_describe (kind));
    return FALSE;
  }
  g_autoptr (GError) local = NULL;
  if (!dts_units_parse (v, kind, out, &local)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s '%s': line %d: <%s> attribute '%s': %s",
                 what, path, dts_xml_line (node), (const char *) node->name, name,
                 local->message);
    return FALSE;
  }
  return TRUE;
}

gboolean
dts_xml_get_int (xmlNode *node, const char *name, gboolean required, int *out, const char *what,
                 const char *path, GError **error)
{
  g_autofree char *v = dts_xml_get_attr (node, name);
  if (v == NULL) {
    if (!required)
      return TRUE;
    g_set_error (error, DTS_ERROR, DTS_ERROR_INVALID,
                 "%s '%s': line %d: <%s> needs attribute '%s' (an integer)", what, path,
                 dts_xml_line (node), (const char *) node->name, name);
    return FALSE;
  }
  g_autoptr (GError) local = NULL;
  if (!dts_units_parse_int (v, out, &local)) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s '%s': line %d: <%s> attribute '%s': %s",
                 what, path, dts_xml_line (node), (const char *) node->name, name,
                 local->message);
    return FALSE;
  }
  return TRUE;
}
