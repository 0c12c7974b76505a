/*
 * nn_run.c - a run of the nn workload: its data read or made (spirals,
 * blobs) and split, its network loaded or built, trained and evaluated,
 * and the classes of --predict's rows; the files --save, --trace and
 * --out, each written atomically, and the confusion matrix through the
 * run's log callback.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ck_philox.h"
#include "framework/framework.h"
#include "nn/nn_internal.h"

/* The most classes whose test confusion matrix is counted and logged. */
#define CONFUSION_MAX_CLASSES 1024

void ck__nn_log_line(const ck_run_options *options, const char *line) {
  if (options && options->log)
    options->log(options->log_user, line);
}

/* A seeded random split for an option (--split, or --val's hold_out); a
 * fraction that leaves one side empty is named by the option, not by the
 * dataset call. */
static ck_status split_fraction(const ck_dataset *whole, double fraction,
                                uint64_t seed, const char *option,
                                const char *path, ck_dataset *head,
                                ck_dataset *tail, int hold_out) {
  ck_status status =
      hold_out ? ck_nn_hold_out(whole, fraction, seed, head, tail)
               : ck_dataset_split_random(whole, fraction, seed, head, tail);
  if (status == CK_ERROR_INVALID_ARGUMENT)
    return ck__fail(status,
                    "--%s %g of the %zu rows of %s leaves no row on one side",
                    option, fraction, whole->rows, path);
  return status;
}

/* "spirals:N": N points of three interleaved spirals in the plane (a
 * nonlinear problem with 3 classes), from Philox with the run's seed. */
static ck_status spirals(const char *spec, uint64_t seed, uint64_t stream,
                         ck_dataset *data) {
  ck_status status = CK_OK;
  long long rows = 0;
  if (ck__parse_whole(spec + 8, spec + strlen(spec), 3, 10000000, &rows) != 1)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "--train: '%s': spirals:N needs 3 <= N <= 10000000", spec);
  memset(data, 0, sizeof *data);
  data->rows = (size_t)rows;
  data->features = 2;
  data->classes = 3;
  data->values = malloc((size_t)rows * 2 * sizeof(float));
  data->labels = malloc((size_t)rows * sizeof(int32_t));
  if (!data->values || !data->labels)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory for %s", spec);
  for (long long r = 0; r < rows; ++r) {
    ck_philox_counter block = ck_philox_block(seed, stream, (uint64_t)r);
    int label = (int)(r % 3);
    double t = ck_uniform_float(block.v[0]);
    double angle = 4.0 * t + 2.0 * 3.14159265358979323846 * label / 3.0;
    double noise = 0.2 * (ck_uniform_float(block.v[1]) - 0.5);
    double noise2 = 0.2 * (ck_uniform_float(block.v[2]) - 0.5);
    data->values[2 * r] = (float)(t * cos(angle) + noise);
    data->values[2 * r + 1] = (float)(t * sin(angle) + noise2);
    data->labels[r] = label;
  }
  return CK_OK;

fail:
  ck_dataset_free(data);
  return status;
}

/* The most values (rows x features) blobs:N:F:C makes: 4 GiB of floats. */
#define BLOBS_MAX_VALUES (1ll << 30)
/* The stream of the clusters' centres, apart from the rows' streams (1
 * for training, 2 for test data) so that both sets share the centres. */
#define BLOBS_CENTRE_STREAM 3

/* "blobs:N:F:C": N points in F dimensions of C Gaussian clusters, one a
 * class, the classes in turn. Each centre is uniform in [-1, 1]^F, each
 * point its centre plus standard normal noise, from Philox with the run's
 * seed: a classification data set of any shape, for benchmarks. */
