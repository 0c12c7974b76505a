/*
 * pso.c - the PSO driver: configuration checks, the swarm's buffers, and
 * the algorithm's loop over a backend's steps (ref or OpenCL).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ck_objectives.h"
#include "core/workload_internal.h"
#include "pso/pso_internal.h"

enum {
  HISTORY_CAPACITY = 1024,    /* device-side best values between reads */
  DIRECT_REDUCTION = 16,      /* one group folds up to this many per item */
  MAX_DIM = 100000,
  MAX_USER_DIM = 4096         /* user objectives copy x to private memory */
};

struct ck_pso {
  pso_state state;
  const ck__pso_steps *steps;
  ck_pso_config config;
  double *lo, *hi;        /* the domain, dim entries */
  uint64_t iterations;    /* moves made */
  uint32_t history_used;  /* device entries not yet read */
  double *history;        /* host copy of the best after each iteration */
  size_t history_count, history_allocated;
  double build_seconds;
  char *user_source;      /* owned copies of the configuration's strings */
  char *user_name;
};

pso_state *ck__pso_state(ck_pso *pso) { return &pso->state; }

ck_status ck_pso_config_init(ck_pso_config *config) {
  if (!config)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_pso_config_init: NULL");
  memset(config, 0, sizeof *config);
  config->function = "sphere";
  config->dim = 30;
  config->particles = 1024;
  config->w = 0.7298;
  config->c1 = 1.49618;
  config->c2 = 1.49618;
  config->velocity_init = 0.5;
  config->vmax = 1.0;
  config->bounds = CK_BOUNDS_MODE_CLAMP;
  config->seed = 1;
  config->max_iterations = 1000;
  return CK_OK;
}

/* Finds `objective (` in a user source and whether its parameters name a
 * global pointer (the optional data argument). */
static int takes_data(const char *source) {
  for (const char *at = strstr(source, "objective"); at;
       at = strstr(at + 1, "objective")) {
    const char *c = at + 9;
    while (*c == ' ' || *c == '\t' || *c == '\n')
      ++c;
    if (*c != '(')
      continue;
    const char *close = strchr(c, ')');
    if (!close)
      return 0;
    for (const char *g = strstr(c, "global"); g && g < close;
         g = strstr(g + 1, "global"))
      return 1;
    return 0;
  }
  return 0;
}

static ck_status check_config(const ck_device *device,
                              const ck_pso_config *c,
                              const ck_objective_info **info) {
  *info = NULL;
  if (c->objective_source) {
    if (c->function && strcmp(c->function, "user") != 0)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "give either --fn or --objective, not both");
  } else {
    if (!c->function)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "option --fn: no objective function given");
    ck_status status = ck_objective_find(c->function, info);
    if (status)
      return ck__fail(status, "option --fn: unknown function '%s' (known: "
                      "sphere rastrigin rosenbrock griewank ackley schwefel "
                      "michalewicz styblinski-tang f1 f2 lsq)",
                      c->function);
    if ((*info)->id == CK_OBJECTIVE_LSQ && (!c->data || c->data->rows == 0))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "option --fn lsq needs --data FILE");
  }
  int dim = *info && (*info)->id == CK_OBJECTIVE_LSQ ? (int)c->data->dim
                                                      : c->dim;
  if (dim < 1 || dim > MAX_DIM)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --dim: %d is outside [1, %d]", c->dim, MAX_DIM);
  if (c->objective_source && dim > MAX_USER_DIM)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --dim: user objectives take at most %d dimensions",
                    MAX_USER_DIM);
  if (c->particles < 1 || c->particles > 0x7FFFFFFFu)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --particles: %zu is outside [1, 2^31)",
                    c->particles);
  if (!isfinite(c->w) || !isfinite(c->c1) || !isfinite(c->c2) || c->c1 < 0 ||
      c->c2 < 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "options --w, --c1, --c2 must be finite, c1 and c2 >= 0");
  if (c->constriction && c->c1 + c->c2 <= 4)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --constriction needs c1 + c2 > 4 (got %g)",
                    c->c1 + c->c2);
  if (c->ring_neighbours == 1 || c->ring_neighbours < 0 ||
      (size_t)c->ring_neighbours > c->particles)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --topology ring:%d: the neighbourhood must hold 2 "
                    "to %zu particles",
                    c->ring_neighbours, c->particles);
  if (!(c->velocity_init >= 0) || !(c->vmax > 0) || !isfinite(c->vmax) ||
      !isfinite(c->velocity_init))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "options --vinit must be >= 0 and --vmax > 0, both finite");
  if ((unsigned)c->bounds > CK_BOUNDS_MODE_RANDOM)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "option --bounds: unknown mode");
  if (c->double_precision && !device->has_fp64)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --precision double: device %s has no fp64",
                    device->id);
  if (c->has_target && !isfinite(c->target))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "option --target must be finite");
  if (c->max_seconds < 0 || !isfinite(c->max_seconds))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --time must be a finite number of seconds >= 0");
  if (c->objective_source && (!c->lo || !c->hi))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "a user objective needs its domain: give --lo and --hi");
  if (c->lo || c->hi) {
    if (!c->lo || !c->hi)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "options --lo and --hi go together");
    for (int d = 0; d < dim; ++d) {
      if (!isfinite(c->lo[d]) || !isfinite(c->hi[d]))
        return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                        "options --lo/--hi: dimension %d is not finite", d);
      if (!(c->lo[d] < c->hi[d]))
        return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                        "options --lo/--hi: lo (%g) must be below hi (%g) in "
                        "dimension %d",
                        c->lo[d], c->hi[d], d);
    }
  }
  if (*info && (*info)->id == CK_OBJECTIVE_LSQ &&
      c->data->rows * (c->data->dim + 1) > 0xFFFFFFFFu)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --data: %zu rows of %zu values exceed 2^32 values",
                    c->data->rows, c->data->dim + 1);
  return CK_OK;
}

