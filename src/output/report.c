/* report.c - the writer table, JSON and CSV writers, saving to files.
 *
 * The JSON object holds the fields of the output contract (doc/DESIGN.md)
 * first, then what else a user needs to interpret or reproduce the run.
 * Both writers print rows of field tables, so that a value's name, its kind
 * and its place in the summary are written once, and a CSV column cannot
 * drift away from its header. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/outfile.h"
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

/* ---- fields: one row per value a writer prints ------------------------- */

typedef enum {
  FIELD_INT,
  FIELD_INT64,
  FIELD_UINT64,
  FIELD_BOOL,
  FIELD_DOUBLE,
  FIELD_STRING,
  FIELD_HISTOGRAM, /* a DtsDistribution's bins (CSV only): FROM:COUNT;FROM:COUNT... */
} FieldKind;

typedef struct {
  const char *key;
  FieldKind kind;
  gsize offset; /* in the record the table describes */
} Field;

/* A row for MEMBER of record type T, which must have C type CTYPE: a table
 * that names a member of another type does not compile. */
#define FIELD(T, kind, ctype, key, member) \
  { key, kind, _Generic (((T *) 0)->member, ctype: G_STRUCT_OFFSET (T, member)) }
#define S_INT(key, m) FIELD (DtsRunSummary, FIELD_INT, int, key, m)
#define S_INT64(key, m) FIELD (DtsRunSummary, FIELD_INT64, gint64, key, m)
#define S_UINT64(key, m) FIELD (DtsRunSummary, FIELD_UINT64, guint64, key, m)
#define S_BOOL(key, m) FIELD (DtsRunSummary, FIELD_BOOL, gboolean, key, m)
#define S_DOUBLE(key, m) FIELD (DtsRunSummary, FIELD_DOUBLE, double, key, m)
#define S_STRING(key, m) FIELD (DtsRunSummary, FIELD_STRING, char *, key, m)
#define S_HISTOGRAM(key, m) FIELD (DtsRunSummary, FIELD_HISTOGRAM, DtsDistribution, key, m)
#define END_FIELDS { NULL, 0, 0 }

#define MEMBER(ctype, record, f) G_STRUCT_MEMBER (ctype, (gpointer) (record), (f)->offset)

static void
json_fields (DtsJson *j, const void *record, const Field *fields)
{
  for (const Field *f = fields; f->key; f++) {
    switch (f->kind) {
    case FIELD_INT:
      dts_json_kv_int (j, f->key, MEMBER (int, record, f));
      break;
    case FIELD_INT64:
      dts_json_kv_int (j, f->key, MEMBER (gint64, record, f));
      break;
    case FIELD_UINT64:
      dts_json_kv_uint (j, f->key, MEMBER (guint64, record, f));
      break;
    case FIELD_BOOL:
      dts_json_kv_bool (j, f->key, MEMBER (gboolean, record, f));
      break;
    case FIELD_DOUBLE:
      dts_json_kv_double (j, f->key, MEMBER (double, record, f));
      break;
    case FIELD_STRING:
      dts_json_kv_string (j, f->key, MEMBER (char *, record, f));
      break;
    case FIELD_HISTOGRAM:
      g_assert_not_reached (); /* JSON writes distributions whole (ps.c) */
    }
  }
}

/* ---- JSON --------------------------------------------------------------- */

static const Field json_head[] = {
  S_INT ("n_gpus", n_gpus),
  S_INT ("batch_size_per_gpu", batch_size_per_gpu),
  S_INT ("global_batch_size", global_batch_size),
  S_INT ("iterations", iterations),
  S_INT ("warmup_iterations", warmup_iterations),
  S_DOUBLE ("iteration_time_s", iteration_time_s),
  S_DOUBLE ("throughput_samples_per_s", throughput_samples_per_s),
  END_FIELDS,
};

static const Field json_breakdown[] = {
  S_DOUBLE ("forward_s", forward_s),
  S_DOUBLE ("backward_s", backward_s),
  S_DOUBLE ("backward_data_s", backward_data_s),
  S_DOUBLE ("backward_weight_s", backward_weight_s),
  S_DOUBLE ("optimizer_s", optimizer_s),
  S_DOUBLE ("comm_s", comm_s),
  S_DOUBLE ("comm_exposed_s", comm_exposed_s),
  S_DOUBLE ("comm_overlapped_s", comm_overlapped_s),
  END_FIELDS,
};

