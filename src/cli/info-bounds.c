/* info-bounds.c - `dtsim info WORKLOAD --bounds`: which passes of which
 * layers are compute-bound and which memory-bound, on one GPU.
 *
 * The roofline (cost/roofline.c) prices a kernel as
 *   t = max(F / (P * e_c), B / (W * e_m)) + k * t_launch:
 * F FLOPs, B bytes to and from device memory, P the GPU's peak at the
 * precision, W its bandwidth, e_c and e_m the profile's efficiencies. A
 * kernel whose arithmetic intensity F / B is above the ridge point
 * P * e_c / (W * e_m) is compute-bound, below it memory-bound (Williams,
 * Waterman, Patterson, CACM 2009). For every layer and pass (forward,
 * backward-data, backward-weights, optimizer update) this prints the cost
 * model's time, the FLOPs and bytes of the kernels that run, F / B, the
 * bound (dts_cost_layer_bounds: which term of the max is larger, so a 1x1
 * convolution with its own efficiency and a library's FFT or Winograd
 * algorithm are judged as priced) and the pass's share of the iteration's
 * compute time, the plain sum of every pass (one GPU, no overlap, no
 * communication, as `dtsim info --gpu` totals it). Under a model that is
 * not a roofline (mlp) the bound is undefined and left empty. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "cli/cli-private.h"
#include "output/format.h"
#include "output/json.h"

typedef struct {
  guint layer;
  DtsPass pass;
  DtsPassBound b;
} Row;

/* Every pass with work or time, in layer then pass order. */
static GArray *
collect_rows (const DtsWorkload *w, DtsCost *cost, const DtsGpuSpec *gpu, DtsPrecision precision,
              int batch, double *total_s, GError **error)
{
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (Row));
  *total_s = 0.0;
  /* Layer 0 is the input: no kernel, as `dtsim info --gpu` prices it. */
  for (guint i = 1; i < w->layers->len; i++) {
    const DtsLayer *l = dts_workload_layer (w, i);
    DtsLayerBounds lb;
    if (!dts_cost_layer_bounds (cost, l, gpu, precision, batch, &lb, error)) {
      g_prefix_error (error, "workload '%s': layer '%s': ", w->path, l->name);
      return NULL;
    }
    for (int p = 0; p < DTS_PASS_COUNT; p++) {
      *total_s += lb.pass[p].time_s;
      if (lb.pass[p].time_s > 0 || lb.pass[p].flops > 0 || lb.pass[p].bytes > 0) {
        Row r = { .layer = i, .pass = p, .b = lb.pass[p] };
        g_array_append_val (rows, r);
      }
    }
  }
  return g_steal_pointer (&rows);
}

static double
share_of (double time_s, double total_s)
{
  return total_s > 0 ? time_s / total_s : 0.0;
}

