/*
 * nn_workload.c - MLP training as a clkit workload: its options, read
 * into a job and checked against each other and the files they name.
 * The run is nn_run.c's; its per-epoch lines, the result's figures,
 * --plot and the cost model, nn_report.c's.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "framework/framework.h"
#include "framework/plot.h"
#include "nn/nn_internal.h"

/* CK_NN_AUTO_HIDDEN as text, for the help. */
#define CK__NN_TEXT(x) #x
#define CK__NN_TEXT_OF(x) CK__NN_TEXT(x)
#define CK__NN_AUTO CK__NN_TEXT_OF(CK_NN_AUTO_HIDDEN)

/* The options that name files a run writes: --save first, which may
 * replace the model --load reads, then the others. */
static const char *const nn_outputs[] = {"save", "trace", "out", "plot", NULL};
static const char *const nn_binary_outputs[] = {"save", NULL};

/* The run's own settings, beside ck_nn_config's (ck__nn_fields). */
enum {
  JOB_TRAIN,
  JOB_TEST,
  JOB_TRAIN_LABELS,
  JOB_TEST_LABELS,
  JOB_SPLIT,
  JOB_VAL,
  JOB_PATIENCE,
  JOB_TOL,
  JOB_EPOCHS,
  JOB_NORMALIZE,
  JOB_TRACE,
  JOB_SAVE,
  JOB_LOAD,
  JOB_PREDICT,
  JOB_PREDICT_LABELS,
  JOB_OUT,
  JOB_FIELDS
};

static const ck__field_word normalizations[] = {{"none", CK_NORMALIZE_NONE},
                                                {"zscore", CK_NORMALIZE_ZSCORE},
                                                {"minmax", CK_NORMALIZE_MINMAX},
                                                {NULL, 0}};

#define FILE_FIELD(member)                                                     \
  { CK__FIELD_OF(ck__nn_job, member, CK__FIELD_TEXT, 0, 0, 0) }

static const ck__field nn_job_fields[JOB_FIELDS] = {
    /* Without --load. */
    [JOB_TRAIN] = {CK__FIELD_OF(ck__nn_job, train, CK__FIELD_TEXT, 0, 0, 0),
                   .text = "spirals:2000"},
    [JOB_TEST] = FILE_FIELD(test),
    [JOB_TRAIN_LABELS] = FILE_FIELD(train_labels),
    [JOB_TEST_LABELS] = FILE_FIELD(test_labels),
    [JOB_SPLIT] = FILE_FIELD(split),
    [JOB_VAL] = {CK__FIELD_OF(ck__nn_job, validation_fraction, CK__FIELD_REAL,
                              0, 0, 0.9)},
    /* Training converges as scikit-learn's MLPClassifier does by default:
     * at most 200 epochs, stopped after 10 without the loss falling by
     * more than 1e-4. */
    [JOB_PATIENCE] = {CK__FIELD_OF(ck__nn_job, patience, CK__FIELD_UINT, 10, 0,
                                   1000000)},
    [JOB_TOL] = {CK__FIELD_OF(ck__nn_job, tol, CK__FIELD_REAL, 1e-4, 0, 1e6)},
    [JOB_EPOCHS] = {CK__FIELD_OF(ck__nn_job, epochs, CK__FIELD_UINT, 200, 1,
                                 1000000)},
    [JOB_NORMALIZE] = {CK__FIELD_ENUM(ck__nn_job, normalization,
                                      CK_NORMALIZE_ZSCORE, normalizations)},
    [JOB_TRACE] = FILE_FIELD(trace),
    [JOB_SAVE] = FILE_FIELD(save),
    [JOB_LOAD] = FILE_FIELD(load),
    [JOB_PREDICT] = FILE_FIELD(predict),
    [JOB_PREDICT_LABELS] = FILE_FIELD(predict_labels),
    [JOB_OUT] = FILE_FIELD(out),
};