/* --zero 1 only: comm_s and comm_exposed_s split into the gradients'
 * collectives and the parameter all-gathers. */
static const Field json_zero_breakdown[] = {
  S_DOUBLE ("grad_sync_s", grad_sync_s),
  S_DOUBLE ("grad_sync_exposed_s", grad_sync_exposed_s),
  S_DOUBLE ("param_gather_s", param_gather_s),
  S_DOUBLE ("param_gather_exposed_s", param_gather_exposed_s),
  END_FIELDS,
};

static const Field json_tokens[] = {
  S_INT ("seq_len", seq_len),
  S_DOUBLE ("tokens_per_s", tokens_per_s),
  S_DOUBLE ("tokens_per_s_per_gpu", tokens_per_s_per_gpu),
  S_DOUBLE ("model_flops_per_sample", model_flops_per_sample),
  S_DOUBLE ("model_tflops_per_gpu", model_tflops_per_gpu),
  S_DOUBLE ("peak_tflops_per_gpu", peak_tflops_per_gpu),
  S_DOUBLE ("mfu", mfu),
  END_FIELDS,
};

static const Field json_peak[] = {
  S_DOUBLE ("memory_peak_bytes_per_gpu", memory_peak_bytes_per_gpu),
  END_FIELDS,
};

/* Followed by "fits", which is computed. */
static const Field json_memory[] = {
  S_DOUBLE ("weights_bytes", memory_weights_bytes),
  S_DOUBLE ("gradients_bytes", memory_gradients_bytes),
  S_DOUBLE ("optimizer_bytes", memory_optimizer_bytes),
  S_DOUBLE ("activations_bytes", memory_activations_bytes),
  S_DOUBLE ("gpu_memory_bytes", gpu_memory_bytes),
  END_FIELDS,
};

/* What else a user needs to interpret or reproduce the run. */
static const Field json_context[] = {
  S_DOUBLE ("compute_idle_gpu_s", compute_idle_gpu_s),
  S_DOUBLE ("compute_efficiency", compute_efficiency),
  S_DOUBLE ("allreduce_bytes_per_iteration", allreduce_bytes),
  S_STRING ("platform", platform),
  S_STRING ("workload", workload),
  S_STRING ("gpu", gpu),
  S_INT ("n_nodes", n_nodes),
  S_DOUBLE ("params", params),
  END_FIELDS,
};

/* Followed by the SimGrid configuration and the what-if overrides. */
static const Field json_options[] = {
  S_STRING ("strategy", strategy),
  S_STRING ("precision", precision),
  S_STRING ("cost_model", cost_model),
  S_STRING ("cost_source", cost_source),
  S_STRING ("framework", framework),
  S_STRING ("collective", collective),
  S_STRING ("comm_granularity", granularity),
  S_DOUBLE ("bucket_bytes", bucket_bytes),
  S_DOUBLE ("chunk_bytes", chunk_bytes),
  S_DOUBLE ("coll_overhead_s", coll_overhead_s),
  S_INT ("channels", channels),
  S_INT ("comm_streams", comm_streams),
  S_INT ("ps_servers", ps_servers),
  FIELD (DtsRunSummary, FIELD_STRING, const char *, "ps_aggregation", ps_aggregation),
  S_BOOL ("overlap", overlap),
  S_UINT64 ("seed", seed),
  END_FIELDS,
};

#define B_FIELD(kind, ctype, key, m) FIELD (DtsBucketStat, kind, ctype, key, m)
static const Field json_bucket[] = {
  B_FIELD (FIELD_DOUBLE, double, "bytes", bytes),
  B_FIELD (FIELD_INT, int, "layers", n_layers),
  B_FIELD (FIELD_STRING, char *, "first_layer", first_layer),
  B_FIELD (FIELD_STRING, char *, "last_layer", last_layer),
  B_FIELD (FIELD_DOUBLE, double, "ready_s", ready_s),
  B_FIELD (FIELD_DOUBLE, double, "start_s", start_s),
  B_FIELD (FIELD_DOUBLE, double, "end_s", end_s),
  B_FIELD (FIELD_DOUBLE, double, "duration_s", duration_s),
  END_FIELDS,
};

