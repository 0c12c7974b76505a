/*
 * nn.c - the MLP driver's network: configuration, weight initialisation,
 * data on the device, predictions, weights and model files, over the
 * backend's steps (ref, OpenCL or CUDA). Training and evaluation are
 * nn_train.c's; a spread's members, nn_spread.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ck_nn.h"
#include "ck_philox.h"
#include "framework/framework.h"
#include "nn/nn_internal.h"

/* The Philox streams of the weights, one a layer. */
#define WEIGHT_STREAM 0x4E4E000000000000ull

const char *const ck__nn_set_names[3] = {"training", "validation", "test"};

CK__STEPS_TABLE(ck__nn_steps, 16);

ck_status ck_nn_config_init(ck_nn_config *config) {
  CK__REQUIRE(config);
  memset(config, 0, sizeof *config);
  ck__fields_init(config, ck__nn_fields, CK__NN_FIELDS);
  for (int l = 1; l < CK_NN_MAX_LAYERS; ++l)
    config->activations[l] = config->activations[0];
  return CK_OK;
}

static ck_status check_config(const ck_nn_config *config) {
  const ck__field *fields = ck__nn_fields;
  ck_status status =
      ck__fields_check("ck_nn_config", config, fields, CK__NN_FIELDS);
  if (status)
    return status;
  for (size_t l = 0; l < config->layer_count; ++l)
    if (!ck__field_in_range(&fields[CK__NN_SIZE_0], (double)config->sizes[l]))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "ck_nn_config.sizes: width %zu of layer %zu is outside "
                      "1 .. %.0f",
                      config->sizes[l], l, fields[CK__NN_SIZE_0].maximum);
  if (config->sizes[config->layer_count - 1] < 2)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_nn_config.sizes: the output layer needs at least 2 "
                    "classes");
  for (size_t l = 0; l + 2 < config->layer_count; ++l)
    if (!ck__field_word_of(&fields[CK__NN_ACTIVATION], config->activations[l]))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "ck_nn_config.activations: unknown activation %d for "
                      "hidden layer %zu",
                      (int)config->activations[l], l + 1);
  if (config->schedule == CK_NN_STEP &&
      ((status = ck__field_check("ck_nn_config", config,
                                 &fields[CK__NN_STEP_EVERY])) ||
       (status = ck__field_check("ck_nn_config", config,
                                 &fields[CK__NN_STEP_GAMMA]))))
    return status;
  return CK_OK;
}

nn_state *ck__nn_state(ck_nn *nn) {
  return &nn->state;
}

/* Reals of layer l as its buffers hold them: sizes[l] rows pitch[l] apart. */
static size_t layer_reals(const nn_state *state, int layer) {
  return (size_t)state->sizes[layer] * state->pitch[layer];
}

/* Writes a layer's buffer in the weights' layout from values (sizes[l]
 * rows of sizes[l - 1] + 1, packed), which has room for layer_reals():
 * the rows are spread out to their pitch in place, the last first, and
 * the padding zeroed. */
ck_status ck__nn_layer_store(nn_state *state, int layer, ck_buffer *buffer,
                             double *values) {
  size_t row = state->sizes[layer - 1] + 1, pitch = state->pitch[layer];
  for (size_t o = state->sizes[layer]; pitch != row && o-- > 0;) {
    memmove(values + o * pitch, values + o * row, row * sizeof *values);
    for (size_t i = row; i < pitch; ++i)
      values[o * pitch + i] = 0.0;
  }
  return ck__reals_write(state->queue, buffer, state->double_precision, values,
                         layer_reals(state, layer));
}

/* ck__nn_layer_store's reverse: values (room for layer_reals()) ends with
 * the rows packed. */
ck_status ck__nn_layer_load(nn_state *state, int layer, ck_buffer *buffer,
                            double *values) {
  size_t row = state->sizes[layer - 1] + 1, pitch = state->pitch[layer];
  ck_status status =
      ck__reals_read(state->queue, buffer, state->double_precision, values,
                     layer_reals(state, layer));
  for (size_t o = 1; status == CK_OK && pitch != row && o < state->sizes[layer];
       ++o)
    memmove(values + o * row, values + o * pitch, row * sizeof *values);
  return status;
}

