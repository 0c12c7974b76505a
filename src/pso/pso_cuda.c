/*
 * pso_cuda.c - the CUDA steps of PSO. Gbest swarms in single precision of
 * built-in objectives, or of a user's without data whose position fits
 * the step's shared memory, take the native step of cl/pso.cu: one
 * launch an iteration, where the OpenCL steps take three. Least squares
 * is evaluated by the native kernels of cl/lsq.cu. Everything else
 * (initialisation, ring swarms, double precision) runs the OpenCL steps'
 * kernels, built for CUDA.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "ck_objectives.h"
#include "pso/pso_internal.h"
#include "runtime/runtime.h"

/* Rows of a native step's block at most: a warp's width x 16 threads; for
 * a user objective, which row 0 evaluates alone, 4, so that a quarter of
 * the threads evaluate. */
#define STEP_ROWS 16u
#define USER_STEP_ROWS 4u
/* Threads and blocks a Hopper SM holds: a step's registers are limited so
 * that its blocks fill one. */
#define SM_THREADS 2048u
#define SM_BLOCKS 32u
/* Beyond this dimension a particle's team would loop over many rounds;
 * the OpenCL move serves such swarms as well. */
#define NATIVE_MAX_DIM 4096
/* Shared memory a native step's block may declare for a group's
 * coordinates and shares: under the 48 KiB a kernel declares statically,
 * and four blocks of 512 threads an SM fit. */
#define GROUP_BYTES (40u * 1024u)
/* Iterations a recorded graph of native steps holds. */
#define GRAPH_STEPS 32u

/* The native steps' own state, which the driver never reads. */
struct pso_native {
  uint32_t step_rows, blocks; /* native step: 32 x step_rows threads a block */
  ck_program *program, *lsq_program;
  ck_kernel *step_kernel;
  ck_buffer *block_values, *block_indices, *arrivals;
  ck_buffer *counters; /* the next (iteration, slot), on the device */
  void *graph;         /* a recorded run of native steps */
  /* What the counters hold after the last run, where `known`. */
  int known;
  uint64_t next_iteration;
  uint32_t next_slot;
};

/* Least squares: the evaluation's kernels from cl/lsq.cu, which has the
 * OpenCL kernels' names and arguments, in place of the OpenCL ones. */
static ck_status native_lsq(pso_state *state) {
  ck_status status = CK_OK;
  pso_native *native = state->native;
  if (state->objective != CK_OBJECTIVE_LSQ || state->group % CK__CUDA_WARP != 0)
    return CK_OK;
  char defines[128];
  snprintf(defines, sizeof defines,
           "-DCK_DIM=%d -DCK_GROUP=%u -DCK_REAL_DOUBLE=%d", state->dim,
           (unsigned)state->group, state->double_precision);
  CK_TRY(
      ck_program_build(state->queue, "lsq.cu", defines, &native->lsq_program));
  ck__evaluation_destroy(&state->evaluation);
  CK_TRY(ck__evaluation_create(&state->evaluation, native->lsq_program,
                               state->problem, state->n, state->rows,
                               &state->lsq, state->group, state->data,
                               state->lsq_partial, state->done));
fail:
  return status;
}

/* Rounds a native step's group holds (cl/pso.cu): as many as GROUP_BYTES
 * holds for the coordinates and their shares; 0 where a user objective's
 * whole position does not fit. Objectives that fold a second share
 * (Griewank, Ackley) take one round a group: on an H200, 1M particles x
 * 100 dimensions, 14% faster so than with three. */
static uint32_t group_rounds(int objective, int dim, uint32_t rows) {
  uint32_t rounds = ((uint32_t)(dim + 1) / 2 + rows - 1) / rows;
  if (CK_OBJECTIVE_HAS_AUX(objective))
    return 1;
  uint32_t arrays = objective == CK_OBJECTIVE_USER ? 1u : 2u;
  uint32_t fit = 0;
  for (uint32_t g = 1; g <= rounds; ++g)
    if (arrays * CK__CUDA_WARP * ((2u * rows * g) | 1u) * 4u <= GROUP_BYTES)
      fit = g;
  if (objective == CK_OBJECTIVE_USER && fit < rounds)
    return 0;
  return fit ? fit : 1u;
}

