/* test-schedule.c - the data-parallel schedule: buckets, program order,
 * shared programs, memory estimate, errors; the rank mesh of the pipeline
 * and hybrid schedules (mesh.h). No simulator involved. */
#include "config.h"

#include <math.h>

#include "core/datadir.h"
#include "core/error.h"
#include "cost/cost.h"
#include "platform/gpu.h"
#include "platform/platform.h"
#include "schedule/mesh.h"
#include "schedule/schedule.h"
#include "testlib.h"
#include "workload/workload.h"

typedef struct {
  DtsWorkload *w;
  DtsPlatform *p;
  DtsGpuCatalog *cat;
  DtsCost *cost;
} Inputs;

static void
inputs_load_workload (Inputs *in, const char *workload_file, const char *platform_xml_or_file)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *wpath = dts_test_srcpath (workload_file);
  in->w = dts_workload_load (wpath, &error);
  ck_assert_msg (in->w != NULL, "%s", error ? error->message : "");
  in->cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert_msg (in->cat != NULL, "%s", error ? error->message : "");
  g_autofree char *ppath = g_str_has_prefix (platform_xml_or_file, "<")
                               ? dts_test_write_tmp (platform_xml_or_file, ".xml")
                               : dts_test_srcpath (platform_xml_or_file);
  in->p = dts_platform_load (ppath, in->cat, &error);
  ck_assert_msg (in->p != NULL, "%s", error ? error->message : "");
  in->cost = dts_cost_new ("roofline", &error);
  ck_assert (in->cost != NULL);
}

static void
inputs_load (Inputs *in, const char *platform_xml_or_file)
{
  inputs_load_workload (in, "tests/data/mlp8.xml", platform_xml_or_file);
}

static void
inputs_clear (Inputs *in)
{
  dts_workload_free (in->w);
  dts_platform_free (in->p);
  dts_gpu_catalog_free (in->cat);
  dts_cost_free (in->cost);
}

static DtsRunOptions
options (int n_gpus, double bucket_bytes, gboolean overlap)
{
  DtsRunOptions o = {
    .n_gpus = n_gpus,
    .batch_size = 64,
    .iterations = 1,
    .precision = DTS_PREC_FP32,
    .cost_model = "roofline",
    .collective = "ring",
    .bucket_bytes = bucket_bytes,
    .chunk_bytes = DTS_COLL_DEFAULT_CHUNK_BYTES,
    .channels = 2,
    .overlap = overlap,
  };
  return o;
}

static DtsSchedule *
schedule (Inputs *in, const DtsRunOptions *o)
{
  g_autoptr (GError) error = NULL;
  DtsSchedule *s = dts_schedule_dp_new (in->w, in->p, in->cost, o, &error);
  ck_assert_msg (s != NULL, "%s", error ? error->message : "");
  return s;
}

static int
layer_index (const DtsWorkload *w, const char *name)
{
  for (guint l = 0; l < w->layers->len; l++)
    if (g_strcmp0 (dts_workload_layer (w, l)->name, name) == 0)
      return l;
  ck_abort_msg ("no layer %s", name);
  return -1;
}

START_TEST (test_buckets)
{
  Inputs in;
  inputs_load (&in, "tests/data/flat-16.xml");
  DtsRunOptions o = options (16, 25e6, TRUE);
  g_autoptr (DtsSchedule) s = schedule (&in, &o);
  /* fc8 (16.4 MB) is below the cap, so it shares a bucket with fc7; every
   * other 4096 x 4096 layer (67 MB) fills one alone. */
  ck_assert_int_eq (s->buckets->len, 7);
  const DtsBucket *b0 = &g_array_index (s->buckets, DtsBucket, 0);
  ck_assert_int_eq (b0->first_layer, layer_index (in.w, "fc8"));
  ck_assert_int_eq (b0->last_layer, layer_index (in.w, "fc7"));
  ck_assert_int_eq (b0->n_layers, 2);
  double total = 0;
  for (guint b = 0; b < s->buckets->len; b++) {
    const DtsBucket *bk = &g_array_index (s->buckets, DtsBucket, b);
    const DtsLayer *last = dts_workload_layer (in.w, bk->last_layer);
    ck_assert (bk->bytes >= 25e6 || b == s->buckets->len - 1);
    ck_assert (bk->bytes - 4 * last->params < 25e6); /* closed as soon as full */
    ck_assert_double_eq_tol (bk->bytes, 4 * bk->params, 1e-6);
    total += bk->bytes;
    const DtsCollPlan *plan = g_ptr_array_index (s->plans, b);
    ck_assert_double_eq_tol (plan->bytes, bk->bytes, 1e-6);
    ck_assert_int_eq (plan->n_ranks, 16);
  }
  ck_assert_double_eq_tol (total, 4 * in.w->params, 1e-3);

  o.bucket_bytes = 1e12;
  g_autoptr (DtsSchedule) one = schedule (&in, &o);
  ck_assert_int_eq (one->buckets->len, 1);
  o.bucket_bytes = 1;
  g_autoptr (DtsSchedule) each = schedule (&in, &o);
  ck_assert_int_eq (each->buckets->len, 8); /* one per fc layer */
  inputs_clear (&in);
}
END_TEST

/* Forward in layer order, backward in reverse with each bucket's start right
 * after its last layer's backward pass, one wait, then the updates. */
