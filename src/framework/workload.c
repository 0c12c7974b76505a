/*
 * workload.c - finding and listing workloads, their checks, results and
 * the device comparison (a run itself: job.c).
 */
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "framework/framework.h"
#include "framework/spread.h"

ck_status ck_workload_find(const char *name, const ck_workload **workload) {
  CK__REQUIRE(name);
  CK__REQUIRE(workload);
  for (size_t i = 0; i < ck__workload_count; ++i) {
    if (strcmp(ck__workloads[i]->name, name) == 0) {
      *workload = ck__workloads[i];
      return CK_OK;
    }
  }
  ck__nearest nearest;
  ck__nearest_begin(&nearest, name);
  ck__fail(CK_ERROR_NOT_FOUND, "unknown workload '%s'; known:", name);
  for (size_t i = 0; i < ck__workload_count; ++i) {
    ck__fail_append(" %s", ck__workloads[i]->name);
    ck__nearest_offer(&nearest, ck__workloads[i]->name);
  }
  return ck__nearest_append(&nearest, "");
}

ck_status ck_workload_list(const ck_workload *const **workloads,
                           size_t *count) {
  CK__REQUIRE(workloads);
  CK__REQUIRE(count);
  *workloads = ck__workloads;
  *count = ck__workload_count;
  return CK_OK;
}

ck_status ck_workload_describe(const ck_workload *workload, const char **name,
                               const char **summary,
                               const ck_option **options) {
  if (!workload)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_workload_describe: NULL workload");
  if (name)
    *name = workload->name;
  if (summary)
    *summary = workload->summary;
  if (options)
    *options = ck__workload_options(workload);
  return CK_OK;
}

/* The input options of params that read standard input ("-"): options
 * naming a file (FILE in their value's names) that are not outputs.
 * Sets the first two, or NULL where fewer. */
static void stdin_inputs(const ck_workload *workload, const ck_param *params,
                         size_t count, const char *found[2]) {
  found[0] = found[1] = NULL;
  for (const ck_option *option = ck__workload_options(workload); option->name;
       ++option) {
    const char *file = ck__param_find(params, count, option->name);
    int output = 0;
    for (const char *const *o = workload->outputs; o && *o; ++o)
      output |= strcmp(*o, option->name) == 0;
    if (file && !output && option->value_name &&
        strncmp(option->value_name, "FILE", 4) == 0 && strcmp(file, "-") == 0)
      found[found[0] != NULL] = option->name;
    if (found[1])
      return;
  }
}

/* A count of params with no array, refused naming the public call. */
static ck_status no_params(const char *function, size_t count) {
  return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                  "%s: params is NULL but count is %zu", function, count);
}

/* The first input of params on "-" into *piped (NULL: none), once a
 * public call's arguments are checked. */
static ck_status find_piped(const char *function, const ck_workload *workload,
                            const ck_param *params, size_t count,
                            const char **piped) {
  CK__REQUIRE_IN(function, workload);
  if (count && !params)
    return no_params(function, count);
  const char *found[2];
  stdin_inputs(workload, params, count, found);
  *piped = found[0];
  return CK_OK;
}

ck_status ck_workload_check_devices(const ck_workload *workload,
                                    const ck_param *params, size_t count,
                                    size_t devices) {
  const char *piped = NULL;
  ck_status status = find_piped(__func__, workload, params, count, &piped);
  if (status != CK_OK)
    return status;
  if (devices > 1 && piped)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --%s: %zu devices would each read standard input "
                    "(\"-\"), which is read once; give a file",
                    piped, devices);
  for (const char *const *output = workload->outputs;
       devices > 1 && output && *output; ++output) {
    const char *file = ck__param_find(params, count, *output);
    if (file)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "option --%s: %zu devices would each write %s in turn; "
                      "write it from a run on one device",
                      *output, devices, file);
  }
  const char *implicit =
      workload->stdout_output ? workload->stdout_output(params, count) : NULL;
  if (devices > 1 && implicit)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --%s: %zu devices would each write to standard "
                    "output in turn (where --%s goes without a file); give "
                    "--%s a file or run on one device",
                    implicit, devices, implicit, implicit);
  return CK_OK;
}

