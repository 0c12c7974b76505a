/*
 * aco_cuda.c - the CUDA steps of the ACO: tour construction and local
 * search by the native kernels of cl/aco.cu (a warp an ant, the ant's
 * arrays in shared memory); ranking, the ACS edge counts, the
 * iteration-best reduction, deposits, the pheromone update and
 * partitioning by the OpenCL steps' kernels, built for CUDA.
 */
#include <stdio.h>
#include <stdlib.h>

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

/* The native steps' own state, which the driver never reads: the native
 * program, whose kernels take the places of construct_kernel and
 * search_kernel, and the distance of every candidate entry (n x k) that
 * its search reads. */
struct aco_native {
  ck_program *program;
  ck_buffer *candidate_distances;
};

/* The table of candidate distances, once: the instance does not change. */
static ck_status fill_candidate_distances(aco_state *state) {
  ck_status status = CK_OK;
  const aco_native *native = state->native;
  ck_kernel *kernel = NULL;
  CK_TRY(
      ck_kernel_create(native->program, "ck_aco_candidate_distances", &kernel));
  ck_kernel_args args;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, state->n);
  ck_kernel_args_buffer(&args, state->matrix);
  ck_kernel_args_buffer(&args, state->xy);
  ck_kernel_args_buffer(&args, state->neighbours);
  ck_kernel_args_buffer(&args, native->candidate_distances);
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
  aco_native *native = calloc(1, sizeof *native);
  if (!(state->native = native))
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__aco_opencl_steps.setup(state));
  char defines[160];
  snprintf(defines, sizeof defines,
           "-DCK_ACO_METRIC=%d -DCK_ACO_K=%uu -DCK_ACO_CITIES=%u",
           state->metric, (unsigned)state->k, (unsigned)state->n);
  CK_TRY(ck_program_build(state->queue, "aco.cu", defines, &native->program));
  CK_TRY(ck__buffer_make(state->queue,
                         (size_t)state->n * state->k * sizeof(int32_t),
                         &native->candidate_distances));
  CK_TRY(fill_candidate_distances(state));

  /* The native kernels take the OpenCL ones' places, with the arguments
   * that change at the same positions, so that the OpenCL steps launch
   * them (a warp an ant: the OpenCL steps' lanes are 32 here). */
  ck_kernel *kernel;
  ck_kernel_args args;
  CK_TRY(ck_kernel_create(native->program, "ck_aco_build_tours_warp", &kernel));
  ck_kernel_destroy(state->construct_kernel);
  state->construct_kernel = kernel;
  ck_kernel_args_begin(kernel, &args);
  ck__aco_add_construct_arguments(state, &args);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(ck_kernel_create(native->program, "ck_aco_search_warp", &kernel));
  ck_kernel_destroy(state->search_kernel);
  state->search_kernel = kernel;
  ck_kernel_args_begin(kernel, &args);
  ck__aco_add_search_arguments(state, &args);
  ck_kernel_args_buffer(&args, native->candidate_distances);
  CK_TRY(ck_kernel_args_end(&args));
fail:
  return status;
}

/* The OpenCL teardown destroys the native kernels too (they hold the
 * OpenCL ones' places), before their program. */
static void cuda_teardown(aco_state *state) {
  ck__aco_opencl_steps.teardown(state);
  if (state->native) {
    ck_program_destroy(state->native->program);
    ck_buffer_destroy(state->native->candidate_distances);
    free(state->native);
    state->native = NULL;
  }
}

/* Construction and local search are the OpenCL steps, which launch the
 * native kernels set up above; the other steps are the OpenCL ones. */
const ck__aco_steps ck__aco_cuda_steps = {
    .setup = cuda_setup,
    .teardown = cuda_teardown,
};
