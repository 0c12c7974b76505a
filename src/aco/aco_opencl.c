/* aco_opencl.c - the OpenCL steps of the ACO: kernels in cl/aco.cl. */
#include <stdio.h>
#include <stdlib.h>

#include "aco/aco_internal.h"
#include "ck_aco.h"

/* items ants, a work-group of state->lanes each; or one work-item each when
 * lanes is 1, in groups of 32, or of one on a CPU, whose runtime runs a
 * work-group on one core: a group an ant spreads the ants over the cores. */
static ck_status launch_ants(aco_state *state, ck_kernel *kernel,
                             size_t items) {
  if (state->lanes <= 1) {
    size_t local = state->device.kind == CK_KIND_CPU ? 1 : 32;
    size_t global = (items + local - 1) / local * local;
    return ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL);
  }
  size_t local = state->lanes, global = items * state->lanes;
  return ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL);
}

static ck_status launch(aco_state *state, ck_kernel *kernel, size_t items) {
  size_t local = state->group;
  size_t global = (items + local - 1) / local * local;
  return ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL);
}

#define SET_VALUE(kernel, index, value)                                        \
  CK_TRY(ck_kernel_set_value(kernel, index, sizeof(value), &(value)))
#define SET_BUFFER(kernel, index, buffer)                                      \
  CK_TRY(ck_kernel_set_buffer(kernel, index, buffer))

ck_status ck__aco_set_construct_arguments(aco_state *state, ck_kernel *kernel) {
  ck_status status = CK_OK;
  SET_VALUE(kernel, 0, state->n);
  SET_VALUE(kernel, 1, state->ants);
  SET_VALUE(kernel, 2, state->seed);
  SET_VALUE(kernel, 4, state->q0);
  SET_BUFFER(kernel, 5, state->matrix);
  SET_BUFFER(kernel, 6, state->xy);
  SET_BUFFER(kernel, 7, state->neighbours);
  SET_BUFFER(kernel, 8, state->choice);
  SET_BUFFER(kernel, 9, state->tours);
  SET_BUFFER(kernel, 10, state->flags);
  SET_BUFFER(kernel, 11, state->lengths);
  SET_BUFFER(kernel, 12, state->grid_cells);
  SET_BUFFER(kernel, 13, state->grid_box);
fail:
  return status;
}

ck_status ck__aco_set_search_arguments(aco_state *state, ck_kernel *kernel) {
  ck_status status = CK_OK;
  int ranked =
      state->local_search_ants && state->local_search_ants < state->ants;
  uint32_t count = ranked ? state->local_search_ants : state->ants;
  SET_VALUE(kernel, 0, state->n);
  SET_VALUE(kernel, 1, state->longest);
  SET_VALUE(kernel, 2, state->or_opt);
  SET_VALUE(kernel, 3, count);
  SET_VALUE(kernel, 4, ranked);
  SET_BUFFER(kernel, 6, state->best_tour);
  SET_BUFFER(kernel, 7, state->best_positions);
  SET_BUFFER(kernel, 8, state->order);
  SET_BUFFER(kernel, 9, state->matrix);
  SET_BUFFER(kernel, 10, state->xy);
  SET_BUFFER(kernel, 11, state->neighbours);
  SET_BUFFER(kernel, 12, state->tours);
  SET_BUFFER(kernel, 13, state->positions);
  SET_BUFFER(kernel, 14, state->flags);
  SET_BUFFER(kernel, 15, state->lengths);
fail:
  return status;
}

