/*
 * nn_workload.c - MLP training as a clkit workload: data files and options
 * in; per-epoch lines and a confusion matrix through the run's log
 * callback; a ck_result out; the files --save, --trace and --out, each
 * written atomically.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ck_philox.h"
#include "framework/framework.h"
#include "framework/plot.h"
#include "nn/nn_internal.h"

/* CK_NN_AUTO_HIDDEN as text, for the help. */
#define CK__NN_TEXT(x) #x
#define CK__NN_TEXT_OF(x) CK__NN_TEXT(x)
#define CK__NN_AUTO CK__NN_TEXT_OF(CK_NN_AUTO_HIDDEN)

/* The most classes whose test confusion matrix is counted and logged. */
#define CONFUSION_MAX_CLASSES 1024

/* The options that name files a run writes: --save first, which may
 * replace the model --load reads, then the others. */
static const char *const nn_outputs[] = {"save", "trace", "out", "plot", NULL};
static const char *const nn_binary_outputs[] = {"save", NULL};

typedef struct nn_job {
  ck_nn_config config; /* first: the options' fields are the job's */
  int layers_given;
  size_t activation_count;
  ck_normalization_kind normalization;
  unsigned epochs, patience;
  double tol, validation_fraction;
  const char *train, *test, *train_labels, *test_labels, *predict_labels;
  const char *split, *trace, *save, *load, *predict, *out, *plot;
  ck_dataset_options csv;
  ck__nn_tuning tuning;
} nn_job;

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
  { CK__FIELD_OF(nn_job, member, CK__FIELD_TEXT, 0, 0, 0) }