static void
check_program (const DtsSchedule *s, const DtsWorkload *w, gboolean overlap)
{
  const GArray *prog = dts_schedule_program (s, 0);
  int phase = DTS_PHASE_FORWARD, last_layer = -1, starts = 0, waits = 0;
  double sum = 0;
  for (guint i = 0; i < prog->len; i++) {
    const DtsOp *op = &g_array_index (prog, DtsOp, i);
    if (op->type == DTS_OP_COMPUTE) {
      ck_assert (op->duration_s > 0);
      sum += op->duration_s;
      gboolean bwd = op->phase == DTS_PHASE_BACKWARD_DATA || op->phase == DTS_PHASE_BACKWARD_WEIGHT;
      if (op->phase == DTS_PHASE_FORWARD) {
        ck_assert_int_eq (phase, DTS_PHASE_FORWARD);
        ck_assert_int_gt (op->layer, last_layer);
      } else if (bwd) {
        ck_assert (phase != DTS_PHASE_UPDATE);
        if (phase == DTS_PHASE_FORWARD)
          last_layer = w->layers->len;
        ck_assert_int_le (op->layer, last_layer);
        ck_assert_int_eq (waits, 0);
      } else {
        ck_assert_int_eq (waits, s->buckets->len ? 1 : 0);
        if (phase != DTS_PHASE_UPDATE)
          last_layer = -1;
        ck_assert_int_gt (op->layer, last_layer);
      }
      phase = bwd ? DTS_PHASE_BACKWARD_DATA : op->phase;
      last_layer = op->layer;
    } else if (op->type == DTS_OP_RECORD) {
      ck_assert_int_eq (op->bucket, starts);
      const DtsBucket *bk = &g_array_index (s->buckets, DtsBucket, op->bucket);
      const DtsOp *prev = &g_array_index (prog, DtsOp, i - 1);
      if (overlap) {
        ck_assert_int_eq (prev->type, DTS_OP_COMPUTE);
        ck_assert_int_eq (prev->layer, bk->last_layer);
        ck_assert_int_eq (prev->phase, DTS_PHASE_BACKWARD_WEIGHT);
      } else {
        ck_assert (prev->type == DTS_OP_RECORD || prev->layer == 1);
      }
      starts++;
    } else {
      ck_assert_int_eq (op->type, DTS_OP_WAIT);
      ck_assert_int_eq (op->count, (int) s->buckets->len);
      ck_assert_int_eq (starts, (int) s->buckets->len);
      waits++;
    }
  }
  ck_assert_int_eq (waits, s->buckets->len ? 1 : 0);
  const DtsComputeTotals *tot = &g_array_index (s->totals, DtsComputeTotals, 0);
  ck_assert_double_eq_tol (sum, tot->total_s, 1e-12);
  ck_assert_double_eq_tol (tot->phase_s[0] + tot->phase_s[1] + tot->phase_s[2] + tot->phase_s[3],
                           tot->total_s, 1e-12);
}

START_TEST (test_program_order)
{
  Inputs in;
  inputs_load (&in, "tests/data/flat-16.xml");
  DtsRunOptions o = options (16, 25e6, TRUE);
  g_autoptr (DtsSchedule) s = schedule (&in, &o);
  check_program (s, in.w, TRUE);
  o.overlap = FALSE;
  g_autoptr (DtsSchedule) serial = schedule (&in, &o);
  check_program (serial, in.w, FALSE);
  /* One GPU has nothing to communicate. */
  o = options (1, 25e6, TRUE);
  g_autoptr (DtsSchedule) single = schedule (&in, &o);
  ck_assert_int_eq (single->buckets->len, 0);
  check_program (single, in.w, TRUE);
  inputs_clear (&in);
}
END_TEST

/* Ranks with the same GPU share a program; a different GPU gets its own,
 * with longer kernels on the slower GPU. */
START_TEST (test_programs_shared)
{
  const char *xml =
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n"
      "<host id=\"a0\" speed=\"1Gf\"><prop id=\"gpu\" value=\"V100-SXM2-16GB\"/></host>\n"
      "<host id=\"a1\" speed=\"1Gf\"><prop id=\"gpu\" value=\"K80\"/></host>\n"
      "<host id=\"a2\" speed=\"1Gf\"><prop id=\"gpu\" value=\"V100-SXM2-16GB\"/></host>\n"
      "</zone></platform>\n";
  Inputs in;
  inputs_load (&in, xml);
  DtsRunOptions o = options (3, 25e6, TRUE);
  g_autoptr (DtsSchedule) s = schedule (&in, &o);
  /* Two compute programs, and one communication program shared by all. */
  ck_assert_int_eq (s->programs->len, 3);
  ck_assert_int_eq (s->rank_program[0], s->rank_program[2]);
  ck_assert_int_ne (s->rank_program[0], s->rank_program[1]);
  double v100 = g_array_index (s->totals, DtsComputeTotals, s->rank_program[0]).total_s;
  double k80 = g_array_index (s->totals, DtsComputeTotals, s->rank_program[1]).total_s;
  ck_assert (k80 > 2 * v100);
  inputs_clear (&in);
}
END_TEST