static ck_status layer_store(nn_state *state, int layer, double *values) {
  return ck__nn_layer_store(state, layer, state->weights[layer], values);
}

static ck_status layer_load(nn_state *state, int layer, double *values) {
  return ck__nn_layer_load(state, layer, state->weights[layer], values);
}

ck_status ck__nn_layer_read(ck_nn *nn, int layer, float *values) {
  ck_status status = CK_OK;
  nn_state *state = &nn->state;
  size_t count = (size_t)state->sizes[layer] * (state->sizes[layer - 1] + 1);
  double *wide = malloc(layer_reals(state, layer) * sizeof *wide);
  if (!wide)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory reading weights");
  CK_TRY(layer_load(state, layer, wide));
  for (size_t i = 0; i < count; ++i)
    values[i] = (float)wide[i];
fail:
  free(wide);
  return status;
}

ck_status ck__nn_layer_write(ck_nn *nn, int layer, const float *values) {
  ck_status status = CK_OK;
  nn_state *state = &nn->state;
  size_t count = (size_t)state->sizes[layer] * (state->sizes[layer - 1] + 1);
  double *wide = malloc(layer_reals(state, layer) * sizeof *wide);
  if (!wide)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory writing weights");
  for (size_t i = 0; i < count; ++i)
    wide[i] = values[i];
  CK_TRY(layer_store(state, layer, wide));
fail:
  free(wide);
  return status;
}

/* A standard normal from one Philox block (Box-Muller in double). */
static double normal_draw(uint64_t seed, uint64_t stream, uint64_t index) {
  ck_philox_counter r = ck_philox_block(seed, stream, index);
  double u1 = 1.0 - ck_uniform_double(r.v[0], r.v[1]); /* (0, 1] */
  double u2 = ck_uniform_double(r.v[2], r.v[3]);
  return sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
}

/* Xavier (Glorot) normal weights, std sqrt(2 / (in + out)), ahead of
 * sigmoid, tanh and the output; He normal, std sqrt(2 / in), ahead of
 * relu. Biases start at 0. Weight (o, i) of layer l draws block
 * o (in + 1) + i of stream WEIGHT_STREAM + l, whatever the backend. */
static ck_status initialise_weights(ck_nn *nn) {
  ck_status status = CK_OK;
  nn_state *state = &nn->state;
  double *values = NULL;
  for (int l = 1; l <= state->layers; ++l) {
    size_t in = state->sizes[l - 1], out = state->sizes[l];
    values = malloc(layer_reals(state, l) * sizeof *values);
    if (!values)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory drawing weights");
    double deviation =
        l < state->layers && state->activation[l] == CK_NN_ACT_RELU
            ? sqrt(2.0 / (double)in)
            : sqrt(2.0 / (double)(in + out));
    for (size_t o = 0; o < out; ++o)
      for (size_t i = 0; i <= in; ++i) {
        size_t at = o * (in + 1) + i;
        values[at] = i < in ? deviation * normal_draw(nn->config.seed,
                                                      WEIGHT_STREAM + l, at)
                            : 0.0;
      }
    CK_TRY(layer_store(state, l, values));
    free(values);
    values = NULL;
  }
fail:
  free(values);
  return status;
}

