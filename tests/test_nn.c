/*
 * test_nn.c - the multilayer perceptron on ref and on an OpenCL device:
 * backpropagation against finite differences (double precision, ref),
 * weight decay, XOR learned, ref/OpenCL agreement of every kernel twin and
 * of whole epochs under several kernel tunings, reproducibility and the
 * epoch shuffles, model files (round trip, atomic writes, every kind of
 * damage), bad configurations and input, early stopping, learning-rate
 * schedules, training's wall and kernel time without the warm-up, and the
 * "nn" workload through the public API.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "check.h"
#include "nn/nn_internal.h"
#if CK_HAVE_NCCL
#include "runtime/exchange_nccl.h"
#endif
#include "opencl_device.h"
#include "test_support.h"

static const double pi = 3.14159265358979323846;
static char work_dir[] = "/tmp/clkit_test_nn_XXXXXX";

/* ---- helpers ------------------------------------------------------------ */

static uint64_t rng_next(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static double rng_uniform(uint64_t *state, double lo, double hi) {
  return lo + (hi - lo) * (double)(rng_next(state) >> 11) * 0x1.0p-53;
}

static void data_alloc(ck_dataset *d, size_t rows, size_t features,
                       size_t classes) {
  memset(d, 0, sizeof *d);
  d->rows = rows;
  d->features = features;
  d->classes = classes;
  d->values = calloc(rows * features, sizeof *d->values);
  d->labels = calloc(rows, sizeof *d->labels);
  if (!d->values || !d->labels) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
}

static void data_names(ck_dataset *d, const char *const *names) {
  d->class_names = calloc(d->classes, sizeof *d->class_names);
  for (size_t k = 0; k < d->classes; ++k)
    d->class_names[k] = strdup(names[k]);
}

/* rows of features uniform in [-1, 1) x scale[f] + offset[f] (1 and 0
 * when NULL), labelled by the largest of `classes` fixed random linear
 * scores of the unscaled values (a learnable rule). */
static void data_random(ck_dataset *d, size_t rows, size_t features,
                        size_t classes, uint64_t seed, const double *offset,
                        const double *scale) {
  data_alloc(d, rows, features, classes);
  uint64_t rule = 99, state = seed;
  double *projection = malloc(classes * features * sizeof *projection);
  double *raw = malloc(features * sizeof *raw);
  for (size_t i = 0; i < classes * features; ++i)
    projection[i] = rng_uniform(&rule, -1, 1);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t f = 0; f < features; ++f) {
      raw[f] = rng_uniform(&state, -1, 1);
      d->values[r * features + f] =
          (float)(raw[f] * (scale ? scale[f] : 1.0) + (offset ? offset[f] : 0));
    }
    size_t best = 0;
    double top = -1e300;
    for (size_t k = 0; k < classes; ++k) {
      double score = 0;
      for (size_t f = 0; f < features; ++f)
        score += projection[k * features + f] * raw[f];
      if (score > top) {
        top = score;
        best = k;
      }
    }
    d->labels[r] = (int32_t)best;
  }
  free(projection);
  free(raw);
}

/* The four XOR rows, each `copies` times; inputs 0/1. */
static void data_xor(ck_dataset *d, size_t copies) {
  data_alloc(d, 4 * copies, 2, 2);
  for (size_t r = 0; r < d->rows; ++r) {
    int a = (int)(r & 1), b = (int)((r >> 1) & 1);
    d->values[2 * r] = (float)a;
    d->values[2 * r + 1] = (float)b;
    d->labels[r] = a ^ b;
  }
}

static const char *last_message(void) {
  const char *message = "";
  ck_error_get_last(&message);
  return message ? message : "";
}

/* A call that must fail with status, its message containing mention. */
#define CHECK_FAILS(call, expected, mention)                                   \
  do {                                                                         \
    ck_status fails_status_ = (call);                                          \
    const char *fails_message_ = last_message();                               \
    CHECK_MSG(fails_status_ == (expected) &&                                   \
                  strstr(fails_message_, (mention)) != NULL,                   \
              "%s: status %d (want %d), message '%s' (want '%s')", #call,      \
              (int)fails_status_, (int)(expected), fails_message_,             \
              (const char *)(mention));                                        \
  } while (0)

static void config_net(ck_nn_config *config, size_t count, const size_t *sizes,
                       const ck_nn_activation *activations, ck_nn_loss loss) {
  ck_nn_config_init(config);
  config->layer_count = count;
  for (size_t l = 0; l < count; ++l)
    config->sizes[l] = sizes[l];
  for (size_t l = 0; l + 2 < count; ++l)
    config->activations[l] = activations[l];
  config->loss = loss;
}

static size_t layer_params(const nn_state *s, int l) {
  return (size_t)s->sizes[l] * (s->sizes[l - 1] + 1);
}

/* Layer l's weights (out x (in + 1)) as floats, malloc'd. */
static float *layer_floats(ck_nn *nn, int l) {
  float *values = calloc(layer_params(ck__nn_state(nn), l), sizeof *values);
  CHECK_OK(ck__nn_layer_read(nn, l, values));
  return values;
}

/* Every layer of a and b bitwise equal. */
static int weights_identical(ck_nn *a, ck_nn *b) {
  nn_state *s = ck__nn_state(a);
  if (s->layers != ck__nn_state(b)->layers)
    return 0;
  int same = 1;
  for (int l = 1; l <= s->layers; ++l) {
    float *x = layer_floats(a, l), *y = layer_floats(b, l);
    if (memcmp(x, y, layer_params(s, l) * sizeof *x) != 0)
      same = 0;
    free(x);
    free(y);
  }
  return same;
}

/* Each layer of b within relative x (the largest |weight| of a's layer). */
/* The largest differences seen by the agreement checks, relative to
 * their scales, for the log. */
static double worst_weight_seen, worst_loss_seen;

static void check_weights_near(ck_nn *a, ck_nn *b, double relative,
                               const char *what) {
  nn_state *s = ck__nn_state(a);
  for (int l = 1; l <= s->layers; ++l) {
    float *x = layer_floats(a, l), *y = layer_floats(b, l);
    size_t n = layer_params(s, l), worst_at = 0;
    double scale = 0, worst = 0;
    for (size_t i = 0; i < n; ++i)
      scale = fmax(scale, fabs(x[i]));
    for (size_t i = 0; i < n; ++i)
      if (fabs((double)x[i] - y[i]) > worst) {
        worst = fabs((double)x[i] - y[i]);
        worst_at = i;
      }
    if (scale > 0)
      worst_weight_seen = fmax(worst_weight_seen, worst / scale);
    CHECK_MSG(worst <= relative * scale && scale > 0,
              "%s: layer %d weight %zu: %.9g vs %.9g (scale %g, relative "
              "tolerance %g)",
              what, l, worst_at, x[worst_at], y[worst_at], scale, relative);
    free(x);
    free(y);
  }
}

static int near_relative(double a, double b, double relative) {
  double scale = fmax(fabs(a), fabs(b));
  if (scale > 0)
    worst_loss_seen = fmax(worst_loss_seen, fabs(a - b) / scale);
  return fabs(a - b) <= relative * fmax(fabs(a), fabs(b)) || a == b;
}

/* count per-sample losses as doubles (either precision). */
static void read_losses(ck_nn *nn, uint32_t count, double *out) {
  nn_state *s = ck__nn_state(nn);
  void *raw = calloc(count, s->real_size);
  CHECK_OK(ck_buffer_read(s->queue, s->losses, 0, count * s->real_size, raw,
                          CK_BLOCKING, NULL));
  for (uint32_t i = 0; i < count; ++i)
    out[i] = s->double_precision ? ((double *)raw)[i] : ((float *)raw)[i];
  free(raw);
}

static void read_words(ck_nn *nn, ck_buffer *buffer, uint32_t count,
                       void *out) {
  CHECK_OK(ck_buffer_read(ck__nn_state(nn)->queue, buffer, 0,
                          count * sizeof(uint32_t), out, CK_BLOCKING, NULL));
}

static void write_identity_order(ck_nn *nn) {
  nn_state *s = ck__nn_state(nn);
  uint32_t rows = s->sets[CK_NN_TRAIN].rows;
  uint32_t *order = malloc(rows * sizeof *order);
  for (uint32_t i = 0; i < rows; ++i)
    order[i] = i;
  CHECK_OK(ck_buffer_write(s->queue, s->index, 0, rows * sizeof *order, order,
                           CK_BLOCKING, NULL));
  free(order);
}

/* The optimiser settings of step t (1-based) under config c. */
static ck__nn_update update_for(const ck_nn_config *config, unsigned t) {
  ck__nn_update u;
  memset(&u, 0, sizeof u);
  u.rate = config->learning_rate;
  u.momentum = config->momentum;
  u.beta1 = config->beta1;
  u.beta2 = config->beta2;
  u.epsilon = config->epsilon;
  u.correction1 = 1.0 - pow(config->beta1, t);
  u.correction2 = 1.0 - pow(config->beta2, t);
  u.decay = config->weight_decay;
  return u;
}

static char *path_in(const char *name) {
  static char paths[8][1024];
  static int next;
  char *path = paths[next++ % 8];
  snprintf(path, sizeof paths[0], "%s/%s", work_dir, name);
  return path;
}

static int write_bytes(const char *path, const void *data, size_t size) {
  FILE *file = fopen(path, "wb");
  if (!file)
    return -1;
  size_t written = size ? fwrite(data, 1, size, file) : 0;
  return fclose(file) == 0 && written == size ? 0 : -1;
}

static int write_text(const char *path, const char *text) {
  return write_bytes(path, text, strlen(text));
}

/* ---- 1. backpropagation against finite differences ------------------------
 */

/* The forward pass on the host in double, from the network's own weights:
 * the smallest |pre-activation| of any relu unit over the rows. */
static double relu_margin(nn_state *s, double *const *w, const ck_dataset *d) {
  double margin = INFINITY;
  double a[2][64];
  for (size_t r = 0; r < d->rows; ++r) {
    for (size_t f = 0; f < d->features; ++f)
      a[0][f] = d->values[r * d->features + f];
    int cur = 0;
    for (int l = 1; l < s->layers; ++l) {
      size_t in = s->sizes[l - 1], out = s->sizes[l];
      for (size_t o = 0; o < out; ++o) {
        double z = w[l][o * (in + 1) + in];
        for (size_t i = 0; i < in; ++i)
          z += w[l][o * (in + 1) + i] * a[cur][i];
        if (s->activation[l] == CK_NN_RELU)
          margin = fmin(margin, fabs(z));
        a[1 - cur][o] = s->activation[l] == CK_NN_RELU   ? fmax(z, 0)
                        : s->activation[l] == CK_NN_TANH ? tanh(z)
                                                         : 1 / (1 + exp(-z));
      }
      cur = 1 - cur;
    }
  }
  return margin;
}

static void gradient_case(const ck_device *ref, const char *name, size_t count,
                          const size_t *sizes,
                          const ck_nn_activation *activations, ck_nn_loss loss,
                          uint64_t seed) {
  ck_nn_config c;
  config_net(&c, count, sizes, activations, loss);
  c.optimizer = CK_NN_SGD;
  c.learning_rate = 1;
  c.momentum = 0;
  c.weight_decay = 0;
  c.batch = 0;
  c.seed = seed;
  ck_nn *nn = NULL;
  CHECK_OK(ck__nn_create(ref, &c, 1, NULL, &nn));
  if (!nn)
    return;
  nn_state *s = ck__nn_state(nn);
  CHECK(s->double_precision == 1 && s->real_size == sizeof(double));
  const uint32_t rows = 6;
  ck_dataset data;
  data_random(&data, rows, sizes[0], sizes[count - 1], seed + 100, NULL, NULL);
  for (uint32_t r = 0; r < rows; ++r) /* every class present */
    data.labels[r] = (int32_t)(r % sizes[count - 1]);
  CHECK_OK(ck_nn_set_preprocessing(nn, &data, CK_NORMALIZE_NONE));
  CHECK_OK(ck_nn_attach(nn, CK_NN_TRAIN, &data));

  int layers = s->layers;
  double *w[CK_NN_MAX_LAYERS + 1] = {0}, *before[CK_NN_MAX_LAYERS + 1] = {0};
  double *gradient[CK_NN_MAX_LAYERS + 1] = {0};
  uint64_t draws = seed * 31 + 7;
  for (int l = 1; l <= layers; ++l) {
    void *pointer = NULL;
    CHECK_OK(ck_buffer_get_host_pointer(s->weights[l], &pointer));
    w[l] = pointer;
    size_t n = layer_params(s, l), in = s->sizes[l - 1];
    /* Nonzero biases, so that weight decay on them would show. */
    for (size_t o = 0; o < s->sizes[l]; ++o)
      w[l][o * (in + 1) + in] = rng_uniform(&draws, -0.5, 0.5);
    before[l] = malloc(n * sizeof(double));
    gradient[l] = malloc(n * sizeof(double));
    memcpy(before[l], w[l], n * sizeof(double));
  }
  int relu = 0;
  for (int l = 1; l < layers; ++l)
    relu |= s->activation[l] == CK_NN_RELU;
  if (relu) {
    double margin = relu_margin(s, w, &data);
    CHECK_MSG(margin > 1e-3, "%s: a relu pre-activation is %g from 0", name,
              margin);
  }

  double loss0 = NAN, accuracy0 = NAN;
  CHECK_OK(ck_nn_evaluate(nn, CK_NN_TRAIN, &loss0, &accuracy0, NULL));
  write_identity_order(nn);
  ck__nn_update u;
  memset(&u, 0, sizeof u);
  u.rate = 1;
  u.correction1 = u.correction2 = 1;
  u.beta1 = 0.9;
  u.beta2 = 0.999;
  u.epsilon = 1e-8;
  /* A step to be recorded alone runs nothing (ref records nothing). */
  const ck__nn_step recorded = {
      .count = rows, .scale = 1.0 / rows, .update = &u, .record_only = 1};
  CHECK_OK(ck__nn_train_step(nn, &recorded));
  for (int l = 1; l <= layers; ++l)
    CHECK_MSG(memcmp(w[l], before[l], layer_params(s, l) * sizeof(double)) == 0,
              "%s: a step recorded alone changed layer %d", name, l);
  CHECK_OK(ck__nn_train_batch(nn, 0, rows, &u));
  /* The training pass scores the rows as the evaluation does. */
  double losses[8], sum = 0;
  read_losses(nn, rows, losses);
  for (uint32_t r = 0; r < rows; ++r)
    sum += losses[r];
  CHECK_MSG(fabs(sum / rows - loss0) <= 1e-12 * fabs(loss0),
            "%s: training pass loss %.17g, evaluation %.17g", name, sum / rows,
            loss0);
  double largest = 0;
  for (int l = 1; l <= layers; ++l)
    for (size_t i = 0; i < layer_params(s, l); ++i) {
      gradient[l][i] = before[l][i] - w[l][i];
      largest = fmax(largest, fabs(gradient[l][i]));
      w[l][i] = before[l][i];
    }
  CHECK_MSG(largest > 1e-3, "%s: the gradient is %g at most", name, largest);

  const double h = 1e-5;
  double worst_all = 0;
  for (int l = 1; l <= layers; ++l) {
    size_t in = s->sizes[l - 1], n = layer_params(s, l), worst_at = 0;
    double worst = 0, worst_fd = 0;
    ck_status evaluated = CK_OK;
    for (size_t i = 0; i < n; ++i) {
      double plus = NAN, minus = NAN;
      w[l][i] = before[l][i] + h;
      evaluated |= ck_nn_evaluate(nn, CK_NN_TRAIN, &plus, NULL, NULL);
      w[l][i] = before[l][i] - h;
      evaluated |= ck_nn_evaluate(nn, CK_NN_TRAIN, &minus, NULL, NULL);
      w[l][i] = before[l][i];
      double fd = (plus - minus) / (2 * h);
      double error = fabs(fd - gradient[l][i]) / fmax(fabs(fd), 1e-4);
      if (!(error <= worst)) {
        worst = error;
        worst_at = i;
        worst_fd = fd;
      }
    }
    worst_all = fmax(worst_all, worst);
    CHECK_OK(evaluated);
    CHECK_MSG(worst <= 1e-6,
              "%s: layer %d %s (%zu, %zu): backprop %.12g, finite difference "
              "%.12g (relative error %.3g)",
              name, l, worst_at % (in + 1) == in ? "bias" : "weight",
              worst_at / (in + 1), worst_at % (in + 1), gradient[l][worst_at],
              worst_fd, worst);
  }

  /* Weight decay: the step adds lambda w to each weight's gradient, and
   * nothing to the biases'. */
  const double lambda = 0.25;
  u.decay = lambda;
  CHECK_OK(ck__nn_train_batch(nn, 0, rows, &u));
  double worst_weight = 0, worst_bias = 0;
  for (int l = 1; l <= layers; ++l) {
    size_t in = s->sizes[l - 1];
    for (size_t i = 0; i < layer_params(s, l); ++i) {
      double extra = (before[l][i] - w[l][i]) - gradient[l][i];
      if (i % (in + 1) == in)
        worst_bias = fmax(worst_bias, fabs(extra));
      else
        worst_weight = fmax(worst_weight, fabs(extra - lambda * before[l][i]));
      w[l][i] = before[l][i];
    }
  }
  CHECK_MSG(worst_weight <= 1e-12, "%s: decayed weight step off by %g", name,
            worst_weight);
  CHECK_MSG(worst_bias <= 1e-12, "%s: a bias was decayed (by %g)", name,
            worst_bias);
  printf("  %s: gradients within %.2g of finite differences\n", name,
         worst_all);

  for (int l = 1; l <= layers; ++l) {
    free(before[l]);
    free(gradient[l]);
  }
  ck_dataset_free(&data);
  ck_nn_destroy(nn);
}

static void gradients(const ck_device *ref) {
  printf("backpropagation against finite differences\n");
  static const size_t smooth[] = {4, 5, 3, 3};
  static const ck_nn_activation smooth_act[] = {CK_NN_TANH, CK_NN_SIGMOID};
  static const size_t relu[] = {3, 6, 4};
  static const ck_nn_activation relu_act[] = {CK_NN_RELU};
  static const size_t deep[] = {5, 4, 6, 3, 2};
  static const ck_nn_activation deep_act[] = {CK_NN_SIGMOID, CK_NN_RELU,
                                              CK_NN_TANH};
  gradient_case(ref, "4-5-3-3 tanh,sigmoid ce", 4, smooth, smooth_act,
                CK_NN_CROSS_ENTROPY, 11);
  gradient_case(ref, "4-5-3-3 tanh,sigmoid mse", 4, smooth, smooth_act,
                CK_NN_MSE, 12);
  gradient_case(ref, "3-6-4 relu ce", 3, relu, relu_act, CK_NN_CROSS_ENTROPY,
                13);
  gradient_case(ref, "3-6-4 relu mse", 3, relu, relu_act, CK_NN_MSE, 14);
  gradient_case(ref, "5-4-6-3-2 sigmoid,relu,tanh ce", 5, deep, deep_act,
                CK_NN_CROSS_ENTROPY, 15);
}

/* ---- 2. XOR ---------------------------------------------------------------
 */

static void xor_case(const ck_device *device, const char *name,
                     ck_nn_activation activation, ck_nn_loss loss,
                     unsigned epochs, double loss_limit) {
  static const size_t sizes[] = {2, 8, 2};
  ck_nn_config c;
  config_net(&c, 3, sizes, &activation, loss);
  c.optimizer = CK_NN_ADAM;
  c.learning_rate = 0.05;
  c.batch = 0;
  c.seed = 3;
  ck_dataset data;
  data_xor(&data, 2);
  ck_nn *nn = NULL;
  CHECK_OK(ck_nn_create(device, &c, &nn));
  if (nn) {
    CHECK_OK(ck_nn_set_preprocessing(nn, &data, CK_NORMALIZE_NONE));
    CHECK_OK(ck_nn_attach(nn, CK_NN_TRAIN, &data));
    double first_loss = NAN, final_loss = NAN, accuracy = NAN;
    CHECK_OK(ck_nn_evaluate(nn, CK_NN_TRAIN, &first_loss, NULL, NULL));
    ck_nn_training plan = {epochs, 0, NULL, NULL, 0};
    ck_nn_report report;
    CHECK_OK(ck_nn_train(nn, &plan, &report));
    CHECK(report.epochs == epochs && report.best_epoch == epochs);
    CHECK(report.stopped_by == CK_STOP_STEPS &&
          isnan(report.best_validation_loss) &&
          isnan(report.final_test_accuracy));
    CHECK_OK(ck_nn_evaluate(nn, CK_NN_TRAIN, &final_loss, &accuracy, NULL));
    CHECK_MSG(accuracy == 1.0 && final_loss < loss_limit &&
                  final_loss < first_loss / 5,
              "%s on %s: accuracy %g, loss %g (from %g; limit %g)", name,
              device->id, accuracy, final_loss, first_loss, loss_limit);
    uint64_t confusion[4];
    CHECK_OK(ck_nn_evaluate(nn, CK_NN_TRAIN, NULL, NULL, confusion));
    CHECK(confusion[0] == 4 && confusion[1] == 0 && confusion[2] == 0 &&
          confusion[3] == 4);
    int32_t predicted[8] = {0};
    CHECK_OK(ck_nn_predict(nn, &data, predicted));
    int right = 1;
    for (int r = 0; r < 8; ++r)
      right &= predicted[r] == data.labels[r];
    CHECK_MSG(right, "%s on %s: ck_nn_predict differs from the labels", name,
              device->id);
    printf("  xor %s on %s: loss %.4g -> %.4g\n", name, device->id, first_loss,
           final_loss);
  }
  ck_nn_destroy(nn);
  ck_dataset_free(&data);
}