/* The per-rank table: JSON "ranks" and --per-rank CSV alike. A new wait
 * kind (trace.h) is one more row here. Keys differ from the run-wide
 * ones ("comm_s", "forward_s"), so a grep for those finds one line. */
#define R_FIELD(kind, ctype, key, m) FIELD (DtsRankStat, kind, ctype, key, m)
static const Field rank_fields[] = {
  R_FIELD (FIELD_INT, int, "rank", rank),
  R_FIELD (FIELD_STRING, char *, "host", host),
  R_FIELD (FIELD_DOUBLE, double, "compute_s", compute_s),
  R_FIELD (FIELD_DOUBLE, double, "phase_forward_s", phase_s[0]),
  R_FIELD (FIELD_DOUBLE, double, "phase_backward_data_s", phase_s[1]),
  R_FIELD (FIELD_DOUBLE, double, "phase_backward_weight_s", phase_s[2]),
  R_FIELD (FIELD_DOUBLE, double, "phase_optimizer_s", phase_s[3]),
  R_FIELD (FIELD_DOUBLE, double, "phase_recompute_s", phase_s[4]),
  R_FIELD (FIELD_DOUBLE, double, "wait_allreduce_s", wait_s[DTS_RANK_WAIT_ALLREDUCE]),
  R_FIELD (FIELD_DOUBLE, double, "wait_tensor_s", wait_s[DTS_RANK_WAIT_TENSOR]),
  R_FIELD (FIELD_DOUBLE, double, "wait_transfer_s", wait_s[DTS_RANK_WAIT_TRANSFER]),
  R_FIELD (FIELD_DOUBLE, double, "wait_bubble_s", wait_s[DTS_RANK_WAIT_BUBBLE]),
  R_FIELD (FIELD_DOUBLE, double, "comm_busy_s", comm_s),
  R_FIELD (FIELD_DOUBLE, double, "idle_s", idle_s),
  END_FIELDS,
};
/* Appended to the rows of a --zero 1 run only, so that every other run keeps
 * its columns: the parameter all-gathers, apart from the gradient sync of
 * wait_allreduce_s and comm_busy_s. */
static const Field rank_gather_fields[] = {
  R_FIELD (FIELD_DOUBLE, double, "wait_gather_s", wait_s[DTS_RANK_WAIT_GATHER]),
  R_FIELD (FIELD_DOUBLE, double, "gather_busy_s", gather_s),
  END_FIELDS,
};
/* Appended to the rows of a --context-parallel run only. */
static const Field rank_context_fields[] = {
  R_FIELD (FIELD_DOUBLE, double, "wait_context_s", wait_s[DTS_RANK_WAIT_CONTEXT]),
  END_FIELDS,
};
/* Appended to the rows of an --expert-parallel run only. */
static const Field rank_expert_fields[] = {
  R_FIELD (FIELD_DOUBLE, double, "wait_expert_s", wait_s[DTS_RANK_WAIT_EXPERT]),
  END_FIELDS,
};
/* one wait_*_s row per kind above, the last three in rank_gather_fields,
 * rank_context_fields and rank_expert_fields */
G_STATIC_ASSERT (DTS_RANK_WAIT_N_KINDS == 7);

static const Field json_diagnosis[] = {
  S_INT ("slowest_rank", slowest_rank),
  S_INT ("fastest_rank", fastest_rank),
  S_DOUBLE ("median_compute_s", median_compute_s),
  S_INT ("slow_ranks", n_slow_ranks),
  END_FIELDS,
};

static const Field json_pipeline[] = {
  S_INT ("n_stages", n_stages),
  S_INT ("micro_batches", micro_batches),
  S_STRING ("schedule", pipeline_schedule),
  S_STRING ("placement", placement),
  S_INT ("tensor_parallel", tensor_parallel),
  S_BOOL ("sequence_parallel", sequence_parallel),
  S_DOUBLE ("tensor_s", tensor_s),
  S_DOUBLE ("bubble_fraction", bubble_fraction),
  S_DOUBLE ("bubble_s", bubble_s),
  S_DOUBLE ("p2p_wait_s", p2p_wait_s),
  S_DOUBLE ("p2p_exposed_s", p2p_exposed_s),
  END_FIELDS,
};

