/*
 * bench.c - benchmark sizes: each workload's ladder (its table lives
 * beside the workload), the rung a device starts at, the growth rule,
 * a run's size in words and its cost by the workload's model.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/framework.h"

static ck_status bench_of(const char *function, const ck_workload *workload,
                          const ck__bench **bench) {
  CK__REQUIRE_IN(function, workload);
  if (!workload->bench)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: workload %s has no sizes",
                    function, workload->name);
  *bench = workload->bench;
  return CK_OK;
}

static ck_status check_rung(const char *function, unsigned rung) {
  if (rung >= CK_BENCH_RUNGS)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: rung %u; the ladders have rungs 0 to %d", function,
                    rung, CK_BENCH_RUNGS - 1);
  return CK_OK;
}

static size_t rung_count(const ck_param *rung) {
  assert(rung);
  size_t count = 0;
  while (rung[count].name)
    ++count;
  return count;
}

ck_status ck_bench_size(const ck_workload *workload, unsigned rung,
                        const ck_param **params, size_t *count) {
  const ck__bench *bench = NULL;
  ck_status status = bench_of(__func__, workload, &bench);
  if (status == CK_OK)
    status = check_rung(__func__, rung);
  if (status != CK_OK)
    return status;
  CK__REQUIRE(params);
  CK__REQUIRE(count);
  *params = bench->rungs[rung];
  *count = rung_count(bench->rungs[rung]);
  return CK_OK;
}

ck_status ck_bench_describe(const ck_workload *workload, const char **format) {
  const ck__bench *bench = NULL;
  ck_status status = bench_of(__func__, workload, &bench);
  if (status != CK_OK)
    return status;
  CK__REQUIRE(format);
  *format = bench->format;
  return CK_OK;
}

ck_status ck_bench_find_size_option(const ck_workload *workload,
                                    const ck_param *params, size_t count,
                                    const char **option) {
  const ck__bench *bench = NULL;
  ck_status status = bench_of(__func__, workload, &bench);
  if (status != CK_OK)
    return status;
  CK__REQUIRE(option);
  if (count && !params)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: params is NULL but count is %zu", __func__, count);
  *option = NULL;
  for (size_t i = 0; i < count && !*option; ++i)
    for (const char *const *size = bench->size_options; *size; ++size)
      if (params[i].name && strcmp(params[i].name, *size) == 0) {
        *option = params[i].name;
        break;
      }
  return CK_OK;
}

ck_status ck_bench_first_rung(const ck_device *device, unsigned *rung,
                              int *grows) {
  CK__REQUIRE(device);
  CK__REQUIRE(rung);
  CK__REQUIRE(grows);
  *grows = device->backend != CK_BACKEND_REF;
  *rung = device->backend == CK_BACKEND_REF ? CK_BENCH_REF_RUNG
          : device->kind == CK_KIND_GPU || device->kind == CK_KIND_ACCELERATOR
              ? CK_BENCH_GPU_RUNG
              : CK_BENCH_CPU_RUNG;
  return CK_OK;
}

double ck__param_number(const ck_param *params, size_t count, const char *name,
                        double fallback) {
  assert(name && (params || count == 0));
  const char *text = ck__param_find(params, count, name);
  double value = 0;
  if (!text || !ck__parse_decimal(text, text + strlen(text), &value))
    return fallback;
  return value;
}

/* Whether the rung's options, then extra, fit the device by the ladder's
 * estimate. */
static ck_status rung_fits(const ck__bench *bench, unsigned rung,
                           const ck_param *extra, size_t count,
                           const ck_device *device, int *fits) {
  assert(bench && bench->footprint && rung < CK_BENCH_RUNGS);
  assert(device && fits && (extra || count == 0));
  size_t own = rung_count(bench->rungs[rung]);
  ck_param *merged = malloc((own + count + 1) * sizeof *merged);
  if (!merged)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  memcpy(merged, bench->rungs[rung], own * sizeof *merged);
  if (count)
    memcpy(merged + own, extra, count * sizeof *merged);
  double total = 0, largest = 0;
  bench->footprint(merged, own + count, device, &total, &largest);
  free(merged);
  *fits = !ck__memory_exceeded(total, device->global_memory) &&
          !(device->max_alloc > 0 && largest > (double)device->max_alloc);
  return CK_OK;
}

/* The checks of ck_bench_fits and ck_bench_next_rung (function names
 * the call; out its output, checked for NULL): the workload's ladder into
 * *bench. */
static ck_status check_growth(const char *function, const ck_workload *workload,
                              unsigned rung, const ck_param *extra,
                              size_t count, const ck_device *device,
                              const void *out, const ck__bench **bench) {
  ck_status status = bench_of(function, workload, bench);
  if (status == CK_OK)
    status = check_rung(function, rung);
  if (status != CK_OK)
    return status;
  CK__REQUIRE_IN(function, device);
  if (!out)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", function,
                    strcmp(function, "ck_bench_fits") == 0 ? "fits" : "next");
  if (count && !extra)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: extra is NULL but count is %zu", function, count);
  return CK_OK;
}