static void xor_learned(const ck_device *device) {
  xor_case(device, "tanh+softmax", CK_NN_TANH, CK_NN_CROSS_ENTROPY, 300, 0.05);
  xor_case(device, "sigmoid+mse", CK_NN_SIGMOID, CK_NN_MSE, 500, 0.02);
}

/* ---- 2b. optimiser steps against the textbook rules ---------------------
 */

/*
 * A 2-3 softmax network with known weights on two fixed rows, trained
 * through ck_nn_train_epoch() with the whole set as one batch, so that an
 * epoch is one step and its gradient is known: the mean over the rows of
 * (softmax(z) - onehot) [x, 1]. After each of three steps every weight
 * and bias must match the update rules of docs/nn.md, worked out here in
 * double precision (not with the library's update code), with step t's
 * bias corrections 1 - beta^t:
 *   SGD:  v <- mu v + (g + lambda w);  w <- w - lr v  (biases: no lambda);
 *   Adam: m <- b1 m + (1 - b1) g;  s <- b2 s + (1 - b2) g^2;
 *         w <- w - lr (m / (1 - b1^t)) / (sqrt(s / (1 - b2^t)) + eps).
 * Momentum ignored or a bias correction left out moves some weight by
 * 1e-2 or more by the second step; float rounding leaves about 1e-7. eps
 * is 0.01 so that putting it inside the square root moves weights by
 * about 1e-3.
 */
enum { ORACLE_IN = 2, ORACLE_OUT = 3, ORACLE_ROWS = 2, ORACLE_STEPS = 3 };

static void optimizer_case(const ck_device *device, ck_nn_optimizer optimizer) {
  static const float x[ORACLE_ROWS][ORACLE_IN] = {{1.0f, -0.5f}, {0.25f, 2.0f}};
  static const int32_t y[ORACLE_ROWS] = {2, 0};
  static const float w0[ORACLE_OUT * ORACLE_IN] = {0.5f,   -0.25f, -0.75f,
                                                   0.125f, 0.25f,  1.0f};
  static const float b0[ORACLE_OUT] = {0.1f, -0.2f, 0.05f};
  static const size_t sizes[] = {ORACLE_IN, ORACLE_OUT};
  const int adam = optimizer == CK_NN_ADAM;
  const char *name = adam ? "adam" : "sgd momentum";
  ck_nn_config c;
  config_net(&c, 2, sizes, NULL, CK_NN_CROSS_ENTROPY);
  c.optimizer = optimizer;
  c.batch = 0; /* the whole set: one step an epoch */
  if (adam) {
    c.learning_rate = 0.05;
    c.beta1 = 0.9;
    c.beta2 = 0.999;
    c.epsilon = 0.01;
  } else {
    c.learning_rate = 0.5;
    c.momentum = 0.9;
    c.weight_decay = 0.1;
  }
  ck_dataset data;
  data_alloc(&data, ORACLE_ROWS, ORACLE_IN, ORACLE_OUT);
  memcpy(data.values, x, sizeof x);
  memcpy(data.labels, y, sizeof y);
  /* The oracle's parameters, [k][j]: weight of input j, j = ORACLE_IN the
   * bias; first (velocity or m) and second moments start at zero. */
  double p[ORACLE_OUT][ORACLE_IN + 1], first[ORACLE_OUT][ORACLE_IN + 1],
      second[ORACLE_OUT][ORACLE_IN + 1];
  memset(first, 0, sizeof first);
  memset(second, 0, sizeof second);
  for (int k = 0; k < ORACLE_OUT; ++k) {
    for (int j = 0; j < ORACLE_IN; ++j)
      p[k][j] = w0[k * ORACLE_IN + j];
    p[k][ORACLE_IN] = b0[k];
  }
  ck_nn *nn = NULL;
  CHECK_OK(ck_nn_create(device, &c, &nn));
  if (nn) {
    CHECK_OK(ck_nn_set_preprocessing(nn, &data, CK_NORMALIZE_NONE));
    CHECK_OK(ck_nn_attach(nn, CK_NN_TRAIN, &data));
    CHECK_OK(ck_nn_set_weights(nn, 0, w0, b0));
    double worst = 0;
    for (int t = 1; t <= ORACLE_STEPS; ++t) {
      /* The loss and the mean gradient at the current weights. */
      double g[ORACLE_OUT][ORACLE_IN + 1], loss = 0;
      memset(g, 0, sizeof g);
      for (int r = 0; r < ORACLE_ROWS; ++r) {
        double z[ORACLE_OUT], top = -INFINITY, sum = 0;
        for (int k = 0; k < ORACLE_OUT; ++k) {
          z[k] = p[k][ORACLE_IN];
          for (int j = 0; j < ORACLE_IN; ++j)
            z[k] += p[k][j] * x[r][j];
          top = fmax(top, z[k]);
        }
        for (int k = 0; k < ORACLE_OUT; ++k)
          sum += exp(z[k] - top);
        loss += (log(sum) + top - z[y[r]]) / ORACLE_ROWS;
        for (int k = 0; k < ORACLE_OUT; ++k) {
          double delta =
              (exp(z[k] - top) / sum - (k == y[r] ? 1.0 : 0.0)) / ORACLE_ROWS;
          for (int j = 0; j < ORACLE_IN; ++j)
            g[k][j] += delta * x[r][j];
          g[k][ORACLE_IN] += delta;
        }
      }
      /* The step, by the textbook rules. */
      double c1 = 1 - pow(c.beta1, t), c2 = 1 - pow(c.beta2, t);
      for (int k = 0; k < ORACLE_OUT; ++k)
        for (int j = 0; j <= ORACLE_IN; ++j) {
          double grad =
              g[k][j] + (j < ORACLE_IN ? c.weight_decay * p[k][j] : 0);
          if (adam) {
            first[k][j] = c.beta1 * first[k][j] + (1 - c.beta1) * grad;
            second[k][j] = c.beta2 * second[k][j] + (1 - c.beta2) * grad * grad;
            p[k][j] -= c.learning_rate * (first[k][j] / c1) /
                       (sqrt(second[k][j] / c2) + c.epsilon);
          } else {
            first[k][j] = c.momentum * first[k][j] + grad;
            p[k][j] -= c.learning_rate * first[k][j];
          }
        }
      ck_nn_epoch epoch;
      memset(&epoch, 0, sizeof epoch);
      CHECK_OK(ck_nn_train_epoch(nn, &epoch));
      CHECK_MSG(fabs(epoch.train_loss - loss) <= 1e-5 * loss,
                "%s on %s, step %d: training loss %.9g, by hand %.9g", name,
                device->id, t, epoch.train_loss, loss);
      float w[ORACLE_OUT * ORACLE_IN], b[ORACLE_OUT];
      CHECK_OK(ck_nn_get_weights(nn, 0, w, b));
      for (int k = 0; k < ORACLE_OUT; ++k)
        for (int j = 0; j <= ORACLE_IN; ++j) {
          double got = j < ORACLE_IN ? w[k * ORACLE_IN + j] : b[k];
          double off = fabs(got - p[k][j]);
          worst = fmax(worst, off);
          char which[32] = "bias";
          if (j < ORACLE_IN)
            snprintf(which, sizeof which, "weight %d", j);
          CHECK_MSG(off <= 1e-5,
                    "%s on %s, step %d: output %d's %s is %.9g, by hand %.9g",
                    name, device->id, t, k, which, got, p[k][j]);
        }
    }
    printf("  %s on %s: %d steps within %.2g of the update rules\n", name,
           device->id, ORACLE_STEPS, worst);
  }
  ck_nn_destroy(nn);
  ck_dataset_free(&data);
}

static void optimizer_steps(const ck_device *device) {
  optimizer_case(device, CK_NN_SGD);
  optimizer_case(device, CK_NN_ADAM);
}

/* ---- 3. ref and OpenCL agree ----------------------------------------------
 */

typedef struct agree_data {
  ck_dataset train, validation, test;
} agree_data;

static ck_nn *agree_net(const ck_device *device, const ck_nn_config *config,
                        int double_precision, const ck__nn_tuning *tuning,
                        const agree_data *data) {
  ck_nn *nn = NULL;
  CHECK_OK(ck__nn_create(device, config, double_precision, tuning, &nn));
  if (!nn)
    return NULL;
  CHECK_OK(ck_nn_set_preprocessing(nn, &data->train, CK_NORMALIZE_ZSCORE));
  CHECK_OK(ck_nn_attach(nn, CK_NN_TRAIN, &data->train));
  CHECK_OK(ck_nn_attach(nn, CK_NN_VALIDATION, &data->validation));
  CHECK_OK(ck_nn_attach(nn, CK_NN_TEST, &data->test));
  return nn;
}

static void agree_case(const ck_device *ref, const ck_device *ocl,
                       const ck_nn_config *config, int double_precision,
                       const ck__nn_tuning *tuning, const agree_data *data,
                       const char *name) {
  static const char *const forms[] = {"global", "local", "vector"};
  char what[200];
  worst_weight_seen = worst_loss_seen = 0;
  snprintf(what, sizeof what, "%s %s %s:%u", name,
           double_precision ? "f64" : "f32",
           tuning ? forms[tuning->form] : "auto", tuning ? tuning->tile : 0);
  /* Weights to 1e-4 of their scale in float (1e-9 in double); losses to
   * 1e-5 (1e-10) relative. */
  double weight_tolerance = double_precision ? 1e-9 : 1e-4;
  double loss_tolerance = double_precision ? 1e-10 : 1e-5;
  ck_nn *a = agree_net(ref, config, double_precision, NULL, data);
  ck_nn *b = agree_net(ocl, config, double_precision, tuning, data);
  if (!a || !b) {
    ck_nn_destroy(a);
    ck_nn_destroy(b);
    return;
  }
  nn_state *sb = ck__nn_state(b);
  /* Unasked, GPUs stage tiles in local memory and CPUs take vectors. */
  ck__nn_form form = tuning                     ? tuning->form
                     : ocl->kind == CK_KIND_GPU ? CK__NN_LOCAL
                                                : CK__NN_VECTOR;
  CHECK_MSG((!tuning || sb->tile_m == tuning->tile) && sb->form == form,
            "%s: %s:%u in use", what, forms[sb->form], sb->tile_m);
  CHECK_MSG(weights_identical(a, b), "%s: initial weights differ", what);

  /* Forward twin: per-sample losses and predictions of the test set. */
  uint32_t rows = (uint32_t)data->test.rows;
  double loss_a, loss_b, accuracy_a, accuracy_b;
  CHECK_OK(ck_nn_evaluate(a, CK_NN_TEST, &loss_a, &accuracy_a, NULL));
  CHECK_OK(ck_nn_evaluate(b, CK_NN_TEST, &loss_b, &accuracy_b, NULL));
  CHECK_MSG(near_relative(loss_a, loss_b, loss_tolerance),
            "%s: forward mean loss %.9g vs %.9g", what, loss_a, loss_b);
  uint32_t batch = (uint32_t)config->batch;
  size_t entries = rows > 2 * batch ? rows : 2 * batch;
  double *losses_a = calloc(entries, sizeof(double));
  double *losses_b = calloc(entries, sizeof(double));
  int32_t *predictions_a = calloc(rows, sizeof(int32_t));
  int32_t *predictions_b = calloc(rows, sizeof(int32_t));
  read_losses(a, rows, losses_a);
  read_losses(b, rows, losses_b);
  read_words(a, ck__nn_state(a)->predictions, rows, predictions_a);
  read_words(b, sb->predictions, rows, predictions_b);
  uint32_t loss_off = 0, prediction_off = 0;
  for (uint32_t r = 0; r < rows; ++r) {
    loss_off += !near_relative(losses_a[r], losses_b[r], loss_tolerance);
    prediction_off += predictions_a[r] != predictions_b[r];
  }
  CHECK_MSG(loss_off == 0, "%s: %u of %u per-sample forward losses differ",
            what, loss_off, rows);
  CHECK_MSG(prediction_off == 0, "%s: %u of %u predictions differ", what,
            prediction_off, rows);
  CHECK(accuracy_a == accuracy_b);

  /* Backward + update twins: two batches of the identity order (the
   * second at an offset), then the weights and per-sample losses. */
  write_identity_order(a);
  write_identity_order(b);
  for (unsigned t = 1; t <= 2; ++t) {
    ck__nn_update u = update_for(config, t);
    CHECK_OK(ck__nn_train_batch(a, (t - 1) * batch, batch, &u));
    CHECK_OK(ck__nn_train_batch(b, (t - 1) * batch, batch, &u));
  }
  check_weights_near(a, b, weight_tolerance, what);
  read_losses(a, 2 * batch, losses_a);
  read_losses(b, 2 * batch, losses_b);
  loss_off = 0;
  for (uint32_t r = 0; r < 2 * batch; ++r)
    loss_off += !near_relative(losses_a[r], losses_b[r], loss_tolerance);
  CHECK_MSG(loss_off == 0, "%s: %u of %u per-sample training losses differ",
            what, loss_off, 2 * batch);
  ck_nn_destroy(a);
  ck_nn_destroy(b);

  /* Two whole epochs. */
  a = agree_net(ref, config, double_precision, NULL, data);
  b = agree_net(ocl, config, double_precision, tuning, data);
  for (unsigned e = 1; a && b && e <= 2; ++e) {
    ck_nn_epoch ea, eb;
    CHECK_OK(ck_nn_train_epoch(a, &ea));
    CHECK_OK(ck_nn_train_epoch(b, &eb));
    CHECK(ea.epoch == e && eb.epoch == e);
    CHECK_MSG(near_relative(ea.train_loss, eb.train_loss, loss_tolerance) &&
                  near_relative(ea.validation_loss, eb.validation_loss,
                                loss_tolerance) &&
                  near_relative(ea.test_loss, eb.test_loss, loss_tolerance),
              "%s epoch %u: losses train %.9g/%.9g validation %.9g/%.9g "
              "test %.9g/%.9g",
              what, e, ea.train_loss, eb.train_loss, ea.validation_loss,
              eb.validation_loss, ea.test_loss, eb.test_loss);
    CHECK_MSG(ea.train_accuracy == eb.train_accuracy &&
                  ea.validation_accuracy == eb.validation_accuracy &&
                  ea.test_accuracy == eb.test_accuracy,
              "%s epoch %u: accuracies %g/%g %g/%g %g/%g", what, e,
              ea.train_accuracy, eb.train_accuracy, ea.validation_accuracy,
              eb.validation_accuracy, ea.test_accuracy, eb.test_accuracy);
    CHECK(ea.learning_rate == eb.learning_rate);
  }
  if (a && b)
    check_weights_near(a, b, weight_tolerance, what);
  /* In single precision on CUDA, a step of a full batch is recorded once
   * and replayed: the agreement above held for the replays. */
  if (b && ocl->backend == CK_BACKEND_CUDA && !double_precision)
    CHECK_MSG(ck__nn_state(b)->graph &&
                  ck__nn_state(b)->graph_count == (uint32_t)config->batch &&
                  ck__nn_state(b)->replays > 0,
              "%s: %llu replays of a step of %zu rows", what,
              (unsigned long long)ck__nn_state(b)->replays, config->batch);
  printf("  %s: weights within %.2g of their scale, losses within %.2g\n", what,
         worst_weight_seen, worst_loss_seen);
  ck_nn_destroy(a);
  ck_nn_destroy(b);
  free(losses_a);
  free(losses_b);
  free(predictions_a);
  free(predictions_b);
}

static void agree_data_make(agree_data *data, size_t features, size_t classes,
                            size_t train_rows, uint64_t seed) {
  data_random(&data->train, train_rows, features, classes, seed, NULL, NULL);
  data_random(&data->validation, 19, features, classes, seed + 1, NULL, NULL);
  data_random(&data->test, 29, features, classes, seed + 2, NULL, NULL);
}

static void agree_data_free(agree_data *data) {
  ck_dataset_free(&data->train);
  ck_dataset_free(&data->validation);
  ck_dataset_free(&data->test);
}

/* A 3-5-4 tanh network with cross-entropy, seeded: the large cases' net,
 * small enough that their rows, not the net, make the work. */
static void config_small_tanh(ck_nn_config *c, uint64_t seed) {
  static const size_t sizes[] = {3, 5, 4};
  static const ck_nn_activation act[] = {CK_NN_TANH};
  config_net(c, 3, sizes, act, CK_NN_CROSS_ENTROPY);
  c->seed = seed;
}

/* A set larger than one evaluation chunk (4096 rows): the mean over the
 * whole set on both devices, and on each device the second chunk's
 * per-sample losses against the same rows evaluated as a set of their
 * own (the forward pass from a row offset). */
static void large_set(const ck_device *ref, const ck_device *ocl) {
  ck_nn_config c;
  config_small_tanh(&c, 77);
  const uint32_t rows = 5000, first = 4096, tail_rows = rows - first;
  ck_dataset big, tail;
  data_random(&big, rows, 3, 4, 78, NULL, NULL);
  data_alloc(&tail, tail_rows, 3, 4);
  memcpy(tail.values, big.values + (size_t)first * 3,
         (size_t)tail_rows * 3 * sizeof(float));
  memcpy(tail.labels, big.labels + first, tail_rows * sizeof(int32_t));
  double *whole = calloc(rows, sizeof(double));
  double *part = calloc(tail_rows, sizeof(double));
  double loss[2] = {NAN, NAN}, accuracy[2] = {NAN, NAN};
  const ck_device *devices[2] = {ref, ocl};
  for (int d = 0; d < 2; ++d) {
    ck_nn *nn = NULL;
    CHECK_OK(ck_nn_create(devices[d], &c, &nn));
    if (!nn)
      continue;
    CHECK_OK(ck_nn_set_preprocessing(nn, &big, CK_NORMALIZE_NONE));
    CHECK_OK(ck_nn_attach(nn, CK_NN_TEST, &big));
    CHECK_OK(ck_nn_evaluate(nn, CK_NN_TEST, &loss[d], &accuracy[d], NULL));
    read_losses(nn, rows, whole);
    double sum = 0;
    for (uint32_t r = 0; r < rows; ++r)
      sum += whole[r];
    CHECK_MSG(fabs(sum / rows - loss[d]) <= 1e-6 * loss[d],
              "%s: mean loss %.9g, mean of the per-sample losses %.9g",
              devices[d]->id, loss[d], sum / rows);
    CHECK_OK(ck_nn_attach(nn, CK_NN_VALIDATION, &tail));
    CHECK_OK(ck_nn_evaluate(nn, CK_NN_VALIDATION, NULL, NULL, NULL));
    read_losses(nn, tail_rows, part);
    uint32_t off = 0;
    for (uint32_t r = 0; r < tail_rows; ++r)
      off += part[r] != whole[first + r];
    CHECK_MSG(off == 0, "%s: %u of the rows after %u score otherwise alone",
              devices[d]->id, off, first);
    ck_nn_destroy(nn);
  }
  CHECK_MSG(near_relative(loss[0], loss[1], 1e-5) && accuracy[0] == accuracy[1],
            "5000 rows: loss %.9g / %.9g, accuracy %g / %g", loss[0], loss[1],
            accuracy[0], accuracy[1]);
  free(whole);
  free(part);
  ck_dataset_free(&big);
  ck_dataset_free(&tail);
}

/* On CUDA, a training step whose recording fails (a call no recording
 * takes, made by the tuning's spoil_recording) is made call by call, and
 * so is every later one: training goes on, and agrees with ref. */
static void recording_refused(const ck_device *ref, const ck_device *cuda) {
  static const size_t sizes[] = {7, 13, 5};
  static const ck_nn_activation act[] = {CK_NN_RELU};
  ck_nn_config c;
  config_net(&c, 3, sizes, act, CK_NN_CROSS_ENTROPY);
  c.batch = 11;
  agree_data data;
  agree_data_make(&data, 7, 5, 37, 23);
  const ck__nn_tuning spoil = {.spoil_recording = 1};
  ck_nn *a = agree_net(ref, &c, 0, NULL, &data);
  ck_nn *b = agree_net(cuda, &c, 0, &spoil, &data);
  for (unsigned e = 1; a && b && e <= 2; ++e) {
    ck_nn_epoch ea, eb;
    CHECK_OK(ck_nn_train_epoch(a, &ea));
    CHECK_OK(ck_nn_train_epoch(b, &eb));
    CHECK_MSG(near_relative(ea.train_loss, eb.train_loss, 1e-5) &&
                  near_relative(ea.test_loss, eb.test_loss, 1e-5),
              "unrecorded steps, epoch %u: losses train %.9g/%.9g test "
              "%.9g/%.9g",
              e, ea.train_loss, eb.train_loss, ea.test_loss, eb.test_loss);
  }
  if (a && b) {
    check_weights_near(a, b, 1e-4, "unrecorded steps");
    nn_state *state = ck__nn_state(b);
    CHECK_MSG(state->recording_refused && !state->graph && state->replays == 0,
              "a spoilt recording: refused %d, graph %p, %llu replays",
              state->recording_refused, state->graph,
              (unsigned long long)state->replays);
    printf("  a spoilt recording on %s: steps made call by call, weights "
           "within %.2g of ref's\n",
           cuda->id, worst_weight_seen);
  }
  ck_nn_destroy(a);
  ck_nn_destroy(b);
  agree_data_free(&data);
}

/* A batch of more rows than a gather launch has rows of work-items
 * (32,768: nn_opencl.c), in an order that is not the identity: on each
 * device the gathered batch holds the ordered rows and their labels, and
 * one step on it moves the weights as ref's step does. */