/* Activations and deltas for at least rows rows. */
ck_status ck__nn_ensure_capacity(ck_nn *nn, uint32_t rows) {
  ck_status status = CK_OK;
  nn_state *state = &nn->state;
  if (rows <= state->capacity)
    return CK_OK;
  for (int l = 0; l <= state->layers; ++l) {
    ck_buffer_destroy(state->activations[l]);
    ck_buffer_destroy(state->deltas[l]);
    state->activations[l] = state->deltas[l] = NULL;
  }
  ck_buffer_destroy(state->batch_labels);
  state->batch_labels = NULL;
  state->capacity = 0;
  /* All of them, with the weights and the optimiser's states, before any
   * is allocated: each alone may fit where together they do not. */
  double units = 0, reals = 0;
  for (int l = 0; l <= state->layers; ++l) {
    units += (l > 0 ? 2.0 : 1.0) * state->sizes[l];
    if (l > 0)
      reals += 3.0 * (double)layer_reals(state, l);
  }
  double bytes = (double)rows * (units * (double)state->real_size + 4.0) +
                 reals * (double)state->real_size;
  if ((status = ck__device_memory_check(&state->device, bytes)))
    CK_FAIL_PREFIX(status,
                   "the network's activations and deltas for %u rows a "
                   "batch, with its weights, need ",
                   rows);
  for (int l = 0; l <= state->layers; ++l) {
    size_t count = (size_t)rows * state->sizes[l];
    CK_TRY(ck__buffer_make_zeroed(state->queue, count, state->real_size,
                                  "network activations",
                                  &state->activations[l]));
    if (l > 0) {
      CK_TRY(ck__buffer_make_zeroed(state->queue, count, state->real_size,
                                    "network deltas", &state->deltas[l]));
    }
  }
  CK_TRY(ck__buffer_make_zeroed(state->queue, rows, sizeof(int32_t),
                                "batch labels", &state->batch_labels));
  state->capacity = rows;
fail:
  return status;
}

/* Per-sample losses, hits and predictions for at least rows rows. */
static ck_status ensure_samples(nn_state *state, uint32_t rows) {
  ck_status status = CK_OK;
  if (rows <= state->sample_capacity)
    return CK_OK;
  ck_buffer_destroy(state->losses);
  ck_buffer_destroy(state->hits);
  ck_buffer_destroy(state->predictions);
  state->losses = state->hits = state->predictions = NULL;
  state->sample_capacity = 0;
  CK_TRY(ck__buffer_make_zeroed(state->queue, rows, state->real_size,
                                "per-sample losses", &state->losses));
  CK_TRY(ck__buffer_make_zeroed(state->queue, rows, sizeof(uint32_t),
                                "per-sample hits", &state->hits));
  CK_TRY(ck__buffer_make_zeroed(state->queue, rows, sizeof(int32_t),
                                "predictions", &state->predictions));
  state->sample_capacity = rows;
fail:
  return status;
}

/* The network's state from the configuration: its widths, activations,
 * loss and optimiser in the steps' codes, its precision and tuning. */
static void state_from_config(ck_nn *nn, const ck_device *device,
                              const ck_nn_config *config, int double_precision,
                              const ck__nn_tuning *tuning) {
  nn->config = *config;
  nn->self = nn;
  nn->members = &nn->self;
  nn->local = 1;
  nn_state *state = &nn->state;
  state->device = *device;
  if (tuning)
    state->tuning = *tuning;
  state->double_precision = double_precision;
  state->real_size = double_precision ? sizeof(double) : sizeof(float);
  state->layers = (int)config->layer_count - 1;
  for (int l = 0; l <= state->layers; ++l)
    state->sizes[l] = (uint32_t)config->sizes[l];
  for (int l = 1; l < state->layers; ++l)
    state->activation[l] = (int)config->activations[l - 1];
  state->loss =
      config->loss == CK_NN_MSE ? CK_NN_LOSS_MSE : CK_NN_LOSS_CROSS_ENTROPY;
  state->activation[state->layers] =
      config->loss == CK_NN_MSE ? CK_NN_ACT_SIGMOID : CK_NN_ACT_IDENTITY;
  state->optimizer = config->optimizer == CK_NN_ADAM ? CK_NN_OPTIMIZER_ADAM
                                                     : CK_NN_OPTIMIZER_SGD;
}

/* Refuses the matrix products' forms the device cannot run as asked: TF32
 * and the vector form. */
