/*
 * ga.c - the GA driver: a member's generations, migrations and
 * statistics over a backend's steps (ref, OpenCL, or CUDA's native
 * generation), host objectives and ask/tell; and the run's loop and
 * stopping rules over its members (ga_members.c), one device's too.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ck_ga_schedule.h"
#include "ck_objectives.h"
#include "ck_philox.h"
#include "framework/framework.h"
#include "framework/history.h"
#include "ga/ga_internal.h"

CK__STEPS_TABLE(ck__ga_steps, 9);

ck_ga *ck__ga_alone(ck_ga *ga) {
  /* A front's members are made with it: it has its first. */
  assert(ga && (!ga->spread || ga->spread->members[0].ga));
  return ga->spread ? ga->spread->members[0].ga : ga;
}

ga_state *ck__ga_state(ck_ga *ga) {
  return &ck__ga_alone(ga)->state;
}

ck_status ck__ga_settle(ck_ga *ga) {
  if (!ga)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck__ga_settle: NULL GA");
  ga = ck__ga_alone(ga);
  if (!ga->immigration_pending)
    return CK_OK;
  ga->immigration_pending = 0;
  return ga->steps->migrate(&ga->state, (int)(ga->generation & 1),
                            CK_GA_IMMIGRATE);
}

int ck__ga_dim(const ck_ga *ga) {
  return ga->state.dim;
}

/* Who sends to whom at the next migration: a ring, or a fresh random
 * cycle through every island (Fisher-Yates on Philox draws). */
static ck_status plan_migration(ck_ga *ga) {
  ga_state *state = &ga->state;
  uint32_t n = state->run_islands;
  /* The ring never changes: the device keeps it from the first time. */
  if (ga->config.topology == CK_GA_RING && ga->migrations > 0)
    return CK_OK;
  if (ga->config.topology == CK_GA_RING) {
    for (uint32_t i = 0; i < n; ++i)
      ga->source[i] = (i + n - 1) % n;
  } else {
    uint32_t *order = malloc(n * sizeof *order);
    if (!order)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
    for (uint32_t i = 0; i < n; ++i)
      order[i] = i;
    for (uint32_t i = n - 1; i > 0; --i) {
      ck_philox_counter r = ck_philox_block(
          state->seed, 0xFFFFFFFF00000000ull | ga->migrations, i);
      uint32_t j = (uint32_t)(((uint64_t)r.v[0] * (i + 1)) >> 32);
      uint32_t swap = order[i];
      order[i] = order[j];
      order[j] = swap;
    }
    for (uint32_t k = 0; k < n; ++k)
      ga->source[order[(k + 1) % n]] = order[k];
    free(order);
  }
  /* A source on another device sends to the island's incoming slot. */
  uint32_t first = state->first_island;
  for (uint32_t i = 0; i < state->islands; ++i) {
    uint32_t from = ga->source[first + i] - first;
    ga->local_source[i] = from < state->islands ? from : state->islands + i;
  }
  return ck_buffer_write(state->queue, state->source, 0,
                         state->islands * sizeof(uint32_t), ga->local_source,
                         CK_BLOCKING, NULL);
}

ck_status ck__ga_flush_stats(ck_ga *ga) {
  ga_state *state = &ga->state;
  uint32_t slots = ga->stats_used, islands = state->islands;
  if (slots == 0)
    return CK_OK;
  /* Without island history the islands are folded on the device first
   * (where it can): two values a generation cross to the host, not two an
   * island (at 4096 islands, megabytes a batch and their loop here). A
   * spread run's members fold their own; the host folds the members'. */
  if (!ga->config.keep_island_history) {
    const double *rows = ga->folded_rows;
    ck_status status = ga->spread
                           ? ck__ga_spread_folded(ga->spread, slots, &rows)
                           : ck__ga_slice_folded(ga, ga->folded_rows);
    if (status == CK_OK)
      status = ck__history_push_rows(&ga->history, rows, slots);
    if (status == CK_OK)
      ga->stats_used = 0;
    return status;
  }
  /* Every island's best and mean, beside the run's. */
  ck_status status =
      ga->spread ? ck__ga_spread_stats(ga->spread, slots, ga->stats_host)
                 : CK_OK;
  if (status == CK_OK)
    status = ck__history_reserve(&ga->history, slots);
  size_t count = (size_t)slots * islands * 2;
  if (status == CK_OK && !ga->spread)
    status =
        ck_buffer_read(state->queue, state->stats, 0, count * state->real_size,
                       ga->stats_host, CK_BLOCKING, NULL);
  const float *narrow = ga->stats_host;
  const double *wide = ga->stats_host;
  double *row = ga->row;
#define STAT(i) (state->double_precision ? wide[i] : (double)narrow[i])
  for (uint32_t slot = 0; status == CK_OK && slot < slots; ++slot) {
    double best = INFINITY, mean = 0;
    for (uint32_t island = 0; island < islands; ++island) {
      double island_best = STAT(((size_t)slot * islands + island) * 2);
      double island_mean = STAT(((size_t)slot * islands + island) * 2 + 1);
      best = island_best < best ? island_best : best;
      mean += island_mean;
      row[2 + island] = island_best;
      row[2 + (size_t)islands + island] = island_mean;
    }
    row[0] = best;
    row[1] = mean / islands; /* islands are the same size */
    status = ck__history_push(&ga->history, row);
  }
#undef STAT
  if (status)
    return status;
  ga->stats_used = 0;
  return CK_OK;
}

