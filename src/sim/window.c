/* window.c - each rank's counters cut to the run's measured window.
 *
 * The summary measures the iteration over the window [E(W-1), E(I-1)]
 * (trace.c: E(i) is the end of iteration i on the last rank to finish it)
 * and each rank's compute and waiting times over its own iterations
 * W..I-1; its idle time is the window less those, per iteration. A rank's
 * own iterations span E_r(I-1) - E_r(W-1) = (E(I-1) - E(W-1)) + lead -
 * drain, where lead = E(W-1) - E_r(W-1) is how early it started iteration
 * W and drain = E(I-1) - E_r(I-1) how early it finished the last one. In a
 * steady state the two are equal: what the rank does while it leads is
 * what it would do in the next iteration while it drains. A run of a few
 * iterations is not quite steady: a pipeline's first stage, whose gradient
 * all-reduce ends long before the last stage's, starts iteration W and
 * waits in it for the last stage while the last stage is still in W-1, by
 * more than it finishes early at the end; its compute and waits summed to
 * more than the iteration and its idle time was negative.
 *
 * So where a rank's compute and waits over its iterations exceed the
 * window by X, X of what it did before the window opened (before E(W-1))
 * is taken out of them: waiting first (all-reduce, parameter all-gather
 * and neighbour waits, the earliest first), its compute and tensor-parallel
 * collectives only where it did nothing but work then. Its idle time then
 * reads 0 and its compute stays the work of its iterations: what the
 * steady state would show. Where the sum does not exceed the window,
 * nothing changes. Only what ranks did before every rank had finished
 * W-1 can be cut: that is what sim_window_note keeps, the spans of the
 * compute streams' counters until then. Parameter-server runs measure each
 * worker over its own iterations (ps-stats.c) and keep no spans. */
#include "config.h"

#include <math.h>

#include "sim/interp.h"
#include "sim/sim-private.h"

typedef struct {
  gsize ri;            /* dts_trace_ri of the iteration it is counted in */
  const double *share; /* SIM_WINDOW_PHASE: the op's phase fractions */
  double t0, t1;
  double flow_s;       /* SIM_WINDOW_P2P_WAIT: when the data started to flow (t0..t1) */
  int rank;
  int counter;         /* SimWindowCounter */
} Span;

void
sim_window_init (Sim *sim)
{
  const DtsTrace *t = sim->trace;
  sim->warmup = dts_trace_warmup (t->n_iterations);
  if (sim->warmup > 0 && sim->sched->n_shards == 0)
    sim->lead = g_array_new (FALSE, FALSE, sizeof (Span));
  sim->window_open_s = INFINITY;
}

void
sim_window_note (Sim *sim, int rank, int it, int counter, const double *share, double t0,
                 double flow_s, double t1)
{
  /* a wait noted at its end may have begun before the window opened */
  if (sim->lead == NULL || it < sim->warmup || !(t0 < sim->window_open_s) || !(t1 > t0))
    return;
  Span sp = { .ri = dts_trace_ri (sim->trace, rank, it), .share = share, .t0 = t0, .t1 = t1,
              .flow_s = flow_s, .rank = rank, .counter = counter };
  g_array_append_val (sim->lead, sp);
}

void
sim_window_iteration_end (Sim *sim, int it)
{
  if (it == sim->warmup - 1 && ++sim->n_warm == sim->n_compute)
    sim->window_open_s = sim_now ();
}

static void
subtract (double *v, double x)
{
  /* A counter is a sum of the spans cut from it: what remains is >= 0 but
   * for rounding. */
  *v = MAX (*v - x, 0);
}

static gboolean
is_wait (int counter)
{
  return counter == SIM_WINDOW_WAIT || counter == SIM_WINDOW_P2P_WAIT
         || counter == SIM_WINDOW_GATHER_WAIT;
}

/* The compute stream's counted time of RANK over the measured iterations. */
static double
counted_s (const DtsTrace *t, int rank, int w)
{
  double sum = 0;
  for (int it = w; it < t->n_iterations; it++) {
    gsize ri = dts_trace_ri (t, rank, it);
    for (int p = 0; p < DTS_TRACE_N_PHASES; p++)
      sum += t->phase_s[ri * DTS_TRACE_N_PHASES + p];
    sum += t->wait_s[ri] + t->p2p_wait_s[ri] + t->gather_wait_s[ri] + t->tp_s[ri]
           + t->cp_s[ri] + t->ep_s[ri];
  }
  return sum;
}

/* Takes the first C seconds of span SP out of its counters. */
static void
cut_span (DtsTrace *t, const Span *sp, double c)
{
  switch ((SimWindowCounter) sp->counter) {
  case SIM_WINDOW_PHASE:
    for (int p = 0; p < DTS_PHASE_COUNT; p++)
      if (sp->share[p] > 0)
        subtract (&t->phase_s[sp->ri * DTS_TRACE_N_PHASES + p], c * sp->share[p]);
    break;
  case SIM_WINDOW_WAIT:
    subtract (&t->wait_s[sp->ri], c);
    break;
  case SIM_WINDOW_P2P_WAIT:
    /* the data was not produced before flow_s (bubble), in flight after */
    subtract (&t->p2p_wait_s[sp->ri], c);
    subtract (&t->p2p_xfer_s[sp->ri], MAX (0, sp->t0 + c - sp->flow_s));
    break;
  case SIM_WINDOW_GATHER_WAIT:
    subtract (&t->gather_wait_s[sp->ri], c);
    break;
  case SIM_WINDOW_TP:
    subtract (&t->tp_s[sp->ri], c);
    break;
  case SIM_WINDOW_CONTEXT:
    subtract (&t->cp_s[sp->ri], c);
    break;
  case SIM_WINDOW_EXPERT:
    subtract (&t->ep_s[sp->ri], c);
    break;
  }
}

void
sim_window_cut (Sim *sim)
{
  DtsTrace *t = sim->trace;
  if (sim->lead == NULL || sim->lead->len == 0)
    return;
  int w = sim->warmup, last = t->n_iterations - 1;
  double e_first = 0, e_last = 0;
  for (int r = 0; r < sim->n; r++)
    if (sim->rep == NULL || sim->rep[r] == r) {
      e_first = MAX (e_first, t->iter_end_s[dts_trace_ri (t, r, w - 1)]);
      e_last = MAX (e_last, t->iter_end_s[dts_trace_ri (t, r, last)]);
    }
  double window = e_last - e_first;
  /* over[r]: what remains to be cut from rank r (-1: not yet known) */
  g_autofree double *over = g_new (double, sim->n);
  for (int r = 0; r < sim->n; r++)
    over[r] = -1;
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < sim->lead->len; i++) {
      const Span *sp = &g_array_index (sim->lead, Span, i);
      if (over[sp->rank] < 0) {
        /* rounding of the sums (a few ulps) is no excess */
        double x = counted_s (t, sp->rank, w) - window;
        over[sp->rank] = x > 1e-12 * window ? x : 0;
      }
      /* waits in the first pass, work in the second */
      if (is_wait (sp->counter) != (pass == 0))
        continue;
      double c = MIN (over[sp->rank], MIN (sp->t1, e_first) - sp->t0);
      if (!(c > 0))
        continue;
      cut_span (t, sp, c);
      over[sp->rank] -= c;
    }
}
