/*
 * pso.c - the PSO driver: the algorithm's loop over a backend's steps
 * (ref, OpenCL or CUDA), host and device objectives, ask/tell, the
 * swarm's state and its reads. pso_create.c makes and frees a swarm.
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

CK__STEPS_TABLE(ck__pso_steps, 9);

pso_state *ck__pso_state(ck_pso *pso) {
  return &pso->state;
}

ck__pso_spread *ck__pso_spread_of(ck_pso *pso) {
  return pso->spread;
}

ck_status ck__pso_write_reals(pso_state *state, ck_buffer *buffer,
                              const double *values, size_t count) {
  return ck__reals_write(state->queue, buffer, state->double_precision, values,
                         count);
}

static ck_status read_reals(pso_state *state, ck_buffer *buffer, double *values,
                            size_t count) {
  return ck__reals_read(state->queue, buffer, state->double_precision, values,
                        count);
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
  ck_status status =
      ck__pso_write_reals(state, state->values, pso->host_f, state->n);
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
ck_status ck__pso_evaluate(ck_pso *pso, uint64_t iteration) {
  if (pso->state.streamed)
    return CK_OK;
  if (pso->config.evaluate_device)
    return evaluate_on_device(pso, iteration);
  if (pso->state.objective == CK_OBJECTIVE_HOST)
    return evaluate_on_host(pso, iteration);
  return pso->steps->evaluate(&pso->state);
}

ck_status ck__pso_record_best(ck_pso *pso) {
  assert(pso->history_used < pso->state.history_capacity);
  ck_status status = pso->steps->update_best(&pso->state, pso->history_used);
  if (status)
    return status;
  if (++pso->history_used == pso->state.history_capacity)
    return flush_history(pso);
  return CK_OK;
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

static ck_status one_iteration(ck_pso *pso) {
  ck_status status;
  pso_state *state = &pso->state;
  uint64_t iteration = pso->iterations + 1;
  if (state->ring && (status = pso->steps->neighbours(state)) != CK_OK)
    return status;
  if ((status = pso->steps->move(state, iteration)) != CK_OK)
    return status;
  if ((status = ck__pso_evaluate(pso, iteration)) != CK_OK)
    return status;
  if ((status = ck__pso_record_best(pso)) != CK_OK)
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
                          .max_chunk = CK__PSO_HISTORY_CAPACITY,
                          .progress = config->progress,
                          .progress_user = config->progress_user,
                          .step_name = "iterations",
                          .best_name = "best",
                          .cancelled = "PSO cancelled after %lld steps",
                          .timeline = pso->timeline,
                          .timeline_from = pso->iterations};
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
  CK_TRY(ck__pso_record_best(pso));
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
  const ck__state_bests bests = {.values_name = "best_values",
                                 .positions_name = "best_positions",
                                 .best_name = "global_best_value",
                                 .position_name = "global_best",
                                 .values = state->best_values,
                                 .positions = state->best_positions,
                                 .position = state->global_best,
                                 .best = state->global_best_value,
                                 .count = n,
                                 .dim = dim,
                                 .tells = state->tells};
  CK_TRY(ck__state_bests_check(function, swarm->double_precision, &bests));
  CK_TRY(write_rows(pso, swarm->x, state->positions));
  CK_TRY(write_rows(pso, swarm->v, state->velocities));
  CK_TRY(write_rows(pso, swarm->pbest, state->best_positions));
  CK_TRY(ck__values_write(swarm->queue, swarm->pbest_value,
                          swarm->double_precision, pso->host_f,
                          state->best_values, n));
  CK_TRY(ck__pso_write_reals(swarm, swarm->gbest, state->global_best, dim));
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
