/* json.c - results as JSON objects, with the same keys across workloads. */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/framework.h"

typedef ck__text_buffer json_text;

static void put(json_text *text, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void put(json_text *text, const char *format, ...) {
  assert(text && format);
  va_list args;
  va_start(args, format);
  ck__text_vput(text, format, args);
  va_end(args);
}

/* value, up to its NUL or its field's `capacity` bytes: a result is the
 * caller's, and a field without its NUL must not be read past. */
static void put_string(json_text *text, const char *value, size_t capacity) {
  assert(text && value);
  put(text, "\"");
  const unsigned char *end = (const unsigned char *)value + capacity;
  for (const unsigned char *c = (const unsigned char *)value; c < end && *c;
       ++c) {
    if (*c == '"' || *c == '\\')
      put(text, "\\%c", *c);
    else if (*c == '\n')
      put(text, "\\n");
    else if (*c < 0x20)
      put(text, "\\u%04x", *c);
    else
      put(text, "%c", *c);
  }
  put(text, "\"");
}

/* JSON has no NaN or infinity: those become null. */
static void put_number(json_text *text, double value) {
  if (isfinite(value))
    put(text, "%.17g", value);
  else
    put(text, "null");
}

/* Whether text is a number as JSON spells one: -?(0|[1-9][0-9]*), then
 * an optional fraction and exponent ("1e3" is one; ".5", "+1", "007" and
 * "1." are not). */
static int is_json_number(const char *text) {
  assert(text);
  const char *c = text;
  if (*c == '-')
    ++c;
  if (*c == '0')
    ++c;
  else if (*c >= '1' && *c <= '9')
    while (*c >= '0' && *c <= '9')
      ++c;
  else
    return 0;
  if (*c == '.') {
    if (!(*++c >= '0' && *c <= '9'))
      return 0;
    while (*c >= '0' && *c <= '9')
      ++c;
  }
  if (*c == 'e' || *c == 'E') {
    if (*++c == '+' || *c == '-')
      ++c;
    if (!(*c >= '0' && *c <= '9'))
      return 0;
    while (*c >= '0' && *c <= '9')
      ++c;
  }
  return *c == '\0';
}

/* An option's value as its kind reads: a flag as true or false, a file
 * name as a string whatever it spells, a plain number as a number, and
 * the rest (lists, "auto", "sbx:2") as strings. */
static void put_option(json_text *text, const ck_option *option,
                       const char *value) {
  double number = 0;
  int is_file = option && option->value_name &&
                strncmp(option->value_name, "FILE", 4) == 0;
  if (!value)
    put(text, "null");
  else if (option && !option->value_name)
    put(text, "%s", strcmp(value, "0") != 0 ? "true" : "false");
  else if (!is_file && is_json_number(value))
    put(text, "%s", value);
  else if (!is_file && ck__parse_decimal(value, value + strlen(value), &number))
    put_number(text, number);
  else
    put_string(text, value, strlen(value) + 1);
}

/* The workload's row for an option of a result, or NULL (a result filled
 * by its caller may name any workload and option). */
static const ck_option *find_option(const ck_result *result, const char *name) {
  assert(result); /* checked by result_json */
  const ck_workload *workload = NULL;
  const ck_option *options = NULL;
  if (!name || ck_workload_find(result->workload, &workload) != CK_OK ||
      ck_workload_describe(workload, NULL, NULL, &options) != CK_OK) {
    ck_error_clear();
    return NULL;
  }
  for (; options->name; ++options)
    if (strcmp(options->name, name) == 0)
      return options;
  return NULL;
}

/* The run's identity: workload, clkit's version, device, and the status
 * and message of a run that failed. */
static void put_identity(json_text *text, const ck_result *result) {
  const char *version = "";
  ck_version_get(&version);
  put(text, "{\"workload\":");
  put_string(text, result->workload, sizeof result->workload);
  put(text, ",\"version\":");
  put_string(text, version, strlen(version) + 1);
  put(text, ",\"device\":");
  put_string(text, result->device, sizeof result->device);
  put(text, ",\"device_name\":");
  put_string(text, result->device_name, sizeof result->device_name);
  if (result->status != CK_OK) {
    const char *name = "";
    ck_status_get_name(result->status, &name);
    put(text, ",\"status\":");
    put_string(text, name, strlen(name) + 1);
    put(text, ",\"error\":");
    put_string(text, result->error, sizeof result->error);
  }
}

/* The figures every workload fills: seed, times, best, throughput, the
 * agreement with ref and why the run stopped. */
static void put_figures(json_text *text, const ck_result *result) {
  put(text, ",\"seed\":%" PRIu64, result->seed);
  put(text, ",\"total_s\":");
  put_number(text, result->total_s);
  put(text, ",\"build_s\":");
  put_number(text, result->build_s);
  put(text, ",\"wall_s\":");
  put_number(text, result->wall_s);
  put(text, ",\"kernel_s\":");
  put_number(text, result->kernel_s);
  put(text, ",\"best\":");
  put_number(text, result->best);
  put(text, ",\"best_name\":");
  put_string(text, result->best_name, sizeof result->best_name);
  put(text, ",\"throughput\":");
  put_number(text, result->throughput);
  put(text, ",\"throughput_unit\":");
  put_string(text, result->throughput_unit, sizeof result->throughput_unit);
  put(text, ",\"agreement\":");
  put_number(text, result->agreement);
  /* Agreement is unknown in a run not compared: no claim either way. */
  put(text, ",\"agrees\":%s",
      isnan(result->agreement) ? "null"
      : result->agrees         ? "true"
                               : "false");
  put(text, ",\"stopped_by\":");
  if (result->stopped_by[0])
    put_string(text, result->stopped_by, sizeof result->stopped_by);
  else
    put(text, "null");
}

/* A gas member's slab: its ends along one axis, or a grid's box by its
 * corners; nothing for a member without one (slab_axis -1). */
static void put_slab(json_text *text, const ck_spread_member *member) {
  if (member->slab_axis == 2) {
    /* A grid's box: its corners. */
    put(text, ",\"slab\":{\"axis\":\"xy\",\"from\":[");
    put_number(text, member->slab[0]);
    put(text, ",");
    put_number(text, member->slab_y[0]);
    put(text, "],\"to\":[");
    put_number(text, member->slab[1]);
    put(text, ",");
    put_number(text, member->slab_y[1]);
    put(text, "]}");
  } else if (member->slab_axis >= 0) {
    put(text,
        ",\"slab\":{\"axis\":\"%s\",\"from\":", member->slab_axis ? "y" : "x");
    put_number(text, member->slab[0]);
    put(text, ",\"to\":");
    put_number(text, member->slab[1]);
    put(text, "}");
  }
}

/* A spread run's members, each an object of its device, share and
 * times; nothing for a run on one device. */
static void put_members(json_text *text, const ck_result *result) {
  if (!result->members)
    return;
  put(text, ",\"member_units\":");
  put_string(text, result->member_units, sizeof result->member_units);
  put(text, ",\"members\":[");
  for (size_t i = 0; i < result->member_count; ++i) {
    const ck_spread_member *member = &result->members[i];
    put(text, "%s{\"device\":", i ? "," : "");
    put_string(text, member->device, sizeof member->device);
    put(text, ",\"device_name\":");
    put_string(text, member->device_name, sizeof member->device_name);
    put(text, ",\"rank\":%d,\"units\":%" PRIu64 ",\"share\":", member->rank,
        member->units);
    put_number(text, member->share);
    put(text, ",\"compute_s\":");
    put_number(text, member->compute_s);
    put(text, ",\"exchange_s\":");
    put_number(text, member->exchange_s);
    put(text, ",\"bytes_sent\":%" PRIu64, member->bytes_sent);
    put_slab(text, member);
    put(text, "}");
  }
  put(text, "]");
}

/* The workload's own metrics, each a key of the object: a flag as true
 * or false, the rest as numbers. */
static void put_metrics(json_text *text, const ck_result *result) {
  for (size_t i = 0; i < result->metric_count; ++i) {
    const ck_metric *metric = &result->metrics[i];
    put(text, ",");
    put_string(text, metric->name, sizeof metric->name);
    put(text, ":");
    if (metric->is_flag)
      put(text, "%s", metric->value != 0 ? "true" : "false");
    else
      put_number(text, metric->value);
  }
}

/* The options the run resolved, as an object of name to value; nothing
 * for a result without them. */
static void put_options(json_text *text, const ck_result *result) {
  if (!result->options)
    return;
  put(text, ",\"options\":{");
  int first = 1;
  for (size_t i = 0; i < result->option_count; ++i) {
    const ck_param *option = &result->options[i];
    if (!option->name)
      continue;
    put(text, first ? "" : ",");
    first = 0;
    put_string(text, option->name, strlen(option->name) + 1);
    put(text, ":");
    put_option(text, find_option(result, option->name), option->value);
  }
  put(text, "}");
}

static ck_status result_json(const ck_result *result, char **json) {
  ck_status status = CK_OK;
  CK__REQUIRE_IN("ck_result_format_json", result);
  CK__REQUIRE_IN("ck_result_format_json", json);
  if (result->metric_count > CK_RESULT_MAX_METRICS)
    return ck__fail(
        CK_ERROR_INVALID_ARGUMENT,
        "ck_result_format_json: metric_count %zu is more than a result "
        "holds (CK_RESULT_MAX_METRICS, %d)",
        result->metric_count, CK_RESULT_MAX_METRICS);
  json_text text = {malloc(1024), 0, 1024, 0};
  if (!text.data)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for JSON");
  put_identity(&text, result);
  put_figures(&text, result);
  if (result->position) {
    put(&text, ",\"x\":[");
    for (size_t i = 0; i < result->position_count; ++i) {
      put(&text, i ? "," : "");
      put_number(&text, result->position[i]);
    }
    put(&text, "]");
  }
  put_members(&text, result);
  put_metrics(&text, result);
  put_options(&text, result);
  put(&text, "}");
  if (text.failed)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for JSON");
  *json = text.data;
  return CK_OK;

fail:
  free(text.data);
  return status;
}

/* Numbers in the C locale whatever the caller's (a decimal comma would
 * make another JSON), through the calling thread's own locale. */
ck_status ck_result_format_json(const ck_result *result, char **json) {
  ck__c_locale locale = {0};
  ck_status status = ck__c_locale_enter(&locale, "ck_result_format_json");
  if (status != CK_OK)
    return status;
  status = result_json(result, json);
  ck__c_locale_leave(&locale);
  return status;
}
