/*
 * pso.c - the PSO driver: configuration checks, the swarm's buffers, and
 * the algorithm's loop over a backend's steps (ref or OpenCL).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ck_objectives.h"
#include "framework/framework.h"
#include "framework/history.h"
#include "objectives/problem.h"
#include "pso/pso_internal.h"

enum {
  HISTORY_CAPACITY = 1024, /* device-side best values between reads */
  DIRECT_REDUCTION = 16    /* one group folds up to this many per item */
};

struct ck_pso {
  pso_state state;
  const ck__pso_steps *steps;
  ck__pso_steps merged_steps; /* native steps over the base's */
  ck_pso_config config;
  ck__problem problem;   /* objective and domain */
  uint64_t iterations;   /* moves made */
  uint32_t history_used; /* device entries not yet read */
  double *batch;         /* history_capacity: the device entries read */
  ck__history history;   /* the best after an iteration in every stride */
  double build_seconds;
  ck__pso_spread *spread; /* a spread swarm's members (pso_spread.c) */
  ck__spread_clock clock; /* a spread run's reads in ck_pso_run */
  /* Host objectives: the positions as the device holds them, row-major,
   * and their values; told: ck_pso_tell has had the initial swarm's. */
  double *host_x, *host_rows, *host_f;
  int told;
  ck__batch_host batch_host; /* a device objective's positions, off CUDA */
};

CK__STEPS_TABLE(ck__pso_steps, 9);

pso_state *ck__pso_state(ck_pso *pso) {
  return &pso->state;
}

ck__pso_spread *ck__pso_spread_of(ck_pso *pso) {
  return pso->spread;
}

ck_status ck_pso_config_init(ck_pso_config *config) {
  CK__REQUIRE(config);
  memset(config, 0, sizeof *config);
  ck__fields_init(config, ck__pso_fields, CK__PSO_FIELDS);
  return CK_OK;
}

/* The PSO-specific settings of a swarm of `total` particles (a slice
 * holds config->particles); the problem's are checked by ck__problem. */
static ck_status check_config(const ck_pso_config *config, size_t total) {
  ck_status status =
      ck__fields_check("ck_pso_config", config, ck__pso_fields, CK__PSO_FIELDS);
  if (status)
    return status;
  if (config->constriction && config->c1 + config->c2 <= 4)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_pso_config.constriction: needs c1 + c2 > 4 (got %g)",
                    config->c1 + config->c2);
  if ((size_t)config->ring_neighbours > total)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_pso_config.ring_neighbours: the neighbourhood of %d "
                    "must hold 2 to %zu particles",
                    config->ring_neighbours, total);
  if ((config->evaluate != NULL) + config->ask_tell +
          (config->evaluate_device != NULL) >
      1)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_pso_config: give one of evaluate, evaluate_device and "
                    "ask_tell");
  /* Initialisation evaluates every particle once. */
  if (config->max_evaluations && config->max_evaluations < config->particles)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_pso_config.max_evaluations: %llu evaluations are "
                    "fewer than the %zu that initialisation makes (one a "
                    "particle)",
                    (unsigned long long)config->max_evaluations,
                    config->particles);
  return CK_OK;
}

static ck_status write_reals(pso_state *state, ck_buffer *buffer,
                             const double *values, size_t count) {
  return ck__reals_write(state->queue, buffer, state->double_precision, values,
                         count);
}

static ck_status read_reals(pso_state *state, ck_buffer *buffer, double *values,
                            size_t count) {
  return ck__reals_read(state->queue, buffer, state->double_precision, values,
                        count);
}

static ck_status make_buffer(pso_state *state, size_t bytes,
                             ck_buffer **buffer) {
  return ck__buffer_make(state->queue, bytes, buffer);
}

/* Reads the device's history entries not yet seen. */
static ck_status flush_history(ck_pso *pso) {
  pso_state *state = &pso->state;
  if (pso->history_used == 0)
    return CK_OK;
  ck_status status =
      read_reals(state, state->history, pso->batch, pso->history_used);
  if (status == CK_OK)
    status =
        ck__history_push_rows(&pso->history, pso->batch, pso->history_used);
  if (status)
    return status;
  pso->history_used = 0;
  return CK_OK;
}

/* Host objectives: the swarm's positions, row-major, into rows. */
static ck_status read_positions(ck_pso *pso, double *rows) {
  pso_state *state = &pso->state;
  size_t n = state->n, dim = (size_t)state->dim;
  ck_status status = read_reals(state, state->x, pso->host_x, n * dim);
  if (status == CK_OK)
    ck__host_rows(pso->host_x, n, dim, rows);
  return status;
}

