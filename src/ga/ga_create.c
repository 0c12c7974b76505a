/*
 * ga_create.c - a GA's making and freeing: the configuration's checks,
 * the islands' settings, the buffers, generation 0, and destruction.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "ck_objectives.h"
#include "framework/framework.h"
#include "framework/history.h"
#include "ga/ga_internal.h"

enum {
  STATS_VALUES = 1 << 22, /* reals in the statistics buffer, at most */
  DIRECT_REDUCTION = 16
};

ck_status ck_ga_config_init(ck_ga_config *config) {
  CK__REQUIRE(config);
  memset(config, 0, sizeof *config);
  ck__fields_init(config, ck__ga_fields, CK__GA_FIELDS);
  return CK_OK;
}

/* The GA's own settings; the problem's are checked by ck__problem. */
static ck_status check_config(const ck_ga_config *config) {
  ck_status status =
      ck__fields_check("ck_ga_config", config, ck__ga_fields, CK__GA_FIELDS);
  if (status)
    return status;
  if (config->islands * config->island_size > 0x7FFFFFFFu)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_ga_config.islands: %zu islands of %zu individuals "
                    "exceed 2^31",
                    config->islands, config->island_size);
  if ((size_t)config->elite >= config->island_size)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_ga_config.elite: %d must be below the island size %zu",
                    config->elite, config->island_size);
  if ((size_t)config->tournament > config->island_size)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_ga_config.tournament: %d must be at most the island "
                    "size %zu",
                    config->tournament, config->island_size);
  if (!(config->mutation_rate < 0) &&
      (status = ck__field_check("ck_ga_config", config,
                                &ck__ga_fields[CK__GA_MUTATION_RATE])))
    return status;
  /* The gaps between mutations take 1 / log2(1 - pm) in the run's
   * precision: a pm that 1 - pm does not tell from 0 would make it
   * infinite. */
  float rate = (float)config->mutation_rate;
  if (config->mutation_rate > 0 &&
      (config->double_precision ? 1.0 - config->mutation_rate == 1.0
                                : 1.0f - rate == 1.0f))
    return ck__fail(
        CK_ERROR_INVALID_ARGUMENT,
        "ck_ga_config.mutation_rate: %g is too small for %s precision (1 - "
        "pm rounds to 1); give 0 or at least %g",
        config->mutation_rate, config->double_precision ? "double" : "single",
        config->double_precision ? DBL_EPSILON / 2 : FLT_EPSILON / 2);
  /* Migrants matter only where islands migrate: islands of two without
   * migrations keep the default of two migrants. */
  if (config->migrate_every && config->migrants >= config->island_size)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_ga_config.migrants: %u must be below the island size "
                    "%zu",
                    config->migrants, config->island_size);
  if ((config->evaluate != NULL) + config->ask_tell +
          (config->evaluate_device != NULL) >
      1)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_ga_config: give one of evaluate, evaluate_device and "
                    "ask_tell");
  /* Initialisation evaluates every individual once. */
  if (config->max_evaluations &&
      config->max_evaluations < config->islands * config->island_size)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_ga_config.max_evaluations: %llu evaluations are "
                    "fewer than the %zu that initialisation makes (one an "
                    "individual)",
                    (unsigned long long)config->max_evaluations,
                    config->islands * config->island_size);
  return CK_OK;
}

static ck_status make(ga_state *state, size_t bytes, ck_buffer **buffer) {
  return ck__buffer_make(state->queue, bytes, buffer);
}

ck_status ck__ga_make_migrants(ga_state *state, unsigned set) {
  ck_status status = CK_OK;
  size_t migrants = ((size_t)state->islands + state->incoming) *
                    (state->migrants ? state->migrants : 1);
  size_t dim = (size_t)state->dim, real = state->real_size;
  CK_TRY(make(state, migrants * dim * real, &state->migrant_genes[set]));
  CK_TRY(make(state, migrants * real, &state->migrant_fitness[set]));
fail:
  return status;
}

uint32_t ck__ga_stats_capacity(size_t islands) {
  size_t slots = STATS_VALUES / (2 * islands);
  return (uint32_t)(slots < 1                  ? 1
                    : slots > CK__GA_MAX_CHUNK ? CK__GA_MAX_CHUNK
                                               : slots);
}

