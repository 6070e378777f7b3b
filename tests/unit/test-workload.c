/* test-workload.c - workload loading: shape inference, cost counts worked out
 * by hand, error messages, and the shipped zoo against torchvision. */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "core/error.h"
#include "workload/workload.h"
#include "testlib.h"

/* Load a workload whose <model> has the attributes ATTRS (after name="t")
 * and the body BODY (layers, training). */
static DtsWorkload *
load_model (const char *attrs, const char *body, GError **error)
{
  g_autofree char *xml = g_strdup_printf ("<?xml version=\"1.0\"?>\n"
                                          "<model name=\"t\" %s>\n%s</model>\n", attrs, body);
  g_autofree char *path = dts_test_write_tmp (xml, ".xml");
  DtsWorkload *w = dts_workload_load (path, error);
  g_unlink (path); /* Check forks: the child's temp list is not cleaned up */
  return w;
}

/* Load a workload whose <model> body is BODY (layers, training) and whose
 * input is INPUT. */
static DtsWorkload *
load_body (const char *input, const char *body, GError **error)
{
  g_autofree char *attrs = g_strdup_printf ("input=\"%s\"", input);
  return load_model (attrs, body, error);
}

static DtsWorkload *
load_ok (const char *input, const char *body)
{
  g_autoptr (GError) error = NULL;
  DtsWorkload *w = load_body (input, body, &error);
  ck_assert_msg (w != NULL, "load failed: %s", error ? error->message : "?");
  return w;
}

static const DtsLayer *
find (const DtsWorkload *w, const char *name)
{
  for (guint i = 0; i < w->layers->len; i++)
    if (strcmp (dts_workload_layer (w, i)->name, name) == 0)
      return dts_workload_layer (w, i);
  ck_abort_msg ("no layer '%s'", name);
  return NULL;
}

static void
assert_shape (const DtsLayer *l, int c, int h, int w)
{
  ck_assert_msg (l->out_shape.c == c && l->out_shape.h == h && l->out_shape.w == w,
                 "layer '%s': shape %dx%dx%d, expected %dx%dx%d", l->name, l->out_shape.c,
                 l->out_shape.h, l->out_shape.w, c, h, w);
}

START_TEST (test_conv_shapes)
{
  g_autoptr (DtsWorkload) w = load_ok (
      "6x10x10",
      "<layer name='g' type='conv' out='4' kernel='3' stride='2' pad='1' groups='2'/>\n"
      "<layer name='v' type='conv' out='8' kernel='3' bias='false'/>\n"
      "<layer name='a' type='conv' out='8' kernel='1x3' pad='0x1'/>\n"
      "<layer name='dw' type='conv' out='8' kernel='3' pad='1' groups='8' bias='false'/>\n"
      "<layer name='s' type='conv' out='2' kernel='3' stride='1x2'/>\n");
  /* (10 + 2 - 3) / 2 + 1 = 5 */
  assert_shape (find (w, "g"), 4, 5, 5);
  /* 5 - 3 + 1 = 3 */
  assert_shape (find (w, "v"), 8, 3, 3);
  assert_shape (find (w, "a"), 8, 3, 3);
  assert_shape (find (w, "dw"), 8, 3, 3);
  /* h: 3 - 3 + 1 = 1; w: (3 - 3) / 2 + 1 = 1 */
  assert_shape (find (w, "s"), 2, 1, 1);
  const DtsLayer *g = find (w, "g");
  ck_assert_int_eq (g->kernel_h, 3);
  ck_assert_int_eq (g->stride_w, 2);
  ck_assert_int_eq (g->pad_h, 1);
  ck_assert_int_eq (g->groups, 2);
  ck_assert (g->has_bias);
  ck_assert (!find (w, "v")->has_bias);
  /* depthwise: 8 filters of 1 channel x 3 x 3 */
  ck_assert_double_eq (find (w, "dw")->params, 72);
  ck_assert_double_eq (find (w, "dw")->macs, 8 * 3 * 3 * 9);
  const DtsLayer *a = find (w, "a");
  ck_assert_int_eq (a->kernel_h, 1);
  ck_assert_int_eq (a->kernel_w, 3);
  ck_assert_int_eq (a->pad_w, 1);
}
END_TEST

START_TEST (test_conv_fc_flops_by_hand)
{
  g_autoptr (DtsWorkload) w = load_ok (
      "6x10x10",
      "<layer name='c1' type='conv' out='4' kernel='3' stride='2' pad='1' groups='2'/>\n"
      "<layer name='c2' type='conv' out='2' kernel='1' bias='false'/>\n"
      "<layer name='fc' type='fc' out='10'/>\n"
      "<layer name='loss' type='softmax-loss'/>\n");
  /* c1: out 4x5x5; each output reads 6/2 = 3 channels x 3 x 3 = 27 inputs. */
  const DtsLayer *c1 = find (w, "c1");
  ck_assert_double_eq (c1->params, 4 * 3 * 9 + 4);
  ck_assert_double_eq (c1->macs, 100 * 27);
  ck_assert_double_eq (c1->fwd_flops, 2 * 2700 + 100);
  ck_assert_double_eq (c1->bwd_weight_flops, 2 * 2700 + 100);
  ck_assert_double_eq (c1->bwd_data_flops, 0); /* its input is the model input */
  ck_assert_double_eq (c1->in_elems, 600);
  ck_assert_double_eq (c1->out_elems, 100);
  /* c2: 1x1, 4 -> 2 channels on 5x5, no bias. */
  const DtsLayer *c2 = find (w, "c2");
  ck_assert_double_eq (c2->params, 8);
  ck_assert_double_eq (c2->macs, 50 * 4);
  ck_assert_double_eq (c2->fwd_flops, 400);
  ck_assert_double_eq (c2->bwd_data_flops, 400);
  ck_assert_double_eq (c2->bwd_weight_flops, 400);
  /* fc: flattens 2x5x5 = 50 features to 10. */
  const DtsLayer *fc = find (w, "fc");
  assert_shape (fc, 10, 1, 1);
  ck_assert_double_eq (fc->params, 50 * 10 + 10);
  ck_assert_double_eq (fc->macs, 500);
  ck_assert_double_eq (fc->fwd_flops, 1000 + 10);
  ck_assert_double_eq (fc->bwd_data_flops, 1000);
  ck_assert_double_eq (fc->bwd_weight_flops, 1010);
  /* totals */
  ck_assert_double_eq (w->params, 112 + 8 + 510);
  ck_assert_double_eq (w->macs, 2700 + 200 + 500);
  ck_assert_double_eq (w->fwd_flops, 5500 + 400 + 1010 + 5 * 10);
  ck_assert_double_eq (w->act_elems, 600 + 100 + 50 + 10 + 10);
}
END_TEST

START_TEST (test_pooling)
{
  g_autoptr (DtsWorkload) w = load_ok (
      "2x112x112",
      "<layer name='floor' type='maxpool' kernel='3' stride='2'/>\n"
      "<layer name='ceil' type='maxpool' kernel='3' stride='2' ceil='true' inputs='input'/>\n"
      "<layer name='def' type='avgpool' kernel='2' inputs='input'/>\n"
      "<layer name='cat' type='concat' inputs='ceil,def'/>\n"
      "<layer name='gap1' type='global-avgpool' inputs='floor'/>\n"
      "<layer name='gap2' type='global-avgpool' inputs='cat'/>\n"
      "<layer name='out' type='concat' inputs='gap1, gap2'/>\n");
  /* floor((112 - 3) / 2) + 1 = 55; ceil gives 56 (GoogLeNet's first pool) */
  assert_shape (find (w, "floor"), 2, 55, 55);
  assert_shape (find (w, "ceil"), 2, 56, 56);
  /* the stride defaults to the kernel, as in PyTorch */
  assert_shape (find (w, "def"), 2, 56, 56);
  ck_assert_int_eq (find (w, "def")->stride_h, 2);
  /* concat adds channels */
  assert_shape (find (w, "cat"), 4, 56, 56);
  ck_assert_double_eq (find (w, "cat")->in_elems, 2 * 2 * 56 * 56);
  assert_shape (find (w, "gap2"), 4, 1, 1);
  assert_shape (find (w, "out"), 6, 1, 1);
  ck_assert_double_eq (find (w, "floor")->fwd_flops, 2 * 55 * 55 * 9);
  ck_assert_double_eq (find (w, "gap1")->fwd_flops, 2 * 55 * 55);
}
END_TEST

