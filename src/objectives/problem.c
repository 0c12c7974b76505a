/* problem.c - the optimisers' shared problem checks and device transfers. */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ck_objectives.h"
#include "framework/framework.h"
#include "objectives/problem.h"

/* Finds `objective (` in a user source and whether its parameters name a
 * global pointer (the optional data argument). */
static int takes_data(const char *source) {
  for (const char *at = strstr(source, "objective"); at;
       at = strstr(at + 1, "objective")) {
    const char *c = at + 9;
    while (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r')
      ++c;
    if (*c != '(')
      continue;
    const char *close = strchr(c, ')');
    const char *global = strstr(c, "global");
    return close && global && global < close;
  }
  return 0;
}

/* Whether the word `objective` stands anywhere in a user source: a
 * source without it cannot define the function, and its build would fail
 * in clkit's header that calls it rather than in the user's file. */
static int names_objective(const char *source) {
  static const char word[] = "objective";
  for (const char *at = strstr(source, word); at; at = strstr(at + 1, word)) {
    char before = at == source ? ' ' : at[-1];
    char after = at[sizeof word - 1];
    if (!isalnum((unsigned char)before) && before != '_' &&
        !isalnum((unsigned char)after) && after != '_')
      return 1;
  }
  return 0;
}

const ck__field_word ck__bounds_words[] = {{"clamp", CK_BOUNDS_MODE_CLAMP},
                                           {"reflect", CK_BOUNDS_MODE_REFLECT},
                                           {"random", CK_BOUNDS_MODE_RANDOM},
                                           {NULL, 0}};
const ck__field_word ck__precision_words[] = {
    {"float", 0}, {"double", 1}, {NULL, 0}};
const ck__field_word ck__lsq_mode_words[] = {{"auto", CK_PSO_LSQ_AUTO},
                                             {"group", CK_PSO_LSQ_GROUP},
                                             {"thread", CK_PSO_LSQ_THREAD},
                                             {"vector", CK_PSO_LSQ_VECTOR},
                                             {NULL, 0}};
const ck__field_word ck__automatic_words[] = {{"auto", 0}, {NULL, 0}};

ck_status ck__problem_data_check(const char *config,
                                 const ck_objective_info *info, int has_data) {
  if (has_data && info && info->id != CK_OBJECTIVE_LSQ)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s.data: the function %s takes no data; lsq and user "
                    "objectives do",
                    config, info->name);
  return CK_OK;
}

/* Checks which objective the spec asks for: a host objective, a user
 * source or a built-in function (its info in problem->info), each with
 * only the settings that go with it. */
static ck_status check_objective(ck__problem *problem,
                                 const ck__problem_spec *spec) {
  ck_status status = CK_OK;
  const char *config = spec->config;
  if (spec->host) {
    if (spec->source || (spec->function && strcmp(spec->function, "host")))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s.%s: a host objective takes no function or "
                      "objective_source (set them NULL)",
                      config, spec->source ? "objective_source" : "function");
    if (spec->data)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s.data: a host objective takes no data", config);
  } else if (spec->source) {
    if (spec->function && strcmp(spec->function, "user") != 0)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s.function: give a function or an "
                      "objective_source, not both",
                      config);
  } else {
    if (!spec->function)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s.function: no objective function given", config);
    if ((status = ck_objective_find(spec->function, &problem->info)))
      return ck__fail_prefix(status, "%s.function: ", config);
    if (problem->info->id == CK_OBJECTIVE_LSQ &&
        (!spec->data || spec->data->rows == 0))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s.data: the function lsq needs data", config);
    if (problem->info->id == CK_OBJECTIVE_LSQ &&
        (!spec->data->a || !spec->data->b))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s.data: the data set's arrays a and b are required",
                      config);
  }
  return CK_OK;
}

/* Checks the spec's domain lo..hi over dim dimensions: given together
 * (and given at all for host and user objectives), finite, within the
 * precision and not empty. */