static ck_status check_products(const nn_state *state,
                                const ck_nn_config *config,
                                const ck_device *device) {
  ck_status status = CK_OK;
  int double_precision = state->double_precision;
  /* A run reported as TF32 must run on tensor cores: where cuBLAS's TF32
   * mode would quietly compute in FP32, it is refused. */
  if (config->math == CK_NN_TF32 &&
      (double_precision || !ck__device_has_tf32(device)))
    CK_FAIL(CK_ERROR_UNSUPPORTED,
            "ck_nn_config.math: TF32 products need a CUDA device of "
            "compute capability 8.0 or later and single precision; device "
            "%s %s, so it refuses the run (FP32 runs it)",
            device->id,
            double_precision ? "runs in double precision"
                             : "has no TF32 products on tensor cores");
  /* The vector form is written in OpenCL C's vector types, which the CUDA
   * prelude does not spell; it is a form for CPUs. */
  if (state->tuning.tile && state->tuning.form == CK__NN_VECTOR &&
      !ck__device_has_vector_types(device))
    CK_FAIL(CK_ERROR_UNSUPPORTED,
            "matrix-product tiles vector:%u (--tiles): the vector form runs "
            "on OpenCL devices; CUDA device %s takes local:S or global:S",
            state->tuning.tile, device->id);
fail:
  return status;
}

/* The weights' rows padded to the steps' row multiple, and the weights
 * and the optimiser's two states checked to fit, before any is allocated
 * (the data sets and activations are checked as buffers when attached). */
static ck_status lay_out_weights(ck_nn *nn, const ck_device *device) {
  ck_status status = CK_OK;
  nn_state *state = &nn->state;
  unsigned multiple = state->tuning.row_multiple ? state->tuning.row_multiple
                      : nn->steps->row_multiple  ? nn->steps->row_multiple()
                                                 : 1;
  if (multiple > 1 && nn->steps == &ck__nn_opencl_steps)
    CK_FAIL(CK_ERROR_UNSUPPORTED,
            "device %s: the OpenCL kernels read weights rows packed, not on "
            "a multiple of %u reals",
            device->id, multiple);
  double parameters = 0, reals = 0;
  for (int l = 1; l <= state->layers; ++l) {
    state->pitch[l] =
        (state->sizes[l - 1] + 1 + multiple - 1) / multiple * multiple;
    parameters += (double)state->sizes[l] * (state->sizes[l - 1] + 1.0);
    reals += (double)layer_reals(state, l);
  }
  if ((status =
           ck__device_memory_check(device, 3.0 * reals * state->real_size)))
    CK_FAIL_PREFIX(status, "a network of %.0f parameters needs ", parameters);
fail:
  return status;
}

/* The network's queue, and on it its weights, the optimiser's states and
 * the loss and hit totals, zeroed. */
static ck_status make_buffers(nn_state *state, const ck_device *device) {
  ck_status status = CK_OK;
  CK_TRY(ck_queue_create(device, &state->queue));
  for (int l = 1; l <= state->layers; ++l) {
    size_t count = layer_reals(state, l);
    CK_TRY(ck__buffer_make_zeroed(state->queue, count, state->real_size,
                                  "weights", &state->weights[l]));
    CK_TRY(ck__buffer_make_zeroed(state->queue, count, state->real_size,
                                  "optimiser state", &state->first[l]));
    CK_TRY(ck__buffer_make_zeroed(state->queue, count, state->real_size,
                                  "optimiser state", &state->second[l]));
  }
  CK_TRY(ck__buffer_make_zeroed(state->queue, 1, state->real_size, "loss total",
                                &state->loss_total));
  CK_TRY(ck__buffer_make_zeroed(state->queue, 1, sizeof(uint32_t), "hit total",
                                &state->hit_total));
fail:
  return status;
}

ck_status ck__nn_allocate(const ck_device *device, const ck_nn_config *config,
                          int double_precision, const ck__nn_tuning *tuning,
                          ck_nn **result) {
  ck_status status = CK_OK;
  ck_nn *nn = NULL;
  CK__REQUIRE_IN("ck_nn_create", device);
  CK__REQUIRE_IN("ck_nn_create", config);
  if (!result)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_nn_create: nn is NULL");
  *result = NULL;
  CK_TRY(check_config(config));
  if (double_precision && !ck__device_has_fp64(device))
    CK_FAIL(CK_ERROR_UNSUPPORTED, "device %s has no double precision",
            device->id);
  nn = calloc(1, sizeof *nn);
  if (!nn)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory creating a network");
  state_from_config(nn, device, config, double_precision, tuning);
  nn_state *state = &nn->state;
  CK_TRY(check_products(state, config, device));
  state->tf32 = config->math == CK_NN_TF32;
  /* The products on cuBLAS: single precision (double runs keep the
   * kernels of the OpenCL steps, built for CUDA). */
  nn->steps = ck__steps_pick(
      device, double_precision ? &ck__nn_ref_steps_f64 : &ck__nn_ref_steps_f32,
      &ck__nn_opencl_steps,
      CK__CUDA_STEPS(device, ck__nn_cuda_steps, !double_precision),
      &nn->merged_steps, sizeof nn->merged_steps);
  CK_TRY(lay_out_weights(nn, device));
  CK_TRY(make_buffers(state, device));
  *result = nn;
  return CK_OK;
fail:
  ck_nn_destroy(nn);
  return status;
}

