/* nn_opencl.c - the OpenCL steps of the MLP: kernels in cl/nn.cl. */
#include <stdio.h>

#include "nn/nn_internal.h"

/* Rows of work-items a gather launch has at most. A CUDA grid takes at
 * most 65,535 blocks in its second dimension, so a larger batch is
 * gathered a few rows a work-item (cl/nn.cl). */
#define GATHER_ROWS 32768u

/* The vector form's dot products (the forward product) keep DOT_BLOCK x
 * DOT_BLOCK vectors of partial sums and 2 DOT_BLOCK operand vectors: 24
 * of the 32 vector registers of an AVX-512 core. Its other products keep
 * VECTOR_ROWS sums, a vector each. */
enum { DOT_BLOCK = 4, VECTOR_ROWS = 16 };

/*
 * Tiles per device: GPUs stage 64 x 64 output tiles through local memory,
 * 4 x 4 outputs a work-item (256 work-items a group); CPUs compute 64 x 64
 * tiles in the vector form, 16 rows of 16 outputs (8 in double) a
 * work-item (16 work-items a group, 32 in double). On 2 PoCL cores the
 * vector form ran the products 4 to 7 times as fast as the global form
 * (bench/results/cpu2-2026-11-23-nn-vector/).
 */
static ck_status opencl_setup(nn_state *state) {
  ck_status status = CK_OK;
  int gpu = state->device.kind == CK_KIND_GPU;
  state->form = gpu ? CK__NN_LOCAL : CK__NN_VECTOR;
  state->tile_m = state->tile_n = 64;
  if (state->tuning.tile) {
    state->tile_m = state->tile_n = state->tuning.tile;
    state->form = state->tuning.form;
  }
  state->lanes = 1;
  state->block_m = state->block_n = 4;
  if (state->form == CK__NN_VECTOR) {
    state->lanes = state->block_n = state->double_precision ? 8 : 16;
    state->block_m = VECTOR_ROWS;
  }
  if (state->tile_m < state->block_m || state->tile_n < state->block_n ||
      state->tile_m > 128 || (state->tile_m & (state->tile_m - 1)))
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "matrix-product tiles of %u are not a power of two from %u to 128",
            state->tile_m,
            state->block_m > state->block_n ? state->block_m : state->block_n);
  state->reduce_group = 256;
  size_t group = (size_t)(state->tile_m / state->block_m) *
                 (state->tile_n / state->block_n);
  size_t most = state->device.max_work_group_size;
  while (most && group > most && state->tile_m / 2 >= state->block_m &&
         state->tile_n / 2 >= state->block_n) {
    state->tile_m /= 2;
    state->tile_n /= 2;
    group /= 4;
  }
  while (most && state->reduce_group > most)
    state->reduce_group /= 2;
  char defines[300];
  snprintf(defines, sizeof defines,
           "-DCK_NN_TILE_M=%u -DCK_NN_TILE_N=%u -DCK_NN_BLOCK_M=%u "
           "-DCK_NN_BLOCK_N=%u -DCK_NN_TILE_K=16 -DCK_NN_LOCAL=%d "
           "-DCK_NN_LANES=%u -DCK_NN_DOT_BLOCK=%d "
           "-DCK_NN_REDUCE_GROUP=%u -DCK_REAL_DOUBLE=%d",
           state->tile_m, state->tile_n, state->block_m, state->block_n,
           state->form == CK__NN_LOCAL, state->lanes, DOT_BLOCK,
           state->reduce_group, state->double_precision);
  CK_TRY(ck_program_build(state->queue, "nn", defines, &state->program));
  CK_TRY(
      ck_kernel_create(state->program, "ck_nn_gather", &state->gather_kernel));
  CK_TRY(ck_kernel_create(state->program, "ck_nn_forward",
                          &state->forward_kernel));
  CK_TRY(ck_kernel_create(state->program, "ck_nn_backward",
                          &state->backward_kernel));
  CK_TRY(
      ck_kernel_create(state->program, "ck_nn_update", &state->update_kernel));
  CK_TRY(
      ck_kernel_create(state->program, "ck_nn_output", &state->output_kernel));
  CK_TRY(
      ck_kernel_create(state->program, "ck_nn_reduce", &state->reduce_kernel));
  CK_TRY(ck_kernel_create(state->program, "ck_nn_gradient",
                          &state->gradient_kernel));
  CK_TRY(ck_kernel_create(state->program, "ck_nn_apply", &state->apply_kernel));
