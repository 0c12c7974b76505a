/*
 * nn.cl - MLP training kernels. Their ref twins are the steps of
 * src/nn/nn_ref.c, which call the same ck_nn.h functions; the matrix
 * products share one tiled body, nn_gemm.inc.
 *
 * Build-time defines (chosen per device by src/nn/nn_opencl.c):
 *   CK_NN_TILE_M, CK_NN_TILE_N    outputs of a work-group
 *   CK_NN_BLOCK_M, CK_NN_BLOCK_N  outputs of a work-item
 *   CK_NN_TILE_K                  depth staged in local memory at a time
 *   CK_NN_LOCAL                   1 to stage tiles in local memory
 *   CK_NN_LANES                   outputs a vector in the CPU form (1:
 *                                 the scalar forms; else 2, 4, 8 or 16,
 *                                 and CK_NN_BLOCK_N is the same)
 *   CK_NN_DOT_BLOCK               the CPU form's forward product: outputs
 *                                 each way whose sums stay in registers
 *   CK_NN_REDUCE_GROUP            work-group size of ck_nn_reduce (2^k)
 *   CK_REAL_DOUBLE                0 or 1
 *
 * Weights of a layer are out x (in + 1), the bias last (see ck_nn.h).
 */
#include "ck_nn.h"

#if !defined(CK_NN_TILE_M) || !defined(CK_NN_TILE_N) ||                       \
    !defined(CK_NN_BLOCK_M) || !defined(CK_NN_BLOCK_N) ||                     \
    !defined(CK_NN_TILE_K) || !defined(CK_NN_LOCAL) ||                        \
    !defined(CK_NN_REDUCE_GROUP) || !defined(CK_NN_LANES) ||                  \
    !defined(CK_NN_DOT_BLOCK)
#error "nn.cl needs its CK_NN_ defines"
#endif

/* The CPU form's vectors of CK_NN_LANES reals. */
#if CK_NN_LANES > 1
#define CK_NN_PASTE_(a, b) a##b
#define CK_NN_PASTE(a, b) CK_NN_PASTE_(a, b)
#if CK_REAL_DOUBLE
#define CK_NN_VECTOR CK_NN_PASTE(double, CK_NN_LANES)
#else
#define CK_NN_VECTOR CK_NN_PASTE(float, CK_NN_LANES)
#endif
#define CK_NN_VLOAD CK_NN_PASTE(vload, CK_NN_LANES)
#define CK_NN_VSTORE CK_NN_PASTE(vstore, CK_NN_LANES)
#endif

/* The arguments of both gather kernels, OFFSET (argument 2) apart. */
#define CK_NN_GATHER_ARGUMENTS(OFFSET)                                         \
  uint count, uint features, OFFSET, __global const uint *index,              \
      __global const ck_real *data, __global const int *labels,                \
      __global ck_real *batch, __global int *batch_labels

/* Work-item (f, b) copies feature f of training row index[offset + b]
 * into row b of the batch, and of rows b + rows, b + 2 rows, ... where the
 * launch has fewer rows of work-items (`rows`, its second dimension) than
 * the batch; work-item (0, b) copies their labels too. */
CK_FN void ck_nn_gather_item(CK_NN_GATHER_ARGUMENTS(uint offset)) {
  uint f = (uint)get_global_id(0), rows = (uint)get_global_size(1);
  if (f >= features)
    return;
  for (uint b = (uint)get_global_id(1); b < count; b += rows) {
    uint row = index[offset + b];
    batch[(size_t)b * features + f] = data[(size_t)row * features + f];
    if (f == 0)
      batch_labels[b] = labels[row];
  }
}

__kernel void ck_nn_gather(CK_NN_GATHER_ARGUMENTS(uint offset)) {
  ck_nn_gather_item(count, features, offset, index, data, labels, batch,
                    batch_labels);
}

/* ck_nn_gather with the offset read from step[0], where a training step's
 * settings are written on the device before the step: the CUDA steps
 * record a step's launches once and replay them for the next steps. */
__kernel void
ck_nn_gather_step(CK_NN_GATHER_ARGUMENTS(__global const uint *step)) {
  ck_nn_gather_item(count, features, step[0], index, data, labels, batch,
                    batch_labels);
}

/* Forward: output (M x N) = activate(input (M x K) . weights^T + bias),
 * input read from row `first` on. */
#define CK_GEMM_NAME ck_nn_forward
#define CK_GEMM_ARGUMENTS                                                      \
  int M, int N, int K, int activation, uint first,                             \
      __global const ck_real *input, __global const ck_real *weights,          \
      __global ck_real *output