/* Host objectives: the individuals of buffer `which`, row-major, into
 * rows. */
static ck_status read_individuals(ck_ga *ga, int which, double *rows) {
  ga_state *state = &ga->state;
  size_t n = state->total, dim = (size_t)state->dim;
  ck_status status =
      ck__reals_read(state->queue, state->population[which],
                     state->double_precision, ga->host_x, n * dim);
  if (status == CK_OK)
    ck__host_rows(ga->host_x, n, dim, rows);
  return status;
}

/* Host values, made comparable, into the fitness of buffer `which`. */
static ck_status write_fitness(ck_ga *ga, int which, const double *f) {
  ga_state *state = &ga->state;
  ck__host_values(state->double_precision, f, ga->host_f, state->total);
  return ck__reals_write(state->queue, state->fitness[which],
                         state->double_precision, ga->host_f, state->total);
}

ck_status ck__ga_evaluate(ck_ga *ga, int which, uint64_t generation) {
  ga_state *state = &ga->state;
  if (state->objective != CK_OBJECTIVE_HOST)
    return ga->steps->evaluate(state, which);
  if (ga->config.evaluate_device) {
    /* The individuals stay on a CUDA device; elsewhere they are copied
     * into page-locked host memory. */
    ck__device_objective objective = {ga->config.evaluate_device,
                                      ga->config.evaluate_user,
                                      "ck_ga_config",
                                      "generation",
                                      &ga->batch_host,
                                      ga->config.evaluate_device_ordered};
    return ck__device_objective_call(&objective, state->queue,
                                     state->population[which], state->total,
                                     (size_t)state->dim, state->real_size,
                                     state->fitness[which], generation);
  }
  ck_status status = read_individuals(ga, which, ga->host_rows);
  if (status)
    return status;
  status = ga->config.evaluate(ga->host_rows, state->total, (size_t)state->dim,
                               ga->host_f, ga->config.evaluate_user);
  if (status)
    return ck__host_failed("ck_ga_config", status, "generation", generation);
  return write_fitness(ga, which, ga->host_f);
}

uint64_t ck__ga_next_run(const ck_ga *ga, uint64_t count, int *migrates,
                         uint32_t *inside) {
  const ga_state *state = &ga->state;
  /* 0 where nothing migrates (no migrants either). */
  unsigned every = state->migrate_every;
  uint64_t k = count;
  int spans = state->streamed && state->ring && state->span_segments > 1;
  if (every) {
    uint64_t until = every - ga->generation % every;
    if (spans)
      until += (uint64_t)(state->span_segments - 1) * every;
    k = k < until ? k : until;
  }
  uint64_t room = state->stats_capacity - ga->stats_used;
  k = k < room ? k : room;
  *migrates = every && (ga->generation + k) % every == 0;
  /* The migrations inside the call, which its launch makes. */
  *inside =
      spans ? ck_ga_segments(ga->generation + 1, (uint32_t)k, every) - 1u : 0u;
  return k;
}

/* Evolves k generations (ck__ga_next_run's), then, where a migration follows,
 * plans it and sends its migrants: into the migrant set the next
 * receiving reads (state.migrant_set). */