static ck_status check_domain(const ck__problem_spec *spec, int dim) {
  const char *config = spec->config;
  if ((spec->source || spec->host) && (!spec->lo || !spec->hi))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s.lo: a %s objective needs its domain: give lo and "
                    "hi",
                    config, spec->host ? "host" : "user");
  if (!spec->lo != !spec->hi)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s.lo: lo and hi go together",
                    config);
  for (int d = 0; spec->lo && d < dim; ++d) {
    if (!isfinite(spec->lo[d]) || !isfinite(spec->hi[d]))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s.lo: dimension %d of lo or hi is not finite", config,
                      d);
    /* Single precision would make a wider domain infinite. */
    if (!spec->double_precision &&
        (fabs(spec->lo[d]) > FLT_MAX || fabs(spec->hi[d]) > FLT_MAX))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s.lo: dimension %d's bound %g is beyond single "
                      "precision (give double_precision)",
                      config, d,
                      fabs(spec->lo[d]) > FLT_MAX ? spec->lo[d] : spec->hi[d]);
    if (!(spec->lo[d] < spec->hi[d]))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s.lo: lo (%g) must be below hi (%g) in dimension %d",
                      config, spec->lo[d], spec->hi[d], d);
  }
  return CK_OK;
}

/* Copies a user objective's source and name into problem, and checks that
 * it defines objective and takes data exactly when the spec gives some.
 * What was copied is freed with the problem, by the caller. */
static ck_status adopt_user_source(ck__problem *problem,
                                   const ck__problem_spec *spec) {
  ck_status status = CK_OK;
  const char *config = spec->config;
  problem->user_source = strdup(spec->source);
  problem->user_name =
      strdup(spec->source_name ? spec->source_name : "objective.cl");
  if (!problem->user_source || !problem->user_name)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  if (!names_objective(problem->user_source))
    CK_FAIL(CK_ERROR_PARSE,
            "%s: no function objective here; a user objective is OpenCL C "
            "defining float objective(const float *x, int dim[, __global "
            "const float *data])",
            problem->user_name);
  problem->user_has_data = takes_data(problem->user_source);
  if (problem->user_has_data && !spec->data)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "%s.data: the objective in %s takes a data argument: give "
            "data",
            config, problem->user_name);
  if (!problem->user_has_data && spec->data)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "%s.data: the objective in %s takes no data argument "
            "(objective(x, dim, __global const float *data))",
            config, problem->user_name);
fail:
  return status;
}

ck_status ck__problem_init(ck__problem *problem, const ck_device *device,
                           const ck__problem_spec *spec) {
  ck_status status = CK_OK;
  const char *config = spec->config;
  memset(problem, 0, sizeof *problem);
  if ((status = check_objective(problem, spec)))
    return status;
  int lsq = problem->info && problem->info->id == CK_OBJECTIVE_LSQ;
  if (lsq && (spec->data->dim < 1 || spec->data->dim > CK__MAX_DIM))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s.data: the data set has %zu coefficients; lsq takes "
                    "1 to %d",
                    config, spec->data->dim, CK__MAX_DIM);
  int dim = lsq ? (int)spec->data->dim : spec->dim;
  const ck__field *fields = spec->fields;
  if ((status = ck__field_check_value(config, &fields[CK__PROBLEM_DIM], dim)))
    return status;
  if (spec->source && dim > CK__MAX_USER_DIM)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s.dim: user objectives take at most %d dimensions",
                    config, CK__MAX_USER_DIM);
  if (spec->double_precision && !device->has_fp64)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s.double_precision: device %s has no fp64", config,
                    device->id);
  if ((spec->has_target &&
       (status = ck__field_check_value(config, &fields[CK__PROBLEM_TARGET],
                                       spec->target))) ||
      (status = ck__field_check_value(config, &fields[CK__PROBLEM_TIME],
                                      spec->max_seconds)))
    return status;
  if ((status = check_domain(spec, dim)))
    return status;
  if (lsq && spec->data->rows * (spec->data->dim + 1) > 0xFFFFFFFFu)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s.data: %zu rows of %zu values exceed 2^32 values",
                    config, spec->data->rows, spec->data->dim + 1);

  problem->objective = problem->info ? problem->info->id
                       : spec->host  ? CK_OBJECTIVE_HOST
                                     : CK_OBJECTIVE_USER;
  problem->streamed = problem->objective < CK_OBJECTIVE_STREAMED_COUNT;
  problem->dim = dim;
  problem->data = spec->data;
  problem->double_precision = spec->double_precision ? 1 : 0;
  problem->real_size =
      problem->double_precision ? sizeof(double) : sizeof(float);
  problem->lo = malloc((size_t)dim * sizeof *problem->lo);
  problem->hi = malloc((size_t)dim * sizeof *problem->hi);
  if (!problem->lo || !problem->hi)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (int d = 0; d < dim; ++d) {
    problem->lo[d] = spec->lo ? spec->lo[d] : problem->info->lo;
    problem->hi[d] = spec->hi ? spec->hi[d] : problem->info->hi;
  }
  if (spec->source)
    CK_TRY(adopt_user_source(problem, spec));
  else if (!spec->host)
    CK_TRY(ck__problem_data_check(config, problem->info, spec->data != NULL));
  return CK_OK;
