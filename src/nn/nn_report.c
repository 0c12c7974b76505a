/*
 * nn_report.c - what an nn run reports: a line and a trace row an
 * epoch, the result's figures, the chart of --plot, and the benchmark's
 * sizes and cost model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/framework.h"
#include "framework/plot.h"
#include "nn/nn_internal.h"

static void append_percent(char *line, size_t capacity, const char *name,
                           double value) {
  size_t used = strlen(line);
  if (!isnan(value))
    snprintf(line + used, capacity - used, "  %s %6.2f%%", name, 100 * value);
}

int ck__nn_on_epoch(void *user, const ck_nn_epoch *epoch) {
  ck__nn_epoch_log *log = user;
  char line[400];
  snprintf(line, sizeof line, "epoch %*u/%u  loss %.4f", 3, epoch->epoch,
           log->epochs, epoch->train_loss);
  append_percent(line, sizeof line, "train", epoch->train_accuracy);
  append_percent(line, sizeof line, "val", epoch->validation_accuracy);
  append_percent(line, sizeof line, "test", epoch->test_accuracy);
  size_t used = strlen(line);
  snprintf(line + used, sizeof line - used, "  lr %.3g  %.0f samples/s  %.2f s",
           epoch->learning_rate, epoch->samples_per_s, epoch->seconds);
  ck__nn_log_line(log->options, line);
  if (log->used + 512 > log->capacity) {
    size_t capacity = log->capacity ? 2 * log->capacity : 8192;
    char *grown = realloc(log->trace, capacity);
    if (!grown) {
      log->failed = 1;
      return 0;
    }
    log->trace = grown;
    log->capacity = capacity;
  }
  if (!log->used)
    log->used += (size_t)snprintf(
        log->trace, log->capacity,
        "epoch,seconds,train_loss,train_accuracy,validation_loss,"
        "validation_accuracy,test_loss,test_accuracy,learning_rate,"
        "samples_per_s\n");
  log->used += (size_t)snprintf(
      log->trace + log->used, log->capacity - log->used,
      "%u,%.6f,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g\n", epoch->epoch,
      epoch->seconds, epoch->train_loss, epoch->train_accuracy,
      epoch->validation_loss, epoch->validation_accuracy, epoch->test_loss,
      epoch->test_accuracy, epoch->learning_rate, epoch->samples_per_s);
  log->seconds += epoch->seconds;
  const double row[CK__NN_ROW_WIDTH] = {
      epoch->epoch,          log->seconds,           epoch->train_loss,
      epoch->train_accuracy, epoch->validation_loss, epoch->validation_accuracy,
      epoch->test_loss,      epoch->test_accuracy};
  if (log->rows && ck__history_push(log->rows, row) != CK_OK) {
    log->failed = 1;
    return 0;
  }
  const ck_run_options *options = log->options;
  if (options && options->progress) {
    ck_progress progress = {.fraction = (double)epoch->epoch / log->epochs,
                            .steps = epoch->epoch,
                            .step_name = "epochs",
                            .best = epoch->train_loss,
                            .best_name = "train_loss"};
    return options->progress(options->progress_user, &progress);
  }
  return 0;
}

ck_status ck__nn_report_best(ck__nn_session *s, ck_result *result) {
  ck_status status = CK_OK;
  const ck_nn_report *report = &s->report;
  if (!isnan(report->final_test_accuracy)) {
    result->best = report->final_test_accuracy;
    snprintf(result->best_name, sizeof result->best_name, "test_accuracy");
  } else if (!s->training && s->job.predict) {
    /* Predictions alone: their score where the rows had labels, else
     * how many rows were predicted (no training accuracy exists). */
    const ck_dataset *predict = &s->predict;
    result->best =
        predict->classes ? s->predict_accuracy : (double)predict->rows;
    snprintf(result->best_name, sizeof result->best_name, "%s",
             predict->classes ? "predict_accuracy" : "predicted_rows");
  } else {
    double loss = NAN, accuracy = NAN;
    if (s->training)
      CK_TRY(ck_nn_evaluate(s->nn, CK_NN_TRAIN, &loss, &accuracy, NULL));
    result->best = accuracy;
    snprintf(result->best_name, sizeof result->best_name, "train_accuracy");
  }