#define ST_FIELD(kind, ctype, key, m) FIELD (DtsStageStat, kind, ctype, key, m)
static const Field json_stage[] = {
  ST_FIELD (FIELD_STRING, char *, "first_layer", first_layer),
  ST_FIELD (FIELD_STRING, char *, "last_layer", last_layer),
  ST_FIELD (FIELD_INT, int, "layers", n_layers),
  ST_FIELD (FIELD_INT, int, "replicas", replicas),
  ST_FIELD (FIELD_INT, int, "tensor_parallel", tensor_parallel),
  ST_FIELD (FIELD_INT, int, "first_rank", first_rank),
  ST_FIELD (FIELD_DOUBLE, double, "params", params),
  ST_FIELD (FIELD_DOUBLE, double, "compute_s", compute_s),
  ST_FIELD (FIELD_DOUBLE, double, "allreduce_exposed_s", allreduce_exposed_s),
  ST_FIELD (FIELD_DOUBLE, double, "tensor_s", tensor_s),
  ST_FIELD (FIELD_DOUBLE, double, "transfer_exposed_s", transfer_exposed_s),
  ST_FIELD (FIELD_DOUBLE, double, "bubble_s", bubble_s),
  ST_FIELD (FIELD_DOUBLE, double, "busy_fraction", busy_fraction),
  ST_FIELD (FIELD_DOUBLE, double, "send_bytes_per_iteration", send_bytes),
  ST_FIELD (FIELD_INT, int, "stashed_micro_batches", stashed),
  ST_FIELD (FIELD_DOUBLE, double, "memory_bytes", memory_bytes),
  ST_FIELD (FIELD_DOUBLE, double, "activations_bytes", activations_bytes),
  END_FIELDS,
};

static const Field json_simulation[] = {
  S_DOUBLE ("wall_time_s", wall_time_s),
  S_INT64 ("events", events),
  S_DOUBLE ("simulated_time_s", makespan_s),
  END_FIELDS,
};

static void
json_strv (DtsJson *j, const char *key, char **strv)
{
  dts_json_key (j, key);
  dts_json_begin_array (j);
  for (char **c = strv; c && *c; c++)
    dts_json_string (j, *c);
  dts_json_end_array (j);
}