#define CK_GEMM_LEFT(m, k) input[((size_t)first + (m)) * K + (k)]
#define CK_GEMM_RIGHT(k, n) weights[(size_t)(n) * (K + 1) + (k)]
#define CK_GEMM_LEFT_K_FAST 1
#define CK_GEMM_RIGHT_N_FAST 0
#define CK_GEMM_LEFT_AT(m, k) (input + ((size_t)first + (m)) * K + (k))
#define CK_GEMM_RIGHT_AT(k, n) (weights + (size_t)(n) * (K + 1) + (k))
#define CK_GEMM_STORE(m, n, sum)                                               \
  output[(size_t)(m) * N + (n)] = ck_nn_activate(                             \
      activation, (sum) + weights[(size_t)(n) * (K + 1) + K])
#include "nn_gemm.inc"

/* Backward: previous (M x N) = (delta (M x K) . weights without the bias
 * column) x slope(activation of the previous layer). */
#define CK_GEMM_NAME ck_nn_backward
#define CK_GEMM_ARGUMENTS                                                      \
  int M, int N, int K, int activation, __global const ck_real *delta,          \
      __global const ck_real *weights, __global const ck_real *values,         \
      __global ck_real *previous
#define CK_GEMM_LEFT(m, k) delta[(size_t)(m) * K + (k)]
#define CK_GEMM_RIGHT(k, n) weights[(size_t)(k) * (N + 1) + (n)]
#define CK_GEMM_LEFT_K_FAST 1
#define CK_GEMM_RIGHT_N_FAST 1
#define CK_GEMM_RIGHT_AT(k, n) (weights + (size_t)(k) * (N + 1) + (n))
#define CK_GEMM_RIGHT_PLAIN N
#define CK_GEMM_STORE(m, n, sum)                                               \
  previous[(size_t)(m) * N + (n)] =                                            \
      (sum) * ck_nn_slope(activation, values[(size_t)(m) * N + (n)])
#include "nn_gemm.inc"

/* Update: gradient (M = out x N = in + 1) = delta^T (M x K rows) . [input,
 * 1], plus weight decay off the bias column, then the optimiser step of
 * each parameter by its own work-item. */
#define CK_GEMM_NAME ck_nn_update
#define CK_GEMM_ARGUMENTS                                                      \
  int M, int N, int K, int optimizer, __global const ck_real *delta,           \
      __global const ck_real *input, __global ck_real *weights,                \
      __global ck_real *first, __global ck_real *second, ck_real decay,        \
      ck_real rate, ck_real momentum, ck_real beta1, ck_real beta2,            \
      ck_real epsilon, ck_real correction1, ck_real correction2
#define CK_GEMM_STORE_VECTOR(m, n, sum)                                        \
  do {                                                                         \
    size_t at = (size_t)(m) * N + (n);                                         \
    CK_NN_VECTOR w = CK_NN_VLOAD(0, weights + at);                             \
    CK_NN_VECTOR f = CK_NN_VLOAD(0, first + at);                               \
    CK_NN_VECTOR s = optimizer == CK_NN_OPTIMIZER_ADAM                         \
                         ? CK_NN_VLOAD(0, second + at)                         \
                         : (CK_NN_VECTOR)(CK_R(0));                            \
    CK_NN_VECTOR gradient = (sum) + decay * w;                                 \
    CK_NN_STEP(optimizer, w, f, s, gradient, rate, momentum, beta1, beta2,     \
               epsilon, correction1, correction2);                             \
    CK_NN_VSTORE(w, 0, weights + at);                                          \
    CK_NN_VSTORE(f, 0, first + at);                                            \
    if (optimizer == CK_NN_OPTIMIZER_ADAM)                                     \
      CK_NN_VSTORE(s, 0, second + at);                                         \
  } while (0)
#define CK_GEMM_STORE(m, n, sum)                                               \
  do {                                                                         \
    size_t at = (size_t)(m) * N + (n);                                         \
    ck_real gradient = (n) < N - 1 ? (sum) + decay * weights[at] : (sum);      \
    ck_nn_optimize(optimizer, weights + at, first + at, second + at,           \
                   gradient, rate, momentum, beta1, beta2, epsilon,            \
                   correction1, correction2);                                  \
  } while (0)
#include "nn_gradient.inc"

/* Gradient: a spread member's part of the update's product, stored in
 * gradient (out x (in + 1)) for the members to sum before ck_nn_apply;
 * the same sums as ck_nn_update's. */
