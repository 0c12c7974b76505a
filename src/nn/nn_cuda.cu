/*
 * nn_cuda.cu - the element-wise ends of the MLP's matrix products on CUDA
 * devices, where cuBLAS computes the products themselves (nn_cuda.c).
 * Each kernel runs a grid-stride loop, a thread per output element, and
 * applies the same ck_nn.h formulas as the OpenCL kernels' stores and the
 * ref steps.
 */
#include "ck_nn.h"
#include "nn/nn_cuda.h"

/* A grid wide enough to cover count elements with 256 threads a block,
 * capped: the loops stride over the rest. */
static unsigned blocks_for(size_t count) {
  size_t blocks = (count + 255) / 256;
  return (unsigned)(blocks < 65536 ? (blocks ? blocks : 1) : 65536);
}

/* Thread i of output (M x N, row-major): the bias of column n, then the
 * activation. The bias is column K of the weights (N x (K + 1)). */
static __global__ void bias_activate(int M, int N, int K, int activation,
                                     const float *weights, float *output) {
  size_t total = (size_t)M * N;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
       i += (size_t)gridDim.x * blockDim.x) {
    int n = (int)(i % (size_t)N);
    output[i] = ck_nn_activate(activation,
                               output[i] + weights[(size_t)n * (K + 1) + K]);
  }
}

/* Thread i: the back-propagated sum times the slope of the activation. */
static __global__ void apply_slope(size_t total, int activation,
                                   const float *values, float *previous) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
       i += (size_t)gridDim.x * blockDim.x)
    previous[i] *= ck_nn_slope(activation, values[i]);
}

/* Rows of deltas a bias thread loads before it adds them: the loads of a
 * batch are independent, so they overlap, where one load an addition
 * left each bias thread (one a warp) waiting on memory count times, the
 * tail of the whole launch (at batch 1024 most of the optimiser's time). */
#define BIAS_ROWS_AT_ONCE 16

/* Thread i: parameter (m, n) of weights (M x N, the last column the
 * biases). Weights take their product-gradient plus weight decay; a bias
 * sums its deltas over the count rows in ascending order, as ref does. */
static __global__ void optimize(int M, int N, int count, int optimizer,
                                const float *delta, const float *gradient,
                                float *weights, float *first, float *second,
                                ck_nn_cuda_update u) {
  size_t total = (size_t)M * N;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
       i += (size_t)gridDim.x * blockDim.x) {
    int m = (int)(i / (size_t)N), n = (int)(i % (size_t)N);
    float g;
    if (n < N - 1) {
      g = gradient[i] + u.decay * weights[i];
    } else {
      g = 0.0f;
      int b = 0;
      for (; b + BIAS_ROWS_AT_ONCE <= count; b += BIAS_ROWS_AT_ONCE) {
        float rows[BIAS_ROWS_AT_ONCE];
#pragma unroll
        for (int k = 0; k < BIAS_ROWS_AT_ONCE; ++k)
          rows[k] = delta[(size_t)(b + k) * M + m];
#pragma unroll
        for (int k = 0; k < BIAS_ROWS_AT_ONCE; ++k)
          g += rows[k];
      }
      for (; b < count; ++b)
        g += delta[(size_t)b * M + m];
    }
    ck_nn_optimize(optimizer, weights + i, first + i, second + i, g, u.rate,
                   u.momentum, u.beta1, u.beta2, u.epsilon, u.correction1,
                   u.correction2);
  }
}

/* An earlier call's error, left unread, is not this launch's. */
static void forget_earlier_error(void) {
  cudaGetLastError();
}

/* Launch errors are read at once, and returned rather than left for a
 * later read (which the read itself would clear): faults in the kernels
 * surface at the queue's next wait. */
static int launched(void) {
  return (int)cudaGetLastError();
}

extern "C" int ck__nn_cuda_bias_activate(void *stream, int M, int N, int K,
                                         int activation, const float *weights,
                                         float *output) {
  forget_earlier_error();
  bias_activate<<<blocks_for((size_t)M * N), 256, 0, (cudaStream_t)stream>>>(
      M, N, K, activation, weights, output);
  return launched();
}

extern "C" int ck__nn_cuda_slope(void *stream, size_t total, int activation,
                                 const float *values, float *previous) {
  forget_earlier_error();
  apply_slope<<<blocks_for(total), 256, 0, (cudaStream_t)stream>>>(
      total, activation, values, previous);
  return launched();
}

extern "C" int ck__nn_cuda_optimize(void *stream, int M, int N, int count,
                                    int optimizer, const float *delta,
                                    const float *gradient, float *weights,
                                    float *first, float *second,
                                    const ck_nn_cuda_update *update) {
  forget_earlier_error();
  optimize<<<blocks_for((size_t)M * N), 256, 0, (cudaStream_t)stream>>>(
      M, N, count, optimizer, delta, gradient, weights, first, second, *update);
  return launched();
}

extern "C" const char *ck__nn_cuda_error_name(int code) {
  return cudaGetErrorString((cudaError_t)code);
}

extern "C" int ck__nn_cuda_out_of_memory(int code) {
  return (cudaError_t)code == cudaErrorMemoryAllocation;
}
