/*
 * aco.c - the ACO driver: the iteration loop (deposit schedule, MMAS
 * bounds and restarts, partitioning, stopping rules) over a backend's
 * steps (ref, OpenCL or CUDA), the focused method's sources, and the run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aco/aco_internal.h"
#include "ck_aco.h"
#include "framework/framework.h"
#include "tsp/tsp_internal.h"

CK__STEPS_TABLE(ck__aco_steps, 10);

/* A colony's device state and steps: a slice's own, or (a colony of
 * members) its first member's. */
aco_state *ck__aco_state(ck_aco *aco) {
  return aco->spread
             ? ck__aco_state((ck_aco *)ck__aco_spread_member(aco->spread))
             : &aco->state;
}

const ck__aco_steps *ck__aco_steps_of(const ck_aco *aco) {
  return aco->spread ? ck__aco_steps_of(ck__aco_spread_member(aco->spread))
                     : aco->steps;
}

ck__aco_spread *ck__aco_spread_of(const ck_aco *aco) {
  return aco->spread;
}

int64_t ck__aco_best_length(const ck_aco *aco) {
  return aco->best_length;
}

uint64_t ck__aco_restarts(const ck_aco *aco) {
  return aco->restarts;
}

uint32_t ck__aco_focus_improved(const aco_state *state,
                                const int64_t *lengths) {
  int own = state->focus_from == CK_ACO_SOURCE_OWN;
  uint32_t improved = 0;
  for (uint32_t ant = 0; ant < state->ants; ++ant)
    improved += lengths[ant] <
                (own ? state->source_lengths[ant] : state->focus_source_length);
  return improved;
}

void ck__aco_focus_begin(aco_state *state, const int64_t *lengths) {
  if (state->focused && state->focus_adaptive)
    state->focus_bound = ck_aco_focus_bound(
        state->focus_bound, ck__aco_focus_improved(state, lengths), state->ants,
        state->n);
  /* Until an iteration was focused, the ants' tours and the iteration's
   * best need not be local optima around a few changes: the best is. */
  state->focus_from = state->focused ? state->focus_source : CK_ACO_SOURCE_BEST;
  state->focused = 1;
  state->focus_source_length = state->focus_from == CK_ACO_SOURCE_ITERATION
                                   ? state->iteration_length
                                   : state->best_length;
  if (state->focus_from == CK_ACO_SOURCE_OWN && state->focus_adaptive)
    memcpy(state->source_lengths, lengths,
           (size_t)state->ants * sizeof *lengths);
}

ck__aco_source ck__aco_focus_source(const aco_state *state) {
  ck__aco_source source = {state->best_tour, state->best_positions, 0, 0, 0};
  if (state->focus_from == CK_ACO_SOURCE_BEST)
    return source;
  source.tours = state->source_tours;
  source.positions = state->source_positions;
  if (state->focus_from == CK_ACO_SOURCE_OWN) {
    source.stride = state->n;
    source.kept = state->ants;
  } else {
    source.first = state->iteration_ant;
    source.kept = 1;
  }
  return source;
}

/* tau_max and tau_min of MMAS for the best length so far. A focused ant
 * chooses among k candidates at each of a few steps, not n: p_best is
 * spread over k choices with k on average, which keeps tau_min high
 * enough for ants to leave the best tour (Skinderowicz 2022). */
static void mmas_bounds(const ck_aco *aco, float *tau_min, float *tau_max) {
  int focused = aco->state.method == CK_ACO_FOCUSED;
  double k = (double)aco->state.k;
  double high = 1.0 / (aco->rho * (double)aco->best_length);
  double root = pow(aco->p_best, 1.0 / (focused ? k : (double)aco->state.n));
  double average = focused ? k : (k + 1.0) / 2.0;
  double low = high * (1.0 - root) / ((average - 1.0) * root);
  *tau_max = (float)high;
  *tau_min = (float)(low < high ? low : high);
}