fail:
  ck__problem_free(problem);
  return status;
}

double ck__objective_term_flops(const char *fn) {
  /* Each term as cl/ck_objectives.h writes it, its running sum included:
   * rastrigin's x^2 + 20 sin^2(pi x) is x*x, pi*x, sin, a square, 20*,
   * and two adds. */
  static const struct {
    const char *name;
    double flops;
  } terms[] = {{"sphere", 2},      {"rastrigin", 7},       {"rosenbrock", 8},
               {"griewank", 7},    {"ackley", 5},          {"schwefel", 4},
               {"michalewicz", 8}, {"styblinski-tang", 7}, {"f1", 6},
               {"f2", 8}};
  for (size_t i = 0; fn && i < sizeof terms / sizeof *terms; ++i)
    if (strcmp(terms[i].name, fn) == 0)
      return terms[i].flops;
  return NAN;
}

void ck__host_rows(const double *columns, size_t n, size_t dim, double *rows) {
  for (size_t d = 0; d < dim; ++d)
    for (size_t p = 0; p < n; ++p)
      rows[p * dim + d] = columns[d * n + p];
}

void ck__host_values(int double_precision, const double *f, double *out,
                     size_t count) {
  double largest = double_precision ? DBL_MAX : FLT_MAX;
  for (size_t i = 0; i < count; ++i) {
    double value = f[i];
    if (!(value <= largest))
      value = largest;
    else if (value < -largest)
      value = -largest;
    out[i] = value;
  }
}

ck_status ck__state_arrays(const char *function, const char *type,
                           const double *const *arrays, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (!arrays[i])
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s: an array of the %s is NULL", function, type);
  return CK_OK;
}

ck_status ck__state_seed(const char *function, const char *what, uint64_t seed,
                         uint64_t own) {
  if (seed == own)
    return CK_OK;
  return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                  "%s: the state's seed %llu is not the %s's %llu; make the "
                  "%s with the state's seed",
                  function, (unsigned long long)seed, what,
                  (unsigned long long)own, what);
}

ck_status ck__state_finite(const char *function, const char *name,
                           const double *values, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (!isfinite(values[i]))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s: %s[%zu] is %g; it must be finite", function, name, i,
                      values[i]);
  return CK_OK;
}

/* CK_OK when value, named name (and index, unless empty), is a real of
 * the precision's range, else CK_ERROR_INVALID_ARGUMENT. */
static ck_status state_real(const char *function, const char *name,
                            const char *index, double value,
                            int double_precision) {
  double largest = double_precision ? DBL_MAX : FLT_MAX;
  if (value >= -largest && value <= largest)
    return CK_OK;
  return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                  "%s: %s%s is %g; a state holds values from %g to %g, the "
                  "reals of its %s precision (a NaN told is the largest)",
                  function, name, index, value, -largest, largest,
                  double_precision ? "double" : "single");
}