static void large_batch(const ck_device *ref, const ck_device *ocl) {
  const uint32_t rows = 70001;
  ck_nn_config c;
  config_small_tanh(&c, 91);
  c.batch = rows;
  ck_dataset train;
  data_random(&train, rows, 3, 4, 92, NULL, NULL);
  uint32_t *order = malloc(rows * sizeof *order);
  float *gathered = malloc((size_t)rows * 3 * sizeof *gathered);
  int32_t *labels = malloc(rows * sizeof *labels);
  for (uint32_t i = 0; i < rows; ++i)
    order[i] = (uint32_t)(((uint64_t)i * 40009u + 7u) % rows);
  const ck_device *devices[2] = {ref, ocl};
  ck_nn *nets[2] = {NULL, NULL};
  for (int d = 0; d < 2; ++d) {
    CHECK_OK(ck_nn_create(devices[d], &c, &nets[d]));
    if (!nets[d])
      continue;
    nn_state *state = ck__nn_state(nets[d]);
    CHECK_OK(ck_nn_set_preprocessing(nets[d], &train, CK_NORMALIZE_NONE));
    CHECK_OK(ck_nn_attach(nets[d], CK_NN_TRAIN, &train));
    CHECK_OK(ck_buffer_write(state->queue, state->index, 0,
                             rows * sizeof *order, order, CK_BLOCKING, NULL));
    ck__nn_update u = update_for(&c, 1);
    CHECK_OK(ck__nn_train_batch(nets[d], 0, rows, &u));
    CHECK_OK(ck_buffer_read(state->queue, state->activations[0], 0,
                            (size_t)rows * 3 * sizeof *gathered, gathered,
                            CK_BLOCKING, NULL));
    read_words(nets[d], state->batch_labels, rows, labels);
    uint32_t off = 0;
    for (uint32_t b = 0; b < rows; ++b)
      off +=
          memcmp(gathered + (size_t)b * 3, train.values + (size_t)order[b] * 3,
                 3 * sizeof *gathered) != 0 ||
          labels[b] != train.labels[order[b]];
    CHECK_MSG(off == 0, "%s: %u of %u rows of a batch gathered wrongly",
              devices[d]->id, off, rows);
  }
  if (nets[0] && nets[1])
    check_weights_near(nets[0], nets[1], 1e-4, "a batch of 70,001 rows");
  ck_nn_destroy(nets[0]);
  ck_nn_destroy(nets[1]);
  free(order);
  free(gathered);
  free(labels);
  ck_dataset_free(&train);
}

static void agreement(const ck_device *ref, const ck_device *ocl) {
  printf("ref and %s agree\n", ocl->id);
  /* 37 rows in batches of 11 (the last of 4); 53 rows in batches of 21
   * (the last of 11), with widths past one 16-wide tile and depths past
   * one 16-deep slice. */
  agree_data small, wide;
  agree_data_make(&small, 7, 5, 37, 21);
  agree_data_make(&wide, 17, 5, 53, 31);

  ck_nn_config relu, smooth;
  static const size_t relu_sizes[] = {7, 13, 5};
  static const ck_nn_activation relu_act[] = {CK_NN_RELU};
  config_net(&relu, 3, relu_sizes, relu_act, CK_NN_CROSS_ENTROPY);
  relu.optimizer = CK_NN_ADAM;
  relu.learning_rate = 0.01;
  relu.batch = 11;
  relu.seed = 41;
  static const size_t smooth_sizes[] = {17, 33, 9, 5};
  static const ck_nn_activation smooth_act[] = {CK_NN_SIGMOID, CK_NN_TANH};
  config_net(&smooth, 4, smooth_sizes, smooth_act, CK_NN_MSE);
  smooth.optimizer = CK_NN_SGD;
  smooth.learning_rate = 0.5;
  smooth.momentum = 0.9;
  smooth.weight_decay = 0.01;
  smooth.batch = 21;
  smooth.seed = 42;
  const char *relu_name = "7-13-5 relu ce adam";
  const char *smooth_name = "17-33-9-5 sigmoid,tanh mse sgd";

  /* Each form, with ragged tiles: the vector form's 16-wide tiles hold
   * one work-item. */
  const ck__nn_tuning tunings[] = {{.tile = 16, .form = CK__NN_LOCAL},
                                   {.tile = 8, .form = CK__NN_GLOBAL},
                                   {.tile = 16, .form = CK__NN_VECTOR}};
  agree_case(ref, ocl, &relu, 0, NULL, &small, relu_name);
  agree_case(ref, ocl, &smooth, 0, NULL, &wide, smooth_name);
  for (int t = 0; t < 3; ++t) {
    if (tunings[t].form == CK__NN_VECTOR && ocl->backend == CK_BACKEND_CUDA) {
      /* OpenCL C's vectors have no CUDA spelling: refused, not built. */
      ck_nn *refused = NULL;
      CHECK(ck__nn_create(ocl, &relu, 0, &tunings[t], &refused) ==
                CK_ERROR_UNSUPPORTED &&
            !refused);
      const char *message = "";
      ck_error_get_last(&message);
      CHECK_MSG(strstr(message, "--tiles") != NULL, "refusal: %s", message);
      ck_nn_destroy(refused);
      continue;
    }
    agree_case(ref, ocl, &relu, 0, &tunings[t], &small, relu_name);
    agree_case(ref, ocl, &smooth, 0, &tunings[t], &wide, smooth_name);
  }
  if (ocl->has_fp64) {
    agree_case(ref, ocl, &relu, 1, NULL, &small, relu_name);
    agree_case(ref, ocl, &smooth, 1, NULL, &wide, smooth_name);
    agree_case(ref, ocl, &smooth, 1, &tunings[0], &wide, smooth_name);
  } else {
    printf("  %s has no double precision: f64 agreement skipped\n", ocl->id);
  }
  /* Edge shapes: online steps (batch 1), a hidden layer of one unit, a
   * 300-wide input (many K slices), and the deepest network. */
  agree_data edge, deep_data;
  agree_data_make(&edge, 300, 2, 5, 51);
  agree_data_make(&deep_data, 3, 3, 24, 52);
  ck_nn_config online, deepest;
  static const size_t online_sizes[] = {300, 1, 2};
  static const ck_nn_activation online_act[] = {CK_NN_SIGMOID};
  config_net(&online, 3, online_sizes, online_act, CK_NN_CROSS_ENTROPY);
  online.learning_rate = 0.01;
  online.batch = 1;
  online.seed = 43;
  size_t deep_sizes[CK_NN_MAX_LAYERS + 1];
  ck_nn_activation deep_act[CK_NN_MAX_LAYERS];
  for (int l = 0; l <= CK_NN_MAX_LAYERS; ++l)
    deep_sizes[l] = 3 + (size_t)(l % 3);
  deep_sizes[0] = deep_sizes[CK_NN_MAX_LAYERS] = 3;
  for (int l = 0; l < CK_NN_MAX_LAYERS; ++l)
    deep_act[l] = l % 2 ? CK_NN_TANH : CK_NN_SIGMOID;
  config_net(&deepest, CK_NN_MAX_LAYERS + 1, deep_sizes, deep_act,
             CK_NN_CROSS_ENTROPY);
  deepest.optimizer = CK_NN_SGD;
  deepest.momentum = 0.5;
  deepest.learning_rate = 0.1;
  deepest.batch = 7;
  deepest.seed = 44;
  agree_case(ref, ocl, &online, 0, NULL, &edge, "300-1-2 sigmoid online");
  agree_case(ref, ocl, &online, 0, &tunings[0], &edge,
             "300-1-2 sigmoid online");
  agree_case(ref, ocl, &deepest, 0, NULL, &deep_data, "16 layers");
  agree_case(ref, ocl, &deepest, 0, &tunings[0], &deep_data, "16 layers");
  agree_data_free(&edge);
  agree_data_free(&deep_data);
  large_set(ref, ocl);
  agree_data_free(&small);
  agree_data_free(&wide);
}

/* Weights rows on a wider multiple (as the CUDA steps lay them out for
 * cuBLAS), on ref: every value, model file and epoch kept by early
 * stopping the same as with packed rows, and the padding left zero. */
static void padded_case(const ck_device *ref, const ck_nn_config *config,
                        int double_precision, unsigned multiple,
                        const agree_data *data, const char *dir) {
  char what[100], path[1200];
  snprintf(what, sizeof what, "rows on %u reals, %s", multiple,
           double_precision ? "f64" : "f32");
  const ck__nn_tuning padded = {.row_multiple = multiple};
  ck_nn *a = agree_net(ref, config, double_precision, NULL, data);
  ck_nn *b = agree_net(ref, config, double_precision, &padded, data);
  ck_nn *loaded = NULL, *loaded_padded = NULL;
  if (!a || !b)
    goto done;
  nn_state *s = ck__nn_state(b);
  int wider = 0;
  for (int l = 1; l <= s->layers; ++l) {
    uint32_t row = s->sizes[l - 1] + 1;
    CHECK_MSG(s->pitch[l] % multiple == 0 && s->pitch[l] >= row &&
                  s->pitch[l] < row + multiple,
              "%s: layer %d pitch %u for rows of %u", what, l, s->pitch[l],
              row);
    wider |= s->pitch[l] != row;
    CHECK(ck__nn_state(a)->pitch[l] == row);
  }
  CHECK_MSG(wider, "%s: no layer padded", what);
  CHECK_MSG(weights_identical(a, b), "%s: initial weights differ", what);
  /* Random labels: the validation loss rises once the training set is
   * learned by heart, and early stopping restores an earlier epoch's
   * weights (kept and restored as whole buffers). */
  ck_nn_training plan = {40, 2, NULL, NULL, 0};
  ck_nn_report report_a, report_b;
  CHECK_OK(ck_nn_train(a, &plan, &report_a));
  CHECK_OK(ck_nn_train(b, &plan, &report_b));
  CHECK_MSG(report_a.best_epoch == report_b.best_epoch &&
                report_a.epochs == report_b.epochs &&
                report_a.best_validation_loss == report_b.best_validation_loss,
            "%s: best epoch %u of %u (%.9g) vs %u of %u (%.9g)", what,
            report_a.best_epoch, report_a.epochs, report_a.best_validation_loss,
            report_b.best_epoch, report_b.epochs,
            report_b.best_validation_loss);
  CHECK_MSG(report_b.stopped_by == CK_STOP_EARLY &&
                report_b.best_epoch < report_b.epochs,
            "%s: best epoch %u of %u: no earlier epoch restored", what,
            report_b.best_epoch, report_b.epochs);
  printf("  %s: epoch %u of %u kept, the same as with packed rows\n", what,
         report_b.best_epoch, report_b.epochs);
  CHECK_MSG(weights_identical(a, b), "%s: trained weights differ", what);
  double loss_a = NAN, loss_b = NAN;
  CHECK_OK(ck_nn_evaluate(a, CK_NN_TEST, &loss_a, NULL, NULL));
  CHECK_OK(ck_nn_evaluate(b, CK_NN_TEST, &loss_b, NULL, NULL));
  CHECK_MSG(loss_a == loss_b, "%s: test loss %.9g vs %.9g", what, loss_a,
            loss_b);
  /* Adam's two states use the same padding, and training wrote none of
   * it. */
  for (int l = 1; l <= s->layers; ++l) {
    ck_buffer *held[3] = {s->weights[l], s->first[l], s->second[l]};
    for (int h = 0; h < 3; ++h) {
      void *pointer = NULL;
      CHECK_OK(ck_buffer_get_host_pointer(held[h], &pointer));
      size_t nonzero = 0;
      for (size_t o = 0; pointer && o < s->sizes[l]; ++o)
        for (size_t i = s->sizes[l - 1] + 1; i < s->pitch[l]; ++i) {
          size_t at = o * s->pitch[l] + i;
          nonzero += double_precision ? ((double *)pointer)[at] != 0
                                      : ((float *)pointer)[at] != 0;
        }
      CHECK_MSG(nonzero == 0, "%s: layer %d buffer %d: %zu padding reals set",
                what, l, h, nonzero);
    }
  }
  snprintf(path, sizeof path, "%s/padded-%u-%d.ckn", dir, multiple,
           double_precision);
  CHECK_OK(ck_nn_save(b, path));
  CHECK_OK(ck_nn_load(ref, path, NULL, &loaded));
  CHECK_OK(ck__nn_model_load(ref, path, NULL, &padded, &loaded_padded));
  if (loaded && loaded_padded) {
    CHECK_MSG(weights_identical(a, loaded), "%s: loaded packed differ", what);
    CHECK_MSG(weights_identical(a, loaded_padded), "%s: loaded padded differ",
              what);
    CHECK(ck__nn_state(loaded_padded)->pitch[1] == s->pitch[1]);
  }
done:
  ck_nn_destroy(a);
  ck_nn_destroy(b);
  ck_nn_destroy(loaded);
  ck_nn_destroy(loaded_padded);
}

static void padded_rows(const ck_device *ref, const ck_device *ocl) {
  printf("padded weights rows\n");
  agree_data data;
  agree_data_make(&data, 7, 5, 37, 61);
  static const size_t sizes[] = {7, 13, 6, 5};
  static const ck_nn_activation act[] = {CK_NN_RELU, CK_NN_TANH};
  ck_nn_config c;
  config_net(&c, 4, sizes, act, CK_NN_CROSS_ENTROPY);
  c.optimizer = CK_NN_ADAM;
  c.learning_rate = 0.05;
  c.weight_decay = 0.01;
  c.batch = 8;
  c.seed = 62;
  char dir[1100];
  snprintf(dir, sizeof dir, "%s/padded", work_dir);
  CHECK(mkdir(dir, 0700) == 0);
  padded_case(ref, &c, 0, 4, &data, dir);
  padded_case(ref, &c, 0, 3, &data, dir);
  padded_case(ref, &c, 1, 8, &data, dir);
  agree_data_free(&data);
  /* The OpenCL kernels take packed rows only: asked for others, refused. */
  if (ocl) {
    const ck__nn_tuning padded = {.row_multiple = 4};
    ck_nn *refused = NULL;
    CHECK(ck__nn_create(ocl, &c, ocl->backend == CK_BACKEND_CUDA, &padded,
                        &refused) == CK_ERROR_UNSUPPORTED &&
          !refused);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(strstr(message, "packed") != NULL, "refusal: %s", message);
    ck_nn_destroy(refused);
  }
}

/* ---- 4. reproducibility and shuffles ------------------------------------- */

static ck_nn *repro_net(const ck_device *device, uint64_t seed,
                        const ck_dataset *data, uint32_t *order1,
                        uint32_t *order2) {
  static const size_t sizes[] = {7, 13, 5};
  static const ck_nn_activation act[] = {CK_NN_RELU};
  ck_nn_config c;
  config_net(&c, 3, sizes, act, CK_NN_CROSS_ENTROPY);
  c.learning_rate = 0.01;
  c.batch = 11;
  c.seed = seed;
  ck_nn *nn = NULL;
  CHECK_OK(ck_nn_create(device, &c, &nn));
  if (!nn)
    return NULL;
  CHECK_OK(ck_nn_set_preprocessing(nn, data, CK_NORMALIZE_ZSCORE));
  CHECK_OK(ck_nn_attach(nn, CK_NN_TRAIN, data));
  nn_state *s = ck__nn_state(nn);
  ck_nn_epoch epoch;
  CHECK_OK(ck_nn_train_epoch(nn, &epoch));
  read_words(nn, s->index, (uint32_t)data->rows, order1);
  CHECK_OK(ck_nn_train_epoch(nn, &epoch));
  read_words(nn, s->index, (uint32_t)data->rows, order2);
  return nn;
}

static int is_permutation(const uint32_t *order, uint32_t rows) {
  char seen[64] = {0};
  for (uint32_t i = 0; i < rows; ++i) {
    if (order[i] >= rows || seen[order[i]])
      return 0;
    seen[order[i]] = 1;
  }
  return 1;
}

static void reproducibility(const ck_device *device) {
  ck_dataset data;
  data_random(&data, 37, 7, 5, 31, NULL, NULL);
  uint32_t a1[37], a2[37], b1[37], b2[37], c1[37], c2[37];
  ck_nn *a = repro_net(device, 5, &data, a1, a2);
  ck_nn *b = repro_net(device, 5, &data, b1, b2);
  ck_nn *c = repro_net(device, 6, &data, c1, c2);
  if (a && b && c) {
    CHECK_MSG(weights_identical(a, b),
              "%s: the same seed gave different weights", device->id);
    CHECK_MSG(!weights_identical(a, c),
              "%s: seeds 5 and 6 gave the same weights", device->id);
    CHECK(is_permutation(a1, 37) && is_permutation(a2, 37));
    CHECK_MSG(memcmp(a1, a2, sizeof a1) != 0,
              "%s: epochs 1 and 2 visit rows in the same order", device->id);
    CHECK(memcmp(a1, b1, sizeof a1) == 0 && memcmp(a2, b2, sizeof a2) == 0);
    CHECK_MSG(memcmp(a1, c1, sizeof a1) != 0, "%s: seeds 5 and 6 shuffle alike",
              device->id);
    int identity = 1;
    for (uint32_t i = 0; i < 37; ++i)
      identity &= a1[i] == i;
    CHECK(!identity);
  }
  ck_nn_destroy(a);
  ck_nn_destroy(b);
  ck_nn_destroy(c);
  ck_dataset_free(&data);
}

/* ---- 5. save and load -----------------------------------------------------
 */

static const char *const letters[] = {"A", "B", "C"};

/* Rows with class names A, B, C and features on very different scales. */
static void data_letters(ck_dataset *d, size_t rows, uint64_t seed) {
  static const double offset[3] = {100, -5, 0.01};
  static const double scale[3] = {20, 3, 0.001};
  data_random(d, rows, 3, 3, seed, offset, scale);
  data_names(d, letters);
}

/* A trained 3-6-4 tanh network with class names and z-score scaling. */
static ck_nn *letters_net(const ck_device *device, const ck_dataset *train) {
  static const size_t sizes[] = {3, 6, 4};
  static const ck_nn_activation act[] = {CK_NN_TANH};
  ck_nn_config c;
  config_net(&c, 3, sizes, act, CK_NN_CROSS_ENTROPY);
  c.learning_rate = 0.02;
  c.batch = 8;
  c.seed = 9;
  ck_nn *nn = NULL;
  CHECK_OK(ck_nn_create(device, &c, &nn));
  if (!nn)
    return NULL;
  CHECK_OK(ck_nn_set_preprocessing(nn, train, CK_NORMALIZE_ZSCORE));
  CHECK_OK(ck_nn_attach(nn, CK_NN_TRAIN, train));
  ck_nn_training plan = {5, 0, NULL, NULL, 0};
  ck_nn_report report;
  CHECK_OK(ck_nn_train(nn, &plan, &report));
  return nn;
}

static size_t directory_entries(const char *path, char *first,
                                size_t capacity) {
  size_t count = 0;
  DIR *dir = opendir(path);
  if (!dir)
    return 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
      continue;
    if (count++ == 0)
      snprintf(first, capacity, "%s", entry->d_name);
  }
  closedir(dir);
  return count;
}

/* ck_nn_predict_proba: rows of `width` probabilities summing to 1, the
 * first largest of each the class ck_nn_predict gave (classes). */
static void check_probabilities(ck_nn *nn, const ck_dataset *data,
                                const int32_t *classes, size_t width) {
  double *p = calloc(data->rows * width, sizeof *p);
  if (!p)
    return;
  CHECK_OK(ck_nn_predict_proba(nn, data, p));
  for (size_t r = 0; r < data->rows; ++r) {
    double sum = 0;
    size_t best = 0;
    for (size_t k = 0; k < width; ++k) {
      CHECK(p[r * width + k] >= 0 && p[r * width + k] <= 1);
      sum += p[r * width + k];
      best = p[r * width + k] > p[r * width + best] ? k : best;
    }
    CHECK_MSG(fabs(sum - 1) < 1e-12 && (int32_t)best == classes[r],
              "row %zu: probabilities sum to %.17g, largest %zu, class %d", r,
              sum, best, classes[r]);
  }
  free(p);
}

/* The bytes of a whole file, or NULL; *size set. */
static uint8_t *file_bytes(const char *path, size_t *size) {
  FILE *file = fopen(path, "rb");
  uint8_t *bytes = NULL;
  long length = -1;
  if (file && fseek(file, 0, SEEK_END) == 0 && (length = ftell(file)) >= 0 &&
      fseek(file, 0, SEEK_SET) == 0 && (bytes = malloc((size_t)length + 1)) &&
      fread(bytes, 1, (size_t)length, file) != (size_t)length) {
    free(bytes);
    bytes = NULL;
  }
  if (file)
    fclose(file);
  *size = bytes ? (size_t)length : 0;
  if (bytes)
    bytes[*size] = 0;
  return bytes;
}

/* A letters net (3,6,4, tanh, classes A, B, C and 3) as safetensors: the
 * header's metadata and tensors, and the first layer's weights in it. */