ck_status ck__nn_set_up(ck_nn *nn, int draw) {
  ck_status status = CK_OK;
  if (draw)
    CK_TRY(initialise_weights(nn));
  double started = ck__seconds();
  CK_TRY(nn->steps->setup(&nn->state));
  nn->build_s = ck__seconds() - started;
fail:
  return status;
}

/* A network on one device: a spread of one member. */
ck_status ck__nn_create(const ck_device *device, const ck_nn_config *config,
                        int double_precision, const ck__nn_tuning *tuning,
                        ck_nn **result) {
  CK__REQUIRE_IN("ck_nn_create", device);
  CK__REQUIRE_IN("ck_nn_create", config);
  if (!result)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_nn_create: nn is NULL");
  const ck_spread one = {.devices = device, .device_count = 1};
  return ck__nn_spread_create(&one, config, NULL, double_precision, tuning,
                              result);
}

ck_status ck_nn_create(const ck_device *device, const ck_nn_config *config,
                       ck_nn **nn) {
  return ck__nn_create(device, config, 0, NULL, nn);
}

static void free_class_names(ck_nn *nn) {
  for (size_t k = 0; nn->class_names && k < nn->class_count; ++k)
    free(nn->class_names[k]);
  free(nn->class_names);
  nn->class_names = NULL;
  nn->class_count = 0;
}

static ck_status preprocess(ck_nn *nn, const ck_dataset *train,
                            ck_normalization_kind kind) {
  ck_status status = CK_OK;
  ck_normalization fitted = {0};
  char **names = NULL;
  nn_state *state = &nn->state;
  /* Attached sets were normalised when attached; a new scaling would
   * leave them scaled by the old one and the model by the new. */
  for (int set = 0; set < 3; ++set)
    if (state->sets[set].rows)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "ck_nn_set_preprocessing: the %s data is already attached "
              "(by ck_nn_attach or ck_nn_predict), normalised by the "
              "current scaling; set the preprocessing before attaching data",
              ck__nn_set_names[set]);
  if (train->features != state->sizes[0])
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "ck_nn_config.sizes: the input layer has %u units, but the "
            "training data has %zu features",
            state->sizes[0], train->features);
  if (train->classes > state->sizes[state->layers])
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "ck_nn_config.sizes: the output layer has %u units, but the "
            "training data has %zu classes",
            state->sizes[state->layers], train->classes);
  CK_TRY(ck_dataset_normalization_fit(train, kind, &fitted));
  if (train->class_names) {
    names = calloc(train->classes, sizeof *names);
    if (!names)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory copying class names");
    for (size_t k = 0; k < train->classes; ++k) {
      names[k] = strdup(train->class_names[k]);
      if (!names[k])
        CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory copying class names");
    }
  }
  free_class_names(nn);
  nn->class_names = names;
  nn->class_count = train->classes;
  nn->class_type = CK_NN_CLASS_DATA;
  ck_dataset_normalization_free(&nn->normalization);
  nn->normalization = fitted;
  return CK_OK;
fail:
  /* The names not yet copied are NULL (calloc). */
  for (size_t k = 0; names && k < train->classes; ++k)
    free(names[k]);
  free(names);
  ck_dataset_normalization_free(&fitted);
  return status;
}

