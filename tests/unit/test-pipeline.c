/* test-pipeline.c - pipeline and hybrid schedules: bubbles against the
 * closed form, memory of the schedules, consistency with dp, the
 * placement of ranks and the errors.
 *
 * Simulations run in child processes (SimGrid runs once per process).
 * tests/data/fc-equal.xml has eight equal fc layers, so that a cut into
 * 4 stages of two fc layers each gives equal stages; tests/data/fast-16.xml
 * makes transfers cost next to nothing. */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "collective/collective.h"
#include "core/datadir.h"
#include "core/error.h"
#include "cost/cost.h"
#include "driver/driver.h"
#include "platform/gpu.h"
#include "platform/platform.h"
#include "schedule/schedule.h"
#include "testlib.h"
#include "workload/workload.h"

#define MAX_STAGES 8

typedef struct {
  const char *platform;   /* tests/data name or shipped name */
  const char *workload;
  const char *strategy;
  int n_gpus;             /* 0: the strategy's */
  int batch;              /* 0: the workload's */
  int stages, micro_batches, dp;
  const char *partition, *stage_dp;
  DtsPipelineSchedule schedule;
  DtsPlacement placement;
  gboolean oversubscribe;
  gboolean p2p_shared;
  const char *collective;
  int virtual_stages;
} Setup;

typedef struct {
  int ok, code;
  char message[768];
  int n_gpus, global_batch, n_stages, micro_batches;
  double iteration_s, bubble_fraction, p2p_exposed_s, comm_exposed_s, throughput;
  double memory_peak;
  double compute_s[MAX_STAGES], bubble_s[MAX_STAGES], activations[MAX_STAGES];
  int replicas[MAX_STAGES], first_rank[MAX_STAGES];
} Outcome;


static void
run_here (const void *setup, void *result)
{
  const Setup *st = setup;
  Outcome *out = result;
  g_autofree char *platform = dts_test_input_path (st->platform, "platforms");
  g_autofree char *workload = dts_test_input_path (st->workload, "workloads");
  DtsRunOptions o = {
    .platform_path = platform,
    .workload_path = workload,
    .n_gpus = st->n_gpus,
    .batch_size = st->batch,
    .iterations = 3,
    .precision = DTS_PREC_COUNT,
    .strategy = st->strategy,
    .cost_model = "roofline",
    .collective = st->collective,
    .bucket_bytes = DTS_RUN_DEFAULT_BUCKET_BYTES,
    .chunk_bytes = DTS_COLL_DEFAULT_CHUNK_BYTES,
    .channels = DTS_COLL_DEFAULT_CHANNELS,
    .overlap = TRUE,
    .granularity = DTS_GRANULARITY_FLOW,
    .replicas.stages = st->stages,
    .replicas.micro_batches = st->micro_batches,
    .replicas.dp = st->dp,
    .replicas.partition = st->partition,
    .replicas.stage_dp = st->stage_dp,
    .replicas.pipeline_schedule = st->schedule,
    .replicas.placement = st->placement,
    .allow_oversubscribe = st->oversubscribe,
    .replicas.p2p_shared = st->p2p_shared,
    .replicas.virtual_stages = st->virtual_stages,
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsRunSummary) s = NULL;
  if (platform && workload)
    s = dts_driver_run_training (&o, NULL, &error);
  if (s == NULL) {
    out->code = error ? error->code : -1;
    g_strlcpy (out->message, error ? error->message : "input not found", sizeof out->message);
    return;
  }
  out->ok = 1;
  out->n_gpus = s->n_gpus;
  out->global_batch = s->global_batch_size;
  out->iteration_s = s->iteration_time_s;
  out->throughput = s->throughput_samples_per_s;
  out->bubble_fraction = s->bubble_fraction;
  out->p2p_exposed_s = s->p2p_exposed_s;
  out->comm_exposed_s = s->comm_exposed_s;
  out->memory_peak = s->memory_peak_bytes_per_gpu;
  out->n_stages = s->n_stages;
  out->micro_batches = s->micro_batches;
  for (int i = 0; i < s->n_stages && i < MAX_STAGES; i++) {
    const DtsStageStat *ss = &g_array_index (s->stages, DtsStageStat, i);
    out->compute_s[i] = ss->compute_s;
    out->bubble_s[i] = ss->bubble_s;
    out->activations[i] = ss->activations_bytes;
    out->replicas[i] = ss->replicas;
    out->first_rank[i] = ss->first_rank;
  }
}

static Outcome
run (const Setup *st)
{
  Outcome out = { 0 };
  dts_test_run_in_child (run_here, st, &out, sizeof out, "pipeline simulation");
  return out;
}

static Outcome
run_ok (const Setup *st)
{
  Outcome out = run (st);
  ck_assert_msg (out.ok, "%s: %s", st->strategy ? st->strategy : "dp", out.message);
  return out;
}


/* S equal stages, M micro-batches, no communication to speak of: the bubble
 * is (S-1)/(M+S-1) of the iteration, for both schedules (the optimizer's
 * update, 1% of the iteration here, is the difference). */
START_TEST (test_bubble_closed_form)
{
  static const int Ms[] = { 4, 8, 16 };
  for (int sch = 0; sch < DTS_PIPELINE_COUNT; sch++)
    for (guint k = 0; k < G_N_ELEMENTS (Ms); k++) {
      Setup st = { .platform = "fast-16", .workload = "fc-equal", .strategy = "pipeline",
                   .batch = 2048, .partition = "relu0-fc2,fc3-fc4,fc5-fc6,fc7-fc8",
                   .micro_batches = Ms[k], .schedule = sch };
      Outcome o = run_ok (&st);
      int S = 4, M = Ms[k];
      double theory = (double) (S - 1) / (M + S - 1);
      ck_assert_int_eq (o.n_stages, S);
      ck_assert_int_eq (o.micro_batches, M);
      ck_assert_int_eq (o.n_gpus, S);
      assert_rel (o.bubble_fraction, theory, 0.02);
      /* Every stage waits about the same. */
      for (int i = 1; i < S; i++)
        assert_rel (o.bubble_s[i], o.bubble_s[0], 0.05);
      ck_assert (o.p2p_exposed_s < 1e-3 * o.iteration_s);
    }
}
END_TEST

/* Megatron's interleaved 1F1B with V chunks per stage, equal chunks and
 * next to free transfers: the bubble is (S-1)/(V M) of the ideal time
 * (Narayanan et al. 2021, 2.2.2), (S-1)/(V M + S-1) of the iteration. Stage
 * s runs 2(S-s-1) + (V-1)S warm-up forwards of a chunk each, so at its
 * peak it keeps 2(S-s-1) + (V-1)S + 1 chunks' activations against 1F1B's
 * S-s stages' worth: for stage 0, S (1 + (S-1)/(S V)) (Korthikanti et al.
 * 2022, 4.4). Stage 1 is checked (stage 0's chunks differ: it also keeps
 * the input). */
START_TEST (test_interleaved_closed_form)
{
  static const int Ms[] = { 4, 8, 16 };
  const int S = 4, V = 2;
  for (guint k = 0; k < G_N_ELEMENTS (Ms); k++) {
    int M = Ms[k];
    Setup st = { .platform = "fast-16", .workload = "fc-equal", .strategy = "pipeline",
                 .batch = 2048, .stages = S, .micro_batches = M, .virtual_stages = V };
    Outcome o = run_ok (&st);
    ck_assert_int_eq (o.n_stages, S);
    double theory = (double) (S - 1) / (V * M + S - 1);
    assert_rel (o.bubble_fraction, theory, 0.03);
    ck_assert (o.p2p_exposed_s < 1e-3 * o.iteration_s);
    Setup plain = st;
    plain.virtual_stages = 1;
    Outcome p = run_ok (&plain);
    assert_rel (p.bubble_fraction, (double) (S - 1) / (M + S - 1), 0.02);
    ck_assert (o.iteration_s < p.iteration_s);
    if (M > S)
      assert_rel (o.activations[1] / p.activations[1],
                  (2.0 * (S - 2) + (V - 1) * S + 1) / V / (S - 1), 1e-9);
  }
}
END_TEST

/* 1F1B keeps at most S - s micro-batches of activations on stage s, GPipe
 * all M: stage 0's activation memory shrinks by M / S. */
START_TEST (test_activation_memory)
{
  Setup st = { .platform = "fast-16", .workload = "fc-equal", .strategy = "pipeline",
               .batch = 2048, .stages = 4, .micro_batches = 16,
               .schedule = DTS_PIPELINE_GPIPE };
  Outcome gpipe = run_ok (&st);
  st.schedule = DTS_PIPELINE_1F1B;
  Outcome f1b = run_ok (&st);
  for (int i = 0; i < 4; i++) {
    assert_rel (gpipe.activations[i] / f1b.activations[i], 16.0 / (4 - i), 1e-12);
    ck_assert (f1b.activations[i] < gpipe.activations[i]);
  }
  /* Same timing: the schedules differ in order, not in work. */
  assert_rel (f1b.iteration_s, gpipe.iteration_s, 0.02);
}
END_TEST

/* Hybrid with one stage and one micro-batch is dp, to the bit; hybrid with
 * one replica is the pipeline; one GPU of everything is a one-GPU run. */
START_TEST (test_consistency)
{
  Setup dp = { .platform = "flat-16", .workload = "mlp8", .n_gpus = 8 };
  Outcome a = run_ok (&dp);
  Setup hy = { .platform = "flat-16", .workload = "mlp8", .strategy = "hybrid", .stages = 1,
               .micro_batches = 1, .n_gpus = 8 };
  Outcome b = run_ok (&hy);
  ck_assert_double_eq (a.iteration_s, b.iteration_s);
  ck_assert_double_eq (a.comm_exposed_s, b.comm_exposed_s);
  ck_assert_int_eq (a.global_batch, b.global_batch);
  ck_assert (a.comm_exposed_s > 0);

  Setup pp = { .platform = "flat-16", .workload = "mlp8", .strategy = "pipeline", .stages = 4,
               .micro_batches = 8 };
  Outcome c = run_ok (&pp);
  Setup hy1 = { .platform = "flat-16", .workload = "mlp8", .strategy = "hybrid", .stages = 4,
                .micro_batches = 8, .dp = 1 };
  Outcome d = run_ok (&hy1);
  ck_assert_double_eq (c.iteration_s, d.iteration_s);
  ck_assert_double_eq (c.bubble_fraction, d.bubble_fraction);
  ck_assert (c.p2p_exposed_s > 0);

  Setup one = { .platform = "flat-16", .workload = "mlp8", .n_gpus = 1 };
  Outcome e = run_ok (&one);
  Setup hy0 = { .platform = "flat-16", .workload = "mlp8", .strategy = "hybrid", .stages = 1,
                .micro_batches = 1, .dp = 1 };
  Outcome f = run_ok (&hy0);
  ck_assert_double_eq (e.iteration_s, f.iteration_s);
}
END_TEST

/* Uneven data-parallel degrees: a stage with half the replicas runs twice
 * the samples per GPU; the global batch is the widest stage's. */
