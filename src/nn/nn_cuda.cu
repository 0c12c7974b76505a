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
 * activation. The bias is column K of the weights (N rows, pitch apart). */
static __global__ void bias_activate(int M, int N, int K, int pitch,
                                     int activation, const float *weights,
                                     float *output) {
  size_t total = (size_t)M * N;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
       i += (size_t)gridDim.x * blockDim.x) {
    int n = (int)(i % (size_t)N);
    output[i] =
        ck_nn_activate(activation, output[i] + weights[(size_t)n * pitch + K]);
  }
}

/* Thread i: the back-propagated sum times the slope of the activation. */
static __global__ void apply_slope(size_t total, int activation,
                                   const float *values, float *previous) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
       i += (size_t)gridDim.x * blockDim.x)
    previous[i] *= ck_nn_slope(activation, values[i]);
}

/* Thread i: parameter (m, n) of weights (M x N, the last column the
 * biases, rows pitch apart), from the gradient (the same layout). Weights
 * take weight decay too; biases do not, as in ref. */
static __global__ void optimize(int M, int N, int pitch, int optimizer,
                                const float *gradient, float *weights,
                                float *first, float *second,
                                const ck_nn_cuda_step *step) {
  const ck_nn_cuda_update u = step->update;
  size_t total = (size_t)M * N;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
       i += (size_t)gridDim.x * blockDim.x) {
    int m = (int)(i / (size_t)N), n = (int)(i % (size_t)N);
    size_t at = (size_t)m * pitch + n;
    float g = gradient[at];
    if (n < N - 1)
      g += u.decay * weights[at];
    ck_nn_optimize(optimizer, weights + at, first + at, second + at, g, u.rate,
                   u.momentum, u.beta1, u.beta2, u.epsilon, u.correction1,
                   u.correction2);
  }
}

/* The one thread: the step's settings. */
static __global__ void set_step(ck_nn_cuda_step *step, ck_nn_cuda_step value) {
  *step = value;
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
                                         int pitch, int activation,
                                         const float *weights, float *output) {
  forget_earlier_error();
  bias_activate<<<blocks_for((size_t)M * N), 256, 0, (cudaStream_t)stream>>>(
      M, N, K, pitch, activation, weights, output);
  return launched();
}

extern "C" int ck__nn_cuda_slope(void *stream, size_t total, int activation,
                                 const float *values, float *previous) {
  forget_earlier_error();
  apply_slope<<<blocks_for(total), 256, 0, (cudaStream_t)stream>>>(
      total, activation, values, previous);
  return launched();
}

extern "C" int ck__nn_cuda_optimize(void *stream, int M, int N, int pitch,
                                    int optimizer, const float *gradient,
                                    float *weights, float *first, float *second,
                                    const ck_nn_cuda_step *step) {
  forget_earlier_error();
  optimize<<<blocks_for((size_t)M * N), 256, 0, (cudaStream_t)stream>>>(
      M, N, pitch, optimizer, gradient, weights, first, second, step);
  return launched();
}

extern "C" int ck__nn_cuda_set_step(void *stream, ck_nn_cuda_step *step,
                                    const ck_nn_cuda_step *value) {
  forget_earlier_error();
  set_step<<<1, 1, 0, (cudaStream_t)stream>>>(step, *value);
  return launched();
}

extern "C" const char *ck__nn_cuda_error_name(int code) {
  return cudaGetErrorString((cudaError_t)code);
}

extern "C" int ck__nn_cuda_out_of_memory(int code) {
  return (cudaError_t)code == cudaErrorMemoryAllocation;
}