static ck_status preprocess_member(void *context, size_t i) {
  const nn_call *call = context;
  return preprocess(call->nn->members[i], call->data,
                    (ck_normalization_kind)call->which);
}

ck_status ck_nn_set_preprocessing(ck_nn *nn, const ck_dataset *train,
                                  ck_normalization_kind kind) {
  CK__REQUIRE(nn);
  CK__REQUIRE(train);
  nn_call call = {nn, train, (int)kind, NULL};
  return ck__nn_spread_each(nn, preprocess_member, &call);
}

ck_status ck__nn_finish_order(ck_nn *nn) {
  ck_status status = CK_OK;
  if (nn->order_written) {
    status = ck_event_wait(nn->order_written);
    ck_event_destroy(nn->order_written);
    nn->order_written = NULL;
  }
  return status;
}

static void release_set(ck_nn *nn, ck_nn_set which) {
  nn_data *set = &nn->state.sets[which];
  ck_buffer_destroy(set->features);
  ck_buffer_destroy(set->labels);
  set->features = set->labels = NULL;
  set->rows = 0;
  free(nn->host_labels[which]);
  nn->host_labels[which] = NULL;
}

static ck_status attach(ck_nn *nn, ck_nn_set which, const ck_dataset *data) {
  ck_status status = CK_OK;
  double *values = NULL;
  float *normalised = NULL;
  int32_t *labels = NULL;
  nn_state *state = &nn->state;
  const char *name = ck__nn_set_names[which];
  if (data->features != state->sizes[0])
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "the network's input layer has %u units, but the %s data has "
            "%zu feature%s a row",
            state->sizes[0], name, data->features,
            data->features == 1 ? "" : "s");
  if (data->rows < 1 || data->rows > UINT32_MAX / 2)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "the %s data has %zu rows", name,
            data->rows);
  for (size_t r = 0; r < data->rows; ++r)
    if (data->labels[r] < 0 ||
        (uint32_t)data->labels[r] >= state->sizes[state->layers])
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "row %zu of the %s data has class %d, outside the output "
              "layer's %u classes",
              r + 1, name, (int)data->labels[r], state->sizes[state->layers]);
  size_t count = data->rows * data->features;
  normalised = malloc(count * sizeof *normalised);
  values = malloc(count * sizeof *values);
  labels = malloc(data->rows * sizeof *labels);
  if (!normalised || !values || !labels)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory attaching the %s data",
            name);
  memcpy(normalised, data->values, count * sizeof *normalised);
  memcpy(labels, data->labels, data->rows * sizeof *labels);
  if (nn->normalization.kind != CK_NORMALIZE_NONE) {
    ck_dataset view = *data;
    view.values = normalised;
    CK_TRY(ck_dataset_normalize(&nn->normalization, &view));
  }
  for (size_t i = 0; i < count; ++i)
    values[i] = normalised[i];
  free(normalised);
  normalised = NULL;
  release_set(nn, which);
  nn_data *set = &state->sets[which];
  CK_TRY(ck__buffer_make_zeroed(state->queue, count, state->real_size,
                                "data set", &set->features));
  CK_TRY(ck__buffer_make_zeroed(state->queue, data->rows, sizeof(int32_t),
                                "labels", &set->labels));
  CK_TRY(ck__reals_write(state->queue, set->features, state->double_precision,
                         values, count));
  CK_TRY(ck_buffer_write(state->queue, set->labels, 0,
                         data->rows * sizeof(int32_t), labels, CK_BLOCKING,
                         NULL));
  set->rows = (uint32_t)data->rows;
  nn->host_labels[which] = labels;
  labels = NULL;
  CK_TRY(ensure_samples(state, set->rows));
  if (which == CK_NN_TRAIN) {
    CK_TRY(ck__nn_finish_order(nn));
    ck_buffer_destroy(state->index);
    state->index = NULL;
    CK_TRY(ck__buffer_make_zeroed(state->queue, set->rows, sizeof(uint32_t),
                                  "training order", &state->index));
  }
fail:
  if (status != CK_OK)
    release_set(nn, which);
  free(values);
  free(normalised);
  free(labels);
  return status;
}