static ck_status add_trace(ck_aco *aco) {
  if (!aco->config.keep_trace)
    return CK_OK;
  if (aco->trace_count == aco->trace_allocated) {
    size_t grown = aco->trace_allocated ? 2 * aco->trace_allocated : 64;
    ck_aco_trace_point *points =
        realloc(aco->trace, grown * sizeof *aco->trace);
    if (!points)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
    aco->trace = points;
    aco->trace_allocated = grown;
  }
  ck_aco_trace_point *point = &aco->trace[aco->trace_count++];
  point->time_s = aco->best_time;
  point->iteration = aco->best_iteration;
  point->length = aco->best_length;
  return CK_OK;
}

/* The focused method's first tour, on instances of at least twice
 * FOCUS_START_SEGMENT cities: the ants build greedy tours without local
 * search; the best tour is then searched in segments of that many cities,
 * all at once on a device, in FOCUS_START_PASSES passes with shifted cuts,
 * and last as a whole. Every ant's search from scratch would hold the
 * device for seconds on 100,000 cities; the segments leave the whole
 * search little to do. */
enum { FOCUS_START_SEGMENT = 256, FOCUS_START_PASSES = 3 };

static int focused_start(const ck_aco *aco) {
  const aco_state *state = &aco->state;
  return state->method == CK_ACO_FOCUSED && state->local_search &&
         aco->best_length == INT64_MAX && state->n >= 2 * FOCUS_START_SEGMENT;
}

/*
 * The colony's phases: on a colony's members (aco_members.c), which agree
 * on what one device would do, or on a member's slice's own steps (a
 * probe's trial, a member's own colony). Ants are numbered over the
 * whole colony.
 */
ck_status ck__aco_construct(ck_aco *aco, uint64_t iteration, int start,
                            int search) {
  ck_status status = CK_OK;
  aco_state *state = &aco->state;
  if (start) {
    /* Greedy tours (q0 = 1: each ant's nearest-neighbour tour), whose
     * runs of nearby cities the search in segments can improve. */
    float q0 = state->q0;
    state->q0 = 1.0f;
    status = aco->steps->construct(state, iteration);
    state->q0 = q0;
    return status;
  }
  CK_TRY(aco->steps->construct(state, iteration));
  if (search)
    CK_TRY(aco->steps->local_search(state, NULL, 0));
fail:
  return status;
}

static ck_status colony_construct(ck_aco *aco, uint64_t iteration) {
  int start = focused_start(aco);
  if (aco->spread)
    return ck__aco_spread_construct(aco->spread, iteration, aco->best_length,
                                    start);
  return ck__aco_construct(aco, iteration, start, aco->state.local_search);
}

static ck_status colony_iteration_best(ck_aco *aco, int64_t *length,
                                       uint32_t *ant) {
  return aco->spread ? ck__aco_spread_iteration_best(aco->spread, length, ant)
                     : aco->steps->iteration_best(&aco->state, length, ant);
}

static ck_status colony_keep_best(ck_aco *aco, uint32_t ant) {
  return aco->spread
             ? ck__aco_spread_keep_best(aco->spread, ant, aco->best_tour)
             : aco->steps->keep_best(&aco->state, ant, aco->best_tour);
}

/* The best tour's positions, for seeding local search. */
static ck_status colony_seed(ck_aco *aco) {
  aco_state *state = &aco->state;
  int seeded = aco->config.seeded_search;
  if (aco->spread)
    return ck__aco_spread_seed(aco->spread, aco->best_positions, seeded);
  state->seeded = seeded;
  return ck_buffer_write(state->queue, state->best_positions, 0,
                         (size_t)state->n * sizeof *aco->best_positions,
                         aco->best_positions, CK_BLOCKING, NULL);
}

static ck_status colony_partition(ck_aco *aco, uint32_t size, uint32_t offset,
                                  int64_t *gain) {
  return aco->spread
             ? ck__aco_spread_partition(aco->spread, size, offset,
                                        aco->partitions, aco->state.kicks,
                                        aco->best_tour, gain)
             : aco->steps->partition(&aco->state, size, offset, aco->partitions,
                                     aco->best_tour, gain);
}

