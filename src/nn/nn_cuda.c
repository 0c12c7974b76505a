/*
 * nn_cuda.c - the CUDA steps of the MLP: the three matrix products on
 * cuBLAS (tensor cores in TF32 mode, when asked), their element-wise ends
 * in nn_cuda.cu, and the OpenCL steps' kernels, built for CUDA, for the
 * rest (gathering a batch, scoring the output, the loss sums).
 *
 * Layouts are the OpenCL kernels' (row-major, weights N x (K + 1) with
 * the biases last); cuBLAS, column-major, sees each row-major matrix as
 * its transpose, so every product below is written transposed.
 */
#include <cublas_v2.h>
#include <stdio.h>

#include "core/queue_internal.h"
#include "nn/nn_cuda.h"
#include "nn/nn_internal.h"

static ck_status blas_fail(const nn_state *state, cublasStatus_t code,
                           const char *what) {
  return ck__fail(code == CUBLAS_STATUS_ALLOC_FAILED ? CK_ERROR_DEVICE_MEMORY
                                                     : CK_ERROR_DEVICE,
                  "device %s: cuBLAS %s failed: %s", state->device.id, what,
                  cublasGetStatusString(code));
}

static ck_status launch_fail(const nn_state *state, const char *what,
                             int code) {
  return ck__fail(ck__nn_cuda_out_of_memory(code) ? CK_ERROR_DEVICE_MEMORY
                                                  : CK_ERROR_DEVICE,
                  "device %s: launching %s failed: %s", state->device.id, what,
                  ck__nn_cuda_error_name(code));
}

/* Jumps to fail: with a status already reported. */
#define FAIL_WITH(expr)                                                        \
  do {                                                                         \
    status = (expr);                                                           \
    goto fail;                                                                 \
  } while (0)

static float *pointer(ck_buffer *buffer) {
  return (float *)ck__cuda_pointer(buffer);
}

static ck_status cuda_setup(nn_state *state) {
  ck_status status = CK_OK;
  cublasHandle_t handle = NULL;
  cublasStatus_t code;
  CK_TRY(ck__nn_opencl_steps.setup(state));
  /* The handle belongs to the device current when it is made. */
  CK_TRY(ck__cuda_use_device(state->queue));
  if ((code = cublasCreate(&handle)) != CUBLAS_STATUS_SUCCESS)
    FAIL_WITH(blas_fail(state, code, "cublasCreate"));
  state->blas = handle;
  if ((code = cublasSetStream(handle,
                              (cudaStream_t)ck__cuda_stream(state->queue))) !=
          CUBLAS_STATUS_SUCCESS ||
      (code = cublasSetMathMode(handle, state->tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                                    : CUBLAS_DEFAULT_MATH)) !=
          CUBLAS_STATUS_SUCCESS)
    FAIL_WITH(blas_fail(state, code, "setup"));
  /* One product gradient at a time: the largest layer's. */
  size_t largest = 1;
  for (int layer = 1; layer <= state->layers; ++layer) {
    size_t size = (size_t)state->sizes[layer] * (state->sizes[layer - 1] + 1);
    largest = size > largest ? size : largest;
  }
  CK_TRY(ck_buffer_create(state->queue, largest * sizeof(float),
                          &state->gradient));
fail:
  return status;
}

static ck_status sgemm(nn_state *state, cublasOperation_t a_op,
                       cublasOperation_t b_op, int m, int n, int k,
                       const float *a, int lda, const float *b, int ldb,
                       float *c, int ldc) {
  const float one = 1.0f, zero = 0.0f;
  void *span = NULL;
  ck_status status = ck__cuda_kernel_begin(state->queue, &span);
  if (status != CK_OK)
    return status;
  cublasStatus_t code = cublasSgemm((cublasHandle_t)state->blas, a_op, b_op, m,
                                    n, k, &one, a, lda, b, ldb, &zero, c, ldc);
  if (code != CUBLAS_STATUS_SUCCESS) {
    ck__cuda_kernel_abandon(state->queue, span);
    return blas_fail(state, code, "cublasSgemm");
  }
  return ck__cuda_kernel_end(state->queue, span);
}

/* Runs one launcher between timing marks; nonzero from it is a failure. */
#define TIMED(state, what, call)                                               \
  do {                                                                         \
    void *span = NULL;                                                         \
    CK_TRY(ck__cuda_kernel_begin((state)->queue, &span));                      \
    int code = (call);                                                         \
    if (code != 0) {                                                           \
      ck__cuda_kernel_abandon((state)->queue, span);                           \
      FAIL_WITH(launch_fail((state), (what), code));                           \
    }                                                                          \
    CK_TRY(ck__cuda_kernel_end((state)->queue, span));                         \
  } while (0)

/* output (count x N) = act(input (count x K) . W^T + b): in cuBLAS's
 * terms output^T (N x count) = W (N x K, ld K + 1)^T-view . input^T. */