static void
append_text (GString *out, const DtsWorkload *w, DtsCost *cost, const DtsGpuSpec *gpu,
             const char *gpu_where, DtsPrecision precision, int batch, const GArray *rows,
             double total_s)
{
  const DtsFramework *fw = dts_cost_framework (cost);
  gboolean roofline = strcmp (dts_cost_id (cost), "roofline") == 0;
  DtsFormatBuf a, b, c, d;
  g_string_append_printf (out, "per-layer bounds of %s: %s (%s), batch %d, %s, cost model %s, "
                               "framework %s\n",
                          w->name, gpu->id, gpu_where, batch, dts_precision_to_string (precision),
                          dts_cost_id (cost), fw->id);
  g_string_append_printf (
      out, "  ridge point %.2f FLOP/B: %s TFLOP/s x %.2f over %s GB/s x %.2f (conv/fc kernels)\n",
      dts_cost_ridge_point (cost, gpu, precision),
      dts_format_sig (&b, dts_gpu_spec_die_flops (gpu, precision), DTS_FORMAT_UNIT_TFLOPS, 4),
      dts_framework_compute_eff (fw, gpu->chip, gpu->arch, precision),
      dts_format_sig (&c, gpu->mem_bw_Bps, DTS_FORMAT_UNIT_GBPS, 4),
      dts_framework_memory_eff (fw, gpu->chip, gpu->arch));
  if (roofline)
    g_string_append (out, "  bound: compute where FLOPs / (peak x e_c) is the larger term of "
                          "the roofline's max,\n  memory where bytes / (bandwidth x e_m) is\n");
  else
    g_string_append_printf (out,
                            "  bound: undefined (-) under the %s cost model, whose times are not "
                            "a max of a compute\n  and a memory term; FLOP/B against the ridge "
                            "point says where the work lies\n",
                            dts_cost_id (cost));
  g_string_append (out, "\n");

  int name_w = 5, type_w = 4;
  for (guint k = 0; k < rows->len; k++) {
    const DtsLayer *l = dts_workload_layer (w, g_array_index (rows, Row, k).layer);
    name_w = MAX (name_w, (int) strlen (l->name));
    type_w = MAX (type_w, (int) strlen (dts_layer_type_to_string (l->type)));
  }
  g_string_append_printf (out, "%4s  %-*s  %-*s  %-10s  %11s  %7s  %11s  %10s  %9s  %s\n", "#",
                          name_w, "layer", type_w, "type", "pass", "time us", "share %",
                          "GFLOP", "MB", "FLOP/B", "bound");
  double bound_s[3] = { 0 };
  for (guint k = 0; k < rows->len; k++) {
    const Row *r = &g_array_index (rows, Row, k);
    const DtsLayer *l = dts_workload_layer (w, r->layer);
    bound_s[r->b.bound] += r->b.time_s;
    g_autofree char *intensity
        = r->b.bytes > 0 ? g_strdup_printf ("%.1f", r->b.flops / r->b.bytes) : g_strdup ("-");
    g_string_append_printf (
        out, "%4u  %-*s  %-*s  %-10s  %11s  %7.2f  %11s  %10s  %9s  %s\n", r->layer, name_w,
        l->name, type_w, dts_layer_type_to_string (l->type), dts_cost_pass_id (r->pass),
        dts_format_fixed (&a, r->b.time_s, DTS_FORMAT_UNIT_US, 1),
        100.0 * share_of (r->b.time_s, total_s),
        dts_format_fixed (&c, r->b.flops, DTS_FORMAT_UNIT_GIGA, 3),
        dts_format_fixed (&d, r->b.bytes, DTS_FORMAT_UNIT_MB, 2), intensity,
        dts_cost_bound_id (r->b.bound));
  }
  g_string_append_printf (out, "\ncompute per iteration on one %s, batch %d: %s ms (sum of "
                               "kernels, no overlap)\n",
                          gpu->id, batch, dts_format_fixed (&a, total_s, DTS_FORMAT_UNIT_MS, 3));
  static const char *const label[3] = { "bound undefined", "compute-bound", "memory-bound" };
  static const DtsBound order[3] = { DTS_BOUND_COMPUTE, DTS_BOUND_MEMORY, DTS_BOUND_NONE };
  for (int i = 0; i < 3; i++) {
    DtsBound k = order[i];
    if (k == DTS_BOUND_NONE ? bound_s[k] > 0 : roofline)
      g_string_append_printf (out, "  %-15s %10s ms  %5.1f %%\n", label[k],
                              dts_format_fixed (&a, bound_s[k], DTS_FORMAT_UNIT_MS, 3),
                              100.0 * share_of (bound_s[k], total_s));
  }
}


/* Counts (FLOPs, bytes) are whole numbers: as integers, not in exponent
 * form, as `dtsim info --format json` writes them. */
static gboolean
is_count (double v)
{
  return v == floor (v) && fabs (v) < 9007199254740992.0; /* 2^53 */
}

static void
csv_count (GString *out, double v)
{
  if (is_count (v))
    g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) v);
  else
    dts_json_append_csv_double (out, v);
}

static void
json_count (DtsJson *j, const char *key, double v)
{
  if (is_count (v))
    dts_json_kv_int (j, key, (gint64) v);
  else
    dts_json_kv_double (j, key, v);
}

static void
append_csv (GString *out, const DtsWorkload *w, const GArray *rows, double total_s)
{
  g_string_append (out, "index,layer,type,pass,time_s,flops,bytes,intensity_flop_per_byte,"
                        "bound,share\n");
  for (guint k = 0; k < rows->len; k++) {
    const Row *r = &g_array_index (rows, Row, k);
    const DtsLayer *l = dts_workload_layer (w, r->layer);
    g_string_append_printf (out, "%u,", r->layer);
    dts_csv_append_field (out, l->name);
    g_string_append_printf (out, ",%s,%s,", dts_layer_type_to_string (l->type),
                            dts_cost_pass_id (r->pass));
    dts_json_append_csv_double (out, r->b.time_s);
    g_string_append_c (out, ',');
    csv_count (out, r->b.flops);
    g_string_append_c (out, ',');
    csv_count (out, r->b.bytes);
    g_string_append_c (out, ',');
    if (r->b.bytes > 0)
      dts_json_append_csv_double (out, r->b.flops / r->b.bytes);
    g_string_append_printf (out, ",%s,",
                            r->b.bound == DTS_BOUND_NONE ? "" : dts_cost_bound_id (r->b.bound));
    dts_json_append_csv_double (out, share_of (r->b.time_s, total_s));
    g_string_append_c (out, '\n');
  }
}