ck_status ck__state_values(const char *function, const char *name,
                           int double_precision, const double *values,
                           size_t count) {
  ck_status status = CK_OK;
  for (size_t i = 0; i < count && status == CK_OK; ++i) {
    char index[32];
    snprintf(index, sizeof index, "[%zu]", i);
    status = state_real(function, name, index, values[i], double_precision);
  }
  return status;
}

/* value as the optimiser holds it: in its precision (past the float
 * range, where the cast would overflow, as it is). */
static double held(double value, int double_precision) {
  return double_precision || !(fabs(value) <= FLT_MAX) ? value
                                                       : (double)(float)value;
}

ck_status ck__state_bests_check(const char *function, int double_precision,
                                const ck__state_bests *bests) {
  double largest = double_precision ? DBL_MAX : FLT_MAX;
  ck_status status =
      ck__state_values(function, bests->values_name, double_precision,
                       bests->values, bests->count);
  if (status == CK_OK)
    status = state_real(function, bests->best_name, "", bests->best,
                        double_precision);
  if (status)
    return status;
  size_t least = 0;
  for (size_t i = 0; i < bests->count; ++i) {
    double value = held(bests->values[i], double_precision);
    if (bests->tells == 0 && value < largest)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s: %s[%zu] is %g, but tells is 0: with nothing told, "
                      "every value is %g",
                      function, bests->values_name, i, bests->values[i],
                      largest);
    if (value < held(bests->values[least], double_precision))
      least = i;
  }
  double best = held(bests->best, double_precision);
  if (bests->count && best != held(bests->values[least], double_precision))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: %s is %g, not the least of %s, %g (entry %zu)",
                    function, bests->best_name, bests->best, bests->values_name,
                    bests->values[least], least);
  if (best >= largest)
    return CK_OK;
  size_t dim = bests->dim;
  for (size_t i = 0; i < bests->count; ++i) {
    if (held(bests->values[i], double_precision) != best)
      continue;
    size_t d = 0;
    while (d < dim && held(bests->positions[i * dim + d], double_precision) ==
                          held(bests->position[d], double_precision))
      ++d;
    if (d == dim)
      return CK_OK;
  }
  return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                  "%s: %s is not the row of %s of an entry of %s equal to "
                  "%s, %g",
                  function, bests->position_name, bests->positions_name,
                  bests->values_name, bests->best_name, bests->best);
}

ck_status ck__values_write(ck_queue *queue, ck_buffer *buffer,
                           int double_precision, double *scratch,
                           const double *values, size_t count) {
  ck__host_values(double_precision, values, scratch, count);
  return ck__reals_write(queue, buffer, double_precision, scratch, count);
}

ck_status ck__rows_read(ck_queue *queue, ck_buffer *buffer,
                        int double_precision, double *columns, size_t n,
                        size_t dim, double *rows) {
  ck_status status =
      ck__reals_read(queue, buffer, double_precision, columns, n * dim);
  if (status == CK_OK)
    ck__host_rows(columns, n, dim, rows);
  return status;
}

/* The transpose of ck__host_rows is ck__host_rows with the sizes
 * swapped. */
ck_status ck__rows_write(ck_queue *queue, ck_buffer *buffer,
                         int double_precision, double *columns, size_t n,
                         size_t dim, const double *rows) {
  ck__host_rows(rows, dim, n, columns);
  return ck__reals_write(queue, buffer, double_precision, columns, n * dim);
}

/* A failed objective callback: config's field, what it is. */
static ck_status callback_failed(const char *config, const char *field,
                                 const char *what, ck_status status,
                                 const char *step, uint64_t number) {
  const char *name = "an unknown status";
  ck_status_get_name(status, &name);
  return ck__fail(status,
                  "%s.%s: the %s returned %s at %s %llu (0: the "
                  "initial one)",
                  config, field, what, name, step, (unsigned long long)number);
}