void
dts_report_write_json (const DtsRunSummary *s, GString *out)
{
  g_autoptr (DtsJson) j = dts_json_new ();
  dts_json_begin_object (j);
  json_fields (j, s, json_head);
  dts_json_key (j, "breakdown");
  dts_json_begin_object (j);
  json_fields (j, s, json_breakdown);
  if (s->zero > 0)
    json_fields (j, s, json_zero_breakdown);
  dts_json_end_object (j);
  json_fields (j, s, json_peak);
  dts_json_key (j, "memory");
  dts_json_begin_object (j);
  json_fields (j, s, json_memory);
  dts_json_kv_bool (j, "fits", s->memory_peak_bytes_per_gpu <= s->gpu_memory_bytes);
  dts_json_end_object (j);

  json_fields (j, s, json_context);
  dts_json_key (j, "options");
  dts_json_begin_object (j);
  json_fields (j, s, json_options);
  /* only where the cost borrowed from another architecture (a Blackwell
   * GPU): other runs keep their keys, and CSV its columns */
  if (s->cost_assumed != NULL)
    dts_json_kv_string (j, "cost_assumed", s->cost_assumed);
  /* the profile's measured error under the cost model (percent), null
   * where none was measured */
  dts_json_kv_double (j, "framework_validate_mape_pct",
                      s->framework_mape >= 0 ? s->framework_mape : NAN);
  json_strv (j, "simgrid_cfg", s->cfg);
  json_strv (j, "overrides", s->overrides);
  dts_json_end_object (j);

  dts_json_key (j, "buckets");
  dts_json_begin_array (j);
  for (guint b = 0; b < s->buckets->len; b++) {
    dts_json_begin_object (j);
    const DtsBucketStat *bs = &g_array_index (s->buckets, DtsBucketStat, b);
    json_fields (j, bs, json_bucket);
    if (bs->protocol != NULL) {
      /* --collective auto only, so that other runs print what they did. */
      dts_json_kv_string (j, "algorithm", bs->algorithm);
      dts_json_kv_string (j, "protocol", bs->protocol);
      dts_json_kv_double (j, "predicted_s", bs->predicted_s);
      if (bs->nccl_algo != NULL) {
        dts_json_kv_string (j, "nccl_algorithm", bs->nccl_algo);
        dts_json_kv_int (j, "channels", bs->channels);
      }
    }
    dts_json_end_object (j);
  }
  dts_json_end_array (j);

  /* --link-stats only. */
  if (s->links != NULL) {
    dts_json_key (j, "links");
    dts_json_begin_array (j);
    for (guint i = 0; i < s->links->len; i++) {
      const DtsTraceLink *l = &g_array_index (s->links, DtsTraceLink, i);
      dts_json_begin_object (j);
      dts_json_kv_string (j, "name", l->name);
      dts_json_kv_double (j, "bandwidth_Bps", l->bandwidth_Bps);
      dts_json_kv_double (j, "bytes", l->bytes);
      dts_json_kv_double (j, "busy_fraction", l->busy_fraction);
      dts_json_end_object (j);
    }
    dts_json_end_array (j);
  }

  /* Pipeline and hybrid runs only. */
  if (s->n_stages > 0) {
    dts_json_key (j, "pipeline");
    dts_json_begin_object (j);
    json_fields (j, s, json_pipeline);
    if (s->virtual_stages > 1)
      dts_json_kv_int (j, "virtual_stages", s->virtual_stages);
    if (s->tp_overlap != NULL)
      dts_json_kv_string (j, "tp_overlap", s->tp_overlap);
    if (s->context_parallel > 1) {
      dts_json_kv_int (j, "context_parallel", s->context_parallel);
      dts_json_kv_double (j, "context_s", s->context_s);
    }
    if (s->expert_parallel > 1) {
      dts_json_kv_int (j, "expert_parallel", s->expert_parallel);
      dts_json_kv_double (j, "expert_s", s->expert_s);
    }
    if (s->expert_parallel > 1 || s->moe_routing_alpha > 0 || s->moe_capacity > 0)
      dts_json_kv_double (j, "moe_imbalance", s->moe_imbalance);
    if (s->moe_routing_alpha > 0) {
      dts_json_kv_double (j, "moe_routing_dirichlet", s->moe_routing_alpha);
      dts_json_kv_double (j, "moe_imbalance_max", s->moe_imbalance_max);
    }
    if (s->moe_capacity > 0) {
      dts_json_kv_double (j, "moe_capacity_factor", s->moe_capacity);
      /* known from drawn shares only */
      if (s->moe_routing_alpha > 0)
        dts_json_kv_double (j, "moe_dropped", s->moe_dropped);
    }
    if (s->partition != NULL)
      dts_json_kv_string (j, "partition", s->partition);
    dts_json_key (j, "stages");
    dts_json_begin_array (j);
    for (guint i = 0; i < s->stages->len; i++) {
      dts_json_begin_object (j);
      const DtsStageStat *st = &g_array_index (s->stages, DtsStageStat, i);
      json_fields (j, st, json_stage);
      if (s->gather_bytes > 0)
        dts_json_kv_double (j, "gather_exposed_s", st->gather_exposed_s);
      if (st->chunk_ranges != NULL)
        dts_json_kv_string (j, "other_chunks", st->chunk_ranges);
      dts_json_end_object (j);
    }
    dts_json_end_array (j);
    dts_json_end_object (j);
  }

  if (s->ranks->len > 0) {
    const DtsRankStat *slow = &g_array_index (s->ranks, DtsRankStat, s->slowest_rank);
    const DtsRankStat *fast = &g_array_index (s->ranks, DtsRankStat, s->fastest_rank);
    dts_json_key (j, "diagnosis");
    dts_json_begin_object (j);
    dts_json_kv_string (j, "bottleneck", dts_bottleneck_id (s->bottleneck));
    json_fields (j, s, json_diagnosis);
    dts_json_kv_string (j, "slowest_host", slow->host);
    dts_json_kv_string (j, "fastest_host", fast->host);
    dts_json_kv_double (j, "slowest_over_median",
                        s->median_compute_s > 0 ? slow->compute_s / s->median_compute_s : 0);
    dts_json_end_object (j);
    dts_json_key (j, "ranks");
    dts_json_begin_array (j);
    for (guint r = 0; r < s->ranks->len; r++) {
      dts_json_begin_object (j);
      json_fields (j, &g_array_index (s->ranks, DtsRankStat, r), rank_fields);
      if (s->zero > 0)
        json_fields (j, &g_array_index (s->ranks, DtsRankStat, r), rank_gather_fields);
      if (s->context_parallel > 1)
        json_fields (j, &g_array_index (s->ranks, DtsRankStat, r), rank_context_fields);
      if (s->expert_parallel > 1)
        json_fields (j, &g_array_index (s->ranks, DtsRankStat, r), rank_expert_fields);
      dts_json_end_object (j);
    }
    dts_json_end_array (j);
  }

  dts_json_key (j, "simulation");
  dts_json_begin_object (j);
  json_fields (j, s, json_simulation);
  dts_json_end_object (j);
  dts_report_json_ps (j, s);
  if (s->recompute != NULL && strcmp (s->recompute, "none") != 0) {
    dts_json_kv_string (j, "recompute", s->recompute);
    dts_json_kv_double (j, "recompute_s", s->recompute_s);
  }
  if (s->zero > 0) {
    dts_json_kv_int (j, "zero", s->zero);
    dts_json_kv_string (j, "param_gather", s->param_gather);
    dts_json_kv_double (j, "gather_bytes_per_iteration", s->gather_bytes);
  }
  /* Sequence models only. */
  if (s->seq_len > 0) {
    dts_json_key (j, "tokens");
    dts_json_begin_object (j);
    json_fields (j, s, json_tokens);
    dts_json_kv_string (j, "model_flops_formula",
                        "3 x (2 x MACs of linear layers + 4 x seq^2 x heads x head_dim per "
                        "attention layer), no recomputation (Megatron-LM)");
    dts_json_end_object (j);
  }
  dts_json_end_object (j);
  g_string_append (out, dts_json_get (j));
}

