/* chrome-trace.c - Chrome / Perfetto trace-event JSON of a run.
 *
 * Format: the Trace Event Format's JSON object form ({"traceEvents": [...]}),
 * complete events ("ph": "X") with "ts" and "dur" in microseconds, and
 * metadata events naming processes (one per GPU rank, sorted by rank) and
 * threads (tid 0 compute, tid 1 communication: all-reduce buckets, or a
 * parameter-server worker's wait for each shard's weights, "pull"). Loads in ui.perfetto.dev
 * and chrome://tracing. Slices are written in recording order, which is
 * deterministic; "otherData" carries the summary figures so that tools can
 * check the trace against them (tests/tools/check-trace.py).
 *
 * Parameter-server runs (async-ps, sync-ps) add a process "parameter
 * servers" (pid n_ranks) with one thread per shard: a slice per update,
 * whose args list the gradients it applied (worker, iteration, staleness,
 * arrival in us) and its samples. */
#include "config.h"

#include "output/json.h"
#include "output/report.h"

enum { TID_COMPUTE = 0, TID_COMM = 1, TID_TENSOR = 2 };

void
dts_report_chrome_metadata (DtsJson *j, const char *what, int pid, int tid, const char *name,
                            int sort)
{
  dts_json_begin_object (j);
  dts_json_kv_string (j, "name", what);
  dts_json_kv_string (j, "ph", "M");
  dts_json_kv_int (j, "pid", pid);
  dts_json_kv_int (j, "tid", tid);
  dts_json_key (j, "args");
  dts_json_begin_object (j);
  if (name)
    dts_json_kv_string (j, "name", name);
  else
    dts_json_kv_int (j, "sort_index", sort);
  dts_json_end_object (j);
  dts_json_end_object (j);
}

/* The shards' updates (see the top); a shard's gradients are the next
 * n_gradients of its shard in ps_gradients, both being in the order of
 * application. */
static void
write_ps_updates (DtsJson *j, const DtsTrace *t)
{
  int pid = t->n_ranks;
  dts_report_chrome_metadata (j, "process_name", pid, 0, "parameter servers", 0);
  dts_report_chrome_metadata (j, "process_sort_index", pid, 0, NULL, pid);
  for (int k = 0; k < t->n_shards; k++) {
    g_autofree char *name = g_strdup_printf ("shard %d", k);
    dts_report_chrome_metadata (j, "thread_name", pid, k, name, 0);
  }
  g_autofree guint *next = g_new0 (guint, MAX (t->n_shards, 1));
  for (guint i = 0; i < t->ps_updates->len; i++) {
    const DtsTraceUpdate *u = &g_array_index (t->ps_updates, DtsTraceUpdate, i);
    if (u->shard < 0 || u->shard >= t->n_shards)
      continue;
    dts_json_begin_object (j);
    dts_json_kv_string (j, "name", "update");
    dts_json_kv_string (j, "cat", "ps-update");
    dts_json_kv_string (j, "ph", "X");
    dts_json_kv_int (j, "pid", pid);
    dts_json_kv_int (j, "tid", u->shard);
    dts_json_kv_double (j, "ts", u->t_start_s * 1e6);
    dts_json_kv_double (j, "dur", (u->t_end_s - u->t_start_s) * 1e6);
    dts_json_key (j, "args");
    dts_json_begin_object (j);
    dts_json_kv_int (j, "shard", u->shard);
    if (u->bucket >= 0)
      dts_json_kv_int (j, "bucket", u->bucket);
    dts_json_kv_int (j, "samples", u->samples);
    dts_json_key (j, "gradients");
    dts_json_begin_array (j);
    guint g = next[u->shard];
    for (int taken = 0; g < t->ps_gradients->len && taken < u->n_gradients; g++) {
      const DtsTraceGradient *gr = &g_array_index (t->ps_gradients, DtsTraceGradient, g);
      if (gr->shard != u->shard)
        continue;
      taken++;
      dts_json_begin_object (j);
      dts_json_kv_int (j, "worker", gr->worker);
      dts_json_kv_int (j, "iteration", gr->clock);
      dts_json_kv_int (j, "staleness", (int) gr->staleness);
      dts_json_kv_double (j, "arrived", gr->arrived_s * 1e6);
      dts_json_end_object (j);
    }
    next[u->shard] = g;
    dts_json_end_array (j);
    dts_json_end_object (j);
    dts_json_end_object (j);
  }
}