ck_status ck__host_failed(const char *config, ck_status status,
                          const char *step, uint64_t number) {
  return callback_failed(config, "evaluate", "host objective", status, step,
                         number);
}

/* CK_OK when a batch's value fields name values (what names the caller),
 * else CK_ERROR_INVALID_ARGUMENT. */
static ck_status values_named(const ck_device_batch *batch, const char *what) {
  if (!batch->values || (batch->value_size != 4 && batch->value_size != 8) ||
      batch->value_stride == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: no values, or values of %zu bytes %zu apart (4 or "
                    "8 bytes, 1 or more apart)",
                    what, batch->value_size, batch->value_stride);
  return CK_OK;
}

/* The values a device objective left in host memory, as doubles, into
 * f. */
static void host_values_read(const ck_device_batch *batch, double *f) {
  const unsigned char *from = batch->values;
  size_t step = batch->value_stride * batch->value_size;
  for (size_t i = 0; i < batch->count; ++i) {
    if (batch->value_size == 8) {
      memcpy(&f[i], from + i * step, sizeof f[i]);
    } else {
      float value;
      memcpy(&value, from + i * step, sizeof value);
      f[i] = value;
    }
  }
}

/* The values a device objective left in host memory, made comparable,
 * into values. */
static ck_status take_host_values(const ck_device_batch *batch, ck_queue *queue,
                                  ck_buffer *values) {
  double *f = malloc(batch->count * sizeof *f);
  if (!f)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of host memory for a device objective's values");
  host_values_read(batch, f);
  ck_status status = ck__values_write(queue, values, batch->real_size == 8, f,
                                      f, batch->count);
  free(f);
  return status;
}

ck_status ck_device_batch_read_values(const ck_device_batch *batch,
                                      double *values) {
  CK__REQUIRE(batch);
  CK__REQUIRE(values);
  ck_status status = values_named(batch, "ck_device_batch_read_values");
  if (status)
    return status;
  if (batch->values_on_host) {
    host_values_read(batch, values);
    return CK_OK;
  }
  if (batch->ordinal >= 0)
    return ck__lent_values_read(batch->ordinal, batch->stream, batch->values,
                                batch->value_size, batch->value_stride, values,
                                batch->count);
  return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                  "ck_device_batch_read_values: values in device memory are "
                  "read from a CUDA device only (ordinal %d)",
                  batch->ordinal);
}

void ck__batch_host_free(ck__batch_host *host, ck_queue *queue) {
  ck__host_free(queue, host->memory);
  ck__lent_mark_free(host->taken[0]);
  ck__lent_mark_free(host->taken[1]);
  *host = (ck__batch_host){0};
}

/* The order between the batch's stream and another (after: the batch's
 * waits for it; else it waits for the batch's). */
static ck_status order_streams(const ck_device_batch *batch, void *stream,
                               int after, const char *function) {
  if (!batch)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: batch is NULL", function);
  if (batch->x_on_host)
    return CK_OK;
  return after ? ck__lent_stream_wait(batch->ordinal, stream, batch->stream)
               : ck__lent_stream_wait(batch->ordinal, batch->stream, stream);
}

ck_status ck_device_batch_wait(const ck_device_batch *batch, void *stream) {
  return order_streams(batch, stream, 0, "ck_device_batch_wait");
}

ck_status ck_device_batch_after(const ck_device_batch *batch, void *stream) {
  return order_streams(batch, stream, 1, "ck_device_batch_after");
}

/* Positions lent in place (a CUDA device): complete, or (ordered) ready
 * in the queue's order once the call before the last had its values
 * taken, so that the caller's values of that call may go. */
static ck_status lend_batch(ck_queue *queue, ck_buffer *x, ck__batch_host *host,
                            int ordered, ck_device_batch *batch) {
  ck_status status = CK_OK;
  void *address = NULL;
  CK_TRY(ck__queue_lend(queue, x, &address, &batch->ordinal, &batch->stream));
  batch->x = address;
  if (ordered)
    return ck__lent_mark_wait(batch->ordinal, host->taken[host->next]);
  status = ck_queue_finish(queue);
fail:
  return status;
}