static ck_status evolve_and_send(ck_ga *ga, uint64_t k, int migrates,
                                 uint32_t inside) {
  ck_status status = CK_OK;
  ga_state *state = &ga->state;
  if (inside)
    CK_TRY(plan_migration(ga));
  if (state->streamed) {
    /* Where the launch can, it receives the last migration and sends the
     * next one itself. */
    uint32_t migration =
        state->fused_migration
            ? (ga->immigration_pending ? CK_GA_IMMIGRATE : 0u) |
                  (migrates ? CK_GA_EMIGRATE : 0u)
            : 0u;
    CK_TRY(ga->steps->evolve(state, ga->generation + 1, (uint32_t)k,
                             ga->stats_used, migration));
    ga->immigration_pending = 0;
  } else {
    for (uint64_t t = 1; t <= k; ++t) {
      uint64_t generation = ga->generation + t;
      CK_TRY(ga->steps->evolve(state, generation, 1, 0, 0));
      CK_TRY(ck__ga_evaluate(ga, (int)(generation & 1), generation));
      CK_TRY(ga->steps->stats(state, (int)(generation & 1),
                              ga->stats_used + (uint32_t)t - 1));
    }
  }
  ga->generation += k;
  ga->stats_used += (uint32_t)k;
  ga->migrations += inside;
  if (migrates) {
    CK_TRY(plan_migration(ga));
    /* A fused launch sent them already. */
    if (!(state->streamed && state->fused_migration))
      CK_TRY(
          ga->steps->migrate(state, (int)(ga->generation & 1), CK_GA_EMIGRATE));
  }
fail:
  return status;
}

/* Receives the migration sent (where a migration follows: the next
 * launch does, where launches make them), and keeps the best. */
static ck_status receive(ck_ga *ga, int migrates) {
  ck_status status = CK_OK;
  ga_state *state = &ga->state;
  if (migrates) {
    if (state->streamed && state->fused_migration)
      ga->immigration_pending = 1;
    else
      CK_TRY(ga->steps->migrate(state, (int)(ga->generation & 1),
                                CK_GA_IMMIGRATE));
    ++ga->migrations;
  }
  CK_TRY(ga->steps->update_best(state));
fail:
  return status;
}

ck_status ck__ga_slice_send(ck_ga *slice, uint64_t count, int migrates,
                            uint32_t inside) {
  return evolve_and_send(slice, count, migrates, inside);
}

ck_status ck__ga_slice_receive(ck_ga *slice, int migrates) {
  return receive(slice, migrates);
}

ck_status ck__ga_slice_folded(ck_ga *slice, double *pairs) {
  ga_state *state = &slice->state;
  uint32_t slots = slice->stats_used, islands = state->islands;
  int folded = slice->steps->fold_stats != NULL;
  ck_status status = folded ? slice->steps->fold_stats(state, slots) : CK_OK;
  size_t count = (size_t)slots * (folded ? 1 : islands) * 2;
  if (status == CK_OK)
    status = ck_buffer_read(state->queue, folded ? state->folded : state->stats,
                            0, count * state->real_size, slice->stats_host,
                            CK_BLOCKING, NULL);
  const float *narrow = slice->stats_host;
  const double *wide = slice->stats_host;
#define STAT(i) (state->double_precision ? wide[i] : (double)narrow[i])
  for (uint32_t slot = 0; status == CK_OK && slot < slots; ++slot) {
    double best = INFINITY, mean = 0;
    if (folded) {
      best = STAT((size_t)slot * 2);
      mean = STAT((size_t)slot * 2 + 1);
    } else {
      for (uint32_t island = 0; island < islands; ++island) {
        size_t at = ((size_t)slot * islands + island) * 2;
        best = STAT(at) < best ? STAT(at) : best;
        mean += STAT(at + 1);
      }
      mean /= islands; /* islands are the same size */
    }
    pairs[2 * (size_t)slot] = best;
    pairs[2 * (size_t)slot + 1] = mean;
  }
#undef STAT
  slice->stats_used = 0;
  return status;
}

/* CK_OK for a GA that evolves at ck_ga_step and ck_ga_run. */
static ck_status not_ask_tell(const ck_ga *ga, const char *function) {
  if (ga->config.ask_tell)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the GA was made for ask/tell (config.ask_tell); it "
                    "evolves at ck_ga_tell",
                    function);
  return CK_OK;
}

ck_status ck_ga_step(ck_ga *ga, uint64_t generations) {
  CK__REQUIRE(ga);
  ck_status refused = not_ask_tell(ga, "ck_ga_step");
  return refused ? refused : ck__ga_spread_step(ga, generations);
}

static ck_status run_step(void *self, uint64_t steps) {
  return ck_ga_step(self, steps);
}

static ck_status run_read(void *self, uint64_t steps,
                          ck__loop_reading *reading) {
  ck_ga *ga = self;
  ck_status status = ck__ga_flush_stats(ga);
  if (status == CK_OK)
    ck__loop_read_history(&ga->history, steps, reading);
  return status;
}