START_TEST (test_pooling_ceil_last_window)
{
  /* ceil((5 + 2 - 2) / 2) + 1 = 4, but the 4th window would start at 6, in the
   * right padding: PyTorch drops it, leaving 3. */
  g_autoptr (DtsWorkload) w = load_ok (
      "3x5x5", "<layer name='p' type='maxpool' kernel='2' stride='2' pad='1' ceil='true'/>\n"
               "<layer name='q' type='avgpool' kernel='3' stride='1' pad='1'/>\n");
  assert_shape (find (w, "p"), 3, 3, 3);
  assert_shape (find (w, "q"), 3, 3, 3);
}
END_TEST

/* Adaptive pooling reads, against the windows counted one by one, for
 * outputs smaller and larger than the input; and an output of 2^31 - 1
 * (a prime), which must not take 2^31 steps. */
START_TEST (test_adaptive_span)
{
  for (int in = 1; in <= 24; in++)
    for (int out = 1; out <= 24; out++) {
      double naive = 0;
      for (int i = 0; i < out; i++)
        naive += ((i + 1) * in + out - 1) / out - (i * in) / out; /* ceil - floor */
      g_autofree char *input = g_strdup_printf ("1x%dx1", in);
      g_autofree char *body =
          g_strdup_printf ("<layer name='ad' type='adaptive-avgpool' out='%dx1'/>\n", out);
      g_autoptr (DtsWorkload) w = load_ok (input, body);
      ck_assert_msg (find (w, "ad")->fwd_flops == naive, "in %d out %d: %g reads, expected %g",
                     in, out, find (w, "ad")->fwd_flops, naive);
    }
  g_autoptr (DtsWorkload) w =
      load_ok ("1x7x5", "<layer name='ad' type='adaptive-avgpool' out='3x2147483647'/>\n");
  /* rows 7 + 3 - gcd 1; columns 5 + (2^31 - 1) - 1 */
  ck_assert_double_eq (find (w, "ad")->fwd_flops, 9.0 * (5.0 + 2147483647.0 - 1.0));
}
END_TEST

START_TEST (test_adaptive_and_elementwise)
{
  g_autoptr (DtsWorkload) w = load_ok (
      "2x13x13", "<layer name='ad' type='adaptive-avgpool' out='6'/>\n"
                 "<layer name='bn' type='batchnorm'/>\n"
                 "<layer name='r' type='relu'/>\n"
                 "<layer name='r6' type='relu6'/>\n"
                 "<layer name='d' type='dropout' p='0.2'/>\n"
                 "<layer name='n' type='lrn' size='3' alpha='1e-4' beta='0.75' k='2'/>\n"
                 "<layer name='s' type='add' inputs='n,r,d'/>\n"
                 "<layer name='f' type='flatten'/>\n"
                 "<layer name='loss' type='softmax-loss'/>\n");
  /* windows [0,3) [2,5) [4,7) [6,9) [8,11) [10,13): 6 x 3 rows and columns */
  const DtsLayer *ad = find (w, "ad");
  assert_shape (ad, 2, 6, 6);
  ck_assert_double_eq (ad->fwd_flops, 2 * 18 * 18);
  const double n = 72;
  const DtsLayer *bn = find (w, "bn");
  ck_assert_double_eq (bn->params, 4);
  ck_assert_double_eq (bn->fwd_flops, 4 * n);
  ck_assert_double_eq (bn->bwd_data_flops, 4 * n);
  ck_assert_double_eq (bn->bwd_weight_flops, 3 * n);
  ck_assert_double_eq (find (w, "r")->fwd_flops, n);
  ck_assert_double_eq (find (w, "r6")->fwd_flops, 2 * n);
  ck_assert_double_eq (find (w, "d")->fwd_flops, 2 * n);
  ck_assert_double_eq (find (w, "n")->fwd_flops, (2 * 3 + 4) * n);
  const DtsLayer *s = find (w, "s");
  ck_assert_int_eq (s->n_inputs, 3);
  ck_assert_double_eq (s->fwd_flops, 2 * n);
  ck_assert_double_eq (s->in_elems, 3 * n);
  ck_assert_double_eq (s->bwd_data_flops, 0);
  const DtsLayer *f = find (w, "f");
  assert_shape (f, 72, 1, 1);
  ck_assert_double_eq (f->act_elems, 0); /* a view */
  ck_assert_double_eq (f->out_elems, n);
  assert_shape (find (w, "loss"), 72, 1, 1);
  ck_assert_double_eq (w->params, 4);
  ck_assert_double_eq (w->macs, 0);
}
END_TEST

START_TEST (test_input_layer_and_training)
{
  g_autoptr (DtsWorkload) w = load_ok (
      "3x8x8", "<training batch-size='16' dataset-samples='50000' precision='fp16' "
               "optimizer='adam'/>\n"
               "<layer name='c' type='conv' out='4' kernel='3' pad='1'/>\n"
               "<layer name='r' type='relu'/>\n");
  ck_assert_str_eq (w->name, "t");
  ck_assert_uint_eq (w->layers->len, 3);
  const DtsLayer *in = dts_workload_layer (w, 0);
  ck_assert_int_eq (in->type, DTS_LAYER_INPUT);
  ck_assert_str_eq (in->name, "input");
  assert_shape (in, 3, 8, 8);
  ck_assert_double_eq (in->act_elems, 192);
  const DtsLayer *c = dts_workload_layer (w, 1);
  ck_assert_int_eq (c->line, 4);
  ck_assert_int_eq (c->n_inputs, 1);
  ck_assert_int_eq (c->inputs[0], 0);
  ck_assert_int_eq (dts_workload_layer (w, 2)->inputs[0], 1);
  /* relu after a conv still needs its data gradient */
  ck_assert_double_eq (dts_workload_layer (w, 2)->bwd_data_flops, 256);
  ck_assert_int_eq (w->training.batch_size, 16);
  ck_assert_double_eq (w->training.dataset_samples, 50000);
  ck_assert (w->training.has_precision);
  ck_assert_int_eq (w->training.precision, DTS_PREC_FP16);
  ck_assert_str_eq (w->training.optimizer, "adam");
  ck_assert_double_eq (dts_workload_optimizer_state_bytes_per_param (w), 8);

  g_autoptr (DtsWorkload) v = load_ok ("10", "<layer name='fc' type='fc' out='2'/>\n");
  ck_assert_int_eq (v->training.batch_size, 0);
  ck_assert (!v->training.has_precision);
  ck_assert_ptr_null (v->training.optimizer);
  ck_assert_double_eq (dts_workload_optimizer_state_bytes_per_param (v), 4); /* momentum */
  assert_shape (dts_workload_layer (v, 0), 10, 1, 1);
  ck_assert_double_eq (v->params, 22);
}
END_TEST

/* Consumers are counted per output (backward sums their gradients), and
 * input-gradient="true" keeps the data gradient of the layers fed by the
 * model input. */