/* A work-group an island, no wider than the island needs; a vector of
 * children a work-item where no loop over the genes would be vectorised
 * across work-items otherwise (ck_lanes.h): CPUs. */
static void choose_group(ga_state *state, const ck_device *device,
                         const ck_ga_config *config) {
  state->group = ck__group_size(device);
  while (state->group / 2 >= state->size && state->group > 1)
    state->group /= 2;
  state->lanes = 1;
  if (ck__device_has_vector_types(device) &&
      (config->generation_mode == CK_GA_GENERATION_VECTOR ||
       (config->generation_mode == CK_GA_GENERATION_AUTO &&
        device->kind != CK_KIND_GPU))) {
    uint32_t lanes = state->double_precision ? 8u : 16u;
    if (ck__ga_resident(state, state->size / lanes, lanes)) {
      state->lanes = lanes;
      state->group = state->size / lanes;
    }
  }
}

/* The problem and the islands' settings, from the configuration, the
 * device and, for a spread run's member, its slice (NULL alone). */
static ck_status tune(ck_ga *created, const ck_device *device,
                      const ck_ga_config *config, const ck__ga_slice *slice) {
  ck_status status = CK_OK;
  ck__problem_spec spec =
      CK__PROBLEM_SPEC(config, "ck_ga_config", ck__ga_fields);
  spec.host = config->evaluate || config->ask_tell || config->evaluate_device;
  CK_TRY(ck__problem_init(&created->problem, device, &spec));
  const ck__problem *problem = &created->problem;
  created->config = *config;
  CK__PROBLEM_KEEP(&created->config, problem);
  ga_state *state = &created->state;
  state->device = *device;
  state->problem = problem;
  state->objective = problem->objective;
  state->fused_user = ck__device_runs_kernels(device) &&
                      state->objective == CK_OBJECTIVE_USER &&
                      !problem->user_has_data;
  state->streamed = problem->streamed || state->fused_user;
  state->dim = problem->dim;
  state->double_precision = problem->double_precision;
  state->real_size = problem->real_size;
  state->islands = (uint32_t)config->islands;
  state->size = (uint32_t)config->island_size;
  state->total = state->islands * state->size;
  state->elite = config->elite;
  state->tournament = config->tournament;
  state->crossover = (int)config->crossover;
  state->mutation = (int)config->mutation;
  state->bounds = (int)config->bounds;
  state->crossover_rate = config->crossover_rate;
  state->crossover_parameter = config->crossover_parameter;
  state->mutation_rate =
      config->mutation_rate < 0 ? 1.0 / problem->dim : config->mutation_rate;
  state->mutation_parameter = config->mutation_parameter;
  state->inverse_log_keep =
      state->double_precision
          ? ck__ga_inverse_log_keep_f64(state->mutation_rate)
          : ck__ga_inverse_log_keep_f32(state->mutation_rate);
  state->migrants = config->migrate_every ? config->migrants : 0;
  state->migrate_every = state->migrants ? config->migrate_every : 0;
  state->ring = config->topology == CK_GA_RING;
  state->span_segments = 1;
  state->first_island = slice ? slice->first_island : 0;
  state->run_islands = slice ? slice->run_islands : state->islands;
  /* A ring's island 0 alone takes migrants from another device. */
  if (state->migrants && state->run_islands > state->islands)
    state->incoming = state->ring ? 1 : state->islands;
  state->seed = config->seed;
  choose_group(state, device, config);
  state->stats_capacity =
      slice ? slice->stats_capacity : ck__ga_stats_capacity(state->islands);
  if (state->objective == CK_OBJECTIVE_LSQ) {
    state->rows = (uint32_t)config->data->rows;
    state->lsq =
        ck__lsq_plan_choose(device, config->lsq_mode, state->total, state->rows,
                            state->group, state->double_precision);
  }
  /* The global best is the best of the islands' bests. */
  if (state->islands > (uint32_t)DIRECT_REDUCTION * state->group) {
    size_t wanted = (state->islands + state->group - 1) / state->group;
    size_t cap = 4u * (device->compute_units ? device->compute_units : 1);
    state->partial_count = (uint32_t)(wanted < cap ? wanted : cap);
  }
fail:
  return status;
}