static ck_status parse_list(const char *option, const char *text,
                            size_t *values, size_t capacity, size_t *count) {
  size_t n = 0;
  const char *at = text;
  const ck__field *width = &ck__nn_fields[CK__NN_SIZE_0];
  for (;;) {
    const char *end = strchr(at, ',');
    if (!end)
      end = at + strlen(at);
    long long value = 0;
    if (ck__parse_whole(at, end, (long long)width->minimum,
                        (long long)width->maximum, &value) != 1)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "--%s: '%s' is not a list of widths %.0f .. %.0f, such "
                      "as 784,256,10",
                      option, text, width->minimum, width->maximum);
    if (n == capacity)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT, "--%s: at most %zu widths",
                      option, capacity);
    values[n++] = (size_t)value;
    if (!*end)
      break;
    at = end + 1;
  }
  *count = n;
  return CK_OK;
}

static ck_status parse_layers(const char *text, void *job) {
  ck__nn_job *nn = job;
  ck_nn_config *config = &nn->config;
  if (strcmp(text, "auto") == 0)
    return CK_OK;
  ck_status status = parse_list("layers", text, config->sizes,
                                CK_NN_MAX_LAYERS + 1, &config->layer_count);
  if (status)
    return status;
  if (config->layer_count < 2)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "--layers: give the input width, any hidden widths and "
                    "the classes, e.g. 16,128,26");
  nn->layers_given = 1;
  return CK_OK;
}

static ck_status parse_activations(const char *text, void *job) {
  ck__nn_job *nn = job;
  const ck__field *field = &ck__nn_fields[CK__NN_ACTIVATION];
  char copy[512];
  if (strlen(text) >= sizeof copy)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "--act: too long");
  snprintf(copy, sizeof copy, "%s", text);
  size_t n = 0;
  /* Every entry counts, an empty one too (refused, as in --layers): a
   * doubled comma is a slip, not a way to skip a layer. */
  for (char *part = copy;;) {
    char *comma = strchr(part, ',');
    if (comma)
      *comma = '\0';
    if (!*part)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "--act: an empty entry in '%s'", text);
    if (n == CK_NN_MAX_LAYERS)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT, "--act: too many entries");
    const ck__field_word *word =
        ck__field_word_named(field, part, strlen(part));
    if (!word)
      return ck__fail_word("act", NULL, field, part, strlen(part));
    nn->config.activations[n++] = (ck_nn_activation)word->value;
    if (!comma)
      break;
    part = comma + 1;
  }
  nn->activation_count = n;
  return CK_OK;
}

static ck_status parse_schedule(const char *text, void *job) {
  ck_nn_config *config = job;
  const ck__field *every_field = &ck__nn_fields[CK__NN_STEP_EVERY];
  const ck__field *gamma_field = &ck__nn_fields[CK__NN_STEP_GAMMA];
  if (strcmp(text, "none") == 0) {
    config->schedule = CK_NN_CONSTANT;
    return CK_OK;
  }
  if (strcmp(text, "cosine") == 0) {
    config->schedule = CK_NN_COSINE;
    return CK_OK;
  }
  /* step:E:G, each field read whole as option values are (sscanf's %u
   * would wrap -1 and take blanks and hexadecimal). */
  long long every = 0;
  double gamma = 0;
  const char *first = NULL, *second = NULL;
  if (ck__parse_two_fields(text, "step:", &first, &second) &&
      ck__parse_whole(first, second - 1, (long long)every_field->minimum,
                      (long long)every_field->maximum, &every) == 1 &&
      ck__parse_decimal(second, text + strlen(text), &gamma) &&
      ck__field_in_range(gamma_field, gamma)) {
    config->schedule = CK_NN_STEP;
    config->step_every = (unsigned)every;
    config->step_gamma = gamma;
    return CK_OK;
  }
  char every_range[96], gamma_range[96];
  ck__field_range_text(every_field, every_range, sizeof every_range);
  ck__field_range_text(gamma_field, gamma_range, sizeof gamma_range);
  return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                  "--schedule: '%s' is not none, cosine or step:E:G (E a "
                  "whole number of epochs in %s, G in %s)",
                  text, every_range, gamma_range);
}

/* first, last or a 1-based column N. */
static ck_status parse_label_column(const char *text, void *job) {
  ck_dataset_options *csv = &((ck__nn_job *)job)->csv;
  const ck__field *field = &ck__dataset_fields[CK__DATASET_LABEL_COLUMN];
  long long column = 0;
  const ck__field_word *word = ck__field_word_named(field, text, strlen(text));
  if (word) {
    csv->label_column = (int)word->value;
    return CK_OK;
  }
  if (ck__parse_whole(text, text + strlen(text), (long long)field->minimum + 1,
                      (long long)field->maximum + 1, &column) != 1)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --label-col: '%s' is not first, last or a column "
                    "from %.0f to %.0f",
                    text, field->minimum + 1, field->maximum + 1);
  csv->label_column = (int)column - 1;
  return CK_OK;
}