/* Host values onto the device, made comparable, and the personal bests
 * kept. */
static ck_status keep_values(ck_pso *pso, const double *f) {
  pso_state *state = &pso->state;
  ck__host_values(state->double_precision, f, pso->host_f, state->n);
  ck_status status = write_reals(state, state->values, pso->host_f, state->n);
  return status ? status : pso->steps->evaluate(state);
}

/* The evaluate callback over the swarm's positions after `iteration`
 * moves. */
static ck_status evaluate_on_host(ck_pso *pso, uint64_t iteration) {
  pso_state *state = &pso->state;
  ck_status status = read_positions(pso, pso->host_rows);
  if (status)
    return status;
  status = pso->config.evaluate(pso->host_rows, state->n, (size_t)state->dim,
                                pso->host_f, pso->config.evaluate_user);
  if (status)
    return ck__host_failed("ck_pso_config", status, "iteration", iteration);
  return keep_values(pso, pso->host_f);
}

/* The device objective over the swarm's positions after `iteration`
 * moves: they stay on a CUDA device, else are copied into page-locked
 * host memory. */
static ck_status evaluate_on_device(ck_pso *pso, uint64_t iteration) {
  pso_state *state = &pso->state;
  ck__device_objective objective = {pso->config.evaluate_device,
                                    pso->config.evaluate_user, "ck_pso_config",
                                    "iteration", &pso->batch_host};
  ck_status status = ck__device_objective_call(
      &objective, state->queue, state->x, state->n, (size_t)state->dim,
      state->real_size, state->values, iteration);
  return status ? status : pso->steps->evaluate(state);
}

/* The values of a swarm whose objective is not streamed with the move,
 * and the personal bests kept. */
static ck_status evaluate(ck_pso *pso, uint64_t iteration) {
  if (pso->state.streamed)
    return CK_OK;
  if (pso->config.evaluate_device)
    return evaluate_on_device(pso, iteration);
  if (pso->state.objective == CK_OBJECTIVE_HOST)
    return evaluate_on_host(pso, iteration);
  return pso->steps->evaluate(&pso->state);
}

static ck_status record_best(ck_pso *pso) {
  assert(pso->history_used < pso->state.history_capacity);
  ck_status status = pso->steps->update_best(&pso->state, pso->history_used);
  if (status)
    return status;
  if (++pso->history_used == pso->state.history_capacity)
    return flush_history(pso);
  return CK_OK;
}

ck_status ck_pso_create(const ck_device *device, const ck_pso_config *config,
                        ck_pso **pso) {
  CK__REQUIRE(device);
  CK__REQUIRE(config);
  CK__REQUIRE(pso);
  return ck__pso_create_slice(device, config, 0, config->particles, pso);
}

/* The problem and the swarm's settings, from the configuration and the
 * device: particles first .. of a swarm of `total`. */