fail:
  return status;
}

ck_status ck__nn_report_run(const ck__nn_session *s, ck_result *result) {
  ck_status status = CK_OK;
  const ck_nn_config *config = &s->job.config;
  const ck_nn_report *report = &s->report;
  int training = s->training;
  /* TF32 results are marked wherever the rate is shown. */
  snprintf(result->throughput_unit, sizeof result->throughput_unit, "%s",
           config->math == CK_NN_TF32 ? "samples/s TF32" : "samples/s");
  ck__result_flag(result, "tf32", config->math == CK_NN_TF32);
  size_t parameters = 0;
  for (size_t l = 1; l < config->layer_count; ++l)
    parameters += config->sizes[l] * (config->sizes[l - 1] + 1);
  ck__result_metric(result, "parameters", (double)parameters, "");
  char layers[CK_NN_MAX_LAYERS * 24 + 24] = "";
  for (size_t l = 0, used = 0; l < config->layer_count; ++l)
    used += (size_t)snprintf(layers + used, sizeof layers - used, "%s%zu",
                             l ? "," : "", config->sizes[l]);
  CK_TRY(ck__result_option(result, "layers", layers));
  if (!training)
    CK_TRY(ck__result_option(result, "train", NULL));
  /* A run that only loads and predicts has no training to report, nor
   * sets' rows; one that evaluates a loaded model has its test rows. */
  if (training)
    ck__result_metric(result, "train_rows", (double)s->train.rows, "");
  if (training || s->test.rows)
    ck__result_metric(result, "test_rows", (double)s->test.rows, "");
  if (training) {
    ck__result_metric(result, "validation_rows", (double)s->validation.rows,
                      "");
    ck__result_metric(result, "epochs", report->epochs, "");
    ck__result_metric(result, "best_epoch", report->best_epoch, "");
    ck__result_flag(result, "stopped_early",
                    report->stopped_by == CK_STOP_EARLY);
    ck__result_metric(result, "train_s", report->wall_s, "s");
    if (!isnan(report->best_validation_loss))
      ck__result_metric(result, "best_validation_loss",
                        report->best_validation_loss, "");
  }
  if (!isnan(report->final_test_accuracy)) {
    ck__result_metric(result, "test_accuracy", report->final_test_accuracy, "");
    ck__result_metric(result, "best_test_accuracy", report->best_test_accuracy,
                      "");
    ck__result_metric(result, "test_loss", report->final_test_loss, "");
  }
fail:
  return status;
}