ck_status ck_workload_find_stdout(const ck_workload *workload,
                                  const ck_param *params, size_t count,
                                  const char **option) {
  CK__REQUIRE(workload);
  CK__REQUIRE(option);
  if (count && !params)
    return no_params(__func__, count);
  *option = NULL;
  for (const char *const *output = workload->outputs; output && *output;
       ++output) {
    const char *file = ck__param_find(params, count, *output);
    if (file && ck__file_descriptor_named(file) == STDOUT_FILENO)
      *option = *output;
  }
  if (!*option && workload->stdout_output)
    *option = workload->stdout_output(params, count);
  return CK_OK;
}

ck_status ck_workload_run_demo(const ck_workload *workload,
                               const ck_param **params, size_t *count) {
  CK__REQUIRE(workload);
  CK__REQUIRE(params);
  CK__REQUIRE(count);
  *params = workload->demo;
  *count = workload->demo_count;
  return CK_OK;
}

void ck__result_metric(ck_result *result, const char *name, double value,
                       const char *unit) {
  assert(result && name && result->metric_count <= CK_RESULT_MAX_METRICS);
  if (result->metric_count == CK_RESULT_MAX_METRICS)
    return;
  ck_metric *metric = &result->metrics[result->metric_count++];
  snprintf(metric->name, sizeof metric->name, "%s", name);
  snprintf(metric->unit, sizeof metric->unit, "%s", unit ? unit : "");
  metric->value = value;
}

void ck__result_flag(ck_result *result, const char *name, int value) {
  assert(result && name);
  if (result->metric_count == CK_RESULT_MAX_METRICS)
    return;
  ck__result_metric(result, name, value ? 1 : 0, "");
  result->metrics[result->metric_count - 1].is_flag = 1;
}

ck_status ck__result_position(ck_result *result, const double *position,
                              size_t count) {
  assert(result && (position || count == 0));
  double *copy = malloc((count ? count : 1) * sizeof *copy);
  if (!copy)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of host memory for a position of %zu values", count);
  if (count)
    memcpy(copy, position, count * sizeof *copy);
  free(result->position);
  result->position = copy;
  result->position_count = count;
  return CK_OK;
}

/* The value of an option the run did not use, until the run ends (then
 * NULL): it keeps the caller's and the default apart. */
static const char unused_option[] = "";

static void option_free(ck_param *option) {
  assert(option);
  if (option->value != unused_option)
    free((char *)option->value);
  option->value = NULL;
}

ck_status ck__result_option(ck_result *result, const char *name,
                            const char *value) {
  assert(result && name);
  for (size_t i = 0; i < result->option_count; ++i) {
    ck_param *option = &result->options[i];
    if (strcmp(option->name, name) != 0)
      continue;
    const char *copy = value ? strdup(value) : unused_option;
    if (!copy)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                      "out of host memory for option --%s", name);
    option_free(option);
    option->value = copy;
    return CK_OK;
  }
  return CK_OK; /* not an option of this workload: nothing to resolve */
}

void ck__shortest_number(char *text, size_t size, double value) {
  assert(text && size > 0);
  /* Whole numbers in full: 1000, not 1e+03. */
  if (value == floor(value) && fabs(value) < 1e15) {
    snprintf(text, size, "%.0f", value);
    return;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    snprintf(text, size, "%.*g", digits, value);
    if (strtod(text, NULL) == value)
      break;
  }
}

ck_status ck__result_option_number(ck_result *result, const char *name,
                                   double value) {
  char text[40];
  ck__shortest_number(text, sizeof text, value);
  return ck__result_option(result, name, text);
}