static ck_status blobs(const char *spec, uint64_t seed, uint64_t stream,
                       ck_dataset *data) {
  ck_status status = CK_OK;
  long long rows = 0, features = 0, classes = 0;
  const char *first = spec + 6, *second = strchr(first, ':');
  const char *third = second ? strchr(second + 1, ':') : NULL;
  if (!third ||
      ck__parse_whole(third + 1, third + strlen(third), 2, 1000, &classes) !=
          1 ||
      ck__parse_whole(second + 1, third, 1, 65536, &features) != 1 ||
      ck__parse_whole(first, second, classes, 10000000, &rows) != 1 ||
      rows * features > BLOBS_MAX_VALUES)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "--train: '%s': blobs:N:F:C needs 2 <= C <= 1000 classes, "
                    "1 <= F <= 65536 features and C <= N <= 10000000 rows, "
                    "N x F at most %lld",
                    spec, BLOBS_MAX_VALUES);
  memset(data, 0, sizeof *data);
  data->rows = (size_t)rows;
  data->features = (size_t)features;
  data->classes = (size_t)classes;
  size_t blocks = ((size_t)features + 3) / 4;
  float *centres = malloc((size_t)classes * blocks * 4 * sizeof *centres);
  data->values = malloc((size_t)rows * (size_t)features * sizeof(float));
  data->labels = malloc((size_t)rows * sizeof(int32_t));
  if (!centres || !data->values || !data->labels)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory for %s", spec);
  for (size_t i = 0; i < (size_t)classes * blocks; ++i) {
    ck_philox_counter block = ck_philox_block(seed, BLOBS_CENTRE_STREAM, i);
    for (int k = 0; k < 4; ++k)
      centres[4 * i + (size_t)k] = 2.0f * ck_uniform_float(block.v[k]) - 1.0f;
  }
  for (long long r = 0; r < rows; ++r) {
    int32_t label = (int32_t)(r % classes);
    const float *centre = centres + (size_t)label * blocks * 4;
    float *row = data->values + (size_t)r * (size_t)features;
    for (size_t b = 0; b < blocks; ++b) {
      ck_philox_counter block =
          ck_philox_block(seed, stream, (uint64_t)r * blocks + b);
      float noise[4];
      ck_normal_float2(block.v[0], block.v[1], &noise[0], &noise[1]);
      ck_normal_float2(block.v[2], block.v[3], &noise[2], &noise[3]);
      for (size_t k = 0; k < 4 && 4 * b + k < (size_t)features; ++k)
        row[4 * b + k] = centre[4 * b + k] + noise[k];
    }
    data->labels[r] = label;
  }
  free(centres);
  return CK_OK;

fail:
  free(centres);
  ck_dataset_free(data);
  return status;
}

ck_status ck_nn_hold_out(const ck_dataset *train, double fraction,
                         uint64_t seed, ck_dataset *rest,
                         ck_dataset *validation) {
  return ck_dataset_split_random(train, fraction, seed ^ 0x5A5A5A5Aull, rest,
                                 validation);
}

/* Loads a data file (training data when training is nonzero), logging
 * its warning; *format is the file's, or unknown where it could not be
 * read. labels_option: the option that gives its IDX labels file. */
static ck_status load_file(const char *path, const ck_dataset_options *options,
                           const char *labels_option,
                           ck__dataset_format required, int training,
                           ck_dataset *data, ck__dataset_format *format,
                           ck__nn_data_reader *reader) {
  ck__dataset_request request;
  memset(&request, 0, sizeof request);
  request.label_option = "--label-col";
  request.required = required;
  request.training = training;
  ck_status status = ck__dataset_load(path, options, &request, data);
  *format = request.format;
  reader->csv_files += *format == CK__DATASET_CSV;
  /* Standard input has no name that a labels file's could derive from. */
  if (status == CK_ERROR_INVALID_ARGUMENT && *format == CK__DATASET_IDX &&
      !options->labels_path && strcmp(path, "-") == 0)
    ck__fail_append(" with --%s", labels_option);
  if (status == CK_OK && request.warning[0]) {
    char line[CK__DATASET_WARNING_MAX + 16];
    snprintf(line, sizeof line, "warning: %s", request.warning);
    ck__nn_log_line(reader->run, line);
  }
  return status;
}

/* Training or test data: a file (load_file), or spirals (whose format
 * stays unknown: they fit test data of either). */
static ck_status
load_data(const char *path, const char *labels, const char *labels_option,
          const ck_dataset_options *base, const ck_dataset *classes_from,
          size_t class_limit, uint64_t seed, uint64_t stream, int training,
          ck__dataset_format required, ck_dataset *data,
          ck__dataset_format *format, ck__nn_data_reader *reader) {
  *format = CK__DATASET_UNKNOWN;
  if (strncmp(path, "spirals:", 8) == 0)
    return spirals(path, seed, stream, data);
  if (strncmp(path, "blobs:", 6) == 0)
    return blobs(path, seed, stream, data);
  ck_dataset_options options = *base;
  options.labels_path = labels;
  options.classes_from = classes_from;
  options.class_limit = class_limit;
  return load_file(path, &options, labels_option, required, training, data,
                   format, reader);
}

