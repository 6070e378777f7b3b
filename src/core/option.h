/* option.h - options declared by the rows of a family table.
 *
 * A collective algorithm or a strategy declares the options that only it
 * takes (libsigrok's driver options, git's per-command options) as a
 * NULL-name-terminated array of DtsOptionSpec: name, type, range or
 * choices, default and help, once. The command line generates its
 * entries, help text, validation and "only with --collective X" errors
 * from these rows (src/cli/table-options.c); nothing else declares them. */
#ifndef DTS_CORE_OPTION_H
#define DTS_CORE_OPTION_H

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  DTS_OPTION_INT,     /* an integer in min..max */
  DTS_OPTION_CHOICE,  /* one of choices */
  DTS_OPTION_TEXT,    /* free text the row checks itself */
} DtsOptionType;

typedef struct {
  const char *name;           /* long option without "--", kebab-case */
  DtsOptionType type;
  const char *arg;            /* placeholder in --help ("P") */
  const char *help;           /* one sentence, without the default */
  const char *default_text;   /* what the default is, in words ("one per node") */
  double min, max;            /* INT */
  const char *const *choices; /* CHOICE: NULL-terminated */
} DtsOptionSpec;

/* The values the command line gave the options of a row (NULL: not
 * given), already checked against their DtsOptionSpec (INT in range,
 * CHOICE known); the row that declares them reads them (libsigrok's
 * *_new (row, options)). */
typedef struct {
  const char *(*get) (gconstpointer data, const char *name);
  gconstpointer data;
} DtsOptionValues;

static inline const char *
dts_option_value (const DtsOptionValues *v, const char *name)
{
  return v != NULL && v->get != NULL ? v->get (v->data, name) : NULL;
}

G_END_DECLS

#endif