static ck_status opencl_setup(aco_state *state) {
  ck_status status = CK_OK;
  char defines[200];
  snprintf(defines, sizeof defines,
           "-DCK_GROUP=%u -DCK_ACO_METRIC=%d -DCK_ACO_K=%uu -DCK_ACO_LANES=%u",
           (unsigned)state->group, state->metric, (unsigned)state->k,
           (unsigned)state->lanes);
  int groups = state->lanes > 1;
  CK_TRY(ck_program_build(state->queue, "aco", defines, &state->program));
  ck_kernel *kernel;
  CK_TRY(ck_kernel_create(
      state->program,
      groups ? "ck_aco_build_tours_groups" : "ck_aco_build_tours", &kernel));
  state->construct_kernel = kernel;
  CK_TRY(ck__aco_set_construct_arguments(state, kernel));

  CK_TRY(ck_kernel_create(state->program, "ck_aco_count_uses", &kernel));
  state->count_kernel = kernel;
  SET_VALUE(kernel, 0, state->n);
  SET_VALUE(kernel, 1, state->ants);
  SET_BUFFER(kernel, 2, state->neighbours);
  SET_BUFFER(kernel, 3, state->tours);
  SET_BUFFER(kernel, 4, state->uses);

  CK_TRY(ck_kernel_create(state->program, "ck_aco_rank", &kernel));
  state->rank_kernel = kernel;
  SET_VALUE(kernel, 0, state->ants);
  SET_BUFFER(kernel, 1, state->lengths);
  SET_BUFFER(kernel, 2, state->order);

  CK_TRY(ck_kernel_create(state->program,
                          groups ? "ck_aco_search_groups" : "ck_aco_search",
                          &kernel));
  state->search_kernel = kernel;
  CK_TRY(ck__aco_set_search_arguments(state, kernel));

  CK_TRY(ck_kernel_create(state->program, "ck_aco_iteration_best", &kernel));
  state->best_kernel = kernel;
  SET_VALUE(kernel, 0, state->ants);
  SET_BUFFER(kernel, 1, state->lengths);
  SET_BUFFER(kernel, 2, state->best);

  CK_TRY(ck_kernel_create(state->program, "ck_aco_deposit", &kernel));
  state->deposit_kernel = kernel;
  SET_VALUE(kernel, 0, state->n);
  SET_BUFFER(kernel, 1, state->neighbours);

  CK_TRY(ck_kernel_create(state->program, "ck_aco_update", &kernel));
  state->update_kernel = kernel;
  uint32_t entries = state->n * state->k;
  SET_VALUE(kernel, 0, entries);
  SET_BUFFER(kernel, 1, state->uses);
  SET_VALUE(kernel, 2, state->xi);
  SET_VALUE(kernel, 3, state->tau0);
  SET_VALUE(kernel, 7, state->alpha);
  SET_BUFFER(kernel, 8, state->eta_beta);
  SET_BUFFER(kernel, 9, state->tau);
  SET_BUFFER(kernel, 10, state->choice);

  CK_TRY(ck_kernel_create(state->program, "ck_aco_rotate", &kernel));
  state->rotate_kernel = kernel;
  SET_VALUE(kernel, 0, state->n);
  SET_BUFFER(kernel, 2, state->best_tour);
  SET_BUFFER(kernel, 3, state->segment_tour);

  CK_TRY(ck_kernel_create(state->program, "ck_aco_segments", &kernel));
  state->segment_kernel = kernel;
  SET_VALUE(kernel, 0, state->n);
  SET_VALUE(kernel, 3, state->or_opt);
  SET_VALUE(kernel, 5, state->seed);
  SET_BUFFER(kernel, 7, state->matrix);
  SET_BUFFER(kernel, 8, state->xy);
  SET_BUFFER(kernel, 9, state->segment_tour);
  SET_BUFFER(kernel, 11, state->segment_gain);
fail:
  return status;
}

static ck_status opencl_construct(aco_state *state, uint64_t iteration) {
  ck_status status = CK_OK;
  SET_VALUE(state->construct_kernel, 3, iteration);
  CK_TRY(launch_ants(state, state->construct_kernel, state->ants));
  if (state->algorithm == CK_ACO_ACS)
    CK_TRY(launch(state, state->count_kernel, (size_t)state->ants * state->n));
fail:
  return status;
}

static ck_status opencl_local_search(aco_state *state) {
  ck_status status = CK_OK;
  int ranked =
      state->local_search_ants && state->local_search_ants < state->ants;
  SET_VALUE(state->search_kernel, 5, state->seeded);
  if (ranked)
    CK_TRY(launch(state, state->rank_kernel, state->ants));
  CK_TRY(launch_ants(state, state->search_kernel,
                     ranked ? state->local_search_ants : state->ants));
fail:
  return status;
}

static ck_status opencl_iteration_best(aco_state *state, int64_t *length,
                                       uint32_t *ant) {
  ck_status status = CK_OK;
  int64_t best[2];
  size_t one = state->group;
  CK_TRY(
      ck_queue_launch(state->queue, state->best_kernel, 1, &one, &one, NULL));
  CK_TRY(ck_buffer_read(state->queue, state->best, 0, sizeof best, best,
                        CK_BLOCKING, NULL));
  *length = best[0];
  *ant = (uint32_t)best[1];
fail:
  return status;
}

static ck_status opencl_keep_best(aco_state *state, uint32_t ant,
                                  uint32_t *tour) {
  ck_status status = CK_OK;
  size_t bytes = (size_t)state->n * sizeof(uint32_t);
  CK_TRY(ck_buffer_copy(state->queue, state->best_tour, 0, state->tours,
                        (size_t)ant * bytes, bytes, NULL));
  CK_TRY(ck_buffer_read(state->queue, state->best_tour, 0, bytes, tour,
                        CK_BLOCKING, NULL));
fail:
  return status;
}