ck_status ck__result_option_field(ck_result *result, const ck__option *option,
                                  const void *job) {
  assert(result && option && option->field && job);
  const ck__field *field = option->field;
  const char *config = (const char *)job + option->base;
  if (field->type == CK__FIELD_TEXT) {
    const char *text;
    memcpy(&text, config + field->offset, sizeof text);
    return ck__result_option(result, option->name, text);
  }
  double value = ck__field_get(config, field);
  if (!option->value_name) {
    int set = (value != 0) != ((option->flags & CK__OPTION_CLEARS) != 0);
    return ck__result_option(result, option->name, set ? "1" : "0");
  }
  const char *word = ck__field_word_of(field, value);
  return word ? ck__result_option(result, option->name, word)
              : ck__result_option_number(result, option->name, value);
}

/* A range in words for help: "1 to 64", "above 0, at most 1000". */
static void range_words(const ck__field *field, char *text, size_t size) {
  int above = field->flags & CK__FIELD_ABOVE,
      below = field->flags & CK__FIELD_BELOW;
  if (!above && !below)
    snprintf(text, size, "%.15g to %.15g", field->minimum, field->maximum);
  else
    snprintf(text, size, "%s %.15g, %s %.15g", above ? "above" : "at least",
             field->minimum, below ? "below" : "at most", field->maximum);
}

/* Fills a workload's ck_option rows from its table. */
static void show_options(const ck_workload *workload) {
  for (size_t i = 0; workload->options[i].name; ++i) {
    const ck__option *option = &workload->options[i];
    const ck__field *field = option->field;
    ck_option *row = &workload->shown[i];
    ck__option_text *text = &workload->texts[i];
    row->name = option->name;
    row->value_name = option->value_name;
    row->help = option->help;
    row->default_value = option->shown;
    if (field && option->value_name && !option->shown &&
        !(option->flags & CK__OPTION_OFF)) {
      const char *word = ck__field_word_of(field, field->value);
      if (field->type == CK__FIELD_TEXT)
        word = field->text;
      if (word)
        snprintf(text->value, sizeof text->value, "%s", word);
      else
        ck__shortest_number(text->value, sizeof text->value, field->value);
      if (field->type != CK__FIELD_TEXT || word)
        row->default_value = text->value;
      /* A number written in a locale whose decimal point is not '.'. */
      for (char *at = text->value; !word && *at; ++at)
        if (!strchr("0123456789eE+-", *at))
          *at = '.';
    }
    if (option->detail) {
      snprintf(text->help, sizeof text->help, option->help,
               option->detail->value);
      row->help = text->help;
    }
    if (field && option->flags & CK__OPTION_RANGE) {
      char range[96];
      size_t used = strlen(text->help);
      range_words(field, range, sizeof range);
      snprintf(text->help + used, sizeof text->help - used, "%s (%s)",
               used ? "" : option->help, range);
      row->help = text->help;
    }
  }
}

static void show_every_workload(void) {
  for (size_t i = 0; i < ck__workload_count; ++i)
    show_options(ck__workloads[i]);
}

const ck_option *ck__workload_options(const ck_workload *workload) {
  assert(workload);
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, show_every_workload);
  return workload->shown;
}

ck_status ck_result_release(ck_result *result) {
  CK__REQUIRE(result);
  free(result->position);
  for (size_t i = 0; result->options && i < result->option_count; ++i)
    option_free(&result->options[i]);
  free(result->options);
  free(result->members);
  result->members = NULL;
  result->member_count = 0;
  result->position = NULL;
  result->position_count = 0;
  result->options = NULL;
  result->option_count = 0;
  return CK_OK;
}

void ck__result_begin(ck_result *result, const char *workload,
                      const ck_device *device) {
  assert(result && workload && device);
  memset(result, 0, sizeof *result);
  snprintf(result->workload, sizeof result->workload, "%s", workload);
  snprintf(result->device, sizeof result->device, "%s", device->id);
  snprintf(result->device_name, sizeof result->device_name, "%s", device->name);
  result->agreement = NAN;
}

