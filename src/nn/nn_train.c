/*
 * nn_train.c - the MLP driver's training and evaluation: a training
 * step's calls (ck__nn_pass), the epoch loop (shuffle, batches,
 * learning-rate schedule, optimiser bookkeeping), evaluation, and
 * ck_nn_train's early stopping and best weights, and predictions. Every
 * phase runs on each of the network's members (ck__nn_spread_each): a
 * network on one device is a spread of one member.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ck_philox.h"
#include "framework/framework.h"
#include "nn/nn_internal.h"

/* The Philox streams of the shuffles, one an epoch. */
#define SHUFFLE_STREAM 0x4E4E100000000000ull

/* Rows a training step takes. */
static uint32_t batch_rows(const ck_nn *nn) {
  uint32_t rows = nn->state.sets[CK_NN_TRAIN].rows;
  return nn->config.batch && nn->config.batch < rows
             ? (uint32_t)nn->config.batch
             : rows;
}

/* A layer's gradient of 0: a spread member's that took no rows. */
static ck_status zero_gradient(nn_state *state, int layer) {
  uint32_t zero = 0;
  size_t size = 0;
  ck_status status = ck_buffer_get_size(state->gradients[layer], &size);
  if (status == CK_OK)
    status = ck_buffer_fill(state->queue, state->gradients[layer], &zero,
                            sizeof zero, 0, size, NULL);
  return status;
}

/* A step's forward calls: its rows, each layer, the output's deltas. */
static ck_status forward_calls(nn_state *state, const ck__nn_steps *steps,
                               const ck__nn_step *step) {
  ck_status status = CK_OK;
  CK_TRY(steps->gather(state, step->offset, step->count));
  for (int l = 1; l <= state->layers; ++l)
    CK_TRY(steps->forward(state, l, state->activations[l - 1], 0, step->count));
  CK_TRY(steps->output(state, state->batch_labels, 0, step->count, step->scale,
                       step->position));
fail:
  return status;
}

/* A step's calls, from status on: once one has failed, the rest are
 * skipped but a spread member's sums, which every other member's wait
 * for. */
static ck_status pass_from(nn_state *state, const ck__nn_steps *steps,
                           const ck__nn_step *step, ck_status status) {
  uint32_t count = step->count;
  const ck__nn_buckets *buckets = step->buckets;
  assert(count || !step->update || buckets);
  assert(!buckets || (steps->sum && steps->join && state->exchange));
  if (status == CK_OK && count)
    status = forward_calls(state, steps, step);
  if (step->update && !buckets) {
    for (int l = state->layers; status == CK_OK && l >= 1; --l) {
      /* The deltas below use this layer's weights before its update. */
      if (l >= 2)
        status = steps->backward(state, l, count);
      if (status == CK_OK)
        status = steps->update(state, l, count, step->update);
    }
    return status;
  }
  for (int l = state->layers, b = 0; l >= 1; --l) {
    /* The gradient before the deltas below, so that its bucket's sum
     * starts while they are computed. */
    if (status == CK_OK)
      status =
          count ? steps->gradient(state, l, count) : zero_gradient(state, l);
    if (buckets && l == buckets->low[b]) {
      ck_status summed =
          steps->sum(state, l, buckets->high[b++], step->average);
      status = status != CK_OK ? status : summed;
    }
    if (status == CK_OK && l >= 2 && count)
      status = steps->backward(state, l, count);
  }
  if (buckets) {
    ck_status joined = steps->join(state);
    status = status != CK_OK ? status : joined;
    for (int l = 1; status == CK_OK && l <= state->layers; ++l)
      status = steps->apply(state, l, step->update);
  }
  return status;
}

ck_status ck__nn_pass(nn_state *state, const ck__nn_steps *steps,
                      const ck__nn_step *step) {
  return pass_from(state, steps, step, CK_OK);
}

ck_status ck__nn_train_step(ck_nn *nn, const ck__nn_step *step) {
  ck_status status = CK_OK;
  nn_state *state = &nn->state;
  const ck__nn_steps *steps = nn->steps;
  int replayed = 0, began = 0;
  if (step->record_only && !steps->step_begin)
    return CK_OK;
  if (step->count)
    status = ck__nn_ensure_capacity(nn, step->count);
  if (status == CK_OK && steps->step_begin) {
    status = steps->step_begin(state, step, &replayed);
    began = status == CK_OK;
  }
  if (replayed)
    return CK_OK;
  status = pass_from(state, steps, step, status);
  if (began && steps->step_end) {
    int again = 0;
    status = steps->step_end(state, status, &again);
    if (again)
      status = ck__nn_pass(state, steps, step);
  }
  return status;
}