/* The model's classes as a data set to number test labels by. */
static ck_status model_classes(const ck_nn *nn, ck_dataset *view) {
  memset(view, 0, sizeof *view);
  view->classes =
      nn->class_count ? nn->class_count : nn->state.sizes[nn->state.layers];
  view->class_names = nn->class_names;
  return CK_OK;
}

/* The confusion matrix as text lines: a header of predicted classes, one
 * row per true class. */
static ck_status log_confusion(const ck_run_options *options, const ck_nn *nn,
                               const uint64_t *confusion, size_t classes) {
  char *line = NULL;
  size_t capacity = (classes + 2) * 16 + 64;
  line = malloc(capacity);
  if (!line)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  ck__nn_log_line(options,
                  "confusion matrix (rows: true class, columns: predicted)");
  char name[CK_DATASET_MAX_NAME + 1];
  size_t used = (size_t)snprintf(line, capacity, "%8s", "");
  for (size_t k = 0; k < classes; ++k) {
    ck_nn_get_class_name(nn, k, name, sizeof name);
    used += (size_t)snprintf(line + used, capacity - used, " %6.6s", name);
  }
  ck__nn_log_line(options, line);
  for (size_t t = 0; t < classes; ++t) {
    ck_nn_get_class_name(nn, t, name, sizeof name);
    used = (size_t)snprintf(line, capacity, "%8.8s", name);
    for (size_t k = 0; k < classes; ++k)
      used += (size_t)snprintf(line + used, capacity - used, " %6llu",
                               (unsigned long long)confusion[t * classes + k]);
    ck__nn_log_line(options, line);
  }
  free(line);
  return CK_OK;
}

static ck_status write_predictions(const char *path, const ck_nn *nn,
                                   const int32_t *classes, size_t rows) {
  ck_status status = CK_OK;
  size_t capacity = rows * (CK_DATASET_MAX_NAME + 2) + 1, used = 0;
  char *text = malloc(capacity);
  if (!text)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory writing %s", path);
  char name[CK_DATASET_MAX_NAME + 1];
  for (size_t r = 0; r < rows; ++r) {
    ck_nn_get_class_name(nn, (size_t)classes[r], name, sizeof name);
    used += (size_t)snprintf(text + used, capacity - used, "%s\n", name);
  }
  status = ck__file_write_atomic(path, text, used);
  free(text);
  return status;
}

/* A data set that does not fit the network: CK_ERROR_PARSE, a fault of the
 * file, for ck_nn_attach's CK_ERROR_INVALID_ARGUMENT. */
static ck_status data_fault(ck_status status) {
  return status == CK_ERROR_INVALID_ARGUMENT ? CK_ERROR_PARSE : status;
}

/* The network, from the model file at model or else from the job's
 * configuration: spread over the run's devices, or on device alone. */
static ck_status make_network(const ck_device *device, ck__nn_session *s,
                              const char *model) {
  ck__nn_job *job = &s->job;
  const ck_spread one = {.devices = device, .device_count = 1};
  const ck_spread *spread = s->options->spread ? s->options->spread : &one;
  return ck__nn_spread_create(spread, &job->config, model, 0, &job->tuning,
                              &s->nn);
}

/* The model of --load, and the training data of --train with the test
 * and validation rows that --split and --val take from it. */
static ck_status load_training(const ck_device *device, ck__nn_session *s) {
  ck_status status = CK_OK;
  ck__nn_job *job = &s->job;
  ck_nn_config *config = &job->config;
  uint64_t seed = s->seed;
  if (job->load) {
    CK_TRY(make_network(device, s, job->load));
    ck_nn_describe(s->nn, config);
  }
  /* Training data past a loaded model's classes is the data's fault, named
   * at its line; past the classes that --layers chose, it is the option's,
   * found once the data is read (build_network). */
  size_t class_limit = job->load ? config->sizes[config->layer_count - 1] : 0;
  if (job->load)
    model_classes(s->nn, &s->classes_view);
  if (!s->training)
    return CK_OK;
  CK_TRY(load_data(job->train, job->train_labels, "train-labels", &job->csv,
                   job->load ? &s->classes_view : NULL, class_limit, seed, 1, 1,
                   CK__DATASET_UNKNOWN, &s->whole, &s->train_format,
                   &s->reader));
  if (job->split) {
    double split = strtod(job->split, NULL);
    if (split < 1) {
      CK_TRY(split_fraction(&s->whole, split, seed, "split", job->train,
                            &s->train, &s->test, 0));
    } else {
      if (split >= (double)s->whole.rows)
        CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
                "--split: %s rows leave nothing to test (%s has %zu)",
                job->split, job->train, s->whole.rows);
      CK_TRY(ck_dataset_split(&s->whole, (size_t)split, &s->train, &s->test));
    }
    ck_dataset_free(&s->whole);
  } else {
    s->train = s->whole;
    memset(&s->whole, 0, sizeof s->whole);
  }
  if (job->validation_fraction > 0) {
    ck_dataset rest = {0};
    CK_TRY(split_fraction(&s->train, job->validation_fraction, seed, "val",
                          job->train, &rest, &s->validation, 1));
    ck_dataset_free(&s->train);
    s->train = rest;
  }