static const ck__field nn_job_fields[JOB_FIELDS] = {
    /* Without --load. */
    [JOB_TRAIN] = {CK__FIELD_OF(nn_job, train, CK__FIELD_TEXT, 0, 0, 0),
                   .text = "spirals:2000"},
    [JOB_TEST] = FILE_FIELD(test),
    [JOB_TRAIN_LABELS] = FILE_FIELD(train_labels),
    [JOB_TEST_LABELS] = FILE_FIELD(test_labels),
    [JOB_SPLIT] = FILE_FIELD(split),
    [JOB_VAL] = {CK__FIELD_OF(nn_job, validation_fraction, CK__FIELD_REAL, 0, 0,
                              0.9)},
    /* Training converges as scikit-learn's MLPClassifier does by default:
     * at most 200 epochs, stopped after 10 without the loss falling by
     * more than 1e-4. */
    [JOB_PATIENCE] = {CK__FIELD_OF(nn_job, patience, CK__FIELD_UINT, 10, 0,
                                   1000000)},
    [JOB_TOL] = {CK__FIELD_OF(nn_job, tol, CK__FIELD_REAL, 1e-4, 0, 1e6)},
    [JOB_EPOCHS] = {CK__FIELD_OF(nn_job, epochs, CK__FIELD_UINT, 200, 1,
                                 1000000)},
    [JOB_NORMALIZE] = {CK__FIELD_ENUM(nn_job, normalization,
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
  nn_job *nn = job;
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
  nn_job *nn = job;
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
  ck_dataset_options *csv = &((nn_job *)job)->csv;
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
  ck__nn_tuning *tuning = &((nn_job *)job)->tuning;
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
  .config = "ck_dataset_options", .base = offsetof(nn_job, csv)

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

/* Whether a data option names data made on the spot (spirals:N,
 * blobs:N:F:C) rather than a file. */
static int made_data(const char *path) {
  return strncmp(path, "spirals:", 8) == 0 || strncmp(path, "blobs:", 6) == 0;
}

/* What the files given ask of each other: a model for --predict, --out
 * only with it, no shape beside a loaded model, no labels file beside
 * data made on the spot, and one source of test data. */
static ck_status check_files(const ck_param *params, size_t count,
                             nn_job *job) {
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
    if (labelled[i].data && labelled[i].labels && made_data(labelled[i].data))
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
                             const nn_job *job) {
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

static ck_status job_parse(const ck_param *params, size_t count,
                           const ck_run_options *options, nn_job *job) {
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
  nn_job job;
  return job_parse(params, count, NULL, &job);
}

/* --predict without --out writes the classes to standard output. */
static const char *nn_stdout_output(const ck_param *params, size_t count) {
  return ck__param_find(params, count, "predict") &&
                 !ck__param_find(params, count, "out")
             ? "out"
             : NULL;
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

/* What the data files of a run are read with: the run's options, whose
 * log gets the warnings about a file, and the count of CSV files read
 * (what --label-col and --header describe). */
typedef struct data_reader {
  const ck_run_options *run;
  unsigned csv_files;
} data_reader;

static void log_line(const ck_run_options *options, const char *line) {
  if (options && options->log)
    options->log(options->log_user, line);
}

/* Loads a data file (training data when training is nonzero), logging
 * its warning; *format is the file's, or unknown where it could not be
 * read. labels_option: the option that gives its IDX labels file. */
static ck_status load_file(const char *path, const ck_dataset_options *options,
                           const char *labels_option,
                           ck__dataset_format required, int training,
                           ck_dataset *data, ck__dataset_format *format,
                           data_reader *reader) {
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
    log_line(reader->run, line);
  }
  return status;
}

/* Training or test data: a file (load_file), or spirals (whose format
 * stays unknown: they fit test data of either). */
static ck_status load_data(const char *path, const char *labels,
                           const char *labels_option,
                           const ck_dataset_options *base,
                           const ck_dataset *classes_from, size_t class_limit,
                           uint64_t seed, uint64_t stream, int training,
                           ck__dataset_format required, ck_dataset *data,
                           ck__dataset_format *format, data_reader *reader) {
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

/* The columns of an epoch's row for --plot. */
enum {
  ROW_EPOCH,
  ROW_SECONDS, /* since training began */
  ROW_TRAIN_LOSS,
  ROW_TRAIN_ACCURACY,
  ROW_VALIDATION_LOSS,
  ROW_VALIDATION_ACCURACY,
  ROW_TEST_LOSS,
  ROW_TEST_ACCURACY,
  ROW_WIDTH
};

typedef struct epoch_log {
  const ck_run_options *options;
  unsigned epochs;
  char *trace;
  size_t used, capacity;
  int failed;
  ck__history *rows; /* a row an epoch for --plot, or NULL */
  double seconds;    /* the epochs' wall time so far */
} epoch_log;

static void append_percent(char *line, size_t capacity, const char *name,
                           double value) {
  size_t used = strlen(line);
  if (!isnan(value))
    snprintf(line + used, capacity - used, "  %s %6.2f%%", name, 100 * value);
}

static int on_epoch(void *user, const ck_nn_epoch *epoch) {
  epoch_log *log = user;
  char line[400];
  snprintf(line, sizeof line, "epoch %*u/%u  loss %.4f", 3, epoch->epoch,
           log->epochs, epoch->train_loss);
  append_percent(line, sizeof line, "train", epoch->train_accuracy);
  append_percent(line, sizeof line, "val", epoch->validation_accuracy);
  append_percent(line, sizeof line, "test", epoch->test_accuracy);
  size_t used = strlen(line);
  snprintf(line + used, sizeof line - used, "  lr %.3g  %.0f samples/s  %.2f s",
           epoch->learning_rate, epoch->samples_per_s, epoch->seconds);
  log_line(log->options, line);
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
  const double row[ROW_WIDTH] = {
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

/* The confusion matrix as text lines: a header of predicted classes, one
 * row per true class. */
static ck_status log_confusion(const ck_run_options *options, const ck_nn *nn,
                               const uint64_t *confusion, size_t classes) {
  char *line = NULL;
  size_t capacity = (classes + 2) * 16 + 64;
  line = malloc(capacity);
  if (!line)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  log_line(options, "confusion matrix (rows: true class, columns: predicted)");
  char name[CK_DATASET_MAX_NAME + 1];
  size_t used = (size_t)snprintf(line, capacity, "%8s", "");
  for (size_t k = 0; k < classes; ++k) {
    ck_nn_get_class_name(nn, k, name, sizeof name);
    used += (size_t)snprintf(line + used, capacity - used, " %6.6s", name);
  }
  log_line(options, line);
  for (size_t t = 0; t < classes; ++t) {
    ck_nn_get_class_name(nn, t, name, sizeof name);
    used = (size_t)snprintf(line, capacity, "%8.8s", name);
    for (size_t k = 0; k < classes; ++k)
      used += (size_t)snprintf(line + used, capacity - used, " %6llu",
                               (unsigned long long)confusion[t * classes + k]);
    log_line(options, line);
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

/* One run of nn: its job, its data sets, its network and what its
 * training reported. nn_run owns what it holds and frees it at its end. */
typedef struct nn_session {
  nn_job job;
  uint64_t seed; /* the job's, before a loaded model's describes it */
  const ck_run_options *options;
  ck_nn *nn;
  ck_dataset train, test, validation, whole, predict;
  ck_dataset classes_view; /* the network's classes (model_classes) */
  data_reader reader;
  ck__dataset_format train_format;
  int training;
  epoch_log log;
  ck_nn_report report;
  double predict_accuracy; /* with --predict on labelled rows */
} nn_session;

/* The network, from the model file at model or else from the job's
 * configuration: on device, or spread over the run's devices. */
static ck_status make_network(const ck_device *device, nn_session *s,
                              const char *model) {
  nn_job *job = &s->job;
  if (s->options->spread)
    return ck__nn_spread_create(s->options->spread, &job->config, model,
                                &job->tuning, &s->nn);
  if (model)
    return ck__nn_model_load(device, model, &job->config, &job->tuning, &s->nn);
  return ck__nn_create(device, &job->config, 0, &job->tuning, &s->nn);
}

/* The model of --load, and the training data of --train with the test
 * and validation rows that --split and --val take from it. */
static ck_status load_training(const ck_device *device, nn_session *s) {
  ck_status status = CK_OK;
  nn_job *job = &s->job;
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

/* --act's one activation for every hidden layer, or one a layer. */
static ck_status spread_activations(nn_job *job) {
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

/* A new network for the training data: its layers from --layers or from
 * the data, checked against the data, and its input scaling fitted. */
static ck_status build_network(const ck_device *device, nn_session *s) {
  ck_status status = CK_OK;
  nn_job *job = &s->job;
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
  CK_TRY(spread_activations(job));
  CK_TRY(make_network(device, s, NULL));
  CK_TRY(ck_nn_set_preprocessing(s->nn, train, job->normalization));
  model_classes(s->nn, &s->classes_view);
fail:
  return status;
}

/* The test data of --test, or, for data made on the spot (spirals,
 * blobs) without --split, more of their own; then each set attached to
 * the network. */
static ck_status load_test(nn_session *s) {
  ck_status status = CK_OK;
  nn_job *job = &s->job;
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
  } else if (s->training && !job->split && made_data(job->train)) {
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
static ck_status load_predict(nn_session *s, const ck_param *params,
                              size_t count) {
  ck_status status = CK_OK;
  nn_job *job = &s->job;
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
static ck_status train_network(nn_session *s) {
  ck_status status = CK_OK;
  nn_job *job = &s->job;
  ck_nn_training plan = {job->epochs, job->patience, on_epoch, &s->log,
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
static ck_status evaluate_test(nn_session *s) {
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
    log_line(s->options, line);
  }
fail:
  free(confusion);
  return status;
}

/* The classes of --predict's rows, written to --out, and their score
 * where the rows had labels. */
static ck_status predict_rows(nn_session *s, ck_result *result) {
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

/* The result's best figure: the test accuracy, else what --predict
 * alone measured, else the training accuracy. */
static ck_status report_best(nn_session *s, ck_result *result) {
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

/* The result's figures of the network and of the training: its shape,
 * the sets' rows and what the report measured. */
static ck_status report_run(const nn_session *s, ck_result *result) {
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

/* --plot: the loss and the accuracy of each set per epoch, in two panels;
 * the seconds along the top. A set not attached is left out. */
static ck_status write_plot(const nn_session *s, const ck_result *result) {
  const ck__history *kept = s->log.rows;
  size_t count = kept->count, every = ck__history_show_every(count), used = 0;
  double *rows = malloc((count ? count : 1) * ROW_WIDTH * sizeof *rows);
  if (!rows)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %s",
                    s->job.plot);
  for (size_t i = 0; i < count; ++i) {
    if (i % every && i + 1 != count)
      continue;
    double *row = rows + used++ * ROW_WIDTH;
    memcpy(row, kept->entries[0] + i * ROW_WIDTH, ROW_WIDTH * sizeof *row);
    for (size_t c = ROW_TRAIN_ACCURACY; c < ROW_WIDTH; c += 2)
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
      const double *y = rows + ROW_TRAIN_LOSS + 2 * set + (size_t)accuracy;
      int present = 0;
      for (size_t i = 0; i < used; ++i)
        present |= !isnan(y[i * ROW_WIDTH]);
      if (present)
        series[series_count++] =
            (ck__plot_series){.name = sets[set],
                              .axis = accuracy ? "accuracy (%)" : loss,
                              .x = rows + ROW_EPOCH,
                              .y = y,
                              .count = used,
                              .stride = ROW_WIDTH};
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
                         .top_x = rows + ROW_EPOCH,
                         .top_value = rows + ROW_SECONDS,
                         .top_count = used,
                         .top_stride = ROW_WIDTH,
                         .series = series,
                         .series_count = series_count};
  ck_status status = ck__plot_write(s->job.plot, &plot);
  free(rows);
  return status;
}

static ck_status nn_run(const ck_device *device, const ck_param *params,
                        size_t count, const ck_run_options *options,
                        ck_result *result) {
  ck_status status = CK_OK;
  nn_session s;
  memset(&s, 0, sizeof s);
  s.options = s.log.options = s.reader.run = options;
  s.predict_accuracy = NAN;
  s.report.final_test_accuracy = s.report.best_test_accuracy = NAN;
  if ((status = job_parse(params, count, options, &s.job)))
    return status;
  s.seed = s.job.config.seed;
  s.training = s.job.train != NULL;
  s.train_format = CK__DATASET_UNKNOWN;
  ck__history epochs = {0};
  if (s.job.plot) {
    static const size_t row[] = {ROW_WIDTH};
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
  CK_TRY(report_best(&s, result));
  CK_TRY(report_run(&s, result));
  if (s.nn->spread)
    CK_TRY(ck__nn_spread_report(s.nn, result));
  /* A spread run's outputs are written once, by rank 0. */
  if (s.job.plot && ck__nn_spread_rank(s.nn) == 0)
    CK_TRY_OUTPUT("plot", write_plot(&s, result));
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
  nn_job job;
  ck_status status = job_parse(params, count, NULL, &job);
  if (status == CK_OK)
    status = spread_activations(&job);
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

ck_status ck_nn_hold_out(const ck_dataset *train, double fraction,
                         uint64_t seed, ck_dataset *rest,
                         ck_dataset *validation) {
  return ck_dataset_split_random(train, fraction, seed ^ 0x5A5A5A5Aull, rest,
                                 validation);
}

/* ref has FP32 products alone: it checks TF32 runs in FP32. */
static const ck_param nn_oracle[] = {{"math", "fp32"}, {NULL, NULL}};

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

static const ck__bench nn_bench = {
    .format = "layers/batch/epochs",
    .rungs = {nn_rungs[0], nn_rungs[1], nn_rungs[2], nn_rungs[3], nn_rungs[4],
              nn_rungs[5], nn_rungs[6]},
    .size_options = nn_size_options,
    .footprint = nn_footprint,
    .describe = nn_describe,
    .cost = nn_cost};

static const ck_param nn_demo[] = {{"train", "spirals:600"}, {"epochs", "5"}};

const ck_workload ck__nn_workload = {
    .name = "nn",
    .summary = "multilayer perceptron training by backpropagation",
    .options = nn_options,
    CK__OPTIONS_SHOWN(nn_options),
    .tolerance = 0.02,
    .check = nn_check,
    .run = nn_run,
    .outputs = nn_outputs,
    .binary_outputs = nn_binary_outputs,
    .stdout_output = nn_stdout_output,
    .oracle = nn_oracle,
    .demo = nn_demo,
    .demo_count = sizeof nn_demo / sizeof nn_demo[0],
    .spreads = 1,
    .bench = &nn_bench,
};
