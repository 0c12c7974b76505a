/* pso_opencl.c - the OpenCL steps of PSO: kernels in cl/pso.cl. */
#include <stdio.h>
#include <string.h>

#include "ck_objectives.h"
#include "pso/pso_internal.h"

/* Arguments set again at each launch, by position: ck_pso_move's
 * iteration (cl/pso.cl) and ck_best_update's history slot (cl/ck_best.h).
 * Setup sets them first, with the rest. */
enum { MOVE_ITERATION = 4, UPDATE_SLOT = 11 };

static size_t rounded(size_t count, size_t group) {
  return (count + group - 1) / group * group;
}

/* The program and its kernels: a ring's, a non-streamed or ring swarm's
 * keep, a member's report. */
static ck_status make_kernels(pso_state *state) {
  ck_status status = CK_OK;
  char defines[256];
  snprintf(defines, sizeof defines,
           "-DCK_OBJECTIVE=%d -DCK_BOUNDS=%d -DCK_PSO_RING=%d "
           "-DCK_GROUP=%u -DCK_DIM=%d -DCK_USER_DATA=%d "
           "-DCK_LSQ_LANES=%u -DCK_LANES=%u -DCK_REAL_DOUBLE=%d "
           "-DCK_PSO_FUSE_USER=%d",
           state->objective, state->bounds, state->ring ? 1 : 0,
           (unsigned)state->group, state->dim, state->problem->user_has_data,
           state->lsq.lanes ? state->lsq.lanes : 1u,
           (unsigned)state->move_lanes, state->double_precision,
           state->fused_user);
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
  if (state->values)
    CK_TRY(
        ck_kernel_create(state->program, "ck_pso_keep", &state->keep_kernel));
  if (state->outbox)
    CK_TRY(ck_kernel_create(state->program, "ck_pso_report",
                            &state->report_kernel));
fail:
  return status;
}

/* The buffer a ring's kernels read past the slice's ends: its halo; a
 * swarm with no halo (ck_pso_ring_best_slice) names another, never read. */
static ck_buffer *halo_of(const pso_state *state) {
  return state->ring && state->n < state->total ? state->inbox : state->pbest;
}

/* The initialisation's and the move's arguments that never change. */
static ck_status move_args(pso_state *state) {
  ck_status status = CK_OK;
  int real = state->double_precision;
  ck_kernel_args args;
  ck_kernel_args_begin(state->initialise_kernel, &args);
  ck_kernel_args_u32(&args, state->n);
  ck_kernel_args_u32(&args, state->first);
  ck_kernel_args_i32(&args, state->dim);
  ck_kernel_args_u64(&args, state->seed);
  ck_kernel_args_real(&args, state->velocity_init, real);
  ck_kernel_args_buffer(&args, state->lo);
  ck_kernel_args_buffer(&args, state->hi);
  ck_kernel_args_buffer(&args, state->vmax);
  ck_kernel_args_buffer(&args, state->x);
  ck_kernel_args_buffer(&args, state->v);
  ck_kernel_args_buffer(&args, state->pbest);
  ck_kernel_args_buffer(&args, state->pbest_value);
  CK_TRY(ck_kernel_args_end(&args));

  ck_kernel_args_begin(state->move_kernel, &args);
  ck_kernel_args_u32(&args, state->n);
  ck_kernel_args_u32(&args, state->first);
  ck_kernel_args_i32(&args, state->dim);
  ck_kernel_args_u64(&args, state->seed);
  ck_kernel_args_u64(&args, 0); /* MOVE_ITERATION */
  ck_kernel_args_real(&args, state->w, real);
  ck_kernel_args_real(&args, state->c1, real);
  ck_kernel_args_real(&args, state->c2, real);
  ck_kernel_args_buffer(&args, state->lo);
  ck_kernel_args_buffer(&args, state->hi);
  ck_kernel_args_buffer(&args, state->vmax);
  ck_kernel_args_buffer(&args, state->x);
  ck_kernel_args_buffer(&args, state->v);
  ck_kernel_args_buffer(&args, state->pbest);
  ck_kernel_args_buffer(&args, state->pbest_value);
  ck_kernel_args_buffer(&args, state->gbest);
  ck_kernel_args_buffer(&args,
                        state->ring ? state->neighbour : state->best_index);
  ck_kernel_args_buffer(&args, halo_of(state));
  ck_kernel_args_buffer(&args, state->done);
  ck_kernel_args_buffer(&args,
                        state->ring ? state->values : state->pbest_value);
  CK_TRY(ck_kernel_args_end(&args));
fail:
  return status;
}

/* The keep's and the ring's neighbours' arguments, where they run. */
static ck_status ring_args(pso_state *state) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  if (state->values) {
    ck_kernel_args_begin(state->keep_kernel, &args);
    ck_kernel_args_u32(&args, state->n);
    ck_kernel_args_i32(&args, state->dim);
    ck_kernel_args_buffer(&args, state->values);
    ck_kernel_args_buffer(&args, state->pbest_value);
    ck_kernel_args_buffer(&args, state->x);
    ck_kernel_args_buffer(&args, state->pbest);
    ck_kernel_args_buffer(&args, state->done);
    CK_TRY(ck_kernel_args_end(&args));
  }
  if (state->ring) {
    ck_kernel_args_begin(state->neighbours_kernel, &args);
    ck_kernel_args_u32(&args, state->n);
    ck_kernel_args_u32(&args, state->ring);
    ck_kernel_args_u32(&args, state->first);
    ck_kernel_args_u32(&args, state->total);
    ck_kernel_args_i32(&args, state->dim);
    ck_kernel_args_buffer(&args, state->pbest_value);
    ck_kernel_args_buffer(&args, halo_of(state));
    ck_kernel_args_buffer(&args, state->neighbour);
    ck_kernel_args_buffer(&args, state->done);
    CK_TRY(ck_kernel_args_end(&args));
  }