/* auto, or FORM:S by ck__nn_form; the vector form's work-items span 16
 * outputs. */
static ck_status parse_tiles(const char *text, void *job) {
  ck__nn_tuning *tuning = &((ck__nn_job *)job)->tuning;
  static const char *const forms[] = {"global:", "local:", "vector:"};
  static const long long smallest[] = {8, 8, 16};
  if (strcmp(text, "auto") == 0)
    return CK_OK;
  const char *colon = strchr(text, ':');
  size_t prefix = colon ? (size_t)(colon - text) + 1 : 0;
  long long side = 0;
  int form = 0;
  while (form < 3 && !(prefix == strlen(forms[form]) &&
                       strncmp(text, forms[form], prefix) == 0))
    ++form;
  if (form == 3 ||
      ck__parse_whole(colon + 1, text + strlen(text), smallest[form], 128,
                      &side) != 1 ||
      (side & (side - 1)))
    return ck__fail(
        CK_ERROR_INVALID_ARGUMENT,
        "--tiles: '%s' is not auto, local:S or global:S with S a power "
        "of two from 8 to 128, or vector:S with S a power of two from 16 to "
        "128",
        text);
  tuning->tile = (unsigned)side;
  tuning->form = (ck__nn_form)form;
  return CK_OK;
}