static ck_status open_batch(ck_queue *queue, ck_buffer *x, size_t count,
                            size_t dim, size_t real_size, ck__batch_host *host,
                            int ordered, ck_device_batch *batch) {
  ck_status status = CK_OK;
  const ck_device *device = NULL;
  *batch = (ck_device_batch){.count = count,
                             .dim = dim,
                             .stride = count,
                             .real_size = real_size,
                             .ordinal = -1};
  ck_queue_get_device(queue, &device);
  if (ck__device_lends_memory(device))
    return lend_batch(queue, x, host, ordered, batch);
  CK_TRY(ck_queue_finish(queue));
  /* Elsewhere a copy in the queue's page-locked memory, which the
   * device's runtime moves at full speed (and NumPy reads in place). */
  size_t bytes = count * dim * real_size;
  if (host->size < bytes) {
    ck__batch_host_free(host, queue);
    CK_TRY(ck__host_alloc(queue, bytes, &host->memory));
    host->size = bytes;
  }
  CK_TRY(ck_buffer_read(queue, x, 0, bytes, host->memory, CK_BLOCKING, NULL));
  batch->x = host->memory;
  batch->x_on_host = 1;
fail:
  return status;
}

ck_status ck__device_batch_open(ck_queue *queue, ck_buffer *x, size_t count,
                                size_t dim, size_t real_size,
                                ck__batch_host *host, ck_device_batch *batch) {
  return open_batch(queue, x, count, dim, real_size, host, 0, batch);
}

ck_status ck__device_batch_take(const ck_device_batch *batch, ck_queue *queue,
                                ck_buffer *values, size_t count,
                                size_t real_size, const char *what) {
  ck_status status = values_named(batch, what);
  if (status)
    return status;
  if (batch->count != count || batch->real_size != real_size)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the batch holds %zu values for positions of %zu "
                    "bytes, not the %zu of %zu asked",
                    what, batch->count, batch->real_size, count, real_size);
  if (batch->values_on_host)
    return take_host_values(batch, queue, values);
  const ck_device *device = NULL;
  ck_queue_get_device(queue, &device);
  if (ck__device_lends_memory(device))
    return ck__queue_take_lent_values(queue, batch->values, batch->value_size,
                                      batch->value_stride, values,
                                      batch->real_size, batch->count);
  return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                  "%s: values in device memory are taken from a CUDA device "
                  "only; on %s give them in host memory (values_on_host 1)",
                  what, device->id);
}

ck_status ck__device_objective_call(const ck__device_objective *objective,
                                    ck_queue *queue, ck_buffer *x, size_t count,
                                    size_t dim, size_t real_size,
                                    ck_buffer *values, uint64_t number) {
  ck_device_batch batch;
  ck__batch_host *host = objective->host;
  ck_status status = open_batch(queue, x, count, dim, real_size, host,
                                objective->ordered, &batch);
  if (status)
    return status;
  status = objective->function(&batch, objective->user);
  if (status)
    return callback_failed(objective->config, "evaluate_device",
                           "device objective", status, objective->step, number);
  char what[64];
  snprintf(what, sizeof what, "%s.evaluate_device", objective->config);
  status = ck__device_batch_take(&batch, queue, values, count, real_size, what);
  if (status || !objective->ordered || batch.x_on_host)
    return status;
  /* This call's mark takes the older's place: the next call waits for
   * the mark before it. */
  status = ck__lent_mark_record(batch.ordinal, batch.stream,
                                &host->taken[host->next]);
  host->next ^= 1;
  return status;
}

void ck__problem_free(ck__problem *problem) {
  free(problem->lo);
  free(problem->hi);
  free(problem->user_source);
  free(problem->user_name);
  memset(problem, 0, sizeof *problem);
}