START_TEST (test_stage_dp)
{
  Setup st = { .platform = "fast-16", .workload = "fc-equal", .strategy = "hybrid",
               .batch = 512, .stage_dp = "4,2", .partition = "relu0-fc4,fc5-fc8",
               .micro_batches = 4 };
  Outcome o = run_ok (&st);
  ck_assert_int_eq (o.n_gpus, 6);
  ck_assert_int_eq (o.global_batch, 2048);
  ck_assert_int_eq (o.replicas[0], 4);
  ck_assert_int_eq (o.replicas[1], 2);
  ck_assert_int_eq (o.first_rank[1], 4);
  /* Twice the samples per GPU: not quite twice the time, as the roofline's
   * kernels at 128 samples are less efficient than at 256. */
  double ratio = o.compute_s[1] / o.compute_s[0];
  ck_assert_msg (ratio > 1.8 && ratio <= 2.0, "ratio %g", ratio);
  /* The wide stage waits for the narrow one. */
  ck_assert (o.bubble_s[0] > o.bubble_s[1]);
  assert_rel (o.throughput, 2048 / o.iteration_s, 1e-12);
}
END_TEST

START_TEST (test_placement)
{
  Setup st = { .platform = "flat-16", .workload = "mlp8", .strategy = "hybrid", .stages = 2,
               .dp = 4, .micro_batches = 4 };
  Outcome a = run_ok (&st);
  ck_assert_int_eq (a.first_rank[1], 4);
  st.placement = DTS_PLACEMENT_STAGES_INSIDE;
  Outcome b = run_ok (&st);
  ck_assert_int_eq (b.first_rank[1], 1);
  /* On a contention-free crossbar the rank order changes nothing. */
  assert_rel (a.iteration_s, b.iteration_s, 1e-9);
}
END_TEST

/* Sends on the gradient stream wait behind the all-reduces issued before
 * them; without all-reduces (one replica per stage) nothing changes. */
START_TEST (test_p2p_shared)
{
  Setup st = { .platform = "flat-16", .workload = "mlp8", .strategy = "hybrid", .stages = 2,
               .dp = 4, .micro_batches = 4 };
  Outcome own = run_ok (&st);
  st.p2p_shared = TRUE;
  Outcome shared = run_ok (&st);
  ck_assert (own.comm_exposed_s > 0);
  ck_assert_msg (shared.iteration_s > own.iteration_s, "%g vs %g", shared.iteration_s,
                 own.iteration_s);
  Setup pp = { .platform = "flat-16", .workload = "mlp8", .strategy = "pipeline", .stages = 4,
               .micro_batches = 8 };
  Outcome a = run_ok (&pp);
  pp.p2p_shared = TRUE;
  Outcome b = run_ok (&pp);
  assert_rel (b.iteration_s, a.iteration_s, 0.01);
}
END_TEST

/* Tensor parallelism, no simulation: eight fc layers split over T = 2 form
 * four column-row pairs; per pair and micro-batch one all-reduce of the
 * row layer's output in forward and one of the column layer's input
 * gradient in backward, each of 4096 x samples x 4 bytes, over the group;
 * each GPU holds half the parameters. */
START_TEST (test_tensor_parallel_volume)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *wpath = dts_test_srcpath ("tests/data/fc-equal.xml");
  g_autofree char *ppath = dts_test_srcpath ("tests/data/flat-16.xml");
  g_autoptr (DtsWorkload) w = dts_workload_load (wpath, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  DtsGpuCatalog *cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert_msg (cat != NULL, "%s", error ? error->message : "");
  g_autoptr (DtsPlatform) p = dts_platform_load (ppath, cat, &error);
  ck_assert_msg (p != NULL, "%s", error ? error->message : "");
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  ck_assert (cost != NULL);
  DtsRunOptions o = {
    .batch_size = 64, .iterations = 1, .precision = DTS_PREC_FP32, .cost_model = "roofline",
    .collective = "ring", .bucket_bytes = DTS_RUN_DEFAULT_BUCKET_BYTES,
    .chunk_bytes = DTS_COLL_DEFAULT_CHUNK_BYTES, .channels = 1, .overlap = TRUE,
    .strategy = "hybrid", .replicas.stages = 1, .replicas.dp = 2, .replicas.micro_batches = 4, .replicas.tensor_parallel = 2,
  };
  const DtsStrategy *st = dts_schedule_strategy_lookup ("hybrid");
  ck_assert (st->resolve (&o, p->gpus->len, &error));
  ck_assert_int_eq (o.n_gpus, 4);
  g_autoptr (DtsSchedule) s = st->schedule_new (w, p, cost, &o, &error);
  ck_assert_msg (s != NULL, "%s", error ? error->message : "");
  const DtsStage *stage = &g_array_index (s->stages, DtsStage, 0);
  ck_assert_double_eq (stage->params, w->params / 2);
  ck_assert_int_eq (stage->n_ranks, 4);
  /* Ranks 0-1 are replica 0's group, 2-3 replica 1's: one program, each
   * group's collectives its own (replica 1's through a plan map). */
  ck_assert_int_eq (s->rank_program[0], s->rank_program[1]);
  ck_assert_int_eq (s->rank_program[0], s->rank_program[2]);
  ck_assert_int_lt (s->rank_plan_map[0], 0);
  ck_assert_int_ge (s->rank_plan_map[2], 0);
  for (int r = 0; r < 4; r += 2) {
    const GArray *prog = dts_schedule_program (s, r);
    int n_coll = 0;
    for (guint k = 0; k < prog->len; k++) {
      const DtsOp *op = &g_array_index (prog, DtsOp, k);
      if (op->type != DTS_OP_COLL)
        continue;
      n_coll++;
      int pk = dts_schedule_rank_plan (s, r, op->coll);
      const DtsCollPlan *plan = g_ptr_array_index (s->plans, pk);
      const DtsCommunicator *c = g_ptr_array_index (s->comms, s->plan_comm[pk]);
      ck_assert_double_eq (plan->bytes, 4096.0 * 16 * 4);
      ck_assert_int_eq (c->n_ranks, 2);
      ck_assert_int_eq (c->ranks[0], r);
      ck_assert_int_eq (c->ranks[1], r + 1);
    }
    ck_assert_int_eq (n_coll, 4 * 2 * 4);
  }
  dts_gpu_catalog_free (cat);
}
END_TEST

/* A one-stage hybrid schedule of the workload at WPATH (a path from the
 * source tree, or absolute) on flat-16: T-way tensor parallelism, M
 * micro-batches of a batch of BATCH, fp16; everything it needs kept for
 * the assertions. */
typedef struct {
  DtsGpuCatalog *cat;
  DtsWorkload *w;
  DtsPlatform *p;
  DtsCost *cost;
  DtsSchedule *s;
} Built;

static void
built_clear (Built *b)
{
  g_clear_pointer (&b->s, dts_schedule_free);
  g_clear_pointer (&b->cost, dts_cost_free);
  g_clear_pointer (&b->p, dts_platform_free);
  g_clear_pointer (&b->w, dts_workload_free);
  g_clear_pointer (&b->cat, dts_gpu_catalog_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Built, built_clear)

/* Build the schedule of options O (resolved here) for the workload at
 * WPATH on tests/data/flat-16.xml, without simulating it. */
static void
build_with (Built *b, const char *wpath, DtsRunOptions *o)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *wp = g_path_is_absolute (wpath) ? g_strdup (wpath) : dts_test_srcpath (wpath);
  g_autofree char *ppath = dts_test_srcpath ("tests/data/flat-16.xml");
  b->w = dts_workload_load (wp, &error);
  ck_assert_msg (b->w != NULL, "%s", error ? error->message : "");
  b->cat = dts_gpu_catalog_load (NULL, &error);
  ck_assert_msg (b->cat != NULL, "%s", error ? error->message : "");
  b->p = dts_platform_load (ppath, b->cat, &error);
  ck_assert_msg (b->p != NULL, "%s", error ? error->message : "");
  b->cost = dts_cost_new ("roofline", &error);
  ck_assert (b->cost != NULL);
  const DtsStrategy *st = dts_schedule_strategy_lookup (o->strategy);
  ck_assert (st->resolve (o, b->p->gpus->len, &error));
  b->s = st->schedule_new (b->w, b->p, b->cost, o, &error);
  ck_assert_msg (b->s != NULL, "%s", error ? error->message : "");
}

#define BUILD_OPTIONS                                                                        \
  .iterations = 1, .cost_model = "roofline", .collective = "ring",                           \
  .bucket_bytes = DTS_RUN_DEFAULT_BUCKET_BYTES, .chunk_bytes = DTS_COLL_DEFAULT_CHUNK_BYTES, \
  .channels = 1, .overlap = TRUE, .strategy = "hybrid", .allow_oversubscribe = TRUE

static void
build_hybrid (Built *b, const char *wpath, int T, int M, int batch, gboolean sp,
              DtsRecompute recompute)
{
  DtsRunOptions o = {
    BUILD_OPTIONS, .batch_size = batch, .precision = DTS_PREC_FP16, .replicas.stages = 1, .replicas.dp = 1,
    .replicas.micro_batches = M, .replicas.tensor_parallel = T, .sequence_parallel = sp, .recompute = recompute,
  };
  build_with (b, wpath, &o);
}

/* The collectives of rank 0's program over its group of T, by op: those
 * that move BYTES in N, and the all-reduces of the vocabulary-parallel
 * cross-entropy (three fp32 numbers per token of the micro-batch, LOSS_BYTES)
 * in *N_LOSS; asserted to be all of them. */
static void
count_tp_colls (const DtsSchedule *s, int T, double bytes, int n[DTS_COLL_N_OPS],
                double loss_bytes, int *n_loss)
{
  const GArray *prog = dts_schedule_program (s, 0);
  *n_loss = 0;
  for (guint k = 0; k < prog->len; k++) {
    const DtsOp *op = &g_array_index (prog, DtsOp, k);
    if (op->type != DTS_OP_COLL)
      continue;
    const DtsCollPlan *plan = g_ptr_array_index (s->plans, op->coll);
    const DtsCommunicator *c = g_ptr_array_index (s->comms, s->plan_comm[op->coll]);
    ck_assert_int_eq (c->n_ranks, T);
    if (plan->bytes == loss_bytes && plan->op == DTS_COLL_OP_ALLREDUCE) {
      (*n_loss)++;
      continue;
    }
    n[plan->op]++;
    ck_assert_double_eq (plan->bytes, bytes);
  }
}

/* Megatron's tensor parallelism of a transformer, no simulation: per layer
 * and micro-batch, four all-reduces of b s h elements (Narayanan et al.
 * 2021, section 3.3: the attention and the MLP each all-reduce their output
 * in forward and their input's gradient in backward), over the group of T;
 * per micro-batch also the vocabulary-parallel embedding's output and the
 * LM head's input gradient (b s h each) and the cross-entropy's three
 * numbers per token; nothing else. Each GPU holds 1/T of every split
 * matrix and of the token tables. */