ck_status ck__nn_write_plot(const ck__nn_session *s, const ck_result *result) {
  const ck__history *kept = s->log.rows;
  size_t count = kept->count, every = ck__history_show_every(count), used = 0;
  double *rows = malloc((count ? count : 1) * CK__NN_ROW_WIDTH * sizeof *rows);
  if (!rows)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %s",
                    s->job.plot);
  for (size_t i = 0; i < count; ++i) {
    if (i % every && i + 1 != count)
      continue;
    double *row = rows + used++ * CK__NN_ROW_WIDTH;
    memcpy(row, kept->entries[0] + i * CK__NN_ROW_WIDTH,
           CK__NN_ROW_WIDTH * sizeof *row);
    for (size_t c = CK__NN_ROW_TRAIN_ACCURACY; c < CK__NN_ROW_WIDTH; c += 2)
      row[c] *= 100;
  }
  static const char *const sets[] = {"train", "validation", "test"};
  const ck_nn_config *config = &s->job.config;
  char loss[64];
  snprintf(loss, sizeof loss, "loss (%s)",
           ck__field_word_of(&ck__nn_fields[CK__NN_LOSS], config->loss));
  ck__plot_series series[6];
  size_t series_count = 0;
  for (int accuracy = 0; accuracy < 2; ++accuracy)
    for (size_t set = 0; set < 3; ++set) {
      const double *y =
          rows + CK__NN_ROW_TRAIN_LOSS + 2 * set + (size_t)accuracy;
      int present = 0;
      for (size_t i = 0; i < used; ++i)
        present |= !isnan(y[i * CK__NN_ROW_WIDTH]);
      if (present)
        series[series_count++] =
            (ck__plot_series){.name = sets[set],
                              .axis = accuracy ? "accuracy (%)" : loss,
                              .x = rows + CK__NN_ROW_EPOCH,
                              .y = y,
                              .count = used,
                              .stride = CK__NN_ROW_WIDTH};
    }
  char what[300], layers[CK_NN_MAX_LAYERS * 24 + 24] = "", details[300];
  for (size_t l = 0, at = 0; l < config->layer_count; ++l)
    at += (size_t)snprintf(layers + at, sizeof layers - at, "%s%zu",
                           l ? "," : "", config->sizes[l]);
  snprintf(what, sizeof what, "%s, layers %s", s->job.train, layers);
  char batch[32] = "all";
  if (config->batch)
    snprintf(batch, sizeof batch, "%zu", config->batch);
  snprintf(
      details, sizeof details, "%s · lr %g · batch %s · %u epochs in %.3g s",
      ck__field_word_of(&ck__nn_fields[CK__NN_OPTIMIZER], config->optimizer),
      config->learning_rate, batch, s->report.epochs, s->report.wall_s);
  const ck__plot plot = {.result = result,
                         .what = what,
                         .details = details,
                         .x_label = "epoch",
                         .top_label = "time (s)",
                         .top_x = rows + CK__NN_ROW_EPOCH,
                         .top_value = rows + CK__NN_ROW_SECONDS,
                         .top_count = used,
                         .top_stride = CK__NN_ROW_WIDTH,
                         .series = series,
                         .series_count = series_count};
  ck_status status = ck__plot_write(s->job.plot, &plot);
  free(rows);
  return status;
}

/* ---- benchmark sizes and the cost model (docs/nn.md, "Cost model") ----- */

/* Data made on the spot, every epoch trained (--patience 0). */
#define NN_RUNG(train, layers, batch, epochs)                                  \
  {                                                                            \
    {"patience", "0"}, {"train", train}, {"layers", layers}, {"batch", batch}, \
        {"epochs", epochs}, {                                                  \
      NULL, NULL                                                               \
    }                                                                          \
  }
static const ck_param nn_rungs[CK_BENCH_RUNGS][6] = {
    NN_RUNG("blobs:2048:16:4", "16,64,64,4", "64", "2"),
    NN_RUNG("blobs:4096:32:8", "32,128,128,8", "128", "2"),
    NN_RUNG("blobs:8192:64:10", "64,256,256,10", "256", "2"),
    NN_RUNG("blobs:16384:128:10", "128,512,512,10", "256", "2"),
    NN_RUNG("blobs:32768:256:10", "256,1024,1024,10", "512", "2"),
    NN_RUNG("blobs:65536:784:10", "784,1024,1024,10", "1024", "2"),
    NN_RUNG("blobs:65536:784:10", "784,1024,1024,10", "1024", "8")};
static const char *const nn_size_options[] = {
    "train", "test",   "train-labels", "test-labels", "split", "val",
    "load",  "layers", "batch",        "epochs",      NULL};

/* The widths of a --layers list ("784,1024,10") into sizes; their count,
 * or 0 for none or one not read. */
static size_t layer_widths(const char *list, double *sizes) {
  size_t count = 0;
  for (const char *at = list; at && *at && count <= CK_NN_MAX_LAYERS;) {
    const char *end = strchr(at, ',');
    if (!end)
      end = at + strlen(at);
    if (!ck__parse_decimal(at, end, &sizes[count++]))
      return 0;
    at = *end ? end + 1 : end;
  }
  return count >= 2 && count <= CK_NN_MAX_LAYERS + 1 ? count : 0;
}

/* An estimate: the training data and the test data made beside it (a
 * quarter as many rows) on the device, the weights with their gradients
 * and Adam's two moments, and a batch's activations and deltas. Data in
 * files is not read here. */