START_TEST (test_consumers_and_input_gradient)
{
  const char *body = "<layer name='c' type='conv' out='4' kernel='3' pad='1'/>\n"
                     "<layer name='a' type='relu' inputs='c'/>\n"
                     "<layer name='b' type='relu' inputs='c'/>\n"
                     "<layer name='j' type='concat' inputs='a,b,c'/>\n";
  g_autoptr (DtsWorkload) w = load_ok ("3x8x8", body);
  ck_assert_int_eq (find (w, "c")->n_consumers, 3);
  ck_assert_int_eq (find (w, "a")->n_consumers, 1);
  ck_assert_int_eq (find (w, "j")->n_consumers, 0);
  ck_assert_int_eq (dts_workload_layer (w, 0)->n_consumers, 1);
  ck_assert (!w->input_gradient);
  ck_assert (!find (w, "c")->data_grad);
  ck_assert_double_eq (find (w, "c")->bwd_data_flops, 0);
  ck_assert (find (w, "j")->data_grad);

  g_autoptr (GError) error = NULL;
  g_autoptr (DtsWorkload) g = load_model ("input=\"3x8x8\" input-gradient=\"true\"", body, &error);
  ck_assert_msg (g != NULL, "%s", error ? error->message : "?");
  ck_assert (g->input_gradient);
  ck_assert (find (g, "c")->data_grad);
  ck_assert_double_eq (find (g, "c")->bwd_data_flops, 2.0 * 4 * 3 * 9 * 64);

  g_autoptr (GError) berr = NULL;
  g_autoptr (DtsWorkload) bw = load_model ("input=\"3x8x8\" input-gradient=\"yes\"", body, &berr);
  ck_assert_ptr_null (bw);
  ck_assert_msg (strstr (berr->message, "attribute 'input-gradient': 'yes' is not true or false")
                     && strstr (berr->message, "line 2"),
                 "%s", berr->message);
}
END_TEST

START_TEST (test_type_names)
{
  for (int t = 0; t < DTS_LAYER_TYPE_COUNT; t++) {
    DtsLayerType back;
    const char *id = dts_layer_type_to_string ((DtsLayerType) t);
    ck_assert (dts_layer_type_from_string (id, &back));
    ck_assert_int_eq (back, t);
  }
  DtsLayerType x;
  ck_assert (!dts_layer_type_from_string ("convv", &x));
  ck_assert_str_eq (dts_layer_type_to_string (DTS_LAYER_GLOBAL_AVGPOOL), "global-avgpool");
  ck_assert_str_eq (dts_layer_type_to_string (DTS_LAYER_SOFTMAX_LOSS), "softmax-loss");
}
END_TEST

/* --- errors ------------------------------------------------------------------- */

typedef struct {
  const char *input;
  const char *body;
  int code;
  const char *frag[3];
} BadCase;