fail:
  return status;
}

/* A product of M x N outputs over the tile grid. */
static ck_status launch_product(nn_state *state, ck_kernel *kernel,
                                uint32_t rows, uint32_t columns) {
  size_t local[2] = {state->tile_n / state->block_n,
                     state->tile_m / state->block_m};
  size_t global[2] = {(columns + state->tile_n - 1) / state->tile_n * local[0],
                      (rows + state->tile_m - 1) / state->tile_m * local[1]};
  return ck_queue_launch(state->queue, kernel, 2, global, local, NULL);
}

ck_status ck__nn_opencl_gather_launch(nn_state *state, uint32_t offset,
                                      ck_buffer *step, uint32_t count) {
  ck_status status = CK_OK;
  ck_kernel *kernel = step ? state->gather_step_kernel : state->gather_kernel;
  ck_kernel_args args;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, count);
  ck_kernel_args_u32(&args, state->sizes[0]);
  if (step)
    ck_kernel_args_buffer(&args, step);
  else
    ck_kernel_args_u32(&args, offset);
  ck_kernel_args_buffer(&args, state->index);
  ck_kernel_args_buffer(&args, state->sets[CK_NN_TRAIN].features);
  ck_kernel_args_buffer(&args, state->sets[CK_NN_TRAIN].labels);
  ck_kernel_args_buffer(&args, state->activations[0]);
  ck_kernel_args_buffer(&args, state->batch_labels);
  CK_TRY(ck_kernel_args_end(&args));
  size_t local[2] = {32, 1};
  size_t global[2] = {(state->sizes[0] + 31) / 32 * 32,
                      count < GATHER_ROWS ? count : GATHER_ROWS};
  CK_TRY(ck_queue_launch(state->queue, kernel, 2, global, local, NULL));
fail:
  return status;
}

static ck_status opencl_gather(nn_state *state, uint32_t offset,
                               uint32_t count) {
  return ck__nn_opencl_gather_launch(state, offset, NULL, count);
}

static ck_status opencl_forward(nn_state *state, int layer, ck_buffer *input,
                                uint32_t first, uint32_t count) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  ck_kernel_args_begin(state->forward_kernel, &args);
  ck_kernel_args_i32(&args, (int)count);
  ck_kernel_args_i32(&args, (int)state->sizes[layer]);
  ck_kernel_args_i32(&args, (int)state->sizes[layer - 1]);
  ck_kernel_args_i32(&args, state->activation[layer]);
  ck_kernel_args_u32(&args, first);
  ck_kernel_args_buffer(&args, input);
  ck_kernel_args_buffer(&args, state->weights[layer]);
  ck_kernel_args_buffer(&args, state->activations[layer]);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(
      launch_product(state, state->forward_kernel, count, state->sizes[layer]));
fail:
  return status;
}