START_TEST (test_memory)
{
  Inputs in;
  inputs_load (&in, "tests/data/flat-16.xml");
  double P = in.w->params;
  DtsMemoryEstimate m;
  dts_schedule_memory_estimate (in.w, 256, DTS_PREC_FP32, DTS_RECOMPUTE_NONE, DTS_LOSS_FUSED, &m);
  ck_assert_double_eq_tol (m.weights_bytes, 4 * P, 1e-3);
  ck_assert_double_eq_tol (m.gradients_bytes, 4 * P, 1e-3);
  ck_assert_double_eq_tol (m.optimizer_bytes, 4 * P, 1e-3); /* momentum */
  double act = 0; /* in-place ReLU and add store nothing of their own */
  for (guint l = 0; l < in.w->layers->len; l++) {
    DtsLayerType t = dts_workload_layer (in.w, l)->type;
    if (t != DTS_LAYER_RELU && t != DTS_LAYER_RELU6 && t != DTS_LAYER_ADD)
      act += dts_workload_layer (in.w, l)->act_elems;
  }
  ck_assert (act < in.w->act_elems);
  ck_assert_double_eq_tol (m.activations_bytes, act * 256 * 4, 1e-3);
  ck_assert_double_eq_tol (m.total_bytes,
                           m.weights_bytes + m.gradients_bytes + m.optimizer_bytes
                               + m.activations_bytes, 1e-3);
  DtsMemoryEstimate h;
  dts_schedule_memory_estimate (in.w, 256, DTS_PREC_FP16, DTS_RECOMPUTE_NONE, DTS_LOSS_FUSED, &h);
  ck_assert_double_eq_tol (h.weights_bytes, 6 * P, 1e-3); /* fp32 master + fp16 copy */
  ck_assert_double_eq_tol (h.gradients_bytes, 4 * P, 1e-3);
  ck_assert_double_eq_tol (h.activations_bytes, m.activations_bytes / 2, 1e-3);
  inputs_clear (&in);
}
END_TEST

/* Lambda's batch sizes per GPU on the 24 GB and 48 GB PCIe cards of its
 * table v1 fit (ResNet-50 and SSD300, AMP and TF32/fp32: every row of
 * dtsim validate's lambda-v1-other and lambda-v1-ssd sets), and twice them
 * do not. */
START_TEST (test_memory_published_cards)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsGpuCatalog) cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert_msg (cat != NULL, "%s", error ? error->message : "");
  static const struct {
    const char *gpus[3], *workload;
    DtsPrecision precision;
    int batch;
  } cases[] = {
    { { "RTX3090", "RTX4090", "A10" }, "resnet50", DTS_PREC_FP16, 448 },
    { { "RTX3090", "RTX4090", "A10" }, "resnet50", DTS_PREC_TF32, 224 },
    { { "RTX3090", "RTX4090", "A10" }, "ssd300", DTS_PREC_FP16, 140 },
    { { "RTX3090", "RTX4090", "A10" }, "ssd300", DTS_PREC_TF32, 80 },
    { { "RTXA6000", "RTX6000-Ada", "RTX8000" }, "resnet50", DTS_PREC_FP16, 928 },
    { { "RTXA6000", "RTX6000-Ada", NULL }, "resnet50", DTS_PREC_TF32, 496 },
    { { "RTX8000", NULL, NULL }, "resnet50", DTS_PREC_FP32, 496 },
    { { "RTXA6000", "RTX6000-Ada", "RTX8000" }, "ssd300", DTS_PREC_FP16, 256 },
    { { "RTXA6000", "RTX6000-Ada", NULL }, "ssd300", DTS_PREC_TF32, 144 },
    { { "RTX8000", NULL, NULL }, "ssd300", DTS_PREC_FP32, 144 },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    g_autofree char *path =
        dts_datadir_resolve ("workloads", cases[c].workload, ".xml", "workload", &error);
    ck_assert_msg (path != NULL, "%s", error ? error->message : "");
    g_autoptr (DtsWorkload) w = dts_workload_load (path, &error);
    ck_assert_msg (w != NULL, "%s", error ? error->message : "");
    for (guint g = 0; g < G_N_ELEMENTS (cases[c].gpus) && cases[c].gpus[g]; g++) {
      const DtsGpuSpec *gpu = dts_gpu_catalog_lookup (cat, cases[c].gpus[g]);
      ck_assert_ptr_nonnull (gpu);
      for (int k = 1; k <= 2; k++) {
        DtsMemoryEstimate m;
        dts_schedule_memory_estimate (w, k * cases[c].batch, cases[c].precision,
                                      DTS_RECOMPUTE_NONE, DTS_LOSS_FUSED, &m);
        ck_assert_msg ((m.total_bytes <= gpu->mem_bytes) == (k == 1),
                       "%s, %s %s batch %d: %.2f GiB of %.2f GiB", gpu->id, cases[c].workload,
                       dts_precision_to_string (cases[c].precision), k * cases[c].batch,
                       m.total_bytes / 1073741824.0, gpu->mem_bytes / 1073741824.0);
      }
    }
  }
}
END_TEST

/* The published batch sizes of a 16 GB V100 fit, whatever the framework
 * profile (the estimate does not depend on it): ResNet-50 at fp16 (AMP)
 * batch 256 and fp32 batch 112 and 128 (NVIDIA DeepLearningExamples
 * ConvNets recipes, Lambda's V100 16 GB runs). They fit because ReLU and
 * the residual add run in place and AMP stores fp16 activations. Twice those
 * batches, and fp32 batch 1024 (about 86 GiB), do not. */