/* ---- CSV ---------------------------------------------------------------- */

static const Field csv_fields[] = {
  S_STRING ("workload", workload),
  S_STRING ("platform", platform),
  S_STRING ("gpu", gpu),
  S_INT ("n_gpus", n_gpus),
  S_INT ("n_nodes", n_nodes),
  S_INT ("batch_size_per_gpu", batch_size_per_gpu),
  S_INT ("global_batch_size", global_batch_size),
  S_STRING ("precision", precision),
  S_STRING ("cost_model", cost_model),
  S_STRING ("collective", collective),
  S_STRING ("comm_granularity", granularity),
  S_BOOL ("overlap", overlap),
  S_DOUBLE ("bucket_bytes", bucket_bytes),
  S_DOUBLE ("chunk_bytes", chunk_bytes),
  S_INT ("channels", channels),
  S_INT ("iterations", iterations),
  S_DOUBLE ("iteration_time_s", iteration_time_s),
  S_DOUBLE ("throughput_samples_per_s", throughput_samples_per_s),
  S_DOUBLE ("forward_s", forward_s),
  S_DOUBLE ("backward_s", backward_s),
  S_DOUBLE ("optimizer_s", optimizer_s),
  S_DOUBLE ("comm_s", comm_s),
  S_DOUBLE ("comm_exposed_s", comm_exposed_s),
  S_DOUBLE ("compute_efficiency", compute_efficiency),
  S_DOUBLE ("memory_peak_bytes_per_gpu", memory_peak_bytes_per_gpu),
  S_DOUBLE ("wall_time_s", wall_time_s),
  S_INT64 ("events", events),
  END_FIELDS,
};

/* Appended to the row of a --zero 1 run only (after the sequence model's
 * fields, if any). */
static const Field csv_zero_fields[] = {
  S_DOUBLE ("grad_sync_s", grad_sync_s),
  S_DOUBLE ("grad_sync_exposed_s", grad_sync_exposed_s),
  S_DOUBLE ("param_gather_s", param_gather_s),
  S_DOUBLE ("param_gather_exposed_s", param_gather_exposed_s),
  S_DOUBLE ("gather_bytes_per_iteration", gather_bytes),
  END_FIELDS,
};