static void check_safetensors(ck_nn *nn, const char *directory) {
  char path[1200], other[1200];
  snprintf(path, sizeof path, "%s/model.safetensors", directory);
  snprintf(other, sizeof other, "%s/model.bin", directory);
  CHECK_OK(ck_nn_save(nn, path));
  CHECK_OK(ck_nn_save_as(nn, other, CK_NN_FORMAT_SAFETENSORS));
  size_t size = 0, other_size = 0;
  uint8_t *bytes = file_bytes(path, &size);
  uint8_t *same = file_bytes(other, &other_size);
  CHECK(bytes && same && size == other_size && memcmp(bytes, same, size) == 0);
  free(same);
  if (!bytes || size < 8)
    return;
  uint64_t header = 0;
  for (int i = 7; i >= 0; --i)
    header = header << 8 | bytes[i];
  /* 2 x 3 normalisation, 6 x 4 + 6 and 4 x 7 weights and biases. */
  size_t data = (6 + 6 * 3 + 6 + 4 * 6 + 4) * sizeof(float);
  CHECK_MSG(header % 8 == 0 && 8 + header + data == size,
            "%s: header of %llu bytes, %zu bytes in all", path,
            (unsigned long long)header, size);
  const char *json = (const char *)bytes + 8;
  const char *expected[] = {
      "{\"__metadata__\":{\"format\":\"pt\",\"layers\":\"3,6,4\","
      "\"activations\":\"tanh\",\"loss\":\"ce\",\"output\":\"softmax\","
      "\"normalize\":\"zscore\","
      "\"classes\":\"[\\\"A\\\",\\\"B\\\",\\\"C\\\",\\\"3\\\"]\","
      "\"class_type\":\"data\"}",
      "\"normalize.offset\":{\"dtype\":\"F32\",\"shape\":[3],"
      "\"data_offsets\":[0,12]}",
      "\"0.weight\":{\"dtype\":\"F32\",\"shape\":[6,3],"
      "\"data_offsets\":[24,96]}",
      "\"2.bias\":{\"dtype\":\"F32\",\"shape\":[4],"
      "\"data_offsets\":[216,232]}}"};
  for (size_t i = 0; i < sizeof expected / sizeof *expected; ++i)
    CHECK_MSG(strstr(json, expected[i]) &&
                  (i || strncmp(json, expected[i], strlen(expected[i])) == 0),
              "%s: the header lacks %s: %.*s", path, expected[i], (int)header,
              json);
  float weights[18], stored[18];
  CHECK_OK(ck_nn_get_weights(nn, 0, weights, NULL));
  memcpy(stored, bytes + 8 + header + 24, sizeof stored);
  CHECK(memcmp(weights, stored, sizeof weights) == 0);
  free(bytes);
  ck_nn *loaded = NULL;
  CHECK_FAILS(ck_nn_load(&ck__nn_state(nn)->device, path, NULL, &loaded),
              CK_ERROR_PARSE, "reads its own models (.ckn) alone");
  ck_nn_destroy(loaded);
}

/* What a letters net's class names stand for: text from the data, any
 * type set kept by a file, integers where the classes have no names. A
 * name no file could hold is refused at save, leaving no file. */
static void class_types(const ck_device *device, ck_nn *nn,
                        const char *directory) {
  char path[1200];
  snprintf(path, sizeof path, "%s/typed.ckn", directory);
  ck_nn_class_type type = CK_NN_CLASS_BYTES;
  CHECK_OK(ck_nn_get_class_type(nn, &type));
  CHECK(type == CK_NN_CLASS_DATA);
  CHECK_FAILS(ck_nn_set_class_type(nn, (ck_nn_class_type)6),
              CK_ERROR_INVALID_ARGUMENT, "unknown type 6");
  CHECK_OK(ck_nn_set_class_type(nn, CK_NN_CLASS_BYTES));
  CHECK_OK(ck_nn_save(nn, path));
  ck_nn *loaded = NULL;
  CHECK_OK(ck_nn_load(device, path, NULL, &loaded));
  type = CK_NN_CLASS_TEXT;
  if (loaded)
    CHECK_OK(ck_nn_get_class_type(loaded, &type));
  CHECK(type == CK_NN_CLASS_BYTES);
  ck_nn_destroy(loaded);
  CHECK_OK(ck_nn_set_class_type(nn, CK_NN_CLASS_DATA));

  char **names = nn->class_names, *kept = names[1];
  nn->class_names = NULL;
  CHECK_OK(ck_nn_get_class_type(nn, &type));
  CHECK(type == CK_NN_CLASS_INTEGER);
  CHECK_FAILS(ck_nn_set_class_type(nn, CK_NN_CLASS_TEXT),
              CK_ERROR_INVALID_ARGUMENT, "have no names");
  CHECK_OK(ck_nn_set_class_type(nn, CK_NN_CLASS_INTEGER));
  nn->class_names = names;

  char control[] = "B\n", empty[] = "", twin[] = "A";
  char *bad[] = {control, empty, twin};
  const char *mention[] = {"class name 1 holds a control character",
                           "class name 1 has length 0",
                           "two classes are named 'A'"};
  snprintf(path, sizeof path, "%s/bad.ckn", directory);
  for (size_t i = 0; i < 3; ++i) {
    names[1] = bad[i];
    CHECK_FAILS(ck_nn_save(nn, path), CK_ERROR_INVALID_ARGUMENT, mention[i]);
    CHECK(access(path, F_OK) != 0);
  }
  names[1] = kept;
}

static void save_load(const ck_device *device) {
  ck_dataset train, test;
  data_letters(&train, 40, 51);
  data_letters(&test, 23, 52);
  char directory[1024], path[1100];
  snprintf(directory, sizeof directory, "%s/save-%s", work_dir, device->id);
  for (char *p = directory + strlen(work_dir); *p; ++p)
    if (*p == ':' || *p == '.')
      *p = '_';
  CHECK(mkdir(directory, 0700) == 0);
  snprintf(path, sizeof path, "%s/model.ckn", directory);
  ck_nn *nn = letters_net(device, &train), *loaded = NULL;
  if (nn) {
    CHECK_OK(ck_nn_save(nn, path));
    /* Saving again replaces the file, still with nothing left beside it. */
    CHECK_OK(ck_nn_save(nn, path));
    char name[256] = "";
    size_t entries = directory_entries(directory, name, sizeof name);
    CHECK_MSG(entries == 1 && strcmp(name, "model.ckn") == 0,
              "%s: %zu entries after saving (first '%s')", directory, entries,
              name);
    CHECK_OK(ck_nn_load(device, path, NULL, &loaded));
  }
  if (nn && loaded) {
    ck_nn_config c, d;
    CHECK_OK(ck_nn_describe(nn, &c));
    CHECK_OK(ck_nn_describe(loaded, &d));
    CHECK(c.layer_count == d.layer_count && c.loss == d.loss);
    for (size_t l = 0; l < c.layer_count; ++l)
      CHECK(c.sizes[l] == d.sizes[l]);
    CHECK(d.activations[0] == CK_NN_TANH);
    CHECK_MSG(weights_identical(nn, loaded), "%s: loaded weights differ",
              device->id);
    for (size_t l = 0; l < 2; ++l) {
      float w1[24], w2[24], b1[8], b2[8];
      CHECK_OK(ck_nn_get_weights(nn, l, w1, b1));
      CHECK_OK(ck_nn_get_weights(loaded, l, w2, b2));
      size_t n = (size_t)c.sizes[l] * c.sizes[l + 1];
      CHECK(memcmp(w1, w2, n * sizeof *w1) == 0 &&
            memcmp(b1, b2, c.sizes[l + 1] * sizeof *b1) == 0);
    }
    /* Names A, B, C; the fourth output has none and is "3". */
    const char *expected[4] = {"A", "B", "C", "3"};
    for (size_t k = 0; k < 4; ++k) {
      char got[64] = "", original[64] = "";
      CHECK_OK(ck_nn_get_class_name(loaded, k, got, sizeof got));
      CHECK_OK(ck_nn_get_class_name(nn, k, original, sizeof original));
      CHECK_MSG(strcmp(got, expected[k]) == 0 &&
                    strcmp(original, expected[k]) == 0,
                "class %zu: loaded '%s', original '%s', expected '%s'", k, got,
                original, expected[k]);
    }
    char small[2];
    CHECK_FAILS(ck_nn_get_class_name(loaded, 4, small, sizeof small),
                CK_ERROR_INVALID_ARGUMENT, "class");
    /* A name and a number that do not fit fail, as ck_dataset_get_class_name
     * does, rather than come back cut short. */
    for (size_t k = 0; k < 4; k += 3) {
      small[0] = 'x';
      CHECK_FAILS(ck_nn_get_class_name(loaded, k, small, 1),
                  CK_ERROR_INVALID_ARGUMENT, "takes 1 bytes and a NUL");
      CHECK(small[0] == '\0');
      CHECK_OK(ck_nn_get_class_name(loaded, k, small, sizeof small));
      CHECK(strcmp(small, expected[k]) == 0);
    }
    /* The normalisation came back: same kind and numbers. */
    CHECK(loaded->normalization.kind == CK_NORMALIZE_ZSCORE &&
          loaded->normalization.offset && loaded->normalization.scale &&
          memcmp(loaded->normalization.offset, nn->normalization.offset,
                 3 * sizeof(float)) == 0 &&
          memcmp(loaded->normalization.scale, nn->normalization.scale,
                 3 * sizeof(float)) == 0);
    /* Raw data in, the same classes out, and the same losses. */
    int32_t p1[23], p2[23];
    CHECK_OK(ck_nn_predict(nn, &test, p1));
    CHECK_OK(ck_nn_predict(loaded, &test, p2));
    CHECK(memcmp(p1, p2, sizeof p1) == 0);
    int varied = 0, right = 0;
    for (int r = 0; r < 23; ++r) {
      varied |= p1[r] != p1[0];
      right += p1[r] == test.labels[r];
    }
    CHECK_MSG(varied && right >= 12,
              "%s: predictions of the trained letters net: %d of 23 right",
              device->id, right);
    double l1 = NAN, l2 = NAN;
    CHECK_OK(ck_nn_attach(nn, CK_NN_TEST, &test));
    CHECK_OK(ck_nn_attach(loaded, CK_NN_TEST, &test));
    CHECK_OK(ck_nn_evaluate(nn, CK_NN_TEST, &l1, NULL, NULL));
    CHECK_OK(ck_nn_evaluate(loaded, CK_NN_TEST, &l2, NULL, NULL));
    CHECK_MSG(l1 == l2, "test loss %.9g before saving, %.9g loaded", l1, l2);
    check_probabilities(nn, &test, p1, 4);
    check_safetensors(nn, directory);
  }
  ck_nn_destroy(loaded);
  loaded = NULL;
  /* Training settings come from the caller's config; sizes from the file. */
  if (nn) {
    ck_nn_config settings, d;
    ck_nn_config_init(&settings);
    settings.layer_count = 2;
    settings.sizes[0] = settings.sizes[1] = 99;
    settings.optimizer = CK_NN_SGD;
    settings.learning_rate = 0.125;
    settings.batch = 5;
    CHECK_OK(ck_nn_load(device, path, &settings, &loaded));
    if (loaded) {
      CHECK_OK(ck_nn_describe(loaded, &d));
      CHECK(d.layer_count == 3 && d.sizes[0] == 3 && d.sizes[1] == 6 &&
            d.sizes[2] == 4);
      CHECK(d.optimizer == CK_NN_SGD && d.learning_rate == 0.125 &&
            d.batch == 5);
      CHECK(weights_identical(nn, loaded));
    }
  }
  ck_nn_destroy(loaded);
  loaded = NULL;
  if (nn)
    class_types(device, nn, directory);
  ck_nn_destroy(nn);
  ck_dataset_free(&train);
  ck_dataset_free(&test);
}

/* ---- 6. malformed model files ---------------------------------------------
 */

/* Loading path must fail with status, the message naming the file (and
 * containing mention when given). */
static void expect_load_failure(const ck_device *device, const char *path,
                                ck_status expected, const char *mention,
                                const char *what) {
  ck_nn *nn = NULL;
  ck_status status = ck_nn_load(device, path, NULL, &nn);
  const char *message = last_message();
  CHECK_MSG(status == expected && strstr(message, path) &&
                (!mention || strstr(message, mention)) && nn == NULL,
            "%s: status %d (want %d), message '%s' (want '%s')", what,
            (int)status, (int)expected, message, mention ? mention : path);
  ck_nn_destroy(nn);
}

static void sign(uint8_t *bytes, size_t body) {
  ck__sha256(bytes, body, bytes + body);
}