START_TEST (test_tensor_parallel_transformer)
{
  const int T = 4, M = 2, b = 8 / M;
  g_auto (Built) bt = { 0 };
  build_hybrid (&bt, "tests/data/tiny-gpt.xml", T, M, 8, FALSE, DTS_RECOMPUTE_NONE);
  const DtsTransformer *t = &bt.w->transformer;
  int n[DTS_COLL_N_OPS] = { 0 }, n_loss;
  count_tp_colls (bt.s, T, (double) b * t->seq_len * t->hidden * 2, n,
                  (double) b * t->seq_len * 3 * 4, &n_loss);
  ck_assert_int_eq (n[DTS_COLL_OP_ALLREDUCE], (4 * t->layers + 2) * M);
  ck_assert_int_eq (n[DTS_COLL_OP_ALLGATHER] + n[DTS_COLL_OP_REDUCE_SCATTER], 0);
  ck_assert_int_eq (n_loss, M);
  /* every linear layer is split, and the token table; the norms and the
   * learned positions are not */
  double split = 0;
  for (guint i = 0; i < bt.w->layers->len; i++) {
    const DtsLayer *l = dts_workload_layer (bt.w, i);
    split += l->type == DTS_LAYER_LINEAR ? l->params : 0;
    split += l->type == DTS_LAYER_EMBEDDING ? (double) l->vocab * t->hidden : 0;
  }
  const DtsStage *stage = &g_array_index (bt.s->stages, DtsStage, 0);
  ck_assert_double_eq (stage->params, bt.w->params - split + split / T);
}
END_TEST

/* Sequence parallelism: each of the four all-reduces of a layer becomes an
 * all-gather before the column split and a reduce-scatter after the row
 * split, forward and backward: per layer and micro-batch four of each, of
 * the whole b s h tensor (the all-reduces' volume); plus one all-gather
 * before the final norm, which is not sequence-split, and one of the
 * embedding's output gradient; the embedding's output is reduce-scattered,
 * the LM head's input gradient all-reduced (the final norm is whole). */
START_TEST (test_sequence_parallel_volume)
{
  const int T = 4, M = 2, b = 8 / M;
  g_auto (Built) bt = { 0 };
  build_hybrid (&bt, "tests/data/tiny-gpt.xml", T, M, 8, TRUE, DTS_RECOMPUTE_NONE);
  const DtsTransformer *t = &bt.w->transformer;
  int n[DTS_COLL_N_OPS] = { 0 }, n_loss;
  count_tp_colls (bt.s, T, (double) b * t->seq_len * t->hidden * 2, n,
                  (double) b * t->seq_len * 3 * 4, &n_loss);
  ck_assert_int_eq (n[DTS_COLL_OP_ALLREDUCE], M);
  ck_assert_int_eq (n[DTS_COLL_OP_ALLGATHER], (4 * t->layers + 2) * M);
  ck_assert_int_eq (n[DTS_COLL_OP_REDUCE_SCATTER], (4 * t->layers + 1) * M);
  ck_assert_int_eq (n_loss, M);
}
END_TEST

/* Rank R's collectives tagged PURPOSE, in program order, each with its
 * coll the rank's own plan (dts_schedule_rank_plan). */
static GArray *
rank_colls (const DtsSchedule *s, int r, DtsCollPurpose purpose)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (DtsOp));
  const GArray *prog = dts_schedule_program (s, r);
  for (guint i = 0; i < prog->len; i++) {
    DtsOp op = g_array_index (prog, DtsOp, i);
    if (op.type != DTS_OP_COLL || op.purpose != purpose)
      continue;
    op.coll = dts_schedule_rank_plan (s, r, op.coll);
    g_array_append_val (out, op);
  }
  return out;
}

/* A mixture of experts under sequence parallelism (tiny-moe: 4 layers,
 * hidden 256, 128 tokens, 4 experts, top-2), as Megatron-LM's all-to-all
 * dispatcher moves it over the tensor-parallel group: per layer and
 * micro-batch the attention's two all-gathers and two reduce-scatters of
 * b s h elements, and the experts' two of each of the router's b s k h
 * copies (all-gathered before fc1 and before fc2's backward,
 * reduce-scattered after fc2 and after fc1's backward); plus, as for a
 * dense model, the final norm's and the embedding gradient's all-gathers,
 * the embedding's reduce-scatter and the LM head's all-reduce. The expert
 * weights split as the dense MLP's: 1/T of E (2 F h + F h) on every GPU. */
START_TEST (test_moe_sequence_parallel_volume)
{
  const int T = 2, M = 2, b = 8 / M;
  g_auto (Built) bt = { 0 };
  build_hybrid (&bt, "tests/data/tiny-moe.xml", T, M, 8, TRUE, DTS_RECOMPUTE_NONE);
  const DtsTransformer *t = &bt.w->transformer;
  double dense = (double) b * t->seq_len * t->hidden * 2;
  double routed = dense * t->top_k, loss = (double) b * t->seq_len * 3 * 4;
  int n_dense[DTS_COLL_N_OPS] = { 0 }, n_routed[DTS_COLL_N_OPS] = { 0 }, n_loss = 0;
  const GArray *prog = dts_schedule_program (bt.s, 0);
  for (guint k = 0; k < prog->len; k++) {
    const DtsOp *op = &g_array_index (prog, DtsOp, k);
    if (op->type != DTS_OP_COLL)
      continue;
    const DtsCollPlan *plan = g_ptr_array_index (bt.s->plans, op->coll);
    if (plan->bytes == loss && plan->op == DTS_COLL_OP_ALLREDUCE)
      n_loss++;
    else if (plan->bytes == routed)
      n_routed[plan->op]++;
    else {
      ck_assert_double_eq (plan->bytes, dense);
      n_dense[plan->op]++;
    }
  }
  ck_assert_int_eq (n_routed[DTS_COLL_OP_ALLGATHER], 2 * t->layers * M);
  ck_assert_int_eq (n_routed[DTS_COLL_OP_REDUCE_SCATTER], 2 * t->layers * M);
  ck_assert_int_eq (n_routed[DTS_COLL_OP_ALLREDUCE], 0);
  ck_assert_int_eq (n_dense[DTS_COLL_OP_ALLGATHER], (2 * t->layers + 2) * M);
  ck_assert_int_eq (n_dense[DTS_COLL_OP_REDUCE_SCATTER], (2 * t->layers + 1) * M);
  ck_assert_int_eq (n_dense[DTS_COLL_OP_ALLREDUCE], M);
  ck_assert_int_eq (n_loss, M);
  /* every linear layer is split (the experts' E matrices too) and the
   * token table; the routers and norms are whole on every GPU */
  double split = 0, experts = 0;
  for (guint i = 0; i < bt.w->layers->len; i++) {
    const DtsLayer *l = dts_workload_layer (bt.w, i);
    split += l->type == DTS_LAYER_LINEAR ? l->params : 0;
    split += l->type == DTS_LAYER_EMBEDDING ? (double) l->vocab * t->hidden : 0;
    experts += l->type == DTS_LAYER_LINEAR && l->experts > 1 ? l->params : 0;
  }
  ck_assert_double_eq (experts, (double) t->layers * t->experts * 3 * t->moe_ffn * t->hidden);
  const DtsStage *stage = &g_array_index (bt.s->stages, DtsStage, 0);
  ck_assert_double_eq (stage->params, bt.w->params - split + split / T);
}
END_TEST

/* --moe-imbalance X under expert parallelism: the layers between a router
 * and its combine (the experts' GEMMs and their activation) carry X times
 * the balanced tokens, so X times the FLOPs and the kept activations, and
 * every expert all-to-all moves X times the balanced bytes; the router,
 * the combine and the rest are untouched. */
START_TEST (test_moe_imbalance)
{
  const int EP = 4, M = 2;
  const double X = 1.5;
  double a2a[2] = { 0 }, flops[2][3] = { { 0 } }, act[2] = { 0 }, other[2] = { 0 };
  for (int k = 0; k < 2; k++) {
    DtsRunOptions o = {
      BUILD_OPTIONS, .batch_size = 8, .precision = DTS_PREC_FP16, .replicas.stages = 1, .replicas.dp = EP,
      .replicas.micro_batches = M, .replicas.tensor_parallel = 1, .replicas.expert_parallel = EP, .n_gpus = EP,
      .replicas.moe_imbalance = k ? X : 0,
    };
    g_auto (Built) bt = { 0 };
    build_with (&bt, "tests/data/tiny-moe.xml", &o);
    ck_assert_double_eq (bt.s->moe_imbalance, k ? X : 1.0);
    g_autoptr (GArray) colls = rank_colls (bt.s, 0, DTS_COLL_PURPOSE_EXPERT);
    ck_assert_int_eq (colls->len, 4 * bt.w->transformer.layers * M);
    for (guint i = 0; i < colls->len; i++) {
      const DtsCollPlan *plan
          = g_ptr_array_index (bt.s->plans, g_array_index (colls, DtsOp, i).coll);
      a2a[k] += plan->bytes;
    }
    const DtsStage *st = &g_array_index (bt.s->stages, DtsStage, 0);
    act[k] = st->memory.activations_bytes;
    const GArray *prog = dts_schedule_program (bt.s, 0);
    for (guint i = 0; i < prog->len; i++) {
      const DtsOp *op = &g_array_index (prog, DtsOp, i);
      if (op->type != DTS_OP_COMPUTE || op->layer < 0)
        continue;
      const DtsLayer *l = dts_workload_layer (bt.w, op->layer);
      gboolean routed = (l->type == DTS_LAYER_LINEAR && l->experts > 1)
                        || l->type == DTS_LAYER_SWIGLU;
      if (routed)
        flops[k][op->phase == DTS_PHASE_FORWARD ? 0 : op->phase == DTS_PHASE_BACKWARD_DATA ? 1
                                                                                            : 2]
            += op->duration_s;
      else
        other[k] += op->duration_s;
    }
  }
  ck_assert_double_eq_tol (a2a[1], X * a2a[0], 1e-6 * a2a[1]);
  /* the experts' layers take longer (their work, not linearly: the cost
   * model prices them), nothing else changes */
  for (int p = 0; p < 3; p++)
    ck_assert_double_gt (flops[1][p], flops[0][p]);
  ck_assert_double_eq_tol (other[1], other[0], 1e-12);
  ck_assert_double_gt (act[1], act[0]);
}
END_TEST

/* Tensor and sequence parallelism over latent attention (tiny-mla: 4
 * layers of hidden 256, 128 tokens, the first dense, the others 4 experts,
 * top-2, beside a shared expert; queries from a 96-wide latent, keys and
 * values from a 64-wide one), as Megatron-LM's MLASelfAttention splits it:
 * the down projections, their norms and the rotary key on 1/T of the
 * sequence with whole weights, the up projections column-split after an
 * all-gather of their latents (not of the hidden state), the heads split,
 * the output projection row-split. Per layer and micro-batch: an all-gather
 * and a reduce-scatter of each latent's b s q and b s c elements, of the
 * output projection's and the dense or shared MLP's b s h twice each, and
 * for the routed experts of b s k h twice each. */