fail:
  return status;
}

/* A new network for the training data: its layers from --layers or from
 * the data, checked against the data, and its input scaling fitted. */
static ck_status build_network(const ck_device *device, ck__nn_session *s) {
  ck_status status = CK_OK;
  ck__nn_job *job = &s->job;
  ck_nn_config *config = &job->config;
  const ck_dataset *train = &s->train;
  if (!job->layers_given) {
    /* The data's fault, named by its file, where no --layers was
     * given to be wrong. */
    if (train->features > CK_NN_MAX_WIDTH)
      CK_FAIL(CK_ERROR_UNSUPPORTED,
              "%s: %zu features a row, more than a network's %d inputs",
              job->train, train->features, CK_NN_MAX_WIDTH);
    config->layer_count = 3;
    config->sizes[0] = train->features;
    config->sizes[1] = CK_NN_AUTO_HIDDEN;
    config->sizes[2] = train->classes < 2 ? 2 : train->classes;
  }
  size_t inputs = config->sizes[0];
  size_t outputs = config->sizes[config->layer_count - 1];
  if (train->features != inputs)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "--layers: the input layer has %zu units, but %s has %zu "
            "features a row",
            inputs, job->train, train->features);
  if (train->classes > outputs)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "--layers: the output layer has %zu units, but %s has %zu "
            "classes",
            outputs, job->train, train->classes);
  CK_TRY(ck__nn_job_activations(job));
  CK_TRY(make_network(device, s, NULL));
  CK_TRY(ck_nn_set_preprocessing(s->nn, train, job->normalization));
  model_classes(s->nn, &s->classes_view);
fail:
  return status;
}

/* The test data of --test, or, for data made on the spot (spirals,
 * blobs) without --split, more of their own; then each set attached to
 * the network. */
static ck_status load_test(ck__nn_session *s) {
  ck_status status = CK_OK;
  ck__nn_job *job = &s->job;
  ck_nn_config *config = &job->config;
  ck__dataset_format train_format = s->train_format, format;
  if (job->test) {
    status = load_data(job->test, job->test_labels, "test-labels", &job->csv,
                       s->nn ? &s->classes_view : NULL,
                       config->sizes[config->layer_count - 1], s->seed, 2, 0,
                       train_format, &s->test, &format, &s->reader);
    if (status && train_format != CK__DATASET_UNKNOWN &&
        format != CK__DATASET_UNKNOWN && format != train_format)
      CK_FAIL_PREFIX(
          status, "--test must be in the format of --train %s: ", job->train);
    CK_TRY(status);
  } else if (s->training && !job->split && ck__nn_made_data(job->train)) {
    /* A quarter as many rows of the same kind (and clusters), from the
     * test data's stream. */
    char spec[96];
    size_t least = s->train.classes > 3 ? s->train.classes : 3;
    size_t rows = s->train.rows / 4 > least ? s->train.rows / 4 : least;
    if (strncmp(job->train, "spirals:", 8) == 0)
      snprintf(spec, sizeof spec, "spirals:%zu", rows);
    else
      snprintf(spec, sizeof spec, "blobs:%zu:%zu:%zu", rows, s->train.features,
               s->train.classes);
    CK_TRY(load_data(spec, NULL, "test-labels", &job->csv, NULL, 0, s->seed, 2,
                     0, train_format, &s->test, &format, &s->reader));
  }
  if (!s->nn)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "nothing to do: give --train FILE");
  /* A shape that does not fit the network is named by its file. It is a
   * fault of the data (exit 1), not of the options, unless --layers chose
   * a shape that the training data does not fit (ck_nn_set_preprocessing
   * in build_network): the training data against a loaded model, or the
   * test data against a network its training data fits. */
  if (s->training && (status = ck_nn_attach(s->nn, CK_NN_TRAIN, &s->train)))
    CK_FAIL_PREFIX(job->load ? data_fault(status) : status, "%s: ", job->train);
  if (s->validation.rows &&
      (status = ck_nn_attach(s->nn, CK_NN_VALIDATION, &s->validation)))
    CK_FAIL_PREFIX(data_fault(status), "%s: ", job->train);
  if (s->test.rows && (status = ck_nn_attach(s->nn, CK_NN_TEST, &s->test)))
    CK_FAIL_PREFIX(data_fault(status),
                   "%s: ", job->test ? job->test : job->train);