ck_status ck__nn_opencl_output_launch(nn_state *state, ck_buffer *labels,
                                      uint32_t first, uint32_t count,
                                      double delta_scale, uint32_t position,
                                      ck_buffer *step) {
  ck_status status = CK_OK;
  ck_kernel *kernel = step ? state->output_step_kernel : state->output_kernel;
  ck_kernel_args args;
  ck_kernel_args_begin(kernel, &args);
  ck_kernel_args_u32(&args, count);
  ck_kernel_args_i32(&args, (int)state->sizes[state->layers]);
  ck_kernel_args_i32(&args, state->loss);
  ck_kernel_args_buffer(&args, state->activations[state->layers]);
  ck_kernel_args_buffer(&args, state->deltas[state->layers]);
  ck_kernel_args_buffer(&args, labels);
  ck_kernel_args_u32(&args, first);
  ck_kernel_args_real(&args, delta_scale, state->double_precision);
  if (step)
    ck_kernel_args_buffer(&args, step);
  else
    ck_kernel_args_u32(&args, position);
  ck_kernel_args_buffer(&args, state->losses);
  ck_kernel_args_buffer(&args, state->hits);
  ck_kernel_args_buffer(&args, state->predictions);
  CK_TRY(ck_kernel_args_end(&args));
  size_t local = 64;
  size_t global = (count + local - 1) / local * local;
  CK_TRY(ck_queue_launch(state->queue, kernel, 1, &global, &local, NULL));
fail:
  return status;
}

static ck_status opencl_output(nn_state *state, ck_buffer *labels,
                               uint32_t first, uint32_t count,
                               double delta_scale, uint32_t position) {
  return ck__nn_opencl_output_launch(state, labels, first, count, delta_scale,
                                     position, NULL);
}

static ck_status opencl_backward(nn_state *state, int layer, uint32_t count) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  ck_kernel_args_begin(state->backward_kernel, &args);
  ck_kernel_args_i32(&args, (int)count);
  ck_kernel_args_i32(&args, (int)state->sizes[layer - 1]);
  ck_kernel_args_i32(&args, (int)state->sizes[layer]);
  ck_kernel_args_i32(&args, state->activation[layer - 1]);
  ck_kernel_args_buffer(&args, state->deltas[layer]);
  ck_kernel_args_buffer(&args, state->weights[layer]);
  ck_kernel_args_buffer(&args, state->activations[layer - 1]);
  ck_kernel_args_buffer(&args, state->deltas[layer - 1]);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(launch_product(state, state->backward_kernel, count,
                        state->sizes[layer - 1]));
fail:
  return status;
}

/* The optimiser's settings, the last arguments of the update and apply
 * kernels. */
static void update_settings(ck_kernel_args *args, const ck__nn_update *update,
                            int double_precision) {
  const double values[] = {
      update->decay, update->rate,    update->momentum,    update->beta1,
      update->beta2, update->epsilon, update->correction1, update->correction2};
  for (unsigned i = 0; i < sizeof values / sizeof values[0]; ++i)
    ck_kernel_args_real(args, values[i], double_precision);
}

static ck_status opencl_update(nn_state *state, int layer, uint32_t count,
                               const ck__nn_update *update) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  ck_kernel_args_begin(state->update_kernel, &args);
  ck_kernel_args_i32(&args, (int)state->sizes[layer]);
  ck_kernel_args_i32(&args, (int)state->sizes[layer - 1] + 1);
  ck_kernel_args_i32(&args, (int)count);
  ck_kernel_args_i32(&args, state->optimizer);
  ck_kernel_args_buffer(&args, state->deltas[layer]);
  ck_kernel_args_buffer(&args, state->activations[layer - 1]);
  ck_kernel_args_buffer(&args, state->weights[layer]);
  ck_kernel_args_buffer(&args, state->first[layer]);
  ck_kernel_args_buffer(&args, state->second[layer]);
  update_settings(&args, update, state->double_precision);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(launch_product(state, state->update_kernel, state->sizes[layer],
                        state->sizes[layer - 1] + 1));
fail:
  return status;
}

