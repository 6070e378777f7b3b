/* report.c - the writer table, JSON and CSV writers, saving to files.
 *
 * The JSON object holds the fields of the output contract (doc/DESIGN.md)
 * first, then what else a user needs to interpret or reproduce the run. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "output/json.h"
#include "output/report.h"

static const DtsReportWriter writers[] = {
  { "text", "readable summary", dts_report_write_text },
  { "json", "one JSON object (fields in doc/SIMULATION.md)", dts_report_write_json },
  { "csv", "a header line and one row, for sweeps", dts_report_write_csv },
  { NULL, NULL, NULL },
};

const DtsReportWriter *
dts_report_writers (void)
{
  return writers;
}

const DtsReportWriter *
dts_report_writer_lookup (const char *id)
{
  for (const DtsReportWriter *w = writers; w->id; w++)
    if (g_strcmp0 (w->id, id) == 0)
      return w;
  return NULL;
}

void
dts_report_write_json (const DtsRunSummary *s, GString *out)
{
  g_autoptr (DtsJson) j = dts_json_new ();
  dts_json_begin_object (j);
  dts_json_kv_int (j, "n_gpus", s->n_gpus);
  dts_json_kv_int (j, "batch_size_per_gpu", s->batch_size_per_gpu);
  dts_json_kv_int (j, "global_batch_size", s->global_batch_size);
  dts_json_kv_int (j, "iterations", s->iterations);
  dts_json_kv_int (j, "warmup_iterations", s->warmup_iterations);
  dts_json_kv_double (j, "iteration_time_s", s->iteration_time_s);
  dts_json_kv_double (j, "throughput_samples_per_s", s->throughput_samples_per_s);
  dts_json_key (j, "breakdown");
  dts_json_begin_object (j);
  dts_json_kv_double (j, "forward_s", s->forward_s);
  dts_json_kv_double (j, "backward_s", s->backward_s);
  dts_json_kv_double (j, "backward_data_s", s->backward_data_s);
  dts_json_kv_double (j, "backward_weight_s", s->backward_weight_s);
  dts_json_kv_double (j, "optimizer_s", s->optimizer_s);
  dts_json_kv_double (j, "comm_s", s->comm_s);
  dts_json_kv_double (j, "comm_exposed_s", s->comm_exposed_s);
  dts_json_kv_double (j, "comm_overlapped_s", s->comm_overlapped_s);
  dts_json_end_object (j);
  dts_json_kv_double (j, "memory_peak_bytes_per_gpu", s->memory_peak_bytes_per_gpu);
  dts_json_key (j, "memory");
  dts_json_begin_object (j);
  dts_json_kv_double (j, "weights_bytes", s->memory_weights_bytes);
  dts_json_kv_double (j, "gradients_bytes", s->memory_gradients_bytes);
  dts_json_kv_double (j, "optimizer_bytes", s->memory_optimizer_bytes);
  dts_json_kv_double (j, "activations_bytes", s->memory_activations_bytes);
  dts_json_kv_double (j, "gpu_memory_bytes", s->gpu_memory_bytes);
  dts_json_kv_bool (j, "fits", s->memory_peak_bytes_per_gpu <= s->gpu_memory_bytes);
  dts_json_end_object (j);
  dts_json_kv_double (j, "compute_idle_gpu_s", s->compute_idle_gpu_s);
  dts_json_kv_double (j, "scaling_efficiency", s->scaling_efficiency);
  dts_json_kv_double (j, "allreduce_bytes_per_iteration", s->allreduce_bytes);

  dts_json_kv_string (j, "platform", s->platform);
  dts_json_kv_string (j, "workload", s->workload);
  dts_json_kv_string (j, "gpu", s->gpu);
  dts_json_kv_int (j, "n_nodes", s->n_nodes);
  dts_json_kv_double (j, "params", s->params);
  dts_json_key (j, "options");
  dts_json_begin_object (j);
  dts_json_kv_string (j, "strategy", s->strategy);
  dts_json_kv_string (j, "precision", s->precision);
  dts_json_kv_string (j, "cost_model", s->cost_model);
  dts_json_kv_string (j, "cost_source", s->cost_source);
  dts_json_kv_string (j, "collective", s->collective);
  dts_json_kv_string (j, "comm_granularity", s->granularity);
  dts_json_kv_double (j, "bucket_bytes", s->bucket_bytes);
  dts_json_kv_double (j, "chunk_bytes", s->chunk_bytes);
  dts_json_kv_int (j, "channels", s->channels);
  dts_json_kv_bool (j, "overlap", s->overlap);
  dts_json_kv_int (j, "seed", (gint64) s->seed);
  dts_json_key (j, "simgrid_cfg");
  dts_json_begin_array (j);
  for (char **c = s->cfg; c && *c; c++)
    dts_json_string (j, *c);
  dts_json_end_array (j);
  dts_json_key (j, "overrides");
  dts_json_begin_array (j);
  for (char **c = s->overrides; c && *c; c++)
    dts_json_string (j, *c);
  dts_json_end_array (j);
  dts_json_end_object (j);

  dts_json_key (j, "buckets");
  dts_json_begin_array (j);
  for (guint b = 0; b < s->buckets->len; b++) {
    const DtsBucketStat *bs = &g_array_index (s->buckets, DtsBucketStat, b);
    dts_json_begin_object (j);
    dts_json_kv_double (j, "bytes", bs->bytes);
    dts_json_kv_int (j, "layers", bs->n_layers);
    dts_json_kv_string (j, "first_layer", bs->first_layer);
    dts_json_kv_string (j, "last_layer", bs->last_layer);
    dts_json_kv_double (j, "ready_s", bs->ready_s);
    dts_json_kv_double (j, "start_s", bs->start_s);
    dts_json_kv_double (j, "end_s", bs->end_s);
    dts_json_kv_double (j, "duration_s", bs->duration_s);
    dts_json_end_object (j);
  }
  dts_json_end_array (j);

  dts_json_key (j, "simulation");
  dts_json_begin_object (j);
  dts_json_kv_double (j, "wall_time_s", s->wall_time_s);
  dts_json_kv_int (j, "events", s->events);
  dts_json_kv_double (j, "simulated_time_s", s->makespan_s);
  dts_json_end_object (j);
  dts_json_end_object (j);
  g_string_append (out, dts_json_get (j));
}

static const char *const csv_columns[] = {
  "workload", "platform", "gpu", "n_gpus", "n_nodes", "batch_size_per_gpu", "global_batch_size",
  "precision", "cost_model", "collective", "comm_granularity", "overlap", "bucket_bytes",
  "chunk_bytes", "channels", "iterations", "iteration_time_s", "throughput_samples_per_s",
  "forward_s", "backward_s", "optimizer_s", "comm_s", "comm_exposed_s", "scaling_efficiency",
  "memory_peak_bytes_per_gpu", "wall_time_s", "events", NULL,
};

const char *const *
dts_report_csv_columns (void)
{
  return csv_columns;
}

static void
csv_string (GString *out, const char *s)
{
  s = s ? s : "";
  if (strpbrk (s, ",\"\n") == NULL) {
    g_string_append (out, s);
    return;
  }
  g_string_append_c (out, '"');
  for (const char *p = s; *p; p++) {
    if (*p == '"')
      g_string_append_c (out, '"');
    g_string_append_c (out, *p);
  }
  g_string_append_c (out, '"');
}

static void
csv_double (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  dts_json_format_double (buf, sizeof buf, v);
  g_string_append (out, strcmp (buf, "null") == 0 ? "" : buf);
}

void
dts_report_write_csv (const DtsRunSummary *s, GString *out)
{
  for (int i = 0; csv_columns[i]; i++)
    g_string_append_printf (out, "%s%s", i ? "," : "", csv_columns[i]);
  g_string_append_c (out, '\n');
  csv_string (out, s->workload);
  g_string_append_c (out, ',');
  csv_string (out, s->platform);
  g_string_append_c (out, ',');
  csv_string (out, s->gpu);
  g_string_append_printf (out, ",%d,%d,%d,%d,", s->n_gpus, s->n_nodes, s->batch_size_per_gpu,
                          s->global_batch_size);
  csv_string (out, s->precision);
  g_string_append_c (out, ',');
  csv_string (out, s->cost_model);
  g_string_append_c (out, ',');
  csv_string (out, s->collective);
  g_string_append_c (out, ',');
  csv_string (out, s->granularity);
  g_string_append_printf (out, ",%s,", s->overlap ? "true" : "false");
  csv_double (out, s->bucket_bytes);
  g_string_append_c (out, ',');
  csv_double (out, s->chunk_bytes);
  g_string_append_printf (out, ",%d,%d", s->channels, s->iterations);
  double values[] = { s->iteration_time_s, s->throughput_samples_per_s, s->forward_s,
                      s->backward_s, s->optimizer_s, s->comm_s, s->comm_exposed_s,
                      s->scaling_efficiency, s->memory_peak_bytes_per_gpu, s->wall_time_s };
  for (guint i = 0; i < G_N_ELEMENTS (values); i++) {
    g_string_append_c (out, ',');
    csv_double (out, values[i]);
  }
  g_string_append_printf (out, ",%" G_GINT64_FORMAT "\n", s->events);
}

gboolean
dts_report_save (const GString *out, const char *path, const char *what, GError **error)
{
  if (strcmp (path, "-") == 0) {
    fwrite (out->str, 1, out->len, stdout);
    return TRUE;
  }
  FILE *f = fopen (path, "wb");
  if (f == NULL) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s '%s': cannot write: %s", what, path,
                 g_strerror (errno));
    return FALSE;
  }
  gboolean ok = fwrite (out->str, 1, out->len, f) == out->len;
  int saved = errno;
  ok = (fclose (f) == 0) && ok;
  if (!ok) {
    g_set_error (error, DTS_ERROR, DTS_ERROR_IO, "%s '%s': cannot write: %s", what, path,
                 g_strerror (saved ? saved : errno));
    return FALSE;
  }
  return TRUE;
}
