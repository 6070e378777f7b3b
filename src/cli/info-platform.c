/* info-platform.c - `dtsim info PLATFORM`: GPUs by node with their specs,
 * the GPU models with their sources, the CPU hosts (parameter servers'
 * hosts) when there are any, and the links.
 *
 * Text and JSON carry the same facts. Text rounds for reading (4
 * significant digits); JSON carries SI values with their unit in the
 * field name. The order is the platform's: ranks, nodes by first rank,
 * CPU hosts and links in document order (one row per cluster link
 * pattern). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli-private.h"
#include "core/error.h"
#include "output/format.h"
#include "output/json.h"
#include "platform/gpu.h"
#include "platform/platform.h"

/* ---- a small text table: columns sized to their widest cell ------------- */

typedef struct {
  guint n_cols;
  const gboolean *right; /* per column: right-aligned (numbers) */
  GPtrArray *cells;      /* char *, row-major */
} Table;

static void
table_init (Table *t, guint n_cols, const gboolean *right)
{
  t->n_cols = n_cols;
  t->right = right;
  t->cells = g_ptr_array_new_with_free_func (g_free);
}

static void
table_row (Table *t, ...)
{
  va_list ap;
  va_start (ap, t);
  for (guint i = 0; i < t->n_cols; i++)
    g_ptr_array_add (t->cells, g_strdup (va_arg (ap, const char *)));
  va_end (ap);
}

static void
table_print (Table *t, const char *indent)
{
  g_autofree gsize *width = g_new0 (gsize, t->n_cols);
  for (guint i = 0; i < t->cells->len; i++) {
    gsize w = g_utf8_strlen (g_ptr_array_index (t->cells, i), -1);
    width[i % t->n_cols] = MAX (width[i % t->n_cols], w);
  }
  for (guint r = 0; r < t->cells->len / t->n_cols; r++) {
    g_autoptr (GString) line = g_string_new (indent);
    for (guint c = 0; c < t->n_cols; c++) {
      const char *s = g_ptr_array_index (t->cells, r * t->n_cols + c);
      gsize pad = width[c] - g_utf8_strlen (s, -1);
      if (c > 0)
        g_string_append (line, "  ");
      if (t->right[c])
        g_string_append_printf (line, "%*s%s", (int) pad, "", s);
      else if (c + 1 < t->n_cols)
        g_string_append_printf (line, "%s%*s", s, (int) pad, "");
      else
        g_string_append (line, s);
    }
    puts (line->str);
  }
  g_ptr_array_unref (t->cells);
}

/* SI in UNIT rounded to 4 significant digits, "-" for 0 (unsupported). */
static const char *
num (DtsFormatBuf *buf, double si, DtsFormatUnit unit)
{
  if (dts_format_in (si, unit) == 0)
    return "-";
  return dts_format_sig (buf, si, unit, 4);
}

/* "0-3", "0,2,5-7": sorted ranks as ranges. */
static char *
format_ranks (const GArray *ranks)
{
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint i = 0; i < ranks->len;) {
    int lo = g_array_index (ranks, int, i);
    guint j = i;
    while (j + 1 < ranks->len && g_array_index (ranks, int, j + 1) == g_array_index (ranks, int, j) + 1)
      j++;
    int hi = g_array_index (ranks, int, j);
    g_string_append_printf (s, "%s%d", s->len ? "," : "", lo);
    if (hi > lo)
      g_string_append_printf (s, "-%d", hi);
    i = j + 1;
  }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* ---- text --------------------------------------------------------------- */