static ck_status opencl_gradient(nn_state *state, int layer, uint32_t count) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  ck_kernel_args_begin(state->gradient_kernel, &args);
  ck_kernel_args_i32(&args, (int)state->sizes[layer]);
  ck_kernel_args_i32(&args, (int)state->sizes[layer - 1] + 1);
  ck_kernel_args_i32(&args, (int)count);
  ck_kernel_args_buffer(&args, state->deltas[layer]);
  ck_kernel_args_buffer(&args, state->activations[layer - 1]);
  ck_kernel_args_buffer(&args, state->gradients[layer]);
  CK_TRY(ck_kernel_args_end(&args));
  CK_TRY(launch_product(state, state->gradient_kernel, state->sizes[layer],
                        state->sizes[layer - 1] + 1));
fail:
  return status;
}

static ck_status opencl_apply(nn_state *state, int layer,
                              const ck__nn_update *update) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  ck_kernel_args_begin(state->apply_kernel, &args);
  ck_kernel_args_i32(&args, (int)state->sizes[layer]);
  ck_kernel_args_i32(&args, (int)state->sizes[layer - 1] + 1);
  ck_kernel_args_i32(&args, state->optimizer);
  ck_kernel_args_buffer(&args, state->gradients[layer]);
  ck_kernel_args_buffer(&args, state->weights[layer]);
  ck_kernel_args_buffer(&args, state->first[layer]);
  ck_kernel_args_buffer(&args, state->second[layer]);
  update_settings(&args, update, state->double_precision);
  CK_TRY(ck_kernel_args_end(&args));
  size_t local = 64;
  size_t total = (size_t)state->sizes[layer] * (state->sizes[layer - 1] + 1);
  size_t global = (total + local - 1) / local * local;
  CK_TRY(ck_queue_launch(state->queue, state->apply_kernel, 1, &global, &local,
                         NULL));
fail:
  return status;
}

static ck_status opencl_reduce(nn_state *state, uint32_t count, double *loss,
                               uint64_t *hits) {
  ck_status status = CK_OK;
  ck_kernel_args args;
  ck_kernel_args_begin(state->reduce_kernel, &args);
  ck_kernel_args_u32(&args, count);
  ck_kernel_args_buffer(&args, state->losses);
  ck_kernel_args_buffer(&args, state->hits);
  ck_kernel_args_buffer(&args, state->loss_total);
  ck_kernel_args_buffer(&args, state->hit_total);
  CK_TRY(ck_kernel_args_end(&args));
  size_t local = state->reduce_group;
  CK_TRY(ck_queue_launch(state->queue, state->reduce_kernel, 1, &local, &local,
                         NULL));
  double sum[1];
  float single[1];
  uint32_t total = 0;
  if (state->double_precision) {
    CK_TRY(ck_buffer_read(state->queue, state->loss_total, 0, sizeof sum, sum,
                          CK_BLOCKING, NULL));
  } else {
    CK_TRY(ck_buffer_read(state->queue, state->loss_total, 0, sizeof single,
                          single, CK_BLOCKING, NULL));
    sum[0] = single[0];
  }
  CK_TRY(ck_buffer_read(state->queue, state->hit_total, 0, sizeof total, &total,
                        CK_BLOCKING, NULL));
  *loss = sum[0];
  *hits = total;
fail:
  return status;
}

static void opencl_teardown(nn_state *state) {
  ck_kernel_destroy(state->gather_kernel);
  ck_kernel_destroy(state->forward_kernel);
  ck_kernel_destroy(state->backward_kernel);
  ck_kernel_destroy(state->update_kernel);
  ck_kernel_destroy(state->output_kernel);
  ck_kernel_destroy(state->reduce_kernel);
  ck_kernel_destroy(state->gradient_kernel);
  ck_kernel_destroy(state->apply_kernel);
  ck_program_destroy(state->program);
}

const ck__nn_steps ck__nn_opencl_steps = {
    .setup = opencl_setup,
    .gather = opencl_gather,
    .forward = opencl_forward,
    .output = opencl_output,
    .backward = opencl_backward,
    .update = opencl_update,
    .gradient = opencl_gradient,
    .apply = opencl_apply,
    .reduce = opencl_reduce,
    .teardown = opencl_teardown,
};