ck_status ck__nn_train_batch(ck_nn *nn, uint32_t offset, uint32_t count,
                             const ck__nn_update *update) {
  const ck__nn_step step = {.offset = offset,
                            .count = count,
                            .position = offset,
                            .scale = 1.0 / count,
                            .update = update};
  return ck__nn_train_step(nn, &step);
}

/* The learning rate of optimiser step `step` (0-based) of epoch `epoch`
 * (1-based), with `per_epoch` steps an epoch. */
static double learning_rate(const ck_nn *nn, unsigned epoch, uint64_t step,
                            uint64_t per_epoch) {
  const ck_nn_config *config = &nn->config;
  switch (config->schedule) {
  case CK_NN_STEP:
    return config->learning_rate *
           pow(config->step_gamma, (double)((epoch - 1) / config->step_every));
  case CK_NN_COSINE: {
    double total = (double)(nn->planned_epochs ? nn->planned_epochs : epoch) *
                   (double)per_epoch;
    double t = (double)step / total;
    if (t > 1)
      t = 1;
    return config->learning_rate * 0.5 *
           (1.0 + cos(3.14159265358979323846 * t));
  }
  default:
    return config->learning_rate;
  }
}

/* A member's epoch begins: Fisher-Yates over the training rows, from
 * Philox keyed by the seed and the epoch, so every backend (and every
 * member, each on its own copy) visits rows in the same order; the order
 * is queued to the device; the per-sample results fill from entry 0. */
static ck_status shuffle_member(void *context, size_t member) {
  ck_status status = CK_OK;
  const nn_call *call = context;
  ck_nn *nn = call->nn->members[member];
  unsigned epoch = (unsigned)call->which;
  nn_state *state = &nn->state;
  uint32_t rows = state->sets[CK_NN_TRAIN].rows;
  nn->position = 0;
  CK_TRY(ck__nn_finish_order(nn));
  if (nn->order_capacity < rows) {
    uint32_t *grown = realloc(nn->order, (size_t)rows * sizeof *grown);
    if (!grown)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory shuffling");
    nn->order = grown;
    nn->order_capacity = rows;
  }
  uint32_t *order = nn->order;
  for (uint32_t i = 0; i < rows; ++i)
    order[i] = i;
  ck_philox_counter block = {{0, 0, 0, 0}};
  for (uint32_t i = rows - 1; i > 0; --i) {
    uint32_t draw = (rows - 1 - i) % 4;
    if (draw == 0)
      block = ck_philox_block(nn->config.seed, SHUFFLE_STREAM + epoch,
                              (rows - 1 - i) / 4);
    uint32_t j = (uint32_t)(((uint64_t)ck_philox_word(block, draw) *
                             ((uint64_t)i + 1)) >>
                            32);
    uint32_t swap = order[i];
    order[i] = order[j];
    order[j] = swap;
  }
  /* Queued without waiting: the epoch's launches follow it in order. */
  CK_TRY(ck_buffer_write(state->queue, state->index, 0,
                         (size_t)rows * sizeof *order, order, CK_NONBLOCKING,
                         &nn->order_written));
fail:
  return status;
}

/* The forward pass over rows first .. first + count - 1 of an attached
 * set, in chunks; per-sample results in entries 0 .. count - 1. */
uint32_t ck__nn_chunk_rows(const ck_nn *nn, uint32_t count) {
  uint32_t chunk = nn->state.capacity > CK__NN_EVALUATION_ROWS
                       ? nn->state.capacity
                       : CK__NN_EVALUATION_ROWS;
  return chunk < count ? chunk : count;
}

ck_status ck__nn_forward_rows(ck_nn *nn, ck_nn_set which, uint32_t first,
                              uint32_t count) {
  ck_status status = CK_OK;
  nn_state *state = &nn->state;
  nn_data *set = &state->sets[which];
  uint32_t chunk = ck__nn_chunk_rows(nn, count);
  CK_TRY(ck__nn_ensure_capacity(nn, chunk));
  for (uint32_t done = 0; done < count; done += chunk) {
    uint32_t rows = count - done < chunk ? count - done : chunk;
    CK_TRY(nn->steps->forward(state, 1, set->features, first + done, rows));
    for (int l = 2; l <= state->layers; ++l)
      CK_TRY(nn->steps->forward(state, l, state->activations[l - 1], 0, rows));
    CK_TRY(
        nn->steps->output(state, set->labels, first + done, rows, 0.0, done));
  }
fail:
  return status;
}