static void
print_text (const DtsPlatform *p)
{
  guint n_links = 0;
  for (guint i = 0; i < p->links->len; i++)
    n_links += (guint) g_array_index (p->links, DtsLink, i).count;
  printf ("platform '%s': %u GPU%s in %u node%s\n", p->path, p->gpus->len,
          p->gpus->len == 1 ? "" : "s", p->nodes->len, p->nodes->len == 1 ? "" : "s");

  gboolean any_unsupported = FALSE;
  static const gboolean gpu_right[] = { TRUE, FALSE, FALSE, TRUE, TRUE, TRUE, TRUE };
  for (guint n = 0; n < p->nodes->len; n++) {
    const DtsNode *node = &g_array_index (p->nodes, DtsNode, n);
    g_autofree char *ranks = format_ranks (node->ranks);
    printf ("\nnode %s: %d GPU%s, rank%s %s\n", node->name, node->n_gpus,
            node->n_gpus == 1 ? "" : "s", node->n_gpus == 1 ? "" : "s", ranks);
    Table t;
    table_init (&t, G_N_ELEMENTS (gpu_right), gpu_right);
    table_row (&t, "rank", "host", "gpu", "FP32 TFLOP/s", "FP16 TFLOP/s", "mem GB/s", "mem GiB");
    for (guint i = 0; i < node->ranks->len; i++) {
      const DtsGpu *g = dts_platform_gpu (p, g_array_index (node->ranks, int, i));
      g_autofree char *rank = g_strdup_printf ("%d", g->rank);
      DtsFormatBuf fp32, fp16, bw, mem;
      any_unsupported |= g->spec.peak_flops[DTS_PREC_FP16] == 0;
      table_row (&t, rank, g->host, g->spec.id,
                 num (&fp32, g->spec.peak_flops[DTS_PREC_FP32], DTS_FORMAT_UNIT_TFLOPS),
                 num (&fp16, g->spec.peak_flops[DTS_PREC_FP16], DTS_FORMAT_UNIT_TFLOPS),
                 num (&bw, g->spec.mem_bw_Bps, DTS_FORMAT_UNIT_GBPS),
                 num (&mem, g->spec.mem_bytes, DTS_FORMAT_UNIT_GIB));
    }
    table_print (&t, "  ");
  }
  if (any_unsupported)
    printf ("  (-: no fast FP16 on this GPU; FP16 work runs at the FP32 rate)\n");

  /* One entry per catalogue model in rank order of first use. */
  printf ("\nGPU models:\n");
  g_autoptr (GPtrArray) seen = g_ptr_array_new ();
  for (guint r = 0; r < p->gpus->len; r++) {
    const DtsGpuSpec *s = &dts_platform_gpu (p, (int) r)->spec;
    gboolean dup = FALSE;
    for (guint i = 0; i < seen->len && !dup; i++)
      dup = strcmp (g_ptr_array_index (seen, i), s->id) == 0;
    if (dup)
      continue;
    g_ptr_array_add (seen, s->id);
    guint count = 0;
    for (guint q = 0; q < p->gpus->len; q++)
      count += strcmp (dts_platform_gpu (p, (int) q)->spec.id, s->id) == 0;
    DtsFormatBuf tf32, bf16;
    printf ("  %s x%u: %s (%s%s%s, %d SMs), TF32 %s, BF16 %s TFLOP/s\n", s->id, count,
            s->full_name, s->arch, s->chip ? " " : "", s->chip ? s->chip : "", s->sm_count,
            num (&tf32, s->peak_flops[DTS_PREC_TF32], DTS_FORMAT_UNIT_TFLOPS),
            num (&bf16, s->peak_flops[DTS_PREC_BF16], DTS_FORMAT_UNIT_TFLOPS));
    if (s->acc32_share > 0 && s->acc32_share < 1)
      printf ("    FP32-accumulate tensor rates (above) are %g of the die's; the roofline "
              "prices at the die's\n", s->acc32_share);
    printf ("    source: %s\n", s->source);
    if (s->peak_flops[DTS_PREC_FP8] > 0) {
      DtsFormatBuf fp8;
      printf ("    FP8 %s TFLOP/s (--precision fp8: the GEMMs of linear layers)\n",
              num (&fp8, s->peak_flops[DTS_PREC_FP8], DTS_FORMAT_UNIT_TFLOPS));
    }
  }

  if (p->cpus->len > 0) {
    printf ("\nCPU hosts: %u (parameter servers with --strategy async-ps|sync-ps "
            "--ps-placement cpus)\n",
            p->cpus->len);
    static const gboolean cpu_right[] = { FALSE, FALSE, FALSE, TRUE };
    Table t;
    table_init (&t, G_N_ELEMENTS (cpu_right), cpu_right);
    table_row (&t, "host", "node", "role", "mem GB/s");
    gboolean any_no_bw = FALSE;
    for (guint i = 0; i < p->cpus->len; i++) {
      const DtsCpu *c = &g_array_index (p->cpus, DtsCpu, i);
      DtsFormatBuf bw;
      table_row (&t, c->host, c->node_name, c->ps ? "ps" : "cpu",
                 c->mem_bw_Bps > 0 ? num (&bw, c->mem_bw_Bps, DTS_FORMAT_UNIT_GBPS) : "?");
      any_no_bw |= !(c->mem_bw_Bps > 0);
    }
    table_print (&t, "  ");
    if (any_no_bw)
      printf ("  (?: no mem_bw property; a server cannot run there)\n");
  }

  if (p->links->len == 0) {
    printf ("\nlinks: none\n");
    return;
  }
  printf ("\nlinks: %u row%s, %u link%s (bandwidth per direction for SPLITDUPLEX)\n",
          p->links->len, p->links->len == 1 ? "" : "s", n_links, n_links == 1 ? "" : "s");
  static const gboolean link_right[] = { FALSE, TRUE, TRUE, TRUE, TRUE, FALSE };
  gboolean any_generated = FALSE;
  Table t;
  table_init (&t, G_N_ELEMENTS (link_right), link_right);
  table_row (&t, "name", "count", "Gb/s", "GB/s", "latency us", "sharing");
  for (guint i = 0; i < p->links->len; i++) {
    const DtsLink *l = &g_array_index (p->links, DtsLink, i);
    g_autofree char *count = l->count > 0 ? g_strdup_printf ("%d", l->count) : g_strdup ("?");
    DtsFormatBuf gbit, gbyte, lat;
    table_row (&t, l->name, count, num (&gbit, l->bandwidth_Bps, DTS_FORMAT_UNIT_GBITPS),
               num (&gbyte, l->bandwidth_Bps, DTS_FORMAT_UNIT_GBPS),
               dts_format_sig (&lat, l->latency_s, DTS_FORMAT_UNIT_US, 4), l->sharing);
    any_generated |= l->count <= 0;
  }
  table_print (&t, "  ");
  if (any_generated)
    printf ("  (?: links generated by a TORUS, FAT_TREE or DRAGONFLY cluster, not counted)\n");
}