ck_status ck_result_get_metric(const ck_result *result, const char *name,
                               double *value) {
  CK__REQUIRE(result);
  CK__REQUIRE(name);
  CK__REQUIRE(value);
  if (result->metric_count > CK_RESULT_MAX_METRICS)
    return ck__fail(
        CK_ERROR_INVALID_ARGUMENT,
        "ck_result_get_metric: metric_count %zu is more than a result "
        "holds (CK_RESULT_MAX_METRICS, %d)",
        result->metric_count, CK_RESULT_MAX_METRICS);
  for (size_t i = 0; i < result->metric_count; ++i) {
    if (strcmp(result->metrics[i].name, name) == 0) {
      *value = result->metrics[i].value;
      return CK_OK;
    }
  }
  return ck__fail(CK_ERROR_NOT_FOUND, "result of %s has no metric '%s'",
                  result->workload, name);
}

ck_status ck__workload_check_params(const char *function,
                                    const ck_workload *workload,
                                    const ck_param *params, size_t count,
                                    ck__params_check own) {
  CK__REQUIRE_IN(function, workload);
  if (count && !params)
    return no_params(function, count);
  for (size_t i = 0; i < count; ++i) {
    int known = 0;
    for (const ck__option *option = workload->options; option->name; ++option)
      known |= params[i].name && strcmp(option->name, params[i].name) == 0;
    if (!known) {
      ck__fail(CK_ERROR_INVALID_ARGUMENT, "workload %s has no option --%s",
               workload->name, params[i].name ? params[i].name : "(null)");
      return params[i].name
                 ? ck__option_suggest(workload->options, params[i].name)
                 : CK_ERROR_INVALID_ARGUMENT;
    }
    if (!params[i].value)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT, "option --%s has no value",
                      params[i].name);
  }
  /* Options that name files say so in their value names (FILE, FILE.tsp,
   * ...); an empty name is no file. A flag is on by its presence, so any
   * value but "1" ("0", "no") would turn it on against the caller's
   * meaning: it is refused. */
  for (size_t i = 0; i < count; ++i)
    for (const ck__option *option = workload->options; option->name; ++option) {
      if (strcmp(option->name, params[i].name) != 0)
        continue;
      if (option->value_name && strncmp(option->value_name, "FILE", 4) == 0 &&
          !*params[i].value)
        return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                        "option --%s: an empty file name", params[i].name);
      if (!option->value_name && strcmp(params[i].value, "1") != 0)
        return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                        "option --%s is a flag: its value is \"1\", not "
                        "\"%s\" (leave it out to turn it off)",
                        params[i].name, params[i].value);
    }
  const char *piped[2];
  stdin_inputs(workload, params, count, piped);
  if (piped[1])
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "--%s and --%s both read standard input (\"-\"), "
                    "which holds one file; give the other its own file",
                    piped[0], piped[1]);
  for (const char *const *output = workload->binary_outputs; output && *output;
       ++output) {
    const char *file = ck__param_find(params, count, *output);
    ck_status status = file ? ck__file_check_binary(file) : CK_OK;
    if (status)
      return ck__fail_prefix(status, "option --%s: ", *output);
  }
  if (!own)
    return CK_OK;
  ck_status status =
      ck__option_name_field(workload->options, own(params, count));
  return status ? status : ck__workload_check_formats(workload, params, count);
}

ck_status ck__workload_check_formats(const ck_workload *workload,
                                     const ck_param *params, size_t count) {
  ck_status status = CK_OK;
  for (const ck__option *option = workload->options;
       status == CK_OK && option->name; ++option) {
    const char *file =
        option->format ? ck__param_find(params, count, option->name) : NULL;
    if (file && (status = ck_file_check_format(file, option->format)))
      ck__fail_prefix(status, "option --%s: ", option->name);
  }
  return status;
}

ck_status ck__workload_check_spreads(const ck_workload *workload) {
  if (!workload->spreads)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s does not spread over several devices (--spread)",
                    workload->name);
  return CK_OK;
}

/*
 * Option values are read, and output files and log lines written, in the
 * C locale whatever the caller's: under a decimal comma "0.5" would be
 * refused and a trace would hold "0,5". uselocale() switches the calling
 * thread only, so other threads of the caller keep theirs; the callbacks
 * of a run see the C locale too. Here: ck__workload_check_params and, for
 * a spread, ck__workload_check_spreads.
 */