static void malformed(const ck_device *ref) {
  printf("malformed model files\n");
  ck_dataset train;
  data_letters(&train, 40, 61);
  ck_nn *nn = letters_net(ref, &train);
  ck_dataset_free(&train);
  if (!nn)
    return;
  const char *good = path_in("good.ckn");
  CHECK_OK(ck_nn_save(nn, good));
  ck_nn_destroy(nn);
  size_t size = 0;
  char *text = test_read_file(good, &size);
  CHECK(text && size > 100);
  if (!text)
    return;
  uint8_t *bytes = malloc(size + 64);
  memcpy(bytes, text, size);
  CHECK(memcmp(bytes, "CKNNMODL", 8) == 0 && ck__get_u32(bytes + 8) == 1 &&
        ck__get_u32(bytes + 12) == 3 && ck__get_u32(bytes + 20) == 1 &&
        ck__get_u32(bytes + 24) == 3);
  /* The file's length by the format: header, 3 widths, 1 activation,
   * names, 2 x 3 normalisation floats, weights, checksum. */
  size_t expected =
      32 + 3 * 4 + 4 + 3 * (4 + 1) + 6 * 4 + (6 * 4 + 4 * 7) * 4 + 32;
  CHECK_MSG(size == expected, "model file of %zu bytes, format gives %zu", size,
            expected);
  const char *bad = path_in("bad.ckn");

  CHECK(write_bytes(bad, "", 0) == 0);
  expect_load_failure(ref, bad, CK_ERROR_PARSE, NULL, "empty file");

  memcpy(bytes, text, size);
  bytes[0] = 'X';
  CHECK(write_bytes(bad, bytes, size) == 0);
  expect_load_failure(ref, bad, CK_ERROR_PARSE, "CKNNMODL", "wrong magic");

  /* A newer version is reported as such, not as a checksum failure. */
  memcpy(bytes, text, size);
  ck__put_u32(bytes + 8, 2);
  CHECK(write_bytes(bad, bytes, size) == 0);
  expect_load_failure(ref, bad, CK_ERROR_PARSE, "version", "version 2");
  sign(bytes, size - 32);
  CHECK(write_bytes(bad, bytes, size) == 0);
  expect_load_failure(ref, bad, CK_ERROR_PARSE, "version", "version 2, signed");

  memcpy(bytes, text, size);
  bytes[size / 2] ^= 0x10;
  CHECK(write_bytes(bad, bytes, size) == 0);
  expect_load_failure(ref, bad, CK_ERROR_PARSE, "checksum", "flipped byte");

  expect_load_failure(ref, path_in("no-such-model.ckn"), CK_ERROR_IO, NULL,
                      "missing file");

  /* Every truncation of the file. */
  int failures = 0;
  for (size_t length = 0; length < size; ++length) {
    ck_nn *loaded = NULL;
    if (write_bytes(bad, text, length) != 0) {
      ++failures;
      continue;
    }
    ck_status status = ck_nn_load(ref, bad, NULL, &loaded);
    if (status != CK_ERROR_PARSE || !strstr(last_message(), bad) || loaded) {
      if (failures++ < 3)
        fprintf(stderr, "truncated to %zu bytes: status %d, '%s'\n", length,
                (int)status, last_message());
    }
    ck_nn_destroy(loaded);
  }
  CHECK_MSG(failures == 0, "%d of %zu truncations not refused as PARSE",
            failures, size);

  /* Every truncation of the fields, with a checksum that matches what is
   * left: the reader itself must find the end. */
  failures = 0;
  size_t body = size - 32;
  for (size_t length = 12; length < body; ++length) {
    ck_nn *loaded = NULL;
    memcpy(bytes, text, length);
    sign(bytes, length);
    if (write_bytes(bad, bytes, length + 32) != 0) {
      ++failures;
      continue;
    }
    ck_status status = ck_nn_load(ref, bad, NULL, &loaded);
    if (status != CK_ERROR_PARSE || !strstr(last_message(), bad) || loaded) {
      if (failures++ < 3)
        fprintf(stderr, "fields cut to %zu bytes (signed): status %d, '%s'\n",
                length, (int)status, last_message());
    }
    ck_nn_destroy(loaded);
  }
  CHECK_MSG(failures == 0, "%d of %zu signed truncations not refused as PARSE",
            failures, body - 12);

  /* Signed files with bad fields. */
  struct {
    size_t at;
    uint32_t value;
    const char *mention;
  } fields[] = {
      {12, 1, "layer widths"},  /* S = 1 */
      {12, 18, "layer widths"}, /* S = 18 */
      {16, 2, "loss"},          /* loss 2 */
      {20, 3, "normalisation"}, /* normalisation 3 */
      {24, 5, "class names"},   /* 5 names for 4 outputs */
      {32, 0, "width 0"},       /* input width 0 */
      {40, 5, "weights"},       /* 5 outputs: the weights fall short */
      {44, 3, "activation"},    /* activation 3 */
      {48, 0, "length 0"},      /* class name A of length 0 */
      {48, 64, "length 64"},    /* class name A too long */
      {28, 6, "class type 6"},  /* an unknown class type */
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) {
    memcpy(bytes, text, size);
    ck__put_u32(bytes + fields[i].at, fields[i].value);
    sign(bytes, body);
    CHECK(write_bytes(bad, bytes, size) == 0);
    char what[64];
    snprintf(what, sizeof what, "field at %zu = %u", fields[i].at,
             fields[i].value);
    expect_load_failure(ref, bad, CK_ERROR_PARSE, fields[i].mention, what);
  }
  /* Class names that would split --predict's lines, or that no prediction
   * could tell apart: names A and B of one byte each, after their
   * lengths at 48 and 53. */
  CHECK(text[52] == 'A' && text[57] == 'B');
  static const struct {
    size_t at;
    char byte;
    const char *mention;
  } names[] = {{52, '\n', "control character"},
               {57, 'A', "two classes are named 'A'"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    memcpy(bytes, text, size);
    bytes[names[i].at] = names[i].byte;
    sign(bytes, body);
    CHECK(write_bytes(bad, bytes, size) == 0);
    expect_load_failure(ref, bad, CK_ERROR_PARSE, names[i].mention,
                        names[i].mention);
  }
  /* Four bytes too many before the checksum. */
  memcpy(bytes, text, body);
  memset(bytes + body, 0, 4);
  sign(bytes, body + 4);
  CHECK(write_bytes(bad, bytes, size + 4) == 0);
  expect_load_failure(ref, bad, CK_ERROR_PARSE, "weights", "trailing bytes");
  /* A weight that is not finite. */
  memcpy(bytes, text, size);
  ck__put_u32(bytes + body - 4, 0x7fc00000u);
  sign(bytes, body);
  CHECK(write_bytes(bad, bytes, size) == 0);
  expect_load_failure(ref, bad, CK_ERROR_PARSE, "finite", "NaN weight");
  /* The untouched file still loads (the cases above failed for cause). */
  memcpy(bytes, text, size);
  CHECK(write_bytes(bad, bytes, size) == 0);
  ck_nn *loaded = NULL;
  CHECK_OK(ck_nn_load(ref, bad, NULL, &loaded));
  ck_nn_destroy(loaded);
  free(bytes);
  free(text);
}

/* ---- 7. bad configuration and input ---------------------------------------
 */

static void bad_config(const ck_device *ref) {
  printf("bad configuration and input\n");
  ck_nn_config c;
  ck_nn *nn = (ck_nn *)&c; /* must be set to NULL on failure */
#define BAD(edit, mention)                                                     \
  do {                                                                         \
    ck_nn_config_init(&c);                                                     \
    edit;                                                                      \
    nn = (ck_nn *)&c;                                                          \
    CHECK_FAILS(ck_nn_create(ref, &c, &nn), CK_ERROR_INVALID_ARGUMENT,         \
                mention);                                                      \
    CHECK(nn == NULL);                                                         \
  } while (0)
  BAD(c.layer_count = 1, "ck_nn_config.layer_count");
  BAD(c.layer_count = CK_NN_MAX_LAYERS + 2, "ck_nn_config.layer_count");
  BAD(c.sizes[1] = 0, "ck_nn_config.sizes");
  BAD(c.sizes[0] = CK_NN_MAX_WIDTH + 1, "ck_nn_config.sizes");
  BAD(c.sizes[2] = 1, "ck_nn_config.sizes");
  BAD(c.learning_rate = 0, "ck_nn_config.learning_rate");
  BAD(c.learning_rate = -1, "ck_nn_config.learning_rate");
  BAD(c.learning_rate = INFINITY, "ck_nn_config.learning_rate");
  BAD(c.momentum = 1, "ck_nn_config.momentum");
  BAD(c.momentum = -0.5, "ck_nn_config.momentum");
  BAD((c.schedule = CK_NN_STEP, c.step_gamma = 0), "ck_nn_config.step_gamma");
  BAD((c.schedule = CK_NN_STEP, c.step_gamma = 1.5), "ck_nn_config.step_gamma");
  BAD((c.schedule = CK_NN_STEP, c.step_every = 0), "ck_nn_config.step_every");
  BAD(c.schedule = (ck_nn_schedule)7, "ck_nn_config.schedule");
  BAD(c.activations[0] = (ck_nn_activation)3, "ck_nn_config.activations");
  BAD(c.loss = (ck_nn_loss)2, "ck_nn_config.loss");
  BAD(c.optimizer = (ck_nn_optimizer)2, "ck_nn_config.optimizer");
  BAD(c.weight_decay = -1, "ck_nn_config.weight_decay");
  BAD(c.beta1 = 1, "ck_nn_config.beta1");
  BAD(c.epsilon = 0, "ck_nn_config.epsilon");
#undef BAD
  /* A network past the device's memory fails before it is allocated,
   * with the figures (ref's memory is the host's; here a copy that claims
   * 16 MB): 2-1024-1024-3 has 1,055,747 parameters, 12.7 MB in three
   * copies, and a 2-2048-1024-3 one 2,107,395, 25.3 MB. */
  ck_device small = *ref;
  small.global_memory = 16ull << 20;
  ck_nn_config_init(&c);
  c.layer_count = 4;
  c.sizes[1] = 2048;
  c.sizes[2] = 1024;
  c.sizes[3] = 3;
  nn = (ck_nn *)&c;
  CHECK_FAILS(ck_nn_create(&small, &c, &nn), CK_ERROR_DEVICE_MEMORY,
              "a network of 2107395 parameters needs about 0.0253 GB; device "
              "ref has 0.0168 GB");
  CHECK(nn == NULL);
  c.sizes[1] = 1024;
  nn = NULL;
  CHECK_OK(ck_nn_create(&small, &c, &nn));
  ck_nn_destroy(nn);
  /* The activations and deltas of a batch are checked with the weights,
   * before any is allocated: 2-1024-1024-3 takes 16,420 bytes a row, so
   * 1000 rows need about 16.4 + 12.7 MB, 32 rows fit. */
  ck_dataset batch_rows;
  data_random(&batch_rows, 1000, 2, 3, 75, NULL, NULL);
  size_t batches[2] = {1000, 32};
  for (int b = 0; b < 2; ++b) {
    c.batch = batches[b];
    nn = NULL;
    CHECK_OK(ck_nn_create(&small, &c, &nn));
    if (!nn)
      continue;
    CHECK_OK(ck_nn_attach(nn, CK_NN_TRAIN, &batch_rows));
    ck_nn_epoch epoch;
    if (b == 0)
      CHECK_FAILS(ck_nn_train_epoch(nn, &epoch), CK_ERROR_DEVICE_MEMORY,
                  "the network's activations and deltas for 1000 rows a "
                  "batch, with its weights, need about 0.0291 GB; device ref "
                  "has 0.0168 GB");
    else
      CHECK_OK(ck_nn_train_epoch(nn, &epoch));
    ck_nn_destroy(nn);
  }
  ck_dataset_free(&batch_rows);

  /* The activation of a layer that does not exist is not looked at. */
  ck_nn_config_init(&c);
  c.activations[1] = (ck_nn_activation)9;
  nn = NULL;
  CHECK_OK(ck_nn_create(ref, &c, &nn));
  ck_nn_destroy(nn);

  /* A good 2-8-3 network and bad data. */
  ck_nn_config_init(&c);
  c.sizes[2] = 3;
  nn = NULL;
  CHECK_OK(ck_nn_create(ref, &c, &nn));
  if (!nn)
    return;
  ck_dataset three, labels, good, many;
  data_random(&three, 10, 3, 3, 71, NULL, NULL);
  data_random(&labels, 10, 2, 3, 72, NULL, NULL);
  labels.labels[4] = 3;
  data_random(&good, 10, 2, 3, 73, NULL, NULL);
  data_random(&many, 10, 2, 4, 74, NULL, NULL);
  CHECK_FAILS(ck_nn_train_epoch(nn, NULL), CK_ERROR_INVALID_ARGUMENT,
              "no training data");
  ck_nn_training plan = {3, 0, NULL, NULL, 0};
  ck_nn_report report;
  CHECK_FAILS(ck_nn_train(nn, &plan, &report), CK_ERROR_INVALID_ARGUMENT,
              "no training data");
  CHECK_FAILS(ck_nn_set_preprocessing(nn, &three, CK_NORMALIZE_ZSCORE),
              CK_ERROR_INVALID_ARGUMENT, "features");
  CHECK_FAILS(ck_nn_set_preprocessing(nn, &many, CK_NORMALIZE_ZSCORE),
              CK_ERROR_INVALID_ARGUMENT, "classes");
  CHECK_OK(ck_nn_set_preprocessing(nn, &good, CK_NORMALIZE_MINMAX));
  CHECK_FAILS(ck_nn_attach(nn, CK_NN_TRAIN, &three), CK_ERROR_INVALID_ARGUMENT,
              "3 features");
  CHECK_FAILS(ck_nn_attach(nn, CK_NN_TEST, &labels), CK_ERROR_INVALID_ARGUMENT,
              "row 5");
  CHECK_FAILS(ck_nn_attach(nn, (ck_nn_set)3, &good), CK_ERROR_INVALID_ARGUMENT,
              "ck_nn_attach: which is 3");
  CHECK_FAILS(ck_nn_evaluate(nn, CK_NN_VALIDATION, NULL, NULL, NULL),
              CK_ERROR_INVALID_ARGUMENT, "validation");
  CHECK_FAILS(ck_nn_evaluate(nn, CK_NN_TEST, NULL, NULL, NULL),
              CK_ERROR_INVALID_ARGUMENT, "test");
  CHECK_FAILS(ck_nn_evaluate(nn, CK_NN_TRAIN, NULL, NULL, NULL),
              CK_ERROR_INVALID_ARGUMENT, "training");
  int32_t predicted[10];
  CHECK_FAILS(ck_nn_predict(nn, &three, predicted), CK_ERROR_INVALID_ARGUMENT,
              "features");
  CHECK_OK(ck_nn_attach(nn, CK_NN_TRAIN, &good));
  plan.epochs = 0;
  CHECK_FAILS(ck_nn_train(nn, &plan, &report), CK_ERROR_INVALID_ARGUMENT,
              "epochs");
  CHECK(nn->epoch == 0);
  float weights[16];
  CHECK_FAILS(ck_nn_get_weights(nn, 2, weights, NULL),
              CK_ERROR_INVALID_ARGUMENT, "ck_nn_get_weights: layer is 2");
  CHECK_FAILS(ck_nn_set_weights(nn, 2, weights, NULL),
              CK_ERROR_INVALID_ARGUMENT, "ck_nn_set_weights: layer is 2");
  CHECK_FAILS(ck_nn_attach(nn, CK_NN_TRAIN, &labels), CK_ERROR_INVALID_ARGUMENT,
              "class 3");
  /* Weights in and out by the public layout. */
  float w[16], b[8], back_w[16], back_b[8];
  for (int i = 0; i < 16; ++i)
    w[i] = (float)i / 16 - 0.5f;
  for (int i = 0; i < 8; ++i)
    b[i] = (float)i / 8;
  CHECK_OK(ck_nn_set_weights(nn, 0, w, b));
  CHECK_OK(ck_nn_get_weights(nn, 0, back_w, back_b));
  CHECK(memcmp(w, back_w, sizeof w) == 0 && memcmp(b, back_b, sizeof b) == 0);
  /* Values that are not finite are refused, named, and nothing written. */
  float nan_w[16], inf_b[8];
  memcpy(nan_w, w, sizeof w);
  memcpy(inf_b, b, sizeof b);
  nan_w[5] = NAN;
  inf_b[7] = -INFINITY;
  CHECK_FAILS(ck_nn_set_weights(nn, 0, nan_w, b), CK_ERROR_INVALID_ARGUMENT,
              "layer 0's weight 5 (output 2, input 1) is nan");
  CHECK_FAILS(ck_nn_set_weights(nn, 0, NULL, inf_b), CK_ERROR_INVALID_ARGUMENT,
              "layer 0's bias 7 is -inf");
  nan_w[5] = w[5];
  nan_w[0] = INFINITY;
  CHECK_FAILS(ck_nn_set_weights(nn, 0, nan_w, NULL), CK_ERROR_INVALID_ARGUMENT,
              "weight 0");
  CHECK_OK(ck_nn_get_weights(nn, 0, back_w, back_b));
  CHECK(memcmp(w, back_w, sizeof w) == 0 && memcmp(b, back_b, sizeof b) == 0);
  float *raw = layer_floats(nn, 1);
  CHECK(raw[0] == w[0] && raw[1] == w[1] && raw[2] == b[0] && raw[3] == w[2] &&
        raw[3 * 7 + 2] == b[7]);
  free(raw);
  /* Preprocessing once data is attached is refused, and the model keeps
   * the scaling the attached set was normalised by. */
  CHECK_OK(ck_nn_attach(nn, CK_NN_TRAIN, &good));
  CHECK_FAILS(ck_nn_set_preprocessing(nn, &good, CK_NORMALIZE_ZSCORE),
              CK_ERROR_INVALID_ARGUMENT, "training data is already attached");
  CHECK(nn->normalization.kind == CK_NORMALIZE_MINMAX);
  ck_nn_destroy(nn);
  /* ck_nn_predict attaches its rows as the test set. */
  nn = NULL;
  CHECK_OK(ck_nn_create(ref, &c, &nn));
  if (nn) {
    CHECK_OK(ck_nn_predict(nn, &good, predicted));
    CHECK_FAILS(ck_nn_set_preprocessing(nn, &good, CK_NORMALIZE_ZSCORE),
                CK_ERROR_INVALID_ARGUMENT, "test data is already attached");
    CHECK(nn->normalization.kind == CK_NORMALIZE_NONE);
    ck_nn_destroy(nn);
  }
  ck_dataset_free(&three);
  ck_dataset_free(&labels);
  ck_dataset_free(&good);
  ck_dataset_free(&many);
}

/* ---- 8. early stopping ----------------------------------------------------
 */

typedef struct epoch_record {
  unsigned count, stop_after;
  ck_nn_epoch epochs[400];
} epoch_record;

static int record_epoch(void *user, const ck_nn_epoch *epoch) {
  epoch_record *record = user;
  if (record->count < 400)
    record->epochs[record->count++] = *epoch;
  return record->stop_after && record->count >= record->stop_after;
}

static ck_nn *noisy_net(const ck_device *ref, const ck_dataset *train,
                        const ck_dataset *validation, const ck_dataset *test) {
  static const size_t sizes[] = {4, 32, 3};
  static const ck_nn_activation act[] = {CK_NN_RELU};
  ck_nn_config c;
  config_net(&c, 3, sizes, act, CK_NN_CROSS_ENTROPY);
  c.learning_rate = 0.02;
  c.batch = 0;
  c.seed = 17;
  ck_nn *nn = NULL;
  CHECK_OK(ck_nn_create(ref, &c, &nn));
  if (!nn)
    return NULL;
  CHECK_OK(ck_nn_set_preprocessing(nn, train, CK_NORMALIZE_ZSCORE));
  CHECK_OK(ck_nn_attach(nn, CK_NN_TRAIN, train));
  if (validation)
    CHECK_OK(ck_nn_attach(nn, CK_NN_VALIDATION, validation));
  if (test)
    CHECK_OK(ck_nn_attach(nn, CK_NN_TEST, test));
  return nn;
}

/* The records' lowest validation loss and its (first) epoch. */
static unsigned best_of(const epoch_record *record, double *best) {
  unsigned at = 0;
  *best = INFINITY;
  for (unsigned e = 0; e < record->count; ++e)
    if (record->epochs[e].validation_loss < *best) {
      *best = record->epochs[e].validation_loss;
      at = record->epochs[e].epoch;
    }
  return at;
}

static void early_stopping(const ck_device *ref) {
  printf("early stopping\n");
  /* A learnable rule with a third of the training labels replaced at
   * random: the validation loss falls while the rule is learned, then
   * rises as the noise is learned by heart. */
  ck_dataset train, validation, test;
  data_random(&train, 30, 4, 3, 81, NULL, NULL);
  data_random(&validation, 30, 4, 3, 82, NULL, NULL);
  data_random(&test, 15, 4, 3, 83, NULL, NULL);
  uint64_t noise = 5;
  for (size_t r = 0; r < 30; ++r)
    if (rng_next(&noise) % 3 == 0)
      train.labels[r] = (int32_t)(rng_next(&noise) % 3);
  epoch_record *record = calloc(1, sizeof *record);
  ck_nn_report report;

  ck_nn *nn = noisy_net(ref, &train, &validation, &test);
  if (nn) {
    ck_nn_training plan = {200, 2, record_epoch, record, 0};
    CHECK_OK(ck_nn_train(nn, &plan, &report));
    double best;
    unsigned best_epoch = best_of(record, &best);
    CHECK_MSG(report.stopped_by == CK_STOP_EARLY && report.epochs < 200,
              "stopped by %d after %u epochs", (int)report.stopped_by,
              report.epochs);
    CHECK(record->count == report.epochs);
    CHECK_MSG(report.best_epoch == best_epoch &&
                  report.best_validation_loss == best &&
                  report.epochs == best_epoch + 2,
              "best epoch %u (records: %u), loss %.9g (records: %.9g), "
              "epochs %u",
              report.best_epoch, best_epoch, report.best_validation_loss, best,
              report.epochs);
    double last = record->epochs[record->count - 1].validation_loss;
    CHECK_MSG(last > best, "last validation loss %g, best %g", last, best);
    double loss = NAN, test_loss = NAN, test_accuracy = NAN;
    CHECK_OK(ck_nn_evaluate(nn, CK_NN_VALIDATION, &loss, NULL, NULL));
    CHECK_MSG(fabs(loss - report.best_validation_loss) <=
                  1e-6 * report.best_validation_loss,
              "validation loss %.9g after training, best %.9g", loss,
              report.best_validation_loss);
    CHECK_OK(ck_nn_evaluate(nn, CK_NN_TEST, &test_loss, &test_accuracy, NULL));
    CHECK(test_loss == report.final_test_loss &&
          test_accuracy == report.final_test_accuracy);
    double best_test = 0;
    for (unsigned e = 0; e < record->count; ++e)
      best_test = fmax(best_test, record->epochs[e].test_accuracy);
    CHECK(report.best_test_accuracy == best_test);
    CHECK_MSG(report.final_test_loss ==
                  record->epochs[best_epoch - 1].test_loss,
              "final test loss %.9g, best epoch's %.9g", report.final_test_loss,
              record->epochs[best_epoch - 1].test_loss);
    printf("  stopped after %u epochs, best %u\n", report.epochs,
           report.best_epoch);
  }
  ck_nn_destroy(nn);

  /* Patience 0: every epoch runs; the best epoch's weights still win. */
  memset(record, 0, sizeof *record);
  nn = noisy_net(ref, &train, &validation, NULL);
  if (nn) {
    ck_nn_training plan = {40, 0, record_epoch, record, 0};
    CHECK_OK(ck_nn_train(nn, &plan, &report));
    double best, loss = NAN;
    unsigned best_epoch = best_of(record, &best);
    CHECK(report.stopped_by == CK_STOP_STEPS && report.epochs == 40);
    CHECK(report.best_epoch == best_epoch && best_epoch < 40);
    CHECK(isnan(report.final_test_accuracy) && isnan(report.final_test_loss));
    CHECK_OK(ck_nn_evaluate(nn, CK_NN_VALIDATION, &loss, NULL, NULL));
    CHECK_MSG(fabs(loss - best) <= 1e-6 * best,
              "validation loss %.9g after training, best %.9g", loss, best);
  }
  ck_nn_destroy(nn);

  /* Without validation data the last epoch is kept, and the patience
   * watches the training loss, which falls in every one of these epochs. */
  memset(record, 0, sizeof *record);
  nn = noisy_net(ref, &train, NULL, NULL);
  if (nn) {
    ck_nn_training plan = {6, 2, record_epoch, record, 0};
    CHECK_OK(ck_nn_train(nn, &plan, &report));
    CHECK(report.epochs == 6 && report.best_epoch == 6 &&
          report.stopped_by == CK_STOP_STEPS &&
          isnan(report.best_validation_loss));
    CHECK(isnan(record->epochs[0].validation_loss) &&
          isnan(record->epochs[0].test_accuracy));
    /* A fall of the training loss counts past tol alone: trained on with
     * a tol no fall reaches, epochs 8 and 9 do not improve on epoch 7, and
     * patience 2 stops the training there, keeping epoch 9's weights. */
    plan.epochs = 40;
    plan.tol = 1e3;
    CHECK_OK(ck_nn_train(nn, &plan, &report));
    CHECK_MSG(report.epochs == 3 && report.best_epoch == 9 &&
                  report.stopped_by == CK_STOP_EARLY && record->count == 9,
              "stopped by %d after %u epochs, best %u", (int)report.stopped_by,
              report.epochs, report.best_epoch);
    CHECK(record->epochs[8].train_loss < record->epochs[6].train_loss);
    ck_nn_training bad = {4, 2, NULL, NULL, -1};
    CHECK_INVALID(ck_nn_train(nn, &bad, &report), "ck_nn_training.tol");
    bad.tol = NAN;
    CHECK_INVALID(ck_nn_train(nn, &bad, &report), "ck_nn_training.tol");
  }
  ck_nn_destroy(nn);

  /* A callback that asks to stop: CK_ERROR_CANCELLED, report filled. */
  memset(record, 0, sizeof *record);
  record->stop_after = 3;
  nn = noisy_net(ref, &train, &validation, NULL);
  if (nn) {
    ck_nn_training plan = {10, 0, record_epoch, record, 0};
    CHECK_FAILS(ck_nn_train(nn, &plan, &report), CK_ERROR_CANCELLED, "epoch 3");
    CHECK(report.epochs == 3 && record->count == 3 && nn->epoch == 3 &&
          report.stopped_by == CK_STOP_CANCELLED);
    CHECK(report.best_epoch >= 1 && report.best_epoch <= 3);
  }
  ck_nn_destroy(nn);
  free(record);
  ck_dataset_free(&train);
  ck_dataset_free(&validation);
  ck_dataset_free(&test);
}

/* ---- 9. learning-rate schedules -------------------------------------------
 */

static void schedules(const ck_device *ref) {
  printf("learning-rate schedules\n");
  ck_dataset train;
  data_random(&train, 10, 4, 3, 91, NULL, NULL);
  epoch_record *record = calloc(1, sizeof *record);
  const double rate = 0.1;
  for (int kind = 0; kind < 3; ++kind) {
    static const size_t sizes[] = {4, 5, 3};
    static const ck_nn_activation act[] = {CK_NN_TANH};
    ck_nn_config c;
    config_net(&c, 3, sizes, act, CK_NN_CROSS_ENTROPY);
    c.optimizer = CK_NN_SGD;
    c.learning_rate = rate;
    c.batch = 3; /* 4 steps an epoch */
    c.schedule = (ck_nn_schedule)kind;
    c.step_every = 2;
    c.step_gamma = 0.5;
    ck_nn *nn = NULL;
    CHECK_OK(ck_nn_create(ref, &c, &nn));
    if (!nn)
      continue;
    CHECK_OK(ck_nn_set_preprocessing(nn, &train, CK_NORMALIZE_NONE));
    CHECK_OK(ck_nn_attach(nn, CK_NN_TRAIN, &train));
    memset(record, 0, sizeof *record);
    const unsigned epochs = 7, steps = 4;
    ck_nn_training plan = {epochs, 0, record_epoch, record, 0};
    ck_nn_report report;
    CHECK_OK(ck_nn_train(nn, &plan, &report));
    CHECK(record->count == epochs);
    int off = 0;
    for (unsigned e = 1; e <= record->count; ++e) {
      double expected = rate;
      if (kind == CK_NN_STEP)
        expected = rate * pow(0.5, (double)((e - 1) / 2));
      else if (kind == CK_NN_COSINE)
        expected =
            rate * 0.5 *
            (1 + cos(pi * (double)(e * steps - 1) / (double)(epochs * steps)));
      double got = record->epochs[e - 1].learning_rate;
      if (!(fabs(got - expected) <= 1e-12 * rate)) {
        if (!off++)
          fprintf(stderr, "schedule %d epoch %u: rate %.12g, expected %.12g\n",
                  kind, e, got, expected);
      }
    }
    CHECK_MSG(off == 0, "schedule %d: %d epochs with the wrong rate", kind,
              off);
    if (kind != CK_NN_CONSTANT)
      CHECK(record->epochs[epochs - 1].learning_rate < rate / 4);
    CHECK(nn->steps_taken == (uint64_t)epochs * steps);
    ck_nn_destroy(nn);
  }
  free(record);
  ck_dataset_free(&train);
}

/* ---- 10. the workload ------------------------------------------------------
 */

static int lines_in(const char *path, const char *const *allowed,
                    size_t allowed_count, size_t *lines) {
  size_t size = 0;
  char *text = test_read_file(path, &size);
  *lines = 0;
  if (!text)
    return 0;
  int ok = size > 0 && text[size - 1] == '\n';
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line;
       line = strtok_r(NULL, "\n", &save)) {
    ++*lines;
    int known = 0;
    for (size_t k = 0; k < allowed_count; ++k)
      known |= strcmp(line, allowed[k]) == 0;
    ok &= known;
  }
  free(text);
  return ok;
}