static ck_status tune(ck_pso *created, const ck_device *device,
                      const ck_pso_config *config, uint32_t first,
                      size_t total) {
  ck_status status = CK_OK;
  ck__problem_spec spec =
      CK__PROBLEM_SPEC(config, "ck_pso_config", ck__pso_fields);
  spec.host = config->evaluate || config->ask_tell || config->evaluate_device;
  CK_TRY(ck__problem_init(&created->problem, device, &spec));
  const ck__problem *problem = &created->problem;
  created->config = *config;
  CK__PROBLEM_KEEP(&created->config, problem);
  pso_state *state = &created->state;
  state->device = *device;
  state->objective = problem->objective;
  state->streamed = problem->streamed;
  state->dim = problem->dim;
  state->n = (uint32_t)config->particles;
  state->first = first;
  state->total = (uint32_t)total;
  state->double_precision = problem->double_precision;
  state->real_size = problem->real_size;
  state->bounds = (int)config->bounds;
  state->ring = (uint32_t)config->ring_neighbours;
  state->seed = config->seed;
  state->velocity_init = config->velocity_init;
  state->has_target = config->has_target;
  state->target = config->target;
  state->group = ck__group_size(device);
  /* A vector a work-item where no loop over the dimensions would be
   * vectorised across work-items otherwise (ck_lanes.h): CPUs. */
  if (device->backend == CK_BACKEND_OPENCL &&
      (config->move_mode == CK_PSO_MOVE_VECTOR ||
       (config->move_mode == CK_PSO_MOVE_AUTO && device->kind != CK_KIND_GPU)))
    state->move_lanes = state->double_precision ? 8u : 16u;
  else
    state->move_lanes = 1;
  state->move_local =
      state->move_lanes > 1
          ? ck__vector_group(
                device, (state->n + state->move_lanes - 1) / state->move_lanes,
                state->group)
          : state->group;
  state->history_capacity = HISTORY_CAPACITY;
  state->problem = problem;
  if (config->constriction) {
    /* Clerc and Kennedy's constriction folds into the inertia form. */
    double phi = config->c1 + config->c2;
    double chi = 2.0 / fabs(2.0 - phi - sqrt(phi * phi - 4.0 * phi));
    state->w = chi;
    state->c1 = chi * config->c1;
    state->c2 = chi * config->c2;
  } else {
    state->w = config->w;
    state->c1 = config->c1;
    state->c2 = config->c2;
  }
  size_t n = state->n;
  if (state->objective == CK_OBJECTIVE_LSQ) {
    state->rows = (uint32_t)config->data->rows;
    /* Planned for the whole swarm, so that a slice sums as it would. */
    state->lsq =
        ck__lsq_plan_choose(device, config->lsq_mode, total, state->rows,
                            state->group, state->double_precision);
  }
  state->partial_count = 0;
  if (n > (size_t)DIRECT_REDUCTION * state->group) {
    size_t wanted = (n + state->group - 1) / state->group;
    size_t cap = 4u * (device->compute_units ? device->compute_units : 1);
    state->partial_count = (uint32_t)(wanted < cap ? wanted : cap);
  }
fail:
  return status;
}

/* The host's history and, once the device is known to hold them, the
 * steps, the queue and the swarm's buffers. */
static ck_status allocate(ck_pso *created, const ck_device *device) {
  ck_status status = CK_OK;
  pso_state *state = &created->state;
  size_t dim = (size_t)state->dim, n = state->n;
  /* Fail early, with the figures, when the swarm cannot fit. */
  double bytes =
      (3.0 * (double)dim + 2.0) * (double)n * (double)state->real_size;
  if ((status = ck__device_memory_check(device, bytes)))
    CK_FAIL_PREFIX(status, "a swarm of %zu particles in %zu dimensions needs ",
                   n, dim);
  CK_TRY(ck__history_init(&created->history, CK__HISTORY_SAMPLE, 1,
                          &(size_t){1}, "best values"));
  created->batch = malloc(state->history_capacity * sizeof *created->batch);
  if (!created->batch)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for best values");

  /* On CUDA every swarm takes the CUDA steps, whose setup says whether
   * the native step serves it (state->iterates). */
  created->steps = ck__steps_pick(
      device,
      state->double_precision ? &ck__pso_ref_steps_f64 : &ck__pso_ref_steps_f32,
      &ck__pso_opencl_steps, CK__CUDA_STEPS(device, ck__pso_cuda_steps, 1),
      &created->merged_steps, sizeof created->merged_steps);
  CK_TRY(ck_queue_create(device, &state->queue));
  size_t real = state->real_size;
  CK_TRY(make_buffer(state, dim * real, &state->lo));
  CK_TRY(make_buffer(state, dim * real, &state->hi));
  CK_TRY(make_buffer(state, dim * real, &state->vmax));
  CK_TRY(make_buffer(state, dim * n * real, &state->x));
  CK_TRY(make_buffer(state, dim * n * real, &state->v));
  CK_TRY(make_buffer(state, dim * n * real, &state->pbest));
  CK_TRY(make_buffer(state, n * real, &state->pbest_value));
  CK_TRY(make_buffer(state, dim * real, &state->gbest));
  CK_TRY(make_buffer(state, real, &state->best_value));
  CK_TRY(make_buffer(state, sizeof(uint32_t), &state->best_index));
  CK_TRY(make_buffer(state, state->history_capacity * real, &state->history));
  CK_TRY(make_buffer(state, sizeof(uint32_t), &state->done));
  if (state->ring)
    CK_TRY(make_buffer(state, n * sizeof(uint32_t), &state->neighbour));
  if (state->ring || !state->streamed)
    CK_TRY(make_buffer(state, n * real, &state->values));
  if (state->partial_count) {
    CK_TRY(make_buffer(state, state->partial_count * real,
                       &state->partial_values));
    CK_TRY(make_buffer(state, state->partial_count * sizeof(uint32_t),
                       &state->partial_indices));
  }
  if (state->lsq.group_mode)
    CK_TRY(
        make_buffer(state, n * state->lsq.chunks * real, &state->lsq_partial));
  if (state->objective == CK_OBJECTIVE_HOST &&
      !created->config.evaluate_device) {
    created->host_x = malloc(dim * n * sizeof(double));
    created->host_rows = malloc(dim * n * sizeof(double));
    created->host_f = malloc(n * sizeof(double));
    if (!created->host_x || !created->host_rows || !created->host_f)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
              "out of host memory for the positions of a host objective");
  }
