/* pso_opencl.c - the OpenCL steps of PSO: kernels in cl/pso.cl. */
#include <stdio.h>
#include <string.h>

#include "ck_objectives.h"
#include "pso/pso_internal.h"

static ck_status set_real(ck_kernel *kernel, unsigned index,
                          const pso_state *state, double value) {
  return ck__kernel_set_real(kernel, index, state->double_precision, value);
}

static size_t rounded(size_t count, size_t group) {
  return (count + group - 1) / group * group;
}

static ck_status opencl_setup(pso_state *state) {
  ck_status status = CK_OK;
  char defines[256];
  snprintf(defines, sizeof defines,
           "-DCK_OBJECTIVE=%d -DCK_BOUNDS=%d -DCK_PSO_RING=%d "
           "-DCK_GROUP=%u -DCK_DIM=%d -DCK_USER_DATA=%d "
           "-DCK_LSQ_LANES=%u -DCK_LANES=%u -DCK_REAL_DOUBLE=%d",
           state->objective, state->bounds, state->ring ? 1 : 0,
           (unsigned)state->group, state->dim, state->problem->user_has_data,
           state->lsq.lanes ? state->lsq.lanes : 1u,
           (unsigned)state->move_lanes, state->double_precision);
  CK_TRY(ck__program_build_prefixed(
      state->queue, "pso", defines, state->problem->user_name,
      state->problem->user_source, &state->program));
  CK_TRY(ck_kernel_create(state->program, "ck_pso_initialise",
                          &state->initialise_kernel));
  CK_TRY(ck_kernel_create(state->program,
                          state->move_lanes > 1 ? "ck_pso_move_lanes"
                                                : "ck_pso_move",
                          &state->move_kernel));
  CK_TRY(ck_kernel_create(state->program, "ck_best_reduce",
                          &state->reduce_kernel));
  CK_TRY(ck_kernel_create(state->program, "ck_best_update",
                          &state->update_kernel));
  if (state->ring)
    CK_TRY(ck_kernel_create(state->program, "ck_pso_neighbours",
                            &state->neighbours_kernel));

  /* Arguments that never change are set once. */
  ck_kernel *kernel = state->initialise_kernel;
  CK_TRY(ck_kernel_set_value(kernel, 0, sizeof state->n, &state->n));
  CK_TRY(ck_kernel_set_value(kernel, 1, sizeof state->dim, &state->dim));
  CK_TRY(ck_kernel_set_value(kernel, 2, sizeof state->seed, &state->seed));
  CK_TRY(set_real(kernel, 3, state, state->velocity_init));
  CK_TRY(ck_kernel_set_buffer(kernel, 4, state->lo));
  CK_TRY(ck_kernel_set_buffer(kernel, 5, state->hi));
  CK_TRY(ck_kernel_set_buffer(kernel, 6, state->vmax));
  CK_TRY(ck_kernel_set_buffer(kernel, 7, state->x));
  CK_TRY(ck_kernel_set_buffer(kernel, 8, state->v));
  CK_TRY(ck_kernel_set_buffer(kernel, 9, state->pbest));
  CK_TRY(ck_kernel_set_buffer(kernel, 10, state->pbest_value));

  kernel = state->move_kernel;
  CK_TRY(ck_kernel_set_value(kernel, 0, sizeof state->n, &state->n));
  CK_TRY(ck_kernel_set_value(kernel, 1, sizeof state->dim, &state->dim));
  CK_TRY(ck_kernel_set_value(kernel, 2, sizeof state->seed, &state->seed));
  CK_TRY(set_real(kernel, 4, state, state->w));
  CK_TRY(set_real(kernel, 5, state, state->c1));
  CK_TRY(set_real(kernel, 6, state, state->c2));
  CK_TRY(ck_kernel_set_buffer(kernel, 7, state->lo));
  CK_TRY(ck_kernel_set_buffer(kernel, 8, state->hi));
  CK_TRY(ck_kernel_set_buffer(kernel, 9, state->vmax));
  CK_TRY(ck_kernel_set_buffer(kernel, 10, state->x));
  CK_TRY(ck_kernel_set_buffer(kernel, 11, state->v));
  CK_TRY(ck_kernel_set_buffer(kernel, 12, state->pbest));
  CK_TRY(ck_kernel_set_buffer(kernel, 13, state->pbest_value));
  CK_TRY(ck_kernel_set_buffer(kernel, 14, state->gbest));
  CK_TRY(ck_kernel_set_buffer(
      kernel, 15, state->ring ? state->neighbour : state->best_index));
  CK_TRY(ck_kernel_set_buffer(kernel, 16, state->done));
  CK_TRY(ck_kernel_set_buffer(
      kernel, 17, state->ring ? state->values : state->pbest_value));

  if (state->values) {
    CK_TRY(
        ck_kernel_create(state->program, "ck_pso_keep", &state->keep_kernel));
    kernel = state->keep_kernel;
    CK_TRY(ck_kernel_set_value(kernel, 0, sizeof state->n, &state->n));
    CK_TRY(ck_kernel_set_value(kernel, 1, sizeof state->dim, &state->dim));
    CK_TRY(ck_kernel_set_buffer(kernel, 2, state->values));
    CK_TRY(ck_kernel_set_buffer(kernel, 3, state->pbest_value));
    CK_TRY(ck_kernel_set_buffer(kernel, 4, state->x));
    CK_TRY(ck_kernel_set_buffer(kernel, 5, state->pbest));
    CK_TRY(ck_kernel_set_buffer(kernel, 6, state->done));
  }
  if (state->ring) {
    kernel = state->neighbours_kernel;
    CK_TRY(ck_kernel_set_value(kernel, 0, sizeof state->n, &state->n));
    CK_TRY(ck_kernel_set_value(kernel, 1, sizeof state->ring, &state->ring));
    CK_TRY(ck_kernel_set_buffer(kernel, 2, state->pbest_value));
    CK_TRY(ck_kernel_set_buffer(kernel, 3, state->neighbour));
    CK_TRY(ck_kernel_set_buffer(kernel, 4, state->done));
  }

  if (state->partial_count) {
    kernel = state->reduce_kernel;
    CK_TRY(ck_kernel_set_buffer(kernel, 0, state->pbest_value));
    CK_TRY(ck_kernel_set_value(kernel, 1, sizeof state->n, &state->n));
    CK_TRY(ck_kernel_set_buffer(kernel, 2, state->partial_values));
    CK_TRY(ck_kernel_set_buffer(kernel, 3, state->partial_indices));
  }
  kernel = state->update_kernel;
  uint32_t direct = state->partial_count ? 0u : 1u;
  uint32_t candidates = state->partial_count ? state->partial_count : state->n;
  CK_TRY(ck_kernel_set_buffer(
      kernel, 0, direct ? state->pbest_value : state->partial_values));
  CK_TRY(ck_kernel_set_buffer(
      kernel, 1, direct ? state->best_index : state->partial_indices));
  CK_TRY(ck_kernel_set_value(kernel, 2, sizeof candidates, &candidates));
  CK_TRY(ck_kernel_set_value(kernel, 3, sizeof direct, &direct));
  CK_TRY(ck_kernel_set_value(kernel, 4, sizeof state->n, &state->n));
  CK_TRY(ck_kernel_set_value(kernel, 5, sizeof state->dim, &state->dim));
  CK_TRY(ck_kernel_set_buffer(kernel, 6, state->pbest));
  CK_TRY(ck_kernel_set_buffer(kernel, 7, state->best_value));
  CK_TRY(ck_kernel_set_buffer(kernel, 8, state->best_index));
  CK_TRY(ck_kernel_set_buffer(kernel, 9, state->gbest));
  CK_TRY(ck_kernel_set_buffer(kernel, 10, state->history));
  uint32_t has_target = state->has_target ? 1u : 0u;
  CK_TRY(set_real(kernel, 12, state, state->has_target ? state->target : 0.0));
  CK_TRY(ck_kernel_set_value(kernel, 13, sizeof has_target, &has_target));
  CK_TRY(ck_kernel_set_buffer(kernel, 14, state->done));

  if (!state->streamed)
    CK_TRY(ck__evaluation_create(&state->evaluation, state->program,
                                 state->problem, state->n, state->rows,
                                 &state->lsq, state->group, state->data,
                                 state->lsq_partial, state->done));
fail:
  return status;
}