fail:
  return status;
}

/* The rows of --predict; then a refusal of the CSV options in a run that
 * reads no CSV file. */
static ck_status load_predict(ck__nn_session *s, const ck_param *params,
                              size_t count) {
  ck_status status = CK_OK;
  ck__nn_job *job = &s->job;
  if (job->predict) {
    /* Rows to predict may come with labels (then scored too) or without;
     * they are read before training, so that a bad file costs none. */
    ck_dataset_options predict_options = job->csv;
    predict_options.classes_from = &s->classes_view;
    predict_options.labelled = -1;
    predict_options.features = job->config.sizes[0];
    predict_options.labels_path = job->predict_labels;
    ck__dataset_format format;
    CK_TRY(load_file(job->predict, &predict_options, "predict-labels",
                     CK__DATASET_UNKNOWN, 0, &s->predict, &format, &s->reader));
  }
  /* What describes CSV files, in a run that reads none, would be dropped
   * unseen. */
  for (size_t i = 0; i < 2 && !s->reader.csv_files; ++i) {
    const char *option = i ? "header" : "label-col";
    if (ck__param_find(params, count, option))
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "option --%s describes CSV files, and this run reads none",
              option);
  }
fail:
  return status;
}

/* The training itself, then what it writes: the trace and the model. */
static ck_status train_network(ck__nn_session *s) {
  ck_status status = CK_OK;
  ck__nn_job *job = &s->job;
  ck_nn_training plan = {job->epochs, job->patience, ck__nn_on_epoch, &s->log,
                         job->tol};
  s->log.epochs = job->epochs;
  CK_TRY(ck_nn_train(s->nn, &plan, &s->report));
  if (s->log.failed)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory keeping the trace");
  /* A spread run's outputs are written once, by rank 0. */
  int writes = ck__nn_spread_rank(s->nn) == 0;
  if (job->trace && writes)
    CK_TRY_OUTPUT("trace",
                  ck__file_write_atomic(job->trace, s->log.trace, s->log.used));
  if (job->save && writes)
    CK_TRY_OUTPUT("save", ck_nn_save(s->nn, job->save));
fail:
  return status;
}

/* The test rows' loss and accuracy into the report, and their confusion
 * matrix into the log. */
static ck_status evaluate_test(ck__nn_session *s) {
  ck_status status = CK_OK;
  const ck_nn_config *config = &s->job.config;
  size_t classes = config->sizes[config->layer_count - 1];
  uint64_t *confusion = NULL;
  ck_nn_report *report = &s->report;
  /* Classes come up to 65536 (labels are class numbers), whose matrix
   * would take 32 GB and print lines no one reads. */
  if (classes <= CONFUSION_MAX_CLASSES) {
    confusion = calloc(classes * classes, sizeof *confusion);
    if (!confusion)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
              "out of memory for the %zu x %zu confusion matrix", classes,
              classes);
  }
  double loss, accuracy;
  CK_TRY(ck_nn_evaluate(s->nn, CK_NN_TEST, &loss, &accuracy, confusion));
  report->final_test_loss = loss;
  report->final_test_accuracy = accuracy;
  if (isnan(report->best_test_accuracy))
    report->best_test_accuracy = accuracy;
  if (confusion)
    CK_TRY(log_confusion(s->options, s->nn, confusion, classes));
  else {
    char line[64];
    snprintf(line, sizeof line, "no confusion matrix: over %d classes",
             CONFUSION_MAX_CLASSES);
    ck__nn_log_line(s->options, line);
  }
fail:
  free(confusion);
  return status;
}