/* Writes count doubles into a buffer of reals of the swarm's precision. */
static ck_status write_reals(pso_state *s, ck_buffer *buffer,
                             const double *values, size_t count) {
  ck_status status;
  void *staging = malloc(count * s->real_size);
  if (!staging)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (size_t i = 0; i < count; ++i) {
    if (s->double_precision)
      ((double *)staging)[i] = values[i];
    else
      ((float *)staging)[i] = (float)values[i];
  }
  status = ck_buffer_write(s->queue, buffer, 0, count * s->real_size, staging,
                           CK_BLOCKING, NULL);
  free(staging);
  return status;
}

static ck_status read_reals(pso_state *s, ck_buffer *buffer, double *values,
                            size_t count) {
  ck_status status;
  void *staging = malloc(count * s->real_size);
  if (!staging)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  status = ck_buffer_read(s->queue, buffer, 0, count * s->real_size, staging,
                          CK_BLOCKING, NULL);
  for (size_t i = 0; status == CK_OK && i < count; ++i)
    values[i] = s->double_precision ? ((double *)staging)[i]
                                    : (double)((float *)staging)[i];
  free(staging);
  return status;
}

static ck_status make_buffer(pso_state *s, size_t bytes, ck_buffer **buffer) {
  return ck_buffer_create(s->queue, bytes ? bytes : 1, buffer);
}

/* Copies the data set to the device: lsq column-major, user rows as they
 * come (row-major floats). */
static ck_status upload_data(pso_state *s, const ck_lsq_data *data) {
  ck_status status;
  size_t columns = data->dim + 1, count = data->rows * columns;
  double *arranged = malloc(count * sizeof *arranged);
  if (!arranged)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of host memory for %zu data values", count);
  for (size_t j = 0; j < data->rows; ++j) {
    for (size_t k = 0; k <= data->dim; ++k) {
      double value = k < data->dim ? data->a[j * data->dim + k] : data->b[j];
      if (s->objective == CK_OBJECTIVE_LSQ)
        arranged[k * data->rows + j] = value;
      else
        arranged[j * columns + k] = value;
    }
  }
  if (s->objective == CK_OBJECTIVE_LSQ) {
    status = make_buffer(s, count * s->real_size, &s->data);
    if (!status)
      status = write_reals(s, s->data, arranged, count);
  } else {
    float *narrow = (float *)arranged; /* in place: floats are smaller */
    for (size_t i = 0; i < count; ++i)
      narrow[i] = (float)arranged[i];
    status = make_buffer(s, count * sizeof(float), &s->data);
    if (!status)
      status = ck_buffer_write(s->queue, s->data, 0, count * sizeof(float),
                               narrow, CK_BLOCKING, NULL);
  }
  free(arranged);
  return status;
}