fail:
  return status;
}

/* The problem's data and domain, the velocity limits, and the best and
 * the target flag as nothing found yet. */
static ck_status upload(ck_pso *created, const ck_pso_config *config) {
  ck_status status = CK_OK;
  pso_state *state = &created->state;
  const ck__problem *problem = &created->problem;
  size_t dim = (size_t)state->dim;
  double *row = malloc(dim * sizeof *row);
  if (!row)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (size_t d = 0; d < dim; ++d)
    row[d] = config->vmax * (problem->hi[d] - problem->lo[d]);
  uint32_t zero = 0;
  CK_TRY(ck_buffer_write(state->queue, state->done, 0, sizeof zero, &zero,
                         CK_BLOCKING, NULL));
  if (state->objective == CK_OBJECTIVE_LSQ ||
      state->objective == CK_OBJECTIVE_USER)
    CK_TRY(ck__problem_upload(problem, state->queue, &state->data));
  CK_TRY(write_reals(state, state->lo, problem->lo, dim));
  CK_TRY(write_reals(state, state->hi, problem->hi, dim));
  CK_TRY(write_reals(state, state->vmax, row, dim));
  /* The global best's position until one is found, the domain's middle:
   * a swarm told only NaN so far moves toward it, not toward whatever
   * the buffer held. */
  for (size_t d = 0; d < dim; ++d)
    row[d] = 0.5 * (problem->lo[d] + problem->hi[d]);
  CK_TRY(write_reals(state, state->gbest, row, dim));
  double largest =
      state->double_precision ? 1.7976931348623157e308 : 3.402823466e38;
  CK_TRY(write_reals(state, state->best_value, &largest, 1));
  uint32_t none = 0xFFFFFFFFu;
  CK_TRY(ck_buffer_write(state->queue, state->best_index, 0, sizeof none, &none,
                         CK_BLOCKING, NULL));
fail:
  free(row);
  return status;
}

/* The steps' setup and the initial swarm. */
static ck_status set_up(ck_pso *created) {
  ck_status status = CK_OK;
  pso_state *state = &created->state;
  double started = ck__seconds();
  CK_TRY(created->steps->setup(state));
  created->build_seconds = ck__seconds() - started;
  CK_TRY(created->steps->initialise(state));
  /* An ask/tell swarm's first values come at ck_pso_tell. */
  if (!created->config.ask_tell) {
    CK_TRY(evaluate(created, 0));
    CK_TRY(record_best(created));
  }
  if (state->outbox)
    CK_TRY(created->steps->report(state));
  /* The initial swarm done (and its kernels loaded) before the caller
   * starts timing iterations. */
  CK_TRY(ck_queue_finish(state->queue));
fail:
  return status;
}

ck_status ck__pso_slice_allocate(const ck_device *device,
                                 const ck_pso_config *config, uint32_t first,
                                 size_t total, ck_pso **pso) {
  ck_status status = CK_OK;
  ck_pso *created = NULL;
  CK__REQUIRE(device);
  CK__REQUIRE(config);
  CK__REQUIRE(pso);
  *pso = NULL;
  CK_TRY(check_config(config, total));
  created = calloc(1, sizeof *created);
  if (!created)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a swarm");
  CK_TRY(tune(created, device, config, first, total));
  CK_TRY(allocate(created, device));
  *pso = created;
  return CK_OK;
fail:
  ck_pso_destroy(created);
  return status;
}

ck_status ck__pso_slice_set_up(ck_pso *pso) {
  ck_status status = upload(pso, &pso->config);
  return status ? status : set_up(pso);
}