ck_status ck__problem_upload(const ck__problem *problem, ck_queue *queue,
                             ck_buffer **buffer) {
  ck_status status;
  const ck_lsq_data *data = problem->data;
  int lsq = problem->objective == CK_OBJECTIVE_LSQ;
  if (!data || (!lsq && !problem->user_has_data))
    return ck__buffer_make(queue, sizeof(float), buffer);
  size_t columns = data->dim + 1, count = data->rows * columns;
  double *arranged = malloc(count * sizeof *arranged);
  if (!arranged)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of host memory for %zu data values", count);
  for (size_t j = 0; j < data->rows; ++j) {
    for (size_t k = 0; k <= data->dim; ++k) {
      double value = k < data->dim ? data->a[j * data->dim + k] : data->b[j];
      if (lsq)
        arranged[k * data->rows + j] = value;
      else
        arranged[j * columns + k] = value;
    }
  }
  int double_precision = lsq ? problem->double_precision : 0;
  status = ck__buffer_make(
      queue, count * (double_precision ? sizeof(double) : sizeof(float)),
      buffer);
  if (!status)
    status = ck__reals_write(queue, *buffer, double_precision, arranged, count);
  free(arranged);
  return status;
}

uint32_t ck__group_size(const ck_device *device) {
  size_t limit =
      ck__device_runs_kernels(device) ? device->max_work_group_size : 256;
  uint32_t group = 1;
  while (group * 2 <= 256 && group * 2 <= limit)
    group *= 2;
  return group;
}

uint32_t ck__vector_group(const ck_device *device, size_t items,
                          uint32_t group) {
  size_t units = device->compute_units ? device->compute_units : 1;
  while (group > 1 && (items + group - 1) / group < units)
    group /= 2;
  return group;
}

ck__lsq_plan ck__lsq_plan_choose(const ck_device *device, ck_pso_lsq_mode mode,
                                 size_t points, size_t rows, uint32_t group,
                                 int double_precision) {
  ck__lsq_plan plan = {0, 1, 1, group};
  size_t units = device->compute_units ? device->compute_units : 1;
  /* Vector mode is OpenCL C: CUDA devices and ref evaluate in order, a
   * point at a time, which gives the same bits. */
  int vectors = ck__device_has_vector_types(device);
  /* On GPUs few points leave most of the device idle in thread mode. On
   * CPUs (PoCL, 2 cores) vector mode outran group mode from 4 points
   * up, and thread mode by 12 times. */
  if (mode == CK_PSO_LSQ_AUTO && device->kind != CK_KIND_GPU && vectors)
    mode = CK_PSO_LSQ_VECTOR;
  else if (mode == CK_PSO_LSQ_AUTO)
    mode = points < units * group / 8 ? CK_PSO_LSQ_GROUP : CK_PSO_LSQ_THREAD;
  if (mode == CK_PSO_LSQ_GROUP) {
    /* Enough work-groups for four a compute unit, none with fewer rows
     * than work-items. */
    size_t chunks = (4 * units + points - 1) / (points ? points : 1);
    size_t most = rows / group ? rows / group : 1;
    plan.group_mode = 1;
    plan.chunks = (uint32_t)(chunks < most ? chunks : most);
  } else if (mode == CK_PSO_LSQ_VECTOR && vectors) {
    /* 512 bits a vector; work-groups small enough to give every compute
     * unit one. */
    plan.lanes = double_precision ? 8u : 16u;
    plan.local = ck__vector_group(
        device, (points + plan.lanes - 1) / plan.lanes, plan.local);
  }
  return plan;
}