static ck_status cuda_setup(pso_state *state) {
  ck_status status = CK_OK;
  pso_native *native = calloc(1, sizeof *native);
  if (!(state->native = native))
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__pso_opencl_steps.setup(state));
  CK_TRY(native_lsq(state));
  /* Blocks of a warp's width of particles, a row of threads per dimension pair
   * up to STEP_ROWS (more pairs take more rounds). */
  uint32_t pairs = (uint32_t)(state->dim + 1) / 2;
  uint32_t most =
      state->objective == CK_OBJECTIVE_USER ? USER_STEP_ROWS : STEP_ROWS;
  native->step_rows = pairs < most ? pairs : most;
  uint32_t block = CK__CUDA_WARP * native->step_rows;
  uint32_t min_blocks = SM_THREADS / block;
  if (min_blocks > SM_BLOCKS)
    min_blocks = SM_BLOCKS;
  uint32_t rounds =
      group_rounds(state->objective, state->dim, native->step_rows);
  /* pso.cu's step knows the built-in objectives and the user's that are
   * evaluated in the move (fused_user). */
  state->iterates = state->streamed && !state->ring && rounds > 0 &&
                    !state->double_precision && state->dim <= NATIVE_MAX_DIM;
  if (!state->iterates)
    return CK_OK;
  native->blocks = (state->n + CK__CUDA_WARP - 1) / CK__CUDA_WARP;
  char defines[256];
  snprintf(defines, sizeof defines,
           "-DCK_OBJECTIVE=%d -DCK_BOUNDS=%d -DCK_DIM=%d -DCK_PSO_ROWS=%u "
           "-DCK_PSO_GROUP_ROUNDS=%u -DCK_PSO_MIN_BLOCKS=%u "
           "-DCK_REAL_DOUBLE=0",
           state->objective, state->bounds, state->dim, native->step_rows,
           rounds, min_blocks);
  CK_TRY(ck__program_build_prefixed(
      state->queue, "pso.cu", defines, state->problem->user_name,
      state->problem->user_source, &native->program));
  CK_TRY(ck_kernel_create(native->program, "ck_pso_cuda_step",
                          &native->step_kernel));
  CK_TRY(ck__buffer_make_zeroed(state->queue, native->blocks, sizeof(float),
                                "block candidates", &native->block_values));
  CK_TRY(ck__buffer_make_zeroed(state->queue, native->blocks, sizeof(uint32_t),
                                "block candidates", &native->block_indices));
  CK_TRY(ck__buffer_make_zeroed(state->queue, 1, sizeof(uint32_t),
                                "arrival counter", &native->arrivals));
  CK_TRY(ck__buffer_make_zeroed(state->queue, 2, sizeof(uint64_t),
                                "step counters", &native->counters));

  ck_kernel_args args;
  ck_kernel_args_begin(native->step_kernel, &args);
  ck_kernel_args_u32(&args, state->n);
  ck_kernel_args_u32(&args, state->first);
  ck_kernel_args_u64(&args, state->seed);
  ck_kernel_args_f32(&args, (float)state->w);
  ck_kernel_args_f32(&args, (float)state->c1);
  ck_kernel_args_f32(&args, (float)state->c2);
  ck_buffer *const buffers[] = {
      state->lo,         state->hi,         state->vmax,        state->x,
      state->v,          state->pbest,      state->pbest_value, state->gbest,
      state->best_value, state->best_index, state->history};
  for (unsigned i = 0; i < sizeof buffers / sizeof buffers[0]; ++i)
    ck_kernel_args_buffer(&args, buffers[i]);
  ck_kernel_args_u32(&args, state->history_capacity);
  ck_kernel_args_buffer(&args, native->counters);
  ck_kernel_args_f32(&args, state->has_target ? (float)state->target : 0.0f);
  ck_kernel_args_u32(&args, state->has_target ? 1u : 0u);
  ck_kernel_args_buffer(&args, state->done);
  ck_kernel_args_buffer(&args, native->block_values);
  ck_kernel_args_buffer(&args, native->block_indices);
  ck_kernel_args_buffer(&args, native->arrivals);
  CK_TRY(ck_kernel_args_end(&args));
