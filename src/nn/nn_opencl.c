/* nn_opencl.c - the OpenCL steps of the MLP: kernels in cl/nn.cl. */
#include <stdio.h>

#include "nn/nn_internal.h"
#include "objectives/problem.h"

static ck_status set_real(ck_kernel *kernel, unsigned index, const nn_state *s,
                          double value) {
  return ck__kernel_set_real(kernel, index, s->double_precision, value);
}

static ck_status set_int(ck_kernel *kernel, unsigned index, int value) {
  return ck_kernel_set_value(kernel, index, sizeof value, &value);
}

static ck_status set_uint(ck_kernel *kernel, unsigned index, uint32_t value) {
  return ck_kernel_set_value(kernel, index, sizeof value, &value);
}

/*
 * Tiles per device: GPUs stage 64 x 64 output tiles through local memory,
 * 4 x 4 outputs a work-item (256 work-items a group); CPUs read memory
 * directly, 32 x 32 tiles of 64 work-items, which PoCL runs as loops.
 */
static ck_status opencl_setup(nn_state *s) {
  ck_status status = CK_OK;
  int gpu = s->device.kind == CK_KIND_GPU;
  s->local_tiles = gpu;
  s->tile_m = s->tile_n = gpu ? 64 : 32;
  if (s->tuning.tile >= 8 && s->tuning.tile <= 128 &&
      !(s->tuning.tile & (s->tuning.tile - 1))) {
    s->tile_m = s->tile_n = s->tuning.tile;
    s->local_tiles = s->tuning.local_tiles;
  }
  s->block_m = s->block_n = 4;
  s->reduce_group = 256;
  size_t group = (size_t)(s->tile_m / s->block_m) * (s->tile_n / s->block_n);
  while (s->device.max_work_group_size &&
         (group > s->device.max_work_group_size ||
          s->reduce_group > s->device.max_work_group_size)) {
    if (group > s->device.max_work_group_size) {
      s->tile_m /= 2;
      s->tile_n /= 2;
      group /= 4;
    }
    if (s->reduce_group > s->device.max_work_group_size)
      s->reduce_group /= 2;
  }
  char defines[300];
  snprintf(defines, sizeof defines,
           "-DCK_NN_TILE_M=%u -DCK_NN_TILE_N=%u -DCK_NN_BLOCK_M=%u "
           "-DCK_NN_BLOCK_N=%u -DCK_NN_TILE_K=16 -DCK_NN_LOCAL=%d "
           "-DCK_NN_REDUCE_GROUP=%u -DCK_REAL_DOUBLE=%d",
           s->tile_m, s->tile_n, s->block_m, s->block_n, s->local_tiles,
           s->reduce_group, s->double_precision);
  CK_TRY(ck_program_build(s->queue, "nn", defines, &s->program));
  CK_TRY(ck_kernel_create(s->program, "ck_nn_gather", &s->gather_kernel));
  CK_TRY(ck_kernel_create(s->program, "ck_nn_forward", &s->forward_kernel));
  CK_TRY(ck_kernel_create(s->program, "ck_nn_backward", &s->backward_kernel));
  CK_TRY(ck_kernel_create(s->program, "ck_nn_update", &s->update_kernel));
  CK_TRY(ck_kernel_create(s->program, "ck_nn_output", &s->output_kernel));
  CK_TRY(ck_kernel_create(s->program, "ck_nn_reduce", &s->reduce_kernel));
fail:
  return status;
}

/* A product of M x N outputs over the tile grid. */
static ck_status launch_product(nn_state *s, ck_kernel *kernel, uint32_t rows,
                                uint32_t columns) {
  size_t local[2] = {s->tile_n / s->block_n, s->tile_m / s->block_m};
  size_t global[2] = {(columns + s->tile_n - 1) / s->tile_n * local[0],
                      (rows + s->tile_m - 1) / s->tile_m * local[1]};
  return ck_queue_launch(s->queue, kernel, 2, global, local, NULL);
}

static ck_status opencl_gather(nn_state *s, uint32_t offset, uint32_t count) {
  ck_status status = CK_OK;
  ck_kernel *k = s->gather_kernel;
  CK_TRY(set_uint(k, 0, count));
  CK_TRY(set_uint(k, 1, s->sizes[0]));
  CK_TRY(set_uint(k, 2, offset));
  CK_TRY(ck_kernel_set_buffer(k, 3, s->index));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->sets[CK_NN_TRAIN].features));
  CK_TRY(ck_kernel_set_buffer(k, 5, s->sets[CK_NN_TRAIN].labels));
  CK_TRY(ck_kernel_set_buffer(k, 6, s->activations[0]));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->batch_labels));
  size_t local[2] = {32, 1};
  size_t global[2] = {(s->sizes[0] + 31) / 32 * 32, count};
  CK_TRY(ck_queue_launch(s->queue, k, 2, global, local, NULL));
fail:
  return status;
}

static ck_status opencl_forward(nn_state *s, int layer, ck_buffer *input,
                                uint32_t first, uint32_t count) {
  ck_status status = CK_OK;
  ck_kernel *k = s->forward_kernel;
  CK_TRY(set_int(k, 0, (int)count));
  CK_TRY(set_int(k, 1, (int)s->sizes[layer]));
  CK_TRY(set_int(k, 2, (int)s->sizes[layer - 1]));
  CK_TRY(set_int(k, 3, s->activation[layer]));
  CK_TRY(set_uint(k, 4, first));
  CK_TRY(ck_kernel_set_buffer(k, 5, input));
  CK_TRY(ck_kernel_set_buffer(k, 6, s->weights[layer]));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->activations[layer]));
  CK_TRY(launch_product(s, k, count, s->sizes[layer]));