static ck_status colony_deposit(ck_aco *aco, uint32_t ant, float scale,
                                float amount) {
  return aco->spread ? ck__aco_spread_deposit(aco->spread, ant, scale, amount)
                     : aco->steps->deposit(&aco->state, ant, scale, amount);
}

static ck_status colony_update(ck_aco *aco, float keep, float tau_min,
                               float tau_max) {
  return aco->spread
             ? ck__aco_spread_update(aco->spread, keep, tau_min, tau_max)
             : aco->steps->update(&aco->state, keep, tau_min, tau_max);
}

static ck_status colony_reset(ck_aco *aco, float tau) {
  return aco->spread ? ck__aco_spread_reset(aco->spread, tau)
                     : aco->steps->reset(&aco->state, tau);
}

/* A new best tour in aco->best_tour: its exact length, checked on the
 * host (a device without fp64 may round a distance differently). */
static ck_status accept_best(ck_aco *aco) {
  int64_t exact;
  ck_status status =
      ck_tsp_tour_measure(aco->state.instance, aco->best_tour, &exact);
  /* The tour is the device's, not the caller's: a device fault (exit 1),
   * not an argument refused. */
  if (status)
    return ck__fail_prefix(
        status == CK_ERROR_INVALID_ARGUMENT ? CK_ERROR_DEVICE : status,
        "ACO on device %s produced a bad tour: ", aco->state.device.id);
  aco_state *state = &aco->state;
  for (uint32_t i = 0; i < state->n; ++i)
    aco->best_positions[aco->best_tour[i]] = i;
  if ((status = colony_seed(aco)))
    return status;
  aco->best_length = exact;
  state->best_length = exact;
  aco->best_iteration = aco->iteration;
  aco->best_time = ck__seconds() - aco->started;
  aco->since_improvement = 0;
  return add_trace(aco);
}

/* The global pheromone update of the best tour so far, of length L: ACS
 * tau = (1 - rho) tau + rho / L; MMAS tau + 1 / (L share), then `keep`
 * (the evaporation that follows) and the bounds. */
static ck_status deposit_best(ck_aco *aco, double share, float keep) {
  ck_status status = CK_OK;
  double length = (double)aco->best_length;
  if (aco->config.algorithm == CK_ACO_ACS) {
    CK_TRY(colony_deposit(aco, CK__ACO_BEST, (float)(1.0 - aco->rho),
                          (float)(aco->rho / length)));
    CK_TRY(colony_update(aco, 1.0f, 0.0f, 3.0e38f));
  } else {
    float tau_min, tau_max;
    mmas_bounds(aco, &tau_min, &tau_max);
    CK_TRY(colony_deposit(aco, CK__ACO_BEST, 1.0f,
                          (float)(1.0 / (length * share))));
    CK_TRY(colony_update(aco, keep, tau_min, tau_max));
  }
fail:
  return status;
}

ck_status ck__aco_search_start(ck_aco *aco, int64_t length) {
  ck_status status = CK_OK;
  aco_state *state = &aco->state;
  uint32_t first = 0;
  int seeded = state->seeded;
  CK_TRY(ck_buffer_copy(state->queue, state->tours, 0, state->best_tour, 0,
                        (size_t)state->n * sizeof(uint32_t), NULL));
  CK_TRY(ck_buffer_write(state->queue, state->lengths, 0, sizeof length,
                         &length, CK_BLOCKING, NULL));
  state->seeded = 0;
  CK_TRY(aco->steps->local_search(state, &first, 1));
fail:
  state->seeded = seeded;
  ck_buffer_destroy(state->segment_scratch);
  state->segment_scratch = NULL;
  return status;
}

/* Local search of the focused method's first tour (focused_start): in
 * segments without kicks, then on the whole tour from scratch, in ant 0's
 * place, to a true local optimum. Focused ants search only around their
 * changes, so their source must be one. */