START_TEST (test_latent_attention_tensor_parallel)
{
  const int T = 2, M = 2, b = 8 / M;
  g_auto (Built) bt = { 0 };
  build_hybrid (&bt, "tests/data/tiny-mla.xml", T, M, 8, TRUE, DTS_RECOMPUTE_NONE);
  const DtsTransformer *t = &bt.w->transformer;
  double tok = (double) b * t->seq_len * 2;
  double ql = tok * t->q_lora, kvl = tok * t->kv_lora, dense = tok * t->hidden;
  double routed = dense * t->top_k, loss = (double) b * t->seq_len * 3 * 4;
  int moe_layers = t->layers - t->dense_layers;
  int n[5][DTS_COLL_N_OPS] = { { 0 } };
  const GArray *prog = dts_schedule_program (bt.s, 0);
  for (guint k = 0; k < prog->len; k++) {
    const DtsOp *op = &g_array_index (prog, DtsOp, k);
    if (op->type != DTS_OP_COLL)
      continue;
    const DtsCollPlan *plan = g_ptr_array_index (bt.s->plans, op->coll);
    int kind = plan->bytes == ql ? 0 : plan->bytes == kvl ? 1 : plan->bytes == dense ? 2
               : plan->bytes == routed                    ? 3
                                                          : 4;
    if (kind == 4)
      ck_assert_double_eq (plan->bytes, loss);
    n[kind][plan->op]++;
  }
  for (int kind = 0; kind < 2; kind++) {
    ck_assert_int_eq (n[kind][DTS_COLL_OP_ALLGATHER], t->layers * M);
    ck_assert_int_eq (n[kind][DTS_COLL_OP_REDUCE_SCATTER], t->layers * M);
    ck_assert_int_eq (n[kind][DTS_COLL_OP_ALLREDUCE], 0);
  }
  /* and the embedding's reduce-scatter and gradient all-gather, the LM
   * head's all-gather and input gradient all-reduce */
  ck_assert_int_eq (n[2][DTS_COLL_OP_ALLGATHER], (3 * t->layers + 2) * M);
  ck_assert_int_eq (n[2][DTS_COLL_OP_REDUCE_SCATTER], (3 * t->layers + 1) * M);
  ck_assert_int_eq (n[2][DTS_COLL_OP_ALLREDUCE], M);
  ck_assert_int_eq (n[3][DTS_COLL_OP_ALLGATHER], 2 * moe_layers * M);
  ck_assert_int_eq (n[3][DTS_COLL_OP_REDUCE_SCATTER], 2 * moe_layers * M);
  ck_assert_int_eq (n[4][DTS_COLL_OP_ALLREDUCE], M);
  /* split: every linear but the down projections and the rotary key, and
   * the token table */
  double split = 0;
  for (guint i = 0; i < bt.w->layers->len; i++) {
    const DtsLayer *l = dts_workload_layer (bt.w, i);
    gboolean whole = g_str_has_suffix (l->name, "-down") || g_str_has_suffix (l->name, "k-rope");
    split += l->type == DTS_LAYER_LINEAR && !whole ? l->params : 0;
    split += l->type == DTS_LAYER_EMBEDDING ? (double) l->vocab * t->hidden : 0;
  }
  const DtsStage *stage = &g_array_index (bt.s->stages, DtsStage, 0);
  ck_assert_double_eq (stage->params, bt.w->params - split + split / T);
}
END_TEST

/* Expert parallelism over a stage's D = EP replicas (tiny-moe: 4 layers,
 * hidden 256, 128 tokens, 4 experts, top-2), no simulation: per MoE layer
 * and micro-batch two all-to-alls forward (dispatch after the router, the
 * copies back before the combine) and two backward, each of the GPU's
 * b s k h elements of 16 bits over its EP GPUs, tagged as expert
 * parallelism; the experts' gradients are in no bucket (each expert lives
 * on one GPU), so the buckets hold the dense parameters only; each GPU
 * holds 1/EP of the experts' weights. */
START_TEST (test_expert_parallel)
{
  const int EP = 4, M = 2, b = 8 / M;
  double weights[2];
  for (int k = 0; k < 2; k++) {
    int ep = k ? EP : 1;
    DtsRunOptions o = {
      BUILD_OPTIONS, .batch_size = 8, .precision = DTS_PREC_FP16, .replicas.stages = 1, .replicas.dp = EP,
      .replicas.micro_batches = M, .replicas.tensor_parallel = 1, .replicas.expert_parallel = ep, .n_gpus = EP,
    };
    g_auto (Built) bt = { 0 };
    build_with (&bt, "tests/data/tiny-moe.xml", &o);
    const DtsTransformer *t = &bt.w->transformer;
    const DtsStage *st = &g_array_index (bt.s->stages, DtsStage, 0);
    weights[k] = st->memory.weights_bytes;
    double experts = (double) t->layers * t->experts * 3 * t->moe_ffn * t->hidden;
    ck_assert_double_eq (st->params, bt.w->params - experts + experts / ep);
    double bucketed = 0;
    for (int bk = st->first_bucket; bk < st->first_bucket + st->n_buckets; bk++)
      bucketed += g_array_index (bt.s->buckets, DtsBucket, bk).params;
    ck_assert_double_eq (bucketed, ep > 1 ? bt.w->params - experts : bt.w->params);
    double bytes = (double) b * t->seq_len * t->top_k * t->hidden * 2;
    for (int r = 0; r < EP; r++) {
      g_autoptr (GArray) colls = rank_colls (bt.s, r, DTS_COLL_PURPOSE_EXPERT);
      for (guint i = 0; i < colls->len; i++) {
        int pk = g_array_index (colls, DtsOp, i).coll;
        const DtsCollPlan *plan = g_ptr_array_index (bt.s->plans, pk);
        const DtsCommunicator *group = g_ptr_array_index (bt.s->comms, bt.s->plan_comm[pk]);
        ck_assert_int_eq (plan->op, DTS_COLL_OP_ALLTOALL);
        ck_assert_int_eq (group->n_ranks, EP);
        ck_assert_double_eq (plan->bytes, bytes);
      }
      ck_assert_int_eq (colls->len, ep > 1 ? 4 * t->layers * M : 0);
    }
  }
  ck_assert_double_lt (weights[1], weights[0]);
}
END_TEST

/* The factor each expert all-to-all of rank 0 moves over the balanced
 * bytes, by the layer (router or combine) it follows or precedes, into
 * FACTOR (indexed by layer, -1 where none), BALANCED the bytes of the
 * balanced run's. */
static void
a2a_factors (const Built *bt, const Built *balanced, double *factor)
{
  for (guint l = 0; l < bt->w->layers->len; l++)
    factor[l] = -1;
  g_autoptr (GArray) colls = rank_colls (bt->s, 0, DTS_COLL_PURPOSE_EXPERT);
  g_autoptr (GArray) base = rank_colls (balanced->s, 0, DTS_COLL_PURPOSE_EXPERT);
  ck_assert_int_eq (colls->len, base->len);
  for (guint i = 0; i < colls->len; i++) {
    const DtsOp *op = &g_array_index (colls, DtsOp, i);
    const DtsCollPlan *plan = g_ptr_array_index (bt->s->plans, op->coll);
    const DtsCollPlan *b = g_ptr_array_index (balanced->s->plans,
                                              g_array_index (base, DtsOp, i).coll);
    double f = plan->bytes / b->bytes;
    if (factor[op->layer] >= 0)
      ck_assert_double_eq_tol (f, factor[op->layer], 1e-12);
    factor[op->layer] = f;
  }
}

/* Routing drawn per layer (--moe-imbalance dirichlet:A) and the capacity
 * factor (tiny-moe: 4 layers of 4 experts, top-2; EP 4, one expert a
 * GPU): each router's all-to-alls and its combine's move X_l times the
 * balanced bytes, 1 <= X_l <= EP, the schedule's imbalance the mean of the
 * X_l and its maximum the largest; the draw depends on --seed alone (the
 * same seed, the same X_l); a concentration of 1e6 is balanced within 1%;
 * a capacity factor F caps every X_l at F (dirichlet:0.3, F 1.5: some
 * layer at F) and caps a fixed --moe-imbalance 2 at 1.5 exactly; below 1,
 * without expert parallelism, every expert runs F of its tokens: less of
 * the experts' activations kept. */
START_TEST (test_moe_routing)
{
  const int EP = 4, M = 2;
  DtsRunOptions base = {
    BUILD_OPTIONS, .batch_size = 8, .precision = DTS_PREC_FP16, .replicas.stages = 1, .replicas.dp = EP,
    .replicas.micro_batches = M, .replicas.tensor_parallel = 1, .replicas.expert_parallel = EP, .n_gpus = EP, .seed = 42,
  };
  g_auto (Built) balanced = { 0 };
  DtsRunOptions o = base;
  build_with (&balanced, "tests/data/tiny-moe.xml", &o);
  int n = balanced.w->layers->len;
  g_autofree double *x = g_new (double, n);
  g_autofree double *again = g_new (double, n);
  g_autofree double *other = g_new (double, n);
  struct {
    double alpha, capacity, fixed;
    guint64 seed;
    double *out;
  } cases[] = { { 0.3, 0, 0, 42, x },   { 0.3, 0, 0, 42, again }, { 0.3, 0, 0, 7, other },
                { 1e6, 0, 0, 42, NULL }, { 0.3, 1.5, 0, 42, NULL }, { 0, 1.5, 2, 42, NULL } };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    o = base;
    o.replicas.moe_routing_alpha = cases[k].alpha;
    o.replicas.moe_capacity = cases[k].capacity;
    o.replicas.moe_imbalance = cases[k].fixed;
    o.seed = cases[k].seed;
    g_auto (Built) bt = { 0 };
    build_with (&bt, "tests/data/tiny-moe.xml", &o);
    g_autofree double *f = g_new (double, n);
    a2a_factors (&bt, &balanced, f);
    double sum = 0, most = 0;
    int routers = 0;
    for (int l = 0; l < n; l++) {
      const DtsLayer *layer = dts_workload_layer (bt.w, l);
      if (layer->type == DTS_LAYER_ROUTER) {
        ck_assert_double_ge (f[l], 1.0 - 1e-12);
        ck_assert_double_le (f[l], EP);
        if (o.replicas.moe_capacity > 0)
          ck_assert_double_le (f[l], o.replicas.moe_capacity + 1e-12);
        if (o.replicas.moe_routing_alpha >= 1e6)
          ck_assert_double_lt (f[l], 1.01);
        if (o.replicas.moe_imbalance > 0)
          ck_assert_double_eq_tol (f[l], 1.5, 1e-12);
        sum += f[l], most = MAX (most, f[l]), routers++;
      }
      /* a combine moves its router's factor: the layer its tokens came from */
      if (layer->type == DTS_LAYER_MOE_COMBINE) {
        int r = l;
        while (dts_workload_layer (bt.w, r)->type != DTS_LAYER_ROUTER)
          r--;
        ck_assert_double_eq_tol (f[l], f[r], 1e-12);
      }
    }
    ck_assert_int_eq (routers, bt.w->transformer.layers);
    assert_rel (bt.s->moe_imbalance, sum / routers, 1e-12);
    if (o.replicas.moe_routing_alpha > 0)
      ck_assert_double_eq (bt.s->moe_imbalance_max, most);
    if (o.replicas.moe_routing_alpha > 0 && o.replicas.moe_capacity > 0)
      ck_assert_double_eq_tol (most, o.replicas.moe_capacity, 1e-12);
    if (cases[k].out != NULL)
      memcpy (cases[k].out, f, sizeof (double) * n);
  }
  gboolean differs = FALSE;
  for (int l = 0; l < n; l++) {
    ck_assert_double_eq (x[l], again[l]);
    differs = differs || x[l] != other[l];
  }
  ck_assert (differs);
  /* below 1, without expert parallelism: fewer tokens at every expert */
  double act[2];
  for (int k = 0; k < 2; k++) {
    o = base;
    o.replicas.expert_parallel = 1;
    o.replicas.moe_capacity = k ? 0.5 : 0;
    g_auto (Built) bt = { 0 };
    build_with (&bt, "tests/data/tiny-moe.xml", &o);
    act[k] = g_array_index (bt.s->stages, DtsStage, 0).memory.activations_bytes;
    ck_assert_double_eq (bt.s->moe_imbalance, k ? 0.5 : 1.0);
  }
  ck_assert_double_lt (act[1], act[0]);
}
END_TEST

