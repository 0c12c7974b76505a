/*
 * nn_ref.c - the ref steps of the MLP: the readable definition of each
 * kernel of cl/nn.cl, with the same ck_nn.h math. Compiled once for float
 * and once for double (see real_variant.h); the double build checks
 * backpropagation against finite differences.
 */
#include "ck_nn.h"
#include "nn/nn_internal.h"
#include "runtime/real_variant.h"

static int32_t *integers(ck_buffer *buffer) {
  void *pointer = NULL;
  ck_buffer_get_host_pointer(buffer, &pointer);
  return pointer;
}

static ck_status ref_setup(nn_state *state) {
  (void)state;
  return CK_OK;
}

static ck_status ref_gather(nn_state *state, uint32_t offset, uint32_t count) {
  const uint32_t *index = ck__words(state->index);
  const ck_real *data = ck__reals(state->sets[CK_NN_TRAIN].features);
  const int32_t *labels = integers(state->sets[CK_NN_TRAIN].labels);
  ck_real *batch = ck__reals(state->activations[0]);
  int32_t *batch_labels = integers(state->batch_labels);
  size_t features = state->sizes[0];
  for (uint32_t b = 0; b < count; ++b) {
    uint32_t row = index[offset + b];
    for (size_t f = 0; f < features; ++f)
      batch[b * features + f] = data[row * features + f];
    batch_labels[b] = labels[row];
  }
  return CK_OK;
}

static ck_status ref_forward(nn_state *state, int layer, ck_buffer *input,
                             uint32_t first, uint32_t count) {
  size_t in = state->sizes[layer - 1], out = state->sizes[layer];
  size_t pitch = state->pitch[layer];
  const ck_real *x = ck__reals(input) + (size_t)first * in;
  const ck_real *w = ck__reals(state->weights[layer]);
  ck_real *y = ck__reals(state->activations[layer]);
  for (size_t b = 0; b < count; ++b)
    for (size_t o = 0; o < out; ++o) {
      ck_real sum = CK_R(0);
      for (size_t i = 0; i < in; ++i)
        sum += x[b * in + i] * w[o * pitch + i];
      y[b * out + o] =
          ck_nn_activate(state->activation[layer], sum + w[o * pitch + in]);
    }
  return CK_OK;
}

static ck_status ref_output(nn_state *state, ck_buffer *labels, uint32_t first,
                            uint32_t count, double delta_scale,
                            uint32_t position) {
  int width = (int)state->sizes[state->layers];
  ck_real *values = ck__reals(state->activations[state->layers]);
  ck_real *deltas = ck__reals(state->deltas[state->layers]);
  const int32_t *label = integers(labels) + first;
  ck_real *losses = ck__reals(state->losses);
  uint32_t *hits = ck__words(state->hits);
  int32_t *predictions = integers(state->predictions);
  for (uint32_t b = 0; b < count; ++b) {
    /* The kernel scores the row in place; here the delta goes to its own
     * buffer, so the output values stay readable for the tests. */
    ck_real *row = deltas + (size_t)b * width;
    for (int k = 0; k < width; ++k)
      row[k] = values[(size_t)b * width + k];
    int predicted = 0;
    ck_real value = ck_nn_output_row(state->loss, row, width, label[b],
                                     (ck_real)delta_scale, &predicted);
    losses[position + b] = value;
    hits[position + b] = predicted == label[b];
    predictions[position + b] = predicted;
  }
  return CK_OK;
}

static ck_status ref_backward(nn_state *state, int layer, uint32_t count) {
  size_t in = state->sizes[layer - 1], out = state->sizes[layer];
  size_t pitch = state->pitch[layer];
  const ck_real *delta = ck__reals(state->deltas[layer]);
  const ck_real *w = ck__reals(state->weights[layer]);
  const ck_real *values = ck__reals(state->activations[layer - 1]);
  ck_real *previous = ck__reals(state->deltas[layer - 1]);
  for (size_t b = 0; b < count; ++b)
    for (size_t i = 0; i < in; ++i) {
      ck_real sum = CK_R(0);
      for (size_t o = 0; o < out; ++o)
        sum += delta[b * out + o] * w[o * pitch + i];
      previous[b * in + i] =
          sum * ck_nn_slope(state->activation[layer - 1], values[b * in + i]);
    }
  return CK_OK;
}