static uint32_t group_size(const ck_device *device) {
  size_t limit = device->backend == CK_BACKEND_REF ? 256
                                                   : device->max_work_group_size;
  uint32_t group = 1;
  while (group * 2 <= 256 && group * 2 <= limit)
    group *= 2;
  return group;
}

/* Reads the device's history entries not yet seen. */
static ck_status flush_history(ck_pso *pso) {
  pso_state *s = &pso->state;
  if (pso->history_used == 0)
    return CK_OK;
  if (pso->history_count + pso->history_used > pso->history_allocated) {
    size_t allocated = pso->history_allocated ? 2 * pso->history_allocated
                                              : 4096;
    while (allocated < pso->history_count + pso->history_used)
      allocated *= 2;
    double *grown = realloc(pso->history, allocated * sizeof *grown);
    if (!grown)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for history");
    pso->history = grown;
    pso->history_allocated = allocated;
  }
  ck_status status = read_reals(s, s->history,
                                pso->history + pso->history_count,
                                pso->history_used);
  if (status)
    return status;
  pso->history_count += pso->history_used;
  pso->history_used = 0;
  return CK_OK;
}

static ck_status record_best(ck_pso *pso) {
  ck_status status = pso->steps->update_best(&pso->state, pso->history_used);
  if (status)
    return status;
  if (++pso->history_used == pso->state.history_capacity)
    return flush_history(pso);
  return CK_OK;
}