#define CK_GEMM_NAME ck_nn_gradient
#define CK_GEMM_ARGUMENTS                                                      \
  int M, int N, int K, __global const ck_real *delta,                          \
      __global const ck_real *input, __global ck_real *gradient
#define CK_GEMM_STORE_VECTOR(m, n, sum)                                        \
  CK_NN_VSTORE((sum), 0, gradient + (size_t)(m) * N + (n))
#define CK_GEMM_STORE(m, n, sum) gradient[(size_t)(m) * N + (n)] = (sum)
#include "nn_gradient.inc"

/* Work-item `at`: parameter at of weights (M x N, the biases last) takes
 * its optimiser step from the summed gradient, with weight decay off the
 * bias column, as ck_nn_update's store does. */
__kernel void ck_nn_apply(int M, int N, int optimizer,
                          __global const ck_real *gradient,
                          __global ck_real *weights, __global ck_real *first,
                          __global ck_real *second, ck_real decay, ck_real rate,
                          ck_real momentum, ck_real beta1, ck_real beta2,
                          ck_real epsilon, ck_real correction1,
                          ck_real correction2) {
  size_t at = get_global_id(0);
  if (at >= (size_t)M * N)
    return;
  ck_real g = (int)(at % (size_t)N) < N - 1
                  ? gradient[at] + decay * weights[at]
                  : gradient[at];
  ck_nn_optimize(optimizer, weights + at, first + at, second + at, g, rate,
                 momentum, beta1, beta2, epsilon, correction1, correction2);
}

/* The arguments of both output kernels, POSITION (argument 8) apart. */
#define CK_NN_OUTPUT_ARGUMENTS(POSITION)                                       \
  uint count, int width, int loss, __global const ck_real *values,            \
      __global ck_real *deltas, __global const int *labels, uint first,        \
      ck_real delta_scale, POSITION, __global ck_real *losses,                 \
      __global uint *hits, __global int *predictions

/* Work-item b scores sample b of the output layer's values (count x
 * width): its loss, hit and prediction go to entry position + b; with a
 * nonzero delta_scale, its row of deltas becomes the output delta (the
 * row is scored in the deltas buffer, so the values stay as they are). */
CK_FN void ck_nn_output_item(CK_NN_OUTPUT_ARGUMENTS(uint position)) {
  uint b = (uint)get_global_id(0);
  if (b >= count)
    return;
  __global ck_real *row = deltas + (size_t)b * width;
  for (int k = 0; k < width; ++k)
    row[k] = values[(size_t)b * width + k];
  int label = labels[first + b];
  int predicted = 0;
  ck_real value =
      ck_nn_output_row(loss, row, width, label, delta_scale, &predicted);
  losses[position + b] = value;
  hits[position + b] = predicted == label ? 1u : 0u;
  predictions[position + b] = predicted;
}

__kernel void ck_nn_output(CK_NN_OUTPUT_ARGUMENTS(uint position)) {
  ck_nn_output_item(count, width, loss, values, deltas, labels, first,
                    delta_scale, position, losses, hits, predictions);
}

/* ck_nn_output with the entries from the step's position, step[1] (see
 * ck_nn_gather_step): a network alone's is its offset; a spread member's
 * counts its own rows. */
__kernel void
ck_nn_output_step(CK_NN_OUTPUT_ARGUMENTS(__global const uint *step)) {
  ck_nn_output_item(count, width, loss, values, deltas, labels, first,
                    delta_scale, step[1], losses, hits, predictions);
}

/* One work-group: work-item l sums entries l, l + GROUP, ... of the
 * per-sample losses and hits, then a tree in local memory adds the
 * partial sums; work-item 0 stores the totals. */
__kernel __attribute__((reqd_work_group_size(CK_NN_REDUCE_GROUP, 1, 1)))
void ck_nn_reduce(uint count, __global const ck_real *losses,
                  __global const uint *hits, __global ck_real *loss_total,
                  __global uint *hit_total) {
  CK_LOCAL ck_real sums[CK_NN_REDUCE_GROUP];
  CK_LOCAL uint counts[CK_NN_REDUCE_GROUP];
  uint l = (uint)get_local_id(0);
  ck_real sum = CK_R(0);
  uint hit = 0;
  for (uint i = l; i < count; i += CK_NN_REDUCE_GROUP) {
    sum += losses[i];
    hit += hits[i];
  }
  sums[l] = sum;
  counts[l] = hit;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = CK_NN_REDUCE_GROUP / 2; stride > 0; stride /= 2) {
    if (l < stride) {
      sums[l] += sums[l + stride];
      counts[l] += counts[l + stride];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) {
    *loss_total = sums[0];
    *hit_total = counts[0];
  }
}