static ck_status improve_start(ck_aco *aco) {
  ck_status status = CK_OK;
  aco_state *state = &aco->state;
  uint32_t kicks = state->kicks;
  state->kicks = 0;
  for (uint32_t pass = 0; pass < FOCUS_START_PASSES; ++pass) {
    uint32_t offset = pass * (FOCUS_START_SEGMENT / FOCUS_START_PASSES);
    int64_t gain;
    CK_TRY(colony_partition(aco, FOCUS_START_SEGMENT, offset, &gain));
    aco->partitions++;
    if (gain > 0)
      CK_TRY(accept_best(aco));
  }
  /* The device's best tour is the host's (accept_best). */
  CK_TRY(aco->spread
             ? ck__aco_spread_search_start(aco->spread, aco->best_length)
             : ck__aco_search_start(aco, aco->best_length));
  int64_t length;
  uint32_t ant;
  CK_TRY(colony_iteration_best(aco, &length, &ant));
  if (length < aco->best_length) {
    CK_TRY(colony_keep_best(aco, ant));
    CK_TRY(accept_best(aco));
  }
fail:
  state->kicks = kicks;
  return status;
}

ck_status ck__aco_iterate_begin(ck_aco *aco) {
  if (!aco->started)
    aco->started = ck__seconds();
  return colony_construct(aco, aco->iteration);
}

ck_status ck__aco_iterate_end(ck_aco *aco) {
  ck_status status = CK_OK;
  aco_state *state = &aco->state;
  int64_t length;
  uint32_t ant;
  int start = focused_start(aco);
  CK_TRY(colony_iteration_best(aco, &length, &ant));
  state->iteration_ant = ant;
  state->iteration_length = length;
  aco->iteration++;
  aco->since_improvement++;
  if (length < aco->best_length) {
    CK_TRY(colony_keep_best(aco, ant));
    CK_TRY(accept_best(aco));
  }
  if (start)
    CK_TRY(improve_start(aco));
  uint32_t K = aco->config.partition;
  if (K &&
      aco->iteration %
              (aco->config.partition_every ? aco->config.partition_every : 1) ==
          0) {
    /* Shift the cuts by a third of a segment each pass. */
    uint32_t offset = (uint32_t)((aco->partitions * (K / 3 + 1)) % state->n);
    int64_t gain;
    CK_TRY(colony_partition(aco, K, offset, &gain));
    aco->partitions++;
    if (gain > 0)
      CK_TRY(accept_best(aco));
  }
  /* ACS: only the best-so-far tour deposits. */
  if (aco->config.algorithm == CK_ACO_ACS)
    return deposit_best(aco, 1.0, 1.0f);
  /*
   * MMAS: the iteration-best tour deposits, and the best-so-far one every
   * u-th iteration, u falling from 25 to 1 as the run since the last
   * restart ages (the schedule of Stuetzle and Hoos for MMAS with local
   * search). The deposit is scaled by 1 / (1 - rho) so that the update's
   * evaporation, which follows, leaves (1 - rho) tau + 1 / L.
   */
  uint64_t age = aco->iteration - aco->restart_iteration;
  uint64_t every = age < 25    ? 25
                   : age < 75  ? 5
                   : age < 125 ? 3
                   : age < 250 ? 2
                               : 1;
  int from_best = aco->iteration % every == 0;
  float tau_min, tau_max;
  mmas_bounds(aco, &tau_min, &tau_max);
  if (aco->config.restart_after &&
      aco->since_improvement >= aco->config.restart_after) {
    CK_TRY(colony_reset(aco, tau_max));
    CK_TRY(colony_update(aco, 1.0f, tau_min, tau_max));
    aco->restart_iteration = aco->iteration;
    aco->since_improvement = 0;
    aco->restarts++;
    return CK_OK;
  }
  float keep = (float)(1.0 - aco->rho);
  if (from_best)
    return deposit_best(aco, 1.0 - aco->rho, keep);
  CK_TRY(colony_deposit(aco, ant, 1.0f,
                        (float)(1.0 / ((double)length * (1.0 - aco->rho)))));
  CK_TRY(colony_update(aco, keep, tau_min, tau_max));
fail:
  return status;
}