static void nn_footprint(const ck_param *params, size_t count,
                         const ck_device *device, double *total,
                         double *largest) {
  (void)device;
  const char *train = ck__param_find(params, count, "train");
  double rows = 0, features = 0;
  const char *first =
      train && strncmp(train, "blobs:", 6) == 0 ? train + 6 : NULL;
  const char *second = first ? strchr(first, ':') : NULL;
  const char *third = second ? strchr(second + 1, ':') : NULL;
  if (!third || !ck__parse_decimal(first, second, &rows) ||
      !ck__parse_decimal(second + 1, third, &features))
    rows = features = 0;
  double sizes[CK_NN_MAX_LAYERS + 1];
  size_t layers = layer_widths(ck__param_find(params, count, "layers"), sizes);
  double weights = 0, units = 0;
  for (size_t l = 1; l < layers; ++l) {
    weights += (sizes[l - 1] + 1) * sizes[l];
    units += sizes[l - 1] + sizes[l];
  }
  double batch = ck__param_number(params, count, "batch",
                                  ck__nn_fields[CK__NN_BATCH].value);
  *largest = rows * features * sizeof(float);
  *total = 1.25 * rows * (features + 1) * sizeof(float) +
           4 * weights * sizeof(float) + 2 * batch * units * sizeof(float);
}

/* A run's size: its layers, batch and epochs, as "784-1024-10/1024/8". */
static void nn_describe(const ck_result *result, char *text, size_t capacity) {
  const char *layers = ck__result_option_text(result, "layers");
  const char *batch = ck__result_option_text(result, "batch");
  double epochs = NAN;
  ck__result_value(result, "epochs", &epochs);
  snprintf(text, capacity, "%s/%s/%.0f", layers ? layers : "?",
           batch ? batch : "?", epochs);
  for (char *at = text; *at && *at != '/'; ++at)
    if (*at == ',')
      *at = '-';
}

/* A unit is one training sample. Its forward pass, the backward pass of
 * its deltas and its share of the weight gradients are each a
 * multiply-add a weight (NN_PASS_FLOPS in all); each step's Adam update
 * takes NN_ADAM_FLOPS a weight, shared by the batch. A sample reads its
 * inputs, writes and reads back each layer's activations and deltas
 * (NN_UNIT_REALS a unit); a step reads the weights twice, writes their
 * gradients and reads and writes Adam's state (NN_STEP_REALS a weight).
 * Products that a GEMM's tiles read again from cache are not counted. */
enum {
  NN_PASS_FLOPS = 6,
  NN_ADAM_FLOPS = 10,
  NN_UNIT_REALS = 4,
  NN_STEP_REALS = 10
};

static ck_status nn_cost(const ck_result *result, ck_cost *cost) {
  static const char *const names[] = {"train_rows", "epochs", "parameters",
                                      NULL};
  double values[3];
  ck_status status = ck__result_values(result, names, values);
  if (status != CK_OK)
    return status;
  double sizes[CK_NN_MAX_LAYERS + 1];
  size_t layers = layer_widths(ck__result_option_text(result, "layers"), sizes);
  if (!layers)
    return ck__fail(CK_ERROR_NOT_FOUND, "the nn result has no layers");
  double products = 0, units = 0;
  for (size_t l = 1; l < layers; ++l) {
    products += sizes[l - 1] * sizes[l];
    units += sizes[l];
  }
  const char *batch_text = ck__result_option_text(result, "batch");
  double batch = batch_text && strcmp(batch_text, "all") != 0
                     ? strtod(batch_text, NULL)
                     : values[0];
  if (!(batch >= 1))
    batch = 1;
  double weights = values[2], real = sizeof(float);
  cost->units = values[0] * values[1];
  cost->flops = cost->units *
                (NN_PASS_FLOPS * products + NN_ADAM_FLOPS * weights / batch);
  cost->bytes =
      cost->units * real *
      (sizes[0] + NN_UNIT_REALS * units + NN_STEP_REALS * weights / batch);
  return CK_OK;
}

const ck__bench ck__nn_bench = {.format = "layers/batch/epochs",
                                .rungs = {nn_rungs[0], nn_rungs[1], nn_rungs[2],
                                          nn_rungs[3], nn_rungs[4], nn_rungs[5],
                                          nn_rungs[6]},
                                .size_options = nn_size_options,
                                .footprint = nn_footprint,
                                .describe = nn_describe,
                                .cost = nn_cost};