/* The history of the generations' statistics, and its row. */
static ck_status make_history(ck_ga *created, const ck_ga_config *config) {
  ck_status status = CK_OK;
  const size_t islands = created->state.islands;
  const size_t widths[] = {1, 1, islands, islands};
  size_t parts = config->keep_island_history ? 4 : 2;
  CK_TRY(ck__history_init(&created->history, CK__HISTORY_SAMPLE, parts, widths,
                          "generation statistics"));
  created->row = malloc(created->history.row_width * sizeof *created->row);
  if (!created->row)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of host memory for generation statistics");
fail:
  return status;
}

/* Bytes of the statistics buffer: its slots of every island's best and
 * mean. */
static size_t stats_bytes(const ga_state *state) {
  return (size_t)state->stats_capacity * state->islands * 2 * state->real_size;
}

/* The statistics buffer's host copy, touched once here so that reading
 * it costs only the transfer. */
static ck_status make_stats_host(ck_ga *created) {
  size_t bytes = stats_bytes(&created->state);
  if (!(created->stats_host = malloc(bytes)))
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of host memory for statistics");
  memset(created->stats_host, 0, bytes);
  created->folded_rows =
      calloc((size_t)created->state.stats_capacity * 2, sizeof(double));
  if (!created->folded_rows)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of host memory for statistics");
  return CK_OK;
}

double ck__ga_population_bytes(double individuals, double dim,
                               double real_size) {
  return (2.0 * dim + 2.0) * individuals * real_size;
}

/* Once the device is known to hold them: the host's statistics, the
 * queue, the steps and the islands' buffers. */
static ck_status allocate(ck_ga *created, const ck_device *device,
                          const ck_ga_config *config) {
  ck_status status = CK_OK;
  ga_state *state = &created->state;
  size_t dim = (size_t)state->dim, total = state->total,
         real = state->real_size;
  double bytes =
      ck__ga_population_bytes((double)total, (double)dim, (double)real);
  if ((status = ck__device_memory_check(device, bytes)))
    CK_FAIL_PREFIX(status, "%zu individuals in %zu dimensions need ", total,
                   dim);
  created->source = malloc(state->run_islands * sizeof *created->source);
  created->local_source =
      malloc(state->islands * sizeof *created->local_source);
  if (!created->source || !created->local_source)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(make_history(created, config));

  CK_TRY(ck_queue_create(device, &state->queue));
  /* After the queue: the native kernel's limit is its device's. */
  created->steps = ck__steps_pick(
      device,
      state->double_precision ? &ck__ga_ref_steps_f64 : &ck__ga_ref_steps_f32,
      &ck__ga_opencl_steps,
      CK__CUDA_STEPS(device, ck__ga_cuda_steps, ck__ga_cuda_supports(state)),
      &created->merged_steps, sizeof created->merged_steps);
  CK_TRY(make(state, dim * real, &state->lo));
  CK_TRY(make(state, dim * real, &state->hi));
  for (int b = 0; b < 2; ++b) {
    CK_TRY(make(state, dim * total * real, &state->population[b]));
    CK_TRY(make(state, total * real, &state->fitness[b]));
  }
  CK_TRY(make(state, stats_bytes(state), &state->stats));
  if (created->steps->fold_stats)
    CK_TRY(
        make(state, (size_t)state->stats_capacity * 2 * real, &state->folded));
  CK_TRY(make_stats_host(created));
  CK_TRY(ck__ga_make_migrants(state, 0));
  CK_TRY(make(state, state->islands * sizeof(uint32_t), &state->source));
  CK_TRY(make(state, state->islands * real, &state->island_best));
  CK_TRY(make(state, dim * state->islands * real, &state->island_best_genes));
  CK_TRY(make(state, real, &state->best_value));
  CK_TRY(make(state, sizeof(uint32_t), &state->best_index));
  CK_TRY(make(state, dim * real, &state->best_genes));
  CK_TRY(make(state, real, &state->scratch));
  CK_TRY(make(state, sizeof(uint32_t), &state->done));
  if (state->partial_count) {
    CK_TRY(make(state, state->partial_count * real, &state->partial_values));
    CK_TRY(make(state, state->partial_count * sizeof(uint32_t),
                &state->partial_indices));
  }
  if (state->lsq.group_mode)
    CK_TRY(make(state, total * state->lsq.chunks * real, &state->lsq_partial));
  if (state->objective == CK_OBJECTIVE_HOST &&
      !created->config.evaluate_device) {
    created->host_x = malloc(dim * total * sizeof(double));
    created->host_rows = malloc(dim * total * sizeof(double));
    created->host_f = malloc(total * sizeof(double));
    if (!created->host_x || !created->host_rows || !created->host_f)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
              "out of host memory for the individuals of a host objective");
  }