ck_status ck__aco_adopt(ck_aco *aco, const uint32_t *tour) {
  ck_status status = CK_OK;
  aco_state *state = &aco->state;
  memcpy(aco->best_tour, tour, (size_t)state->n * sizeof *tour);
  CK_TRY(ck_buffer_write(state->queue, state->best_tour, 0,
                         (size_t)state->n * sizeof *tour, tour, CK_BLOCKING,
                         NULL));
  CK_TRY(accept_best(aco));
  /* Deposited at once, unevaporated, as the global update would. */
  CK_TRY(deposit_best(aco, 1.0, 1.0f));
fail:
  return status;
}

static ck_status iterate(ck_aco *aco) {
  ck_status status = CK_OK;
  if (!aco->spread || !ck__aco_spread_colonies(aco->spread)) {
    CK_TRY(ck__aco_iterate_begin(aco));
    return ck__aco_iterate_end(aco);
  }
  /* Colonies: each its own; the driver keeps the best of all. */
  int improved = 0;
  CK_TRY(ck__aco_spread_colonies_step(aco->spread, aco->best_length,
                                      aco->best_tour, &improved));
  aco->iteration++;
  if (improved)
    CK_TRY(accept_best(aco));
  CK_TRY(ck__aco_spread_share(aco->spread, aco->iteration, aco->best_length,
                              aco->best_tour));
fail:
  return status;
}

ck_status ck_aco_step(ck_aco *aco, uint64_t iterations) {
  CK__REQUIRE(aco);
  if (!aco->started)
    aco->started = ck__seconds();
  for (uint64_t i = 0; i < iterations; ++i) {
    ck_status status = iterate(aco);
    if (status)
      return status;
  }
  return CK_OK;
}

static ck_status run_step(void *self, uint64_t steps) {
  return ck_aco_step(self, steps);
}

/* The best length so far, and whether it is within the target's gap. A
 * spread colony's processes stop on the clock together: when the latest
 * of them is late, unless the target or the iterations stop the run. */
static ck_status run_read(void *self, uint64_t steps,
                          ck__loop_reading *reading) {
  ck_status status = CK_OK;
  const ck_aco *aco = self;
  const ck_aco_config *config = &aco->config;
  reading->best = (double)aco->best_length;
  reading->met =
      config->has_target &&
      (double)aco->best_length <=
          (double)config->optimum * (1.0 + config->target_gap / 100.0);
  if (aco->spread && config->max_seconds > 0 && !reading->met &&
      !(config->max_iterations && steps >= config->max_iterations)) {
    double latest = 0;
    CK_TRY(ck__aco_spread_latest(aco->spread, ck__seconds() - aco->started,
                                 &latest));
    if (latest >= config->max_seconds)
      reading->stop = CK_STOP_TIME;
  }
fail:
  return status;
}

/* Kernel seconds so far: the queue's, or a spread colony's members'. */
static double kernel_seconds(const ck_aco *aco) {
  double seconds = 0;
  if (aco->spread)
    return ck__aco_spread_kernel_seconds(aco->spread);
  if (ck_queue_finish(aco->state.queue) != CK_OK ||
      ck_queue_get_kernel_seconds(aco->state.queue, &seconds) != CK_OK)
    return 0;
  return seconds;
}