START_TEST (test_memory_published)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = dts_datadir_resolve ("workloads", "resnet50", ".xml", "workload", &error);
  ck_assert_msg (path != NULL, "%s", error ? error->message : "");
  g_autoptr (DtsWorkload) w = dts_workload_load (path, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  g_autoptr (DtsGpuCatalog) cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert_msg (cat != NULL, "%s", error ? error->message : "");
  static const char *const v100[] = { "V100-SXM2-16GB", "V100-PCIE-16GB" };
  static const struct {
    DtsPrecision precision;
    int batch;
    gboolean fits;
  } cases[] = {
    { DTS_PREC_FP16, 256, TRUE },   { DTS_PREC_FP32, 128, TRUE },
    { DTS_PREC_FP32, 112, TRUE },   { DTS_PREC_FP16, 512, FALSE },
    { DTS_PREC_FP32, 256, FALSE },  { DTS_PREC_FP32, 1024, FALSE },
  };
  for (guint g = 0; g < G_N_ELEMENTS (v100); g++) {
    const DtsGpuSpec *gpu = dts_gpu_catalog_lookup (cat, v100[g]);
    ck_assert_ptr_nonnull (gpu);
    ck_assert_double_eq (gpu->mem_bytes, 16.0 * 1024 * 1024 * 1024);
    for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
      DtsMemoryEstimate m;
      dts_schedule_memory_estimate (w, cases[c].batch, cases[c].precision, DTS_RECOMPUTE_NONE,
                                    DTS_LOSS_FUSED, &m);
      ck_assert_msg ((m.total_bytes <= gpu->mem_bytes) == cases[c].fits,
                     "%s, %s batch %d: %.2f GiB of %.2f GiB", v100[g],
                     dts_precision_to_string (cases[c].precision), cases[c].batch,
                     m.total_bytes / 1073741824.0, gpu->mem_bytes / 1073741824.0);
    }
  }
  /* a clearly too large batch is far too large, not a near miss */
  DtsMemoryEstimate big;
  dts_schedule_memory_estimate (w, 1024, DTS_PREC_FP32, DTS_RECOMPUTE_NONE, DTS_LOSS_FUSED, &big);
  ck_assert (big.total_bytes > 4 * 16.0 * 1073741824.0);
}
END_TEST