/* Parameter (o, i) of layer's gradient over count rows: its weight (i <
 * in) or its bias (i = in), weight decay left out. */
static ck_real gradient_sum(const nn_state *state, int layer, uint32_t count,
                            size_t o, size_t i) {
  size_t in = state->sizes[layer - 1], out = state->sizes[layer];
  const ck_real *delta = ck__reals(state->deltas[layer]);
  const ck_real *x = ck__reals(state->activations[layer - 1]);
  ck_real sum = CK_R(0);
  for (size_t b = 0; b < count; ++b)
    sum += delta[b * out + o] * (i < in ? x[b * in + i] : CK_R(1));
  return sum;
}

/* The optimiser step of parameter (o, i) of layer from its gradient sum,
 * weight decay added to a weight's. */
static void optimize_at(nn_state *state, int layer, size_t o, size_t i,
                        ck_real sum, const ck__nn_update *update) {
  size_t at = o * state->pitch[layer] + i;
  ck_real *w = ck__reals(state->weights[layer]);
  ck_real *first = ck__reals(state->first[layer]);
  ck_real *second = ck__reals(state->second[layer]);
  ck_real gradient =
      i < state->sizes[layer - 1] ? sum + (ck_real)update->decay * w[at] : sum;
  ck_nn_optimize(state->optimizer, w + at, first + at, second + at, gradient,
                 (ck_real)update->rate, (ck_real)update->momentum,
                 (ck_real)update->beta1, (ck_real)update->beta2,
                 (ck_real)update->epsilon, (ck_real)update->correction1,
                 (ck_real)update->correction2);
}

static ck_status ref_update(nn_state *state, int layer, uint32_t count,
                            const ck__nn_update *update) {
  size_t in = state->sizes[layer - 1], out = state->sizes[layer];
  for (size_t o = 0; o < out; ++o)
    for (size_t i = 0; i <= in; ++i)
      optimize_at(state, layer, o, i, gradient_sum(state, layer, count, o, i),
                  update);
  return CK_OK;
}

static ck_status ref_gradient(nn_state *state, int layer, uint32_t count) {
  size_t in = state->sizes[layer - 1], out = state->sizes[layer];
  ck_real *gradient = ck__reals(state->gradients[layer]);
  for (size_t o = 0; o < out; ++o)
    for (size_t i = 0; i <= in; ++i)
      gradient[o * state->pitch[layer] + i] =
          gradient_sum(state, layer, count, o, i);
  return CK_OK;
}

static ck_status ref_apply(nn_state *state, int layer,
                           const ck__nn_update *update) {
  size_t in = state->sizes[layer - 1], out = state->sizes[layer];
  const ck_real *gradient = ck__reals(state->gradients[layer]);
  for (size_t o = 0; o < out; ++o)
    for (size_t i = 0; i <= in; ++i)
      optimize_at(state, layer, o, i, gradient[o * state->pitch[layer] + i],
                  update);
  return CK_OK;
}

static ck_status ref_reduce(nn_state *state, uint32_t count, double *loss,
                            uint64_t *hits) {
  const ck_real *losses = ck__reals(state->losses);
  const uint32_t *hit = ck__words(state->hits);
  double sum = 0;
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    sum += losses[i];
    total += hit[i];
  }
  *loss = sum;
  *hits = total;
  return CK_OK;
}

static void ref_teardown(nn_state *state) {
  (void)state;
}

const ck__nn_steps CK_VARIANT(ck__nn_ref_steps) = {
    .setup = ref_setup,
    .gather = ref_gather,
    .forward = ref_forward,
    .output = ref_output,
    .backward = ref_backward,
    .update = ref_update,
    .gradient = ref_gradient,
    .apply = ref_apply,
    .reduce = ref_reduce,
    .teardown = ref_teardown,
};