ck_status ck_nn_evaluate(ck_nn *nn, ck_nn_set which, double *loss,
                         double *accuracy, uint64_t *confusion) {
  ck_status status = CK_OK;
  int32_t *predicted = NULL;
  CK__REQUIRE(nn);
  if ((unsigned)which > CK_NN_TEST)
    return ck__fail(
        CK_ERROR_INVALID_ARGUMENT,
        "ck_nn_evaluate: which is %d, not CK_NN_TRAIN, CK_NN_VALIDATION "
        "or CK_NN_TEST",
        (int)which);
  nn_state *state = &nn->state;
  nn_data *set = &state->sets[which];
  if (!set->rows)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "no %s data is attached",
            ck__nn_set_names[which]);
  if (confusion) {
    predicted = malloc((size_t)set->rows * sizeof *predicted);
    if (!predicted)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory reading predictions");
  }
  double sum = 0;
  uint64_t hits = 0;
  CK_TRY(ck__nn_spread_forward(nn, which, &sum, &hits, predicted));
  if (loss)
    *loss = sum / set->rows;
  if (accuracy)
    *accuracy = (double)hits / set->rows;
  if (confusion) {
    size_t classes = state->sizes[state->layers];
    memset(confusion, 0, classes * classes * sizeof *confusion);
    for (uint32_t r = 0; r < set->rows; ++r)
      ++confusion[(size_t)nn->host_labels[which][r] * classes +
                  (size_t)predicted[r]];
  }
fail:
  free(predicted);
  return status;
}

/* Once, before the first timed epoch: a batch's buffers and the backend's
 * first calls (cuBLAS's kernel choice and loading). Called by
 * ck_nn_train_epoch and, before it starts its clocks, by ck_nn_train, so
 * that neither an epoch's time nor a run's wall or kernel time holds it.
 * Without training data there is nothing to prepare (the epoch refuses). */
static ck_status prepare_member(void *context, size_t i) {
  ck_status status = CK_OK;
  const nn_call *call = context;
  ck_nn *member = call->nn->members[i];
  uint32_t rows = member->state.sets[CK_NN_TRAIN].rows;
  uint32_t batch = (uint32_t)call->which, start, count, last;
  /* Its part of a full batch, and of the epoch's last. */
  ck__nn_spread_cut(call->nn, i, batch, &start, &count);
  ck__nn_spread_cut(call->nn, i, rows % batch, &start, &last);
  CK_TRY(ck__nn_ensure_capacity(member, count ? count : 1));
  if (member->steps->prepare && count)
    CK_TRY(member->steps->prepare(&member->state, count));
  if (member->steps->prepare && last && last != count)
    CK_TRY(member->steps->prepare(&member->state, last));
fail:
  return status;
}

/* The optimiser's settings that hold for every step; the rate and the
 * corrections follow each step. */
static ck__nn_update constant_update(const ck_nn *nn) {
  const ck_nn_config *config = &nn->config;
  ck__nn_update update = {0};
  update.momentum = config->momentum;
  update.beta1 = config->beta1;
  update.beta2 = config->beta2;
  update.epsilon = config->epsilon;
  update.decay = config->weight_decay;
  return update;
}

static ck_status prepare_training(ck_nn *nn) {
  ck_status status = CK_OK;
  if (nn->prepared || !nn->state.sets[CK_NN_TRAIN].rows)
    return CK_OK;
  nn_call call = {nn, NULL, (int)batch_rows(nn), NULL};
  /* A spread's rows dealt, and how its gradients are summed. */
  CK_TRY(ck__nn_spread_prepare(nn, (uint32_t)call.which));
  CK_TRY(ck__nn_spread_each(nn, prepare_member, &call));
  /* A member's full step, its NCCL sums included, recorded before the
   * clocks start: NCCL's first recorded sums take the host about 10 ms
   * (bench/results/h100x2-2026-11-27-mlp). */
  ck__nn_update update = constant_update(nn);
  uint32_t rows = nn->state.sets[CK_NN_TRAIN].rows;
  CK_TRY(ck__nn_spread_record(
      nn, rows < (uint32_t)call.which ? rows : (uint32_t)call.which, &update));
  nn->prepared = 1;
fail:
  return status;
}