fail:
  return status;
}

static ck_status opencl_output(nn_state *s, ck_buffer *labels, uint32_t first,
                               uint32_t count, double delta_scale,
                               uint32_t position) {
  ck_status status = CK_OK;
  ck_kernel *k = s->output_kernel;
  CK_TRY(set_uint(k, 0, count));
  CK_TRY(set_int(k, 1, (int)s->sizes[s->layers]));
  CK_TRY(set_int(k, 2, s->loss));
  CK_TRY(ck_kernel_set_buffer(k, 3, s->activations[s->layers]));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->deltas[s->layers]));
  CK_TRY(ck_kernel_set_buffer(k, 5, labels));
  CK_TRY(set_uint(k, 6, first));
  CK_TRY(set_real(k, 7, s, delta_scale));
  CK_TRY(set_uint(k, 8, position));
  CK_TRY(ck_kernel_set_buffer(k, 9, s->losses));
  CK_TRY(ck_kernel_set_buffer(k, 10, s->hits));
  CK_TRY(ck_kernel_set_buffer(k, 11, s->predictions));
  size_t local = 64;
  size_t global = (count + local - 1) / local * local;
  CK_TRY(ck_queue_launch(s->queue, k, 1, &global, &local, NULL));
fail:
  return status;
}

static ck_status opencl_backward(nn_state *s, int layer, uint32_t count) {
  ck_status status = CK_OK;
  ck_kernel *k = s->backward_kernel;
  CK_TRY(set_int(k, 0, (int)count));
  CK_TRY(set_int(k, 1, (int)s->sizes[layer - 1]));
  CK_TRY(set_int(k, 2, (int)s->sizes[layer]));
  CK_TRY(set_int(k, 3, s->activation[layer - 1]));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->deltas[layer]));
  CK_TRY(ck_kernel_set_buffer(k, 5, s->weights[layer]));
  CK_TRY(ck_kernel_set_buffer(k, 6, s->activations[layer - 1]));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->deltas[layer - 1]));
  CK_TRY(launch_product(s, k, count, s->sizes[layer - 1]));
fail:
  return status;
}

static ck_status opencl_update(nn_state *s, int layer, uint32_t count,
                               const ck__nn_update *u) {
  ck_status status = CK_OK;
  ck_kernel *k = s->update_kernel;
  CK_TRY(set_int(k, 0, (int)s->sizes[layer]));
  CK_TRY(set_int(k, 1, (int)s->sizes[layer - 1] + 1));
  CK_TRY(set_int(k, 2, (int)count));
  CK_TRY(set_int(k, 3, s->optimizer));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->deltas[layer]));
  CK_TRY(ck_kernel_set_buffer(k, 5, s->activations[layer - 1]));
  CK_TRY(ck_kernel_set_buffer(k, 6, s->weights[layer]));
  CK_TRY(ck_kernel_set_buffer(k, 7, s->first[layer]));
  CK_TRY(ck_kernel_set_buffer(k, 8, s->second[layer]));
  const double values[] = {u->decay,       u->rate,       u->momentum,
                           u->beta1,       u->beta2,      u->epsilon,
                           u->correction1, u->correction2};
  for (unsigned i = 0; i < sizeof values / sizeof values[0]; ++i)
    CK_TRY(set_real(k, 9 + i, s, values[i]));
  CK_TRY(launch_product(s, k, s->sizes[layer], s->sizes[layer - 1] + 1));
fail:
  return status;
}

static ck_status opencl_reduce(nn_state *s, uint32_t count, double *loss,
                               uint64_t *hits) {
  ck_status status = CK_OK;
  ck_kernel *k = s->reduce_kernel;
  CK_TRY(set_uint(k, 0, count));
  CK_TRY(ck_kernel_set_buffer(k, 1, s->losses));
  CK_TRY(ck_kernel_set_buffer(k, 2, s->hits));
  CK_TRY(ck_kernel_set_buffer(k, 3, s->loss_total));
  CK_TRY(ck_kernel_set_buffer(k, 4, s->hit_total));
  size_t local = s->reduce_group;
  CK_TRY(ck_queue_launch(s->queue, k, 1, &local, &local, NULL));
  double sum[1];
  float single[1];
  uint32_t total = 0;
  if (s->double_precision) {
    CK_TRY(ck_buffer_read(s->queue, s->loss_total, 0, sizeof sum, sum,
                          CK_BLOCKING, NULL));
  } else {
    CK_TRY(ck_buffer_read(s->queue, s->loss_total, 0, sizeof single, single,
                          CK_BLOCKING, NULL));
    sum[0] = single[0];
  }
  CK_TRY(ck_buffer_read(s->queue, s->hit_total, 0, sizeof total, &total,
                        CK_BLOCKING, NULL));
  *loss = sum[0];
  *hits = total;
fail:
  return status;
}

static void opencl_teardown(nn_state *s) {
  ck_kernel_destroy(s->gather_kernel);
  ck_kernel_destroy(s->forward_kernel);
  ck_kernel_destroy(s->backward_kernel);
  ck_kernel_destroy(s->update_kernel);
  ck_kernel_destroy(s->output_kernel);
  ck_kernel_destroy(s->reduce_kernel);
  ck_program_destroy(s->program);
}

const ck__nn_steps ck__nn_opencl_steps = {
    opencl_setup,  opencl_gather,   opencl_forward,
    opencl_output, opencl_backward, opencl_update,
    opencl_reduce, opencl_teardown, NULL};
