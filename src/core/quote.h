/* quote.h - data written into scripts: shell words, gnuplot strings, Slurm lines.
 *
 * dtsim writes values it did not choose (CSV cells and column names, axis
 * values, run options, file names) into scripts that another program runs:
 * the gnuplot scripts of `dtsim plot` and `sweep --plot`, the job lists of
 * `sweep --emit` (run by sh, by GNU parallel one job per line, by Slurm).
 * Every such value goes through this module, and the rule is one:
 *
 *   - a value with an ASCII control character (bytes 0x01-0x1f and 0x7f:
 *     newline, carriage return, tab, escape ...) or a NUL byte is refused:
 *     a newline ends a gnuplot command, a GNU parallel job and a #SBATCH
 *     line, and none of these languages has an escape for it that the
 *     others share;
 *   - everything else is written as a literal in the one quoting of each
 *     language that does no substitution at all:
 *       sh: single quotes, a quote written as '\'' (POSIX 2.2.2: nothing
 *           inside single quotes is special: no $, `, \ or newline);
 *       gnuplot: single quotes (gnuplot does no backquote command
 *           substitution, no @macro expansion and no backslash escapes
 *           inside single quotes; double quotes expand backquotes), and a
 *           value with a quote as a parenthesised concatenation of such
 *           strings and "'" (gnuplot 5.4 misreads '' in some places);
 *       (a value longer than DTS_QUOTE_GNUPLOT_MAX is refused);
 *       #SBATCH: sh single quotes, which sbatch's own parser reads the same
 *           way, with a backslash refused (sbatch reads it as an escape even
 *           inside quotes) and % doubled (a file name pattern's literal %).
 *
 * Errors name WHAT (e.g. "base run option", "column name") and where the
 * value cannot go (INTO, e.g. "jobs.txt (one job per line)"), show the
 * value escaped and shortened, and are DTS_ERROR_INVALID. */
#ifndef DTS_CORE_QUOTE_H
#define DTS_CORE_QUOTE_H

#include <glib.h>

G_BEGIN_DECLS

/* Whether the LEN bytes of TEXT (up to its NUL when LEN is -1) can be
 * written into a script: no NUL byte and no control character. */
gboolean dts_quote_check (const char *text, gssize len, const char *what, const char *into,
                          GError **error);

/* TEXT as one sh word: as it is when it is made only of letters, digits
 * and _./:=+,@%- (and not empty), else in single quotes. A new string, or
 * NULL with ERROR set. */
char *dts_quote_shell (const char *text, const char *what, const char *into, GError **error);

/* TEXT as the first word of a sh command: as dts_quote_shell, but quoted
 * also when it holds '=' (sh would read an assignment) or is a reserved
 * word (if, then, ...). */
char *dts_quote_shell_command (const char *text, const char *what, const char *into,
                               GError **error);

/* The longest value written into a gnuplot script: a title or a label,
 * never a document (gnuplot takes minutes over a 1 MB string of quotes). */
#define DTS_QUOTE_GNUPLOT_MAX 4096

/* TEXT as a gnuplot string expression: 'TEXT', or ('it'."'".'s') when
 * TEXT holds a single quote. */
char *dts_quote_gnuplot (const char *text, const char *what, const char *into,
                         GError **error);

/* TEXT as (part of) the argument of a #SBATCH line: dts_quote_shell of TEXT
 * with each % doubled; a backslash is refused. */
char *dts_quote_slurm (const char *text, const char *what, const char *into, GError **error);

G_END_DECLS

#endif