static ck_status check_in_c_locale(const char *function,
                                   const ck_workload *workload,
                                   const ck_param *params, size_t count,
                                   int spread) {
  ck__c_locale locale = {0};
  ck_status status = ck__c_locale_enter(&locale, function);
  if (status != CK_OK)
    return status;
  /* A spread's check reads params once, with the spread's refusals. */
  ck__params_check own = workload ? workload->check : NULL;
  if (spread && workload && workload->check_spread)
    own = workload->check_spread;
  status = ck__workload_check_params(function, workload, params, count, own);
  if (status == CK_OK && spread)
    status = ck__workload_check_spreads(workload);
  ck__c_locale_leave(&locale);
  return status;
}

ck_status ck_workload_check(const ck_workload *workload, const ck_param *params,
                            size_t count) {
  return check_in_c_locale("ck_workload_check", workload, params, count, 0);
}

ck_status ck_workload_check_processes(const ck_workload *workload,
                                      const ck_param *params, size_t count,
                                      size_t processes) {
  const char *piped = NULL;
  ck_status status = find_piped(__func__, workload, params, count, &piped);
  if (status == CK_OK && processes > 1 && piped)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --%s: under MPI only rank 0 reads standard input "
                    "(\"-\"), and each of %zu processes reads the inputs; "
                    "give a file",
                    piped, processes);
  return status;
}

ck_status ck_workload_check_spread(const ck_workload *workload,
                                   const ck_param *params, size_t count,
                                   size_t processes) {
  ck_status status =
      check_in_c_locale("ck_workload_check_spread", workload, params, count, 1);
  return status
             ? status
             : ck_workload_check_processes(workload, params, count, processes);
}

ck_status ck_workload_check_spread_devices(const ck_workload *workload,
                                           const ck_device *devices,
                                           size_t count, size_t *repeated) {
  CK__REQUIRE(workload);
  CK__REQUIRE(repeated);
  *repeated = count;
  if (count && !devices)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: devices is NULL but count is %zu", __func__, count);
  return workload->spread_shares_devices
             ? CK_OK
             : ck__spread_check_devices(devices, count, repeated);
}

ck_status ck__result_options_begin(const ck_workload *workload,
                                   ck_result *result) {
  assert(workload && workload->options && result && !result->options);
  size_t count = 0;
  while (workload->options[count].name)
    ++count;
  result->options = calloc(count ? count : 1, sizeof *result->options);
  if (!result->options)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of host memory for a result's options");
  result->option_count = count;
  for (size_t i = 0; i < count; ++i)
    result->options[i].name = workload->options[i].name;
  return CK_OK;
}

ck_status ck__result_options_end(const ck_workload *workload,
                                 const ck_param *params, size_t count,
                                 ck_result *result) {
  for (size_t i = 0; i < result->option_count; ++i) {
    const ck_option *option = &ck__workload_options(workload)[i];
    if (result->options[i].value == unused_option) {
      result->options[i].value = NULL;
      continue;
    }
    if (result->options[i].value)
      continue; /* the run's own choice */
    const char *value = ck__param_find(params, count, option->name);
    if (!option->value_name)
      value = value ? "1" : "0";
    else if (!value)
      value = option->default_value;
    if (value) {
      ck_status status = ck__result_option(result, option->name, value);
      if (status != CK_OK)
        return status;
    }
  }
  return CK_OK;
}

static void agreement(const ck_workload *workload, const ck_result *reference,
                      ck_result *result) {
  double difference = NAN;
  int agrees = 0;
  if (workload->agree &&
      workload->agree(reference, result, &difference, &agrees) == CK_OK) {
    result->agreement = difference;
    result->agrees = agrees;
    return;
  }
  double scale = fabs(reference->best) > 1e-30 ? fabs(reference->best) : 1.0;
  difference = fabs(result->best - reference->best) / scale;
  result->agreement = difference;
  result->agrees = difference <= workload->tolerance;
}