static const BadCase bad_cases[] = {
  { "3x8x8", "<layer name='c' type='convv'/>\n", DTS_ERROR_INVALID,
    { "line 3: layer 'c': unknown layer type 'convv'", "(known: conv, fc, maxpool",
      "linear, attention, gelu, swiglu, cross-entropy, router, moe-combine)" } },
  { "3x8x8", "<layer name='c' type='relu' inputs='nope'/>\n", DTS_ERROR_INVALID,
    { "line 3: layer 'c': unknown input 'nope'", NULL } },
  { "3x8x8",
    "<layer name='a' type='conv' out='4' kernel='1'/>\n"
    "<layer name='s' type='add' inputs='a,input'/>\n",
    DTS_ERROR_INVALID,
    { "line 4: layer 's': input 'input' has shape 3x8x8 but input 'a' has 4x8x8",
      "add needs equal shapes", NULL } },
  { "3x8x8",
    "<layer name='a' type='maxpool' kernel='2'/>\n"
    "<layer name='s' type='concat' inputs='input,a'/>\n",
    DTS_ERROR_INVALID, { "line 4: layer 's': input 'a' has shape 3x4x4", "equal height", NULL } },
  { "3x8x8", "<layer name='c' type='conv' out='0' kernel='3'/>\n", DTS_ERROR_INVALID,
    { "line 3: layer 'c': attribute 'out' must be positive, got 0", NULL } },
  { "3x8x8", "<layer name='c' type='conv' out='4' kernel='3' stride='-1'/>\n", DTS_ERROR_INVALID,
    { "attribute 'stride' must be positive, got -1", NULL } },
  { "3x8x8", "<layer name='c' type='conv' out='4' kernel='3' pad='-1'/>\n", DTS_ERROR_INVALID,
    { "attribute 'pad' must not be negative, got -1", NULL } },
  { "3x2x2", "<layer name='c' type='conv' out='4' kernel='3'/>\n", DTS_ERROR_INVALID,
    { "layer 'c': kernel window 3 does not fit the input size 2", NULL } },
  { "3x8x8", "<layer name='c' type='conv' out='4k' kernel='3'/>\n", DTS_ERROR_PARSE,
    { "layer 'c': attribute 'out': '4k' is not an integer", NULL } },
  { "3x8x8", "<layer name='c' type='conv' out='4' kernel='3x'/>\n", DTS_ERROR_PARSE,
    { "attribute 'kernel': '3x' is not an integer or HxW", NULL } },
  { "3x8x8", "<layer name='c' type='conv' out='4' kernel='3' bias='yes'/>\n", DTS_ERROR_PARSE,
    { "attribute 'bias': 'yes' is not true or false", NULL } },
  { "3x8x8", "<layer name='d' type='dropout' p='1'/>\n", DTS_ERROR_INVALID,
    { "attribute 'p' must be below 1", NULL } },
  { "3x8x8", "<layer name='d' type='dropout' p='half'/>\n", DTS_ERROR_PARSE,
    { "attribute 'p': 'half' is not a number", NULL } },
  { "3x8x8", "", DTS_ERROR_INVALID, { "line 2: <model> has no layers", NULL } },
  { "3x8x8", "<training batch-size='4'/>\n", DTS_ERROR_INVALID, { "has no layers", NULL } },
  { "3x8x8",
    "<layer name='r' type='relu'/>\n"
    "<layer name='r' type='relu'/>\n",
    DTS_ERROR_INVALID, { "line 4: layer 'r': duplicate layer name (first defined on line 3)" } },
  { "3x8x8", "<layer name='input' type='relu'/>\n", DTS_ERROR_INVALID,
    { "layer 'input': duplicate layer name: 'input' is the model input", NULL } },
  { "3x8x8",
    "<layer name='a' type='relu' inputs='b'/>\n"
    "<layer name='b' type='relu' inputs='a'/>\n",
    DTS_ERROR_INVALID, { "line 3: layer 'a': input 'b' is defined later, on line 4", NULL } },
  { "3x8x8", "<layer name='a' type='add' inputs='input,a'/>\n", DTS_ERROR_INVALID,
    { "layer 'a': takes its own output as input", NULL } },
  { "3x8x8", "<layer name='c' type='conv' out='4'/>\n", DTS_ERROR_INVALID,
    { "line 3: layer 'c': missing attribute 'kernel'", NULL } },
  { "3x8x8", "<layer type='relu'/>\n", DTS_ERROR_INVALID,
    { "line 3: missing attribute 'name'", NULL } },
  { "3x8x8", "<layer name='r'/>\n", DTS_ERROR_INVALID,
    { "layer 'r': missing attribute 'type'", "conv, fc", NULL } },
  { "3x8x8", "<layer name='c' type='conv' out='4' kernel='3' strid='2'/>\n", DTS_ERROR_INVALID,
    { "layer 'c': unknown attribute 'strid' of a conv layer", "(known: name, type, inputs, block, out",
      NULL } },
  { "3x8x8", "<layer name='c' type='conv' out='4' kernel='3' groups='2'/>\n", DTS_ERROR_INVALID,
    { "groups 2 must divide both the input channels (3) and 'out' (4)", NULL } },
  { "3x8x8", "<layer name='p' type='maxpool' kernel='3' pad='2'/>\n", DTS_ERROR_INVALID,
    { "pad 2x2 is more than half the kernel 3x3", NULL } },
  { "3x8x8",
    "<layer name='a' type='relu'/>\n"
    "<layer name='b' type='relu' inputs='input'/>\n",
    DTS_ERROR_INVALID, { "line 3: layer 'a': output is not used by any later layer", NULL } },
  { "3x8x8", "<layer name='c' type='conv' out='4' kernel='1' inputs='input,input'/>\n",
    DTS_ERROR_INVALID, { "a conv layer takes 1 input, got 2", NULL } },
  { "3x8x8", "<layer name='c' type='concat'/>\n", DTS_ERROR_INVALID,
    { "a concat layer takes at least 2 inputs, got 1", NULL } },
  { "3x8x8", "<layer name='c' type='relu' inputs='input,,input'/>\n", DTS_ERROR_PARSE,
    { "attribute 'inputs': empty name", NULL } },
  { "3x8x8", "<layer name='a b' type='relu'/>\n", DTS_ERROR_INVALID,
    { "layer name 'a b' is empty or has a comma or a space", NULL } },
  { "3x224", "<layer name='r' type='relu'/>\n", DTS_ERROR_PARSE,
    { "line 2: attribute 'input': '3x224' is not a shape CxHxW", NULL } },
  { "3x0x8", "<layer name='r' type='relu'/>\n", DTS_ERROR_INVALID,
    { "attribute 'input': sizes must be positive", NULL } },
  { "3x8x8", "<layr name='r' type='relu'/>\n", DTS_ERROR_INVALID,
    { "line 3: unknown element <layr> in <model>", NULL } },
  { "3x8x8", "relu\n<layer name='r' type='relu'/>\n", DTS_ERROR_INVALID,
    { "unexpected text in <model>", NULL } },
  { "3x8x8", "<training batch-size='0'/>\n<layer name='r' type='relu'/>\n", DTS_ERROR_INVALID,
    { "line 3: attribute 'batch-size' must be positive, got 0", NULL } },
  { "3x8x8", "<training precision='fp4'/>\n<layer name='r' type='relu'/>\n", DTS_ERROR_INVALID,
    { "attribute 'precision': unknown precision 'fp4'", NULL } },
  { "3x8x8", "<training optimizer='lamb'/>\n<layer name='r' type='relu'/>\n", DTS_ERROR_INVALID,
    { "unknown optimizer 'lamb' (known: sgd, momentum, adam)", NULL } },
  { "3x8x8", "<training batch='8'/>\n<layer name='r' type='relu'/>\n", DTS_ERROR_INVALID,
    { "unknown attribute 'batch' of <training>", NULL } },
  { "3x8x8", "<training/>\n<training/>\n<layer name='r' type='relu'/>\n", DTS_ERROR_INVALID,
    { "line 4: a second <training> element", NULL } },
  /* sequences and images do not mix */
  { "3x8x8", "<layer name='l' type='linear' out='4'/>\n", DTS_ERROR_INVALID,
    { "layer 'l': input 'input' has shape 3x8x8, but a linear layer reads sequences", NULL } },
  { "3x8x8", "<layer name='n' type='layernorm'/>\n", DTS_ERROR_INVALID,
    { "a layernorm layer reads sequences", NULL } },
  { "3x8x8", "<layer name='e' type='embedding' vocab='10' out='4'/>\n", DTS_ERROR_INVALID,
    { "an embedding layer reads sequences", NULL } },
  /* a <transformer> stands alone; its input is its seq-len tokens (TR: no input
   * attribute on <model>) */
  { "TR", "<transformer layers='2' hidden='64' heads='5' vocab='10' seq-len='8'/>\n",
    DTS_ERROR_INVALID, { "line 3: heads 5 do not divide hidden 64 (give head-dim)", NULL } },
  { "TR",
    "<transformer layers='2' hidden='64' heads='4' kv-heads='3' vocab='10' seq-len='8'/>\n",
    DTS_ERROR_INVALID, { "kv-heads 3 must divide heads 4", NULL } },
  { "TR", "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8' mlp='relu'/>\n",
    DTS_ERROR_INVALID, { "attribute 'mlp': unknown value 'relu' (known: gelu, swiglu)", NULL } },
  { "TR", "<transformer layers='2' hidden='64' heads='4' vocab='10'/>\n", DTS_ERROR_INVALID,
    { "missing attribute 'seq-len'", NULL } },
  { "TR", "<transformer layers='5000' hidden='64' heads='4' vocab='10' seq-len='8'/>\n",
    DTS_ERROR_INVALID, { "layers 5000 is more than 4096", NULL } },
  { "TR",
    "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8' positions='rotary' "
    "max-positions='16'/>\n",
    DTS_ERROR_INVALID, { "max-positions is for learned positions", NULL } },
  { "TR", "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8' max-positions='4'/>\n",
    DTS_ERROR_INVALID, { "max-positions 4 is shorter than seq-len 8", NULL } },
  { "TR", "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8' dropout='1'/>\n",
    DTS_ERROR_INVALID, { "attribute 'dropout' must be below 1", NULL } },
  { "TR",
    "<transformer layers='2' hidden='2000000000' heads='4' vocab='10' seq-len='8'/>\n",
    DTS_ERROR_INVALID, { "4 x hidden (8000000000) does not fit an int", NULL } },
  { "TR", "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8' depth='2'/>\n",
    DTS_ERROR_INVALID, { "unknown attribute 'depth' of <transformer>", NULL } },
  { "TR",
    "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8'/>\n"
    "<layer name='r' type='relu'/>\n",
    DTS_ERROR_INVALID, { "line 3: <transformer> is the whole model: no <layer> elements", NULL } },
  { "TR",
    "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8'/>\n"
    "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8'/>\n",
    DTS_ERROR_INVALID, { "line 4: a second <transformer> element", NULL } },
  { "3x8x8", "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8'/>\n",
    DTS_ERROR_INVALID, { "attribute 'input': the input of a <transformer> is its seq-len tokens",
                         NULL } },
  /* mixtures of experts */
  { "TR", "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8' top-k='2'/>\n",
    DTS_ERROR_INVALID, { "attribute 'top-k' is for a mixture of experts (give experts)", NULL } },
  { "TR", "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8' experts='4'/>\n",
    DTS_ERROR_INVALID, { "a mixture of 4 experts needs top-k, the experts per token (1 to 4)",
                         NULL } },
  { "TR",
    "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8' experts='4' "
    "top-k='5'/>\n",
    DTS_ERROR_INVALID, { "needs top-k, the experts per token (1 to 4)", NULL } },
  { "TR",
    "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8' moe-ffn='32'/>\n",
    DTS_ERROR_INVALID, { "attribute 'moe-ffn' is for a mixture of experts", NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='16'/>\n"
    "<layer name='f' type='linear' out='32' experts='4'/>\n",
    DTS_ERROR_INVALID, { "layer 'f': attribute 'experts': no router before this layer", NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='16'/>\n"
    "<layer name='r' type='router' experts='8' top-k='2'/>\n"
    "<layer name='f' type='linear' out='32' experts='4'/>\n",
    DTS_ERROR_INVALID, { "attribute 'experts': 4, but router 'r' routes to 8 experts", NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='16'/>\n"
    "<layer name='r' type='router' experts='4' top-k='2'/>\n"
    "<layer name='c' type='moe-combine' top-k='2'/>\n"
    "<layer name='f' type='linear' out='32' experts='4'/>\n",
    DTS_ERROR_INVALID, { "layer 'f': attribute 'experts': no router before this layer", NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='16'/>\n"
    "<layer name='r' type='router' experts='2' top-k='3'/>\n",
    DTS_ERROR_INVALID, { "attribute 'top-k': 3 experts per token, but there are 2 experts",
                         NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='16'/>\n"
    "<layer name='c' type='moe-combine' top-k='3'/>\n",
    DTS_ERROR_INVALID, { "the input's 8 tokens are not top-k 3 copies of a sequence", NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='16'/>\n"
    "<layer name='r' type='router' experts='70000' top-k='2'/>\n",
    DTS_ERROR_INVALID, { "attribute 'experts': 70000 experts is more than 65536", NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='16'/>\n"
    "<layer name='r' type='router' experts='4' top-k='2'/>\n"
    "<layer name='f' type='linear' out='10' experts='4' tied='e'/>\n",
    DTS_ERROR_INVALID, { "attributes 'tied' and 'experts': a layer tied to an embedding's table",
                         NULL } },
  { "TR",
    "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8' experts='4' "
    "top-k='2' dense-layers='2'/>\n",
    DTS_ERROR_INVALID, { "dense-layers 2 leaves none of the 2 layers a mixture of experts",
                         NULL } },
  { "TR",
    "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8' shared-ffn='32'/>\n",
    DTS_ERROR_INVALID, { "attribute 'shared-ffn' is for a mixture of experts", NULL } },
  /* multi-head latent attention */
  { "TR",
    "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8' q-lora-rank='8'/>\n",
    DTS_ERROR_INVALID,
    { "attribute 'q-lora-rank' is for multi-head latent attention (give kv-lora-rank)", NULL } },
  { "TR",
    "<transformer layers='2' hidden='64' heads='4' vocab='10' seq-len='8' kv-lora-rank='8'/>\n",
    DTS_ERROR_INVALID, { "multi-head latent attention needs rope-head-dim", NULL } },
  { "TR",
    "<transformer layers='2' hidden='64' heads='4' kv-heads='2' vocab='10' seq-len='8' "
    "kv-lora-rank='8' rope-head-dim='4'/>\n",
    DTS_ERROR_INVALID, { "kv-heads is not for multi-head latent attention", NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='12'/>\n"
    "<layer name='a' type='attention' heads='2' v-head-dim='4'/>\n",
    DTS_ERROR_INVALID, { "attribute 'v-head-dim' needs head-dim", NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='12'/>\n"
    "<layer name='a' type='attention' heads='2' head-dim='4' rope-dim='4'/>\n",
    DTS_ERROR_INVALID, { "rope-dim 4 must be less than head-dim 4", NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='12'/>\n"
    "<layer name='q' type='linear' out='16'/>\n"
    "<layer name='kv' type='linear' inputs='e' out='12'/>\n"
    "<layer name='a' type='attention' inputs='q,kv' heads='2' head-dim='8' v-head-dim='4' "
    "rope-dim='2'/>\n",
    DTS_ERROR_INVALID,
    { "layer 'a': the inputs' 28 features are not the 38 of 2 query heads and 2 key heads of 8 "
      "(2 of them shared by every head), 2 value heads of 4",
      NULL } },
  /* hand-written sequence models (SEQ: <model seq-len='8'>) */
  { "SEQ", "<layer name='c' type='conv' out='4' kernel='1'/>\n", DTS_ERROR_INVALID,
    { "input 'input' has shape 8x1, but a conv layer reads images or vectors, not sequences",
      NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='12'/>\n"
    "<layer name='a' type='attention' heads='5'/>\n",
    DTS_ERROR_INVALID, { "the input's 12 features are not heads + 2 kv-heads = 15 heads", NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='12'/>\n"
    "<layer name='a' type='attention' heads='4' kv-heads='3'/>\n",
    DTS_ERROR_INVALID, { "kv-heads 3 must divide heads 4", NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='12'/>\n"
    "<layer name='h' type='linear' out='10' tied='input'/>\n",
    DTS_ERROR_INVALID, { "attribute 'tied': 'input' is not an earlier embedding layer", NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='12'/>\n"
    "<layer name='h' type='linear' out='11' tied='e'/>\n",
    DTS_ERROR_INVALID, { "embedding 'e' is 10 x 12, but this layer's weights are 11 x 12", NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='12' max-positions='4'/>\n",
    DTS_ERROR_INVALID, { "max-positions 4 is shorter than the sequence (8 tokens)", NULL } },
  { "SEQ",
    "<layer name='e' type='embedding' vocab='10' out='10'/>\n"
    "<layer name='g' type='swiglu'/>\n<layer name='s' type='swiglu'/>\n",
    DTS_ERROR_INVALID, { "layer 's': swiglu reads a gated pair: the input's features (5)", NULL } },
};

START_TEST (test_errors)
{
  const BadCase *c = &bad_cases[_i];
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsWorkload) w = strcmp (c->input, "TR") == 0    ? load_model ("", c->body, &error)
                              : strcmp (c->input, "SEQ") == 0 ? load_model ("seq-len='8'", c->body,
                                                                            &error)
                                                              : load_body (c->input, c->body,
                                                                           &error);
  ck_assert_msg (w == NULL, "case %d was accepted", _i);
  ck_assert_msg (strstr (error->message, "workload '") == error->message, "case %d: %s", _i,
                 error->message);
  dts_test_assert_error (error, c->code, c->frag[0] ? c->frag[0] : "", c->frag[1], c->frag[2],
                         NULL);
}
END_TEST

START_TEST (test_file_errors)
{
  g_autoptr (GError) error = NULL;
  ck_assert_ptr_null (dts_workload_load ("no-such-dir/none.xml", &error));
  dts_test_assert_error (error, DTS_ERROR_NOT_FOUND, "workload 'no-such-dir/none.xml'",
                         "no such file", NULL);
  g_clear_error (&error);

  g_autofree char *bad = dts_test_write_tmp ("<model input='3'>\n<layer name='a'\n", ".xml");
  ck_assert_ptr_null (dts_workload_load (bad, &error));
  dts_test_assert_error (error, DTS_ERROR_PARSE, "workload '", "malformed XML", NULL);
  g_clear_error (&error);
  g_unlink (bad);

  g_autofree char *plat = dts_test_write_tmp ("<platform version='4.1'/>\n", ".xml");
  ck_assert_ptr_null (dts_workload_load (plat, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "line 1: root element is <platform>", NULL);
  g_clear_error (&error);
  g_unlink (plat);

  g_autofree char *attr = dts_test_write_tmp (
      "<model input='3' size='big'><layer name='r' type='relu'/></model>\n", ".xml");
  ck_assert_ptr_null (dts_workload_load (attr, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "unknown attribute 'size' of <model>", NULL);
  g_clear_error (&error);
  g_unlink (attr);

  g_autofree char *noin = dts_test_write_tmp ("<model><layer name='r' type='relu'/></model>\n",
                                              ".xml");
  ck_assert_ptr_null (dts_workload_load (noin, &error));
  dts_test_assert_error (error, DTS_ERROR_INVALID, "missing attribute 'input'", NULL);
  g_unlink (noin);
}
END_TEST

/* --- the shipped zoo against torchvision --------------------------------------------- */

/* torchvision's published parameter counts (exact) and "GFLOPS", which count
 * multiply-accumulates of conv and linear layers. */
static const struct {
  const char *name;
  double params;
  double gmacs;
} zoo[] = {
  { "alexnet", 61100840, 0.71 },    { "vgg16", 138357544, 15.47 },
  { "resnet50", 25557032, 4.09 },   { "resnet101", 44549160, 7.80 },
  { "resnet152", 60192808, 11.51 }, { "inception3", 23834568, 5.71 },
  { "googlenet", 6624904, 1.50 },   { "mobilenet2", 3504872, 0.30 },
  { "densenet121", 7978856, 2.83 },
  /* not torchvision: NVIDIA DeepLearningExamples' SSD300, counted by hand */
  { "ssd300", 22894902, 20.15 },
};

START_TEST (test_zoo)
{
  g_autofree char *file = g_strconcat ("workloads/", zoo[_i].name, ".xml", NULL);
  g_autofree char *path = dts_test_srcpath (file);
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsWorkload) w = dts_workload_load (path, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "?");
  ck_assert_str_eq (w->name, zoo[_i].name);
  ck_assert_msg (w->params == zoo[_i].params, "%s: %.0f parameters, the reference has %.0f",
                 zoo[_i].name, w->params, zoo[_i].params);
  double ratio = w->macs / (zoo[_i].gmacs * 1e9);
  ck_assert_msg (fabs (ratio - 1.0) <= 0.02, "%s: %.4f G MACs, the reference %.2f G (%.2f%%)",
                 zoo[_i].name, w->macs / 1e9, zoo[_i].gmacs, (ratio - 1.0) * 100);
  /* FLOPs are 2 x MACs plus a small share of element-wise work (6% for
   * MobileNet-v2, the most element-wise of the zoo) */
  ck_assert (w->fwd_flops >= 2.0 * w->macs);
  ck_assert (w->fwd_flops < 2.2 * w->macs);
  ck_assert_int_eq (w->training.batch_size > 0, TRUE);
  /* 1000 ImageNet classes at the end; SSD300: 8732 boxes x (4 + 81) scores */
  const DtsLayer *last = dts_workload_layer (w, w->layers->len - 1);
  ck_assert_int_eq (last->type, DTS_LAYER_SOFTMAX_LOSS);
  ck_assert_int_eq (last->out_shape.c, strcmp (zoo[_i].name, "ssd300") == 0 ? 8732 * 85 : 1000);
}
END_TEST

/* --- transformers ---------------------------------------------------------------------- */

/* Published parameter counts, exact: Meta's model cards and Hugging Face's
 * configurations (Llama), Brown et al. 2020 with GPT-2's vocabulary of 50,257,
 * tied, 2,048 learned positions (GPT-3 175B); BERT-large is BertModel's
 * 335,141,888 less its pooler and token-type table (workloads/bert-large.xml). */
static const struct {
  const char *name;
  double params;
} llm_zoo[] = {
  { "llama3-8b", 8030261248.0 },      { "llama2-7b", 6738415616.0 },
  { "llama3-70b", 70553706496.0 },    { "gpt3-175b", 174604259328.0 },
  { "llama2-13b", 13015864320.0 },    { "llama2-70b", 68976648192.0 },
  { "llama3.1-405b", 405853388800.0 }, { "bert-large", 335141888.0 - 1051648.0 },
};

START_TEST (test_llm_zoo)
{
  g_autofree char *file = g_strconcat ("workloads/", llm_zoo[_i].name, ".xml", NULL);
  g_autofree char *path = dts_test_srcpath (file);
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsWorkload) w = dts_workload_load (path, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "?");
  ck_assert_str_eq (w->name, llm_zoo[_i].name);
  ck_assert_msg (w->params == llm_zoo[_i].params, "%s: %.0f parameters, published %.0f",
                 llm_zoo[_i].name, w->params, llm_zoo[_i].params);
  const DtsTransformer *t = &w->transformer;
  ck_assert_int_eq (w->input.seq, t->seq_len);
  /* embedding, 10 layers a block, final norm, head, loss */
  ck_assert_int_eq (w->layers->len - 1, 1 + 10 * t->layers + 3);
  const DtsLayer *last = dts_workload_layer (w, w->layers->len - 1);
  ck_assert_int_eq (last->type, DTS_LAYER_CROSS_ENTROPY);
  ck_assert_int_eq (last->out_shape.c, t->padded_vocab);
  ck_assert_int_eq (last->out_shape.seq, t->seq_len);
}
END_TEST

/* The GPT-3 sizes without a published exact count: Megatron's closed form
 * 12 L h^2 + 13 L h + V h + P h + 2 h (tied head, biases, LayerNorms). */
START_TEST (test_gpt3_closed_form)
{
  static const struct {
    const char *name;
    int layers, hidden;
  } gpt[] = { { "gpt3-1.3b", 24, 2048 }, { "gpt3-2.7b", 32, 2560 }, { "gpt3-6.7b", 32, 4096 },
              { "gpt3-13b", 40, 5120 },  { "gpt3-175b", 96, 12288 } };
  for (guint i = 0; i < G_N_ELEMENTS (gpt); i++) {
    g_autofree char *file = g_strconcat ("workloads/", gpt[i].name, ".xml", NULL);
    g_autofree char *path = dts_test_srcpath (file);
    g_autoptr (GError) error = NULL;
    g_autoptr (DtsWorkload) w = dts_workload_load (path, &error);
    ck_assert_msg (w != NULL, "%s", error ? error->message : "?");
    double L = gpt[i].layers, h = gpt[i].hidden;
    double expect = 12 * L * h * h + 13 * L * h + 50257 * h + 2048 * h + 2 * h;
    ck_assert_msg (w->params == expect, "%s: %.0f, closed form %.0f", gpt[i].name, w->params,
                   expect);
  }
}
END_TEST

static DtsWorkload *
load_transformer (const char *attrs)
{
  g_autofree char *body = g_strdup_printf ("<transformer %s/>\n", attrs);
  g_autoptr (GError) error = NULL;
  DtsWorkload *w = load_model ("", body, &error);
  ck_assert_msg (w != NULL, "load failed: %s", error ? error->message : "?");
  return w;
}

/* Sums of a per-layer count over the layers of block 0. */
static double
block_sum (const DtsWorkload *w, double (*get) (const DtsLayer *))
{
  double sum = 0;
  for (guint i = 0; i < w->layers->len; i++) {
    const DtsLayer *l = dts_workload_layer (w, i);
    if (g_str_has_prefix (l->name, "layers.0."))
      sum += get (l);
  }
  return sum;
}

static double
get_macs (const DtsLayer *l)
{
  return l->macs;
}

static double
get_params (const DtsLayer *l)
{
  return l->params;
}

/* Mixtures of experts: every parameter and those a token runs through
 * (the router, attention, norms, embeddings and k of E experts). Mixtral
 * 8x7B: 46,702,792,704 (Hugging Face's safetensors), 12.9 billion active
 * (Mistral AI); Qwen3-30B-A3B: 30.5 and 3.3 billion (its model card), here
 * without its query and key RMSNorms (48 x 2 x 128 = 12,288 parameters).
 * Published to the billion: Mixtral 8x22B 141 and 39, Qwen3-235B-A22B 235
 * and 22 (model cards).
 * Per block, the closed form: the attention's h (a + 2 g) d + a d h, two
 * RMSNorms, the router's h E and E SwiGLU experts of 3 h F, k of them
 * active; the experts' GEMMs run S k (2 h F + F h) multiply-accumulates. */
START_TEST (test_moe_zoo)
{
  static const struct {
    const char *name;
    double params, active;
  } moe[] = { { "mixtral-8x7b", 46702792704.0, 12879925248.0 },
              { "qwen3-30b-a3b", 30532122624.0 - 12288.0, 3353020416.0 },
              { "mixtral-8x22b", 141e9, 39e9 },
              { "qwen3-235b-a22b", 235e9, 22e9 } };
  for (guint i = 0; i < G_N_ELEMENTS (moe); i++) {
    g_autofree char *file = g_strconcat ("workloads/", moe[i].name, ".xml", NULL);
    g_autofree char *path = dts_test_srcpath (file);
    g_autoptr (GError) error = NULL;
    g_autoptr (DtsWorkload) w = dts_workload_load (path, &error);
    ck_assert_msg (w != NULL, "%s", error ? error->message : "?");
    /* a count published to the billion is met to the billion */
    double unit = fmod (moe[i].params, 1e9) == 0 ? 1e9 : 1;
    ck_assert_msg (round (w->params / unit) * unit == moe[i].params,
                   "%s: %.0f parameters, expected %.0f", moe[i].name, w->params, moe[i].params);
    ck_assert_msg (round (w->active_params / unit) * unit == moe[i].active,
                   "%s: %.0f active, expected %.0f", moe[i].name, w->active_params,
                   moe[i].active);
    const DtsTransformer *t = &w->transformer;
    double h = t->hidden, a = t->heads, g = t->kv_heads, d = t->head_dim, E = t->experts;
    double F = t->moe_ffn, S = t->seq_len, k = t->top_k;
    double attn = h * (a + 2 * g) * d + a * d * h;
    ck_assert_double_eq (block_sum (w, get_params), attn + 2 * h + h * E + E * 3 * h * F);
    double attn_macs = S * h * (a + 2 * g) * d + S * a * d * h;
    double core = 0;
    for (guint l = 0; l < w->layers->len; l++) {
      const DtsLayer *x = dts_workload_layer (w, l);
      if (strcmp (x->name, "layers.0.attn") == 0)
        core = x->macs;
    }
    ck_assert_double_eq (block_sum (w, get_macs),
                         attn_macs + core + S * h * E + S * k * 3 * h * F);
    /* embedding, 12 layers a block, final norm, head, loss */
    ck_assert_int_eq (w->layers->len - 1, 1 + 12 * t->layers + 3);
  }
}
END_TEST

/* Sums of a per-layer count over the layers of block B. */
static double
block_sum_of (const DtsWorkload *w, int b, double (*get) (const DtsLayer *))
{
  g_autofree char *pre = g_strdup_printf ("layers.%d.", b);
  double sum = 0;
  for (guint i = 0; i < w->layers->len; i++) {
    const DtsLayer *l = dts_workload_layer (w, i);
    if (g_str_has_prefix (l->name, pre))
      sum += get (l);
  }
  return sum;
}

/* DeepSeek-V3: 671B parameters, 37B activated (DeepSeek-AI 2024, without
 * the multi-token-prediction module's 14B; 37.55B here, 36.6B without the
 * input embedding, which a token looks up), met to the parameter by the
 * closed form: multi-head latent attention's h q + q + q a (d + r) (queries
 * from the q-wide latent, normalised), h c + c + c a (d + v) (keys and
 * values from the c-wide one), h r (the shared rotary key) and a v h (the
 * output projection); two RMSNorms; the first 3 blocks a SwiGLU MLP of
 * 3 h F, the other 58 a router h E, E experts of 3 h Fm (k active) and a
 * shared expert of 3 h Fs; embedding and LM head V h each, a final norm.
 * The core attention's multiply-accumulates: S^2 a (d + r + v) over the
 * causal share (S + 1) / 2S. */
START_TEST (test_deepseek_v3)
{
  g_autofree char *path = dts_test_srcpath ("workloads/deepseek-v3.xml");
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsWorkload) w = dts_workload_load (path, &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "?");
  const DtsTransformer *t = &w->transformer;
  double h = t->hidden, a = t->heads, d = t->head_dim, r = t->rope_head_dim;
  double v = t->v_head_dim, q = t->q_lora, c = t->kv_lora, E = t->experts, k = t->top_k;
  double F = t->ffn, Fm = t->moe_ffn, Fs = t->shared_ffn, S = t->seq_len, V = t->vocab;
  ck_assert_int_eq (t->dense_layers, 3);
  double mla = h * q + q + q * a * (d + r) + h * c + c + c * a * (d + v) + h * r + a * v * h;
  double dense = mla + 2 * h + 3 * h * F;
  double moe_all = mla + 2 * h + h * E + E * 3 * h * Fm + 3 * h * Fs;
  double moe_active = mla + 2 * h + h * E + k * 3 * h * Fm + 3 * h * Fs;
  ck_assert_double_eq (block_sum_of (w, 0, get_params), dense);
  ck_assert_double_eq (block_sum_of (w, 60, get_params), moe_all);
  ck_assert_double_eq (w->params, 3 * dense + 58 * moe_all + 2 * V * h + h);
  ck_assert_double_eq (w->params, 671026404352.0);
  ck_assert_double_eq (w->active_params, 3 * dense + 58 * moe_active + 2 * V * h + h);
  ck_assert_double_eq (w->active_params, 37552282624.0);
  ck_assert_double_eq (round (w->params / 1e9), 671);
  double share = (S + 1) / (2 * S);
  double core = S * S * a * (d + r + v) * share;
  double gemms = S * (h * q + q * a * (d + r) + h * c + c * a * (d + v) + h * r + a * v * h);
  ck_assert_double_eq (block_sum_of (w, 0, get_macs), gemms + core + S * 3 * h * F);
  ck_assert_double_eq (block_sum_of (w, 60, get_macs),
                       gemms + core + S * h * E + S * k * 3 * h * Fm + S * 3 * h * Fs);
}
END_TEST

/* Megatron's forward count per layer and sequence (Narayanan et al. 2021,
 * eq. 3 per sample): 24 s h^2 + 4 s^2 h FLOPs, 2 x MACs, for a GPT block
 * (ffn 4h, multi-head attention) computing the whole square; a causal fused
 * kernel computes (s + 1) / 2s of the attention products. */
START_TEST (test_transformer_block_flops)
{
  const double s = 32, h = 64;
  g_autoptr (DtsWorkload) full
      = load_transformer ("layers='2' hidden='64' heads='4' vocab='100' seq-len='32' "
                          "causal='false'");
  ck_assert_double_eq (2.0 * block_sum (full, get_macs), 24 * s * h * h + 4 * s * s * h);
  ck_assert_double_eq (block_sum (full, get_params), 12 * h * h + 13 * h);
  g_autoptr (DtsWorkload) unfused
      = load_transformer ("layers='2' hidden='64' heads='4' vocab='100' seq-len='32' "
                          "attention='unfused'");
  ck_assert_double_eq (2.0 * block_sum (unfused, get_macs), 24 * s * h * h + 4 * s * s * h);
  g_autoptr (DtsWorkload) causal
      = load_transformer ("layers='2' hidden='64' heads='4' vocab='100' seq-len='32'");
  ck_assert_double_eq (2.0 * block_sum (causal, get_macs),
                       24 * s * h * h + 4 * s * s * h * (s + 1) / (2 * s));
  /* model FLOPs for MFU: Megatron's 72 s l h^2 (1 + s / 6h + V / 12 l h),
   * the whole square whatever the mask or kernel */
  const double l = 2, V = 100;
  double megatron = 72 * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  ck_assert_double_eq_tol (dts_workload_model_flops (causal), megatron, 1e-9 * megatron);
  ck_assert_double_eq_tol (dts_workload_model_flops (full), megatron, 1e-9 * megatron);
  ck_assert_double_eq_tol (dts_workload_model_flops (unfused), megatron, 1e-9 * megatron);
  /* the fused kernel's backward: dQ, dK, dV, dP and Q K^T again */
  const DtsLayer *a = find (causal, "layers.0.attn");
  ck_assert_double_eq (a->bwd_data_flops - 2.0 * (s + 1) / (2 * s) * s * s * 4,
                       2.5 * 2.0 * a->macs);
}
END_TEST

/* A Llama block: SwiGLU's gated pair, grouped-query attention, RMSNorm, no
 * biases: q and o h x h, k and v h x (kv d), three h x f MLP matrices. */
START_TEST (test_transformer_llama_block)
{
  g_autoptr (DtsWorkload) w
      = load_transformer ("layers='3' hidden='64' ffn='160' heads='8' kv-heads='2' "
                          "vocab='100' seq-len='16' mlp='swiglu' norm='rmsnorm' "
                          "positions='rotary' bias='false' pad-vocab-to='64'");
  const double h = 64, f = 160, kvd = 2 * 8;
  ck_assert_double_eq (block_sum (w, get_params), 2 * h * h + 2 * h * kvd + 3 * h * f + 2 * h);
  ck_assert_int_eq (w->transformer.padded_vocab, 128);
  ck_assert_double_eq (w->params, 3 * (2 * h * h + 2 * h * kvd + 3 * h * f + 2 * h)
                                      + 2 * 128 * h + h);
  assert_shape (find (w, "layers.0.qkv"), 64 + 2 * 16, 1, 1);
  ck_assert_int_eq (find (w, "layers.0.qkv")->out_shape.seq, 16);
  ck_assert_int_eq (find (w, "layers.0.fc1")->out_shape.c, 320);
  ck_assert_int_eq (find (w, "layers.0.act")->out_shape.c, 160);
  ck_assert_int_eq (find (w, "layers.0.attn")->head_dim, 8);
  ck_assert_int_eq (find (w, "layers.0.attn")->kv_heads, 2);
  /* the residual stream: add1 reads the block input and the projection */
  const DtsLayer *add1 = find (w, "layers.1.add1");
  ck_assert_str_eq (dts_workload_layer (w, add1->inputs[0])->name, "layers.0.add2");
  ck_assert_str_eq (dts_workload_layer (w, add1->inputs[1])->name, "layers.1.proj");
  /* the rows' columns */
  ck_assert_int_eq (dts_layer_tp_role (find (w, "layers.0.qkv")), DTS_TP_SPLITTABLE);
  ck_assert_int_eq (dts_layer_tp_role (find (w, "layers.0.attn")), DTS_TP_CHANNEL_WISE);
  ck_assert_int_eq (dts_layer_tp_role (find (w, "layers.0.norm1")), DTS_TP_REPLICATED);
  ck_assert (dts_layer_in_place (find (w, "layers.0.add2")));
  ck_assert (!dts_layer_in_place (find (w, "layers.0.fc2")));
}
END_TEST

/* A <transformer> loads to the layers it stands for: one block and its
 * ends written out by hand give the same shapes, parameters and FLOPs. */
START_TEST (test_transformer_by_hand)
{
  g_autoptr (DtsWorkload) t
      = load_transformer ("layers='1' hidden='32' heads='2' vocab='50' seq-len='8' "
                          "tied-embedding='true' dropout='0.1'");
  g_autoptr (GError) error = NULL;
  g_autoptr (DtsWorkload) w = load_model (
      "seq-len='8'",
      "<layer name='embed' type='embedding' vocab='50' out='32' max-positions='8'/>\n"
      "<layer name='embed-dropout' type='dropout' p='0.1'/>\n"
      "<layer name='n1' type='layernorm'/>\n"
      "<layer name='qkv' type='linear' out='96'/>\n"
      "<layer name='attn' type='attention' heads='2'/>\n"
      "<layer name='proj' type='linear' out='32'/>\n"
      "<layer name='d1' type='dropout' p='0.1'/>\n"
      "<layer name='add1' type='add' inputs='embed-dropout,d1'/>\n"
      "<layer name='n2' type='layernorm'/>\n"
      "<layer name='fc1' type='linear' out='128'/>\n"
      "<layer name='act' type='gelu'/>\n"
      "<layer name='fc2' type='linear' out='32'/>\n"
      "<layer name='d2' type='dropout' p='0.1'/>\n"
      "<layer name='add2' type='add' inputs='add1,d2'/>\n"
      "<layer name='fn' type='layernorm'/>\n"
      "<layer name='head' type='linear' out='50' bias='false' tied='embed'/>\n"
      "<layer name='loss' type='cross-entropy'/>\n",
      &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "?");
  ck_assert_int_eq (t->layers->len, w->layers->len);
  for (guint i = 0; i < w->layers->len; i++) {
    const DtsLayer *a = dts_workload_layer (t, i), *b = dts_workload_layer (w, i);
    ck_assert_int_eq (a->type, b->type);
    ck_assert_int_eq (a->out_shape.c, b->out_shape.c);
    ck_assert_int_eq (a->out_shape.seq, b->out_shape.seq);
    ck_assert_double_eq (a->params, b->params);
    ck_assert_double_eq (a->macs, b->macs);
    ck_assert_double_eq (a->fwd_flops, b->fwd_flops);
    ck_assert_double_eq (a->bwd_data_flops, b->bwd_data_flops);
    ck_assert_double_eq (a->bwd_weight_flops, b->bwd_weight_flops);
    ck_assert_double_eq (a->act_elems, b->act_elems);
    ck_assert_int_eq (a->n_consumers, b->n_consumers);
  }
  ck_assert_double_eq (t->params, w->params);
  /* tied: the head has no weights of its own, the table counted once */
  ck_assert_double_eq (find (w, "head")->params, 0);
  ck_assert_double_eq (find (w, "embed")->params, (50 + 8) * 32);
  ck_assert_int_eq (find (w, "embed")->bwd_data_flops, 0);
}
END_TEST

static Suite *
workload_suite (void)
{
  Suite *s = suite_create ("workload");
  TCase *tc = tcase_create ("shapes");
  tcase_add_test (tc, test_conv_shapes);
  tcase_add_test (tc, test_conv_fc_flops_by_hand);
  tcase_add_test (tc, test_pooling);
  tcase_add_test (tc, test_pooling_ceil_last_window);
  tcase_add_test (tc, test_adaptive_span);
  tcase_add_test (tc, test_adaptive_and_elementwise);
  tcase_add_test (tc, test_input_layer_and_training);
  tcase_add_test (tc, test_consumers_and_input_gradient);
  tcase_add_test (tc, test_type_names);
  suite_add_tcase (s, tc);
  TCase *te = tcase_create ("errors");
  tcase_add_loop_test (te, test_errors, 0, G_N_ELEMENTS (bad_cases));
  tcase_add_test (te, test_file_errors);
  suite_add_tcase (s, te);
  TCase *tz = tcase_create ("zoo");
  tcase_add_loop_test (tz, test_zoo, 0, G_N_ELEMENTS (zoo));
  suite_add_tcase (s, tz);
  TCase *tt = tcase_create ("transformer");
  tcase_add_test (tt, test_moe_zoo);
  tcase_add_test (tt, test_deepseek_v3);
  tcase_add_loop_test (tt, test_llm_zoo, 0, G_N_ELEMENTS (llm_zoo));
  tcase_add_test (tt, test_gpt3_closed_form);
  tcase_add_test (tt, test_transformer_block_flops);
  tcase_add_test (tt, test_transformer_llama_block);
  tcase_add_test (tt, test_transformer_by_hand);
  suite_add_tcase (s, tt);
  return s;
}

int
main (void)
{
  return dts_test_run (workload_suite ());
}