#define NN(index)                                                              \
  .field = &ck__nn_fields[CK__NN_##index], .config = "ck_nn_config"
#define JOB(index) .field = &nn_job_fields[JOB_##index]
#define CSV(index)                                                             \
  .field = &ck__dataset_fields[CK__DATASET_##index],                           \
  .config = "ck_dataset_options", .base = offsetof(ck__nn_job, csv)

static const ck__option nn_options[] = {
    {"train", "FILE",
     "training data: IDX (gzip or not) or CSV; spirals:N for N points of "
     "three interleaved spirals; blobs:N:F:C for N points in F dimensions "
     "of C Gaussian clusters",
     JOB(TRAIN)},
    {"test", "FILE", "test data, in the training data's format", JOB(TEST)},
    {"train-labels", "FILE",
     "IDX labels of --train (default: its name with images-idx3 -> "
     "labels-idx1)",
     JOB(TRAIN_LABELS)},
    {"test-labels", "FILE", "IDX labels of --test", JOB(TEST_LABELS)},
    {"label-col", "N", "CSV label column: first, last or 1-based N",
     CSV(LABEL_COLUMN), .read = parse_label_column},
    {"header", "H", "CSV header line: auto, yes or no", CSV(HEADER)},
    {"split", "N|F",
     "without --test: the first N rows train and the rest test, or a "
     "seeded random fraction F (0 < F < 1) tests",
     JOB(SPLIT)},
    {"val", "F", "hold out a seeded random fraction F for validation",
     JOB(VAL)},
    {"patience", "P",
     "stop after P epochs without an improvement (--tol) of the validation "
     "loss with --val, else of the training loss (0: never)",
     JOB(PATIENCE)},
    {"tol", "T",
     "the least fall of the watched loss that counts as an improvement",
     JOB(TOL)},
    {"layers", "LIST",
     "widths, input first: e.g. 784,256,128,10 (auto: features," CK__NN_AUTO
     ",classes)",
     .read = parse_layers, .shown = "auto", .config = "ck_nn_config",
     .sets = "layer_count sizes"},
    {"act", "LIST",
     "hidden activations: sigmoid, tanh or relu; one for all or one a layer",
     NN(ACTIVATION), .read = parse_activations, .sets = "activations"},
    {"loss", "L", "ce (softmax, cross-entropy) or mse (sigmoid, squared error)",
     NN(LOSS)},
    {"optimizer", "O", "adam or sgd (with --momentum)", NN(OPTIMIZER)},
    {"lr", "R", "learning rate", NN(LEARNING_RATE)},
    {"momentum", "M", "SGD momentum (0: plain SGD)", NN(MOMENTUM)},
    {"weight-decay", "L2", "L2 penalty on the weights", NN(WEIGHT_DECAY)},
    {"schedule", "S",
     "learning-rate schedule: none, step:E:G (x G every E epochs) or cosine",
     NN(SCHEDULE), .read = parse_schedule, .sets = "step_every step_gamma"},
    {"batch", "N", "samples a step (1: online; all: full batch)", NN(BATCH)},
    {"epochs", "E",
     "the most passes over the training data (--patience may stop sooner)",
     JOB(EPOCHS)},
    {"normalize", "N",
     "per-feature scaling fitted on the training data: zscore, minmax or "
     "none",
     JOB(NORMALIZE)},
    {"tiles", "T",
     "matrix-product tiles on OpenCL devices: local:S (staged in local "
     "memory, GPUs), vector:S (16 outputs a vector, CPUs) or global:S (read "
     "directly), S = 8 .. 128 a power of two (16 .. 128 for vector); auto: "
     "by device",
     .read = parse_tiles, .shown = "auto"},
    {"math", "M",
     "matrix-product arithmetic: fp32, or tf32 (tensor cores, inputs "
     "rounded to a 10-bit mantissa; CUDA devices only, marked TF32 in the "
     "output; compare runs ref, the oracle, in fp32)",
     NN(MATH)},
    {"trace", "FILE", "write a CSV of the per-epoch statistics", JOB(TRACE),
     .format = "csv"},
    {"plot", "FILE",
     "chart the loss and accuracy per epoch (train, validation, test), the "
     "seconds along the top: FILE.svg or FILE.png",
     .field = NULL, .format = "chart"},
    {"save", "FILE",
     "write the trained model: clkit's .ckn, or safetensors for a name "
     "ending .safetensors",
     JOB(SAVE), .format = "model"},
    {"load", "FILE",
     "start from a saved model (its layers, scaling and classes)", JOB(LOAD)},
    {"predict", "FILE",
     "with --load: predict the classes of FILE's rows into --out or onto "
     "standard output (rows with a label as well are scored)",
     JOB(PREDICT)},
    {"predict-labels", "FILE",
     "IDX labels of --predict, to score its rows (default: the derived "
     "name, when that file exists)",
     JOB(PREDICT_LABELS)},
    {"out", "FILE",
     "where --predict writes one class name a line (default: standard "
     "output)",
     JOB(OUT), .format = "text"},
    {0},
};

/* ck__param_files_apart sees the files that options name; an IDX
 * features file given without its labels option is also read with the
 * labels file named after it (ck__idx_labels_path), which an output must
 * not replace either. */
static ck_status outputs_apart_from_derived(const ck_param *params,
                                            size_t count) {
  static const char *const labelled[][2] = {{"train", "train-labels"},
                                            {"test", "test-labels"},
                                            {"predict", "predict-labels"}};
  ck_status status = CK_OK;
  char *derived = NULL;
  for (size_t i = 0; i < sizeof labelled / sizeof *labelled; ++i) {
    const char *features = ck__param_find(params, count, labelled[i][0]);
    if (!features || ck__param_find(params, count, labelled[i][1]))
      continue;
    free(derived);
    CK_TRY(ck__idx_labels_path(features, &derived));
    for (size_t w = 0; derived && nn_outputs[w]; ++w) {
      const char *written = ck__param_find(params, count, nn_outputs[w]);
      struct stat target;
      int same = 0;
      /* As ck__param_files_apart: a device or a pipe is written in place,
       * and /dev/null may take every output of a run. */
      if (!written ||
          (stat(written, &target) == 0 && !S_ISREG(target.st_mode)) ||
          ck__file_descriptor_named(written) >= 0)
        continue;
      if ((status = ck_file_check_same(written, derived, &same)))
        CK_FAIL_PREFIX(status, "option --%s: ", nn_outputs[w]);
      if (same)
        CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
                "--%s and the labels file of --%s (%s, named after it) both "
                "name '%s'; an output may not replace that file",
                nn_outputs[w], labelled[i][0], features, written);
    }
  }
fail:
  free(derived);
  return status;
}

int ck__nn_made_data(const char *path) {
  return strncmp(path, "spirals:", 8) == 0 || strncmp(path, "blobs:", 6) == 0;
}

/* What the files given ask of each other: a model for --predict, --out
 * only with it, no shape beside a loaded model, no labels file beside
 * data made on the spot, and one source of test data. */
static ck_status check_files(const ck_param *params, size_t count,
                             ck__nn_job *job) {
  ck_status status = CK_OK;
  const char *text;
  double real;
  if (job->load && !ck__param_find(params, count, "train"))
    job->train = NULL;
  if (job->predict && !job->load)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "--predict needs a model: --load FILE");
  if (job->out && !job->predict)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "--out goes with --predict");
  /* Without --out the classes go to standard output ("-"), which must be
   * open before the run, as an output file must be writable. */
  if (job->predict && !job->out) {
    job->out = "-";
    if ((status = ck_file_check_writable(job->out)))
      CK_FAIL_PREFIX(status, "--predict without --out writes the classes to "
                             "standard output: ");
  }
  /* A loaded model brings its shape, activations, loss and normalisation;
   * a different one given beside it would be dropped unseen. */
  static const char *const from_model[] = {"layers", "act", "loss",
                                           "normalize"};
  for (size_t i = 0; job->load && i < sizeof from_model / sizeof *from_model;
       ++i)
    if ((text = ck__param_find(params, count, from_model[i])) &&
        !(i == 0 && strcmp(text, "auto") == 0))
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "--%s comes from the model that --load reads; leave it out",
              from_model[i]);
  /* Spirals and blobs make their own labels: a labels file beside them
   * (or beside the default training spirals) would be dropped unseen. */
  const struct {
    const char *data, *labels, *option;
  } labelled[] = {{job->train, job->train_labels, "train-labels"},
                  {job->test, job->test_labels, "test-labels"}};
  for (size_t i = 0; i < sizeof labelled / sizeof *labelled; ++i)
    if (labelled[i].data && labelled[i].labels &&
        ck__nn_made_data(labelled[i].data))
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "--%s: %s makes its own labels; a labels file (%s) goes with "
              "IDX features",
              labelled[i].option, labelled[i].data, labelled[i].labels);
  if (job->split) {
    if (job->test)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "--split and --test both say where test data comes from; "
              "give one");
    CK_TRY(ck__param_real(params, count, "split", 0, 1e-9, 1e15, &real));
    if (real >= 1 && real != floor(real))
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "--split: %s is neither a row count nor a fraction in (0, 1)",
              job->split);
  }