ck_status ck_result_agree(const ck_result *reference, ck_result *result) {
  CK__REQUIRE(reference);
  CK__REQUIRE(result);
  const ck_workload *workload = NULL;
  if (strncmp(reference->workload, result->workload, sizeof result->workload) !=
      0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: a %.32s run cannot be checked against a %.32s run",
                    __func__, result->workload, reference->workload);
  if (ck_workload_find(result->workload, &workload) != CK_OK)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the result is of no known workload ('%.32s')",
                    __func__, result->workload);
  agreement(workload, reference, result);
  return CK_OK;
}

/* Several devices' lines reach one log in a comparison, so each line names
 * its device; a warning keeps "warning: " first, which callers look for. */
typedef struct device_log {
  const ck_run_options *options;
  const char *device;
} device_log;

static void log_for_device(void *user, const char *line) {
  const device_log *log = user;
  static const char warning[] = "warning: ";
  size_t prefix =
      strncmp(line, warning, sizeof warning - 1) == 0 ? sizeof warning - 1 : 0;
  size_t length = prefix + strlen(log->device) + 2 + strlen(line + prefix);
  char *named = malloc(length + 1);
  if (!named) {
    log->options->log(log->options->log_user, line);
    return;
  }
  snprintf(named, length + 1, "%.*s%s: %s", (int)prefix, line, log->device,
           line + prefix);
  log->options->log(log->options->log_user, named);
  free(named);
}

/* A comparison's job: params read once, for every run; where a log is
 * given, its lines name the device that log->device says runs. */
static ck_status prepare_compare(const ck_workload *workload,
                                 const ck_param *params, size_t count,
                                 const ck_run_options *options, device_log *log,
                                 ck_job **job) {
  ck_run_options named = options ? *options : (ck_run_options){.seed = 1};
  if (named.log) {
    named.log = log_for_device;
    named.log_user = log;
  }
  return ck__job_prepare("ck_compare_run", workload, params, count, &named,
                         job);
}

/* A comparison's run of job on device. */
static ck_status run_for_compare(ck_job *job, const ck_device *device,
                                 device_log *log, ck_result *result) {
  log->device = device->id;
  return ck__job_run("ck_compare_run", job, device, result);
}

/* The parameters ref runs with as the oracle: params with the workload's
 * oracle values in place of the caller's. Sets *adjusted to NULL where
 * they are params as given, else to a malloc'd copy the caller frees.
 * params are checked (not NULL) before. */
static ck_status oracle_params(const ck_workload *workload,
                               const ck_param *params, size_t count,
                               ck_param **adjusted) {
  *adjusted = NULL;
  if (!workload->oracle || count == 0)
    return CK_OK;
  ck_param *copy = malloc(count * sizeof *copy);
  if (!copy)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "ck_compare_run: out of memory");
  int differs = 0;
  for (size_t i = 0; i < count; ++i) {
    copy[i] = params[i];
    for (const ck_param *own = workload->oracle; own->name; ++own)
      if (strcmp(params[i].name, own->name) == 0 &&
          strcmp(params[i].value, own->value) != 0) {
        copy[i].value = own->value;
        differs = 1;
      }
  }
  if (differs)
    *adjusted = copy;
  else
    free(copy);
  return CK_OK;
}

/* Where ref is in set into *reference ((size_t)-1 where skip_ref) and
 * the runs the comparison makes into *runs, ref's as the oracle included:
 * every index is checked and every run counted before anything runs or
 * writes. */
static ck_status plan_runs(const ck_device_set *set, const size_t *indices,
                           size_t count, int skip_ref, size_t capacity,
                           size_t *reference, size_t *runs) {
  *reference = (size_t)-1;
  if (!skip_ref) {
    for (size_t i = 0; i < set->count; ++i)
      if (set->devices[i].backend == CK_BACKEND_REF)
        *reference = i;
    if (*reference == (size_t)-1)
      return ck__fail(CK_ERROR_NOT_FOUND, "the device list has no ref device");
  }
  *runs = *reference != (size_t)-1;
  for (size_t k = 0; k < count; ++k) {
    if (indices[k] >= set->count)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "ck_compare_run: device index %zu out of range (the "
                      "list has %zu devices)",
                      indices[k], set->count);
    *runs += indices[k] != *reference;
  }
  if (*runs > capacity)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_compare_run: %zu runs need as many result slots; "
                    "results has %zu",
                    *runs, capacity);
  return CK_OK;
}

