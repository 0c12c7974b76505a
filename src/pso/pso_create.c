/*
 * pso_create.c - a swarm's making and freeing: the configuration's
 * checks, a member's settings, its buffers and initial slice, the swarm's
 * members through the member engine, and destruction.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ck_objectives.h"
#include "framework/framework.h"
#include "framework/history.h"
#include "objectives/problem.h"
#include "pso/pso_internal.h"

enum {
  DIRECT_REDUCTION = 16 /* one group folds up to this many per item */
};

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

/* Whether the objective is the caller's: evaluate, ask/tell or a device
 * objective. */
static int host_objective(const ck_pso_config *config) {
  return config->evaluate || config->ask_tell || config->evaluate_device;
}

static ck_status make_buffer(pso_state *state, size_t bytes,
                             ck_buffer **buffer) {
  return ck__buffer_make(state->queue, bytes, buffer);
}

/* The problem and the swarm's settings, from the configuration and the
 * device: particles first .. of a swarm of `total`. */
static ck_status tune(pso_swarm *created, const ck_device *device,
                      const ck_pso_config *config, uint32_t first,
                      size_t total) {
  ck_status status = CK_OK;
  ck__problem_spec spec =
      CK__PROBLEM_SPEC(config, "ck_pso_config", ck__pso_fields);
  spec.host = host_objective(config);
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
  if (ck__device_has_vector_types(device) &&
      (config->move_mode == CK_PSO_MOVE_VECTOR ||
       (config->move_mode == CK_PSO_MOVE_AUTO && device->kind != CK_KIND_GPU)))
    state->move_lanes = state->double_precision ? 8u : 16u;
  else
    state->move_lanes = 1;
  state->fused_user = ck__device_runs_kernels(device) &&
                      state->objective == CK_OBJECTIVE_USER &&
                      !problem->user_has_data && state->move_lanes == 1;
  state->streamed = state->streamed || state->fused_user;
  state->move_local =
      state->move_lanes > 1
          ? ck__vector_group(
                device, (state->n + state->move_lanes - 1) / state->move_lanes,
                state->group)
          : state->group;
  state->history_capacity = CK__PSO_HISTORY_CAPACITY;
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

double ck__pso_swarm_bytes(double particles, double dim, double real_size) {
  return (3.0 * dim + 2.0) * particles * real_size;
}

/* The host's room for the history's entries and, once the device is
 * known to hold them, the steps, the queue and the slice's buffers. */
static ck_status allocate(pso_swarm *created, const ck_device *device) {
  ck_status status = CK_OK;
  pso_state *state = &created->state;
  size_t dim = (size_t)state->dim, n = state->n;
  /* Fail early, with the figures, when the swarm cannot fit. */
  double bytes =
      ck__pso_swarm_bytes((double)n, (double)dim, (double)state->real_size);
  if ((status = ck__device_memory_check(device, bytes)))
    CK_FAIL_PREFIX(status, "a swarm of %zu particles in %zu dimensions needs ",
                   n, dim);
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
static ck_status upload(pso_swarm *created, const ck_pso_config *config) {
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
  CK_TRY(ck__pso_write_reals(state, state->lo, problem->lo, dim));
  CK_TRY(ck__pso_write_reals(state, state->hi, problem->hi, dim));
  CK_TRY(ck__pso_write_reals(state, state->vmax, row, dim));
  /* The global best's position until one is found, the domain's middle:
   * a swarm told only NaN so far moves toward it, not toward whatever
   * the buffer held. */
  for (size_t d = 0; d < dim; ++d)
    row[d] = 0.5 * (problem->lo[d] + problem->hi[d]);
  CK_TRY(ck__pso_write_reals(state, state->gbest, row, dim));
  double largest =
      state->double_precision ? 1.7976931348623157e308 : 3.402823466e38;
  CK_TRY(ck__pso_write_reals(state, state->best_value, &largest, 1));
  uint32_t none = 0xFFFFFFFFu;
  CK_TRY(ck_buffer_write(state->queue, state->best_index, 0, sizeof none, &none,
                         CK_BLOCKING, NULL));
fail:
  free(row);
  return status;
}

/* The steps' setup and the initial swarm. */
static ck_status set_up(pso_swarm *created) {
  ck_status status = CK_OK;
  pso_state *state = &created->state;
  double started = ck__seconds();
  CK_TRY(created->steps->setup(state));
  created->build_seconds = ck__seconds() - started;
  CK_TRY(created->steps->initialise(state));
  /* An ask/tell swarm's first values come at ck_pso_tell. */
  if (!created->config.ask_tell) {
    CK_TRY(ck__pso_evaluate(created, 0));
    CK_TRY(ck__pso_record_best(created));
  }
  /* The initial swarm done (and its kernels loaded) before the caller
   * starts timing iterations. */
  CK_TRY(ck_queue_finish(state->queue));
fail:
  return status;
}

ck_status ck__pso_swarm_allocate(const ck_device *device,
                                 const ck_pso_config *config, uint32_t first,
                                 size_t total, pso_swarm **swarm) {
  ck_status status = CK_OK;
  pso_swarm *created = NULL;
  *swarm = NULL;
  CK_TRY(check_config(config, total));
  created = calloc(1, sizeof *created);
  if (!created)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a swarm");
  CK_TRY(tune(created, device, config, first, total));
  CK_TRY(allocate(created, device));
  *swarm = created;
  return CK_OK;
fail:
  ck__pso_swarm_destroy(created);
  return status;
}

ck_status ck__pso_swarm_set_up(pso_swarm *swarm) {
  ck_status status = upload(swarm, &swarm->config);
  return status ? status : set_up(swarm);
}

void ck__pso_swarm_destroy(pso_swarm *swarm) {
  if (!swarm)
    return;
  pso_state *state = &swarm->state;
  if (swarm->steps)
    swarm->steps->teardown(state);
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
  ck__batch_host_free(&swarm->batch_host, state->queue);
  ck_queue_destroy(state->queue);
  ck__problem_free(&swarm->problem);
  free(swarm->batch);
  free(swarm->host_x);
  free(swarm->host_rows);
  free(swarm->host_f);
  free(swarm);
}

/* The run's settings, from the problem as the first device sees it: its
 * members check theirs as they are made. */
static ck_status settle(ck_pso *created, const ck_device *device,
                        const ck_pso_config *config) {
  ck_status status = CK_OK;
  ck__problem problem;
  ck__problem_spec spec =
      CK__PROBLEM_SPEC(config, "ck_pso_config", ck__pso_fields);
  spec.host = host_objective(config);
  CK_TRY(ck__problem_init(&problem, device, &spec));
  created->config = *config;
  CK__PROBLEM_KEEP(&created->config, &problem);
  created->config.data = NULL;
  created->dim = problem.dim;
  created->double_precision = problem.double_precision;
  created->real = problem.real_size;
  created->item = ((size_t)problem.dim + 1) * problem.real_size;
  /* In the swarm's precision, as its kernels compare. */
  created->target =
      problem.double_precision ? config->target : (double)(float)config->target;
  ck__problem_free(&problem);
fail:
  return status;
}

/* A swarm over spread's devices, one member each: the kind's sizes are
 * this swarm's. */
static ck_status create_run(const ck_spread *spread,
                            const ck_pso_config *config, ck_pso **pso) {
  ck_status status = CK_OK;
  ck_pso *created = calloc(1, sizeof *created);
  if (!created)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a swarm");
  CK_TRY(settle(created, &spread->devices[0], config));
  CK_TRY(ck__history_init(&created->history, CK__HISTORY_SAMPLE, 1,
                          &(size_t){1}, "best values"));
  created->local = spread->device_count;
  created->swarms = calloc(created->local, sizeof *created->swarms);
  if (!created->swarms)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a swarm");
  ck__engine_kind kind = ck__pso_kind;
  kind.item_bytes = created->item;
  /* The ring past a member's ends, as ck_pso_ring_best reaches. */
  if (config->ring_neighbours) {
    kind.halo[CK__ENGINE_BEFORE] = (uint32_t)(config->ring_neighbours - 1) / 2;
    kind.halo[CK__ENGINE_AFTER] =
        (uint32_t)config->ring_neighbours - 1 - kind.halo[CK__ENGINE_BEFORE];
  }
  created->given = config;
  status = ck__engine_create(&kind, created, spread, config->particles,
                             &created->engine);
  created->given = NULL;
  CK_TRY(status);
  for (size_t i = 0; i < created->local; ++i)
    created->build_seconds =
        fmax(created->build_seconds, created->swarms[i]->build_seconds);
  *pso = created;
  return CK_OK;
fail:
  ck_pso_destroy(created);
  return status;
}

ck_status ck_pso_create(const ck_device *device, const ck_pso_config *config,
                        ck_pso **pso) {
  ck_status status = CK_OK;
  CK__REQUIRE(device);
  CK__REQUIRE(config);
  CK__REQUIRE(pso);
  *pso = NULL;
  CK_TRY(check_config(config, config->particles));
  ck_spread one = {.devices = device, .device_count = 1};
  CK_TRY(create_run(&one, config, pso));
fail:
  return status;
}

ck_status ck_pso_create_spread(const ck_spread *spread,
                               const ck_pso_config *config, ck_pso **pso) {
  ck_status status = CK_OK;
  CK__REQUIRE(spread);
  CK__REQUIRE(config);
  CK__REQUIRE(pso);
  *pso = NULL;
  CK_TRY(check_config(config, config->particles));
  if (host_objective(config))
    CK_FAIL(CK_ERROR_UNSUPPORTED,
            "ck_pso_config.evaluate: a host objective does not spread over "
            "devices; create the swarm on one device");
  if (!spread->devices || spread->device_count == 0)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "ck_pso_create_spread: no devices");
  CK_TRY(create_run(spread, config, pso));
fail:
  return status;
}

ck_status ck_pso_destroy(ck_pso *pso) {
  if (!pso)
    return CK_OK;
  ck__engine_destroy(pso->engine);
  free(pso->swarms);
  ck__history_free(&pso->history);
  free(pso);
  return CK_OK;
}