/* ---- JSON --------------------------------------------------------------- */

static void
print_json (const DtsPlatform *p)
{
  g_autoptr (DtsJson) j = dts_json_new ();
  dts_json_begin_object (j);
  dts_json_kv_string (j, "platform", p->path);
  dts_json_kv_int (j, "n_gpus", p->gpus->len);
  dts_json_kv_int (j, "n_nodes", p->nodes->len);

  dts_json_key (j, "nodes");
  dts_json_begin_array (j);
  for (guint n = 0; n < p->nodes->len; n++) {
    const DtsNode *node = &g_array_index (p->nodes, DtsNode, n);
    dts_json_begin_object (j);
    dts_json_kv_string (j, "name", node->name);
    dts_json_kv_int (j, "n_gpus", node->n_gpus);
    dts_json_key (j, "ranks");
    dts_json_begin_array (j);
    for (guint i = 0; i < node->ranks->len; i++)
      dts_json_int (j, g_array_index (node->ranks, int, i));
    dts_json_end_array (j);
    dts_json_end_object (j);
  }
  dts_json_end_array (j);

  dts_json_key (j, "gpus");
  dts_json_begin_array (j);
  for (guint r = 0; r < p->gpus->len; r++) {
    const DtsGpu *g = dts_platform_gpu (p, (int) r);
    dts_json_begin_object (j);
    dts_json_kv_int (j, "rank", g->rank);
    dts_json_kv_string (j, "host", g->host);
    dts_json_kv_string (j, "node", g_array_index (p->nodes, DtsNode, g->node).name);
    dts_json_kv_int (j, "local_index", g->local_index);
    dts_json_kv_string (j, "gpu", g->spec.id);
    dts_json_kv_string (j, "name", g->spec.full_name);
    dts_json_kv_string (j, "arch", g->spec.arch);
    if (g->spec.chip)
      dts_json_kv_string (j, "chip", g->spec.chip);
    for (int prec = 0; prec < DTS_PREC_COUNT; prec++) {
      /* fp8 only where the GPU has it (Hopper and newer) */
      if (prec == DTS_PREC_FP8 && !(g->spec.peak_flops[prec] > 0))
        continue;
      g_autofree char *key = g_strdup_printf ("peak_%s_flop_per_s",
                                              dts_precision_to_string ((DtsPrecision) prec));
      dts_json_kv_double (j, key, g->spec.peak_flops[prec]);
    }
    dts_json_kv_double (j, "mem_bw_Bps", g->spec.mem_bw_Bps);
    dts_json_kv_double (j, "mem_bytes", g->spec.mem_bytes);
    dts_json_kv_int (j, "sm_count", g->spec.sm_count);
    dts_json_kv_double (j, "acc32_share", g->spec.acc32_share > 0 ? g->spec.acc32_share : 1);
    dts_json_kv_string (j, "source", g->spec.source);
    dts_json_end_object (j);
  }
  dts_json_end_array (j);

  dts_json_key (j, "cpus");
  dts_json_begin_array (j);
  for (guint i = 0; i < p->cpus->len; i++) {
    const DtsCpu *c = &g_array_index (p->cpus, DtsCpu, i);
    dts_json_begin_object (j);
    dts_json_kv_string (j, "host", c->host);
    dts_json_kv_string (j, "node", c->node_name);
    dts_json_kv_string (j, "role", c->ps ? "ps" : "cpu");
    dts_json_kv_double (j, "mem_bw_Bps", c->mem_bw_Bps);
    dts_json_kv_int (j, "line", c->line);
    dts_json_end_object (j);
  }
  dts_json_end_array (j);

  dts_json_key (j, "links");
  dts_json_begin_array (j);
  for (guint i = 0; i < p->links->len; i++) {
    const DtsLink *l = &g_array_index (p->links, DtsLink, i);
    dts_json_begin_object (j);
    dts_json_kv_string (j, "name", l->name);
    dts_json_kv_int (j, "count", l->count);
    dts_json_kv_double (j, "bandwidth_Bps", l->bandwidth_Bps);
    dts_json_kv_double (j, "latency_s", l->latency_s);
    dts_json_kv_string (j, "sharing", l->sharing);
    dts_json_kv_int (j, "line", l->line);
    dts_json_end_object (j);
  }
  dts_json_end_array (j);
  dts_json_end_object (j);
  fputs (dts_json_get (j), stdout);
}

gboolean
dts_cli_info_platform (const char *path, const DtsInfoOptions *opts, GError **error)
{
  g_autoptr (DtsGpuCatalog) catalog = dts_gpu_catalog_load (NULL, error);
  if (catalog == NULL)
    return FALSE;
  g_autoptr (DtsPlatform) platform = dts_platform_load (path, catalog, error);
  if (platform == NULL)
    return FALSE;
  if (opts->routes && opts->format == DTS_FORMAT_JSON)
    return dts_cli_info_routes (platform, opts, error); /* one JSON object: the routes */
  if (opts->format == DTS_FORMAT_JSON)
    print_json (platform);
  else
    print_text (platform);
  if (opts->routes)
    return dts_cli_info_routes (platform, opts, error);
  return TRUE;
}
