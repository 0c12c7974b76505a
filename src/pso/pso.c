/*
 * pso.c - the PSO driver: the algorithm's loop over a backend's steps
 * (ref, OpenCL or CUDA), host and device objectives, ask/tell, the
 * swarm's state and its reads. A swarm's members step through the member
 * engine (framework/engine.h), one member on one device; pso_create.c
 * makes and frees them, pso_spread.c says what they exchange.
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
  return &pso->swarms[0]->state;
}

/* The member of a swarm that runs on one device: ask/tell, host
 * objectives and the state are its alone. */
static pso_swarm *alone(ck_pso *pso) {
  assert(pso->local == 1 && ck__engine_members(pso->engine) == 1);
  return pso->swarms[0];
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

double ck__pso_real(const ck_pso *pso, const void *at) {
  if (pso->double_precision) {
    double value;
    memcpy(&value, at, sizeof value);
    return value;
  }
  float value;
  memcpy(&value, at, sizeof value);
  return value;
}

ck_status ck__pso_flush_history(pso_swarm *swarm) {
  pso_state *state = &swarm->state;
  if (swarm->history_used == 0 || !swarm->history)
    return CK_OK;
  ck_status status =
      read_reals(state, state->history, swarm->batch, swarm->history_used);
  if (status == CK_OK)
    status = ck__history_push_rows(swarm->history, swarm->batch,
                                   swarm->history_used);
  if (status)
    return status;
  swarm->history_used = 0;
  return CK_OK;
}

/* Host objectives: the swarm's positions, row-major, into rows. */
static ck_status read_positions(pso_swarm *swarm, double *rows) {
  pso_state *state = &swarm->state;
  size_t n = state->n, dim = (size_t)state->dim;
  ck_status status = read_reals(state, state->x, swarm->host_x, n * dim);
  if (status == CK_OK)
    ck__host_rows(swarm->host_x, n, dim, rows);
  return status;
}

/* Host values onto the device, made comparable, and the personal bests
 * kept. */
static ck_status keep_values(pso_swarm *swarm, const double *f) {
  pso_state *state = &swarm->state;
  ck__host_values(state->double_precision, f, swarm->host_f, state->n);
  ck_status status =
      ck__pso_write_reals(state, state->values, swarm->host_f, state->n);
  return status ? status : swarm->steps->evaluate(state);
}

/* The evaluate callback over the swarm's positions after `iteration`
 * moves. */
static ck_status evaluate_on_host(pso_swarm *swarm, uint64_t iteration) {
  pso_state *state = &swarm->state;
  ck_status status = read_positions(swarm, swarm->host_rows);
  if (status)
    return status;
  status =
      swarm->config.evaluate(swarm->host_rows, state->n, (size_t)state->dim,
                             swarm->host_f, swarm->config.evaluate_user);
  if (status)
    return ck__host_failed("ck_pso_config", status, "iteration", iteration);
  return keep_values(swarm, swarm->host_f);
}

/* The device objective over the swarm's positions after `iteration`
 * moves: they stay on a CUDA device, else are copied into page-locked
 * host memory. */
static ck_status evaluate_on_device(pso_swarm *swarm, uint64_t iteration) {
  pso_state *state = &swarm->state;
  ck__device_objective objective = {swarm->config.evaluate_device,
                                    swarm->config.evaluate_user,
                                    "ck_pso_config",
                                    "iteration",
                                    &swarm->batch_host,
                                    swarm->config.evaluate_device_ordered};
  ck_status status = ck__device_objective_call(
      &objective, state->queue, state->x, state->n, (size_t)state->dim,
      state->real_size, state->values, iteration);
  return status ? status : swarm->steps->evaluate(state);
}

ck_status ck__pso_evaluate(pso_swarm *swarm, uint64_t iteration) {
  if (swarm->state.streamed)
    return CK_OK;
  if (swarm->config.evaluate_device)
    return evaluate_on_device(swarm, iteration);
  if (swarm->state.objective == CK_OBJECTIVE_HOST)
    return evaluate_on_host(swarm, iteration);
  return swarm->steps->evaluate(&swarm->state);
}

ck_status ck__pso_record_best(pso_swarm *swarm) {
  assert(swarm->history_used < swarm->state.history_capacity);
  ck_status status =
      swarm->steps->update_best(&swarm->state, swarm->history_used);
  if (status)
    return status;
  if (++swarm->history_used < swarm->state.history_capacity)
    return CK_OK;
  /* Entries no one reads go round. */
  if (!swarm->history)
    swarm->history_used = 0;
  return ck__pso_flush_history(swarm);
}

static ck_status one_iteration(pso_swarm *swarm, uint64_t iteration) {
  ck_status status;
  pso_state *state = &swarm->state;
  if (state->ring && (status = swarm->steps->neighbours(state)) != CK_OK)
    return status;
  if ((status = swarm->steps->move(state, iteration)) != CK_OK)
    return status;
  if ((status = ck__pso_evaluate(swarm, iteration)) != CK_OK)
    return status;
  return ck__pso_record_best(swarm);
}

/* Iterations through the steps' own loop, in runs that end where the
 * history fills. */
static ck_status iterate(pso_swarm *swarm, uint64_t first, uint64_t count) {
  pso_state *state = &swarm->state;
  while (count > 0) {
    uint64_t run = state->history_capacity - swarm->history_used;
    run = run < count ? run : count;
    assert(run > 0 && swarm->history_used + run <= state->history_capacity);
    ck_status status =
        swarm->steps->iterate(state, first, swarm->history_used, run);
    if (status)
      return status;
    first += run;
    swarm->history_used += (uint32_t)run;
    count -= run;
    if (swarm->history_used < state->history_capacity)
      continue;
    if (!swarm->history)
      swarm->history_used = 0;
    if ((status = ck__pso_flush_history(swarm)) != CK_OK)
      return status;
  }
  return CK_OK;
}

ck_status ck__pso_advance(pso_swarm *swarm, uint64_t first, uint64_t count) {
  assert(first >= 1);
  if (swarm->steps->iterate && swarm->state.iterates)
    return iterate(swarm, first, count);
  for (uint64_t k = 0; k < count; ++k) {
    ck_status status = one_iteration(swarm, first + k);
    if (status)
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
  ck_status status = not_ask_tell(pso, "ck_pso_step");
  if (status == CK_OK)
    status = ck__engine_step(pso->engine, pso->iterations + 1, iterations);
  if (status == CK_OK)
    pso->iterations += iterations;
  return status;
}

/* The best entries of every member that keeps the run's history. */
static ck_status flush_histories(ck_pso *pso) {
  ck_status status = CK_OK;
  for (size_t i = 0; i < pso->local && status == CK_OK; ++i)
    status = ck__pso_flush_history(pso->swarms[i]);
  return status;
}

static ck_status run_step(void *self, uint64_t steps) {
  return ck_pso_step(self, steps);
}

static ck_status run_read(void *self, uint64_t steps,
                          ck__loop_reading *reading) {
  ck_pso *pso = self;
  ck_status status = flush_histories(pso);
  if (status == CK_OK)
    ck__loop_read_history(&pso->history, steps, reading);
  return status;
}

static ck_status finish_member(void *self, size_t i) {
  return ck_queue_finish(((ck_pso *)self)->swarms[i]->state.queue);
}

ck_status ck_pso_run(ck_pso *pso, ck_pso_report *report) {
  ck_status status = CK_OK;
  CK__REQUIRE(pso);
  CK__REQUIRE(report);
  memset(report, 0, sizeof *report);
  CK_TRY(not_ask_tell(pso, "ck_pso_run"));
  const ck_pso_config *config = &pso->config;
  size_t n = config->particles;
  ck__loop_rules rules = {.shape = CK__LOOP_CHUNKS,
                          .max_steps = config->max_iterations,
                          .max_evaluations = config->max_evaluations,
                          .per_step = n,
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
  ck__loop_outcome outcome;
  uint64_t start = pso->iterations;
  double kernel_before = ck__engine_kernel_seconds(pso->engine);
  /* Every best value read is checked against the target as it comes,
   * before the history thins it out. */
  if (config->has_target)
    ck__history_watch(&pso->history, 0, config->target, start);
  CK_TRY(ck__engine_loop(pso->engine, &rules, &driver, &outcome));
  /* A device's failure in the last moves is this run's. */
  CK_TRY(ck__engine_each(pso->engine, finish_member, pso));
  report->stopped_by = outcome.stopped_by;
  report->target_iteration = outcome.target_step;
  report->wall_s = outcome.wall_s;
  report->kernel_s = ck__engine_kernel_seconds(pso->engine) - kernel_before;
  report->build_s = pso->build_seconds;
  /* Moves after the target was met did nothing on the device: neither
   * they nor their history entries (the same best) count. */
  if (report->stopped_by == CK_STOP_TARGET) {
    pso->iterations = report->target_iteration;
    CK_TRY(flush_histories(pso));
    ck__history_end_at_met(&pso->history);
  }
  report->iterations = pso->iterations;
  report->evaluations = (uint64_t)n * (pso->iterations + 1);
  const double *latest = ck__history_latest(&pso->history);
  report->best = latest ? latest[0] : NAN;
  uint64_t moved = pso->iterations > start ? pso->iterations - start : 0;
  if (report->wall_s > 0) {
    report->evaluations_per_s = (double)n * (double)moved / report->wall_s;
    report->updates_per_s =
        (double)n * (double)pso->dim * (double)moved / report->wall_s;
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
  return status ? status : read_positions(alone(pso), x);
}

/* What follows the values told and the personal bests kept, wherever
 * the values came from: the global best, then the next move. */
static ck_status told(ck_pso *pso) {
  ck_status status = CK_OK;
  pso_swarm *swarm = alone(pso);
  pso_state *state = &swarm->state;
  CK_TRY(ck__pso_record_best(swarm));
  /* The first values told are the initial swarm's; later ones a move's. */
  if (pso->told)
    pso->iterations++;
  pso->told = 1;
  if (state->ring)
    CK_TRY(swarm->steps->neighbours(state));
  CK_TRY(swarm->steps->move(state, pso->iterations + 1));
fail:
  return status;
}

ck_status ck_pso_tell(ck_pso *pso, const double *f) {
  ck_status status = CK_OK;
  CK__REQUIRE(pso);
  CK__REQUIRE(f);
  CK_TRY(is_ask_tell(pso, "ck_pso_tell"));
  CK_TRY(keep_values(alone(pso), f));
  CK_TRY(told(pso));
fail:
  return status;
}

ck_status ck_pso_ask_device(ck_pso *pso, ck_device_batch *batch) {
  CK__REQUIRE(pso);
  CK__REQUIRE(batch);
  ck_status status = is_ask_tell(pso, "ck_pso_ask_device");
  if (status)
    return status;
  pso_swarm *swarm = alone(pso);
  pso_state *state = &swarm->state;
  return ck__device_batch_open(state->queue, state->x, state->n,
                               (size_t)state->dim, state->real_size,
                               &swarm->batch_host, batch);
}

ck_status ck_pso_tell_device(ck_pso *pso, const ck_device_batch *batch) {
  ck_status status = CK_OK;
  CK__REQUIRE(pso);
  CK__REQUIRE(batch);
  CK_TRY(is_ask_tell(pso, "ck_pso_tell_device"));
  pso_swarm *swarm = alone(pso);
  pso_state *state = &swarm->state;
  CK_TRY(ck__device_batch_take(batch, state->queue, state->values, state->n,
                               state->real_size, "ck_pso_tell_device"));
  CK_TRY(swarm->steps->evaluate(state));
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
static ck_status read_rows(pso_swarm *swarm, ck_buffer *buffer, double *rows) {
  pso_state *state = &swarm->state;
  return ck__rows_read(state->queue, buffer, state->double_precision,
                       swarm->host_x, state->n, (size_t)state->dim, rows);
}

/* Rows onto a per-particle vector of the device. */
static ck_status write_rows(pso_swarm *swarm, ck_buffer *buffer,
                            const double *rows) {
  pso_state *state = &swarm->state;
  return ck__rows_write(state->queue, buffer, state->double_precision,
                        swarm->host_x, state->n, (size_t)state->dim, rows);
}

ck_status ck_pso_get_state(ck_pso *pso, ck_pso_state *state) {
  ck_status status = CK_OK;
  CK__REQUIRE(pso);
  CK__REQUIRE(state);
  CK_TRY(is_ask_tell(pso, "ck_pso_get_state"));
  CK_TRY(state_arrays(state, "ck_pso_get_state"));
  pso_swarm *member = alone(pso);
  pso_state *swarm = &member->state;
  CK_TRY(read_rows(member, swarm->x, state->positions));
  CK_TRY(read_rows(member, swarm->v, state->velocities));
  CK_TRY(read_rows(member, swarm->pbest, state->best_positions));
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
  const char *function = "ck_pso_set_state";
  CK_TRY(is_ask_tell(pso, function));
  pso_swarm *member = alone(pso);
  pso_state *swarm = &member->state;
  size_t n = swarm->n, dim = (size_t)swarm->dim;
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
  CK_TRY(write_rows(member, swarm->x, state->positions));
  CK_TRY(write_rows(member, swarm->v, state->velocities));
  CK_TRY(write_rows(member, swarm->pbest, state->best_positions));
  CK_TRY(ck__values_write(swarm->queue, swarm->pbest_value,
                          swarm->double_precision, member->host_f,
                          state->best_values, n));
  CK_TRY(ck__pso_write_reals(swarm, swarm->gbest, state->global_best, dim));
  CK_TRY(ck__values_write(swarm->queue, swarm->best_value,
                          swarm->double_precision, member->host_f,
                          &state->global_best_value, 1));
  pso->told = state->tells > 0;
  pso->iterations = state->tells > 0 ? state->tells - 1 : 0;
fail:
  return status;
}

ck_status ck_pso_get_best(ck_pso *pso, double *value, double *position) {
  CK__REQUIRE(pso);
  const void *item = NULL;
  ck_status status = ck__engine_best(pso->engine, NULL, NULL, &item);
  if (status)
    return status;
  /* An item is the best's value, then its position. */
  const unsigned char *at = item;
  if (value)
    *value = ck__pso_real(pso, at);
  for (int d = 0; position && d < pso->dim; ++d)
    position[d] = ck__pso_real(pso, at + (size_t)(d + 1) * pso->real);
  return CK_OK;
}

ck_status ck_pso_get_history(ck_pso *pso, const double **values,
                             size_t *count) {
  CK__REQUIRE(pso);
  CK__REQUIRE(values);
  CK__REQUIRE(count);
  ck_status status = flush_histories(pso);
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