ck_status ck_pso_create(const ck_device *device, const ck_pso_config *config,
                        ck_pso **out) {
  ck_status status = CK_OK;
  const ck_objective_info *info = NULL;
  ck_pso *pso = NULL;
  double *vmax = NULL;
  if (!device || !config || !out)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_pso_create: NULL argument");
  *out = NULL;
  CK_TRY(check_config(device, config, &info));
  pso = calloc(1, sizeof *pso);
  if (!pso)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a swarm");
  pso->config = *config;
  pso_state *s = &pso->state;
  s->device = *device;
  s->objective = info ? info->id : CK_OBJECTIVE_USER;
  s->streamed = s->objective < CK_OBJECTIVE_STREAMED_COUNT;
  s->dim = s->objective == CK_OBJECTIVE_LSQ ? (int)config->data->dim
                                            : config->dim;
  pso->config.dim = s->dim;
  s->n = (uint32_t)config->particles;
  s->double_precision = config->double_precision ? 1 : 0;
  s->real_size = s->double_precision ? sizeof(double) : sizeof(float);
  s->bounds = (int)config->bounds;
  s->ring = (uint32_t)config->ring_neighbours;
  s->seed = config->seed;
  s->velocity_init = config->velocity_init;
  s->has_target = config->has_target;
  s->target = config->target;
  s->group = group_size(device);
  s->history_capacity = HISTORY_CAPACITY;
  if (config->constriction) {
    /* Clerc and Kennedy's constriction folds into the inertia form. */
    double phi = config->c1 + config->c2;
    double chi = 2.0 / fabs(2.0 - phi - sqrt(phi * phi - 4.0 * phi));
    s->w = chi;
    s->c1 = chi * config->c1;
    s->c2 = chi * config->c2;
  } else {
    s->w = config->w;
    s->c1 = config->c1;
    s->c2 = config->c2;
  }
  pso->config.function = NULL;
  pso->config.objective_source = NULL;
  pso->config.objective_name = NULL;
  pso->config.lo = pso->config.hi = NULL;
  if (config->objective_source) {
    pso->user_source = strdup(config->objective_source);
    pso->user_name = strdup(config->objective_name ? config->objective_name
                                                   : "objective.cl");
    if (!pso->user_source || !pso->user_name)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
    s->user_source = pso->user_source;
    s->user_name = pso->user_name;
    s->user_has_data = takes_data(pso->user_source);
    if (s->user_has_data && !config->data)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "the objective in %s takes a data argument: give --data FILE",
              pso->user_name);
  }
  size_t dim = (size_t)s->dim, n = s->n;
  pso->lo = malloc(dim * sizeof *pso->lo);
  pso->hi = malloc(dim * sizeof *pso->hi);
  vmax = malloc(dim * sizeof *vmax);
  if (!pso->lo || !pso->hi || !vmax)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (size_t d = 0; d < dim; ++d) {
    pso->lo[d] = config->lo ? config->lo[d] : info->lo;
    pso->hi[d] = config->hi ? config->hi[d] : info->hi;
    vmax[d] = config->vmax * (pso->hi[d] - pso->lo[d]);
  }
  if (s->objective == CK_OBJECTIVE_LSQ) {
    s->rows = (uint32_t)config->data->rows;
    /* Few particles: work-groups over rows, enough to fill the device
     * (four per compute unit), none with fewer rows than work-items. */
    size_t units = device->compute_units ? device->compute_units : 1;
    s->lsq_group_mode =
        config->lsq_mode == CK_PSO_LSQ_GROUP ||
        (config->lsq_mode == CK_PSO_LSQ_AUTO && n < 4 * units * s->group / 32);
    size_t chunks = (4 * units + n - 1) / n;
    size_t most = s->rows / s->group ? s->rows / s->group : 1;
    s->lsq_chunks = (uint32_t)(chunks < most ? chunks : most);
  }
  /* Fail early, with the figures, when the swarm cannot fit. */
  double bytes = (3.0 * (double)dim + 2.0) * (double)n * (double)s->real_size;
  if (device->backend != CK_BACKEND_REF && device->global_memory &&
      bytes > 0.9 * (double)device->global_memory)
    CK_FAIL(CK_ERROR_DEVICE_MEMORY,
            "a swarm of %zu particles in %zu dimensions needs about %.3g GB; "
            "device %s has %.3g GB",
            n, dim, bytes * 1e-9, device->id,
            (double)device->global_memory * 1e-9);

  pso->steps = device->backend == CK_BACKEND_REF
                   ? (s->double_precision ? &ck__pso_ref_steps_f64
                                          : &ck__pso_ref_steps_f32)
                   : &ck__pso_opencl_steps;
  s->partial_count = 0;
  if (n > (size_t)DIRECT_REDUCTION * s->group) {
    size_t wanted = (n + s->group - 1) / s->group;
    size_t cap = 4u * (device->compute_units ? device->compute_units : 1);
    s->partial_count = (uint32_t)(wanted < cap ? wanted : cap);
  }
  CK_TRY(ck_queue_create(device, &s->queue));
  size_t real = s->real_size;
  CK_TRY(make_buffer(s, dim * real, &s->lo));
  CK_TRY(make_buffer(s, dim * real, &s->hi));
  CK_TRY(make_buffer(s, dim * real, &s->vmax));
  CK_TRY(make_buffer(s, dim * n * real, &s->x));
  CK_TRY(make_buffer(s, dim * n * real, &s->v));
  CK_TRY(make_buffer(s, dim * n * real, &s->pbest));
  CK_TRY(make_buffer(s, n * real, &s->pbest_value));
  CK_TRY(make_buffer(s, dim * real, &s->gbest));
  CK_TRY(make_buffer(s, real, &s->best_value));
  CK_TRY(make_buffer(s, sizeof(uint32_t), &s->best_index));
  CK_TRY(make_buffer(s, s->history_capacity * real, &s->history));
  CK_TRY(make_buffer(s, sizeof(uint32_t), &s->done));
  uint32_t zero = 0;
  CK_TRY(ck_buffer_write(s->queue, s->done, 0, sizeof zero, &zero, CK_BLOCKING,
                         NULL));
  if (s->ring) {
    CK_TRY(make_buffer(s, n * sizeof(uint32_t), &s->neighbour));
    CK_TRY(make_buffer(s, n * real, &s->values));
  }
  if (s->partial_count) {
    CK_TRY(make_buffer(s, s->partial_count * real, &s->partial_values));
    CK_TRY(make_buffer(s, s->partial_count * sizeof(uint32_t),
                       &s->partial_indices));
  }
  if (s->lsq_group_mode)
    CK_TRY(make_buffer(s, n * s->lsq_chunks * real, &s->lsq_partial));
  if (config->data && (s->objective == CK_OBJECTIVE_LSQ || s->user_has_data))
    CK_TRY(upload_data(s, config->data));
  else if (s->objective == CK_OBJECTIVE_USER)
    CK_TRY(make_buffer(s, sizeof(float), &s->data));
  CK_TRY(write_reals(s, s->lo, pso->lo, dim));
  CK_TRY(write_reals(s, s->hi, pso->hi, dim));
  CK_TRY(write_reals(s, s->vmax, vmax, dim));
  double largest = s->double_precision ? 1.7976931348623157e308
                                       : 3.402823466e38;
  CK_TRY(write_reals(s, s->best_value, &largest, 1));
  uint32_t none = 0xFFFFFFFFu;
  CK_TRY(ck_buffer_write(s->queue, s->best_index, 0, sizeof none, &none,
                         CK_BLOCKING, NULL));

  double started = ck__seconds();
  CK_TRY(pso->steps->setup(s));
  pso->build_seconds = ck__seconds() - started;
  CK_TRY(pso->steps->initialise(s));
  if (!s->streamed)
    CK_TRY(pso->steps->evaluate(s));
  CK_TRY(record_best(pso));
  free(vmax);
  *out = pso;
  return CK_OK;