static ck_status cuda_forward(nn_state *state, int layer, ck_buffer *input,
                              uint32_t first, uint32_t count) {
  ck_status status = CK_OK;
  int N = (int)state->sizes[layer], K = (int)state->sizes[layer - 1];
  float *weights = pointer(state->weights[layer]);
  float *output = pointer(state->activations[layer]);
  CK_TRY(sgemm(state, CUBLAS_OP_T, CUBLAS_OP_N, N, (int)count, K, weights,
               K + 1, pointer(input) + (size_t)first * K, K, output, N));
  TIMED(state, "the bias and activation",
        ck__nn_cuda_bias_activate(ck__cuda_stream(state->queue), (int)count, N,
                                  K, state->activation[layer], weights,
                                  output));
fail:
  return status;
}

/* previous (count x N) = (delta (count x K) . W[:, :N]) x slope: in
 * cuBLAS's terms previous^T = W(:, :N)^T (N x K, ld N + 1) . delta^T. */
static ck_status cuda_backward(nn_state *state, int layer, uint32_t count) {
  ck_status status = CK_OK;
  int N = (int)state->sizes[layer - 1], K = (int)state->sizes[layer];
  float *previous = pointer(state->deltas[layer - 1]);
  CK_TRY(sgemm(state, CUBLAS_OP_N, CUBLAS_OP_N, N, (int)count, K,
               pointer(state->weights[layer]), N + 1,
               pointer(state->deltas[layer]), K, previous, N));
  TIMED(state, "the activation slope",
        ck__nn_cuda_slope(ck__cuda_stream(state->queue), (size_t)count * N,
                          state->activation[layer - 1],
                          pointer(state->activations[layer - 1]), previous));
fail:
  return status;
}

/* gradient (out x in, ld in + 1) = delta^T (out x count) . input (count x
 * in): in cuBLAS's terms gradient^T = input^T . delta. */
static ck_status weight_gradient(nn_state *state, int layer, uint32_t count) {
  int out = (int)state->sizes[layer], in = (int)state->sizes[layer - 1];
  return sgemm(state, CUBLAS_OP_N, CUBLAS_OP_T, in, out, (int)count,
               pointer(state->activations[layer - 1]), in,
               pointer(state->deltas[layer]), out, pointer(state->gradient),
               in + 1);
}

/* The product gradient, then the bias column and the optimiser step in
 * one kernel. */
static ck_status cuda_update(nn_state *state, int layer, uint32_t count,
                             const ck__nn_update *update) {
  ck_status status = CK_OK;
  int out = (int)state->sizes[layer], in = (int)state->sizes[layer - 1];
  CK_TRY(weight_gradient(state, layer, count));
  ck_nn_cuda_update settings = {
      (float)update->decay,       (float)update->rate,
      (float)update->momentum,    (float)update->beta1,
      (float)update->beta2,       (float)update->epsilon,
      (float)update->correction1, (float)update->correction2};
  TIMED(state, "the optimiser step",
        ck__nn_cuda_optimize(
            ck__cuda_stream(state->queue), out, in + 1, (int)count,
            state->optimizer, pointer(state->deltas[layer]),
            pointer(state->gradient), pointer(state->weights[layer]),
            pointer(state->first[layer]), pointer(state->second[layer]),
            &settings));
fail:
  return status;
}

/* Every product of a training step of count rows, on the scratch buffers
 * (activations, deltas, the product gradient) and never the weights:
 * cuBLAS picks and loads its kernels for each shape on its first call. */
static ck_status cuda_prepare(nn_state *state, uint32_t count) {
  ck_status status = CK_OK;
  for (int layer = 1; layer <= state->layers; ++layer)
    CK_TRY(cuda_forward(state, layer, state->activations[layer - 1], 0, count));
  for (int layer = state->layers; layer >= 1; --layer) {
    if (layer >= 2)
      CK_TRY(cuda_backward(state, layer, count));
    CK_TRY(weight_gradient(state, layer, count));
  }
fail:
  return status;
}

static void cuda_teardown(nn_state *state) {
  /* The handle belongs to the queue's device, which must be current. */
  if (state->blas) {
    (void)ck__cuda_use_device(state->queue);
    cublasDestroy((cublasHandle_t)state->blas);
  }
  state->blas = NULL;
  ck_buffer_destroy(state->gradient);
  state->gradient = NULL;
  ck__nn_opencl_steps.teardown(state);
}

/* Gathering a batch, scoring the output and the loss sums: the OpenCL
 * steps' kernels, built for CUDA. */
static ck_status cuda_gather(nn_state *state, uint32_t offset, uint32_t count) {
  return ck__nn_opencl_steps.gather(state, offset, count);
}

static ck_status cuda_output(nn_state *state, ck_buffer *labels, uint32_t first,
                             uint32_t count, double delta_scale,
                             uint32_t position) {
  return ck__nn_opencl_steps.output(state, labels, first, count, delta_scale,
                                    position);
}

static ck_status cuda_reduce(nn_state *state, uint32_t count, double *loss,
                             uint64_t *hits) {
  return ck__nn_opencl_steps.reduce(state, count, loss, hits);
}

/* Single precision only: double-precision runs use the OpenCL steps'
 * kernels, built for CUDA. */
const ck__nn_steps ck__nn_cuda_steps = {
    cuda_setup,  cuda_gather, cuda_forward,  cuda_output, cuda_backward,
    cuda_update, cuda_reduce, cuda_teardown, cuda_prepare};