/* Appended to the row of a run of a sequence model only (after the
 * parameter servers' fields, if any), so that every other run keeps its
 * header. */
static const Field csv_seq_fields[] = {
  S_INT ("seq_len", seq_len),
  FIELD (DtsRunSummary, FIELD_STRING, const char *, "recompute", recompute),
  S_DOUBLE ("tokens_per_s", tokens_per_s),
  S_DOUBLE ("tokens_per_s_per_gpu", tokens_per_s_per_gpu),
  S_DOUBLE ("model_tflops_per_gpu", model_tflops_per_gpu),
  S_DOUBLE ("mfu", mfu),
  END_FIELDS,
};


/* Appended to the row of a parameter-server run (async-ps, sync-ps) only,
 * so that every other run keeps its header. */
static const Field csv_ps_fields[] = {
  S_STRING ("strategy", strategy),
  S_INT ("ps_shards", ps_shards),
  FIELD (DtsRunSummary, FIELD_STRING, const char *, "ps_update", ps_update),
  S_INT ("staleness_bound", staleness_bound),
  S_DOUBLE ("ps_update_s", ps_update_s),
  S_INT64 ("ps_updates", ps_updates),
  S_INT64 ("ps_gradients", ps_gradients),
  S_DOUBLE ("staleness_mean", staleness.mean),
  S_DOUBLE ("staleness_std", staleness.std),
  S_DOUBLE ("staleness_min", staleness.min),
  S_DOUBLE ("staleness_p50", staleness.p50),
  S_DOUBLE ("staleness_p90", staleness.p90),
  S_DOUBLE ("staleness_p99", staleness.p99),
  S_DOUBLE ("staleness_max", staleness.max),
  S_DOUBLE ("staleness_bin_width", staleness.bin_width),
  S_HISTOGRAM ("staleness_histogram", staleness),
  S_DOUBLE ("minibatch_mean", minibatch.mean),
  S_DOUBLE ("minibatch_std", minibatch.std),
  S_DOUBLE ("minibatch_min", minibatch.min),
  S_DOUBLE ("minibatch_p50", minibatch.p50),
  S_DOUBLE ("minibatch_p90", minibatch.p90),
  S_DOUBLE ("minibatch_p99", minibatch.p99),
  S_DOUBLE ("minibatch_max", minibatch.max),
  S_DOUBLE ("minibatch_bin_width", minibatch.bin_width),
  S_HISTOGRAM ("minibatch_histogram", minibatch),
  S_DOUBLE ("epoch_time_s", epoch_time_s),
  END_FIELDS,
};

const char *const *
dts_report_csv_columns (void)
{
  static const char *names[G_N_ELEMENTS (csv_fields)];
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    for (guint i = 0; csv_fields[i].key; i++)
      names[i] = csv_fields[i].key;
    g_once_init_leave (&done, 1);
  }
  return names;
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
csv_value (GString *out, const void *s, const Field *f)
{
  switch (f->kind) {
  case FIELD_INT:
    g_string_append_printf (out, "%d", MEMBER (int, s, f));
    break;
  case FIELD_INT64:
    g_string_append_printf (out, "%" G_GINT64_FORMAT, MEMBER (gint64, s, f));
    break;
  case FIELD_UINT64:
    g_string_append_printf (out, "%" G_GUINT64_FORMAT, MEMBER (guint64, s, f));
    break;
  case FIELD_BOOL:
    g_string_append (out, MEMBER (gboolean, s, f) ? "true" : "false");
    break;
  case FIELD_DOUBLE:
    dts_json_append_csv_double (out, MEMBER (double, s, f));
    break;
  case FIELD_STRING:
    csv_string (out, MEMBER (char *, s, f));
    break;
  case FIELD_HISTOGRAM: {
    const DtsDistribution *d = &MEMBER (DtsDistribution, s, f);
    for (int b = 0; b < d->n_bins; b++) {
      if (b > 0)
        g_string_append_c (out, ';');
      dts_json_append_csv_double (out, d->bin_lo[b]);
      g_string_append_printf (out, ":%" G_GINT64_FORMAT, d->bin_count[b]);
    }
    break;
  }
  }
}

