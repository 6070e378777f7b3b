/* svg.h - a ring all-reduce in one picture (`dtsim allreduce --svg`), and
 * the steps of any other algorithm and op (DtsSvgSteps, below).
 *
 * The teaching view of the ring: on the left the N ranks on a circle in ring
 * order with an arrow to each successor; on the right a timeline with one
 * row per rank and one box per ring step, coloured by phase (reduce-scatter
 * adds the received chunk, all-gather copies it) and labelled with the chunk
 * sent and its receiver ("c2 -> r1"), on an axis of simulated microseconds;
 * under it the chunk each rank holds fully reduced once reduce-scatter ends;
 * above it a title with S, N, the ring's bottleneck bandwidth B, the closed
 * form 2(N-1)/N x S/B + 2(N-1) x L and the simulated time.
 *
 * The writer knows nothing of SimGrid or of collective plans: the caller
 * describes the steps as plain records. The SVG is self-contained (no
 * scripts, no external fonts or images: rect, line, text and path elements
 * with generic font families) and deterministic (fixed number formats,
 * elements in the order of the records, which the caller sorts). Box widths
 * grow with the number of steps so that labels stay legible up to the 16
 * ranks `dtsim allreduce` draws. */
#ifndef DTS_OUTPUT_SVG_H
#define DTS_OUTPUT_SVG_H

#include <glib.h>

G_BEGIN_DECLS

/* One rank's part of one ring step. */
typedef struct {
  int rank;          /* 0 .. n_ranks-1 */
  int step;          /* 0 .. 2(n_ranks-1)-1 */
  int phase;         /* 0 reduce-scatter, 1 all-gather */
  int send_chunk;    /* chunk (segment) index sent, 0 .. n_ranks-1 */
  int send_to;       /* receiving rank: the ring successor */
  double t_start_s;  /* simulated time */
  double t_end_s;
} DtsSvgRingStep;

/* What both pictures of a collective say of the run in their titles. */
typedef struct {
  const char *platform;      /* shown in the title; NULL for none */
  const char *gpu;           /* GPU model; NULL for none */
  int n_ranks;               /* N >= 2 */
  int channels;              /* parallel rings (the ring: chunk c is segment c of each) */
  double bytes;              /* S */
  double bottleneck_Bps;     /* B of the closed form */
  double hop_latency_s;      /* L */
  double closed_form_s;
  double time_s;             /* simulated, from the barrier */
  double t_origin_s;         /* simulated time of the barrier: the axis' zero */
} DtsSvgRun;

typedef struct {
  DtsSvgRun run;
  const DtsSvgRingStep *steps;
  int n_steps;               /* 2(N-1) x N records, any order */
  const int *reduced_chunk;  /* n_ranks: chunk rank r holds fully reduced after reduce-scatter */
} DtsSvgRing;

/* Append the SVG document of RING to OUT. The ring order on the circle
 * follows send_to from rank 0; every record must have step and rank in
 * range (programming errors otherwise). */
void dts_svg_write_ring_allreduce (const DtsSvgRing *ring, GString *out);

/* Any collective algorithm and op in one picture (`dtsim allreduce --svg`
 * for every algorithm but the ring all-reduce): one row per rank, one
 * column per step slot (the steps that run at once), one arrow per
 * transfer from the sender's row to the receiver's in that column, blue
 * when the receiver adds what it receives (reduce), orange when it copies
 * it; phase bands over the columns and, under each column, the simulated
 * time at which its last rank ends it. Columns have one width whatever
 * their duration, so that the structure (distances N/2, N/4, ... of
 * halving-doubling, the two trees of the double binary tree) reads at a
 * glance; the times are on the axis. Each arrow carries a <title> with its
 * bytes and offset. */
typedef struct {
  int from, to;       /* ranks */
  int column;         /* 0 .. n_columns-1 */
  gboolean reduce;    /* the receiver adds it */
  double bytes;       /* per channel */
  double offset;      /* where they start in each channel's slice; -1: not said */
  int channels;
} DtsSvgArrow;

typedef struct {
  const char *algorithm;     /* table id, "tree" */
  const char *op;            /* "all-reduce" */
  const char *description;   /* one line on the algorithm; NULL for none */
  DtsSvgRun run;
  int root;                  /* broadcast, reduce: the root; -1 otherwise */
  int n_columns;             /* >= 1 */
  const double *col_end_s;   /* n_columns: latest end of a step of the column */
  const char *const *col_phase; /* n_columns: phase name of the column (static strings) */
  const DtsSvgArrow *arrows;
  int n_arrows;
} DtsSvgSteps;

/* Append the SVG document of STEPS to OUT (arrows in the caller's order). */
void dts_svg_write_steps (const DtsSvgSteps *steps, GString *out);

/* The drawing primitives of the pictures (svg.c, timeline.c), in the same
 * number formats: coordinates with one decimal. TEXT is escaped; WEIGHT,
 * KLASS and STROKE may be NULL. */
void dts_svg_text (GString *o, double x, double y, double font_px, const char *anchor,
                   const char *weight, const char *fill, const char *text);
void dts_svg_line (GString *o, double x1, double y1, double x2, double y2, const char *stroke,
                   double width, gboolean dashed);
void dts_svg_rect (GString *o, const char *klass, double x, double y, double w, double h,
                   double rx, const char *fill, const char *stroke);
/* Estimated width of TEXT at FONT_PX in a sans-serif face. */
double dts_svg_text_width (const char *text, double font_px);
/* A time axis from X0 over WIDTH at height Y: ticks at 1, 2 or 5 x 10^k
 * over SPAN (any unit), about eight, with their values, and LABEL under
 * it. */
void dts_svg_time_axis (GString *o, double x0, double width, double y, double span,
                        const char *label);
/* The document's opening (XML declaration, svg element with a white
 * background) for a WIDTH x HEIGHT picture. */
void dts_svg_begin (GString *o, double width, double height);

G_END_DECLS

#endif