ck_status ck__evaluation_create(ck__evaluation *evaluation, ck_program *program,
                                const ck__problem *problem, uint32_t n,
                                uint32_t rows, const ck__lsq_plan *plan,
                                uint32_t group, ck_buffer *data,
                                ck_buffer *partial, ck_buffer *done) {
  ck_status status = CK_OK;
  *evaluation = (ck__evaluation){.objective = problem->objective,
                                 .plan = *plan,
                                 .n = n,
                                 .group = group,
                                 .dim = problem->dim,
                                 .rows = rows,
                                 .data = data,
                                 .partial = partial,
                                 .done = done};
  const char *name = evaluation->plan.lanes > 1 ? "ck_evaluate_lsq_vector"
                                                : "ck_evaluate_lsq_thread";
  if (evaluation->objective == CK_OBJECTIVE_USER) {
    evaluation->plan = (ck__lsq_plan){0, 1, 1, group};
    name = "ck_evaluate_user";
  } else if (evaluation->plan.group_mode) {
    name = "ck_evaluate_lsq_group";
    CK_TRY(ck_kernel_create(program, "ck_evaluate_lsq_finish",
                            &evaluation->finish));
  }
  CK_TRY(ck_kernel_create(program, name, &evaluation->kernel));
  return CK_OK;
fail:
  ck__evaluation_destroy(evaluation);
  return status;
}

static ck_status launch_points(ck_queue *queue, ck_kernel *kernel, size_t n,
                               size_t group) {
  size_t global = (n + group - 1) / group * group;
  return ck_queue_launch(queue, kernel, 1, &global, &group, NULL);
}

/* Every argument, at every run: the points and their values may change
 * between runs (cl/ck_evaluate.h has the kernels). */
ck_status ck__evaluation_run(ck__evaluation *evaluation, ck_queue *queue,
                             ck_buffer *points, ck_buffer *values) {
  ck_status status = CK_OK;
  const ck__evaluation *e = evaluation;
  ck_kernel_args args;
  ck_kernel_args_begin(e->kernel, &args);
  ck_kernel_args_u32(&args, e->n);
  ck_kernel_args_i32(&args, e->dim);
  if (e->objective == CK_OBJECTIVE_USER) {
    ck_kernel_args_buffer(&args, points);
    ck_kernel_args_buffer(&args, values);
    ck_kernel_args_buffer(&args, e->data);
    ck_kernel_args_buffer(&args, e->done);
    CK_TRY(ck_kernel_args_end(&args));
    return launch_points(queue, e->kernel, e->n, e->group);
  }
  ck_kernel_args_u32(&args, e->rows);
  if (e->plan.group_mode) {
    ck_kernel_args_u32(&args, e->plan.chunks);
    ck_kernel_args_buffer(&args, e->data);
    ck_kernel_args_buffer(&args, points);
    ck_kernel_args_buffer(&args, e->partial);
    ck_kernel_args_buffer(&args, e->done);
    CK_TRY(ck_kernel_args_end(&args));
    ck_kernel_args_begin(e->finish, &args);
    ck_kernel_args_u32(&args, e->n);
    ck_kernel_args_u32(&args, e->plan.chunks);
    ck_kernel_args_buffer(&args, e->partial);
    ck_kernel_args_buffer(&args, values);
    ck_kernel_args_buffer(&args, e->done);
    CK_TRY(ck_kernel_args_end(&args));
    size_t local = e->group, global = (size_t)e->n * e->plan.chunks * e->group;
    CK_TRY(ck_queue_launch(queue, e->kernel, 1, &global, &local, NULL));
    return launch_points(queue, e->finish, e->n, e->group);
  }
  /* Thread and vector modes take the same arguments. */
  ck_kernel_args_buffer(&args, e->data);
  ck_kernel_args_buffer(&args, points);
  ck_kernel_args_buffer(&args, values);
  ck_kernel_args_buffer(&args, e->done);
  CK_TRY(ck_kernel_args_end(&args));
  size_t items = (e->n + e->plan.lanes - 1) / e->plan.lanes;
  return launch_points(queue, e->kernel, items, e->plan.local);
fail:
  return status;
}

void ck__evaluation_destroy(ck__evaluation *evaluation) {
  ck_kernel_destroy(evaluation->kernel);
  ck_kernel_destroy(evaluation->finish);
  evaluation->kernel = evaluation->finish = NULL;
}
