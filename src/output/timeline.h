/* timeline.h - one iteration per GPU as a Gantt chart (`dtsim run
 * --timeline FILE.svg`, `--timeline-ascii`).
 *
 * Drawn from the slices a run records (trace.h, record_slices): for each
 * rank shown, a compute lane (forward, backward, optimizer: consecutive
 * slices of one pass merged into one bar; a gap is the compute stream
 * waiting, for the all-reduce of the gradients it needs) and a
 * communication lane (one bar per bucket all-reduce, labelled with the
 * bucket). The iteration drawn is the last one (a measured, steady-state
 * iteration when there are several); the time axis starts at the earliest
 * start of that iteration over the ranks shown. All ranks are drawn up to
 * DTS_TIMELINE_MAX_RANKS; beyond, ranks 0 and 1, the slowest and the
 * fastest (trace.h's DtsRunSummary) and the last two, so a straggler is
 * always in the picture. The Chrome trace (--trace) keeps every rank.
 *
 * Deterministic: fixed number formats, elements in rank and recording
 * order. The SVG follows output/svg.h's house style (self-contained, white
 * background, generic sans-serif fonts). */
#ifndef DTS_OUTPUT_TIMELINE_H
#define DTS_OUTPUT_TIMELINE_H

#include <glib.h>
#include "trace/trace.h"

G_BEGIN_DECLS

#define DTS_TIMELINE_MAX_RANKS 8
/* Columns of the ASCII chart's time axis. */
#define DTS_TIMELINE_ASCII_WIDTH 100

/* T must have been recorded with slices (programming error otherwise). */
void dts_timeline_write_svg (const DtsTrace *t, const DtsRunSummary *s, GString *out);

/* Parameter-server runs (S->ps_workers > 0): several iterations of the
 * workers and the shards' updates with the staleness of each gradient
 * (ps-timeline.c). dts_timeline_write_svg draws this for such runs. */
void dts_timeline_write_ps_svg (const DtsTrace *t, const DtsRunSummary *s, GString *out);

/* The same chart in WIDTH columns of text: per rank a compute line (F
 * forward, B backward, O optimizer, '.' waiting) and a communication line
 * (the bucket's index mod 10 for each all-reduce), each column showing what
 * covers most of its time span; a legend and the scale follow. */
void dts_timeline_write_ascii (const DtsTrace *t, const DtsRunSummary *s, int width,
                               GString *out);

G_END_DECLS

#endif