ck_status ck_nn_train_epoch(ck_nn *nn, ck_nn_epoch *epoch) {
  ck_status status = CK_OK;
  CK__REQUIRE(nn);
  nn_state *state = &nn->state;
  uint32_t rows = state->sets[CK_NN_TRAIN].rows;
  if (!rows)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "no training data is attached");
  uint32_t batch = batch_rows(nn);
  CK_TRY(prepare_training(nn));
  double started = ck__seconds();
  unsigned number = nn->epoch + 1;
  nn_call call = {nn, NULL, (int)number, NULL};
  CK_TRY(ck__nn_spread_each(nn, shuffle_member, &call));
  uint64_t per_epoch = (rows + batch - 1) / batch;
  const ck_nn_config *config = &nn->config;
  ck__nn_update update = constant_update(nn);
  for (uint32_t offset = 0; offset < rows; offset += batch) {
    uint32_t count = rows - offset < batch ? rows - offset : batch;
    update.rate = learning_rate(
        nn, number, nn->epoch * per_epoch + offset / batch, per_epoch);
    uint64_t t = ++nn->steps_taken;
    update.correction1 = 1.0 - pow(config->beta1, (double)t);
    update.correction2 = 1.0 - pow(config->beta2, (double)t);
    CK_TRY(ck__nn_spread_batch(nn, offset, count, &update));
  }
  double sum = 0;
  uint64_t hits = 0;
  CK_TRY(ck__nn_spread_reduce(nn, &sum, &hits));
  nn->epoch = number;
  double trained = ck__seconds();
  ck_nn_epoch result = {0};
  result.epoch = number;
  result.train_loss = sum / rows;
  result.train_accuracy = (double)hits / rows;
  result.learning_rate = update.rate;
  result.validation_loss = result.validation_accuracy = NAN;
  result.test_loss = result.test_accuracy = NAN;
  if (state->sets[CK_NN_VALIDATION].rows)
    CK_TRY(ck_nn_evaluate(nn, CK_NN_VALIDATION, &result.validation_loss,
                          &result.validation_accuracy, NULL));
  if (state->sets[CK_NN_TEST].rows)
    CK_TRY(ck_nn_evaluate(nn, CK_NN_TEST, &result.test_loss,
                          &result.test_accuracy, NULL));
  result.seconds = ck__seconds() - started;
  result.samples_per_s = trained > started ? rows / (trained - started) : 0.0;
  if (!isfinite(result.train_loss))
    CK_FAIL(CK_ERROR_MISMATCH,
            "the training loss became %g in epoch %u: lower the learning "
            "rate",
            result.train_loss, number);
  if (epoch)
    *epoch = result;
fail:
  return status;
}

/* The best epoch's weights kept (which 0), or restored, on a member. */
static ck_status keep_member(void *context, size_t i) {
  ck_status status = CK_OK;
  const nn_call *call = context;
  ck_nn *nn = call->nn->members[i];
  int restore = call->which;
  nn_state *state = &nn->state;
  for (int l = 1; l <= state->layers; ++l) {
    size_t bytes = (size_t)state->sizes[l] * state->pitch[l] * state->real_size;
    if (!nn->best_weights[l])
      CK_TRY(ck__buffer_make_zeroed(
          state->queue, bytes / state->real_size, state->real_size,
          "the best epoch's weights", &nn->best_weights[l]));
    if (restore)
      CK_TRY(ck_buffer_copy(state->queue, state->weights[l], 0,
                            nn->best_weights[l], 0, bytes, NULL));
    else
      CK_TRY(ck_buffer_copy(state->queue, nn->best_weights[l], 0,
                            state->weights[l], 0, bytes, NULL));
  }
fail:
  return status;
}

static ck_status keep_weights(ck_nn *nn, int restore) {
  nn_call call = {nn, NULL, restore, NULL};
  return ck__nn_spread_each(nn, keep_member, &call);
}

static ck_status finish_member(void *context, size_t i) {
  const nn_call *call = context;
  return ck_queue_finish(call->nn->members[i]->state.queue);
}

/* Every member's queue finished. */
static ck_status finish_members(ck_nn *nn) {
  nn_call call = {nn, NULL, 0, NULL};
  return ck__nn_spread_each(nn, finish_member, &call);
}

/* The kernel time of this process's members, summed. */
static double kernel_seconds(ck_nn *nn) {
  double total = 0;
  for (size_t i = 0; i < nn->local; ++i) {
    double seconds = 0;
    if (ck_queue_get_kernel_seconds(nn->members[i]->state.queue, &seconds) ==
        CK_OK)
      total += seconds;
  }
  return total;
}