ck_status ck_bench_fits(const ck_workload *workload, unsigned rung,
                        const ck_param *extra, size_t count,
                        const ck_device *device, int *fits) {
  const ck__bench *bench = NULL;
  ck_status status = check_growth(__func__, workload, rung, extra, count,
                                  device, fits, &bench);
  return status ? status : rung_fits(bench, rung, extra, count, device, fits);
}

ck_status ck_bench_next_rung(const ck_workload *workload, unsigned rung,
                             double wall_s, const ck_param *extra, size_t count,
                             const ck_device *device, unsigned *next) {
  const ck__bench *bench = NULL;
  ck_status status = check_growth(__func__, workload, rung, extra, count,
                                  device, next, &bench);
  if (status != CK_OK)
    return status;
  *next = rung;
  /* A time that is no number (NaN) grows nothing. */
  if (rung + 1 >= CK_BENCH_RUNGS || !(wall_s < CK_BENCH_GROW_BELOW_S))
    return CK_OK;
  int fits = 0;
  if ((status = rung_fits(bench, rung + 1, extra, count, device, &fits)))
    return status;
  if (fits)
    *next = rung + 1;
  return CK_OK;
}

const char *ck__result_option_text(const ck_result *result, const char *name) {
  assert(result && name);
  for (size_t i = 0; result->options && i < result->option_count; ++i)
    if (result->options[i].name && strcmp(result->options[i].name, name) == 0)
      return result->options[i].value;
  return NULL;
}

ck_status ck__result_value(const ck_result *result, const char *name,
                           double *value) {
  assert(result && name && value);
  for (size_t i = 0; i < result->metric_count; ++i)
    if (strcmp(result->metrics[i].name, name) == 0) {
      *value = result->metrics[i].value;
      return CK_OK;
    }
  return ck__fail(CK_ERROR_NOT_FOUND, "the %s result has no metric '%s'",
                  result->workload, name);
}

ck_status ck__result_values(const ck_result *result, const char *const *names,
                            double *values) {
  assert(result && names && values);
  for (size_t i = 0; names[i]; ++i) {
    ck_status status = ck__result_value(result, names[i], &values[i]);
    if (status != CK_OK)
      return status;
  }
  return CK_OK;
}

size_t ck__param_real_size(const ck_param *params, size_t count) {
  const char *precision = ck__param_find(params, count, "precision");
  return precision && strcmp(precision, "double") == 0 ? sizeof(double)
                                                       : sizeof(float);
}

size_t ck__result_real_size(const ck_result *result) {
  const char *precision = ck__result_option_text(result, "precision");
  return precision && strcmp(precision, "double") == 0 ? sizeof(double)
                                                       : sizeof(float);
}

/* The workload of a result, by its name; function names the caller. */
static ck_status workload_of(const char *function, const ck_result *result,
                             const ck__bench **bench) {
  CK__REQUIRE_IN(function, result);
  const ck_workload *workload = NULL;
  if (ck_workload_find(result->workload, &workload) != CK_OK)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the result is of no known workload ('%.32s')",
                    function, result->workload);
  return bench_of(function, workload, bench);
}

ck_status ck_result_describe_size(const ck_result *result, char *text,
                                  size_t capacity) {
  const ck__bench *bench = NULL;
  ck_status status = workload_of(__func__, result, &bench);
  if (status != CK_OK)
    return status;
  CK__REQUIRE(text);
  if (capacity == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: capacity is 0", __func__);
  if (bench->describe) {
    bench->describe(result, text, capacity);
    return CK_OK;
  }
  size_t used = 0;
  text[0] = '\0';
  for (const char *const *name = bench->size_metrics; *name; ++name) {
    double value = NAN;
    if (ck__result_value(result, *name, &value) != CK_OK)
      value = NAN;
    int written = snprintf(text + used, capacity - used, "%s%.0f",
                           name == bench->size_metrics ? "" : " x ", value);
    if (written < 0 || (size_t)written >= capacity - used)
      break;
    used += (size_t)written;
  }
  return CK_OK;
}

ck_status ck_result_get_cost(const ck_result *result, ck_cost *cost) {
  const ck__bench *bench = NULL;
  ck_status status = workload_of(__func__, result, &bench);
  if (status != CK_OK)
    return status;
  CK__REQUIRE(cost);
  if (result->status != CK_OK)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the run on %s failed; it has no cost", __func__,
                    result->device);
  cost->units = cost->bytes = cost->flops = NAN;
  cost->double_precision = 0;
  return bench->cost(result, cost);
}