fail:
  return status;
}

/* Options that mean something only beside another part of the run: without
 * --train a loaded model only evaluates and predicts, and what shapes
 * training would be dropped unseen. */
static ck_status check_parts(const ck_param *params, size_t count,
                             const ck__nn_job *job) {
  const char *training = "--train FILE (a loaded model is not trained "
                         "without it)";
  int untrained = !job->train;
  const ck__option_part parts[] = {
      {"momentum", job->config.optimizer != CK_NN_SGD, "--optimizer sgd"},
      {"epochs", untrained, training},
      {"lr", untrained, training},
      {"momentum", untrained, training},
      {"optimizer", untrained, training},
      {"weight-decay", untrained, training},
      {"schedule", untrained, training},
      {"batch", untrained, training},
      {"val", untrained, training},
      {"patience", untrained, training},
      {"tol", untrained, training},
      {"split", untrained, training},
      {"trace", untrained, training},
      {"plot", untrained, training},
      {"save", untrained, training},
      {"train-labels", untrained, training},
      {"test-labels", !job->test, "--test FILE"},
      {"predict-labels", !job->predict, "--predict FILE"},
  };
  return ck__param_parts(params, count, parts, sizeof parts / sizeof *parts);
}

ck_status ck__nn_job_parse(const ck_param *params, size_t count,
                           const ck_run_options *options, ck__nn_job *job) {
  ck_status status = CK_OK;
  memset(job, 0, sizeof *job);
  /* Training on from a model may replace it (it is read whole first);
   * nothing else may share a file with an output. */
  static const char *const reads[] = {
      "train",   "test",           "train-labels", "test-labels",
      "predict", "predict-labels", "load",         NULL};
  if ((status = ck__plot_option(params, count, &job->plot)) ||
      (status = ck__param_files_apart(params, count, reads, nn_outputs, "save",
                                      "load")) ||
      (status = outputs_apart_from_derived(params, count)))
    return status;
  ck_nn_config_init(&job->config);
  ck_dataset_options_init(&job->csv);
  ck__fields_init(job, nn_job_fields, JOB_FIELDS);
  job->config.seed = options ? options->seed : 1;
  job->activation_count = 1;
  if ((status = ck__options_read(nn_options, params, count, job)) ||
      (status = check_files(params, count, job)))
    return status;
  return check_parts(params, count, job);
}

