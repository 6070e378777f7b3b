/* autocleanups.h - g_autoptr() support for the libxml2 types dtsim uses.
 *
 * Parse documents with DTS_XML_PARSE_FLAGS: no network access (never fetch a
 * DTD), no DTD loading and no entity substitution (neither XML_PARSE_NOENT
 * nor XML_PARSE_DTDLOAD, nor XML_PARSE_HUGE: libxml2's size limits stay),
 * errors reported through the caller. Keep it so: dts_xml_load() refuses
 * the entity references that are left in the tree. */
#ifndef DTS_CORE_AUTOCLEANUPS_H
#define DTS_CORE_AUTOCLEANUPS_H

#include <glib.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>

#define DTS_XML_PARSE_FLAGS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)

G_DEFINE_AUTOPTR_CLEANUP_FUNC (xmlDoc, xmlFreeDoc)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (xmlXPathContext, xmlXPathFreeContext)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (xmlXPathObject, xmlXPathFreeObject)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (xmlParserCtxt, xmlFreeParserCtxt)

/* xmlChar strings returned by xmlGetProp() and friends. */
typedef xmlChar DtsXmlString;
static inline void
dts_xml_string_free (DtsXmlString *s)
{
  xmlFree (s);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsXmlString, dts_xml_string_free)

#endif