/* ref's run as the comparison's oracle into result, with the workload's
 * oracle values in place of the caller's (a job of their own, where any
 * differs); it agrees with itself. */
static ck_status run_oracle(const ck_workload *workload, ck_job *job,
                            const ck_device *ref, const ck_param *params,
                            size_t param_count, const ck_run_options *options,
                            device_log *log, ck_result *result) {
  ck_status status = CK_OK;
  ck_param *oracle = NULL;
  ck_job *own = NULL;
  CK_TRY(oracle_params(workload, params, param_count, &oracle));
  if (oracle)
    CK_TRY(prepare_compare(workload, oracle, param_count, options, log, &own));
  status = run_for_compare(own ? own : job, ref, log, result);
  /* What ref does not offer, no device can be compared on: a request
   * compare cannot serve, not a failure of the run. */
  if (status == CK_ERROR_UNSUPPORTED)
    CK_FAIL_PREFIX(CK_ERROR_INVALID_ARGUMENT,
                   "ref, the comparison's oracle, cannot run "
                   "this, so nothing can be compared: ");
  CK_TRY(status);
  result->agreement = 0;
  result->agrees = 1;
fail:
  ck_job_free(own);
  free(oracle);
  return status;
}

/* Each run's result after the oracle's (the devices but ref's, which ran
 * as the oracle): a run that fails is its result's status and message. */
static void run_compared(const ck_workload *workload, ck_job *job,
                         const ck_device_set *set, const size_t *indices,
                         size_t count, size_t reference, device_log *log,
                         ck_result *results, size_t *produced) {
  for (size_t k = 0; k < count; ++k) {
    if (indices[k] == reference)
      continue; /* ref already ran as the oracle */
    ck_result *result = &results[*produced];
    const ck_device *device = &set->devices[indices[k]];
    ck_status status = run_for_compare(job, device, log, result);
    if (status != CK_OK) {
      const char *message = "";
      ck_error_get_last(&message);
      ck__result_begin(result, workload->name, device);
      result->status = status;
      snprintf(result->error, sizeof result->error, "%s", message);
    } else if (reference != (size_t)-1) {
      agreement(workload, &results[0], result);
    } else if (device->backend == CK_BACKEND_REF) {
      result->agreement = 0; /* the oracle itself */
      result->agrees = 1;
    }
    ++*produced;
  }
}

/* The params are read once into a job that runs on every device (the
 * oracle's, where its values differ, into a job of its own); a run's
 * shared input files are read at the first run that reads them. */
ck_status ck_compare_run(const ck_workload *workload, const ck_device_set *set,
                         const size_t *indices, size_t count, int skip_ref,
                         const ck_param *params, size_t param_count,
                         const ck_run_options *options, ck_result *results,
                         size_t capacity, size_t *produced) {
  ck_status status = CK_OK;
  ck_job *job = NULL;
  CK__REQUIRE(workload);
  CK__REQUIRE(set);
  if (count && !indices)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_compare_run: indices is NULL but count is %zu", count);
  CK__REQUIRE(results);
  CK__REQUIRE(produced);
  *produced = 0;
  device_log log = {options, ""};
  CK_TRY(prepare_compare(workload, params, param_count, options, &log, &job));
  size_t reference = (size_t)-1, runs = 0;
  CK_TRY(plan_runs(set, indices, count, skip_ref, capacity, &reference, &runs));
  CK_TRY(ck_workload_check_devices(workload, params, param_count, runs));
  if (!skip_ref) {
    CK_TRY(run_oracle(workload, job, &set->devices[reference], params,
                      param_count, options, &log, &results[0]));
    *produced = 1;
  }
  run_compared(workload, job, set, indices, count, reference, &log, results,
               produced);
fail:
  ck_job_free(job);
  return status;
}
