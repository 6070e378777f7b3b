/* xml.c - libxml2 loading with file/line error messages. */
#include "config.h"

#include <string.h>

#include <libxml/SAX2.h>

#include "core/error.h"
#include "core/input.h"
#include "core/xml.h"

/* libxml2 keeps an element's line in 16 bits: from line 65,535 on it says
 * 65535 (with XML_PARSE_BIG_LINES it guesses from the text nodes around the
 * element, a line late after an element that ends its line). A generated
 * 16,384-GPU fat-tree has 122,000 lines, so the loader keeps those elements'
 * lines itself, in the node's application field. */
enum { XML_LINE_MAX = 65535 };

int
dts_xml_line (const xmlNode *node)
{
  if (node != NULL && node->type == XML_ELEMENT_NODE && node->line == XML_LINE_MAX
      && node->_private != NULL)
    return GPOINTER_TO_INT (node->_private);
  return (int) xmlGetLineNo (node);
}

/* libxml2's tree builder for a start tag, then the line of the element it
 * made when libxml2 cannot keep it (the line the start tag ends on, as
 * libxml2 counts below that). */
static void
start_element_keep_line (void *data, const xmlChar *localname, const xmlChar *prefix,
                         const xmlChar *uri, int n_namespaces, const xmlChar **namespaces,
                         int n_attributes, int n_defaulted, const xmlChar **attributes)
{
  xmlParserCtxt *ctxt = data;
  xmlSAX2StartElementNs (data, localname, prefix, uri, n_namespaces, namespaces, n_attributes,
                         n_defaulted, attributes);
  if (ctxt->node != NULL && ctxt->input != NULL && ctxt->input->line >= XML_LINE_MAX)
    ctxt->node->_private = GINT_TO_POINTER (ctxt->input->line);
}

/* libxml2 reports every error through this handler; the first one is the
 * cause, later ones are consequences ("Start tag expected" after a comment
 * that is too big), so only the first is kept. */
typedef struct {
  int line;
  char *message;
} FirstError;

static void
keep_first_error (void *data, xmlError *e)
{
  FirstError *first = ((xmlParserCtxt *) data)->_private;
  if (first->message != NULL || e == NULL || e->level < XML_ERR_ERROR || e->message == NULL)
    return;
  first->line = e->line;
  first->message = g_strchomp (g_strdup (e->message));
}

/* libxml2 suggests its own option to lift its limits ("..., use
 * XML_PARSE_HUGE option"); a user of dtsim cannot act on that. */
static void
drop_libxml_hint (char *msg)
{
  char *hint = strstr (msg, "use XML_PARSE_HUGE");
  if (hint == NULL)
    hint = strstr (msg, "XML_PARSE_HUGE");
  if (hint == NULL)
    return;
  *hint = '\0';
  while (hint > msg && strchr (" ,;:", hint[-1]) != NULL)
    *--hint = '\0';
}

/* Entities are never expanded (no XML_PARSE_NOENT, no DTD loading), so a
 * reference stays in the tree as an entity-reference node, in content or in
 * an attribute value. Reading around it would silently drop text (a layer,
 * a digit of an attribute), expanding it costs memory and time without
 * bound: both are refused. */
static const xmlNode *
find_entity_ref (const xmlNode *node)
{
  for (const xmlNode *n = node; n; n = n->next) {
    if (n->type == XML_ENTITY_REF_NODE)
      return n;
    if (n->type != XML_ELEMENT_NODE)
      continue;
    for (const xmlAttr *a = n->properties; a; a = a->next)
      for (const xmlNode *c = a->children; c; c = c->next)
        if (c->type == XML_ENTITY_REF_NODE)
          return c->parent && c->parent->parent ? c->parent->parent : c;
    const xmlNode *inner = find_entity_ref (n->children);
    if (inner)
      return inner;
  }
  return NULL;
}

/* The entity-reference node itself, for its name. */
static const char *
entity_name (const xmlNode *hit)
{
  if (hit->type == XML_ENTITY_REF_NODE)
    return (const char *) hit->name;
  for (const xmlAttr *a = hit->properties; a; a = a->next)
    for (const xmlNode *c = a->children; c; c = c->next)
      if (c->type == XML_ENTITY_REF_NODE)
        return (const char *) c->name;
  return "?";
}

static int
entity_line (const xmlNode *n)
{
  for (; n != NULL; n = n->parent)
    if (dts_xml_line (n) > 0)
      return dts_xml_line (n);
  return 0;
}

xmlDoc *
dts_xml_load (const char *path, const char *kind, GError **error)
{
  g_autoptr (GBytes) bytes = dts_input_read (path, kind, error);
  if (bytes == NULL)
    return NULL;
  gsize len = 0;
  const char *data = g_bytes_get_data (bytes, &len);
  if (len > G_MAXINT) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s '%s': too large for the XML parser", kind,
                 path);
    return NULL;
  }
  g_autoptr (xmlParserCtxt) ctxt = xmlNewParserCtxt ();
  if (ctxt == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s '%s': cannot create XML parser", kind, path);
    return NULL;
  }
  FirstError first = { 0, NULL };
  ctxt->_private = &first;
  ctxt->sax->serror = keep_first_error;
  ctxt->sax->startElementNs = start_element_keep_line;
  g_autoptr (xmlDoc) doc = xmlCtxtReadMemory (ctxt, len ? data : "", (int) len, path, NULL,
                                              DTS_XML_PARSE_FLAGS);
  ctxt->_private = NULL;
  g_autofree char *first_message = first.message;
  if (doc == NULL || !ctxt->wellFormed) {
    const xmlError *e = xmlCtxtGetLastError (ctxt);
    int line = first_message ? first.line : e ? e->line : 0;
    if (first_message == NULL && e != NULL && e->message != NULL)
      first_message = g_strchomp (g_strdup (e->message));
    if (first_message != NULL) {
      drop_libxml_hint (first_message);
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s '%s': line %d: malformed XML: %s%s",
                   kind, path, line, first_message,
                   strstr (first_message, "ntit") ? " (dtsim does not expand XML entities)" : "");
    } else {
      g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s '%s': cannot be read as XML", kind,
                   path);
    }
    return NULL;
  }
  xmlNode *root = xmlDocGetRootElement (doc);
  if (root == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE, "%s '%s': empty document", kind, path);
    return NULL;
  }
  const xmlNode *ref = find_entity_ref (root);
  if (ref != NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_PARSE,
                 "%s '%s': line %d: entity reference '&%s;': dtsim does not expand XML "
                 "entities (write the text itself)",
                 kind, path, entity_line (ref), entity_name (ref));
    return NULL;
  }
  return g_steal_pointer (&doc);
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