ck_status ck__pso_create_slice(const ck_device *device,
                               const ck_pso_config *config, uint32_t first,
                               size_t total, ck_pso **pso) {
  ck_status status = ck__pso_slice_allocate(device, config, first, total, pso);
  if (status == CK_OK && (status = ck__pso_slice_set_up(*pso)) != CK_OK) {
    ck_pso_destroy(*pso);
    *pso = NULL;
  }
  return status;
}

ck_status ck__pso_slice_iterate(ck_pso *pso, uint64_t iteration) {
  ck_status status = CK_OK;
  pso_state *state = &pso->state;
  /* Slots go round the history, which no one reads from a slice, so
   * that the native step's counters run on from call to call. */
  uint32_t slot = (uint32_t)(iteration % state->history_capacity);
  if (pso->steps->iterate && state->iterates) {
    /* The native step where it serves: one move and best a launch. */
    CK_TRY(pso->steps->iterate(state, iteration, slot, 1));
  } else {
    if (state->ring)
      CK_TRY(pso->steps->neighbours(state));
    CK_TRY(pso->steps->move(state, iteration));
    if (!state->streamed)
      CK_TRY(pso->steps->evaluate(state));
    CK_TRY(pso->steps->update_best(state, slot));
  }
  if (state->outbox)
    CK_TRY(pso->steps->report(state));
fail:
  return status;
}

ck_status ck_pso_create_spread(const ck_spread *spread,
                               const ck_pso_config *config, ck_pso **pso) {
  ck_status status = CK_OK;
  ck_pso *created = NULL;
  CK__REQUIRE(spread);
  CK__REQUIRE(config);
  CK__REQUIRE(pso);
  *pso = NULL;
  CK_TRY(check_config(config, config->particles));
  if (config->evaluate || config->ask_tell || config->evaluate_device)
    CK_FAIL(CK_ERROR_UNSUPPORTED,
            "ck_pso_config.evaluate: a host objective does not spread over "
            "devices; create the swarm on one device");
  if (!spread->devices || spread->device_count == 0)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "ck_pso_create_spread: no devices");
  created = calloc(1, sizeof *created);
  if (!created)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a swarm");
  const ck__problem_spec spec =
      CK__PROBLEM_SPEC(config, "ck_pso_config", ck__pso_fields);
  CK_TRY(ck__problem_init(&created->problem, &spread->devices[0], &spec));
  created->config = *config;
  CK__PROBLEM_KEEP(&created->config, &created->problem);
  pso_state *state = &created->state;
  state->device = spread->devices[0];
  state->dim = created->problem.dim;
  state->n = (uint32_t)config->particles;
  state->double_precision = created->problem.double_precision;
  CK_TRY(ck__history_init(&created->history, CK__HISTORY_SAMPLE, 1,
                          &(size_t){1}, "best values"));
  double started = ck__seconds();
  CK_TRY(ck__pso_spread_create(spread, config, &created->history,
                               &created->spread));
  created->build_seconds = ck__seconds() - started;
  *pso = created;
  return CK_OK;
fail:
  ck_pso_destroy(created);
  return status;
}

static ck_status one_iteration(ck_pso *pso) {
  ck_status status;
  pso_state *state = &pso->state;
  uint64_t iteration = pso->iterations + 1;
  if (state->ring && (status = pso->steps->neighbours(state)) != CK_OK)
    return status;
  if ((status = pso->steps->move(state, iteration)) != CK_OK)
    return status;
  if ((status = evaluate(pso, iteration)) != CK_OK)
    return status;
  if ((status = record_best(pso)) != CK_OK)
    return status;
  pso->iterations = iteration;
  return CK_OK;
}

/* Iterations through the steps' own loop, in runs that end where the
 * history fills. */
static ck_status iterate(ck_pso *pso, uint64_t iterations) {
  pso_state *state = &pso->state;
  while (iterations > 0) {
    uint64_t run = state->history_capacity - pso->history_used;
    run = run < iterations ? run : iterations;
    assert(run > 0 && pso->history_used + run <= state->history_capacity);
    ck_status status = pso->steps->iterate(state, pso->iterations + 1,
                                           (uint32_t)pso->history_used, run);
    if (status)
      return status;
    pso->iterations += run;
    pso->history_used += (uint32_t)run;
    iterations -= run;
    if (pso->history_used == state->history_capacity &&
        (status = flush_history(pso)) != CK_OK)
      return status;
  }
  return CK_OK;
}