ck_status ck_ga_run(ck_ga *ga, ck_ga_report *report) {
  ck_status status = CK_OK;
  CK__REQUIRE(ga);
  CK__REQUIRE(report);
  memset(report, 0, sizeof *report);
  CK_TRY(not_ask_tell(ga, "ck_ga_run"));
  assert(ga->spread); /* a front: members are never run */
  const ck_ga_config *config = &ga->config;
  ga_state *state = &ga->state;
  /* Evaluations a generation makes: with a streamed objective the elites
   * keep their fitness (cl/ga.cl), and only the children are evaluated;
   * otherwise the evaluation pass scores the whole population, elites
   * too. Initialisation evaluates every individual once. */
  uint64_t per_generation =
      state->streamed
          ? (uint64_t)state->islands * (state->size - (uint32_t)state->elite)
          : state->total;
  /* The run loop counts initialisation as one generation's evaluations;
   * the budget is shifted by the difference so that it counts them as
   * the report does (create refused budgets below one population). */
  uint64_t budget = config->max_evaluations ? config->max_evaluations -
                                                  state->total + per_generation
                                            : 0;
  ck__loop_rules rules = {.shape = CK__LOOP_CHUNKS,
                          .max_steps = config->max_generations,
                          .max_evaluations = budget,
                          .per_step = per_generation,
                          .default_steps = CK__GA_DEFAULT_STEPS,
                          .has_target = config->has_target,
                          .max_seconds = config->max_seconds,
                          .check_every = config->check_every,
                          .max_chunk = CK__GA_MAX_CHUNK,
                          .progress = config->progress,
                          .progress_user = config->progress_user,
                          .step_name = "generations",
                          .best_name = "best",
                          .cancelled = "GA cancelled after %lld steps",
                          .timeline = ga->timeline,
                          .timeline_from = ga->generation};
  ck__loop_driver driver = {ga, run_step, run_read, NULL};
  ck__loop_outcome outcome;
  ck__spread_run *run = ck__ga_spread_run(ga);
  double kernel_before = ck__spread_kernel_seconds(run);
  /* Every generation's best is checked against the target as it is read,
   * before the history thins it out. */
  if (config->has_target)
    ck__history_watch(&ga->history, 0, config->target, ga->generation);
  CK_TRY(ck__engine_loop(ga->spread->engine, &rules, &driver, &outcome));
  /* Steps end reading every member's statistics: its queue is done. */
  double kernel_after = ck__spread_kernel_seconds(run);
  report->stopped_by = outcome.stopped_by;
  report->target_generation = outcome.target_step;
  report->wall_s = outcome.wall_s;
  report->kernel_s = kernel_after - kernel_before;
  report->build_s = ga->build_seconds;
  report->generations = ga->generation;
  report->children_per_work_item = state->lanes;
  report->evaluations = state->total + per_generation * ga->generation;
  CK_TRY(ck_ga_get_best(ga, &report->best, NULL));
  if (report->wall_s > 0) {
    /* Initialisation is not in the timed run. */
    report->evaluations_per_s =
        (double)per_generation * (double)outcome.steps / report->wall_s;
    report->genes_per_s = (double)state->total * (double)state->dim *
                          (double)outcome.steps / report->wall_s;
  }
fail:
  ck__history_unwatch(&ga->history);
  return status;
}

ck_status ck_ga_get_best(ck_ga *ga, double *value, double *position) {
  ck_status status;
  CK__REQUIRE(ga);
  /* An ask/tell GA's member finds its best at each tell. */
  if (!ga->config.ask_tell)
    return ck__ga_spread_best(ga->spread, value, position);
  ga_state *state = &ck__ga_alone(ga)->state;
  if (value && (status = ck__reals_read(state->queue, state->best_value,
                                        state->double_precision, value, 1)))
    return status;
  if (position && (status = ck__reals_read(state->queue, state->best_genes,
                                           state->double_precision, position,
                                           (size_t)state->dim)))
    return status;
  return CK_OK;
}

/* CK_OK for a GA made for ask/tell. */
static ck_status is_ask_tell(const ck_ga *ga, const char *function) {
  if (!ga->config.ask_tell)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the GA was not made for ask/tell (set "
                    "config.ask_tell)",
                    function);
  return CK_OK;
}

/* The generation an ask/tell GA waits to have scored. */
static uint64_t asked(const ck_ga *ga) {
  return ga->told ? ga->generation + 1 : 0;
}

ck_status ck_ga_ask(ck_ga *ga, double *x) {
  CK__REQUIRE(ga);
  CK__REQUIRE(x);
  ck_status status = is_ask_tell(ga, "ck_ga_ask");
  ck_ga *member = ck__ga_alone(ga);
  return status ? status
                : read_individuals(member, (int)(asked(member) & 1), x);
}