static void
append_json (GString *out, const DtsWorkload *w, DtsCost *cost, const DtsGpuSpec *gpu,
             const char *gpu_where, DtsPrecision precision, int batch, const GArray *rows,
             double total_s)
{
  const DtsFramework *fw = dts_cost_framework (cost);
  g_autoptr (DtsJson) j = dts_json_new ();
  dts_json_begin_object (j);
  dts_json_kv_string (j, "workload", w->name);
  dts_json_kv_string (j, "path", w->path);
  dts_json_kv_string (j, "gpu", gpu->id);
  dts_json_kv_string (j, "gpu_from", gpu_where);
  dts_json_kv_string (j, "cost_model", dts_cost_id (cost));
  dts_json_kv_string (j, "framework", fw->id);
  dts_json_kv_string (j, "precision", dts_precision_to_string (precision));
  dts_json_kv_int (j, "batch_size", batch);
  dts_json_kv_double (j, "peak_flops", dts_gpu_spec_die_flops (gpu, precision));
  dts_json_kv_double (j, "compute_efficiency",
                      dts_framework_compute_eff (fw, gpu->chip, gpu->arch, precision));
  dts_json_kv_double (j, "mem_bw_Bps", gpu->mem_bw_Bps);
  dts_json_kv_double (j, "memory_efficiency", dts_framework_memory_eff (fw, gpu->chip, gpu->arch));
  dts_json_kv_double (j, "ridge_point_flop_per_byte",
                      dts_cost_ridge_point (cost, gpu, precision));
  dts_json_kv_bool (j, "bound_defined", strcmp (dts_cost_id (cost), "roofline") == 0);
  dts_json_kv_double (j, "iteration_compute_s", total_s);
  double bound_s[3] = { 0 };
  dts_json_key (j, "passes");
  dts_json_begin_array (j);
  for (guint k = 0; k < rows->len; k++) {
    const Row *r = &g_array_index (rows, Row, k);
    const DtsLayer *l = dts_workload_layer (w, r->layer);
    bound_s[r->b.bound] += r->b.time_s;
    dts_json_begin_object (j);
    dts_json_kv_int (j, "index", r->layer);
    dts_json_kv_string (j, "layer", l->name);
    dts_json_kv_string (j, "type", dts_layer_type_to_string (l->type));
    dts_json_kv_string (j, "pass", dts_cost_pass_id (r->pass));
    dts_json_kv_double (j, "time_s", r->b.time_s);
    json_count (j, "flops", r->b.flops);
    json_count (j, "bytes", r->b.bytes);
    dts_json_key (j, "intensity_flop_per_byte");
    if (r->b.bytes > 0)
      dts_json_double (j, r->b.flops / r->b.bytes);
    else
      dts_json_null (j);
    dts_json_kv_string (j, "bound",
                        r->b.bound == DTS_BOUND_NONE ? NULL : dts_cost_bound_id (r->b.bound));
    dts_json_kv_double (j, "share", share_of (r->b.time_s, total_s));
    dts_json_end_object (j);
  }
  dts_json_end_array (j);
  dts_json_kv_double (j, "compute_bound_s", bound_s[DTS_BOUND_COMPUTE]);
  dts_json_kv_double (j, "memory_bound_s", bound_s[DTS_BOUND_MEMORY]);
  dts_json_kv_double (j, "no_bound_s", bound_s[DTS_BOUND_NONE]);
  dts_json_end_object (j);
  g_string_append (out, dts_json_get (j));
}

gboolean
dts_cli_format_bounds (const DtsWorkload *w, DtsCost *cost, const DtsGpuSpec *gpu,
                       const char *gpu_where, DtsPrecision precision, int batch, DtsFormat format,
                       GString *out, GError **error)
{
  double total_s;
  g_autoptr (GArray) rows = collect_rows (w, cost, gpu, precision, batch, &total_s, error);
  if (rows == NULL)
    return FALSE;
  if (format == DTS_FORMAT_CSV)
    append_csv (out, w, rows, total_s);
  else if (format == DTS_FORMAT_JSON)
    append_json (out, w, cost, gpu, gpu_where, precision, batch, rows, total_s);
  else
    append_text (out, w, cost, gpu, gpu_where, precision, batch, rows, total_s);
  return TRUE;
}