fail:
  return status;
}

/* One native step a launch; the iteration and slot are on the device. */
static ck_status launch_step(pso_state *state) {
  const pso_native *native = state->native;
  size_t local[2] = {CK__CUDA_WARP, native->step_rows};
  size_t global[2] = {(size_t)native->blocks * CK__CUDA_WARP,
                      native->step_rows};
  return ck_queue_launch(state->queue, native->step_kernel, 2, global, local,
                         NULL);
}

/* Runs of GRAPH_STEPS iterations replay one recorded graph; the rest are
 * single launches. */
static ck_status cuda_iterate(pso_state *state, uint64_t first_iteration,
                              uint32_t first_slot, uint64_t count) {
  ck_status status = CK_OK;
  pso_native *native = state->native;
  assert(first_slot < state->history_capacity);
  /* The steps advance the counters themselves; the host sets them where a
   * run does not begin where the last ended: after the driver's history
   * reads, whose slots restart (a run follows such a read anyway, so
   * waiting here costs little), but not between a spread member's
   * iterations, whose slots go round. */
  if (!native->known || first_iteration != native->next_iteration ||
      first_slot != native->next_slot) {
    uint64_t counters[2] = {first_iteration, first_slot};
    CK_TRY(ck_buffer_write(state->queue, native->counters, 0, sizeof counters,
                           counters, CK_BLOCKING, NULL));
  }
  native->known = 0;
  native->next_iteration = first_iteration + count;
  native->next_slot =
      (uint32_t)((first_slot + count) % state->history_capacity);
  if (count >= GRAPH_STEPS && !native->graph) {
    CK_TRY(ck__cuda_capture_begin(state->queue));
    for (unsigned i = 0; i < GRAPH_STEPS && status == CK_OK; ++i)
      status = launch_step(state);
    ck_status ended = ck__cuda_capture_end(state->queue, &native->graph);
    CK_TRY(status ? status : ended);
  }
  for (; count >= GRAPH_STEPS; count -= GRAPH_STEPS)
    CK_TRY(ck__cuda_graph_launch(state->queue, native->graph));
  for (; count > 0; --count)
    CK_TRY(launch_step(state));
  native->known = 1;
fail:
  return status;
}

/* Kernels before their programs: the evaluation's kernels, which the
 * OpenCL teardown destroys, may come from the lsq program. */
static void cuda_teardown(pso_state *state) {
  pso_native *native = state->native;
  if (native) {
    ck__cuda_graph_destroy(native->graph);
    ck_kernel_destroy(native->step_kernel);
  }
  ck__pso_opencl_steps.teardown(state);
  if (native) {
    ck_program_destroy(native->program);
    ck_program_destroy(native->lsq_program);
    ck_buffer_destroy(native->block_values);
    ck_buffer_destroy(native->block_indices);
    ck_buffer_destroy(native->arrivals);
    ck_buffer_destroy(native->counters);
    free(native);
    state->native = NULL;
  }
}

/* Initialisation, neighbours, separate moves, evaluation and best updates
 * are the OpenCL steps; the driver takes cuda_iterate where the native
 * step applies (state->iterates), and those otherwise. */
const ck__pso_steps ck__pso_cuda_steps = {
    .setup = cuda_setup,
    .teardown = cuda_teardown,
    .iterate = cuda_iterate,
};
