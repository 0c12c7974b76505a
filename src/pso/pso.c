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
#include "objectives/problem.h"
#include "pso/pso_internal.h"

enum {
  HISTORY_CAPACITY = 1024, /* device-side best values between reads */
  DIRECT_REDUCTION = 16    /* one group folds up to this many per item */
};

struct ck_pso {
  pso_state state;
  const ck__pso_steps *steps;
  ck_pso_config config;
  ck__problem problem;   /* objective and domain */
  uint64_t iterations;   /* moves made */
  uint32_t history_used; /* device entries not yet read */
  double *history;       /* host copy of the best after each iteration */
  size_t history_count, history_allocated;
  double build_seconds;
};

pso_state *ck__pso_state(ck_pso *pso) {
  return &pso->state;
}

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

/* The PSO-specific settings; the problem's are checked by ck__problem. */
static ck_status check_config(const ck_pso_config *c) {
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
  if ((unsigned)c->lsq_mode > CK_PSO_LSQ_VECTOR)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --lsq-mode: unknown mode %d", (int)c->lsq_mode);
  if ((unsigned)c->move_mode > CK_PSO_MOVE_VECTOR)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --move-mode: unknown mode %d", (int)c->move_mode);
  /* Initialisation evaluates every particle once. */
  if (c->max_evaluations && c->max_evaluations < c->particles)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --evals: %llu evaluations are fewer than the %zu "
                    "that initialisation makes (one a particle)",
                    (unsigned long long)c->max_evaluations, c->particles);
  return CK_OK;
}

static ck_status write_reals(pso_state *s, ck_buffer *buffer,
                             const double *values, size_t count) {
  return ck__reals_write(s->queue, buffer, s->double_precision, values, count);
}

static ck_status read_reals(pso_state *s, ck_buffer *buffer, double *values,
                            size_t count) {
  return ck__reals_read(s->queue, buffer, s->double_precision, values, count);
}

static ck_status make_buffer(pso_state *s, size_t bytes, ck_buffer **buffer) {
  return ck__buffer_make(s->queue, bytes, buffer);
}