static ck_status attach_member(void *context, size_t i) {
  const nn_call *call = context;
  return attach(call->nn->members[i], (ck_nn_set)call->which, call->data);
}

ck_status ck_nn_attach(ck_nn *nn, ck_nn_set which, const ck_dataset *data) {
  CK__REQUIRE(nn);
  CK__REQUIRE(data);
  if ((unsigned)which > CK_NN_TEST)
    return ck__fail(
        CK_ERROR_INVALID_ARGUMENT,
        "ck_nn_attach: which is %d, not CK_NN_TRAIN, CK_NN_VALIDATION "
        "or CK_NN_TEST",
        (int)which);
  nn_call call = {nn, data, (int)which, NULL};
  ck_status status = ck__nn_spread_each(nn, attach_member, &call);
  /* A set attached on some members alone is attached on none. */
  for (size_t i = 0; status != CK_OK && i < nn->local; ++i)
    release_set(nn->members[i], which);
  return status;
}

ck_status ck_nn_describe(const ck_nn *nn, ck_nn_config *config) {
  CK__REQUIRE(nn);
  CK__REQUIRE(config);
  *config = nn->config;
  return CK_OK;
}

ck_status ck_nn_get_class_name(const ck_nn *nn, size_t k, char *buffer,
                               size_t capacity) {
  CK__REQUIRE(nn);
  CK__REQUIRE(buffer);
  if (!capacity)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_nn_get_class_name: capacity is 0");
  buffer[0] = '\0';
  size_t classes = nn->state.sizes[nn->state.layers];
  if (k >= classes)
    return ck__fail(
        CK_ERROR_INVALID_ARGUMENT,
        "ck_nn_get_class_name: %zu is not a class; the output layer "
        "has %zu",
        k, classes);
  return ck__class_name_write(
      "ck_nn_get_class_name",
      nn->class_names && k < nn->class_count ? nn->class_names[k] : NULL, k,
      buffer, capacity);
}

ck_status ck_nn_set_class_type(ck_nn *nn, ck_nn_class_type type) {
  CK__REQUIRE(nn);
  if ((unsigned)type > CK_NN_CLASS_TEXT)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_nn_set_class_type: unknown type %d", (int)type);
  if (type != CK_NN_CLASS_INTEGER && !nn->class_names)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_nn_set_class_type: the network's classes have no "
                    "names: they are the integers 0 .. k - 1");
  if (nn->class_names)
    nn->class_type = type;
  return CK_OK;
}

ck_status ck_nn_get_class_type(const ck_nn *nn, ck_nn_class_type *type) {
  CK__REQUIRE(nn);
  CK__REQUIRE(type);
  *type = nn->class_names ? nn->class_type : CK_NN_CLASS_INTEGER;
  return CK_OK;
}

/* A weight layer's index, checked for the public function named. */
static ck_status check_layer(const ck_nn *nn, size_t layer,
                             const char *function) {
  if (layer < (size_t)nn->state.layers)
    return CK_OK;
  return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                  "%s: layer is %zu; the network's weight layers are 0 to %d",
                  function, layer, nn->state.layers - 1);
}

ck_status ck_nn_get_weights(ck_nn *nn, size_t layer, float *weights,
                            float *biases) {
  ck_status status = CK_OK;
  float *all = NULL;
  CK__REQUIRE(nn);
  CK_TRY(check_layer(nn, layer, __func__));
  int l = (int)layer + 1;
  size_t in = nn->state.sizes[l - 1], out = nn->state.sizes[l];
  all = malloc(out * (in + 1) * sizeof *all);
  if (!all)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory reading weights");
  CK_TRY(ck__nn_layer_read(nn, l, all));
  for (size_t o = 0; o < out; ++o) {
    if (weights)
      memcpy(weights + o * in, all + o * (in + 1), in * sizeof *all);
    if (biases)
      biases[o] = all[o * (in + 1) + in];
  }
fail:
  free(all);
  return status;
}

static ck_status write_member(void *context, size_t i) {
  const nn_call *call = context;
  return ck__nn_layer_write(call->nn->members[i], call->which, call->values);
}