ck_status ck_aco_run(ck_aco *aco, ck_aco_report *report) {
  ck_status status = CK_OK;
  CK__REQUIRE(aco);
  CK__REQUIRE(report);
  memset(report, 0, sizeof *report);
  const ck_aco_config *config = &aco->config;
  /* A spread colony's clock is run_read's; the loop's never stops it. */
  const double clock_off = INFINITY;
  const ck__loop_rules rules = {
      .shape = CK__LOOP_STEPWISE,
      .max_steps = config->max_iterations,
      .default_steps = CK__ACO_DEFAULT_STEPS,
      .has_target = config->has_target,
      .max_seconds =
          aco->spread && config->max_seconds ? clock_off : config->max_seconds,
      .check_every = 1,
      .progress = config->progress,
      .progress_user = config->progress_user,
      .step_name = "iterations",
      .best_name = "tour_length",
      .cancelled = "ACO cancelled after %lld iterations"};
  const ck__loop_driver driver = {aco, run_step, run_read, NULL};
  ck__loop_outcome outcome;
  double kernel_before = kernel_seconds(aco);
  if (aco->spread)
    ck__aco_spread_clocks_start(aco->spread);
  aco->started = ck__seconds();
  uint64_t first = aco->iteration;
  CK_TRY(ck__loop_run(&rules, &driver, &outcome));
  if (!aco->spread)
    CK_TRY(ck_queue_finish(aco->state.queue));
  double kernel_after = kernel_seconds(aco);
  report->wall_s = ck__seconds() - aco->started;
  report->kernel_s = kernel_after - kernel_before;
  report->setup_s = aco->setup_s;
  report->best_length = aco->best_length;
  report->gap = config->optimum
                    ? 100.0 * (double)(aco->best_length - config->optimum) /
                          (double)config->optimum
                    : NAN;
  report->iterations = aco->iteration - first;
  report->best_iteration = aco->best_iteration;
  report->best_time_s = aco->best_time;
  report->tours = report->iterations * aco->state.ants;
  report->stopped_by = outcome.stopped_by;
  report->tours_per_s =
      report->wall_s > 0 ? (double)report->tours / report->wall_s : 0;
  report->ants = aco->state.ants;
  report->candidates = aco->state.k;
  report->method = aco->state.method;
  report->restarts = aco->restarts;
  if (aco->spread)
    CK_TRY(ck__aco_spread_restarts(aco->spread, &report->restarts));
fail:
  return status;
}

ck_status ck_aco_get_best(const ck_aco *aco, int64_t *length, uint32_t *tour) {
  CK__REQUIRE(aco);
  CK__REQUIRE(length);
  if (aco->best_length == INT64_MAX)
    return ck__fail(CK_ERROR_NOT_FOUND,
                    "ck_aco_get_best: no iteration has run yet");
  *length = aco->best_length;
  if (tour)
    memcpy(tour, aco->best_tour, (size_t)aco->state.n * sizeof *tour);
  return CK_OK;
}

ck_status ck_aco_get_trace(const ck_aco *aco, const ck_aco_trace_point **points,
                           size_t *count) {
  CK__REQUIRE(aco);
  CK__REQUIRE(points);
  CK__REQUIRE(count);
  *points = aco->trace;
  *count = aco->trace_count;
  return CK_OK;
}

ck_status ck_aco_destroy(ck_aco *aco) {
  if (!aco)
    return CK_OK;
  aco_state *state = &aco->state;
  if (state->queue && aco->steps)
    aco->steps->teardown(state);
  ck_buffer *buffers[] = {state->matrix,       state->xy,
                          state->grid_cells,   state->grid_box,
                          state->neighbours,   state->eta_beta,
                          state->tau,          state->choice,
                          state->uses,         state->tours,
                          state->positions,    state->flags,
                          state->lengths,      state->order,
                          state->best,         state->best_tour,
                          state->segment_tour, state->segment_scratch,
                          state->segment_gain, state->best_positions,
                          state->queues,       state->queued,
                          state->source_tours, state->source_positions};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i)
    ck_buffer_destroy(buffers[i]);
  ck_queue_destroy(state->queue);
  ck__aco_spread_destroy(aco->spread);
  free(aco->best_tour);
  free(aco->best_positions);
  free(state->source_lengths);
  free(aco->trace);
  free(aco);
  return CK_OK;
}
