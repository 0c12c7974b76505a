/*
 * pso_cuda.c - the CUDA steps of PSO. Gbest swarms of built-in objectives
 * in single precision take the native step of cl/pso.cu: one launch an
 * iteration, where the OpenCL steps take three. Least squares is
 * evaluated by the native kernels of cl/lsq.cu. Everything else
 * (initialisation, ring swarms, user objectives, double precision) runs
 * the OpenCL steps' kernels, built for CUDA.
 */
#include <stdio.h>

#include "ck_objectives.h"
#include "core/queue_internal.h"
#include "pso/pso_internal.h"

/* Rows of a native step's block at most: 32 x 16 threads. */
#define STEP_ROWS 16u
/* Beyond this dimension a particle's team would loop over many rounds;
 * the OpenCL move serves such swarms as well. */
#define NATIVE_MAX_DIM 4096
/* Iterations a recorded graph of native steps holds. */
#define GRAPH_STEPS 32u

/* Least squares: the evaluation's kernels from cl/lsq.cu, which has the
 * OpenCL kernels' names and arguments, in place of the OpenCL ones. */
static ck_status native_lsq(pso_state *s) {
  ck_status status = CK_OK;
  if (s->objective != CK_OBJECTIVE_LSQ || s->group % 32 != 0)
    return CK_OK;
  char defines[128];
  snprintf(defines, sizeof defines,
           "-DCK_DIM=%d -DCK_GROUP=%u -DCK_REAL_DOUBLE=%d", s->dim,
           (unsigned)s->group, s->double_precision);
  CK_TRY(ck_program_build(s->queue, "lsq.cu", defines, &s->lsq_program));
  ck__evaluation_destroy(&s->evaluation);
  CK_TRY(ck__evaluation_create(&s->evaluation, s->lsq_program, s->problem, s->n,
                               s->rows, &s->lsq, s->group, s->data,
                               s->lsq_partial, s->done));
fail:
  return status;
}

static ck_status cuda_setup(pso_state *s) {
  ck_status status = CK_OK;
  CK_TRY(ck__pso_opencl_steps.setup(s));
  CK_TRY(native_lsq(s));
  s->iterates = s->streamed && !s->ring && !s->double_precision &&
                s->dim <= NATIVE_MAX_DIM;
  if (!s->iterates)
    return CK_OK;
  /* Blocks of 32 particles, a row of threads per dimension pair up to
   * STEP_ROWS (more pairs take more rounds). */
  uint32_t pairs = (uint32_t)(s->dim + 1) / 2;
  s->step_rows = pairs < STEP_ROWS ? pairs : STEP_ROWS;
  s->blocks = (s->n + 31) / 32;
  char defines[256];
  snprintf(defines, sizeof defines,
           "-DCK_OBJECTIVE=%d -DCK_BOUNDS=%d -DCK_DIM=%d -DCK_PSO_ROWS=%u "
           "-DCK_REAL_DOUBLE=0",
           s->objective, s->bounds, s->dim, s->step_rows);
  CK_TRY(ck_program_build(s->queue, "pso.cu", defines, &s->native_program));
  CK_TRY(
      ck_kernel_create(s->native_program, "ck_pso_cuda_step", &s->step_kernel));
  CK_TRY(ck__buffer_make_zeroed(s->queue, s->blocks, sizeof(float),
                                "block candidates", &s->block_values));
  CK_TRY(ck__buffer_make_zeroed(s->queue, s->blocks, sizeof(uint32_t),
                                "block candidates", &s->block_indices));
  CK_TRY(ck__buffer_make_zeroed(s->queue, 1, sizeof(uint32_t),
                                "arrival counter", &s->arrivals));
  CK_TRY(ck__buffer_make_zeroed(s->queue, 2, sizeof(uint64_t), "step counters",
                                &s->counters));

  ck_kernel *k = s->step_kernel;
  float w = (float)s->w, c1 = (float)s->c1, c2 = (float)s->c2;
  float target = s->has_target ? (float)s->target : 0.0f;
  uint32_t has_target = s->has_target ? 1u : 0u;
  CK_TRY(ck_kernel_set_value(k, 0, sizeof s->n, &s->n));
  CK_TRY(ck_kernel_set_value(k, 1, sizeof s->seed, &s->seed));
  CK_TRY(ck_kernel_set_value(k, 2, sizeof w, &w));
  CK_TRY(ck_kernel_set_value(k, 3, sizeof c1, &c1));
  CK_TRY(ck_kernel_set_value(k, 4, sizeof c2, &c2));
  ck_buffer *const buffers[] = {s->lo,          s->hi,     s->vmax,
                                s->x,           s->v,      s->pbest,
                                s->pbest_value, s->gbest,  s->best_value,
                                s->best_index,  s->history};
  for (unsigned i = 0; i < sizeof buffers / sizeof buffers[0]; ++i)
    CK_TRY(ck_kernel_set_buffer(k, 5 + i, buffers[i]));
  CK_TRY(ck_kernel_set_value(k, 16, sizeof s->history_capacity,
                             &s->history_capacity));
  CK_TRY(ck_kernel_set_buffer(k, 17, s->counters));
  CK_TRY(ck_kernel_set_value(k, 18, sizeof target, &target));
  CK_TRY(ck_kernel_set_value(k, 19, sizeof has_target, &has_target));
  CK_TRY(ck_kernel_set_buffer(k, 20, s->done));
  CK_TRY(ck_kernel_set_buffer(k, 21, s->block_values));
  CK_TRY(ck_kernel_set_buffer(k, 22, s->block_indices));
  CK_TRY(ck_kernel_set_buffer(k, 23, s->arrivals));
fail:
  return status;
}