START_TEST (test_errors)
{
  Inputs in;
  inputs_load (&in, "tests/data/flat-16.xml");
  g_autoptr (GError) error = NULL;
  DtsRunOptions o = options (17, 25e6, TRUE);
  ck_assert_ptr_null (dts_schedule_dp_new (in.w, in.p, in.cost, &o, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "has 16 GPUs; cannot run on 17", NULL);
  g_clear_error (&error);
  o = options (4, 25e6, TRUE);
  o.collective = "nope";
  ck_assert_ptr_null (dts_schedule_dp_new (in.w, in.p, in.cost, &o, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "unknown collective algorithm 'nope'", NULL);
  g_clear_error (&error);
  o = options (4, 0, TRUE);
  ck_assert_ptr_null (dts_schedule_dp_new (in.w, in.p, in.cost, &o, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "must be positive", NULL);
  ck_assert_str_eq (dts_phase_to_string (DTS_PHASE_BACKWARD_WEIGHT), "backward-weight");
  inputs_clear (&in);
}
END_TEST

/* The memory rule (dts_schedule_check_memory): a replica that does not fit
 * its GPU is refused with what it needs, what the GPU has and what helps;
 * allowed on request, the schedule is built with the estimate as it is. */
START_TEST (test_memory_rule)
{
  Inputs in;
  inputs_load (&in, "tests/data/flat-16.xml");
  g_autoptr (GError) error = NULL;
  DtsRunOptions o = options (4, 25e6, TRUE);
  o.batch_size = 1 << 17;
  DtsMemoryEstimate m;
  dts_schedule_memory_estimate (in.w, o.batch_size, o.precision, o.recompute, DTS_LOSS_FUSED, &m);
  double have = dts_platform_gpu (in.p, 0)->spec.mem_bytes;
  ck_assert (m.total_bytes > have);
  ck_assert_ptr_null (dts_schedule_dp_new (in.w, in.p, in.cost, &o, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "data parallelism", "more than the 16.00 GiB",
                         "activations of batch 131072", "a smaller --batch-size",
                         "--allow-oversubscribe-memory", NULL);
  g_clear_error (&error);
  o.allow_oversubscribe = TRUE;
  g_autoptr (DtsSchedule) s = schedule (&in, &o);
  ck_assert_double_eq (s->memory.total_bytes, m.total_bytes);
  /* at the batch that fits, nothing to allow */
  o.allow_oversubscribe = FALSE;
  o.batch_size = 64;
  g_autoptr (DtsSchedule) fits = schedule (&in, &o);
  ck_assert (fits->memory.total_bytes < have);
  inputs_clear (&in);
}
END_TEST

/* tiny-gpt (Adam) in fp16 on D = 8 GPUs of flat-16, small buckets. */
static DtsRunOptions
zero_options (int zero, gboolean gather_overlap, int comm_streams)
{
  DtsRunOptions o = options (8, 2e5, TRUE);
  o.batch_size = 4;
  o.precision = DTS_PREC_FP16;
  o.replicas.zero = zero;
  o.replicas.param_gather_overlap = gather_overlap;
  o.replicas.comm_streams = comm_streams;
  return o;
}

/* --strategy dp --zero 1, no simulation: bucket b's plan is a ring
 * reduce-scatter of its gradient bytes, plan B + b the all-gather of its
 * parameters in fp16; a rank sends (D - 1)/D of each, which with 2-byte
 * gradients is what the all-reduce sends; the optimizer takes 1/D of its
 * time; the model state is 2 + 4 + 12/D bytes per parameter against 18
 * (--zero 2: 2 + 16/D and the bucket being reduced, the same plans;
 * --zero 3: two gathers per bucket, 1.5 x ZeRO-1's bytes, sharded weights);
 * the compute stream waits for the gathers after the step, or (overlap)
 * for each bucket's before its first layer, with one event per stream. */
START_TEST (test_zero)
{
  const int D = 8;
  Inputs in;
  inputs_load_workload (&in, "tests/data/tiny-gpt.xml", "tests/data/flat-16.xml");
  DtsRunOptions o = zero_options (0, FALSE, 1);
  g_autoptr (DtsSchedule) plain = schedule (&in, &o);
  o = zero_options (1, FALSE, 1);
  g_autoptr (DtsSchedule) after = schedule (&in, &o);
  o = zero_options (1, TRUE, 1);
  g_autoptr (DtsSchedule) overlap = schedule (&in, &o);
  o = zero_options (1, TRUE, 3);
  g_autoptr (DtsSchedule) streams = schedule (&in, &o);
  o = zero_options (1, FALSE, 1);
  o.grad_bytes = 2;
  g_autoptr (DtsSchedule) half = schedule (&in, &o);
  o = zero_options (0, FALSE, 1);
  o.grad_bytes = 2;
  g_autoptr (DtsSchedule) half_plain = schedule (&in, &o);
  o = zero_options (2, FALSE, 1);
  g_autoptr (DtsSchedule) two = schedule (&in, &o);
  o = zero_options (3, FALSE, 1);
  g_autoptr (DtsSchedule) three = schedule (&in, &o);
  o.grad_bytes = 2;
  g_autoptr (DtsSchedule) three_half = schedule (&in, &o);

  guint nb = after->buckets->len;
  ck_assert_uint_gt (nb, 3);
  ck_assert_uint_eq (plain->plans->len, nb);
  ck_assert_uint_eq (after->plans->len, 2 * nb);
  double ar_sent = 0, zero_sent = 0, half_sent = 0, half_ar_sent = 0;
  for (guint b = 0; b < nb; b++) {
    const DtsBucket *bk = &g_array_index (after->buckets, DtsBucket, b);
    const DtsCollPlan *rs = g_ptr_array_index (after->plans, b);
    const DtsCollPlan *ag = g_ptr_array_index (after->plans, nb + b);
    const DtsCollPlan *ar = g_ptr_array_index (plain->plans, b);
    ck_assert_int_eq (ar->op, DTS_COLL_OP_ALLREDUCE);
    ck_assert_int_eq (rs->op, DTS_COLL_OP_REDUCE_SCATTER);
    ck_assert_int_eq (ag->op, DTS_COLL_OP_ALLGATHER);
    ck_assert_double_eq (bk->bytes, bk->params * 4);
    ck_assert_double_eq (rs->bytes, bk->bytes);
    ck_assert_double_eq (ag->bytes, bk->params * 2);
    ck_assert_int_eq (after->plan_comm[b], 0);
    ck_assert_int_eq (after->plan_comm[nb + b], 0);
    ck_assert_int_eq (streams->plan_comm[nb + b], (int) b % 3);
    /* a ring moves (D-1)/D of the bytes a rank holds, per direction */
    ck_assert_double_eq_tol (dts_coll_plan_bytes_per_rank (rs), bk->bytes * (D - 1) / D, 1e-6);
    ck_assert_double_eq_tol (dts_coll_plan_bytes_per_rank (ag), bk->params * 2 * (D - 1) / D,
                             1e-6);
    ar_sent += dts_coll_plan_bytes_per_rank (ar);
    zero_sent += dts_coll_plan_bytes_per_rank (rs) + dts_coll_plan_bytes_per_rank (ag);
  }
  /* (2-byte gradients make other buckets under the same cap) */
  guint nh = half->buckets->len;
  ck_assert_uint_eq (half->plans->len, 2 * nh);
  ck_assert_uint_eq (half_plain->plans->len, nh);
  for (guint b = 0; b < nh; b++) {
    half_sent += dts_coll_plan_bytes_per_rank (g_ptr_array_index (half->plans, b))
                 + dts_coll_plan_bytes_per_rank (g_ptr_array_index (half->plans, nh + b));
    half_ar_sent += dts_coll_plan_bytes_per_rank (g_ptr_array_index (half_plain->plans, b));
  }
  /* per iteration: 4 + 2 bytes per parameter against the all-reduce's 2 x 4;
   * with 2-byte gradients the same bytes as the all-reduce */
  double P = in.w->params;
  ck_assert_double_eq_tol (ar_sent, 2.0 * (D - 1) / D * 4 * P, 1e-3);
  ck_assert_double_eq_tol (zero_sent, (D - 1.0) / D * (4 + 2) * P, 1e-3);
  ck_assert_double_eq_tol (half_sent, half_ar_sent, 1e-3);
  ck_assert_double_eq_tol (half_sent, 2.0 * (D - 1) / D * 2 * P, 1e-3);

  /* memory: Adam, fp16 compute, fp32 gradients */
  ck_assert_double_eq (dts_workload_optimizer_state_bytes_per_param (in.w), 8);
  double state_plain = plain->memory.weights_bytes + plain->memory.gradients_bytes
                       + plain->memory.optimizer_bytes;
  double state_zero = after->memory.weights_bytes + after->memory.gradients_bytes
                      + after->memory.optimizer_bytes;
  ck_assert_double_eq_tol (state_plain / P, 18, 1e-12);
  ck_assert_double_eq_tol (state_zero / P, 2 + 4 + 12.0 / D, 1e-12);
  ck_assert_double_eq (after->memory.activations_bytes, plain->memory.activations_bytes);
  ck_assert_double_eq_tol (after->memory.total_bytes,
                           state_zero + after->memory.activations_bytes, 1e-3);
  /* ZeRO-2: the same collectives, and 1/D of the fp32 gradients kept, plus
   * the largest bucket (the one being reduced): 2 + 16/D bytes per
   * parameter and a bucket */
  ck_assert_uint_eq (two->plans->len, after->plans->len);
  double biggest = 0;
  for (guint b = 0; b < nb; b++) {
    const DtsCollPlan *p2 = g_ptr_array_index (two->plans, b);
    const DtsCollPlan *p1 = g_ptr_array_index (after->plans, b);
    ck_assert_int_eq (p2->op, p1->op);
    ck_assert_double_eq (p2->bytes, p1->bytes);
    biggest = MAX (biggest, g_array_index (two->buckets, DtsBucket, b).bytes);
  }
  ck_assert_double_eq_tol (two->memory.gradients_bytes, 4 * P / D + biggest, 1e-3);
  double state_two = two->memory.weights_bytes + two->memory.gradients_bytes
                     + two->memory.optimizer_bytes;
  ck_assert_double_eq_tol (state_two / P, 2 + 16.0 / D + biggest / P, 1e-12);

  /* ZeRO-3 (FSDP): plans B + b and 2B + b gather bucket b's parameters
   * (before its forward, before its backward); with 2-byte gradients a
   * rank sends 3 x (D-1)/D of the parameter bytes per iteration, against
   * ZeRO-1's 2 x; the weights are sharded too (6/D bytes per parameter)
   * besides two buckets' parameters in fp16, the gradients as ZeRO-2 */
  ck_assert_uint_eq (three->plans->len, 3 * nb);
  double biggest_params = 0, three_sent = 0;
  for (guint b = 0; b < nb; b++) {
    const DtsBucket *bk = &g_array_index (three->buckets, DtsBucket, b);
    biggest_params = MAX (biggest_params, bk->params);
    for (int k = 1; k <= 2; k++) {
      const DtsCollPlan *ag = g_ptr_array_index (three->plans, k * nb + b);
      ck_assert_int_eq (ag->op, DTS_COLL_OP_ALLGATHER);
      ck_assert_double_eq (ag->bytes, bk->params * 2);
    }
  }
  guint n3 = three_half->buckets->len;
  for (guint k = 0; k < three_half->plans->len; k++)
    three_sent += dts_coll_plan_bytes_per_rank (g_ptr_array_index (three_half->plans, k));
  ck_assert_uint_eq (three_half->plans->len, 3 * n3);
  ck_assert_double_eq_tol (three_sent, 3.0 * (D - 1) / D * 2 * P, 1e-3);
  ck_assert_double_eq_tol (three_sent / half_sent, 1.5, 1e-9);
  ck_assert_double_eq_tol (three->memory.weights_bytes, 6 * P / D + 2 * biggest_params * 2, 1e-3);
  ck_assert_double_eq (three->memory.gradients_bytes, two->memory.gradients_bytes);
  ck_assert_double_eq (three->memory.optimizer_bytes, two->memory.optimizer_bytes);
  /* events: ready 0, done 1, step done 2, gathered 3, gathered for the
   * backward 4, forward done 5; the compute stream waits once per bucket
   * on each kind of gather and records the end of its forward pass; the
   * communication stream starts the backward gathers after it */
  ck_assert_int_eq (three->n_events, 6);
  const GArray *c3 = dts_schedule_program (three, 0);
  int fwd_waits = 0, bwd_waits = 0, fwd_done = 0;
  for (guint k = 0; k < c3->len; k++) {
    const DtsOp *op = &g_array_index (c3, DtsOp, k);
    fwd_waits += op->type == DTS_OP_WAIT && op->event == 3;
    bwd_waits += op->type == DTS_OP_WAIT && op->event == 4;
    fwd_done += op->type == DTS_OP_RECORD && op->event == 5;
  }
  ck_assert_int_eq (fwd_waits, (int) nb);
  ck_assert_int_eq (bwd_waits, (int) nb);
  ck_assert_int_eq (fwd_done, 1);
  const GArray *m3 = g_ptr_array_index (three->programs, three->programs->len - 1);
  const DtsOp *first = &g_array_index (m3, DtsOp, 0);
  ck_assert_int_eq (first->type, DTS_OP_WAIT);
  ck_assert_int_eq (first->event, 5);
  int colls = 0;
  for (guint k = 0; k < m3->len; k++)
    colls += g_array_index (m3, DtsOp, k).type == DTS_OP_COLL;
  ck_assert_int_eq (colls, 3 * (int) nb);

  /* events: ready 0, done 1, step done 2, gathered 3 (one stream); three
   * streams: ready 0-2, done 3, step 4, gathered 5-7 */
  ck_assert_int_eq (plain->n_events, 2);
  ck_assert_int_eq (after->n_events, 4);
  ck_assert_int_eq (streams->n_events, 8);
  ck_assert_ptr_null (plain->event_initial);
  ck_assert_ptr_null (after->event_initial);
  const GArray *p0 = dts_schedule_program (plain, 0);
  const GArray *pa = dts_schedule_program (after, 0);
  const GArray *po = dts_schedule_program (overlap, 0);
  ck_assert_double_eq_tol (dts_test_phase_sum (pa, DTS_PHASE_UPDATE), dts_test_phase_sum (p0, DTS_PHASE_UPDATE) / D,
                           1e-15);
  ck_assert_double_eq (dts_test_phase_sum (pa, DTS_PHASE_FORWARD), dts_test_phase_sum (p0, DTS_PHASE_FORWARD));
  int waits = 0, signals = 0;
  for (guint k = 0; k < pa->len; k++) {
    const DtsOp *op = &g_array_index (pa, DtsOp, k);
    if (op->type == DTS_OP_WAIT && op->event == 3) {
      ck_assert_int_eq (op->wait, DTS_WAIT_GATHER);
      waits++;
      signals += op->count;
    }
  }
  ck_assert_int_eq (waits, 1);
  ck_assert_int_eq (signals, (int) nb);
  for (int r = 0; r < D; r++) {
    ck_assert_int_eq (overlap->event_initial[r * 4 + 3], (int) nb);
    int held = 0;
    for (int j = 0; j < 3; j++)
      held += streams->event_initial[r * 8 + 5 + j];
    ck_assert_int_eq (held, (int) nb);
  }
  /* overlapped: a wait before the first layer (forward order) of every bucket */
  int seen = 0;
  for (guint k = 0; k < po->len; k++) {
    const DtsOp *op = &g_array_index (po, DtsOp, k);
    if (op->type != DTS_OP_WAIT || op->event != 3)
      continue;
    ck_assert_int_eq (op->wait, DTS_WAIT_GATHER);
    const DtsOp *next = &g_array_index (po, DtsOp, k + 1);
    ck_assert_int_eq (next->type, DTS_OP_COMPUTE);
    ck_assert_int_eq (next->phase, DTS_PHASE_FORWARD);
    ck_assert_int_eq (g_array_index (overlap->buckets, DtsBucket, nb - 1 - seen).last_layer,
                      next->layer);
    seen++;
  }
  ck_assert_int_eq (seen, (int) nb);

  /* parameter servers own the parameters */
  g_autoptr (GError) error = NULL;
  o = zero_options (1, FALSE, 1);
  o.collective = "ps";
  ck_assert_ptr_null (dts_schedule_dp_new (in.w, in.p, in.cost, &o, &error));
  dts_test_assert_error (error, DTS_ERROR_USAGE, "--zero 1: not available with --collective ps",
                         NULL);
  inputs_clear (&in);
}
END_TEST

/* Every rank of MESH is in exactly one group of each kind, and each group's
 * members say they are in it. */
static void
check_groups_partition (const DtsMesh *m)
{
  int n = dts_mesh_n_ranks (m);
  for (int k = 0; k < DTS_MESH_N_GROUPS; k++) {
    g_autofree int *seen = g_new0 (int, n);
    g_autofree int *members = g_new (int, n);
    for (int g = 0; g < dts_mesh_n_groups (m, k); g++) {
      int stage = -1;
      int size = dts_mesh_group_members (m, k, g, &stage, members);
      ck_assert_int_eq (size, dts_mesh_group_size (m, k, stage));
      for (int i = 0; i < size; i++) {
        int s, d, t;
        ck_assert (dts_mesh_coords (m, members[i], &s, &d, &t));
        ck_assert_int_eq (s, stage);
        ck_assert_int_eq (dts_mesh_rank (m, s, d, t), members[i]);
        ck_assert_int_eq (dts_mesh_group_of (m, k, s, d, t), g);
        seen[members[i]]++;
      }
    }
    for (int r = 0; r < n; r++)
      ck_assert_msg (seen[r] == 1, "kind %s: rank %d in %d groups",
                     dts_mesh_group_kind_name (k), r, seen[r]);
  }
}

/* Megatron's order: tensor, context, data, pipeline; the expert groups
 * over data x context. */
START_TEST (test_mesh_megatron)
{
  int R[] = { 4, 4 }; /* D 2 x C 2 */
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsMesh) m = dts_mesh_new (2, R, 2, 2, 2, FALSE, &error);
  ck_assert_msg (m != NULL, "%s", error ? error->message : "");
  ck_assert_int_eq (dts_mesh_n_ranks (m), 16);
  for (int s = 0; s < 2; s++)
    for (int d = 0; d < 4; d++)
      for (int t = 0; t < 2; t++)
        ck_assert_int_eq (dts_mesh_rank (m, s, d, t), (s * 4 + d) * 2 + t);
  ck_assert (!dts_mesh_coords (m, 16, NULL, NULL, NULL));
  ck_assert (!dts_mesh_coords (m, -1, NULL, NULL, NULL));
  check_groups_partition (m);
  int members[4], stage;
  /* the ring of data-parallel replica 1, tensor rank 1, on stage 0 */
  int g = dts_mesh_group_of (m, DTS_MESH_CONTEXT, 0, 3, 1);
  ck_assert_int_eq (dts_mesh_group_members (m, DTS_MESH_CONTEXT, g, &stage, members), 2);
  ck_assert_int_eq (stage, 0);
  ck_assert_int_eq (members[0], 5);
  ck_assert_int_eq (members[1], 7);
  g_autofree char *cp = dts_mesh_group_name (m, DTS_MESH_CONTEXT, g);
  ck_assert_str_eq (cp, "stage0-cp1-1");
  /* the replicas holding expert 1 of stage 0's, tensor rank 0: d = 1, 3 */
  g = dts_mesh_group_of (m, DTS_MESH_EXPERT_DATA, 0, 1, 0);
  ck_assert_int_eq (dts_mesh_group_members (m, DTS_MESH_EXPERT_DATA, g, NULL, members), 2);
  ck_assert_int_eq (members[0], 2);
  ck_assert_int_eq (members[1], 6);
  g_autofree char *edp = dts_mesh_group_name (m, DTS_MESH_EXPERT_DATA, g);
  ck_assert_str_eq (edp, "stage0-edp1-0");
  /* stage 1's data-parallel group of tensor rank 1: every replica */
  g = dts_mesh_group_of (m, DTS_MESH_DATA, 1, 2, 1);
  ck_assert_int_eq (dts_mesh_group_members (m, DTS_MESH_DATA, g, &stage, members), 4);
  ck_assert_int_eq (stage, 1);
  for (int d = 0; d < 4; d++)
    ck_assert_int_eq (members[d], 8 + 2 * d + 1);
  g_autofree char *dp = dts_mesh_group_name (m, DTS_MESH_DATA, g);
  ck_assert_str_eq (dp, "stage1-dp1");
  g = dts_mesh_group_of (m, DTS_MESH_TENSOR, 1, 3, 1);
  g_autofree char *tp = dts_mesh_group_name (m, DTS_MESH_TENSOR, g);
  ck_assert_str_eq (tp, "stage1-tp3");
  ck_assert_int_eq (dts_mesh_group_members (m, DTS_MESH_TENSOR, g, NULL, members), 2);
  ck_assert_int_eq (members[0], 14);
  ck_assert_int_eq (members[1], 15);
  g = dts_mesh_group_of (m, DTS_MESH_EXPERT, 1, 2, 0);
  g_autofree char *ep = dts_mesh_group_name (m, DTS_MESH_EXPERT, g);
  ck_assert_str_eq (ep, "stage1-ep1-0");
  g_autoptr (GString) line = g_string_new (NULL);
  dts_mesh_describe (m, line);
  ck_assert_str_eq (line->str, "mesh: tensor 2 x context 2 x data 2 x pipeline 2 = 16 "
                               "ranks, innermost first (replicas-inside); experts over 2 of "
                               "data x context\n");
}
END_TEST

/* Stages inside replicas, and stages of their own widths (--stage-dp). */
START_TEST (test_mesh_placements)
{
  int R3[] = { 2, 2, 2 };
  g_autoptr (DtsMesh) in = dts_mesh_new (3, R3, 1, 1, 1, TRUE, NULL);
  ck_assert (in != NULL);
  for (int s = 0; s < 3; s++)
    for (int d = 0; d < 2; d++)
      ck_assert_int_eq (dts_mesh_rank (in, s, d, 0), d * 3 + s);
  check_groups_partition (in);
  int members[4];
  int g = dts_mesh_group_of (in, DTS_MESH_DATA, 1, 0, 0);
  ck_assert_int_eq (dts_mesh_group_members (in, DTS_MESH_DATA, g, NULL, members), 2);
  ck_assert_int_eq (members[0], 1);
  ck_assert_int_eq (members[1], 4);
  g_autofree char *name = dts_mesh_group_name (in, DTS_MESH_DATA, g);
  ck_assert_str_eq (name, "stage1");
  g_autoptr (GString) inside = g_string_new (NULL);
  dts_mesh_describe (in, inside);
  ck_assert_str_eq (inside->str, "mesh: tensor 1 x pipeline 3 x context 1 x data 2 = 6 ranks, "
                                 "innermost first (stages-inside)\n");

  int ragged[] = { 3, 1 };
  g_autoptr (DtsMesh) m = dts_mesh_new (2, ragged, 1, 1, 1, FALSE, NULL);
  ck_assert (m != NULL);
  ck_assert_int_eq (dts_mesh_n_ranks (m), 4);
  int s, d;
  ck_assert (dts_mesh_coords (m, 3, &s, &d, NULL));
  ck_assert_int_eq (s, 1);
  ck_assert_int_eq (d, 0);
  ck_assert_int_eq (dts_mesh_group_size (m, DTS_MESH_DATA, 0), 3);
  ck_assert_int_eq (dts_mesh_group_size (m, DTS_MESH_DATA, 1), 1);
  check_groups_partition (m);
  g_autoptr (GString) line = g_string_new (NULL);
  dts_mesh_describe (m, line);
  ck_assert_str_eq (line->str, "mesh: tensor 1 x context 1 x data 3,1 x pipeline 2 = 4 "
                               "ranks, innermost first (replicas-inside)\n");
}
END_TEST

START_TEST (test_mesh_errors)
{
  static const struct {
    int S, R0, R1, T, C, EP;
    gboolean inside;
    const char *message;
  } cases[] = {
    { 2, 4, 3, 1, 2, 1, FALSE,
      "rank mesh: the 3 replicas of stage 1 are not a multiple of the context-parallel "
      "degree 2" },
    { 2, 4, 6, 1, 1, 4, FALSE,
      "rank mesh: the 6 replicas of stage 1 are not a multiple of the expert-parallel "
      "degree 4" },
    { 2, 4, 2, 1, 1, 1, TRUE,
      "rank mesh: stages inside replicas need the same replicas on every stage (stage 0 has "
      "4, stage 1 2)" },
    { 2, 4, 0, 1, 1, 1, FALSE, "rank mesh: stage 1 has no replica" },
    { 2, 4, 4, 0, 1, 1, FALSE,
      "rank mesh: 2 stages, tensor 0, context 1 and expert 1: every degree must be at "
      "least 1" },
    { 2, 1 << 30, 1 << 30, 2, 1, 1, FALSE,
      "rank mesh: 2147483648 replicas of 2 GPUs are more ranks than 2147483647" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    int R[] = { cases[i].R0, cases[i].R1 };
    g_autoptr (GError) error = NULL;
    DtsMesh *m = dts_mesh_new (cases[i].S, R, cases[i].T, cases[i].C, cases[i].EP,
                               cases[i].inside, &error);
    ck_assert_msg (m == NULL, "case %zu", i);
    ck_assert (g_error_matches (error, DTS_ERROR, DTS_ERROR_USAGE));
    ck_assert_str_eq (error->message, cases[i].message);
  }
}
END_TEST

static Suite *
schedule_suite (void)
{
  Suite *s = suite_create ("schedule");
  TCase *tc = tcase_create ("dp");
  tcase_add_test (tc, test_buckets);
  tcase_add_test (tc, test_program_order);
  tcase_add_test (tc, test_programs_shared);
  tcase_add_test (tc, test_memory);
  tcase_add_test (tc, test_memory_published);
  tcase_add_test (tc, test_memory_published_cards);
  tcase_add_test (tc, test_memory_rule);
  tcase_add_test (tc, test_errors);
  tcase_add_test (tc, test_zero);
  suite_add_tcase (s, tc);
  TCase *mesh = tcase_create ("mesh");
  tcase_add_test (mesh, test_mesh_megatron);
  tcase_add_test (mesh, test_mesh_placements);
  tcase_add_test (mesh, test_mesh_errors);
  suite_add_tcase (s, mesh);
  return s;
}

int
main (void)
{
  return dts_test_run (schedule_suite ());
}
