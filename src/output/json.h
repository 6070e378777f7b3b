/* json.h - a small streaming JSON writer with deterministic number formats.
 *
 * Numbers are written with "%.17g" trimmed to the shortest form that reads
 * back to the same double (so outputs are byte-identical across runs), NaN
 * and infinities as null. Strings are escaped per RFC 8259. The writer tracks
 * nesting and commas; the caller only says begin/end/key/value. Output is
 * pretty-printed with two-space indentation. */
#ifndef DTS_OUTPUT_JSON_H
#define DTS_OUTPUT_JSON_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct _DtsJson DtsJson;

DtsJson *dts_json_new (void);
void dts_json_free (DtsJson *j);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DtsJson, dts_json_free)

void dts_json_begin_object (DtsJson *j);
void dts_json_end_object (DtsJson *j);
void dts_json_begin_array (DtsJson *j);
void dts_json_end_array (DtsJson *j);
/* Inside an object: the key of the next value. */
void dts_json_key (DtsJson *j, const char *key);
void dts_json_string (DtsJson *j, const char *s); /* NULL writes null */
void dts_json_double (DtsJson *j, double v);
void dts_json_int (DtsJson *j, gint64 v);
/* Unsigned values (seeds, counters) above G_MAXINT64 must not wrap negative. */
void dts_json_uint (DtsJson *j, guint64 v);
void dts_json_bool (DtsJson *j, gboolean v);
void dts_json_null (DtsJson *j);

/* Shorthands for key + value. */
void dts_json_kv_string (DtsJson *j, const char *key, const char *s);
void dts_json_kv_double (DtsJson *j, const char *key, double v);
void dts_json_kv_int (DtsJson *j, const char *key, gint64 v);
void dts_json_kv_uint (DtsJson *j, const char *key, guint64 v);
void dts_json_kv_bool (DtsJson *j, const char *key, gboolean v);

/* The text so far (lent); ends with a newline once the top value is closed. */
const char *dts_json_get (const DtsJson *j);

/* Format V as the shortest round-trip decimal into BUF (G_ASCII_DTOSTR_BUF_SIZE). */
void dts_json_format_double (char *buf, gsize len, double v);
/* Append V to a CSV line in the same form; NaN and infinities, which JSON
 * writes as null, are empty cells. */
void dts_json_append_csv_double (GString *out, double v);

G_END_DECLS

#endif