/* Expert data parallelism (tiny-moe: 4 layers of 4 experts, top-2) on 8
 * replicas with EP 2 and 4, with and without the distributed optimizer,
 * without and with tensor parallelism (TP 2, sequence parallel): every
 * rank's all-to-alls run over its EP consecutive replicas (of its tensor
 * rank); its gradient stream reduces the dense parameters' gradients over
 * the 8 and the experts' (E/EP of every layer's, 1/TP of each) over the
 * 8/EP replicas that hold the same experts (d = e mod EP), each parameter
 * once per iteration (under --zero 1 gathered once too, over the same
 * groups); the optimizer states are then 1/8 of the GPU's share of all the
 * parameters with --zero 1, as without expert parallelism, and the
 * rank's own parameters' without. */
START_TEST (test_expert_data_parallel)
{
  const int D = 8, M = 2;
  for (int k = 0; k < 8; k++) {
    int EP = k % 2 ? 4 : 2, zero = k / 2 % 2, T = k / 4 ? 2 : 1;
    DtsRunOptions o = {
      BUILD_OPTIONS, .batch_size = 16, .precision = DTS_PREC_FP16, .replicas.stages = 1, .replicas.dp = D,
      .replicas.micro_batches = M, .replicas.tensor_parallel = T, .sequence_parallel = T > 1,
      .replicas.expert_parallel = EP, .n_gpus = D * T, .replicas.zero = zero,
    };
    g_auto (Built) bt = { 0 };
    build_with (&bt, "tests/data/tiny-moe.xml", &o);
    const DtsTransformer *t = &bt.w->transformer;
    const DtsStage *st = &g_array_index (bt.s->stages, DtsStage, 0);
    double experts = (double) t->layers * t->experts * 3 * t->moe_ffn * t->hidden;
    double mine = experts / EP / T; /* the experts' parameters on one GPU */
    if (T == 1)
      ck_assert_double_eq (st->params, bt.w->params - experts + mine);
    for (int r = 0; r < D * T; r++) {
      int d = r / T, tr = r % T;
      g_autoptr (GArray) colls = rank_colls (bt.s, r, DTS_COLL_PURPOSE_EXPERT);
      ck_assert_int_eq (colls->len, 4 * t->layers * M);
      for (guint i = 0; i < colls->len; i++) {
        int pk = g_array_index (colls, DtsOp, i).coll;
        const DtsCommunicator *group = g_ptr_array_index (bt.s->comms, bt.s->plan_comm[pk]);
        ck_assert_int_eq (group->n_ranks, EP);
        for (int m = 0; m < EP; m++)
          ck_assert_int_eq (group->ranks[m], (d / EP * EP + m) * T + tr);
      }
      /* the gradient stream: reductions and gathers, by group */
      double reduced[2] = { 0, 0 }, gathered[2] = { 0, 0 };
      int streams = 0;
      for (guint i = 0; i < bt.s->streams->len; i++) {
        const DtsStream *sm = &g_array_index (bt.s->streams, DtsStream, i);
        if (sm->rank != r || sm->kind != DTS_STREAM_COMM || sm->index != 0)
          continue;
        streams++;
        const GArray *prog = g_ptr_array_index (bt.s->programs, sm->program);
        for (guint j = 0; j < prog->len; j++) {
          const DtsOp *op = &g_array_index (prog, DtsOp, j);
          if (op->type != DTS_OP_COLL)
            continue;
          int pk = dts_schedule_rank_plan (bt.s, r, op->coll);
          const DtsCollPlan *plan = g_ptr_array_index (bt.s->plans, pk);
          const DtsCommunicator *group = g_ptr_array_index (bt.s->comms, bt.s->plan_comm[pk]);
          gboolean ex = group->n_ranks != D;
          if (ex) {
            ck_assert_int_eq (group->n_ranks, D / EP);
            for (int m = 0; m < D / EP; m++)
              ck_assert_int_eq (group->ranks[m], (m * EP + d % EP) * T + tr);
          } else {
            for (int m = 0; m < D; m++)
              ck_assert_int_eq (group->ranks[m], m * T + tr);
          }
          if (plan->op == DTS_COLL_OP_ALLGATHER)
            gathered[ex] += plan->bytes / 2; /* fp16 parameters */
          else {
            ck_assert_int_eq (plan->op, zero ? DTS_COLL_OP_REDUCE_SCATTER
                                             : DTS_COLL_OP_ALLREDUCE);
            const DtsBucket *bk = &g_array_index (bt.s->buckets, DtsBucket, op->bucket);
            reduced[ex] += bk->params;
          }
        }
      }
      ck_assert_int_eq (streams, 1);
      ck_assert_double_eq (reduced[0], st->params - mine);
      ck_assert_double_eq (reduced[1], mine);
      ck_assert_double_eq (gathered[0], zero ? st->params - mine : 0);
      ck_assert_double_eq (gathered[1], zero ? mine : 0);
    }
    double opt = dts_workload_optimizer_state_bytes_per_param (bt.w);
    double all = st->params - mine + mine * EP; /* the GPU's share, experts as dense */
    assert_rel (st->memory.optimizer_bytes, opt * (zero ? all / D : st->params), 1e-12);
  }
}
END_TEST

/* Context parallelism over rings of C (tiny-gpt: 4 layers, 8 heads of 32,
 * 128 tokens, fused attention), TP 2 with sequence parallelism, one
 * data-parallel replica, no simulation: per attention layer and
 * micro-batch an all-gather of the sequence's keys and values forward,
 * another and a reduce-scatter of their gradients backward, over the ring
 * of C, each of b x 2 x seq x (kv-heads / T) x head-dim elements of 16
 * bits, tagged as the context exchange; every GPU keeps 1/C of the
 * activations, all the weights, and the gradients are synchronised over
 * the D x C GPUs of the tensor rank. */
START_TEST (test_context_parallel)
{
  const int T = 2, C = 2, M = 2, b = 8 / M;
  double act[2];
  for (int k = 0; k < 2; k++) {
    int c = k ? C : 1;
    DtsRunOptions o = {
      BUILD_OPTIONS, .batch_size = 8, .precision = DTS_PREC_FP16, .replicas.stages = 1, .replicas.dp = 1,
      .replicas.micro_batches = M, .replicas.tensor_parallel = T, .sequence_parallel = TRUE,
      .replicas.context_parallel = c, .n_gpus = T * c,
    };
    g_auto (Built) bt = { 0 };
    build_with (&bt, "tests/data/tiny-gpt.xml", &o);
    const DtsTransformer *t = &bt.w->transformer;
    const DtsStage *st = &g_array_index (bt.s->stages, DtsStage, 0);
    act[k] = st->memory.activations_bytes;
    ck_assert_int_eq (bt.s->samples_per_iteration, 8);
    ck_assert_int_eq (st->n_replicas, c);
    if (c == 1)
      continue;
    const DtsCommunicator *grad = g_ptr_array_index (bt.s->comms, st->comm);
    ck_assert_int_eq (grad->n_ranks, C);
    double bytes = (double) b * 2 * t->seq_len * (t->kv_heads / T) * t->head_dim * 2;
    for (int r = 0; r < T * C; r++) {
      g_autoptr (GArray) colls = rank_colls (bt.s, r, DTS_COLL_PURPOSE_CONTEXT);
      int n[DTS_COLL_N_OPS] = { 0 };
      for (guint i = 0; i < colls->len; i++) {
        const DtsOp *op = &g_array_index (colls, DtsOp, i);
        int pk = op->coll;
        const DtsCollPlan *plan = g_ptr_array_index (bt.s->plans, pk);
        const DtsCommunicator *ring = g_ptr_array_index (bt.s->comms, bt.s->plan_comm[pk]);
        ck_assert_int_eq (ring->n_ranks, C);
        ck_assert_int_ge (ring->member_of[r], 0); /* its own tensor rank's ring */
        ck_assert_double_eq (plan->bytes, bytes);
        ck_assert_int_eq (dts_workload_layer (bt.w, op->layer)->type, DTS_LAYER_ATTENTION);
        n[plan->op]++;
      }
      ck_assert_int_eq (n[DTS_COLL_OP_ALLGATHER], 2 * t->layers * M);
      ck_assert_int_eq (n[DTS_COLL_OP_REDUCE_SCATTER], t->layers * M);
      ck_assert_int_eq (n[DTS_COLL_OP_ALLREDUCE], 0);
    }
  }
  ck_assert_double_eq_tol (act[1], act[0] / C, 1e-6 * act[0]);
}
END_TEST

/* --tp-overlap: every tensor-parallel collective moves to the rank's tensor
 * stream, handed over and waited for one by one (as many handed over as
 * waited for, in order); the compute is the same work, cut where a
 * collective runs beside it; backward adds each column layer's input
 * all-gather before its data gradient (2 per transformer layer and
 * micro-batch under sequence parallelism); all cuts the 4 GEMMs of a
 * layer's forward (ring exchange, pipelined reduce-scatter: its last
 * chunk's reduce-scatter apart) and its 2 row layers' data gradients (ring
 * exchange). */