fail:
  return status;
}

/* The best's reduction and update, and a member's report. */
static ck_status best_args(pso_state *state) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  if (state->partial_count) {
    ck_kernel_args_begin(state->reduce_kernel, &args);
    ck_kernel_args_buffer(&args, state->pbest_value);
    ck_kernel_args_u32(&args, state->n);
    ck_kernel_args_buffer(&args, state->partial_values);
    ck_kernel_args_buffer(&args, state->partial_indices);
    CK_TRY(ck_kernel_args_end(&args));
  }
  int direct = !state->partial_count;
  ck_kernel_args_begin(state->update_kernel, &args);
  ck_kernel_args_buffer(&args,
                        direct ? state->pbest_value : state->partial_values);
  ck_kernel_args_buffer(&args,
                        direct ? state->best_index : state->partial_indices);
  ck_kernel_args_u32(&args, direct ? state->n : state->partial_count);
  ck_kernel_args_u32(&args, (uint32_t)direct);
  ck_kernel_args_u32(&args, state->n);
  ck_kernel_args_i32(&args, state->dim);
  ck_kernel_args_buffer(&args, state->pbest);
  ck_kernel_args_buffer(&args, state->best_value);
  ck_kernel_args_buffer(&args, state->best_index);
  ck_kernel_args_buffer(&args, state->gbest);
  ck_kernel_args_buffer(&args, state->history);
  ck_kernel_args_u32(&args, 0); /* UPDATE_SLOT */
  ck_kernel_args_real(&args, state->has_target ? state->target : 0.0,
                      state->double_precision);
  ck_kernel_args_u32(&args, state->has_target ? 1u : 0u);
  ck_kernel_args_buffer(&args, state->done);
  CK_TRY(ck_kernel_args_end(&args));
  if (state->outbox) {
    ck_kernel_args_begin(state->report_kernel, &args);
    ck_kernel_args_u32(&args, state->n);
    ck_kernel_args_i32(&args, state->dim);
    ck_kernel_args_u32(&args, state->send_forward);
    ck_kernel_args_u32(&args, state->send_back);
    ck_kernel_args_buffer(&args, state->best_value);
    ck_kernel_args_buffer(&args, state->best_index);
    ck_kernel_args_buffer(&args, state->gbest);
    ck_kernel_args_buffer(&args, state->pbest_value);
    ck_kernel_args_buffer(&args, state->pbest);
    ck_kernel_args_buffer(&args, state->outbox);
    CK_TRY(ck_kernel_args_end(&args));
  }
fail:
  return status;
}

/* The kernels, their arguments that never change, and the evaluation of
 * lsq and user objectives. */
static ck_status opencl_setup(pso_state *state) {
  ck_status status = CK_OK;
  CK_TRY(make_kernels(state));
  CK_TRY(move_args(state));
  CK_TRY(ring_args(state));
  CK_TRY(best_args(state));
  if (!state->streamed && state->objective != CK_OBJECTIVE_HOST)
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
  ck_kernel_args args;
  ck_kernel_args_at(state->move_kernel, MOVE_ITERATION, &args);
  ck_status status = ck_kernel_args_u64(&args, iteration);
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

/* Values of lsq or user objectives, then personal bests kept; a host
 * objective's values are in place already. */
static ck_status opencl_evaluate(pso_state *state) {
  ck_status status = CK_OK;
  if (state->objective != CK_OBJECTIVE_HOST)
    status = ck__evaluation_run(&state->evaluation, state->queue, state->x,
                                state->values);
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
  ck_kernel_args args;
  ck_kernel_args_at(state->update_kernel, UPDATE_SLOT, &args);
  status = ck_kernel_args_u32(&args, slot);
  return status ? status
                : ck_queue_launch(state->queue, state->update_kernel, 1, &local,
                                  &local, NULL);
}

/* A work-item an item of the outbox. */
static ck_status opencl_report(pso_state *state) {
  size_t local = state->group;
  size_t global = rounded(1u + state->send_forward + state->send_back, local);
  return ck_queue_launch(state->queue, state->report_kernel, 1, &global, &local,
                         NULL);
}

static void opencl_teardown(pso_state *state) {
  ck_kernel_destroy(state->initialise_kernel);
  ck_kernel_destroy(state->neighbours_kernel);
  ck_kernel_destroy(state->move_kernel);
  ck_kernel_destroy(state->reduce_kernel);
  ck_kernel_destroy(state->update_kernel);
  ck__evaluation_destroy(&state->evaluation);
  ck_kernel_destroy(state->keep_kernel);
  ck_kernel_destroy(state->report_kernel);
  ck_program_destroy(state->program);
}

const ck__pso_steps ck__pso_opencl_steps = {
    .setup = opencl_setup,
    .initialise = opencl_initialise,
    .neighbours = opencl_neighbours,
    .move = opencl_move,
    .evaluate = opencl_evaluate,
    .update_best = opencl_update_best,
    .report = opencl_report,
    .teardown = opencl_teardown,
};
