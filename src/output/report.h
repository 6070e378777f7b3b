/* report.h - writers of a run's results: text summary, JSON, CSV, Chrome trace.
 *
 * Writers see only the plain summary and trace types of sim/trace.h. They
 * are rows of a table keyed by the --format id; each appends to a GString,
 * and the caller prints it. Numbers use fixed formats (text) or the JSON
 * writer's shortest round-trip form (JSON, CSV), so identical runs give
 * identical bytes apart from the wall-clock fields. */
#ifndef DTS_OUTPUT_REPORT_H
#define DTS_OUTPUT_REPORT_H

#include <glib.h>
#include "output/json.h"
#include "trace/trace.h"

G_BEGIN_DECLS

typedef struct {
  const char *id;           /* --format value */
  const char *description;
  void (*write) (const DtsRunSummary *s, GString *out);
} DtsReportWriter;

/* The table, terminated by a row with id NULL. */
const DtsReportWriter *dts_report_writers (void);
/* NULL when ID is unknown. */
const DtsReportWriter *dts_report_writer_lookup (const char *id);

void dts_report_write_text (const DtsRunSummary *s, GString *out);
void dts_report_write_json (const DtsRunSummary *s, GString *out);
/* One header line and one row: columns are dts_report_csv_columns(). */
void dts_report_write_csv (const DtsRunSummary *s, GString *out);
const char *const *dts_report_csv_columns (void);
/* The per-rank table (`run --per-rank FILE`): a header line, then one row
 * per rank in rank order: rank, host, compute_s, phase_forward_s,
 * phase_backward_data_s, phase_backward_weight_s, phase_optimizer_s, one
 * wait_KIND_s per wait kind, comm_busy_s, idle_s. JSON carries the same rows as
 * "ranks". */
void dts_report_write_ranks_csv (const DtsRunSummary *s, GString *out);

/* Chrome / Perfetto trace-event JSON of T (recorded with slices): one
 * process per GPU with a compute thread (one slice per layer and phase) and
 * a communication thread (one slice per bucket all-reduce, with its bytes).
 * Timestamps are microseconds of simulated time. */
void dts_report_write_chrome_trace (const DtsTrace *t, const DtsRunSummary *s, GString *out);
/* One trace-event metadata record ("ph": "M") WHAT for process PID, thread
 * TID: args {"name": NAME}, or {"sort_index": SORT} when NAME is NULL. */
void dts_report_chrome_metadata (DtsJson *j, const char *what, int pid, int tid, const char *name,
                                 int sort);

/* Parameter-server runs (ps.c): the text block (nothing for other
 * strategies), the second line of the text header, and the JSON members dataset_samples, epoch_time_s (every
 * run) and parameter_servers. */
void dts_report_text_ps (const DtsRunSummary *s, GString *out);
void dts_report_text_ps_head (const DtsRunSummary *s, GString *out);
void dts_report_json_ps (DtsJson *j, const DtsRunSummary *s);

/* Write OUT to PATH ("-" is stdout); DTS_ERROR_IO naming WHAT on failure. */
gboolean dts_report_save (const GString *out, const char *path, const char *what,
                          GError **error);

G_END_DECLS

#endif