START_TEST (test_tp_overlap)
{
  const int T = 2, M = 2;
  int colls[DTS_TP_OVERLAP_COUNT], fwd_ops[DTS_TP_OVERLAP_COUNT], bwd_ops[DTS_TP_OVERLAP_COUNT];
  double total[DTS_TP_OVERLAP_COUNT];
  int layers = 0;
  for (int k = 0; k < DTS_TP_OVERLAP_COUNT; k++) {
    DtsRunOptions o = {
      BUILD_OPTIONS, .batch_size = 8, .precision = DTS_PREC_FP16, .replicas.stages = 1, .replicas.dp = 1,
      .replicas.micro_batches = M, .replicas.tensor_parallel = T, .sequence_parallel = TRUE, .n_gpus = T,
      .replicas.tp_overlap = k,
    };
    g_auto (Built) bt = { 0 };
    build_with (&bt, "tests/data/tiny-gpt.xml", &o);
    layers = bt.w->transformer.layers;
    const GArray *prog = dts_schedule_program (bt.s, 0);
    const GArray *tensor = NULL;
    for (guint i = 0; i < bt.s->streams->len; i++) {
      const DtsStream *st = &g_array_index (bt.s->streams, DtsStream, i);
      if (st->rank == 0 && st->kind == DTS_STREAM_COMM && st->index == 1)
        tensor = g_ptr_array_index (bt.s->programs, st->program);
    }
    ck_assert_int_eq (tensor != NULL, k != DTS_TP_OVERLAP_NONE);
    int on_compute = 0, waits = 0, go = -1;
    fwd_ops[k] = bwd_ops[k] = 0;
    total[k] = 0;
    for (guint i = 0; i < prog->len; i++) {
      const DtsOp *op = &g_array_index (prog, DtsOp, i);
      on_compute += op->type == DTS_OP_COLL && op->purpose == DTS_COLL_PURPOSE_TENSOR;
      waits += op->type == DTS_OP_WAIT && op->wait == DTS_WAIT_TENSOR;
      fwd_ops[k] += op->type == DTS_OP_COMPUTE && op->phase == DTS_PHASE_FORWARD;
      bwd_ops[k] += op->type == DTS_OP_COMPUTE && op->phase == DTS_PHASE_BACKWARD_DATA;
      if (op->type == DTS_OP_COMPUTE)
        total[k] += op->duration_s;
    }
    if (tensor == NULL) {
      colls[k] = on_compute;
      ck_assert_int_eq (waits, 0);
      continue;
    }
    ck_assert_int_eq (on_compute, 0);
    /* the tensor stream: wait for the hand-over, run it, record it done */
    colls[k] = 0;
    for (guint i = 0; i < tensor->len; i++) {
      const DtsOp *op = &g_array_index (tensor, DtsOp, i);
      ck_assert_int_eq (op->type, i % 3 == 0 ? DTS_OP_WAIT : i % 3 == 1 ? DTS_OP_COLL
                                                                        : DTS_OP_RECORD);
      if (i % 3 == 0)
        go = op->event;
      if (op->type == DTS_OP_COLL) {
        ck_assert_int_eq (op->purpose, DTS_COLL_PURPOSE_TENSOR);
        colls[k]++;
      }
    }
    ck_assert_int_eq (tensor->len % 3, 0);
    int handed = 0;
    for (guint i = 0; i < prog->len; i++) {
      const DtsOp *op = &g_array_index (prog, DtsOp, i);
      handed += op->type == DTS_OP_RECORD && op->event == go;
    }
    ck_assert_int_eq (handed, colls[k]);
    ck_assert_int_eq (waits, colls[k]);
  }
  ck_assert_int_gt (colls[DTS_TP_OVERLAP_NONE], 0);
  /* all: each row layer's forward reduce-scatter in two, the last chunk's after the GEMM */
  for (int k = DTS_TP_OVERLAP_BACKWARD; k <= DTS_TP_OVERLAP_ALL; k++) {
    ck_assert_int_eq (colls[k], colls[DTS_TP_OVERLAP_NONE] + 2 * layers * M
                                    + (k == DTS_TP_OVERLAP_ALL ? 2 * layers * M : 0));
    ck_assert_double_eq_tol (total[k], total[DTS_TP_OVERLAP_NONE],
                             1e-12 * total[DTS_TP_OVERLAP_NONE]);
  }
  ck_assert_int_eq (fwd_ops[DTS_TP_OVERLAP_BACKWARD], fwd_ops[DTS_TP_OVERLAP_NONE]);
  ck_assert_int_eq (bwd_ops[DTS_TP_OVERLAP_BACKWARD], bwd_ops[DTS_TP_OVERLAP_NONE]);
  ck_assert_int_eq (fwd_ops[DTS_TP_OVERLAP_ALL], fwd_ops[DTS_TP_OVERLAP_NONE] + 4 * layers * M);
  ck_assert_int_eq (bwd_ops[DTS_TP_OVERLAP_ALL], bwd_ops[DTS_TP_OVERLAP_NONE] + 2 * layers * M);
}
END_TEST

/* Plan maps: the data-parallel replicas of a stage under tensor (and
 * context) parallelism share their programs, each replica's collectives
 * mapped onto its own groups' plans. On 2 stages x 2 replicas x (T 2, C 1),
 * (T 2, C 2) and (T 1, C 2), every --tp-overlap mode under TP: every collective that any stream of any rank runs, once mapped,
 * is a plan of a communicator the rank is a member of; the GPUs of a
 * stage run one compute program (every tensor rank, ring member and
 * replica: they differ only in their groups); the second replica has a
 * map. And the matcher refuses
 * programs that differ in anything but plans, or whose plans do not
 * correspond one to one in order. */
START_TEST (test_plan_maps)
{
  const int S = 2, D = 2;
  for (int T = 1; T <= 2; T++)
  for (int c = 3 - T; c <= 2; c++)
    for (int k = 0; k < (T > 1 ? DTS_TP_OVERLAP_COUNT : 1); k++) {
      DtsRunOptions o = {
        BUILD_OPTIONS, .batch_size = 8, .precision = DTS_PREC_FP16, .replicas.stages = S, .replicas.dp = D,
        .replicas.micro_batches = 2, .replicas.tensor_parallel = T, .sequence_parallel = TRUE,
        .replicas.context_parallel = c, .n_gpus = S * D * T * c, .replicas.tp_overlap = k,
      };
      g_auto (Built) bt = { 0 };
      build_with (&bt, "tests/data/tiny-gpt.xml", &o);
      const DtsSchedule *s = bt.s;
      int checked = 0;
      for (guint i = 0; i < s->streams->len; i++) {
        const DtsStream *st = &g_array_index (s->streams, DtsStream, i);
        const GArray *prog = g_ptr_array_index (s->programs, st->program);
        for (guint j = 0; j < prog->len; j++) {
          const DtsOp *op = &g_array_index (prog, DtsOp, j);
          if (op->type != DTS_OP_COLL)
            continue;
          int plan = dts_schedule_rank_plan (s, st->rank, op->coll);
          const DtsCommunicator *cm = g_ptr_array_index (s->comms, s->plan_comm[plan]);
          ck_assert_int_ge (cm->member_of[st->rank], 0);
          checked++;
        }
      }
      ck_assert_int_gt (checked, 0);
      ck_assert (s->plan_maps != NULL);
      g_autoptr (GHashTable) programs = g_hash_table_new (NULL, NULL);
      for (int r = 0; r < s->n_ranks; r++)
        g_hash_table_add (programs, GINT_TO_POINTER (s->rank_program[r]));
      ck_assert_int_eq (g_hash_table_size (programs), S);
      /* ranks go tensor rank, then ring, then replica: the first replica
       * of stage 0 runs its programs' own plans, the second has a map */
      const DtsStage *st0 = &g_array_index (s->stages, DtsStage, 0);
      ck_assert_int_lt (s->rank_plan_map[st0->ranks[0]], 0);
      ck_assert_int_ge (s->rank_plan_map[st0->ranks[st0->n_ranks - 1]], 0);
    }
  /* the matcher */
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (DtsOp));
  g_autoptr (GArray) b = g_array_new (FALSE, TRUE, sizeof (DtsOp));
  DtsOp gemm = { .type = DTS_OP_COMPUTE, .phase = DTS_PHASE_FORWARD, .duration_s = 1e-3 };
  DtsOp coll = { .type = DTS_OP_COLL, .coll = 0, .part = -1 };
  g_array_append_val (a, gemm);
  g_array_append_val (a, coll);
  g_array_append_val (a, coll);
  coll.coll = 5;
  g_array_append_val (b, gemm);
  g_array_append_val (b, coll);
  g_array_append_val (b, coll);
  g_autoptr (GArray) map = g_array_new (FALSE, FALSE, sizeof (int));
  ck_assert (dts_schedule_program_match (a, b, map));
  ck_assert_int_eq (g_array_index (map, int, 0), 5);
  /* plan 0 cannot stand for 5 and for 6 */
  g_array_index (b, DtsOp, 2).coll = 6;
  g_array_set_size (map, 0);
  ck_assert (!dts_schedule_program_match (a, b, map));
  /* nor can a map made for one program take another plan for it */
  g_array_index (b, DtsOp, 2).coll = 5;
  g_array_set_size (map, 0);
  int seven = 7;
  g_array_append_val (map, seven);
  ck_assert (!dts_schedule_program_match (a, b, map));
  /* anything else that differs */
  g_array_set_size (map, 0);
  g_array_index (b, DtsOp, 0).duration_s = 2e-3;
  ck_assert (!dts_schedule_program_match (a, b, map));
  g_array_index (b, DtsOp, 0).duration_s = 1e-3;
  g_array_index (b, DtsOp, 1).purpose = DTS_COLL_PURPOSE_TENSOR;
  ck_assert (!dts_schedule_program_match (a, b, map));
  g_array_set_size (b, 2);
  ck_assert (!dts_schedule_program_match (a, b, map));
}
END_TEST

/* build_hybrid of one micro-batch on the workload XML (a file written and
 * removed here). */
static void
build_hybrid_xml (Built *b, const char *xml, int T, int B, gboolean sp, DtsRecompute recompute)
{
  g_autofree char *wpath = dts_test_write_tmp (xml, ".xml");
  build_hybrid (b, wpath, T, 1, B, sp, recompute);
  g_unlink (wpath);
}

/* Activation memory of a stage of one tensor-parallel group of T holding a
 * whole GPT of LAYERS layers (hidden 256, 8 heads, 128 tokens, dropout 0.1,
 * unfused attention, fp16), one micro-batch of B sequences. */
static double
gpt_stage_activations (int layers, int T, int B, DtsRecompute recompute, gboolean sp)
{
  g_autofree char *xml = g_strdup_printf (
      "<model name='g'><transformer layers='%d' hidden='256' heads='8' vocab='1000' "
      "seq-len='128' dropout='0.1' attention='unfused'/></model>\n", layers);
  g_auto (Built) bt = { 0 };
  build_hybrid_xml (&bt, xml, T, B, sp, recompute);
  return g_array_index (bt.s->stages, DtsStage, 0).memory.activations_bytes;
}

/* Korthikanti et al. 2022, eq. 2 and section 4: the activations one
 * transformer layer keeps per GPU of a tensor-parallel group of t, in bytes
 * at 16 bits, are s b h (10 + 24 / t + 5 a s / (h t)) without
 * recomputation, s b h (10 + 24 / t) with selective recomputation and
 * 2 s b h with full (the layer's input). One layer is the difference
 * between a model of 3 layers and one of 2. */
START_TEST (test_activation_memory_korthikanti)
{
  const double s = 128, h = 256, a = 8, b = 2;
  static const int tps[] = { 1, 2, 4 };
  for (guint k = 0; k < G_N_ELEMENTS (tps); k++) {
    double t = tps[k];
    double none = gpt_stage_activations (3, tps[k], 2, DTS_RECOMPUTE_NONE, FALSE)
                  - gpt_stage_activations (2, tps[k], 2, DTS_RECOMPUTE_NONE, FALSE);
    double sel = gpt_stage_activations (3, tps[k], 2, DTS_RECOMPUTE_SELECTIVE, FALSE)
                 - gpt_stage_activations (2, tps[k], 2, DTS_RECOMPUTE_SELECTIVE, FALSE);
    double full = gpt_stage_activations (3, tps[k], 2, DTS_RECOMPUTE_FULL, FALSE)
                  - gpt_stage_activations (2, tps[k], 2, DTS_RECOMPUTE_FULL, FALSE);
    ck_assert_double_eq_tol (none, s * b * h * (10 + 24 / t + 5 * a * s / (h * t)), 1e-6);
    ck_assert_double_eq_tol (sel, s * b * h * (10 + 24 / t), 1e-6);
    ck_assert_double_eq_tol (full, 2 * s * b * h, 1e-6);
  }
  /* with sequence parallelism (section 4.2.2, Table 2): s b h (34/t +
   * 5 a s / (h t)), s b h 34/t selective, 2 s b h / t full */
  for (guint k = 1; k < G_N_ELEMENTS (tps); k++) {
    double t = tps[k];
    double none = gpt_stage_activations (3, tps[k], 2, DTS_RECOMPUTE_NONE, TRUE)
                  - gpt_stage_activations (2, tps[k], 2, DTS_RECOMPUTE_NONE, TRUE);
    double sel = gpt_stage_activations (3, tps[k], 2, DTS_RECOMPUTE_SELECTIVE, TRUE)
                 - gpt_stage_activations (2, tps[k], 2, DTS_RECOMPUTE_SELECTIVE, TRUE);
    double full = gpt_stage_activations (3, tps[k], 2, DTS_RECOMPUTE_FULL, TRUE)
                  - gpt_stage_activations (2, tps[k], 2, DTS_RECOMPUTE_FULL, TRUE);
    ck_assert_double_eq_tol (none, s * b * h * (34 / t + 5 * a * s / (h * t)), 1e-6);
    ck_assert_double_eq_tol (sel, s * b * h * 34 / t, 1e-6);
    ck_assert_double_eq_tol (full, 2 * s * b * h / t, 1e-6);
  }
}
END_TEST