/* The classes of --predict's rows, written to --out, and their score
 * where the rows had labels. */
static ck_status predict_rows(ck__nn_session *s, ck_result *result) {
  ck_status status = CK_OK;
  const ck_dataset *predict = &s->predict;
  int32_t *predicted =
      malloc((predict->rows ? predict->rows : 1) * sizeof *predicted);
  if (!predicted)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  CK_TRY(ck_nn_predict(s->nn, predict, predicted));
  if (ck__nn_spread_rank(s->nn) == 0)
    CK_TRY_OUTPUT(
        "out", write_predictions(s->job.out, s->nn, predicted, predict->rows));
  CK_TRY(ck__result_option(result, "out", s->job.out));
  ck__result_metric(result, "predicted_rows", (double)predict->rows, "");
  if (predict->classes) {
    size_t hits = 0;
    for (size_t r = 0; r < predict->rows; ++r)
      hits += predicted[r] == predict->labels[r];
    s->predict_accuracy = (double)hits / (double)predict->rows;
    ck__result_metric(result, "predict_accuracy", s->predict_accuracy, "");
  }
fail:
  free(predicted);
  return status;
}

ck_status ck__nn_run(const void *job, const ck_device *device,
                     const ck_param *params, size_t count,
                     const ck_run_options *options, ck_result *result) {
  ck_status status = CK_OK;
  ck__nn_session s;
  memset(&s, 0, sizeof s);
  s.options = s.log.options = s.reader.run = options;
  s.predict_accuracy = NAN;
  s.report.final_test_accuracy = s.report.best_test_accuracy = NAN;
  /* The session's own copy: the prepared job serves the next run. */
  s.job = *(const ck__nn_job *)job;
  s.seed = s.job.config.seed;
  s.training = s.job.train != NULL;
  s.train_format = CK__DATASET_UNKNOWN;
  ck__history epochs = {0};
  if (s.job.plot) {
    static const size_t row[] = {CK__NN_ROW_WIDTH};
    CK_TRY(ck__history_init(&epochs, CK__HISTORY_SAMPLE, 1, row,
                            "the epochs' statistics"));
    s.log.rows = &epochs;
  }
  CK_TRY(load_training(device, &s));
  if (s.training && !s.job.load)
    CK_TRY(build_network(device, &s));
  CK_TRY(load_test(&s));
  CK_TRY(load_predict(&s, params, count));

  /* The run's own time leaves its setup out: reading the data and
   * building the network's kernels. */
  double started = ck__seconds();
  if (s.training)
    CK_TRY(train_network(&s));
  /* A run that does not train reports the rate of what it evaluates. */
  ck_queue *queue = ck__nn_state(s.nn)->queue;
  double evaluating_from = ck__seconds(), kernel_from = 0;
  size_t evaluated_rows = s.test.rows + s.predict.rows;
  CK_TRY(ck_queue_finish(queue));
  CK_TRY(ck_queue_get_kernel_seconds(queue, &kernel_from));
  if (s.test.rows)
    CK_TRY(evaluate_test(&s));
  if (s.job.predict)
    CK_TRY(predict_rows(&s, result));

  result->wall_s = ck__seconds() - started;
  result->kernel_s = s.report.kernel_s;
  result->throughput = s.report.samples_per_s;
  if (!s.training) {
    double seconds = ck__seconds() - evaluating_from, kernel_to = 0;
    CK_TRY(ck_queue_finish(queue));
    CK_TRY(ck_queue_get_kernel_seconds(queue, &kernel_to));
    result->kernel_s = kernel_to - kernel_from;
    result->throughput = seconds > 0 ? (double)evaluated_rows / seconds : 0;
  }
  CK_TRY(ck__nn_report_best(&s, result));
  CK_TRY(ck__nn_report_run(&s, result));
  if (s.options->spread)
    CK_TRY(ck__nn_spread_report(s.nn, result));
  /* A spread run's outputs are written once, by rank 0. */
  if (s.job.plot && ck__nn_spread_rank(s.nn) == 0)
    CK_TRY_OUTPUT("plot", ck__nn_write_plot(&s, result));
fail:
  ck__history_free(&epochs);
  free(s.log.trace);
  ck_dataset_free(&s.predict);
  ck_dataset_free(&s.whole);
  ck_dataset_free(&s.train);
  ck_dataset_free(&s.test);
  ck_dataset_free(&s.validation);
  ck_nn_destroy(s.nn);
  return status;
}