static ck_status nn_check(const ck_param *params, size_t count) {
  ck__nn_job job;
  return ck__nn_job_parse(params, count, NULL, &job);
}

static ck_status nn_prepare(const ck_param *params, size_t count,
                            const ck_run_options *options, void *job) {
  return ck__nn_job_parse(params, count, options, job);
}

/* --predict without --out writes the classes to standard output. */
static const char *nn_stdout_output(const ck_param *params, size_t count) {
  return ck__param_find(params, count, "predict") &&
                 !ck__param_find(params, count, "out")
             ? "out"
             : NULL;
}

ck_status ck__nn_job_activations(ck__nn_job *job) {
  ck_nn_config *config = &job->config;
  size_t hidden = config->layer_count - 2;
  if (job->activation_count != 1 && job->activation_count != hidden)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "--act: %zu activations for %zu hidden layers; give one "
                    "for all or one a layer",
                    job->activation_count, hidden);
  for (size_t l = 1; job->activation_count == 1 && l < hidden; ++l)
    config->activations[l] = config->activations[0];
  return CK_OK;
}

/* The options of a network and its training, as against the data, files
 * and kernel forms of a run. */
static int describes_network(const char *name) {
  for (const ck__option *option = nn_options; option->name; ++option)
    if (strcmp(option->name, name) == 0)
      return (option->config && strcmp(option->config, "ck_nn_config") == 0) ||
             option->field == &nn_job_fields[JOB_EPOCHS] ||
             option->field == &nn_job_fields[JOB_PATIENCE] ||
             option->field == &nn_job_fields[JOB_TOL] ||
             option->field == &nn_job_fields[JOB_NORMALIZE] ||
             option->field == &nn_job_fields[JOB_VAL];
  return 0;
}

ck_status ck_nn_config_read(const ck_param *params, size_t count,
                            ck_nn_config *config, ck_nn_training *training,
                            ck_normalization_kind *normalization,
                            double *validation) {
  CK__REQUIRE_IN("ck_nn_config_read", config);
  if (count && !params)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_nn_config_read: params is NULL");
  for (size_t i = 0; i < count; ++i)
    if (!params[i].name || !describes_network(params[i].name))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "option --%s does not describe a network or its "
                      "training",
                      params[i].name ? params[i].name : "(null)");
  ck__nn_job job;
  ck_status status = ck__nn_job_parse(params, count, NULL, &job);
  if (status == CK_OK)
    status = ck__nn_job_activations(&job);
  if (status != CK_OK)
    return status;
  *config = job.config;
  if (training) {
    training->epochs = job.epochs;
    training->patience = job.patience;
    training->tol = job.tol;
  }
  if (normalization)
    *normalization = job.normalization;
  if (validation)
    *validation = job.validation_fraction;
  return CK_OK;
}

/* ref has FP32 products alone: it checks TF32 runs in FP32. */
static const ck_param nn_oracle[] = {{"math", "fp32"}, {NULL, NULL}};

static const ck_param nn_demo[] = {{"train", "spirals:600"}, {"epochs", "5"}};

const ck_workload ck__nn_workload = {
    .name = "nn",
    .summary = "multilayer perceptron training by backpropagation",
    .options = nn_options,
    CK__OPTIONS_SHOWN(nn_options),
    .tolerance = 0.02,
    .check = nn_check,
    .job_bytes = sizeof(ck__nn_job),
    .prepare = nn_prepare,
    .run = ck__nn_run,
    .outputs = nn_outputs,
    .binary_outputs = nn_binary_outputs,
    .stdout_output = nn_stdout_output,
    .oracle = nn_oracle,
    .demo = nn_demo,
    .demo_count = sizeof nn_demo / sizeof nn_demo[0],
    .spreads = 1,
    .bench = &ck__nn_bench,
};