/* Rank 0's forward time in the attention core of a one-layer GPT (hidden
 * 256, 8 heads, 512 tokens, fp16) with ATTENTION kernel, split over T,
 * one micro-batch of B sequences. */
static double
attention_forward_s (const char *attention, int T, int B)
{
  g_autofree char *xml = g_strdup_printf (
      "<model name='g'><transformer layers='1' hidden='256' heads='8' vocab='1000' "
      "seq-len='512' attention='%s'/></model>\n", attention);
  g_auto (Built) bt = { 0 };
  build_hybrid_xml (&bt, xml, T, B, FALSE, DTS_RECOMPUTE_NONE);
  const GArray *prog = dts_schedule_program (bt.s, 0);
  double t = 0.0;
  for (guint i = 0; i < prog->len; i++) {
    const DtsOp *op = &g_array_index (prog, DtsOp, i);
    if (op->type == DTS_OP_COMPUTE && op->layer >= 0 && op->phase == DTS_PHASE_FORWARD
        && dts_workload_layer (bt.w, op->layer)->type == DTS_LAYER_ATTENTION)
      t += op->duration_s;
  }
  return t;
}

/* Tensor parallelism splits attention by heads: a GPU of T computes 1/T of
 * the heads' work, and an unfused kernel writes and reads 1/T of the
 * heads' score matrices (it once priced every head's on every GPU). The
 * sample's share of the time (the time of two sequences less one's: the
 * kernels' launches cancel) is 1/T of one GPU's. */
START_TEST (test_tensor_parallel_attention_time)
{
  static const char *const kernels[] = { "unfused", "flash" };
  for (guint k = 0; k < G_N_ELEMENTS (kernels); k++) {
    double one = attention_forward_s (kernels[k], 1, 2) - attention_forward_s (kernels[k], 1, 1);
    ck_assert_double_gt (one, 0.0);
    for (int T = 2; T <= 8; T *= 2) {
      double split
          = attention_forward_s (kernels[k], T, 2) - attention_forward_s (kernels[k], T, 1);
      ck_assert_msg (fabs (split - one / T) <= 1e-9 * one, "%s, T %d: %g s per sequence, not %g",
                     kernels[k], T, split, one / T);
    }
  }
}
END_TEST

/* Recomputation in time, data parallel: full runs the forward of every
 * layer of the blocks again in backward, selective the attention's; the
 * forward itself does not change. */
START_TEST (test_recompute_time)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *wpath = dts_test_srcpath ("tests/data/tiny-gpt.xml");
  g_autofree char *ppath = dts_test_srcpath ("tests/data/flat-16.xml");
  g_autoptr (DtsWorkload) w = dts_workload_load (wpath, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  DtsGpuCatalog *cat = dts_gpu_catalog_load (NULL, &error);
  g_autoptr (DtsPlatform) p = dts_platform_load (ppath, cat, &error);
  ck_assert_msg (p != NULL, "%s", error ? error->message : "");
  g_autoptr (DtsCost) cost = dts_cost_new ("roofline", &error);
  const DtsGpuSpec *gpu = &dts_platform_gpu (p, 0)->spec;
  double block_fwd = 0, attn_fwd = 0;
  for (guint l = 1; l < w->layers->len; l++) {
    const DtsLayer *layer = dts_workload_layer (w, l);
    DtsLayerTimes t;
    ck_assert (dts_cost_layer_times (cost, layer, gpu, DTS_PREC_FP16, 8, &t, &error));
    block_fwd += layer->block >= 0 ? t.fwd_s : 0;
    attn_fwd += layer->type == DTS_LAYER_ATTENTION ? t.fwd_s : 0;
  }
  ck_assert (attn_fwd > 0 && block_fwd > attn_fwd);
  DtsComputeTotals tot[DTS_RECOMPUTE_COUNT];
  for (int r = 0; r < DTS_RECOMPUTE_COUNT; r++) {
    DtsRunOptions o = {
      .batch_size = 8, .iterations = 1, .precision = DTS_PREC_FP16, .cost_model = "roofline",
      .collective = "ring", .bucket_bytes = DTS_RUN_DEFAULT_BUCKET_BYTES,
      .chunk_bytes = DTS_COLL_DEFAULT_CHUNK_BYTES, .channels = 1, .overlap = TRUE,
      .strategy = "dp", .n_gpus = 1, .recompute = r,
    };
    const DtsStrategy *st = dts_schedule_strategy_lookup ("dp");
    g_autoptr (DtsSchedule) s = st->schedule_new (w, p, cost, &o, &error);
    ck_assert_msg (s != NULL, "%s", error ? error->message : "");
    tot[r] = g_array_index (s->totals, DtsComputeTotals, s->rank_program[0]);
  }
  const DtsComputeTotals *none = &tot[DTS_RECOMPUTE_NONE];
  ck_assert_double_eq_tol (tot[DTS_RECOMPUTE_FULL].total_s - none->total_s, block_fwd, 1e-12);
  ck_assert_double_eq_tol (tot[DTS_RECOMPUTE_SELECTIVE].total_s - none->total_s, attn_fwd, 1e-12);
  ck_assert_double_eq (tot[DTS_RECOMPUTE_FULL].phase_s[DTS_PHASE_FORWARD],
                       none->phase_s[DTS_PHASE_FORWARD]);
  /* the recomputed forwards are a phase of their own; the backward's
   * phases are those of no recomputation */
  ck_assert_double_eq (none->phase_s[DTS_PHASE_RECOMPUTE], 0);
  ck_assert_double_eq_tol (tot[DTS_RECOMPUTE_FULL].phase_s[DTS_PHASE_RECOMPUTE], block_fwd, 1e-12);
  ck_assert_double_eq_tol (tot[DTS_RECOMPUTE_SELECTIVE].phase_s[DTS_PHASE_RECOMPUTE], attn_fwd,
                           1e-12);
  for (int r = 0; r < DTS_RECOMPUTE_COUNT; r++) {
    ck_assert_double_eq (tot[r].phase_s[DTS_PHASE_BACKWARD_DATA],
                         none->phase_s[DTS_PHASE_BACKWARD_DATA]);
    ck_assert_double_eq (tot[r].phase_s[DTS_PHASE_BACKWARD_WEIGHT],
                         none->phase_s[DTS_PHASE_BACKWARD_WEIGHT]);
  }
  /* and a model without blocks or attention refuses the option */
  g_autofree char *cnn = dts_test_srcpath ("tests/data/mlp8.xml");
  g_autoptr (DtsWorkload) m = dts_workload_load (cnn, &error);
  ck_assert (m != NULL);
  ck_assert (!dts_schedule_check_recompute (m, DTS_RECOMPUTE_FULL, &error));
  dts_test_assert_error (error, DTS_ERROR_USAGE, "has no repeated blocks", NULL);
  g_clear_error (&error);
  ck_assert (!dts_schedule_check_recompute (m, DTS_RECOMPUTE_SELECTIVE, &error));
  dts_test_assert_error (error, DTS_ERROR_USAGE, "has no attention layer", NULL);
  g_clear_error (&error);
  ck_assert (dts_schedule_check_recompute (w, DTS_RECOMPUTE_FULL, &error));
  dts_gpu_catalog_free (cat);
}
END_TEST

static void
assert_fails (const Setup *st, int code, const char *fragment)
{
  Outcome o = run (st);
  ck_assert_msg (!o.ok, "expected an error containing '%s'", fragment);
  ck_assert_int_eq (o.code, code);
  ck_assert_msg (strstr (o.message, fragment) != NULL, "'%s' not in '%s'", fragment, o.message);
}

/* tiny-gpt in 2 stages of D replicas, fp16 (bf16 alike), 4 micro-batches, small buckets
 * (several per stage). */
static void
build_zero (Built *b, int D, int zero, gboolean gather_overlap)
{
  DtsRunOptions o = {
    BUILD_OPTIONS, .batch_size = 4 * D, .precision = DTS_PREC_FP16, .replicas.stages = 2, .replicas.dp = D,
    .replicas.micro_batches = 4, .replicas.zero = zero, .replicas.param_gather_overlap = gather_overlap,
  };
  o.bucket_bytes = 2e5;
  build_with (b, "tests/data/tiny-gpt.xml", &o);
}

/* Model state per parameter, fp16 or bf16 with fp32 gradients and Adam: 2 + 4 +
 * 12 / D bytes with the distributed optimizer (the 16-bit weights and the
 * fp32 gradients whole, the fp32 main weights and Adam's two moments
 * sharded over the D replicas), 18 without it; --zero 2 also 1/D of the
 * gradients, and the bucket being reduced. */
START_TEST (test_zero_model_state)
{
  const int D = 4;
  g_auto (Built) plain = { 0 };
  g_auto (Built) zero = { 0 };
  g_auto (Built) two = { 0 };
  build_zero (&plain, D, 0, FALSE);
  build_zero (&zero, D, 1, FALSE);
  build_zero (&two, D, 2, FALSE);
  ck_assert_double_eq (dts_workload_optimizer_state_bytes_per_param (plain.w), 8);
  for (int i = 0; i < 2; i++) {
    const DtsStage *a = &g_array_index (plain.s->stages, DtsStage, i);
    const DtsStage *z = &g_array_index (zero.s->stages, DtsStage, i);
    ck_assert_double_eq (a->params, z->params);
    double state_a = a->memory.weights_bytes + a->memory.gradients_bytes + a->memory.optimizer_bytes;
    double state_z = z->memory.weights_bytes + z->memory.gradients_bytes + z->memory.optimizer_bytes;
    ck_assert_double_eq_tol (state_a / a->params, 18, 1e-12);
    ck_assert_double_eq_tol (state_z / z->params, 2 + 4 + 12.0 / D, 1e-12);
    ck_assert_double_eq (z->memory.activations_bytes, a->memory.activations_bytes);
    /* ZeRO-2: 1/D of the fp32 gradients and the stage's largest bucket,
     * the one being reduced (at most the other (D-1)/D) */
    const DtsStage *t = &g_array_index (two.s->stages, DtsStage, i);
    double g = 4 * t->params, biggest = 0;
    for (int b = t->first_bucket; b < t->first_bucket + t->n_buckets; b++)
      biggest = MAX (biggest, g_array_index (two.s->buckets, DtsBucket, b).bytes);
    ck_assert_double_gt (biggest, 2e5); /* a layer over the cap makes a bucket of its own */
    ck_assert_double_eq_tol (t->memory.gradients_bytes, g / D + MIN (biggest, g - g / D), 1e-3);
    ck_assert_double_eq (t->memory.weights_bytes, z->memory.weights_bytes);
    ck_assert_double_eq (t->memory.optimizer_bytes, z->memory.optimizer_bytes);
  }
}
END_TEST