/* As ck_ga_step's generations do one by one: the generation's statistics,
 * the migration the schedule puts after it, the best; then the next
 * generation. */
/* What follows a generation's values told, wherever they came from. */
static ck_status told(ck_ga *ga, uint64_t generation) {
  ck_status status = CK_OK;
  ga_state *state = &ga->state;
  int which = (int)(generation & 1);
  CK_TRY(ga->steps->stats(state, which, ga->stats_used));
  ++ga->stats_used;
  ga->generation = generation;
  ga->told = 1;
  if (generation > 0 && state->migrate_every &&
      generation % state->migrate_every == 0) {
    CK_TRY(plan_migration(ga));
    CK_TRY(ga->steps->migrate(state, which, CK_GA_EMIGRATE));
    CK_TRY(ga->steps->migrate(state, which, CK_GA_IMMIGRATE));
    ++ga->migrations;
  }
  CK_TRY(ga->steps->update_best(state));
  if (ga->stats_used == state->stats_capacity)
    CK_TRY(ck__ga_flush_stats(ga));
  CK_TRY(ga->steps->evolve(state, generation + 1, 1, 0, 0));
fail:
  return status;
}

ck_status ck_ga_tell(ck_ga *ga, const double *f) {
  ck_status status = CK_OK;
  CK__REQUIRE(ga);
  CK__REQUIRE(f);
  CK_TRY(is_ask_tell(ga, "ck_ga_tell"));
  ga = ck__ga_alone(ga);
  uint64_t generation = asked(ga);
  CK_TRY(write_fitness(ga, (int)(generation & 1), f));
  CK_TRY(told(ga, generation));
fail:
  return status;
}

ck_status ck_ga_ask_device(ck_ga *ga, ck_device_batch *batch) {
  CK__REQUIRE(ga);
  CK__REQUIRE(batch);
  ck_status status = is_ask_tell(ga, "ck_ga_ask_device");
  ga = ck__ga_alone(ga);
  ga_state *state = &ga->state;
  return status
             ? status
             : ck__device_batch_open(state->queue,
                                     state->population[asked(ga) & 1],
                                     state->total, (size_t)state->dim,
                                     state->real_size, &ga->batch_host, batch);
}

ck_status ck_ga_tell_device(ck_ga *ga, const ck_device_batch *batch) {
  ck_status status = CK_OK;
  CK__REQUIRE(ga);
  CK__REQUIRE(batch);
  CK_TRY(is_ask_tell(ga, "ck_ga_tell_device"));
  ga = ck__ga_alone(ga);
  ga_state *state = &ga->state;
  uint64_t generation = asked(ga);
  CK_TRY(ck__device_batch_take(batch, state->queue,
                               state->fitness[generation & 1], state->total,
                               state->real_size, "ck_ga_tell_device"));
  CK_TRY(told(ga, generation));
fail:
  return status;
}

ck_status ck__ga_check_ask_tell(const ck_ga *ga, const char *function) {
  return is_ask_tell(ga, function);
}

ck_status ck__ga_set_migrations(ck_ga *ga, uint64_t migrations) {
  uint64_t made = ga->migrations;
  /* A ring is planned at the first migration only: a GA that made none
   * lacks it. */
  ga->migrations = 0;
  ck_status status = migrations > 0 && ga->config.topology == CK_GA_RING
                         ? plan_migration(ga)
                         : CK_OK;
  ga->migrations = status == CK_OK ? migrations : made;
  return status;
}

ck_status ck_ga_get_history(ck_ga *ga, const double **best, const double **mean,
                            const double **island_best,
                            const double **island_mean, size_t *count) {
  CK__REQUIRE(ga);
  CK__REQUIRE(count);
  /* An ask/tell GA's member keeps the history it is told. */
  if (ga->config.ask_tell)
    ga = ck__ga_alone(ga);
  ck_status status = ck__ga_flush_stats(ga);
  if (status)
    return status;
  /* Parts 2 and 3 are NULL without keep_island_history. */
  if (best)
    *best = ga->history.entries[0];
  if (mean)
    *mean = ga->history.entries[1];
  if (island_best)
    *island_best = ga->history.entries[2];
  if (island_mean)
    *island_mean = ga->history.entries[3];
  *count = ga->history.count;
  return CK_OK;
}

ck_status ck_ga_get_history_stride(ck_ga *ga, uint64_t *stride) {
  CK__REQUIRE(ga);
  CK__REQUIRE(stride);
  if (ga->config.ask_tell)
    ga = ck__ga_alone(ga);
  *stride = ga->history.stride;
  return CK_OK;
}