void
dts_report_write_chrome_trace (const DtsTrace *t, const DtsRunSummary *s, GString *out)
{
  g_autoptr (DtsJson) j = dts_json_new ();
  dts_json_begin_object (j);
  dts_json_kv_string (j, "displayTimeUnit", "ms");
  dts_json_key (j, "otherData");
  dts_json_begin_object (j);
  dts_json_kv_string (j, "generator", "dtsim");
  dts_json_kv_string (j, "workload", s->workload);
  dts_json_kv_string (j, "platform", s->platform);
  dts_json_kv_int (j, "n_gpus", s->n_gpus);
  dts_json_kv_int (j, "iterations", s->iterations);
  dts_json_kv_int (j, "warmup_iterations", s->warmup_iterations);
  dts_json_kv_double (j, "iteration_time_s", s->iteration_time_s);
  dts_json_kv_double (j, "forward_s", s->forward_s);
  dts_json_kv_double (j, "backward_s", s->backward_s);
  dts_json_kv_double (j, "optimizer_s", s->optimizer_s);
  dts_json_kv_double (j, "comm_s", s->comm_s);
  dts_json_kv_double (j, "comm_exposed_s", s->comm_exposed_s);
  dts_json_kv_int (j, "buckets", s->buckets->len);
  if (s->ps_workers > 0) {
    dts_json_kv_int (j, "ps_workers", s->ps_workers);
    dts_json_kv_int (j, "ps_shards", t->n_shards);
    if (t->ps_parts > 1)
      dts_json_kv_int (j, "ps_buckets", t->ps_parts);
    dts_json_kv_string (j, "ps_update", s->ps_update);
    dts_json_kv_int (j, "staleness_bound", s->staleness_bound);
  }
  dts_json_end_object (j);

  dts_json_key (j, "traceEvents");
  dts_json_begin_array (j);
  /* the tensor-parallel collectives' thread, where a run has them */
  gboolean tensor = FALSE;
  for (guint i = 0; t->slices && i < t->slices->len && !tensor; i++)
    tensor = g_array_index (t->slices, DtsTraceSlice, i).track == DTS_TRACK_TENSOR;
  for (int r = 0; r < t->n_ranks; r++) {
    g_autofree char *pname = g_strdup_printf ("rank %d (%s)", r,
                                              (const char *) g_ptr_array_index (t->rank_hosts, r));
    dts_report_chrome_metadata (j, "process_name", r, 0, pname, 0);
    dts_report_chrome_metadata (j, "process_sort_index", r, 0, NULL, r);
    dts_report_chrome_metadata (j, "thread_name", r, TID_COMPUTE, "compute", 0);
    dts_report_chrome_metadata (j, "thread_name", r, TID_COMM, "communication", 0);
    if (tensor)
      dts_report_chrome_metadata (j, "thread_name", r, TID_TENSOR, "tensor parallel", 0);
  }
  for (guint i = 0; t->slices && i < t->slices->len; i++) {
    const DtsTraceSlice *sl = &g_array_index (t->slices, DtsTraceSlice, i);
    gboolean compute = sl->track == DTS_TRACK_COMPUTE;
    dts_json_begin_object (j);
    if (compute) {
      dts_json_kv_string (j, "name", g_ptr_array_index (t->layer_names, sl->index));
      dts_json_kv_string (j, "cat", t->phase_names[sl->phase]);
    } else if (sl->track == DTS_TRACK_PULL) {
      dts_json_kv_string (j, "name", "pull weights");
      dts_json_kv_string (j, "cat", "pull");
    } else if (sl->track == DTS_TRACK_TENSOR) {
      g_autofree char *name = g_strdup_printf ("tensor %s", t->coll_op_names[sl->index]);
      dts_json_kv_string (j, "name", name);
      dts_json_kv_string (j, "cat", "tensor");
    } else {
      g_autofree char *name = g_strdup_printf ("all-reduce bucket %d", sl->index);
      dts_json_kv_string (j, "name", name);
      dts_json_kv_string (j, "cat", "all-reduce");
    }
    dts_json_kv_string (j, "ph", "X");
    dts_json_kv_int (j, "pid", sl->rank);
    dts_json_kv_int (j, "tid", compute                                ? TID_COMPUTE
                               : sl->track == DTS_TRACK_TENSOR ? TID_TENSOR
                                                                : TID_COMM);
    dts_json_kv_double (j, "ts", sl->t_start_s * 1e6);
    dts_json_kv_double (j, "dur", (sl->t_end_s - sl->t_start_s) * 1e6);
    dts_json_key (j, "args");
    dts_json_begin_object (j);
    dts_json_kv_int (j, "iteration", sl->iteration);
    if (compute) {
      dts_json_kv_string (j, "phase", t->phase_names[sl->phase]);
      dts_json_kv_int (j, "layer", sl->index);
    } else {
      if (sl->track == DTS_TRACK_COMM)
        dts_json_kv_int (j, "bucket", sl->index);
      dts_json_kv_double (j, "bytes", sl->bytes);
    }
    dts_json_end_object (j);
    dts_json_end_object (j);
  }
  if (s->ps_workers > 0 && t->ps_updates != NULL)
    write_ps_updates (j, t);
  dts_json_end_array (j);
  dts_json_end_object (j);
  g_string_append (out, dts_json_get (j));
}
