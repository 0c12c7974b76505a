/*
 * aco_cuda.c - the CUDA steps of the ACO: tour construction and local
 * search by the native kernels of cl/aco.cu (a warp an ant, the ant's
 * arrays in shared memory); ranking, the ACS edge counts, the
 * iteration-best reduction, deposits, the pheromone update and
 * partitioning by the OpenCL steps' kernels, built for CUDA.
 */
#include <stdio.h>

#include "aco/aco_internal.h"

/* A warp an ant, and a lane a candidate. */
#define WARP 32u
/* Cities whose per-ant arrays (tour and positions in 16 bits, a flag
 * byte: 5 bytes a city) fit in a block's 48 KB of static shared memory;
 * aco.cu checks the same bound. */
#define NATIVE_CITIES 9600u
/* Threads a block of the candidate-distance table's kernel. */
#define TABLE_BLOCK 256u

int ck__aco_cuda_supports(const aco_state *state) {
  return state->lanes == WARP && state->k <= WARP && state->n <= NATIVE_CITIES;
}

/* The table of candidate distances, once: the instance does not change. */
static ck_status fill_candidate_distances(aco_state *state) {
  ck_status status = CK_OK;
  ck_kernel *kernel = NULL;
  CK_TRY(ck_kernel_create(state->native_program, "ck_aco_candidate_distances",
                          &kernel));
  ck_kernel_args args;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->n);
  ck_kernel_args_buffer(&args, state->matrix);
  ck_kernel_args_buffer(&args, state->xy);
  ck_kernel_args_buffer(&args, state->neighbours);
  ck_kernel_args_buffer(&args, state->candidate_distances);
  CK_TRY(ck_kernel_args_end(&args));
  size_t entries = (size_t)state->n * state->k, local = TABLE_BLOCK;
  size_t global = (entries + local - 1) / local * local;
  CK_TRY(ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL));
fail:
  ck_kernel_destroy(kernel);
  return status;
}

static ck_status cuda_setup(aco_state *state) {
  ck_status status = CK_OK;
  CK_TRY(ck__aco_opencl_steps.setup(state));
  char defines[160];
  snprintf(defines, sizeof defines,
           "-DCK_ACO_METRIC=%d -DCK_ACO_K=%uu -DCK_ACO_CITIES=%u",
           state->metric, (unsigned)state->k, (unsigned)state->n);
  CK_TRY(ck_program_build(state->queue, "aco.cu", defines,
                          &state->native_program));
  CK_TRY(ck__buffer_make(state->queue,
                         (size_t)state->n * state->k * sizeof(int32_t),
                         &state->candidate_distances));
  CK_TRY(fill_candidate_distances(state));

  /* The native kernels take the OpenCL ones' places, with the arguments
   * that change at the same positions, so that the OpenCL steps launch
   * them (a warp an ant: the OpenCL steps' lanes are 32 here). */
  ck_kernel *kernel;
  ck_kernel_args args;
  CK_TRY(ck_kernel_create(state->native_program, "ck_aco_build_tours_warp",
                          &kernel));
  ck_kernel_destroy(state->construct_kernel);
  state->construct_kernel = kernel;
  ck_kernel_args_begin(kernel, &args);
  ck__aco_add_construct_arguments(state, &args);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(
      ck_kernel_create(state->native_program, "ck_aco_search_warp", &kernel));
  ck_kernel_destroy(state->search_kernel);
  state->search_kernel = kernel;
  ck_kernel_args_begin(kernel, &args);
  ck__aco_add_search_arguments(state, &args);
  ck_kernel_args_buffer(&args, state->candidate_distances);
  CK_TRY(ck_kernel_args_end(&args));
fail:
  return status;
}

/* The OpenCL teardown destroys the native kernels too (they hold the
 * OpenCL ones' places), before their program. */
static void cuda_teardown(aco_state *state) {
  ck__aco_opencl_steps.teardown(state);
  ck_program_destroy(state->native_program);
  ck_buffer_destroy(state->candidate_distances);
  state->native_program = NULL;
  state->candidate_distances = NULL;
}

/* Construction and local search are the OpenCL steps, which launch the
 * native kernels set up above; the other steps are the OpenCL ones. */
const ck__aco_steps ck__aco_cuda_steps = {
    .setup = cuda_setup,
    .teardown = cuda_teardown,
};