/* ck_nn_train's run: an epoch a step, and after each the report's
 * bookkeeping, the caller's callback and the patience. */
typedef struct training_run {
  ck_nn *nn;
  const ck_nn_training *training;
  ck_nn_report *report;
  int validating;
  ck_nn_epoch epoch; /* the last one trained */
  uint64_t samples;
  double training_s;
  unsigned since_best; /* epochs since the watched loss improved */
  double lowest;       /* the watched loss's lowest so far */
  int cancelled;       /* the callback asked to stop */
} training_run;

static ck_status train_step(void *self, uint64_t steps) {
  training_run *run = self;
  ck_status status = CK_OK;
  for (uint64_t e = 0; e < steps; ++e)
    CK_TRY(ck_nn_train_epoch(run->nn, &run->epoch));
fail:
  return status;
}

static ck_status train_read(void *self, uint64_t steps,
                            ck__loop_reading *reading) {
  training_run *run = self;
  ck_status status = CK_OK;
  ck_nn_report *report = run->report;
  const ck_nn_training *training = run->training;
  const ck_nn_epoch *epoch = &run->epoch;
  uint32_t rows = run->nn->state.sets[CK_NN_TRAIN].rows;
  report->epochs = (unsigned)steps;
  run->samples += rows;
  run->training_s += epoch->samples_per_s > 0 ? rows / epoch->samples_per_s : 0;
  if (!isnan(epoch->test_accuracy) &&
      !(epoch->test_accuracy <= report->best_test_accuracy))
    report->best_test_accuracy = epoch->test_accuracy;
  /* The watched loss improves by more than tol, or the count of epochs
   * without an improvement grows; the lowest is kept either way. */
  double watched = run->validating ? epoch->validation_loss : epoch->train_loss;
  if (watched < run->lowest - training->tol)
    run->since_best = 0;
  else
    ++run->since_best;
  if (!(watched >= run->lowest))
    run->lowest = watched;
  if (run->validating) {
    if (!(epoch->validation_loss >= report->best_validation_loss)) {
      report->best_validation_loss = epoch->validation_loss;
      report->best_epoch = epoch->epoch;
      CK_TRY(keep_weights(run->nn, 0));
    }
  } else {
    report->best_epoch = epoch->epoch;
  }
  if (training->on_epoch && training->on_epoch(training->user, epoch)) {
    run->cancelled = 1;
    return ck__fail(CK_ERROR_CANCELLED, "training stopped after epoch %u",
                    epoch->epoch);
  }
  if (training->patience && run->since_best >= training->patience)
    reading->stop = CK_STOP_EARLY;
fail:
  return status;
}

ck_status ck_nn_train(ck_nn *nn, const ck_nn_training *training,
                      ck_nn_report *report) {
  ck_status status = CK_OK;
  CK__REQUIRE(nn);
  CK__REQUIRE(training);
  CK__REQUIRE(report);
  if (training->epochs < 1)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_nn_training.epochs: at least 1");
  if (!(training->tol >= 0) || isinf(training->tol))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_nn_training.tol: %g; give a finite tolerance >= 0",
                    training->tol);
  memset(report, 0, sizeof *report);
  report->best_test_accuracy = report->final_test_accuracy = NAN;
  report->final_test_loss = report->best_validation_loss = NAN;
  nn_state *state = &nn->state;
  int validating = state->sets[CK_NN_VALIDATION].rows > 0;
  nn->planned_epochs = nn->epoch + training->epochs;
  /* The one-time warm-up first, finished, so that wall_s and kernel_s
   * both start after it. */
  CK_TRY(prepare_training(nn));
  CK_TRY(finish_members(nn));
  double started = ck__seconds();
  double kernel_before = kernel_seconds(nn);
  training_run run = {.nn = nn,
                      .training = training,
                      .report = report,
                      .validating = validating,
                      .lowest = INFINITY};
  const ck__loop_rules rules = {.shape = CK__LOOP_STEPWISE,
                                .max_steps = training->epochs,
                                .check_every = 1};
  const ck__loop_driver driver = {&run, train_step, train_read, NULL};
  ck__loop_outcome outcome;
  /* A callback's stop still restores the best weights and fills the
   * report; the run then returns CK_ERROR_CANCELLED. */
  if (nn->spread)
    ck__nn_spread_clocks_start(nn);
  status = ck__loop_run(&rules, &driver, &outcome);
  if (status != CK_OK && !run.cancelled)
    goto fail;
  report->stopped_by = run.cancelled ? CK_STOP_CANCELLED : outcome.stopped_by;
  if (validating && report->best_epoch != nn->epoch) {
    ck_status restored = keep_weights(nn, 1);
    if (status == CK_OK)
      CK_TRY(restored);
  }
  if (state->sets[CK_NN_TEST].rows) {
    ck_status evaluated =
        ck_nn_evaluate(nn, CK_NN_TEST, &report->final_test_loss,
                       &report->final_test_accuracy, NULL);
    if (status == CK_OK)
      CK_TRY(evaluated);
  }
  report->wall_s = ck__seconds() - started;
  report->samples_per_s = run.training_s > 0 ? run.samples / run.training_s : 0;
  double kernel_after = 0;
  if (finish_members(nn) == CK_OK)
    kernel_after = kernel_seconds(nn);
  report->kernel_s = kernel_after - kernel_before;
  report->build_s = nn->build_s;