static void workload(const ck_device *ref) {
  printf("the nn workload\n");
  const ck_workload *nn_workload = NULL;
  CHECK_OK(ck_workload_find("nn", &nn_workload));
  if (!nn_workload)
    return;
  ck_run_options options = {.seed = 1};
  ck_result *result = calloc(1, sizeof *result);
  double value = NAN;

  const ck_param spirals[] = {{"train", "spirals:300"}, {"epochs", "3"}};
  CHECK_OK(test_workload_run(nn_workload, ref, spirals, 2, &options, result));
  CHECK_OK(ck_result_get_metric(result, "test_accuracy", &value));
  /* Seeded, so the same on every run: on ref, seed 1, these 3 epochs
   * classified 35 of the 75 test points (0.4667; 2026-11, x86-64). The
   * floor, 30 of 75, leaves 5 points for other compilers' rounding and
   * is still above chance (1/3 for three spirals). */
  CHECK_MSG(value >= 0.4 && value <= 1, "test_accuracy %g (measured 0.4667)",
            value);
  CHECK(strcmp(result->best_name, "test_accuracy") == 0 &&
        result->best == value);
  CHECK_OK(ck_result_get_metric(result, "epochs", &value));
  CHECK(value == 3);
  CHECK_OK(ck_result_get_metric(result, "train_rows", &value));
  CHECK(value == 300);
  CHECK_OK(ck_result_get_metric(result, "parameters", &value));
  CHECK(value == 128 * 3 + 3 * 129);

  /* A CSV with letter labels: train with a split, save, then predict. */
  char csv[4096] = "label,x,y,z\n";
  char predict_csv[2048] = "";
  uint64_t state = 3;
  for (int r = 0; r < 60; ++r) {
    int k = r % 3;
    double x = k * 2.0 + rng_uniform(&state, -0.5, 0.5);
    double y = -k + rng_uniform(&state, -0.5, 0.5);
    double z = rng_uniform(&state, -1, 1);
    char line[128];
    snprintf(line, sizeof line, "%s,%.4f,%.4f,%.4f\n", letters[k], x, y, z);
    strcat(r < 45 ? csv : predict_csv, line);
    if (r >= 45)
      strcat(csv, line);
  }
  const char *train_path = path_in("letters.csv");
  const char *predict_path = path_in("predict.csv");
  const char *model_path = path_in("letters.ckn");
  const char *out_path = path_in("predicted.txt");
  CHECK(write_text(train_path, csv) == 0);
  CHECK(write_text(predict_path, predict_csv) == 0);
  const ck_param train_params[] = {{"train", train_path}, {"split", "0.25"},
                                   {"layers", "3,8,3"},   {"epochs", "40"},
                                   {"lr", "0.02"},        {"batch", "8"},
                                   {"save", model_path}};
  CHECK_OK(
      test_workload_run(nn_workload, ref, train_params, 7, &options, result));
  CHECK_OK(ck_result_get_metric(result, "test_rows", &value));
  CHECK(value == 15);
  CHECK_OK(ck_result_get_metric(result, "train_rows", &value));
  CHECK(value == 45);
  CHECK_OK(ck_result_get_metric(result, "test_accuracy", &value));
  CHECK_MSG(value >= 0.8, "letters test accuracy %g", value);
  struct stat info;
  CHECK(stat(model_path, &info) == 0 && info.st_size > 64);
  const ck_param predict_params[] = {
      {"load", model_path}, {"predict", predict_path}, {"out", out_path}};
  CHECK_OK(
      test_workload_run(nn_workload, ref, predict_params, 3, &options, result));
  CHECK_OK(ck_result_get_metric(result, "predicted_rows", &value));
  CHECK(value == 15);
  CHECK_OK(ck_result_get_metric(result, "predict_accuracy", &value));
  CHECK_MSG(value >= 0.8, "predict accuracy %g", value);
  /* Nothing trained or tested: no rows of those sets, not zeros. */
  CHECK(ck_result_get_metric(result, "train_rows", &value) ==
        CK_ERROR_NOT_FOUND);
  CHECK(ck_result_get_metric(result, "test_rows", &value) ==
        CK_ERROR_NOT_FOUND);
  CHECK(ck_result_get_metric(result, "validation_rows", &value) ==
        CK_ERROR_NOT_FOUND);
  CHECK(ck_result_get_metric(result, "epochs", &value) == CK_ERROR_NOT_FOUND);
  /* Evaluating the loaded model on test rows reports those alone. */
  const ck_param evaluate_params[] = {{"load", model_path},
                                      {"test", predict_path}};
  CHECK_OK(test_workload_run(nn_workload, ref, evaluate_params, 2, &options,
                             result));
  CHECK_OK(ck_result_get_metric(result, "test_rows", &value));
  CHECK(value == 15);
  CHECK(ck_result_get_metric(result, "train_rows", &value) ==
        CK_ERROR_NOT_FOUND);
  CHECK(ck_result_get_metric(result, "validation_rows", &value) ==
        CK_ERROR_NOT_FOUND);
  size_t lines = 0;
  CHECK_MSG(lines_in(out_path, letters, 3, &lines) && lines == 15,
            "%s: %zu lines, each a class name?", out_path, lines);

  /* Fine-tuning a saved model on the whole training set at once. */
  const ck_param tune_params[] = {{"load", model_path},
                                  {"train", train_path},
                                  {"split", "45"},
                                  {"batch", "all"},
                                  {"epochs", "2"}};
  CHECK_OK(
      test_workload_run(nn_workload, ref, tune_params, 5, &options, result));
  CHECK_OK(ck_result_get_metric(result, "epochs", &value));
  CHECK(value == 2);
  CHECK_OK(ck_result_get_metric(result, "test_accuracy", &value));
  CHECK_MSG(value >= 0.8, "fine-tuned test accuracy %g", value);
  /* Training on from a model may replace it: it is read whole first. */
  const ck_param replace_params[] = {{"load", model_path},
                                     {"train", train_path},
                                     {"split", "45"},
                                     {"epochs", "1"},
                                     {"save", model_path}};
  CHECK_OK(
      test_workload_run(nn_workload, ref, replace_params, 5, &options, result));
  CHECK_OK(
      test_workload_run(nn_workload, ref, predict_params, 3, &options, result));
  CHECK_OK(ck_result_get_metric(result, "predict_accuracy", &value));
  CHECK_MSG(value >= 0.8, "predict accuracy %g after the model replaced itself",
            value);

  /* Validation, patience and the trace. */
  const char *trace_path = path_in("trace.csv");
  const ck_param val_params[] = {{"train", "spirals:300"}, {"epochs", "40"},
                                 {"val", "0.2"},           {"patience", "2"},
                                 {"lr", "0.05"},           {"batch", "16"},
                                 {"trace", trace_path}};
  CHECK_OK(
      test_workload_run(nn_workload, ref, val_params, 7, &options, result));
  double epochs = NAN, best_epoch = NAN, stopped = NAN;
  CHECK_OK(ck_result_get_metric(result, "validation_rows", &value));
  CHECK(value == 60);
  CHECK_OK(ck_result_get_metric(result, "train_rows", &value));
  CHECK(value == 240);
  CHECK_OK(ck_result_get_metric(result, "best_validation_loss", &value));
  CHECK(value > 0 && isfinite(value));
  CHECK_OK(ck_result_get_metric(result, "epochs", &epochs));
  CHECK_OK(ck_result_get_metric(result, "best_epoch", &best_epoch));
  CHECK_OK(ck_result_get_metric(result, "stopped_early", &stopped));
  CHECK_MSG(best_epoch >= 1 && best_epoch <= epochs && epochs <= 40 &&
                (stopped == 1 ? epochs == best_epoch + 2 : epochs == 40),
            "epochs %g, best %g, stopped early %g", epochs, best_epoch,
            stopped);
  size_t size = 0;
  char *trace = test_read_file(trace_path, &size);
  size_t trace_lines = 0;
  for (size_t i = 0; trace && i < size; ++i)
    trace_lines += trace[i] == '\n';
  CHECK_MSG(trace && strncmp(trace, "epoch,", 6) == 0 &&
                trace_lines == (size_t)epochs + 1,
            "%s: %zu lines for %g epochs", trace_path, trace_lines, epochs);
  free(trace);

  /* Bad options, each named. */
  const struct {
    ck_param params[4];
    size_t count;
    const char *mention;
  } cases[] = {
      {{{"predict", predict_path}, {"out", out_path}}, 2, "--predict"},
      {{{"out", out_path}}, 1, "--out"},
      {{{"train", train_path}, {"split", "10"}, {"test", predict_path}},
       3,
       "--split"},
      {{{"train", train_path}, {"split", "2.5"}}, 2, "--split"},
      {{{"train", train_path},
        {"layers", "3,4,4,3"},
        {"act", "relu,tanh,sigmoid"}},
       3,
       "--act"},
      {{{"act", "swish"}}, 1, "--act"},
      {{{"schedule", "junk"}}, 1, "--schedule"},
      {{{"schedule", "step:0:0.5"}}, 1, "--schedule"},
      {{{"schedule", "step:2:1.5"}}, 1, "--schedule"},
      /* Read as option values are: no sign wrap, blanks or hexadecimal. */
      {{{"schedule", "step:-1:0.5"}}, 1, "--schedule"},
      {{{"schedule", "step: 2:0.5"}}, 1, "--schedule"},
      {{{"schedule", "step:2: 0.5"}}, 1, "--schedule"},
      {{{"schedule", "step:2:0x1p-1"}}, 1, "--schedule"},
      {{{"schedule", "step:2.5:0.5"}}, 1, "--schedule"},
      {{{"schedule", "step:2:0.5:1"}}, 1, "--schedule"},
      {{{"layers", "5"}}, 1, "--layers"},
      {{{"layers", "2,0,3"}}, 1, "--layers"},
      {{{"layers", "2,x"}}, 1, "--layers"},
      {{{"loss", "hinge"}}, 1, "--loss"},
      {{{"optimizer", "rmsprop"}}, 1, "--optimizer"},
      {{{"lr", "0"}}, 1, "--lr"},
      {{{"batch", "0"}}, 1, "--batch"},
      {{{"epochs", "0"}}, 1, "--epochs"},
      {{{"normalize", "l2"}}, 1, "--normalize"},
      {{{"train", "spirals:2"}}, 1, "--train"},
      /* Spirals make their labels: a labels file is refused, not dropped. */
      {{{"train", "spirals:60"}, {"train-labels", "labels.idx"}},
       2,
       "--train-labels: spirals:60 makes its own labels; a labels file "
       "(labels.idx) goes with IDX features"},
      {{{"train-labels", "labels.idx"}},
       1,
       "--train-labels: spirals:2000 makes its own labels"},
      {{{"train", "spirals:60"},
        {"test", "spirals:30"},
        {"test-labels", "labels.idx"}},
       3,
       "--test-labels: spirals:30 makes its own labels"},
      /* Widths and counts are read as every option's numbers are: no
       * blanks, no hexadecimal, and no empty width. */
      {{{"train", "spirals: 300"}}, 1, "'spirals: 300': spirals:N needs"},
      {{{"layers", "2, 8,3"}}, 1, "'2, 8,3' is not a list of widths"},
      {{{"layers", "2,0x8,3"}}, 1, "'2,0x8,3' is not a list of widths"},
      {{{"layers", "2,8,3,"}}, 1, "'2,8,3,' is not a list of widths"},
      {{{"layers", ""}}, 1, "'' is not a list of widths"},
      /* Every entry of --act counts: an empty one is refused, as in
       * --layers. */
      {{{"act", "relu,,tanh"}}, 1, "--act: an empty entry in 'relu,,tanh'"},
      {{{"act", ",relu"}}, 1, "--act: an empty entry"},
      {{{"act", "relu,"}}, 1, "--act: an empty entry"},
      {{{"act", ""}}, 1, "--act: an empty entry"},
      {{{"nonsense", "1"}}, 1, "nonsense"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    ck_status status = test_workload_run(nn_workload, ref, cases[i].params,
                                         cases[i].count, &options, result);
    const char *message = last_message();
    CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT &&
                  strstr(message, cases[i].mention),
              "case %zu: status %d, message '%s' (want '%s')", i, (int)status,
              message, cases[i].mention);
  }
  /* Rows wider than a network's inputs, with no --layers given: the
   * data's fault, named by its file (a failure, not a usage error). */
  enum { WIDE = CK_NN_MAX_WIDTH + 1 };
  char *wide_text = malloc(4 * (WIDE + 1) + 1);
  const char *wide_path = path_in("wide.csv");
  if (wide_text) {
    size_t used = 0;
    /* Two rows of classes 0 and 1: one class alone is refused. */
    for (int row = 0; row < 2; ++row)
      for (int column = 0; column <= WIDE; ++column) {
        wide_text[used++] = column == 0 ? (char)('0' + row) : '1';
        wide_text[used++] = column == WIDE ? '\n' : ',';
      }
    CHECK(write_bytes(wide_path, wide_text, used) == 0);
    free(wide_text);
    const ck_param wide[] = {{"train", wide_path}, {"epochs", "1"}};
    char wanted[1200];
    snprintf(wanted, sizeof wanted, "%s: %d features a row, more than",
             wide_path, WIDE);
    ck_status status =
        test_workload_run(nn_workload, ref, wide, 2, &options, result);
    const char *message = last_message();
    CHECK_MSG(status == CK_ERROR_UNSUPPORTED && strstr(message, wanted),
              "rows of %d features: status %d, '%s'", WIDE, (int)status,
              message);
  }
  /* ck_workload_check agrees on a parse-time error and a good set. */
  CHECK(ck_workload_check(nn_workload, cases[7].params, 1) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ck_workload_check(nn_workload, train_params, 7));
  /* An epoch count with an exponent is a whole number, as elsewhere. */
  static const ck_param exponent_step[] = {{"schedule", "step:1e1:0.5"}};
  CHECK_OK(ck_workload_check(nn_workload, exponent_step, 1));
  test_results_release(result, 1);
  free(result);
}

/* The nn workload and a result to run it into (*result, calloc'd: the
 * caller frees it); NULL, after a failed check, where either is missing. */
static const ck_workload *nn_with_result(ck_result **result) {
  const ck_workload *nn_workload = NULL;
  CHECK_OK(ck_workload_find("nn", &nn_workload));
  *result = calloc(1, sizeof **result);
  CHECK(*result != NULL);
  if (!nn_workload || !*result) {
    free(*result);
    *result = NULL;
    return NULL;
  }
  return nn_workload;
}

/* A small IDX data set of SMALL_ROWS rows of 2 x 2 pixels in three
 * classes (row r in class r % 3, its class's pixel bright): the images
 * and labels files' bytes. */
enum { SMALL_ROWS = 6 };
typedef struct small_idx {
  uint8_t images[16 + SMALL_ROWS * 4], labels[8 + SMALL_ROWS];
} small_idx;

/* Starts a case on the nn workload titled title: *set filled, and the
 * workload returned with its result, or NULL (the test goes on without
 * the case) where it is missing. */
static const ck_workload *small_idx_case(const char *title, ck_result **result,
                                         small_idx *set) {
  static const uint8_t image_header[16] = {0, 0, 8, 3, 0, 0, 0, SMALL_ROWS,
                                           0, 0, 0, 2, 0, 0, 0, 2};
  static const uint8_t label_header[8] = {0, 0, 8, 1, 0, 0, 0, SMALL_ROWS};
  printf("%s\n", title);
  memcpy(set->images, image_header, sizeof image_header);
  memcpy(set->labels, label_header, sizeof label_header);
  for (int r = 0; r < SMALL_ROWS; ++r) {
    set->labels[8 + r] = (uint8_t)(r % 3);
    for (int k = 0; k < 4; ++k)
      set->images[16 + r * 4 + k] = (uint8_t)(k == r % 3 ? 200 : 10 + 7 * r);
  }
  return nn_with_result(result);
}

/* IDX rows to predict, with their labels given by --predict-labels (a
 * name the images' own does not lead to): scored, and the score is the
 * share of the written classes that match them; without the labels the
 * rows are only predicted, and --test-labels does not stand in. */
static void predict_idx(const ck_device *ref) {
  ck_result *result = NULL;
  small_idx set;
  const ck_workload *nn_workload =
      small_idx_case("predicting IDX rows", &result, &set);
  if (!nn_workload)
    return;
  const char *train = path_in("tr-images-idx3-ubyte");
  CHECK(write_bytes(train, set.images, sizeof set.images) == 0);
  CHECK(write_bytes(path_in("tr-labels-idx1-ubyte"), set.labels,
                    sizeof set.labels) == 0);
  char rows[1024], rows_labels[1024], model[1024], out[1024];
  snprintf(rows, sizeof rows, "%s", path_in("rows.idx"));
  snprintf(rows_labels, sizeof rows_labels, "%s", path_in("rows-classes.idx"));
  snprintf(model, sizeof model, "%s", path_in("idx.ckn"));
  snprintf(out, sizeof out, "%s", path_in("idx-predicted.txt"));
  CHECK(write_bytes(rows, set.images, sizeof set.images) == 0);
  /* One row's label given wrong, so that the score is not all or none. */
  uint8_t given[sizeof set.labels];
  memcpy(given, set.labels, sizeof set.labels);
  given[8 + 4] = (uint8_t)((set.labels[8 + 4] + 1) % 3);
  CHECK(write_bytes(rows_labels, given, sizeof given) == 0);
  ck_run_options options = {.seed = 3};
  const ck_param train_params[] = {{"train", train},  {"layers", "4,3"},
                                   {"epochs", "100"}, {"lr", "0.1"},
                                   {"batch", "6"},    {"save", model}};
  CHECK_OK(
      test_workload_run(nn_workload, ref, train_params, 6, &options, result));

  double value = NAN;
  const ck_param unlabelled[] = {
      {"load", model}, {"predict", rows}, {"out", out}};
  CHECK_OK(
      test_workload_run(nn_workload, ref, unlabelled, 3, &options, result));
  CHECK_OK(ck_result_get_metric(result, "predicted_rows", &value));
  CHECK(value == SMALL_ROWS);
  CHECK(ck_result_get_metric(result, "predict_accuracy", &value) != CK_OK);
  /* Without training, the rate is that of the rows predicted. */
  CHECK_MSG(result->throughput > 0 && isfinite(result->throughput) &&
                result->kernel_s == 0,
            "predicting on ref: throughput %g, kernel_s %g", result->throughput,
            result->kernel_s);

  const ck_param labelled[] = {{"load", model},
                               {"predict", rows},
                               {"out", out},
                               {"predict-labels", rows_labels}};
  CHECK_OK(test_workload_run(nn_workload, ref, labelled, 4, &options, result));
  double accuracy = NAN;
  CHECK_OK(ck_result_get_metric(result, "predict_accuracy", &accuracy));
  size_t size = 0, line = 0, matches = 0;
  char *text = test_read_file(out, &size);
  for (size_t at = 0; text && at < size; ++line) {
    matches += line < SMALL_ROWS && text[at] == '0' + given[8 + line] &&
               text[at + 1] == '\n';
    while (at < size && text[at++] != '\n')
      ;
  }
  free(text);
  printf("  %zu of %d rows predicted right\n", matches, (int)SMALL_ROWS);
  /* The model learns the rows; the wrong label costs one. */
  CHECK_MSG(line == SMALL_ROWS && matches == SMALL_ROWS - 1 &&
                accuracy == (double)matches / SMALL_ROWS,
            "predict_accuracy %g; %zu of %zu written classes match", accuracy,
            matches, line);

  const ck_param crossed[] = {{"load", model},
                              {"predict", rows},
                              {"out", out},
                              {"test-labels", rows_labels}};
  CHECK(test_workload_run(nn_workload, ref, crossed, 4, &options, result) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(last_message(), "--test-labels applies only with --test"),
            "%s", last_message());
  test_results_release(result, 1);
  free(result);
}

/* An IDX features file given without its labels option is read with the
 * labels file named after it: an output that names that file is refused
 * before the run, as one that names an input option's file is, and the
 * labels are left as they were. Test data in the other format than the
 * training data's is refused as such before it is parsed, either way
 * round (read as the training data's format, these IDX rows fit the CSV
 * network and would be tested). */
static void derived_labels_and_formats(const ck_device *ref) {
  ck_result *result = NULL;
  small_idx set;
  const ck_workload *nn_workload = small_idx_case(
      "outputs beside derived labels files; test data in another format",
      &result, &set);
  if (!nn_workload)
    return;
  /* The same rows as CSV, the label first. */
  char csv[512] = "";
  for (int r = 0; r < SMALL_ROWS; ++r) {
    char line[64];
    snprintf(line, sizeof line, "%d", set.labels[8 + r]);
    strcat(csv, line);
    for (int k = 0; k < 4; ++k) {
      snprintf(line, sizeof line, ",%d", set.images[16 + r * 4 + k]);
      strcat(csv, line);
    }
    strcat(csv, "\n");
  }
  char features[1024], derived[1024], spelled[1024], table[1024], model[1024];
  char out[1024], given_labels[1024];
  snprintf(features, sizeof features, "%s", path_in("d-images-idx3-ubyte"));
  snprintf(derived, sizeof derived, "%s", path_in("d-labels-idx1-ubyte"));
  snprintf(spelled, sizeof spelled, "%s/./d-labels-idx1-ubyte", work_dir);
  snprintf(table, sizeof table, "%s", path_in("d.csv"));
  snprintf(model, sizeof model, "%s", path_in("d.ckn"));
  snprintf(out, sizeof out, "%s", path_in("d-predicted.txt"));
  snprintf(given_labels, sizeof given_labels, "%s", path_in("d-classes.idx"));
  CHECK(write_bytes(features, set.images, sizeof set.images) == 0);
  CHECK(write_bytes(derived, set.labels, sizeof set.labels) == 0);
  CHECK(write_text(table, csv) == 0);
  ck_run_options options = {.seed = 5};
  const ck_param train_params[] = {
      {"train", features}, {"epochs", "1"}, {"save", model}};
  CHECK_OK(
      test_workload_run(nn_workload, ref, train_params, 3, &options, result));

  const struct {
    ck_param params[4];
    size_t count;
    const char *mention;
  } cases[] = {
      {{{"train", table}, {"test", features}},
       2,
       "--test must be in the format of --train"},
      {{{"train", features}, {"test", table}},
       2,
       "--test must be in the format of --train"},
      {{{"train", features}, {"save", derived}},
       2,
       "--save and the labels file of --train"},
      {{{"train", features}, {"trace", spelled}},
       2,
       "--trace and the labels file of --train"},
      {{{"load", model}, {"predict", features}, {"out", derived}},
       3,
       "--out and the labels file of --predict"},
      {{{"load", model},
        {"test", features},
        {"predict", table},
        {"out", derived}},
       4,
       "--out and the labels file of --test"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    ck_status status = test_workload_run(nn_workload, ref, cases[i].params,
                                         cases[i].count, &options, result);
    const char *message = last_message();
    CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT &&
                  strstr(message, cases[i].mention) &&
                  strstr(message, features),
              "case %zu: status %d, message '%s' (want '%s')", i, (int)status,
              message, cases[i].mention);
  }
  /* Both kinds named: the two files and their formats. */
  CHECK_FAILS(
      test_workload_run(nn_workload, ref, cases[0].params, 2, &options, result),
      CK_ERROR_INVALID_ARGUMENT, "is IDX, not CSV");
  CHECK_MSG(strstr(last_message(), table) && strstr(last_message(), features),
            "%s", last_message());
  /* The derived names are checked before the run too. */
  CHECK(ck_workload_check(nn_workload, cases[2].params, 2) ==
        CK_ERROR_INVALID_ARGUMENT);
  size_t size = 0;
  uint8_t *kept = (uint8_t *)test_read_file(derived, &size);
  CHECK_MSG(kept && size == sizeof set.labels &&
                memcmp(kept, set.labels, size) == 0,
            "%s was replaced", derived);
  free(kept);
  /* Labels given by their option leave the derived name free to write. */
  CHECK(write_bytes(given_labels, set.labels, sizeof set.labels) == 0);
  const ck_param given[] = {{"train", features},
                            {"train-labels", given_labels},
                            {"epochs", "1"},
                            {"trace", derived}};
  CHECK_OK(test_workload_run(nn_workload, ref, given, 4, &options, result));
  test_results_release(result, 1);
  free(result);
}