static void
csv_table_row (GString *out, const void *record, const Field *fields)
{
  for (guint i = 0; fields[i].key; i++) {
    if (i > 0)
      g_string_append_c (out, ',');
    csv_value (out, record, &fields[i]);
  }
  g_string_append_c (out, '\n');
}

void
dts_report_write_csv (const DtsRunSummary *s, GString *out)
{
  gboolean ps = s->ps_shards > 0, seq = s->seq_len > 0, zero = s->zero > 0;
  for (guint i = 0; csv_fields[i].key; i++)
    g_string_append_printf (out, "%s%s", i ? "," : "", csv_fields[i].key);
  for (guint i = 0; ps && csv_ps_fields[i].key; i++)
    g_string_append_printf (out, ",%s", csv_ps_fields[i].key);
  for (guint i = 0; seq && csv_seq_fields[i].key; i++)
    g_string_append_printf (out, ",%s", csv_seq_fields[i].key);
  for (guint i = 0; zero && csv_zero_fields[i].key; i++)
    g_string_append_printf (out, ",%s", csv_zero_fields[i].key);
  g_string_append_c (out, '\n');
  if (!ps && !seq && !zero) {
    csv_table_row (out, s, csv_fields);
    return;
  }
  for (guint i = 0; csv_fields[i].key; i++) {
    if (i > 0)
      g_string_append_c (out, ',');
    csv_value (out, s, &csv_fields[i]);
  }
  for (guint i = 0; ps && csv_ps_fields[i].key; i++) {
    g_string_append_c (out, ',');
    csv_value (out, s, &csv_ps_fields[i]);
  }
  for (guint i = 0; seq && csv_seq_fields[i].key; i++) {
    g_string_append_c (out, ',');
    csv_value (out, s, &csv_seq_fields[i]);
  }
  for (guint i = 0; zero && csv_zero_fields[i].key; i++) {
    g_string_append_c (out, ',');
    csv_value (out, s, &csv_zero_fields[i]);
  }
  g_string_append_c (out, '\n');
}

void
dts_report_write_ranks_csv (const DtsRunSummary *s, GString *out)
{
  gboolean zero = s->zero > 0, context = s->context_parallel > 1;
  gboolean expert = s->expert_parallel > 1;
  for (guint i = 0; rank_fields[i].key; i++)
    g_string_append_printf (out, "%s%s", i ? "," : "", rank_fields[i].key);
  for (guint i = 0; zero && rank_gather_fields[i].key; i++)
    g_string_append_printf (out, ",%s", rank_gather_fields[i].key);
  for (guint i = 0; context && rank_context_fields[i].key; i++)
    g_string_append_printf (out, ",%s", rank_context_fields[i].key);
  for (guint i = 0; expert && rank_expert_fields[i].key; i++)
    g_string_append_printf (out, ",%s", rank_expert_fields[i].key);
  g_string_append_c (out, '\n');
  for (guint r = 0; r < s->ranks->len; r++) {
    const DtsRankStat *rs = &g_array_index (s->ranks, DtsRankStat, r);
    for (guint i = 0; rank_fields[i].key; i++) {
      if (i > 0)
        g_string_append_c (out, ',');
      csv_value (out, rs, &rank_fields[i]);
    }
    for (guint i = 0; zero && rank_gather_fields[i].key; i++) {
      g_string_append_c (out, ',');
      csv_value (out, rs, &rank_gather_fields[i]);
    }
    for (guint i = 0; context && rank_context_fields[i].key; i++) {
      g_string_append_c (out, ',');
      csv_value (out, rs, &rank_context_fields[i]);
    }
    for (guint i = 0; expert && rank_expert_fields[i].key; i++) {
      g_string_append_c (out, ',');
      csv_value (out, rs, &rank_expert_fields[i]);
    }
    g_string_append_c (out, '\n');
  }
}

gboolean
dts_report_save (const GString *out, const char *path, const char *what, GError **error)
{
  if (strcmp (path, "-") == 0) {
    fwrite (out->str, 1, out->len, stdout);
    return TRUE;
  }
  return dts_outfile_write (path, out->str, out->len, what, error);
}
