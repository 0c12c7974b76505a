/* json.c - results as JSON objects, with the same keys across workloads. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/workload_internal.h"

typedef struct json_text {
  char *data;
  size_t size, capacity;
  int failed;
} json_text;

static void put(json_text *text, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void put(json_text *text, const char *format, ...) {
  if (text->failed)
    return;
  for (;;) {
    va_list args;
    va_start(args, format);
    int length = vsnprintf(text->data + text->size, text->capacity - text->size,
                           format, args);
    va_end(args);
    if (length < 0) {
      text->failed = 1;
      return;
    }
    if (text->size + (size_t)length < text->capacity) {
      text->size += (size_t)length;
      return;
    }
    size_t capacity = 2 * text->capacity + (size_t)length;
    char *grown = realloc(text->data, capacity);
    if (!grown) {
      text->failed = 1;
      return;
    }
    text->data = grown;
    text->capacity = capacity;
  }
}

/* value, up to its NUL or its field's `capacity` bytes: a result is the
 * caller's, and a field without its NUL must not be read past. */
static void put_string(json_text *text, const char *value, size_t capacity) {
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
  put(&text, "{\"workload\":");
  put_string(&text, result->workload, sizeof result->workload);
  put(&text, ",\"device\":");
  put_string(&text, result->device, sizeof result->device);
  put(&text, ",\"device_name\":");
  put_string(&text, result->device_name, sizeof result->device_name);
  if (result->status != CK_OK) {
    const char *name = "";
    ck_status_get_name(result->status, &name);
    put(&text, ",\"status\":");
    put_string(&text, name, strlen(name) + 1);
    put(&text, ",\"error\":");
    put_string(&text, result->error, sizeof result->error);
  }
  put(&text, ",\"wall_s\":");
  put_number(&text, result->wall_s);
  put(&text, ",\"kernel_s\":");
  put_number(&text, result->kernel_s);
  put(&text, ",\"best\":");
  put_number(&text, result->best);
  put(&text, ",\"best_name\":");
  put_string(&text, result->best_name, sizeof result->best_name);
  put(&text, ",\"throughput\":");
  put_number(&text, result->throughput);
  put(&text, ",\"throughput_unit\":");
  put_string(&text, result->throughput_unit, sizeof result->throughput_unit);
  put(&text, ",\"agreement\":");
  put_number(&text, result->agreement);
  put(&text, ",\"agrees\":%s", result->agrees ? "true" : "false");
  if (result->stopped_by[0]) {
    put(&text, ",\"stopped_by\":");
    put_string(&text, result->stopped_by, sizeof result->stopped_by);
  }
  for (size_t i = 0; i < result->metric_count; ++i) {
    put(&text, ",");
    put_string(&text, result->metrics[i].name, sizeof result->metrics[i].name);
    put(&text, ":");
    put_number(&text, result->metrics[i].value);
  }
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