/* Reads the device's history entries not yet seen. */
static ck_status flush_history(ck_pso *pso) {
  pso_state *s = &pso->state;
  if (pso->history_used == 0)
    return CK_OK;
  if (pso->history_count + pso->history_used > pso->history_allocated) {
    size_t allocated =
        pso->history_allocated ? 2 * pso->history_allocated : 4096;
    while (allocated < pso->history_count + pso->history_used)
      allocated *= 2;
    double *grown = realloc(pso->history, allocated * sizeof *grown);
    if (!grown)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for history");
    pso->history = grown;
    pso->history_allocated = allocated;
  }
  ck_status status = read_reals(
      s, s->history, pso->history + pso->history_count, pso->history_used);
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
  ck_pso *pso = NULL;
  double *vmax = NULL;
  if (!device || !config || !out)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_pso_create: NULL argument");
  *out = NULL;
  CK_TRY(check_config(config));
  pso = calloc(1, sizeof *pso);
  if (!pso)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a swarm");
  const ck__problem_spec spec = CK__PROBLEM_SPEC(config);
  CK_TRY(ck__problem_init(&pso->problem, device, &spec));
  const ck__problem *problem = &pso->problem;
  pso->config = *config;
  CK__PROBLEM_KEEP(&pso->config, problem);
  pso_state *s = &pso->state;
  s->device = *device;
  s->objective = problem->objective;
  s->streamed = problem->streamed;
  s->dim = problem->dim;
  s->n = (uint32_t)config->particles;
  s->double_precision = problem->double_precision;
  s->real_size = problem->real_size;
  s->bounds = (int)config->bounds;
  s->ring = (uint32_t)config->ring_neighbours;
  s->seed = config->seed;
  s->velocity_init = config->velocity_init;
  s->has_target = config->has_target;
  s->target = config->target;
  s->group = ck__group_size(device);
  /* A vector a work-item where no loop over the dimensions would be
   * vectorised across work-items otherwise (ck_lanes.h): CPUs. */
  if (device->backend == CK_BACKEND_OPENCL &&
      (config->move_mode == CK_PSO_MOVE_VECTOR ||
       (config->move_mode == CK_PSO_MOVE_AUTO && device->kind != CK_KIND_GPU)))
    s->move_lanes = s->double_precision ? 8u : 16u;
  else
    s->move_lanes = 1;
  s->move_local =
      s->move_lanes > 1
          ? ck__vector_group(device, (s->n + s->move_lanes - 1) / s->move_lanes,
                             s->group)
          : s->group;
  s->history_capacity = HISTORY_CAPACITY;
  s->problem = problem;
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
  size_t dim = (size_t)s->dim, n = s->n;
  vmax = malloc(dim * sizeof *vmax);
  if (!vmax)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (size_t d = 0; d < dim; ++d)
    vmax[d] = config->vmax * (problem->hi[d] - problem->lo[d]);
  if (s->objective == CK_OBJECTIVE_LSQ) {
    s->rows = (uint32_t)config->data->rows;
    s->lsq = ck__lsq_plan_choose(device, config->lsq_mode, n, s->rows, s->group,
                                 s->double_precision);
  }
  /* Fail early, with the figures, when the swarm cannot fit. */
  double bytes = (3.0 * (double)dim + 2.0) * (double)n * (double)s->real_size;
  if ((status = ck__device_memory_check(device, bytes)))
    CK_FAIL_PREFIX(status, "a swarm of %zu particles in %zu dimensions needs ",
                   n, dim);

  pso->steps = device->backend == CK_BACKEND_REF
                   ? (s->double_precision ? &ck__pso_ref_steps_f64
                                          : &ck__pso_ref_steps_f32)
                   : &ck__pso_opencl_steps;
#if CK_HAVE_CUDA
  if (device->backend == CK_BACKEND_CUDA)
    pso->steps = &ck__pso_cuda_steps;
#endif
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
  if (s->ring)
    CK_TRY(make_buffer(s, n * sizeof(uint32_t), &s->neighbour));
  if (s->ring || !s->streamed)
    CK_TRY(make_buffer(s, n * real, &s->values));
  if (s->partial_count) {
    CK_TRY(make_buffer(s, s->partial_count * real, &s->partial_values));
    CK_TRY(make_buffer(s, s->partial_count * sizeof(uint32_t),
                       &s->partial_indices));
  }
  if (s->lsq.group_mode)
    CK_TRY(make_buffer(s, n * s->lsq.chunks * real, &s->lsq_partial));
  if (s->objective == CK_OBJECTIVE_LSQ || s->objective == CK_OBJECTIVE_USER)
    CK_TRY(ck__problem_upload(problem, s->queue, &s->data));
  CK_TRY(write_reals(s, s->lo, problem->lo, dim));
  CK_TRY(write_reals(s, s->hi, problem->hi, dim));
  CK_TRY(write_reals(s, s->vmax, vmax, dim));
  double largest =
      s->double_precision ? 1.7976931348623157e308 : 3.402823466e38;
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
  /* The initial swarm done (and its kernels loaded) before the caller
   * starts timing iterations. */
  CK_TRY(ck_queue_finish(s->queue));
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

/* Iterations through the steps' own loop, in runs that end where the
 * history fills. */
static ck_status iterate(ck_pso *pso, uint64_t iterations) {
  pso_state *s = &pso->state;
  while (iterations > 0) {
    uint64_t run = s->history_capacity - pso->history_used;
    run = run < iterations ? run : iterations;
    ck_status status = pso->steps->iterate(s, pso->iterations + 1,
                                           (uint32_t)pso->history_used, run);
    if (status)
      return status;
    pso->iterations += run;
    pso->history_used += (uint32_t)run;
    iterations -= run;
    if (pso->history_used == s->history_capacity &&
        (status = flush_history(pso)) != CK_OK)
      return status;
  }
  return CK_OK;
}

ck_status ck_pso_step(ck_pso *pso, uint64_t iterations) {
  if (!pso)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_pso_step: NULL swarm");
  if (pso->steps->iterate && pso->state.iterates)
    return iterate(pso, iterations);
  for (uint64_t i = 0; i < iterations; ++i) {
    ck_status status = one_iteration(pso);
    if (status)
      return status;
  }
  return CK_OK;
}

static ck_status run_step(void *self, uint64_t steps) {
  return ck_pso_step(self, steps);
}

static ck_status run_history(void *self, const double **best, size_t *count) {
  return ck_pso_history(self, best, count);
}

ck_status ck_pso_run(ck_pso *pso, ck_pso_report *report) {
  ck_status status = CK_OK;
  if (!pso || !report)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_pso_run: NULL argument");
  memset(report, 0, sizeof *report);
  const ck_pso_config *c = &pso->config;
  pso_state *s = &pso->state;
  const ck__run_rules rules = {c->max_iterations,
                               c->max_evaluations,
                               s->n,
                               1000,
                               c->has_target,
                               c->target,
                               c->max_seconds,
                               c->check_every,
                               HISTORY_CAPACITY,
                               c->progress,
                               c->progress_user};
  const ck__run_driver driver = {pso, run_step, run_history};
  ck__run_outcome outcome;
  uint64_t start = pso->iterations;
  double kernel_before = 0, kernel_after = 0;
  ck_queue_kernel_seconds(s->queue, &kernel_before);
  CK_TRY(ck__run_until(&rules, &driver, "PSO", &outcome));
  CK_TRY(ck_queue_finish(s->queue));
  ck_queue_kernel_seconds(s->queue, &kernel_after);
  report->stopped_by = outcome.stopped_by;
  report->target_iteration = outcome.target_step;
  report->wall_s = outcome.wall_s;
  report->kernel_s = kernel_after - kernel_before;
  report->build_s = pso->build_seconds;
  /* Moves after the target was met did nothing on the device: neither
   * they nor their history entries (the same best) count. */
  if (report->stopped_by == CK_PSO_STOP_TARGET) {
    pso->iterations = report->target_iteration;
    CK_TRY(flush_history(pso));
    if (pso->history_count > pso->iterations + 1)
      pso->history_count = (size_t)pso->iterations + 1;
  }
  report->iterations = pso->iterations;
  report->evaluations = (uint64_t)s->n * (pso->iterations + 1);
  report->best =
      pso->history_count ? pso->history[pso->history_count - 1] : NAN;
  uint64_t moved = pso->iterations > start ? pso->iterations - start : 0;
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
  ck_buffer *buffers[] = {s->lo,
                          s->hi,
                          s->vmax,
                          s->x,
                          s->v,
                          s->pbest,
                          s->pbest_value,
                          s->neighbour,
                          s->gbest,
                          s->best_value,
                          s->best_index,
                          s->partial_values,
                          s->partial_indices,
                          s->history,
                          s->data,
                          s->done,
                          s->values,
                          s->lsq_partial};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i)
    ck_buffer_destroy(buffers[i]);
  ck_queue_destroy(s->queue);
  ck__problem_free(&pso->problem);
  free(pso->history);
  free(pso);
  return CK_OK;
}