fail:
  free(vmax);
  ck_pso_destroy(pso);
  return status;
}

static ck_status one_iteration(ck_pso *pso) {
  ck_status status;
  pso_state *s = &pso->state;
  uint64_t iteration = pso->iterations + 1;
  if (s->ring && (status = pso->steps->neighbours(s)) != CK_OK)
    return status;
  if ((status = pso->steps->move(s, iteration)) != CK_OK)
    return status;
  if (!s->streamed && (status = pso->steps->evaluate(s)) != CK_OK)
    return status;
  if ((status = record_best(pso)) != CK_OK)
    return status;
  pso->iterations = iteration;
  return CK_OK;
}

ck_status ck_pso_step(ck_pso *pso, uint64_t iterations) {
  if (!pso)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_pso_step: NULL swarm");
  for (uint64_t i = 0; i < iterations; ++i) {
    ck_status status = one_iteration(pso);
    if (status)
      return status;
  }
  return CK_OK;
}

ck_status ck_pso_run(ck_pso *pso, ck_pso_report *report) {
  ck_status status = CK_OK;
  if (!pso || !report)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_pso_run: NULL argument");
  memset(report, 0, sizeof *report);
  const ck_pso_config *c = &pso->config;
  pso_state *s = &pso->state;
  uint64_t limit = c->max_iterations;
  if (c->max_evaluations) {
    uint64_t by_evaluations = c->max_evaluations / s->n;
    by_evaluations = by_evaluations > 0 ? by_evaluations - 1 : 0;
    if (!limit || by_evaluations < limit)
      limit = by_evaluations;
  }
  if (!limit && !c->has_target && c->max_seconds <= 0)
    limit = 1000;
  uint64_t chunk = c->check_every ? c->check_every : 1;
  uint64_t start_iterations = pso->iterations;
  double double_check = 0;
  double started = ck__seconds();
  double kernel_before = 0;
  ck_queue_kernel_seconds(s->queue, &kernel_before);
  CK_TRY(flush_history(pso));
  size_t scanned = pso->history_count;
  report->stopped_by = CK_PSO_STOP_NONE;
  /* A target met at initialisation already counts. */
  if (c->has_target && pso->history_count &&
      pso->history[pso->history_count - 1] <= c->target) {
    report->stopped_by = CK_PSO_STOP_TARGET;
    report->target_iteration = pso->iterations;
  }
  while (report->stopped_by == CK_PSO_STOP_NONE) {
    uint64_t done = pso->iterations - start_iterations;
    if (limit && done >= limit) {
      report->stopped_by = c->max_iterations && limit == c->max_iterations
                               ? CK_PSO_STOP_ITERATIONS
                               : CK_PSO_STOP_EVALUATIONS;
      break;
    }
    uint64_t steps = chunk;
    if (limit && steps > limit - done)
      steps = limit - done;
    double chunk_started = ck__seconds();
    CK_TRY(ck_pso_step(pso, steps));
    CK_TRY(flush_history(pso)); /* the only read: best values since last */
    double elapsed = ck__seconds() - chunk_started;
    if (c->has_target) {
      for (; scanned < pso->history_count; ++scanned) {
        if (pso->history[scanned] <= c->target) {
          report->stopped_by = CK_PSO_STOP_TARGET;
          report->target_iteration = scanned;
          break;
        }
      }
    }
    scanned = pso->history_count;
    double total = ck__seconds() - started;
    if (report->stopped_by == CK_PSO_STOP_NONE && c->max_seconds > 0 &&
        total >= c->max_seconds)
      report->stopped_by = CK_PSO_STOP_TIME;
    if (c->progress) {
      double fraction = limit ? (double)(pso->iterations - start_iterations) /
                                    (double)limit
                              : (c->max_seconds > 0 ? total / c->max_seconds
                                                    : 0);
      if (c->progress(c->progress_user, fraction > 1 ? 1 : fraction))
        CK_FAIL(CK_ERROR_CANCELLED, "PSO cancelled after %llu iterations",
                (unsigned long long)pso->iterations);
    }
    if (!c->check_every) {
      /* About twenty host reads a second, at most one a history window. */
      double per_step = elapsed / (double)steps;
      double wanted = per_step > 0 ? 0.05 / per_step : (double)HISTORY_CAPACITY;
      chunk = wanted < 1 ? 1
                         : (wanted > HISTORY_CAPACITY ? HISTORY_CAPACITY
                                                      : (uint64_t)wanted);
    }
    double_check = total;
  }
  (void)double_check;
  CK_TRY(ck_queue_finish(s->queue));
  report->wall_s = ck__seconds() - started;
  double kernel_after = 0;
  ck_queue_kernel_seconds(s->queue, &kernel_after);
  report->kernel_s = kernel_after - kernel_before;
  report->build_s = pso->build_seconds;
  /* Moves after the target was met did nothing on the device. */
  if (report->stopped_by == CK_PSO_STOP_TARGET)
    pso->iterations = report->target_iteration;
  report->iterations = pso->iterations;
  report->evaluations = (uint64_t)s->n * (pso->iterations + 1);
  report->best = pso->history_count ? pso->history[pso->history_count - 1]
                                    : NAN;
  uint64_t moved = pso->iterations > start_iterations
                       ? pso->iterations - start_iterations
                       : 0;
  if (report->wall_s > 0) {
    report->evaluations_per_s = (double)s->n * (double)moved / report->wall_s;
    report->updates_per_s =
        (double)s->n * (double)s->dim * (double)moved / report->wall_s;
  }
fail:
  return status;
}