static ck_status opencl_deposit(aco_state *state, uint32_t ant, float scale,
                                float amount) {
  ck_status status = CK_OK;
  ck_kernel *kernel = state->deposit_kernel;
  uint64_t offset = ant == CK__ACO_BEST ? 0 : (uint64_t)ant * state->n;
  SET_BUFFER(kernel, 2, ant == CK__ACO_BEST ? state->best_tour : state->tours);
  SET_VALUE(kernel, 3, offset);
  SET_VALUE(kernel, 4, scale);
  SET_VALUE(kernel, 5, amount);
  SET_BUFFER(kernel, 6, state->tau);
  CK_TRY(launch(state, kernel, state->n));
fail:
  return status;
}

static ck_status opencl_update(aco_state *state, float keep, float tau_min,
                               float tau_max) {
  ck_status status = CK_OK;
  ck_kernel *kernel = state->update_kernel;
  SET_VALUE(kernel, 4, keep);
  SET_VALUE(kernel, 5, tau_min);
  SET_VALUE(kernel, 6, tau_max);
  CK_TRY(launch(state, kernel, (size_t)state->n * state->k));
fail:
  return status;
}

/* Written from the host rather than by a fill, which Oclgrind counts as
 * uninitialised memory; resets are rare (setup and MMAS restarts). */
static ck_status opencl_reset(aco_state *state, float value) {
  size_t entries = (size_t)state->n * state->k;
  float *values = malloc(entries * sizeof *values);
  if (!values)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (size_t e = 0; e < entries; ++e)
    values[e] = value;
  ck_status status =
      ck_buffer_write(state->queue, state->tau, 0, entries * sizeof *values,
                      values, CK_BLOCKING, NULL);
  free(values);
  return status;
}

static ck_status opencl_partition(aco_state *state, uint32_t size,
                                  uint32_t offset, uint64_t pass,
                                  uint32_t *tour, int64_t *gain) {
  ck_status status = CK_OK;
  uint32_t segments = (state->n + size - 1) / size;
  int64_t *gains = malloc((size_t)segments * sizeof *gains);
  if (!gains)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__aco_segment_scratch(state, size));
  SET_VALUE(state->rotate_kernel, 1, offset);
  CK_TRY(launch(state, state->rotate_kernel, state->n));
  SET_VALUE(state->segment_kernel, 1, size);
  SET_VALUE(state->segment_kernel, 2, segments);
  uint32_t kicks = ck__aco_kicks(state, size);
  SET_VALUE(state->segment_kernel, 4, kicks);
  SET_VALUE(state->segment_kernel, 6, pass);
  SET_BUFFER(state->segment_kernel, 10, state->segment_scratch);
  /* A work-group a segment: the segments are serial searches, one to a
   * compute unit. */
  size_t one = 1, count = segments;
  CK_TRY(ck_queue_launch(state->queue, state->segment_kernel, 1, &count, &one,
                         NULL));
  CK_TRY(ck_buffer_read(state->queue, state->segment_gain, 0,
                        (size_t)segments * sizeof *gains, gains, CK_BLOCKING,
                        NULL));
  *gain = 0;
  for (uint32_t i = 0; i < segments; ++i)
    *gain += gains[i];
  /* Without a gain the best tour stays as it was (and matches the
   * positions uploaded with it); no copy, no read. */
  if (*gain > 0) {
    size_t bytes = (size_t)state->n * sizeof(uint32_t);
    CK_TRY(ck_buffer_copy(state->queue, state->best_tour, 0,
                          state->segment_tour, 0, bytes, NULL));
    CK_TRY(ck_buffer_read(state->queue, state->best_tour, 0, bytes, tour,
                          CK_BLOCKING, NULL));
  }
fail:
  free(gains);
  return status;
}

static void opencl_teardown(aco_state *state) {
  ck_kernel *kernels[] = {
      state->construct_kernel, state->count_kernel,  state->rank_kernel,
      state->search_kernel,    state->best_kernel,   state->deposit_kernel,
      state->update_kernel,    state->rotate_kernel, state->segment_kernel};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    ck_kernel_destroy(kernels[i]);
  ck_program_destroy(state->program);
}

const ck__aco_steps ck__aco_opencl_steps = {
    opencl_setup,          opencl_construct, opencl_local_search,
    opencl_iteration_best, opencl_keep_best, opencl_deposit,
    opencl_update,         opencl_reset,     opencl_partition,
    opencl_teardown};