ck_status ck_nn_set_weights(ck_nn *nn, size_t layer, const float *weights,
                            const float *biases) {
  ck_status status = CK_OK;
  float *all = NULL;
  CK__REQUIRE(nn);
  CK_TRY(check_layer(nn, layer, __func__));
  int l = (int)layer + 1;
  size_t in = nn->state.sizes[l - 1], out = nn->state.sizes[l];
  /* One NaN or infinity would spread through every later step. */
  for (size_t i = 0; weights && i < out * in; ++i)
    if (!isfinite(weights[i]))
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "ck_nn_set_weights: layer %zu's weight %zu (output %zu, input "
              "%zu) is %g; weights must be finite",
              layer, i, i / in, i % in, (double)weights[i]);
  for (size_t o = 0; biases && o < out; ++o)
    if (!isfinite(biases[o]))
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "ck_nn_set_weights: layer %zu's bias %zu is %g; biases must be "
              "finite",
              layer, o, (double)biases[o]);
  all = malloc(out * (in + 1) * sizeof *all);
  if (!all)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory writing weights");
  CK_TRY(ck__nn_layer_read(nn, l, all));
  for (size_t o = 0; o < out; ++o) {
    if (weights)
      memcpy(all + o * (in + 1), weights + o * in, in * sizeof *all);
    if (biases)
      all[o * (in + 1) + in] = biases[o];
  }
  nn_call call = {nn, NULL, l, all};
  CK_TRY(ck__nn_spread_each(nn, write_member, &call));
fail:
  free(all);
  return status;
}

ck_status ck_nn_save(ck_nn *nn, const char *path) {
  CK__REQUIRE(nn);
  CK__REQUIRE(path);
  return ck__nn_model_save(nn, path, CK_NN_FORMAT_AUTO);
}

ck_status ck_nn_save_as(ck_nn *nn, const char *path, ck_nn_format format) {
  CK__REQUIRE(nn);
  CK__REQUIRE(path);
  if ((unsigned)format > CK_NN_FORMAT_SAFETENSORS)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_nn_save_as: format is %d, not CK_NN_FORMAT_AUTO, "
                    "CK_NN_FORMAT_CKN or CK_NN_FORMAT_SAFETENSORS",
                    (int)format);
  return ck__nn_model_save(nn, path, format);
}

ck_status ck_nn_load(const ck_device *device, const char *path,
                     const ck_nn_config *config, ck_nn **nn) {
  CK__REQUIRE(device);
  CK__REQUIRE(path);
  CK__REQUIRE(nn);
  return ck__nn_model_load(device, path, config, NULL, nn);
}

ck_status ck_nn_destroy(ck_nn *nn) {
  if (!nn)
    return CK_OK;
  nn_state *state = &nn->state;
  /* The steps before the spread: a member's recorded step holds NCCL
   * sums, and NCCL ends a communicator only once no graph holds it. */
  if (nn->steps && state->queue)
    nn->steps->teardown(state);
  /* The members before the order: their uploads of it read nn->order. */
  ck__nn_spread_destroy(nn->spread);
  ck__nn_finish_order(nn);
  free(nn->order);
  for (int set = 0; set < 3; ++set)
    release_set(nn, (ck_nn_set)set);
  for (int l = 0; l <= CK_NN_MAX_LAYERS; ++l) {
    ck_buffer_destroy(state->weights[l]);
    ck_buffer_destroy(state->first[l]);
    ck_buffer_destroy(state->second[l]);
    ck_buffer_destroy(state->activations[l]);
    ck_buffer_destroy(state->deltas[l]);
    ck_buffer_destroy(state->gradients[l]);
    ck_buffer_destroy(nn->best_weights[l]);
  }
  ck_buffer_destroy(state->batch_labels);
  ck_buffer_destroy(state->index);
  ck_buffer_destroy(state->losses);
  ck_buffer_destroy(state->hits);
  ck_buffer_destroy(state->predictions);
  ck_buffer_destroy(state->loss_total);
  ck_buffer_destroy(state->hit_total);
  ck_queue_destroy(state->queue);
  free_class_names(nn);
  ck_dataset_normalization_free(&nn->normalization);
  free(nn);
  return CK_OK;
}