/* CK_OK for a swarm that moves at ck_pso_step and ck_pso_run. */
static ck_status not_ask_tell(const ck_pso *pso, const char *function) {
  if (pso->config.ask_tell)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the swarm was made for ask/tell (config.ask_tell); "
                    "it moves at ck_pso_tell",
                    function);
  return CK_OK;
}

ck_status ck_pso_step(ck_pso *pso, uint64_t iterations) {
  CK__REQUIRE(pso);
  ck_status refused = not_ask_tell(pso, "ck_pso_step");
  if (refused)
    return refused;
  if (pso->spread) {
    ck_status status = ck__pso_spread_step(pso->spread, pso->iterations + 1,
                                           iterations, &pso->history);
    if (status == CK_OK)
      pso->iterations += iterations;
    return status;
  }
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

static ck_status run_read(void *self, uint64_t steps,
                          ck__loop_reading *reading) {
  ck_pso *pso = self;
  ck_status status = flush_history(pso);
  if (status == CK_OK)
    ck__loop_read_history(&pso->history, steps, reading);
  if (status == CK_OK && pso->spread)
    status = ck__spread_clock_read(ck__pso_spread_run(pso->spread), &pso->clock,
                                   steps, reading);
  return status;
}

/* A spread run's iterations to its next read, as its processes agreed. */
static uint64_t run_due(void *self, uint64_t steps) {
  (void)steps;
  return ((ck_pso *)self)->clock.chunk;
}

/* Kernel time so far: the queue's, or a spread's members' summed. */
static void kernel_seconds(ck_pso *pso, double *seconds) {
  if (pso->spread)
    *seconds = ck__pso_spread_kernel_seconds(pso->spread);
  else
    ck_queue_get_kernel_seconds(pso->state.queue, seconds);
}

ck_status ck_pso_run(ck_pso *pso, ck_pso_report *report) {
  ck_status status = CK_OK;
  CK__REQUIRE(pso);
  CK__REQUIRE(report);
  memset(report, 0, sizeof *report);
  CK_TRY(not_ask_tell(pso, "ck_pso_run"));
  const ck_pso_config *config = &pso->config;
  pso_state *state = &pso->state;
  ck__loop_rules rules = {.shape = CK__LOOP_CHUNKS,
                          .max_steps = config->max_iterations,
                          .max_evaluations = config->max_evaluations,
                          .per_step = state->n,
                          .default_steps = CK__PSO_DEFAULT_STEPS,
                          .has_target = config->has_target,
                          .max_seconds = config->max_seconds,
                          .check_every = config->check_every,
                          .max_chunk = HISTORY_CAPACITY,
                          .progress = config->progress,
                          .progress_user = config->progress_user,
                          .step_name = "iterations",
                          .best_name = "best",
                          .cancelled = "PSO cancelled after %lld steps"};
  ck__loop_driver driver = {pso, run_step, run_read, NULL};
  /* A spread run reads where its processes agree, and the clock is
   * theirs. */
  if (pso->spread)
    ck__spread_clock_start(&pso->clock, &rules, &driver, run_due);
  ck__loop_outcome outcome;
  uint64_t start = pso->iterations;
  double kernel_before = 0, kernel_after = 0;
  kernel_seconds(pso, &kernel_before);
  /* Every best value read is checked against the target as it comes,
   * before the history thins it out. */
  if (config->has_target)
    ck__history_watch(&pso->history, 0, config->target, start);
  CK_TRY(ck__loop_run(&rules, &driver, &outcome));
  if (!pso->spread)
    CK_TRY(ck_queue_finish(state->queue));
  kernel_seconds(pso, &kernel_after);
  report->stopped_by = outcome.stopped_by;
  report->target_iteration = outcome.target_step;
  report->wall_s = outcome.wall_s;
  report->kernel_s = kernel_after - kernel_before;
  report->build_s = pso->build_seconds;
  /* Moves after the target was met did nothing on the device: neither
   * they nor their history entries (the same best) count. */
  if (report->stopped_by == CK_STOP_TARGET) {
    pso->iterations = report->target_iteration;
    CK_TRY(flush_history(pso));
    ck__history_end_at_met(&pso->history);
  }
  report->iterations = pso->iterations;
  report->evaluations = (uint64_t)state->n * (pso->iterations + 1);
  const double *latest = ck__history_latest(&pso->history);
  report->best = latest ? latest[0] : NAN;
  uint64_t moved = pso->iterations > start ? pso->iterations - start : 0;
  if (report->wall_s > 0) {
    report->evaluations_per_s =
        (double)state->n * (double)moved / report->wall_s;
    report->updates_per_s =
        (double)state->n * (double)state->dim * (double)moved / report->wall_s;
  }
fail:
  ck__history_unwatch(&pso->history);
  return status;
}

/* CK_OK for a swarm made for ask/tell. */
static ck_status is_ask_tell(const ck_pso *pso, const char *function) {
  if (!pso->config.ask_tell)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the swarm was not made for ask/tell (set "
                    "config.ask_tell)",
                    function);
  return CK_OK;
}

ck_status ck_pso_ask(ck_pso *pso, double *x) {
  CK__REQUIRE(pso);
  CK__REQUIRE(x);
  ck_status status = is_ask_tell(pso, "ck_pso_ask");
  return status ? status : read_positions(pso, x);
}

/* What follows the values told and the personal bests kept, wherever
 * the values came from: the global best, then the next move. */
static ck_status told(ck_pso *pso) {
  ck_status status = CK_OK;
  pso_state *state = &pso->state;
  CK_TRY(record_best(pso));
  /* The first values told are the initial swarm's; later ones a move's. */
  if (pso->told)
    pso->iterations++;
  pso->told = 1;
  if (state->ring)
    CK_TRY(pso->steps->neighbours(state));
  CK_TRY(pso->steps->move(state, pso->iterations + 1));
fail:
  return status;
}

ck_status ck_pso_tell(ck_pso *pso, const double *f) {
  ck_status status = CK_OK;
  CK__REQUIRE(pso);
  CK__REQUIRE(f);
  CK_TRY(is_ask_tell(pso, "ck_pso_tell"));
  CK_TRY(keep_values(pso, f));
  CK_TRY(told(pso));
fail:
  return status;
}

ck_status ck_pso_ask_device(ck_pso *pso, ck_device_batch *batch) {
  CK__REQUIRE(pso);
  CK__REQUIRE(batch);
  pso_state *state = &pso->state;
  ck_status status = is_ask_tell(pso, "ck_pso_ask_device");
  return status ? status
                : ck__device_batch_open(state->queue, state->x, state->n,
                                        (size_t)state->dim, state->real_size,
                                        &pso->batch_host, batch);
}

ck_status ck_pso_tell_device(ck_pso *pso, const ck_device_batch *batch) {
  ck_status status = CK_OK;
  CK__REQUIRE(pso);
  CK__REQUIRE(batch);
  pso_state *state = &pso->state;
  CK_TRY(is_ask_tell(pso, "ck_pso_tell_device"));
  CK_TRY(ck__device_batch_take(batch, state->queue, state->values, state->n,
                               state->real_size, "ck_pso_tell_device"));
  CK_TRY(pso->steps->evaluate(state));
  CK_TRY(told(pso));
fail:
  return status;
}

/* The state's arrays, all required. */
static ck_status state_arrays(const ck_pso_state *state, const char *function) {
  const double *arrays[] = {state->positions, state->velocities,
                            state->best_positions, state->best_values,
                            state->global_best};
  return ck__state_arrays(function, "ck_pso_state", arrays,
                          sizeof arrays / sizeof *arrays);
}

/* A per-particle vector of the device (dimension-major) into rows. */
static ck_status read_rows(ck_pso *pso, ck_buffer *buffer, double *rows) {
  pso_state *state = &pso->state;
  return ck__rows_read(state->queue, buffer, state->double_precision,
                       pso->host_x, state->n, (size_t)state->dim, rows);
}

/* Rows onto a per-particle vector of the device. */
static ck_status write_rows(ck_pso *pso, ck_buffer *buffer,
                            const double *rows) {
  pso_state *state = &pso->state;
  return ck__rows_write(state->queue, buffer, state->double_precision,
                        pso->host_x, state->n, (size_t)state->dim, rows);
}

ck_status ck_pso_get_state(ck_pso *pso, ck_pso_state *state) {
  ck_status status = CK_OK;
  CK__REQUIRE(pso);
  CK__REQUIRE(state);
  pso_state *swarm = &pso->state;
  CK_TRY(is_ask_tell(pso, "ck_pso_get_state"));
  CK_TRY(state_arrays(state, "ck_pso_get_state"));
  CK_TRY(read_rows(pso, swarm->x, state->positions));
  CK_TRY(read_rows(pso, swarm->v, state->velocities));
  CK_TRY(read_rows(pso, swarm->pbest, state->best_positions));
  CK_TRY(read_reals(swarm, swarm->pbest_value, state->best_values, swarm->n));
  CK_TRY(
      read_reals(swarm, swarm->gbest, state->global_best, (size_t)swarm->dim));
  CK_TRY(read_reals(swarm, swarm->best_value, &state->global_best_value, 1));
  state->tells = pso->told ? pso->iterations + 1 : 0;
  state->seed = swarm->seed;
fail:
  return status;
}

ck_status ck_pso_set_state(ck_pso *pso, const ck_pso_state *state) {
  ck_status status = CK_OK;
  CK__REQUIRE(pso);
  CK__REQUIRE(state);
  pso_state *swarm = &pso->state;
  size_t n = swarm->n, dim = (size_t)swarm->dim;
  const char *function = "ck_pso_set_state";
  CK_TRY(is_ask_tell(pso, function));
  CK_TRY(state_arrays(state, function));
  CK_TRY(ck__state_seed(function, "swarm", state->seed, swarm->seed));
  CK_TRY(ck__state_finite(function, "positions", state->positions, n * dim));
  CK_TRY(ck__state_finite(function, "velocities", state->velocities, n * dim));
  CK_TRY(ck__state_finite(function, "best_positions", state->best_positions,
                          n * dim));
  CK_TRY(ck__state_finite(function, "global_best", state->global_best, dim));
  CK_TRY(write_rows(pso, swarm->x, state->positions));
  CK_TRY(write_rows(pso, swarm->v, state->velocities));
  CK_TRY(write_rows(pso, swarm->pbest, state->best_positions));
  CK_TRY(ck__values_write(swarm->queue, swarm->pbest_value,
                          swarm->double_precision, pso->host_f,
                          state->best_values, n));
  CK_TRY(write_reals(swarm, swarm->gbest, state->global_best, dim));
  CK_TRY(ck__values_write(swarm->queue, swarm->best_value,
                          swarm->double_precision, pso->host_f,
                          &state->global_best_value, 1));
  pso->told = state->tells > 0;
  pso->iterations = state->tells > 0 ? state->tells - 1 : 0;
fail:
  return status;
}

ck_status ck_pso_get_best(ck_pso *pso, double *value, double *position) {
  ck_status status;
  CK__REQUIRE(pso);
  if (pso->spread)
    return ck__pso_spread_best(pso->spread, value, position);
  pso_state *state = &pso->state;
  if (value &&
      (status = read_reals(state, state->best_value, value, 1)) != CK_OK)
    return status;
  if (position && (status = read_reals(state, state->gbest, position,
                                       (size_t)state->dim)) != CK_OK)
    return status;
  return CK_OK;
}

ck_status ck_pso_get_history(ck_pso *pso, const double **values,
                             size_t *count) {
  CK__REQUIRE(pso);
  CK__REQUIRE(values);
  CK__REQUIRE(count);
  ck_status status = flush_history(pso);
  if (status)
    return status;
  *values = pso->history.entries[0];
  *count = pso->history.count;
  return CK_OK;
}

ck_status ck_pso_get_history_stride(ck_pso *pso, uint64_t *stride) {
  CK__REQUIRE(pso);
  CK__REQUIRE(stride);
  *stride = pso->history.stride;
  return CK_OK;
}

ck_status ck_pso_destroy(ck_pso *pso) {
  if (!pso)
    return CK_OK;
  pso_state *state = &pso->state;
  ck__pso_spread_destroy(pso->spread);
  if (pso->steps)
    pso->steps->teardown(state);
  ck_buffer *buffers[] = {state->lo,
                          state->hi,
                          state->vmax,
                          state->x,
                          state->v,
                          state->pbest,
                          state->pbest_value,
                          state->neighbour,
                          state->gbest,
                          state->best_value,
                          state->best_index,
                          state->partial_values,
                          state->partial_indices,
                          state->history,
                          state->data,
                          state->done,
                          state->values,
                          state->lsq_partial,
                          state->outbox,
                          state->inbox};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i)
    ck_buffer_destroy(buffers[i]);
  ck__host_free(state->queue, state->outbox_host);
  ck__host_free(state->queue, state->inbox_host);
  ck__batch_host_free(&pso->batch_host, state->queue);
  ck_queue_destroy(state->queue);
  ck__problem_free(&pso->problem);
  ck__history_free(&pso->history);
  free(pso->batch);
  free(pso->host_x);
  free(pso->host_rows);
  free(pso->host_f);
  free(pso);
  return CK_OK;
}