/* ---- main ------------------------------------------------------------------
 */

/* A comparison in TF32: ref, which has FP32 products alone, runs as the
 * oracle in FP32; an OpenCL device refuses TF32 in its own row, and a
 * CUDA device (CLKIT_TEST_DEVICE=cuda:N) agrees in TF32. */
static void compare_tf32(const ck_device_set *set, long opencl) {
  printf("compare in TF32\n");
  const ck_workload *nn_workload = NULL;
  CHECK_OK(ck_workload_find("nn", &nn_workload));
  if (!nn_workload)
    return;
  const ck_param params[] = {
      {"train", "spirals:300"}, {"epochs", "2"}, {"math", "tf32"}};
  ck_result results[2] = {0};
  size_t produced = 0, ref_index = 0, opencl_index = (size_t)opencl;
  ck_run_options options = {.seed = 1};
  CHECK(test_workload_run(nn_workload, &set->devices[0], params, 3, &options,
                          &results[0]) == CK_ERROR_UNSUPPORTED);
  CHECK_OK(test_compare_run(nn_workload, set,
                            opencl >= 0 ? &opencl_index : &ref_index, 1, 0,
                            params, 3, &options, results, 2, &produced));
  CHECK(produced == (opencl >= 0 ? 2u : 1u));
  double tf32 = -1;
  CHECK(results[0].status == CK_OK && results[0].agrees);
  CHECK_OK(ck_result_get_metric(&results[0], "tf32", &tf32));
  CHECK(tf32 == 0 && strstr(results[0].throughput_unit, "TF32") == NULL);
  if (produced == 2 && set->devices[opencl].backend == CK_BACKEND_CUDA)
    CHECK_MSG(results[1].status == CK_OK && results[1].agrees &&
                  strstr(results[1].throughput_unit, "TF32") != NULL,
              "%s: status %d, %s %.4f against ref's %.4f", results[1].device,
              (int)results[1].status, results[1].throughput_unit,
              results[1].best, results[0].best);
  else if (produced == 2)
    CHECK_MSG(results[1].status == CK_ERROR_UNSUPPORTED &&
                  strstr(results[1].error, "TF32") != NULL,
              "%s: status %d, '%s'", results[1].device, (int)results[1].status,
              results[1].error);
  /* The caller's parameters are as they were. */
  CHECK(strcmp(params[2].value, "tf32") == 0);
  test_results_release(results, 2);
}

/* ---- training time: the warm-up left out ---------------------------------
 */

/* The steps of the network under test with a prepare that stands in for
 * CUDA's (which only CUDA has): the backend's own, then forward passes
 * over the scratch buffers and 50 ms of host time; it notes the queue's
 * kernel total and the host clock when done. */
static const ck__nn_steps *timing_base;
static double timing_kernel_prepared, timing_host_prepared;
static int timing_prepares;

static double timing_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static ck_status timing_prepare(nn_state *state, uint32_t count) {
  ck_status status = CK_OK;
  if (timing_base->prepare && (status = timing_base->prepare(state, count)))
    return status;
  for (int k = 0; k < 20 && status == CK_OK; ++k)
    status = timing_base->forward(state, 1, state->activations[0], 0, count);
  if (status == CK_OK)
    status = ck_queue_finish(state->queue);
  struct timespec pause = {0, 50 * 1000 * 1000};
  nanosleep(&pause, NULL);
  ++timing_prepares;
  timing_host_prepared = timing_now();
  if (status == CK_OK)
    status = ck_queue_get_kernel_seconds(state->queue, &timing_kernel_prepared);
  return status;
}

static int timing_epoch(void *user, const ck_nn_epoch *epoch) {
  *(double *)user += epoch->seconds;
  return 0;
}

/* ck_nn_train's wall_s and kernel_s cover the epochs it trains and not
 * the one-time warm-up of the first (which ran inside both before): wall_s
 * within the host's time after the warm-up and at least the epochs'
 * times, kernel_s the queue's kernel time after it, 0 <= kernel_s <=
 * wall_s, and more than 0 on OpenCL. */
static void training_time(const ck_device *device) {
  static const size_t sizes[] = {8, 16, 3};
  static const ck_nn_activation relu = CK_NN_RELU;
  ck_nn_config c;
  config_net(&c, 3, sizes, &relu, CK_NN_CROSS_ENTROPY);
  c.batch = 32;
  ck_dataset data;
  data_random(&data, 100, 8, 3, 5, NULL, NULL);
  ck_nn *nn = NULL;
  CHECK_OK(ck_nn_create(device, &c, &nn));
  if (nn) {
    CHECK_OK(ck_nn_set_preprocessing(nn, &data, CK_NORMALIZE_NONE));
    CHECK_OK(ck_nn_attach(nn, CK_NN_TRAIN, &data));
    ck__nn_steps steps = *nn->steps;
    timing_base = nn->steps;
    steps.prepare = timing_prepare;
    nn->steps = &steps;
    timing_prepares = 0;
    double epochs_s = 0;
    ck_nn_training plan = {2, 0, timing_epoch, &epochs_s, 0};
    ck_nn_report report;
    CHECK_OK(ck_nn_train(nn, &plan, &report));
    double host_s = timing_now() - timing_host_prepared, kernel_end = 0;
    CHECK_OK(ck_queue_finish(nn->state.queue));
    CHECK_OK(ck_queue_get_kernel_seconds(nn->state.queue, &kernel_end));
    double kernel_s = kernel_end - timing_kernel_prepared;
    CHECK_MSG(timing_prepares >= 1 && report.wall_s <= host_s &&
                  report.wall_s >= epochs_s,
              "%s: wall_s %g, %g s after the warm-up, epochs %g s", device->id,
              report.wall_s, host_s, epochs_s);
    CHECK_MSG(fabs(report.kernel_s - kernel_s) <= 1e-9 &&
                  report.kernel_s >= 0 && report.kernel_s <= report.wall_s &&
                  (device->backend == CK_BACKEND_REF || report.kernel_s > 0),
              "%s: kernel_s %g, %g after the warm-up, wall_s %g", device->id,
              report.kernel_s, kernel_s, report.wall_s);
    nn->steps = timing_base;
  }
  ck_nn_destroy(nn);
  ck_dataset_free(&data);
}

/* ---- NULL arguments, named ----------------------------------------------- */

/* A 2-8-2 network and data for it, made once, for the calls whose network
 * is not the NULL. */
typedef struct null_context {
  const ck_device *device;
  ck_nn_config config;
  ck_nn *nn;
  ck_dataset data;
  char path[600];
} null_context;

static ck_status null_nn_config_init(void *context, int which) {
  (void)context;
  ck_nn_config config;
  return ck_nn_config_init(NULL_AT(0, &config));
}

static ck_status null_nn_create(void *context, int which) {
  null_context *c = context;
  ck_nn *nn = NULL;
  ck_status status = ck_nn_create(NULL_AT(0, c->device), NULL_AT(1, &c->config),
                                  NULL_AT(2, &nn));
  ck_nn_destroy(nn);
  return status;
}

static ck_status null_nn_set_preprocessing(void *context, int which) {
  null_context *c = context;
  return ck_nn_set_preprocessing(NULL_AT(0, c->nn), NULL_AT(1, &c->data),
                                 CK_NORMALIZE_NONE);
}

static ck_status null_nn_attach(void *context, int which) {
  null_context *c = context;
  return ck_nn_attach(NULL_AT(0, c->nn), CK_NN_TRAIN, NULL_AT(1, &c->data));
}

static ck_status null_nn_train_epoch(void *context, int which) {
  null_context *c = context;
  return ck_nn_train_epoch(NULL_AT(0, c->nn), NULL);
}

static ck_status null_nn_train(void *context, int which) {
  null_context *c = context;
  ck_nn_training plan = {1, 0, NULL, NULL, 0};
  ck_nn_report report;
  return ck_nn_train(NULL_AT(0, c->nn), NULL_AT(1, &plan), NULL_AT(2, &report));
}

static ck_status null_nn_evaluate(void *context, int which) {
  null_context *c = context;
  return ck_nn_evaluate(NULL_AT(0, c->nn), CK_NN_TRAIN, NULL, NULL, NULL);
}

static ck_status null_nn_predict(void *context, int which) {
  null_context *c = context;
  int32_t classes[8];
  return ck_nn_predict(NULL_AT(0, c->nn), NULL_AT(1, &c->data),
                       NULL_AT(2, classes));
}

static ck_status null_nn_predict_proba(void *context, int which) {
  null_context *c = context;
  double probabilities[16];
  return ck_nn_predict_proba(NULL_AT(0, c->nn), NULL_AT(1, &c->data),
                             NULL_AT(2, probabilities));
}

static ck_status null_nn_save_as(void *context, int which) {
  null_context *c = context;
  return ck_nn_save_as(NULL_AT(0, c->nn), NULL_AT(1, c->path),
                       CK_NN_FORMAT_SAFETENSORS);
}

static ck_status null_nn_describe(void *context, int which) {
  null_context *c = context;
  ck_nn_config config;
  return ck_nn_describe(NULL_AT(0, c->nn), NULL_AT(1, &config));
}

static ck_status null_nn_get_class_name(void *context, int which) {
  null_context *c = context;
  char buffer[16];
  return ck_nn_get_class_name(NULL_AT(0, c->nn), 0, NULL_AT(1, buffer),
                              sizeof buffer);
}

static ck_status null_nn_get_weights(void *context, int which) {
  null_context *c = context;
  return ck_nn_get_weights(NULL_AT(0, c->nn), 0, NULL, NULL);
}

static ck_status null_nn_set_weights(void *context, int which) {
  null_context *c = context;
  return ck_nn_set_weights(NULL_AT(0, c->nn), 0, NULL, NULL);
}

static ck_status null_nn_save(void *context, int which) {
  null_context *c = context;
  return ck_nn_save(NULL_AT(0, c->nn), NULL_AT(1, c->path));
}

static ck_status null_nn_load(void *context, int which) {
  null_context *c = context;
  ck_nn *nn = NULL;
  ck_status status = ck_nn_load(NULL_AT(0, c->device), NULL_AT(1, c->path),
                                NULL, NULL_AT(2, &nn));
  ck_nn_destroy(nn);
  return status;
}

static void null_arguments(const ck_device *ref) {
  static const check_null_case cases[] = {
      {"ck_nn_config_init", {"config"}, null_nn_config_init},
      {"ck_nn_create", {"device", "config", "nn"}, null_nn_create},
      {"ck_nn_set_preprocessing", {"nn", "train"}, null_nn_set_preprocessing},
      {"ck_nn_attach", {"nn", "data"}, null_nn_attach},
      {"ck_nn_train_epoch", {"nn"}, null_nn_train_epoch},
      {"ck_nn_train", {"nn", "training", "report"}, null_nn_train},
      {"ck_nn_evaluate", {"nn"}, null_nn_evaluate},
      {"ck_nn_predict", {"nn", "data", "classes"}, null_nn_predict},
      {"ck_nn_predict_proba",
       {"nn", "data", "probabilities"},
       null_nn_predict_proba},
      {"ck_nn_save_as", {"nn", "path"}, null_nn_save_as},
      {"ck_nn_describe", {"nn", "config"}, null_nn_describe},
      {"ck_nn_get_class_name", {"nn", "buffer"}, null_nn_get_class_name},
      {"ck_nn_get_weights", {"nn"}, null_nn_get_weights},
      {"ck_nn_set_weights", {"nn"}, null_nn_set_weights},
      {"ck_nn_save", {"nn", "path"}, null_nn_save},
      {"ck_nn_load", {"device", "path", "nn"}, null_nn_load},
  };
  printf("NULL arguments\n");
  null_context c = {.device = ref};
  ck_nn_config_init(&c.config);
  test_path_in(work_dir, "null-arguments.model", c.path, sizeof c.path);
  data_random(&c.data, 8, 2, 2, 75, NULL, NULL);
  CHECK_OK(ck_nn_create(ref, &c.config, &c.nn));
  if (c.nn) {
    check_null_arguments(cases, sizeof cases / sizeof cases[0], &c);
    CHECK_INVALID(ck_nn_get_class_name(c.nn, 0, (char[4]){0}, 0),
                  "ck_nn_get_class_name: capacity is 0");
    CHECK_INVALID(ck_nn_evaluate(c.nn, (ck_nn_set)-1, NULL, NULL, NULL),
                  "ck_nn_evaluate: which is -1");
    CHECK_INVALID(ck_nn_save_as(c.nn, c.path, (ck_nn_format)7),
                  "ck_nn_save_as: format is 7");
  }
  ck_nn_destroy(c.nn);
  ck_dataset_free(&c.data);
}

/* Log lines of a run, kept for the checks. */
typedef struct kept_lines {
  char text[8192];
  size_t used;
} kept_lines;

static void keep_line(void *user, const char *line) {
  kept_lines *kept = user;
  int written = snprintf(kept->text + kept->used,
                         sizeof kept->text - kept->used, "%s\n", line);
  if (written > 0 && kept->used + (size_t)written < sizeof kept->text)
    kept->used += (size_t)written;
}

/* The model that label_column trains, for the tests after it. */
static const char *label_model(void) {
  return path_in("pixels.ckn");
}

/* The CSV label column in the nn workload: one value is refused for
 * training (a loaded model's classes too), not for testing; a column
 * that looks less like labels than the last is warned of through the
 * log. Saves label_model(), whose classes are 0 .. 2. */
static void label_column(const ck_device *ref) {
  ck_result *result = NULL;
  const ck_workload *nn_workload = nn_with_result(&result);
  if (!nn_workload)
    return;
  printf("the CSV label column\n");
  char pixels[16384] = "", measured[8192] = "", one_class[256] = "";
  uint64_t state = 5;
  for (int r = 0; r < 60; ++r) {
    int k = r % 3;
    size_t used = strlen(pixels);
    /* A first pixel that is always 0, as at the corner of an image. */
    snprintf(pixels + used, sizeof pixels - used, "0,%d,%d,%d,%d\n",
             k == 0 ? 200 : (int)rng_uniform(&state, 0, 30),
             k == 1 ? 200 : (int)rng_uniform(&state, 0, 30),
             k == 2 ? 200 : (int)rng_uniform(&state, 0, 30), k);
    used = strlen(measured);
    snprintf(measured + used, sizeof measured - used, "%.3f,%.3f,%d\n",
             k + rng_uniform(&state, 0.1, 0.9), rng_uniform(&state, -1, 1), k);
  }
  for (int r = 0; r < 4; ++r) {
    size_t used = strlen(one_class);
    snprintf(one_class + used, sizeof one_class - used, "0,9,8,200,2\n");
  }
  char pixels_path[1024], measured_path[1024], one_path[1024], model[1024];
  snprintf(pixels_path, sizeof pixels_path, "%s", path_in("pixels.csv"));
  snprintf(measured_path, sizeof measured_path, "%s", path_in("measured.csv"));
  snprintf(one_path, sizeof one_path, "%s", path_in("one-class.csv"));
  snprintf(model, sizeof model, "%s", label_model());
  CHECK(write_text(pixels_path, pixels) == 0);
  CHECK(write_text(measured_path, measured) == 0);
  CHECK(write_text(one_path, one_class) == 0);
  kept_lines *kept = calloc(1, sizeof *kept);
  CHECK(kept != NULL);
  if (!kept) {
    test_results_release(result, 1);
    free(result);
    return;
  }
  ck_run_options options = {.seed = 2, .log = keep_line, .log_user = kept};

  /* The first column, a pixel of one value, is not a label. */
  const ck_param first[] = {
      {"train", pixels_path}, {"split", "0.2"}, {"epochs", "1"}};
  CHECK_FAILS(test_workload_run(nn_workload, ref, first, 3, &options, result),
              CK_ERROR_PARSE, "column 1, the label column, holds one value");
  CHECK_MSG(strstr(last_message(), pixels_path) &&
                strstr(last_message(), "give --label-col last"),
            "%s", last_message());
  const ck_param last[] = {{"train", pixels_path}, {"label-col", "last"},
                           {"split", "0.2"},       {"epochs", "30"},
                           {"lr", "0.01"},         {"save", model}};
  kept->used = 0;
  kept->text[0] = '\0';
  CHECK_OK(test_workload_run(nn_workload, ref, last, 6, &options, result));
  CHECK_MSG(!strstr(kept->text, "warning: "), "a warning: %s", kept->text);
  /* A loaded model's classes do not make one value a training set... */
  const ck_param tune[] = {{"load", model}, {"train", pixels_path}};
  CHECK_FAILS(test_workload_run(nn_workload, ref, tune, 2, &options, result),
              CK_ERROR_PARSE, "column 1, the label column, holds one value");
  /* ...but test rows may all be of one class. */
  const ck_param one_test[] = {
      {"load", model}, {"test", one_path}, {"label-col", "last"}};
  CHECK_OK(test_workload_run(nn_workload, ref, one_test, 3, &options, result));

  /* Measurements read as names, beside a last column of labels. */
  kept->used = 0;
  kept->text[0] = '\0';
  const ck_param measures[] = {
      {"train", measured_path}, {"split", "0.2"}, {"epochs", "1"}};
  CHECK_OK(test_workload_run(nn_workload, ref, measures, 3, &options, result));
  CHECK_MSG(strncmp(kept->text, "warning: ", 9) == 0 &&
                strstr(kept->text, measured_path) &&
                strstr(kept->text, "holds numbers that are not integers") &&
                strstr(kept->text, "give --label-col last"),
            "log: %s", kept->text);
  kept->used = 0;
  kept->text[0] = '\0';
  const ck_param measures_last[] = {{"train", measured_path},
                                    {"label-col", "last"},
                                    {"split", "0.2"},
                                    {"epochs", "1"}};
  CHECK_OK(
      test_workload_run(nn_workload, ref, measures_last, 4, &options, result));
  CHECK_MSG(!strstr(kept->text, "warning: "), "a warning: %s", kept->text);

  free(kept);
  test_results_release(result, 1);
  free(result);
}

/* --predict without --out writes the classes to standard output (here
 * a file), which several devices may not share. Uses label_model(). */