fail:
  return status;
}

/* ---- predictions --------------------------------------------------------- */

/* The rows of data (not empty) attached as the test set, to predict
 * from: labels play no part, and the rows are scored against class 0. */
static ck_status attach_rows(ck_nn *nn, const ck_dataset *data) {
  ck_dataset unlabelled = *data;
  unlabelled.labels = calloc(data->rows, sizeof(int32_t));
  if (!unlabelled.labels)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory predicting");
  ck_status status = ck_nn_attach(nn, CK_NN_TEST, &unlabelled);
  free(unlabelled.labels);
  return status;
}

ck_status ck_nn_predict(ck_nn *nn, const ck_dataset *data, int32_t *classes) {
  ck_status status = CK_OK;
  CK__REQUIRE(nn);
  CK__REQUIRE(data);
  CK__REQUIRE(classes);
  if (data->rows == 0)
    return CK_OK;
  CK_TRY(attach_rows(nn, data));
  CK_TRY(ck__nn_spread_forward(nn, CK_NN_TEST, NULL, NULL, classes));
fail:
  return status;
}

/* Row k's probabilities from the output layer's values of `width` reals
 * (float or double by real_size): softmax for cross-entropy, else the
 * sigmoid outputs over their sum. */
static void row_probabilities(const nn_state *state, const void *values,
                              size_t width, double *row) {
  for (size_t k = 0; k < width; ++k)
    row[k] = state->real_size == sizeof(double)
                 ? ((const double *)values)[k]
                 : (double)((const float *)values)[k];
  double top = row[0], sum = 0;
  for (size_t k = 1; k < width; ++k)
    top = row[k] > top ? row[k] : top;
  for (size_t k = 0; k < width; ++k) {
    if (state->loss == CK_NN_CROSS_ENTROPY)
      row[k] = exp(row[k] - top);
    sum += row[k];
  }
  for (size_t k = 0; k < width; ++k)
    row[k] /= sum;
}

ck_status ck_nn_predict_proba(ck_nn *nn, const ck_dataset *data,
                              double *probabilities) {
  ck_status status = CK_OK;
  unsigned char *values = NULL;
  CK__REQUIRE(nn);
  CK__REQUIRE(data);
  CK__REQUIRE(probabilities);
  if (data->rows == 0)
    return CK_OK;
  CK_TRY(attach_rows(nn, data));
  /* Every member holds every set: a spread network's first member, the
   * network itself, computes them all. */
  nn_state *state = &nn->state;
  size_t width = state->sizes[state->layers];
  size_t row_bytes = width * state->real_size;
  uint32_t rows = state->sets[CK_NN_TEST].rows;
  values = malloc((size_t)CK__NN_EVALUATION_ROWS * row_bytes);
  if (!values)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory predicting");
  for (uint32_t done = 0; done < rows; done += CK__NN_EVALUATION_ROWS) {
    uint32_t count = rows - done < CK__NN_EVALUATION_ROWS
                         ? rows - done
                         : CK__NN_EVALUATION_ROWS;
    /* One chunk: the output layer then holds these rows' values. */
    CK_TRY(ck__nn_forward_rows(nn, CK_NN_TEST, done, count));
    CK_TRY(ck_buffer_read(state->queue, state->activations[state->layers], 0,
                          count * row_bytes, values, CK_BLOCKING, NULL));
    for (uint32_t r = 0; r < count; ++r)
      row_probabilities(state, values + r * row_bytes, width,
                        probabilities + (size_t)(done + r) * width);
  }
fail:
  free(values);
  return status;
}