ck_status ck_pso_best(ck_pso *pso, double *value, double *position) {
  ck_status status;
  if (!pso)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_pso_best: NULL swarm");
  pso_state *s = &pso->state;
  if (value && (status = read_reals(s, s->best_value, value, 1)) != CK_OK)
    return status;
  if (position &&
      (status = read_reals(s, s->gbest, position, (size_t)s->dim)) != CK_OK)
    return status;
  return CK_OK;
}

ck_status ck_pso_history(ck_pso *pso, const double **values, size_t *count) {
  if (!pso || !values || !count)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_pso_history: NULL argument");
  ck_status status = flush_history(pso);
  if (status)
    return status;
  *values = pso->history;
  *count = pso->history_count;
  return CK_OK;
}

ck_status ck_pso_destroy(ck_pso *pso) {
  if (!pso)
    return CK_OK;
  pso_state *s = &pso->state;
  if (pso->steps)
    pso->steps->teardown(s);
  ck_buffer *buffers[] = {s->lo, s->hi, s->vmax, s->x, s->v, s->pbest,
                          s->pbest_value, s->neighbour, s->gbest,
                          s->best_value, s->best_index, s->partial_values,
                          s->partial_indices, s->history, s->data, s->done,
                          s->values, s->lsq_partial};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i)
    ck_buffer_destroy(buffers[i]);
  ck_queue_destroy(s->queue);
  free(pso->lo);
  free(pso->hi);
  free(pso->history);
  free(pso->user_source);
  free(pso->user_name);
  free(pso);
  return CK_OK;
}