static void predict_stdout(const ck_device *ref) {
  ck_result *result = NULL;
  const ck_workload *nn_workload = nn_with_result(&result);
  if (!nn_workload)
    return;
  printf("predictions on standard output\n");
  char model[1024], rows[1024], captured[1024];
  snprintf(model, sizeof model, "%s", label_model());
  snprintf(rows, sizeof rows, "%s", path_in("pixel-rows.csv"));
  snprintf(captured, sizeof captured, "%s", path_in("stdout.txt"));
  CHECK(write_text(rows, "0,200,3,4\n0,5,200,6\n0,7,8,200\n") == 0);
  ck_run_options options = {.seed = 2};
  const ck_param predict[] = {{"load", model}, {"predict", rows}};
  int saved = dup(STDOUT_FILENO);
  int file = open(captured, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(saved >= 0 && file >= 0);
  if (saved >= 0 && file >= 0) {
    fflush(stdout);
    dup2(file, STDOUT_FILENO);
    ck_status status =
        test_workload_run(nn_workload, ref, predict, 2, &options, result);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    CHECK_MSG(status == CK_OK, "predicting onto stdout: %s", last_message());
    char *text = test_read_file(captured, NULL);
    CHECK_MSG(text && strcmp(text, "0\n1\n2\n") == 0, "stdout held '%s'",
              text ? text : "(nothing)");
    free(text);
  }
  if (file >= 0)
    close(file);
  if (saved >= 0)
    close(saved);
  CHECK_OK(ck_workload_check_devices(nn_workload, predict, 2, 1));
  CHECK_FAILS(ck_workload_check_devices(nn_workload, predict, 2, 2),
              CK_ERROR_INVALID_ARGUMENT,
              "option --out: 2 devices would each write to standard "
              "output in turn");
  test_results_release(result, 1);
  free(result);
}

/* ---- spread over devices ------------------------------------------------ */

/* A 5-12-4 network for the spread checks, on one device (spread NULL) or
 * spread, trained `epochs` epochs on train with validation and test data;
 * each epoch into record. */
static ck_nn *spread_net(const ck_device *device, const ck_spread *spread,
                         const ck_nn_config *c, const ck_dataset *sets,
                         unsigned epochs, epoch_record *record,
                         ck_nn_report *report) {
  ck_nn *nn = NULL;
  if (spread)
    CHECK_OK(ck_nn_create_spread(spread, c, &nn));
  else
    CHECK_OK(ck_nn_create(device, c, &nn));
  if (!nn)
    return NULL;
  CHECK_OK(ck_nn_set_preprocessing(nn, &sets[0], CK_NORMALIZE_ZSCORE));
  CHECK_OK(ck_nn_attach(nn, CK_NN_TRAIN, &sets[0]));
  CHECK_OK(ck_nn_attach(nn, CK_NN_VALIDATION, &sets[1]));
  CHECK_OK(ck_nn_attach(nn, CK_NN_TEST, &sets[2]));
  memset(record, 0, sizeof *record);
  ck_nn_training plan = {epochs, 0, record_epoch, record, 0};
  CHECK_OK(ck_nn_train(nn, &plan, report));
  return nn;
}

static void spread_config(ck_nn_config *c, ck_nn_optimizer optimizer) {
  static const size_t sizes[] = {5, 12, 4};
  static const ck_nn_activation act[] = {CK_NN_RELU};
  config_net(c, 3, sizes, act, CK_NN_CROSS_ENTROPY);
  c->optimizer = optimizer;
  c->learning_rate = optimizer == CK_NN_ADAM ? 0.01 : 0.05;
  c->weight_decay = 1e-3;
  c->batch = 32;
  c->seed = 23;
}

/* Training, validation and test rows of one rule: 193 training rows
 * leave a last batch of 1 row, fewer than two members. */
static void spread_sets(ck_dataset *sets) {
  data_random(&sets[0], 193, 5, 4, 61, NULL, NULL);
  data_random(&sets[1], 41, 5, 4, 62, NULL, NULL);
  data_random(&sets[2], 57, 5, 4, 63, NULL, NULL);
}

/* A spread over one member is the one-device network, bit for bit: every
 * epoch's figures and the weights. */
static void spread_alone(const ck_device *device, ck_nn_optimizer optimizer) {
  printf("spread over %s alone (%s)\n", device->id,
         optimizer == CK_NN_ADAM ? "adam" : "sgd");
  ck_dataset sets[3];
  spread_sets(sets);
  ck_nn_config c;
  spread_config(&c, optimizer);
  static epoch_record alone, spread;
  ck_nn_report a, b;
  ck_spread one = {.devices = device, .device_count = 1};
  ck_nn *x = spread_net(device, NULL, &c, sets, 3, &alone, &a);
  ck_nn *y = spread_net(device, &one, &c, sets, 3, &spread, &b);
  if (x && y) {
    CHECK(alone.count == 3 && spread.count == 3);
    for (unsigned e = 0; e < alone.count && e < spread.count; ++e) {
      const ck_nn_epoch *p = &alone.epochs[e], *q = &spread.epochs[e];
      CHECK_MSG(p->train_loss == q->train_loss &&
                    p->train_accuracy == q->train_accuracy &&
                    p->validation_loss == q->validation_loss &&
                    p->test_loss == q->test_loss &&
                    p->test_accuracy == q->test_accuracy,
                "%s epoch %u: train loss %.9g vs %.9g, test %.9g vs %.9g",
                device->id, e + 1, p->train_loss, q->train_loss, p->test_loss,
                q->test_loss);
    }
    CHECK(a.best_epoch == b.best_epoch &&
          a.final_test_loss == b.final_test_loss &&
          a.final_test_accuracy == b.final_test_accuracy);
    CHECK_MSG(weights_identical(x, y), "%s: one member's weights differ",
              device->id);
  }
  ck_nn_destroy(x);
  ck_nn_destroy(y);
  for (int i = 0; i < 3; ++i)
    ck_dataset_free(&sets[i]);
}

/* The spread's evaluation and predictions are those of a one-device
 * network with its weights. */
static void spread_evaluation(ck_nn *spread, const ck_dataset *sets) {
  ck_nn_config c;
  CHECK_OK(ck_nn_describe(spread, &c));
  ck_nn *copy = NULL;
  CHECK_OK(ck_nn_create(&ck__nn_state(spread)->device, &c, &copy));
  if (!copy)
    return;
  CHECK_OK(ck_nn_set_preprocessing(copy, &sets[0], CK_NORMALIZE_ZSCORE));
  CHECK_OK(ck_nn_attach(copy, CK_NN_TEST, &sets[2]));
  float weights[12 * 5], biases[12];
  for (size_t l = 0; l < 2; ++l) {
    CHECK_OK(ck_nn_get_weights(spread, l, weights, biases));
    CHECK_OK(ck_nn_set_weights(copy, l, weights, biases));
  }
  double loss[2], accuracy[2];
  uint64_t confusion[2][16];
  CHECK_OK(
      ck_nn_evaluate(spread, CK_NN_TEST, &loss[0], &accuracy[0], confusion[0]));
  CHECK_OK(
      ck_nn_evaluate(copy, CK_NN_TEST, &loss[1], &accuracy[1], confusion[1]));
  CHECK_MSG(near_relative(loss[0], loss[1], 1e-5) && accuracy[0] == accuracy[1],
            "spread test loss %.9g, accuracy %g; one device %.9g, %g", loss[0],
            accuracy[0], loss[1], accuracy[1]);
  CHECK(memcmp(confusion[0], confusion[1], sizeof confusion[0]) == 0);
  int32_t classes[2][57];
  CHECK_OK(ck_nn_predict(spread, &sets[2], classes[0]));
  CHECK_OK(ck_nn_predict(copy, &sets[2], classes[1]));
  CHECK(memcmp(classes[0], classes[1], sizeof classes[0]) == 0);
  check_probabilities(spread, &sets[2], classes[0], c.sizes[c.layer_count - 1]);
  ck_nn_destroy(copy);
}

/* The members' weights: the same bit for bit on CPUs, which round alike;
 * GPUs may round divisions and square roots otherwise. */
static void check_members_alike(ck_nn *nn, const char *what) {
  int gpu = 0;
  for (size_t i = 0; i < nn->local; ++i)
    gpu |= ck__nn_state(nn->members[i])->device.kind == CK_KIND_GPU;
  for (size_t i = 1; i < nn->local; ++i) {
    if (!gpu)
      CHECK_MSG(weights_identical(nn, nn->members[i]),
                "%s: member %zu's weights differ", what, i);
    else
      check_weights_near(nn, nn->members[i], 1e-4, what);
  }
}

/*
 * ref and another device with shares 1 and 3 train to the losses of ref
 * alone, up to the order of the gradients' sums, and keep their weights
 * alike; the last batch of one row leaves ref none. Evaluations and
 * predictions are shared too. Rows are dealt by a probe without shares,
 * which a batch of fewer rows than members cannot be dealt by.
 */
static void spread_pair(const ck_device *ref, const ck_device *other) {
  printf("spread over ref and %s\n", other->id);
  ck_dataset sets[3];
  spread_sets(sets);
  ck_nn_config c;
  spread_config(&c, CK_NN_ADAM);
  ck_device pair[2] = {*ref, *other};
  const double shares[2] = {1, 3};
  ck_spread two = {
      .devices = pair, .device_count = 2, .shares = shares, .share_count = 2};
  static epoch_record alone, spread;
  ck_nn_report a, b;
  ck_nn *x = spread_net(ref, NULL, &c, sets, 4, &alone, &a);
  ck_nn *y = spread_net(NULL, &two, &c, sets, 4, &spread, &b);
  if (x && y && y->local == 2) {
    for (unsigned e = 0; e < alone.count && e < spread.count; ++e) {
      const ck_nn_epoch *p = &alone.epochs[e], *q = &spread.epochs[e];
      CHECK_MSG(
          near_relative(p->train_loss, q->train_loss, 1e-5) &&
              near_relative(p->validation_loss, q->validation_loss, 1e-5) &&
              near_relative(p->test_loss, q->test_loss, 1e-5) &&
              fabs(p->test_accuracy - q->test_accuracy) < 0.02,
          "epoch %u: train loss %.9g vs %.9g, test %.9g vs %.9g", e + 1,
          p->train_loss, q->train_loss, p->test_loss, q->test_loss);
    }
    check_weights_near(x, y, 1e-4, "ref and a spread");
    check_members_alike(y, "shares 1,3");
    spread_evaluation(y, sets);
    /* Weights set on the network reach every member. */
    float weights[12 * 5], biases[12];
    CHECK_OK(ck_nn_get_weights(x, 0, weights, biases));
    CHECK_OK(ck_nn_set_weights(y, 0, weights, biases));
    float *member = layer_floats(y->members[1], 1);
    CHECK(member && member[0] == weights[0] && member[5] == biases[0]);
    free(member);
  }
  ck_nn_destroy(x);
  ck_nn_destroy(y);
  /* Without shares a probe deals the rows: a batch of 1 cannot be. */
  two.shares = NULL;
  two.share_count = 0;
  c.batch = 1;
  ck_nn *z = NULL;
  CHECK_OK(ck_nn_create_spread(&two, &c, &z));
  if (z) {
    CHECK_OK(ck_nn_attach(z, CK_NN_TRAIN, &sets[0]));
    ck_nn_training plan = {1, 0, NULL, NULL, 0};
    CHECK_INVALID(ck_nn_train(z, &plan, &b),
                  "batch: 1 samples cannot be dealt to 2 devices");
  }
  ck_nn_destroy(z);
  /* The workload reports each member's rows of a batch, as probed. */
  const ck_workload *workload = NULL;
  CHECK_OK(ck_workload_find("nn", &workload));
  const ck_param params[] = {
      {"train", "spirals:120"}, {"epochs", "1"}, {"batch", "24"}};
  ck_run_options options = {.seed = 3, .spread = &two};
  ck_result result;
  ck_status run_status =
      ck_workload_run(workload, ref, params, 3, &options, &result);
  CHECK_OK(run_status);
  if (run_status == CK_OK) {
    CHECK_MSG(result.member_count == 2 && result.members &&
                  result.members[0].units >= 1 &&
                  result.members[1].units >= 1 &&
                  result.members[0].units + result.members[1].units == 24 &&
                  strcmp(result.members[1].device, other->id) == 0 &&
                  strcmp(result.member_units, "samples") == 0,
              "members %zu", result.member_count);
    ck_result_release(&result);
  }
  ck_nn *none = NULL;
  CHECK_INVALID(ck_nn_create_spread(NULL, &c, &none), "spread");
  CHECK_INVALID(ck_nn_create_spread(&two, NULL, &none), "config");
  CHECK_INVALID(ck_nn_create_spread(&two, &c, NULL), "nn");
  for (int i = 0; i < 3; ++i)
    ck_dataset_free(&sets[i]);
}

/*
 * A spread over the CUDA devices (two or more): each member replays its
 * step as a CUDA graph, and where NCCL loads, the step holds its sums
 * through the member's own communicator (and is launched call by call
 * where NCCL cannot record them). Equal rows average the
 * gradients (ncclAvg), shares 1,3 sum them, and members in turn
 * (CLKIT_SPREAD_THREADS=0) have them summed for all from one thread. The
 * epoch's last batch of one row leaves members none. Each trains to the
 * losses of one CUDA device alone, in FP32 and in TF32.
 */
static void spread_cuda(const ck_device_set *set) {
  ck_device devices[4];
  size_t count = 0;
  for (size_t i = 0; i < set->count && count < 4; ++i)
    if (set->devices[i].backend == CK_BACKEND_CUDA)
      devices[count++] = set->devices[i];
  if (count < 2) {
    printf("SKIP: a spread over CUDA devices: %zu CUDA device\n", count);
    return;
  }
  ck_dataset sets[3];
  spread_sets(sets);
  static const double ones[4] = {1, 1, 1, 1}, uneven[2] = {1, 3};
  static const struct {
    const char *what;
    int uneven, in_turn;
    ck_nn_math math;
  } cases[] = {{"equal rows", 0, 0, CK_NN_FP32},
               {"shares 1,3", 1, 0, CK_NN_FP32},
               {"members in turn", 0, 1, CK_NN_FP32},
               {"TF32", 0, 0, CK_NN_TF32}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
#if CK_HAVE_CUDA
    if (cases[k].math == CK_NN_TF32 && ck__cuda_architecture(&devices[0]) < 80)
      continue;
#endif
    printf("spread over %zu CUDA devices: %s\n", count, cases[k].what);
    ck_nn_config c;
    spread_config(&c, CK_NN_ADAM);
    c.math = cases[k].math;
    size_t members = cases[k].uneven ? 2 : count;
    ck_spread spread = {.devices = devices,
                        .device_count = members,
                        .shares = cases[k].uneven ? uneven : ones,
                        .share_count = members};
    static epoch_record alone, spread_record;
    ck_nn_report a, b;
    ck_nn *x = spread_net(&devices[0], NULL, &c, sets, 4, &alone, &a);
    if (cases[k].in_turn)
      setenv("CLKIT_SPREAD_THREADS", "0", 1);
    ck_nn *y = spread_net(NULL, &spread, &c, sets, 4, &spread_record, &b);
    unsetenv("CLKIT_SPREAD_THREADS");
    for (unsigned e = 0; x && y && e < alone.count && e < spread_record.count;
         ++e) {
      const ck_nn_epoch *p = &alone.epochs[e], *q = &spread_record.epochs[e];
      CHECK_MSG(near_relative(p->train_loss, q->train_loss, 1e-5) &&
                    near_relative(p->test_loss, q->test_loss, 1e-5) &&
                    fabs(p->test_accuracy - q->test_accuracy) < 0.02,
                "%s, epoch %u: train loss %.9g vs %.9g, test %.9g vs %.9g",
                cases[k].what, e + 1, p->train_loss, q->train_loss,
                p->test_loss, q->test_loss);
    }
    if (x && y && y->local == members) {
      check_weights_near(x, y, 1e-4, cases[k].what);
      check_members_alike(y, cases[k].what);
      for (size_t i = 0; i < members; ++i) {
        const nn_state *state = ck__nn_state(y->members[i]);
        /* Where NCCL cannot record its sums (before 2.9), none does. */
        int records =
            !state->exchange || ck__exchange_captures(state->exchange);
        CHECK_MSG((state->replays > 0) == records,
                  "%s: member %zu replayed %llu steps", cases[k].what, i,
                  (unsigned long long)state->replays);
        /* A member that makes its own sums recorded its step before
         * training: every full batch of 4 epochs replays it. */
        uint64_t full = 4 * (sets[0].rows / c.batch);
        CHECK_MSG(!records || !state->exchange || state->replays == full,
                  "%s: member %zu replayed %llu steps of %llu", cases[k].what,
                  i, (unsigned long long)state->replays,
                  (unsigned long long)full);
#if CK_HAVE_NCCL
        CHECK_MSG(!ck__nccl_available() ||
                      (state->exchange == NULL) == cases[k].in_turn,
                  "%s: member %zu %s its own sums", cases[k].what, i,
                  state->exchange ? "makes" : "does not make");
#endif
      }
    }
    ck_nn_destroy(x);
    ck_nn_destroy(y);
  }
  for (int i = 0; i < 3; ++i)
    ck_dataset_free(&sets[i]);
}

/* ck_nn_config_read reads the command's options into a configuration:
 * the command's words and messages, and only a network's options. */
static void config_read(void) {
  ck_nn_config config, defaults;
  ck_nn_training training = {0, 0, NULL, NULL, 0};
  ck_normalization_kind kind = CK_NORMALIZE_NONE;
  double validation = -1;
  ck_nn_config_init(&defaults);
  CHECK_OK(ck_nn_config_read(NULL, 0, &config, &training, &kind, &validation));
  CHECK(memcmp(&config, &defaults, sizeof config) == 0);
  CHECK(training.epochs == 200 && training.patience == 10 &&
        training.tol == 1e-4 && kind == CK_NORMALIZE_ZSCORE && validation == 0);
  const ck_param params[] = {{"layers", "4,16,8,3"},
                             {"act", "tanh"},
                             {"optimizer", "sgd"},
                             {"momentum", "0.5"},
                             {"lr", "0.25"},
                             {"batch", "all"},
                             {"epochs", "3"},
                             {"normalize", "minmax"},
                             {"schedule", "step:2:0.5"},
                             {"patience", "4"},
                             {"tol", "0.01"},
                             {"val", "0.25"}};
  CHECK_OK(ck_nn_config_read(params, sizeof params / sizeof *params, &config,
                             &training, &kind, &validation));
  CHECK(config.layer_count == 4 && config.sizes[0] == 4 &&
        config.sizes[1] == 16 && config.sizes[2] == 8 && config.sizes[3] == 3);
  CHECK(config.activations[0] == CK_NN_TANH &&
        config.activations[1] == CK_NN_TANH);
  CHECK(config.optimizer == CK_NN_SGD && config.momentum == 0.5 &&
        config.learning_rate == 0.25 && config.batch == 0);
  CHECK(config.schedule == CK_NN_STEP && config.step_every == 2 &&
        config.step_gamma == 0.5 && config.seed == 1);
  CHECK(training.epochs == 3 && training.patience == 4 &&
        training.tol == 0.01 && kind == CK_NORMALIZE_MINMAX &&
        validation == 0.25);
  CHECK_OK(ck_nn_config_read(params, 1, &config, NULL, NULL, NULL));
  const ck_param two_acts[] = {{"layers", "4,16,8,3"}, {"act", "relu,tanh"}};
  CHECK_OK(ck_nn_config_read(two_acts, 2, &config, NULL, NULL, NULL));
  CHECK(config.activations[0] == CK_NN_RELU &&
        config.activations[1] == CK_NN_TANH);
  const struct {
    ck_param param;
    const char *mention;
  } bad[] = {
      {{"lr", "0"}, "--lr"},
      {{"act", "relu,tanh"}, "2 activations for 1 hidden layers"},
      {{"momentum", "0.5"}, "--optimizer sgd"},
      {{"layers", "4"}, "--layers"},
      {{"train", "spirals:100"}, "--train does not describe a network"},
      {{"tiles", "local:16"}, "--tiles does not describe"},
      {{"nonsense", "1"}, "--nonsense does not describe"},
      {{"tol", "-1"}, "--tol"},
      {{"val", "0.95"}, "--val"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    config = defaults;
    CHECK_INVALID(
        ck_nn_config_read(&bad[i].param, 1, &config, NULL, NULL, NULL),
        bad[i].mention);
    CHECK(memcmp(&config, &defaults, sizeof config) == 0);
  }
  CHECK_INVALID(ck_nn_config_read(NULL, 0, NULL, NULL, NULL, NULL),
                "ck_nn_config_read: config is NULL");
  /* --val's rows: a seeded quarter of 40, the same for the same seed. */
  ck_dataset whole, rest[2], held[2];
  data_random(&whole, 40, 3, 2, 91, NULL, NULL);
  for (int i = 0; i < 2; ++i)
    CHECK_OK(ck_nn_hold_out(&whole, 0.25, 7, &rest[i], &held[i]));
  CHECK(rest[0].rows == 30 && held[0].rows == 10 &&
        memcmp(held[0].values, held[1].values, 30 * sizeof(float)) == 0);
  for (int i = 0; i < 2; ++i) {
    ck_dataset_free(&rest[i]);
    ck_dataset_free(&held[i]);
  }
  CHECK_INVALID(ck_nn_hold_out(&whole, 0.001, 7, &rest[0], &held[0]),
                "leaves the tail part empty");
  ck_dataset_free(&whole);
  CHECK_INVALID(ck_nn_config_read(NULL, 1, &config, NULL, NULL, NULL),
                "params is NULL");
}

int main(void) {
  if (!mkdtemp(work_dir)) {
    fprintf(stderr, "mkdtemp %s: %s\n", work_dir, strerror(errno));
    return 1;
  }
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  const ck_device *ref = &set.devices[0];
  CHECK(ref->backend == CK_BACKEND_REF);
  long opencl = test_opencl_device(&set);
  const ck_device *ocl = opencl >= 0 ? &set.devices[opencl] : NULL;

  config_read();
  gradients(ref);
  bad_config(ref);
  null_arguments(ref);
  malformed(ref);
  early_stopping(ref);
  schedules(ref);
  workload(ref);
  predict_idx(ref);
  derived_labels_and_formats(ref);
  label_column(ref);
  predict_stdout(ref);
  compare_tf32(&set, opencl);
  padded_rows(ref, ocl);
  const ck_device *devices[2] = {ref, ocl};
  for (int i = 0; i < 2; ++i) {
    if (!devices[i])
      continue;
    printf("nn on %s\n", devices[i]->id);
    xor_learned(devices[i]);
    optimizer_steps(devices[i]);
    reproducibility(devices[i]);
    save_load(devices[i]);
    training_time(devices[i]);
  }
  spread_alone(ref, CK_NN_ADAM);
  spread_alone(ref, CK_NN_SGD);
  if (ocl) {
    spread_alone(ocl, CK_NN_ADAM);
    spread_pair(ref, ocl);
    agreement(ref, ocl);
    large_batch(ref, ocl);
    if (ocl->backend == CK_BACKEND_CUDA) {
      recording_refused(ref, ocl);
      spread_cuda(&set);
    }
  } else
    printf("SKIP: ref/OpenCL agreement, and XOR, reproducibility and model "
           "files on OpenCL: no OpenCL device\n");

  ck_device_set_free(&set);
  remove_tree(work_dir);
  return CHECK_DONE();
}