fail:
  return status;
}

/* The problem's data and domain, and every best as nothing found yet. */
static ck_status upload(ck_ga *created) {
  ck_status status = CK_OK;
  ga_state *state = &created->state;
  const ck__problem *problem = &created->problem;
  size_t dim = (size_t)state->dim;
  if (state->objective == CK_OBJECTIVE_LSQ ||
      state->objective == CK_OBJECTIVE_USER)
    CK_TRY(ck__problem_upload(problem, state->queue, &state->data));
  CK_TRY(ck__reals_write(state->queue, state->lo, state->double_precision,
                         problem->lo, dim));
  CK_TRY(ck__reals_write(state->queue, state->hi, state->double_precision,
                         problem->hi, dim));
  double largest =
      state->double_precision ? 1.7976931348623157e308 : 3.402823466e38;
  CK_TRY(ck__reals_write(state->queue, state->best_value,
                         state->double_precision, &largest, 1));
  double *unset = malloc(state->islands * sizeof *unset);
  if (!unset)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (uint32_t i = 0; i < state->islands; ++i)
    unset[i] = largest;
  status = ck__reals_write(state->queue, state->island_best,
                           state->double_precision, unset, state->islands);
  free(unset);
  if (status)
    goto fail;
  uint32_t zero = 0;
  CK_TRY(ck_buffer_write(state->queue, state->done, 0, sizeof zero, &zero,
                         CK_BLOCKING, NULL));
  CK_TRY(ck_buffer_write(state->queue, state->best_index, 0, sizeof zero, &zero,
                         CK_BLOCKING, NULL));
fail:
  return status;
}

/* The steps' setup and generation 0. */
static ck_status set_up(ck_ga *created) {
  ck_status status = CK_OK;
  ga_state *state = &created->state;
  double started = ck__seconds();
  CK_TRY(created->steps->setup(state));
  created->build_seconds = ck__seconds() - started;
  CK_TRY(created->steps->initialise(state));
  /* An ask/tell GA's generation 0 is scored at ck_ga_tell. */
  if (!created->config.ask_tell) {
    if (!state->streamed)
      CK_TRY(ck__ga_evaluate(created, 0, 0));
    CK_TRY(created->steps->stats(state, 0, 0));
    created->stats_used = 1;
    CK_TRY(created->steps->update_best(state));
  }
  /* Generation 0 done and its statistics folded and read, and the evolve
   * kernel launched once for no generation (it reads the islands and
   * writes nothing), before the caller starts timing generations: PoCL
   * compiles a kernel at its first launch, and a CUDA module may load a
   * kernel at its first, so neither falls in the timed run. Still inside
   * it: the first migration's kernels where migrations are launches of
   * their own (islands not resident in local memory on OpenCL). The
   * member keeps generation 0's statistics for the run to read, which it
   * does before it returns (ck__ga_create_run). */
  CK_TRY(created->steps->evolve(state, 1, 0, 0, 0));
  CK_TRY(ck_queue_finish(state->queue));
fail:
  return status;
}

ck_status ck__ga_slice_allocate(const ck_device *device,
                                const ck_ga_config *config,
                                const ck__ga_slice *slice, ck_ga **ga) {
  ck_status status = CK_OK;
  ck_ga *created = NULL;
  *ga = NULL;
  CK_TRY(check_config(config));
  created = calloc(1, sizeof *created);
  if (!created)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a GA");
  CK_TRY(tune(created, device, config, slice));
  CK_TRY(allocate(created, device, config));
  *ga = created;
  return CK_OK;
fail:
  ck_ga_destroy(created);
  return status;
}