/* The WAIT operations of PROG on EVENT, and the signals they wait for. */
static int
waits_on (const GArray *prog, int event, int *signals)
{
  int n = 0;
  *signals = 0;
  for (guint k = 0; k < prog->len; k++) {
    const DtsOp *op = &g_array_index (prog, DtsOp, k);
    if (op->type == DTS_OP_WAIT && op->event == event) {
      n++;
      *signals += op->count;
    }
  }
  return n;
}

/* The distributed optimizer's plan, no simulation: every bucket's plan is a
 * reduce-scatter of its gradient bytes among the stage's D replicas; each
 * bucket's parameters are all-gathered in fp16 (2 bytes per parameter); the
 * optimizer's kernels take 1/D of their time; the next iteration waits for
 * the gathers at the end of the step, or (overlap) for each bucket before
 * its first layer in the first forward pass, the first iteration's
 * parameters being in place from the start. */
START_TEST (test_zero_plan)
{
  const int D = 4, EV_STEP_DONE = 6, EV_PARAMS_GATHERED = 7;
  g_auto (Built) plain = { 0 };
  g_auto (Built) after = { 0 };
  g_auto (Built) overlap = { 0 };
  build_zero (&plain, D, 0, FALSE);
  build_zero (&after, D, 1, FALSE);
  build_zero (&overlap, D, 1, TRUE);
  ck_assert_int_eq (plain.s->n_events, 6);
  ck_assert (plain.s->event_initial == NULL);
  ck_assert_int_eq (after.s->n_events, 8);
  guint nb = after.s->buckets->len;
  ck_assert_uint_eq (nb, plain.s->buckets->len);
  for (int i = 0; i < 2; i++)
    ck_assert_int_gt (g_array_index (after.s->stages, DtsStage, i).n_buckets, 1);
  ck_assert_uint_eq (after.s->plans->len, 2 * nb);
  int gathers = 0;
  for (guint k = 0; k < after.s->plans->len; k++) {
    const DtsCollPlan *plan = g_ptr_array_index (after.s->plans, k);
    const DtsCommunicator *cm = g_ptr_array_index (after.s->comms, after.s->plan_comm[k]);
    ck_assert_int_eq (cm->n_ranks, D);
    if (k < nb) {
      const DtsBucket *bk = &g_array_index (after.s->buckets, DtsBucket, k);
      ck_assert_int_eq (plan->op, DTS_COLL_OP_REDUCE_SCATTER);
      ck_assert_double_eq (plan->bytes, bk->bytes);
      ck_assert_double_eq (bk->bytes, bk->params * 4);
      const DtsCollPlan *ar = g_ptr_array_index (plain.s->plans, k);
      ck_assert_int_eq (ar->op, DTS_COLL_OP_ALLREDUCE);
      ck_assert_double_eq (ar->bytes, bk->bytes);
    } else {
      ck_assert_int_eq (plan->op, DTS_COLL_OP_ALLGATHER);
      gboolean found = FALSE;
      for (guint b = 0; b < nb; b++)
        found = found || plan->bytes == g_array_index (after.s->buckets, DtsBucket, b).params * 2;
      ck_assert_msg (found, "gather plan %u of %g bytes matches no bucket", k, plan->bytes);
      gathers++;
    }
  }
  ck_assert_int_eq (gathers, (int) nb);
  for (int r = 0; r < after.s->n_ranks; r++) {
    const GArray *p0 = dts_schedule_program (plain.s, r);
    const GArray *pa = dts_schedule_program (after.s, r);
    const GArray *po = dts_schedule_program (overlap.s, r);
    int i = after.s->rank_stage[r];
    int n_buckets = g_array_index (after.s->stages, DtsStage, i).n_buckets;
    ck_assert_double_eq_tol (dts_test_phase_sum (pa, DTS_PHASE_UPDATE),
                             dts_test_phase_sum (p0, DTS_PHASE_UPDATE) / D, 1e-15);
    ck_assert_double_eq (dts_test_phase_sum (pa, DTS_PHASE_FORWARD), dts_test_phase_sum (p0, DTS_PHASE_FORWARD));
    int signals;
    ck_assert_int_eq (waits_on (pa, EV_PARAMS_GATHERED, &signals), 1);
    ck_assert_int_eq (signals, n_buckets);
    ck_assert_int_eq (waits_on (po, EV_PARAMS_GATHERED, &signals), n_buckets);
    ck_assert_int_eq (signals, n_buckets);
    ck_assert_int_eq (waits_on (p0, EV_STEP_DONE, &signals), 0);
    ck_assert (after.s->event_initial != NULL);
    ck_assert_int_eq (after.s->event_initial[r * 8 + EV_PARAMS_GATHERED], 0);
    ck_assert_int_eq (overlap.s->event_initial[r * 8 + EV_PARAMS_GATHERED], n_buckets);
    /* in the overlapped plan, each wait comes before the forward pass of
     * the first micro-batch through the bucket's first layer */
    int seen = 0;
    for (guint k = 0; k < po->len; k++) {
      const DtsOp *op = &g_array_index (po, DtsOp, k);
      if (op->type == DTS_OP_WAIT && op->event == EV_PARAMS_GATHERED) {
        ck_assert_int_eq (op->wait, DTS_WAIT_GATHER);
        const DtsOp *next = &g_array_index (po, DtsOp, k + 1);
        ck_assert_int_eq (next->type, DTS_OP_COMPUTE);
        ck_assert_int_eq (next->phase, DTS_PHASE_FORWARD);
        ck_assert_int_eq (next->micro_batch, 0);
        gboolean first_of_bucket = FALSE;
        for (guint b = 0; b < nb; b++)
          first_of_bucket = first_of_bucket
                            || g_array_index (overlap.s->buckets, DtsBucket, b).last_layer
                                   == next->layer;
        ck_assert_msg (first_of_bucket, "wait before layer %d", next->layer);
        seen++;
      }
    }
    ck_assert_int_eq (seen, n_buckets);
  }
}
END_TEST

START_TEST (test_errors)
{
  Setup base = { .platform = "flat-16", .workload = "mlp8", .strategy = "pipeline" };
  Setup st = base;
  st.partition = "fc1-fc4,fc6-loss";
  assert_fails (&st, DTS_ERROR_USAGE, "expected a range starting at layer 8");
  st.partition = "fc1-fc4,nosuch";
  assert_fails (&st, DTS_ERROR_USAGE, "'nosuch' is not a layer");
  st.partition = "fc1-fc4,relu4-fc8";
  assert_fails (&st, DTS_ERROR_USAGE, "the stages end at layer 15");
  st = base;
  st.stages = 40;
  assert_fails (&st, DTS_ERROR_USAGE, "has only 16 GPUs");
  st.stages = 10;
  st.workload = "fc-equal";
  assert_fails (&st, DTS_ERROR_USAGE, "has 9 layers after its input (at least one per stage)");
  st = base;
  st.stages = 2;
  st.n_gpus = 4;
  assert_fails (&st, DTS_ERROR_USAGE, "a pipeline of 2 stages runs on 2 GPUs");
  st = base;
  st.stages = 2;
  st.micro_batches = 300;
  assert_fails (&st, DTS_ERROR_USAGE, "more than the batch of 256");
  st = base;
  st.stages = 2;
  st.collective = "ps";
  assert_fails (&st, DTS_ERROR_USAGE, "--collective ps: --strategy pipeline runs no collective");
  st.collective = "ring"; /* one-GPU stages: refused, not ignored */
  assert_fails (&st, DTS_ERROR_USAGE, "runs no collective without --tensor-parallel");
  Setup hy = { .platform = "flat-16", .workload = "mlp8", .strategy = "hybrid" };
  hy.stages = 2;
  hy.collective = "ps";
  assert_fails (&hy, DTS_ERROR_USAGE, "--collective ps: not available with --strategy hybrid");
  hy.collective = NULL;
  hy.stages = 0;
  assert_fails (&hy, DTS_ERROR_USAGE, "give the pipeline's --stages");
  hy.stages = 3;
  assert_fails (&hy, DTS_ERROR_USAGE, "16 GPUs do not divide into 3 stages");
  hy.stages = 0;
  hy.stage_dp = "4,x";
  assert_fails (&hy, DTS_ERROR_USAGE, "item 2 'x' is not an integer");
  hy.stage_dp = "4,2";
  hy.placement = DTS_PLACEMENT_STAGES_INSIDE;
  assert_fails (&hy, DTS_ERROR_USAGE, "needs the same data-parallel degree");
  /* A stage that does not fit: vgg16's first stage at a large batch under
   * GPipe; allowed on request. */
  Setup big = { .platform = "flat-16", .workload = "vgg16", .strategy = "pipeline", .stages = 2,
                .batch = 512, .micro_batches = 8, .schedule = DTS_PIPELINE_GPIPE };
  assert_fails (&big, DTS_ERROR_INVALID, "stage 0 (layers input-");
  assert_fails (&big, DTS_ERROR_INVALID, "--allow-oversubscribe-memory");
  big.oversubscribe = TRUE;
  Outcome o = run_ok (&big);
  ck_assert (o.memory_peak > 16e9);
}
END_TEST

static Suite *
pipeline_suite (void)
{
  Suite *s = suite_create ("pipeline");
  TCase *tc = tcase_create ("pipeline");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_bubble_closed_form);
  tcase_add_test (tc, test_interleaved_closed_form);
  tcase_add_test (tc, test_activation_memory);
  tcase_add_test (tc, test_consistency);
  tcase_add_test (tc, test_stage_dp);
  tcase_add_test (tc, test_placement);
  tcase_add_test (tc, test_p2p_shared);
  tcase_add_test (tc, test_tensor_parallel_volume);
  tcase_add_test (tc, test_tensor_parallel_transformer);
  tcase_add_test (tc, test_activation_memory_korthikanti);
  tcase_add_test (tc, test_tensor_parallel_attention_time);
  tcase_add_test (tc, test_sequence_parallel_volume);
  tcase_add_test (tc, test_moe_sequence_parallel_volume);
  tcase_add_test (tc, test_latent_attention_tensor_parallel);
  tcase_add_test (tc, test_expert_parallel);
  tcase_add_test (tc, test_expert_data_parallel);
  tcase_add_test (tc, test_moe_routing);
  tcase_add_test (tc, test_moe_imbalance);
  tcase_add_test (tc, test_context_parallel);
  tcase_add_test (tc, test_tp_overlap);
  tcase_add_test (tc, test_plan_maps);
  tcase_add_test (tc, test_recompute_time);
  tcase_add_test (tc, test_zero_model_state);
  tcase_add_test (tc, test_zero_plan);
  tcase_add_test (tc, test_errors);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return dts_test_run (pipeline_suite ());
}