static ck_status launch_per_particle(pso_state *state, ck_kernel *kernel) {
  size_t local = state->group;
  size_t global = rounded(state->n, local);
  return ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL);
}

static ck_status opencl_initialise(pso_state *state) {
  return launch_per_particle(state, state->initialise_kernel);
}

static ck_status opencl_neighbours(pso_state *state) {
  return launch_per_particle(state, state->neighbours_kernel);
}

static ck_status opencl_move(pso_state *state, uint64_t iteration) {
  ck_status status =
      ck_kernel_set_value(state->move_kernel, 3, sizeof iteration, &iteration);
  if (!status) {
    /* A work-item per move_lanes particles (1 but on CPUs). */
    size_t local = state->move_local;
    size_t global =
        rounded((state->n + state->move_lanes - 1) / state->move_lanes, local);
    status = ck_queue_launch(state->queue, state->move_kernel, 1, &global,
                             &local, NULL);
  }
  if (!status && state->ring && state->streamed)
    status = launch_per_particle(state, state->keep_kernel);
  return status;
}

/* Values of lsq or user objectives, then personal bests kept. */
static ck_status opencl_evaluate(pso_state *state) {
  ck_status status = ck__evaluation_run(&state->evaluation, state->queue,
                                        state->x, state->values);
  return status ? status : launch_per_particle(state, state->keep_kernel);
}

static ck_status opencl_update_best(pso_state *state, uint32_t slot) {
  ck_status status;
  size_t local = state->group;
  if (state->partial_count) {
    size_t global = (size_t)state->partial_count * state->group;
    status = ck_queue_launch(state->queue, state->reduce_kernel, 1, &global,
                             &local, NULL);
    if (status)
      return status;
  }
  status = ck_kernel_set_value(state->update_kernel, 11, sizeof slot, &slot);
  return status ? status
                : ck_queue_launch(state->queue, state->update_kernel, 1, &local,
                                  &local, NULL);
}

static void opencl_teardown(pso_state *state) {
  ck_kernel_destroy(state->initialise_kernel);
  ck_kernel_destroy(state->neighbours_kernel);
  ck_kernel_destroy(state->move_kernel);
  ck_kernel_destroy(state->reduce_kernel);
  ck_kernel_destroy(state->update_kernel);
  ck__evaluation_destroy(&state->evaluation);
  ck_kernel_destroy(state->keep_kernel);
  ck_program_destroy(state->program);
}

const ck__pso_steps ck__pso_opencl_steps = {
    opencl_setup,    opencl_initialise,  opencl_neighbours, opencl_move,
    opencl_evaluate, opencl_update_best, opencl_teardown,   NULL};