ck_status ck__ga_slice_set_up(ck_ga *ga) {
  ck_status status = upload(ga);
  return status ? status : set_up(ga);
}

/* A GA over spread's devices (one, for ck_ga_create): the whole run's
 * settings in the front, its islands in the members of the engine, and
 * generation 0's statistics and best read, as every step ends. */
static ck_status create_run(const ck_spread *spread, const ck_ga_config *config,
                            ck_ga **ga) {
  ck_status status = CK_OK;
  ck_ga *created = calloc(1, sizeof *created);
  if (!created)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a GA");
  CK_TRY(tune(created, &spread->devices[0], config, NULL));
  CK_TRY(make_history(created, config));
  CK_TRY(ck__ga_spread_create(created, spread, config, &created->spread,
                              &created->state.stats_capacity,
                              &created->state.span_segments));
  created->build_seconds = ck__ga_spread_build_seconds(created->spread);
  CK_TRY(make_stats_host(created));
  /* An ask/tell GA's generation 0 is scored at its first ck_ga_tell. */
  if (!config->ask_tell) {
    created->stats_used = 1;
    CK_TRY(ck__ga_spread_step(created, 0));
  }
  *ga = created;
  return CK_OK;
fail:
  ck_ga_destroy(created);
  return status;
}

ck_status ck_ga_create(const ck_device *device, const ck_ga_config *config,
                       ck_ga **ga) {
  ck_status status = CK_OK;
  CK__REQUIRE(device);
  CK__REQUIRE(config);
  CK__REQUIRE(ga);
  *ga = NULL;
  CK_TRY(check_config(config));
  ck_spread one = {.devices = device, .device_count = 1};
  CK_TRY(create_run(&one, config, ga));
fail:
  return status;
}

ck_status ck_ga_create_spread(const ck_spread *spread,
                              const ck_ga_config *config, ck_ga **ga) {
  ck_status status = CK_OK;
  CK__REQUIRE(spread);
  CK__REQUIRE(config);
  CK__REQUIRE(ga);
  *ga = NULL;
  CK_TRY(check_config(config));
  if (config->evaluate || config->ask_tell || config->evaluate_device)
    CK_FAIL(CK_ERROR_UNSUPPORTED,
            "ck_ga_config.evaluate: a host objective does not spread over "
            "devices; create the GA on one device");
  if (!spread->devices || spread->device_count == 0)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "ck_ga_create_spread: no devices");
  CK_TRY(create_run(spread, config, ga));
fail:
  return status;
}

ck_status ck_ga_destroy(ck_ga *ga) {
  if (!ga)
    return CK_OK;
  ga_state *state = &ga->state;
  ck__ga_spread_destroy(ga->spread);
  if (ga->steps)
    ga->steps->teardown(state);
  ck_buffer *buffers[] = {state->lo,
                          state->hi,
                          state->population[0],
                          state->population[1],
                          state->fitness[0],
                          state->fitness[1],
                          state->stats,
                          state->folded,
                          state->migrant_genes[0],
                          state->migrant_fitness[0],
                          state->migrant_genes[1],
                          state->migrant_fitness[1],
                          state->source,
                          state->data,
                          state->island_best,
                          state->island_best_genes,
                          state->best_value,
                          state->best_index,
                          state->best_genes,
                          state->partial_values,
                          state->partial_indices,
                          state->scratch,
                          state->done,
                          state->lsq_partial};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; ++i)
    ck_buffer_destroy(buffers[i]);
  ck__batch_host_free(&ga->batch_host, state->queue);
  ck_queue_destroy(state->queue);
  ck__problem_free(&ga->problem);
  ck__history_free(&ga->history);
  free(ga->row);
  free(ga->source);
  free(ga->local_source);
  free(ga->stats_host);
  free(ga->folded_rows);
  free(ga->host_x);
  free(ga->host_rows);
  free(ga->host_f);
  free(ga);
  return CK_OK;
}