/* One native step a launch; the iteration and slot are on the device. */
static ck_status launch_step(pso_state *s) {
  size_t local[2] = {32, s->step_rows};
  size_t global[2] = {(size_t)s->blocks * 32, s->step_rows};
  return ck_queue_launch(s->queue, s->step_kernel, 2, global, local, NULL);
}

/* Runs of GRAPH_STEPS iterations replay one recorded graph; the rest are
 * single launches. */
static ck_status cuda_iterate(pso_state *s, uint64_t first_iteration,
                              uint32_t first_slot, uint64_t count) {
  ck_status status = CK_OK;
  /* The steps advance the counters themselves; the host sets them at the
   * start of every run, since its history slots restart after each read
   * (a run follows such a read anyway, so waiting here costs little). */
  uint64_t counters[2] = {first_iteration, first_slot};
  CK_TRY(ck_buffer_write(s->queue, s->counters, 0, sizeof counters, counters,
                         CK_BLOCKING, NULL));
  if (count >= GRAPH_STEPS && !s->graph) {
    CK_TRY(ck__cuda_capture_begin(s->queue));
    for (unsigned i = 0; i < GRAPH_STEPS && status == CK_OK; ++i)
      status = launch_step(s);
    ck_status ended = ck__cuda_capture_end(s->queue, &s->graph);
    CK_TRY(status ? status : ended);
  }
  for (; count >= GRAPH_STEPS; count -= GRAPH_STEPS)
    CK_TRY(ck__cuda_graph_launch(s->queue, s->graph));
  for (; count > 0; --count)
    CK_TRY(launch_step(s));
fail:
  return status;
}

/* Kernels before their programs: the evaluation's kernels, which the
 * OpenCL teardown destroys, may come from the lsq program. */
static void cuda_teardown(pso_state *s) {
  ck__cuda_graph_destroy(s->graph);
  ck_kernel_destroy(s->step_kernel);
  ck__pso_opencl_steps.teardown(s);
  ck_program_destroy(s->native_program);
  ck_program_destroy(s->lsq_program);
  ck_buffer_destroy(s->block_values);
  ck_buffer_destroy(s->block_indices);
  ck_buffer_destroy(s->arrivals);
  ck_buffer_destroy(s->counters);
}

/* Initialisation, neighbours, separate moves, evaluation and best updates
 * are the OpenCL steps; the driver takes cuda_iterate where the native
 * step applies (s->iterates), and these otherwise. */
static ck_status cuda_initialise(pso_state *s) {
  return ck__pso_opencl_steps.initialise(s);
}
static ck_status cuda_neighbours(pso_state *s) {
  return ck__pso_opencl_steps.neighbours(s);
}
static ck_status cuda_move(pso_state *s, uint64_t iteration) {
  return ck__pso_opencl_steps.move(s, iteration);
}
static ck_status cuda_evaluate(pso_state *s) {
  return ck__pso_opencl_steps.evaluate(s);
}
static ck_status cuda_update_best(pso_state *s, uint32_t slot) {
  return ck__pso_opencl_steps.update_best(s, slot);
}

const ck__pso_steps ck__pso_cuda_steps = {
    cuda_setup,    cuda_initialise,  cuda_neighbours, cuda_move,
    cuda_evaluate, cuda_update_best, cuda_teardown,   cuda_iterate};
